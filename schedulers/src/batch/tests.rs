//! Hand-worked schedules of every batch policy on 4 units, and properties over random job
//! lists. Each expected schedule is worked out in the comment above it from the policy's rule,
//! not from a run.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::conservative::Conservative;
use super::policy::{BatchPolicy, BatchView};
use super::registry::build;
use super::sim::{simulate, simulate_on, Availability, BatchJob, FinalState, OnFailure, Outcome, SimConfig};
use sim_core::profile::Profile;

/// `(id, submit, size, request, run time)`.
fn jobs(list: &[(i64, f64, u32, f64, f64)]) -> Vec<BatchJob> {
    list.iter()
        .map(|&(id, submit_s, size, request_s, runtime_s)| BatchJob {
            id,
            submit_s,
            size,
            request_s,
            runtime_s,
        })
        .collect()
}

const FOUR: SimConfig = SimConfig {
    units: 4,
    kill_at_walltime: true,
};

fn run_with(policy: &str, list: &[BatchJob], config: SimConfig) -> Outcome {
    let mut p = build(policy, &BTreeMap::new()).unwrap();
    simulate(list, config, p.as_mut()).unwrap()
}

/// `(id, start, end)` of each job that ran, by id.
fn schedule(policy: &str, list: &[BatchJob]) -> Vec<(i64, f64, f64)> {
    let out = run_with(policy, list, FOUR);
    let mut s: Vec<_> = out
        .jobs
        .iter()
        .map(|r| (list[r.index].id, r.start_s, r.end_s))
        .collect();
    s.sort_by_key(|x| x.0);
    s
}

// A: J2 needs the whole machine; J3 fits beside J1 and ends before J1 does.
//   J1 t=0 2u req10 | J2 t=1 4u req10 | J3 t=2 2u req5 | J4 t=3 1u req20 (runs = requests)
// FCFS: J1 0-10; J2 10-20 (waits for all 4); J3 and J4 blocked behind J2 start at 20: 20-25,
//   20-40.
// EASY: J2's shadow is 10 (J1's planned end), extra 4-4 = 0. At 2, J3 fits in the 2 free units
//   and ends at 7 <= 10: backfilled 2-7. At 7, J4 (ends 27 > 10, needs 1 > extra 0) may not.
//   J2 10-20; J4 20-40.
// Conservative: J2 reserved at 10; J3 fits [2,7) before it: starts at 2; J4 needs [t, t+20) of
//   1 unit: none free in [10,20), so reserved at 20. Same as EASY.
fn case_a() -> Vec<BatchJob> {
    jobs(&[
        (1, 0.0, 2, 10.0, 10.0),
        (2, 1.0, 4, 10.0, 10.0),
        (3, 2.0, 2, 5.0, 5.0),
        (4, 3.0, 1, 20.0, 20.0),
    ])
}

#[test]
fn easy_backfills_where_fcfs_waits() {
    let list = case_a();
    assert_eq!(
        schedule("fcfs", &list),
        [(1, 0.0, 10.0), (2, 10.0, 20.0), (3, 20.0, 25.0), (4, 20.0, 40.0)]
    );
    let easy = [(1, 0.0, 10.0), (2, 10.0, 20.0), (3, 2.0, 7.0), (4, 20.0, 40.0)];
    assert_eq!(schedule("easy", &list), easy);
    assert_eq!(schedule("easy-sjbf", &list), easy);
    assert_eq!(schedule("conservative", &list), easy);
    // J3 backfilled at 2 gets the lowest free units, 2 and 3 (J1 holds 0 and 1).
    let out = run_with("easy", &list, FOUR);
    let j3 = out.jobs.iter().find(|r| list[r.index].id == 3).unwrap();
    assert_eq!(j3.units, [(2, 3)]);
}

// B: EASY protects only the head; conservative protects every queued job.
//   J1 t=0 2u req10 | J2 t=1 3u req10 | J3 t=2 4u req10 | J4 t=3 1u req30
// EASY: J2's shadow is 10 with 4 free then, extra 4-3 = 1. At 3, J4 fits (2 free), ends 33 >
//   10 but needs 1 <= extra: backfilled 3-33. J2 10-20. J3 needs 4 units: J4 holds one until
//   33, so J3 33-43 (delayed by the backfill).
// Conservative: J2 reserved [10,20) (3 units), J3 [20,30) (4 units); J4 of 30 s finds 1 unit
//   free only from 30: reserved at 30, 30-60. J3 starts at 20 as promised.
// FCFS: J1 0-10, J2 10-20, J3 20-30, J4 30-60.
#[test]
fn conservative_protects_the_second_job_easy_does_not() {
    let list = jobs(&[
        (1, 0.0, 2, 10.0, 10.0),
        (2, 1.0, 3, 10.0, 10.0),
        (3, 2.0, 4, 10.0, 10.0),
        (4, 3.0, 1, 30.0, 30.0),
    ]);
    assert_eq!(
        schedule("easy", &list),
        [(1, 0.0, 10.0), (2, 10.0, 20.0), (3, 33.0, 43.0), (4, 3.0, 33.0)]
    );
    let in_order = [(1, 0.0, 10.0), (2, 10.0, 20.0), (3, 20.0, 30.0), (4, 30.0, 60.0)];
    assert_eq!(schedule("conservative", &list), in_order);
    assert_eq!(schedule("fcfs", &list), in_order);
}

// C: a job ending before its request moves EASY's reservation and compresses conservative's.
//   J1 t=0 2u req20 run5 | J2 t=1 4u req10 | J3 t=2 2u req8
// FCFS: J1 0-5; J2 5-15; J3 15-23.
// EASY: J2's shadow is 20 (J1's planned end). At 2, J3 ends at 10 <= 20: backfilled 2-10. At
//   5, J1 ends early: the shadow moves to 10 (J3's planned end). J2 10-20.
// Conservative: J2 reserved at 20; J3 fits [2,10): starts at 2; at 5 the plan is compressed
//   and J2's reservation moves to 10: J2 10-20.
#[test]
fn an_early_end_moves_the_reservation() {
    let list = jobs(&[(1, 0.0, 2, 20.0, 5.0), (2, 1.0, 4, 10.0, 10.0), (3, 2.0, 2, 8.0, 8.0)]);
    assert_eq!(
        schedule("fcfs", &list),
        [(1, 0.0, 5.0), (2, 5.0, 15.0), (3, 15.0, 23.0)]
    );
    let backfilled = [(1, 0.0, 5.0), (2, 10.0, 20.0), (3, 2.0, 10.0)];
    assert_eq!(schedule("easy", &list), backfilled);
    assert_eq!(schedule("conservative", &list), backfilled);
    // The compression, seen in the policy's own reservations: J2 (index 1) at 20 after the
    // decision at 2, at 10 after the one at 5.
    struct Watch(Conservative, Vec<(f64, Vec<(usize, f64)>)>);
    impl BatchPolicy for Watch {
        fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
            let picks = self.0.decide(view);
            self.1.push((view.now, self.0.reservations().collect()));
            picks
        }
    }
    let mut watch = Watch(Conservative::default(), Vec::new());
    simulate(&list, FOUR, &mut watch).unwrap();
    let at = |t: f64| watch.1.iter().find(|d| d.0 == t).map(|d| d.1.clone());
    assert_eq!(at(2.0), Some(vec![(1, 20.0)]));
    assert_eq!(at(5.0), Some(vec![(1, 10.0)]));
}

// D: the backfill order of EASY-SJBF. J1 holds 3 units 0-10; J2 (4 units) is the head, shadow
//   10, extra 0; J3 (1u, req 8) and J4 (1u, req 5) arrive together at 2, one free unit.
// EASY takes J3 first (queue order): 2-10; J4 waits for J2 (10-20): 20-25. J1 and J3 both end
//   at 10 and are applied before J2 starts there.
// EASY-SJBF takes J4 first (shorter): 2-7; at 7, J3 would end at 15 > 10 with extra 0: it
//   waits for J2: 20-28.
#[test]
fn sjbf_backfills_the_shortest_first() {
    let list = jobs(&[
        (1, 0.0, 3, 10.0, 10.0),
        (2, 1.0, 4, 10.0, 10.0),
        (3, 2.0, 1, 8.0, 8.0),
        (4, 2.0, 1, 5.0, 5.0),
    ]);
    assert_eq!(
        schedule("easy", &list),
        [(1, 0.0, 10.0), (2, 10.0, 20.0), (3, 2.0, 10.0), (4, 20.0, 25.0)]
    );
    assert_eq!(
        schedule("easy-sjbf", &list),
        [(1, 0.0, 10.0), (2, 10.0, 20.0), (3, 20.0, 28.0), (4, 2.0, 7.0)]
    );
}

// E: SJF and LJF order the queue by request, without backfilling. J1 holds all 4 units 0-10;
//   queued at 10: J2 2u req30, J3 2u req5, J4 3u req20.
// SJF: J3 10-15; J4 needs 3 of the 2 free: stop. At 15: J4 15-35; J2 needs 2 of 1: stop. J2
//   35-65.
// LJF: J2 10-40; J4 needs 3 of 2: stop. At 40: J4 40-60; J3 needs 2 of 1: stop. J3 60-65.
// FCFS: J2 10-40, J3 10-15; J4 needs 3: 40-60.
#[test]
fn sjf_and_ljf_order_by_request() {
    let list = jobs(&[
        (1, 0.0, 4, 10.0, 10.0),
        (2, 1.0, 2, 30.0, 30.0),
        (3, 2.0, 2, 5.0, 5.0),
        (4, 3.0, 3, 20.0, 20.0),
    ]);
    assert_eq!(
        schedule("sjf", &list),
        [(1, 0.0, 10.0), (2, 35.0, 65.0), (3, 10.0, 15.0), (4, 15.0, 35.0)]
    );
    assert_eq!(
        schedule("ljf", &list),
        [(1, 0.0, 10.0), (2, 10.0, 40.0), (3, 60.0, 65.0), (4, 40.0, 60.0)]
    );
    assert_eq!(
        schedule("fcfs", &list),
        [(1, 0.0, 10.0), (2, 10.0, 40.0), (3, 10.0, 15.0), (4, 40.0, 60.0)]
    );
}

#[test]
fn killed_at_the_request_or_run_on() {
    // J1 asks 10 s and runs 15; J2 (4 units) waits for it.
    let list = jobs(&[(1, 0.0, 1, 10.0, 15.0), (2, 1.0, 4, 5.0, 5.0)]);
    let out = run_with("fcfs", &list, FOUR);
    assert_eq!(out.jobs[0].end_s, 10.0);
    assert_eq!(out.jobs[0].state, FinalState::Killed);
    assert_eq!((out.jobs[1].start_s, out.jobs[1].state), (10.0, FinalState::Completed));
    let on = SimConfig {
        kill_at_walltime: false,
        ..FOUR
    };
    let out = run_with("fcfs", &list, on);
    assert_eq!((out.jobs[0].end_s, out.jobs[0].state), (15.0, FinalState::Completed));
    assert_eq!(out.jobs[1].start_s, 15.0);
    // Conservative and EASY plan the overrunning job's end as "now": J2 still starts at 15.
    for policy in ["easy", "conservative"] {
        let out = run_with(policy, &list, on);
        assert_eq!(out.jobs[1].start_s, 15.0, "{policy}");
    }
}

#[test]
fn a_job_larger_than_the_platform_is_dropped_and_counted() {
    let list = jobs(&[(1, 0.0, 5, 10.0, 10.0), (2, 0.0, 4, 10.0, 10.0)]);
    for policy in ["fcfs", "easy", "conservative", "sjf"] {
        let out = run_with(policy, &list, FOUR);
        assert_eq!(out.dropped, [0], "{policy}");
        assert_eq!(out.jobs.len(), 1, "{policy}");
        assert_eq!(out.jobs[0].start_s, 0.0, "{policy}");
    }
}

#[test]
fn a_policy_answer_that_does_not_fit_is_refused() {
    struct Greedy;
    impl BatchPolicy for Greedy {
        fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
            (0..view.queue.len()).collect()
        }
    }
    let list = jobs(&[(1, 0.0, 3, 10.0, 10.0), (2, 0.0, 3, 10.0, 10.0)]);
    let err = simulate(&list, FOUR, &mut Greedy).unwrap_err();
    assert!(err.contains("job 2 (3 units) with 1 free"), "{err}");
}

/// Random job lists: `n` jobs on `units` units, integer dates so that no rounding blurs a
/// comparison.
fn random_jobs() -> impl Strategy<Value = (u32, Vec<BatchJob>)> {
    (2u32..9).prop_flat_map(|units| {
        let job = (0u32..50, 1..=units + 1, 1u32..30, 0u32..40);
        (
            Just(units),
            prop::collection::vec(job, 1..40).prop_map(|v| {
                v.into_iter()
                    .enumerate()
                    .map(|(i, (submit, size, request, run))| BatchJob {
                        id: (i as i64 * 7919) % 101,
                        submit_s: submit as f64,
                        size,
                        request_s: request as f64,
                        runtime_s: run as f64,
                    })
                    .collect()
            }),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn schedules_are_feasible((units, list) in random_jobs(), kill in any::<bool>()) {
        let config = SimConfig { units, kill_at_walltime: kill };
        for policy in ["fcfs", "easy", "easy-sjbf", "conservative", "sjf", "ljf"] {
            let out = run_with(policy, &list, config);
            // Every job ends exactly once: ran or dropped, dropped iff too large.
            prop_assert_eq!(out.jobs.len() + out.dropped.len(), list.len());
            for &d in &out.dropped {
                prop_assert!(list[d].size > units);
            }
            // No unit is held by two jobs at once; no job starts before it is submitted.
            let mut busy: Vec<(u32, f64, f64)> = Vec::new();
            for r in &out.jobs {
                let job = &list[r.index];
                prop_assert!(r.start_s >= job.submit_s);
                let held: u32 = r.units.iter().map(|&(a, b)| b - a + 1).sum();
                prop_assert_eq!(held, job.size);
                let expected = if kill { job.runtime_s.min(job.request_s) } else { job.runtime_s };
                prop_assert_eq!(r.end_s - r.start_s, expected);
                for &(a, b) in &r.units {
                    for u in a..=b {
                        for &(v, s, e) in &busy {
                            prop_assert!(v != u || e <= r.start_s || r.end_s <= s || s == e || r.start_s == r.end_s,
                                "{}: unit {} held twice", policy, u);
                        }
                        busy.push((u, r.start_s, r.end_s));
                    }
                }
            }
        }
    }

    #[test]
    fn fcfs_starts_in_queue_order((units, list) in random_jobs()) {
        let out = run_with("fcfs", &list, SimConfig { units, kill_at_walltime: true });
        let mut started: Vec<_> = out.jobs.iter().map(|r| (list[r.index].submit_s, list[r.index].id, r.index, r.start_s)).collect();
        started.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        for w in started.windows(2) {
            prop_assert!(w[0].3 <= w[1].3);
        }
    }

    #[test]
    fn conservative_starts_no_job_after_its_first_reservation((units, list) in random_jobs()) {
        struct Watch(Conservative, BTreeMap<usize, f64>);
        impl BatchPolicy for Watch {
            fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
                let picks = self.0.decide(view);
                for (index, date) in self.0.reservations() {
                    self.1.entry(index).or_insert(date);
                }
                picks
            }
        }
        let mut watch = Watch(Conservative::default(), BTreeMap::new());
        let out = simulate(&list, SimConfig { units, kill_at_walltime: true }, &mut watch).unwrap();
        for r in &out.jobs {
            if let Some(&promised) = watch.1.get(&r.index) {
                prop_assert!(r.start_s <= promised, "job {} promised {} started {}", r.index, promised, r.start_s);
            }
        }
    }

    #[test]
    fn runs_are_deterministic((units, list) in random_jobs()) {
        let config = SimConfig { units, kill_at_walltime: true };
        for policy in ["easy", "conservative"] {
            prop_assert_eq!(run_with(policy, &list, config), run_with(policy, &list, config));
        }
    }
}

/// Mean wait of FCFS on one unit over `reps` independent runs of `n` jobs with Poisson
/// arrivals at rate `lambda` and run times drawn by `service`, the first `warm` jobs of each
/// left out; the mean over runs and the half-width of its 95% Student-t interval.
fn fcfs_one_unit_wait(
    reps: u64,
    n: usize,
    warm: usize,
    lambda: f64,
    service: impl Fn(&mut rand_chacha::ChaCha8Rng) -> f64,
) -> (f64, f64) {
    use rand_distr::{Distribution, Exp};
    let gaps = Exp::new(lambda).unwrap();
    let means: Vec<f64> = (0..reps)
        .map(|rep| {
            let mut rng = sim_core::rng::stream(rep, "batch.queueing");
            let mut t = 0.0;
            let list: Vec<BatchJob> = (0..n)
                .map(|i| {
                    t += gaps.sample(&mut rng);
                    let run = service(&mut rng);
                    BatchJob {
                        id: i as i64,
                        submit_s: t,
                        size: 1,
                        request_s: run,
                        runtime_s: run,
                    }
                })
                .collect();
            let one = SimConfig {
                units: 1,
                kill_at_walltime: true,
            };
            let out = run_with("fcfs", &list, one);
            let waits: Vec<f64> = out
                .jobs
                .iter()
                .filter(|r| r.index >= warm)
                .map(|r| r.start_s - list[r.index].submit_s)
                .collect();
            waits.iter().sum::<f64>() / waits.len() as f64
        })
        .collect();
    let k = means.len() as f64;
    let mean = means.iter().sum::<f64>() / k;
    let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, crate::stats::t_factor(0.95, means.len() - 1) * (var / k).sqrt())
}

// Queueing checks: one unit under FCFS is a single-server FIFO queue.
// M/M/1, λ = 0.5, μ = 1: mean wait in queue ρ/(μ − λ) = 0.5 / 0.5 = 1 s (Kleinrock, Queueing
// Systems I, 1975, eq. 3.26). M/G/1 with uniform run times on [0, 2] s (E[S] = 1, E[S²] = 4/3):
// Pollaczek–Khinchine λE[S²] / (2(1 − ρ)) = 0.5 · (4/3) / 1 = 2/3 s.
#[test]
fn one_unit_fcfs_is_mm1_and_pollaczek_khinchine() {
    use rand::Rng;
    use rand_distr::{Distribution, Exp};
    let exp = Exp::new(1.0).unwrap();
    let (mean, half) = fcfs_one_unit_wait(30, 20_000, 1_000, 0.5, |r| exp.sample(r));
    assert!((mean - 1.0).abs() <= half, "M/M/1: {mean} ± {half}, expected 1");
    let (mean, half) = fcfs_one_unit_wait(30, 20_000, 1_000, 0.5, |r| r.gen_range(0.0..2.0));
    assert!((mean - 2.0 / 3.0).abs() <= half, "M/G/1: {mean} ± {half}, expected 2/3");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    // EASY never starts the queue head later than any reservation it was given: each
    // reservation is recomputed here from the view (the earliest date enough units are free
    // once the running and just-started jobs end at their requests), independently of
    // `easy_backfill`.
    #[test]
    fn easy_never_delays_the_head_past_its_reservation((units, list) in random_jobs(), sjbf in any::<bool>()) {
        struct Watch(Box<dyn BatchPolicy>, BTreeMap<usize, f64>);
        impl BatchPolicy for Watch {
            fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
                let picks = self.0.decide(view);
                let Some(head) = (0..view.queue.len()).find(|p| !picks.contains(p)) else {
                    return picks;
                };
                let mut free = view.free as i64;
                let mut ends: Vec<(f64, i64)> = view.running.iter().map(|r| (r.planned_end_s.max(view.now), r.size as i64)).collect();
                for &p in &picks {
                    free -= view.queue[p].size as i64;
                    ends.push((view.now + view.queue[p].request_s, view.queue[p].size as i64));
                }
                ends.sort_by(|a, b| a.0.total_cmp(&b.0));
                let need = view.queue[head].size as i64;
                let mut date = view.now;
                for (end, n) in ends {
                    if free >= need {
                        break;
                    }
                    free += n;
                    date = end;
                }
                let slot = self.1.entry(view.queue[head].index).or_insert(date);
                *slot = slot.min(date);
                picks
            }
        }
        let policy = build(if sjbf { "easy-sjbf" } else { "easy" }, &BTreeMap::new()).unwrap();
        let mut watch = Watch(policy, BTreeMap::new());
        let out = simulate(&list, SimConfig { units, kill_at_walltime: true }, &mut watch).unwrap();
        for r in &out.jobs {
            if let Some(&promised) = watch.1.get(&r.index) {
                prop_assert!(r.start_s <= promised, "job {} reserved at {} started {}", r.index, promised, r.start_s);
            }
        }
    }
}

/// The policies and the simulation as first written, each decision from scratch over a plain
/// vector of the queue (a sort of the queue at each SJF, LJF and EASY-SJBF decision, a queue
/// rebuilt after each decision): the definition the kept-state versions must agree with, job for
/// job and unit for unit.
mod reference {
    use super::super::policy::{planned_releases, start_in_order, BatchPolicy, BatchView, QueuedJob, RunningJob};
    use super::super::profile::Profile;
    use super::super::queue::Queue;
    use super::super::sim::{BatchJob, FinalState, JobResult, Outcome, SimConfig};
    use std::collections::{BTreeMap, BTreeSet};

    fn by_request(queue: &Queue, positions: impl IntoIterator<Item = usize>, longest: bool) -> Vec<usize> {
        let mut order: Vec<usize> = positions.into_iter().collect();
        order.sort_by(|&a, &b| {
            let c = queue[a].request_s.total_cmp(&queue[b].request_s);
            let c = if longest { c.reverse() } else { c };
            c.then(a.cmp(&b))
        });
        order
    }

    fn easy_backfill(view: &BatchView<'_>, shortest_first: bool) -> Vec<usize> {
        let queue = view.queue;
        let mut picks = start_in_order(view, 0..queue.len());
        let head = picks.len();
        if head == queue.len() {
            return picks;
        }
        let mut free = view.free - picks.iter().map(|&p| queue[p].size).sum::<u32>();
        let need = queue[head].size;
        let releases = planned_releases(view, &picks);
        let mut avail = free;
        let mut shadow = f64::INFINITY;
        for &(date, units, _) in &releases {
            if avail >= need && date > shadow {
                break;
            }
            avail += units;
            if avail >= need && shadow.is_infinite() {
                shadow = date;
            }
        }
        let mut extra = avail.saturating_sub(need);
        let later = head + 1..queue.len();
        let candidates: Vec<usize> = if shortest_first {
            by_request(queue, later, false)
        } else {
            later.collect()
        };
        for pos in candidates {
            if free == 0 {
                break;
            }
            let job = &queue[pos];
            if job.size > free {
                continue;
            }
            if view.now + job.request_s <= shadow {
                free -= job.size;
                picks.push(pos);
            } else if job.size <= extra {
                free -= job.size;
                extra -= job.size;
                picks.push(pos);
            }
        }
        picks
    }

    /// Conservative backfilling: the plan rebuilt and every reservation placed again at each
    /// decision, held ones by date, then new ones in queue order.
    #[derive(Default)]
    pub struct Conservative {
        reserved: BTreeMap<usize, f64>,
    }

    impl BatchPolicy for Conservative {
        fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
            let queue = view.queue;
            let releases = planned_releases(view, &[]);
            let mut plan = Profile::new(view.now, view.free, releases.iter().map(|r| (r.0, r.1)));
            let mut held: Vec<(f64, usize)> = Vec::new();
            let mut new = Vec::new();
            for (pos, job) in queue.iter().enumerate() {
                match self.reserved.get(&job.index) {
                    Some(&date) => held.push((date, pos)),
                    None => new.push(pos),
                }
            }
            held.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut picks = Vec::new();
            let mut reserved = BTreeMap::new();
            for pos in held.into_iter().map(|h| h.1).chain(new) {
                let job = &queue[pos];
                let Some(step) = plan.earliest_fit(job.size, job.request_s) else {
                    continue;
                };
                plan.reserve(step, job.size, job.request_s);
                if step == 0 {
                    picks.push(pos);
                } else {
                    reserved.insert(job.index, plan.steps()[step].0);
                }
            }
            picks.sort_unstable();
            self.reserved = reserved;
            picks
        }
    }

    /// A policy of the six, from scratch at each decision.
    pub struct Policy(pub &'static str);

    impl BatchPolicy for Policy {
        fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
            let all = 0..view.queue.len();
            match self.0 {
                "fcfs" => start_in_order(view, all),
                "easy" => easy_backfill(view, false),
                "easy-sjbf" => easy_backfill(view, true),
                "sjf" => start_in_order(view, by_request(view.queue, all, false)),
                "ljf" => start_in_order(view, by_request(view.queue, all, true)),
                other => panic!("no reference for {other}"),
            }
        }
    }

    /// The simulation with the queue in a vector, rebuilt into a [`Queue`] for each decision.
    pub fn simulate(jobs: &[BatchJob], config: SimConfig, policy: &mut dyn BatchPolicy) -> Outcome {
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by(|&a, &b| {
            jobs[a]
                .submit_s
                .total_cmp(&jobs[b].submit_s)
                .then(jobs[a].id.cmp(&jobs[b].id))
                .then(a.cmp(&b))
        });
        let mut outcome = Outcome::default();
        let mut results: Vec<Option<JobResult>> = vec![None; jobs.len()];
        let mut free: BTreeSet<u32> = (0..config.units).collect();
        let mut queue: Vec<QueuedJob> = Vec::new();
        let mut running: Vec<RunningJob> = Vec::new();
        // (end, start order, index)
        let mut completions: Vec<(f64, u64, usize)> = Vec::new();
        let mut seq = 0u64;
        let mut next = 0;
        loop {
            let arrival = order.get(next).map(|&i| jobs[i].submit_s);
            let completion = completions.iter().map(|c| c.0).min_by(f64::total_cmp);
            let now = match (arrival, completion) {
                (None, None) => break,
                (Some(a), None) => a,
                (None, Some(c)) => c,
                (Some(a), Some(c)) => a.min(c),
            };
            completions.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            while completions.first().is_some_and(|c| c.0 == now) {
                let (_, _, index) = completions.remove(0);
                for &(a, b) in &results[index].as_ref().unwrap().units {
                    free.extend(a..=b);
                }
                running.retain(|r| r.index != index);
            }
            while let Some(&i) = order.get(next) {
                if jobs[i].submit_s != now {
                    break;
                }
                next += 1;
                let job = &jobs[i];
                if job.size > config.units {
                    outcome.dropped.push(i);
                    continue;
                }
                queue.push(QueuedJob {
                    index: i,
                    id: job.id,
                    submit_s: job.submit_s,
                    size: job.size,
                    request_s: job.request_s,
                });
            }
            if queue.is_empty() {
                continue;
            }
            outcome.decisions += 1;
            let mut view_queue = Queue::with_capacity(queue.len());
            for q in &queue {
                view_queue.push(*q);
            }
            let view = BatchView {
                now,
                total: config.units,
                free: free.len() as u32,
                up: config.units,
                booting: 0,
                queue: &view_queue,
                running: &running,
            };
            let picks = policy.decide(&view);
            for &pos in &picks {
                let q = queue[pos];
                let job = &jobs[q.index];
                let mut units: Vec<(u32, u32)> = Vec::new();
                for _ in 0..q.size {
                    let u = free.pop_first().unwrap();
                    match units.last_mut() {
                        Some(last) if last.1 + 1 == u => last.1 = u,
                        _ => units.push((u, u)),
                    }
                }
                let killed = config.kill_at_walltime && job.runtime_s > job.request_s;
                let end = now + if killed { job.request_s } else { job.runtime_s };
                results[q.index] = Some(JobResult {
                    index: q.index,
                    start_s: now,
                    end_s: end,
                    state: if killed {
                        FinalState::Killed
                    } else {
                        FinalState::Completed
                    },
                    units,
                });
                running.push(RunningJob {
                    index: q.index,
                    size: q.size,
                    start_s: now,
                    planned_end_s: now + q.request_s,
                });
                completions.push((end, seq, q.index));
                seq += 1;
            }
            let started: Vec<usize> = picks.iter().map(|&p| queue[p].index).collect();
            queue.retain(|q| !started.contains(&q.index));
        }
        outcome.jobs = results.into_iter().flatten().collect();
        outcome
    }
}

/// Larger random job lists than [`random_jobs`]: queues of a hundred jobs and more, requests
/// that often exceed run times (early ends), equal dates and requests.
fn long_random_jobs() -> impl Strategy<Value = (u32, Vec<BatchJob>)> {
    (2u32..17).prop_flat_map(|units| {
        let job = (0u32..300, 1..=units + 1, 1u32..60, 0u32..80);
        (
            Just(units),
            prop::collection::vec(job, 1..250).prop_map(|v| {
                v.into_iter()
                    .enumerate()
                    .map(|(i, (submit, size, request, run))| BatchJob {
                        id: (i as i64 * 7919) % 1009,
                        submit_s: submit as f64,
                        size,
                        request_s: request as f64,
                        runtime_s: run as f64,
                    })
                    .collect()
            }),
        )
    })
}

// F: ten jobs on 4 units (one per host) under FCFS, EASY and conservative backfilling, with a
// job ending before its request, one killed at its walltime and host 3 down from 35 to 45.
//   (id, submit, size, request, run time)
//   J1 (0, 2u, 20, 5)  ends 15 s before its request
//   J2 (1, 4u, 10, 10) J3 (2, 2u, 8, 8) J4 (3, 1u, 6, 9: killed at 6 s) J5 (4, 1u, 3, 3)
//   J6 (30, 2u, 20, 10) J7 (31, 2u, 20, 10) J8 (36, 1u, 5, 5) J9 (37, 4u, 5, 5)
//   J10 (38, 1u, 4, 2)
// Every job of J1-J5 ends by 26 under all three policies, so J6-J10 start on an idle machine.
//
// J1-J5, FCFS: J1 0-5 on {0,1}; J2 (4u) blocks the queue until J1 ends at 5: 5-15. At 15: J3
//   15-23 {0,1}, J4 15-21 {2} (killed at its 6 s request), J5 15-18 {3}.
// J1-J5, EASY: at 1 J2's shadow is 20 (J1's planned end), extra 0. At 2 J3 ends by 10 <= 20:
//   backfilled 2-10 on {2,3}. At 5 J1 ends early: the shadow moves to 10 (J3's planned end);
//   J4 (5 + 6 = 11 > 10, 1u > extra 0) may not backfill, J5 (5 + 3 = 8 <= 10) does: 5-8 on {0}.
//   At 10 J3 ends: J2 10-20. At 20: J4 20-26 on {0}, killed.
// J1-J5, conservative: at 1 J2 reserved at 20. At 2 J3 fits [2, 10) before it: 2-10 on {2,3}.
//   At 3 J4 (1u, 6 s) finds 2 units only from 10 (J3's end), [10, 16) before J2's [20, 30):
//   reserved at 10. At 4 J5 (1u, 3 s): 1 unit left in [10, 13): reserved at 10. At 5 J1 ends
//   early: the plan is 2 free now, 4 from 10; compressed in the order of the reservations
//   (J4 at 10, J5 at 10 in queue order, J2 at 20): J4 fits [5, 11) now (5-11 on {0}, killed at
//   its request), J5 [5, 8) on the last free unit (5-8 on {1}), J2 moves from 20 to 11 (all 4
//   units free from J4's planned end 11): 11-21.
//
// J6-J10: J6 30-40 on {0,1}, J7 from 31 on {2,3}. At 35 host 3 goes down: J7 is killed after
//   4 s on 2 units (8 unit-s lost); unit 3 takes no job until 45.
// on_failure = requeue: J7 goes back to the queue (its place: submitted at 31, before J8-J10).
//   FCFS: J8 (36) waits behind J7, which needs 2 units with only {2} free and up. At 40 J6
//     ends: J7 40-50 {0,1}, J8 40-45 {2}; J9 needs 4 units, 3 are up: it waits, not dropped,
//     and blocks J10. At 45 J8 ends, host 3 is up: 2 free, J9 still waits. At 50: J9 50-55,
//     then J10 55-57.
//   EASY: at 35 J7 is the head, shadow 50 (J6's planned end), extra 1 + 2 - 2 = 1. At 36 J8
//     ends by 41 <= 50: 36-41 on {2}. At 40 J6 ends: J7 40-50 on {0,1}; J9 is the head with 0
//     free. At 41 J8 ends: J9 cannot fit the 3 units up whatever ends (shadow infinite, as
//     reservations assume no change of the units up), so J10 backfills: 41-43 on {2}. At 50 J7
//     ends: J9 50-55.
//   conservative: at 35 J7 (a new job to the plan) reserved at 50. At 36 J8 fits [36, 41)
//     before: 36-41 on {2}. At 37 J9 fits no plan of 3 units up: no reservation. At 38 J10
//     (1u, 4 s) fits [41, 45) (1 unit from J8's end, before J7's [50, 70)): reserved at 41. At
//     40 J6 ends (2 free, 3 from 41): J10 (reserved at 41, placed first) fits now: 40-42 on
//     {0}; J7 needs 2 units for 20 s: from 41 (J8's end), moved from 50 to 41. At 41 J8 ends:
//     J7 41-51 on {1,2}. At 45 host 3 is up: J9 reserved at 61 (J7's planned end); at 51 J7
//     ends: J9 51-56.
// on_failure = fail: J7 ends failed at 35. J8 36-41 on {2} under all three. J9 (37) waits for
//   4 units up: at 45 host 3 is up and J6 (40), J8 (41) have ended: J9 45-50. J10 (38): FCFS
//   keeps it behind J9: 50-52; EASY backfills it at 40 (J9 cannot fit the units up, shadow
//   infinite): 40-42 on {0}; conservative reserved it at 41 at 38 and compresses it to 40 when
//   J6 ends: 40-42.
fn case_f() -> Vec<BatchJob> {
    jobs(&[
        (1, 0.0, 2, 20.0, 5.0),
        (2, 1.0, 4, 10.0, 10.0),
        (3, 2.0, 2, 8.0, 8.0),
        (4, 3.0, 1, 6.0, 9.0),
        (5, 4.0, 1, 3.0, 3.0),
        (6, 30.0, 2, 20.0, 10.0),
        (7, 31.0, 2, 20.0, 10.0),
        (8, 36.0, 1, 5.0, 5.0),
        (9, 37.0, 4, 5.0, 5.0),
        (10, 38.0, 1, 4.0, 2.0),
    ])
}

/// Host 3 (unit 3 of 4) down from 35 to 45.
fn host3_down(on_failure: OnFailure) -> Availability {
    Availability {
        hosts: vec![(3..4, Profile::new(vec![(35.0, 0.0), (45.0, 1.0)], None).unwrap())],
        on_failure,
        max_requeues: 5,
    }
}

fn run_on(policy: &str, list: &[BatchJob], config: SimConfig, availability: &Availability) -> Outcome {
    let mut p = build(policy, &BTreeMap::new()).unwrap();
    simulate_on(list, config, None, Some(availability), p.as_mut()).unwrap()
}

/// `(id, start, end)` of each job that ran to its end, by id.
fn schedule_of(out: &Outcome, list: &[BatchJob]) -> Vec<(i64, f64, f64)> {
    let mut s: Vec<_> = out
        .jobs
        .iter()
        .map(|r| (list[r.index].id, r.start_s, r.end_s))
        .collect();
    s.sort_by_key(|x| x.0);
    s
}

#[test]
fn a_hand_worked_schedule_with_early_ends_walltime_kills_and_a_host_failure() {
    let list = case_f();
    // J1-J5 as derived above; J6-J10 per policy and on_failure.
    let fcfs_first = [
        (1, 0.0, 5.0),
        (2, 5.0, 15.0),
        (3, 15.0, 23.0),
        (4, 15.0, 21.0),
        (5, 15.0, 18.0),
    ];
    let easy_first = [
        (1, 0.0, 5.0),
        (2, 10.0, 20.0),
        (3, 2.0, 10.0),
        (4, 20.0, 26.0),
        (5, 5.0, 8.0),
    ];
    let cons_first = [
        (1, 0.0, 5.0),
        (2, 11.0, 21.0),
        (3, 2.0, 10.0),
        (4, 5.0, 11.0),
        (5, 5.0, 8.0),
    ];
    let requeue = [
        (
            "fcfs",
            &fcfs_first,
            [
                (6, 30.0, 40.0),
                (7, 40.0, 50.0),
                (8, 40.0, 45.0),
                (9, 50.0, 55.0),
                (10, 55.0, 57.0),
            ],
        ),
        (
            "easy",
            &easy_first,
            [
                (6, 30.0, 40.0),
                (7, 40.0, 50.0),
                (8, 36.0, 41.0),
                (9, 50.0, 55.0),
                (10, 41.0, 43.0),
            ],
        ),
        (
            "conservative",
            &cons_first,
            [
                (6, 30.0, 40.0),
                (7, 41.0, 51.0),
                (8, 36.0, 41.0),
                (9, 51.0, 56.0),
                (10, 40.0, 42.0),
            ],
        ),
    ];
    for (policy, first, second) in requeue {
        let out = run_on(policy, &list, FOUR, &host3_down(OnFailure::Requeue));
        let expected: Vec<_> = first.iter().chain(&second).copied().collect();
        assert_eq!(schedule_of(&out, &list), expected, "{policy}, requeue");
        // J7's killed execution: 31-35 on {2,3}, one requeue, 8 unit-s lost.
        assert_eq!(out.requeued.len(), 1, "{policy}");
        let killed = &out.requeued[0];
        assert_eq!(
            (
                list[killed.index].id,
                killed.start_s,
                killed.end_s,
                killed.units.clone(),
                killed.state
            ),
            (7, 31.0, 35.0, vec![(2, 3)], FinalState::Requeued),
            "{policy}"
        );
        assert_eq!(out.lost_unit_s, 8.0, "{policy}");
        let state = |id: i64| out.jobs.iter().find(|r| list[r.index].id == id).unwrap().state;
        assert_eq!(state(4), FinalState::Killed, "{policy}");
        assert_eq!(state(7), FinalState::Completed, "{policy}");
        assert!(out.unfinished.is_empty() && out.dropped.is_empty());
        // One state change at 35, one at 45.
        assert_eq!(out.host_events, 2);
    }
    // J7's final units: {0,1} (J6's, freed at 40) under FCFS and EASY; {1,2} under
    // conservative (J10 took unit 0 at 40, J8 gave back unit 2 at 41).
    let out = run_on("conservative", &list, FOUR, &host3_down(OnFailure::Requeue));
    let j7 = out.jobs.iter().find(|r| list[r.index].id == 7).unwrap();
    assert_eq!(j7.units, [(1, 2)]);
    let fail = [
        (
            "fcfs",
            &fcfs_first,
            [
                (6, 30.0, 40.0),
                (7, 31.0, 35.0),
                (8, 36.0, 41.0),
                (9, 45.0, 50.0),
                (10, 50.0, 52.0),
            ],
        ),
        (
            "easy",
            &easy_first,
            [
                (6, 30.0, 40.0),
                (7, 31.0, 35.0),
                (8, 36.0, 41.0),
                (9, 45.0, 50.0),
                (10, 40.0, 42.0),
            ],
        ),
        (
            "conservative",
            &cons_first,
            [
                (6, 30.0, 40.0),
                (7, 31.0, 35.0),
                (8, 36.0, 41.0),
                (9, 45.0, 50.0),
                (10, 40.0, 42.0),
            ],
        ),
    ];
    for (policy, first, second) in fail {
        let out = run_on(policy, &list, FOUR, &host3_down(OnFailure::Fail));
        let expected: Vec<_> = first.iter().chain(&second).copied().collect();
        assert_eq!(schedule_of(&out, &list), expected, "{policy}, fail");
        assert!(out.requeued.is_empty(), "{policy}");
        assert_eq!(out.lost_unit_s, 8.0, "{policy}");
        let failed: Vec<i64> = out
            .jobs
            .iter()
            .filter(|r| r.state == FinalState::Failed)
            .map(|r| list[r.index].id)
            .collect();
        assert_eq!(failed, [7], "{policy}");
    }
}

#[test]
fn jobs_wait_for_units_that_stay_down_and_are_reported_unfinished() {
    // Host 3 down from 0 for good: J1 (4 units) can never start and FCFS keeps J2 behind it;
    // EASY backfills J2 (J1 cannot fit the units up: no reservation holds it back).
    let list = jobs(&[(1, 0.0, 4, 10.0, 10.0), (2, 1.0, 1, 10.0, 10.0)]);
    let forever = Availability {
        hosts: vec![(3..4, Profile::new(vec![(0.0, 0.0)], None).unwrap())],
        on_failure: OnFailure::Requeue,
        max_requeues: 5,
    };
    let out = run_on("fcfs", &list, FOUR, &forever);
    assert_eq!((out.jobs.len(), out.unfinished.clone()), (0, vec![0, 1]));
    let out = run_on("easy", &list, FOUR, &forever);
    assert_eq!(schedule_of(&out, &list), [(2, 1.0, 11.0)]);
    assert_eq!(out.unfinished, [0]);
    // Hosts 2 and 3 take turns being down, forever (period 10: host 2 down [0, 5), host 3 down
    // [5, 10)): never 4 units up at once. The run stops once a whole period passed with J1
    // waiting and nothing running, instead of stepping through the profiles forever.
    let turns = Availability {
        hosts: vec![
            (2..3, Profile::new(vec![(0.0, 0.0), (5.0, 1.0)], Some(10.0)).unwrap()),
            (3..4, Profile::new(vec![(5.0, 0.0), (10.0, 1.0)], Some(10.0)).unwrap()),
        ],
        on_failure: OnFailure::Requeue,
        max_requeues: 5,
    };
    for policy in ["fcfs", "easy", "conservative"] {
        let out = run_on(policy, &list[..1], FOUR, &turns);
        assert_eq!(out.unfinished, [0], "{policy}");
        // Idle from 0: the events of [0, 10] are applied (0, 5, 5, 10, 10), none after.
        assert_eq!(out.host_events, 5, "{policy}");
    }
    // Host 3 with a period of 20 instead (down [5, 10) of every 20): all 4 units are up in
    // [15, 20) of every 20 (host 2 up in [5, 10) of every 10, host 3 not down then), never
    // for the 10 s J1 needs. J1 starts at 15, 35, 55, 75, 95 and 115 and is killed 5 s later
    // each time, when host 2 goes down; past its 5 requeues the sixth kill fails it.
    let mut late = turns.clone();
    late.hosts[1].1 = Profile::new(vec![(5.0, 0.0), (10.0, 1.0)], Some(20.0)).unwrap();
    let out = run_on("fcfs", &list[..1], FOUR, &late);
    let starts: Vec<f64> = out.requeued.iter().map(|r| r.start_s).collect();
    assert_eq!(starts, [15.0, 35.0, 55.0, 75.0, 95.0]);
    assert_eq!(
        (out.jobs[0].start_s, out.jobs[0].end_s, out.jobs[0].state),
        (115.0, 120.0, FinalState::Failed)
    );
    assert_eq!(out.lost_unit_s, 6.0 * 5.0 * 4.0);
}

#[test]
fn a_down_and_up_at_one_date_still_kills_and_completions_come_first() {
    // J1 ends at 10, the date host 0 goes down: its completion is applied first, so it
    // completes. J2 on host 1 is killed by a down and up at 5 (the down applies, then the up).
    let list = jobs(&[(1, 0.0, 1, 10.0, 10.0), (2, 0.0, 1, 10.0, 10.0)]);
    let availability = Availability {
        hosts: vec![
            (0..1, Profile::new(vec![(10.0, 0.0)], None).unwrap()),
            (1..2, Profile::new(vec![(5.0, 0.0), (5.0, 1.0)], None).unwrap()),
        ],
        on_failure: OnFailure::Requeue,
        max_requeues: 5,
    };
    let out = run_on("fcfs", &list, FOUR, &availability);
    // J2 starts again at 5 on the lowest free unit (1: host 1 is up again at 5), 5-15.
    assert_eq!(schedule_of(&out, &list), [(1, 0.0, 10.0), (2, 5.0, 15.0)]);
    assert_eq!(out.requeued.len(), 1);
    assert_eq!(out.jobs[1].units, [(1, 1)]);
}

/// Random down periods: for each of `units` hosts, up to two `(down, up)` intervals at
/// integer dates, apart and in order.
fn random_downs(units: u32) -> impl Strategy<Value = Vec<Vec<(u32, u32)>>> {
    prop::collection::vec(prop::collection::vec((0u32..40, 1u32..25), 0..3), units as usize).prop_map(|hosts| {
        hosts
            .into_iter()
            .map(|gaps| {
                let mut t = 0;
                gaps.into_iter()
                    .map(|(gap, len)| {
                        let down = t + gap;
                        t = down + len + 1;
                        (down, down + len)
                    })
                    .collect()
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    // Every policy's schedule, with its state kept between decisions and the queue kept in a
    // `Queue`, is the from-scratch reference's: the same start, end, state and units of every
    // job, the same drops and the same number of decisions.
    #[test]
    fn schedules_equal_the_from_scratch_reference((units, list) in long_random_jobs(), kill in any::<bool>()) {
        let config = SimConfig { units, kill_at_walltime: kill };
        for policy in ["fcfs", "easy", "easy-sjbf", "sjf", "ljf"] {
            let ours = run_with(policy, &list, config);
            let theirs = reference::simulate(&list, config, &mut reference::Policy(policy));
            prop_assert_eq!(ours, theirs, "{}", policy);
        }
        let ours = run_with("conservative", &list, config);
        let theirs = reference::simulate(&list, config, &mut reference::Conservative::default());
        prop_assert_eq!(ours, theirs, "conservative");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn schedules_with_failures_are_feasible(
        (units, list, downs) in random_jobs().prop_flat_map(|(units, list)| (Just(units), Just(list), random_downs(units))),
        kill in any::<bool>(),
        fail in any::<bool>(),
        max_requeues in 0u32..3,
    ) {
        let config = SimConfig { units, kill_at_walltime: kill };
        let availability = Availability {
            hosts: downs
                .iter()
                .enumerate()
                .filter(|(_, d)| !d.is_empty())
                .map(|(u, d)| {
                    let events = d.iter().flat_map(|&(a, b)| [(a as f64, 0.0), (b as f64, 1.0)]).collect();
                    (u as u32..u as u32 + 1, Profile::new(events, None).unwrap())
                })
                .collect(),
            on_failure: if fail { OnFailure::Fail } else { OnFailure::Requeue },
            max_requeues,
        };
        let down_at = |u: u32, s: f64, e: f64| {
            downs[u as usize].iter().any(|&(a, b)| (a as f64) < e && s < b as f64)
        };
        for policy in ["fcfs", "easy", "easy-sjbf", "conservative", "sjf", "ljf"] {
            let out = run_on(policy, &list, config, &availability);
            // The policies' kept state (the request order, conservative's plan) survives hosts
            // going down and up and requeued jobs renumbering the queue: the same outcome as
            // the from-scratch definitions deciding on the same simulation.
            let from_scratch = if policy == "conservative" {
                simulate_on(&list, config, None, Some(&availability), &mut reference::Conservative::default())
            } else {
                simulate_on(&list, config, None, Some(&availability), &mut reference::Policy(policy))
            };
            prop_assert_eq!(&out, &from_scratch.unwrap(), "{} against its from-scratch definition", policy);
            // Every host comes back up, so every job that fits the platform ends, exactly once:
            // completed, killed at its request, failed or dropped; a requeued job once, at its
            // last execution.
            prop_assert!(out.unfinished.is_empty(), "{}", policy);
            let mut ends = vec![0; list.len()];
            for r in &out.jobs {
                ends[r.index] += 1;
            }
            for &d in &out.dropped {
                prop_assert!(list[d].size > units);
                ends[d] += 1;
            }
            prop_assert!(ends.iter().all(|&n| n == 1), "{}: {:?}", policy, ends);
            // Requeues only under requeue, at most `max_requeues` per job; failures only under
            // fail or past that.
            prop_assert!(!fail || out.requeued.is_empty());
            let mut requeues = vec![0; list.len()];
            for r in &out.requeued {
                requeues[r.index] += 1;
            }
            prop_assert!(requeues.iter().all(|&n| n <= max_requeues));
            for r in out.jobs.iter().filter(|r| r.state == FinalState::Failed) {
                prop_assert!(fail || requeues[r.index] == max_requeues);
            }
            let mut lost = 0.0;
            let mut busy: Vec<(u32, f64, f64)> = Vec::new();
            for r in out.jobs.iter().chain(&out.requeued) {
                let job = &list[r.index];
                prop_assert!(r.start_s >= job.submit_s);
                let held: u32 = r.units.iter().map(|&(a, b)| b - a + 1).sum();
                prop_assert_eq!(held, job.size);
                let full = if kill { job.runtime_s.min(job.request_s) } else { job.runtime_s };
                match r.state {
                    FinalState::Failed | FinalState::Requeued => {
                        // Cut short by one of its hosts going down at its end.
                        prop_assert!(r.end_s - r.start_s < full);
                        let cut = r.units.iter().flat_map(|&(a, b)| a..=b).any(|u| {
                            downs[u as usize].iter().any(|&(a, _)| a as f64 == r.end_s)
                        });
                        prop_assert!(cut, "{}: job {} cut at {} by no failure", policy, job.id, r.end_s);
                        lost += (r.end_s - r.start_s) * job.size as f64;
                    }
                    _ => prop_assert_eq!(r.end_s - r.start_s, full),
                }
                for &(a, b) in &r.units {
                    for u in a..=b {
                        // No execution on a unit while its host is down.
                        prop_assert!(r.start_s == r.end_s || !down_at(u, r.start_s, r.end_s),
                            "{}: job {} on unit {} down in [{}, {})", policy, job.id, u, r.start_s, r.end_s);
                        for &(v, s, e) in &busy {
                            prop_assert!(v != u || e <= r.start_s || r.end_s <= s || s == e || r.start_s == r.end_s,
                                "{}: unit {} held twice", policy, u);
                        }
                        busy.push((u, r.start_s, r.end_s));
                    }
                }
            }
            prop_assert_eq!(out.lost_unit_s, lost);
        }
    }
}

#[test]
fn the_speed_model_paces_a_requeued_job_by_the_hosts_of_its_new_execution() {
    // Two units, unit 1's host twice as slow as the reference (slowness 2). J1 (1 unit, 10 s
    // recorded, request 100 s) starts at 0 on unit 0 at pace 1; host 0 goes down at 5 and comes
    // back at 50: J1 is requeued and starts over at 5 on unit 1, the only one up, at pace 2:
    // 20 s, 5-25.
    let list = jobs(&[(1, 0.0, 1, 100.0, 10.0)]);
    let config = SimConfig {
        units: 2,
        kill_at_walltime: true,
    };
    let availability = Availability {
        hosts: vec![(0..1, Profile::new(vec![(5.0, 0.0), (50.0, 1.0)], None).unwrap())],
        on_failure: OnFailure::Requeue,
        max_requeues: 5,
    };
    let mut p = build("fcfs", &BTreeMap::new()).unwrap();
    let out = simulate_on(&list, config, Some(&[1.0, 2.0]), Some(&availability), p.as_mut()).unwrap();
    assert_eq!((out.requeued[0].start_s, out.requeued[0].end_s), (0.0, 5.0));
    assert_eq!(
        (out.jobs[0].start_s, out.jobs[0].end_s, out.jobs[0].units.clone()),
        (5.0, 25.0, vec![(1, 1)])
    );
}

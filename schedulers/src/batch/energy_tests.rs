//! The energy of hand-worked schedules with idle hosts switched off, and properties over random
//! job lists: a host's time splits into busy, idle, booting, shutting down and off with no
//! overlap, no job runs on a host that is not on, and with hosts always on the energy is the
//! closed form Σ hosts (idle × makespan + (full − idle) × busy time).

use std::collections::BTreeMap;

use proptest::prelude::*;
use sim_core::energy::{HostPower, PowerRange};

use super::energy::{account, HostEnergy, Machine, PowerStep};
use super::registry::build;
use super::sim::{simulate_powered, BatchJob, JobResult, Outcome, PowerSaving, PowerState, SimConfig};

/// SimGrid 3.32's energy_boot.xml MyHost2: "100.0:200.0" (epsilon = idle), wattage_off 10.
fn model() -> HostPower {
    HostPower {
        ranges: vec![PowerRange {
            idle: 100.0,
            epsilon: 100.0,
            full: 200.0,
        }],
        off: 10.0,
    }
}

fn run(
    policy: &str,
    jobs: &[BatchJob],
    hosts: u32,
    cores: u32,
    saving: Option<(f64, f64, f64)>,
) -> (Outcome, Vec<HostEnergy>, Vec<PowerStep>, f64) {
    let units = hosts * cores;
    let config = SimConfig {
        units,
        kill_at_walltime: true,
    };
    let saving = saving.map(|(idle_off_s, boot_s, shutdown_s)| PowerSaving {
        hosts: (0..hosts).map(|h| h * cores..(h + 1) * cores).collect(),
        idle_off_s,
        boot_s,
        shutdown_s,
    });
    let mut p = build(policy, &BTreeMap::new()).unwrap();
    let out = simulate_powered(jobs, config, None, None, saving.as_ref(), p.as_mut()).unwrap();
    let end = out.jobs.iter().map(|r| r.end_s).fold(0.0, f64::max);
    let models: Vec<(HostPower, u32)> = (0..hosts).map(|_| (model(), cores)).collect();
    let unit_host: Vec<u32> = (0..units).map(|u| u / cores).collect();
    let machine = Machine {
        hosts: &models,
        unit_host: &unit_host,
        boot_w: 120.0,
        shutdown_w: 110.0,
    };
    let executions: Vec<&JobResult> = out.jobs.iter().chain(&out.requeued).collect();
    let (energy, steps) = account(&machine, &executions, &[], &out.power, end);
    (out, energy, steps, end)
}

fn job(id: i64, submit_s: f64, size: u32, runtime_s: f64) -> BatchJob {
    BatchJob {
        id,
        submit_s,
        size,
        request_s: runtime_s,
        runtime_s,
    }
}

// Two hosts (one unit each), idle 100 W, full 200 W, off 10 W; idle_off_s 60, boot 150 s at
// 120 W, shutdown 7 s at 110 W (SimGrid's energy_boot example). FCFS.
//   J1 t=0 1 host run 100 | J2 t=0 1 host run 20 | J3 t=300 2 hosts run 50
// t=0: J1 on host 0, J2 on host 1.  t=20: J2 ends, host 1 idle (timeout at 80).
// t=80: host 1 idle 60 s, no job queued: shuts down 80-87, off from 87.
// t=100: J1 ends, host 0 idle (timeout 160). t=160: host 0 shuts down 160-167, off from 167.
// t=300: J3 needs 2 units, 0 free or booting: both hosts boot 300-450.
// t=450: both up, J3 starts, ends 500 = makespan. J3 waited 150 s for the boots.
// Host 0: busy 0-100 (200 x 100 = 20,000 J), idle 100-160 (100 x 60 = 6,000), shutting down
//   160-167 (110 x 7 = 770), off 167-300 (10 x 133 = 1,330), booting 300-450 (120 x 150 =
//   18,000), busy 450-500 (200 x 50 = 10,000): 56,100 J.
// Host 1: busy 0-20 (4,000), idle 20-80 (6,000), shutting down 80-87 (770), off 87-300 (10 x 213
//   = 2,130), booting 300-450 (18,000), busy 450-500 (10,000): 40,900 J.
// Total 97,000 J; idle 12,000 J; boot and shutdown 2 x 18,770 = 37,540 J.
// Hosts always on: J3 runs 300-350 at once; 2 x 100 x 350 + (200 - 100) x (100 + 20 + 50 + 50)
//   = 70,000 + 22,000 = 92,000 J: switching off costs 5,000 J more here, since the gaps are
//   shorter than a boot's 18,000 J repays.
fn two_hosts() -> Vec<BatchJob> {
    vec![job(1, 0.0, 1, 100.0), job(2, 0.0, 1, 20.0), job(3, 300.0, 2, 50.0)]
}

#[test]
fn two_hosts_three_jobs_with_idle_off() {
    let (out, energy, steps, end) = run("fcfs", &two_hosts(), 2, 1, Some((60.0, 150.0, 7.0)));
    assert_eq!(end, 500.0);
    assert_eq!((out.boots, out.shutdowns), (2, 2));
    assert_eq!((out.jobs[2].start_s, out.jobs[2].end_s), (450.0, 500.0));
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(energy[0].joules(), 56_100.0), "{:?}", energy[0]);
    assert!(close(energy[1].joules(), 40_900.0), "{:?}", energy[1]);
    assert!(close(energy[0].idle_j + energy[1].idle_j, 12_000.0));
    assert!(close(energy[0].transition_j + energy[1].transition_j, 37_540.0));
    let h1 = &energy[1];
    assert_eq!(
        (h1.busy_s, h1.idle_s, h1.shutting_down_s, h1.off_s, h1.booting_s),
        (70.0, 60.0, 7.0, 213.0, 150.0)
    );
    // The power steps, from the schedule above: 400 W (both busy), 300 at 20 (host 1 idle),
    // 310 at 80 (it shuts down), 210 at 87 (off), 110 at 100 (host 0 idle), 120 at 160, 20 at
    // 167 (both off), 240 at 300 (both boot), 400 at 450, 200 at 500 (both idle, the end);
    // joules at each: the area before it.
    let expected = [
        (0.0, 400.0, 0.0),
        (20.0, 300.0, 8_000.0),
        (80.0, 310.0, 26_000.0),
        (87.0, 210.0, 28_170.0),
        (100.0, 110.0, 30_900.0),
        (160.0, 120.0, 37_500.0),
        (167.0, 20.0, 38_340.0),
        (300.0, 240.0, 41_000.0),
        (450.0, 400.0, 77_000.0),
        (500.0, 200.0, 97_000.0),
    ];
    let got: Vec<(f64, f64, f64)> = steps.iter().map(|s| (s.time_s, s.watts, s.joules)).collect();
    assert_eq!(got.len(), expected.len(), "{got:?}");
    for (g, e) in got.iter().zip(&expected) {
        assert!(close(g.0, e.0) && close(g.1, e.1) && close(g.2, e.2), "{got:?}");
    }
}

#[test]
fn two_hosts_three_jobs_always_on() {
    let (out, energy, _, end) = run("fcfs", &two_hosts(), 2, 1, None);
    assert_eq!(end, 350.0);
    assert!(out.power.is_empty() && out.boots == 0);
    let total: f64 = energy.iter().map(HostEnergy::joules).sum();
    assert!((total - 92_000.0).abs() < 1e-9, "{total}");
}

// A job arriving while the queue's units are short boots only what it needs, and a host still
// needed by the queue is not switched off. One host of 2 cores idle 100, full 200: a job on 1
// core draws epsilon + 1/2 x (full - epsilon) = 150 W (host_energy.cpp's linear model).
//   J1 t=0 1 core run 1000 | hosts: 2 of 2 cores, idle_off 10 s, boot 5 s, shutdown 1 s.
// t=0: J1 on host 0 (core 0); host 1 idle, timeout at 10, no job queued: shuts down 10-11.
// Host 0: 150 W x 1000 = 150,000 J. Host 1: idle 100 x 10 = 1,000, shutdown 110 x 1 = 110, off
// 10 x 989 = 9,890: 11,000 J.
#[test]
fn a_core_job_draws_the_linear_model() {
    let (out, energy, _, end) = run("fcfs", &[job(1, 0.0, 1, 1000.0)], 2, 2, Some((10.0, 5.0, 1.0)));
    assert_eq!((end, out.boots, out.shutdowns), (1000.0, 0, 1));
    assert!((energy[0].joules() - 150_000.0).abs() < 1e-9, "{:?}", energy[0]);
    assert!((energy[1].joules() - 11_000.0).abs() < 1e-9, "{:?}", energy[1]);
}

fn random_case() -> impl Strategy<Value = (u32, u32, Vec<BatchJob>, (f64, f64, f64))> {
    (1u32..4, 1u32..3).prop_flat_map(|(hosts, cores)| {
        let units = hosts * cores;
        let job = (0u32..2000, 1..=units, 0u32..300, 1u32..400);
        (
            Just(hosts),
            Just(cores),
            prop::collection::vec(job, 1..25).prop_map(|v| {
                v.into_iter()
                    .enumerate()
                    .map(|(i, (submit, size, run, request))| BatchJob {
                        id: i as i64,
                        submit_s: submit as f64,
                        size,
                        request_s: request as f64,
                        runtime_s: run as f64,
                    })
                    .collect()
            }),
            (1u32..200, 0u32..100, 0u32..20).prop_map(|(a, b, c)| (a as f64, b as f64, c as f64)),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn a_host_is_never_both_on_and_off((hosts, cores, list, saving) in random_case()) {
        for policy in ["fcfs", "easy", "conservative"] {
            let (out, energy, steps, end) = run(policy, &list, hosts, cores, Some(saving));
            prop_assert!(out.unfinished.is_empty());
            prop_assert_eq!(out.jobs.len(), list.len());
            // Each host's states follow on -> shutting down -> off -> booting -> on, and no
            // execution overlaps a time its host is not on.
            let mut state = vec![PowerState::On; hosts as usize];
            let mut not_on: Vec<Vec<(f64, f64)>> = vec![Vec::new(); hosts as usize];
            let mut left_on = vec![0.0; hosts as usize];
            for c in &out.power {
                let next = match state[c.host] {
                    PowerState::On => PowerState::ShuttingDown,
                    PowerState::ShuttingDown => PowerState::Off,
                    PowerState::Off => PowerState::Booting,
                    PowerState::Booting => PowerState::On,
                };
                prop_assert_eq!(c.state, next);
                if c.state == PowerState::ShuttingDown {
                    left_on[c.host] = c.date;
                }
                if c.state == PowerState::On {
                    not_on[c.host].push((left_on[c.host], c.date));
                }
                state[c.host] = c.state;
            }
            for h in 0..hosts as usize {
                if state[h] != PowerState::On {
                    not_on[h].push((left_on[h], f64::INFINITY));
                }
            }
            for r in &out.jobs {
                for &(a, b) in &r.units {
                    for u in a..=b {
                        let h = (u / cores) as usize;
                        for &(from, to) in &not_on[h] {
                            prop_assert!(r.end_s <= from || r.start_s >= to || r.start_s == r.end_s,
                                "job {} [{}, {}] on host {} not on [{}, {}]", r.index, r.start_s, r.end_s, h, from, to);
                        }
                    }
                }
            }
            // The states partition [0, end]; with one core the joules are the states' watts
            // times their times.
            let mut total = 0.0;
            for e in &energy {
                let sum = e.busy_s + e.idle_s + e.booting_s + e.shutting_down_s + e.off_s;
                prop_assert!((sum - end).abs() <= 1e-9 * end.max(1.0), "{:?} vs {}", e, end);
                if cores == 1 {
                    let by_state = 200.0 * e.busy_s + 100.0 * e.idle_s + 120.0 * e.booting_s
                        + 110.0 * e.shutting_down_s + 10.0 * e.off_s;
                    prop_assert!((e.joules() - by_state).abs() <= 1e-9 * by_state.max(1.0));
                }
                total += e.joules();
            }
            let last = steps.last().unwrap();
            prop_assert!((last.joules - total).abs() <= 1e-9 * total.max(1.0));
        }
    }

    #[test]
    fn always_on_energy_is_the_closed_form((hosts, _cores, list, _saving) in random_case()) {
        for policy in ["fcfs", "easy", "conservative"] {
            let (out, energy, _, end) = run(policy, &list, hosts, 1, None);
            // Busy time of each host, from the executions: one unit per host, so its jobs never
            // overlap.
            let mut busy = vec![0.0; hosts as usize];
            for r in &out.jobs {
                for &(a, b) in &r.units {
                    for u in a..=b {
                        busy[u as usize] += r.end_s - r.start_s;
                    }
                }
            }
            let closed: f64 = busy.iter().map(|b| 100.0 * end + (200.0 - 100.0) * b).sum();
            let total: f64 = energy.iter().map(HostEnergy::joules).sum();
            prop_assert!((total - closed).abs() <= 1e-9 * closed.max(1.0), "{} vs {}", total, closed);
        }
    }
}

//! The batch simulation: arrivals and completions of rigid jobs on `units` identical units,
//! and a [`BatchPolicy`] deciding at each date which queued jobs start. See the module docs of
//! [`crate::batch`] for the model and the pinned semantics.
//!
//! Its own event loop: under the `trace` run-time model a job's end is fixed when it starts
//! (start + run time, or + request when it is killed at it), so there is nothing for the engine
//! to share. Dates are in seconds from the first job's submission as the workload gives them.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap};

use super::policy::{BatchPolicy, BatchView, QueuedJob, RunningJob};
use super::queue::Queue;

/// A job to schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchJob {
    /// The job id as written in the log.
    pub id: i64,
    /// Submit time, s.
    pub submit_s: f64,
    /// Units it needs (at least 1).
    pub size: u32,
    /// Its request (walltime), s.
    pub request_s: f64,
    /// Its run time as recorded, s.
    pub runtime_s: f64,
}

/// The simulation's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// Units of the platform.
    pub units: u32,
    /// Whether a job whose run time exceeds its request is killed at it.
    pub kill_at_walltime: bool,
}

/// How a job that ran ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalState {
    /// It ran its recorded run time.
    Completed,
    /// It reached its request and was killed (`kill_at_walltime`).
    Killed,
}

/// One job that ran.
#[derive(Clone, Debug, PartialEq)]
pub struct JobResult {
    /// Its position in the run's job list.
    pub index: usize,
    /// Start, s.
    pub start_s: f64,
    /// End, s.
    pub end_s: f64,
    /// How it ended.
    pub state: FinalState,
    /// The units it held, as `[first, last]` ranges in increasing order.
    pub units: Vec<(u32, u32)>,
}

/// What a simulation produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Every job that ran, by job index.
    pub jobs: Vec<JobResult>,
    /// Jobs dropped because they need more units than the platform has, by job index.
    pub dropped: Vec<usize>,
    /// Dates at which the policy was asked to decide (every date of an arrival or completion
    /// with a job queued).
    pub decisions: u64,
}

/// A completion in the event queue: by date, then by start order (`seq`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Completion {
    date: f64,
    seq: u64,
    index: usize,
}

impl Eq for Completion {}

impl Ord for Completion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.date.total_cmp(&other.date).then(self.seq.cmp(&other.seq))
    }
}

impl PartialOrd for Completion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Runs `jobs` (in any order: the queue orders them by submit time, then id) under `policy`.
/// An error is a policy's answer the simulation refuses (a position twice or out of range,
/// jobs that do not fit), or a job with a date or duration that is not a finite number >= 0.
pub fn simulate(jobs: &[BatchJob], config: SimConfig, policy: &mut dyn BatchPolicy) -> Result<Outcome, String> {
    simulate_with_speeds(jobs, config, None, policy)
}

/// [`simulate`] under the `speed` run-time model: `slowness[u]` is the reference speed over the
/// speed of unit `u`'s host, and a job runs its recorded run time times the largest slowness of
/// the units it holds (its slowest host sets the pace); `None` is the `trace` model (every
/// slowness 1). Plans still use the requests as written, and a job is killed at its request.
pub fn simulate_with_speeds(
    jobs: &[BatchJob],
    config: SimConfig,
    slowness: Option<&[f64]>,
    policy: &mut dyn BatchPolicy,
) -> Result<Outcome, String> {
    if let Some(s) = slowness {
        if s.len() != config.units as usize || s.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
            return Err(format!(
                "internal error: {} slowness factors for {} units, each must be a finite number > 0",
                s.len(),
                config.units
            ));
        }
    }
    for job in jobs {
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        if !ok(job.submit_s) || !ok(job.request_s) || !ok(job.runtime_s) || job.size == 0 {
            return Err(format!(
                "job {}: submit {} s, request {} s, run time {} s and size {} must be finite, >= 0 (size >= 1)",
                job.id, job.submit_s, job.request_s, job.runtime_s, job.size
            ));
        }
    }
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| {
        jobs[a]
            .submit_s
            .total_cmp(&jobs[b].submit_s)
            .then(jobs[a].id.cmp(&jobs[b].id))
            .then(a.cmp(&b))
    });
    let mut outcome = Outcome::default();
    // In start order (a completion's `seq`); sorted by job index at the end, in place.
    let mut results: Vec<JobResult> = Vec::with_capacity(jobs.len());
    let mut free: BTreeSet<u32> = (0..config.units).collect();
    let mut queue = Queue::default();
    // Whether each queue slot was picked at the current decision (cleared after it).
    let mut taken: Vec<bool> = Vec::new();
    let mut running: Vec<RunningJob> = Vec::new();
    let mut running_pos: Vec<usize> = vec![usize::MAX; jobs.len()];
    let mut completions: BinaryHeap<Reverse<Completion>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut next = 0;
    loop {
        let arrival = order.get(next).map(|&i| jobs[i].submit_s);
        let completion = completions.peek().map(|c| c.0.date);
        let now = match (arrival, completion) {
            (None, None) => break,
            (Some(a), None) => a,
            (None, Some(c)) => c,
            (Some(a), Some(c)) => a.min(c),
        };
        while let Some(&Reverse(c)) = completions.peek() {
            if c.date != now {
                break;
            }
            completions.pop();
            let result = results
                .get(c.seq as usize)
                .ok_or("internal error: a completion without a start")?;
            for &(a, b) in &result.units {
                free.extend(a..=b);
            }
            let pos = running_pos[c.index];
            running.swap_remove(pos);
            if let Some(moved) = running.get(pos) {
                running_pos[moved.index] = pos;
            }
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
        // Asked even when no unit is free: conservative backfilling gives a reservation to
        // every job as it arrives.
        if queue.is_empty() {
            continue;
        }
        outcome.decisions += 1;
        let view = BatchView {
            now,
            total: config.units,
            free: free.len() as u32,
            queue: &queue,
            running: &running,
        };
        let picks = policy.decide(&view);
        taken.resize(queue.joined(), false);
        let mut slots = Vec::with_capacity(picks.len());
        for &pos in &picks {
            let Some(slot) = queue.slot_at(pos) else {
                return Err(format!("the policy started queue position {pos} of {}", queue.len()));
            };
            let q = queue.job(slot);
            if std::mem::replace(&mut taken[slot], true) {
                return Err(format!("the policy started job {} twice", q.id));
            }
            slots.push(slot);
            if q.size as usize > free.len() {
                return Err(format!(
                    "the policy started job {} ({} units) with {} free at {now} s",
                    q.id,
                    q.size,
                    free.len()
                ));
            }
            // The lowest-numbered free units.
            let mut units: Vec<(u32, u32)> = Vec::new();
            for _ in 0..q.size {
                let u = free.pop_first().ok_or("internal error: free units miscounted")?;
                match units.last_mut() {
                    Some(last) if last.1 + 1 == u => last.1 = u,
                    _ => units.push((u, u)),
                }
            }
            let job = &jobs[q.index];
            let runtime_s = match slowness {
                None => job.runtime_s,
                Some(s) => {
                    let pace = units
                        .iter()
                        .flat_map(|&(a, b)| a..=b)
                        .map(|u| s[u as usize])
                        .fold(0.0, f64::max);
                    job.runtime_s * pace
                }
            };
            let killed = config.kill_at_walltime && runtime_s > job.request_s;
            let held = if killed { job.request_s } else { runtime_s };
            let end = now + held;
            results.push(JobResult {
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
            running_pos[q.index] = running.len();
            running.push(RunningJob {
                index: q.index,
                size: q.size,
                start_s: now,
                planned_end_s: now + q.request_s,
            });
            completions.push(Reverse(Completion {
                date: end,
                seq,
                index: q.index,
            }));
            seq += 1;
        }
        for slot in slots {
            taken[slot] = false;
            queue.remove(slot);
        }
        queue.compact_if_sparse();
    }
    if let Some(q) = queue.first() {
        return Err(format!(
            "internal error: job {} ({} units) was never started by the policy",
            q.id, q.size
        ));
    }
    results.sort_unstable_by_key(|r| r.index);
    outcome.jobs = results;
    Ok(outcome)
}

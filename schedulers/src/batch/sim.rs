//! The batch simulation: arrivals and completions of rigid jobs on `units` identical units,
//! hosts that go down and come back up, and a [`BatchPolicy`] deciding at each date which
//! queued jobs start. See the module docs of [`crate::batch`] for the model and the pinned
//! semantics.
//!
//! Its own event loop: under the `trace` run-time model a job's end is fixed when it starts
//! (start + run time, or + request when it is killed at it), so there is nothing for the engine
//! to share; a host failure cuts that end short. Dates are in seconds from the first job's
//! submission as the workload gives them.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap};
use std::ops::Range;

use sim_core::budget::{charge, CHECK_EVERY};
use sim_core::profile::Profile;

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

/// What happens to a job a host failure kills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFailure {
    /// It goes back to the queue at its place (submit time, then id) and later starts over.
    Requeue,
    /// It ends there, failed.
    Fail,
}

/// The hosts that go down and up: each one's units and state profile (0 = off), and what
/// happens to the jobs a failure kills. Hosts not listed stay up.
#[derive(Clone, Debug, PartialEq)]
pub struct Availability {
    /// `(units of the host, its state profile)`, in platform host order.
    pub hosts: Vec<(Range<u32>, Profile)>,
    /// What a failure does to the jobs it kills.
    pub on_failure: OnFailure,
    /// Under [`OnFailure::Requeue`], the requeues a job may have: a job killed again after
    /// this many ends failed, so that a job its hosts never let finish is not retried forever.
    pub max_requeues: u32,
}

/// How one execution of a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalState {
    /// It ran its recorded run time.
    Completed,
    /// It reached its request and was killed (`kill_at_walltime`).
    Killed,
    /// A host it held went down and the job ended failed (`OnFailure::Fail`, or a job past
    /// its `max_requeues`).
    Failed,
    /// A host it held went down and the job went back to the queue (`OnFailure::Requeue`);
    /// only in [`Outcome::requeued`].
    Requeued,
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
    /// Every job that ran to an end (completed, killed at its request, or failed with a host),
    /// by job index: a requeued job's last execution.
    pub jobs: Vec<JobResult>,
    /// Executions a host failure cut short whose job went back to the queue, in the order the
    /// failures killed them (by date, then host, then unit); one per requeue.
    pub requeued: Vec<JobResult>,
    /// Jobs dropped because they need more units than the platform has, by job index.
    pub dropped: Vec<usize>,
    /// Jobs still queued when nothing more could start them (the units they need stayed down),
    /// in queue order. A run with any has no result to report.
    pub unfinished: Vec<usize>,
    /// Unit-seconds held by executions a host failure killed (requeued or failed).
    pub lost_unit_s: f64,
    /// Dates at which the policy was asked to decide (every date of an arrival, completion or
    /// host state change with a job queued).
    pub decisions: u64,
    /// Host state profile events applied.
    pub host_events: u64,
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

/// The next event of a host's state profile: by date, then host (platform order), then its
/// number in the profile, so that a host's events of one date apply in the profile's order.
#[derive(Clone, Copy, Debug, PartialEq)]
struct HostEvent {
    date: f64,
    host: usize,
    n: u64,
}

impl Eq for HostEvent {}

impl Ord for HostEvent {
    fn cmp(&self, other: &Self) -> Ordering {
        self.date
            .total_cmp(&other.date)
            .then(self.host.cmp(&other.host))
            .then(self.n.cmp(&other.n))
    }
}

impl PartialOrd for HostEvent {
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
    simulate_on(jobs, config, slowness, None, policy)
}

/// [`simulate_with_speeds`] with hosts that go down and up as `availability`'s state profiles
/// say (`None`: every unit stays up). A host that goes down kills the jobs holding any of its
/// units; its units take no job until it is up again.
pub fn simulate_on(
    jobs: &[BatchJob],
    config: SimConfig,
    slowness: Option<&[f64]>,
    availability: Option<&Availability>,
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
    let no_hosts = Vec::new();
    let hosts = availability.map_or(&no_hosts, |a| &a.hosts);
    if let Some((units, _)) = hosts.iter().find(|(r, _)| r.start >= r.end || r.end > config.units) {
        return Err(format!(
            "internal error: host units {units:?} out of the {} units",
            config.units
        ));
    }
    let on_failure = availability.map_or(OnFailure::Requeue, |a| a.on_failure);
    let max_requeues = availability.map_or(0, |a| a.max_requeues);
    let mut requeues: Vec<u32> = vec![0; if hosts.is_empty() { 0 } else { jobs.len() }];
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| {
        jobs[a]
            .submit_s
            .total_cmp(&jobs[b].submit_s)
            .then(jobs[a].id.cmp(&jobs[b].id))
            .then(a.cmp(&b))
    });
    let mut outcome = Outcome::default();
    // In start order (a completion's `seq`); killed executions marked `Requeued` are taken out
    // at the end, and the rest sorted by job index in place.
    let mut results: Vec<JobResult> = Vec::with_capacity(jobs.len());
    let mut free: BTreeSet<u32> = (0..config.units).collect();
    let mut units_up = config.units;
    let mut queue = Queue::default();
    // Whether each queue slot was picked at the current decision, and those slots (both
    // cleared after it, and kept so that a decision allocates nothing of its own).
    let mut taken: Vec<bool> = Vec::new();
    let mut slots: Vec<usize> = Vec::new();
    let mut running: Vec<RunningJob> = Vec::new();
    let mut running_pos: Vec<usize> = vec![usize::MAX; jobs.len()];
    let mut completions: BinaryHeap<Reverse<Completion>> = BinaryHeap::new();
    // The `seq` of each running job's completion: a completion of another `seq` is that of an
    // execution a failure killed, skipped when it comes up.
    let mut live: Vec<u64> = vec![u64::MAX; jobs.len()];
    let mut seq = 0u64;
    let mut next = 0;
    // Host states: each unit's holder (`usize::MAX`: none) and whether its host is up.
    // Kept only when some host changes state.
    let tracked = if hosts.is_empty() { 0 } else { config.units as usize };
    let mut holder: Vec<usize> = vec![usize::MAX; tracked];
    let mut unit_up: Vec<bool> = vec![true; tracked];
    let mut host_events: BinaryHeap<Reverse<HostEvent>> = BinaryHeap::new();
    // Host events still to come from profiles that do not repeat, and the date of the last
    // one applied: once none is left, the machine's states only cycle.
    let mut finite_pending = 0usize;
    let mut last_finite = 0.0f64;
    let longest_period = hosts.iter().filter_map(|(_, p)| p.period()).fold(0.0, f64::max);
    for (host, (_, profile)) in hosts.iter().enumerate() {
        if let Some((date, _)) = profile.nth_event(0) {
            host_events.push(Reverse(HostEvent { date, host, n: 0 }));
            if profile.period().is_none() {
                finite_pending += 1;
            }
        }
    }
    // Since when nothing runs, no job is left to arrive and jobs wait: only a host coming up
    // can start one.
    let mut idle_since: Option<f64> = None;
    let mut uncharged = 0u64;
    loop {
        if uncharged >= CHECK_EVERY {
            charge(uncharged);
            uncharged = 0;
        }
        while let Some(&Reverse(c)) = completions.peek() {
            if live[c.index] == c.seq {
                break;
            }
            completions.pop();
        }
        let arrival = order.get(next).map(|&i| jobs[i].submit_s);
        let completion = completions.peek().map(|c| c.0.date);
        let host_change = host_events.peek().map(|e| e.0.date);
        if arrival.is_none() && completion.is_none() {
            if queue.is_empty() {
                break;
            }
            match (host_change, idle_since) {
                (None, _) => break,
                // Every state left repeats with a period of at most `longest_period`: a whole
                // one has passed, since the last change of a profile that does not repeat,
                // with these jobs waiting and no unit able to take one, so none ever will.
                // (Exact when the repeating profiles share one period, as a profile given to
                // every host or a random failure model's do.)
                (Some(h), Some(since)) if finite_pending == 0 && h > since.max(last_finite) + longest_period => break,
                _ => {}
            }
        }
        let now = [arrival, completion, host_change]
            .into_iter()
            .flatten()
            .fold(f64::INFINITY, f64::min);
        while let Some(&Reverse(c)) = completions.peek() {
            if c.date != now {
                break;
            }
            completions.pop();
            if live[c.index] != c.seq {
                continue;
            }
            live[c.index] = u64::MAX;
            let result = results
                .get(c.seq as usize)
                .ok_or("internal error: a completion without a start")?;
            for &(a, b) in &result.units {
                free.extend(a..=b);
                if !holder.is_empty() {
                    holder[a as usize..=b as usize].fill(usize::MAX);
                }
            }
            let pos = running_pos[c.index];
            running.swap_remove(pos);
            if let Some(moved) = running.get(pos) {
                running_pos[moved.index] = pos;
            }
        }
        // Host state changes: a host going down kills the jobs on it; one coming up frees its
        // units.
        while let Some(&Reverse(e)) = host_events.peek() {
            if e.date != now {
                break;
            }
            host_events.pop();
            outcome.host_events += 1;
            uncharged += 1;
            let (units, profile) = &hosts[e.host];
            let up = profile.nth_event(e.n).map_or(true, |(_, value)| value != 0.0);
            match profile.nth_event(e.n + 1) {
                Some((date, _)) => host_events.push(Reverse(HostEvent {
                    date,
                    host: e.host,
                    n: e.n + 1,
                })),
                None => finite_pending -= 1,
            }
            if profile.period().is_none() {
                last_finite = now;
            }
            if unit_up[units.start as usize] == up {
                continue;
            }
            for u in units.clone() {
                unit_up[u as usize] = up;
                if up {
                    free.insert(u);
                } else {
                    free.remove(&u);
                }
            }
            if up {
                units_up += units.len() as u32;
                continue;
            }
            units_up -= units.len() as u32;
            for u in units.clone() {
                let index = holder[u as usize];
                if index == usize::MAX {
                    continue;
                }
                // Killed: its units go back (those of hosts still up to the free list), its
                // completion is void, and it goes back to the queue or ends failed.
                let started = std::mem::replace(&mut live[index], u64::MAX);
                let mut result = results
                    .get(started as usize)
                    .cloned()
                    .ok_or("internal error: a holder without a start")?;
                for &(a, b) in &result.units {
                    holder[a as usize..=b as usize].fill(usize::MAX);
                    free.extend((a..=b).filter(|&v| unit_up[v as usize]));
                }
                let pos = running_pos[index];
                running.swap_remove(pos);
                if let Some(moved) = running.get(pos) {
                    running_pos[moved.index] = pos;
                }
                let job = &jobs[index];
                outcome.lost_unit_s += (now - result.start_s) * job.size as f64;
                result.end_s = now;
                match on_failure {
                    OnFailure::Requeue if requeues[index] < max_requeues => {
                        requeues[index] += 1;
                        result.state = FinalState::Requeued;
                        outcome.requeued.push(result);
                        results[started as usize].state = FinalState::Requeued;
                        queue.insert_in_order(QueuedJob {
                            index,
                            id: job.id,
                            submit_s: job.submit_s,
                            size: job.size,
                            request_s: job.request_s,
                        });
                    }
                    _ => {
                        result.state = FinalState::Failed;
                        results[started as usize] = result;
                    }
                }
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
        if !queue.is_empty() {
            outcome.decisions += 1;
            uncharged += 1;
            let view = BatchView {
                now,
                total: config.units,
                free: free.len() as u32,
                up: units_up,
                queue: &queue,
                running: &running,
            };
            let picks = policy.try_decide(&view)?;
            taken.resize(queue.joined(), false);
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
                    if !holder.is_empty() {
                        holder[u as usize] = q.index;
                    }
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
                live[q.index] = seq;
                completions.push(Reverse(Completion {
                    date: end,
                    seq,
                    index: q.index,
                }));
                seq += 1;
            }
            for slot in slots.drain(..) {
                taken[slot] = false;
                queue.remove(slot);
            }
            queue.compact_if_sparse();
        }
        let waiting = running.is_empty() && next == order.len() && !queue.is_empty();
        idle_since = if waiting { idle_since.or(Some(now)) } else { None };
    }
    if let Some(q) = queue.first() {
        // With every unit up and nothing running, the policy was asked with each queued job
        // fitting the platform and started none: its defect, not the machine's.
        if free.len() == config.units as usize {
            return Err(format!(
                "internal error: job {} ({} units) was never started by the policy",
                q.id, q.size
            ));
        }
    }
    outcome.unfinished = queue.iter().map(|q| q.index).collect();
    results.retain(|r| r.state != FinalState::Requeued);
    results.sort_unstable_by_key(|r| r.index);
    outcome.jobs = results;
    Ok(outcome)
}

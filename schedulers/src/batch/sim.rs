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

/// Switching idle hosts off (`idle_off_s`): a host that stays idle (on, no unit held) for
/// `idle_off_s` is shut down, unless the queue needs its units; off hosts are booted when the
/// queued jobs need more units than are free or booting. Shutting down takes `shutdown_s`,
/// booting `boot_s`; in both, and while off, the host's units take no job.
#[derive(Clone, Debug, PartialEq)]
pub struct PowerSaving {
    /// Every host's units, in platform host order: consecutive ranges covering all units.
    pub hosts: Vec<Range<u32>>,
    /// Idle time after which a host is switched off, s (> 0).
    pub idle_off_s: f64,
    /// Time from the decision to boot to the host's units being up, s.
    pub boot_s: f64,
    /// Time from the decision to switch off to the host being off, s.
    pub shutdown_s: f64,
}

/// A host's power state under [`PowerSaving`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerState {
    /// On: its units are up (free or held).
    On,
    /// Shutting down: no job, not yet off.
    ShuttingDown,
    /// Off.
    Off,
    /// Booting: no job yet.
    Booting,
}

/// A host entering a power state, at a date.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerChange {
    /// The date, s.
    pub date: f64,
    /// The host, in platform order.
    pub host: usize,
    /// The state it enters.
    pub state: PowerState,
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
    /// Under [`PowerSaving`]: every host power state change, by date (hosts are on at 0).
    pub power: Vec<PowerChange>,
    /// Under [`PowerSaving`]: boots started.
    pub boots: u64,
    /// Under [`PowerSaving`]: shutdowns started.
    pub shutdowns: u64,
}

/// A power event of a host: by date, then the order it was planned in.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PowerEvent {
    date: f64,
    seq: u64,
    host: usize,
    kind: PowerEventKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PowerEventKind {
    /// The host's idle timeout, valid while its idle generation is this one.
    Timeout(u64),
    /// Its shutdown ends.
    ShutdownEnd,
    /// Its boot ends.
    BootEnd,
}

impl Eq for PowerEvent {}

impl Ord for PowerEvent {
    fn cmp(&self, other: &Self) -> Ordering {
        self.date.total_cmp(&other.date).then(self.seq.cmp(&other.seq))
    }
}

impl PartialOrd for PowerEvent {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The hosts' power states under [`PowerSaving`] and the bookkeeping that decides shutdowns and
/// boots.
struct Power<'a> {
    saving: &'a PowerSaving,
    /// The host of each unit.
    unit_host: Vec<usize>,
    state: Vec<PowerState>,
    /// Units held per host.
    busy: Vec<u32>,
    /// Bumped whenever a host becomes idle or busy, so that an older timeout is void.
    generation: Vec<u64>,
    /// A shutting-down host to boot as soon as it is off.
    reboot: Vec<bool>,
    events: BinaryHeap<Reverse<PowerEvent>>,
    seq: u64,
    /// Hosts whose timeout passed while the queue needed them.
    expired: BTreeSet<usize>,
    /// Hosts that can be booted: off, or shutting down without a boot planned.
    bootable: BTreeSet<usize>,
    /// Units booting, or shutting down with a boot planned: up later without another decision.
    coming: u64,
}

impl Power<'_> {
    fn units(&self, host: usize) -> Range<u32> {
        self.saving.hosts[host].clone()
    }

    fn plan(&mut self, date: f64, host: usize, kind: PowerEventKind) {
        self.events.push(Reverse(PowerEvent {
            date,
            seq: self.seq,
            host,
            kind,
        }));
        self.seq += 1;
    }

    fn enter(&mut self, outcome: &mut Outcome, date: f64, host: usize, state: PowerState) {
        self.state[host] = state;
        outcome.power.push(PowerChange { date, host, state });
    }

    /// Host `host` is idle and on from `now`: its timeout starts.
    fn idle_from(&mut self, now: f64, host: usize) {
        self.generation[host] += 1;
        let g = self.generation[host];
        self.plan(now + self.saving.idle_off_s, host, PowerEventKind::Timeout(g));
    }

    fn boot(&mut self, outcome: &mut Outcome, now: f64, host: usize) {
        self.enter(outcome, now, host, PowerState::Booting);
        outcome.boots += 1;
        self.plan(now + self.saving.boot_s, host, PowerEventKind::BootEnd);
    }
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
    simulate_powered(jobs, config, slowness, availability, None, policy)
}

/// [`simulate_on`] with idle hosts switched off and booted as [`PowerSaving`] says (`None`:
/// hosts stay on). Refused together with host state profiles: a host would then have two
/// sources of down periods.
pub fn simulate_powered(
    jobs: &[BatchJob],
    config: SimConfig,
    slowness: Option<&[f64]>,
    availability: Option<&Availability>,
    saving: Option<&PowerSaving>,
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
    let mut power = match saving {
        None => None,
        Some(_) if !hosts.is_empty() => {
            return Err("switching idle hosts off is not combined with host state profiles".into())
        }
        Some(saving) => {
            let mut unit_host = vec![usize::MAX; config.units as usize];
            for (h, r) in saving.hosts.iter().enumerate() {
                if r.end > config.units {
                    return Err(format!(
                        "internal error: host units {r:?} out of the {} units",
                        config.units
                    ));
                }
                unit_host[r.start as usize..r.end as usize].fill(h);
            }
            let ok = |x: f64| x.is_finite() && x >= 0.0;
            if unit_host.contains(&usize::MAX)
                || !(saving.idle_off_s > 0.0 && ok(saving.idle_off_s) && ok(saving.boot_s) && ok(saving.shutdown_s))
            {
                return Err(
                    "internal error: power saving hosts do not cover the units, or a duration is not finite >= 0"
                        .into(),
                );
            }
            let n = saving.hosts.len();
            let mut p = Power {
                saving,
                unit_host,
                state: vec![PowerState::On; n],
                busy: vec![0; n],
                generation: vec![0; n],
                reboot: vec![false; n],
                events: BinaryHeap::new(),
                seq: 0,
                expired: BTreeSet::new(),
                bootable: BTreeSet::new(),
                coming: 0,
            };
            for h in 0..n {
                p.idle_from(0.0, h);
            }
            Some(p)
        }
    };
    // Units the queued jobs need together: under power saving, what decides boots and whether
    // an idle host may be switched off.
    let mut queued_units: u64 = 0;
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
        let power_change = power.as_ref().and_then(|p| p.events.peek().map(|e| e.0.date));
        if arrival.is_none() && completion.is_none() {
            if queue.is_empty() {
                break;
            }
            // Jobs wait; a power event (a boot's end) will start them. (Power saving is never
            // combined with state profiles.)
            if power_change.is_none() {
                match (host_change, idle_since) {
                    (None, _) => break,
                    // Every state left repeats with a period of at most `longest_period`: a whole
                    // one has passed, since the last change of a profile that does not repeat,
                    // with these jobs waiting and no unit able to take one, so none ever will.
                    // (Exact when the repeating profiles share one period, as a profile given to
                    // every host or a random failure model's do.)
                    (Some(h), Some(since)) if finite_pending == 0 && h > since.max(last_finite) + longest_period => {
                        break
                    }
                    _ => {}
                }
            }
        }
        let now = [arrival, completion, host_change, power_change]
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
                if let Some(p) = power.as_mut() {
                    for u in a..=b {
                        let h = p.unit_host[u as usize];
                        p.busy[h] -= 1;
                        if p.busy[h] == 0 {
                            p.idle_from(now, h);
                        }
                    }
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
                        queued_units += u64::from(job.size);
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
        // Power events: a shutdown or a boot ends; an idle timeout passes (acted on after the
        // decision, which may give the host a job).
        if let Some(p) = power.as_mut() {
            while let Some(&Reverse(e)) = p.events.peek() {
                if e.date != now {
                    break;
                }
                p.events.pop();
                uncharged += 1;
                let h = e.host;
                match e.kind {
                    PowerEventKind::Timeout(g) => {
                        if g == p.generation[h] && p.state[h] == PowerState::On && p.busy[h] == 0 {
                            p.expired.insert(h);
                        }
                    }
                    PowerEventKind::ShutdownEnd => {
                        p.enter(&mut outcome, now, h, PowerState::Off);
                        if std::mem::replace(&mut p.reboot[h], false) {
                            p.boot(&mut outcome, now, h);
                        }
                    }
                    PowerEventKind::BootEnd => {
                        p.enter(&mut outcome, now, h, PowerState::On);
                        let units = p.units(h);
                        p.coming -= units.len() as u64;
                        units_up += units.len() as u32;
                        free.extend(units);
                        p.idle_from(now, h);
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
            queued_units += u64::from(job.size);
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
                booting: power.as_ref().map_or(0, |p| p.coming as u32),
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
                    if let Some(p) = power.as_mut() {
                        let h = p.unit_host[u as usize];
                        if p.busy[h] == 0 {
                            // Its timeout is void.
                            p.generation[h] += 1;
                            p.expired.remove(&h);
                        }
                        p.busy[h] += 1;
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
                queued_units -= u64::from(queue.job(slot).size);
                queue.remove(slot);
            }
            queue.compact_if_sparse();
        }
        if let Some(p) = power.as_mut() {
            // Units free or on their way up, against what the queue needs.
            let mut supply = free.len() as u64 + p.coming;
            // A host whose timeout passed is switched off unless the queued jobs need its units
            // (as when EASY holds idle hosts for the head job's reservation).
            let expired: Vec<usize> = p.expired.iter().copied().collect();
            for h in expired {
                let n = p.units(h).len() as u64;
                if supply < queued_units + n {
                    continue;
                }
                p.expired.remove(&h);
                supply -= n;
                for u in p.units(h) {
                    free.remove(&u);
                }
                units_up -= n as u32;
                p.enter(&mut outcome, now, h, PowerState::ShuttingDown);
                outcome.shutdowns += 1;
                p.bootable.insert(h);
                p.plan(now + p.saving.shutdown_s, h, PowerEventKind::ShutdownEnd);
            }
            // Boot, lowest-numbered first, while the queued jobs need more units than are free
            // or coming.
            while supply < queued_units {
                let Some(h) = p.bootable.pop_first() else {
                    break;
                };
                let n = p.units(h).len() as u64;
                supply += n;
                p.coming += n;
                if p.state[h] == PowerState::Off {
                    p.boot(&mut outcome, now, h);
                } else {
                    p.reboot[h] = true;
                }
            }
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

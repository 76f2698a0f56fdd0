//! The batch policy contract: a read-only view of the machine and the queue, and the decision,
//! as data, of which queued jobs start now. Shared building blocks of the policies (in-order
//! starting, EASY backfilling) are here so that each policy file states only its rule.

/// A queued job as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueuedJob {
    /// Position of the job in the run's job list (unique within a run; stable while queued).
    pub index: usize,
    /// The job id as written in the log.
    pub id: i64,
    /// Submit time, s.
    pub submit_s: f64,
    /// Units it needs.
    pub size: u32,
    /// Its request (walltime), s: what plans assume it runs for.
    pub request_s: f64,
}

/// A running job as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningJob {
    /// Position of the job in the run's job list.
    pub index: usize,
    /// Units it holds.
    pub size: u32,
    /// Its start, s.
    pub start_s: f64,
    /// Start + request, s: when plans assume it ends (a job allowed to run past its request,
    /// `kill_at_walltime = false`, has a planned end before `now`; plans then read `now`).
    pub planned_end_s: f64,
}

/// What a policy sees when it decides: at `now`, after every arrival and completion of `now`.
#[derive(Clone, Copy, Debug)]
pub struct BatchView<'a> {
    /// The date, s.
    pub now: f64,
    /// Units of the platform.
    pub total: u32,
    /// Units free now.
    pub free: u32,
    /// Queued jobs, by submit time then job id.
    pub queue: &'a [QueuedJob],
    /// Running jobs, in no particular order.
    pub running: &'a [RunningJob],
}

/// A batch scheduling policy. One object per run, so a policy may keep state between decisions
/// (conservative backfilling keeps its reservations).
pub trait BatchPolicy: Send {
    /// The queue positions (indices into `view.queue`) of the jobs to start now, each once; the
    /// jobs must fit together in `view.free`. The simulation refuses any other answer as a
    /// defect of the policy.
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize>;
}

/// Starts jobs in the order `order` (queue positions) while the next one fits; stops at the
/// first that does not (no backfilling). FCFS is this in queue order, SJF and LJF in their
/// orders.
pub fn start_in_order(view: &BatchView<'_>, order: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut free = view.free;
    let mut picks = Vec::new();
    for pos in order {
        let size = view.queue[pos].size;
        if size > free {
            break;
        }
        free -= size;
        picks.push(pos);
    }
    picks
}

/// Queue positions ordered by request (shortest first, or longest first with `longest`), equal
/// requests in queue order.
pub fn by_request(queue: &[QueuedJob], positions: impl IntoIterator<Item = usize>, longest: bool) -> Vec<usize> {
    let mut order: Vec<usize> = positions.into_iter().collect();
    order.sort_by(|&a, &b| {
        let c = queue[a].request_s.total_cmp(&queue[b].request_s);
        let c = if longest { c.reverse() } else { c };
        c.then(a.cmp(&b))
    });
    order
}

/// The planned releases of the running jobs and of the jobs `picks` starts now, `(date,
/// units)` by date (a planned end before `now` reads `now`; equal dates by job index).
pub fn planned_releases(view: &BatchView<'_>, picks: &[usize]) -> Vec<(f64, u32, usize)> {
    let mut releases: Vec<(f64, u32, usize)> = view
        .running
        .iter()
        .map(|r| (r.planned_end_s.max(view.now), r.size, r.index))
        .chain(picks.iter().map(|&p| {
            let q = &view.queue[p];
            (view.now + q.request_s, q.size, q.index)
        }))
        .collect();
    releases.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
    releases
}

/// EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001): jobs start in queue order while
/// the next fits; the first that does not, the head, gets a reservation at the *shadow time*,
/// the earliest date enough units are free assuming running jobs end at their requests, and the
/// units free then beyond its need are the *extra* units. A later job, taken in the order
/// `candidates` gives (queue order for EASY, shortest request first for EASY-SJBF), starts now
/// if it fits in the free units and either ends, by its request, by the shadow time, or uses
/// only extra units (which it then takes from the extra).
pub fn easy_backfill(view: &BatchView<'_>, shortest_first: bool) -> Vec<usize> {
    let queue = view.queue;
    let mut picks = start_in_order(view, 0..queue.len());
    let head = picks.len();
    if head == queue.len() {
        return picks;
    }
    let mut free = view.free - picks.iter().map(|&p| queue[p].size).sum::<u32>();
    let need = queue[head].size;
    // Shadow time: releases in date order until the head fits; releases of that same date
    // count towards the extra units too.
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
    // The head never fits (it needs more than the platform: the simulation drops such jobs):
    // no reservation, nothing extra.
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

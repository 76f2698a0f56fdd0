//! The batch policy contract: a read-only view of the machine and the queue, and the decision,
//! as data, of which queued jobs start now. Shared building blocks of the policies (in-order
//! starting, EASY backfilling, the queue by request) are here so that each policy file states
//! only its rule.
//!
//! Cost: a decision reads the queue through [`Queue`] (a position in O(log n)) and policies keep
//! what they can between decisions (the queue by request, conservative backfilling's plan), so
//! that a decision costs O(log n) a job it starts or looks at, not a pass over the whole queue.

use std::collections::BTreeSet;

pub use super::queue::Queue;

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
    /// Units up now (`total` less those of hosts that are down, off, booting or shutting
    /// down): free or held.
    pub up: u32,
    /// Units booting (idle hosts switched off, `idle_off_s`, and booted for the queue): not
    /// free, up when their boot ends, with no further decision needed to bring them.
    pub booting: u32,
    /// Queued jobs, by submit time then job id (`queue[p]` is the job at position `p`).
    pub queue: &'a Queue,
    /// Running jobs, in no particular order.
    pub running: &'a [RunningJob],
}

/// A batch scheduling policy. One object per run, so a policy may keep state between decisions
/// (conservative backfilling keeps its reservations). A policy may rely on what the simulation
/// guarantees between two decisions of a run: the jobs it started are the only ones to leave the
/// queue, and jobs join at its end ([`Queue`] slots).
pub trait BatchPolicy: Send {
    /// The queue positions (indices into `view.queue`) of the jobs to start now, each once; the
    /// jobs must fit together in `view.free`. The simulation refuses any other answer as a
    /// defect of the policy.
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize>;

    /// [`BatchPolicy::decide`], or why the policy could not decide: the simulation asks this.
    /// A built-in policy always decides (the default); one supplied at run time
    /// ([`crate::external::CheckedBatch`]) may fail, which ends the run with the message.
    fn try_decide(&mut self, view: &BatchView<'_>) -> Result<Vec<usize>, String> {
        Ok(self.decide(view))
    }
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
pub fn by_request(queue: &Queue, positions: impl IntoIterator<Item = usize>, longest: bool) -> Vec<usize> {
    let mut order: Vec<usize> = positions.into_iter().collect();
    order.sort_by(|&a, &b| {
        let c = queue[a].request_s.total_cmp(&queue[b].request_s);
        let c = if longest { c.reverse() } else { c };
        c.then(a.cmp(&b))
    });
    order
}

/// A request as an integer of the same order as `f64::total_cmp`, so that an ordered set of
/// integers keeps the queue by request.
fn request_key(request_s: f64) -> i64 {
    let bits = request_s.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// The queued jobs by request (shortest first, or longest first), equal requests in queue order,
/// kept between decisions: a job enters once when it joins the queue and leaves once when it
/// starts, O(log n) each, instead of a sort of the whole queue at every decision (the order
/// [`by_request`] gives).
#[derive(Clone, Debug, Default)]
pub struct RequestOrder {
    longest: bool,
    /// `(key, slot)`: the key orders by request, the slot by queue order.
    set: BTreeSet<(i64, usize)>,
    /// Queue slots that joined and were entered.
    seen: usize,
    /// The queue's epoch the slots are of.
    epoch: u64,
    /// Slots started at the last decision, to be taken out at the next.
    started: Vec<usize>,
}

impl RequestOrder {
    /// An empty order, longest request first with `longest`.
    pub fn new(longest: bool) -> RequestOrder {
        RequestOrder {
            longest,
            ..RequestOrder::default()
        }
    }

    fn key(&self, job: &QueuedJob) -> i64 {
        let k = request_key(job.request_s);
        if self.longest {
            !k
        } else {
            k
        }
    }

    /// Brings the order up to `queue`: takes out the jobs started since, enters the jobs that
    /// joined since. Should the queue have changed otherwise (a policy object moved to another
    /// run), the order is rebuilt from the queue.
    pub fn update(&mut self, queue: &Queue) {
        if self.epoch != queue.epoch() {
            // Renumbered slots: rebuilt below.
            self.started.clear();
            self.set.clear();
            self.seen = queue.joined();
            self.epoch = queue.epoch();
        }
        for slot in std::mem::take(&mut self.started) {
            if !queue.is_queued(slot) && slot < queue.joined() {
                let key = self.key(queue.job(slot));
                self.set.remove(&(key, slot));
            }
        }
        if self.seen <= queue.joined() {
            for slot in self.seen..queue.joined() {
                if queue.is_queued(slot) {
                    self.set.insert((self.key(queue.job(slot)), slot));
                }
            }
        }
        self.seen = queue.joined();
        if self.set.len() != queue.len() {
            self.set = queue
                .slots_from(0)
                .map(|slot| (self.key(queue.job(slot)), slot))
                .collect();
        }
    }

    /// Queued slots in this order.
    pub fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.set.iter().map(|&(_, slot)| slot)
    }

    /// Notes that `slot` starts now (it leaves the order at the next [`RequestOrder::update`]).
    pub fn started(&mut self, slot: usize) {
        self.started.push(slot);
    }

    /// Starts jobs in this order while the next one fits ([`start_in_order`] over the order);
    /// returns their queue positions.
    pub fn start_in_order(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        self.update(view.queue);
        let mut free = view.free;
        let mut picks = Vec::new();
        for slot in self.slots() {
            let size = view.queue.job(slot).size;
            if size > free {
                break;
            }
            free -= size;
            picks.push(slot);
        }
        self.started.extend_from_slice(&picks);
        positions(view.queue, picks)
    }
}

/// The queue positions of queued `slots`.
fn positions(queue: &Queue, slots: Vec<usize>) -> Vec<usize> {
    slots
        .into_iter()
        .map(|s| queue.position(s).expect("a queued slot has a position"))
        .collect()
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
/// units free then beyond its need are the *extra* units. A later job, taken in queue order
/// (EASY, `shortest_first` `None`) or shortest request first (EASY-SJBF, the policy's
/// [`RequestOrder`]), starts now if it fits in the free units and either ends, by its request,
/// by the shadow time, or uses only extra units (which it then takes from the extra). The
/// candidates are looked at until the free units run out.
pub fn easy_backfill(view: &BatchView<'_>, shortest_first: Option<&mut RequestOrder>) -> Vec<usize> {
    let queue = view.queue;
    let mut picks = start_in_order(view, 0..queue.len());
    let head = picks.len();
    if head == queue.len() {
        if let Some(order) = shortest_first {
            order.update(queue);
            for &p in &picks {
                order.started(queue.slot_at(p).expect("a picked position is queued"));
            }
        }
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
    let head_slot = queue.slot_at(head).expect("the head is queued");
    let mut take = |slot: usize, free: &mut u32| -> bool {
        let job = queue.job(slot);
        if job.size > *free {
            return false;
        }
        if view.now + job.request_s <= shadow {
            *free -= job.size;
            true
        } else if job.size <= extra {
            *free -= job.size;
            extra -= job.size;
            true
        } else {
            false
        }
    };
    match shortest_first {
        None => {
            let mut backfilled = Vec::new();
            for slot in queue.slots_from(head + 1) {
                if free == 0 {
                    break;
                }
                if take(slot, &mut free) {
                    backfilled.push(slot);
                }
            }
            picks.extend(positions(queue, backfilled));
        }
        Some(order) => {
            order.update(queue);
            for &p in &picks {
                order.started(queue.slot_at(p).expect("a picked position is queued"));
            }
            // Candidates: the jobs after the head (slots after its own), by request.
            let mut backfilled = Vec::new();
            for slot in order.slots() {
                if free == 0 {
                    break;
                }
                if slot > head_slot && take(slot, &mut free) {
                    backfilled.push(slot);
                }
            }
            for &s in &backfilled {
                order.started(s);
            }
            picks.extend(positions(queue, backfilled));
        }
    }
    picks
}

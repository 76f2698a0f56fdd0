//! Conservative backfilling (Mu'alem and Feitelson 2001, "Utilization, predictability,
//! workloads, and user runtime estimates in scheduling the IBM SP2 with backfilling"): every
//! queued job holds a reservation, the earliest date its request fits in the plan
//! ([`super::profile::Profile`]) without moving any earlier reservation; a job starts when its
//! reservation is now.
//!
//! At each decision the plan is rebuilt from the running jobs' planned ends (start + request)
//! and the reservations are placed again in the order of their current dates (ties in queue
//! order), each at the earliest date it fits, which is never later than its current one (the
//! jobs placed before it only moved earlier): this is the *compression* that follows a job
//! ending before its request. Jobs that arrived since the last decision are then placed, in
//! queue order, after all the others. A reservation moves later only if a running job outlives
//! its request (`kill_at_walltime = false`).
//!
//! The plan is kept between decisions. When no job has ended since the last decision, none runs
//! past its request and no reservation is due, placing the reservations again would give each
//! its current date (each job's earliest fit depends only on the plan before its own date, which
//! is unchanged, and the jobs dated later cannot block an earlier date without blocking its own):
//! the kept plan, seen from now, is the rebuilt one, and only the jobs that arrived since are
//! placed, at O(plan) each instead of the whole queue's. An early end (the usual case: requests
//! overestimate run times), a host going down or up, or a job sent back to the queue (the
//! queue's slots renumbered) rebuilds the plan, as above.

use std::collections::BTreeMap;

use super::policy::{planned_releases, BatchPolicy, BatchView, Queue};
use super::profile::Profile;
use crate::registry::{Entry, PolicyInfo};

/// Conservative backfilling; keeps each queued job's reservation between decisions.
#[derive(Clone, Debug, Default)]
pub struct Conservative {
    /// Reserved start date by job index.
    reserved: BTreeMap<usize, f64>,
    /// The plan after the last decision, with every reservation and start in it.
    plan: Option<Profile>,
    /// The running jobs the plan assumes, `(job index, planned end)`, by job index.
    assumed: Vec<(usize, f64)>,
    /// The earliest reserved date.
    earliest: f64,
    /// Queue slots placed so far, and the queue's epoch they are of.
    seen: usize,
    epoch: u64,
    /// The units up when the plan was made: a host changing state changes the plan's capacity.
    up: u32,
}

impl Conservative {
    /// The reservations held after the last decision, `(job index, date)`, by job index.
    pub fn reservations(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.reserved.iter().map(|(&k, &v)| (k, v))
    }
}

impl Conservative {
    /// Whether the kept plan, seen from `view.now`, is the plan a rebuild would make: see the
    /// module docs.
    fn plan_holds(&self, view: &BatchView<'_>) -> bool {
        let queue = view.queue;
        if self.plan.is_none()
            || self.epoch != queue.epoch()
            || self.seen > queue.joined()
            || self.earliest <= view.now
            || self.reserved.len() + (queue.joined() - self.seen) != queue.len()
            || view.running.len() != self.assumed.len()
            || view.up != self.up
        {
            return false;
        }
        // The same running jobs with the same planned ends, none due yet.
        view.running.iter().all(|r| {
            r.planned_end_s > view.now
                && self
                    .assumed
                    .binary_search_by_key(&r.index, |a| a.0)
                    .is_ok_and(|i| self.assumed[i].1 == r.planned_end_s)
        })
    }

    /// Places `slot`'s job in `plan`: started now (returns true) or reserved.
    fn place(&mut self, plan: &mut Profile, queue: &Queue, slot: usize, now: f64) -> bool {
        let job = queue.job(slot);
        // Every queued job fits the platform (the simulation drops larger ones), and the
        // plan frees every unit once running jobs end, so a step always fits.
        let Some(step) = plan.earliest_fit(job.size, job.request_s) else {
            return false;
        };
        plan.reserve(step, job.size, job.request_s);
        if step == 0 {
            self.assumed.push((job.index, now + job.request_s));
            true
        } else {
            let date = plan.steps()[step].0;
            self.reserved.insert(job.index, date);
            self.earliest = self.earliest.min(date);
            false
        }
    }

    /// The decision from the kept plan: only the jobs that arrived since are placed.
    fn decide_on_kept_plan(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        let queue = view.queue;
        let mut plan = self.plan.take().expect("plan_holds checked it");
        plan.advance(view.now);
        let mut started = Vec::new();
        for slot in self.seen..queue.joined() {
            if self.place(&mut plan, queue, slot, view.now) {
                started.push(slot);
            }
        }
        self.assumed.sort_unstable_by_key(|a| a.0);
        self.seen = queue.joined();
        self.plan = Some(plan);
        started
            .into_iter()
            .map(|s| queue.position(s).expect("a job that just joined is queued"))
            .collect()
    }
}

impl BatchPolicy for Conservative {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        if self.plan_holds(view) {
            return self.decide_on_kept_plan(view);
        }
        let queue = view.queue;
        let releases = planned_releases(view, &[]);
        let mut plan = Profile::new(view.now, view.free, releases.iter().map(|r| (r.0, r.1)));
        // Jobs with a reservation, by its date then queue position; then the new ones.
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
            // Every queued job fits the platform (the simulation drops larger ones), but the
            // plan holds only the units up now: a job larger than those gets no reservation
            // until a host comes back.
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
        self.earliest = reserved.values().copied().fold(f64::INFINITY, f64::min);
        self.reserved = reserved;
        self.assumed = view
            .running
            .iter()
            .map(|r| (r.index, r.planned_end_s))
            .chain(picks.iter().map(|&p| (queue[p].index, view.now + queue[p].request_s)))
            .collect();
        self.assumed.sort_unstable_by_key(|a| a.0);
        self.plan = Some(plan);
        self.seen = queue.joined();
        self.epoch = queue.epoch();
        self.up = view.up;
        picks
    }
}

/// The registry entry: `conservative`, no parameter.
pub const ENTRY: Entry<dyn BatchPolicy> = Entry {
    info: PolicyInfo {
        name: "conservative",
        description: "conservative backfilling: every queued job holds a reservation, a job jumps ahead only if it delays none; compressed when a job ends early",
        params: &[],
    },
    build: |_| Ok(Box::new(Conservative::default())),
};

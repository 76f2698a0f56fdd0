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

use std::collections::BTreeMap;

use super::policy::{planned_releases, BatchPolicy, BatchView};
use super::profile::Profile;
use crate::registry::{Entry, PolicyInfo};

/// Conservative backfilling; keeps each queued job's reservation between decisions.
#[derive(Clone, Debug, Default)]
pub struct Conservative {
    /// Reserved start date by job index.
    reserved: BTreeMap<usize, f64>,
}

impl Conservative {
    /// The reservations held after the last decision, `(job index, date)`, by job index.
    pub fn reservations(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.reserved.iter().map(|(&k, &v)| (k, v))
    }
}

impl BatchPolicy for Conservative {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
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
        self.reserved = reserved;
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

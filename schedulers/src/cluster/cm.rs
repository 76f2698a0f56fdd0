//! CM: Zhang, Qu, Zhang & Cao's CPU-memory policy (the paper's [27], as §5 summarises it). If the
//! job would overcommit its home node's memory (`load_MEM + r_MEM > n_MEM`: the node would page),
//! it goes to the node with the least memory load; otherwise, if the home node's CPU is
//! imbalanced, to the node with the fewest jobs; otherwise it stays home.
//!
//! Reading taken (the paper gives no thresholds): CPU is imbalanced when the home node would
//! hold at least `cpu_threshold` jobs (default 4, Zhang et al.'s CPU threshold) and another node
//! holds fewer. A move happens only to a node that is strictly less loaded than home, and, with
//! `eligibility` on (the default, §3's rule for every scheme), only if eq. 4.6 expects the job
//! to gain ([`worth_migrating`]).

use rand_chacha::ChaCha8Rng;

use super::balancer::{argmin_random, worth_migrating, ClusterView, LoadBalancer};
use super::load::JobLoad;
use super::balancer::ELIGIBILITY;
use super::registry::Built;
use crate::registry::{Entry, Param, PolicyInfo};

/// CPU-memory load sharing.
#[derive(Clone, Debug)]
pub struct Cm {
    /// Jobs on the home node (the new one counted) from which CPU load is shared.
    pub cpu_threshold: usize,
    /// Migrate only when eq. 4.6 expects the job to gain.
    pub eligibility: bool,
}

impl Cm {
    fn allowed(&self, view: &ClusterView<'_>, job: &JobLoad, home: usize, dest: usize) -> bool {
        !self.eligibility || worth_migrating(view, job, home, dest)
    }
}

impl LoadBalancer for Cm {
    fn place(&mut self, view: &ClusterView<'_>, job: &JobLoad, home: usize, rng: &mut ChaCha8Rng) -> usize {
        let n = view.nodes.len();
        let loads: Vec<_> = (0..n).map(|i| view.load(i, None)).collect();
        let home_load = &loads[home];
        if home_load.memory_bytes + job.memory_bytes > home_load.user_memory_bytes {
            let best = argmin_random(n, |i| loads[i].memory_bytes, rng).unwrap_or(home);
            if loads[best].memory_bytes < home_load.memory_bytes && self.allowed(view, job, home, best) {
                return best;
            }
            return home;
        }
        if home_load.jobs + 1 >= self.cpu_threshold {
            let best = argmin_random(n, |i| loads[i].jobs as f64, rng).unwrap_or(home);
            if loads[best].jobs < home_load.jobs && self.allowed(view, job, home, best) {
                return best;
            }
        }
        home
    }
}

/// The registry entry: `cm`, parameters `cpu_threshold` and `eligibility`.
pub const ENTRY: Entry<Built> = Entry {
    info: PolicyInfo {
        name: "cm",
        description: "CPU-memory (Zhang et al.): least memory load if home would page, else fewest jobs",
        params: &[
            Param::integer("cpu_threshold", "jobs on the home node from which CPU load is shared", "4", 1.0)
                .at_most(1e6)
                .in_unit("jobs"),
            ELIGIBILITY,
        ],
    },
    build: |v| {
        Ok(Built::placement(Box::new(Cm {
            cpu_threshold: v.integer("cpu_threshold")? as usize,
            eligibility: v.flag("eligibility")?,
        })))
    },
};

//! IO: the I/O-based policy (§5, after Lee et al. [11]): a newly arrived job goes to the node
//! with the least accumulated explicit I/O load `Σ λ_v (1 − h_v)` (eq. 4.4); the home node wins
//! ties with others, other ties are broken at random. With `eligibility` on (the default, §3's
//! rule for every scheme) the move must also pass eq. 4.6 ([`worth_migrating`]); off, IO moves
//! greedily.

use rand_chacha::ChaCha8Rng;

use super::balancer::{argmin_random, worth_migrating, ClusterView, LoadBalancer};
use super::load::JobLoad;
use super::balancer::ELIGIBILITY;
use super::registry::Built;
use crate::registry::{Entry, PolicyInfo};

/// Least explicit I/O load.
#[derive(Clone, Debug, Default)]
pub struct IoPolicy {
    /// Migrate only when eq. 4.6 expects the job to gain.
    pub eligibility: bool,
}

impl LoadBalancer for IoPolicy {
    fn place(&mut self, view: &ClusterView<'_>, job: &JobLoad, home: usize, rng: &mut ChaCha8Rng) -> usize {
        let loads: Vec<f64> = (0..view.nodes.len()).map(|i| view.load(i, None).explicit_io).collect();
        if loads.iter().all(|&l| l >= loads[home]) {
            return home;
        }
        let best = argmin_random(loads.len(), |i| loads[i], rng).unwrap_or(home);
        if self.eligibility && !worth_migrating(view, job, home, best) {
            return home;
        }
        best
    }
}

/// The registry entry: `io`, parameter `eligibility`.
pub const ENTRY: Entry<Built> = Entry {
    info: PolicyInfo {
        name: "io",
        description: "least accumulated explicit I/O load (eq. 4.4)",
        params: &[ELIGIBILITY],
    },
    build: |v| {
        Ok(Built::placement(Box::new(IoPolicy {
            eligibility: v.flag("eligibility")?,
        })))
    },
};

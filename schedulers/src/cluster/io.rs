//! IO: the I/O-based policy (§5, after Lee et al. [11]): a newly arrived job goes to the node
//! with the least accumulated explicit I/O load `Σ λ_v (1 − h_v)` (eq. 4.4); the home node wins
//! ties with others, other ties are broken at random.

use rand_chacha::ChaCha8Rng;

use super::balancer::{argmin_random, ClusterView, LoadBalancer};
use super::load::JobLoad;

/// Least explicit I/O load.
#[derive(Clone, Debug, Default)]
pub struct IoPolicy;

impl LoadBalancer for IoPolicy {
    fn place(&mut self, view: &ClusterView<'_>, _: &JobLoad, home: usize, rng: &mut ChaCha8Rng) -> usize {
        let loads: Vec<f64> = (0..view.nodes.len()).map(|i| view.load(i, None).explicit_io).collect();
        if loads.iter().all(|&l| l >= loads[home]) {
            return home;
        }
        argmin_random(loads.len(), |i| loads[i], rng).unwrap_or(home)
    }
}

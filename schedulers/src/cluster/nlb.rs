//! NLB: no load balancing; every job runs where it arrives (§5).

use rand_chacha::ChaCha8Rng;

use super::balancer::{ClusterView, LoadBalancer};
use super::load::JobLoad;
use super::registry::Built;
use crate::registry::{Entry, PolicyInfo};

/// Runs every job on its home node.
#[derive(Clone, Debug, Default)]
pub struct Nlb;

impl LoadBalancer for Nlb {
    fn place(&mut self, _: &ClusterView<'_>, _: &JobLoad, home: usize, _: &mut ChaCha8Rng) -> usize {
        home
    }
}

/// The registry entry: `nlb`, no parameter.
pub const ENTRY: Entry<Built> = Entry {
    info: PolicyInfo {
        name: "nlb",
        description: "no load balancing: every job runs where it arrives",
        params: &[],
    },
    build: |_| Ok(Built::placement(Box::new(Nlb))),
};

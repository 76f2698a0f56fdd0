//! The policy traits: a [`LoadBalancer`] places each newly arrived job; a
//! [`FeedbackController`] turns each completed job's slowdown into a control action.

use rand_chacha::ChaCha8Rng;

use super::config::ClusterConfig;
use super::load::{migration_cost, node_load, response_time, JobLoad, NodeLoad};

/// What a policy sees of the cluster when a job arrives: every node's jobs (without the new
/// one), the current buffer size and I/O weight. Read-only.
pub struct ClusterView<'a> {
    /// Model parameters.
    pub config: &'a ClusterConfig,
    /// The jobs on each node (running, blocked on I/O, or arriving by remote execution).
    pub nodes: &'a [Vec<JobLoad>],
    /// Every node's I/O buffer, bytes (identical on all nodes, as in the paper).
    pub buffer_bytes: f64,
    /// Network bandwidth between two nodes, bytes/s (`b_net` of eq. 4.7).
    pub net_bytes_per_s: f64,
    /// `W_IO` of eq. 4.1 (`W_CPU = 1 − W_IO`).
    pub w_io: f64,
    /// Each node's measured disk request rate, per second, when eq. 4.5 reads `Λ_disk` as
    /// measured (`disk_arrival_rate = "measured"`).
    pub measured_disk_rates: Option<&'a [f64]>,
}

impl ClusterView<'_> {
    /// Node `i`'s load, with `job` added when given.
    pub fn load(&self, i: usize, job: Option<&JobLoad>) -> NodeLoad {
        NodeLoad {
            measured_disk_rate: self.measured_disk_rates.map(|rates| rates[i]),
            ..node_load(self.config, self.nodes[i].iter().chain(job), self.buffer_bytes)
        }
    }
}

/// Places newly arrived jobs.
pub trait LoadBalancer: Send {
    /// The node `job`, arrived at `home`, runs on (`home` for local execution). `rng` is the
    /// run's scheduler stream, for tie-breaking.
    fn place(&mut self, view: &ClusterView<'_>, job: &JobLoad, home: usize, rng: &mut ChaCha8Rng) -> usize;
}

/// A control action: how to move `W_IO` and the buffer size.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ControlAction {
    /// `ΔW_IO` (eq. 4.9).
    pub delta_w_io: f64,
    /// `Δbufsize` (eq. 4.13), bytes.
    pub delta_buffer_bytes: f64,
}

/// Adjusts the policy's parameters from completed jobs' slowdowns.
pub trait FeedbackController: Send {
    /// Called when a job completes with `slowdown`.
    fn on_completion(&mut self, slowdown: f64) -> ControlAction;
}

/// Whether CM and IO migrate only when eq. 4.6 expects a gain (§3's rule for all schemes).
pub const ELIGIBILITY: crate::registry::Param = crate::registry::Param::flag(
    "eligibility",
    "1: migrate only if eq. 4.6 expects a gain (§3's rule for all schemes); 0: greedy",
    "1",
);

/// Eq. 4.6: whether running `job` on `dest` instead of `home` is expected to pay, i.e.
/// `r(home, u) > r(dest, u) + c_u`, with `r` the M/G/1 response time of eq. 4.5 (`u` counted on
/// each node) and `c_u` the migration cost of eq. 4.7. §3 states the rule for every
/// load-balancing scheme ("transferring a job only if ... greater than the load of the newly
/// arrived job plus the migration cost"); WAL applies it always, CM and IO when their
/// `eligibility` parameter says so.
pub fn worth_migrating(view: &ClusterView<'_>, job: &JobLoad, home: usize, dest: usize) -> bool {
    if dest == home {
        return false;
    }
    let r_home = response_time(&view.load(home, Some(job)), job);
    let r_dest = response_time(&view.load(dest, Some(job)), job);
    let cost = migration_cost(view.config, job.data_bytes, view.net_bytes_per_s);
    r_home > r_dest + cost
}

/// The node with the smallest `key` (ties broken uniformly at random); `None` when `n == 0`.
pub fn argmin_random(n: usize, key: impl Fn(usize) -> f64, rng: &mut ChaCha8Rng) -> Option<usize> {
    use rand::Rng;
    let best = (0..n).map(&key).fold(f64::INFINITY, f64::min);
    let ties: Vec<usize> = (0..n).filter(|&i| key(i) == best).collect();
    match ties.len() {
        0 => None,
        1 => Some(ties[0]),
        k => Some(ties[rng.gen_range(0..k)]),
    }
}

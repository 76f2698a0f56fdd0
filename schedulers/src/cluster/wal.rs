//! WAL: the weighted average load-balancing scheme (§4.1), five steps for a job `u` arriving at
//! node `i`:
//!
//! 1. `u` is counted on `i`; every node's load index is eq. 4.1,
//!    `load = W_CPU load_CPU + W_IO load_IO`, with `load_IO` of eqs. 4.2–4.4;
//! 2. `i` is overloaded if its load is the highest and `load(i) / mean load > threshold`
//!    (1.25, the paper's optimum of a 1.0–2.0 sweep; a parameter);
//! 3. the candidate `j` is the node with the lowest load (ties broken at random);
//! 4. `u` is eligible if `r(i,u) > r(j,u) + c_u` (eq. 4.6), with `r` the M/G/1 response time of
//!    eq. 4.5 (`u` counted on each node) and `c_u` the migration cost of eq. 4.7;
//! 5. then `u` runs on `j`, else on `i`.
//!
//! `W_IO` comes from the view: fixed for WAL, moved by the feedback controller for WAL-FC.

use rand_chacha::ChaCha8Rng;

use super::balancer::{argmin_random, worth_migrating, ClusterView, LoadBalancer};
use super::load::JobLoad;
use super::controller::SlowdownController;
use super::registry::Built;
use crate::registry::{Entry, Param, ParamError, PolicyInfo, Values};

/// Weighted average load balancing.
#[derive(Clone, Debug)]
pub struct Wal {
    /// Overload threshold on `load(i) / mean load` (paper: 1.25).
    pub threshold: f64,
}

impl LoadBalancer for Wal {
    fn place(&mut self, view: &ClusterView<'_>, job: &JobLoad, home: usize, rng: &mut ChaCha8Rng) -> usize {
        let n = view.nodes.len();
        if n < 2 {
            return home;
        }
        // Step 1: the job is counted on its home node.
        let loads: Vec<_> = (0..n).map(|k| view.load(k, (k == home).then_some(job))).collect();
        let index: Vec<f64> = loads.iter().map(|l| l.index(view.w_io, view.config.rate_unit_s)).collect();
        // Step 2: overloaded?
        let mean = index.iter().sum::<f64>() / n as f64;
        let highest = index.iter().all(|&x| x <= index[home]);
        if !(highest && mean > 0.0 && index[home] / mean > self.threshold) {
            return home;
        }
        // Step 3: the lightest node.
        let Some(j) = argmin_random(n, |k| if k == home { f64::INFINITY } else { index[k] }, rng) else {
            return home;
        };
        // Step 4: eligible?
        if worth_migrating(view, job, home, j) {
            j
        } else {
            home
        }
    }
}

/// WAL's overload threshold (§4.1).
const THRESHOLD: Param = Param::real("threshold", "overload threshold on load / mean load (§4.1)", "1.25", 0.0).at_most(1e6);

/// The initial I/O weight of eq. 4.1; its default is also the weight every other policy's view
/// carries ([`Built::placement`]).
pub const W_IO: Param =
    Param::real("w_io", "initial I/O weight W_IO of eq. 4.1 (W_CPU = 1 − W_IO)", "0.5", 0.0).at_most(1.0);

/// The registry entry of WAL: fixed `W_IO` and buffer.
pub const WAL: Entry<Built> = Entry {
    info: PolicyInfo {
        name: "wal",
        description: "weighted average load (eqs. 4.1-4.7), fixed W_IO and buffer",
        params: &[THRESHOLD, W_IO],
    },
    build: |v| {
        Ok(Box::new(Built {
            balancer: wal(v)?,
            controller: None,
            w_io: v.real("w_io")?,
        }))
    },
};

/// The registry entry of WAL-FC: WAL with the feedback controller of eqs. 4.9-4.13.
pub const WAL_FC: Entry<Built> = Entry {
    info: PolicyInfo {
        name: "wal-fc",
        description: "WAL with the feedback controller of eqs. 4.9-4.13 moving W_IO and the buffer",
        params: &[
            THRESHOLD,
            W_IO,
            Param::real("gain_w", "G_w of eq. 4.9", "0.5", 0.0).at_most(1e6),
            Param::real("gain_buffer_mb", "G_b of eq. 4.13, MB of buffer per unit of slowdown", "0.5", 0.0)
                .at_most(1e9)
                .in_unit("MB"),
            Param::integer("history", "slowdowns averaged by the controller", "50", 1.0)
                .at_most(1e6)
                .in_unit("jobs"),
        ],
    },
    build: |v| {
        Ok(Box::new(Built {
            balancer: wal(v)?,
            controller: Some(Box::new(SlowdownController::new(
                v.real("gain_w")?,
                v.real("gain_buffer_mb")? * 1e6,
                v.integer("history")? as usize,
            ))),
            w_io: v.real("w_io")?,
        }))
    },
};

fn wal(v: &Values<'_>) -> Result<Box<dyn LoadBalancer>, ParamError> {
    Ok(Box::new(Wal {
        threshold: v.real("threshold")?,
    }))
}

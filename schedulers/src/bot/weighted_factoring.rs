//! Weighted factoring (Hummel, Schmidt, Uma & Wein, SPAA 1996) and adaptive weighted factoring
//! (Banicescu, Velusamy & Devaprasad, Cluster Computing 6, 2003).
//!
//! Like factoring, tasks go out in batches of `P` answers, and a batch hands out `R_batch / α`
//! tasks in all; but worker `i`'s chunk is proportional to its weight:
//! `ceil(R_batch / α · w_i / Σ_j w_j)`, clipped to what remains. GSS and FAC2 give equal chunks,
//! so on a heterogeneous grid a slow host may get a chunk it finishes long after the others; the
//! weights fix that.
//!
//! * Weighted factoring: `w_i` = the host's peak speed (static knowledge of the platform).
//! * Adaptive weighted factoring: `w_i` = the worker's measured rate (tasks per second of
//!   computing, over all its reported chunks), re-estimated at the start of every batch; a
//!   worker that has not reported yet gets the mean of the measured rates (all equal at first).

use super::{Assignment, ChunkPolicy, MasterView, Request};
use crate::registry::{Entry, Param, PolicyInfo};

/// Where the weights come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weights {
    /// Peak speeds of the hosts.
    Static,
    /// Measured rates, re-estimated every batch.
    Adaptive,
}

/// (Adaptive) weighted factoring.
#[derive(Clone, Debug)]
pub struct WeightedFactoring {
    alpha: f64,
    mode: Weights,
    batch_tasks: f64,
    left_in_batch: usize,
    weights: Vec<f64>,
    /// Per worker: (tasks computed, seconds computing).
    measured: Vec<(f64, f64)>,
}

impl WeightedFactoring {
    /// Weighted factoring with ratio `alpha` and the given weight source.
    pub fn new(alpha: f64, mode: Weights) -> WeightedFactoring {
        WeightedFactoring {
            alpha: alpha.max(1.0),
            mode,
            batch_tasks: 0.0,
            left_in_batch: 0,
            weights: Vec::new(),
            measured: Vec::new(),
        }
    }

    fn start_batch(&mut self, view: &MasterView<'_>) {
        let p = view.workers.max(1);
        self.batch_tasks = view.remaining as f64 / self.alpha;
        self.left_in_batch = p;
        self.weights = match self.mode {
            Weights::Static => view.worker_speeds.to_vec(),
            Weights::Adaptive => {
                let rates: Vec<Option<f64>> = (0..p)
                    .map(|i| match self.measured.get(i) {
                        Some(&(tasks, secs)) if secs > 0.0 => Some(tasks / secs),
                        _ => None,
                    })
                    .collect();
                let known: Vec<f64> = rates.iter().flatten().copied().collect();
                let fallback = if known.is_empty() {
                    1.0
                } else {
                    known.iter().sum::<f64>() / known.len() as f64
                };
                rates.into_iter().map(|r| r.unwrap_or(fallback)).collect()
            }
        };
    }
}

impl ChunkPolicy for WeightedFactoring {
    fn assign(&mut self, view: &MasterView<'_>, request: &Request) -> Assignment {
        if self.measured.len() < view.workers {
            self.measured.resize(view.workers, (0.0, 0.0));
        }
        if let Some(report) = request.last {
            let entry = &mut self.measured[request.worker];
            entry.0 += report.size as f64;
            entry.1 += report.exec_time;
        }
        if self.left_in_batch == 0 {
            self.start_batch(view);
        }
        self.left_in_batch -= 1;
        let total: f64 = self.weights.iter().sum();
        let share = self.weights.get(request.worker).copied().unwrap_or(0.0) / total;
        let size = ((self.batch_tasks * share).ceil() as u64).max(1);
        Assignment::tasks(size.min(view.remaining))
    }
}

/// The registry entry of weighted factoring: weights from the hosts' peak speeds.
pub const WF: Entry<dyn ChunkPolicy> = Entry {
    info: PolicyInfo {
        name: "wf",
        description: "weighted factoring: factoring batches split by host peak speed",
        params: &[Param::real("alpha", "batch divisor", "2", 1.0)],
    },
    build: |v| Ok(Box::new(WeightedFactoring::new(v.real("alpha")?, Weights::Static))),
};

/// The registry entry of adaptive weighted factoring: weights from the measured rates.
pub const AWF: Entry<dyn ChunkPolicy> = Entry {
    info: PolicyInfo {
        name: "awf",
        description: "adaptive weighted factoring: factoring batches split by measured rates",
        params: &[Param::real("alpha", "batch divisor", "2", 1.0)],
    },
    build: |v| Ok(Box::new(WeightedFactoring::new(v.real("alpha")?, Weights::Adaptive))),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::ChunkReport;

    fn view(remaining: u64, speeds: &[f64]) -> MasterView<'_> {
        MasterView {
            total: 1000,
            remaining,
            workers: speeds.len(),
            answers: 0,
            task_flops: 1.0,
            worker_speeds: speeds,
            now: 0.0,
        }
    }

    #[test]
    fn static_weights_split_the_batch_by_speed() {
        // R = 1000, α = 2: the batch hands out 500 tasks, split 3:1 between speeds 3 and 1.
        let speeds = [3.0, 1.0];
        let mut wf = WeightedFactoring::new(2.0, Weights::Static);
        let a = wf.assign(
            &view(1000, &speeds),
            &Request {
                worker: 0,
                last: None,
                proposal: None,
            },
        );
        let b = wf.assign(
            &view(625, &speeds),
            &Request {
                worker: 1,
                last: None,
                proposal: None,
            },
        );
        assert_eq!((a.size, b.size), (375, 125));
        // Next batch: R = 500 -> 250 tasks: 188 (ceil 187.5) for the fast one.
        let c = wf.assign(
            &view(500, &speeds),
            &Request {
                worker: 0,
                last: None,
                proposal: None,
            },
        );
        assert_eq!(c.size, 188);
    }

    #[test]
    fn adaptive_weights_follow_measured_rates() {
        let speeds = [1.0, 1.0];
        let mut awf = WeightedFactoring::new(2.0, Weights::Adaptive);
        let ask = |awf: &mut WeightedFactoring, remaining, worker, last: Option<(u64, f64)>| {
            let last = last.map(|(size, exec_time)| ChunkReport { size, exec_time });
            awf.assign(
                &view(remaining, &speeds),
                &Request {
                    worker,
                    last,
                    proposal: None,
                },
            )
            .size
        };
        // Batch 1, nothing measured: equal weights, 1000 / 2 / 2 = 250 each.
        assert_eq!(ask(&mut awf, 1000, 0, None), 250);
        assert_eq!(ask(&mut awf, 750, 1, None), 250);
        // Batch 2 starts on worker 1's report (250 tasks in 40 s = 6.25/s); worker 0 has no
        // measurement yet and gets the mean, 6.25: equal shares of 500 / 2 = 250 -> 125 each.
        assert_eq!(ask(&mut awf, 500, 1, Some((250, 40.0))), 125);
        assert_eq!(ask(&mut awf, 375, 0, Some((250, 10.0))), 125);
        // Batch 3 on worker 0's report (125 in 5 s): rates 375/15 = 25 vs 250/40 = 6.25, i.e. 4:1.
        // 250 / 2 = 125 tasks: worker 0 gets 0.8 · 125 = 100.
        assert_eq!(ask(&mut awf, 250, 0, Some((125, 5.0))), 100);
    }
}

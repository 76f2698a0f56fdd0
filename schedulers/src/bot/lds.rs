//! LDS, the Local Decision Scheduling algorithm (Ferreto, De Rose & Northfleet; section 3 and
//! Algorithms 1–2 of `shared/papers/lds-slave-oriented-bot-scheduling.md`).
//!
//! Each worker ("slave") keeps a prediction table of `(taskSize, execTime)` pairs and fits the
//! affine model `t = a + b · taskSize` by least squares (section 3.1); the fit's correlation
//! coefficient `r` tells whether the model is good enough. Three phases:
//!
//! 1. **Setup.** The master sends each worker chunks growing by a fixed quadratic increment —
//!    the worker's `j`-th chunk has `j²` tasks (1, 4, 9, ...) — until the worker signals that its
//!    model is good: at least `min_points` measurements and `r ≥ min_correlation`.
//! 2. **Adaptive** (Algorithms 1 and 2). With every chunk the master sends `maxExecTime`; the
//!    worker computes, records the measurement and proposes
//!    `nextTaskSize = max(1, floor((maxExecTime − a) / b))`, the size that takes `maxExecTime`;
//!    the master sends exactly that next time. `maxExecTime = T_seq / (β · P)` (section 4), where
//!    `T_seq` estimates the sequential time of all tasks; the paper uses β = 5 and 20.
//! 3. **Finalization** (Algorithm 1, line 4). As soon as `Σ_i taskSize_i ≥ remaining tasks`, the
//!    master stops using the proposals and switches to factoring (α = 2 by default) until the end.
//!
//! Readings of details the paper leaves open, each a named parameter or stated here:
//! * `T_seq = N · F / mean peak speed of the workers` (the paper says "the estimate of the total
//!   execution time to compute all tasks sequentially" without saying how it is estimated);
//! * `execTime` is the chunk's computing time as the worker measures it (Algorithm 2 measures
//!   "compute task"), so communication is not in the model;
//! * `taskSize_i` of a worker that is still in setup is its current setup chunk; before a
//!   worker's first request it is 1 (the first quadratic step);
//! * `min_correlation` = 0.99 and `min_points` = 3 by default (the paper says "minimum error").

use super::factoring::Factoring;
use super::{Assignment, ChunkPolicy, ChunkReport, MasterView, Request, WorkerHook};
use crate::registry::{Entry, Param, ParamError, PolicyInfo, Values};

/// LDS parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct LdsParams {
    /// β: `maxExecTime = T_seq / (β · P)`.
    pub beta: f64,
    /// Correlation the fit must reach to leave the setup phase.
    pub min_correlation: f64,
    /// Measurements needed before the fit is trusted (at least 2).
    pub min_points: usize,
    /// α of the factoring used in the finalization phase.
    pub final_alpha: f64,
}

impl Default for LdsParams {
    fn default() -> Self {
        LdsParams {
            beta: 5.0,
            min_correlation: 0.99,
            min_points: 3,
            final_alpha: 2.0,
        }
    }
}

/// An affine fit `t = a + b · size` with its correlation coefficient.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Intercept, seconds.
    pub a: f64,
    /// Slope, seconds per task.
    pub b: f64,
    /// Pearson correlation of the points.
    pub r: f64,
}

/// Least-squares fit of `(size, time)` points; `None` with fewer than two distinct sizes or
/// constant times (no correlation defined).
pub fn fit(points: &[(f64, f64)]) -> Option<Fit> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x / n, sy + y / n));
    let (sxx, sxy, syy) = points.iter().fold((0.0, 0.0, 0.0), |(sxx, sxy, syy), &(x, y)| {
        let (dx, dy) = (x - mx, y - my);
        (sxx + dx * dx, sxy + dx * dy, syy + dy * dy)
    });
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    let b = sxy / sxx;
    Some(Fit {
        a: my - b * mx,
        b,
        r: sxy / (sxx * syy).sqrt(),
    })
}

/// The worker side (Algorithm 2).
#[derive(Clone, Debug)]
pub struct LdsWorker {
    params: LdsParams,
    table: Vec<(f64, f64)>,
}

impl LdsWorker {
    /// A worker with an empty prediction table.
    pub fn new(params: LdsParams) -> LdsWorker {
        LdsWorker {
            params,
            table: Vec::new(),
        }
    }

    /// The current fit, if the model is good enough to leave the setup phase.
    pub fn trusted_fit(&self) -> Option<Fit> {
        if self.table.len() < self.params.min_points.max(2) {
            return None;
        }
        fit(&self.table).filter(|f| f.r >= self.params.min_correlation && f.b > 0.0)
    }
}

impl WorkerHook for LdsWorker {
    fn after_chunk(&mut self, report: &ChunkReport, max_exec_time: Option<f64>) -> Option<u64> {
        self.table.push((report.size as f64, report.exec_time));
        let fit = self.trusted_fit()?;
        let target = max_exec_time?;
        // The largest size predicted to fit in the slice; the tolerance keeps an exact fit's
        // rounding noise (12 - 1e-15) from losing a whole task.
        let size = (target - fit.a) / fit.b;
        Some((size * (1.0 + 1e-9)).floor().max(1.0) as u64)
    }
}

/// The master side (Algorithm 1).
#[derive(Clone, Debug)]
pub struct Lds {
    params: LdsParams,
    max_exec_time: Option<f64>,
    task_size: Vec<u64>,
    setup_step: Vec<u64>,
    finalization: Option<Factoring>,
}

/// Which phase the master is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Some worker may still be in setup or adaptive mode.
    Adaptive,
    /// Factoring until the end.
    Finalization,
}

impl Lds {
    /// LDS with these parameters.
    pub fn new(params: LdsParams) -> Lds {
        Lds {
            params,
            max_exec_time: None,
            task_size: Vec::new(),
            setup_step: Vec::new(),
            finalization: None,
        }
    }

    /// The master's phase.
    pub fn phase(&self) -> Phase {
        if self.finalization.is_some() {
            Phase::Finalization
        } else {
            Phase::Adaptive
        }
    }

    /// `maxExecTime`, once known.
    pub fn max_exec_time(&self) -> Option<f64> {
        self.max_exec_time
    }
}

impl ChunkPolicy for Lds {
    fn assign(&mut self, view: &MasterView<'_>, request: &Request) -> Assignment {
        let p = view.workers.max(1);
        let max_exec_time = *self.max_exec_time.get_or_insert_with(|| {
            let mean_speed = view.worker_speeds.iter().sum::<f64>() / view.worker_speeds.len().max(1) as f64;
            let sequential = view.total as f64 * view.task_flops / mean_speed;
            sequential / (self.params.beta * p as f64)
        });
        if let Some(factoring) = &mut self.finalization {
            return Assignment::tasks(factoring.next(view.remaining, p));
        }
        if self.task_size.len() < p {
            self.task_size.resize(p, 1);
            self.setup_step.resize(p, 0);
        }
        let i = request.worker;
        self.task_size[i] = match request.proposal {
            Some(size) => size.max(1),
            None => {
                self.setup_step[i] += 1;
                self.setup_step[i] * self.setup_step[i]
            }
        };
        if self.task_size.iter().sum::<u64>() >= view.remaining {
            let mut factoring = Factoring::new(self.params.final_alpha);
            let size = factoring.next(view.remaining, p);
            self.finalization = Some(factoring);
            return Assignment::tasks(size);
        }
        Assignment {
            size: self.task_size[i].min(view.remaining),
            max_exec_time: Some(max_exec_time),
        }
    }

    fn worker_hook(&self) -> Option<Box<dyn WorkerHook>> {
        Some(Box::new(LdsWorker::new(self.params.clone())))
    }
}

/// The registry entry: `lds`, the paper's parameters.
pub const ENTRY: Entry<dyn ChunkPolicy> = Entry {
    info: PolicyInfo {
        name: "lds",
        description: "LDS: worker-side affine model proposes chunk sizes (Ferreto et al.)",
        params: &[
            Param::real("beta", "maxExecTime = T_seq / (beta P)", "5", f64::MIN_POSITIVE),
            Param::real("min_correlation", "fit correlation to leave setup", "0.99", -1.0),
            Param::integer("min_points", "measurements before the fit is trusted", "3", 2.0),
            Param::real("final_alpha", "alpha of the finalization factoring", "2", 1.0),
        ],
    },
    build,
};

fn build(v: &Values<'_>) -> Result<Box<dyn ChunkPolicy>, ParamError> {
    Ok(Box::new(Lds::new(LdsParams {
        beta: v.real("beta")?,
        min_correlation: v.real("min_correlation")?,
        min_points: v.integer("min_points")? as usize,
        final_alpha: v.real("final_alpha")?,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_recovers_a_and_b_from_exact_data() {
        // t = 0.5 + 0.25 · size, exactly.
        let points: Vec<_> = [1.0, 4.0, 9.0, 16.0].iter().map(|&s| (s, 0.5 + 0.25 * s)).collect();
        let f = fit(&points).unwrap();
        assert!(
            (f.a - 0.5).abs() < 1e-12 && (f.b - 0.25).abs() < 1e-12 && (f.r - 1.0).abs() < 1e-12,
            "{f:?}"
        );
        assert!(fit(&points[..1]).is_none());
        assert!(fit(&[(2.0, 1.0), (2.0, 3.0)]).is_none());
    }

    #[test]
    fn proposed_size_hits_max_exec_time_on_a_host_of_known_speed() {
        // A 100 Mflop/s host, tasks of 500 Mflop: 5 s per task, no intercept. maxExecTime = 60 s:
        // the proposal is 60 / 5 = 12 tasks, whose computing takes exactly maxExecTime.
        let mut worker = LdsWorker::new(LdsParams::default());
        let speed = 100e6;
        let mut proposal = None;
        for size in [1u64, 4, 9] {
            let exec_time = size as f64 * 500e6 / speed;
            proposal = worker.after_chunk(&ChunkReport { size, exec_time }, Some(60.0));
        }
        let size = proposal.expect("three exact points pass the correlation test");
        assert_eq!(size, 12);
        assert!((size as f64 * 500e6 / speed - 60.0).abs() < 1e-9);
    }

    #[test]
    fn setup_lasts_until_min_points_and_correlation() {
        let mut worker = LdsWorker::new(LdsParams::default());
        // Two points: never trusted (min_points = 3), even though r = 1.
        assert_eq!(
            worker.after_chunk(
                &ChunkReport {
                    size: 1,
                    exec_time: 1.0
                },
                Some(10.0)
            ),
            None
        );
        assert_eq!(
            worker.after_chunk(
                &ChunkReport {
                    size: 4,
                    exec_time: 4.0
                },
                Some(10.0)
            ),
            None
        );
        // A noisy third point: r = 0.19 < 0.99, still in setup.
        assert_eq!(
            worker.after_chunk(
                &ChunkReport {
                    size: 9,
                    exec_time: 2.0
                },
                Some(10.0)
            ),
            None
        );
        // Points on a line again bring r above 0.99.
        for size in [16u64, 25, 36, 49] {
            worker.after_chunk(
                &ChunkReport {
                    size,
                    exec_time: size as f64,
                },
                Some(10.0),
            );
        }
        assert!(worker.trusted_fit().is_some());
    }

    fn view(total: u64, remaining: u64, speeds: &[f64]) -> MasterView<'_> {
        MasterView {
            total,
            remaining,
            workers: speeds.len(),
            answers: 0,
            task_flops: 1e9,
            worker_speeds: speeds,
            now: 0.0,
        }
    }

    #[test]
    fn master_setup_is_quadratic_then_follows_proposals_then_factoring() {
        // Two workers at 1 Gflop/s, N = 1000 tasks of 1 Gflop: T_seq = 1000 s, β = 5:
        // maxExecTime = 1000 / (5 · 2) = 100 s.
        let speeds = [1e9, 1e9];
        let mut lds = Lds::new(LdsParams::default());
        let setup = |lds: &mut Lds, remaining, worker| {
            lds.assign(
                &view(1000, remaining, &speeds),
                &Request {
                    worker,
                    last: None,
                    proposal: None,
                },
            )
        };
        let first = setup(&mut lds, 1000, 0);
        assert_eq!(first.size, 1);
        assert_eq!(first.max_exec_time, Some(100.0));
        assert_eq!(setup(&mut lds, 999, 0).size, 4);
        assert_eq!(setup(&mut lds, 995, 0).size, 9);
        assert_eq!(setup(&mut lds, 986, 1).size, 1);
        // Worker 0 proposes 100 tasks: sent as is (sum 100 + 1 < remaining).
        let adaptive = lds.assign(
            &view(1000, 985, &speeds),
            &Request {
                worker: 0,
                last: None,
                proposal: Some(100),
            },
        );
        assert_eq!(adaptive.size, 100);
        assert_eq!(lds.phase(), Phase::Adaptive);
        // Proposals summing to at least what remains switch to factoring: 100 + 150 >= 250,
        // FAC2 gives ceil(250 / 4) = 63.
        let last = lds.assign(
            &view(1000, 250, &speeds),
            &Request {
                worker: 1,
                last: None,
                proposal: Some(150),
            },
        );
        assert_eq!(lds.phase(), Phase::Finalization);
        assert_eq!(last.size, 63);
        assert_eq!(last.max_exec_time, None);
    }
}

//! The Lublin–Feitelson model of rigid parallel jobs: sizes, run times and arrivals drawn from
//! named random streams, returned as [`Job`]s that a batch simulation replays like a log's.
//!
//! Source: U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling
//! the characteristics of rigid jobs", J. Parallel and Distributed Computing 63(11),
//! pp. 1105–1122, 2003; and its reference generator `m_lublin99.c`, published by the authors on
//! the Parallel Workloads Archive's models page, whose comments define each distribution and
//! whose constants are the fitted values used here as defaults. gridsim uses the model's
//! "whole sample" parameter set (jobs not split into batch and interactive; see *Left out*).
//!
//! | quantity | distribution | parameters (default) |
//! |---|---|---|
//! | size | 1 with probability `serial_prob`; else `2^x`, `x` two-stage uniform, rounded to a whole power of two with probability `pow2_prob` | `serial_prob` 0.244, `pow2_prob` 0.576, `size_log_low` 0.8, `size_log_med` log2(`max_size`) − 2.5, `size_log_high` log2(`max_size`), `size_low_prob` 0.86 |
//! | run time | `e^h`, `h` hyper-gamma: Gamma(a1, b1) with probability `p = pa·size + pb` (held in [0, 1]), else Gamma(a2, b2); redrawn while `h > runtime_log_max` | a1 4.2, b1 0.94, a2 312, b2 0.03, pa −0.0054, pb 0.78, `runtime_log_max` 12 |
//! | inter-arrival time | `e^g`, `g` ~ Gamma(shape, scale), redrawn while `g > arrival_log_max` | shape 10.2303 × 1.0225, scale 0.4871, `arrival_log_max` 13 |
//!
//! Gamma(a, b) has shape `a` and scale `b`: mean `a b`, variance `a b²`.
//!
//! # Job size
//!
//! A job is serial with probability `serial_prob`. Otherwise `x = log2(size)` is drawn from a
//! two-stage uniform distribution: uniform on `[size_log_low, size_log_med]` with probability
//! `size_low_prob`, else uniform on `[size_log_med, size_log_high]`, so that
//! `E[x] = (size_low_prob · low + med + (1 − size_low_prob) · high) / 2` (the formula of the
//! reference generator's comments). One uniform `u` decides the kind: `u < serial_prob` serial,
//! `u < serial_prob + pow2_prob` a parallel job whose `x` is rounded to the nearest whole number
//! (a power-of-two size), else a parallel job of size `round(2^x)`. So `pow2_prob` is a
//! fraction of all jobs, as in the reference generator, and `serial_prob + pow2_prob ≤ 1`.
//! `size_log_high = log2(max_size)`: the model's upper end is the machine's size (the reference
//! fits 128 nodes, `Uhi = 7`), and a size is never above `max_size`. The model advises
//! `Umed = Uhi − 2.5` (its fitted 4.5 for 128 nodes), the default here for any machine; a
//! machine of fewer than `2^3.3` units must set `size_log_med` itself.
//!
//! # Run time
//!
//! The logarithm (natural) of the run time in seconds is hyper-gamma: a mixture of two gammas,
//! the first with probability `p`, so `E[h] = p a1 b1 + (1 − p) a2 b2`. The mixing probability
//! falls linearly with the job's size, `p = pa · size + pb` (the size in units, as the
//! reference generator computes it), held in `[0, 1]`: larger jobs more often draw from the
//! second, longer gamma, which is the model's correlation between size and run time. A draw
//! above `runtime_log_max` (12: e¹² s ≈ 45 h, the reference's "no more than two days") is
//! redrawn, so run times lie in `[1 s, e^runtime_log_max s]`. Run times are not truncated to
//! whole seconds (the reference prints integers).
//!
//! # Arrivals
//!
//! The logarithm of the time between two arrivals is Gamma(`arrival_shape`, `arrival_scale`),
//! redrawn above `arrival_log_max` (13: e¹³ s ≈ 5 days). The model fits the gamma of the rush
//! hours' inter-arrival times (shape 10.2303, scale 0.4871) and multiplies the shape by 1.0225
//! (its "arrive-rush-all ratio") for arrivals over the whole day: the default shape is that
//! product, 10.46048175. The first job arrives at 0.
//!
//! # Left out
//!
//! - **The daily cycle.** The model also shapes arrivals over the day: 48 half-hour buckets
//!   weighted by a gamma density over the hours, through which the rush-hour gaps are spent.
//!   It is not implemented here: arrivals are the plain gamma above at every hour, and the
//!   batch family refuses `daily_cycle = true` rather than ignore it.
//! - **Batch and interactive jobs.** The reference can draw the two classes from their own
//!   parameters and interleave them; gridsim uses the whole-sample set, one class.
//! - **Requests.** The model has no user run-time estimates; [`RequestModel`] says how the
//!   request is made (equal to the run time by default).
//!
//! # Random streams
//!
//! Sizes, run times and arrivals each come from their own stream ([`SIZE_STREAM`],
//! [`RUNTIME_STREAM`], [`ARRIVAL_STREAM`]) of the run's seed, so changing the arrival
//! parameters never changes a job's size or run time. Gammas are drawn with `rand_distr`'s
//! `Gamma` (Marsaglia and Tsang), whose number of uniforms per draw varies: job `i`'s values are
//! the same for the same seed and parameters, not the `i`-th uniforms of their streams.
//!
//! ```
//! use traces::lublin::{Lublin, LublinParams, RequestModel};
//!
//! let model = Lublin::new(LublinParams::for_machine(128)).unwrap();
//! let jobs = model.jobs(42, 1000, RequestModel::Exact);
//! assert_eq!(jobs.len(), 1000);
//! assert!(jobs.iter().all(|j| (1..=128).contains(&j.procs)));
//! assert!(jobs.windows(2).all(|w| w[0].submit_s <= w[1].submit_s));
//! ```

use rand::Rng;
use rand_distr::{Distribution, Gamma};
use statrs::distribution::{ContinuousCDF, Gamma as GammaLaw};

use crate::job::Job;

/// The stream sizes are drawn from.
pub const SIZE_STREAM: &str = "workload.lublin.sizes";
/// The stream run times are drawn from.
pub const RUNTIME_STREAM: &str = "workload.lublin.runtimes";
/// The stream inter-arrival times are drawn from.
pub const ARRIVAL_STREAM: &str = "workload.lublin.arrivals";

/// The smallest probability a truncation bound may leave to a gamma it cuts, so that redrawing
/// above the bound ends after a few draws (1000 on average at worst).
const MIN_KEPT: f64 = 1e-3;

/// The reference generator's fitted values (its "whole sample" constants).
pub mod defaults {
    /// Fraction of serial jobs (`SERIAL_PROB`).
    pub const SERIAL_PROB: f64 = 0.244;
    /// Fraction of all jobs that are parallel with a power-of-two size (`POW2_PROB`).
    pub const POW2_PROB: f64 = 0.576;
    /// log2 of the smallest parallel size's stage (`ULOW`).
    pub const SIZE_LOG_LOW: f64 = 0.8;
    /// `Umed = Uhi − SIZE_LOG_MED_BELOW_HIGH`, the model's advice (fitted: 4.5 for `Uhi = 7`).
    pub const SIZE_LOG_MED_BELOW_HIGH: f64 = 2.5;
    /// Probability of the lower uniform stage (`UPROB`).
    pub const SIZE_LOW_PROB: f64 = 0.86;
    /// First gamma of ln(run time): shape (`A1`).
    pub const RUNTIME_A1: f64 = 4.2;
    /// First gamma of ln(run time): scale (`B1`).
    pub const RUNTIME_B1: f64 = 0.94;
    /// Second gamma of ln(run time): shape (`A2`).
    pub const RUNTIME_A2: f64 = 312.0;
    /// Second gamma of ln(run time): scale (`B2`).
    pub const RUNTIME_B2: f64 = 0.03;
    /// Slope of the first gamma's probability in the size (`PA`).
    pub const RUNTIME_PA: f64 = -0.0054;
    /// Intercept of the first gamma's probability (`PB`).
    pub const RUNTIME_PB: f64 = 0.78;
    /// Largest ln(run time / s) kept (`TOO_MUCH_TIME`).
    pub const RUNTIME_LOG_MAX: f64 = 12.0;
    /// Shape of the gamma of ln(inter-arrival / s): `AARR × ARAR` = 10.2303 × 1.0225.
    pub const ARRIVAL_SHAPE: f64 = 10.460_481_75;
    /// Scale of the gamma of ln(inter-arrival / s) (`BARR`).
    pub const ARRIVAL_SCALE: f64 = 0.4871;
    /// Largest ln(inter-arrival / s) kept (`TOO_MUCH_ARRIVE_TIME`).
    pub const ARRIVAL_LOG_MAX: f64 = 13.0;
}

/// A refused parameter: its name (the batch family's parameter of the same name) and why.
#[derive(Clone, Debug, PartialEq)]
pub struct LublinError {
    /// The parameter.
    pub param: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for LublinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.param, self.message)
    }
}

impl std::error::Error for LublinError {}

/// The model's parameters; field names are the batch family's parameter names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LublinParams {
    /// The machine's size in units: no job is larger; `size_log_high = log2(max_size)`.
    pub max_size: u32,
    /// Probability of a serial job.
    pub serial_prob: f64,
    /// Probability of a parallel job with a power-of-two size (of all jobs).
    pub pow2_prob: f64,
    /// Lower end of log2(size) of parallel jobs.
    pub size_log_low: f64,
    /// Where the two uniform stages of log2(size) meet.
    pub size_log_med: f64,
    /// Probability of the lower stage `[size_log_low, size_log_med]`.
    pub size_low_prob: f64,
    /// Shape of the first gamma of ln(run time).
    pub runtime_a1: f64,
    /// Scale of the first gamma of ln(run time).
    pub runtime_b1: f64,
    /// Shape of the second gamma of ln(run time).
    pub runtime_a2: f64,
    /// Scale of the second gamma of ln(run time).
    pub runtime_b2: f64,
    /// Slope of the first gamma's probability in the size, per unit.
    pub runtime_pa: f64,
    /// Intercept of the first gamma's probability.
    pub runtime_pb: f64,
    /// Largest ln(run time / s) kept; larger draws are redrawn.
    pub runtime_log_max: f64,
    /// Shape of the gamma of ln(inter-arrival time / s).
    pub arrival_shape: f64,
    /// Scale of the gamma of ln(inter-arrival time / s).
    pub arrival_scale: f64,
    /// Largest ln(inter-arrival time / s) kept; larger draws are redrawn.
    pub arrival_log_max: f64,
}

impl LublinParams {
    /// The reference generator's values for a machine of `max_size` units, with
    /// `size_log_med = log2(max_size) − 2.5`.
    pub fn for_machine(max_size: u32) -> LublinParams {
        use defaults::*;
        LublinParams {
            max_size,
            serial_prob: SERIAL_PROB,
            pow2_prob: POW2_PROB,
            size_log_low: SIZE_LOG_LOW,
            size_log_med: f64::from(max_size.max(1)).log2() - SIZE_LOG_MED_BELOW_HIGH,
            size_low_prob: SIZE_LOW_PROB,
            runtime_a1: RUNTIME_A1,
            runtime_b1: RUNTIME_B1,
            runtime_a2: RUNTIME_A2,
            runtime_b2: RUNTIME_B2,
            runtime_pa: RUNTIME_PA,
            runtime_pb: RUNTIME_PB,
            runtime_log_max: RUNTIME_LOG_MAX,
            arrival_shape: ARRIVAL_SHAPE,
            arrival_scale: ARRIVAL_SCALE,
            arrival_log_max: ARRIVAL_LOG_MAX,
        }
    }

    /// `log2(max_size)`, the upper end of the sizes' second stage.
    pub fn size_log_high(&self) -> f64 {
        f64::from(self.max_size).log2()
    }

    /// The first gamma's probability for a job of `size` units, `pa · size + pb` held in [0, 1].
    pub fn first_gamma_prob(&self, size: u32) -> f64 {
        (self.runtime_pa * f64::from(size) + self.runtime_pb).clamp(0.0, 1.0)
    }
}

/// How a job's request (its run-time estimate, where a resource manager kills it) is made: the
/// model has none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RequestModel {
    /// The request is the run time: a perfect estimate.
    Exact,
    /// The request is the run time times this factor (at least 1, so no job is killed).
    Factor(f64),
}

/// A validated model, ready to draw.
#[derive(Clone, Debug)]
pub struct Lublin {
    params: LublinParams,
    runtime1: Gamma<f64>,
    runtime2: Gamma<f64>,
    arrival: Gamma<f64>,
}

fn refuse(param: &'static str, message: String) -> Result<(), LublinError> {
    Err(LublinError { param, message })
}

fn probability(param: &'static str, x: f64) -> Result<(), LublinError> {
    if (0.0..=1.0).contains(&x) {
        Ok(())
    } else {
        refuse(param, format!("must be a probability from 0 to 1, got {x}"))
    }
}

/// A gamma of shape `shape` and scale `scale` (both finite and above 0, else refused naming
/// the two parameters), and the probability it leaves at or below `bound`.
fn gamma(
    shape: (&'static str, f64),
    scale: (&'static str, f64),
    bound: (&'static str, f64),
) -> Result<(Gamma<f64>, f64), LublinError> {
    for (name, x) in [shape, scale] {
        if !(x.is_finite() && x > 0.0) {
            refuse(name, format!("must be a finite number > 0, got {x}"))?;
        }
    }
    if !(bound.1.is_finite() && bound.1 > 0.0) {
        refuse(bound.0, format!("must be a finite number > 0, got {}", bound.1))?;
    }
    let draw = Gamma::new(shape.1, scale.1).map_err(|e| LublinError {
        param: shape.0,
        message: format!("is refused by the gamma law: {e}"),
    })?;
    let law = GammaLaw::new(shape.1, 1.0 / scale.1).map_err(|e| LublinError {
        param: scale.0,
        message: format!("is refused by the gamma law: {e}"),
    })?;
    Ok((draw, law.cdf(bound.1)))
}

impl Lublin {
    /// Checks `params` (each error names the parameter) and builds the model.
    pub fn new(params: LublinParams) -> Result<Lublin, LublinError> {
        let p = params;
        if p.max_size == 0 {
            refuse("max_size", "must be at least 1".into())?;
        }
        probability("serial_prob", p.serial_prob)?;
        probability("pow2_prob", p.pow2_prob)?;
        if p.serial_prob + p.pow2_prob > 1.0 {
            refuse(
                "pow2_prob",
                format!(
                    "is a fraction of all jobs, so serial_prob + pow2_prob must be at most 1, got {} + {}",
                    p.serial_prob, p.pow2_prob
                ),
            )?;
        }
        probability("size_low_prob", p.size_low_prob)?;
        let high = p.size_log_high();
        if !(p.size_log_low.is_finite() && (0.0..=high).contains(&p.size_log_low)) {
            refuse(
                "size_log_low",
                format!("must be from 0 to log2(max_size) = {high}, got {}", p.size_log_low),
            )?;
        }
        if !(p.size_log_med.is_finite() && (p.size_log_low..=high).contains(&p.size_log_med)) {
            refuse(
                "size_log_med",
                format!(
                    "must be from size_log_low = {} to log2(max_size) = {high}, got {} (the default \
                     log2(max_size) - 2.5 needs a machine of at least 2^3.3 units with the default \
                     size_log_low: set it for a smaller one)",
                    p.size_log_low, p.size_log_med
                ),
            )?;
        }
        for (name, x) in [("runtime_pa", p.runtime_pa), ("runtime_pb", p.runtime_pb)] {
            if !x.is_finite() {
                refuse(name, format!("must be a finite number, got {x}"))?;
            }
        }
        let bound = ("runtime_log_max", p.runtime_log_max);
        let (runtime1, kept1) = gamma(("runtime_a1", p.runtime_a1), ("runtime_b1", p.runtime_b1), bound)?;
        let (runtime2, kept2) = gamma(("runtime_a2", p.runtime_a2), ("runtime_b2", p.runtime_b2), bound)?;
        // The mixture keeps p·kept1 + (1 − p)·kept2, linear in p: check it at the smallest and
        // the largest size, the ends of p's range.
        for size in [1, p.max_size] {
            let q = p.first_gamma_prob(size);
            let kept = q * kept1 + (1.0 - q) * kept2;
            if kept.is_nan() || kept < MIN_KEPT {
                refuse(
                    "runtime_log_max",
                    format!(
                        "= {} keeps only {kept:e} of the run-time law of a job of {size} units: \
                         it must keep at least {MIN_KEPT}",
                        p.runtime_log_max
                    ),
                )?;
            }
        }
        let (arrival, kept) = gamma(
            ("arrival_shape", p.arrival_shape),
            ("arrival_scale", p.arrival_scale),
            ("arrival_log_max", p.arrival_log_max),
        )?;
        if kept.is_nan() || kept < MIN_KEPT {
            refuse(
                "arrival_log_max",
                format!(
                    "= {} keeps only {kept:e} of the inter-arrival law: it must keep at least {MIN_KEPT}",
                    p.arrival_log_max
                ),
            )?;
        }
        Ok(Lublin {
            params,
            runtime1,
            runtime2,
            arrival,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &LublinParams {
        &self.params
    }

    /// One draw of the two-stage uniform log2(size) of a parallel job (before any rounding).
    pub fn log_size<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let p = &self.params;
        let low_stage = rng.gen::<f64>() < p.size_low_prob;
        let v = rng.gen::<f64>();
        let (a, b) = if low_stage {
            (p.size_log_low, p.size_log_med)
        } else {
            (p.size_log_med, p.size_log_high())
        };
        a + v * (b - a)
    }

    /// One job size, in `[1, max_size]`.
    pub fn size<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        let p = &self.params;
        let u = rng.gen::<f64>();
        if u < p.serial_prob {
            return 1;
        }
        let mut x = self.log_size(rng);
        if u < p.serial_prob + p.pow2_prob {
            x = x.round();
        }
        // 2^x ≤ 2^log2(max_size) + rounding: within u32 for any u32 machine; the clamp holds a
        // power-of-two rounding above a machine that is not a power of two.
        (x.exp2().round() as u32).clamp(1, p.max_size)
    }

    /// One ln(run time / s) of a job of `size` units: hyper-gamma, redrawn above
    /// `runtime_log_max`.
    pub fn log_runtime<R: Rng + ?Sized>(&self, size: u32, rng: &mut R) -> f64 {
        let first = self.params.first_gamma_prob(size);
        let max = self.params.runtime_log_max;
        let mut h = max;
        // `new` checked that at least MIN_KEPT of the law lies below the bound: 10^6 tries fail
        // with probability below e^-1000; the bound itself stands in then.
        for _ in 0..1_000_000 {
            h = if rng.gen::<f64>() < first {
                self.runtime1.sample(rng)
            } else {
                self.runtime2.sample(rng)
            };
            if h <= max {
                return h;
            }
        }
        h.min(max)
    }

    /// One ln(inter-arrival time / s): gamma, redrawn above `arrival_log_max`.
    pub fn log_gap<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let max = self.params.arrival_log_max;
        let mut g = max;
        for _ in 0..1_000_000 {
            g = self.arrival.sample(rng);
            if g <= max {
                return g;
            }
        }
        g.min(max)
    }

    /// `n` jobs (ids `1..=n`) drawn with `seed`: sizes, run times and arrivals from their own
    /// streams (module docs), the first at 0, requests by `requests`.
    pub fn jobs(&self, seed: u64, n: usize, requests: RequestModel) -> Vec<Job> {
        let mut sizes = sim_core::rng::stream(seed, SIZE_STREAM);
        let mut runtimes = sim_core::rng::stream(seed, RUNTIME_STREAM);
        let mut arrivals = sim_core::rng::stream(seed, ARRIVAL_STREAM);
        let mut submit_s = 0.0f64;
        (0..n)
            .map(|i| {
                if i > 0 {
                    submit_s += self.log_gap(&mut arrivals).exp();
                }
                let size = self.size(&mut sizes);
                let runtime_s = self.log_runtime(size, &mut runtimes).exp();
                let requested_s = match requests {
                    RequestModel::Exact => runtime_s,
                    RequestModel::Factor(k) => runtime_s * k,
                };
                Job {
                    id: i as i64 + 1,
                    submit_s,
                    runtime_s,
                    procs: size,
                    requested_procs: None,
                    requested_s: Some(requested_s),
                    memory_kb: None,
                    user: None,
                    partial: false,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::distribution::ContinuousCDF;

    /// The sample checks of this module against closed forms: serial, size 2, two-stage mean,
    /// hyper-gamma at two sizes, arrival mean untruncated and truncated.
    const CHECKS: f64 = 7.0;

    /// The sample mean and the half-width of its confidence interval, z s / sqrt(n), with z
    /// such that the module's checks hold together with 95% confidence (Bonferroni: each
    /// two-sided at 1 - 0.05 / CHECKS, z = 2.69), so that a correct generator fails none of them
    /// for 95% of seeds.
    fn half_width(xs: &[f64]) -> (f64, f64) {
        use statrs::distribution::Normal;
        let z = Normal::new(0.0, 1.0).unwrap().inverse_cdf(1.0 - 0.05 / CHECKS / 2.0);
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, z * (var / n).sqrt())
    }

    fn assert_within(xs: &[f64], expected: f64, what: &str) {
        let (mean, h) = half_width(xs);
        assert!(
            (mean - expected).abs() <= h,
            "{what}: sample mean {mean} is not within {h} of the closed form {expected}"
        );
    }

    fn model(p: LublinParams) -> Lublin {
        Lublin::new(p).unwrap()
    }

    const N: usize = 1_000_000;

    #[test]
    fn the_fraction_of_serial_jobs_and_of_size_two_match_the_model() {
        let m = model(LublinParams::for_machine(128));
        let mut rng = sim_core::rng::stream(11, "test");
        let sizes: Vec<u32> = (0..N).map(|_| m.size(&mut rng)).collect();
        let indicator = |f: &dyn Fn(u32) -> bool| sizes.iter().map(|&s| f64::from(u8::from(f(s)))).collect::<Vec<_>>();
        // Serial with probability SERIAL_PROB = 0.244 (reference generator's constant).
        assert_within(&indicator(&|s| s == 1), 0.244, "fraction serial");
        // Size 2, from the model's definition with ULOW 0.8, UMED 7 - 2.5 = 4.5, UHI 7, UPROB 0.86:
        // a power-of-two job (0.576 of all) has size 2 when round(x) = 1, i.e. x in [0.8, 1.5),
        // only in the lower stage: 0.86 * 0.7 / 3.7. Another parallel job (1 - 0.244 - 0.576 =
        // 0.18) has size 2 when round(2^x) = 2, i.e. x in [log2 1.5, log2 2.5) ∩ [0.8, 4.5):
        // 0.86 * (log2 2.5 - 0.8) / 3.7.
        let expected = 0.576 * 0.86 * 0.7 / 3.7 + 0.18 * 0.86 * (2.5f64.log2() - 0.8) / 3.7;
        assert_within(&indicator(&|s| s == 2), expected, "fraction of size 2");
        assert!(sizes.iter().all(|&s| (1..=128).contains(&s)));
        assert!(sizes.contains(&128), "the largest size is reachable");
    }

    #[test]
    fn the_two_stage_uniform_has_the_references_mean() {
        let m = model(LublinParams::for_machine(128));
        let mut rng = sim_core::rng::stream(12, "test");
        let xs: Vec<f64> = (0..N).map(|_| m.log_size(&mut rng)).collect();
        // m_lublin99.c's comment: E(tsu) = (Uprob*Ulow + Umed + (1-Uprob)*Uhi)/2, with the
        // whole-sample constants 0.86, 0.8, 4.5 and Uhi = log2(128) = 7.
        let expected = (0.86 * 0.8 + 4.5 + (1.0 - 0.86) * 7.0) / 2.0;
        assert_within(&xs, expected, "mean log2 size of parallel jobs");
        assert!(xs.iter().all(|&x| (0.8..=7.0).contains(&x)));
    }

    #[test]
    fn the_hyper_gamma_mean_follows_the_size() {
        // A bound far above both gammas (Gamma(4.2, 0.94) and Gamma(312, 0.03) have means 3.948
        // and 9.36, standard deviations 1.93 and 0.53), so the untruncated closed form applies.
        let m = model(LublinParams {
            runtime_log_max: 1000.0,
            ..LublinParams::for_machine(128)
        });
        for (seed, size) in [(13, 1), (14, 64)] {
            let mut rng = sim_core::rng::stream(seed, "test");
            let hs: Vec<f64> = (0..N).map(|_| m.log_runtime(size, &mut rng)).collect();
            // m_lublin99.c's comment: E(hg) = p*a1*b1 + (1-p)*a2*b2, p = pa*nodes + pb, with the
            // whole-sample constants A1 4.2, B1 0.94, A2 312, B2 0.03, PA -0.0054, PB 0.78.
            let p = -0.0054 * f64::from(size) + 0.78;
            let expected = p * 4.2 * 0.94 + (1.0 - p) * 312.0 * 0.03;
            assert_within(&hs, expected, &format!("mean ln run time at size {size}"));
        }
    }

    #[test]
    fn inter_arrival_logs_have_the_gamma_mean_and_truncation_conditions_it() {
        let mut p = LublinParams {
            arrival_log_max: 1000.0,
            ..LublinParams::for_machine(128)
        };
        let mut rng = sim_core::rng::stream(15, "test");
        let m = model(p);
        let gs: Vec<f64> = (0..N).map(|_| m.log_gap(&mut rng)).collect();
        // Gamma(shape a, scale b) has mean a b: a = AARR * ARAR = 10.2303 * 1.0225, b = BARR.
        assert_within(&gs, 10.2303 * 1.0225 * 0.4871, "mean ln inter-arrival");
        // Truncated at c = 5 (below the mean): E[G | G <= c] = a b F(c; a + 1, b) / F(c; a, b),
        // since x f(x; a, b) = a b f(x; a + 1, b) for the gamma density f.
        p.arrival_log_max = 5.0;
        let m = model(p);
        let gs: Vec<f64> = (0..N).map(|_| m.log_gap(&mut rng)).collect();
        let (a, b) = (10.2303 * 1.0225, 0.4871);
        let cdf = |shape: f64| GammaLaw::new(shape, 1.0 / b).unwrap().cdf(5.0);
        assert_within(&gs, a * b * cdf(a + 1.0) / cdf(a), "mean truncated ln inter-arrival");
        assert!(gs.iter().all(|&g| g <= 5.0));
    }

    #[test]
    fn jobs_are_deterministic_and_streams_independent() {
        let m = model(LublinParams::for_machine(100));
        let a = m.jobs(7, 2000, RequestModel::Exact);
        assert_eq!(a, m.jobs(7, 2000, RequestModel::Exact));
        assert_ne!(a, m.jobs(8, 2000, RequestModel::Exact));
        assert_eq!(a[0].submit_s, 0.0);
        assert!(a.windows(2).all(|w| w[0].submit_s < w[1].submit_s));
        assert!(a.iter().all(|j| (1..=100).contains(&j.procs)));
        // e^12 s is the longest run time.
        assert!(a.iter().all(|j| j.runtime_s >= 1.0 && j.runtime_s <= 12f64.exp()));
        assert!(a.iter().all(|j| j.requested_s == Some(j.runtime_s)));
        // Other arrival parameters move arrivals only.
        let b = model(LublinParams {
            arrival_shape: 9.0,
            ..LublinParams::for_machine(100)
        })
        .jobs(7, 2000, RequestModel::Factor(3.0));
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.procs, x.runtime_s), (y.procs, y.runtime_s));
            assert_eq!(y.requested_s, Some(y.runtime_s * 3.0));
        }
        assert!(a.iter().zip(&b).skip(1).all(|(x, y)| x.submit_s != y.submit_s));
    }

    #[test]
    fn refusals_name_the_parameter() {
        let base = LublinParams::for_machine(128);
        let cases: Vec<(LublinParams, &str)> = vec![
            (
                LublinParams {
                    serial_prob: 1.5,
                    ..base
                },
                "serial_prob",
            ),
            (
                LublinParams {
                    pow2_prob: -0.1,
                    ..base
                },
                "pow2_prob",
            ),
            (
                LublinParams {
                    serial_prob: 0.5,
                    pow2_prob: 0.6,
                    ..base
                },
                "pow2_prob",
            ),
            (
                LublinParams {
                    size_low_prob: 2.0,
                    ..base
                },
                "size_low_prob",
            ),
            (LublinParams::for_machine(4), "size_log_med"),
            (
                LublinParams {
                    size_log_low: 8.0,
                    ..base
                },
                "size_log_low",
            ),
            (
                LublinParams {
                    runtime_a1: 0.0,
                    ..base
                },
                "runtime_a1",
            ),
            (
                LublinParams {
                    runtime_b2: f64::NAN,
                    ..base
                },
                "runtime_b2",
            ),
            (
                LublinParams {
                    runtime_pa: f64::INFINITY,
                    ..base
                },
                "runtime_pa",
            ),
            (
                LublinParams {
                    runtime_log_max: 0.01,
                    ..base
                },
                "runtime_log_max",
            ),
            (
                LublinParams {
                    arrival_scale: -1.0,
                    ..base
                },
                "arrival_scale",
            ),
            (
                LublinParams {
                    arrival_log_max: 1.0,
                    ..base
                },
                "arrival_log_max",
            ),
            (LublinParams { max_size: 0, ..base }, "max_size"),
        ];
        for (p, field) in cases {
            let e = Lublin::new(p).unwrap_err();
            assert_eq!(e.param, field, "{e}");
        }
        // A small machine works with its own split point.
        assert!(Lublin::new(LublinParams {
            size_log_med: 1.5,
            ..LublinParams::for_machine(4)
        })
        .is_ok());
    }
}

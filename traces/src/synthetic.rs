//! Seeded synthetic workloads for the cluster load-balancing study (WAL-FC).
//!
//! Source of the workload description: X. Qin, H. Jiang, Y. Zhu and D. R. Swanson, "A feedback
//! control mechanism for balancing I/O- and memory-intensive applications on clusters"
//! (`shared/papers/wal-fc-feedback-load-balancing.md`), §4.2 and §5.1. The paper replays the
//! process traces of Harchol-Balter & Downey (its \[9\]) with a Pareto memory demand (after
//! Zhang et al., its \[27\]) and a uniform I/O access rate added to every job. These generators
//! draw the same quantities from closed-form distributions, so a study can sweep them or run
//! without the trace.
//!
//! | generator | distribution | parameters (default) | mean | source |
//! |---|---|---|---|---|
//! | [`HbdLifetime`] | bounded Pareto on `[L, H]` | `shape_a` (1), `min_s` = L (1 s), `max_s` = H (1573.5 s) | see below | HBD \[9\], as used in §5.1 |
//! | [`ParetoMemory`] | Pareto, scale `x_m = mean (a − 1)/a` | `mean_bytes` (4 MiB), `shape` (2) | `mean_bytes` | §4.2 ("Pareto … mean size of 4 Mbytes \[27\]") |
//! | [`PoissonArrivals`] | exponential gaps | `rate_per_s` = λ, or `ρ k / E[S]` | gap `1/λ` | M/G/k offered load; the paper's arrivals come from its traces |
//! | [`UniformIoRate`] | uniform on `[lo, hi]` (`[0, 2m]` from a mean m) | `mean` (swept, no default) | `(lo + hi)/2` | §5.1 ("uniform distribution"), §5.2–5.5 sweep the mean |
//!
//! # Process lifetimes (Harchol-Balter & Downey)
//!
//! M. Harchol-Balter and A. B. Downey, "Exploiting Process Lifetime Distributions for Dynamic
//! Load Balancing", ACM TOCS 15(3), 1997: for processes older than 1 s,
//! `P(L > x | L > 1 s) = x^(−a)`, with `a = 1` as their rule of thumb (the Parallel Workloads
//! Archive's summary of the model gives `0.8 < a < 1.3` across workloads, `a = 1` being "a
//! reasonable default"). That is a Pareto tail above `L = 1 s`. With `a ≤ 1` its mean is infinite,
//! so a simulation with a finite run needs a bound: the lifetime is truncated at `H` (a bounded
//! Pareto), whose survival function is
//!
//! `P(X > x) = ((L/x)^a − (L/H)^a) / (1 − (L/H)^a)` for `L ≤ x ≤ H`,
//!
//! the paper's `(x/L)^(−a)` conditioned on `X ≤ H`. Its mean is
//!
//! - `a ≠ 1`: `E[X] = a L / (a − 1) · (1 − (L/H)^(a−1)) / (1 − (L/H)^a)`;
//! - `a = 1`: `E[X] = H L / (H − L) · ln(H / L)`.
//!
//! Default `H = 1573.5 s`: the longest CPU time among the 184,612 processes of the HBD trace
//! gridsim ships (`CSD-trace.csv.gz`, see [`crate::hbd`]), so a synthetic stream never holds a
//! job longer than the trace it stands in for. With the defaults the mean is
//! `1573.5 / 1572.5 · ln 1573.5 ≈ 7.366 s`. Note that this trace's tail is steeper than the rule
//! of thumb: its 12,858 processes above 1 s give a Hill estimate `â ≈ 1.19` and a mean of 4.0 s;
//! pass that shape to mimic the trace instead of the paper.
//!
//! # Memory demand
//!
//! Pareto with shape `a > 1` and scale `x_m = mean (a − 1) / a`, so that
//! `E[X] = a x_m / (a − 1) = mean` and `P(X > x) = (x_m / x)^a` for `x ≥ x_m`. The paper (§4.2)
//! gives only the mean, 4 Mbytes, read here as 4 MiB = 4,194,304 bytes since gridsim's job memory
//! is in KiB (`memory_kb = bytes / 1024`). It is silent on the shape; the default 2 is the smallest
//! whole shape with a finite mean: it keeps the tail heavy (infinite variance, like the
//! lifetimes) while every job needs at least `x_m = mean / 2 = 2 MiB`. Shapes nearer 1 push `x_m`
//! towards 0 and the mean into ever rarer huge jobs.
//!
//! # Arrivals
//!
//! A Poisson process: gaps are exponential with rate `λ`, mean `1/λ`. For an M/G/k system of
//! `k` servers and mean service time `E[S]`, the offered load (utilisation) is
//! `ρ = λ E[S] / k`, so [`PoissonArrivals::for_utilisation`] sets `λ = ρ k / E[S]`. (The paper's
//! arrivals come from its traces; a Poisson stream is the standard open-system substitute, and
//! §3 models each disk as an M/G/1 queue.) `ρ ≥ 1` is allowed: it describes an overloaded,
//! unstable system, which a study may want to show.
//!
//! # I/O access rate
//!
//! Uniform on `[lo, hi]`, mean `(lo + hi)/2`, variance `(hi − lo)² / 12`. The paper (§5.1): "the
//! I/O access rate is randomly chosen in accordance with a uniform distribution", independent of
//! the job's memory and CPU demand, and its experiments sweep the mean (0.1 to 2.8 accesses/ms,
//! §5.2–5.5). It does not give the range; [`UniformIoRate::new`] uses `[0, 2 mean]`, the widest
//! non-negative interval with that mean. The unit is the caller's (the paper: accesses per ms).
//! [`crate::job::Job`] has no I/O field, so callers draw it themselves, one value per job in job
//! order, from [`UniformIoRate::STREAM`].
//!
//! # Random streams
//!
//! Each generator names the stream it is meant for (`STREAM`); callers derive it with
//! [`sim_core::rng::stream`]`(run_seed, STREAM)`. Every sample is one inverse-CDF transform of one
//! uniform draw. That keeps job `i`'s value the `i`-th draw of its stream whatever the parameters
//! (changing a shape changes values, never which job gets which draw), and keeps the numbers
//! fixed by ChaCha8 and rand 0.8's `f64` conversion alone, not by a sampling algorithm a
//! `rand_distr` release might change.
//!
//! # Errors
//!
//! Constructors validate and return `Err(String)` naming the parameter and its valid range; no
//! function here panics, and every sample is finite and inside its support.
//!
//! ```
//! use traces::synthetic::{synthetic_jobs, HbdLifetime, ParetoMemory, PoissonArrivals};
//!
//! let lifetime = HbdLifetime::default();
//! // Six nodes at 70 % offered load.
//! let arrivals = PoissonArrivals::for_utilisation(0.7, lifetime.mean(), 6).unwrap();
//! let jobs = synthetic_jobs(42, 1000, &lifetime, &arrivals, Some(&ParetoMemory::default()));
//! assert_eq!(jobs.len(), 1000);
//! assert!(jobs.windows(2).all(|w| w[0].submit_s <= w[1].submit_s));
//! ```

use rand::Rng;

use crate::job::Job;

/// One uniform draw on `[0, 1)`: rand 0.8's `Standard` `f64`, 53 random bits.
fn unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    rng.gen::<f64>()
}

/// `Ok` when `ok`, else the message naming the parameter, its value and the valid range.
fn check(ok: bool, name: &str, value: f64, range: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{name} = {value} is invalid: it must be {range}"))
    }
}

/// `−expm1(b r) / b`, continued by its limit `−r` at `b = 0`: the factor `(1 − ρ^b) / b` of the
/// bounded-Pareto mean with `ρ = e^r`, computed without the cancellation of `1 − ρ^b` near
/// `b = 0` (that is, near `a = 1`).
fn one_minus_pow_over(b: f64, r: f64) -> f64 {
    if b == 0.0 {
        -r
    } else {
        -(b * r).exp_m1() / b
    }
}

/// Harchol-Balter & Downey process CPU lifetimes: a Pareto tail above `min_s` with shape
/// `shape_a`, truncated at `max_s` (bounded Pareto). See the module docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HbdLifetime {
    shape_a: f64,
    min_s: f64,
    max_s: f64,
    /// `r = ln(L / H) < 0`, from logarithms so that `L / H` cannot underflow.
    log_ratio: f64,
    /// `1 − (L/H)^a`, the probability mass the truncation keeps (0 only when `a |r|` underflows).
    kept: f64,
}

impl HbdLifetime {
    /// The stream lifetimes are meant to be drawn from.
    pub const STREAM: &'static str = "workload.lifetimes";
    /// HBD's rule of thumb `a = 1`: `P(L > x | L > 1 s) = 1/x`.
    pub const DEFAULT_SHAPE_A: f64 = 1.0;
    /// HBD's law holds for processes older than 1 s.
    pub const DEFAULT_MIN_S: f64 = 1.0;
    /// The longest CPU time in the HBD trace gridsim ships (see the module docs).
    pub const DEFAULT_MAX_S: f64 = 1573.5;

    /// Lifetimes with `P(X > x) ∝ (x / min_s)^(−shape_a) − (max_s / min_s)^(−shape_a)` on
    /// `[min_s, max_s]`. Requires finite `shape_a > 0`, finite `min_s > 0` and finite
    /// `max_s > min_s`.
    pub fn new(shape_a: f64, min_s: f64, max_s: f64) -> Result<HbdLifetime, String> {
        check(
            shape_a.is_finite() && shape_a > 0.0,
            "shape_a",
            shape_a,
            "a finite number > 0",
        )?;
        check(
            min_s.is_finite() && min_s > 0.0,
            "min_s",
            min_s,
            "a finite number of seconds > 0",
        )?;
        check(
            max_s.is_finite() && max_s > min_s,
            "max_s",
            max_s,
            &format!("a finite number of seconds > min_s = {min_s}"),
        )?;
        Ok(HbdLifetime::validated(shape_a, min_s, max_s))
    }

    /// Builds from parameters already checked (`shape_a > 0`, `0 < min_s < max_s`, all finite).
    fn validated(shape_a: f64, min_s: f64, max_s: f64) -> HbdLifetime {
        let log_ratio = min_s.ln() - max_s.ln();
        HbdLifetime {
            shape_a,
            min_s,
            max_s,
            log_ratio,
            kept: -(shape_a * log_ratio).exp_m1(),
        }
    }

    /// The paper's rule of thumb with a different truncation point.
    pub fn with_max(max_s: f64) -> Result<HbdLifetime, String> {
        HbdLifetime::new(HbdLifetime::DEFAULT_SHAPE_A, HbdLifetime::DEFAULT_MIN_S, max_s)
    }

    /// The shape `a`.
    pub fn shape_a(&self) -> f64 {
        self.shape_a
    }

    /// The lower bound `L`, seconds.
    pub fn min_s(&self) -> f64 {
        self.min_s
    }

    /// The truncation point `H`, seconds.
    pub fn max_s(&self) -> f64 {
        self.max_s
    }

    /// One lifetime, seconds, in `[min_s, max_s]`: the inverse CDF
    /// `x = L (1 − u (1 − (L/H)^a))^(−1/a)` of one uniform `u`.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let u = unit(rng);
        // ln(x / L), kept in logarithms so that a tiny L and a huge H cannot overflow L·(H/L).
        let log_excess = if self.kept > 0.0 {
            -(-u * self.kept).ln_1p() / self.shape_a
        } else {
            // `a |r|` underflowed: the a → 0 limit is log-uniform, x = L (H/L)^u.
            -u * self.log_ratio
        };
        (self.min_s.ln() + log_excess).exp().clamp(self.min_s, self.max_s)
    }

    /// `P(X > x)`, the bounded form of HBD's `(x / L)^(−a)`: 1 below `L`, 0 from `H` on.
    pub fn survival(&self, x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        if x < self.min_s {
            return 1.0;
        }
        if x >= self.max_s {
            return 0.0;
        }
        let log_x = self.min_s.ln() - x.ln(); // ln(L / x), in (r, 0]
        if self.kept > 0.0 {
            (((self.shape_a * log_x).exp() - (self.shape_a * self.log_ratio).exp()) / self.kept).clamp(0.0, 1.0)
        } else {
            (1.0 - log_x / self.log_ratio).clamp(0.0, 1.0)
        }
    }

    /// The mean, seconds (module docs; the `a = 1` case is the limit of the general one).
    pub fn mean(&self) -> f64 {
        let (a, l, h, r) = (self.shape_a, self.min_s, self.max_s, self.log_ratio);
        let mean = if self.kept <= 0.0 {
            // Log-uniform limit (see `sample`): (H − L) / ln(H / L).
            (h - l) / -r
        } else if a >= 1.0 {
            // a L / (a − 1) · (1 − ρ^(a−1)) / (1 − ρ^a), ρ = L/H: every factor is bounded.
            l * a * one_minus_pow_over(a - 1.0, r) / self.kept
        } else {
            // The same for a < 1, written from H so that (H/L)^(1−a) cannot overflow:
            // a H ρ^a (1 − ρ^(1−a)) / ((1 − a)(1 − ρ^a)).
            h * a * (a * r).exp() * one_minus_pow_over(1.0 - a, r) / self.kept
        };
        mean.clamp(l, h)
    }
}

impl Default for HbdLifetime {
    /// `a = 1`, `L = 1 s`, `H = 1573.5 s`.
    fn default() -> HbdLifetime {
        HbdLifetime::validated(
            HbdLifetime::DEFAULT_SHAPE_A,
            HbdLifetime::DEFAULT_MIN_S,
            HbdLifetime::DEFAULT_MAX_S,
        )
    }
}

/// Pareto memory demand with a given mean (WAL-FC §4.2, after Zhang et al.). See the module docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParetoMemory {
    mean_bytes: f64,
    shape: f64,
    scale_bytes: f64,
}

impl ParetoMemory {
    /// The stream memory demands are meant to be drawn from.
    pub const STREAM: &'static str = "workload.memory";
    /// The paper's mean, 4 Mbytes, read as 4 MiB.
    pub const DEFAULT_MEAN_BYTES: f64 = 4.0 * 1024.0 * 1024.0;
    /// The paper is silent; 2 is the smallest whole shape with a finite mean (module docs).
    pub const DEFAULT_SHAPE: f64 = 2.0;

    /// Pareto with mean `mean_bytes` and shape `shape`: scale `x_m = mean (shape − 1)/shape`.
    /// Requires finite `mean_bytes > 0` and finite `shape > 1` (a mean exists only then), and a
    /// scale that does not underflow to 0.
    pub fn new(mean_bytes: f64, shape: f64) -> Result<ParetoMemory, String> {
        check(
            mean_bytes.is_finite() && mean_bytes > 0.0,
            "mean_bytes",
            mean_bytes,
            "a finite number of bytes > 0",
        )?;
        check(
            shape.is_finite() && shape > 1.0,
            "shape",
            shape,
            "a finite number > 1 (a Pareto mean is finite only then)",
        )?;
        let scale_bytes = mean_bytes * ((shape - 1.0) / shape);
        check(
            scale_bytes > 0.0,
            "mean_bytes",
            mean_bytes,
            &format!("large enough that the scale mean_bytes × (shape − 1)/shape > 0 with shape = {shape}"),
        )?;
        Ok(ParetoMemory {
            mean_bytes,
            shape,
            scale_bytes,
        })
    }

    /// The paper's mean (4 MiB) with shape `shape`.
    pub fn with_shape(shape: f64) -> Result<ParetoMemory, String> {
        ParetoMemory::new(ParetoMemory::DEFAULT_MEAN_BYTES, shape)
    }

    /// The shape `a`.
    pub fn shape(&self) -> f64 {
        self.shape
    }

    /// The scale `x_m`, bytes: the smallest demand.
    pub fn scale_bytes(&self) -> f64 {
        self.scale_bytes
    }

    /// One demand, bytes, at least `x_m`: `x = x_m (1 − u)^(−1/a)` of one uniform `u`. Finite:
    /// `1 − u ≥ 2^−53` bounds it by `x_m 2^(53/a)`, and a value beyond `f64::MAX` (only for means
    /// near it) is held there.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let u = unit(rng);
        let log_x = self.scale_bytes.ln() - (-u).ln_1p() / self.shape;
        log_x.exp().clamp(self.scale_bytes, f64::MAX)
    }

    /// `P(X > x) = (x_m / x)^a` above `x_m`, 1 below.
    pub fn survival(&self, x: f64) -> f64 {
        if x.is_nan() {
            f64::NAN
        } else if x <= self.scale_bytes {
            1.0
        } else {
            (self.shape * (self.scale_bytes.ln() - x.ln())).exp()
        }
    }

    /// The mean, bytes: `a x_m / (a − 1)`, the `mean_bytes` it was built with.
    pub fn mean(&self) -> f64 {
        self.mean_bytes
    }
}

impl Default for ParetoMemory {
    /// Mean 4 MiB, shape 2 (scale 2 MiB).
    fn default() -> ParetoMemory {
        ParetoMemory {
            mean_bytes: ParetoMemory::DEFAULT_MEAN_BYTES,
            shape: ParetoMemory::DEFAULT_SHAPE,
            scale_bytes: ParetoMemory::DEFAULT_MEAN_BYTES * (ParetoMemory::DEFAULT_SHAPE - 1.0)
                / ParetoMemory::DEFAULT_SHAPE,
        }
    }
}

/// A Poisson arrival process: exponential gaps of rate `rate_per_s`. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoissonArrivals {
    rate_per_s: f64,
}

impl PoissonArrivals {
    /// The stream arrival gaps are meant to be drawn from.
    pub const STREAM: &'static str = "workload.arrivals";

    /// Arrivals at `rate_per_s` per second; requires a finite rate > 0.
    pub fn new(rate_per_s: f64) -> Result<PoissonArrivals, String> {
        check(
            rate_per_s.is_finite() && rate_per_s > 0.0,
            "rate_per_s",
            rate_per_s,
            "a finite number of arrivals per second > 0",
        )?;
        Ok(PoissonArrivals { rate_per_s })
    }

    /// The rate that offers load `target_rho` to `servers` servers whose mean service time is
    /// `mean_service_s`: `λ = ρ k / E[S]` (M/G/k). Requires finite `target_rho > 0` (≥ 1 is an
    /// overloaded system, allowed), finite `mean_service_s > 0`, `servers ≥ 1`, and a finite
    /// positive resulting rate.
    pub fn for_utilisation(target_rho: f64, mean_service_s: f64, servers: u32) -> Result<PoissonArrivals, String> {
        check(
            target_rho.is_finite() && target_rho > 0.0,
            "target_rho",
            target_rho,
            "a finite utilisation > 0 (values ≥ 1 overload the system)",
        )?;
        check(
            mean_service_s.is_finite() && mean_service_s > 0.0,
            "mean_service_s",
            mean_service_s,
            "a finite number of seconds > 0",
        )?;
        check(servers >= 1, "servers", servers as f64, "at least 1")?;
        let rate = target_rho * servers as f64 / mean_service_s;
        check(
            rate.is_finite() && rate > 0.0,
            "target_rho × servers / mean_service_s",
            rate,
            "a finite rate > 0 (choose parameters of less extreme magnitude)",
        )?;
        Ok(PoissonArrivals { rate_per_s: rate })
    }

    /// The rate `λ`, arrivals per second.
    pub fn rate_per_s(&self) -> f64 {
        self.rate_per_s
    }

    /// The mean gap `1/λ`, seconds.
    pub fn mean_gap_s(&self) -> f64 {
        1.0 / self.rate_per_s
    }

    /// The load this rate offers to `servers` servers of mean service time `mean_service_s`:
    /// `ρ = λ E[S] / k` (the inverse of [`PoissonArrivals::for_utilisation`]; NaN for 0 servers).
    pub fn offered_load(&self, mean_service_s: f64, servers: u32) -> f64 {
        if servers == 0 {
            return f64::NAN;
        }
        self.rate_per_s * mean_service_s / servers as f64
    }

    /// One gap, seconds, `≥ 0` and finite: `−ln(1 − u) / λ` of one uniform `u`.
    pub fn next_gap<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let u = unit(rng);
        // 1 − u ≥ 2^−53, so the gap is at most 36.8 / λ.
        let gap = -(-u).ln_1p() / self.rate_per_s;
        gap.min(f64::MAX)
    }

    /// The first `n` arrival times: cumulative sums of `n` gaps, the first at the first gap
    /// (not at 0). Non-decreasing.
    pub fn arrivals<R: Rng + ?Sized>(&self, rng: &mut R, n: usize) -> Vec<f64> {
        let mut t = 0.0f64;
        (0..n)
            .map(|_| {
                t = (t + self.next_gap(rng)).min(f64::MAX);
                t
            })
            .collect()
    }
}

/// Per-job I/O access rate, uniform on `[lo, hi]` (WAL-FC §5.1). See the module docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UniformIoRate {
    lo: f64,
    hi: f64,
}

impl UniformIoRate {
    /// The stream I/O rates are meant to be drawn from.
    pub const STREAM: &'static str = "workload.io_rates";

    /// Uniform on `[0, 2 mean]`. Requires finite `mean ≥ 0` with `2 mean` finite (0 gives a
    /// workload without I/O).
    pub fn new(mean: f64) -> Result<UniformIoRate, String> {
        check(
            mean.is_finite() && mean >= 0.0 && (2.0 * mean).is_finite(),
            "mean",
            mean,
            "a finite rate ≥ 0 whose double is finite",
        )?;
        Ok(UniformIoRate {
            lo: 0.0,
            hi: 2.0 * mean,
        })
    }

    /// Uniform on `[lo, hi]`. Requires finite `0 ≤ lo ≤ hi` (rates are not negative).
    pub fn range(lo: f64, hi: f64) -> Result<UniformIoRate, String> {
        check(lo.is_finite() && lo >= 0.0, "lo", lo, "a finite rate ≥ 0")?;
        check(
            hi.is_finite() && hi >= lo,
            "hi",
            hi,
            &format!("a finite rate ≥ lo = {lo}"),
        )?;
        Ok(UniformIoRate { lo, hi })
    }

    /// The lower end.
    pub fn lo(&self) -> f64 {
        self.lo
    }

    /// The upper end.
    pub fn hi(&self) -> f64 {
        self.hi
    }

    /// One rate in `[lo, hi]`: `lo + u (hi − lo)` of one uniform `u`.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let u = unit(rng);
        (self.lo + u * (self.hi - self.lo)).clamp(self.lo, self.hi)
    }

    /// The mean `(lo + hi)/2` (written `lo + (hi − lo)/2`, which cannot overflow).
    pub fn mean(&self) -> f64 {
        self.lo + (self.hi - self.lo) / 2.0
    }
}

/// `n` serial jobs (ids `1..=n`) with Poisson arrivals, HBD lifetimes and, when `memory` is
/// given, Pareto memory demands (`memory_kb = bytes / 1024`); no request, no user, not partial.
///
/// Each quantity comes from its own stream, `sim_core::rng::stream(seed, X::STREAM)`, so
/// changing one distribution (or leaving memory out) never changes the others: job `i`'s
/// arrival, lifetime and memory are the `i`-th draws of their streams.
pub fn synthetic_jobs(
    seed: u64,
    n: usize,
    lifetime: &HbdLifetime,
    arrivals: &PoissonArrivals,
    memory: Option<&ParetoMemory>,
) -> Vec<Job> {
    let mut lifetimes = sim_core::rng::stream(seed, HbdLifetime::STREAM);
    let mut memories = memory.map(|m| (m, sim_core::rng::stream(seed, ParetoMemory::STREAM)));
    let times = arrivals.arrivals(&mut sim_core::rng::stream(seed, PoissonArrivals::STREAM), n);
    times
        .into_iter()
        .enumerate()
        .map(|(i, submit_s)| Job {
            id: i as i64 + 1,
            submit_s,
            runtime_s: lifetime.sample(&mut lifetimes),
            procs: 1,
            requested_procs: None,
            requested_s: None,
            memory_kb: memories.as_mut().map(|(m, rng)| m.sample(rng) / 1024.0),
            user: None,
            partial: false,
        })
        .collect()
}

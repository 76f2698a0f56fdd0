//! The synthetic workload generators: determinism, stream independence, closed-form means and
//! tails against samples, supports, and parameter validation.
//!
//! Statistical checks draw N = 10^5 values from a fixed stream, so each is deterministic; their
//! tolerances are still honest ones (a mean within 4 standard errors, a tail probability inside
//! its binomial 99.9 % interval `p ± 3.29 √(p (1 − p) / N)`), so a wrong shape, scale or formula
//! fails them.

use proptest::prelude::*;
use rand::Rng;
use sim_core::rng::stream;
use traces::synthetic::{synthetic_jobs, HbdLifetime, ParetoMemory, PoissonArrivals, UniformIoRate};

const N: usize = 100_000;
/// The two-sided 99.9 % normal quantile.
const Z999: f64 = 3.29;

fn draws(seed: u64, purpose: &str, n: usize, mut f: impl FnMut(&mut rand_chacha::ChaCha8Rng) -> f64) -> Vec<f64> {
    let mut rng = stream(seed, purpose);
    (0..n).map(|_| f(&mut rng)).collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Asserts the sample mean is within 4 standard errors `σ / √N` of the closed-form mean.
fn assert_mean_within_4se(xs: &[f64], expected_mean: f64, expected_var: f64, what: &str) {
    let se = (expected_var / xs.len() as f64).sqrt();
    let m = mean(xs);
    assert!(
        (m - expected_mean).abs() <= 4.0 * se,
        "{what}: sample mean {m} vs closed form {expected_mean} (4 SE = {})",
        4.0 * se
    );
}

/// Asserts the empirical `P(X > x)` is inside the binomial 99.9 % interval around `p`.
fn assert_tail(xs: &[f64], x: f64, p: f64, what: &str) {
    let n = xs.len() as f64;
    let empirical = xs.iter().filter(|&&v| v > x).count() as f64 / n;
    let half = Z999 * (p * (1.0 - p) / n).sqrt();
    assert!(
        (empirical - p).abs() <= half,
        "{what}: P(X > {x}) empirical {empirical} vs {p} ± {half}"
    );
}

/// The bounded-Pareto survival function written out by hand (HBD's `(x/L)^-a` conditioned on
/// `X ≤ H`): `((L/x)^a − (L/H)^a) / (1 − (L/H)^a)`.
fn bounded_pareto_survival(a: f64, l: f64, h: f64, x: f64) -> f64 {
    ((l / x).powf(a) - (l / h).powf(a)) / (1.0 - (l / h).powf(a))
}

// ---------------------------------------------------------------- determinism and streams

#[test]
fn same_seed_same_numbers() {
    let life = HbdLifetime::default();
    let mem = ParetoMemory::default();
    let arr = PoissonArrivals::new(0.5).unwrap();
    let io = UniformIoRate::new(1.4).unwrap();
    for _ in 0..2 {
        assert_eq!(
            draws(7, HbdLifetime::STREAM, 50, |r| life.sample(r)),
            draws(7, HbdLifetime::STREAM, 50, |r| life.sample(r))
        );
        assert_eq!(
            draws(7, ParetoMemory::STREAM, 50, |r| mem.sample(r)),
            draws(7, ParetoMemory::STREAM, 50, |r| mem.sample(r))
        );
        assert_eq!(
            draws(7, PoissonArrivals::STREAM, 50, |r| arr.next_gap(r)),
            draws(7, PoissonArrivals::STREAM, 50, |r| arr.next_gap(r))
        );
        assert_eq!(
            draws(7, UniformIoRate::STREAM, 50, |r| io.sample(r)),
            draws(7, UniformIoRate::STREAM, 50, |r| io.sample(r))
        );
    }
    let a = synthetic_jobs(7, 200, &life, &arr, Some(&mem));
    let b = synthetic_jobs(7, 200, &life, &arr, Some(&mem));
    assert_eq!(a, b);
}

#[test]
fn different_stream_names_and_seeds_give_different_numbers() {
    let names = [
        HbdLifetime::STREAM,
        ParetoMemory::STREAM,
        PoissonArrivals::STREAM,
        UniformIoRate::STREAM,
    ];
    assert_eq!(
        names,
        [
            "workload.lifetimes",
            "workload.memory",
            "workload.arrivals",
            "workload.io_rates"
        ]
    );
    let life = HbdLifetime::default();
    let per_name: Vec<Vec<f64>> = names
        .iter()
        .map(|name| draws(7, name, 20, |r| life.sample(r)))
        .collect();
    for i in 0..names.len() {
        for j in i + 1..names.len() {
            assert_ne!(per_name[i], per_name[j], "{} vs {}", names[i], names[j]);
        }
    }
    assert_ne!(
        draws(7, HbdLifetime::STREAM, 20, |r| life.sample(r)),
        draws(8, HbdLifetime::STREAM, 20, |r| life.sample(r))
    );
    let arr = PoissonArrivals::new(1.0).unwrap();
    assert_ne!(
        synthetic_jobs(7, 20, &life, &arr, None),
        synthetic_jobs(8, 20, &life, &arr, None)
    );
}

#[test]
fn synthetic_jobs_are_the_streams_draws() {
    let (seed, n) = (11, 500);
    let life = HbdLifetime::default();
    let arr = PoissonArrivals::new(0.25).unwrap();
    let mem = ParetoMemory::default();
    let jobs = synthetic_jobs(seed, n, &life, &arr, Some(&mem));

    // Job i's values are the i-th draws of the streams named by the generators.
    let times = arr.arrivals(&mut stream(seed, PoissonArrivals::STREAM), n);
    let runtimes = draws(seed, HbdLifetime::STREAM, n, |r| life.sample(r));
    let bytes = draws(seed, ParetoMemory::STREAM, n, |r| mem.sample(r));
    assert_eq!(jobs.len(), n);
    for (i, job) in jobs.iter().enumerate() {
        assert_eq!(job.id, i as i64 + 1);
        assert_eq!(job.submit_s, times[i]);
        assert_eq!(job.runtime_s, runtimes[i]);
        assert_eq!(job.memory_kb, Some(bytes[i] / 1024.0));
        assert_eq!(job.procs, 1);
        assert_eq!(job.requested_s, None);
        assert_eq!(job.user, None);
        assert!(!job.partial);
    }
    assert!(synthetic_jobs(seed, 0, &life, &arr, Some(&mem)).is_empty());
    assert!(synthetic_jobs(seed, n, &life, &arr, None)
        .iter()
        .all(|j| j.memory_kb.is_none()));
}

#[test]
fn changing_one_distribution_never_perturbs_the_others() {
    let seed = 3;
    let life = HbdLifetime::default();
    let arr = PoissonArrivals::new(1.0).unwrap();
    let mem = ParetoMemory::default();
    let base = synthetic_jobs(seed, 300, &life, &arr, Some(&mem));

    // Without memory: arrivals and lifetimes unchanged.
    let no_mem = synthetic_jobs(seed, 300, &life, &arr, None);
    for (a, b) in base.iter().zip(&no_mem) {
        assert_eq!((a.submit_s, a.runtime_s), (b.submit_s, b.runtime_s));
    }

    // Another lifetime shape: arrivals and memory unchanged, lifetimes changed.
    let steeper = HbdLifetime::new(1.19, 1.0, 1573.5).unwrap();
    let other = synthetic_jobs(seed, 300, &steeper, &arr, Some(&mem));
    for (a, b) in base.iter().zip(&other) {
        assert_eq!((a.submit_s, a.memory_kb), (b.submit_s, b.memory_kb));
    }
    assert!(base.iter().zip(&other).any(|(a, b)| a.runtime_s != b.runtime_s));

    // Another memory shape: arrivals and lifetimes unchanged.
    let other = synthetic_jobs(seed, 300, &life, &arr, Some(&ParetoMemory::with_shape(3.0).unwrap()));
    for (a, b) in base.iter().zip(&other) {
        assert_eq!((a.submit_s, a.runtime_s), (b.submit_s, b.runtime_s));
    }

    // Twice the rate: gaps are −ln(1 − u)/λ of the same u, so every arrival is exactly halved
    // (division by 2 is exact in binary floating point); lifetimes and memory unchanged.
    let faster = synthetic_jobs(seed, 300, &life, &PoissonArrivals::new(2.0).unwrap(), Some(&mem));
    for (a, b) in base.iter().zip(&faster) {
        assert_eq!(b.submit_s, a.submit_s / 2.0);
        assert_eq!((a.runtime_s, a.memory_kb), (b.runtime_s, b.memory_kb));
    }
}

#[test]
fn each_sample_is_the_inverse_cdf_of_one_uniform_draw() {
    // The module's contract: sample i is F⁻¹(u_i) of the i-th uniform of the stream, one draw
    // each. Checked against the textbook inverse CDFs (relative error 1e-12).
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * y.abs().max(1e-300);
    let (a, l, h) = (1.0, 1.0, 1573.5);
    let life = HbdLifetime::new(a, l, h).unwrap();
    let mem = ParetoMemory::default();
    let arr = PoissonArrivals::new(2.5).unwrap();
    let io = UniformIoRate::range(1.0, 3.0).unwrap();
    let mut uniforms = stream(77, "inverse-cdf");
    let mut rngs: Vec<_> = (0..4).map(|_| stream(77, "inverse-cdf")).collect();
    for _ in 0..1000 {
        let u: f64 = uniforms.gen();
        // Bounded Pareto: x = L (1 − u (1 − (L/H)^a))^(−1/a).
        let x = life.sample(&mut rngs[0]);
        assert!(close(x, l * (1.0 - u * (1.0 - (l / h).powf(a))).powf(-1.0 / a)), "{x}");
        // Pareto: x = x_m (1 − u)^(−1/a), x_m = 2 MiB, a = 2.
        let x = mem.sample(&mut rngs[1]);
        assert!(close(x, 2_097_152.0 * (1.0 - u).powf(-0.5)), "{x}");
        // Exponential: −ln(1 − u)/λ.
        let x = arr.next_gap(&mut rngs[2]);
        assert!(close(x, -(1.0 - u).ln() / 2.5), "{x}");
        // Uniform: lo + u (hi − lo).
        let x = io.sample(&mut rngs[3]);
        assert!(close(x, 1.0 + 2.0 * u), "{x}");
    }
}

// ---------------------------------------------------------------- HBD lifetimes

#[test]
fn hbd_defaults() {
    let d = HbdLifetime::default();
    assert_eq!((d.shape_a(), d.min_s(), d.max_s()), (1.0, 1.0, 1573.5));
    assert_eq!(d, HbdLifetime::new(1.0, 1.0, 1573.5).unwrap());
    assert_eq!(HbdLifetime::with_max(1573.5).unwrap(), d);
}

#[test]
fn hbd_mean_closed_forms() {
    // a = 1: H L / (H − L) · ln(H/L). L = 1, H = 4: 4/3 · ln 4 = 1.848392481493187.
    let m = HbdLifetime::new(1.0, 1.0, 4.0).unwrap().mean();
    assert!((m - 1.848_392_481_493_187).abs() < 1e-12, "{m}");
    // Defaults: 1573.5 / 1572.5 · ln 1573.5 = 7.3657388342892.
    let m = HbdLifetime::default().mean();
    assert!((m - 1573.5 / 1572.5 * 1573.5f64.ln()).abs() < 1e-12, "{m}");
    assert!((m - 7.365_738_834_289_2).abs() < 1e-9, "{m}");
    // a ≠ 1: a L/(a − 1) · (1 − (L/H)^(a−1)) / (1 − (L/H)^a).
    // a = 2, L = 1, H = 4: 2 · 0.75 / 0.9375 = 1.6.
    let m = HbdLifetime::new(2.0, 1.0, 4.0).unwrap().mean();
    assert!((m - 1.6).abs() < 1e-12, "{m}");
    // a = 0.5, L = 1, H = 4: 0.5/(−0.5) · (1 − 4^0.5)/(1 − 4^−0.5) = −1 · (−1)/0.5 = 2.
    let m = HbdLifetime::new(0.5, 1.0, 4.0).unwrap().mean();
    assert!((m - 2.0).abs() < 1e-12, "{m}");
    // Scale: L = 2, H = 8 doubles the a = 2 case: 3.2.
    let m = HbdLifetime::new(2.0, 2.0, 8.0).unwrap().mean();
    assert!((m - 3.2).abs() < 1e-12, "{m}");
    // The a ≠ 1 form is continuous through a = 1 (no cancellation blow-up either side).
    let at_one = HbdLifetime::default().mean();
    for a in [1.0 - 1e-9, 1.0 + 1e-9, 1.0 - 1e-13, 1.0 + 1e-13] {
        let m = HbdLifetime::new(a, 1.0, 1573.5).unwrap().mean();
        assert!((m - at_one).abs() < 1e-6, "a = {a}: {m} vs {at_one}");
    }
}

#[test]
fn hbd_survival_is_the_bounded_paper_form() {
    for (a, l, h) in [(1.0, 1.0, 1573.5), (0.8, 1.0, 1e4), (1.3, 0.5, 100.0)] {
        let d = HbdLifetime::new(a, l, h).unwrap();
        for x in [l * 1.01, 2.0, 7.0, 50.0, h * 0.99] {
            if x > l && x < h {
                let p = bounded_pareto_survival(a, l, h, x);
                assert!((d.survival(x) - p).abs() < 1e-12, "a={a} x={x}");
            }
        }
        assert_eq!(d.survival(l * 0.5), 1.0);
        assert_eq!(d.survival(h), 0.0);
        assert_eq!(d.survival(h * 2.0), 0.0);
    }
}

#[test]
fn hbd_tail_matches_bounded_pareto_a1_and_a08() {
    // Infinite-mean tails without the bound: compare P(L > x) at several x, not means.
    for (a, h) in [(1.0, 1573.5), (0.8, 1e4)] {
        let d = HbdLifetime::new(a, 1.0, h).unwrap();
        let xs = draws(21, HbdLifetime::STREAM, N, |r| d.sample(r));
        for x in [1.5, 2.0, 4.0, 16.0, 64.0, 256.0, 1000.0] {
            // ((1/x)^a − (1/H)^a) / (1 − (1/H)^a); a = 1, x = 2: (0.5 − 1/1573.5)/(1 − 1/1573.5).
            assert_tail(&xs, x, bounded_pareto_survival(a, 1.0, h, x), &format!("HBD a={a}"));
        }
    }
}

#[test]
fn hbd_sample_mean_matches_closed_form() {
    // Bounded, so the variance is finite: E[X²] = a L²/(a − 2) · (1 − (L/H)^(a−2)) / (1 − (L/H)^a),
    // which is L H at a = 1.
    // a = 1, L = 1, H = 1573.5: mean 7.36574, E[X²] = 1573.5.
    let d = HbdLifetime::default();
    let xs = draws(5, HbdLifetime::STREAM, N, |r| d.sample(r));
    let m = 1573.5 / 1572.5 * 1573.5f64.ln();
    assert_mean_within_4se(&xs, m, 1573.5 - m * m, "HBD a=1");
    // a = 1.5, L = 1, H = 10^4: mean 3 (1 − 10^−2)/(1 − 10^−6) = 2.970003,
    // E[X²] = −3 (1 − 100)/(1 − 10^−6) = 297.0003.
    let d = HbdLifetime::new(1.5, 1.0, 1e4).unwrap();
    let xs = draws(5, HbdLifetime::STREAM, N, |r| d.sample(r));
    let m = 3.0 * (1.0 - 1e-2) / (1.0 - 1e-6);
    assert!((d.mean() - m).abs() < 1e-12);
    let second = -3.0 * (1.0 - 100.0) / (1.0 - 1e-6);
    assert_mean_within_4se(&xs, m, second - m * m, "HBD a=1.5");
}

#[test]
fn hbd_samples_stay_in_support() {
    for (a, l, h) in [(1.0, 1.0, 1573.5), (0.3, 1e-3, 1e6), (20.0, 1.0, 1.0001)] {
        let d = HbdLifetime::new(a, l, h).unwrap();
        for x in draws(1, HbdLifetime::STREAM, 20_000, |r| d.sample(r)) {
            assert!((l..=h).contains(&x), "{x} outside [{l}, {h}]");
        }
    }
}

#[test]
fn hbd_rejects_bad_parameters() {
    for (a, l, h, name) in [
        (0.0, 1.0, 10.0, "shape_a"),
        (-1.0, 1.0, 10.0, "shape_a"),
        (f64::NAN, 1.0, 10.0, "shape_a"),
        (f64::INFINITY, 1.0, 10.0, "shape_a"),
        (1.0, 0.0, 10.0, "min_s"),
        (1.0, -1.0, 10.0, "min_s"),
        (1.0, f64::NAN, 10.0, "min_s"),
        (1.0, f64::INFINITY, 10.0, "min_s"),
        (1.0, 1.0, 1.0, "max_s"),
        (1.0, 2.0, 1.0, "max_s"),
        (1.0, 1.0, f64::INFINITY, "max_s"),
        (1.0, 1.0, f64::NAN, "max_s"),
    ] {
        let err = HbdLifetime::new(a, l, h).unwrap_err();
        assert!(err.starts_with(name), "({a}, {l}, {h}): {err}");
        assert!(err.contains("must be"), "{err}");
    }
    assert!(HbdLifetime::with_max(0.5).unwrap_err().contains("> min_s = 1"));
}

// ---------------------------------------------------------------- Pareto memory

#[test]
fn memory_defaults() {
    let d = ParetoMemory::default();
    // 4 MiB mean, shape 2, scale x_m = mean (a − 1)/a = 2 MiB.
    assert_eq!(d.mean(), 4_194_304.0);
    assert_eq!(d.shape(), 2.0);
    assert_eq!(d.scale_bytes(), 2_097_152.0);
    assert_eq!(d, ParetoMemory::new(4_194_304.0, 2.0).unwrap());
    // Shape 4: x_m = 4 MiB · 3/4 = 3 MiB.
    assert_eq!(ParetoMemory::with_shape(4.0).unwrap().scale_bytes(), 3_145_728.0);
}

#[test]
fn memory_tail_matches_pareto_shape2() {
    // Shape 2 has infinite variance: compare P(X > x) = (x_m/x)^2 instead of the mean.
    let d = ParetoMemory::default();
    let xm = 2_097_152.0;
    let xs = draws(31, ParetoMemory::STREAM, N, |r| d.sample(r));
    for (k, p) in [
        (1.5, 1.0 / 2.25),
        (2.0, 0.25),
        (4.0, 0.0625),
        (10.0, 0.01),
        (30.0, 1.0 / 900.0),
    ] {
        assert!((d.survival(k * xm) - p).abs() < 1e-12);
        assert_tail(&xs, k * xm, p, "memory a=2");
    }
}

#[test]
fn memory_sample_mean_matches_closed_form() {
    // Shape 4: mean 4 MiB; Var = x_m² a / ((a − 1)² (a − 2)) = (3 MiB)² · 4 / (9 · 2) = 2 MiB².
    let d = ParetoMemory::with_shape(4.0).unwrap();
    let mib = 1_048_576.0;
    let xs = draws(32, ParetoMemory::STREAM, N, |r| d.sample(r));
    assert_mean_within_4se(&xs, 4.0 * mib, 2.0 * mib * mib, "memory a=4");
}

#[test]
fn memory_samples_stay_in_support() {
    for (mean, shape) in [(4_194_304.0, 2.0), (1.0, 1.0001), (1e300, 1.5)] {
        let d = ParetoMemory::new(mean, shape).unwrap();
        for x in draws(2, ParetoMemory::STREAM, 20_000, |r| d.sample(r)) {
            assert!(x.is_finite() && x >= d.scale_bytes(), "{x}");
        }
    }
}

#[test]
fn memory_rejects_bad_parameters() {
    for (mean, shape, name) in [
        (0.0, 2.0, "mean_bytes"),
        (-1.0, 2.0, "mean_bytes"),
        (f64::NAN, 2.0, "mean_bytes"),
        (f64::INFINITY, 2.0, "mean_bytes"),
        (4e6, 1.0, "shape"),
        (4e6, 0.5, "shape"),
        (4e6, f64::NAN, "shape"),
        (4e6, f64::INFINITY, "shape"),
        // The scale 5e-324 · (1.5 − 1)/1.5 underflows to 0.
        (5e-324, 1.5, "mean_bytes"),
    ] {
        let err = ParetoMemory::new(mean, shape).unwrap_err();
        assert!(err.starts_with(name), "({mean}, {shape}): {err}");
    }
    assert!(ParetoMemory::with_shape(1.0).unwrap_err().contains("> 1"));
}

// ---------------------------------------------------------------- Poisson arrivals

#[test]
fn poisson_mean_gap_and_tail() {
    // Exponential gaps: mean 1/λ, standard deviation 1/λ, P(gap > x) = e^(−λx).
    let rate = 2.5;
    let p = PoissonArrivals::new(rate).unwrap();
    assert_eq!(p.mean_gap_s(), 0.4);
    let gaps = draws(41, PoissonArrivals::STREAM, N, |r| p.next_gap(r));
    assert_mean_within_4se(&gaps, 0.4, 0.16, "Poisson gaps");
    for x in [0.1, 0.4, 1.0, 2.0] {
        assert_tail(&gaps, x, (-rate * x).exp(), "Poisson gaps");
    }
    assert!(gaps.iter().all(|&g| g.is_finite() && g >= 0.0));
}

#[test]
fn poisson_arrivals_are_cumulative_gaps() {
    let p = PoissonArrivals::new(0.7).unwrap();
    let times = p.arrivals(&mut stream(9, PoissonArrivals::STREAM), 1000);
    let gaps = draws(9, PoissonArrivals::STREAM, 1000, |r| p.next_gap(r));
    assert_eq!(times.len(), 1000);
    // The first arrival is after the first gap, not at 0.
    assert_eq!(times[0], gaps[0]);
    assert!(times[0] > 0.0);
    let mut t = 0.0;
    for (i, g) in gaps.iter().enumerate() {
        t += g;
        assert_eq!(times[i], t);
    }
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    assert!(p.arrivals(&mut stream(9, PoissonArrivals::STREAM), 0).is_empty());
    // The N-th arrival is near N/λ: mean N/λ, standard deviation √N/λ.
    let times = p.arrivals(&mut stream(10, PoissonArrivals::STREAM), N);
    let last = times[N - 1];
    let expected = N as f64 / 0.7;
    assert!(
        (last - expected).abs() <= 4.0 * (N as f64).sqrt() / 0.7,
        "{last} vs {expected}"
    );
}

#[test]
fn poisson_rate_for_utilisation() {
    // λ = ρ k / E[S]: ρ = 0.7 on 6 nodes with the default HBD mean 7.36574 s: λ = 4.2 / 7.36574.
    let es = HbdLifetime::default().mean();
    let p = PoissonArrivals::for_utilisation(0.7, es, 6).unwrap();
    assert!((p.rate_per_s() - 4.2 / es).abs() < 1e-15);
    assert!((p.offered_load(es, 6) - 0.7).abs() < 1e-15);
    // ρ = 0.5, E[S] = 2 s, 1 server: λ = 0.25/s, mean gap 4 s.
    let p = PoissonArrivals::for_utilisation(0.5, 2.0, 1).unwrap();
    assert_eq!(p.rate_per_s(), 0.25);
    assert_eq!(p.mean_gap_s(), 4.0);
    // Overload is allowed: ρ = 1.2 on 3 servers of 1 s: λ = 3.6.
    assert!((PoissonArrivals::for_utilisation(1.2, 1.0, 3).unwrap().rate_per_s() - 3.6).abs() < 1e-15);
    // The sampled utilisation: (work arriving per second) / servers ≈ ρ.
    let life = HbdLifetime::new(1.5, 1.0, 1e4).unwrap();
    let p = PoissonArrivals::for_utilisation(0.6, life.mean(), 4).unwrap();
    let jobs = synthetic_jobs(12, N, &life, &p, None);
    let work: f64 = jobs.iter().map(|j| j.runtime_s).sum();
    let rho = work / jobs[N - 1].submit_s / 4.0;
    // Relative variance of the estimate ≈ (CV_S² + 1)/N: CV_S² = Var S / E[S]² for the work,
    // 1 for the N-th arrival (a sum of N exponentials). Within 4 standard errors of ρ.
    let (m, second) = (life.mean(), -3.0 * (1.0 - 100.0) / (1.0 - 1e-6));
    let se = 0.6 * (((second - m * m) / (m * m) + 1.0) / N as f64).sqrt();
    assert!((rho - 0.6).abs() <= 4.0 * se, "{rho} vs 0.6 ± {}", 4.0 * se);
    assert!(p.offered_load(1.0, 0).is_nan());
}

#[test]
fn poisson_rejects_bad_parameters() {
    for rate in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(PoissonArrivals::new(rate).unwrap_err().starts_with("rate_per_s"));
    }
    for (rho, es, k, name) in [
        (0.0, 1.0, 1, "target_rho"),
        (-0.5, 1.0, 1, "target_rho"),
        (f64::NAN, 1.0, 1, "target_rho"),
        (f64::INFINITY, 1.0, 1, "target_rho"),
        (0.5, 0.0, 1, "mean_service_s"),
        (0.5, f64::NAN, 1, "mean_service_s"),
        (0.5, f64::INFINITY, 1, "mean_service_s"),
        (0.5, 1.0, 0, "servers"),
        // 1e308 · 6 / 1e-308 overflows.
        (1e308, 1e-308, 6, "target_rho × servers / mean_service_s"),
    ] {
        let err = PoissonArrivals::for_utilisation(rho, es, k).unwrap_err();
        assert!(err.starts_with(name), "({rho}, {es}, {k}): {err}");
    }
}

// ---------------------------------------------------------------- uniform I/O rate

#[test]
fn io_rate_mean_and_support() {
    // Mean m on [0, 2m]: m = 1.4 accesses/ms, Var = (2.8)²/12.
    let d = UniformIoRate::new(1.4).unwrap();
    assert_eq!((d.lo(), d.hi(), d.mean()), (0.0, 2.8, 1.4));
    let xs = draws(51, UniformIoRate::STREAM, N, |r| d.sample(r));
    assert_mean_within_4se(&xs, 1.4, 2.8 * 2.8 / 12.0, "I/O rate");
    assert!(xs.iter().all(|&x| (0.0..=2.8).contains(&x)));
    // P(X > x) = (hi − x)/(hi − lo).
    for x in [0.28, 1.4, 2.52] {
        assert_tail(&xs, x, (2.8 - x) / 2.8, "I/O rate");
    }
    // An explicit range [1, 3]: mean 2, P(X > 1.5) = 0.75.
    let d = UniformIoRate::range(1.0, 3.0).unwrap();
    assert_eq!(d.mean(), 2.0);
    let xs = draws(52, UniformIoRate::STREAM, N, |r| d.sample(r));
    assert!(xs.iter().all(|&x| (1.0..=3.0).contains(&x)));
    assert_tail(&xs, 1.5, 0.75, "I/O rate [1, 3]");
    assert_mean_within_4se(&xs, 2.0, 4.0 / 12.0, "I/O rate [1, 3]");
    // Degenerate: mean 0 is a workload without I/O.
    let d = UniformIoRate::new(0.0).unwrap();
    assert!(draws(53, UniformIoRate::STREAM, 100, |r| d.sample(r))
        .iter()
        .all(|&x| x == 0.0));
}

#[test]
fn io_rate_rejects_bad_parameters() {
    for m in [-0.1, f64::NAN, f64::INFINITY, 1e308] {
        assert!(UniformIoRate::new(m).unwrap_err().starts_with("mean"), "{m}");
    }
    for (lo, hi, name) in [
        (-1.0, 1.0, "lo"),
        (f64::NAN, 1.0, "lo"),
        (f64::INFINITY, f64::INFINITY, "lo"),
        (2.0, 1.0, "hi"),
        (0.0, f64::INFINITY, "hi"),
        (0.0, f64::NAN, "hi"),
    ] {
        let err = UniformIoRate::range(lo, hi).unwrap_err();
        assert!(err.starts_with(name), "({lo}, {hi}): {err}");
    }
}

// ---------------------------------------------------------------- properties

/// `10^e`: spreads magnitudes evenly over the exponent range.
fn magnitude(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo..hi).prop_map(|e: f64| 10f64.powf(e))
}

proptest! {
    #[test]
    fn hbd_samples_finite_and_in_support(
        a in magnitude(-3.0, 3.0),
        l in magnitude(-300.0, 300.0),
        ratio in magnitude(-12.0, 300.0),
        seed in any::<u64>(),
    ) {
        let h = l * (1.0 + ratio);
        prop_assume!(h.is_finite() && h > l);
        let d = HbdLifetime::new(a, l, h).unwrap();
        let mut rng = stream(seed, HbdLifetime::STREAM);
        for _ in 0..64 {
            let x = d.sample(&mut rng);
            prop_assert!(x.is_finite() && (l..=h).contains(&x), "{} outside [{}, {}]", x, l, h);
        }
        let m = d.mean();
        prop_assert!(m.is_finite() && (l..=h).contains(&m), "mean {}", m);
        let s = d.survival(l + (h - l) / 2.0);
        prop_assert!((0.0..=1.0).contains(&s));
    }

    #[test]
    fn memory_samples_finite_and_in_support(
        mean in magnitude(-300.0, 300.0),
        excess in magnitude(-12.0, 3.0),
        seed in any::<u64>(),
    ) {
        let shape = 1.0 + excess;
        prop_assume!(shape > 1.0);
        let d = ParetoMemory::new(mean, shape).unwrap();
        let mut rng = stream(seed, ParetoMemory::STREAM);
        for _ in 0..64 {
            let x = d.sample(&mut rng);
            prop_assert!(x.is_finite() && x >= d.scale_bytes(), "{} below {}", x, d.scale_bytes());
        }
    }

    #[test]
    fn poisson_gaps_finite_and_nonnegative(rate in magnitude(-300.0, 300.0), seed in any::<u64>()) {
        let p = PoissonArrivals::new(rate).unwrap();
        let times = p.arrivals(&mut stream(seed, PoissonArrivals::STREAM), 64);
        prop_assert!(times.iter().all(|t| t.is_finite() && *t >= 0.0));
        prop_assert!(times.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn io_rates_finite_and_in_support(x in magnitude(-300.0, 300.0), y in magnitude(-300.0, 300.0), seed in any::<u64>()) {
        let (lo, hi) = if x <= y { (x, y) } else { (y, x) };
        for d in [UniformIoRate::range(lo, hi).unwrap(), UniformIoRate::range(0.0, hi).unwrap()] {
            let mut rng = stream(seed, UniformIoRate::STREAM);
            for _ in 0..64 {
                let v = d.sample(&mut rng);
                prop_assert!(v.is_finite() && (d.lo()..=d.hi()).contains(&v));
            }
        }
        if let Ok(d) = UniformIoRate::new(x) {
            let v = d.sample(&mut stream(seed, UniformIoRate::STREAM));
            prop_assert!(v.is_finite() && (0.0..=2.0 * x).contains(&v));
        }
    }

    #[test]
    fn constructors_never_panic(a in any::<f64>(), b in any::<f64>(), c in any::<f64>(), k in any::<u32>()) {
        // Any f64, NaN and infinities included: either an error or a generator whose samples
        // are finite and in support.
        let mut rng = stream(1, "proptest");
        if let Ok(d) = HbdLifetime::new(a, b, c) {
            let x = d.sample(&mut rng);
            prop_assert!(x.is_finite() && (b..=c).contains(&x));
            prop_assert!(d.mean().is_finite());
        }
        if let Ok(d) = ParetoMemory::new(a, b) {
            prop_assert!(d.sample(&mut rng).is_finite());
        }
        if let Ok(d) = PoissonArrivals::new(a) {
            prop_assert!(d.next_gap(&mut rng).is_finite());
        }
        if let Ok(d) = PoissonArrivals::for_utilisation(a, b, k) {
            prop_assert!(d.next_gap(&mut rng) >= 0.0);
        }
        if let Ok(d) = UniformIoRate::range(a, b) {
            prop_assert!((a..=b).contains(&d.sample(&mut rng)));
        }
        if let Ok(d) = UniformIoRate::new(a) {
            prop_assert!(d.sample(&mut rng).is_finite());
        }
    }
}

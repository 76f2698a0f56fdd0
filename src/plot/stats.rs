//! Means and 95% confidence intervals over replications (Student t).

/// Two-sided 95% quantiles t(0.975, df) for df = 1..=30.
const T975: [f64; 30] = [
    12.706204736,
    4.302652730,
    3.182446305,
    2.776445105,
    2.570581836,
    2.446911851,
    2.364624252,
    2.306004135,
    2.262157163,
    2.228138852,
    2.200985160,
    2.178812830,
    2.160368656,
    2.144786688,
    2.131449546,
    2.119905299,
    2.109815578,
    2.100922040,
    2.093024054,
    2.085963447,
    2.079613845,
    2.073873068,
    2.068657610,
    2.063898562,
    2.059538553,
    2.055529439,
    2.051830516,
    2.048407142,
    2.045229642,
    2.042272456,
];

/// The normal quantile z(0.975).
const Z975: f64 = 1.959963984540054;

/// t(0.975, df): exact table values up to 30 degrees of freedom, then the Cornish-Fisher
/// expansion of the t quantile around the normal one (error below 1e-6 for df > 30).
pub fn t975(df: usize) -> f64 {
    assert!(df >= 1, "a t quantile needs at least one degree of freedom");
    if df <= T975.len() {
        return T975[df - 1];
    }
    let z = Z975;
    let n = df as f64;
    let (z3, z5, z7, z9) = (z.powi(3), z.powi(5), z.powi(7), z.powi(9));
    z + (z3 + z) / (4.0 * n)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * n * n)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * n.powi(3))
        + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / (92160.0 * n.powi(4))
}

/// Mean and 95% confidence interval of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Sample size.
    pub n: usize,
    /// Sample mean.
    pub mean: f64,
    /// Half-width of the 95% confidence interval of the mean (0 for one value).
    pub half_width: f64,
}

/// Mean and Student-t 95% confidence half-width (`t(0.975, n-1) · s / sqrt(n)`, with `s` the
/// sample standard deviation). `None` for an empty sample.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Some(Summary {
            n,
            mean,
            half_width: 0.0,
        });
    }
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64;
    Some(Summary {
        n,
        mean,
        half_width: t975(n - 1) * (var / n as f64).sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_published_values() {
        assert_eq!(t975(1), 12.706204736);
        assert_eq!(t975(10), 2.228138852);
        // Beyond the table: reference values of t(0.975, df).
        for (df, expected) in [
            (31, 2.039513446),
            (40, 2.021075390),
            (60, 2.000297822),
            (120, 1.979930405),
        ] {
            assert!(
                (t975(df) - expected).abs() < 1e-6,
                "df {df}: {} vs {expected}",
                t975(df)
            );
        }
        assert!((t975(1_000_000) - Z975).abs() < 1e-5);
    }

    #[test]
    fn summary_of_a_hand_computed_sample() {
        // Values 1..=5: mean 3, s^2 = 2.5, half-width = t(0.975, 4) * sqrt(2.5 / 5).
        let s = summarize(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(s.n, 5);
        assert_eq!(s.mean, 3.0);
        assert!((s.half_width - 2.776445105 * 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(
            summarize(&[7.0]).unwrap(),
            Summary {
                n: 1,
                mean: 7.0,
                half_width: 0.0
            }
        );
        assert!(summarize(&[]).is_none());
    }
}

//! Means and 95% confidence intervals over replications (Student t, [`schedulers::stats`]).

use schedulers::stats::t_factor;

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
        half_width: t_factor(0.95, n - 1) * (var / n as f64).sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_a_hand_computed_sample() {
        // Values 1..=5: mean 3, s^2 = 2.5, half-width = t(0.975, 4) * sqrt(2.5 / 5).
        let s = summarize(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(s.n, 5);
        assert_eq!(s.mean, 3.0);
        assert!((s.half_width - 2.776445105 * 0.5f64.sqrt()).abs() < 1e-9);
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

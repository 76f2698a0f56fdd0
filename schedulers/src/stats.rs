//! Student-t confidence intervals, shared by the skeleton families' batch means and the
//! figures' intervals over replications. The quantile is statrs' inverse of Student's t
//! distribution function.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The `p` quantile of Student's t with `df >= 1` degrees of freedom; NaN outside `0 < p < 1`
/// or for `df = 0`.
pub fn student_t_quantile(p: f64, df: usize) -> f64 {
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) if p > 0.0 && p < 1.0 => t.inverse_cdf(p),
        _ => f64::NAN,
    }
}

/// Half-width factor of a two-sided `confidence` interval (e.g. 0.95) with `df` degrees of
/// freedom; infinite with none.
pub fn t_factor(confidence: f64, df: usize) -> f64 {
    if df == 0 {
        return f64::INFINITY;
    }
    student_t_quantile(0.5 + confidence / 2.0, df)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_published_tables_and_closed_forms() {
        // Upper critical values of Student's t (NIST/SEMATECH e-Handbook, Table 1.3.6.7.2, to 3
        // decimals) and, to 9, Abramowitz & Stegun Table 26.10's t(0.975, df).
        for (p, df, t) in [
            (0.975, 1, 12.706),
            (0.975, 2, 4.303),
            (0.975, 4, 2.776),
            (0.975, 9, 2.262),
            (0.975, 29, 2.045),
            (0.975, 60, 2.000),
            (0.995, 1, 63.657),
            (0.995, 10, 3.169),
        ] {
            let q = student_t_quantile(p, df);
            assert!((q - t).abs() < 5e-4 + 1e-5 * t, "p {p} df {df}: {q}");
        }
        for (df, t) in [
            (1, 12.706204736),
            (10, 2.228138852),
            (30, 2.042272456),
            (120, 1.979930405),
        ] {
            assert!((student_t_quantile(0.975, df) - t).abs() < 1e-8, "df {df}");
        }
        // df = 1 is Cauchy: the p quantile is tan(pi (p - 1/2)); df = 2 has t = (2p-1) sqrt(2 / (4p(1-p))).
        for p in [0.6, 0.9, 0.975, 0.999] {
            let cauchy = (std::f64::consts::PI * (p - 0.5)).tan();
            assert!(
                (student_t_quantile(p, 1) - cauchy).abs() < 1e-9 * cauchy.abs().max(1.0),
                "p {p}"
            );
            let two = (2.0 * p - 1.0) * (2.0 / (4.0 * p * (1.0 - p))).sqrt();
            assert!((student_t_quantile(p, 2) - two).abs() < 1e-9 * two.max(1.0), "p {p}");
        }
        assert!(t_factor(0.95, 0).is_infinite());
        assert_eq!(t_factor(0.95, 19), student_t_quantile(0.975, 19));
        assert!(student_t_quantile(1.0, 3).is_nan() && student_t_quantile(0.5, 0).is_nan());
    }
}

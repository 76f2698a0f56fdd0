//! Random host availability: each host alternates up and down periods drawn independently, an
//! alternating renewal process, so its long-run available fraction is
//! `MTBF / (MTBF + MTTR)` whatever the distributions.
//!
//! - **Exponential** (`mtbf_s`, `mttr_s`): up periods exponential with mean MTBF, down periods
//!   exponential with mean MTTR: the memoryless model of most availability studies.
//! - **Weibull** (`mtbf_s`, `mttr_s`, `shape` k): up and down periods Weibull with shape k, each
//!   scaled to its mean (scale = mean / Γ(1 + 1/k)). The Failure Trace Archive's analyses fit
//!   Weibull shapes below 1 to both the availability and the unavailability intervals of most of
//!   its traces (Kondo, Javadi, Iosup & Epema, CCGrid 2010, §V); one shape for both is the
//!   reading taken here, with k = 1 giving the exponential model back.
//!
//! Readings taken:
//! - Every host starts up at time 0 with a fresh up period (as if just repaired).
//! - Periods are drawn up to `horizon_s`; the profile then repeats with that period (a state
//!   profile's `LOOPAFTER`), so a run longer than the horizon keeps failing at the same rate. A
//!   down period still running at the horizon ends there.
//! - The caller gives each host its own random stream (the runner names it after the host and
//!   derives it from the run's seed), so replications differ and schedulers compared on the same
//!   seed see the same failures.

use rand::Rng;
use rand_distr::{Distribution, Exp, Weibull};
use sim_core::profile::Profile;

/// Most profile events one host may get over the horizon (two per failure): beyond it the
/// profile would cost more memory than any run can use.
pub const MAX_EVENTS_PER_HOST: f64 = 1e6;

/// The distribution of up and down periods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FailureModel {
    /// Exponential up and down periods.
    Exponential {
        /// Mean up period, s.
        mtbf_s: f64,
        /// Mean down period, s.
        mttr_s: f64,
    },
    /// Weibull up and down periods of one shape.
    Weibull {
        /// Mean up period, s.
        mtbf_s: f64,
        /// Mean down period, s.
        mttr_s: f64,
        /// Shape k (> 0): below 1 most periods are short and a few very long.
        shape: f64,
    },
}

impl FailureModel {
    /// Checks the parameters: means and shape positive and finite. The message names the
    /// parameter.
    pub fn check(&self) -> Result<(), String> {
        let (mtbf, mttr, shape) = self.parts();
        for (name, v) in [("mtbf_s", mtbf), ("mttr_s", mttr), ("shape", shape)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name} must be a positive number, not {v}"));
            }
        }
        Ok(())
    }

    /// The long-run fraction of time up: MTBF / (MTBF + MTTR).
    pub fn mean_availability(&self) -> f64 {
        let (mtbf, mttr, _) = self.parts();
        mtbf / (mtbf + mttr)
    }

    /// Profile events one host gets over `horizon_s` on average (two per failure).
    pub fn expected_events(&self, horizon_s: f64) -> f64 {
        let (mtbf, mttr, _) = self.parts();
        1.0 + 2.0 * horizon_s / (mtbf + mttr)
    }

    fn parts(&self) -> (f64, f64, f64) {
        match *self {
            FailureModel::Exponential { mtbf_s, mttr_s } => (mtbf_s, mttr_s, 1.0),
            FailureModel::Weibull { mtbf_s, mttr_s, shape } => (mtbf_s, mttr_s, shape),
        }
    }

    /// One host's state profile over `horizon_s` (value 1 up, 0 down), repeating after it.
    /// The model must have passed [`FailureModel::check`] and `horizon_s` be positive.
    pub fn profile<R: Rng>(&self, rng: &mut R, horizon_s: f64) -> Result<Profile, String> {
        self.check()?;
        if !(horizon_s.is_finite() && horizon_s > 0.0) {
            return Err(format!("horizon_s must be a positive number, not {horizon_s}"));
        }
        if self.expected_events(horizon_s) > MAX_EVENTS_PER_HOST {
            return Err(format!(
                "mtbf_s + mttr_s is too short for horizon_s = {horizon_s}: about {:e} events per host, at most {MAX_EVENTS_PER_HOST:e}",
                self.expected_events(horizon_s)
            ));
        }
        let (mtbf, mttr, shape) = self.parts();
        let up = Periods::new(mtbf, shape)?;
        let down = Periods::new(mttr, shape)?;
        let mut events = vec![(0.0, 1.0)];
        let mut t = 0.0;
        loop {
            t += up.sample(rng);
            if t >= horizon_s {
                break;
            }
            events.push((t, 0.0));
            t += down.sample(rng);
            if t >= horizon_s {
                break;
            }
            events.push((t, 1.0));
        }
        Profile::new(events, Some(horizon_s)).map_err(|e| e.to_string())
    }
}

/// Periods of a given mean: exponential (shape 1) or Weibull.
enum Periods {
    Exp(Exp<f64>),
    Weibull(Weibull<f64>),
}

impl Periods {
    fn new(mean: f64, shape: f64) -> Result<Periods, String> {
        if shape == 1.0 {
            return Exp::new(1.0 / mean).map(Periods::Exp).map_err(|e| e.to_string());
        }
        let scale = mean / statrs::function::gamma::gamma(1.0 + 1.0 / shape);
        Weibull::new(scale, shape)
            .map(Periods::Weibull)
            .map_err(|e| e.to_string())
    }

    fn sample<R: Rng>(&self, rng: &mut R) -> f64 {
        match self {
            Periods::Exp(d) => d.sample(rng),
            Periods::Weibull(d) => d.sample(rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// The fraction of `[0, horizon]` a state profile is up.
    fn up_fraction(p: &Profile, horizon: f64) -> f64 {
        let events = p.events();
        let mut up = 0.0;
        for (i, &(date, value)) in events.iter().enumerate() {
            let until = events.get(i + 1).map_or(horizon, |e| e.0);
            if value != 0.0 {
                up += until - date;
            }
        }
        up / horizon
    }

    #[test]
    fn exponential_availability_matches_mtbf_over_mtbf_plus_mttr() {
        // Closed form of an alternating renewal process: 1000 / (1000 + 250) = 0.8. Over 1e8 s
        // (80,000 cycles) the fraction's standard error is about 0.1%.
        let model = FailureModel::Exponential {
            mtbf_s: 1000.0,
            mttr_s: 250.0,
        };
        let p = model.profile(&mut ChaCha8Rng::seed_from_u64(1), 1e8).unwrap();
        let a = up_fraction(&p, 1e8);
        assert!((a - 0.8).abs() < 0.005, "{a}");
        assert_eq!(model.mean_availability(), 0.8);
    }

    #[test]
    fn weibull_availability_matches_and_its_periods_have_the_given_mean() {
        // Shape 0.5: periods' coefficient of variation sqrt(Γ(5)/Γ(3)² - 1) = √5; 1e9 s holds
        // about 90,000 cycles, a standard error near 0.5% on the fraction.
        let model = FailureModel::Weibull {
            mtbf_s: 10_000.0,
            mttr_s: 1_000.0,
            shape: 0.5,
        };
        let p = model.profile(&mut ChaCha8Rng::seed_from_u64(2), 1e9).unwrap();
        let a = up_fraction(&p, 1e9);
        assert!((a - 10.0 / 11.0).abs() < 0.02, "{a}");
        // Mean up period: the dates of the down events minus those of the up events before them.
        let e = p.events();
        let ups: Vec<f64> = e
            .windows(2)
            .filter(|w| w[0].1 == 1.0)
            .map(|w| w[1].0 - w[0].0)
            .collect();
        let mean = ups.iter().sum::<f64>() / ups.len() as f64;
        assert!((mean / 10_000.0 - 1.0).abs() < 0.05, "{mean}");
    }

    #[test]
    fn weibull_of_shape_one_is_the_exponential_model() {
        let exp = FailureModel::Exponential {
            mtbf_s: 50.0,
            mttr_s: 5.0,
        };
        let wei = FailureModel::Weibull {
            mtbf_s: 50.0,
            mttr_s: 5.0,
            shape: 1.0,
        };
        let a = exp.profile(&mut ChaCha8Rng::seed_from_u64(3), 1e4).unwrap();
        let b = wei.profile(&mut ChaCha8Rng::seed_from_u64(3), 1e4).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn profiles_start_up_alternate_and_repeat_after_the_horizon() {
        let model = FailureModel::Exponential {
            mtbf_s: 100.0,
            mttr_s: 10.0,
        };
        let p = model.profile(&mut ChaCha8Rng::seed_from_u64(4), 5000.0).unwrap();
        assert_eq!(p.events()[0], (0.0, 1.0));
        assert!(p.events().windows(2).all(|w| w[0].1 != w[1].1 && w[0].0 <= w[1].0));
        assert!(p.events().last().unwrap().0 < 5000.0);
        assert_eq!(p.period(), Some(5000.0));
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |m: FailureModel, h: f64| m.profile(&mut ChaCha8Rng::seed_from_u64(0), h).unwrap_err();
        let exp = |mtbf_s, mttr_s| FailureModel::Exponential { mtbf_s, mttr_s };
        assert!(bad(exp(0.0, 1.0), 10.0).starts_with("mtbf_s must be a positive number"));
        assert!(bad(exp(1.0, -1.0), 10.0).starts_with("mttr_s must be a positive number"));
        let w = FailureModel::Weibull {
            mtbf_s: 1.0,
            mttr_s: 1.0,
            shape: f64::NAN,
        };
        assert!(bad(w, 10.0).starts_with("shape must be a positive number"));
        assert!(bad(exp(1.0, 1.0), 0.0).starts_with("horizon_s must be a positive number"));
        // 1e9 s of 2 s cycles: a billion events per host.
        assert!(bad(exp(1.0, 1.0), 1e9).contains("too short for horizon_s"));
    }
}

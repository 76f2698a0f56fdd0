//! Simulated time.
//!
//! Time is seconds as `f64` in a newtype with a total order (`f64::total_cmp`), so it can key the
//! event queue. There is one tolerance for comparing times, [`EPSILON`]; handlers never compare
//! bare floats.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Sub};

/// The one tolerance for time comparisons (seconds). SimGrid uses the same default for its
/// `precision/timing` setting.
pub const EPSILON: f64 = 1e-9;

/// A point in simulated time, in seconds since the start of the run. Never negative, never NaN.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimTime(f64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0.0);
    /// A time after every finite time: "never".
    pub const INFINITY: SimTime = SimTime(f64::INFINITY);

    /// Wraps seconds. Negative or NaN values are clamped to zero, because the engine only ever
    /// builds times from sums of non-negative durations.
    pub fn from_secs(secs: f64) -> SimTime {
        if secs.is_nan() || secs < 0.0 {
            SimTime(0.0)
        } else {
            SimTime(secs)
        }
    }

    /// Seconds since the start of the run.
    pub fn secs(self) -> f64 {
        self.0
    }

    /// True when the two times are within [`EPSILON`] of each other.
    pub fn approx_eq(self, other: SimTime) -> bool {
        (self.0 - other.0).abs() <= EPSILON
    }

    /// True for every time but [`SimTime::INFINITY`].
    pub fn is_finite(self) -> bool {
        self.0.is_finite()
    }

    /// Bit pattern that orders like the time itself (valid because times are never negative).
    pub(crate) fn order_key(self) -> u64 {
        self.0.to_bits()
    }
}

impl Eq for SimTime {}

impl PartialOrd for SimTime {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SimTime {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl Add<f64> for SimTime {
    type Output = SimTime;
    fn add(self, secs: f64) -> SimTime {
        SimTime::from_secs(self.0 + secs)
    }
}

impl Sub for SimTime {
    type Output = f64;
    fn sub(self, earlier: SimTime) -> f64 {
        self.0 - earlier.0
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_key_orders_like_time() {
        let times = [0.0, 1e-300, 1e-9, 0.5, 1.0, 3.25, 1e12, f64::INFINITY];
        for pair in times.windows(2) {
            let (a, b) = (SimTime::from_secs(pair[0]), SimTime::from_secs(pair[1]));
            assert!(a < b);
            assert!(a.order_key() < b.order_key());
        }
    }

    #[test]
    fn negative_and_nan_clamp_to_zero() {
        assert_eq!(SimTime::from_secs(-1.0), SimTime::ZERO);
        assert_eq!(SimTime::from_secs(f64::NAN), SimTime::ZERO);
    }

    #[test]
    fn approx_eq_uses_epsilon() {
        let t = SimTime::from_secs(10.0);
        assert!(t.approx_eq(t + EPSILON / 2.0));
        assert!(!t.approx_eq(t + 10.0 * EPSILON));
    }
}

//! NWS-style forecasting of a measured series (CPU availability, link latency).
//!
//! The AMoGeT paper (§4.3) feeds its rates with forecasts of the Network Weather Service
//! (Wolski, Spring & Hayes, *Future Generation Computer Systems* 15, 1999): a battery of simple
//! forecasters runs side by side on the measurement history, each one's cumulative error is
//! tracked, and the forecast of the forecaster with the least error is reported.
//!
//! **Forecasters.** Each predicts the next value `x_{t+1}` from `x_1..x_t`:
//! * last value: `x_t`;
//! * running mean: `(x_1 + … + x_t) / t`;
//! * sliding-window mean of the last `w` values (fewer at the start);
//! * sliding-window median of the last `w` values (the mean of the two middle values when the
//!   window holds an even number of values);
//! * α-trimmed mean of the last `w` values: sort the window, drop `⌊α·n⌋` values from each end
//!   (keeping at least one), average the rest. *Interpretation:* the brief's "trimmed
//!   medians" is read as this NWS median-family estimator, since trimming a window symmetrically
//!   never changes its median; `α → 0.5` gives the median, `α = 0` the mean;
//! * exponential smoothing with gain `g`: `s_1 = x_1`, `s_t = s_{t−1} + g·(x_t − s_{t−1})`,
//!   predicting `s_t`.
//!
//! **Errors.** Forecaster `f` is scored on every one-step-ahead prediction it makes:
//! `e_t = x_{t+1} − f(x_1..x_t)` for `t = 1..n−1`; `MSE = Σ e_t² / (n−1)` and
//! `MAE = Σ |e_t| / (n−1)`. The selected forecaster is the one with the least error under the
//! chosen metric (the first in battery order on ties); its forecast from the whole series is
//! the answer. The report also carries the error of the adaptive selector itself, which at each
//! step uses the forecaster with the least error so far (as the NWS does online).

use std::collections::VecDeque;

/// One forecasting method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Forecaster {
    /// The last measurement.
    LastValue,
    /// The mean of all measurements.
    RunningMean,
    /// The mean of the last `w` measurements.
    SlidingMean(usize),
    /// The median of the last `w` measurements.
    SlidingMedian(usize),
    /// The α-trimmed mean of the last `window` measurements.
    TrimmedMean {
        /// Window length.
        window: usize,
        /// Fraction trimmed from each end, in `[0, 0.5)`.
        alpha: f64,
    },
    /// Exponential smoothing with the given gain in `(0, 1]`.
    ExponentialSmoothing(f64),
}

impl Forecaster {
    /// A short name, e.g. `sw_median(10)`.
    pub fn name(&self) -> String {
        match self {
            Forecaster::LastValue => "last_value".into(),
            Forecaster::RunningMean => "running_mean".into(),
            Forecaster::SlidingMean(w) => format!("sw_mean({w})"),
            Forecaster::SlidingMedian(w) => format!("sw_median({w})"),
            Forecaster::TrimmedMean { window, alpha } => format!("trimmed_mean({window},{alpha})"),
            Forecaster::ExponentialSmoothing(g) => format!("exp_smooth({g})"),
        }
    }

    /// The forecast of the next value after `history` (`None` when it is empty).
    pub fn forecast(&self, history: &[f64]) -> Option<f64> {
        let mut s = State::new(*self);
        history.iter().for_each(|&x| s.push(x));
        s.predict()
    }
}

/// The default battery: last value, running mean, sliding means and medians over 5, 10 and
/// 20 values, α-trimmed means (10 values, α = 0.2; 20 values, α = 0.3), and exponential
/// smoothing with gains 0.05, 0.1, 0.2, 0.3, 0.5, 0.75 and 0.9.
pub fn default_battery() -> Vec<Forecaster> {
    let mut v = vec![Forecaster::LastValue, Forecaster::RunningMean];
    for w in [5, 10, 20] {
        v.push(Forecaster::SlidingMean(w));
    }
    for w in [5, 10, 20] {
        v.push(Forecaster::SlidingMedian(w));
    }
    v.push(Forecaster::TrimmedMean { window: 10, alpha: 0.2 });
    v.push(Forecaster::TrimmedMean { window: 20, alpha: 0.3 });
    for g in [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 0.9] {
        v.push(Forecaster::ExponentialSmoothing(g));
    }
    v
}

/// Incremental state of one forecaster.
struct State {
    f: Forecaster,
    n: usize,
    sum: f64,
    last: f64,
    smooth: f64,
    window: VecDeque<f64>,
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
    }
}

impl State {
    fn new(f: Forecaster) -> State {
        State {
            f,
            n: 0,
            sum: 0.0,
            last: 0.0,
            smooth: 0.0,
            window: VecDeque::new(),
        }
    }

    fn capacity(&self) -> usize {
        match self.f {
            Forecaster::SlidingMean(w) | Forecaster::SlidingMedian(w) => w.max(1),
            Forecaster::TrimmedMean { window, .. } => window.max(1),
            _ => 0,
        }
    }

    fn push(&mut self, x: f64) {
        self.smooth = match (self.f, self.n) {
            (_, 0) => x,
            (Forecaster::ExponentialSmoothing(g), _) => self.smooth + g * (x - self.smooth),
            _ => self.smooth,
        };
        self.n += 1;
        self.sum += x;
        self.last = x;
        let cap = self.capacity();
        if cap > 0 {
            if self.window.len() == cap {
                self.window.pop_front();
            }
            self.window.push_back(x);
        }
    }

    fn sorted_window(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.window.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        v
    }

    fn predict(&self) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        Some(match self.f {
            Forecaster::LastValue => self.last,
            Forecaster::RunningMean => self.sum / self.n as f64,
            Forecaster::SlidingMean(_) => self.window.iter().sum::<f64>() / self.window.len() as f64,
            Forecaster::SlidingMedian(_) => median(&self.sorted_window()),
            Forecaster::TrimmedMean { alpha, .. } => {
                let v = self.sorted_window();
                let n = v.len();
                let k = ((alpha * n as f64).floor() as usize).min((n - 1) / 2);
                let kept = &v[k..n - k];
                kept.iter().sum::<f64>() / kept.len() as f64
            }
            Forecaster::ExponentialSmoothing(_) => self.smooth,
        })
    }
}

/// Which cumulative error selects the forecaster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorMetric {
    /// Mean squared error.
    Mse,
    /// Mean absolute error.
    Mae,
}

/// One forecaster's record on a series.
#[derive(Clone, Debug, PartialEq)]
pub struct ForecasterScore {
    /// The forecaster.
    pub forecaster: Forecaster,
    /// Mean squared one-step-ahead error (0 when no prediction could be scored).
    pub mse: f64,
    /// Mean absolute one-step-ahead error (0 when no prediction could be scored).
    pub mae: f64,
    /// Its forecast of the value after the series.
    pub forecast: f64,
}

impl ForecasterScore {
    fn error(&self, m: ErrorMetric) -> f64 {
        match m {
            ErrorMetric::Mse => self.mse,
            ErrorMetric::Mae => self.mae,
        }
    }
}

/// The result of [`nws_forecast`].
#[derive(Clone, Debug, PartialEq)]
pub struct NwsForecast {
    /// One record per forecaster of the battery, in battery order.
    pub scores: Vec<ForecasterScore>,
    /// Index (in `scores`) of the forecaster with the least error.
    pub best: usize,
    /// Its forecast.
    pub forecast: f64,
    /// Number of scored predictions per forecaster (`n − 1`).
    pub predictions: usize,
    /// Mean squared error of the adaptive selector (each step uses the best forecaster so far).
    pub selector_mse: f64,
    /// Mean absolute error of the adaptive selector.
    pub selector_mae: f64,
}

/// Runs the battery on `series`; `None` when the series or the battery is empty.
pub fn nws_forecast(series: &[f64], battery: &[Forecaster], metric: ErrorMetric) -> Option<NwsForecast> {
    if series.is_empty() || battery.is_empty() {
        return None;
    }
    let mut states: Vec<State> = battery.iter().map(|&f| State::new(f)).collect();
    let mut sq = vec![0.0; battery.len()];
    let mut abs = vec![0.0; battery.len()];
    let (mut sel_sq, mut sel_abs) = (0.0, 0.0);
    let pick = |sq: &[f64], abs: &[f64]| {
        let err = |i: usize| if metric == ErrorMetric::Mse { sq[i] } else { abs[i] };
        (1..sq.len()).fold(0, |b, i| if err(i) < err(b) { i } else { b })
    };
    for (t, &x) in series.iter().enumerate() {
        if t > 0 {
            let chosen = pick(&sq, &abs);
            for (i, s) in states.iter().enumerate() {
                let e = x - s.predict().expect("history is not empty");
                sq[i] += e * e;
                abs[i] += e.abs();
                if i == chosen {
                    sel_sq += e * e;
                    sel_abs += e.abs();
                }
            }
        }
        states.iter_mut().for_each(|s| s.push(x));
    }
    let k = (series.len() - 1).max(1) as f64;
    let scores: Vec<ForecasterScore> = states
        .iter()
        .enumerate()
        .map(|(i, s)| ForecasterScore {
            forecaster: battery[i],
            mse: sq[i] / k,
            mae: abs[i] / k,
            forecast: s.predict().expect("history is not empty"),
        })
        .collect();
    let best = (1..scores.len()).fold(0, |b, i| {
        if scores[i].error(metric) < scores[b].error(metric) {
            i
        } else {
            b
        }
    });
    Some(NwsForecast {
        forecast: scores[best].forecast,
        best,
        scores,
        predictions: series.len() - 1,
        selector_mse: sel_sq / k,
        selector_mae: sel_abs / k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forecasts_on_a_hand_computed_series() {
        // Series 1, 3, 2, 6, 4 (hand-computed values):
        let x = [1.0, 3.0, 2.0, 6.0, 4.0];
        assert_eq!(Forecaster::LastValue.forecast(&x), Some(4.0));
        assert_eq!(Forecaster::RunningMean.forecast(&x), Some(16.0 / 5.0));
        assert_eq!(Forecaster::SlidingMean(2).forecast(&x), Some(5.0));
        assert_eq!(Forecaster::SlidingMedian(3).forecast(&x), Some(4.0)); // {2,6,4}
        assert_eq!(Forecaster::SlidingMedian(4).forecast(&x), Some(3.5)); // {2,3,4,6}
                                                                          // Window {1,3,2,6,4} sorted 1,2,3,4,6; alpha 0.2 drops one each end -> (2+3+4)/3.
        assert_eq!(
            Forecaster::TrimmedMean { window: 5, alpha: 0.2 }.forecast(&x),
            Some(3.0)
        );
        // s = 1, 2, 2, 4, 4 with gain 0.5.
        assert_eq!(Forecaster::ExponentialSmoothing(0.5).forecast(&x), Some(4.0));
        assert_eq!(Forecaster::LastValue.forecast(&[]), None);
    }

    #[test]
    fn trimmed_mean_keeps_one_value() {
        // Two values, alpha 0.49: floor(0.98) = 0 trimmed -> mean 1.5; three values, alpha 0.4:
        // floor(1.2) = 1 each end -> the median 2.
        assert_eq!(
            Forecaster::TrimmedMean { window: 9, alpha: 0.49 }.forecast(&[1.0, 2.0]),
            Some(1.5)
        );
        assert_eq!(
            Forecaster::TrimmedMean { window: 9, alpha: 0.4 }.forecast(&[3.0, 1.0, 2.0]),
            Some(2.0)
        );
    }

    #[test]
    fn errors_are_one_step_ahead() {
        // Series 1, 3, 2: last value predicts 1 then 3 -> errors 2, -1: MSE 5/2, MAE 3/2.
        // Running mean predicts 1 then 2 -> errors 2, 0: MSE 2, MAE 1.
        let r = nws_forecast(
            &[1.0, 3.0, 2.0],
            &[Forecaster::LastValue, Forecaster::RunningMean],
            ErrorMetric::Mse,
        )
        .unwrap();
        assert_eq!(r.predictions, 2);
        assert_eq!((r.scores[0].mse, r.scores[0].mae), (2.5, 1.5));
        assert_eq!((r.scores[1].mse, r.scores[1].mae), (2.0, 1.0));
        assert_eq!(r.best, 1);
        assert_eq!(r.forecast, 2.0);
        // Selector: at step 1 both have error 0 -> the first (last value) predicts 1, error 2;
        // both then have squared error 4 -> tie again -> last value predicts 3, error -1.
        // Selector MSE = (4 + 1) / 2.
        assert_eq!(r.selector_mse, 2.5);
        assert!(nws_forecast(&[], &default_battery(), ErrorMetric::Mae).is_none());
    }
}

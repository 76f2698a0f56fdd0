//! Axes: bounds, tick positions and one number format per axis.
//!
//! - **Where the ticks are.** A numeric x axis whose data take at most [`MAX_DATA_TICKS`]
//!   distinct values has a tick at each of them (a sweep over 1e8, 5e8, 1e9 and 2e9 flop gets
//!   those four ticks, on a linear or a logarithmic axis). Otherwise a linear axis has about six
//!   ticks at multiples of 1, 2 or 5 times a power of ten ([`linear_ticks`]) and a logarithmic
//!   one at 1, 2 and 5 times powers of ten, or at powers of ten only ([`log_ticks`]).
//! - **How they are written.** Every tick of an axis is written the same way ([`AxisFormat`]):
//!   plainly with the decimals its finest tick needs ("0.5", "1.0", "1.5"), or, when the axis
//!   reaches 1e5 in magnitude or has a non-zero tick below 1e-3, in scientific form with the
//!   mantissa digits its finest tick needs ("8e4", "1e5"; never "80000" beside "1e5"). Plain
//!   ticks spanning more than two decades (a logarithmic latency axis from 0.01 to 100) are
//!   each written with the decimals they need ("0.01", "0.1", "1", "100", not "100.00").

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// A coordinate (linear or logarithmic) whose ticks and grid lines are given: plotters'
/// `WithKeyPoints` cannot be used on a linear f64 axis with a custom label formatter.
pub struct Ticked<R> {
    /// The coordinate that maps values to pixels.
    pub inner: R,
    /// Labelled ticks.
    pub bold: Vec<f64>,
    /// Unlabelled grid lines.
    pub light: Vec<f64>,
}

impl<R: Ranged<ValueType = f64>> Ranged for Ticked<R> {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// Most distinct x values that each get a tick of their own.
pub const MAX_DATA_TICKS: usize = 8;

/// Axis bounds with a margin; log axes need positive values.
pub fn range(values: impl Iterator<Item = f64>, log: bool) -> Result<(f64, f64), String> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values {
        if log && v <= 0.0 {
            return Err(format!("is on a logarithmic axis but has the value {v}"));
        }
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return Err("has no finite value".into());
    }
    if log {
        let (l, h) = (lo.log10(), hi.log10());
        let pad = ((h - l) * 0.05).max(0.05);
        Ok((10f64.powf(l - pad), 10f64.powf(h + pad)))
    } else if hi > lo {
        let pad = (hi - lo) * 0.05;
        Ok((lo - pad, hi + pad))
    } else {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        Ok((lo - pad, hi + pad))
    }
}

/// The distinct values of `values` in increasing order, when there are 2 to
/// [`MAX_DATA_TICKS`] of them: the ticks of an axis that shows a sweep's few settings.
pub fn data_ticks(values: impl Iterator<Item = f64>) -> Option<Vec<f64>> {
    let mut distinct: Vec<f64> = Vec::new();
    for v in values.filter(|v| v.is_finite()) {
        if !distinct.contains(&v) {
            if distinct.len() == MAX_DATA_TICKS {
                return None;
            }
            distinct.push(v);
        }
    }
    distinct.sort_by(f64::total_cmp);
    (distinct.len() >= 2).then_some(distinct)
}

/// Labelled ticks of a linear axis over `[lo, hi]`, about six at a multiple of 1, 2 or 5 times
/// a power of ten, and unlabelled grid lines halfway between them.
pub fn linear_ticks(lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>) {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return (vec![lo], Vec::new());
    }
    let rough = span / 6.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= rough * (1.0 - 1e-9))
        .unwrap_or(10.0 * magnitude);
    // Multiples k·step: the values printed are then exact up to the last digit shown.
    let (first, last) = ((lo / step).ceil() as i64, (hi / step).floor() as i64);
    let bold = (first..=last).map(|k| k as f64 * step).collect();
    let light = (2 * first - 1..=2 * last + 1)
        .filter(|k| k % 2 != 0)
        .map(|k| k as f64 * step / 2.0)
        .filter(|v| *v >= lo && *v <= hi)
        .collect();
    (bold, light)
}

/// Labelled ticks of a logarithmic axis: 1, 2, 5 times powers of ten inside `[lo, hi]`, or only
/// the powers of ten when that would be more than 8 ticks (then every k-th power if needed).
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (e0, e1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let within = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let dense: Vec<f64> = (e0..=e1)
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .filter(within)
        .collect();
    if dense.len() >= 2 && dense.len() <= 8 {
        return dense;
    }
    let step = ((e1 - e0) / 8 + 1).max(1) as usize;
    let powers: Vec<f64> = (e0..=e1).step_by(step).map(|e| 10f64.powi(e)).filter(within).collect();
    if powers.len() >= 2 {
        powers
    } else {
        dense
    }
}

/// Unlabelled grid lines of a logarithmic axis: 1..9 times powers of ten inside `[lo, hi]`.
pub fn log_minor(lo: f64, hi: f64) -> Vec<f64> {
    let (e0, e1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    if e1 - e0 > 12 {
        return Vec::new();
    }
    (e0..=e1)
        .flat_map(|e| (1..10).map(move |m| m as f64 * 10f64.powi(e)))
        .filter(|v| *v >= lo && *v <= hi)
        .collect()
}

/// How every tick of one axis is written. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisFormat {
    /// Scientific form (`1.5e9`) rather than plain (`1500`).
    pub scientific: bool,
    /// Decimals of the plain number, or of the scientific mantissa.
    pub decimals: usize,
    /// Plain ticks over more than two decades: each tick with the decimals it needs (at most
    /// `decimals`), so that 100 is not written "100.00" because 0.01 needs two.
    pub per_tick: bool,
}

/// Most decimals a tick is written with.
const MAX_DECIMALS: usize = 6;

impl AxisFormat {
    /// The format of an axis with these ticks.
    pub fn for_ticks(ticks: &[f64]) -> AxisFormat {
        let largest = ticks.iter().map(|t| t.abs()).fold(0.0, f64::max);
        // Residues of tick arithmetic (-2.8e-17 for the tick at 0) are zeros.
        let nonzero = |t: &&f64| t.abs() > largest * 1e-12 && t.abs() > 1e-300;
        let smallest = ticks
            .iter()
            .filter(nonzero)
            .map(|t| t.abs())
            .fold(f64::INFINITY, f64::min);
        let scientific = largest >= 1e5 || smallest < 1e-3;
        let exact = |text: String, t: f64| {
            text.parse::<f64>()
                .is_ok_and(|v| (v - t).abs() <= 1e-9 * t.abs().max(largest * 1e-9))
        };
        let decimals = (0..=MAX_DECIMALS)
            .find(|&d| {
                ticks.iter().filter(nonzero).all(|&t| {
                    let text = if scientific {
                        format!("{t:.d$e}")
                    } else {
                        format!("{t:.d$}")
                    };
                    exact(text, t)
                })
            })
            .unwrap_or(MAX_DECIMALS);
        let per_tick = !scientific && largest > smallest * 100.0;
        AxisFormat {
            scientific,
            decimals,
            per_tick,
        }
    }

    /// The text of tick `v`.
    pub fn format(&self, v: f64) -> String {
        let d = self.decimals;
        if v == 0.0 || !v.is_finite() || (self.scientific && v.abs() < 1e-300) {
            return if v.is_finite() { "0".into() } else { format!("{v}") };
        }
        let text = if self.scientific {
            format!("{v:.d$e}")
        } else if self.per_tick {
            (0..d)
                .map(|fewer| format!("{v:.fewer$}"))
                .find(|text| text.parse::<f64>().is_ok_and(|x| (x - v).abs() <= 1e-9 * v.abs()))
                .unwrap_or_else(|| format!("{v:.d$}"))
        } else {
            format!("{v:.d$}")
        };
        // "-0.0" for a residue below the precision shown.
        if text.trim_start_matches('-').chars().all(|c| matches!(c, '0' | '.')) {
            return "0".into();
        }
        text
    }
}

/// Short text for a lone number (a legend's value, not an axis): up to 4 significant digits,
/// exponent form for very large or small values. Magnitudes below 1e-12 print as 0.
pub fn tick_label(v: f64) -> String {
    let v = if v.abs() < 1e-12 { 0.0 } else { v };
    if v == 0.0 || !v.is_finite() {
        return if v == 0.0 { "0".into() } else { format!("{v}") };
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        let text = format!("{v:.3e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        return format!("{mantissa}e{exponent}");
    }
    let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(ticks: &[f64]) -> Vec<String> {
        let f = AxisFormat::for_ticks(ticks);
        ticks.iter().map(|&t| f.format(t)).collect()
    }

    #[test]
    fn one_axis_is_written_in_one_format() {
        // "80000" beside "1e5" on one axis.
        assert_eq!(
            texts(&[0.0, 20000.0, 40000.0, 60000.0, 80000.0, 100000.0]),
            ["0", "2e4", "4e4", "6e4", "8e4", "1e5"]
        );
        assert_eq!(texts(&[1e8, 5e8, 1e9, 2e9]), ["1e8", "5e8", "1e9", "2e9"]);
        assert_eq!(
            texts(&[0.0, 5e8, 1e9, 1.5e9, 2e9]),
            ["0", "5.0e8", "1.0e9", "1.5e9", "2.0e9"]
        );
        assert_eq!(texts(&[0.0, 0.5, 1.0, 1.5]), ["0", "0.5", "1.0", "1.5"]);
        assert_eq!(texts(&[10.0, 20.0, 30.0]), ["10", "20", "30"]);
        // Tick arithmetic residues are written as 0, and 3 × 0.1 as 0.3.
        assert_eq!(
            texts(&[-2.7755575615628914e-17, 0.1, 0.2, 3.0 * 0.1]),
            ["0", "0.1", "0.2", "0.3"]
        );
        assert_eq!(texts(&[1e-4, 2e-4]), ["1e-4", "2e-4"]);
        // A logarithmic axis over four decades: plain, each tick as short as it is exact.
        assert_eq!(texts(&[0.01, 0.1, 1.0, 10.0, 100.0]), ["0.01", "0.1", "1", "10", "100"]);
        assert_eq!(texts(&[0.5, 2.5, 50.0]), ["0.5", "2.5", "50.0"]);
    }

    #[test]
    fn a_sweep_of_few_values_has_a_tick_at_each() {
        // Data at 1e8 and 5e8 had no tick.
        let xs = [2e9, 1e8, 5e8, 1e9, 1e8, 2e9];
        assert_eq!(data_ticks(xs.into_iter()), Some(vec![1e8, 5e8, 1e9, 2e9]));
        assert_eq!(data_ticks((0..9).map(f64::from)), None);
        assert_eq!(data_ticks([3.0, 3.0].into_iter()), None);
    }

    #[test]
    fn linear_ticks_are_round_multiples() {
        let (bold, light) = linear_ticks(-0.3, 10.2);
        assert_eq!(bold, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(light, [1.0, 3.0, 5.0, 7.0, 9.0]);
        let (bold, _) = linear_ticks(0.0, 2.1e9);
        assert_eq!(bold, [0.0, 5e8, 1e9, 1.5e9, 2e9]);
    }

    #[test]
    fn lone_numbers_are_short_and_zero_is_clean() {
        assert_eq!(tick_label(-2.7755575615628914e-17), "0");
        assert_eq!(tick_label(0.05), "0.05");
        assert_eq!(tick_label(1234.5678), "1235");
        assert_eq!(tick_label(2e9), "2e9");
    }
}

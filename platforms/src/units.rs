//! SimGrid unit strings: speeds, bandwidths, times and sizes.
//!
//! A value is a decimal number (C `strtod` syntax without hexadecimal, `inf` or `nan`: `12`,
//! `1.5`, `.5`, `1e9`, `+2E-3`) followed by a unit; surrounding whitespace is ignored. A bare
//! number is taken in the base unit (flop/s, bytes/s, seconds, bytes), as SimGrid does (it prints
//! a deprecation warning). Any other suffix is an error.
//!
//! The tables are SimGrid 3.32's (`src/xbt/parse_units.cpp`), checked by loading one-host
//! platforms into SimGrid 3.32 and printing the parsed value (the table in
//! `tests/units.rs` lists the values SimGrid printed):
//!
//! | kind | units | prefixes |
//! | --- | --- | --- |
//! | speed | `f` | `k M G T P E Z Y` (powers of 1000) |
//! | speed | `flops` | `kilo mega giga tera peta exa zeta yotta` (SimGrid spells `zeta`) |
//! | bandwidth | `Bps` (bytes/s), `bps` (bits/s = 1/8 byte/s) | `k M G T P E Z Y` and `Ki Mi Gi Ti Pi Ei Zi Yi` (powers of 1024) |
//! | time | `w d h m s ms us ns ps` (`m` is a minute) | none |
//! | size | `B` (bytes), `b` (bits) | as bandwidth |
//!
//! So `1Kf`, `1kflops`, `1KBps`, `1MF`, `1min` and `1fs` are all errors, as in SimGrid. The scale
//! of a prefixed unit is computed as SimGrid computes it (the base scale multiplied by 1000 or
//! 1024 once per prefix step) and the value is `number * scale`, so results are bit-identical
//! (`50us` is `4.9999999999999996e-05`, like SimGrid's).

use std::fmt;

/// What kind of quantity a unit string describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// flop/s.
    Speed,
    /// bytes/s.
    Bandwidth,
    /// seconds.
    Time,
    /// bytes.
    Size,
}

impl Quantity {
    fn example(self) -> &'static str {
        match self {
            Quantity::Speed => "a speed such as 1Gf or 98.095Mf",
            Quantity::Bandwidth => "a bandwidth such as 125MBps or 10Gbps",
            Quantity::Time => "a time such as 50us or 1ms",
            Quantity::Size => "a size such as 1GiB or 500MB",
        }
    }
}

/// A string that is not a valid value with a unit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct UnitError {
    /// The offending string.
    pub value: String,
    /// What was expected.
    pub quantity: Quantity,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad unit string \"{}\" (expected {})",
            self.value,
            self.quantity.example()
        )
    }
}

const PREFIX_10: [&str; 8] = ["k", "M", "G", "T", "P", "E", "Z", "Y"];
const PREFIX_2: [&str; 8] = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"];
const PREFIX_10_LONG: [&str; 8] = ["kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta"];

/// Scale of `suffix` for a generated unit family: `unit` with base `scale`, preceded by one of
/// `prefixes` (each step multiplies by `mult`), or the bare unit.
fn family(suffix: &str, unit: &str, scale: f64, mult: f64, prefixes: &[&str; 8]) -> Option<f64> {
    let head = suffix.strip_suffix(unit)?;
    if head.is_empty() {
        return Some(scale);
    }
    let mut value = scale;
    for prefix in prefixes {
        value *= mult;
        if head == *prefix {
            return Some(value);
        }
    }
    None
}

fn scale_of(quantity: Quantity, suffix: &str) -> Option<f64> {
    match quantity {
        Quantity::Speed => family(suffix, "f", 1.0, 1000.0, &PREFIX_10)
            .or_else(|| family(suffix, "flops", 1.0, 1000.0, &PREFIX_10_LONG)),
        Quantity::Bandwidth => family(suffix, "Bps", 1.0, 1000.0, &PREFIX_10)
            .or_else(|| family(suffix, "Bps", 1.0, 1024.0, &PREFIX_2))
            .or_else(|| family(suffix, "bps", 0.125, 1000.0, &PREFIX_10))
            .or_else(|| family(suffix, "bps", 0.125, 1024.0, &PREFIX_2)),
        Quantity::Size => family(suffix, "B", 1.0, 1000.0, &PREFIX_10)
            .or_else(|| family(suffix, "B", 1.0, 1024.0, &PREFIX_2))
            .or_else(|| family(suffix, "b", 0.125, 1000.0, &PREFIX_10))
            .or_else(|| family(suffix, "b", 0.125, 1024.0, &PREFIX_2)),
        Quantity::Time => match suffix {
            "w" => Some(7.0 * 24.0 * 60.0 * 60.0),
            "d" => Some(24.0 * 60.0 * 60.0),
            "h" => Some(60.0 * 60.0),
            "m" => Some(60.0),
            "s" => Some(1.0),
            "ms" => Some(1e-3),
            "us" => Some(1e-6),
            "ns" => Some(1e-9),
            "ps" => Some(1e-12),
            _ => None,
        },
    }
}

/// Length of the longest prefix of `s` that is a decimal floating-point number (`strtod` syntax
/// without hex/inf/nan); 0 if there is none.
fn number_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        let frac_start = i + 1;
        let mut j = frac_start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        digits += j - frac_start;
        if digits > 0 {
            i = j;
        }
    }
    if digits == 0 {
        return 0;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    i
}

/// Parses `value` as a `quantity`; the result is in SI base units. The number may be negative
/// or zero: range checks are the caller's.
pub fn parse(value: &str, quantity: Quantity) -> Result<f64, UnitError> {
    let err = || UnitError {
        value: value.to_string(),
        quantity,
    };
    let s = value.trim();
    let n = number_len(s);
    if n == 0 {
        return Err(err());
    }
    let number: f64 = s[..n].parse().map_err(|_| err())?;
    let suffix = &s[n..];
    let scale = if suffix.is_empty() {
        1.0
    } else {
        scale_of(quantity, suffix).ok_or_else(err)?
    };
    let result = number * scale;
    if !result.is_finite() {
        return Err(err());
    }
    Ok(result)
}

/// A speed in flop/s (`"98.095Mf"`, `"1Gf"`, `"1e9f"`, `"2megaflops"`).
pub fn parse_speed(value: &str) -> Result<f64, UnitError> {
    parse(value, Quantity::Speed)
}

/// A bandwidth in bytes/s (`"125MBps"`, `"10Gbps"` = 1.25e9 bytes/s, `"1KiBps"` = 1024).
pub fn parse_bandwidth(value: &str) -> Result<f64, UnitError> {
    parse(value, Quantity::Bandwidth)
}

/// A duration in seconds (`"50us"`, `"1ms"`, `"2s"`, `"1m"` = 60, `"1e-3"`).
pub fn parse_time(value: &str) -> Result<f64, UnitError> {
    parse(value, Quantity::Time)
}

/// A size in bytes (`"1GiB"` = 2^30, `"500MB"` = 5e8, `"8b"` = 1).
pub fn parse_size(value: &str) -> Result<f64, UnitError> {
    parse(value, Quantity::Size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_prefixes() {
        assert_eq!(number_len("1Ef"), 1);
        assert_eq!(number_len("1E3f"), 3);
        assert_eq!(number_len(".5f"), 2);
        assert_eq!(number_len("1.f"), 2);
        assert_eq!(number_len("."), 0);
        assert_eq!(number_len("e3"), 0);
        assert_eq!(number_len("-1e-3s"), 5);
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "", " ", "f", "Mf", "1 Mf", "0x10f", "inf", "nan", "1e999f", "1Qf", "1,5f", "--1f",
        ] {
            assert!(parse_speed(bad).is_err(), "{bad:?} accepted");
        }
    }
}

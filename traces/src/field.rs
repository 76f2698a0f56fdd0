//! Field parsing shared by the readers: numbers that must be finite, the `-1` = unknown
//! convention of SWF and GWF, and identifiers that must be whole.

use crate::error::TraceError;

/// Parses a finite number (`nan`, `inf` and hex are refused).
pub fn number(line: u64, field: &str, token: &str) -> Result<f64, TraceError> {
    let value: f64 = token
        .parse()
        .map_err(|_| TraceError::field(line, field, format!("\"{token}\" is not a number")))?;
    if !value.is_finite() || token.bytes().any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') {
        return Err(TraceError::field(
            line,
            field,
            format!("\"{token}\" is not a finite number"),
        ));
    }
    Ok(value)
}

/// A number where `-1` means unknown; any other negative value is an error.
pub fn optional(line: u64, field: &str, token: &str) -> Result<Option<f64>, TraceError> {
    let value = number(line, field, token)?;
    if value == -1.0 {
        Ok(None)
    } else if value < 0.0 {
        Err(TraceError::field(
            line,
            field,
            format!("{token} is negative (only -1, meaning unknown, may be)"),
        ))
    } else {
        Ok(Some(value))
    }
}

/// A whole-number identifier or code where `-1` means unknown; other negative values and
/// fractions are errors.
pub fn optional_id(line: u64, field: &str, token: &str) -> Result<Option<i64>, TraceError> {
    match optional(line, field, token)? {
        None => Ok(None),
        Some(v) if v.fract() == 0.0 && v < 9.0e15 => Ok(Some(v as i64)),
        Some(_) => Err(TraceError::field(
            line,
            field,
            format!("{token} is not a whole number (an identifier or code)"),
        )),
    }
}

/// Formats an optional number for a writer: `-1` when unknown, shortest round-trip text else.
pub fn format_optional(value: Option<f64>) -> String {
    match value {
        None => "-1".to_string(),
        Some(v) => format!("{v}"),
    }
}

/// Formats an optional identifier for a writer.
pub fn format_optional_id(value: Option<i64>) -> String {
    match value {
        None => "-1".to_string(),
        Some(v) => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_unknowns_and_ids() {
        assert_eq!(number(1, "f", "12.5").unwrap(), 12.5);
        assert!(number(1, "f", "1O").unwrap_err().message.contains("not a number"));
        assert!(number(1, "f", "inf").is_err());
        assert!(number(1, "f", "NaN").is_err());
        assert_eq!(optional(1, "f", "-1").unwrap(), None);
        assert_eq!(optional(1, "f", "-1.0").unwrap(), None);
        assert!(optional(1, "f", "-2").unwrap_err().message.contains("negative"));
        assert_eq!(optional_id(1, "f", "7").unwrap(), Some(7));
        assert!(optional_id(3, "user", "7.5")
            .unwrap_err()
            .to_string()
            .starts_with("3: field user:"));
    }
}

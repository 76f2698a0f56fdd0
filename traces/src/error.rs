//! The one error type of every reader: a line, the field it is about, and what is wrong.
//!
//! The binary prefixes the file name, so a user reads `kth.swf:42: field run_time: "1O" is not a
//! number`. Line 0 means the input as a whole (an empty file, a trace with no job).

use std::fmt;

/// Why a trace could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct TraceError {
    /// 1-based line number of the decompressed text; 0 for the input as a whole.
    pub line: u64,
    /// The field (column) the error is about, named as the format's documentation names it.
    pub field: Option<String>,
    /// What is wrong, with the offending text.
    pub message: String,
}

impl TraceError {
    /// An error about one field of one line.
    pub fn field(line: u64, field: &str, message: impl Into<String>) -> TraceError {
        TraceError {
            line,
            field: Some(field.to_string()),
            message: message.into(),
        }
    }

    /// An error about a line as a whole.
    pub fn line(line: u64, message: impl Into<String>) -> TraceError {
        TraceError {
            line,
            field: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}: ", self.line)?;
        }
        if let Some(field) = &self.field {
            write!(f, "field {field}: ")?;
        }
        f.write_str(&self.message)
    }
}

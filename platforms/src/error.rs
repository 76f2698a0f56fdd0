//! Typed errors of the platform parsers.
//!
//! Every error names the platform file and, where it has one, the line, the element and the
//! attribute (XML) or field (TOML):
//! `platform.xml:12: host 'foo': attribute 'speed': bad unit string "12Qf" (expected ...)`.

use std::fmt;

use crate::units::UnitError;

/// Which attribute or field an error is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// An XML attribute.
    Attribute(String),
    /// A TOML key.
    Key(String),
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Attribute(name) => write!(f, "attribute '{name}'"),
            Field::Key(name) => write!(f, "field '{name}'"),
        }
    }
}

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The file is not well-formed XML.
    #[error("malformed XML: {0}")]
    Xml(String),
    /// The file is not valid TOML, or does not match the gridsim schema.
    #[error("malformed TOML: {0}")]
    Toml(String),
    /// An element this importer does not know.
    #[error("unknown element <{0}>")]
    UnknownElement(String),
    /// A known element in a place where it is not allowed.
    #[error("<{child}> is not allowed inside <{parent}>")]
    MisplacedElement {
        /// The element.
        child: String,
        /// Its parent.
        parent: String,
    },
    /// An attribute the element does not have.
    #[error("unknown attribute")]
    UnknownAttribute,
    /// A required attribute or field is missing.
    #[error("missing")]
    Missing,
    /// Two mutually exclusive fields are both given.
    #[error("conflicts with field '{0}'")]
    Conflict(String),
    /// A unit string that does not parse.
    #[error("{0}")]
    BadUnit(UnitError),
    /// A value that must be positive is not.
    #[error("must be positive, got {0}")]
    NotPositive(String),
    /// A value that must be non-negative is negative.
    #[error("must not be negative, got {0}")]
    Negative(String),
    /// Any other bad value.
    #[error("bad value \"{value}\": {reason}")]
    BadValue {
        /// The value as written.
        value: String,
        /// Why it is rejected.
        reason: String,
    },
    /// A reference to something that does not exist.
    #[error("unknown {kind} '{name}'")]
    Unknown {
        /// What kind of thing (host, link, zone, trace, ...).
        kind: &'static str,
        /// The name referenced.
        name: String,
    },
    /// A name used twice.
    #[error("duplicate {kind} '{name}'")]
    Duplicate {
        /// What kind of thing.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A referenced file that cannot be read.
    #[error("cannot read '{path}': {message}")]
    ReadFile {
        /// The file name as written in the platform.
        path: String,
        /// The reader's message.
        message: String,
    },
    /// A referenced profile file (or inline trace) that does not parse.
    #[error("{path}:{line}: {message}")]
    Profile {
        /// The profile's file name (or `<inline>`).
        path: String,
        /// Line in the profile text.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A routing declaration that is inconsistent (duplicate route, gateway outside its zone...).
    #[error("{0}")]
    Routing(String),
    /// A SimGrid feature this importer does not support.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// A model setting (`network/*`) the engine would refuse.
    #[error("{0}")]
    Setting(String),
}

/// A platform that cannot be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct PlatformError {
    /// The platform file (as given to the parser).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The element, e.g. `host 'foo'`.
    pub element: Option<String>,
    /// The attribute or field.
    pub field: Option<Field>,
    /// What is wrong.
    #[source]
    pub kind: ErrorKind,
}

impl fmt::Display for PlatformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(element) = &self.element {
            write!(f, ": {element}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl PlatformError {
    /// An error about a whole file.
    pub fn file(file: &str, kind: ErrorKind) -> PlatformError {
        PlatformError {
            file: file.to_string(),
            line: None,
            element: None,
            field: None,
            kind,
        }
    }
}

/// serde's messages name Rust types (`expected i64`); a user reads "an integer".
pub fn plain_types(message: &str) -> String {
    let mut out = message.to_string();
    for (rust, plain) in [
        ("expected i64", "expected an integer"),
        ("expected u64", "expected a non-negative integer"),
        ("expected i32", "expected an integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected usize", "expected a non-negative integer"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected a list"),
        ("expected a map", "expected a table"),
    ] {
        out = out.replace(rust, plain);
    }
    out
}

/// The key of the `key = value` line holding `offset` (unquoted), when that line assigns one.
pub(crate) fn toml_key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text.get(line_start..)?.lines().next().unwrap_or("");
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') || key.starts_with('#') {
        return None;
    }
    Some(key.to_string())
}

/// The 1-based line of a byte offset of `text` (offsets past the end count as the end): how
/// the importers turn a parser's position into the line an error names.
pub(crate) fn line_at_offset(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

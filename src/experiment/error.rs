//! Errors in experiment files, located by file, line and column.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// One problem in an experiment file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The experiment file.
    pub file: PathBuf,
    /// 1-based line, 0 when the problem concerns the whole file.
    pub line: usize,
    /// 1-based column (characters), 0 when `line` is 0.
    pub column: usize,
    /// The field concerned (`schedulers[2].name`, `params.tasks`), empty for syntax errors.
    pub field: String,
    /// What is wrong, and what would be right.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    /// `FILE:LINE:COLUMN: FIELD: MESSAGE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.as_os_str().is_empty() {
            // A message that names its file itself (a file that cannot be read).
            return write!(f, "{}", self.message);
        }
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Every problem found in an experiment file (at least one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExperimentError {
    /// The problems, in the order they were found.
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ExperimentError {}

/// Collects diagnostics for one file, turning byte spans into lines and columns.
pub(crate) struct Reporter<'a> {
    file: &'a Path,
    text: &'a str,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl<'a> Reporter<'a> {
    pub(crate) fn new(file: &'a Path, text: &'a str) -> Reporter<'a> {
        Reporter {
            file,
            text,
            diagnostics: Vec::new(),
        }
    }

    /// Line and column (1-based) of a byte offset.
    pub(crate) fn locate(&self, offset: usize) -> (usize, usize) {
        line_column(self.text, offset)
    }

    /// Records a problem at `span` (a byte range of the file).
    pub(crate) fn error(&mut self, span: Range<usize>, field: impl Into<String>, message: impl Into<String>) {
        let (line, column) = self.locate(span.start);
        self.diagnostics.push(Diagnostic {
            file: self.file.to_path_buf(),
            line,
            column,
            field: field.into(),
            message: message.into(),
        });
    }

    /// Records a problem that concerns the whole file.
    pub(crate) fn file_error(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            file: self.file.to_path_buf(),
            line: 0,
            column: 0,
            field: field.into(),
            message: message.into(),
        });
    }

    /// The span of the line assigning `key` inside `within` (a table's span), for fields that
    /// carry no span of their own (booleans); `within` when there is none.
    pub(crate) fn key_span(&self, within: Range<usize>, key: &str) -> Range<usize> {
        let Some(region) = self.text.get(within.clone()) else {
            return within;
        };
        let mut offset = within.start;
        for line in region.split_inclusive('\n') {
            let trimmed = line.trim_start();
            let assigns = trimmed
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='));
            if assigns {
                let start = offset + (line.len() - trimmed.len());
                return start..start + key.len();
            }
            offset += line.len();
        }
        within
    }

    pub(crate) fn has_errors(&self) -> bool {
        !self.diagnostics.is_empty()
    }

    pub(crate) fn into_error(self) -> ExperimentError {
        ExperimentError {
            diagnostics: self.diagnostics,
        }
    }
}

/// 1-based line and column (in characters) of a byte offset into `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// A TOML syntax or type error as a diagnostic (`FILE:LINE:COLUMN: message`).
pub(crate) fn from_toml(file: &Path, text: &str, err: &toml::de::Error) -> ExperimentError {
    let (line, column) = err.span().map_or((0, 0), |s| line_column(text, s.start));
    let message = platforms::error::plain_types(err.message().trim());
    // Type errors do not say which key they are about; syntax errors and unknown or missing
    // fields already do (or concern no key).
    let is_type_error = ["invalid type", "invalid value", "invalid length", "number too large"]
        .iter()
        .any(|p| message.starts_with(p));
    let field = match err.span() {
        Some(s) if is_type_error => field_at(text, s.start),
        _ => String::new(),
    };
    ExperimentError {
        diagnostics: vec![Diagnostic {
            file: file.to_path_buf(),
            line,
            column,
            field,
            message,
        }],
    }
}

/// The dotted key of the `key = value` entry holding `offset` (a value may span lines), with
/// the `[table]` or the `[[array]]` entry above it (`workload.window_s`, `figures[1].x_log`);
/// empty when no entry holds it.
fn field_at(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let current = text[line_start..].lines().next().unwrap_or("");
    // The entry's first line: this one, or the nearest above (a multi-line value), never
    // across a table header.
    let mut above = before[..line_start].lines().rev().map(str::trim);
    let entry = std::iter::once(current.trim())
        .chain(above.by_ref())
        .take_while(|l| !l.starts_with('['))
        .find(|l| !l.starts_with('#') && l.contains('='));
    let Some((key, _)) = entry.and_then(|l| l.split_once('=')) else {
        return String::new();
    };
    let key = key.trim().trim_matches('"');
    if key.is_empty() {
        return String::new();
    }
    let header_lines: Vec<&str> = before[..line_start]
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('['))
        .collect();
    let Some(header) = header_lines.last() else {
        return key.to_string();
    };
    let table = if let Some(name) = header.strip_prefix("[[") {
        // The k-th entry of an array of tables: count its headers so far.
        let name = name.trim_end_matches(']').trim();
        let index = header_lines
            .iter()
            .filter(|h| {
                h.strip_prefix("[[")
                    .is_some_and(|n| n.trim_end_matches(']').trim() == name)
            })
            .count()
            - 1;
        format!("{name}[{index}]")
    } else {
        header.trim_matches(|c| c == '[' || c == ']').trim().to_string()
    };
    if table.is_empty() {
        key.to_string()
    } else {
        format!("{table}.{key}")
    }
}

/// `a, b, c`, or `none` for an empty list.
pub(crate) fn list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let items: Vec<String> = items.into_iter().map(|s| s.as_ref().to_string()).collect();
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let text = "a = 1\nbé = \"x\"\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        // 'é' is two bytes: the '=' at byte 10 is the line's 4th character.
        assert_eq!(line_column(text, 10), (2, 4));
        assert_eq!(line_column(text, 1000), (3, 1));
    }
}

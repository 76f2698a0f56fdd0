//! What SWF and GWF share: comment headers of `Key: value` pairs, job lines of a fixed number of
//! whitespace-separated fields, and the rule that job lines are sorted by submit time.

use std::fmt::Write as _;
use std::io::BufRead;

use crate::error::TraceError;
use crate::input::Lines;

/// A header: `Key: value` pairs in file order (a key may repeat, as SWF's `Note` does); text
/// that is not a pair is kept with the empty key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// The pairs, continuation lines joined to their value with a newline.
    pub entries: Vec<(String, String)>,
}

impl Header {
    /// The first value of `key` (case-sensitive, as written in the archive).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The header as comment lines starting with `marker` (`;` for SWF, `#` for GWF); reading
    /// them back gives the same entries.
    pub fn to_text(&self, marker: char) -> String {
        let mut out = String::new();
        for (key, value) in &self.entries {
            let mut parts = value.split('\n');
            let first = parts.next().unwrap_or("");
            // A key-less entry is written without `: `, so that it reads back key-less.
            let indent = if key.is_empty() {
                let _ = writeln!(out, "{marker} {first}");
                2
            } else {
                let _ = writeln!(out, "{marker} {key}: {first}");
                key.len() + 4
            };
            for more in parts {
                let _ = writeln!(out, "{marker}{:width$}{more}", "", width = indent - 1);
            }
        }
        out
    }

    /// Takes one comment line (without its marker). `Key: value` starts an entry; an indented
    /// line right after an entry continues its value (`; Information: http://...` then
    /// `;              http://...`); other text is an entry of its own with the empty key.
    /// Returns whether the next line may continue this one.
    fn absorb(&mut self, comment: &str, continues: bool) -> bool {
        let text = comment.trim();
        if text.is_empty() {
            return false;
        }
        let indented = comment.starts_with("  ") || comment.starts_with('\t');
        if !indented {
            if let Some((key, value)) = text.split_once(':') {
                let is_key = !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
                // `http://...` is not a key: a key's colon is followed by white space or nothing.
                if is_key && (value.is_empty() || value.starts_with([' ', '\t'])) {
                    self.entries.push((key.to_string(), value.trim().to_string()));
                    return true;
                }
            }
        }
        match self.entries.last_mut() {
            Some((_, value)) if continues && indented => {
                value.push('\n');
                value.push_str(text);
            }
            _ => self.entries.push((String::new(), text.to_string())),
        }
        true
    }
}

/// The job lines of an SWF-like file: comments before the first job go to the header, later
/// ones and blank lines are skipped.
pub(crate) struct JobLines<R> {
    lines: Lines<R>,
    marker: char,
    format: &'static str,
    header: Header,
    in_header: bool,
    continues: bool,
    previous_submit: Option<(f64, u64)>,
}

impl<R: BufRead> JobLines<R> {
    /// Job lines of `format` (named in messages) whose comments start with `marker`.
    pub(crate) fn new(input: R, marker: char, format: &'static str) -> JobLines<R> {
        JobLines {
            lines: Lines::new(input),
            marker,
            format,
            header: Header::default(),
            in_header: true,
            continues: false,
            previous_submit: None,
        }
    }

    pub(crate) fn header(&self) -> &Header {
        &self.header
    }

    /// The next job line, trimmed of ASCII white space, parsed by `parse` (given the line's
    /// number and text); the parsed job's line number comes with it.
    pub(crate) fn next_job<T>(
        &mut self,
        parse: impl FnOnce(u64, &str) -> Result<T, TraceError>,
    ) -> Option<Result<(u64, T), TraceError>> {
        loop {
            let (n, text) = match self.lines.next_line()? {
                Ok(line) => line,
                Err(e) => return Some(Err(e)),
            };
            // ASCII trimming only: fields are split on ASCII white space, and trimming other
            // white space would cut it off a text field and break reading back what was written.
            let trimmed = text.trim_ascii();
            if let Some(comment) = trimmed.strip_prefix(self.marker) {
                if self.in_header {
                    self.continues = self.header.absorb(comment, self.continues);
                }
                continue;
            }
            if trimmed.is_empty() {
                continue;
            }
            self.in_header = false;
            return Some(parse(n, trimmed).map(|job| (n, job)));
        }
    }

    /// Checks that the job at line `n` is not submitted before the previous one.
    pub(crate) fn check_sorted(&mut self, n: u64, submit_s: f64, field: &str) -> Result<(), TraceError> {
        if let Some((previous, at)) = self.previous_submit {
            if submit_s < previous {
                return Err(TraceError::field(
                    n,
                    field,
                    format!(
                        "{submit_s} comes before the previous job's {previous} (line {at}); {} files are sorted by \
                         submit time and unsorted ones are refused, not reordered (sort the job lines numerically \
                         by their second field)",
                        self.format
                    ),
                ));
            }
        }
        self.previous_submit = Some((submit_s, n));
        Ok(())
    }
}

/// Splits a job line into exactly `N` whitespace-separated fields.
pub(crate) fn split_fields<'a, const N: usize>(
    n: u64,
    text: &'a str,
    format: &str,
) -> Result<[&'a str; N], TraceError> {
    let mut tokens = [""; N];
    let mut count = 0;
    for token in text.split_ascii_whitespace() {
        if count < N {
            tokens[count] = token;
        }
        count += 1;
    }
    if count != N {
        return Err(TraceError::line(
            n,
            format!("{count} fields; {format} job lines have {N} (whitespace-separated, -1 for unknown)"),
        ));
    }
    Ok(tokens)
}

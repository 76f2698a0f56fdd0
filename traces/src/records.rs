//! What SWF and GWF share (and [`JobReader`] reads): comment headers of `Key: value` pairs, job lines of a fixed number of
//! whitespace-separated fields, and the rule that job lines are sorted by submit time.

use std::fmt::Write as _;
use std::io::BufRead;
use std::marker::PhantomData;

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

/// A job record of an SWF-like format: one line of fixed fields, sorted by submit time.
pub trait JobRecord: Sized {
    /// The format's name in messages (`SWF`).
    const FORMAT: &'static str;
    /// The character that starts a comment line.
    const MARKER: char;
    /// The submit time's field name.
    const SUBMIT_FIELD: &'static str;
    /// Parses one job line (no comment, not blank) found at line `n`.
    fn parse(n: u64, text: &str) -> Result<Self, TraceError>;
    /// Submission, seconds.
    fn submit_s(&self) -> f64;
}

/// Streams the jobs of an SWF-like file: comments before the first job go to the header, later
/// ones and blank lines are skipped, and a job submitted before the previous one is refused.
pub struct JobReader<R, J> {
    lines: Lines<R>,
    header: Header,
    in_header: bool,
    continues: bool,
    previous_submit: Option<(f64, u64)>,
    job: PhantomData<J>,
}

impl<R: BufRead, J: JobRecord> JobReader<R, J> {
    /// Reads text already decompressed (see [`crate::input::decompress`]).
    pub fn new(input: R) -> JobReader<R, J> {
        JobReader {
            lines: Lines::new(input),
            header: Header::default(),
            in_header: true,
            continues: false,
            previous_submit: None,
            job: PhantomData,
        }
    }

    /// The header lines read so far (all of them once the first job has been returned).
    pub fn header(&self) -> &Header {
        &self.header
    }

    fn next_job(&mut self) -> Option<Result<J, TraceError>> {
        loop {
            let (n, text) = match self.lines.next_line()? {
                Ok(line) => line,
                Err(e) => return Some(Err(e)),
            };
            // ASCII trimming only: fields are split on ASCII white space, and trimming other
            // white space would cut it off a text field and break reading back what was written.
            let trimmed = text.trim_ascii();
            if let Some(comment) = trimmed.strip_prefix(J::MARKER) {
                if self.in_header {
                    self.continues = self.header.absorb(comment, self.continues);
                }
                continue;
            }
            if trimmed.is_empty() {
                continue;
            }
            self.in_header = false;
            return Some(J::parse(n, trimmed).and_then(|job| self.check_sorted(n, job)));
        }
    }

    fn check_sorted(&mut self, n: u64, job: J) -> Result<J, TraceError> {
        let submit_s = job.submit_s();
        if let Some((previous, at)) = self.previous_submit {
            if submit_s < previous {
                return Err(TraceError::field(
                    n,
                    J::SUBMIT_FIELD,
                    format!(
                        "{submit_s} comes before the previous job's {previous} (line {at}); {} files are sorted by \
                         submit time and unsorted ones are refused, not reordered (sort the job lines numerically \
                         by their second field)",
                        J::FORMAT
                    ),
                ));
            }
        }
        self.previous_submit = Some((submit_s, n));
        Ok(job)
    }
}

impl<R: BufRead, J: JobRecord> Iterator for JobReader<R, J> {
    type Item = Result<J, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_job()
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

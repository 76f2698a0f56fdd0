//! Which format a trace is in: named explicitly, or recognised from the file name and the first
//! line of text.

use std::fmt;

/// The trace formats gridsim reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// Standard Workload Format v2.2 (Parallel Workloads Archive), [`crate::swf`].
    Swf,
    /// Grid Workload Format (Grid Workloads Archive), [`crate::gwf`].
    Gwf,
    /// Failure Trace Archive `event_trace.tab`, [`crate::fta`].
    Fta,
    /// Harchol-Balter & Downey's process lifetime CSV, [`crate::hbd`].
    Hbd,
}

impl TraceFormat {
    /// Every format, in the order `gridsim trace --help` lists them.
    pub const ALL: [TraceFormat; 4] = [TraceFormat::Swf, TraceFormat::Gwf, TraceFormat::Fta, TraceFormat::Hbd];

    /// The short name used on the command line and in experiment files.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Swf => "swf",
            TraceFormat::Gwf => "gwf",
            TraceFormat::Fta => "fta",
            TraceFormat::Hbd => "hbd",
        }
    }

    /// The format with this short name.
    pub fn from_name(name: &str) -> Option<TraceFormat> {
        TraceFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether records of this format are jobs (not availability events).
    pub fn is_workload(self) -> bool {
        !matches!(self, TraceFormat::Fta)
    }

    /// Recognises a format from a file name (`.swf`, `.gwf`, `.tab`, `.csv`, each optionally
    /// followed by `.gz`), else from the first non-blank line of the (decompressed) text:
    /// `;` starts an SWF header, `#` a GWF one, `hour,min,...` is the process trace's header,
    /// `event_id` (or a line of 9 fields, split on single tabs or on runs of white space) an FTA
    /// event trace, and a line of 18 or 29 whitespace-separated fields is SWF or GWF.
    pub fn detect(file_name: &str, first_line: &str) -> Option<TraceFormat> {
        let lower = file_name.to_ascii_lowercase();
        let stem = lower.strip_suffix(".gz").unwrap_or(&lower);
        for (ext, format) in [
            (".swf", TraceFormat::Swf),
            (".gwf", TraceFormat::Gwf),
            (".tab", TraceFormat::Fta),
            (".csv", TraceFormat::Hbd),
        ] {
            if stem.ends_with(ext) {
                return Some(format);
            }
        }
        let line = first_line.trim();
        if line.starts_with(';') {
            return Some(TraceFormat::Swf);
        }
        if line.starts_with('#') {
            return Some(TraceFormat::Gwf);
        }
        if line.replace(' ', "").starts_with("hour,min") {
            return Some(TraceFormat::Hbd);
        }
        if line.starts_with("event_id") || first_line.split('\t').count() == 9 {
            return Some(TraceFormat::Fta);
        }
        match line.split_ascii_whitespace().count() {
            9 => Some(TraceFormat::Fta),
            18 => Some(TraceFormat::Swf),
            29 => Some(TraceFormat::Gwf),
            _ => None,
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

//! The process lifetime trace of Harchol-Balter & Downey.
//!
//! Source: M. Harchol-Balter and A. B. Downey, "Exploiting Process Lifetime Distributions for
//! Dynamic Load Balancing", ACM TOCS 15(3), 1997 (UC Berkeley report CSD-95-887): every process
//! run on a group of workstations over about 20 days, with its arrival and CPU time. The file
//! gridsim ships (`traces/data/CSD-trace.csv.gz`, see its `SOURCES.txt`) is CSV with the header
//! `hour,min,unk,sec,prog`:
//!
//! | column | meaning |
//! |---|---|
//! | `hour` | hour of arrival, a whole number from the trace's start (0–479) |
//! | `min` | minute within that hour, one decimal (0 ≤ min < 60) |
//! | `unk` | an undocumented whole-number class (0–5 in the file), kept as read |
//! | `sec` | CPU seconds, 0.01 s resolution; `.005` stands for "under 10 ms" |
//! | `prog` | program name |
//!
//! A process arrives at `3600 hour + 60 min` seconds. The published rows come in five blocks of
//! hours (240–299, 0–119, 180–239, 120–179, 300–479), each sorted, so unlike SWF this reader
//! does not require sorted input: [`crate::job`] sorts the arrivals (stably, so processes with
//! the same arrival keep file order).

use std::io::BufRead;

use crate::error::TraceError;
use crate::field::number;
use crate::input::Lines;

/// The column names, in file order.
pub const FIELDS: [&str; 5] = ["hour", "min", "unk", "sec", "prog"];

/// One process.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessRecord {
    /// Hour of arrival from the trace's start.
    pub hour: u32,
    /// Minute within the hour, `0 <= minute < 60`.
    pub minute: f64,
    /// The undocumented `unk` class, as read.
    pub class: u32,
    /// CPU seconds (0.005 means under 10 ms).
    pub cpu_s: f64,
    /// Program name (no comma, quote or line break).
    pub program: String,
}

impl ProcessRecord {
    /// Arrival, seconds from the trace's start.
    pub fn arrival_s(&self) -> f64 {
        self.hour as f64 * 3600.0 + self.minute * 60.0
    }

    /// The record as one CSV line: reading it back gives an identical record.
    pub fn to_line(&self) -> String {
        format!(
            "{},{},{},{},{}",
            self.hour, self.minute, self.class, self.cpu_s, self.program
        )
    }
}

/// The header line the format starts with.
pub const HEADER: &str = "hour,min,unk,sec,prog";

/// Streams the processes of a trace; see the module docs.
pub struct HbdReader<R> {
    lines: Lines<R>,
    seen_header: bool,
}

impl<R: BufRead> HbdReader<R> {
    /// Reads trace text (already decompressed).
    pub fn new(input: R) -> HbdReader<R> {
        HbdReader {
            lines: Lines::new(input),
            seen_header: false,
        }
    }
}

impl<R: BufRead> Iterator for HbdReader<R> {
    type Item = Result<ProcessRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (n, text) = match self.lines.next_line()? {
                Ok(line) => line,
                Err(e) => return Some(Err(e)),
            };
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            if !self.seen_header {
                self.seen_header = true;
                if text.replace(' ', "") != HEADER {
                    return Some(Err(TraceError::line(
                        n,
                        format!("expected the header \"{HEADER}\", found \"{}\"", shorten(text)),
                    )));
                }
                continue;
            }
            return Some(parse_line(n, text));
        }
    }
}

fn shorten(text: &str) -> String {
    text.chars().take(60).collect()
}

/// Parses one data line found at line `n`.
pub fn parse_line(n: u64, text: &str) -> Result<ProcessRecord, TraceError> {
    let fields: Vec<&str> = text.splitn(5, ',').map(str::trim).collect();
    if fields.len() != 5 {
        return Err(TraceError::line(
            n,
            format!("{} fields; a process line has 5 ({HEADER})", fields.len()),
        ));
    }
    let whole = |i: usize, max: f64| -> Result<u32, TraceError> {
        let v = number(n, FIELDS[i], fields[i])?;
        if v < 0.0 || v.fract() != 0.0 || v > max {
            return Err(TraceError::field(
                n,
                FIELDS[i],
                format!("{} is not a whole number from 0 to {max}", fields[i]),
            ));
        }
        Ok(v as u32)
    };
    let hour = whole(0, 1.0e6)?;
    let minute = number(n, FIELDS[1], fields[1])?;
    if !(0.0..60.0).contains(&minute) {
        return Err(TraceError::field(
            n,
            FIELDS[1],
            format!("{minute} is outside 0 <= min < 60"),
        ));
    }
    let class = whole(2, 1.0e9)?;
    let cpu_s = number(n, FIELDS[3], fields[3])?;
    if cpu_s < 0.0 {
        return Err(TraceError::field(
            n,
            FIELDS[3],
            format!("{cpu_s} CPU seconds is negative"),
        ));
    }
    let program = fields[4];
    if program.contains([',', '"']) {
        return Err(TraceError::field(
            n,
            FIELDS[4],
            format!("program name \"{}\" contains a comma or a quote", shorten(program)),
        ));
    }
    Ok(ProcessRecord {
        hour,
        minute,
        class,
        cpu_s,
        program: program.to_string(),
    })
}

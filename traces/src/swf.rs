//! The Standard Workload Format (SWF) v2.2 of the Parallel Workloads Archive.
//!
//! Source: D. G. Feitelson et al., "The Standard Workload Format", version 2.2, Parallel
//! Workloads Archive (Chapin et al., JSSPP 1999, and the archive's format page). A log is text:
//!
//! - header lines start with `;` and carry `Key: value` pairs (`Version`, `Computer`, `MaxJobs`,
//!   `MaxProcs`, `UnixStartTime`, `TimeZoneString`, `Note`, ...); a `;` line without a key
//!   continues the previous value;
//! - every other non-blank line is one job: 18 whitespace-separated numeric fields, `-1` for
//!   unknown, in this order: job number, submit time (s, from the log's start), wait time (s),
//!   run time (s), allocated processors, average CPU time used (s), used memory (KB per
//!   processor), requested processors, requested time (s), requested memory (KB per processor),
//!   status, user id, group id, executable number, queue number, partition number, preceding
//!   job number, think time from the preceding job (s).
//!
//! # Readings taken
//!
//! - **Header counts are not trusted.** Cleaned logs keep the original `MaxJobs`; the reader
//!   only reports the header, it never sizes anything by it. Job numbers are kept as written
//!   and never assumed to equal line or record numbers.
//! - **Fractions are accepted** in every time, count and memory field (some logs have
//!   fractional CPU times or processors); identifiers and the status must be whole.
//! - **Runtimes above the request, zero runtimes and partial-execution records** (status 2, 3,
//!   4) are read as written; [`crate::info`] counts them. What a simulation makes of them is
//!   the workload builder's choice ([`crate::job`]).
//! - **Negative values** other than `-1` are errors, as is an unknown (`-1`) submit time.
//! - **Unsorted submit times are refused**, not reordered: the format says lines are sorted by
//!   submit time, a reader that streams cannot sort, and silently reordering would hide a
//!   damaged file. The message names both lines.

use crate::error::TraceError;
use crate::field::{format_optional, format_optional_id, number, optional, optional_id};
use crate::records::{split_fields, Header, JobReader, JobRecord};

/// The 18 field names, in file order, as error messages name them.
pub const FIELDS: [&str; 18] = [
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
];

/// One job line. `None` is the format's `-1` (unknown).
#[derive(Clone, Debug, PartialEq)]
pub struct SwfJob {
    /// Job number as written (not necessarily the line or record number).
    pub job_number: i64,
    /// Seconds from the log's start (`UnixStartTime`).
    pub submit_s: f64,
    /// Seconds between submission and start.
    pub wait_s: Option<f64>,
    /// Wall-clock run time, seconds.
    pub run_s: Option<f64>,
    /// Processors allocated.
    pub allocated_procs: Option<f64>,
    /// Average CPU time used per processor, seconds.
    pub average_cpu_s: Option<f64>,
    /// Memory used per processor, KB.
    pub used_memory_kb: Option<f64>,
    /// Processors requested.
    pub requested_procs: Option<f64>,
    /// Requested (estimated) run time, seconds.
    pub requested_s: Option<f64>,
    /// Memory requested per processor, KB.
    pub requested_memory_kb: Option<f64>,
    /// Status code; see [`SwfStatus`].
    pub status: Option<i64>,
    /// User.
    pub user_id: Option<i64>,
    /// Group.
    pub group_id: Option<i64>,
    /// Executable (application) number.
    pub executable: Option<i64>,
    /// Queue number.
    pub queue: Option<i64>,
    /// Partition number.
    pub partition: Option<i64>,
    /// Job this one depends on.
    pub preceding_job: Option<i64>,
    /// Seconds between the preceding job's end and this submission.
    pub think_s: Option<f64>,
}

/// What a status code means (SWF v2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwfStatus {
    /// 0: the job failed.
    Failed,
    /// 1: the job completed normally.
    Completed,
    /// 2: a partial execution that will be continued (checkpoint, swap-out).
    PartialContinued,
    /// 3: the last partial execution; the job completed.
    PartialLastCompleted,
    /// 4: the last partial execution; the job failed.
    PartialLastFailed,
    /// 5: cancelled (possibly after it started).
    Cancelled,
    /// -1 or a code the format does not define.
    Unknown,
}

impl SwfStatus {
    /// The meaning of a status code (`None` is `-1`); GWF uses the same codes.
    pub fn from_code(code: Option<i64>) -> SwfStatus {
        match code {
            Some(0) => SwfStatus::Failed,
            Some(1) => SwfStatus::Completed,
            Some(2) => SwfStatus::PartialContinued,
            Some(3) => SwfStatus::PartialLastCompleted,
            Some(4) => SwfStatus::PartialLastFailed,
            Some(5) => SwfStatus::Cancelled,
            _ => SwfStatus::Unknown,
        }
    }
}

impl SwfJob {
    /// The meaning of [`SwfJob::status`].
    pub fn status_kind(&self) -> SwfStatus {
        SwfStatus::from_code(self.status)
    }

    /// The job as one SWF line (fields separated by one space, `-1` for unknown, numbers in
    /// shortest round-trip form): reading it back gives an identical record.
    pub fn to_line(&self) -> String {
        let f = format_optional;
        let i = format_optional_id;
        [
            self.job_number.to_string(),
            format!("{}", self.submit_s),
            f(self.wait_s),
            f(self.run_s),
            f(self.allocated_procs),
            f(self.average_cpu_s),
            f(self.used_memory_kb),
            f(self.requested_procs),
            f(self.requested_s),
            f(self.requested_memory_kb),
            i(self.status),
            i(self.user_id),
            i(self.group_id),
            i(self.executable),
            i(self.queue),
            i(self.partition),
            i(self.preceding_job),
            f(self.think_s),
        ]
        .join(" ")
    }
}

/// The header: `Key: value` pairs from the `;` lines before the first job.
pub type SwfHeader = Header;

/// Streams the jobs of an SWF file; see the module docs.
pub type SwfReader<R> = JobReader<R, SwfJob>;

impl JobRecord for SwfJob {
    const FORMAT: &'static str = "SWF";
    const MARKER: char = ';';
    const SUBMIT_FIELD: &'static str = FIELDS[1];

    fn parse(n: u64, text: &str) -> Result<SwfJob, TraceError> {
        parse_line(n, text)
    }

    fn submit_s(&self) -> f64 {
        self.submit_s
    }
}

/// Parses one job line (no comment, not blank) found at line `n`.
pub fn parse_line(n: u64, text: &str) -> Result<SwfJob, TraceError> {
    let tokens = split_fields::<18>(n, text, "SWF")?;
    let f = |i: usize| optional(n, FIELDS[i], tokens[i]);
    let id = |i: usize| optional_id(n, FIELDS[i], tokens[i]);
    let job_number = match id(0)? {
        Some(j) => j,
        None => return Err(TraceError::field(n, FIELDS[0], "is -1; every job needs a number")),
    };
    let submit_s = number(n, FIELDS[1], tokens[1])?;
    if submit_s < 0.0 {
        return Err(TraceError::field(
            n,
            FIELDS[1],
            format!(
                "{} is negative; a job needs a known submit time at or after the log's start",
                tokens[1]
            ),
        ));
    }
    Ok(SwfJob {
        job_number,
        submit_s,
        wait_s: f(2)?,
        run_s: f(3)?,
        allocated_procs: f(4)?,
        average_cpu_s: f(5)?,
        used_memory_kb: f(6)?,
        requested_procs: f(7)?,
        requested_s: f(8)?,
        requested_memory_kb: f(9)?,
        status: id(10)?,
        user_id: id(11)?,
        group_id: id(12)?,
        executable: id(13)?,
        queue: id(14)?,
        partition: id(15)?,
        preceding_job: id(16)?,
        think_s: f(17)?,
    })
}

/// A whole log as text: the header, then one line per job.
pub fn to_text(header: &SwfHeader, jobs: &[SwfJob]) -> String {
    let mut out = header.to_text(';');
    for job in jobs {
        out.push_str(&job.to_line());
        out.push('\n');
    }
    out
}

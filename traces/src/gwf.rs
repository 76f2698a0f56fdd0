//! The Grid Workload Format (GWF) of the Grid Workloads Archive, text flavour.
//!
//! Source: "The Grid Workload Format", Grid Workloads Archive, TU Delft
//! (<http://gwa.ewi.tudelft.nl/grid-workload-format/>), and A. Iosup et al., "The Grid Workloads
//! Archive", Future Generation Computer Systems 24(7), 2008. GWF extends SWF (see [`crate::swf`])
//! with grid fields. The archive ships each trace as an SQLite database and as text; this module
//! reads the text:
//!
//! - lines starting with `#` are comments; those before the first job carry `Key: value` header
//!   pairs ([`GwfHeader`]); a `#` line without a key continues the previous value;
//! - blank lines are skipped;
//! - every other line is one job: 29 whitespace-separated fields, `-1` for unknown, in this order
//!   (units as the description gives them):
//!
//! | # | field | meaning | read as |
//! |---|---|---|---|
//! | 1 | JobID | job number | whole number, required |
//! | 2 | SubmitTime | s (Unix epoch in GWA traces, or from the trace start) | number, required, >= 0 |
//! | 3 | WaitTime | s between submission and start | number |
//! | 4 | RunTime | wall-clock s | number |
//! | 5 | NProcs | processors allocated | number |
//! | 6 | AverageCPUTimeUsed | s per processor | number |
//! | 7 | UsedMemory | KB per processor | number |
//! | 8 | ReqNProcs | processors requested | number |
//! | 9 | ReqTime | requested (estimated) s | number |
//! | 10 | ReqMemory | KB per processor | number |
//! | 11 | Status | 1 completed, 0 failed, 5 cancelled, 2/3/4 SWF partial executions | whole code |
//! | 12–18 | UserID, GroupID, ExecutableID, QueueID, PartitionID, OrigSiteID, LastRunSiteID | identifiers | token |
//! | 19 | JobStructure | `UNITARY` or `BoT` (bag of tasks) | token |
//! | 20 | JobStructureParams | e.g. the bag's batch id (`BatchId=12`, or a number) | token |
//! | 21 | UsedNetwork | KB/s | number |
//! | 22 | UsedLocalDiskSpace | MB | number |
//! | 23 | UsedResources | free list (comma-separated, no spaces) | token |
//! | 24 | ReqPlatform | CPU architecture, OS, OS version | token |
//! | 25 | ReqNetwork | KB/s | number |
//! | 26 | ReqLocalDiskSpace | MB | number |
//! | 27 | ReqResources | free list | token |
//! | 28 | VOID | virtual organisation | token |
//! | 29 | ProjectID | project | token |
//!
//! # Readings taken
//!
//! - **Identifiers are tokens, not numbers.** Real GWA files write users, groups, queues, sites
//!   and the like as strings (`U123`, `G4`, `fs0`, `DAS2/fs3`), so the 13 token fields keep the
//!   text as written. Only the exact token `-1` means unknown there (`-1.0` is kept as text: a
//!   token field has no numeric form to compare).
//! - **Numeric fields accept fractions** (as in [`crate::swf`]); Status must be whole. Negative
//!   values other than `-1` are errors, as is an unknown (`-1`) or negative submit time and an
//!   unknown job number. Units of the network and disk fields are kept as written: nothing here
//!   converts them.
//! - **Unsorted submit times are refused**, not reordered, exactly as for SWF: GWA traces are
//!   sorted by SubmitTime, a streaming reader cannot sort, and reordering would hide a damaged
//!   file. The message names both lines.
//! - **Header keys** are what the SWF reader accepts (letters, digits, `_`), so a column-title
//!   line such as `# JobID SubmitTime ...` is kept as a key-less entry (or a continuation of the
//!   previous value) rather than misread as a key. `#` lines after the first job are comments.
//! - **Bags of tasks**: [`GwfJob::bot_id`] is the JobStructureParams token, whole, when
//!   JobStructure is `BoT` (compared case-insensitively); jobs of one bag share the token.
//! - **Jobs for simulation** ([`GwfJob::to_job`]): processors are NProcs, else ReqNProcs; memory
//!   is UsedMemory, else ReqMemory; the user number is UserID read as a whole number, else the
//!   digits after a non-digit prefix (`U123` → 123), else unknown. Two prefixes in one trace
//!   (`U1`, `G1`) would share a number; the number only groups jobs by user.

use crate::error::TraceError;
use crate::field::{format_optional, format_optional_id, number, optional, optional_id};
use crate::job::{job_from_fields, DropReason, Job};
use crate::records::{split_fields, Header, JobReader, JobRecord};

/// The 29 field names, in file order, as error messages name them.
pub const FIELDS: [&str; 29] = [
    "job_id",
    "submit_time",
    "wait_time",
    "run_time",
    "n_procs",
    "average_cpu_time_used",
    "used_memory",
    "req_n_procs",
    "req_time",
    "req_memory",
    "status",
    "user_id",
    "group_id",
    "executable_id",
    "queue_id",
    "partition_id",
    "orig_site_id",
    "last_run_site_id",
    "job_structure",
    "job_structure_params",
    "used_network",
    "used_local_disk_space",
    "used_resources",
    "req_platform",
    "req_network",
    "req_local_disk_space",
    "req_resources",
    "vo_id",
    "project_id",
];

/// One job line. `None` is the format's `-1` (unknown).
#[derive(Clone, Debug, PartialEq)]
pub struct GwfJob {
    /// JobID as written.
    pub job_id: i64,
    /// SubmitTime, seconds (Unix epoch in GWA traces, or from the trace start).
    pub submit_s: f64,
    /// WaitTime: seconds between submission and start.
    pub wait_s: Option<f64>,
    /// RunTime: wall-clock seconds.
    pub run_s: Option<f64>,
    /// NProcs: processors allocated.
    pub nprocs: Option<f64>,
    /// AverageCPUTimeUsed: seconds per processor.
    pub average_cpu_s: Option<f64>,
    /// UsedMemory: KB per processor.
    pub used_memory_kb: Option<f64>,
    /// ReqNProcs: processors requested.
    pub req_nprocs: Option<f64>,
    /// ReqTime: requested (estimated) run time, seconds.
    pub req_time_s: Option<f64>,
    /// ReqMemory: KB per processor.
    pub req_memory_kb: Option<f64>,
    /// Status: 1 completed, 0 failed, 5 cancelled, 2/3/4 partial executions (SWF codes).
    pub status: Option<i64>,
    /// UserID as written (`U123`).
    pub user_id: Option<String>,
    /// GroupID as written.
    pub group_id: Option<String>,
    /// ExecutableID (application) as written.
    pub executable_id: Option<String>,
    /// QueueID as written.
    pub queue_id: Option<String>,
    /// PartitionID as written.
    pub partition_id: Option<String>,
    /// OrigSiteID: the site the job was submitted to.
    pub orig_site_id: Option<String>,
    /// LastRunSiteID: the site the job last ran on (`DAS2/fs3`).
    pub last_run_site_id: Option<String>,
    /// JobStructure: `UNITARY` or `BoT`.
    pub job_structure: Option<String>,
    /// JobStructureParams: for a bag of tasks, its identifier.
    pub job_structure_params: Option<String>,
    /// UsedNetwork, as written (KB/s per the description).
    pub used_network: Option<f64>,
    /// UsedLocalDiskSpace, as written (MB per the description).
    pub used_local_disk: Option<f64>,
    /// UsedResources: free token.
    pub used_resources: Option<String>,
    /// ReqPlatform: free token (architecture, OS, version).
    pub req_platform: Option<String>,
    /// ReqNetwork, as written (KB/s per the description).
    pub req_network: Option<f64>,
    /// ReqLocalDiskSpace, as written (MB per the description).
    pub req_local_disk: Option<f64>,
    /// ReqResources: free token.
    pub req_resources: Option<String>,
    /// VOID: the virtual organisation.
    pub vo_id: Option<String>,
    /// ProjectID.
    pub project_id: Option<String>,
}

impl GwfJob {
    /// The bag-of-tasks identifier: JobStructureParams when JobStructure is `BoT` (any case).
    pub fn bot_id(&self) -> Option<&str> {
        match &self.job_structure {
            Some(s) if s.eq_ignore_ascii_case("bot") => self.job_structure_params.as_deref(),
            _ => None,
        }
    }

    /// The user as a number (see the module docs): `12` → 12, `U123` → 123, else `None`.
    pub fn user_number(&self) -> Option<i64> {
        let id = self.user_id.as_deref()?;
        if let Ok(v) = id.parse::<i64>() {
            return (v >= 0).then_some(v);
        }
        let digits = id.trim_start_matches(|c: char| !c.is_ascii_digit());
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }

    /// The job a simulation replays, or why the record cannot be one (see [`crate::job`]).
    pub fn to_job(&self) -> Result<Job, DropReason> {
        job_from_fields(
            self.job_id,
            self.submit_s,
            self.run_s,
            self.nprocs,
            self.req_nprocs,
            self.req_time_s,
            self.used_memory_kb.or(self.req_memory_kb),
            self.user_number(),
            matches!(self.status, Some(2..=4)),
        )
    }

    /// The job as one GWF line (fields separated by one space, `-1` for unknown, numbers in
    /// shortest round-trip form): reading it back gives an identical record, provided the record
    /// is one the reader could return (job id and numbers non-negative and finite, token fields
    /// non-empty, without white space and not `-1`).
    pub fn to_line(&self) -> String {
        let f = format_optional;
        let t = |s: &Option<String>| s.clone().unwrap_or_else(|| "-1".to_string());
        [
            self.job_id.to_string(),
            format!("{}", self.submit_s),
            f(self.wait_s),
            f(self.run_s),
            f(self.nprocs),
            f(self.average_cpu_s),
            f(self.used_memory_kb),
            f(self.req_nprocs),
            f(self.req_time_s),
            f(self.req_memory_kb),
            format_optional_id(self.status),
            t(&self.user_id),
            t(&self.group_id),
            t(&self.executable_id),
            t(&self.queue_id),
            t(&self.partition_id),
            t(&self.orig_site_id),
            t(&self.last_run_site_id),
            t(&self.job_structure),
            t(&self.job_structure_params),
            f(self.used_network),
            f(self.used_local_disk),
            t(&self.used_resources),
            t(&self.req_platform),
            f(self.req_network),
            f(self.req_local_disk),
            t(&self.req_resources),
            t(&self.vo_id),
            t(&self.project_id),
        ]
        .join(" ")
    }
}

/// The header: `Key: value` pairs from the `#` lines before the first job; text before any
/// key (such as a line of column titles) has the empty key.
pub type GwfHeader = Header;

/// Streams the jobs of a GWF file; see the module docs.
pub type GwfReader<R> = JobReader<R, GwfJob>;

impl JobRecord for GwfJob {
    const FORMAT: &'static str = "GWF";
    const MARKER: char = '#';
    const SUBMIT_FIELD: &'static str = FIELDS[1];

    fn parse(n: u64, text: &str) -> Result<GwfJob, TraceError> {
        parse_line(n, text)
    }

    fn submit_s(&self) -> f64 {
        self.submit_s
    }
}

/// Parses one job line (no comment, not blank) found at line `n`.
pub fn parse_line(n: u64, text: &str) -> Result<GwfJob, TraceError> {
    let tokens = split_fields::<29>(n, text, "GWF")?;
    let f = |i: usize| optional(n, FIELDS[i], tokens[i]);
    let t = |i: usize| (tokens[i] != "-1").then(|| tokens[i].to_string());
    let job_id = match optional_id(n, FIELDS[0], tokens[0])? {
        Some(j) => j,
        None => return Err(TraceError::field(n, FIELDS[0], "is -1; every job needs a number")),
    };
    let submit_s = number(n, FIELDS[1], tokens[1])?;
    if submit_s < 0.0 {
        return Err(TraceError::field(
            n,
            FIELDS[1],
            format!("{} is negative; a job needs a known submit time", tokens[1]),
        ));
    }
    Ok(GwfJob {
        job_id,
        submit_s,
        wait_s: f(2)?,
        run_s: f(3)?,
        nprocs: f(4)?,
        average_cpu_s: f(5)?,
        used_memory_kb: f(6)?,
        req_nprocs: f(7)?,
        req_time_s: f(8)?,
        req_memory_kb: f(9)?,
        status: optional_id(n, FIELDS[10], tokens[10])?,
        user_id: t(11),
        group_id: t(12),
        executable_id: t(13),
        queue_id: t(14),
        partition_id: t(15),
        orig_site_id: t(16),
        last_run_site_id: t(17),
        job_structure: t(18),
        job_structure_params: t(19),
        used_network: f(20)?,
        used_local_disk: f(21)?,
        used_resources: t(22),
        req_platform: t(23),
        req_network: f(24)?,
        req_local_disk: f(25)?,
        req_resources: t(26),
        vo_id: t(27),
        project_id: t(28),
    })
}

/// A whole trace as text: the header, then one line per job.
pub fn to_text(header: &GwfHeader, jobs: &[GwfJob]) -> String {
    let mut out = header.to_text('#');
    for job in jobs {
        out.push_str(&job.to_line());
        out.push('\n');
    }
    out
}

//! The job stream a simulation replays, built from any workload format, and the selection a
//! study makes of it.
//!
//! # From records to jobs
//!
//! A [`Job`] is what a job-stream simulation needs: an arrival, a run time (wall-clock for SWF
//! and GWF, CPU seconds for the process trace), a processor count, and the request and memory
//! when the trace has them. Records that cannot become a job are dropped and counted by reason
//! ([`Dropped`]), never silently:
//!
//! - an unknown (`-1`) run time: nothing to simulate (cancelled-before-start jobs look so);
//! - an unknown or zero processor count (allocated, else requested);
//! - a partial-execution record (SWF/GWF status 2, 3, 4) unless [`Selection::keep_partial`]:
//!   SWF v2.2 also gives such a job a summary line, so keeping both would count its work twice.
//!
//! A fractional processor count is rounded up. Zero run times and run times above the request
//! are kept as written (they are real; [`crate::info`] counts them).
//!
//! # Selection
//!
//! Applied in this order: the time window (submit times relative to the trace's first job,
//! `[from, to)`), serial jobs only, partial executions, the first N remaining jobs. Then arrivals
//! are rebased so that the first selected job arrives at 0, and divided by the load scale: a
//! scale of 2 packs the same jobs into half the time, doubling the offered load while every
//! job's demand stays as recorded (the usual way to sweep load over a real log).

use std::io::BufRead;

use crate::error::TraceError;
use crate::format::TraceFormat;
use crate::gwf::GwfReader;
use crate::hbd::HbdReader;
use crate::swf::{SwfJob, SwfReader, SwfStatus};

/// One job of a stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The trace's job number (the process trace: its 1-based record number).
    pub id: i64,
    /// Arrival, seconds (after selection: from the first selected job, load-scaled).
    pub submit_s: f64,
    /// Run time, seconds: wall-clock for SWF/GWF, CPU time for the process trace.
    pub runtime_s: f64,
    /// Processors, at least 1: allocated (SWF field 5), else requested (field 8).
    pub procs: u32,
    /// Processors requested (SWF field 8, GWF `ReqNProcs`), rounded up, when known and above 0.
    /// A rigid-job scheduler sizes a job by its request (`schedulers::batch`), `procs` when it
    /// is unknown.
    pub requested_procs: Option<u32>,
    /// The user's run-time estimate, seconds, when known.
    pub requested_s: Option<f64>,
    /// Memory per processor, KB (used, else requested), when known.
    pub memory_kb: Option<f64>,
    /// User, when known.
    pub user: Option<i64>,
    /// Whether the record is a partial execution (SWF/GWF status 2, 3, 4).
    pub partial: bool,
}

/// Why a record did not become a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The run time is unknown.
    UnknownRuntime,
    /// The processor count is unknown or zero.
    NoProcessors,
}

/// Records dropped while building a stream, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Unknown run time.
    pub unknown_runtime: u64,
    /// Unknown or zero processors.
    pub no_processors: u64,
}

impl Dropped {
    fn count(&mut self, reason: DropReason) {
        match reason {
            DropReason::UnknownRuntime => self.unknown_runtime += 1,
            DropReason::NoProcessors => self.no_processors += 1,
        }
    }
}

/// Builds a job from the fields SWF and GWF share.
#[allow(clippy::too_many_arguments)]
pub fn job_from_fields(
    id: i64,
    submit_s: f64,
    run_s: Option<f64>,
    allocated: Option<f64>,
    requested: Option<f64>,
    requested_s: Option<f64>,
    memory_kb: Option<f64>,
    user: Option<i64>,
    partial: bool,
) -> Result<Job, DropReason> {
    let runtime_s = run_s.ok_or(DropReason::UnknownRuntime)?;
    let procs = allocated
        .filter(|&p| p > 0.0)
        .or(requested.filter(|&p| p > 0.0))
        .ok_or(DropReason::NoProcessors)?;
    Ok(Job {
        id,
        submit_s,
        runtime_s,
        procs: procs.ceil().min(u32::MAX as f64) as u32,
        requested_procs: requested
            .filter(|&p| p > 0.0)
            .map(|p| p.ceil().min(u32::MAX as f64) as u32),
        requested_s,
        memory_kb,
        user,
        partial,
    })
}

impl SwfJob {
    /// The job this record describes (see the module docs for what is dropped).
    pub fn to_job(&self) -> Result<Job, DropReason> {
        let partial = matches!(
            self.status_kind(),
            SwfStatus::PartialContinued | SwfStatus::PartialLastCompleted | SwfStatus::PartialLastFailed
        );
        job_from_fields(
            self.job_number,
            self.submit_s,
            self.run_s,
            self.allocated_procs,
            self.requested_procs,
            self.requested_s,
            self.used_memory_kb.or(self.requested_memory_kb),
            self.user_id,
            partial,
        )
    }
}

/// What part of a trace a study replays; see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// Keep jobs submitted in `[from, to)` seconds after the trace's first job.
    pub window_s: Option<(f64, f64)>,
    /// Keep only the first N jobs (after the other filters).
    pub first: Option<u64>,
    /// Keep only jobs on one processor.
    pub serial_only: bool,
    /// Keep partial-execution records (default false: the summary line stands for the job).
    pub keep_partial: bool,
    /// Arrival times are divided by this (> 0; default 1).
    pub load_scale: f64,
}

impl Default for Selection {
    fn default() -> Selection {
        Selection {
            window_s: None,
            first: None,
            serial_only: false,
            keep_partial: false,
            load_scale: 1.0,
        }
    }
}

/// A job stream ready to replay.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workload {
    /// Jobs in arrival order (ties in file order).
    pub jobs: Vec<Job>,
    /// Records dropped because they could not become jobs.
    pub dropped: Dropped,
    /// Records read from the trace.
    pub records: u64,
}

/// Reads a whole trace of `format` (already decompressed) into the stream `selection` keeps.
/// Memory is proportional to the jobs kept: a window or `first` stops reading as soon as no
/// later record can be kept.
pub fn read_workload<R: BufRead>(format: TraceFormat, input: R, selection: &Selection) -> Result<Workload, TraceError> {
    if !(selection.load_scale.is_finite() && selection.load_scale > 0.0) {
        return Err(TraceError::line(
            0,
            format!("load scale {} must be a positive number", selection.load_scale),
        ));
    }
    let mut builder = Builder::new(selection);
    match format {
        TraceFormat::Swf => {
            for record in SwfReader::new(input) {
                if builder.push(record?.to_job()) {
                    break;
                }
            }
        }
        TraceFormat::Gwf => {
            for record in GwfReader::new(input) {
                if builder.push(record?.to_job()) {
                    break;
                }
            }
        }
        TraceFormat::Hbd => {
            // Arrivals come in unsorted blocks (see `hbd`): read all, sort, then select.
            let mut all = Vec::new();
            for (i, record) in HbdReader::new(input).enumerate() {
                let r = record?;
                all.push(Job {
                    id: i as i64 + 1,
                    submit_s: r.arrival_s(),
                    runtime_s: r.cpu_s,
                    procs: 1,
                    requested_procs: None,
                    requested_s: None,
                    memory_kb: None,
                    user: None,
                    partial: false,
                });
            }
            all.sort_by(|a, b| a.submit_s.total_cmp(&b.submit_s));
            for job in all {
                if builder.push(Ok(job)) {
                    break;
                }
            }
        }
        TraceFormat::Fta => {
            return Err(TraceError::line(
                0,
                "an FTA event trace describes host availability, not jobs; name it as `[platform] availability`",
            ))
        }
    }
    Ok(builder.finish())
}

struct Builder<'a> {
    selection: &'a Selection,
    origin: Option<f64>,
    workload: Workload,
}

impl<'a> Builder<'a> {
    fn new(selection: &'a Selection) -> Builder<'a> {
        Builder {
            selection,
            origin: None,
            workload: Workload::default(),
        }
    }

    /// Takes the next record in arrival order; true when no later record can be kept.
    fn push(&mut self, job: Result<Job, DropReason>) -> bool {
        self.workload.records += 1;
        let job = match job {
            Ok(job) => job,
            Err(reason) => {
                self.workload.dropped.count(reason);
                return false;
            }
        };
        let origin = *self.origin.get_or_insert(job.submit_s);
        let s = self.selection;
        if let Some((from, to)) = s.window_s {
            let t = job.submit_s - origin;
            if t >= to {
                return true;
            }
            if t < from {
                return false;
            }
        }
        if (s.serial_only && job.procs != 1) || (job.partial && !s.keep_partial) {
            return false;
        }
        self.workload.jobs.push(job);
        s.first.is_some_and(|n| self.workload.jobs.len() as u64 >= n)
    }

    fn finish(mut self) -> Workload {
        if let Some(start) = self.workload.jobs.first().map(|j| j.submit_s) {
            for job in &mut self.workload.jobs {
                job.submit_s = (job.submit_s - start) / self.selection.load_scale;
            }
        }
        self.workload
    }
}

//! What is in a trace: `gridsim trace info`.
//!
//! One pass over the records (no selection, nothing dropped) gathers the counts, the time span,
//! the quantiles of run time and size, the offered utilisation, the fields that are unknown in
//! every record, and the count of records with odd values. Memory: the run times and sizes are
//! kept for the quantiles (16 bytes per job), nothing else per job.
//!
//! Offered utilisation is `Σ runtime · procs / (span · processors)`, with `span` from the first
//! to the last submission and `processors` the header's `MaxProcs` (SWF), else the largest job.
//! For the process trace (one processor per process, machine count not recorded) it is reported
//! per processor as the mean number of busy processors, `Σ cpu / span`.

use std::io::BufRead;

use serde::Serialize;

use crate::error::TraceError;
use crate::format::TraceFormat;
use crate::fta::{EventType, FtaReader};
use crate::gwf::GwfReader;
use crate::hbd::HbdReader;
use crate::swf::{SwfReader, SwfStatus};

/// Quantiles of a sample (nearest rank), or `None` when the sample is empty.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Quantiles {
    /// Smallest.
    pub min: f64,
    /// 25th percentile.
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// 75th percentile.
    pub p75: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
    /// Mean.
    pub mean: f64,
}

impl Quantiles {
    /// The quantiles of `values` (sorted here; NaN never occurs: readers refuse it).
    pub fn of(values: &mut [f64]) -> Option<Quantiles> {
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let at = |q: f64| nearest_rank(values, q);
        Some(Quantiles {
            min: values[0],
            p25: at(0.25),
            p50: at(0.5),
            p75: at(0.75),
            p90: at(0.9),
            p99: at(0.99),
            max: values[values.len() - 1],
            mean: values.iter().sum::<f64>() / values.len() as f64,
        })
    }
}

/// The `q`-quantile of a sorted, non-empty sample by nearest rank: the smallest value with at
/// least a fraction `q` of the sample at or below it. NaN for an empty sample.
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

/// Records whose values are legal but unusual, by kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OddCounts {
    /// Run time exactly 0.
    pub runtime_zero: u64,
    /// Run time unknown (-1).
    pub runtime_unknown: u64,
    /// Run time above the requested time.
    pub runtime_above_request: u64,
    /// Processor count unknown or 0.
    pub procs_unknown_or_zero: u64,
    /// Status 0 (failed) or 4 (last partial execution, failed).
    pub failed: u64,
    /// Status 5 (cancelled).
    pub cancelled: u64,
    /// Status 2, 3 or 4 (partial executions).
    pub partial: u64,
    /// A job number seen before.
    pub duplicate_job_number: u64,
}

/// Summary of a job trace (SWF, GWF, process trace).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobTraceInfo {
    /// Format short name.
    pub format: &'static str,
    /// Job records.
    pub jobs: u64,
    /// First submission, seconds from the trace's origin.
    pub first_submit_s: f64,
    /// Last submission.
    pub last_submit_s: f64,
    /// Processors of the machine (SWF `MaxProcs`), else the largest job's.
    pub processors: Option<f64>,
    /// Where `processors` came from: `header` or `largest job`.
    pub processors_source: &'static str,
    /// Offered utilisation (see the module docs).
    pub utilisation_offered: Option<f64>,
    /// Run time quantiles, seconds (known run times only).
    pub runtime_s: Option<Quantiles>,
    /// Size (processors per job) quantiles.
    pub size_procs: Option<Quantiles>,
    /// Fields that are unknown (-1) in every record.
    pub all_unknown_fields: Vec<&'static str>,
    /// Unusual records.
    pub odd: OddCounts,
    /// Header `Key: value` pairs (SWF, GWF).
    pub header: Vec<(String, String)>,
}

/// Summary of an availability trace (FTA).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AvailabilityTraceInfo {
    /// Format short name.
    pub format: &'static str,
    /// Event records.
    pub events: u64,
    /// Distinct nodes.
    pub nodes: u64,
    /// Earliest event start, trace time (epoch seconds).
    pub first_event_s: f64,
    /// Latest event end (or start), trace time.
    pub last_event_s: f64,
    /// Availability and unavailability events.
    pub available_events: u64,
    /// Unavailability events.
    pub unavailable_events: u64,
    /// Events with another type code.
    pub other_events: u64,
    /// Events still open at the end of the trace.
    pub open_events: u64,
    /// Length of unavailability intervals, seconds (closed ones).
    pub unavailable_interval_s: Option<Quantiles>,
}

/// A summary of either kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TraceInfo {
    /// A job trace.
    Jobs(JobTraceInfo),
    /// An availability trace.
    Availability(AvailabilityTraceInfo),
}

/// What one job record contributes, whatever its format.
struct JobFacts<'a> {
    number: i64,
    submit_s: f64,
    run_s: Option<f64>,
    procs: Option<f64>,
    requested_s: Option<f64>,
    status: Option<SwfStatus>,
    /// Per field, whether this record knows it.
    known: &'a [bool],
}

struct Accumulator {
    format: TraceFormat,
    jobs: u64,
    first: f64,
    last: f64,
    work: f64,
    runtimes: Vec<f64>,
    sizes: Vec<f64>,
    ever_known: Vec<bool>,
    odd: OddCounts,
    numbers: std::collections::HashSet<i64>,
}

impl Accumulator {
    fn new(format: TraceFormat, fields: usize) -> Accumulator {
        Accumulator {
            format,
            jobs: 0,
            first: f64::INFINITY,
            last: f64::NEG_INFINITY,
            work: 0.0,
            runtimes: Vec::new(),
            sizes: Vec::new(),
            ever_known: vec![false; fields],
            odd: OddCounts::default(),
            numbers: std::collections::HashSet::new(),
        }
    }

    fn add(&mut self, f: JobFacts<'_>) {
        self.jobs += 1;
        self.first = self.first.min(f.submit_s);
        self.last = self.last.max(f.submit_s);
        for (seen, &k) in self.ever_known.iter_mut().zip(f.known) {
            *seen |= k;
        }
        if !self.numbers.insert(f.number) {
            self.odd.duplicate_job_number += 1;
        }
        match f.run_s {
            None => self.odd.runtime_unknown += 1,
            Some(r) => {
                if r == 0.0 {
                    self.odd.runtime_zero += 1;
                }
                if f.requested_s.is_some_and(|q| r > q) {
                    self.odd.runtime_above_request += 1;
                }
                self.runtimes.push(r);
            }
        }
        match f.procs.filter(|&p| p > 0.0) {
            None => self.odd.procs_unknown_or_zero += 1,
            Some(p) => {
                self.sizes.push(p);
                if let Some(r) = f.run_s {
                    self.work += r * p;
                }
            }
        }
        match f.status {
            Some(SwfStatus::Failed) => self.odd.failed += 1,
            Some(SwfStatus::PartialLastFailed) => {
                self.odd.failed += 1;
                self.odd.partial += 1;
            }
            Some(SwfStatus::PartialContinued | SwfStatus::PartialLastCompleted) => self.odd.partial += 1,
            Some(SwfStatus::Cancelled) => self.odd.cancelled += 1,
            _ => {}
        }
    }

    fn finish(
        mut self,
        names: &[&'static str],
        header: Vec<(String, String)>,
        max_procs: Option<f64>,
    ) -> Result<JobTraceInfo, TraceError> {
        if self.jobs == 0 {
            return Err(TraceError::line(0, "the trace has no job record"));
        }
        let size_q = Quantiles::of(&mut self.sizes);
        let (processors, source) = match (max_procs, self.format) {
            (Some(p), _) => (Some(p), "header"),
            (None, TraceFormat::Hbd) => (None, "not recorded"),
            (None, _) => (size_q.as_ref().map(|q| q.max), "largest job"),
        };
        let span = self.last - self.first;
        let utilisation = if span > 0.0 {
            match self.format {
                TraceFormat::Hbd => Some(self.work / span),
                _ => processors.map(|p| self.work / (span * p)),
            }
        } else {
            None
        };
        Ok(JobTraceInfo {
            format: self.format.name(),
            jobs: self.jobs,
            first_submit_s: self.first,
            last_submit_s: self.last,
            processors,
            processors_source: source,
            utilisation_offered: utilisation,
            runtime_s: Quantiles::of(&mut self.runtimes),
            size_procs: size_q,
            all_unknown_fields: names
                .iter()
                .zip(&self.ever_known)
                .filter(|(_, &k)| !k)
                .map(|(n, _)| *n)
                .collect(),
            odd: self.odd,
            header,
        })
    }
}

fn status_of(code: Option<i64>) -> Option<SwfStatus> {
    code.map(|c| SwfStatus::from_code(Some(c)))
}

/// Summarises a trace of `format` (already decompressed).
pub fn summarize<R: BufRead>(format: TraceFormat, input: R) -> Result<TraceInfo, TraceError> {
    match format {
        TraceFormat::Swf => {
            let mut acc = Accumulator::new(format, crate::swf::FIELDS.len());
            let mut reader = SwfReader::new(input);
            for job in reader.by_ref() {
                let j = job?;
                let known = [
                    true,
                    true,
                    j.wait_s.is_some(),
                    j.run_s.is_some(),
                    j.allocated_procs.is_some(),
                    j.average_cpu_s.is_some(),
                    j.used_memory_kb.is_some(),
                    j.requested_procs.is_some(),
                    j.requested_s.is_some(),
                    j.requested_memory_kb.is_some(),
                    j.status.is_some(),
                    j.user_id.is_some(),
                    j.group_id.is_some(),
                    j.executable.is_some(),
                    j.queue.is_some(),
                    j.partition.is_some(),
                    j.preceding_job.is_some(),
                    j.think_s.is_some(),
                ];
                acc.add(JobFacts {
                    number: j.job_number,
                    submit_s: j.submit_s,
                    run_s: j.run_s,
                    procs: j.allocated_procs.or(j.requested_procs),
                    requested_s: j.requested_s,
                    status: status_of(j.status),
                    known: &known,
                });
            }
            let header = reader.header().clone();
            let max_procs = header
                .get("MaxProcs")
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|p| p.is_finite() && *p > 0.0);
            acc.finish(&crate::swf::FIELDS, header.entries, max_procs)
                .map(TraceInfo::Jobs)
        }
        TraceFormat::Gwf => {
            let mut acc = Accumulator::new(format, crate::gwf::FIELDS.len());
            let mut reader = GwfReader::new(input);
            for job in reader.by_ref() {
                let j = job?;
                let line = j.to_line();
                let known: Vec<bool> = line.split(' ').map(|t| t != "-1").collect();
                acc.add(JobFacts {
                    number: j.job_id,
                    submit_s: j.submit_s,
                    run_s: j.run_s,
                    procs: j.nprocs.or(j.req_nprocs),
                    requested_s: j.req_time_s,
                    status: status_of(j.status),
                    known: &known,
                });
            }
            let header = reader.header().entries.clone();
            acc.finish(&crate::gwf::FIELDS, header, None).map(TraceInfo::Jobs)
        }
        TraceFormat::Hbd => {
            let mut acc = Accumulator::new(format, crate::hbd::FIELDS.len());
            let known = [true; 5];
            for (i, record) in HbdReader::new(input).enumerate() {
                let r = record?;
                acc.add(JobFacts {
                    number: i as i64,
                    submit_s: r.arrival_s(),
                    run_s: Some(r.cpu_s),
                    procs: Some(1.0),
                    requested_s: None,
                    status: None,
                    known: &known,
                });
            }
            acc.finish(&crate::hbd::FIELDS, Vec::new(), None).map(TraceInfo::Jobs)
        }
        TraceFormat::Fta => summarize_fta(input).map(TraceInfo::Availability),
    }
}

fn summarize_fta<R: BufRead>(input: R) -> Result<AvailabilityTraceInfo, TraceError> {
    let mut info = AvailabilityTraceInfo {
        format: TraceFormat::Fta.name(),
        events: 0,
        nodes: 0,
        first_event_s: f64::INFINITY,
        last_event_s: f64::NEG_INFINITY,
        available_events: 0,
        unavailable_events: 0,
        other_events: 0,
        open_events: 0,
        unavailable_interval_s: None,
    };
    let mut nodes = std::collections::HashSet::new();
    let mut down = Vec::new();
    for event in FtaReader::new(input) {
        let e = event?;
        info.events += 1;
        nodes.insert(e.node_id);
        info.first_event_s = info.first_event_s.min(e.start_s);
        info.last_event_s = info.last_event_s.max(e.end_s.unwrap_or(e.start_s));
        if e.end_s.is_none() {
            info.open_events += 1;
        }
        match e.event_type {
            EventType::Available => info.available_events += 1,
            EventType::Unavailable => {
                info.unavailable_events += 1;
                if let Some(end) = e.end_s {
                    down.push(end - e.start_s);
                }
            }
            EventType::Other(_) => info.other_events += 1,
        }
    }
    if info.events == 0 {
        return Err(TraceError::line(0, "the trace has no event record"));
    }
    info.nodes = nodes.len() as u64;
    info.unavailable_interval_s = Quantiles::of(&mut down);
    Ok(info)
}

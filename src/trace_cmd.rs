//! `gridsim trace`: look at a workload or availability trace before an experiment replays it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Subcommand;
use gridsim::tracefile::{self, located};
use traces::info::{summarize, AvailabilityTraceInfo, JobTraceInfo, Quantiles, TraceInfo};
use traces::TraceFormat;

/// What to do with a trace.
#[derive(Subcommand)]
pub enum TraceCommand {
    /// Summarise a trace: format, jobs, time span, processors, offered utilisation, run time and
    /// size quantiles, fields unknown in every record, and records with odd values.
    ///
    /// Formats: swf (Parallel Workloads Archive), gwf (Grid Workloads Archive), fta (Failure
    /// Trace Archive event_trace.tab), hbd (Harchol-Balter & Downey process lifetimes, CSV);
    /// gzip input is recognised by its magic bytes.
    ///
    /// Example: `gridsim trace info traces/data/KTH-SP2-1996-2.1-cln.swf.gz --json`
    Info {
        /// The trace file (plain or gzip).
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// The format, when neither the file name nor its first line tells.
        #[arg(long, value_parser = tracefile::parse_format)]
        format: Option<TraceFormat>,
    },
    /// Draw a trace: arrivals over time and the run time and size distributions (log scales),
    /// as SVG and PNG; for an availability trace, the number of nodes up over time.
    ///
    /// Example: `gridsim trace plot traces/data/CSD-trace.csv.gz --out plots/trace-csd`
    Plot {
        /// The trace file (plain or gzip).
        file: PathBuf,
        /// Directory for the figures.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The format, when neither the file name nor its first line tells.
        #[arg(long, value_parser = tracefile::parse_format)]
        format: Option<TraceFormat>,
    },
}

pub fn run(command: TraceCommand) -> Result<()> {
    match command {
        TraceCommand::Info { file, json, format } => info(&file, json, format),
        TraceCommand::Plot { file, out, format } => {
            for path in gridsim::plot::trace::draw(&file, format, &out)? {
                println!("{}", path.display());
            }
            Ok(())
        }
    }
}

fn info(file: &Path, json: bool, format: Option<TraceFormat>) -> Result<()> {
    let opened = tracefile::open(file, format)?;
    let summary = summarize(opened.format, opened.reader).map_err(|e| located(file, &e))?;
    if json {
        println!("{}", serde_json::to_string(&summary)?);
        return Ok(());
    }
    let compression = if opened.gzip { ", gzip" } else { "" };
    println!("{}: {}{compression}", file.display(), opened.format.name());
    match summary {
        TraceInfo::Jobs(j) => print_jobs(&j),
        TraceInfo::Availability(a) => print_availability(&a),
    }
    Ok(())
}

fn print_jobs(j: &JobTraceInfo) {
    let span = j.last_submit_s - j.first_submit_s;
    println!("  jobs                 {}", j.jobs);
    println!(
        "  submissions          {} s to {} s ({:.1} days)",
        j.first_submit_s,
        j.last_submit_s,
        span / 86400.0
    );
    match j.processors {
        Some(p) => println!("  processors           {p} ({})", j.processors_source),
        None => println!("  processors           {}", j.processors_source),
    }
    if let Some(u) = j.utilisation_offered {
        let what = if j.format == "hbd" {
            "busy processors on average (CPU seconds / span)"
        } else {
            "of the processors"
        };
        println!("  offered utilisation  {u:.4} {what}");
    }
    print_quantiles("run time (s)", j.runtime_s.as_ref());
    print_quantiles("size (processors)", j.size_procs.as_ref());
    if !j.all_unknown_fields.is_empty() {
        println!("  unknown in every job {}", j.all_unknown_fields.join(", "));
    }
    let o = &j.odd;
    println!(
        "  odd records          run time 0: {}, run time unknown: {}, run time > request: {}, processors unknown \
         or 0: {}, failed: {}, cancelled: {}, partial executions: {}, repeated job numbers: {}",
        o.runtime_zero,
        o.runtime_unknown,
        o.runtime_above_request,
        o.procs_unknown_or_zero,
        o.failed,
        o.cancelled,
        o.partial,
        o.duplicate_job_number
    );
    for (key, value) in &j.header {
        if !key.is_empty() {
            println!("  header {key:<13} {}", value.replace('\n', " "));
        }
    }
}

fn print_availability(a: &AvailabilityTraceInfo) {
    println!("  events               {}", a.events);
    println!("  nodes                {}", a.nodes);
    println!(
        "  time                 {} s to {} s ({:.1} days)",
        a.first_event_s,
        a.last_event_s,
        (a.last_event_s - a.first_event_s) / 86400.0
    );
    println!(
        "  event types          available: {}, unavailable: {}, other: {}, still open at the end: {}",
        a.available_events, a.unavailable_events, a.other_events, a.open_events
    );
    print_quantiles("unavailable (s)", a.unavailable_interval_s.as_ref());
}

fn print_quantiles(what: &str, q: Option<&Quantiles>) {
    if let Some(q) = q {
        println!(
            "  {what:<20} min {} | p25 {} | median {} | p75 {} | p90 {} | p99 {} | max {} | mean {:.6}",
            q.min, q.p25, q.p50, q.p75, q.p90, q.p99, q.max, q.mean
        );
    }
}

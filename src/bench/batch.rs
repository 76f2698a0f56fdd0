//! `gridsim bench batch`: the batch family's speed and memory on a whole archive log and on a
//! synthetic log many times larger at the same offered load, so that a policy whose cost grows
//! faster than n log n in the number of jobs shows it.
//!
//! The synthetic log is `scale` copies of the experiment's log, copy k's submissions shifted by
//! k × (the log's span + 1 s) (so the copies follow each other and the offered load is the log's)
//! and its job ids by k × (the largest id + 1) (so every id stays unique and the queue order
//! within a copy stays the log's).

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use schedulers::family::RunSpec;
use traces::job::Workload;

use super::{median, peak_rss, reset_peak_rss};

/// What `gridsim bench batch` measures; see [`super::BenchCommand::Batch`].
pub struct Options<'a> {
    pub experiment: &'a std::path::Path,
    pub scale: u32,
    pub repeat: usize,
    pub policies: &'a [String],
    pub memory: bool,
}

/// One policy's first run in the experiment, ready to time: its label and spec (no table, so
/// that the time is the simulation's and the metrics').
struct Case {
    label: String,
    spec: RunSpec,
}

fn cases(experiment: &gridsim::experiment::Experiment, only: &[String]) -> Result<Vec<Case>> {
    if experiment.family.name() != "batch" {
        anyhow::bail!(
            "this benchmark measures family 'batch', not '{}'",
            experiment.family.name()
        );
    }
    let mut cases: Vec<Case> = Vec::new();
    for run in &experiment.runs {
        let name = &run.spec.scheduler;
        if cases.iter().any(|c| &c.spec.scheduler == name) || !(only.is_empty() || only.contains(name)) {
            continue;
        }
        let mut spec = run.spec_to_run().map_err(anyhow::Error::msg)?.into_owned();
        spec.tables.clear();
        cases.push(Case {
            label: run.label.clone(),
            spec,
        });
    }
    if let Some(missing) = only.iter().find(|p| !cases.iter().any(|c| &c.spec.scheduler == *p)) {
        anyhow::bail!("--policy {missing}: the experiment has no run of that scheduler");
    }
    Ok(cases)
}

/// `scale` copies of `log`; see the module docs.
pub fn copies(log: &Workload, scale: u32) -> Workload {
    let first = log.jobs.iter().map(|j| j.submit_s).fold(f64::INFINITY, f64::min);
    let last = log.jobs.iter().map(|j| j.submit_s).fold(f64::NEG_INFINITY, f64::max);
    let span = if first.is_finite() { last - first + 1.0 } else { 0.0 };
    let ids = log.jobs.iter().map(|j| j.id).max().unwrap_or(0).max(0) + 1;
    let mut jobs = Vec::with_capacity(log.jobs.len() * scale as usize);
    for k in 0..scale as usize {
        jobs.extend(log.jobs.iter().map(|j| {
            let mut copy = j.clone();
            copy.submit_s += k as f64 * span;
            copy.id += k as i64 * ids;
            copy
        }));
    }
    Workload {
        jobs,
        dropped: log.dropped,
        records: log.records * scale as u64,
    }
}

/// One timed run: seconds (median of `repeat`), decisions, jobs that ran.
fn time(family: &dyn schedulers::family::Family, spec: &RunSpec, repeat: usize) -> Result<(f64, u64, f64)> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..repeat {
        let start = Instant::now();
        let out = family.run(spec).map_err(anyhow::Error::msg)?;
        times.push(start.elapsed().as_secs_f64());
        last = Some(out);
    }
    let out = last.context("no run was timed")?;
    Ok((
        median(times),
        out.events,
        out.metrics.get("jobs_done").copied().unwrap_or(0.0),
    ))
}

pub fn run(opts: &Options) -> Result<()> {
    let experiment = gridsim::experiment::load(opts.experiment, false, &schedulers::families::all())?;
    let cases = cases(&experiment, opts.policies)?;
    let log = cases
        .first()
        .and_then(|c| c.spec.workload.clone())
        .context("the experiment names no [workload] log")?;
    let n = log.jobs.len() as f64;
    let big = Arc::new(copies(&log, opts.scale));
    let m = big.jobs.len() as f64;
    // n log n's growth from n to m jobs.
    let nlogn = m * m.ln() / (n * n.ln());
    println!(
        "batch family: {} ({} jobs, {} units), each policy's first run, median of {}; \
         synthetic log of {} copies ({} jobs, the same offered load); n log n grows {nlogn:.1}x",
        opts.experiment.display(),
        log.jobs.len(),
        cases[0].spec.platform.hosts.len(),
        opts.repeat,
        opts.scale,
        big.jobs.len()
    );
    println!(
        "| policy | jobs | decisions | time (s) | jobs/s | decisions/s | {}x jobs | {}x time (s) | {}x jobs/s | \
         time ratio (n log n: {nlogn:.1}) | bytes/job ({}x) |",
        opts.scale, opts.scale, opts.scale, opts.scale
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for case in &cases {
        let (t1, decisions, done) = time(experiment.family, &case.spec, opts.repeat)?;
        let mut big_spec = case.spec.clone();
        big_spec.workload = Some(big.clone());
        let (tk, _, done_k) = time(experiment.family, &big_spec, opts.repeat)?;
        let memory = if opts.memory {
            memory_in_child(opts, &case.spec.scheduler)?
        } else {
            "-".to_string()
        };
        println!(
            "| {} | {done} | {decisions} | {t1:.4} | {:.0} | {:.0} | {done_k} | {tk:.4} | {:.0} | {:.1} | {memory} |",
            case.label,
            done / t1,
            decisions as f64 / t1,
            done_k / tk,
            tk / t1
        );
    }
    Ok(())
}

/// Bytes per job of one run of `policy` on the synthetic log, measured in a fresh process (in
/// this one, the run would reuse the heap earlier runs freed and read low).
fn memory_in_child(opts: &Options, policy: &str) -> Result<String> {
    let exe = std::env::current_exe().context("finding this binary to measure memory in a process of its own")?;
    let out = std::process::Command::new(&exe)
        .args(["bench", "batch", "--memory-here", policy, "--experiment"])
        .arg(opts.experiment)
        .args(["--scale", &opts.scale.to_string()])
        .output()
        .with_context(|| format!("running {}", exe.display()))?;
    anyhow::ensure!(
        out.status.success(),
        "the memory measurement of {policy} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The child's side of [`memory_in_child`]: loads the experiment, builds the synthetic log, runs
/// one small warm-up (what any run allocates once is not per job), then the measured run, and
/// prints the peak resident memory above the size before it, per job of the synthetic log.
pub fn memory_here(opts: &Options, policy: &str) -> Result<()> {
    let experiment = gridsim::experiment::load(opts.experiment, false, &schedulers::families::all())?;
    let cases = cases(&experiment, &[policy.to_string()])?;
    let spec = &cases[0].spec;
    let log = spec
        .workload
        .clone()
        .context("the experiment names no [workload] log")?;
    let mut warm = spec.clone();
    warm.workload = Some(Arc::new(Workload {
        jobs: log.jobs.iter().take(100).cloned().collect(),
        dropped: log.dropped,
        records: 100,
    }));
    experiment.family.run(&warm).map_err(anyhow::Error::msg)?;
    let mut big = spec.clone();
    big.workload = Some(Arc::new(copies(&log, opts.scale)));
    let jobs = big.workload.as_ref().map_or(0, |w| w.jobs.len());
    let family = experiment.family;
    drop(experiment);
    let start = reset_peak_rss().context("the kernel refused to reset the peak resident size")?;
    family.run(&big).map_err(anyhow::Error::msg)?;
    let peak = peak_rss().context("no peak resident size")?;
    println!("{:.0}", peak.saturating_sub(start) as f64 * 1024.0 / jobs.max(1) as f64);
    Ok(())
}

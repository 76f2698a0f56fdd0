//! Runs an expanded experiment on all cores, resumably, and merges the results.
//!
//! * Parallelism: a rayon pool of `--jobs` threads; each run is independent.
//! * Resume: each completed run is stored at once as its own record file, written atomically
//!   ([`store`]). A new invocation skips every run whose record exists, so a sweep killed by
//!   SIGINT, SIGTERM or SIGKILL loses at most the runs that were in flight, and never leaves a
//!   torn row.
//! * Determinism: the CSV files are produced from the records in run-index order after the
//!   runs finish, never as threads complete, so they are byte-identical whatever `--jobs` is.
//!   Wall-clock figures go to `timing.csv` only.
//! * Sharding: `--shard K/N` runs the runs whose index is K-1 modulo N. Shards may share one
//!   results directory (the last one to finish merges) or use separate ones combined by
//!   [`merge`].

pub mod interrupt;
pub mod store;
pub(crate) mod watchdog;

use std::fs;
use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use sim_core::budget;

use crate::experiment::limits::RunLimits;
use crate::experiment::{Experiment, Run};
use crate::output::write_atomic;
use crate::plot::Media;
use schedulers::family::{check_output, RunError};
use store::{Manifest, Record, RECORDS_DIR};

/// One slice of a sweep: the runs whose index is `k - 1` modulo `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based slice number.
    pub k: usize,
    /// Number of slices.
    pub n: usize,
}

impl Shard {
    /// Whether run `index` belongs to this slice.
    pub fn contains(&self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 <= K <= N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("'{s}' is not a shard: use K/N with 1 <= K <= N, e.g. 3/16");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

/// How a sweep shows its progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Nothing.
    None,
    /// An indicatif bar (for a terminal).
    Bar,
    /// One line every this often (under Slurm, `nohup` or a pipe, where a bar would not show):
    /// runs done, rate, ETA.
    Lines(Duration),
}

impl Progress {
    /// What `gridsim run` shows on stderr: a bar on a terminal, else (Slurm, `nohup`, a pipe,
    /// a notebook's kernel) a line every `every`.
    pub fn for_stderr(every: Duration) -> Progress {
        if std::io::stderr().is_terminal() {
            Progress::Bar
        } else {
            Progress::Lines(every)
        }
    }
}

/// The accepted interval between progress lines, seconds (`--progress-every`): often enough
/// to matter, at most a day.
pub const PROGRESS_EVERY_S: std::ops::RangeInclusive<f64> = 0.1..=86_400.0;

/// The warning for more worker threads than the machine has cores, if `jobs` is that many.
pub fn jobs_warning(jobs: usize) -> Option<String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (jobs > cores).then(|| {
        format!(
            "gridsim: warning: --jobs {jobs} is more than the {cores} cores of this machine; runs will share them \
             (at most one thread per run is started)"
        )
    })
}

/// How to run an experiment.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Results go to `<out_root>/results/<name>/`, figures to `<out_root>/plots/<name>/`.
    pub out_root: PathBuf,
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Discard previous results of this experiment first.
    pub fresh: bool,
    /// Run only one slice of the sweep.
    pub shard: Option<Shard>,
    /// How to show progress on stderr (the CLI draws a bar on a terminal, lines otherwise).
    pub progress: Progress,
    /// Draw the declared figures once the results are complete.
    pub plots: bool,
    /// What the figures are written as (screen, or print with a PDF and a 300-dpi PNG).
    pub media: Media,
    /// Test hook: stop starting runs once this many have completed in this invocation, as if
    /// the process had been interrupted (no merge).
    pub stop_after: Option<usize>,
    /// Whether a second SIGINT or SIGTERM during the sweep ends the process at once, as it does
    /// for the CLI; an embedding interpreter (a Python kernel) clears it, so that it outlives
    /// an impatient second Ctrl-C.
    pub second_signal_exits: bool,
}

impl RunOptions {
    /// Defaults: output under `out_root`, all cores, resume, no shard, no progress bar, figures
    /// for the screen.
    pub fn new(out_root: impl Into<PathBuf>) -> RunOptions {
        RunOptions {
            out_root: out_root.into(),
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            fresh: false,
            shard: None,
            progress: Progress::None,
            plots: true,
            media: Media::Screen,
            stop_after: None,
            second_signal_exits: true,
        }
    }
}

/// What [`run`] did.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// `<out_root>/results/<name>`.
    pub results_dir: PathBuf,
    /// `<out_root>/plots/<name>`.
    pub plots_dir: PathBuf,
    /// Runs in the sweep.
    pub total: usize,
    /// Runs of this invocation's slice.
    pub selected: usize,
    /// Runs of the slice skipped because a record existed.
    pub cached: usize,
    /// Runs executed now.
    pub executed: usize,
    /// Wall-clock time of the executions.
    pub elapsed: Duration,
    /// Whether every run of the sweep has a record and the CSV files were written.
    pub complete: bool,
    /// Runs of the whole sweep still without a record.
    pub missing: usize,
    /// The runs of this invocation stopped by `[limits]`: label and why.
    pub stopped: Vec<String>,
    /// The runs of this invocation whose application could not finish its work: label and why.
    pub incomplete: Vec<String>,
    /// The runs of this invocation whose policy, supplied at run time
    /// ([`schedulers::external`]), failed: label and why (the policy, the date, the decision).
    pub failed: Vec<String>,
    /// Files written by the merge (CSV) and the figures.
    pub written: Vec<PathBuf>,
}

/// Removes the `.tmp-*` files that [`write_atomic`] and the streamed tables leave in `dir` when
/// the process is killed before renaming them. Nothing else writes those names, and one sweep
/// owns its directories while it runs.
fn remove_orphaned_temporaries(dir: &Path) -> Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(".tmp-") && entry.path().is_file() {
            fs::remove_file(entry.path()).with_context(|| format!("removing {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// The results and plots directories of an experiment under `out_root`.
pub fn output_dirs(experiment: &Experiment, out_root: &Path) -> (PathBuf, PathBuf) {
    let name = experiment.dir_name();
    (out_root.join("results").join(&name), out_root.join("plots").join(&name))
}

/// Runs every run of the experiment (or of one shard) that has no record yet, then, if the
/// whole sweep is recorded, writes the CSV files and figures.
pub fn run(experiment: &Experiment, opts: &RunOptions) -> Result<RunReport> {
    let (results_dir, plots_dir) = output_dirs(experiment, &opts.out_root);
    if opts.fresh && results_dir.exists() {
        fs::remove_dir_all(&results_dir).with_context(|| format!("removing {}", results_dir.display()))?;
    }
    fs::create_dir_all(results_dir.join(RECORDS_DIR))
        .with_context(|| format!("creating {}", results_dir.join(RECORDS_DIR).display()))?;
    // A run killed while writing leaves its temporary file behind (up to tens of MB for a
    // streamed table); the rename that would have made it a result never happened.
    for dir in [results_dir.clone(), results_dir.join(RECORDS_DIR), plots_dir.clone()] {
        remove_orphaned_temporaries(&dir)?;
    }
    write_atomic(&results_dir.join("experiment.toml"), experiment.text.as_bytes())?;
    let manifest = Manifest::of(experiment);
    manifest.write(&results_dir)?;

    let selected: Vec<&Run> = experiment
        .runs
        .iter()
        .filter(|r| opts.shard.map_or(true, |s| s.contains(r.spec.index)))
        .collect();
    let pending: Vec<&Run> = selected
        .iter()
        .copied()
        .filter(|r| !Record::reusable(&results_dir, &r.fingerprint, experiment.limits))
        .collect();
    let cached = selected.len() - pending.len();

    let started = Instant::now();
    let Executed {
        done: executed,
        stopped,
        incomplete,
        failed,
    } = execute(experiment, &pending, &results_dir, opts)?;
    let elapsed = started.elapsed();

    let missing: Vec<usize> = experiment
        .runs
        .iter()
        .filter(|r| !Record::exists(&results_dir, &r.fingerprint))
        .map(|r| r.spec.index)
        .collect();
    let mut report = RunReport {
        results_dir: results_dir.clone(),
        plots_dir: plots_dir.clone(),
        total: experiment.runs.len(),
        selected: selected.len(),
        cached,
        executed,
        elapsed,
        complete: missing.is_empty(),
        missing: missing.len(),
        stopped,
        incomplete,
        failed,
        written: Vec::new(),
    };
    if report.complete {
        // A figure error names the user's file and line, not the results copy.
        report.written = finalize(
            &results_dir,
            &plots_dir,
            opts.plots.then_some(opts.media),
            Some(&experiment.file),
        )?;
    }
    Ok(report)
}

/// Runs `pending` on a pool of `opts.jobs` threads, storing each result as it completes.
/// Returns how many runs completed and which of them have no result; fails with the first
/// run that failed (the others that completed are stored).
fn execute(experiment: &Experiment, pending: &[&Run], results_dir: &Path, opts: &RunOptions) -> Result<Executed> {
    if pending.is_empty() {
        return Ok(Executed {
            done: 0,
            stopped: Vec::new(),
            incomplete: Vec::new(),
            failed: Vec::new(),
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        // More threads than runs would only idle.
        .num_threads(opts.jobs.clamp(1, pending.len()))
        .thread_name(|i| format!("gridsim-run-{i}"))
        .build()
        .context("starting the worker threads")?;
    let bar = if matches!(opts.progress, Progress::Bar) && std::io::stderr().is_terminal() {
        let bar = ProgressBar::with_draw_target(Some(pending.len() as u64), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs, ETA {eta}  {wide_msg}",
        )
        .expect("valid progress template");
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    } else {
        ProgressBar::hidden()
    };
    let stop = AtomicBool::new(false);
    let completed = AtomicUsize::new(0);
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let stopped_runs: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    let incomplete_runs: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    let failed_runs: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    let key_columns = &experiment.key_columns;

    let (finished, reporter_stop) = std::sync::mpsc::channel::<()>();
    let (watch_finished, watch_stop) = std::sync::mpsc::channel::<()>();
    let watchdog = watchdog::Watchdog::default();
    let limits = experiment.limits;
    let handlers = interrupt::Handlers::install(opts.second_signal_exits);
    std::thread::scope(|scope| {
        // Always served: besides `wall_s` deadlines it raises every run's flag on Ctrl-C.
        let (watchdog_ref, watch_stop) = (&watchdog, watch_stop);
        scope.spawn(move || watchdog_ref.serve(&watch_stop));
        if let Progress::Lines(every) = opts.progress {
            let (total, completed, start) = (pending.len(), &completed, Instant::now());
            scope.spawn(move || {
                // Until the sweep ends (the sender is dropped), one line per interval; then a
                // last one, so a log always ends with the count.
                let line = || progress_line(completed.load(Ordering::SeqCst), total, start.elapsed());
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = reporter_stop.recv_timeout(every) {
                    eprintln!("{}", line());
                }
                eprintln!("{}", line());
            });
        }
        pool.install(|| {
            pending.par_iter().with_max_len(1).for_each(|run| {
                if stop.load(Ordering::SeqCst) || interrupt::interrupted() {
                    return;
                }
                let label = run.describe(key_columns);
                bar.set_message(label.clone());
                let t0 = Instant::now();
                let guards = budget::Limits {
                    max_events: Some(limits.events),
                    stop: Some(watchdog.watch(limits.wall_s.map(Duration::from_secs_f64))),
                };
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    budget::run_limited(guards, || {
                        run.spec_to_run()
                            .map_err(RunError::Other)
                            .and_then(|spec| experiment.family.run(&spec))
                    })
                }));
                let wall = t0.elapsed().as_secs_f64();
                let stored = match outcome {
                    // Abandoned on Ctrl-C: no record, so that running again runs it.
                    Ok(Err(_)) if interrupt::interrupted() => return,
                    // A run stopped by [limits] is a result of the sweep: recorded, reported,
                    // and the sweep goes on.
                    Ok(Err(stopped)) => {
                        let why = stopped_text(&stopped, limits);
                        let mut list = stopped_runs.lock().unwrap_or_else(|e| e.into_inner());
                        list.push((run.spec.index, format!("{label}: {why}")));
                        Record::stopped(&run.fingerprint, &why, limits, stopped.events(), wall)
                            .write(results_dir)
                            .map_err(|e| format!("{e:#}"))
                    }
                    Ok(Ok(Ok(output))) => check_output(experiment.family, &output).and_then(|()| {
                        if let Some(why) = &output.incomplete {
                            // A result of the sweep like a stopped run: recorded without numbers,
                            // reported, and the sweep goes on.
                            let mut list = incomplete_runs.lock().unwrap_or_else(|e| e.into_inner());
                            list.push((run.spec.index, format!("{label}: {why}")));
                            return Record::incomplete(&run.fingerprint, why, output.events, wall)
                                .write(results_dir)
                                .map_err(|e| format!("{e:#}"));
                        }
                        match output.metrics.iter().find(|(_, v)| v.is_infinite()) {
                            // An infinite metric is an overflow, a failed run, never a cell of
                            // runs.csv. (NaN is how a family writes "not applicable", e.g. a remap
                            // time of a run that never remaps.)
                            Some((name, value)) => Err(format!("metric '{name}' is {value}, not a finite number")),
                            None => Record::new(&run.fingerprint, &output, wall, &experiment.tables)
                                .and_then(|record| record.write(results_dir).map_err(|e| format!("{e:#}"))),
                        }
                    }),
                    // A policy supplied at run time that failed: a result of the sweep like an
                    // incomplete run (recorded with why, reported), and the sweep goes on.
                    Ok(Ok(Err(RunError::Policy(why)))) => {
                        let mut list = failed_runs.lock().unwrap_or_else(|e| e.into_inner());
                        list.push((run.spec.index, format!("{label}: {why}")));
                        Record::policy_failed(&run.fingerprint, &why, wall)
                            .write(results_dir)
                            .map_err(|e| format!("{e:#}"))
                    }
                    Ok(Ok(Err(error))) => Err(error.to_string()),
                    Err(panic) => Err(format!("panicked: {}", panic_text(&panic))),
                };
                match stored {
                    Ok(()) => {
                        bar.inc(1);
                        let n = completed.fetch_add(1, Ordering::SeqCst) + 1;
                        if opts.stop_after.is_some_and(|k| n >= k) {
                            stop.store(true, Ordering::SeqCst);
                        }
                    }
                    Err(message) => {
                        stop.store(true, Ordering::SeqCst);
                        let mut first = failure.lock().unwrap_or_else(|e| e.into_inner());
                        if first.is_none() {
                            *first = Some(format!("{}: run {label} failed: {message}", experiment.file.display()));
                        }
                    }
                }
            });
        });
        drop(finished);
        drop(watch_finished);
    });
    bar.finish_and_clear();
    drop(handlers);
    let done = completed.load(Ordering::SeqCst);
    if interrupt::interrupted() {
        let stored = experiment
            .runs
            .iter()
            .filter(|r| Record::exists(results_dir, &r.fingerprint))
            .count();
        return Err(anyhow::Error::new(interrupt::Interrupted {
            message: format!(
                "interrupted: {done} run(s) of this invocation completed; {stored} of the sweep's {} runs are stored \
                 in {}. Running the same command again resumes from there.",
                experiment.runs.len(),
                results_dir.display()
            ),
        }));
    }
    if let Some(message) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(anyhow::Error::new(RunFailed {
            message: format!(
                "{message}\n({done} other runs completed and are stored in {}; they are skipped when you run again)",
                results_dir.display()
            ),
        }));
    }
    let sorted = |runs: Mutex<Vec<(usize, String)>>| {
        let mut runs = runs.into_inner().unwrap_or_else(|e| e.into_inner());
        runs.sort();
        runs.into_iter().map(|(_, text)| text).collect()
    };
    Ok(Executed {
        done,
        stopped: sorted(stopped_runs),
        incomplete: sorted(incomplete_runs),
        failed: sorted(failed_runs),
    })
}

/// The error a sweep ends with when one of its runs failed (not one `[limits]` stopped): which
/// run and why, and that the runs that completed are stored.
#[derive(Debug)]
pub struct RunFailed {
    /// What to tell the user.
    pub message: String,
}

impl std::fmt::Display for RunFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunFailed {}

/// What [`execute`] did: runs completed (stored), and the labels and reasons of those among
/// them that have no result.
struct Executed {
    done: usize,
    /// Stopped by `[limits]`.
    stopped: Vec<String>,
    /// Ended without finishing their work.
    incomplete: Vec<String>,
    /// Ended by a failure of their policy supplied at run time.
    failed: Vec<String>,
}

/// Why a run was stopped, for runs.csv's `stopped` column and the summary.
fn stopped_text(stopped: &budget::Stopped, limits: RunLimits) -> String {
    match stopped {
        budget::Stopped::Events { budget, events } if limits.default_events => {
            format!("[limits] events = {budget} (the default): stopped after {events} events")
        }
        budget::Stopped::Events { budget, events } => {
            format!("[limits] events = {budget}: stopped after {events} events")
        }
        budget::Stopped::Flag { events } => format!(
            "[limits] wall_s = {}: stopped after {events} events",
            limits.wall_s.unwrap_or(f64::NAN)
        ),
    }
}

/// `gridsim: 12/40 runs done (0.50 runs/s), ETA 56 s`, for a log file.
pub fn progress_line(done: usize, total: usize, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
    let eta = if rate > 0.0 {
        format!("ETA {:.0} s", (total - done.min(total)) as f64 / rate)
    } else {
        "ETA unknown".to_string()
    };
    format!("gridsim: {done}/{total} runs done ({rate:.2} runs/s), {eta}")
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".into()
    }
}

/// Writes the CSV files of a complete results directory, then, unless `plots` is `None`, its
/// figures for those media into `plots_dir`, as `figures_from` declares them (default: the
/// results directory's copy of the experiment).
pub fn finalize(
    results_dir: &Path,
    plots_dir: &Path,
    plots: Option<Media>,
    figures_from: Option<&Path>,
) -> Result<Vec<PathBuf>> {
    let manifest = Manifest::read(results_dir)?;
    let mut written = store::write_csvs(results_dir, &manifest)?;
    if let Some(media) = plots {
        written.extend(crate::plot::draw_all(results_dir, plots_dir, figures_from, media)?);
    }
    Ok(written)
}

/// What [`merge`] did.
#[derive(Clone, Debug)]
pub struct MergeReport {
    /// The merged results directory.
    pub results_dir: PathBuf,
    /// Where its figures went.
    pub plots_dir: PathBuf,
    /// Runs in the sweep.
    pub total: usize,
    /// Records copied from the inputs.
    pub copied: usize,
    /// Files written.
    pub written: Vec<PathBuf>,
}

/// Combines the results directories of the shards of one sweep into
/// `<out_root>/results/<name>/` (the result is the same as one unsharded run's) and draws the
/// figures into `<out_root>/plots/<name>/`.
pub fn merge(inputs: &[PathBuf], out_root: &Path, plots: bool) -> Result<MergeReport> {
    let Some(first) = inputs.first() else {
        bail!("merge needs at least one results directory")
    };
    let manifest = Manifest::read(first)?;
    for dir in &inputs[1..] {
        let other = Manifest::read(dir)?;
        if !other.same_sweep(&manifest) {
            bail!(
                "{} holds a different sweep than {} (experiment '{}' with {} runs vs '{}' with {} runs, or the \
                 experiment file changed between shards)",
                dir.display(),
                first.display(),
                other.experiment,
                other.runs.len(),
                manifest.experiment,
                manifest.runs.len()
            );
        }
    }
    let results_dir = out_root.join("results").join(&manifest.dir_name);
    let plots_dir = out_root.join("plots").join(&manifest.dir_name);
    let experiment_text = fs::read(first.join("experiment.toml"))
        .with_context(|| format!("{}: cannot read experiment.toml", first.display()))?;

    // Find every run's record before writing anything.
    let mut to_copy = Vec::new();
    let mut missing = Vec::new();
    for (index, run) in manifest.runs.iter().enumerate() {
        if Record::exists(&results_dir, &run.fingerprint) {
            continue;
        }
        match inputs.iter().find(|dir| Record::exists(dir, &run.fingerprint)) {
            Some(dir) => to_copy.push((dir, &run.fingerprint)),
            None => missing.push(index),
        }
    }
    if !missing.is_empty() {
        bail!(
            "{} (were all shards run to completion?)",
            store::missing_runs_message(&manifest, &missing)
        );
    }
    fs::create_dir_all(results_dir.join(RECORDS_DIR)).with_context(|| format!("creating {}", results_dir.display()))?;
    for (dir, fingerprint) in &to_copy {
        let bytes = fs::read(Record::path(dir, fingerprint))?;
        write_atomic(&Record::path(&results_dir, fingerprint), &bytes)?;
    }
    let copied = to_copy.len();
    write_atomic(&results_dir.join("experiment.toml"), &experiment_text)?;
    manifest.write(&results_dir)?;
    let written = finalize(&results_dir, &plots_dir, plots.then_some(Media::Screen), None)?;
    Ok(MergeReport {
        results_dir,
        plots_dir,
        total: manifest.runs.len(),
        copied,
        written,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_partition_indices() {
        let s: Shard = "2/3".parse().unwrap();
        assert_eq!(s, Shard { k: 2, n: 3 });
        assert!(s.contains(1) && s.contains(4) && !s.contains(0) && !s.contains(2));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let all: Vec<usize> = (0..10)
            .filter(|&i| (1..=3).filter(|&k| Shard { k, n: 3 }.contains(i)).count() == 1)
            .collect();
        assert_eq!(all.len(), 10);
    }

    #[test]
    fn a_run_stopped_by_the_default_budget_says_so() {
        let spent = budget::Stopped::Events {
            budget: 10_000_000_000,
            events: 10_000_004_096,
        };
        assert_eq!(
            stopped_text(&spent, RunLimits::default()),
            "[limits] events = 10000000000 (the default): stopped after 10000004096 events"
        );
        let given = RunLimits {
            default_events: false,
            ..RunLimits::default()
        };
        assert_eq!(
            stopped_text(&spent, given),
            "[limits] events = 10000000000: stopped after 10000004096 events"
        );
    }
}

//! What `gridsim run` and `gridsim validate` do with an experiment file, from loading it and the
//! experiments it includes to the lines that report the outcome. The CLI (`main.rs`) prints
//! these lines; the Python package (`python/`) returns them with the results, so both go through
//! this one code path and a study run from Python is the study the CLI would have run.
//!
//! Nothing here prints: the messages are returned, each with the stream the CLI writes it to.

use std::path::{Path, PathBuf};

use anyhow::Result;
use schedulers::families;
use schedulers::family::Family;

use crate::experiment::{self, Experiment, ExperimentError};
use crate::runner::{self, RunOptions, RunReport};

/// Where the CLI writes a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output: the summary of what was done and where the results are.
    Out,
    /// Standard error: warnings.
    Err,
}

/// One line of a command's report, as the CLI prints it (without a trailing newline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Where the CLI prints it.
    pub stream: Stream,
    /// The text; `Stream::Err` lines carry their `gridsim: warning: ` prefix.
    pub text: String,
}

impl Message {
    fn out(text: String) -> Message {
        Message {
            stream: Stream::Out,
            text,
        }
    }

    fn err(text: String) -> Message {
        Message {
            stream: Stream::Err,
            text,
        }
    }
}

/// The identity of a file for the once-only rule of `includes`: its canonical path, or the path
/// as given when it cannot be resolved (the load then reports why).
fn identity(file: &Path) -> PathBuf {
    std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf())
}

/// Loads `file` and, depth first, the experiments it includes, each once whatever the nesting.
/// Every file is checked before any sweep starts, so a bad include writes nothing. The error
/// of a file that does not load is its [`ExperimentError`] (file, line, field of each problem).
pub fn load_with_includes(file: &Path, quick: bool) -> Result<Vec<Experiment>, ExperimentError> {
    load_with_includes_of(file, quick, &families::all())
}

/// [`load_with_includes`] against `families` (the registry's, some with policies supplied at
/// run time: `schedulers::external::WithExternal`).
pub fn load_with_includes_of(
    file: &Path,
    quick: bool,
    families: &[&'static dyn Family],
) -> Result<Vec<Experiment>, ExperimentError> {
    let mut seen = Vec::new();
    let mut loaded = Vec::new();
    load_into(file, quick, families, &mut seen, &mut loaded)?;
    Ok(loaded)
}

fn load_into(
    file: &Path,
    quick: bool,
    families: &[&'static dyn Family],
    seen: &mut Vec<PathBuf>,
    loaded: &mut Vec<Experiment>,
) -> Result<(), ExperimentError> {
    let key = identity(file);
    if seen.contains(&key) {
        return Ok(());
    }
    seen.push(key);
    let experiment = experiment::load(file, quick, families)?;
    let includes = experiment.includes.clone();
    loaded.push(experiment);
    for include in &includes {
        load_into(include, quick, families, seen, loaded)?;
    }
    Ok(())
}

/// The warnings the CLI prints before running `experiment`.
pub fn warning_messages(experiment: &Experiment) -> Vec<Message> {
    experiment
        .warnings
        .iter()
        .map(|w| Message::err(format!("gridsim: warning: {w}")))
        .collect()
}

/// What the CLI says once `experiment`'s sweep (or shard) has run: counts, reused records, the
/// runs `[limits]` stopped or that could not finish, and where the results and figures are.
pub fn report_messages(experiment: &Experiment, report: &RunReport, opts: &RunOptions) -> Vec<Message> {
    let mut messages = Vec::new();
    let name = experiment.dir_name();
    let slice = match opts.shard {
        Some(s) => format!(" (shard {}/{}: {} runs)", s.k, s.n, report.selected),
        None => String::new(),
    };
    messages.push(Message::out(format!(
        "{name}: {} runs{slice}, {} already done, {} run now in {:.1} s",
        report.total,
        report.cached,
        report.executed,
        report.elapsed.as_secs_f64()
    )));
    if report.cached > 0 {
        // Records are keyed on the build's simulation code: the reused ones are this build's.
        messages.push(Message::out(format!(
            "reused {} records of this build ({})",
            report.cached,
            crate::BUILD_ID
        )));
    }
    if !report.stopped.is_empty() {
        messages.push(Message::err(format!(
            "gridsim: warning: [limits] stopped {} run(s); runs.csv names them in its column `stopped`:",
            report.stopped.len()
        )));
        for line in report.stopped.iter().take(10) {
            messages.push(Message::err(format!("  {line}")));
        }
    }
    if !report.incomplete.is_empty() {
        messages.push(Message::err(format!(
            "gridsim: warning: {} run(s) could not finish their work and have no result; runs.csv says why in \
             its column `stopped`, and figures leave them out:",
            report.incomplete.len()
        )));
        for line in report.incomplete.iter().take(10) {
            messages.push(Message::err(format!("  {line}")));
        }
    }
    if !report.failed.is_empty() {
        messages.push(Message::err(format!(
            "gridsim: warning: the policy of {} run(s) failed and they have no result; runs.csv says why in its \
             column `stopped`, and figures leave them out:",
            report.failed.len()
        )));
        for line in report.failed.iter().take(10) {
            messages.push(Message::err(format!("  {line}")));
        }
    }
    if report.complete {
        messages.push(Message::out(format!("results: {}", report.results_dir.display())));
        if report.written.iter().any(|p| p.starts_with(&report.plots_dir)) {
            messages.push(Message::out(format!("figures: {}", report.plots_dir.display())));
        }
    } else {
        messages.push(Message::out(format!(
            "{} of {} runs of the sweep are still missing; when every shard has finished, combine them with \
             `gridsim merge` (runs are stored in {})",
            report.missing,
            report.total,
            report.results_dir.display()
        )));
    }
    messages
}

/// One experiment of a study, run: what was run, what the runner did, and what the CLI says
/// about it.
#[derive(Debug)]
pub struct Ran {
    /// The experiment, as loaded.
    pub experiment: Experiment,
    /// What the runner did.
    pub report: RunReport,
    /// The CLI's lines for it, warnings first, in the order it prints them.
    pub messages: Vec<Message>,
}

/// `gridsim run FILE`: loads `file` and its includes, then runs each sweep in turn with
/// `opts`. `each` sees every experiment's messages as soon as they are known (the warnings
/// before its sweep starts, the report after), so the CLI prints them as it goes. Fails with
/// the first experiment that fails; the sweeps before it are done and stored.
pub fn run(file: &Path, quick: bool, opts: &RunOptions, each: impl FnMut(&[Message])) -> Result<Vec<Ran>> {
    run_with(file, quick, opts, &families::all(), each)
}

/// [`run`] against `families` (see [`load_with_includes_of`]): how the Python package runs a
/// study whose experiment names policies written in Python.
pub fn run_with(
    file: &Path,
    quick: bool,
    opts: &RunOptions,
    families: &[&'static dyn Family],
    mut each: impl FnMut(&[Message]),
) -> Result<Vec<Ran>> {
    let loaded = load_with_includes_of(file, quick, families)?;
    let mut ran = Vec::with_capacity(loaded.len());
    for experiment in loaded {
        let mut messages = warning_messages(&experiment);
        each(&messages);
        let report = runner::run(&experiment, opts)?;
        let reported = report_messages(&experiment, &report, opts);
        each(&reported);
        messages.extend(reported);
        ran.push(Ran {
            experiment,
            report,
            messages,
        });
    }
    Ok(ran)
}

/// What `gridsim validate` found in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validated {
    /// The experiment file.
    pub file: PathBuf,
    /// The experiment's name.
    pub name: String,
    /// The family that runs it.
    pub family: String,
    /// Runs of its sweep.
    pub runs: usize,
    /// Runs with `--quick`, when the file has a `[quick]` section.
    pub quick_runs: Option<usize>,
    /// What is allowed but probably not meant (`FILE:LINE:COLUMN: field: message`).
    pub warnings: Vec<String>,
}

impl std::fmt::Display for Validated {
    /// `FILE: ok, N runs (M with --quick)`, the line `gridsim validate` prints.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: ok, {} runs", self.file.display(), self.runs)?;
        if let Some(quick) = self.quick_runs {
            write!(f, " ({quick} with --quick)")?;
        }
        Ok(())
    }
}

/// `gridsim validate FILE`: checks `file` and, depth first, the experiments it includes (each
/// once), as `run` would load them, with and without `[quick]`. `each` sees each file's result
/// as soon as it is checked; the first file with a problem ends the walk with its error.
pub fn validate(file: &Path, mut each: impl FnMut(&Validated)) -> Result<Vec<Validated>, ExperimentError> {
    let mut seen = Vec::new();
    let mut done = Vec::new();
    validate_into(file, &mut seen, &mut done, &mut each)?;
    Ok(done)
}

fn validate_into(
    file: &Path,
    seen: &mut Vec<PathBuf>,
    done: &mut Vec<Validated>,
    each: &mut impl FnMut(&Validated),
) -> Result<(), ExperimentError> {
    let key = identity(file);
    if seen.contains(&key) {
        return Ok(());
    }
    seen.push(key);
    let all = families::all();
    let normal = experiment::load(file, false, &all)?;
    let quick_runs = if experiment::parse(file, &normal.text)?.quick.is_some() {
        Some(experiment::load_str(file, &normal.text, true, &all)?.runs.len())
    } else {
        None
    };
    let validated = Validated {
        file: file.to_path_buf(),
        name: normal.name.clone(),
        family: normal.family.name().to_string(),
        runs: normal.runs.len(),
        quick_runs,
        warnings: normal.warnings.clone(),
    };
    each(&validated);
    done.push(validated);
    for include in &normal.includes {
        validate_into(include, seen, done, each)?;
    }
    Ok(())
}

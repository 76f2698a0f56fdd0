//! `run` and `validate`: `gridsim run` and `gridsim validate` through the library's
//! `gridsim::study`, the code path the CLI takes, returned as plain dicts for the Python side
//! to wrap. The sweep runs with the GIL released; Ctrl-C during it stops the runs as in the CLI
//! (the runner's signal handlers replace Python's for the sweep's duration) and raises
//! `gridsim.Interrupted`.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use gridsim::plot::Media;
use gridsim::runner::{self, Progress, RunOptions, Shard};
use gridsim::study::{self, Ran, Stream, Validated};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors;

/// Held while a sweep runs (see `run`).
static SWEEP: Mutex<()> = Mutex::new(());

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    Ok(())
}

/// What Python gets of one experiment run: the outcome without the loaded experiment (whose
/// platforms and runs stay in Rust), built while the GIL is released.
struct Outcome {
    file: PathBuf,
    name: String,
    dir_name: String,
    description: String,
    family: &'static str,
    quick: bool,
    tables: Vec<String>,
    key_columns: Vec<String>,
    report: runner::RunReport,
    /// `(is_warning, text)`: the CLI's lines, with the stream it prints them to.
    messages: Vec<(bool, String)>,
}

impl From<Ran> for Outcome {
    fn from(ran: Ran) -> Outcome {
        let e = ran.experiment;
        Outcome {
            dir_name: e.dir_name(),
            file: e.file,
            name: e.name,
            description: e.description,
            family: e.family.name(),
            quick: e.quick,
            tables: e.tables,
            key_columns: e.key_columns,
            report: ran.report,
            messages: ran
                .messages
                .into_iter()
                .map(|m| (m.stream == Stream::Err, m.text))
                .collect(),
        }
    }
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl Outcome {
    /// The dict Python gets, with `before` ahead of the experiment's own lines.
    fn to_dict<'py>(&self, py: Python<'py>, before: &[(bool, String)]) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let r = &self.report;
        d.set_item("file", text(&self.file))?;
        d.set_item("name", &self.name)?;
        d.set_item("dir_name", &self.dir_name)?;
        d.set_item("description", &self.description)?;
        d.set_item("family", self.family)?;
        d.set_item("quick", self.quick)?;
        d.set_item("tables", &self.tables)?;
        d.set_item("key_columns", &self.key_columns)?;
        d.set_item("results_dir", text(&r.results_dir))?;
        d.set_item("plots_dir", text(&r.plots_dir))?;
        d.set_item("total", r.total)?;
        d.set_item("selected", r.selected)?;
        d.set_item("cached", r.cached)?;
        d.set_item("executed", r.executed)?;
        d.set_item("elapsed_s", r.elapsed.as_secs_f64())?;
        d.set_item("complete", r.complete)?;
        d.set_item("missing", r.missing)?;
        d.set_item("stopped", &r.stopped)?;
        d.set_item("incomplete", &r.incomplete)?;
        d.set_item("failed", &r.failed)?;
        d.set_item("written", r.written.iter().map(|p| text(p)).collect::<Vec<_>>())?;
        let messages: Vec<&(bool, String)> = before.iter().chain(&self.messages).collect();
        d.set_item("messages", PyList::new(py, messages)?)?;
        Ok(d)
    }
}

/// Runs the experiment `path` and the ones it includes, as `gridsim run` does, and returns one
/// dict per experiment (the report, the CLI's lines). See `gridsim.run` for the arguments.
#[pyfunction]
#[pyo3(signature = (
    path, *, quick = false, jobs = None, out = None, fresh = false, shard = None, plots = true,
    print = false, progress = false, progress_every = 30.0, policies = None
))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    path: PathBuf,
    quick: bool,
    jobs: Option<i64>,
    out: Option<PathBuf>,
    fresh: bool,
    shard: Option<String>,
    plots: bool,
    print: bool,
    progress: bool,
    progress_every: f64,
    policies: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let families = match &policies {
        Some(p) => {
            let table = crate::policies::external_policies(p)?;
            crate::policies::families_with(&table).map_err(|e| errors::argument(py, "policies", e))?
        }
        None => schedulers::families::all(),
    };
    let mut opts = RunOptions::new(out.unwrap_or_else(|| PathBuf::from(".")));
    let mut warnings = Vec::new();
    if let Some(j) = jobs {
        if j < 1 {
            return Err(errors::argument(
                py,
                "jobs",
                format!("{j} worker threads: give at least 1"),
            ));
        }
        opts.jobs = usize::try_from(j).unwrap_or(usize::MAX);
        warnings.extend(runner::jobs_warning(opts.jobs).map(|w| (true, w)));
    }
    opts.fresh = fresh;
    if let Some(s) = shard {
        opts.shard = Some(s.parse::<Shard>().map_err(|e| errors::argument(py, "shard", e))?);
    }
    if print && !plots {
        return Err(errors::argument(
            py,
            "print",
            "figures for print need plots=True (print=True with plots=False draws nothing)",
        ));
    }
    opts.plots = plots;
    opts.media = if print { Media::Print } else { Media::Screen };
    if !runner::PROGRESS_EVERY_S.contains(&progress_every) {
        return Err(errors::argument(
            py,
            "progress_every",
            format!(
                "{progress_every} is not a number of seconds from {} to {}",
                runner::PROGRESS_EVERY_S.start(),
                runner::PROGRESS_EVERY_S.end()
            ),
        ));
    }
    opts.progress = if progress {
        Progress::for_stderr(Duration::from_secs_f64(progress_every))
    } else {
        Progress::None
    };
    // The interpreter outlives the sweep: a second Ctrl-C must not end it.
    opts.second_signal_exits = false;

    let outcome = py.detach(|| {
        // One sweep at a time: each installs the process's SIGINT and SIGTERM handlers for its
        // duration and puts back the ones it found, so two that overlapped could leave the
        // runner's in place of Python's for good. A second call waits, without the GIL.
        let _one_at_a_time = SWEEP.lock().unwrap_or_else(PoisonError::into_inner);
        study::run_with(&path, quick, &opts, &families, |_| {})
            .map(|ran| ran.into_iter().map(Outcome::from).collect::<Vec<_>>())
    });
    let outcomes = outcome.map_err(|e| errors::to_py(py, &e, &path))?;
    let list = PyList::empty(py);
    for (i, o) in outcomes.iter().enumerate() {
        // The warnings about the arguments belong to the call: the CLI prints them before the
        // first experiment's lines.
        let before: &[(bool, String)] = if i == 0 { &warnings } else { &[] };
        list.append(o.to_dict(py, before)?)?;
    }
    Ok(list)
}

fn validated_dict<'py>(py: Python<'py>, v: &Validated) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("file", text(&v.file))?;
    d.set_item("name", &v.name)?;
    d.set_item("family", &v.family)?;
    d.set_item("runs", v.runs)?;
    d.set_item("quick_runs", v.quick_runs)?;
    d.set_item("warnings", &v.warnings)?;
    d.set_item("line", v.to_string())?;
    Ok(d)
}

/// Checks the experiment `path` and the ones it includes, as `gridsim validate` does; one dict
/// per file: its name, family, run counts, warnings and the line the CLI prints.
#[pyfunction]
fn validate<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyList>> {
    let checked = py.detach(|| study::validate(&path, |_| {}));
    let checked = checked.map_err(|e| errors::to_py(py, &anyhow::Error::new(e), &path))?;
    let list = PyList::empty(py);
    for v in &checked {
        list.append(validated_dict(py, v)?)?;
    }
    Ok(list)
}

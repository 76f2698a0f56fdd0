//! The step API for learning schedulers: one run of an experiment, driven decision by decision
//! from Python.
//!
//! ```python
//! sim = gridsim.Simulation("experiments/x.toml", run=0)
//! view = sim.next_decision()          # ChunkView or BatchView; None once the run is over
//! while view is not None:
//!     sim.answer(my_choice(view))     # int (chunk) or list of job ids (batch)
//!     view = sim.next_decision()
//! sim.metrics                         # the run's metrics, as `gridsim run` writes them
//! ```
//!
//! The run is the experiment's run number `run` (in the sweep's order, as `runs.csv` lists them)
//! with its platform, parameters and seed (the CLI's seed rules: the same experiment and run
//! give the same simulation), its scheduler replaced by the decisions given here (named
//! `policy` in errors; the scheduler's own parameters are dropped). It simulates on a thread of
//! its own: at each decision point the policy there sends the view over a channel and waits for
//! the answer, so the engine's control flow and results are those of any run. An answer is
//! checked as a Python policy's is (`schedulers::external`): one out of range ends the run, and
//! the next `next_decision` raises `RuntimeError` naming the policy, the date and the decision.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use gridsim::experiment;
use schedulers::batch::BatchView as RustBatchView;
use schedulers::bot::{MasterView, Request};
use schedulers::external::{
    BatchFactory, ChunkFactory, ExternalBatchPolicy, ExternalChunkPolicy, ExternalPolicy, Factory,
};
use schedulers::family::{Family, ParamValue, RunError, RunOutput};
use schedulers::registry::PolicyInfo;
use sim_core::budget;

use crate::policies::{chunk_answer, schedule_answer, BatchSnapshot, BatchViews, ChunkSnapshot};

/// A decision point, sent by the simulation's thread.
enum Point {
    /// A chunk for a worker's request; the run's worker speeds come with the first.
    Chunk(ChunkSnapshot, Option<Vec<f64>>),
    /// The jobs to start.
    Batch(BatchSnapshot),
}

/// What the simulation's thread sends.
enum Message {
    /// A decision to make.
    Point(Point),
    /// The run ended: its output, or why it failed.
    Done(Result<RunOutput, RunError>),
}

/// An answer, sent back.
enum Answer {
    Chunk(u64),
    Batch(Vec<i64>),
}

/// Both ends of the policy's side of the conversation.
struct Line {
    points: Sender<Message>,
    answers: Receiver<Answer>,
}

impl Line {
    fn ask(&self, point: Point) -> Result<Answer, String> {
        let closed = || "the Simulation was closed before the run ended".to_string();
        self.points.send(Message::Point(point)).map_err(|_| closed())?;
        self.answers.recv().map_err(|_| closed())
    }
}

/// The bag-of-tasks policy of a stepped run.
struct ChunkLine {
    line: Line,
    speeds_sent: bool,
}

impl ExternalChunkPolicy for ChunkLine {
    fn chunk(&mut self, view: &MasterView<'_>, request: &Request) -> Result<u64, String> {
        let speeds = (!self.speeds_sent).then(|| view.worker_speeds.to_vec());
        self.speeds_sent = true;
        match self.line.ask(Point::Chunk(ChunkSnapshot::of(view, request), speeds))? {
            Answer::Chunk(k) => Ok(k),
            Answer::Batch(_) => Err("the answer was a list of job ids, not a number of tasks".into()),
        }
    }
}

/// The batch policy of a stepped run.
struct BatchLine {
    line: Line,
}

impl ExternalBatchPolicy for BatchLine {
    fn schedule(&mut self, view: &RustBatchView<'_>) -> Result<Vec<i64>, String> {
        match self.line.ask(Point::Batch(BatchSnapshot::of(view)))? {
            Answer::Batch(ids) => Ok(ids),
            Answer::Chunk(_) => Err("the answer was a number of tasks, not a list of job ids".into()),
        }
    }
}

/// One run of an experiment, driven decision by decision (see the module docs).
#[pyclass(module = "gridsim", unsendable)]
pub struct Simulation {
    points: Option<Receiver<Message>>,
    answers: Option<Sender<Answer>>,
    thread: Option<JoinHandle<()>>,
    /// The decision waiting for an answer.
    pending: Option<PointKind>,
    /// The run's output once it ended.
    output: Option<RunOutput>,
    speeds: Option<Py<PyTuple>>,
    views: BatchViews,
    /// `bot` or `batch`.
    #[pyo3(get)]
    family: String,
    /// The run's label (its key columns), as the CLI names it.
    #[pyo3(get)]
    label: String,
    /// The run's seed.
    #[pyo3(get)]
    seed: u64,
    /// Decisions made so far.
    #[pyo3(get)]
    decisions: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum PointKind {
    Chunk,
    Batch,
}

#[pymethods]
impl Simulation {
    /// `experiment`: an experiment file; `run`: the run's number in its sweep (from 0);
    /// `policy`: the name errors give the decisions made here; `quick`: the file's `[quick]`
    /// sweep.
    #[new]
    #[pyo3(signature = (experiment, run = 0, policy = "python", quick = false))]
    fn new(py: Python<'_>, experiment: PathBuf, run: usize, policy: &str, quick: bool) -> PyResult<Simulation> {
        let loaded = experiment::load(&experiment, quick, &schedulers::families::all())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let count = loaded.runs.len();
        let chosen = loaded.runs.get(run).ok_or_else(|| {
            PyValueError::new_err(format!(
                "run: {} has {count} runs (0 to {}), not a run {run}",
                experiment.display(),
                count.saturating_sub(1)
            ))
        })?;
        let family: &'static dyn Family = loaded.family;
        let name = family.name();
        if name != "bot" && name != "batch" {
            return Err(PyValueError::new_err(format!(
                "{}: family '{name}' has no step API (bot and batch have)",
                experiment.display()
            )));
        }
        let mut spec = chosen.spec_to_run().map_err(PyValueError::new_err)?.into_owned();
        let label = chosen.describe(&loaded.key_columns);
        // The run's own scheduler's parameters do not apply to the decisions made here.
        let own: Vec<&str> = family.parameters().iter().map(|p| p.name).collect();
        spec.params.retain(|k, _| own.contains(&k.as_str()));
        spec.scheduler = policy.to_string();
        let (point_tx, point_rx) = channel::<Message>();
        let (answer_tx, answer_rx) = channel::<Answer>();
        // The factory is called once, on the simulation's thread, for the run's one policy.
        let line = Arc::new(std::sync::Mutex::new(Some(Line {
            points: point_tx.clone(),
            answers: answer_rx,
        })));
        let take = move || {
            line.lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .ok_or_else(|| "internal error: the step policy was built twice".to_string())
        };
        let factory = if name == "bot" {
            let f: ChunkFactory = Arc::new(move |_: &BTreeMap<String, f64>| {
                Ok(Box::new(ChunkLine {
                    line: take()?,
                    speeds_sent: false,
                }) as Box<dyn ExternalChunkPolicy>)
            });
            Factory::Chunk(f)
        } else {
            let f: BatchFactory = Arc::new(move |_: &BTreeMap<String, f64>| {
                Ok(Box::new(BatchLine { line: take()? }) as Box<dyn ExternalBatchPolicy>)
            });
            Factory::Batch(f)
        };
        let external = ExternalPolicy {
            info: PolicyInfo {
                name: crate::policies::interned(policy),
                description: "decisions made through the step API",
                params: &[],
            },
            factory,
        };
        family
            .validate_external(&spec, &external)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let limits = loaded.limits;
        let seed = spec.seed;
        let thread = std::thread::Builder::new()
            .name("gridsim-step".into())
            .spawn(move || {
                let guards = budget::Limits {
                    max_events: Some(limits.events),
                    stop: None,
                };
                let result = match budget::run_limited(guards, || family.run_external(&spec, &external)) {
                    Ok(result) => result,
                    Err(stopped) => Err(RunError::Other(format!("stopped by [limits]: {stopped:?}"))),
                };
                // The receiver may be gone (the Simulation dropped): nothing to tell.
                let _ = point_tx.send(Message::Done(result));
            })
            .map_err(|e| PyRuntimeError::new_err(format!("starting the simulation's thread: {e}")))?;
        let _ = py;
        Ok(Simulation {
            points: Some(point_rx),
            answers: Some(answer_tx),
            thread: Some(thread),
            pending: None,
            output: None,
            speeds: None,
            views: BatchViews::default(),
            family: name.to_string(),
            label,
            seed,
            decisions: 0,
        })
    }

    /// Runs to the next decision point and returns its view (`ChunkView` or `BatchView`), or
    /// `None` once the run is over (then `metrics` and `tables` hold its results). Raises
    /// `RuntimeError` if the run failed (an answer out of range, among others).
    fn next_decision(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.pending.is_some() {
            return Err(PyRuntimeError::new_err(
                "the last decision has no answer yet: call answer() first",
            ));
        }
        let Some(points) = self.points.take() else {
            return Ok(None);
        };
        let (points, message) = py.detach(move || {
            let message = points.recv();
            (points, message)
        });
        self.points = Some(points);
        let message = message.map_err(|_| PyRuntimeError::new_err("internal error: the simulation's thread ended"))?;
        match message {
            Message::Point(Point::Chunk(snapshot, speeds)) => {
                if let Some(speeds) = speeds {
                    self.speeds = Some(PyTuple::new(py, speeds)?.unbind());
                }
                let speeds = self
                    .speeds
                    .as_ref()
                    .ok_or_else(|| PyRuntimeError::new_err("internal error: no worker speeds"))?;
                self.pending = Some(PointKind::Chunk);
                Ok(Some(snapshot.view(py, speeds)?.into_any()))
            }
            Message::Point(Point::Batch(snapshot)) => {
                self.pending = Some(PointKind::Batch);
                Ok(Some(self.views.of_snapshot(py, &snapshot)?.into_any()))
            }
            Message::Done(result) => {
                self.finish();
                match result {
                    Ok(output) => {
                        self.output = Some(output);
                        Ok(None)
                    }
                    Err(e) => Err(PyRuntimeError::new_err(format!("run {}: {e}", self.label))),
                }
            }
        }
    }

    /// Answers the pending decision: a number of tasks (bag of tasks) or a list of the ids of
    /// the jobs to start now (batch). A value of the wrong type raises `TypeError` and leaves
    /// the decision pending; one out of range ends the run (see `next_decision`).
    fn answer(&mut self, decision: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(kind) = self.pending else {
            return Err(PyRuntimeError::new_err(
                "no decision is pending: call next_decision() first",
            ));
        };
        let answer = match kind {
            PointKind::Chunk => Answer::Chunk(chunk_answer(decision).map_err(pyo3::exceptions::PyTypeError::new_err)?),
            PointKind::Batch => {
                Answer::Batch(schedule_answer(decision).map_err(pyo3::exceptions::PyTypeError::new_err)?)
            }
        };
        self.pending = None;
        self.decisions += 1;
        if let Some(answers) = &self.answers {
            // The thread may have ended already; `next_decision` then reports how.
            let _ = answers.send(answer);
        }
        Ok(())
    }

    /// Whether the run is over.
    #[getter]
    fn done(&self) -> bool {
        self.points.is_none()
    }

    /// The run's metrics (name → value), once it is over.
    #[getter]
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let output = self.finished()?;
        let out = PyDict::new(py);
        for (k, v) in &output.metrics {
            out.set_item(k, v)?;
        }
        Ok(out)
    }

    /// The run's tables (name → list of rows, each a dict of column → value), once it is over:
    /// those the experiment's `[outputs] tables` asks for, and those the family always writes.
    #[getter]
    fn tables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let output = self.finished()?;
        let out = PyDict::new(py);
        for (name, table) in &output.tables {
            let rows = pyo3::types::PyList::empty(py);
            for row in &table.rows {
                let d = PyDict::new(py);
                for (c, v) in table.columns.iter().zip(row) {
                    match v {
                        ParamValue::Int(i) => d.set_item(c, i)?,
                        ParamValue::Float(x) => d.set_item(c, x)?,
                        ParamValue::Str(s) => d.set_item(c, s)?,
                        ParamValue::Bool(b) => d.set_item(c, b)?,
                    }
                }
                rows.append(d)?;
            }
            out.set_item(name, rows)?;
        }
        Ok(out)
    }

    /// Ends the run now (the simulation's thread stops at its next decision).
    fn close(&mut self, py: Python<'_>) {
        self.answers = None;
        self.pending = None;
        // Unblocks a thread waiting for an answer; it then ends with a failure nobody reads.
        if let Some(points) = self.points.take() {
            py.detach(move || while points.recv().is_ok() {});
        }
        self.finish();
    }

    fn __repr__(&self) -> String {
        format!(
            "Simulation(run {}, family {}, {} decisions{})",
            self.label,
            self.family,
            self.decisions,
            if self.done() { ", done" } else { "" }
        )
    }
}

impl Simulation {
    fn finish(&mut self) {
        self.points = None;
        self.answers = None;
        if let Some(thread) = self.thread.take() {
            // The thread sent its last message: it ends at once.
            let _ = thread.join();
        }
    }

    fn finished(&self) -> PyResult<&RunOutput> {
        self.output
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("the run is not over: call next_decision() until it returns None"))
    }
}

impl Drop for Simulation {
    fn drop(&mut self) {
        // Closing the answer channel makes a waiting policy fail, so the thread ends; it is
        // not joined here, since it may still be simulating up to its next decision.
        self.answers = None;
        self.points = None;
    }
}

/// Registers the step API and the policy views.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::policies::register(m)?;
    m.add_class::<Simulation>()?;
    Ok(())
}

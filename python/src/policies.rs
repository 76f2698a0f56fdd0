//! Python classes as gridsim policies: `gridsim.run(..., policies={"my_gss": MyGss})`.
//!
//! A policy class answers one family's decision points with a method (the family is told by
//! which method the class has):
//!
//! - `chunk(self, view) -> int`, bag of tasks (`bot`): the tasks for the request of worker
//!   `view.worker`, in `1..=view.remaining`. [`ChunkView`] holds what the Rust `ChunkPolicy`
//!   sees: the date, `N`, the tasks left, the workers, the chunks answered, the flops per task,
//!   each worker's peak speed, and the request (the worker's last chunk and proposal).
//! - `schedule(self, view) -> list[int]`, batch: the log's ids of the queued jobs to start now,
//!   which get the lowest-numbered free units. [`BatchView`] holds the date, the units (all,
//!   free, up), the queue in order (`QueuedJob` named tuples: id, submit date, size, request)
//!   and the running jobs (`RunningJob`: size, start, planned end = start + request).
//!
//! The class may declare parameters as a class attribute `params`, a dict from name to default
//! (an `int` default makes an integer parameter) or to a dict with `default`, `min`, `max`,
//! `meaning` and `unit`; an experiment file sets them as any scheduler's, each run's values are
//! checked against them and passed to the constructor as keywords. The class's docstring's
//! first line is its description.
//!
//! The simulation runs on the runner's threads; a decision takes the interpreter's lock for the
//! call. A decision that raises, returns another type or an answer out of range ends that run
//! with an error naming the policy, the date, the decision and the run
//! (`schedulers::external`); the sweep goes on.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};
use pyo3::{intern, IntoPyObjectExt};

use schedulers::batch::BatchView as RustBatchView;
use schedulers::bot::{MasterView, Request};
use schedulers::external::{
    BatchFactory, ChunkFactory, ExternalBatchPolicy, ExternalChunkPolicy, ExternalPolicies, ExternalPolicy, Factory,
    WithExternal,
};
use schedulers::family::Family;
use schedulers::registry::{Kind, Param, PolicyInfo};

/// What a bag-of-tasks policy sees when worker `worker` asks for work.
#[pyclass(frozen, get_all, module = "gridsim")]
pub struct ChunkView {
    /// The date, s.
    pub now: f64,
    /// `N`, all tasks.
    pub total: u64,
    /// Tasks not yet handed out (`R`); the answer must be in `1..=remaining`.
    pub remaining: u64,
    /// Number of workers `P`.
    pub workers: usize,
    /// Chunks answered so far.
    pub answers: u64,
    /// Flops per task.
    pub task_flops: f64,
    /// Peak speed of each worker's host, flop/s (a tuple, by worker).
    pub worker_speeds: Py<PyTuple>,
    /// The worker asking (0-based, deployment order).
    pub worker: usize,
    /// Tasks in its last chunk (`None` on its first request).
    pub last_size: Option<u64>,
    /// Seconds it spent computing its last chunk.
    pub last_exec_time: Option<f64>,
    /// The size it proposes (a policy with a worker-side hook), if any.
    pub proposal: Option<u64>,
}

#[pymethods]
impl ChunkView {
    fn __repr__(&self) -> String {
        format!(
            "ChunkView(now={}, worker={}, remaining={}, total={}, workers={})",
            self.now, self.worker, self.remaining, self.total, self.workers
        )
    }
}

/// The record types of queued and running jobs: named tuples (`gridsim.QueuedJob`: `id`,
/// `index`, `submit_s`, `size`, `request_s`; `gridsim.RunningJob`: `index`, `size`, `start_s`,
/// `planned_end_s`): Python reads a named tuple's fields without calling into the extension,
/// as a native class's getters would, and a batch policy reads them many times a decision.
/// Made once per process.
fn job_types(py: Python<'_>) -> PyResult<&(Py<PyAny>, Py<PyAny>)> {
    static TYPES: PyOnceLock<(Py<PyAny>, Py<PyAny>)> = PyOnceLock::new();
    TYPES.get_or_try_init(py, || {
        let code = c"
from collections import namedtuple
QueuedJob = namedtuple('QueuedJob', 'id index submit_s size request_s', module='gridsim')
QueuedJob.__doc__ = ('A queued job: its id as written in the log (what schedule() returns), '
    'its index in the run, submit date (s), size (units) and request (s).')
RunningJob = namedtuple('RunningJob', 'index size start_s planned_end_s', module='gridsim')
RunningJob.__doc__ = ('A running job: its index in the run, size (units), start (s) and '
    'planned end (start + request, s).')
";
        let module = PyModule::from_code(py, code, c"gridsim/_jobs.py", c"gridsim._jobs")?;
        Ok((
            module.getattr("QueuedJob")?.unbind(),
            module.getattr("RunningJob")?.unbind(),
        ))
    })
}

/// What a batch policy sees when it decides.
#[pyclass(frozen, get_all, module = "gridsim")]
pub struct BatchView {
    /// The date, s.
    pub now: f64,
    /// Units of the platform.
    pub total: u32,
    /// Units free now.
    pub free: u32,
    /// Units up now (free or held).
    pub up: u32,
    /// Units booting (hosts switched off when idle, booted for the queue): neither free nor up.
    pub booting: u32,
    /// Queued jobs by submit date then id (a list of `QueuedJob` named tuples).
    pub queue: Py<PyList>,
    /// Running jobs, in no particular order (a list of `RunningJob` named tuples).
    pub running: Py<PyList>,
}

#[pymethods]
impl BatchView {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "BatchView(now={}, free={}, total={}, queued={}, running={})",
            self.now,
            self.free,
            self.total,
            self.queue.bind(py).len(),
            self.running.bind(py).len()
        )
    }
}

/// A chunk decision point as plain data (what the step API sends between threads).
#[derive(Clone, Debug)]
pub struct ChunkSnapshot {
    /// See [`ChunkView`].
    pub now: f64,
    /// See [`ChunkView`].
    pub total: u64,
    /// See [`ChunkView`].
    pub remaining: u64,
    /// See [`ChunkView`].
    pub workers: usize,
    /// See [`ChunkView`].
    pub answers: u64,
    /// See [`ChunkView`].
    pub task_flops: f64,
    /// See [`ChunkView`].
    pub worker: usize,
    /// See [`ChunkView`].
    pub last_size: Option<u64>,
    /// See [`ChunkView`].
    pub last_exec_time: Option<f64>,
    /// See [`ChunkView`].
    pub proposal: Option<u64>,
}

impl ChunkSnapshot {
    /// The decision point of `view` and `request`.
    pub fn of(view: &MasterView<'_>, request: &Request) -> ChunkSnapshot {
        ChunkSnapshot {
            now: view.now,
            total: view.total,
            remaining: view.remaining,
            workers: view.workers,
            answers: view.answers,
            task_flops: view.task_flops,
            worker: request.worker,
            last_size: request.last.map(|l| l.size),
            last_exec_time: request.last.map(|l| l.exec_time),
            proposal: request.proposal,
        }
    }

    /// The Python view, with the run's worker speeds (`speeds`, one tuple per run).
    pub fn view(&self, py: Python<'_>, speeds: &Py<PyTuple>) -> PyResult<Py<ChunkView>> {
        Py::new(
            py,
            ChunkView {
                now: self.now,
                total: self.total,
                remaining: self.remaining,
                workers: self.workers,
                answers: self.answers,
                task_flops: self.task_flops,
                worker_speeds: speeds.clone_ref(py),
                worker: self.worker,
                last_size: self.last_size,
                last_exec_time: self.last_exec_time,
                proposal: self.proposal,
            },
        )
    }
}

/// A batch decision point as plain data.
#[derive(Clone, Debug)]
pub struct BatchSnapshot {
    /// See [`BatchView`].
    pub now: f64,
    /// See [`BatchView`].
    pub total: u32,
    /// See [`BatchView`].
    pub free: u32,
    /// See [`BatchView`].
    pub up: u32,
    /// See [`BatchView`].
    pub booting: u32,
    /// The queue, in order.
    pub queue: Vec<schedulers::batch::QueuedJob>,
    /// The running jobs.
    pub running: Vec<schedulers::batch::RunningJob>,
}

impl BatchSnapshot {
    /// The decision point of `view`.
    pub fn of(view: &RustBatchView<'_>) -> BatchSnapshot {
        BatchSnapshot {
            now: view.now,
            total: view.total,
            free: view.free,
            up: view.up,
            booting: view.booting,
            queue: view.queue.iter().copied().collect(),
            running: view.running.to_vec(),
        }
    }
}

/// Builds the Python views of one run's batch decisions, keeping each job's `QueuedJob` and
/// `RunningJob` object from one decision to the next (a job is queued or runs across many
/// decisions; its objects do not change while it does).
#[derive(Default)]
pub struct BatchViews {
    queued: Vec<Option<Py<PyAny>>>,
    /// A running job's object, with the start it was made for (a requeued job starts again).
    running: Vec<Option<(f64, Py<PyAny>)>>,
}

impl BatchViews {
    /// The view of a decision: `now`, units, and the queued and running jobs given.
    fn build<'a>(
        &mut self,
        py: Python<'_>,
        (now, total, free, up, booting): (f64, u32, u32, u32, u32),
        queue: impl Iterator<Item = &'a schedulers::batch::QueuedJob>,
        running: &[schedulers::batch::RunningJob],
    ) -> PyResult<Py<BatchView>> {
        let (queued_type, running_type) = job_types(py)?;
        let mut queued = Vec::with_capacity(queue.size_hint().0);
        for q in queue {
            if self.queued.len() <= q.index {
                self.queued.resize_with(q.index + 1, || None);
            }
            let object = match &self.queued[q.index] {
                Some(object) => object.clone_ref(py),
                None => {
                    let object = queued_type.call1(py, (q.id, q.index, q.submit_s, q.size, q.request_s))?;
                    self.queued[q.index] = Some(object.clone_ref(py));
                    object
                }
            };
            queued.push(object);
        }
        let mut runs = Vec::with_capacity(running.len());
        for r in running {
            if self.running.len() <= r.index {
                self.running.resize_with(r.index + 1, || None);
            }
            let object = match &self.running[r.index] {
                Some((start, object)) if *start == r.start_s => object.clone_ref(py),
                _ => {
                    let object = running_type.call1(py, (r.index, r.size, r.start_s, r.planned_end_s))?;
                    self.running[r.index] = Some((r.start_s, object.clone_ref(py)));
                    object
                }
            };
            runs.push(object);
        }
        Py::new(
            py,
            BatchView {
                now,
                total,
                free,
                up,
                booting,
                queue: PyList::new(py, queued)?.unbind(),
                running: PyList::new(py, runs)?.unbind(),
            },
        )
    }

    /// The Python view of `view`.
    pub fn of_view(&mut self, py: Python<'_>, view: &RustBatchView<'_>) -> PyResult<Py<BatchView>> {
        let units = (view.now, view.total, view.free, view.up, view.booting);
        self.build(py, units, view.queue.iter(), view.running)
    }

    /// The Python view of `snapshot`.
    pub fn of_snapshot(&mut self, py: Python<'_>, snapshot: &BatchSnapshot) -> PyResult<Py<BatchView>> {
        let units = (
            snapshot.now,
            snapshot.total,
            snapshot.free,
            snapshot.up,
            snapshot.booting,
        );
        self.build(py, units, snapshot.queue.iter(), &snapshot.running)
    }
}

/// A Python exception as one line for a run's error: its type and message, then where it was
/// raised (the traceback's last frame).
pub fn describe_exception(py: Python<'_>, method: &str, err: &PyErr) -> String {
    let mut text = format!("{method} raised {err}");
    if let Some(tb) = err.traceback(py) {
        if let Ok(formatted) = pyo3::types::PyTracebackMethods::format(&tb) {
            if let Some(last) = formatted.lines().rev().find(|l| l.trim_start().starts_with("File ")) {
                text.push_str(&format!(" ({})", last.trim()));
            }
        }
    }
    text
}

/// The number of tasks a `chunk` call returned; `Err` says what was wrong with its type.
pub fn chunk_answer(answer: &Bound<'_, PyAny>) -> Result<u64, String> {
    // A bool is an int to Python, but never meant as a number of tasks.
    if answer.is_instance_of::<pyo3::types::PyBool>() {
        return Err(format!("chunk() returned {answer}, not an int"));
    }
    match answer.extract::<i64>() {
        Ok(k) if k >= 0 => Ok(k as u64),
        // Below 1: the range check names it.
        Ok(_) => Ok(0),
        Err(_) => Err(format!(
            "chunk() returned {} of type {}, not an int",
            answer.repr().map_or_else(|_| "?".into(), |r| r.to_string()),
            answer.get_type().name().map_or_else(|_| "?".into(), |n| n.to_string())
        )),
    }
}

/// The job ids a `schedule` call returned; `Err` says what was wrong with its type.
pub fn schedule_answer(answer: &Bound<'_, PyAny>) -> Result<Vec<i64>, String> {
    let wrong = || {
        format!(
            "schedule() returned {} of type {}, not a list of job ids (ints)",
            answer.repr().map_or_else(|_| "?".into(), |r| r.to_string()),
            answer.get_type().name().map_or_else(|_| "?".into(), |n| n.to_string())
        )
    };
    if answer.is_instance_of::<pyo3::types::PyString>() || answer.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(wrong());
    }
    let iter = answer.try_iter().map_err(|_| wrong())?;
    let mut ids = Vec::new();
    for item in iter {
        let item = item.map_err(|e| format!("iterating what schedule() returned raised {e}"))?;
        if item.is_instance_of::<pyo3::types::PyBool>() {
            return Err(wrong());
        }
        ids.push(item.extract::<i64>().map_err(|_| wrong())?);
    }
    Ok(ids)
}

/// Keeps the calling thread's Python thread state from one decision to the next, for the life
/// of a run's policy object: without it, each decision on a runner thread (which Python did not
/// start) would create and destroy a thread state, most of a decision's cost for a policy as
/// cheap as GSS. Made and dropped on the run's thread, where the family builds, runs and drops
/// the policy; it holds no lock between decisions.
struct KeptThreadState {
    gil: pyo3::ffi::PyGILState_STATE,
    saved: *mut pyo3::ffi::PyThreadState,
}

impl KeptThreadState {
    /// The state of the calling thread, which must not hold the interpreter's lock.
    fn new() -> KeptThreadState {
        // SAFETY: `PyGILState_Ensure` takes the lock with this thread's state (made if new) and
        // `PyEval_SaveThread` gives the lock back keeping that state: the pair leaves the thread
        // as it was, less the state's destruction, which `Drop` does on the same thread.
        unsafe {
            let gil = pyo3::ffi::PyGILState_Ensure();
            let saved = pyo3::ffi::PyEval_SaveThread();
            KeptThreadState { gil, saved }
        }
    }
}

impl Drop for KeptThreadState {
    fn drop(&mut self) {
        // SAFETY: on the thread that made it (see the type's docs), in reverse order.
        unsafe {
            pyo3::ffi::PyEval_RestoreThread(self.saved);
            pyo3::ffi::PyGILState_Release(self.gil);
        }
    }
}

// SAFETY: the state is only dropped on the thread that made it: a policy object never leaves
// its run's thread (the families build it, run it and drop it in one call), though its type
// must be `Send` to be a policy.
unsafe impl Send for KeptThreadState {}

/// A Python object answering `chunk`.
struct PyChunk {
    object: Py<PyAny>,
    /// The worker speeds as one tuple, made at the first decision (they are fixed for a run).
    speeds: Option<Py<PyTuple>>,
    /// Dropped last, after the object's reference.
    _thread: KeptThreadState,
}

impl ExternalChunkPolicy for PyChunk {
    fn chunk(&mut self, view: &MasterView<'_>, request: &Request) -> Result<u64, String> {
        Python::attach(|py| {
            let speeds = match &self.speeds {
                Some(s) => s.clone_ref(py),
                None => {
                    let s = PyTuple::new(py, view.worker_speeds)
                        .map_err(|e| e.to_string())?
                        .unbind();
                    self.speeds = Some(s.clone_ref(py));
                    s
                }
            };
            let view = ChunkSnapshot::of(view, request)
                .view(py, &speeds)
                .map_err(|e| e.to_string())?;
            let answer = self
                .object
                .bind(py)
                .call_method1(intern!(py, "chunk"), (view,))
                .map_err(|e| describe_exception(py, "chunk()", &e))?;
            chunk_answer(&answer)
        })
    }
}

/// A Python object answering `schedule`.
struct PyBatch {
    object: Py<PyAny>,
    views: BatchViews,
    /// Dropped last, after the objects' references.
    _thread: KeptThreadState,
}

impl ExternalBatchPolicy for PyBatch {
    fn schedule(&mut self, view: &RustBatchView<'_>) -> Result<Vec<i64>, String> {
        Python::attach(|py| {
            let view = self.views.of_view(py, view).map_err(|e| e.to_string())?;
            let answer = self
                .object
                .bind(py)
                .call_method1(intern!(py, "schedule"), (view,))
                .map_err(|e| describe_exception(py, "schedule()", &e))?;
            schedule_answer(&answer)
        })
    }
}

/// Strings made `'static` for a policy's registry entry, each text once per process (a
/// family's scheduler list is `'static`; a notebook that declares the same class again reuses
/// them instead of leaking more).
pub fn interned(text: &str) -> &'static str {
    static TEXTS: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    let mut texts = TEXTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&s) = texts.get(text) {
        return s;
    }
    let s: &'static str = Box::leak(text.to_string().into_boxed_str());
    texts.insert(text.to_string(), s);
    s
}

/// `params` as declared: every parameter's kind, default and range; the slice interned as the
/// texts are.
fn interned_params(params: Vec<Param>) -> &'static [Param] {
    type Key = Vec<(&'static str, &'static str, &'static str, &'static str, u64, u64, bool)>;
    static LISTS: OnceLock<Mutex<HashMap<Key, &'static [Param]>>> = OnceLock::new();
    let key: Key = params
        .iter()
        .map(|p| {
            let kind = if p.kind == Kind::Integer { "i" } else { "r" };
            (
                p.name,
                p.meaning,
                p.unit,
                p.default,
                p.min.to_bits(),
                p.max.to_bits(),
                kind == "i",
            )
        })
        .collect();
    let mut lists = LISTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&list) = lists.get(&key) {
        return list;
    }
    let list: &'static [Param] = Box::leak(params.into_boxed_slice());
    lists.insert(key, list);
    list
}

/// The number `value` of a parameter declaration, named for errors.
fn number(value: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!("{what} must be a number, got {value}")));
    }
    value
        .extract::<f64>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a number, got {value}")))
}

/// The parameters a class declares in its `params` attribute (see the module docs).
fn declared_params(policy: &str, class: &Bound<'_, PyAny>) -> PyResult<Vec<Param>> {
    let py = class.py();
    let Ok(params) = class.getattr(intern!(py, "params")) else {
        return Ok(Vec::new());
    };
    let params = params.cast_into::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "policy '{policy}': params must be a dict from parameter name to default"
        ))
    })?;
    let mut out = Vec::new();
    for (name, spec) in params.iter() {
        let name: String = name
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("policy '{policy}': a parameter name is not a string")))?;
        let what = |field: &str| format!("policy '{policy}': parameter '{name}': {field}");
        let (default, min, max, meaning, unit) = match spec.cast::<PyDict>() {
            Ok(d) => {
                let get = |k: &str| d.get_item(k).ok().flatten();
                let default = get("default").ok_or_else(|| PyValueError::new_err(what("needs a 'default'")))?;
                let min = get("min").map(|v| number(&v, &what("min"))).transpose()?;
                let max = get("max").map(|v| number(&v, &what("max"))).transpose()?;
                let text = |k: &str| -> PyResult<String> {
                    get(k).map_or(Ok(String::new()), |v| {
                        v.extract::<String>()
                            .map_err(|_| PyTypeError::new_err(what(&format!("{k} must be a string"))))
                    })
                };
                (default, min, max, text("meaning")?, text("unit")?)
            }
            Err(_) => (spec.clone(), None, None, String::new(), String::new()),
        };
        let integer = default.is_exact_instance_of::<pyo3::types::PyInt>();
        let x = number(&default, &what("default"))?;
        let name_s = interned(&name);
        let meaning_s = interned(if meaning.is_empty() {
            "(declared by the Python class)"
        } else {
            &meaning
        });
        let default_text = if integer {
            format!("{}", x as i64)
        } else {
            format!("{x}")
        };
        let lowest = if integer { i64::MIN as f64 } else { f64::MIN };
        let mut param = if integer {
            Param::integer(name_s, meaning_s, interned(&default_text), min.unwrap_or(lowest))
        } else {
            Param::real(name_s, meaning_s, interned(&default_text), min.unwrap_or(lowest))
        };
        if let Some(max) = max {
            param = param.at_most(max);
        }
        param = param.in_unit(interned(&unit));
        // The default must be a value the parameter takes.
        param
            .check(x)
            .map_err(|e| PyValueError::new_err(what(&format!("default {}", e.message))))?;
        out.push(param);
    }
    Ok(out)
}

/// The external policy of Python class `class`, named `name`.
pub fn external_policy(name: &str, class: &Bound<'_, PyAny>) -> PyResult<ExternalPolicy> {
    let py = class.py();
    if !class.is_instance_of::<PyType>() {
        return Err(PyTypeError::new_err(format!(
            "policy '{name}' must be a class (its objects are made per run), got {class}"
        )));
    }
    let has = |method: &str| class.hasattr(method).unwrap_or(false);
    let description = class
        .getattr(intern!(py, "__doc__"))
        .ok()
        .and_then(|d| d.extract::<String>().ok())
        .and_then(|d| d.trim().lines().next().map(str::to_string))
        .unwrap_or_else(|| "a policy written in Python".to_string());
    let params = declared_params(name, class)?;
    let info = PolicyInfo {
        name: interned(name),
        description: interned(&description),
        params: interned_params(params),
    };
    let class: Py<PyAny> = class.clone().unbind();
    // Builds the run's object: `class(**values)`, integer parameters as ints.
    let make = move |values: &BTreeMap<String, f64>| -> Result<Py<PyAny>, String> {
        Python::attach(|py| {
            let kwargs = PyDict::new(py);
            for p in info.params {
                let x = values.get(p.name).copied().unwrap_or(f64::NAN);
                let value = if p.kind == Kind::Integer {
                    (x as i64).into_py_any(py)
                } else {
                    x.into_py_any(py)
                }
                .map_err(|e| e.to_string())?;
                kwargs.set_item(p.name, value).map_err(|e| e.to_string())?;
            }
            class
                .bind(py)
                .call((), Some(&kwargs))
                .map(Bound::unbind)
                .map_err(|e| describe_exception(py, "the constructor", &e))
        })
    };
    let factory = if has("chunk") {
        let f: ChunkFactory = Arc::new(move |values: &BTreeMap<String, f64>| {
            let thread = KeptThreadState::new();
            Ok(Box::new(PyChunk {
                object: make(values)?,
                speeds: None,
                _thread: thread,
            }) as Box<dyn ExternalChunkPolicy>)
        });
        Factory::Chunk(f)
    } else if has("schedule") {
        let f: BatchFactory = Arc::new(move |values: &BTreeMap<String, f64>| {
            let thread = KeptThreadState::new();
            Ok(Box::new(PyBatch {
                object: make(values)?,
                views: BatchViews::default(),
                _thread: thread,
            }) as Box<dyn ExternalBatchPolicy>)
        });
        Factory::Batch(f)
    } else {
        return Err(PyTypeError::new_err(format!(
            "policy '{name}' has neither chunk(self, view) (bag of tasks) nor schedule(self, view) (batch)"
        )));
    };
    Ok(ExternalPolicy { info, factory })
}

/// The external policies of a `policies` dict (name → class).
pub fn external_policies(policies: &Bound<'_, PyDict>) -> PyResult<ExternalPolicies> {
    let mut table = ExternalPolicies::new();
    for (name, class) in policies.iter() {
        let name: String = name
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("policies: a key is not a string: {name}")))?;
        if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c == ',') {
            return Err(PyValueError::new_err(format!(
                "policies: '{name}' is not a policy name (no spaces or commas)"
            )));
        }
        table
            .add(external_policy(&name, &class)?)
            .map_err(PyValueError::new_err)?;
    }
    Ok(table)
}

/// The families experiment files can name, with `table`'s policies added to the families whose
/// decisions they answer. A family with external policies is made once per call and kept for
/// the life of the process (the loader takes `'static` families): a few words and a reference
/// to each class.
pub fn families_with(table: &ExternalPolicies) -> Result<Vec<&'static dyn Family>, String> {
    let mut out = Vec::new();
    for base in schedulers::families::all() {
        if table.of_family(base.name()).next().is_none() {
            out.push(base);
            continue;
        }
        let family: &'static WithExternal = Box::leak(Box::new(WithExternal::new(base, table.clone())?));
        out.push(family);
    }
    Ok(out)
}

/// Registers the view classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ChunkView>()?;
    m.add_class::<BatchView>()?;
    let (queued, running) = job_types(m.py())?;
    m.add("QueuedJob", queued.clone_ref(m.py()))?;
    m.add("RunningJob", running.clone_ref(m.py()))?;
    Ok(())
}

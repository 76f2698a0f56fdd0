//! The contract between the experiment runner and the application families.
//!
//! A *family* (bag of tasks, cluster job stream, work stealing, skeletons) turns one fully
//! specified run — its platform, scheduler, parameters and seed — into metrics. The runner expands
//! an experiment file into [`RunSpec`]s, runs them on all cores and writes what the family
//! returns; the family knows nothing of files, threads or terminals.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::external::ExternalPolicy;
use crate::registry::{Kind, Param, ParamError, PolicyInfo};

use sim_core::platform::{HostId, Platform};

/// A parameter value from an experiment file.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// A real number.
    Float(f64),
    /// A string.
    Str(String),
    /// A boolean.
    Bool(bool),
}

impl ParamValue {
    /// The value as a real number (integers convert).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            ParamValue::Int(i) => Some(i as f64),
            ParamValue::Float(x) => Some(x),
            _ => None,
        }
    }

    /// The value as a non-negative integer (integral floats convert).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            ParamValue::Int(i) if i >= 0 => Some(i as u64),
            ParamValue::Float(x) if x >= 0.0 && x.fract() == 0.0 && x < 1.8e19 => Some(x as u64),
            _ => None,
        }
    }

    /// The value as a string slice.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ParamValue::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for ParamValue {
    /// The CSV form: shortest round-trip text for numbers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => write!(f, "{s}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// One simulation of a sweep, fully specified.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Position in the expanded sweep (rows are written in this order).
    pub index: usize,
    /// The platform, loaded once per distinct file and shared by all runs.
    pub platform: Arc<Platform>,
    /// The platform's name as the experiment gave it (file path or generator label).
    pub platform_name: String,
    /// Scheduler (policy) name, as registered by the family.
    pub scheduler: String,
    /// Every parameter of this run: sweep axis values, fixed workload parameters and the
    /// scheduler's parameters, by name.
    pub params: BTreeMap<String, ParamValue>,
    /// Replication number, from 0.
    pub replication: u32,
    /// The run's seed (derived from the base seed and the run's parameters).
    pub seed: u64,
    /// The job trace of `[workload]`, when the experiment names one (shared by all runs).
    pub workload: Option<Arc<traces::job::Workload>>,
    /// The per-run tables the experiment writes (`[outputs] tables`); a family may skip
    /// building the others (they cost memory per task or job).
    pub tables: Vec<String>,
}

/// Every parameter a run used, by name, with the value it took: the experiment's where the
/// file sets it, else the default the family fell back on, in the units experiment files use.
/// The runner writes them to `params.csv`, so that the CSV alone says how to run it again.
pub type UsedParams = BTreeMap<String, ParamValue>;

/// Why a family refuses or cannot do a run. Validation reports it at what it names: a
/// parameter's value in the experiment file, the platform, or else the scheduler.
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// A parameter's value is refused.
    Param(ParamError),
    /// The platform cannot hold the run (too few hosts, no route between two of them).
    Platform(String),
    /// A policy supplied at run time ([`crate::external`]) failed: it raised, or answered
    /// something the simulation refuses. The message names the policy, the date, what was
    /// being decided and the run. The runner records the run as failed and the sweep goes on.
    Policy(String),
    /// Anything else.
    Other(String),
}

impl RunError {
    /// The error for parameter `param`.
    pub fn param(param: &str, message: impl Into<String>) -> RunError {
        RunError::Param(ParamError::new(param, message))
    }

    /// An error about the platform.
    pub fn platform(message: impl Into<String>) -> RunError {
        RunError::Platform(message.into())
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Param(e) => e.fmt(f),
            RunError::Platform(m) | RunError::Policy(m) | RunError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ParamError> for RunError {
    fn from(e: ParamError) -> RunError {
        RunError::Param(e)
    }
}

impl From<String> for RunError {
    fn from(message: String) -> RunError {
        RunError::Other(message)
    }
}

impl From<&str> for RunError {
    fn from(message: &str) -> RunError {
        RunError::Other(message.to_string())
    }
}

impl From<RunError> for String {
    fn from(e: RunError) -> String {
        e.to_string()
    }
}

/// A run's parameters as a family reads them: derefs to the [`RunSpec`], and its helpers note
/// each default they fall back on ([`ParamReader::default_used`]), so that the defaults are
/// written where they are applied, once, and still reach `params.csv`.
pub struct ParamReader<'a> {
    spec: &'a RunSpec,
    defaults: RefCell<UsedParams>,
}

impl Deref for ParamReader<'_> {
    type Target = RunSpec;

    fn deref(&self) -> &RunSpec {
        self.spec
    }
}

impl<'a> ParamReader<'a> {
    /// A reader of `spec` that has noted no default yet.
    pub fn new(spec: &'a RunSpec) -> ParamReader<'a> {
        ParamReader {
            spec,
            defaults: RefCell::new(UsedParams::new()),
        }
    }

    /// Notes that parameter `name`, which the run does not set, took `value`.
    pub fn default_used(&self, name: &str, value: ParamValue) {
        if !self.spec.params.contains_key(name) {
            self.defaults.borrow_mut().insert(name.to_string(), value);
        }
    }

    /// Notes the registry defaults of the parameters of `entry` (a policy or a program) that
    /// the run does not set. A default that is a number is written as one; one that is a
    /// formula (`ceil(N/(2P))`) as its text, which is how the entry reads it.
    pub fn entry_defaults(&self, entry: &PolicyInfo) {
        for param in entry.params {
            if param.has_default() {
                self.default_used(param.name, default_value(param));
            }
        }
    }

    /// [`ParamReader::entry_defaults`] of the run's scheduler in `policies`, its family's
    /// registry (nothing when the name is not there: `lookup` has refused it already).
    pub fn policy_defaults(&self, policies: &[PolicyInfo]) {
        if let Some(entry) = policies.iter().find(|p| p.name == self.spec.scheduler) {
            self.entry_defaults(entry);
        }
    }

    /// The value of `param` that the run gives, checked against its kind and range; else its
    /// default (noted), or `None` when it has none or its default is a formula (the family
    /// evaluates it and notes the value with [`ParamReader::default_used`]).
    fn typed(&self, param: &Param) -> Result<Option<ParamValue>, ParamError> {
        let name = param.name;
        let given = self.spec.params.get(name);
        let value = match given {
            Some(v) => v.clone(),
            None if !param.has_default() || param.default_is_formula() => return Ok(None),
            None => default_value(param),
        };
        let wrong = |v: &ParamValue| ParamError::new(name, format!("must be {}, got '{v}'", param.range_text()));
        let checked = match (param.kind, &value) {
            (Kind::Text, ParamValue::Str(_)) => value.clone(),
            (Kind::Bool, ParamValue::Bool(_)) => value.clone(),
            (Kind::Integer, v) => {
                let x = v.as_f64().ok_or_else(|| wrong(v))?;
                param.check(x)?;
                ParamValue::Int(v.as_u64().map_or(x as i64, |n| n.min(i64::MAX as u64) as i64))
            }
            (Kind::Real | Kind::Flag, v) => {
                let x = v.as_f64().ok_or_else(|| wrong(v))?;
                param.check(x)?;
                v.clone()
            }
            (_, v) => return Err(wrong(v)),
        };
        if given.is_none() {
            self.default_used(name, checked.clone());
        }
        Ok(Some(checked))
    }

    fn required(param: &Param) -> ParamError {
        ParamError::new(param.name, "is required")
    }

    /// Real parameter `param` (its default when the run does not set it), checked.
    pub fn real(&self, param: &Param) -> Result<f64, ParamError> {
        self.optional_real(param)?.ok_or_else(|| Self::required(param))
    }

    /// Real parameter `param`, or `None` when the run does not set it and it has no default.
    pub fn optional_real(&self, param: &Param) -> Result<Option<f64>, ParamError> {
        Ok(self.typed(param)?.and_then(|v| v.as_f64()))
    }

    /// Integer parameter `param` (its default when the run does not set it), checked.
    pub fn integer(&self, param: &Param) -> Result<u64, ParamError> {
        self.optional_integer(param)?.ok_or_else(|| Self::required(param))
    }

    /// Integer parameter `param`, or `None` when the run does not set it and it has no default.
    pub fn optional_integer(&self, param: &Param) -> Result<Option<u64>, ParamError> {
        Ok(self.typed(param)?.and_then(|v| v.as_u64()))
    }

    /// Integer parameter `param` counting things of which the run has `all` (hosts, nodes,
    /// PEs): at most `all`, named by `what` in the error (`the platform's hosts`); unset, `all`
    /// (its computed default, noted).
    pub fn integer_at_most(&self, param: &Param, all: u64, what: &str) -> Result<u64, ParamError> {
        match self.optional_integer(param)? {
            Some(n) if n <= all => Ok(n),
            Some(n) => Err(ParamError::new(
                param.name,
                format!("must be at most {all} ({what}), got {n}"),
            )),
            None => {
                self.default_used(param.name, ParamValue::Int(all as i64));
                Ok(all)
            }
        }
    }

    /// Boolean parameter `param` (its default when the run does not set it).
    pub fn boolean(&self, param: &Param) -> Result<bool, ParamError> {
        match self.typed(param)? {
            Some(ParamValue::Bool(b)) => Ok(b),
            _ => Err(Self::required(param)),
        }
    }

    /// String parameter `param` (its default when the run does not set it).
    pub fn text(&self, param: &Param) -> Result<String, ParamError> {
        self.optional_text(param)?.ok_or_else(|| Self::required(param))
    }

    /// String parameter `param`, or `None` when the run does not set it and it has no default.
    pub fn optional_text(&self, param: &Param) -> Result<Option<String>, ParamError> {
        Ok(match self.typed(param)? {
            Some(ParamValue::Str(s)) => Some(s),
            _ => None,
        })
    }

    /// The run's parameters other than the family's own (`model`): the scheduler's (and the
    /// program's), which registries read as numbers; a value that is not one is refused.
    pub fn numeric_params_besides(&self, model: &[Param]) -> Result<BTreeMap<String, f64>, RunError> {
        let mut out = BTreeMap::new();
        for (name, value) in &self.spec.params {
            if model.iter().any(|m| m.name == name) {
                continue;
            }
            let x = value
                .as_f64()
                .ok_or_else(|| RunError::param(name, format!("must be a number, got '{value}'")))?;
            out.insert(name.clone(), x);
        }
        Ok(out)
    }

    /// The run's parameters and the defaults noted, by name.
    pub fn used(self) -> UsedParams {
        let mut used = self.defaults.into_inner();
        used.extend(self.spec.params.iter().map(|(k, v)| (k.clone(), v.clone())));
        used
    }
}

/// The default of `param` as a value: a number as one (an integer when it reads as one), `true`
/// or `false` for a boolean, else its text (a formula the reader evaluates itself).
fn default_value(param: &Param) -> ParamValue {
    let default = param.default;
    if param.kind == Kind::Bool {
        if let Ok(b) = default.parse::<bool>() {
            return ParamValue::Bool(b);
        }
    }
    if param.kind == Kind::Text {
        return ParamValue::Str(default.to_string());
    }
    match default.parse::<i64>() {
        Ok(i) => ParamValue::Int(i),
        Err(_) => match default.parse::<f64>() {
            Ok(x) => ParamValue::Float(x),
            Err(_) => ParamValue::Str(default.to_string()),
        },
    }
}

/// Rows of a per-run table (per task, per job, per host interval, ...).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, each as long as `columns`.
    pub rows: Vec<Vec<ParamValue>>,
}

/// What one run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOutput {
    /// Simulated metrics by name (e.g. `makespan_s`), in a fixed order.
    pub metrics: BTreeMap<String, f64>,
    /// Engine events processed.
    pub events: u64,
    /// Detail tables by name (e.g. `chunks`); written only when the experiment asks.
    pub tables: BTreeMap<String, Table>,
    /// Set when the application could not finish its work (every worker off for good, a
    /// program whose main thread never ended): why, with how much was done. The runner then
    /// records the run with no metric and no table, so that no number of unfinished work is
    /// ever written or drawn as if it were a result.
    pub incomplete: Option<String>,
}

/// A documented name: a metric.
#[derive(Clone, Copy, Debug)]
pub struct Named {
    /// The name used in experiment files.
    pub name: &'static str,
    /// One line for `gridsim list` and error messages.
    pub description: &'static str,
}

/// Checks that the platform routes every pair of `pairs` (both ways), so that a deployment
/// whose hosts cannot talk fails `validate`, not the run. The message names the platform and
/// both hosts. Under the Constant network model comms take no route, so every pair can talk.
pub fn check_routes(spec: &RunSpec, pairs: impl IntoIterator<Item = (HostId, HostId)>) -> Result<(), RunError> {
    let platform = &spec.platform;
    if sim_core::NetworkParams::from_config(&platform.config).is_ok_and(|p| p.constant) {
        return Ok(());
    }
    for (a, b) in pairs {
        for (src, dst) in [(a, b), (b, a)] {
            if platform.route(src, dst).is_err() {
                return Err(RunError::Platform(format!(
                    "platform '{}' has no route from host '{}' to host '{}', which the run uses",
                    spec.platform_name,
                    platform.host(src).name,
                    platform.host(dst).name
                )));
            }
        }
    }
    Ok(())
}

/// A per-run table a family can write when an experiment lists it in `[outputs] tables`.
#[derive(Clone, Copy, Debug)]
pub struct TableInfo {
    /// The name used in `[outputs] tables` and as the file stem (`<name>.csv`).
    pub name: &'static str,
    /// One line for `gridsim list`.
    pub description: &'static str,
    /// Its columns, in order (the CSV puts the run's key columns before them).
    pub columns: &'static [&'static str],
}

/// The table `name` of a family's declaration `tables`, filled with `rows` (each as long as the
/// declared columns). An undeclared name is an error of the family, named.
pub fn declared_table(
    tables: &'static [TableInfo],
    name: &str,
    rows: Vec<Vec<ParamValue>>,
) -> Result<(String, Table), String> {
    let info = tables
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| format!("internal error: table '{name}' is not declared by its family"))?;
    let columns = info.columns.iter().map(|c| c.to_string()).collect();
    Ok((name.to_string(), Table { columns, rows }))
}

/// Checks what a run returned against its family's declarations: every metric declared, every
/// table declared with its declared columns. A mismatch is a
/// defect of the family (the experiment checks trust the declarations), reported as the run's
/// error instead of writing a CSV that the figures were not checked against.
pub fn check_output(family: &dyn Family, output: &RunOutput) -> Result<(), String> {
    let metrics = family.metrics();
    if let Some(name) = output
        .metrics
        .keys()
        .find(|m| !metrics.iter().any(|d| d.name == m.as_str()))
    {
        return Err(format!(
            "internal error: family '{}' returned metric '{name}', which it does not declare",
            family.name()
        ));
    }
    for (name, table) in &output.tables {
        let declared = family.tables().iter().find(|t| t.name == name.as_str());
        let Some(info) = declared else {
            return Err(format!(
                "internal error: family '{}' returned table '{name}', which it does not declare",
                family.name()
            ));
        };
        // (Rows as long as the columns are checked when the table is stored, `Record::new`.)
        if !table
            .columns
            .iter()
            .map(String::as_str)
            .eq(info.columns.iter().copied())
        {
            return Err(format!(
                "internal error: family '{}' returned table '{name}' with columns other than declared",
                family.name()
            ));
        }
    }
    Ok(())
}

/// What one run allocates for what grows with its parameters ([`Family::memory_estimate`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryEstimate {
    /// Bytes.
    pub bytes: u64,
    /// What they hold, e.g. `chunks table (parameter 'tasks' = 1000)`.
    pub what: String,
    /// The parameter that makes it grow.
    pub param: &'static str,
}

/// What a family declares about itself, once, as data: its name, its policy registry, its
/// parameters, metrics and tables. [`Family`]'s accessors read it.
pub struct FamilyInfo {
    /// The name used in experiment files (`family = "..."`).
    pub name: &'static str,
    /// One line for `gridsim list`.
    pub description: &'static str,
    /// The schedulers this family can run, with their parameters (its policy registry's
    /// `infos`).
    pub schedulers: fn() -> &'static [PolicyInfo],
    /// The family's own parameters (workload, deployment, model), declared once: readers,
    /// `gridsim list`, `validate` and params.csv all take them from here.
    pub parameters: &'static [Param],
    /// The metrics a run may return (the columns of runs.csv after the run's parameters);
    /// figures and `validate` check column names against them.
    pub metrics: &'static [Named],
    /// The per-run tables it can write (`[outputs] tables`).
    pub tables: &'static [TableInfo],
}

/// An application family. See the module docs.
pub trait Family: Send + Sync {
    /// The family's declaration.
    fn info(&self) -> &'static FamilyInfo;
    /// The name used in experiment files (`family = "..."`).
    fn name(&self) -> &'static str {
        self.info().name
    }
    /// One line for `gridsim list`.
    fn description(&self) -> &'static str {
        self.info().description
    }
    /// The schedulers this family can run, with their parameters (its policy registry).
    fn schedulers(&self) -> &'static [PolicyInfo] {
        (self.info().schedulers)()
    }
    /// The family's own parameters (see [`FamilyInfo::parameters`]).
    fn parameters(&self) -> &'static [Param] {
        self.info().parameters
    }
    /// Further entries whose parameters runs accept beside the schedulers' (the work-stealing
    /// family's programs). Default: none.
    fn other_entries(&self) -> &'static [PolicyInfo] {
        &[]
    }
    /// The metrics a run may return (see [`FamilyInfo::metrics`]).
    fn metrics(&self) -> &'static [Named] {
        self.info().metrics
    }
    /// The per-run tables it can write (`[outputs] tables`).
    fn tables(&self) -> &'static [TableInfo] {
        self.info().tables
    }
    /// An estimate of the memory one run allocates for what grows with its parameters (e.g.
    /// a per-task table), with what it is for, naming the parameter: `validate` refuses a run
    /// that cannot fit in the machine's memory before anything runs. Default: nothing that grows.
    fn memory_estimate(&self, spec: &RunSpec) -> Option<MemoryEstimate> {
        let _ = spec;
        None
    }
    /// Whether a run draws random numbers, so that replications can differ; `validate` and
    /// `run` warn when an experiment asks for replications of runs that cannot differ.
    fn draws_random_numbers(&self, spec: &RunSpec) -> bool {
        let _ = spec;
        true
    }
    /// Whether the family replays a job trace (`[workload]`); the default is no, and an
    /// experiment that names one for such a family is refused.
    fn replays_job_traces(&self) -> bool {
        false
    }
    /// For a family that sets a replayed trace's offered load itself: the parameter that does
    /// (e.g. `cpu_load`). `[workload] load_scale` would then be overridden, so an experiment
    /// that sets it is refused and pointed at this parameter.
    fn sets_offered_load(&self) -> Option<&'static str> {
        None
    }
    /// Checks a run's parameters without running it (unknown names, bad values); the message
    /// names the parameter. Returns every parameter the run uses with the value it takes,
    /// defaults filled in ([`ParamReader`]).
    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError>;
    /// Runs one simulation. Deterministic: the same spec gives the same output.
    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError>;
    /// [`Family::validate`] of a run whose scheduler is `policy`, supplied at run time
    /// ([`crate::external`]). Default: refused, the family takes no such policy.
    fn validate_external(&self, spec: &RunSpec, policy: &ExternalPolicy) -> Result<UsedParams, RunError> {
        let _ = spec;
        Err(no_external(self.name(), policy))
    }
    /// [`Family::run`] with `policy`, supplied at run time, as the run's scheduler. Default:
    /// refused, the family takes no such policy.
    fn run_external(&self, spec: &RunSpec, policy: &ExternalPolicy) -> Result<RunOutput, RunError> {
        let _ = spec;
        Err(no_external(self.name(), policy))
    }
}

fn no_external(family: &str, policy: &ExternalPolicy) -> RunError {
    RunError::Other(format!(
        "family '{family}' takes no policy supplied at run time (scheduler '{}' is a {} policy)",
        policy.info.name,
        policy.factory.family()
    ))
}

/// The parameter `name` of `family`: one of its own, else of a scheduler or another entry
/// (the first that declares it).
pub fn find_parameter(family: &dyn Family, name: &str) -> Option<&'static Param> {
    every_parameter(family).find(|p| p.name == name)
}

/// Every parameter `family` accepts, its own first, then each scheduler's and other entry's
/// (a name several entries share appears once per entry).
pub fn every_parameter(family: &dyn Family) -> impl Iterator<Item = &'static Param> {
    let entries = family.schedulers().iter().chain(family.other_entries());
    family.parameters().iter().chain(entries.flat_map(|e| e.params.iter()))
}

/// The names of every parameter `family` accepts, each once, in [`every_parameter`]'s order.
pub fn parameter_names(family: &dyn Family) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for p in every_parameter(family) {
        if !names.contains(&p.name) {
            names.push(p.name);
        }
    }
    names
}

//! Policies supplied at run time rather than from a family's registry: a researcher's policy
//! written in another language (a Python class, through the `python` crate), or any object a
//! caller of the library builds.
//!
//! # Model
//!
//! An external policy decides at the same points and on the same read-only views as the
//! family's own policies ([`crate::bot::MasterView`] and [`crate::bot::Request`] for a chunk,
//! [`crate::batch::BatchView`] for the jobs to start), and returns its decision as data: a
//! number of tasks ([`ExternalChunkPolicy`]), or the log's ids of the queued jobs to start now
//! ([`ExternalBatchPolicy`]; each started job gets the lowest-numbered free units, as under the
//! family's own policies). Unlike a built-in policy, whose answers the simulation trusts or
//! clips, an external one may fail (raise, answer the wrong type) and its answers are checked:
//! a chunk outside `1..=R` (`R` the tasks not yet handed out), a job id that is not queued, a job
//! started twice, or jobs needing more units than are free. The first failure ends the run with
//! a [`RunError::Policy`] naming the policy, the date and what was being decided; the runner
//! records such a run as failed, with that reason, and the sweep goes on.
//!
//! A caller hands the external policies to the runner as a table ([`ExternalPolicies`]): each
//! has a name, a description and typed parameters ([`PolicyInfo`], checked as a registry
//! entry's are), and a factory that builds one policy object per run from the run's parameter
//! values. [`WithExternal`] is a family that resolves the names its base family's registry does
//! not know against that table, so an experiment file names an external policy as it names any
//! other.
//!
//! This module does no I/O and starts no thread: the factories and policies are whatever the
//! caller supplies (the `python` crate holds the interpreter and its lock there).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::batch::policy::{BatchPolicy, BatchView};
use crate::bot::{Assignment, ChunkPolicy, MasterView, Request};
use crate::family::{Family, FamilyInfo, RunError, RunOutput, RunSpec, UsedParams};
use crate::registry::{ParamError, PolicyInfo, Values};

/// A chunk policy supplied at run time: the number of tasks for this request, or why it could
/// not decide. The answer must be in `1..=view.remaining`.
pub trait ExternalChunkPolicy: Send {
    /// The chunk for `request` (called only while tasks remain).
    fn chunk(&mut self, view: &MasterView<'_>, request: &Request) -> Result<u64, String>;
}

/// A batch policy supplied at run time: the ids (as written in the log) of the queued jobs to
/// start now, or why it could not decide. Each id must be queued and listed once, and the jobs
/// must fit together in `view.free` units.
pub trait ExternalBatchPolicy: Send {
    /// The jobs to start at `view.now`.
    fn schedule(&mut self, view: &BatchView<'_>) -> Result<Vec<i64>, String>;
}

/// Builds a run's chunk policy from its parameter values (every declared parameter, the run's
/// value or the default, checked against its range).
pub type ChunkFactory =
    Arc<dyn Fn(&BTreeMap<String, f64>) -> Result<Box<dyn ExternalChunkPolicy>, String> + Send + Sync>;

/// Builds a run's batch policy from its parameter values (as [`ChunkFactory`]'s).
pub type BatchFactory =
    Arc<dyn Fn(&BTreeMap<String, f64>) -> Result<Box<dyn ExternalBatchPolicy>, String> + Send + Sync>;

/// What an external policy decides, and how to build one.
#[derive(Clone)]
pub enum Factory {
    /// A bag-of-tasks chunk policy (family `bot`).
    Chunk(ChunkFactory),
    /// A batch policy (family `batch`).
    Batch(BatchFactory),
}

impl Factory {
    /// The family whose decision points it answers.
    pub fn family(&self) -> &'static str {
        match self {
            Factory::Chunk(_) => "bot",
            Factory::Batch(_) => "batch",
        }
    }
}

/// One external policy: its documented name and parameters, and its factory.
#[derive(Clone)]
pub struct ExternalPolicy {
    /// Name (as experiment files write it), description and typed parameters.
    pub info: PolicyInfo,
    /// Builds one policy object per run.
    pub factory: Factory,
}

impl fmt::Debug for ExternalPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExternalPolicy")
            .field("info", &self.info)
            .field("family", &self.factory.family())
            .finish()
    }
}

impl ExternalPolicy {
    /// The values of every declared parameter for a run setting `given`: the given value or
    /// the default, each checked against its kind and range; a key the policy does not declare
    /// is refused, naming it and the declared ones.
    pub fn values(&self, given: &BTreeMap<String, f64>) -> Result<BTreeMap<String, f64>, RunError> {
        let info = &self.info;
        if let Some(key) = given.keys().find(|k| info.param(k).is_none()) {
            let valid: Vec<_> = info.params.iter().map(|p| p.name).collect();
            return Err(RunError::param(
                key,
                format!(
                    "does not apply to scheduler '{}' (its parameters: {})",
                    info.name,
                    if valid.is_empty() {
                        "none".to_string()
                    } else {
                        valid.join(", ")
                    }
                ),
            ));
        }
        let reader = Values::new(info, given);
        let mut out = BTreeMap::new();
        for p in info.params {
            let value = reader.real(p.name).map_err(|e| {
                RunError::Param(ParamError::new(
                    &e.param,
                    format!("of scheduler '{}' {}", info.name, e.message),
                ))
            })?;
            out.insert(p.name.to_string(), value);
        }
        Ok(out)
    }

    /// A bag-of-tasks policy for one run, checked ([`CheckedChunk`]), with the parameter values
    /// `given`. An error building it (the factory's) is the policy's failure.
    pub fn chunk_policy(&self, given: &BTreeMap<String, f64>, run: &str) -> Result<CheckedChunk, RunError> {
        let values = self.values(given)?;
        let Factory::Chunk(factory) = &self.factory else {
            return Err(self.wrong_family("bot"));
        };
        let inner = factory(&values).map_err(|e| self.build_failed(run, e))?;
        Ok(CheckedChunk::new(self.info.name, inner))
    }

    /// A batch policy for one run, checked ([`CheckedBatch`]), with the parameter values `given`.
    pub fn batch_policy(&self, given: &BTreeMap<String, f64>, run: &str) -> Result<CheckedBatch, RunError> {
        let values = self.values(given)?;
        let Factory::Batch(factory) = &self.factory else {
            return Err(self.wrong_family("batch"));
        };
        let inner = factory(&values).map_err(|e| self.build_failed(run, e))?;
        Ok(CheckedBatch::new(self.info.name, inner))
    }

    fn wrong_family(&self, family: &str) -> RunError {
        RunError::Other(format!(
            "scheduler '{}' is a {} policy, not a {family} one",
            self.info.name,
            self.factory.family()
        ))
    }

    fn build_failed(&self, run: &str, message: String) -> RunError {
        RunError::Policy(format!(
            "policy '{}' failed at 0 s building its object for run {run}: {message}",
            self.info.name
        ))
    }
}

/// The external policies a caller hands to the runner, by name.
#[derive(Clone, Debug, Default)]
pub struct ExternalPolicies {
    entries: Vec<Arc<ExternalPolicy>>,
}

impl ExternalPolicies {
    /// An empty table.
    pub fn new() -> ExternalPolicies {
        ExternalPolicies::default()
    }

    /// Adds `policy`; a name already in the table is refused.
    pub fn add(&mut self, policy: ExternalPolicy) -> Result<(), String> {
        if self.find(policy.info.name).is_some() {
            return Err(format!("policy '{}' is supplied twice", policy.info.name));
        }
        self.entries.push(Arc::new(policy));
        Ok(())
    }

    /// The policy named `name`.
    pub fn find(&self, name: &str) -> Option<&Arc<ExternalPolicy>> {
        self.entries.iter().find(|e| e.info.name == name)
    }

    /// The policies that answer `family`'s decisions, in the order they were added.
    pub fn of_family<'a>(&'a self, family: &'a str) -> impl Iterator<Item = &'a Arc<ExternalPolicy>> + 'a {
        self.entries.iter().filter(move |e| e.factory.family() == family)
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The first failure of a checked policy, kept where the family that ran it can read it after
/// the simulation (the simulation itself returns a plain message).
#[derive(Clone, Debug, Default)]
pub struct Failure(Arc<Mutex<Option<String>>>);

impl Failure {
    fn set(&self, message: &str) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| message.to_string());
    }

    /// The first failure, if the policy failed.
    pub fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// An external chunk policy as the master/worker application runs it: every answer checked
/// against `1..=R`, a failure reported with the policy's name, the date and the request.
pub struct CheckedChunk {
    name: &'static str,
    inner: Box<dyn ExternalChunkPolicy>,
    failure: Failure,
}

impl CheckedChunk {
    /// `inner`, named `name` in errors.
    pub fn new(name: &'static str, inner: Box<dyn ExternalChunkPolicy>) -> CheckedChunk {
        CheckedChunk {
            name,
            inner,
            failure: Failure::default(),
        }
    }

    /// Where its first failure is kept (read it after the run).
    pub fn failure(&self) -> Failure {
        self.failure.clone()
    }
}

impl ChunkPolicy for CheckedChunk {
    /// The checked decision; after a failure, a stop (`0`). The application calls
    /// [`ChunkPolicy::try_assign`], which ends the run at the failure instead.
    fn assign(&mut self, view: &MasterView<'_>, request: &Request) -> Assignment {
        self.try_assign(view, request).unwrap_or(Assignment::tasks(0))
    }

    fn try_assign(&mut self, view: &MasterView<'_>, request: &Request) -> Result<Assignment, String> {
        if let Some(earlier) = self.failure.get() {
            return Err(earlier);
        }
        let event = || {
            format!(
                "policy '{}' failed at {} s deciding the chunk for worker {}'s request ({} of {} tasks left)",
                self.name, view.now, request.worker, view.remaining, view.total
            )
        };
        let answer = match self.inner.chunk(view, request) {
            Ok(k) if (1..=view.remaining).contains(&k) => return Ok(Assignment::tasks(k)),
            Ok(k) => format!(
                "{}: it answered a chunk of {k} tasks, outside 1..={}",
                event(),
                view.remaining
            ),
            Err(e) => format!("{}: {e}", event()),
        };
        self.failure.set(&answer);
        Err(answer)
    }
}

/// An external batch policy as the batch simulation runs it: the ids it answers turned into
/// queue positions, each checked (queued, once, fitting in the free units), a failure reported
/// with the policy's name, the date and the queue.
pub struct CheckedBatch {
    name: &'static str,
    inner: Box<dyn ExternalBatchPolicy>,
    failure: Failure,
    /// Queue position of each queued job id at the current decision (rebuilt each time; kept
    /// so that a decision allocates nothing once it has grown).
    positions: BTreeMap<i64, usize>,
}

impl CheckedBatch {
    /// `inner`, named `name` in errors.
    pub fn new(name: &'static str, inner: Box<dyn ExternalBatchPolicy>) -> CheckedBatch {
        CheckedBatch {
            name,
            inner,
            failure: Failure::default(),
            positions: BTreeMap::new(),
        }
    }

    /// Where its first failure is kept (read it after the run).
    pub fn failure(&self) -> Failure {
        self.failure.clone()
    }

    fn check(&mut self, view: &BatchView<'_>, ids: &[i64]) -> Result<Vec<usize>, String> {
        self.positions.clear();
        for (pos, job) in view.queue.iter().enumerate() {
            // A log may repeat an id: the first queued job of that id is the one meant.
            self.positions.entry(job.id).or_insert(pos);
        }
        let mut picks = Vec::with_capacity(ids.len());
        let mut units = 0u64;
        for &id in ids {
            let Some(pos) = self.positions.get(&id).copied() else {
                return Err(format!("it started job {id}, which is not queued"));
            };
            if picks.contains(&pos) {
                return Err(format!("it started job {id} twice"));
            }
            units += u64::from(view.queue[pos].size);
            picks.push(pos);
        }
        if units > u64::from(view.free) {
            return Err(format!(
                "it started jobs needing {units} units in all, but {} are free (the others are busy or down)",
                view.free
            ));
        }
        Ok(picks)
    }
}

impl BatchPolicy for CheckedBatch {
    /// The checked decision; after a failure, no job. The simulation calls
    /// [`BatchPolicy::try_decide`], which ends the run at the failure instead.
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        self.try_decide(view).unwrap_or_default()
    }

    fn try_decide(&mut self, view: &BatchView<'_>) -> Result<Vec<usize>, String> {
        if let Some(earlier) = self.failure.get() {
            return Err(earlier);
        }
        let checked = self.inner.schedule(view).and_then(|ids| self.check(view, &ids));
        checked.map_err(|e| {
            let message = format!(
                "policy '{}' failed at {} s deciding which of the {} queued jobs start ({} of {} units free): {e}",
                self.name,
                view.now,
                view.queue.len(),
                view.free,
                view.total
            );
            self.failure.set(&message);
            message
        })
    }
}

/// A family whose runs may also name the external policies of a table: names its base
/// family's registry knows run as before; the others are looked up in the table. Listings
/// ([`Family::schedulers`]) show both.
pub struct WithExternal {
    base: &'static dyn Family,
    policies: ExternalPolicies,
    infos: &'static [PolicyInfo],
}

impl WithExternal {
    /// `base` with the policies of `policies` that answer its decisions. Its scheduler list is
    /// built once and kept for the life of the process (families are `'static`, as the
    /// registry's are): a few words per policy.
    pub fn new(base: &'static dyn Family, policies: ExternalPolicies) -> Result<WithExternal, String> {
        let mut infos: Vec<PolicyInfo> = base.schedulers().to_vec();
        for p in policies.of_family(base.name()) {
            if infos.iter().any(|i| i.name == p.info.name) {
                return Err(format!(
                    "policy '{}' has the name of one of family '{}''s own policies",
                    p.info.name,
                    base.name()
                ));
            }
            infos.push(p.info);
        }
        Ok(WithExternal {
            base,
            policies,
            infos: Box::leak(infos.into_boxed_slice()),
        })
    }

    /// The external policy a run names, if its base family's registry does not have it.
    fn external(&self, spec: &RunSpec) -> Option<&ExternalPolicy> {
        if self.base.schedulers().iter().any(|p| p.name == spec.scheduler) {
            return None;
        }
        self.policies
            .of_family(self.base.name())
            .find(|p| p.info.name == spec.scheduler)
            .map(|p| p.as_ref())
    }
}

impl Family for WithExternal {
    fn info(&self) -> &'static FamilyInfo {
        self.base.info()
    }
    fn schedulers(&self) -> &'static [PolicyInfo] {
        self.infos
    }
    fn other_entries(&self) -> &'static [PolicyInfo] {
        self.base.other_entries()
    }
    fn memory_estimate(&self, spec: &RunSpec) -> Option<crate::family::MemoryEstimate> {
        self.base.memory_estimate(spec)
    }
    fn draws_random_numbers(&self, spec: &RunSpec) -> bool {
        self.base.draws_random_numbers(spec)
    }
    fn replays_job_traces(&self) -> bool {
        self.base.replays_job_traces()
    }
    fn sets_offered_load(&self) -> Option<&'static str> {
        self.base.sets_offered_load()
    }
    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        match self.external(spec) {
            None => self.base.validate(spec),
            Some(p) => self.base.validate_external(spec, p),
        }
    }
    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        match self.external(spec) {
            None => self.base.run(spec),
            Some(p) => self.base.run_external(spec, p),
        }
    }
}

/// A short label of a run for a policy's error: its platform, scheduler, replication and
/// parameters (the runner adds the experiment's own label of the run).
pub fn run_label(spec: &RunSpec) -> String {
    let params: Vec<String> = spec.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "#{} (platform {}, scheduler {}, replication {}{}{})",
        spec.index,
        spec.platform_name,
        spec.scheduler,
        spec.replication,
        if params.is_empty() { "" } else { ", " },
        params.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use sim_core::platform::{Host, Link, Platform};

    use super::*;
    use crate::batch::policy::{QueuedJob, RunningJob};
    use crate::batch::queue::Queue;
    use crate::family::ParamValue;
    use crate::registry::Param;

    /// GSS as an external policy would write it: `max(k, ceil(R/P))`.
    struct Gss(u64);

    impl ExternalChunkPolicy for Gss {
        fn chunk(&mut self, view: &MasterView<'_>, _: &Request) -> Result<u64, String> {
            Ok(view
                .remaining
                .div_ceil(view.workers as u64)
                .max(self.0)
                .min(view.remaining))
        }
    }

    /// Answers `answer` (or fails with it) whatever the view.
    struct Fixed(Result<u64, String>);

    impl ExternalChunkPolicy for Fixed {
        fn chunk(&mut self, _: &MasterView<'_>, _: &Request) -> Result<u64, String> {
            self.0.clone()
        }
    }

    fn view(remaining: u64, speeds: &[f64]) -> MasterView<'_> {
        MasterView {
            total: 100,
            remaining,
            workers: speeds.len(),
            answers: 0,
            task_flops: 1e9,
            worker_speeds: speeds,
            now: 12.5,
        }
    }

    const REQUEST: Request = Request {
        worker: 3,
        last: None,
        proposal: None,
    };

    #[test]
    fn a_chunk_outside_one_to_remaining_fails_naming_policy_date_and_request() {
        let speeds = [1e9; 4];
        for bad in [0, 41] {
            let mut p = CheckedChunk::new("mine", Box::new(Fixed(Ok(bad))));
            let err = p.try_assign(&view(40, &speeds), &REQUEST).unwrap_err();
            assert_eq!(
                err,
                format!(
                    "policy 'mine' failed at 12.5 s deciding the chunk for worker 3's request (40 of 100 tasks \
                     left): it answered a chunk of {bad} tasks, outside 1..=40"
                )
            );
            // The failure is kept, and every later decision fails with it.
            assert_eq!(p.failure().get(), Some(err.clone()));
            assert_eq!(p.try_assign(&view(40, &speeds), &REQUEST), Err(err));
        }
        for good in [1, 40] {
            let mut p = CheckedChunk::new("mine", Box::new(Fixed(Ok(good))));
            assert_eq!(p.try_assign(&view(40, &speeds), &REQUEST), Ok(Assignment::tasks(good)));
            assert_eq!(p.failure().get(), None);
        }
        let mut p = CheckedChunk::new("mine", Box::new(Fixed(Err("ValueError: no".into()))));
        let err = p.try_assign(&view(40, &speeds), &REQUEST).unwrap_err();
        assert!(
            err.starts_with("policy 'mine' failed at 12.5 s") && err.ends_with(": ValueError: no"),
            "{err}"
        );
    }

    /// Starts the jobs of the given ids.
    struct Ids(Vec<i64>);

    impl ExternalBatchPolicy for Ids {
        fn schedule(&mut self, _: &BatchView<'_>) -> Result<Vec<i64>, String> {
            Ok(self.0.clone())
        }
    }

    #[test]
    fn batch_answers_become_positions_or_fail_naming_the_job() {
        let mut queue = Queue::default();
        for (index, (id, size)) in [(7, 2), (3, 3), (9, 1)].into_iter().enumerate() {
            queue.push(QueuedJob {
                index,
                id,
                submit_s: index as f64,
                size,
                request_s: 10.0,
            });
        }
        let running = [RunningJob {
            index: 5,
            size: 1,
            start_s: 0.0,
            planned_end_s: 20.0,
        }];
        let view = BatchView {
            now: 4.0,
            total: 5,
            free: 4,
            up: 5,
            booting: 0,
            queue: &queue,
            running: &running,
        };
        let decide = |ids: Vec<i64>| CheckedBatch::new("b", Box::new(Ids(ids))).try_decide(&view);
        // Ids 9 and 3 are at positions 2 and 1: 4 units, all that is free.
        assert_eq!(decide(vec![9, 3]), Ok(vec![2, 1]));
        assert_eq!(decide(vec![]), Ok(vec![]));
        let prefix = "policy 'b' failed at 4 s deciding which of the 3 queued jobs start (4 of 5 units free): ";
        let cases = [
            (vec![4], "it started job 4, which is not queued".to_string()),
            (vec![9, 9], "it started job 9 twice".to_string()),
            (
                vec![7, 3],
                "it started jobs needing 5 units in all, but 4 are free (the others are busy or down)".to_string(),
            ),
        ];
        for (ids, why) in cases {
            assert_eq!(decide(ids), Err(format!("{prefix}{why}")));
        }
    }

    fn gss_policy(name: &'static str) -> ExternalPolicy {
        const PARAMS: &[Param] = &[Param::integer("min_chunk", "minimum chunk", "1", 1.0)];
        ExternalPolicy {
            info: PolicyInfo {
                name,
                description: "GSS supplied at run time",
                params: PARAMS,
            },
            factory: Factory::Chunk(Arc::new(|values: &BTreeMap<String, f64>| {
                Ok(Box::new(Gss(values["min_chunk"] as u64)) as Box<dyn ExternalChunkPolicy>)
            })),
        }
    }

    #[test]
    fn parameters_are_checked_as_a_registry_entry_s() {
        let p = gss_policy("my_gss");
        assert_eq!(
            p.values(&BTreeMap::new()),
            Ok(BTreeMap::from([("min_chunk".to_string(), 1.0)]))
        );
        let err = p.values(&BTreeMap::from([("beta".to_string(), 1.0)])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter 'beta' does not apply to scheduler 'my_gss' (its parameters: min_chunk)"
        );
        let err = p.values(&BTreeMap::from([("min_chunk".to_string(), 0.5)])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter 'min_chunk' of scheduler 'my_gss' must be an integer >= 1, got 0.5"
        );
        let mut table = ExternalPolicies::new();
        table.add(gss_policy("my_gss")).unwrap();
        assert_eq!(
            table.add(gss_policy("my_gss")).unwrap_err(),
            "policy 'my_gss' is supplied twice"
        );
        let clash = {
            let mut t = ExternalPolicies::new();
            t.add(gss_policy("gss")).unwrap();
            t
        };
        assert!(WithExternal::new(&crate::families::BagOfTasks, clash).is_err());
        // A bag-of-tasks policy named by a batch run is refused as such.
        let err = p.batch_policy(&BTreeMap::new(), "r").err().unwrap();
        assert_eq!(err.to_string(), "scheduler 'my_gss' is a bot policy, not a batch one");
    }

    /// A master and three workers of 1 Gflop/s, each behind its own 1 GB/s link.
    fn star(scheduler: &str) -> RunSpec {
        let mut p = Platform::new();
        let master = p.add_host(Host::new("m", 1e9)).unwrap();
        for w in 0..3 {
            let h = p.add_host(Host::new(format!("w{w}"), 1e9 * (w + 1) as f64)).unwrap();
            let l = p.add_link(Link::new(format!("l{w}"), 1e9, 1e-4)).unwrap();
            p.routing.add_route(master, h, vec![l]);
            p.routing.add_route(h, master, vec![l]);
        }
        let params = [("tasks", ParamValue::Int(100)), ("task_flops", ParamValue::Float(1e9))];
        RunSpec {
            index: 4,
            platform: Arc::new(p),
            platform_name: "star".into(),
            scheduler: scheduler.into(),
            params: params.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            replication: 0,
            seed: 1,
            workload: None,
            tables: vec!["chunks".into()],
        }
    }

    #[test]
    fn an_external_gss_runs_as_the_registry_s_and_a_failing_one_names_the_run() {
        let mut table = ExternalPolicies::new();
        table.add(gss_policy("my_gss")).unwrap();
        let mut failing = gss_policy("fails");
        failing.factory = Factory::Chunk(Arc::new(|_: &BTreeMap<String, f64>| {
            Ok(Box::new(Fixed(Err("RuntimeError: boom".into()))) as Box<dyn ExternalChunkPolicy>)
        }));
        table.add(failing).unwrap();
        let family = WithExternal::new(&crate::families::BagOfTasks, table).unwrap();
        let names: Vec<_> = family.schedulers().iter().map(|p| p.name).collect();
        assert!(
            names.ends_with(&["my_gss", "fails"]) && names.contains(&"gss"),
            "{names:?}"
        );
        // The peer is the registry's GSS, checked against Polychronopoulos and Kuck's sequence
        // in `bot/gss.rs`: same chunks, same dates, same metrics.
        let builtin = family.run(&star("gss")).unwrap();
        let external = family.run(&star("my_gss")).unwrap();
        assert_eq!(external, builtin);
        let used = family.validate(&star("my_gss")).unwrap();
        assert_eq!(used.get("min_chunk"), Some(&ParamValue::Int(1)));
        let err = family.run(&star("fails")).unwrap_err();
        let RunError::Policy(why) = &err else {
            panic!("not a policy failure: {err:?}")
        };
        // The first request reaches the master when the registry's GSS sends its first chunk.
        let chunks = &builtin.tables["chunks"];
        let sent = chunks.columns.iter().position(|c| c == "sent_s").unwrap();
        let first = chunks
            .rows
            .iter()
            .filter_map(|r| r[sent].as_f64())
            .fold(f64::INFINITY, f64::min);
        assert!(first > 0.0);
        assert_eq!(
            why,
            &format!(
                "policy 'fails' failed at {first} s deciding the chunk for worker 0's request (100 of 100 tasks \
                 left): RuntimeError: boom (run #4 (platform star, scheduler fails, replication 0, \
                 task_flops=1000000000, tasks=100))"
            )
        );
    }
}

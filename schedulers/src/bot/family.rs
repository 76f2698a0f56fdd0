//! The bag-of-tasks family for experiment files (`family = "bot"`): turns a run's parameters
//! into a master/worker simulation (`schedulers::bot`) and its metrics.
//!
//! Deployment: the master runs on host `master` (default: the platform's first host); the
//! workers run on the first `nodes − 1` other hosts in platform order (`nodes` counts the master,
//! as the LDS paper's "64 and 90 nodes" do; default: every host).
//!
//! Energy: on a platform whose hosts carry SimGrid's power properties (`wattage_per_state`,
//! `wattage_off`; see `sim_core::energy` and docs/energy.md), a run also reports `energy_j`,
//! the joules every powered host of the platform consumed from the start to the makespan
//! (hosts the deployment leaves out still draw their idle power, as in SimGrid's total), and
//! the `energy` table per host. On a platform without them there is no energy metric (its
//! cell in runs.csv is empty) and the `energy` table has no rows. On a platform whose links
//! carry SimGrid's `wattage_range`, a run also reports `link_energy_j`, the joules all those
//! links consumed up to the makespan (SimGrid's link energy plugin; docs/energy.md).
//!
//! DVFS: `worker_pstate` puts every worker host in that pstate at date 0 (`Engine::set_pstate`,
//! SimGrid's `Host::set_pstate`); `deadline_s` chooses the pstate instead, the lowest-power one
//! whose estimated makespan meets the deadline ([`choose_pstate`] states the estimate), the
//! slack-reclamation rule of the DVFS scheduling literature (e.g. von Laszewski et al., "Power-
//! aware scheduling of virtual machines in DVFS-enabled clusters", IEEE Cluster 2009: run at
//! the lowest frequency that still meets the job's deadline). Neither set, no pstate changes.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::bot::{self, registry, BotConfig, ChunkPolicy, TaskSizes};
use crate::external::{run_label, ExternalPolicy};
use sim_core::platform::HostId;
use sim_core::Engine;

use crate::family::{
    check_routes, declared_table, Family, FamilyInfo, MemoryEstimate, Named, ParamReader, ParamValue, RunError,
    RunOutput, RunSpec, TableInfo, UsedParams,
};
use crate::registry::Param;

/// The bag-of-tasks master/worker family.
pub struct BagOfTasks;

const TASKS: Param = Param::integer("tasks", "N, number of equal independent tasks", Param::NO_DEFAULT, 1.0);
const TASK_FLOPS: Param = Param::real(
    "task_flops",
    "F, flops per task (e.g. 1e9 = 1000 MFlop)",
    Param::NO_DEFAULT,
    0.0,
)
.in_unit("flop");
const TASK_BYTES: Param = Param::real("task_bytes", "B, bytes per task sent with a chunk", "1000", 0.0).in_unit("B");
const CONTROL_BYTES: Param =
    Param::real("control_bytes", "size of a request and of the stop message", "100", 0.0).in_unit("B");
const MASTER: Param =
    Param::text("master", "host of the master", Param::NO_DEFAULT).computed_default("the platform's first host");
const NODES: Param = Param::integer("nodes", "hosts used, master included", Param::NO_DEFAULT, 2.0)
    .computed_default("every host of the platform");
/// Largest accepted `task_cv`: beyond, a Gamma of mean F puts nearly all the work in a few tasks.
const TASK_CV: Param = Param::real(
    "task_cv",
    "coefficient of variation of task sizes, drawn per task from a Gamma of mean task_flops (0: all equal)",
    "0",
    0.0,
)
.at_most(100.0);

/// The pstate every worker host is put in at the start (`Engine::set_pstate`); unset, each
/// host keeps the pstate its platform gives it and nothing is changed.
const WORKER_PSTATE: Param = Param::integer(
    "worker_pstate",
    "power state (pstate) every worker host runs at, set at the start (DVFS; the master's host keeps its own)",
    Param::NO_DEFAULT,
    0.0,
)
.computed_default("each host's own pstate, as the platform gives it");
/// The makespan the energy-aware choice of a pstate aims at ([`choose_pstate`]).
const DEADLINE: Param = Param::real(
    "deadline_s",
    "makespan target: the workers run at the lowest-power pstate whose estimated makespan (total flops / the workers' summed speeds) is within it, else at the fastest",
    Param::NO_DEFAULT,
    0.0,
)
.in_unit("s")
.computed_default("none: no pstate is chosen");

const WORKLOAD: &[Param] = &[
    TASKS,
    TASK_FLOPS,
    TASK_BYTES,
    CONTROL_BYTES,
    MASTER,
    NODES,
    TASK_CV,
    WORKER_PSTATE,
    DEADLINE,
];

const METRICS: &[Named] = &[
    Named {
        name: "makespan_s",
        description: "time from the start until the master has every result, s",
    },
    Named {
        name: "chunks",
        description: "chunks completed",
    },
    Named {
        name: "tasks_done",
        description: "tasks completed (equals `tasks` unless workers were lost)",
    },
    Named {
        name: "workers_lost",
        description: "times a worker was lost to its host turning off",
    },
    Named {
        name: "workers_restarted",
        description: "times a lost worker started again when its host came back",
    },
    Named {
        name: "chunks_lost",
        description: "chunks lost with their worker and handed out again",
    },
    Named {
        name: "energy_j",
        description: "joules all powered hosts consumed up to the makespan (SimGrid's host energy model; only on platforms with `wattage_per_state` properties)",
    },
    Named {
        name: "pstate",
        description: "the pstate the workers ran at (only when `worker_pstate` or `deadline_s` is set)",
    },
    Named {
        name: "estimated_makespan_s",
        description: "the makespan `deadline_s` estimated at the chosen pstate: total flops / the workers' summed speeds, s (only with `deadline_s`)",
    },
    Named {
        name: "deadline_met",
        description: "1 if the makespan was within `deadline_s`, else 0 (only with `deadline_s`)",
    },
    Named {
        name: "link_energy_j",
        description: "joules all powered links consumed up to the makespan (SimGrid's link energy plugin; only on platforms with `wattage_range` link properties)",
    },
];

const TABLES: &[TableInfo] = &[
    TableInfo {
        name: "chunks",
        description: "one row per chunk: its worker, size and dates (sent, started, ended)",
        columns: &["worker", "host", "size", "first_task", "sent_s", "start_s", "end_s"],
    },
    TableInfo {
        name: "lost_chunks",
        description: "one row per chunk lost with its worker: the worker, its host, the tasks and the date",
        columns: &["worker", "host", "size", "first_task", "lost_s"],
    },
    TableInfo {
        name: "energy",
        description: "one row per host with power properties: its joules up to the makespan and its mean CPU load (fraction of its cores' capacity in use) over that time",
        columns: &["host", "energy_j", "mean_load"],
    },
    TableInfo {
        name: "downtime",
        description: "one row per period a worker's host is off (its state profile) until the makespan: the worker, its host, from and to",
        columns: &["worker", "host", "from_s", "to_s"],
    },
];

struct Prepared {
    config: BotConfig,
    policy_params: BTreeMap<String, f64>,
    pstate: Option<PstateChoice>,
}

fn has_drawn_sizes(spec: &RunSpec) -> bool {
    spec.params
        .get("task_cv")
        .and_then(ParamValue::as_f64)
        .is_some_and(|cv| cv > 0.0)
}

/// The run's parameters read and checked; its policy is `external` when one supplied at run
/// time, else the registry's entry of the run's scheduler (built once here, to check its
/// parameters).
fn prepare(spec: &ParamReader, external: Option<&ExternalPolicy>) -> Result<Prepared, RunError> {
    let platform = &spec.platform;
    let tasks = spec.integer(&TASKS)?;
    let task_flops = spec.real(&TASK_FLOPS)?;
    let task_bytes = spec.real(&TASK_BYTES)?;
    let control_bytes = spec.real(&CONTROL_BYTES)?;
    let task_cv = spec.real(&TASK_CV)?;
    let master = match spec.optional_text(&MASTER)? {
        Some(name) => platform.host_id(&name).ok_or_else(|| {
            RunError::param(
                MASTER.name,
                format!(
                    "is '{name}', but platform '{}' has no host '{name}'",
                    spec.platform_name
                ),
            )
        })?,
        None if !platform.hosts.is_empty() => {
            spec.default_used(MASTER.name, ParamValue::Str(platform.host(HostId(0)).name.clone()));
            HostId(0)
        }
        None => {
            return Err(RunError::platform(format!(
                "platform '{}' has no host",
                spec.platform_name
            )))
        }
    };
    let all = platform.hosts.len();
    let nodes = spec.integer_at_most(&NODES, all as u64, "the platform's hosts")? as usize;
    let workers: Vec<HostId> = (0..all as u32)
        .map(HostId)
        .filter(|&h| h != master)
        .take(nodes - 1)
        .collect();
    if workers.is_empty() {
        return Err(RunError::platform("the deployment has no worker"));
    }
    check_routes(spec, workers.iter().map(|&w| (master, w)))?;
    let pstate = worker_pstate(spec, &workers, tasks as f64 * task_flops)?;
    let policy_params = spec.numeric_params_besides(WORKLOAD)?;
    match external {
        None => {
            registry::build(&spec.scheduler, &policy_params)?;
            spec.policy_defaults(registry::infos());
        }
        Some(policy) => {
            policy.values(&policy_params)?;
            spec.entry_defaults(&policy.info);
        }
    }
    Ok(Prepared {
        config: BotConfig {
            master,
            workers,
            tasks,
            task_flops,
            task_bytes,
            control_bytes,
            task_sizes: if task_cv > 0.0 {
                TaskSizes::Gamma {
                    cv: task_cv,
                    seed: spec.seed,
                }
            } else {
                TaskSizes::Equal
            },
            // The chunk log is ~7 values per chunk: keep it only when the experiment writes it.
            record_chunks: spec.tables.iter().any(|t| t == "chunks"),
        },
        policy_params,
        pstate,
    })
}

/// The pstate the workers run at, when the run chooses one, and why.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PstateChoice {
    pstate: usize,
    /// With `deadline_s`: the deadline and the estimated makespan at `pstate`.
    deadline: Option<(f64, f64)>,
}

/// Reads `worker_pstate` and `deadline_s` (at most one of them): `None` when neither is set,
/// so the platform's pstates stand and the run is the one without DVFS. `total_flops` is the
/// work of all tasks (their mean size times their number when sizes are drawn).
fn worker_pstate(spec: &ParamReader, workers: &[HostId], total_flops: f64) -> Result<Option<PstateChoice>, RunError> {
    let fixed = spec.optional_integer(&WORKER_PSTATE)?;
    let deadline = spec.optional_real(&DEADLINE)?;
    let platform = &spec.platform;
    match (fixed, deadline) {
        (None, None) => Ok(None),
        (Some(_), Some(_)) => Err(RunError::param(
            DEADLINE.name,
            "chooses the workers' pstate itself: it cannot be combined with 'worker_pstate'",
        )),
        (Some(p), None) => {
            let pstate = usize::try_from(p).unwrap_or(usize::MAX);
            for &w in workers {
                let host = platform.host(w);
                match host.pstate_speed(pstate) {
                    None => {
                        return Err(RunError::param(
                            WORKER_PSTATE.name,
                            format!(
                                "is {p}, but worker host '{}' has {} pstate(s) (0 to {})",
                                host.name,
                                host.pstate_count(),
                                host.pstate_count() - 1
                            ),
                        ))
                    }
                    Some(speed) if speed <= 0.0 => {
                        return Err(RunError::param(
                            WORKER_PSTATE.name,
                            format!(
                                "is {p}, but worker host '{}' computes at 0 flop/s in pstate {p} (a boot or \
                                 shutdown state): its tasks would never end",
                                host.name
                            ),
                        ))
                    }
                    Some(_) => {}
                }
            }
            Ok(Some(PstateChoice { pstate, deadline: None }))
        }
        (None, Some(deadline)) => choose_pstate(spec, workers, total_flops, deadline).map(Some),
    }
}

/// The energy-aware choice: among the pstates every worker host has at a positive speed, the
/// one whose workers draw the least power while computing (each runs one task at a time, so a
/// host of `c` cores is at load `1/c`) among those whose estimated makespan
/// `total_flops / Σ speed` is within `deadline`; when none is, the fastest. Ties go to the
/// faster pstate, then the lower index.
///
/// The estimate is the makespan of perfectly divisible work on the workers' summed speed: it
/// leaves out the messages, the master's waits and the imbalance of the last chunks, which
/// every policy adds to in its own way, so it is a lower bound and the run's `deadline_met`
/// says whether the deadline held. This is the classic slack-reclamation reading of DVFS
/// (run as slowly as the deadline allows), not a search for the least energy: with the
/// idle power every host draws anyway, a slower pstate may cost more joules.
fn choose_pstate(
    spec: &ParamReader,
    workers: &[HostId],
    total_flops: f64,
    deadline: f64,
) -> Result<PstateChoice, RunError> {
    let platform = &spec.platform;
    let mut powers = Vec::with_capacity(workers.len());
    for &w in workers {
        let host = platform.host(w);
        match sim_core::energy::HostPower::from_host(host) {
            Ok(Some(power)) => powers.push(power),
            Ok(None) => {
                return Err(RunError::param(
                    DEADLINE.name,
                    format!(
                        "needs each pstate's power, but worker host '{}' has no 'wattage_per_state' property",
                        host.name
                    ),
                ))
            }
            Err(e) => return Err(RunError::platform(e)),
        }
    }
    let count = workers
        .iter()
        .map(|&w| platform.host(w).pstate_count())
        .min()
        .unwrap_or(0);
    // (pstate, estimated makespan, watts)
    let mut candidates = Vec::new();
    for pstate in 0..count {
        let mut speed = 0.0;
        let mut watts = 0.0;
        let mut usable = true;
        for (&w, power) in workers.iter().zip(&powers) {
            let host = platform.host(w);
            let s = host.pstate_speed(pstate).unwrap_or(0.0);
            usable &= s > 0.0;
            speed += s;
            watts += power.watts(pstate, 1.0 / f64::from(host.cores), true);
        }
        if usable {
            candidates.push((pstate, total_flops / speed, watts));
        }
    }
    let by = |key: fn(&(usize, f64, f64)) -> (f64, f64)| {
        move |a: &&(usize, f64, f64), b: &&(usize, f64, f64)| {
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.0.cmp(&b.0))
        }
    };
    let within = candidates.iter().filter(|c| c.1 <= deadline).min_by(by(|c| (c.2, c.1)));
    let chosen = within.or_else(|| candidates.iter().min_by(by(|c| (c.1, c.2))));
    let Some(&(pstate, estimate, _)) = chosen else {
        return Err(RunError::param(
            DEADLINE.name,
            "has no pstate to choose from: in every pstate some worker host computes at 0 flop/s",
        ));
    };
    Ok(PstateChoice {
        pstate,
        deadline: Some((deadline, estimate)),
    })
}

/// Puts every worker host in the chosen pstate (nothing when the run chose none).
fn apply_pstate(engine: &mut Engine, workers: &[HostId], choice: Option<PstateChoice>) -> Result<(), RunError> {
    if let Some(choice) = choice {
        for &w in workers {
            // `worker_pstate` checked that every worker has the pstate.
            engine
                .set_pstate(w, choice.pstate)
                .map_err(|e| RunError::param(WORKER_PSTATE.name, e.to_string()))?;
        }
    }
    Ok(())
}

/// The DVFS metrics of a run that chose its workers' pstate.
fn pstate_metrics(metrics: &mut BTreeMap<String, f64>, choice: Option<PstateChoice>, makespan: f64) {
    let Some(choice) = choice else {
        return;
    };
    metrics.insert("pstate".to_string(), choice.pstate as f64);
    if let Some((deadline, estimate)) = choice.deadline {
        metrics.insert("estimated_makespan_s".to_string(), estimate);
        metrics.insert("deadline_met".to_string(), f64::from(u8::from(makespan <= deadline)));
    }
}

const INFO: FamilyInfo = FamilyInfo {
    name: "bot",
    description: "bag of tasks, master/worker: N equal tasks handed out in chunks (LDS paper)",
    schedulers: registry::infos,
    parameters: WORKLOAD,
    metrics: METRICS,
    tables: TABLES,
};

impl Family for BagOfTasks {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }

    fn memory_estimate(&self, spec: &RunSpec) -> Option<MemoryEstimate> {
        // A chunk holds at least one task: the chunks table has at most `tasks` rows, each
        // held as a record in the engine's run and as 7 cells in the stored record. Drawn task
        // sizes are kept as prefix sums, 8 bytes a task.
        const CHUNK_ROW_BYTES: u64 = 300;
        let tasks = spec.params.get(TASKS.name)?.as_u64()?;
        let chunks = spec.tables.iter().any(|t| t == "chunks");
        let drawn = has_drawn_sizes(spec);
        let bytes = u64::from(chunks) * CHUNK_ROW_BYTES + u64::from(drawn) * 8;
        let what = match (chunks, drawn) {
            (false, false) => return None,
            (true, false) => "chunks table",
            (false, true) => "task sizes (task_cv > 0)",
            (true, true) => "chunks table and task sizes (task_cv > 0)",
        };
        Some(MemoryEstimate {
            bytes: tasks.saturating_mul(bytes),
            what: format!("{what} (parameter 'tasks' = {tasks})"),
            param: TASKS.name,
        })
    }

    fn draws_random_numbers(&self, spec: &RunSpec) -> bool {
        // The master/worker protocol is deterministic: only drawn task sizes vary.
        has_drawn_sizes(spec)
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        let reader = ParamReader::new(spec);
        prepare(&reader, None)?;
        Ok(reader.used())
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        run_with(spec, None)
    }

    fn validate_external(&self, spec: &RunSpec, policy: &ExternalPolicy) -> Result<UsedParams, RunError> {
        let reader = ParamReader::new(spec);
        prepare(&reader, Some(policy))?;
        Ok(reader.used())
    }

    fn run_external(&self, spec: &RunSpec, policy: &ExternalPolicy) -> Result<RunOutput, RunError> {
        run_with(spec, Some(policy))
    }
}

/// A run under the registry's policy of the run's scheduler, or under `external`.
fn run_with(spec: &RunSpec, external: Option<&ExternalPolicy>) -> Result<RunOutput, RunError> {
    let prepared = prepare(&ParamReader::new(spec), external)?;
    let (policy, failure): (Box<dyn ChunkPolicy>, _) = match external {
        None => (registry::build(&spec.scheduler, &prepared.policy_params)?, None),
        Some(p) => {
            let checked = p.chunk_policy(&prepared.policy_params, &run_label(spec))?;
            let failure = checked.failure();
            (Box::new(checked), Some(failure))
        }
    };
    let mut engine = Engine::new(Arc::clone(&spec.platform)).map_err(|e| e.to_string())?;
    let hosts = prepared.config.workers.clone();
    apply_pstate(&mut engine, &hosts, prepared.pstate)?;
    let pstate = prepared.pstate;
    let record_chunks = prepared.config.record_chunks;
    let tasks = prepared.config.tasks;
    let (outcome, stats) = bot::run(engine, prepared.config, policy).map_err(|e| {
        // The policy's failure, if it failed, is the run's error, named as the policy's.
        match failure.and_then(|f| f.get()) {
            Some(why) => RunError::Policy(format!("{why} (run {})", run_label(spec))),
            None => RunError::Other(e),
        }
    })?;
    let events = stats.events;
    // The engine ran out of events with tasks left: no worker could ever compute them (their
    // hosts are off for good), so the run has no makespan to report.
    let incomplete = (outcome.tasks_done < tasks).then(|| {
        format!(
            "incomplete: {} of {tasks} tasks done (the last at {} s); the simulation ran out of events \
                 with no worker able to compute the rest (their hosts off for good)",
            outcome.tasks_done, outcome.makespan
        )
    });
    let mut metrics = BTreeMap::new();
    metrics.insert("makespan_s".to_string(), outcome.makespan);
    metrics.insert("chunks".to_string(), outcome.chunks_done as f64);
    metrics.insert("tasks_done".to_string(), outcome.tasks_done as f64);
    metrics.insert("workers_lost".to_string(), outcome.workers_lost as f64);
    metrics.insert("workers_restarted".to_string(), outcome.workers_restarted as f64);
    metrics.insert("chunks_lost".to_string(), outcome.lost_chunks.len() as f64);
    if !outcome.energy.is_empty() {
        let total: f64 = outcome.energy.iter().map(|e| e.joules).sum();
        metrics.insert("energy_j".to_string(), total);
    }
    pstate_metrics(&mut metrics, pstate, outcome.makespan);
    if let Some(joules) = outcome.link_energy_j {
        metrics.insert("link_energy_j".to_string(), joules);
    }
    // Both chunk tables start with the worker, its host, the size and the first task, then
    // their dates.
    let row = |worker: usize, size: u64, first: u64, dates: &[f64]| -> Vec<ParamValue> {
        let name = spec.platform.host(hosts[worker]).name.clone();
        let ids = [
            ParamValue::Int(worker as i64),
            ParamValue::Str(name),
            ParamValue::Int(size as i64),
            ParamValue::Int(first as i64),
        ];
        ids.into_iter()
            .chain(dates.iter().map(|&d| ParamValue::Float(d)))
            .collect()
    };
    // A handful of rows (one per failure that took a chunk): always kept.
    let lost_rows = outcome
        .lost_chunks
        .iter()
        .map(|c| row(c.worker, c.size, c.first_task, &[c.lost]))
        .collect();
    let mut tables = BTreeMap::from([declared_table(TABLES, "lost_chunks", lost_rows)?]);
    if spec.tables.iter().any(|t| t == "energy") {
        let rows = outcome
            .energy
            .iter()
            .map(|e| {
                let mean_load = if outcome.makespan > 0.0 {
                    e.load_s / outcome.makespan
                } else {
                    0.0
                };
                vec![
                    ParamValue::Str(spec.platform.host(e.host).name.clone()),
                    ParamValue::Float(e.joules),
                    ParamValue::Float(mean_load),
                ]
            })
            .collect();
        tables.extend([declared_table(TABLES, "energy", rows)?]);
    }
    // Down periods come from the platform's state profiles, not from the run: what a
    // timeline shades behind a worker's chunks (`down` of a timeline figure). Kept only when
    // asked, since a periodic profile gives a row per cycle.
    if spec.tables.iter().any(|t| t == "downtime") {
        let mut rows = Vec::new();
        for (worker, &host) in hosts.iter().enumerate() {
            let host = spec.platform.host(host);
            let Some(profile) = &host.state_profile else {
                continue;
            };
            for (from, to) in profile.off_intervals(outcome.makespan) {
                rows.push(vec![
                    ParamValue::Int(worker as i64),
                    ParamValue::Str(host.name.clone()),
                    ParamValue::Float(from),
                    ParamValue::Float(to),
                ]);
            }
        }
        tables.extend([declared_table(TABLES, "downtime", rows)?]);
    }
    if !record_chunks {
        return Ok(RunOutput {
            metrics,
            events,
            tables,
            incomplete,
        });
    }
    let rows = outcome
        .chunks
        .iter()
        .map(|c| row(c.worker, c.size, c.first_task, &[c.sent, c.start, c.end]))
        .collect();
    tables.extend([declared_table(TABLES, "chunks", rows)?]);
    Ok(RunOutput {
        metrics,
        events,
        tables,
        incomplete,
    })
}

#[cfg(test)]
mod energy_tests {
    use super::*;
    use sim_core::platform::{Host, Link, Platform};

    /// A master `m` and two workers `w1`, `w2` (one core, 1 Gflop/s each) on one 1 GB/s link.
    /// With `power`, the master's `wattage_per_state` is "50:150" and the workers' "100:200".
    fn spec(power: bool) -> RunSpec {
        spec_with_link(power, None)
    }

    /// [`spec`], its link with the power model `link_power`.
    fn spec_with_link(power: bool, link_power: Option<sim_core::energy::LinkPower>) -> RunSpec {
        let mut p = Platform::new();
        let mut ids = Vec::new();
        for (name, watts) in [("m", "50:150"), ("w1", "100:200"), ("w2", "100:200")] {
            let mut h = Host::new(name, 1e9);
            if power {
                h.properties.insert("wattage_per_state".into(), watts.into());
            }
            ids.push(p.add_host(h).unwrap());
        }
        let mut l = Link::new("l", 1e9, 1e-4);
        l.power = link_power;
        let link = p.add_link(l).unwrap();
        for &a in &ids {
            for &b in &ids {
                if a != b {
                    p.routing.add_route(a, b, vec![link]);
                }
            }
        }
        RunSpec {
            index: 0,
            platform: Arc::new(p),
            platform_name: "three hosts".into(),
            scheduler: "wq".into(),
            params: [
                ("tasks".to_string(), ParamValue::Int(7)),
                ("task_flops".to_string(), ParamValue::Float(1e9)),
            ]
            .into(),
            replication: 0,
            seed: 1,
            workload: None,
            tables: vec!["chunks".into(), "energy".into()],
        }
    }

    fn float(v: &ParamValue) -> f64 {
        v.as_f64().unwrap()
    }

    #[test]
    fn energy_is_idle_power_over_the_makespan_plus_the_busy_surplus() {
        // SimGrid's model for one-core hosts whose epsilon is their idle power (the "idle:full"
        // form): idle watts while nothing runs, full watts while an exec does. A worker runs
        // one chunk at a time, so over the makespan T it consumes 100 T + (200 − 100) × (its
        // chunks' exec time); the master computes nothing: 50 T. The exec times are read from
        // the chunks table, apart from the energy meters.
        let out = BagOfTasks.run(&spec(true)).unwrap();
        let t = out.metrics["makespan_s"];
        let chunks = &out.tables["chunks"];
        let column = |name: &str| chunks.columns.iter().position(|c| c == name).unwrap();
        let (host, start, end) = (column("host"), column("start_s"), column("end_s"));
        let busy = |w: &str| -> f64 {
            chunks
                .rows
                .iter()
                .filter(|r| r[host] == ParamValue::Str(w.into()))
                .map(|r| float(&r[end]) - float(&r[start]))
                .sum()
        };
        let (b1, b2) = (busy("w1"), busy("w2"));
        assert!(b1 > 0.0 && b2 > 0.0);
        let expected = [
            ("m", 50.0 * t),
            ("w1", 100.0 * t + 100.0 * b1),
            ("w2", 100.0 * t + 100.0 * b2),
        ];
        let table = &out.tables["energy"];
        assert_eq!(table.columns, ["host", "energy_j", "mean_load"]);
        assert_eq!(table.rows.len(), 3);
        for (row, (name, joules)) in table.rows.iter().zip(expected) {
            assert_eq!(row[0], ParamValue::Str(name.into()));
            assert!(
                (float(&row[1]) - joules).abs() <= 1e-9 * joules,
                "{name}: {row:?} vs {joules}"
            );
        }
        // Mean load: the busy fraction of each one-core worker, 0 for the master.
        assert_eq!(float(&table.rows[0][2]), 0.0);
        assert!((float(&table.rows[1][2]) - b1 / t).abs() < 1e-12);
        let total: f64 = expected.iter().map(|e| e.1).sum();
        assert!((out.metrics["energy_j"] - total).abs() <= 1e-9 * total);
    }

    #[test]
    fn no_power_properties_no_energy_metric_and_an_empty_table() {
        let out = BagOfTasks.run(&spec(false)).unwrap();
        assert!(!out.metrics.contains_key("energy_j"));
        assert!(!out.metrics.contains_key("link_energy_j"));
        assert!(out.tables["energy"].rows.is_empty());
        // The same run with power properties: the schedule does not move.
        let powered = BagOfTasks.run(&spec(true)).unwrap();
        assert_eq!(out.metrics["makespan_s"], powered.metrics["makespan_s"]);
    }

    #[test]
    fn link_energy_is_its_power_over_the_makespan() {
        use sim_core::energy::LinkPower;
        // With idle = busy the link draws 7 W whatever its load, so whatever its updates the
        // plugin's sum is 7 W × the makespan T.
        let flat = BagOfTasks
            .run(&spec_with_link(false, Some(LinkPower { idle: 7.0, busy: 7.0 })))
            .unwrap();
        let t = flat.metrics["makespan_s"];
        assert!((flat.metrics["link_energy_j"] - 7.0 * t).abs() <= 1e-12 * 7.0 * t);
        assert!(!flat.metrics.contains_key("energy_j"));
        // 7 W idle, 9 W busy: the comms load the link part of the time, so the energy lies
        // strictly between 7 T and 9 T; the schedule does not move.
        let ranged = BagOfTasks
            .run(&spec_with_link(false, Some(LinkPower { idle: 7.0, busy: 9.0 })))
            .unwrap();
        assert_eq!(ranged.metrics["makespan_s"], t);
        let j = ranged.metrics["link_energy_j"];
        assert!(j > 7.0 * t && j < 9.0 * t, "{j} J over {t} s");
    }
}

#[cfg(test)]
mod dvfs_tests {
    use super::*;
    use crate::registry::ParamError;
    use sim_core::platform::{Host, Link, Platform};

    /// A master `m` (1 Gflop/s, no power properties) and one worker `w`: one core, four
    /// pstates of 2, 1, 0.5 and 0 Gflop/s at `idle:full` watts 100:200, 90:120, 80:90 and
    /// 70:70, starting in pstate `start`. The link has no latency and every message is 0
    /// bytes, so messages take no time and the worker computes without a pause: 10 tasks of
    /// 1 Gflop are 10 Gflop at the worker's speed.
    fn spec(start: usize, extra: &[(&str, ParamValue)]) -> RunSpec {
        let mut p = Platform::new();
        let m = p.add_host(Host::new("m", 1e9)).unwrap();
        let speeds = vec![2e9, 1e9, 5e8, 0.0];
        let mut w = Host::new("w", speeds[start]);
        w.pstate_speeds = speeds;
        w.pstate = start;
        w.properties
            .insert("wattage_per_state".into(), "100:200, 90:120, 80:90, 70:70".into());
        let w = p.add_host(w).unwrap();
        let link = p.add_link(Link::new("l", 1e9, 0.0)).unwrap();
        p.routing.add_route(m, w, vec![link]);
        p.routing.add_route(w, m, vec![link]);
        let mut params: BTreeMap<String, ParamValue> = [
            ("tasks".to_string(), ParamValue::Int(10)),
            ("task_flops".to_string(), ParamValue::Float(1e9)),
            ("task_bytes".to_string(), ParamValue::Float(0.0)),
            ("control_bytes".to_string(), ParamValue::Float(0.0)),
        ]
        .into();
        for (k, v) in extra {
            params.insert(k.to_string(), v.clone());
        }
        RunSpec {
            index: 0,
            platform: Arc::new(p),
            platform_name: "one worker".into(),
            scheduler: "wq".into(),
            params,
            replication: 0,
            seed: 1,
            workload: None,
            tables: vec!["energy".into()],
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs()
    }

    #[test]
    fn a_fixed_pstate_gives_the_closed_form_makespan_and_joules() {
        // The worker computes 10 Gflop without a pause at its pstate's speed s, one core fully
        // loaded, so it draws its `full` watts throughout: T = 1e10 / s and E = full × T
        // (the master has no power properties and counts for nothing).
        //   pstate 0: T = 1e10 / 2e9 = 5 s,   E = 200 W × 5 s  = 1000 J
        //   pstate 1: T = 1e10 / 1e9 = 10 s,  E = 120 W × 10 s = 1200 J
        //   pstate 2: T = 1e10 / 5e8 = 20 s,  E =  90 W × 20 s = 1800 J
        // The worker starts in pstate 0 each time: the family moves it at date 0.
        for (pstate, makespan, joules) in [(0, 5.0, 1000.0), (1, 10.0, 1200.0), (2, 20.0, 1800.0)] {
            let out = BagOfTasks
                .run(&spec(0, &[("worker_pstate", ParamValue::Int(pstate))]))
                .unwrap();
            assert!(
                close(out.metrics["makespan_s"], makespan),
                "{pstate}: {:?}",
                out.metrics
            );
            assert!(close(out.metrics["energy_j"], joules), "{pstate}: {:?}", out.metrics);
            assert_eq!(out.metrics["pstate"], pstate as f64);
            assert!(!out.metrics.contains_key("deadline_met"));
        }
    }

    #[test]
    fn the_deadline_picks_the_lowest_power_pstate_that_meets_it() {
        // Busy power per pstate: 200, 120, 90 W (pstate 3 computes at 0 flop/s and is never a
        // candidate); estimated makespans 1e10 / s: 5, 10, 20 s.
        // Deadline 12 s: pstates 0 (5 s) and 1 (10 s) meet it; 1 draws less: T = 10 s,
        // E = 1200 J, met.
        let out = BagOfTasks
            .run(&spec(0, &[("deadline_s", ParamValue::Float(12.0))]))
            .unwrap();
        assert_eq!(out.metrics["pstate"], 1.0);
        assert!(close(out.metrics["estimated_makespan_s"], 10.0));
        assert!(close(out.metrics["makespan_s"], 10.0));
        assert!(close(out.metrics["energy_j"], 1200.0));
        assert_eq!(out.metrics["deadline_met"], 1.0);
        // Deadline 25 s: every usable pstate meets it; 2 draws least: T = 20 s, E = 1800 J.
        let out = BagOfTasks
            .run(&spec(0, &[("deadline_s", ParamValue::Float(25.0))]))
            .unwrap();
        assert_eq!(out.metrics["pstate"], 2.0);
        assert!(close(out.metrics["energy_j"], 1800.0));
        assert_eq!(out.metrics["deadline_met"], 1.0);
        // Deadline 4 s: none meets it; the fastest, pstate 0 (starting from pstate 2): T = 5 s,
        // missed.
        let out = BagOfTasks
            .run(&spec(2, &[("deadline_s", ParamValue::Float(4.0))]))
            .unwrap();
        assert_eq!(out.metrics["pstate"], 0.0);
        assert!(close(out.metrics["makespan_s"], 5.0));
        assert_eq!(out.metrics["deadline_met"], 0.0);
    }

    fn refusal(spec: &RunSpec) -> ParamError {
        match BagOfTasks.validate(spec) {
            Err(RunError::Param(e)) => {
                // The run refuses it the same way.
                assert!(matches!(BagOfTasks.run(spec), Err(RunError::Param(ref r)) if *r == e));
                e
            }
            other => panic!("expected a parameter error, got {other:?}"),
        }
    }

    #[test]
    fn a_missing_or_stopped_pstate_is_refused_naming_the_parameter_and_the_host() {
        let e = refusal(&spec(0, &[("worker_pstate", ParamValue::Int(4))]));
        assert_eq!(e.param, "worker_pstate");
        assert!(e.message.contains("'w' has 4 pstate(s) (0 to 3)"), "{}", e.message);
        let e = refusal(&spec(0, &[("worker_pstate", ParamValue::Int(3))]));
        assert_eq!(e.param, "worker_pstate");
        assert!(e.message.contains("'w' computes at 0 flop/s"), "{}", e.message);
        let both = [
            ("worker_pstate", ParamValue::Int(1)),
            ("deadline_s", ParamValue::Float(10.0)),
        ];
        assert_eq!(refusal(&spec(0, &both)).param, "deadline_s");
        // A deadline needs the workers' power.
        let mut unpowered = spec(0, &[("deadline_s", ParamValue::Float(10.0))]);
        let mut p = (*unpowered.platform).clone();
        p.hosts[1].properties.clear();
        unpowered.platform = Arc::new(p);
        let e = refusal(&unpowered);
        assert_eq!(e.param, "deadline_s");
        assert!(e.message.contains("'w' has no 'wattage_per_state'"), "{}", e.message);
    }

    #[test]
    fn without_the_parameters_the_platform_pstate_stands_and_nothing_is_added() {
        // The worker starts in pstate 1 (1 Gflop/s): T = 10 s, E = 120 W × 10 s = 1200 J, as
        // with `worker_pstate = 1`; no DVFS metric, and no parameter noted as used.
        let plain = BagOfTasks.run(&spec(1, &[])).unwrap();
        assert!(close(plain.metrics["makespan_s"], 10.0));
        assert!(close(plain.metrics["energy_j"], 1200.0));
        for m in ["pstate", "estimated_makespan_s", "deadline_met"] {
            assert!(!plain.metrics.contains_key(m));
        }
        let used = BagOfTasks.validate(&spec(1, &[])).unwrap();
        assert!(!used.contains_key("worker_pstate") && !used.contains_key("deadline_s"));
        let fixed = BagOfTasks
            .run(&spec(1, &[("worker_pstate", ParamValue::Int(1))]))
            .unwrap();
        let mut same = fixed.metrics.clone();
        same.remove("pstate");
        assert_eq!(same, plain.metrics);
        assert_eq!(fixed.tables, plain.tables);
    }
}

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

const WORKLOAD: &[Param] = &[TASKS, TASK_FLOPS, TASK_BYTES, CONTROL_BYTES, MASTER, NODES, TASK_CV];

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
    })
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
    let engine = Engine::new(Arc::clone(&spec.platform)).map_err(|e| e.to_string())?;
    let hosts = prepared.config.workers.clone();
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

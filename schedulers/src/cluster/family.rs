//! The cluster load-balancing family (`family = "cluster"`): the WAL-FC paper's job streams on a
//! cluster of identical nodes (`schedulers::cluster`), with NLB, CM, IO, WAL and WAL-FC.
//!
//! # Workload
//!
//! With a `[workload]` trace, each job's CPU demand is its run time (the process trace: its CPU
//! seconds; use `serial_only` for SWF/GWF logs, whose processor counts this model ignores).
//! Without one, `jobs` jobs are drawn from Harchol-Balter & Downey lifetimes
//! (`traces::synthetic::HbdLifetime`, defaults) with Poisson arrivals. Either way:
//!
//! - arrivals are scaled so that the offered CPU load is `cpu_load` of the cluster's capacity
//!   (`Σ t_u / (span · nodes)`; the process trace as recorded offers 0.04 of one processor,
//!   far too little to load six nodes);
//! - each job arrives at a node drawn uniformly (stream `workload.nodes`);
//! - memory demand is Pareto with mean `memory_mean_mb` and shape `memory_shape`
//!   (§4.2: mean 4 MB, after Zhang et al.; stream `workload.memory`);
//! - the I/O access rate is uniform on [0, 2 `io_rate`] (§5.1; stream `workload.io_rates`);
//! - the initial data `d_u` is `initial_data_factor` × the data it accesses, eq. 5.3.
//!
//! # Rate units
//!
//! The paper gives access and page-fault rates in "No./ms". Read literally, 2.8 accesses per ms
//! of CPU time is ~1000 requests for a 0.37 s job and loads a disk ~40× over. Rates here are per
//! `rate_unit_s` seconds of CPU time: `rate_unit_s = 0.001` is the literal reading, the default
//! 1 reads "No./ms" as per second. See the README for the sweeps under both.
//!
//! All model parameters (Table 5.1 and the choices the paper leaves open) are listed by
//! `gridsim list`, with their defaults in `schedulers::cluster::ClusterConfig`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::cluster::{self, registry, ClusterConfig, ClusterJob, ClusterSetup, JobLoad};
use rand::Rng;
use sim_core::platform::{DiskModel, HostId};
use sim_core::{rng, Engine};
use traces::info::nearest_rank;
use traces::synthetic::{HbdLifetime, ParetoMemory, PoissonArrivals, UniformIoRate};

use crate::family::{
    declared_table, Family, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec, TableInfo, UsedParams,
};
use crate::registry::{Param, PolicyInfo};

/// The cluster job-stream family.
pub struct ClusterFamily;

/// Workload and model parameters (scheduler parameters come from the policy registry).
const MODEL: &[Param] = &[
    Param::described(
        "jobs",
        "jobs: the first N of the [workload] trace (default all), or N synthetic ones (default 10000)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "nodes",
        "nodes used: the first N hosts with an FCFS disk (default: all)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "cpu_load",
        "offered CPU load as a fraction of the cluster (arrivals scaled; default 0.6)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "io_rate",
        "mean I/O access rate per rate_unit_s of CPU time (§5: 'No./ms'; default 2.8)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "page_fault_rate",
        "page-fault rate mu of eq. 4.3 per rate_unit_s (default 2.0)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "rate_unit_s",
        "time unit of the two rates, s (0.001 = literal No./ms; default 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "memory_mean_mb",
        "mean Pareto memory demand, MB (default 4)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "memory_shape",
        "Pareto shape of the memory demand (default 2)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "buffer_mb",
        "initial I/O buffer per node, MB (Table 5.1: 160)",
        Param::NO_DEFAULT,
    ),
    Param::described("request_mean_kb", "mean I/O request size, KB (250)", Param::NO_DEFAULT),
    Param::described(
        "request_sd_kb",
        "standard deviation of the request size, KB (50)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "reaccess_rate",
        "data re-access rate r of eq. 5.4 (default 3)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "context_switch_ms",
        "context switch cost, ms (Table 5.1: 0.1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "time_slice_ms",
        "round-robin time slice, ms (default 0: processor sharing)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "load_info_period_s",
        "period of the load exchange, s (default 0: loads always current)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "page_fault_service_ms",
        "page-fault service time, ms (Table 5.1: 8.1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "migration_fixed_s",
        "fixed cost e of a remote execution, s (eq. 4.7; default 0.1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "initial_data_factor",
        "initial data d_u as a multiple of eq. 5.3's d_data (default 1)",
        Param::NO_DEFAULT,
    ),
];

/// A parameter at least `min`; `min = f64::MIN_POSITIVE` reads "> 0".
fn number(spec: &ParamReader, name: &str, default: f64, min: f64) -> Result<f64, String> {
    match spec.params.get(name) {
        None => {
            spec.default_used(name, ParamValue::Float(default));
            Ok(default)
        }
        Some(v) => v.as_f64().filter(|x| x.is_finite() && *x >= min).ok_or_else(|| {
            let bound = if min == f64::MIN_POSITIVE {
                "> 0".to_string()
            } else {
                format!(">= {min}")
            };
            format!("parameter '{name}' must be a number {bound}, got '{v}'")
        }),
    }
}

/// The experiment parameter a [`ClusterConfig`] field comes from, when it has its own.
const CONFIG_PARAMS: &[(&str, &str)] = &[
    ("time_slice_s", "time_slice_ms"),
    ("load_info_period_s", "load_info_period_s"),
    ("buffer_bytes", "buffer_mb"),
    ("page_fault_service_s", "page_fault_service_ms"),
    ("context_switch_s", "context_switch_ms"),
    ("request_mean_bytes", "request_mean_kb"),
    ("request_sd_bytes", "request_sd_kb"),
    ("page_fault_rate", "page_fault_rate"),
    ("reaccess_rate", "reaccess_rate"),
    ("migration_fixed_s", "migration_fixed_s"),
    ("initial_data_factor", "initial_data_factor"),
];

/// [`ClusterConfig::validate`]'s message, which names the model's fields, in terms of the
/// experiment parameter the user set: `parameter 'buffer_mb' ...: parameter 'buffer_bytes' ...`.
fn config_error(spec: &RunSpec, message: String) -> String {
    let field = message
        .strip_prefix("parameter '")
        .and_then(|rest| rest.split_once('\''))
        .map(|(field, _)| field);
    match field.and_then(|f| CONFIG_PARAMS.iter().find(|(c, _)| *c == f)) {
        Some((_, param)) if spec.params.contains_key(*param) => {
            format!(
                "parameter '{param}' = {} is out of range: {message}",
                spec.params[*param]
            )
        }
        // From the platform (ram_bytes, the disk, a host's io_buffer) or a default.
        _ => format!("with platform '{}': {message}", spec.platform_name),
    }
}

struct Prepared {
    setup: ClusterSetup,
    policy_params: BTreeMap<String, f64>,
}

/// Whether [`prepare`] builds the job list (a run) or only checks that there are jobs (validate:
/// an experiment validates every run, and a trace replay holds 184,612 jobs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Jobs {
    Build,
    CheckOnly,
}

fn prepare(spec: &ParamReader, what: Jobs) -> Result<Prepared, String> {
    let platform = &spec.platform;
    // Nodes: hosts with an FCFS disk, in platform order.
    let mut nodes = Vec::new();
    let mut disks = Vec::new();
    for (i, host) in platform.hosts.iter().enumerate() {
        let disk = host
            .disks
            .iter()
            .copied()
            .find(|d| matches!(platform.disks[d.0 as usize].model, DiskModel::FcfsQueue { .. }));
        if let Some(d) = disk {
            if host.state_profile.is_some() {
                return Err(format!(
                    "host '{}' has a state profile; the cluster model has no failures",
                    host.name
                ));
            }
            nodes.push(HostId(i as u32));
            disks.push(d);
        }
    }
    if let Some(v) = spec.params.get("nodes") {
        let n = v
            .as_u64()
            .filter(|&n| n >= 1 && n as usize <= nodes.len())
            .ok_or_else(|| {
                format!(
                    "parameter 'nodes' must be from 1 to {} (hosts with an FCFS disk), got '{v}'",
                    nodes.len()
                )
            })?;
        nodes.truncate(n as usize);
        disks.truncate(n as usize);
    }
    spec.default_used("nodes", ParamValue::Int(nodes.len() as i64));
    if nodes.is_empty() {
        return Err(format!(
            "platform '{}' has no host with an FCFS disk (`model = \"fcfs\"`); see platforms/data/walfc6.toml",
            spec.platform_name
        ));
    }
    let (seek, rate) = match platform.disks[disks[0].0 as usize].model {
        DiskModel::FcfsQueue {
            seek_rotation_s,
            transfer_rate,
        } => (seek_rotation_s, transfer_rate),
        DiskModel::Shared { .. } => unreachable!("only FCFS disks are kept"),
    };
    let host0 = platform.host(nodes[0]);
    let defaults = ClusterConfig::default();
    let unit = number(spec, "rate_unit_s", 1.0, f64::MIN_POSITIVE)?;
    let config = ClusterConfig {
        ram_bytes: host0.memory_bytes.unwrap_or(defaults.ram_bytes),
        buffer_bytes: match spec.params.get("buffer_mb") {
            Some(_) => number(spec, "buffer_mb", 0.0, 0.0)? * 1e6,
            None => {
                let bytes = host0.io_buffer_bytes.unwrap_or(defaults.buffer_bytes);
                spec.default_used("buffer_mb", ParamValue::Float(bytes / 1e6));
                bytes
            }
        },
        seek_rotation_s: seek,
        disk_rate_bytes_per_s: rate,
        page_fault_service_s: number(spec, "page_fault_service_ms", defaults.page_fault_service_s * 1e3, 0.0)? / 1e3,
        context_switch_s: number(spec, "context_switch_ms", defaults.context_switch_s * 1e3, 0.0)? / 1e3,
        time_slice_s: number(spec, "time_slice_ms", 0.0, 0.0)? / 1e3,
        load_info_period_s: number(spec, "load_info_period_s", 0.0, 0.0)?,
        request_mean_bytes: number(spec, "request_mean_kb", 250.0, f64::MIN_POSITIVE)? * 1e3,
        request_sd_bytes: number(spec, "request_sd_kb", 50.0, 0.0)? * 1e3,
        page_fault_rate: number(spec, "page_fault_rate", 2.0, 0.0)? / unit,
        reaccess_rate: number(spec, "reaccess_rate", defaults.reaccess_rate, 0.0)?,
        migration_fixed_s: number(spec, "migration_fixed_s", defaults.migration_fixed_s, 0.0)?,
        initial_data_factor: number(spec, "initial_data_factor", defaults.initial_data_factor, 0.0)?,
        ..defaults
    };
    config.validate().map_err(|m| config_error(spec, m))?;
    let io_rate = number(spec, "io_rate", 2.8, 0.0)? / unit;
    let cpu_load = number(spec, "cpu_load", 0.6, f64::MIN_POSITIVE)?;
    let memory = ParetoMemory::new(
        number(spec, "memory_mean_mb", 4.0, f64::MIN_POSITIVE)? * 1e6,
        number(spec, "memory_shape", 2.0, f64::MIN_POSITIVE)?,
    )?;
    let io = UniformIoRate::new(io_rate)?;

    // CPU demands and raw arrivals: the trace, or synthetic lifetimes.
    let limit = match spec.params.get("jobs") {
        Some(v) => Some(
            v.as_u64()
                .filter(|&n| (1..=10_000_000).contains(&n))
                .ok_or_else(|| format!("parameter 'jobs' must be an integer from 1 to 10000000, got '{v}'"))?
                as usize,
        ),
        None => None,
    };
    let count = match &spec.workload {
        Some(w) => w.jobs.len().min(limit.unwrap_or(usize::MAX)),
        None => limit.unwrap_or(10_000),
    };
    if count == 0 {
        return Err("the workload has no job".into());
    }
    spec.default_used("jobs", ParamValue::Int(count as i64));
    let demands: Vec<(f64, f64)> = match &spec.workload {
        _ if what == Jobs::CheckOnly => Vec::new(),
        Some(w) => w
            .jobs
            .iter()
            .take(limit.unwrap_or(usize::MAX))
            .map(|j| (j.submit_s, j.runtime_s))
            .collect(),
        None => {
            let lifetime = HbdLifetime::default();
            let arrivals = PoissonArrivals::new(1.0)?;
            let mut times = rng::stream(spec.seed, PoissonArrivals::STREAM);
            let mut sizes = rng::stream(spec.seed, HbdLifetime::STREAM);
            let mut t = 0.0;
            (0..limit.unwrap_or(10_000))
                .map(|_| {
                    t += arrivals.next_gap(&mut times);
                    (t, lifetime.sample(&mut sizes))
                })
                .collect()
        }
    };
    let first = demands.first().map_or(0.0, |d| d.0);
    let span = demands.last().map_or(0.0, |d| d.0) - first;
    let work: f64 = demands.iter().map(|d| d.1).sum();
    // Offered load Σ t / (span · nodes) scaled to `cpu_load`: arrival times multiplied by
    // offered / target.
    let stretch = if span > 0.0 && work > 0.0 {
        (work / (span * nodes.len() as f64)) / cpu_load
    } else {
        1.0
    };
    let mut homes = rng::stream(spec.seed, "workload.nodes");
    let mut mem = rng::stream(spec.seed, ParetoMemory::STREAM);
    let mut rates = rng::stream(spec.seed, UniformIoRate::STREAM);
    let r = config.reaccess_rate;
    let d = config.request_mean_bytes;
    let jobs = demands
        .iter()
        .map(|&(t, cpu)| {
            let io_rate = io.sample(&mut rates);
            ClusterJob {
                arrival_s: (t - first) * stretch,
                home: homes.gen_range(0..nodes.len()),
                load: JobLoad {
                    cpu_s: cpu,
                    io_rate,
                    memory_bytes: memory.sample(&mut mem),
                    data_bytes: config.initial_data_factor * io_rate * cpu * d / (r + 1.0),
                },
            }
        })
        .collect();
    let net = match platform.route(nodes[0], *nodes.get(1).unwrap_or(&nodes[0])) {
        Ok(route) if !route.links.is_empty() => route
            .links
            .iter()
            .map(|&l| platform.link(l).bandwidth)
            .fold(f64::INFINITY, f64::min),
        _ => f64::INFINITY,
    };
    let mut policy_params = BTreeMap::new();
    for (name, value) in &spec.params {
        if MODEL.iter().any(|m| m.name == name) {
            continue;
        }
        let x = value
            .as_f64()
            .ok_or_else(|| format!("parameter '{name}' must be a number, got '{value}'"))?;
        policy_params.insert(name.clone(), x);
    }
    let built = registry::build(&spec.scheduler, &policy_params)?;
    spec.policy_defaults(registry::infos());
    Ok(Prepared {
        setup: ClusterSetup {
            nodes,
            disks,
            config,
            w_io: built.w_io,
            jobs,
            net_bytes_per_s: net,
            record_jobs: spec.tables.iter().any(|t| t == "jobs"),
        },
        policy_params,
    })
}

const METRICS: &[Named] = &[
    Named {
        name: "mean_slowdown",
        description: "mean over jobs of response time / dedicated time",
    },
    Named {
        name: "median_slowdown",
        description: "median slowdown (nearest rank)",
    },
    Named {
        name: "p95_slowdown",
        description: "95th percentile slowdown (nearest rank)",
    },
    Named {
        name: "max_slowdown",
        description: "largest slowdown",
    },
    Named {
        name: "jobs_done",
        description: "jobs completed",
    },
    Named {
        name: "migrations",
        description: "job migrations",
    },
    Named {
        name: "hit_rate",
        description: "buffer cache hits / accesses (0 without accesses)",
    },
    Named {
        name: "page_faults",
        description: "page faults",
    },
    Named {
        name: "disk_utilisation_mean",
        description: "disk busy time / makespan, mean over nodes",
    },
    Named {
        name: "disk_utilisation_max",
        description: "disk busy time / makespan, largest over nodes",
    },
    Named {
        name: "makespan_s",
        description: "date the last job finished, s",
    },
    Named {
        name: "final_w_io",
        description: "feedback controller: last I/O weight (feedback policies only)",
    },
    Named {
        name: "final_buffer_mb",
        description: "feedback controller: last buffer size, MB (feedback policies only)",
    },
];

const TABLES: &[TableInfo] = &[
    TableInfo {
        name: "slowdown_quantiles",
        description: "the slowdown at each percentile 1..100 (nearest rank)",
        columns: &["fraction", "slowdown"],
    },
    TableInfo {
        name: "nodes",
        description: "per node: disk busy time / makespan",
        columns: &["node", "disk_utilisation"],
    },
    TableInfo {
        name: "control",
        description: "the feedback controller's I/O weight and buffer size over time (at most ~1000 points)",
        columns: &["time_s", "w_io", "buffer_mb"],
    },
    TableInfo {
        name: "jobs",
        description: "per job: home and final node, arrival, finish, dedicated time and slowdown",
        columns: &[
            "job",
            "home",
            "node",
            "arrival_s",
            "finish_s",
            "dedicated_s",
            "slowdown",
        ],
    },
];

impl Family for ClusterFamily {
    fn name(&self) -> &'static str {
        "cluster"
    }

    fn description(&self) -> &'static str {
        "cluster job streams with I/O- and memory-aware load balancing (WAL-FC paper)"
    }

    fn schedulers(&self) -> &'static [PolicyInfo] {
        registry::infos()
    }

    fn parameters(&self) -> &'static [Param] {
        MODEL
    }

    fn metrics(&self) -> &'static [Named] {
        METRICS
    }

    fn tables(&self) -> &'static [TableInfo] {
        TABLES
    }

    fn replays_job_traces(&self) -> bool {
        true
    }

    fn sets_offered_load(&self) -> Option<&'static str> {
        Some("cpu_load")
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        (|| -> Result<UsedParams, String> {
            let reader = ParamReader::new(spec);
            prepare(&reader, Jobs::CheckOnly)?;
            Ok(reader.used())
        })()
        .map_err(RunError::Other)
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        (|| -> Result<RunOutput, String> {
            let prepared = prepare(&ParamReader::new(spec), Jobs::Build)?;
            let built = registry::build(&spec.scheduler, &prepared.policy_params)?;
            let engine = Engine::new(Arc::clone(&spec.platform)).map_err(|e| e.to_string())?;
            let nodes = prepared.setup.nodes.len();
            let jobs = prepared.setup.jobs.len() as u64;
            let (outcome, stats) = cluster::run(engine, prepared.setup, built.balancer, built.controller, spec.seed)?;
            // Nodes never fail here (state profiles are refused), so every job should finish; if the
            // engine ever ran out of events first, the run's averages would cover part of the stream.
            let incomplete = (outcome.completed < jobs).then(|| {
                format!(
                    "incomplete: {} of {jobs} jobs done (the last at {} s); the simulation ran out of events first",
                    outcome.completed, outcome.makespan_s
                )
            });
            let mut sorted = outcome.slowdowns.clone();
            sorted.sort_by(f64::total_cmp);
            let n = sorted.len().max(1) as f64;
            let makespan = outcome.makespan_s.max(f64::MIN_POSITIVE);
            let utilisation: Vec<f64> = outcome.disk_busy_s.iter().map(|b| b / makespan).collect();
            let mut metrics = BTreeMap::new();
            let mut put = |k: &str, v: f64| {
                metrics.insert(k.to_string(), v);
            };
            put("mean_slowdown", sorted.iter().sum::<f64>() / n);
            put("median_slowdown", nearest_rank(&sorted, 0.5));
            put("p95_slowdown", nearest_rank(&sorted, 0.95));
            put("max_slowdown", sorted.last().copied().unwrap_or(f64::NAN));
            put("jobs_done", outcome.completed as f64);
            put("migrations", outcome.migrations as f64);
            put(
                "hit_rate",
                if outcome.accesses > 0 {
                    outcome.hits as f64 / outcome.accesses as f64
                } else {
                    0.0
                },
            );
            put("page_faults", outcome.page_faults as f64);
            put("disk_utilisation_mean", utilisation.iter().sum::<f64>() / nodes as f64);
            put("disk_utilisation_max", utilisation.iter().copied().fold(0.0, f64::max));
            put("makespan_s", outcome.makespan_s);
            if let Some(last) = outcome.control.last() {
                put("final_w_io", last.w_io);
                put("final_buffer_mb", last.buffer_bytes / 1e6);
            }
            let mut tables = BTreeMap::new();
            let wants = |t: &str| spec.tables.iter().any(|x| x == t);
            if wants("slowdown_quantiles") {
                let rows = (1..=100)
                    .map(|k| {
                        let q = k as f64 / 100.0;
                        vec![ParamValue::Float(q), ParamValue::Float(nearest_rank(&sorted, q))]
                    })
                    .collect();
                tables.extend([declared_table(TABLES, "slowdown_quantiles", rows)?]);
            }
            if wants("nodes") {
                let rows = utilisation
                    .iter()
                    .enumerate()
                    .map(|(i, u)| vec![ParamValue::Int(i as i64 + 1), ParamValue::Float(*u)])
                    .collect();
                tables.extend([declared_table(TABLES, "nodes", rows)?]);
            }
            if wants("control") {
                // At most ~1000 points: every k-th step and the last.
                let step = outcome.control.len().div_ceil(1000).max(1);
                let rows = outcome
                    .control
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % step == 0 || *i + 1 == outcome.control.len())
                    .map(|(_, c)| {
                        vec![
                            ParamValue::Float(c.time_s),
                            ParamValue::Float(c.w_io),
                            ParamValue::Float(c.buffer_bytes / 1e6),
                        ]
                    })
                    .collect();
                tables.extend([declared_table(TABLES, "control", rows)?]);
            }
            if wants("jobs") {
                let rows = outcome
                    .jobs
                    .iter()
                    .map(|j| {
                        vec![
                            ParamValue::Int(j.index as i64),
                            ParamValue::Int(j.home as i64 + 1),
                            ParamValue::Int(j.node as i64 + 1),
                            ParamValue::Float(j.arrival_s),
                            ParamValue::Float(j.finish_s),
                            ParamValue::Float(j.dedicated_s),
                            ParamValue::Float(j.slowdown),
                        ]
                    })
                    .collect();
                tables.extend([declared_table(TABLES, "jobs", rows)?]);
            }
            Ok(RunOutput {
                metrics,
                events: stats.events,
                tables,
                incomplete,
            })
        })()
        .map_err(RunError::Other)
    }
}

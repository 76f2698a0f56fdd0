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
//! - homes (`homes`): by default the stream's span is cut into one interval per node and node
//!   `k` replays interval `k` from time 0, as the paper's six nodes replay HBD's trace
//!   "collected from one workstation on six different time intervals" (§4.2); `uniform` draws
//!   each job's home (stream `workload.nodes`) and keeps the recorded arrival times;
//! - arrivals keep the trace's own timing ("the CPU and memory demands remain unchanged") unless
//!   `cpu_load` is set: then they are scaled so that the offered CPU load `Σ t_u / (span ·
//!   nodes)` is `cpu_load` of the cluster's capacity (the process trace as recorded offers about
//!   0.04 of a node with segment homes);
//! - memory demand is Pareto with mean `memory_mean_mb` and shape `memory_shape`
//!   (§4.2: mean 4 MB, after Zhang et al.; stream `workload.memory`);
//! - the I/O access rate is uniform on [0, 2 `io_rate`] (§5.1; stream `workload.io_rates`);
//! - the initial data `d_u` is `initial_data_factor` × the data it accesses, eq. 5.3.
//!
//! # Rate units
//!
//! The paper gives access and page-fault rates in "No./ms". Rates here are per `rate_unit_s`
//! seconds of CPU time, by default 0.001, the literal reading: a job of 0.37 s at 2.8 accesses
//! per ms makes about 1000 requests. `rate_unit_s = 1` reads them per second, the reading under
//! which, with arrivals scaled to 60% load, memory never overcommits and disks idle
//! (docs/reproductions/wal-fc.md).
//!
//! All model parameters (Table 5.1 and the choices the paper leaves open) are listed by
//! `gridsim list`. Each is one [`Param`] with its range, unit and default: the workload's here,
//! the model's in `schedulers::cluster::config`, where `ClusterConfig::default` reads them.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::cluster::config::{
    ConfigError, BUFFER_MB, CONTEXT_SWITCH_MS, DISK_ARRIVAL_RATE, DISK_RATE_WINDOW_S, INITIAL_DATA_FACTOR,
    LOAD_INFO_PERIOD_S, MIGRATION_FIXED_S, MIGRATION_PIECE_KB, PAGE_FAULT_RATE, PAGE_FAULT_SERVICE_MS, RATE_UNIT_S,
    REACCESS_RATE, REQUEST_MEAN_KB, REQUEST_SD_KB, TIME_SLICE_MS,
};
use crate::cluster::{self, registry, ClusterConfig, ClusterJob, ClusterSetup, JobLoad};
use rand::Rng;
use sim_core::platform::{DiskModel, HostId};
use sim_core::{rng, Engine};
use traces::info::nearest_rank;
use traces::synthetic::{HbdLifetime, ParetoMemory, PoissonArrivals, UniformIoRate};

use crate::family::{
    declared_table, Family, FamilyInfo, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec, TableInfo,
    UsedParams,
};
use crate::registry::Param;

/// The cluster job-stream family.
pub struct ClusterFamily;

/// How jobs get their home node ([`HOMES`]).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Homes {
    Segments,
    Uniform,
}

/// Synthetic jobs drawn when `jobs` is unset and there is no `[workload]` trace (a macro, so
/// that the `jobs` default text quotes the number the family uses).
macro_rules! synthetic_jobs {
    () => {
        10000
    };
}

const JOBS: Param = Param::integer(
    "jobs",
    "jobs: the first N of the [workload] trace, or N synthetic ones",
    Param::NO_DEFAULT,
    1.0,
)
.at_most(1e7)
.computed_default(concat!("every job of the trace, else ", synthetic_jobs!()));
const NODES: Param = Param::integer(
    "nodes",
    "nodes used: the first N hosts with an FCFS disk",
    Param::NO_DEFAULT,
    1.0,
)
.computed_default("every host with an FCFS disk");
const CPU_LOAD: Param = Param::real(
    "cpu_load",
    "offered CPU load as a fraction of the cluster, to which arrivals are scaled",
    Param::NO_DEFAULT,
    0.0,
)
.positive()
.computed_default("unset: the trace's own arrival times (§4.2: the demands 'remain unchanged')");
/// How jobs get their home node.
const HOMES: Param = Param::text(
    "homes",
    "segments: the trace's span cut into one interval per node, each node replaying its own from \
     time 0 (the HBD trace comes from 'one workstation on six different time intervals'); \
     uniform: each job's home drawn uniformly, arrivals as recorded",
    "segments",
);
const IO_RATE: Param = Param::real(
    "io_rate",
    "mean I/O access rate per rate_unit_s of CPU time (§5: 'No./ms')",
    "2.8",
    0.0,
);
const MEMORY_MEAN_MB: Param = Param::real("memory_mean_mb", "mean Pareto memory demand", "4", 0.0)
    .positive()
    .in_unit("MB");
const MEMORY_SHAPE: Param = Param::real(
    "memory_shape",
    "Pareto shape of the memory demand (above 1: a Pareto mean is finite only then)",
    "2",
    0.0,
)
.positive();

/// Workload and model parameters (scheduler parameters come from the policy registry).
const MODEL: &[Param] = &[
    JOBS,
    NODES,
    CPU_LOAD,
    HOMES,
    IO_RATE,
    PAGE_FAULT_RATE,
    RATE_UNIT_S,
    MEMORY_MEAN_MB,
    MEMORY_SHAPE,
    BUFFER_MB,
    REQUEST_MEAN_KB,
    REQUEST_SD_KB,
    REACCESS_RATE,
    CONTEXT_SWITCH_MS,
    TIME_SLICE_MS,
    LOAD_INFO_PERIOD_S,
    PAGE_FAULT_SERVICE_MS,
    MIGRATION_FIXED_S,
    MIGRATION_PIECE_KB,
    DISK_ARRIVAL_RATE,
    DISK_RATE_WINDOW_S,
    INITIAL_DATA_FACTOR,
];

/// The experiment parameter a [`ClusterConfig`] field comes from, when it has its own.
const CONFIG_PARAMS: &[(&str, &Param)] = &[
    ("time_slice_s", &TIME_SLICE_MS),
    ("load_info_period_s", &LOAD_INFO_PERIOD_S),
    ("buffer_bytes", &BUFFER_MB),
    ("page_fault_service_s", &PAGE_FAULT_SERVICE_MS),
    ("context_switch_s", &CONTEXT_SWITCH_MS),
    ("request_mean_bytes", &REQUEST_MEAN_KB),
    ("request_sd_bytes", &REQUEST_SD_KB),
    ("page_fault_rate", &PAGE_FAULT_RATE),
    ("reaccess_rate", &REACCESS_RATE),
    ("migration_fixed_s", &MIGRATION_FIXED_S),
    ("migration_piece_bytes", &MIGRATION_PIECE_KB),
    ("rate_unit_s", &RATE_UNIT_S),
    ("initial_data_factor", &INITIAL_DATA_FACTOR),
];

/// Eq. 4.5's `Λ_disk` reading: `None` for the aggregate, the averaging window when measured. A
/// window given with the aggregate reading would be ignored, so it is refused.
fn disk_rate_window(spec: &ParamReader) -> Result<Option<f64>, RunError> {
    match spec.text(&DISK_ARRIVAL_RATE)?.as_str() {
        "aggregate" if spec.params.contains_key(DISK_RATE_WINDOW_S.name) => Err(RunError::param(
            DISK_RATE_WINDOW_S.name,
            "applies only with disk_arrival_rate = \"measured\"",
        )),
        "aggregate" => Ok(None),
        "measured" => Ok(Some(spec.real(&DISK_RATE_WINDOW_S)?)),
        other => Err(RunError::param(
            DISK_ARRIVAL_RATE.name,
            format!("must be 'aggregate' or 'measured', got '{other}'"),
        )),
    }
}

/// [`ClusterConfig::validate`]'s refusal, which names the model's field, as the run's: at the
/// experiment parameter the field comes from when the run sets it (`parameter 'buffer_mb' = ...
/// is out of range: parameter 'buffer_bytes' ...`), else at the platform (ram_bytes, the disk, a
/// host's io_buffer, or a default).
fn config_error(spec: &RunSpec, error: ConfigError) -> RunError {
    let param = CONFIG_PARAMS.iter().find(|(field, _)| *field == error.field);
    match param.and_then(|(_, p)| spec.params.get(p.name).map(|v| (p.name, v))) {
        Some((name, value)) => RunError::param(name, format!("= {value} is out of range: {error}")),
        None => RunError::platform(format!("with platform '{}': {error}", spec.platform_name)),
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

fn prepare(spec: &ParamReader, what: Jobs) -> Result<Prepared, RunError> {
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
                return Err(RunError::platform(format!(
                    "host '{}' has a state profile; the cluster model has no failures",
                    host.name
                )));
            }
            nodes.push(HostId(i as u32));
            disks.push(d);
        }
    }
    let used = spec.integer_at_most(&NODES, nodes.len() as u64, "the platform's hosts with an FCFS disk")? as usize;
    nodes.truncate(used);
    disks.truncate(used);
    if nodes.is_empty() {
        return Err(RunError::platform(format!(
            "platform '{}' has no host with an FCFS disk (`model = \"fcfs\"`); see platforms/data/walfc6.toml",
            spec.platform_name
        )));
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
    let unit = spec.real(&RATE_UNIT_S)?;
    let config = ClusterConfig {
        ram_bytes: host0.memory_bytes.unwrap_or(defaults.ram_bytes),
        // The platform's buffer stands for the default where it gives one.
        buffer_bytes: match host0.io_buffer_bytes {
            Some(bytes) if !spec.params.contains_key(BUFFER_MB.name) => {
                spec.default_used(BUFFER_MB.name, ParamValue::Float(bytes / 1e6));
                bytes
            }
            _ => spec.real(&BUFFER_MB)? * 1e6,
        },
        seek_rotation_s: seek,
        disk_rate_bytes_per_s: rate,
        page_fault_service_s: spec.real(&PAGE_FAULT_SERVICE_MS)? / 1e3,
        context_switch_s: spec.real(&CONTEXT_SWITCH_MS)? / 1e3,
        time_slice_s: spec.real(&TIME_SLICE_MS)? / 1e3,
        load_info_period_s: spec.real(&LOAD_INFO_PERIOD_S)?,
        request_mean_bytes: spec.real(&REQUEST_MEAN_KB)? * 1e3,
        request_sd_bytes: spec.real(&REQUEST_SD_KB)? * 1e3,
        page_fault_rate: spec.real(&PAGE_FAULT_RATE)? / unit,
        reaccess_rate: spec.real(&REACCESS_RATE)?,
        migration_fixed_s: spec.real(&MIGRATION_FIXED_S)?,
        initial_data_factor: spec.real(&INITIAL_DATA_FACTOR)?,
        migration_piece_bytes: spec.real(&MIGRATION_PIECE_KB)? * 1e3,
        rate_unit_s: unit,
        measured_disk_rate_window_s: disk_rate_window(spec)?,
        ..defaults
    };
    config.validate().map_err(|e| config_error(spec, e))?;
    let io_rate = spec.real(&IO_RATE)? / unit;
    let cpu_load = spec.optional_real(&CPU_LOAD)?;
    let homes = match spec.text(&HOMES)?.as_str() {
        "segments" => Homes::Segments,
        "uniform" => Homes::Uniform,
        other => {
            return Err(RunError::param(
                HOMES.name,
                format!("must be 'segments' or 'uniform', got '{other}'"),
            ))
        }
    };
    let (memory_mean_mb, memory_shape) = (spec.real(&MEMORY_MEAN_MB)?, spec.real(&MEMORY_SHAPE)?);
    let memory = ParetoMemory::new(memory_mean_mb * 1e6, memory_shape).map_err(|e| {
        // The law needs a shape above 1; past that, only a mean too small to scale is refused.
        let param = if memory_shape > 1.0 {
            MEMORY_MEAN_MB
        } else {
            MEMORY_SHAPE
        };
        RunError::param(param.name, format!("is refused by the Pareto memory demand: {e}"))
    })?;
    let io = UniformIoRate::new(io_rate)
        .map_err(|e| RunError::param(IO_RATE.name, format!("/ rate_unit_s is out of range: {e}")))?;

    // CPU demands and raw arrivals: the trace, or synthetic lifetimes.
    let limit = spec.optional_integer(&JOBS)?.map(|n| n as usize);
    let synthetic = limit.unwrap_or(synthetic_jobs!());
    let count = match &spec.workload {
        Some(w) => w.jobs.len().min(limit.unwrap_or(usize::MAX)),
        None => synthetic,
    };
    if count == 0 {
        return Err("the workload has no job".into());
    }
    spec.default_used(JOBS.name, ParamValue::Int(count as i64));
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
            (0..synthetic)
                .map(|_| {
                    t += arrivals.next_gap(&mut times);
                    (t, lifetime.sample(&mut sizes))
                })
                .collect()
        }
    };
    let n = nodes.len();
    let first = demands.first().map_or(0.0, |d| d.0);
    let span = demands.last().map_or(0.0, |d| d.0) - first;
    let mut home_draws = rng::stream(spec.seed, "workload.nodes");
    // (arrival from the stream's start, home, CPU demand), in arrival order.
    let mut placed: Vec<(f64, usize, f64)> = demands
        .iter()
        .map(|&(t, cpu)| {
            let t = t - first;
            match homes {
                Homes::Uniform => (t, home_draws.gen_range(0..n), cpu),
                Homes::Segments => {
                    let width = span / n as f64;
                    let k = if width > 0.0 {
                        ((t / width) as usize).min(n - 1)
                    } else {
                        0
                    };
                    (t - k as f64 * width, k, cpu)
                }
            }
        })
        .collect();
    // Segments start together: merge them by arrival (stable, so equal dates keep trace order).
    placed.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Offered load Σ t / (span · nodes) scaled to `cpu_load` when it is set: arrival times
    // multiplied by offered / target.
    let work: f64 = placed.iter().map(|p| p.2).sum();
    let last = placed.last().map_or(0.0, |p| p.0);
    let stretch = match cpu_load {
        Some(target) if last > 0.0 && work > 0.0 => (work / (last * n as f64)) / target,
        _ => 1.0,
    };
    let mut mem = rng::stream(spec.seed, ParetoMemory::STREAM);
    let mut rates = rng::stream(spec.seed, UniformIoRate::STREAM);
    let r = config.reaccess_rate;
    let d = config.request_mean_bytes;
    let jobs = placed
        .iter()
        .map(|&(t, home, cpu)| {
            let io_rate = io.sample(&mut rates);
            ClusterJob {
                arrival_s: t * stretch,
                home,
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
    let policy_params = spec.numeric_params_besides(MODEL)?;
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
        description: "mean over jobs of eq. 3.1: response time / time alone on a node (no sharing)",
    },
    Named {
        name: "mean_slowdown_realised",
        description: "mean over jobs of response time / (CPU time + the service of its own misses and faults)",
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
        description: "per job: home and final node, arrival, finish, its demands (CPU, memory, I/O rate, initial data), dedicated time (eq. 3.1), the service of its own buffer misses and page faults, and both slowdowns",
        columns: &[
            "job",
            "home",
            "node",
            "arrival_s",
            "finish_s",
            "cpu_s",
            "memory_mb",
            "io_per_s",
            "data_mb",
            "dedicated_s",
            "explicit_io_s",
            "page_fault_io_s",
            "slowdown",
            "slowdown_realised",
        ],
    },
];

const INFO: FamilyInfo = FamilyInfo {
    name: "cluster",
    description: "cluster job streams with I/O- and memory-aware load balancing (WAL-FC paper)",
    schedulers: registry::infos,
    parameters: MODEL,
    metrics: METRICS,
    tables: TABLES,
};

impl Family for ClusterFamily {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }

    fn replays_job_traces(&self) -> bool {
        true
    }

    fn sets_offered_load(&self) -> Option<&'static str> {
        Some("cpu_load")
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        let reader = ParamReader::new(spec);
        prepare(&reader, Jobs::CheckOnly)?;
        Ok(reader.used())
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
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
        put(
            "mean_slowdown_realised",
            outcome.slowdowns_realised.iter().sum::<f64>() / n,
        );
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
                        ParamValue::Float(j.load.cpu_s),
                        ParamValue::Float(j.load.memory_bytes / 1e6),
                        ParamValue::Float(j.load.io_rate),
                        ParamValue::Float(j.load.data_bytes / 1e6),
                        ParamValue::Float(j.dedicated_s),
                        ParamValue::Float(j.explicit_io_s),
                        ParamValue::Float(j.page_fault_io_s),
                        ParamValue::Float(j.slowdown),
                        ParamValue::Float(j.slowdown_realised),
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
    }
}

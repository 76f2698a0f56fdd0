//! The work-stealing family (`family = "steal"`): GpH programs on the GUM runtime model
//! (`schedulers::steal`) with Grid-GUM, Grid-GUM2 and Satin's cluster-aware random stealing.
//!
//! # Deployment
//! PE i runs on the i-th host of the platform (`pes`: the first N hosts; default all); PE 0
//! runs the main thread. A host's `cluster` property names its cluster (Satin's local and
//! wide-area steals); hosts without one share one cluster. `wan_latency_ms` sets the latency of
//! the platform's link named `wan` (the latency sweep; `platforms/data/gridgum8.toml` has one).
//!
//! # Program sizes
//! Every program is scaled so that a sequential run on one PE of `reference_mhz` (1395, the
//! paper's fast PEs, counting a cycle as a flop) takes `sequential_s` seconds (default 1000:
//! the order of the paper's runtimes, 180-1340 s; the paper gives no sequential times, and the
//! same value is used for all four programs so none is fitted to Table 1). The shape of each
//! program comes from its generator (`schedulers::steal::programs`), drawn from the run's
//! `workload.program` stream where it is random (the raytracer's scene).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::steal::{self, programs, registry, MessageKind, StealConfig, StealRuntime};
use sim_core::platform::HostId;
use sim_core::{rng, Engine};

use crate::family::{
    check_routes, declared_table, Family, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec, TableInfo,
    UsedParams,
};
use crate::registry::{Param, PolicyInfo};

/// The work-stealing family.
pub struct StealFamily;

/// The runtime's and the deployment's parameters (program and policy parameters come from
/// their registries).
const MODEL: &[Param] = &[
    Param::described(
        "program",
        "queens, sumeuler, linsolv or raytracer (default raytracer)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "sequential_s",
        "sequential runtime of the program on one reference PE, s (default 1000)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "reference_mhz",
        "speed of the reference PE, MHz = Mflop/s (default 1395)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "pes",
        "PEs: the first N hosts of the platform (default all)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "thread_limit",
        "live threads per PE (GUM maxThreads 1024; the paper's thread limit: 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "limit_counts_main",
        "1: the main thread counts against PE 0's thread limit; 0: only spark threads, as GUM (default 0)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "time_slice_ms",
        "round-robin time slice, ms (GHC: 20)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "hop_limit",
        "forwards before a FISH goes home (GUM FISH_LIFE_EXPECTANCY: 10)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "fish_delay_ms",
        "wait after a FISH comes home, ms (GUM FISH_DELAY: 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "message_flops",
        "CPU work to handle one message, flops (default 1.4e5 = 0.1 ms at 1395 MHz)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "header_bytes",
        "bytes of every message besides its payload (default 64)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "control_bytes",
        "payload of FISH, FETCH, ACK and startup messages, bytes (default 32)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "wan_latency_ms",
        "latency of the platform's link named 'wan', ms (default: as in the platform)",
        Param::NO_DEFAULT,
    ),
];

fn number(spec: &ParamReader, name: &str, default: f64, ok: impl Fn(f64) -> bool, range: &str) -> Result<f64, String> {
    match spec.params.get(name) {
        None => {
            spec.default_used(name, ParamValue::Float(default));
            Ok(default)
        }
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && ok(*x))
            .ok_or_else(|| format!("parameter '{name}' must be {range}, got '{v}'")),
    }
}

fn integer(spec: &ParamReader, name: &str, default: u64, max: u64) -> Result<u64, String> {
    match spec.params.get(name) {
        None => {
            spec.default_used(name, ParamValue::Int(default as i64));
            Ok(default)
        }
        Some(v) => v
            .as_u64()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| format!("parameter '{name}' must be an integer from 1 to {max}, got '{v}'")),
    }
}

struct Prepared {
    platform: Arc<sim_core::platform::Platform>,
    hosts: Vec<HostId>,
    clusters: Vec<usize>,
    cluster_names: Vec<String>,
    config: StealConfig,
    program: String,
    program_params: BTreeMap<String, f64>,
    policy_params: BTreeMap<String, f64>,
    total_flops: f64,
}

fn prepare(spec: &ParamReader) -> Result<Prepared, String> {
    let mut platform = Arc::clone(&spec.platform);
    if let Some(v) = spec.params.get("wan_latency_ms") {
        let ms = v
            .as_f64()
            .filter(|x| x.is_finite() && (0.0..=1e6).contains(x))
            .ok_or_else(|| format!("parameter 'wan_latency_ms' must be a number from 0 to 1e6, got '{v}'"))?;
        let wan = platform.link_id("wan").ok_or_else(|| {
            format!(
                "parameter 'wan_latency_ms' needs a link named 'wan' in platform '{}'",
                spec.platform_name
            )
        })?;
        let mut changed = (*platform).clone();
        changed.links[wan.0 as usize].latency = ms / 1e3;
        platform = Arc::new(changed);
    } else if let Some(wan) = platform.link_id("wan") {
        spec.default_used("wan_latency_ms", ParamValue::Float(platform.link(wan).latency * 1e3));
    }
    let hosts_total = platform.hosts.len();
    let pes = integer(spec, "pes", hosts_total as u64, hosts_total as u64)? as usize;
    let hosts: Vec<HostId> = (0..pes as u32).map(HostId).collect();
    // Every PE may fish from every other.
    check_routes(
        spec,
        hosts
            .iter()
            .enumerate()
            .flat_map(|(i, &a)| hosts[i + 1..].iter().map(move |&b| (a, b))),
    )?;
    let mut cluster_names: Vec<String> = Vec::new();
    let mut clusters = Vec::with_capacity(pes);
    for &h in &hosts {
        let host = platform.host(h);
        if host.state_profile.is_some() {
            return Err(format!(
                "host '{}' has a state profile; the work-stealing model has no failures",
                host.name
            ));
        }
        let name = host.properties.get("cluster").cloned().unwrap_or_default();
        let index = match cluster_names.iter().position(|c| *c == name) {
            Some(i) => i,
            None => {
                cluster_names.push(name);
                cluster_names.len() - 1
            }
        };
        clusters.push(index);
    }
    let defaults = StealConfig::default();
    let mut config = StealConfig {
        thread_limit: integer(spec, "thread_limit", defaults.thread_limit as u64, 1 << 20)? as usize,
        limit_counts_main: number(spec, "limit_counts_main", 0.0, |x| x == 0.0 || x == 1.0, "0 or 1")? == 1.0,
        time_slice_s: number(spec, "time_slice_ms", 20.0, |x| x >= 1e-3, "a number >= 0.001")? / 1e3,
        // Read once the policy is known: only a policy that forwards a FISH uses it.
        hop_limit: defaults.hop_limit,
        fish_delay_s: number(
            spec,
            "fish_delay_ms",
            1.0,
            |x| (0.0..=1e9).contains(&x),
            "a number from 0 to 1e9",
        )? / 1e3,
        message_flops: number(
            spec,
            "message_flops",
            defaults.message_flops,
            |x| x >= 0.0,
            "a number >= 0",
        )?,
        header_bytes: number(
            spec,
            "header_bytes",
            defaults.header_bytes,
            |x| x >= 0.0,
            "a number >= 0",
        )?,
        control_bytes: number(
            spec,
            "control_bytes",
            defaults.control_bytes,
            |x| x >= 0.0,
            "a number >= 0",
        )?,
        startup_exchange: true,
        record_activity: spec.tables.iter().any(|t| t == "activity"),
    };
    config.validate()?;
    let program = match spec.params.get("program") {
        None => {
            let program = "raytracer";
            spec.default_used("program", ParamValue::Str(program.into()));
            program.to_string()
        }
        Some(ParamValue::Str(s)) => s.clone(),
        Some(v) => return Err(format!("parameter 'program' must be a program name, got '{v}'")),
    };
    let info = programs::PROGRAMS.iter().find(|p| p.name == program).ok_or_else(|| {
        let names: Vec<_> = programs::PROGRAMS.iter().map(|p| p.name).collect();
        format!("unknown program '{program}' (valid: {})", names.join(", "))
    })?;
    let sequential_s = number(
        spec,
        "sequential_s",
        1000.0,
        |x| x > 0.0 && x <= 1e9,
        "a number in (0, 1e9]",
    )?;
    let reference_mhz = number(
        spec,
        "reference_mhz",
        1395.0,
        |x| x > 0.0 && x <= 1e9,
        "a number in (0, 1e9]",
    )?;
    let mut program_params = BTreeMap::new();
    let mut policy_params = BTreeMap::new();
    for (name, value) in &spec.params {
        if MODEL.iter().any(|m| m.name == name) {
            continue;
        }
        let x = value
            .as_f64()
            .ok_or_else(|| format!("parameter '{name}' must be a number, got '{value}'"))?;
        let of_a_program = programs::PROGRAMS
            .iter()
            .any(|p| p.params.iter().any(|q| q.name == name));
        if of_a_program {
            // Parameters of the other programs of a sweep are constant columns; only the run's
            // program reads them.
            if info.params.iter().any(|q| q.name == name) {
                program_params.insert(name.clone(), x);
            }
        } else {
            policy_params.insert(name.clone(), x);
        }
    }
    // Checks the policy's name and parameters now, so `validate` reports them.
    let forwards = registry::build(&spec.scheduler, &policy_params, 1)?
        .first()
        .is_some_and(|policy| policy.forwards_fish());
    config.hop_limit = match spec.params.get("hop_limit") {
        None if forwards => {
            spec.default_used("hop_limit", ParamValue::Int(i64::from(defaults.hop_limit)));
            defaults.hop_limit
        }
        None => defaults.hop_limit,
        Some(_) if !forwards => {
            return Err(format!(
                "parameter 'hop_limit' bounds how often a FISH is forwarded, and scheduler '{}' never forwards one",
                spec.scheduler
            ))
        }
        Some(v) => v
            .as_u64()
            .filter(|&n| n <= 1000)
            .ok_or_else(|| format!("parameter 'hop_limit' must be an integer from 0 to 1000, got '{v}'"))?
            as u32,
    };
    spec.entry_defaults(info);
    spec.policy_defaults(registry::infos());
    Ok(Prepared {
        platform,
        hosts,
        clusters,
        cluster_names,
        config,
        program,
        program_params,
        policy_params,
        total_flops: sequential_s * reference_mhz * 1e6,
    })
}

const METRICS: &[Named] = &[
    Named {
        name: "runtime_s",
        description: "date the program's result is back on PE 0, s",
    },
    Named {
        name: "sequential_s",
        description: "the program's work on PE 0 alone, s",
    },
    Named {
        name: "sparks",
        description: "sparks the program creates",
    },
    Named {
        name: "busy_fraction",
        description: "time PEs ran threads or handled messages / (PEs x runtime)",
    },
    Named {
        name: "blocked_fraction",
        description: "time PEs had only blocked threads / (PEs x runtime)",
    },
    Named {
        name: "idle_fraction",
        description: "time PEs had nothing to do / (PEs x runtime)",
    },
    Named {
        name: "threads",
        description: "threads created, all PEs",
    },
    Named {
        name: "sparks_subsumed",
        description: "sparks evaluated by their parent thread, all PEs",
    },
    Named {
        name: "sparks_exported",
        description: "sparks sent to another PE, all PEs",
    },
    Named {
        name: "fishes_sent",
        description: "FISH messages sent, all PEs",
    },
    Named {
        name: "fishes_failed",
        description: "FISH messages that came back empty, all PEs",
    },
    Named {
        name: "messages_hello",
        description: "PEStatic speed-exchange messages",
    },
    Named {
        name: "messages_fish",
        description: "FISH messages, forwards included",
    },
    Named {
        name: "messages_schedule",
        description: "SCHEDULE messages",
    },
    Named {
        name: "messages_fetch",
        description: "FETCH messages",
    },
    Named {
        name: "messages_resume",
        description: "RESUME messages",
    },
    Named {
        name: "messages_ack",
        description: "ACK messages",
    },
    Named {
        name: "message_mb",
        description: "bytes of all messages, MB",
    },
];

const TABLES: &[TableInfo] = &[
    TableInfo {
        name: "pes",
        description: "per PE: host, cluster, speed, busy/blocked/idle time and spark, thread and FISH counts",
        columns: &[
            "pe",
            "host",
            "cluster",
            "speed_mhz",
            "busy_s",
            "blocked_s",
            "idle_s",
            "threads",
            "sparks_created",
            "sparks_subsumed",
            "sparks_exported",
            "sparks_received",
            "fishes_sent",
            "fishes_failed",
            "work_gflop",
        ],
    },
    TableInfo {
        name: "activity",
        description: "per PE, the intervals with the same number of runnable threads (the Fig 9 timeline)",
        columns: &["pe", "start_s", "end_s", "runnable"],
    },
];

impl Family for StealFamily {
    fn name(&self) -> &'static str {
        "steal"
    }

    fn description(&self) -> &'static str {
        "work stealing in a parallel functional runtime: GpH programs on GUM (Grid-GUM2 paper)"
    }

    fn schedulers(&self) -> &'static [PolicyInfo] {
        registry::infos()
    }

    fn parameters(&self) -> &'static [Param] {
        MODEL
    }

    fn other_entries(&self) -> &'static [PolicyInfo] {
        programs::PROGRAMS
    }

    fn metrics(&self) -> &'static [Named] {
        METRICS
    }

    fn tables(&self) -> &'static [TableInfo] {
        TABLES
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        (|| -> Result<UsedParams, String> {
            let reader = ParamReader::new(spec);
            let prepared = prepare(&reader)?;
            // Program parameters are checked by building the program: generators bound their
            // size and time, so this is cheap.
            let mut stream = rng::stream(spec.seed, "workload.program");
            programs::build(
                &prepared.program,
                &prepared.program_params,
                prepared.total_flops,
                &mut stream,
            )?;
            Ok(reader.used())
        })()
        .map_err(RunError::Other)
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        (|| -> Result<RunOutput, String> {
            let p = prepare(&ParamReader::new(spec))?;
            let mut stream = rng::stream(spec.seed, "workload.program");
            let program = programs::build(&p.program, &p.program_params, p.total_flops, &mut stream)?;
            let sparks = program.sparks();
            let policies = registry::build(&spec.scheduler, &p.policy_params, p.hosts.len())?;
            let engine = Engine::new(Arc::clone(&p.platform)).map_err(|e| e.to_string())?;
            let runtime = StealRuntime::new(
                &engine,
                program,
                p.config.clone(),
                &p.hosts,
                p.clusters.clone(),
                policies,
                spec.seed,
            )?;
            let (outcome, stats) = steal::run(engine, runtime)?;
            let runtime_s = outcome.runtime_s;
            let n = outcome.pes.len() as f64;
            let sum = |f: &dyn Fn(&steal::PeStats) -> f64| outcome.pes.iter().map(f).sum::<f64>();
            let mut metrics = BTreeMap::new();
            let mut put = |k: &str, v: f64| {
                metrics.insert(k.to_string(), v);
            };
            put("runtime_s", runtime_s);
            put("sequential_s", p.total_flops / (p.platform.host(p.hosts[0]).speed));
            put("sparks", sparks as f64);
            put("busy_fraction", sum(&|s| s.busy_s) / (n * runtime_s));
            put("blocked_fraction", sum(&|s| s.blocked_s) / (n * runtime_s));
            put("idle_fraction", sum(&|s| s.idle_s) / (n * runtime_s));
            put("threads", sum(&|s| s.threads as f64));
            put("sparks_subsumed", sum(&|s| s.sparks_subsumed as f64));
            put("sparks_exported", sum(&|s| s.sparks_exported as f64));
            put("fishes_sent", sum(&|s| s.fishes_sent as f64));
            put("fishes_failed", sum(&|s| s.fishes_failed as f64));
            for kind in MessageKind::ALL {
                put(
                    &format!("messages_{}", kind.name()),
                    outcome.messages[kind as usize] as f64,
                );
            }
            put("message_mb", outcome.message_bytes / 1e6);
            let mut tables = BTreeMap::new();
            let wants = |t: &str| spec.tables.iter().any(|x| x == t);
            if wants("pes") {
                let rows = outcome
                    .pes
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let host = p.platform.host(p.hosts[i]);
                        vec![
                            ParamValue::Int(i as i64),
                            ParamValue::Str(host.name.clone()),
                            ParamValue::Str(p.cluster_names[p.clusters[i]].clone()),
                            ParamValue::Float(host.speed / 1e6),
                            ParamValue::Float(s.busy_s),
                            ParamValue::Float(s.blocked_s),
                            ParamValue::Float(s.idle_s),
                            ParamValue::Int(s.threads as i64),
                            ParamValue::Int(s.sparks_created as i64),
                            ParamValue::Int(s.sparks_subsumed as i64),
                            ParamValue::Int(s.sparks_exported as i64),
                            ParamValue::Int(s.sparks_received as i64),
                            ParamValue::Int(s.fishes_sent as i64),
                            ParamValue::Int(s.fishes_failed as i64),
                            ParamValue::Float(s.work_flops / 1e9),
                        ]
                    })
                    .collect();
                tables.extend([declared_table(TABLES, "pes", rows)?]);
            }
            if wants("activity") {
                let rows = outcome
                    .activity
                    .iter()
                    .map(|a| {
                        vec![
                            ParamValue::Int(a.pe as i64),
                            ParamValue::Float(a.start),
                            ParamValue::Float(a.end),
                            ParamValue::Int(a.runnable as i64),
                        ]
                    })
                    .collect();
                tables.extend([declared_table(TABLES, "activity", rows)?]);
            }
            Ok(RunOutput {
                metrics,
                events: stats.events,
                tables,
                // `steal::run` fails a run whose main thread never finished.
                incomplete: None,
            })
        })()
        .map_err(RunError::Other)
    }
}

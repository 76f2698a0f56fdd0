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
//! paper's fast PEs, counting a cycle as a flop) takes `sequential_s` seconds. The paper gives
//! no sequential times; the default is each program's own, read from the paper
//! ([`programs::default_sequential_s`]: Fig 9b's Grid-GUM2 run keeps all eight PEs busy to the
//! end, so the work is the Grid-GUM2 runtime × 7716 / 1395 MHz), never fitted to a simulated
//! runtime. The number of sparks, and so their size, comes from each program's own parameters
//! (chunk size, cut-off depth, rows per block, images). The shape of each
//! program comes from its generator (`schedulers::steal::programs`), drawn from the run's
//! `workload.program` stream where it is random (the raytracer's scene).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::steal::config::{
    CONTROL_BYTES, FISH_DELAY_MS, HEADER_BYTES, HOP_LIMIT, LIMIT_COUNTS_MAIN, MESSAGE_FLOPS, PACK_BUFFER_WORDS,
    PACK_FLOPS_PER_WORD, THREAD_CREATE_FLOPS, THREAD_LIMIT, TIME_SLICE_MS, UNPACK_FLOPS_PER_WORD,
};
use crate::steal::{self, programs, registry, MessageKind, StealConfig, StealRuntime};
use sim_core::platform::HostId;
use sim_core::{rng, Engine};

use crate::family::{
    check_routes, declared_table, Family, FamilyInfo, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec,
    TableInfo, UsedParams,
};
use crate::registry::{Param, PolicyInfo};

/// The work-stealing family.
pub struct StealFamily;

const PROGRAM: Param = Param::text("program", "the program to run (one of the programs above)", "raytracer");
const SEQUENTIAL_S: Param = Param::real(
    "sequential_s",
    "sequential runtime of the program on one reference PE",
    Param::NO_DEFAULT,
    0.0,
)
.computed_default(
    "the program's Grid-GUM2 runtime in Table 1 x 7716 / 1395 (Fig 9b: all PEs finish together): queens \
     1715, sumeuler 1543, linsolv 996, raytracer 3164",
)
.positive()
.at_most(1e9)
.in_unit("s");
const REFERENCE_MHZ: Param = Param::real(
    "reference_mhz",
    "speed of the reference PE (MHz = Mflop/s)",
    "1395",
    0.0,
)
.positive()
.at_most(1e9)
.in_unit("MHz");
const PES: Param = Param::integer("pes", "PEs: the first N hosts of the platform", Param::NO_DEFAULT, 1.0)
    .computed_default("every host of the platform");
const WAN_LATENCY_MS: Param = Param::real(
    "wan_latency_ms",
    "latency of the platform's link named 'wan'",
    Param::NO_DEFAULT,
    0.0,
)
.at_most(1e6)
.in_unit("ms")
.computed_default("as in the platform");

/// The runtime's and the deployment's parameters (program and policy parameters come from
/// their registries).
const MODEL: &[Param] = &[
    PROGRAM,
    SEQUENTIAL_S,
    REFERENCE_MHZ,
    PES,
    THREAD_LIMIT,
    LIMIT_COUNTS_MAIN,
    TIME_SLICE_MS,
    HOP_LIMIT,
    FISH_DELAY_MS,
    MESSAGE_FLOPS,
    HEADER_BYTES,
    CONTROL_BYTES,
    PACK_BUFFER_WORDS,
    PACK_FLOPS_PER_WORD,
    UNPACK_FLOPS_PER_WORD,
    THREAD_CREATE_FLOPS,
    WAN_LATENCY_MS,
];

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

fn prepare(spec: &ParamReader) -> Result<Prepared, RunError> {
    let mut platform = Arc::clone(&spec.platform);
    match spec.optional_real(&WAN_LATENCY_MS)? {
        Some(ms) => {
            let wan = platform.link_id("wan").ok_or_else(|| {
                RunError::param(
                    WAN_LATENCY_MS.name,
                    format!("needs a link named 'wan' in platform '{}'", spec.platform_name),
                )
            })?;
            let mut changed = (*platform).clone();
            changed.links[wan.0 as usize].latency = ms / 1e3;
            platform = Arc::new(changed);
        }
        None => {
            if let Some(wan) = platform.link_id("wan") {
                spec.default_used(WAN_LATENCY_MS.name, ParamValue::Float(platform.link(wan).latency * 1e3));
            }
        }
    }
    let hosts_total = platform.hosts.len();
    let pes = spec.integer_at_most(&PES, hosts_total as u64, "the platform's hosts")? as usize;
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
            return Err(RunError::platform(format!(
                "host '{}' has a state profile; the work-stealing model has no failures",
                host.name
            )));
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
    // Every value is in its parameter's range, which is what `StealConfig::validate` (run again
    // by the runtime) asks.
    let mut config = StealConfig {
        thread_limit: spec.integer(&THREAD_LIMIT)? as usize,
        limit_counts_main: spec.real(&LIMIT_COUNTS_MAIN)? == 1.0,
        time_slice_s: spec.real(&TIME_SLICE_MS)? / 1e3,
        // Read once the policy is known: only a policy that forwards a FISH uses it.
        hop_limit: defaults.hop_limit,
        fish_delay_s: spec.real(&FISH_DELAY_MS)? / 1e3,
        message_flops: spec.real(&MESSAGE_FLOPS)?,
        header_bytes: spec.real(&HEADER_BYTES)?,
        control_bytes: spec.real(&CONTROL_BYTES)?,
        pack_buffer_words: spec.integer(&PACK_BUFFER_WORDS)? as f64,
        pack_flops_per_word: spec.real(&PACK_FLOPS_PER_WORD)?,
        unpack_flops_per_word: spec.real(&UNPACK_FLOPS_PER_WORD)?,
        thread_create_flops: spec.real(&THREAD_CREATE_FLOPS)?,
        startup_exchange: true,
        record_activity: spec.tables.iter().any(|t| t == "activity"),
    };
    let program = spec.text(&PROGRAM)?;
    let info = programs::PROGRAMS.iter().find(|p| p.name == program).ok_or_else(|| {
        let names: Vec<_> = programs::PROGRAMS.iter().map(|p| p.name).collect();
        RunError::param(
            PROGRAM.name,
            format!("names an unknown program '{program}' (valid: {})", names.join(", ")),
        )
    })?;
    let sequential_s = match spec.optional_real(&SEQUENTIAL_S)? {
        Some(s) => s,
        None => {
            let s = programs::default_sequential_s(&program).ok_or_else(|| {
                RunError::param(
                    SEQUENTIAL_S.name,
                    format!("has no default for program '{program}': set it"),
                )
            })?;
            spec.default_used(SEQUENTIAL_S.name, ParamValue::Float(s));
            s
        }
    };
    let reference_mhz = spec.real(&REFERENCE_MHZ)?;
    let mut program_params = BTreeMap::new();
    let mut policy_params = BTreeMap::new();
    for (name, x) in spec.numeric_params_besides(MODEL)? {
        let of_a_program = programs::PROGRAMS
            .iter()
            .any(|p| p.params.iter().any(|q| q.name == name));
        if of_a_program {
            // Parameters of the other programs of a sweep are constant columns; only the run's
            // program reads them.
            if info.params.iter().any(|q| q.name == name) {
                program_params.insert(name, x);
            }
        } else {
            policy_params.insert(name, x);
        }
    }
    // Checks the policy's name and parameters now, so `validate` reports them.
    let forwards = registry::build(&spec.scheduler, &policy_params, 1)?
        .first()
        .is_some_and(|policy| policy.forwards_fish());
    if forwards {
        config.hop_limit = spec.integer(&HOP_LIMIT)? as u32;
    } else if spec.params.contains_key(HOP_LIMIT.name) {
        return Err(RunError::param(
            HOP_LIMIT.name,
            format!(
                "bounds how often a FISH is forwarded, and scheduler '{}' never forwards one",
                spec.scheduler
            ),
        ));
    }
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
    Named {
        name: "data_fetches",
        description: "FETCHes of graph data (FETCH_MEs) sent by threads, all PEs",
    },
    Named {
        name: "max_live_threads",
        description: "most live threads any PE held at once",
    },
    Named {
        name: "overhead_fraction",
        description: "CPU work on packing, unpacking and thread creation / the program's work",
    },
];

const TABLES: &[TableInfo] = &[
    TableInfo {
        name: "pes",
        description: "per PE: host, cluster, speed, busy/blocked/idle time, spark, thread and FISH counts, data FETCHes and the most live threads it held",
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
            "data_fetches",
            "max_live",
        ],
    },
    TableInfo {
        name: "activity",
        description: "per PE, the intervals with the same number of runnable threads (the Fig 9 timeline)",
        columns: &["pe", "start_s", "end_s", "runnable"],
    },
];

const INFO: FamilyInfo = FamilyInfo {
    name: "steal",
    description: "work stealing in a parallel functional runtime: GpH programs on GUM (Grid-GUM2 paper)",
    schedulers: registry::infos,
    parameters: MODEL,
    metrics: METRICS,
    tables: TABLES,
};

impl Family for StealFamily {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }

    fn other_entries(&self) -> &'static [PolicyInfo] {
        programs::PROGRAMS
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
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
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
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
        put("data_fetches", sum(&|s| s.data_fetches as f64));
        put(
            "max_live_threads",
            outcome.pes.iter().map(|s| s.max_live).max().unwrap_or(0) as f64,
        );
        put("overhead_fraction", sum(&|s| s.overhead_flops) / p.total_flops);
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
                        ParamValue::Int(s.data_fetches as i64),
                        ParamValue::Int(s.max_live as i64),
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
    }
}

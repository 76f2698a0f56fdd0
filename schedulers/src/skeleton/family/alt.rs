//! The alt family (`family = "alt"`): remote skeleton invocations of Alt, Bischof & Gorlatch,
//! predicted by eq. 1 and simulated in the engine.
//!
//! With `wan_latency_s` the platform is built here: a client and one server with `server_cores`
//! cores, joined by one WAN link (the paper's §4 setting; speeds and link are parameters, see
//! `experiments/skeletons.toml`). Otherwise the experiment's platform is used: the client is host
//! `client` (default: the first host), the servers are `servers` (default: every other host).
//! Every server registers reduce, scan and divide-and-conquer with `threads` threads;
//! registration measures `t_s`, `t_w` and speed-ups in the engine; `min-predicted` picks the
//! server of least eq. 1 time, `fixed` uses `server`; the call is then simulated
//! ([`crate::skeleton::alt_sim`]). The two schedulers differ only in that choice, so their
//! entries are listed here rather than in files of their own.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{int, positive, required_numbers, scheduler};
use crate::skeleton::alt::{DcCosts, PerfFunction};
use crate::skeleton::alt_sim::{run_scenario, AltScenario, Calibration, Choice, ServerSpec};
use sim_core::platform::{Host, HostId, Link, Platform};

use crate::family::{
    declared_table, Family, FamilyInfo, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec, TableInfo,
    UsedParams,
};
use crate::registry::{Param, PolicyInfo};

/// Alt et al.'s remote skeletons.
pub struct AltSkeletons;

// The default skeleton is applied by `prepare` and, as ever, not written to params.csv.
const SKELETON: Param =
    Param::text("skeleton", "reduce, scan or dc (divide-and-conquer)", Param::NO_DEFAULT).computed_default("reduce");
/// Largest `n`: the task graph holds one operator application per element.
const N: Param = Param::integer("n", "list length", Param::NO_DEFAULT, 1.0).at_most(1e7);
const THREADS: Param = Param::integer(
    "threads",
    "threads p of every server's implementation (at most n)",
    "4",
    1.0,
);
const ELEMENT_BYTES: Param = Param::real(
    "element_bytes",
    "bytes per list element, positive (3200: a 20x20 matrix of doubles)",
    "3200",
    0.0,
)
.in_unit("B");
const OPERATOR_BYTES: Param = Param::real(
    "operator_bytes",
    "bytes of the operator's code sent with the call",
    "2000",
    0.0,
)
.in_unit("B");
const RESULT_ELEMENTS: Param = Param::real("result_elements", "elements of the result", Param::NO_DEFAULT, 0.0)
    .computed_default("1 for reduce, n otherwise");
const OP_FLOPS: Param = Param::real(
    "op_flops",
    "flops of one operator application (16000: a 20x20 matrix product)",
    "16000",
    0.0,
)
.in_unit("flop");
const DC_DIVIDE: Param = Param::real(
    "dc_divide",
    "dc: cost of a divide, in operator applications",
    "0.1",
    0.0,
);
const DC_BASE: Param = Param::real(
    "dc_base",
    "dc: cost of a base case, in operator applications",
    "0.1",
    0.0,
);
const DC_CONQUER: Param = Param::real(
    "dc_conquer",
    "dc: cost of a conquer, in operator applications",
    "1",
    0.0,
);
const OP_JITTER: Param = Param::real(
    "op_jitter",
    "relative half-width of each application's uniform jitter (below 1)",
    "0",
    0.0,
);
const SYNC_OVERHEAD: Param =
    Param::real("sync_overhead_s", "cost of each fork or join of threads", "0", 0.0).in_unit("s");
const BACKGROUND: Param = Param::integer(
    "background_processes",
    "CPU-bound processes on the server during the call",
    "0",
    0.0,
)
.at_most(u32::MAX as f64);
const INCLUDE_LOCAL: Param = Param::boolean(
    "include_local",
    "also register the client itself (local execution)",
    "false",
);
const CLIENT: Param =
    Param::text("client", "client host name", Param::NO_DEFAULT).computed_default("the platform's first host");
const SERVERS: Param = Param::text("servers", "server host names, comma-separated", Param::NO_DEFAULT)
    .computed_default("every other host");
const PROBE_ELEMENTS: Param = Param::text(
    "probe_elements",
    "sizes of the t_s/t_w probes, in elements, comma-separated",
    "1,16,256",
);
const BENCHMARK_FLOPS: Param =
    Param::real("benchmark_flops", "flops of the speed-up benchmark", "1e8", 0.0).in_unit("flop");
const WAN_LATENCY: Param = Param::real(
    "wan_latency_s",
    "if set: build a client + one server platform, WAN of this latency",
    Param::NO_DEFAULT,
    0.0,
)
.in_unit("s");
const WAN_BANDWIDTH: Param = Param::real(
    "wan_bandwidth_bytes_per_s",
    "its WAN bandwidth, positive",
    "12.5e6",
    0.0,
)
.in_unit("B/s");
const CLIENT_SPEED: Param =
    Param::real("client_speed_flops", "its client speed, positive", "20e6", 0.0).in_unit("flop/s");
const SERVER_SPEED: Param =
    Param::real("server_speed_flops", "its server speed per core, positive", "40e6", 0.0).in_unit("flop/s");
const SERVER_CORES: Param = Param::integer("server_cores", "its server cores", "16", 1.0).at_most(u32::MAX as f64);

/// The parameters of the built platform, which an experiment's platform leaves unread.
const BUILT: [Param; 4] = [WAN_BANDWIDTH, CLIENT_SPEED, SERVER_SPEED, SERVER_CORES];

const MODEL: &[Param] = &[
    SKELETON,
    N,
    THREADS,
    ELEMENT_BYTES,
    OPERATOR_BYTES,
    RESULT_ELEMENTS,
    OP_FLOPS,
    DC_DIVIDE,
    DC_BASE,
    DC_CONQUER,
    OP_JITTER,
    SYNC_OVERHEAD,
    BACKGROUND,
    INCLUDE_LOCAL,
    CLIENT,
    SERVERS,
    PROBE_ELEMENTS,
    BENCHMARK_FLOPS,
    WAN_LATENCY,
    WAN_BANDWIDTH,
    CLIENT_SPEED,
    SERVER_SPEED,
    SERVER_CORES,
];

const SERVER: Param = Param::text("server", "the server's name", Param::NO_DEFAULT);

const FIXED: PolicyInfo = PolicyInfo {
    name: "fixed",
    description: "the server named by 'server'",
    params: &[SERVER],
};

const SCHEDULERS: &[PolicyInfo] = &[
    PolicyInfo {
        name: "min-predicted",
        description: "the server with the least predicted time, eq. 1 (Alt et al.)",
        params: &[],
    },
    FIXED,
];

/// Where the call runs.
struct Deployment {
    platform: Arc<Platform>,
    client: HostId,
    /// The servers, by name.
    servers: Vec<(String, HostId)>,
}

/// The client and the servers: on the built platform of `wan_latency_s`, else on the
/// experiment's.
fn deployment(spec: &ParamReader) -> Result<Deployment, RunError> {
    let Some(wan_latency) = spec.optional_real(&WAN_LATENCY)? else {
        if let Some(p) = BUILT.iter().find(|p| spec.params.contains_key(p.name)) {
            return Err(RunError::param(p.name, "applies only with 'wan_latency_s'"));
        }
        let p = &spec.platform;
        let host = |param: &Param, name: &str| {
            p.host_id(name).ok_or_else(|| {
                RunError::param(
                    param.name,
                    format!(
                        "names host '{name}', which platform '{}' does not have",
                        spec.platform_name
                    ),
                )
            })
        };
        let client = match spec.optional_text(&CLIENT)? {
            Some(name) => host(&CLIENT, &name)?,
            None if !p.hosts.is_empty() => HostId(0),
            None => {
                return Err(RunError::platform(format!(
                    "platform '{}' has no host",
                    spec.platform_name
                )))
            }
        };
        let servers = match spec.optional_text(&SERVERS)? {
            Some(list) => list
                .split(',')
                .map(|s| host(&SERVERS, s.trim()).map(|h| (s.trim().to_string(), h)))
                .collect::<Result<Vec<_>, _>>()?,
            None => (0..p.hosts.len() as u32)
                .map(HostId)
                .filter(|&h| h != client)
                .map(|h| (p.host(h).name.clone(), h))
                .collect(),
        };
        return Ok(Deployment {
            platform: Arc::clone(&spec.platform),
            client,
            servers,
        });
    };
    if let Some(p) = [CLIENT, SERVERS].iter().find(|p| spec.params.contains_key(p.name)) {
        return Err(RunError::param(
            p.name,
            "names hosts of the experiment's platform, not with 'wan_latency_s'",
        ));
    }
    let mut p = Platform::new();
    let c = p
        .add_host(Host::new("client", positive(spec, &CLIENT_SPEED)?))
        .expect("fresh");
    let mut s = Host::new("server", positive(spec, &SERVER_SPEED)?);
    s.cores = spec.integer(&SERVER_CORES)? as u32;
    let s = p.add_host(s).expect("fresh");
    let bw = positive(spec, &WAN_BANDWIDTH)?;
    let l = p.add_link(Link::new("wan", bw, wan_latency)).expect("fresh");
    p.routing.add_route(c, s, vec![l]);
    p.routing.add_route(s, c, vec![l]);
    Ok(Deployment {
        platform: Arc::new(p),
        client: c,
        servers: vec![("server".to_string(), s)],
    })
}

fn prepare(spec: &ParamReader) -> Result<(Arc<Platform>, AltScenario), RunError> {
    let info = scheduler(spec, SCHEDULERS, MODEL)?;
    let n = spec.integer(&N)?;
    let threads = spec.integer(&THREADS)?;
    if n < threads {
        let given = [THREADS, N].into_iter().find(|p| spec.params.contains_key(p.name));
        return Err(RunError::param(
            given.unwrap_or(N).name,
            format!("needs n >= threads (n = {n}, threads = {threads})"),
        ));
    }
    let dc = DcCosts {
        divide: spec.real(&DC_DIVIDE)?,
        base: spec.real(&DC_BASE)?,
        conquer: spec.real(&DC_CONQUER)?,
    };
    let registered = vec![
        PerfFunction::Reduce,
        PerfFunction::Scan,
        PerfFunction::DivideAndConquer(dc),
    ];
    let skeleton = match spec.optional_text(&SKELETON)?.as_deref() {
        None | Some("reduce") => registered[0],
        Some("scan") => registered[1],
        Some("dc") => registered[2],
        Some(other) => {
            return Err(RunError::param(
                SKELETON.name,
                format!("must be reduce, scan or dc, got '{other}'"),
            ))
        }
    };
    let Deployment {
        platform,
        client,
        servers,
    } = deployment(spec)?;
    let mut servers: Vec<ServerSpec> = servers
        .into_iter()
        .map(|(name, host)| ServerSpec {
            name,
            host,
            threads,
            skeletons: registered.clone(),
        })
        .collect();
    if spec.boolean(&INCLUDE_LOCAL)? {
        servers.insert(
            0,
            ServerSpec {
                name: "local".into(),
                host: client,
                threads: u64::from(platform.host(client).cores),
                skeletons: registered.clone(),
            },
        );
    }
    if servers.is_empty() {
        return Err(RunError::platform(format!(
            "no server to call: platform '{}' has no host besides the client",
            spec.platform_name
        )));
    }
    let choice = if info.name == FIXED.name {
        let name = spec.text(&SERVER)?;
        let i = servers.iter().position(|s| s.name == name).ok_or_else(|| {
            let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
            RunError::param(
                SERVER.name,
                format!("is '{name}', which is not a server (servers: {})", names.join(", ")),
            )
        })?;
        Choice::Fixed(i)
    } else {
        Choice::MinPredicted
    };
    let probe_elements = required_numbers(spec, &PROBE_ELEMENTS)?
        .into_iter()
        .map(|x| x as u64)
        .collect::<Vec<_>>();
    let element_bytes = positive(spec, &ELEMENT_BYTES)?;
    let op_jitter = spec.real(&OP_JITTER)?;
    if op_jitter >= 1.0 {
        return Err(RunError::param(
            OP_JITTER.name,
            format!("must be below 1, got {op_jitter}"),
        ));
    }
    let background = spec.integer(&BACKGROUND)? as u32;
    let result_elements = match spec.optional_real(&RESULT_ELEMENTS)? {
        Some(x) => x,
        None => {
            let x = if skeleton == PerfFunction::Reduce {
                1.0
            } else {
                n as f64
            };
            spec.default_used(RESULT_ELEMENTS.name, ParamValue::Float(x));
            x
        }
    };
    let scenario = AltScenario {
        client,
        servers,
        calibration: Calibration {
            element_bytes,
            probe_elements,
            benchmark_flops: spec.real(&BENCHMARK_FLOPS)?.max(f64::MIN_POSITIVE),
        },
        skeleton,
        n,
        operator_bytes: spec.real(&OPERATOR_BYTES)?,
        result_elements,
        op_flops: spec.real(&OP_FLOPS)?,
        op_jitter,
        sync_overhead_s: spec.real(&SYNC_OVERHEAD)?,
        background_processes: background,
        choice,
        seed: spec.seed,
    };
    Ok((platform, scenario))
}
const METRICS: &[Named] = &[
    Named {
        name: "predicted_s",
        description: "the performance function's predicted total time (eq. 1), s",
    },
    Named {
        name: "predicted_comm_s",
        description: "its communication part, s",
    },
    Named {
        name: "predicted_comp_s",
        description: "its computation part, s",
    },
    Named {
        name: "simulated_s",
        description: "simulated total time, s",
    },
    Named {
        name: "simulated_comm_s",
        description: "simulated request + reply time, s",
    },
    Named {
        name: "simulated_comp_s",
        description: "simulated computation time, s",
    },
    Named {
        name: "error_pct",
        description: "100 x (simulated - predicted) / predicted",
    },
    Named {
        name: "server_index",
        description: "position of the chosen server",
    },
    Named {
        name: "t_s_s",
        description: "chosen server's sequential time t_s, s",
    },
    Named {
        name: "t_w_s",
        description: "chosen server's waiting time t_w, s",
    },
    Named {
        name: "speedup",
        description: "chosen server's speedup",
    },
    Named {
        name: "t_op_server_s",
        description: "client's operation time / speedup, s",
    },
    Named {
        name: "applications",
        description: "applications run",
    },
];

const TABLES: &[TableInfo] = &[
    TableInfo {
        name: "times",
        description: "predicted (eq. 1) and simulated total time side by side",
        columns: &["curve", "time_s"],
    },
    TableInfo {
        name: "servers",
        description: "every server with its performance-function inputs and predicted time",
        columns: &[
            "server_name",
            "t_s",
            "t_w",
            "speedup",
            "processors",
            "predicted_total_s",
            "chosen",
        ],
    },
];

const INFO: FamilyInfo = FamilyInfo {
    name: "alt",
    description: "skeletons on grid servers: predicted (eq. 1) and simulated remote calls (Alt, Bischof & Gorlatch)",
    schedulers: || SCHEDULERS,
    parameters: MODEL,
    metrics: METRICS,
    tables: TABLES,
};

impl Family for AltSkeletons {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        let reader = ParamReader::new(spec);
        prepare(&reader)?;
        Ok(reader.used())
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        let (platform, sc) = prepare(&ParamReader::new(spec))?;
        let out = run_scenario(&platform, &sc)?;
        let p = &out.prediction;
        let s = &out.simulated;
        let server = &out.lookup.servers[p.server];
        let mut metrics = BTreeMap::new();
        let mut put = |k: &str, v: f64| {
            metrics.insert(k.to_string(), v);
        };
        put("predicted_s", p.total);
        put("predicted_comm_s", p.communication);
        put("predicted_comp_s", p.computation);
        put("simulated_s", s.total_s);
        put("simulated_comm_s", s.request_s + s.reply_s);
        put("simulated_comp_s", s.compute_s);
        put("error_pct", 100.0 * (s.total_s - p.total) / p.total);
        put("server_index", p.server as f64);
        put("t_s_s", server.t_s);
        put("t_w_s", server.t_w);
        put("speedup", server.speedup);
        put("t_op_server_s", out.t_op_client / server.speedup);
        put("applications", s.applications as f64);
        let mut tables = BTreeMap::new();
        tables.extend([declared_table(
            TABLES,
            "times",
            vec![
                vec![ParamValue::Str("predicted (eq. 1)".into()), ParamValue::Float(p.total)],
                vec![ParamValue::Str("simulated".into()), ParamValue::Float(s.total_s)],
            ],
        )?]);
        let inv_rows = (0..out.lookup.servers.len())
            .map(|i| {
                let srv = &out.lookup.servers[i];
                let total = out.predictions[i].map_or(f64::NAN, |q| q.total);
                vec![
                    ParamValue::Str(srv.name.clone()),
                    ParamValue::Float(srv.t_s),
                    ParamValue::Float(srv.t_w),
                    ParamValue::Float(srv.speedup),
                    int(srv.processors),
                    ParamValue::Float(total),
                    ParamValue::Bool(i == p.server),
                ]
            })
            .collect();
        tables.extend([declared_table(TABLES, "servers", inv_rows)?]);
        Ok(RunOutput {
            metrics,
            events: s.events,
            tables,
            // The skeleton simulations fail a run whose items did not all finish.
            incomplete: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::amoget::tests::{s, spec};
    use super::*;

    #[test]
    fn alt_without_perturbations_simulates_the_prediction() {
        // Eq. 1 is exact for an unperturbed call with p <= cores (alt_sim module docs).
        let params = [
            ("n", ParamValue::Int(1024)),
            ("threads", ParamValue::Int(4)),
            ("wan_latency_s", ParamValue::Float(0.005)),
        ];
        let out = AltSkeletons.run(&spec("min-predicted", &params)).unwrap();
        let (p, sim) = (out.metrics["predicted_s"], out.metrics["simulated_s"]);
        assert!((p - sim).abs() < 1e-9 * p, "{p} vs {sim}");
        // Reduce on 4 threads: (256 - 1) + 3 applications of 16000 flops at 40 Mflop/s.
        assert!((out.metrics["predicted_comp_s"] - 258.0 * 16000.0 / 40e6).abs() < 1e-12);
        assert!(AltSkeletons
            .validate(&spec("fixed", &[("n", ParamValue::Int(8)), ("server", s("h2"))]))
            .is_ok());
    }

    #[test]
    fn alt_errors_name_their_parameter() {
        let refused = |scheduler: &str, params: &[(&str, ParamValue)]| match AltSkeletons
            .validate(&spec(scheduler, params))
            .unwrap_err()
        {
            RunError::Param(e) => (e.param, e.message),
            other => panic!("not an error of a parameter: {other}"),
        };
        let n = ("n", ParamValue::Int(8));
        let (param, message) = refused("fixed", &[n.clone(), ("server", s("nowhere"))]);
        assert!(param == "server" && message.contains("nowhere"), "{message}");
        assert_eq!(refused("fixed", std::slice::from_ref(&n)).0, "server");
        assert_eq!(refused("min-predicted", &[n.clone(), ("server", s("h2"))]).0, "server");
        assert_eq!(
            refused("min-predicted", &[n.clone(), ("client", s("nowhere"))]).0,
            "client"
        );
        assert_eq!(
            refused("min-predicted", &[n.clone(), ("server_cores", ParamValue::Int(2))]).0,
            "server_cores"
        );
        assert_eq!(
            refused("min-predicted", &[n.clone(), ("threads", ParamValue::Int(9))]).0,
            "threads"
        );
        assert_eq!(
            refused("min-predicted", &[n, ("op_jitter", ParamValue::Float(1.0))]).0,
            "op_jitter"
        );
    }
}

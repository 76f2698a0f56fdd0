//! The AMoGeT family (`family = "amoget"`): Pipeline/Deal mappings, the CTMC of the AMoGeT
//! paper and the same application simulated in the engine.
//!
//! Processors `P1..Pn` are the platform's first `processors` hosts, in platform order (`P1` is
//! the reference processor). With `latency_s` the processors' network is the homogeneous one of
//! the paper's experiments (§5.3): one link of that latency (and `bandwidth_bytes_per_s`, by
//! default so large that a 1-byte item takes the latency) between every two processors,
//! `network_model` raw by default, so a 1-byte message takes exactly the latency, as NWS's `la`
//! does; the platform then only supplies the hosts' speeds. Without `latency_s` the platform's
//! own routes and network model are used. `availability` scales the processors' speeds (a
//! constant speed profile: the paper's "twice as heavily loaded" is 0.5). The AMoGeT rates are
//! then *measured* as §4.3 describes: `cpu_j` = host speed, `av_j` = its availability at time 0,
//! `la_ij` = the simulated time of a `probe_bytes` message alone between the two hosts. Each run
//! solves the CTMC of its mapping and simulates the same application
//! ([`crate::skeleton::pipeline_sim`]) in `mode` `model` (the CTMC's assumptions: it must agree
//! within the interval) or `realistic` (transfers on the links, computations on the CPUs). For
//! any scheduler, `availability_steps` and `latency_steps` make the platform vary over time
//! (speed and latency profiles). The platform's parameters are read in
//! [`super::amoget_platform`].
//!
//! The schedulers, one file each with its own parameters: `fixed` runs the `mapping` it is given
//! ([`super::amoget_fixed`]); `amoget` solves the model of every candidate and keeps the best
//! throughput (§4.6, [`super::amoget_search`]); `amoget-adaptive` runs AMoGeT during the run
//! ([`super::amoget_adaptive`]). A mapping search in parallel is a sweep over `mapping`.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::amoget_platform::{
    processors, Processors, AVAILABILITY, AVAILABILITY_STEPS, BANDWIDTH, LATENCY, LATENCY_STEPS, NETWORK_MODEL,
    PROCESSORS,
};
use super::{amoget_adaptive, amoget_fixed, amoget_search, int, numbers, required_numbers, scheduler};
use crate::skeleton::adaptive::Candidates;
use crate::skeleton::amoget::{self, amoget_rates, Application, EvaluateOptions, RateConstants};
use crate::skeleton::mapping::{rank, Mapping, MappingEvaluation};
use crate::skeleton::pipeline_sim::{measure_grid, simulate, PipelineSim, ServiceDist, SimMode};
use sim_core::platform::{HostId, Platform};

use crate::family::{
    declared_table, Family, FamilyInfo, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec, TableInfo,
    UsedParams,
};
use crate::registry::{Param, PolicyInfo};

/// The AMoGeT Pipeline/Deal family.
pub struct Amoget;

const STAGE_TIMES: Param = Param::text(
    "stage_times_s",
    "tr_s: seconds per item of each stage on P1, comma-separated, e.g. \"10,10,10,10\"",
    Param::NO_DEFAULT,
);
const DATA_SIZES: Param = Param::text(
    "data_sizes",
    "ds_s: bytes sent to each stage and the output, comma-separated (Ns+1 values)",
    Param::NO_DEFAULT,
)
.computed_default("1 for each");
const MODE: Param = Param::text(
    "mode",
    "model (PEPA rates, exponential sleeps) or realistic (links and CPUs)",
    Param::NO_DEFAULT,
)
.computed_default("model; realistic for amoget-adaptive, which runs in that mode only");
const SERVICE: Param = Param::text("service", "exponential or deterministic service times", "exponential");
const ITEMS: Param = Param::integer("items", "inputs measured after the warm-up", "20000", 1.0).at_most(5e7);
const WARMUP_ITEMS: Param = Param::integer(
    "warmup_items",
    "inputs before the measurement window (items + warmup_items at most 5e7)",
    Param::NO_DEFAULT,
    0.0,
)
.computed_default("items/20");
const BATCHES: Param = Param::integer("batches", "batches of the batch-means interval", "20", 2.0);
const PROBE_BYTES: Param = Param::real(
    "probe_bytes",
    "size of the latency probes (NWS's 1-byte message)",
    "1",
    0.0,
)
.in_unit("B");

/// The parameters every scheduler of the family reads (the model, the platform, the
/// simulation); each scheduler's own are in its file.
const MODEL: &[Param] = &[
    STAGE_TIMES,
    DATA_SIZES,
    PROCESSORS,
    LATENCY,
    BANDWIDTH,
    NETWORK_MODEL,
    AVAILABILITY,
    MODE,
    SERVICE,
    ITEMS,
    WARMUP_ITEMS,
    BATCHES,
    PROBE_BYTES,
    AVAILABILITY_STEPS,
    LATENCY_STEPS,
];

const SCHEDULERS: &[PolicyInfo] = &[amoget_fixed::INFO, amoget_search::INFO, amoget_adaptive::INFO];

/// What a candidate mapping must fit: the stages of `stage_times_s` and the processors.
pub(super) struct Fit {
    /// Stages.
    pub stages: usize,
    /// Processors.
    pub processors: usize,
}

impl Fit {
    /// The mapping `text`, given by parameter `param`, parsed and checked.
    pub fn mapping(&self, param: &Param, text: &str) -> Result<Mapping, RunError> {
        let m = Mapping::parse(text).map_err(|e| RunError::param(param.name, format!("has a {e}")))?;
        if m.stages.len() != self.stages {
            return Err(RunError::param(
                param.name,
                format!(
                    "has mapping {m} of {} stages, but stage_times_s gives {}",
                    m.stages.len(),
                    self.stages
                ),
            ));
        }
        if m.processors_needed() > self.processors {
            return Err(RunError::param(
                param.name,
                format!(
                    "has mapping {m}, which uses processors beyond the {} available",
                    self.processors
                ),
            ));
        }
        Ok(m)
    }
}

/// One run, its parameters read.
pub(super) struct AmogetRun {
    pub platform: Arc<Platform>,
    pub hosts: Vec<HostId>,
    pub app: Application,
    pub mode: SimMode,
    pub service: ServiceDist,
    pub items: u64,
    pub warmup: u64,
    pub batches: usize,
    pub probe_bytes: f64,
    pub candidates: Candidates,
    /// `amoget-adaptive`'s parameters.
    pub adaptive: Option<amoget_adaptive::Adaptive>,
}

fn prepare(spec: &ParamReader) -> Result<AmogetRun, RunError> {
    let info = scheduler(spec, SCHEDULERS, MODEL)?;
    let times = required_numbers(spec, &STAGE_TIMES)?;
    let ns = times.len();
    if times.iter().any(|&t| t <= 0.0) {
        return Err(RunError::param(
            STAGE_TIMES.name,
            "must give every stage a positive time",
        ));
    }
    let data_sizes = numbers(spec, &DATA_SIZES)?.unwrap_or_else(|| vec![1.0; ns + 1]);
    if data_sizes.len() != ns + 1 || data_sizes.iter().any(|&d| d <= 0.0) {
        return Err(RunError::param(
            DATA_SIZES.name,
            format!(
                "needs {} positive values (one per stage and the output), got {}",
                ns + 1,
                data_sizes.len()
            ),
        ));
    }
    let Processors {
        platform,
        hosts,
        first_change_s,
    } = processors(spec)?;
    let adaptive_run = info.name == amoget_adaptive::INFO.name;
    let mode = spec.optional_text(&MODE)?;
    if adaptive_run && mode.as_deref().is_some_and(|m| m != "realistic") {
        return Err(RunError::param(
            MODE.name,
            "must be 'realistic' with scheduler 'amoget-adaptive', which runs in that mode only",
        ));
    }
    let adaptive = if adaptive_run {
        Some(amoget_adaptive::read(spec, first_change_s)?)
    } else {
        None
    };
    let mode = mode.unwrap_or_else(|| {
        let default = if adaptive_run { "realistic" } else { "model" };
        spec.default_used(MODE.name, ParamValue::Str(default.to_string()));
        default.to_string()
    });
    let mode = match mode.as_str() {
        "model" => SimMode::Model,
        "realistic" => SimMode::Realistic,
        other => {
            return Err(RunError::param(
                MODE.name,
                format!("must be 'model' or 'realistic', got '{other}'"),
            ))
        }
    };
    let service = match spec.text(&SERVICE)?.as_str() {
        "exponential" => ServiceDist::Exponential,
        "deterministic" => ServiceDist::Deterministic,
        other => {
            return Err(RunError::param(
                SERVICE.name,
                format!("must be 'exponential' or 'deterministic', got '{other}'"),
            ))
        }
    };
    let items = spec.integer(&ITEMS)?;
    let warmup = spec.optional_integer(&WARMUP_ITEMS)?.unwrap_or_else(|| {
        spec.default_used(WARMUP_ITEMS.name, int(items / 20));
        items / 20
    });
    if items + warmup > 50_000_000 {
        let given = [WARMUP_ITEMS, ITEMS]
            .into_iter()
            .find(|p| spec.params.contains_key(p.name));
        return Err(RunError::param(
            given.unwrap_or(ITEMS).name,
            format!("makes items + warmup_items = {items} + {warmup}, more than the 5e7 inputs simulated at most"),
        ));
    }
    let batches = spec.integer(&BATCHES)? as usize;
    let probe_bytes = spec.real(&PROBE_BYTES)?;
    let fit = Fit {
        stages: ns,
        processors: hosts.len(),
    };
    let candidates = if info.name == amoget_fixed::INFO.name {
        amoget_fixed::candidates(spec, &fit)?
    } else {
        amoget_search::candidates(spec, &fit)?
    };
    Ok(AmogetRun {
        platform,
        hosts,
        app: Application {
            reference_times_s: times,
            data_sizes,
        },
        mode,
        service,
        items,
        warmup,
        batches,
        probe_bytes,
        candidates,
        adaptive,
    })
}
const METRICS: &[Named] = &[
    Named {
        name: "throughput_ctmc",
        description: "throughput of the chosen mapping by the CTMC steady state, items/s",
    },
    Named {
        name: "throughput_ctmc_per_min",
        description: "the same, items/min",
    },
    Named {
        name: "throughput_sim",
        description: "simulated throughput, mean over batches, items/s",
    },
    Named {
        name: "throughput_sim_per_min",
        description: "the same, items/min",
    },
    Named {
        name: "throughput_sim_ci95",
        description: "half-width of the 95% interval of the simulated throughput (batch means), items/s",
    },
    Named {
        name: "ctmc_in_ci95",
        description: "1 when the CTMC throughput lies in that interval (fixed mapping only)",
    },
    Named {
        name: "relative_difference",
        description: "(simulated - CTMC) / CTMC (fixed mapping only)",
    },
    Named {
        name: "mean_latency_s",
        description: "mean time an item spends in the pipeline, s",
    },
    Named {
        name: "makespan_s",
        description: "date the last item left, s",
    },
    Named {
        name: "states",
        description: "CTMC states of the chosen mapping (fixed mapping only)",
    },
    Named {
        name: "transitions",
        description: "CTMC transitions of the chosen mapping (fixed mapping only)",
    },
    Named {
        name: "candidates",
        description: "mappings evaluated (fixed mapping only)",
    },
    Named {
        name: "chosen_candidate",
        description: "position of the chosen mapping among the candidates (fixed mapping only)",
    },
    Named {
        name: "throughput_before",
        description: "amoget-adaptive: output rate before phase_split_s, items/s",
    },
    Named {
        name: "throughput_after",
        description: "amoget-adaptive: output rate after phase_split_s, items/s",
    },
    Named {
        name: "throughput_before_per_min",
        description: "the same before, items/min",
    },
    Named {
        name: "throughput_after_per_min",
        description: "the same after, items/min",
    },
    Named {
        name: "phase_split_s",
        description: "amoget-adaptive: the date splitting the two phases, s",
    },
    Named {
        name: "decisions",
        description: "amoget-adaptive: remapping decisions taken",
    },
    Named {
        name: "remaps",
        description: "amoget-adaptive: remaps deployed",
    },
    Named {
        name: "first_remap_decided_s",
        description: "amoget-adaptive: date the first remap was decided (NaN: none), s",
    },
    Named {
        name: "first_remap_effective_s",
        description: "amoget-adaptive: date it took effect, s",
    },
    Named {
        name: "samples",
        description: "amoget-adaptive: NWS samples recorded",
    },
];

pub(super) const TABLES: &[TableInfo] = &[
    TableInfo {
        name: "candidates",
        description: "fixed mapping: every candidate mapping with its CTMC size, throughput and rank",
        columns: &[
            "candidate",
            "states",
            "transitions_count",
            "ctmc_throughput",
            "rank",
            "chosen",
        ],
    },
    TableInfo {
        name: "throughput",
        description: "fixed mapping: CTMC and simulated throughput side by side",
        columns: &["source", "throughput_per_s"],
    },
    TableInfo {
        name: "timeline",
        description: "amoget-adaptive: input and output rates per window of timeline_window_s",
        columns: &["t_s", "input_rate_per_s", "output_rate_per_s"],
    },
    TableInfo {
        name: "phases",
        description: "amoget-adaptive: throughput before and after phase_split_s",
        columns: &[
            "phase",
            "from_s",
            "to_s",
            "phase_throughput_per_s",
            "phase_throughput_per_min",
        ],
    },
    TableInfo {
        name: "remaps",
        description: "amoget-adaptive: each remap with its dates, mappings and predicted throughputs",
        columns: &[
            "decided_s",
            "effective_s",
            "from",
            "to",
            "ctmc_old",
            "ctmc_new",
            "items_before",
        ],
    },
    TableInfo {
        name: "decisions",
        description: "amoget-adaptive: each decision with its forecasts and the best mapping",
        columns: &[
            "date_s",
            "samples_used",
            "forecast_availability",
            "forecast_la12_ms",
            "running",
            "ctmc_running",
            "best",
            "ctmc_best",
            "candidates_solved",
            "deploy",
        ],
    },
];

const INFO: FamilyInfo = FamilyInfo {
    name: "amoget",
    description: "skeletons, Pipeline/Deal: PEPA/CTMC throughput of mappings and their simulation (AMoGeT paper)",
    schedulers: || SCHEDULERS,
    parameters: MODEL,
    metrics: METRICS,
    tables: TABLES,
};

impl Family for Amoget {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        let reader = ParamReader::new(spec);
        prepare(&reader)?;
        Ok(reader.used())
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        let run = prepare(&ParamReader::new(spec))?;
        if run.adaptive.is_some() {
            return amoget_adaptive::run(spec, run);
        }
        let grid = measure_grid(&run.platform, &run.hosts, run.probe_bytes)?;
        // Only an enumeration can fail: it found more mappings than its limit.
        let mappings = run
            .candidates
            .mappings(&grid)
            .map_err(|e| RunError::param(amoget_search::MAX_CANDIDATES.name, format!("is exceeded: {e}")))?;
        let k = RateConstants::default();
        let o = EvaluateOptions::default();
        let evaluations: Vec<MappingEvaluation> = mappings
            .iter()
            .map(|m| amoget::evaluate(&grid, &run.app, m, &k, &o).map_err(|e| format!("mapping {m}: {e}")))
            .collect::<Result<_, _>>()?;
        let order = rank(&evaluations, 1e-9);
        let best = order[0];
        let chosen = &evaluations[best];
        let cfg = PipelineSim {
            mapping: chosen.mapping.clone(),
            reference_times_s: run.app.reference_times_s.clone(),
            data_sizes: run.app.data_sizes.clone(),
            rates: amoget_rates(&grid, &run.app, &chosen.mapping, &k).map_err(|e| e.to_string())?,
            hosts: run.hosts.clone(),
            mode: run.mode,
            service: run.service,
            warmup_items: run.warmup,
            items: run.items,
            batches: run.batches,
            seed: spec.seed,
        };
        let out = simulate(Arc::clone(&run.platform), &cfg)?;
        let t = &out.throughput;
        let ctmc = chosen.throughput;
        let mut metrics = BTreeMap::new();
        let mut put = |k: &str, v: f64| {
            metrics.insert(k.to_string(), v);
        };
        put("throughput_ctmc", ctmc);
        put("throughput_ctmc_per_min", ctmc * 60.0);
        put("throughput_sim", t.mean);
        put("throughput_sim_per_min", t.mean * 60.0);
        put("throughput_sim_ci95", t.half_width);
        put("ctmc_in_ci95", f64::from(u8::from(t.contains(ctmc))));
        put("relative_difference", (t.mean - ctmc) / ctmc);
        put("mean_latency_s", out.mean_latency_s);
        put("makespan_s", out.makespan_s);
        put("states", chosen.states as f64);
        put("transitions", chosen.transitions as f64);
        put("candidates", evaluations.len() as f64);
        put("chosen_candidate", best as f64);
        let mut position = vec![0; evaluations.len()];
        for (r, &i) in order.iter().enumerate() {
            position[i] = r + 1;
        }
        let rows = evaluations
            .iter()
            .enumerate()
            .map(|(i, e)| {
                vec![
                    ParamValue::Str(e.mapping.to_string()),
                    int(e.states as u64),
                    int(e.transitions as u64),
                    ParamValue::Float(e.throughput),
                    int(position[i] as u64),
                    ParamValue::Bool(i == best),
                ]
            })
            .collect();
        let mut tables = BTreeMap::new();
        tables.extend([declared_table(TABLES, "candidates", rows)?]);
        let rows = vec![
            vec![ParamValue::Str("CTMC".into()), ParamValue::Float(ctmc)],
            vec![ParamValue::Str("simulation".into()), ParamValue::Float(t.mean)],
        ];
        tables.extend([declared_table(TABLES, "throughput", rows)?]);
        Ok(RunOutput {
            metrics,
            events: out.events,
            tables,
            // The skeleton simulations fail a run whose items did not all finish.
            incomplete: None,
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::registry::ParamError;
    use sim_core::platform::Host;

    /// A run of `scheduler` on four hosts of 1 Gflop/s with `params`.
    pub fn spec(scheduler: &str, params: &[(&str, ParamValue)]) -> RunSpec {
        let mut p = Platform::new();
        for i in 0..4 {
            p.add_host(Host::new(format!("h{i}"), 1e9)).unwrap();
        }
        RunSpec {
            index: 0,
            platform: Arc::new(p),
            platform_name: "four hosts".into(),
            scheduler: scheduler.into(),
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            replication: 0,
            seed: 3,
            workload: None,
            tables: Vec::new(),
        }
    }

    pub fn s(x: &str) -> ParamValue {
        ParamValue::Str(x.into())
    }

    /// The error of a parameter that `validate` gives a run of `scheduler` with `params`.
    pub fn refused(scheduler: &str, params: &[(&str, ParamValue)]) -> ParamError {
        match Amoget.validate(&spec(scheduler, params)).unwrap_err() {
            RunError::Param(e) => e,
            other => panic!("not an error of a parameter: {other}"),
        }
    }

    /// Asserts that `error` names `param` and says `words`.
    pub fn names(error: ParamError, param: &str, words: &str) {
        assert!(error.param == param && error.message.contains(words), "{error}");
    }

    #[test]
    fn amoget_fixed_run_reports_the_ctmc_of_the_papers_grid() {
        // AMoGeT Experiment 1, (1,1,2,2) at latency 20 s: the family's measured grid must give
        // the CTMC of Grid::homogeneous(4, .., 20000 ms), whose throughput §5.3 prints as
        // 0.01648 (checked in schedulers/tests/skeleton.rs).
        let params = [
            ("stage_times_s", s("10,10,10,10")),
            ("latency_s", ParamValue::Float(20.0)),
            ("mapping", s("[1, (1,1,2,2), 1]")),
            ("items", ParamValue::Int(2000)),
        ];
        let out = Amoget.run(&spec("fixed", &params)).unwrap();
        let grid = amoget::Grid::homogeneous(4, 1000.0, 20_000.0);
        let app = Application {
            reference_times_s: vec![10.0; 4],
            data_sizes: vec![1.0; 5],
        };
        let m = Mapping::parse("[1, (1,1,2,2), 1]").unwrap();
        let want = amoget::evaluate(&grid, &app, &m, &RateConstants::default(), &EvaluateOptions::default())
            .unwrap()
            .throughput;
        let got = out.metrics["throughput_ctmc"];
        assert!((got - want).abs() < 1e-9 * want, "{got} vs {want}");
        assert!(out.metrics["throughput_sim"] > 0.0);
        assert_eq!(out.tables["candidates"].rows.len(), 1);
    }

    #[test]
    fn amoget_search_picks_one_stage_per_processor_at_small_latency() {
        // AMoGeT §5.3: "For a small latency, the optimal mapping is obviously (1,2,3,4)".
        let params = [
            ("stage_times_s", s("10,10,10,10")),
            ("latency_s", ParamValue::Float(0.01)),
            ("items", ParamValue::Int(500)),
        ];
        let out = Amoget.run(&spec("amoget", &params)).unwrap();
        let t = &out.tables["candidates"];
        let chosen = t.rows.iter().find(|r| r[5] == ParamValue::Bool(true)).unwrap();
        assert_eq!(chosen[0], s("[1, (1,2,3,4), 1]"));
        assert!(t.rows.len() > 3);
    }

    #[test]
    fn amoget_rejects_inconsistent_parameters() {
        let base = [("stage_times_s", s("10,10"))];
        let bad = |sched: &str, extra: &[(&str, ParamValue)]| {
            let mut p: Vec<(&str, ParamValue)> = base.to_vec();
            p.extend(extra.iter().cloned());
            refused(sched, &p)
        };
        names(bad("fixed", &[]), "mapping", "is required");
        names(
            bad("fixed", &[("mapping", s("[1, (1,2,3), 1]"))]),
            "mapping",
            "3 stages",
        );
        names(bad("fixed", &[("mapping", s("[1, (1,5), 1]"))]), "mapping", "beyond");
        let mapping = ("mapping", s("[1, (1,2), 1]"));
        names(bad("fixed", &[mapping.clone(), ("mode", s("fast"))]), "mode", "'fast'");
        names(
            bad("amoget", std::slice::from_ref(&mapping)),
            "mapping",
            "does not apply to scheduler 'amoget'",
        );
        names(
            bad("fixed", &[mapping.clone(), ("network_model", s("raw"))]),
            "network_model",
            "latency_s",
        );
        names(
            bad("fixed", &[mapping.clone(), ("batches", ParamValue::Int(1))]),
            "batches",
            ">= 2",
        );
        names(
            bad("fixed", &[mapping.clone(), ("stage_times_s", s("10,-1"))]),
            "stage_times_s",
            "'-1'",
        );
        names(
            bad(
                "amoget",
                &[("candidates", s("[1, (1,2), 1]")), ("input", ParamValue::Int(2))],
            ),
            "input",
            "enumeration",
        );
        names(bad("amoget", &[("deal_workers", s("0,1.5"))]), "deal_workers", "1.5");
        assert!(Amoget.validate(&spec("fixed", &[base[0].clone(), mapping])).is_ok());
    }
}

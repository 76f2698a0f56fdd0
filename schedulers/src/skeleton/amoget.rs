//! AMoGeT model generation: the PEPA model of a Pipeline with nested Deals on a grid, with the
//! rates of the AMoGeT paper (Benoit, Cole, Gilmore & Hillston, "Scheduling skeleton-based grid
//! applications using PEPA and NWS", §3.2 and §4.4).
//!
//! **Model (Fig. 3).** For a plain stage `s`:
//! `Stage_s = (move_s, ⊤).(process_s_1, ⊤).(move_{s+1}, ⊤).Stage_s` (Fig. 3a). For a Deal with
//! `Nw` workers (Fig. 3b): `Source_s` alternates `move_s` and `input_s_i` for `i = 1..Nw`,
//! `Worker_s_i = (input_s_i, ⊤).(process_s_i, ⊤).(output_s_i, ⊤).Worker_s_i`, `Sink_s` alternates
//! `output_s_i` and `move_{s+1}`, and
//! `Stage_s = (Source_s <LI_s> (Worker_s_1 || … || Worker_s_Nw)) <LO_s> Sink_s`.
//! `Pipeline = Stage_1 <move_2> Stage_2 <move_3> … Stage_Ns` (Fig. 3c, left-associated).
//! One `Processor_j = Σ (process_s_i, μ_s_i).Processor_j` per processor hosting at least one
//! worker, all in parallel (Fig. 3d). `Network` is the choice of every `move`, `input` and
//! `output` action at its rate (Fig. 3e). The system is
//! `(Network <L_n> Pipeline) <L_p> Processors` (Fig. 3f), `L_n` the communication actions and
//! `L_p` the `process` actions. The pipeline's throughput is that of `move_1` (§4.5).
//!
//! **Rates (§4.4),** times in seconds, latencies `la_ij` in milliseconds, data sizes `ds`:
//! * `μ_s_i = av_j / nb_j · cpu_j / cpu_1 · 1 / tr_s`, `j` the processor of worker `i` of stage
//!   `s`, `nb_j` the number of workers it hosts, processor 1 the reference processor.
//! * `la_jj = 10⁻⁵` ms for communication within one processor.
//! * Case A (no Deal at either end of `move_s`): `λ_s = 10³ / (ds_s · la_{j_{s−1}, j_s})`.
//! * Case B (a Deal at one end): `λ_s = 10⁹` and the cost moves to the worker's action:
//!   `λI_s_i = 10³ / (ds_s · la_{j_{s−1}, j_{s,i}} − 10⁻⁶)` into a Deal,
//!   `λO_s_i = 10³ / (ds_{s+1} · la_{j_{s,i}, j_{s+1}} − 10⁻⁶)` out of it (10⁻⁶ ms is the
//!   latency equivalent of rate 10⁹).
//! * Case C (Deals `s` and `s+1` adjacent): data go through the processor of the first worker
//!   of Deal `s`: `λ_{s+1} = 10⁹`, `λO_s_i = 10³ / (ds · la_{j_{s,i}, j_{s,1}})`,
//!   `λI_{s+1,i'} = 10³ / (ds · la_{j_{s,1}, j_{s+1,i'}} − 10⁻⁶)`.
//!
//! **Interpretations** (the printed case C is garbled): `ds` in case C is taken as the size of
//! the data passed from stage `s` to stage `s+1`, i.e. `ds_{s+1}` (the paper prints `ds_s`),
//! and the `10⁻⁶` compensation is inside the denominator as in case B (the paper prints it
//! after the fraction); it is applied once, to `λI`, as the paper says. The input and output
//! locations play the role of stages `0` and `Ns+1` (plain). A stage is a Deal exactly when the
//! mapping gives it a worker tuple, even of one worker. The diagonal of the latency matrix is
//! ignored (§4.4 sets it to 10⁻⁵ ms).

use thiserror::Error;

use super::ctmc::{self, CtmcError, SolveOptions};
use super::mapping::{Mapping, MappingEvaluation, PlatformShape, StageMapping};
use super::pepa::{Model, Process, RateSpec};
use super::statespace::{self, DeriveOptions, PepaError};

/// Errors while building or solving a skeleton model.
#[derive(Debug, Error, PartialEq)]
pub enum ModelError {
    /// The description and the mapping disagree (sizes, indices).
    #[error("invalid description: {0}")]
    Invalid(String),
    /// A computed rate is not positive and finite.
    #[error("rate {name} is {value}, not a positive finite number")]
    BadRate {
        /// Parameter name.
        name: String,
        /// Its value.
        value: f64,
    },
    /// State-space derivation failed.
    #[error(transparent)]
    Pepa(#[from] PepaError),
    /// Steady-state solution failed.
    #[error(transparent)]
    Ctmc(#[from] CtmcError),
}

/// The rates of one pipeline model, 0-based: stage `s` is the paper's stage `s+1`.
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineRates {
    /// `μ[s][i]`: rate of `process_{s+1}_{i+1}` (one entry for a plain stage).
    pub process: Vec<Vec<f64>>,
    /// `λ[m]`: rate of `move_{m+1}`, `m = 0..=Ns`.
    pub moves: Vec<f64>,
    /// `λI[s][i]` of Deal stages (empty for plain stages).
    pub inputs: Vec<Vec<f64>>,
    /// `λO[s][i]` of Deal stages (empty for plain stages).
    pub outputs: Vec<Vec<f64>>,
}

/// Name of the `move` action with 0-based index `m` (`move1` for `m = 0`).
pub fn move_action(m: usize) -> String {
    format!("move{}", m + 1)
}

fn check(name: String, value: f64) -> Result<(String, f64), ModelError> {
    if value.is_finite() && value > 0.0 {
        Ok((name, value))
    } else {
        Err(ModelError::BadRate { name, value })
    }
}

fn passive() -> RateSpec {
    RateSpec::Passive(1.0)
}

/// Builds the PEPA model of Fig. 3 for `mapping` with the given rates. Parameter names:
/// `mu{s}_{i}`, `la{m}`, `laI{s}_{i}`, `laO{s}_{i}` (1-based); actions `move{m}`,
/// `process{s}_{i}`, `input{s}_{i}`, `output{s}_{i}`.
pub fn pipeline_model(mapping: &Mapping, rates: &PipelineRates) -> Result<Model, ModelError> {
    let ns = mapping.stages.len();
    if ns == 0 {
        return Err(ModelError::Invalid("a pipeline needs at least one stage".into()));
    }
    let shape_ok = rates.process.len() == ns
        && rates.moves.len() == ns + 1
        && rates.inputs.len() == ns
        && rates.outputs.len() == ns
        && mapping.stages.iter().enumerate().all(|(s, st)| {
            let w = st.workers().len();
            let io = if st.is_deal() { w } else { 0 };
            w > 0 && rates.process[s].len() == w && rates.inputs[s].len() == io && rates.outputs[s].len() == io
        });
    if !shape_ok {
        return Err(ModelError::Invalid("rates do not match the mapping's shape".into()));
    }
    let mut params = Vec::new();
    for (s, mus) in rates.process.iter().enumerate() {
        for (i, &mu) in mus.iter().enumerate() {
            params.push(check(format!("mu{}_{}", s + 1, i + 1), mu)?);
        }
    }
    for (m, &la) in rates.moves.iter().enumerate() {
        params.push(check(format!("la{}", m + 1), la)?);
    }
    for s in 0..ns {
        for (i, &l) in rates.inputs[s].iter().enumerate() {
            params.push(check(format!("laI{}_{}", s + 1, i + 1), l)?);
        }
        for (i, &l) in rates.outputs[s].iter().enumerate() {
            params.push(check(format!("laO{}_{}", s + 1, i + 1), l)?);
        }
    }

    let mut definitions = Vec::new();
    let mut stage_terms = Vec::new();
    let mut comm_actions: Vec<String> = (0..=ns).map(move_action).collect();
    let mut network = (0..=ns)
        .map(|m| (move_action(m), format!("la{}", m + 1)))
        .collect::<Vec<_>>();
    let mut process_actions = Vec::new();
    for (s, st) in mapping.stages.iter().enumerate() {
        let (n1, mv_in, mv_out) = (s + 1, move_action(s), move_action(s + 1));
        match st {
            StageMapping::Single(_) => {
                let name = format!("Stage{n1}");
                let proc_a = format!("process{n1}_1");
                process_actions.push(proc_a.clone());
                definitions.push((
                    name.clone(),
                    Process::sequence(
                        vec![(mv_in, passive()), (proc_a, passive()), (mv_out, passive())],
                        Process::constant(&name),
                    ),
                ));
                stage_terms.push(Process::constant(name));
            }
            StageMapping::Deal(workers) => {
                let nw = workers.len();
                let input = |i: usize| format!("input{n1}_{i}");
                let output = |i: usize| format!("output{n1}_{i}");
                let source = format!("Source{n1}");
                let sink = format!("Sink{n1}");
                let src_seq = (1..=nw)
                    .flat_map(|i| [(mv_in.clone(), passive()), (input(i), passive())])
                    .collect();
                definitions.push((source.clone(), Process::sequence(src_seq, Process::constant(&source))));
                let mut worker_terms = Vec::new();
                for i in 1..=nw {
                    let w = format!("Worker{n1}_{i}");
                    let proc_a = format!("process{n1}_{i}");
                    process_actions.push(proc_a.clone());
                    definitions.push((
                        w.clone(),
                        Process::sequence(
                            vec![(input(i), passive()), (proc_a, passive()), (output(i), passive())],
                            Process::constant(&w),
                        ),
                    ));
                    worker_terms.push(Process::constant(w));
                }
                let sink_seq = (1..=nw)
                    .flat_map(|i| [(output(i), passive()), (mv_out.clone(), passive())])
                    .collect();
                definitions.push((sink.clone(), Process::sequence(sink_seq, Process::constant(&sink))));
                let li: Vec<String> = (1..=nw).map(input).collect();
                let lo: Vec<String> = (1..=nw).map(output).collect();
                for i in 1..=nw {
                    network.push((input(i), format!("laI{n1}_{i}")));
                }
                for i in 1..=nw {
                    network.push((output(i), format!("laO{n1}_{i}")));
                }
                comm_actions.extend(li.iter().cloned());
                comm_actions.extend(lo.iter().cloned());
                let workers_par = Process::parallel_of(worker_terms).expect("a Deal has workers");
                let stage = Process::coop(
                    Process::coop(Process::constant(source), li, workers_par),
                    lo,
                    Process::constant(sink),
                );
                stage_terms.push(stage);
            }
        }
    }

    // Processors hosting at least one worker, in increasing order.
    let np = mapping.processors_needed();
    let mut processor_terms = Vec::new();
    for j in 0..np {
        let hosted: Vec<Process> = mapping
            .stages
            .iter()
            .enumerate()
            .flat_map(|(s, st)| st.workers().iter().enumerate().map(move |(i, &p)| (s, i, p)))
            .filter(|&(_, _, p)| p == j)
            .map(|(s, i, _)| {
                let name = format!("Processor{}", j + 1);
                Process::prefix(
                    format!("process{}_{}", s + 1, i + 1),
                    RateSpec::Param(format!("mu{}_{}", s + 1, i + 1)),
                    Process::constant(name),
                )
            })
            .collect();
        if let Some(body) = Process::choice_of(hosted) {
            let name = format!("Processor{}", j + 1);
            definitions.push((name.clone(), body));
            processor_terms.push(Process::constant(name));
        }
    }
    let network_body = Process::choice_of(
        network
            .into_iter()
            .map(|(a, r)| Process::prefix(a, RateSpec::Param(r), Process::constant("Network")))
            .collect(),
    )
    .expect("the network has move actions");
    definitions.insert(0, ("Network".to_string(), network_body));

    let mut stages = stage_terms.into_iter();
    let mut pipeline = stages.next().expect("at least one stage");
    for (k, st) in stages.enumerate() {
        pipeline = Process::coop(pipeline, vec![move_action(k + 1)], st);
    }
    let processors = Process::parallel_of(processor_terms).expect("some processor hosts a worker");
    let system = Process::coop(
        Process::coop(Process::constant("Network"), comm_actions, pipeline),
        process_actions,
        processors,
    );
    Ok(Model {
        params,
        definitions,
        system,
    })
}

/// A processor as AMoGeT sees it (§4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Processor {
    /// CPU frequency `cpu_j` in MHz.
    pub cpu_mhz: f64,
    /// Fraction `av_j` of the CPU available to a new process (from NWS).
    pub availability: f64,
}

/// The grid resources: processors (processor 0 is the reference processor) and the latency
/// matrix `la[i][j]` in milliseconds for a 1-byte message from `i` to `j`.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Processors.
    pub processors: Vec<Processor>,
    /// Latencies in ms; the diagonal is ignored.
    pub latency_ms: Vec<Vec<f64>>,
}

impl Grid {
    /// `n` identical processors with the same latency between every two of them.
    pub fn homogeneous(n: usize, cpu_mhz: f64, latency_ms: f64) -> Grid {
        Grid {
            processors: vec![
                Processor {
                    cpu_mhz,
                    availability: 1.0
                };
                n
            ],
            latency_ms: (0..n)
                .map(|i| (0..n).map(|j| if i == j { 0.0 } else { latency_ms }).collect())
                .collect(),
        }
    }

    /// The shape used to enumerate mappings up to relabelling.
    pub fn shape(&self) -> PlatformShape {
        let n = self.processors.len();
        PlatformShape {
            features: self
                .processors
                .iter()
                .map(|p| vec![p.cpu_mhz, p.availability])
                .collect(),
            link: (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| if i == j { 0.0 } else { self.latency_ms[i][j] })
                        .collect()
                })
                .collect(),
        }
    }
}

/// The application description (`mymodel.des`, §4.2).
#[derive(Clone, Debug, PartialEq)]
pub struct Application {
    /// `tr_s`: mean time in seconds for stage `s` to compute one output on processor 1.
    pub reference_times_s: Vec<f64>,
    /// `ds_s`, `s = 1..Ns+1`: size of the data sent to stage `s` (the last is the output).
    pub data_sizes: Vec<f64>,
}

/// The constants of §4.4.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateConstants {
    /// Latency of a transfer within one processor, ms (10⁻⁵).
    pub same_processor_latency_ms: f64,
    /// Rate standing for an instantaneous `move` next to a Deal (10⁹ per second, i.e. a
    /// latency of 10³/10⁹ = 10⁻⁶ ms).
    pub instant_rate: f64,
}

impl Default for RateConstants {
    fn default() -> Self {
        RateConstants {
            same_processor_latency_ms: 1e-5,
            instant_rate: 1e9,
        }
    }
}

fn validate(grid: &Grid, app: &Application, mapping: &Mapping) -> Result<(), ModelError> {
    let n = grid.processors.len();
    let ns = mapping.stages.len();
    let bad = |m: String| Err(ModelError::Invalid(m));
    if grid.latency_ms.len() != n || grid.latency_ms.iter().any(|r| r.len() != n) {
        return bad(format!("latency matrix must be {n}x{n}"));
    }
    if app.reference_times_s.len() != ns {
        return bad(format!(
            "{} reference times for {ns} stages",
            app.reference_times_s.len()
        ));
    }
    if app.data_sizes.len() != ns + 1 {
        return bad(format!(
            "{} data sizes for {ns} stages (need Ns+1)",
            app.data_sizes.len()
        ));
    }
    if mapping.processors_needed() > n {
        return bad(format!("mapping {mapping} uses a processor beyond the {n} given"));
    }
    if mapping.stages.iter().any(|s| s.workers().is_empty()) {
        return bad("a Deal needs at least one worker".into());
    }
    Ok(())
}

/// The rates of §4.4 for `mapping` on `grid`.
pub fn amoget_rates(
    grid: &Grid,
    app: &Application,
    mapping: &Mapping,
    k: &RateConstants,
) -> Result<PipelineRates, ModelError> {
    validate(grid, app, mapping)?;
    let ns = mapping.stages.len();
    let nb = mapping.workers_per_processor(grid.processors.len());
    let cpu1 = grid.processors[0].cpu_mhz;
    let la = |i: usize, j: usize| {
        if i == j {
            k.same_processor_latency_ms
        } else {
            grid.latency_ms[i][j]
        }
    };
    let instant_latency = 1e3 / k.instant_rate;

    let process = mapping
        .stages
        .iter()
        .enumerate()
        .map(|(s, st)| {
            st.workers()
                .iter()
                .map(|&j| {
                    let p = grid.processors[j];
                    p.availability / nb[j] as f64 * p.cpu_mhz / cpu1 / app.reference_times_s[s]
                })
                .collect()
        })
        .collect();

    let mut moves = vec![0.0; ns + 1];
    let mut inputs: Vec<Vec<f64>> = mapping
        .stages
        .iter()
        .map(|st| vec![0.0; if st.is_deal() { st.workers().len() } else { 0 }])
        .collect();
    let mut outputs = inputs.clone();
    for m in 0..=ns {
        let ds = app.data_sizes[m];
        let from = if m == 0 { None } else { Some(&mapping.stages[m - 1]) };
        let to = if m == ns { None } else { Some(&mapping.stages[m]) };
        let from_proc = from.map_or(mapping.input, |st| st.workers()[0]);
        let to_proc = to.map_or(mapping.output, |st| st.workers()[0]);
        match (from.filter(|st| st.is_deal()), to.filter(|st| st.is_deal())) {
            (None, None) => moves[m] = 1e3 / (ds * la(from_proc, to_proc)),
            (None, Some(deal)) => {
                moves[m] = k.instant_rate;
                for (i, &w) in deal.workers().iter().enumerate() {
                    inputs[m][i] = 1e3 / (ds * la(from_proc, w) - instant_latency);
                }
            }
            (Some(deal), None) => {
                moves[m] = k.instant_rate;
                for (i, &w) in deal.workers().iter().enumerate() {
                    outputs[m - 1][i] = 1e3 / (ds * la(w, to_proc) - instant_latency);
                }
            }
            (Some(d1), Some(d2)) => {
                moves[m] = k.instant_rate;
                let relay = d1.workers()[0];
                for (i, &w) in d1.workers().iter().enumerate() {
                    outputs[m - 1][i] = 1e3 / (ds * la(w, relay));
                }
                for (i, &w) in d2.workers().iter().enumerate() {
                    inputs[m][i] = 1e3 / (ds * la(relay, w) - instant_latency);
                }
            }
        }
    }
    Ok(PipelineRates {
        process,
        moves,
        inputs,
        outputs,
    })
}

/// The AMoGeT PEPA model of `mapping` (rates of §4.4, structure of Fig. 3).
pub fn amoget_model(grid: &Grid, app: &Application, mapping: &Mapping, k: &RateConstants) -> Result<Model, ModelError> {
    pipeline_model(mapping, &amoget_rates(grid, app, mapping, k)?)
}

/// Options for solving one model.
#[derive(Clone, Copy, Debug, Default)]
pub struct EvaluateOptions {
    /// State-space limits.
    pub derive: DeriveOptions,
    /// Steady-state solver.
    pub solve: SolveOptions,
}

/// Derives, solves and measures a pipeline model: throughput of `move1` per second.
pub fn evaluate_model(model: &Model, mapping: &Mapping, o: &EvaluateOptions) -> Result<MappingEvaluation, ModelError> {
    let ss = statespace::derive(model, &o.derive)?;
    let sol = ctmc::steady_state(&ss, &o.solve)?;
    let throughput = ctmc::throughput(&ss, &sol.probabilities, &move_action(0))?;
    Ok(MappingEvaluation {
        mapping: mapping.clone(),
        states: ss.n_states(),
        transitions: ss.n_transitions(),
        throughput,
    })
}

/// Builds and solves the AMoGeT model of one mapping. Pure: safe to call in parallel.
pub fn evaluate(
    grid: &Grid,
    app: &Application,
    mapping: &Mapping,
    k: &RateConstants,
    o: &EvaluateOptions,
) -> Result<MappingEvaluation, ModelError> {
    evaluate_model(&amoget_model(grid, app, mapping, k)?, mapping, o)
}

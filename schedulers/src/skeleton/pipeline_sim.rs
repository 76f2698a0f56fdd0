//! The Pipeline/Deal application of AMoGeT, run in the discrete-event engine, so that the
//! CTMC's throughput (§4.5) can be checked against simulation and the same application can be
//! run on a real platform model.
//!
//! **Structure.** The application is made of the sequential components of the PEPA model
//! (Fig. 3 of the AMoGeT paper), each a cyclic list of actions:
//! * a plain stage `s`: `move_s`, `process_s_1`, `move_{s+1}`;
//! * a Deal `s` with `Nw` workers: `Source_s` (`move_s`, `input_s_1`, `move_s`, `input_s_2`,
//!   …), `Worker_s_i` (`input_s_i`, `process_s_i`, `output_s_i`) and `Sink_s` (`output_s_1`,
//!   `move_{s+1}`, `output_s_2`, …): inputs are dealt to the workers in strict rotation and
//!   collected in the same order.
//!
//! An action starts when every component that has it in its alphabet is ready for it
//! (cooperation in PEPA: `move_{s+1}` joins stage `s` and stage `s+1`, `input_s_i` joins the
//! source and worker `i`, …) and, once started, keeps its participants until it completes.
//! So a stage hands an item on only when the next stage is free (no buffers: at most one item
//! per component), exactly as in the model. `move_1` (a new input) needs only the first stage,
//! `move_{Ns+1}` (an output leaving) only the last. Throughput is the rate of `move_1`
//! completions; each item is followed from `move_1` to `move_{Ns+1}` for its latency.
//!
//! **Model mode** ([`SimMode::Model`]) follows the CTMC's stochastic assumptions exactly: each
//! action is an engine sleep whose length is exponential with the action's PEPA rate (§4.4
//! rates, as [`super::amoget::amoget_rates`] computes them), or its mean `1/rate` with
//! [`ServiceDist::Deterministic`]. The `Network` and `Processor_j` components of Fig. 3 are
//! choices that return to themselves, so in the CTMC they never block: every enabled
//! communication proceeds at its own `λ`, and every enabled `process_s_i` at its own
//! `μ_s_i = av_j/nb_j · cpu_j/cpu_1 / tr_s` whatever the other workers of processor `j` are
//! doing — a *static* `1/nb_j` share of the processor, not processor sharing. Independent
//! sleeps reproduce both. All actions of a state race, and no action is ever disabled by
//! another one's completion (each participant can only leave its state by that action), so the
//! simulation is the CTMC's sample path: every structural detail of Fig. 3 is mirrored,
//! including the `10⁹`-rate `move` actions next to a Deal (sleeps of ~1 ns).
//!
//! **Realistic mode** ([`SimMode::Realistic`]) runs the same synchronisation structure with
//! real activities on the platform: processor `j` is engine host `hosts[j]`;
//! * `process_s_i` computes `tr_s · speed(hosts[0])` flops on its worker's host (times an
//!   exponential factor of mean 1 with [`ServiceDist::Exponential`]): `tr_s` is the stage's
//!   time on the reference processor. Co-located workers share the host's CPU dynamically
//!   (the engine's max-min sharing: a lone busy worker gets the whole core), and a slower or
//!   loaded host (speed profile) slows them down;
//! * the transfers are engine messages of `ds` bytes over the platform's links (latency,
//!   bandwidth, contention, the platform's network model), between the processors §4.4
//!   charges: `move_s` between two plain stages goes from `j_{s−1}` to `j_s`; into a Deal the
//!   cost is on `input_s_i` (from the previous stage's processor, or from the first worker of
//!   a preceding Deal, the relay of case C, to worker `i`) and `move_s` is instantaneous; out
//!   of a Deal it is on `output_s_i` (worker `i` to the next stage's processor, or to its own
//!   Deal's first worker when the next stage is a Deal too); the input data start on the
//!   mapping's input processor and the outputs end on its output processor. A transfer within
//!   one host crosses the engine's loopback.
//!
//! The realistic mode therefore differs from the CTMC by design: deterministic network
//! times, work-conserving CPU sharing and, with deterministic service, no service variance.

use std::collections::VecDeque;
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp1};
use sim_core::platform::{HostId, Platform};
use sim_core::{Application, Engine, Notification, Simulation, Tag};

use super::amoget::{Grid, PipelineRates, Processor};
use super::mapping::{Mapping, StageMapping};
use super::measure::{availability_at_start, batch_means, run_probes, Probe, RateEstimate};

/// How activities get their durations (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimMode {
    /// Every action is a sleep with the PEPA model's rate.
    Model,
    /// Transfers over the platform's links, computations on the hosts' CPUs.
    Realistic,
}

/// Distribution of service times: of every action in model mode, of the computations in
/// realistic mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceDist {
    /// Exponential with the given mean (PEPA's assumption).
    Exponential,
    /// Always the mean.
    Deterministic,
}

/// An action of Fig. 3, 0-based (`Move(0)` is the paper's `move_1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// `move_{m+1}`, `m = 0..=Ns`.
    Move(usize),
    /// `input_{s+1,i+1}` of a Deal.
    Input(usize, usize),
    /// `process_{s+1,i+1}`.
    Process(usize, usize),
    /// `output_{s+1,i+1}` of a Deal.
    Output(usize, usize),
}

/// What an action does in realistic mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// A message.
    Transfer {
        /// Sender host.
        src: HostId,
        /// Receiver host.
        dst: HostId,
        /// Bytes.
        bytes: f64,
    },
    /// A computation of `flops` on average.
    Compute {
        /// Host.
        host: HostId,
        /// Mean flops.
        flops: f64,
    },
    /// Nothing to do (a `move` next to a Deal, whose cost §4.4 puts on `input`/`output`).
    Instant,
}

/// One action with its model rate and its realistic work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActionSpec {
    /// Which action.
    pub kind: ActionKind,
    /// PEPA rate (per second).
    pub rate: f64,
    /// Realistic-mode work (when the platform's hosts are given).
    pub work: Work,
}

/// The application and how to run it.
#[derive(Clone, Debug)]
pub struct PipelineSim {
    /// Stages and workers on processors.
    pub mapping: Mapping,
    /// `tr_s`, seconds per item on the reference processor (processor 0).
    pub reference_times_s: Vec<f64>,
    /// `ds_s`, bytes sent to stage `s` (`Ns + 1` entries, the last being the output).
    pub data_sizes: Vec<f64>,
    /// The PEPA rates of the mapping (model mode).
    pub rates: PipelineRates,
    /// The engine host of each processor (realistic mode; may be empty in model mode).
    pub hosts: Vec<HostId>,
    /// Model or realistic.
    pub mode: SimMode,
    /// Service-time distribution.
    pub service: ServiceDist,
    /// Inputs admitted before the measurement window opens.
    pub warmup_items: u64,
    /// Inputs admitted during the measurement window (the run then drains).
    pub items: u64,
    /// Batches of the batch-means interval.
    pub batches: usize,
    /// Run seed; service times come from its `"service"` stream.
    pub seed: u64,
}

/// What a run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineOutcome {
    /// Rate of `move_1` over the window from the `warmup_items`-th input to the last one.
    pub throughput: RateEstimate,
    /// Outputs delivered (`move_{Ns+1}` completions).
    pub outputs: u64,
    /// Mean time from `move_1` to `move_{Ns+1}` of the items admitted after the warm-up.
    pub mean_latency_s: f64,
    /// Date the last output left.
    pub makespan_s: f64,
    /// Engine events processed.
    pub events: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Receive,
    Local,
    Send,
}

/// One sequential component of Fig. 3 (a stage, a Deal's source, worker or sink).
#[derive(Clone, Debug)]
pub(crate) struct Component {
    seq: Vec<(usize, Role)>,
    pos: usize,
    item: Option<u64>,
}

fn rate_of(rates: &PipelineRates, kind: ActionKind) -> Option<f64> {
    match kind {
        ActionKind::Move(m) => rates.moves.get(m).copied(),
        ActionKind::Input(s, i) => rates.inputs.get(s)?.get(i).copied(),
        ActionKind::Process(s, i) => rates.process.get(s)?.get(i).copied(),
        ActionKind::Output(s, i) => rates.outputs.get(s)?.get(i).copied(),
    }
}

impl PipelineSim {
    pub(crate) fn validate(&self, platform: &Platform) -> Result<(), String> {
        let ns = self.mapping.stages.len();
        if ns == 0 {
            return Err("a pipeline needs at least one stage".into());
        }
        if self.reference_times_s.len() != ns || self.data_sizes.len() != ns + 1 {
            return Err(format!(
                "{ns} stages need {ns} reference times and {} data sizes",
                ns + 1
            ));
        }
        if self.mapping.stages.iter().any(|s| s.workers().is_empty()) {
            return Err("a Deal needs at least one worker".into());
        }
        if self.items == 0 || self.batches < 2 {
            return Err("need at least one measured item and two batches".into());
        }
        if self.mode == SimMode::Realistic {
            let np = self.mapping.processors_needed();
            if self.hosts.len() < np {
                return Err(format!(
                    "mapping {} needs {np} hosts, {} given",
                    self.mapping,
                    self.hosts.len()
                ));
            }
            if let Some(h) = self.hosts.iter().find(|h| h.0 as usize >= platform.hosts.len()) {
                return Err(format!("host {} is not on the platform", h.0));
            }
            if self
                .reference_times_s
                .iter()
                .chain(&self.data_sizes)
                .any(|x| !(x.is_finite() && *x >= 0.0))
            {
                return Err("reference times and data sizes must be non-negative".into());
            }
        }
        Ok(())
    }

    /// The actions of the mapping with their rates and realistic work, and the components.
    pub(crate) fn build(&self, platform: &Platform) -> Result<(Vec<ActionSpec>, Vec<Component>), String> {
        let m = &self.mapping;
        let ns = m.stages.len();
        let realistic = self.mode == SimMode::Realistic;
        let host = |p: usize| if realistic { self.hosts[p] } else { HostId(0) };
        let ref_speed = if realistic {
            platform.host(self.hosts[0]).speed
        } else {
            0.0
        };
        let first = |s: usize| m.stages[s].workers()[0];
        // Processor the data of move m come from / go to, when the neighbour is plain or the
        // input/output data; a Deal neighbour's first worker is the relay of §4.4 case C.
        let from_proc = |mv: usize| if mv == 0 { m.input } else { first(mv - 1) };
        let to_proc = |mv: usize| if mv == ns { m.output } else { first(mv) };
        let is_deal = |s: Option<usize>| s.is_some_and(|s| m.stages[s].is_deal());

        let mut actions: Vec<ActionSpec> = Vec::new();
        let mut push = |kind: ActionKind, work: Work| -> Result<usize, String> {
            let rate = rate_of(&self.rates, kind).ok_or_else(|| format!("no rate for {kind:?}"))?;
            if self.mode == SimMode::Model && !(rate.is_finite() && rate > 0.0) {
                return Err(format!("rate of {kind:?} is {rate}, not a positive finite number"));
            }
            actions.push(ActionSpec { kind, rate, work });
            Ok(actions.len() - 1)
        };
        let mut moves = Vec::with_capacity(ns + 1);
        for mv in 0..=ns {
            let deal_side = is_deal(mv.checked_sub(1)) || is_deal((mv < ns).then_some(mv));
            let work = if deal_side {
                Work::Instant
            } else {
                Work::Transfer {
                    src: host(from_proc(mv)),
                    dst: host(to_proc(mv)),
                    bytes: self.data_sizes[mv],
                }
            };
            moves.push(push(ActionKind::Move(mv), work)?);
        }
        let mut comps = Vec::new();
        for (s, st) in m.stages.iter().enumerate() {
            let flops = self.reference_times_s[s] * ref_speed;
            match st {
                StageMapping::Single(p) => {
                    let proc_a = push(ActionKind::Process(s, 0), Work::Compute { host: host(*p), flops })?;
                    comps.push(Component {
                        seq: vec![
                            (moves[s], Role::Receive),
                            (proc_a, Role::Local),
                            (moves[s + 1], Role::Send),
                        ],
                        pos: 0,
                        item: None,
                    });
                }
                StageMapping::Deal(workers) => {
                    let src_proc = from_proc(s);
                    let dst_proc = if is_deal((s + 1 < ns).then_some(s + 1)) {
                        workers[0]
                    } else {
                        to_proc(s + 1)
                    };
                    let mut source = Vec::new();
                    let mut sink = Vec::new();
                    for (i, &w) in workers.iter().enumerate() {
                        let input = push(
                            ActionKind::Input(s, i),
                            Work::Transfer {
                                src: host(src_proc),
                                dst: host(w),
                                bytes: self.data_sizes[s],
                            },
                        )?;
                        let proc_a = push(ActionKind::Process(s, i), Work::Compute { host: host(w), flops })?;
                        let output = push(
                            ActionKind::Output(s, i),
                            Work::Transfer {
                                src: host(w),
                                dst: host(dst_proc),
                                bytes: self.data_sizes[s + 1],
                            },
                        )?;
                        source.extend([(moves[s], Role::Receive), (input, Role::Send)]);
                        sink.extend([(output, Role::Receive), (moves[s + 1], Role::Send)]);
                        comps.push(Component {
                            seq: vec![(input, Role::Receive), (proc_a, Role::Local), (output, Role::Send)],
                            pos: 0,
                            item: None,
                        });
                    }
                    comps.push(Component {
                        seq: source,
                        pos: 0,
                        item: None,
                    });
                    comps.push(Component {
                        seq: sink,
                        pos: 0,
                        item: None,
                    });
                }
            }
        }
        Ok((actions, comps))
    }

    /// The actions of this application (kind, PEPA rate, realistic work), in a fixed order.
    pub fn actions(&self, platform: &Platform) -> Result<Vec<ActionSpec>, String> {
        self.validate(platform)?;
        Ok(self.build(platform)?.0)
    }
}

/// Kind code of the pipeline's [`Tag`]s, whose index is the action. An application that runs a
/// pipeline beside activities of its own ([`super::adaptive`]'s timer) tags those with another.
pub(crate) const ACTION: u8 = 0;

/// The application on the engine. [`super::adaptive`] drives it too: it can hold new inputs
/// back ([`PipelineApp::hold`]) and, once the pipeline is empty, replace the mapping's actions
/// and components ([`PipelineApp::replace`]) while keeping the items' record and the service
/// stream.
pub(crate) struct PipelineApp {
    actions: Vec<ActionSpec>,
    /// Participants of each action: (component, role).
    parts: Vec<Vec<(usize, Role)>>,
    running: Vec<bool>,
    comps: Vec<Component>,
    mode: SimMode,
    service: ServiceDist,
    rng: ChaCha8Rng,
    /// Index of `move_1`.
    first_move: usize,
    admitted: u64,
    limit: u64,
    warmup: u64,
    arrivals: Vec<f64>,
    entry: Vec<f64>,
    outputs: u64,
    latency_sum: f64,
    latency_n: u64,
    last_output: f64,
    instant: VecDeque<usize>,
    error: Option<String>,
    /// When set, `move_1` does not start (no new input enters).
    hold: bool,
    /// Date of each output (`move_{Ns+1}` completion).
    departures: Vec<f64>,
}

impl PipelineApp {
    fn participants(actions: &[ActionSpec], comps: &[Component]) -> Vec<Vec<(usize, Role)>> {
        let mut parts = vec![Vec::new(); actions.len()];
        for (c, comp) in comps.iter().enumerate() {
            for &(a, role) in &comp.seq {
                if !parts[a].iter().any(|&(pc, _)| pc == c) {
                    parts[a].push((c, role));
                }
            }
        }
        parts
    }

    fn first_move_of(actions: &[ActionSpec]) -> usize {
        actions
            .iter()
            .position(|a| a.kind == ActionKind::Move(0))
            .expect("move_1 exists")
    }

    pub(crate) fn new(cfg: &PipelineSim, actions: Vec<ActionSpec>, comps: Vec<Component>) -> PipelineApp {
        PipelineApp {
            first_move: Self::first_move_of(&actions),
            running: vec![false; actions.len()],
            parts: Self::participants(&actions, &comps),
            actions,
            comps,
            mode: cfg.mode,
            service: cfg.service,
            rng: sim_core::rng::stream(cfg.seed, "service"),
            admitted: 0,
            limit: cfg.warmup_items + cfg.items,
            warmup: cfg.warmup_items,
            arrivals: Vec::with_capacity((cfg.warmup_items + cfg.items) as usize),
            entry: Vec::with_capacity((cfg.warmup_items + cfg.items) as usize),
            outputs: 0,
            latency_sum: 0.0,
            latency_n: 0,
            last_output: 0.0,
            instant: VecDeque::new(),
            error: None,
            hold: false,
            departures: Vec::with_capacity((cfg.warmup_items + cfg.items) as usize),
        }
    }

    /// Stops (`true`) or resumes (`false`) admitting new inputs. Resuming does not start
    /// `move_1` by itself: call [`PipelineApp::restart`].
    pub(crate) fn hold(&mut self, on: bool) {
        self.hold = on;
    }

    /// Items admitted (`move_1` started) and not yet delivered.
    pub(crate) fn in_flight(&self) -> u64 {
        self.admitted - self.outputs
    }

    /// True once every input has been admitted.
    pub(crate) fn all_admitted(&self) -> bool {
        self.admitted >= self.limit
    }

    /// Completion dates of `move_1` (inputs entering) so far.
    pub(crate) fn arrivals(&self) -> &[f64] {
        &self.arrivals
    }

    /// Completion dates of `move_{Ns+1}` (outputs leaving) so far.
    pub(crate) fn departures(&self) -> &[f64] {
        &self.departures
    }

    /// Replaces the mapping's actions and components. Only valid when the pipeline is empty and
    /// no action runs (every component then waits for a new item, whatever its position).
    pub(crate) fn replace(&mut self, actions: Vec<ActionSpec>, comps: Vec<Component>) -> Result<(), String> {
        if self.in_flight() != 0 || self.running.iter().any(|&r| r) || !self.instant.is_empty() {
            return Err("the mapping can only change when the pipeline is empty".into());
        }
        self.first_move = Self::first_move_of(&actions);
        self.running = vec![false; actions.len()];
        self.parts = Self::participants(&actions, &comps);
        self.actions = actions;
        self.comps = comps;
        Ok(())
    }

    /// Starts every enabled action (as at time 0).
    pub(crate) fn restart(&mut self, engine: &mut Engine) {
        for a in 0..self.actions.len() {
            self.try_start(engine, a);
        }
        self.pump(engine);
    }

    /// The run's measurements once it has ended (see [`simulate`]).
    pub(crate) fn outcome(&mut self, events: u64, batches: usize) -> Result<PipelineOutcome, String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.arrivals.len() as u64 != self.limit || self.outputs != self.limit {
            return Err(format!(
                "the pipeline stalled: {} inputs, {} outputs of {}",
                self.arrivals.len(),
                self.outputs,
                self.limit
            ));
        }
        let start = if self.warmup == 0 {
            0.0
        } else {
            self.arrivals[self.warmup as usize - 1]
        };
        let end = *self.arrivals.last().expect("at least one item");
        let throughput = batch_means(&self.arrivals, start, end, batches)?;
        Ok(PipelineOutcome {
            throughput,
            outputs: self.outputs,
            mean_latency_s: self.latency_sum / self.latency_n.max(1) as f64,
            makespan_s: self.last_output,
            events,
        })
    }

    fn factor(&mut self) -> f64 {
        match self.service {
            ServiceDist::Exponential => Exp1.sample(&mut self.rng),
            ServiceDist::Deterministic => 1.0,
        }
    }

    fn enabled(&self, a: usize) -> bool {
        !self.running[a]
            && (a != self.first_move || (self.admitted < self.limit && !self.hold))
            && self.parts[a].iter().all(|&(c, _)| {
                let comp = &self.comps[c];
                comp.seq[comp.pos].0 == a
            })
    }

    fn try_start(&mut self, engine: &mut Engine, a: usize) {
        if !self.enabled(a) {
            return;
        }
        self.running[a] = true;
        if a == self.first_move {
            self.admitted += 1;
        }
        let spec = self.actions[a];
        let tag = Tag::new(a, ACTION).into();
        match self.mode {
            SimMode::Model => {
                let d = self.factor() / spec.rate;
                engine.sleep(d, tag);
            }
            SimMode::Realistic => match spec.work {
                Work::Instant => self.instant.push_back(a),
                Work::Transfer { src, dst, bytes } => {
                    if let Err(e) = engine.start_comm(src, dst, bytes, tag) {
                        self.error.get_or_insert_with(|| e.to_string());
                    }
                }
                Work::Compute { host, flops } => {
                    let f = flops * self.factor();
                    engine.start_exec(host, f, tag);
                }
            },
        }
    }

    fn finish(&mut self, engine: &mut Engine, a: usize) {
        let now = engine.now().secs();
        self.running[a] = false;
        let parts = self.parts[a].clone();
        let sender = parts.iter().find(|p| p.1 == Role::Send).map(|p| p.0);
        let receiver = parts.iter().find(|p| p.1 == Role::Receive).map(|p| p.0);
        let item = match sender {
            Some(c) => self.comps[c].item.take(),
            None if receiver.is_some() => {
                // move_1: a new input enters.
                self.arrivals.push(now);
                self.entry.push(now);
                Some(self.entry.len() as u64 - 1)
            }
            None => None,
        };
        match receiver {
            Some(c) => self.comps[c].item = item,
            None if sender.is_some() => {
                // move_{Ns+1}: an output leaves.
                self.outputs += 1;
                self.last_output = now;
                self.departures.push(now);
                if let Some(id) = item {
                    if id >= self.warmup {
                        self.latency_sum += now - self.entry[id as usize];
                        self.latency_n += 1;
                    }
                }
            }
            None => {}
        }
        for &(c, _) in &parts {
            let comp = &mut self.comps[c];
            comp.pos = (comp.pos + 1) % comp.seq.len();
        }
        for &(c, _) in &parts {
            let next = self.comps[c].seq[self.comps[c].pos].0;
            self.try_start(engine, next);
        }
    }

    fn pump(&mut self, engine: &mut Engine) {
        while let Some(a) = self.instant.pop_front() {
            self.finish(engine, a);
        }
    }
}

impl Application for PipelineApp {
    fn start(&mut self, engine: &mut Engine) {
        self.restart(engine);
    }

    fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
        match note {
            Notification::Completed { tag, .. } => {
                self.finish(engine, Tag::from(tag).index());
                self.pump(engine);
            }
            Notification::Failed { tag, cause, .. } => {
                self.error.get_or_insert_with(|| {
                    format!("{:?} failed: {cause:?}", self.actions[Tag::from(tag).index()].kind)
                });
            }
        }
    }
}

/// Runs the application on `platform` until `warmup_items + items` inputs have entered and
/// every admitted item has left, and measures its throughput (module docs).
pub fn simulate(platform: Arc<Platform>, cfg: &PipelineSim) -> Result<PipelineOutcome, String> {
    cfg.validate(&platform)?;
    let (actions, comps) = cfg.build(&platform)?;
    let engine = Engine::new(Arc::clone(&platform)).map_err(|e| e.to_string())?;
    let mut sim = Simulation::new(engine, PipelineApp::new(cfg, actions, comps));
    sim.run();
    let events = sim.steps();
    sim.app.outcome(events, cfg.batches)
}

/// Measures the AMoGeT view of `hosts` on a platform, as NWS and `/proc/cpuinfo` give it
/// (§4.3): `cpu_j` is the host's peak speed in Mflop/s, `av_j` the fraction of it available at
/// time 0 ([`availability_at_start`]), and `la_ij` the simulated time, in milliseconds, of a
/// `probe_bytes`-byte message from host `i` to host `j` sent alone ([`run_probes`]).
pub fn measure_grid(platform: &Arc<Platform>, hosts: &[HostId], probe_bytes: f64) -> Result<Grid, String> {
    let n = hosts.len();
    let av = availability_at_start(platform, hosts)?;
    let mut probes = Vec::new();
    for &a in hosts {
        for &b in hosts {
            if a != b {
                probes.push(Probe::Message {
                    src: a,
                    dst: b,
                    bytes: probe_bytes,
                });
            }
        }
    }
    let times = run_probes(Arc::clone(platform), &probes)?;
    let mut latency_ms = vec![vec![0.0; n]; n];
    let mut k = 0;
    for (i, row) in latency_ms.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            if hosts[i] != hosts[j] {
                *cell = times[k] * 1e3;
                k += 1;
            }
        }
    }
    Ok(Grid {
        processors: hosts
            .iter()
            .zip(&av)
            .map(|(&h, &availability)| Processor {
                cpu_mhz: platform.host(h).speed / 1e6,
                availability,
            })
            .collect(),
        latency_ms,
    })
}

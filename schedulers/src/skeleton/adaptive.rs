//! Adaptive AMoGeT: NWS-style monitoring during the run and periodic re-mapping of the running
//! Pipeline/Deal application.
//!
//! The AMoGeT paper (Benoit, Cole, Gilmore & Hillston) presents the tool as "a generic analysis
//! component" whose "ultimate role will be as an integrated component of a run-time scheduler
//! and re-scheduler, adapting the mapping from application to resources in response to changes
//! in resource availability and performance" (§4.1); the NWS measurements should be made
//! "once per hour or so, and then run AMoGeT to find out if a better scheduling should be
//! adopted" (§5.2); and skeletons let the application "reconfigure and redeploy on-the-fly"
//! (§1). This module is that loop, on the engine, around the realistic-mode application of
//! [`super::pipeline_sim`]:
//!
//! 1. **Monitoring.** Every `sample_period_s` seconds from date 0, one sample per series:
//!    * `av_j` of each processor: the host's current speed over its peak
//!      ([`Engine::host_speed`]), i.e. the fraction of the CPU a newly started process would
//!      get (§4.3's NWS CPU sensor). The application's own workers are not counted as load:
//!      §4.4 accounts for them separately through `nb_j`;
//!    * `la_ij` of each ordered pair of distinct processors, in milliseconds: the simulated time
//!      of a `probe_bytes` message (NWS's 1-byte TCP message) sent from `i` to `j` at the
//!      sample date on its own — on a fresh engine over the same platform, advanced to that
//!      date so that every profile (latency, bandwidth, state) is in force
//!      ([`probe_latency_at`]). *Interpretation:* the sensor is idealised as non-intrusive, so
//!      monitoring never perturbs the application: a run that never re-maps is the static run
//!      event for event.
//!
//!    Each series feeds its own NWS battery ([`super::nws`]).
//! 2. **Forecasts.** At a decision date the forecast of a series is
//!    [`nws_forecast`] of everything recorded so far (the sample of that date included): the
//!    forecast of the forecaster with the least cumulative error (MSE or MAE, the `metric`).
//!    The forecast grid is `cpu_j` = peak speed in MHz (the `/proc/cpuinfo` frequency, constant)
//!    with the forecast `av_j` and `la_ij`.
//! 3. **Decisions.** At date 0 and every `remap_period_s` seconds (a multiple of the sample
//!    period), the §4.4 rates are built from the forecast grid, the CTMC of every candidate
//!    mapping is solved (a list, or the enumeration of a stage shape up to relabelling of the
//!    processors that are interchangeable *under the forecasts*), and the candidates are ranked
//!    (§4.6). At date 0 the best one is deployed. Later, the running mapping is evaluated under
//!    the same forecasts and the application switches to the best candidate when its CTMC
//!    throughput exceeds the running mapping's by more than the relative `min_gain` (and by
//!    more than a 10⁻⁹ tie tolerance). A candidate whose rates are not positive (a processor
//!    forecast at availability 0) gets throughput 0. No decision is taken once every input has
//!    been admitted, nor while a switch is pending.
//! 4. **Switching, and items in flight.** The paper does not say how a running pipeline moves
//!    to a new mapping. *Interpretation (drain and refill):* once a switch is decided, no new
//!    input enters (`move_1` is held); the items already inside finish their remaining stages
//!    on the old mapping's processors; when the last of them has left, the new mapping's stages
//!    and Deal workers are set up empty (a Deal restarts its rotation at worker 1) and inputs
//!    enter again. No item is lost, duplicated or reordered, and the cost of a switch — the
//!    pipeline's drain and refill bubble — is paid in simulated time. The service-time stream
//!    continues, so runs stay reproducible.
//!
//! **Reaction time.** Let the availability of a processor step from `1` to `a ≠ 1` at a date
//! `D` after a constant history, samples at `kΔ`, decisions at `kP` (`P = mΔ`). Before `D`
//! every forecaster of the battery predicts exactly `1` (a constant series) with error 0. At the
//! first sample after `D` each has predicted `1`, so all have the same cumulative error
//! `(1−a)²` (or `|1−a|`) and the tie goes to the first forecaster of the battery: with
//! [`super::nws::default_battery`], last value, which forecasts `a`. From then on last value
//! predicts each later sample exactly while every other forecaster errs at least once more, so
//! it stays selected. The forecasters' lag is therefore zero samples beyond the first sample
//! after `D`, and the decision that sees the drop is the first decision date `⌈D/P⌉·P` (strictly
//! after `D` when `D` is not a sample date), within one period `P` of the drop. A battery whose
//! first forecaster is the running mean instead lags one more sample (it still predicts about
//! `1` on the first tie). The switch then takes effect after the drain, at most the time the
//! items in flight need to leave.

use std::sync::Arc;

use sim_core::platform::{HostId, Platform};
use sim_core::{Application, Engine, Notification, SimTime, Simulation, Tag};

use super::amoget::{
    self, amoget_rates, Application as AppDescription, EvaluateOptions, Grid, Processor, RateConstants,
};
use super::mapping::{enumerate_mappings, rank, Mapping, MappingEvaluation};
use super::nws::{nws_forecast, ErrorMetric, Forecaster};
use super::pipeline_sim::{PipelineApp, PipelineOutcome, PipelineSim, ServiceDist, SimMode, ACTION};
use super::ModelError;

/// Relative tolerance under which two CTMC throughputs are a tie.
const TIE: f64 = 1e-9;

/// Tag of the monitoring timer: a kind the pipeline's tags (all [`ACTION`]) never have.
const TIMER: Tag = Tag::new(0, ACTION + 1);

/// The mappings compared at each decision.
#[derive(Clone, Debug, PartialEq)]
pub enum Candidates {
    /// A fixed list.
    List(Vec<Mapping>),
    /// Every mapping of a stage shape up to relabelling ([`enumerate_mappings`]), enumerated
    /// again at each decision on the forecast grid.
    Enumerate {
        /// `0` for a plain stage, `k ≥ 1` for a Deal of `k` workers.
        shape: Vec<usize>,
        /// Processor of the input data (0-based).
        input: usize,
        /// Processor of the output data (0-based).
        output: usize,
        /// Enumeration limit.
        limit: usize,
    },
}

impl Candidates {
    /// The candidate mappings on `grid`.
    pub fn mappings(&self, grid: &Grid) -> Result<Vec<Mapping>, String> {
        match self {
            Candidates::List(ms) => Ok(ms.clone()),
            Candidates::Enumerate {
                shape,
                input,
                output,
                limit,
            } => enumerate_mappings(&grid.shape(), shape, *input, *output, *limit).map_err(|e| e.to_string()),
        }
    }
}

/// How the run is monitored and forecast.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorConfig {
    /// Seconds between two samples of every series (the NWS sensors' period).
    pub sample_period_s: f64,
    /// Size of the latency probe messages, bytes (NWS: 1).
    pub probe_bytes: f64,
    /// The forecasters run on every series.
    pub battery: Vec<Forecaster>,
    /// The cumulative error that selects the forecaster.
    pub metric: ErrorMetric,
}

/// The adaptive run: the application, its candidates, monitoring and re-mapping policy.
#[derive(Clone, Debug)]
pub struct AdaptiveSim {
    /// `tr_s` and `ds_s` (§4.2).
    pub app: AppDescription,
    /// Engine host of each processor (processor 0 is the reference processor).
    pub hosts: Vec<HostId>,
    /// The mappings compared at each decision.
    pub candidates: Candidates,
    /// Service times of the computations (realistic mode).
    pub service: ServiceDist,
    /// Inputs admitted before the measurement window opens.
    pub warmup_items: u64,
    /// Inputs admitted during the measurement window.
    pub items: u64,
    /// Batches of the batch-means interval.
    pub batches: usize,
    /// Run seed (service times, as in [`super::pipeline_sim`]).
    pub seed: u64,
    /// Sensors and forecasters.
    pub monitor: MonitorConfig,
    /// Seconds between two re-mapping decisions, a multiple of the sample period; `None`:
    /// decide once, at date 0 (static AMoGeT).
    pub remap_period_s: Option<f64>,
    /// Relative CTMC gain a candidate needs over the running mapping to be deployed.
    pub min_gain: f64,
    /// The constants of §4.4.
    pub constants: RateConstants,
    /// CTMC options.
    pub evaluate: EvaluateOptions,
}

/// Everything the sensors measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MonitorRecord {
    /// Sample dates, seconds.
    pub dates: Vec<f64>,
    /// `availability[j][k]`: `av_j` at sample `k`.
    pub availability: Vec<Vec<f64>>,
    /// `latency_ms[i][j][k]`: `la_ij` at sample `k`, ms (empty when `i = j`).
    pub latency_ms: Vec<Vec<Vec<f64>>>,
}

/// One decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Date, seconds.
    pub date_s: f64,
    /// Samples the forecasts used (the first `samples` of the record).
    pub samples: usize,
    /// The forecast grid the rates were built from.
    pub grid: Grid,
    /// The running mapping and its CTMC throughput under the forecasts (`None` at date 0).
    pub current: Option<(Mapping, f64)>,
    /// The best candidate.
    pub best: MappingEvaluation,
    /// Number of candidates solved.
    pub candidates: usize,
    /// Whether the best candidate is deployed (always at date 0).
    pub deploy: bool,
}

/// One change of mapping.
#[derive(Clone, Debug, PartialEq)]
pub struct Switch {
    /// Date of the decision, seconds.
    pub decided_s: f64,
    /// Date the new mapping took over (the pipeline was empty), seconds.
    pub effective_s: f64,
    /// Old mapping.
    pub from: Mapping,
    /// New mapping.
    pub to: Mapping,
    /// CTMC throughput of the old mapping under the decision's forecasts.
    pub predicted_old: f64,
    /// CTMC throughput of the new mapping under the decision's forecasts.
    pub predicted_new: f64,
    /// Inputs admitted before the switch.
    pub items_before: u64,
}

/// What an adaptive run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaptiveOutcome {
    /// The same measurements as a static run.
    pub outcome: PipelineOutcome,
    /// Completion dates of `move_1` (inputs entering).
    pub arrivals: Vec<f64>,
    /// Completion dates of `move_{Ns+1}` (outputs leaving).
    pub departures: Vec<f64>,
    /// Every decision, in date order (the first at date 0).
    pub decisions: Vec<Decision>,
    /// Every completed change of mapping.
    pub switches: Vec<Switch>,
    /// The sensors' series.
    pub record: MonitorRecord,
    /// The mapping deployed at date 0.
    pub initial: Mapping,
    /// The mapping running at the end.
    pub last: Mapping,
}

/// Rate of the events of `dates` in `[from, to)`, per second (0 for an empty interval).
pub fn rate_in(dates: &[f64], from: f64, to: f64) -> f64 {
    if to <= from {
        return 0.0;
    }
    dates.iter().filter(|&&d| d >= from && d < to).count() as f64 / (to - from)
}

/// Duration of a `bytes` message from `src` to `dst` sent on its own at `date` on a fresh
/// engine over `platform` (every profile event up to `date` applied), seconds.
pub fn probe_latency_at(
    platform: &Arc<Platform>,
    src: HostId,
    dst: HostId,
    bytes: f64,
    date: f64,
) -> Result<f64, String> {
    let mut engine = Engine::new(Arc::clone(platform)).map_err(|e| e.to_string())?;
    let at = SimTime::from_secs(date);
    while engine.next_notification_until(at).is_some() {}
    engine.start_comm(src, dst, bytes, 0).map_err(|e| e.to_string())?;
    match engine.next_notification() {
        Some(Notification::Completed { .. }) => Ok(engine.now().secs() - date),
        Some(Notification::Failed { cause, .. }) => Err(format!("latency probe failed: {cause:?}")),
        None => Err("latency probe did not complete".into()),
    }
}

/// The forecast grid from the first `samples` samples of `record` (module docs, step 2).
pub fn forecast_grid(
    record: &MonitorRecord,
    samples: usize,
    cpu_mhz: &[f64],
    battery: &[Forecaster],
    metric: ErrorMetric,
) -> Result<Grid, String> {
    let fc = |series: &[f64]| -> Result<f64, String> {
        let upto = samples.min(series.len());
        nws_forecast(&series[..upto], battery, metric)
            .map(|f| f.forecast)
            .ok_or_else(|| "no sample or no forecaster to forecast from".to_string())
    };
    let processors = record
        .availability
        .iter()
        .zip(cpu_mhz)
        .map(|(series, &cpu_mhz)| {
            Ok(Processor {
                cpu_mhz,
                availability: fc(series)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let latency_ms = record
        .latency_ms
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, series)| {
                    if i == j || series.is_empty() {
                        Ok(0.0)
                    } else {
                        fc(series)
                    }
                })
                .collect::<Result<Vec<_>, String>>()
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Grid { processors, latency_ms })
}

/// The CTMC throughput of `mapping` on `grid`; 0 when a rate is not positive (module docs).
fn evaluate_or_zero(
    grid: &Grid,
    app: &AppDescription,
    mapping: &Mapping,
    k: &RateConstants,
    o: &EvaluateOptions,
) -> Result<MappingEvaluation, String> {
    match amoget::evaluate(grid, app, mapping, k, o) {
        Ok(e) => Ok(e),
        Err(ModelError::BadRate { .. }) => Ok(MappingEvaluation {
            mapping: mapping.clone(),
            states: 0,
            transitions: 0,
            throughput: 0.0,
        }),
        Err(e) => Err(format!("mapping {mapping}: {e}")),
    }
}

/// Solves every candidate on `grid` and ranks them (§4.6): the evaluations, best first.
pub fn rank_candidates(
    grid: &Grid,
    app: &AppDescription,
    candidates: &Candidates,
    k: &RateConstants,
    o: &EvaluateOptions,
) -> Result<Vec<MappingEvaluation>, String> {
    let evals = candidates
        .mappings(grid)?
        .iter()
        .map(|m| evaluate_or_zero(grid, app, m, k, o))
        .collect::<Result<Vec<_>, _>>()?;
    if evals.is_empty() {
        return Err("no candidate mapping".into());
    }
    let order = rank(&evals, TIE);
    Ok(order.into_iter().map(|i| evals[i].clone()).collect())
}

struct Pending {
    decided_s: f64,
    to: Mapping,
    predicted_old: f64,
    predicted_new: f64,
}

struct AdaptiveApp {
    cfg: AdaptiveSim,
    platform: Arc<Platform>,
    cpu_mhz: Vec<f64>,
    /// Decisions every `remap_every` samples (0: only at date 0).
    remap_every: u64,
    tick: u64,
    pipe: Option<PipelineApp>,
    current: Option<Mapping>,
    initial: Option<Mapping>,
    pending: Option<Pending>,
    record: MonitorRecord,
    decisions: Vec<Decision>,
    switches: Vec<Switch>,
    /// The last forecast grid and its ranking (a decision on an equal grid reuses it).
    cache: Option<(Grid, Vec<MappingEvaluation>)>,
    error: Option<String>,
}

impl AdaptiveApp {
    fn sample(&mut self, engine: &Engine) -> Result<(), String> {
        let now = engine.now().secs();
        self.record.dates.push(now);
        let hosts = &self.cfg.hosts;
        for (j, &h) in hosts.iter().enumerate() {
            let av = engine.host_speed(h) / self.platform.host(h).speed;
            self.record.availability[j].push(av);
        }
        for (i, &a) in hosts.iter().enumerate() {
            for (j, &b) in hosts.iter().enumerate() {
                if i != j && a != b {
                    let t = probe_latency_at(&self.platform, a, b, self.cfg.monitor.probe_bytes, now)?;
                    self.record.latency_ms[i][j].push(t * 1e3);
                }
            }
        }
        Ok(())
    }

    fn pipeline_cfg(&self, mapping: &Mapping, grid: &Grid) -> Result<PipelineSim, String> {
        Ok(PipelineSim {
            mapping: mapping.clone(),
            reference_times_s: self.cfg.app.reference_times_s.clone(),
            data_sizes: self.cfg.app.data_sizes.clone(),
            rates: amoget_rates(grid, &self.cfg.app, mapping, &self.cfg.constants).map_err(|e| e.to_string())?,
            hosts: self.cfg.hosts.clone(),
            mode: SimMode::Realistic,
            service: self.cfg.service,
            warmup_items: self.cfg.warmup_items,
            items: self.cfg.items,
            batches: self.cfg.batches,
            seed: self.cfg.seed,
        })
    }

    fn decide(&mut self, engine: &mut Engine) -> Result<(), String> {
        let now = engine.now().secs();
        let samples = self.record.dates.len();
        let m = &self.cfg.monitor;
        let grid = forecast_grid(&self.record, samples, &self.cpu_mhz, &m.battery, m.metric)?;
        let ranked = match &self.cache {
            Some((g, r)) if *g == grid => r.clone(),
            _ => {
                let r = rank_candidates(
                    &grid,
                    &self.cfg.app,
                    &self.cfg.candidates,
                    &self.cfg.constants,
                    &self.cfg.evaluate,
                )?;
                self.cache = Some((grid.clone(), r.clone()));
                r
            }
        };
        let best = ranked[0].clone();
        let Some(current) = self.current.clone() else {
            // Date 0: deploy the best candidate.
            let cfg = self.pipeline_cfg(&best.mapping, &grid)?;
            cfg.validate(&self.platform)?;
            let (actions, comps) = cfg.build(&self.platform)?;
            let mut pipe = PipelineApp::new(&cfg, actions, comps);
            pipe.restart(engine);
            self.pipe = Some(pipe);
            self.current = Some(best.mapping.clone());
            self.initial = Some(best.mapping.clone());
            self.decisions.push(Decision {
                date_s: now,
                samples,
                grid,
                current: None,
                candidates: ranked.len(),
                best,
                deploy: true,
            });
            return Ok(());
        };
        let cur_tp = match ranked.iter().find(|e| e.mapping == current) {
            Some(e) => e.throughput,
            None => {
                evaluate_or_zero(&grid, &self.cfg.app, &current, &self.cfg.constants, &self.cfg.evaluate)?.throughput
            }
        };
        let deploy = best.throughput > cur_tp * (1.0 + self.cfg.min_gain.max(TIE)) && best.mapping != current;
        if deploy {
            self.pending = Some(Pending {
                decided_s: now,
                to: best.mapping.clone(),
                predicted_old: cur_tp,
                predicted_new: best.throughput,
            });
            if let Some(p) = self.pipe.as_mut() {
                p.hold(true);
            }
        }
        self.decisions.push(Decision {
            date_s: now,
            samples,
            grid,
            current: Some((current, cur_tp)),
            candidates: ranked.len(),
            best,
            deploy,
        });
        self.try_switch(engine)
    }

    /// Performs a pending switch once the pipeline is empty.
    fn try_switch(&mut self, engine: &mut Engine) -> Result<(), String> {
        let ready = self.pending.is_some() && self.pipe.as_ref().is_some_and(|p| p.in_flight() == 0);
        if !ready {
            return Ok(());
        }
        let pending = self.pending.take().expect("checked");
        let grid = self
            .decisions
            .last()
            .map(|d| d.grid.clone())
            .expect("a switch follows a decision");
        let cfg = self.pipeline_cfg(&pending.to, &grid)?;
        cfg.validate(&self.platform)?;
        let (actions, comps) = cfg.build(&self.platform)?;
        let pipe = self.pipe.as_mut().expect("checked");
        pipe.replace(actions, comps)?;
        pipe.hold(false);
        self.switches.push(Switch {
            decided_s: pending.decided_s,
            effective_s: engine.now().secs(),
            from: self.current.replace(pending.to.clone()).expect("a mapping runs"),
            to: pending.to,
            predicted_old: pending.predicted_old,
            predicted_new: pending.predicted_new,
            items_before: pipe.arrivals().len() as u64,
        });
        pipe.restart(engine);
        Ok(())
    }

    fn on_timer(&mut self, engine: &mut Engine) -> Result<(), String> {
        self.sample(engine)?;
        let k = self.tick;
        self.tick += 1;
        let admitting = |s: &Self| s.pipe.as_ref().is_some_and(|p| !p.all_admitted());
        // Date 0 deploys; later decision dates may re-map.
        let initial = k == 0;
        let remap_date = self.remap_every > 0 && k % self.remap_every == 0;
        if initial || (remap_date && self.pending.is_none() && admitting(self)) {
            self.decide(engine)?;
        }
        if self.remap_every > 0 && (admitting(self) || self.pending.is_some()) {
            let next = self.tick as f64 * self.cfg.monitor.sample_period_s;
            engine.sleep(next - engine.now().secs(), TIMER.into());
        }
        Ok(())
    }
}

impl Application for AdaptiveApp {
    fn start(&mut self, engine: &mut Engine) {
        // The first sample waits for the profile values of date 0 (scheduled before it).
        engine.sleep(0.0, TIMER.into());
    }

    fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
        let result = match note {
            Notification::Completed { tag, .. } if Tag::from(tag) == TIMER => self.on_timer(engine),
            Notification::Failed { tag, cause, .. } if Tag::from(tag) == TIMER => {
                Err(format!("monitoring timer failed: {cause:?}"))
            }
            note => match self.pipe.as_mut() {
                Some(p) => {
                    p.on_notification(engine, note);
                    self.try_switch(engine)
                }
                None => Err("a notification came before the pipeline started".into()),
            },
        };
        if let Err(e) = result {
            self.error.get_or_insert(e);
        }
    }
}

impl AdaptiveSim {
    fn check(&self, platform: &Platform) -> Result<u64, String> {
        let n = self.hosts.len();
        if n == 0 {
            return Err("no processor".into());
        }
        if let Some(h) = self.hosts.iter().find(|h| h.0 as usize >= platform.hosts.len()) {
            return Err(format!("host {} is not on the platform", h.0));
        }
        let m = &self.monitor;
        if !(m.sample_period_s.is_finite() && m.sample_period_s > 0.0) {
            return Err(format!("the sample period must be positive, got {}", m.sample_period_s));
        }
        if m.battery.is_empty() {
            return Err("the forecaster battery is empty".into());
        }
        if !(self.min_gain.is_finite() && self.min_gain >= 0.0) {
            return Err(format!("min_gain must be non-negative, got {}", self.min_gain));
        }
        match self.remap_period_s {
            None => Ok(0),
            Some(p) => {
                let ratio = p / m.sample_period_s;
                let k = ratio.round();
                if !(p.is_finite() && p > 0.0) || k < 1.0 || (ratio - k).abs() > 1e-9 * ratio {
                    return Err(format!(
                        "the re-mapping period {p} s must be a positive multiple of the sample period {} s",
                        m.sample_period_s
                    ));
                }
                Ok(k as u64)
            }
        }
    }
}

/// Runs the adaptive application on `platform` until every input has entered and left (module
/// docs), in realistic mode: computations on the hosts' CPUs, transfers over the links.
pub fn simulate_adaptive(platform: Arc<Platform>, cfg: &AdaptiveSim) -> Result<AdaptiveOutcome, String> {
    let remap_every = cfg.check(&platform)?;
    let n = cfg.hosts.len();
    let engine = Engine::new(Arc::clone(&platform)).map_err(|e| e.to_string())?;
    let app = AdaptiveApp {
        cpu_mhz: cfg.hosts.iter().map(|&h| platform.host(h).speed / 1e6).collect(),
        platform,
        cfg: cfg.clone(),
        remap_every,
        tick: 0,
        pipe: None,
        current: None,
        initial: None,
        pending: None,
        record: MonitorRecord {
            dates: Vec::new(),
            availability: vec![Vec::new(); n],
            latency_ms: vec![vec![Vec::new(); n]; n],
        },
        decisions: Vec::new(),
        switches: Vec::new(),
        cache: None,
        error: None,
    };
    let mut sim = Simulation::new(engine, app);
    sim.run();
    let events = sim.steps();
    let app = &mut sim.app;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    let pipe = app.pipe.as_mut().ok_or("the pipeline never started")?;
    let outcome = pipe.outcome(events, cfg.batches)?;
    Ok(AdaptiveOutcome {
        outcome,
        arrivals: pipe.arrivals().to_vec(),
        departures: pipe.departures().to_vec(),
        decisions: std::mem::take(&mut app.decisions),
        switches: std::mem::take(&mut app.switches),
        record: std::mem::take(&mut app.record),
        initial: app.initial.clone().expect("deployed at date 0"),
        last: app.current.clone().expect("deployed at date 0"),
    })
}

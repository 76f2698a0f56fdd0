//! Adaptive AMoGeT (`schedulers::skeleton::adaptive`): monitoring, NWS forecasts and re-mapping
//! of a running pipeline.
//!
//! Paper: Benoit, Cole, Gilmore & Hillston, "Scheduling skeleton-based grid applications using
//! PEPA and NWS" (`shared/papers/amoget-pepa-nws-pipeline-deal.md`). The scenario is its
//! Experiment 1 (§5.3: four stages of tr = 10 s, identical processors, the same latency
//! everywhere, 1-byte data on P1) at latency 0.01 s, where "the optimal mapping is obviously
//! (1,2,3,4)", run in realistic mode on a mesh platform (raw network model). Expected CTMC
//! rankings are computed here from grids written down by hand and `amoget::evaluate`, never
//! taken from the code under test.

use std::sync::Arc;

use schedulers::skeleton::adaptive::{
    forecast_grid, rate_in, simulate_adaptive, AdaptiveOutcome, AdaptiveSim, Candidates, MonitorConfig,
};
use schedulers::skeleton::amoget::{self, amoget_rates, Application, EvaluateOptions, Grid, RateConstants};
use schedulers::skeleton::mapping::{enumerate_mappings, rank, Mapping, MappingEvaluation};
use schedulers::skeleton::measure::mesh_platform;
use schedulers::skeleton::nws::{default_battery, nws_forecast, ErrorMetric, Forecaster};
use schedulers::skeleton::pipeline_sim::{measure_grid, simulate, PipelineSim, ServiceDist, SimMode};
use sim_core::platform::{HostId, Platform};
use sim_core::profile::Profile;

const LATENCY_S: f64 = 0.01;
const BANDWIDTH: f64 = 1e12;
/// Raw network model: a 1-byte message takes latency + 1 / bandwidth seconds.
const LA_MS: f64 = (LATENCY_S + 1.0 / BANDWIDTH) * 1e3;

fn app() -> Application {
    Application {
        reference_times_s: vec![10.0; 4],
        data_sizes: vec![1.0; 5],
    }
}

fn candidates() -> Candidates {
    Candidates::Enumerate {
        shape: vec![0; 4],
        input: 0,
        output: 0,
        limit: 5000,
    }
}

/// Four 1 Gflop/s processors on a mesh; `base` availabilities from date 0; processor
/// `drop.0` (0-based) steps to availability `drop.2` at date `drop.1`.
fn platform(base: &[f64], drop: Option<(usize, f64, f64)>) -> Arc<Platform> {
    let mut p = mesh_platform(&[1e9; 4], base, LATENCY_S, BANDWIDTH, "raw").unwrap();
    if let Some((j, date, value)) = drop {
        let mut events = vec![(0.0, base.get(j).copied().unwrap_or(1.0))];
        events.push((date, value));
        p.hosts[j].speed_profile = Some(Profile::new(events, None).unwrap());
    }
    Arc::new(p)
}

fn config(items: u64, seed: u64, remap_period_s: Option<f64>) -> AdaptiveSim {
    AdaptiveSim {
        app: app(),
        hosts: (0..4).map(HostId).collect(),
        candidates: candidates(),
        service: ServiceDist::Exponential,
        warmup_items: 0,
        items,
        batches: 10,
        seed,
        monitor: MonitorConfig {
            sample_period_s: 10.0,
            probe_bytes: 1.0,
            battery: default_battery(),
            metric: ErrorMetric::Mse,
        },
        remap_period_s,
        min_gain: 0.0,
        constants: RateConstants::default(),
        evaluate: EvaluateOptions::default(),
    }
}

/// The CTMC ranking of every 4-stage mapping on `grid` (AMoGeT §4.6), best first.
fn ctmc_ranking(grid: &Grid) -> Vec<MappingEvaluation> {
    let ms = enumerate_mappings(&grid.shape(), &[0; 4], 0, 0, 5000).unwrap();
    let evals: Vec<MappingEvaluation> = ms
        .iter()
        .map(|m| amoget::evaluate(grid, &app(), m, &RateConstants::default(), &EvaluateOptions::default()).unwrap())
        .collect();
    rank(&evals, 1e-9).into_iter().map(|i| evals[i].clone()).collect()
}

/// The grid of the scenario written down by hand: 1000 MHz processors, `la = LA_MS`.
fn grid_with(availability: [f64; 4]) -> Grid {
    let mut g = Grid::homogeneous(4, 1000.0, LA_MS);
    for (p, a) in g.processors.iter_mut().zip(availability) {
        p.availability = a;
    }
    g
}

#[test]
fn constant_availability_never_remaps_and_equals_the_static_run() {
    // P2 at half speed for the whole run (constant, AMoGeT Experiment 2's "twice as heavily
    // loaded" processor): the forecasts never change, so no decision may deploy anything.
    let base = [1.0, 0.5, 1.0, 1.0];
    let plat = platform(&base, None);
    let out = simulate_adaptive(Arc::clone(&plat), &config(120, 11, Some(50.0))).unwrap();
    assert!(out.decisions.len() > 10, "decisions: {}", out.decisions.len());
    assert!(out.decisions[1..].iter().all(|d| !d.deploy));
    assert!(out.switches.is_empty());
    assert_eq!(out.initial, out.last);

    // The static AMoGeT of the `amoget` family: grid measured at date 0, best CTMC candidate.
    let hosts: Vec<HostId> = (0..4).map(HostId).collect();
    let measured = measure_grid(&plat, &hosts, 1.0).unwrap();
    let best = ctmc_ranking(&measured)[0].mapping.clone();
    assert_eq!(out.initial, best);
    // The hand-written grid ranks the same mapping first.
    assert_eq!(ctmc_ranking(&grid_with(base))[0].mapping, best);

    let static_cfg = PipelineSim {
        mapping: best.clone(),
        reference_times_s: app().reference_times_s,
        data_sizes: app().data_sizes,
        rates: amoget_rates(&measured, &app(), &best, &RateConstants::default()).unwrap(),
        hosts,
        mode: SimMode::Realistic,
        service: ServiceDist::Exponential,
        warmup_items: 0,
        items: 120,
        batches: 10,
        seed: 11,
    };
    let st = simulate(Arc::clone(&plat), &static_cfg).unwrap();
    // Same sample path: monitoring does not perturb the application (adaptive module docs).
    assert_eq!(out.outcome.throughput, st.throughput);
    assert_eq!(out.outcome.makespan_s, st.makespan_s);
    assert_eq!(out.outcome.mean_latency_s, st.mean_latency_s);
    assert_eq!(out.outcome.outputs, st.outputs);
}

const DROP_AT: f64 = 1005.0;
const DROP_TO: f64 = 0.2;

fn drop_run(remap: Option<f64>) -> AdaptiveOutcome {
    let plat = platform(&[], Some((2, DROP_AT, DROP_TO)));
    simulate_adaptive(plat, &config(150, 7, remap)).unwrap()
}

#[test]
fn remaps_after_an_availability_drop_to_the_ctmc_best_and_gains() {
    let adaptive = drop_run(Some(50.0));
    let fixed = drop_run(None);
    // §5.3: at small latency the best mapping of identical processors is (1,2,3,4); it uses P3.
    let initial = Mapping::parse("[1, (1,2,3,4), 1]").unwrap();
    assert_eq!(adaptive.initial, initial);
    assert_eq!(fixed.initial, initial);
    assert_eq!(fixed.decisions.len(), 1);

    // Reaction time (adaptive module docs): the default battery has no lag beyond the first
    // sample after the drop, so the first deploying decision is the first decision date after
    // it, ceil(1005 / 50) * 50 = 1050 s, within one period of the drop.
    let first = adaptive.decisions.iter().find(|d| d.deploy && d.date_s > 0.0).unwrap();
    assert_eq!(first.date_s, 1050.0);
    assert!(first.date_s <= DROP_AT + 50.0);
    assert_eq!(adaptive.switches.len(), 1, "{:?}", adaptive.switches);
    let sw = &adaptive.switches[0];
    assert_eq!(sw.decided_s, 1050.0);
    assert!(sw.effective_s >= sw.decided_s);
    assert_eq!(sw.from, initial);

    // The new mapping is the one the CTMC ranks best for the new rates (P3 at 0.2).
    let ranking = ctmc_ranking(&grid_with([1.0, 1.0, DROP_TO, 1.0]));
    assert_eq!(sw.to, ranking[0].mapping);
    assert!((sw.predicted_new - ranking[0].throughput).abs() < 1e-9 * ranking[0].throughput);
    let old = ranking.iter().find(|e| e.mapping == initial).unwrap();
    assert!((sw.predicted_old - old.throughput).abs() < 1e-9 * old.throughput);
    assert!(!sw.to.stages.iter().any(|s| s.workers().contains(&2)), "{}", sw.to);

    // Same seed: identical until the decision, then better than staying on (1,2,3,4).
    let before = |a: &[f64]| a.iter().copied().filter(|&t| t < sw.decided_s).collect::<Vec<_>>();
    assert_eq!(before(&adaptive.arrivals), before(&fixed.arrivals));
    let end = *adaptive.arrivals.last().unwrap();
    let (a, f) = (
        rate_in(&adaptive.arrivals, sw.effective_s, end),
        rate_in(&fixed.arrivals, sw.effective_s, end),
    );
    eprintln!(
        "switch {} -> {} decided {} s, effective {} s; predicted {} -> {}; after: adaptive {a}/s, static {f}/s",
        sw.from, sw.to, sw.decided_s, sw.effective_s, sw.predicted_old, sw.predicted_new
    );
    assert!(a > f * 1.3, "after the switch: adaptive {a}/s, static {f}/s");
    assert!(adaptive.outcome.makespan_s < fixed.outcome.makespan_s);
}

#[test]
fn forecasts_are_the_nws_battery_on_the_recorded_series() {
    let out = drop_run(Some(50.0));
    let rec = &out.record;
    // Samples every 10 s from date 0; P3's series is its speed profile (1 before 1005 s, 0.2
    // after); every latency sample is the raw-model time of a 1-byte message.
    for (k, &d) in rec.dates.iter().enumerate() {
        assert_eq!(d, 10.0 * k as f64);
        let want = if d < DROP_AT { 1.0 } else { DROP_TO };
        assert!((rec.availability[2][k] - want).abs() < 1e-12);
        assert_eq!(rec.availability[0][k], 1.0);
    }
    for i in 0..4 {
        for j in 0..4 {
            let s = &rec.latency_ms[i][j];
            if i == j {
                assert!(s.is_empty());
            } else {
                assert_eq!(s.len(), rec.dates.len());
                assert!(s.iter().all(|&x| (x - LA_MS).abs() < 1e-9), "{i}->{j}");
            }
        }
    }
    let battery = default_battery();
    for d in &out.decisions {
        // The decision at date t uses the samples of dates 0..=t.
        assert_eq!(d.samples, rec.dates.iter().filter(|&&x| x <= d.date_s).count());
        for j in 0..4 {
            let f = nws_forecast(&rec.availability[j][..d.samples], &battery, ErrorMetric::Mse).unwrap();
            assert_eq!(d.grid.processors[j].availability, f.forecast);
            assert_eq!(d.grid.processors[j].cpu_mhz, 1000.0);
            for i in (0..4).filter(|&i| i != j) {
                let f = nws_forecast(&rec.latency_ms[i][j][..d.samples], &battery, ErrorMetric::Mse).unwrap();
                assert_eq!(d.grid.latency_ms[i][j], f.forecast);
            }
        }
    }
    // After the drop the last-value forecaster (battery index 0) is selected for P3 (tie at the
    // first post-drop sample, exact afterwards: module docs), so the forecast is the new value.
    let d = out.decisions.iter().find(|d| d.date_s == 1050.0).unwrap();
    let f = nws_forecast(&rec.availability[2][..d.samples], &battery, ErrorMetric::Mse).unwrap();
    assert_eq!(battery[f.best], Forecaster::LastValue);
    assert!((d.grid.processors[2].availability - DROP_TO).abs() < 1e-12);
    // The public helper agrees with the decisions.
    let g = forecast_grid(rec, d.samples, &[1000.0; 4], &battery, ErrorMetric::Mse).unwrap();
    assert_eq!(g, d.grid);
}

#[test]
fn a_running_mean_first_battery_lags_one_sample() {
    // Decisions at every sample (P = 10 s), drop at 105 s. Module docs: with last value first,
    // the decision at the first sample after the drop (110 s) sees 0.2; with the running mean
    // first, that sample is a tie won by the running mean, which forecasts (11 + 0.2) / 12
    // (a 1% relative gain threshold keeps that small change from re-mapping), and last value
    // takes over one sample later (120 s).
    let plat = platform(&[], Some((2, 105.0, DROP_TO)));
    let first_deploy = |battery: Vec<Forecaster>| {
        let mut cfg = config(40, 3, Some(10.0));
        cfg.monitor.battery = battery;
        cfg.min_gain = 0.01;
        let out = simulate_adaptive(Arc::clone(&plat), &cfg).unwrap();
        let d = out
            .decisions
            .iter()
            .find(|d| d.deploy && d.date_s > 0.0)
            .cloned()
            .unwrap();
        (d, out)
    };
    let (d, _) = first_deploy(vec![Forecaster::LastValue, Forecaster::RunningMean]);
    assert_eq!(d.date_s, 110.0);
    let (d, out) = first_deploy(vec![Forecaster::RunningMean, Forecaster::LastValue]);
    assert_eq!(d.date_s, 120.0);
    let at_110 = out.decisions.iter().find(|d| d.date_s == 110.0).unwrap();
    assert!((at_110.grid.processors[2].availability - (11.0 + DROP_TO) / 12.0).abs() < 1e-12);
    assert!(!at_110.deploy);
}

#[test]
fn rejects_a_remap_period_that_is_not_a_multiple_of_the_sample_period() {
    let plat = platform(&[], None);
    let err = simulate_adaptive(Arc::clone(&plat), &config(10, 1, Some(25.0))).unwrap_err();
    assert!(err.contains("multiple"), "{err}");
    let mut cfg = config(10, 1, Some(20.0));
    cfg.monitor.battery.clear();
    assert!(simulate_adaptive(plat, &cfg).unwrap_err().contains("battery"));
}

#[test]
fn candidate_lists_are_respected() {
    // With a list, only its mappings are deployed: (1,1,1,1) and (1,1,2,2) at small latency,
    // the CTMC prefers (1,1,2,2) (§5.3: two times better than (1,1,1,1)).
    let plat = platform(&[], None);
    let mut cfg = config(30, 2, Some(50.0));
    let list = vec![
        Mapping::parse("[1, (1,1,1,1), 1]").unwrap(),
        Mapping::parse("[1, (1,1,2,2), 1]").unwrap(),
    ];
    cfg.candidates = Candidates::List(list.clone());
    let out = simulate_adaptive(plat, &cfg).unwrap();
    assert_eq!(out.initial, list[1]);
    assert_eq!(out.decisions[0].candidates, 2);
}

//! The skeleton applications in the discrete-event engine, checked against the CTMC (AMoGeT)
//! and against the performance functions (Alt et al.).
//!
//! Papers (in `shared/papers/`): AMoGeT = Benoit, Cole, Gilmore, Hillston, "Scheduling
//! skeleton-based grid applications using PEPA and NWS"; Alt = Alt, Bischof, Gorlatch,
//! "Algorithm Design and Performance Prediction in a Java-Based Grid System with Skeletons".
//! The CTMC values come from `schedulers::skeleton::amoget` (checked against the paper's
//! numbers in `tests/skeleton.rs`), never from constants here.

use std::sync::Arc;

use schedulers::skeleton::alt::{DcCosts, PerfFunction};
use schedulers::skeleton::alt_sim::{
    plan, register_servers, run_scenario, simulate_call, AltScenario, Calibration, Choice, RemoteCall, ServerSpec,
};
use schedulers::skeleton::amoget::{self, amoget_rates, Application, EvaluateOptions, Grid, RateConstants};
use schedulers::skeleton::mapping::Mapping;
use schedulers::skeleton::measure::{mean_ci, mesh_platform};
use schedulers::skeleton::pipeline_sim::{measure_grid, simulate, PipelineOutcome, PipelineSim, ServiceDist, SimMode};
use sim_core::platform::{Host, HostId, Link, Platform};

// ---------------------------------------------------------------------------------------------
// Pipeline / Deal (AMoGeT).

struct Case {
    grid: Grid,
    app: Application,
    mapping: Mapping,
}

/// AMoGeT Experiment 1 (§5.3): four stages of tr = 10 s on identical processors, the same
/// latency (read as seconds, see tests/skeleton.rs) between distinct processors, ds = 1, data
/// on P1.
fn exp1(latency_s: f64, mapping: &str) -> Case {
    Case {
        grid: Grid::homogeneous(4, 1000.0, latency_s * 1e3),
        app: Application {
            reference_times_s: vec![10.0; 4],
            data_sizes: vec![1.0; 5],
        },
        mapping: Mapping::parse(mapping).unwrap(),
    }
}

fn ctmc(c: &Case) -> f64 {
    amoget::evaluate(
        &c.grid,
        &c.app,
        &c.mapping,
        &RateConstants::default(),
        &EvaluateOptions::default(),
    )
    .unwrap()
    .throughput
}

fn sim_config(c: &Case, mode: SimMode, service: ServiceDist, items: u64, seed: u64) -> PipelineSim {
    PipelineSim {
        mapping: c.mapping.clone(),
        reference_times_s: c.app.reference_times_s.clone(),
        data_sizes: c.app.data_sizes.clone(),
        rates: amoget_rates(&c.grid, &c.app, &c.mapping, &RateConstants::default()).unwrap(),
        hosts: (0..c.grid.processors.len() as u32).map(HostId).collect(),
        mode,
        service,
        warmup_items: items / 20,
        items,
        batches: 20,
        seed,
    }
}

/// The mesh platform matching a homogeneous grid: speeds cpu_j MHz as flop/s x 1e6, the
/// grid's latency between distinct processors, raw network model (a 1-byte message takes
/// latency + 1/bandwidth).
fn mesh_for(c: &Case, latency_s: f64, bandwidth: f64) -> Arc<Platform> {
    let speeds: Vec<f64> = c.grid.processors.iter().map(|p| p.cpu_mhz * 1e6).collect();
    let av: Vec<f64> = c.grid.processors.iter().map(|p| p.availability).collect();
    Arc::new(mesh_platform(&speeds, &av, latency_s, bandwidth, "raw").unwrap())
}

fn run_model(c: &Case, service: ServiceDist, items: u64, seed: u64) -> PipelineOutcome {
    let platform = Arc::new(Platform::new());
    simulate(platform, &sim_config(c, SimMode::Model, service, items, seed)).unwrap()
}

/// Per-check confidence so that `checks` intervals hold together with probability 95%
/// (Bonferroni): a test of several 95% intervals would otherwise fail by chance once in a few
/// runs even when simulation and CTMC agree.
fn familywise_95(checks: usize) -> f64 {
    1.0 - 0.05 / checks as f64
}

#[test]
fn model_mode_throughput_agrees_with_the_ctmc_for_experiment1() {
    // AMoGeT Experiment 1's three mappings (Fig. 7), at the two latencies the text quotes
    // (0.01 and 20). Exponential times: the simulation is a sample path of the CTMC, so the
    // CTMC's throughput must lie in the simulation's batch-means confidence intervals, 95%
    // jointly over the six checks.
    let level = familywise_95(6);
    for (l, latency) in [0.01, 20.0].into_iter().enumerate() {
        for (k, m) in ["[1, (1,1,1,1), 1]", "[1, (1,1,2,2), 1]", "[1, (1,2,3,4), 1]"]
            .iter()
            .enumerate()
        {
            let c = exp1(latency, m);
            let expected = ctmc(&c);
            let out = run_model(&c, ServiceDist::Exponential, 40_000, 11 + (3 * l + k) as u64);
            let t = &out.throughput;
            let hw = t.half_width_at(level);
            println!(
                "latency {latency:>5} s {m}: CTMC {expected:.6}, simulated {:.6} ± {:.6} (95%), ± {hw:.6} ({:.2}%), \
                 in 95% CI: {}, {} events",
                t.mean,
                t.half_width,
                100.0 * level,
                t.contains(expected),
                out.events
            );
            assert!(
                (t.mean - expected).abs() <= hw,
                "{m} at {latency}: CTMC {expected} outside {} ± {hw}",
                t.mean
            );
            // The interval is informative: narrower than 3% of the throughput.
            assert!(t.half_width < 0.03 * t.mean);
            // Little's law ties the measured latency to the throughput: at most one item per
            // component, so latency x throughput is at most the number of components (4).
            assert!(out.mean_latency_s * t.mean <= 4.0 + 1e-9);
        }
    }
}

#[test]
fn model_mode_throughput_agrees_with_the_ctmc_for_deals() {
    // AMoGeT Experiment 2 (§5.3, FIGURE 8): stage 2 a Deal of 3 workers (2 additional), stage 2
    // three times longer, P2 broken (av = 0.5); latency 1 ms, ds = 1.
    let mut grid = Grid::homogeneous(5, 1000.0, 1.0);
    grid.processors[1].availability = 0.5;
    let fig8 = Case {
        grid,
        app: Application {
            reference_times_s: vec![10.0, 30.0, 10.0],
            data_sizes: vec![1.0; 4],
        },
        mapping: Mapping::parse("[1, (1,(2,4,5),3), 1]").unwrap(),
    };
    // Adjacent Deals (§4.4 case C) with shared processors and a slow network (2 s), to exercise
    // the relay through the first worker and static sharing between stages.
    let adjacent = Case {
        grid: Grid::homogeneous(3, 1000.0, 2000.0),
        app: Application {
            reference_times_s: vec![4.0, 6.0, 3.0],
            data_sizes: vec![1.0, 2.0, 1.0, 1.0],
        },
        mapping: Mapping::parse("[1, ((1,2),(2,3),1), 1]").unwrap(),
    };
    let level = familywise_95(2);
    for (name, c, seed) in [
        ("FIGURE 8 k=2, tr2=30, P2 broken", fig8, 3),
        ("adjacent Deals", adjacent, 4),
    ] {
        let expected = ctmc(&c);
        let out = run_model(&c, ServiceDist::Exponential, 40_000, seed);
        let t = &out.throughput;
        let hw = t.half_width_at(level);
        println!(
            "{name} {}: CTMC {expected:.6} (x60 = {:.4}/min), simulated {:.6} ± {:.6} (95%), ± {hw:.6} ({:.1}%), \
             in 95% CI: {}",
            c.mapping,
            expected * 60.0,
            t.mean,
            t.half_width,
            100.0 * level,
            t.contains(expected)
        );
        assert!(
            (t.mean - expected).abs() <= hw,
            "{name}: CTMC {expected} outside {} ± {hw}",
            t.mean
        );
        assert!(t.half_width < 0.03 * t.mean);
    }
}

#[test]
fn deterministic_service_leaves_the_ctmc_interval() {
    // The same Experiment-1 mapping (1,1,1,1) at latency 0.01 with every duration fixed at its
    // mean: with P1's static 1/4 shares (mu = 1/40) and moves of 1/lambda each, the four stages
    // run in lockstep: each period is a 40 s process and the cascade of the five moves from
    // the output back to the input (move_5 first, then move_4, ..., move_1), so the
    // throughput is 1 / (40 + sum of the five move times). The CTMC's exponential answer
    // (0.01287 in the paper) is far outside: the test of the previous case can fail.
    let c = exp1(0.01, "[1, (1,1,1,1), 1]");
    let rates = amoget_rates(&c.grid, &c.app, &c.mapping, &RateConstants::default()).unwrap();
    let period = 1.0 / rates.process[0][0] + rates.moves.iter().map(|l| 1.0 / l).sum::<f64>();
    let out = run_model(&c, ServiceDist::Deterministic, 2_000, 1);
    let t = &out.throughput;
    assert!(
        (t.mean - 1.0 / period).abs() < 1e-9 / period,
        "{} vs {}",
        t.mean,
        1.0 / period
    );
    assert!(!t.contains(ctmc(&c)));
}

#[test]
fn realistic_deterministic_pipeline_period_is_the_slowest_stage_cycle() {
    // (1,2,3,4) on a mesh with 0.01 s links (raw model, 1-byte items at 1e9 B/s): a transfer
    // takes d = 0.01 + 1e-9 s. In steady state each stage receives, computes 10 s and sends,
    // one after the other, so the period is 10 + 2d (derivation: stages finish in a cascade
    // from the last, each waiting d for its successor to take the item).
    let c = exp1(0.01, "[1, (1,2,3,4), 1]");
    let platform = mesh_for(&c, 0.01, 1e9);
    let out = simulate(
        platform,
        &sim_config(&c, SimMode::Realistic, ServiceDist::Deterministic, 500, 1),
    )
    .unwrap();
    let d = 0.01 + 1.0 / 1e9;
    let expected = 1.0 / (10.0 + 2.0 * d);
    assert!(
        (out.throughput.mean - expected).abs() < 1e-9,
        "{} vs {expected}",
        out.throughput.mean
    );
    // In that steady state stage s+1 becomes free exactly when stage s finishes (both have the
    // same period, shifted by 10 + d), so an item never waits: latency = 4 x 10 + 5d.
    assert!(
        (out.mean_latency_s - (40.0 + 5.0 * d)).abs() < 1e-6,
        "{}",
        out.mean_latency_s
    );
}

#[test]
fn realistic_cpu_sharing_is_work_conserving_unlike_the_pepa_processor() {
    // (1,1,1,1), latency irrelevant (everything on P1, transfers over the loopback). The engine
    // shares P1 among the busy stages and P1 is never idle: the last stage is never blocked, so
    // some stage always computes. Throughput = 1 / (sum of tr) = 1/40 whatever the
    // distribution of the work, up to the loopback transfers (1 byte at 10 GB/s, 5 per item).
    // The PEPA model's static 1/4 shares give 0.01287 (AMoGeT §5.3) instead.
    let c = exp1(0.01, "[1, (1,1,1,1), 1]");
    let platform = mesh_for(&c, 0.01, 1e9);
    let out = simulate(
        platform,
        &sim_config(&c, SimMode::Realistic, ServiceDist::Exponential, 20_000, 7),
    )
    .unwrap();
    let t = &out.throughput;
    let expected = 1.0 / (40.0 + 5.0 * 1.0 / 10e9);
    println!(
        "realistic (1,1,1,1): {:.6} ± {:.6}, 1/40 = {expected:.6}, CTMC {:.6}",
        t.mean,
        t.half_width,
        ctmc(&c)
    );
    assert!(t.contains(expected), "{} ± {} vs {expected}", t.mean, t.half_width);
    assert!(!t.contains(ctmc(&c)));
}

#[test]
fn realistic_mode_follows_the_platform_links() {
    // (1,1,2,2) at latency 20 s, deterministic: move_3 (P1 -> P2) and move_5 (P2 -> P1, the
    // output) cross the network; stages 1-2 share P1, stages 3-4 share P2. Slowing the links
    // down must lower the throughput, and making them instantaneous must give the
    // network-free value: with negligible transfers each half is a two-stage pipeline on one
    // processor that is never idle (see the previous test), so 1 / (10 + 10) per item.
    let c = exp1(20.0, "[1, (1,1,2,2), 1]");
    let run = |lat: f64| {
        let platform = mesh_for(&c, lat, 1e9);
        simulate(
            platform,
            &sim_config(&c, SimMode::Realistic, ServiceDist::Deterministic, 400, 1),
        )
        .unwrap()
        .throughput
        .mean
    };
    let (fast, slow) = (run(0.0), run(20.0));
    assert!((fast - 1.0 / 20.0).abs() < 1e-6, "{fast}");
    assert!(slow < fast * 0.75, "{slow} vs {fast}");
}

#[test]
fn measured_grid_reproduces_the_latency_matrix() {
    // NWS-like probes over a mesh with latency 0.5 s, raw model, bandwidth 1e6 B/s: a 1-byte
    // message takes 0.5 + 1e-6 s = 500.001 ms; cpu = speed / 1e6; av from the speed profile.
    let platform = Arc::new(mesh_platform(&[1e9, 1e9, 2e9, 1e9], &[1.0, 1.0, 0.25, 1.0], 0.5, 1e6, "raw").unwrap());
    let hosts: Vec<HostId> = (0..4).map(HostId).collect();
    let g = measure_grid(&platform, &hosts, 1.0).unwrap();
    for i in 0..4 {
        for j in 0..4 {
            let want = if i == j { 0.0 } else { 500.001 };
            assert!(
                (g.latency_ms[i][j] - want).abs() < 1e-9,
                "{i}->{j}: {}",
                g.latency_ms[i][j]
            );
        }
    }
    assert_eq!(g.processors[2].cpu_mhz, 2000.0);
    assert_eq!(g.processors[2].availability, 0.25);
    assert_eq!(g.processors[0].availability, 1.0);
}

#[test]
fn same_seed_same_run_other_seed_other_run() {
    let c = exp1(1.0, "[1, (1,1,2,2), 1]");
    let a = run_model(&c, ServiceDist::Exponential, 2_000, 5);
    let b = run_model(&c, ServiceDist::Exponential, 2_000, 5);
    let d = run_model(&c, ServiceDist::Exponential, 2_000, 6);
    assert_eq!(a, b);
    assert_ne!(a.throughput.mean, d.throughput.mean);
}

// ---------------------------------------------------------------------------------------------
// Alt et al.

const ELEMENT: f64 = 3200.0; // one 20x20 matrix of 8-byte doubles (Alt §4)
const MATMUL: f64 = 16000.0; // 20^3 multiply-adds = 2 x 8000 flops

/// A client (1 core) and a server of `cores` cores joined by one WAN link, LV08 network.
fn client_server(cores: u32, latency: f64, bandwidth: f64) -> Arc<Platform> {
    let mut p = Platform::new();
    let c = p.add_host(Host::new("client", 36e6)).unwrap();
    let mut s = Host::new("server", 75e6);
    s.cores = cores;
    let s = p.add_host(s).unwrap();
    let l = p.add_link(Link::new("wan", bandwidth, latency)).unwrap();
    p.routing.add_route(c, s, vec![l]);
    p.routing.add_route(s, c, vec![l]);
    Arc::new(p)
}

fn calibration() -> Calibration {
    Calibration {
        element_bytes: ELEMENT,
        probe_elements: vec![1, 16, 256],
        benchmark_flops: 1e8,
    }
}

fn scenario(skeleton: PerfFunction, n: u64, p: u64) -> AltScenario {
    AltScenario {
        client: HostId(0),
        servers: vec![ServerSpec {
            name: "server".into(),
            host: HostId(1),
            threads: p,
            skeletons: vec![skeleton],
        }],
        calibration: calibration(),
        skeleton,
        n,
        operator_bytes: 2000.0,
        result_elements: 1.0,
        op_flops: MATMUL,
        op_jitter: 0.0,
        sync_overhead_s: 0.0,
        background_processes: 0,
        choice: Choice::MinPredicted,
        seed: 1,
    }
}

const DC: PerfFunction = PerfFunction::DivideAndConquer(DcCosts {
    divide: 0.25,
    base: 0.5,
    conquer: 1.0,
});

#[test]
fn registration_measures_lv08_start_up_and_per_element_times() {
    // LV08 (sim_core::network docs): a lone message of S bytes takes 13.01 L + S / (0.97 B')
    // with B' = min(B / w, 4194304 / (2L)); the WAN link carries both directions, so the
    // message's weight on it is w = 1 + 0.05 (its own route plus its reverse-route cross
    // traffic). Here L = 0.02, B / 1.05 < 4194304 / 0.04, so t_s = 13.01 x 0.02 and
    // t_w = 3200 x 1.05 / (0.97 x 1.25e6). Speed-up = 75e6 / 36e6.
    let platform = client_server(16, 0.02, 1.25e6);
    let servers = [ServerSpec {
        name: "s".into(),
        host: HostId(1),
        threads: 4,
        skeletons: vec![PerfFunction::Reduce],
    }];
    let lookup = register_servers(&platform, HostId(0), &servers, &calibration()).unwrap();
    let s = &lookup.servers[0];
    assert!((s.t_s - 13.01 * 0.02).abs() < 1e-9, "{}", s.t_s);
    assert!((s.t_w - ELEMENT * 1.05 / (0.97 * 1.25e6)).abs() < 1e-12, "{}", s.t_w);
    assert!((s.speedup - 75.0 / 36.0).abs() < 1e-12);
}

#[test]
fn unperturbed_simulation_equals_equation_1() {
    // Alt Fig. 3's settings: lists of 256..2048 elements, 2 and 4 threads; plus 8 threads. With
    // no jitter, overhead or background load, every thread on its own core and p dividing n,
    // the simulated call is eq. 1 exactly (module docs of alt_sim).
    let platform = client_server(16, 0.02, 1.25e6);
    for skeleton in [PerfFunction::Reduce, PerfFunction::Scan, DC] {
        for n in [256, 512, 1024, 2048] {
            for p in [2, 4, 8] {
                let out = run_scenario(&platform, &scenario(skeleton, n, p)).unwrap();
                let (pred, sim) = (out.prediction.total, out.simulated.total_s);
                assert!(
                    (sim - pred).abs() < 1e-9 * pred,
                    "{skeleton:?} n={n} p={p}: {sim} vs {pred}"
                );
                assert!((out.simulated.compute_s - out.prediction.computation).abs() < 1e-9 * pred);
            }
        }
    }
}

#[test]
fn uneven_blocks_match_where_the_critical_path_does() {
    // n = 1024, p = 3: blocks 342, 341, 341. Reduce's critical path is the 342-block + 2 (eq. 2
    // exactly); scan's add phase runs on blocks 2..3 of 341, one application less than the
    // prediction's 2 x 342 + 0.
    let platform = client_server(16, 0.02, 1.25e6);
    let t_op = MATMUL / 75e6;
    let red = run_scenario(&platform, &scenario(PerfFunction::Reduce, 1024, 3)).unwrap();
    assert!((red.simulated.total_s - red.prediction.total).abs() < 1e-9);
    let scan = run_scenario(&platform, &scenario(PerfFunction::Scan, 1024, 3)).unwrap();
    assert!((scan.prediction.total - scan.simulated.total_s - t_op).abs() < 1e-9);
}

#[test]
fn threads_beyond_the_cores_share_them() {
    // Reduce, n = 1024, p = 4 threads on a 2-core server: the four leaf chains of 255
    // applications run at half speed, the final 3 at full speed:
    // compute = (2 x 255 + 3) t_op, where the prediction assumed (255 + 3) t_op.
    let platform = client_server(2, 0.02, 1.25e6);
    let t_op = MATMUL / 75e6;
    let out = run_scenario(&platform, &scenario(PerfFunction::Reduce, 1024, 4)).unwrap();
    assert!((out.prediction.computation - 258.0 * t_op).abs() < 1e-12);
    assert!(
        (out.simulated.compute_s - 513.0 * t_op).abs() < 1e-9,
        "{}",
        out.simulated.compute_s
    );
}

#[test]
fn each_fork_and_join_costs_the_sync_overhead() {
    // Critical paths: reduce joins once; scan joins the blocks, forks the add phase and joins
    // it (3); divide-and-conquer on 4 threads forks twice and joins twice (2 L, L = 2).
    let platform = client_server(16, 0.02, 1.25e6);
    for (skeleton, syncs) in [(PerfFunction::Reduce, 1.0), (PerfFunction::Scan, 3.0), (DC, 4.0)] {
        let mut sc = scenario(skeleton, 1024, 4);
        sc.sync_overhead_s = 0.05;
        let out = run_scenario(&platform, &sc).unwrap();
        let extra = out.simulated.total_s - out.prediction.total;
        assert!((extra - syncs * 0.05).abs() < 1e-9, "{skeleton:?}: {extra}");
    }
}

#[test]
fn jitter_stays_within_its_bounds_and_background_load_slows_the_server() {
    // Every application takes between (1 - j) and (1 + j) times its nominal time, so every
    // chain, and the critical path, too: |compute - predicted| <= j x predicted.
    let platform = client_server(4, 0.02, 1.25e6);
    let mut times = Vec::new();
    for seed in 0..10 {
        let mut sc = scenario(PerfFunction::Reduce, 1024, 4);
        sc.op_jitter = 0.2;
        sc.seed = seed;
        let out = run_scenario(&platform, &sc).unwrap();
        let (c, pc) = (out.simulated.compute_s, out.prediction.computation);
        assert!((c - pc).abs() <= 0.2 * pc + 1e-12, "seed {seed}: {c} vs {pc}");
        times.push(out.simulated.total_s);
    }
    let (mean, hw) = mean_ci(&times);
    assert!(hw > 0.0, "jitter must vary the runs");
    println!("reduce n=1024 p=4, jitter 0.2: simulated {mean:.4} ± {hw:.4} s over 10 runs");
    // Four threads and four background processes on four cores, every exec bounded by one
    // core: while the leaves run, 8 execs get half a core each (2 x 255 t_op); the final chain
    // then competes with 4 background processes, 5 execs on 4 cores, 0.8 core each (3 / 0.8).
    let mut sc = scenario(PerfFunction::Reduce, 1024, 4);
    sc.background_processes = 4;
    let out = run_scenario(&platform, &sc).unwrap();
    let t_op = MATMUL / 75e6;
    assert!(
        (out.simulated.compute_s - (510.0 + 3.0 / 0.8) * t_op).abs() < 1e-9,
        "{}",
        out.simulated.compute_s
    );
}

#[test]
fn the_client_picks_the_server_with_the_least_predicted_time() {
    // A near server (10 ms, 12.5 MB/s, 1 core at 75 Mflop/s) and a far one (50 ms, 1.25 MB/s,
    // 16 cores at 75 Mflop/s), plus local execution on the client (36 Mflop/s, 1 thread). Eq. 1
    // decides; the simulation of every candidate must rank them in the same order here, since
    // without perturbations each simulated time equals its prediction.
    let mut p = Platform::new();
    let c = p.add_host(Host::new("client", 36e6)).unwrap();
    let near = p.add_host(Host::new("near", 75e6)).unwrap();
    let mut far_host = Host::new("far", 75e6);
    far_host.cores = 16;
    let far = p.add_host(far_host).unwrap();
    let ln = p.add_link(Link::new("ln", 12.5e6, 0.01)).unwrap();
    let lf = p.add_link(Link::new("lf", 1.25e6, 0.05)).unwrap();
    for (h, l) in [(near, ln), (far, lf)] {
        p.routing.add_route(c, h, vec![l]);
        p.routing.add_route(h, c, vec![l]);
    }
    let platform = Arc::new(p);
    // Expected winners from eq. 1 by hand: n = 64 matrices -> local (no transfer); n = 64 with
    // a 100x costlier operator -> near (local computes 2.8 s, far pays 1.3 s of start-ups);
    // n = 2048 with the costly operator -> far (16 threads).
    for (n, op_flops, winner) in [
        (64, MATMUL, "local"),
        (64, 100.0 * MATMUL, "near"),
        (2048, 100.0 * MATMUL, "far"),
    ] {
        let mut sc = scenario(PerfFunction::Reduce, n, 1);
        sc.op_flops = op_flops;
        sc.servers = vec![
            ServerSpec {
                name: "local".into(),
                host: c,
                threads: 1,
                skeletons: vec![PerfFunction::Reduce],
            },
            ServerSpec {
                name: "near".into(),
                host: near,
                threads: 1,
                skeletons: vec![PerfFunction::Reduce],
            },
            ServerSpec {
                name: "far".into(),
                host: far,
                threads: 16,
                skeletons: vec![PerfFunction::Reduce],
            },
        ];
        let chosen = run_scenario(&platform, &sc).unwrap();
        let mut simulated = Vec::new();
        for i in 0..3 {
            sc.choice = Choice::Fixed(i);
            simulated.push(run_scenario(&platform, &sc).unwrap().simulated.total_s);
        }
        let best = (0..3).min_by(|&a, &b| simulated[a].total_cmp(&simulated[b])).unwrap();
        println!(
            "n={n} op={op_flops}: chose {} ; simulated {simulated:?}",
            sc.servers[chosen.prediction.server].name
        );
        assert_eq!(chosen.prediction.server, best, "n={n}: simulated {simulated:?}");
        assert_eq!(sc.servers[best].name, winner);
    }
}

#[test]
fn task_graphs_have_the_performance_functions_critical_paths() {
    // Longest path in operator units = t_skel(n, p, 1) when p divides n (module docs of alt).
    fn critical(tasks: &[schedulers::skeleton::alt_sim::Task]) -> f64 {
        let mut finish = vec![0.0; tasks.len()];
        for (t, task) in tasks.iter().enumerate() {
            let start = task.deps.iter().map(|&d| finish[d]).fold(0.0, f64::max);
            finish[t] = start + task.ops.iter().sum::<f64>();
        }
        finish[tasks.len() - 1]
    }
    for f in [PerfFunction::Reduce, PerfFunction::Scan, DC] {
        for (n, p) in [(16, 1), (16, 2), (16, 4), (64, 8), (2048, 16), (6, 3), (8, 8)] {
            let tasks = plan(&f, n, p).unwrap();
            assert!((critical(&tasks) - f.time(n, p, 1.0)).abs() < 1e-9, "{f:?} n={n} p={p}");
        }
    }
    assert!(plan(&PerfFunction::Reduce, 2, 4).is_err());
}

#[test]
fn local_execution_sends_nothing() {
    let platform = client_server(16, 0.02, 1.25e6);
    let call = RemoteCall {
        client: HostId(0),
        server: HostId(0),
        threads: 1,
        skeleton: PerfFunction::Reduce,
        n: 100,
        element_bytes: ELEMENT,
        operator_bytes: 2000.0,
        result_elements: 1.0,
        op_flops: MATMUL,
        op_jitter: 0.0,
        sync_overhead_s: 0.0,
        background_processes: 0,
        seed: 1,
    };
    let out = simulate_call(platform, &call).unwrap();
    // 99 applications of 16000 flops at 36 Mflop/s, nothing else.
    assert_eq!(out.applications, 99);
    assert!((out.total_s - 99.0 * MATMUL / 36e6).abs() < 1e-12);
    assert_eq!(out.request_s, 0.0);
}

#[test]
#[ignore = "about 1 minute in release: cargo test --release -p schedulers --test skeleton_sim -- --ignored"]
fn batch_means_intervals_cover_the_ctmc_throughput_95_percent_of_the_time() {
    // 200 independent runs (seeds 1000..1199) of 40 000 items for three Experiment-1 cases: a
    // 95% interval must contain the CTMC value in 190 runs on average; 180 is 3.3 binomial
    // standard deviations (sqrt(200 x 0.05 x 0.95) = 3.1) below. The standardised errors
    // (mean - CTMC) / standard error must average 0 (no bias): |mean| < 0.3, about 3.3 of
    // their standard errors (1/sqrt(200) x ~1.06, the spread of a t with 19 df).
    for (lat, m) in [
        (0.01, "[1, (1,1,1,1), 1]"),
        (0.01, "[1, (1,2,3,4), 1]"),
        (20.0, "[1, (1,1,2,2), 1]"),
    ] {
        let c = exp1(lat, m);
        let expected = ctmc(&c);
        let mut inside = 0;
        let mut z = Vec::new();
        for seed in 1000..1200 {
            let out = run_model(&c, ServiceDist::Exponential, 40_000, seed);
            inside += usize::from(out.throughput.contains(expected));
            z.push((out.throughput.mean - expected) / out.throughput.std_error);
        }
        let (mean_z, _) = mean_ci(&z);
        println!("latency {lat} {m}: CTMC in the 95% interval {inside}/200 times, mean standardised error {mean_z:.3}");
        assert!(inside >= 180, "{m}: coverage {inside}/200");
        assert!(mean_z.abs() < 0.3, "{m}: mean z {mean_z}");
    }
}

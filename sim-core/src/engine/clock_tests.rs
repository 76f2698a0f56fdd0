//! The engine in fast mode (bottleneck clocks, incremental solves) against exact mode on random
//! master/worker scenarios: the same activities, started at the same dates, must complete at the
//! same dates within 1e-9 relative (issue 19's bound against SimGrid; the two modes' values are
//! equal and only the progress arithmetic differs). Fast mode also leaves implied links out of
//! comms' variables, and gives them back when a worker-to-worker route frees the backbone.

use std::sync::Arc;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};

use crate::engine::{Engine, EngineStats, Notification};
use crate::network::NetworkParams;
use crate::platform::{Host, HostId, Link, Platform};
use crate::profile::Profile;
use crate::sharing::SharingMode;

/// A star: the master's link, then a backbone, then each worker's private link; workers have
/// one or two cores. In half the platforms the master's link changes bandwidth while flows run,
/// and some private links change latency (the changes that move penalties and bounds).
fn star(rng: &mut impl Rng, workers: usize) -> (Platform, HostId, Vec<HostId>) {
    let mut p = Platform::new();
    let master = p.add_host(Host::new("master", 1e9)).unwrap();
    let hub_bandwidth = rng.gen_range(1e6..1e8);
    let hub = p.add_link(Link::new("hub", hub_bandwidth, 1e-4)).unwrap();
    let backbone = p
        .add_link(Link::new("backbone", rng.gen_range(1e7..1e9), 1e-3))
        .unwrap();
    let mut hosts = Vec::new();
    let mut owns = Vec::new();
    for i in 0..workers {
        let mut host = Host::new(format!("w{i}"), rng.gen_range(1e8..1e9));
        host.cores = rng.gen_range(1..3);
        let h = p.add_host(host).unwrap();
        let lat = rng.gen_range(1e-5..1e-2);
        let own = p
            .add_link(Link::new(format!("l{i}"), rng.gen_range(1e6..1e9), lat))
            .unwrap();
        if rng.gen_bool(0.3) {
            let steps = vec![(rng.gen_range(0.5..5.0), lat * 3.0), (rng.gen_range(5.0..9.0), lat)];
            p.links[own.0 as usize].latency_profile = Some(Profile::new(steps, None).unwrap());
        }
        p.routing.add_route(master, h, vec![hub, backbone, own]);
        p.routing.add_route(h, master, vec![own, backbone, hub]);
        hosts.push(h);
        owns.push(own);
    }
    // Each worker also reaches the next one, around the hub: the first such route shows that the
    // backbone is not implied by the hub after all.
    for i in 0..workers {
        let j = (i + 1) % workers;
        if i != j {
            p.routing
                .add_route(hosts[i], hosts[j], vec![owns[i], backbone, owns[j]]);
        }
    }
    if rng.gen_bool(0.5) {
        let steps = vec![
            (rng.gen_range(0.5..4.0), hub_bandwidth * 0.3),
            (rng.gen_range(4.0..8.0), hub_bandwidth * 2.0),
        ];
        p.links[hub.0 as usize].bandwidth_profile = Some(Profile::new(steps, None).unwrap());
    }
    (p, master, hosts)
}

/// What to start, and when: (date, tag, kind) with kind 0 = comm master -> worker, 1 = comm
/// worker -> master, 2 = exec on the worker, 3 = comm worker -> next worker (rarer); sizes in
/// bytes or flops.
type Plan = Vec<(f64, usize, u8, f64)>;

fn plan(rng: &mut impl Rng, workers: usize, activities: usize) -> Plan {
    (0..activities)
        .map(|_| {
            // A few dates repeat exactly, so that activities start together.
            let date = if rng.gen_bool(0.4) {
                0.0
            } else {
                rng.gen_range(0.0..20.0f64).floor() / 2.0
            };
            let kind = if rng.gen_bool(0.05) { 3 } else { rng.gen_range(0..3u8) };
            let size = 10f64.powf(rng.gen_range(3.0..8.0));
            (date, rng.gen_range(0..workers), kind, size)
        })
        .collect()
}

/// Completion date of each planned activity (in plan order), and the engine's work counters.
fn run(p: &Arc<Platform>, master: HostId, hosts: &[HostId], plan: &Plan, mode: SharingMode) -> (Vec<f64>, EngineStats) {
    let mut e = Engine::with_options(Arc::clone(p), NetworkParams::lv08(), mode);
    let n = plan.len() as u64;
    for (k, &(date, ..)) in plan.iter().enumerate() {
        e.sleep(date, n + k as u64);
    }
    let mut done = vec![f64::NAN; plan.len()];
    while let Some(note) = e.next_notification() {
        let Notification::Completed { tag, .. } = note else {
            panic!("nothing fails here: {note:?}");
        };
        if tag >= n {
            let k = (tag - n) as usize;
            let (_, w, kind, size) = plan[k];
            let h = hosts[w];
            match kind {
                0 => e.start_comm(master, h, size, k as u64).map(|_| ()).unwrap(),
                1 => e.start_comm(h, master, size, k as u64).map(|_| ()).unwrap(),
                3 => e
                    .start_comm(h, hosts[(w + 1) % hosts.len()], size, k as u64)
                    .map(|_| ())
                    .unwrap(),
                _ => {
                    e.start_exec(h, size, k as u64);
                }
            }
        } else {
            done[tag as usize] = e.now().secs();
        }
    }
    (done, e.stats())
}

/// Runs one random scenario in both modes; returns fast mode's work counters.
fn compare(seed: u64) -> EngineStats {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let workers = rng.gen_range(2..40);
    let (p, master, hosts) = star(&mut rng, workers);
    let activities = rng.gen_range(1..150);
    let plan = plan(&mut rng, workers, activities);
    let p = Arc::new(p);
    let (exact, _) = run(&p, master, &hosts, &plan, SharingMode::Exact);
    let (fast, stats) = run(&p, master, &hosts, &plan, SharingMode::Fast);
    for (k, (f, x)) in fast.iter().zip(&exact).enumerate() {
        assert!(
            (f - x).abs() <= 1e-9 * x.abs(),
            "seed {seed}: activity {k} {:?}: fast {f} vs exact {x}",
            plan[k]
        );
    }
    stats
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fast_mode_completes_everything_when_exact_mode_does(seed in any::<u64>()) {
        compare(seed);
    }
}

#[test]
fn the_random_scenarios_put_flows_on_clocks() {
    // Without this the comparison above could pass with no clock ever formed.
    let with_clocks = (0..40).filter(|&seed| compare(seed).clock_joins > 0).count();
    assert!(with_clocks >= 10, "only {with_clocks} of 40 scenarios used a clock");
}

#[test]
fn the_random_scenarios_leave_implied_links_out_and_give_them_back() {
    // Without this the comparison above could pass with every use kept.
    let stats: Vec<EngineStats> = (0..40).map(compare).collect();
    let omitting = stats.iter().filter(|s| s.omitted_uses > 0).count();
    let restoring = stats.iter().filter(|s| s.restored_uses > 0).count();
    assert!(omitting >= 20, "only {omitting} of 40 scenarios left a use out");
    assert!(
        restoring >= 3,
        "only {restoring} of 40 scenarios gave a use back to a running comm"
    );
}

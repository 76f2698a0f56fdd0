//! Closed-form checks on the real grid90 platform (`platforms/data/grid90.xml`, the LDS paper's
//! 90-host SimGrid grid).
//!
//! One flow alone on a route with raw latency `L` takes, under SimGrid 3.32's LV08 model,
//! `T = 13.01 L + S / (0.97 · min(min_l B_l / w_l, 4194304 / (2 L)))`, where `w_l = 1.05` when
//! link `l` is also on the reverse route (cross traffic) and 1 otherwise (design.md, "Network
//! model"; SimGrid's own outputs for these routes are checked in `simgrid_agreement.rs`).

use std::path::Path;
use std::sync::Arc;

use sim_core::platform::{HostId, Platform};
use sim_core::{Engine, Notification};

fn grid90() -> Platform {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml");
    platforms::load_platform(&path).expect("grid90 loads")
}

fn expected_alone(p: &Platform, src: HostId, dst: HostId, bytes: f64) -> f64 {
    let forward = p.route(src, dst).unwrap().links;
    let back = p.route(dst, src).unwrap().links;
    let latency: f64 = forward.iter().map(|&l| p.link(l).latency).sum();
    let narrowest = forward
        .iter()
        .map(|&l| p.link(l).bandwidth / if back.contains(&l) { 1.05 } else { 1.0 })
        .fold(f64::INFINITY, f64::min);
    13.01 * latency + bytes / (0.97 * narrowest.min(4194304.0 / (2.0 * latency)))
}

#[test]
fn one_flow_alone_matches_the_formula_on_every_route_from_jacquelin() {
    let platform = Arc::new(grid90());
    assert_eq!(platform.hosts.len(), 90);
    let jacquelin = platform.host_id("Jacquelin").unwrap();
    let mut checked = 0;
    for size in [1e3, 1e6, 1e9] {
        for i in 0..platform.hosts.len() as u32 {
            let dst = HostId(i);
            if dst == jacquelin {
                continue;
            }
            let mut engine = Engine::new(platform.clone()).unwrap();
            engine.start_comm(jacquelin, dst, size, 0).unwrap();
            let Some(Notification::Completed { .. }) = engine.next_notification() else {
                panic!("comm must complete")
            };
            let t = engine.now().secs();
            let expected = expected_alone(&platform, jacquelin, dst, size);
            assert!(
                ((t - expected) / expected).abs() <= 1e-9,
                "Jacquelin -> {}: {t} vs formula {expected}",
                platform.host(dst).name
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 89);
}

#[test]
fn missing_routes_load_but_a_message_fails_naming_both_hosts() {
    // shared/platforms/SOURCES.txt: "the host pairs St_Jean-Jill and Thierry-Lachapelle have no route".
    let platform = Arc::new(grid90());
    let mut engine = Engine::new(platform.clone()).unwrap();
    for (a, b) in [
        ("St_Jean", "Jill"),
        ("Jill", "St_Jean"),
        ("Thierry", "Lachapelle"),
        ("Lachapelle", "Thierry"),
    ] {
        let (src, dst) = (platform.host_id(a).unwrap(), platform.host_id(b).unwrap());
        let err = engine.start_comm(src, dst, 1.0, 0).unwrap_err().to_string();
        assert!(err.contains(a) && err.contains(b), "{err}");
    }
}

#[test]
fn n_equal_flows_on_the_bottleneck_finish_at_the_max_min_time() {
    // N flows Jacquelin -> Boivin started together share the route's narrowest link equally
    // (same penalty): each gets 1/N of it, so T_N = 13.01 L + N S / (0.97 · B_min/w) as long as
    // the TCP window bound min(...) is not the binding one.
    let platform = Arc::new(grid90());
    let (src, dst) = (
        platform.host_id("Jacquelin").unwrap(),
        platform.host_id("Boivin").unwrap(),
    );
    let single = expected_alone(&platform, src, dst, 0.0); // 13.01 L
    let alone_rate = 1e6 / (expected_alone(&platform, src, dst, 1e6) - single);
    for n in [2usize, 4, 8] {
        let mut engine = Engine::new(platform.clone()).unwrap();
        for i in 0..n {
            engine.start_comm(src, dst, 1e6, i as u64).unwrap();
        }
        let mut finishes = Vec::new();
        while let Some(note) = engine.next_notification() {
            assert!(matches!(note, Notification::Completed { .. }));
            finishes.push(engine.now().secs());
        }
        // The window bound applies per flow, so the shared link is the bottleneck only when
        // N flows at the window rate would exceed it.
        let forward = platform.route(src, dst).unwrap().links;
        let latency: f64 = forward.iter().map(|&l| platform.link(l).latency).sum();
        let window = 4194304.0 / (2.0 * latency);
        let per_flow = (alone_rate / 0.97 / n as f64).min(window) * 0.97;
        let per_flow = if alone_rate / 0.97 < window {
            alone_rate / n as f64
        } else {
            per_flow
        };
        let expected = single + 1e6 / per_flow;
        for t in finishes {
            assert!(((t - expected) / expected).abs() <= 1e-9, "n={n}: {t} vs {expected}");
        }
    }
}

//! Every host-to-host route of small platforms compared with SimGrid 3.32's own answer.
//!
//! `data/simgrid/*.routes` were written by `data/simgrid/dump_routes.py` (python3-simgrid 3.32,
//! routes queried with `Host.route_to` from inside a running actor); regenerate them with
//! `/usr/bin/python3 dump_routes.py X.xml > X.routes`. The grid90 fingerprint comes from
//! `/usr/bin/python3 dump_routes.py --digest ../../../data/grid90.xml`.

use std::path::{Path, PathBuf};

use sim_core::platform::{HostId, Platform};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/simgrid")
        .join(name)
}

fn sorted_hosts(p: &Platform) -> Vec<HostId> {
    let mut hosts: Vec<HostId> = (0..p.hosts.len() as u32).map(HostId).collect();
    hosts.sort_by(|a, b| p.host(*a).name.cmp(&p.host(*b).name));
    hosts
}

/// (links as names, latency) or None for no route.
fn ours(p: &Platform, a: HostId, b: HostId) -> Option<(String, f64)> {
    let route = p.route(a, b).ok()?;
    let names: Vec<&str> = route.links.iter().map(|&l| p.link(l).name.as_str()).collect();
    Some((names.join(" "), p.route_latency(&route)))
}

fn check_against_simgrid(platform: &str) {
    let p = platforms::load_platform(&data(platform)).unwrap();
    let expected = std::fs::read_to_string(data(&platform.replace(".xml", ".routes"))).unwrap();
    let hosts = sorted_hosts(&p);
    let mut lines = expected.lines();
    for &a in &hosts {
        for &b in &hosts {
            let line = lines.next().expect("fewer SimGrid routes than host pairs");
            let (head, links) = line.split_once(" : ").unwrap();
            let fields: Vec<&str> = head.split(' ').collect();
            assert_eq!(
                (fields[0], fields[1]),
                (p.host(a).name.as_str(), p.host(b).name.as_str())
            );
            let got = ours(&p, a, b);
            if links == "NOROUTE" {
                assert_eq!(got, None, "{platform}: {line}");
                continue;
            }
            let (names, latency) = got.unwrap_or_else(|| panic!("{platform}: no route for {line}"));
            assert_eq!(names, links, "{platform}: {} -> {}", fields[0], fields[1]);
            let simgrid_latency: f64 = fields[2].parse().unwrap();
            assert!(
                (latency - simgrid_latency).abs() <= 1e-12 * simgrid_latency.abs(),
                "{platform}: latency {latency} vs SimGrid {simgrid_latency} for {line}"
            );
        }
    }
    assert_eq!(lines.next(), None, "more SimGrid routes than host pairs");
}

#[test]
fn floyd_routes_match_simgrid() {
    check_against_simgrid("floyd.xml");
}

#[test]
fn dijkstra_routes_match_simgrid() {
    check_against_simgrid("dijkstra.xml");
}

#[test]
fn hierarchical_zone_routes_match_simgrid() {
    check_against_simgrid("zones.xml");
}

#[test]
fn cluster_routes_match_simgrid() {
    check_against_simgrid("clusters.xml");
}

#[test]
fn cluster_routing_zone_matches_simgrid() {
    check_against_simgrid("cluster_zone.xml");
}

#[test]
fn dijkstra_zone_routes_match_simgrid() {
    check_against_simgrid("dijkstra_zones.xml");
}

#[test]
fn grid90_fingerprint_matches_simgrid() {
    let p = platforms::load_platform(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/grid90.xml")).unwrap();
    let hosts = sorted_hosts(&p);
    let mut text = String::new();
    for &a in &hosts {
        for &b in &hosts {
            let (ha, hb) = (&p.host(a).name, &p.host(b).name);
            match ours(&p, a, b) {
                None => text.push_str(&format!("{ha} {hb} : NOROUTE\n")),
                Some((links, latency)) => text.push_str(&format!("{ha} {hb} {:016x} : {links}\n", latency.to_bits())),
            }
        }
    }
    if let Ok(path) = std::env::var("GRIDSIM_DUMP_GRID90") {
        std::fs::write(path, &text).unwrap();
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash = (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    // Latencies included bit for bit: same unit parsing, same summation order as SimGrid.
    assert_eq!(format!("{hash:016x}"), "365a787fd42fc1be");
}

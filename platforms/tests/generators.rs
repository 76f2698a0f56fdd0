//! Generated platforms.

use platforms::{homogeneous_cluster, parse_simgrid_xml, random_grid, NoFiles, RandomGridParams};
use sim_core::platform::{HostId, Platform};

fn route_names(p: &Platform, a: u32, b: u32) -> Vec<String> {
    let r = p.route(HostId(a), HostId(b)).unwrap();
    r.links.iter().map(|&l| p.link(l).name.clone()).collect()
}

#[test]
fn random_grid_is_deterministic_connected_and_in_range() {
    let params = RandomGridParams {
        hosts: 30,
        extra_links: 12,
        ..RandomGridParams::default()
    };
    let a = random_grid(&params, 42).unwrap();
    let b = random_grid(&params, 42).unwrap();
    let c = random_grid(&params, 43).unwrap();
    assert_eq!(a.hosts, b.hosts);
    assert_eq!(a.links, b.links);
    assert_ne!(a.hosts, c.hosts);
    assert_eq!(a.hosts.len(), 30);
    assert_eq!(a.links.len(), 29 + 12);
    for h in &a.hosts {
        assert!(h.speed >= params.speed_flops.0 && h.speed <= params.speed_flops.1);
    }
    for l in &a.links {
        assert!(l.bandwidth >= params.bandwidth.0 && l.bandwidth <= params.bandwidth.1);
        assert!(l.latency >= params.latency.0 && l.latency <= params.latency.1);
    }
    for s in 0..30 {
        for d in 0..30 {
            let ra = a.route(HostId(s), HostId(d)).unwrap();
            assert_eq!(ra, b.route(HostId(s), HostId(d)).unwrap());
            assert_eq!(ra.links.is_empty(), s == d);
            // Fewest links: the reverse route has the same length.
            assert_eq!(ra.links.len(), a.route(HostId(d), HostId(s)).unwrap().links.len());
        }
    }
    assert!(random_grid(
        &RandomGridParams {
            hosts: 0,
            ..params.clone()
        },
        1
    )
    .is_err());
    assert!(random_grid(
        &RandomGridParams {
            speed_flops: (5.0, 1.0),
            ..params.clone()
        },
        1
    )
    .is_err());
    assert!(random_grid(
        &RandomGridParams {
            hosts: 3,
            extra_links: 5,
            ..params
        },
        1
    )
    .is_err());
}

#[test]
fn homogeneous_cluster_matches_simgrids_cluster_tag() {
    // SimGrid reads lat="50us" as 50 * 1e-6 = 4.9999999999999996e-05, not the literal 50e-6:
    // pass the parsed unit strings to get the same bits.
    let us50 = platforms::units::parse_time("50us").unwrap();
    assert_ne!(us50, 50e-6);
    let generated = homogeneous_cluster(10, 1e9, 125e6, us50, 2.25e9, 500e-6).unwrap();
    let xml = r#"<?xml version='1.0'?>
<platform version="4.1">
<cluster id="cluster" prefix="node-" suffix="" radical="0-9" speed="1Gf" bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="500us"/>
</platform>"#;
    let parsed = parse_simgrid_xml(xml, "c.xml", &mut NoFiles).unwrap();
    assert_eq!(generated.hosts, parsed.hosts);
    assert_eq!(generated.links, parsed.links);
    for a in 0..10 {
        for b in 0..10 {
            assert_eq!(route_names(&generated, a, b), route_names(&parsed, a, b));
        }
    }
}

#[test]
fn thousand_host_cluster_routes_on_demand() {
    // Issue 5's cluster: 1 Gflop/s hosts, 125 MB/s 50 us private links, 2.25 GB/s 500 us backbone.
    let p = homogeneous_cluster(1000, 1e9, 125e6, 50e-6, 2.25e9, 500e-6).unwrap();
    assert_eq!(p.hosts.len(), 1000);
    assert_eq!(p.links.len(), 2 * 1000 + 1);
    assert_eq!(p.routing.declared_route_count(p.routing.root()), 0);
    assert_eq!(
        route_names(&p, 0, 999),
        ["cluster_link_0_UP", "cluster_backbone", "cluster_link_999_DOWN"]
    );
    assert_eq!(
        route_names(&p, 7, 7),
        ["cluster_link_7_UP", "cluster_backbone", "cluster_link_7_DOWN"]
    );
    let r = p.route(HostId(3), HostId(4)).unwrap();
    assert_eq!(p.route_latency(&r), 50e-6 + 500e-6 + 50e-6);
    // Every pair: 10^6 routes, computed on the fly.
    let start = std::time::Instant::now();
    let mut total = 0usize;
    for a in 0..1000 {
        for b in 0..1000 {
            total += p.route(HostId(a), HostId(b)).unwrap().links.len();
        }
    }
    assert_eq!(total, 3 * 1_000_000);
    assert!(
        start.elapsed().as_secs() < 60,
        "routing 10^6 pairs took {:?}",
        start.elapsed()
    );
    assert!(homogeneous_cluster(0, 1e9, 1.0, 0.0, 1.0, 0.0).is_err());
    assert!(homogeneous_cluster(2, -1.0, 1.0, 0.0, 1.0, 0.0).is_err());
}

/// FNV-1a over every route of a platform, in (source, destination) order: each route's length
/// and link indices.
fn all_routes_digest(p: &Platform) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |x: u32| {
        for byte in x.to_le_bytes() {
            hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let n = p.hosts.len() as u32;
    for s in 0..n {
        for d in 0..n {
            let links = p.route(HostId(s), HostId(d)).unwrap().links;
            eat(links.len() as u32);
            for l in links {
                eat(l.0);
            }
        }
    }
    hash
}

/// The routes of generated grids are pinned: the digest of every route (same links in the same
/// order) of two grids with many equally short paths, as SimGrid's Dijkstra routing picks them
/// (`sim_core`'s routing tests hold the route computation to that definition on random
/// graphs). A change of the generator or of the routing that moves any route fails here.
#[test]
fn random_grid_routes_are_pinned() {
    for (hosts, extra_links, seed, digest) in [
        (120, 100, 7, 0x8f99_736e_3b25_87c1),
        (300, 20, 11, 0x25a2_fdf9_5b7f_ce5a),
    ] {
        let params = RandomGridParams {
            hosts,
            extra_links,
            ..RandomGridParams::default()
        };
        let grid = random_grid(&params, seed).unwrap();
        assert_eq!(
            all_routes_digest(&grid),
            digest,
            "{hosts} hosts, {extra_links} extra links, seed {seed}"
        );
    }
}

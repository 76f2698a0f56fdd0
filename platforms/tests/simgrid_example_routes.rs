//! Every host-to-host route of SimGrid 3.32's example platforms that use `<cabinet>`, bypass
//! routes and Vivaldi zones, compared with SimGrid's own answer, and hand-worked checks of what
//! those features mean.
//!
//! `data/simgrid/examples/*.routes` were written by `data/simgrid/dump_routes.py` (python3-simgrid
//! 3.32) on the byte copies of SimGrid's files in `tests/data/platforms/simgrid-examples/`:
//! `/usr/bin/python3 dump_routes.py ../../../../tests/data/platforms/simgrid-examples/X.xml >
//! examples/X.routes`.

use std::path::{Path, PathBuf};

use sim_core::platform::{vivaldi_latency, HostId, Platform};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/platforms/simgrid-examples")
        .join(name)
}

fn load(name: &str) -> Platform {
    platforms::load_platform(&example(name)).unwrap()
}

fn host(p: &Platform, name: &str) -> HostId {
    p.host_id(name).unwrap_or_else(|| panic!("no host {name}"))
}

/// (links as names, latency) or None for no route.
fn ours(p: &Platform, a: HostId, b: HostId) -> Option<(String, f64)> {
    let route = p.route(a, b).ok()?;
    let names: Vec<&str> = route.links.iter().map(|&l| p.link(l).name.as_str()).collect();
    Some((names.join(" "), p.route_latency(&route)))
}

fn check_against_simgrid(platform: &str) {
    let p = load(platform);
    let routes = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/simgrid/examples")
        .join(platform.replace(".xml", ".routes"));
    let expected = std::fs::read_to_string(routes).unwrap();
    let mut hosts: Vec<HostId> = (0..p.hosts.len() as u32).map(HostId).collect();
    hosts.sort_by(|a, b| p.host(*a).name.cmp(&p.host(*b).name));
    let mut lines = expected.lines();
    for &a in &hosts {
        for &b in &hosts {
            let line = lines.next().expect("fewer SimGrid routes than host pairs");
            let (head, links) = line.split_once(" : ").unwrap_or((line.trim_end_matches(" :"), ""));
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
fn cabinets_route_as_simgrid() {
    check_against_simgrid("meta_cluster.xml");
}

#[test]
fn bypass_routes_route_as_simgrid() {
    check_against_simgrid("bypassRoute.xml");
    check_against_simgrid("bypassZoneRoute.xml");
}

#[test]
fn vivaldi_zones_route_as_simgrid() {
    check_against_simgrid("two_peers.xml");
    check_against_simgrid("vivaldi.xml");
}

/// A bypass route wins over the route the zone computes, in its own direction only.
#[test]
fn bypass_route_takes_precedence_one_way() {
    let p = load("bypassRoute.xml");
    let (h1, h2) = (host(&p, "AS_2_host1"), host(&p, "AS_2_host2"));
    // Floyd's own path is central_router's star (link1 then link2); the file declares the
    // bypass host1 -> host2 = link7 link6 link5, and nothing for host2 -> host1.
    assert_eq!(ours(&p, h1, h2).unwrap().0, "AS_2_link7 AS_2_link6 AS_2_link5");
    assert_eq!(ours(&p, h2, h1).unwrap().0, "AS_2_link2 AS_2_link1");
    // The zone bypass of bypassZoneRoute.xml: cluster 1 -> cluster 2 over link_tmp instead of
    // the zoneRoute's link1 link2; the reverse keeps the zoneRoute (reversed: link2 link1).
    let p = load("bypassZoneRoute.xml");
    let (a, b) = (host(&p, "1"), host(&p, "2"));
    assert_eq!(
        ours(&p, a, b).unwrap().0,
        "my_cluster_1_link_1_UP link_tmp my_cluster_2_link_2_DOWN"
    );
    assert_eq!(
        ours(&p, b, a).unwrap().0,
        "my_cluster_2_link_2_UP link2 link1 my_cluster_1_link_1_DOWN"
    );
}

/// Vivaldi latency by hand from two_peers.xml's coordinates: peer 100030591 at (25.5, 9.4,
/// 1.4), peer 100036570 at (-12.7, -9.9, 2.1) (milliseconds). The plane distance is
/// sqrt(38.2² + 19.3²) = sqrt(1459.24 + 372.49) = sqrt(1831.73) = 42.79871493... ms; plus the
/// heights 1.4 + 2.1 = 3.5 ms gives 46.29871493... ms, so 0.04629871493... s; the peers' links
/// have no latency. To itself a member is its height twice: 2.8 ms.
#[test]
fn vivaldi_latency_is_distance_plus_heights() {
    let a = [25.5, 9.4, 1.4];
    let b = [-12.7, -9.9, 2.1];
    let by_hand = (1831.73f64.sqrt() + 3.5) / 1000.0;
    assert!(
        (vivaldi_latency(a, b) - by_hand).abs() < 1e-15,
        "{}",
        vivaldi_latency(a, b)
    );
    assert!((vivaldi_latency(a, b) - 0.046_298_714_933_979).abs() < 1e-14);
    assert!((vivaldi_latency(a, a) - 0.0028).abs() < 1e-15);
    let p = load("two_peers.xml");
    let (x, y) = (host(&p, "100030591"), host(&p, "100036570"));
    let (links, latency) = ours(&p, x, y).unwrap();
    assert_eq!(links, "link_100030591_UP link_100036570_DOWN");
    assert_eq!(latency, vivaldi_latency(a, b));
    // vivaldi.xml's hosts are not peers: no link at all, only the distance.
    let p = load("vivaldi.xml");
    let (x, y) = (host(&p, "100030591"), host(&p, "100036570"));
    assert_eq!(ours(&p, x, y).unwrap(), (String::new(), vivaldi_latency(a, b)));
}

/// routing="None": a route that only passes through such a zone's host as a zoneRoute gateway
/// works (SimGrid 3.32: c-0.me -> host1 = datacenter_link_0_UP, link1); any route inside the
/// zone, even a host to itself, does not (SimGrid aborts: "There can't be route in an Empty
/// zone").
#[test]
fn none_zones_only_hold_gateways() {
    let p = load("cluster_and_one_host.xml");
    let (c0, h1) = (host(&p, "c-0.me"), host(&p, "host1"));
    assert_eq!(ours(&p, c0, h1).unwrap().0, "datacenter_link_0_UP link1");
    assert_eq!(ours(&p, h1, c0).unwrap().0, "link1 datacenter_link_0_DOWN");
    assert_eq!(ours(&p, h1, h1), None);
    let p = load("small_platform_routing_none.xml");
    let (t, j) = (host(&p, "Tremblay"), host(&p, "Jupiter"));
    assert_eq!(ours(&p, t, j), None);
    assert_eq!(ours(&p, t, t), None);
}

/// Routes between the data centres of cloud.xml cross its Vivaldi root between two zones, which
/// SimGrid 3.32 cannot route (zones have no coordinates: it aborts); inside one they work.
#[test]
fn vivaldi_zone_between_child_zones_has_no_route() {
    let p = load("cloud.xml");
    let (a, b) = (host(&p, "cb1-1.dc1.acloud.com"), host(&p, "cb1-1.dc2.acloud.com"));
    assert_eq!(ours(&p, a, b), None);
    let c = host(&p, "cb2-1.dc1.acloud.com");
    // SimGrid 3.32: AS1_cb1_link_1_UP AS1_cb1_backbone link_dc1_cb1 link_dc1_cb2
    // AS1_cb2_backbone AS1_cb2_link_1_DOWN, latency 0.0006.
    let (links, latency) = ours(&p, a, c).unwrap();
    assert_eq!(
        links,
        "AS1_cb1_link_1_UP AS1_cb1_backbone link_dc1_cb1 link_dc1_cb2 AS1_cb2_backbone AS1_cb2_link_1_DOWN"
    );
    assert!((latency - 0.0006).abs() < 1e-15);
}

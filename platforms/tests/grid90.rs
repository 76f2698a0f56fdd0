//! The bundled 90-host grid (`data/grid90.xml`, SimGrid's classic example platform).

use std::path::Path;

use sim_core::platform::{Platform, RouteError};

fn grid90() -> Platform {
    platforms::load_platform(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/grid90.xml")).unwrap()
}

fn route_names(p: &Platform, src: &str, dst: &str) -> Vec<String> {
    let route = p.route(p.host_id(src).unwrap(), p.host_id(dst).unwrap()).unwrap();
    route.links.iter().map(|&l| p.link(l).name.clone()).collect()
}

#[test]
fn counts() {
    let p = grid90();
    assert_eq!(p.hosts.len(), 90);
    assert_eq!(p.links.len(), 192);
    assert_eq!(p.routing.zone_count(), 1);
    assert_eq!(p.routing.zone_name(p.routing.root()), "AS0");
    // 4004 <route> elements: 4002 symmetrical ones stored in both directions + 2 with
    // symmetrical="NO" (Jacquelin <-> Marcel).
    assert_eq!(p.routing.declared_route_count(p.routing.root()), 4002 * 2 + 2);
    // Line 5: <host id="Jacquelin" speed="137.333Mf"/>
    let jacquelin = p.host(p.host_id("Jacquelin").unwrap());
    assert_eq!(jacquelin.speed, 137.333e6);
    assert_eq!(jacquelin.cores, 1);
    // Line 159: <link id="145" bandwidth="2.583375MBps" latency="410.463us"/>
    let l145 = p.link(p.link_id("145").unwrap());
    assert_eq!(l145.bandwidth, 2.583375 * 1e6);
    assert_eq!(l145.latency, 410.463 * 1e-6);
    let speeds: Vec<f64> = p.hosts.iter().map(|h| h.speed).collect();
    assert_eq!(speeds.iter().cloned().fold(f64::INFINITY, f64::min), 22.151e6);
    assert_eq!(speeds.iter().cloned().fold(0.0, f64::max), 171.667e6);
}

#[test]
fn routes_follow_the_xml() {
    let p = grid90();
    // Line 290: <route src="Jacquelin" dst="Geoff"><link_ctn id="145"/></route>
    assert_eq!(route_names(&p, "Jacquelin", "Geoff"), ["145"]);
    assert_eq!(route_names(&p, "Geoff", "Jacquelin"), ["145"]);
    // Line 376: Boivin -> Jean_Yves = 47 44 11 10 16 17 54 56 58 63 138; symmetrical, so the
    // way back is the reverse.
    let forward = ["47", "44", "11", "10", "16", "17", "54", "56", "58", "63", "138"];
    assert_eq!(route_names(&p, "Boivin", "Jean_Yves"), forward);
    let mut back = forward;
    back.reverse();
    assert_eq!(route_names(&p, "Jean_Yves", "Boivin"), back);
    // Line 4288: <route src="Fafard" dst="Croteau"> 179 90 89 175
    assert_eq!(route_names(&p, "Fafard", "Croteau"), ["179", "90", "89", "175"]);
    // Latency = sum over the route: 410.463us for Jacquelin -> Geoff.
    let r = p
        .route(p.host_id("Jacquelin").unwrap(), p.host_id("Geoff").unwrap())
        .unwrap();
    assert_eq!(p.route_latency(&r), 410.463 * 1e-6);
}

#[test]
fn jacquelin_marcel_routes_are_asymmetric() {
    let p = grid90();
    // Line 307: <route src="Jacquelin" dst="Marcel" symmetrical="NO"> 145 59 56 54 2 1 15 74 75 155
    assert_eq!(
        route_names(&p, "Jacquelin", "Marcel"),
        ["145", "59", "56", "54", "2", "1", "15", "74", "75", "155"]
    );
    // Line 1945: <route src="Marcel" dst="Jacquelin" symmetrical="NO"> 155 75 73 69 3 2 54 56 59 145
    assert_eq!(
        route_names(&p, "Marcel", "Jacquelin"),
        ["155", "75", "73", "69", "3", "2", "54", "56", "59", "145"]
    );
}

#[test]
fn missing_routes_are_errors_naming_both_hosts() {
    let p = grid90();
    for (a, b) in [
        ("St_Jean", "Jill"),
        ("Jill", "St_Jean"),
        ("Thierry", "Lachapelle"),
        ("Lachapelle", "Thierry"),
    ] {
        let err = p.route(p.host_id(a).unwrap(), p.host_id(b).unwrap()).unwrap_err();
        assert_eq!(
            err,
            RouteError::NoRoute {
                src: a.into(),
                dst: b.into()
            }
        );
        assert_eq!(err.to_string(), format!("no route from host '{a}' to host '{b}'"));
    }
    // Every other pair of distinct hosts has a route; a host reaches itself by the loopback.
    let mut missing = 0;
    for a in 0..90u32 {
        for b in 0..90u32 {
            let r = p.route(sim_core::platform::HostId(a), sim_core::platform::HostId(b));
            match r {
                Ok(route) => assert_eq!(route.links.is_empty(), a == b),
                Err(_) => missing += 1,
            }
        }
    }
    assert_eq!(missing, 4);
}

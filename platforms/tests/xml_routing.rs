//! SimGrid XML features, spelled out (the exhaustive comparison with SimGrid's own routes is in
//! `simgrid_routes.rs`).

use platforms::{parse_simgrid_xml, NoFiles};
use sim_core::platform::{DiskModel, Platform, SharingPolicy};

fn load(body: &str) -> Platform {
    let xml = format!("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n{body}\n</platform>\n");
    parse_simgrid_xml(&xml, "t.xml", &mut NoFiles).unwrap()
}

fn names(p: &Platform, src: &str, dst: &str) -> Vec<String> {
    let r = p.route(p.host_id(src).unwrap(), p.host_id(dst).unwrap()).unwrap();
    r.links.iter().map(|&l| p.link(l).name.clone()).collect()
}

#[test]
fn cluster_up_down_backbone_loopback_limiter() {
    let p = load(
        r#"<zone id="root" routing="Full">
  <cluster id="sd" prefix="s" suffix="" radical="0-1" speed="1Gf" bw="125MBps" lat="50us" bb_bw="1GBps" bb_lat="1us"/>
  <cluster id="lb" prefix="l" suffix="" radical="0-1" speed="1Gf" bw="125MBps" lat="50us" sharing_policy="SHARED"
           loopback_bw="10GBps" loopback_lat="0" limiter_link="1GBps"/>
</zone>"#,
    );
    // Leaving through <id>_link_<n>_UP, entering through _DOWN, the backbone in between.
    assert_eq!(names(&p, "s0", "s1"), ["sd_link_0_UP", "sd_backbone", "sd_link_1_DOWN"]);
    assert_eq!(names(&p, "s1", "s0"), ["sd_link_1_UP", "sd_backbone", "sd_link_0_DOWN"]);
    // No loopback: a host reaches itself through its own up and down links and the backbone.
    assert_eq!(names(&p, "s0", "s0"), ["sd_link_0_UP", "sd_backbone", "sd_link_0_DOWN"]);
    // Loopback (FATPIPE) for self routes; limiters around shared private links.
    assert_eq!(names(&p, "l1", "l1"), ["lb_link_1_loopback"]);
    assert_eq!(
        names(&p, "l0", "l1"),
        ["lb_link_0_limiter", "lb_link_0", "lb_link_1", "lb_link_1_limiter"]
    );
    assert_eq!(
        p.link(p.link_id("lb_link_1_loopback").unwrap()).policy,
        SharingPolicy::Fatpipe
    );
    assert_eq!(p.link(p.link_id("sd_backbone").unwrap()).bandwidth, 1e9);
    assert!(p.route(p.host_id("s0").unwrap(), p.host_id("l0").unwrap()).is_err());
}

#[test]
fn zone_route_across_two_zones() {
    let p = load(
        r#"<zone id="root" routing="Full">
  <zone id="left" routing="Full">
    <host id="a" speed="1Gf"/><router id="gw-left"/>
    <link id="a-gw" bandwidth="1GBps" latency="1ms"/>
    <route src="a" dst="gw-left"><link_ctn id="a-gw"/></route>
  </zone>
  <zone id="right" routing="Full">
    <host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
    <link id="b-c" bandwidth="1GBps" latency="1ms" sharing_policy="SPLITDUPLEX"/>
    <route src="b" dst="c"><link_ctn id="b-c" direction="UP"/></route>
  </zone>
  <link id="wan" bandwidth="10MBps" latency="20ms"/>
  <zoneRoute src="left" dst="right" gw_src="gw-left" gw_dst="b"><link_ctn id="wan"/></zoneRoute>
</zone>"#,
    );
    // a -> gateway of left, the zone route's links, gateway of right (b) -> c.
    assert_eq!(names(&p, "a", "c"), ["a-gw", "wan", "b-c_UP"]);
    assert_eq!(names(&p, "a", "b"), ["a-gw", "wan"]);
    // Symmetrical: reversed, split-duplex halves swapped.
    assert_eq!(names(&p, "c", "a"), ["b-c_DOWN", "wan", "a-gw"]);
    let r = p.route(p.host_id("a").unwrap(), p.host_id("c").unwrap()).unwrap();
    assert!((p.route_latency(&r) - 0.022).abs() < 1e-15);
}

#[test]
fn floyd_and_dijkstra_take_fewest_links() {
    for routing in ["Floyd", "Dijkstra"] {
        let p = load(&format!(
            r#"<zone id="root" routing="{routing}">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><router id="r"/>
  <link id="slow1" bandwidth="1GBps"/><link id="slow2" bandwidth="1GBps"/><link id="slow3" bandwidth="1GBps"/>
  <link id="ar" bandwidth="1GBps"/><link id="rb" bandwidth="1GBps"/>
  <route src="a" dst="b"><link_ctn id="slow1"/><link_ctn id="slow2"/><link_ctn id="slow3"/></route>
  <route src="a" dst="r"><link_ctn id="ar"/></route>
  <route src="r" dst="b"><link_ctn id="rb"/></route>
</zone>"#
        ));
        // Cost = number of links: a-r-b (2) beats the direct route (3), whatever the latencies.
        assert_eq!(names(&p, "a", "b"), ["ar", "rb"], "{routing}");
        assert_eq!(names(&p, "b", "a"), ["rb", "ar"], "{routing}");
    }
}

#[test]
fn hosts_links_disks_config() {
    let p = load(
        r#"<config><prop id="network/latency-factor" value="13.01"/></config>
<zone id="root" routing="Full">
  <host id="h" speed="1Gf,500Mf,100Mf" pstate="1" core="8" availability_file="">
    <prop id="memory" value="16GiB"/><prop id="io_buffer" value="1GiB"/><prop id="rack" value="4"/>
    <disk id="ssd" read_bw="500MBps" write_bw="300MBps"><prop id="size" value="1TB"/></disk>
  </host>
  <link id="f" bandwidth="10Gbps" latency="1us" sharing_policy="FATPIPE"/>
</zone>"#,
    );
    let h = &p.hosts[0];
    assert_eq!((h.speed, h.cores), (500e6, 8));
    assert_eq!(h.memory_bytes, Some(16.0 * (1u64 << 30) as f64));
    assert_eq!(h.io_buffer_bytes, Some((1u64 << 30) as f64));
    assert_eq!(h.properties.get("rack").map(String::as_str), Some("4"));
    assert_eq!(
        p.disks[0].model,
        DiskModel::Shared {
            read_bw: 500e6,
            write_bw: 300e6
        }
    );
    assert_eq!(p.disks[0].name, "ssd");
    assert_eq!(
        p.config.get("network/latency-factor").map(String::as_str),
        Some("13.01")
    );
    let f = p.link(p.link_id("f").unwrap());
    assert_eq!(
        (f.bandwidth, f.latency, f.policy),
        (1.25e9, 1e-6, SharingPolicy::Fatpipe)
    );
}

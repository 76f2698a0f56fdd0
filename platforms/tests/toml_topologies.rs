//! Torus, fat-tree and dragonfly clusters from gridsim TOML and from the generator, against the
//! same cluster in SimGrid XML. The XML importer's clusters are checked link by link and route
//! by route against SimGrid 3.32 itself (`simgrid_topologies.rs`); here the expected platform
//! is that importer's, so a TOML or generated topology that equals it equals SimGrid's too.

use platforms::{parse_gridsim_toml, parse_simgrid_xml, topology_cluster, NoFiles, TopologyClusterParams};
use sim_core::platform::{HostId, Platform};

/// Every link (name, bandwidth, latency, policy; in order if `ordered`, else by name), every
/// host (name, speed, cores) and every host pair's route (link names in order), as text lines.
fn describe(p: &Platform, ordered: bool) -> Vec<String> {
    let mut lines: Vec<String> = p
        .links
        .iter()
        .map(|l| format!("link {} {:?} {:?} {:?}", l.name, l.bandwidth, l.latency, l.policy))
        .collect();
    if !ordered {
        lines.sort();
    }
    lines.extend(
        p.hosts
            .iter()
            .map(|h| format!("host {} {:?} {}", h.name, h.speed, h.cores)),
    );
    let n = p.hosts.len() as u32;
    for a in 0..n {
        for b in 0..n {
            let route = match p.route(HostId(a), HostId(b)) {
                Ok(r) => r
                    .links
                    .iter()
                    .map(|&l| p.link(l).name.clone())
                    .collect::<Vec<_>>()
                    .join(" "),
                Err(e) => format!("no route: {e}"),
            };
            lines.push(format!("route {a} {b}: {route}"));
        }
    }
    lines
}

fn assert_same(what: &str, ours: &Platform, xml: &Platform) {
    assert_same_links(what, ours, xml, true)
}

/// As [`assert_same`]; `ordered`: the links were created in the same order.
fn assert_same_links(what: &str, ours: &Platform, xml: &Platform, ordered: bool) {
    let (a, b) = (describe(ours, ordered), describe(xml, ordered));
    assert!(a.len() > 4, "{what}: nothing compared");
    if let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
        panic!("{what}: first difference: {:?} vs the XML's {:?}", a[i], b[i]);
    }
    assert_eq!(a.len(), b.len(), "{what}: different sizes");
}

fn xml(zone: &str, clusters: &str) -> Platform {
    let text = format!(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n\
         <platform version=\"4.1\">\n{zone}{clusters}\n{}</platform>\n",
        if zone.is_empty() { "" } else { "</zone>\n" }
    );
    parse_simgrid_xml(&text, "t.xml", &mut NoFiles).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn toml(text: &str) -> Platform {
    parse_gridsim_toml(text, "t.toml", &mut NoFiles).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// One cluster each way: `(topology, parameters, radical, XML extra attributes, TOML extra fields)`.
const CASES: &[(&str, &str, &str, &str, &str)] = &[
    ("TORUS", "3,2,2", "0-11", "", ""),
    (
        "TORUS",
        "4,3",
        "0-11",
        r#"sharing_policy="SHARED" loopback_bw="1GBps" loopback_lat="1us""#,
        "sharing_policy = \"SHARED\"\nloopback_bandwidth = \"1GBps\"\nloopback_latency = \"1us\"",
    ),
    ("FAT_TREE", "2;4,4;1,2;1,2", "0-15", "", ""),
    (
        "FAT_TREE",
        "2;4,4;1,2;1,2",
        "0-15",
        r#"limiter_link="150MBps""#,
        "limiter_bandwidth_bytes_per_s = 1.5e8",
    ),
    (
        "FAT_TREE",
        "3;2,2,4;1,2,2;1,1,2",
        "3,5-18,40",
        r#"loopback_bw="1GBps""#,
        "loopback_bandwidth_bytes_per_s = 1e9",
    ),
    (
        "DRAGONFLY",
        "2,1;2,1;2,1;2",
        "0-15",
        r#"loopback_bw="10GBps""#,
        "loopback_bandwidth = \"10GBps\"",
    ),
    (
        "DRAGONFLY",
        "3,2;2,1;3,2;2",
        "0-35",
        r#"sharing_policy="FATPIPE" limiter_link="1GBps""#,
        "sharing_policy = \"FATPIPE\"\nlimiter_bandwidth = \"1GBps\"",
    ),
];

#[test]
fn toml_topologies_equal_the_xml_clusters() {
    for &(topology, parameters, radical, attrs, fields) in CASES {
        let x = xml(
            "<zone id=\"world\" routing=\"Full\">\n",
            &format!(
                r#"<cluster id="c" prefix="n-" suffix=".org" radical="{radical}" speed="1Gf" core="2" bw="125MBps" lat="50us" topology="{topology}" topo_parameters="{parameters}" {attrs}/>"#
            ),
        );
        let t = toml(&format!(
            "name = \"world\"\n[[cluster]]\nname = \"c\"\nprefix = \"n-\"\nsuffix = \".org\"\nradical = \"{radical}\"\n\
             speed = \"1Gf\"\ncores = 2\nbandwidth = \"125MBps\"\nlatency = \"50us\"\ntopology = \"{topology}\"\n\
             topo_parameters = \"{parameters}\"\n{fields}\n"
        ));
        assert_same(&format!("{topology} {parameters} {attrs}"), &t, &x);
    }
}

#[test]
fn two_fat_trees_continue_the_numbering_as_in_xml() {
    // SimGrid numbers fat-tree links and leaf positions across the clusters of one file; a
    // zone route through hosts joins them, as in `simgrid_topologies.rs`. TOML creates its
    // `[[link]]`s before its clusters, so the links are compared by name.
    let x = xml(
        "<zone id=\"world\" routing=\"Full\">\n",
        r#"<cluster id="a" prefix="a-" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="1;4;1;1"/>
<cluster id="b" prefix="b-" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="2;2,4;1,2;1,1"/>
<link id="wan" bandwidth="10MBps" latency="10ms"/>
<zoneRoute src="a" dst="b" gw_src="a-0" gw_dst="b-0"><link_ctn id="wan"/></zoneRoute>"#,
    );
    let t = toml(
        "name = \"world\"\n\
         [[cluster]]\nname = \"a\"\nprefix = \"a-\"\nspeed = \"1Gf\"\nbandwidth = \"1GBps\"\nlatency = \"1us\"\n\
         topology = \"FAT_TREE\"\ntopo_parameters = \"1;4;1;1\"\n\
         [[cluster]]\nname = \"b\"\nprefix = \"b-\"\nspeed = \"1Gf\"\nbandwidth = \"1GBps\"\nlatency = \"1us\"\n\
         topology = \"FAT_TREE\"\ntopo_parameters = \"2;2,4;1,2;1,1\"\n\
         [[link]]\nname = \"wan\"\nbandwidth = \"10MBps\"\nlatency = \"10ms\"\n\
         [[zone_route]]\nsrc = \"a\"\ndst = \"b\"\ngw_src = \"a-0\"\ngw_dst = \"b-0\"\nlinks = [\"wan\"]\n",
    );
    assert_same_links("two fat trees", &t, &x, false);
}

#[test]
fn the_generator_equals_the_xml_root_cluster() {
    for (topology, parameters) in [
        ("TORUS", "2,3,2"),
        ("FAT_TREE", "3;8,8,16;1,8,8;1,1,1"),
        ("DRAGONFLY", "2,1;2,1;2,1;2"),
    ] {
        let x = xml(
            "",
            &format!(
                r#"<cluster id="cluster" prefix="node-" suffix="" radical="0-{}" speed="1e9f" bw="125e6Bps" lat="5e-05s" topology="{topology}" topo_parameters="{parameters}" loopback_bw="1e9Bps" loopback_lat="0s"/>"#,
                platforms::topology::Topology::parse(topology, parameters)
                    .unwrap()
                    .hosts()
                    - 1
            ),
        );
        let g = topology_cluster(&TopologyClusterParams {
            topology: topology.into(),
            parameters: parameters.into(),
            speed: 1e9,
            cores: 1,
            bw: 125e6,
            lat: 5e-05,
            split: true,
            loopback: Some((1e9, 0.0)),
            limiter: None,
        })
        .unwrap();
        assert_same(&format!("generated {topology} {parameters}"), &g, &x);
    }
}

#[test]
fn the_16_ary_fat_tree_has_1024_hosts_and_al_fares_switch_counts() {
    // Al-Fares, Loukissas and Vahdat (SIGCOMM 2008), section 3: a k-ary fat tree has k³/4
    // hosts, k²/2 edge and k²/2 aggregation switches of k ports each, and k²/4 core switches;
    // with k = 16: 1024 hosts, 128 + 128 + 64 switches, k³/4 host links plus k³/4 edge-to-
    // aggregation and k³/4 aggregation-to-core links: 3072 links, each split in _UP and _DOWN.
    let p = topology_cluster(&TopologyClusterParams {
        topology: "FAT_TREE".into(),
        parameters: "3;8,8,16;1,8,8;1,1,1".into(),
        speed: 1e9,
        cores: 1,
        bw: 125e6,
        lat: 5e-05,
        split: true,
        loopback: None,
        limiter: None,
    })
    .unwrap();
    assert_eq!(p.hosts.len(), 1024);
    assert_eq!(p.links.len(), 2 * 3072);
    // Hosts under different pods climb to a core switch and back: 6 links; under one edge
    // switch, 2 links (node-0..node-7 share one edge switch).
    let hops = |a: u32, b: u32| p.route(HostId(a), HostId(b)).unwrap().links.len();
    assert_eq!((hops(0, 7), hops(0, 1023)), (2, 6));
}

fn error(text: &str) -> String {
    parse_gridsim_toml(text, "p.toml", &mut NoFiles)
        .unwrap_err()
        .to_string()
}

const HEAD: &str = "[[cluster]]\nname = \"c\"\nprefix = \"n-\"\nspeed = \"1Gf\"\nbandwidth = \"1GBps\"\n";

#[test]
fn topology_errors_name_file_line_and_field() {
    assert_eq!(
        error(&format!(
            "{HEAD}topology = \"FAT_TREE\"\ntopo_parameters = \"2;4,4;1,2\"\n"
        )),
        "p.toml:7: cluster 'c': field 'topo_parameters': bad value \"2;4,4;1,2\": a fat tree is \
         \"levels;children per level;parents per level;links per level\" (4 parts separated by ';'), got 3 part(s)"
    );
    assert_eq!(
        error(&format!("{HEAD}topology = \"TORUS\"\n")),
        "p.toml:6: cluster 'c': field 'topo_parameters': missing"
    );
    assert_eq!(
        error(&format!("{HEAD}topology = \"MESH\"\ntopo_parameters = \"2,2\"\n")),
        "p.toml:6: cluster 'c': field 'topology': bad value \"MESH\": expected one of FLAT, TORUS, FAT_TREE, DRAGONFLY"
    );
    assert_eq!(
        error(&format!("{HEAD}topo_parameters = \"2,2\"\n")),
        "p.toml:6: cluster 'c': field 'topo_parameters': bad value \"2,2\": a flat cluster has no topology \
         parameters: give `topology = \"TORUS\"`, \"FAT_TREE\" or \"DRAGONFLY\", or remove this field"
    );
    assert_eq!(
        error(&format!("{HEAD}topology = \"TORUS\"\ntopo_parameters = \"2,2\"\nradical = \"0-4\"\n")),
        "p.toml:8: cluster 'c': field 'radical': bad value \"0-4\": lists 5 host(s) but topology TORUS \"2,2\" has 4 hosts"
    );
    assert_eq!(
        error(&format!(
            "{HEAD}topology = \"TORUS\"\ntopo_parameters = \"2,2\"\nbackbone_bandwidth = \"1GBps\"\n"
        )),
        "p.toml:8: cluster 'c': field 'backbone_bandwidth': bad value \"1GBps\": a TORUS cluster has no backbone \
         and no router (SimGrid 3.32 builds none): remove it"
    );
    assert_eq!(
        error(&format!("{HEAD}topology = \"TORUS\"\ntopo_parameters = \"40,40\"\n")),
        "p.toml:7: cluster 'c': field 'topo_parameters': bad value \"40,40\": this topology has 1600 hosts; gridsim \
         stores every host pair's route of a TORUS cluster, so it accepts at most 1024 hosts"
    );
    assert_eq!(error(HEAD), "p.toml:1: cluster 'c': field 'radical': missing");
}

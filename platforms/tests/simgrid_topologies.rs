//! TORUS, FAT_TREE and DRAGONFLY clusters compared with SimGrid 3.32 itself: for generated
//! instances of several shapes and options (split-duplex or shared links, loopback, limiter,
//! non-contiguous radicals, two trees in one file), every link SimGrid creates (name,
//! bandwidth, latency) and every host pair's route (links in order, latency) must be the same.
//!
//! The expected values are SimGrid's own answers, computed afresh on each run by
//! `data/simgrid/dump_routes.py --links` (python3-simgrid 3.32, through `/usr/bin/python3`) on
//! the very XML file gridsim loads. Without SimGrid this test fails; it never skips (install it
//! with `apt-get install python3-simgrid`, as `scripts/test.sh` does).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use sim_core::platform::{HostId, Platform};

/// A cluster element: `<cluster id=... {attrs}/>` with the common attributes.
fn cluster(id: &str, prefix: &str, topology: &str, parameters: &str, radical: &str, extra: &str) -> String {
    format!(
        r#"<cluster id="{id}" topology="{topology}" topo_parameters="{parameters}" prefix="{prefix}" radical="{radical}" suffix=".org" speed="1Gf" bw="125MBps" lat="50us" {extra}/>"#
    )
}

fn platform(clusters: &[String]) -> String {
    format!(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n\
         <platform version=\"4.1\">\n<zone id=\"world\" routing=\"Full\">\n{}\n</zone>\n</platform>\n",
        clusters.join("\n")
    )
}

const LOOPBACK: &str = r#"loopback_bw="100MBps" loopback_lat="1us""#;
const LIMITER: &str = r#"limiter_link="150MBps""#;

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simgrid_topologies");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// SimGrid's links (name -> (bandwidth, latency)) and routes ("src dst" -> (latency, links)).
type Links = BTreeMap<String, (f64, f64)>;
type Routes = BTreeMap<(String, String), Option<(f64, String)>>;

fn simgrid(path: &Path) -> (Links, Routes) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/simgrid/dump_routes.py");
    let out = Command::new("/usr/bin/python3")
        .arg(&script)
        .arg("--links")
        .arg(path)
        .output()
        .expect("/usr/bin/python3 must exist (install python3-simgrid)");
    assert!(
        out.status.success(),
        "SimGrid failed on {} (is python3-simgrid installed?):\n{}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let (mut links, mut routes) = (Links::new(), Routes::new());
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("LINK ") {
            let f: Vec<&str> = rest.split(' ').collect();
            links.insert(f[0].to_string(), (f[1].parse().unwrap(), f[2].parse().unwrap()));
            continue;
        }
        let (head, names) = line.split_once(" : ").unwrap();
        let f: Vec<&str> = head.split(' ').collect();
        let key = (f[0].to_string(), f[1].to_string());
        let value = (names != "NOROUTE").then(|| (f[2].parse().unwrap(), names.to_string()));
        routes.insert(key, value);
    }
    (links, routes)
}

/// Loads `xml` in gridsim and in SimGrid and returns every disagreement; also the number of
/// host pairs compared.
fn compare(name: &str, xml: &str) -> (Vec<String>, usize) {
    let path = dir().join(format!("{name}.xml"));
    std::fs::write(&path, xml).unwrap();
    let p: Platform = match platforms::load_platform(&path) {
        Ok(p) => p,
        Err(e) => return (vec![format!("{name}: gridsim refuses it: {e}")], 0),
    };
    let (links, routes) = simgrid(&path);
    let mut problems = Vec::new();
    let ours: Links = p
        .links
        .iter()
        .map(|l| (l.name.clone(), (l.bandwidth, l.latency)))
        .collect();
    if ours != links {
        let only_ours: Vec<_> = ours.keys().filter(|k| !links.contains_key(*k)).take(5).collect();
        let only_theirs: Vec<_> = links.keys().filter(|k| !ours.contains_key(*k)).take(5).collect();
        let differ: Vec<_> = ours
            .iter()
            .filter(|(k, v)| links.get(*k).is_some_and(|w| w != *v))
            .take(5)
            .collect();
        problems.push(format!(
            "{name}: links differ: {} vs SimGrid's {}; only gridsim: {only_ours:?}; only SimGrid: \
             {only_theirs:?}; other figures: {differ:?}",
            ours.len(),
            links.len()
        ));
    }
    let hosts: Vec<HostId> = (0..p.hosts.len() as u32).map(HostId).collect();
    assert_eq!(hosts.len() * hosts.len(), routes.len(), "{name}: host count");
    for &a in &hosts {
        for &b in &hosts {
            let key = (p.host(a).name.clone(), p.host(b).name.clone());
            let expected = routes
                .get(&key)
                .unwrap_or_else(|| panic!("{name}: SimGrid has no {key:?}"));
            let got = p.route(a, b).ok().map(|r| {
                let names: Vec<&str> = r.links.iter().map(|&l| p.link(l).name.as_str()).collect();
                (p.route_latency(&r), names.join(" "))
            });
            let same = match (&got, expected) {
                (Some((lat, names)), Some((their_lat, their_names))) => {
                    names == their_names && (lat - their_lat).abs() <= 1e-12 * their_lat.abs()
                }
                (None, None) => true,
                // SimGrid answers a host's route to itself with its own `__loopback__` when the
                // zone gives none; gridsim's empty route means the same.
                (Some((_, names)), None) => names.is_empty() && key.0 == key.1,
                _ => false,
            };
            if !same {
                problems.push(format!(
                    "{name}: {} -> {}: gridsim {got:?}, SimGrid {expected:?}",
                    key.0, key.1
                ));
            }
        }
    }
    (problems, hosts.len() * hosts.len())
}

fn check(instances: &[(&str, String)]) {
    let mut problems = Vec::new();
    let mut pairs = 0;
    for (name, xml) in instances {
        let (p, n) = compare(name, xml);
        problems.extend(p);
        pairs += n;
    }
    assert!(
        problems.is_empty(),
        "{} disagreement(s) with SimGrid 3.32:\n{}",
        problems.len(),
        problems.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
    println!(
        "{} platforms, {pairs} host pairs: every link and route as SimGrid's",
        instances.len()
    );
}

/// Topology clusters among other zones, reached through zoneRoutes whose gateways are their
/// hosts (SimGrid builds no router for them), and a fat tree as the root zone.
#[test]
fn topology_clusters_in_a_hierarchy_match_simgrid() {
    let mixed = platform(&[
        cluster("t", "t", "TORUS", "3,2", "0-5", LIMITER),
        cluster("d", "d", "DRAGONFLY", "2,1;1,1;2,1;1", "0-3", ""),
        r#"<zone id="z" routing="Full"><host id="h" speed="1Gf"/></zone>
<link id="wan" bandwidth="10MBps" latency="10ms"/>
<link id="wan2" bandwidth="10MBps" latency="20ms" sharing_policy="SPLITDUPLEX"/>
<zoneRoute src="t" dst="z" gw_src="t4.org" gw_dst="h"><link_ctn id="wan"/></zoneRoute>
<zoneRoute src="d" dst="t" gw_src="d3.org" gw_dst="t1.org"><link_ctn id="wan2" direction="UP"/></zoneRoute>"#
            .to_string(),
    ]);
    let root = format!(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n\
         <platform version=\"4.1\">\n{}\n</platform>\n",
        cluster("f", "f", "FAT_TREE", "1;3;2;1", "0-2", LOOPBACK)
    );
    check(&[("mixed_zones", mixed), ("fat_tree_root", root)]);
}

#[test]
fn torus_links_and_routes_match_simgrid() {
    let t = |params: &str, radical: &str, extra: &str| platform(&[cluster("t", "n", "TORUS", params, radical, extra)]);
    check(&[
        ("torus_2x2", t("2,2", "0-3", "")),
        (
            "torus_3x2x2_loopback_limiter",
            t("3,2,2", "0-11", &format!("{LOOPBACK} {LIMITER}")),
        ),
        (
            "torus_4x4_shared_limiter",
            t("4,4", "0-15", &format!(r#"sharing_policy="SHARED" {LIMITER}"#)),
        ),
        ("torus_5_fatpipe", t("5", "0-4", r#"sharing_policy="FATPIPE""#)),
        ("torus_2x3x4_loopback", t("2,3,4", "0-23", LOOPBACK)),
        ("torus_6x1x3", t("6,1,3", "0-17", "")),
        ("torus_radicals", t("2,2", "7,3,10-11", LIMITER)),
        (
            "torus_two",
            platform(&[
                cluster("a", "a", "TORUS", "3,3", "0-8", LIMITER),
                cluster("b", "b", "TORUS", "2,4", "0-7", LOOPBACK),
            ]),
        ),
    ]);
}

#[test]
fn fat_tree_links_and_routes_match_simgrid() {
    let f =
        |params: &str, radical: &str, extra: &str| platform(&[cluster("f", "n", "FAT_TREE", params, radical, extra)]);
    check(&[
        ("fat_tree_2_22_12_11_limiter", f("2;2,2;1,2;1,1", "0-3", LIMITER)),
        ("fat_tree_example", f("2;4,4;1,2;1,2", "0-15", LOOPBACK)),
        ("fat_tree_parallel", f("2;2,3;2,2;2,3", "0-5", "")),
        ("fat_tree_parallel_limiter", f("2;4,2;1,2;3,2", "0-7", LIMITER)),
        ("fat_tree_1_level", f("1;5;3;2", "0-4", r#"sharing_policy="SHARED""#)),
        ("fat_tree_3_levels", f("3;2,2,2;1,2,2;1,1,2", "0-7", LOOPBACK)),
        (
            "fat_tree_3_levels_limiter",
            f("3;2,2,3;1,1,1;2,1,2", "0-11", &format!("{LOOPBACK} {LIMITER}")),
        ),
        ("fat_tree_wide", f("2;3,2;2,3;1,1", "0-5", "")),
        (
            "fat_tree_two",
            platform(&[
                cluster("a", "a", "FAT_TREE", "1;3;2;1", "0-2", ""),
                cluster("b", "b", "FAT_TREE", "2;2,2;1,2;1,2", "0-3", LIMITER),
            ]),
        ),
    ]);
}

#[test]
fn dragonfly_links_and_routes_match_simgrid() {
    let d =
        |params: &str, radical: &str, extra: &str| platform(&[cluster("d", "n", "DRAGONFLY", params, radical, extra)]);
    check(&[
        ("dragonfly_2_1_2_1_2_1_2", d("2,1;2,1;2,1;2", "0-15", "")),
        ("dragonfly_3_2_3_1_3_2_2", d("3,2;3,1;3,2;2", "0-53", LIMITER)),
        (
            "dragonfly_1_group",
            d("1,1;3,2;2,1;1", "0-5", &format!("{LOOPBACK} {LIMITER}")),
        ),
        (
            "dragonfly_shared",
            d("2,3;2,2;3,1;2", "0-23", r#"sharing_policy="SHARED""#),
        ),
        (
            "dragonfly_example",
            d("3,4;4,3;5,1;2", "0-119", &format!("{LOOPBACK} {LIMITER}")),
        ),
        (
            "dragonfly_two",
            platform(&[
                cluster("a", "a", "DRAGONFLY", "2,1;1,1;2,1;1", "0-3", ""),
                cluster("b", "b", "DRAGONFLY", "2,1;2,1;2,1;1", "0-7", LOOPBACK),
            ]),
        ),
    ]);
}

//! The gridsim TOML platform format.

use std::path::Path;

use platforms::{load_platform, parse_gridsim_toml, NoFiles};
use sim_core::platform::{DiskModel, Platform, SharingPolicy};

fn names(p: &Platform, src: &str, dst: &str) -> Vec<String> {
    let r = p.route(p.host_id(src).unwrap(), p.host_id(dst).unwrap()).unwrap();
    r.links.iter().map(|&l| p.link(l).name.clone()).collect()
}

#[test]
fn example_platform_loads() {
    let p = load_platform(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/small4.toml")).unwrap();
    assert_eq!(p.hosts.len(), 4);
    assert_eq!(p.links.len(), 5); // uplink_UP, uplink_DOWN, w1, w2, w3
    let master = p.host(p.host_id("master").unwrap());
    assert_eq!((master.speed, master.cores), (1e9, 2));
    assert_eq!(master.memory_bytes, Some(4.0 * 1024.0 * 1024.0 * 1024.0));
    assert_eq!(master.io_buffer_bytes, Some(512.0 * 1024.0 * 1024.0));
    assert_eq!(master.properties.get("role").map(String::as_str), Some("master"));
    assert_eq!(
        p.disks[0].model,
        DiskModel::Shared {
            read_bw: 200e6,
            write_bw: 100e6
        }
    );
    let w2 = p.host(p.host_id("worker-2").unwrap());
    assert_eq!(w2.speed, 2.5e8);
    let profile = w2.speed_profile.as_ref().unwrap();
    assert_eq!(
        (profile.events(), profile.period()),
        (&[(0.0, 1.0), (3600.0, 0.5)][..], Some(7200.0))
    );
    let w3 = p.host(p.host_id("worker-3").unwrap());
    assert_eq!(
        w3.state_profile.as_ref().unwrap().events(),
        &[(7140.0, 0.0), (7200.0, 1.0)]
    );
    assert_eq!(p.link(p.link_id("uplink_UP").unwrap()).policy, SharingPolicy::Shared);
    assert_eq!(p.link(p.link_id("w3").unwrap()).bandwidth, 12.5e6);
    assert_eq!(names(&p, "master", "worker-1"), ["uplink_UP", "w1"]);
    assert_eq!(names(&p, "worker-3", "master"), ["w3", "uplink_DOWN"]);
    assert_eq!(names(&p, "worker-1", "worker-2"), ["w1", "w2"]);
}

#[test]
fn clusters_and_zone_routes() {
    let text = r#"
[[cluster]]
name = "c1"
prefix = "a-"
radical = "0-3"
speed = "1Gf"
bandwidth = "125MBps"
latency = "50us"
backbone_bandwidth = "2.25GBps"
backbone_latency = "500us"

[[cluster]]
name = "c2"
prefix = "b-"
radical = "0,1"
speed_flops = 2e9
bandwidth_bytes_per_s = 1.25e8
latency_s = 5e-5
sharing_policy = "SHARED"
loopback_bandwidth = "10GBps"

[[link]]
name = "wan"
bandwidth = "10MBps"
latency = "10ms"

[[zone_route]]
src = "c1"
dst = "c2"
gw_src = "a-c1_router"
gw_dst = "b-c2_router"
links = ["wan"]
"#;
    let p = parse_gridsim_toml(text, "c.toml", &mut NoFiles).unwrap();
    assert_eq!(
        names(&p, "a-0", "a-3"),
        ["c1_link_0_UP", "c1_backbone", "c1_link_3_DOWN"]
    );
    assert_eq!(
        names(&p, "a-1", "b-1"),
        ["c1_link_1_UP", "c1_backbone", "wan", "c2_link_1"]
    );
    assert_eq!(
        names(&p, "b-0", "a-2"),
        ["c2_link_0", "wan", "c1_backbone", "c1_link_2_DOWN"]
    );
    assert_eq!(names(&p, "b-0", "b-0"), ["c2_link_0_loopback"]);
    assert_eq!(
        names(&p, "a-0", "a-0"),
        ["c1_link_0_UP", "c1_backbone", "c1_link_0_DOWN"]
    );
}

fn error(text: &str) -> String {
    let mut files = |name: &str| match name {
        "unsorted.txt" => Ok("0 1\n5 1\n1 1\n".to_string()),
        _ => Err("No such file or directory (os error 2)".to_string()),
    };
    parse_gridsim_toml(text, "p.toml", &mut files).unwrap_err().to_string()
}

#[test]
fn errors_name_file_line_and_field() {
    assert!(error("[[host]\nname = 1").starts_with("p.toml:1: malformed TOML: "));
    let e = error("[[host]]\nname = \"a\"\nspeed = \"1Gf\"\nsped = 3\n");
    assert!(e.starts_with("p.toml:4: malformed TOML: unknown field `sped`"), "{e}");
    assert_eq!(
        error("[[host]]\nname = \"foo\"\nspeed = \"12Qf\"\n"),
        "p.toml:3: host 'foo': field 'speed': bad unit string \"12Qf\" (expected a speed such as 1Gf or 98.095Mf)"
    );
    assert_eq!(
        error("[[host]]\nname = \"a\"\n"),
        "p.toml:1: host 'a': field 'speed': missing"
    );
    assert_eq!(
        error("[[host]]\nname = \"a\"\nspeed = \"1Gf\"\nspeed_flops = 1e9\n"),
        "p.toml:4: host 'a': field 'speed_flops': conflicts with field 'speed'"
    );
    assert_eq!(
        error("[[host]]\nname = \"a\"\nspeed_flops = 0\n"),
        "p.toml:3: host 'a': field 'speed_flops': must be positive, got 0"
    );
    assert_eq!(
        error("[[link]]\nname = \"l\"\nbandwidth = \"1MBps\"\nlatency_s = -1\n"),
        "p.toml:4: link 'l': field 'latency_s': must not be negative, got -1"
    );
    assert_eq!(
        error("[[host]]\nname = \"a\"\nspeed = \"1f\"\n[[host]]\nname = \"a\"\nspeed = \"1f\"\n"),
        "p.toml:5: host 'a': field 'name': duplicate host 'a'"
    );
    assert_eq!(
        error("[[host]]\nname = \"a\"\nspeed = \"1f\"\n[[host]]\nname = \"b\"\nspeed = \"1f\"\n[[route]]\nsrc = \"a\"\ndst = \"b\"\nlinks = [\"nope\"]\n"),
        "p.toml:10: route 'a' -> 'b': field 'links': unknown link 'nope'"
    );
    assert_eq!(
        error("[[host]]\nname = \"a\"\nspeed = \"1f\"\nspeed_profile = \"unsorted.txt\"\n"),
        "p.toml:4: host 'a': field 'speed_profile': unsorted.txt:3: dates must be sorted: 1 comes after 5"
    );
    assert_eq!(
        error("[[host]]\nname = \"a\"\nspeed = \"1f\"\nstate_profile = \"gone.txt\"\n"),
        "p.toml:4: host 'a': field 'state_profile': cannot read 'gone.txt': No such file or directory (os error 2)"
    );
    assert_eq!(
        error("[[link]]\nname = \"l\"\nbandwidth = \"1MBps\"\nsharing_policy = \"SPLIT\"\n"),
        "p.toml:4: link 'l': field 'sharing_policy': bad value \"SPLIT\": expected one of SHARED, FATPIPE, SPLITDUPLEX"
    );
    assert_eq!(
        error("routing = \"Star\"\n"),
        "p.toml:1: platform: field 'routing': bad value \"Star\": expected Full, Floyd or Dijkstra"
    );
}

#[test]
fn mutated_inputs_never_panic() {
    use rand::{Rng, SeedableRng};
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/small4.toml")).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut files = |_: &str| Ok::<_, String>("0 1\n10 0.5\nLOOPAFTER 5\n".to_string());
    for i in 0..3000 {
        let mut m = base.clone().into_bytes();
        let at = rng.gen_range(0..m.len());
        match i % 3 {
            0 => m.truncate(at),
            1 => {
                let len = rng.gen_range(1..6).min(m.len() - at);
                m.drain(at..at + len);
            }
            _ => m[at] = b"0123456789-.eE\"[]={}, aZ_\n"[rng.gen_range(0..25)],
        }
        if let Ok(s) = String::from_utf8(m) {
            if let Ok(p) = parse_gridsim_toml(&s, "m.toml", &mut files) {
                for a in 0..p.hosts.len() as u32 {
                    let _ = p.route(sim_core::platform::HostId(a), sim_core::platform::HostId(0));
                }
            }
        }
    }
}

//! Every kind of bad SimGrid XML input gives a typed error naming file, line, element and
//! attribute. Line numbers count from the `<?xml` line, which is line 1.

use platforms::{parse_simgrid_xml, ErrorKind, PlatformError};

fn files(name: &str) -> Result<String, String> {
    match name {
        "good.txt" => Ok("0 1\n5 0.5\n".into()),
        "unsorted.txt" => Ok("0 1\n5 0.5\n3 1\n".into()),
        _ => Err("No such file or directory (os error 2)".into()),
    }
}

/// Wraps `body` (starting on line 4) in a platform with hosts a and b and links l, sd.
fn platform(body: &str) -> String {
    format!(
        "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n{body}\n</zone>\n</platform>\n"
    )
}

fn error(xml: &str) -> PlatformError {
    parse_simgrid_xml(xml, "p.xml", &mut files).unwrap_err()
}

fn message(body: &str) -> String {
    error(&platform(body)).to_string()
}

const HOSTS: &str = "<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"1GBps\" latency=\"1ms\"/>\n<link id=\"sd\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>";

fn with_hosts(rest: &str) -> String {
    // HOSTS takes lines 4-7, so `rest` starts on line 8.
    message(&format!("{HOSTS}\n{rest}"))
}

#[test]
fn malformed_xml() {
    let e = error("<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1f\">\n</zone>\n</platform>\n");
    assert!(matches!(e.kind, ErrorKind::Xml(_)));
    assert_eq!(e.line, Some(5));
    assert!(e.to_string().starts_with("p.xml:5: malformed XML: "), "{e}");
    assert!(error("").to_string().starts_with("p.xml:1: malformed XML"));
    assert!(error("not xml at all")
        .to_string()
        .starts_with("p.xml:1: malformed XML"));
}

#[test]
fn repeated_attribute_names_the_line_of_the_repeat_and_the_name() {
    // XML 1.0 section 3.1: an attribute name appears at most once in a tag. The error points at
    // the second occurrence, which here is on the tag's second line.
    let e = error("<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"a\"\n speed=\"1f\" id=\"b\"/>\n</zone>\n</platform>\n");
    assert!(matches!(e.kind, ErrorKind::Xml(_)));
    assert_eq!(
        e.to_string(),
        "p.xml:5: malformed XML: attributes of <host>: duplicated attribute 'id'"
    );
    // Prefixed names are compared whole, as quick-xml's own check did.
    let e = error("<platform version=\"4.1\" xmlns:a=\"u\" a:x=\"1\" a:x=\"2\"/>");
    assert!(e.to_string().ends_with("duplicated attribute 'a:x'"), "{e}");
}

#[test]
fn bad_unit_string() {
    assert_eq!(
        message("<host id=\"foo\" speed=\"12Qf\"/>"),
        "p.xml:4: host 'foo': attribute 'speed': bad unit string \"12Qf\" (expected a speed such as 1Gf or 98.095Mf)"
    );
    assert_eq!(
        message("<link id=\"l\"\n   bandwidth=\"1GBps\"\n   latency=\"3 ms\"/>"),
        "p.xml:6: link 'l': attribute 'latency': bad unit string \"3 ms\" (expected a time such as 50us or 1ms)"
    );
    assert_eq!(
        message("<link id=\"l\" bandwidth=\"1KBps\"/>"),
        "p.xml:4: link 'l': attribute 'bandwidth': bad unit string \"1KBps\" (expected a bandwidth such as 125MBps or 10Gbps)"
    );
    assert_eq!(
        message("<host id=\"a\" speed=\"1Gf\"><prop id=\"memory\" value=\"4GO\"/></host>"),
        "p.xml:4: prop 'memory' of host 'a': attribute 'value': bad unit string \"4GO\" (expected a size such as 1GiB or 500MB)"
    );
}

#[test]
fn unknown_attributes_and_elements() {
    assert_eq!(
        message("<host id=\"a\" speed=\"1Gf\" foo=\"1\"/>"),
        "p.xml:4: host 'a': attribute 'foo': unknown attribute"
    );
    assert_eq!(message("<hots id=\"a\"/>"), "p.xml:4: zone 'z': unknown element <hots>");
    assert_eq!(
        message("<host id=\"a\" speed=\"1Gf\"><link id=\"l\" bandwidth=\"1Bps\"/></host>"),
        "p.xml:4: host 'a': <link> is not allowed inside <host>"
    );
    assert_eq!(
        message("<include file=\"x.xml\"/>"),
        "p.xml:4: zone 'z': not supported: <include>"
    );
    assert_eq!(
        message("<cabinet id=\"c\" prefix=\"h\" suffix=\"\" radical=\"1\" speed=\"1Gf\" bw=\"1Bps\" lat=\"0\"/>"),
        "p.xml:4: zone 'z': <cabinet> is not allowed inside <zone>"
    );
    assert_eq!(
        message("<AS id=\"x\" routing=\"Full\"/>").split(" (").next().unwrap(),
        "p.xml:4: zone 'z': not supported: <AS>"
    );
    assert_eq!(
        message("<host id=\"a\" speed=\"1Gf\">stray text</host>"),
        "p.xml:4: host 'a': bad value \"stray text\": unexpected text"
    );
}

#[test]
fn missing_attributes() {
    assert_eq!(
        message("<host id=\"a\"/>"),
        "p.xml:4: host 'a': attribute 'speed': missing"
    );
    assert_eq!(
        message("<link bandwidth=\"1Bps\"/>"),
        "p.xml:4: <link>: attribute 'id': missing"
    );
}

#[test]
fn non_positive_and_negative_values() {
    assert_eq!(
        message("<host id=\"a\" speed=\"0f\"/>"),
        "p.xml:4: host 'a': attribute 'speed': must be positive, got 0"
    );
    assert_eq!(
        message("<host id=\"a\" speed=\"-5Mf\"/>"),
        "p.xml:4: host 'a': attribute 'speed': must be positive, got -5000000"
    );
    assert_eq!(
        message("<link id=\"l\" bandwidth=\"-1Bps\" latency=\"0\"/>"),
        "p.xml:4: link 'l': attribute 'bandwidth': must be positive, got -1"
    );
    assert_eq!(
        message("<link id=\"l\" bandwidth=\"1Bps\" latency=\"-1ms\"/>"),
        "p.xml:4: link 'l': attribute 'latency': must not be negative, got -0.001"
    );
    assert_eq!(
        message("<host id=\"a\" speed=\"1Gf\" core=\"0\"/>"),
        "p.xml:4: host 'a': attribute 'core': bad value \"0\": must be at least 1"
    );
    assert_eq!(
        message("<cluster id=\"c\" prefix=\"c\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"0Bps\" lat=\"0\"/>"),
        "p.xml:4: cluster 'c': attribute 'bw': must be positive, got 0"
    );
    assert_eq!(
        message("<cluster id=\"c\" prefix=\"c\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1Bps\" lat=\"0\" bb_lat=\"1ms\"/>"),
        "p.xml:4: cluster 'c': attribute 'bb_bw': must be positive, got 0"
    );
}

#[test]
fn dangling_references() {
    assert_eq!(
        with_hosts("<route src=\"a\" dst=\"b\">\n  <link_ctn id=\"nope\"/>\n</route>"),
        "p.xml:9: link_ctn in route 'a' -> 'b': attribute 'id': unknown link 'nope'"
    );
    assert_eq!(
        with_hosts("<route src=\"a\" dst=\"ghost\"><link_ctn id=\"l\"/></route>"),
        "p.xml:8: route 'a' -> 'ghost': attribute 'dst': unknown host or router 'ghost'"
    );
    assert_eq!(
        with_hosts("<route src=\"a\" dst=\"b\"><link_ctn id=\"sd\"/></route>"),
        "p.xml:8: link_ctn in route 'a' -> 'b': attribute 'id': bad value \"sd\": this link is SPLITDUPLEX: say which direction the route uses (UP or DOWN)"
    );
    assert_eq!(
        with_hosts("<route src=\"a\" dst=\"b\"><link_ctn id=\"l\" direction=\"UP\"/></route>"),
        "p.xml:8: link_ctn in route 'a' -> 'b': attribute 'id': bad value \"l\": a direction only applies to SPLITDUPLEX links"
    );
    assert_eq!(
        message("<trace_connect trace=\"t\" element=\"a\"/>"),
        "p.xml:4: trace_connect 't' -> 'a': attribute 'trace': unknown trace 't'"
    );
    assert_eq!(
        message("<trace id=\"t\" periodicity=\"0\">0 1</trace>\n<trace_connect trace=\"t\" element=\"ghost\"/>"),
        "p.xml:5: trace_connect 't' -> 'ghost': attribute 'element': unknown host 'ghost'"
    );
}

#[test]
fn duplicate_ids() {
    assert_eq!(
        with_hosts("<host id=\"a\" speed=\"1f\"/>"),
        "p.xml:8: host 'a': attribute 'id': duplicate host 'a'"
    );
    assert_eq!(
        with_hosts("<link id=\"l\" bandwidth=\"1Bps\"/>"),
        "p.xml:8: link 'l': attribute 'id': duplicate link 'l'"
    );
    assert_eq!(
        with_hosts("<link id=\"sd_UP\" bandwidth=\"1Bps\"/>"),
        "p.xml:8: link 'sd_UP': attribute 'id': duplicate link 'sd_UP'"
    );
    assert_eq!(
        with_hosts("<router id=\"b\"/>"),
        "p.xml:8: router 'b': attribute 'id': duplicate router 'b'"
    );
    assert_eq!(
        with_hosts("<zone id=\"a\" routing=\"Full\"/>"),
        "p.xml:8: zone 'a': attribute 'id': duplicate zone 'a'"
    );
    assert_eq!(
        with_hosts("<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n<route src=\"b\" dst=\"a\"><link_ctn id=\"l\"/></route>"),
        "p.xml:9: route 'b' -> 'a': the route from 'b' to 'a' already exists (routes are symmetrical by default: declare both directions with symmetrical=\"NO\", or only one)"
    );
    assert_eq!(
        with_hosts("<route src=\"b\" dst=\"a\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>"),
        "p.xml:9: route 'a' -> 'b': the route from 'b' to 'a' already exists: do not declare the reverse of a symmetrical route (or declare both with symmetrical=\"NO\")"
    );
    assert_eq!(
        message("<host id=\"a\" speed=\"1Gf\"><prop id=\"k\" value=\"1\"/>\n<prop id=\"k\" value=\"2\"/></host>"),
        "p.xml:5: prop 'k' of host 'a': attribute 'id': duplicate prop 'k'"
    );
    assert_eq!(
        message("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0,1,0\" speed=\"1Gf\" bw=\"1Bps\" lat=\"0\"/>"),
        "p.xml:4: cluster 'c': attribute 'radical': duplicate host 'n0'"
    );
}

#[test]
fn profile_files() {
    assert_eq!(
        message("<host id=\"a\" speed=\"1Gf\"\n      speed_file=\"unsorted.txt\"/>"),
        "p.xml:5: host 'a': attribute 'speed_file': unsorted.txt:3: dates must be sorted: 3 comes after 5"
    );
    assert_eq!(
        message("<host id=\"a\" speed=\"1Gf\" state_file=\"missing.txt\"/>"),
        "p.xml:4: host 'a': attribute 'state_file': cannot read 'missing.txt': No such file or directory (os error 2)"
    );
    assert_eq!(
        message("<link id=\"l\" bandwidth=\"1Bps\" bandwidth_file=\"missing.txt\"/>"),
        "p.xml:4: link 'l': attribute 'bandwidth_file': cannot read 'missing.txt': No such file or directory (os error 2)"
    );
    assert_eq!(
        message("<trace id=\"t\" periodicity=\"1\">\n0 1\n5 x\n</trace>"),
        "p.xml:6: trace 't': <inline>:3: value \"x\" is not a number"
    );
    let p = parse_simgrid_xml(
        &platform("<host id=\"a\" speed=\"1Gf\" speed_file=\"good.txt\"/>"),
        "p.xml",
        &mut files,
    )
    .unwrap();
    assert_eq!(
        p.hosts[0].speed_profile.as_ref().unwrap().events(),
        &[(0.0, 1.0), (5.0, 0.5)]
    );
}

#[test]
fn routing_errors() {
    assert_eq!(
        message("<zone id=\"y\" routing=\"Vivaldi\"><host id=\"v\" speed=\"1f\"/></zone>"),
        "p.xml:4: host 'v': attribute 'coordinates': bad value \"\": a member of a Vivaldi zone needs \
         coordinates (three numbers, e.g. \"25.5 9.4 1.4\")"
    );
    assert_eq!(
        message("<zone id=\"y\" routing=\"Vivaldi\"><host id=\"v\" speed=\"1f\" coordinates=\"1 2\"/></zone>"),
        "p.xml:4: host 'v': attribute 'coordinates': bad value \"1 2\": expected three numbers separated by spaces"
    );
    assert_eq!(
        message("<zone id=\"y\" routing=\"None\"><route src=\"a\" dst=\"b\"/></zone>"),
        "p.xml:4: zone 'y': <route> is not allowed inside <zone>"
    );
    assert_eq!(
        message(&format!("{HOSTS}\n<bypassRoute src=\"a\" dst=\"b\"/>")),
        "p.xml:8: bypassRoute 'a' -> 'b': a bypass route needs at least one <link_ctn> (SimGrid 3.32 \
         refuses an empty one)"
    );
    assert_eq!(
        message(&format!(
            "{HOSTS}\n<bypassRoute src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></bypassRoute>\n\
             <bypassRoute src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></bypassRoute>"
        )),
        "p.xml:9: bypassRoute 'a' -> 'b': the bypass route from 'a' to 'b' already exists"
    );
    assert_eq!(
        message("<zone id=\"y\" routing=\"ClusterTorus\"/>"),
        "p.xml:4: zone 'y': attribute 'routing': not supported: routing=\"ClusterTorus\""
    );
    let zones = "<zone id=\"z1\" routing=\"Full\"><host id=\"a\" speed=\"1f\"/></zone>\n<zone id=\"z2\" routing=\"Full\"><host id=\"b\" speed=\"1f\"/></zone>\n<link id=\"l\" bandwidth=\"1Bps\"/>";
    assert_eq!(
        message(&format!(
            "{zones}\n<zoneRoute src=\"z1\" dst=\"z2\" gw_src=\"b\" gw_dst=\"b\"><link_ctn id=\"l\"/></zoneRoute>"
        )),
        "p.xml:7: zoneRoute 'z1' -> 'z2': attribute 'gw_src': gateway 'b' is not inside zone 'z1'"
    );
    assert_eq!(
        message(&format!(
            "{zones}\n<zoneRoute src=\"z1\" dst=\"zz\" gw_src=\"a\" gw_dst=\"b\"/>"
        )),
        "p.xml:7: zoneRoute 'z1' -> 'zz': attribute 'dst': unknown zone 'zz'"
    );
    assert_eq!(
        message(&format!(
            "{zones}\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>"
        )),
        "p.xml:7: route 'a' -> 'b': attribute 'src': 'a' is not directly inside zone 'z'"
    );
    assert_eq!(
        parse_simgrid_xml(
            "<platform version=\"3\"><zone id=\"z\" routing=\"Full\"/></platform>",
            "p.xml",
            &mut files
        )
        .unwrap_err()
        .to_string()
        .split(':')
        .take(4)
        .collect::<Vec<_>>()
        .join(":"),
        "p.xml:1: <platform>: attribute 'version'"
    );
    assert_eq!(
        parse_simgrid_xml("<platform version=\"4.1\"></platform>", "p.xml", &mut files)
            .unwrap_err()
            .to_string(),
        "p.xml:1: <platform>: the platform has no <zone>"
    );
}

/// Mutations of a valid platform (truncations, deleted and doubled bytes, swapped attribute
/// values) never panic: each gives a platform or an error.
#[test]
fn mutated_inputs_never_panic() {
    use rand::{Rng, SeedableRng};
    let base =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/simgrid/clusters.xml")).unwrap();
    let zones = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/simgrid/zones.xml")).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let tokens = [
        "\"", "<", ">", "/", "-1", "0", "e", "UP", "zone", "=", " ", "Mf", ",", "_UP", "1e308", "NO",
    ];
    for text in [&base, &zones] {
        let bytes = text.as_bytes();
        for i in 0..1500 {
            let mut m = bytes.to_vec();
            match i % 4 {
                0 => m.truncate(rng.gen_range(0..m.len())),
                1 => {
                    let at = rng.gen_range(0..m.len());
                    let len = rng.gen_range(1..8).min(m.len() - at);
                    m.drain(at..at + len);
                }
                2 => {
                    let at = rng.gen_range(0..m.len());
                    let token = tokens[rng.gen_range(0..tokens.len())];
                    m.splice(at..at, token.bytes());
                }
                _ => {
                    let at = rng.gen_range(0..m.len());
                    m[at] = b"0123456789-.eE\"<>= aZ"[rng.gen_range(0..21)];
                }
            }
            let Ok(s) = String::from_utf8(m) else { continue };
            if let Ok(p) = parse_simgrid_xml(&s, "m.xml", &mut files) {
                for a in 0..p.hosts.len().min(8) as u32 {
                    for b in 0..p.hosts.len().min(8) as u32 {
                        let _ = p.route(sim_core::platform::HostId(a), sim_core::platform::HostId(b));
                    }
                }
            }
        }
    }
}

/// A topology cluster on line 4 with `attrs` (its own `topology`, `topo_parameters`, `radical`).
fn topology(attrs: &str) -> String {
    message(&format!(
        "<cluster id=\"c\" prefix=\"n\" suffix=\"\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" {attrs}/>"
    ))
}

#[test]
fn topology_parameters_are_checked() {
    let bad = |attrs: &str, why: &str| {
        let m = topology(attrs);
        assert!(
            m.starts_with("p.xml:4: cluster 'c': attribute 'topo_parameters': bad value"),
            "{m}"
        );
        assert!(m.contains(why), "{m}\nshould say: {why}");
    };
    bad(
        r#"topology="TORUS" topo_parameters="2,x" radical="0-3""#,
        "dimension 2 must be a positive integer, got \"x\"",
    );
    bad(
        r#"topology="TORUS" topo_parameters="2,0" radical="0-3""#,
        "dimension 2 must be positive, got 0",
    );
    bad(
        r#"topology="TORUS" topo_parameters="" radical="0-3""#,
        "dimension 1 must be a positive integer",
    );
    bad(
        r#"topology="TORUS" topo_parameters="64,64" radical="0-4095""#,
        "4096 hosts",
    );
    bad(
        r#"topology="FAT_TREE" topo_parameters="2;2,2;1,2" radical="0-3""#,
        "4 parts separated by ';'), got 3",
    );
    bad(
        r#"topology="FAT_TREE" topo_parameters="2;2,2,2;1,2;1,1" radical="0-3""#,
        "2 level(s) but the children count list has 3",
    );
    bad(
        r#"topology="FAT_TREE" topo_parameters="2;2,2;1,-2;1,1" radical="0-3""#,
        "the parents count of level 2 must be a positive integer",
    );
    bad(
        r#"topology="FAT_TREE" topo_parameters="2;2,2;2,2;1,1" radical="0-3" limiter_link="1GBps""#,
        "this tree has 8 switches for 4 hosts",
    );
    bad(
        r#"topology="DRAGONFLY" topo_parameters="2,1;2;2,1;1" radical="0-7""#,
        "the chassis part must be \"chassis,black links\"",
    );
    bad(
        r#"topology="DRAGONFLY" topo_parameters="3,1;1,1;2,1;1" radical="0-5""#,
        "3 groups but 2 routers per chassis",
    );
    bad(
        r#"topology="DRAGONFLY" topo_parameters="2,1;1,1;2,1;0" radical="0-3""#,
        "hosts per router must be positive",
    );
    assert_eq!(
        topology(r#"topology="TORUS" radical="0-3""#),
        "p.xml:4: cluster 'c': attribute 'topo_parameters': missing"
    );
    assert_eq!(
        topology(r#"topology="TORUS" topo_parameters="2,2" radical="0-2""#),
        "p.xml:4: cluster 'c': attribute 'radical': bad value \"0-2\": lists 3 host(s) but topology TORUS \
         \"2,2\" has 4 hosts"
    );
    assert_eq!(
        topology(r#"topology="TORUS" topo_parameters="2,2" radical="0-3" router_id="r""#),
        "p.xml:4: cluster 'c': attribute 'router_id': bad value \"r\": a TORUS cluster has no backbone and no \
         router (SimGrid 3.32 ignores this attribute there): remove it"
    );
    assert!(topology(r#"topology="RING" topo_parameters="2" radical="0-1""#)
        .contains("attribute 'topology': bad value \"RING\": expected one of FLAT, TORUS, FAT_TREE, DRAGONFLY"));
}

#[test]
fn topology_names_collide_with_other_elements() {
    // The torus hosts n0..n3 and a host declared before it.
    let m = message(
        "<host id=\"n2\" speed=\"1Gf\"/>\n<cluster id=\"c\" prefix=\"n\" suffix=\"\" speed=\"1Gf\" bw=\"1GBps\" \
         lat=\"1us\" topology=\"TORUS\" topo_parameters=\"4\" radical=\"0-3\"/>",
    );
    assert_eq!(m, "p.xml:5: cluster 'c': attribute 'radical': duplicate host 'n2'");
}

//! Unit strings, checked against SimGrid 3.32 itself.
//!
//! Source: SimGrid's unit tables (`src/xbt/parse_units.cpp` in SimGrid 3.32: speeds `f` with
//! prefixes k..Y and `flops` with kilo..yotta; bandwidths `Bps`/`bps` with k..Y (x1000) and
//! Ki..Yi (x1024), bits = 1/8 byte; times w d h m s ms us ns ps; sizes `B`/`b` like bandwidths).
//! Every value below was printed by python3-simgrid 3.32 after loading a one-host platform
//! using the string (`repr(host.speed)`, `repr(link.bandwidth)`, `repr(link.latency)`), and is
//! compared bit for bit. Strings SimGrid rejected ("unknown unit") are errors here too.
//! Sizes are not exposed by SimGrid's XML, so their rows follow the table only.

use platforms::units::{parse_bandwidth, parse_size, parse_speed, parse_time};

#[test]
fn speeds_as_simgrid_parses_them() {
    let table: &[(&str, f64)] = &[
        ("1f", 1.0),
        ("1Mf", 1000000.0),
        ("98.095Mf", 98095000.0),
        ("137.333Mf", 137333000.0),
        ("1.5Gf", 1500000000.0),
        ("1kf", 1000.0),
        ("1Tf", 1000000000000.0),
        ("1Pf", 1000000000000000.0),
        ("1Ef", 1e+18),
        ("1Zf", 1e+21),
        ("1Yf", 1e+24),
        ("1flops", 1.0),
        ("1kiloflops", 1000.0),
        ("1megaflops", 1000000.0),
        ("1gigaflops", 1000000000.0),
        ("1teraflops", 1000000000000.0),
        ("1petaflops", 1000000000000000.0),
        ("1exaflops", 1e+18),
        ("1zetaflops", 1e+21),
        ("1yottaflops", 1e+24),
        ("1e9f", 1000000000.0),
        ("1e9", 1000000000.0),
        ("1E3f", 1000.0),
        ("1e+3f", 1000.0),
        ("1.5e-3Gf", 1500000.0),
        ("3.3Mf", 3300000.0),
        ("0.1f", 0.1),
        (" 1f", 1.0),
        ("1f ", 1.0),
        ("1.f", 1.0),
        (".5f", 0.5),
        ("+1f", 1.0),
        ("-1f", -1.0),
        ("0f", 0.0),
    ];
    for &(s, v) in table {
        assert_eq!(parse_speed(s), Ok(v), "{s:?}");
    }
    for s in [
        "1Kf",
        "1kflops",
        "1Mflops",
        "1Kiflops",
        "1 Mf",
        "1mf",
        "1MF",
        "1Mif",
        "1Gfl",
        "1zettaflops",
        "1kilof",
        "1Ff",
        "1Kif",
        "1kiloflop",
        "1Gflop",
        "1kibiflops",
    ] {
        assert!(parse_speed(s).is_err(), "{s:?} accepted");
    }
}

#[test]
fn bandwidths_as_simgrid_parses_them() {
    let table: &[(&str, f64)] = &[
        ("1Bps", 1.0),
        ("41.28MBps", 41280000.0),
        ("1GBps", 1000000000.0),
        ("125MBps", 125000000.0),
        ("10Gbps", 1250000000.0),
        ("1kBps", 1000.0),
        ("1KiBps", 1024.0),
        ("1MiBps", 1048576.0),
        ("1GiBps", 1073741824.0),
        ("1Kibps", 128.0),
        ("1bps", 0.125),
        ("1Mbps", 125000.0),
        ("3.3Mbps", 412500.0),
        ("1e6", 1000000.0),
        ("1TBps", 1000000000000.0),
        ("1PBps", 1000000000000000.0),
        ("1EBps", 1e+18),
        ("1ZBps", 1e+21),
        ("1YBps", 1e+24),
        ("1YiBps", 1.2089258196146292e+24),
        ("1kbps", 125.0),
        ("0.3Mbps", 37500.0),
        ("1.7Gbps", 212500000.0),
        ("3.430125MBps", 3430125.0),
        ("0.1kBps", 100.0),
        ("3.3MBps", 3300000.0),
        ("1e-1GBps", 100000000.0),
    ];
    for &(s, v) in table {
        assert_eq!(parse_bandwidth(s), Ok(v), "{s:?}");
    }
    for s in ["1KBps", "1B", "1bytes", "1Mbit", "1Kbps", "1kibiBps", "1MBPS"] {
        assert!(parse_bandwidth(s).is_err(), "{s:?} accepted");
    }
}

#[test]
fn times_as_simgrid_parses_them() {
    let table: &[(&str, f64)] = &[
        ("59.9us", 5.99e-05),
        ("1ms", 0.001),
        ("2s", 2.0),
        ("1e-3", 0.001),
        ("1ns", 1e-09),
        ("1m", 60.0),
        ("1h", 3600.0),
        ("1d", 86400.0),
        ("1w", 604800.0),
        ("1ps", 1e-12),
        ("50us", 4.9999999999999996e-05),
        ("536.941us", 0.000536941),
        ("6.932556ms", 0.006932556),
        ("1us", 1e-06),
        ("0", 0.0),
        ("-1s", -1.0),
    ];
    for &(s, v) in table {
        assert_eq!(parse_time(s), Ok(v), "{s:?}");
    }
    for s in ["1fs", "1ks", "1min", "1sec", "1S", "1Ms", "1ds", "1\u{3bc}s"] {
        assert!(parse_time(s).is_err(), "{s:?} accepted");
    }
}

#[test]
fn sizes_follow_simgrids_table() {
    let table: &[(&str, f64)] = &[
        ("1GiB", 1073741824.0),
        ("500MB", 500e6),
        ("1B", 1.0),
        ("8b", 1.0),
        ("1KiB", 1024.0),
        ("1kB", 1000.0),
        ("2MiB", 2097152.0),
        ("1Gib", 134217728.0),
        ("4096", 4096.0),
    ];
    for &(s, v) in table {
        assert_eq!(parse_size(s), Ok(v), "{s:?}");
    }
    for s in ["1KB", "1 B", "1Gbit", "1GiBps", "1o"] {
        assert!(parse_size(s).is_err(), "{s:?} accepted");
    }
}

#[test]
fn error_message_quotes_the_string() {
    let e = parse_speed("12Qf").unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad unit string \"12Qf\" (expected a speed such as 1Gf or 98.095Mf)"
    );
}

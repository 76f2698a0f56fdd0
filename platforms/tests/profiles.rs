//! Profile semantics, checked against SimGrid 3.32 runs.
//!
//! The SimGrid experiment (python3-simgrid 3.32): platform
//! `<host id="h" speed="100f" speed_file="p.txt"/>`; an actor sleeps until t = 0, 1, 2, ... and
//! prints `h.available_speed` (the profile factor in force); other runs execute N flops from a
//! start date and print the completion date. Observed:
//!
//! | p.txt | factor changes observed (date:factor) |
//! | --- | --- |
//! | `0 1.0` `10 0.5` `LOOPAFTER 5` | 0:1 10:0.5 15:1 25:0.5 30:1 40:0.5 |
//! | `2 0.8` `10 0.5` `LOOPAFTER 5` | 0:1 (nominal) 2:0.8 10:0.5 17:0.8 25:0.5 32:0.8 40:0.5 |
//! | `2 0.8` `10 0.5` `PERIODICITY 15` | same as the line above |
//! | `2 0.8` `10 0.5` `PERIODICITY 12` | 2:0.8 10:0.5 14:0.8 22:0.5 26:0.8 34:0.5 38:0.8 |
//! | `2 0.8` `10 0.5` `PERIODICITY 10` | 2:0.8 10:0.5 12:0.8 20:0.5 22:0.8 ... |
//! | `2 0.8` `10 0.5` `PERIODICITY 5` | rejected: "Profile loop conditions are not realizable!" |
//! | `2 0.8` `10 0.5` (no loop) | 2:0.8 10:0.5, then 0.5 forever |
//!
//! and with `2 0.8` `10 0.5` `LOOPAFTER 5`: exec 1000 flops from 0 ends at 13.2, exec 3000 flops
//! from 0 at 43.6, exec 500 flops from 1 at 7.0.

use platforms::{parse_profile, parse_simgrid_xml};
use sim_core::profile::Profile;

/// Absolute (date, value) events up to `until`.
fn events_until(p: &Profile, until: f64) -> Vec<(f64, f64)> {
    (0..)
        .map_while(|n| p.nth_event(n))
        .take_while(|&(d, _)| d <= until)
        .collect()
}

/// Completion date of `flops` started at `start` on a 100 flop/s host with this speed profile
/// (factor 1 before the first event).
fn exec_end(p: &Profile, start: f64, flops: f64) -> f64 {
    let mut factor = 1.0;
    let mut t = start;
    let mut left = flops;
    for n in 0.. {
        let next = p.nth_event(n);
        match next {
            Some((d, v)) if d <= t => factor = v,
            Some((d, v)) => {
                let can = 100.0 * factor * (d - t);
                if can >= left {
                    return t + left / (100.0 * factor);
                }
                left -= can;
                t = d;
                factor = v;
            }
            None => return t + left / (100.0 * factor),
        }
    }
    unreachable!()
}

#[test]
fn loopafter_repeats_from_the_profile_origin() {
    let p = parse_profile("0 1.0\n10 0.5\nLOOPAFTER 5\n").unwrap();
    assert_eq!(p.period(), Some(15.0));
    assert_eq!(
        events_until(&p, 40.0),
        [
            (0.0, 1.0),
            (10.0, 0.5),
            (15.0, 1.0),
            (25.0, 0.5),
            (30.0, 1.0),
            (40.0, 0.5)
        ]
    );
    // First event at 2: the second cycle starts at 2 + (10 + 5) = 17, not at 10 + 5 = 15.
    let p = parse_profile("2 0.8\n10 0.5\nLOOPAFTER 5\n").unwrap();
    assert_eq!(p.period(), Some(15.0));
    assert_eq!(
        events_until(&p, 40.0),
        [
            (2.0, 0.8),
            (10.0, 0.5),
            (17.0, 0.8),
            (25.0, 0.5),
            (32.0, 0.8),
            (40.0, 0.5)
        ]
    );
}

#[test]
fn periodicity_is_the_cycle_length() {
    let p = parse_profile("2 0.8\n10 0.5\nPERIODICITY 15\n").unwrap();
    assert_eq!(p, parse_profile("2 0.8\n10 0.5\nLOOPAFTER 5\n").unwrap());
    let p = parse_profile("2 0.8\n10 0.5\nPERIODICITY 12\n").unwrap();
    assert_eq!(
        events_until(&p, 38.0),
        [
            (2.0, 0.8),
            (10.0, 0.5),
            (14.0, 0.8),
            (22.0, 0.5),
            (26.0, 0.8),
            (34.0, 0.5),
            (38.0, 0.8)
        ]
    );
    let p = parse_profile("2 0.8\n10 0.5\nPERIODICITY 10\n").unwrap();
    assert_eq!(
        events_until(&p, 22.0),
        [(2.0, 0.8), (10.0, 0.5), (12.0, 0.8), (20.0, 0.5), (22.0, 0.8)]
    );
    let e = parse_profile("2 0.8\n10 0.5\nPERIODICITY 5\n").unwrap_err();
    assert_eq!(e.line, 3);
}

#[test]
fn without_loop_the_last_value_stays() {
    let p = parse_profile("2 0.8\n10 0.5\n").unwrap();
    assert_eq!(p.period(), None);
    assert_eq!(events_until(&p, 1e9), [(2.0, 0.8), (10.0, 0.5)]);
}

#[test]
fn exec_durations_match_simgrid() {
    let p = parse_profile("2 0.8\n10 0.5\nLOOPAFTER 5\n").unwrap();
    assert!((exec_end(&p, 0.0, 1000.0) - 13.2).abs() < 1e-9);
    assert!((exec_end(&p, 0.0, 3000.0) - 43.6).abs() < 1e-9);
    assert!((exec_end(&p, 1.0, 500.0) - 7.0).abs() < 1e-9);
}

#[test]
fn inline_trace_periodicity_acts_as_periodicity() {
    // SimGrid 3.32: <trace periodicity="15"> with the lines "2 0.8" and "10 0.5", connected
    // with kind="SPEED", gave 2:0.8 10:0.5 17:0.8 25:0.5 32:0.8; periodicity 0 or -1: no loop;
    // with file= the attribute is ignored.
    let xml = |periodicity: &str| {
        format!(
            r#"<?xml version='1.0'?>
<platform version="4.1"><zone id="z" routing="Full">
<host id="h" speed="100f"/>
<trace id="t" periodicity="{periodicity}">
2 0.8
10 0.5
</trace>
<trace_connect kind="SPEED" trace="t" element="h"/>
</zone></platform>"#
        )
    };
    let speed_profile = |periodicity: &str| {
        let p = parse_simgrid_xml(&xml(periodicity), "t.xml", &mut platforms::NoFiles).unwrap();
        p.hosts[0].speed_profile.clone().unwrap()
    };
    assert_eq!(
        speed_profile("15"),
        parse_profile("2 0.8\n10 0.5\nPERIODICITY 15\n").unwrap()
    );
    assert_eq!(speed_profile("0").period(), None);
    assert_eq!(speed_profile("-1").period(), None);
    let with_file = r#"<platform version="4.1"><zone id="z" routing="Full"><host id="h" speed="100f"/>
<trace id="t" file="p.txt" periodicity="15"/><trace_connect kind="HOST_AVAIL" trace="t" element="h"/>
</zone></platform>"#;
    let mut files = |_: &str| Ok::<_, String>("2 0.8\n10 0.5\n".to_string());
    let p = parse_simgrid_xml(with_file, "t.xml", &mut files).unwrap();
    assert_eq!(p.hosts[0].state_profile.as_ref().unwrap().period(), None);
    assert_eq!(p.hosts[0].speed_profile, None);
}

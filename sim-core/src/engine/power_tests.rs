//! Closed-form checks of pstates, application on/off and host energy: every expected value is
//! worked out by hand in the comments from SimGrid's documented model (`crate::energy`).

use std::sync::Arc;

use super::*;
use crate::platform::Host;

fn powered(speeds: &[f64], cores: u32, wattage: &str, off: &str) -> (Platform, HostId) {
    let mut p = Platform::new();
    let mut h = Host::new("h", speeds[0]);
    if speeds.len() > 1 {
        h.pstate_speeds = speeds.to_vec();
    }
    h.cores = cores;
    h.properties.insert("wattage_per_state".into(), wattage.into());
    h.properties.insert("wattage_off".into(), off.into());
    let id = p.add_host(h).unwrap();
    (p, id)
}

/// Runs until `t`, returning the notifications on the way (tag, date, completed?).
fn until(e: &mut Engine, t: f64) -> Vec<(u64, f64, bool)> {
    let mut out = Vec::new();
    while let Some(note) = e.next_notification_until(SimTime::from_secs(t)) {
        match note {
            Notification::Completed { tag, .. } => out.push((tag, e.now().secs(), true)),
            Notification::Failed { tag, .. } => out.push((tag, e.now().secs(), false)),
        }
    }
    assert_eq!(e.now().secs(), t);
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs()
}

#[test]
fn one_core_busy_then_idle() {
    // 1 core at 100 Mf, "100:200": 1 Gflop takes 10 s at 200 W (2000 J), then 10 s idle at
    // 100 W (1000 J): 3000 J at t = 20, i.e. idle × 20 + (full − idle) × 10 busy seconds.
    let (p, h) = powered(&[100e6], 1, "100:200", "10");
    let mut e = Engine::new(Arc::new(p)).unwrap();
    assert!(e.has_power());
    e.start_exec(h, 1e9, 1);
    assert_eq!(until(&mut e, 20.0), [(1, 10.0, true)]);
    assert!(close(e.energy_j(h).unwrap(), 3000.0), "{:?}", e.energy_j(h));
}

#[test]
fn four_cores_pstates_and_off_period() {
    // 4 cores, pstates 100 and 50 Mf, "100:120:200, 90:110:150", off 10 W.
    // [0, 10]: pstate 0, two 1 Gflop execs on two cores at 100 Mf each end at 10; load 2/4:
    //          120 + 0.5 × 80 = 160 W → 1600 J.
    // [10, 20]: pstate 1, five 0.4 Gflop execs share 4 × 50 Mf: 40 Mf each, 10 s; load 1:
    //          150 W → 1500 J.
    // [20, 25]: off, 10 W → 50 J.  [25, 30]: on, pstate 1, idle 90 W → 450 J.  Total 3600 J.
    let (p, h) = powered(&[100e6, 50e6], 4, "100:120:200, 90:110:150", "10");
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e9, 1);
    e.start_exec(h, 1e9, 2);
    assert_eq!(until(&mut e, 10.0), [(1, 10.0, true), (2, 10.0, true)]);
    assert!(close(e.energy_j(h).unwrap(), 1600.0));
    e.set_pstate(h, 1).unwrap();
    assert_eq!((e.pstate(h), e.host_speed(h)), (1, 50e6));
    for tag in 10..15 {
        e.start_exec(h, 0.4e9, tag);
    }
    let done = until(&mut e, 20.0);
    assert_eq!(done.len(), 5);
    assert!(done.iter().all(|&(_, t, ok)| ok && close(t, 20.0)), "{done:?}");
    e.set_host_on(h, false);
    until(&mut e, 25.0);
    assert!(close(e.energy_j(h).unwrap(), 3150.0));
    e.set_host_on(h, true);
    until(&mut e, 30.0);
    assert!(close(e.energy_j(h).unwrap(), 3600.0), "{:?}", e.energy_j(h));
    // Load-seconds: 0.5 × 10 + 1 × 10, none while off or idle.
    assert!(close(e.cpu_load_s(h).unwrap(), 15.0));
}

#[test]
fn pstate_change_reshares_a_running_exec() {
    // 1 core, pstates 100 and 50 Mf, "100:200, 90:150". 1 Gflop from 0: half done at 5 s at
    // 100 Mf; at pstate 1 the other 0.5 Gflop take 10 s: it ends at 15.
    // Energy: 200 W × 5 + 150 W × 10 = 2500 J.
    let (p, h) = powered(&[100e6, 50e6], 1, "100:200, 90:150", "0");
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e9, 7);
    assert!(until(&mut e, 5.0).is_empty());
    e.set_pstate(h, 1).unwrap();
    assert_eq!(until(&mut e, 15.0), [(7, 15.0, true)]);
    assert!(close(e.energy_j(h).unwrap(), 2500.0));
}

#[test]
fn turning_off_fails_the_execs_and_a_zero_speed_pstate_draws_full_power() {
    // energy_boot.xml's idea: a 0 flop/s pstate draws its full power, busy or not. Pstates 100
    // Mf and 0 f, "95:200, 120:120", off 10 W.
    // [0, 4]: one exec, 200 W → 800 J; turned off at 4: the exec fails then.
    // [4, 6]: off, 10 W → 20 J.  [6, 156]: on at the 0 f pstate, 120 W × 150 s = 18000 J
    // (the file's "booting takes 150 s and 18000 J").  Total 18820 J.
    let (p, h) = powered(&[100e6, 0.0], 1, "95:200, 120:120", "10");
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e9, 3);
    until(&mut e, 4.0);
    e.set_host_on(h, false);
    assert!(!e.host_is_on(h));
    assert_eq!(until(&mut e, 6.0), [(3, 4.0, false)]);
    e.set_host_on(h, true);
    e.set_pstate(h, 1).unwrap();
    until(&mut e, 156.0);
    assert!(close(e.energy_j(h).unwrap(), 18820.0), "{:?}", e.energy_j(h));
}

#[test]
fn bad_pstate_and_hosts_without_power() {
    let (mut p, h) = powered(&[100e6, 50e6], 1, "100:200, 90:150", "0");
    let err = Engine::new(Arc::new(p.clone())).unwrap().set_pstate(h, 2).unwrap_err();
    assert_eq!(err.to_string(), "host 'h' has 2 pstate(s) (0 to 1), no pstate 2");
    let plain = p.add_host(Host::new("plain", 1e9)).unwrap();
    let e = Engine::new(Arc::new(p.clone())).unwrap();
    assert_eq!(e.energy_j(plain), None);
    assert_eq!(e.energy_j(h), Some(0.0));
    // A bad property is refused by `Engine::new`, naming it.
    p.hosts[0].properties.insert("wattage_off".into(), "lots".into());
    let err = Engine::new(Arc::new(p)).err().unwrap().to_string();
    assert!(err.contains("'wattage_off'"), "{err}");
    // No power property anywhere: no meters.
    let mut q = Platform::new();
    q.add_host(Host::new("a", 1e9)).unwrap();
    assert!(!Engine::new(Arc::new(q)).unwrap().has_power());
}

#[test]
fn every_state_change_of_a_powered_host_counts_even_in_a_long_idle_run() {
    // A state profile on for 1 s, off for 1 s, every 2 s; nothing runs but a sleep of 2e5 s,
    // so the engine would otherwise skip the profile's idle events (more than 65536 in a
    // row). Idle "100:200" while on, 10 W while off: 1e5 s × 100 W + 1e5 s × 10 W = 1.1e7 J.
    let (mut p, h) = powered(&[100e6], 1, "100:200", "10");
    p.hosts[0].state_profile = Some(crate::profile::Profile::new(vec![(0.0, 1.0), (1.0, 0.0)], Some(2.0)).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.sleep(2e5, 1);
    assert_eq!(until(&mut e, 2e5), [(1, 2e5, true)]);
    assert!(
        (e.energy_j(h).unwrap() - 1.1e7).abs() < 1e-6 * 1.1e7,
        "{:?}",
        e.energy_j(h)
    );
}

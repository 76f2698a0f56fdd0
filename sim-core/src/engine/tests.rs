//! Closed-form checks of the engine on hand-built platforms. Every expected value is computed in
//! the test from the model's formula (module docs of `network` and `engine`), never read back from
//! the engine.

use std::sync::Arc;

use super::*;
use crate::platform::{Disk, DiskModel, Host, Link, Platform, SharingPolicy};
use crate::profile::Profile;

fn rel_close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-300)
}

/// Runs the engine until no notification is left, returning (tag, time, completed?) in order.
fn drain(engine: &mut Engine) -> Vec<(u64, f64, bool)> {
    let mut out = Vec::new();
    while let Some(note) = engine.next_notification() {
        match note {
            Notification::Completed { tag, .. } => out.push((tag, engine.now().secs(), true)),
            Notification::Failed { tag, .. } => out.push((tag, engine.now().secs(), false)),
        }
    }
    out
}

/// Two hosts joined by `links` (bandwidth, latency) in series, symmetric route.
fn chain(links: &[(f64, f64)]) -> (Platform, HostId, HostId) {
    let mut p = Platform::new();
    let a = p.add_host(Host::new("a", 1e9)).unwrap();
    let b = p.add_host(Host::new("b", 1e9)).unwrap();
    let ids: Vec<_> = links
        .iter()
        .enumerate()
        .map(|(i, &(bw, lat))| p.add_link(Link::new(format!("l{i}"), bw, lat)).unwrap())
        .collect();
    let mut back = ids.clone();
    back.reverse();
    p.routing.add_route(a, b, ids);
    p.routing.add_route(b, a, back);
    (p, a, b)
}

/// Links of 10 MB/s (10 ms) and 1 MB/s (5 ms) in series.
const TWO_LINKS: [(f64, f64); 2] = [(1e7, 0.010), (1e6, 0.005)];

/// LV08's duration of `s` bytes alone on [`TWO_LINKS`]: L = 0.015, both links are on the
/// reverse route too, so w = 1.05: T = 13.01 L + S / (0.97 min(1e6 / 1.05, 4194304 / (2 L))).
fn alone_on_two_links(s: f64) -> f64 {
    let l = 0.015;
    13.01 * l + s / (0.97 * f64::min(1e6 / 1.05, 4194304.0 / (2.0 * l)))
}

/// An engine on [`TWO_LINKS`] with a comm of `s` bytes from a to b started (tag 1).
fn one_comm_on_two_links(s: f64) -> (Engine, HostId, HostId) {
    let (p, a, b) = chain(&TWO_LINKS);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(a, b, s, 1).unwrap();
    (e, a, b)
}

#[test]
fn one_flow_alone_matches_the_lv08_formula() {
    let s = 5e6;
    let (mut e, ..) = one_comm_on_two_links(s);
    let out = drain(&mut e);
    let expected = alone_on_two_links(s);
    assert_eq!(out.len(), 1);
    assert!(rel_close(out[0].1, expected, 1e-12), "{} vs {expected}", out[0].1);
}

#[test]
fn tcp_window_bounds_a_long_fat_route() {
    // 1 GB/s, 100 ms: the window 4194304 / 0.2 = 20.97 MB/s is the bound, not the link.
    let (p, a, b) = chain(&[(1e9, 0.1)]);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(a, b, 1e8, 0).unwrap();
    let t = drain(&mut e)[0].1;
    let expected = 13.01 * 0.1 + 1e8 / (0.97 * 4194304.0 / 0.2);
    assert!(rel_close(t, expected, 1e-12));
}

#[test]
fn raw_model_is_latency_plus_size_over_bandwidth() {
    let (p, a, b) = chain(&[(1e7, 0.010), (1e6, 0.005)]);
    let mut e = Engine::with_params(Arc::new(p), NetworkParams::raw());
    e.start_comm(a, b, 5e6, 0).unwrap();
    let t = drain(&mut e)[0].1;
    assert!(rel_close(t, 0.015 + 5e6 / 1e6, 1e-12));
}

#[test]
fn equal_flows_on_a_bottleneck_finish_at_the_max_min_time() {
    // N flows a -> b started together, same route: each gets 1/N of the max-min share; they all
    // finish at 13.01 L + S N / (0.97 B / 1.05) (window far above B here).
    for n in [2usize, 5, 10] {
        let (p, a, b) = chain(&[(1e6, 0.001)]);
        let mut e = Engine::new(Arc::new(p)).unwrap();
        for i in 0..n {
            e.start_comm(a, b, 1e6, i as u64).unwrap();
        }
        let out = drain(&mut e);
        let expected = 13.01 * 0.001 + 1e6 * n as f64 / (0.97 * 1e6 / 1.05);
        assert_eq!(out.len(), n);
        for (_, t, ok) in out {
            assert!(ok && rel_close(t, expected, 1e-9), "n={n}: {t} vs {expected}");
        }
    }
}

#[test]
fn no_route_is_an_error_naming_both_hosts() {
    let mut p = Platform::new();
    let a = p.add_host(Host::new("St_Jean", 1e9)).unwrap();
    let b = p.add_host(Host::new("Jill", 1e9)).unwrap();
    let mut e = Engine::new(Arc::new(p)).unwrap();
    let err = e.start_comm(a, b, 1.0, 0).unwrap_err().to_string();
    assert!(err.contains("St_Jean") && err.contains("Jill"), "{err}");
}

#[test]
fn loopback_uses_the_model_loopback() {
    // No declared route from a host to itself: FATPIPE 10 GB/s, 0 latency: T = S / (0.97 · 1e10).
    let mut p = Platform::new();
    let a = p.add_host(Host::new("a", 1e9)).unwrap();
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(a, a, 1e9, 0).unwrap();
    let t = drain(&mut e)[0].1;
    assert!(rel_close(t, 1e9 / (0.97 * 1e10), 1e-12));
}

fn one_host(speed: f64, cores: u32) -> (Platform, HostId) {
    let mut p = Platform::new();
    let mut host = Host::new("h", speed);
    host.cores = cores;
    let h = p.add_host(host).unwrap();
    (p, h)
}

#[test]
fn exec_alone_takes_flops_over_speed() {
    let (p, h) = one_host(2e9, 1);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 3e9, 0);
    assert!(rel_close(drain(&mut e)[0].1, 1.5, 1e-15));
}

#[test]
fn two_execs_share_one_core_but_not_two() {
    let (p, h) = one_host(1e9, 1);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e9, 0);
    e.start_exec(h, 1e9, 1);
    let out = drain(&mut e);
    assert!(out.iter().all(|&(_, t, _)| rel_close(t, 2.0, 1e-15)), "{out:?}");

    let (p, h) = one_host(1e9, 2);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e9, 0);
    e.start_exec(h, 1e9, 1);
    let out = drain(&mut e);
    assert!(out.iter().all(|&(_, t, _)| rel_close(t, 1.0, 1e-15)), "{out:?}");
}

#[test]
fn speed_profile_halving_at_ten_seconds() {
    // 1 Gflop/s until t = 10, then 0.5 Gflop/s. 15 Gflop: 10 Gflop by t = 10, the remaining
    // 5 Gflop at 0.5 Gflop/s take 10 s more: finish at 20.
    let (mut p, h) = one_host(1e9, 1);
    p.hosts[0].speed_profile = Some(Profile::new(vec![(0.0, 1.0), (10.0, 0.5)], None).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 15e9, 0);
    assert!(rel_close(drain(&mut e)[0].1, 20.0, 1e-15));
    assert_eq!(e.host_speed(h), 0.5e9);
}

#[test]
fn state_profile_turning_the_host_off_fails_the_exec_at_that_date() {
    let (mut p, h) = one_host(1e9, 1);
    p.hosts[0].state_profile = Some(Profile::new(vec![(7.5, 0.0)], None).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e12, 42);
    let note = e.next_notification().unwrap();
    assert!(matches!(
        note,
        Notification::Failed {
            tag: 42,
            cause: FailureCause::HostOff(_),
            ..
        }
    ));
    assert_eq!(e.now().secs(), 7.5);
    // A new exec on the off host fails at once.
    e.start_exec(h, 1.0, 43);
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Failed { tag: 43, .. })
    ));
    assert!(!e.host_is_on(h));
}

#[test]
fn a_sleep_until_on_ends_when_its_host_turns_back_on() {
    // Off at 7.5 s, on again at 20 s: the wait started while off ends at 20 s; one started
    // while the host is on ends at once; a cancelled one never ends.
    let (mut p, h) = one_host(1e9, 1);
    p.hosts[0].state_profile = Some(Profile::new(vec![(7.5, 0.0), (20.0, 1.0)], None).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.sleep_until_on(h, 1);
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Completed { tag: 1, .. })
    ));
    assert_eq!(e.now().secs(), 0.0);
    e.sleep(10.0, 2);
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Completed { tag: 2, .. })
    ));
    assert!(!e.host_is_on(h));
    e.sleep_until_on(h, 3);
    let cancelled = e.sleep_until_on(h, 4);
    e.cancel(cancelled);
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Completed { tag: 3, .. })
    ));
    assert_eq!(e.now().secs(), 20.0);
    assert!(e.next_notification().is_none());
}

#[test]
fn fcfs_disk_serves_one_request_at_a_time() {
    // Seek+rotation 10 ms, 50 MB/s: requests of 1 MB take 0.01 + 0.02 = 0.03 s each, in order.
    let (mut p, h) = one_host(1e9, 1);
    let d = p.add_disk(Disk {
        name: "d".into(),
        host: h,
        model: DiskModel::FcfsQueue {
            seek_rotation_s: 0.01,
            transfer_rate: 50e6,
        },
    });
    let mut e = Engine::new(Arc::new(p)).unwrap();
    for i in 0..3 {
        e.start_io(d, 1e6, IoOp::Read, i);
    }
    let out = drain(&mut e);
    for (i, &(tag, t, _)) in out.iter().enumerate() {
        assert_eq!(tag, i as u64);
        assert!(rel_close(t, 0.03 * (i + 1) as f64, 1e-12), "{out:?}");
    }
}

#[test]
fn shared_disk_splits_read_bandwidth() {
    let (mut p, h) = one_host(1e9, 1);
    let d = p.add_disk(Disk {
        name: "d".into(),
        host: h,
        model: DiskModel::Shared {
            read_bw: 100e6,
            write_bw: 50e6,
        },
    });
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_io(d, 100e6, IoOp::Read, 0);
    e.start_io(d, 100e6, IoOp::Read, 1);
    e.start_io(d, 50e6, IoOp::Write, 2);
    let out = drain(&mut e);
    // Reads share 100 MB/s: 2 s each. The write is alone on 50 MB/s: 1 s.
    assert_eq!(out[0].0, 2);
    assert!(rel_close(out[0].1, 1.0, 1e-12));
    assert!(rel_close(out[1].1, 2.0, 1e-12) && rel_close(out[2].1, 2.0, 1e-12));
}

#[test]
fn fatpipe_link_does_not_split() {
    let (mut p, a, b) = chain(&[(1e6, 0.0)]);
    p.links[0].policy = SharingPolicy::Fatpipe;
    let mut e = Engine::with_params(Arc::new(p), NetworkParams::raw());
    e.start_comm(a, b, 1e6, 0).unwrap();
    e.start_comm(a, b, 1e6, 1).unwrap();
    let out = drain(&mut e);
    assert!(out.iter().all(|&(_, t, _)| rel_close(t, 1.0, 1e-12)), "{out:?}");
}

#[test]
fn staggered_flows_follow_the_max_min_timeline() {
    // Raw model, one 1 MB/s link. Flow A (2 MB) starts at 0, flow B (0.5 MB) at 1 s.
    // 0..1: A alone at 1 MB/s -> 1 MB left. From 1: both at 0.5 MB/s; B done at 2 s.
    // A has 0.5 MB left at 2, alone again: done at 2.5 s.
    let (p, a, b) = chain(&[(1e6, 0.0)]);
    let mut e = Engine::with_params(Arc::new(p), NetworkParams::raw());
    e.start_comm(a, b, 2e6, 0).unwrap();
    let t = e.sleep(1.0, 99);
    let _ = t;
    let mut done = Vec::new();
    while let Some(note) = e.next_notification() {
        if let Notification::Completed { tag: 99, .. } = note {
            e.start_comm(a, b, 0.5e6, 1).unwrap();
        } else if let Notification::Completed { tag, .. } = note {
            done.push((tag, e.now().secs()));
        }
    }
    assert_eq!(done.len(), 2);
    assert!(done[0].0 == 1 && rel_close(done[0].1, 2.0, 1e-12), "{done:?}");
    assert!(done[1].0 == 0 && rel_close(done[1].1, 2.5, 1e-12), "{done:?}");
}

#[test]
fn same_inputs_give_identical_event_traces() {
    let run = || {
        let (p, a, b) = chain(&[(1e6, 0.001), (5e5, 0.002)]);
        let mut e = Engine::new(Arc::new(p)).unwrap();
        e.enable_trace();
        for i in 0..20 {
            let (s, d) = if i % 3 == 0 { (b, a) } else { (a, b) };
            e.start_comm(s, d, 1e5 * (1 + i % 4) as f64, i).unwrap();
            e.start_exec(a, 1e8 * (1 + i % 3) as f64, 100 + i);
        }
        drain(&mut e);
        (e.trace().to_vec(), e.steps())
    };
    let (t1, s1) = run();
    let (t2, s2) = run();
    assert!(s1 > 40);
    assert_eq!(t1, t2);
    assert_eq!(s1, s2);
}

/// `next_notification_until` takes a live completion itself and leaves every other case to its
/// general loop; a trace sends every event through that loop. The two must agree on every
/// notification, date and work counter, on a run mixing sleeps, execs sharing a core (clocks),
/// comms (latency events, solves), cancellations (stale events) and finite horizons.
#[test]
fn the_completion_fast_path_does_what_the_general_loop_does() {
    let run = |traced: bool| {
        let (p, a, b) = chain(&[(1e6, 0.001), (5e5, 0.002)]);
        let mut e = Engine::new(Arc::new(p)).unwrap();
        if traced {
            e.enable_trace();
        }
        let mut out = Vec::new();
        let mut started = 0u64;
        let start = |e: &mut Engine, i: u64| match i % 4 {
            0 => {
                e.sleep(0.01 * (i % 7) as f64, i);
            }
            1 => {
                e.start_exec(a, 1e7 * (1 + i % 3) as f64, i);
            }
            2 => {
                let (s, d) = if i % 3 == 0 { (b, a) } else { (a, b) };
                e.start_comm(s, d, 1e4 * (1 + i % 5) as f64, i).unwrap();
            }
            _ => {
                let doomed = e.sleep(1.0, i);
                e.cancel(doomed);
            }
        };
        for i in 0..12 {
            start(&mut e, i);
            started += 1;
        }
        let mut horizon = 0.0;
        while started < 400 {
            horizon += 0.003;
            while let Some(note) = e.next_notification_until(SimTime::from_secs(horizon)) {
                let (tag, done) = match note {
                    Notification::Completed { tag, .. } => (tag, true),
                    Notification::Failed { tag, .. } => (tag, false),
                };
                out.push((tag, e.now().secs().to_bits(), done));
                start(&mut e, started);
                start(&mut e, started + 1);
                started += 2;
            }
        }
        let tail = drain(&mut e);
        (out, tail, e.now(), e.steps(), e.stats())
    };
    let (fast, general) = (run(false), run(true));
    assert!(fast.0.len() > 150, "{} notifications", fast.0.len());
    assert!(fast.4.stale_events > 0, "the run makes stale events: {:?}", fast.4);
    assert_eq!(fast, general);
}

#[test]
fn cancelled_activity_frees_its_share() {
    let (p, h) = one_host(1e9, 1);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    let a = e.start_exec(h, 1e9, 0);
    e.start_exec(h, 1e9, 1);
    e.sleep(0.5, 2);
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Completed { tag: 2, .. })
    ));
    // Both ran at 0.5 Gflop/s for 0.5 s: 0.75 Gflop left each. Cancel one; the other finishes
    // alone at full speed: 0.5 + 0.75 = 1.25 s.
    assert!(rel_close(e.remaining(a).unwrap(), 0.75e9, 1e-12));
    e.cancel(a);
    assert_eq!(e.remaining(a), None);
    let out = drain(&mut e);
    assert_eq!(out.len(), 1);
    assert!(rel_close(out[0].1, 1.25, 1e-12));
}

#[test]
fn link_turned_off_fails_comms_in_either_phase() {
    // One 1 MB/s link of 1 s latency, off at t = 5: a comm still in its latency phase
    // (13.01 s long) and a comm in its data phase (started at 0 on a second, short-latency
    // link that shares the failing one) both fail at 5; a comm started later fails at once.
    let mut p = Platform::new();
    let a = p.add_host(Host::new("a", 1e9)).unwrap();
    let b = p.add_host(Host::new("b", 1e9)).unwrap();
    let c = p.add_host(Host::new("c", 1e9)).unwrap();
    let mut slow = Link::new("slow", 1e6, 1.0);
    slow.state_profile = Some(Profile::new(vec![(5.0, 0.0)], None).unwrap());
    let slow = p.add_link(slow).unwrap();
    let mut fast = Link::new("fast", 1e6, 1e-4);
    fast.state_profile = Some(Profile::new(vec![(5.0, 0.0)], None).unwrap());
    let fast = p.add_link(fast).unwrap();
    let other = p.add_link(Link::new("other", 1e6, 1e-4)).unwrap();
    p.routing.add_route(a, b, vec![slow]);
    p.routing.add_route(a, c, vec![fast]);
    p.routing.add_route(b, c, vec![other]);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(a, b, 1e3, 1).unwrap(); // latency phase until 13.01
    e.start_comm(a, c, 1e9, 2).unwrap(); // data phase from 0.0013, ~1000 s
    e.start_comm(b, c, 1e5, 3).unwrap(); // unrelated route, done at ~0.1 s
    let mut failed = Vec::new();
    while let Some(note) = e.next_notification() {
        if let Notification::Failed { tag, cause, .. } = note {
            failed.push((tag, e.now().secs(), cause));
        }
    }
    assert_eq!(
        failed,
        vec![
            (1, 5.0, FailureCause::LinkOff(slow)),
            (2, 5.0, FailureCause::LinkOff(fast))
        ]
    );
    e.start_comm(a, b, 1.0, 4).unwrap();
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Failed {
            tag: 4,
            cause: FailureCause::LinkOff(_),
            ..
        })
    ));
}

#[test]
fn comms_started_after_a_link_change_use_the_new_latency_and_bandwidth() {
    // Route figures are cached per route; a latency or bandwidth profile event must refresh
    // them. Link: 10 MB/s, 10 ms; at t = 2 latency 20 ms, at t = 3 bandwidth 5 MB/s (a
    // bandwidth profile gives bytes/s, as SimGrid reads it). A comm started at t = 4 takes
    // 13.01 L + S / (0.97 min(B' / 1.05, 4194304 / (2 L))).
    let (mut p, a, b) = chain(&[(1e7, 0.010)]);
    p.links[0].latency_profile = Some(Profile::new(vec![(2.0, 0.020)], None).unwrap());
    p.links[0].bandwidth_profile = Some(Profile::new(vec![(3.0, 5e6)], None).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    // One comm before the changes fills the cache with the old figures.
    e.start_comm(a, b, 1e3, 1).unwrap();
    e.sleep(4.0, 2);
    let s = 1e6;
    let mut done = None;
    while let Some(note) = e.next_notification() {
        match note {
            Notification::Completed { tag: 2, .. } => {
                e.start_comm(a, b, s, 3).unwrap();
            }
            Notification::Completed { tag: 3, .. } => done = Some(e.now().secs()),
            _ => {}
        }
    }
    let l = 0.020;
    let expected = 4.0 + 13.01 * l + s / (0.97 * f64::min(0.5e7 / 1.05, 4194304.0 / (2.0 * l)));
    let got = done.expect("the second comm completes");
    assert!(rel_close(got, expected, 1e-12), "{got} vs {expected}");
    // The route's first scan of its link (solving the first comm alone) went stale with the
    // bandwidth change: the second comm scanned the link again.
    assert_eq!(e.stats().solver.lone_scans_reused, 0);
}

#[test]
fn a_bandwidth_change_that_keeps_the_penalty_still_refreshes_a_routes_scan() {
    // The raw model: no RTT penalty (every comm's penalty is 1) and T = L + S / B. The link
    // goes from 10 MB/s to 5 MB/s at t = 3, which leaves the penalty as it was, so only the
    // solver's count of capacity changes tells the route's scan (made for the first comm) is
    // stale. A comm of 1 MB started at t = 4 ends at 4 + 0.01 + 1e6 / 5e6 (a stale scan would
    // give 4 + 0.01 + 1e6 / 1e7).
    let (mut p, a, b) = chain(&[(1e7, 0.010)]);
    p.links[0].bandwidth_profile = Some(Profile::new(vec![(3.0, 5e6)], None).unwrap());
    let mut e = Engine::with_params(Arc::new(p), NetworkParams::raw());
    e.start_comm(a, b, 1e3, 1).unwrap();
    e.sleep(4.0, 2);
    let mut done = None;
    while let Some(note) = e.next_notification() {
        match note {
            Notification::Completed { tag: 2, .. } => {
                e.start_comm(a, b, 1e6, 3).unwrap();
            }
            Notification::Completed { tag: 3, .. } => done = Some(e.now().secs()),
            _ => {}
        }
    }
    let expected = 4.0 + 0.010 + 1e6 / 5e6;
    let got = done.expect("the second comm completes");
    assert!(rel_close(got, expected, 1e-12), "{got} vs {expected}");
    assert_eq!(e.stats().solver.lone_scans_reused, 0);
}

#[test]
fn a_comm_alone_on_a_route_reuses_the_last_comms_scan_of_its_links() {
    // Two comms one after the other on the same two-link route, each alone: the second takes
    // the route's levels from the first one's scan, and takes the same closed-form time.
    let s = 5e6;
    let (mut e, a, b) = one_comm_on_two_links(s);
    let mut ends = Vec::new();
    while let Some(note) = e.next_notification() {
        if let Notification::Completed { tag, .. } = note {
            ends.push(e.now().secs());
            if tag == 1 {
                e.start_comm(a, b, s, 2).unwrap();
            }
        }
    }
    let duration = alone_on_two_links(s);
    assert_eq!(ends.len(), 2);
    assert!(rel_close(ends[0], duration, 1e-12), "{} vs {duration}", ends[0]);
    assert!(
        rel_close(ends[1], 2.0 * duration, 1e-12),
        "{} vs {}",
        ends[1],
        2.0 * duration
    );
    assert_eq!(e.stats().solver.lone_scans_reused, 1);
}

/// One core of 1 flop/s. A (10 flops) runs alone from 0; B (4 flops) joins at 2 and the two
/// share the core (processor sharing): B ends at 2 + 4 / 0.5 = 10, A has 10 - 2 - 8 * 0.5 = 4
/// flops left and ends at 14. Returns the engine after the run.
fn two_shared_execs(mode: SharingMode) -> Engine {
    let mut p = Platform::new();
    let h = p.add_host(Host::new("h", 1.0)).unwrap();
    let mut e = Engine::with_options(Arc::new(p), NetworkParams::default(), mode);
    e.start_exec(h, 10.0, 1);
    e.sleep(2.0, 2);
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Completed { tag: 2, .. })
    ));
    e.start_exec(h, 4.0, 3);
    let out = drain(&mut e);
    assert_eq!(out, vec![(3, 10.0, true), (1, 14.0, true)]);
    e
}

#[test]
fn work_counters_follow_a_hand_trace_of_two_shared_execs() {
    let e = two_shared_execs(SharingMode::Exact);
    // The trace behind the counts (exact mode: every change refills its component):
    // t = 0: solve 1, A alone (a lone component, 1 element), A's rate 0 -> 1, A queued at 10;
    // t = 2: the sleep ends (event 1); solve 2, A and B (one component, 2 elements, one round),
    //        both rates change, A queued again at 18 and B at 10;
    // t = 10: A's first entry pops, superseded (stale 1); B ends (event 2); solve 3, A alone
    //        (1 element), A's rate 0.5 -> 1, A queued at 14;
    // t = 14: A ends (event 3). Its entry at 18 is never popped: nothing is left to wait for.
    let stats = e.stats();
    assert_eq!(stats.events, 3);
    assert_eq!(stats.stale_events, 1);
    assert_eq!(stats.rate_changes, 4);
    assert_eq!(stats.clock_level_changes, 0);
    let solver = stats.solver;
    assert_eq!(solver.solves, 3);
    assert_eq!(solver.components, 3);
    assert_eq!(solver.lone_components, 2);
    assert_eq!(solver.elements_scanned, 4);
    assert_eq!(solver.rounds, 1);
    assert_eq!(solver.incremental, 0);
}

#[test]
fn work_counters_follow_a_hand_trace_of_two_shared_execs_in_fast_mode() {
    let e = two_shared_execs(SharingMode::Fast);
    // The same run in fast mode. Two flows are too few for a clock or for the incremental
    // path (`CLOCK_MIN_MEMBERS`), so values and events are the exact mode's; only the checks
    // that decide it add work:
    // t = 0: solve 1, A joins alone: the incremental path fills it as a lone component (no
    //        search), rate 1, queued at 10; the core becomes its component's bottleneck;
    // t = 2: the sleep ends (event 1); B joins the core: the join's check leaves the core (its
    //        bottleneck) to the level check, which finds the component too small before
    //        reading it, and solve 2 falls back to a fill (2 elements, one round), which finds
    //        the core the one bottleneck again; A and B
    //        change rate (2), A queued again at 18 and B at 10;
    // t = 10: A's first entry pops, superseded (stale 1); B ends (event 2); its leaving is
    //        checked, the component is too small, solve 3 fills A alone (1 element); A's rate
    //        0.5 -> 1, queued at 14;
    // t = 14: A ends (event 3).
    let stats = e.stats();
    assert_eq!(stats.events, 3);
    assert_eq!(stats.stale_events, 1);
    assert_eq!(stats.rate_changes, 4);
    assert_eq!(stats.clock_level_changes, 0);
    assert_eq!(stats.clock_joins, 0);
    let solver = stats.solver;
    assert_eq!(solver.solves, 3);
    assert_eq!(solver.incremental, 1);
    assert_eq!(solver.components, 3);
    assert_eq!(solver.lone_components, 2);
    assert_eq!(solver.elements_scanned, 3);
    assert_eq!(solver.rounds, 1);
}

#[test]
fn execs_sharing_a_core_on_its_clock_end_at_the_processor_sharing_dates() {
    // n = CLOCK_MIN_MEMBERS execs of 1, 2, ..., n flops start together on one core of 1 flop/s:
    // processor sharing gives each 1/m while m run, so the k-th smallest ends (n + 1 - k) s
    // after the one before it: T_k = sum_{j <= k} (n + 1 - j). n members make a clock; after the
    // first completion the n - 1 left go back to their own rates.
    let n = crate::sharing::maxmin::CLOCK_MIN_MEMBERS as u64;
    for mode in [SharingMode::Exact, SharingMode::Fast] {
        let mut p = Platform::new();
        let h = p.add_host(Host::new("h", 1.0)).unwrap();
        let mut e = Engine::with_options(Arc::new(p), NetworkParams::default(), mode);
        for k in 1..=n {
            e.start_exec(h, k as f64, k);
        }
        let out = drain(&mut e);
        assert_eq!(out.len() as u64, n);
        let mut expected = 0.0;
        for (k, &(tag, date, ok)) in out.iter().enumerate() {
            let k = k as u64 + 1;
            expected += (n + 1 - k) as f64;
            assert!(ok);
            assert_eq!(tag, k, "{mode:?}");
            assert!(
                rel_close(date, expected, 1e-12),
                "{mode:?}: exec {tag} at {date}, not {expected}"
            );
        }
        let stats = e.stats();
        // Rate changes: n starts, then after the k-th completion the n - k left (k < n).
        assert_eq!(stats.rate_changes, n + n * (n - 1) / 2, "{mode:?}");
        // Fast mode puts the n on the core's clock once; exact mode has no clocks.
        let joins = if mode == SharingMode::Fast { n } else { 0 };
        assert_eq!(stats.clock_joins, joins, "{mode:?}");
        assert_eq!(stats.clock_level_changes, 0, "{mode:?}");
    }
}

#[test]
fn many_clock_members_completing_together_leave_in_the_exact_modes_order() {
    // 200 execs of 1 flop and 50 of 2 flops, in interleaved tag order, start together on one
    // core of 1 flop/s: processor sharing ends the 200 together at t = 250 and the 50 at t = 300.
    // In fast mode the 200 leave the core's clock at once, most of them in one pass over its heap
    // (`pop_clock_head`), and must reach the application in the order exact mode gives them.
    let mut runs = Vec::new();
    for mode in [SharingMode::Exact, SharingMode::Fast] {
        let mut p = Platform::new();
        let h = p.add_host(Host::new("h", 1.0)).unwrap();
        let mut e = Engine::with_options(Arc::new(p), NetworkParams::default(), mode);
        for tag in 0..250u64 {
            let flops = if tag % 5 == 2 { 2.0 } else { 1.0 };
            e.start_exec(h, flops, tag);
        }
        let out = drain(&mut e);
        assert_eq!(out.len(), 250);
        for &(tag, date, ok) in &out {
            let expected = if tag % 5 == 2 { 300.0 } else { 250.0 };
            assert!(ok && rel_close(date, expected, 1e-12), "{mode:?}: exec {tag} at {date}");
        }
        runs.push(out.iter().map(|&(tag, ..)| tag).collect::<Vec<_>>());
    }
    assert_eq!(runs[0], runs[1], "fast mode reorders the tie");
}

#[test]
fn a_latency_change_moves_the_tcp_bound_of_a_running_flow() {
    // SimGrid 3.32's `set_latency`: a running flow's latency, and with it its TCP bound
    // 4194304 / (2 L), follow the link's latency. One flow alone on a 1 GB/s link whose latency
    // goes from 10 ms to 20 ms at t = 2: rate 0.97 · 4194304 / 0.02 until 2, then half that.
    let (mut p, a, b) = chain(&[(1e9, 0.010)]);
    p.links[0].latency_profile = Some(Profile::new(vec![(2.0, 0.020)], None).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    let s = 1e9;
    e.start_comm(a, b, s, 1).unwrap();
    let mut done = None;
    while let Some(note) = e.next_notification() {
        if let Notification::Completed { tag: 1, .. } = note {
            done = Some(e.now().secs());
        }
    }
    let (r1, r2) = (0.97 * 4194304.0 / 0.02, 0.97 * 4194304.0 / 0.04);
    let start = 13.01 * 0.010;
    let expected = 2.0 + (s - r1 * (2.0 - start)) / r2;
    let got = done.expect("the comm completes");
    assert!(rel_close(got, expected, 1e-12), "{got} vs {expected}");
}

#[test]
fn a_profile_event_goes_before_an_activity_started_at_its_date() {
    // The host is off from 0 and back on at 1; an exec started at exactly 1 (on the wake-up of
    // a sleep) runs, as in SimGrid, where resources change before actors run at a date.
    let mut p = Platform::new();
    let h = p.add_host(Host::new("h", 1e9)).unwrap();
    p.hosts[0].state_profile = Some(Profile::new(vec![(0.0, 0.0), (1.0, 1.0)], None).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.sleep(1.0, 1);
    let mut outcome = None;
    while let Some(note) = e.next_notification() {
        match note {
            Notification::Completed { tag: 1, .. } => {
                e.start_exec(h, 4e7, 2);
            }
            Notification::Completed { tag: 2, .. } => outcome = Some((e.now().secs(), false)),
            Notification::Failed { tag: 2, .. } => outcome = Some((e.now().secs(), true)),
            _ => {}
        }
    }
    assert_eq!(outcome, Some((1.04, false)));
}

#[test]
fn superseded_events_do_not_pile_up_under_a_periodic_profile() {
    // One long exec on a host whose speed alternates every 5 s: every change leaves a
    // superseded completion behind. 40,000 changes later the queue holds a bounded number.
    let mut p = Platform::new();
    let h = p.add_host(Host::new("h", 1e9)).unwrap();
    p.hosts[0].speed_profile = Some(Profile::new(vec![(0.0, 1.0), (5.0, 0.5)], Some(10.0)).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e15, 1);
    assert!(e.next_notification_until(SimTime::from_secs(2e5)).is_none());
    assert!(e.stats().stale_events > 30_000, "{:?}", e.stats());
    assert!(e.pending_events() < 5_000, "{} events pending", e.pending_events());
}

#[test]
fn a_run_whose_activities_can_never_progress_ends() {
    // A host whose speed drops to 0 for good, and a periodic profile elsewhere, used
    // to spin the event loop for ever. The run ends once only cycles of periodic profiles are
    // left; the exec is still there, unfinished.
    let mut p = Platform::new();
    let h = p.add_host(Host::new("stuck", 1e9)).unwrap();
    p.add_host(Host::new("other", 1e9)).unwrap();
    p.hosts[0].speed_profile = Some(Profile::new(vec![(1.0, 0.0)], None).unwrap());
    p.hosts[1].speed_profile = Some(Profile::new(vec![(0.0, 1.0), (5.0, 0.5)], Some(10.0)).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    let exec = e.start_exec(h, 1e10, 1);
    assert!(e.next_notification().is_none());
    assert!(e.now().secs() < 100.0, "ended at {}", e.now().secs());
    assert_eq!(e.active_activities(), 1);
    assert_eq!(e.remaining(exec), Some(9e9));
    // A periodic profile that brings the speed back keeps the run going to the end.
    let mut p = Platform::new();
    let h = p.add_host(Host::new("flaky", 1e9)).unwrap();
    p.hosts[0].speed_profile = Some(Profile::new(vec![(0.0, 1.0), (1.0, 0.0)], Some(100.0)).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e10, 1);
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Completed { tag: 1, .. })
    ));
    // 1 s of work per 100 s period: the 10th second of work ends at 9 * 100 + 1.
    assert!(rel_close(e.now().secs(), 901.0, 1e-12), "{}", e.now().secs());
}

#[test]
fn an_end_date_that_is_not_a_finite_number_comes_after_every_finite_one() {
    // 1e9 flops at 4e-310 flop/s end at 2.5e318 s, which is infinity. With a
    // periodic profile elsewhere the completion at `inf` waited behind profile events for
    // ever. The other host's exec ends at its date; then the run moves to infinity, where the
    // first exec completes, and ends.
    let mut p = Platform::new();
    let tiny = p.add_host(Host::new("tiny", 4e-310)).unwrap();
    let other = p.add_host(Host::new("other", 1e9)).unwrap();
    p.hosts[1].speed_profile = Some(Profile::new(vec![(0.0, 1.0), (5.0, 0.5)], Some(10.0)).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(tiny, 1e9, 1);
    e.start_exec(other, 1e9, 2);
    assert_eq!(drain(&mut e), vec![(2, 1.0, true), (1, f64::INFINITY, true)]);
    assert_eq!(e.active_activities(), 0);
    // 20 execs sharing the host: in fast mode its bottleneck clock holds them, and its next
    // member's date overflows; all of them end at infinity, in both modes.
    for mode in [SharingMode::Fast, SharingMode::Exact] {
        let mut p = Platform::new();
        let tiny = p.add_host(Host::new("tiny", 4e-310)).unwrap();
        let mut e = Engine::with_options(Arc::new(p), NetworkParams::default(), mode);
        for tag in 0..20 {
            e.start_exec(tiny, 1e9, tag);
        }
        let ends = drain(&mut e);
        assert_eq!(ends.len(), 20, "{mode:?}: {ends:?}");
        assert!(
            ends.iter().all(|&(_, date, done)| date == f64::INFINITY && done),
            "{ends:?}"
        );
        assert_eq!(e.stats().clock_joins > 0, mode == SharingMode::Fast);
    }
    // An exec whose host's speed dropped to 0 for good waits instead: it is left, and the run
    // ends at a finite date.
    let mut p = Platform::new();
    let h = p.add_host(Host::new("stuck", 1e9)).unwrap();
    p.hosts[0].speed_profile = Some(Profile::new(vec![(1.0, 0.0)], None).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_exec(h, 1e10, 1);
    assert!(e.next_notification().is_none());
    assert!(e.now().is_finite() && e.active_activities() == 1);
    // A 1e307 s latency ends at 1.3e308 s; the data phase, bounded by the TCP window to
    // 4194304 / 2e307 B/s, would end at 5e310 s: at infinity.
    let (p, a, b) = chain(&[(1e7, 1e307)]);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(a, b, 1e10, 1).unwrap();
    assert_eq!(drain(&mut e), vec![(1, f64::INFINITY, true)]);
    // A 1e308 s latency ends at infinity, where a window of 4194304 / 2e308 = 0 B/s leaves the
    // comm for ever in its data phase.
    let (p, a, b) = chain(&[(1e7, 1e308)]);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(a, b, 1e3, 1).unwrap();
    assert_eq!(drain(&mut e), vec![]);
    assert_eq!((e.now(), e.active_activities()), (SimTime::INFINITY, 1));
}

#[test]
fn profile_events_no_activity_uses_are_skipped_to_the_next_activity_event() {
    // A comm whose latency phase lasts 13.01 × 7e15 s, with a host speed profile of
    // period 10 s elsewhere, would take 2e16 profile events to end. The profile touches no
    // live activity, so the engine jumps it to the comm's next event: same date as without
    // the profile, in a few events.
    let alone = {
        let (p, a, b) = chain(&[(1e7, 7e15)]);
        let mut e = Engine::new(Arc::new(p)).unwrap();
        e.start_comm(a, b, 1e3, 1).unwrap();
        drain(&mut e)
    };
    assert_eq!(alone.len(), 1);
    assert!(rel_close(alone[0].1, 13.01 * 7e15, 1e-3), "{alone:?}");
    let (mut p, a, b) = chain(&[(1e7, 7e15)]);
    p.hosts[0].speed_profile = Some(Profile::new(vec![(0.0, 1.0), (5.0, 0.5)], Some(10.0)).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(a, b, 1e3, 1).unwrap();
    assert_eq!(drain(&mut e), alone);
    assert!(e.steps() < 3 * IDLE_PROFILE_RUN, "{} events", e.steps());
}

/// Sleeps until `at`, then starts a 1e10-flop exec on every host (tag = host index), and
/// records each exec's end: (tag, date, completed?).
fn execs_started_at(p: Platform, at: f64) -> (Vec<(u64, f64, bool)>, u64) {
    let hosts = p.hosts.len();
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.sleep(at, 1000);
    let mut out = Vec::new();
    while let Some(note) = e.next_notification() {
        match note {
            Notification::Completed { tag: 1000, .. } => {
                for h in 0..hosts {
                    e.start_exec(HostId(h as u32), 1e10, h as u64);
                }
            }
            Notification::Completed { tag, .. } => out.push((tag, e.now().secs(), true)),
            Notification::Failed { tag, .. } => out.push((tag, e.now().secs(), false)),
        }
        if out.len() == hosts {
            break;
        }
    }
    (out, e.steps())
}

#[test]
fn after_a_skip_activities_see_the_values_and_the_order_they_would_have_seen() {
    // Host 0 is off at 10k and on at 10k + 5; host 1 off at 10k and on at 10k + 1; host 2
    // runs at full speed from 10k, half speed from 10k + 5. At 10k both hosts go off in the
    // order their steps were pushed: host 1's (pushed at 10k - 9) before host 0's (at
    // 10k - 5), the reverse of the order of the first events. Execs started at 16 (no skip)
    // and at 1e6 + 6 (after a skip over 4e5 profile events) end alike.
    let mut p = Platform::new();
    for name in ["a", "b", "c"] {
        p.add_host(Host::new(name, 1e9)).unwrap();
    }
    p.hosts[0].state_profile = Some(Profile::new(vec![(0.0, 0.0), (5.0, 1.0)], Some(10.0)).unwrap());
    p.hosts[1].state_profile = Some(Profile::new(vec![(0.0, 0.0), (1.0, 1.0)], Some(10.0)).unwrap());
    p.hosts[2].speed_profile = Some(Profile::new(vec![(0.0, 1.0), (5.0, 0.5)], Some(10.0)).unwrap());
    let (early, early_steps) = execs_started_at(p.clone(), 16.0);
    // Host 2: 0.5 Gf/s to 20 (2e9 flops), 1 Gf/s to 25 (5e9), 0.5 Gf/s to 30 (2.5e9), then
    // the last 5e8 at 1 Gf/s.
    assert_eq!(early, vec![(1, 20.0, false), (0, 20.0, false), (2, 30.5, true)]);
    assert!(early_steps < 100);
    let (late, late_steps) = execs_started_at(p, 1e6 + 6.0);
    let shifted: Vec<_> = early.iter().map(|&(t, d, ok)| (t, d - 16.0 + 1e6 + 6.0, ok)).collect();
    assert_eq!(late, shifted);
    assert!(late_steps < 2 * IDLE_PROFILE_RUN, "{late_steps} events");
}

/// Hosts `a`, `b` and `c` in a zone without routes, under the Constant model with these
/// `network/*` settings.
fn constant_platform(settings: &[(&str, &str)]) -> Platform {
    let mut p = Platform::new();
    for name in ["a", "b", "c"] {
        p.add_host(Host::new(name, 1e9)).unwrap();
    }
    p.config.insert("network/model".into(), "Constant".into());
    for &(key, value) in settings {
        p.config.insert(key.into(), value.into());
    }
    p
}

#[test]
fn constant_model_comms_last_the_latency_factor_whatever_their_size() {
    // SimGrid 3.32's NetworkConstantAction: latency = network/latency-factor (default 13.01),
    // no route (none is declared here), no sharing: each comm ends at its start + 13.01, in
    // the order they started.
    let p = constant_platform(&[]);
    let (a, b, c) = (HostId(0), HostId(1), HostId(2));
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(a, b, 1e9, 1).unwrap();
    e.start_comm(a, b, 1.0, 2).unwrap();
    e.start_comm(c, c, 0.0, 3).unwrap();
    assert_eq!(drain(&mut e), [(1, 13.01, true), (2, 13.01, true), (3, 13.01, true)]);
}

#[test]
fn constant_model_remaining_bytes_fall_linearly() {
    // SimGrid's update_remains takes bytes * delta / latency factor off at every step: with a
    // factor of 2.5, 1e6 bytes lose 4e5 per second, so 5e5 are left at 1.25 s; the comm ends at
    // 2.5 s.
    let p = constant_platform(&[("network/latency-factor", "2.5")]);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    let comm = e.start_comm(HostId(0), HostId(1), 1e6, 1).unwrap();
    e.sleep(1.25, 2);
    assert!(matches!(
        e.next_notification(),
        Some(Notification::Completed { tag: 2, .. })
    ));
    assert_eq!(e.remaining(comm), Some(5e5));
    assert_eq!(drain(&mut e), [(1, 2.5, true)]);
}

#[test]
fn constant_model_comm_fails_when_an_endpoint_turns_off() {
    // A 2 s comm b -> a from 0 with b turning off at 0.5 (a state profile) fails then; a comm
    // started while b is off fails at once; with a factor of 0 a comm ends at its start.
    let mut p = constant_platform(&[("network/latency-factor", "2")]);
    p.hosts[1].state_profile = Some(Profile::new(vec![(0.5, 0.0)], None).unwrap());
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(HostId(1), HostId(0), 1e3, 1).unwrap();
    e.start_comm(HostId(0), HostId(2), 1e3, 2).unwrap();
    assert_eq!(
        e.next_notification()
            .map(|n| matches!(n, Notification::Failed { tag: 1, .. })),
        Some(true)
    );
    assert_eq!(e.now().secs(), 0.5);
    e.start_comm(HostId(0), HostId(1), 1e3, 3).unwrap();
    assert_eq!(drain(&mut e), [(3, 0.5, false), (2, 2.0, true)]);

    let p = constant_platform(&[("network/latency-factor", "0")]);
    let mut e = Engine::new(Arc::new(p)).unwrap();
    e.start_comm(HostId(0), HostId(1), 1e3, 1).unwrap();
    assert_eq!(drain(&mut e), [(1, 0.0, true)]);
}

#[test]
fn constant_model_refuses_links_and_other_network_settings() {
    // SimGrid aborts on the first link of a Constant platform; the model reads only
    // network/latency-factor, so any other network setting would be silently unused.
    let (mut p, _, _) = chain(&TWO_LINKS);
    p.config.insert("network/model".into(), "Constant".into());
    let err = Engine::new(Arc::new(p)).err().expect("refused").to_string();
    assert!(err.contains("network/model") && err.contains("link 'l0'"), "{err}");
    let p = constant_platform(&[("network/TCP-gamma", "0")]);
    let err = Engine::new(Arc::new(p)).err().expect("refused").to_string();
    assert!(
        err.contains("network/TCP-gamma") && err.contains("only network/latency-factor"),
        "{err}"
    );
}

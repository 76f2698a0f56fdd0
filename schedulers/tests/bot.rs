//! Bag-of-tasks master/worker on the engine: conservation over random platforms and policies,
//! and a closed-form makespan.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use schedulers::bot::{self, registry, BotConfig, TaskSizes};
use sim_core::platform::{Host, HostId, Link, Platform};
use sim_core::{Engine, NetworkParams};

/// A star: master `m` in the middle, each worker behind its own link to the master's link.
fn star(speeds: &[f64], bandwidths: &[f64], latencies: &[f64]) -> (Platform, HostId, Vec<HostId>) {
    let mut p = Platform::new();
    let m = p.add_host(Host::new("master", 1e9)).unwrap();
    let hub = p.add_link(Link::new("hub", 1e8, 1e-4)).unwrap();
    let mut workers = Vec::new();
    for (i, &speed) in speeds.iter().enumerate() {
        let w = p.add_host(Host::new(format!("w{i}"), speed)).unwrap();
        let l = p
            .add_link(Link::new(format!("l{i}"), bandwidths[i], latencies[i]))
            .unwrap();
        p.routing.add_route(m, w, vec![hub, l]);
        p.routing.add_route(w, m, vec![l, hub]);
        workers.push(w);
    }
    (p, m, workers)
}

fn check_conservation(outcome: &bot::BotOutcome, n: u64) -> Result<(), TestCaseError> {
    let mut ranges: Vec<(u64, u64)> = outcome.chunks.iter().map(|c| (c.first_task, c.size)).collect();
    ranges.sort();
    let mut next = 0;
    for (first, size) in ranges {
        prop_assert_eq!(first, next, "tasks skipped or computed twice");
        prop_assert!(size > 0);
        next = first + size;
    }
    prop_assert_eq!(next, n);
    prop_assert_eq!(outcome.tasks_done, n);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_task_is_computed_exactly_once(
        workers in prop::collection::vec((1e7f64..1e9, 1e4f64..1e8, 0.0f64..0.05), 1..12),
        n in 1u64..3000,
        policy in 0usize..registry::POLICIES.len(),
        flops in 1e6f64..1e9,
        bytes in 0.0f64..1e5,
    ) {
        let speeds: Vec<_> = workers.iter().map(|w| w.0).collect();
        let bws: Vec<_> = workers.iter().map(|w| w.1).collect();
        let lats: Vec<_> = workers.iter().map(|w| w.2).collect();
        let (platform, master, hosts) = star(&speeds, &bws, &lats);
        let config = BotConfig { master, workers: hosts, tasks: n, task_flops: flops, task_bytes: bytes, control_bytes: 100.0, task_sizes: TaskSizes::Equal, record_chunks: true };
        let name = registry::POLICIES[policy].info.name;
        let policy = registry::build(name, &BTreeMap::new()).unwrap();
        let engine = Engine::new(Arc::new(platform)).unwrap();
        let (outcome, stats) = bot::run(engine, config, policy).unwrap();
        check_conservation(&outcome, n)?;
        prop_assert!(stats.events > 0 && outcome.makespan > 0.0);
        // Every chunk's exec lasted size·F / speed (dedicated hosts, one exec at a time).
        for c in &outcome.chunks {
            let expected = c.size as f64 * flops / speeds[c.worker];
            prop_assert!(((c.end - c.start) - expected).abs() <= 1e-9 * expected.max(1e-9));
        }
    }
}

#[test]
fn single_worker_work_queue_makespan_in_closed_form() {
    // Raw network, one worker behind links hub (1e8 B/s, 0.1 ms) and l0 (1e6 B/s, 10 ms):
    // L = 0.0101 s, bottleneck 1e6 B/s. Each round: request 100 B (L + 100/1e6), reply of k·B
    // bytes (L + k·B/1e6), exec k·F/speed. N = 10 tasks, k = 2, B = 1000, F = 1e8, speed 1e8:
    // 5 rounds of (2L + 1e-4 + 2e-3 + 2 s). Makespan ends with the last exec.
    let (platform, master, hosts) = star(&[1e8], &[1e6], &[0.01]);
    let config = BotConfig {
        master,
        workers: hosts,
        tasks: 10,
        task_flops: 1e8,
        task_bytes: 1000.0,
        control_bytes: 100.0,
        task_sizes: TaskSizes::Equal,
        record_chunks: true,
    };
    let engine = Engine::with_params(Arc::new(platform), NetworkParams::raw());
    let policy = registry::build("wq", &BTreeMap::from([("chunk".to_string(), 2.0)])).unwrap();
    let (outcome, _) = bot::run(engine, config, policy).unwrap();
    let l = 0.0101;
    let round = (l + 100.0 / 1e6) + (l + 2000.0 / 1e6) + 2.0;
    assert!(
        (outcome.makespan - 5.0 * round).abs() < 1e-9,
        "{} vs {}",
        outcome.makespan,
        5.0 * round
    );
    assert_eq!(outcome.chunks.len(), 5);
    assert_eq!(outcome.chunks_done, 5);
}

#[test]
fn without_the_chunk_log_the_run_is_the_same() {
    // The log is bookkeeping only: turning it off changes neither the makespan nor the count.
    let run = |record_chunks: bool| {
        let (platform, master, hosts) = star(&[1e8, 5e7, 2e8], &[1e6, 2e6, 1e6], &[0.01, 0.02, 0.005]);
        let config = BotConfig {
            master,
            workers: hosts,
            tasks: 200,
            task_flops: 1e8,
            task_bytes: 1000.0,
            control_bytes: 100.0,
            task_sizes: TaskSizes::Equal,
            record_chunks,
        };
        let engine = Engine::with_params(Arc::new(platform), NetworkParams::lv08());
        let policy = registry::build("factoring", &BTreeMap::from([("alpha".to_string(), 2.0)])).unwrap();
        bot::run(engine, config, policy).unwrap().0
    };
    let (with, without) = (run(true), run(false));
    assert_eq!(with.makespan.to_bits(), without.makespan.to_bits());
    assert_eq!(with.chunks.len() as u64, with.chunks_done);
    assert_eq!(without.chunks_done, with.chunks_done);
    assert!(without.chunks.is_empty());
    assert_eq!(without.tasks_done, 200);
}

//! Criterion micro-benchmarks of the engine's hot parts (issue 5).
//!
//! * `queue_hold/<pending>`: the hold model on the bare `EventQueue` — pop the earliest event,
//!   push one at `now + Exp(1)` — with 10^3, 10^4 and 10^5 events pending. One iteration is one
//!   pop + one push; the reported throughput is events/s.
//! * `maxmin_cycle/<n>`: one add + solve + remove + solve cycle of a flow on a `MaxMinSystem`
//!   already holding `n` flows. Every flow crosses its own private link, a shared backbone and the
//!   master's link (a master/worker star), so all `n + 1` flows form one connected component and
//!   every solve re-solves all of them, as the engine does when a reply to a worker starts.
//! * `bot_grid90_wq1000`: a whole simulation, `schedulers::bot::run` on grid90 (master Jacquelin,
//!   90 nodes, work queue k = 1, N = 1000, F = 1e9, B = 1000), platform loading excluded.
//!
//! `cargo bench --bench engine` runs all; `cargo bench --bench engine -- queue_hold` one group.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use schedulers::bot::{self, registry, BotConfig, TaskSizes};
use sim_core::platform::{HostId, Platform};
use sim_core::queue::EventQueue;
use sim_core::sharing::{MaxMinSystem, Sharing};
use sim_core::{Engine, SimTime};

/// A fixed table of Exp(1) samples from a tiny LCG, so the benchmark measures the queue, not a
/// random generator.
fn exp_samples(n: usize) -> Vec<f64> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
            -u.ln()
        })
        .collect()
}

fn queue_hold(c: &mut Criterion) {
    const TABLE: usize = 1 << 16;
    let samples = exp_samples(TABLE);
    let mut group = c.benchmark_group("queue_hold");
    group.throughput(Throughput::Elements(1));
    for pending in [1_000usize, 10_000, 100_000] {
        let mut queue: EventQueue<u64> = EventQueue::new();
        for i in 0..pending {
            queue.push(SimTime::from_secs(samples[i % TABLE]), i as u64);
        }
        let mut k = pending;
        group.bench_function(BenchmarkId::from_parameter(pending), |b| {
            b.iter(|| {
                let (t, e) = queue.pop().expect("the hold model keeps the queue full");
                k = (k + 1) & (TABLE - 1);
                queue.push(SimTime::from_secs(t.secs() + samples[k]), black_box(e));
            })
        });
        assert_eq!(queue.len(), pending);
    }
    group.finish();
}

fn maxmin_cycle(c: &mut Criterion) {
    let mut group = c.benchmark_group("maxmin_cycle");
    for n in [1usize, 10, 100, 1000] {
        let mut sys = MaxMinSystem::new();
        let master = sys.add_constraint(125e6, Sharing::Shared);
        let backbone = sys.add_constraint(2.25e9, Sharing::Shared);
        let private: Vec<_> = (0..=n).map(|_| sys.add_constraint(125e6, Sharing::Shared)).collect();
        let mut changed = Vec::new();
        for (i, &link) in private.iter().take(n).enumerate() {
            // Distinct penalties (RTT-like), so the solver does real work.
            let v = sys.add_variable(1.0 + (i % 7) as f64 * 0.1, f64::INFINITY);
            sys.expand(v, master, 1.0);
            sys.expand(v, backbone, 1.0);
            sys.expand(v, link, 1.0);
        }
        sys.solve(&mut changed);
        let extra = private[n];
        group.throughput(Throughput::Elements(1));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                changed.clear();
                let v = sys.add_variable(1.3, f64::INFINITY);
                sys.expand(v, master, 1.0);
                sys.expand(v, backbone, 1.0);
                sys.expand(v, extra, 1.0);
                sys.solve(&mut changed);
                let x = sys.value(v);
                sys.remove_variable(v);
                sys.solve(&mut changed);
                black_box(x)
            })
        });
    }
    group.finish();
}

fn grid90() -> Arc<Platform> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml");
    Arc::new(platforms::load_platform(&path).expect("grid90 loads"))
}

fn bot_full_run(c: &mut Criterion) {
    let platform = grid90();
    let master = platform.host_id("Jacquelin").expect("grid90 has Jacquelin");
    let workers: Vec<HostId> = (0..platform.hosts.len() as u32)
        .map(HostId)
        .filter(|&h| h != master)
        .take(89)
        .collect();
    let config = BotConfig {
        master,
        workers,
        tasks: 1000,
        task_flops: 1e9,
        task_bytes: 1000.0,
        control_bytes: 100.0,
        task_sizes: TaskSizes::Equal,
        record_chunks: false,
    };
    let params: BTreeMap<String, f64> = [("chunk".to_string(), 1.0)].into_iter().collect();
    let mut group = c.benchmark_group("bot");
    group.sample_size(20);
    group.bench_function("grid90_wq1000", |b| {
        b.iter(|| {
            let engine = Engine::new(Arc::clone(&platform)).expect("engine");
            let policy = registry::build("wq", &params).expect("wq");
            let (outcome, stats) = bot::run(engine, config.clone(), policy).expect("run");
            black_box((outcome.makespan, stats.events))
        })
    });
    group.finish();
}

criterion_group!(benches, queue_hold, maxmin_cycle, bot_full_run);
criterion_main!(benches);

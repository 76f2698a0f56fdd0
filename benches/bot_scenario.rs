//! One bag-of-tasks scenario straight on the engine (`schedulers::bot`'s master/worker), for
//! `bench/compare.py` and `bench/scaling.py`: no experiment file, no CSV, no per-chunk table, so
//! its wall time and peak memory are the engine's and the master/worker application's alone.
//! (`gridsim run` measures the same simulation through the `bot` family adapter.)
//!
//!     cargo bench --bench bot_scenario -- --platform platforms/data/grid90.xml --master Jacquelin \
//!         --nodes 90 --tasks 100000 --flops 1e9 --bytes 1000 --policy wq
//!     cargo bench --bench bot_scenario -- --cluster 1000 --tasks 1000000 --policy wq
//!
//! `--cluster N` is `platforms::homogeneous_cluster(N, speed, bw, lat, bb_bw, bb_lat)` with
//! issue 5's numbers by default (1 Gflop/s, 125 MB/s, 50 µs, 2.25 GB/s, 500 µs; override with
//! `--speed --bw --lat --bb-bw --bb-lat`), master `node-0` by default. Without `--nodes` every
//! host is used. Prints one JSON line: makespan, events (engine steps), chunks, tasks_done,
//! setup_wall_s (platform), run_wall_s (the simulation, `Simulation::run`: the span SimGrid's
//! `Engine::run` is timed over; with `--repeat K` the median of K runs in this process),
//! engine_wall_s (building the engine's constraints and dropping the engine, outside that span
//! as SimGrid's platform loading and teardown are), repeat, allocations (heap allocations and
//! reallocations made by the last run: a warm engine makes none per event, so this stays far
//! below the event count),
//! peak_rss_kb (VmHWM), and the engine's work counters (`sim_core::EngineStats`, deterministic):
//! stale_events, rate_changes, clock_joins, clock_level_changes, omitted_uses, restored_uses, solves, incremental, components,
//! lone_components, lone_scans_reused, level_only_applies, elements_scanned, rounds. `--sharing exact` runs the
//! reference solver (the platform's `sharing` setting; `fast` is the default).
//!
//! Run by `cargo bench` without options (cargo passes `--bench`), it runs grid90, WQ, N = 1000.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use schedulers::bot::{self, registry, BotConfig, TaskSizes};
use sim_core::platform::HostId;
use sim_core::Engine;

/// The system allocator, counting allocations, so the run can report how many it made per event
/// (the engine should make none once warm: buffers are reused).
struct CountingAlloc;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

struct Options {
    platform: Option<PathBuf>,
    cluster: Option<usize>,
    speed: f64,
    bw: f64,
    lat: f64,
    bb_bw: f64,
    bb_lat: f64,
    master: Option<String>,
    nodes: Option<usize>,
    tasks: u64,
    flops: f64,
    bytes: f64,
    control_bytes: f64,
    policy: String,
    repeat: usize,
    sharing: Option<String>,
}

fn die(msg: &str) -> ! {
    eprintln!("bot_scenario: {msg}");
    std::process::exit(2)
}

fn parse() -> Options {
    let mut o = Options {
        platform: None,
        cluster: None,
        speed: 1e9,
        bw: 125e6,
        lat: 50e-6,
        bb_bw: 2.25e9,
        bb_lat: 500e-6,
        master: None,
        nodes: None,
        tasks: 1000,
        flops: 1e9,
        bytes: 1000.0,
        control_bytes: 100.0,
        policy: "wq".into(),
        repeat: 1,
        sharing: None,
    };
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if args.is_empty() {
        o.platform = Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml"));
        o.master = Some("Jacquelin".into());
        o.nodes = Some(90);
        return o;
    }
    let mut it = args.into_iter();
    while let Some(key) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| die(&format!("{key} needs a value")));
        let num = |v: String| -> f64 {
            v.parse::<f64>()
                .unwrap_or_else(|_| die(&format!("bad number for {key}: '{v}'")))
        };
        match key.as_str() {
            "--platform" => o.platform = Some(PathBuf::from(val())),
            "--cluster" => o.cluster = Some(num(val()) as usize),
            "--speed" => o.speed = num(val()),
            "--bw" => o.bw = num(val()),
            "--lat" => o.lat = num(val()),
            "--bb-bw" => o.bb_bw = num(val()),
            "--bb-lat" => o.bb_lat = num(val()),
            "--master" => o.master = Some(val()),
            "--nodes" => o.nodes = Some(num(val()) as usize),
            "--tasks" => o.tasks = num(val()) as u64,
            "--flops" => o.flops = num(val()),
            "--bytes" => o.bytes = num(val()),
            "--control-bytes" => o.control_bytes = num(val()),
            "--policy" => o.policy = val(),
            "--repeat" => o.repeat = (num(val()) as usize).max(1),
            "--sharing" => o.sharing = Some(val()),
            _ => die(&format!(
                "unknown option {key} (see the top of benches/bot_scenario.rs)"
            )),
        }
    }
    if o.platform.is_some() == o.cluster.is_some() {
        die("give exactly one of --platform FILE and --cluster HOSTS");
    }
    o
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|x| x.parse().ok()))
        })
        .unwrap_or(0)
}

fn main() {
    let o = parse();
    let t0 = Instant::now();
    let platform = match (&o.platform, o.cluster) {
        (Some(path), _) => platforms::load_platform(path).unwrap_or_else(|e| die(&format!("{}: {e}", path.display()))),
        (None, Some(n)) => platforms::homogeneous_cluster(n, o.speed, o.bw, o.lat, o.bb_bw, o.bb_lat)
            .unwrap_or_else(|e| die(&format!("cluster: {e}"))),
        (None, None) => unreachable!(),
    };
    let mut platform = platform;
    if let Some(mode) = &o.sharing {
        platform.config.insert("sharing".into(), mode.clone());
    }
    let platform = Arc::new(platform);
    let setup = t0.elapsed().as_secs_f64();
    let master = match &o.master {
        Some(name) => platform
            .host_id(name)
            .unwrap_or_else(|| die(&format!("no host '{name}'"))),
        None => HostId(0),
    };
    let all = platform.hosts.len();
    let nodes = o.nodes.unwrap_or(all);
    if nodes < 2 || nodes > all {
        die(&format!("--nodes must be from 2 to {all}"));
    }
    let workers: Vec<HostId> = (0..all as u32)
        .map(HostId)
        .filter(|&h| h != master)
        .take(nodes - 1)
        .collect();
    let (name, key, value) = match o.policy.as_str() {
        "wq" => ("wq", "chunk", 1.0),
        "gss" => ("gss", "min_chunk", 1.0),
        "fac2" => ("factoring", "alpha", 2.0),
        other => die(&format!("--policy must be wq, gss or fac2, not '{other}'")),
    };
    let params: BTreeMap<String, f64> = [(key.to_string(), value)].into_iter().collect();
    let config = BotConfig {
        master,
        workers,
        tasks: o.tasks,
        task_flops: o.flops,
        task_bytes: o.bytes,
        control_bytes: o.control_bytes,
        // Only the count is printed: no per-chunk log, so memory is the engine's.
        task_sizes: TaskSizes::Equal,
        record_chunks: false,
    };
    // Short runs (a few ms) are timed several times in one process (`--repeat K`): the median
    // is reported, so one scheduler hiccup does not decide the figure.
    // Only `Simulation::run` is in `run_wall_s` (see the module docs).
    let mut walls = Vec::with_capacity(o.repeat);
    let mut engine_walls = Vec::with_capacity(o.repeat);
    let mut result = None;
    let mut allocations = 0;
    for _ in 0..o.repeat {
        let policy = registry::build(name, &params).unwrap_or_else(|e| die(&e.to_string()));
        let t1 = Instant::now();
        let engine = Engine::new(Arc::clone(&platform)).unwrap_or_else(|e| die(&e.to_string()));
        let built = t1.elapsed();
        let mut sim = bot::simulation(engine, config.clone(), policy);
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let t2 = Instant::now();
        sim.run();
        walls.push(t2.elapsed().as_secs_f64());
        allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
        result = Some(bot::finish(&mut sim).unwrap_or_else(|e| die(&e)));
        let t3 = Instant::now();
        drop(sim);
        engine_walls.push((built + t3.elapsed()).as_secs_f64());
    }
    let run = median(&mut walls);
    let engine_wall = median(&mut engine_walls);
    let (outcome, stats) = result.expect("at least one run");
    let events = stats.events;
    let solver = stats.solver;
    if outcome.tasks_done != o.tasks {
        die(&format!(
            "only {} of {} tasks were computed",
            outcome.tasks_done, o.tasks
        ));
    }
    println!(
        "{{\"makespan\": {:?}, \"events\": {events}, \"chunks\": {}, \"tasks_done\": {}, \"hosts\": {all}, \
         \"setup_wall_s\": {setup:.6}, \"run_wall_s\": {run:.6}, \"engine_wall_s\": {engine_wall:.6}, \"repeat\": {}, \"allocations\": {allocations}, \"peak_rss_kb\": {}, \
         \"stale_events\": {}, \"rate_changes\": {}, \"clock_joins\": {}, \"clock_level_changes\": {}, \"omitted_uses\": {}, \"restored_uses\": {}, \"solves\": {}, \"incremental\": {}, \
         \"components\": {}, \"lone_components\": {}, \"lone_scans_reused\": {}, \"level_only_applies\": {}, \"elements_scanned\": {}, \"rounds\": {}}}",
        outcome.makespan,
        outcome.chunks_done,
        outcome.tasks_done,
        o.repeat,
        peak_rss_kb(),
        stats.stale_events,
        stats.rate_changes,
        stats.clock_joins,
        stats.clock_level_changes,
        stats.omitted_uses,
        stats.restored_uses,
        solver.solves,
        solver.incremental,
        solver.components,
        solver.lone_components,
        solver.lone_scans_reused,
        solver.level_only_applies,
        solver.elements_scanned,
        solver.rounds
    );
}

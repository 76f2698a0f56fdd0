//! `gridsim bench fat-tree`: a shift exchange on a 1,024-host fat tree, straight on the engine;
//! `bench/simgrid_fat_tree.cpp` runs the same scenario in SimGrid 3.32 and `bench/compare.py`
//! sets the two side by side.
//!
//! The platform is SimGrid's `<cluster topology="FAT_TREE">` of hosts `node-0..` built by
//! [`platforms::topology_cluster`]: by default the 16-ary fat tree of Al-Fares, Loukissas and
//! Vahdat (SIGCOMM 2008), `3;8,8,16;1,8,8;1,1,1`: 1,024 hosts, 128 edge, 128 aggregation and 64
//! core switches, full bisection bandwidth, with 1 Gflop/s hosts and SPLITDUPLEX 125 MB/s 50 µs
//! links (the bag-of-tasks benchmarks' cluster links). Host `i` sends `messages` messages of
//! `bytes` one after the other, the `j`-th to host `(i + j) mod n`, each as soon as the previous
//! one ends; every host starts at date 0. `messages = n - 1` is an all-to-all exchange in shift
//! order, whose shifts the fat tree's destination-mod-k routing carries without contention when
//! the hosts keep in step (Zahavi 2010); here they drift apart, as their routes' latencies differ,
//! so up to `n` flows share the tree's links at any date.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use sim_core::platform::{HostId, Platform};
use sim_core::sharing::SharingMode;
use sim_core::{Engine, NetworkParams, Notification};

/// What `gridsim bench fat-tree` runs.
pub struct Options<'a> {
    /// SimGrid's `topo_parameters` of the fat tree.
    pub topo_parameters: &'a str,
    /// Messages each host sends.
    pub messages: u64,
    /// Bytes a message.
    pub bytes: u64,
    /// Timed runs; the median is reported.
    pub repeat: usize,
    /// The engine's sharing mode.
    pub sharing: SharingMode,
    /// One JSON object instead of the text line (how `bench/compare.py` reads it).
    pub json: bool,
}

/// One run's figures.
struct Outcome {
    makespan: f64,
    comms: u64,
    events: u64,
    wall_s: f64,
}

/// Runs the benchmark and prints its line (or JSON object).
pub fn run(o: &Options) -> Result<()> {
    let start = Instant::now();
    let platform = platforms::topology_cluster(&platforms::TopologyClusterParams {
        topology: "FAT_TREE".into(),
        parameters: o.topo_parameters.into(),
        speed: 1e9,
        cores: 1,
        bw: 125e6,
        lat: 5e-05,
        split: true,
        loopback: None,
        limiter: None,
    })
    .with_context(|| format!("building the fat tree \"{}\"", o.topo_parameters))?;
    let build_s = start.elapsed().as_secs_f64();
    let n = platform.hosts.len() as u64;
    anyhow::ensure!(
        o.messages < n,
        "--messages {} must be less than the fat tree's {n} hosts (host i sends to i+1 .. i+messages)",
        o.messages
    );
    let platform = Arc::new(platform);
    let mut runs: Vec<Outcome> = Vec::new();
    for _ in 0..o.repeat.max(1) {
        runs.push(exchange(&platform, o)?);
    }
    let first = &runs[0];
    for r in &runs[1..] {
        // The same run must give the same result: a difference is a determinism bug.
        anyhow::ensure!(
            r.makespan.to_bits() == first.makespan.to_bits() && r.events == first.events,
            "two runs of the same scenario differ: makespan {} vs {}",
            r.makespan,
            first.makespan
        );
    }
    let mut walls: Vec<f64> = runs.iter().map(|r| r.wall_s).collect();
    walls.sort_by(f64::total_cmp);
    let wall = walls[walls.len() / 2];
    let rss = super::peak_rss();
    if o.json {
        println!(
            "{{\"makespan\": {:?}, \"comms\": {}, \"events\": {}, \"build_wall_s\": {build_s:.6}, \"run_wall_s\": {wall:.6}, \
             \"peak_rss_kb\": {}}}",
            first.makespan,
            first.comms,
            first.events,
            rss.map_or("null".to_string(), |kb| kb.to_string())
        );
    } else {
        println!(
            "fat tree \"{}\": {n} hosts, {} links; {} messages of {} bytes a host (shift order), {} comms: \
             platform built in {build_s:.3} s; run {wall:.3} s (median of {}), {} events, {:.0} comms/s, \
             makespan {} s, peak RSS {}",
            o.topo_parameters,
            platform.links.len(),
            o.messages,
            o.bytes,
            first.comms,
            runs.len(),
            first.events,
            first.comms as f64 / wall,
            first.makespan,
            rss.map_or("unknown".to_string(), |kb| format!("{:.1} MB", kb as f64 / 1e3))
        );
    }
    Ok(())
}

/// One run of the exchange on a fresh engine.
fn exchange(platform: &Arc<Platform>, o: &Options) -> Result<Outcome> {
    let n = platform.hosts.len() as u64;
    let mut engine = Engine::with_options(platform.clone(), NetworkParams::lv08(), o.sharing);
    let bytes = o.bytes as f64;
    let send = |engine: &mut Engine, i: u64, j: u64| -> Result<()> {
        let (src, dst) = (HostId(i as u32), HostId(((i + j) % n) as u32));
        engine
            .start_comm(src, dst, bytes, i)
            .map(|_| ())
            .with_context(|| format!("no route from node-{i} to node-{}", (i + j) % n))
    };
    let start = Instant::now();
    let mut sent = vec![1u64; n as usize];
    for i in 0..n {
        send(&mut engine, i, 1)?;
    }
    let mut comms = 0u64;
    let mut makespan = 0.0;
    while let Some(note) = engine.next_notification() {
        match note {
            Notification::Completed { tag, .. } => {
                comms += 1;
                makespan = engine.now().secs();
                let i = tag;
                if sent[i as usize] < o.messages {
                    sent[i as usize] += 1;
                    send(&mut engine, i, sent[i as usize])?;
                }
            }
            Notification::Failed { tag, cause, .. } => {
                anyhow::bail!("a transfer from node-{tag} failed: {cause:?}")
            }
        }
    }
    let wall_s = start.elapsed().as_secs_f64();
    anyhow::ensure!(
        comms == n * o.messages,
        "only {comms} of {} transfers completed",
        n * o.messages
    );
    Ok(Outcome {
        makespan,
        comms,
        events: engine.steps(),
        wall_s,
    })
}

//! `gridsim bench`: fixed synthetic scenarios that print events per second, so later work can
//! measure itself. Wall-clock time is read here, never in the engine.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Subcommand;
use rand::Rng;
use rand_distr::{Distribution, Exp};
use sim_core::platform::{Host, HostId, Platform};
use sim_core::queue::EventQueue;
use sim_core::{rng, Engine, Notification, SimTime};

mod batch;
mod fat_tree;

/// What to benchmark.
#[derive(Subcommand)]
pub enum BenchCommand {
    /// Hold model (pop the earliest event, schedule one at now + Exp(1)) with a fixed number of
    /// pending events, then many concurrent flows on the grid90 platform.
    ///
    /// Example: `gridsim bench engine --pending 10000 --events 20000000` (or `--hold-only`)
    Engine {
        /// Pending events in the hold model.
        #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
        pending: u64,
        /// Events to process in each hold-model run.
        #[arg(long, default_value_t = 20_000_000)]
        events: u64,
        /// Hold-model runs per way of drawing increments; the median is reported (the machine's
        /// noise moves single runs by 20-30%).
        #[arg(long, default_value_t = 5)]
        repeat: usize,
        /// SimGrid XML platform for the network scenario.
        #[arg(long, default_value = "platforms/data/grid90.xml")]
        platform: std::path::PathBuf,
        /// Messages to complete in the network scenario.
        #[arg(long, default_value_t = 200_000)]
        messages: u64,
        /// Concurrent flows in the network scenario.
        #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
        flows: u64,
        /// Run the hold model and the bare queue only, not the network and long-profile
        /// scenarios: a short measurement of the machine's current speed, which
        /// `bench/compare.py` takes next to every gridsim run it times.
        #[arg(long)]
        hold_only: bool,
    },
    /// The WAL-FC cluster model: events and jobs per second of one run of each policy on the
    /// six-node cluster, replaying the whole process trace (experiments/wal-scaled.toml).
    ///
    /// Example: `gridsim bench cluster --repeat 3`
    Cluster {
        /// Experiment whose first run of each scheduler is timed.
        #[arg(long, default_value = "experiments/wal-scaled.toml")]
        experiment: std::path::PathBuf,
        /// Timed repetitions of each run; the median is reported.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
    },
    /// The work-stealing runtime: events per second of one raytracer run of each policy on the
    /// eight heterogeneous PEs (experiments/gridgum.toml's defaults).
    ///
    /// Example: `gridsim bench steal --repeat 5`
    Steal {
        /// Experiment whose first raytracer run of each scheduler is timed.
        #[arg(long, default_value = "experiments/gridgum.toml")]
        experiment: std::path::PathBuf,
        /// Timed repetitions of each run; the median is reported.
        #[arg(long, default_value_t = 5)]
        repeat: usize,
    },
    /// Generated grids: `random_grid` (default parameters, seed 1) of each `--hosts` size under a
    /// bag of tasks (work queue, master on the first host, `--tasks-per-host` tasks of 1 Gflop
    /// and 1000 bytes for each host): the time to load the experiment (generate the grid and
    /// validate the run, whose routes between the master and every worker are checked both
    /// ways, as `gridsim validate` does), the time of one run, and the peak memory per host.
    ///
    /// Example: `gridsim bench grid --hosts 1000 --hosts 10000 --repeat 3`
    Grid {
        /// Grid sizes, in hosts (repeat the option for several; at least 20, the generator's
        /// default size).
        #[arg(long, default_values_t = [1000u64, 10_000], value_parser = clap::value_parser!(u64).range(20..=100_000))]
        hosts: Vec<u64>,
        /// Tasks for each host of the grid.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
        tasks_per_host: u64,
        /// Timed repetitions of the load and of the run; the median is reported.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Measure in this process, without the header (how each size is run in a process of
        /// its own).
        #[arg(long, hide = true)]
        here: bool,
    },
    /// A shift exchange on a fat tree (by default the 16-ary one: 1,024 hosts, 3 levels): host
    /// i sends `--messages` messages of `--bytes` one after the other, the j-th to host
    /// (i + j) mod n; prints the run's wall time, events, transfers per second and makespan.
    /// `bench/compare.py --only fat-tree` runs the same scenario in SimGrid 3.32.
    ///
    /// Example: `gridsim bench fat-tree --messages 16 --bytes 1000000`
    FatTree {
        /// SimGrid's FAT_TREE `topo_parameters` (levels; children, parents and parallel links
        /// per level).
        #[arg(long, default_value = "3;8,8,16;1,8,8;1,1,1")]
        topo_parameters: String,
        /// Messages each host sends (n - 1 for an all-to-all exchange).
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..))]
        messages: u64,
        /// Bytes a message.
        #[arg(long, default_value_t = 1_000_000)]
        bytes: u64,
        /// Timed runs; the median is reported.
        #[arg(long, default_value_t = 1)]
        repeat: usize,
        /// The engine's sharing mode: fast (the default) or exact.
        #[arg(long, default_value = "fast")]
        sharing: String,
        /// Print one JSON object (makespan, comms, events, build and run wall times, peak RSS).
        #[arg(long)]
        json: bool,
    },
    /// Trace reading: jobs per second parsing an SWF log into a job stream, from gzip and from
    /// plain text held in memory (no disk time), for the log itself and for a synthetic log
    /// `--scale` times larger (the log's jobs repeated, each copy shifted past the previous
    /// one's last submission).
    ///
    /// Example: `gridsim bench trace --scale 10`
    Trace {
        /// SWF log (plain or gzip).
        #[arg(long, default_value = "traces/data/KTH-SP2-1996-2.1-cln.swf.gz")]
        file: std::path::PathBuf,
        /// How many copies of the log make the large synthetic log.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
        scale: u32,
        /// Timed repetitions of each case; the median is reported.
        #[arg(long, default_value_t = 5)]
        repeat: usize,
    },
    /// The batch family: each policy's first run of an experiment (by default the whole KTH
    /// log on 100 hosts under every policy), its wall time, jobs and decisions per second;
    /// then the same on a synthetic log `--scale` times larger at the same offered load (the
    /// log's jobs repeated, each copy shifted by the log's span, ids renumbered), the ratio of
    /// the two times against n log n's, and the peak memory of the large run per job (each
    /// policy measured in a process of its own).
    ///
    /// Example: `gridsim bench batch --scale 10 --repeat 3`
    Batch {
        /// Experiment of family `batch` whose first run of each scheduler is timed.
        #[arg(long, default_value = "experiments/batch-kth.toml")]
        experiment: std::path::PathBuf,
        /// How many copies of the log make the synthetic log.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
        scale: u32,
        /// Timed repetitions of each run; the median is reported.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Only this scheduler (repeat the option for several; default: every one).
        #[arg(long)]
        policy: Vec<String>,
        /// Do not measure memory.
        #[arg(long)]
        no_memory: bool,
        /// Measure the memory of one scheduler's large run in this process and print bytes per
        /// job (how each is measured in a process of its own).
        #[arg(long, hide = true)]
        memory_here: Option<String>,
    },
}

pub fn run(command: BenchCommand) -> Result<()> {
    match command {
        BenchCommand::Engine {
            pending,
            events,
            repeat,
            platform,
            messages,
            flows,
            hold_only,
        } => {
            // At most 130 bytes a pending sleep (activity slot, queue entry, growth): peak RSS
            // over `--pending 10000000` is about 121 B a pending sleep.
            gridsim::memory::check_fits(&format!("--pending {pending}"), pending.saturating_mul(130))
                .map_err(anyhow::Error::msg)?;
            // Fits in memory (checked above), so it fits in usize.
            hold_model(pending as usize, events, repeat.max(1));
            if hold_only {
                return Ok(());
            }
            let platform =
                platforms::load_platform(&platform).with_context(|| format!("loading {}", platform.display()))?;
            network_scenario(Arc::new(platform), flows as usize, messages)?;
            long_profile_scenario(10, 2.7e7);
            Ok(())
        }
        BenchCommand::Grid {
            hosts,
            tasks_per_host,
            repeat,
            here,
        } => generated_grids(&hosts, tasks_per_host, repeat.max(1), here),
        BenchCommand::FatTree {
            topo_parameters,
            messages,
            bytes,
            repeat,
            sharing,
            json,
        } => fat_tree::run(&fat_tree::Options {
            topo_parameters: &topo_parameters,
            messages,
            bytes,
            repeat,
            sharing: sim_core::sharing::SharingMode::from_setting(&sharing)
                .map_err(|e| anyhow::anyhow!("--sharing: {e}"))?,
            json,
        }),
        BenchCommand::Trace { file, scale, repeat } => trace_reading(&file, scale, repeat.max(1)),
        BenchCommand::Batch {
            experiment,
            scale,
            repeat,
            policy,
            no_memory,
            memory_here,
        } => {
            let opts = batch::Options {
                experiment: &experiment,
                scale,
                repeat: repeat.max(1),
                policies: &policy,
                memory: !no_memory,
            };
            match memory_here {
                Some(p) => batch::memory_here(&opts, &p),
                None => batch::run(&opts),
            }
        }
        BenchCommand::Cluster { experiment, repeat } => first_run_of_each_scheduler(
            "cluster model",
            "cluster",
            &experiment,
            repeat.max(1),
            None,
            "jobs_done",
            "jobs",
        ),
        BenchCommand::Steal { experiment, repeat } => first_run_of_each_scheduler(
            "work-stealing runtime",
            "steal",
            &experiment,
            repeat.max(1),
            Some(("program", "raytracer")),
            "sparks",
            "sparks",
        ),
    }
}

/// Where the hold model's Exp(1) increments come from.
#[derive(Clone, Copy)]
enum Increments {
    /// Drawn one per event from the seeded ChaCha8 stream (the engine's RNG), so the figure
    /// includes the sampling (about 10 ns an event).
    Inline,
    /// Drawn beforehand from the same stream into a table of 2^16 and cycled, so the figure is
    /// the engine's alone (as in `cargo bench --bench engine -- queue_hold`).
    Table,
}

/// Hold model through the whole engine API: every pending event is a sleep activity; each
/// completion starts a new sleep of Exp(1) seconds. Run once per way of drawing increments,
/// then set against the bare event queue's hold model with the same table, the runs of the two
/// alternating so that both see the same machine: the engine's overhead per event is the ratio
/// of their times per event (the target: at most 1.5).
fn hold_model(pending: usize, events: u64, repeat: usize) {
    let median = |mut rates: Vec<f64>| {
        rates.sort_by(f64::total_cmp);
        (rates[rates.len() / 2], rates[0], rates[rates.len() - 1])
    };
    let inline = median(
        (0..repeat)
            .map(|_| hold_model_with(pending, events, Increments::Inline))
            .collect(),
    );
    let (mut engine, mut bare) = (Vec::new(), Vec::new());
    for _ in 0..repeat {
        engine.push(hold_model_with(pending, events, Increments::Table));
        bare.push(bare_queue_hold(pending, events));
    }
    let (engine, bare) = (median(engine), median(bare));
    for ((rate, low, high), how) in [
        (inline, "increments drawn inline (ChaCha8, Exp(1))"),
        (engine, "increments from a pre-drawn table: engine only"),
    ] {
        println!(
            "hold model: {pending} pending, {events} events per run, median of {repeat} runs = {rate:.2} M events/s \
             (range {low:.2}-{high:.2}; {how})"
        );
    }
    println!(
        "bare queue hold: {pending} pending, {events} events per run, median of {repeat} runs = {:.2} M events/s \
         (range {:.2}-{:.2}; the same table, EventQueue alone)",
        bare.0, bare.1, bare.2
    );
    println!(
        "engine overhead: {:.1} ns an event on the hold model / {:.1} ns on the bare queue = {:.2} (target <= 1.5)",
        1e3 / engine.0,
        1e3 / bare.0,
        bare.0 / engine.0
    );
}

/// The hold model's pre-drawn increments: 2^16 draws of Exp(1) from the seeded stream, cycled.
fn increment_table() -> Vec<f64> {
    let mut rng = rng::stream(1, "bench-hold");
    let exp = Exp::new(1.0).expect("rate 1 is valid");
    (0..1 << 16).map(|_| exp.sample(&mut rng)).collect()
}

/// The next increment of a table, cycling. The bare queue's loop and the engine's call the same
/// function, so that the ratio of their times is the engine's alone.
#[inline(always)]
fn cycle(table: &[f64], next: &mut usize) -> f64 {
    *next = (*next + 1) & (table.len() - 1);
    table[*next]
}

/// The hold model on the bare [`EventQueue`] the engine uses: pop the earliest event, push one
/// at `now + Exp(1)`, with increments from the same pre-drawn table as
/// [`Increments::Table`]. Returns millions of events per second.
fn bare_queue_hold(pending: usize, events: u64) -> f64 {
    let table = increment_table();
    let mut next = 0usize;
    let mut queue: EventQueue<u64> = EventQueue::new();
    for i in 0..pending {
        queue.push(SimTime::from_secs(cycle(&table, &mut next)), i as u64);
    }
    let start = Instant::now();
    let mut done = 0u64;
    while done < events {
        let Some((now, tag)) = queue.pop() else { break };
        queue.push(now + cycle(&table, &mut next), std::hint::black_box(tag));
        done += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    done as f64 / secs / 1e6
}

/// One hold-model run; returns millions of events per second.
fn hold_model_with(pending: usize, events: u64, increments: Increments) -> f64 {
    match increments {
        Increments::Inline => {
            let mut rng = rng::stream(1, "bench-hold");
            let exp = Exp::new(1.0).expect("rate 1 is valid");
            engine_hold(pending, events, || exp.sample(&mut rng))
        }
        Increments::Table => {
            let table = increment_table();
            let mut next = 0usize;
            engine_hold(pending, events, || cycle(&table, &mut next))
        }
    }
}

/// The hold model through the engine, each increment from `increment` (a closure per way of
/// drawing, so that the loop carries no test of which way it is).
fn engine_hold(pending: usize, events: u64, mut increment: impl FnMut() -> f64) -> f64 {
    let mut platform = Platform::new();
    platform.add_host(Host::new("h", 1e9));
    let mut engine = Engine::with_params(Arc::new(platform), sim_core::NetworkParams::lv08());
    for i in 0..pending {
        engine.sleep(increment(), i as u64);
    }
    let start = Instant::now();
    let mut done = 0u64;
    while done < events {
        match engine.next_notification() {
            Some(Notification::Completed { tag, .. }) => {
                engine.sleep(increment(), tag);
                done += 1;
            }
            _ => break,
        }
    }
    let secs = start.elapsed().as_secs_f64();
    done as f64 / secs / 1e6
}

/// Many concurrent flows between random host pairs of a platform: each completion starts a new
/// message of 1 MB between a fresh random pair. Pairs without a route are skipped.
fn network_scenario(platform: Arc<Platform>, flows: usize, messages: u64) -> Result<()> {
    let n = platform.hosts.len() as u32;
    let mut engine = Engine::new(platform.clone())?;
    let mut rng = rng::stream(1, "bench-network");
    let start_one = |engine: &mut Engine, rng: &mut rand_chacha::ChaCha8Rng| loop {
        let (src, dst) = (HostId(rng.gen_range(0..n)), HostId(rng.gen_range(0..n)));
        if src != dst && engine.start_comm(src, dst, 1e6, 0).is_ok() {
            return;
        }
    };
    for _ in 0..flows {
        start_one(&mut engine, &mut rng);
    }
    let start = Instant::now();
    let mut done = 0u64;
    while done < messages {
        match engine.next_notification() {
            Some(_) => {
                start_one(&mut engine, &mut rng);
                done += 1;
            }
            None => break,
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "network: {} hosts, {flows} concurrent flows, {done} messages, {} events in {secs:.3} s = {:.3} M events/s, {:.0} messages/s",
        n,
        engine.steps(),
        engine.steps() as f64 / secs / 1e6,
        done as f64 / secs
    );
    Ok(())
}

/// `execs` endless execs on one host whose speed alternates every 5 s (`PERIODICITY 10`), run
/// for `horizon` simulated seconds: every profile step changes every exec's rate. Prints the
/// events, the superseded events dropped, the largest queue seen and the process's peak RSS
/// (ten execs over 2.7e7 s leave some 54 M superseded completions, about
/// 600 MB if the queue kept them instead of dropping them in bulk).
fn long_profile_scenario(execs: usize, horizon: f64) {
    use sim_core::platform::Host;
    use sim_core::profile::Profile;
    use sim_core::SimTime;
    let mut platform = Platform::new();
    let mut host = Host::new("h", 1e9);
    host.speed_profile = Profile::new(vec![(0.0, 1.0), (5.0, 0.5)], Some(10.0)).ok();
    let Some(h) = platform.add_host(host) else {
        return;
    };
    let mut engine = Engine::with_params(Arc::new(platform), sim_core::NetworkParams::default());
    for i in 0..execs {
        engine.start_exec(h, 1e30, i as u64);
    }
    let start = Instant::now();
    let mut largest = 0;
    let mut t = 0.0;
    while t < horizon {
        t = (t + 1e5).min(horizon);
        engine.next_notification_until(SimTime::from_secs(t));
        largest = largest.max(engine.pending_events());
    }
    let secs = start.elapsed().as_secs_f64();
    let stats = engine.stats();
    println!(
        "long profile: {execs} execs, PERIODICITY 10 over {horizon:e} s: {} events, {} superseded dropped, largest queue {largest} events, {secs:.2} s, peak RSS {}",
        stats.events,
        stats.stale_events,
        peak_rss().map_or("unknown".to_string(), |kb| format!("{:.1} MB", kb as f64 / 1e3))
    );
}

/// The process's peak resident set size, kB (Linux `/proc/self/status` `VmHWM`).
fn peak_rss() -> Option<u64> {
    status_kb("VmHWM:")
}

/// A `kB` field of Linux's `/proc/self/status`.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the process's peak resident set size to its current size (Linux: `5` written to
/// `/proc/self/clear_refs`), so that [`peak_rss`] measures from here; returns that size, kB,
/// or `None` when the kernel refuses.
fn reset_peak_rss() -> Option<u64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    status_kb("VmRSS:")
}

/// `gridsim bench grid`: see [`BenchCommand::Grid`]. Each size is measured in a fresh process
/// (this binary with `--here`): in one process, a size would reuse the heap a previous size
/// freed, and its peak memory would read low.
fn generated_grids(hosts: &[u64], tasks_per_host: u64, repeat: usize, here: bool) -> Result<()> {
    if here {
        for &n in hosts {
            one_grid(n, tasks_per_host, repeat)?;
        }
        return Ok(());
    }
    println!(
        "generated grid: random_grid (default parameters, seed 1), bag of tasks (wq, master on host-0, \
         {tasks_per_host} tasks of 1 Gflop and 1000 bytes a host); median of {repeat}; each size in a \
         process of its own, its memory the peak over the process's size after a 20-host warm-up"
    );
    let exe = std::env::current_exe().context("finding this binary to measure each size in a process of its own")?;
    for &n in hosts {
        let status = std::process::Command::new(&exe)
            .args(["bench", "grid", "--here", "--hosts", &n.to_string()])
            .args([
                "--tasks-per-host",
                &tasks_per_host.to_string(),
                "--repeat",
                &repeat.to_string(),
            ])
            .status()
            .with_context(|| format!("running {}", exe.display()))?;
        anyhow::ensure!(status.success(), "the {n}-host measurement failed ({status})");
    }
    Ok(())
}

/// The bag-of-tasks experiment [`generated_grids`] times on an `n`-host grid.
fn grid_experiment(n: u64, tasks_per_host: u64) -> String {
    format!(
        "name = \"bench-grid\"\nfamily = \"bot\"\nseed = 1\n\n\
         [platform]\ngenerator = \"random_grid\"\nparams = {{ hosts = {n} }}\n\n\
         [params]\ntasks = {}\ntask_flops = 1e9\ntask_bytes = 1000\n\n\
         [[schedulers]]\nname = \"wq\"\n",
        n * tasks_per_host
    )
}

/// Measures one size of [`generated_grids`] in this process and prints its line.
fn one_grid(n: u64, tasks_per_host: u64, repeat: usize) -> Result<()> {
    let families = schedulers::families::all();
    let path = std::path::Path::new("bench-grid.toml");
    // What any load and run allocates once (the families, the parser's tables, the allocator's
    // first arenas) is not the grid's: a 20-host load and run first, untimed.
    let warm = gridsim::experiment::load_str(path, &grid_experiment(20, tasks_per_host), false, &families)?;
    for run in &warm.runs {
        warm.family.run(&run.spec).map_err(anyhow::Error::msg)?;
    }
    drop(warm);
    let text = grid_experiment(n, tasks_per_host);
    let start_rss = reset_peak_rss();
    let mut generate = Vec::new();
    for _ in 0..repeat {
        let start = Instant::now();
        let grid = platforms::random_grid(
            &platforms::RandomGridParams {
                hosts: n as usize,
                ..Default::default()
            },
            1,
        )?;
        generate.push(start.elapsed().as_secs_f64());
        drop(grid);
    }
    let mut load = Vec::new();
    let mut experiment = None;
    for _ in 0..repeat {
        // The previous load's grid is freed first: one `gridsim validate` holds one.
        drop(experiment.take());
        let start = Instant::now();
        experiment = Some(gridsim::experiment::load_str(path, &text, false, &families)?);
        load.push(start.elapsed().as_secs_f64());
    }
    let experiment = experiment.context("no load was timed")?;
    let spec = &experiment.runs.first().context("the experiment has no run")?.spec;
    let mut run = Vec::new();
    let mut output = None;
    for _ in 0..repeat {
        // The run finds the routes the load checked from the distances the grid kept then, as
        // a run of `gridsim run` does after its own load.
        let start = Instant::now();
        output = Some(experiment.family.run(spec).map_err(anyhow::Error::msg)?);
        run.push(start.elapsed().as_secs_f64());
    }
    let output = output.unwrap_or_default();
    let memory = match (start_rss, peak_rss()) {
        (Some(start), Some(peak)) => {
            let kb = peak.saturating_sub(start);
            format!(
                "peak memory {:.1} MB over the start = {:.2} KB a host (process peak {:.1} MB)",
                kb as f64 / 1e3,
                kb as f64 / n as f64,
                peak as f64 / 1e3
            )
        }
        (None, Some(peak)) => format!(
            "process peak {:.1} MB (the kernel refused to reset the peak: no figure per host)",
            peak as f64 / 1e3
        ),
        _ => "memory unknown".to_string(),
    };
    let (generate, load, run) = (median(generate), median(load), median(run));
    println!(
        "  {n:>6} hosts: load {load:.4} s (of which generating the grid {generate:.4} s), run {run:.4} s \
         ({} events, {:.2} M events/s, makespan {} s), {memory}",
        output.events,
        output.events as f64 / run / 1e6,
        output.metrics.get("makespan_s").copied().unwrap_or(f64::NAN)
    );
    Ok(())
}

/// The median of some timings.
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// `gridsim bench trace`: see [`BenchCommand::Trace`].
fn trace_reading(file: &std::path::Path, scale: u32, repeat: usize) -> Result<()> {
    use std::io::{Read, Write};
    use traces::job::{read_workload, Job, Selection};
    use traces::swf::SwfReader;
    use traces::TraceFormat;

    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let (_, mut reader) = traces::input::decompress(bytes.as_slice())?;
    let mut text = Vec::new();
    reader
        .read_to_end(&mut text)
        .with_context(|| format!("decompressing {}", file.display()))?;
    let jobs: Vec<_> = SwfReader::new(text.as_slice())
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("{}:{e}", file.display()))?;
    let (first, last) = match (jobs.first(), jobs.last()) {
        (Some(f), Some(l)) => (f.submit_s, l.submit_s),
        _ => anyhow::bail!("{}: no job", file.display()),
    };
    // The large log: copy k shifted by k × (span + 1) s and renumbered, so it stays sorted.
    let mut large = String::new();
    for k in 0..scale as usize {
        for job in &jobs {
            let mut copy = job.clone();
            copy.submit_s += k as f64 * (last - first + 1.0);
            copy.job_number += (k * jobs.len()) as i64;
            large.push_str(&copy.to_line());
            large.push('\n');
        }
    }
    let gzip = |plain: &[u8]| -> Result<Vec<u8>> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(plain)?;
        Ok(e.finish()?)
    };
    let large_gz = gzip(large.as_bytes())?;
    println!(
        "trace reading: {} ({} jobs) and a synthetic log of {} copies ({} jobs); median of {repeat} runs; a job \
         held costs {} bytes",
        file.display(),
        jobs.len(),
        scale,
        jobs.len() * scale as usize,
        std::mem::size_of::<Job>()
    );
    let cases: [(&str, &[u8]); 4] = [
        ("log, as stored", bytes.as_slice()),
        ("log, plain text", text.as_slice()),
        ("synthetic, gzip", large_gz.as_slice()),
        ("synthetic, plain text", large.as_bytes()),
    ];
    for (name, input) in cases {
        let mut times = Vec::new();
        let mut count = 0;
        for _ in 0..repeat {
            let start = Instant::now();
            let (_, reader) = traces::input::decompress(input)?;
            let w = read_workload(TraceFormat::Swf, reader, &Selection::default())
                .map_err(|e| anyhow::anyhow!("{name}:{e}"))?;
            times.push(start.elapsed().as_secs_f64());
            count = w.jobs.len();
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!(
            "  {name:<24} {count:>9} jobs  {median:>8.4} s  {:>6.2} M jobs/s  ({} MB of input)",
            count as f64 / median / 1e6,
            input.len() as f64 / 1e6
        );
    }
    Ok(())
}

/// `gridsim bench cluster` and `gridsim bench steal`: times the first run of each scheduler
/// of an experiment (among runs whose parameter `only.0` is `only.1`, when given) and prints
/// events per second and `metric` (named `unit`) per second.
#[allow(clippy::too_many_arguments)]
fn first_run_of_each_scheduler(
    what: &str,
    family: &str,
    file: &std::path::Path,
    repeat: usize,
    only: Option<(&str, &str)>,
    metric: &str,
    unit: &str,
) -> Result<()> {
    let experiment = gridsim::experiment::load(file, false, &schedulers::families::all())?;
    if experiment.family.name() != family {
        let spec = gridsim::experiment::parse(file, &experiment.text)?;
        let (line, column) = gridsim::experiment::error::line_column(&experiment.text, spec.family.span().start);
        anyhow::bail!(
            "{}:{line}:{column}: family: this benchmark measures family '{family}', not '{}'",
            file.display(),
            experiment.family.name()
        );
    }
    println!(
        "{what}: {} (first run of each scheduler{}, median of {repeat})",
        file.display(),
        only.map(|(k, v)| format!(" with {k} = {v}")).unwrap_or_default()
    );
    let mut seen = Vec::new();
    for run in &experiment.runs {
        let selected = match only {
            None => true,
            Some((k, v)) => run.spec.params.get(k).is_some_and(|x| x.to_string() == v),
        };
        if !selected || seen.contains(&run.label) {
            continue;
        }
        seen.push(run.label.clone());
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..repeat {
            let start = Instant::now();
            let out = run
                .spec_to_run()
                .and_then(|spec| experiment.family.run(&spec).map_err(String::from))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            times.push(start.elapsed().as_secs_f64());
            last = Some(out);
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let out = last.unwrap_or_default();
        let count = out.metrics.get(metric).copied().unwrap_or(0.0);
        println!(
            "  {:<40} {count} {unit}, {} events in {median:.3} s: {:.2} M events/s, {:.0} {unit}/s",
            run.label,
            out.events,
            out.events as f64 / median / 1e6,
            count / median
        );
    }
    Ok(())
}

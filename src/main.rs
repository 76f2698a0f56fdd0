//! The `gridsim` command: the only part of gridsim that touches files, threads, clocks and
//! terminals.

mod bench;
mod trace_cmd;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use gridsim::experiment;
use gridsim::plot::Media;
use gridsim::runner::{self, Progress, RunOptions, Shard};
use gridsim::study::{Message, Stream};
use schedulers::families;

/// Discrete-event grid scheduling simulator.
///
/// Example: `gridsim run experiments/lds.toml --quick`
#[derive(Parser)]
#[command(
    name = "gridsim",
    version,
    about,
    long_about = None,
    after_help = "Example: `gridsim run experiments/lds.toml --quick` (see `gridsim list` for the bundled experiments)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an experiment: every simulation of its sweep on all cores, then its CSV files and figures.
    ///
    /// Results go to results/<name>/ (runs.csv, one CSV per requested table, timing.csv) and
    /// figures to plots/<name>/. Completed runs are stored as they finish: running again after
    /// an interruption skips them (use --fresh to start over).
    ///
    /// Example: `gridsim run experiments/lds.toml --quick --jobs 2`
    Run {
        /// Experiment file (TOML).
        file: PathBuf,
        /// Use the experiment's [quick] subset; results go to results/<name>-quick/.
        #[arg(long)]
        quick: bool,
        /// Worker threads [default: all cores].
        #[arg(long, short, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
        jobs: Option<u32>,
        /// Put results/ and plots/ under DIR.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
        /// Discard this experiment's previous results instead of resuming.
        #[arg(long)]
        fresh: bool,
        /// Run only slice K of N (the runs whose index is K-1 modulo N), e.g. one task of a
        /// cluster job array; combine the slices with `gridsim merge`.
        #[arg(long, value_name = "K/N")]
        shard: Option<Shard>,
        /// Do not draw the figures.
        #[arg(long)]
        no_plots: bool,
        /// Write the figures for print: each <figure>.svg as usual, a <figure>.pdf converted from
        /// it, and, in place of the screen PNG, <figure>.png rasterized from it at 300 dpi (3.125
        /// times the pixels each way, fonts and lines scaled alike).
        #[arg(long, conflicts_with = "no_plots")]
        print: bool,
        /// When stderr is not a terminal (Slurm, nohup, a pipe), print a progress line this
        /// often, seconds (a terminal gets a progress bar instead).
        #[arg(long, value_name = "SECS", default_value_t = 30.0, allow_negative_numbers = true, value_parser = parse_interval)]
        progress_every: f64,
    },
    /// Redraw an experiment's figures from its results directory.
    ///
    /// Example: `gridsim plot results/lds` (writes plots/lds/*.svg and *.png; with --print also
    /// *.pdf, and the PNGs at 300 dpi)
    Plot {
        /// Results directory (results/<name>).
        results: PathBuf,
        /// Where to write the figures [default: plots/<name> beside the results/ directory].
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// The experiment file whose figures to draw [default: the file the sweep was run from,
        /// while it exists, else the results directory's copy].
        #[arg(long, value_name = "FILE")]
        experiment: Option<PathBuf>,
        /// Write the figures for print: each <figure>.svg as usual, a <figure>.pdf converted from
        /// it, and, in place of the screen PNG, <figure>.png rasterized from it at 300 dpi (3.125
        /// times the pixels each way, fonts and lines scaled alike).
        #[arg(long)]
        print: bool,
    },
    /// Show the bundled experiments, platforms and traces, and the families with their
    /// schedulers and parameters.
    ///
    /// Example: `gridsim list`
    List {
        /// The gridsim checkout to look in.
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Print only the families' reference (schedulers, parameters, metrics, tables) as
        /// Markdown, as `docs/parameters.md` holds it.
        #[arg(long)]
        markdown: bool,
    },
    /// Check an experiment file without running it: syntax, names, referenced files, and every
    /// run's parameters.
    ///
    /// Example: `gridsim validate experiments/lds.toml`
    Validate {
        /// Experiment file (TOML).
        file: PathBuf,
    },
    /// Combine the results directories of the shards of one sweep into one, identical to an
    /// unsharded run's, and draw its figures.
    ///
    /// Example: `gridsim merge shards/*/results/lds` (writes results/lds and plots/lds)
    Merge {
        /// Results directories of the shards.
        #[arg(required = true, num_args = 1..)]
        dirs: Vec<PathBuf>,
        /// Put the merged results/ and plots/ under DIR.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
        /// Do not draw the figures.
        #[arg(long)]
        no_plots: bool,
    },
    /// Measure speed: the engine, trace reading, the cluster model, generated grids.
    ///
    /// Example: `gridsim bench engine --pending 10000 --events 20000000`
    Bench {
        #[command(subcommand)]
        what: bench::BenchCommand,
    },
    /// Look at a workload or availability trace (SWF, GWF, FTA, process lifetimes; plain or
    /// gzip): summary statistics and figures.
    ///
    /// Example: `gridsim trace info traces/data/KTH-SP2-1996-2.1-cln.swf.gz`
    Trace {
        #[command(subcommand)]
        what: trace_cmd::TraceCommand,
    },
    /// Run a scenario of timed transfers and execs; print each completion date as JSON.
    ///
    /// The scenario may also change hosts' pstates and turn them off and on, and with
    /// "energy_at" the output lists each powered host's joules up to that date.
    ///
    /// An activity that does not finish (its completion date is not a finite number, its
    /// resources can no longer let it progress, or a limit stopped the replay) has "finish":
    /// null and an "error" saying why, and the command then exits with status 1.
    /// The same scenario runs in SimGrid with `/usr/bin/python3 scripts/simgrid_oracle.py FILE`.
    /// Example: `gridsim replay tests/data/scenarios/multihop_p2p.json`
    Replay {
        /// Scenario file (JSON).
        scenario: PathBuf,
        /// Stop after this many engine events, as an experiment's `[limits] events` [default:
        /// 1e10].
        #[arg(long, value_name = "N", value_parser = experiment::limits::parse_events)]
        events: Option<u64>,
        /// Stop after this many seconds of wall-clock time, as an experiment's `[limits]
        /// wall_s` [default: none].
        #[arg(long, value_name = "SECS", value_parser = experiment::limits::parse_wall_s)]
        wall_s: Option<f64>,
    },
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            file,
            quick,
            jobs,
            out,
            fresh,
            shard,
            no_plots,
            print,
            progress_every,
        } => {
            let mut opts = RunOptions::new(out);
            if let Some(j) = jobs {
                opts.jobs = j as usize;
                if let Some(warning) = runner::jobs_warning(opts.jobs) {
                    eprintln!("{warning}");
                }
            }
            opts.fresh = fresh;
            opts.shard = shard;
            opts.plots = !no_plots;
            opts.media = media(print);
            opts.progress = Progress::for_stderr(std::time::Duration::from_secs_f64(progress_every));
            run(&file, quick, &opts)
        }
        Command::Plot {
            results,
            out,
            experiment,
            print,
        } => plot(&results, out, experiment, media(print)),
        Command::List { root, markdown: false } => {
            print!("{}", gridsim::reference::listing(&root));
            Ok(())
        }
        Command::List { markdown: true, .. } => {
            print!("{}", gridsim::reference::families_markdown(&families::all()));
            Ok(())
        }
        Command::Validate { file } => validate(&file),
        Command::Merge { dirs, out, no_plots } => merge(&dirs, &out, !no_plots),
        Command::Bench { what } => bench::run(what),
        Command::Replay {
            scenario,
            events,
            wall_s,
        } => replay(&scenario, events, wall_s),
        Command::Trace { what } => trace_cmd::run(what),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => match err.downcast_ref::<gridsim::runner::interrupt::Interrupted>() {
            Some(interrupted) => {
                eprintln!("gridsim: {interrupted}");
                ExitCode::from(130)
            }
            None => {
                eprintln!("gridsim: error: {err:#}");
                ExitCode::FAILURE
            }
        },
    }
}

/// `--progress-every`: a number of seconds from 0.1 to one day.
fn parse_interval(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if runner::PROGRESS_EVERY_S.contains(&x) => Ok(x),
        _ => Err(format!("'{text}' is not a number of seconds from 0.1 to 86400")),
    }
}

fn run(file: &Path, quick: bool, opts: &RunOptions) -> Result<()> {
    gridsim::study::run(file, quick, opts, print_messages)?;
    Ok(())
}

/// Prints a command's report lines, each to the stream it belongs on.
fn print_messages(messages: &[Message]) {
    for m in messages {
        match m.stream {
            Stream::Out => println!("{}", m.text),
            Stream::Err => eprintln!("{}", m.text),
        }
    }
}

/// The figures' media for `--print`.
fn media(print: bool) -> Media {
    if print {
        Media::Print
    } else {
        Media::Screen
    }
}

fn plot(results: &Path, out: Option<PathBuf>, experiment: Option<PathBuf>, media: Media) -> Result<()> {
    let name = results
        .file_name()
        .ok_or_else(|| anyhow::anyhow!("{}: not a results directory", results.display()))?;
    let plots_dir = out.unwrap_or_else(|| {
        let parent = results
            .parent()
            .filter(|p| p.file_name().is_some_and(|n| n == "results"));
        match parent {
            Some(p) => p.parent().unwrap_or(Path::new("")).join("plots").join(name),
            None => Path::new("plots").join(name),
        }
    });
    // Figures are redrawn from the user's file, so that a fixed figure is drawn without a rerun;
    // the results directory keeps the copy of what ran.
    let recorded = gridsim::runner::store::Manifest::read(results)?.source;
    let source = recorded.clone().filter(|s| s.is_file());
    let figures_from = experiment.or(source);
    match (&figures_from, &recorded) {
        (Some(file), _) => eprintln!("gridsim: figures as {} declares them", file.display()),
        (None, Some(gone)) => eprintln!(
            "gridsim: figures as the results directory's copy {} declares them (the file the sweep ran from, {}, \
             is gone)",
            results.join("experiment.toml").display(),
            gone.display()
        ),
        (None, None) => eprintln!(
            "gridsim: figures as the results directory's copy {} declares them",
            results.join("experiment.toml").display()
        ),
    }
    let written = gridsim::plot::draw_all(results, &plots_dir, figures_from.as_deref(), media)?;
    if written.is_empty() {
        println!("{}: the experiment declares no figure", results.display());
    }
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
}

fn validate(file: &Path) -> Result<()> {
    gridsim::study::validate(file, |validated| {
        for warning in &validated.warnings {
            eprintln!("gridsim: warning: {warning}");
        }
        println!("{validated}");
    })?;
    Ok(())
}

fn merge(dirs: &[PathBuf], out: &Path, plots: bool) -> Result<()> {
    let report = runner::merge(dirs, out, plots)?;
    println!(
        "merged {} runs ({} records copied) into {}",
        report.total,
        report.copied,
        report.results_dir.display()
    );
    if report.written.iter().any(|p| p.starts_with(&report.plots_dir)) {
        println!("figures: {}", report.plots_dir.display());
    }
    Ok(())
}

fn replay(path: &Path, events: Option<u64>, wall_s: Option<f64>) -> Result<()> {
    let (scenario, platform) = gridsim::replay::load(path)?;
    let limits = experiment::limits::RunLimits {
        events: events.unwrap_or(experiment::limits::DEFAULT_EVENTS),
        default_events: events.is_none(),
        wall_s,
    };
    let output = gridsim::replay::run_with_limits(&scenario, platform, limits)?;
    println!("{}", serde_json::to_string(&output)?);
    // The dates that were found are printed; a missing one still fails the command.
    let unfinished: Vec<_> = output.unfinished().collect();
    if unfinished.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 10;
    let mut message = format!(
        "{}: {} of {} activities did not finish (\"finish\": null in the output):",
        path.display(),
        unfinished.len(),
        output.results.len()
    );
    for r in unfinished.iter().take(SHOWN) {
        let line = scenario.activity_lines.get(r.index).copied().unwrap_or(0);
        let why = r.error.as_deref().unwrap_or("no reason given");
        message.push_str(&format!("\n  {}:{line}: activity {}: {why}", path.display(), r.index));
    }
    if unfinished.len() > SHOWN {
        message.push_str(&format!("\n  ... and {} more", unfinished.len() - SHOWN));
    }
    Err(anyhow::anyhow!(message))
}

/// Output into a closed pipe (`gridsim list | head -1`) ends the process quietly, as Unix tools
/// do, instead of failing every later `println!` with a broken-pipe panic: the default action of
/// SIGPIPE, which the Rust runtime sets to "ignore" at start-up, is put back.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread exists; `signal` with `SIG_DFL`
    // only resets the disposition of one signal.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

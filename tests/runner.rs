//! The experiment runner end to end: sweep expansion and seeds, resume after interruption,
//! determinism across thread counts, sharding and merging, figures, and the error messages of
//! bad experiment files.
//!
//! Most tests use the "toy" family defined here, a real simulation on `sim_core`: node 0 sends
//! each task's input to a node chosen by the scheduler, which then executes the task. Task sizes
//! are drawn from the run's seed, so seeds, replications and confidence intervals all matter.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gridsim::experiment::{self, Experiment};
use gridsim::output::CsvTable;
use gridsim::runner::{self, RunOptions, Shard};
use rand::Rng;
use schedulers::family::{
    Family, FamilyInfo, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec, Table, TableInfo, UsedParams,
};
use schedulers::registry::{Param, PolicyInfo};
use sim_core::platform::HostId;
use sim_core::{Application, Engine, Notification, Simulation, Tag};

mod support;
use support::{gridsim, Gridsim, Outcome};

// ---------------------------------------------------------------------------------------------
// The toy family.

struct Toy;
static TOY: Toy = Toy;

const TASKS: Param = Param::integer("tasks", "number of tasks", Param::NO_DEFAULT, 1.0);
const FLOPS: Param = Param::real(
    "flops",
    "mean flops per task (each is uniform in [0.5, 1.5] times this)",
    Param::NO_DEFAULT,
    0.0,
);
const BYTES: Param = Param::real("bytes", "input bytes per task, sent from node 0", "0", 0.0);
const FAIL_TASKS: Param = Param::integer(
    "fail_tasks",
    "the run fails when tasks equals this (to test errors)",
    Param::NO_DEFAULT,
    0.0,
);
const SPREAD: Param = Param::integer(
    "spread",
    "random: hosts drawn among the first spread x 2 hosts",
    "4",
    0.0,
);
const TOY_PARAMS: &[Param] = &[TASKS, FLOPS, BYTES, FAIL_TASKS, SPREAD];

const TOY_SCHEDULERS: &[PolicyInfo] = &[
    PolicyInfo {
        name: "round_robin",
        description: "task i on host i mod hosts",
        params: &[],
    },
    PolicyInfo {
        name: "random",
        description: "uniformly random host",
        params: &[],
    },
];

fn toy_families() -> Vec<&'static dyn Family> {
    vec![&TOY]
}

/// The toy's parameters, read and checked against their declarations.
struct ToyParams {
    tasks: u64,
    flops: f64,
    bytes: f64,
    fail_tasks: Option<u64>,
    spread: u64,
}

fn read(spec: &ParamReader) -> Result<ToyParams, RunError> {
    let flops = spec.real(&FLOPS)?;
    if flops == 0.0 {
        return Err(RunError::param(FLOPS.name, "must be positive, got 0"));
    }
    if spec.platform.hosts.is_empty() {
        return Err(RunError::platform(format!(
            "platform '{}' has no host",
            spec.platform_name
        )));
    }
    Ok(ToyParams {
        tasks: spec.integer(&TASKS)?,
        flops,
        bytes: spec.real(&BYTES)?,
        fail_tasks: spec.optional_integer(&FAIL_TASKS)?,
        spread: spec.integer(&SPREAD)?,
    })
}

struct ToyApp {
    master: HostId,
    bytes: f64,
    plan: Vec<(HostId, f64)>,
    ends: Vec<f64>,
    failure: Option<String>,
}

/// Kind codes of the toy's [`Tag`]s, whose index is the task's: its input's comm, its exec.
const INPUT: u8 = 0;
const EXEC: u8 = 1;

impl Application for ToyApp {
    fn start(&mut self, engine: &mut Engine) {
        for (i, &(host, flops)) in self.plan.iter().enumerate() {
            if host == self.master {
                engine.start_exec(host, flops, Tag::new(i, EXEC).into());
            } else if let Err(e) = engine.start_comm(self.master, host, self.bytes, Tag::new(i, INPUT).into()) {
                self.failure = Some(e.to_string());
            }
        }
    }

    fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
        match note {
            Notification::Completed { tag, .. } if Tag::from(tag).kind() == INPUT => {
                let i = Tag::from(tag).index();
                let (host, flops) = self.plan[i];
                engine.start_exec(host, flops, Tag::new(i, EXEC).into());
            }
            Notification::Completed { tag, .. } => self.ends[Tag::from(tag).index()] = engine.now().secs(),
            Notification::Failed { cause, .. } => self.failure = Some(format!("{cause:?}")),
        }
    }
}

const TOY_METRICS: &[Named] = &[
    Named {
        name: "makespan_s",
        description: "last task end",
    },
    Named {
        name: "mean_end_s",
        description: "mean task end",
    },
];

const TOY_TABLES: &[TableInfo] = &[
    TableInfo {
        name: "tasks",
        description: "per task",
        columns: &["task", "host", "flops", "end_s"],
    },
    // Declared but never returned: the runner must say so (a family may skip a table).
    TableInfo {
        name: "jobs",
        description: "never returned",
        columns: &["job"],
    },
];

const TOY_INFO: FamilyInfo = FamilyInfo {
    name: "toy",
    description: "test family: tasks sent from node 0 and executed on a chosen node",
    schedulers: || TOY_SCHEDULERS,
    parameters: TOY_PARAMS,
    metrics: TOY_METRICS,
    tables: TOY_TABLES,
};

impl Family for Toy {
    fn info(&self) -> &'static FamilyInfo {
        &TOY_INFO
    }
    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        let reader = ParamReader::new(spec);
        read(&reader)?;
        Ok(reader.used())
    }
    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        let ToyParams {
            tasks,
            flops,
            bytes,
            fail_tasks,
            spread,
        } = read(&ParamReader::new(spec))?;
        let tasks = tasks as usize;
        if fail_tasks == Some(tasks as u64) {
            return Err(format!("asked to fail with {tasks} tasks").into());
        }
        let spread = spread as usize;
        let hosts = spec.platform.hosts.len();
        let mut workload = sim_core::rng::stream(spec.seed, "workload");
        let mut choice = sim_core::rng::stream(spec.seed, "scheduler");
        let plan = (0..tasks)
            .map(|i| {
                let host = match spec.scheduler.as_str() {
                    "round_robin" => i % hosts,
                    _ => choice.gen_range(0..(2 * spread).clamp(1, hosts)),
                };
                (HostId(host as u32), flops * workload.gen_range(0.5..1.5))
            })
            .collect();
        let app = ToyApp {
            master: HostId(0),
            bytes,
            plan,
            ends: vec![f64::NAN; tasks],
            failure: None,
        };
        let engine = Engine::new(Arc::clone(&spec.platform)).map_err(|e| e.to_string())?;
        let mut sim = Simulation::new(engine, app);
        sim.run();
        if let Some(f) = sim.app.failure {
            return Err(f.into());
        }
        let makespan = sim.app.ends.iter().copied().fold(0.0, f64::max);
        let mean = sim.app.ends.iter().sum::<f64>() / tasks as f64;
        let mut metrics = BTreeMap::new();
        metrics.insert("makespan_s".to_string(), makespan);
        metrics.insert("mean_end_s".to_string(), mean);
        let rows = sim
            .app
            .plan
            .iter()
            .zip(&sim.app.ends)
            .enumerate()
            .map(|(i, ((h, f), end))| {
                vec![
                    ParamValue::Int(i as i64),
                    ParamValue::Str(spec.platform.host(*h).name.clone()),
                    ParamValue::Float(*f),
                    ParamValue::Float(*end),
                ]
            })
            .collect();
        let mut tables = BTreeMap::new();
        tables.insert(
            "tasks".to_string(),
            Table {
                columns: vec!["task".into(), "host".into(), "flops".into(), "end_s".into()],
                rows,
            },
        );
        Ok(RunOutput {
            metrics,
            events: sim.steps(),
            tables,
            incomplete: None,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers.

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/experiments")
        .join(name)
}

fn cluster_xml() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/platforms/cluster.xml")
}

fn load(name: &str, quick: bool) -> Experiment {
    experiment::load(&fixture(name), quick, &toy_families()).unwrap_or_else(|e| panic!("{e}"))
}

fn opts(out: &Path, jobs: usize) -> RunOptions {
    let mut o = RunOptions::new(out);
    o.jobs = jobs;
    o
}

/// The reproducible files of a results directory (everything but timing.csv and the records).
fn reproducible_files(results_dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(results_dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_file() && name != "timing.csv" {
            files.insert(name, fs::read(&path).unwrap());
        }
    }
    files
}

fn records(results_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(results_dir.join("runs.d"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn run_column(csv: &CsvTable, column: &str) -> Vec<String> {
    let c = csv
        .column(column)
        .unwrap_or_else(|| panic!("no column {column} in {:?}", csv.header));
    csv.rows.iter().map(|r| r[c].clone()).collect()
}

/// Identity of a run independent of its index.
fn run_key(r: &experiment::Run) -> String {
    format!("{:?} {} {}", r.spec.params, r.label, r.spec.replication)
}

// ---------------------------------------------------------------------------------------------
// Sweep expansion and seeds.

#[test]
fn a_sweep_without_limits_gets_the_default_event_budget() {
    // Without `[limits]` a run had no bound and could run for ever.
    let exp = load("toy.toml", false);
    assert_eq!(exp.limits.events, 10_000_000_000);
    assert!(exp.limits.default_events && exp.limits.wall_s.is_none());
}

#[test]
fn sweep_expands_to_the_cartesian_product_in_documented_order() {
    let exp = load("toy.toml", false);
    assert_eq!(exp.runs.len(), 2 * 2 * 3);
    assert_eq!(exp.axes, vec!["tasks"]);
    assert_eq!(exp.key_columns, vec!["tasks", "scheduler", "replication", "seed"]);
    // Nesting: tasks (outer), scheduler, replication (inner).
    let summary: Vec<(String, String, u32)> = exp
        .runs
        .iter()
        .map(|r| (r.spec.params["tasks"].to_string(), r.label.clone(), r.spec.replication))
        .collect();
    assert_eq!(summary[0], ("4".into(), "round_robin".into(), 0));
    assert_eq!(summary[2], ("4".into(), "round_robin".into(), 2));
    assert_eq!(summary[3], ("4".into(), "random-2".into(), 0));
    assert_eq!(summary[6], ("8".into(), "round_robin".into(), 0));
    for (i, r) in exp.runs.iter().enumerate() {
        assert_eq!(r.spec.index, i);
        assert_eq!(r.spec.params["flops"], ParamValue::Float(2e9));
        assert_eq!(r.spec.platform_name, "../platforms/cluster.xml");
        assert_eq!(r.spec.platform.hosts.len(), 8);
    }
    // One platform object shared by every run.
    assert!(exp
        .runs
        .iter()
        .all(|r| Arc::ptr_eq(&r.spec.platform, &exp.runs[0].spec.platform)));
    // Scheduler parameters reach the run; the scheduler's name is the registered one.
    assert_eq!(exp.runs[3].spec.scheduler, "random");
    assert_eq!(exp.runs[3].spec.params["spread"], ParamValue::Int(2));
    assert!(!exp.runs[0].spec.params.contains_key("spread"));

    let quick = load("toy.toml", true);
    assert_eq!(quick.runs.len(), 2);
    assert_eq!(quick.dir_name(), "toy-quick");
}

#[test]
fn adding_an_axis_value_keeps_every_other_runs_seed_and_fingerprint() {
    let path = fixture("toy.toml");
    let text = fs::read_to_string(&path).unwrap();
    let before = experiment::load_str(&path, &text, false, &toy_families()).unwrap();
    let wider = text.replace("tasks = [4, 8]", "tasks = [4, 6, 8]");
    let with_scheduler = wider.replace(
        "[outputs]",
        "[[schedulers]]\nname = \"random\"\nlabel = \"random-5\"\nparams = { spread = 5 }\n\n[outputs]",
    );
    let after = experiment::load_str(&path, &with_scheduler, false, &toy_families()).unwrap();
    assert_eq!(after.runs.len(), 3 * 3 * 3);
    let by_key: BTreeMap<String, &experiment::Run> = after.runs.iter().map(|r| (run_key(r), r)).collect();
    for r in &before.runs {
        let same = by_key
            .get(&run_key(r))
            .unwrap_or_else(|| panic!("run {} disappeared", run_key(r)));
        assert_eq!(same.spec.seed, r.spec.seed, "seed of {}", run_key(r));
        assert_eq!(same.fingerprint, r.fingerprint, "fingerprint of {}", run_key(r));
    }
    // Indices did move: the old run 6 (tasks=8) is now later.
    assert_ne!(by_key[&run_key(&before.runs[6])].spec.index, 6);

    // Seeds differ across replications; with common random numbers (the default) they depend on
    // neither the scheduler nor the parameters, and without them on both.
    let seed = |exp: &Experiment, tasks: i64, label: &str, rep: u32| {
        exp.runs
            .iter()
            .find(|r| r.spec.params["tasks"] == ParamValue::Int(tasks) && r.label == label && r.spec.replication == rep)
            .unwrap()
            .spec
            .seed
    };
    assert_eq!(seed(&before, 4, "round_robin", 0), seed(&before, 4, "random-2", 0));
    assert_ne!(seed(&before, 4, "round_robin", 0), seed(&before, 4, "round_robin", 1));
    assert_eq!(seed(&before, 4, "round_robin", 0), seed(&before, 8, "round_robin", 0));
    let no_crn = text.replace("replications = 3", "replications = 3\ncommon_random_numbers = false");
    let no_crn = experiment::load_str(&path, &no_crn, false, &toy_families()).unwrap();
    assert_ne!(seed(&no_crn, 4, "round_robin", 0), seed(&no_crn, 4, "random-2", 0));
    assert_ne!(seed(&no_crn, 4, "round_robin", 0), seed(&no_crn, 8, "round_robin", 0));
    // A different base seed changes every seed.
    let reseeded = experiment::load_str(&path, &text.replace("seed = 7", "seed = 8"), false, &toy_families()).unwrap();
    assert!(before
        .runs
        .iter()
        .zip(&reseeded.runs)
        .all(|(a, b)| a.spec.seed != b.spec.seed));
}

#[test]
fn scheduler_axes_and_platform_lists_become_columns() {
    let path = fixture("toy.toml");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("params = { spread = 2 }", "params = { spread = [1, 3] }")
        .replace(
            "file = \"../platforms/cluster.xml\"",
            "file = [\"../platforms/cluster.xml\", \"../platforms/multihop.xml\"]",
        );
    let text = text.split("[[figures]]").next().unwrap().to_string();
    let exp = experiment::load_str(&path, &text, false, &toy_families()).unwrap();
    assert_eq!(
        exp.key_columns,
        vec!["platform", "spread", "tasks", "scheduler", "replication", "seed"]
    );
    // 2 platforms x 2 tasks x (1 + 2) scheduler variants x 3 replications.
    assert_eq!(exp.runs.len(), 2 * 2 * 3 * 3);
    assert_eq!(exp.runs[0].keys[1], "", "round_robin has no spread");
    assert_eq!(exp.runs[3].keys[..3], ["../platforms/cluster.xml", "1", "4"]);
    assert_eq!(exp.platforms.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// Running, determinism, resume.

#[test]
fn run_writes_tidy_csv_tables_timing_and_figures() {
    let exp = load("toy.toml", false);
    let out = tempfile::tempdir().unwrap();
    let report = runner::run(&exp, &opts(out.path(), 2)).unwrap();
    assert!(report.complete);
    assert_eq!((report.total, report.executed, report.cached), (12, 12, 0));
    let results = out.path().join("results/toy");
    let runs = CsvTable::read(&results.join("runs.csv")).unwrap();
    assert_eq!(
        runs.header,
        [
            "run",
            "tasks",
            "scheduler",
            "replication",
            "seed",
            "makespan_s",
            "mean_end_s",
            "events"
        ]
    );
    assert_eq!(
        run_column(&runs, "run"),
        (0..12).map(|i| i.to_string()).collect::<Vec<_>>()
    );
    // Real simulations: positive makespans that grow with the number of tasks, and replications
    // that differ (task sizes come from the seed).
    let makespans: Vec<f64> = run_column(&runs, "makespan_s")
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    assert!(makespans.iter().all(|&m| m > 0.0));
    assert_ne!(makespans[0], makespans[1]);
    // At least one event per task (its exec; a task placed away from node 0 adds its input).
    let events: Vec<u64> = run_column(&runs, "events").iter().map(|s| s.parse().unwrap()).collect();
    let tasks: Vec<u64> = run_column(&runs, "tasks").iter().map(|s| s.parse().unwrap()).collect();
    assert!(events.iter().zip(&tasks).all(|(e, t)| e >= t), "{events:?} {tasks:?}");
    for (row, run) in runs.rows.iter().zip(&exp.runs) {
        assert_eq!(row[4], run.spec.seed.to_string());
    }
    let tasks = CsvTable::read(&results.join("tasks.csv")).unwrap();
    assert_eq!(
        tasks.header,
        [
            "run",
            "tasks",
            "scheduler",
            "replication",
            "task",
            "host",
            "flops",
            "end_s"
        ]
    );
    assert_eq!(tasks.rows.len(), 3 * 2 * (4 + 8));
    let timing = CsvTable::read(&results.join("timing.csv")).unwrap();
    assert_eq!(timing.header, ["run", "wall_s", "events_per_s"]);
    assert_eq!(timing.rows.len(), 12);
    assert_eq!(fs::read_to_string(results.join("experiment.toml")).unwrap(), exp.text);
    for fig in ["makespan", "finish-by-host", "events-log"] {
        for ext in ["svg", "png"] {
            let path = out.path().join(format!("plots/toy/{fig}.{ext}"));
            assert!(
                fs::metadata(&path).map(|m| m.len() > 1000).unwrap_or(false),
                "{}",
                path.display()
            );
        }
    }
    // Running again does nothing but merge.
    let again = runner::run(&exp, &opts(out.path(), 2)).unwrap();
    assert_eq!((again.executed, again.cached), (0, 12));
}

#[test]
fn output_is_byte_identical_with_one_and_two_jobs() {
    let exp = load("toy.toml", false);
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    runner::run(&exp, &opts(one.path(), 1)).unwrap();
    runner::run(&exp, &opts(two.path(), 2)).unwrap();
    let a = reproducible_files(&one.path().join("results/toy"));
    let b = reproducible_files(&two.path().join("results/toy"));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        [
            "experiment.toml",
            "manifest.json",
            "params.csv",
            "runs.csv",
            "tasks.csv"
        ]
    );
    assert_eq!(a, b);
}

#[test]
fn resume_after_stopping_mid_sweep_loses_and_duplicates_nothing() {
    let exp = load("toy.toml", false);
    let reference = tempfile::tempdir().unwrap();
    runner::run(&exp, &opts(reference.path(), 2)).unwrap();

    let out = tempfile::tempdir().unwrap();
    let mut stopped = opts(out.path(), 1);
    stopped.stop_after = Some(5);
    let report = runner::run(&exp, &stopped).unwrap();
    assert!(!report.complete);
    assert_eq!(report.executed, 5);
    assert_eq!(report.missing, 7);
    assert!(
        !out.path().join("results/toy/runs.csv").exists(),
        "no merged CSV before the sweep is complete"
    );
    assert_eq!(records(&out.path().join("results/toy")).len(), 5);

    let resumed = runner::run(&exp, &opts(out.path(), 2)).unwrap();
    assert!(resumed.complete);
    assert_eq!((resumed.cached, resumed.executed), (5, 7));
    assert_eq!(
        reproducible_files(&out.path().join("results/toy")),
        reproducible_files(&reference.path().join("results/toy"))
    );
}

#[test]
fn resume_reruns_exactly_the_runs_whose_records_were_lost() {
    let exp = load("toy.toml", false);
    let out = tempfile::tempdir().unwrap();
    runner::run(&exp, &opts(out.path(), 2)).unwrap();
    let results = out.path().join("results/toy");
    let reference = reproducible_files(&results);
    // Lose three records and the merged CSV; damage a fourth record as a crash might.
    let recs = records(&results);
    for r in &recs[..3] {
        fs::remove_file(r).unwrap();
    }
    fs::write(&recs[3], "{\"format\":1,").unwrap();
    fs::remove_file(results.join("runs.csv")).unwrap();
    let report = runner::run(&exp, &opts(out.path(), 2)).unwrap();
    assert_eq!((report.cached, report.executed), (8, 4));
    assert_eq!(reproducible_files(&results), reference);
    let runs = CsvTable::read(&results.join("runs.csv")).unwrap();
    assert_eq!(runs.rows.len(), 12);
}

#[test]
fn fresh_starts_over_and_changed_experiments_reuse_unchanged_runs() {
    let exp = load("toy.toml", false);
    let out = tempfile::tempdir().unwrap();
    runner::run(&exp, &opts(out.path(), 2)).unwrap();
    let mut fresh = opts(out.path(), 2);
    fresh.fresh = true;
    let report = runner::run(&exp, &fresh).unwrap();
    assert_eq!((report.cached, report.executed), (0, 12));

    // One more axis value: only the new runs execute, and the CSV lists all of them in order.
    let path = fixture("toy.toml");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("tasks = [4, 8]", "tasks = [4, 6, 8]");
    let wider = experiment::load_str(&path, &text, false, &toy_families()).unwrap();
    let report = runner::run(&wider, &opts(out.path(), 2)).unwrap();
    assert_eq!((report.cached, report.executed), (12, 6));
    let runs = CsvTable::read(&out.path().join("results/toy/runs.csv")).unwrap();
    assert_eq!(run_column(&runs, "tasks")[..13].join(" "), "4 4 4 4 4 4 6 6 6 6 6 6 8");
}

/// Starts `gridsim run` on the 40-run bot fixture and interrupts it with `signal` once at least
/// `k` more runs are stored; returns how many are stored then, or `None` when the sweep had
/// already finished (the poll was descheduled for the whole sweep: the caller starts over).
fn interrupt_cli_run(out: &Path, signal: &str, k: usize) -> Option<usize> {
    let results = out.join("results/bot-kill");
    let before = if results.join("runs.d").is_dir() {
        records(&results).len()
    } else {
        0
    };
    let mut child = Gridsim::new()
        .args(["run", "--jobs", "1", "--no-plots", "--out"])
        .arg(out)
        .arg(fixture("bot-kill.toml"))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn();
    let deadline = Instant::now() + Duration::from_secs(120);
    while (!results.join("runs.d").is_dir() || records(&results).len() < before + k) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    if exit.success() {
        eprintln!(
            "gridsim finished before {signal} ({} records, {before} before); starting over",
            records(&results).len()
        );
        return None;
    }
    Some(records(&results).len())
}

#[test]
fn resume_after_sigterm_and_sigkill_of_the_cli() {
    // SIGTERM rather than SIGINT: a shell starting a background job (as CI harnesses do) makes it
    // ignore SIGINT, and children inherit that, so Ctrl-C's signal would not reach gridsim here.
    // gridsim installs no handler: SIGINT and SIGTERM both end it at once, as SIGKILL does.
    // Each attempt needs both signals to land mid-sweep; a loaded machine can delay the poll
    // past the end of the sweep, so a few attempts are allowed before failing.
    let (out, after_int, after_kill) = (0..5)
        .find_map(|_| {
            let out = tempfile::tempdir().unwrap();
            let after_int = interrupt_cli_run(out.path(), "-TERM", 3)?;
            let after_kill = interrupt_cli_run(out.path(), "-KILL", 3)?;
            Some((out, after_int, after_kill))
        })
        .expect("gridsim was never interrupted mid-sweep in 5 attempts");
    let results = out.path().join("results/bot-kill");
    assert!(
        after_int >= 3 && after_kill >= after_int + 3 && after_kill < 40,
        "{after_int} then {after_kill}"
    );
    assert!(!results.join("runs.csv").exists());
    // Every stored record is whole (a torn one would be rerun, but none may exist).
    for r in records(&results) {
        let text = fs::read_to_string(&r).unwrap();
        assert!(
            text.starts_with('{') && text.ends_with('}'),
            "torn record {}",
            r.display()
        );
    }

    let Outcome { ok, stdout, stderr, .. } = gridsim(
        out.path(),
        [
            "run",
            "--jobs",
            "2",
            "--no-plots",
            "--out",
            &out.path().display().to_string(),
            &fixture("bot-kill.toml").display().to_string(),
        ],
    );
    assert!(ok, "{stderr}");
    let expected = format!(
        "bot-kill: 40 runs, {after_kill} already done, {} run now",
        40 - after_kill
    );
    assert!(stdout.contains(&expected), "{stdout}");

    let reference = tempfile::tempdir().unwrap();
    let Outcome { ok, stderr, .. } = gridsim(
        reference.path(),
        [
            "run",
            "--no-plots",
            "--out",
            &reference.path().display().to_string(),
            &fixture("bot-kill.toml").display().to_string(),
        ],
    );
    assert!(ok, "{stderr}");
    let a = reproducible_files(&results);
    assert_eq!(a, reproducible_files(&reference.path().join("results/bot-kill")));
    let runs = CsvTable::read(&results.join("runs.csv")).unwrap();
    assert_eq!(
        run_column(&runs, "run"),
        (0..40).map(|i| i.to_string()).collect::<Vec<_>>()
    );
}

#[test]
fn a_failing_run_stops_the_sweep_with_its_name_and_keeps_finished_runs() {
    let path = fixture("toy.toml");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("bytes = 1e7", "bytes = 1e7\nfail_tasks = 8");
    let exp = experiment::load_str(&path, &text, false, &toy_families()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let err = runner::run(&exp, &opts(out.path(), 1)).unwrap_err().to_string();
    assert!(
        err.contains("run #6 round_robin tasks=8 rep 0 failed: asked to fail with 8 tasks"),
        "{err}"
    );
    assert!(err.contains("6 other runs completed"), "{err}");
    assert_eq!(records(&out.path().join("results/toy")).len(), 6);
}

#[test]
fn a_missing_table_is_an_error_naming_the_tables_returned() {
    let path = fixture("toy.toml");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("tables = [\"tasks\"]", "tables = [\"tasks\", \"jobs\"]");
    let exp = experiment::load_str(&path, &text, false, &toy_families()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let err = runner::run(&exp, &opts(out.path(), 1)).unwrap_err().to_string();
    assert!(
        err.contains("the family returned no table 'jobs' (it returned: tasks)"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// Sharding.

#[test]
fn shards_merged_equal_a_single_run() {
    let exp = load("toy.toml", false);
    let single = tempfile::tempdir().unwrap();
    runner::run(&exp, &opts(single.path(), 2)).unwrap();

    let shards = tempfile::tempdir().unwrap();
    let mut dirs = Vec::new();
    let mut executed = 0;
    for k in 1..=3 {
        let root = shards.path().join(format!("shard{k}"));
        let mut o = opts(&root, 1);
        o.shard = Some(Shard { k, n: 3 });
        let report = runner::run(&exp, &o).unwrap();
        assert!(!report.complete, "shard {k} alone is not the whole sweep");
        assert_eq!(report.selected, 4);
        executed += report.executed;
        dirs.push(root.join("results/toy"));
    }
    assert_eq!(executed, 12);

    // A missing shard is reported with the runs it lacks.
    let merged = tempfile::tempdir().unwrap();
    let err = runner::merge(&dirs[..2], merged.path(), false).unwrap_err().to_string();
    assert!(err.contains("missing 4 of 12 runs: #2 "), "{err}");
    assert!(err.contains("were all shards run to completion?"), "{err}");

    let report = runner::merge(&dirs, merged.path(), true).unwrap();
    assert_eq!((report.total, report.copied), (12, 12));
    assert_eq!(
        reproducible_files(&merged.path().join("results/toy")),
        reproducible_files(&single.path().join("results/toy"))
    );
    assert!(merged.path().join("plots/toy/makespan.png").exists());

    // Shards sharing one results directory: the last one to finish merges.
    let shared = tempfile::tempdir().unwrap();
    let mut last = None;
    for k in 1..=2 {
        let mut o = opts(shared.path(), 2);
        o.shard = Some(Shard { k, n: 2 });
        o.plots = false;
        last = Some(runner::run(&exp, &o).unwrap());
    }
    assert!(last.unwrap().complete);
    assert_eq!(
        reproducible_files(&shared.path().join("results/toy")),
        reproducible_files(&single.path().join("results/toy"))
    );
}

#[test]
fn merging_different_sweeps_is_refused() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    runner::run(&load("toy.toml", false), &opts(a.path(), 2)).unwrap();
    runner::run(&load("toy.toml", true), &opts(b.path(), 2)).unwrap();
    let err = runner::merge(
        &[a.path().join("results/toy"), b.path().join("results/toy-quick")],
        a.path(),
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("holds a different sweep"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Figures.

#[test]
fn figures_are_redrawn_from_the_results_directory_with_labels_and_legend() {
    let exp = load("toy.toml", false);
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), 2);
    o.plots = false;
    runner::run(&exp, &o).unwrap();
    let plots = out.path().join("elsewhere");
    let written = gridsim::plot::draw_all(
        &out.path().join("results/toy"),
        &plots,
        None,
        gridsim::plot::Media::Screen,
    )
    .unwrap();
    assert_eq!(written.len(), 6);
    let png = fs::read(plots.join("makespan.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert_eq!(width, 800);
    let svg = fs::read_to_string(plots.join("makespan.svg")).unwrap();
    for text in [
        "Toy makespan on the test cluster",
        "Makespan (s)",
        "Tasks",
        "round_robin",
        "random-2",
    ] {
        assert!(svg.contains(text), "makespan.svg lacks '{text}'");
    }
    // The categorical figure labels its x ticks with host names.
    let svg = fs::read_to_string(plots.join("finish-by-host.svg")).unwrap();
    assert!(svg.contains("node-1.acme"));
    // Three replications: error bars are drawn (mean ± t·s/√n differs from the mean).
    let table = CsvTable::read(&out.path().join("results/toy/runs.csv")).unwrap();
    let data = gridsim::plot::prepare(&exp.figures[0], &table, exp.columns(), "runs.csv").unwrap();
    assert!(data.replicated);
    let p = &data.panels[0].series[0].points[0];
    assert_eq!(p.n, 3);
    assert!(p.lo < p.mean && p.mean < p.hi);
}

#[test]
fn figure_data_is_the_mean_and_student_t_interval_of_the_replications() {
    let spec = experiment::parse(
        Path::new("f.toml"),
        "name='f'\nfamily='x'\nplatform={file='p'}\nschedulers=[{name='a'}]\n[[figures]]\nname='m'\nx='n'\ny='y'\n",
    )
    .unwrap();
    let mut table = CsvTable::new(vec![
        "run".into(),
        "n".into(),
        "scheduler".into(),
        "replication".into(),
        "y".into(),
    ]);
    for (i, (n, y)) in [(1, 1.0), (1, 2.0), (1, 3.0), (2, 10.0), (2, 10.0)].iter().enumerate() {
        table.rows.push(vec![
            i.to_string(),
            n.to_string(),
            "a".into(),
            "0".into(),
            y.to_string(),
        ]);
    }
    let keys = vec!["n".to_string(), "scheduler".into(), "replication".into()];
    let columns = gridsim::plot::RunColumns {
        keys: &keys,
        scheduler_params: &[],
    };
    let data = gridsim::plot::prepare(spec.figures[0].get_ref(), &table, columns, "runs.csv").unwrap();
    let pts = &data.panels[0].series[0].points;
    assert_eq!(pts.len(), 2);
    assert_eq!((pts[0].x, pts[0].mean, pts[0].n), (1.0, 2.0, 3));
    // s = 1, n = 3: half-width = t(0.975, 2) / sqrt(3).
    assert!((pts[0].hi - 2.0 - 4.302652730 / 3f64.sqrt()).abs() < 1e-9);
    assert_eq!((pts[1].lo, pts[1].mean, pts[1].hi), (10.0, 10.0, 10.0));

    // A second scheduler that is neither series nor fixed would be averaged in: refused.
    table
        .rows
        .push(vec!["5".into(), "1".into(), "b".into(), "0".into(), "7".into()]);
    let by_n = experiment::parse(
        Path::new("f.toml"),
        "name='f'\nfamily='x'\nplatform={file='p'}\nschedulers=[{name='a'}]\n[[figures]]\nname='m'\nx='replication'\ny='y'\nseries='n'\n",
    )
    .unwrap();
    let err = gridsim::plot::prepare(by_n.figures[0].get_ref(), &table, columns, "runs.csv")
        .unwrap_err()
        .to_string();
    assert!(err.contains("column 'scheduler' varies (a, b)"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Errors in experiment files.

/// Writes `text` as an experiment file and returns the error `load` reports.
fn load_error(text: &str) -> String {
    load_error_in(text, false)
}

/// [`load_error`], with `--quick` or without.
fn load_error_in(text: &str, quick: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    fs::write(&path, text.replace("CLUSTER", &cluster_xml().display().to_string())).unwrap();
    let err = match experiment::load(&path, quick, &toy_families()) {
        Ok(_) => panic!("this file should be invalid:\n{text}"),
        Err(e) => e.to_string(),
    };
    err.replace(&path.display().to_string(), "bad.toml")
}

const GOOD: &str = r#"name = "ok"
family = "toy"

[platform]
file = "CLUSTER"

[params]
tasks = [2, 3]
flops = 1e9

[[schedulers]]
name = "round_robin"
"#;

#[test]
fn a_valid_file_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ok.toml");
    fs::write(&path, GOOD.replace("CLUSTER", &cluster_xml().display().to_string())).unwrap();
    assert_eq!(experiment::load(&path, false, &toy_families()).unwrap().runs.len(), 2);
}

#[test]
fn bad_files_give_the_documented_errors() {
    let cases: Vec<(String, &str)> =
        vec![
        (GOOD.replace("flops = 1e9", "flops = 1e9\nflops2 = [1"), "bad.toml:12:1: invalid array"),
        (GOOD.replace("family = \"toy\"", "family = \"toy\"\ncolour = 1"), "bad.toml:3:1: unknown field `colour`"),
        (
            GOOD.replace("family = \"toy\"", "family = \"bag\""),
            "bad.toml:2:10: family: unknown family 'bag' (valid: toy)",
        ),
        (
            GOOD.replace("name = \"round_robin\"", "name = \"fifo\""),
            "bad.toml:12:8: schedulers[0].name: unknown scheduler 'fifo' for family 'toy' (valid: round_robin, random)",
        ),
        (
            GOOD.replace("flops = 1e9", "flops = 1e9\ntaks = 3"),
            "bad.toml:10:1: params.taks: unknown parameter 'taks' for family 'toy' (valid: tasks, flops, bytes, \
             fail_tasks, spread)",
        ),
        (
            GOOD.replace("CLUSTER", "nowhere/grid.xml"),
            "bad.toml:5:8: platform.file: platform file 'nowhere/grid.xml' not found (looked for ",
        ),
        (
            GOOD.replace("tasks = [2, 3]", "tasks = [2, 0]"),
            "bad.toml:8:1: params.tasks: family 'toy' rejects run #1 round_robin tasks=0 rep 0: parameter 'tasks' \
             must be an integer >= 1, got 0",
        ),
        (GOOD.replace("tasks = [2, 3]", "tasks = [2, 2]"), "bad.toml:8:9: params.tasks: the axis lists 2 twice"),
        (GOOD.replace("tasks = [2, 3]", "tasks = []"), "bad.toml:8:9: params.tasks: an axis needs at least one value"),
        (GOOD.replace("tasks = [2, 3]", "tasks = { a = 1 }"), "params.tasks: unsupported value"),
        (GOOD.replace("tasks = [2, 3]", "seed = 3"), "params.seed: 'seed' is reserved"),
        (GOOD.replace("name = \"ok\"", "name = \"a/b\""), "bad.toml:1:8: name: 'a/b' is not a valid experiment name"),
        (
            GOOD.replace("family = \"toy\"", "family = \"toy\"\nreplications = 0"),
            "bad.toml:3:16: replications: must be between 1 and 1000000, not 0",
        ),
        (
            format!("{GOOD}\n[[schedulers]]\nname = \"round_robin\"\n"),
            "schedulers[1].label: label 'round_robin' is already used by schedulers[0]",
        ),
        (
            format!("{GOOD}\n[[figures]]\nname = \"f\"\nx = \"mean_end_s\"\ny = \"makespan_s\"\n"),
            "bad.toml:14:1: figures[0]: figure 'f': column 'tasks' varies (2, 3) but is not x, series or panels",
        ),
        (
            format!("{GOOD}\n[[figures]]\nname = \"f\"\nx = \"tasks\"\ny = \"m\"\nsource = \"jobs\"\n"),
            "figures[0].source: 'jobs' is neither 'runs' nor a table listed in [outputs] tables (none)",
        ),
        (
            format!("{GOOD}\n[[figures]]\nname = \"f\"\nx = \"flops\"\ny = \"m\"\nwhere = {{ tasks = 9 }}\n"),
            "bad.toml:18:19: figures[0].where.tasks: no run has tasks = 9 (its values: 2, 3)",
        ),
        (
            GOOD.replace("file = \"CLUSTER\"", "generator = \"hypercube\""),
            "bad.toml:5:13: platform.generator: unknown generator 'hypercube' (valid: random_grid, homogeneous_cluster, torus, fat_tree, dragonfly)",
        ),
        (
            GOOD.replace("file = \"CLUSTER\"", "generator = \"random_grid\"\nparams = { hosts = 4, size = 2 }"),
            "platform.params.size: unknown parameter 'size' for generator 'random_grid'",
        ),
        (GOOD.replace("[[schedulers]]\nname = \"round_robin\"\n", ""), "missing field `schedulers`"),
    ];
    for (text, expected) in cases {
        let err = load_error(&text);
        assert!(
            err.contains(expected),
            "expected\n  {expected}\nin\n  {err}\nfor\n{text}"
        );
    }
    // [quick] is applied, and checked, with --quick.
    let err = load_error_in(&format!("{GOOD}\n[quick]\nparams = {{ bytes = 1 }}\n"), true);
    assert!(
        err.contains("bad.toml:15:12: quick.params.bytes: not in [params]; [quick] may only override"),
        "{err}"
    );
    let err = load_error_in(GOOD, true);
    assert!(
        err.contains("bad.toml: quick: --quick needs a [quick] section"),
        "{err}"
    );
    // Several problems are reported together.
    let err = load_error(
        &GOOD
            .replace("family = \"toy\"", "family = \"toy\"\nseed = -1")
            .replace("fifo", "x"),
    );
    assert!(err.contains("seed: must be a non-negative integer, not -1"), "{err}");
    let err = load_error(
        &GOOD
            .replace("name = \"round_robin\"", "name = \"fifo\"")
            .replace("tasks = [2, 3]", "tsks = 1"),
    );
    assert_eq!(err.lines().count(), 2, "{err}");
}

#[test]
fn generated_platforms_are_built_once_per_combination() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gen.toml");
    let text = GOOD.replace(
        "file = \"CLUSTER\"",
        "generator = \"random_grid\"\nparams = { hosts = [4, 6], extra_links = 1, seed = 3 }",
    );
    fs::write(&path, text).unwrap();
    let exp = experiment::load(&path, false, &toy_families()).unwrap();
    assert_eq!(exp.platforms.len(), 2);
    assert_eq!(exp.platforms[0].name, "random_grid(extra_links=1, hosts=4, seed=3)");
    assert_eq!(exp.platforms[1].platform.hosts.len(), 6);
    assert_eq!(exp.key_columns[0], "platform");
    assert_eq!(exp.runs.len(), 4);
    let out = tempfile::tempdir().unwrap();
    assert!(runner::run(&exp, &opts(out.path(), 2)).unwrap().complete);
}

// ---------------------------------------------------------------------------------------------
// The command line.

#[test]
fn cli_help_gives_an_example_for_every_subcommand() {
    let cwd = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Outcome { ok, stdout: top, .. } = gridsim(cwd, ["--help"]);
    assert!(ok && top.contains("Example: `gridsim run"), "{top}");
    for sub in ["run", "plot", "list", "validate", "merge", "bench", "replay"] {
        let Outcome { ok, stdout: help, .. } = gridsim(cwd, [sub, "--help"]);
        assert!(ok && help.contains("Example: `gridsim"), "{sub} --help:\n{help}");
    }
}

/// `bench/compare.py` takes `bench engine --hold-only` next to every run it times: it must print
/// the hold-model and overhead lines it parses, and skip the scenarios that take seconds.
#[test]
fn bench_engine_hold_only_prints_the_hold_model_and_nothing_else() {
    let cwd = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = [
        "bench",
        "engine",
        "--hold-only",
        "--pending",
        "100",
        "--events",
        "2000",
        "--repeat",
        "1",
    ];
    let Outcome {
        ok,
        stdout: out,
        stderr: err,
        ..
    } = gridsim(cwd, args);
    assert!(ok, "{err}");
    for start in ["hold model:", "bare queue hold:", "engine overhead:"] {
        assert!(
            out.lines().any(|l| l.starts_with(start)),
            "no {start:?} line in:\n{out}"
        );
    }
    assert!(!out.contains("network:") && !out.contains("long profile:"), "{out}");
    assert_eq!(out.lines().count(), 4, "{out}");
}

/// `bench grid` measures each size in a process of its own (this binary again, with `--here`):
/// a header, then one line per size in the order given, each with its load, run and memory.
#[test]
fn bench_grid_prints_one_line_per_size_from_its_own_process() {
    let cwd = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = [
        "bench",
        "grid",
        "--hosts",
        "60",
        "--hosts",
        "30",
        "--tasks-per-host",
        "2",
        "--repeat",
        "1",
    ];
    let Outcome {
        ok,
        stdout: out,
        stderr: err,
        ..
    } = gridsim(cwd, args);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("generated grid: random_grid"), "{out}");
    for (line, hosts) in [(lines[1], 60), (lines[2], 30)] {
        assert!(line.trim_start().starts_with(&format!("{hosts} hosts: load ")), "{out}");
        for part in [" s), run ", " events, ", "makespan ", "process peak "] {
            assert!(line.contains(part), "no {part:?} in:\n{out}");
        }
    }
}

#[test]
fn cli_rejects_bad_files_with_location_and_nonzero_exit() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("syntax.toml"),
        "name = \"x\"\nfamily = \"bot\nplatform = 3\n",
    )
    .unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["validate", "syntax.toml"]);
    assert!(!ok);
    assert!(
        err.contains("gridsim: error: syntax.toml:2:14: invalid basic string"),
        "{err}"
    );
    fs::write(
        dir.path().join("missing.toml"),
        "name = \"x\"\nfamily = \"bot\"\n[platform]\nfile = \"gone.xml\"\n[params]\ntasks = 10\ntask_flops = 1e9\n\
         [[schedulers]]\nname = \"gss\"\n",
    )
    .unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "missing.toml"]);
    assert!(!ok);
    assert!(
        err.contains("missing.toml:4:8: platform.file: platform file 'gone.xml' not found"),
        "{err}"
    );
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "nothere.toml"]);
    assert!(!ok && err.contains("nothere.toml: cannot read: "), "{err}");
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "missing.toml", "--shard", "4/3"]);
    assert!(!ok && err.contains("'4/3' is not a shard"), "{err}");
}

#[test]
fn cli_runs_validates_lists_and_plots_a_bot_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let platform = Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml");
    let text = format!(
        "name = \"bot-cli\"\ndescription = \"bot smoke test\"\nfamily = \"bot\"\n[platform]\nfile = \"{}\"\n\
         [params]\ntasks = [40, 80]\ntask_flops = 1e9\nnodes = 8\n[[schedulers]]\nname = \"gss\"\n\
         [[schedulers]]\nname = \"wq\"\nparams = {{ chunk = 2 }}\n[[figures]]\nname = \"m\"\nx = \"tasks\"\n\
         y = \"makespan_s\"\ny_label = \"Makespan (s)\"\n",
        platform.display()
    );
    fs::write(dir.path().join("bot.toml"), text).unwrap();
    let Outcome {
        ok,
        stdout: out,
        stderr: err,
        ..
    } = gridsim(dir.path(), ["validate", "bot.toml"]);
    assert!(ok, "{err}");
    assert!(out.contains("bot.toml: ok, 4 runs"), "{out}");
    let Outcome {
        ok,
        stdout: out,
        stderr: err,
        ..
    } = gridsim(dir.path(), ["run", "bot.toml", "--jobs", "2", "--out", "o"]);
    assert!(ok, "{err}");
    assert!(out.contains("bot-cli: 4 runs, 0 already done, 4 run now"), "{out}");
    assert!(dir.path().join("o/results/bot-cli/runs.csv").exists());
    fs::remove_dir_all(dir.path().join("o/plots")).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["plot", "o/results/bot-cli"]);
    assert!(ok, "{err}");
    assert!(dir.path().join("o/plots/bot-cli/m.png").exists());
    let Outcome { ok, stdout: out, .. } = gridsim(dir.path(), ["list", "--root", env!("CARGO_MANIFEST_DIR")]);
    assert!(ok);
    for text in ["Family bot:", "gss", "task_flops", "grid90.xml", "random_grid"] {
        assert!(out.contains(text), "list lacks '{text}':\n{out}");
    }
}

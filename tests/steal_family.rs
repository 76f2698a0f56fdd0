//! The work-stealing family end to end through experiment files: every policy and program, every
//! parameter, the tables a study draws, determinism and the refusals.

use std::path::PathBuf;

use gridsim::experiment;
use schedulers::families;
use schedulers::family::ParamValue;

fn load(text: &str) -> Result<experiment::Experiment, experiment::ExperimentError> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("experiments/test.toml");
    experiment::load_str(&path, text, false, &families::all())
}

fn experiment(platform: &str, params: &str, scheduler: &str) -> String {
    format!(
        r#"
name = "t"
family = "steal"
replications = 2
[platform]
file = "../platforms/data/{platform}"
[params]
{params}
[[schedulers]]
name = "{scheduler}"
[outputs]
tables = ["pes", "activity"]
"#
    )
}

#[test]
fn every_policy_runs_every_program_and_the_tables_add_up() {
    let family = families::find("steal").unwrap();
    for scheduler in family.schedulers() {
        let text = experiment(
            "gridgum8.toml",
            "program = [\"queens\", \"sumeuler\", \"linsolv\", \"raytracer\"]\nsequential_s = 60",
            scheduler.name,
        );
        let e = load(&text).unwrap_or_else(|e| panic!("{}: {e}", scheduler.name));
        assert_eq!(e.runs.len(), 8);
        for run in &e.runs {
            let out = e.family.run(&run.spec).unwrap();
            let runtime = out.metrics["runtime_s"];
            // Eight PEs of 1395 and 534 MHz cannot beat 60 s × 1395 / (4 × 1395 + 4 × 534).
            assert!(runtime >= 60.0 * 1395.0 / 7716.0, "{}: {runtime}", scheduler.name);
            let pes = &out.tables["pes"];
            assert_eq!(pes.rows.len(), 8);
            // busy + blocked + idle = runtime on every PE (columns 4, 5, 6).
            for row in &pes.rows {
                let sum: f64 = row[4..7].iter().map(|v| v.as_f64().unwrap()).sum();
                assert!((sum - runtime).abs() < 1e-6 * runtime, "{row:?}");
            }
            // The PEs' data FETCHes (column 15) add up to the run's; each PE held a thread at
            // some time only if it created one (column 16 against 7).
            let fetches: f64 = pes.rows.iter().map(|r| r[15].as_f64().unwrap()).sum();
            assert_eq!(fetches, out.metrics["data_fetches"]);
            for row in &pes.rows {
                let (threads, max_live) = (row[7].as_f64().unwrap(), row[16].as_f64().unwrap());
                assert!(max_live <= threads && (max_live > 0.0) == (threads > 0.0), "{row:?}");
            }
            // Activity intervals lie inside the run and never overlap on a PE.
            let activity = &out.tables["activity"];
            let mut last_end = [0.0f64; 8];
            for row in &activity.rows {
                let pe = row[0].as_f64().unwrap() as usize;
                let (start, end) = (row[1].as_f64().unwrap(), row[2].as_f64().unwrap());
                assert!(start >= last_end[pe] - 1e-12 && end > start && end <= runtime + 1e-9);
                assert!(row[3].as_f64().unwrap() >= 1.0);
                last_end[pe] = end;
            }
            assert!(out.metrics["messages_hello"] == 56.0, "every PE greets the 7 others");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_run_and_replications_differ() {
    let e = load(&experiment(
        "gridgum8.toml",
        "program = \"raytracer\"\nsequential_s = 60",
        "grid-gum",
    ))
    .unwrap();
    let a = e.family.run(&e.runs[0].spec).unwrap();
    let b = e.family.run(&e.runs[0].spec).unwrap();
    assert_eq!(a, b);
    let c = e.family.run(&e.runs[1].spec).unwrap();
    assert_ne!(
        a.metrics["runtime_s"], c.metrics["runtime_s"],
        "the scene is drawn per replication"
    );
}

#[test]
fn every_model_parameter_can_be_set_from_an_experiment_file() {
    let params = "program = \"queens\"\nsequential_s = 30\nreference_mhz = 1000\npes = 4\nthread_limit = 2\n\
                  limit_counts_main = 1\ntime_slice_ms = 10\nhop_limit = 5\nfish_delay_ms = 2\n\
                  message_flops = 1e5\nheader_bytes = 100\ncontrol_bytes = 16\nwan_latency_ms = 20\n\
                  queens_board = 10\nqueens_depth = 3\nlocal_latency_factor = 3\nprefer_local = 0\n\
                  super_schedule = 4\nlow_watermark = 2\npack_buffer_words = 512\npack_flops_per_word = 4\n\
                  unpack_flops_per_word = 4\nthread_create_flops = 200";
    let e = load(&experiment("gridgum8.toml", params, "grid-gum2")).unwrap_or_else(|e| panic!("{e}"));
    let out = e.family.run(&e.runs[0].spec).unwrap();
    assert_eq!(out.tables["pes"].rows.len(), 4);
    assert_eq!(out.metrics["sequential_s"], 30.0 * 1000.0 / 1395.0);
    let listed = schedulers::family::parameter_names(e.family);
    for line in params.lines() {
        let key = line.split('=').next().unwrap().trim();
        assert!(listed.contains(&key), "{key} is read but not listed");
    }
}

#[test]
fn the_inter_cluster_latency_reaches_the_network() {
    // One FISH across the 'wan' link takes at least its latency: with 200 ms the startup
    // messages alone delay every cross-cluster table entry, and the run is slower than at 0.1 ms.
    let runtime = |ms: f64| {
        let text = experiment(
            "gridgum8.toml",
            &format!("program = \"sumeuler\"\nsequential_s = 20\nwan_latency_ms = {ms}"),
            "grid-gum",
        );
        let e = load(&text).unwrap();
        e.family.run(&e.runs[0].spec).unwrap().metrics["runtime_s"]
    };
    assert!(runtime(200.0) > runtime(0.1));
}

#[test]
fn bad_values_are_refused_with_the_parameter_named() {
    for (platform, params, scheduler, expected) in [
        (
            "gridgum8.toml",
            "program = \"fib\"",
            "grid-gum",
            "unknown program 'fib'",
        ),
        (
            "small4.toml",
            "wan_latency_ms = 5",
            "grid-gum",
            "needs a link named 'wan'",
        ),
        ("gridgum8.toml", "thread_limit = 0", "grid-gum", "'thread_limit'"),
        ("gridgum8.toml", "pes = 9", "grid-gum", "'pes'"),
        (
            "gridgum8.toml",
            "queens_board = 40\nprogram = \"queens\"",
            "grid-gum",
            "queens_board",
        ),
        (
            "gridgum8.toml",
            "super_schedule = 2",
            "grid-gum",
            "parameter 'super_schedule' does not apply to scheduler 'grid-gum'",
        ),
        ("gridgum8.toml", "prefer_local = 0.5", "grid-gum2", "'prefer_local'"),
        ("gridgum8.toml", "time_slice_ms = 0", "grid-gum", "'time_slice_ms'"),
    ] {
        let err = load(&experiment(platform, params, scheduler)).unwrap_err().to_string();
        assert!(err.contains(expected), "{params}: {err}");
    }
    // A program parameter of another program in the sweep is a constant column, not an error.
    let e = load(&experiment(
        "gridgum8.toml",
        "program = \"sumeuler\"\nqueens_board = 8\nsequential_s = 10",
        "grid-gum",
    ))
    .unwrap();
    assert_eq!(e.runs[0].spec.params["queens_board"], ParamValue::Int(8));
}

#[test]
fn refusals_are_typed_by_the_parameter_they_are_about() {
    use schedulers::family::RunError;
    // Each refusal names its parameter, so validation locates it without searching the message:
    // the family's, a program's (range and combination) and a policy's.
    let e = load(&experiment(
        "gridgum8.toml",
        "program = \"queens\"\nsequential_s = 10",
        "grid-gum2",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let spec = &e.runs[0].spec;
    for (name, value, about) in [
        ("program", ParamValue::Str("chess".into()), "program"),
        ("program", ParamValue::Int(3), "program"),
        ("sequential_s", ParamValue::Int(0), "sequential_s"),
        ("pes", ParamValue::Int(9), "pes"),
        ("thread_limit", ParamValue::Int(0), "thread_limit"),
        ("hop_limit", ParamValue::Float(1.5), "hop_limit"),
        ("time_slice_ms", ParamValue::Int(0), "time_slice_ms"),
        ("queens_board", ParamValue::Int(99), "queens_board"),
        ("queens_depth", ParamValue::Int(13), "queens_depth"),
        ("prefer_local", ParamValue::Float(0.5), "prefer_local"),
    ] {
        let mut changed = spec.clone();
        changed.params.insert(name.to_string(), value);
        match e.family.validate(&changed) {
            Err(RunError::Param(p)) => assert_eq!(p.param, about, "{name}: {p}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    // A combination too large to generate is refused at the parameter that bounds it.
    let mut deep = spec.clone();
    deep.params.insert("queens_board".into(), ParamValue::Int(15));
    deep.params.insert("queens_depth".into(), ParamValue::Int(15));
    match e.family.validate(&deep) {
        Err(RunError::Param(p)) => {
            assert_eq!(p.param, "queens_depth");
            assert!(
                p.to_string()
                    .starts_with("parameter 'queens_depth' of program 'queens' is refused: "),
                "{p}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_thread_limit_of_one_changes_every_program_that_reads_remote_data() {
    // linSolv's images fetch the 117 KB matrix in 29 packets; a raytracer whose packet (256
    // words, 1 KB) cannot hold its 1.7 KB scene fetches the scene. Their threads block on the
    // FETCHes, so an unlimited PE activates or fishes more sparks while a limited one waits:
    // the runs differ. sumEuler reads nothing remote.
    let run = |program: &str, extra: &str, limit: u32| {
        let text = experiment(
            "gridgum8.toml",
            &format!("program = \"{program}\"\nsequential_s = 60\nthread_limit = {limit}\n{extra}"),
            "grid-gum",
        );
        let e = load(&text).unwrap_or_else(|e| panic!("{e}"));
        e.family.run(&e.runs[0].spec).unwrap().metrics
    };
    for (program, extra) in [
        ("linsolv", ""),
        ("raytracer", "pack_buffer_words = 256"),
        ("sumeuler", ""),
    ] {
        let free = run(program, extra, 1024);
        let limited = run(program, extra, 1);
        let reads_remote = free["data_fetches"] > 0.0;
        assert_eq!(reads_remote, program != "sumeuler", "{program}: {free:?}");
        if reads_remote {
            assert_ne!(
                free["runtime_s"], limited["runtime_s"],
                "{program}: {free:?} {limited:?}"
            );
        }
    }
}

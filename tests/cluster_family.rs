//! The cluster family end to end through experiment files: a job trace of each kind and the
//! synthetic generator, the tables a study draws, and the refusals.

use std::path::PathBuf;

use gridsim::experiment;
use schedulers::families;

fn load(text: &str) -> Result<experiment::Experiment, experiment::ExperimentError> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("experiments/test.toml");
    experiment::load_str(&path, text, false, &families::all())
}

fn experiment(workload: &str, params: &str, scheduler: &str) -> String {
    format!(
        r#"
name = "t"
family = "cluster"
[platform]
file = "../platforms/data/walfc6.toml"
{workload}
[params]
{params}
[[schedulers]]
name = "{scheduler}"
[outputs]
tables = ["slowdown_quantiles", "control", "nodes", "jobs"]
"#
    )
}

#[test]
fn an_swf_log_a_process_trace_and_synthetic_jobs_all_run() {
    let cases = [
        (
            "[workload]\ntrace = \"../traces/data/KTH-SP2-1996-2.1-cln.swf.gz\"\nserial_only = true\nfirst = 500",
            // KTH's jobs run for hours: rates per second keep them to thousands of requests.
            "cpu_load = 0.5\nrate_unit_s = 1.0",
            500.0,
        ),
        (
            "[workload]\ntrace = \"../traces/data/CSD-trace.csv.gz\"",
            "jobs = 2000",
            2000.0,
        ),
        ("", "jobs = 1500", 1500.0),
    ];
    for (workload, params, jobs) in cases {
        let e = load(&experiment(workload, params, "wal-fc")).unwrap_or_else(|e| panic!("{e}"));
        let out = e.family.run(&e.runs[0].spec).unwrap();
        assert_eq!(out.metrics["jobs_done"], jobs, "{workload}");
        assert!(out.metrics["mean_slowdown_realised"] >= 1.0);
        // Quantiles of the slowdown never decrease and end at the largest one.
        let q = &out.tables["slowdown_quantiles"];
        let values: Vec<f64> = q.rows.iter().map(|r| r[1].as_f64().unwrap()).collect();
        assert!(values.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*values.last().unwrap(), out.metrics["max_slowdown"]);
        // One row per job; the controller moved after every completion but the first.
        assert_eq!(out.tables["jobs"].rows.len() as f64, jobs);
        assert!(!out.tables["control"].rows.is_empty());
        assert_eq!(out.tables["nodes"].rows.len(), 6);
    }
}

#[test]
fn every_model_parameter_can_be_set_from_an_experiment_file() {
    // Each parameter the family reads, given a valid value, validates and runs.
    let params = "jobs = 200\nnodes = 4\ncpu_load = 0.5\nio_rate = 1.0\npage_fault_rate = 1.0\nrate_unit_s = 1.0\n\
                  memory_mean_mb = 8\nmemory_shape = 2.5\nbuffer_mb = 100\nrequest_mean_kb = 200\n\
                  request_sd_kb = 40\nreaccess_rate = 2\ncontext_switch_ms = 0.2\ntime_slice_ms = 10\n\
                  load_info_period_s = 5\npage_fault_service_ms = 9\nmigration_fixed_s = 0.2\n\
                  initial_data_factor = 0.5\nthreshold = 1.5\nw_io = 0.3\ngain_w = 0.4\ngain_buffer_mb = 1\nhistory = 20";
    let e = load(&experiment("", params, "wal-fc")).unwrap_or_else(|e| panic!("{e}"));
    let out = e.family.run(&e.runs[0].spec).unwrap();
    assert_eq!(out.metrics["jobs_done"], 200.0);
    let listed = schedulers::family::parameter_names(e.family);
    for line in params.lines() {
        let key = line.split('=').next().unwrap().trim();
        assert!(listed.contains(&key), "{key} is read but not listed");
    }
}

#[test]
fn offered_load_is_scaled_to_cpu_load() {
    // Σ t_u / (span · nodes) = cpu_load after scaling: the CPU busy fraction of a run without
    // I/O is close to it (the last jobs finish a little after the last arrival).
    let text = experiment(
        "[workload]\ntrace = \"../traces/data/CSD-trace.csv.gz\"",
        "jobs = 20000\ncpu_load = 0.5\nio_rate = 0.0\npage_fault_rate = 0.0",
        "nlb",
    );
    let e = load(&text).unwrap();
    let out = e.family.run(&e.runs[0].spec).unwrap();
    let jobs = &out.tables["jobs"];
    let dedicated: f64 = jobs.rows.iter().map(|r| r[5].as_f64().unwrap()).sum();
    let busy = dedicated / (out.metrics["makespan_s"] * 6.0);
    assert!((busy - 0.5).abs() < 0.05, "{busy}");
}

#[test]
fn a_platform_without_fcfs_disks_and_bad_parameters_are_refused() {
    let text = experiment("", "jobs = 10", "nlb").replace("walfc6.toml", "small4.toml");
    let e = load(&text).unwrap_err().to_string();
    assert!(e.contains("has no host with an FCFS disk"), "{e}");
    let e = load(&experiment("", "jobs = 10\ncpu_load = -1", "wal"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("'cpu_load'"), "{e}");
    let e = load(&experiment("", "jobs = 10\nw_io = 3", "wal"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("'w_io'"), "{e}");
    let e = load(&experiment("", "jobs = 10\nbuffer_mb = 700", "nlb"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("buffer_bytes"), "{e}");
}

#[test]
fn wal_toml_includes_the_other_sweeps_and_a_missing_include_is_located() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let e = experiment::load(&root.join("experiments/wal.toml"), true, &families::all()).unwrap();
    let names: Vec<String> = e
        .includes
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "wal-paging.toml",
            "wal-weights.toml",
            "wal-buffer.toml",
            "wal-hit-rate.toml",
            "wal-datasize.toml",
            "wal-memory.toml",
            "wal-ceiling.toml",
            "wal-controller.toml",
            "wal-scaled.toml"
        ]
    );
    let text = experiment("", "jobs = 10", "nlb").replace("family =", "includes = [\"nope.toml\"]\nfamily =");
    let e = load(&text).unwrap_err();
    let d = e.diagnostics.iter().find(|d| d.field == "includes").unwrap();
    assert!(d.message.contains("'nope.toml' not found"), "{e}");
    assert_eq!(
        d.line,
        text.lines().position(|l| l.starts_with("includes")).unwrap() + 1
    );
}

#[test]
fn refusals_are_typed_by_what_they_are_about() {
    use schedulers::family::{ParamValue, RunError};
    use std::sync::Arc;
    // Each refusal names the parameter it is about (validation locates it there, not by
    // searching the message), or the platform.
    let e = load(&experiment("", "jobs = 10", "wal")).unwrap_or_else(|e| panic!("{e}"));
    let spec = &e.runs[0].spec;
    for (name, value, about) in [
        ("cpu_load", ParamValue::Int(-1), "cpu_load"),
        ("io_rate", ParamValue::Str("high".into()), "io_rate"),
        ("jobs", ParamValue::Int(0), "jobs"),
        ("nodes", ParamValue::Int(7), "nodes"),
        ("buffer_mb", ParamValue::Int(700), "buffer_mb"),
        ("memory_shape", ParamValue::Float(0.5), "memory_shape"),
        ("page_fault_service_ms", ParamValue::Float(1.0), "page_fault_service_ms"),
        ("w_io", ParamValue::Int(3), "w_io"),
    ] {
        let mut changed = spec.clone();
        changed.params.insert(name.to_string(), value);
        match e.family.validate(&changed) {
            Err(RunError::Param(p)) => assert_eq!(p.param, about, "{name}: {p}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    let small = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/small4.toml");
    let mut diskless = spec.clone();
    diskless.platform = Arc::new(platforms::load_platform(&small).unwrap());
    assert!(
        matches!(e.family.validate(&diskless), Err(RunError::Platform(m)) if m.contains("FCFS disk")),
        "a platform without FCFS disks"
    );
}

#[test]
fn points_of_a_sweep_draw_the_same_jobs() {
    // Common random numbers: two runs that differ only in page_fault_rate (or the buffer, or the
    // scheduler) see the same jobs: homes, arrivals, CPU, memory and I/O demands.
    let e = load(&experiment(
        "",
        "jobs = 300\npage_fault_rate = [1.0, 3.0]\nbuffer_mb = [100, 200]",
        "wal",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e.runs.len(), 4);
    let demand_columns = ["job", "home", "arrival_s", "cpu_s", "memory_mb", "io_per_s", "data_mb"];
    let demands = |i: usize| {
        let out = e.family.run(&e.runs[i].spec).unwrap();
        let jobs = &out.tables["jobs"];
        let at: Vec<usize> = demand_columns
            .iter()
            .map(|c| jobs.columns.iter().position(|x| x == c).unwrap())
            .collect();
        let mut rows: Vec<Vec<String>> = jobs
            .rows
            .iter()
            .map(|r| at.iter().map(|&k| r[k].to_string()).collect())
            .collect();
        rows.sort_by_key(|r| r[0].parse::<u64>().unwrap());
        rows
    };
    let first = demands(0);
    assert_eq!(first.len(), 300);
    for i in 1..4 {
        assert_eq!(demands(i), first, "run {i} drew other jobs");
        assert_eq!(e.runs[i].spec.seed, e.runs[0].spec.seed);
    }
}

#[test]
fn by_default_each_node_replays_its_own_interval_of_the_trace_at_its_own_timing() {
    // The literal reading: the process trace cut into one interval per node (six on walfc6),
    // each replayed from time 0 with its recorded gaps; `uniform` homes keep the recorded dates.
    let trace = "[workload]\ntrace = \"../traces/data/CSD-trace.csv.gz\"\nfirst = 600";
    let run = |params: &str| {
        let e = load(&experiment(trace, params, "nlb")).unwrap_or_else(|e| panic!("{e}"));
        let out = e.family.run(&e.runs[0].spec).unwrap();
        let jobs = &out.tables["jobs"];
        let col = |c: &str| jobs.columns.iter().position(|x| x == c).unwrap();
        let (home, arrival) = (col("home"), col("arrival_s"));
        jobs.rows
            .iter()
            .map(|r| {
                (
                    r[home].to_string().parse::<usize>().unwrap(),
                    r[arrival].to_string().parse::<f64>().unwrap(),
                )
            })
            .collect::<Vec<(usize, f64)>>()
    };
    let segments = run("io_rate = 0.0");
    let uniform = run("io_rate = 0.0\nhomes = \"uniform\"");
    assert_eq!(segments.len(), 600);
    let span = uniform.iter().map(|j| j.1).fold(0.0, f64::max);
    assert!(span > 0.0);
    let width = span / 6.0;
    // Every node has jobs, and every job arrives within its node's interval, shifted to 0.
    for node in 1..=6 {
        assert!(segments.iter().any(|j| j.0 == node), "node {node} has no job");
    }
    assert!(
        segments.iter().all(|j| j.1 <= width + 1e-6),
        "an arrival beyond {width} s"
    );
    // Unscaled: the recorded gaps, so the last arrival of the uniform reading is the trace's span.
    let e = load(&experiment(trace, "io_rate = 0.0\nhomes = \"uniform\"", "nlb")).unwrap();
    let w = e.runs[0].spec.workload.as_ref().unwrap();
    let recorded = w.jobs.last().unwrap().submit_s - w.jobs[0].submit_s;
    assert!((span - recorded).abs() < 1e-6 * recorded, "{span} vs {recorded}");
}

#[test]
fn a_measured_disk_rate_lets_eq_4_6_pass_at_the_literal_unit() {
    // At the paper's literal unit eq. 4.5's aggregate Λ gives every job ρ ≈ 40 per its own CPU
    // second, so eq. 4.6 almost never expects a gain; the disk's measured rate (requests per
    // wall-clock second) is below its capacity and lets WAL move jobs off busy disks.
    let e = load(&experiment(
        "[workload]\ntrace = \"../traces/data/CSD-trace.csv.gz\"",
        "jobs = 3000\nio_rate = 2.8\npage_fault_rate = 2.0\ndisk_arrival_rate = [\"aggregate\", \"measured\"]",
        "wal",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let migrations: Vec<f64> = e
        .runs
        .iter()
        .map(|r| e.family.run(&r.spec).unwrap().metrics["migrations"])
        .collect();
    assert!(migrations[1] > 5.0 * migrations[0].max(1.0), "{migrations:?}");
    // The window belongs to the measured reading only.
    let err = load(&experiment("", "jobs = 10\ndisk_rate_window_s = 5", "wal"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("disk_rate_window_s"), "{err}");
}

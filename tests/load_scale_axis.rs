//! `[workload] load_scale` as a sweep axis: a list runs the sweep once per value from one
//! reading of the trace, and each run equals the run of an experiment giving that value alone.

use gridsim::experiment;
use schedulers::families;

/// Three one-processor jobs of 10 s, submitted at 0, 4 and 8 s, on one host.
const LOG: &str = "\
1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1
2 4 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1
3 8 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1
";

fn load(dir: &std::path::Path, load_scale: &str) -> Result<experiment::Experiment, experiment::ExperimentError> {
    let trace = dir.join("log.swf");
    std::fs::write(&trace, LOG).unwrap();
    let text = format!(
        "name = \"t\"\nfamily = \"batch\"\n[platform]\ngenerator = \"homogeneous_cluster\"\n\
         params = {{ hosts = 1, speed_flops = 1e9, bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, \
         backbone_bandwidth_bytes_per_s = 1e9, backbone_latency_s = 5e-4 }}\n\
         [workload]\ntrace = {trace:?}\nload_scale = {load_scale}\n\
         [[schedulers]]\nname = \"fcfs\"\n[[schedulers]]\nname = \"easy\"\n"
    );
    experiment::load_str(&dir.join("t.toml"), &text, false, &families::all())
}

fn mean_wait(e: &experiment::Experiment, run: usize) -> f64 {
    e.family.run(&e.runs[run].spec).unwrap().metrics["mean_wait_s"]
}

#[test]
fn a_list_of_scales_is_an_axis_whose_runs_equal_single_scale_runs() {
    let dir = tempfile::tempdir().unwrap();
    let swept = load(dir.path(), "[1, 2]").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        swept.key_columns,
        ["load_scale", "scheduler", "replication", "seed"],
        "the axis is a key column, before the scheduler"
    );
    let keys: Vec<(&str, &str)> = swept
        .runs
        .iter()
        .map(|r| (r.keys[0].as_str(), r.keys[1].as_str()))
        .collect();
    assert_eq!(keys, [("1", "fcfs"), ("1", "easy"), ("2", "fcfs"), ("2", "easy")]);
    // One host, FCFS, each job 10 s. Scale 1: arrivals 0, 4, 8; starts 0, 10, 20; waits 0, 6,
    // 12, mean 6. Scale 2: arrivals 0, 2, 4; starts 0, 10, 20; waits 0, 8, 16, mean 8.
    assert_eq!(mean_wait(&swept, 0), 6.0);
    assert_eq!(mean_wait(&swept, 2), 8.0);
    for (run, scale) in [(0, "1"), (3, "2")] {
        let single = load(dir.path(), scale).unwrap();
        assert!(
            single.key_columns.iter().all(|c| c != "load_scale"),
            "a number is no axis"
        );
        let which = run % 2;
        assert_eq!(
            swept.family.run(&swept.runs[run].spec).unwrap(),
            single.family.run(&single.runs[which].spec).unwrap(),
            "load_scale {scale}, run {run}"
        );
        assert_ne!(
            swept.runs[run].fingerprint,
            swept.runs[(run + 2) % 4].fingerprint,
            "each scale is its own result"
        );
    }
}

#[test]
fn bad_scales_are_refused_with_the_field() {
    let dir = tempfile::tempdir().unwrap();
    for (value, expected) in [
        ("[1, \"a\"]", "must be a positive number, or a list of them"),
        ("[]", "must be a positive number, or a list of them"),
        ("[1, -2]", "must be a positive number, or a list of them"),
        ("[1.5, 1.5]", "lists 1.5 twice"),
        ("\"2\"", "must be a positive number, or a list of them"),
    ] {
        let err = load(dir.path(), value).map(|_| ()).unwrap_err().to_string();
        assert!(
            err.contains("workload.load_scale") && err.contains(expected),
            "{value}: {err}"
        );
    }
}

//! Issue 38, item 8: failure studies beyond one recorded pattern. A random per-host failure
//! model (`[platform.availability] model`) drawn per run from the run's seed, and a list of
//! availability traces as a sweep axis.

use std::path::PathBuf;

use gridsim::experiment;
use schedulers::families;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// An experiment text located in `tests/data/traces/` (so relative paths resolve from there).
fn load(text: &str) -> Result<experiment::Experiment, experiment::ExperimentError> {
    let path = root().join("tests/data/traces/exp.toml");
    experiment::load_str(&path, text, false, &families::all())
}

const CLUSTER: &str = "[platform]\ngenerator = \"homogeneous_cluster\"\n\
    params = { hosts = 9, speed_flops = 1e9, bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, \
    backbone_bandwidth_bytes_per_s = 1.25e9, backbone_latency_s = 5e-4 }\n";

fn random_experiment(model: &str) -> String {
    format!(
        "name = \"rf\"\nfamily = \"bot\"\nreplications = 2\n{CLUSTER}\
         [platform.availability]\n{model}\nexclude = [\"node-0\"]\n\
         [params]\ntasks = 500\ntask_flops = 6e10\nmaster = \"node-0\"\n\
         [[schedulers]]\nname = \"wq\"\n[[schedulers]]\nname = \"factoring\"\n"
    )
}

#[test]
fn random_failures_differ_by_replication_and_are_shared_by_compared_schedulers() {
    let e = load(&random_experiment(
        "model = \"weibull\"\nmtbf_s = 3600\nmttr_s = 600\nshape = 0.7",
    ))
    .unwrap();
    // Runs: wq rep 0, wq rep 1, factoring rep 0, factoring rep 1.
    let profiles = |i: usize| -> Vec<Option<sim_core::profile::Profile>> {
        let spec = e.runs[i].spec_to_run().unwrap();
        spec.platform.hosts.iter().map(|h| h.state_profile.clone()).collect()
    };
    let (wq0, wq1, fac0) = (profiles(0), profiles(1), profiles(2));
    assert_eq!(e.runs[2].label, "factoring");
    // The master never fails; every worker has a profile.
    assert!(wq0[0].is_none());
    assert!(wq0[1..].iter().all(Option::is_some));
    // Common random numbers: same replication, same failures, whatever the scheduler.
    assert_eq!(wq0, fac0);
    // Replications differ, and so do hosts within a run.
    assert_ne!(wq0, wq1);
    assert_ne!(wq0[1], wq0[2]);
    // The run itself sees the failures: workers are lost and restarted.
    let out = e.family.run(&e.runs[0].spec_to_run().unwrap()).unwrap();
    assert!(out.metrics["workers_lost"] > 0.0, "{:?}", out.metrics);
    assert_eq!(out.metrics["tasks_done"], 500.0);
}

#[test]
fn the_drawn_hosts_are_up_mtbf_over_mtbf_plus_mttr_of_the_time() {
    // 8 workers over the default horizon (1e7 s) with MTBF 900 s and MTTR 100 s: about 80,000
    // cycles in all; the closed form of an alternating renewal process gives 900 / 1000 = 0.9.
    let e = load(&random_experiment(
        "model = \"exponential\"\nmtbf_s = 900\nmttr_s = 100",
    ))
    .unwrap();
    let spec = e.runs[0].spec_to_run().unwrap();
    let horizon = 1e7;
    let mut up = 0.0;
    let mut hosts = 0;
    for host in &spec.platform.hosts {
        let Some(p) = &host.state_profile else { continue };
        assert_eq!(p.period(), Some(horizon));
        hosts += 1;
        let ev = p.events();
        for (i, &(date, value)) in ev.iter().enumerate() {
            let until = ev.get(i + 1).map_or(horizon, |n| n.0);
            if value != 0.0 {
                up += until - date;
            }
        }
    }
    assert_eq!(hosts, 8);
    let availability = up / (hosts as f64 * horizon);
    assert!((availability - 0.9).abs() < 0.005, "{availability}");
}

#[test]
fn a_list_of_traces_is_a_platform_axis() {
    // two-nodes.tab (two nodes) and the same file under another name: two platforms per
    // generator, each run named `platform + trace`.
    let dir = tempfile::tempdir().unwrap();
    let two = root().join("tests/data/traces/two-nodes.tab");
    std::fs::copy(&two, dir.path().join("a.tab")).unwrap();
    let text = std::fs::read_to_string(&two).unwrap().replace("\t1000\t", "\t1100\t");
    std::fs::write(dir.path().join("b.tab"), text).unwrap();
    let exp = format!(
        "name = \"axis\"\nfamily = \"bot\"\n{CLUSTER}\
         [platform.availability]\ntrace = [\"a.tab\", \"b.tab\"]\nexclude = [\"node-0\"]\ngaps = \"on\"\n\
         [params]\ntasks = 50\ntask_flops = 1e9\nmaster = \"node-0\"\n[[schedulers]]\nname = \"wq\"\n"
    );
    let path = dir.path().join("e.toml");
    std::fs::write(&path, &exp).unwrap();
    let e = experiment::load(&path, false, &families::all()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e.runs.len(), 2);
    assert_eq!(e.key_columns[0], "platform");
    let names: Vec<&str> = e.runs.iter().map(|r| r.spec.platform_name.as_str()).collect();
    assert!(
        names[0].ends_with(" + a.tab") && names[1].ends_with(" + b.tab"),
        "{names:?}"
    );
    assert_ne!(e.runs[0].fingerprint, e.runs[1].fingerprint);
}

#[test]
fn model_mistakes_are_located() {
    let err = |model: &str| -> String {
        match load(&random_experiment(model)) {
            Ok(_) => panic!("accepted: {model}"),
            Err(e) => e.to_string(),
        }
    };
    let e = err("model = \"gamma\"\nmtbf_s = 1\nmttr_s = 1");
    assert!(
        e.contains("platform.availability.model: unknown failure model 'gamma' (valid: exponential, weibull)"),
        "{e}"
    );
    let e = err("model = \"weibull\"\nmtbf_s = 1\nmttr_s = 1");
    assert!(
        e.contains("platform.availability.shape: model 'weibull' needs `shape`"),
        "{e}"
    );
    let e = err("model = \"exponential\"\nmtbf_s = 0\nmttr_s = 1");
    assert!(
        e.contains("platform.availability.mtbf_s: must be a positive number of seconds"),
        "{e}"
    );
    let e = err("model = \"exponential\"\nmttr_s = 1");
    assert!(
        e.contains("platform.availability.mtbf_s: model 'exponential' needs `mtbf_s`"),
        "{e}"
    );
    let e = err("model = \"exponential\"\nmtbf_s = 1\nmttr_s = 1\nshape = 2");
    assert!(
        e.contains("platform.availability.shape: applies to model = \"weibull\""),
        "{e}"
    );
    let e = err("model = \"exponential\"\nmtbf_s = 1\nmttr_s = 1\ngaps = \"on\"");
    assert!(e.contains("platform.availability.gaps: applies to a `trace`"), "{e}");
    let e = err("model = \"exponential\"\nmtbf_s = 1\nmttr_s = 1\ntrace = \"two-nodes.tab\"");
    assert!(e.contains("give one of them"), "{e}");
    // 1e7 s of 2 s cycles: ten million failures per host.
    let e = err("model = \"exponential\"\nmtbf_s = 1\nmttr_s = 1");
    assert!(e.contains("mtbf_s + mttr_s is too short"), "{e}");
    let e = err("trace = \"two-nodes.tab\"\nmtbf_s = 5");
    assert!(
        e.contains("platform.availability.mtbf_s: applies to a random failure `model`"),
        "{e}"
    );
    let e = err("");
    assert!(e.contains("needs `trace`"), "{e}");
}

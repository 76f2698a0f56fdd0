//! Issue 18, item 8: every policy a family registers runs from an experiment file, so that a
//! policy added to a registry (one entry: name, description, parameters with defaults) is known
//! to `validate`, runs and reaches runs.csv and params.csv without another list to edit. The
//! schedulers come from the families themselves (`schedulers::families::all`), not from a list
//! written here: a new policy is tested as soon as it is registered.

use std::fs;

use gridsim::output::CsvTable;

mod support;
use support::{gridsim, root};

/// A small workload of each family: its platform and `[params]`, as TOML lines.
fn workload(family: &str) -> String {
    let file = |name: &str| format!("[platform]\nfile = {:?}\n", root().join("platforms/data").join(name));
    let generator = "[platform]\ngenerator = \"homogeneous_cluster\"\nparams = { hosts = 4, speed_flops = 1e9, \
                     bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, backbone_bandwidth_bytes_per_s = 1e9, \
                     backbone_latency_s = 5e-4 }\n";
    match family {
        "bot" => format!(
            "{}[params]\ntasks = 200\ntask_flops = 1e8\nnodes = 8\n",
            file("grid90.xml")
        ),
        "cluster" => format!("{}[params]\njobs = 300\n", file("walfc6.toml")),
        "steal" => format!(
            "{}[params]\nprogram = \"sumeuler\"\nsumeuler_n = 2000\nsequential_s = 20\n",
            file("gridgum8.toml")
        ),
        "amoget" => {
            format!("{generator}[params]\nstage_times_s = \"1,2\"\nprocessors = 3\nitems = 200\nlatency_s = 0.01\n")
        }
        "alt" => format!("{generator}[params]\nn = 64\nthreads = 2\nwan_latency_s = 0.005\n"),
        "batch" => format!(
            "{}[workload]\ntrace = {:?}\nfirst = 300\n",
            file("grid90.xml"),
            root().join("traces/data/KTH-SP2-1996-2.1-cln.swf.gz")
        ),
        other => panic!("family '{other}' has no workload in this test: add one"),
    }
}

/// What a scheduler needs besides the workload (a policy that names its target).
fn scheduler_params(family: &str, scheduler: &str) -> &'static str {
    match (family, scheduler) {
        ("amoget", "fixed") => "{ mapping = \"[1, (1,1), 1]\" }",
        ("alt", "fixed") => "{ server = \"server\" }",
        _ => "{}",
    }
}

#[test]
fn every_registered_policy_runs_from_an_experiment_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for family in schedulers::families::all() {
        let schedulers: String = family
            .schedulers()
            .iter()
            .map(|s| {
                format!(
                    "[[schedulers]]\nname = \"{}\"\nparams = {}\n",
                    s.name,
                    scheduler_params(family.name(), s.name)
                )
            })
            .collect();
        let name = format!("every-{}", family.name());
        let text = format!(
            "name = \"{name}\"\nfamily = \"{}\"\n{}{schedulers}",
            family.name(),
            workload(family.name())
        );
        let file = format!("{name}.toml");
        fs::write(dir.path().join(&file), &text).unwrap();
        let out = gridsim(dir.path(), ["run", &file, "--out", "o", "--no-plots", "--jobs", "2"]);
        assert!(out.ok, "family {}:\n{text}\n{}", family.name(), out.stderr);
        let results = dir.path().join("o/results").join(&name);
        let runs = CsvTable::read(&results.join("runs.csv")).unwrap();
        let params = CsvTable::read(&results.join("params.csv")).unwrap();
        let policy = params.column("policy").unwrap();
        let scheduler = runs.column("scheduler").unwrap();
        assert_eq!(runs.rows.len(), family.schedulers().len(), "{}", family.name());
        for (i, s) in family.schedulers().iter().enumerate() {
            assert_eq!(runs.rows[i][scheduler], s.name, "{}", family.name());
            assert_eq!(params.rows[i][policy], s.name, "{}", family.name());
            ran += 1;
        }
    }
    // bot 7, cluster 5, steal 3, amoget 3, alt 2 today; at least one per family always.
    assert!(ran >= schedulers::families::all().len());
}

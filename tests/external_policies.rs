//! Policies supplied at run time through the library (what the Python package does): an
//! experiment names them as any scheduler; a run whose policy fails is recorded as failed with
//! the policy, the date, the decision and the run, the sweep's other runs complete, and a resumed
//! sweep runs the failed run again (its policy's code is no input of the fingerprint).

use std::collections::BTreeMap;
use std::sync::Arc;

use gridsim::experiment;
use gridsim::runner::{self, RunOptions};
use schedulers::bot::{MasterView, Request};
use schedulers::external::{ExternalChunkPolicy, ExternalPolicies, ExternalPolicy, Factory, WithExternal};
use schedulers::family::Family;
use schedulers::registry::PolicyInfo;

/// GSS as a caller would write it, with `k = 1`.
struct Gss;

impl ExternalChunkPolicy for Gss {
    fn chunk(&mut self, view: &MasterView<'_>, _: &Request) -> Result<u64, String> {
        Ok(view.remaining.div_ceil(view.workers as u64).min(view.remaining))
    }
}

/// Answers a chunk larger than what is left.
struct TooBig;

impl ExternalChunkPolicy for TooBig {
    fn chunk(&mut self, view: &MasterView<'_>, _: &Request) -> Result<u64, String> {
        Ok(view.remaining + 1)
    }
}

fn policy(name: &'static str, make: fn() -> Box<dyn ExternalChunkPolicy>) -> ExternalPolicy {
    ExternalPolicy {
        info: PolicyInfo {
            name,
            description: "supplied at run time",
            params: &[],
        },
        factory: Factory::Chunk(Arc::new(move |_: &BTreeMap<String, f64>| Ok(make()))),
    }
}

#[test]
fn a_failing_policy_fails_its_run_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let file = dir.path().join("e.toml");
    std::fs::write(
        &file,
        format!(
            r#"name = "external"
family = "bot"
seed = 1
[platform]
file = "{root}/platforms/data/grid90.xml"
[params]
tasks = 500
task_flops = 1e9
master = "Jacquelin"
nodes = 10
[[schedulers]]
name = "gss"
[[schedulers]]
name = "my_gss"
[[schedulers]]
name = "too_big"
"#
        ),
    )
    .unwrap();
    let mut table = ExternalPolicies::new();
    table.add(policy("my_gss", || Box::new(Gss))).unwrap();
    table.add(policy("too_big", || Box::new(TooBig))).unwrap();
    let bot: &'static dyn Family = Box::leak(Box::new(
        WithExternal::new(schedulers::families::find("bot").unwrap(), table).unwrap(),
    ));
    // Without the table, the names are unknown.
    let err = experiment::load(&file, false, &schedulers::families::all()).unwrap_err();
    assert!(err.to_string().contains("unknown scheduler 'my_gss'"), "{err}");
    let loaded = experiment::load(&file, false, &[bot]).unwrap();
    let mut opts = RunOptions::new(dir.path());
    opts.plots = false;
    opts.jobs = 2;
    let report = runner::run(&loaded, &opts).unwrap();
    assert!(report.complete && report.executed == 3, "{report:?}");
    assert_eq!(report.failed.len(), 1, "{report:?}");
    let failed = &report.failed[0];
    assert!(
        failed.starts_with("#2 too_big rep 0: policy 'too_big' failed at "),
        "{failed}"
    );
    assert!(
        failed.contains(
            "'s request (500 of 500 tasks left): it answered a chunk of 501 tasks, outside 1..=500 (run #2 (platform "
        ),
        "{failed}"
    );
    let runs = std::fs::read_to_string(report.results_dir.join("runs.csv")).unwrap();
    let lines: Vec<&str> = runs.lines().collect();
    assert_eq!(lines.len(), 4, "{runs}");
    // The external GSS's row is the registry GSS's but for its index and name.
    let cells = |line: &str| line.split(',').skip(2).map(String::from).collect::<Vec<_>>();
    assert_eq!(cells(lines[1]), cells(lines[2]), "{runs}");
    assert!(lines[3].contains("policy 'too_big' failed at"), "{runs}");
    // Resuming reruns the failed run only.
    let again = runner::run(&loaded, &opts).unwrap();
    assert_eq!(
        (again.cached, again.executed, again.failed.len()),
        (2, 1, 1),
        "{again:?}"
    );
}

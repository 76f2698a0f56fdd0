//! Issue 18, item 4: `params.csv` holds every parameter of every run with its default filled in,
//! so that the CSV alone runs a row again: a row turned back into an experiment file (every
//! parameter explicit, its seed through `run_seed`) gives the same metrics, byte for byte.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use gridsim::output::CsvTable;

mod support;
use support::{gridsim, root, Outcome};

/// Row `i` of `table` as column → cell.
fn row(table: &CsvTable, i: usize) -> BTreeMap<String, String> {
    table
        .header
        .iter()
        .cloned()
        .zip(table.rows[i].iter().cloned())
        .collect()
}

#[test]
fn constant_parameters_and_defaults_are_columns() {
    let dir = tempfile::tempdir().unwrap();
    let platform = root().join("platforms/data/grid90.xml");
    let text = format!(
        "name = \"p\"\nfamily = \"bot\"\n[platform]\nfile = \"{}\"\n[params]\ntasks = [40, 80]\n\
         task_flops = 1e9\n[[schedulers]]\nname = \"wq\"\n[[schedulers]]\nname = \"gss\"\n\
         params = {{ min_chunk = 2 }}\n[[schedulers]]\nname = \"tss\"\n",
        platform.display()
    );
    fs::write(dir.path().join("e.toml"), text).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "e.toml", "--out", "o", "--no-plots"]);
    assert!(ok, "{err}");
    let params = CsvTable::read(&dir.path().join("o/results/p/params.csv")).unwrap();
    let runs = CsvTable::read(&dir.path().join("o/results/p/runs.csv")).unwrap();
    assert_eq!(params.rows.len(), 6);
    // Before this change runs.csv had none of these, and there was no params.csv.
    for column in ["task_flops", "master", "nodes"] {
        assert!(runs.column(column).is_none(), "{column} became a runs.csv column");
    }

    // The defaults the platform decides, read from the platform itself: the master is its
    // first host and every host is used.
    let loaded = platforms::load_platform(&platform).unwrap();
    let first_host = loaded.hosts[0].name.clone();
    let hosts = loaded.hosts.len().to_string();
    for i in 0..6 {
        let r = row(&params, i);
        assert_eq!(r["run"], i.to_string());
        assert_eq!(r["family"], "bot");
        assert_eq!(r["platform"], platform.display().to_string());
        assert_eq!(r["task_flops"], "1000000000", "run {i}");
        assert_eq!(r["master"], first_host, "run {i}");
        assert_eq!(r["nodes"], hosts, "run {i}");
        // The defaults `gridsim list` documents for the bag-of-tasks workload.
        assert_eq!((r["task_bytes"].as_str(), r["control_bytes"].as_str()), ("1000", "100"));
        assert_eq!(r["task_cv"], "0");
        // The run's identity agrees with runs.csv.
        let keys = row(&runs, i);
        for column in ["scheduler", "replication", "seed", "tasks"] {
            assert_eq!(r[column], keys[column], "run {i}: {column}");
        }
    }
    // Scheduler parameters: the one set, and each policy's registry defaults (a formula stays
    // the formula the policy evaluates); empty where the policy has no such parameter.
    let by_policy = |policy: &str| (0..6).map(|i| row(&params, i)).find(|r| r["policy"] == policy).unwrap();
    let (wq, gss, tss) = (by_policy("wq"), by_policy("gss"), by_policy("tss"));
    assert_eq!((wq["chunk"].as_str(), wq["min_chunk"].as_str()), ("1", ""));
    assert_eq!((gss["min_chunk"].as_str(), gss["chunk"].as_str()), ("2", ""));
    assert_eq!((tss["first"].as_str(), tss["last"].as_str()), ("ceil(N/(2P))", "1"));
}

/// A cell of params.csv as the TOML value an experiment file would give: integers and reals as
/// numbers, `true`/`false` as booleans, anything else as a string.
fn toml_value(cell: &str) -> toml::Value {
    if let Ok(i) = cell.parse::<i64>() {
        toml::Value::Integer(i)
    } else if let Ok(x) = cell.parse::<f64>() {
        toml::Value::Float(x)
    } else if let Ok(b) = cell.parse::<bool>() {
        toml::Value::Boolean(b)
    } else {
        toml::Value::String(cell.to_string())
    }
}

/// The `[platform]` of params.csv's `platform` cell: a file as the experiment named it
/// (relative to the experiment file), or a generator with its parameters,
/// `homogeneous_cluster(hosts=8, latency_s=0)`.
fn platform_table(experiment: &Path, cell: &str) -> toml::Table {
    let mut table = toml::Table::new();
    match cell.strip_suffix(')').and_then(|c| c.split_once('(')) {
        Some((generator, args)) => {
            table.insert("generator".into(), toml::Value::String(generator.into()));
            let params: toml::Table = args
                .split(", ")
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap();
                    (k.to_string(), toml_value(v))
                })
                .collect();
            table.insert("params".into(), toml::Value::Table(params));
        }
        None => {
            let file = experiment.parent().unwrap().join(cell);
            assert!(file.is_file(), "platform {}", file.display());
            table.insert("file".into(), toml::Value::String(file.display().to_string()));
        }
    }
    table
}

/// Runs a bundled experiment with `--quick`, then turns runs `picks` of its params.csv into
/// experiment files of their own and checks each gives its row of runs.csv again.
fn rows_run_again(experiment: &str, picks: &[usize]) {
    let dir = tempfile::tempdir().unwrap();
    let file = root().join("experiments").join(experiment);
    let Outcome { ok, stderr: err, .. } = gridsim(
        dir.path(),
        ["run", file.to_str().unwrap(), "--quick", "--out", "o", "--no-plots"],
    );
    assert!(ok, "{experiment}: {err}");
    let stem = experiment.trim_end_matches(".toml");
    let results = dir.path().join(format!("o/results/{stem}-quick"));
    let params = CsvTable::read(&results.join("params.csv")).unwrap();
    let runs = CsvTable::read(&results.join("runs.csv")).unwrap();
    let identity = gridsim::runner::store::PARAMS_IDENTITY;
    for &i in picks {
        let i = i.min(params.rows.len() - 1);
        let r = row(&params, i);
        let mut table = toml::Table::new();
        table.insert("name".into(), toml::Value::String(format!("again-{i}")));
        table.insert("family".into(), toml::Value::String(r["family"].clone()));
        table.insert(
            "platform".into(),
            toml::Value::Table(platform_table(&file, &r["platform"])),
        );
        table.insert("run_seed".into(), toml::Value::String(r["seed"].clone()));
        let params_table: toml::Table = r
            .iter()
            .filter(|(c, v)| !identity.contains(&c.as_str()) && c.as_str() != "workload" && !v.is_empty())
            .map(|(c, v)| (c.clone(), toml_value(v)))
            .collect();
        table.insert("params".into(), toml::Value::Table(params_table));
        if let Some(trace) = r.get("workload") {
            let mut workload = toml::Table::new();
            let path = file.parent().unwrap().join(trace);
            workload.insert("trace".into(), toml::Value::String(path.display().to_string()));
            table.insert("workload".into(), toml::Value::Table(workload));
        }
        let mut scheduler = toml::Table::new();
        scheduler.insert("name".into(), toml::Value::String(r["policy"].clone()));
        table.insert(
            "schedulers".into(),
            toml::Value::Array(vec![toml::Value::Table(scheduler)]),
        );
        let name = format!("again-{i}.toml");
        fs::write(dir.path().join(&name), toml::to_string(&table).unwrap()).unwrap();
        let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", &name, "--out", "again", "--no-plots"]);
        assert!(ok, "{experiment} run {i}: {err}");
        let again = CsvTable::read(&dir.path().join(format!("again/results/again-{i}/runs.csv"))).unwrap();
        // Every metric and the event count, as text: the same simulation.
        let original = row(&runs, i);
        let rerun = row(&again, 0);
        let metrics: Vec<&String> = again
            .header
            .iter()
            .skip_while(|c| c.as_str() != "seed")
            .skip(1)
            .collect();
        assert!(!metrics.is_empty());
        for m in metrics {
            assert_eq!(rerun[m], original[m], "{experiment} run {i}: {m}");
        }
    }
}

#[test]
fn a_bag_of_tasks_row_runs_again_from_the_csv() {
    rows_run_again("lds.toml", &[0, 5, 13]);
}

#[test]
fn a_work_stealing_row_runs_again_from_the_csv() {
    rows_run_again("gridgum.toml", &[0, 7, usize::MAX]);
}

#[test]
fn skeleton_rows_run_again_from_the_csv() {
    rows_run_again("amoget.toml", &[0, usize::MAX]);
    rows_run_again("skeletons.toml", &[0, usize::MAX]);
}

#[test]
fn cluster_rows_run_again_from_the_csv() {
    // A trace replay (the workload column) under the feedback controller.
    rows_run_again("wal.toml", &[0, 3, usize::MAX]);
}

#[test]
fn run_seed_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let platform = root().join("platforms/data/grid90.xml");
    let base = format!(
        "name = \"s\"\nfamily = \"bot\"\n[platform]\nfile = \"{}\"\n[params]\ntasks = 40\ntask_flops = 1e9\n\
         [[schedulers]]\nname = \"wq\"\n",
        platform.display()
    );
    for (extra, message) in [
        (
            "run_seed = \"-3\"\n",
            "e.toml:1:12: run_seed: must be a seed as params.csv writes it",
        ),
        (
            "run_seed = \"7\"\nreplications = 3\n",
            "run_seed: fixes every run's seed, so its 3 replications would be one run",
        ),
    ] {
        fs::write(dir.path().join("e.toml"), format!("{extra}{base}")).unwrap();
        let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["validate", "e.toml"]);
        assert!(!ok, "{extra}");
        assert!(err.contains(message), "{extra}: {err}");
    }
}

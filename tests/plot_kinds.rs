//! Figure kinds end to end: `kind = "bars"` (grouped bars, improvement over a baseline, the CSV
//! beside the images) and `kind = "timeline"` (one strip per worker of one run per panel), drawn
//! from a hand-built results directory and from a real bag-of-tasks sweep run by the `gridsim`
//! binary; and the experiment checks that refuse misplaced or missing fields.

use std::fs;
use std::path::Path;

use gridsim::output::CsvTable;
use gridsim::plot::Media;
use gridsim::runner::store::{Manifest, ManifestRun, FORMAT};

mod support;
use support::{gridsim, Outcome};

/// The texts of an SVG with their vertical positions, in document order; with `right_aligned`,
/// only those aligned on their right end (the names beside a vertical axis).
fn svg_texts(svg: &str, right_aligned: bool) -> Vec<(f64, String)> {
    svg.split("<text")
        .skip(1)
        .filter(|piece| !right_aligned || piece[..piece.find('>').unwrap_or(0)].contains("text-anchor=\"end\""))
        .filter_map(|piece| {
            let y = piece.split(" y=\"").nth(1)?;
            let y: f64 = y[..y.find('"')?].parse().ok()?;
            let content = &piece[piece.find('>')? + 1..piece.find("</text>")?];
            Some((y, content.trim().to_string()))
        })
        .collect()
}

fn table(header: &[&str], rows: Vec<Vec<String>>) -> CsvTable {
    let mut t = CsvTable::new(header.iter().map(|h| h.to_string()).collect());
    t.rows = rows;
    t
}

/// A results directory as the runner leaves it, for two programs under two schedulers with
/// three replications, and a per-run `steps` table of PE activity.
fn hand_built_results(dir: &Path) {
    let experiment = r#"
name = "steal"
family = "steal"
platform = { file = "p.xml" }
schedulers = [{ name = "RS" }, { name = "CRS" }]
replications = 3
[outputs]
tables = ["steps"]

[[figures]]
name = "table1"
kind = "bars"
title = "Table 1"
x = "program"
y = "time_s"
baseline = "RS"

[[figures]]
name = "fig9"
kind = "timeline"
source = "steps"
x = "start"
x_end = "end"
y = "pe"
shade = "threads"
panels = "scheduler"
where = { program = "fib", replication = 0 }
"#;
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join("experiment.toml"), experiment).unwrap();
    let keys = ["program", "scheduler", "replication", "seed"];
    let mut runs = Vec::new();
    let mut manifest_runs = Vec::new();
    let means = [
        ("fib", "RS", 668.0),
        ("fib", "CRS", 310.0),
        ("tsp", "RS", 100.0),
        ("tsp", "CRS", 140.0),
    ];
    for (program, scheduler, mean) in means {
        for (rep, delta) in [-4.0, 0.0, 4.0].iter().enumerate() {
            let run = runs.len();
            let key_values = vec![
                program.to_string(),
                scheduler.to_string(),
                rep.to_string(),
                "7".to_string(),
            ];
            manifest_runs.push(ManifestRun {
                fingerprint: format!("fp{run}"),
                label: format!("#{run}"),
                keys: key_values.clone(),
                params: Vec::new(),
            });
            let mut row = vec![run.to_string()];
            row.extend(key_values);
            row.push((mean + delta).to_string());
            runs.push(row);
        }
    }
    let mut header = vec!["run"];
    header.extend(keys);
    header.push("time_s");
    table(&header, runs).write(&dir.join("runs.csv")).unwrap();
    // Steps of the fib runs of replication 0 (runs 0 and 3): 12 PEs (so that 10 and 2 must be
    // ordered by value), busy with a varying number of threads.
    let mut steps = Vec::new();
    for (run, scheduler) in [(0, "RS"), (3, "CRS")] {
        for pe in 0..12 {
            for k in 0..20 {
                let start = f64::from(k) * 10.0;
                steps.push(vec![
                    run.to_string(),
                    "fib".into(),
                    scheduler.into(),
                    "0".into(),
                    pe.to_string(),
                    start.to_string(),
                    (start + 10.0).to_string(),
                    ((pe + k) % 4).to_string(),
                ]);
            }
        }
    }
    table(
        &[
            "run",
            "program",
            "scheduler",
            "replication",
            "pe",
            "start",
            "end",
            "threads",
        ],
        steps,
    )
    .write(&dir.join("steps.csv"))
    .unwrap();
    Manifest {
        format: FORMAT,
        experiment: "steal".into(),
        dir_name: "steal".into(),
        family: "steal".into(),
        quick: false,
        key_columns: keys.iter().map(|k| k.to_string()).collect(),
        tables: vec!["steps".into()],
        runs: manifest_runs,
        source: None,
        workload: None,
        param_columns: Vec::new(),
        platforms: Vec::new(),
    }
    .write(dir)
    .unwrap();
}

#[test]
fn bars_and_timeline_are_drawn_from_a_results_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results/steal");
    hand_built_results(&results);
    let plots = tmp.path().join("plots/steal");
    let written = gridsim::plot::draw_all(&results, &plots, None, Media::Screen).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["table1.csv", "table1.svg", "table1.png", "fig9.svg", "fig9.png"]
    );

    let csv = CsvTable::read(&plots.join("table1.csv")).unwrap();
    assert_eq!(
        csv.header,
        [
            "panel",
            "x",
            "series",
            "mean",
            "ci_low",
            "ci_high",
            "n",
            "improvement_pct"
        ]
    );
    let cells: Vec<Vec<&str>> = csv
        .rows
        .iter()
        .map(|r| {
            vec![
                r[0].as_str(),
                r[1].as_str(),
                r[2].as_str(),
                r[3].as_str(),
                r[6].as_str(),
            ]
        })
        .collect();
    assert_eq!(
        cells,
        [
            ["", "fib", "RS", "668", "3"],
            ["", "fib", "CRS", "310", "3"],
            ["", "tsp", "RS", "100", "3"],
            ["", "tsp", "CRS", "140", "3"],
        ]
    );
    // Replications 664, 668, 672: s = 4, half-width t(0.975, 2) * 4 / sqrt(3).
    let half = 4.302652730 * 4.0 / 3f64.sqrt();
    let lo: f64 = csv.rows[0][4].parse().unwrap();
    let hi: f64 = csv.rows[0][5].parse().unwrap();
    assert!((lo - (668.0 - half)).abs() < 1e-9 && (hi - (668.0 + half)).abs() < 1e-9);
    let pct: Vec<&str> = csv.rows.iter().map(|r| r[7].as_str()).collect();
    assert_eq!(pct[0], "");
    assert_eq!(pct[2], "");
    let fib: f64 = pct[1].parse().unwrap();
    let tsp: f64 = pct[3].parse().unwrap();
    assert!((fib - (668.0 - 310.0) / 668.0 * 100.0).abs() < 1e-9, "{fib}");
    assert!((tsp + 40.0).abs() < 1e-9, "{tsp}");
    let svg = fs::read_to_string(plots.join("table1.svg")).unwrap();
    for text in ["Table 1", "fib", "tsp", "RS", "CRS", "54%", "\u{2212}40%"] {
        assert!(svg.contains(text), "table1.svg lacks '{text}'");
    }

    let svg = fs::read_to_string(plots.join("fig9.svg")).unwrap();
    for text in ["scheduler = RS", "scheduler = CRS", "threads:", "pe"] {
        assert!(svg.contains(text), "fig9.svg lacks '{text}'");
    }
    // Strip names top first by value, in the first panel: 0, 1, 2, ..., 10, 11.
    let texts = svg_texts(&svg, true);
    let first_panel: Vec<&str> = texts.iter().take(12).map(|(_, t)| t.as_str()).collect();
    let expected: Vec<String> = (0..12).map(|i| i.to_string()).collect();
    assert_eq!(first_panel, expected);
    let y_of = |name: &str| texts.iter().find(|(_, t)| t == name).unwrap().0;
    assert!(y_of("2") < y_of("10"));

    // A replication left free puts two runs in one panel: refused when drawing.
    let text = fs::read_to_string(results.join("experiment.toml")).unwrap();
    fs::write(
        results.join("experiment.toml"),
        text.replace(
            "where = { program = \"fib\", replication = 0 }",
            "where = { program = \"fib\" }",
        ),
    )
    .unwrap();
    // Runs 0 and 3 only hold steps: give replication 1 of RS some too.
    let mut steps = CsvTable::read(&results.join("steps.csv")).unwrap();
    let mut extra = steps.rows[0].clone();
    extra[0] = "1".into();
    extra[3] = "1".into();
    steps.rows.push(extra);
    steps.write(&results.join("steps.csv")).unwrap();
    let err = format!(
        "{:#}",
        gridsim::plot::draw_all(&results, &plots, None, Media::Screen).unwrap_err()
    );
    assert!(
        err.contains(
            "experiment.toml:18: figure 'fig9': column 'replication' varies (0, 1) in the panel scheduler = RS"
        ) && err.contains("fix it with `where = { replication = ... }`"),
        "{err}"
    );
}

fn bot_experiment(figures: &str) -> String {
    let platform = Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml");
    format!(
        "name = \"bot-kinds\"\nfamily = \"bot\"\nreplications = 2\n[platform]\nfile = \"{}\"\n\
         [params]\ntasks = [40, 80]\ntask_flops = 1e9\nnodes = 8\n[[schedulers]]\nname = \"gss\"\n\
         [[schedulers]]\nname = \"wq\"\nparams = {{ chunk = 2 }}\n[outputs]\ntables = [\"chunks\"]\n{figures}",
        platform.display()
    )
}

const BOT_FIGURES: &str = r#"
[[figures]]
name = "makespan-bars"
kind = "bars"
x = "tasks"
y = "makespan_s"
baseline = "wq"

[[figures]]
name = "workers"
kind = "timeline"
source = "chunks"
x = "start_s"
x_end = "end_s"
y = "worker"
panels = "scheduler"
where = { tasks = 80, replication = 0 }
"#;

#[test]
fn a_bag_of_tasks_sweep_draws_bars_and_worker_timelines() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bot.toml"), bot_experiment(BOT_FIGURES)).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "bot.toml", "--jobs", "2", "--out", "o"]);
    assert!(ok, "{err}");
    let plots = dir.path().join("o/plots/bot-kinds");
    for file in [
        "makespan-bars.svg",
        "makespan-bars.png",
        "makespan-bars.csv",
        "workers.svg",
        "workers.png",
    ] {
        assert!(plots.join(file).exists(), "{file} missing");
    }

    // The bars are the means of runs.csv, the improvements computed from them.
    let runs = CsvTable::read(&dir.path().join("o/results/bot-kinds/runs.csv")).unwrap();
    let col = |name: &str| runs.column(name).unwrap();
    let mean = |tasks: &str, scheduler: &str| -> f64 {
        let values: Vec<f64> = runs
            .rows
            .iter()
            .filter(|r| r[col("tasks")] == tasks && r[col("scheduler")] == scheduler)
            .map(|r| r[col("makespan_s")].parse().unwrap())
            .collect();
        assert_eq!(values.len(), 2);
        values.iter().sum::<f64>() / 2.0
    };
    let csv = CsvTable::read(&plots.join("makespan-bars.csv")).unwrap();
    let keys: Vec<(&str, &str)> = csv.rows.iter().map(|r| (r[1].as_str(), r[2].as_str())).collect();
    assert_eq!(keys, [("40", "gss"), ("40", "wq"), ("80", "gss"), ("80", "wq")]);
    for row in &csv.rows {
        let m = mean(&row[1], &row[2]);
        assert_eq!(row[3].parse::<f64>().unwrap(), m);
        assert_eq!(row[6], "2");
        if row[2] == "wq" {
            assert_eq!(row[7], "");
        } else {
            let base = mean(&row[1], "wq");
            let expected = (base - m) / base * 100.0;
            let got: f64 = row[7].parse().unwrap();
            assert!((got - expected).abs() < 1e-9, "{got} vs {expected}");
            let svg = fs::read_to_string(plots.join("makespan-bars.svg")).unwrap();
            let label = gridsim::plot::bars::improvement_label(expected);
            assert!(svg.contains(&label), "makespan-bars.svg lacks '{label}'");
        }
    }

    // One timeline per scheduler, one strip per worker of the chunks table.
    let chunks = CsvTable::read(&dir.path().join("o/results/bot-kinds/chunks.csv")).unwrap();
    let workers: std::collections::BTreeSet<&str> = chunks
        .rows
        .iter()
        .map(|r| r[chunks.column("worker").unwrap()].as_str())
        .collect();
    assert!(workers.len() > 1);
    let svg = fs::read_to_string(plots.join("workers.svg")).unwrap();
    for text in ["scheduler = gss", "scheduler = wq", "start_s", "worker"] {
        assert!(svg.contains(text), "workers.svg lacks '{text}'");
    }
    let texts: Vec<String> = svg_texts(&svg, true).into_iter().map(|(_, t)| t).collect();
    for w in &workers {
        assert!(texts.iter().any(|t| t == w), "no strip for worker {w}");
    }
}

#[test]
fn misplaced_or_missing_figure_fields_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let bad = BOT_FIGURES
        .replace("baseline = \"wq\"", "baseline = \"fifo\"")
        .replace("x_end = \"end_s\"\n", "");
    fs::write(dir.path().join("bad.toml"), bot_experiment(&bad)).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["validate", "bad.toml"]);
    assert!(!ok);
    assert!(
        err.contains(
            "figures[0].baseline: figure 'makespan-bars': baseline 'fifo' is not a value of the series column 'scheduler' (its values: gss, wq)"
        ),
        "{err}"
    );
    assert!(
        err.contains("figures[1].x_end: figure 'workers': a timeline needs `x_end`"),
        "{err}"
    );
    // Located at the baseline's line.
    let text = bot_experiment(&bad);
    let line = text.lines().position(|l| l.starts_with("baseline")).unwrap() + 1;
    assert!(
        err.contains(&format!("bad.toml:{line}:12: figures[0].baseline")),
        "{err}"
    );

    // Fields of one kind on another, unknown kinds, and what a timeline cannot do.
    let other = r#"
[[figures]]
name = "a"
kind = "pie"
x = "tasks"
y = "makespan_s"

[[figures]]
name = "b"
x = "tasks"
y = "makespan_s"
x_end = "end_s"
shade = "size"
baseline = "wq"

[[figures]]
name = "c"
kind = "timeline"
x = "start_s"
x_end = "end_s"
y = "worker"
series = "scheduler"
y_log = true
error_bars = false
where = { tasks = 40 }

[[figures]]
name = "d"
kind = "bars"
x = "tasks"
y = "makespan_s"
x_log = true
"#;
    fs::write(dir.path().join("other.toml"), bot_experiment(other)).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["validate", "other.toml"]);
    assert!(!ok);
    for expected in [
        "figures[0].kind: figure 'a': unknown figure kind 'pie' (valid: lines, bars, timeline, step)",
        "figures[1].x_end: figure 'b': `x_end` applies only to kind = \"timeline\" (this figure is \"lines\")",
        "figures[1].shade: figure 'b': `shade` applies only to kind = \"timeline\"",
        "figures[1].baseline: figure 'b': `baseline` applies only to kind = \"bars\"",
        "figures[2].source: figure 'c': a timeline draws the intervals of a per-run table; set `source` to a table listed in [outputs] tables (chunks)",
        "figures[2].series: figure 'c': a timeline has no series",
        "figures[2].y_log: figure 'c': a timeline has one strip per value of `y`",
        "figures[2].error_bars: figure 'c': a timeline draws one run, so it has no error bars",
        "figures[2]: figure 'c': column 'scheduler' varies (gss, wq) but is not panels, and a timeline draws one run per panel; fix it with `where = { scheduler = ... }`",
        "figures[2]: figure 'c': column 'replication' varies (0, 1) but is not panels",
        "figures[3].x_log: figure 'd': bars stand on the categories of x",
    ] {
        assert!(err.contains(expected), "lacks '{expected}':\n{err}");
    }
    // Lines figures are unaffected.
    assert!(!err.contains("figure 'b': column"), "{err}");
}

#[test]
fn a_swept_scheduler_parameter_shares_a_figure_with_other_schedulers() {
    // "column 'beta' varies" used to refuse this figure; the swept value now joins
    // the scheduler's label in the legend, and `labels` renames values for display (18.14).
    let platform = Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml");
    let text = format!(
        "name = \"swept\"\nfamily = \"bot\"\n[platform]\nfile = \"{}\"\n\
         [params]\ntasks = [40, 80]\ntask_flops = 1e9\nnodes = [8, 16]\n\
         [[schedulers]]\nname = \"wq\"\nlabel = \"WQ\"\n\
         [[schedulers]]\nname = \"lds\"\nlabel = \"LDS\"\nparams = {{ beta = [5, 20] }}\n\
         [[figures]]\nname = \"m\"\nx = \"tasks\"\ny = \"makespan_s\"\npanels = \"nodes\"\n\
         labels = {{ \"8\" = \"8 nodes\", \"LDS (beta=20)\" = \"LDS with β = 20\" }}\n",
        platform.display()
    );
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("swept.toml"), text).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["validate", "swept.toml"]);
    assert!(ok, "{err}");
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "swept.toml", "--out", "o"]);
    assert!(ok, "{err}");
    let svg = fs::read_to_string(dir.path().join("o/plots/swept/m.svg")).unwrap();
    let texts: Vec<&str> = svg.lines().collect();
    for text in ["WQ", "LDS (beta=5)", "LDS with β = 20", "8 nodes", "nodes = 16"] {
        // (A series identical to an earlier one is followed by "(= that one)".)
        assert!(texts.iter().any(|t| t.starts_with(text)), "m.svg lacks '{text}'");
    }
    assert!(!texts.contains(&"nodes = 8"));
}

#[test]
fn platforms_are_shown_by_short_labels_and_runs_csv_gives_their_host_counts() {
    // A generated platform was shown by its whole generator string, wider than
    // an axis and a legend.
    let text = r#"
name = "sizes"
family = "bot"
[platform]
generator = "homogeneous_cluster"
params = { hosts = [4, 8], speed_flops = 1e9, bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, backbone_bandwidth_bytes_per_s = 1.25e9, backbone_latency_s = 5e-4 }
[params]
tasks = [40, 80]
task_flops = 1e9
[[schedulers]]
name = "wq"
[[schedulers]]
name = "gss"

[[figures]]
name = "by-platform"
kind = "bars"
x = "platform"
y = "makespan_s"
where = { tasks = 40 }

[[figures]]
name = "by-panel"
x = "tasks"
y = "makespan_s"
panels = "platform"

[[figures]]
name = "by-hosts"
x = "hosts"
y = "makespan_s"
where = { tasks = 40 }
"#;
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("sizes.toml"), text).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "sizes.toml", "--out", "o"]);
    assert!(ok, "{err}");
    // runs.csv keeps the platform's name (a key) and gives its host count right after it.
    let runs = CsvTable::read(&dir.path().join("o/results/sizes/runs.csv")).unwrap();
    assert_eq!(&runs.header[..5], ["run", "platform", "hosts", "tasks", "scheduler"]);
    let cells: Vec<(&str, &str)> = runs.rows.iter().map(|r| (r[1].as_str(), r[2].as_str())).collect();
    let name = |hosts: u32| {
        format!(
            "homogeneous_cluster(backbone_bandwidth_bytes_per_s=1250000000, backbone_latency_s=0.0005, \
             bandwidth_bytes_per_s=125000000, hosts={hosts}, latency_s=0.00005, speed_flops=1000000000)"
        )
    };
    let (four, eight) = (name(4), name(8));
    let mut expected = vec![(four.as_str(), "4"); 4];
    expected.extend([(eight.as_str(), "8"); 4]);
    assert_eq!(cells, expected);
    // Figures show the generator, the host count and what varies; the bars CSV keeps the name.
    let plots = dir.path().join("o/plots/sizes");
    let bars = fs::read_to_string(plots.join("by-platform.svg")).unwrap();
    let panels = fs::read_to_string(plots.join("by-panel.svg")).unwrap();
    for svg in [&bars, &panels] {
        assert!(!svg.contains("speed_flops"), "a figure shows the generator string");
    }
    let texts: Vec<&str> = bars.lines().map(str::trim).collect();
    assert!(texts.contains(&"homogeneous_cluster (4 hosts)"), "no short group name");
    assert!(
        panels.contains("platform = homogeneous_cluster (8 hosts)"),
        "no short panel title"
    );
    let csv = CsvTable::read(&plots.join("by-platform.csv")).unwrap();
    assert_eq!(csv.rows[0][1], four);
    // The host count tells the platforms apart, so it can be x without fixing the platform.
    let lines = fs::read_to_string(plots.join("by-hosts.svg")).unwrap();
    let texts: Vec<&str> = lines.lines().map(str::trim).collect();
    assert!(
        texts.contains(&"4") && texts.contains(&"8"),
        "no tick at each host count"
    );

    // Platform files are shown by their stems.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data");
    let files = text
        .replace("generator = \"homogeneous_cluster\"\n", "")
        .replace(
            "params = { hosts = [4, 8], speed_flops = 1e9, bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, backbone_bandwidth_bytes_per_s = 1.25e9, backbone_latency_s = 5e-4 }",
            &format!(
                "file = [\"{}\", \"{}\"]",
                data.join("grid90.xml").display(),
                data.join("small4.toml").display()
            ),
        )
        .replace("name = \"sizes\"", "name = \"files\"");
    fs::write(dir.path().join("files.toml"), files).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "files.toml", "--out", "o"]);
    assert!(ok, "{err}");
    let runs = CsvTable::read(&dir.path().join("o/results/files/runs.csv")).unwrap();
    let hosts: Vec<&str> = runs.rows.iter().map(|r| r[2].as_str()).collect();
    assert_eq!(hosts, ["90", "90", "90", "90", "4", "4", "4", "4"]);
    let bars = fs::read_to_string(dir.path().join("o/plots/files/by-platform.svg")).unwrap();
    let texts: Vec<&str> = bars.lines().map(str::trim).collect();
    assert!(texts.contains(&"grid90") && texts.contains(&"small4"), "no file stems");
    assert!(!bars.contains("platforms/data"), "a figure shows a platform's path");
}

#[test]
fn a_timeline_shades_the_periods_a_host_is_down() {
    // A worker's host off for a while showed as an idle gap, like a worker
    // without work.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = format!(
        r#"
name = "down"
family = "bot"
[platform]
file = "{}"
[platform.availability]
trace = "{}"
exclude = ["master"]
[params]
tasks = 40
task_flops = 5e9
[[schedulers]]
name = "wq"
params = {{ chunk = 1 }}
[[schedulers]]
name = "gss"
[outputs]
tables = ["chunks", "downtime"]

[[figures]]
name = "workers"
kind = "timeline"
source = "chunks"
x = "start_s"
x_end = "end_s"
y = "host"
panels = "scheduler"
down = "downtime"
"#,
        root.join("platforms/data/small4.toml").display(),
        root.join("tests/data/traces/two-nodes.tab").display()
    );
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("down.toml"), &text).unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "down.toml", "--out", "o"]);
    assert!(ok, "{err}");
    // two-nodes.tab turns worker-1 off over [100, 150) and from 1000, worker-2 over [500, 600):
    // both runs end before 500 s, so each has worker-1's one period.
    let down = CsvTable::read(&dir.path().join("o/results/down/downtime.csv")).unwrap();
    assert_eq!(
        down.header,
        ["run", "scheduler", "replication", "worker", "host", "from_s", "to_s"]
    );
    let rows: Vec<Vec<&str>> = down
        .rows
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        rows,
        [
            ["0", "wq", "0", "0", "worker-1", "100", "150"],
            ["1", "gss", "0", "0", "worker-1", "100", "150"]
        ]
    );
    let runs = CsvTable::read(&dir.path().join("o/results/down/runs.csv")).unwrap();
    let makespan = runs.column("makespan_s").unwrap();
    assert!(runs.rows.iter().all(|r| r[makespan].parse::<f64>().unwrap() < 500.0));

    // One band per period, in worker-1's row of each panel, the same width in both (the same
    // 50 s on one time axis), and a legend entry.
    let svg = fs::read_to_string(dir.path().join("o/plots/down/workers.svg")).unwrap();
    let bands: Vec<(f64, f64, f64)> = svg
        .split("<rect")
        .filter(|r| r.contains("fill=\"#E8E8E8\""))
        .map(|r| {
            let attr = |a: &str| -> f64 {
                let v = r.split(&format!(" {a}=\"")).nth(1).unwrap();
                v[..v.find('"').unwrap()].parse().unwrap()
            };
            (attr("y"), attr("width"), attr("height"))
        })
        .filter(|b| b.1 > 20.0)
        .collect();
    assert_eq!(bands.len(), 2, "{bands:?}");
    assert_eq!(bands[0].1, bands[1].1);
    let texts = svg_texts(&svg, true);
    let row_of = |band: &(f64, f64, f64)| {
        texts
            .iter()
            .min_by(|a, b| {
                (a.0 - band.0 - band.2 / 2.0)
                    .abs()
                    .total_cmp(&(b.0 - band.0 - band.2 / 2.0).abs())
            })
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(row_of(&bands[0]), "worker-1");
    assert_eq!(row_of(&bands[1]), "worker-1");
    assert!(
        svg.lines().any(|l| l.trim() == "down"),
        "no legend entry for down periods"
    );

    // `down` must name a written table holding the figure's y, from_s and to_s, on a timeline.
    let bad = text.replace("down = \"downtime\"", "down = \"lost_chunks\"").replace(
        "tables = [\"chunks\", \"downtime\"]",
        "tables = [\"chunks\", \"lost_chunks\"]",
    );
    fs::write(
        dir.path().join("bad.toml"),
        format!("{bad}\n[[figures]]\nname = \"m\"\nx = \"scheduler\"\ny = \"makespan_s\"\ndown = \"downtime\"\n"),
    )
    .unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["validate", "bad.toml"]);
    assert!(!ok);
    for expected in [
        "figures[0].down: figure 'workers': `down` table lost_chunks.csv has no column 'from_s', 'to_s'",
        "figures[1].down: figure 'm': `down` applies only to kind = \"timeline\"",
    ] {
        assert!(err.contains(expected), "lacks '{expected}':\n{err}");
    }
    fs::write(
        dir.path().join("unlisted.toml"),
        text.replace("\"chunks\", \"downtime\"", "\"chunks\""),
    )
    .unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["validate", "unlisted.toml"]);
    assert!(!ok);
    assert!(
        err.contains("figures[0].down: figure 'workers': `down` names 'downtime', which is not a table listed in [outputs] tables (chunks)"),
        "{err}"
    );
}

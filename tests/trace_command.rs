//! `gridsim trace` and trace files named by experiment files, through the built binary and the
//! library. Expected values come from the bundled logs (read by hand, see
//! `traces/tests/real_logs.rs`) and from hand-written traces in `tests/data/traces/`.

use gridsim::experiment;
use schedulers::families;

mod support;
use support::{gridsim, root};

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = gridsim(root(), args);
    assert!(out.ok, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn info_json_counts_the_bundled_logs() {
    // KTH: 27992 job lines (`zcat | grep -vc '^;'`); CSD: 184613 lines less the header.
    let kth = json_of(&["trace", "info", "traces/data/KTH-SP2-1996-2.1-cln.swf.gz", "--json"]);
    assert_eq!(kth["format"], "swf");
    assert_eq!(kth["jobs"], 27992);
    assert_eq!(kth["first_submit_s"], 599850.0);
    assert_eq!(kth["last_submit_s"], 29363618.0);
    let csd = json_of(&["trace", "info", "traces/data/CSD-trace.csv.gz", "--json"]);
    assert_eq!(csd["format"], "hbd");
    assert_eq!(csd["jobs"], 184612);
    // `0,0.1,...` (6 s) is the earliest arrival, `479,59.7,...` the latest.
    assert_eq!(csd["first_submit_s"], 6.0);
    let last = csd["last_submit_s"].as_f64().unwrap();
    assert!((last - (479.0 * 3600.0 + 59.7 * 60.0)).abs() < 1e-6);
}

#[test]
fn info_counts_a_real_layout_fta_trace_as_awk_does() {
    // The LANL trace's first 200 events as the archive's copies lay them out (padding, tabs,
    // empty padding columns, `event_stop_time`). Expected values, awk splitting on runs of
    // white space as the reader does:
    //   awk 'NR>1{n++; nodes[$3]; if($6==1)a++; if($6==0)u++} END{print n, length(nodes), a, u}'
    //     traces/data/lanl-fta-first-200.tab                      -> 200 84 58 142
    //   awk 'NR>1{print $7}' ... | sort -n | head -1               -> 1067860800
    //   awk 'NR>1{print $8}' ... | sort -n | tail -1               -> 1125482580
    let file = "traces/data/lanl-fta-first-200.tab";
    let out = gridsim(root(), ["trace", "info", file]);
    let text = &out.stdout;
    assert!(out.ok, "{}", out.stderr);
    assert!(text.contains("  events               200\n"), "{text}");
    assert!(text.contains("  nodes                84\n"), "{text}");
    assert!(text.contains("1067860800 s to 1125482580 s (666.9 days)"), "{text}");
    assert!(
        text.contains("available: 58, unavailable: 142, other: 0, still open at the end: 0"),
        "{text}"
    );
    let json = json_of(&["trace", "info", file, "--json"]);
    assert_eq!((json["events"].as_u64(), json["nodes"].as_u64()), (Some(200), Some(84)));
    // `trace plot` draws how many of its nodes are up over time.
    let dir = tempfile::tempdir().unwrap();
    let result = gridsim(root(), ["trace", "plot", file, "--out", dir.path().to_str().unwrap()]);
    assert!(result.ok, "{}", result.stderr);
    let svg = std::fs::read_to_string(dir.path().join("nodes-up.svg")).unwrap();
    assert!(svg.contains("84 nodes"), "the figure's title names the node count");
}

#[test]
fn a_malformed_line_of_a_real_layout_fta_trace_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("traces/data/lanl-fta-first-200.tab")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Line 41 (`    0\t    0\t  712\t ... 1105206720\t   1105207500\t       8000`): start after end.
    lines[40] = lines[40].replace("1105206720", "1105207501");
    let path = dir.path().join("lanl.tab");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = gridsim(root(), ["trace", "info", path.to_str().unwrap()]);
    let stderr = &out.stderr;
    assert_eq!(out.code, Some(1), "{stderr}");
    assert!(
        stderr.contains("lanl.tab:41: field event_end_time: 1105207500 comes before the event's start 1105207501"),
        "{stderr}"
    );
}

#[test]
fn a_bad_trace_names_file_line_and_field_and_exits_non_zero() {
    let out = gridsim(root(), ["trace", "info", "tests/data/traces/bad-runtime.swf"]);
    assert!(!out.ok);
    let stderr = &out.stderr;
    assert!(
        stderr.contains("tests/data/traces/bad-runtime.swf:3: field run_time: \"1O\" is not a number"),
        "{stderr}"
    );
    let out = gridsim(root(), ["trace", "info", "tests/data/traces/no-such-file.swf"]);
    assert!(!out.ok);
    assert!(out.stderr.contains("no-such-file.swf: cannot open trace"));
}

#[test]
fn plot_writes_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let result = gridsim(
        root(),
        ["trace", "plot", "traces/data/KTH-SP2-1996-2.1-cln.swf.gz", "--out", out],
    );
    assert!(result.ok, "{}", result.stderr);
    for name in ["arrivals", "runtime-ccdf", "size-ccdf"] {
        for ext in ["svg", "png"] {
            let path = dir.path().join(format!("{name}.{ext}"));
            assert!(std::fs::metadata(&path).unwrap().len() > 1000, "{}", path.display());
        }
    }
    let result = gridsim(
        root(),
        ["trace", "plot", "tests/data/traces/two-nodes.tab", "--out", out],
    );
    assert!(result.ok, "{}", result.stderr);
    assert!(dir.path().join("nodes-up.png").exists());
}

/// An experiment text located in `tests/data/traces/` (so relative paths resolve from there).
fn load(text: &str) -> Result<experiment::Experiment, experiment::ExperimentError> {
    let path = root().join("tests/data/traces/experiment.toml");
    experiment::load_str(&path, text, false, &families::all())
}

const BOT: &str = r#"
name = "t"
family = "bot"
[params]
tasks = 40
task_flops = 5e9
[[schedulers]]
name = "wq"
params = { chunk = 1 }
"#;

fn with_platform(platform: &str) -> String {
    format!("{BOT}\n[platform]\nfile = \"../../../platforms/data/small4.toml\"\n{platform}")
}

#[test]
fn fta_availability_becomes_state_profiles_on_the_mapped_hosts() {
    let text = with_platform("[platform.availability]\ntrace = \"two-nodes.tab\"\nexclude = [\"master\"]\n");
    let e = load(&text).unwrap();
    let p = &e.platforms[0].platform;
    let events = |host: &str| {
        let id = p.host_id(host).unwrap();
        p.host(id).state_profile.as_ref().map(|s| s.events().to_vec())
    };
    // two-nodes.tab, origin 1000 (the earliest start). Node 1 (w1) -> worker-1: on [1000, 1100),
    // off [1100, 1150), on [1150, 2000), then a gap (off by default) -> (0,1) (100,0) (150,1)
    // (1000,0). Node 2 (w2) -> worker-2: on [1000, 1500), gap [1500, 1600) off, on from 1600
    // with no end -> (0,1) (500,0) (600,1).
    assert_eq!(
        events("worker-1"),
        Some(vec![(0.0, 1.0), (100.0, 0.0), (150.0, 1.0), (1000.0, 0.0)])
    );
    assert_eq!(events("worker-2"), Some(vec![(0.0, 1.0), (500.0, 0.0), (600.0, 1.0)]));
    assert_eq!(events("master"), None);
    // worker-3 keeps its own state file (two nodes, three receiving hosts).
    assert!(events("worker-3").is_some());

    // The trace is part of the run's identity: the fingerprint differs from the same
    // experiment without it, and with gaps = "on".
    let plain = load(&with_platform("")).unwrap();
    assert_ne!(plain.runs[0].fingerprint, e.runs[0].fingerprint);
    let on = load(&format!("{text}gaps = \"on\"\n")).unwrap();
    assert_ne!(on.runs[0].fingerprint, e.runs[0].fingerprint);
    let worker1 = on.platforms[0].platform.host_id("worker-1").unwrap();
    let last = *on.platforms[0]
        .platform
        .host(worker1)
        .state_profile
        .as_ref()
        .unwrap()
        .events()
        .last()
        .unwrap();
    assert_eq!(last, (150.0, 1.0)); // no switch-off after 2000 when gaps count as on

    // Hosts that go away slow the bag of tasks down: same run without the trace is faster.
    let run = |e: &experiment::Experiment| e.family.run(&e.runs[0].spec).unwrap().metrics["makespan_s"];
    assert!(run(&e) > run(&plain), "{} vs {}", run(&e), run(&plain));
}

#[test]
fn availability_mistakes_are_located() {
    let e = load(&with_platform(
        "[platform.availability]\ntrace = \"two-nodes.tab\"\nexclude = [\"nobody\"]\n",
    ))
    .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("platform.availability.exclude"), "{text}");
    assert!(text.contains("has no host 'nobody'"), "{text}");
    let e = load(&with_platform(
        "[platform.availability]\ntrace = \"two-nodes.tab\"\nmap = \"name\"\n",
    ))
    .unwrap_err();
    assert!(
        e.to_string().contains("no node of 'two-nodes.tab' maps to a host"),
        "{e}"
    );
    let e = load(&with_platform("[platform.availability]\ntrace = \"bad-runtime.swf\"\n")).unwrap_err();
    assert!(e.to_string().contains("bad-runtime.swf:1"), "{e}");
}

#[test]
fn a_workload_trace_is_read_and_refused_by_a_family_that_does_not_replay_jobs() {
    let text = with_platform("").replace(
        "[params]",
        "[workload]\ntrace = \"../../../traces/data/KTH-SP2-1996-2.1-cln.swf.gz\"\nfirst = 10\n\n[params]",
    );
    let e = load(&text).unwrap_err().to_string();
    assert!(e.contains("family 'bot' does not replay a job trace"), "{e}");
    // The trace's own errors are reported with its file and line, located at `trace =`.
    let text = with_platform("").replace("[params]", "[workload]\ntrace = \"bad-runtime.swf\"\n\n[params]");
    let e = load(&text).unwrap_err();
    let d = e.diagnostics.iter().find(|d| d.field == "workload.trace").unwrap();
    assert!(
        d.message
            .contains("bad-runtime.swf:3: field run_time: \"1O\" is not a number"),
        "{e}"
    );
    assert_eq!(d.line, text.lines().position(|l| l.starts_with("trace =")).unwrap() + 1);
    // A selection that makes no sense is located at its key.
    let text = with_platform("").replace(
        "[params]",
        "[workload]\ntrace = \"../../../traces/data/KTH-SP2-1996-2.1-cln.swf.gz\"\nwindow_s = [10, 5]\nload_scale = 0\n\n[params]",
    );
    let e = load(&text).unwrap_err().to_string();
    assert!(e.contains("workload.window_s: must be [from, to]"), "{e}");
    assert!(
        e.contains("workload.load_scale: must be a positive number, or a list of them"),
        "{e}"
    );
}

//! The batch family end to end through experiment files: hand-made SWF logs whose schedules
//! are worked out below (one with a host failure from `[platform.availability]`), the
//! refusals, and a slice of the bundled KTH SP2 log under every policy.

use std::path::{Path, PathBuf};

use gridsim::experiment;
use schedulers::families;
use schedulers::family::{ParamValue, RunOutput};

fn load(text: &str) -> Result<experiment::Experiment, experiment::ExperimentError> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("experiments/test.toml");
    experiment::load_str(&path, text, false, &families::all())
}

fn cluster(hosts: u32) -> String {
    format!(
        "[platform]\ngenerator = \"homogeneous_cluster\"\nparams = {{ hosts = {hosts}, speed_flops = 1e9, \
         bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, backbone_bandwidth_bytes_per_s = 1e9, \
         backbone_latency_s = 5e-4 }}\n"
    )
}

fn experiment(hosts: u32, trace: &Path, workload: &str, params: &str, scheduler: &str) -> String {
    format!(
        "name = \"t\"\nfamily = \"batch\"\n{}[workload]\ntrace = {:?}\n{workload}\n[params]\n{params}\n\
         [[schedulers]]\nname = \"{scheduler}\"\n[outputs]\ntables = [\"jobs\", \"hosts\", \"quantiles\"]\n",
        cluster(hosts),
        trace
    )
}

fn run(text: &str) -> RunOutput {
    let e = load(text).unwrap_or_else(|e| panic!("{e}"));
    e.family.run(&e.runs[0].spec).unwrap()
}

/// An SWF log of four jobs (18 fields each; -1 = unknown):
/// 1. submit 0, run 10, 2 processors allocated, request of processors unknown: size 2 (field 5);
///    request 10 s.
/// 2. submit 1, run 10, 2 allocated but 4 requested: size 4 (field 8); request unknown: planned
///    with its run time, 10 s.
/// 3. submit 2, run 30, 1 processor, request 20 s: killed at 20 s.
/// 4. submit 3, 5 processors: more than the 4 hosts, dropped.
const HAND_LOG: &str = "\
; MaxProcs: 4
1 0 -1 10 2 -1 -1 -1 10 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 10 2 -1 -1 4 -1 -1 1 2 1 -1 -1 -1 -1 -1
3 2 -1 30 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1
4 3 -1 5 5 -1 -1 5 10 -1 1 3 1 -1 -1 -1 -1 -1
";

fn hand_log() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hand.swf");
    std::fs::write(&path, HAND_LOG).unwrap();
    (dir, path)
}

fn column(out: &RunOutput, name: &str) -> Vec<ParamValue> {
    let t = &out.tables["jobs"];
    let i = t.columns.iter().position(|c| c == name).unwrap();
    t.rows.iter().map(|r| r[i].clone()).collect()
}

fn floats(out: &RunOutput, name: &str) -> Vec<f64> {
    column(out, name).iter().map(|v| v.as_f64().unwrap()).collect()
}

// On 4 hosts: J1 0-10 on hosts 0-1. J2 needs all 4: 10-20. J3 (1 host, 20 s) would overlap J2's
// [10, 20) if started before 10, and FCFS keeps it behind J2 anyway; EASY (shadow 10, extra 0:
// 2 + 20 > 10) and conservative (1 host free for [2, 22)? no, none in [10, 20)) agree: 20-40,
// killed at its 20 s request.
// SJF takes J2 first (10 s < 20 s), which blocks. LJF differs (below).
// Waits 0, 9, 18; responses 10, 19, 38; bounded slowdowns (τ = 10) max(1, 10/10) = 1,
// 19/10 = 1.9, 38/20 = 1.9, mean 1.6. Utilisation (2·10 + 4·10 + 1·20) / (4·40) = 0.5.
#[test]
fn a_hand_made_log_gives_the_hand_worked_schedule() {
    let (_dir, trace) = hand_log();
    for scheduler in ["fcfs", "easy", "easy-sjbf", "conservative", "sjf"] {
        let out = run(&experiment(4, &trace, "", "", scheduler));
        let m = &out.metrics;
        assert_eq!(m["jobs_done"], 3.0, "{scheduler}");
        assert_eq!(m["jobs_dropped"], 1.0, "{scheduler}");
        assert_eq!(m["jobs_killed"], 1.0, "{scheduler}");
        assert_eq!(m["requests_from_runtime"], 1.0, "{scheduler}");
        assert_eq!(m["makespan_s"], 40.0, "{scheduler}");
        assert_eq!(m["utilisation"], 0.5, "{scheduler}");
        assert_eq!(m["mean_wait_s"], 9.0, "{scheduler}");
        assert_eq!(m["max_wait_s"], 18.0, "{scheduler}");
        assert_eq!(m["mean_response_s"], 67.0 / 3.0, "{scheduler}");
        assert!((m["mean_bounded_slowdown"] - 1.6).abs() < 1e-12, "{scheduler}");
        assert_eq!(floats(&out, "starting_time"), [0.0, 10.0, 20.0], "{scheduler}");
        assert_eq!(floats(&out, "requested_number_of_resources"), [2.0, 4.0, 1.0]);
        assert_eq!(floats(&out, "requested_time"), [10.0, 10.0, 20.0]);
        assert_eq!(floats(&out, "bounded_slowdown"), [1.0, 1.9, 1.9]);
        let text = |name| column(&out, name).iter().map(|v| v.to_string()).collect::<Vec<_>>();
        assert_eq!(text("allocated_resources"), ["0-1", "0-3", "0"]);
        // One `hosts` row per job and host: J1 on 0 and 1, J2 on 0-3, J3 on 0.
        let hosts: Vec<(i64, i64, f64)> = out.tables["hosts"]
            .rows
            .iter()
            .map(|r| match (&r[0], &r[2], &r[3]) {
                (ParamValue::Int(h), ParamValue::Int(j), s) => (*h, *j, s.as_f64().unwrap()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            hosts,
            [
                (0, 1, 0.0),
                (1, 1, 0.0),
                (0, 2, 10.0),
                (1, 2, 10.0),
                (2, 2, 10.0),
                (3, 2, 10.0),
                (0, 3, 20.0)
            ],
            "{scheduler}"
        );
        // Each row names its job's user, SWF field 12: users 1, 2 and 1 in the log.
        let user = out.tables["hosts"].columns.iter().position(|c| c == "user").unwrap();
        let users: Vec<String> = out.tables["hosts"].rows.iter().map(|r| r[user].to_string()).collect();
        assert_eq!(users, ["1", "1", "2", "2", "2", "2", "1"], "{scheduler}");
        assert_eq!(
            text("final_state"),
            [
                "COMPLETED_SUCCESSFULLY",
                "COMPLETED_SUCCESSFULLY",
                "COMPLETED_WALLTIME_REACHED"
            ]
        );
        // Batsim's other columns: success is 0 for the killed job; a job of the trace model
        // holds its hosts for a fixed time, Batsim's delay profile; no energy model (-1).
        assert_eq!(text("success"), ["1", "1", "0"]);
        assert_eq!(text("workload_name"), ["w0"; 3]);
        assert_eq!(text("profile"), ["delay"; 3]);
        assert_eq!(floats(&out, "consumed_energy"), [-1.0; 3]);
        assert_eq!(text("metadata"), [""; 3]);
    }
    // LJF takes J3 (20 s) before J2 (10 s) at 2, and J3 fits beside J1: J3 2-22 (killed), J2
    // 22-32.
    let out = run(&experiment(4, &trace, "", "", "ljf"));
    assert_eq!(floats(&out, "starting_time"), [0.0, 22.0, 2.0]);
    assert_eq!(out.metrics["makespan_s"], 32.0);
    // Quantiles of the FCFS run (the last of the loop above is SJF, the same schedule): waits
    // 0, 9, 18 (nearest rank: fraction q takes the ceil(3q)-th smallest).
    let q = &run(&experiment(4, &trace, "", "", "fcfs")).tables["quantiles"];
    let at = |k: usize| (q.rows[k - 1][1].as_f64().unwrap(), q.rows[k - 1][3].as_f64().unwrap());
    assert_eq!(q.rows.len(), 100);
    assert_eq!(
        (at(33), at(34), at(67), at(100)),
        ((0.0, 1.0), (9.0, 1.9), (18.0, 1.9), (18.0, 1.9))
    );
    // τ = 40: every job's response is under 40 s, so each bounded slowdown is 1.
    let out = run(&experiment(4, &trace, "", "tau_s = 40", "fcfs"));
    assert_eq!(out.metrics["mean_bounded_slowdown"], 1.0);
    // Allowed to run on, J3 holds its host 20-50: utilisation (20 + 40 + 30) / (4 · 50).
    let out = run(&experiment(4, &trace, "", "kill_at_walltime = false", "fcfs"));
    assert_eq!(out.metrics["jobs_killed"], 0.0);
    assert_eq!(out.metrics["makespan_s"], 50.0);
    assert_eq!(out.metrics["utilisation"], 0.45);
    // load_scale 2 halves the arrival times (0, 0.5, 1): J2 waits 9.5, J3 starts at 20.
    let out = run(&experiment(4, &trace, "load_scale = 2", "", "fcfs"));
    assert_eq!(floats(&out, "waiting_time"), [0.0, 9.5, 19.0]);
}

// unit = "core" on a random grid of 3 hosts of 2 cores: 6 units, host h holding units 2h and
// 2h + 1. Under EASY: J1 0-10 on units 0-1 (both cores of host 0); J2 (4 units) fits at 1:
// 1-11 on units 2-5; J3 (1 unit) waits for J1: 10-30 on unit 0, killed at its 20 s request;
// J4 (5 units) now fits the platform and is queued, not dropped: the head at 10 behind J3, its
// shadow 11 (J2's planned end, 1 + 10), when 5 units are free: 11-16 on units 1-5.
#[test]
fn core_units_share_a_multicore_host() {
    let (_dir, trace) = hand_log();
    let grid = "[platform]\ngenerator = \"random_grid\"\nparams = { hosts = 3, cores = 2, extra_links = 0 }\n";
    let text = experiment(4, &trace, "", "unit = \"core\"", "easy").replace(&cluster(4), grid);
    let out = run(&text);
    assert_eq!(out.metrics["units"], 6.0);
    assert_eq!(out.metrics["jobs_dropped"], 0.0);
    assert_eq!(floats(&out, "starting_time"), [0.0, 1.0, 10.0, 11.0]);
    let sets: Vec<String> = column(&out, "allocated_resources")
        .iter()
        .map(|v| v.to_string())
        .collect();
    assert_eq!(sets, ["0-1", "2-5", "0", "1-5"]);
    // `hosts` rows (host, unit): J1's two units are host 0's cores, J2's first is host 1's.
    let hosts: Vec<(f64, f64)> = out.tables["hosts"]
        .rows
        .iter()
        .take(3)
        .map(|r| (r[0].as_f64().unwrap(), r[1].as_f64().unwrap()))
        .collect();
    assert_eq!(hosts, [(0.0, 0.0), (0.0, 1.0), (1.0, 2.0)]);
    // unit = "host" on the same platform: 3 units, J2 and J4 dropped.
    let text = text.replace("unit = \"core\"", "unit = \"host\"");
    assert_eq!(run(&text).metrics["jobs_dropped"], 2.0);
}

// run_time_model = "speed" on gridgum8 (8 hosts in platform order pe0..pe7, even ones at 1395
// MHz, odd ones at 534 MHz; one flop per cycle), FCFS, one unit per host.
// reference_speed_flops = 534e6 (the slow hosts): a job's pace is the largest 534/speed over
// its hosts. J1 on hosts 0-1: pace 1, 0-10. J2 on hosts 2-5: pace 1, 1-11. J3 on host 6 (fast):
// 30 s x 534/1395, from 2, under its 20 s request. J4 (5 hosts) waits for 5 free: at 11, hosts
// 0-4, pace 1: 11-16.
// The default reference, the fastest host (1395e6): every job holding a slow host runs 1395/534
// = 2.61 times its recorded time: J1 (26 s), J2 (26 s) and J4 (13 s) pass their 10 s requests,
// J3 (30 s on a fast host) its 20 s one: all four are killed (the trace model kills J3 only).
#[test]
fn the_speed_model_scales_run_times_by_the_slowest_host() {
    let (_dir, trace) = hand_log();
    let gridgum8 = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/gridgum8.toml");
    let platform = format!("[platform]\nfile = {gridgum8:?}\n");
    let text = |params: &str| experiment(4, &trace, "", params, "fcfs").replace(&cluster(4), &platform);
    let out = run(&text("run_time_model = \"speed\"\nreference_speed_flops = 534e6"));
    assert_eq!(floats(&out, "starting_time"), [0.0, 1.0, 2.0, 11.0]);
    assert_eq!(
        floats(&out, "finish_time"),
        [10.0, 11.0, 2.0 + 30.0 * (534e6 / 1395e6), 16.0]
    );
    assert_eq!(out.metrics["jobs_killed"], 0.0);
    // The same work on every host, done when the slowest is: Batsim's parallel_homogeneous.
    let profiles: Vec<String> = column(&out, "profile").iter().map(|v| v.to_string()).collect();
    assert_eq!(profiles, ["parallel_homogeneous"; 4]);
    let out = run(&text("run_time_model = \"speed\""));
    assert_eq!(out.metrics["jobs_killed"], 4.0);
    let out = run(&text(""));
    assert_eq!(out.metrics["jobs_killed"], 1.0);
    // The reference speed means nothing under the trace model: refused.
    let e = load(&text("reference_speed_flops = 1e9")).err().unwrap().to_string();
    assert!(
        e.contains("'reference_speed_flops' applies only with run_time_model"),
        "{e}"
    );
}

#[test]
fn refusals_name_the_field() {
    let (_dir, trace) = hand_log();
    let err = |text: String| load(&text).err().map(|e| e.to_string()).unwrap_or_default();
    // Every job larger than the platform: J1 (2) and J2 (4) on 1 host.
    let e = err(experiment(1, &trace, "first = 2", "", "fcfs"));
    assert!(e.contains("every job of the workload needs more hosts"), "{e}");
    for (params, field) in [
        ("unit = \"core\"", "unit"), // every host of the generated cluster has one core
        ("unit = \"cpu\"", "unit"),
        ("run_time_model = \"fast\"", "run_time_model"),
        (
            "run_time_model = \"speed\"\nreference_speed_flops = 0",
            "reference_speed_flops",
        ),
        ("tau_s = -1", "tau_s"),
        ("tau_s = 0", "tau_s"),
        ("kill_at_walltime = 1", "kill_at_walltime"),
        ("depth = 2", "depth"),
    ] {
        let e = err(experiment(4, &trace, "", params, "easy"));
        assert!(e.contains(&format!("'{field}'")) || e.contains(field), "{params}: {e}");
        assert!(e.contains("test.toml:"), "{params}: no file and line: {e}");
    }
    let e = err(experiment(4, &trace, "", "", "sbf"));
    assert!(e.contains("sbf") && e.contains("conservative"), "{e}");
    // No [workload]: said so.
    let text = format!(
        "name = \"t\"\nfamily = \"batch\"\n{}[[schedulers]]\nname = \"fcfs\"\n",
        cluster(4)
    );
    let e = err(text);
    assert!(e.contains("[workload]"), "{e}");
}

/// The first 2000 jobs of the bundled KTH SP2 log on its 100-node machine, every policy: every
/// job runs once, no host is held by two jobs at once, the table agrees with the metrics, and
/// runs are deterministic.
#[test]
fn a_kth_slice_under_every_policy() {
    let trace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces/data/KTH-SP2-1996-2.1-cln.swf.gz");
    let mut bsld = Vec::new();
    for scheduler in ["fcfs", "easy", "easy-sjbf", "conservative", "sjf", "ljf"] {
        let text = experiment(100, &trace, "first = 2000", "", scheduler);
        let out = run(&text);
        assert_eq!(out, run(&text), "{scheduler}: not deterministic");
        let m = &out.metrics;
        assert_eq!(m["jobs_done"] + m["jobs_dropped"], 2000.0, "{scheduler}");
        assert_eq!(m["jobs_dropped"], 0.0, "{scheduler}: KTH's jobs fit its 100 nodes");
        let b = floats(&out, "bounded_slowdown");
        let mean = b.iter().sum::<f64>() / b.len() as f64;
        assert!((mean - m["mean_bounded_slowdown"]).abs() < 1e-9 * mean, "{scheduler}");
        let (starts, submits) = (floats(&out, "starting_time"), floats(&out, "submission_time"));
        assert!(starts.iter().zip(&submits).all(|(s, t)| s >= t), "{scheduler}");
        assert_no_unit_held_twice(&out, 100, scheduler);
        bsld.push((scheduler, m["mean_bounded_slowdown"]));
    }
    eprintln!("KTH first 2000 jobs, mean bounded slowdown: {bsld:?}");
}

/// The ten jobs of the unit tests' case F (`schedulers/src/batch/tests.rs`, where FCFS's, EASY's
/// and conservative's schedules are worked out step by step), as an SWF log: J1 ends 15 s
/// before its request, J4 is killed at its 6 s request, J6-J10 run around host 3's failure.
const FAILURE_LOG: &str = "\
; MaxProcs: 4
1 0 -1 5 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 8 2 -1 -1 2 8 -1 1 1 1 -1 -1 -1 -1 -1
4 3 -1 9 1 -1 -1 1 6 -1 1 1 1 -1 -1 -1 -1 -1
5 4 -1 3 1 -1 -1 1 3 -1 1 1 1 -1 -1 -1 -1 -1
6 30 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1
7 31 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1
8 36 -1 5 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1
9 37 -1 5 4 -1 -1 4 5 -1 1 1 1 -1 -1 -1 -1 -1
10 38 -1 2 1 -1 -1 1 4 -1 1 1 1 -1 -1 -1 -1 -1
";

/// The failure log and a SimGrid state profile in a temporary directory; the experiment text
/// on 4 hosts with `profile` (a state profile's text) given to host `node-3` only.
fn failure_experiment(profile: &str, params: &str, scheduler: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("failures.swf");
    std::fs::write(&log, FAILURE_LOG).unwrap();
    let states = dir.path().join("node3.profile");
    std::fs::write(&states, profile).unwrap();
    let availability =
        format!("[platform.availability]\ntrace = {states:?}\nformat = \"profile\"\nhosts = [\"node-3\"]\n[workload]");
    let text = experiment(4, &log, "", params, scheduler).replace("[workload]", &availability);
    (dir, text)
}

fn texts(out: &RunOutput, table: &str, name: &str) -> Vec<String> {
    let t = &out.tables[table];
    let i = t.columns.iter().position(|c| c == name).unwrap();
    t.rows.iter().map(|r| r[i].to_string()).collect()
}

// Host node-3 down from 35 to 45 (a SimGrid state profile: "35 0", "45 1"). FCFS, from case F:
// J1 0-5, J2 5-15, J3 15-23, J4 15-21 (walltime), J5 15-18; J6 30-40; J7 31-35 killed on
// hosts 2-3, requeued ahead of J8 (submitted 36), 40-50 on hosts 0-1; J8 40-45 on host 2; J9
// (4 hosts, 3 up until 45) 50-55; J10 55-57. Under on_failure = fail: J7 ends failed at 35, J8
// 36-41, J9 45-50 (host 3 is back at 45), J10 50-52.
#[test]
fn a_host_failure_from_an_availability_trace_requeues_or_fails_the_job() {
    let (_dir, text) = failure_experiment("35 0\n45 1\n", "", "fcfs");
    let out = run(&text);
    let m = &out.metrics;
    assert_eq!(m["jobs_requeued"], 1.0);
    assert_eq!(m["jobs_failed"], 0.0);
    assert_eq!(m["jobs_done"], 10.0);
    assert_eq!(m["jobs_killed"], 1.0);
    // J7 held 2 hosts for 31-35.
    assert_eq!(m["lost_unit_s"], 8.0);
    assert_eq!(
        floats(&out, "starting_time"),
        [0.0, 5.0, 15.0, 15.0, 15.0, 30.0, 40.0, 40.0, 50.0, 55.0]
    );
    // J7's row is its last execution: waited 40 - 31.
    assert_eq!(floats(&out, "waiting_time")[6], 9.0);
    assert_eq!(m["makespan_s"], 57.0);
    // Utilisation counts the killed execution: unit-seconds 2·5 + 4·10 + 2·8 + 6 + 3 + 2·10 +
    // (2·4 + 2·10) + 5 + 4·5 + 2 = 150 over 4 hosts × 57 s.
    assert_eq!(m["utilisation"], 150.0 / (4.0 * 57.0));
    // The `hosts` table shows the killed execution (31-35 on hosts 2 and 3) before J7's last.
    let rows: Vec<(String, String, String)> = out.tables["hosts"]
        .rows
        .iter()
        .filter(|r| r[2].to_string() == "7")
        .map(|r| (r[0].to_string(), r[3].to_string(), r[6].to_string()))
        .collect();
    let row = |h: &str, s: &str, f: &str| (h.to_string(), s.to_string(), f.to_string());
    assert_eq!(
        rows,
        [
            row("2", "31", "COMPLETED_KILLED"),
            row("3", "31", "COMPLETED_KILLED"),
            row("0", "40", "COMPLETED_SUCCESSFULLY"),
            row("1", "40", "COMPLETED_SUCCESSFULLY"),
        ]
    );

    // max_requeues = 0: J7's first kill fails it, as on_failure = "fail" would.
    let (_dir, text) = failure_experiment("35 0\n45 1\n", "max_requeues = 0", "fcfs");
    let m = run(&text).metrics;
    assert_eq!((m["jobs_requeued"], m["jobs_failed"]), (0.0, 1.0));

    // `downtime`: host 3 (unit 3) down 35-45.
    let (_dir, text) = failure_experiment("35 0\n45 1\n", "", "fcfs");
    let text = text.replace("\"quantiles\"]", "\"quantiles\", \"downtime\"]");
    let down = &run(&text).tables["downtime"];
    assert_eq!(down.columns, ["host", "unit", "from_s", "to_s"]);
    let cells: Vec<Vec<String>> = down
        .rows
        .iter()
        .map(|r| r.iter().map(|v| v.to_string()).collect())
        .collect();
    assert_eq!(cells, [["3", "3", "35", "45"]]);

    let (_dir, text) = failure_experiment("35 0\n45 1\n", "on_failure = \"fail\"", "fcfs");
    let out = run(&text);
    let m = &out.metrics;
    assert_eq!((m["jobs_requeued"], m["jobs_failed"], m["jobs_done"]), (0.0, 1.0, 9.0));
    assert_eq!(m["lost_unit_s"], 8.0);
    assert_eq!(texts(&out, "jobs", "final_state")[6], "COMPLETED_FAILED");
    assert_eq!(
        floats(&out, "starting_time"),
        [0.0, 5.0, 15.0, 15.0, 15.0, 30.0, 31.0, 36.0, 45.0, 50.0]
    );
    // Wait, response and slowdown leave the failed job out: 9 jobs in the mean wait
    // (0 + 4 + 13 + 12 + 11 + 0 + 0 + 8 + 12) / 9.
    assert_eq!(m["mean_wait_s"], 60.0 / 9.0);
}

// Host node-3 down from 0 for good: J2 and J9 need all 4 hosts and never start; FCFS keeps
// every later job behind J2. The run is incomplete: no metric is a result.
#[test]
fn jobs_waiting_for_hosts_that_stay_down_make_the_run_incomplete() {
    let (_dir, text) = failure_experiment("0 0\n", "", "fcfs");
    let out = run(&text);
    let why = out.incomplete.expect("incomplete");
    assert!(
        why.contains("9 of 10 jobs never started (the largest needs 4 of the 4 units)"),
        "{why}"
    );
    // EASY lets the jobs that fit the 3 hosts up pass J2 and J9: only those two never start.
    let (_dir, text) = failure_experiment("0 0\n", "", "easy");
    let why = run(&text).incomplete.expect("incomplete");
    assert!(why.contains("2 of 10 jobs never started"), "{why}");
}

#[test]
fn a_bad_failure_setting_is_refused_naming_the_field() {
    let err = |params: &str| {
        let (_dir, text) = failure_experiment("35 0\n45 1\n", params, "easy");
        load(&text).err().map(|e| e.to_string()).unwrap_or_default()
    };
    let e = err("on_failure = \"retry\"");
    assert!(
        e.contains("'on_failure'") && e.contains("must be 'requeue' or 'fail', got 'retry'"),
        "{e}"
    );
    assert!(e.contains("test.toml:"), "no file and line: {e}");
    let e = err("on_failure = \"fail\"\nmax_requeues = 2");
    assert!(e.contains("'max_requeues' applies only with on_failure"), "{e}");
    let e = err("max_requeues = -1");
    assert!(e.contains("max_requeues"), "{e}");
}

/// An experiment without `[workload]`: synthetic Lublin–Feitelson jobs.
fn synthetic(hosts: u32, params: &str, scheduler: &str) -> String {
    format!(
        "name = \"t\"\nfamily = \"batch\"\nreplications = 2\n{}[params]\n{params}\n\
         [[schedulers]]\nname = \"{scheduler}\"\n[outputs]\ntables = [\"jobs\"]\n",
        cluster(hosts)
    )
}

/// Each unit's (start, end) intervals from the `allocated_resources` column, sorted: none of them
/// overlap (a unit held by two jobs at once).
fn assert_no_unit_held_twice(out: &RunOutput, units: usize, what: &str) {
    let (starts, ends) = (floats(out, "starting_time"), floats(out, "finish_time"));
    let mut by_unit: Vec<Vec<(f64, f64)>> = vec![Vec::new(); units];
    for (i, set) in column(out, "allocated_resources").iter().enumerate() {
        for part in set.to_string().split(' ') {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let (a, b) = (a.parse::<usize>().unwrap(), b.parse::<usize>().unwrap());
            for unit in &mut by_unit[a..=b] {
                unit.push((starts[i], ends[i]));
            }
        }
    }
    for intervals in &mut by_unit {
        intervals.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        for w in intervals.windows(2) {
            assert!(w[0].1 <= w[1].0 || w[0].0 == w[0].1, "{what}: a unit held twice");
        }
    }
}

/// 2000 synthetic jobs on 128 hosts under FCFS and EASY: the jobs the family schedules are the
/// generator's for the run's seed (sizes, submits, requests), every one runs (the default
/// `max_size` is the platform's 128 units), none is killed (exact requests), FCFS starts them in
/// arrival order, no host is held twice, runs are deterministic and replications differ.
#[test]
fn synthetic_jobs_under_fcfs_and_easy() {
    use traces::lublin::{Lublin, LublinParams, RequestModel};
    for scheduler in ["fcfs", "easy"] {
        let text = synthetic(128, "jobs = 2000", scheduler);
        let e = load(&text).unwrap_or_else(|e| panic!("{e}"));
        assert!(e.family.draws_random_numbers(&e.runs[0].spec));
        let out = e.family.run(&e.runs[0].spec).unwrap();
        assert_eq!(
            out,
            e.family.run(&e.runs[0].spec).unwrap(),
            "{scheduler}: not deterministic"
        );
        let other = e.family.run(&e.runs[1].spec).unwrap();
        assert_ne!(out.metrics, other.metrics, "{scheduler}: replications are identical");
        let m = &out.metrics;
        assert_eq!(m["jobs_done"], 2000.0, "{scheduler}");
        assert_eq!(m["jobs_dropped"], 0.0, "{scheduler}");
        assert_eq!(m["jobs_killed"], 0.0, "{scheduler}");
        assert_eq!(m["requests_from_runtime"], 0.0, "{scheduler}");
        let expected =
            Lublin::new(LublinParams::for_machine(128))
                .unwrap()
                .jobs(e.runs[0].spec.seed, 2000, RequestModel::Exact);
        let ids: Vec<i64> = column(&out, "job_id")
            .iter()
            .map(|v| v.as_f64().unwrap() as i64)
            .collect();
        let sizes = floats(&out, "requested_number_of_resources");
        let (submits, requests) = (floats(&out, "submission_time"), floats(&out, "requested_time"));
        let held = floats(&out, "execution_time");
        for (i, id) in ids.iter().enumerate() {
            let job = &expected[(*id - 1) as usize];
            assert_eq!(
                (sizes[i], submits[i], requests[i]),
                (f64::from(job.procs), job.submit_s, job.runtime_s),
                "{scheduler}: job {id}"
            );
            assert!(
                (held[i] - job.runtime_s).abs() <= 1e-9 * job.runtime_s.max(1.0),
                "{scheduler}: job {id}"
            );
        }
        if scheduler == "fcfs" {
            let mut by_id: Vec<(i64, f64)> = ids.iter().copied().zip(floats(&out, "starting_time")).collect();
            by_id.sort_by_key(|p| p.0);
            assert!(
                by_id.windows(2).all(|w| w[0].1 <= w[1].1),
                "FCFS starts in arrival order"
            );
        }
        assert_no_unit_held_twice(&out, 128, scheduler);
        eprintln!(
            "synthetic 2000 jobs, {scheduler}: mean bounded slowdown {}, utilisation {}",
            m["mean_bounded_slowdown"], m["utilisation"]
        );
    }
    // target_load scales arrivals to the asked load: work / (units x (last - first arrival))
    // = 0.9, computed here from the jobs table, and the run's offered_load metric says so.
    let e = load(&synthetic(128, "jobs = 2000\ntarget_load = 0.9", "easy")).unwrap();
    let out = e.family.run(&e.runs[0].spec).unwrap();
    let (sizes, held) = (
        floats(&out, "requested_number_of_resources"),
        floats(&out, "execution_time"),
    );
    let work: f64 = sizes.iter().zip(&held).map(|(s, h)| s * h).sum();
    let submits = floats(&out, "submission_time");
    let last = submits.iter().copied().fold(0.0, f64::max);
    let first = submits.iter().copied().fold(f64::INFINITY, f64::min);
    let load = work / (128.0 * (last - first));
    assert!((load - 0.9).abs() < 1e-9, "{load}");
    assert!(
        (out.metrics["offered_load"] - 0.9).abs() < 1e-9,
        "{}",
        out.metrics["offered_load"]
    );
    // request_model = "factor": every request is twice the run time.
    let out = run(&synthetic(
        128,
        "jobs = 300\nrequest_model = \"factor\"\nrequest_factor = 2",
        "easy",
    ));
    for (r, h) in floats(&out, "requested_time")
        .iter()
        .zip(floats(&out, "execution_time"))
    {
        assert!((r - 2.0 * h).abs() <= 1e-9 * r, "{r} vs {h}");
    }
}

#[test]
fn synthetic_refusals_name_the_field() {
    let err = |text: String| load(&text).err().map(|e| e.to_string()).unwrap_or_default();
    let (_dir, trace) = hand_log();
    // A model parameter with a log present.
    for (params, field) in [
        ("serial_prob = 0.3", "serial_prob"),
        ("target_load = 0.5", "target_load"),
        ("daily_cycle = false", "daily_cycle"),
        ("request_model = \"exact\"", "request_model"),
    ] {
        let e = err(experiment(4, &trace, "", params, "fcfs"));
        assert!(e.contains(field) && e.contains("synthetic"), "{params}: {e}");
        assert!(e.contains("test.toml:"), "{params}: no file and line: {e}");
    }
    // Out-of-range or inconsistent values, and what is missing, without a log.
    for (params, field) in [
        ("jobs = 100\nserial_prob = 1.5", "serial_prob"),
        ("jobs = 100\nserial_prob = 0.5\npow2_prob = 0.6", "pow2_prob"),
        ("jobs = 100\nsize_low_prob = -0.1", "size_low_prob"),
        ("jobs = 100\nruntime_b1 = 0", "runtime_b1"),
        ("jobs = 100\nruntime_log_max = 0.01", "runtime_log_max"),
        ("jobs = 100\ndaily_cycle = true", "daily_cycle"),
        ("jobs = 100\nrequest_model = \"factor\"", "request_factor"),
        ("jobs = 100\nrequest_factor = 2", "request_factor"),
        ("jobs = 100\nrequest_model = \"tsafrir\"", "request_model"),
        (
            "jobs = 100\nrequest_model = \"factor\"\nrequest_factor = 0.5",
            "request_factor",
        ),
        ("jobs = 1\ntarget_load = 0.5", "target_load"),
        ("serial_prob = 0.3", "jobs"),
    ] {
        let e = err(synthetic(128, params, "easy"));
        assert!(e.contains(&format!("'{field}'")) || e.contains(field), "{params}: {e}");
        assert!(e.contains("test.toml:"), "{params}: no file and line: {e}");
    }
    // A machine too small for the default split point of the sizes.
    let e = err(synthetic(4, "jobs = 100", "easy"));
    assert!(e.contains("size_log_med"), "{e}");
}

//! The batch family's energy end to end through experiment files: a hand-worked schedule with
//! idle hosts switched off and booted (the arithmetic is in the comments), the same jobs with
//! hosts always on, and the refusals (power tables without power properties, boot and shutdown
//! settings without idle_off_s, half-modelled platforms, bad property values).

use std::path::{Path, PathBuf};

use gridsim::experiment;
use schedulers::families;
use schedulers::family::{ParamValue, RunOutput};

fn load(text: &str) -> Result<experiment::Experiment, experiment::ExperimentError> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("experiments/test.toml");
    experiment::load_str(&path, text, false, &families::all())
}

/// Two one-core hosts with the watts of SimGrid 3.32's energy_boot.xml MyHost2: idle 100 W,
/// full 200 W ("100.0:200.0", epsilon = idle), off 10 W; `second` replaces the second host's
/// properties.
fn platform(dir: &Path, second: &str) -> PathBuf {
    let path = dir.join("two.toml");
    let text = format!(
        "name = \"two\"\nrouting = \"Full\"\n\
         [[host]]\nname = \"a\"\nspeed = \"1Gf\"\nproperties = {{ wattage_per_state = \"100.0:200.0\", wattage_off = \"10\" }}\n\
         [[host]]\nname = \"b\"\nspeed = \"1Gf\"\nproperties = {second}\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

const POWERED: &str = "{ wattage_per_state = \"100.0:200.0\", wattage_off = \"10\" }";

/// Three jobs (SWF, 18 fields; run time = request):
/// 1. submit 0, 1 host, run 100;  2. submit 0, 1 host, run 20;  3. submit 300, 2 hosts, run 50.
const LOG: &str = "\
; MaxProcs: 2
1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1
2 0 -1 20 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1
3 300 -1 50 2 -1 -1 2 50 -1 1 1 1 -1 -1 -1 -1 -1
";

fn experiment(platform: &Path, log: &Path, params: &str, tables: &str) -> String {
    format!(
        "name = \"t\"\nfamily = \"batch\"\n[platform]\nfile = {platform:?}\n[workload]\ntrace = {log:?}\n\
         [params]\n{params}\n[[schedulers]]\nname = \"fcfs\"\n[outputs]\ntables = [{tables}]\n"
    )
}

fn setup(second: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("three.swf");
    std::fs::write(&log, LOG).unwrap();
    let platform = platform(dir.path(), second);
    (dir, platform, log)
}

fn run(text: &str) -> RunOutput {
    let e = load(text).unwrap_or_else(|e| panic!("{e}"));
    e.family.run(&e.runs[0].spec).unwrap()
}

fn refusal(text: &str) -> String {
    match load(text) {
        Ok(e) => match e.family.run(&e.runs[0].spec) {
            Ok(_) => panic!("accepted: {text}"),
            Err(err) => err.to_string(),
        },
        Err(e) => e.to_string(),
    }
}

fn float(v: &ParamValue) -> f64 {
    v.as_f64().unwrap()
}

// FCFS, idle_off_s = 60, boot 150 s at 120 W and shutdown 7 s at 110 W (the defaults, SimGrid's
// energy_boot example):
// t=0: job 1 on host a, job 2 on host b.  t=20: job 2 ends; b idle (timeout at 80).
// t=80: nothing queued: b shuts down 80-87, off from 87.  t=100: job 1 ends; a idle.
// t=160: a shuts down 160-167, off from 167.  t=300: job 3 needs 2 hosts, none free or booting:
// both boot 300-450.  t=450: job 3 starts, ends at 500 (the makespan); it waited 150 s.
// a: busy 0-100 (200 W: 20,000 J), idle 100-160 (6,000), shutdown (770), off 167-300 (1,330),
//    boot 300-450 (18,000), busy 450-500 (10,000): 56,100 J.
// b: busy 0-20 (4,000), idle 20-80 (6,000), shutdown (770), off 87-300 (2,130), boot (18,000),
//    busy 450-500 (10,000): 40,900 J.
// Total 97,000 J; idle 12,000 J; boots and shutdowns 37,540 J; per job 97,000 / 3.
#[test]
fn hand_worked_schedule_with_idle_hosts_switched_off() {
    let (_dir, platform, log) = setup(POWERED);
    let out = run(&experiment(&platform, &log, "idle_off_s = 60", "\"energy\", \"power\""));
    let m = &out.metrics;
    let close = |name: &str, want: f64| {
        let got = m[name];
        assert!(
            (got - want).abs() < 1e-9 * want.max(1.0),
            "{name} = {got}, expected {want}"
        );
    };
    close("makespan_s", 500.0);
    close("energy_j", 97_000.0);
    close("idle_energy_j", 12_000.0);
    close("transition_energy_j", 37_540.0);
    close("energy_per_job_j", 97_000.0 / 3.0);
    close("mean_power_w", 97_000.0 / 500.0);
    close("boots", 2.0);
    close("shutdowns", 2.0);
    // Waits 0, 0 and 150 s.
    close("mean_wait_s", 50.0);
    let energy = &out.tables["energy"];
    let rows: Vec<Vec<f64>> = energy.rows.iter().map(|r| r[2..].iter().map(float).collect()).collect();
    // busy, idle, booting, shutting down, off (s); energy, idle energy, transitions (J).
    assert_eq!(
        rows,
        vec![
            vec![150.0, 60.0, 150.0, 7.0, 133.0, 56_100.0, 6_000.0, 18_770.0],
            vec![70.0, 60.0, 150.0, 7.0, 213.0, 40_900.0, 6_000.0, 18_770.0],
        ]
    );
    // The power: 400 W from 0, 300 from 20, 310 from 80 (b shuts down), 210 from 87, 110 from
    // 100, 120 from 160, 20 from 167, 240 from 300 (both boot), 400 from 450, 200 at 500.
    let power: Vec<(f64, f64)> = out.tables["power"]
        .rows
        .iter()
        .map(|r| (float(&r[0]), float(&r[1])))
        .collect();
    assert_eq!(
        power,
        vec![
            (0.0, 400.0),
            (20.0, 300.0),
            (80.0, 310.0),
            (87.0, 210.0),
            (100.0, 110.0),
            (160.0, 120.0),
            (167.0, 20.0),
            (300.0, 240.0),
            (450.0, 400.0),
            (500.0, 200.0)
        ]
    );
    assert_eq!(float(&out.tables["power"].rows.last().unwrap()[2]), 97_000.0);
}

// Hosts always on: job 3 starts at 300, ends at 350. Closed form Σ hosts (idle × makespan +
// (full − idle) × busy): 2 × 100 × 350 + 100 × (100 + 20 + 50 + 50) = 92,000 J, less than the
// 97,000 J with idle_off_s = 60: there the two boots alone draw 36,000 J, more than the idle
// watts the off periods save (346 s at 90 W less: 31,140 J), and the run ends 150 s later.
#[test]
fn hosts_always_on_give_the_closed_form() {
    let (_dir, platform, log) = setup(POWERED);
    let out = run(&experiment(&platform, &log, "", "\"energy\""));
    assert_eq!(out.metrics["makespan_s"], 350.0);
    assert_eq!(out.metrics["energy_j"], 92_000.0);
    assert_eq!(
        out.metrics["idle_energy_j"],
        2.0 * 100.0 * 350.0 - 100.0 * (100.0 + 20.0 + 50.0 + 50.0)
    );
    assert_eq!((out.metrics["boots"], out.metrics["shutdowns"]), (0.0, 0.0));
    assert_eq!(out.metrics["mean_wait_s"], 0.0);
}

#[test]
fn refusals_name_what_is_wrong() {
    // No power property: no energy metric, and the power tables are refused.
    let (_dir, platform, log) = setup("{ role = \"worker\" }");
    let plain = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain.toml");
        std::fs::write(
            &path,
            "name = \"p\"\nrouting = \"Full\"\n[[host]]\nname = \"a\"\nspeed = \"1Gf\"\n[[host]]\nname = \"b\"\nspeed = \"1Gf\"\n",
        )
        .unwrap();
        (dir, path)
    };
    let out = run(&experiment(&plain.1, &log, "idle_off_s = 60", "\"jobs\""));
    assert!(!out.metrics.contains_key("energy_j"));
    assert_eq!(out.metrics["boots"], 2.0);
    let e = refusal(&experiment(&plain.1, &log, "", "\"power\""));
    assert!(e.contains("table 'power'") && e.contains("wattage_per_state"), "{e}");
    let e = refusal(&experiment(&plain.1, &log, "idle_off_s = 60\nboot_w = 50", "\"jobs\""));
    assert!(e.contains("boot_w") && e.contains("power properties"), "{e}");
    // Half the hosts modelled.
    let e = refusal(&experiment(&platform, &log, "", "\"jobs\""));
    assert!(
        e.contains("'a' has the property wattage_per_state") && e.contains("'b'"),
        "{e}"
    );
    // Boot and shutdown settings without idle_off_s.
    let (_d2, powered, log2) = setup(POWERED);
    for p in ["boot_s = 10", "shutdown_s = 1", "boot_w = 1", "shutdown_w = 1"] {
        let e = refusal(&experiment(&powered, &log2, p, "\"jobs\""));
        assert!(
            e.contains(p.split(' ').next().unwrap()) && e.contains("idle_off_s > 0"),
            "{p}: {e}"
        );
    }
    let e = refusal(&experiment(&powered, &log2, "idle_off_s = -1", "\"jobs\""));
    assert!(e.contains("idle_off_s"), "{e}");
    // A malformed power property.
    let (_d3, bad, log3) = setup("{ wattage_per_state = \"100:x\" }");
    let e = refusal(&experiment(&bad, &log3, "", "\"jobs\""));
    assert!(
        e.contains("host 'b'") && e.contains("wattage_per_state") && e.contains("'x'"),
        "{e}"
    );
}

#[test]
fn step_figures_draw_one_run_per_series() {
    let (_dir, platform, log) = setup(POWERED);
    let base = experiment(&platform, &log, "idle_off_s = [0, 60]", "\"power\"");
    let step = |extra: &str| {
        format!(
            "{base}[[figures]]\nname = \"p\"\nkind = \"step\"\nsource = \"power\"\nx = \"time_s\"\ny = \"watts\"\n\
             series = \"idle_off_s\"\n{extra}"
        )
    };
    load(&step("")).unwrap_or_else(|e| panic!("{e}"));
    let refused = |text: &str, want: &str| {
        let e = load(text).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains(want), "lacks '{want}': {e}");
    };
    refused(
        &step("").replace("source = \"power\"\n", ""),
        "a step line draws the rows of a per-run table",
    );
    refused(&step("x_log = true"), "a step line has a linear x axis");
    refused(&step("error_bars = false"), "a step line draws one run per series");
    refused(
        &step("").replace("series = \"idle_off_s\"\n", ""),
        "column 'idle_off_s' varies (0, 60) but is not series or panels",
    );
    refused(
        &step("").replace("name = \"t\"\n", "name = \"t\"\nreplications = 2\n"),
        "column 'replication' varies (0, 1)",
    );
}

//! The batch family's energy end to end through experiment files: a hand-worked schedule with
//! idle hosts switched off and booted (the arithmetic is in the comments), the same jobs with
//! hosts always on, and the refusals (power tables without power properties, boot and shutdown
//! settings without idle_off_s, half-modelled platforms, bad property values), step figures'
//! checks, and each host's joules against SimGrid 3.32's host energy plugin replaying the same
//! activity (`scripts/simgrid_energy_peer.py`; needs python3-simgrid, as the SimGrid agreement
//! tests do).

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

// Both hosts start in pstate 1 of two, whose range is idle 50 W, full 80 W (pstate 0's is 100 and
// 200 W): the family never changes a pstate, so only pstate 1's range is drawn. Same jobs, hosts
// always on: makespan 350 s; a busy 100 + 50 s, b busy 20 + 50 s.
// 2 × 50 W × 350 s + (80 − 50) W × (150 + 70) s = 35,000 + 6,600 = 41,600 J.
#[test]
fn energy_is_drawn_at_the_pstate_each_host_starts_in() {
    let (dir, _, log) = setup(POWERED);
    let host = |id: &str| {
        format!(
            "<host id=\"{id}\" speed=\"1Gf,1Gf\" pstate=\"1\">\
             <prop id=\"wattage_per_state\" value=\"100.0:200.0, 50.0:80.0\"/>\
             <prop id=\"wattage_off\" value=\"10\"/></host>"
        )
    };
    let xml = format!(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n\
         <platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">{}{}</zone></platform>\n",
        host("a"),
        host("b")
    );
    let platform = dir.path().join("pstates.xml");
    std::fs::write(&platform, xml).unwrap();
    let out = run(&experiment(&platform, &log, "", "\"energy\""));
    assert_eq!(out.metrics["makespan_s"], 350.0);
    assert_eq!(out.metrics["energy_j"], 41_600.0);
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
    // A malformed power property: refused when the platform loads, at its line.
    let (_d3, bad, log3) = setup("{ wattage_per_state = \"100:x\" }");
    let e = refusal(&experiment(&bad, &log3, "", "\"jobs\""));
    assert!(
        e.contains("two.toml:7: host 'b'") && e.contains("wattage_per_state") && e.contains("\"x\""),
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

/// Runs `jobs` under `policy` on `hosts` one-core hosts ("100:120:200" W, off 10 W), switching
/// idle hosts off after 60 s when `idle_off`, and returns gridsim's joules per host and SimGrid
/// 3.32's for the same host activity (`scripts/simgrid_energy_peer.py`: SimGrid's host energy
/// plugin, boot and shutdown as zero-speed pstates as in its energy_boot example).
fn against_simgrid(
    jobs: &[schedulers::batch::BatchJob],
    hosts: u32,
    policy: &str,
    idle_off: bool,
) -> (Vec<f64>, Vec<f64>) {
    use schedulers::batch::energy::{account, Machine};
    use schedulers::batch::{simulate_powered, JobResult, PowerSaving, PowerState, SimConfig};
    use sim_core::energy::{HostPower, PowerRange};

    let config = SimConfig {
        units: hosts,
        kill_at_walltime: true,
    };
    let saving = idle_off.then(|| PowerSaving {
        hosts: (0..hosts).map(|h| h..h + 1).collect(),
        idle_off_s: 60.0,
        boot_s: 150.0,
        shutdown_s: 7.0,
    });
    let mut p = schedulers::batch::registry::build(policy, &Default::default()).unwrap();
    let out = simulate_powered(jobs, config, None, None, saving.as_ref(), p.as_mut()).unwrap();
    let end = out.jobs.iter().map(|r| r.end_s).fold(0.0, f64::max);
    let model = HostPower {
        ranges: vec![PowerRange {
            idle: 100.0,
            epsilon: 120.0,
            full: 200.0,
        }],
        off: 10.0,
    };
    let models: Vec<(HostPower, u32)> = (0..hosts).map(|_| (model.clone(), 1)).collect();
    let unit_host: Vec<u32> = (0..hosts).collect();
    let machine = Machine {
        hosts: &models,
        unit_host: &unit_host,
        boot_w: 120.0,
        shutdown_w: 110.0,
    };
    let executions: Vec<&JobResult> = out.jobs.iter().chain(&out.requeued).collect();
    let (energy, _) = account(&machine, &executions, &[], &out.power, end);
    let ours: Vec<f64> = energy.iter().map(|e| e.joules()).collect();

    let mut spec = serde_json::json!({
        "speed": 1e6, "end": end, "boot_w": 120.0, "shutdown_w": 110.0,
        "hosts": (0..hosts).map(|h| serde_json::json!({
            "name": format!("h{h}"), "wattage_per_state": "100:120:200", "wattage_off": 10.0
        })).collect::<Vec<_>>(),
    });
    let mut execs = Vec::new();
    for r in &executions {
        for &(a, b) in &r.units {
            for u in a..=b {
                execs.push(serde_json::json!({"host": u, "start": r.start_s, "end": r.end_s}));
            }
        }
    }
    spec["executions"] = execs.into();
    let name = |s: PowerState| match s {
        PowerState::On => "On",
        PowerState::ShuttingDown => "ShuttingDown",
        PowerState::Off => "Off",
        PowerState::Booting => "Booting",
    };
    spec["power"] = out
        .power
        .iter()
        .map(|c| serde_json::json!({"host": c.host, "date": c.date, "state": name(c.state)}))
        .collect::<Vec<_>>()
        .into();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/simgrid_energy_peer.py");
    let run = std::process::Command::new("/usr/bin/python3")
        .arg(&script)
        .arg(&path)
        .output()
        .expect("/usr/bin/python3 must exist (install python3-simgrid: scripts/test.sh does)");
    assert!(
        run.status.success(),
        "the SimGrid energy peer failed (is python3-simgrid installed? scripts/test.sh installs it):\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let theirs: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let theirs = theirs["joules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    (ours, theirs)
}

// The energy of every host agrees with SimGrid 3.32's host energy plugin replaying the same
// activity (executions at full load, idle, epsilon's jump, boots, shutdowns, off periods), to
// 1e-6 relative (SimGrid logs joules with 6 decimals), on seeded job lists under three policies.
// Needs Debian's python3-simgrid, as the SimGrid agreement tests do; without it this fails.
#[test]
fn host_energy_agrees_with_simgrid() {
    let mut state = 12345u64;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    for case in 0..4u64 {
        let hosts = 2 + case % 3;
        let jobs: Vec<schedulers::batch::BatchJob> = (0..25)
            .map(|i| {
                let run = next(400) as f64;
                schedulers::batch::BatchJob {
                    id: i,
                    submit_s: next(4000) as f64,
                    size: 1 + next(hosts) as u32,
                    request_s: run + next(100) as f64,
                    runtime_s: run,
                }
            })
            .collect();
        for policy in ["fcfs", "easy", "conservative"] {
            for idle_off in [false, true] {
                let (ours, theirs) = against_simgrid(&jobs, hosts as u32, policy, idle_off);
                assert_eq!(ours.len(), theirs.len());
                for (h, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-6 * b.abs().max(1.0),
                        "case {case} {policy} idle_off {idle_off} host {h}: gridsim {a} J, SimGrid {b} J"
                    );
                }
            }
        }
    }
}

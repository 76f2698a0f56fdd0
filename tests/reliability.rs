//! Regressions for defects of issue 17 fixed so far: a closed pipe ends the process quietly, a
//! run that can never progress ends and says so, sizes that cannot fit are refused, a resumed
//! sweep removes the temporaries of a killed one, an
//! infinite metric fails its run by name, `--jobs` above the core count is
//! warned about, replay refuses negative amounts and names its file, and type errors in
//! experiment files name the field in plain words. And of issue 38: a replay ends whatever its
//! profiles, `validate` warns about profiles finer than the engine's time precision, and
//! memory checks read the address-space limit (and cgroup limits: unit tests in `memory.rs`).

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

mod support;
use support::{Gridsim, Outcome};

#[test]
fn a_closed_pipe_ends_the_process_without_a_panic() {
    // The reader is gone before gridsim starts: every write meets a broken pipe. (Closing the
    // read end after spawning raced with a fast `list` that filled the pipe's buffer first.)
    let stdout = closed_pipe();
    let out = Gridsim::new().arg("list").stdout(stdout).run();
    let stderr = &out.stderr;
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Ended by SIGPIPE as Unix tools are (shell status 141), never Rust's panic status 101.
    assert_ne!(out.code, Some(101), "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(13), "{:?} {stderr}", out.status);
    }
}

/// The write end of a pipe whose read end is already closed.
#[cfg(unix)]
fn closed_pipe() -> Stdio {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills two new descriptors; each is owned exactly once below.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Stdio::from(write)
}

fn experiment(dir: &std::path::Path, text: &str) -> PathBuf {
    let path = dir.join("e.toml");
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    path
}

#[test]
fn an_infinite_metric_fails_the_run_by_name() {
    // 20 tasks of 1e308 flops in one chunk: the chunk's 2e309 flops overflow to infinity, and
    // so does the makespan.
    let dir = tempfile::tempdir().unwrap();
    let platform = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/walfc6.toml");
    let path = experiment(
        dir.path(),
        &format!(
            "name = \"inf\"\nfamily = \"bot\"\n[platform]\nfile = {:?}\n[params]\ntasks = 40\ntask_flops = 1e308\n\
             [[schedulers]]\nname = \"wq\"\nparams = {{ chunk = 20 }}\n",
            platform.display().to_string()
        ),
    );
    let out = Gridsim::new()
        .args(["run", "--no-plots", "--out"])
        .arg(dir.path())
        .arg(&path)
        .run();
    let stderr = &out.stderr;
    assert_eq!(out.code, Some(1), "{stderr}");
    assert!(
        stderr.contains("metric 'makespan_s' is inf, not a finite number"),
        "{stderr}"
    );
    assert!(!dir.path().join("results/inf/runs.csv").exists());
}

#[test]
fn more_jobs_than_cores_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let out = Gridsim::new()
        .args(["run", "--quick", "--no-plots", "--jobs", "100000", "--out"])
        .arg(dir.path())
        .arg("experiments/wal-datasize.toml")
        .run();
    let stderr = &out.stderr;
    assert!(out.ok, "{stderr}");
    assert!(stderr.contains("--jobs 100000 is more than the"), "{stderr}");
}

fn replay(dir: &std::path::Path, activities: &str) -> Outcome {
    let platforms = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/platforms/cluster.xml");
    let path = dir.join("s.json");
    let text = format!(
        "{{\"platform\": {:?}, \"activities\": [{activities}]}}",
        platforms.display().to_string()
    );
    std::fs::write(&path, text).unwrap();
    Gridsim::new().arg("replay").arg(&path).run()
}

#[test]
fn replay_refuses_negative_amounts_and_names_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    // Before the fix this transfer "completed" at once with failed: false.
    let out = replay(
        dir.path(),
        r#"{"kind": "comm", "src": "node-1.acme", "dst": "node-0.acme", "bytes": -1e6, "start": 0.0}"#,
    );
    let stderr = &out.stderr;
    assert_eq!(out.code, Some(1), "{stderr}");
    assert!(
        stderr.contains("s.json:1: activity 0: field bytes: -1000000 is not a finite number >= 0"),
        "{stderr}"
    );
    let out = replay(
        dir.path(),
        r#"{"kind": "exec", "host": "nobody", "flops": 1e9, "start": 0.0}"#,
    );
    let stderr = &out.stderr;
    assert!(
        stderr.contains("s.json:1: activity 0: field host: unknown host 'nobody'"),
        "{stderr}"
    );
}

#[test]
fn type_errors_name_the_field_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "seed = \"abc\"",
            "e.toml:3:8: seed: invalid type: string \"abc\", expected an integer",
        ),
        (
            "replications = 1.5",
            "e.toml:3:16: replications: invalid type: floating point `1.5`, expected an integer",
        ),
    ];
    for (line, expected) in cases {
        let path = experiment(
            dir.path(),
            &format!(
                "name = \"x\"\nfamily = \"bot\"\n{line}\n[platform]\nfile = \"a\"\n[[schedulers]]\nname = \"wq\"\n"
            ),
        );
        let out = Gridsim::new().arg("validate").arg(&path).run();
        let stderr = &out.stderr;
        assert_eq!(out.code, Some(1), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(!stderr.contains("i64"), "{stderr}");
    }
    // A key inside a table is named with its table.
    let path = experiment(
        dir.path(),
        "name = \"x\"\nfamily = \"bot\"\n[platform]\nfile = \"a\"\n[[schedulers]]\nname = \"wq\"\n[workload]\ntrace = \"t\"\nwindow_s = \"a\"\n",
    );
    let out = Gridsim::new().arg("validate").arg(&path).run();
    let stderr = &out.stderr;
    assert!(
        stderr.contains("e.toml:9:12: workload.window_s: invalid type: string \"a\", expected a list"),
        "{stderr}"
    );
}

#[test]
fn a_run_that_can_never_progress_ends_and_says_so() {
    // Issue 17 item 2: a host whose speed drops to 0 for good, with a periodic profile
    // elsewhere, used to spin `gridsim replay` at 100% CPU for ever.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("stuck.txt"), "0 1\n1 0\n").unwrap();
    std::fs::write(dir.path().join("per.txt"), "PERIODICITY 10\n0 1\n5 0.5\n").unwrap();
    std::fs::write(
        dir.path().join("p.xml"),
        r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf" speed_file="stuck.txt"/>
    <host id="b" speed="1Gf" speed_file="per.txt"/>
  </zone>
</platform>"#,
    )
    .unwrap();
    let scenario = dir.path().join("s.json");
    std::fs::write(
        &scenario,
        r#"{"platform": "p.xml", "activities": [
            {"kind": "exec", "host": "a", "flops": 1e10, "start": 0},
            {"kind": "exec", "host": "b", "flops": 1e9, "start": 0}]}"#,
    )
    .unwrap();
    let out = Gridsim::new().arg("replay").arg(&scenario).run();
    // An activity that does not finish fails the command, naming the scenario.
    let stderr = &out.stderr;
    assert_eq!(out.code, Some(1), "{stderr}");
    assert!(
        stderr.contains("s.json: 1 of 2 activities did not finish")
            && stderr.contains("s.json:2: activity 0: never completes: its resources can no longer let it progress"),
        "{stderr}"
    );
    let text = &out.stdout;
    assert!(
        text.contains(r#""finish":null,"failed":true,"error":"never completes"#),
        "{text}"
    );
    assert!(
        text.contains(r#""index":1,"kind":"exec","start":0.0,"finish":1.0,"failed":false"#),
        "{text}"
    );
}

/// Runs `gridsim replay` on a scenario of one 1000-byte comm from a to b over a 7e15 s latency
/// link, host a having `profile` (XML attributes) or none; kills it after 60 s (a hang).
fn replay_7e15_latency(profile: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("per.txt"), "PERIODICITY 10\n0 1\n5 0.5\n").unwrap();
    std::fs::write(
        dir.path().join("p.xml"),
        format!(
            r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf" {profile}/>
    <host id="b" speed="1Gf"/>
    <link id="l" bandwidth="10MBps" latency="7e15s"/>
    <route src="a" dst="b"><link_ctn id="l"/></route>
  </zone>
</platform>"#
        ),
    )
    .unwrap();
    let scenario = dir.path().join("s.json");
    std::fs::write(
        &scenario,
        r#"{"platform": "p.xml", "activities": [{"kind": "comm", "src": "a", "dst": "b", "bytes": 1000, "start": 0}]}"#,
    )
    .unwrap();
    let out = Gridsim::new()
        .arg("replay")
        .arg(&scenario)
        .timeout(Duration::from_secs(60))
        .run();
    (out.code, out.stdout, out.stderr)
}

#[test]
fn a_periodic_profile_no_activity_uses_does_not_hold_a_replay_back() {
    // The comm's latency phase ends at 13.01 × 7e15 s; a speed profile of period
    // 10 s on one of its hosts (which a comm does not use) made that 2e16 profile events, and
    // the replay never ended. It ends, with the date it has without the profile.
    let (code, alone, stderr) = replay_7e15_latency("");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        alone.contains(r#""finish":9.107344109289426e+16,"failed":false"#),
        "{alone}"
    );
    let (code, with_profile, stderr) = replay_7e15_latency(r#"speed_file="per.txt""#);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(with_profile, alone);
}

#[test]
fn sizes_that_cannot_fit_are_refused_with_the_parameter_named() {
    // Issue 17 item 1: these were accepted by validate and then panicked or aborted.
    let dir = tempfile::tempdir().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let skeletons = std::fs::read_to_string(root.join("experiments/skeletons.toml")).unwrap();
    let huge_n = skeletons.replace("n = [256, 512, 1024, 2048]", "n = 1000000000000");
    assert_ne!(huge_n, skeletons);
    let file = experiment(dir.path(), &huge_n);
    let out = Gridsim::new().arg("validate").arg(&file).run();
    let stderr = &out.stderr;
    assert!(!out.ok && stderr.contains("parameter 'n'"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // A timeline window so small the table would need 10^11 rows: the run fails, named.
    let adaptive = std::fs::read_to_string(root.join("experiments/amoget-adaptive.toml")).unwrap();
    let tiny = adaptive.replace("timeline_window_s = 250", "timeline_window_s = 1e-9");
    assert_ne!(tiny, adaptive);
    let tiny = tiny.replace("../platforms/", &format!("{}/platforms/", root.display()));
    let file = experiment(dir.path(), &tiny);
    let out = Gridsim::new()
        .args(["run", "--quick", "--no-plots", "--out"])
        .arg(dir.path())
        .arg(&file)
        .run();
    let stderr = &out.stderr;
    assert!(!out.ok, "{stderr}");
    assert!(stderr.contains("timeline_window_s"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_resumed_sweep_removes_the_temporaries_a_killed_one_left() {
    // Issue 17 item 8: `kill -9` during a write leaves `.tmp-*` files; resume removed none.
    let dir = tempfile::tempdir().unwrap();
    let platform = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml");
    let file = experiment(
        dir.path(),
        &format!(
            "name = \"tmp\"\nfamily = \"bot\"\n[platform]\nfile = \"{}\"\n[params]\ntasks = 40\n\
             task_flops = 1e9\nnodes = 8\n[[schedulers]]\nname = \"gss\"\n",
            platform.display()
        ),
    );
    let results = dir.path().join("o/results/tmp");
    std::fs::create_dir_all(results.join("runs.d")).unwrap();
    let orphans = [results.join(".tmp-abc123"), results.join("runs.d/.tmp-def456")];
    for orphan in &orphans {
        std::fs::write(orphan, vec![0u8; 1 << 20]).unwrap();
    }
    let out = Gridsim::new()
        .args(["run", "--out"])
        .arg(dir.path().join("o"))
        .arg(&file)
        .run();
    assert!(out.ok, "{}", out.stderr);
    for orphan in &orphans {
        assert!(!orphan.exists(), "{} is still there", orphan.display());
    }
    assert!(results.join("runs.csv").exists());
}

/// A two-point bag-of-tasks sweep whose second point would run for ever (2^63 - 1 tasks),
/// under `limits`.
fn pathological_sweep(dir: &std::path::Path, limits: &str) -> PathBuf {
    let platform = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/walfc6.toml");
    experiment(
        dir,
        &format!(
            "name = \"lim\"\nfamily = \"bot\"\n[platform]\nfile = {:?}\n[params]\n\
             tasks = [100, 9223372036854775807]\ntask_flops = 1e8\n[limits]\n{limits}\n\
             [[schedulers]]\nname = \"wq\"\n",
            platform.display().to_string()
        ),
    )
}

fn run_sweep(dir: &std::path::Path, file: &std::path::Path) -> (bool, String, String) {
    let out = Gridsim::new()
        .args(["run", "--no-plots", "--out"])
        .arg(dir)
        .arg(file)
        .run();
    let runs = std::fs::read_to_string(dir.join("results/lim/runs.csv")).unwrap_or_default();
    (out.ok, out.stderr, runs)
}

#[test]
fn a_sweep_with_a_run_that_never_ends_finishes_under_limits_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = pathological_sweep(dir.path(), "events = 1e6");
    let (ok, stderr, runs) = run_sweep(dir.path(), &file);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("[limits] stopped 1 run(s)"), "{stderr}");
    let rows: Vec<&str> = runs.lines().collect();
    assert!(rows[0].ends_with(",events,stopped"), "{runs}");
    // The sound point is complete; the other has no metric and says why.
    assert!(rows[1].starts_with("0,100,wq,") && rows[1].ends_with(','), "{runs}");
    assert!(rows[2].contains(",,,,,"), "{runs}");
    assert!(
        rows[2].ends_with("[limits] events = 1000000: stopped after 1003520 events"),
        "{runs}"
    );
    // Resumed under the same limits, nothing runs again; under other limits, the stopped run
    // does (and only it).
    let (_, stderr, _) = run_sweep(dir.path(), &file);
    assert!(!stderr.contains("stopped"), "{stderr}");
    let file = pathological_sweep(dir.path(), "events = 2e6");
    let (ok, stderr, runs) = run_sweep(dir.path(), &file);
    assert!(ok && stderr.contains("1/1 runs done"), "{stderr}");
    assert!(runs.contains("[limits] events = 2000000: stopped after"), "{runs}");
}

#[test]
fn a_wall_clock_budget_stops_a_run_that_would_never_end() {
    let dir = tempfile::tempdir().unwrap();
    let file = pathological_sweep(dir.path(), "wall_s = 0.5");
    let (ok, stderr, runs) = run_sweep(dir.path(), &file);
    assert!(ok, "{stderr}");
    assert!(runs.contains("[limits] wall_s = 0.5: stopped after"), "{runs}");
}

#[test]
fn limits_that_are_not_numbers_or_out_of_range_are_named() {
    let dir = tempfile::tempdir().unwrap();
    for (limits, message) in [
        (
            "events = \"many\"",
            "e.toml:9:10: limits.events: must be a number, not string",
        ),
        ("events = 0", "e.toml:9:10: limits.events: must be between 1 and"),
        (
            "events = 1.5",
            "limits.events: must be a whole number of events, not 1.5",
        ),
        ("wall_s = -1", "e.toml:9:10: limits.wall_s: must be between 0.001 and"),
        (
            "memory = 1",
            "e.toml:9:1: unknown field `memory`, expected `events` or `wall_s`",
        ),
    ] {
        let file = pathological_sweep(dir.path(), limits);
        let out = Gridsim::new().arg("validate").arg(&file).run();
        let stderr = &out.stderr;
        assert_eq!(out.code, Some(1), "{stderr}");
        assert!(stderr.contains(message), "{limits}: {stderr}");
    }
}

#[test]
fn what_cannot_fit_in_memory_is_refused_before_it_starts_with_the_amount() {
    // Two billion pending sleeps need far more memory than any machine has: refused up front,
    // before the queue starts to grow.
    let out = Gridsim::new()
        .args(["bench", "engine", "--pending", "2000000000", "--repeat", "1"])
        .run();
    let stderr = &out.stderr;
    assert_eq!(out.code, Some(1), "{stderr}");
    assert!(
        stderr.contains("--pending 2000000000 would need about 260.0 GB of memory; this "),
        "{stderr}"
    );
    // 2^63 - 1 tasks with the chunks table: a table of one row per chunk that no memory holds.
    let dir = tempfile::tempdir().unwrap();
    let platform = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/walfc6.toml");
    let file = experiment(
        dir.path(),
        &format!(
            "name = \"huge\"\nfamily = \"bot\"\n[platform]\nfile = {:?}\n[params]\n\
             tasks = 9223372036854775807\ntask_flops = 1e8\n[[schedulers]]\nname = \"wq\"\n\
             [outputs]\ntables = [\"chunks\"]\n",
            platform.display().to_string()
        ),
    );
    let out = Gridsim::new().arg("validate").arg(&file).run();
    let stderr = &out.stderr;
    assert_eq!(out.code, Some(1), "{stderr}");
    assert!(
        stderr.contains("e.toml:6:1: params.tasks: family 'bot' rejects run")
            && stderr.contains("the run's chunks table (parameter 'tasks' = 9223372036854775807) would need about"),
        "{stderr}"
    );
}

#[test]
fn validate_warns_about_profiles_finer_than_the_engines_time_precision() {
    // A state profile whose events come 1e-12 s apart makes 1e12 events a simulated
    // second; its runs can only end by their event budget. validate says so, and still passes.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("fast.txt"), "PERIODICITY 2e-12\n0 1\n1e-12 0\n").unwrap();
    std::fs::write(dir.path().join("slow.txt"), "PERIODICITY 6e-9\n0 1\n3e-9 0\n").unwrap();
    let platform = |state_file: &str| {
        format!(
            r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="m" speed="1Gf"/>
    <host id="w1" speed="1Gf" state_file="{state_file}"/>
    <host id="w2" speed="1Gf" state_file="{state_file}"/>
    <link id="l" bandwidth="10MBps" latency="1ms"/>
    <route src="m" dst="w1"><link_ctn id="l"/></route>
    <route src="m" dst="w2"><link_ctn id="l"/></route>
  </zone>
</platform>"#
        )
    };
    std::fs::write(dir.path().join("fast.xml"), platform("fast.txt")).unwrap();
    std::fs::write(dir.path().join("slow.xml"), platform("slow.txt")).unwrap();
    let validate = |platform: &str, availability: &str| {
        let file = experiment(
            dir.path(),
            &format!(
                "name = \"w\"\nfamily = \"bot\"\n[platform]\nfile = \"{platform}\"\n{availability}\
                 [params]\ntasks = 10\ntask_flops = 1e9\n[[schedulers]]\nname = \"wq\"\n"
            ),
        );
        let out = Gridsim::new().arg("validate").arg(&file).run();
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        out.stderr
    };
    let stderr = validate("fast.xml", "");
    assert!(stderr.starts_with("gridsim: warning: "), "{stderr}");
    assert!(
        stderr.contains(
            "e.toml: platform 'fast.xml': host 'w1' (and 1 other host): state profile: \
             events 1e-12 s apart, closer than the engine's time precision (1e-9 s)"
        ),
        "{stderr}"
    );
    // 3e-9 s apart is within the engine's precision: no warning.
    assert!(!validate("slow.xml", "").contains("warning"));
    // A SimGrid profile given as [platform.availability] is named by its trace file.
    let stderr = validate(
        "slow.xml",
        "[platform.availability]\ntrace = \"fast.txt\"\nformat = \"profile\"\n",
    );
    assert!(
        stderr.contains("e.toml: platform.availability.trace 'fast.txt': the state profile: events 1e-12 s apart"),
        "{stderr}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_sweep_beyond_the_address_space_limit_is_refused_before_it_is_expanded() {
    // Under `ulimit -v`, validate once of a 2.6-million-run sweep checked MemAvailable
    // only, went on, and aborted with "memory allocation of 9 bytes failed". Under a 1 GB
    // address-space limit it refuses at once, with the amount and the limit.
    let dir = tempfile::tempdir().unwrap();
    let platform = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/walfc6.toml");
    let tasks: Vec<String> = (1..=1300).map(|t| t.to_string()).collect();
    let file = experiment(
        dir.path(),
        &format!(
            "name = \"big\"\nfamily = \"bot\"\nreplications = 2000\n[platform]\nfile = {:?}\n[params]\n\
             task_flops = 1e8\ntask_cv = 0.5\ntasks = [{}]\n[[schedulers]]\nname = \"wq\"\n",
            platform.display().to_string(),
            tasks.join(", ")
        ),
    );
    let started = std::time::Instant::now();
    let out = Gridsim::new()
        .arg("validate")
        .arg(&file)
        .address_space_limit(1 << 30)
        .run();
    let stderr = &out.stderr;
    assert_eq!(out.code, Some(1), "{stderr}");
    assert!(
        // The estimate follows the size of a run's description, which grows with the code.
        stderr.contains("expanding the sweep's 2600000 runs would need about ")
            && stderr.contains(" GB of memory; this process has")
            && stderr.contains("available under its address-space limit (RLIMIT_AS"),
        "{stderr}"
    );
    assert!(started.elapsed().as_secs() < 30, "took {:?}", started.elapsed());
}

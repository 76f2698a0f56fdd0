//! Issue 38: a run never reports a number for work it did not finish, a parameter a family would
//! override is refused, and resuming a sweep under tighter `[limits]` gives what `--fresh` gives.

use std::path::{Path, PathBuf};

use gridsim::output::CsvTable;

mod support;
use support::{finish, gridsim, Gridsim};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Two workers whose FTA trace ends at 3000 s: node 1 is available from 0 to 3000 s, node 2
/// from 0 to 1000 s; with `gaps = "off"` both are off for good afterwards.
const TRACE_ENDING_AT_3000_S: &str = "\
event_id\tcomponent_id\tnode_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\tevent_end_time\tevent_end_reason
1\t1\t1\t1\tw1\t1\t1000000000\t1000003000\tNULL
2\t1\t2\t1\tw2\t1\t1000000000\t1000001000\tNULL
";

/// A bag of tasks on a master and two workers; `tasks` tasks of 10 s each.
fn bot_experiment(tasks: &str) -> String {
    format!(
        "name = \"ends\"\nfamily = \"bot\"\n\
         [platform]\ngenerator = \"homogeneous_cluster\"\n\
         params = {{ hosts = 3, speed_flops = 1e9, bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, \
         backbone_bandwidth_bytes_per_s = 1.25e9, backbone_latency_s = 5e-4 }}\n\
         [platform.availability]\ntrace = \"trace.tab\"\nexclude = [\"node-0\"]\n\
         [params]\ntasks = {tasks}\ntask_flops = 1e10\nmaster = \"node-0\"\nnodes = 3\n\
         [[schedulers]]\nname = \"wq\"\n\
         [[figures]]\nname = \"makespan\"\nx = \"tasks\"\ny = \"makespan_s\"\n"
    )
}

#[test]
fn a_run_whose_workers_are_off_for_good_reports_no_makespan() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "trace.tab", TRACE_ENDING_AT_3000_S);
    // 100 tasks fit in the 4000 worker-seconds the trace offers; 10,000 do not.
    write(dir.path(), "e.toml", &bot_experiment("[100, 10000]"));
    let out = gridsim(dir.path(), ["run", "e.toml", "--out", "o", "--jobs", "1"]);
    let err = &out.stderr;
    assert!(out.ok, "{err}");
    assert!(
        err.contains("warning: 1 run(s) could not finish their work and have no result"),
        "{err}"
    );
    let runs = CsvTable::read(&dir.path().join("o/results/ends/runs.csv")).unwrap();
    let col = |name: &str| runs.column(name).unwrap_or_else(|| panic!("no column {name}"));
    let (tasks, makespan, done, stopped) = (col("tasks"), col("makespan_s"), col("tasks_done"), col("stopped"));
    assert_eq!(runs.rows.len(), 2);
    // 100 tasks: 2 workers at 10 s a task, 50 tasks each, done by about 500 s.
    let complete = &runs.rows[0];
    assert_eq!((complete[tasks].as_str(), complete[done].as_str()), ("100", "100"));
    assert!(complete[makespan].parse::<f64>().unwrap() < 1000.0);
    assert_eq!(complete[stopped], "");
    // 10,000 tasks: no metric at all, and the reason says how much was done. Node 2 computes
    // 100 tasks before 1000 s, node 1 300 before 3000 s (a task lost at each host's end).
    let incomplete = &runs.rows[1];
    assert_eq!(incomplete[tasks], "10000");
    assert_eq!(incomplete[makespan], "");
    assert_eq!(incomplete[done], "");
    assert!(
        incomplete[stopped].starts_with("incomplete: ") && incomplete[stopped].contains(" of 10000 tasks done"),
        "{}",
        incomplete[stopped]
    );
    let done_text = incomplete[stopped].trim_start_matches("incomplete: ");
    let done: u64 = done_text.split(' ').next().unwrap().parse().unwrap();
    assert!((390..=400).contains(&done), "{done}");
    // The figure is drawn from the complete run and says what it left out.
    let svg = std::fs::read_to_string(dir.path().join("o/plots/ends/makespan.svg")).unwrap();
    assert!(
        svg.contains("1 run(s) left out"),
        "the figure does not say it left a run out"
    );
}

#[test]
fn an_incomplete_run_is_reused_on_resume_and_its_record_kept() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "trace.tab", TRACE_ENDING_AT_3000_S);
    write(dir.path(), "e.toml", &bot_experiment("[100, 10000]"));
    let first = gridsim(dir.path(), ["run", "e.toml", "--out", "o", "--no-plots"]);
    assert!(first.ok, "{}", first.stderr);
    let again = gridsim(dir.path(), ["run", "e.toml", "--out", "o", "--no-plots"]);
    let out = &again.stdout;
    assert!(out.contains("2 already done, 0 run now"), "{out}");
    assert!(first.stderr.contains("1 run(s) could not finish"));
}

#[test]
fn resuming_under_tighter_limits_gives_what_a_fresh_sweep_gives() {
    let dir = tempfile::tempdir().unwrap();
    let experiment = |limits: &str| {
        format!(
            "name = \"lim\"\nfamily = \"bot\"\n{limits}\
             [platform]\nfile = {:?}\n\
             [params]\ntasks = [200, 20000]\ntask_flops = 1e8\nnodes = 8\n\
             [[schedulers]]\nname = \"wq\"\n",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml")
        )
    };
    let runs_csv = |out: &str| std::fs::read_to_string(dir.path().join(out).join("results/lim/runs.csv")).unwrap();
    // Unbounded first: both runs complete.
    write(dir.path(), "e.toml", &experiment(""));
    let out = gridsim(dir.path(), ["run", "e.toml", "--out", "o", "--no-plots"]);
    assert!(out.ok, "{}", out.stderr);
    assert!(!runs_csv("o").contains("stopped"));
    // A budget the 20,000-task run exceeds (it takes more than 40,000 events) but the
    // 200-task one does not.
    write(dir.path(), "e.toml", &experiment("[limits]\nevents = 20000\n"));
    let resumed = gridsim(dir.path(), ["run", "e.toml", "--out", "o", "--no-plots"]);
    assert!(resumed.ok, "{}", resumed.stderr);
    let stdout = &resumed.stdout;
    assert!(stdout.contains("1 already done, 1 run now"), "{stdout}");
    let fresh = gridsim(dir.path(), ["run", "e.toml", "--out", "f", "--no-plots"]);
    assert!(fresh.ok, "{}", fresh.stderr);
    assert!(runs_csv("f").contains("[limits] events = 20000: stopped after"));
    assert_eq!(runs_csv("o"), runs_csv("f"));
}

#[test]
fn load_scale_is_refused_where_the_family_sets_the_load_itself() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "name = \"ls\"\nfamily = \"cluster\"\n\
         [platform]\nfile = {:?}\n\
         [workload]\ntrace = {:?}\nserial_only = true\nfirst = 500\nload_scale = 2.0\n\
         [params]\njobs = 100\n\
         [[schedulers]]\nname = \"nlb\"\n",
        Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/walfc6.toml"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/data/KTH-SP2-1996-2.1-cln.swf.gz"),
    );
    write(dir.path(), "e.toml", &text);
    let out = gridsim(dir.path(), ["validate", "e.toml"]);
    let err = &out.stderr;
    assert_eq!(out.code, Some(1), "{err}");
    assert!(err.contains("e.toml:9:"), "{err}");
    assert!(err.contains("workload.load_scale"), "{err}");
    assert!(err.contains("'cpu_load'"), "{err}");
}

#[test]
fn ctrl_c_stores_finished_runs_says_so_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    // Eight runs of a few seconds each: the interrupt comes after the first is stored.
    let text = format!(
        "name = \"long\"\nfamily = \"bot\"\n[platform]\nfile = {:?}\n\
         [params]\ntasks = [3000000, 3000001, 3000002, 3000003, 3000004, 3000005, 3000006, 3000007]\n\
         task_flops = 1e8\n[[schedulers]]\nname = \"wq\"\n",
        Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml")
    );
    write(dir.path(), "e.toml", &text);
    let child = Gridsim::new()
        .current_dir(dir.path())
        .args(["run", "e.toml", "--out", "o", "--no-plots", "--jobs", "1"])
        .spawn();
    let records = dir.path().join("o/results/long/runs.d");
    let count = || std::fs::read_dir(&records).map_or(0, |d| d.filter(|e| e.is_ok()).count());
    let start = std::time::Instant::now();
    while count() == 0 {
        assert!(start.elapsed().as_secs() < 300, "no run was stored in 300 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: sends SIGINT to the child we spawned and still own.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let out = finish(child);
    let err = &out.stderr;
    assert_eq!(out.code, Some(130), "{err}");
    assert!(err.contains("interrupted: "), "{err}");
    assert!(
        err.contains("Running the same command again resumes from there."),
        "{err}"
    );
    let stored = count();
    assert!((1..8).contains(&stored), "{stored} records");
    assert!(
        err.contains(&format!("{stored} of the sweep's 8 runs are stored")),
        "{err}"
    );
    let leftovers: Vec<_> = walk(dir.path())
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(".tmp")))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

#[test]
fn plot_says_which_experiment_file_it_draws_from_when_the_source_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "trace.tab", TRACE_ENDING_AT_3000_S);
    write(dir.path(), "e.toml", &bot_experiment("[10, 20]"));
    let out = gridsim(dir.path(), ["run", "e.toml", "--out", "o", "--no-plots"]);
    assert!(out.ok, "{}", out.stderr);
    std::fs::remove_file(dir.path().join("e.toml")).unwrap();
    let out = gridsim(dir.path(), ["plot", "o/results/ends"]);
    let err = &out.stderr;
    assert!(out.ok, "{err}");
    assert!(
        err.contains("figures as the results directory's copy o/results/ends/experiment.toml declares them"),
        "{err}"
    );
    assert!(err.contains("e.toml, is gone"), "{err}");
    assert!(dir.path().join("o/plots/ends/makespan.svg").exists());
}

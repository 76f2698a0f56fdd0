//! Issue 18 items 2 and 3: bag-of-tasks replications can differ, and a worker whose host comes
//! back works again. Task sizes are drawn per task from a
//! Gamma distribution of mean `task_flops` and coefficient of variation `task_cv`; the sample
//! moments are checked against the distribution's, compared schedulers see the same tasks, and
//! replications of runs that draw nothing are warned about.

use std::path::{Path, PathBuf};

use gridsim::experiment;
use schedulers::family::ParamValue;

mod support;
use support::gridsim;

fn bot(params: &str, schedulers: &str, replications: u32) -> String {
    let platform = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/walfc6.toml");
    format!(
        "name = \"var\"\nfamily = \"bot\"\nreplications = {replications}\n[platform]\nfile = {:?}\n\
         [params]\n{params}\n{schedulers}\n[outputs]\ntables = [\"chunks\"]\n",
        platform.display().to_string()
    )
}

/// The flops of every chunk of a run: its compute time times its host's speed.
fn chunk_flops(run: &experiment::Run, family: &dyn schedulers::family::Family) -> Vec<f64> {
    let out = family.run(&run.spec).unwrap();
    let table = &out.tables["chunks"];
    let col = |name: &str| table.columns.iter().position(|c| c == name).unwrap();
    let (host, start, end) = (col("host"), col("start_s"), col("end_s"));
    table
        .rows
        .iter()
        .map(|r| {
            let name = r[host].as_str().unwrap();
            let speed = run.spec.platform.host(run.spec.platform.host_id(name).unwrap()).speed;
            let (ParamValue::Float(s), ParamValue::Float(e)) = (&r[start], &r[end]) else {
                panic!("dates are floats");
            };
            (e - s) * speed
        })
        .collect()
}

#[test]
fn task_sizes_have_the_mean_and_coefficient_of_variation_asked_for() {
    let text = bot(
        "tasks = 20000\ntask_flops = 1e8\ntask_cv = 0.5",
        "[[schedulers]]\nname = \"wq\"\nparams = { chunk = 1 }",
        1,
    );
    let exp = experiment::load_str(Path::new("var.toml"), &text, false, &schedulers::families::all()).unwrap();
    let sizes = chunk_flops(&exp.runs[0], exp.family);
    let n = sizes.len() as f64;
    assert_eq!(n, 20000.0);
    let mean = sizes.iter().sum::<f64>() / n;
    let sd = (sizes.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // Gamma(shape 4, scale 2.5e7): mean 1e8, sd 5e7, so the sample mean's standard error is
    // 5e7 / sqrt(20000) = 3.5e5; the sample CV's is about 0.5 * sqrt((1 + 2 * 0.25) / (2n))
    // (a Gamma's CV estimator, ~0.0043 here). Both within 4 standard errors.
    assert!((mean - 1e8).abs() < 4.0 * 3.54e5, "mean {mean}");
    assert!((sd / mean - 0.5).abs() < 4.0 * 0.0043, "cv {}", sd / mean);
}

#[test]
fn replications_differ_and_compared_schedulers_see_the_same_tasks() {
    let text = bot(
        "tasks = 500\ntask_flops = 1e8\ntask_cv = 1",
        "[[schedulers]]\nname = \"wq\"\n[[schedulers]]\nname = \"gss\"",
        2,
    );
    let exp = experiment::load_str(Path::new("var.toml"), &text, false, &schedulers::families::all()).unwrap();
    assert!(exp.warnings.is_empty(), "{:?}", exp.warnings);
    let total = |i: usize| chunk_flops(&exp.runs[i], exp.family).iter().sum::<f64>();
    let by = |scheduler: &str, replication: u32| {
        exp.runs
            .iter()
            .position(|r| r.spec.scheduler == scheduler && r.spec.replication == replication)
            .unwrap()
    };
    let (wq0, wq1, gss0) = (total(by("wq", 0)), total(by("wq", 1)), total(by("gss", 0)));
    assert_ne!(wq0, wq1, "replications draw other tasks");
    // The same tasks in other chunks: equal up to the order of the additions.
    assert!((wq0 - gss0).abs() < 1e-9 * wq0, "{wq0} vs {gss0}");
}

#[test]
fn replications_of_runs_that_draw_nothing_are_warned_about() {
    let text = bot("tasks = 50\ntask_flops = 1e8", "[[schedulers]]\nname = \"wq\"", 5);
    let exp = experiment::load_str(Path::new("var.toml"), &text, false, &schedulers::families::all()).unwrap();
    assert_eq!(exp.warnings.len(), 1, "{:?}", exp.warnings);
    assert!(
        exp.warnings[0].starts_with(
            "var.toml:3:16: replications: 5 replications of runs that draw no random number are identical"
        ),
        "{}",
        exp.warnings[0]
    );
    // And from the command line.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("var.toml"), &text).unwrap();
    let out = gridsim(dir.path(), ["validate", "var.toml"]);
    let stderr = &out.stderr;
    assert!(out.ok, "{stderr}");
    assert!(
        stderr.contains("gridsim: warning: var.toml:3:16: replications: 5 replications"),
        "{stderr}"
    );
}

/// A master and two 1 Gflop/s workers on a 1 TB/s, zero-latency star; worker `b`'s host is off
/// from 10.5 s to `back` s (for good without).
fn failing_platform(dir: &Path, back: Option<f64>) -> PathBuf {
    let path = dir.join("star.toml");
    let back = back.map_or(String::new(), |t| format!(", [{t}, 1.0]"));
    let text = format!(
        "[[host]]\nname = \"m\"\nspeed = \"1Gf\"\n[[host]]\nname = \"a\"\nspeed = \"1Gf\"\n\
         [[host]]\nname = \"b\"\nspeed = \"1Gf\"\n\
         state_profile = {{ events = [[0.0, 1.0], [10.5, 0.0]{back}] }}\n\
         [[link]]\nname = \"la\"\nbandwidth = \"1TBps\"\n[[link]]\nname = \"lb\"\nbandwidth = \"1TBps\"\n\
         [[route]]\nsrc = \"m\"\ndst = \"a\"\nlinks = [\"la\"]\n[[route]]\nsrc = \"m\"\ndst = \"b\"\nlinks = [\"lb\"]\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_worker_whose_host_comes_back_works_again_and_its_lost_chunk_is_logged() {
    // Issue 18 item 3. 40 one-second tasks, one per chunk, on two workers: b loses task 21, which it
    // started at 10 s (a and b took tasks in turn), when its host turns off at 10.5 s. By hand: a alone finishes the tasks it
    // takes from 11 s on, one a second; b, back at 20.5 s, takes tasks at 20.5, 21.5, ... and
    // the 40th task ends at 25.5 s. Without the restart a would end alone at 11 + 19 = 30 s.
    let dir = tempfile::tempdir().unwrap();
    let platform = failing_platform(dir.path(), Some(20.5));
    let text = format!(
        "name = \"restart\"\nfamily = \"bot\"\n[platform]\nfile = {:?}\n[params]\ntasks = 40\n\
         task_flops = 1e9\nmaster = \"m\"\n[[schedulers]]\nname = \"wq\"\n[outputs]\ntables = [\"lost_chunks\"]\n",
        platform.display().to_string()
    );
    let exp = experiment::load_str(&dir.path().join("e.toml"), &text, false, &schedulers::families::all()).unwrap();
    let out = exp.family.run(&exp.runs[0].spec).unwrap();
    let m = |k: &str| out.metrics[k];
    assert!((m("makespan_s") - 25.5).abs() < 1e-6, "{}", m("makespan_s"));
    assert_eq!(
        (
            m("tasks_done"),
            m("workers_lost"),
            m("workers_restarted"),
            m("chunks_lost")
        ),
        (40.0, 1.0, 1.0, 1.0)
    );
    let lost = &out.tables["lost_chunks"];
    assert_eq!(lost.columns, ["worker", "host", "size", "first_task", "lost_s"]);
    assert_eq!(
        lost.rows,
        vec![vec![
            ParamValue::Int(1),
            ParamValue::Str("b".into()),
            ParamValue::Int(1),
            ParamValue::Int(21),
            ParamValue::Float(10.5)
        ]]
    );
    // A host that never comes back: the worker stays lost and the run still ends.
    failing_platform(dir.path(), None);
    let exp = experiment::load_str(&dir.path().join("e.toml"), &text, false, &schedulers::families::all()).unwrap();
    let out = exp.family.run(&exp.runs[0].spec).unwrap();
    assert!(
        (out.metrics["makespan_s"] - 30.0).abs() < 1e-6,
        "{}",
        out.metrics["makespan_s"]
    );
    assert_eq!(out.metrics["workers_restarted"], 0.0);
}

//! Regressions for issue 17 item 9 and issue 18 item 5: mistakes in an experiment's outputs are
//! found by `validate`, at the user's file and line, never after a sweep; `gridsim plot` draws
//! the figures of the user's file, not of a stale copy.

use std::path::{Path, PathBuf};

mod support;
use support::gridsim;

/// A two-run bag-of-tasks experiment on the bundled 6-node cluster with `outputs` and `figure`
/// appended; its `[[figures]]` header is on line 13.
fn experiment(dir: &Path, outputs: &str, figure: &str) -> PathBuf {
    let platform = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/data/walfc6.toml");
    let text = format!(
        "name = \"early\"\nfamily = \"bot\"\n[platform]\nfile = {:?}\n[params]\ntasks = [10, 20]\n\
         task_flops = 1e8\n[[schedulers]]\nname = \"wq\"\n[outputs]\ntables = [{outputs}]\n\n\
         [[figures]]\nname = \"f\"\n{figure}",
        platform.display().to_string()
    );
    let path = dir.join("e.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_table_the_family_does_not_write_is_refused_by_validate() {
    let dir = tempfile::tempdir().unwrap();
    experiment(dir.path(), "\"chunkz\"", "x = \"tasks\"\ny = \"makespan_s\"\n");
    let out = gridsim(dir.path(), ["validate", "e.toml"]);
    let err = &out.stderr;
    assert_eq!(out.code, Some(1), "{err}");
    assert!(
        err.contains(
            "e.toml:11:11: outputs.tables: family 'bot' has no table 'chunkz' (its tables: chunks, lost_chunks, energy, downtime)"
        ),
        "{err}"
    );
}

#[test]
fn a_misspelt_x_column_is_named_as_such_and_not_blamed_on_the_column_it_meant() {
    let dir = tempfile::tempdir().unwrap();
    experiment(dir.path(), "", "x = \"taskz\"\ny = \"makespan_s\"\n");
    let out = gridsim(dir.path(), ["validate", "e.toml"]);
    let err = &out.stderr;
    assert_eq!(out.code, Some(1), "{err}");
    assert!(
        err.contains("e.toml:15:5: figures[0].x: figure 'f': runs.csv has no column 'taskz'"),
        "{err}"
    );
    assert!(!err.contains("varies"), "{err}");
}

#[test]
fn a_metric_the_family_never_returns_fails_validate_not_the_end_of_the_sweep() {
    let dir = tempfile::tempdir().unwrap();
    experiment(dir.path(), "", "x = \"tasks\"\ny = \"makespan_q\"\n");
    let out = gridsim(dir.path(), ["validate", "e.toml"]);
    let err = &out.stderr;
    assert_eq!(out.code, Some(1), "{err}");
    assert!(err.contains("e.toml:16:5: figures[0].y: figure 'f': runs.csv has no column 'makespan_q' (its columns: run, tasks, scheduler, replication, seed, makespan_s,"), "{err}");
    // A table's figure is checked against the table's declared columns.
    experiment(
        dir.path(),
        "\"chunks\"",
        "source = \"chunks\"\nkind = \"timeline\"\nx = \"start_s\"\nx_end = \"stop_s\"\ny = \"worker\"\npanels = \"tasks\"\n",
    );
    let err = gridsim(dir.path(), ["validate", "e.toml"]).stderr;
    assert!(
        err.contains("figures[0].x_end: figure 'f': chunks.csv has no column 'stop_s'"),
        "{err}"
    );
}

#[test]
fn plot_draws_the_figures_of_the_users_file_once_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let path = experiment(
        dir.path(),
        "",
        "x = \"tasks\"\ny = \"makespan_s\"\ny_label = \"first label\"\n",
    );
    let out = gridsim(dir.path(), ["run", "e.toml"]);
    assert!(out.ok, "{}", out.stderr);
    let svg = dir.path().join("plots/early/f.svg");
    assert!(std::fs::read_to_string(&svg).unwrap().contains("first label"));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("first label", "fixed label")).unwrap();
    let out = gridsim(dir.path(), ["plot", "results/early"]);
    assert!(out.ok, "{}", out.stderr);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("fixed label"));
    // The results directory keeps the copy of what ran.
    let copy = std::fs::read_to_string(dir.path().join("results/early/experiment.toml")).unwrap();
    assert!(copy.contains("first label"));
    // Once the user's file is gone, the copy is drawn.
    std::fs::remove_file(&path).unwrap();
    let out = gridsim(dir.path(), ["plot", "results/early"]);
    assert!(out.ok, "{}", out.stderr);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("first label"));
}

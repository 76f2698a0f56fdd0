//! Every bundled experiment (`experiments/*.toml`) validates and runs in `--quick` mode, so none
//! of them rots. The quick subsets are declared in each file's `[quick]` section.

use std::path::Path;

mod support;
use support::Gridsim;

#[test]
fn every_bundled_experiment_runs_quick() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("experiments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(
        files.iter().any(|f| f.ends_with("lds.toml")),
        "experiments/lds.toml is the main job"
    );
    let out = tempfile::tempdir().unwrap();
    for file in files {
        let validate = Gridsim::new().arg("validate").arg(&file).run();
        assert!(validate.ok, "validate {}: {}", file.display(), validate.stderr);
        let run = Gridsim::new()
            .args(["run", "--quick", "--jobs", "2", "--out"])
            .arg(out.path())
            .arg(&file)
            .run();
        assert!(run.ok, "run --quick {}: {}", file.display(), run.stderr);
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        let text = &run.stdout;
        assert!(text.contains("runs"), "{name}: {text}");
    }
    // The LDS experiment draws each worker's chunks over time from chunks.csv,
    // one panel per scheduler.
    let gantt = std::fs::read_to_string(out.path().join("plots/lds-quick/chunks-timeline.svg")).unwrap();
    for text in ["scheduler = WQ", "scheduler = GSS", "scheduler = LDS(5)", "Worker host"] {
        assert!(gantt.contains(text), "chunks-timeline.svg lacks '{text}'");
    }
    // The LANL study draws WQ's workers with their hosts' down periods.
    let workers = std::fs::read_to_string(out.path().join("plots/lanl-failures-quick/workers.svg")).unwrap();
    for text in ["worker host", "down", "#E8E8E8"] {
        assert!(workers.contains(text), "workers.svg lacks '{text}'");
    }
    // Every experiment wrote a non-empty runs.csv (header plus at least one row).
    let dirs: Vec<_> = std::fs::read_dir(out.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(dirs.len() >= 3, "{dirs:?}");
    for dir in dirs {
        let csv = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
        assert!(csv.lines().count() >= 2, "{}: {csv}", dir.display());
    }
}

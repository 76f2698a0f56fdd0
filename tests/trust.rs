//! Issue 18, items 1, 6 and 7: records are keyed on the build's simulation code and the run says
//! which build its reused records come from; result files respect the umask; outside a terminal
//! a sweep prints progress lines.

use std::fs;
use std::path::Path;

mod support;
use support::{gridsim, Gridsim};

fn experiment(dir: &Path) {
    let platform = Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml");
    let text = format!(
        "name = \"trust\"\nfamily = \"bot\"\n[platform]\nfile = \"{}\"\n[params]\ntasks = [40, 80]\n\
         task_flops = 1e9\nnodes = 8\n[[schedulers]]\nname = \"gss\"\n[[figures]]\nname = \"m\"\n\
         x = \"tasks\"\ny = \"makespan_s\"\n",
        platform.display()
    );
    fs::write(dir.join("e.toml"), text).unwrap();
}

/// Runs `gridsim run e.toml --out o` in `dir` under `umask`; returns stdout.
fn run(dir: &Path, umask: u32) -> String {
    let out = Gridsim::new()
        .args(["run", "e.toml", "--out", "o"])
        .current_dir(dir)
        .umask(umask)
        .run();
    assert!(out.ok, "{}", out.stderr);
    out.stdout
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn result_files_respect_the_umask() {
    for (umask, expected) in [(0o022, 0o644), (0o077, 0o600)] {
        let dir = tempfile::tempdir().unwrap();
        experiment(dir.path());
        run(dir.path(), umask);
        let results = dir.path().join("o/results/trust");
        let record = fs::read_dir(results.join("runs.d"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        for file in [
            results.join("runs.csv"),
            results.join("manifest.json"),
            record,
            dir.path().join("o/plots/trust/m.svg"),
        ] {
            assert_eq!(mode(&file), expected, "{} under umask {umask:o}", file.display());
        }
    }
}

#[test]
fn reused_records_are_counted_and_named_by_build() {
    let dir = tempfile::tempdir().unwrap();
    experiment(dir.path());
    let first = run(dir.path(), 0o022);
    assert!(
        first.contains("2 runs, 0 already done") && !first.contains("reused"),
        "{first}"
    );
    let second = run(dir.path(), 0o022);
    assert!(second.contains("2 runs, 2 already done"), "{second}");
    assert!(
        second.contains(&format!("reused 2 records of this build ({})", gridsim::BUILD_ID)),
        "{second}"
    );
    // The build identity is a hash of the simulation sources (build.rs): 16 hex digits.
    assert_eq!(gridsim::BUILD_ID.len(), 16);
    assert!(gridsim::BUILD_ID.chars().all(|c| c.is_ascii_hexdigit()));
}

#[test]
fn outside_a_terminal_a_sweep_prints_progress_lines() {
    // stderr is a pipe here, as under Slurm or nohup: lines instead of a bar, the last one
    // with the final count.
    let dir = tempfile::tempdir().unwrap();
    experiment(dir.path());
    let out = gridsim(dir.path(), ["run", "e.toml", "--out", "o", "--progress-every", "0.1"]);
    let stderr = &out.stderr;
    assert!(out.ok, "{stderr}");
    let last = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("gridsim: "))
        .unwrap_or_default();
    assert!(
        last.starts_with("gridsim: 2/2 runs done (") && last.contains("runs/s), ETA"),
        "{stderr}"
    );
    let bad = gridsim(dir.path(), ["run", "e.toml", "--progress-every", "0"]);
    assert!(bad.stderr.contains("not a number of seconds"));
}

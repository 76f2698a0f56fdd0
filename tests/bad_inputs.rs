//! The bad-input catalogue: every directory of `tests/bad_inputs/` is one bad input (an
//! experiment, a platform, a profile, a scenario, a trace, a command line) with the files it
//! needs and a `case.toml` saying how gridsim must refuse it:
//!
//! ```toml
//! # why this input is bad, one line
//! args = ["validate", "exp.toml"]     # gridsim's arguments, run in a copy of the case directory
//! exit = 1                             # expected exit code (non-zero)
//! message = ["exp.toml:7:", "tasks"]   # fragments that must all appear in stderr
//! # optional:
//! # stdin = "..."                      # fed to gridsim's standard input
//! # files_may_appear = ["results/x/runs.d/*"]   # globs of files gridsim may leave behind
//! # names_file = false                 # with a comment line just above saying why
//! # known_defect = "issue 17: ..."     # a defect not fixed yet: the case must still fail
//! ```
//!
//! For every case (in name order) the one test below copies the directory (less `case.toml`)
//! into a fresh temporary directory, runs the `gridsim` binary there with the case's arguments
//! (killed after 60 s: a hang), and checks, collecting every failure before failing:
//!
//! - no panic: the exit code is not 101 and stderr says neither "panicked" nor "RUST_BACKTRACE";
//! - the exit code is the expected one, which is not 0;
//! - every fragment of `message` is in stderr;
//! - the message names the file: some fragment contains the name of an input of the case (a
//!   file's name or path, or a directory's path), unless the case sets `names_file = false`;
//! - no partial output: afterwards the directory holds exactly the inputs, unchanged, plus only
//!   what `files_may_appear` allows (`*` and `?` within one path component, `**` for any number
//!   of components; a directory may appear when something under it may).
//!
//! A failure prints the case, the command, the exit code, what was wrong and gridsim's stderr.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

mod support;
use support::{Gridsim, Outcome};

/// How long one case may run before it counts as a hang.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The catalogue must stay at least this large.
const MIN_CASES: usize = 160;

/// A `case.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    args: Vec<String>,
    exit: i32,
    message: Vec<String>,
    #[serde(default)]
    stdin: Option<String>,
    #[serde(default)]
    files_may_appear: Vec<String>,
    #[serde(default = "yes")]
    names_file: bool,
    /// A defect seen and not yet fixed, with where it is tracked: the case must still fail
    /// (never by a panic or a hang, which fail the test whatever this says), and the test
    /// fails once it passes, so that the marker is removed with the fix.
    #[serde(default)]
    known_defect: Option<String>,
}

fn yes() -> bool {
    true
}

fn catalogue() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("bad_inputs")
}

/// Every entry under `root` (files and directories), as `/`-separated relative paths, with the
/// contents of the files (`None` for directories).
fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("under the root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                out.insert(rel, None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(fs::read(&path).unwrap_or_default()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Copies the case directory into `to`, without `case.toml`.
fn copy_case(from: &Path, to: &Path) {
    for (rel, content) in tree(from) {
        if rel == "case.toml" {
            continue;
        }
        let target = to.join(&rel);
        match content {
            None => fs::create_dir_all(&target).unwrap(),
            Some(bytes) => {
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::write(&target, bytes).unwrap();
            }
        }
    }
}

/// `*` and `?` match within one path component.
fn component_matches(pattern: &[u8], text: &[u8]) -> bool {
    match (pattern.first(), text.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            component_matches(&pattern[1..], text) || (!text.is_empty() && component_matches(pattern, &text[1..]))
        }
        (Some(b'?'), Some(_)) => component_matches(&pattern[1..], &text[1..]),
        (Some(p), Some(t)) if p == t => component_matches(&pattern[1..], &text[1..]),
        _ => false,
    }
}

/// Whether the `/`-separated `path` matches the glob (`**` = any number of components).
fn glob_matches(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.first() {
        None => path.is_empty(),
        Some(&"**") => (0..=path.len()).any(|skip| glob_matches(&pattern[1..], &path[skip..])),
        Some(p) => {
            !path.is_empty()
                && component_matches(p.as_bytes(), path[0].as_bytes())
                && glob_matches(&pattern[1..], &path[1..])
        }
    }
}

/// Whether something the glob matches could lie under the directory `path`.
fn glob_may_contain(pattern: &[&str], path: &[&str]) -> bool {
    match (pattern.first(), path.first()) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(&"**"), _) => true,
        (Some(p), Some(d)) => {
            component_matches(p.as_bytes(), d.as_bytes()) && glob_may_contain(&pattern[1..], &path[1..])
        }
    }
}

fn allowed(globs: &[String], path: &str, is_dir: bool) -> bool {
    let path: Vec<&str> = path.split('/').collect();
    globs.iter().any(|g| {
        let pattern: Vec<&str> = g.split('/').collect();
        glob_matches(&pattern, &path) || (is_dir && glob_may_contain(&pattern, &path))
    })
}

/// Problems with the case file itself (beyond its TOML schema).
fn check_case_file(name: &str, text: &str, case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    let well_named = name.contains('-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !well_named {
        problems.push("case names are <format-or-command>-<what>, lower case".into());
    }
    if !text.starts_with("# ") {
        problems.push("case.toml must start with a `# why this input is bad` comment line".into());
    }
    if case.args.is_empty() {
        problems.push("`args` is empty".into());
    }
    if case.message.is_empty() || case.message.iter().any(|m| m.trim().is_empty()) {
        problems.push("`message` needs at least one non-empty fragment".into());
    }
    if case.exit == 0 {
        problems.push("`exit` must be non-zero: a bad input is refused".into());
    }
    if !case.names_file {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines.iter().position(|l| l.trim_start().starts_with("names_file"));
        let explained =
            at.is_some_and(|i| lines[i].contains('#') || (i > 0 && lines[i - 1].trim_start().starts_with('#')));
        if !explained {
            problems.push("`names_file = false` needs a comment saying why (on the line above)".into());
        }
    }
    problems
}

/// Checks one case; returns what is wrong (empty when it passes) and gridsim's stderr.
fn check(dir: &Path, name: &str) -> (Vec<String>, Option<Outcome>) {
    let text = match fs::read_to_string(dir.join("case.toml")) {
        Ok(t) => t,
        Err(e) => return (vec![format!("cannot read case.toml: {e}")], None),
    };
    let case: Case = match toml::from_str(&text) {
        Ok(c) => c,
        Err(e) => return (vec![format!("bad case.toml: {e}")], None),
    };
    let mut problems = check_case_file(name, &text, &case);

    let work = tempfile::tempdir().expect("a temporary directory");
    copy_case(dir, work.path());
    let before = tree(work.path());
    if before.is_empty() && case.names_file {
        problems.push("the case has no input file".into());
    }
    let mut gridsim = Gridsim::new()
        .args(&case.args)
        .current_dir(work.path())
        .timeout(TIMEOUT);
    if let Some(text) = &case.stdin {
        gridsim = gridsim.stdin(text);
    }
    let outcome = gridsim.run();

    // No panic.
    if outcome.hung {
        problems.push(format!("hang: killed after {} s", TIMEOUT.as_secs()));
    }
    if outcome.code == Some(101) || outcome.stderr.contains("panicked") || outcome.stderr.contains("RUST_BACKTRACE") {
        problems.push("panic".into());
    }
    // Exit code.
    if !outcome.hung && outcome.code != Some(case.exit) {
        let got = outcome
            .code
            .map_or("none (killed by a signal)".to_string(), |c| c.to_string());
        problems.push(format!("exit code {got}, expected {}", case.exit));
    }
    // Message fragments.
    for fragment in &case.message {
        if !outcome.stderr.contains(fragment.as_str()) {
            problems.push(format!("stderr lacks {fragment:?}"));
        }
    }
    // The message names a file of the case.
    if case.names_file {
        let names: Vec<String> = before
            .iter()
            .flat_map(|(rel, content)| {
                let base = rel.rsplit('/').next().unwrap_or(rel).to_string();
                match content {
                    Some(_) => vec![rel.clone(), base],
                    None => vec![rel.clone()],
                }
            })
            .collect();
        let named = case
            .message
            .iter()
            .any(|fragment| names.iter().any(|n| fragment.contains(n.as_str())));
        if !named {
            problems.push(format!(
                "no message fragment names an input of the case ({}); set `names_file = false` with a comment if none can",
                before.keys().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    // No partial output, inputs untouched.
    let after = tree(work.path());
    for (rel, content) in &before {
        match after.get(rel) {
            None => problems.push(format!("input {rel} was removed")),
            Some(now) if now != content => problems.push(format!("input {rel} was modified")),
            Some(_) => {}
        }
    }
    let extra: Vec<&String> = after
        .iter()
        .filter(|(rel, content)| {
            !before.contains_key(rel.as_str()) && !allowed(&case.files_may_appear, rel, content.is_none())
        })
        .map(|(rel, _)| rel)
        .collect();
    if !extra.is_empty() {
        let shown: Vec<&str> = extra.iter().take(10).map(|s| s.as_str()).collect();
        problems.push(format!(
            "partial output left behind: {}{}",
            shown.join(", "),
            if extra.len() > shown.len() { ", ..." } else { "" }
        ));
    }
    (problems, Some(outcome))
}

/// The glob matcher on the shapes the cases use.
fn check_globs() {
    let g = |p: &str| vec![p.to_string()];
    assert!(allowed(&g("results/t/runs.d/*"), "results/t/runs.d/abc.json", false));
    assert!(allowed(&g("results/t/runs.d/*"), "results/t", true));
    assert!(allowed(&g("results/t/runs.d/*"), "results/t/runs.d", true));
    assert!(!allowed(&g("results/t/runs.d/*"), "results/t/runs.csv", false));
    assert!(!allowed(&g("results/t/runs.d/*"), "plots", true));
    assert!(allowed(&g("results/**"), "results/t/x/y.csv", false));
    assert!(allowed(&g("results/*/manifest.json"), "results/u/manifest.json", false));
    assert!(allowed(&g("results/t/run?.csv"), "results/t/runs.csv", false));
    assert!(!allowed(&[], "x", false));
}

#[test]
fn every_bad_input_is_refused_with_a_located_message_and_no_output() {
    check_globs();
    let root = catalogue();
    let mut cases: Vec<(String, PathBuf)> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    cases.sort();
    assert!(
        cases.len() >= MIN_CASES,
        "{} cases in {}, expected at least {MIN_CASES}",
        cases.len(),
        root.display()
    );

    let mut failed: Vec<String> = Vec::new();
    let mut known = 0;
    for (name, dir) in &cases {
        let (mut problems, outcome) = check(dir, name);
        let known_defect = fs::read_to_string(dir.join("case.toml"))
            .ok()
            .and_then(|t| toml::from_str::<Case>(&t).ok())
            .and_then(|c| c.known_defect);
        if let Some(defect) = known_defect {
            let severe = problems.iter().any(|p| p == "panic" || p.starts_with("hang"));
            if problems.is_empty() {
                problems.push(format!("passes now: remove `known_defect = {defect:?}`"));
            } else if !severe {
                known += 1;
                continue;
            }
        }
        if problems.is_empty() {
            continue;
        }
        let why = fs::read_to_string(dir.join("case.toml"))
            .ok()
            .and_then(|t| t.lines().next().map(|l| l.trim_start_matches('#').trim().to_string()))
            .unwrap_or_default();
        let args = toml::from_str::<Case>(&fs::read_to_string(dir.join("case.toml")).unwrap_or_default())
            .map(|c| c.args.join(" "))
            .unwrap_or_default();
        let mut report = format!("\n=== {name}: {why}\n    command: gridsim {args}\n");
        if let Some(o) = &outcome {
            let code = o.code.map_or("none".to_string(), |c| c.to_string());
            report.push_str(&format!("    exit code: {code}\n"));
        }
        for p in &problems {
            report.push_str(&format!("    - {p}\n"));
        }
        if let Some(o) = &outcome {
            report.push_str("    stderr:\n");
            for line in o.stderr.lines() {
                report.push_str(&format!("      | {line}\n"));
            }
        }
        eprint!("{report}");
        failed.push(name.clone());
    }
    eprintln!(
        "{} bad-input cases, {known} of them known defects (`known_defect` in their case.toml)",
        cases.len()
    );
    assert!(
        failed.is_empty(),
        "{} of {} bad-input cases failed: {}",
        failed.len(),
        cases.len(),
        failed.join(", ")
    );
}

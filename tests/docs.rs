//! The docs say what the code does: every relative link of every Markdown file resolves, the
//! README stays short, and its "Your first study" runs as written, giving the output it shows.

use std::path::{Path, PathBuf};

mod support;
use support::{gridsim, root};

/// Every Markdown file of the repository, outside build and result directories.
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(
                name.as_str(),
                "target" | ".git" | "results" | "plots" | "artifacts" | "corpus"
            ) {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The targets of `[text](target)` and `![alt](target)` links in `text`, outside code spans
/// and code blocks.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        // Drop code spans: a `](` inside backticks is not a link.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let mut files = Vec::new();
    markdown_files(&root(), &mut files);
    assert!(files.len() > 10, "found only {} Markdown files", files.len());
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with('#') {
                continue;
            }
            let path = target.split('#').next().unwrap_or("");
            checked += 1;
            if !file.parent().unwrap().join(path).exists() {
                broken.push(format!("{}: {target}", file.strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(checked > 30, "only {checked} links checked");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_short() {
    let lines = std::fs::read_to_string(root().join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(lines <= 250, "README.md has {lines} lines; the rest belongs in docs/");
}

/// The README's code blocks, as (info string, text).
fn code_blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(info) = line.strip_prefix("```") {
            match current.take() {
                Some(block) => out.push(block),
                None => current = Some((info.trim().to_string(), String::new())),
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

#[test]
fn the_readme_first_study_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let study = &readme[readme.find("## Your first study").expect("a first-study section")..];
    let study = &study[..study[3..].find("\n## ").map_or(study.len(), |i| i + 3)];
    let blocks = code_blocks(study);
    let dir = tempfile::tempdir().unwrap();
    // The files: TOML blocks whose first line names them.
    let mut written = 0;
    for (info, body) in &blocks {
        if info != "toml" {
            continue;
        }
        let name = body
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# "))
            .expect("a file name line");
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, body).unwrap();
        written += 1;
    }
    assert_eq!(written, 2, "a platform and an experiment");
    // The commands and what they print: `$ gridsim ...` lines, each followed by its output.
    let session = blocks
        .iter()
        .find(|(info, body)| info.is_empty() && body.starts_with("$ gridsim"))
        .expect("a shell session");
    let mut commands: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for line in session.1.lines() {
        match line.strip_prefix("$ gridsim ") {
            Some(args) => commands.push((args.split_whitespace().map(str::to_string).collect(), Vec::new())),
            None => commands.last_mut().unwrap().1.push(line.to_string()),
        }
    }
    for (args, shown) in &commands {
        let out = gridsim(dir.path(), args);
        let stdout = &out.stdout;
        assert!(out.ok, "gridsim {args:?}: {}", out.stderr);
        for line in shown {
            // Wall-clock times differ from run to run.
            let stable = line.split(" in ").next().unwrap();
            assert!(
                stdout.contains(stable),
                "gridsim {args:?} did not print {line:?}:\n{stdout}"
            );
        }
    }
    // The rows it shows are rows of the runs.csv it writes.
    let runs = std::fs::read_to_string(dir.path().join("results/my-study/runs.csv")).unwrap();
    let shown = blocks
        .iter()
        .find(|(_, body)| body.starts_with("run,"))
        .expect("runs.csv lines");
    for line in shown.1.lines() {
        assert!(
            runs.lines().any(|l| l == line),
            "runs.csv has no line {line:?}:\n{runs}"
        );
    }
    assert!(dir.path().join("plots/my-study/makespan.png").exists());
}

#[test]
fn the_parameter_reference_is_current() {
    // docs/parameters.md is the families' declarations as `gridsim list --markdown` writes them.
    let expected = gridsim::reference::families_markdown(&schedulers::families::all());
    let path = root().join("docs/parameters.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == expected,
        "{} is out of date: regenerate it with `gridsim list --markdown > docs/parameters.md`",
        path.display()
    );
}

//! `[workload]`: the job trace an experiment replays, read once and shared by its runs.
//!
//! The trace is read with the selection the section describes (`traces::job::Selection`: time
//! window, first N jobs, serial only, partial executions, load scale) and the result is handed
//! to every run; the file's bytes and the selection are hashed into each run's fingerprint, so
//! editing the trace or the selection never resumes stale results.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use traces::job::{read_workload, Selection, Workload};

use super::error::Reporter;
use super::seed::StableHasher;
use super::spec::WorkloadSpec;
use crate::tracefile;

/// A loaded job trace.
#[derive(Clone, Debug)]
pub struct WorkloadEntry {
    /// The path as the experiment file writes it.
    pub name: String,
    /// The selected jobs.
    pub workload: Arc<Workload>,
    /// Hash of the file's bytes and of the selection.
    pub content_hash: u64,
}

/// Reads the trace `[workload]` names; `None` after reporting any problem.
pub(crate) fn resolve(
    rep: &mut Reporter<'_>,
    path: &Path,
    spec: &toml::Spanned<WorkloadSpec>,
) -> Option<WorkloadEntry> {
    let w = spec.get_ref();
    let errors_before = rep.diagnostics.len();
    let mut selection = Selection::default();
    if let Some(window) = &w.window_s {
        match window.get_ref().as_slice() {
            &[from, to] if from.is_finite() && to.is_finite() && 0.0 <= from && from < to => {
                selection.window_s = Some((from, to))
            }
            _ => rep.error(
                window.span(),
                "workload.window_s",
                "must be [from, to] in seconds with 0 <= from < to",
            ),
        }
    }
    if let Some(first) = &w.first {
        match u64::try_from(*first.get_ref()) {
            Ok(n) if n > 0 => selection.first = Some(n),
            _ => rep.error(first.span(), "workload.first", "must be a positive number of jobs"),
        }
    }
    if let Some(scale) = &w.load_scale {
        let s = *scale.get_ref();
        if s.is_finite() && s > 0.0 {
            selection.load_scale = s;
        } else {
            rep.error(scale.span(), "workload.load_scale", "must be a positive number");
        }
    }
    selection.serial_only = w.serial_only.unwrap_or(false);
    selection.keep_partial = w.keep_partial.unwrap_or(false);
    let format = match &w.format {
        None => None,
        Some(f) => match tracefile::parse_format(f.get_ref()) {
            Ok(format) if format.is_workload() => Some(format),
            Ok(_) => {
                rep.error(
                    f.span(),
                    "workload.format",
                    "an FTA trace describes availability, not jobs: name it in [platform.availability]",
                );
                return None;
            }
            Err(message) => {
                rep.error(f.span(), "workload.format", message);
                return None;
            }
        },
    };
    let name = w.trace.get_ref().clone();
    let resolved = path.parent().unwrap_or(Path::new("")).join(&name);
    let bytes = match fs::read(&resolved) {
        Ok(b) => b,
        Err(e) => {
            rep.error(
                w.trace.span(),
                "workload.trace",
                format!(
                    "cannot read trace '{name}' ({}; paths are relative to the experiment file): {e}",
                    resolved.display()
                ),
            );
            return None;
        }
    };
    if rep.diagnostics.len() > errors_before {
        return None;
    }
    let opened = match tracefile::from_reader(&resolved, bytes.as_slice(), format) {
        Ok(o) => o,
        Err(e) => {
            rep.error(w.trace.span(), "workload.trace", format!("{e:#}"));
            return None;
        }
    };
    if !opened.format.is_workload() {
        rep.error(
            w.trace.span(),
            "workload.trace",
            format!("'{name}' is an FTA availability trace, not a job trace: name it in [platform.availability]"),
        );
        return None;
    }
    let workload = match read_workload(opened.format, opened.reader, &selection) {
        Ok(workload) => workload,
        Err(e) => {
            rep.error(
                w.trace.span(),
                "workload.trace",
                format!("{:#}", tracefile::located(&resolved, &e)),
            );
            return None;
        }
    };
    if workload.jobs.is_empty() {
        rep.error(
            spec.span(),
            "workload",
            format!(
                "the selection keeps no job of '{name}' ({} records read, {} without a run time, {} without processors)",
                workload.records, workload.dropped.unknown_runtime, workload.dropped.no_processors
            ),
        );
        return None;
    }
    let mut h = StableHasher::new();
    h.bytes(&bytes);
    h.str(&format!("{selection:?}"));
    Some(WorkloadEntry {
        name,
        workload: Arc::new(workload),
        content_hash: h.finish(),
    })
}

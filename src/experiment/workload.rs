//! `[workload]`: the job trace an experiment replays, read once and shared by its runs.
//!
//! The trace is read with the selection the section describes (`traces::job::Selection`: time
//! window, first N jobs, serial only, partial executions, load scale) and the result is handed
//! to every run; the file's bytes and the selection are hashed into each run's fingerprint, so
//! editing the trace or the selection never resumes stale results.
//!
//! `load_scale` divides the arrival times (counted from the first selected job). Given as a
//! list it is a sweep axis: the trace is read once and each value gives its own rescaled copy,
//! with its own hash, and the runs carry the value in a `load_scale` key column.

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
    /// One selection per value of `load_scale`, in the file's order (one when it is a number).
    pub variants: Vec<WorkloadVariant>,
    /// Whether `load_scale` is a list, so a sweep axis with a key column.
    pub load_scale_axis: bool,
}

/// The trace's jobs under one `load_scale`.
#[derive(Clone, Debug)]
pub struct WorkloadVariant {
    /// The arrival-time divisor.
    pub load_scale: f64,
    /// The selected jobs, arrivals divided by `load_scale`.
    pub workload: Arc<Workload>,
    /// Hash of the file's bytes and of the selection, `load_scale` included.
    pub content_hash: u64,
}

/// `load_scale`'s values and whether it was a list; `None` after reporting a problem.
fn load_scales(rep: &mut Reporter<'_>, value: &toml::Spanned<toml::Value>) -> Option<(Vec<f64>, bool)> {
    const FIELD: &str = "workload.load_scale";
    const MESSAGE: &str = "must be a positive number, or a list of them (a sweep axis)";
    let number = |v: &toml::Value| match v {
        toml::Value::Float(f) => Some(*f),
        toml::Value::Integer(i) => Some(*i as f64),
        _ => None,
    };
    let (values, list) = match value.get_ref() {
        toml::Value::Array(items) => (items.iter().map(number).collect::<Option<Vec<f64>>>(), true),
        v => (number(v).map(|x| vec![x]), false),
    };
    let values = match values {
        Some(v) if !v.is_empty() && v.iter().all(|x| x.is_finite() && *x > 0.0) => v,
        _ => {
            rep.error(value.span(), FIELD, MESSAGE);
            return None;
        }
    };
    for (i, x) in values.iter().enumerate() {
        if values[..i].contains(x) {
            rep.error(
                value.span(),
                FIELD,
                format!("lists {x} twice; each value is one point of the sweep"),
            );
            return None;
        }
    }
    Some((values, list))
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
    let (scales, load_scale_axis) = match &w.load_scale {
        None => (vec![1.0], false),
        Some(value) => load_scales(rep, value).unwrap_or_default(),
    };
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
    // Read at scale 1, so arrivals count from the first job; each scale divides them as the
    // selection would have (x / 1 is exact, so a single scale gives the same dates).
    let variants = scales
        .into_iter()
        .map(|load_scale| {
            let selection = Selection {
                load_scale,
                ..selection.clone()
            };
            let mut h = StableHasher::new();
            h.bytes(&bytes);
            h.str(&format!("{selection:?}"));
            let mut scaled = workload.clone();
            for job in &mut scaled.jobs {
                job.submit_s /= load_scale;
            }
            WorkloadVariant {
                load_scale,
                workload: Arc::new(scaled),
                content_hash: h.finish(),
            }
        })
        .collect();
    Some(WorkloadEntry {
        name,
        variants,
        load_scale_axis,
    })
}

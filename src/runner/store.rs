//! The results directory on disk: the manifest, one record file per completed run, and the
//! merge of records into CSV files.
//!
//! ```text
//! results/<experiment>/
//!   experiment.toml     copy of the experiment file (figures are redrawn from it)
//!   manifest.json       every run of the sweep in index order: fingerprint, label, key values
//!   runs.d/<fp>.json    one record per completed run, named by the run's fingerprint
//!   runs.csv            merged: one row per run, in run-index order
//!   params.csv          every parameter of every run, defaults filled in (join on `run`)
//!   <table>.csv         merged per-run tables the experiment asked for
//!   timing.csv          wall-clock seconds and events/s per run (not reproducible)
//! ```
//!
//! Records are written atomically (temporary file + rename), so a killed run leaves either a
//! complete record or none. Record files are named by fingerprint, not by index: a run that is
//! unchanged when the experiment file gains an axis value keeps its record. Numbers are stored
//! as text in shortest round-trip form, so merged CSVs are identical however they were produced.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::experiment::limits::RunLimits;
use crate::experiment::Experiment;
use crate::output::{format_f64, format_value, write_atomic, CsvFileWriter, CsvTable};
use schedulers::family::{ParamValue, RunOutput};

/// Version of the record and manifest formats.
pub const FORMAT: u32 = 1;

/// Name of the records directory inside a results directory.
pub const RECORDS_DIR: &str = "runs.d";

/// What identifies every run of a sweep, in index order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version.
    pub format: u32,
    /// Experiment name.
    pub experiment: String,
    /// Directory name under `results/` and `plots/`.
    pub dir_name: String,
    /// Family name.
    pub family: String,
    /// Whether `--quick` was given.
    pub quick: bool,
    /// Columns between `run` and the metrics in `runs.csv`.
    pub key_columns: Vec<String>,
    /// Per-run tables to write.
    pub tables: Vec<String>,
    /// The workload trace the runs replay (`[workload]`), as the experiment names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    /// The columns of `params.csv` after `run` and the run's identity: every parameter any run
    /// uses, sorted.
    #[serde(default)]
    pub param_columns: Vec<String>,
    /// Every run, by index.
    pub runs: Vec<ManifestRun>,
    /// Every platform of the sweep: its name (the `platform` column's value), the label
    /// figures show for it and its host count (runs.csv's `hosts` column). Empty in a manifest
    /// written before figures had platform labels: figures then show the names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub platforms: Vec<ManifestPlatform>,
    /// The experiment file the sweep was run from (absolute), whose figures `gridsim plot`
    /// draws while it exists; not part of what identifies the sweep (see [`Manifest::same_sweep`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PathBuf>,
}

/// One platform in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestPlatform {
    /// As the `platform` column holds it.
    pub name: String,
    /// What figures show for it ([`crate::experiment::PlatformEntry::label`]).
    pub label: String,
    /// Its number of hosts.
    pub hosts: usize,
}

/// One run in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestRun {
    /// Names the run's record file.
    pub fingerprint: String,
    /// Short label for messages.
    pub label: String,
    /// Values of the key columns.
    pub keys: Vec<String>,
    /// The run's platform, policy name, replication and seed, then its values of
    /// [`Manifest::param_columns`] (empty where the run does not use the parameter).
    #[serde(default)]
    pub params: Vec<String>,
}

impl Manifest {
    /// The manifest of an expanded experiment.
    pub fn of(experiment: &Experiment) -> Manifest {
        let param_columns: Vec<String> = experiment
            .runs
            .iter()
            .flat_map(|r| r.used.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .cloned()
            .collect();
        Manifest {
            format: FORMAT,
            experiment: experiment.name.clone(),
            dir_name: experiment.dir_name(),
            family: experiment.family.name().to_string(),
            quick: experiment.quick,
            key_columns: experiment.key_columns.clone(),
            tables: experiment.tables.clone(),
            workload: experiment.workload.as_ref().map(|w| w.name.clone()),
            runs: experiment
                .runs
                .iter()
                .map(|r| ManifestRun {
                    fingerprint: r.fingerprint.clone(),
                    label: r.describe(&experiment.key_columns),
                    keys: r.keys.clone(),
                    params: [
                        r.spec.platform_name.clone(),
                        r.spec.scheduler.clone(),
                        r.spec.replication.to_string(),
                        r.spec.seed.to_string(),
                    ]
                    .into_iter()
                    .chain(
                        param_columns
                            .iter()
                            .map(|c| r.used.get(c).map(format_value).unwrap_or_default()),
                    )
                    .collect(),
                })
                .collect(),
            source: std::path::absolute(&experiment.file).ok(),
            param_columns,
            platforms: experiment
                .platforms
                .iter()
                .map(|p| ManifestPlatform {
                    name: p.name.clone(),
                    label: p.label.clone(),
                    hosts: p.platform.hosts.len(),
                })
                .collect(),
        }
    }

    /// Whether `other` describes the same sweep (shards run from another checkout included).
    pub fn same_sweep(&self, other: &Manifest) -> bool {
        let sweep = |m: &Manifest| Manifest {
            source: None,
            ..m.clone()
        };
        sweep(self) == sweep(other)
    }

    /// Reads `manifest.json` from a results directory.
    pub fn read(results_dir: &Path) -> Result<Manifest> {
        let path = results_dir.join("manifest.json");
        let text = fs::read_to_string(&path).with_context(|| {
            format!(
                "{}: not a gridsim results directory (cannot read manifest.json)",
                results_dir.display()
            )
        })?;
        let manifest: Manifest = serde_json::from_str(&text)
            .map_err(|e| anyhow!("{}:{}: malformed manifest: {e}", path.display(), e.line()))?;
        if manifest.format != FORMAT {
            bail!(
                "{}: format {} is not supported (expected {FORMAT})",
                path.display(),
                manifest.format
            );
        }
        Ok(manifest)
    }

    /// Writes `manifest.json` atomically.
    pub fn write(&self, results_dir: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        write_atomic(&results_dir.join("manifest.json"), text.as_bytes())
    }
}

/// A table cell in a record: the value's type survives the round trip; floats are text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Cell {
    I(i64),
    F(String),
    S(String),
    B(bool),
}

impl Cell {
    fn of(value: &ParamValue) -> Cell {
        match value {
            ParamValue::Int(i) => Cell::I(*i),
            ParamValue::Float(x) => Cell::F(format_f64(*x)),
            ParamValue::Str(s) => Cell::S(s.clone()),
            ParamValue::Bool(b) => Cell::B(*b),
        }
    }

    fn text(&self) -> String {
        match self {
            Cell::I(i) => i.to_string(),
            Cell::F(s) | Cell::S(s) => s.clone(),
            Cell::B(b) => b.to_string(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct RecordTable {
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

/// The stored result of one completed run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    format: u32,
    fingerprint: String,
    events: u64,
    wall_s: String,
    metrics: BTreeMap<String, String>,
    tables: BTreeMap<String, RecordTable>,
    /// Set when the run has no result: `[limits]` stopped it, or its application could not
    /// finish its work. It then has no metric and no table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stopped: Option<StoppedRun>,
}

/// Why a run has no result. A run stopped by `[limits]` keeps the limits it ran under (a
/// resumed sweep with other limits runs it again); an incomplete run ended by itself, so its
/// record holds under any limits that let it run to that end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct StoppedRun {
    why: String,
    limits: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    incomplete: bool,
    /// Its policy, supplied at run time, failed: never reused, since the policy's code is no
    /// input the fingerprint covers and may have been fixed since.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    policy_failed: bool,
}

impl Record {
    /// A record of `output`, keeping only the `tables` asked for (all must be present).
    pub fn new(fingerprint: &str, output: &RunOutput, wall_s: f64, tables: &[String]) -> Result<Record, String> {
        let mut kept = BTreeMap::new();
        for name in tables {
            let Some(table) = output.tables.get(name) else {
                let returned: Vec<&str> = output.tables.keys().map(String::as_str).collect();
                return Err(format!(
                    "the family returned no table '{name}' (it returned: {})",
                    if returned.is_empty() {
                        "none".into()
                    } else {
                        returned.join(", ")
                    }
                ));
            };
            if let Some(row) = table.rows.iter().find(|r| r.len() != table.columns.len()) {
                return Err(format!(
                    "table '{name}' has a row of {} cells for {} columns",
                    row.len(),
                    table.columns.len()
                ));
            }
            kept.insert(
                name.clone(),
                RecordTable {
                    columns: table.columns.clone(),
                    rows: table.rows.iter().map(|r| r.iter().map(Cell::of).collect()).collect(),
                },
            );
        }
        Ok(Record {
            format: FORMAT,
            fingerprint: fingerprint.to_string(),
            events: output.events,
            wall_s: format_f64(wall_s),
            metrics: output
                .metrics
                .iter()
                .map(|(k, v)| (k.clone(), format_f64(*v)))
                .collect(),
            tables: kept,
            stopped: None,
        })
    }

    /// The record of a run that `[limits]` stopped: no metric, no table, the reason.
    pub fn stopped(fingerprint: &str, why: &str, limits: RunLimits, events: u64, wall_s: f64) -> Record {
        Record::without_result(fingerprint, events, wall_s, why, limits.to_string(), false)
    }

    /// The record of a run whose application could not finish its work (`why` says how much
    /// it did): no metric, no table.
    pub fn incomplete(fingerprint: &str, why: &str, events: u64, wall_s: f64) -> Record {
        Record::without_result(fingerprint, events, wall_s, why, String::new(), true)
    }

    /// The record of a run whose policy, supplied at run time, failed (`why` names the
    /// policy, the date and the decision): no metric, no table, never reused.
    pub fn policy_failed(fingerprint: &str, why: &str, wall_s: f64) -> Record {
        let mut record = Record::without_result(fingerprint, 0, wall_s, why, String::new(), false);
        if let Some(s) = &mut record.stopped {
            s.policy_failed = true;
        }
        record
    }

    fn without_result(
        fingerprint: &str,
        events: u64,
        wall_s: f64,
        why: &str,
        limits: String,
        incomplete: bool,
    ) -> Record {
        Record {
            format: FORMAT,
            fingerprint: fingerprint.to_string(),
            events,
            wall_s: format_f64(wall_s),
            metrics: BTreeMap::new(),
            tables: BTreeMap::new(),
            stopped: Some(StoppedRun {
                why: why.to_string(),
                limits,
                incomplete,
                policy_failed: false,
            }),
        }
    }

    /// Whether a valid record of `fingerprint` exists that a sweep under `limits` keeps, so
    /// that resuming gives what `--fresh` would: a run stopped by `[limits]` only under the
    /// same limits (other limits may let it finish), any other run only if it stays within
    /// them (tighter limits would have stopped it).
    pub fn reusable(results_dir: &Path, fingerprint: &str, limits: RunLimits) -> bool {
        match Record::read(results_dir, fingerprint) {
            Ok(Some(record)) => match &record.stopped {
                Some(s) if s.policy_failed => false,
                Some(s) if !s.incomplete => s.limits == limits.to_string(),
                _ => record.within(limits),
            },
            _ => false,
        }
    }

    /// Whether the run ended within `limits`: no more events than the budget (the check is
    /// `events > budget`, `sim_core::budget`) and no longer than the wall-clock budget.
    fn within(&self, limits: RunLimits) -> bool {
        let events_ok = self.events <= limits.events;
        let wall_ok = limits
            .wall_s
            .map_or(true, |budget| self.wall_s.parse::<f64>().is_ok_and(|w| w <= budget));
        events_ok && wall_ok
    }

    /// Path of the record of `fingerprint`.
    pub fn path(results_dir: &Path, fingerprint: &str) -> PathBuf {
        results_dir.join(RECORDS_DIR).join(format!("{fingerprint}.json"))
    }

    /// Writes the record atomically into the results directory.
    pub fn write(&self, results_dir: &Path) -> Result<()> {
        let text = serde_json::to_string(self)?;
        write_atomic(&Record::path(results_dir, &self.fingerprint), text.as_bytes())
    }

    /// Reads the record of `fingerprint`: `Ok(None)` when there is none, an error when it is
    /// unreadable or does not belong to that fingerprint.
    pub fn read(results_dir: &Path, fingerprint: &str) -> Result<Option<Record>> {
        let path = Record::path(results_dir, fingerprint);
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(anyhow!("reading {}: {e}", path.display())),
        };
        let record: Record =
            serde_json::from_str(&text).with_context(|| format!("{}: malformed run record", path.display()))?;
        if record.format != FORMAT || record.fingerprint != fingerprint {
            bail!("{}: record of another run or format", path.display());
        }
        Ok(Some(record))
    }

    /// Whether a valid record of `fingerprint` exists; a damaged one (say, from a crash of the
    /// machine) counts as absent, so the run is done again.
    pub fn exists(results_dir: &Path, fingerprint: &str) -> bool {
        matches!(Record::read(results_dir, fingerprint), Ok(Some(_)))
    }
}

/// Merges the records of every run in the manifest into `runs.csv`, the tables and
/// `timing.csv`. Fails, naming the missing runs, unless every run has a record.
pub fn write_csvs(results_dir: &Path, manifest: &Manifest) -> Result<Vec<PathBuf>> {
    // Two passes over the records, one record in memory at a time: the first keeps the metrics
    // and each table's column names; the tables' rows are streamed to their files afterwards
    // (a sweep's chunk tables can be hundreds of MB).
    let mut records = Vec::with_capacity(manifest.runs.len());
    let mut table_columns: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut missing = Vec::new();
    for (index, run) in manifest.runs.iter().enumerate() {
        match Record::read(results_dir, &run.fingerprint)? {
            Some(mut r) => {
                for name in &manifest.tables {
                    let columns = table_columns.entry(name.as_str()).or_default();
                    if let Some(t) = r.tables.get(name) {
                        for c in &t.columns {
                            if !columns.contains(c) {
                                columns.push(c.clone());
                            }
                        }
                    }
                }
                r.tables.clear();
                records.push(r);
            }
            None => missing.push(index),
        }
    }
    if !missing.is_empty() {
        bail!("{}", missing_runs_message(manifest, &missing));
    }
    let key_set: BTreeSet<&str> = manifest.key_columns.iter().map(String::as_str).collect();

    // runs.csv
    let metrics: BTreeSet<&str> = records
        .iter()
        .flat_map(|r| r.metrics.keys().map(String::as_str))
        .collect();
    if let Some(clash) = metrics
        .iter()
        .find(|m| key_set.contains(*m) || matches!(**m, "run" | "hosts" | "events"))
    {
        bail!("metric '{clash}' has the name of a column gridsim writes itself; the family must rename it");
    }
    // A sweep over platforms also says each run's host count, right after its platform: what a
    // reader of a platform sweep plots against.
    let platform_at = manifest.key_columns.iter().position(|c| c == "platform");
    let hosts_of = |name: &str| {
        manifest
            .platforms
            .iter()
            .find(|p| p.name == name)
            .map_or_else(String::new, |p| p.hosts.to_string())
    };
    let mut header = vec!["run".to_string()];
    header.extend(manifest.key_columns.iter().cloned());
    if let Some(i) = platform_at {
        header.insert(i + 2, "hosts".into());
    }
    header.extend(metrics.iter().map(|m| m.to_string()));
    header.push("events".into());
    // Only sweeps with a stopped run have the column: other CSVs keep their shape.
    let any_stopped = records.iter().any(|r| r.stopped.is_some());
    if any_stopped {
        header.push("stopped".into());
    }
    let mut runs = CsvTable::new(header);
    let mut timing = CsvTable::new(vec!["run".into(), "wall_s".into(), "events_per_s".into()]);
    for (index, (run, record)) in manifest.runs.iter().zip(&records).enumerate() {
        let mut row = vec![index.to_string()];
        row.extend(run.keys.iter().cloned());
        if let Some(i) = platform_at {
            row.insert(i + 2, hosts_of(&run.keys[i]));
        }
        row.extend(
            metrics
                .iter()
                .map(|m| record.metrics.get(*m).cloned().unwrap_or_default()),
        );
        row.push(record.events.to_string());
        if any_stopped {
            row.push(record.stopped.as_ref().map_or(String::new(), |s| s.why.clone()));
        }
        runs.rows.push(row);
        let wall: f64 = record.wall_s.parse().unwrap_or(f64::NAN);
        timing.rows.push(vec![
            index.to_string(),
            record.wall_s.clone(),
            format_f64(record.events as f64 / wall),
        ]);
    }
    let mut written = Vec::new();
    let path = results_dir.join("runs.csv");
    runs.write(&path)?;
    written.push(path);
    let path = results_dir.join("params.csv");
    params_table(manifest)?.write(&path)?;
    written.push(path);

    // Tables: run, the key columns but the seed, then the table's own columns.
    let table_keys: Vec<(usize, &String)> = manifest
        .key_columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.as_str() != "seed")
        .collect();
    for name in &manifest.tables {
        let columns = table_columns.remove(name.as_str()).unwrap_or_default();
        if let Some(clash) = columns
            .iter()
            .find(|c| key_set.contains(c.as_str()) || c.as_str() == "run")
        {
            bail!("table '{name}' has a column '{clash}', which gridsim writes itself; the family must rename it");
        }
        let mut header = vec!["run".to_string()];
        header.extend(table_keys.iter().map(|(_, c)| (*c).clone()));
        header.extend(columns.iter().cloned());
        let path = results_dir.join(format!("{name}.csv"));
        let mut table = CsvFileWriter::create(&path, &header)?;
        for (index, run) in manifest.runs.iter().enumerate() {
            let record = Record::read(results_dir, &run.fingerprint)?.ok_or_else(|| {
                anyhow!(
                    "{}: record vanished while merging",
                    Record::path(results_dir, &run.fingerprint).display()
                )
            })?;
            let Some(t) = record.tables.get(name) else { continue };
            let positions: Vec<usize> = columns
                .iter()
                .map(|c| t.columns.iter().position(|x| x == c).unwrap_or(usize::MAX))
                .collect();
            for cells in &t.rows {
                let mut row = vec![index.to_string()];
                row.extend(table_keys.iter().map(|(i, _)| run.keys[*i].clone()));
                row.extend(
                    positions
                        .iter()
                        .map(|&p| cells.get(p).map(Cell::text).unwrap_or_default()),
                );
                table.write_row(&row)?;
            }
        }
        table.finish()?;
        written.push(path);
    }

    let path = results_dir.join("timing.csv");
    timing.write(&path)?;
    written.push(path);
    Ok(written)
}

/// The columns of `params.csv` before the parameters: with them and the parameters, a run can
/// be set up again from the CSV alone.
pub const PARAMS_IDENTITY: [&str; 7] = [
    "run",
    "scheduler",
    "family",
    "platform",
    "policy",
    "replication",
    "seed",
];

/// `params.csv`: one row per run, in run-index order: the run, its scheduler label (as in
/// runs.csv), family, platform, policy name, replication and seed, the workload trace when the
/// runs replay one, then every parameter any run uses, with the value this run took (defaults
/// filled in; empty where the run does not use the parameter).
fn params_table(manifest: &Manifest) -> Result<CsvTable> {
    let mut header: Vec<String> = PARAMS_IDENTITY.iter().map(|c| c.to_string()).collect();
    if manifest.workload.is_some() {
        header.push("workload".into());
    }
    if let Some(clash) = manifest.param_columns.iter().find(|c| header.contains(c)) {
        bail!("parameter '{clash}' has the name of a column gridsim writes itself in params.csv; the family must rename it");
    }
    header.extend(manifest.param_columns.iter().cloned());
    let scheduler = manifest.key_columns.iter().position(|c| c == "scheduler");
    let mut table = CsvTable::new(header);
    for (index, run) in manifest.runs.iter().enumerate() {
        let label = scheduler.map(|i| run.keys[i].clone()).unwrap_or_default();
        let mut row = vec![index.to_string(), label, manifest.family.clone()];
        let mut params = run.params.iter().cloned();
        // Platform, policy, replication and seed.
        row.extend(params.by_ref().take(4));
        if let Some(w) = &manifest.workload {
            row.push(w.clone());
        }
        row.extend(params);
        // A manifest written before params.csv existed has no parameters: pad, never panic.
        row.resize(table.header.len(), String::new());
        table.rows.push(row);
    }
    Ok(table)
}

/// "missing 3 of 40 runs: #3 ..., #7 ..." (at most 10 named).
pub fn missing_runs_message(manifest: &Manifest, missing: &[usize]) -> String {
    let named: Vec<&str> = missing
        .iter()
        .take(10)
        .map(|&i| manifest.runs[i].label.as_str())
        .collect();
    let more = if missing.len() > 10 {
        format!(" and {} more", missing.len() - 10)
    } else {
        String::new()
    };
    format!(
        "missing {} of {} runs: {}{more}",
        missing.len(),
        manifest.runs.len(),
        named.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedulers::family::Table;

    #[test]
    fn records_round_trip_every_value_exactly() {
        let mut output = RunOutput::default();
        output.metrics.insert("makespan_s".into(), 0.1 + 0.2);
        output.metrics.insert("nothing".into(), f64::NAN);
        output.metrics.insert("big".into(), f64::INFINITY);
        output.events = 42;
        output.tables.insert(
            "chunks".into(),
            Table {
                columns: vec!["size".into(), "t".into(), "who".into(), "ok".into()],
                rows: vec![vec![
                    ParamValue::Int(3),
                    ParamValue::Float(1.0 / 3.0),
                    ParamValue::Str("w,1".into()),
                    ParamValue::Bool(true),
                ]],
            },
        );
        output.tables.insert("unasked".into(), Table::default());
        let dir = tempfile::tempdir().unwrap();
        let record = Record::new("ab", &output, 0.5, &["chunks".into()]).unwrap();
        record.write(dir.path()).unwrap();
        let back = Record::read(dir.path(), "ab").unwrap().unwrap();
        assert_eq!(back, record);
        assert!(!back.tables.contains_key("unasked"));
        assert_eq!(back.metrics["makespan_s"].parse::<f64>().unwrap(), 0.1 + 0.2);
        assert_eq!(back.metrics["nothing"], "NaN");
        assert_eq!(
            back.tables["chunks"].rows[0][1].text().parse::<f64>().unwrap(),
            1.0 / 3.0
        );
        assert!(Record::read(dir.path(), "cd").unwrap().is_none());
        let err = Record::new("ab", &output, 0.5, &["tasks".into()]).unwrap_err();
        assert!(
            err.contains("no table 'tasks'") && err.contains("chunks, unasked"),
            "{err}"
        );
    }

    #[test]
    fn a_damaged_record_counts_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = Record::path(dir.path(), "ff");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "{\"format\":1,\"finger").unwrap();
        assert!(!Record::exists(dir.path(), "ff"));
        assert!(Record::read(dir.path(), "ff").is_err());
    }
}

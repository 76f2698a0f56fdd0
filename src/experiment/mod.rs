//! Experiment files: parsing, validation, sweep expansion and seed derivation.
//!
//! Two stages, as in ripgrep's low/high-level arguments: [`spec`] mirrors the TOML and only
//! checks types and field names; [`load`] resolves a spec against the family registry and the
//! file system (platform files exist and load, scheduler and parameter names are known, every
//! run passes [`Family::validate`]) and expands the sweep into [`Run`]s. All problems are
//! reported together, each located by file, line and column (see `docs/guide.md`).
//!
//! # Expansion order
//! Runs are numbered in this nesting order, outermost first: platform (when `file` is a list),
//! `[workload] load_scale` (when it is a list), workload parameter combinations (axes sorted by name, the first name varying slowest),
//! scheduler entries in file order, the scheduler's own parameter combinations, replication.
//! The run index only orders the output; seeds and result files are keyed by what defines a run
//! (see [`seed`]), so inserting an axis value renumbers runs without changing any of them.

pub mod availability;
pub mod error;
mod figures;
pub mod limits;
pub mod platform;
pub mod seed;
pub mod spec;
pub mod workload;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sim_core::platform::Platform;
use toml::Spanned;

pub use error::{Diagnostic, ExperimentError};

use crate::output::format_value;
use error::{list, Reporter};
use schedulers::family::{Family, ParamValue, RunError, RunSpec, UsedParams};
use seed::{derive_seed, fingerprint, SeedInput, StableHasher};
use spec::{ExperimentSpec, FigureSpec};

/// Column names gridsim itself writes; parameters may not use them.
pub const RESERVED_COLUMNS: &[&str] = &[
    "run",
    "platform",
    "hosts",
    LOAD_SCALE,
    "scheduler",
    "replication",
    "seed",
    "events",
];

/// The key column of a swept `[workload] load_scale`.
const LOAD_SCALE: &str = "load_scale";

/// Table names gridsim itself writes.
const RESERVED_TABLES: &[&str] = &["runs", "timing", "manifest", "experiment"];

/// Upper bound on the number of runs one experiment may expand to.
pub const MAX_RUNS: usize = 5_000_000;

/// How many failing runs `load` reports before it stops checking.
const MAX_RUN_DIAGNOSTICS: usize = 20;

/// A platform the experiment names, loaded once and shared by its runs.
#[derive(Clone, Debug)]
pub struct PlatformEntry {
    /// The path as the experiment file writes it, or the generator and its parameters
    /// (`random_grid(hosts=16)`): the run's `platform_name`.
    pub name: String,
    /// What figures show for it, short enough for an axis or a legend: a file's stem
    /// (`grid90`; the path as written when two files share a stem), or the generator, the host
    /// count and the parameters that vary between the experiment's platforms
    /// (`homogeneous_cluster (85 hosts)`). `name` stays the `platform` column's value.
    pub label: String,
    /// The loaded platform.
    pub platform: Arc<Platform>,
    /// Hash of the file's bytes, or of the generator label (part of each run's fingerprint).
    pub content_hash: u64,
    /// Random host failures drawn for each run (`[platform.availability] model`).
    pub failures: Option<Arc<availability::RandomFailures>>,
}

/// One run of the sweep.
#[derive(Clone, Debug)]
pub struct Run {
    /// What the family receives.
    pub spec: RunSpec,
    /// The scheduler's label (its `scheduler` column value).
    pub label: String,
    /// The run's values of [`Experiment::key_columns`], as CSV text (empty when the run has no
    /// such parameter).
    pub keys: Vec<String>,
    /// Identifies the run's definition (family, platform and its content, scheduler, every
    /// parameter, replication, seed, requested tables): names its result file.
    pub fingerprint: String,
    /// Random host failures to draw from the run's seed before it runs
    /// ([`Run::spec_to_run`]).
    pub failures: Option<Arc<availability::RandomFailures>>,
    /// Every parameter the run uses with the value it takes, defaults filled in, as
    /// [`Family::validate`] returned them (for `params.csv`).
    pub used: UsedParams,
}

impl Run {
    /// The spec the family runs: [`Run::spec`], with its hosts' random failures drawn from the
    /// run's seed when the experiment has a failure model.
    pub fn spec_to_run(&self) -> Result<std::borrow::Cow<'_, RunSpec>, String> {
        match &self.failures {
            None => Ok(std::borrow::Cow::Borrowed(&self.spec)),
            Some(f) => f.draw(&self.spec).map(std::borrow::Cow::Owned),
        }
    }

    /// A short human label: `#12 gss tasks=1000 rep 2`.
    pub fn describe(&self, key_columns: &[String]) -> String {
        let mut text = format!("#{} {}", self.spec.index, self.label);
        for (column, value) in key_columns.iter().zip(&self.keys) {
            if matches!(column.as_str(), "scheduler" | "replication" | "seed") || value.is_empty() {
                continue;
            }
            text.push_str(&format!(" {column}={value}"));
        }
        text.push_str(&format!(" rep {}", self.spec.replication));
        text
    }
}

/// A resolved experiment: its runs and what to write.
#[derive(Clone)]
pub struct Experiment {
    /// The experiment file.
    pub file: PathBuf,
    /// The file's text (copied into the results directory).
    pub text: String,
    /// The experiment's name.
    pub name: String,
    /// One line of description.
    pub description: String,
    /// The family that runs it.
    pub family: &'static dyn Family,
    /// Whether the `[quick]` overrides were applied.
    pub quick: bool,
    /// Per-run tables to write.
    pub tables: Vec<String>,
    /// What each run may use (`[limits]`).
    pub limits: limits::RunLimits,
    /// Figure declarations.
    pub figures: Vec<FigureSpec>,
    /// Distinct platforms, in file order.
    pub platforms: Vec<PlatformEntry>,
    /// The job trace of `[workload]`, if any.
    pub workload: Option<workload::WorkloadEntry>,
    /// Sweep axes (parameters given as lists), sorted by name.
    pub axes: Vec<String>,
    /// The columns that identify a run in `runs.csv`, after `run` and before the metrics:
    /// `platform` (when it is an axis), `load_scale` (when `[workload]` lists several), the axes,
    /// `scheduler`, `replication`, `seed`.
    pub key_columns: Vec<String>,
    /// The names of the scheduler parameters the file sets ([`scheduler_param_names`]).
    pub scheduler_params: Vec<String>,
    /// Every run, by index.
    pub runs: Vec<Run>,
    /// The experiment files `includes` names, resolved against this file's directory.
    pub includes: Vec<PathBuf>,
    /// What is allowed but probably not meant, `FILE:LINE:COLUMN: field: message`
    /// (`validate` and `run` print them).
    pub warnings: Vec<String>,
}

impl Experiment {
    /// The columns that identify its runs.
    pub fn columns(&self) -> RunColumns<'_> {
        RunColumns {
            keys: &self.key_columns,
            scheduler_params: &self.scheduler_params,
        }
    }

    /// The directory name under `results/` and `plots/`: the name, plus `-quick` in quick mode.
    pub fn dir_name(&self) -> String {
        if self.quick {
            format!("{}-quick", self.name)
        } else {
            self.name.clone()
        }
    }
}

impl std::fmt::Debug for Experiment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Experiment")
            .field("file", &self.file)
            .field("name", &self.name)
            .field("family", &self.family.name())
            .field("quick", &self.quick)
            .field("runs", &self.runs.len())
            .finish()
    }
}

/// A parameter after conversion: one value, or the values of an axis.
#[derive(Clone, Debug)]
struct Param {
    name: String,
    values: Vec<ParamValue>,
    axis: bool,
    field: String,
    span: Range<usize>,
}

/// A scheduler entry after conversion.
struct Sched {
    name: String,
    label: String,
    params: Vec<Param>,
    field: String,
    span: Range<usize>,
}

/// Reads, checks and expands an experiment file. `families` is the registry to resolve
/// `family` against (the binary passes [`schedulers::families::all`]); `quick` applies `[quick]`.
pub fn load(path: &Path, quick: bool, families: &[&'static dyn Family]) -> Result<Experiment, ExperimentError> {
    let text = platforms::read_text_file(path).map_err(|message| ExperimentError {
        diagnostics: vec![Diagnostic {
            // The message names the file (and the line of a bad byte) itself.
            file: PathBuf::new(),
            line: 0,
            column: 0,
            field: String::new(),
            message,
        }],
    })?;
    load_str(path, &text, quick, families)
}

/// Parses experiment text (syntax and field names only), as `load` does first.
pub fn parse(path: &Path, text: &str) -> Result<ExperimentSpec, ExperimentError> {
    spec::parse(text).map_err(|e| error::from_toml(path, text, &e))
}

/// The columns of a results CSV that identify runs, as the experiment declared them.
#[derive(Clone, Copy, Debug)]
pub struct RunColumns<'a> {
    /// Every key column ([`Experiment::key_columns`]).
    pub keys: &'a [String],
    /// The scheduler parameters among them: when one varies and a figure's series is the
    /// scheduler, its value joins the series name ("LDS (beta=5)") instead of being an error.
    pub scheduler_params: &'a [String],
}

/// The names of every scheduler parameter the experiment sets (`[[schedulers]] params`,
/// sorted): a figure whose series is the scheduler names the ones that vary in its legend.
pub fn scheduler_param_names(spec: &ExperimentSpec) -> Vec<String> {
    let names: BTreeSet<&String> = spec
        .schedulers
        .get_ref()
        .iter()
        .flat_map(|s| s.get_ref().params.keys().map(|k| k.get_ref()))
        .collect();
    names.into_iter().cloned().collect()
}

/// [`load`] on text already read; `path` locates messages and relative file names.
pub fn load_str(
    path: &Path,
    text: &str,
    quick: bool,
    families: &[&'static dyn Family],
) -> Result<Experiment, ExperimentError> {
    let spec = parse(path, text)?;
    let mut rep = Reporter::new(path, text);
    let resolved = resolve(&mut rep, path, text, &spec, quick, families);
    match resolved {
        Some(experiment) if !rep.has_errors() => Ok(experiment),
        _ => Err(rep.into_error()),
    }
}

fn resolve(
    rep: &mut Reporter<'_>,
    path: &Path,
    text: &str,
    spec: &ExperimentSpec,
    quick: bool,
    families: &[&'static dyn Family],
) -> Option<Experiment> {
    // Name.
    let name = spec.name.get_ref().clone();
    if !is_safe_name(&name) {
        rep.error(
            spec.name.span(),
            "name",
            format!("'{name}' is not a valid experiment name (use letters, digits, '-', '_' and '.', not starting with '.')"),
        );
    }

    // Family.
    let family = families.iter().copied().find(|f| f.name() == spec.family.get_ref());
    if family.is_none() {
        let valid = list(families.iter().map(|f| f.name()));
        rep.error(
            spec.family.span(),
            "family",
            format!("unknown family '{}' (valid: {valid})", spec.family.get_ref()),
        );
    }

    // Replications and seed.
    let mut replications = 1u32;
    if let Some(r) = &spec.replications {
        replications = positive_count(rep, r, "replications");
    }
    let base_seed = match &spec.seed {
        Some(s) if *s.get_ref() < 0 => {
            rep.error(
                s.span(),
                "seed",
                format!("must be a non-negative integer, not {}", s.get_ref()),
            );
            0
        }
        Some(s) => *s.get_ref() as u64,
        None => 1,
    };
    let crn = spec.common_random_numbers.unwrap_or(true);
    let run_seed = spec.run_seed.as_ref().and_then(|s| match s.get_ref().parse::<u64>() {
        Ok(seed) => Some((seed, s.span())),
        Err(_) => {
            rep.error(
                s.span(),
                "run_seed",
                format!(
                    "must be a seed as params.csv writes it, a decimal string from \"0\" to \"{}\", not \"{}\"",
                    u64::MAX,
                    s.get_ref()
                ),
            );
            None
        }
    });

    // Workload parameters.
    let mut workload: Vec<Param> = spec
        .params
        .iter()
        .filter_map(|(k, v)| convert_param(rep, "params", k, v))
        .collect();

    // Schedulers.
    let mut schedulers = Vec::new();
    if spec.schedulers.get_ref().is_empty() {
        rep.error(
            spec.schedulers.span(),
            "schedulers",
            "at least one [[schedulers]] entry is needed",
        );
    }
    for (i, entry) in spec.schedulers.get_ref().iter().enumerate() {
        let field = format!("schedulers[{i}]");
        let s = entry.get_ref();
        let label = s
            .label
            .as_ref()
            .map_or_else(|| s.name.get_ref().clone(), |l| l.get_ref().clone());
        if let Some(l) = &s.label {
            if l.get_ref().is_empty() || l.get_ref().contains(['\n', '\r']) {
                rep.error(l.span(), format!("{field}.label"), "must be a non-empty single line");
            }
        }
        if let Some(previous) = schedulers.iter().find(|p: &&Sched| p.label == label) {
            let at = s.label.as_ref().map_or(s.name.span(), |l| l.span());
            rep.error(
                at,
                format!("{field}.label"),
                format!(
                    "label '{label}' is already used by {}; give each entry a distinct `label`",
                    previous.field
                ),
            );
        }
        let params = s
            .params
            .iter()
            .filter_map(|(k, v)| convert_param(rep, &format!("{field}.params"), k, v))
            .collect();
        schedulers.push(Sched {
            name: s.name.get_ref().clone(),
            label,
            params,
            field,
            span: s.name.span(),
        });
    }

    // Quick overrides.
    if quick {
        match &spec.quick {
            None => rep.file_error("quick", "--quick needs a [quick] section in the experiment file"),
            Some(q) => {
                let q = q.get_ref();
                if let Some(r) = &q.replications {
                    replications = positive_count(rep, r, "quick.replications");
                }
                for (k, v) in &q.params {
                    let Some(new) = convert_param(rep, "quick.params", k, v) else {
                        continue;
                    };
                    match workload.iter_mut().find(|p| p.name == new.name) {
                        Some(old) => *old = new,
                        None => rep.error(
                            k.span(),
                            format!("quick.params.{}", k.get_ref()),
                            format!(
                                "not in [params]; [quick] may only override existing parameters (those are: {})",
                                list(workload.iter().map(|p| p.name.as_str()))
                            ),
                        ),
                    }
                }
                let labels: Vec<String> = schedulers.iter().map(|s| s.label.clone()).collect();
                for (label, table) in &q.scheduler_params {
                    let Some(s) = schedulers.iter_mut().find(|s| &s.label == label.get_ref()) else {
                        rep.error(
                            label.span(),
                            format!("quick.scheduler_params.{}", label.get_ref()),
                            format!("no scheduler has this label (labels: {})", list(&labels)),
                        );
                        continue;
                    };
                    for (k, v) in table {
                        let field = format!("quick.scheduler_params.{}", label.get_ref());
                        let Some(new) = convert_param(rep, &field, k, v) else {
                            continue;
                        };
                        match s.params.iter_mut().find(|p| p.name == new.name) {
                            Some(old) => *old = new,
                            None => rep.error(
                                k.span(),
                                format!("{field}.{}", k.get_ref()),
                                format!(
                                    "scheduler '{}' has no such parameter to override (it has: {})",
                                    s.label,
                                    list(s.params.iter().map(|p| p.name.as_str()))
                                ),
                            ),
                        }
                    }
                }
                if let Some(keep) = &q.schedulers {
                    for k in keep {
                        if !labels.contains(k.get_ref()) {
                            rep.error(
                                k.span(),
                                "quick.schedulers",
                                format!(
                                    "no scheduler has the label '{}' (labels: {})",
                                    k.get_ref(),
                                    list(&labels)
                                ),
                            );
                        }
                    }
                    schedulers.retain(|s| keep.iter().any(|k| k.get_ref() == &s.label));
                }
            }
        }
    }

    // Names: known to the family, not reserved, not both workload and scheduler parameters.
    let workload_names: BTreeSet<&str> = workload.iter().map(|p| p.name.as_str()).collect();
    let all_params: Vec<&Param> = workload
        .iter()
        .chain(schedulers.iter().flat_map(|s| &s.params))
        .collect();
    for p in &all_params {
        if RESERVED_COLUMNS.contains(&p.name.as_str()) {
            rep.error(
                p.span.clone(),
                &p.field,
                format!(
                    "'{}' is reserved for gridsim's own columns ({})",
                    p.name,
                    list(RESERVED_COLUMNS)
                ),
            );
        } else if let Some(f) = family {
            if schedulers::family::find_parameter(f, &p.name).is_none() {
                rep.error(
                    p.span.clone(),
                    &p.field,
                    format!(
                        "unknown parameter '{}' for family '{}' (valid: {})",
                        p.name,
                        f.name(),
                        list(schedulers::family::parameter_names(f))
                    ),
                );
            }
        }
    }
    for s in &schedulers {
        for p in &s.params {
            if workload_names.contains(p.name.as_str()) {
                rep.error(
                    p.span.clone(),
                    &p.field,
                    format!("'{}' is also set in [params]; set it in one place only", p.name),
                );
            }
        }
        if let Some(f) = family {
            if !f.schedulers().iter().any(|n| n.name == s.name) {
                rep.error(
                    s.span.clone(),
                    format!("{}.name", s.field),
                    format!(
                        "unknown scheduler '{}' for family '{}' (valid: {})",
                        s.name,
                        f.name(),
                        list(f.schedulers().iter().map(|n| n.name))
                    ),
                );
            }
        }
    }

    let run_limits = limits::resolve(rep, &spec.limits);

    // Tables.
    let mut tables: Vec<String> = Vec::new();
    for t in &spec.outputs.tables {
        let name = t.get_ref();
        if !is_safe_name(name) || RESERVED_TABLES.contains(&name.as_str()) {
            rep.error(
                t.span(),
                "outputs.tables",
                format!(
                    "'{name}' cannot name a table file (use letters, digits, '-', '_', '.'; not {})",
                    list(RESERVED_TABLES)
                ),
            );
        } else if tables.contains(name) {
            rep.error(t.span(), "outputs.tables", format!("'{name}' is listed twice"));
        } else if let Some(f) = family.filter(|f| !f.tables().iter().any(|d| d.name == name.as_str())) {
            rep.error(
                t.span(),
                "outputs.tables",
                format!(
                    "family '{}' has no table '{name}' (its tables: {})",
                    f.name(),
                    list(f.tables().iter().map(|d| d.name))
                ),
            );
        } else {
            tables.push(name.clone());
        }
    }

    // Platforms, and the availability trace laid over them.
    let (mut platforms, mut platform_axis) = platform::resolve(rep, path, spec);
    let mut warnings: Vec<String> = platforms
        .iter()
        .flat_map(|entry| platform::profile_warnings(path, &entry.name, &entry.platform))
        .collect();
    if let Some(a) = &spec.platform.get_ref().availability {
        if !platforms.is_empty() {
            platform_axis |= availability::apply(rep, path, a, &mut platforms, &mut warnings);
        }
    }
    if let Some(sharing) = &spec.platform.get_ref().sharing {
        match platforms::check_setting("sharing", sharing.get_ref()) {
            Ok(()) => {
                for entry in &mut platforms {
                    let platform = Arc::make_mut(&mut entry.platform);
                    platform
                        .config
                        .insert("sharing".into(), sharing.get_ref().trim().to_string());
                }
            }
            Err(e) => rep.error(sharing.span(), "platform.sharing", e),
        }
    }

    // Job trace.
    let job_trace = spec.workload.as_ref().and_then(|w| {
        // Read (and report on) the trace first, whatever the family, so a mistake in it is
        // never hidden behind the family's refusal.
        let entry = workload::resolve(rep, path, w);
        if let Some(f) = family.filter(|f| !f.replays_job_traces()) {
            rep.error(
                w.span(),
                "workload",
                format!("family '{}' does not replay a job trace; remove [workload]", f.name()),
            );
        }
        if let (Some(f), Some(scale)) = (family, &w.get_ref().load_scale) {
            if let Some(param) = f.sets_offered_load() {
                rep.error(
                    scale.span(),
                    "workload.load_scale",
                    format!(
                        "family '{}' scales the trace's arrivals to its parameter '{param}' itself, which would \
                         override load_scale; set '{param}' instead",
                        f.name()
                    ),
                );
            }
        }
        entry
    });

    let family = family?;
    if rep.has_errors() || platforms.is_empty() {
        return None;
    }

    // Axes and key columns.
    let axes: Vec<String> = all_params
        .iter()
        .filter(|p| p.axis)
        .map(|p| p.name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut key_columns = Vec::new();
    if platform_axis {
        key_columns.push("platform".to_string());
    }
    let load_scale_axis = job_trace.as_ref().is_some_and(|w| w.load_scale_axis);
    if load_scale_axis {
        key_columns.push(LOAD_SCALE.to_string());
    }
    key_columns.extend(axes.iter().cloned());
    key_columns.extend(["scheduler", "replication", "seed"].map(String::from));

    // Size check before expanding.
    let workload_combos = combos(&workload);
    let mut per_platform = 0usize;
    for s in &schedulers {
        per_platform = per_platform.saturating_add(combos(&s.params));
    }
    let load_variants: Vec<Option<&workload::WorkloadVariant>> = match &job_trace {
        Some(w) => w.variants.iter().map(Some).collect(),
        None => vec![None],
    };
    let total = platforms
        .len()
        .saturating_mul(load_variants.len())
        .saturating_mul(workload_combos)
        .saturating_mul(per_platform)
        .saturating_mul(replications as usize);
    if total > MAX_RUNS {
        rep.file_error(
            "",
            format!("the sweep expands to {total} runs, more than the limit of {MAX_RUNS}"),
        );
        return None;
    }
    // Each expanded run holds its parameters, keys and fingerprint, and the parameters it uses
    // with their defaults (`used`), which grow with the family's parameters: `validate`'s
    // peak was 2.2 kB a run on a 2.6-million-run bag-of-tasks sweep (16 parameters) and 3.8 kB
    // on a steal sweep (34), about 0.8 kB and 90 bytes a parameter; a little more is counted
    // here. Refuse a sweep whose expansion alone cannot fit, before any of it is allocated.
    const RUN_BYTES: u64 = 1024;
    const PARAM_BYTES: u64 = 96;
    let run_bytes = RUN_BYTES + PARAM_BYTES * schedulers::family::parameter_names(family).len() as u64;
    if let Err(message) = crate::memory::check_fits(
        &format!("expanding the sweep's {total} runs"),
        (total as u64).saturating_mul(run_bytes),
    ) {
        rep.file_error("", message);
        return None;
    }
    if total == 0 {
        let quick_schedulers = spec.quick.as_ref().map(|q| rep.key_span(q.span(), "schedulers"));
        let message = "the sweep expands to no run (every scheduler was removed by [quick].schedulers)";
        match quick_schedulers {
            Some(span) => rep.error(span, "quick.schedulers", message),
            None => rep.file_error("", message),
        }
        return None;
    }

    if let Some((_, span)) = &run_seed {
        if replications > 1 {
            rep.error(
                span.clone(),
                "run_seed",
                format!(
                    "fixes every run's seed, so its {replications} replications would be one run: set replications = 1"
                ),
            );
        }
    }

    // Expansion.
    let mut tables_sorted = tables.clone();
    tables_sorted.sort();
    let mut runs = Vec::with_capacity(total);
    let workload_values = product(&workload);
    for (platform, variant) in platforms
        .iter()
        .flat_map(|p| load_variants.iter().map(move |v| (p, *v)))
    {
        let load_scale = variant.map(|v| ParamValue::Float(v.load_scale));
        for wvalues in &workload_values {
            let wpairs: Vec<(&str, &ParamValue)> =
                workload.iter().map(|p| p.name.as_str()).zip(wvalues.iter()).collect();
            // A swept load scale draws its own streams, as any other axis does.
            let mut seed_pairs = wpairs.clone();
            if let (true, Some(scale)) = (load_scale_axis, &load_scale) {
                seed_pairs.push((LOAD_SCALE, scale));
                seed_pairs.sort_by(|a, b| a.0.cmp(b.0));
            }
            for s in &schedulers {
                let mut sparams: Vec<&Param> = s.params.iter().collect();
                sparams.sort_by(|a, b| a.name.cmp(&b.name));
                let owned: Vec<Param> = sparams.into_iter().cloned().collect();
                for svalues in product(&owned) {
                    let spairs: Vec<(&str, &ParamValue)> =
                        owned.iter().map(|p| p.name.as_str()).zip(svalues.iter()).collect();
                    for replication in 0..replications {
                        let seed = run_seed.as_ref().map_or_else(
                            || {
                                derive_seed(&SeedInput {
                                    base_seed,
                                    platform: &platform.name,
                                    params: if crn { &[] } else { &seed_pairs },
                                    scheduler: if crn { None } else { Some((&s.name, &spairs)) },
                                    replication,
                                })
                            },
                            |(seed, _)| *seed,
                        );
                        let params: BTreeMap<String, ParamValue> = wpairs
                            .iter()
                            .chain(spairs.iter())
                            .map(|(n, v)| (n.to_string(), (*v).clone()))
                            .collect();
                        let keys = key_columns
                            .iter()
                            .map(|c| match c.as_str() {
                                "platform" => platform.name.clone(),
                                "scheduler" => s.label.clone(),
                                "replication" => replication.to_string(),
                                "seed" => seed.to_string(),
                                LOAD_SCALE => load_scale.as_ref().map(format_value).unwrap_or_default(),
                                axis => params.get(axis).map(format_value).unwrap_or_default(),
                            })
                            .collect();
                        let fp = fingerprint(|h: &mut StableHasher| {
                            h.str("gridsim-run-v1");
                            // A record made by another gridsim release, or by a build whose
                            // simulation code differs (build.rs hashes it), is not reused:
                            // resuming or merging never mixes results of two simulators.
                            h.str(env!("CARGO_PKG_VERSION"));
                            h.str(crate::BUILD_ID);
                            h.str(family.name());
                            h.str(&platform.name);
                            h.u64(platform.content_hash);
                            if let Some(v) = variant {
                                h.str("workload");
                                h.u64(v.content_hash);
                            }
                            h.str(&s.name);
                            for (n, v) in &params {
                                h.str(n);
                                h.value(v);
                            }
                            h.u64(replication as u64);
                            h.u64(seed);
                            for t in &tables_sorted {
                                h.str(t);
                            }
                        });
                        runs.push(Run {
                            spec: RunSpec {
                                index: runs.len(),
                                platform: platform.platform.clone(),
                                platform_name: platform.name.clone(),
                                scheduler: s.name.clone(),
                                params,
                                replication,
                                seed,
                                workload: variant.map(|v| v.workload.clone()),
                                tables: tables_sorted.clone(),
                            },
                            label: s.label.clone(),
                            keys,
                            fingerprint: fp,
                            failures: platform.failures.clone(),
                            used: UsedParams::new(),
                        });
                    }
                }
            }
        }
    }

    // Every run through the family's own checks; failures located at the parameter they name.
    let platform_spec = spec.platform.get_ref();
    let platform_at = match (&platform_spec.file, &platform_spec.generator) {
        (Some(file), _) => ("platform.file".to_string(), file.span()),
        (None, Some(generator)) => ("platform.generator".to_string(), generator.span()),
        (None, None) => ("platform".to_string(), spec.platform.span()),
    };
    let mut seen_messages = BTreeSet::new();
    for run in &mut runs {
        let sched = schedulers
            .iter()
            .find(|s| s.label == run.label)
            .expect("run of a known scheduler");
        let fits = family.memory_estimate(&run.spec).map_or(Ok(()), |estimate| {
            crate::memory::check_fits(&format!("the run's {}", estimate.what), estimate.bytes)
                .map_err(|message| (message, param_at(estimate.param, sched, &workload)))
        });
        let checked = match family.validate(&run.spec) {
            Ok(used) => fits.map(|()| used),
            Err(error) => {
                let at = locate_run_error(&error, sched, &workload, &platform_at);
                Err((error.to_string(), Some(at)))
            }
        };
        match checked {
            Ok(used) => run.used = used,
            Err((message, at)) => {
                if !seen_messages.insert(message.clone()) {
                    continue;
                }
                let (field, span) = at.unwrap_or_else(|| scheduler_at(sched));
                rep.error(
                    span,
                    field,
                    format!(
                        "family '{}' rejects run {}: {message}",
                        family.name(),
                        run.describe(&key_columns)
                    ),
                );
                if seen_messages.len() >= MAX_RUN_DIAGNOSTICS {
                    break;
                }
            }
        }
    }

    // Replications of runs that cannot differ would give intervals of zero width.
    if replications > 1
        && !runs
            .iter()
            .any(|r| r.failures.is_some() || family.draws_random_numbers(&r.spec))
    {
        let (line, column) = spec
            .replications
            .as_ref()
            .map_or((0, 0), |r| rep.locate(r.span().start));
        warnings.push(format!(
            "{}:{line}:{column}: replications: {replications} replications of runs that draw no random \
             number are identical (their 95% intervals have zero width): give the runs a source of \
             variability (see `gridsim list`, e.g. the bag-of-tasks family's task_cv) or set replications = 1",
            path.display()
        ));
    }

    // Included experiments: they must exist (each is checked when it is loaded itself).
    let mut includes = Vec::new();
    for inc in &spec.includes {
        let resolved = path.parent().unwrap_or(Path::new("")).join(inc.get_ref());
        if !resolved.is_file() {
            rep.error(
                inc.span(),
                "includes",
                format!(
                    "experiment file '{}' not found (looked for {}; paths are relative to the experiment file)",
                    inc.get_ref(),
                    resolved.display()
                ),
            );
        } else if includes.contains(&resolved) {
            rep.error(inc.span(), "includes", format!("'{}' is listed twice", inc.get_ref()));
        } else {
            includes.push(resolved);
        }
    }

    // Figures.
    let figures: Vec<FigureSpec> = spec.figures.iter().map(|f| f.get_ref().clone()).collect();
    let scheduler_params = scheduler_param_names(spec);
    let columns = RunColumns {
        keys: &key_columns,
        scheduler_params: &scheduler_params,
    };
    figures::check_figures(rep, &spec.figures, family, &tables, columns, &runs, quick);

    Some(Experiment {
        file: path.to_path_buf(),
        text: text.to_string(),
        name,
        description: spec
            .description
            .as_ref()
            .map(|d| d.get_ref().clone())
            .unwrap_or_default(),
        family,
        quick,
        tables,
        limits: run_limits,
        figures,
        platforms,
        workload: job_trace,
        axes,
        key_columns,
        scheduler_params,
        runs,
        includes,
        warnings,
    })
}

/// Letters, digits, `-`, `_`, `.`, not starting with `.`: safe as a file or directory name.
pub fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn positive_count(rep: &mut Reporter<'_>, value: &Spanned<i64>, field: &str) -> u32 {
    let v = *value.get_ref();
    if !(1..=1_000_000).contains(&v) {
        rep.error(value.span(), field, format!("must be between 1 and 1000000, not {v}"));
        1
    } else {
        v as u32
    }
}

/// A TOML value as a parameter value, if it is a scalar.
pub fn scalar(value: &toml::Value) -> Option<ParamValue> {
    match value {
        toml::Value::Integer(i) => Some(ParamValue::Int(*i)),
        toml::Value::Float(x) => Some(ParamValue::Float(*x)),
        toml::Value::String(s) => Some(ParamValue::Str(s.clone())),
        toml::Value::Boolean(b) => Some(ParamValue::Bool(*b)),
        _ => None,
    }
}

fn convert_param(
    rep: &mut Reporter<'_>,
    prefix: &str,
    key: &Spanned<String>,
    value: &Spanned<toml::Value>,
) -> Option<Param> {
    let name = key.get_ref().clone();
    let field = format!("{prefix}.{name}");
    let unsupported = "unsupported value: use a number, a string, a boolean, or a list of them (a sweep axis)";
    let (values, axis) = match value.get_ref() {
        toml::Value::Array(items) => {
            if items.is_empty() {
                rep.error(value.span(), &field, "an axis needs at least one value");
                return None;
            }
            let mut values = Vec::with_capacity(items.len());
            for item in items {
                let Some(v) = scalar(item) else {
                    rep.error(value.span(), &field, unsupported);
                    return None;
                };
                let text = format_value(&v);
                if values.iter().any(|w: &ParamValue| format_value(w) == text) {
                    rep.error(value.span(), &field, format!("the axis lists {text} twice"));
                    return None;
                }
                values.push(v);
            }
            (values, true)
        }
        other => match scalar(other) {
            Some(v) => (vec![v], false),
            None => {
                rep.error(value.span(), &field, unsupported);
                return None;
            }
        },
    };
    if let Some(ParamValue::Float(x)) = values
        .iter()
        .find(|v| matches!(v, ParamValue::Float(x) if !x.is_finite()))
    {
        rep.error(value.span(), &field, format!("{x} is not a finite number"));
        return None;
    }
    Some(Param {
        name,
        values,
        axis,
        field,
        span: key.span(),
    })
}

/// Number of value combinations of a set of parameters.
fn combos(params: &[Param]) -> usize {
    params.iter().fold(1usize, |n, p| n.saturating_mul(p.values.len()))
}

/// The cartesian product of the parameters' values, the first parameter varying slowest.
fn product(params: &[Param]) -> Vec<Vec<ParamValue>> {
    let mut out: Vec<Vec<ParamValue>> = vec![Vec::new()];
    for p in params {
        let mut next = Vec::with_capacity(out.len() * p.values.len());
        for prefix in &out {
            for v in &p.values {
                let mut row = prefix.clone();
                row.push(v.clone());
                next.push(row);
            }
        }
        out = next;
    }
    out
}

/// Where the experiment sets parameter `name` for this run: among the scheduler's parameters,
/// else the workload's.
fn param_at(name: &str, sched: &Sched, workload: &[Param]) -> Option<(String, Range<usize>)> {
    sched
        .params
        .iter()
        .chain(workload)
        .find(|p| p.name == name)
        .map(|p| (p.field.clone(), p.span.clone()))
}

/// The scheduler entry of a run.
fn scheduler_at(sched: &Sched) -> (String, Range<usize>) {
    (format!("{}.name", sched.field), sched.span.clone())
}

/// Where a family's refusal of a run belongs: the parameter it names (or the scheduler, when
/// the value is a default), the platform, or else the scheduler.
fn locate_run_error(
    error: &RunError,
    sched: &Sched,
    workload: &[Param],
    platform_at: &(String, Range<usize>),
) -> (String, Range<usize>) {
    match error {
        RunError::Param(e) => param_at(&e.param, sched, workload).unwrap_or_else(|| scheduler_at(sched)),
        RunError::Platform(_) => platform_at.clone(),
        RunError::Policy(_) | RunError::Other(_) => scheduler_at(sched),
    }
}

/// The values a `where` entry keeps, as CSV text.
pub fn filter_values(value: &toml::Value) -> Option<Vec<String>> {
    match value {
        toml::Value::Array(items) => items.iter().map(|i| scalar(i).map(|v| format_value(&v))).collect(),
        other => scalar(other).map(|v| vec![format_value(&v)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_varies_the_last_parameter_fastest() {
        let p = |name: &str, vals: &[i64]| Param {
            name: name.into(),
            values: vals.iter().map(|&v| ParamValue::Int(v)).collect(),
            axis: true,
            field: String::new(),
            span: 0..0,
        };
        let rows = product(&[p("a", &[1, 2]), p("b", &[10, 20, 30])]);
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[0], vec![ParamValue::Int(1), ParamValue::Int(10)]);
        assert_eq!(rows[1], vec![ParamValue::Int(1), ParamValue::Int(20)]);
        assert_eq!(rows[3], vec![ParamValue::Int(2), ParamValue::Int(10)]);
        assert_eq!(product(&[]), vec![Vec::<ParamValue>::new()]);
    }

    #[test]
    fn safe_names() {
        assert!(is_safe_name("lds-2024_v1.2"));
        for bad in ["", ".hidden", "a/b", "a b", "..", "é"] {
            assert!(!is_safe_name(bad), "{bad}");
        }
    }
}

//! The experiment file as written: serde structs that mirror the TOML, unknown fields rejected,
//! with source spans kept for error messages. Nothing here is checked beyond TOML types; the
//! resolver in [`super`] turns a spec into runs.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// Parameters by name; a value is a scalar, or a list (a sweep axis).
pub type ParamTable = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// A whole experiment file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Directory name under `results/` and `plots/`: letters, digits, `-`, `_`, `.`.
    pub name: Spanned<String>,
    /// One line for `gridsim list`.
    #[serde(default)]
    pub description: Option<Spanned<String>>,
    /// Application family (see `gridsim list`).
    pub family: Spanned<String>,
    /// Where the platform comes from.
    pub platform: Spanned<PlatformSpec>,
    /// Workload parameters; lists are sweep axes.
    #[serde(default)]
    pub params: ParamTable,
    /// The schedulers to compare.
    pub schedulers: Spanned<Vec<Spanned<SchedulerSpec>>>,
    /// Replications of every parameter combination (default 1).
    #[serde(default)]
    pub replications: Option<Spanned<i64>>,
    /// Base seed (default 1).
    #[serde(default)]
    pub seed: Option<Spanned<i64>>,
    /// When true (the default), a run's seed ignores its scheduler, so compared schedulers see
    /// the same workload (common random numbers).
    #[serde(default)]
    pub common_random_numbers: Option<bool>,
    /// Which per-run tables to write.
    #[serde(default)]
    pub outputs: OutputsSpec,
    /// Figures to draw.
    #[serde(default)]
    pub figures: Vec<Spanned<FigureSpec>>,
    /// Overrides for `--quick`.
    #[serde(default)]
    pub quick: Option<Spanned<QuickSpec>>,
}

/// `[platform]`: a file, or a generator with its parameters.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformSpec {
    /// A platform file (SimGrid XML or gridsim TOML) relative to the experiment file, or a list
    /// of them (then `platform` is a sweep axis).
    pub file: Option<Spanned<toml::Value>>,
    /// A platform generator: `random_grid` or `homogeneous_cluster`.
    pub generator: Option<Spanned<String>>,
    /// The generator's parameters; lists make `platform` a sweep axis.
    #[serde(default)]
    pub params: ParamTable,
}

/// One `[[schedulers]]` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerSpec {
    /// Scheduler name, as the family registers it.
    pub name: Spanned<String>,
    /// Name in the `scheduler` column and in legends (default: `name`); must be unique.
    #[serde(default)]
    pub label: Option<Spanned<String>>,
    /// The scheduler's parameters; lists are sweep axes.
    #[serde(default)]
    pub params: ParamTable,
}

/// `[outputs]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputsSpec {
    /// Per-run tables the family returns (e.g. `chunks`), each written to `<table>.csv`.
    #[serde(default)]
    pub tables: Vec<Spanned<String>>,
}

/// One `[[figures]]` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// File stem: `plots/<experiment>/<name>.svg` and `.png`.
    pub name: Spanned<String>,
    /// Title above the figure.
    #[serde(default)]
    pub title: Option<String>,
    /// `runs` (default) or the name of a table listed in `[outputs]`.
    #[serde(default)]
    pub source: Option<Spanned<String>>,
    /// Column on the horizontal axis.
    pub x: Spanned<String>,
    /// Column on the vertical axis (averaged over replications).
    pub y: Spanned<String>,
    /// Column whose values are the lines (default `scheduler`).
    #[serde(default)]
    pub series: Option<Spanned<String>>,
    /// Column whose values get one sub-plot each.
    #[serde(default)]
    pub panels: Option<Spanned<String>>,
    /// Horizontal axis label, with units (default: the column name).
    #[serde(default)]
    pub x_label: Option<String>,
    /// Vertical axis label, with units (default: the column name).
    #[serde(default)]
    pub y_label: Option<String>,
    /// Logarithmic horizontal axis.
    #[serde(default)]
    pub x_log: bool,
    /// Logarithmic vertical axis.
    #[serde(default)]
    pub y_log: bool,
    /// Draw 95% confidence intervals (Student t) over replications (default true).
    #[serde(default)]
    pub error_bars: Option<bool>,
    /// Keep only rows whose columns have these values.
    #[serde(default, rename = "where")]
    pub filter: ParamTable,
}

/// `[quick]`: what `--quick` changes.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickSpec {
    /// Replications in quick mode.
    #[serde(default)]
    pub replications: Option<Spanned<i64>>,
    /// Replaces entries of `[params]` (names must exist there).
    #[serde(default)]
    pub params: ParamTable,
    /// Keep only these scheduler labels.
    #[serde(default)]
    pub schedulers: Option<Vec<Spanned<String>>>,
    /// Replaces scheduler parameters, by scheduler label.
    #[serde(default)]
    pub scheduler_params: BTreeMap<Spanned<String>, ParamTable>,
}

/// Parses experiment text (TOML syntax and field names only).
pub fn parse(text: &str) -> Result<ExperimentSpec, toml::de::Error> {
    toml::from_str(text)
}

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
    /// A job trace the runs replay (families that replay job streams).
    #[serde(default)]
    pub workload: Option<Spanned<WorkloadSpec>>,
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
    /// Every run's seed, as params.csv's `seed` column gives it, instead of one derived from
    /// the base seed: to run one row of an earlier sweep again. A decimal string, because
    /// seeds go beyond TOML's integers; needs `replications = 1`.
    #[serde(default)]
    pub run_seed: Option<Spanned<String>>,
    /// When true (the default), a run's seed ignores its scheduler and parameters, so compared
    /// schedulers and sweep points see the same random numbers (common random numbers).
    #[serde(default)]
    pub common_random_numbers: Option<bool>,
    /// Which per-run tables to write.
    #[serde(default)]
    pub outputs: OutputsSpec,
    /// Resource guards of every run (`[limits]`).
    #[serde(default)]
    pub limits: LimitsSpec,
    /// Figures to draw.
    #[serde(default)]
    pub figures: Vec<Spanned<FigureSpec>>,
    /// Overrides for `--quick`.
    #[serde(default)]
    pub quick: Option<Spanned<QuickSpec>>,
    /// Other experiment files (relative to this one) that `gridsim run` and `gridsim validate`
    /// take on after this one, each into its own results directory: one command for a paper
    /// whose figures need sweeps that one cartesian product cannot express.
    #[serde(default)]
    pub includes: Vec<Spanned<String>>,
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
    /// An availability trace laid over every platform's hosts.
    #[serde(default)]
    pub availability: Option<Spanned<AvailabilitySpec>>,
    /// The engine's sharing mode for every platform: `fast` (bottleneck clocks, the default) or
    /// `exact` (the reference solver); overrides the platform file's own `sharing` setting.
    pub sharing: Option<Spanned<String>>,
}

/// `[workload]`: a job trace and the part of it the runs replay (see `docs/guide.md`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// The trace file, relative to the experiment file (plain or gzip).
    pub trace: Spanned<String>,
    /// `swf`, `gwf` or `hbd` (default: from the file name and first line).
    #[serde(default)]
    pub format: Option<Spanned<String>>,
    /// `[from, to]`: keep jobs submitted in `[from, to)` seconds after the trace's first job.
    #[serde(default)]
    pub window_s: Option<Spanned<Vec<f64>>>,
    /// Keep the first N jobs (after the other filters).
    #[serde(default)]
    pub first: Option<Spanned<i64>>,
    /// Keep only jobs on one processor.
    #[serde(default)]
    pub serial_only: Option<bool>,
    /// Keep SWF/GWF partial-execution records (status 2, 3, 4).
    #[serde(default)]
    pub keep_partial: Option<bool>,
    /// Divide arrival times by this (> 0): 2 doubles the offered load. A list of them is a
    /// sweep axis (`load_scale`, one column of `runs.csv`). Kept as a TOML value so that a
    /// wrong type is reported in plain words.
    #[serde(default)]
    pub load_scale: Option<Spanned<toml::Value>>,
}

/// `[platform.availability]`: host on/off states over time, from a trace or a random model.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AvailabilitySpec {
    /// An FTA `event_trace.tab`, or a SimGrid state profile (`date value` lines), relative to
    /// the experiment file; a list of them is a sweep axis (one platform per trace). Kept as a
    /// TOML value so that a wrong type is reported in plain words.
    #[serde(default)]
    pub trace: Option<Spanned<toml::Value>>,
    /// Random failures instead of a trace: `exponential` or `weibull`.
    #[serde(default)]
    pub model: Option<Spanned<String>>,
    /// Random model: mean up period, s.
    #[serde(default)]
    pub mtbf_s: Option<Spanned<f64>>,
    /// Random model: mean down period, s.
    #[serde(default)]
    pub mttr_s: Option<Spanned<f64>>,
    /// Weibull model: shape of the up and down periods.
    #[serde(default)]
    pub shape: Option<Spanned<f64>>,
    /// Random model: failures are drawn over this many seconds, then repeat (default 1e7).
    #[serde(default)]
    pub horizon_s: Option<Spanned<f64>>,
    /// `fta` or `profile` (default: `fta` when the file looks like one, else `profile`).
    #[serde(default)]
    pub format: Option<Spanned<String>>,
    /// The hosts that receive the trace, in order (default: every host in platform order,
    /// less `exclude`).
    #[serde(default)]
    pub hosts: Option<Spanned<Vec<Spanned<String>>>>,
    /// Hosts that never receive the trace (e.g. the master).
    #[serde(default)]
    pub exclude: Vec<Spanned<String>>,
    /// FTA: `order` (the i-th node by node id goes to the i-th host, the default) or `name`
    /// (a node goes to the host of the same name).
    #[serde(default)]
    pub map: Option<Spanned<String>>,
    /// FTA: simulation time 0 is this many seconds after the trace's first event (default 0).
    #[serde(default)]
    pub offset_s: Option<Spanned<f64>>,
    /// FTA: state of a node between its recorded intervals, `off` (default) or `on`.
    #[serde(default)]
    pub gaps: Option<Spanned<String>>,
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

/// `[limits]`: what one run may use before it is stopped and reported (numbers are checked
/// when the experiment is resolved, so that a wrong type is named in plain words).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// Engine events per run.
    #[serde(default)]
    pub events: Option<Spanned<toml::Value>>,
    /// Wall-clock seconds per run.
    #[serde(default)]
    pub wall_s: Option<Spanned<toml::Value>>,
}

/// One `[[figures]]` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// File stem: `plots/<experiment>/<name>.svg` and `.png`.
    pub name: Spanned<String>,
    /// What to draw: `lines` (default), `bars`, `timeline` or `step` (see [`FigureKind`]). Kept as text
    /// so that an unknown kind is reported by the experiment checks, with the valid kinds.
    #[serde(default)]
    pub kind: Option<Spanned<String>>,
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
    /// Timelines: the column where each interval ends (`x` is where it starts).
    #[serde(default)]
    pub x_end: Option<Spanned<String>>,
    /// Timelines: a non-negative number per interval drawn as a shade of gray (darker = larger;
    /// 0 = not drawn).
    #[serde(default)]
    pub shade: Option<Spanned<String>>,
    /// Timelines and step lines: `[from, to]`, the window of `x` drawn; intervals and steps
    /// are clipped to it (a Gantt chart of one day of a year-long run).
    #[serde(default)]
    pub x_range: Option<Spanned<Vec<f64>>>,
    /// Timelines: a column whose values (e.g. `job_id`, `user`) each get a color of a
    /// qualitative palette, cycled when there are more values than colors; not with `shade`.
    #[serde(default)]
    pub color: Option<Spanned<String>>,
    /// Timelines: a per-run table of periods a strip is down (e.g. the bag-of-tasks family's
    /// `downtime`), with the `y` column and `from_s`, `to_s`; each period is drawn as a hatched
    /// light gray band behind the intervals of its strip, in the panel of the same run.
    #[serde(default)]
    pub down: Option<Spanned<String>>,
    /// Bars: the series value the other bars are compared with; each other bar is annotated
    /// with its improvement `(baseline - value) / baseline` in percent.
    #[serde(default)]
    pub baseline: Option<Spanned<String>>,
    /// Display text for values of the series, panels and (categorical) x columns, keyed by the
    /// value as the CSV holds it (`""` for a value that is not set): legends, panel titles and
    /// category names show the text instead of the raw value.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Display text gridsim gives values when `labels` does not: each platform's short label
    /// (`PlatformEntry::label`), filled in when drawing; never read from the file.
    #[serde(skip)]
    pub value_names: BTreeMap<String, String>,
    /// Fewest replications behind a point for its confidence interval to be drawn (default
    /// 3): in a replicated figure, a point averaged over fewer is drawn hollow, without an
    /// interval, and the figure says so below its legend.
    #[serde(default)]
    pub min_replications: Option<Spanned<i64>>,
    /// `shared` (default): every panel has the same y axis, so panels compare; `per_panel`:
    /// each panel's y axis fits its own data.
    #[serde(default)]
    pub y_scale: Option<Spanned<String>>,
}

/// Default of [`FigureSpec::min_replications`]: with two values the 95% Student-t interval is
/// ±12.7 standard errors, too wide to say anything.
pub const DEFAULT_MIN_REPLICATIONS: usize = 3;

/// The values of [`FigureSpec::y_scale`].
pub const Y_SCALES: [&str; 2] = ["shared", "per_panel"];

/// The kinds of figure, the values of `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FigureKind {
    /// Mean of y against x, one line per series, with error bars (the default).
    Lines,
    /// Grouped bars: one group per x value, one bar per series.
    Bars,
    /// One horizontal strip per value of y, intervals from x to x_end, one run per panel.
    Timeline,
    /// A per-run table's y against x as a step line (y holds from each row's x to the next
    /// row's), one run per series: a quantity over time, e.g. a batch run's power.
    Step,
}

impl FigureKind {
    /// Every kind, in the order messages list them.
    pub const ALL: [FigureKind; 4] = [
        FigureKind::Lines,
        FigureKind::Bars,
        FigureKind::Timeline,
        FigureKind::Step,
    ];

    /// The kind's name in experiment files.
    pub fn name(self) -> &'static str {
        match self {
            FigureKind::Lines => "lines",
            FigureKind::Bars => "bars",
            FigureKind::Timeline => "timeline",
            FigureKind::Step => "step",
        }
    }
}

impl FigureSpec {
    /// Every column the figure names, with the field naming it (`x`, `series`, `where.nodes`):
    /// x, y, series, panels, x_end, shade, color when given, then the `where` keys.
    pub fn named_columns(&self) -> Vec<(String, &Spanned<String>)> {
        let fields = [
            ("x", Some(&self.x)),
            ("y", Some(&self.y)),
            ("series", self.series.as_ref()),
            ("panels", self.panels.as_ref()),
            ("x_end", self.x_end.as_ref()),
            ("shade", self.shade.as_ref()),
            ("color", self.color.as_ref()),
        ];
        let fields = fields.into_iter().filter_map(|(f, c)| Some((f.to_string(), c?)));
        let filtered = self.filter.keys().map(|k| (format!("where.{}", k.get_ref()), k));
        fields.chain(filtered).collect()
    }

    /// The display text of a series, panel or category value: its entry in
    /// [`FigureSpec::labels`], else in [`FigureSpec::value_names`], else the value.
    pub fn label<'a>(&'a self, value: &'a str) -> &'a str {
        self.labels
            .get(value)
            .or_else(|| self.value_names.get(value))
            .map_or(value, String::as_str)
    }

    /// Whether each panel gets its own y axis; an unknown `y_scale` is an error listing the
    /// valid ones.
    pub fn per_panel_y(&self) -> Result<bool, String> {
        match self.y_scale.as_ref().map(|s| s.get_ref().as_str()) {
            None | Some("shared") => Ok(false),
            Some("per_panel") => Ok(true),
            Some(other) => Err(format!("unknown y_scale '{other}' (valid: {})", Y_SCALES.join(", "))),
        }
    }

    /// [`FigureSpec::min_replications`] with its default; a value below 1 is an error.
    pub fn min_replications(&self) -> Result<usize, String> {
        match &self.min_replications {
            None => Ok(DEFAULT_MIN_REPLICATIONS),
            Some(n) if *n.get_ref() >= 1 && *n.get_ref() <= 1_000_000 => Ok(*n.get_ref() as usize),
            Some(n) => Err(format!(
                "min_replications must be from 1 to 1000000, got {}",
                n.get_ref()
            )),
        }
    }

    /// The figure's kind: `lines` when `kind` is absent; for an unknown kind, a message listing
    /// the valid ones.
    pub fn kind(&self) -> Result<FigureKind, String> {
        let Some(kind) = &self.kind else {
            return Ok(FigureKind::Lines);
        };
        FigureKind::ALL
            .into_iter()
            .find(|k| k.name() == kind.get_ref())
            .ok_or_else(|| {
                let valid: Vec<&str> = FigureKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown figure kind '{}' (valid: {})", kind.get_ref(), valid.join(", "))
            })
    }
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

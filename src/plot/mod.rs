//! Figures: the experiment's `[[figures]]` drawn from its CSV files with plotters, as SVG and
//! PNG; in print mode ([`Media::Print`], [`print`]) as SVG, a 300-dpi PNG and a PDF.
//!
//! A figure reads `runs.csv` (or a per-run table), keeps the rows its `where` selects, groups
//! them by panel, series and x value, and draws the mean of y over each group (the group holds
//! the replications) with a 95% Student-t confidence interval as an error bar. Every column
//! that identifies runs and varies must be x, series, panels or fixed by `where`, so a point
//! never silently averages different configurations.
//!
//! That is `kind = "lines"`, the default; [`bars`] draws grouped bars from the same means and
//! intervals, and [`timeline`] draws the intervals of one run per panel as horizontal strips.
//!
//! Text is rendered with the bundled DejaVu Sans (`fonts/DejaVuSans.ttf`, Bitstream Vera
//! license in `fonts/LICENSE-DejaVu.txt`), so PNGs look the same on machines without fonts.

/// Runs `$draw(&root)` on an SVG or a PNG drawing area of `$size` pixels at `$path` and
/// finishes the file; errors name the file. A macro because the two backends are different
/// types and `$draw` is a closure over one generic drawing function.
macro_rules! draw_to_file {
    ($path:expr, $format:expr, $size:expr, $draw:expr) => {{
        let result = match $format {
            Format::Svg => {
                let root = SVGBackend::new($path, $size).into_drawing_area();
                ($draw)(&root).and_then(|()| root.present().map_err(|e| e.to_string()))
            }
            Format::Png => {
                let root = BitMapBackend::new($path, $size).into_drawing_area();
                ($draw)(&root).and_then(|()| root.present().map_err(|e| e.to_string()))
            }
        };
        result.map_err(|e| anyhow::anyhow!("drawing {}: {e}", $path.display()))
    }};
}

pub mod axis;
pub mod bars;
pub mod print;
pub mod stats;
pub mod step;
pub mod style;
pub mod timeline;
pub mod trace;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Once;

use anyhow::{anyhow, bail, Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

use crate::experiment::error::line_column;
use crate::experiment::spec::{FigureKind, FigureSpec};
pub use crate::experiment::RunColumns;
use crate::experiment::{self, filter_values};
use crate::output::CsvTable;
use crate::runner::store::Manifest;
pub use axis::tick_label;
use axis::{AxisFormat, Ticked};
use style::{draw_line_px, draw_marker_px, style_of, SeriesStyle};

/// The bundled font.
static FONT: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

/// Width of a one-panel figure, pixels.
const PANEL_WIDTH: u32 = 800;
/// Height of one row of panels, pixels.
const PANEL_HEIGHT: u32 = 520;

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font compiled into the binary.
        if plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_err() {
            panic!("the bundled DejaVu Sans font does not parse");
        }
    });
}

/// One point of a series: the mean of y over a group and its confidence interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Position on the x axis (the category's index for a categorical axis).
    pub x: f64,
    /// Mean of y.
    pub mean: f64,
    /// Lower end of the error bar.
    pub lo: f64,
    /// Upper end of the error bar.
    pub hi: f64,
    /// Number of values averaged.
    pub n: usize,
}

/// A line of a panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points by increasing x.
    pub points: Vec<Point>,
}

/// One sub-plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Caption (`column = value`), `None` without panels.
    pub title: Option<String>,
    /// Lines, in the order of first appearance in the data.
    pub series: Vec<Series>,
}

/// Everything needed to draw one figure.
#[derive(Clone, Debug, PartialEq)]
pub struct FigureData {
    /// Sub-plots.
    pub panels: Vec<Panel>,
    /// Category names when x is not numeric.
    pub categories: Option<Vec<String>>,
    /// Every series name across panels (one legend for the figure), in order of first
    /// appearance in the whole table.
    pub series_names: Vec<String>,
    /// The style ([`style::style_of`]) of each series of `series_names`: the series' rank
    /// among every series of the whole table, rows without a value and rows the figure does not
    /// select included, so that a series keeps its colour and marker whichever others have
    /// points (a series whose runs all stopped does not recolour the rest).
    pub styles: Vec<usize>,
    /// Whether any point averages more than one value.
    pub replicated: bool,
    /// In a replicated figure, points averaged over fewer values have no interval and are
    /// drawn hollow ([`FigureSpec::min_replications`]).
    pub min_replications: usize,
    /// Runs the figure selects that have no value to draw because they did not finish
    /// (stopped by `[limits]` or incomplete: runs.csv's `stopped` column says why).
    pub omitted: usize,
    /// The points are the corners of step lines ([`step`]): drawn as lines only, with no
    /// markers or error bars.
    pub steps: bool,
}

impl FigureData {
    /// Whether point `p` is too thinly replicated for an interval (drawn hollow).
    pub fn is_thin(&self, p: &Point) -> bool {
        self.replicated && p.n < self.min_replications
    }

    /// The line under the legend saying which points are drawn hollow, when some are.
    pub fn thin_note(&self) -> Option<String> {
        let thin = self
            .panels
            .iter()
            .flat_map(|p| p.series.iter().flat_map(|s| s.points.iter()))
            .any(|p| self.is_thin(p));
        thin.then(|| {
            format!(
                "Hollow markers: mean of fewer than {} replications, no confidence interval",
                self.min_replications
            )
        })
    }

    /// The line under the legend saying how many runs without a result are left out.
    pub fn omitted_note(&self) -> Option<String> {
        (self.omitted > 0).then(|| {
            format!(
                "{} run(s) left out: stopped or incomplete, no result (runs.csv, column `stopped`)",
                self.omitted
            )
        })
    }

    /// Everything to say under the legend, on one line.
    pub fn note(&self) -> Option<String> {
        join_notes(self.thin_note(), self.omitted_note())
    }
}

/// Two optional notes as one line.
pub(crate) fn join_notes(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// The index of column `c` of `table`, or an error naming the figure, the column and the
/// columns there are (`source` names the CSV file).
/// The error is a [`FieldError`] naming the field of the figure that holds `c`, so that
/// [`draw_all`] can point at its line and column.
pub(crate) fn figure_column(figure: &FigureSpec, table: &CsvTable, source: &str, c: &str) -> Result<usize> {
    table.column(c).ok_or_else(|| {
        let (field, span) = field_of(figure, c);
        anyhow::Error::new(FieldError {
            field,
            span,
            message: format!(
                "figure '{}': no column '{c}' in {source} (columns: {})",
                figure.name.get_ref(),
                table.header.join(", ")
            ),
        })
    })
}

/// An error about one field of a figure: `field` is its path inside the figure (`y`,
/// `where.nodes`), `span` its byte range in the experiment file when it is written there.
#[derive(Debug)]
pub(crate) struct FieldError {
    pub field: String,
    pub span: Option<std::ops::Range<usize>>,
    pub message: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FieldError {}

/// The field of `figure` that names column `c`, with its span; `series` without a span when
/// none does (the default series column).
fn field_of(figure: &FigureSpec, c: &str) -> (String, Option<std::ops::Range<usize>>) {
    match figure.named_columns().into_iter().find(|(_, v)| v.get_ref() == c) {
        Some((field, v)) => (field, Some(v.span())),
        None => ("series".to_string(), None),
    }
}

/// A figure's `where` as (column index, accepted values) pairs.
pub(crate) fn where_filters(figure: &FigureSpec, table: &CsvTable, source: &str) -> Result<Vec<(usize, Vec<String>)>> {
    let mut filters = Vec::new();
    for (k, v) in &figure.filter {
        let values = filter_values(v.get_ref()).ok_or_else(|| {
            anyhow!(
                "figure '{}': where.{} must be a value or a list of values",
                figure.name.get_ref(),
                k.get_ref()
            )
        })?;
        filters.push((figure_column(figure, table, source, k.get_ref())?, values));
    }
    Ok(filters)
}

/// The caption of the panel whose panels column `column` holds `key`: its display label when
/// the figure gives one, else `column = key` (`column not set` for an empty value), the key
/// written as gridsim names it for figures ([`FigureSpec::value_names`]: a platform's label).
pub(crate) fn panel_title(figure: &FigureSpec, column: &str, key: &str) -> String {
    match figure.labels.get(key) {
        Some(label) => label.clone(),
        None if key.is_empty() => format!("{column} not set"),
        None => format!("{column} = {}", figure.label(key)),
    }
}

/// Groups and averages the rows of `table` for `figure`; `source` names the CSV file in
/// messages. Series names and categories are the display labels of their values.
pub fn prepare(figure: &FigureSpec, table: &CsvTable, columns: RunColumns<'_>, source: &str) -> Result<FigureData> {
    let (mut data, _) = prepare_groups(figure, table, columns, source, false)?;
    let label = |v: &mut String| *v = figure.label(v).to_string();
    data.series_names.iter_mut().for_each(label);
    for panel in &mut data.panels {
        panel.series.iter_mut().for_each(|s| label(&mut s.name));
    }
    data.categories.iter_mut().flatten().for_each(label);
    Ok(data)
}

/// [`prepare`], with x taken as categories in order of first appearance even when numeric when
/// `categorical` (bars); also returns each panel's value of the panels column (empty without
/// panels), in the order of `FigureData::panels`.
pub(crate) fn prepare_groups(
    figure: &FigureSpec,
    table: &CsvTable,
    columns: RunColumns<'_>,
    source: &str,
    categorical: bool,
) -> Result<(FigureData, Vec<String>)> {
    let name = figure.name.get_ref();
    let min_replications = figure.min_replications().map_err(|m| anyhow!("figure '{name}': {m}"))?;
    let column = |c: &str| figure_column(figure, table, source, c);
    let x = column(figure.x.get_ref())?;
    let y = column(figure.y.get_ref())?;
    let series_col = figure.series.as_ref().map_or("scheduler", |s| s.get_ref().as_str());
    let series = column(series_col)?;
    let panels = figure.panels.as_ref().map(|p| column(p.get_ref())).transpose()?;
    let filters = where_filters(figure, table, source)?;
    let rows: Vec<&Vec<String>> = table
        .rows
        .iter()
        .filter(|r| filters.iter().all(|(c, vals)| vals.contains(&r[*c])))
        .collect();
    if rows.is_empty() {
        bail!("figure '{name}': no row of {source} matches its `where`");
    }

    // No varying key column may be averaged over; a varying scheduler parameter joins the
    // scheduler's name in the series.
    let mut drawn = vec![x, series];
    drawn.extend(panels);
    drawn.extend(filters.iter().map(|(c, _)| *c));
    let mut folded: Vec<(usize, &str)> = Vec::new();
    // A figure drawing runs.csv's `hosts` draws the platform too when each host count is one
    // platform's (a sweep of cluster sizes).
    let by_hosts = table.column("hosts").filter(|h| drawn.contains(h)).is_some_and(|h| {
        let platform = table.column("platform");
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        platform.is_some_and(|p| {
            rows.iter()
                .all(|r| *seen.entry(r[h].as_str()).or_insert(r[p].as_str()) == r[p])
        })
    });
    for key in columns.keys {
        if matches!(key.as_str(), "replication" | "seed") || (key == "platform" && by_hosts) {
            continue;
        }
        let Some(c) = table.column(key) else { continue };
        if drawn.contains(&c) {
            continue;
        }
        let values: BTreeSet<&str> = rows.iter().map(|r| r[c].as_str()).collect();
        if values.len() > 1 && series_col == "scheduler" && columns.scheduler_params.contains(key) {
            folded.push((c, key));
        } else if values.len() > 1 {
            bail!(
                "figure '{name}': column '{key}' varies ({}) but is not x, series or panels; fix it with `where`",
                values.into_iter().take(5).collect::<Vec<_>>().join(", ")
            );
        }
    }

    // x: numeric when every non-empty value parses, else categories in order of appearance.
    let numeric = !categorical
        && rows
            .iter()
            .all(|r| r[x].is_empty() || r[x].parse::<f64>().is_ok_and(f64::is_finite));
    let categories: Option<Vec<String>> = if numeric {
        None
    } else {
        let mut cats: Vec<String> = Vec::new();
        for r in &rows {
            if !r[x].is_empty() && !cats.contains(&r[x]) {
                cats.push(r[x].clone());
            }
        }
        Some(cats)
    };
    if categories.is_some() && figure.x_log {
        bail!(
            "figure '{name}': x_log needs numbers, but column '{}' holds text",
            figure.x.get_ref()
        );
    }

    // A row's series: its value (an empty one gets a name in the legend) and the swept
    // scheduler parameters folded into it.
    let series_of = |r: &[String]| -> String {
        let mut key = if r[series].is_empty() {
            format!("{series_col} not set")
        } else {
            r[series].clone()
        };
        let swept: Vec<String> = folded
            .iter()
            .filter(|(c, _)| !r[*c].is_empty())
            .map(|(c, key)| format!("{key}={}", r[*c]))
            .collect();
        if !swept.is_empty() {
            key = format!("{key} ({})", swept.join(", "));
        }
        key
    };
    // Every series of the table, rows without a value included: styles follow this order, so
    // they do not depend on which series have points in this figure.
    let mut identity: Vec<String> = Vec::new();
    let mut known: BTreeSet<String> = BTreeSet::new();
    for r in &table.rows {
        let key = series_of(r);
        if !known.contains(&key) {
            known.insert(key.clone());
            identity.push(key);
        }
    }

    // Group: panel -> series -> x -> values, each level in order of first appearance.
    type Groups = Vec<(String, Vec<(String, Vec<(f64, Vec<f64>)>)>)>;
    let mut groups: Groups = Vec::new();
    let mut series_names: Vec<String> = Vec::new();
    let stopped = table.column("stopped");
    let mut omitted = 0;
    for (i, r) in rows.iter().enumerate() {
        if r[x].is_empty() || r[y].is_empty() {
            omitted += usize::from(stopped.is_some_and(|c| !r[c].is_empty()));
            continue;
        }
        let yv: f64 = r[y].parse().map_err(|_| {
            anyhow!(
                "figure '{name}': column '{}' holds '{}' (row {}), not a number",
                figure.y.get_ref(),
                r[y],
                i + 1
            )
        })?;
        if !yv.is_finite() {
            continue;
        }
        let xv = match &categories {
            Some(cats) => cats.iter().position(|c| c == &r[x]).unwrap_or(0) as f64,
            None => r[x].parse::<f64>().unwrap_or(f64::NAN),
        };
        let panel_key = panels.map_or_else(String::new, |p| r[p].clone());
        let series_key = series_of(r);
        if !series_names.contains(&series_key) {
            series_names.push(series_key.clone());
        }
        let pi = entry_index(&mut groups, panel_key);
        let panel = &mut groups[pi].1;
        let si = entry_index(panel, series_key);
        let points = &mut panel[si].1;
        match points.iter_mut().find(|(px, _)| *px == xv) {
            Some((_, ys)) => ys.push(yv),
            None => points.push((xv, vec![yv])),
        }
    }
    if groups.is_empty() {
        bail!("figure '{name}': no finite value of '{}' to draw", figure.y.get_ref());
    }
    let rank = |k: &String| identity.iter().position(|i| i == k).unwrap_or(identity.len());
    series_names.sort_by_key(rank);
    let styles: Vec<usize> = series_names.iter().map(rank).collect();
    let error_bars = figure.error_bars.unwrap_or(true);
    // A metric that is never negative in the data (a time, a count, a rate) keeps its interval
    // at or above 0: the Student-t interval is symmetric and would cross 0 for small means.
    let non_negative = groups
        .iter()
        .flat_map(|(_, series)| {
            series
                .iter()
                .flat_map(|(_, points)| points.iter().flat_map(|(_, ys)| ys))
        })
        .all(|y| *y >= 0.0);
    let mut replicated = false;
    let panel_col = figure.panels.as_ref().map(|p| p.get_ref().clone());
    let panel_keys: Vec<String> = groups.iter().map(|(key, _)| key.clone()).collect();
    let panels = groups
        .into_iter()
        .map(|(key, series)| Panel {
            title: panel_col.as_ref().map(|c| panel_title(figure, c, &key)),
            series: series
                .into_iter()
                .map(|(sname, mut points)| {
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Series {
                        name: sname,
                        points: points
                            .into_iter()
                            .filter_map(|(px, ys)| {
                                let s = stats::summarize(&ys)?;
                                replicated |= s.n > 1;
                                // Too few values for an interval that says anything: none.
                                let h = if error_bars && s.n >= min_replications {
                                    s.half_width
                                } else {
                                    0.0
                                };
                                let lo = s.mean - h;
                                Some(Point {
                                    x: px,
                                    mean: s.mean,
                                    lo: if non_negative { lo.max(0.0) } else { lo },
                                    hi: s.mean + h,
                                    n: s.n,
                                })
                            })
                            .collect(),
                    }
                })
                .collect(),
        })
        .collect();
    Ok((
        FigureData {
            panels,
            categories,
            series_names,
            styles,
            replicated,
            min_replications,
            omitted,
            steps: false,
        },
        panel_keys,
    ))
}

/// Whether the figure's `where` keeps at least one row of `table` (true when a `where` column
/// is missing, so that `prepare` reports it).
pub fn selects_rows(figure: &FigureSpec, table: &CsvTable) -> bool {
    let mut filters = Vec::new();
    for (k, v) in &figure.filter {
        match (table.column(k.get_ref()), filter_values(v.get_ref())) {
            (Some(c), Some(values)) => filters.push((c, values)),
            _ => return true,
        }
    }
    table
        .rows
        .iter()
        .any(|r| filters.iter().all(|(c, vals)| vals.contains(&r[*c])))
}

/// Draws every figure of a results directory into `plots_dir`, as `<figure>.svg` and
/// `<figure>.png` (and `<figure>.pdf` for [`Media::Print`]), as the experiment file
/// `figures_from` declares them (default: the results directory's copy, `experiment.toml`);
/// errors name that file and the figure's line. Returns the files written. In quick mode,
/// figures whose `where` selects no run of the quick subset are skipped.
pub fn draw_all(
    results_dir: &Path,
    plots_dir: &Path,
    figures_from: Option<&Path>,
    media: Media,
) -> Result<Vec<PathBuf>> {
    let copy = results_dir.join("experiment.toml");
    let experiment_file = figures_from.unwrap_or(&copy);
    let text = std::fs::read_to_string(experiment_file).with_context(|| match figures_from {
        Some(file) => format!("{}: cannot read the experiment file", file.display()),
        None => format!("{}: not a gridsim results directory", results_dir.display()),
    })?;
    let spec = experiment::parse(experiment_file, &text)?;
    let manifest = Manifest::read(results_dir)?;
    let scheduler_params = experiment::scheduler_param_names(&spec);
    let columns = RunColumns {
        keys: &manifest.key_columns,
        scheduler_params: &scheduler_params,
    };
    let mut written = Vec::new();
    // Created just before the first figure is written: a figure that cannot be drawn leaves no
    // empty directory behind.
    let mut created = false;
    let mut ensure_dir = || -> Result<()> {
        if !created {
            std::fs::create_dir_all(plots_dir).with_context(|| format!("creating {}", plots_dir.display()))?;
            created = true;
        }
        Ok(())
    };
    // Platforms are shown by their short labels: a generator's whole parameter string would
    // overflow an axis or a legend (the CSVs keep the names).
    let platform_names: BTreeMap<String, String> = manifest
        .platforms
        .iter()
        .map(|p| (p.name.clone(), p.label.clone()))
        .collect();
    for (index, spanned) in spec.figures.iter().enumerate() {
        let mut figure = spanned.get_ref().clone();
        figure.value_names = platform_names.clone();
        let figure = &figure;
        let line = 1 + text[..spanned.span().start.min(text.len())].matches('\n').count();
        let located = || format!("{}:{line}", experiment_file.display());
        // An error about one field names its line and column and the field; others the
        // figure's line.
        let locate = |e: anyhow::Error| -> anyhow::Error {
            match e.downcast_ref::<FieldError>() {
                Some(FieldError {
                    field,
                    span: Some(span),
                    message,
                }) => {
                    let (l, c) = line_column(&text, span.start);
                    anyhow!(
                        "{}:{l}:{c}: figures[{index}].{field}: {message}",
                        experiment_file.display()
                    )
                }
                Some(FieldError { field, message, .. }) => {
                    anyhow!(
                        "{}:{line}: figures[{index}].{field}: {message}",
                        experiment_file.display()
                    )
                }
                None => e.context(located()),
            }
        };
        let source = figure.source.as_ref().map_or("runs", |s| s.get_ref().as_str());
        let csv_name = format!("{source}.csv");
        let table = read_table(&results_dir.join(&csv_name))?;
        if manifest.quick && !selects_rows(figure, &table) {
            // The quick subset does not include what this figure shows.
            continue;
        }
        let kind = figure
            .kind()
            .map_err(|m| anyhow!("figure '{}': {m}", figure.name.get_ref()))
            .with_context(located)?;
        match kind {
            FigureKind::Lines => {
                let data = prepare(figure, &table, columns, &csv_name).map_err(locate)?;
                ensure_dir()?;
                written.extend(render_both(figure, &data, plots_dir, media)?);
            }
            FigureKind::Bars => {
                let data = bars::prepare(figure, &table, columns, &csv_name, manifest.quick).map_err(locate)?;
                ensure_dir()?;
                written.extend(bars::write(figure, &data, plots_dir, media)?);
            }
            FigureKind::Step => {
                let data = step::prepare(figure, &table, columns, &csv_name).map_err(locate)?;
                ensure_dir()?;
                written.extend(render_both(figure, &data, plots_dir, media)?);
            }
            FigureKind::Timeline => {
                let down_name = figure.down.as_ref().map(|d| format!("{}.csv", d.get_ref()));
                let down = match &down_name {
                    Some(file) => Some((file.as_str(), read_table(&results_dir.join(file))?)),
                    None => None,
                };
                let down = down.as_ref().map(|(file, t)| (*file, t));
                let data = timeline::prepare_with_down(figure, &table, down, columns, &csv_name).map_err(locate)?;
                ensure_dir()?;
                written.extend(timeline::write(figure, &data, plots_dir, media)?);
            }
        }
    }
    Ok(written)
}

/// Reads a CSV file of a results directory; a malformed row is reported as `FILE:LINE: ...`.
fn read_table(path: &Path) -> Result<CsvTable> {
    CsvTable::read(path).map_err(|e| {
        let csv_error = e.chain().find_map(|c| c.downcast_ref::<csv::Error>());
        let Some(err) = csv_error else { return e };
        let Some(line) = err.position().map(|p| p.line()) else {
            return e;
        };
        let message = match err.kind() {
            csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
                format!("a row with {len} fields, but the header has {expected_len}")
            }
            csv::ErrorKind::Utf8 { err, .. } => format!("not UTF-8 text: {err}"),
            _ => err.to_string(),
        };
        anyhow!("{}:{line}: {message}", path.display())
    })
}

/// Draws `figure` as `<name>.svg` and `<name>.png` (and `<name>.pdf` for [`Media::Print`]) in
/// `dir` (which must exist); returns the paths.
pub fn render_both(figure: &FigureSpec, data: &FigureData, dir: &Path, media: Media) -> Result<Vec<PathBuf>> {
    render_images(figure.name.get_ref(), dir, media, |path, format| {
        render(figure, data, path, format)
    })
}

/// Which files a figure is written as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Media {
    /// `<name>.svg`, and `<name>.png` drawn by plotters at the SVG's pixel size: for screens.
    #[default]
    Screen,
    /// `<name>.svg`, `<name>.png` rasterized from the SVG at 300 dpi and `<name>.pdf` converted
    /// from it (`--print`): for papers. See [`print`].
    Print,
}

/// Writes `<name>.svg` and `<name>.png` in `dir` with `draw(path, format)`, and `<name>.pdf`
/// for [`Media::Print`] (whose PNG is the SVG's at 300 dpi, not drawn with `Format::Png`);
/// returns the paths.
pub(crate) fn render_images(
    name: &str,
    dir: &Path,
    media: Media,
    draw: impl Fn(&Path, Format) -> Result<()>,
) -> Result<Vec<PathBuf>> {
    // Drawn under a temporary name, then renamed: a reader (or another shard finishing at the
    // same time) never sees half a picture.
    let draw_file = |ext: &str, format: Format| -> Result<PathBuf> {
        let path = dir.join(format!("{name}.{ext}"));
        let tmp = dir.join(format!(".tmp-{}-{name}.{ext}", std::process::id()));
        let drawn = draw(&tmp, format)
            .and_then(|()| std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display())));
        if let Err(e) = drawn {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        Ok(path)
    };
    let svg = draw_file("svg", Format::Svg)?;
    match media {
        Media::Screen => Ok(vec![svg, draw_file("png", Format::Png)?]),
        Media::Print => {
            // Read back whole: the rename above is atomic, even if another shard renames the
            // same figure over it.
            let bytes = std::fs::read(&svg).with_context(|| format!("reading {}", svg.display()))?;
            let files = print::convert(&bytes, &svg)?;
            let png = dir.join(format!("{name}.png"));
            let pdf = dir.join(format!("{name}.pdf"));
            crate::output::write_atomic(&png, &files.png)?;
            crate::output::write_atomic(&pdf, &files.pdf)?;
            Ok(vec![svg, png, pdf])
        }
    }
}

/// A figure declaration built in code (for figures no experiment file declares).
pub(crate) fn spec_figure(
    name: &str,
    title: &str,
    x_label: &str,
    y_label: &str,
    x_log: bool,
    y_log: bool,
) -> FigureSpec {
    let text = toml::to_string(&toml::toml! {
        name = name
        title = title
        x = "x"
        y = "y"
        x_label = x_label
        y_label = y_label
        x_log = x_log
        y_log = y_log
        error_bars = false
    })
    .unwrap_or_default();
    // Every field above is one FigureSpec declares with the type given.
    toml::from_str(&text).unwrap_or_else(|e| unreachable!("figure spec built in code does not parse: {e}"))
}

/// Image format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics.
    Svg,
    /// Portable network graphics.
    Png,
}

/// The figure's pixel size for a number of panels.
fn layout(panels: usize, legend_rows: usize) -> (u32, u32, usize, usize) {
    let cols = if panels <= 1 { 1 } else { 2 };
    let rows = panels.div_ceil(cols).max(1);
    let width = if cols == 1 { PANEL_WIDTH } else { PANEL_WIDTH * 3 / 2 };
    let height = PANEL_HEIGHT * rows as u32 + 40 + 28 * legend_rows as u32;
    (width, height, rows, cols)
}

/// Pixel size, panel grid and legend rows of a figure with `panels` panels and a legend of
/// `series` followed by `notes` lines: the legend's rows depend on the width, which depends on
/// the panels.
pub(crate) fn figure_size(panels: usize, series: &[String], notes: usize) -> (u32, u32, usize, usize, usize) {
    let (width, _, _, _) = layout(panels, 1);
    let legend_rows = legend_layout(series, width).len() + notes;
    let (width, height, rows, cols) = layout(panels, legend_rows);
    (width, height, rows, cols, legend_rows)
}

/// Draws one figure into a file.
pub fn render(figure: &FigureSpec, data: &FigureData, path: &Path, format: Format) -> Result<()> {
    register_font();
    let legend_texts = legend_names(data);
    let (width, height, rows, cols, legend_rows) =
        figure_size(data.panels.len(), &legend_texts, data.note().iter().count());
    draw_to_file!(path, format, (width, height), |root| draw(
        root,
        figure,
        data,
        &legend_texts,
        rows,
        cols,
        legend_rows
    ))
}

/// The plotting area and the legend strip below it.
pub(crate) type PlotsAndLegend<DB> = (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>);

/// Clears `root`, draws the figure's title and splits the rest into the plots and, below
/// them, `legend_height` pixels for the legend.
pub(crate) fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &FigureSpec,
    legend_height: u32,
) -> Result<PlotsAndLegend<DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let body = match &figure.title {
        Some(title) => root.titled(title, (FAMILY, 26).into_font())?,
        None => root.clone(),
    };
    let (_, h) = body.dim_in_pixel();
    Ok(body.split_vertically(h.saturating_sub(legend_height)))
}

/// One axis of a lines figure: bounds, labelled ticks, grid lines between them.
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl Axis {
    /// A numeric axis over `values`: ticks at the data's values when `few` of them are given
    /// ([`axis::data_ticks`]), else round ones.
    fn numeric(values: impl Iterator<Item = f64>, log: bool, few: Option<Vec<f64>>) -> Result<Axis, String> {
        let (lo, hi) = axis::range(values, log)?;
        let (bold, light) = match (few, log) {
            (Some(ticks), true) => (ticks, axis::log_minor(lo, hi)),
            (Some(ticks), false) => (ticks, Vec::new()),
            (None, true) => (axis::log_ticks(lo, hi), axis::log_minor(lo, hi)),
            (None, false) => axis::linear_ticks(lo, hi),
        };
        Ok(Axis {
            lo,
            hi,
            log,
            bold,
            light,
        })
    }

    /// The y axis over `points`' means and intervals.
    fn y<'a>(figure: &FigureSpec, points: impl Iterator<Item = &'a Point>) -> Result<Axis, String> {
        let values: Vec<f64> = points
            .flat_map(|p| [p.lo, p.mean, p.hi])
            .filter(|v| !figure.y_log || *v > 0.0)
            .collect();
        Axis::numeric(values.into_iter(), figure.y_log, None)
            .map_err(|m| format!("figure '{}': y ({}) {m}", figure.name.get_ref(), figure.y.get_ref()))
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &FigureSpec,
    data: &FigureData,
    legend_texts: &[String],
    rows: usize,
    cols: usize,
    legend_rows: usize,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let name = figure.name.get_ref();
    let per_panel = figure.per_panel_y().map_err(|m| format!("figure '{name}': {m}"))?;
    let (plots, legend) = frame(root, figure, 28 * legend_rows as u32 + 8).map_err(err)?;
    draw_legend(&legend, legend_texts, &data.styles, !data.steps).map_err(err)?;
    if let Some(note) = data.note() {
        draw_note(&legend, &note, legend_rows - 1).map_err(err)?;
    }

    let points = || {
        data.panels
            .iter()
            .flat_map(|p| p.series.iter().flat_map(|s| s.points.iter()))
    };
    let x_axis = match &data.categories {
        Some(c) => Axis {
            lo: -0.5,
            hi: c.len() as f64 - 0.5,
            log: false,
            bold: (0..c.len()).map(|i| i as f64).collect(),
            light: Vec::new(),
        },
        None => Axis::numeric(
            points().map(|p| p.x),
            figure.x_log,
            axis::data_ticks(points().map(|p| p.x)),
        )
        .map_err(|m| format!("figure '{name}': x ({}) {m}", figure.x.get_ref()))?,
    };
    if figure.y_log {
        if let Some(p) = points().find(|p| p.mean <= 0.0) {
            return Err(format!(
                "figure '{name}': y_log needs positive values, but '{}' has mean {}",
                figure.y.get_ref(),
                p.mean
            ));
        }
    }
    let shared_y = if per_panel {
        None
    } else {
        Some(Axis::y(figure, points())?)
    };

    let areas = plots.split_evenly((rows, cols));
    for (area, panel) in areas.iter().zip(&data.panels) {
        let own_y;
        let y_axis = match &shared_y {
            Some(y) => y,
            None => {
                own_y = Axis::y(figure, panel.series.iter().flat_map(|s| s.points.iter()))?;
                &own_y
            }
        };
        let ctx = PanelCtx {
            figure,
            data,
            panel,
            x_format: AxisFormat::for_ticks(&x_axis.bold),
            y_format: AxisFormat::for_ticks(&y_axis.bold),
        };
        let linear = |a: &Axis| Ticked {
            inner: plotters::coord::types::RangedCoordf64::from(a.lo..a.hi),
            bold: a.bold.clone(),
            light: a.light.clone(),
        };
        let log = |a: &Axis| Ticked {
            inner: plotters::coord::combinators::LogCoord::from((a.lo..a.hi).log_scale()),
            bold: a.bold.clone(),
            light: a.light.clone(),
        };
        match (x_axis.log, y_axis.log) {
            (false, false) => ctx.draw(area, linear(&x_axis), linear(y_axis)),
            (true, false) => ctx.draw(area, log(&x_axis), linear(y_axis)),
            (false, true) => ctx.draw(area, linear(&x_axis), log(y_axis)),
            (true, true) => ctx.draw(area, log(&x_axis), log(y_axis)),
        }?;
    }
    Ok(())
}

/// Writes `note` centred on row `row` of the legend strip.
pub(crate) fn draw_note<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    note: &str,
    row: usize,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (width, _) = area.dim_in_pixel();
    let font = (FAMILY, 15)
        .into_font()
        .color(&RGBColor(60, 60, 60))
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new(
        note.to_string(),
        (width as i32 / 2, 14 + 28 * row as i32),
        font,
    ))
}

struct PanelCtx<'a> {
    figure: &'a FigureSpec,
    data: &'a FigureData,
    panel: &'a Panel,
    x_format: AxisFormat,
    y_format: AxisFormat,
}

impl PanelCtx<'_> {
    fn draw<DB, X, Y>(&self, area: &DrawingArea<DB, Shift>, x: X, y: Y) -> Result<(), String>
    where
        DB: DrawingBackend,
        X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
        Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
        X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
        Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let figure = self.figure;
        // Category names that do not fit side by side are written vertically.
        let (width, _) = area.dim_in_pixel();
        let rotate = self.data.categories.as_ref().is_some_and(|c| {
            let longest = c.iter().map(|n| n.chars().count()).max().unwrap_or(0) as u32;
            (longest * 9 + 8) * c.len() as u32 > width.saturating_sub(120)
        });
        let x_area = if rotate {
            let longest = self
                .data
                .categories
                .iter()
                .flatten()
                .map(|n| n.chars().count())
                .max()
                .unwrap_or(0);
            40 + 8 * longest.min(30) as u32
        } else {
            58
        };
        let mut builder = ChartBuilder::on(area);
        builder
            .margin(14)
            .margin_right(28)
            .x_label_area_size(x_area)
            .y_label_area_size(84);
        if let Some(title) = &self.panel.title {
            builder.caption(title, (FAMILY, 20).into_font());
        }
        let mut chart = builder.build_cartesian_2d(x, y).map_err(err)?;
        let categories = self.data.categories.clone();
        let x_format = self.x_format;
        let x_fmt = move |v: &f64| match &categories {
            Some(_) if rotate => String::new(),
            Some(c) => {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < c.len() {
                    c[i as usize].clone()
                } else {
                    String::new()
                }
            }
            None => x_format.format(*v),
        };
        let y_format = self.y_format;
        let y_fmt = move |v: &f64| y_format.format(*v);
        let x_desc = figure.x_label.clone().unwrap_or_else(|| figure.x.get_ref().clone());
        let y_desc = figure.y_label.clone().unwrap_or_else(|| figure.y.get_ref().clone());
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_desc)
            .y_desc(y_desc)
            .axis_desc_style((FAMILY, 18).into_font())
            .label_style((FAMILY, 15).into_font())
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200));
        if self.data.categories.is_some() {
            mesh.disable_x_mesh();
        }
        mesh.draw().map_err(err)?;
        let base = area.get_base_pixel();
        if rotate {
            // Vertical category names, drawn here because plotters centres rotated tick labels
            // on the axis line.
            let style = (FAMILY, 13)
                .into_font()
                .transform(FontTransform::Rotate90)
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center));
            let y_bottom = chart.y_range().start;
            for (i, name) in self.data.categories.iter().flatten().enumerate() {
                let (px, py) = chart.backend_coord(&(i as f64, y_bottom));
                area.draw_text(name, &style, (px - base.0, py - base.1 + 8))
                    .map_err(err)?;
            }
        }

        // The panel's series in legend order, with their styles and offsets.
        let n = self.data.series_names.len() as f64;
        let drawn: Vec<(&Series, SeriesStyle, f64)> = self
            .data
            .series_names
            .iter()
            .enumerate()
            .filter_map(|(index, name)| {
                let series = self.panel.series.iter().find(|s| s.name == *name)?;
                // Series side by side around each category, so that their markers do not
                // hide each other.
                let dx = match &self.data.categories {
                    Some(_) => (index as f64 - (n - 1.0) / 2.0) * (0.6 / n).min(0.15),
                    None => 0.0,
                };
                Some((series, style_of(self.data.styles[index]), dx))
            })
            .collect();
        // Lines join numeric x values only (categories have no order to interpolate): solid
        // ones first, then dashed ones, so a dashed line on top lets a line it covers show.
        if self.data.categories.is_none() {
            let mut lines: Vec<&(&Series, SeriesStyle, f64)> = drawn.iter().collect();
            lines.sort_by_key(|(_, style, _)| style.dash.is_some());
            for (series, style, dx) in lines {
                let pts: Vec<(f64, f64)> = series.points.iter().map(|p| (p.x + dx, p.mean)).collect();
                let stroke = style.color.stroke_width(2);
                match style.dash {
                    None => chart.draw_series(LineSeries::new(pts, stroke)).map(|_| ()),
                    Some((dash, gap)) => chart
                        .draw_series(DashedLineSeries::new(pts, dash, gap, stroke))
                        .map(|_| ()),
                }
                .map_err(err)?;
            }
        }
        if self.data.steps {
            return Ok(());
        }
        for (series, style, dx) in &drawn {
            // Error bars: a vertical segment from lo to hi with 10-pixel caps (plotters' own
            // ErrorBar also draws a ring on the mean, which would hide the marker's shape).
            let line = style.color.stroke_width(2);
            let bars: Vec<&Point> = series.points.iter().filter(|p| p.hi > p.lo).collect();
            chart
                .draw_series(
                    bars.iter()
                        .map(|p| PathElement::new(vec![(p.x + dx, p.lo), (p.x + dx, p.hi)], line)),
                )
                .map_err(err)?;
            chart
                .draw_series(
                    bars.iter()
                        .flat_map(|p| [(p.x + dx, p.lo), (p.x + dx, p.hi)])
                        .map(|c| EmptyElement::at(c) + PathElement::new(vec![(-5, 0), (5, 0)], line)),
                )
                .map_err(err)?;
        }
        for (series, style, dx) in &drawn {
            for p in &series.points {
                let (px, py) = chart.backend_coord(&(p.x + dx, p.mean));
                draw_marker_px(area, (px - base.0, py - base.1), style, self.data.is_thin(p)).map_err(err)?;
            }
        }
        Ok(())
    }
}

/// The legend's text for each series: its name, followed by `(= X)` when its points are those
/// of an earlier series X in every panel. Later series are drawn over earlier ones, so without
/// the note one of two identical series would vanish without a word (FAC2 under AWF).
pub fn legend_names(data: &FigureData) -> Vec<String> {
    let points = |panel: &Panel, name: &str| -> Option<Vec<(f64, f64)>> {
        let series = panel.series.iter().find(|s| s.name == name)?;
        Some(series.points.iter().map(|p| (p.x, p.mean)).collect())
    };
    let names = &data.series_names;
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let same = names[..i].iter().find(|earlier| {
                let mut shown = false;
                let equal = data.panels.iter().all(|panel| {
                    let (a, b) = (points(panel, earlier), points(panel, name));
                    shown |= a.is_some();
                    a == b
                });
                shown && equal
            });
            match same {
                Some(earlier) => format!("{name} (= {earlier})"),
                None => name.clone(),
            }
        })
        .collect()
}

/// Rows of legend entries that fit in `width`.
fn legend_layout(names: &[String], width: u32) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 20u32;
    for (i, name) in names.iter().enumerate() {
        let w = legend_item_width(name);
        if used + w > width && !rows.last().is_some_and(Vec::is_empty) {
            rows.push(Vec::new());
            used = 20;
        }
        rows.last_mut().expect("one row").push(i);
        used += w;
    }
    rows
}

fn legend_item_width(name: &str) -> u32 {
    // Marker and line (36 px), gap, then about 10 px per character at 16 px.
    50 + 10 * name.chars().count() as u32
}

/// The legend of a lines figure: each series' line and marker in its style (`styles`, as
/// [`FigureData::styles`]), then its name.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    names: &[String],
    styles: &[usize],
    markers: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_legend_entries(area, names, 38, |area, x, y, i| {
        let style = style_of(styles[i]);
        draw_line_px(area, (x, y), (x + 30, y), &style)?;
        if markers {
            draw_marker_px(area, (x + 15, y), &style, false)?;
        }
        Ok(())
    })
}

/// One legend for a figure: entries centred in rows, each `swatch` (drawn by `draw_swatch` at
/// the entry's left edge and vertical centre, for series `i`) then the series name.
pub(crate) fn draw_legend_entries<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    names: &[String],
    swatch: i32,
    draw_swatch: impl Fn(&DrawingArea<DB, Shift>, i32, i32, usize) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (width, _) = area.dim_in_pixel();
    let font = (FAMILY, 16)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    // Measured width of an entry: swatch, gap, text, space before the next entry.
    let item = |name: &str| -> i32 {
        let text = area
            .estimate_text_size(name, &font)
            .map_or(legend_item_width(name) - 50, |(w, _)| w);
        swatch + text as i32 + 24
    };
    for (row, items) in legend_layout(names, width).iter().enumerate() {
        let total: i32 = items.iter().map(|&i| item(&names[i])).sum();
        let mut x = (width as i32 - total).max(0) / 2;
        let y = 14 + 28 * row as i32;
        for &i in items {
            draw_swatch(area, x, y, i)?;
            area.draw(&Text::new(names[i].clone(), (x + swatch, y), font.clone()))?;
            x += item(&names[i]);
        }
    }
    Ok(())
}

/// The index of `key`'s entry in `entries`, an empty one appended if it has none (figures keep
/// panels and series in the order their first row shows them).
pub(crate) fn entry_index<K: PartialEq, V: Default>(entries: &mut Vec<(K, V)>, key: K) -> usize {
    match entries.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            entries.push((key, V::default()));
            entries.len() - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(extra: &str) -> FigureSpec {
        let text = format!("name = 'f'\nx = 'n'\ny = 'y'\npanels = 'p'\n{extra}");
        toml::from_str(&text).unwrap()
    }

    /// runs.csv-like rows: (panel, n, scheduler, y).
    fn runs(rows: &[(&str, u32, &str, f64)]) -> CsvTable {
        let header = ["run", "p", "n", "scheduler", "replication", "y"];
        let mut t = CsvTable::new(header.iter().map(|h| h.to_string()).collect());
        for (i, (p, n, s, y)) in rows.iter().enumerate() {
            t.rows.push(vec![
                i.to_string(),
                p.to_string(),
                n.to_string(),
                s.to_string(),
                (i % 3).to_string(),
                y.to_string(),
            ]);
        }
        t
    }

    fn keys() -> RunColumns<'static> {
        let keys: Vec<String> = ["p", "n", "scheduler", "replication"].map(String::from).to_vec();
        RunColumns {
            keys: Box::leak(keys.into_boxed_slice()),
            scheduler_params: &[],
        }
    }

    #[test]
    fn intervals_stay_in_the_metrics_range_and_thin_points_say_so() {
        // A non-negative metric whose replications spread widely got an interval
        // reaching below 0, and means of 1-2 replications got intervals as if they said
        // something.
        let t = runs(&[
            ("a", 1, "s", 0.1),
            ("a", 1, "s", 0.1),
            ("a", 1, "s", 3.0),
            ("a", 2, "s", 1.0),
            ("a", 2, "s", 3.0),
        ]);
        let data = prepare(&figure(""), &t, keys(), "runs.csv").unwrap();
        let pts = &data.panels[0].series[0].points;
        assert_eq!(pts[0].n, 3);
        assert!(pts[0].hi > pts[0].mean + 1.0);
        assert_eq!(pts[0].lo, 0.0, "mean - half-width is negative: {:?}", pts[0]);
        assert!(!data.is_thin(&pts[0]));
        // Two replications: no interval, drawn hollow, and the figure says why.
        assert_eq!((pts[1].n, pts[1].lo, pts[1].hi), (2, 2.0, 2.0));
        assert!(data.is_thin(&pts[1]));
        let note = data.thin_note().unwrap();
        assert!(note.contains("fewer than 3 replications"), "{note}");
        // The threshold is the figure's to set.
        let two = prepare(&figure("min_replications = 2"), &t, keys(), "runs.csv").unwrap();
        assert!(two.panels[0].series[0].points[1].lo < 2.0);
        assert_eq!(two.thin_note(), None);
        // A metric with negative values keeps its symmetric interval.
        let t = runs(&[("a", 1, "s", -1.0), ("a", 1, "s", 0.1), ("a", 1, "s", 3.0)]);
        let data = prepare(&figure(""), &t, keys(), "runs.csv").unwrap();
        assert!(data.panels[0].series[0].points[0].lo < -1.0);
    }

    #[test]
    fn values_get_display_labels_and_swept_scheduler_parameters_join_the_series() {
        // Legends and panel titles showed raw values; a swept scheduler
        // parameter could not share a figure with other schedulers.
        let header = ["run", "p", "n", "beta", "scheduler", "replication", "y"];
        let mut t = CsvTable::new(header.iter().map(|h| h.to_string()).collect());
        for (i, (beta, s)) in [("", "WQ"), ("5", "LDS"), ("20", "LDS")].iter().enumerate() {
            t.rows.push(
                [&i.to_string(), "3@1005=0.2", "1", beta, s, "0", "4"]
                    .map(String::from)
                    .to_vec(),
            );
        }
        let keys: Vec<String> = ["p", "n", "beta", "scheduler", "replication"]
            .map(String::from)
            .to_vec();
        let plain = RunColumns {
            keys: &keys,
            scheduler_params: &[],
        };
        let err = prepare(&figure(""), &t, plain, "runs.csv").unwrap_err().to_string();
        assert!(err.contains("column 'beta' varies"), "{err}");
        let columns = RunColumns {
            keys: &keys,
            scheduler_params: &["beta".to_string()],
        };
        let labelled = figure("labels = { '3@1005=0.2' = 'P3 at 20% from 1005 s', 'LDS (beta=5)' = 'LDS, β = 5' }");
        let data = prepare(&labelled, &t, columns, "runs.csv").unwrap();
        assert_eq!(data.series_names, ["WQ", "LDS, β = 5", "LDS (beta=20)"]);
        assert_eq!(data.panels[0].title.as_deref(), Some("P3 at 20% from 1005 s"));
        let names: Vec<&str> = data.panels[0].series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["WQ", "LDS, β = 5", "LDS (beta=20)"]);
        // Series other than the scheduler do not take scheduler parameters in.
        let by_p: FigureSpec = toml::from_str("name = 'f'\nx = 'n'\ny = 'y'\nseries = 'p'").unwrap();
        assert!(prepare(&by_p, &t, columns, "runs.csv").is_err());
    }

    #[test]
    fn a_series_keeps_its_style_when_another_has_no_point() {
        // When every run of B stopped (no value), C took B's colour and marker.
        let mut t = runs(&[
            ("a", 1, "A", 1.0),
            ("a", 1, "B", 2.0),
            ("a", 1, "C", 3.0),
            ("a", 2, "A", 1.5),
            ("a", 2, "B", 2.5),
            ("a", 2, "C", 3.5),
        ]);
        for row in t.rows.iter_mut().filter(|r| r[3] == "B") {
            row[5].clear();
        }
        let f = figure("error_bars = false");
        let data = prepare(&f, &t, keys(), "runs.csv").unwrap();
        assert_eq!(data.series_names, ["A", "C"]);
        assert_eq!(data.styles, [0, 2]);
        // As drawn: C's lines and legend in the third colour, nothing in B's.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.svg");
        render(&f, &data, &path, Format::Svg).unwrap();
        let svg = std::fs::read_to_string(path).unwrap();
        let hex = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        assert!(
            svg.contains(&hex(style::COLORS[2])),
            "C is not drawn in the third colour"
        );
        assert!(!svg.contains(&hex(style::COLORS[1])), "a series is drawn in B's colour");
        // Bars take the same colours.
        let b: FigureSpec = toml::from_str("name = 'b'\nkind = 'bars'\nx = 'n'\ny = 'y'\npanels = 'p'").unwrap();
        let bars = bars::prepare(&b, &t, keys(), "runs.csv", false).unwrap();
        assert_eq!(bars.styles, [0, 2]);
        let path = dir.path().join("b.svg");
        bars::render(&b, &bars, &path, Format::Svg).unwrap();
        let svg = std::fs::read_to_string(path).unwrap();
        assert!(svg.contains(&hex(style::COLORS[2])) && !svg.contains(&hex(style::COLORS[1])));
    }

    #[test]
    fn per_panel_y_scales_fit_each_panel() {
        // One panel in seconds and one in thousands of seconds share an axis
        // unless the figure asks for one each.
        let t = runs(&[
            ("a", 1, "s", 1.0),
            ("a", 2, "s", 2.0),
            ("b", 1, "s", 1000.0),
            ("b", 2, "s", 2000.0),
        ]);
        let dir = tempfile::tempdir().unwrap();
        let svg = |extra: &str| {
            let f = figure(&format!("error_bars = false\n{extra}"));
            let data = prepare(&f, &t, keys(), "runs.csv").unwrap();
            let path = dir.path().join("f.svg");
            render(&f, &data, &path, Format::Svg).unwrap();
            std::fs::read_to_string(path).unwrap()
        };
        // plotters writes a text's content on a line of its own.
        let has_tick = |svg: &str, tick: &str| svg.lines().any(|l| l == tick);
        let shared = svg("");
        assert!(!has_tick(&shared, "1.2") && has_tick(&shared, "1000"));
        let own = svg("y_scale = 'per_panel'");
        for tick in ["1.2", "1.4", "1200", "1400"] {
            assert!(has_tick(&own, tick), "no tick {tick}");
        }
        let err = figure("y_scale = 'free'").per_panel_y().unwrap_err();
        assert_eq!(err, "unknown y_scale 'free' (valid: shared, per_panel)");
    }

    #[test]
    fn a_series_identical_to_an_earlier_one_says_so_in_the_legend() {
        let point = |x: f64, mean: f64| Point {
            x,
            mean,
            lo: mean,
            hi: mean,
            n: 1,
        };
        let series = |name: &str, means: [f64; 2]| Series {
            name: name.into(),
            points: vec![point(1.0, means[0]), point(2.0, means[1])],
        };
        let panel = |fac2: [f64; 2]| Panel {
            title: None,
            series: vec![
                series("WQ", [5.0, 6.0]),
                series("FAC2", fac2),
                series("AWF", [3.0, 4.0]),
            ],
        };
        let data = |panels: Vec<Panel>| FigureData {
            panels,
            categories: None,
            series_names: vec!["WQ".into(), "FAC2".into(), "AWF".into()],
            styles: vec![0, 1, 2],
            replicated: false,
            min_replications: 1,
            omitted: 0,
            steps: false,
        };
        // AWF is drawn over FAC2 in both panels.
        let same = data(vec![panel([3.0, 4.0]), panel([3.0, 4.0])]);
        assert_eq!(legend_names(&same), ["WQ", "FAC2", "AWF (= FAC2)"]);
        // Different in one panel: no note.
        let differ = data(vec![panel([3.0, 4.0]), panel([3.0, 4.5])]);
        assert_eq!(legend_names(&differ), ["WQ", "FAC2", "AWF"]);
    }

    #[test]
    fn print_mode_adds_a_pdf_and_draws_the_png_at_300_dpi() {
        let figure = spec_figure("f", "Title", "x", "y", false, false);
        let point = |x: f64| Point {
            x,
            mean: x * x,
            lo: x * x,
            hi: x * x,
            n: 1,
        };
        let data = FigureData {
            panels: vec![Panel {
                title: None,
                series: vec![Series {
                    name: "s".into(),
                    points: (1..5).map(|x| point(f64::from(x))).collect(),
                }],
            }],
            categories: None,
            series_names: vec!["s".into()],
            styles: vec![0],
            replicated: false,
            min_replications: 1,
            omitted: 0,
            steps: false,
        };
        let files = |dir: &Path| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let png_size = |path: &Path| {
            let reader = png::Decoder::new(std::fs::File::open(path).unwrap())
                .read_info()
                .unwrap();
            (reader.info().size(), reader.info().pixel_dims.map(|d| d.xppu))
        };
        let screen = tempfile::tempdir().unwrap();
        let written = render_both(&figure, &data, screen.path(), Media::Screen).unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(files(screen.path()), ["f.png", "f.svg"]);
        assert_eq!(png_size(&screen.path().join("f.png")), ((800, 588), None));

        let print = tempfile::tempdir().unwrap();
        let written = render_both(&figure, &data, print.path(), Media::Print).unwrap();
        let names: Vec<&str> = written.iter().filter_map(|p| p.file_name()?.to_str()).collect();
        assert_eq!(names, ["f.svg", "f.png", "f.pdf"]);
        // No temporary file is left behind.
        assert_eq!(files(print.path()), ["f.pdf", "f.png", "f.svg"]);
        assert_eq!(
            std::fs::read(screen.path().join("f.svg")).unwrap(),
            std::fs::read(print.path().join("f.svg")).unwrap()
        );
        assert_eq!(
            png_size(&print.path().join("f.png")),
            ((2500, 1838), Some(print::PRINT_PIXELS_PER_METRE))
        );
        assert!(std::fs::read(print.path().join("f.pdf")).unwrap().starts_with(b"%PDF-"));
    }

    #[test]
    fn tick_labels_are_short_and_zero_is_clean() {
        assert_eq!(tick_label(-2.7755575615628914e-17), "0");
        assert_eq!(tick_label(0.05), "0.05");
        assert_eq!(tick_label(1234.5678), "1235");
        assert_eq!(tick_label(2e9), "2e9");
    }
}

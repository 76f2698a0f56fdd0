//! `kind = "timeline"`: what each host (worker, processor) of one run does over time, as
//! horizontal strips, e.g. a work-stealing paper's per-processor activity profile.
//!
//! What is drawn:
//! - The source is a per-run table with one row per interval: `x` is where the interval
//!   starts, `x_end` where it ends, `y` names its strip (a host, a PE index).
//! - One strip per value of `y`, the first at the top: by increasing value when every value is
//!   a number (so PE 2 comes before PE 10), else in order of first appearance in the whole
//!   table (not only the figure's rows). Every panel lists the same strips in the same order,
//!   those of all its panels, so that panels compare row by row; a strip with no interval in
//!   one run is empty in that panel.
//! - One run per panel: `where` must fix every column that identifies runs (replications
//!   included) except `panels`, whose values get one timeline each, stacked vertically and
//!   sharing the time axis: from the earliest start to the latest end over the whole figure,
//!   or from 0 when the earliest start is positive but within the first tenth of that (a run's
//!   time starts at 0).
//! - Without `shade`, every interval is mid-gray. With `shade = "<column>"`, a non-negative
//!   number per interval (e.g. runnable threads) picks a gray on a fixed linear ramp from light
//!   gray (level 210) at value 1 to black at the largest value in the figure; values below 1
//!   are drawn as 1. When no value exceeds 1 the ramp runs from 0 instead (light near 0, black
//!   at the maximum), so fractions stay distinguishable. Value 0, an empty cell or no row is a
//!   gap (white). A small legend maps values to grays: every integer when the values are
//!   integers up to 8, else five values spread over the ramp.
//! - With `x_range = [from, to]`, the time axis is that window: intervals and down periods
//!   are clipped to it, and those outside it are not drawn.
//! - With `color = "<column>"` instead (e.g. `job_id`, `user` of a batch Gantt chart), each
//!   distinct value of the column, in order of first appearance in the table, takes the next
//!   color of a 12-color qualitative palette (ColorBrewer's "Paired", Harrower and Brewer 2003),
//!   cycling: values 12 apart share a color. An empty cell is a gap. The legend lists the values
//!   when there are at most 12, else names the column.
//! - With `down = "<table>"`, a per-run table with the `y` column and `from_s`, `to_s` (the
//!   bag-of-tasks family's `downtime`: when each worker's host is off), each period is a light
//!   gray band with a dark zigzag behind the intervals of its strip, in the panel of the same
//!   run (matched by the `run` column), and the legend says "down". A strip that is only down
//!   (a host off the whole run) gets a row too.
//! - Intervals of one strip should not overlap; where they do, a pixel column keeps the gray
//!   of the interval that reached it first (by start).
//!
//! Tables can hold hundreds of thousands of intervals, so the drawing is kept small:
//! 1. [`prepare`] merges, on each strip, intervals of the same gray that touch or overlap (a
//!    worker computing chunk after chunk is one bar, not thousands);
//! 2. when drawing, each strip is resampled at the pixel: a pixel column that intervals cover
//!    for less than a quarter of its width stays white (so an interval narrower than a quarter
//!    of a pixel, alone in its column, is dropped: it would not be visible), otherwise it takes
//!    the gray covering most of it; consecutive columns of one gray are one rectangle. A strip
//!    therefore holds at most one rectangle per pixel column whatever the number of rows, and
//!    a strip busy with many sub-pixel intervals still shows as busy.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{linear_ticks, AxisFormat, Ticked};
use super::{
    figure_column, frame, panel_title, register_font, render_images, tick_label, where_filters, Format, Media,
    RunColumns, FAMILY,
};
use crate::experiment::spec::FigureSpec;
use crate::output::CsvTable;
use plotters::coord::types::RangedCoordf64;

/// Gray level of value 1 (or of values near 0, when no value exceeds 1) on the shade ramp.
pub const LIGHTEST: u8 = 210;
/// Gray level of every interval when the figure has no `shade`.
pub const MID_GRAY: u8 = 128;
/// A pixel column covered by intervals for less than this share of its width stays white.
const MIN_PIXELS: f64 = 0.25;
/// Width of a timeline figure, pixels.
const WIDTH: u32 = 1000;
/// Pixels of a panel beyond its strips: caption, margins, time axis and its label.
const PANEL_EXTRA: u32 = 120;
/// Most pixels the strips of one panel take (beyond, strips get thinner than 3 pixels).
const MAX_STRIPS_HEIGHT: u32 = 1600;
/// Most timelines one figure stacks: the picture must stay a size an image viewer opens.
pub const MAX_PANELS: usize = 24;
/// Fill of a down period (`down`): lighter than any interval, and hatched, so that it reads as
/// "not there" beside the lightest shade (level 210).
const DOWN_FILL: RGBColor = RGBColor(232, 232, 232);
/// The zigzag over a down period.
const DOWN_HATCH: RGBColor = RGBColor(120, 120, 120);

/// One interval of a strip.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    /// Where it starts (value of `x`).
    pub start: f64,
    /// Where it ends (value of `x_end`).
    pub end: f64,
    /// Gray level, 0 (black) to 255 (white), or with `color` the palette index.
    pub tone: u8,
}

/// One run's timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelinePanel {
    /// Caption (`column = value`), `None` without panels.
    pub title: Option<String>,
    /// Strip names (values of `y`), top first: the same in every panel of a figure.
    pub strips: Vec<String>,
    /// Each strip's intervals by increasing start, merged (see the module documentation).
    pub intervals: Vec<Vec<Interval>>,
    /// Each strip's down periods `(from, to)` by increasing start, overlapping ones merged
    /// (empty without `down`).
    pub down: Vec<Vec<(f64, f64)>>,
}

/// Everything needed to draw a timeline figure.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineData {
    /// One timeline per panel, top first, in order of first appearance.
    pub panels: Vec<TimelinePanel>,
    /// The time axis: earliest start (or 0, see the module documentation) and latest end over
    /// all panels.
    pub span: (f64, f64),
    /// What the intervals' tones are: gray levels, or palette indices (`color`).
    pub fill: Fill,
    /// The legend: value labels and their tones (empty without `shade` or `color`, and with
    /// `color` over more values than the palette has).
    pub legend: Vec<(String, u8)>,
}

/// How an interval's tone is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// The tone is a gray level.
    Gray,
    /// The tone indexes [`PALETTE`].
    Palette,
}

impl Fill {
    /// The color of `tone`.
    pub fn rgb(self, tone: u8) -> RGBColor {
        match self {
            Fill::Gray => RGBColor(tone, tone, tone),
            Fill::Palette => {
                let (r, g, b) = PALETTE[usize::from(tone) % PALETTE.len()];
                RGBColor(r, g, b)
            }
        }
    }
}

/// ColorBrewer's 12-class qualitative "Paired" scheme (Harrower and Brewer, "ColorBrewer.org:
/// an online tool for selecting colour schemes for maps", The Cartographic Journal 40(1),
/// 2003): six hues, each light then dark, so that neighbours in appearance order differ.
pub const PALETTE: [(u8, u8, u8); 12] = [
    (166, 206, 227),
    (31, 120, 180),
    (178, 223, 138),
    (51, 160, 44),
    (251, 154, 153),
    (227, 26, 28),
    (253, 191, 111),
    (255, 127, 0),
    (202, 178, 214),
    (106, 61, 154),
    (255, 255, 153),
    (177, 89, 40),
];

impl TimelineData {
    /// Whether some strip has a down period (the legend then says what the bands are).
    pub fn has_down(&self) -> bool {
        self.panels.iter().any(|p| p.down.iter().any(|d| !d.is_empty()))
    }
}

/// Reads the intervals of `table` for a timeline `figure`: keeps the rows its `where` selects,
/// checks that each panel holds one run (`key_columns` identify runs), maps shades to grays
/// and merges adjacent intervals of equal gray. `source` names the CSV file in messages.
pub fn prepare(figure: &FigureSpec, table: &CsvTable, columns: RunColumns<'_>, source: &str) -> Result<TimelineData> {
    prepare_with_down(figure, table, None, columns, source)
}

/// [`prepare`], with the down periods of the figure's `down` table, `down` as (its CSV file's
/// name, its rows), read by the caller.
pub fn prepare_with_down(
    figure: &FigureSpec,
    table: &CsvTable,
    down: Option<(&str, &CsvTable)>,
    columns: RunColumns<'_>,
    source: &str,
) -> Result<TimelineData> {
    let key_columns = columns.keys;
    let name = figure.name.get_ref();
    let column = |c: &str| figure_column(figure, table, source, c);
    let x_end_name = figure
        .x_end
        .as_ref()
        .ok_or_else(|| anyhow!("figure '{name}': a timeline needs `x_end`, the column where each interval ends"))?;
    let start = column(figure.x.get_ref())?;
    let end = column(x_end_name.get_ref())?;
    let strip = column(figure.y.get_ref())?;
    let shade = figure.shade.as_ref().map(|s| column(s.get_ref())).transpose()?;
    let color = figure.color.as_ref().map(|c| column(c.get_ref())).transpose()?;
    if shade.is_some() && color.is_some() {
        bail!("figure '{name}': a timeline takes `shade` or `color`, not both");
    }
    // With `color`, each value's palette index in order of first appearance in the table, so
    // that every panel gives one value the same color.
    let mut categories: BTreeMap<&str, usize> = BTreeMap::new();
    let mut category_names: Vec<&str> = Vec::new();
    if let Some(c) = color {
        for r in &table.rows {
            let v = r[c].as_str();
            if !v.is_empty() && !categories.contains_key(v) {
                categories.insert(v, category_names.len());
                category_names.push(v);
            }
        }
    }
    let panel_col = figure.panels.as_ref().map(|p| column(p.get_ref())).transpose()?;
    let window = match figure.x_range.as_ref().map(|r| r.get_ref().as_slice()) {
        None => None,
        Some(&[from, to]) if from.is_finite() && to.is_finite() && from < to => Some((from, to)),
        Some(_) => bail!("figure '{name}': `x_range` must be [from, to] with from < to"),
    };
    // An interval clipped to the window; `None` when nothing of it is inside.
    let clip = |s: f64, e: f64| -> Option<(f64, f64)> {
        match window {
            None => Some((s, e)),
            Some((from, to)) if e <= from || s >= to => None,
            Some((from, to)) => Some((s.max(from), e.min(to))),
        }
    };
    let filters = where_filters(figure, table, source)?;
    // (row number in the file, row), the header being row 0.
    let rows: Vec<(usize, &Vec<String>)> = table
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| filters.iter().all(|(c, vals)| vals.contains(&r[*c])))
        .map(|(i, r)| (i + 1, r))
        .collect();
    if rows.is_empty() {
        bail!("figure '{name}': no row of {source} matches its `where`");
    }

    // Panels in order of first appearance, each with its rows.
    type Rows<'t> = Vec<(usize, &'t Vec<String>)>;
    let mut groups: Vec<(String, Rows)> = Vec::new();
    for &(i, r) in &rows {
        let key = panel_col.map_or_else(String::new, |p| r[p].clone());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push((i, r)),
            None => groups.push((key, vec![(i, r)])),
        }
    }
    // One run per panel: no column identifying runs may vary inside a panel. The `run` column
    // (written first in every per-run table) catches what the key columns cannot.
    let panel_name = figure.panels.as_ref().map(|p| p.get_ref().as_str());
    let identifying = key_columns
        .iter()
        .map(String::as_str)
        .filter(|k| *k != "seed")
        .chain(["run"]);
    let mut checked = BTreeSet::new();
    for key in identifying {
        if Some(key) == panel_name || !checked.insert(key) {
            continue;
        }
        let Some(c) = table.column(key) else { continue };
        for (panel, group) in &groups {
            let values: BTreeSet<&str> = group.iter().map(|(_, r)| r[c].as_str()).collect();
            if values.len() > 1 {
                let within = match panel_name {
                    Some(p) => format!(" in the panel {p} = {panel}"),
                    None => String::new(),
                };
                bail!(
                    "figure '{name}': column '{key}' varies ({}){within} but is not panels, and a timeline draws one run per panel; fix it with `where = {{ {key} = ... }}`",
                    values.into_iter().take(5).collect::<Vec<_>>().join(", ")
                );
            }
        }
    }

    let number = |i: usize, r: &[String], c: usize, what: &str| -> Result<Option<f64>> {
        let text = r[c].as_str();
        if text.is_empty() {
            return Ok(None);
        }
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(anyhow!(
                "figure '{name}': column '{}' holds '{text}' (row {i} of {source}), not a {what}",
                table.header[c],
                what = if what.is_empty() { "finite number" } else { what }
            )),
        }
    };

    // Intervals with their shade value (None: no `shade`), by panel.
    struct Raw {
        strip: String,
        start: f64,
        end: f64,
        value: Option<f64>,
        /// With `color`: the palette index, `None` for an empty cell (a gap).
        category: Option<u8>,
    }
    let mut span = (f64::INFINITY, f64::NEG_INFINITY);
    let mut max_value: f64 = 0.0;
    let mut integers = true;
    let mut raw_panels: Vec<(String, Vec<Raw>, Option<String>)> = Vec::new();
    // The run each panel draws (its rows share it: checked above), to find its down periods.
    let run_column = table.column("run");
    let run_of = |rows: &[&Vec<String>]| -> Option<String> { Some(rows.first()?[run_column?].clone()) };
    for (key, group) in groups {
        let group_rows: Vec<&Vec<String>> = group.iter().map(|(_, r)| *r).collect();
        let mut raw = Vec::with_capacity(group.len());
        for (i, r) in group {
            let (Some(s), Some(e)) = (number(i, r, start, "")?, number(i, r, end, "")?) else {
                continue;
            };
            if e < s {
                bail!(
                    "figure '{name}': the interval of row {i} of {source} ends ({} = {e}) before it starts ({} = {s})",
                    x_end_name.get_ref(),
                    figure.x.get_ref()
                );
            }
            let Some((s, e)) = clip(s, e) else { continue };
            span = (span.0.min(s), span.1.max(e));
            let value = match shade {
                None => None,
                Some(c) => match number(i, r, c, "non-negative number")? {
                    Some(v) if v < 0.0 => bail!(
                        "figure '{name}': column '{}' holds '{}' (row {i} of {source}), not a non-negative number",
                        table.header[c],
                        r[c]
                    ),
                    // No value: a gap, like 0.
                    v => Some(v.unwrap_or(0.0)),
                },
            };
            if let Some(v) = value {
                max_value = max_value.max(v);
                integers &= v.fract() == 0.0;
            }
            let category = color
                .and_then(|c| categories.get(r[c].as_str()))
                .map(|&k| (k % PALETTE.len()) as u8);
            if color.is_some() && category.is_none() {
                continue;
            }
            raw.push(Raw {
                strip: r[strip].clone(),
                start: s,
                end: e,
                value,
                category,
            });
        }
        raw_panels.push((key, raw, run_of(&group_rows)));
    }
    if raw_panels.len() > MAX_PANELS {
        bail!(
            "figure '{name}': {} panels, more than the {MAX_PANELS} timelines one figure stacks; keep fewer with `where`",
            raw_panels.len()
        );
    }
    if !span.0.is_finite() || !span.1.is_finite() {
        if let Some((from, to)) = window {
            bail!("figure '{name}': no interval of {source} reaches into its x_range [{from}, {to}]");
        }
        bail!(
            "figure '{name}': no interval with a start ('{}') and an end ('{}') to draw",
            figure.x.get_ref(),
            x_end_name.get_ref()
        );
    }
    // Down periods by panel, as (strip, from, to); they widen the time axis like intervals.
    let mut down_panels: Vec<Vec<(String, f64, f64)>> = vec![Vec::new(); raw_panels.len()];
    if let Some((down_source, down_table)) = down {
        let down_column = |c: &str| {
            down_table.column(c).ok_or_else(|| {
                anyhow!(
                    "figure '{name}': `down` table {down_source} has no column '{c}' (columns: {})",
                    down_table.header.join(", ")
                )
            })
        };
        let (run, strip, from, to) = (
            down_column("run")?,
            down_column(figure.y.get_ref())?,
            down_column("from_s")?,
            down_column("to_s")?,
        );
        if run_column.is_none() {
            bail!("figure '{name}': {source} has no `run` column to match its runs with those of `down`");
        }
        let panel_of: BTreeMap<&str, usize> = raw_panels
            .iter()
            .enumerate()
            .filter_map(|(i, (_, _, run))| Some((run.as_deref()?, i)))
            .collect();
        for (i, r) in down_table.rows.iter().enumerate() {
            let Some(&p) = panel_of.get(r[run].as_str()) else {
                continue;
            };
            let value = |c: usize| -> Result<Option<f64>> {
                match r[c].as_str() {
                    "" => Ok(None),
                    text => text.parse::<f64>().ok().filter(|v| v.is_finite()).map(Some).ok_or_else(|| {
                        anyhow!(
                            "figure '{name}': column '{}' holds '{text}' (row {} of {down_source}), not a finite number",
                            down_table.header[c],
                            i + 1
                        )
                    }),
                }
            };
            let (Some(f), Some(t)) = (value(from)?, value(to)?) else {
                continue;
            };
            if t < f {
                bail!(
                    "figure '{name}': the down period of row {} of {down_source} ends (to_s = {t}) before it starts (from_s = {f})",
                    i + 1
                );
            }
            let Some((f, t)) = clip(f, t) else { continue };
            span = (span.0.min(f), span.1.max(t));
            down_panels[p].push((r[strip].clone(), f, t));
        }
    }

    if let Some(window) = window {
        span = window;
    }
    // Simulated time starts at 0: show it unless the intervals start far from it.
    if window.is_none() && span.0 > 0.0 && span.0 <= 0.1 * span.1 {
        span.0 = 0.0;
    }
    if span.1 <= span.0 {
        span.1 = span.0 + 1.0;
    }

    // Every panel lists the same strips in the same order, so that panels compare row by row
    // (the same host on the same row): the strips any panel draws, in order of first appearance
    // over the whole table rather than in each run (runs hand their first chunks to different
    // hosts), which also gives two figures of one table the same order.
    // A strip the intervals table never names (a host off in every run) comes after the
    // others, in the order of the down table.
    let only_down = down_panels.iter().flatten().map(|(s, _, _)| s.as_str());
    let drawn: BTreeSet<&str> = raw_panels
        .iter()
        .flat_map(|(_, raw, _)| raw.iter().map(|r| r.strip.as_str()))
        .chain(only_down.clone())
        .collect();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let names: Vec<&str> = table
        .rows
        .iter()
        .map(|r| r[strip].as_str())
        .chain(only_down)
        .filter(|s| drawn.contains(s) && seen.insert(s))
        .collect();
    let strips = order_strips(names);
    let strip_index: BTreeMap<&str, usize> = strips.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();

    let ramp = Ramp { max: max_value };
    let panels = raw_panels
        .into_iter()
        .zip(down_panels)
        .map(|((key, raw, _), down)| {
            let mut down_strips: Vec<Vec<(f64, f64)>> =
                vec![Vec::new(); if down.is_empty() { 0 } else { strips.len() }];
            for (strip, f, t) in down {
                if let Some(&s) = strip_index.get(strip.as_str()) {
                    down_strips[s].push((f, t));
                }
            }
            for periods in &mut down_strips {
                *periods = merge_periods(std::mem::take(periods));
            }
            let mut intervals: Vec<Vec<Interval>> = vec![Vec::new(); strips.len()];
            for r in &raw {
                let gray = match (r.category, r.value) {
                    (Some(k), _) => k,
                    (None, None) => MID_GRAY,
                    (None, Some(v)) => match ramp.gray(v) {
                        Some(g) => g,
                        None => continue,
                    },
                };
                if let Some(&s) = strip_index.get(r.strip.as_str()) {
                    intervals[s].push(Interval {
                        start: r.start,
                        end: r.end,
                        tone: gray,
                    });
                }
            }
            for strip in &mut intervals {
                *strip = merge(std::mem::take(strip));
            }
            TimelinePanel {
                title: figure.panels.as_ref().map(|c| panel_title(figure, c.get_ref(), &key)),
                strips: strips.clone(),
                intervals,
                down: down_strips,
            }
        })
        .collect();
    let (fill, legend) = if color.is_some() {
        let legend = if category_names.len() <= PALETTE.len() {
            category_names
                .iter()
                .enumerate()
                .map(|(k, v)| (figure.label(v).to_string(), k as u8))
                .collect()
        } else {
            Vec::new()
        };
        (Fill::Palette, legend)
    } else if shade.is_some() {
        (Fill::Gray, ramp.legend(integers))
    } else {
        (Fill::Gray, Vec::new())
    };
    Ok(TimelineData {
        panels,
        span,
        fill,
        legend,
    })
}

/// Strip names top first: by numeric value when all are numbers, else as given (order of first
/// appearance).
pub fn order_strips(names: Vec<&str>) -> Vec<String> {
    let numbers: Option<Vec<f64>> = names
        .iter()
        .map(|n| n.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    if let Some(numbers) = numbers {
        order.sort_by(|&a, &b| numbers[a].total_cmp(&numbers[b]));
    }
    order.into_iter().map(|i| names[i].to_string()).collect()
}

/// Sorts a strip's down periods by start and merges those that touch or overlap.
fn merge_periods(mut periods: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    periods.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut merged: Vec<(f64, f64)> = Vec::with_capacity(periods.len());
    for (from, to) in periods {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    merged
}

/// Merges, in one strip, intervals of the same gray that touch or overlap; sorts by start.
pub fn merge(mut intervals: Vec<Interval>) -> Vec<Interval> {
    intervals.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.end.total_cmp(&b.end)));
    let mut merged: Vec<Interval> = Vec::with_capacity(intervals.len());
    for iv in intervals {
        match merged.last_mut() {
            Some(last) if last.tone == iv.tone && iv.start <= last.end => last.end = last.end.max(iv.end),
            _ => merged.push(iv),
        }
    }
    merged
}

/// The shade ramp of a figure whose largest shade value is `max`.
#[derive(Clone, Copy, Debug)]
struct Ramp {
    max: f64,
}

impl Ramp {
    /// The value drawn lightest: 1, or 0 when no value exceeds 1.
    fn low(self) -> f64 {
        if self.max > 1.0 {
            1.0
        } else {
            0.0
        }
    }

    /// The gray of a value; `None` (a gap) for 0.
    fn gray(self, value: f64) -> Option<u8> {
        if value <= 0.0 {
            return None;
        }
        let low = self.low();
        let t = if self.max > low {
            ((value - low) / (self.max - low)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        Some((f64::from(LIGHTEST) * (1.0 - t)).round() as u8)
    }

    /// Legend entries: each integer from 1 to the maximum when the values are integers up to 8,
    /// else five values spread evenly over the ramp (the lowest above 0).
    fn legend(self, integers: bool) -> Vec<(String, u8)> {
        if self.max <= 0.0 {
            return Vec::new();
        }
        let values: Vec<f64> = if integers && self.max <= 8.0 {
            (1..=self.max as u32).map(f64::from).collect()
        } else {
            let low = self.low();
            (0..5)
                .map(|k| low + (self.max - low) * f64::from(k) / 4.0)
                .map(|v| if v <= 0.0 { self.max / 8.0 } else { v })
                .collect()
        };
        values
            .into_iter()
            .filter_map(|v| Some((tick_label(v), self.gray(v)?)))
            .collect()
    }
}

/// Pixel height of one strip when the tallest panel has `strips` strips (at least 3 pixels
/// when the panel stays under [`MAX_STRIPS_HEIGHT`]).
fn strip_height(strips: usize) -> f64 {
    let strips = strips.max(1) as f64;
    (360.0 / strips)
        .clamp(3.0, 24.0)
        .min(f64::from(MAX_STRIPS_HEIGHT) / strips)
}

/// Writes `<name>.svg` and `<name>.png` (and `<name>.pdf` for [`Media::Print`]) in `dir` (which
/// must exist); returns the paths.
pub fn write(figure: &FigureSpec, data: &TimelineData, dir: &Path, media: Media) -> Result<Vec<PathBuf>> {
    render_images(figure.name.get_ref(), dir, media, |path, format| {
        render(figure, data, path, format)
    })
}

/// Draws a timeline figure into a file.
pub fn render(figure: &FigureSpec, data: &TimelineData, path: &Path, format: Format) -> Result<()> {
    register_font();
    if data.panels.len() > MAX_PANELS {
        bail!(
            "drawing {}: {} timelines, more than the {MAX_PANELS} one figure stacks",
            path.display(),
            data.panels.len()
        );
    }
    let strips = data.panels.iter().map(|p| p.strips.len()).max().unwrap_or(1).max(1);
    let panel_height = PANEL_EXTRA + (strips as f64 * strip_height(strips)).round() as u32;
    let title = if figure.title.is_some() { 44 } else { 0 };
    let legend = if data.legend.is_empty() && !data.has_down() && figure.color.is_none() {
        0
    } else {
        40
    };
    let height = title + legend + panel_height * data.panels.len().max(1) as u32;
    draw_to_file!(path, format, (WIDTH, height), |root| draw(root, figure, data, legend))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &FigureSpec,
    data: &TimelineData,
    legend_height: u32,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (plots, legend) = frame(root, figure, legend_height).map_err(err)?;
    let labelled = figure.shade.as_ref().or(figure.color.as_ref());
    let shade = labelled.map(|s| (s.get_ref().as_str(), data.legend.as_slice()));
    if shade.is_some() || data.has_down() {
        draw_shade_legend(&legend, data.fill, shade, data.has_down()).map_err(err)?;
    }
    let areas = plots.split_evenly((data.panels.len().max(1), 1));
    for (area, panel) in areas.iter().zip(&data.panels) {
        draw_panel(area, figure, data, panel)?;
    }
    Ok(())
}

/// One run's strips. Strip `i` (0 at the top) spans `[n - 1 - i, n - i]` on the vertical axis.
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    figure: &FigureSpec,
    data: &TimelineData,
    panel: &TimelinePanel,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let n = panel.strips.len().max(1);
    let longest = panel.strips.iter().map(|s| s.chars().count()).max().unwrap_or(1);
    let (t0, t1) = data.span;
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(14)
        .margin_right(28)
        .x_label_area_size(50)
        .y_label_area_size((40 + 9 * longest.min(24)) as u32);
    if let Some(title) = &panel.title {
        builder.caption(title, (FAMILY, 20).into_font());
    }
    let (bold, light) = linear_ticks(t0, t1);
    let x_format = AxisFormat::for_ticks(&bold);
    let time = Ticked {
        inner: RangedCoordf64::from(t0..t1),
        bold,
        light,
    };
    let mut chart = builder.build_cartesian_2d(time, 0.0..n as f64).map_err(err)?;
    let x_fmt = |v: &f64| x_format.format(*v);
    let x_desc = figure.x_label.clone().unwrap_or_else(|| figure.x.get_ref().clone());
    let y_desc = figure.y_label.clone().unwrap_or_else(|| figure.y.get_ref().clone());
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_desc_style((FAMILY, 18).into_font())
        .label_style((FAMILY, 14).into_font())
        .x_label_formatter(&x_fmt)
        // Strip names are drawn below, one beside each strip.
        .y_labels(0)
        .disable_y_mesh()
        .light_line_style(RGBColor(245, 245, 245))
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(err)?;

    // Rectangles in whole pixels of `area`: the time axis maps linearly between the pixels of
    // its two ends.
    let base = area.get_base_pixel();
    let (a, _) = chart.backend_coord(&(t0, 0.0));
    let (b, _) = chart.backend_coord(&(t1, 0.0));
    let scale = f64::from(b - a) / (t1 - t0);
    // A white line between strips when they are tall enough to spare it.
    let gap = i32::from(strip_height(n) >= 6.0);
    // Name at most one strip per 14 pixels, so that names never overlap.
    let (_, top_px) = chart.backend_coord(&(t0, n as f64));
    let (_, bottom_px) = chart.backend_coord(&(t0, 0.0));
    let room = ((bottom_px - top_px) / 14).max(1) as usize;
    let every = n.div_ceil(room).max(1);
    let label = (FAMILY, 14)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Right, VPos::Center));
    for (i, name) in panel.strips.iter().enumerate().step_by(every) {
        let (_, y) = chart.backend_coord(&(t0, (n - 1 - i) as f64 + 0.5));
        area.draw_text(name, &label, (a - base.0 - 6, y - base.1))
            .map_err(err)?;
    }
    for (i, intervals) in panel.intervals.iter().enumerate() {
        let (_, top) = chart.backend_coord(&(t0, (n - i) as f64));
        let (_, bottom) = chart.backend_coord(&(t0, (n - 1 - i) as f64));
        let (top, bottom) = (top + gap - base.1, bottom - gap - base.1);
        // Down periods first, so that the intervals (which should not overlap them) stay on
        // top; resampled at the pixel like intervals.
        let down: Vec<Interval> = panel
            .down
            .get(i)
            .into_iter()
            .flatten()
            .map(|&(start, end)| Interval { start, end, tone: 0 })
            .collect();
        for (p0, p1, _) in pixel_runs(&down, t0, f64::from(a - base.0), scale) {
            let (p0, p1) = (p0.max(a - base.0), p1.min(b - base.0));
            if p1 <= p0 {
                continue;
            }
            area.draw(&Rectangle::new([(p0, top), (p1, bottom)], DOWN_FILL.filled()))
                .map_err(err)?;
            if bottom - top >= 6 {
                area.draw(&PathElement::new(
                    zigzag(p0, p1, top + 1, bottom - 1),
                    DOWN_HATCH.stroke_width(1),
                ))
                .map_err(err)?;
            }
        }
        for (p0, p1, gray) in pixel_runs(intervals, t0, f64::from(a - base.0), scale) {
            // Rounding must not push a rectangle over the axes.
            let (p0, p1) = (p0.max(a - base.0), p1.min(b - base.0));
            if p1 <= p0 {
                continue;
            }
            area.draw(&Rectangle::new([(p0, top), (p1, bottom)], data.fill.rgb(gray).filled()))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// A strip's intervals resampled at the pixel, as runs `(first, end, gray)` of pixel columns
/// (`end` excluded), the time `t0` being at pixel `origin` and `scale` pixels per unit of time.
/// A column that intervals cover for less than [`MIN_PIXELS`] stays white (so an isolated
/// interval narrower than that is dropped); otherwise it takes the gray that covers most of it
/// (the darker on a tie). Columns of the same gray in a row are one run. `intervals` are by
/// increasing start; where they overlap, the part of a later interval inside a column already
/// resolved is ignored.
fn pixel_runs(intervals: &[Interval], t0: f64, origin: f64, scale: f64) -> Vec<(i32, i32, u8)> {
    let mut strip = PixelStrip::default();
    for iv in intervals {
        let x0 = origin + (iv.start - t0) * scale;
        let x1 = origin + (iv.end - t0) * scale;
        strip.add(x0, x1, iv.tone);
    }
    strip.finish()
}

/// Pixel positions beyond which nothing is drawn (figures are a few thousand pixels wide).
const PIXEL_LIMIT: i32 = 1 << 24;

/// The state of [`pixel_runs`].
#[derive(Default)]
struct PixelStrip {
    runs: Vec<(i32, i32, u8)>,
    /// The column being accumulated and each gray's coverage of it.
    column: Option<i64>,
    cover: Vec<(u8, f64)>,
    /// Columns before this one are resolved.
    done: Option<i64>,
}

impl PixelStrip {
    /// Columns `first..end` (within [`PIXEL_LIMIT`]) in `gray`.
    fn emit(&mut self, first: i64, end: i64, gray: u8) {
        let (first, end) = (first as i32, end as i32);
        match self.runs.last_mut() {
            Some(last) if last.2 == gray && last.1 == first => last.1 = end,
            _ => self.runs.push((first, end, gray)),
        }
    }

    /// Resolves the column being accumulated.
    fn flush(&mut self) {
        let Some(column) = self.column.take() else { return };
        let total: f64 = self.cover.iter().map(|c| c.1).sum();
        let best = self
            .cover
            .iter()
            .copied()
            .reduce(|a, b| if b.1 > a.1 || (b.1 == a.1 && b.0 < a.0) { b } else { a });
        self.cover.clear();
        self.done = Some(column + 1);
        if let Some((gray, _)) = best.filter(|_| total >= MIN_PIXELS) {
            self.emit(column, column + 1, gray);
        }
    }

    /// Covers pixels `x0..x1` with `gray`.
    fn add(&mut self, x0: f64, x1: f64, gray: u8) {
        // Far outside the picture nothing is drawn; clamping keeps the column arithmetic exact
        // and far from overflow whatever the scale.
        let limit = f64::from(PIXEL_LIMIT);
        let (x0, x1) = (x0.clamp(-limit, limit), x1.clamp(-limit, limit));
        let mut x = match self.done {
            Some(d) => x0.max(d as f64),
            None => x0,
        };
        // Also refuses NaN.
        if x1.partial_cmp(&x) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        while x < x1 {
            let p = x.floor() as i64;
            if self.column != Some(p) {
                self.flush();
                self.column = Some(p);
            }
            let whole = x1.floor() as i64;
            if x == p as f64 && whole > p {
                // Columns p..whole are fully covered: one run, after p's earlier coverage.
                let first = if self.cover.is_empty() {
                    self.column = None;
                    p
                } else {
                    self.add_cover(gray, 1.0);
                    self.flush();
                    p + 1
                };
                self.column = None;
                if whole > first {
                    self.emit(first, whole, gray);
                }
                self.done = Some(whole);
                x = whole as f64;
            } else {
                let next = ((p + 1) as f64).min(x1);
                self.add_cover(gray, next - x);
                x = next;
            }
        }
    }

    /// Adds `width` pixels of `gray` to the column being accumulated.
    fn add_cover(&mut self, gray: u8, width: f64) {
        match self.cover.iter_mut().find(|c| c.0 == gray) {
            Some(c) => c.1 += width,
            None => self.cover.push((gray, width)),
        }
    }

    /// The runs, once every interval is added.
    fn finish(mut self) -> Vec<(i32, i32, u8)> {
        self.flush();
        self.runs
    }
}

/// A zigzag between `top` and `bottom` across pixels `p0..p1`, one segment per strip height:
/// the hatching of a down period, one path whatever its length.
fn zigzag(p0: i32, p1: i32, top: i32, bottom: i32) -> Vec<(i32, i32)> {
    let step = (bottom - top).max(2);
    let mut points = Vec::new();
    let mut x = p0;
    let mut low = true;
    while x < p1 {
        points.push((x, if low { bottom } else { top }));
        x += step;
        low = !low;
    }
    // The last segment ends at p1, where the line from the last vertex reaches.
    let (lx, ly) = *points.last().unwrap_or(&(p0, bottom));
    let target = if low { bottom } else { top };
    points.push((p1, ly + (target - ly) * (p1 - lx) / step));
    points
}

/// `shade: [ ] 1 [ ] 2 ...` (the shade or color column and its entries; the column alone when
/// it has too many values to list), then `[/\/] down` when some strip is down, centred.
fn draw_shade_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    fill: Fill,
    shade: Option<(&str, &[(String, u8)])>,
    down: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (width, _) = area.dim_in_pixel();
    let font = (FAMILY, 15)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let text_width = |s: &str| area.estimate_text_size(s, &font).map_or(9 * s.len() as u32, |(w, _)| w) as i32;
    let label = shade.map(|(column, entries)| match (fill, entries.is_empty()) {
        (Fill::Palette, true) => format!("color: {column} ({} colors, cycled)", PALETTE.len()),
        _ => format!("{column}:"),
    });
    let entries = shade.map_or(&[][..], |(_, e)| e);
    let down_label = "down";
    let total: i32 = label.as_deref().map_or(0, |l| text_width(l) + 12)
        + entries.iter().map(|(s, _)| 26 + text_width(s) + 16).sum::<i32>()
        + if down { 26 + text_width(down_label) } else { 0 };
    let mut x = (width as i32 - total).max(0) / 2;
    let y = 18;
    if let Some(label) = &label {
        area.draw(&Text::new(label.clone(), (x, y), font.clone()))?;
        x += text_width(label) + 12;
    }
    if down {
        // Drawn last, at the right end.
        let end = x + entries.iter().map(|(s, _)| 26 + text_width(s) + 16).sum::<i32>();
        area.draw(&Rectangle::new([(end, y - 7), (end + 20, y + 7)], DOWN_FILL.filled()))?;
        area.draw(&PathElement::new(
            zigzag(end, end + 20, y - 6, y + 6),
            DOWN_HATCH.stroke_width(1),
        ))?;
        area.draw(&Rectangle::new(
            [(end, y - 7), (end + 20, y + 7)],
            BLACK.stroke_width(1),
        ))?;
        area.draw(&Text::new(down_label, (end + 26, y), font.clone()))?;
    }
    for (text, tone) in entries {
        area.draw(&Rectangle::new([(x, y - 7), (x + 20, y + 7)], fill.rgb(*tone).filled()))?;
        area.draw(&Rectangle::new([(x, y - 7), (x + 20, y + 7)], BLACK.stroke_width(1)))?;
        area.draw(&Text::new(text.clone(), (x + 26, y), font.clone()))?;
        x += 26 + text_width(text) + 16;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(extra: &str) -> FigureSpec {
        toml::from_str(&format!(
            "name = 't'\nkind = 'timeline'\nsource = 'steps'\nx = 'start'\nx_end = 'end'\ny = 'pe'\n{extra}"
        ))
        .unwrap()
    }

    fn keys() -> RunColumns<'static> {
        let keys: Vec<String> = vec!["scheduler".into(), "replication".into(), "seed".into()];
        RunColumns {
            keys: Box::leak(keys.into_boxed_slice()),
            scheduler_params: &[],
        }
    }

    /// A per-run table: run, scheduler, replication, then pe, start, end, threads.
    fn table(rows: &[(usize, &str, u32, &str, f64, f64, f64)]) -> CsvTable {
        let mut t = CsvTable::new(
            ["run", "scheduler", "replication", "pe", "start", "end", "threads"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        for &(run, sched, rep, pe, s, e, th) in rows {
            t.rows.push(vec![
                run.to_string(),
                sched.into(),
                rep.to_string(),
                pe.into(),
                s.to_string(),
                e.to_string(),
                th.to_string(),
            ]);
        }
        t
    }

    #[test]
    fn adjacent_intervals_of_equal_shade_are_merged() {
        let t = table(&[
            (0, "RS", 0, "0", 0.0, 1.0, 2.0),
            (0, "RS", 0, "0", 1.0, 2.0, 2.0),
            (0, "RS", 0, "0", 2.0, 3.0, 3.0),
            (0, "RS", 0, "0", 3.5, 4.0, 3.0),
            (0, "RS", 0, "0", 4.0, 5.0, 3.0),
            (0, "RS", 0, "0", 5.0, 6.0, 0.0),
            (0, "RS", 0, "0", 6.0, 7.0, 1.0),
        ]);
        let data = prepare(&figure("shade = 'threads'"), &t, keys(), "steps.csv").unwrap();
        let strip = &data.panels[0].intervals[0];
        let spans: Vec<(f64, f64, u8)> = strip.iter().map(|i| (i.start, i.end, i.tone)).collect();
        // Ramp from 1 (level 210) to the maximum 3 (black): 2 is halfway; 0 is a gap.
        assert_eq!(
            spans,
            vec![(0.0, 2.0, 105), (2.0, 3.0, 0), (3.5, 5.0, 0), (6.0, 7.0, LIGHTEST)]
        );
        assert_eq!(data.span, (0.0, 7.0));
        let legend: Vec<&str> = data.legend.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(legend, ["1", "2", "3"]);
        // Without shade, every interval is mid-gray, so all that touch merge.
        let plain = prepare(&figure(""), &t, keys(), "steps.csv").unwrap();
        let spans: Vec<(f64, f64)> = plain.panels[0].intervals[0].iter().map(|i| (i.start, i.end)).collect();
        assert_eq!(spans, vec![(0.0, 3.0), (3.5, 7.0)]);
        assert!(plain.legend.is_empty());
    }

    #[test]
    fn colors_follow_first_appearance_and_cycle() {
        // Values 7, 3, 7, 9 in table order: 7 is palette color 0, 3 color 1, 9 color 2, in
        // both panels (run 1 names 9 first, yet keeps the table's order).
        let t = table(&[
            (0, "A", 0, "0", 0.0, 1.0, 7.0),
            (0, "A", 0, "0", 1.0, 2.0, 3.0),
            (0, "A", 0, "1", 0.0, 2.0, 7.0),
            (1, "B", 0, "0", 0.0, 1.0, 9.0),
            (1, "B", 0, "0", 1.0, 3.0, 7.0),
        ]);
        let data = prepare(
            &figure("color = 'threads'\npanels = 'scheduler'"),
            &t,
            keys(),
            "steps.csv",
        )
        .unwrap();
        assert_eq!(data.fill, Fill::Palette);
        let tones = |p: usize, s: usize| -> Vec<(f64, f64, u8)> {
            data.panels[p].intervals[s]
                .iter()
                .map(|i| (i.start, i.end, i.tone))
                .collect()
        };
        assert_eq!(tones(0, 0), vec![(0.0, 1.0, 0), (1.0, 2.0, 1)]);
        assert_eq!(tones(0, 1), vec![(0.0, 2.0, 0)]);
        assert_eq!(tones(1, 0), vec![(0.0, 1.0, 2), (1.0, 3.0, 0)]);
        let legend: Vec<(&str, u8)> = data.legend.iter().map(|(s, k)| (s.as_str(), *k)).collect();
        assert_eq!(legend, [("7", 0), ("3", 1), ("9", 2)]);
        assert_eq!(Fill::Palette.rgb(1), RGBColor(31, 120, 180));

        // Thirteen values: the thirteenth takes the first color again, and the legend, which
        // cannot list them, is empty (the figure names the column instead).
        let rows: Vec<(usize, &str, u32, &str, f64, f64, f64)> = (0..13)
            .map(|k| (0, "A", 0, "0", f64::from(k), f64::from(k) + 0.5, f64::from(k + 100)))
            .collect();
        let data = prepare(&figure("color = 'threads'"), &table(&rows), keys(), "steps.csv").unwrap();
        let tones: Vec<u8> = data.panels[0].intervals[0].iter().map(|i| i.tone).collect();
        assert_eq!(tones, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0]);
        assert!(data.legend.is_empty());

        let err = prepare(&figure("color = 'threads'\nshade = 'threads'"), &t, keys(), "steps.csv").unwrap_err();
        assert!(err.to_string().contains("`shade` or `color`, not both"), "{err}");
    }

    #[test]
    fn a_window_clips_the_intervals() {
        let t = table(&[
            (0, "A", 0, "0", 0.0, 4.0, 1.0),
            (0, "A", 0, "0", 5.0, 7.0, 1.0),
            (0, "A", 0, "1", 8.0, 9.0, 1.0),
            (0, "A", 0, "2", 1.0, 2.0, 1.0),
        ]);
        let data = prepare(&figure("x_range = [3, 6]"), &t, keys(), "steps.csv").unwrap();
        assert_eq!(data.span, (3.0, 6.0));
        let spans: Vec<Vec<(f64, f64)>> = data.panels[0]
            .intervals
            .iter()
            .map(|s| s.iter().map(|i| (i.start, i.end)).collect())
            .collect();
        // Strips 1 and 2 have nothing inside the window and are not listed.
        assert_eq!(data.panels[0].strips, ["0"]);
        assert_eq!(spans, vec![vec![(3.0, 4.0), (5.0, 6.0)]]);
        let err = prepare(&figure("x_range = [20, 30]"), &t, keys(), "steps.csv").unwrap_err();
        assert!(err.to_string().contains("reaches into its x_range"), "{err}");
    }

    #[test]
    fn strips_are_ordered_numerically_when_numbers() {
        let t = table(&[
            (0, "RS", 0, "10", 0.0, 1.0, 1.0),
            (0, "RS", 0, "2", 0.0, 1.0, 1.0),
            (0, "RS", 0, "1", 0.0, 1.0, 1.0),
        ]);
        let data = prepare(&figure(""), &t, keys(), "steps.csv").unwrap();
        assert_eq!(data.panels[0].strips, ["1", "2", "10"]);
        assert_eq!(order_strips(vec!["b", "a", "10", "2"]), ["b", "a", "10", "2"]);
    }

    #[test]
    fn every_panel_lists_the_same_strips_in_the_same_order() {
        // Each run listed its hosts in the order it first used them, so row k
        // of one panel was not the host of row k of the next.
        let t = table(&[
            (0, "RS", 0, "hostB", 0.0, 1.0, 1.0),
            (0, "RS", 0, "hostA", 0.0, 1.0, 1.0),
            (1, "CRS", 0, "hostA", 0.0, 1.0, 1.0),
            (1, "CRS", 0, "hostC", 0.0, 1.0, 1.0),
            (1, "CRS", 0, "hostB", 1.0, 2.0, 1.0),
            // A host of another replication, which the figure does not draw.
            (2, "CRS", 1, "hostD", 0.0, 1.0, 1.0),
        ]);
        let data = prepare(
            &figure("panels = 'scheduler'\nwhere = { replication = 0 }"),
            &t,
            keys(),
            "steps.csv",
        )
        .unwrap();
        for panel in &data.panels {
            assert_eq!(panel.strips, ["hostB", "hostA", "hostC"], "{:?}", panel.title);
        }
        // RS never used hostC: its row is there, empty; CRS used hostB last, on row 0.
        assert!(data.panels[0].intervals[2].is_empty());
        assert_eq!(data.panels[1].intervals[0][0].start, 1.0);
    }

    #[test]
    fn down_periods_go_to_their_run_and_strip() {
        let t = table(&[(0, "RS", 0, "0", 0.0, 2.0, 1.0), (0, "RS", 0, "1", 0.0, 2.0, 1.0)]);
        let mut down = CsvTable::new(["run", "pe", "from_s", "to_s"].iter().map(|s| s.to_string()).collect());
        for row in [
            ["0", "2", "0", "5"],
            ["0", "0", "3", "4"],
            ["0", "0", "3.5", "6"],
            ["9", "1", "0", "1"],
        ] {
            down.rows.push(row.map(String::from).to_vec());
        }
        let fig = figure("down = 'downtime'");
        let data = prepare_with_down(&fig, &t, Some(("downtime.csv", &down)), keys(), "steps.csv").unwrap();
        let panel = &data.panels[0];
        // PE 2 is only down: it gets a strip; overlapping periods merge; run 9's is not drawn.
        assert_eq!(panel.strips, ["0", "1", "2"]);
        assert_eq!(panel.down, vec![vec![(3.0, 6.0)], vec![], vec![(0.0, 5.0)]]);
        assert_eq!(data.span, (0.0, 6.0));
        assert!(data.has_down());
        down.rows[0][3] = "-1".into();
        let err = prepare_with_down(&fig, &t, Some(("downtime.csv", &down)), keys(), "steps.csv").unwrap_err();
        assert!(
            err.to_string()
                .contains("row 1 of downtime.csv ends (to_s = -1) before it starts"),
            "{err}"
        );
        let err = prepare_with_down(&fig, &t, Some(("lost.csv", &t)), keys(), "steps.csv").unwrap_err();
        assert!(
            err.to_string().contains("`down` table lost.csv has no column 'from_s'"),
            "{err}"
        );
        // A zigzag stays inside its band.
        let z = zigzag(10, 35, 0, 8);
        assert_eq!((z[0], *z.last().unwrap()), ((10, 8), (35, 1)));
        assert!(
            z.iter().all(|&(x, y)| (10..=35).contains(&x) && (0..=8).contains(&y)),
            "{z:?}"
        );
    }

    #[test]
    fn a_panel_must_hold_one_run() {
        let t = table(&[
            (0, "RS", 0, "0", 0.0, 1.0, 1.0),
            (1, "RS", 1, "0", 0.0, 1.0, 1.0),
            (2, "CRS", 0, "0", 0.0, 1.0, 1.0),
        ]);
        let err = prepare(&figure("panels = 'scheduler'"), &t, keys(), "steps.csv")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("column 'replication' varies (0, 1) in the panel scheduler = RS but is not panels")
                && err.contains("fix it with `where = { replication = ... }`"),
            "{err}"
        );
        let data = prepare(
            &figure("panels = 'scheduler'\nwhere = { replication = 0 }"),
            &t,
            keys(),
            "steps.csv",
        )
        .unwrap();
        assert_eq!(data.panels.len(), 2);
        assert_eq!(data.panels[1].title.as_deref(), Some("scheduler = CRS"));
        let err = prepare(&figure("where = { replication = 0 }"), &t, keys(), "steps.csv").unwrap_err();
        assert!(err.to_string().contains("column 'scheduler' varies (CRS, RS)"), "{err}");
    }

    #[test]
    fn bad_intervals_and_shades_are_errors() {
        let t = table(&[(0, "RS", 0, "0", 2.0, 1.0, 1.0)]);
        let err = prepare(&figure(""), &t, keys(), "steps.csv").unwrap_err().to_string();
        assert!(
            err.contains("row 1 of steps.csv ends (end = 1) before it starts"),
            "{err}"
        );
        let t = table(&[(0, "RS", 0, "0", 0.0, 1.0, -1.0)]);
        let err = prepare(&figure("shade = 'threads'"), &t, keys(), "steps.csv")
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a non-negative number"), "{err}");
        let err = prepare(&figure("shade = 'runnable'"), &t, keys(), "steps.csv")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no column 'runnable' in steps.csv"), "{err}");
    }

    #[test]
    fn strips_are_resampled_at_the_pixel() {
        let iv = |start: f64, end: f64, tone: u8| Interval { start, end, tone };
        // 1 pixel per time unit from pixel 100.
        let runs = pixel_runs(
            &[
                iv(0.0, 10.0, 0),
                iv(10.2, 10.3, 0),  // in the column of the next one
                iv(10.4, 20.0, 0),  // the gap is inside one column: one run with the first
                iv(20.0, 20.5, 50), // half a pixel: one column
                iv(30.0, 40.0, 0),
                iv(50.0, 50.1, 0), // a tenth of a pixel, alone: dropped
            ],
            0.0,
            100.0,
            1.0,
        );
        assert_eq!(runs, vec![(100, 120, 0), (120, 121, 50), (130, 140, 0)]);
        // Alternating shades a tenth of a pixel wide: every column is drawn, in the shade that
        // covers most of it (60% dark).
        let mut fine = Vec::new();
        for k in 0..100 {
            let t = f64::from(k) / 10.0;
            fine.push(iv(t, t + 0.1, if k % 10 < 6 { 0 } else { 50 }));
        }
        assert_eq!(pixel_runs(&fine, 0.0, 200.0, 1.0), vec![(200, 210, 0)]);
        // An absurd scale neither overflows nor loops: everything lands past the picture.
        let far = pixel_runs(&fine, 0.0, 0.0, 1e300);
        assert!(far.iter().all(|r| r.0 >= 0 && r.1 <= PIXEL_LIMIT), "{far:?}");
    }

    #[test]
    fn a_large_timeline_is_drawn_with_few_elements() {
        // 100,000 one-unit intervals alternating between two shades on 10 strips.
        let mut rows = Vec::new();
        for k in 0..100_000usize {
            let pe = (k % 10).to_string();
            let t = (k / 10) as f64;
            rows.push((0, "RS", 0, pe, t, t + 1.0, (1 + (k / 10) % 2) as f64));
        }
        let rows: Vec<(usize, &str, u32, &str, f64, f64, f64)> = rows
            .iter()
            .map(|(r, s, rep, pe, a, b, th)| (*r, *s, *rep, pe.as_str(), *a, *b, *th))
            .collect();
        let fig = figure("shade = 'threads'\ntitle = 'busy'");
        let data = prepare(&fig, &table(&rows), keys(), "steps.csv").unwrap();
        assert_eq!(data.panels[0].strips.len(), 10);
        let dir = tempfile::tempdir().unwrap();
        write(&fig, &data, dir.path(), Media::Screen).unwrap();
        let svg = std::fs::read_to_string(dir.path().join("t.svg")).unwrap();
        assert!(svg.contains("busy") && svg.contains("threads:"));
        // At most one rectangle per pixel column and strip, and the strips are not empty.
        let rects = svg.matches("<rect").count();
        assert!((100..20_000).contains(&rects), "{rects} rectangles");
    }
}

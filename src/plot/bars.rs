//! `kind = "bars"`: grouped bar charts, e.g. a paper's table of run times per program and
//! scheduler with an improvement column.
//!
//! What is drawn:
//! - One group of bars per value of `x`, in order of first appearance in the data. Numbers are
//!   categories too (in order of appearance, not sorted): bars compare configurations, they do
//!   not plot a function of x. When every group is a number, the groups are named as a lines
//!   figure's x axis would write them, in one format ("1e8", "5e8"; [`category_names`]).
//! - One bar per value of `series` (default `scheduler`) inside each group, always at the same
//!   place and in the same colour (the lines' Okabe-Ito palette, by the series' rank among
//!   every series of the whole table, as lines), so a series missing from a group leaves a gap
//!   rather than moving its neighbours, and one with no bar at all recolours no other.
//! - The bar's height is the mean of `y` over the group's rows (the replications), computed by
//!   the same code as lines ([`super::prepare`]), and its whisker the same 95% Student-t
//!   interval; `error_bars = false` hides the whiskers but the CSV keeps the interval.
//! - Bars start at 0 on a linear axis (the axis always includes 0, so heights compare), and at
//!   the bottom of the axis with `y_log`. `x_log` is refused: groups are categories.
//! - With `baseline = "<series value>"`, each other bar of a group is annotated above it with
//!   its improvement over the group's baseline bar, `(baseline - value) / baseline` in percent
//!   from the two means (as the improvement columns of papers' tables are computed): positive
//!   when the bar is lower (faster) than the baseline. The label is the percentage rounded by
//!   `format!("{:.0}")` (to the nearest integer of the exact binary value, ties to even), with
//!   a typographic minus sign and `-0` shown as `0`: 53.59% shows as "54%", -40.2% as "−40%".
//!   No label when the group has no baseline bar or its mean is 0.
//! - Panels and `where` as for lines.
//!
//! Every bars figure also writes its numbers beside the images, `<name>.csv`, with the columns
//! `panel` (the panels column's value, empty without panels), `x`, `series`, `mean`, `ci_low`,
//! `ci_high`, `n` and `improvement_pct` (the unrounded percentage in shortest round-trip form;
//! empty for the baseline bars, without a baseline, or without a baseline bar in the group),
//! one row per bar by panel, group and series order, written atomically like every output.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{linear_ticks, log_minor, log_ticks, AxisFormat, Ticked};
use super::{
    draw_legend_entries, draw_note, figure_size, frame, prepare_groups, register_font, render_images, style_of, Format,
    Media, RunColumns, FAMILY,
};
use crate::experiment::spec::FigureSpec;
use crate::output::{format_f64, CsvTable};
use plotters::coord::combinators::LogCoord;
use plotters::coord::types::RangedCoordf64;

/// Share of a group's width taken by its bars (the rest separates groups).
const GROUP_WIDTH: f64 = 0.8;

/// One bar: the mean of y over a group and series, with its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Index of the group in [`BarsData::categories`].
    pub category: usize,
    /// Index of the series in [`BarsData::series_names`].
    pub series: usize,
    /// Mean of y.
    pub mean: f64,
    /// Lower end of the 95% Student-t interval.
    pub lo: f64,
    /// Upper end of the 95% Student-t interval.
    pub hi: f64,
    /// Number of values averaged.
    pub n: usize,
    /// `(baseline - mean) / baseline` in percent, for a non-baseline bar whose group has a
    /// baseline bar with a non-zero mean.
    pub improvement_pct: Option<f64>,
}

/// One sub-plot of bars.
#[derive(Clone, Debug, PartialEq)]
pub struct BarPanel {
    /// The panels column's value (empty without panels).
    pub key: String,
    /// Caption (`column = value`), `None` without panels.
    pub title: Option<String>,
    /// Bars by group, then series.
    pub bars: Vec<Bar>,
}

/// Everything needed to draw a bars figure and write its CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct BarsData {
    /// The groups (values of x), in order of first appearance.
    pub categories: Vec<String>,
    /// The series, in order of first appearance over all panels.
    pub series_names: Vec<String>,
    /// Each series' colour, as [`super::FigureData::styles`]: its rank among the series of
    /// the whole table, so that it does not change when another series has no bar.
    pub styles: Vec<usize>,
    /// Sub-plots.
    pub panels: Vec<BarPanel>,
    /// The baseline series' index, when the figure has a baseline present in the data.
    pub baseline: Option<usize>,
    /// The line under the legend saying which bars have no interval (too few replications).
    pub note: Option<String>,
}

/// Groups and averages the rows of `table` for a bars `figure`, as [`super::prepare`] does for
/// lines but with x as categories, then computes the improvements over the baseline. A
/// baseline that is no series value is an error, except in quick mode (`quick`), where the
/// subset may leave it out: the figure is then drawn without improvements.
pub fn prepare(
    figure: &FigureSpec,
    table: &CsvTable,
    columns: RunColumns<'_>,
    source: &str,
    quick: bool,
) -> Result<BarsData> {
    let name = figure.name.get_ref();
    if figure.x_log {
        bail!("figure '{name}': bars stand on the categories of x, which cannot be logarithmic; remove `x_log`");
    }
    // The intervals are always computed, for the CSV; `error_bars = false` only hides them.
    let mut with_intervals = figure.clone();
    with_intervals.error_bars = None;
    let (data, panel_keys) = prepare_groups(&with_intervals, table, columns, source, true)?;
    let thin = data.thin_note().map(|_| {
        format!(
            "Bars without whiskers: mean of fewer than {} replications, no confidence interval",
            data.min_replications
        )
    });
    let note = super::join_notes(thin, data.omitted_note());
    let categories = data.categories.unwrap_or_default();
    let series_names = data.series_names;
    let styles = data.styles;
    let baseline = match &figure.baseline {
        None => None,
        Some(b) => match series_names.iter().position(|s| s == b.get_ref()) {
            Some(i) => Some(i),
            None if quick => None,
            None => {
                let series = figure.series.as_ref().map_or("scheduler", |s| s.get_ref().as_str());
                bail!(
                    "figure '{name}': baseline '{}' is not a value of the series column '{series}' (its values: {})",
                    b.get_ref(),
                    series_names.join(", ")
                );
            }
        },
    };
    let panels = data
        .panels
        .into_iter()
        .zip(panel_keys)
        .map(|(panel, key)| {
            let mut bars = Vec::new();
            for series in &panel.series {
                let s = series_names.iter().position(|n| *n == series.name).unwrap_or(0);
                for p in &series.points {
                    bars.push(Bar {
                        // The x of a categorical point is its category's index.
                        category: p.x as usize,
                        series: s,
                        mean: p.mean,
                        lo: p.lo,
                        hi: p.hi,
                        n: p.n,
                        improvement_pct: None,
                    });
                }
            }
            bars.sort_by_key(|b| (b.category, b.series));
            if let Some(base) = baseline {
                let reference: Vec<(usize, f64)> = bars
                    .iter()
                    .filter(|b| b.series == base)
                    .map(|b| (b.category, b.mean))
                    .collect();
                for bar in bars.iter_mut().filter(|b| b.series != base) {
                    bar.improvement_pct = reference
                        .iter()
                        .find(|(c, _)| *c == bar.category)
                        .and_then(|&(_, m)| improvement_pct(m, bar.mean));
                }
            }
            BarPanel {
                key,
                title: panel.title,
                bars,
            }
        })
        .collect();
    Ok(BarsData {
        categories,
        series_names,
        styles,
        panels,
        baseline,
        note,
    })
}

/// `(baseline - value) / baseline` in percent; `None` when the baseline is 0 or the result is
/// not finite.
pub fn improvement_pct(baseline: f64, value: f64) -> Option<f64> {
    let pct = (baseline - value) / baseline * 100.0;
    (baseline != 0.0 && pct.is_finite()).then_some(pct)
}

/// The annotation of an improvement: rounded by `format!("{:.0}")` (nearest integer of the
/// exact binary value, ties to even), `-0` shown as `0`, a typographic minus sign, then `%`.
pub fn improvement_label(pct: f64) -> String {
    let rounded = format!("{pct:.0}");
    let rounded = if rounded == "-0" { "0" } else { rounded.as_str() };
    format!("{}%", rounded.replace('-', "\u{2212}"))
}

/// The figure's data as a table: `panel, x, series, mean, ci_low, ci_high, n,
/// improvement_pct`, one row per bar.
pub fn to_table(data: &BarsData) -> CsvTable {
    let header = [
        "panel",
        "x",
        "series",
        "mean",
        "ci_low",
        "ci_high",
        "n",
        "improvement_pct",
    ];
    let mut table = CsvTable::new(header.iter().map(|h| h.to_string()).collect());
    for panel in &data.panels {
        for bar in &panel.bars {
            table.rows.push(vec![
                panel.key.clone(),
                data.categories.get(bar.category).cloned().unwrap_or_default(),
                data.series_names.get(bar.series).cloned().unwrap_or_default(),
                format_f64(bar.mean),
                format_f64(bar.lo),
                format_f64(bar.hi),
                bar.n.to_string(),
                bar.improvement_pct.map(format_f64).unwrap_or_default(),
            ]);
        }
    }
    table
}

/// Writes `<name>.csv`, `<name>.svg` and `<name>.png` (and `<name>.pdf` for [`Media::Print`])
/// in `dir` (which must exist); returns the paths.
pub fn write(figure: &FigureSpec, data: &BarsData, dir: &Path, media: Media) -> Result<Vec<PathBuf>> {
    let csv = dir.join(format!("{}.csv", figure.name.get_ref()));
    to_table(data).write(&csv)?;
    let mut written = vec![csv];
    written.extend(render_images(figure.name.get_ref(), dir, media, |path, format| {
        render(figure, data, path, format)
    })?);
    Ok(written)
}

/// Draws a bars figure into a file.
pub fn render(figure: &FigureSpec, data: &BarsData, path: &Path, format: Format) -> Result<()> {
    register_font();
    let names = legend_names(figure, data);
    let (width, height, rows, cols, legend_rows) = figure_size(data.panels.len(), &names, data.note.iter().count());
    draw_to_file!(path, format, (width, height), |root| draw(
        root,
        figure,
        data,
        rows,
        cols,
        legend_rows
    ))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &FigureSpec,
    data: &BarsData,
    rows: usize,
    cols: usize,
    legend_rows: usize,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (plots, legend) = frame(root, figure, 28 * legend_rows as u32 + 8).map_err(err)?;
    draw_legend(&legend, &legend_names(figure, data), &data.styles).map_err(err)?;
    if let Some(note) = &data.note {
        draw_note(&legend, note, legend_rows - 1).map_err(err)?;
    }

    let name = figure.name.get_ref();
    let per_panel = figure.per_panel_y().map_err(|m| format!("figure '{name}': {m}"))?;
    let whiskers = figure.error_bars != Some(false);
    let all = || data.panels.iter().flat_map(|p| p.bars.iter());
    if figure.y_log {
        if let Some(b) = all().find(|b| b.mean <= 0.0) {
            return Err(format!(
                "figure '{name}': y_log needs positive values, but '{}' has mean {}",
                figure.y.get_ref(),
                b.mean
            ));
        }
    }
    // The y axis over some bars: their tops, whiskers included when drawn, room above for
    // improvement labels; on a linear axis bars stand on 0, so it always includes 0.
    let y_axis = |bars: &[&Bar]| -> Result<(f64, f64), String> {
        let ends = bars
            .iter()
            .flat_map(|b| if whiskers { [b.lo, b.mean, b.hi] } else { [b.mean; 3] });
        let annotated = bars.iter().any(|b| b.improvement_pct.is_some());
        let no_value = || format!("figure '{name}': y ({}) has no finite value", figure.y.get_ref());
        if figure.y_log {
            let (lo, hi) = min_max(ends.filter(|v| *v > 0.0)).ok_or_else(no_value)?;
            let (l, h) = (lo.log10(), hi.log10());
            let pad = ((h - l) * 0.05).max(0.05);
            let top = if annotated { 2.5 * pad } else { pad };
            return Ok((10f64.powf(l - pad), 10f64.powf(h + top)));
        }
        let (lo, hi) = min_max(ends.chain([0.0])).ok_or_else(no_value)?;
        let span = if hi > lo { hi - lo } else { 1.0 };
        let y0 = if lo < 0.0 { lo - 0.05 * span } else { 0.0 };
        let top = if annotated { 0.12 } else { 0.05 };
        let y1 = if hi > 0.0 || annotated { hi + top * span } else { 0.0 };
        // All bars 0: still a drawable axis.
        Ok((y0, if y1 > y0 { y1 } else { y0 + 1.0 }))
    };
    let shared = y_axis(&all().collect::<Vec<_>>())?;
    let areas = plots.split_evenly((rows, cols));
    for (area, panel) in areas.iter().zip(&data.panels) {
        let (y0, y1) = if per_panel {
            y_axis(&panel.bars.iter().collect::<Vec<_>>())?
        } else {
            shared
        };
        if figure.y_log {
            let ticks = log_ticks(y0, y1);
            let format = AxisFormat::for_ticks(&ticks);
            let y = Ticked {
                inner: LogCoord::from((y0..y1).log_scale()),
                bold: ticks,
                light: log_minor(y0, y1),
            };
            draw_panel(area, figure, data, panel, (y, format), y0)?;
        } else {
            let (bold, light) = linear_ticks(y0, y1);
            let format = AxisFormat::for_ticks(&bold);
            let y = Ticked {
                inner: RangedCoordf64::from(y0..y1),
                bold,
                light,
            };
            draw_panel(area, figure, data, panel, (y, format), 0.0)?;
        }
    }
    Ok(())
}

/// The smallest and largest finite values, `None` if there is none.
fn min_max(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.filter(|v| v.is_finite()).fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// The name under each group: its display label ([`FigureSpec::labels`]) when the figure gives
/// one; else, when every group is a number, the number as a lines figure's x axis writes it
/// (one [`AxisFormat`] over the groups, so a flop sweep reads "1e8", "5e8" as on a line plot,
/// not "100000000", "500000000"); else the value's display text ([`FigureSpec::label`]).
pub fn category_names(figure: &FigureSpec, data: &BarsData) -> Vec<String> {
    let numbers: Option<Vec<f64>> = data
        .categories
        .iter()
        .map(|c| c.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect();
    let format = numbers.as_ref().map(|n| AxisFormat::for_ticks(n));
    data.categories
        .iter()
        .enumerate()
        .map(|(i, c)| match (figure.labels.get(c), &numbers, format) {
            (Some(label), _, _) => label.clone(),
            (None, Some(n), Some(format)) => format.format(n[i]),
            _ => figure.label(c).to_string(),
        })
        .collect()
}

/// The legend's text: each series' display label ([`FigureSpec::labels`]).
fn legend_names(figure: &FigureSpec, data: &BarsData) -> Vec<String> {
    data.series_names.iter().map(|n| figure.label(n).to_string()).collect()
}

/// Draws one panel on the y axis `y` written in `y_format`; bars stand on `floor` (0, or the
/// bottom of a logarithmic axis).
fn draw_panel<DB, Y>(
    area: &DrawingArea<DB, Shift>,
    figure: &FigureSpec,
    data: &BarsData,
    panel: &BarPanel,
    (y, y_format): (Y, AxisFormat),
    floor: f64,
) -> Result<(), String>
where
    DB: DrawingBackend,
    Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let cats = category_names(figure, data);
    let n_cats = cats.len().max(1);
    // Group names that do not fit side by side are written vertically.
    let (width, _) = area.dim_in_pixel();
    let longest = cats.iter().map(|n| n.chars().count()).max().unwrap_or(0) as u32;
    let rotate = (longest * 9 + 8) * n_cats as u32 > width.saturating_sub(120);
    let x_area = if rotate { 40 + 8 * longest.min(30) } else { 58 };
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(14)
        .margin_right(28)
        .x_label_area_size(x_area)
        .y_label_area_size(84);
    if let Some(title) = &panel.title {
        builder.caption(title, (FAMILY, 20).into_font());
    }
    let mut chart = builder.build_cartesian_2d(-0.5..n_cats as f64 - 0.5, y).map_err(err)?;
    let y_fmt = |v: &f64| y_format.format(*v);
    let x_desc = figure.x_label.clone().unwrap_or_else(|| figure.x.get_ref().clone());
    let y_desc = figure.y_label.clone().unwrap_or_else(|| figure.y.get_ref().clone());
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_desc_style((FAMILY, 18).into_font())
        .label_style((FAMILY, 15).into_font())
        // Group names are drawn below, one under each group.
        .x_labels(0)
        .y_label_formatter(&y_fmt)
        .disable_x_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
        .draw()
        .map_err(err)?;
    // Group names under the groups; written vertically when they do not fit side by side.
    let base = area.get_base_pixel();
    let style = if rotate {
        (FAMILY, 13)
            .into_font()
            .transform(FontTransform::Rotate90)
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center))
    } else {
        (FAMILY, 15)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top))
    };
    let bottom = chart.y_range().start;
    for (i, name) in cats.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64, bottom));
        area.draw_text(name, &style, (px - base.0, py - base.1 + 8))
            .map_err(err)?;
    }

    let n_series = data.series_names.len().max(1) as f64;
    let bar_width = GROUP_WIDTH / n_series;
    let left = |b: &Bar| b.category as f64 - GROUP_WIDTH / 2.0 + b.series as f64 * bar_width;
    chart
        .draw_series(panel.bars.iter().map(|b| {
            let color = style_of(data.styles[b.series]).color;
            Rectangle::new([(left(b), floor), (left(b) + bar_width, b.mean)], color.filled())
        }))
        .map_err(err)?;
    chart
        .draw_series(panel.bars.iter().map(|b| {
            Rectangle::new(
                [(left(b), floor), (left(b) + bar_width, b.mean)],
                RGBColor(60, 60, 60).stroke_width(1),
            )
        }))
        .map_err(err)?;
    let whiskers = figure.error_bars != Some(false);
    let line = BLACK.stroke_width(2);
    let with_whisker: Vec<&Bar> = panel.bars.iter().filter(|b| whiskers && b.hi > b.lo).collect();
    let centre = |b: &Bar| left(b) + bar_width / 2.0;
    chart
        .draw_series(
            with_whisker
                .iter()
                .map(|b| PathElement::new(vec![(centre(b), b.lo), (centre(b), b.hi)], line)),
        )
        .map_err(err)?;
    chart
        .draw_series(
            with_whisker
                .iter()
                .flat_map(|b| [(centre(b), b.lo), (centre(b), b.hi)])
                .map(|c| EmptyElement::at(c) + PathElement::new(vec![(-4, 0), (4, 0)], line)),
        )
        .map_err(err)?;
    // Improvements above the bar (or its whisker), or above 0 for a negative bar.
    let font = (FAMILY, 15)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    chart
        .draw_series(panel.bars.iter().filter_map(|b| {
            let pct = b.improvement_pct?;
            let top = if whiskers { b.hi.max(b.mean) } else { b.mean };
            let top = if floor == 0.0 { top.max(0.0) } else { top };
            Some(EmptyElement::at((centre(b), top)) + Text::new(improvement_label(pct), (0, -4), font.clone()))
        }))
        .map_err(err)?;
    Ok(())
}

/// The series legend: a filled square in the series' colour (`styles` as
/// [`BarsData::styles`]), then its name.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    names: &[String],
    styles: &[usize],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_legend_entries(area, names, 24, |area, x, y, i| {
        let color = style_of(styles[i]).color;
        area.draw(&Rectangle::new([(x, y - 7), (x + 16, y + 7)], color.filled()))?;
        area.draw(&Rectangle::new(
            [(x, y - 7), (x + 16, y + 7)],
            RGBColor(60, 60, 60).stroke_width(1),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::prepare as prepare_lines;

    fn figure(extra: &str) -> FigureSpec {
        toml::from_str(&format!(
            "name = 'b'\nkind = 'bars'\nx = 'program'\ny = 'time_s'\n{extra}"
        ))
        .unwrap()
    }

    /// Runs of two programs under two schedulers, three replications each.
    fn table() -> CsvTable {
        let mut t = CsvTable::new(
            ["run", "program", "scheduler", "replication", "time_s"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        let values = [
            ("fib", "RS", [660.0, 668.0, 676.0]),
            ("fib", "CRS", [300.0, 310.0, 320.0]),
            ("tsp", "RS", [100.0, 100.0, 100.0]),
            ("tsp", "CRS", [140.0, 139.0, 141.0]),
        ];
        for (program, scheduler, ys) in values {
            for (r, y) in ys.iter().enumerate() {
                let run = t.rows.len().to_string();
                t.rows.push(vec![
                    run,
                    program.into(),
                    scheduler.into(),
                    r.to_string(),
                    y.to_string(),
                ]);
            }
        }
        t
    }

    fn keys() -> RunColumns<'static> {
        let keys: Vec<String> = vec!["program".into(), "scheduler".into(), "replication".into()];
        RunColumns {
            keys: Box::leak(keys.into_boxed_slice()),
            scheduler_params: &[],
        }
    }

    #[test]
    fn bar_means_and_intervals_are_those_lines_compute() {
        let bars = prepare(&figure(""), &table(), keys(), "runs.csv", false).unwrap();
        let lines = prepare_lines(&figure(""), &table(), keys(), "runs.csv").unwrap();
        assert_eq!(bars.categories, ["fib", "tsp"]);
        assert_eq!(bars.series_names, ["RS", "CRS"]);
        let mut from_lines = Vec::new();
        for s in &lines.panels[0].series {
            for p in &s.points {
                let series = bars.series_names.iter().position(|n| *n == s.name).unwrap();
                from_lines.push((p.x as usize, series, p.mean, p.lo, p.hi, p.n));
            }
        }
        from_lines.sort_by_key(|p| (p.0, p.1));
        let from_bars: Vec<_> = bars.panels[0]
            .bars
            .iter()
            .map(|b| (b.category, b.series, b.mean, b.lo, b.hi, b.n))
            .collect();
        assert_eq!(from_bars, from_lines);
        // Three different values: a real interval around the mean.
        let fib_rs = &bars.panels[0].bars[0];
        assert_eq!((fib_rs.mean, fib_rs.n), (668.0, 3));
        assert!(fib_rs.lo < 668.0 && fib_rs.hi > 668.0);
        // error_bars = false hides whiskers only: the interval is still there for the CSV.
        let hidden = prepare(&figure("error_bars = false"), &table(), keys(), "runs.csv", false).unwrap();
        assert_eq!(hidden.panels, bars.panels);
    }

    #[test]
    fn numeric_groups_keep_their_order_of_appearance() {
        let mut t = table();
        let col = t.column("program").unwrap();
        for row in &mut t.rows {
            row[col] = if row[col] == "fib" { "10".into() } else { "2".into() };
        }
        let bars = prepare(&figure(""), &t, keys(), "runs.csv", false).unwrap();
        assert_eq!(bars.categories, ["10", "2"]);
    }

    #[test]
    fn improvements_over_the_baseline_are_rounded_percentages() {
        let bars = prepare(&figure("baseline = 'RS'"), &table(), keys(), "runs.csv", false).unwrap();
        assert_eq!(bars.baseline, Some(0));
        let pct: Vec<Option<f64>> = bars.panels[0].bars.iter().map(|b| b.improvement_pct).collect();
        // fib: (668 - 310) / 668 = 53.59...%; tsp: (100 - 140) / 100 = -40%.
        assert_eq!(pct[0], None);
        assert!((pct[1].unwrap() - 53.592814371257).abs() < 1e-9, "{pct:?}");
        assert_eq!(pct[2], None);
        assert!((pct[3].unwrap() + 40.0).abs() < 1e-9, "{pct:?}");
        assert_eq!(improvement_label(pct[1].unwrap()), "54%");
        assert_eq!(improvement_label(pct[3].unwrap()), "\u{2212}40%");
        assert_eq!(improvement_label(-0.3), "0%");
        assert_eq!(improvement_pct(0.0, 3.0), None);
        let csv = String::from_utf8(to_table(&bars).to_bytes().unwrap()).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "panel,x,series,mean,ci_low,ci_high,n,improvement_pct");
        assert!(
            lines[1].starts_with(",fib,RS,668,") && lines[1].ends_with(",3,"),
            "{csv}"
        );
        assert!(
            lines[2].starts_with(",fib,CRS,310,") && lines[2].contains(",3,53.59"),
            "{csv}"
        );
    }

    #[test]
    fn an_unknown_baseline_is_an_error_naming_the_series_values() {
        let err = prepare(&figure("baseline = 'RR'"), &table(), keys(), "runs.csv", false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "figure 'b': baseline 'RR' is not a value of the series column 'scheduler' (its values: RS, CRS)"
            ),
            "{err}"
        );
        // In quick mode the subset may lack the baseline: no improvements, no error.
        let quick = prepare(&figure("baseline = 'RR'"), &table(), keys(), "runs.csv", true).unwrap();
        assert_eq!(quick.baseline, None);
        let err = prepare(&figure("x_log = true"), &table(), keys(), "runs.csv", false).unwrap_err();
        assert!(err.to_string().contains("remove `x_log`"), "{err}");
    }

    #[test]
    fn numeric_groups_are_written_as_the_lines_x_axis_writes_them() {
        // A flop sweep's groups read "100000000" under bars and "1e8" on lines.
        let mut t = table();
        let col = t.column("program").unwrap();
        for row in &mut t.rows {
            row[col] = if row[col] == "fib" {
                "100000000".into()
            } else {
                "500000000".into()
            };
        }
        let fig = figure("");
        let bars = prepare(&fig, &t, keys(), "runs.csv", false).unwrap();
        assert_eq!(category_names(&fig, &bars), ["1e8", "5e8"]);
        // The same format as the x axis of a lines figure over these values.
        let lines = AxisFormat::for_ticks(&[1e8, 5e8]);
        assert_eq!([lines.format(1e8), lines.format(5e8)], ["1e8", "5e8"]);
        let dir = tempfile::tempdir().unwrap();
        write(&fig, &bars, dir.path(), Media::Screen).unwrap();
        let svg = std::fs::read_to_string(dir.path().join("b.svg")).unwrap();
        assert!(svg.lines().any(|l| l.trim() == "1e8"), "no group named 1e8");
        assert!(!svg.contains("100000000"), "a group is still written 100000000");
        // The CSV keeps the values; a label still wins; text groups are unchanged.
        assert_eq!(to_table(&bars).rows[0][1], "100000000");
        let labelled = figure("labels = { '500000000' = '500 Mflop' }");
        assert_eq!(category_names(&labelled, &bars), ["1e8", "500 Mflop"]);
        let text = prepare(&fig, &table(), keys(), "runs.csv", false).unwrap();
        assert_eq!(category_names(&fig, &text), ["fib", "tsp"]);
    }

    #[test]
    fn bars_are_drawn_with_their_labels() {
        let dir = tempfile::tempdir().unwrap();
        let fig = figure("baseline = 'RS'\ntitle = 'Table 1'");
        let bars = prepare(&fig, &table(), keys(), "runs.csv", false).unwrap();
        let written = write(&fig, &bars, dir.path(), Media::Screen).unwrap();
        assert_eq!(written.len(), 3);
        let svg = std::fs::read_to_string(dir.path().join("b.svg")).unwrap();
        for text in ["Table 1", "fib", "tsp", "CRS", "54%", "\u{2212}40%"] {
            assert!(svg.contains(text), "b.svg lacks '{text}'");
        }
        let fig = figure("y_log = true");
        let bars = prepare(&fig, &table(), keys(), "runs.csv", false).unwrap();
        write(&fig, &bars, dir.path(), Media::Screen).unwrap();
        // Bars of height 0, and negative bars.
        for value in ["0", "-5"] {
            let mut t = table();
            let y = t.column("time_s").unwrap();
            for row in &mut t.rows {
                row[y] = if row[1] == "fib" { value.into() } else { "0".into() };
            }
            let fig = figure("baseline = 'RS'");
            let bars = prepare(&fig, &t, keys(), "runs.csv", false).unwrap();
            // tsp's baseline is 0: no improvement.
            let tsp = bars.panels[0].bars.iter().filter(|b| b.category == 1);
            assert!(tsp.clone().count() == 2 && tsp.clone().all(|b| b.improvement_pct.is_none()));
            write(&fig, &bars, dir.path(), Media::Screen).unwrap();
        }
        // y_log with a bar of mean 0 cannot be drawn: an error, not a panic.
        let mut t = table();
        let y = t.column("time_s").unwrap();
        t.rows[0][y] = "-2004".into();
        let fig = figure("y_log = true");
        let bars = prepare(&fig, &t, keys(), "runs.csv", false).unwrap();
        let err = write(&fig, &bars, dir.path(), Media::Screen).unwrap_err();
        assert!(format!("{err:#}").contains("y_log needs positive values"), "{err:#}");
    }
}

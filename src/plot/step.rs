//! `kind = "step"`: a per-run table's `y` against `x` as a step line, one run per series (and
//! panel). Each row's `y` holds from its `x` to the next row's `x`, as a quantity that only
//! changes at events does (a batch run's `power` table: watts from each date on); the last row
//! ends the line. Rows are taken in increasing `x` (ties in table order, the last one holding).
//!
//! Every key column that varies must be the series, the panels or fixed by `where`, so that a
//! series is one run (checked with the experiment, and here against the rows). With
//! `x_range = [from, to]` the line is clipped to that window, the step holding at `from` drawn
//! from `from`. Lines have no markers and no error bars: a run's step line is not a mean.

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Result};

use super::{figure_column, panel_title, where_filters, FigureData, Panel, Point, RunColumns, Series};
use crate::experiment::spec::FigureSpec;
use crate::output::CsvTable;

/// The step lines of `figure` over `table` (read from `source`).
pub fn prepare(figure: &FigureSpec, table: &CsvTable, columns: RunColumns<'_>, source: &str) -> Result<FigureData> {
    let name = figure.name.get_ref();
    let column = |c: &str| figure_column(figure, table, source, c);
    let x = column(figure.x.get_ref())?;
    let y = column(figure.y.get_ref())?;
    let series_col = figure.series.as_ref().map_or("scheduler", |s| s.get_ref().as_str());
    let series = column(series_col)?;
    let panels = figure.panels.as_ref().map(|p| column(p.get_ref())).transpose()?;
    let filters = where_filters(figure, table, source)?;
    let window = match figure.x_range.as_ref().map(|r| r.get_ref().as_slice()) {
        None => None,
        Some(&[from, to]) if from.is_finite() && to.is_finite() && from < to => Some((from, to)),
        Some(_) => bail!("figure '{name}': `x_range` must be [from, to] with from < to"),
    };
    // The key columns that identify a run (the seed follows from them).
    let run_keys: Vec<(usize, &str)> = columns
        .keys
        .iter()
        .filter(|k| k.as_str() != "seed")
        .filter_map(|k| table.column(k).map(|c| (c, k.as_str())))
        .collect();
    type Group = (Vec<String>, Vec<(f64, f64)>);
    // Panel -> series -> (the run's key values, its rows), each in order of first appearance.
    let mut groups: Vec<(String, Vec<(String, Group)>)> = Vec::new();
    let mut identity: Vec<String> = Vec::new();
    for r in &table.rows {
        if !identity.contains(&r[series]) {
            identity.push(r[series].clone());
        }
    }
    let mut series_names: Vec<String> = Vec::new();
    for (i, r) in table.rows.iter().enumerate() {
        if !filters.iter().all(|(c, vals)| vals.contains(&r[*c])) {
            continue;
        }
        let number = |c: usize, what: &str| -> Result<f64> {
            r[c].parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                anyhow!(
                    "figure '{name}': column '{what}' holds '{}' (row {} of {source}), not a finite number",
                    r[c],
                    i + 1
                )
            })
        };
        let xv = number(x, figure.x.get_ref())?;
        let yv = number(y, figure.y.get_ref())?;
        let panel_key = panels.map_or_else(String::new, |p| r[p].clone());
        let key: Vec<String> = run_keys.iter().map(|(c, _)| r[*c].clone()).collect();
        if !series_names.contains(&r[series]) {
            series_names.push(r[series].clone());
        }
        let pi = super::entry_index(&mut groups, panel_key);
        let panel = &mut groups[pi].1;
        match panel.iter_mut().find(|(k, _)| *k == r[series]) {
            Some((_, (run, rows))) => {
                if let Some(((_, column), (a, b))) =
                    run_keys.iter().zip(run.iter().zip(&key)).find(|(_, (a, b))| a != b)
                {
                    bail!(
                        "figure '{name}': series {series_col} = {} holds rows of more than one run ({column} = {a} and {b}); a step line draws one run per series: fix '{column}' with `where`, or make it the series or the panels",
                        r[series]
                    );
                }
                rows.push((xv, yv));
            }
            None => panel.push((r[series].clone(), (key, vec![(xv, yv)]))),
        }
    }
    if groups.is_empty() {
        bail!("figure '{name}': no row of {source} matches its `where`");
    }
    let rank = |k: &String| identity.iter().position(|i| i == k).unwrap_or(identity.len());
    series_names.sort_by_key(rank);
    let styles: Vec<usize> = series_names.iter().map(rank).collect();
    let panel_col = figure.panels.as_ref().map(|p| p.get_ref().clone());
    let mut drawn = 0usize;
    let panels: Vec<Panel> = groups
        .into_iter()
        .map(|(key, series)| Panel {
            title: panel_col.as_ref().map(|c| panel_title(figure, c, &key)),
            series: series
                .into_iter()
                .map(|(sname, (_, mut rows))| {
                    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let points = corners(&rows, window);
                    drawn += points.len();
                    Series {
                        name: figure.label(&sname).to_string(),
                        points,
                    }
                })
                .collect(),
        })
        .collect();
    if drawn == 0 {
        let (from, to) = window.unwrap_or((f64::NAN, f64::NAN));
        bail!("figure '{name}': no step of {source} reaches into its x_range [{from}, {to}]");
    }
    let series_names = series_names.iter().map(|s| figure.label(s).to_string()).collect();
    Ok(FigureData {
        panels,
        categories: None,
        series_names,
        styles,
        replicated: false,
        min_replications: 1,
        omitted: 0,
        steps: true,
    })
}

/// The corners of the step line through `rows` (sorted by x), clipped to `window`: each row's
/// y from its x to the next row's, then the next row's y.
fn corners(rows: &[(f64, f64)], window: Option<(f64, f64)>) -> Vec<Point> {
    let (from, to) = window.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let point = |x: f64, y: f64| Point {
        x,
        mean: y,
        lo: y,
        hi: y,
        n: 1,
    };
    // Rows of one x: the last holds.
    let mut steps: BTreeMap<usize, (f64, f64)> = BTreeMap::new();
    let mut k = 0;
    for (i, &(x, y)) in rows.iter().enumerate() {
        if i > 0 && rows[i - 1].0 == x {
            steps.insert(k - 1, (x, y));
        } else {
            steps.insert(k, (x, y));
            k += 1;
        }
    }
    let steps: Vec<(f64, f64)> = steps.into_values().collect();
    let mut out = Vec::new();
    for (i, &(x, y)) in steps.iter().enumerate() {
        let next = steps.get(i + 1).map(|s| s.0);
        let (a, b) = (x.max(from), next.unwrap_or(x).min(to));
        if next.is_none() {
            // The last row ends the line.
            if (from..=to).contains(&x) {
                if let Some(prev) = out.last().map(|p: &Point| p.mean) {
                    out.push(point(x, prev));
                }
                out.push(point(x, y));
            }
            continue;
        }
        if a > b || (a == b && next.is_some_and(|n| n <= from)) {
            continue;
        }
        if let Some(prev) = out.last().map(|p: &Point| p.mean) {
            if prev != y {
                out.push(point(a, prev));
            }
        }
        out.push(point(a, y));
        if next.is_some_and(|n| n > to) {
            out.push(point(b, y));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xy(points: &[Point]) -> Vec<(f64, f64)> {
        points.iter().map(|p| (p.x, p.mean)).collect()
    }

    fn figure(extra: &str) -> FigureSpec {
        toml::from_str(&format!(
            "name = 'p'\nkind = 'step'\nsource = 'power'\nx = 'time_s'\ny = 'watts'\nseries = 'idle_off_s'\n{extra}"
        ))
        .unwrap()
    }

    fn keys() -> RunColumns<'static> {
        let keys: Vec<String> = vec![
            "idle_off_s".into(),
            "scheduler".into(),
            "replication".into(),
            "seed".into(),
        ];
        RunColumns {
            keys: Box::leak(keys.into_boxed_slice()),
            scheduler_params: &[],
        }
    }

    /// A `power` table: idle_off_s, scheduler, replication, time_s, watts.
    fn table(rows: &[(&str, u32, f64, f64)]) -> CsvTable {
        let mut t = CsvTable::new(
            ["run", "idle_off_s", "scheduler", "replication", "time_s", "watts"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        for &(off, rep, x, y) in rows {
            t.rows.push(vec![
                "0".into(),
                off.into(),
                "EASY".into(),
                rep.to_string(),
                x.to_string(),
                y.to_string(),
            ]);
        }
        t
    }

    #[test]
    fn one_step_line_per_run() {
        let t = table(&[
            ("0", 0, 0.0, 400.0),
            ("0", 0, 20.0, 300.0),
            ("60", 0, 0.0, 400.0),
            ("60", 0, 80.0, 310.0),
        ]);
        let data = prepare(&figure("labels = { '0' = 'never' }"), &t, keys(), "power.csv").unwrap();
        assert!(data.steps);
        assert_eq!(data.series_names, vec!["never", "60"]);
        let lines: Vec<Vec<(f64, f64)>> = data.panels[0].series.iter().map(|s| xy(&s.points)).collect();
        assert_eq!(
            lines,
            vec![
                vec![(0.0, 400.0), (20.0, 400.0), (20.0, 300.0)],
                vec![(0.0, 400.0), (80.0, 400.0), (80.0, 310.0)],
            ]
        );
        // Two replications in one series: refused, naming the column.
        let two = table(&[("0", 0, 0.0, 1.0), ("0", 1, 0.0, 2.0)]);
        let err = prepare(&figure(""), &two, keys(), "power.csv").unwrap_err().to_string();
        assert!(err.contains("more than one run (replication = 0 and 1)"), "{err}");
        // A window no step reaches.
        let err = prepare(&figure("x_range = [100, 200]"), &t, keys(), "power.csv")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no step of power.csv reaches into its x_range"), "{err}");
    }

    #[test]
    fn corners_of_a_step_line() {
        // 400 W from 0, 300 from 20, 310 from 80, end at 100: horizontal to each next date,
        // then vertical.
        let rows = [(0.0, 400.0), (20.0, 300.0), (80.0, 310.0), (100.0, 310.0)];
        assert_eq!(
            xy(&corners(&rows, None)),
            vec![
                (0.0, 400.0),
                (20.0, 400.0),
                (20.0, 300.0),
                (80.0, 300.0),
                (80.0, 310.0),
                (100.0, 310.0),
                (100.0, 310.0)
            ]
        );
        // Clipped to [10, 50]: 400 from 10, 300 from 20 to 50.
        assert_eq!(
            xy(&corners(&rows, Some((10.0, 50.0)))),
            vec![(10.0, 400.0), (20.0, 400.0), (20.0, 300.0), (50.0, 300.0)]
        );
        // Rows of one date: the last holds.
        let tied = [(0.0, 1.0), (5.0, 2.0), (5.0, 3.0), (9.0, 3.0)];
        assert_eq!(
            xy(&corners(&tied, None)),
            vec![(0.0, 1.0), (5.0, 1.0), (5.0, 3.0), (9.0, 3.0), (9.0, 3.0)]
        );
    }
}

//! Checks of an experiment's `[[figures]]` before anything runs: names, kinds and their
//! fields, the columns each figure draws (against the sweep's key columns and the metrics and
//! tables its family declares), and that every varying key column is drawn or fixed, so that a
//! mistake is reported at its line by `validate` and never after a sweep.

use std::collections::{BTreeMap, BTreeSet};

use toml::Spanned;

use super::error::{list, Reporter};
use super::spec::{FigureKind, FigureSpec};
use super::{filter_values, is_safe_name, Run, RunColumns};
use schedulers::family::Family;

/// The columns of the CSV a figure draws from: runs.csv (run id, key columns with `hosts` after
/// `platform`, metrics, events)
/// or a per-run table's CSV (run id, key columns but the seed, the table's columns). `None`
/// for a source that is not a declared table (reported elsewhere).
fn source_columns<'a>(family: &'a dyn Family, source: &str, key_columns: &'a [String]) -> Option<Vec<&'a str>> {
    let keys = key_columns.iter().map(String::as_str);
    if source == "runs" {
        let metrics = family.metrics().iter().map(|m| m.name);
        // A sweep over platforms has each run's host count right after its platform.
        let hosts = key_columns.iter().any(|k| k == "platform").then_some("hosts");
        return Some(
            std::iter::once("run")
                .chain(keys.flat_map(|k| std::iter::once(k).chain(hosts.filter(|_| k == "platform"))))
                .chain(metrics)
                .chain(["events"])
                .collect(),
        );
    }
    let table = family.tables().iter().find(|t| t.name == source)?;
    let keys = keys.filter(|k| *k != "seed");
    Some(
        std::iter::once("run")
            .chain(keys)
            .chain(table.columns.iter().copied())
            .collect(),
    )
}

/// Reports every column a figure names that `columns` lacks; true when all exist.
fn check_columns(
    rep: &mut Reporter<'_>,
    fig: &Spanned<FigureSpec>,
    field: &str,
    source: &str,
    columns: &[&str],
) -> bool {
    let f = fig.get_ref();
    let file = if source == "runs" {
        "runs.csv".to_string()
    } else {
        format!("{source}.csv")
    };
    let mut ok = true;
    for (what, column) in f.named_columns() {
        let name = column.get_ref();
        if columns.contains(&name.as_str()) {
            continue;
        }
        ok = false;
        let what = format!("{field}.{what}");
        rep.error(
            column.span(),
            what,
            format!(
                "figure '{}': {file} has no column '{name}' (its columns: {})",
                f.name.get_ref(),
                list(columns)
            ),
        );
    }
    ok
}

/// Checks every figure against the sweep and the family's declared outputs.
pub(super) fn check_figures(
    rep: &mut Reporter<'_>,
    figures: &[Spanned<FigureSpec>],
    family: &dyn Family,
    tables: &[String],
    columns: RunColumns<'_>,
    runs: &[Run],
    quick: bool,
) {
    let key_columns = columns.keys;
    // Distinct values of each key column over the whole sweep.
    let mut distinct: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for run in runs {
        for (c, v) in key_columns.iter().zip(&run.keys) {
            distinct.entry(c.as_str()).or_default().insert(v.as_str());
        }
    }
    // Whether the host count tells the sweep's platforms apart: then a figure drawing `hosts`
    // draws the platform too.
    let mut hosts_of: BTreeMap<&str, usize> = BTreeMap::new();
    for run in runs {
        hosts_of.insert(&run.spec.platform_name, run.spec.platform.hosts.len());
    }
    let counts: BTreeSet<usize> = hosts_of.values().copied().collect();
    let hosts_identify_platforms = counts.len() == hosts_of.len();
    let mut names = BTreeSet::new();
    for (i, fig) in figures.iter().enumerate() {
        let f = fig.get_ref();
        let field = format!("figures[{i}]");
        let name = f.name.get_ref();
        if !is_safe_name(name) {
            rep.error(
                f.name.span(),
                format!("{field}.name"),
                format!("'{name}' cannot name a file (use letters, digits, '-', '_', '.')"),
            );
        } else if !names.insert(name.clone()) {
            rep.error(
                f.name.span(),
                format!("{field}.name"),
                format!("figure name '{name}' is used twice"),
            );
        }
        let source = f.source.as_ref().map_or("runs", |s| s.get_ref().as_str());
        if source != "runs" && !tables.iter().any(|t| t == source) {
            let span = f.source.as_ref().map_or(fig.span(), |s| s.span());
            rep.error(
                span,
                format!("{field}.source"),
                format!(
                    "'{source}' is neither 'runs' nor a table listed in [outputs] tables ({})",
                    list(tables)
                ),
            );
        }
        // An unknown kind is reported once; the checks below then treat the figure as lines.
        let kind = match f.kind() {
            Ok(kind) => kind,
            Err(message) => {
                let span = f.kind.as_ref().map_or(fig.span(), |k| k.span());
                rep.error(span, format!("{field}.kind"), format!("figure '{name}': {message}"));
                FigureKind::Lines
            }
        };
        check_kind_fields(rep, fig, &field, kind, tables, &distinct, quick);
        if let (Err(message), Some(v)) = (f.per_panel_y(), &f.y_scale) {
            rep.error(
                v.span(),
                format!("{field}.y_scale"),
                format!("figure '{name}': {message}"),
            );
        }
        if let (Err(message), Some(v)) = (f.min_replications(), &f.min_replications) {
            rep.error(
                v.span(),
                format!("{field}.min_replications"),
                format!("figure '{name}': {message}"),
            );
        }
        // A figure naming a column its CSV will not have is reported here, at the name, and
        // not also as a varying column it fails to draw (which would point at the wrong one).
        let columns_exist =
            source_columns(family, source, key_columns).map_or(true, |c| check_columns(rep, fig, &field, source, &c));
        let is_key = |c: &str| key_columns.iter().any(|k| k == c);
        let grouping = [("series", f.series.as_ref()), ("panels", f.panels.as_ref())];
        if source == "runs" {
            for (what, col) in grouping {
                if let Some(col) = col {
                    if !is_key(col.get_ref()) {
                        rep.error(
                            col.span(),
                            format!("{field}.{what}"),
                            format!(
                                "'{}' is not a column that identifies runs (valid: {})",
                                col.get_ref(),
                                list(key_columns)
                            ),
                        );
                    }
                }
            }
        }
        for (k, v) in &f.filter {
            if source == "runs" && !is_key(k.get_ref()) {
                rep.error(
                    k.span(),
                    format!("{field}.where.{}", k.get_ref()),
                    format!(
                        "'{}' is not a column that identifies runs (valid: {})",
                        k.get_ref(),
                        list(key_columns)
                    ),
                );
            }
            match filter_values(v.get_ref()) {
                None => rep.error(
                    v.span(),
                    format!("{field}.where.{}", k.get_ref()),
                    "must be a value or a list of values",
                ),
                // In quick mode a figure whose selection is not run is skipped instead.
                Some(values) if !quick => {
                    if let Some(taken) = distinct.get(k.get_ref().as_str()) {
                        if let Some(absent) = values.iter().find(|v| !taken.contains(v.as_str())) {
                            rep.error(
                                v.span(),
                                format!("{field}.where.{}", k.get_ref()),
                                format!(
                                    "no run has {} = {absent} (its values: {})",
                                    k.get_ref(),
                                    list(taken.iter().take(10))
                                ),
                            );
                        }
                    }
                }
                Some(_) => {}
            }
        }
        if kind == FigureKind::Step {
            check_step_runs(rep, fig, &field, &distinct);
            continue;
        }
        if kind == FigureKind::Timeline {
            check_timeline_runs(rep, fig, &field, &distinct);
            if let Some(down) = &f.down {
                check_down(rep, f, &field, family, tables, key_columns, down);
            }
            continue;
        }
        if !columns_exist {
            continue;
        }
        // Every key column that varies must be drawn (x, series, panels) or fixed by `where`.
        let series = f.series.as_ref().map_or("scheduler", |s| s.get_ref().as_str());
        let drawn: Vec<&str> = [
            Some(f.x.get_ref().as_str()),
            Some(series),
            f.panels.as_ref().map(|p| p.get_ref().as_str()),
        ]
        .into_iter()
        .flatten()
        .chain(f.filter.keys().map(|k| k.get_ref().as_str()))
        .collect();
        // A varying scheduler parameter joins the scheduler's name in the series.
        let folded = |c: &str| series == "scheduler" && columns.scheduler_params.iter().any(|p| p == c);
        let by_hosts = |c: &str| c == "platform" && hosts_identify_platforms && drawn.contains(&"hosts");
        for (column, values) in &distinct {
            if matches!(*column, "replication" | "seed")
                || values.len() < 2
                || drawn.contains(column)
                || folded(column)
                || by_hosts(column)
            {
                continue;
            }
            rep.error(
                fig.span(),
                &field,
                format!(
                    "figure '{name}': column '{column}' varies ({}) but is not x, series or panels; fix it with `where = {{ {column} = ... }}`",
                    list(values.iter().take(5))
                ),
            );
        }
    }
}

/// The fields that only some kinds of figure take: each is refused, at its own span when it has
/// one, on a figure of another kind; a timeline needs `x_end` and a per-run table; a bars
/// figure's `baseline` must be one of the series values, when the sweep says what they are.
fn check_kind_fields(
    rep: &mut Reporter<'_>,
    fig: &Spanned<FigureSpec>,
    field: &str,
    kind: FigureKind,
    tables: &[String],
    distinct: &BTreeMap<&str, BTreeSet<&str>>,
    quick: bool,
) {
    let f = fig.get_ref();
    let name = f.name.get_ref();
    let kind_name = kind.name();
    let only_for = [
        ("x_end", &f.x_end, FigureKind::Timeline),
        ("shade", &f.shade, FigureKind::Timeline),
        ("color", &f.color, FigureKind::Timeline),
        ("down", &f.down, FigureKind::Timeline),
        ("baseline", &f.baseline, FigureKind::Bars),
    ];
    for (what, value, allowed) in only_for {
        if let Some(value) = value {
            if kind != allowed {
                rep.error(
                    value.span(),
                    format!("{field}.{what}"),
                    format!(
                        "figure '{name}': `{what}` applies only to kind = \"{}\" (this figure is \"{kind_name}\")",
                        allowed.name()
                    ),
                );
            }
        }
    }
    if let Some(range) = &f.x_range {
        if !matches!(kind, FigureKind::Timeline | FigureKind::Step) {
            rep.error(
                range.span(),
                format!("{field}.x_range"),
                format!(
                    "figure '{name}': `x_range` applies only to kind = \"timeline\" or \"step\" (this figure is \"{kind_name}\")"
                ),
            );
        } else if !matches!(range.get_ref().as_slice(), &[from, to] if from.is_finite() && to.is_finite() && from < to)
        {
            rep.error(
                range.span(),
                format!("{field}.x_range"),
                format!("figure '{name}': `x_range` must be [from, to] with from < to, finite numbers"),
            );
        }
    }
    if let (Some(_), Some(color)) = (&f.shade, &f.color) {
        rep.error(
            color.span(),
            format!("{field}.color"),
            format!("figure '{name}': a timeline takes `shade` (a gray per number) or `color` (a color per value), not both"),
        );
    }
    match kind {
        FigureKind::Lines => {}
        FigureKind::Step => {
            let source = f.source.as_ref().map_or("runs", |s| s.get_ref().as_str());
            if source == "runs" {
                let span = f.source.as_ref().map_or(fig.span(), |s| s.span());
                rep.error(
                    span,
                    format!("{field}.source"),
                    format!(
                        "figure '{name}': a step line draws the rows of a per-run table; set `source` to a table listed in [outputs] tables ({})",
                        list(tables)
                    ),
                );
            }
            let refused = [
                (
                    "error_bars",
                    f.error_bars.is_some(),
                    "draws one run per series, so it has no error bars",
                ),
                (
                    "min_replications",
                    f.min_replications.is_some(),
                    "draws one run per series, so it has no replications to count",
                ),
                ("x_log", f.x_log, "has a linear x axis (its steps are intervals of x)"),
            ];
            for (what, set, why) in refused {
                if set {
                    rep.error(
                        rep.key_span(fig.span(), what),
                        format!("{field}.{what}"),
                        format!("figure '{name}': a step line {why}; remove `{what}`"),
                    );
                }
            }
        }
        FigureKind::Bars => {
            if f.x_log {
                rep.error(
                    rep.key_span(fig.span(), "x_log"),
                    format!("{field}.x_log"),
                    format!("figure '{name}': bars stand on the categories of x, which cannot be logarithmic; remove `x_log`"),
                );
            }
            // In quick mode the baseline may be left out of the subset: the figure is then drawn
            // without improvements.
            let Some(baseline) = f.baseline.as_ref().filter(|_| !quick) else {
                return;
            };
            let series = f.series.as_ref().map_or("scheduler", |s| s.get_ref().as_str());
            // Known only when the series column identifies runs; else checked when drawing.
            let Some(values) = distinct.get(series) else {
                return;
            };
            let kept = f
                .filter
                .iter()
                .find(|(k, _)| k.get_ref() == series)
                .and_then(|(_, v)| filter_values(v.get_ref()));
            let drawn: Vec<&str> = values
                .iter()
                .copied()
                .filter(|v| kept.as_ref().map_or(true, |k| k.iter().any(|x| x == v)))
                .collect();
            if !drawn.contains(&baseline.get_ref().as_str()) {
                rep.error(
                    baseline.span(),
                    format!("{field}.baseline"),
                    format!(
                        "figure '{name}': baseline '{}' is not a value of the series column '{series}' (its values: {})",
                        baseline.get_ref(),
                        list(drawn.iter().take(10))
                    ),
                );
            }
        }
        FigureKind::Timeline => {
            if f.x_end.is_none() {
                rep.error(
                    fig.span(),
                    format!("{field}.x_end"),
                    format!("figure '{name}': a timeline needs `x_end`, the column where each interval ends (`x` is where it starts)"),
                );
            }
            let source = f.source.as_ref().map_or("runs", |s| s.get_ref().as_str());
            if source == "runs" {
                let span = f.source.as_ref().map_or(fig.span(), |s| s.span());
                rep.error(
                    span,
                    format!("{field}.source"),
                    format!(
                        "figure '{name}': a timeline draws the intervals of a per-run table; set `source` to a table listed in [outputs] tables ({})",
                        list(tables)
                    ),
                );
            }
            if let Some(series) = &f.series {
                rep.error(
                    series.span(),
                    format!("{field}.series"),
                    format!("figure '{name}': a timeline has no series (one strip per value of `y`, one run per panel); remove `series`"),
                );
            }
            let refused = [
                (
                    "error_bars",
                    f.error_bars.is_some(),
                    "draws one run, so it has no error bars",
                ),
                ("x_log", f.x_log, "has a linear time axis"),
                (
                    "y_scale",
                    f.y_scale.is_some(),
                    "has one strip per value of `y`, not a y scale",
                ),
                (
                    "min_replications",
                    f.min_replications.is_some(),
                    "draws one run, so it has no replications to count",
                ),
                ("y_log", f.y_log, "has one strip per value of `y`, not a numeric axis"),
            ];
            for (what, set, why) in refused {
                if set {
                    rep.error(
                        rep.key_span(fig.span(), what),
                        format!("{field}.{what}"),
                        format!("figure '{name}': a timeline {why}; remove `{what}`"),
                    );
                }
            }
        }
    }
}

/// A timeline's `down` names a table the experiment writes, with the figure's `y` column and
/// the period's `from_s` and `to_s`.
fn check_down(
    rep: &mut Reporter<'_>,
    f: &FigureSpec,
    field: &str,
    family: &dyn Family,
    tables: &[String],
    key_columns: &[String],
    down: &Spanned<String>,
) {
    let name = f.name.get_ref();
    let table = down.get_ref();
    if !tables.iter().any(|t| t == table) {
        rep.error(
            down.span(),
            format!("{field}.down"),
            format!(
                "figure '{name}': `down` names '{table}', which is not a table listed in [outputs] tables ({})",
                list(tables)
            ),
        );
        return;
    }
    // A table the family does not write is reported with [outputs].
    let Some(columns) = source_columns(family, table, key_columns) else {
        return;
    };
    let missing: Vec<&str> = [f.y.get_ref().as_str(), "from_s", "to_s"]
        .into_iter()
        .filter(|c| !columns.contains(c))
        .collect();
    if !missing.is_empty() {
        rep.error(
            down.span(),
            format!("{field}.down"),
            format!(
                "figure '{name}': `down` table {table}.csv has no column {} (its columns: {}); it needs the figure's `y` column and from_s, to_s",
                list(missing.iter().map(|c| format!("'{c}'"))),
                list(&columns)
            ),
        );
    }
}

/// A step line draws one run per series and panel: every key column that varies (the
/// replication too) is the series, the panels, or fixed to one value by `where`.
fn check_step_runs(
    rep: &mut Reporter<'_>,
    fig: &Spanned<FigureSpec>,
    field: &str,
    distinct: &BTreeMap<&str, BTreeSet<&str>>,
) {
    let f = fig.get_ref();
    let drawn = [
        Some(f.series.as_ref().map_or("scheduler", |s| s.get_ref().as_str())),
        f.panels.as_ref().map(|p| p.get_ref().as_str()),
    ];
    let kind = OneRunPer {
        drawing: "a step line draws one run per series",
        axes: "series or panels",
        axes_the: "the series or the panels",
    };
    check_one_run_per(rep, fig, field, distinct, &drawn, &kind);
}

/// A timeline draws one run per panel: every key column that varies, replications included,
/// must be `panels` or fixed by `where` to one value.
fn check_timeline_runs(
    rep: &mut Reporter<'_>,
    fig: &Spanned<FigureSpec>,
    field: &str,
    distinct: &BTreeMap<&str, BTreeSet<&str>>,
) {
    let drawn = [fig.get_ref().panels.as_ref().map(|p| p.get_ref().as_str())];
    let kind = OneRunPer {
        drawing: "a timeline draws one run per panel",
        axes: "panels",
        axes_the: "the panels",
    };
    check_one_run_per(rep, fig, field, distinct, &drawn, &kind);
}

/// How a figure kind that draws one run per series or panel names itself in its errors.
struct OneRunPer {
    drawing: &'static str,
    axes: &'static str,
    axes_the: &'static str,
}

/// Every key column that varies and is not among `drawn` must be fixed to one value by `where`.
fn check_one_run_per(
    rep: &mut Reporter<'_>,
    fig: &Spanned<FigureSpec>,
    field: &str,
    distinct: &BTreeMap<&str, BTreeSet<&str>>,
    drawn: &[Option<&str>],
    kind: &OneRunPer,
) {
    let f = fig.get_ref();
    let name = f.name.get_ref();
    for (column, values) in distinct {
        // The seed follows from the other key columns (and per-run tables do not hold it).
        if *column == "seed" || values.len() < 2 || drawn.contains(&Some(*column)) {
            continue;
        }
        let fixed = f
            .filter
            .iter()
            .find(|(k, _)| k.get_ref() == column)
            .map(|(k, v)| (k, filter_values(v.get_ref())));
        match fixed {
            None => rep.error(
                fig.span(),
                field,
                format!(
                    "figure '{name}': column '{column}' varies ({}) but is not {}, and {}; fix it with `where = {{ {column} = ... }}`",
                    list(values.iter().take(5)),
                    kind.axes,
                    kind.drawing
                ),
            ),
            Some((k, Some(kept))) if kept.len() > 1 => rep.error(
                k.span(),
                format!("{field}.where.{column}"),
                format!(
                    "figure '{name}': keeps {} values of '{column}' ({}), but {}; keep one, or make '{column}' {}",
                    kept.len(),
                    list(kept.iter().take(5)),
                    kind.drawing,
                    kind.axes_the
                ),
            ),
            // One value (or a malformed entry, reported with the `where` checks).
            Some(_) => {}
        }
    }
}

//! `gridsim trace plot`: a trace's arrivals over time and its run time and size distributions,
//! drawn with the experiment figures' renderer.
//!
//! - `arrivals`: jobs submitted per bin (one minute when the trace spans less than two hours,
//!   one hour up to 30 days, one day beyond), against time from the first submission.
//! - Time axes are in the unit the span calls for ([`time_unit`]): seconds below two hours,
//!   hours below two days, days beyond, named in the axis label; a 3000 s trace is not drawn
//!   over 0.03 days.
//! - `runtime-ccdf`: the fraction of jobs whose run time exceeds x, on log-log axes (jobs with
//!   run time 0 cannot sit on a log axis; the title counts them).
//! - `size-ccdf`: the fraction of jobs using at least x processors (not drawn for the process
//!   trace, where every process uses one).
//! - `nodes-up` (availability traces): how many nodes are up over time, as the experiment's
//!   `[platform.availability]` would see them (gaps counted as down).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use traces::fta::{availability, AvailabilityOptions, FtaReader};
use traces::job::{read_workload, Selection};
use traces::TraceFormat;

use super::spec_figure;
use super::{render_both, FigureData, Media, Panel, Point, Series};
use crate::tracefile::{self, located};

/// Most points drawn on one curve (a distribution is subsampled evenly in rank).
const MAX_POINTS: usize = 400;

/// Draws the figures of the trace at `path` into `out`; returns the files written.
pub fn draw(path: &Path, format: Option<TraceFormat>, out: &Path) -> Result<Vec<PathBuf>> {
    let opened = tracefile::open(path, format)?;
    // The output directory is created only once the trace has been read: a bad trace leaves
    // nothing behind.
    let create_out = || std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()));
    let mut written = Vec::new();
    if opened.format == TraceFormat::Fta {
        let events: Result<Vec<_>, _> = FtaReader::new(opened.reader).collect();
        let events = events.map_err(|e| located(path, &e))?;
        let avail = availability(events, &AvailabilityOptions::default()).map_err(|e| located(path, &e))?;
        create_out()?;
        let span = avail.span_s.max(1.0);
        let (unit_s, unit) = time_unit(span);
        let steps = 500usize;
        let points = (0..=steps)
            .map(|i| {
                let t = span * i as f64 / steps as f64;
                let up = avail
                    .nodes
                    .iter()
                    .filter(|n| state_at(n.profile.events(), t) != 0.0)
                    .count();
                point(t / unit_s, up as f64)
            })
            .collect();
        let figure = spec_figure(
            "nodes-up",
            &format!("nodes up ({} nodes)", avail.nodes.len()),
            &format!("time since the first event ({unit})"),
            "nodes up",
            false,
            false,
        );
        written.extend(render_both(
            &figure,
            &one_series("nodes up", points),
            out,
            Media::Screen,
        )?);
        return Ok(written);
    }

    let selection = Selection {
        keep_partial: true,
        ..Selection::default()
    };
    let workload = read_workload(opened.format, opened.reader, &selection).map_err(|e| located(path, &e))?;
    let jobs = &workload.jobs;
    if jobs.is_empty() {
        anyhow::bail!(
            "{}: no job with a known run time and processor count to draw",
            path.display()
        );
    }

    create_out()?;

    // Arrivals per bin: bins short enough to show the trace's shape, on a time axis in the
    // span's unit.
    let span = jobs.last().map_or(0.0, |j| j.submit_s);
    let (bin, per) = if span < 2.0 * 3600.0 {
        (60.0, "minute")
    } else if span <= 30.0 * 86400.0 {
        (3600.0, "hour")
    } else {
        (86400.0, "day")
    };
    let (unit_s, unit) = time_unit(span);
    let bins = (span / bin).floor() as usize + 1;
    let mut counts = vec![0u64; bins];
    for job in jobs {
        let i = ((job.submit_s / bin).floor() as usize).min(bins - 1);
        counts[i] += 1;
    }
    let points = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| point(i as f64 * bin / unit_s, c as f64))
        .collect();
    let figure = spec_figure(
        "arrivals",
        &format!("{} jobs, arrivals per {per}", jobs.len()),
        &format!("time since the first submission ({unit})"),
        &format!("jobs submitted per {per}"),
        false,
        false,
    );
    written.extend(render_both(
        &figure,
        &one_series("arrivals", points),
        out,
        Media::Screen,
    )?);

    // Run time CCDF.
    let mut runtimes: Vec<f64> = jobs.iter().map(|j| j.runtime_s).collect();
    let zeros = runtimes.iter().filter(|&&r| r <= 0.0).count();
    let figure = spec_figure(
        "runtime-ccdf",
        &if zeros > 0 {
            format!("run time distribution ({zeros} jobs with run time 0 not shown)")
        } else {
            "run time distribution".to_string()
        },
        "run time x (s)",
        "fraction of jobs with run time > x",
        true,
        true,
    );
    written.extend(render_both(
        &figure,
        &one_series("run time", ccdf(&mut runtimes, false)),
        out,
        Media::Screen,
    )?);

    // Size CCDF.
    if opened.format != TraceFormat::Hbd {
        let mut sizes: Vec<f64> = jobs.iter().map(|j| j.procs as f64).collect();
        let figure = spec_figure(
            "size-ccdf",
            "job size distribution",
            "processors x",
            "fraction of jobs with at least x processors",
            true,
            true,
        );
        written.extend(render_both(
            &figure,
            &one_series("size", ccdf(&mut sizes, true)),
            out,
            Media::Screen,
        )?);
    }
    Ok(written)
}

/// The unit of a time axis over `span_s` seconds, as (seconds per unit, name): seconds below
/// two hours, hours below two days, days beyond, so that ticks stay numbers a reader knows
/// (0 to 3000 s, 0 to 40 h, 0 to 30 days) and never fractions of a day for a short trace.
pub fn time_unit(span_s: f64) -> (f64, &'static str) {
    if span_s < 2.0 * 3600.0 {
        (1.0, "s")
    } else if span_s < 2.0 * 86400.0 {
        (3600.0, "h")
    } else {
        (86400.0, "days")
    }
}

fn point(x: f64, y: f64) -> Point {
    Point {
        x,
        mean: y,
        lo: y,
        hi: y,
        n: 1,
    }
}

fn one_series(name: &str, points: Vec<Point>) -> FigureData {
    FigureData {
        panels: vec![Panel {
            title: None,
            series: vec![Series {
                name: name.to_string(),
                points,
            }],
        }],
        categories: None,
        series_names: vec![name.to_string()],
        styles: vec![0],
        replicated: false,
        min_replications: 1,
        omitted: 0,
        steps: false,
    }
}

/// The empirical complementary distribution at each distinct positive value: P(X > x), or
/// P(X >= x) when `at_least`; points with probability 0 (the largest value, for P(X > x)) are
/// left out because they cannot sit on a log axis.
fn ccdf(values: &mut [f64], at_least: bool) -> Vec<Point> {
    values.sort_by(f64::total_cmp);
    let n = values.len() as f64;
    let mut points = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let x = values[i];
        let mut j = i;
        while j < values.len() && values[j] == x {
            j += 1;
        }
        let above = if at_least { values.len() - i } else { values.len() - j };
        if x > 0.0 && above > 0 {
            points.push(point(x, above as f64 / n));
        }
        i = j;
    }
    if points.len() > MAX_POINTS {
        let step = points.len() as f64 / MAX_POINTS as f64;
        let last = points.len() - 1;
        let mut kept: Vec<Point> = (0..MAX_POINTS)
            .map(|k| points[(k as f64 * step) as usize].clone())
            .collect();
        kept.push(points[last].clone());
        kept.dedup_by(|a, b| a.x == b.x);
        points = kept;
    }
    points
}

/// The value of a state profile at `t` (on before its first event).
fn state_at(events: &[(f64, f64)], t: f64) -> f64 {
    events.iter().take_while(|e| e.0 <= t).last().map_or(1.0, |e| e.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_axes_are_in_the_unit_of_the_span() {
        // A 1000 s availability trace was drawn over 0 to 0.012 days.
        assert_eq!(time_unit(3000.0), (1.0, "s"));
        assert_eq!(time_unit(2.0 * 3600.0), (3600.0, "h"));
        assert_eq!(time_unit(40.0 * 3600.0), (3600.0, "h"));
        assert_eq!(time_unit(2.0 * 86400.0), (86400.0, "days"));
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        // two-nodes.tab spans 1000 s.
        draw(&root.join("tests/data/traces/two-nodes.tab"), None, dir.path()).unwrap();
        let svg = std::fs::read_to_string(dir.path().join("nodes-up.svg")).unwrap();
        let lines: Vec<&str> = svg.lines().map(str::trim).collect();
        assert!(lines.contains(&"time since the first event (s)"), "no axis in seconds");
        assert!(lines.contains(&"1000"), "no tick at 1000 s");
        // Jobs submitted over 3000 s: per minute, on an axis in seconds.
        let swf: String = [0, 10, 1500, 3000]
            .iter()
            .enumerate()
            .map(|(i, t)| {
                format!(
                    "{} {t} 0 {} 1 -1 -1 1 500 -1 1 1 1 -1 1 -1 -1 -1\n",
                    i + 1,
                    100 * (i + 1)
                )
            })
            .collect();
        let trace = dir.path().join("short.swf");
        std::fs::write(&trace, swf).unwrap();
        draw(&trace, None, dir.path()).unwrap();
        let svg = std::fs::read_to_string(dir.path().join("arrivals.svg")).unwrap();
        let lines: Vec<&str> = svg.lines().map(str::trim).collect();
        assert!(
            lines.contains(&"time since the first submission (s)"),
            "no axis in seconds"
        );
        assert!(lines.contains(&"4 jobs, arrivals per minute"), "not per minute");
        assert!(lines.contains(&"3000"), "no tick at 3000 s");
    }

    #[test]
    fn ccdf_of_a_small_sample() {
        // 1, 2, 2, 4: P(X > 1) = 3/4, P(X > 2) = 1/4, P(X > 4) = 0 (not drawn).
        let mut v = vec![4.0, 2.0, 1.0, 2.0];
        let p: Vec<(f64, f64)> = ccdf(&mut v, false).iter().map(|p| (p.x, p.mean)).collect();
        assert_eq!(p, vec![(1.0, 0.75), (2.0, 0.25)]);
        // P(X >= x): 1, 3/4, 1/4.
        let p: Vec<(f64, f64)> = ccdf(&mut v, true).iter().map(|p| (p.x, p.mean)).collect();
        assert_eq!(p, vec![(1.0, 1.0), (2.0, 0.75), (4.0, 0.25)]);
    }
}

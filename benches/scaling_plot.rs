//! Draws `bench/scaling.py`'s log-log figure with the project's plotting crate (plotters) and its
//! bundled font, so no Python plotting library is needed:
//!
//!     scaling_plot CSV OUT_PREFIX        # writes OUT_PREFIX.svg and OUT_PREFIX.png
//!
//! CSV columns: `sweep,x_label,x,wall_s,events` (one panel per sweep, in file order). Each panel
//! shows the median wall time against x and a dashed line proportional to the event count,
//! anchored at the largest x: where the two coincide, the time is linear in events.
//!
//! Run by `cargo bench` without arguments, it does nothing.

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

const FONT: &[u8] = include_bytes!("../src/plot/fonts/DejaVuSans.ttf");

struct Panel {
    name: String,
    x_label: String,
    points: Vec<(f64, f64, f64)>, // x, wall, events
}

fn read(path: &str) -> Vec<Panel> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut panels: Vec<Panel> = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 5, "{path}: expected sweep,x_label,x,wall_s,events: {line}");
        let num = |s: &str| s.parse::<f64>().unwrap_or_else(|_| panic!("{path}: bad number '{s}'"));
        let p = (num(f[2]), num(f[3]), num(f[4]));
        match panels.iter_mut().find(|q| q.name == f[0]) {
            Some(q) => q.points.push(p),
            None => panels.push(Panel {
                name: f[0].to_string(),
                x_label: f[1].to_string(),
                points: vec![p],
            }),
        }
    }
    panels
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, panels: &[Panel]) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let areas = root.split_evenly((1, panels.len().max(1)));
    for (area, panel) in areas.iter().zip(panels) {
        let mut pts = panel.points.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (xmin, xmax) = (pts.first().unwrap().0, pts.last().unwrap().0);
        let last = *pts.last().unwrap();
        let per_event = last.1 / last.2;
        let reference: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.2 * per_event)).collect();
        let ys = pts.iter().map(|p| p.1).chain(reference.iter().map(|r| r.1));
        let (ymin, ymax) = ys.fold((f64::INFINITY, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.name, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (xmin / 1.5..xmax * 1.5).log_scale(),
                (ymin / 2.0..ymax * 2.0).log_scale(),
            )
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(&panel.x_label)
            .y_desc("wall time (s)")
            .x_label_formatter(&|v| format!("{v:.0e}"))
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(e)?;
        chart
            .draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), BLUE.stroke_width(2)))
            .map_err(e)?
            .label("measured (median)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
        chart
            .draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 4, BLUE.filled())))
            .map_err(e)?;
        chart
            .draw_series(DashedLineSeries::new(
                reference.iter().copied(),
                6,
                4,
                RED.stroke_width(1),
            ))
            .map_err(e)?
            .label("proportional to events")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 13))
            .draw()
            .map_err(e)?;
    }
    root.present().map_err(e)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if args.len() != 2 {
        if args.is_empty() {
            return;
        }
        eprintln!("usage: scaling_plot CSV OUT_PREFIX");
        std::process::exit(2);
    }
    if register_font("sans-serif", FontStyle::Normal, FONT).is_err() {
        panic!("the bundled font does not parse");
    }
    let panels = read(&args[0]);
    let size = (560 * panels.len().max(1) as u32, 440);
    let svg = format!("{}.svg", args[1]);
    let png = format!("{}.png", args[1]);
    draw(SVGBackend::new(&svg, size).into_drawing_area(), &panels).unwrap_or_else(|e| panic!("{svg}: {e}"));
    draw(BitMapBackend::new(&png, size).into_drawing_area(), &panels).unwrap_or_else(|e| panic!("{png}: {e}"));
    println!("{svg}\n{png}");
}

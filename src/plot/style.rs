//! How the series of a figure are told apart: each gets a colour, a marker shape and a line
//! dash pattern, so that two series remain distinguishable in gray print and when one lies on
//! top of the other (two schedulers that hand out the same chunks draw the same line: the
//! dashes of the later one let the earlier one show through, and their markers differ).
//!
//! Series are styled by their rank among every series of the table a figure reads, rows
//! without a value and rows the figure does not select included (`FigureData::styles`), so a
//! series keeps its style whichever others have points; they are drawn in a fixed order: solid
//! lines first, then dashed ones, each in legend order, then the error bars, then every marker,
//! so a line never hides a marker.

use plotters::coord::Shift;
use plotters::prelude::*;

/// Colour-blind-safe colours (Okabe and Ito, 2008), darkest first.
pub const COLORS: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
];

/// Line patterns: solid, then (dash, gap) lengths in pixels.
pub const DASHES: [Option<(u32, u32)>; 3] = [None, Some((10, 6)), Some((3, 4))];

/// A marker's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// A disc.
    Circle,
    /// A triangle pointing up.
    Triangle,
    /// A triangle pointing down.
    TriangleDown,
    /// A square.
    Square,
    /// A square on its corner.
    Diamond,
}

/// The shapes, in the order series take them.
pub const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Diamond,
    Marker::TriangleDown,
];

/// How one series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesStyle {
    /// Line, marker and error bar colour.
    pub color: RGBColor,
    /// Marker shape.
    pub marker: Marker,
    /// Line pattern: `None` solid, else (dash, gap) in pixels.
    pub dash: Option<(u32, u32)>,
}

/// The style of the series of rank `index`. The cycles have coprime lengths (7
/// colours, 5 markers, 3 dashes), so consecutive series differ in all three, and after the
/// seven colours the marker and dash cycles are shifted so that the first 28 styles are
/// distinct.
pub fn style_of(index: usize) -> SeriesStyle {
    let round = index / COLORS.len();
    SeriesStyle {
        color: COLORS[index % COLORS.len()],
        marker: MARKERS[(index + round) % MARKERS.len()],
        dash: DASHES[(index + round) % DASHES.len()],
    }
}

/// The outline of a marker as pixel offsets from its centre.
fn outline(marker: Marker) -> Vec<(i32, i32)> {
    match marker {
        Marker::Circle => (0..16)
            .map(|k| {
                let a = k as f64 * std::f64::consts::PI / 8.0;
                ((5.5 * a.cos()).round() as i32, (5.5 * a.sin()).round() as i32)
            })
            .collect(),
        Marker::Triangle => vec![(0, -7), (6, 4), (-6, 4)],
        Marker::TriangleDown => vec![(0, 7), (6, -4), (-6, -4)],
        Marker::Square => vec![(-5, -5), (5, -5), (5, 5), (-5, 5)],
        Marker::Diamond => vec![(0, -7), (7, 0), (0, 7), (-7, 0)],
    }
}

/// Draws a marker centred at pixel `c` of `area`: filled in the series' colour, or, when
/// `hollow`, white inside a 2-pixel outline.
pub fn draw_marker_px<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: (i32, i32),
    style: &SeriesStyle,
    hollow: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let points = outline(style.marker);
    let fill = if hollow { WHITE } else { style.color };
    area.draw(&(EmptyElement::at(c) + Polygon::new(points.clone(), fill.filled())))?;
    if hollow {
        let mut ring = points;
        ring.push(ring[0]);
        area.draw(&(EmptyElement::at(c) + PathElement::new(ring, style.color.stroke_width(2))))?;
    }
    Ok(())
}

/// Draws a line of `style` through pixel points of `area` (the legend's sample line).
pub fn draw_line_px<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    from: (i32, i32),
    to: (i32, i32),
    style: &SeriesStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let stroke = style.color.stroke_width(2);
    let Some((dash, gap)) = style.dash else {
        return area.draw(&PathElement::new(vec![from, to], stroke));
    };
    // Horizontal legend samples only: dashes along x.
    let mut x = from.0;
    while x < to.0 {
        let end = (x + dash as i32).min(to.0);
        area.draw(&PathElement::new(vec![(x, from.1), (end, to.1)], stroke))?;
        x = end + gap as i32;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_styles_differ() {
        // Every series of a figure is told apart by colour, marker and dash, and
        // neighbours in the legend differ in each.
        let styles: Vec<SeriesStyle> = (0..28).map(style_of).collect();
        for (i, a) in styles.iter().enumerate() {
            for b in &styles[i + 1..] {
                assert_ne!(a, b);
            }
        }
        for w in styles.windows(2) {
            assert_ne!(w[0].color, w[1].color);
            assert_ne!(w[0].marker, w[1].marker);
            assert_ne!(w[0].dash, w[1].dash);
        }
        // LDS figures: FAC2 (index 2) and AWF (index 6) coincide; they differ in marker and dash.
        assert_ne!(style_of(2).marker, style_of(6).marker);
        assert_ne!(style_of(2).dash, style_of(6).dash);
    }
}

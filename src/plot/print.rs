//! Print mode (`--print`): a figure's SVG converted to a PDF and rasterized to a 300-dpi PNG.
//!
//! Both are made from the SVG that plotters wrote, not by drawing the figure again: the drawing
//! code sizes everything in pixels (fonts, margins, line widths, markers), so scaling the
//! vector picture is the one way to get every part 3.125 times larger at once, and the PDF,
//! the PNG and the SVG then show the same picture. A px is the CSS pixel, 1/96 in, so a figure
//! 800 px wide is 800/96 in wide in the PDF and 2500 pixels wide in the PNG.
//!
//! usvg parses the SVG with the bundled DejaVu Sans as its only font (no system font is looked
//! up, so the output is the same on every machine); svg2pdf embeds the glyphs it uses as a font
//! subset, so the PDF's text stays text; resvg rasterizes.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use anyhow::{anyhow, Result};
use resvg::tiny_skia;
use resvg::usvg::{self, fontdb};

use super::FONT;

/// Resolution of the print PNG, dots per inch.
pub const PRINT_DPI: f32 = 300.0;
/// Pixels per inch of the SVG's unit, the CSS pixel.
const SVG_DPI: f32 = 96.0;
/// 300 dpi in the PNG's `pHYs` unit, pixels per metre (300 / 0.0254, rounded).
pub const PRINT_PIXELS_PER_METRE: u32 = 11811;

/// The PNG's pixel size for an SVG of `width` × `height` CSS pixels at [`PRINT_DPI`].
pub fn print_size(width: f32, height: f32) -> (u32, u32) {
    let scale = PRINT_DPI / SVG_DPI;
    ((width * scale).round() as u32, (height * scale).round() as u32)
}

/// Parsing options whose only font is the bundled DejaVu Sans, under every generic family
/// name, so that plotters' `font-family="sans-serif"` finds it.
fn options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        // The family as the font names itself ("DejaVu Sans"), rather than a copy of it here.
        let family = db
            .faces()
            .next()
            .and_then(|face| face.families.first())
            .map_or_else(|| "DejaVu Sans".to_string(), |(name, _)| name.clone());
        db.set_sans_serif_family(family.clone());
        db.set_serif_family(family.clone());
        db.set_monospace_family(family.clone());
        usvg::Options {
            font_family: family,
            fontdb: Arc::new(db),
            ..usvg::Options::default()
        }
    })
}

/// The print files of one figure, made from its SVG.
pub struct PrintFiles {
    /// The PDF, one page the figure's size.
    pub pdf: Vec<u8>,
    /// The PNG at [`PRINT_DPI`], with its density in a `pHYs` chunk.
    pub png: Vec<u8>,
}

/// Converts the SVG `bytes` to a PDF and a 300-dpi PNG; errors name `svg`, the file they were
/// read from.
pub fn convert(bytes: &[u8], svg: &Path) -> Result<PrintFiles> {
    let tree = usvg::Tree::from_data(bytes, options())
        .map_err(|e| anyhow!("converting {} for print: the SVG does not parse: {e}", svg.display()))?;
    let pdf = svg2pdf::to_pdf(
        &tree,
        svg2pdf::ConversionOptions::default(),
        // Page size in points from the CSS pixel, so that the PDF is the figure's printed size.
        svg2pdf::PageOptions { dpi: SVG_DPI },
    )
    .map_err(|e| anyhow!("converting {} to PDF: {e}", svg.display()))?;
    let png = rasterize(&tree, svg)?;
    Ok(PrintFiles { pdf, png })
}

/// The tree drawn at [`PRINT_DPI`] on white, as an RGB PNG that records its density.
fn rasterize(tree: &usvg::Tree, svg: &Path) -> Result<Vec<u8>> {
    let size = tree.size();
    let (width, height) = print_size(size.width(), size.height());
    // The pixmap (4 bytes a pixel) and the RGB copy the encoder reads (3) are alive together.
    let needed = u64::from(width) * u64::from(height) * 7;
    crate::memory::check_fits(
        &format!("the 300-dpi PNG of {} ({width} × {height} pixels)", svg.display()),
        needed,
    )
    .map_err(|e| anyhow!(e))?;
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or_else(|| {
        anyhow!(
            "rasterizing {}: a {width} × {height} pixel image is too large",
            svg.display()
        )
    })?;
    // Opaque white under everything, so that dropping the alpha channel below loses nothing
    // (plotters paints a white background too; this also covers the rounding margin).
    pixmap.fill(tiny_skia::Color::WHITE);
    let scale = PRINT_DPI / SVG_DPI;
    resvg::render(
        tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    // The default PNGs are 8-bit RGB; so is this one. Every pixel is opaque (white underneath),
    // so dropping the alpha channel loses nothing.
    let rgb: Vec<u8> = pixmap
        .pixels()
        .iter()
        .flat_map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue()]
        })
        .collect();
    drop(pixmap);
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    // Per-row filter choice and the strongest deflate: figures are mostly flat colour, and a
    // 300-dpi PNG has ten times the pixels of the screen one.
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    encoder.set_compression(png::Compression::Best);
    encoder.set_pixel_dims(Some(png::PixelDimensions {
        xppu: PRINT_PIXELS_PER_METRE,
        yppu: PRINT_PIXELS_PER_METRE,
        unit: png::Unit::Meter,
    }));
    let encoded = encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(&rgb).and_then(|()| writer.finish()));
    encoded.map_err(|e| anyhow!("encoding the 300-dpi PNG of {}: {e}", svg.display()))?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_size_is_the_pixel_size_at_300_dpi() {
        assert_eq!(print_size(800.0, 520.0), (2500, 1625));
        // 588 × 3.125 = 1837.5, rounded up.
        assert_eq!(print_size(1200.0, 588.0), (3750, 1838));
        assert_eq!(PRINT_PIXELS_PER_METRE, (PRINT_DPI / 0.0254).round() as u32);
    }

    #[test]
    fn text_is_drawn_with_the_bundled_font() {
        let svg = br##"<svg width="200" height="50" viewBox="0 0 200 50" xmlns="http://www.w3.org/2000/svg">
<rect x="0" y="0" width="200" height="50" fill="#FFFFFF"/>
<text x="10" y="30" font-family="sans-serif" font-size="20" fill="#000000">Makespan</text>
</svg>"##;
        let files = convert(svg, Path::new("t.svg")).unwrap();
        // The glyphs are embedded as a subset of DejaVu Sans (a tag, `+`, then the name).
        let pdf = String::from_utf8_lossy(&files.pdf);
        assert!(pdf.starts_with("%PDF-"), "{}", &pdf[..20]);
        assert!(pdf.contains("+DejaVuSans"), "no DejaVu Sans font in the PDF");
        // Dark pixels where the text is.
        let decoder = png::Decoder::new(files.png.as_slice());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (625, 156));
        let dark = buf.chunks(3).filter(|p| p[0] < 128).count();
        assert!(dark > 500, "{dark} dark pixels");
    }

    #[test]
    fn an_svg_that_does_not_parse_is_an_error_naming_the_file() {
        let Err(err) = convert(b"<svg", Path::new("plots/x/f.svg")) else {
            panic!("a truncated SVG converted")
        };
        let err = err.to_string();
        assert!(
            err.starts_with("converting plots/x/f.svg for print: the SVG does not parse"),
            "{err}"
        );
    }
}

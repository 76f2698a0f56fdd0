//! `--print`: every figure also as a PDF converted from its SVG, and its PNG at 300 dpi
//! (3.125 times the pixel size, with its density recorded), for each figure kind; without
//! `--print` the figures are what they always were and no PDF is written.

use std::fs;
use std::path::Path;

mod support;
use support::{gridsim, Gridsim, Outcome};

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A small bag-of-tasks sweep with a titled figure of each kind.
fn experiment() -> String {
    let platform = Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms/data/grid90.xml");
    format!(
        r#"name = "print"
family = "bot"
replications = 2
[platform]
file = "{}"
[params]
tasks = [40, 80]
task_flops = 1e9
nodes = 8
[[schedulers]]
name = "gss"
[[schedulers]]
name = "wq"
params = {{ chunk = 2 }}
[outputs]
tables = ["chunks"]

[[figures]]
name = "makespan"
title = "Makespan by tasks"
x = "tasks"
y = "makespan_s"

[[figures]]
name = "bars"
kind = "bars"
title = "Makespan bars"
x = "tasks"
y = "makespan_s"
baseline = "wq"

[[figures]]
name = "workers"
kind = "timeline"
title = "Workers"
source = "chunks"
x = "start_s"
x_end = "end_s"
y = "worker"
panels = "scheduler"
where = {{ tasks = 80, replication = 0 }}
"#,
        platform.display()
    )
}

const FIGURES: [&str; 3] = ["makespan", "bars", "workers"];

/// A PNG's pixel size and its `pHYs` density (pixels per metre), if it records one.
fn png_info(path: &Path) -> ((u32, u32), Option<(u32, u32)>) {
    let decoder = png::Decoder::new(fs::File::open(path).unwrap());
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    let density = info.pixel_dims.map(|d| {
        assert_eq!(d.unit, png::Unit::Meter, "{}", path.display());
        (d.xppu, d.yppu)
    });
    (info.size(), density)
}

/// The `width` and `height` attributes of an SVG's root element.
fn svg_size(svg: &str) -> (f64, f64) {
    let attr = |name: &str| -> f64 {
        let start = svg.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        svg[start..start + svg[start..].find('"').unwrap()].parse().unwrap()
    };
    (attr("width"), attr("height"))
}

#[test]
fn print_mode_writes_a_pdf_and_a_300_dpi_png_beside_the_same_svg() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("print.toml"), experiment()).unwrap();
    // Under a umask that a default of 0644 would not honour.
    let out = Gridsim::new()
        .args(["run", "print.toml", "--jobs", "2", "--out", "o", "--print"])
        .current_dir(dir.path())
        .umask(0o077)
        .run();
    assert!(out.ok, "{}", out.stderr);
    let print = dir.path().join("o/plots/print");
    // The same figures redrawn from the results without --print.
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["plot", "o/results/print", "--out", "screen"]);
    assert!(ok, "{err}");
    let screen = dir.path().join("screen");

    for name in FIGURES {
        let file = |d: &Path, ext: &str| d.join(format!("{name}.{ext}"));
        // The SVG does not depend on the mode.
        let svg = fs::read_to_string(file(&print, "svg")).unwrap();
        assert_eq!(
            svg,
            fs::read_to_string(file(&screen, "svg")).unwrap(),
            "{name}.svg differs"
        );

        // Without --print: a PNG of the SVG's pixel size that records no density, no PDF.
        let (w, h) = svg_size(&svg);
        assert_eq!(png_info(&file(&screen, "png")), ((w as u32, h as u32), None), "{name}");
        assert!(!file(&screen, "pdf").exists(), "{name}.pdf written without --print");

        // With --print: 3.125 times as many pixels each way, recorded as 300 dpi.
        let expected = ((w * 3.125).round() as u32, (h * 3.125).round() as u32);
        assert_eq!(
            png_info(&file(&print, "png")),
            (expected, Some((11811, 11811))),
            "{name}"
        );

        // The PDF: one page of the figure's printed size (a px is 1/96 in, 3/4 pt), with the
        // text set in the bundled font, embedded as a subset: usvg found the font for
        // plotters' `sans-serif` (else the text would be dropped and no font embedded).
        let pdf = fs::read(file(&print, "pdf")).unwrap();
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.starts_with("%PDF-"), "{name}.pdf: {}", &text[..text.len().min(20)]);
        let media_box = format!("/MediaBox [0 0 {} {}]", w * 0.75, h * 0.75);
        assert!(text.contains(&media_box), "{name}.pdf has no {media_box}");
        assert!(text.contains("+DejaVuSans"), "{name}.pdf embeds no DejaVu Sans");

        for ext in ["svg", "png", "pdf"] {
            assert_eq!(mode(&file(&print, ext)), 0o600, "{name}.{ext} under umask 077");
        }
    }
}

#[test]
fn print_and_no_plots_are_refused_together() {
    let dir = tempfile::tempdir().unwrap();
    let Outcome { ok, stderr: err, .. } = gridsim(dir.path(), ["run", "x.toml", "--no-plots", "--print"]);
    assert!(!ok);
    assert!(
        err.contains("cannot be used with") && err.contains("'--print'") && err.contains("'--no-plots'"),
        "{err}"
    );
}

//! Fuzz targets: every parser of gridsim behind one `fn(&[u8])` each, shared by the cargo-fuzz
//! crate (`fuzz/`, libFuzzer, nightly) and the stable proptest smoke test
//! (`tests/fuzz_smoke.rs`).
//!
//! Each target feeds arbitrary bytes to the parser(s) it names and ignores their `Err` results:
//! refusing bad input is the parsers' job. A **panic** (including an overflow caught by the
//! fuzz build's overflow checks), a **hang** (libFuzzer's `-timeout`) or an **unbounded
//! allocation** (`-rss_limit_mb`, or `-malloc_limit_mb`) is a finding. Targets that take text
//! return early on input that is not UTF-8, as the binary does when it reads a file to a string.
//!
//! | target | covers |
//! |---|---|
//! | [`experiment_toml`] | `experiment::load_str` with every family: TOML syntax, field checks, platforms (files and generators) and traces it names, `[quick]`, sweep expansion and each run's family validation. Runs no simulation. |
//! | [`simgrid_xml`] | `platforms::parse_simgrid_xml` (XML tree, zones, routing, clusters, units, inline `<trace>` profiles); referenced files are refused ([`platforms::NoFiles`]). |
//! | [`platform_toml`] | `platforms::parse_gridsim_toml`, referenced files refused. |
//! | [`profile_text`] | `platforms::parse_profile`, and `parse_profile_with_periodicity` with fixed periods and, when the first line is a number, that number as the period of the rest. |
//! | [`replay_json`] | `replay::parse` (scenario JSON, activity line numbers). No I/O, no simulation. |
//! | [`trace`] | raw bytes through `tracefile::from_reader` (gzip detection, format detection by first line) and the summary `gridsim trace info` prints; then each format forced in turn: the summary, the job stream experiments replay (`traces::job::read_workload`, default and restrictive selections) or, for FTA, all events and the per-node availability profiles. |
//!
//! The experiment target resolves relative file names against
//! `<gridsim>/experiments/fuzz.toml` (which need not exist), so `../platforms/data/grid90.xml`
//! and `../traces/data/*.gz` reach the bundled files, as in the real experiment files. Because
//! experiment files may name any path, an input naming a device file such as `/dev/zero` can
//! read without bound; that is the file-reading code doing what it is told, not a parser bug.

use std::path::Path;

use traces::fta::{availability, AvailabilityOptions, FtaReader, GapPolicy};
use traces::info::summarize;
use traces::job::{read_workload, Selection};
use traces::TraceFormat;

use crate::{experiment, replay, tracefile};
use schedulers::families;

/// A fuzz target: takes any bytes, returns normally unless it found a bug.
pub type Target = fn(&[u8]);

/// Every target by name, once: what `fuzz/fuzz_targets/<name>.rs` and the smoke test call.
pub const TARGETS: &[(&str, Target)] = &[
    ("experiment_toml", experiment_toml),
    ("simgrid_xml", simgrid_xml),
    ("platform_toml", platform_toml),
    ("profile_text", profile_text),
    ("replay_json", replay_json),
    ("trace", trace),
];

/// Where the experiment target pretends its text comes from (relative names resolve from here).
const EXPERIMENT_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/experiments/fuzz.toml");

/// Experiment files: load, check and expand as `gridsim run` does before running anything.
pub fn experiment_toml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let families = families::all();
    let path = Path::new(EXPERIMENT_PATH);
    let _ = experiment::load_str(path, text, false, &families);
    // `--quick` is an error without a `[quick]` section; only then does it reach other code.
    if text.contains("quick") {
        let _ = experiment::load_str(path, text, true, &families);
    }
}

/// SimGrid XML platforms.
pub fn simgrid_xml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = platforms::parse_simgrid_xml(text, "fuzz.xml", &mut platforms::NoFiles);
}

/// gridsim TOML platforms.
pub fn platform_toml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = platforms::parse_gridsim_toml(text, "fuzz.toml", &mut platforms::NoFiles);
}

/// SimGrid profile text (`date value` lines, `LOOPAFTER`, `PERIODICITY`).
pub fn profile_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = platforms::parse_profile(text);
    // An inline `<trace periodicity="p">`: the XML parser passes any finite `p`.
    for p in [-1.0, 0.0, f64::MIN_POSITIVE, 1e-9, 1.0, 15.0, 1e300] {
        let _ = platforms::parse_profile_with_periodicity(text, Some(p));
    }
    if let Some((first, rest)) = text.split_once('\n') {
        if let Ok(p) = first.trim().parse::<f64>() {
            if p.is_finite() {
                let _ = platforms::parse_profile_with_periodicity(rest, Some(p));
            }
        }
    }
}

/// Replay scenarios (JSON).
pub fn replay_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = replay::parse("fuzz.json", text);
}

/// Trace files, plain or gzip, in every format.
pub fn trace(data: &[u8]) {
    // No extension: the format comes from the first line, as for an oddly named file.
    let path = Path::new("fuzz-trace");
    // `gridsim trace info FILE`.
    if let Ok(opened) = tracefile::from_reader(path, data, None) {
        let _ = summarize(opened.format, opened.reader);
    }
    // `gridsim trace info --format F FILE`, then what experiments read.
    let restrictive = Selection {
        window_s: Some((1.0, 1e6)),
        first: Some(20),
        serial_only: true,
        keep_partial: true,
        load_scale: 2.5,
    };
    for format in TraceFormat::ALL {
        if let Ok(opened) = tracefile::from_reader(path, data, Some(format)) {
            let _ = summarize(format, opened.reader);
        }
        if format.is_workload() {
            for selection in [Selection::default(), restrictive.clone()] {
                if let Ok(opened) = tracefile::from_reader(path, data, Some(format)) {
                    let _ = read_workload(format, opened.reader, &selection);
                }
            }
        } else if let Ok(opened) = tracefile::from_reader(path, data, Some(format)) {
            let Ok(events) = FtaReader::new(opened.reader).collect::<Result<Vec<_>, _>>() else {
                continue;
            };
            let _ = availability(events.iter().cloned(), &AvailabilityOptions::default());
            let options = AvailabilityOptions {
                offset_s: 10.0,
                gaps: GapPolicy::On,
            };
            let _ = availability(events, &options);
        }
    }
}

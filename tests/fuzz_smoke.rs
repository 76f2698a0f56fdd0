//! Stable-Rust smoke version of the fuzz targets (`src/fuzzing.rs`; the real fuzzing is
//! `scripts/fuzz.sh`, cargo-fuzz on nightly). Each target gets random bytes, random printable
//! text and, mostly, mutations of the files bundled with gridsim (byte flips and overwrites,
//! truncation, lines duplicated, deleted, swapped or spliced in from another seed, tokens
//! inserted; for the trace target optionally gzip-compressed afterwards). A panic fails the test.
//!
//! `PROPTEST_CASES` sets the number of inputs per target (default 500).

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use gridsim::fuzzing::TARGETS;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Seeds are cut to this many bytes (of text, for gzip traces), to keep every case fast.
const SEED_CAP: usize = 32 * 1024;

/// Where each target's seeds are (directories under the repository, searched recursively) and
/// which file names end them.
fn seed_sources(target: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match target {
        "experiment_toml" => (&["experiments", "tests/data/experiments"], &[".toml"]),
        "simgrid_xml" => (
            &["platforms/data", "platforms/tests/data", "tests/data/platforms"],
            &[".xml"],
        ),
        "platform_toml" => (&["platforms/data"], &[".toml"]),
        "profile_text" => (
            &["platforms/data", "tests/data/platforms"],
            &[".txt", ".profile", ".prof", ".state"],
        ),
        "replay_json" => (&["tests/data"], &[".json"]),
        "trace" => (
            &["tests/data/traces", "traces/data", "traces/tests/data"],
            &[".swf", ".gwf", ".tab", ".csv", ".gz"],
        ),
        other => panic!("no seeds defined for target '{other}'"),
    }
}

fn walk(dir: &Path, suffixes: &[&str], out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, suffixes, out);
        } else {
            let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if name != "SOURCES.txt" && suffixes.iter().any(|s| name.ends_with(s)) {
                out.push(path);
            }
        }
    }
}

/// The seed files of `target`, each cut to `SEED_CAP`; gzip files also as their decompressed
/// start.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (dirs, suffixes) = seed_sources(target);
    let mut paths = Vec::new();
    for dir in dirs {
        walk(&root.join(dir), suffixes, &mut paths);
    }
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if bytes.starts_with(&[0x1f, 0x8b]) {
            let mut text = Vec::new();
            let _ = flate2::read::MultiGzDecoder::new(bytes.as_slice())
                .take(SEED_CAP as u64)
                .read_to_end(&mut text);
            out.push(text);
        }
        if target == "experiment_toml" {
            out.push(reduce_experiment(&String::from_utf8_lossy(&bytes)).into_bytes());
        } else {
            out.push(bytes[..bytes.len().min(SEED_CAP)].to_vec());
        }
    }
    out
}

/// An experiment file made cheap to load, as `scripts/fuzz_corpus.sh` does: the target reads it
/// as `experiments/fuzz.toml` (fixtures' paths are rewritten to reach the same files from
/// there), and 200 jobs, 1 replication and a small SWF trace replace the bundled experiments'
/// 185k-job `[workload]` trace (`gridsim validate experiments/wal.toml` takes ~18 s in release).
fn reduce_experiment(text: &str) -> String {
    let text = text.replace("\"../../../", "\"../").replace(
        "\"../platforms/cluster.xml\"",
        "\"../tests/data/platforms/cluster.xml\"",
    );
    let mut out = String::new();
    // Only the job trace is replaced: an availability trace must stay what it is.
    let mut section = "";
    for line in text.lines() {
        if line.starts_with('[') {
            section = line.trim();
        }
        let key = line.split('=').next().unwrap_or("").trim();
        match key {
            "jobs" if line.contains(char::is_numeric) => out.push_str("jobs = 200"),
            "replications" => out.push_str("replications = 1"),
            "trace" if section == "[workload]" => out.push_str("trace = \"../traces/tests/data/swf-oddities.swf\""),
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// Text that parsers give a meaning to: numbers at the edges, delimiters, keywords.
const TOKENS: &[&str] = &[
    "\n",
    "\r\n",
    "\t",
    " ",
    "\"",
    "'",
    "#",
    ";",
    ",",
    ":",
    "=",
    "-",
    ".",
    "<",
    ">",
    "/>",
    "</",
    "[",
    "]",
    "{",
    "}",
    "[[",
    "]]",
    "-1",
    "0",
    "1",
    "-0",
    "0.5",
    "1e308",
    "1e-320",
    "-1e308",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "1f",
    "1Gf",
    "1MBps",
    "1us",
    "1GiB",
    "%",
    "LOOPAFTER",
    "PERIODICITY",
    "true",
    "false",
    "\\u0000",
    "&amp;",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "\u{feff}",
    "é",
];

#[derive(Clone, Debug)]
enum Mutation {
    FlipByte { at: usize, mask: u8 },
    SetByte { at: usize, byte: u8 },
    Truncate { at: usize },
    DuplicateLine { line: usize },
    DeleteLine { line: usize },
    SwapLines { a: usize, b: usize },
    SpliceLine { seed: usize, line: usize, at: usize },
    InsertToken { at: usize, token: &'static str },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, mask)| Mutation::FlipByte { at, mask }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::SetByte { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        any::<usize>().prop_map(|line| Mutation::DuplicateLine { line }),
        any::<usize>().prop_map(|line| Mutation::DeleteLine { line }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines { a, b }),
        (any::<usize>(), any::<usize>(), any::<usize>()).prop_map(|(seed, line, at)| Mutation::SpliceLine {
            seed,
            line,
            at
        }),
        (any::<usize>(), prop::sample::select(TOKENS)).prop_map(|(at, token)| Mutation::InsertToken { at, token }),
    ]
}

fn lines(data: &[u8]) -> Vec<Vec<u8>> {
    data.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

fn apply(data: &mut Vec<u8>, m: &Mutation, seeds: &[Vec<u8>]) {
    match *m {
        Mutation::FlipByte { at, mask } if !data.is_empty() => {
            let i = at % data.len();
            data[i] ^= mask;
        }
        Mutation::SetByte { at, byte } if !data.is_empty() => {
            let i = at % data.len();
            data[i] = byte;
        }
        Mutation::Truncate { at } => data.truncate(at % (data.len() + 1)),
        Mutation::InsertToken { at, token } => {
            let i = at % (data.len() + 1);
            data.splice(i..i, token.bytes());
        }
        Mutation::DuplicateLine { line } | Mutation::DeleteLine { line } => {
            let mut ls = lines(data);
            if ls.is_empty() {
                return;
            }
            let i = line % ls.len();
            if matches!(m, Mutation::DeleteLine { .. }) {
                ls.remove(i);
            } else {
                let copy = ls[i].clone();
                ls.insert(i, copy);
            }
            *data = ls.concat();
        }
        Mutation::SwapLines { a, b } => {
            let mut ls = lines(data);
            if ls.is_empty() {
                return;
            }
            let n = ls.len();
            ls.swap(a % n, b % n);
            *data = ls.concat();
        }
        Mutation::SpliceLine { seed, line, at } => {
            let donor = lines(&seeds[seed % seeds.len()]);
            if donor.is_empty() {
                return;
            }
            let mut ls = lines(data);
            let i = at % (ls.len() + 1);
            ls.insert(i, donor[line % donor.len()].clone());
            *data = ls.concat();
        }
        Mutation::FlipByte { .. } | Mutation::SetByte { .. } => {}
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).expect("gzip to memory");
    e.finish().expect("gzip to memory")
}

/// An input, shown escaped (exact bytes, readable text) when a case fails.
#[derive(Clone)]
struct Input(Vec<u8>);

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\" ({} bytes)", self.0.escape_ascii(), self.0.len())
    }
}

/// Inputs for one target: random bytes, random text, or a mutated seed.
fn inputs(seeds: Arc<Vec<Vec<u8>>>, allow_gzip: bool) -> impl Strategy<Value = Input> {
    let n = seeds.len();
    let mutated =
        (0..n, prop::collection::vec(mutation(), 1..8), any::<bool>()).prop_map(move |(seed, mutations, compress)| {
            let mut data = seeds[seed].clone();
            for m in &mutations {
                apply(&mut data, m, &seeds);
            }
            if allow_gzip && compress {
                gzip(&data)
            } else {
                data
            }
        });
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..2048),
        1 => "[ -~\t\n]{0,512}".prop_map(String::into_bytes),
        6 => mutated,
    ]
    .prop_map(Input)
}

fn smoke(name: &str) {
    let (_, target) = TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no fuzz target '{name}' in gridsim::fuzzing::TARGETS"));
    let seeds = seeds(name);
    assert!(!seeds.is_empty(), "{name}: no seed file found");
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(500);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&inputs(Arc::new(seeds), name == "trace"), |input| {
        target(&input.0);
        Ok(())
    });
    if let Err(e) = result {
        panic!("fuzz target {name}: {e}");
    }
}

/// The reduced bundled experiments still load: the experiment target's mutations start from
/// files that reach the sweep expansion and the families' checks.
#[test]
fn reduced_bundled_experiments_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    walk(&root.join("experiments"), &[".toml"], &mut paths);
    assert!(!paths.is_empty());
    let families = schedulers::families::all();
    let as_if = root.join("experiments/fuzz.toml");
    for path in paths {
        let text = reduce_experiment(&std::fs::read_to_string(&path).expect("readable experiment"));
        if let Err(e) = gridsim::experiment::load_str(&as_if, &text, false, &families) {
            panic!("{} (reduced) does not load: {e}", path.display());
        }
    }
}

/// One test per target, named as the target.
macro_rules! smoke_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                smoke(stringify!($name));
            }
        )*

        #[test]
        fn every_target_has_a_smoke_test() {
            let tested = [$(stringify!($name)),*];
            let targets: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
            assert_eq!(targets, tested, "add the new target to smoke_tests! in tests/fuzz_smoke.rs");
        }
    };
}

smoke_tests!(
    experiment_toml,
    simgrid_xml,
    platform_toml,
    profile_text,
    replay_json,
    trace
);

//! Computes the build identity: a hash of every source file that can change a simulation's
//! result (the engine, the families, their adapters and policies, the platform and trace readers,
//! and the binary's experiment expansion). Run records are keyed on it, so a binary
//! rebuilt with different simulation code never reuses a record (`GRIDSIM_BUILD_ID`). Output,
//! plotting and CLI code are left out: changing them cannot change a result.

use std::fs;
use std::path::{Path, PathBuf};

/// Sources that decide results, relative to the workspace root.
const SIMULATION_SOURCES: &[&str] = &[
    "sim-core/src",
    "schedulers/src",
    "platforms/src",
    "traces/src",
    "src/experiment",
    "src/replay.rs",
    "Cargo.lock",
];

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(path)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            files(&e, out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for source in SIMULATION_SOURCES {
        let path = root.join(source);
        println!("cargo:rerun-if-changed={}", path.display());
        files(&path, &mut all);
    }
    // FNV-1a over (relative path, contents) of every file, in path order.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for file in &all {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        feed(relative.to_string_lossy().as_bytes());
        feed(&[0]);
        feed(&fs::read(file).unwrap_or_default());
        feed(&[0]);
    }
    println!("cargo:rustc-env=GRIDSIM_BUILD_ID={hash:016x}");
}

//! The `gridsim` library behind the binary: everything that touches files, threads, clocks and
//! terminals lives here or in `main.rs`, never in `sim-core` or `schedulers`.

/// Hash of the sources that decide simulation results (computed by `build.rs`); run records
/// are keyed on it, so a rebuilt binary with other simulation code never reuses one.
pub const BUILD_ID: &str = env!("GRIDSIM_BUILD_ID");

pub mod experiment;
pub mod fuzzing;
pub mod memory;
pub mod output;
pub mod plot;
pub mod reference;
pub mod replay;
pub mod runner;
pub mod study;
pub mod tracefile;

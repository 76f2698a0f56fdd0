//! The `gridsim` library behind the binary: everything that touches files, threads, clocks and
//! terminals lives here or in `main.rs`, never in `sim-core` or `schedulers`.

pub mod experiment;
pub mod families;
pub mod family;
pub mod output;
pub mod plot;
pub mod replay;
pub mod runner;
pub mod tracefile;

//! gridsim's discrete-event engine. No I/O: no files, threads, clocks or terminals.
#![warn(missing_docs)]

pub mod platform;
pub mod profile;
pub mod queue;
pub mod rng;
pub mod sharing;
pub mod time;

pub use time::{SimTime, EPSILON};

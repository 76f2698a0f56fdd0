//! Workload and availability traces: readers for the archives' formats, the job stream a
//! simulation replays, availability profiles, and synthetic generators.
//!
//! Every reader streams typed records from an `impl BufRead` and does no I/O of its own (the
//! binary opens files); [`input::decompress`] inflates gzip input recognised by its magic bytes.
//! Errors are [`TraceError`]s naming the line and the field.
//!
//! | format | module | records |
//! |---|---|---|
//! | SWF v2.2 (Parallel Workloads Archive) | [`swf`] | jobs |
//! | GWF (Grid Workloads Archive) | [`gwf`] | jobs with site and bag-of-tasks ids |
//! | FTA `event_trace.tab` (Failure Trace Archive) | [`fta`] | availability intervals per node |
//! | Harchol-Balter & Downey process lifetimes | [`hbd`] | processes |
//!
//! [`job`] turns job records into a [`job::Workload`] with a [`job::Selection`]; [`fta`] turns
//! availability intervals into per-host state profiles; [`info`] summarises a trace;
//! [`synthetic`] draws workloads from named random streams; [`lublin`] draws rigid parallel jobs
//! from the Lublin–Feitelson model; [`failures`] draws random per-host
//! availability (exponential or Weibull up and down periods).

pub mod error;
pub mod failures;
pub mod field;
pub mod format;
pub mod fta;
pub mod gwf;
pub mod hbd;
pub mod info;
pub mod input;
pub mod job;
pub mod lublin;
pub mod records;
pub mod swf;
pub mod synthetic;

pub use error::TraceError;
pub use format::TraceFormat;

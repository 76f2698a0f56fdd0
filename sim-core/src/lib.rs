//! gridsim's discrete-event engine. No I/O: no files, threads, clocks or terminals.
//!
//! * [`time`]: `SimTime` and the one `EPSILON`.
//! * [`queue`]: the future event set, ordered by (time, insertion sequence).
//! * [`rng`]: named reproducible random streams derived from one run seed.
//! * [`platform`] and [`profile`]: the platform model (plain data).
//! * [`sharing`]: the max-min solver shared by CPU, network and disks.
//! * [`network`]: the LV08 network model's parameters.
//! * [`engine`]: clock, resources and activities; [`app`]: the run loop.
//! * [`budget`]: a run's resource guards (event budget, stop flag).
//! * [`energy`]: host power as SimGrid's host energy plugin models it.
#![warn(missing_docs)]

pub mod app;
pub mod budget;
pub mod energy;
pub mod engine;
pub mod network;
pub mod platform;
pub mod profile;
pub mod queue;
pub mod rng;
pub mod sharing;
pub mod time;

pub use app::{Application, Simulation};
pub use engine::{ActivityId, ActivityKind, Engine, EngineStats, FailureCause, IoOp, Notification, Tag};
pub use network::NetworkParams;
pub use time::{SimTime, EPSILON};

//! Application families and their scheduling policies. No I/O: policies see read-only views and
//! return decisions as data; the application models drive `sim_core`'s engine.
#![warn(missing_docs)]

pub mod batch;
pub mod bot;
pub mod cluster;
pub mod external;
pub mod families;
pub mod family;
pub mod registry;
pub mod skeleton;
pub mod stats;
pub mod steal;

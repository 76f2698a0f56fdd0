//! Resource sharing between concurrent activities.
//!
//! [`maxmin`] is the one solver every shared resource uses (CPU cores, network links, shared
//! disks), as SimGrid's LMM is. It knows nothing of hosts, links or time.

pub mod maxmin;

pub use maxmin::{Changes, ConstraintId, MaxMinSystem, Sharing, SharingMode, SolverStats, VariableId};

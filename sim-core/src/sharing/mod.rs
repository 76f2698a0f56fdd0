//! Resource sharing between concurrent activities.
//!
//! [`maxmin`] is the one solver every shared resource uses (CPU cores, network links, shared
//! disks), as SimGrid's LMM is. It knows nothing of hosts, links or time.

pub mod maxmin;

pub use maxmin::{Changes, ConstraintId, MaxMinSystem, Sharing, SharingMode, SolverStats, VariableId};

impl SharingMode {
    /// The mode a platform's `sharing` setting names: `fast` or `exact`.
    pub fn from_setting(value: &str) -> Result<SharingMode, crate::network::ConfigError> {
        match value.trim() {
            "fast" => Ok(SharingMode::Fast),
            "exact" => Ok(SharingMode::Exact),
            other => Err(crate::network::ConfigError::BadValue {
                key: "sharing".into(),
                value: other.into(),
                why: "expected fast (bottleneck clocks, the default) or exact (the reference solver)".into(),
            }),
        }
    }

    /// The mode a platform configuration selects (its `sharing` setting; fast without one).
    pub fn from_config(
        config: &std::collections::BTreeMap<String, String>,
    ) -> Result<SharingMode, crate::network::ConfigError> {
        config
            .get("sharing")
            .map_or(Ok(SharingMode::default()), |v| Self::from_setting(v))
    }
}

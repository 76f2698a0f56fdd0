//! The cluster registry: building a policy from its name and parameters. The entries are in
//! the policies' own files, listed once in `cluster/mod.rs`.

use std::collections::BTreeMap;

use super::balancer::{FeedbackController, LoadBalancer};
pub use super::{infos, POLICIES};
pub use crate::registry::PolicyInfo;

use crate::family::RunError;

/// A built policy: the balancer, its controller (WAL-FC) and the initial `W_IO`.
pub struct Built {
    /// Places jobs.
    pub balancer: Box<dyn LoadBalancer>,
    /// Moves `W_IO` and the buffer (WAL-FC only).
    pub controller: Option<Box<dyn FeedbackController>>,
    /// Initial `W_IO`.
    pub w_io: f64,
}

impl Built {
    /// A placement policy without controller. `W_IO` is a parameter of the WAL policies only
    /// (nothing else reads it); the others carry WAL's default so that the view is the same
    /// for every policy.
    pub fn placement(balancer: Box<dyn LoadBalancer>) -> Box<Built> {
        let w_io = super::wal::W_IO
            .numeric_default()
            .expect("the w_io default is a number");
        Box::new(Built {
            balancer,
            controller: None,
            w_io,
        })
    }
}

/// Builds a policy from its name and parameters; errors name the bad parameter and list the
/// valid names.
pub fn build(name: &str, params: &BTreeMap<String, f64>) -> Result<Built, RunError> {
    crate::registry::build_entry(POLICIES, "cluster", name, params).map(|b| *b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_policy_builds_with_defaults() {
        for p in infos() {
            assert!(build(p.name, &BTreeMap::new()).is_ok(), "{}", p.name);
        }
        assert!(build("wal-fc", &BTreeMap::new()).unwrap().controller.is_some());
    }

    #[test]
    fn every_parameter_a_policy_reads_is_listed() {
        // Each listed parameter, given a valid value, builds: nothing the builder reads is
        // missing from the list (which experiment files are checked against).
        for p in infos() {
            for &crate::registry::Param { name: key, default, .. } in p.params {
                let value: f64 = default.parse().unwrap();
                let params = BTreeMap::from([(key.to_string(), value)]);
                assert!(build(p.name, &params).is_ok(), "{} {key}", p.name);
            }
        }
        let cm = BTreeMap::from([("eligibility".to_string(), 0.0)]);
        assert!(build("cm", &cm).is_ok());
    }

    #[test]
    fn errors_name_the_parameter() {
        let err = build("wal", &BTreeMap::from([("w_io".to_string(), 2.0)]))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("'w_io'"), "{err}");
        let err = build("nlb", &BTreeMap::from([("threshold".to_string(), 1.0)]))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("its parameters: none"), "{err}");
    }
}

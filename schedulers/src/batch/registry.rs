//! The batch registry: building a policy from its name and parameters. The entries are in the
//! policies' own files, listed once in `batch/mod.rs`.

use std::collections::BTreeMap;

use super::policy::BatchPolicy;
pub use super::{infos, POLICIES};

use crate::family::RunError;

/// Builds a policy from its name and parameters; errors name the bad parameter and list the
/// valid names.
pub fn build(name: &str, params: &BTreeMap<String, f64>) -> Result<Box<dyn BatchPolicy>, RunError> {
    crate::registry::build_entry(POLICIES, "batch", name, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_names_build() {
        let names: Vec<_> = infos().iter().map(|p| p.name).collect();
        assert_eq!(names, ["fcfs", "easy", "easy-sjbf", "conservative", "sjf", "ljf"]);
        for name in names {
            assert!(build(name, &BTreeMap::new()).is_ok(), "{name}");
        }
        let err = build("easy", &BTreeMap::from([("depth".to_string(), 1.0)]))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("'depth'"), "{err}");
        assert!(build("sbf", &BTreeMap::new()).is_err());
    }
}

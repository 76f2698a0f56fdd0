//! The bag-of-tasks registry: building a policy from its name and parameters. The entries
//! themselves are in the policies' own files, listed once in `bot/mod.rs`.

use std::collections::BTreeMap;

use super::ChunkPolicy;
pub use super::{infos, POLICIES};
pub use crate::registry::PolicyInfo;

use crate::family::RunError;

/// Builds a policy from its name and parameters; errors name the bad parameter and list the
/// valid names.
pub fn build(name: &str, params: &BTreeMap<String, f64>) -> Result<Box<dyn ChunkPolicy>, RunError> {
    crate::registry::build_entry(POLICIES, "bag-of-tasks", name, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_policy_builds_with_defaults() {
        for p in POLICIES {
            assert!(build(p.info.name, &BTreeMap::new()).is_ok(), "{}", p.info.name);
        }
    }

    #[test]
    fn errors_list_valid_names() {
        let err = build("gsss", &BTreeMap::new()).err().unwrap().to_string();
        assert!(err.contains("gss") && err.contains("lds"), "{err}");
        let params = BTreeMap::from([("beta".to_string(), 5.0)]);
        let err = build("gss", &params).err().unwrap().to_string();
        assert!(err.contains("'beta'") && err.contains("min_chunk"), "{err}");
        let params = BTreeMap::from([("chunk".to_string(), 0.5)]);
        assert!(build("wq", &params).is_err());
    }
}

//! The work-stealing registry: building one policy object per PE from a policy's name and
//! parameters. The entries are in the policies' own files, listed once in `steal/mod.rs`; the
//! runtime's own parameters (thread limit, time slice, ...) belong to the family.

use std::collections::BTreeMap;

use super::policy::StealPolicy;
pub use super::{infos, POLICIES};
pub use crate::registry::PolicyInfo;

use crate::family::RunError;

/// What a work-stealing entry builds: a maker of each PE's policy object, given the PE count.
pub struct Makers(Box<dyn Fn(usize) -> Box<dyn StealPolicy> + Send + Sync>);

impl Makers {
    /// Makers from `make(pes)`.
    pub fn new(make: impl Fn(usize) -> Box<dyn StealPolicy> + Send + Sync + 'static) -> Box<Makers> {
        Box::new(Makers(Box::new(make)))
    }
}

/// One policy object per PE for the policy `name` with `params`; errors name the bad
/// parameter and list the valid names.
pub fn build(name: &str, params: &BTreeMap<String, f64>, pes: usize) -> Result<Vec<Box<dyn StealPolicy>>, RunError> {
    let makers = crate::registry::build_entry(POLICIES, "work-stealing", name, params)?;
    Ok((0..pes).map(|_| (makers.0)(pes)).collect())
}

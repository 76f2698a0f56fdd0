//! The amoget family's `fixed` scheduler: the mapping it is given, solved and simulated.

use super::amoget::Fit;
use crate::family::{ParamReader, RunError};
use crate::registry::{Param, PolicyInfo};
use crate::skeleton::adaptive::Candidates;

const MAPPING: Param = Param::text(
    "mapping",
    "the mapping, e.g. \"[1, (1,(2,4),3), 1]\" (processors from 1)",
    Param::NO_DEFAULT,
);

/// The registry entry: `fixed`, parameter `mapping`.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "fixed",
    description: "the given mapping",
    params: &[MAPPING],
};

/// The one candidate: the run's mapping, checked against the stages and processors.
pub(super) fn candidates(reader: &ParamReader, fit: &Fit) -> Result<Candidates, RunError> {
    let mapping = fit.mapping(&MAPPING, &reader.text(&MAPPING)?)?;
    Ok(Candidates::List(vec![mapping]))
}

//! The skeleton families for experiment files: `family = "amoget"` (Pipeline/Deal mappings, the
//! CTMC of the AMoGeT paper and the same application simulated in the engine; [`amoget`], its
//! platform in [`amoget_platform`], its schedulers one file each: [`amoget_fixed`],
//! [`amoget_search`], [`amoget_adaptive`]) and
//! `family = "alt"` (remote skeleton invocations of Alt, Bischof & Gorlatch, predicted by eq. 1
//! and simulated in the engine; [`alt`]).
//!
//! What both share is here: the lookup of the run's scheduler, which refuses a parameter of
//! another scheduler, and the readers of a comma-separated list of numbers and of a positive
//! real.

use std::collections::BTreeMap;

use crate::family::{ParamReader, ParamValue, RunError, RunSpec};
use crate::registry::{self, Param, PolicyInfo};

pub mod alt;
pub mod amoget;
pub mod amoget_adaptive;
pub mod amoget_fixed;
pub mod amoget_platform;
pub mod amoget_search;

/// The run's scheduler among `schedulers`, once every parameter the run sets that is not one of
/// the family's own (`model`) is one of that scheduler's: a parameter of another scheduler is
/// refused, named.
fn scheduler(
    spec: &RunSpec,
    schedulers: &'static [PolicyInfo],
    model: &[Param],
) -> Result<&'static PolicyInfo, RunError> {
    let own: BTreeMap<String, &ParamValue> = spec
        .params
        .iter()
        .filter(|(k, _)| !model.iter().any(|p| p.name == k.as_str()))
        .map(|(k, v)| (k.clone(), v))
        .collect();
    registry::lookup(schedulers, "scheduler", &spec.scheduler, &own)
}

/// Text parameter `param`, a comma-separated list of non-negative numbers (e.g. "10, 30, 10"):
/// the run's value or the parameter's default, parsed; `None` when neither is given.
fn numbers(reader: &ParamReader, param: &Param) -> Result<Option<Vec<f64>>, RunError> {
    let Some(s) = reader.optional_text(param)? else {
        return Ok(None);
    };
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    RunError::param(
                        param.name,
                        format!("has '{}', which is not a non-negative number (in \"{s}\")", x.trim()),
                    )
                })
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// [`numbers`] of a parameter that the run must set or that has a default.
fn required_numbers(reader: &ParamReader, param: &Param) -> Result<Vec<f64>, RunError> {
    numbers(reader, param)?.ok_or_else(|| RunError::param(param.name, "is required"))
}

/// Real parameter `param`, which must be positive (its range says `>= 0`; 0 is refused here).
fn positive(reader: &ParamReader, param: &Param) -> Result<f64, RunError> {
    let x = reader.real(param)?;
    if x <= 0.0 {
        return Err(RunError::param(param.name, "must be positive"));
    }
    Ok(x)
}

/// A count as a table cell.
fn int(x: u64) -> ParamValue {
    ParamValue::Int(x.min(i64::MAX as u64) as i64)
}

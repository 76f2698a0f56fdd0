//! The amoget family's `amoget` scheduler: the CTMC of every candidate mapping is solved, the best
//! throughput is kept (AMoGeT §4.6) and simulated. The candidates are the `;`-separated list
//! `candidates`, or every mapping of the `deal_workers` shape up to relabelling of
//! interchangeable processors. `amoget-adaptive` chooses among the same candidates.

use super::amoget::Fit;
use super::numbers;
use crate::family::{ParamReader, RunError};
use crate::registry::{Param, PolicyInfo};
use crate::skeleton::adaptive::Candidates;

pub(super) const CANDIDATES: Param =
    Param::text("candidates", "mappings to compare, separated by ';'", Param::NO_DEFAULT)
        .computed_default("every mapping of the deal_workers shape");
pub(super) const DEAL_WORKERS: Param = Param::text(
    "deal_workers",
    "workers of each stage for the enumeration, comma-separated, 0 = a plain stage",
    Param::NO_DEFAULT,
)
.computed_default("0 for every stage");
pub(super) const INPUT: Param = Param::integer("input", "processor of the input data", "1", 1.0);
pub(super) const OUTPUT: Param = Param::integer("output", "processor of the output data", "1", 1.0);
/// Each candidate is a CTMC to solve.
pub(super) const MAX_CANDIDATES: Param =
    Param::integer("max_candidates", "enumeration limit", "5000", 1.0).at_most(1e6);

/// The enumeration's parameters, which a list of `candidates` leaves unread.
const ENUMERATION: [Param; 4] = [DEAL_WORKERS, INPUT, OUTPUT, MAX_CANDIDATES];

/// The registry entry: `amoget`, parameters `candidates` or the enumeration's.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "amoget",
    description: "best CTMC throughput among the candidate mappings (AMoGeT §4.6)",
    params: &[CANDIDATES, DEAL_WORKERS, INPUT, OUTPUT, MAX_CANDIDATES],
};

/// The candidates of the run: its list, each mapping checked, or the enumeration.
pub(super) fn candidates(reader: &ParamReader, fit: &Fit) -> Result<Candidates, RunError> {
    if let Some(list) = reader.optional_text(&CANDIDATES)? {
        if let Some(p) = ENUMERATION.iter().find(|p| reader.params.contains_key(p.name)) {
            return Err(RunError::param(p.name, "is for the enumeration, not with 'candidates'"));
        }
        let mappings = list
            .split(';')
            .filter(|s| !s.trim().is_empty())
            .map(|s| fit.mapping(&CANDIDATES, s.trim()))
            .collect::<Result<Vec<_>, _>>()?;
        if mappings.is_empty() {
            return Err(RunError::param(CANDIDATES.name, "lists no mapping"));
        }
        return Ok(Candidates::List(mappings));
    }
    let shape = match numbers(reader, &DEAL_WORKERS)? {
        Some(workers) => workers
            .into_iter()
            .map(|x| {
                if x.fract() == 0.0 {
                    Ok(x as usize)
                } else {
                    Err(RunError::param(
                        DEAL_WORKERS.name,
                        format!("has {x}, which is not a whole number"),
                    ))
                }
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => vec![0; fit.stages],
    };
    if shape.len() != fit.stages {
        return Err(RunError::param(
            DEAL_WORKERS.name,
            format!("needs {} values, got {}", fit.stages, shape.len()),
        ));
    }
    let processor = |param: &Param| -> Result<usize, RunError> {
        let p = reader.integer(param)? as usize;
        if p > fit.processors {
            return Err(RunError::param(
                param.name,
                format!("must be a processor from 1 to {}, got {p}", fit.processors),
            ));
        }
        Ok(p - 1)
    };
    let limit = reader.integer(&MAX_CANDIDATES)? as usize;
    Ok(Candidates::Enumerate {
        shape,
        input: processor(&INPUT)?,
        output: processor(&OUTPUT)?,
        limit,
    })
}

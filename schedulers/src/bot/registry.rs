//! Policy names and parameters as experiment files give them.

use std::collections::BTreeMap;

use super::factoring::Factoring;
use super::gss::Gss;
use super::lds::{Lds, LdsParams};
use super::tss::Tss;
use super::weighted_factoring::{WeightedFactoring, Weights};
use super::work_queue::WorkQueue;
use super::ChunkPolicy;
pub use crate::registry::PolicyInfo;
use crate::registry::{lookup, numeric_default, value_or_default};

/// Every bag-of-tasks policy.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "wq",
        description: "work queue: fixed chunks of k tasks (k = 1: pure self-scheduling)",
        params: &[("chunk", "tasks per chunk k", "1")],
    },
    PolicyInfo {
        name: "gss",
        description: "guided self-scheduling: max(k, ceil(R/P))",
        params: &[("min_chunk", "minimum chunk k", "1")],
    },
    PolicyInfo {
        name: "factoring",
        description: "factoring: batches of P chunks of ceil(R_batch/(alpha P)) (alpha = 2: FAC2)",
        params: &[("alpha", "batch divisor", "2")],
    },
    PolicyInfo {
        name: "tss",
        description: "trapezoid self-scheduling: linearly decreasing chunks from first to last",
        params: &[("first", "first chunk", "ceil(N/(2P))"), ("last", "last chunk", "1")],
    },
    PolicyInfo {
        name: "wf",
        description: "weighted factoring: factoring batches split by host peak speed",
        params: &[("alpha", "batch divisor", "2")],
    },
    PolicyInfo {
        name: "awf",
        description: "adaptive weighted factoring: factoring batches split by measured rates",
        params: &[("alpha", "batch divisor", "2")],
    },
    PolicyInfo {
        name: "lds",
        description: "LDS: worker-side affine model proposes chunk sizes (Ferreto et al.)",
        params: &[
            ("beta", "maxExecTime = T_seq / (beta P)", "5"),
            ("min_correlation", "fit correlation to leave setup", "0.99"),
            ("min_points", "measurements before the fit is trusted", "3"),
            ("final_alpha", "alpha of the finalization factoring", "2"),
        ],
    },
];

/// Builds a policy from its name and parameters; errors name the bad parameter and list the
/// valid names.
pub fn build(name: &str, params: &BTreeMap<String, f64>) -> Result<Box<dyn ChunkPolicy>, String> {
    let info = lookup(POLICIES, "bag-of-tasks", name, params)?;
    // A count whose default is a formula (tss `first`) is `None` here: the policy evaluates it.
    let count = |key: &str, min: f64| -> Result<Option<u64>, String> {
        match params.get(key).copied().or_else(|| numeric_default(info, key)) {
            None => Ok(None),
            Some(x) if x >= min && x.fract() == 0.0 && x < 1e15 => Ok(Some(x as u64)),
            Some(x) => Err(format!(
                "scheduler '{name}': parameter '{key}' must be an integer >= {min}, got {x}"
            )),
        }
    };
    let real = |key: &str, min: f64| -> Result<f64, String> {
        match value_or_default(info, params, key)? {
            x if x.is_finite() && x >= min => Ok(x),
            x => Err(format!(
                "scheduler '{name}': parameter '{key}' must be a number >= {min}, got {x}"
            )),
        }
    };
    // A count the policy needs as a number.
    let number = |key: &str, min: f64| -> Result<u64, String> {
        count(key, min)?.ok_or_else(|| format!("internal error: '{name}' needs a number for '{key}'"))
    };
    Ok(match name {
        "wq" => Box::new(WorkQueue {
            chunk: number("chunk", 1.0)?,
        }),
        "gss" => Box::new(Gss {
            min_chunk: number("min_chunk", 1.0)?,
        }),
        "factoring" => Box::new(Factoring::new(real("alpha", 1.0)?)),
        "tss" => Box::new(Tss::new(count("first", 1.0)?, count("last", 1.0)?)),
        "wf" => Box::new(WeightedFactoring::new(real("alpha", 1.0)?, Weights::Static)),
        "awf" => Box::new(WeightedFactoring::new(real("alpha", 1.0)?, Weights::Adaptive)),
        "lds" => Box::new(Lds::new(LdsParams {
            beta: real("beta", f64::MIN_POSITIVE)?,
            min_correlation: real("min_correlation", -1.0)?,
            min_points: number("min_points", 2.0)? as usize,
            final_alpha: real("final_alpha", 1.0)?,
        })),
        _ => unreachable!("every listed policy is built above"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_policy_builds_with_defaults() {
        for p in POLICIES {
            assert!(build(p.name, &BTreeMap::new()).is_ok(), "{}", p.name);
        }
    }

    #[test]
    fn errors_list_valid_names() {
        let err = build("gsss", &BTreeMap::new()).err().unwrap();
        assert!(err.contains("gss") && err.contains("lds"), "{err}");
        let params = BTreeMap::from([("beta".to_string(), 5.0)]);
        let err = build("gss", &params).err().unwrap();
        assert!(err.contains("'beta'") && err.contains("min_chunk"), "{err}");
        let params = BTreeMap::from([("chunk".to_string(), 0.5)]);
        assert!(build("wq", &params).is_err());
    }
}

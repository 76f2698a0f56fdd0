//! Policy names and parameters as experiment files give them: the one list of cluster policies.

use std::collections::BTreeMap;

use super::balancer::{FeedbackController, LoadBalancer};
use super::cm::Cm;
use super::controller::SlowdownController;
use super::io::IoPolicy;
use super::nlb::Nlb;
use super::wal::Wal;
use crate::registry::Param;
pub use crate::registry::PolicyInfo;
use crate::registry::{lookup, numeric_default, value_or_default};

const WAL_PARAMS: &[Param] = &[
    Param::described("threshold", "overload threshold on load / mean load (§4.1)", "1.25"),
    Param::described("w_io", "initial I/O weight W_IO of eq. 4.1 (W_CPU = 1 − W_IO)", "0.5"),
];

const ELIGIBILITY: Param = Param::described(
    "eligibility",
    "1: migrate only if eq. 4.6 expects a gain (§3's rule for all schemes); 0: greedy",
    "1",
);

/// Every cluster load-balancing policy.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "nlb",
        description: "no load balancing: every job runs where it arrives",
        params: &[],
    },
    PolicyInfo {
        name: "cm",
        description: "CPU-memory (Zhang et al.): least memory load if home would page, else fewest jobs",
        params: &[
            Param::described(
                "cpu_threshold",
                "jobs on the home node from which CPU load is shared",
                "4",
            ),
            ELIGIBILITY,
        ],
    },
    PolicyInfo {
        name: "io",
        description: "least accumulated explicit I/O load (eq. 4.4)",
        params: &[ELIGIBILITY],
    },
    PolicyInfo {
        name: "wal",
        description: "weighted average load (eqs. 4.1-4.7), fixed W_IO and buffer",
        params: WAL_PARAMS,
    },
    PolicyInfo {
        name: "wal-fc",
        description: "WAL with the feedback controller of eqs. 4.9-4.13 moving W_IO and the buffer",
        params: &[
            WAL_PARAMS[0],
            WAL_PARAMS[1],
            Param::described("gain_w", "G_w of eq. 4.9", "0.5"),
            Param::described(
                "gain_buffer_mb",
                "G_b of eq. 4.13, MB of buffer per unit of slowdown",
                "0.5",
            ),
            Param::described("history", "slowdowns averaged by the controller", "50"),
        ],
    },
];

/// A built policy: the balancer, its controller (WAL-FC) and the initial `W_IO`.
pub struct Built {
    /// Places jobs.
    pub balancer: Box<dyn LoadBalancer>,
    /// Moves `W_IO` and the buffer (WAL-FC only).
    pub controller: Option<Box<dyn FeedbackController>>,
    /// Initial `W_IO`.
    pub w_io: f64,
}

/// Builds a policy from its name and parameters; errors name the bad parameter and list the
/// valid names.
pub fn build(name: &str, params: &BTreeMap<String, f64>) -> Result<Built, String> {
    let info = lookup(POLICIES, "cluster", name, params)?;
    let real = |key: &str, min: f64, max: f64| -> Result<f64, String> {
        match value_or_default(info, params, key)? {
            x if x.is_finite() && (min..=max).contains(&x) => Ok(x),
            x => Err(format!(
                "scheduler '{name}': parameter '{key}' must be a number from {min} to {max}, got {x}"
            )),
        }
    };
    let whole = |key: &str| -> Result<usize, String> {
        let x = real(key, 1.0, 1e6)?;
        if x.fract() != 0.0 {
            return Err(format!(
                "scheduler '{name}': parameter '{key}' must be a whole number, got {x}"
            ));
        }
        Ok(x as usize)
    };
    let flag = |key: &str| -> Result<bool, String> {
        match value_or_default(info, params, key)? {
            1.0 => Ok(true),
            0.0 => Ok(false),
            x => Err(format!("scheduler '{name}': parameter '{key}' must be 0 or 1, got {x}")),
        }
    };
    // W_IO is a parameter of the WAL policies only (nothing else reads it); the others carry
    // WAL's default so that the view is the same for every policy.
    let w_io = if info.params.iter().any(|p| p.name == "w_io") {
        real("w_io", 0.0, 1.0)?
    } else {
        POLICIES
            .iter()
            .find_map(|p| numeric_default(p, "w_io"))
            .ok_or("internal error: no cluster policy has a default for 'w_io'")?
    };
    let wal = || -> Result<Box<dyn LoadBalancer>, String> {
        Ok(Box::new(Wal {
            threshold: real("threshold", 0.0, 1e6)?,
        }))
    };
    Ok(match name {
        "nlb" => Built {
            balancer: Box::new(Nlb),
            controller: None,
            w_io,
        },
        "cm" => Built {
            balancer: Box::new(Cm {
                cpu_threshold: whole("cpu_threshold")?,
                eligibility: flag("eligibility")?,
            }),
            controller: None,
            w_io,
        },
        "io" => Built {
            balancer: Box::new(IoPolicy {
                eligibility: flag("eligibility")?,
            }),
            controller: None,
            w_io,
        },
        "wal" => Built {
            balancer: wal()?,
            controller: None,
            w_io,
        },
        "wal-fc" => Built {
            balancer: wal()?,
            controller: Some(Box::new(SlowdownController::new(
                real("gain_w", 0.0, 1e6)?,
                real("gain_buffer_mb", 0.0, 1e9)? * 1e6,
                whole("history")?,
            ))),
            w_io,
        },
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
        assert!(build("wal-fc", &BTreeMap::new()).unwrap().controller.is_some());
    }

    #[test]
    fn every_parameter_a_policy_reads_is_listed() {
        // Each listed parameter, given a valid value, builds: nothing the builder reads is
        // missing from the list (which experiment files are checked against).
        for p in POLICIES {
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
            .unwrap();
        assert!(err.contains("'w_io'"), "{err}");
        let err = build("nlb", &BTreeMap::from([("threshold".to_string(), 1.0)]))
            .err()
            .unwrap();
        assert!(err.contains("valid: none"), "{err}");
    }
}

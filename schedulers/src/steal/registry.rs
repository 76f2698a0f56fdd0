//! Policy names and parameters as experiment files give them: the one list of work-stealing
//! policies. The runtime's own parameters (thread limit, time slice, ...) belong to the family.

use std::collections::BTreeMap;

use super::grid_gum::GridGum;
use super::grid_gum2::{GridGum2, GridGum2Options};
use super::policy::StealPolicy;
use super::satin::SatinCrs;
use crate::registry::Param;
pub use crate::registry::PolicyInfo;
use crate::registry::{lookup, value_or_default};

/// Every work-stealing policy.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "grid-gum",
        description: "Grid-GUM: FISH a random PE, forward at random (Fig 2); thread_limit = 1 is the paper's 'thread limit'",
        params: &[],
    },
    PolicyInfo {
        name: "grid-gum2",
        description: "Grid-GUM2: FISH the PE with the highest load per speed, preferring low latency, from piggybacked tables (Fig 7)",
        params: &[
            Param::described("local_latency_factor", "PEs within this factor of the lowest known latency are local", "2"),
            Param::described("prefer_local", "1: fish local PEs first (Communication table); 0: ignore latency", "1"),
            Param::described("super_schedule", "most sparks in a Super-Schedule to a faster remote fisher (0: off, as the paper measured)", "0"),
            Param::described("low_watermark", "sparks below which the slowest PE fishes while busy, scaled up by speed (0: off, as measured)", "0"),
        ],
    },
    PolicyInfo {
        name: "satin-crs",
        description: "Satin's cluster-aware random stealing (PPoPP 2001): synchronous local steals, one asynchronous wide-area steal",
        params: &[],
    },
];

/// Parameter `name` of `entry` (or its registry default), checked by `ok`.
fn get(
    entry: &PolicyInfo,
    params: &BTreeMap<String, f64>,
    name: &str,
    ok: impl Fn(f64) -> bool,
    range: &str,
) -> Result<f64, String> {
    match value_or_default(entry, params, name)? {
        x if x.is_finite() && ok(x) => Ok(x),
        x => Err(format!("parameter '{name}' must be {range}, got {x}")),
    }
}

/// One policy object per PE for the policy `name` with `params`.
pub fn build(name: &str, params: &BTreeMap<String, f64>, pes: usize) -> Result<Vec<Box<dyn StealPolicy>>, String> {
    let info = lookup(POLICIES, "work-stealing", name, params)?;
    let mut policies: Vec<Box<dyn StealPolicy>> = Vec::with_capacity(pes);
    match info.name {
        "grid-gum" => policies.extend((0..pes).map(|_| Box::new(GridGum) as Box<dyn StealPolicy>)),
        "grid-gum2" => {
            let options = GridGum2Options {
                local_latency_factor: get(info, params, "local_latency_factor", |x| x >= 1.0, "a number >= 1")?,
                prefer_local: get(info, params, "prefer_local", |x| x == 0.0 || x == 1.0, "0 or 1")? == 1.0,
                super_schedule: get(
                    info,
                    params,
                    "super_schedule",
                    |x| x.fract() == 0.0 && (0.0..=1024.0).contains(&x),
                    "an integer from 0 to 1024",
                )? as usize,
                low_watermark: get(
                    info,
                    params,
                    "low_watermark",
                    |x| (0.0..=1e6).contains(&x),
                    "a number from 0 to 1e6",
                )?,
            };
            policies.extend((0..pes).map(|_| Box::new(GridGum2::new(pes, options)) as Box<dyn StealPolicy>));
        }
        "satin-crs" => policies.extend((0..pes).map(|_| Box::new(SatinCrs) as Box<dyn StealPolicy>)),
        other => return Err(format!("work-stealing scheduler '{other}' has no constructor")),
    }
    Ok(policies)
}

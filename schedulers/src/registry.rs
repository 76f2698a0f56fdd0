//! What every family's policy registry shares: a policy's documented name and parameters, and
//! the lookup that checks a name and its parameters against them.

use std::collections::BTreeMap;

/// A policy name with its one-line description and parameters.
#[derive(Clone, Copy, Debug)]
pub struct PolicyInfo {
    /// Name in experiment files.
    pub name: &'static str,
    /// One line.
    pub description: &'static str,
    /// Accepted parameters (name, meaning, default).
    pub params: &'static [(&'static str, &'static str, &'static str)],
}

/// The entry of `policies` named `name`, once every key of `params` is one it accepts; errors
/// name the bad name or parameter and list the valid ones (`kind` is e.g. "bag-of-tasks").
pub fn lookup<'a>(
    policies: &'a [PolicyInfo],
    kind: &str,
    name: &str,
    params: &BTreeMap<String, f64>,
) -> Result<&'a PolicyInfo, String> {
    let Some(info) = policies.iter().find(|p| p.name == name) else {
        let names: Vec<_> = policies.iter().map(|p| p.name).collect();
        return Err(format!(
            "unknown {kind} scheduler '{name}' (valid: {})",
            names.join(", ")
        ));
    };
    for key in params.keys() {
        if !info.params.iter().any(|p| p.0 == key) {
            let valid: Vec<_> = info.params.iter().map(|p| p.0).collect();
            return Err(format!(
                "scheduler '{name}': unknown parameter '{key}' (valid: {})",
                if valid.is_empty() {
                    "none".to_string()
                } else {
                    valid.join(", ")
                }
            ));
        }
    }
    Ok(info)
}

/// The default of parameter `key` of `entry` when it is a number; `None` when the entry has no
/// such parameter or its default is a formula the entry evaluates itself (tss `first`,
/// `ceil(N/(2P))`). The registry is where defaults are written: builders read them from here.
pub fn numeric_default(entry: &PolicyInfo, key: &str) -> Option<f64> {
    entry
        .params
        .iter()
        .find(|p| p.0 == key)
        .and_then(|p| p.2.parse::<f64>().ok())
}

/// Parameter `key` of `entry`: its value in `params`, else its registry default. A builder that
/// reads a parameter with no numeric default in the registry is a defect, reported as one.
pub fn value_or_default(entry: &PolicyInfo, params: &BTreeMap<String, f64>, key: &str) -> Result<f64, String> {
    params
        .get(key)
        .copied()
        .or_else(|| numeric_default(entry, key))
        .ok_or_else(|| {
            format!(
                "internal error: '{}' reads parameter '{key}', which has no numeric default in its registry entry",
                entry.name
            )
        })
}

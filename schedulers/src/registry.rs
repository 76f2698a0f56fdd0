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

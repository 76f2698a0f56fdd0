//! What every family's policy registry shares: a policy's documented name and typed parameters,
//! the lookup that checks a name and its parameters against them, and the typed reading of a
//! parameter's value ([`Values`]) whose range is written once, in the entry.
//!
//! A policy file exports its registry entry ([`Entry`]: the description and the constructor), and
//! a family's registry lists the entries with [`policies!`](crate::policies), which also declares
//! the modules: adding a policy is its file plus one line there.

use std::collections::BTreeMap;
use std::fmt;

use crate::family::RunError;

/// What values a parameter takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A whole number in `[min, max]`.
    Integer,
    /// A real number in `[min, max]`.
    Real,
    /// 0 (off) or 1 (on).
    Flag,
    /// `true` or `false` (a TOML boolean).
    Bool,
    /// A string (a host name, a mapping, a list the family parses).
    Text,
}

/// One parameter of a policy: its name in experiment files, meaning, unit, default and range.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// Name in experiment files.
    pub name: &'static str,
    /// One line.
    pub meaning: &'static str,
    /// Unit, empty for a pure number.
    pub unit: &'static str,
    /// The default as written in `gridsim list` and params.csv: a number, a string, `true` or
    /// `false`, or a formula the policy or family evaluates itself (tss `first`, `ceil(N/(2P))`,
    /// `all hosts`). Empty: no default ([`Param::NO_DEFAULT`]).
    pub default: &'static str,
    /// Integer, real or flag.
    pub kind: Kind,
    /// Smallest accepted value; `f64::MIN_POSITIVE` reads "> 0" (see [`Param::positive`]).
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
    /// Whether `default` is a formula or a description the reader evaluates itself (`the
    /// platform's first host`) rather than the value.
    pub formula: bool,
}

impl Param {
    /// The default of a parameter that has none: a run must set it, or the family reads it as
    /// optional.
    pub const NO_DEFAULT: &'static str = "";

    const fn of(
        kind: Kind,
        name: &'static str,
        meaning: &'static str,
        default: &'static str,
        min: f64,
        max: f64,
    ) -> Param {
        Param {
            name,
            meaning,
            unit: "",
            default,
            kind,
            min,
            max,
            formula: false,
        }
    }

    /// A whole number of at least `min` (at most `i64::MAX`, the largest an experiment file
    /// can write; what a large value would cost is the family's and the limits' to refuse).
    pub const fn integer(name: &'static str, meaning: &'static str, default: &'static str, min: f64) -> Param {
        Param::of(Kind::Integer, name, meaning, default, min, i64::MAX as f64)
    }

    /// A real number of at least `min`.
    pub const fn real(name: &'static str, meaning: &'static str, default: &'static str, min: f64) -> Param {
        Param::of(Kind::Real, name, meaning, default, min, f64::MAX)
    }

    /// 0 or 1.
    pub const fn flag(name: &'static str, meaning: &'static str, default: &'static str) -> Param {
        Param::of(Kind::Flag, name, meaning, default, 0.0, 1.0)
    }

    /// `true` or `false`.
    pub const fn boolean(name: &'static str, meaning: &'static str, default: &'static str) -> Param {
        Param::of(Kind::Bool, name, meaning, default, 0.0, 1.0)
    }

    /// A string; what it may say is checked where it is parsed.
    pub const fn text(name: &'static str, meaning: &'static str, default: &'static str) -> Param {
        Param::of(Kind::Text, name, meaning, default, 0.0, 0.0)
    }

    /// The same parameter with a default its reader computes, described by `how` (e.g. `the
    /// platform's first host`).
    pub const fn computed_default(self, how: &'static str) -> Param {
        Param {
            default: how,
            formula: true,
            ..self
        }
    }

    /// One line for listings: the meaning, then the kind and range, unit and default, e.g.
    /// `tasks per chunk (an integer >= 1; default 1)`.
    pub fn summary(&self) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(", {}", self.unit)
        };
        let default = if !self.has_default() {
            "no default".to_string()
        } else {
            format!("default {}", self.default)
        };
        format!("{} ({}{unit}; {default})", self.meaning, self.range_text())
    }

    /// Whether the parameter has a default.
    pub fn has_default(&self) -> bool {
        !self.default.is_empty()
    }

    /// Whether the default is a formula or description its reader evaluates (a number's
    /// default that is not a number is one too: tss `first` = `ceil(N/(2P))`).
    pub fn default_is_formula(&self) -> bool {
        self.formula
            || (matches!(self.kind, Kind::Integer | Kind::Real | Kind::Flag) && self.numeric_default().is_none())
    }

    /// The kind and range in words, e.g. `an integer >= 1`, for listings and errors.
    pub fn range_text(&self) -> String {
        let unbounded = self.max >= i64::MAX as f64;
        match (self.kind, unbounded) {
            (Kind::Flag, _) => "0 or 1".to_string(),
            (Kind::Bool, _) => "true or false".to_string(),
            (Kind::Text, _) => "a string".to_string(),
            (Kind::Integer, true) => format!("an integer >= {}", self.min),
            (Kind::Integer, false) => format!("an integer from {} to {}", self.min, self.max),
            (Kind::Real, true) if self.min == f64::MIN => "a number".to_string(),
            (Kind::Real, true) if self.min == f64::MIN_POSITIVE => "a number > 0".to_string(),
            (Kind::Real, true) => format!("a number >= {}", self.min),
            (Kind::Real, false) if self.min == f64::MIN_POSITIVE => format!("a number > 0 and at most {}", self.max),
            (Kind::Real, false) => format!("a number from {} to {}", self.min, self.max),
        }
    }

    /// The same parameter accepting only values above 0 (its `min` is the smallest positive
    /// normal number, which listings and errors write "> 0").
    pub const fn positive(self) -> Param {
        Param {
            min: f64::MIN_POSITIVE,
            ..self
        }
    }

    /// The same parameter with a largest accepted value.
    pub const fn at_most(self, max: f64) -> Param {
        Param { max, ..self }
    }

    /// The same parameter with a unit.
    pub const fn in_unit(self, unit: &'static str) -> Param {
        Param { unit, ..self }
    }

    /// The default as a number; `None` when it is a formula.
    pub fn numeric_default(&self) -> Option<f64> {
        self.default.parse::<f64>().ok()
    }

    /// The default of a parameter whose default is a number, for a model whose own defaults
    /// (its config's `Default`) derive from its parameters. Panics otherwise: a defect.
    pub fn default_number(&self) -> f64 {
        self.numeric_default()
            .unwrap_or_else(|| panic!("the default of parameter '{}' is not a number", self.name))
    }

    /// Checks `x` against the parameter's kind and range.
    pub fn check(&self, x: f64) -> Result<f64, ParamError> {
        let ok = match self.kind {
            Kind::Flag | Kind::Bool => x == 0.0 || x == 1.0,
            Kind::Integer => x.fract() == 0.0 && (self.min..=self.max).contains(&x),
            Kind::Real => x.is_finite() && (self.min..=self.max).contains(&x),
            Kind::Text => false,
        };
        if ok {
            return Ok(x);
        }
        Err(ParamError::new(
            self.name,
            format!("must be {}, got {x}", self.range_text()),
        ))
    }
}

/// A parameter's value was refused: which parameter, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// The parameter's name.
    pub param: String,
    /// What is wrong with its value (e.g. `must be an integer >= 1, got 0.5`).
    pub message: String,
}

impl ParamError {
    /// The error for `param`.
    pub fn new(param: &str, message: impl Into<String>) -> ParamError {
        ParamError {
            param: param.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "parameter '{}' {}", self.param, self.message)
    }
}

impl std::error::Error for ParamError {}

/// A policy name with its one-line description and parameters.
#[derive(Clone, Copy, Debug)]
pub struct PolicyInfo {
    /// Name in experiment files.
    pub name: &'static str,
    /// One line.
    pub description: &'static str,
    /// Accepted parameters.
    pub params: &'static [Param],
}

impl PolicyInfo {
    /// The parameter named `key`.
    pub fn param(&self, key: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == key)
    }
}

/// A policy's registry entry: its description and how to build it from its parameters'
/// values. `T` is the family's policy trait (`dyn ChunkPolicy`, ...).
pub struct Entry<T: ?Sized + 'static> {
    /// Name, description and parameters.
    pub info: PolicyInfo,
    /// Builds the policy; every value it reads has been checked against its range.
    pub build: fn(&Values<'_>) -> Result<Box<T>, ParamError>,
}

/// A parameter set read against one entry: each getter returns the value the experiment gives,
/// else the entry's default, checked against the parameter's kind and range.
pub struct Values<'a> {
    info: &'a PolicyInfo,
    values: &'a BTreeMap<String, f64>,
}

impl<'a> Values<'a> {
    /// The values `values` read against `info`.
    pub fn new(info: &'a PolicyInfo, values: &'a BTreeMap<String, f64>) -> Values<'a> {
        Values { info, values }
    }

    fn raw(&self, key: &str) -> Result<(Option<f64>, &'static Param), ParamError> {
        let param = self.info.param(key).ok_or_else(|| {
            ParamError::new(
                key,
                format!(
                    "is read by '{}' but not in its registry entry (internal error)",
                    self.info.name
                ),
            )
        })?;
        Ok((self.values.get(key).copied().or_else(|| param.numeric_default()), param))
    }

    /// A whole number; its default must be a number.
    pub fn integer(&self, key: &str) -> Result<u64, ParamError> {
        self.optional_integer(key)?
            .ok_or_else(|| ParamError::new(key, "has no value and no numeric default (internal error)"))
    }

    /// A whole number, or `None` when the parameter is unset and its default is a formula the
    /// policy evaluates itself.
    pub fn optional_integer(&self, key: &str) -> Result<Option<u64>, ParamError> {
        match self.raw(key)? {
            (None, _) => Ok(None),
            (Some(x), param) => param.check(x).map(|x| Some(x as u64)),
        }
    }

    /// A real number.
    pub fn real(&self, key: &str) -> Result<f64, ParamError> {
        match self.raw(key)? {
            (None, _) => Err(ParamError::new(
                key,
                "has no value and no numeric default (internal error)",
            )),
            (Some(x), param) => param.check(x),
        }
    }

    /// A flag (0 or 1).
    pub fn flag(&self, key: &str) -> Result<bool, ParamError> {
        self.real(key).map(|x| x == 1.0)
    }
}

/// The entry of `entries` named `name`, once every key of `params` is one it accepts; errors
/// name the bad name or parameter and list the valid ones (`kind` is e.g. "bag-of-tasks").
pub fn lookup_entry<'a, T: ?Sized>(
    entries: &'a [Entry<T>],
    kind: &str,
    name: &str,
    params: &BTreeMap<String, f64>,
) -> Result<&'a Entry<T>, RunError> {
    let Some(entry) = entries.iter().find(|e| e.info.name == name) else {
        let names: Vec<_> = entries.iter().map(|e| e.info.name).collect();
        return Err(RunError::Other(format!(
            "unknown {kind} scheduler '{name}' (valid: {})",
            names.join(", ")
        )));
    };
    check_keys(&entry.info, "scheduler", params)?;
    Ok(entry)
}

/// Builds the policy `name` of `entries` from `params`; errors name the scheduler and the
/// parameter.
pub fn build_entry<T: ?Sized>(
    entries: &[Entry<T>],
    kind: &str,
    name: &str,
    params: &BTreeMap<String, f64>,
) -> Result<Box<T>, RunError> {
    let entry = lookup_entry(entries, kind, name, params)?;
    (entry.build)(&Values::new(&entry.info, params)).map_err(|e| {
        RunError::Param(ParamError::new(
            &e.param,
            format!("of scheduler '{name}' {}", e.message),
        ))
    })
}

fn check_keys<V>(info: &PolicyInfo, what: &str, params: &BTreeMap<String, V>) -> Result<(), ParamError> {
    for key in params.keys() {
        if info.param(key).is_none() {
            let valid: Vec<_> = info.params.iter().map(|p| p.name).collect();
            return Err(ParamError::new(
                key,
                format!(
                    "does not apply to {what} '{}' (its parameters: {})",
                    info.name,
                    if valid.is_empty() {
                        "none".to_string()
                    } else {
                        valid.join(", ")
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// The entry of `policies` named `name`, once every key of `params` is one it accepts; errors
/// name the bad name or parameter and list the valid ones (`kind` is e.g. "program"). Only the
/// keys of `params` are read, so the values may be numbers or the run's own values.
pub fn lookup<'a, V>(
    policies: &'a [PolicyInfo],
    kind: &str,
    name: &str,
    params: &BTreeMap<String, V>,
) -> Result<&'a PolicyInfo, RunError> {
    let Some(info) = policies.iter().find(|p| p.name == name) else {
        let names: Vec<_> = policies.iter().map(|p| p.name).collect();
        return Err(RunError::Other(format!(
            "unknown {kind} '{name}' (valid: {})",
            names.join(", ")
        )));
    };
    check_keys(info, kind, params)?;
    Ok(info)
}

/// Declares a family's policy modules and its registry, in `gridsim list` order:
/// `policies!(dyn ChunkPolicy; work_queue: [ENTRY], weighted_factoring: [WF, AWF], ...)`
/// expands to `pub mod work_queue; ...`, `pub const POLICIES: &[Entry<dyn ChunkPolicy>]`
/// holding each module's named entries, and `infos()`, their descriptions. Adding a policy is its file plus one line here.
#[macro_export]
macro_rules! policies {
    ($policy:ty; $($module:ident: [$($entry:ident),+ $(,)?]),+ $(,)?) => {
        $(pub mod $module;)+
        /// Every policy of the family, each entry exported by its own file.
        pub const POLICIES: &[$crate::registry::Entry<$policy>] = &[$($($module::$entry),+),+];

        /// The entries' descriptions, for listings and parameter tables.
        pub fn infos() -> &'static [$crate::registry::PolicyInfo] {
            static INFOS: std::sync::OnceLock<Vec<$crate::registry::PolicyInfo>> = std::sync::OnceLock::new();
            INFOS.get_or_init(|| POLICIES.iter().map(|e| e.info).collect())
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_against_the_entry() {
        const INFO: PolicyInfo = PolicyInfo {
            name: "p",
            description: "",
            params: &[
                Param::integer("k", "", "1", 1.0),
                Param::real("a", "", "2", 1.0).at_most(10.0),
                Param::flag("f", "", "1"),
                Param::integer("first", "", "ceil(N/P)", 1.0),
            ],
        };
        let set = |pairs: &[(&str, f64)]| -> BTreeMap<String, f64> {
            pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
        };
        let empty = set(&[]);
        let v = Values::new(&INFO, &empty);
        assert_eq!((v.integer("k"), v.real("a"), v.flag("f")), (Ok(1), Ok(2.0), Ok(true)));
        assert_eq!(v.optional_integer("first"), Ok(None));
        let bad = set(&[("k", 0.5), ("a", 11.0), ("f", 2.0)]);
        let v = Values::new(&INFO, &bad);
        assert_eq!(
            v.integer("k").unwrap_err().to_string(),
            "parameter 'k' must be an integer >= 1, got 0.5"
        );
        assert_eq!(
            v.real("a").unwrap_err().message,
            "must be a number from 1 to 10, got 11"
        );
        assert_eq!(v.flag("f").unwrap_err().message, "must be 0 or 1, got 2");
        let positive = Param::real("p", "", "1", 0.0).positive();
        assert_eq!(positive.check(0.0).unwrap_err().message, "must be a number > 0, got 0");
        assert_eq!(positive.at_most(5.0).range_text(), "a number > 0 and at most 5");
        assert!(v.real("nope").unwrap_err().message.contains("internal error"));
    }
}

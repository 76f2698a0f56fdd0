//! `[limits]`: the resource guards of every run of an experiment. A run that exceeds its
//! event budget (`events`, counted over all the run's engines) or its wall-clock budget
//! (`wall_s`) is stopped and recorded as such: the sweep goes on, and runs.csv says which runs
//! were stopped and by what (see `sim_core::budget` for the mechanism).

use std::fmt;

use toml::Spanned;

use super::error::Reporter;
use super::spec::LimitsSpec;

/// The limits of every run of an experiment; `None` = unbounded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunLimits {
    /// Engine events per run.
    pub events: Option<u64>,
    /// Wall-clock seconds per run.
    pub wall_s: Option<f64>,
}

impl RunLimits {
    /// Whether any limit is set.
    pub fn any(&self) -> bool {
        self.events.is_some() || self.wall_s.is_some()
    }
}

impl fmt::Display for RunLimits {
    /// `events = 1000000, wall_s = 60`: what a stopped run's record keeps, so that a resumed
    /// sweep with other limits runs it again.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let events = self.events.map_or("none".to_string(), |e| e.to_string());
        let wall = self.wall_s.map_or("none".to_string(), |w| w.to_string());
        write!(f, "events = {events}, wall_s = {wall}")
    }
}

/// Largest accepted event budget and wall-clock budget (a year): beyond, a limit limits nothing.
const MAX_EVENTS: f64 = 1e18;
const MAX_WALL_S: f64 = 3.2e7;

/// Checks `[limits]`; errors name the field.
pub(super) fn resolve(rep: &mut Reporter<'_>, spec: &LimitsSpec) -> RunLimits {
    let events = spec.events.as_ref().and_then(|v| {
        let n = number(rep, v, "limits.events", 1.0, MAX_EVENTS)?;
        if n.fract() != 0.0 {
            rep.error(
                v.span(),
                "limits.events",
                format!("must be a whole number of events, not {n}"),
            );
            return None;
        }
        Some(n as u64)
    });
    let wall_s = spec
        .wall_s
        .as_ref()
        .and_then(|v| number(rep, v, "limits.wall_s", 0.001, MAX_WALL_S));
    RunLimits { events, wall_s }
}

fn number(rep: &mut Reporter<'_>, value: &Spanned<toml::Value>, field: &str, min: f64, max: f64) -> Option<f64> {
    let x = match value.get_ref() {
        toml::Value::Integer(i) => *i as f64,
        toml::Value::Float(x) => *x,
        other => {
            rep.error(
                value.span(),
                field,
                format!("must be a number, not {} `{other}`", other.type_str()),
            );
            return None;
        }
    };
    if !(min..=max).contains(&x) {
        rep.error(
            value.span(),
            field,
            format!("must be between {min} and {max:e}, not {x}"),
        );
        return None;
    }
    Some(x)
}

//! `[limits]`: the resource guards of every run of an experiment. A run that exceeds its
//! event budget (`events`, counted over all the run's engines) or its wall-clock budget
//! (`wall_s`) is stopped and recorded as such: the sweep goes on, and runs.csv says which runs
//! were stopped and by what (see `sim_core::budget` for the mechanism).
//!
//! Without `events`, a run gets [`DEFAULT_EVENTS`] (1e10): a run that would never end (a state
//! profile that toggles every 3e-9 s under a worker, `tasks = 3e12`) must still end, and be
//! recorded as stopped, rather than hold its thread, and the sweep, for ever. 1e10 events are
//! two orders of magnitude above any bundled experiment's runs and hours of one core at the
//! engine's event rates, so a run a study means to make does not meet it. `gridsim replay` takes
//! the same two limits as `--events` and `--wall-s`, with the same default.

use std::fmt;

use toml::Spanned;

use super::error::Reporter;
use super::spec::LimitsSpec;

/// The event budget of a run when none is given: see the module docs.
pub const DEFAULT_EVENTS: u64 = 10_000_000_000;

/// The limits of every run of an experiment (or of a replay).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunLimits {
    /// Engine events per run.
    pub events: u64,
    /// True when `events` is [`DEFAULT_EVENTS`] because none was given: what a stopped run's
    /// message says.
    pub default_events: bool,
    /// Wall-clock seconds per run; `None` = unbounded.
    pub wall_s: Option<f64>,
}

impl Default for RunLimits {
    /// The default event budget and no wall-clock budget.
    fn default() -> RunLimits {
        RunLimits {
            events: DEFAULT_EVENTS,
            default_events: true,
            wall_s: None,
        }
    }
}

impl fmt::Display for RunLimits {
    /// `events = 1000000, wall_s = 60`: what a stopped run's record keeps, so that a resumed
    /// sweep with other limits runs it again. The same budget given or by default is the same
    /// limit.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wall = self.wall_s.map_or("none".to_string(), |w| w.to_string());
        write!(f, "events = {}, wall_s = {wall}", self.events)
    }
}

/// Largest accepted event budget and wall-clock budget (a year): beyond, a limit limits nothing.
pub const MAX_EVENTS: f64 = 1e18;
pub const MAX_WALL_S: f64 = 3.2e7;
/// Smallest accepted wall-clock budget.
pub const MIN_WALL_S: f64 = 0.001;

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
        .and_then(|v| number(rep, v, "limits.wall_s", MIN_WALL_S, MAX_WALL_S));
    RunLimits {
        events: events.unwrap_or(DEFAULT_EVENTS),
        default_events: events.is_none(),
        wall_s,
    }
}

/// `--events N`, a whole number of events from 1 to [`MAX_EVENTS`] (written `1e6` or
/// `1000000`, as in `[limits]`).
pub fn parse_events(text: &str) -> Result<u64, String> {
    match text.trim().parse::<f64>() {
        Ok(n) if (1.0..=MAX_EVENTS).contains(&n) && n.fract() == 0.0 => Ok(n as u64),
        _ => Err(format!(
            "'{text}' is not a whole number of events from 1 to {MAX_EVENTS:e}"
        )),
    }
}

/// `--wall-s S`, seconds from [`MIN_WALL_S`] to [`MAX_WALL_S`].
pub fn parse_wall_s(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if (MIN_WALL_S..=MAX_WALL_S).contains(&s) => Ok(s),
        _ => Err(format!(
            "'{text}' is not a number of seconds from {MIN_WALL_S} to {MAX_WALL_S:e}"
        )),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_budget_given_is_the_default_budget() {
        let limits = RunLimits::default();
        assert_eq!(
            (limits.events, limits.default_events, limits.wall_s),
            (DEFAULT_EVENTS, true, None)
        );
        assert_eq!(limits.to_string(), "events = 10000000000, wall_s = none");
    }

    #[test]
    fn command_line_limits_take_what_limits_takes() {
        assert_eq!(parse_events("1e6"), Ok(1_000_000));
        assert_eq!(parse_events("1000"), Ok(1000));
        for bad in ["0", "1.5", "-3", "1e19", "many", ""] {
            assert!(parse_events(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_wall_s("0.5"), Ok(0.5));
        for bad in ["0", "-1", "1e9", "inf", "NaN", "soon"] {
            assert!(parse_wall_s(bad).is_err(), "{bad}");
        }
    }
}

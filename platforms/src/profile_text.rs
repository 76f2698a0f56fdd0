//! SimGrid's profile text format (`speed_file`, `state_file`, `bandwidth_file`, `latency_file`,
//! inline `<trace>`), parsed into [`sim_core::profile::Profile`].
//!
//! # Format
//!
//! One `date value` pair per line (dates in seconds, non-decreasing and non-negative; values
//! non-negative), separated by spaces or tabs. Blank lines and lines starting with `#` are
//! skipped, and a `#` after the two numbers starts a comment. One optional loop line:
//! `LOOPAFTER d` or the legacy `PERIODICITY p` (upper case, as SimGrid requires; not both).
//!
//! # Semantics, measured in SimGrid 3.32
//!
//! The experiments: a host `<host id="h" speed="100f" speed_file="p.txt"/>`, an actor sleeping
//! until t = 0, 1, 2, ... and printing `Host.available_speed` (python3-simgrid 3.32), and
//! separately single `exec`s spanning the change dates.
//!
//! - Before the first event the resource keeps its nominal value: with `2 0.8` / `10 0.5` the
//!   speed factor is 1 at t = 0 and t = 1, 0.8 from t = 2, 0.5 from t = 10.
//! - `LOOPAFTER d`: after the last event (date `last`) the profile waits `d` seconds and starts
//!   over **from its own time origin**, so the whole sequence repeats with period `last + d` and
//!   event `i` of cycle `k` happens at `date_i + k (last + d)`. With `2 0.8` / `10 0.5` /
//!   `LOOPAFTER 5` SimGrid switched to 0.8 at 2, 17, 32 and to 0.5 at 10, 25, 40 (period 15, not
//!   `last - first + d` = 13); an exec of 1000 flops started at 0 ended at 13.2 s and one of
//!   3000 flops at 43.6 s, which only that period explains. With `0 1.0` / `10 0.5` /
//!   `LOOPAFTER 5` the changes were at 0, 10, 15, 25, 30, 40 (period 15 again).
//! - `PERIODICITY p`: the period is `p` itself (`p = last + d`): `2 0.8` / `10 0.5` /
//!   `PERIODICITY 15` gave exactly the `LOOPAFTER 5` sequence, `PERIODICITY 12` changes at 2, 10,
//!   14, 22, 26, 34. `p < last` is rejected by SimGrid ("Profile loop conditions are not
//!   realizable!") and here.
//! - A `<trace periodicity="p">` with inline text behaves as `PERIODICITY p` when `p > 0` and does
//!   not loop when `p <= 0`; with `file=` SimGrid ignores the attribute (only the file's own loop
//!   line counts).
//!
//! So the parsed profile has `period = last + d` (or `p`): exactly the model of
//! [`Profile::nth_event`] (event `i` of cycle `k` at `events[i].0 + k * period`). SimGrid
//! accumulates the dates of later cycles by adding deltas, which can differ from
//! `date + k * period` in the last bit for non-representable dates.
//!
//! # Differences from SimGrid
//!
//! SimGrid ignores anything after the second number of a line and rejects tabs; this parser
//! accepts tabs and only a `#` comment after the numbers. SimGrid accepts negative values (and
//! ignores them); they are errors here. A loop whose next cycle starts exactly at the date of
//! the last event (`LOOPAFTER 0`, or `PERIODICITY last`, with a first event at date 0) makes
//! SimGrid apply two events at the same instant; [`Profile`] cannot represent that and it is an
//! error here.

use sim_core::profile::Profile;

/// A profile text that cannot be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ProfileParseError {
    /// 1-based line number in the profile text (0 when the error is about the whole text).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

enum Loop {
    After(f64),
    Periodicity(f64),
}

fn number(token: &str, line: usize, what: &str) -> Result<f64, ProfileParseError> {
    let bad = || ProfileParseError {
        line,
        message: format!("{what} \"{token}\" is not a number"),
    };
    let value: f64 = token.parse().map_err(|_| bad())?;
    if !value.is_finite() || token.chars().any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') {
        return Err(bad());
    }
    Ok(value)
}

/// Parses a profile in SimGrid's text format (see the module docs).
pub fn parse_profile(text: &str) -> Result<Profile, ProfileParseError> {
    parse_profile_with_periodicity(text, None)
}

/// Parses an inline `<trace>`: `periodicity` is its `periodicity` attribute, which acts as a
/// `PERIODICITY` line when positive and is ignored otherwise.
pub fn parse_profile_with_periodicity(text: &str, periodicity: Option<f64>) -> Result<Profile, ProfileParseError> {
    let mut events: Vec<(f64, f64)> = Vec::new();
    let mut looping: Option<(Loop, usize)> = periodicity.filter(|&p| p > 0.0).map(|p| (Loop::Periodicity(p), 0));
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let tokens: Vec<&str> = content.split_whitespace().collect();
        let keyword = match tokens[0] {
            "LOOPAFTER" | "PERIODICITY" => Some(tokens[0]),
            _ => None,
        };
        if let Some(keyword) = keyword {
            if tokens.len() != 2 {
                return Err(ProfileParseError {
                    line,
                    message: format!("expected `{keyword} <seconds>`"),
                });
            }
            if looping.is_some() {
                return Err(ProfileParseError {
                    line,
                    message: "only one LOOPAFTER or PERIODICITY is allowed".to_string(),
                });
            }
            let value = number(tokens[1], line, keyword)?;
            if value < 0.0 {
                return Err(ProfileParseError {
                    line,
                    message: format!("{keyword} {value} is negative"),
                });
            }
            looping = Some((
                if keyword == "LOOPAFTER" {
                    Loop::After(value)
                } else {
                    Loop::Periodicity(value)
                },
                line,
            ));
            continue;
        }
        if tokens.len() != 2 {
            return Err(ProfileParseError {
                line,
                message: format!("expected `<date> <value>`, LOOPAFTER or PERIODICITY, got \"{content}\""),
            });
        }
        let date = number(tokens[0], line, "date")?;
        let value = number(tokens[1], line, "value")?;
        if date < 0.0 {
            return Err(ProfileParseError {
                line,
                message: format!("date {date} is negative"),
            });
        }
        if value < 0.0 {
            return Err(ProfileParseError {
                line,
                message: format!("value {value} is negative"),
            });
        }
        if let Some(&(previous, _)) = events.last() {
            if date < previous {
                return Err(ProfileParseError {
                    line,
                    message: format!("dates must be sorted: {date} comes after {previous}"),
                });
            }
        }
        events.push((date, value));
    }
    let period = match (&looping, events.last(), events.first()) {
        (Some((kind, line)), Some(&(last, _)), Some(&(first, _))) => {
            let period = match *kind {
                Loop::After(d) => last + d,
                Loop::Periodicity(p) => {
                    if p < last {
                        return Err(ProfileParseError {
                            line: *line,
                            message: format!("PERIODICITY {p} is shorter than the last event date {last}"),
                        });
                    }
                    p
                }
            };
            if period <= last - first {
                return Err(ProfileParseError {
                    line: *line,
                    message: format!(
                        "the next cycle would start at the date of the last event ({last}); \
                         SimGrid then applies two events at once, which is not supported"
                    ),
                });
            }
            Some(period)
        }
        _ => None,
    };
    Profile::new(events, period).map_err(|e| ProfileParseError {
        line: 0,
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blank_lines_and_tabs() {
        let p = parse_profile("# header\n\n2\t0.8\n  10 0.5  # trailing\r\n").unwrap();
        assert_eq!(p.events(), &[(2.0, 0.8), (10.0, 0.5)]);
        assert_eq!(p.period(), None);
    }

    #[test]
    fn errors_carry_lines() {
        let e = parse_profile("1 1\n0 1\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(parse_profile("1 x\n").unwrap_err().line, 1);
        assert_eq!(parse_profile("1\n").unwrap_err().line, 1);
        assert_eq!(parse_profile("1 1\nloopafter 3\n").unwrap_err().line, 2);
        assert_eq!(parse_profile("1 1\nLOOPAFTER 3\nPERIODICITY 9\n").unwrap_err().line, 3);
        assert_eq!(parse_profile("2 1\n10 1\nPERIODICITY 5\n").unwrap_err().line, 3);
        assert_eq!(parse_profile("0 1\n10 1\nLOOPAFTER 0\n").unwrap_err().line, 3);
        assert!(parse_profile("1 inf\n").is_err());
        assert!(parse_profile("-1 1\n").is_err());
        assert!(parse_profile("1 -1\n").is_err());
    }
}

//! Scenario replay: run a list of timed point-to-point transfers and execs on a platform and
//! report when each finished. This is the gridsim side of the SimGrid agreement checks
//! (`scripts/simgrid_oracle.py` is the SimGrid side; both read the same JSON scenario and print
//! the same result schema).
//!
//! Scenario: `{"platform": path relative to the scenario file, "config": {SimGrid --cfg items},
//! "activities": [{"kind": "comm", "src", "dst", "bytes", "start"} | {"kind": "exec", "host",
//! "flops", "start"} | {"kind": "pstate", "host", "pstate", "start"} | {"kind": "off" or "on",
//! "host", "start"}], "energy_at": date}`. A `pstate` action puts the host in that power state
//! (`Engine::set_pstate`), `off` and `on` turn it off and on (`Engine::set_host_on`); each is
//! reported done at its start. With `energy_at`, the output also lists, for every host with
//! power properties, the joules it consumed from 0 to that date (SimGrid's host energy model,
//! `sim_core::energy`), and under `link_energy`, by link name as SimGrid lists links, every
//! link with a `wattage_range` property and its joules (SimGrid's link energy plugin);
//! `tests/simgrid_energy.rs` compares them with SimGrid's plugins.
//!
//! Every replay ends. It runs under an event budget and an optional wall-clock budget, the
//! `[limits]` of an experiment's runs (`--events`, 1e10 by default, and `--wall-s`: see
//! `experiment::limits`), because a scenario can make a run that would never end in practice
//! (a comm in a latency phase of 1e17 s over a link whose bandwidth profile repeats every 10 s
//! waits through 2e16 profile events). An
//! activity that does not finish is reported with `"finish": null`, `"failed": true` and an
//! `error` saying why: its completion date is not a finite number (an exec at `4e-319Gf`; the
//! engine ends such an activity at date `inf` once nothing is left at a finite date), its
//! resources can no longer let it progress, or the replay was stopped by a limit; the command
//! then fails, naming the scenario file, rather than let a missing date pass for a result.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};
use sim_core::budget::{self, Stopped};
use sim_core::platform::{HostId, LinkId, Platform};
use sim_core::{Application, Engine, Notification, SimTime, Simulation, Tag};

use crate::experiment::limits::RunLimits;
use crate::runner::watchdog::Watchdog;

/// A scenario file.
#[derive(Debug)]
pub struct Scenario {
    /// The file's name as given, for messages.
    pub source: String,
    /// Platform file, relative to the scenario's directory.
    pub platform: String,
    /// Model settings applied on top of the platform's own `<config>`.
    pub config: BTreeMap<String, String>,
    /// What to run.
    pub activities: Vec<ScenarioActivity>,
    /// The line each activity starts on, for messages.
    pub activity_lines: Vec<usize>,
    /// Free text.
    pub description: Option<String>,
    /// The date at which every powered host's energy is reported.
    pub energy_at: Option<f64>,
}

/// The file's shape before its parts are read: each part is kept as the slice of text it came
/// from, so that a message about it can name its line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioText<'a> {
    #[serde(borrow)]
    platform: &'a serde_json::value::RawValue,
    #[serde(default, borrow)]
    config: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    activities: Vec<&'a serde_json::value::RawValue>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default, borrow)]
    energy_at: Option<&'a serde_json::value::RawValue>,
    /// Expected results, read by the agreement tests, not by gridsim.
    #[serde(default)]
    #[allow(dead_code)]
    expected: Option<serde::de::IgnoredAny>,
    /// Expected results with the optimised full-route model, read by the agreement tests.
    #[serde(default)]
    #[allow(dead_code)]
    expected_optim_full: Option<serde::de::IgnoredAny>,
}

/// One timed activity of a scenario.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum ScenarioActivity {
    /// A transfer of `bytes` from `src` to `dst` starting at `start`.
    Comm {
        src: String,
        dst: String,
        bytes: f64,
        start: f64,
    },
    /// An exec of `flops` on `host` starting at `start`.
    Exec { host: String, flops: f64, start: f64 },
    /// Puts `host` in power state `pstate` at `start`.
    Pstate { host: String, pstate: f64, start: f64 },
    /// Turns `host` off at `start`.
    Off { host: String, start: f64 },
    /// Turns `host` on at `start`.
    On { host: String, start: f64 },
}

/// The outcome of one activity.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ActivityResult {
    /// Position in the scenario.
    pub index: usize,
    /// "comm" or "exec".
    pub kind: String,
    /// Start date.
    pub start: f64,
    /// Completion or failure date.
    pub finish: Option<f64>,
    /// True when it failed (host off, no route).
    pub failed: bool,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The energy a host consumed up to the scenario's `energy_at`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HostEnergy {
    /// The host's name.
    pub host: String,
    /// Joules from date 0 to `energy_at`.
    pub joules: f64,
}

/// The energy a link consumed up to the scenario's `energy_at`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LinkEnergy {
    /// The link's name.
    pub link: String,
    /// Joules from date 0 to `energy_at`.
    pub joules: f64,
}

/// All outcomes, in scenario order.
#[derive(Debug, Serialize, Deserialize)]
pub struct ReplayOutput {
    /// Outcomes, in scenario order.
    pub results: Vec<ActivityResult>,
    /// With `energy_at`: every host with power properties, in platform order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub energy: Vec<HostEnergy>,
    /// With `energy_at`: every link with a power model, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_energy: Vec<LinkEnergy>,
}

impl ReplayOutput {
    /// The activities that did not finish (`finish` is null): each has an `error` saying why.
    pub fn unfinished(&self) -> impl Iterator<Item = &ActivityResult> {
        self.results.iter().filter(|r| r.finish.is_none())
    }
}

enum Planned {
    Comm(HostId, HostId, f64),
    Exec(HostId, f64),
    Pstate(HostId, usize),
    Power(HostId, bool),
}

/// The application. It writes into results the caller owns, so that what finished before a
/// limit stopped the run (which unwinds out of it) is still reported.
struct Replay<'a> {
    plan: &'a [(f64, Planned)],
    results: &'a mut [ActivityResult],
    /// Whether each activity's start date has come.
    started: &'a mut [bool],
    energy_at: Option<f64>,
    energy: &'a mut Vec<HostEnergy>,
    link_energy: &'a mut Vec<LinkEnergy>,
}

/// Kind codes of the replay's [`Tag`]s, whose index is the activity's: its start timer, and the
/// activity itself.
const START: u8 = 0;
const ACTIVITY: u8 = 1;
/// The timer of `energy_at`.
const ENERGY: u8 = 2;

impl Application for Replay<'_> {
    fn start(&mut self, engine: &mut Engine) {
        for (i, (start, _)) in self.plan.iter().enumerate() {
            engine.sleep(*start, Tag::new(i, START).into());
        }
        if let Some(at) = self.energy_at {
            engine.sleep(at, Tag::new(0, ENERGY).into());
        }
    }

    fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
        let now = engine.now().secs();
        match note {
            Notification::Completed { tag, .. } if Tag::from(tag).kind() == ENERGY => {
                for (i, host) in engine.platform().hosts.iter().enumerate() {
                    if let Some(joules) = engine.energy_j(HostId(i as u32)) {
                        self.energy.push(HostEnergy {
                            host: host.name.clone(),
                            joules,
                        });
                    }
                }
                for (i, link) in engine.platform().links.iter().enumerate() {
                    if let Some(joules) = engine.link_energy_j(LinkId(i as u32)) {
                        self.link_energy.push(LinkEnergy {
                            link: link.name.clone(),
                            joules,
                        });
                    }
                }
                self.link_energy.sort_by(|a, b| a.link.cmp(&b.link));
            }
            Notification::Completed { tag, .. } if Tag::from(tag).kind() == START => {
                let i = Tag::from(tag).index();
                self.started[i] = true;
                match self.plan[i].1 {
                    Planned::Exec(host, flops) => {
                        engine.start_exec(host, flops, Tag::new(i, ACTIVITY).into());
                    }
                    Planned::Comm(src, dst, bytes) => {
                        if let Err(err) = engine.start_comm(src, dst, bytes, Tag::new(i, ACTIVITY).into()) {
                            self.results[i].finish = Some(now);
                            self.results[i].failed = true;
                            self.results[i].error = Some(err.to_string());
                        }
                    }
                    Planned::Pstate(host, pstate) => {
                        // The pstate was checked against the host when the plan was made.
                        if let Err(err) = engine.set_pstate(host, pstate) {
                            self.results[i].failed = true;
                            self.results[i].error = Some(err.to_string());
                        }
                        self.results[i].finish = Some(now);
                    }
                    Planned::Power(host, on) => {
                        engine.set_host_on(host, on);
                        self.results[i].finish = Some(now);
                    }
                }
            }
            Notification::Completed { tag, .. } => self.results[Tag::from(tag).index()].finish = Some(now),
            Notification::Failed { tag, cause, .. } => {
                let result = &mut self.results[Tag::from(tag).index()];
                result.finish = Some(now);
                result.failed = true;
                result.error = Some(format!("{cause:?}"));
            }
        }
    }
}

/// Parses scenario text; `source` names the file in messages, which read
/// `FILE:LINE: activity I: field F: ...`. Does no I/O.
pub fn parse(source: &str, text: &str) -> Result<Scenario> {
    let raw: ScenarioText<'_> = serde_json::from_str(text).map_err(|e| {
        let message = strip_position(&e);
        // A value of the wrong type: name the key it is under.
        let field = if message.starts_with("invalid type")
            || message.starts_with("invalid value")
            || message.starts_with("number out of range")
        {
            key_before(text, offset_of(text, e.line(), e.column()))
        } else {
            None
        };
        match field {
            Some(key) => anyhow!(
                "{source}:{}: not a valid scenario: field {key}: {}",
                e.line(),
                plain_types(&message)
            ),
            None => anyhow!("{source}:{}: not a valid scenario: {}", e.line(), plain_types(&message)),
        }
    })?;
    let line_of = |raw: &serde_json::value::RawValue| line_of(text, raw.get());
    let platform: String = field_value(raw.platform, "platform", &format!("{source}:{}", line_of(raw.platform)))?;
    let mut config = BTreeMap::new();
    if let Some(cfg) = raw.config {
        let items: BTreeMap<String, &serde_json::value::RawValue> =
            field_value(cfg, "config", &format!("{source}:{}", line_of(cfg)))?;
        for (key, value) in items {
            let line = line_of(value);
            let value: String = field_value(value, &key, &format!("{source}:{line}: config"))?;
            platforms::check_setting(&key, &value).map_err(|why| anyhow!("{source}:{line}: config: {why}"))?;
            config.insert(key, value);
        }
    }
    let energy_at = match raw.energy_at {
        Some(v) => {
            let at: f64 = field_value(v, "energy_at", &format!("{source}:{}", line_of(v)))?;
            if !(at.is_finite() && at >= 0.0) {
                return Err(anyhow!(
                    "{source}:{}: field energy_at: {at} is not a finite date >= 0",
                    line_of(v)
                ));
            }
            Some(at)
        }
        None => None,
    };
    let mut activities = Vec::with_capacity(raw.activities.len());
    let mut activity_lines = Vec::with_capacity(raw.activities.len());
    for (index, item) in raw.activities.iter().enumerate() {
        let line = line_of(item);
        activities.push(activity(source, text, index, line, item)?);
        activity_lines.push(line);
    }
    Ok(Scenario {
        source: source.to_string(),
        platform,
        config,
        activities,
        activity_lines,
        description: raw.description,
        energy_at,
    })
}

/// Reads one activity field by field, so that every message names its field.
fn activity(
    source: &str,
    text: &str,
    index: usize,
    line: usize,
    item: &serde_json::value::RawValue,
) -> Result<ScenarioActivity> {
    let at = |line: usize| format!("{source}:{line}: activity {index}");
    let fields: BTreeMap<String, &serde_json::value::RawValue> = serde_json::from_str(item.get()).map_err(|e| {
        anyhow!(
            "{}: {}",
            at(line - 1 + e.line().max(1)),
            plain_types(&strip_position(&e))
        )
    })?;
    let get = |name: &str| -> Result<&serde_json::value::RawValue> {
        fields
            .get(name)
            .copied()
            .ok_or_else(|| anyhow!("{}: missing field `{name}`", at(line)))
    };
    let string = |name: &str| -> Result<String> {
        let raw = get(name)?;
        field_value(raw, name, &at(line_of(text, raw.get())))
    };
    let number = |name: &str| -> Result<f64> {
        let raw = get(name)?;
        field_value(raw, name, &at(line_of(text, raw.get())))
    };
    let kind = string("kind")?;
    let allowed: &[&str] = match kind.as_str() {
        "comm" => &["kind", "src", "dst", "bytes", "start"],
        "exec" => &["kind", "host", "flops", "start"],
        "pstate" => &["kind", "host", "pstate", "start"],
        "off" | "on" => &["kind", "host", "start"],
        other => {
            return Err(anyhow!(
                "{}: field kind: unknown variant `{other}`, expected `comm`, `exec`, `pstate`, `off` or `on`",
                at(line_of(text, get("kind")?.get()))
            ))
        }
    };
    if let Some((name, raw)) = fields.iter().find(|(name, _)| !allowed.contains(&name.as_str())) {
        return Err(anyhow!(
            "{}: unknown field `{name}`, expected one of {}",
            at(line_of(text, raw.get())),
            allowed.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(match kind.as_str() {
        "comm" => ScenarioActivity::Comm {
            src: string("src")?,
            dst: string("dst")?,
            bytes: number("bytes")?,
            start: number("start")?,
        },
        "exec" => ScenarioActivity::Exec {
            host: string("host")?,
            flops: number("flops")?,
            start: number("start")?,
        },
        "pstate" => ScenarioActivity::Pstate {
            host: string("host")?,
            pstate: number("pstate")?,
            start: number("start")?,
        },
        "off" => ScenarioActivity::Off {
            host: string("host")?,
            start: number("start")?,
        },
        _ => ScenarioActivity::On {
            host: string("host")?,
            start: number("start")?,
        },
    })
}

/// A field's value as `T`; the message names the field at `at` (`FILE:LINE`, with the activity).
fn field_value<'a, T: Deserialize<'a>>(raw: &'a serde_json::value::RawValue, name: &str, at: &str) -> Result<T> {
    serde_json::from_str(raw.get()).map_err(|e| anyhow!("{at}: field {name}: {}", plain_types(&strip_position(&e))))
}

/// serde_json's message without its " at line L column C" suffix (the line leads the message).
fn strip_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The 1-based line where `part`, a slice of `text`, starts.
fn line_of(text: &str, part: &str) -> usize {
    // The slice borrows from `text`, so its address gives its place in the file.
    let offset = (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The byte offset of a 1-based line and column (serde_json's error position).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    (start + column).min(text.len())
}

/// The key of the last `"key":` before `offset`: the member whose value an error is about.
fn key_before(text: &str, offset: usize) -> Option<String> {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let mut search = before;
    loop {
        let colon = search.rfind(':')?;
        let head = search[..colon].trim_end();
        if let Some(head) = head.strip_suffix('"') {
            let open = head.rfind('"')?;
            return Some(head[open + 1..].to_string());
        }
        search = &search[..colon];
    }
}

/// serde's messages name Rust types (`expected f64`); a user reads "a number" (and JSON calls
/// a map an object).
fn plain_types(message: &str) -> String {
    platforms::error::plain_types(message).replace("expected a table", "expected an object")
}

/// Reads a scenario file and its platform.
pub fn load(path: &Path) -> Result<(Scenario, Platform)> {
    let text = platforms::read_text_file(path).map_err(anyhow::Error::msg)?;
    let scenario = parse(&path.display().to_string(), &text)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let platform_path = dir.join(&scenario.platform);
    let mut platform = platforms::load_platform(&platform_path).map_err(|e| {
        anyhow!(
            "{}:{}: field platform: '{}': {e}",
            path.display(),
            key_line(&text, "platform"),
            scenario.platform
        )
    })?;
    for (key, value) in &scenario.config {
        platform.config.insert(key.clone(), value.clone());
    }
    // Settings that only make sense together, or with the platform (the Constant model and a
    // platform with links), once the scenario's are laid over the platform's.
    if !scenario.config.is_empty() {
        sim_core::NetworkParams::from_config(&platform.config)
            .and_then(|params| params.check_platform(&platform))
            .map_err(|e| anyhow!("{}:{}: config: {e}", path.display(), key_line(&text, "config")))?;
    }
    Ok((scenario, platform))
}

/// The line of the top-level key `"key"` (the first occurrence), 1 when not found.
fn key_line(text: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    text.find(&quoted).map_or(1, |at| 1 + text[..at].matches('\n').count())
}

/// Runs a scenario in gridsim under the default limits (see the module docs).
pub fn run(scenario: &Scenario, platform: Platform) -> Result<ReplayOutput> {
    run_with_limits(scenario, platform, RunLimits::default())
}

/// Runs a scenario in gridsim under `limits`: the event budget, and the wall-clock budget if
/// any (a thread raises the stop flag when it is spent; the engine reads no clock).
pub fn run_with_limits(scenario: &Scenario, platform: Platform, limits: RunLimits) -> Result<ReplayOutput> {
    let mut plan = Vec::new();
    let mut results = Vec::new();
    for (index, act) in scenario.activities.iter().enumerate() {
        let at = format!(
            "{}:{}: activity {index}",
            scenario.source,
            scenario.activity_lines.get(index).copied().unwrap_or(0)
        );
        let host = |field: &str, name: &str| {
            platform.host_id(name).ok_or_else(|| {
                let first: Vec<&str> = platform.hosts.iter().take(5).map(|h| h.name.as_str()).collect();
                anyhow!(
                    "{at}: field {field}: unknown host '{name}': platform '{}' has no such host (its first hosts: {})",
                    scenario.platform,
                    first.join(", ")
                )
            })
        };
        // A negative amount would "complete" at once and report success: refuse it.
        let amount = |field: &str, value: f64| {
            if value.is_finite() && value >= 0.0 {
                Ok(value)
            } else {
                Err(anyhow!("{at}: field {field}: {value} is not a finite number >= 0"))
            }
        };
        let (kind, start, planned) = match act {
            ScenarioActivity::Comm { src, dst, bytes, start } => (
                "comm",
                *start,
                Planned::Comm(host("src", src)?, host("dst", dst)?, amount("bytes", *bytes)?),
            ),
            ScenarioActivity::Exec { host: h, flops, start } => (
                "exec",
                *start,
                Planned::Exec(host("host", h)?, amount("flops", *flops)?),
            ),
            ScenarioActivity::Pstate { host: h, pstate, start } => {
                let id = host("host", h)?;
                let count = platform.host(id).pstate_count();
                if !(pstate.fract() == 0.0 && *pstate >= 0.0 && *pstate < count as f64) {
                    return Err(anyhow!(
                        "{at}: field pstate: {pstate} is not a pstate of host '{h}', which has {count} (0 to {})",
                        count - 1
                    ));
                }
                ("pstate", *start, Planned::Pstate(id, *pstate as usize))
            }
            ScenarioActivity::Off { host: h, start } => ("off", *start, Planned::Power(host("host", h)?, false)),
            ScenarioActivity::On { host: h, start } => ("on", *start, Planned::Power(host("host", h)?, true)),
        };
        amount("start", start)?;
        plan.push((start, planned));
        results.push(ActivityResult {
            index,
            kind: kind.into(),
            start,
            finish: None,
            failed: false,
            error: None,
        });
    }
    let engine = Engine::new(Arc::new(platform)).map_err(|e| anyhow!("{e}"))?;
    let mut started = vec![false; plan.len()];
    let mut energy = Vec::new();
    let mut link_energy = Vec::new();
    let watchdog = Watchdog::default();
    let (finished, watch_stop) = std::sync::mpsc::channel::<()>();
    let outcome = std::thread::scope(|scope| {
        let watchdog = &watchdog;
        if limits.wall_s.is_some() {
            scope.spawn(move || watchdog.serve(&watch_stop));
        }
        let guards = budget::Limits {
            max_events: Some(limits.events),
            stop: limits.wall_s.map(|w| watchdog.watch(Some(Duration::from_secs_f64(w)))),
        };
        let app = Replay {
            plan: &plan,
            results: &mut results,
            started: &mut started,
            energy_at: scenario.energy_at,
            energy: &mut energy,
            link_energy: &mut link_energy,
        };
        let outcome = budget::run_limited(guards, || {
            Simulation::new(engine, app).run_until(SimTime::INFINITY);
        });
        drop(finished);
        outcome
    });
    for (r, started) in results.iter_mut().zip(started) {
        let why = match (&outcome, r.finish) {
            // A date that is not a finite number (the engine ends such an activity at `inf`
            // once nothing is left at a finite date) is no date: reported as none, failed.
            (_, Some(date)) if !date.is_finite() => {
                "never completes: its completion date is not a finite number".into()
            }
            (_, Some(_)) => continue,
            // The run ended because nothing could happen any more: an activity still
            // unfinished then can never progress (e.g. an exec on a host whose speed dropped
            // to 0 for good), as the SimGrid oracle reports an activity blocked for ever.
            (Ok(()), None) => "never completes: its resources can no longer let it progress".into(),
            (Err(stopped), None) => {
                let when = if started { "" } else { " before it started" };
                format!("{}{when}", stopped_text(stopped, limits))
            }
        };
        r.finish = None;
        r.failed = true;
        r.error = Some(why);
    }
    Ok(ReplayOutput {
        results,
        energy,
        link_energy,
    })
}

/// Why a limit stopped the replay, naming the option that sets it.
fn stopped_text(stopped: &Stopped, limits: RunLimits) -> String {
    match stopped {
        Stopped::Events { budget, events } if limits.default_events => {
            format!("stopped by the default event budget (--events {budget}) after {events} events")
        }
        Stopped::Events { budget, events } => format!("stopped by --events {budget} after {events} events"),
        Stopped::Flag { events } => format!(
            "stopped by --wall-s {} after {events} events",
            limits.wall_s.unwrap_or(f64::NAN)
        ),
    }
}

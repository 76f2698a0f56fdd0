//! Scenario replay: run a list of timed point-to-point transfers and execs on a platform and
//! report when each finished. This is the gridsim side of the SimGrid agreement checks
//! (`scripts/simgrid_oracle.py` is the SimGrid side; both read the same JSON scenario and print
//! the same result schema).
//!
//! Scenario: `{"platform": path relative to the scenario file, "config": {SimGrid --cfg items},
//! "activities": [{"kind": "comm", "src", "dst", "bytes", "start"} | {"kind": "exec", "host",
//! "flops", "start"}]}`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};
use serde::{Deserialize, Serialize};
use sim_core::platform::{HostId, Platform};
use sim_core::{Application, Engine, Notification, SimTime, Simulation};

/// A scenario file.
#[derive(Debug, Deserialize)]
pub struct Scenario {
    /// Platform file, relative to the scenario's directory.
    pub platform: String,
    /// Model settings applied on top of the platform's own `<config>`.
    #[serde(default)]
    pub config: BTreeMap<String, String>,
    /// What to run.
    pub activities: Vec<ScenarioActivity>,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
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

/// All outcomes, in scenario order.
#[derive(Debug, Serialize, Deserialize)]
pub struct ReplayOutput {
    /// Outcomes, in scenario order.
    pub results: Vec<ActivityResult>,
}

enum Planned {
    Comm(HostId, HostId, f64),
    Exec(HostId, f64),
}

struct Replay {
    plan: Vec<(f64, Planned)>,
    results: Vec<ActivityResult>,
}

/// Tags: `2i` is activity i's start timer, `2i + 1` the activity itself.
impl Application for Replay {
    fn start(&mut self, engine: &mut Engine) {
        for (i, (start, _)) in self.plan.iter().enumerate() {
            engine.sleep(*start, 2 * i as u64);
        }
    }

    fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
        let now = engine.now().secs();
        match note {
            Notification::Completed { tag, .. } if tag % 2 == 0 => {
                let i = (tag / 2) as usize;
                match self.plan[i].1 {
                    Planned::Exec(host, flops) => {
                        engine.start_exec(host, flops, tag + 1);
                    }
                    Planned::Comm(src, dst, bytes) => {
                        if let Err(err) = engine.start_comm(src, dst, bytes, tag + 1) {
                            self.results[i].finish = Some(now);
                            self.results[i].failed = true;
                            self.results[i].error = Some(err.to_string());
                        }
                    }
                }
            }
            Notification::Completed { tag, .. } => self.results[(tag / 2) as usize].finish = Some(now),
            Notification::Failed { tag, cause, .. } => {
                let result = &mut self.results[(tag / 2) as usize];
                result.finish = Some(now);
                result.failed = true;
                result.error = Some(format!("{cause:?}"));
            }
        }
    }
}

/// Reads a scenario file and its platform.
pub fn load(path: &Path) -> Result<(Scenario, Platform)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let scenario: Scenario =
        serde_json::from_str(&text).with_context(|| format!("{}: not a valid scenario", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let platform_path = dir.join(&scenario.platform);
    let mut platform = platforms::load_platform(&platform_path)
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("{}: platform '{}'", path.display(), scenario.platform))?;
    for (key, value) in &scenario.config {
        platform.config.insert(key.clone(), value.clone());
    }
    Ok((scenario, platform))
}

/// Runs a scenario in gridsim.
pub fn run(scenario: &Scenario, platform: Platform) -> Result<ReplayOutput> {
    let mut plan = Vec::new();
    let mut results = Vec::new();
    for (index, act) in scenario.activities.iter().enumerate() {
        let host = |field: &str, name: &str| {
            platform
                .host_id(name)
                .ok_or_else(|| anyhow!("activity {index}: field {field}: unknown host '{name}'"))
        };
        // A negative amount would "complete" at once and report success: refuse it.
        let amount = |field: &str, value: f64| {
            if value.is_finite() && value >= 0.0 {
                Ok(value)
            } else {
                Err(anyhow!(
                    "activity {index}: field {field}: {value} is not a finite number >= 0"
                ))
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
    let mut sim = Simulation::new(engine, Replay { plan, results });
    sim.run_until(SimTime::INFINITY);
    // The run ends when nothing can happen any more: an activity still unfinished then can
    // never progress (e.g. an exec on a host whose speed dropped to 0 for good). Reported as
    // the SimGrid oracle reports an activity blocked for ever: no date, failed.
    let mut results = sim.app.results;
    for r in results.iter_mut().filter(|r| r.finish.is_none() && !r.failed) {
        r.failed = true;
        r.error = Some("never completes: its resources can no longer let it progress".into());
    }
    Ok(ReplayOutput { results })
}

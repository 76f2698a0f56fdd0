//! The skeleton families for experiment files: `family = "amoget"` (Pipeline/Deal mappings,
//! the CTMC of the AMoGeT paper and the same application simulated in the engine) and
//! `family = "alt"` (remote skeleton invocations of Alt, Bischof & Gorlatch: predicted by
//! eq. 1, simulated in the engine).
//!
//! **amoget.** Processors `P1..Pn` are the platform's first `processors` hosts, in platform
//! order (`P1` is the reference processor). With `latency_s` the processors' network is the
//! homogeneous one of the paper's experiments (§5.3): one link of that latency (and
//! `bandwidth_bytes_per_s`, by default so large that a 1-byte item takes the latency) between
//! every two processors, `network_model` raw by default, so a 1-byte message takes exactly the
//! latency, as NWS's `la` does; the platform then only supplies the hosts' speeds. Without
//! `latency_s` the platform's own routes and network model are used. `availability` scales the
//! processors' speeds (a constant speed profile: the paper's "twice as heavily loaded" is 0.5).
//! The AMoGeT rates are then *measured* as §4.3 describes: `cpu_j` = host speed, `av_j` = its
//! availability at time 0, `la_ij` = the simulated time of a `probe_bytes` message alone
//! between the two hosts. Each run solves the CTMC of its mapping and simulates the same
//! application ([`crate::skeleton::pipeline_sim`]) in `mode` `model` (the CTMC's
//! assumptions: it must agree within the interval) or `realistic` (transfers on the links,
//! computations on the CPUs). Schedulers: `fixed` runs the `mapping` it is given; `amoget`
//! solves the model of every candidate (a `;`-separated list in `candidates`, or every mapping
//! of the `deal_workers` shape up to relabelling of interchangeable processors), keeps the best
//! throughput (§4.6) and simulates it. A mapping search in parallel is a sweep over `mapping`.
//! `amoget-adaptive` runs AMoGeT during the run ([`crate::skeleton::adaptive`], realistic
//! mode only): the sensors sample `av_j` and `la_ij` every `sample_period_s`, each series feeds
//! an NWS battery (`forecasters`, selected by `forecast_metric`), and every `remap_period_s`
//! (0: only at date 0, i.e. static AMoGeT on the same code path) the candidates' CTMCs are
//! solved on the forecasts and the pipeline is drained and moved to a better mapping. For any
//! scheduler, `availability_steps` and `latency_steps` make the platform vary over time (speed
//! and latency profiles). The adaptive runs report per-phase throughput (before and after
//! `phase_split_s`, by default the first change date) and tables `timeline`, `phases`,
//! `remaps` and `decisions`.
//!
//! **alt.** With `wan_latency_s` the platform is built here: a client and one server with
//! `server_cores` cores, joined by one WAN link (the paper's §4 setting; speeds and link are
//! parameters, see `experiments/skeletons.toml`). Otherwise the experiment's platform is used:
//! the client is host `client` (default: the first host), the servers are `servers` (default:
//! every other host). Every server registers reduce, scan and divide-and-conquer with `threads`
//! threads; registration measures `t_s`, `t_w` and speed-ups in the engine; `min-predicted`
//! picks the server of least eq. 1 time, `fixed` uses `server`; the call is then simulated
//! ([`crate::skeleton::alt_sim`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::skeleton::adaptive::{self, rate_in, simulate_adaptive, AdaptiveSim, MonitorConfig};
use crate::skeleton::alt::{DcCosts, PerfFunction};
use crate::skeleton::alt_sim::{run_scenario, AltScenario, Calibration, Choice, ServerSpec};
use crate::skeleton::amoget::{self, amoget_rates, Application, EvaluateOptions, RateConstants};
use crate::skeleton::mapping::{enumerate_mappings, rank, Mapping, MappingEvaluation};
use crate::skeleton::measure::mesh_platform;
use crate::skeleton::nws::{default_battery, ErrorMetric, Forecaster};
use crate::skeleton::pipeline_sim::{measure_grid, simulate, PipelineSim, ServiceDist, SimMode};
use sim_core::platform::{Host, HostId, Link, Platform};
use sim_core::profile::Profile;

use crate::family::{
    declared_table, Family, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec, TableInfo, UsedParams,
};
use crate::registry::{Param, PolicyInfo};

// ----- parameter helpers ------------------------------------------------------------------------

fn number(spec: &ParamReader, name: &str, default: Option<f64>) -> Result<f64, String> {
    match spec.params.get(name) {
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| format!("parameter '{name}' must be a non-negative number, got '{v}'")),
        None => {
            let x = default.ok_or_else(|| format!("parameter '{name}' is required"))?;
            spec.default_used(name, ParamValue::Float(x));
            Ok(x)
        }
    }
}

/// Largest `n` of the alt family: its task graph holds one operator application per element.
const MAX_ALT_ELEMENTS: u64 = 10_000_000;
/// Largest `max_candidates` of the amoget family (each candidate is a CTMC to solve).
const MAX_CANDIDATES: u64 = 1_000_000;
/// Most rows of the amoget-adaptive `timeline` table.
const MAX_TIMELINE_WINDOWS: u64 = 1_000_000;

fn count(spec: &ParamReader, name: &str, default: Option<u64>) -> Result<u64, String> {
    match spec.params.get(name) {
        Some(v) => v
            .as_u64()
            .ok_or_else(|| format!("parameter '{name}' must be a non-negative integer, got '{v}'")),
        None => {
            let n = default.ok_or_else(|| format!("parameter '{name}' is required"))?;
            spec.default_used(name, int(n));
            Ok(n)
        }
    }
}

fn text(spec: &RunSpec, name: &str) -> Result<Option<String>, String> {
    match spec.params.get(name) {
        Some(ParamValue::Str(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!("parameter '{name}' must be a string, got '{v}'")),
        None => Ok(None),
    }
}

/// A string parameter, or `default` (noted as the value the run used).
fn text_or(spec: &ParamReader, name: &str, default: &str) -> Result<String, String> {
    match text(spec, name)? {
        Some(s) => Ok(s),
        None => {
            spec.default_used(name, ParamValue::Str(default.to_string()));
            Ok(default.to_string())
        }
    }
}

fn flag(spec: &ParamReader, name: &str) -> Result<bool, String> {
    match spec.params.get(name) {
        Some(ParamValue::Bool(b)) => Ok(*b),
        Some(v) => Err(format!("parameter '{name}' must be true or false, got '{v}'")),
        None => {
            spec.default_used(name, ParamValue::Bool(false));
            Ok(false)
        }
    }
}

/// A comma-separated list of non-negative numbers, e.g. "10, 30, 10".
fn numbers(name: &str, s: &str) -> Result<Vec<f64>, String> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    format!(
                        "parameter '{name}': '{}' is not a non-negative number (in \"{s}\")",
                        x.trim()
                    )
                })
        })
        .collect()
}

fn only_for(spec: &RunSpec, names: &[&str], scheduler: &str) -> Result<(), String> {
    match names.iter().find(|n| spec.params.contains_key(**n)) {
        Some(n) => Err(format!(
            "parameter '{n}' belongs to scheduler '{scheduler}', not '{}'",
            spec.scheduler
        )),
        None => Ok(()),
    }
}

fn int(x: u64) -> ParamValue {
    ParamValue::Int(x.min(i64::MAX as u64) as i64)
}

// ----- amoget -----------------------------------------------------------------------------------

/// The AMoGeT Pipeline/Deal family.
pub struct Amoget;

const AMOGET_PARAMS: &[Param] = &[
    Param::described(
        "stage_times_s",
        "tr_s: seconds per item of each stage on P1, e.g. \"10,10,10,10\"",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "data_sizes",
        "ds_s: bytes sent to each stage and the output (Ns+1 values; default all 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "processors",
        "hosts used as processors P1..Pn, in platform order (default: all)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "latency_s",
        "if set: one link of this latency between every two processors (paper §5.3)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "bandwidth_bytes_per_s",
        "bandwidth of those links (default 1e12)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "network_model",
        "network model of those links: raw (default), CM02, LV08",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "availability",
        "av_j of P1, P2, ...: speed factors, e.g. \"1,0.5\" (default all 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "mode",
        "model (PEPA rates, exponential sleeps; default) or realistic (links and CPUs)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "service",
        "exponential (default) or deterministic service times",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "items",
        "inputs measured after the warm-up (default 20000)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "warmup_items",
        "inputs before the measurement window (default items/20)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "batches",
        "batches of the batch-means interval (default 20)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "probe_bytes",
        "size of the latency probes (NWS's 1-byte message; default 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "mapping",
        "fixed: the mapping, e.g. \"[1, (1,(2,4),3), 1]\" (processors from 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "candidates",
        "amoget: mappings to compare, separated by ';' (default: enumerate)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "deal_workers",
        "amoget: workers per stage for the enumeration, 0 = plain (default all 0)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "input",
        "amoget: processor of the input data (default 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "output",
        "amoget: processor of the output data (default 1)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "max_candidates",
        "amoget: enumeration limit (default 5000)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "availability_steps",
        "speed changes \"P@DATE=AV; ...\", e.g. \"3@1000=0.2\": P3 at 0.2 from 1000 s",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "latency_steps",
        "latency changes of every link \"DATE=SECONDS; ...\", e.g. \"500=20\"",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "remap_period_s",
        "amoget-adaptive: seconds between re-mapping decisions, 0 = never (default 3600)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "sample_period_s",
        "amoget-adaptive: seconds between two NWS samples (default 10)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "forecasters",
        "amoget-adaptive: NWS battery, \"default\" or names like \"last_value; sw_mean(10)\"",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "forecast_metric",
        "amoget-adaptive: error selecting the forecaster, mse (default) or mae",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "min_gain",
        "amoget-adaptive: relative CTMC gain needed to re-map (default 0)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "timeline_window_s",
        "amoget-adaptive: window of the timeline table, seconds (default 100)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "phase_split_s",
        "amoget-adaptive: date splitting the two phases (default: first change date)",
        Param::NO_DEFAULT,
    ),
];

const ADAPTIVE_ONLY: &[&str] = &[
    "remap_period_s",
    "sample_period_s",
    "forecasters",
    "forecast_metric",
    "min_gain",
    "timeline_window_s",
    "phase_split_s",
];

const AMOGET_SCHEDULERS: &[PolicyInfo] = &[
    PolicyInfo {
        name: "fixed",
        description: "the given mapping",
        params: &[],
    },
    PolicyInfo {
        name: "amoget",
        description: "best CTMC throughput among the candidate mappings (AMoGeT §4.6)",
        params: &[],
    },
    PolicyInfo {
        name: "amoget-adaptive",
        description: "AMoGeT on NWS forecasts during the run, re-mapping every remap_period_s",
        params: &[],
    },
];

struct AmogetRun {
    platform: Arc<Platform>,
    hosts: Vec<HostId>,
    app: Application,
    mode: SimMode,
    service: ServiceDist,
    items: u64,
    warmup: u64,
    batches: usize,
    probe_bytes: f64,
    adaptive: Option<AdaptiveParams>,
}

struct AdaptiveParams {
    remap_period_s: Option<f64>,
    sample_period_s: f64,
    battery: Vec<Forecaster>,
    metric: ErrorMetric,
    min_gain: f64,
    timeline_window_s: f64,
    phase_split_s: Option<f64>,
}

/// `"P@DATE=VALUE; ..."` → per processor (0-based), `(date, value)` in date order.
fn availability_steps(s: &str, np: usize) -> Result<Vec<Vec<(f64, f64)>>, String> {
    let mut out = vec![Vec::new(); np];
    for entry in s.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let bad = || format!("parameter 'availability_steps': '{entry}' is not P@DATE=AV (e.g. 3@1000=0.2)");
        let (p, rest) = entry.split_once('@').ok_or_else(bad)?;
        let (date, av) = rest.split_once('=').ok_or_else(bad)?;
        let p: usize = p.trim().trim_start_matches('P').parse().map_err(|_| bad())?;
        let date: f64 = date.trim().parse().map_err(|_| bad())?;
        let av: f64 = av.trim().parse().map_err(|_| bad())?;
        if p == 0 || p > np {
            return Err(format!(
                "parameter 'availability_steps': processor {p} is not in 1..={np}"
            ));
        }
        if !(date.is_finite() && date >= 0.0 && av.is_finite() && av > 0.0 && av <= 1.0) {
            return Err(format!(
                "parameter 'availability_steps': '{entry}' needs a date >= 0 and an availability in (0, 1]"
            ));
        }
        out[p - 1].push((date, av));
    }
    for v in &mut out {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Ok(out)
}

/// `"DATE=SECONDS; ..."` → `(date, latency)` in date order.
fn latency_steps(s: &str) -> Result<Vec<(f64, f64)>, String> {
    let mut out = Vec::new();
    for entry in s.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let bad = || format!("parameter 'latency_steps': '{entry}' is not DATE=SECONDS with both >= 0 (e.g. 500=20)");
        let (date, lat) = entry.split_once('=').ok_or_else(bad)?;
        let date: f64 = date.trim().parse().map_err(|_| bad())?;
        let lat: f64 = lat.trim().parse().map_err(|_| bad())?;
        if !(date.is_finite() && date >= 0.0 && lat.is_finite() && lat >= 0.0) {
            return Err(bad());
        }
        out.push((date, lat));
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(out)
}

/// A forecaster from its [`Forecaster::name`], e.g. `sw_median(10)` or `trimmed_mean(10,0.2)`.
fn forecaster(name: &str) -> Result<Forecaster, String> {
    let bad = || {
        format!(
            "parameter 'forecasters': unknown forecaster '{name}' (valid: last_value, running_mean, sw_mean(W), \
             sw_median(W), trimmed_mean(W,ALPHA), exp_smooth(GAIN))"
        )
    };
    let name = name.trim();
    match name {
        "last_value" => return Ok(Forecaster::LastValue),
        "running_mean" => return Ok(Forecaster::RunningMean),
        _ => {}
    }
    let (head, args) = name.strip_suffix(')').and_then(|n| n.split_once('(')).ok_or_else(bad)?;
    let args: Vec<&str> = args.split(',').map(str::trim).collect();
    let window = |a: &str| a.parse::<usize>().ok().filter(|&w| w > 0).ok_or_else(bad);
    let real = |a: &str| a.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(bad);
    match (head.trim(), args.as_slice()) {
        ("sw_mean", [w]) => Ok(Forecaster::SlidingMean(window(w)?)),
        ("sw_median", [w]) => Ok(Forecaster::SlidingMedian(window(w)?)),
        ("trimmed_mean", [w, a]) => {
            let alpha = real(a)?;
            if !(0.0..0.5).contains(&alpha) {
                return Err(format!(
                    "parameter 'forecasters': alpha of '{name}' must be in [0, 0.5)"
                ));
            }
            Ok(Forecaster::TrimmedMean {
                window: window(w)?,
                alpha,
            })
        }
        ("exp_smooth", [g]) => {
            let g = real(g)?;
            if !(g > 0.0 && g <= 1.0) {
                return Err(format!(
                    "parameter 'forecasters': the gain of '{name}' must be in (0, 1]"
                ));
            }
            Ok(Forecaster::ExponentialSmoothing(g))
        }
        _ => Err(bad()),
    }
}

fn adaptive_params(spec: &ParamReader, first_change_s: Option<f64>) -> Result<AdaptiveParams, String> {
    let remap = number(spec, "remap_period_s", Some(3600.0))?;
    let sample = number(spec, "sample_period_s", Some(10.0))?;
    if sample <= 0.0 {
        return Err("parameter 'sample_period_s' must be positive".into());
    }
    let ratio = remap / sample;
    if remap > 0.0 && (ratio < 1.0 || (ratio - ratio.round()).abs() > 1e-9 * ratio) {
        return Err(format!(
            "parameter 'remap_period_s' ({remap}) must be 0 or a multiple of 'sample_period_s' ({sample})"
        ));
    }
    let battery = match text_or(spec, "forecasters", "default")?.as_str() {
        "default" => default_battery(),
        list => list
            .split(';')
            .filter(|s| !s.trim().is_empty())
            .map(forecaster)
            .collect::<Result<Vec<_>, _>>()?,
    };
    if battery.is_empty() {
        return Err("parameter 'forecasters' lists no forecaster".into());
    }
    let metric = match text_or(spec, "forecast_metric", "mse")?.as_str() {
        "mse" => ErrorMetric::Mse,
        "mae" => ErrorMetric::Mae,
        other => return Err(format!("parameter 'forecast_metric' must be mse or mae, got '{other}'")),
    };
    let window = number(spec, "timeline_window_s", Some(100.0))?;
    if window <= 0.0 {
        return Err("parameter 'timeline_window_s' must be positive".into());
    }
    let split = match spec.params.get("phase_split_s") {
        Some(_) => Some(number(spec, "phase_split_s", None)?),
        None => first_change_s,
    };
    Ok(AdaptiveParams {
        remap_period_s: (remap > 0.0).then_some(remap),
        sample_period_s: sample,
        battery,
        metric,
        min_gain: number(spec, "min_gain", Some(0.0))?,
        timeline_window_s: window,
        phase_split_s: split,
    })
}

enum Candidates {
    List(Vec<Mapping>),
    Enumerate {
        shape: Vec<usize>,
        input: usize,
        output: usize,
        limit: usize,
    },
}

fn amoget_prepare(spec: &ParamReader) -> Result<(AmogetRun, Candidates), String> {
    let times = numbers(
        "stage_times_s",
        &text(spec, "stage_times_s")?.ok_or("parameter 'stage_times_s' is required")?,
    )?;
    let ns = times.len();
    if times.iter().any(|&t| t <= 0.0) {
        return Err("parameter 'stage_times_s': every stage time must be positive".into());
    }
    let data_sizes = match text(spec, "data_sizes")? {
        Some(s) => numbers("data_sizes", &s)?,
        None => vec![1.0; ns + 1],
    };
    if data_sizes.len() != ns + 1 || data_sizes.iter().any(|&d| d <= 0.0) {
        return Err(format!(
            "parameter 'data_sizes' needs {} positive values (one per stage and the output), got {}",
            ns + 1,
            data_sizes.len()
        ));
    }
    let all = spec.platform.hosts.len();
    let np = count(spec, "processors", Some(all as u64))? as usize;
    if np == 0 || np > all {
        return Err(format!(
            "parameter 'processors' must be from 1 to {all} (the platform's hosts), got {np}"
        ));
    }
    let availability = match text(spec, "availability")? {
        Some(s) => numbers("availability", &s)?,
        None => Vec::new(),
    };
    if availability.len() > np || availability.iter().any(|&a| a <= 0.0 || a > 1.0) {
        return Err(format!("parameter 'availability' needs at most {np} values in (0, 1]"));
    }
    let (platform, hosts): (Arc<Platform>, Vec<HostId>) = match spec.params.get("latency_s") {
        Some(_) => {
            let latency = number(spec, "latency_s", None)?;
            let bandwidth = number(spec, "bandwidth_bytes_per_s", Some(1e12))?;
            let model = text_or(spec, "network_model", "raw")?;
            let speeds: Vec<f64> = spec.platform.hosts[..np].iter().map(|h| h.speed).collect();
            let p = mesh_platform(&speeds, &availability, latency, bandwidth, &model)?;
            (Arc::new(p), (0..np as u32).map(HostId).collect())
        }
        None => {
            for n in ["bandwidth_bytes_per_s", "network_model"] {
                if spec.params.contains_key(n) {
                    return Err(format!("parameter '{n}' applies only with 'latency_s'"));
                }
            }
            let mut p = (*spec.platform).clone();
            for (j, &av) in availability.iter().enumerate() {
                if av < 1.0 {
                    p.hosts[j].speed_profile = Some(Profile::new(vec![(0.0, av)], None).map_err(|e| format!("{e:?}"))?);
                }
            }
            (Arc::new(p), (0..np as u32).map(HostId).collect())
        }
    };
    let av_steps = match text(spec, "availability_steps")? {
        Some(s) => availability_steps(&s, np)?,
        None => vec![Vec::new(); np],
    };
    let lat_steps = match text(spec, "latency_steps")? {
        Some(s) => latency_steps(&s)?,
        None => Vec::new(),
    };
    let first_change_s = av_steps
        .iter()
        .flatten()
        .chain(&lat_steps)
        .map(|e| e.0)
        .min_by(f64::total_cmp);
    let platform = if first_change_s.is_some() {
        let mut p = (*platform).clone();
        let profile = |events: Vec<(f64, f64)>| Profile::new(events, None).map_err(|e| format!("{e:?}"));
        for (j, steps) in av_steps.into_iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            let base = availability.get(j).copied().unwrap_or(1.0);
            let events = std::iter::once((0.0, base)).chain(steps).collect();
            p.hosts[hosts[j].0 as usize].speed_profile = Some(profile(events)?);
        }
        if !lat_steps.is_empty() {
            for link in &mut p.links {
                let events = std::iter::once((0.0, link.latency))
                    .chain(lat_steps.iter().copied())
                    .collect();
                link.latency_profile = Some(profile(events)?);
            }
        }
        Arc::new(p)
    } else {
        platform
    };
    let adaptive = if spec.scheduler == "amoget-adaptive" {
        if text(spec, "mode")?.as_deref().is_some_and(|m| m != "realistic") {
            return Err("scheduler 'amoget-adaptive' runs in mode 'realistic' only".into());
        }
        Some(adaptive_params(spec, first_change_s)?)
    } else {
        only_for(spec, ADAPTIVE_ONLY, "amoget-adaptive")?;
        None
    };
    let default_mode = if adaptive.is_some() { "realistic" } else { "model" };
    let mode = match text_or(spec, "mode", default_mode)?.as_str() {
        "model" => SimMode::Model,
        "realistic" => SimMode::Realistic,
        other => {
            return Err(format!(
                "parameter 'mode' must be 'model' or 'realistic', got '{other}'"
            ))
        }
    };
    let service = match text_or(spec, "service", "exponential")?.as_str() {
        "exponential" => ServiceDist::Exponential,
        "deterministic" => ServiceDist::Deterministic,
        other => {
            return Err(format!(
                "parameter 'service' must be 'exponential' or 'deterministic', got '{other}'"
            ))
        }
    };
    let items = count(spec, "items", Some(20_000))?;
    let warmup = count(spec, "warmup_items", Some(items / 20))?;
    let batches = count(spec, "batches", Some(20))? as usize;
    if items == 0 || batches < 2 || items + warmup > 50_000_000 {
        return Err("need items >= 1, batches >= 2 and at most 5e7 items".into());
    }
    let probe_bytes = number(spec, "probe_bytes", Some(1.0))?;

    let check = |m: &Mapping| -> Result<(), String> {
        if m.stages.len() != ns {
            return Err(format!(
                "mapping {m} has {} stages, stage_times_s gives {ns}",
                m.stages.len()
            ));
        }
        if m.processors_needed() > np {
            return Err(format!("mapping {m} uses processors beyond the {np} available"));
        }
        Ok(())
    };
    let amoget_only = ["candidates", "deal_workers", "input", "output", "max_candidates"];
    let candidates = match spec.scheduler.as_str() {
        "fixed" => {
            only_for(spec, &amoget_only, "amoget")?;
            let m = Mapping::parse(&text(spec, "mapping")?.ok_or("scheduler 'fixed' needs parameter 'mapping'")?)
                .map_err(|e| e.to_string())?;
            check(&m)?;
            Candidates::List(vec![m])
        }
        "amoget" | "amoget-adaptive" => {
            only_for(spec, &["mapping"], "fixed")?;
            match text(spec, "candidates")? {
                Some(list) => {
                    for n in ["deal_workers", "input", "output", "max_candidates"] {
                        if spec.params.contains_key(n) {
                            return Err(format!("parameter '{n}' is for the enumeration, not with 'candidates'"));
                        }
                    }
                    let ms = list
                        .split(';')
                        .filter(|s| !s.trim().is_empty())
                        .map(|s| Mapping::parse(s.trim()).map_err(|e| e.to_string()))
                        .collect::<Result<Vec<_>, _>>()?;
                    if ms.is_empty() {
                        return Err("parameter 'candidates' lists no mapping".into());
                    }
                    ms.iter().try_for_each(check)?;
                    Candidates::List(ms)
                }
                None => {
                    let shape = match text(spec, "deal_workers")? {
                        Some(s) => numbers("deal_workers", &s)?
                            .into_iter()
                            .map(|x| {
                                if x.fract() == 0.0 {
                                    Ok(x as usize)
                                } else {
                                    Err(format!("deal_workers: {x}"))
                                }
                            })
                            .collect::<Result<Vec<_>, _>>()?,
                        None => vec![0; ns],
                    };
                    if shape.len() != ns {
                        return Err(format!(
                            "parameter 'deal_workers' needs {ns} values, got {}",
                            shape.len()
                        ));
                    }
                    let proc = |name: &str| -> Result<usize, String> {
                        let p = count(spec, name, Some(1))? as usize;
                        if p == 0 || p > np {
                            return Err(format!("parameter '{name}' must be a processor from 1 to {np}"));
                        }
                        Ok(p - 1)
                    };
                    let limit = count(spec, "max_candidates", Some(5000))?;
                    if !(1..=MAX_CANDIDATES).contains(&limit) {
                        return Err(format!(
                            "parameter 'max_candidates' must be from 1 to {MAX_CANDIDATES}, got {limit}"
                        ));
                    }
                    let limit = limit as usize;
                    Candidates::Enumerate {
                        shape,
                        input: proc("input")?,
                        output: proc("output")?,
                        limit,
                    }
                }
            }
        }
        other => {
            return Err(format!(
                "unknown scheduler '{other}' (valid: fixed, amoget, amoget-adaptive)"
            ))
        }
    };
    Ok((
        AmogetRun {
            platform,
            hosts,
            app: Application {
                reference_times_s: times,
                data_sizes,
            },
            mode,
            service,
            items,
            warmup,
            batches,
            probe_bytes,
            adaptive,
        },
        candidates,
    ))
}

const AMOGET_METRICS: &[Named] = &[
    Named {
        name: "throughput_ctmc",
        description: "throughput of the chosen mapping by the CTMC steady state, items/s",
    },
    Named {
        name: "throughput_ctmc_per_min",
        description: "the same, items/min",
    },
    Named {
        name: "throughput_sim",
        description: "simulated throughput, mean over batches, items/s",
    },
    Named {
        name: "throughput_sim_per_min",
        description: "the same, items/min",
    },
    Named {
        name: "throughput_sim_ci95",
        description: "half-width of the 95% interval of the simulated throughput (batch means), items/s",
    },
    Named {
        name: "ctmc_in_ci95",
        description: "1 when the CTMC throughput lies in that interval (fixed mapping only)",
    },
    Named {
        name: "relative_difference",
        description: "(simulated - CTMC) / CTMC (fixed mapping only)",
    },
    Named {
        name: "mean_latency_s",
        description: "mean time an item spends in the pipeline, s",
    },
    Named {
        name: "makespan_s",
        description: "date the last item left, s",
    },
    Named {
        name: "states",
        description: "CTMC states of the chosen mapping (fixed mapping only)",
    },
    Named {
        name: "transitions",
        description: "CTMC transitions of the chosen mapping (fixed mapping only)",
    },
    Named {
        name: "candidates",
        description: "mappings evaluated (fixed mapping only)",
    },
    Named {
        name: "chosen_candidate",
        description: "position of the chosen mapping among the candidates (fixed mapping only)",
    },
    Named {
        name: "throughput_before",
        description: "amoget-adaptive: output rate before phase_split_s, items/s",
    },
    Named {
        name: "throughput_after",
        description: "amoget-adaptive: output rate after phase_split_s, items/s",
    },
    Named {
        name: "throughput_before_per_min",
        description: "the same before, items/min",
    },
    Named {
        name: "throughput_after_per_min",
        description: "the same after, items/min",
    },
    Named {
        name: "phase_split_s",
        description: "amoget-adaptive: the date splitting the two phases, s",
    },
    Named {
        name: "decisions",
        description: "amoget-adaptive: remapping decisions taken",
    },
    Named {
        name: "remaps",
        description: "amoget-adaptive: remaps deployed",
    },
    Named {
        name: "first_remap_decided_s",
        description: "amoget-adaptive: date the first remap was decided (NaN: none), s",
    },
    Named {
        name: "first_remap_effective_s",
        description: "amoget-adaptive: date it took effect, s",
    },
    Named {
        name: "samples",
        description: "amoget-adaptive: NWS samples recorded",
    },
];

const AMOGET_TABLES: &[TableInfo] = &[
    TableInfo {
        name: "candidates",
        description: "fixed mapping: every candidate mapping with its CTMC size, throughput and rank",
        columns: &[
            "candidate",
            "states",
            "transitions_count",
            "ctmc_throughput",
            "rank",
            "chosen",
        ],
    },
    TableInfo {
        name: "throughput",
        description: "fixed mapping: CTMC and simulated throughput side by side",
        columns: &["source", "throughput_per_s"],
    },
    TableInfo {
        name: "timeline",
        description: "amoget-adaptive: input and output rates per window of timeline_window_s",
        columns: &["t_s", "input_rate_per_s", "output_rate_per_s"],
    },
    TableInfo {
        name: "phases",
        description: "amoget-adaptive: throughput before and after phase_split_s",
        columns: &[
            "phase",
            "from_s",
            "to_s",
            "phase_throughput_per_s",
            "phase_throughput_per_min",
        ],
    },
    TableInfo {
        name: "remaps",
        description: "amoget-adaptive: each remap with its dates, mappings and predicted throughputs",
        columns: &[
            "decided_s",
            "effective_s",
            "from",
            "to",
            "ctmc_old",
            "ctmc_new",
            "items_before",
        ],
    },
    TableInfo {
        name: "decisions",
        description: "amoget-adaptive: each decision with its forecasts and the best mapping",
        columns: &[
            "date_s",
            "samples_used",
            "forecast_availability",
            "forecast_la12_ms",
            "running",
            "ctmc_running",
            "best",
            "ctmc_best",
            "candidates_solved",
            "deploy",
        ],
    },
];

impl Family for Amoget {
    fn name(&self) -> &'static str {
        "amoget"
    }

    fn description(&self) -> &'static str {
        "skeletons, Pipeline/Deal: PEPA/CTMC throughput of mappings and their simulation (AMoGeT paper)"
    }

    fn schedulers(&self) -> &'static [PolicyInfo] {
        AMOGET_SCHEDULERS
    }

    fn parameters(&self) -> &'static [Param] {
        AMOGET_PARAMS
    }

    fn metrics(&self) -> &'static [Named] {
        AMOGET_METRICS
    }

    fn tables(&self) -> &'static [TableInfo] {
        AMOGET_TABLES
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        (|| -> Result<UsedParams, String> {
            let reader = ParamReader::new(spec);
            amoget_prepare(&reader)?;
            Ok(reader.used())
        })()
        .map_err(RunError::Other)
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        (|| -> Result<RunOutput, String> {
            let (run, candidates) = amoget_prepare(&ParamReader::new(spec))?;
            if run.adaptive.is_some() {
                return run_adaptive(spec, run, candidates);
            }
            let grid = measure_grid(&run.platform, &run.hosts, run.probe_bytes)?;
            let mappings = match candidates {
                Candidates::List(ms) => ms,
                Candidates::Enumerate {
                    shape,
                    input,
                    output,
                    limit,
                } => enumerate_mappings(&grid.shape(), &shape, input, output, limit).map_err(|e| e.to_string())?,
            };
            let k = RateConstants::default();
            let o = EvaluateOptions::default();
            let evaluations: Vec<MappingEvaluation> = mappings
                .iter()
                .map(|m| amoget::evaluate(&grid, &run.app, m, &k, &o).map_err(|e| format!("mapping {m}: {e}")))
                .collect::<Result<_, _>>()?;
            let order = rank(&evaluations, 1e-9);
            let best = order[0];
            let chosen = &evaluations[best];
            let cfg = PipelineSim {
                mapping: chosen.mapping.clone(),
                reference_times_s: run.app.reference_times_s.clone(),
                data_sizes: run.app.data_sizes.clone(),
                rates: amoget_rates(&grid, &run.app, &chosen.mapping, &k).map_err(|e| e.to_string())?,
                hosts: run.hosts.clone(),
                mode: run.mode,
                service: run.service,
                warmup_items: run.warmup,
                items: run.items,
                batches: run.batches,
                seed: spec.seed,
            };
            let out = simulate(Arc::clone(&run.platform), &cfg)?;
            let t = &out.throughput;
            let ctmc = chosen.throughput;
            let mut metrics = BTreeMap::new();
            let mut put = |k: &str, v: f64| {
                metrics.insert(k.to_string(), v);
            };
            put("throughput_ctmc", ctmc);
            put("throughput_ctmc_per_min", ctmc * 60.0);
            put("throughput_sim", t.mean);
            put("throughput_sim_per_min", t.mean * 60.0);
            put("throughput_sim_ci95", t.half_width);
            put("ctmc_in_ci95", f64::from(u8::from(t.contains(ctmc))));
            put("relative_difference", (t.mean - ctmc) / ctmc);
            put("mean_latency_s", out.mean_latency_s);
            put("makespan_s", out.makespan_s);
            put("states", chosen.states as f64);
            put("transitions", chosen.transitions as f64);
            put("candidates", evaluations.len() as f64);
            put("chosen_candidate", best as f64);
            let mut position = vec![0; evaluations.len()];
            for (r, &i) in order.iter().enumerate() {
                position[i] = r + 1;
            }
            let rows = evaluations
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    vec![
                        ParamValue::Str(e.mapping.to_string()),
                        int(e.states as u64),
                        int(e.transitions as u64),
                        ParamValue::Float(e.throughput),
                        int(position[i] as u64),
                        ParamValue::Bool(i == best),
                    ]
                })
                .collect();
            let mut tables = BTreeMap::new();
            tables.extend([declared_table(AMOGET_TABLES, "candidates", rows)?]);
            let rows = vec![
                vec![ParamValue::Str("CTMC".into()), ParamValue::Float(ctmc)],
                vec![ParamValue::Str("simulation".into()), ParamValue::Float(t.mean)],
            ];
            tables.extend([declared_table(AMOGET_TABLES, "throughput", rows)?]);
            Ok(RunOutput {
                metrics,
                events: out.events,
                tables,
                // The skeleton simulations fail a run whose items did not all finish.
                incomplete: None,
            })
        })()
        .map_err(RunError::Other)
    }
}

/// `amoget-adaptive`: AMoGeT on NWS forecasts during the run (module docs).
fn run_adaptive(spec: &RunSpec, run: AmogetRun, candidates: Candidates) -> Result<RunOutput, String> {
    let a = run.adaptive.expect("adaptive parameters");
    let candidates = match candidates {
        Candidates::List(ms) => adaptive::Candidates::List(ms),
        Candidates::Enumerate {
            shape,
            input,
            output,
            limit,
        } => adaptive::Candidates::Enumerate {
            shape,
            input,
            output,
            limit,
        },
    };
    let cfg = AdaptiveSim {
        app: run.app,
        hosts: run.hosts,
        candidates,
        service: run.service,
        warmup_items: run.warmup,
        items: run.items,
        batches: run.batches,
        seed: spec.seed,
        monitor: MonitorConfig {
            sample_period_s: a.sample_period_s,
            probe_bytes: run.probe_bytes,
            battery: a.battery,
            metric: a.metric,
        },
        remap_period_s: a.remap_period_s,
        min_gain: a.min_gain,
        constants: RateConstants::default(),
        evaluate: EvaluateOptions::default(),
    };
    let out = simulate_adaptive(Arc::clone(&run.platform), &cfg)?;
    let t = &out.outcome.throughput;
    let last_arrival = out.arrivals.last().copied().unwrap_or(0.0);
    let split = a.phase_split_s.unwrap_or(0.5 * last_arrival);
    let (before, after) = (
        rate_in(&out.arrivals, 0.0, split),
        rate_in(&out.arrivals, split, last_arrival),
    );
    let first = out.switches.first();
    let mut metrics = BTreeMap::new();
    let mut put = |k: &str, v: f64| {
        metrics.insert(k.to_string(), v);
    };
    put("throughput_ctmc", out.decisions[0].best.throughput);
    put("throughput_sim", t.mean);
    put("throughput_sim_per_min", t.mean * 60.0);
    put("throughput_sim_ci95", t.half_width);
    put("throughput_before", before);
    put("throughput_after", after);
    put("throughput_before_per_min", before * 60.0);
    put("throughput_after_per_min", after * 60.0);
    put("phase_split_s", split);
    put("mean_latency_s", out.outcome.mean_latency_s);
    put("makespan_s", out.outcome.makespan_s);
    put("decisions", out.decisions.len() as f64);
    put("remaps", out.switches.len() as f64);
    put("first_remap_decided_s", first.map_or(f64::NAN, |s| s.decided_s));
    put("first_remap_effective_s", first.map_or(f64::NAN, |s| s.effective_s));
    put("samples", out.record.dates.len() as f64);

    let mut tables = BTreeMap::new();
    let end = out.departures.last().copied().unwrap_or(0.0);
    let w = a.timeline_window_s;
    let windows = (end / w).ceil();
    if windows > MAX_TIMELINE_WINDOWS as f64 {
        return Err(format!(
            "parameter 'timeline_window_s' = {w} cuts the run's {end} s into {windows:e} windows; at most {MAX_TIMELINE_WINDOWS}: use at least {}",
            end / MAX_TIMELINE_WINDOWS as f64
        ));
    }
    let windows = windows as usize;
    let rows = (0..windows)
        .map(|k| {
            let (from, to) = (k as f64 * w, (k + 1) as f64 * w);
            vec![
                ParamValue::Float(from + 0.5 * w),
                ParamValue::Float(rate_in(&out.arrivals, from, to)),
                ParamValue::Float(rate_in(&out.departures, from, to)),
            ]
        })
        .collect();
    tables.extend([declared_table(AMOGET_TABLES, "timeline", rows)?]);
    let phase = |name: &str, from: f64, to: f64, rate: f64| {
        vec![
            ParamValue::Str(name.into()),
            ParamValue::Float(from),
            ParamValue::Float(to),
            ParamValue::Float(rate),
            ParamValue::Float(rate * 60.0),
        ]
    };
    tables.extend([declared_table(
        AMOGET_TABLES,
        "phases",
        vec![
            phase("1: before", 0.0, split, before),
            phase("2: after", split, last_arrival, after),
        ],
    )?]);
    let rows = out
        .switches
        .iter()
        .map(|s| {
            vec![
                ParamValue::Float(s.decided_s),
                ParamValue::Float(s.effective_s),
                ParamValue::Str(s.from.to_string()),
                ParamValue::Str(s.to.to_string()),
                ParamValue::Float(s.predicted_old),
                ParamValue::Float(s.predicted_new),
                int(s.items_before),
            ]
        })
        .collect();
    tables.extend([declared_table(AMOGET_TABLES, "remaps", rows)?]);
    let join = |v: Vec<String>| v.join(",");
    let rows = out
        .decisions
        .iter()
        .map(|d| {
            vec![
                ParamValue::Float(d.date_s),
                int(d.samples as u64),
                ParamValue::Str(join(
                    d.grid.processors.iter().map(|p| p.availability.to_string()).collect(),
                )),
                ParamValue::Float(
                    d.grid
                        .latency_ms
                        .first()
                        .and_then(|r| r.get(1))
                        .copied()
                        .unwrap_or(f64::NAN),
                ),
                ParamValue::Str(d.current.as_ref().map_or(String::new(), |c| c.0.to_string())),
                ParamValue::Float(d.current.as_ref().map_or(f64::NAN, |c| c.1)),
                ParamValue::Str(d.best.mapping.to_string()),
                ParamValue::Float(d.best.throughput),
                int(d.candidates as u64),
                ParamValue::Bool(d.deploy),
            ]
        })
        .collect();
    tables.extend([declared_table(AMOGET_TABLES, "decisions", rows)?]);
    Ok(RunOutput {
        metrics,
        events: out.outcome.events,
        tables,
        // The skeleton simulations fail a run whose items did not all finish.
        incomplete: None,
    })
}

// ----- alt --------------------------------------------------------------------------------------

/// Alt et al.'s remote skeletons.
pub struct AltSkeletons;

const ALT_PARAMS: &[Param] = &[
    Param::described(
        "skeleton",
        "reduce (default), scan or dc (divide-and-conquer)",
        Param::NO_DEFAULT,
    ),
    Param::described("n", "list length", Param::NO_DEFAULT),
    Param::described(
        "threads",
        "threads p of every server's implementation (default 4)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "element_bytes",
        "bytes per list element (default 3200: a 20x20 matrix of doubles)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "operator_bytes",
        "bytes of the operator's code sent with the call (default 2000)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "result_elements",
        "elements of the result (default 1 for reduce, n otherwise)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "op_flops",
        "flops of one operator application (default 16000: 20x20 matrix product)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "dc_divide",
        "dc: cost of a divide, in operator applications (default 0.1)",
        Param::NO_DEFAULT,
    ),
    Param::described("dc_base", "dc: cost of a base case (default 0.1)", Param::NO_DEFAULT),
    Param::described("dc_conquer", "dc: cost of a conquer (default 1)", Param::NO_DEFAULT),
    Param::described(
        "op_jitter",
        "relative half-width of each application's uniform jitter (default 0)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "sync_overhead_s",
        "cost of each fork or join of threads (default 0)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "background_processes",
        "CPU-bound processes on the server during the call (default 0)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "include_local",
        "also register the client itself (local execution; default false)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "client",
        "client host name (default: the first host)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "servers",
        "server host names, comma-separated (default: every other host)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "probe_elements",
        "sizes of the t_s/t_w probes, in elements (default \"1,16,256\")",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "benchmark_flops",
        "flops of the speed-up benchmark (default 1e8)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "wan_latency_s",
        "if set: build a client + one server platform, WAN of this latency",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "wan_bandwidth_bytes_per_s",
        "its WAN bandwidth (default 12.5e6)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "client_speed_flops",
        "its client speed (default 20e6)",
        Param::NO_DEFAULT,
    ),
    Param::described(
        "server_speed_flops",
        "its server speed per core (default 40e6)",
        Param::NO_DEFAULT,
    ),
    Param::described("server_cores", "its server cores (default 16)", Param::NO_DEFAULT),
    Param::described("server", "fixed: the server's name", Param::NO_DEFAULT),
];

const ALT_SCHEDULERS: &[PolicyInfo] = &[
    PolicyInfo {
        name: "min-predicted",
        description: "the server with the least predicted time, eq. 1 (Alt et al.)",
        params: &[],
    },
    PolicyInfo {
        name: "fixed",
        description: "the server named by 'server'",
        params: &[],
    },
];

fn alt_prepare(spec: &ParamReader) -> Result<(Arc<Platform>, AltScenario), String> {
    let n = count(spec, "n", None)?;
    let threads = count(spec, "threads", Some(4))?;
    if threads == 0 || n < threads {
        return Err(format!("need n >= threads >= 1 (n = {n}, threads = {threads})"));
    }
    // The simulation holds one operator application per element (8 bytes each).
    if n > MAX_ALT_ELEMENTS {
        return Err(format!(
            "parameter 'n' is {n}; at most {MAX_ALT_ELEMENTS} elements are simulated (one operator application each)"
        ));
    }
    let dc = DcCosts {
        divide: number(spec, "dc_divide", Some(0.1))?,
        base: number(spec, "dc_base", Some(0.1))?,
        conquer: number(spec, "dc_conquer", Some(1.0))?,
    };
    let registered = vec![
        PerfFunction::Reduce,
        PerfFunction::Scan,
        PerfFunction::DivideAndConquer(dc),
    ];
    let skeleton = match text(spec, "skeleton")?.as_deref() {
        None | Some("reduce") => registered[0],
        Some("scan") => registered[1],
        Some("dc") => registered[2],
        Some(other) => {
            return Err(format!(
                "parameter 'skeleton' must be reduce, scan or dc, got '{other}'"
            ))
        }
    };
    let default_result = if skeleton == PerfFunction::Reduce {
        1.0
    } else {
        n as f64
    };
    let built = spec.params.contains_key("wan_latency_s");
    let builder_params = [
        "wan_bandwidth_bytes_per_s",
        "client_speed_flops",
        "server_speed_flops",
        "server_cores",
    ];
    let (platform, client, server_hosts): (Arc<Platform>, HostId, Vec<(String, HostId)>) = if built {
        for name in ["client", "servers"] {
            if spec.params.contains_key(name) {
                return Err(format!(
                    "parameter '{name}' names hosts of the experiment's platform, not with 'wan_latency_s'"
                ));
            }
        }
        let mut p = Platform::new();
        let c = p
            .add_host(Host::new("client", number(spec, "client_speed_flops", Some(20e6))?))
            .expect("fresh");
        let mut s = Host::new("server", number(spec, "server_speed_flops", Some(40e6))?);
        s.cores = u32::try_from(count(spec, "server_cores", Some(16))?)
            .map_err(|_| "parameter 'server_cores' is too large")?;
        for (name, positive) in [
            ("client_speed_flops", p.host(c).speed > 0.0),
            ("server_speed_flops", s.speed > 0.0),
            ("server_cores", s.cores > 0),
        ] {
            if !positive {
                return Err(format!("parameter '{name}' must be positive"));
            }
        }
        let s = p.add_host(s).expect("fresh");
        let bw = number(spec, "wan_bandwidth_bytes_per_s", Some(12.5e6))?;
        if bw <= 0.0 {
            return Err("parameter 'wan_bandwidth_bytes_per_s' must be positive".into());
        }
        let l = p
            .add_link(Link::new("wan", bw, number(spec, "wan_latency_s", None)?))
            .expect("fresh");
        p.routing.add_route(c, s, vec![l]);
        p.routing.add_route(s, c, vec![l]);
        (Arc::new(p), c, vec![("server".to_string(), s)])
    } else {
        if let Some(n) = builder_params.iter().find(|n| spec.params.contains_key(**n)) {
            return Err(format!("parameter '{n}' applies only with 'wan_latency_s'"));
        }
        let p = &spec.platform;
        let host = |name: &str| {
            p.host_id(name)
                .ok_or_else(|| format!("no host '{name}' in platform '{}'", spec.platform_name))
        };
        let client = match text(spec, "client")? {
            Some(name) => host(&name)?,
            None if !p.hosts.is_empty() => HostId(0),
            None => return Err("the platform has no host".into()),
        };
        let servers = match text(spec, "servers")? {
            Some(list) => list
                .split(',')
                .map(|s| host(s.trim()).map(|h| (s.trim().to_string(), h)))
                .collect::<Result<Vec<_>, _>>()?,
            None => (0..p.hosts.len() as u32)
                .map(HostId)
                .filter(|&h| h != client)
                .map(|h| (p.host(h).name.clone(), h))
                .collect(),
        };
        (Arc::clone(&spec.platform), client, servers)
    };
    let mut servers: Vec<ServerSpec> = server_hosts
        .into_iter()
        .map(|(name, host)| ServerSpec {
            name,
            host,
            threads,
            skeletons: registered.clone(),
        })
        .collect();
    if flag(spec, "include_local")? {
        servers.insert(
            0,
            ServerSpec {
                name: "local".into(),
                host: client,
                threads: u64::from(platform.host(client).cores),
                skeletons: registered.clone(),
            },
        );
    }
    if servers.is_empty() {
        return Err("no server to call".into());
    }
    let choice = match spec.scheduler.as_str() {
        "min-predicted" => {
            only_for(spec, &["server"], "fixed")?;
            Choice::MinPredicted
        }
        "fixed" => {
            let name = text(spec, "server")?.ok_or("scheduler 'fixed' needs parameter 'server'")?;
            let i = servers.iter().position(|s| s.name == name).ok_or_else(|| {
                let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
                format!(
                    "parameter 'server': '{name}' is not a server (servers: {})",
                    names.join(", ")
                )
            })?;
            Choice::Fixed(i)
        }
        other => return Err(format!("unknown scheduler '{other}' (valid: min-predicted, fixed)")),
    };
    let probe_elements = numbers("probe_elements", &text_or(spec, "probe_elements", "1,16,256")?)?
        .into_iter()
        .map(|x| x as u64)
        .collect::<Vec<_>>();
    let element_bytes = number(spec, "element_bytes", Some(3200.0))?;
    if element_bytes <= 0.0 {
        return Err("parameter 'element_bytes' must be positive".into());
    }
    let op_jitter = number(spec, "op_jitter", Some(0.0))?;
    if op_jitter >= 1.0 {
        return Err("parameter 'op_jitter' must be below 1".into());
    }
    let background = count(spec, "background_processes", Some(0))?;
    let scenario = AltScenario {
        client,
        servers,
        calibration: Calibration {
            element_bytes,
            probe_elements,
            benchmark_flops: number(spec, "benchmark_flops", Some(1e8))?.max(f64::MIN_POSITIVE),
        },
        skeleton,
        n,
        operator_bytes: number(spec, "operator_bytes", Some(2000.0))?,
        result_elements: number(spec, "result_elements", Some(default_result))?,
        op_flops: number(spec, "op_flops", Some(16000.0))?,
        op_jitter,
        sync_overhead_s: number(spec, "sync_overhead_s", Some(0.0))?,
        background_processes: u32::try_from(background).map_err(|_| "background_processes is too large")?,
        choice,
        seed: spec.seed,
    };
    Ok((platform, scenario))
}

const ALT_METRICS: &[Named] = &[
    Named {
        name: "predicted_s",
        description: "the performance function's predicted total time (eq. 1), s",
    },
    Named {
        name: "predicted_comm_s",
        description: "its communication part, s",
    },
    Named {
        name: "predicted_comp_s",
        description: "its computation part, s",
    },
    Named {
        name: "simulated_s",
        description: "simulated total time, s",
    },
    Named {
        name: "simulated_comm_s",
        description: "simulated request + reply time, s",
    },
    Named {
        name: "simulated_comp_s",
        description: "simulated computation time, s",
    },
    Named {
        name: "error_pct",
        description: "100 x (simulated - predicted) / predicted",
    },
    Named {
        name: "server_index",
        description: "position of the chosen server",
    },
    Named {
        name: "t_s_s",
        description: "chosen server's sequential time t_s, s",
    },
    Named {
        name: "t_w_s",
        description: "chosen server's waiting time t_w, s",
    },
    Named {
        name: "speedup",
        description: "chosen server's speedup",
    },
    Named {
        name: "t_op_server_s",
        description: "client's operation time / speedup, s",
    },
    Named {
        name: "applications",
        description: "applications run",
    },
];

const ALT_TABLES: &[TableInfo] = &[
    TableInfo {
        name: "times",
        description: "predicted (eq. 1) and simulated total time side by side",
        columns: &["curve", "time_s"],
    },
    TableInfo {
        name: "servers",
        description: "every server with its performance-function inputs and predicted time",
        columns: &[
            "server_name",
            "t_s",
            "t_w",
            "speedup",
            "processors",
            "predicted_total_s",
            "chosen",
        ],
    },
];

impl Family for AltSkeletons {
    fn name(&self) -> &'static str {
        "alt"
    }

    fn description(&self) -> &'static str {
        "skeletons on grid servers: predicted (eq. 1) and simulated remote calls (Alt, Bischof & Gorlatch)"
    }

    fn schedulers(&self) -> &'static [PolicyInfo] {
        ALT_SCHEDULERS
    }

    fn parameters(&self) -> &'static [Param] {
        ALT_PARAMS
    }

    fn metrics(&self) -> &'static [Named] {
        ALT_METRICS
    }

    fn tables(&self) -> &'static [TableInfo] {
        ALT_TABLES
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        (|| -> Result<UsedParams, String> {
            let reader = ParamReader::new(spec);
            alt_prepare(&reader)?;
            Ok(reader.used())
        })()
        .map_err(RunError::Other)
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        (|| -> Result<RunOutput, String> {
            let (platform, sc) = alt_prepare(&ParamReader::new(spec))?;
            let out = run_scenario(&platform, &sc)?;
            let p = &out.prediction;
            let s = &out.simulated;
            let server = &out.lookup.servers[p.server];
            let mut metrics = BTreeMap::new();
            let mut put = |k: &str, v: f64| {
                metrics.insert(k.to_string(), v);
            };
            put("predicted_s", p.total);
            put("predicted_comm_s", p.communication);
            put("predicted_comp_s", p.computation);
            put("simulated_s", s.total_s);
            put("simulated_comm_s", s.request_s + s.reply_s);
            put("simulated_comp_s", s.compute_s);
            put("error_pct", 100.0 * (s.total_s - p.total) / p.total);
            put("server_index", p.server as f64);
            put("t_s_s", server.t_s);
            put("t_w_s", server.t_w);
            put("speedup", server.speedup);
            put("t_op_server_s", out.t_op_client / server.speedup);
            put("applications", s.applications as f64);
            let mut tables = BTreeMap::new();
            tables.extend([declared_table(
                ALT_TABLES,
                "times",
                vec![
                    vec![ParamValue::Str("predicted (eq. 1)".into()), ParamValue::Float(p.total)],
                    vec![ParamValue::Str("simulated".into()), ParamValue::Float(s.total_s)],
                ],
            )?]);
            let inv_rows = (0..out.lookup.servers.len())
                .map(|i| {
                    let srv = &out.lookup.servers[i];
                    let total = out.predictions[i].map_or(f64::NAN, |q| q.total);
                    vec![
                        ParamValue::Str(srv.name.clone()),
                        ParamValue::Float(srv.t_s),
                        ParamValue::Float(srv.t_w),
                        ParamValue::Float(srv.speedup),
                        int(srv.processors),
                        ParamValue::Float(total),
                        ParamValue::Bool(i == p.server),
                    ]
                })
                .collect();
            tables.extend([declared_table(ALT_TABLES, "servers", inv_rows)?]);
            Ok(RunOutput {
                metrics,
                events: s.events,
                tables,
                // The skeleton simulations fail a run whose items did not all finish.
                incomplete: None,
            })
        })()
        .map_err(RunError::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(scheduler: &str, params: &[(&str, ParamValue)]) -> RunSpec {
        let mut p = Platform::new();
        for i in 0..4 {
            p.add_host(Host::new(format!("h{i}"), 1e9)).unwrap();
        }
        RunSpec {
            index: 0,
            platform: Arc::new(p),
            platform_name: "four hosts".into(),
            scheduler: scheduler.into(),
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            replication: 0,
            seed: 3,
            workload: None,
            tables: Vec::new(),
        }
    }

    fn s(x: &str) -> ParamValue {
        ParamValue::Str(x.into())
    }

    #[test]
    fn amoget_fixed_run_reports_the_ctmc_of_the_papers_grid() {
        // AMoGeT Experiment 1, (1,1,2,2) at latency 20 s: the family's measured grid must give
        // the CTMC of Grid::homogeneous(4, .., 20000 ms), whose throughput §5.3 prints as
        // 0.01648 (checked in schedulers/tests/skeleton.rs).
        let params = [
            ("stage_times_s", s("10,10,10,10")),
            ("latency_s", ParamValue::Float(20.0)),
            ("mapping", s("[1, (1,1,2,2), 1]")),
            ("items", ParamValue::Int(2000)),
        ];
        let out = Amoget.run(&spec("fixed", &params)).unwrap();
        let grid = amoget::Grid::homogeneous(4, 1000.0, 20_000.0);
        let app = Application {
            reference_times_s: vec![10.0; 4],
            data_sizes: vec![1.0; 5],
        };
        let m = Mapping::parse("[1, (1,1,2,2), 1]").unwrap();
        let want = amoget::evaluate(&grid, &app, &m, &RateConstants::default(), &EvaluateOptions::default())
            .unwrap()
            .throughput;
        let got = out.metrics["throughput_ctmc"];
        assert!((got - want).abs() < 1e-9 * want, "{got} vs {want}");
        assert!(out.metrics["throughput_sim"] > 0.0);
        assert_eq!(out.tables["candidates"].rows.len(), 1);
    }

    #[test]
    fn amoget_search_picks_one_stage_per_processor_at_small_latency() {
        // AMoGeT §5.3: "For a small latency, the optimal mapping is obviously (1,2,3,4)".
        let params = [
            ("stage_times_s", s("10,10,10,10")),
            ("latency_s", ParamValue::Float(0.01)),
            ("items", ParamValue::Int(500)),
        ];
        let out = Amoget.run(&spec("amoget", &params)).unwrap();
        let t = &out.tables["candidates"];
        let chosen = t.rows.iter().find(|r| r[5] == ParamValue::Bool(true)).unwrap();
        assert_eq!(chosen[0], s("[1, (1,2,3,4), 1]"));
        assert!(t.rows.len() > 3);
    }

    #[test]
    fn amoget_rejects_inconsistent_parameters() {
        let base = [("stage_times_s", s("10,10"))];
        let bad = |sched: &str, extra: &[(&str, ParamValue)]| {
            let mut p: Vec<(&str, ParamValue)> = base.to_vec();
            p.extend(extra.iter().cloned());
            Amoget.validate(&spec(sched, &p)).unwrap_err().to_string()
        };
        assert!(bad("fixed", &[]).contains("mapping"));
        assert!(bad("fixed", &[("mapping", s("[1, (1,2,3), 1]"))]).contains("3 stages"));
        assert!(bad("fixed", &[("mapping", s("[1, (1,5), 1]"))]).contains("beyond"));
        assert!(bad("fixed", &[("mapping", s("[1, (1,2), 1]")), ("mode", s("fast"))]).contains("mode"));
        assert!(bad("amoget", &[("mapping", s("[1, (1,2), 1]"))]).contains("fixed"));
        assert!(bad("fixed", &[("mapping", s("[1, (1,2), 1]")), ("network_model", s("raw"))]).contains("latency_s"));
        assert!(Amoget
            .validate(&spec("fixed", &[base[0].clone(), ("mapping", s("[1, (1,2), 1]"))]))
            .is_ok());
    }

    #[test]
    fn amoget_adaptive_follows_a_latency_jump_to_the_papers_better_mapping() {
        // AMoGeT §5.3, Experiment 1: at latency 0.01 the best mapping is (1,2,3,4); at 20 s,
        // (1,1,2,2) (0.01648) beats (1,2,3,4) (0.01459). The latency jumps at 1005 s; decisions
        // every 50 s on forecasts of 10 s samples: the first decision after the jump (1050 s,
        // crate::skeleton::adaptive docs) moves the pipeline to (1,1,2,2).
        let params = [
            ("stage_times_s", s("10,10,10,10")),
            ("latency_s", ParamValue::Float(0.01)),
            ("latency_steps", s("1005=20")),
            ("remap_period_s", ParamValue::Int(50)),
            ("items", ParamValue::Int(80)),
        ];
        let out = Amoget.run(&spec("amoget-adaptive", &params)).unwrap();
        assert_eq!(out.metrics["remaps"], 1.0);
        assert_eq!(out.metrics["first_remap_decided_s"], 1050.0);
        assert_eq!(out.metrics["phase_split_s"], 1005.0);
        let r = &out.tables["remaps"].rows[0];
        assert_eq!(r[2], s("[1, (1,2,3,4), 1]"));
        assert_eq!(r[3], s("[1, (1,1,2,2), 1]"));
        let (old, new) = (r[4].as_f64().unwrap(), r[5].as_f64().unwrap());
        // The paper prints 4 significant digits (truncated): allow one unit of the 5th.
        assert!(
            (old - 0.01459).abs() < 1e-5 && (new - 0.01648).abs() < 1e-5,
            "{old} {new}"
        );
        // remap_period_s = 0: static AMoGeT on the same code path.
        let mut fixed = params.to_vec();
        fixed[3].1 = ParamValue::Int(0);
        let st = Amoget.run(&spec("amoget-adaptive", &fixed)).unwrap();
        assert_eq!(st.metrics["remaps"], 0.0);
        assert_eq!(st.metrics["decisions"], 1.0);
        assert_eq!(st.metrics["throughput_before"], out.metrics["throughput_before"]);
        assert!(out.metrics["throughput_after"] > st.metrics["throughput_after"]);
    }

    #[test]
    fn amoget_adaptive_rejects_inconsistent_parameters() {
        let base = vec![("stage_times_s", s("10,10")), ("latency_s", ParamValue::Float(0.01))];
        let bad = |sched: &str, extra: &[(&str, ParamValue)]| {
            let mut p = base.clone();
            p.extend(extra.iter().cloned());
            Amoget.validate(&spec(sched, &p)).unwrap_err().to_string()
        };
        assert!(bad("amoget-adaptive", &[("remap_period_s", ParamValue::Int(25))]).contains("multiple"));
        assert!(bad("amoget-adaptive", &[("mode", s("model"))]).contains("realistic"));
        assert!(bad("amoget-adaptive", &[("forecasters", s("last_value; crystal_ball"))]).contains("crystal_ball"));
        assert!(bad("amoget-adaptive", &[("forecast_metric", s("rmse"))]).contains("mse or mae"));
        assert!(bad("amoget-adaptive", &[("availability_steps", s("5@10=0.5"))]).contains("processor 5"));
        assert!(bad("amoget-adaptive", &[("availability_steps", s("1@10=1.5"))]).contains("(0, 1]"));
        assert!(bad("amoget", &[("remap_period_s", ParamValue::Int(50))]).contains("amoget-adaptive"));
        let ok = [
            (
                "forecasters",
                s("last_value; sw_median(5); trimmed_mean(10,0.2); exp_smooth(0.5)"),
            ),
            ("forecast_metric", s("mae")),
            ("availability_steps", s("2@100=0.5; P1@50=0.25")),
            ("latency_steps", s("30=1")),
        ];
        let mut p = base.clone();
        p.extend(ok);
        assert!(Amoget.validate(&spec("amoget-adaptive", &p)).is_ok());
        assert_eq!(
            forecaster("trimmed_mean(10,0.2)").unwrap(),
            Forecaster::TrimmedMean { window: 10, alpha: 0.2 }
        );
        assert_eq!(
            availability_steps("2@100=0.5; 2@50=0.25", 2).unwrap(),
            vec![vec![], vec![(50.0, 0.25), (100.0, 0.5)]]
        );
    }

    #[test]
    fn alt_without_perturbations_simulates_the_prediction() {
        // Eq. 1 is exact for an unperturbed call with p <= cores (alt_sim module docs).
        let params = [
            ("n", ParamValue::Int(1024)),
            ("threads", ParamValue::Int(4)),
            ("wan_latency_s", ParamValue::Float(0.005)),
        ];
        let out = AltSkeletons.run(&spec("min-predicted", &params)).unwrap();
        let (p, sim) = (out.metrics["predicted_s"], out.metrics["simulated_s"]);
        assert!((p - sim).abs() < 1e-9 * p, "{p} vs {sim}");
        // Reduce on 4 threads: (256 - 1) + 3 applications of 16000 flops at 40 Mflop/s.
        assert!((out.metrics["predicted_comp_s"] - 258.0 * 16000.0 / 40e6).abs() < 1e-12);
        let err = AltSkeletons
            .validate(&spec("fixed", &[("n", ParamValue::Int(8)), ("server", s("nowhere"))]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("nowhere"), "{err}");
        assert!(AltSkeletons
            .validate(&spec("fixed", &[("n", ParamValue::Int(8)), ("server", s("h2"))]))
            .is_ok());
    }
}

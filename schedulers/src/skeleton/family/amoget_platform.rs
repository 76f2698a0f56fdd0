//! The platform of an amoget run: its processors `P1..Pn` (the platform's first `processors`
//! hosts), their network (the mesh of `latency_s` or the platform's own), their `availability`
//! and the changes over time of `availability_steps` and `latency_steps` (speed and latency
//! profiles), which every scheduler of the family reads alike.

use std::sync::Arc;

use super::{int, numbers, positive};
use crate::family::{ParamReader, RunError};
use crate::registry::Param;
use crate::skeleton::measure::mesh_platform;
use sim_core::platform::{HostId, Platform};
use sim_core::profile::Profile;

pub(super) const PROCESSORS: Param = Param::integer(
    "processors",
    "hosts used as processors P1..Pn, in platform order",
    Param::NO_DEFAULT,
    1.0,
)
.computed_default("every host of the platform");
pub(super) const LATENCY: Param = Param::real(
    "latency_s",
    "if set: one link of this latency between every two processors (paper §5.3)",
    Param::NO_DEFAULT,
    0.0,
)
.in_unit("s");
pub(super) const BANDWIDTH: Param = Param::real(
    "bandwidth_bytes_per_s",
    "bandwidth of those links, positive",
    "1e12",
    0.0,
)
.in_unit("B/s");
pub(super) const NETWORK_MODEL: Param =
    Param::text("network_model", "network model of those links: raw, CM02, LV08", "raw");
pub(super) const AVAILABILITY: Param = Param::text(
    "availability",
    "av_j of P1, P2, ...: speed factors in (0, 1], e.g. \"1,0.5\"",
    Param::NO_DEFAULT,
)
.computed_default("1 for every processor");
pub(super) const AVAILABILITY_STEPS: Param = Param::text(
    "availability_steps",
    "speed changes \"P@DATE=AV; ...\", e.g. \"3@1000=0.2\": P3 at 0.2 from 1000 s",
    Param::NO_DEFAULT,
);
pub(super) const LATENCY_STEPS: Param = Param::text(
    "latency_steps",
    "latency changes of every link \"DATE=SECONDS; ...\", e.g. \"500=20\"",
    Param::NO_DEFAULT,
);

/// The processors, on the platform the run simulates.
pub(super) struct Processors {
    /// The platform, with its profiles.
    pub platform: Arc<Platform>,
    /// `P1..Pn`.
    pub hosts: Vec<HostId>,
    /// The first date the platform changes (`availability_steps`, `latency_steps`).
    pub first_change_s: Option<f64>,
}

/// `"P@DATE=VALUE; ..."` → per processor (0-based), `(date, value)` in date order.
pub(super) fn availability_steps(s: &str, np: usize) -> Result<Vec<Vec<(f64, f64)>>, String> {
    let mut out = vec![Vec::new(); np];
    for entry in s.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let bad = || format!("has '{entry}', which is not P@DATE=AV (e.g. 3@1000=0.2)");
        let (p, rest) = entry.split_once('@').ok_or_else(bad)?;
        let (date, av) = rest.split_once('=').ok_or_else(bad)?;
        let p: usize = p.trim().trim_start_matches('P').parse().map_err(|_| bad())?;
        let date: f64 = date.trim().parse().map_err(|_| bad())?;
        let av: f64 = av.trim().parse().map_err(|_| bad())?;
        if p == 0 || p > np {
            return Err(format!("names processor {p}, which is not in 1..={np}"));
        }
        if !(date.is_finite() && date >= 0.0 && av.is_finite() && av > 0.0 && av <= 1.0) {
            return Err(format!(
                "has '{entry}', which needs a date >= 0 and an availability in (0, 1]"
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
        let bad = || format!("has '{entry}', which is not DATE=SECONDS with both >= 0 (e.g. 500=20)");
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

fn profile(events: Vec<(f64, f64)>) -> Result<Profile, RunError> {
    Profile::new(events, None).map_err(|e| RunError::Other(format!("{e:?}")))
}

/// The processors' platform: the mesh of `latency_s`, else the experiment's platform, with the
/// speeds scaled by `availability`.
fn processors_platform(spec: &ParamReader, np: usize, availability: &[f64]) -> Result<Arc<Platform>, RunError> {
    let Some(latency) = spec.optional_real(&LATENCY)? else {
        if let Some(p) = [BANDWIDTH, NETWORK_MODEL]
            .iter()
            .find(|p| spec.params.contains_key(p.name))
        {
            return Err(RunError::param(p.name, "applies only with 'latency_s'"));
        }
        let mut p = (*spec.platform).clone();
        for (j, &av) in availability.iter().enumerate() {
            if av < 1.0 {
                p.hosts[j].speed_profile = Some(profile(vec![(0.0, av)])?);
            }
        }
        return Ok(Arc::new(p));
    };
    let bandwidth = positive(spec, &BANDWIDTH)?;
    let model = spec.text(&NETWORK_MODEL)?;
    let speeds: Vec<f64> = spec.platform.hosts[..np].iter().map(|h| h.speed).collect();
    let p = mesh_platform(&speeds, availability, latency, bandwidth, &model).map_err(RunError::platform)?;
    Ok(Arc::new(p))
}

/// The run's processors and platform.
pub(super) fn processors(spec: &ParamReader) -> Result<Processors, RunError> {
    let all = spec.platform.hosts.len();
    let np = spec.optional_integer(&PROCESSORS)?.unwrap_or_else(|| {
        spec.default_used(PROCESSORS.name, int(all as u64));
        all as u64
    }) as usize;
    if np == 0 {
        return Err(RunError::platform(format!(
            "platform '{}' has no host",
            spec.platform_name
        )));
    }
    if np > all {
        return Err(RunError::param(
            PROCESSORS.name,
            format!("must be at most {all} (the platform's hosts), got {np}"),
        ));
    }
    let availability = numbers(spec, &AVAILABILITY)?.unwrap_or_default();
    if availability.len() > np || availability.iter().any(|&a| a <= 0.0 || a > 1.0) {
        return Err(RunError::param(
            AVAILABILITY.name,
            format!("needs at most {np} values in (0, 1]"),
        ));
    }
    let platform = processors_platform(spec, np, &availability)?;
    let hosts: Vec<HostId> = (0..np as u32).map(HostId).collect();
    let av_steps = match spec.optional_text(&AVAILABILITY_STEPS)? {
        Some(s) => availability_steps(&s, np).map_err(|m| RunError::param(AVAILABILITY_STEPS.name, m))?,
        None => vec![Vec::new(); np],
    };
    let lat_steps = match spec.optional_text(&LATENCY_STEPS)? {
        Some(s) => latency_steps(&s).map_err(|m| RunError::param(LATENCY_STEPS.name, m))?,
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
    Ok(Processors {
        platform,
        hosts,
        first_change_s,
    })
}

//! `[platform.availability]`: hosts that come and go as a trace says.
//!
//! The trace is either a Failure Trace Archive `event_trace.tab` (per-node availability
//! intervals, turned into state profiles by `traces::fta::availability`) or one SimGrid state
//! profile (`date value` lines, `LOOPAFTER`/`PERIODICITY`), which every receiving host gets.
//! A state profile switches a host off (value 0) and on again; the engine fails whatever runs
//! on a host when it goes off, and the family decides what that means (the bag-of-tasks master
//! re-queues the lost chunk).
//!
//! Which hosts receive the trace: `hosts` (in that order), else every host of the platform in
//! platform order less `exclude`. FTA nodes are mapped onto them by `map`: `order` (the i-th
//! node by node id goes to the i-th host; extra nodes are unused, extra hosts stay always on)
//! or `name` (a node goes to the receiving host of the same name). A host's own `state_file`
//! from the platform is replaced. The trace's bytes and these options are hashed into the
//! platform's content hash, hence into every run's fingerprint.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use sim_core::platform::Platform;
use sim_core::profile::Profile;
use traces::failures::FailureModel;
use traces::fta::{availability, AvailabilityOptions, FtaReader, GapPolicy};
use traces::input::decompress;
use traces::TraceFormat;

use super::error::{list, Reporter};
use super::seed::StableHasher;
use super::spec::AvailabilitySpec;
use super::PlatformEntry;
use crate::tracefile::{self, located};
use schedulers::family::RunSpec;

/// How FTA nodes find their hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mapping {
    Order,
    Name,
}

/// The parsed trace: per-node profiles (FTA) or one profile for every host.
enum Parsed {
    Nodes(Vec<(String, Profile)>),
    Every(Profile),
}

/// Lays the availability trace (or each of a list of traces) over every platform entry, or
/// attaches the random failure model to it; reports problems and leaves the entries unchanged
/// when there are any. Returns whether the entries became a platform axis (several traces: one
/// entry per platform and trace, platform-major, named `platform + trace`).
pub(crate) fn apply(
    rep: &mut Reporter<'_>,
    path: &Path,
    spec: &toml::Spanned<AvailabilitySpec>,
    entries: &mut Vec<PlatformEntry>,
    warnings: &mut Vec<String>,
) -> bool {
    let a = spec.get_ref();
    let trace = match (&a.trace, &a.model) {
        (Some(_), Some(model)) => {
            rep.error(
                model.span(),
                "platform.availability.model",
                "`model` draws random failures and `trace` replays recorded ones: give one of them",
            );
            return false;
        }
        (None, None) => {
            rep.error(
                spec.span(),
                "platform.availability",
                "needs `trace` (an FTA or SimGrid profile file, or a list of them) or `model` (exponential, weibull)",
            );
            return false;
        }
        (None, Some(_)) => {
            random(rep, spec, entries);
            return false;
        }
        (Some(trace), None) => trace,
    };
    let model_only = [
        ("mtbf_s", a.mtbf_s.as_ref().map(|v| v.span())),
        ("mttr_s", a.mttr_s.as_ref().map(|v| v.span())),
        ("shape", a.shape.as_ref().map(|v| v.span())),
        ("horizon_s", a.horizon_s.as_ref().map(|v| v.span())),
    ];
    if let Some((key, span)) = model_only.into_iter().find_map(|(k, s)| s.map(|s| (k, s))) {
        rep.error(
            span,
            format!("platform.availability.{key}"),
            "applies to a random failure `model`, not to a `trace`",
        );
        return false;
    }
    let names: Vec<String> = match trace.get_ref() {
        toml::Value::String(name) => vec![name.clone()],
        toml::Value::Array(items) if !items.is_empty() && items.iter().all(|i| i.is_str()) => {
            items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect()
        }
        other => {
            rep.error(
                trace.span(),
                "platform.availability.trace",
                format!(
                    "must be a file name or a non-empty list of file names, not {} `{other}`",
                    other.type_str()
                ),
            );
            return false;
        }
    };
    let errors_before = rep.diagnostics.len();
    let mut per_trace = Vec::with_capacity(names.len());
    for name in &names {
        let mut copy = entries.clone();
        apply_trace(rep, path, spec, name, trace.span(), &mut copy, warnings);
        per_trace.push(copy);
    }
    if rep.diagnostics.len() > errors_before {
        return false;
    }
    if names.len() == 1 {
        *entries = per_trace.pop().unwrap_or_default();
        return false;
    }
    let mut out = Vec::with_capacity(entries.len() * names.len());
    for i in 0..entries.len() {
        for (name, traced) in names.iter().zip(&per_trace) {
            let mut entry = traced[i].clone();
            entry.name = format!("{} + {name}", entry.name);
            out.push(entry);
        }
    }
    *entries = out;
    true
}

/// Lays the trace file `name` over every entry (see [`apply`]).
fn apply_trace(
    rep: &mut Reporter<'_>,
    path: &Path,
    spec: &toml::Spanned<AvailabilitySpec>,
    name: &str,
    trace_span: std::ops::Range<usize>,
    entries: &mut [PlatformEntry],
    warnings: &mut Vec<String>,
) {
    let a = spec.get_ref();
    let resolved = path.parent().unwrap_or(Path::new("")).join(name);
    let bytes = match fs::read(&resolved) {
        Ok(b) => b,
        Err(e) => {
            rep.error(
                trace_span.clone(),
                "platform.availability.trace",
                format!(
                    "cannot read availability trace '{name}' ({}; paths are relative to the experiment file): {e}",
                    resolved.display()
                ),
            );
            return;
        }
    };
    let mapping = match a.map.as_ref().map(|m| m.get_ref().as_str()) {
        None | Some("order") => Mapping::Order,
        Some("name") => Mapping::Name,
        Some(other) => {
            let span = a.map.as_ref().map_or(spec.span(), |m| m.span());
            rep.error(
                span,
                "platform.availability.map",
                format!("unknown mapping '{other}' (valid: order, name)"),
            );
            return;
        }
    };
    let gaps = match a.gaps.as_ref().map(|g| g.get_ref().as_str()) {
        None | Some("off") => GapPolicy::Off,
        Some("on") => GapPolicy::On,
        Some(other) => {
            let span = a.gaps.as_ref().map_or(spec.span(), |g| g.span());
            rep.error(
                span,
                "platform.availability.gaps",
                format!("unknown gap state '{other}' (valid: off, on)"),
            );
            return;
        }
    };
    let offset_s = match &a.offset_s {
        Some(o) if !(o.get_ref().is_finite() && *o.get_ref() >= 0.0) => {
            rep.error(
                o.span(),
                "platform.availability.offset_s",
                "must be a non-negative number of seconds",
            );
            return;
        }
        Some(o) => *o.get_ref(),
        None => 0.0,
    };
    let Some(parsed) = parse(
        rep,
        spec,
        trace_span.clone(),
        &resolved,
        &bytes,
        AvailabilityOptions { offset_s, gaps },
    ) else {
        return;
    };
    if matches!(parsed, Parsed::Every(_)) {
        // Located at the first FTA-only key given, in file order.
        let fta_only = [
            ("map", a.map.as_ref().map(|m| m.span())),
            ("gaps", a.gaps.as_ref().map(|g| g.span())),
            ("offset_s", a.offset_s.as_ref().map(|o| o.span())),
        ]
        .into_iter()
        .filter_map(|(key, span)| span.map(|s| (key, s)))
        .min_by_key(|(_, s)| s.start);
        if let Some((key, span)) = fta_only {
            rep.error(
                span,
                format!("platform.availability.{key}"),
                "`map`, `gaps` and `offset_s` apply to an FTA trace; a SimGrid profile goes to every receiving host as it is",
            );
            return;
        }
    }
    let too_fine = match &parsed {
        Parsed::Every(profile) => super::platform::too_fine(Some(profile)).map(|s| ("", s)),
        Parsed::Nodes(nodes) => nodes
            .iter()
            .find_map(|(node, profile)| super::platform::too_fine(Some(profile)).map(|s| (node.as_str(), s))),
    };
    if let Some((node, spacing)) = too_fine {
        let whose = if node.is_empty() {
            String::new()
        } else {
            format!(" of node '{node}'")
        };
        warnings.push(format!(
            "{}: platform.availability.trace '{name}': the state profile{whose}: {}",
            path.display(),
            super::platform::spacing_problem(&spacing)
        ));
    }
    let mut hash = StableHasher::new();
    hash.bytes(&bytes);
    hash.str(&format!("{mapping:?} {gaps:?} {offset_s}"));
    let errors_before = rep.diagnostics.len();
    let mut updated = Vec::new();
    for entry in entries.iter() {
        let Some(receivers) = receivers(rep, spec, &entry.platform, &entry.name) else {
            continue;
        };
        let mut platform: Platform = (*entry.platform).clone();
        match &parsed {
            Parsed::Every(profile) => {
                for &h in &receivers {
                    platform.hosts[h].state_profile = Some(profile.clone());
                }
            }
            Parsed::Nodes(nodes) => {
                let mut assigned = 0;
                for (i, (node_name, profile)) in nodes.iter().enumerate() {
                    let host = match mapping {
                        Mapping::Order => receivers.get(i).copied(),
                        Mapping::Name => receivers
                            .iter()
                            .copied()
                            .find(|&h| &platform.hosts[h].name == node_name),
                    };
                    if let Some(h) = host {
                        platform.hosts[h].state_profile = Some(profile.clone());
                        assigned += 1;
                    }
                }
                if assigned == 0 {
                    rep.error(
                        spec.span(),
                        "platform.availability",
                        format!(
                            "no node of '{name}' maps to a host of platform '{}' (map = {}; nodes are named e.g. '{}')",
                            entry.name,
                            if mapping == Mapping::Name { "name" } else { "order" },
                            nodes.first().map_or("", |n| n.0.as_str())
                        ),
                    );
                    continue;
                }
            }
        }
        let mut h = StableHasher::with_offset(entry.content_hash);
        h.u64(hash.finish());
        updated.push((Arc::new(platform), h.finish()));
    }
    if rep.diagnostics.len() > errors_before {
        return;
    }
    for (entry, (platform, content_hash)) in entries.iter_mut().zip(updated) {
        entry.platform = platform;
        entry.content_hash = content_hash;
    }
}

fn parse(
    rep: &mut Reporter<'_>,
    spec: &toml::Spanned<AvailabilitySpec>,
    trace_span: std::ops::Range<usize>,
    resolved: &Path,
    bytes: &[u8],
    options: AvailabilityOptions,
) -> Option<Parsed> {
    let a = spec.get_ref();
    let field = "platform.availability.trace";
    let (_, mut reader) = match decompress(bytes) {
        Ok(r) => r,
        Err(e) => {
            rep.error(trace_span.clone(), field, format!("{}: {e}", resolved.display()));
            return None;
        }
    };
    let fta = match a.format.as_ref().map(|f| f.get_ref().as_str()) {
        Some("fta") => true,
        Some("profile") => false,
        Some(other) => {
            let span = a.format.as_ref().map_or(spec.span(), |f| f.span());
            rep.error(
                span,
                "platform.availability.format",
                format!("unknown availability format '{other}' (valid: fta, profile)"),
            );
            return None;
        }
        None => match tracefile::detect(resolved, &mut reader) {
            Ok(format) => format == Some(TraceFormat::Fta),
            Err(e) => {
                rep.error(trace_span.clone(), field, format!("{e:#}"));
                return None;
            }
        },
    };
    if fta {
        let events: Result<Vec<_>, _> = FtaReader::new(reader).collect();
        let result = events.and_then(|events| availability(events, &options));
        match result {
            Ok(avail) => Some(Parsed::Nodes(
                avail.nodes.into_iter().map(|n| (n.node_name, n.profile)).collect(),
            )),
            Err(e) => match &a.offset_s {
                // An offset beyond the trace's end: the culprit is `offset_s`, not the trace.
                Some(o) if e.line == 0 && e.message.contains("past the trace's end") => {
                    rep.error(
                        o.span(),
                        "platform.availability.offset_s",
                        format!("{} (trace '{}')", e.message, resolved.display()),
                    );
                    None
                }
                _ => {
                    rep.error(trace_span.clone(), field, format!("{:#}", located(resolved, &e)));
                    None
                }
            },
        }
    } else {
        let mut text = String::new();
        let limit = 64 << 20;
        if let Err(e) = std::io::Read::read_to_string(&mut std::io::Read::take(reader, limit), &mut text) {
            rep.error(trace_span.clone(), field, format!("{}: {e}", resolved.display()));
            return None;
        }
        match platforms::parse_profile(&text) {
            Ok(profile) => Some(Parsed::Every(profile)),
            Err(e) => {
                rep.error(
                    trace_span.clone(),
                    field,
                    format!(
                        "{}:{}: {} (read as a SimGrid state profile; set format = \"fta\" for an FTA trace)",
                        resolved.display(),
                        e.line,
                        e.message
                    ),
                );
                None
            }
        }
    }
}

/// The host indices that receive the trace on `platform`.
fn receivers(
    rep: &mut Reporter<'_>,
    spec: &toml::Spanned<AvailabilitySpec>,
    platform: &Platform,
    platform_name: &str,
) -> Option<Vec<usize>> {
    let a = spec.get_ref();
    let mut ok = true;
    let mut find = |rep: &mut Reporter<'_>, host: &toml::Spanned<String>, field: &str| -> Option<usize> {
        let id = platform.host_id(host.get_ref()).map(|h| h.0 as usize);
        if id.is_none() {
            ok = false;
            rep.error(
                host.span(),
                field,
                format!(
                    "platform '{platform_name}' has no host '{}' (its first hosts: {})",
                    host.get_ref(),
                    list(platform.hosts.iter().take(5).map(|h| h.name.as_str()))
                ),
            );
        }
        id
    };
    let excluded: Vec<usize> = a
        .exclude
        .iter()
        .filter_map(|h| find(rep, h, "platform.availability.exclude"))
        .collect();
    let chosen: Vec<usize> = match &a.hosts {
        Some(hosts) => hosts
            .get_ref()
            .iter()
            .filter_map(|h| find(rep, h, "platform.availability.hosts"))
            .filter(|h| !excluded.contains(h))
            .collect(),
        None => (0..platform.hosts.len()).filter(|h| !excluded.contains(h)).collect(),
    };
    ok.then_some(chosen)
}

/// Random host failures (`model`): the model, the hosts it applies to and its horizon. Drawn
/// per run by [`RandomFailures::draw`], from one random stream per host named after it and
/// derived from the run's seed: replications differ, and schedulers compared on one seed (common
/// random numbers) see the same failures.
#[derive(Debug)]
pub struct RandomFailures {
    /// Up and down periods.
    pub model: FailureModel,
    /// Host indices that fail, in platform order.
    pub hosts: Vec<usize>,
    /// Failures are drawn over this many seconds, then repeat.
    pub horizon_s: f64,
}

/// Default `horizon_s`: 1e7 s (about 116 days), longer than any bundled experiment's runs.
pub const DEFAULT_HORIZON_S: f64 = 1e7;

impl RandomFailures {
    /// `spec` with every failing host given a state profile drawn from the run's seed.
    pub fn draw(&self, spec: &RunSpec) -> Result<RunSpec, String> {
        let mut platform: Platform = (*spec.platform).clone();
        for &h in &self.hosts {
            let host = &mut platform.hosts[h];
            let mut rng = sim_core::rng::stream(spec.seed, &format!("availability.{}", host.name));
            host.state_profile = Some(
                self.model
                    .profile(&mut rng, self.horizon_s)
                    .map_err(|e| format!("[platform.availability]: {e}"))?,
            );
        }
        let mut drawn = spec.clone();
        drawn.platform = Arc::new(platform);
        Ok(drawn)
    }
}

/// Checks the random model's keys and attaches it to every entry.
fn random(rep: &mut Reporter<'_>, spec: &toml::Spanned<AvailabilitySpec>, entries: &mut [PlatformEntry]) {
    let a = spec.get_ref();
    let trace_only = [
        ("format", a.format.as_ref().map(|v| v.span())),
        ("map", a.map.as_ref().map(|v| v.span())),
        ("offset_s", a.offset_s.as_ref().map(|v| v.span())),
        ("gaps", a.gaps.as_ref().map(|v| v.span())),
    ];
    if let Some((key, span)) = trace_only.into_iter().find_map(|(k, s)| s.map(|s| (k, s))) {
        rep.error(
            span,
            format!("platform.availability.{key}"),
            "applies to a `trace`, not to a random failure `model`",
        );
        return;
    }
    let Some(model_name) = &a.model else { return };
    let positive = |rep: &mut Reporter<'_>, key: &str, value: &Option<toml::Spanned<f64>>| -> Option<f64> {
        match value {
            None => {
                rep.error(
                    model_name.span(),
                    format!("platform.availability.{key}"),
                    format!("model '{}' needs `{key}`", model_name.get_ref()),
                );
                None
            }
            Some(v) if !(v.get_ref().is_finite() && *v.get_ref() > 0.0) => {
                rep.error(
                    v.span(),
                    format!("platform.availability.{key}"),
                    "must be a positive number of seconds",
                );
                None
            }
            Some(v) => Some(*v.get_ref()),
        }
    };
    let mtbf = positive(rep, "mtbf_s", &a.mtbf_s);
    let mttr = positive(rep, "mttr_s", &a.mttr_s);
    let model = match model_name.get_ref().as_str() {
        "exponential" => {
            if let Some(shape) = &a.shape {
                rep.error(
                    shape.span(),
                    "platform.availability.shape",
                    "applies to model = \"weibull\" (the exponential model has none)",
                );
                return;
            }
            let (Some(mtbf_s), Some(mttr_s)) = (mtbf, mttr) else {
                return;
            };
            FailureModel::Exponential { mtbf_s, mttr_s }
        }
        "weibull" => {
            let shape = match &a.shape {
                None => {
                    rep.error(
                        model_name.span(),
                        "platform.availability.shape",
                        "model 'weibull' needs `shape` (e.g. 0.7; 1 is the exponential model)",
                    );
                    return;
                }
                Some(s) if !(s.get_ref().is_finite() && *s.get_ref() > 0.0) => {
                    rep.error(s.span(), "platform.availability.shape", "must be a positive number");
                    return;
                }
                Some(s) => *s.get_ref(),
            };
            let (Some(mtbf_s), Some(mttr_s)) = (mtbf, mttr) else {
                return;
            };
            FailureModel::Weibull { mtbf_s, mttr_s, shape }
        }
        other => {
            rep.error(
                model_name.span(),
                "platform.availability.model",
                format!("unknown failure model '{other}' (valid: exponential, weibull)"),
            );
            return;
        }
    };
    let horizon_s = match &a.horizon_s {
        None => DEFAULT_HORIZON_S,
        Some(h) => {
            let v = *h.get_ref();
            let events = model.expected_events(v);
            if !(v.is_finite() && v > 0.0) {
                rep.error(
                    h.span(),
                    "platform.availability.horizon_s",
                    "must be a positive number of seconds",
                );
                return;
            }
            if events > traces::failures::MAX_EVENTS_PER_HOST {
                rep.error(
                    h.span(),
                    "platform.availability.horizon_s",
                    format!(
                        "{v} s holds about {events:e} failures and repairs per host with mtbf_s + mttr_s = {}; at most {:e}",
                        match model {
                            FailureModel::Exponential { mtbf_s, mttr_s } | FailureModel::Weibull { mtbf_s, mttr_s, .. } =>
                                mtbf_s + mttr_s,
                        },
                        traces::failures::MAX_EVENTS_PER_HOST
                    ),
                );
                return;
            }
            v
        }
    };
    if a.horizon_s.is_none() && model.expected_events(horizon_s) > traces::failures::MAX_EVENTS_PER_HOST {
        rep.error(
            a.mtbf_s.as_ref().map_or(model_name.span(), |m| m.span()),
            "platform.availability.mtbf_s",
            format!(
                "mtbf_s + mttr_s is too short: the default horizon_s = {DEFAULT_HORIZON_S} would hold more than {:e} \
                 failures and repairs per host; set a shorter horizon_s",
                traces::failures::MAX_EVENTS_PER_HOST
            ),
        );
        return;
    }
    let mut hash = StableHasher::new();
    hash.str(&format!("random failures {model:?} {horizon_s}"));
    let errors_before = rep.diagnostics.len();
    let mut attached = Vec::new();
    for entry in entries.iter() {
        if let Some(hosts) = receivers(rep, spec, &entry.platform, &entry.name) {
            let mut h = StableHasher::with_offset(entry.content_hash);
            h.u64(hash.finish());
            for &host in &hosts {
                h.u64(host as u64);
            }
            attached.push((
                Arc::new(RandomFailures {
                    model,
                    hosts,
                    horizon_s,
                }),
                h.finish(),
            ));
        }
    }
    if rep.diagnostics.len() > errors_before {
        return;
    }
    for (entry, (failures, content_hash)) in entries.iter_mut().zip(attached) {
        entry.failures = Some(failures);
        entry.content_hash = content_hash;
    }
}

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
use traces::fta::{availability, AvailabilityOptions, FtaReader, GapPolicy};
use traces::input::decompress;
use traces::TraceFormat;

use super::error::{list, Reporter};
use super::seed::StableHasher;
use super::spec::AvailabilitySpec;
use super::PlatformEntry;
use crate::tracefile::{self, located};

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

/// Lays the availability trace over every platform entry; reports problems and leaves the
/// entries unchanged when there are any.
pub(crate) fn apply(
    rep: &mut Reporter<'_>,
    path: &Path,
    spec: &toml::Spanned<AvailabilitySpec>,
    entries: &mut [PlatformEntry],
    warnings: &mut Vec<String>,
) {
    let a = spec.get_ref();
    let name = a.trace.get_ref().clone();
    let resolved = path.parent().unwrap_or(Path::new("")).join(&name);
    let bytes = match fs::read(&resolved) {
        Ok(b) => b,
        Err(e) => {
            rep.error(
                a.trace.span(),
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
    let Some(parsed) = parse(rep, spec, &resolved, &bytes, AvailabilityOptions { offset_s, gaps }) else {
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
    resolved: &Path,
    bytes: &[u8],
    options: AvailabilityOptions,
) -> Option<Parsed> {
    let a = spec.get_ref();
    let field = "platform.availability.trace";
    let (_, mut reader) = match decompress(bytes) {
        Ok(r) => r,
        Err(e) => {
            rep.error(a.trace.span(), field, format!("{}: {e}", resolved.display()));
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
                rep.error(a.trace.span(), field, format!("{e:#}"));
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
                    rep.error(a.trace.span(), field, format!("{:#}", located(resolved, &e)));
                    None
                }
            },
        }
    } else {
        let mut text = String::new();
        let limit = 64 << 20;
        if let Err(e) = std::io::Read::read_to_string(&mut std::io::Read::take(reader, limit), &mut text) {
            rep.error(a.trace.span(), field, format!("{}: {e}", resolved.display()));
            return None;
        }
        match platforms::parse_profile(&text) {
            Ok(profile) => Some(Parsed::Every(profile)),
            Err(e) => {
                rep.error(
                    a.trace.span(),
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

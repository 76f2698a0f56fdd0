//! `[platform]`: platform files, or generated platforms, loaded once per distinct platform.
//!
//! Generators (from the `platforms` crate) and their parameters:
//!
//! | generator | parameter | default |
//! |---|---|---|
//! | `random_grid` | `hosts`, `cores`, `extra_links` | 20, 1, 10 |
//! | | `speed_flops_min`, `speed_flops_max` (flop/s) | 22.151e6, 171.667e6 |
//! | | `bandwidth_bytes_per_s_min`, `bandwidth_bytes_per_s_max` | 251.6e3, 255.2e6 |
//! | | `latency_s_min`, `latency_s_max` | 19.8e-6, 35.1e-3 |
//! | | `seed` (the platform's own seed, not the run's) | 1 |
//! | `homogeneous_cluster` | `hosts`, `speed_flops`, `bandwidth_bytes_per_s`, `latency_s`, `backbone_bandwidth_bytes_per_s`, `backbone_latency_s` | all required |
//! | `torus`, `fat_tree`, `dragonfly` | `topo_parameters` (SimGrid's), `speed_flops`, `bandwidth_bytes_per_s`, `latency_s` | required |
//! | | `cores`; `sharing_policy` (`SPLITDUPLEX` or `SHARED`) | 1; `SPLITDUPLEX` |
//! | | `loopback_bandwidth_bytes_per_s` with `loopback_latency_s`, `limiter_bandwidth_bytes_per_s` | none |
//!
//! The last three are SimGrid's `<cluster topology=...>` ([`platforms::topology_cluster`]); their
//! size is `topo_parameters`, so a list of parameter strings sweeps the topology's size.
//!
//! A generated platform is named by its generator and parameters, e.g.
//! `random_grid(hosts=16, seed=1)`; any parameter given as a list makes `platform` a sweep axis
//! with one generated platform per combination. That name is the `platform` column's value (a
//! key: records and `where` match it); figures show a short label instead
//! ([`PlatformEntry::label`]): the generator, the host count and the parameters that vary
//! (`homogeneous_cluster (85 hosts, speed_flops=2000000000)`), or a file's stem.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use platforms::RandomGridParams;
use sim_core::platform::Platform;

use super::error::{list, Reporter};
use super::seed::StableHasher;
use super::spec::ExperimentSpec;
use super::{convert_param, product, Param, PlatformEntry};
use crate::output::format_value;
use schedulers::family::ParamValue;

/// The generators and the parameters each accepts.
pub const GENERATORS: &[(&str, &[&str])] = &[
    (
        "random_grid",
        &[
            "hosts",
            "cores",
            "extra_links",
            "speed_flops_min",
            "speed_flops_max",
            "bandwidth_bytes_per_s_min",
            "bandwidth_bytes_per_s_max",
            "latency_s_min",
            "latency_s_max",
            "seed",
        ],
    ),
    (
        "homogeneous_cluster",
        &[
            "hosts",
            "speed_flops",
            "bandwidth_bytes_per_s",
            "latency_s",
            "backbone_bandwidth_bytes_per_s",
            "backbone_latency_s",
        ],
    ),
    ("torus", TOPOLOGY_PARAMS),
    ("fat_tree", TOPOLOGY_PARAMS),
    ("dragonfly", TOPOLOGY_PARAMS),
];

/// The parameters of the `torus`, `fat_tree` and `dragonfly` generators.
const TOPOLOGY_PARAMS: &[&str] = &[
    "topo_parameters",
    "speed_flops",
    "bandwidth_bytes_per_s",
    "latency_s",
    "cores",
    "sharing_policy",
    "loopback_bandwidth_bytes_per_s",
    "loopback_latency_s",
    "limiter_bandwidth_bytes_per_s",
];

/// The platforms `[platform]` describes, and whether `platform` is a sweep axis.
pub(crate) fn resolve(rep: &mut Reporter<'_>, path: &Path, spec: &ExperimentSpec) -> (Vec<PlatformEntry>, bool) {
    let platform = spec.platform.get_ref();
    match (&platform.file, &platform.generator) {
        (Some(file), None) => {
            if let Some((k, _)) = platform.params.iter().next() {
                rep.error(
                    k.span(),
                    "platform.params",
                    "parameters apply to a `generator`, not to a `file`",
                );
            }
            let axis = matches!(file.get_ref(), toml::Value::Array(_));
            (files(rep, path, file), axis)
        }
        (None, Some(generator)) => generated(rep, generator, &platform.params),
        (Some(file), Some(_)) => {
            rep.error(file.span(), "platform", "give either `file` or `generator`, not both");
            (Vec::new(), false)
        }
        (None, None) => {
            rep.error(
                spec.platform.span(),
                "platform",
                "needs `file = \"path/to/platform.xml\"` (or a list of files) or `generator = \"random_grid\"`",
            );
            (Vec::new(), false)
        }
    }
}

fn files(rep: &mut Reporter<'_>, path: &Path, file: &toml::Spanned<toml::Value>) -> Vec<PlatformEntry> {
    let names: Vec<String> = match file.get_ref() {
        toml::Value::String(s) => vec![s.clone()],
        toml::Value::Array(items) if !items.is_empty() && items.iter().all(|i| i.is_str()) => {
            items.iter().filter_map(|i| i.as_str().map(String::from)).collect()
        }
        _ => {
            rep.error(
                file.span(),
                "platform.file",
                "must be a file name or a non-empty list of file names",
            );
            return Vec::new();
        }
    };
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut entries: Vec<PlatformEntry> = Vec::new();
    for name in names {
        if entries.iter().any(|e| e.name == name) {
            rep.error(file.span(), "platform.file", format!("'{name}' is listed twice"));
            continue;
        }
        let resolved = dir.join(&name);
        let bytes = match fs::read(&resolved) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                rep.error(
                    file.span(),
                    "platform.file",
                    format!(
                        "platform file '{name}' not found (looked for {}; paths are relative to the experiment file)",
                        resolved.display()
                    ),
                );
                continue;
            }
            Err(e) => {
                rep.error(
                    file.span(),
                    "platform.file",
                    format!("cannot read platform file '{name}': {e}"),
                );
                continue;
            }
        };
        match platforms::load_platform(&resolved) {
            Ok(p) => {
                let mut h = StableHasher::new();
                h.bytes(&bytes);
                entries.push(PlatformEntry {
                    label: name.clone(),
                    name,
                    platform: Arc::new(p),
                    content_hash: h.finish(),
                    failures: None,
                });
            }
            Err(e) => rep.error(
                file.span(),
                "platform.file",
                format!("cannot load platform '{name}': {e}"),
            ),
        }
    }
    // Figures show each file's stem, unless two files share it.
    let stems: Vec<String> = entries
        .iter()
        .map(|e| {
            Path::new(&e.name)
                .file_stem()
                .map_or_else(|| e.name.clone(), |s| s.to_string_lossy().into_owned())
        })
        .collect();
    for (i, entry) in entries.iter_mut().enumerate() {
        if !stems[i].is_empty() && stems.iter().filter(|s| **s == stems[i]).count() == 1 {
            entry.label = stems[i].clone();
        }
    }
    entries
}

/// A generated platform's label for figures: the generator and the host count, then the
/// parameters that vary between the experiment's platforms (`varying`, name and value; `hosts`
/// is the count already), which tell every platform of the sweep apart. The parameters that
/// do not vary are left out: the experiment file states them, and the whole generator string
/// is wider than an axis.
fn generated_label(generator: &str, hosts: usize, varying: &[(&str, &ParamValue)]) -> String {
    let mut parts = vec![format!("{hosts} hosts")];
    parts.extend(
        varying
            .iter()
            .filter(|(k, _)| *k != "hosts")
            .map(|(k, v)| format!("{k}={}", format_value(v))),
    );
    format!("{generator} ({})", parts.join(", "))
}

fn generated(
    rep: &mut Reporter<'_>,
    generator: &toml::Spanned<String>,
    table: &super::spec::ParamTable,
) -> (Vec<PlatformEntry>, bool) {
    let Some((gen_name, accepted)) = GENERATORS.iter().find(|(g, _)| g == generator.get_ref()) else {
        rep.error(
            generator.span(),
            "platform.generator",
            format!(
                "unknown generator '{}' (valid: {})",
                generator.get_ref(),
                list(GENERATORS.iter().map(|(g, _)| *g))
            ),
        );
        return (Vec::new(), false);
    };
    let params: Vec<Param> = table
        .iter()
        .filter_map(|(k, v)| convert_param(rep, "platform.params", k, v))
        .collect();
    let mut ok = true;
    for p in &params {
        if !accepted.contains(&p.name.as_str()) {
            rep.error(
                p.span.clone(),
                &p.field,
                format!(
                    "unknown parameter '{}' for generator '{gen_name}' (valid: {})",
                    p.name,
                    list(accepted.iter())
                ),
            );
            ok = false;
        }
    }
    if !ok {
        return (Vec::new(), false);
    }
    let axis = params.iter().any(|p| p.axis);
    let mut entries = Vec::new();
    for values in product(&params) {
        let given: BTreeMap<&str, &ParamValue> = params.iter().map(|p| p.name.as_str()).zip(values.iter()).collect();
        let label = format!(
            "{gen_name}({})",
            given
                .iter()
                .map(|(k, v)| format!("{k}={}", format_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let built = match *gen_name {
            "random_grid" => random_grid(&given),
            "homogeneous_cluster" => cluster(&given),
            "torus" => topology_cluster("TORUS", &given),
            "fat_tree" => topology_cluster("FAT_TREE", &given),
            _ => topology_cluster("DRAGONFLY", &given),
        };
        match built {
            Ok(platform) => {
                let mut h = StableHasher::new();
                h.str(&label);
                let varying: Vec<(&str, &ParamValue)> = params
                    .iter()
                    .zip(&values)
                    .filter(|(p, _)| p.values.len() > 1)
                    .map(|(p, v)| (p.name.as_str(), v))
                    .collect();
                entries.push(PlatformEntry {
                    label: generated_label(gen_name, platform.hosts.len(), &varying),
                    name: label,
                    platform: Arc::new(platform),
                    content_hash: h.finish(),
                    failures: None,
                });
            }
            Err((culprits, message)) => {
                // Located at the first culprit parameter the user gave, else at `generator`
                // (a default value cannot be wrong on its own).
                let at = culprits
                    .iter()
                    .find_map(|c| params.iter().find(|p| p.name == *c))
                    .map_or((generator.span(), "platform.generator".to_string()), |p| {
                        (p.span.clone(), p.field.clone())
                    });
                rep.error(at.0, at.1, format!("cannot generate {label}: {message}"));
            }
        }
    }
    (entries, axis)
}

/// A generator failure: the parameters it may be about (the first one given is blamed), and
/// the message.
type GenError = (Vec<&'static str>, String);

fn get_f64(given: &BTreeMap<&str, &ParamValue>, name: &'static str, default: Option<f64>) -> Result<f64, GenError> {
    match given.get(name) {
        Some(v) => v
            .as_f64()
            .ok_or_else(|| (vec![name], format!("parameter '{name}' must be a number, not '{v}'"))),
        None => default.ok_or_else(|| (vec![name], format!("parameter '{name}' is required"))),
    }
}

fn get_u64(given: &BTreeMap<&str, &ParamValue>, name: &'static str, default: Option<u64>) -> Result<u64, GenError> {
    match given.get(name) {
        Some(v) => v.as_u64().ok_or_else(|| {
            (
                vec![name],
                format!("parameter '{name}' must be a non-negative integer, not '{v}'"),
            )
        }),
        None => default.ok_or_else(|| (vec![name], format!("parameter '{name}' is required"))),
    }
}

/// The experiment parameters a [`platforms::GeneratorError`] is about: the generator's own
/// parameter named in experiment terms (a range by the end at fault first).
fn generator_error(e: platforms::GeneratorError) -> GenError {
    let range = |min: &'static str, max: &'static str| if e.upper { vec![max, min] } else { vec![min, max] };
    let culprits = match e.parameter {
        Some("hosts" | "n") => vec!["hosts"],
        Some("cores") => vec!["cores"],
        Some("speed_flops") => range("speed_flops_min", "speed_flops_max"),
        Some("bandwidth") => range("bandwidth_bytes_per_s_min", "bandwidth_bytes_per_s_max"),
        Some("latency") => range("latency_s_min", "latency_s_max"),
        Some("extra_links") => vec!["extra_links", "hosts"],
        Some("speed") => vec!["speed_flops"],
        Some("bw") => vec!["bandwidth_bytes_per_s"],
        Some("lat") => vec!["latency_s"],
        Some("bb_bw") => vec!["backbone_bandwidth_bytes_per_s"],
        Some("bb_lat") => vec!["backbone_latency_s"],
        Some("topo_parameters") => vec!["topo_parameters"],
        Some("loopback_bw") => vec!["loopback_bandwidth_bytes_per_s"],
        Some("loopback_lat") => vec!["loopback_latency_s"],
        Some("limiter") => vec!["limiter_bandwidth_bytes_per_s"],
        _ => Vec::new(),
    };
    (culprits, e.to_string())
}

fn random_grid(given: &BTreeMap<&str, &ParamValue>) -> Result<Platform, GenError> {
    let d = RandomGridParams::default();
    let cores = get_u64(given, "cores", Some(d.cores as u64))?;
    let params = RandomGridParams {
        hosts: get_u64(given, "hosts", Some(d.hosts as u64))? as usize,
        speed_flops: (
            get_f64(given, "speed_flops_min", Some(d.speed_flops.0))?,
            get_f64(given, "speed_flops_max", Some(d.speed_flops.1))?,
        ),
        cores: u32::try_from(cores).map_err(|_| (vec!["cores"], format!("parameter 'cores' is too large: {cores}")))?,
        bandwidth: (
            get_f64(given, "bandwidth_bytes_per_s_min", Some(d.bandwidth.0))?,
            get_f64(given, "bandwidth_bytes_per_s_max", Some(d.bandwidth.1))?,
        ),
        latency: (
            get_f64(given, "latency_s_min", Some(d.latency.0))?,
            get_f64(given, "latency_s_max", Some(d.latency.1))?,
        ),
        extra_links: get_u64(given, "extra_links", Some(d.extra_links as u64))? as usize,
    };
    if params.hosts > 100_000 {
        return Err((
            vec!["hosts"],
            format!("parameter 'hosts' = {} is more than 100000", params.hosts),
        ));
    }
    let seed = get_u64(given, "seed", Some(1))?;
    platforms::random_grid(&params, seed).map_err(generator_error)
}

fn cluster(given: &BTreeMap<&str, &ParamValue>) -> Result<Platform, GenError> {
    let hosts = get_u64(given, "hosts", None)?;
    if hosts > 100_000 {
        return Err((
            vec!["hosts"],
            format!("parameter 'hosts' = {hosts} is more than 100000"),
        ));
    }
    platforms::homogeneous_cluster(
        hosts as usize,
        get_f64(given, "speed_flops", None)?,
        get_f64(given, "bandwidth_bytes_per_s", None)?,
        get_f64(given, "latency_s", None)?,
        get_f64(given, "backbone_bandwidth_bytes_per_s", None)?,
        get_f64(given, "backbone_latency_s", None)?,
    )
    .map_err(generator_error)
}

/// A `torus`, `fat_tree` or `dragonfly` platform: SimGrid's `<cluster topology=...>`.
fn topology_cluster(topology: &str, given: &BTreeMap<&str, &ParamValue>) -> Result<Platform, GenError> {
    let text = |name: &'static str, default: Option<&str>| -> Result<String, GenError> {
        match given.get(name) {
            Some(v) => v
                .as_str()
                .map(String::from)
                .ok_or_else(|| (vec![name], format!("parameter '{name}' must be a string, not '{v}'"))),
            None => default
                .map(String::from)
                .ok_or_else(|| (vec![name], format!("parameter '{name}' is required"))),
        }
    };
    let split = match text("sharing_policy", Some("SPLITDUPLEX"))?.as_str() {
        "SPLITDUPLEX" => true,
        "SHARED" => false,
        other => {
            return Err((
                vec!["sharing_policy"],
                format!("parameter 'sharing_policy' must be SPLITDUPLEX or SHARED, not '{other}'"),
            ))
        }
    };
    let loopback = match (
        given.contains_key("loopback_bandwidth_bytes_per_s"),
        given.contains_key("loopback_latency_s"),
    ) {
        (true, _) => Some((
            get_f64(given, "loopback_bandwidth_bytes_per_s", None)?,
            get_f64(given, "loopback_latency_s", Some(0.0))?,
        )),
        (false, true) => {
            return Err((
                vec!["loopback_latency_s"],
                "parameter 'loopback_latency_s' needs 'loopback_bandwidth_bytes_per_s'".into(),
            ))
        }
        (false, false) => None,
    };
    let limiter = match given.contains_key("limiter_bandwidth_bytes_per_s") {
        true => Some(get_f64(given, "limiter_bandwidth_bytes_per_s", None)?),
        false => None,
    };
    let cores = get_u64(given, "cores", Some(1))?;
    platforms::topology_cluster(&platforms::TopologyClusterParams {
        topology: topology.into(),
        parameters: text("topo_parameters", None)?,
        speed: get_f64(given, "speed_flops", None)?,
        cores: u32::try_from(cores).map_err(|_| (vec!["cores"], format!("parameter 'cores' is too large: {cores}")))?,
        bw: get_f64(given, "bandwidth_bytes_per_s", None)?,
        lat: get_f64(given, "latency_s", None)?,
        split,
        loopback,
        limiter,
    })
    .map_err(generator_error)
}

/// Warnings about the profiles of a platform whose events come closer than the engine's time
/// precision ([`sim_core::time::EPSILON`]), one per kind of profile and spacing, naming the
/// platform, the first resource that has it and how many others do: such a profile makes more
/// events than any run can process (a state toggling every 1e-12 s is 1e12 events a simulated
/// second), so its runs end only by their event budget. A warning, not an error: the profile
/// is valid, and a run that ends before it matters is sound.
pub(crate) fn profile_warnings(experiment: &Path, entry: &str, platform: &Platform) -> Vec<String> {
    let mut found: BTreeMap<(&str, &str, String), (&str, usize)> = BTreeMap::new();
    let hosts = platform.hosts.iter().flat_map(|h| {
        [("speed", &h.speed_profile), ("state", &h.state_profile)]
            .map(move |(kind, p)| ("host", h.name.as_str(), kind, p))
    });
    let links = platform.links.iter().flat_map(|l| {
        [
            ("bandwidth", &l.bandwidth_profile),
            ("latency", &l.latency_profile),
            ("state", &l.state_profile),
        ]
        .map(move |(kind, p)| ("link", l.name.as_str(), kind, p))
    });
    for (resource, name, kind, profile) in hosts.chain(links) {
        if let Some(spacing) = too_fine(profile.as_ref()) {
            found
                .entry((resource, kind, spacing))
                .and_modify(|(_, n)| *n += 1)
                .or_insert((name, 0));
        }
    }
    found
        .into_iter()
        .map(|((resource, kind, spacing), (first, others))| {
            let others = match others {
                0 => String::new(),
                1 => format!(" (and 1 other {resource})"),
                n => format!(" (and {n} other {resource}s)"),
            };
            format!(
                "{}: platform '{entry}': {resource} '{first}'{others}: {kind} profile: {}",
                experiment.display(),
                spacing_problem(&spacing)
            )
        })
        .collect()
}

/// The spacing of a profile's events, written out, when it is below the engine's time
/// precision.
pub(crate) fn too_fine(profile: Option<&sim_core::profile::Profile>) -> Option<String> {
    let spacing = profile?.finest_spacing()?;
    (spacing < sim_core::time::EPSILON).then(|| format!("{spacing:e}"))
}

/// What is wrong with events `spacing` seconds apart.
pub(crate) fn spacing_problem(spacing: &str) -> String {
    format!(
        "events {spacing} s apart, closer than the engine's time precision ({:e} s): such a profile makes more \
         events than a run can process, so its runs may end only by their [limits] event budget",
        sim_core::time::EPSILON
    )
}

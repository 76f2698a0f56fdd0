//! The network model's parameters: SimGrid 3.32's default LV08 model, CM02, SMPI, Constant,
//! and a "raw" variant.
//!
//! LV08 (Velho & Legrand, "Accuracy study and improvement of network simulation in the SimGrid
//! framework", SIMUTools 2009), as SimGrid 3.32 applies it to a message of `S` bytes on a route of
//! links `l` with raw latency `L = Σ lat_l`:
//!
//! 1. the message first waits `latency_factor · L` (13.01 · L);
//! 2. it then becomes a max-min variable with sharing penalty `L + Σ_l weight_s / B_l`
//!    (`weight_s` = 20537: long-RTT flows get less, as with TCP), upper bound
//!    `min(min_l B_l, tcp_gamma / (2 L))` (the TCP window limit, `tcp_gamma` = 4194304 bytes),
//!    consumption weight 1 on every link of the route and `crosstraffic` (0.05) on every link of
//!    the reverse route (the ACKs; a link on both gets 1.05);
//! 3. it progresses at `bandwidth_factor` (0.97) times its max-min value.
//!
//! Alone on its route a message therefore takes
//! `T = 13.01 L + S / (0.97 · min(min_l B_l / w_l, 4194304 / (2 L)))`.
//!
//! A message from a host to itself with no declared route crosses SimGrid's loopback: a FATPIPE
//! of `loopback_bandwidth` and `loopback_latency`.
//!
//! The "raw" variant is the textbook model: no latency or bandwidth factor, no TCP window bound,
//! no cross traffic and equal penalties (plain max-min), so a flow alone takes `L + S / min_l B_l`.
//!
//! SimGrid 3.32's SMPI model (`network/model:SMPI`; Clauss et al., "Single node on-line
//! simulation of MPI applications with SMPI", IPDPS 2011) is LV08 with `weight_s` = 8775 and
//! factors that depend on the message size `S` ([`SizeFactors`]): the latency factor from
//! `smpi/lat-factor`, the bandwidth factor from `smpi/bw-factor`, each a list
//! `size:value;size:value;...` whose value for `S` is the one of the largest listed size below
//! `S` (1 when `S` is at most the smallest). The bandwidth factor scales the rate of the comm,
//! not the links' capacity, as in LV08. Checked against SimGrid 3.32 on `config.xml` (the
//! SimGrid agreement scenarios `random_config_*`), including sizes equal to listed ones.
//!
//! SimGrid 3.32's Constant model (`network/model:Constant`, its `NetworkConstantModel`, meant
//! for theoretical algorithms where the network is abstracted away) gives every comm a duration
//! of `latency_factor` seconds (`network/latency-factor`, whose default is 13.01 there as under
//! LV08), whatever its size and hosts: no route, no link, no sharing; the remaining bytes fall
//! linearly over that time. The model reads no other setting and takes no link (SimGrid aborts
//! on one), so both are refused ([`NetworkParams::check_platform`]). SimGrid itself ends a comm
//! only at a step at which its remaining bytes, taken down at every step of the simulation, are
//! at most 0, and may end it later or never by rounding; gridsim gives the stated duration
//! (scripts/ORACLE.md, defect (c)). Checked against SimGrid 3.32 on
//! `small_platform_routing_none.xml` and `faulty_host.xml` (`constant_model`,
//! `random_constant_*`).

use std::collections::BTreeMap;

/// Named, overridable constants of the network model.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkParams {
    /// Multiplies the route latency before the transfer starts (SimGrid `network/latency-factor`).
    pub latency_factor: f64,
    /// Multiplies the max-min share (SimGrid `network/bandwidth-factor`).
    pub bandwidth_factor: f64,
    /// RTT penalty constant, bytes (SimGrid `network/weight-S`); 0 disables the Σ term.
    pub weight_s: f64,
    /// TCP window, bytes (SimGrid `network/TCP-gamma`); 0 disables the bound.
    pub tcp_gamma: f64,
    /// Consumption weight on the reverse route; 0 disables cross traffic
    /// (SimGrid `network/crosstraffic`).
    pub crosstraffic: f64,
    /// Penalise flows by their RTT (`L + Σ weight_s / B_l`); when false every flow has penalty 1.
    pub rtt_penalty: bool,
    /// Loopback bandwidth, bytes/s (SimGrid `network/loopback-bw`).
    pub loopback_bandwidth: f64,
    /// Loopback latency, seconds (SimGrid `network/loopback-lat`).
    pub loopback_latency: f64,
    /// Latency factor by message size; replaces `latency_factor` when set (SMPI model,
    /// `smpi/lat-factor`).
    pub latency_factors: Option<SizeFactors>,
    /// Bandwidth factor by message size; replaces `bandwidth_factor` when set (SMPI model,
    /// `smpi/bw-factor`).
    pub bandwidth_factors: Option<SizeFactors>,
    /// SimGrid's Constant model: every comm takes `latency_factor` seconds, whatever its size
    /// and hosts; it uses no route and no link, and the other fields are not read.
    pub constant: bool,
}

/// Factors that depend on a message's size, as SimGrid's SMPI model reads them from a list
/// `size:value;...`: sorted by size, the factor of a message of `S` bytes is the value of the
/// largest size strictly below `S`, and 1 when there is none (so a 0-byte message gets 1).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeFactors {
    /// (size in bytes, factor), by increasing size.
    steps: Vec<(f64, f64)>,
}

impl SizeFactors {
    /// Parses `size:value;size:value;...` (sizes whole numbers of bytes, values non-negative).
    pub fn parse(text: &str) -> Result<SizeFactors, String> {
        let mut steps = Vec::new();
        for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (size, value) = part
                .split_once(':')
                .ok_or_else(|| format!("'{part}' is not size:value"))?;
            let size: u64 = size
                .trim()
                .parse()
                .map_err(|_| format!("size '{}' is not a whole number of bytes", size.trim()))?;
            let value: f64 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("factor '{}' is not a non-negative number", value.trim()))?;
            steps.push((size as f64, value));
        }
        if steps.is_empty() {
            return Err("expected size:value pairs separated by ';'".into());
        }
        steps.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(SizeFactors { steps })
    }

    /// The factor of a message of `size` bytes.
    pub fn factor(&self, size: f64) -> f64 {
        let mut current = 1.0;
        for &(threshold, value) in &self.steps {
            if size <= threshold {
                return current;
            }
            current = value;
        }
        current
    }
}

/// SimGrid 3.32's defaults of `smpi/lat-factor` and `smpi/bw-factor`.
const SMPI_LATENCY_FACTORS: &str =
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467";
const SMPI_BANDWIDTH_FACTORS: &str = "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;\
                                      1426:0.608902;732:0.341987;257:0.338112;0:0.812084";

/// A bad network setting in a platform's configuration.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[allow(missing_docs)] // fields are named in the messages
pub enum ConfigError {
    /// The key is not a network setting gridsim knows.
    #[error("unknown network setting '{key}' (known: {known})")]
    UnknownKey { key: String, known: String },
    /// The value cannot be used for this key.
    #[error("network setting '{key}': bad value '{value}': {why}")]
    BadValue { key: String, value: String, why: String },
    /// A host's energy properties (`wattage_per_state`, `wattage_off`) do not parse; the
    /// message names the host and the property.
    #[error("{0}")]
    HostPower(String),
}

const KNOWN_KEYS: &[&str] = &[
    "network/model",
    "network/latency-factor",
    "network/bandwidth-factor",
    "network/weight-S",
    "network/TCP-gamma",
    "network/crosstraffic",
    "network/loopback-bw",
    "network/loopback-lat",
];

impl Default for NetworkParams {
    fn default() -> Self {
        NetworkParams::lv08()
    }
}

impl NetworkParams {
    /// SimGrid 3.32's default network model.
    pub fn lv08() -> NetworkParams {
        NetworkParams {
            latency_factor: 13.01,
            bandwidth_factor: 0.97,
            weight_s: 20537.0,
            tcp_gamma: 4_194_304.0,
            crosstraffic: 0.05,
            rtt_penalty: true,
            loopback_bandwidth: 10e9,
            loopback_latency: 0.0,
            latency_factors: None,
            bandwidth_factors: None,
            constant: false,
        }
    }

    /// SimGrid 3.32's Constant model (see the module docs): every comm lasts `latency_factor`
    /// seconds, 13.01 unless `network/latency-factor` says otherwise.
    pub fn constant() -> NetworkParams {
        NetworkParams {
            constant: true,
            ..NetworkParams::lv08()
        }
    }

    /// How long every comm lasts under the Constant model: the latency factor, whatever its
    /// size (a comm of no byte included).
    pub fn constant_duration(&self) -> f64 {
        self.latency_factor
    }

    /// Refuses a platform the Constant model cannot run on: SimGrid 3.32 aborts on the first
    /// link such a platform declares (`NetworkConstantModel::create_link`), so gridsim refuses
    /// it rather than leave the links silently unused. Other models take any platform.
    pub fn check_platform(&self, platform: &crate::platform::Platform) -> Result<(), ConfigError> {
        if self.constant {
            if let Some(link) = platform.links.first() {
                return Err(ConfigError::BadValue {
                    key: "network/model".into(),
                    value: "Constant".into(),
                    why: format!(
                        "the Constant model has no links, and the platform declares link '{}' \
                         (remove every link, cluster and backbone, and use routing=\"None\", as \
                         SimGrid requires)",
                        link.name
                    ),
                });
            }
        }
        Ok(())
    }

    /// SimGrid 3.32's SMPI model: LV08 with `weight_s` 8775 and its default size-dependent
    /// factors (see the module docs).
    pub fn smpi() -> NetworkParams {
        NetworkParams {
            latency_factor: 1.0,
            bandwidth_factor: 1.0,
            weight_s: 8775.0,
            latency_factors: Some(SizeFactors::parse(SMPI_LATENCY_FACTORS).expect("valid default")),
            bandwidth_factors: Some(SizeFactors::parse(SMPI_BANDWIDTH_FACTORS).expect("valid default")),
            ..NetworkParams::lv08()
        }
    }

    /// The factor a comm of `bytes` multiplies its route latency by.
    pub fn latency_factor_for(&self, bytes: f64) -> f64 {
        match &self.latency_factors {
            Some(f) => f.factor(bytes),
            None => self.latency_factor,
        }
    }

    /// The work a comm of `bytes` does at its rate of max-min value times `bandwidth_factor`:
    /// `bytes`, or with size-dependent factors `bytes` over its factor (so that it progresses at
    /// its own factor times its max-min value).
    pub fn comm_work(&self, bytes: f64) -> f64 {
        match &self.bandwidth_factors {
            Some(f) => bytes / f.factor(bytes),
            None => bytes,
        }
    }

    /// SimGrid's CM02 model: LV08 without its calibration factors (`latency_factor` 1,
    /// `bandwidth_factor` 1, `weight_s` 0).
    pub fn cm02() -> NetworkParams {
        NetworkParams {
            latency_factor: 1.0,
            bandwidth_factor: 1.0,
            weight_s: 0.0,
            ..NetworkParams::lv08()
        }
    }

    /// The textbook model: plain max-min, `T = L + S / B` alone.
    pub fn raw() -> NetworkParams {
        NetworkParams {
            latency_factor: 1.0,
            bandwidth_factor: 1.0,
            weight_s: 0.0,
            tcp_gamma: 0.0,
            crosstraffic: 0.0,
            rtt_penalty: false,
            ..NetworkParams::lv08()
        }
    }

    /// Parameters from a platform's `network/*` and `smpi/*` settings; other keys are ignored
    /// (they belong to other models). Starts from `network/model` (LV08, CM02, SMPI, Constant or
    /// raw; default LV08). Under Constant only `network/latency-factor` is read, so any other
    /// `network/*` setting is refused.
    pub fn from_config(config: &BTreeMap<String, String>) -> Result<NetworkParams, ConfigError> {
        let model = config.get("network/model").map(String::as_str);
        let mut params = match model {
            None | Some("LV08") => NetworkParams::lv08(),
            Some("CM02") => NetworkParams::cm02(),
            Some("SMPI") => NetworkParams::smpi(),
            Some("Constant") => NetworkParams::constant(),
            Some("raw") => NetworkParams::raw(),
            Some(other) => {
                let why = match other {
                    "NS3" | "ns-3" => "expected LV08, CM02, SMPI, Constant or raw: ns-3 is a packet-level simulator, \
                                       out of the scope of gridsim's flow-level max-min model, which does \
                                       not reproduce its timings"
                        .to_string(),
                    "IB" => "expected LV08, CM02, SMPI, Constant or raw (SimGrid's InfiniBand model is not \
                             implemented)"
                        .to_string(),
                    _ => "expected LV08, CM02, SMPI, Constant or raw".to_string(),
                };
                return Err(ConfigError::BadValue {
                    key: "network/model".into(),
                    value: other.into(),
                    why,
                });
            }
        };
        let smpi = model == Some("SMPI");
        for (key, value) in config.range("smpi/".to_string()..) {
            if !key.starts_with("smpi/") {
                break;
            }
            let bad = |why: String| ConfigError::BadValue {
                key: key.clone(),
                value: value.clone(),
                why,
            };
            let target = match key.as_str() {
                "smpi/lat-factor" => &mut params.latency_factors,
                "smpi/bw-factor" => &mut params.bandwidth_factors,
                _ => {
                    return Err(ConfigError::UnknownKey {
                        key: key.clone(),
                        known: "smpi/lat-factor, smpi/bw-factor (with network/model SMPI)".into(),
                    })
                }
            };
            if !smpi {
                return Err(bad(
                    "only the SMPI network model reads it: set network/model to SMPI".into()
                ));
            }
            *target = Some(SizeFactors::parse(value).map_err(bad)?);
        }
        for (key, value) in config.range("network/".to_string()..) {
            if !key.starts_with("network/") {
                break;
            }
            let number = || -> Result<f64, ConfigError> {
                value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| ConfigError::BadValue {
                        key: key.clone(),
                        value: value.clone(),
                        why: "expected a non-negative number".into(),
                    })
            };
            match key.as_str() {
                "network/model" => {}
                k if params.constant && k != "network/latency-factor" => {
                    return Err(ConfigError::BadValue {
                        key: key.clone(),
                        value: value.clone(),
                        why: "the Constant network model reads only network/latency-factor (the duration of \
                              every comm)"
                            .into(),
                    })
                }
                "network/latency-factor" | "network/bandwidth-factor" if smpi => {
                    return Err(ConfigError::BadValue {
                        key: key.clone(),
                        value: value.clone(),
                        why: "the SMPI network model takes its factors by message size from smpi/lat-factor \
                              and smpi/bw-factor"
                            .into(),
                    })
                }
                "network/latency-factor" => params.latency_factor = number()?,
                "network/bandwidth-factor" => params.bandwidth_factor = positive(key, value, number()?)?,
                "network/weight-S" => params.weight_s = number()?,
                "network/TCP-gamma" => params.tcp_gamma = number()?,
                "network/loopback-bw" => params.loopback_bandwidth = positive(key, value, number()?)?,
                "network/loopback-lat" => params.loopback_latency = number()?,
                "network/crosstraffic" => {
                    params.crosstraffic = match value.trim() {
                        "1" | "yes" | "true" | "on" => 0.05,
                        "0" | "no" | "false" | "off" => 0.0,
                        _ => {
                            return Err(ConfigError::BadValue {
                                key: key.clone(),
                                value: value.clone(),
                                why: "expected yes/no".into(),
                            })
                        }
                    }
                }
                _ => {
                    return Err(ConfigError::UnknownKey {
                        key: key.clone(),
                        known: KNOWN_KEYS.join(", "),
                    })
                }
            }
        }
        Ok(params)
    }

    /// Sharing penalty of a flow with raw route latency `latency` over links of these
    /// bandwidths: `L + Σ weight_s / B_l`; 1 for a zero-latency route (as SimGrid 3.32 does:
    /// such a flow is nearly starved next to any flow of positive latency); 1 for every flow when
    /// `rtt_penalty` is off.
    pub fn penalty(&self, latency: f64, bandwidths: impl Iterator<Item = f64>) -> f64 {
        if !self.rtt_penalty || latency <= 0.0 {
            return 1.0;
        }
        latency
            + if self.weight_s > 0.0 {
                bandwidths.map(|b| self.weight_s / b).sum()
            } else {
                0.0
            }
    }

    /// Upper bound of a flow's max-min value: the narrowest link and the TCP window.
    pub fn bound(&self, latency: f64, min_bandwidth: f64) -> f64 {
        let window = if self.tcp_gamma > 0.0 && latency > 0.0 {
            self.tcp_gamma / (2.0 * latency)
        } else {
            f64::INFINITY
        };
        window.min(min_bandwidth)
    }
}

fn positive(key: &str, value: &str, x: f64) -> Result<f64, ConfigError> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(ConfigError::BadValue {
            key: key.into(),
            value: value.into(),
            why: "must be positive".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_overrides_and_rejects() {
        let mut config = BTreeMap::new();
        config.insert("network/latency-factor".to_string(), "1".to_string());
        config.insert("network/crosstraffic".to_string(), "no".to_string());
        config.insert("cpu/optim".to_string(), "Lazy".to_string());
        let p = NetworkParams::from_config(&config).unwrap();
        assert_eq!(p.latency_factor, 1.0);
        assert_eq!(p.crosstraffic, 0.0);
        assert_eq!(p.bandwidth_factor, 0.97);
        config.insert("network/bogus".to_string(), "1".to_string());
        assert!(matches!(
            NetworkParams::from_config(&config),
            Err(ConfigError::UnknownKey { .. })
        ));
        let mut bad = BTreeMap::new();
        bad.insert("network/TCP-gamma".to_string(), "-4".to_string());
        assert!(matches!(
            NetworkParams::from_config(&bad),
            Err(ConfigError::BadValue { .. })
        ));
    }

    /// The factor steps as SimGrid 3.32's SMPI model applies them: measured with SimGrid on
    /// config.xml (three 50 µs links of 125 MBps, cross traffic 1.05 on each, smpi/bw-factor
    /// "65472:0.940694;15424:0.697866;9376:0.58729", default smpi/lat-factor): a 15424-byte
    /// comm took 0.00060955773905 s = 2.59299 · 150 µs + 15424 / (0.58729 · 125e6 / 1.05), so a
    /// size equal to a listed one takes the factor of the size below it; a 0-byte comm took
    /// 150 µs (factor 1) and a 100-byte comm 2.01467 · 150 µs + 100 / (125e6 / 1.05) (bandwidth
    /// factor 1: below the smallest listed size).
    #[test]
    fn smpi_factors_step_at_listed_sizes() {
        let mut config = BTreeMap::new();
        config.insert("network/model".to_string(), "SMPI".to_string());
        config.insert(
            "smpi/bw-factor".to_string(),
            "65472:0.940694;15424:0.697866;9376:0.58729".to_string(),
        );
        let p = NetworkParams::from_config(&config).unwrap();
        assert_eq!(p.weight_s, 8775.0);
        assert_eq!(p.latency_factor_for(0.0), 1.0);
        assert_eq!(p.latency_factor_for(100.0), 2.01467);
        assert_eq!(p.latency_factor_for(15424.0), 2.59299);
        assert_eq!(p.latency_factor_for(15425.0), 3.48845);
        assert_eq!(p.latency_factor_for(1e6), 11.6436);
        assert_eq!(p.comm_work(100.0), 100.0);
        assert_eq!(p.comm_work(15424.0), 15424.0 / 0.58729);
        assert_eq!(p.comm_work(65473.0), 65473.0 / 0.940694);
        config.insert("network/model".to_string(), "LV08".to_string());
        assert!(matches!(
            NetworkParams::from_config(&config),
            Err(ConfigError::BadValue { .. })
        ));
        assert!(SizeFactors::parse("12:x").is_err());
        assert!(SizeFactors::parse("1.5:2").is_err());
        assert!(SizeFactors::parse("").is_err());
    }

    #[test]
    fn raw_model_has_unit_penalty_and_no_window() {
        let raw = NetworkParams::raw();
        assert_eq!(raw.penalty(0.1, [1e6].into_iter()), 1.0);
        assert_eq!(raw.bound(0.1, 1e6), 1e6);
    }
}

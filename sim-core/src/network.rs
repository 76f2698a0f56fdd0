//! The network model's parameters: SimGrid 3.32's default LV08 model, and a "raw" variant.
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
}

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

    /// Parameters from a platform's `network/*` settings; other keys are ignored (they belong
    /// to other models). Starts from `network/model` (LV08, CM02 or raw; default LV08).
    pub fn from_config(config: &BTreeMap<String, String>) -> Result<NetworkParams, ConfigError> {
        let mut params = match config.get("network/model").map(String::as_str) {
            None | Some("LV08") => NetworkParams::lv08(),
            Some("CM02") => NetworkParams::cm02(),
            Some("raw") => NetworkParams::raw(),
            Some(other) => {
                return Err(ConfigError::BadValue {
                    key: "network/model".into(),
                    value: other.into(),
                    why: "expected LV08, CM02 or raw".into(),
                })
            }
        };
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

    #[test]
    fn raw_model_has_unit_penalty_and_no_window() {
        let raw = NetworkParams::raw();
        assert_eq!(raw.penalty(0.1, [1e6].into_iter()), 1.0);
        assert_eq!(raw.bound(0.1, 1e6), 1e6);
    }
}

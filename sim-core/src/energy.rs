//! Host power as SimGrid 3.32's host energy plugin models it (`src/plugins/host_energy.cpp`).
//!
//! A host's `wattage_per_state` property lists, per pstate and separated by commas, either
//! `idle:epsilon:full` or `idle:full` (then epsilon is idle), in watts; `wattage_off` is what it
//! draws while off (0 when absent). The draw of a host that is on, at pstate `p` with `load` the
//! fraction of its full computing capacity in use (busy cores over cores when each core runs at
//! full speed), is `idle[p]` when `load` is 0, else `epsilon[p] + load × (full[p] − epsilon[p])`:
//! linear in the number of busy cores, with a jump from idle to epsilon as soon as anything runs
//! (Heinrich, Cornebize, Degomme, Legrand, Carpen-Amarie, Hunold, Orgerie, Quinson, "Predicting
//! the Energy-Consumption of MPI Applications at Scale Using Only a Single Node", IEEE Cluster
//! 2017, the paper the plugin's documentation cites).

use crate::platform::Host;

/// One pstate's watts: idle (on, nothing running), epsilon (on, running with a load near 0)
/// and full (every core busy).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerRange {
    /// Watts when the host is on and nothing runs.
    pub idle: f64,
    /// Watts when something runs with a load tending to 0.
    pub epsilon: f64,
    /// Watts when every core is busy.
    pub full: f64,
}

/// A host's power model: one range per pstate, and the watts drawn while off.
#[derive(Clone, Debug, PartialEq)]
pub struct HostPower {
    /// The ranges, by pstate.
    pub ranges: Vec<PowerRange>,
    /// Watts drawn while the host is off.
    pub off: f64,
}

/// A number of watts in property `prop` of `host`: finite and >= 0.
fn watts(host: &Host, prop: &str, what: &str, text: &str) -> Result<f64, String> {
    let text = text.trim();
    match text.parse::<f64>() {
        Ok(w) if w.is_finite() && w >= 0.0 => Ok(w),
        _ => Err(format!(
            "host '{}': property {prop}: {what} must be a finite number of watts >= 0, got '{text}'",
            host.name
        )),
    }
}

impl HostPower {
    /// None when the host has no `wattage_per_state` property; Err names the property and says what is wrong.
    pub fn from_host(host: &Host) -> Result<Option<HostPower>, String> {
        let Some(list) = host.properties.get("wattage_per_state") else {
            return Ok(None);
        };
        let mut ranges = Vec::new();
        for (pstate, part) in list.split(',').enumerate() {
            let values: Vec<&str> = part.split(':').collect();
            let what = |name: &str| format!("pstate {pstate}'s {name} value");
            let (idle, epsilon, full) = match values.as_slice() {
                [idle, full] => {
                    let idle = watts(host, "wattage_per_state", &what("idle"), idle)?;
                    (idle, idle, watts(host, "wattage_per_state", &what("full"), full)?)
                }
                [idle, epsilon, full] => (
                    watts(host, "wattage_per_state", &what("idle"), idle)?,
                    watts(host, "wattage_per_state", &what("epsilon"), epsilon)?,
                    watts(host, "wattage_per_state", &what("full"), full)?,
                ),
                _ => {
                    return Err(format!(
                        "host '{}': property wattage_per_state: pstate {pstate} is '{}', which should be \
                         'idle:full' or 'idle:epsilon:full' (watts), pstates separated by commas",
                        host.name,
                        part.trim()
                    ))
                }
            };
            ranges.push(PowerRange { idle, epsilon, full });
        }
        let off = match host.properties.get("wattage_off") {
            Some(text) => watts(host, "wattage_off", "the value", text)?,
            None => 0.0,
        };
        Ok(Some(HostPower { ranges, off }))
    }

    /// Watts at `pstate` with `load` = fraction in [0,1] of the host's full computing capacity in use, or `off` watts when `on` is false.
    pub fn watts(&self, pstate: usize, load: f64, on: bool) -> f64 {
        if !on {
            return self.off;
        }
        let Some(range) = self.ranges.get(pstate) else {
            return self.off;
        };
        let load = load.clamp(0.0, 1.0);
        if load > 0.0 {
            range.epsilon + load * (range.full - range.epsilon)
        } else {
            range.idle
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(props: &[(&str, &str)]) -> Host {
        let mut h = Host::new("h", 1e8);
        for (k, v) in props {
            h.properties.insert(k.to_string(), v.to_string());
        }
        h
    }

    #[test]
    fn plugin_documentation_table() {
        // SimGrid's host_energy.cpp documents a 4-core host with "100.0:120.0:200.0" and
        // wattage_off 10: 0 cores idle 100 W, 0 (not idle) 120 W, 1 core 140 W, 2 cores 160 W,
        // 3 cores 180 W, 4 cores 200 W; off 10 W.
        let p = HostPower::from_host(&host(&[
            ("wattage_per_state", "100.0:120.0:200.0"),
            ("wattage_off", "10"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(p.watts(0, 0.0, true), 100.0);
        for (cores, w) in [(1.0, 140.0), (2.0, 160.0), (3.0, 180.0), (4.0, 200.0)] {
            assert!((p.watts(0, cores / 4.0, true) - w).abs() < 1e-9);
        }
        assert_eq!(p.watts(0, 0.5, false), 10.0);
    }

    #[test]
    fn two_values_and_several_pstates() {
        // energy_boot.xml's MyHost1: "95.0:200.0,93.0:170.0,90.0:150.0, 120:120,110:110",
        // wattage_off 10: with two values epsilon is idle (host_energy.cpp).
        let p = HostPower::from_host(&host(&[
            (
                "wattage_per_state",
                "95.0:200.0,93.0:170.0,90.0:150.0,         120:120,110:110",
            ),
            ("wattage_off", "10"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(p.ranges.len(), 5);
        assert_eq!(
            p.ranges[1],
            PowerRange {
                idle: 93.0,
                epsilon: 93.0,
                full: 170.0
            }
        );
        assert_eq!(p.watts(3, 0.0, true), 120.0);
        assert_eq!(p.watts(0, 1.0, true), 200.0);
    }

    #[test]
    fn absent_and_bad_properties() {
        assert_eq!(HostPower::from_host(&host(&[])).unwrap(), None);
        let no_off = HostPower::from_host(&host(&[("wattage_per_state", "1:2")]))
            .unwrap()
            .unwrap();
        assert_eq!(no_off.off, 0.0);
        let e = HostPower::from_host(&host(&[("wattage_per_state", "1:2:3:4")])).unwrap_err();
        assert!(e.contains("wattage_per_state") && e.contains("'1:2:3:4'"), "{e}");
        let e = HostPower::from_host(&host(&[("wattage_per_state", "1:x")])).unwrap_err();
        assert!(e.contains("pstate 0's full value") && e.contains("'x'"), "{e}");
        let e = HostPower::from_host(&host(&[("wattage_per_state", "1:2"), ("wattage_off", "-3")])).unwrap_err();
        assert!(e.contains("wattage_off"), "{e}");
    }
}

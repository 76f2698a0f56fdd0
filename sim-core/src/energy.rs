//! Host energy: SimGrid 3.32's host energy plugin (`src/plugins/host_energy.cpp`), as a pure
//! model.
//!
//! A host with the property `wattage_per_state` draws power according to its power state
//! (pstate), whether it is on, and its CPU load. The property gives, for every pstate in order
//! and separated by commas, `idle:epsilon:full` watts, or `idle:full` (then epsilon = idle).
//! The property `wattage_off` gives the watts drawn while the host is off (default 0).
//!
//! With `load` the fraction of the host's full computing capacity in use (SimGrid: the CPU
//! constraint's usage divided by the pstate's peak speed and by the core count, capped at 1),
//! the power at pstate `p` is
//!
//! * `idle[p]` when `load` is 0 (nothing runs on the host),
//! * `epsilon[p] + load × (full[p] − epsilon[p])` when `load > 0`,
//! * `wattage_off` when the host is off, whatever its pstate.
//!
//! So on a 4-core host at `100:120:200`, one busy core draws 140 W, two 160 W, four 200 W
//! (the table in the plugin's documentation). SimGrid takes a pstate of speed 0 (boot or
//! shutdown modelled as a pstate) as fully loaded; [`load_of`] does the same.
//!
//! The energy of a host is the integral of that power over time. SimGrid integrates it lazily:
//! at every change of the host's load (an exec on it starts or ends), pstate or on/off state it
//! adds `power × (now − last update)` with the power of the state that held since the last
//! update. [`EnergyMeter`] does the same bookkeeping for the engine.
//!
//! Sources: SimGrid 3.32 `src/plugins/host_energy.cpp` (parsing rules, the formula, the update
//! points) and its documentation; Heinrich et al., *Predicting the Energy Consumption of MPI
//! Applications at Scale Using a Single Node*, IEEE Cluster 2017 (hal-01523608), for the model.
//!
//! # Links
//!
//! A link with the property `wattage_range` = `idle:busy` draws
//! `idle + (busy − idle) × usage / bandwidth` watts ([`LinkPower`]), with `usage` its
//! constraint's usage in bytes/s (the sum over its flows of each flow's rate times its weight on
//! the link: 1, plus the cross-traffic weight when the reverse route crosses it too; the largest
//! such product on a FATPIPE link) and `bandwidth` its current bandwidth. Under LV08 a lone flow
//! fills the whole bandwidth (the bandwidth factor lengthens the transfer, it does not lower
//! the rate), so a busy link draws `busy`.
//!
//! SimGrid 3.32's link energy plugin (`src/plugins/link_energy.cpp`) does not integrate that
//! power exactly: it adds `power(now) × (now − last update)`, the power *at the update*, and
//! updates a link only when a comm crossing it starts or ends, completed or failed
//! (`Comm::on_start`, `Comm::on_completion`, on the comm's forward route), when the link turns
//! off or on, and when its energy is read. So a comm's latency phase counts at the power of the flows running when
//! the next update comes, and a rate change that a comm elsewhere causes counts from the
//! link's last update. gridsim reproduces those update points (`engine/power.rs`), so its joules
//! are SimGrid's; the exact integral would differ wherever latencies are not 0 or a link's
//! rates change without a comm of its own starting or ending. The plugin reads no
//! `wattage_off` (its documentation shows one, its code ignores it), so gridsim refuses that
//! property on links rather than take it silently; and SimGrid gives a SPLITDUPLEX link's two
//! halves none of the link's properties, so their energy is never counted: gridsim refuses
//! `wattage_range` there too.

use crate::platform::Host;

/// A pstate's power figures, watts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerRange {
    /// Drawn when the host is on and nothing runs on it.
    pub idle: f64,
    /// Drawn when something runs but the load is (close to) 0: the intercept of the linear part.
    pub epsilon: f64,
    /// Drawn when every core runs at full speed.
    pub full: f64,
}

/// A host's power model: one [`PowerRange`] per pstate and the power drawn while off.
#[derive(Clone, Debug, PartialEq)]
pub struct HostPower {
    /// Indexed by pstate; as many as the host has pstates.
    pub ranges: Vec<PowerRange>,
    /// Watts drawn while the host is off (`wattage_off`, default 0).
    pub off: f64,
}

/// The property that gives the per-pstate power figures.
pub const WATTAGE_PER_STATE: &str = "wattage_per_state";
/// The property that gives the power drawn while off.
pub const WATTAGE_OFF: &str = "wattage_off";

fn parse_watts(host: &Host, property: &str, what: &str, text: &str) -> Result<f64, String> {
    let t = text.trim();
    let v: f64 = t.parse().map_err(|_| {
        format!(
            "host '{}': property '{property}': {what} is not a number: \"{t}\"",
            host.name
        )
    })?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!(
            "host '{}': property '{property}': {what} must be a finite number of watts, not negative, got {t}",
            host.name
        ));
    }
    Ok(v)
}

impl HostPower {
    /// None when the host has no `wattage_per_state` property; Err names the property and says what is wrong.
    pub fn from_host(host: &Host) -> Result<Option<HostPower>, String> {
        let Some(text) = host.properties.get(WATTAGE_PER_STATE) else {
            return Ok(None);
        };
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() != host.pstate_count() {
            return Err(format!(
                "host '{}': property '{WATTAGE_PER_STATE}': gives {} power profile(s) (separated by commas) \
                 but the host has {} pstate(s); give one 'idle:epsilon:full' or 'idle:full' per pstate",
                host.name,
                parts.len(),
                host.pstate_count()
            ));
        }
        let mut ranges = Vec::with_capacity(parts.len());
        for (p, part) in parts.iter().enumerate() {
            let values: Vec<&str> = part.split(':').collect();
            let name = |field: &str| format!("pstate {p}'s {field} value");
            let range = match values.as_slice() {
                [idle, full] => {
                    let idle = parse_watts(host, WATTAGE_PER_STATE, &name("idle"), idle)?;
                    PowerRange {
                        idle,
                        epsilon: idle,
                        full: parse_watts(host, WATTAGE_PER_STATE, &name("full"), full)?,
                    }
                }
                [idle, epsilon, full] => PowerRange {
                    idle: parse_watts(host, WATTAGE_PER_STATE, &name("idle"), idle)?,
                    epsilon: parse_watts(host, WATTAGE_PER_STATE, &name("epsilon"), epsilon)?,
                    full: parse_watts(host, WATTAGE_PER_STATE, &name("full"), full)?,
                },
                _ => {
                    return Err(format!(
                        "host '{}': property '{WATTAGE_PER_STATE}': pstate {p}'s profile \"{}\" must be \
                         'idle:full' or 'idle:epsilon:full' watts",
                        host.name,
                        part.trim()
                    ))
                }
            };
            ranges.push(range);
        }
        let off = match host.properties.get(WATTAGE_OFF) {
            Some(t) => parse_watts(host, WATTAGE_OFF, "the value", t)?,
            None => 0.0,
        };
        Ok(Some(HostPower { ranges, off }))
    }

    /// Watts drawn at `pstate` with `load` = the fraction in [0,1] of the host's full computing capacity in use (SimGrid's cpu load), or `off` watts when `on` is false.
    ///
    /// A load above 1 counts as 1, as SimGrid caps it. A `pstate` past the last one draws the
    /// last pstate's power (the engine never asks for one).
    pub fn watts(&self, pstate: usize, load: f64, on: bool) -> f64 {
        if !on {
            return self.off;
        }
        let Some(r) = self.ranges.get(pstate).or(self.ranges.last()) else {
            return 0.0;
        };
        if load > 0.0 {
            r.epsilon + load.min(1.0) * (r.full - r.epsilon)
        } else {
            r.idle
        }
    }
}

/// SimGrid's CPU load of a host: `usage` (flop/s in use, summed over its execs) over `cores` ×
/// the pstate's peak speed, capped at 1; a pstate of speed 0 counts as fully loaded.
pub fn load_of(usage: f64, pstate_speed: f64, cores: u32) -> f64 {
    if pstate_speed <= 0.0 {
        return 1.0;
    }
    (usage / pstate_speed / cores as f64).min(1.0)
}

/// The running energy integral of one host: the power in effect since the last update, and the
/// joules up to that update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnergyMeter {
    /// Joules consumed up to `since`.
    pub joules: f64,
    /// Date of the last update, seconds.
    pub since: f64,
    /// Watts drawn since `since`.
    pub watts: f64,
}

impl EnergyMeter {
    /// A meter that starts at `date` drawing `watts`.
    pub fn new(date: f64, watts: f64) -> EnergyMeter {
        EnergyMeter {
            joules: 0.0,
            since: date,
            watts,
        }
    }

    /// Adds the energy up to `now` at the power in effect, then draws `watts` from `now` on.
    pub fn update(&mut self, now: f64, watts: f64) {
        if now > self.since {
            self.joules += self.watts * (now - self.since);
            self.since = now;
        }
        self.watts = watts;
    }

    /// Joules consumed up to `now` (not before the last update).
    pub fn joules_at(&self, now: f64) -> f64 {
        if now > self.since {
            self.joules + self.watts * (now - self.since)
        } else {
            self.joules
        }
    }
}

/// The link property that gives the idle and busy power.
pub const WATTAGE_RANGE: &str = "wattage_range";

/// A link's power model (SimGrid's `wattage_range` = `idle:busy`), watts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkPower {
    /// Drawn with no flow on the link.
    pub idle: f64,
    /// Drawn when the flows fill the link's bandwidth.
    pub busy: f64,
}

impl LinkPower {
    /// Parses a `wattage_range` value of the link named `link`; Err names the link and the
    /// property and says what is wrong.
    pub fn parse(link: &str, text: &str) -> Result<LinkPower, String> {
        let values: Vec<&str> = text.split(':').collect();
        let [idle, busy] = values.as_slice() else {
            return Err(format!(
                "link '{link}': property '{WATTAGE_RANGE}': \"{}\" must be 'idle:busy' watts, \
                 e.g. \"100:200\"",
                text.trim()
            ));
        };
        let watts = |what: &str, t: &str| -> Result<f64, String> {
            let t = t.trim();
            let v: f64 = t.parse().map_err(|_| {
                format!("link '{link}': property '{WATTAGE_RANGE}': {what} value is not a number: \"{t}\"")
            })?;
            if !v.is_finite() || v < 0.0 {
                return Err(format!(
                    "link '{link}': property '{WATTAGE_RANGE}': {what} value must be a finite number of \
                     watts, not negative, got {t}"
                ));
            }
            Ok(v)
        };
        Ok(LinkPower {
            idle: watts("idle", idle)?,
            busy: watts("busy", busy)?,
        })
    }

    /// Watts drawn with `usage` bytes/s of flows on a link of `bandwidth` bytes/s (SimGrid's
    /// `idle + (busy − idle) × usage / bandwidth`; no flow when the bandwidth is 0).
    pub fn watts(&self, usage: f64, bandwidth: f64) -> f64 {
        let load = if usage > 0.0 { usage / bandwidth } else { 0.0 };
        self.idle + (self.busy - self.idle) * load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(speeds: &[f64], cores: u32, props: &[(&str, &str)]) -> Host {
        let mut h = Host::new("h", speeds[0]);
        if speeds.len() > 1 {
            h.pstate_speeds = speeds.to_vec();
        }
        h.cores = cores;
        for (k, v) in props {
            h.properties.insert(k.to_string(), v.to_string());
        }
        h
    }

    #[test]
    fn documented_four_core_table() {
        // The plugin's documentation: HostA, 4 cores, "100.0:120.0:200.0", wattage_off 10.
        // Its table: idle 100 W, epsilon 120 W, 1 core 140 W, 2 cores 160 W, 3 cores 180 W,
        // 4 cores 200 W (linear between epsilon and full), off 10 W.
        let h = host(
            &[100e6],
            4,
            &[("wattage_per_state", "100.0:120.0:200.0"), ("wattage_off", "10")],
        );
        let p = HostPower::from_host(&h).unwrap().unwrap();
        assert_eq!(
            p.ranges,
            vec![PowerRange {
                idle: 100.0,
                epsilon: 120.0,
                full: 200.0
            }]
        );
        assert_eq!(p.off, 10.0);
        assert_eq!(p.watts(0, 0.0, true), 100.0);
        assert_eq!(p.watts(0, 0.25, true), 140.0);
        assert_eq!(p.watts(0, 0.5, true), 160.0);
        assert_eq!(p.watts(0, 0.75, true), 180.0);
        assert_eq!(p.watts(0, 1.0, true), 200.0);
        assert_eq!(p.watts(0, 0.5, false), 10.0);
        // Loads from flop/s: 2 of 4 cores at 100 Mf → 200e6 / 100e6 / 4 = 0.5.
        assert_eq!(load_of(200e6, 100e6, 4), 0.5);
        // A load above 1 (rounding) counts as 1, as the plugin caps it.
        assert_eq!(p.watts(0, 1.5, true), 200.0);
    }

    #[test]
    fn documented_dvfs_table() {
        // The plugin's documentation: HostC, "95.0:120.0:200.0, 93.0:115.0:170.0,
        // 90.0:110.0:150.0" for pstates of 100, 50 and 20 Mf.
        let h = host(
            &[100e6, 50e6, 20e6],
            4,
            &[(
                "wattage_per_state",
                "95.0:120.0:200.0, 93.0:115.0:170.0, 90.0:110.0:150.0",
            )],
        );
        let p = HostPower::from_host(&h).unwrap().unwrap();
        assert_eq!(p.off, 0.0, "wattage_off defaults to 0");
        assert_eq!(
            p.ranges[1],
            PowerRange {
                idle: 93.0,
                epsilon: 115.0,
                full: 170.0
            }
        );
        assert_eq!(
            p.ranges[2],
            PowerRange {
                idle: 90.0,
                epsilon: 110.0,
                full: 150.0
            }
        );
        // Pstate 1, one of four cores busy: 115 + 0.25 × (170 − 115) = 128.75 W.
        assert_eq!(p.watts(1, 0.25, true), 128.75);
        // Pstate 2 idle: 90 W.
        assert_eq!(p.watts(2, 0.0, true), 90.0);
    }

    #[test]
    fn two_value_form_uses_idle_as_epsilon() {
        // "If only two values are given, Idle is used for the missing Epsilon value."
        // energy_boot.xml's MyHost1: "95.0:200.0,93.0:170.0,90.0:150.0, 120:120,110:110" with
        // speeds 100, 50, 20 Mf and two 0 f pstates.
        let h = host(
            &[100e6, 50e6, 20e6, 0.0, 0.0],
            1,
            &[(
                "wattage_per_state",
                "95.0:200.0,93.0:170.0,90.0:150.0,         120:120,110:110",
            )],
        );
        let p = HostPower::from_host(&h).unwrap().unwrap();
        assert_eq!(
            p.ranges[0],
            PowerRange {
                idle: 95.0,
                epsilon: 95.0,
                full: 200.0
            }
        );
        assert_eq!(
            p.ranges[3],
            PowerRange {
                idle: 120.0,
                epsilon: 120.0,
                full: 120.0
            }
        );
        // Half load at pstate 0: 95 + 0.5 × 105 = 147.5 W.
        assert_eq!(p.watts(0, 0.5, true), 147.5);
        // A 0 flop/s pstate counts as fully loaded: booting draws 120 W.
        assert_eq!(load_of(0.0, 0.0, 1), 1.0);
        assert_eq!(p.watts(3, load_of(0.0, 0.0, 1), true), 120.0);
    }

    #[test]
    fn epsilon_may_be_below_idle() {
        // energy_platform.xml's MyHost1 (4 cores): "100.0:93.33333333333333:200.0": one busy
        // core draws 93.33… + 0.25 × 106.66… = 120 W, above the 100 W idle.
        let h = host(
            &[100e6, 50e6, 20e6],
            4,
            &[(
                "wattage_per_state",
                "100.0:93.33333333333333:200.0, 93.0:90.0:170.0, 90.0:90.0:150.0",
            )],
        );
        let p = HostPower::from_host(&h).unwrap().unwrap();
        assert!((p.watts(0, 0.25, true) - 120.0).abs() < 1e-12);
        assert_eq!(p.watts(0, 0.0, true), 100.0);
    }

    #[test]
    fn no_property_is_no_model() {
        let h = host(&[1e9], 1, &[("wattage_off", "10")]);
        assert_eq!(HostPower::from_host(&h).unwrap(), None);
    }

    #[test]
    fn bad_properties_are_refused_with_the_property_named() {
        let err = |speeds: &[f64], props: &[(&str, &str)]| HostPower::from_host(&host(speeds, 1, props)).unwrap_err();
        let e = err(&[1e9, 5e8], &[("wattage_per_state", "1:2")]);
        assert!(
            e.contains("'wattage_per_state'") && e.contains("1 power profile(s)") && e.contains("2 pstate(s)"),
            "{e}"
        );
        let e = err(&[1e9], &[("wattage_per_state", "1:2:3:4")]);
        assert!(e.contains("'wattage_per_state'") && e.contains("\"1:2:3:4\""), "{e}");
        let e = err(&[1e9], &[("wattage_per_state", "1")]);
        assert!(e.contains("'idle:full' or 'idle:epsilon:full'"), "{e}");
        let e = err(&[1e9], &[("wattage_per_state", "1:x:3")]);
        assert!(e.contains("pstate 0's epsilon value is not a number: \"x\""), "{e}");
        let e = err(&[1e9], &[("wattage_per_state", "1:-2")]);
        assert!(e.contains("pstate 0's full value must be"), "{e}");
        let e = err(&[1e9], &[("wattage_per_state", "1:2"), ("wattage_off", "ten")]);
        assert!(e.contains("'wattage_off'") && e.contains("\"ten\""), "{e}");
        let e = err(&[1e9], &[("wattage_per_state", "1:2"), ("wattage_off", "inf")]);
        assert!(e.contains("'wattage_off'"), "{e}");
    }

    #[test]
    fn meter_integrates_piecewise_constant_power() {
        // 100 W from 0 to 2 s, 200 W from 2 to 5 s, 10 W after: 200 + 600 + 10 × 1 = 810 J at 6 s.
        let mut m = EnergyMeter::new(0.0, 100.0);
        m.update(2.0, 200.0);
        assert_eq!(m.joules_at(3.0), 400.0);
        m.update(5.0, 10.0);
        // Two updates at one date: the second only sets the power.
        m.update(5.0, 10.0);
        assert_eq!(m.joules, 800.0);
        assert_eq!(m.joules_at(6.0), 810.0);
    }

    #[test]
    fn link_power_follows_the_plugin_documentation() {
        // link_energy.cpp's documentation: "100.0:200.0" draws 100 W idle, 200 W fully loaded
        // and 150 W at 50% load.
        let p = LinkPower::parse("SWITCH1", "100.0:200.0").unwrap();
        assert_eq!(
            p,
            LinkPower {
                idle: 100.0,
                busy: 200.0
            }
        );
        assert_eq!(p.watts(0.0, 125e6 / 8.0), 100.0);
        assert_eq!(p.watts(125e6 / 8.0, 125e6 / 8.0), 200.0);
        assert_eq!(p.watts(125e6 / 16.0, 125e6 / 8.0), 150.0);
    }

    #[test]
    fn bad_link_ranges_are_refused_with_the_link_named() {
        for (text, part) in [
            ("1:2:3", "must be 'idle:busy'"),
            ("100", "must be 'idle:busy'"),
            ("x:2", "idle value is not a number"),
            ("1:-2", "busy value must be a finite number"),
            ("1:inf", "busy value must be a finite number"),
        ] {
            let err = LinkPower::parse("l1", text).unwrap_err();
            assert!(
                err.contains("link 'l1'") && err.contains(WATTAGE_RANGE) && err.contains(part),
                "{text}: {err}"
            );
        }
    }
}

//! The engine's side of host energy ([`crate::energy`]): pstates, turning hosts off and on
//! from the application, and each powered host's energy meter.
//!
//! A host's CPU load only changes when an exec on it starts or ends, or when its speed (pstate
//! or speed profile) or state changes: its execs are its CPU constraint's only users, each
//! bounded by one core's speed, so the constraint's usage is one core's speed × min(execs,
//! cores). Its meter is updated at exactly those points, as SimGrid's plugin updates at every
//! exec start and state change and at every host state or speed change; between them the
//! power is constant. An engine whose platform has no power properties keeps no meter, and
//! each of those points costs one test of an empty vector.
//!
//! Links with a power model (`wattage_range`) get a meter too, updated where SimGrid 3.32's
//! link energy plugin updates (see [`crate::energy`]): for every link of a comm's route when the
//! comm starts and when it completes or fails (with the comm still on the link), when the link
//! turns off or on, and when its energy is read; each update adds the power drawn *now* (the
//! link's usage as the last solve left it, before the change at hand re-solves anything) times
//! the time since the link's last update. Powered links are never left out of comms' variables
//! as implied (`implied.rs`), so their constraint lists every flow on them. A platform without
//! powered links keeps no link meter.

use super::Engine;
use crate::energy::{load_of, EnergyMeter, HostPower, LinkPower};
use crate::network::ConfigError;
use crate::platform::{HostId, LinkId, Platform};

/// One powered host's model, meter and running execs.
pub(crate) struct HostMeter {
    power: HostPower,
    meter: EnergyMeter,
    execs: u32,
    /// The CPU load since the meter's last update, and its integral up to then (load-seconds).
    load: f64,
    load_s: f64,
}

/// A meter per host when some host has power properties (`None` for those without), else
/// empty; errors of the properties are left to [`check_power`].
pub(crate) fn meters(platform: &Platform) -> Vec<Option<HostMeter>> {
    let models: Vec<Option<HostPower>> = platform
        .hosts
        .iter()
        .map(|h| HostPower::from_host(h).ok().flatten())
        .collect();
    if models.iter().all(Option::is_none) {
        return Vec::new();
    }
    models
        .into_iter()
        .zip(&platform.hosts)
        .map(|(model, host)| {
            model.map(|power| {
                // Idle at the start: nothing runs yet.
                let watts = power.watts(host.pstate, 0.0, true);
                HostMeter {
                    power,
                    meter: EnergyMeter::new(0.0, watts),
                    execs: 0,
                    load: 0.0,
                    load_s: 0.0,
                }
            })
        })
        .collect()
}

/// One powered link's model and the joules it consumed up to `since`.
pub(crate) struct LinkMeter {
    power: LinkPower,
    joules: f64,
    since: f64,
}

/// A meter per link when some link has a power model (`None` for those without), else empty.
pub(crate) fn link_meters(platform: &Platform) -> Vec<Option<LinkMeter>> {
    if platform.links.iter().all(|l| l.power.is_none()) {
        return Vec::new();
    }
    platform
        .links
        .iter()
        .map(|l| {
            l.power.map(|power| LinkMeter {
                power,
                joules: 0.0,
                since: 0.0,
            })
        })
        .collect()
}

/// Refuses a platform whose hosts' power properties do not parse.
pub(crate) fn check_power(platform: &Platform) -> Result<(), ConfigError> {
    for host in &platform.hosts {
        HostPower::from_host(host).map_err(ConfigError::HostPower)?;
    }
    Ok(())
}

/// Why [`Engine::set_pstate`] refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("host '{host}' has {count} pstate(s) (0 to {last}), no pstate {pstate}", last = count - 1)]
pub struct PstateError {
    /// The host's name.
    pub host: String,
    /// The pstate asked for.
    pub pstate: usize,
    /// How many pstates the host has.
    pub count: usize,
}

impl Engine {
    /// Puts `host` in power state `pstate` from now on: its speed becomes that pstate's (as
    /// SimGrid's `Host::set_pstate`: the CPU's capacity and every running exec's bound change,
    /// and the execs share the new speed from now on). A host that is off keeps the pstate for
    /// when it turns on.
    pub fn set_pstate(&mut self, host: HostId, pstate: usize) -> Result<(), PstateError> {
        let h = self.platform.host(host);
        let Some(peak) = h.pstate_speed(pstate) else {
            return Err(PstateError {
                host: h.name.clone(),
                pstate,
                count: h.pstate_count(),
            });
        };
        let state = &mut self.hosts[host.0 as usize];
        if state.pstate == pstate {
            return Ok(());
        }
        state.pstate = pstate;
        state.peak = peak;
        self.speed_changed(host);
        Ok(())
    }

    /// The host's current pstate.
    pub fn pstate(&self, host: HostId) -> usize {
        self.hosts[host.0 as usize].pstate
    }

    /// Turns `host` off or on now, as a state profile's event would (SimGrid's
    /// `Host::turn_off` and `turn_on` on the resource side): turning off fails every exec on
    /// it, every comm to or from it and every request on its disks, with
    /// [`FailureCause::HostOff`](super::FailureCause::HostOff) notifications; turning on wakes
    /// the sleeps waiting for it ([`Engine::sleep_until_on`]). Its later state profile events
    /// still apply.
    pub fn set_host_on(&mut self, host: HostId, on: bool) {
        self.switch_host(host, on);
    }

    /// Joules the host has consumed from date 0 to now under SimGrid's host energy model;
    /// `None` when it has no `wattage_per_state` property.
    pub fn energy_j(&self, host: HostId) -> Option<f64> {
        let meter = self.meters.get(host.0 as usize)?.as_ref()?;
        Some(meter.meter.joules_at(self.now.secs()))
    }

    /// The host's CPU load (SimGrid's: the fraction of its full computing capacity in use,
    /// [`crate::energy::load_of`]; 0 while off) integrated from date 0 to now, in seconds:
    /// divided by a duration, the mean load. `None` when it has no power model, as the engine
    /// follows the load of powered hosts only.
    pub fn cpu_load_s(&self, host: HostId) -> Option<f64> {
        let m = self.meters.get(host.0 as usize)?.as_ref()?;
        let now = self.now.secs();
        Some(if now > m.meter.since {
            m.load_s + m.load * (now - m.meter.since)
        } else {
            m.load_s
        })
    }

    /// Joules the link has consumed from date 0 to now under SimGrid 3.32's link energy plugin
    /// (see [`crate::energy`]: the power at each update times the time since the previous one);
    /// `None` when it has no `wattage_range` property.
    pub fn link_energy_j(&self, link: LinkId) -> Option<f64> {
        let m = self.link_meters.get(link.0 as usize)?.as_ref()?;
        let now = self.now.secs();
        Some(if now > m.since {
            m.joules + self.link_watts(link, &m.power) * (now - m.since)
        } else {
            m.joules
        })
    }

    /// Whether some link of the platform has a power model.
    pub fn has_link_power(&self) -> bool {
        !self.link_meters.is_empty()
    }

    /// The watts `link` draws with its flows' current rates.
    fn link_watts(&self, link: LinkId, power: &LinkPower) -> f64 {
        let state = &self.links[link.0 as usize];
        power.watts(self.lmm.usage(state.cons), state.bandwidth)
    }

    /// Settles a powered link's energy up to now at the power it draws now (SimGrid's
    /// `LinkEnergy::update`).
    pub(super) fn link_power_update(&mut self, link: LinkId) {
        let Some(Some(m)) = self.link_meters.get(link.0 as usize) else {
            return;
        };
        let now = self.now.secs();
        if now > m.since {
            let joules = m.joules + self.link_watts(link, &m.power) * (now - m.since);
            let Some(Some(m)) = self.link_meters.get_mut(link.0 as usize) else {
                return;
            };
            m.joules = joules;
            m.since = now;
        }
    }

    /// A comm on cached route `route` starts, completes or fails: updates the route's powered
    /// links.
    #[inline(never)] // rare: only with powered links
    pub(super) fn comm_link_power_update(&mut self, route: u32) {
        let links = self.routes[route as usize].links;
        for i in 0..self.route_lists.links(links).len() {
            let link = self.route_lists.links(links)[i];
            self.link_power_update(link);
        }
    }

    /// Whether some host of the platform has a power model.
    pub fn has_power(&self) -> bool {
        !self.meters.is_empty()
    }

    /// An exec started running on `host` (or, with `delta` −1, one that ran there ended).
    #[inline(never)] // rare: only with power properties
    pub(super) fn exec_count_changed(&mut self, host: HostId, delta: i32) {
        if let Some(Some(m)) = self.meters.get_mut(host.0 as usize) {
            m.execs = m.execs.saturating_add_signed(delta);
            self.host_power_changed(host);
        }
    }

    /// Settles the host's energy up to now and sets the power it draws from now on.
    pub(super) fn host_power_changed(&mut self, host: HostId) {
        let Some(Some(m)) = self.meters.get_mut(host.0 as usize) else {
            return;
        };
        let state = &self.hosts[host.0 as usize];
        let h = self.platform.host(host);
        // The CPU's usage: each exec runs at one core's speed, at most `cores` of them at once
        // (max-min gives equal shares of cores × speed when there are more).
        let busy = m.execs.min(h.cores) as f64;
        let usage = state.peak * state.speed_factor * busy;
        // A pstate of speed 0 counts as fully loaded, busy or not (see `load_of`).
        let load = load_of(usage, state.peak, h.cores);
        let watts = m.power.watts(state.pstate, load, state.on);
        let now = self.now.secs();
        if now > m.meter.since {
            m.load_s += m.load * (now - m.meter.since);
        }
        m.load = if state.on { load } else { 0.0 };
        m.meter.update(now, watts);
    }
}

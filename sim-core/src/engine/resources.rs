//! Per-resource state: capacity constraints, profile factors, on/off state, FCFS disk queues.

use std::collections::VecDeque;

use super::activity::{Activity, ActivityKind, FailureCause, Phase, RELEASED};
use super::event::{ProfileTarget, QueuedEvent, Slot};
use super::{Engine, PendingProfileStep};
use crate::platform::{Disk, DiskId, DiskModel, Host, HostId, Link, LinkId, SharingPolicy};
use crate::profile::Profile;
use crate::sharing::{ConstraintId, MaxMinSystem, Sharing};

pub(crate) struct HostState {
    pub cpu: ConstraintId,
    /// Peak speed of one core at the current pstate, flop/s.
    pub peak: f64,
    /// The current pstate.
    pub pstate: usize,
    pub speed_factor: f64,
    pub on: bool,
}

impl HostState {
    pub fn new(lmm: &mut MaxMinSystem, host: &Host) -> HostState {
        let cpu = lmm.add_constraint(host.speed * host.cores as f64, Sharing::Shared);
        HostState {
            cpu,
            peak: host.speed,
            pstate: host.pstate,
            speed_factor: 1.0,
            on: true,
        }
    }
}

pub(crate) struct LinkState {
    pub cons: ConstraintId,
    /// Current bandwidth, bytes/s (a `bandwidth_file` sets it: SimGrid reads its values as
    /// bytes/s, not as factors).
    pub bandwidth: f64,
    pub latency: f64,
    pub on: bool,
}

impl LinkState {
    pub fn new(lmm: &mut MaxMinSystem, link: &Link) -> LinkState {
        let sharing = match link.policy {
            SharingPolicy::Shared => Sharing::Shared,
            SharingPolicy::Fatpipe => Sharing::Fatpipe,
        };
        let cons = lmm.add_constraint(link.bandwidth, sharing);
        LinkState {
            cons,
            bandwidth: link.bandwidth,
            latency: link.latency,
            on: true,
        }
    }
}

pub(crate) enum DiskState {
    Shared { read: ConstraintId, write: ConstraintId },
    Fcfs { queue: VecDeque<Slot>, busy: bool },
}

impl DiskState {
    pub fn new(lmm: &mut MaxMinSystem, disk: &Disk) -> DiskState {
        match disk.model {
            DiskModel::Shared { read_bw, write_bw } => DiskState::Shared {
                read: lmm.add_constraint(read_bw, Sharing::Shared),
                write: lmm.add_constraint(write_bw, Sharing::Shared),
            },
            DiskModel::FcfsQueue { .. } => DiskState::Fcfs {
                queue: VecDeque::new(),
                busy: false,
            },
        }
    }
}

impl Engine {
    /// Schedules the first event of every profile of the platform.
    pub(super) fn schedule_profiles(&mut self) {
        let platform = self.platform.clone();
        for (i, host) in platform.hosts.iter().enumerate() {
            let id = HostId(i as u32);
            self.schedule_profile_step(host.speed_profile.as_ref(), ProfileTarget::HostSpeed(id), 0);
            self.schedule_profile_step(host.state_profile.as_ref(), ProfileTarget::HostState(id), 0);
        }
        for (i, link) in platform.links.iter().enumerate() {
            let id = LinkId(i as u32);
            self.schedule_profile_step(link.bandwidth_profile.as_ref(), ProfileTarget::LinkBandwidth(id), 0);
            self.schedule_profile_step(link.latency_profile.as_ref(), ProfileTarget::LinkLatency(id), 0);
            self.schedule_profile_step(link.state_profile.as_ref(), ProfileTarget::LinkState(id), 0);
        }
    }

    fn schedule_profile_step(&mut self, profile: Option<&Profile>, target: ProfileTarget, index: u64) {
        if let Some((date, _)) = profile.and_then(|p| p.nth_event(index)) {
            self.profile_seq += 1;
            self.profiles.push(PendingProfileStep {
                time: crate::SimTime::from_secs(date),
                seq: self.profile_seq,
                target,
                index,
            });
        }
    }

    /// Applies event `index` of the target's profile and schedules the next one.
    #[inline(never)] // rare: keeps the event loop small
    pub(super) fn apply_profile(&mut self, target: ProfileTarget, index: u64) {
        let platform = self.platform.clone();
        let Some((_, value)) = platform_profile(&platform, target).and_then(|p| p.nth_event(index)) else {
            return;
        };
        match target {
            ProfileTarget::HostSpeed(h) => {
                self.hosts[h.0 as usize].speed_factor = value;
                self.speed_changed(h);
            }
            ProfileTarget::HostState(h) => self.switch_host(h, value != 0.0),
            ProfileTarget::LinkBandwidth(l) => {
                // SimGrid 3.32 (`NetworkCm02Link::set_bandwidth`): the link's capacity, and the
                // penalty of every comm using it by weight_S / B_new − weight_S / B_old; a comm's
                // bandwidth bound stays what its route had at its start.
                let state = &mut self.links[l.0 as usize];
                let old = std::mem::replace(&mut state.bandwidth, value);
                let cons = state.cons;
                self.lmm.set_capacity(cons, value);
                self.link_epoch += 1;
                if self.params.weight_s > 0.0 {
                    let delta = self.params.weight_s / value - self.params.weight_s / old;
                    self.shift_comm_figures(l, 0.0, delta);
                }
            }
            ProfileTarget::LinkLatency(l) => {
                let old = std::mem::replace(&mut self.links[l.0 as usize].latency, value);
                self.link_epoch += 1;
                self.shift_comm_figures(l, value - old, value - old);
            }
            ProfileTarget::LinkState(l) => {
                let on = value != 0.0;
                if self.links[l.0 as usize].on != on {
                    // SimGrid's plugin updates a link when it turns off or on, before its flows fail.
                    self.link_power_update(l);
                }
                let was_on = std::mem::replace(&mut self.links[l.0 as usize].on, on);
                if was_on && !on {
                    self.links_off += 1;
                } else if on && !was_on {
                    self.links_off -= 1;
                }
                if !on {
                    // Comms in their latency phase are not in the max-min system yet: find every
                    // comm, in either phase, by its route.
                    self.fail_where(
                        |engine, act| {
                            matches!(act.kind, ActivityKind::Comm { .. })
                                && matches!(act.phase, Phase::Latency | Phase::Running)
                                && engine
                                    .route_lists
                                    .links(engine.routes[act.route as usize].links)
                                    .contains(&l)
                        },
                        FailureCause::LinkOff(l),
                    );
                }
            }
        }
        self.schedule_profile_step(platform_profile(&platform, target), target, index + 1);
    }

    /// The host's peak speed or speed factor changed: as SimGrid 3.32's
    /// `CpuCas01::on_speed_change`, the CPU's capacity becomes cores × peak × factor and every
    /// exec on it is bounded by one core's peak × factor.
    pub(super) fn speed_changed(&mut self, h: HostId) {
        let cores = self.platform.host(h).cores as f64;
        let state = &self.hosts[h.0 as usize];
        let (cpu, speed) = (state.cpu, state.peak * state.speed_factor);
        // Written as (peak × cores) × factor: the capacity a profile's factor has always set.
        self.lmm.set_capacity(cpu, state.peak * cores * state.speed_factor);
        let vars: Vec<_> = self.lmm.variables_of(cpu).collect();
        for var in vars {
            self.lmm.set_bound(var, speed);
        }
        self.host_power_changed(h);
    }

    /// Turns the host on or off (a state profile's event, or [`Engine::set_host_on`]): turning
    /// off fails every exec on it, every comm to or from it and every request on its disks;
    /// turning on wakes the sleeps waiting for it.
    pub(super) fn switch_host(&mut self, h: HostId, on: bool) {
        let platform = self.platform.clone();
        let was_on = std::mem::replace(&mut self.hosts[h.0 as usize].on, on);
        if on && !was_on {
            self.wake_on_waiters(h);
        }
        if !on {
            self.fail_where(
                |_, act| match act.kind {
                    ActivityKind::Exec { host } => host == h,
                    ActivityKind::Comm { src, dst } => src == h || dst == h,
                    ActivityKind::Io { disk, .. } => platform.disks[disk.0 as usize].host == h,
                    ActivityKind::Sleep => false,
                },
                FailureCause::HostOff(h),
            );
        }
        if on != was_on {
            self.host_power_changed(h);
        }
    }

    /// A link's latency or bandwidth changed: as SimGrid 3.32's `NetworkCm02Link::set_latency`
    /// and `set_bandwidth` do, every comm with a use of the link (its route or, through cross
    /// traffic, its reverse), running or still in its latency phase, has its latency moved by
    /// `latency_delta` and its penalty by `penalty_delta`, and its TCP bound recomputed. The
    /// latency phase itself keeps the length it started with.
    fn shift_comm_figures(&mut self, link: LinkId, latency_delta: f64, penalty_delta: f64) {
        let cons = self.links[link.0 as usize].cons;
        for slot in 0..self.activities.len() {
            let act = &self.activities[slot];
            if act.serial == RELEASED
                || !matches!(act.kind, ActivityKind::Comm { .. })
                || !matches!(act.phase, Phase::Latency | Phase::Running)
                || !self
                    .route_lists
                    .uses(self.routes[act.route as usize].uses)
                    .iter()
                    .any(|&(c, _)| c == cons)
            {
                continue;
            }
            let figures = &mut self.comm_figures[slot];
            figures.latency += latency_delta;
            figures.penalty += penalty_delta;
            let bound = self.params.bound(figures.latency, figures.min_bandwidth);
            let penalty = figures.penalty;
            if let (Phase::Running, Some(var)) = (act.phase, act.variable()) {
                self.lmm.set_penalty(var, penalty);
                self.lmm.set_bound(var, bound);
            }
        }
    }

    /// Fails every live activity whose kind matches, in slot order (deterministic).
    fn fail_where(&mut self, matches: impl Fn(&Engine, &Activity) -> bool, cause: FailureCause) {
        let mut victims = Vec::new();
        for (slot, act) in self.activities.iter().enumerate() {
            if act.serial != RELEASED && matches(self, act) {
                victims.push(slot as Slot);
            }
        }
        for slot in victims {
            if let ActivityKind::Io { disk, .. } = self.activities[slot as usize].kind {
                if let DiskState::Fcfs { queue, busy } = &mut self.disks[disk.0 as usize] {
                    queue.retain(|&s| s != slot);
                    *busy = false;
                }
            }
            self.fail(slot, cause);
        }
    }

    /// Starts serving `slot` on an idle FCFS disk.
    pub(super) fn serve_fcfs(&mut self, disk: DiskId, slot: Slot) {
        let DiskModel::FcfsQueue {
            seek_rotation_s,
            transfer_rate,
        } = self.platform.disks[disk.0 as usize].model
        else {
            return;
        };
        if let DiskState::Fcfs { busy, .. } = &mut self.disks[disk.0 as usize] {
            *busy = true;
        }
        let now = self.now;
        let act = &mut self.activities[slot as usize];
        act.phase = Phase::Running;
        act.last_update = now;
        let service = seek_rotation_s + act.remaining / transfer_rate;
        act.rate = if service > 0.0 {
            act.remaining / service
        } else {
            f64::INFINITY
        };
        let generation = act.generation;
        self.schedule(now + service, QueuedEvent::completion(slot, generation));
    }

    /// The head of an FCFS disk left: serve the next request, if any.
    pub(super) fn next_fcfs(&mut self, disk: DiskId) {
        let next = match &mut self.disks[disk.0 as usize] {
            DiskState::Fcfs { queue, busy } => {
                *busy = false;
                queue.pop_front()
            }
            DiskState::Shared { .. } => None,
        };
        if let Some(slot) = next {
            self.serve_fcfs(disk, slot);
        }
    }
}

/// The profile behind a profile target.
pub(super) fn platform_profile(platform: &crate::platform::Platform, target: ProfileTarget) -> Option<&Profile> {
    match target {
        ProfileTarget::HostSpeed(h) => platform.host(h).speed_profile.as_ref(),
        ProfileTarget::HostState(h) => platform.host(h).state_profile.as_ref(),
        ProfileTarget::LinkBandwidth(l) => platform.link(l).bandwidth_profile.as_ref(),
        ProfileTarget::LinkLatency(l) => platform.link(l).latency_profile.as_ref(),
        ProfileTarget::LinkState(l) => platform.link(l).state_profile.as_ref(),
    }
}

//! The engine: clock, event queue, resource models and activities.
//!
//! Applications start activities (exec, comm, disk I/O, sleep) and receive a [`Notification`]
//! when one completes or fails. Between two notifications the engine advances time event by
//! event: activity completions predicted by the resource models, ends of comms' latency phases,
//! and profile changes. Every shared resource is a constraint of one max-min system
//! ([`crate::sharing::maxmin`]):
//!
//! * a host is one constraint of capacity `speed × cores × speed_factor(t)`, `speed` being the
//!   peak speed of its current pstate ([`Engine::set_pstate`]); an exec is a variable of
//!   penalty 1 bounded by one core, `speed × speed_factor(t)`;
//! * a link is one constraint of capacity `bandwidth × bandwidth_factor(t)` (SHARED or FATPIPE);
//!   a comm is a variable as [`crate::network`] describes (LV08);
//! * a SimGrid disk is two constraints (read and write bandwidth); an FCFS disk serves one
//!   request at a time and needs no solver.
//!
//! A comm joins the max-min system when its latency phase ends; each route is resolved once and
//! cached with its merged constraint uses and, until a link's latency or bandwidth changes, its
//! latency, penalty and bound. In fast mode a comm's variable leaves out the links that another
//! link of the route implies (`implied.rs`).
//!
//! After a batch of changes at one date the engine re-solves only the touched components and
//! reschedules the completion of each activity whose rate changed. Old completion events are not
//! removed: each activity carries a generation number and events of an older generation are
//! skipped (see [`Event`]). The queue holds each event in 8 bytes (`QueuedEvent`), so
//! generations count modulo 2^30.
//!
//! This file holds the [`Engine`], its public API and the event loop. The engine's other parts
//! are `impl Engine` blocks beside the data they work on: `resources.rs` (hosts, links and disks:
//! profiles, on/off, FCFS queues), `clock.rs` (bottleneck clocks: joining, leaving, the members
//! a due clock completes, rescheduling) and `route_cache.rs` (resolving a route once, its
//! figures, its variable uses, giving back implied links), which keeps its routes through
//! `route_index.rs` and `route_lists.rs`; `power.rs` (pstates, turning hosts off and on, and
//! SimGrid's host energy meters).
//!
//! Applications label each activity with a `u64` tag that the engine hands back in its
//! notification and never reads; [`Tag`] (`tag.rs`) packs an index and a kind code into one.

mod activity;
mod clock;
mod event;
mod implied;
mod power;
mod resources;
mod route_cache;
mod route_index;
mod route_lists;
mod stats;
mod tag;

use std::collections::VecDeque;
use std::sync::Arc;

pub use activity::{ActivityId, ActivityKind, FailureCause, IoOp, Notification};
pub use event::{Event, ProfileTarget};
pub use power::PstateError;
pub use stats::EngineStats;
pub use tag::Tag;

use activity::{Activity, Phase, NO_VARIABLE, RELEASED};
use clock::{Clock, Member, NO_CLOCK};
use event::{next_generation, QueuedEvent, Slot};
use implied::ImpliedLinks;
use resources::{platform_profile as platform_profile_of, DiskState, HostState, LinkState};
use route_cache::CachedRoute;
use route_index::RouteIndex;
use route_lists::RouteLists;

use crate::network::{ConfigError, NetworkParams};
use crate::platform::{DiskId, HostId, LinkId, Platform, RouteError};
use crate::queue::EventQueue;
use crate::sharing::{Changes, ConstraintId, MaxMinSystem, Sharing, SharingMode, VariableId};
use crate::time::SimTime;

/// Profile events in a row (no activity event between them) after which the engine checks
/// whether it can skip to the next activity event ([`Engine::skip_idle_profile_events`]).
const IDLE_PROFILE_RUN: u64 = 1 << 16;

/// How far back [`applied_earlier`] follows two profiles whose events keep falling on the same
/// dates before it takes their order at the start of the run.
const SAME_DATE_WALK: u64 = 64;

/// One step of the event trace (recorded when enabled, for determinism checks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRecord {
    /// Simulated time of the event.
    pub time: SimTime,
    /// The event.
    pub event: Event,
}

/// A comm's network figures, fixed when it starts and moved only by latency changes of its
/// links (SimGrid's `lat_current_`, `sharing_penalty_` and the bandwidth bound in `rate_`).
#[derive(Clone, Copy, Debug, Default)]
struct CommFigures {
    latency: f64,
    penalty: f64,
    min_bandwidth: f64,
}

/// A profile event waiting in [`Engine::profiles`]. Ordered so that the binary heap pops the
/// earliest date first, and equal dates in scheduling order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingProfileStep {
    time: SimTime,
    seq: u64,
    target: ProfileTarget,
    index: u64,
}

impl PartialEq for PendingProfileStep {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}

impl Eq for PendingProfileStep {}

impl PartialOrd for PendingProfileStep {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PendingProfileStep {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// The simulation engine. See the module docs.
pub struct Engine {
    platform: Arc<Platform>,
    params: NetworkParams,
    now: SimTime,
    queue: EventQueue<QueuedEvent>,
    lmm: MaxMinSystem,
    activities: Vec<Activity>,
    /// Network figures of the comm in each slot. Kept apart so that an activity record is one
    /// cache line.
    comm_figures: Vec<CommFigures>,
    /// Profile events, apart from the activities' events: at equal dates they come first, as
    /// in SimGrid, where resources change before any actor runs at that date.
    profiles: std::collections::BinaryHeap<PendingProfileStep>,
    profile_seq: u64,
    /// Since when only periodic profile events have been left to happen (no activity event
    /// pending, no one-off profile event to come); see [`Engine::only_cycles_left`].
    quiet_since: Option<SimTime>,
    /// Profile events in a row since the last activity event; see
    /// [`Engine::skip_idle_profile_events`].
    profile_run: u64,
    /// Set once the run has moved to infinity ([`Engine::go_to_infinity`]): events at a date
    /// that is not a finite number are queued from then on.
    at_infinity: bool,
    /// Sleeps that end when their host turns on ([`Engine::sleep_until_on`]): host, slot and
    /// generation (a cancelled sleep's generation has moved on).
    on_waiters: Vec<(HostId, Slot, u32)>,
    free_slots: Vec<Slot>,
    next_serial: u32,
    /// Activity slot owning each max-min variable.
    var_owner: Vec<Slot>,
    hosts: Vec<HostState>,
    links: Vec<LinkState>,
    disks: Vec<DiskState>,
    loopback: ConstraintId,
    route_index: RouteIndex,
    routes: Vec<CachedRoute>,
    /// The cached routes' links and uses.
    route_lists: RouteLists,
    /// Reused by [`Engine::cached_route`] for a route's links and its reverse route's.
    forward_links: Vec<LinkId>,
    back_links: Vec<LinkId>,
    /// The next solver key for a route's variable uses.
    next_route_key: u32,
    /// Links that comms' variables leave out ([`implied`]; fast mode only).
    implied: ImpliedLinks,
    /// Link uses left out of comms' variables because they were implied.
    omitted_uses: u64,
    /// Link uses given back to running comms when their link stopped being implied.
    restored_uses: u64,
    /// Bumped by every link latency or bandwidth change, so cached route figures are redone.
    link_epoch: u64,
    /// Links currently off (most runs have none: comms then skip the per-link check).
    links_off: usize,
    notes: VecDeque<Notification>,
    steps: u64,
    /// Steps already charged to the run's resource guard ([`crate::budget`]).
    steps_charged: u64,
    stale_events: u64,
    rate_changes: u64,
    clock_level_changes: u64,
    clock_joins: u64,
    changes: Changes,
    /// Bottleneck clocks ([`clock`]), made when a constraint first fixes several activities.
    clocks: Vec<Clock>,
    /// Each constraint's clock in `clocks`, [`NO_CLOCK`] before it has one.
    clock_of_constraint: Vec<u32>,
    /// Each activity slot's clock, [`NO_CLOCK`] when it progresses on its own rate.
    activity_clock: Vec<u32>,
    /// Clocks whose next completion must be rescheduled before time moves on.
    dirty_clocks: Vec<u32>,
    /// Clock members due at the current date after the one being completed, in the order they
    /// complete (slot, generation); handled before any other event.
    due_now: VecDeque<(Slot, u32)>,
    /// Reused by [`Engine::pop_clock_head`].
    due_scratch: Vec<(u32, Member)>,
    /// By variable: its index in `due_scratch` while a lock-step round is placed, else
    /// `clock::NOT_DUE` (see [`Engine::place_by_bottleneck_list`]).
    due_rank: Vec<u32>,
    /// Reused by [`Engine::place_by_bottleneck_list`] for the round in its new order.
    due_placed: Vec<(u32, Member)>,
    trace: Option<Vec<TraceRecord>>,
    /// Each host's energy meter ([`power`]); empty when no host has power properties.
    meters: Vec<Option<power::HostMeter>>,
    /// Each link's energy meter ([`power`]); empty when no link has a power model.
    link_meters: Vec<Option<power::LinkMeter>>,
}

impl Engine {
    /// An engine over `platform`, with the network model its configuration selects (LV08 by
    /// default) and the sharing mode its `sharing` setting selects (`fast` by default, or
    /// `exact`).
    pub fn new(platform: Arc<Platform>) -> Result<Engine, ConfigError> {
        let params = NetworkParams::from_config(&platform.config)?;
        params.check_platform(&platform)?;
        let mode = SharingMode::from_config(&platform.config)?;
        power::check_power(&platform)?;
        Ok(Engine::with_options(platform, params, mode))
    }

    /// An engine with explicit network parameters, in the default sharing mode.
    pub fn with_params(platform: Arc<Platform>, params: NetworkParams) -> Engine {
        Engine::with_options(platform, params, SharingMode::default())
    }

    /// An engine with explicit network parameters and sharing mode. Hosts' power properties
    /// are checked by [`Engine::new`]; here a host whose properties do not parse gets no energy
    /// meter.
    pub fn with_options(platform: Arc<Platform>, params: NetworkParams, mode: SharingMode) -> Engine {
        let mut lmm = MaxMinSystem::with_mode(mode);
        let host_count = platform.hosts.len();
        let hosts = platform.hosts.iter().map(|h| HostState::new(&mut lmm, h)).collect();
        let links: Vec<LinkState> = platform.links.iter().map(|l| LinkState::new(&mut lmm, l)).collect();
        let disks = platform.disks.iter().map(|d| DiskState::new(&mut lmm, d)).collect();
        let loopback = lmm.add_constraint(params.loopback_bandwidth, Sharing::Fatpipe);
        let constraints = loopback.0 as usize + 1;
        let mut implied_capacity = vec![f64::NAN; constraints];
        if mode == SharingMode::Fast {
            for (link, state) in platform.links.iter().zip(&links) {
                let fixed = link.bandwidth_profile.is_none() && link.bandwidth.is_finite() && link.bandwidth > 0.0;
                // A powered link's energy reads its usage, so its constraint must list every
                // flow on it.
                let unpowered = link.power.is_none();
                if fixed && unpowered && link.policy == crate::platform::SharingPolicy::Shared {
                    implied_capacity[state.cons.0 as usize] = link.bandwidth;
                }
            }
        }
        let mut engine = Engine {
            platform,
            params,
            now: SimTime::ZERO,
            queue: EventQueue::new(),
            lmm,
            activities: Vec::new(),
            comm_figures: Vec::new(),
            profiles: std::collections::BinaryHeap::new(),
            profile_seq: 0,
            quiet_since: None,
            profile_run: 0,
            at_infinity: false,
            on_waiters: Vec::new(),
            free_slots: Vec::new(),
            next_serial: 0,
            var_owner: Vec::new(),
            hosts,
            links,
            disks,
            loopback,
            route_index: RouteIndex::new(host_count),
            routes: Vec::new(),
            route_lists: RouteLists::default(),
            forward_links: Vec::new(),
            back_links: Vec::new(),
            next_route_key: 0,
            implied: ImpliedLinks::new(implied_capacity),
            omitted_uses: 0,
            restored_uses: 0,
            link_epoch: 0,
            links_off: 0,
            notes: VecDeque::new(),
            steps: 0,
            steps_charged: 0,
            stale_events: 0,
            rate_changes: 0,
            clock_level_changes: 0,
            clock_joins: 0,
            changes: Changes::default(),
            clocks: Vec::new(),
            clock_of_constraint: vec![NO_CLOCK; constraints],
            activity_clock: Vec::new(),
            dirty_clocks: Vec::new(),
            due_now: VecDeque::new(),
            due_scratch: Vec::new(),
            due_rank: Vec::new(),
            due_placed: Vec::new(),
            trace: None,
            meters: Vec::new(),
            link_meters: Vec::new(),
        };
        engine.meters = power::meters(&engine.platform);
        engine.link_meters = power::link_meters(&engine.platform);
        engine.schedule_profiles();
        engine
    }

    /// The current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events processed so far (stale events excluded).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Events waiting in the queue, superseded ones not yet dropped included (profile events
    /// excluded): what the queue's memory holds.
    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// What the engine has done so far: events, skipped events, rate changes, solver work.
    pub fn stats(&self) -> EngineStats {
        EngineStats {
            events: self.steps,
            stale_events: self.stale_events,
            rate_changes: self.rate_changes,
            clock_level_changes: self.clock_level_changes,
            clock_joins: self.clock_joins,
            omitted_uses: self.omitted_uses,
            restored_uses: self.restored_uses,
            solver: self.lmm.stats(),
        }
    }

    /// The platform.
    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    /// The network parameters in force.
    pub fn network_params(&self) -> &NetworkParams {
        &self.params
    }

    /// Starts recording every processed event.
    pub fn enable_trace(&mut self) {
        self.trace.get_or_insert_with(Vec::new);
    }

    /// The recorded events (empty unless [`Engine::enable_trace`] was called).
    pub fn trace(&self) -> &[TraceRecord] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// True while the host is on.
    pub fn host_is_on(&self, host: HostId) -> bool {
        self.hosts[host.0 as usize].on
    }

    /// The host's current per-core speed, flop/s (peak × speed profile factor).
    pub fn host_speed(&self, host: HostId) -> f64 {
        let state = &self.hosts[host.0 as usize];
        state.peak * state.speed_factor
    }

    /// Number of activities started and not yet completed, failed or cancelled.
    pub fn active_activities(&self) -> usize {
        self.activities.len() - self.free_slots.len()
    }

    // ----- starting activities -------------------------------------------------------------
    //
    // Each takes the application's `tag`, handed back in the activity's notification and never
    // read by the engine: a bare index, or an index and a kind packed by [`Tag`].

    /// Computes `flops` on one core of `host`. Fails at once (a notification) if the host is off.
    pub fn start_exec(&mut self, host: HostId, flops: f64, tag: u64) -> ActivityId {
        let kind = ActivityKind::Exec { host };
        let (id, slot) = self.new_activity(kind, tag, flops.max(0.0));
        if !self.hosts[host.0 as usize].on {
            self.fail(slot, FailureCause::HostOff(host));
            return id;
        }
        let bound = self.host_speed(host);
        let var = self.new_variable(slot, 1.0, bound);
        self.lmm.expand(var, self.hosts[host.0 as usize].cpu, 1.0);
        self.begin_running(slot);
        if !self.meters.is_empty() {
            self.exec_count_changed(host, 1);
        }
        id
    }

    /// Sends `bytes` from `src` to `dst`. Fails with an error naming both hosts when the platform
    /// has no route between them; fails later (a notification) if an endpoint or a link is off.
    /// Under the Constant model no route is looked up (see [`Engine::start_constant_comm`]).
    pub fn start_comm(&mut self, src: HostId, dst: HostId, bytes: f64, tag: u64) -> Result<ActivityId, RouteError> {
        if self.params.constant {
            return Ok(self.start_constant_comm(src, dst, bytes, tag));
        }
        let route = self.cached_route(src, dst)?;
        let kind = ActivityKind::Comm { src, dst };
        let bytes = bytes.max(0.0);
        let (id, slot) = self.new_activity(kind, tag, self.params.comm_work(bytes));
        // Set before any failure, which updates the powered links of the comm's route.
        self.activities[slot as usize].route = route;
        for host in [src, dst] {
            if !self.hosts[host.0 as usize].on {
                self.fail(slot, FailureCause::HostOff(host));
                return Ok(id);
            }
        }
        if self.links_off > 0 {
            let links = self.route_lists.links(self.routes[route as usize].links);
            if let Some(&off) = links.iter().find(|l| !self.links[l.0 as usize].on) {
                self.fail(slot, FailureCause::LinkOff(off));
                return Ok(id);
            }
        }
        if !self.link_meters.is_empty() {
            self.comm_link_power_update(route);
        }
        // The comm joins the max-min system only when its data phase starts: during the latency
        // phase it takes no share (SimGrid keeps it as a disabled variable). A link failure in
        // that phase finds it through its route (the `LinkState` profile event in `resources.rs`).
        let cached = self.refresh_route(route);
        let figures = CommFigures {
            latency: cached.latency,
            penalty: cached.penalty,
            min_bandwidth: cached.min_bandwidth,
        };
        let latency = figures.latency;
        let act = &mut self.activities[slot as usize];
        act.route = route;
        act.phase = Phase::Latency;
        if self.comm_figures.len() <= slot as usize {
            self.comm_figures.resize(slot as usize + 1, CommFigures::default());
        }
        self.comm_figures[slot as usize] = figures;
        let delay = self.params.latency_factor_for(bytes) * latency;
        if delay > 0.0 {
            let generation = act.generation;
            let end = self.now + delay;
            self.schedule(end, QueuedEvent::latency_elapsed(slot, generation));
        } else {
            self.start_data_phase(slot);
        }
        Ok(id)
    }

    /// A comm under SimGrid 3.32's Constant model (`NetworkConstantAction`): it ends
    /// `latency_factor` seconds after its start whatever its size, takes no share of anything
    /// and needs no route; its remaining bytes decrease at a constant rate over that time, as
    /// SimGrid's `update_remains` takes them. It fails, as any comm, when an endpoint is off.
    /// SimGrid's step-by-step bookkeeping may end it later than that (see `docs/platforms.md`);
    /// this is the date its model intends.
    fn start_constant_comm(&mut self, src: HostId, dst: HostId, bytes: f64, tag: u64) -> ActivityId {
        let kind = ActivityKind::Comm { src, dst };
        let bytes = bytes.max(0.0);
        let (id, slot) = self.new_activity(kind, tag, bytes);
        for host in [src, dst] {
            if !self.hosts[host.0 as usize].on {
                self.fail(slot, FailureCause::HostOff(host));
                return id;
            }
        }
        let duration = self.params.constant_duration();
        let now = self.now;
        let act = &mut self.activities[slot as usize];
        act.phase = Phase::Running;
        act.last_update = now;
        // A comm that ends at once has nothing to progress; a positive duration spreads the
        // bytes evenly over it, so `remaining` reads SimGrid's linear decrease.
        act.rate = if duration > 0.0 { bytes / duration } else { 0.0 };
        let generation = act.generation;
        self.schedule(now + duration.max(0.0), QueuedEvent::completion(slot, generation));
        id
    }

    /// Reads or writes `bytes` on `disk`.
    pub fn start_io(&mut self, disk: DiskId, bytes: f64, op: IoOp, tag: u64) -> ActivityId {
        let kind = ActivityKind::Io { disk, op };
        let (id, slot) = self.new_activity(kind, tag, bytes.max(0.0));
        let host = self.platform.disks[disk.0 as usize].host;
        if !self.hosts[host.0 as usize].on {
            self.fail(slot, FailureCause::HostOff(host));
            return id;
        }
        match self.disks[disk.0 as usize] {
            DiskState::Shared { read, write } => {
                let var = self.new_variable(slot, 1.0, f64::INFINITY);
                let cons = if op == IoOp::Read { read } else { write };
                self.lmm.expand(var, cons, 1.0);
                self.begin_running(slot);
            }
            DiskState::Fcfs { ref mut queue, busy } => {
                self.activities[slot as usize].phase = Phase::Queued;
                if busy {
                    queue.push_back(slot);
                } else {
                    self.serve_fcfs(disk, slot);
                }
            }
        }
        id
    }

    /// Completes after `duration` seconds.
    // Forced: on the inlined event path (see `next_notification_until`).
    #[inline(always)]
    pub fn sleep(&mut self, duration: f64, tag: u64) -> ActivityId {
        let (id, slot) = self.new_activity(ActivityKind::Sleep, tag, 0.0);
        let act = &mut self.activities[slot as usize];
        act.phase = Phase::Running;
        let generation = act.generation;
        let end = self.now + duration.max(0.0);
        self.schedule(end, QueuedEvent::completion(slot, generation));
        id
    }

    /// A sleep that completes when `host` turns on (at once if it is on): how a worker process
    /// that its host's failure killed is started again when the host comes back, as SimGrid's
    /// auto-restart actors are.
    pub fn sleep_until_on(&mut self, host: HostId, tag: u64) -> ActivityId {
        if self.host_is_on(host) {
            return self.sleep(0.0, tag);
        }
        let (id, slot) = self.new_activity(ActivityKind::Sleep, tag, 0.0);
        let act = &mut self.activities[slot as usize];
        act.phase = Phase::Running;
        let generation = act.generation;
        self.on_waiters.push((host, slot, generation));
        id
    }

    /// Wakes the sleeps waiting for `host` to turn on: their completions are due now.
    pub(crate) fn wake_on_waiters(&mut self, host: HostId) {
        let now = self.now;
        let (woken, waiting): (Vec<_>, Vec<_>) = self.on_waiters.iter().partition(|w| w.0 == host);
        self.on_waiters = waiting;
        for (_, slot, generation) in woken {
            if self.activities[slot as usize].generation == generation {
                self.queue.push(now, QueuedEvent::completion(slot, generation));
            }
        }
    }

    /// Stops an activity without notification. Cancelling a finished activity does nothing.
    pub fn cancel(&mut self, id: ActivityId) {
        if self.live(id) {
            if let Activity {
                kind: ActivityKind::Io { disk, .. },
                phase,
                ..
            } = &self.activities[id.slot as usize]
            {
                let (disk, phase) = (*disk, *phase);
                if let DiskState::Fcfs { queue, .. } = &mut self.disks[disk.0 as usize] {
                    if phase == Phase::Queued {
                        queue.retain(|&s| s != id.slot);
                    } else {
                        self.release(id.slot);
                        self.next_fcfs(disk);
                        return;
                    }
                }
            }
            self.release(id.slot);
        }
    }

    /// Work left in an activity (flops or bytes) as of now; under size-dependent bandwidth
    /// factors (SMPI model) a comm's bytes are counted over its factor
    /// ([`NetworkParams::comm_work`]).
    pub fn remaining(&self, id: ActivityId) -> Option<f64> {
        if !self.live(id) {
            return None;
        }
        let act = &self.activities[id.slot as usize];
        if let Some(clock) = self.clock_of_activity(id.slot) {
            return Some(self.clocks[clock as usize].remaining_at(self.now, act.remaining, act.rate));
        }
        let done = if act.phase == Phase::Running {
            act.rate * (self.now - act.last_update)
        } else {
            0.0
        };
        Some((act.remaining - done).max(0.0))
    }

    fn live(&self, id: ActivityId) -> bool {
        matches!(self.activities.get(id.slot as usize), Some(a) if a.serial == id.serial)
    }

    // ----- advancing time ------------------------------------------------------------------

    /// Queues `event` at `time`; an event at a date that is not a finite number (a rate so
    /// small, or a latency so large, that the end date overflows: `4e-319Gf`, a `1e308 s`
    /// latency) waits outside the queue until the run reaches infinity. Queued, it would stay
    /// behind every event of a periodic profile, which never run out, and the run would never
    /// end; kept out, the activity stays live with no event, as one whose rate is 0 does (it
    /// gets a date again if its rate changes), and when nothing is left to happen at a finite
    /// date, [`Engine::go_to_infinity`] ends it there.
    // Forced: on the inlined event path (`sleep`).
    #[inline(always)]
    fn schedule(&mut self, time: SimTime, event: QueuedEvent) {
        if time.is_finite() || self.at_infinity {
            self.queue.push(time, event);
        }
    }

    /// Called when nothing is left to happen at a finite date (no event queued, and no profile
    /// event left but cycles that let no live activity progress): the run ends, unless some
    /// live activity is on its way to an end whose date is not a finite number. Then the clock
    /// moves to infinity and those activities end there, in slot order: an exec at `4e-319Gf`
    /// completes at date `inf`, which the application sees (a makespan of `inf` is refused by
    /// the runner; replay reports the activity as never completing), as a date that overflows
    /// always did. From then on every event is at infinity and profiles are over.
    #[inline(never)] // rare: out of the event loop's frame
    fn go_to_infinity(&mut self, horizon: SimTime) -> Step {
        if horizon.is_finite() || self.at_infinity {
            return Step::Idle;
        }
        debug_assert!(self.queue.is_empty(), "events are left at a finite date");
        let mut dateless = Vec::new();
        let mut clocks = Vec::new();
        for (slot, act) in self.activities.iter().enumerate() {
            if act.serial == RELEASED {
                continue;
            }
            let slot = slot as Slot;
            let completion = QueuedEvent::completion(slot, act.generation);
            match (act.phase, act.kind, self.clock_of_activity(slot)) {
                (Phase::Queued, _, _) => {}
                (Phase::Latency, _, _) => dateless.push(QueuedEvent::latency_elapsed(slot, act.generation)),
                // A clock schedules its next member itself (below).
                (Phase::Running, _, Some(clock)) => {
                    if self.clocks[clock as usize].level > 0.0 {
                        clocks.push(clock);
                    }
                }
                (Phase::Running, ActivityKind::Sleep, None) => {
                    let waits_for_its_host = self
                        .on_waiters
                        .iter()
                        .any(|&(_, waiting, generation)| waiting == slot && generation == act.generation);
                    if !waits_for_its_host {
                        dateless.push(completion);
                    }
                }
                // The request an FCFS disk serves: its service time overflowed.
                (Phase::Running, ActivityKind::Io { disk, .. }, None)
                    if matches!(self.disks[disk.0 as usize], DiskState::Fcfs { .. }) =>
                {
                    dateless.push(completion)
                }
                (Phase::Running, _, None) => {
                    if act.rate > 0.0 {
                        dateless.push(completion);
                    }
                }
            }
        }
        if dateless.is_empty() && clocks.is_empty() {
            return Step::Idle;
        }
        self.at_infinity = true;
        self.now = SimTime::INFINITY;
        self.profiles.clear();
        for queued in dateless {
            self.queue.push(SimTime::INFINITY, queued);
        }
        for clock in clocks {
            self.mark_clock(clock);
        }
        self.reschedule_clocks();
        Step::Handled
    }

    /// Advances until the next notification, or returns `None` when nothing is left to happen.
    #[inline]
    pub fn next_notification(&mut self) -> Option<Notification> {
        self.next_notification_until(SimTime::INFINITY)
    }

    /// Like [`Engine::next_notification`] but processes no event after `horizon`; when it stops
    /// there for lack of a notification, the clock is moved to `horizon` (if finite).
    ///
    /// Most events are the completion of a live activity whose rate needs no solve. That case is
    /// handled here, inlined into the caller; anything else (a notification or completion
    /// already waiting, a pending solve, profiles, a trace, the budget's turn, a stale or
    /// non-completion event) goes to [`Engine::next_notification_slow`], which does exactly what
    /// this would have done. Were the whole loop one out-of-line function, every event would pay
    /// its prologue (six saved registers, a frame, loop-invariant addresses): about 50
    /// instructions an event on the hold model, whose events cost about 360 in all. What this
    /// path calls is marked `#[inline(always)]`: fat LTO does not inline all of them on its own,
    /// and each call left in place costs the common event its prologue.
    #[inline(always)]
    pub fn next_notification_until(&mut self, horizon: SimTime) -> Option<Notification> {
        if self.notes.is_empty()
            && self.due_now.is_empty()
            && !self.lmm.needs_solve()
            && self.dirty_clocks.is_empty()
            && self.profiles.is_empty()
            && self.trace.is_none()
            && self.steps - self.steps_charged < crate::budget::CHECK_EVERY
            && (self.active_activities() != 0 || horizon.is_finite())
        {
            let Some((time, queued)) = self.queue.pop_not_after(horizon) else {
                return self.next_notification_slow(horizon, None);
            };
            if let Event::Completion { slot, generation } = queued.event() {
                if self.activities[slot as usize].generation == generation {
                    self.prefetch_next_activity();
                    self.enter_event(time);
                    return Some(self.complete(slot));
                }
            }
            return self.next_notification_slow(horizon, Some((time, queued)));
        }
        self.next_notification_slow(horizon, None)
    }

    /// The general loop of [`Engine::next_notification_until`], from an event it may already
    /// have popped. The rare and heavy paths it reaches (the solve, clocks, a comm's data phase,
    /// profile events) are kept out of line as well: inlined here, their loop-invariant
    /// addresses would be set up on every call, though most events reach none of them.
    #[inline(never)]
    fn next_notification_slow(
        &mut self,
        horizon: SimTime,
        popped: Option<(SimTime, QueuedEvent)>,
    ) -> Option<Notification> {
        if let Some((time, queued)) = popped {
            match self.take_popped(time, queued) {
                Some(Step::Completed(slot)) => return Some(self.complete(slot)),
                Some(Step::Handled | Step::Idle) | None => {}
            }
        }
        loop {
            if let Some(note) = self.notes.pop_front() {
                return Some(note);
            }
            if self.steps - self.steps_charged >= crate::budget::CHECK_EVERY {
                crate::budget::charge(self.steps - self.steps_charged);
                self.steps_charged = self.steps;
            }
            match self.step(horizon) {
                Step::Completed(slot) => return Some(self.complete(slot)),
                Step::Handled => {}
                Step::Idle => {
                    if horizon.is_finite() && horizon > self.now {
                        // Lazily-updated activities need no work: each is settled from its
                        // `last_update` whenever it is next touched.
                        self.now = horizon;
                    }
                    return None;
                }
            }
        }
    }

    /// Processes one event at or before `horizon`. Called with no notification waiting, so a
    /// due completion is handed straight back to be completed (any it causes, e.g. an FCFS disk's
    /// next request failing, are queued behind it).
    fn step(&mut self, horizon: SimTime) -> Step {
        loop {
            if let Some((slot, generation)) = self.due_now.pop_front() {
                if self.activities[slot as usize].generation != generation {
                    continue; // cancelled or failed meanwhile
                }
                self.steps += 1;
                if let Some(trace) = &mut self.trace {
                    let event = Event::Completion { slot, generation };
                    trace.push(TraceRecord { time: self.now, event });
                }
                return Step::Completed(slot);
            }
            let next_profile = self.profiles.peek().map(|p| p.time);
            if (self.lmm.needs_solve() || !self.dirty_clocks.is_empty())
                && self.queue.peek_time().map_or(true, |t| t > self.now)
                && next_profile.map_or(true, |t| t > self.now)
            {
                self.resolve();
                self.compact_queue_if_mostly_stale();
            }
            if self.active_activities() == 0 && !horizon.is_finite() {
                // Only profile events are left (periodic ones never end); nothing the
                // application waits for can happen any more.
                return Step::Idle;
            }
            // A profile event goes before any activity event of the same date.
            if let Some(t) = next_profile.filter(|&t| t <= horizon && self.queue.peek_time().map_or(true, |q| t <= q)) {
                if self.only_cycles_left(t) {
                    return self.go_to_infinity(horizon);
                }
                if self.skip_idle_profile_events(horizon) {
                    return Step::Handled;
                }
                let Some(step) = self.profiles.pop() else {
                    return Step::Idle;
                };
                if t > self.now {
                    self.now = t;
                }
                self.steps += 1;
                let event = Event::ProfileStep {
                    target: step.target,
                    index: step.index,
                };
                if let Some(trace) = &mut self.trace {
                    trace.push(TraceRecord { time: self.now, event });
                }
                self.apply_profile(step.target, step.index);
                return Step::Handled;
            }
            let Some((time, queued)) = self.queue.pop_not_after(horizon) else {
                return self.go_to_infinity(horizon);
            };
            if let Some(step) = self.take_popped(time, queued) {
                return step;
            }
        }
    }

    /// Processes an event just popped from the queue at `time`; `None` when it was superseded.
    /// Inlined into both of its callers in the general loop, which then makes no call for it.
    #[inline(always)]
    fn take_popped(&mut self, time: SimTime, queued: QueuedEvent) -> Option<Step> {
        let event = queued.event();
        self.prefetch_next_activity();
        if !is_current(&self.activities, &self.clocks, event) {
            self.stale_events += 1;
            return None;
        }
        self.enter_event(time);
        if let Some(trace) = &mut self.trace {
            trace.push(TraceRecord { time: self.now, event });
        }
        Some(match event {
            Event::Completion { slot, .. } => Step::Completed(slot),
            Event::ClockDue { clock, .. } => match self.pop_clock_head(clock) {
                Some(slot) => Step::Completed(slot),
                None => Step::Handled,
            },
            Event::LatencyElapsed { slot, .. } => {
                self.start_data_phase(slot);
                Step::Handled
            }
            // Profile events wait in `profiles`, never in the queue.
            Event::ProfileStep { target, index } => {
                self.apply_profile(target, index);
                Step::Handled
            }
        })
    }

    /// Moves the clock to a current event popped at `time` and counts it (both paths of
    /// [`Engine::next_notification_until`] do exactly this).
    #[inline(always)]
    fn enter_event(&mut self, time: SimTime) {
        if time > self.now {
            self.now = time;
        }
        self.steps += 1;
        self.quiet_since = None;
        self.profile_run = 0;
    }

    /// Asks the CPU to start loading the record of the activity the next event is for, so that
    /// the load overlaps the handling of this one. With thousands of pending activities that
    /// record is usually out of cache, and waiting for it would be the largest cost of an event
    /// on the hold model. Only when the queue can name the next event in O(1).
    // Forced: on the inlined event path (see `next_notification_until`).
    #[inline(always)]
    fn prefetch_next_activity(&self) {
        if let Some(slot) = self.queue.peek_cheap().and_then(|queued| queued.activity()) {
            if let Some(act) = self.activities.get(slot as usize) {
                prefetch(act);
            }
        }
    }

    /// Whether the run can end before the profile event at `next`: no activity event is pending,
    /// every profile still running repeats, and a whole period of the longest of them has
    /// passed since that became so. The resources then only replay states they have had, none
    /// of which let a live activity progress (it would have an event), so nothing will ever
    /// happen again: activities left (e.g. an exec on a host whose speed dropped to 0 for good)
    /// never end, and the run stops instead of cycling for ever.
    #[inline(never)] // out of the event loop's frame (see `next_notification_until`)
    fn only_cycles_left(&mut self, next: SimTime) -> bool {
        if !self.queue.is_empty() {
            self.quiet_since = None;
            return false;
        }
        let platform = &self.platform;
        let mut longest: f64 = 0.0;
        for step in self.profiles.iter() {
            match platform_profile_of(platform, step.target).and_then(|p| p.period()) {
                Some(period) => longest = longest.max(period),
                None => {
                    self.quiet_since = None;
                    return false;
                }
            }
        }
        let since = *self.quiet_since.get_or_insert(self.now);
        next.secs() - since.secs() > longest
    }

    /// Applies at once the profile events due before the next activity event (or `horizon`)
    /// when none of them can touch a live activity, and says whether it did. A periodic profile
    /// makes events for ever: one with a period of seconds before an activity event 1e17 s away
    /// (a `7e15 s` latency) would take the run 1e16 events to get there. When no live activity
    /// uses a resource whose profile has an event pending (an exec of a host's speed or state,
    /// a comm of its hosts' states and of its route's links, a disk request of its host's
    /// state, a sleep until a host turns on of that host's state), those events change only
    /// the resources' values, and a profile's value at a date is that of its last event
    /// before it: each pending profile jumps to its last event before the next activity event,
    /// which is applied, and goes on from there. Results do not move (only the event count
    /// does): no live activity sees the skipped values, and the next one to start sees the
    /// values it would have seen. Same-date profile events after the jump keep the order they
    /// would have had (`applied_earlier`).
    ///
    /// Checked once every [`IDLE_PROFILE_RUN`] profile events in a row, so that a run whose
    /// profiles do touch its activities pays the scan of its activities rarely, and ordinary
    /// runs, whose activity events come far more often, never get here.
    #[inline(never)] // out of the event loop's frame (see `next_notification_until`)
    fn skip_idle_profile_events(&mut self, horizon: SimTime) -> bool {
        self.profile_run += 1;
        if self.profile_run < IDLE_PROFILE_RUN {
            return false;
        }
        self.profile_run = 0;
        // With no activity event left and no finite horizon, `only_cycles_left` ends the run.
        let until = self.queue.peek_time().unwrap_or(SimTime::INFINITY).min(horizon);
        if !until.is_finite() || self.profiles_reach_live_activities() {
            return false;
        }
        let platform = self.platform.clone();
        let pending = std::mem::take(&mut self.profiles).into_vec();
        let mut jumps = Vec::new();
        // The steps that stay keep their sequence numbers, hence their order.
        for step in pending {
            let profile = platform_profile_of(&platform, step.target);
            match profile.filter(|_| step.time < until) {
                Some(profile) => jumps.push((step.target, last_event_before(profile, step.index, until.secs()))),
                None => self.profiles.push(step),
            }
        }
        if jumps.is_empty() {
            return false;
        }
        jumps.sort_by(|&(a, i), &(b, j)| applied_earlier(&platform, (a, i), (b, j)));
        let latest = jumps
            .iter()
            .filter_map(|&(target, index)| platform_profile_of(&platform, target)?.nth_event(index))
            .map(|(date, _)| date)
            .fold(self.now.secs(), f64::max);
        self.now = SimTime::from_secs(latest);
        for (target, index) in jumps {
            // Applies the event and schedules the next one, after every step that stayed.
            self.apply_profile(target, index);
        }
        self.steps += 1;
        true
    }

    /// Whether a live activity uses a resource whose profile has an event pending (see
    /// [`Engine::skip_idle_profile_events`] for which uses count), or a powered host has one.
    fn profiles_reach_live_activities(&self) -> bool {
        let hosts = self.hosts.len();
        let (mut speed, mut state) = (vec![false; hosts], vec![false; hosts]);
        let mut link = vec![false; self.clock_of_constraint.len()];
        for step in self.profiles.iter() {
            match step.target {
                // A powered host's energy follows every change of its speed or state, so none
                // of its profile events may be skipped.
                ProfileTarget::HostSpeed(h) | ProfileTarget::HostState(h)
                    if self.meters.get(h.0 as usize).is_some_and(Option::is_some) =>
                {
                    return true
                }
                ProfileTarget::HostSpeed(h) => speed[h.0 as usize] = true,
                ProfileTarget::HostState(h) => state[h.0 as usize] = true,
                ProfileTarget::LinkBandwidth(l) | ProfileTarget::LinkLatency(l) | ProfileTarget::LinkState(l) => {
                    link[self.links[l.0 as usize].cons.0 as usize] = true
                }
            }
        }
        let waiting = self.on_waiters.iter().any(|&(h, slot, generation)| {
            state[h.0 as usize] && self.activities[slot as usize].generation == generation
        });
        waiting
            || self.activities.iter().any(|act| {
                act.serial != RELEASED
                    && match act.kind {
                        ActivityKind::Exec { host } => speed[host.0 as usize] || state[host.0 as usize],
                        ActivityKind::Comm { src, dst } => {
                            state[src.0 as usize]
                                || state[dst.0 as usize]
                                // A Constant comm has no route (and its platform no link).
                                || !self.params.constant
                                    && self
                                    .route_lists
                                    .uses(self.routes[act.route as usize].uses)
                                    .iter()
                                    .any(|&(c, _)| link.get(c.0 as usize).copied().unwrap_or(false))
                        }
                        ActivityKind::Io { disk, .. } => state[self.platform.disks[disk.0 as usize].host.0 as usize],
                        ActivityKind::Sleep => false,
                    }
            })
    }

    /// Drops the superseded events from the queue once they outnumber the live ones: every rate
    /// change leaves one behind, and under a periodic profile a long activity changes rate
    /// without end, so without this the queue (and memory) would grow with simulated time.
    /// Each live activity has at most one live event, so the check is a comparison of counts;
    /// the rebuild keeps the order of what stays, so results do not move.
    #[inline(never)] // out of the event loop's frame (see `next_notification_until`)
    fn compact_queue_if_mostly_stale(&mut self) {
        const SLACK: usize = 4096;
        if self.queue.len() > 2 * self.active_activities() + SLACK {
            let (activities, clocks) = (&self.activities, &self.clocks);
            let before = self.queue.len();
            self.queue
                .retain(|queued| is_current(activities, clocks, queued.event()));
            self.stale_events += (before - self.queue.len()) as u64;
        }
    }

    /// Re-solves the max-min system and reschedules what changed: each clock whose level
    /// changed, once, and each activity whose rate changed on its own or which joined or left a
    /// clock.
    #[inline(never)] // out of the event loop's frame (see `next_notification_until`)
    fn resolve(&mut self) {
        let mut changes = std::mem::take(&mut self.changes);
        changes.clear();
        self.lmm.solve_grouped(&mut changes);
        let now = self.now;
        for &c in &changes.clocks {
            let clock = self.clock_for(c);
            let state = &mut self.clocks[clock as usize];
            state.advance(now);
            state.level = self.lmm.level(c);
            self.clock_level_changes += 1;
            self.mark_clock(clock);
        }
        for &var in &changes.vars {
            let slot = self.var_owner[var.0 as usize];
            if self.activities[slot as usize].phase != Phase::Running {
                continue;
            }
            self.leave_clock(slot);
            let act = &mut self.activities[slot as usize];
            act.settle(now);
            self.rate_changes += 1;
            // Progress per unit of max-min value: the network's bandwidth factor for a comm.
            let factor = match act.kind {
                ActivityKind::Comm { .. } => self.params.bandwidth_factor,
                _ => 1.0,
            };
            act.generation = next_generation(act.generation);
            if let Some(c) = self.lmm.clock_of(var) {
                let k = factor / self.lmm.penalty(var);
                self.join_clock(slot, c, k);
                continue;
            }
            let act = &mut self.activities[slot as usize];
            act.rate = self.lmm.value(var) * factor;
            if act.rate > 0.0 {
                let generation = act.generation;
                let finish = if act.rate.is_finite() {
                    now + act.remaining / act.rate
                } else {
                    now
                };
                self.schedule(finish, QueuedEvent::completion(slot, generation));
            }
        }
        self.changes = changes;
        self.reschedule_clocks();
    }

    // ----- activity lifecycle ----------------------------------------------------------------

    // Forced: on the inlined event path (see `next_notification_until`).
    #[inline(always)]
    fn new_activity(&mut self, kind: ActivityKind, tag: u64, work: f64) -> (ActivityId, Slot) {
        let serial = self.next_serial;
        self.next_serial = self.next_serial.wrapping_add(1);
        if self.next_serial == RELEASED {
            self.next_serial = 0;
        }
        let act = Activity {
            kind,
            tag,
            serial,
            phase: Phase::Running,
            remaining: work,
            rate: 0.0,
            last_update: self.now,
            var: NO_VARIABLE,
            generation: 0,
            route: 0,
        };
        let slot = match self.free_slots.pop() {
            Some(slot) => {
                // Keep generations increasing across reuse so old events stay stale.
                let generation = self.activities[slot as usize].generation;
                self.activities[slot as usize] = Activity {
                    generation: next_generation(generation),
                    ..act
                };
                slot
            }
            None => {
                self.activities.push(act);
                (self.activities.len() - 1) as Slot
            }
        };
        (ActivityId { slot, serial }, slot)
    }

    fn new_variable(&mut self, slot: Slot, penalty: f64, bound: f64) -> VariableId {
        let var = self.lmm.add_variable(penalty, bound);
        self.own_variable(slot, var);
        var
    }

    /// Records that `var` is the rate of the activity in `slot`.
    fn own_variable(&mut self, slot: Slot, var: VariableId) {
        let index = var.0 as usize;
        if self.var_owner.len() <= index {
            self.var_owner.resize(index + 1, 0);
        }
        self.var_owner[index] = slot;
        self.activities[slot as usize].var = var.0;
    }

    fn begin_running(&mut self, slot: Slot) {
        let now = self.now;
        let act = &mut self.activities[slot as usize];
        act.phase = Phase::Running;
        act.last_update = now;
        if act.remaining <= 0.0 {
            let generation = act.generation;
            self.queue.push(now, QueuedEvent::completion(slot, generation));
        }
    }

    #[inline(never)] // out of the event loop's frame (see `next_notification_until`)
    fn start_data_phase(&mut self, slot: Slot) {
        let route = self.activities[slot as usize].route;
        // The figures of the comm's start, moved by any latency change since (SimGrid computes
        // them in `communicate` and enables the variable when the latency has elapsed).
        let figures = self.comm_figures[slot as usize];
        let (penalty, bound) = (
            figures.penalty,
            self.params.bound(figures.latency, figures.min_bandwidth),
        );
        let cached = &self.routes[route as usize];
        if cached.uses.len() == 0 {
            // A route of no link (between Vivaldi members that are not peers) constrains nothing:
            // SimGrid 3.32 ends such a comm when its latency has elapsed, whatever its size.
            self.activities[slot as usize].remaining = 0.0;
            self.begin_running(slot);
            return;
        }
        let uses = self.route_lists.uses(cached.variable_uses.unwrap_or(cached.uses));
        self.omitted_uses += (cached.uses.len() - uses.len()) as u64;
        let var = self.lmm.add_variable_keyed(penalty, bound, uses, cached.key);
        self.own_variable(slot, var);
        self.begin_running(slot);
    }

    /// Ends an activity that finished and returns its notification.
    // Forced: on the inlined event path (see `next_notification_until`).
    #[inline(always)]
    fn complete(&mut self, slot: Slot) -> Notification {
        let act = &self.activities[slot as usize];
        let kind = act.kind;
        let note = Notification::Completed {
            activity: ActivityId {
                slot,
                serial: act.serial,
            },
            kind,
            tag: act.tag,
        };
        if !self.link_meters.is_empty() && matches!(kind, ActivityKind::Comm { .. }) {
            // Before the comm leaves the max-min system: SimGrid's plugin reads the link's usage
            // with the comm still on it.
            self.comm_link_power_update(act.route);
        }
        self.release(slot);
        if let ActivityKind::Io { disk, .. } = kind {
            if matches!(self.disks[disk.0 as usize], DiskState::Fcfs { .. }) {
                self.next_fcfs(disk);
            }
        }
        note
    }

    fn fail(&mut self, slot: Slot, cause: FailureCause) {
        let act = &self.activities[slot as usize];
        let note = Notification::Failed {
            activity: ActivityId {
                slot,
                serial: act.serial,
            },
            kind: act.kind,
            tag: act.tag,
            cause,
        };
        let started_comm =
            matches!(act.kind, ActivityKind::Comm { .. }) && matches!(act.phase, Phase::Latency | Phase::Running);
        if started_comm && !self.link_meters.is_empty() {
            // SimGrid's plugin updates a failed comm's links too, with the comm still on them.
            self.comm_link_power_update(act.route);
        }
        self.release(slot);
        self.notes.push_back(note);
    }

    /// Frees an activity's slot and variable; pending events become stale. Only what tells a
    /// free slot apart is written: `new_activity` overwrites the rest on reuse.
    // Forced: on the inlined event path (see `next_notification_until`).
    #[inline(always)]
    fn release(&mut self, slot: Slot) {
        let act = &mut self.activities[slot as usize];
        act.generation = next_generation(act.generation);
        act.serial = RELEASED;
        act.phase = Phase::Queued;
        if let Some(var) = act.variable() {
            act.var = NO_VARIABLE;
            self.release_variable(slot, var);
        } else {
            // Only an activity with a rate variable joins a clock.
            debug_assert!(self.clock_of_activity(slot).is_none());
        }
        self.free_slots.push(slot);
    }

    /// Takes a released activity off its clock and its variable out of the max-min system. Out
    /// of line, so that releasing a sleep (the hold model's every event) stays a few stores.
    #[inline(never)]
    fn release_variable(&mut self, slot: Slot, var: VariableId) {
        self.drop_from_clock(slot);
        self.lmm.remove_variable(var);
        if !self.meters.is_empty() {
            if let ActivityKind::Exec { host } = self.activities[slot as usize].kind {
                self.exec_count_changed(host, -1);
            }
        }
    }
}

/// The last index from `from` on whose event comes before `until` (event `from` does): a
/// search over indices, so that the dates compared are the ones `Profile::nth_event` gives.
fn last_event_before(profile: &crate::profile::Profile, from: u64, until: f64) -> u64 {
    let before = |n: u64| profile.nth_event(n).is_some_and(|(date, _)| date < until);
    // An index past the answer, doubling the distance (a non-periodic profile runs out).
    let (mut low, mut step) = (from, 1u64);
    let mut high = loop {
        let probe = from.saturating_add(step);
        if !before(probe) || probe == u64::MAX {
            break probe;
        }
        low = probe;
        step = step.saturating_mul(2);
    };
    if before(high) {
        return high;
    }
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if before(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    low
}

/// The order in which the engine would have applied event `i` of `a`'s profile and event `j`
/// of `b`'s, one after the other: by date, and at the same date in the order their steps were
/// pushed, which is the order in which the events before them were applied, and so on back;
/// first events were pushed in the order of [`initial_rank`]. Followed back at most
/// [`SAME_DATE_WALK`] events: profiles still on the same dates then are in step, and keep the
/// order they started in.
fn applied_earlier(
    platform: &Platform,
    (a, i): (ProfileTarget, u64),
    (b, j): (ProfileTarget, u64),
) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let date = |target, n| {
        platform_profile_of(platform, target)
            .and_then(|p| p.nth_event(n))
            .map(|e| e.0)
    };
    let (mut i, mut j) = (i, j);
    for _ in 0..SAME_DATE_WALK {
        match date(a, i).partial_cmp(&date(b, j)) {
            Some(Ordering::Equal) | None => {}
            Some(order) => return order,
        }
        match (i, j) {
            (0, 0) => break,
            // A first event was pushed when the run started, before any other.
            (0, _) => return Ordering::Less,
            (_, 0) => return Ordering::Greater,
            _ => (i, j) = (i - 1, j - 1),
        }
    }
    initial_rank(a).cmp(&initial_rank(b))
}

/// The order in which `Engine::schedule_profiles` pushes the first events.
fn initial_rank(target: ProfileTarget) -> (u8, u32, u8) {
    match target {
        ProfileTarget::HostSpeed(h) => (0, h.0, 0),
        ProfileTarget::HostState(h) => (0, h.0, 1),
        ProfileTarget::LinkBandwidth(l) => (1, l.0, 0),
        ProfileTarget::LinkLatency(l) => (1, l.0, 1),
        ProfileTarget::LinkState(l) => (1, l.0, 2),
    }
}

/// Whether an event is still its activity's or clock's (its generation has not moved on); a
/// superseded one is skipped when popped and dropped when the queue is compacted.
fn is_current(activities: &[Activity], clocks: &[Clock], event: Event) -> bool {
    match event {
        Event::Completion { slot, generation } | Event::LatencyElapsed { slot, generation } => {
            activities[slot as usize].generation == generation
        }
        Event::ClockDue { clock, generation } => clocks[clock as usize].generation == generation,
        // Profile events wait in their own heap, never in the queue.
        Event::ProfileStep { .. } => true,
    }
}

/// What one [`Engine::step`] did.
enum Step {
    /// An activity's completion is due: the caller completes it. The notification is built where
    /// it is returned, not copied out of a `Step`: reading back such a copy stalls on store
    /// forwarding, about 5% of a hold-model event.
    Completed(Slot),
    /// An event was processed without a completion (it may have queued failure notifications).
    Handled,
    /// No event is due by the horizon.
    Idle,
}

/// A hint to bring `value`'s cache line into the cache; no effect on results.
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and changes no state the program can observe, whatever
    // the address; this one is a live reference besides. SSE is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod power_tests;

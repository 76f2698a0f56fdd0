//! The platform model: hosts, links, disks and the routes between hosts.
//!
//! This is plain data, built once by the `platforms` crate (from SimGrid XML, gridsim TOML or a
//! generator) and shared read-only by every run of a sweep. Units are SI base units throughout:
//! flop/s, bytes/s, seconds, bytes.
//!
//! A SimGrid SPLITDUPLEX link is stored as two independent SHARED links named `<id>_UP` and
//! `<id>_DOWN`, as SimGrid does internally; a route names the direction it uses. So every
//! [`Link`] here is one capacity constraint of the max-min system.
//!
//! Routes come from a tree of zones as in SimGrid (Full, Floyd, Dijkstra, cluster/star, None and
//! Vivaldi routing, zone routes through gateways, bypass routes): see [`Routing`] and the
//! `routing` module docs. Hosts added with [`Platform::add_host`] live in the root zone;
//! [`Platform::add_host_in`] places a host in another zone.

mod dijkstra;
mod routing;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::profile::Profile;

pub use routing::{vivaldi_latency, NetPoint, Route, RouteError, RouterId, Routing, RoutingError, ZoneId, ZoneRouting};

/// Index of a host in [`Platform::hosts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostId(pub u32);

/// Index of a link in [`Platform::links`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub u32);

/// Index of a disk in [`Platform::disks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DiskId(pub u32);

/// A compute host.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    /// Unique name (SimGrid `id`).
    pub name: String,
    /// Peak speed of one core, flop/s, at the power state `pstate` the host starts in. Positive.
    pub speed: f64,
    /// Every power state's peak speed of one core, flop/s (SimGrid `speed="100Mf,50Mf,20Mf"`),
    /// indexed by pstate. Empty when the host has one pstate, whose speed is `speed`. Pstates
    /// not in use may have speed 0 (SimGrid models boot and shutdown that way).
    pub pstate_speeds: Vec<f64>,
    /// The pstate the host starts in (SimGrid `pstate`, default 0); `speed` is its speed.
    pub pstate: usize,
    /// Number of cores. At least 1.
    pub cores: u32,
    /// Multiplies `speed` over time (SimGrid `speed_file`).
    pub speed_profile: Option<Profile>,
    /// Switches the host off (value 0) and on (value != 0) over time (SimGrid `state_file`).
    pub state_profile: Option<Profile>,
    /// Main memory, bytes (cluster family: page faults when jobs need more).
    pub memory_bytes: Option<f64>,
    /// I/O buffer (page cache) size, bytes (cluster family).
    pub io_buffer_bytes: Option<f64>,
    /// Disks attached to this host.
    pub disks: Vec<DiskId>,
    /// Free-form properties (SimGrid `<prop>`), sorted by key.
    pub properties: BTreeMap<String, String>,
}

impl Host {
    /// A host with one core, no profiles and no extra attributes.
    pub fn new(name: impl Into<String>, speed: f64) -> Host {
        Host {
            name: name.into(),
            speed,
            pstate_speeds: Vec::new(),
            pstate: 0,
            cores: 1,
            speed_profile: None,
            state_profile: None,
            memory_bytes: None,
            io_buffer_bytes: None,
            disks: Vec::new(),
            properties: BTreeMap::new(),
        }
    }

    /// How many power states the host has (at least 1).
    pub fn pstate_count(&self) -> usize {
        self.pstate_speeds.len().max(1)
    }

    /// Peak speed of one core at `pstate`, flop/s; `None` past the last pstate.
    pub fn pstate_speed(&self, pstate: usize) -> Option<f64> {
        if self.pstate_speeds.is_empty() {
            (pstate == 0).then_some(self.speed)
        } else {
            self.pstate_speeds.get(pstate).copied()
        }
    }
}

/// How concurrent flows share a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharingPolicy {
    /// Flows share the bandwidth: the sum of their rates is at most the bandwidth.
    Shared,
    /// Every flow may use the full bandwidth: the largest rate is at most the bandwidth.
    Fatpipe,
}

/// One capacity constraint of the network: a link, or one direction of a SPLITDUPLEX link.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Unique name (SimGrid `id`, with `_UP`/`_DOWN` for split-duplex halves).
    pub name: String,
    /// Bytes/s. Positive.
    pub bandwidth: f64,
    /// Seconds. Non-negative.
    pub latency: f64,
    /// Sharing semantics.
    pub policy: SharingPolicy,
    /// Sets the bandwidth over time, bytes/s (SimGrid `bandwidth_file`, whose values SimGrid
    /// reads as bytes/s, not as factors of `bandwidth`).
    pub bandwidth_profile: Option<Profile>,
    /// Replaces `latency` over time (SimGrid `latency_file`), seconds.
    pub latency_profile: Option<Profile>,
    /// Switches the link off (0) and on over time (SimGrid `state_file`).
    pub state_profile: Option<Profile>,
    /// Its power model (the `wattage_range` property, [`crate::energy`]), if it has one.
    pub power: Option<crate::energy::LinkPower>,
}

impl Link {
    /// A SHARED link without profiles.
    pub fn new(name: impl Into<String>, bandwidth: f64, latency: f64) -> Link {
        Link {
            name: name.into(),
            bandwidth,
            latency,
            policy: SharingPolicy::Shared,
            bandwidth_profile: None,
            latency_profile: None,
            state_profile: None,
            power: None,
        }
    }
}

/// How a disk serves requests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DiskModel {
    /// SimGrid's disk: reads share `read_bw` and writes share `write_bw` max-min (bytes/s).
    Shared {
        /// Read bandwidth, bytes/s.
        read_bw: f64,
        /// Write bandwidth, bytes/s.
        write_bw: f64,
    },
    /// One request at a time, first come first served; a request of `s` bytes takes
    /// `seek_rotation_s + s / transfer_rate` seconds (the cluster family's disk, WAL-FC paper).
    FcfsQueue {
        /// Seek + rotation time per request, seconds.
        seek_rotation_s: f64,
        /// Transfer rate, bytes/s.
        transfer_rate: f64,
    },
}

/// A disk attached to a host.
#[derive(Clone, Debug, PartialEq)]
pub struct Disk {
    /// Name, unique on its host.
    pub name: String,
    /// The host it is attached to.
    pub host: HostId,
    /// Service model.
    pub model: DiskModel,
}

/// A whole platform. Build it with [`Platform::new`] and the `add_*` methods, or with the
/// `platforms` crate.
#[derive(Clone, Debug, Default)]
pub struct Platform {
    /// All hosts, indexed by [`HostId`].
    pub hosts: Vec<Host>,
    /// All links, indexed by [`LinkId`].
    pub links: Vec<Link>,
    /// All disks, indexed by [`DiskId`].
    pub disks: Vec<Disk>,
    /// How hosts reach each other.
    pub routing: Routing,
    /// Model configuration from the platform file (SimGrid `<config><prop id=.. value=..>`),
    /// e.g. `network/latency-factor`; read by the resource models.
    pub config: BTreeMap<String, String>,
    // Looked up by name only (never iterated): hashed, since a large route table names tens of
    // thousands of links.
    host_names: FxHashMap<String, HostId>,
    link_names: FxHashMap<String, LinkId>,
}

impl Platform {
    /// An empty platform.
    pub fn new() -> Platform {
        Platform::default()
    }

    /// Adds a host in the root zone; `None` if the name is taken.
    pub fn add_host(&mut self, host: Host) -> Option<HostId> {
        let root = self.routing.root();
        self.add_host_in(host, root)
    }

    /// Adds a host directly inside `zone` (see [`Routing::add_zone`]); `None` if the name is
    /// taken or the zone does not exist.
    pub fn add_host_in(&mut self, host: Host, zone: ZoneId) -> Option<HostId> {
        let id = HostId(self.hosts.len() as u32);
        if self.host_names.contains_key(&host.name) || (zone.0 as usize) >= self.routing.zone_count() {
            return None;
        }
        self.routing.place_host(id, zone).ok()?;
        self.host_names.insert(host.name.clone(), id);
        self.hosts.push(host);
        Some(id)
    }

    /// Adds a link; `None` if the name is taken.
    pub fn add_link(&mut self, link: Link) -> Option<LinkId> {
        let id = LinkId(self.links.len() as u32);
        if self.link_names.contains_key(&link.name) {
            return None;
        }
        self.link_names.insert(link.name.clone(), id);
        self.links.push(link);
        Some(id)
    }

    /// Adds a disk and attaches it to its host.
    pub fn add_disk(&mut self, disk: Disk) -> DiskId {
        let id = DiskId(self.disks.len() as u32);
        self.hosts[disk.host.0 as usize].disks.push(id);
        self.disks.push(disk);
        id
    }

    /// Looks a host up by name.
    pub fn host_id(&self, name: &str) -> Option<HostId> {
        self.host_names.get(name).copied()
    }

    /// Looks a link up by name.
    pub fn link_id(&self, name: &str) -> Option<LinkId> {
        self.link_names.get(name).copied()
    }

    /// The host with this id.
    pub fn host(&self, id: HostId) -> &Host {
        &self.hosts[id.0 as usize]
    }

    /// The link with this id.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    /// The links a message from `src` to `dst` crosses, in order. For `src == dst` without a
    /// declared route the route is empty and the network model uses its loopback.
    pub fn route(&self, src: HostId, dst: HostId) -> Result<Route, RouteError> {
        self.routing.route(src, dst).ok_or_else(|| self.no_route(src, dst))
    }

    /// The error of a route lookup between hosts that are not connected.
    pub fn no_route(&self, src: HostId, dst: HostId) -> RouteError {
        RouteError::NoRoute {
            src: self.host(src).name.clone(),
            dst: self.host(dst).name.clone(),
        }
    }

    /// [`Platform::route`]'s links into a buffer the caller reuses (cleared first; empty when
    /// there is no route, which returns `false`).
    pub fn route_into(&self, src: HostId, dst: HostId, links: &mut Vec<LinkId>) -> bool {
        self.routing.route_into(src, dst, links)
    }

    /// [`Platform::route_into`], returning the route's zone latency ([`Route::zone_latency`]),
    /// or `None` when there is no route.
    pub fn resolve_into(&self, src: HostId, dst: HostId, links: &mut Vec<LinkId>) -> Option<f64> {
        self.routing.resolve_into(src, dst, links)
    }

    /// A route's latency, seconds: its links' latencies, added in route order from 0.0 as
    /// SimGrid does (so an empty route has latency +0.0), then its zone latency.
    pub fn route_latency(&self, route: &Route) -> f64 {
        route.links.iter().fold(0.0, |acc, &l| acc + self.link(l).latency) + route.zone_latency
    }
}

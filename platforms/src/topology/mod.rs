//! SimGrid 3.32's hierarchical cluster topologies: `<cluster topology="TORUS|FAT_TREE|DRAGONFLY"
//! topo_parameters="...">`.
//!
//! # Model
//!
//! Each topology is a set of named links and a routing function from one host (a *leaf*,
//! numbered 0.. in radical order) to another, both as SimGrid 3.32 builds them
//! (`TorusZone`, `FatTreeZone`, `DragonflyZone` and `ClusterBase::fill_leaf_from_cb`, read to
//! learn the algorithms and checked against the installed SimGrid by
//! `platforms/tests/simgrid_topologies.rs`):
//!
//! - every leaf may have a loopback link `<id>_link_<radical>_loopback` (FATPIPE,
//!   `loopback_bw`/`loopback_lat`), used alone for a route from the leaf to itself, and a limiter
//!   `<id>_link_<leaf>_limiter` (SHARED, latency 0, `limiter_link`) — named by the leaf's
//!   number, not its radical, as SimGrid does;
//! - the topology's own links have the cluster's `bw` and `lat` (times the link count of the
//!   level for dragonfly links); with `sharing_policy="SPLITDUPLEX"` (the default) each is two
//!   independent SHARED links `<name>_UP` and `<name>_DOWN`, otherwise one SHARED link: SimGrid
//!   3.32 creates them without setting their policy, so `FATPIPE` still gives SHARED links;
//! - fat-tree switches and dragonfly routers have limiters too when `limiter_link` is set,
//!   named by their SimGrid identifier.
//!
//! SimGrid numbers fat-tree links, fat-tree leaf positions and dragonfly links with counters
//! that live as long as the process; a platform file loaded in a fresh process (how SimGrid's
//! tools and `scripts/simgrid_oracle.py` run) starts them at 0, so they are kept per parse
//! ([`Counters`]): the second fat tree of a file continues the first one's numbering, as in
//! SimGrid.
//!
//! The result is a [`Layout`]: the links in SimGrid's creation order and every host pair's
//! route as indices into them. The importer turns it into a Full zone holding one declared
//! route per ordered host pair, so a topology of `n` hosts stores `n²` routes; [`MAX_HOSTS`]
//! bounds that. Both front ends (SimGrid XML's `<cluster topology=...>` and gridsim TOML's
//! `[[cluster]]` with `topology`) parse with [`Topology::parse`], check the host count with
//! [`Topology::check_hosts`] and fill their zone with [`fill_zone`], so a topology is built
//! one way whatever file describes it.

mod dragonfly;
mod fat_tree;
mod torus;

use sim_core::platform::{Host, NetPoint, ZoneId};

use crate::builder::{Builder, LinkPolicy, LinkProfiles};
use crate::error::ErrorKind;

pub use dragonfly::Dragonfly;
pub use fat_tree::FatTree;
pub use torus::Torus;

/// Largest number of hosts a topology cluster may have: its `n²` routes are stored explicitly,
/// so memory grows with `n²` times the route length (up to 65 links a route on a 32×32 torus
/// with limiters, about a million routes), and twice this many hosts would need gigabytes.
pub const MAX_HOSTS: usize = 1024;

/// A parsed `topology` + `topo_parameters`.
#[derive(Clone, Debug, PartialEq)]
pub enum Topology {
    Torus(Torus),
    FatTree(FatTree),
    Dragonfly(Dragonfly),
}

impl Topology {
    /// Parses `topo_parameters` for `topology` (`TORUS`, `FAT_TREE` or `DRAGONFLY`); the error
    /// says what is wrong with the parameters.
    pub fn parse(topology: &str, parameters: &str) -> Result<Topology, String> {
        let t = match topology {
            "TORUS" => Topology::Torus(Torus::parse(parameters)?),
            "FAT_TREE" => Topology::FatTree(FatTree::parse(parameters)?),
            "DRAGONFLY" => Topology::Dragonfly(Dragonfly::parse(parameters)?),
            other => return Err(format!("unknown topology {other}")),
        };
        let n = t.hosts();
        if n > MAX_HOSTS {
            return Err(format!(
                "this topology has {n} hosts; gridsim stores every host pair's route of a {topology} \
                 cluster, so it accepts at most {MAX_HOSTS} hosts"
            ));
        }
        Ok(t)
    }

    /// Number of hosts (leaves) the topology has.
    pub fn hosts(&self) -> usize {
        match self {
            Topology::Torus(t) => t.hosts(),
            Topology::FatTree(t) => t.hosts(),
            Topology::Dragonfly(t) => t.hosts(),
        }
    }

    /// Checks that a cluster lists exactly as many hosts (`listed`) as the topology has
    /// (SimGrid aborts with fewer and ignores the extra ones); the error says both counts.
    pub fn check_hosts(&self, listed: usize, topology: &str, parameters: &str) -> Result<(), String> {
        if listed == self.hosts() {
            return Ok(());
        }
        Err(format!(
            "lists {listed} host(s) but topology {topology} \"{parameters}\" has {} hosts",
            self.hosts()
        ))
    }

    /// Builds the links and routes of the cluster.
    pub fn layout(&self, cluster: &ClusterLinks, counters: &mut Counters) -> Result<Layout, String> {
        match self {
            Topology::Torus(t) => t.layout(cluster),
            Topology::FatTree(t) => t.layout(cluster, counters),
            Topology::Dragonfly(t) => t.layout(cluster, counters),
        }
    }
}

/// Which part of a topology cluster a [`fill_zone`] error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// A host (its name is taken).
    Host,
    /// A link (its name is taken).
    Link,
    /// A route (the zone refuses it).
    Route,
}

/// Fills `zone`, a Full zone, with a topology cluster: `hosts` in leaf order, the layout's
/// links in SimGrid's creation order, then one declared route per ordered host pair.
pub(crate) fn fill_zone(
    b: &mut Builder,
    zone: ZoneId,
    hosts: Vec<Host>,
    layout: &Layout,
) -> Result<(), (Part, ErrorKind)> {
    let mut points = Vec::with_capacity(hosts.len());
    for h in hosts {
        let id = b.add_host(zone, h).map_err(|e| (Part::Host, e))?;
        points.push(NetPoint::Host(id));
    }
    let mut ids = Vec::with_capacity(layout.links.len());
    for l in &layout.links {
        let policy = if l.fatpipe {
            LinkPolicy::Fatpipe
        } else {
            LinkPolicy::Shared
        };
        let (id, _) = b
            .add_link(&l.name, l.bandwidth, l.latency, policy, LinkProfiles::default())
            .map_err(|e| (Part::Link, e))?;
        ids.push(id);
    }
    for (s, &src) in points.iter().enumerate() {
        for (d, &dst) in points.iter().enumerate() {
            let route = layout.route(s, d).iter().map(|&l| ids[l as usize]).collect();
            b.add_route(zone, src, dst, route, None, false)
                .map_err(|e| (Part::Route, e))?;
        }
    }
    Ok(())
}

/// Saturating product of small factors (the parsers bound each factor).
fn product(values: impl IntoIterator<Item = usize>) -> usize {
    values.into_iter().fold(1usize, |a, b| a.saturating_mul(b))
}

/// Parses a positive integer of `topo_parameters`; `what` names it in the error.
fn positive(text: &str, what: &str) -> Result<usize, String> {
    let t = text.trim();
    match t.parse::<usize>() {
        Ok(0) => Err(format!("{what} must be positive, got 0")),
        Ok(v) if v <= MAX_HOSTS * 2 => Ok(v),
        Ok(v) => Err(format!("{what} is {v}, more than {}", MAX_HOSTS * 2)),
        Err(_) => Err(format!("{what} must be a positive integer, got \"{t}\"")),
    }
}

/// What the cluster element says about its links.
#[derive(Clone, Debug)]
pub struct ClusterLinks {
    /// The cluster's `id` (prefix of loopback, limiter and torus link names).
    pub id: String,
    /// The radicals, one per host in leaf order (loopback names use them).
    pub radicals: Vec<i64>,
    pub bandwidth: f64,
    pub latency: f64,
    /// SPLITDUPLEX: `_UP` and `_DOWN` links.
    pub split: bool,
    /// Loopback bandwidth and latency.
    pub loopback: Option<(f64, f64)>,
    /// Limiter bandwidth.
    pub limiter: Option<f64>,
}

/// SimGrid's process-wide counters, kept per parsed platform (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// `FatTreeZone::add_processing_node`'s leaf position.
    pub fat_tree_position: usize,
    /// `FatTreeZone::add_link`'s link number.
    pub fat_tree_link: usize,
    /// `DragonflyZone::generate_links`'s link number.
    pub dragonfly_link: usize,
}

/// A link to create.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub name: String,
    pub bandwidth: f64,
    pub latency: f64,
    /// FATPIPE (loopbacks) rather than SHARED.
    pub fatpipe: bool,
}

/// The links of a topology cluster and its routes.
pub struct Layout {
    /// In SimGrid's creation order.
    pub links: Vec<LinkSpec>,
    hosts: usize,
    /// `routes[src * hosts + dst]`: `route_links[start..end]`.
    bounds: Vec<(u32, u32)>,
    route_links: Vec<u32>,
}

impl Layout {
    /// The route from leaf `src` to leaf `dst`, as indices into [`Layout::links`].
    pub fn route(&self, src: usize, dst: usize) -> &[u32] {
        let (a, b) = self.bounds[src * self.hosts + dst];
        &self.route_links[a as usize..b as usize]
    }

    /// Number of hosts.
    pub fn hosts(&self) -> usize {
        self.hosts
    }
}

/// Builds a [`Layout`]: links first, then every pair's route from `route`, which appends
/// link indices to its vector and may refuse.
struct LayoutBuilder {
    links: Vec<LinkSpec>,
    /// Per leaf: loopback and limiter.
    loopback: Vec<Option<u32>>,
    limiter: Vec<Option<u32>>,
}

impl LayoutBuilder {
    fn new() -> LayoutBuilder {
        LayoutBuilder {
            links: Vec::new(),
            loopback: Vec::new(),
            limiter: Vec::new(),
        }
    }

    fn push(&mut self, name: String, bandwidth: f64, latency: f64, fatpipe: bool) -> u32 {
        self.links.push(LinkSpec {
            name,
            bandwidth,
            latency,
            fatpipe,
        });
        (self.links.len() - 1) as u32
    }

    /// A topology link: `(up, down)`, the same link unless split.
    fn pair(&mut self, c: &ClusterLinks, name: String, bandwidth: f64) -> (u32, u32) {
        if c.split {
            let up = self.push(format!("{name}_UP"), bandwidth, c.latency, false);
            let down = self.push(format!("{name}_DOWN"), bandwidth, c.latency, false);
            (up, down)
        } else {
            let l = self.push(name, bandwidth, c.latency, false);
            (l, l)
        }
    }

    /// `fill_leaf_from_cb`'s links for leaf `leaf`: loopback, then limiter.
    fn leaf(&mut self, c: &ClusterLinks, leaf: usize) {
        let lb = c.loopback.map(|(bw, lat)| {
            let name = format!("{}_link_{}_loopback", c.id, c.radicals[leaf]);
            self.push(name, bw, lat, true)
        });
        let lim = c.limiter.map(|bw| self.limiter_link(c, leaf as u64, bw));
        self.loopback.push(lb);
        self.limiter.push(lim);
    }

    /// A limiter named by a SimGrid identifier (leaf number, switch or router id).
    fn limiter_link(&mut self, c: &ClusterLinks, id: u64, bandwidth: f64) -> u32 {
        self.push(format!("{}_link_{id}_limiter", c.id), bandwidth, 0.0, false)
    }

    fn finish(
        self,
        hosts: usize,
        mut route: impl FnMut(&LayoutBuilder, usize, usize, &mut Vec<u32>) -> Result<(), String>,
    ) -> Result<Layout, String> {
        let mut bounds = Vec::with_capacity(hosts * hosts);
        let mut route_links = Vec::new();
        for s in 0..hosts {
            for d in 0..hosts {
                let start = route_links.len() as u32;
                if s == d {
                    if let Some(lb) = self.loopback[s] {
                        route_links.push(lb);
                        bounds.push((start, route_links.len() as u32));
                        continue;
                    }
                }
                route(&self, s, d, &mut route_links)?;
                bounds.push((start, route_links.len() as u32));
            }
        }
        Ok(Layout {
            links: self.links,
            hosts,
            bounds,
            route_links,
        })
    }
}

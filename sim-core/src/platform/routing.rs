//! Routes between hosts: SimGrid's tree of network zones (platform DTD v4.1, SimGrid 3.32).
//!
//! # Model
//!
//! The platform is a tree of zones rooted at [`Routing::root`]. Every host, router and child zone
//! is a *net point* ([`NetPoint`]) directly inside exactly one zone; inside a zone, net points are
//! numbered in declaration order (that order breaks ties in shortest-path routing, as in SimGrid).
//! A zone routes between its own net points in one of six ways ([`ZoneRouting`]):
//!
//! - **Full**: an explicit table of declared routes. A missing entry means no route.
//! - **Floyd**: declared routes are the edges of a directed graph whose edge cost is the number of
//!   links of the route; a route is a cheapest path. SimGrid runs Floyd–Warshall over the net
//!   points in declaration order with a strict `<`, so among equally cheap paths the one found
//!   first in that loop order wins; this module runs the same loop (once per zone, lazily, on the
//!   first query) and therefore returns the same paths.
//! - **Dijkstra** (and SimGrid's `DijkstraCache`, which only caches): same graph and costs, the
//!   path SimGrid's Dijkstra search from the source picks, with its exact tie-breaking (graph
//!   nodes numbered in order of first appearance in a declared route, out-edges in declaration
//!   order, a lazy priority queue ordered by `(cost, node)`, strict `<`). The `dijkstra` module
//!   finds that path from distance arrays cached per source or destination, so that the routes
//!   of a many-host zone do not each cost a search over the zone. SimGrid 3.32 builds the result
//!   by inserting every link at the front of the list, which **reverses the links inside each
//!   declared route** of the path (e.g. a declared route `C -> D: l12 l13` comes back from
//!   Dijkstra as `l13 l12`); this module reproduces that order. The set of links and their
//!   latency sum are unaffected.
//! - **Star** (SimGrid's `<cluster>` and `routing="Cluster"` zones): each member has a list of
//!   "up" links (leaving it), a list of "down" links (entering it) and an optional loopback link;
//!   the zone may have a backbone. The route from `a` to `b` is `up(a) ++ [backbone] ++ down(b)`
//!   with repeated links removed (SimGrid's `StarZone` de-duplicates), except that `a -> a` with a
//!   loopback is just the loopback. So a cluster host with a SPLITDUPLEX private link `l` reaches
//!   itself (no loopback) through `l_UP, backbone, l_DOWN`, but with a SHARED private link through
//!   `l, backbone` only. Routes are computed per query from O(hosts) data: a 1000-host cluster
//!   stores 1000 entries, not 10^6 routes.
//!
//! - **Empty** (SimGrid's `routing="None"`, `EmptyZone`): no route at all between its own net
//!   points, not even from a host to itself (SimGrid 3.32 aborts on one); its hosts are reached
//!   only as the gateways of zone routes declared in its parent.
//! - **Vivaldi** (`VivaldiZone`): a star without backbone or loopback whose members have
//!   coordinates `(x, y, z)` in milliseconds; a member's links are its `<peer>` links (a plain
//!   host has none). A route's latency gets the members' distance added,
//!   `(sqrt((x_s - x_d)² + (y_s - y_d)²) + |z_s| + |z_d|) / 1000` seconds
//!   ([`vivaldi_latency`]): the route carries it as [`Route::zone_latency`], since no link
//!   holds it. A route between two child zones needs the zones' coordinates, which SimGrid's XML
//!   cannot give (3.32 aborts): there is none.
//!
//! **Bypass routes** ([`Routing::add_bypass_route`]) come first, as in SimGrid's
//! `NetZoneImpl::get_bypass_route`: each (sub)route from `s` to `d` first looks in the bypass
//! routes of their deepest common zone `C`. Between two net points directly in `C`, only the
//! pair's own bypass counts. Otherwise, with `S_0 .. S_k` the zones from `s`'s own zone up to
//! the child of `C` holding it (and `D_0 .. D_m` for `d`), the pairs `(S_i, D_j)` are tried for
//! growing `n = max(i, j)`: `(S_i, D_n)` then `(S_n, D_i)` for each `i < n`, then `(S_n, D_n)`;
//! the first found gives `route(s, gw_src) ++ links ++ route(gw_dst, d)`. Platforms without
//! bypass routes skip the search.
//!
//! Between zones, routes are hierarchical as in SimGrid: for hosts `s` and `d` in different zones,
//! find the deepest common ancestor zone `C` and its two children `S` (containing `s`) and `D`
//! (containing `d`); `C` must have a zone route `S -> D` with gateways `gw_src` (inside `S`) and
//! `gw_dst` (inside `D`). The route is `route(s, gw_src) ++ links(S -> D) ++ route(gw_dst, d)`,
//! each part resolved recursively (the first part is omitted when `s == gw_src`, the last when
//! `gw_dst == d`). In a Floyd zone whose path crosses several child zones, the route between the
//! exit gateway of one zone route and the entry gateway of the next is inserted in between.
//! A host in a zone that is an ancestor of the other host's zone has no route (SimGrid has no
//! defined answer for that case either).
//!
//! Declared routes are stored one direction at a time ([`Routing::add_zone_route`]); making a
//! route symmetrical (reversed link order, split-duplex halves swapped) is the caller's job,
//! because only the caller knows which links are halves of one split-duplex link.
//!
//! For `src == dst` without any route (no declared self route, no cluster loopback or private
//! link) [`Routing::route`] returns an empty route; the network model then uses its loopback, as
//! SimGrid uses its `__loopback__` link.

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use super::dijkstra::{DijkstraGraph, LOOPBACK, NONE};
use super::{HostId, LinkId};

/// The ordered links a message crosses from its source to its destination.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    /// Links in crossing order.
    pub links: Vec<LinkId>,
    /// Latency the zones add beyond the links' own, seconds: the distances of Vivaldi zones
    /// (SimGrid adds them to the route's latency); 0 elsewhere.
    pub zone_latency: f64,
}

/// A route that cannot be resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    /// The platform declares no route between the two hosts.
    #[error("no route from host '{src}' to host '{dst}'")]
    NoRoute {
        /// Name of the source host.
        src: String,
        /// Name of the destination host.
        dst: String,
    },
}

/// Index of a zone in the zone tree; [`Routing::root`] is `ZoneId(0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ZoneId(pub u32);

/// Index of a router (a net point that is not a host: gateways, switches).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RouterId(pub u32);

/// Something a route can start or end at inside a zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NetPoint {
    /// A host.
    Host(HostId),
    /// A router.
    Router(RouterId),
    /// A child zone (endpoint of a zone route).
    Zone(ZoneId),
}

/// How a zone computes routes between its net points (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneRouting {
    /// Explicit table of routes.
    Full,
    /// Cheapest paths (in number of links) over declared routes, Floyd–Warshall.
    Floyd,
    /// Cheapest paths (in number of links) over declared routes, the path SimGrid's Dijkstra
    /// search from the source picks.
    Dijkstra,
    /// Cluster: per-member up/down links, optional backbone and loopbacks.
    Star,
    /// SimGrid's `routing="None"` (`EmptyZone`): no route between its own net points, not even
    /// from a host to itself; its hosts are reached only as zone-route gateways.
    Empty,
    /// SimGrid's `routing="Vivaldi"`: a star whose members have optional private links (a
    /// `<peer>`'s `link_<id>_UP`/`_DOWN`, no backbone, no loopback) and coordinates; a route's
    /// latency adds the members' distance (see [`vivaldi_latency`]).
    Vivaldi,
}

/// The latency, seconds, SimGrid 3.32's `VivaldiZone` adds to a route between two members with
/// coordinates `a` and `b` (milliseconds): the Euclidean distance of the first two components
/// plus the absolute values of both heights (the third components), over 1000. The operations
/// are SimGrid's, in its order, so the sum is the same double.
pub fn vivaldi_latency(a: [f64; 3], b: [f64; 3]) -> f64 {
    let sq = |x: f64, y: f64| (x - y) * (x - y);
    let distance = (sq(a[0], b[0]) + sq(a[1], b[1])).sqrt() + a[2].abs() + b[2].abs();
    distance / 1000.0
}

/// Why a routing declaration was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoutingError {
    /// The net point is not directly inside the zone.
    #[error("{point:?} is not directly inside zone {zone:?}")]
    NotInZone {
        /// The net point.
        point: NetPoint,
        /// The zone.
        zone: ZoneId,
    },
    /// The net point was already placed in a zone.
    #[error("{0:?} is already placed in a zone")]
    AlreadyPlaced(NetPoint),
    /// The zone does not exist.
    #[error("no zone {0:?}")]
    NoSuchZone(ZoneId),
    /// A route between the two net points was already declared in this zone.
    #[error("a route from {src:?} to {dst:?} already exists")]
    DuplicateRoute {
        /// Source.
        src: NetPoint,
        /// Destination.
        dst: NetPoint,
    },
    /// Routes between two zones need gateways, routes between hosts/routers must not have any.
    #[error("a route between zones needs gateways, and only a route between zones may have them")]
    Gateways,
    /// A gateway is not inside the zone it is the gateway of.
    #[error("gateway {gateway:?} is not inside zone {zone:?}")]
    GatewayOutside {
        /// The gateway.
        gateway: NetPoint,
        /// The zone it should be inside.
        zone: ZoneId,
    },
    /// The zone's routing does not support this declaration (e.g. explicit routes in a Star zone).
    #[error("zone {zone:?} with {routing:?} routing does not accept this declaration")]
    WrongRouting {
        /// The zone.
        zone: ZoneId,
        /// Its routing.
        routing: ZoneRouting,
    },
    /// The root zone can only be configured while it is empty.
    #[error("the root zone is not empty")]
    RootNotEmpty,
    /// A bypass route between the two net points was already declared in this zone.
    #[error("a bypass route from {src:?} to {dst:?} already exists")]
    DuplicateBypass {
        /// Source.
        src: NetPoint,
        /// Destination.
        dst: NetPoint,
    },
    /// A bypass route's end is not where it can ever be used (see [`Routing::add_bypass_route`]).
    #[error("{point:?} is not a valid end of a bypass route declared in zone {zone:?}")]
    BypassEnd {
        /// The net point.
        point: NetPoint,
        /// The zone the bypass route is declared in.
        zone: ZoneId,
    },
}

/// Where a net point lives: its zone and its index among that zone's net points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loc {
    zone: ZoneId,
    index: u32,
}

/// A declared route inside a zone (one direction).
#[derive(Clone, Debug)]
struct Edge {
    src: u32,
    dst: u32,
    links: Vec<LinkId>,
    gateways: Option<(NetPoint, NetPoint)>,
}

/// A bypass route (SimGrid `<bypassRoute>`, `<bypassZoneRoute>`): used instead of the route
/// the zones would compute.
#[derive(Clone, Debug)]
struct Bypass {
    links: Vec<LinkId>,
    /// Entry and exit net points of a bypass between zones.
    gateways: Option<(NetPoint, NetPoint)>,
}

/// A member of a Star zone.
#[derive(Clone, Debug, Default)]
struct StarLinks {
    up: Vec<LinkId>,
    down: Vec<LinkId>,
    loopback: Option<LinkId>,
}

/// Floyd–Warshall result of one zone: `pred[a*n+b]` and the edge used for the last hop.
#[derive(Debug)]
struct FloydTables {
    n: usize,
    pred: Vec<u32>,
    edge: Vec<u32>,
}

#[derive(Clone, Debug)]
struct Zone {
    name: String,
    parent: Option<ZoneId>,
    /// Index of this zone among its parent's net points.
    index_in_parent: u32,
    kind: ZoneRouting,
    vertices: Vec<NetPoint>,
    has_child_zones: bool,
    edges: Vec<Edge>,
    /// Route lookup by (source, destination) vertex: only looked up, never iterated, so a
    /// hash map (grid90's Full zone holds 4004 routes).
    edge_index: FxHashMap<(u32, u32), u32>,
    /// Star members, indexed by vertex index (`None`: no links declared).
    star: Vec<Option<StarLinks>>,
    backbone: Option<LinkId>,
    /// Vivaldi coordinates by vertex index (Vivaldi zones only).
    coords: Vec<Option<[f64; 3]>>,
    /// Bypass routes declared in this zone, by (source, destination): looked up only.
    bypass: FxHashMap<(NetPoint, NetPoint), Bypass>,
    floyd: OnceLock<Arc<FloydTables>>,
    graph: OnceLock<Arc<DijkstraGraph>>,
}

impl Zone {
    fn new(name: String, parent: Option<ZoneId>, index_in_parent: u32, kind: ZoneRouting) -> Zone {
        Zone {
            name,
            parent,
            index_in_parent,
            kind,
            vertices: Vec::new(),
            has_child_zones: false,
            edges: Vec::new(),
            edge_index: FxHashMap::default(),
            star: Vec::new(),
            backbone: None,
            coords: Vec::new(),
            bypass: FxHashMap::default(),
            floyd: OnceLock::new(),
            graph: OnceLock::new(),
        }
    }

    fn invalidate(&mut self) {
        self.floyd = OnceLock::new();
        self.graph = OnceLock::new();
    }

    /// SimGrid's "base" routing mode: the zone holds hosts/routers but no child zone. Only then
    /// does SimGrid add its implicit loopback edges.
    fn is_base(&self) -> bool {
        !self.has_child_zones && !self.vertices.is_empty()
    }

    fn push_vertex(&mut self, point: NetPoint) -> u32 {
        let index = self.vertices.len() as u32;
        self.vertices.push(point);
        if matches!(point, NetPoint::Zone(_)) {
            self.has_child_zones = true;
        }
        // Routers of a star zone have no private links: the empty lists are their route. So
        // have the members of a Vivaldi zone that are not peers.
        let linkless = match point {
            NetPoint::Router(_) => true,
            NetPoint::Host(_) => self.kind == ZoneRouting::Vivaldi,
            NetPoint::Zone(_) => false,
        };
        self.star.push(linkless.then(StarLinks::default));
        self.coords.push(None);
        self.invalidate();
        index
    }
}

#[derive(Clone, Debug)]
struct Router {
    name: String,
    loc: Loc,
}

/// How hosts reach each other: a tree of zones (see the module docs).
#[derive(Clone, Debug)]
pub struct Routing {
    zones: Vec<Zone>,
    hosts: Vec<Option<Loc>>,
    routers: Vec<Router>,
    /// Whether any zone has a bypass route: without one, route lookups skip the search.
    has_bypass: bool,
}

impl Default for Routing {
    /// A root zone named `root` with Full routing.
    fn default() -> Routing {
        Routing {
            zones: vec![Zone::new("root".into(), None, 0, ZoneRouting::Full)],
            hosts: Vec::new(),
            routers: Vec::new(),
            has_bypass: false,
        }
    }
}

/// Guard against pathological recursion (gateways are validated, so real platforms stay shallow).
const MAX_DEPTH: u32 = 256;

/// Initial room for a route's links and hops: grid routes are a handful of links, so one
/// allocation of this size holds most of them.
const ROUTE_CAPACITY: usize = 16;

type Res<T> = Result<T, ()>;

impl Routing {
    // ----- building ---------------------------------------------------------------------------

    /// The root zone.
    pub fn root(&self) -> ZoneId {
        ZoneId(0)
    }

    /// Renames the root zone and sets its routing; only while it is still empty.
    pub fn configure_root(&mut self, name: impl Into<String>, routing: ZoneRouting) -> Result<(), RoutingError> {
        let root = &mut self.zones[0];
        if !root.vertices.is_empty() || !root.edges.is_empty() {
            return Err(RoutingError::RootNotEmpty);
        }
        root.name = name.into();
        root.kind = routing;
        Ok(())
    }

    /// Creates a child zone of `parent`.
    pub fn add_zone(
        &mut self,
        parent: ZoneId,
        name: impl Into<String>,
        routing: ZoneRouting,
    ) -> Result<ZoneId, RoutingError> {
        self.check_zone(parent)?;
        let id = ZoneId(self.zones.len() as u32);
        let index = self.zones[parent.0 as usize].push_vertex(NetPoint::Zone(id));
        self.zones.push(Zone::new(name.into(), Some(parent), index, routing));
        Ok(id)
    }

    /// Places a host directly inside `zone`. A host can be placed once.
    pub fn place_host(&mut self, host: HostId, zone: ZoneId) -> Result<(), RoutingError> {
        self.check_zone(zone)?;
        let slot = host.0 as usize;
        if self.hosts.len() <= slot {
            self.hosts.resize(slot + 1, None);
        }
        if self.hosts[slot].is_some() {
            return Err(RoutingError::AlreadyPlaced(NetPoint::Host(host)));
        }
        let index = self.zones[zone.0 as usize].push_vertex(NetPoint::Host(host));
        self.hosts[slot] = Some(Loc { zone, index });
        Ok(())
    }

    /// Creates a router directly inside `zone`.
    pub fn add_router(&mut self, zone: ZoneId, name: impl Into<String>) -> Result<RouterId, RoutingError> {
        self.check_zone(zone)?;
        let id = RouterId(self.routers.len() as u32);
        let index = self.zones[zone.0 as usize].push_vertex(NetPoint::Router(id));
        self.routers.push(Router {
            name: name.into(),
            loc: Loc { zone, index },
        });
        Ok(id)
    }

    /// Declares the route from `src` to `dst` (one direction) in `zone`, a Full, Floyd or
    /// Dijkstra zone that directly contains both. Routes between two child zones need
    /// `gateways = Some((gw_src, gw_dst))` with `gw_src` a host or router inside `src` (at any
    /// depth) and `gw_dst` inside `dst`; other routes must have no gateways. Declaring the same
    /// `(src, dst)` twice is an error, as in SimGrid.
    pub fn add_zone_route(
        &mut self,
        zone: ZoneId,
        src: NetPoint,
        dst: NetPoint,
        links: Vec<LinkId>,
        gateways: Option<(NetPoint, NetPoint)>,
    ) -> Result<(), RoutingError> {
        self.check_zone(zone)?;
        let kind = self.zones[zone.0 as usize].kind;
        if matches!(kind, ZoneRouting::Star | ZoneRouting::Empty | ZoneRouting::Vivaldi) {
            return Err(RoutingError::WrongRouting { zone, routing: kind });
        }
        let s = self.index_in(src, zone)?;
        let d = self.index_in(dst, zone)?;
        match (src, dst, gateways) {
            (NetPoint::Zone(sz), NetPoint::Zone(dz), Some((gs, gd))) => {
                if matches!(gs, NetPoint::Zone(_)) || !self.is_inside(gs, sz) {
                    return Err(RoutingError::GatewayOutside { gateway: gs, zone: sz });
                }
                if matches!(gd, NetPoint::Zone(_)) || !self.is_inside(gd, dz) {
                    return Err(RoutingError::GatewayOutside { gateway: gd, zone: dz });
                }
            }
            (NetPoint::Zone(_), _, _) | (_, NetPoint::Zone(_), _) | (_, _, Some(_)) => {
                return Err(RoutingError::Gateways)
            }
            _ => {}
        }
        let z = &mut self.zones[zone.0 as usize];
        if z.edge_index.contains_key(&(s, d)) {
            return Err(RoutingError::DuplicateRoute { src, dst });
        }
        z.edge_index.insert((s, d), z.edges.len() as u32);
        z.edges.push(Edge {
            src: s,
            dst: d,
            links,
            gateways,
        });
        z.invalidate();
        Ok(())
    }

    /// Sets the links of a Star or Vivaldi zone member (a host or router directly inside
    /// `zone`): `up` leaving it, `down` entering it, and an optional loopback used for routes to
    /// itself (Star zones only).
    pub fn set_star_links(
        &mut self,
        zone: ZoneId,
        member: NetPoint,
        up: Vec<LinkId>,
        down: Vec<LinkId>,
        loopback: Option<LinkId>,
    ) -> Result<(), RoutingError> {
        self.check_zone(zone)?;
        let kind = self.zones[zone.0 as usize].kind;
        let allowed = match kind {
            ZoneRouting::Star => true,
            ZoneRouting::Vivaldi => loopback.is_none(),
            _ => false,
        };
        if !allowed || matches!(member, NetPoint::Zone(_)) {
            return Err(RoutingError::WrongRouting { zone, routing: kind });
        }
        let index = self.index_in(member, zone)?;
        self.zones[zone.0 as usize].star[index as usize] = Some(StarLinks { up, down, loopback });
        Ok(())
    }

    /// Sets the backbone of a Star zone.
    pub fn set_backbone(&mut self, zone: ZoneId, backbone: Option<LinkId>) -> Result<(), RoutingError> {
        self.check_zone(zone)?;
        let z = &mut self.zones[zone.0 as usize];
        if z.kind != ZoneRouting::Star {
            return Err(RoutingError::WrongRouting { zone, routing: z.kind });
        }
        z.backbone = backbone;
        Ok(())
    }

    /// Sets the Vivaldi coordinates (milliseconds) of a host or router directly inside the
    /// Vivaldi zone `zone`.
    pub fn set_coordinates(&mut self, zone: ZoneId, member: NetPoint, coords: [f64; 3]) -> Result<(), RoutingError> {
        self.check_zone(zone)?;
        let kind = self.zones[zone.0 as usize].kind;
        if kind != ZoneRouting::Vivaldi || matches!(member, NetPoint::Zone(_)) {
            return Err(RoutingError::WrongRouting { zone, routing: kind });
        }
        let index = self.index_in(member, zone)?;
        self.zones[zone.0 as usize].coords[index as usize] = Some(coords);
        Ok(())
    }

    /// Declares a bypass route in `zone` (one direction), which SimGrid 3.32 consults before any
    /// computed route whose deepest common zone is `zone`
    /// (`NetZoneImpl::get_bypass_route`). Between two hosts or routers (`gateways = None`), both
    /// must be directly inside `zone`, where it replaces their route. Between two zones
    /// (`gateways = Some((gw_src, gw_dst))`), both must be inside `zone` at any depth, on
    /// different branches, and each gateway a host or router inside its zone: a route from a
    /// net point inside `src` to one inside `dst` is then `route(s, gw_src) ++ links ++
    /// route(gw_dst, d)`. Declaring the same pair twice is an error, as in SimGrid.
    pub fn add_bypass_route(
        &mut self,
        zone: ZoneId,
        src: NetPoint,
        dst: NetPoint,
        links: Vec<LinkId>,
        gateways: Option<(NetPoint, NetPoint)>,
    ) -> Result<(), RoutingError> {
        self.check_zone(zone)?;
        match (src, dst, gateways) {
            (NetPoint::Zone(sz), NetPoint::Zone(dz), Some((gs, gd))) => {
                for (end, z) in [(sz, src), (dz, dst)] {
                    if end == zone || !self.is_inside(z, zone) {
                        return Err(RoutingError::BypassEnd { point: z, zone });
                    }
                }
                if self.is_inside(src, dz) || self.is_inside(dst, sz) {
                    return Err(RoutingError::BypassEnd { point: dst, zone });
                }
                if matches!(gs, NetPoint::Zone(_)) || !self.is_inside(gs, sz) {
                    return Err(RoutingError::GatewayOutside { gateway: gs, zone: sz });
                }
                if matches!(gd, NetPoint::Zone(_)) || !self.is_inside(gd, dz) {
                    return Err(RoutingError::GatewayOutside { gateway: gd, zone: dz });
                }
            }
            (NetPoint::Zone(_), _, _) | (_, NetPoint::Zone(_), _) | (_, _, Some(_)) => {
                return Err(RoutingError::Gateways)
            }
            _ => {
                self.index_in(src, zone)?;
                self.index_in(dst, zone)?;
            }
        }
        let z = &mut self.zones[zone.0 as usize];
        if z.bypass.contains_key(&(src, dst)) {
            return Err(RoutingError::DuplicateBypass { src, dst });
        }
        z.bypass.insert((src, dst), Bypass { links, gateways });
        self.has_bypass = true;
        Ok(())
    }

    /// Declares the route from `src` to `dst` (one direction only), replacing any previous one.
    /// A host not placed yet is placed in the root zone. The route goes into the zone of `src`;
    /// if `dst` lives in another zone the call is ignored (use [`Routing::add_zone_route`]).
    pub fn add_route(&mut self, src: HostId, dst: HostId, links: Vec<LinkId>) {
        for h in [src, dst] {
            if self.host_loc(h).is_none() {
                let _ = self.place_host(h, self.root());
            }
        }
        let (Some(ls), Some(ld)) = (self.host_loc(src), self.host_loc(dst)) else {
            return;
        };
        if ls.zone != ld.zone {
            return;
        }
        let z = &mut self.zones[ls.zone.0 as usize];
        if matches!(z.kind, ZoneRouting::Star | ZoneRouting::Empty | ZoneRouting::Vivaldi) {
            return;
        }
        let edge = Edge {
            src: ls.index,
            dst: ld.index,
            links,
            gateways: None,
        };
        match z.edge_index.get(&(ls.index, ld.index)) {
            Some(&i) => z.edges[i as usize] = edge,
            None => {
                z.edge_index.insert((ls.index, ld.index), z.edges.len() as u32);
                z.edges.push(edge);
            }
        }
        z.invalidate();
    }

    // ----- inspecting -------------------------------------------------------------------------

    /// Number of zones (the root included).
    pub fn zone_count(&self) -> usize {
        self.zones.len()
    }

    /// A zone's name.
    pub fn zone_name(&self, zone: ZoneId) -> &str {
        &self.zones[zone.0 as usize].name
    }

    /// A zone's parent (`None` for the root).
    pub fn zone_parent(&self, zone: ZoneId) -> Option<ZoneId> {
        self.zones[zone.0 as usize].parent
    }

    /// A zone's routing.
    pub fn zone_routing(&self, zone: ZoneId) -> ZoneRouting {
        self.zones[zone.0 as usize].kind
    }

    /// The net points directly inside a zone, in declaration order.
    pub fn zone_members(&self, zone: ZoneId) -> &[NetPoint] {
        &self.zones[zone.0 as usize].vertices
    }

    /// Number of declared one-direction routes in a zone (a symmetrical route counts twice).
    pub fn declared_route_count(&self, zone: ZoneId) -> usize {
        self.zones[zone.0 as usize].edges.len()
    }

    /// Number of routers.
    pub fn router_count(&self) -> usize {
        self.routers.len()
    }

    /// A router's name.
    pub fn router_name(&self, router: RouterId) -> &str {
        &self.routers[router.0 as usize].name
    }

    /// The zone a net point is directly inside (`None` for the root zone and unplaced hosts).
    pub fn zone_of(&self, point: NetPoint) -> Option<ZoneId> {
        self.loc(point).map(|l| l.zone)
    }

    /// Whether `point` is inside `zone` at any depth.
    pub fn is_inside(&self, point: NetPoint, zone: ZoneId) -> bool {
        let mut current = match point {
            NetPoint::Zone(z) => Some(z),
            _ => self.zone_of(point),
        };
        while let Some(z) = current {
            if z == zone {
                return true;
            }
            current = self.zones.get(z.0 as usize).and_then(|z| z.parent);
        }
        false
    }

    // ----- routing ----------------------------------------------------------------------------

    /// The route from `src` to `dst`; an empty route for `src == dst` when the platform gives
    /// none (outside a `routing="None"` zone); `None` when the hosts are not connected.
    pub fn route(&self, src: HostId, dst: HostId) -> Option<Route> {
        // Room for a typical route's links, so that it is allocated once, not grown link by link
        // (a run resolves every route it uses: part of the fixed cost of a short run).
        let mut links = Vec::with_capacity(ROUTE_CAPACITY);
        let zone_latency = self.resolve_into(src, dst, &mut links)?;
        Some(Route { links, zone_latency })
    }

    /// [`Routing::route`]'s links, into `links` (cleared first, and left empty when there is no
    /// route): for a caller that only reads them, with a buffer it reuses. `false` when the
    /// hosts are not connected.
    pub fn route_into(&self, src: HostId, dst: HostId, links: &mut Vec<LinkId>) -> bool {
        self.resolve_into(src, dst, links).is_some()
    }

    /// [`Routing::route_into`], returning the route's zone latency (see
    /// [`Route::zone_latency`]), or `None` when the hosts are not connected.
    pub fn resolve_into(&self, src: HostId, dst: HostId, links: &mut Vec<LinkId>) -> Option<f64> {
        links.clear();
        let mut latency = 0.0;
        if self
            .global_route(NetPoint::Host(src), NetPoint::Host(dst), links, &mut latency, 0)
            .is_ok()
        {
            return Some(latency);
        }
        links.clear();
        // SimGrid's loopback, except in a None zone, where SimGrid 3.32 aborts on any route.
        let empty_zone = self
            .host_loc(src)
            .is_some_and(|l| self.zones[l.zone.0 as usize].kind == ZoneRouting::Empty);
        (src == dst && !empty_zone).then_some(0.0)
    }

    /// The route between any two hosts or routers (no special case for `src == dst`).
    pub fn route_between(&self, src: NetPoint, dst: NetPoint) -> Option<Route> {
        // Sized as in `route`.
        let mut links = Vec::with_capacity(ROUTE_CAPACITY);
        let mut zone_latency = 0.0;
        self.global_route(src, dst, &mut links, &mut zone_latency, 0).ok()?;
        Some(Route { links, zone_latency })
    }

    fn check_zone(&self, zone: ZoneId) -> Result<(), RoutingError> {
        if (zone.0 as usize) < self.zones.len() {
            Ok(())
        } else {
            Err(RoutingError::NoSuchZone(zone))
        }
    }

    fn host_loc(&self, host: HostId) -> Option<Loc> {
        self.hosts.get(host.0 as usize).copied().flatten()
    }

    fn loc(&self, point: NetPoint) -> Option<Loc> {
        match point {
            NetPoint::Host(h) => self.host_loc(h),
            NetPoint::Router(r) => self.routers.get(r.0 as usize).map(|r| r.loc),
            NetPoint::Zone(z) => {
                let zone = self.zones.get(z.0 as usize)?;
                zone.parent.map(|p| Loc {
                    zone: p,
                    index: zone.index_in_parent,
                })
            }
        }
    }

    fn index_in(&self, point: NetPoint, zone: ZoneId) -> Result<u32, RoutingError> {
        match self.loc(point) {
            Some(loc) if loc.zone == zone => Ok(loc.index),
            _ => Err(RoutingError::NotInZone { point, zone }),
        }
    }

    fn path_to_root(&self, mut zone: ZoneId) -> Vec<ZoneId> {
        let mut path = vec![zone];
        while let Some(parent) = self.zones[zone.0 as usize].parent {
            path.push(parent);
            zone = parent;
        }
        path
    }

    /// SimGrid's `get_global_route`: appends the links from `src` to `dst` to `links`, and adds
    /// the latency zones add beyond their links (Vivaldi) to `latency`.
    fn global_route(
        &self,
        src: NetPoint,
        dst: NetPoint,
        links: &mut Vec<LinkId>,
        latency: &mut f64,
        depth: u32,
    ) -> Res<()> {
        if depth > MAX_DEPTH {
            return Err(());
        }
        let ls = self.loc(src).ok_or(())?;
        let ld = self.loc(dst).ok_or(())?;
        if ls.zone == ld.zone {
            if self.has_bypass && self.bypass_route(ls.zone, src, dst, ls, ld, links, latency, depth)? {
                return Ok(());
            }
            self.local_route(ls.zone, ls.index, ld.index, links, latency, depth)?;
            return Ok(());
        }
        let ps = self.path_to_root(ls.zone);
        let pd = self.path_to_root(ld.zone);
        let (mut i, mut j) = (ps.len(), pd.len());
        let mut father = ps[i - 1];
        while i > 1 && j > 1 && ps[i - 1] == pd[j - 1] {
            father = ps[i - 1];
            i -= 1;
            j -= 1;
        }
        let (src_anc, dst_anc) = (ps[i - 1], pd[j - 1]);
        let common = if src_anc == dst_anc { src_anc } else { father };
        if self.has_bypass && self.bypass_route(common, src, dst, ls, ld, links, latency, depth)? {
            return Ok(());
        }
        if src_anc == dst_anc {
            // One host's zone contains the other's: SimGrid has no route for this.
            return Err(());
        }
        let si = self.zones[src_anc.0 as usize].index_in_parent;
        let di = self.zones[dst_anc.0 as usize].index_in_parent;
        let mut middle = Vec::new();
        let (gw_src, gw_dst) = self
            .local_route(father, si, di, &mut middle, latency, depth)?
            .ok_or(())?;
        if src != gw_src {
            self.global_route(src, gw_src, links, latency, depth + 1)?;
        }
        links.extend(middle);
        if gw_dst != dst {
            self.global_route(gw_dst, dst, links, latency, depth + 1)?;
        }
        Ok(())
    }

    /// SimGrid 3.32's `NetZoneImpl::get_bypass_route` on `common`, the deepest zone holding both
    /// ends: `Ok(true)` when a bypass route gave the route (appended to `links`). Between two
    /// net points directly inside `common`, only their own bypass counts. Otherwise the zones
    /// from each end up to (not including) `common` are tried in SimGrid's order: for growing
    /// `m`, the pairs `(i, m)` and `(m, i)` for `i < m`, then `(m, m)`, where index 0 is the
    /// end's own zone.
    #[allow(clippy::too_many_arguments)]
    fn bypass_route(
        &self,
        common: ZoneId,
        src: NetPoint,
        dst: NetPoint,
        ls: Loc,
        ld: Loc,
        links: &mut Vec<LinkId>,
        latency: &mut f64,
        depth: u32,
    ) -> Res<bool> {
        let bypass = &self.zones[common.0 as usize].bypass;
        if bypass.is_empty() {
            return Ok(false);
        }
        if ls.zone == common && ld.zone == common {
            return Ok(match bypass.get(&(src, dst)) {
                Some(b) => {
                    links.extend_from_slice(&b.links);
                    true
                }
                None => false,
            });
        }
        let mut ps = self.path_to_root(ls.zone);
        let mut pd = self.path_to_root(ld.zone);
        while ps.len() > 1 && pd.len() > 1 && ps.last() == pd.last() {
            ps.pop();
            pd.pop();
        }
        let lookup = |i: usize, j: usize| match (ps.get(i), pd.get(j)) {
            (Some(&a), Some(&b)) => bypass
                .get(&(NetPoint::Zone(a), NetPoint::Zone(b)))
                .map(|r| (NetPoint::Zone(a), NetPoint::Zone(b), r)),
            _ => None,
        };
        let mut found = None;
        for m in 0..ps.len().max(pd.len()) {
            found = (0..m).find_map(|i| lookup(i, m).or_else(|| lookup(m, i)));
            if found.is_none() {
                found = lookup(m, m);
            }
            if found.is_some() {
                break;
            }
        }
        let Some((key_src, key_dst, route)) = found else {
            return Ok(false);
        };
        let (gw_src, gw_dst) = route.gateways.ok_or(())?;
        if src != key_src {
            self.global_route(src, gw_src, links, latency, depth + 1)?;
        }
        links.extend_from_slice(&route.links);
        if dst != key_dst {
            self.global_route(gw_dst, dst, links, latency, depth + 1)?;
        }
        Ok(true)
    }

    /// Route between two net points of one zone; returns the gateways of zone routes.
    fn local_route(
        &self,
        zone: ZoneId,
        s: u32,
        d: u32,
        links: &mut Vec<LinkId>,
        latency: &mut f64,
        depth: u32,
    ) -> Res<Option<(NetPoint, NetPoint)>> {
        let z = &self.zones[zone.0 as usize];
        match z.kind {
            ZoneRouting::Full => {
                let &e = z.edge_index.get(&(s, d)).ok_or(())?;
                let edge = &z.edges[e as usize];
                links.extend_from_slice(&edge.links);
                Ok(edge.gateways)
            }
            ZoneRouting::Star | ZoneRouting::Vivaldi => {
                let a = z.star.get(s as usize).and_then(Option::as_ref).ok_or(())?;
                let b = z.star.get(d as usize).and_then(Option::as_ref).ok_or(())?;
                // A Vivaldi route needs both ends' coordinates; SimGrid 3.32 aborts without them
                // (and a zone, which XML cannot give coordinates, never has them).
                let extra = match z.kind {
                    ZoneRouting::Vivaldi => {
                        let coords = |i: u32| z.coords.get(i as usize).copied().flatten().ok_or(());
                        Some(vivaldi_latency(coords(s)?, coords(d)?))
                    }
                    _ => None,
                };
                if s == d {
                    if let Some(lb) = a.loopback {
                        links.push(lb);
                        return Ok(None);
                    }
                }
                let start = links.len();
                for &l in a.up.iter().chain(z.backbone.iter()).chain(b.down.iter()) {
                    if !links[start..].contains(&l) {
                        links.push(l);
                    }
                }
                if let Some(extra) = extra {
                    *latency += extra;
                }
                Ok(None)
            }
            ZoneRouting::Empty => Err(()),
            ZoneRouting::Floyd => self.floyd_route(z, s, d, links, latency, depth),
            ZoneRouting::Dijkstra => self.dijkstra_route(z, s, d, links, latency, depth),
        }
    }

    fn floyd_route(
        &self,
        z: &Zone,
        s: u32,
        d: u32,
        links: &mut Vec<LinkId>,
        latency: &mut f64,
        depth: u32,
    ) -> Res<Option<(NetPoint, NetPoint)>> {
        let t = z.floyd.get_or_init(|| Arc::new(floyd_tables(z)));
        let n = t.n;
        let (s, d) = (s as usize, d as usize);
        if s >= n || d >= n {
            return Err(());
        }
        // Walk the predecessors back from dst (SimGrid's do-while: src == dst takes one hop).
        let mut stack: Vec<u32> = Vec::with_capacity(ROUTE_CAPACITY);
        let mut cur = d;
        loop {
            let pred = t.pred[s * n + cur];
            if pred == NONE || stack.len() > n {
                return Err(());
            }
            stack.push(t.edge[pred as usize * n + cur]);
            cur = pred as usize;
            if cur == s {
                break;
            }
        }
        let recursive = z.has_child_zones;
        let gateways = if recursive {
            let first = stack
                .last()
                .and_then(|&e| z.edges.get(e as usize))
                .and_then(|e| e.gateways);
            let last = stack
                .first()
                .and_then(|&e| z.edges.get(e as usize))
                .and_then(|e| e.gateways);
            match (first, last) {
                (Some((gs, _)), Some((_, gd))) => Some((gs, gd)),
                _ => None,
            }
        } else {
            None
        };
        let mut prev_gw_dst: Option<NetPoint> = None;
        while let Some(e) = stack.pop() {
            if e == LOOPBACK {
                continue;
            }
            let edge = z.edges.get(e as usize).ok_or(())?;
            if recursive {
                if let (Some(prev), Some((gs, _))) = (prev_gw_dst, edge.gateways) {
                    if prev != gs {
                        self.global_route(prev, gs, links, latency, depth + 1)?;
                    }
                }
            }
            links.extend_from_slice(&edge.links);
            prev_gw_dst = edge.gateways.map(|g| g.1);
        }
        Ok(gateways)
    }

    fn dijkstra_route(
        &self,
        z: &Zone,
        s: u32,
        d: u32,
        links: &mut Vec<LinkId>,
        latency: &mut f64,
        depth: u32,
    ) -> Res<Option<(NetPoint, NetPoint)>> {
        let g = z.graph.get_or_init(|| Arc::new(dijkstra_graph(z)));
        let (sn, dn) = (g.node(s).ok_or(())?, g.node(d).ok_or(())?);
        if sn == dn {
            let e = g.edge_to(sn, sn).ok_or(())?;
            if e != LOOPBACK {
                // SimGrid inserts each link at the front: the declared order comes out reversed.
                links.extend(z.edges[e as usize].links.iter().rev());
            }
            return Ok(None);
        }
        let mut hops = Vec::with_capacity(ROUTE_CAPACITY);
        if !g.hops(sn, dn, &mut hops) {
            return Err(());
        }
        self.assemble_dijkstra_route(z, dn, &hops, links, latency, depth)
    }

    /// The links of a Dijkstra zone's route from its hops (from the destination node `dn` back
    /// to the source, each hop's predecessor and edge), as SimGrid builds them: every link
    /// inserted at the front, and in a zone of zones the route between consecutive gateways in
    /// between.
    fn assemble_dijkstra_route(
        &self,
        z: &Zone,
        dn: u32,
        hops: &[(u32, u32)],
        links: &mut Vec<LinkId>,
        latency: &mut f64,
        depth: u32,
    ) -> Res<Option<(NetPoint, NetPoint)>> {
        let recursive = z.has_child_zones;
        let mut out: VecDeque<LinkId> = VecDeque::new();
        let mut v = dn;
        let mut gw_src: Option<NetPoint> = None;
        let mut first_gw: Option<NetPoint> = None;
        for &(p, e) in hops {
            let edge = if e == LOOPBACK {
                None
            } else {
                Some(&z.edges[e as usize])
            };
            let prev_gw_src = gw_src;
            let gws = edge.and_then(|e| e.gateways);
            gw_src = gws.map(|g| g.0);
            let gw_dst = gws.map(|g| g.1);
            if v == dn {
                first_gw = gw_dst;
            }
            if recursive && v != dn {
                if let (Some(a), Some(b)) = (gw_dst, prev_gw_src) {
                    if a != b {
                        let mut between = Vec::new();
                        self.global_route(a, b, &mut between, latency, depth + 1)?;
                        for &l in between.iter().rev() {
                            out.push_front(l);
                        }
                    }
                }
            }
            if let Some(edge) = edge {
                for &l in &edge.links {
                    out.push_front(l);
                }
            }
            v = p;
        }
        links.extend(out);
        Ok(match (recursive, gw_src, first_gw) {
            (true, Some(a), Some(b)) => Some((a, b)),
            _ => None,
        })
    }
}

/// SimGrid's FloydZone::do_seal: costs are link counts, loop order c, a, b with a strict `<`.
fn floyd_tables(z: &Zone) -> FloydTables {
    let n = z.vertices.len();
    let mut cost = vec![f64::MAX; n * n];
    let mut pred = vec![NONE; n * n];
    let mut edge = vec![NONE; n * n];
    for (i, e) in z.edges.iter().enumerate() {
        let (a, b) = (e.src as usize, e.dst as usize);
        cost[a * n + b] = e.links.len() as f64;
        pred[a * n + b] = e.src;
        edge[a * n + b] = i as u32;
    }
    if z.is_base() {
        for i in 0..n {
            if edge[i * n + i] == NONE {
                cost[i * n + i] = 1.0;
                pred[i * n + i] = i as u32;
                edge[i * n + i] = LOOPBACK;
            }
        }
    }
    for c in 0..n {
        for a in 0..n {
            let ac = cost[a * n + c];
            if ac == f64::MAX {
                continue;
            }
            for b in 0..n {
                let cb = cost[c * n + b];
                let ab = cost[a * n + b];
                if cb < f64::MAX && (ab == f64::MAX || ac + cb < ab) {
                    cost[a * n + b] = ac + cb;
                    pred[a * n + b] = pred[c * n + b];
                }
            }
        }
    }
    FloydTables { n, pred, edge }
}

/// SimGrid's DijkstraZone graph of a zone (see [`DijkstraGraph::new`]).
fn dijkstra_graph(z: &Zone) -> DijkstraGraph {
    let edges = z.edges.iter().map(|e| (e.src, e.dst, e.links.len()));
    DijkstraGraph::new(z.vertices.len(), edges, z.is_base())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(ids: &[u32]) -> Vec<LinkId> {
        ids.iter().map(|&i| LinkId(i)).collect()
    }

    fn h(i: u32) -> NetPoint {
        NetPoint::Host(HostId(i))
    }

    #[test]
    fn platforms_can_be_shared_between_threads() {
        fn check<T: Clone + Send + Sync>() {}
        check::<Routing>();
        check::<crate::platform::Platform>();
    }

    #[test]
    fn full_table_is_asymmetric_and_self_route_defaults_to_empty() {
        let mut r = Routing::default();
        r.add_route(HostId(0), HostId(1), l(&[1, 2]));
        assert_eq!(r.route(HostId(0), HostId(1)).unwrap().links, l(&[1, 2]));
        assert_eq!(r.route(HostId(1), HostId(0)), None);
        assert_eq!(r.route(HostId(0), HostId(0)), Some(Route::default()));
    }

    /// `route_into` gives `route`'s links, whatever the buffer held, and an empty buffer and
    /// `false` for a pair with no route.
    #[test]
    fn route_into_a_reused_buffer_is_route() {
        let mut full = Routing::default();
        full.add_route(HostId(0), HostId(1), l(&[1, 2]));
        let mut buffer = l(&[9, 9, 9]);
        assert!(full.route_into(HostId(0), HostId(1), &mut buffer));
        assert_eq!(buffer, l(&[1, 2]));
        assert!(!full.route_into(HostId(1), HostId(0), &mut buffer));
        assert!(buffer.is_empty());
        buffer.push(LinkId(9));
        assert!(full.route_into(HostId(0), HostId(0), &mut buffer));
        assert!(buffer.is_empty());
        // A route that fails after its first zone's links were found: 0 -> 1 -> (z2) 2, but no
        // route from the gateway 2 to host 3.
        let mut zones = Routing::default();
        let root = zones.root();
        let z1 = zones.add_zone(root, "z1", ZoneRouting::Full).unwrap();
        let z2 = zones.add_zone(root, "z2", ZoneRouting::Full).unwrap();
        for (host, zone) in [(0, z1), (1, z1), (2, z2), (3, z2)] {
            zones.place_host(HostId(host), zone).unwrap();
        }
        zones.add_zone_route(z1, h(0), h(1), l(&[1]), None).unwrap();
        let gateways = Some((h(1), h(2)));
        zones
            .add_zone_route(root, NetPoint::Zone(z1), NetPoint::Zone(z2), l(&[9]), gateways)
            .unwrap();
        assert!(zones.route_into(HostId(0), HostId(2), &mut buffer));
        assert_eq!(buffer, l(&[1, 9]));
        assert!(!zones.route_into(HostId(0), HostId(3), &mut buffer));
        assert!(buffer.is_empty());
        for r in [tie_graph(ZoneRouting::Floyd), tie_graph(ZoneRouting::Dijkstra)] {
            for (a, b) in [(0, 1), (1, 0), (0, 0), (1, 1)] {
                buffer.push(LinkId(9));
                assert!(r.route_into(HostId(a), HostId(b), &mut buffer));
                assert_eq!(buffer, r.route(HostId(a), HostId(b)).unwrap().links, "{a} -> {b}");
            }
        }
    }

    #[test]
    fn duplicate_zone_route_is_an_error() {
        let mut r = Routing::default();
        let root = r.root();
        r.place_host(HostId(0), root).unwrap();
        r.place_host(HostId(1), root).unwrap();
        r.add_zone_route(root, h(0), h(1), l(&[1]), None).unwrap();
        assert!(matches!(
            r.add_zone_route(root, h(0), h(1), l(&[1]), None),
            Err(RoutingError::DuplicateRoute { .. })
        ));
        assert_eq!(
            r.add_zone_route(root, h(0), h(1), l(&[1]), Some((h(0), h(1)))),
            Err(RoutingError::Gateways)
        );
    }

    /// The graph of the SimGrid experiment quoted in `platforms/tests/routing.rs`: vertices
    /// A, R2, B, R1 (declaration order); routes A-R1 [1], R1-B [2 3], A-R2 [4 5], R2-B [6],
    /// A-B [7 8 9 10], all symmetrical.
    fn tie_graph(kind: ZoneRouting) -> Routing {
        let mut r = Routing::default();
        r.configure_root("z", kind).unwrap();
        let root = r.root();
        r.place_host(HostId(0), root).unwrap();
        let r2 = NetPoint::Router(r.add_router(root, "R2").unwrap());
        r.place_host(HostId(1), root).unwrap();
        let r1 = NetPoint::Router(r.add_router(root, "R1").unwrap());
        let (a, b) = (h(0), h(1));
        let both = |r: &mut Routing, x: NetPoint, y: NetPoint, ids: &[u32]| {
            r.add_zone_route(root, x, y, l(ids), None).unwrap();
            let mut back = l(ids);
            back.reverse();
            r.add_zone_route(root, y, x, back, None).unwrap();
        };
        both(&mut r, a, r1, &[1]);
        both(&mut r, r1, b, &[2, 3]);
        both(&mut r, a, r2, &[4, 5]);
        both(&mut r, r2, b, &[6]);
        both(&mut r, a, b, &[7, 8, 9, 10]);
        r
    }

    #[test]
    fn floyd_and_dijkstra_break_ties_like_simgrid() {
        // SimGrid 3.32: Floyd A->B = l4 l5 l6, B->A = l6 l5 l4; Dijkstra A->B = l1 l3 l2,
        // B->A = l6 l4 l5.
        let f = tie_graph(ZoneRouting::Floyd);
        assert_eq!(f.route(HostId(0), HostId(1)).unwrap().links, l(&[4, 5, 6]));
        assert_eq!(f.route(HostId(1), HostId(0)).unwrap().links, l(&[6, 5, 4]));
        assert_eq!(f.route(HostId(0), HostId(0)).unwrap().links, l(&[]));
        let d = tie_graph(ZoneRouting::Dijkstra);
        assert_eq!(d.route(HostId(0), HostId(1)).unwrap().links, l(&[1, 3, 2]));
        assert_eq!(d.route(HostId(1), HostId(0)).unwrap().links, l(&[6, 4, 5]));
        assert_eq!(d.route(HostId(0), HostId(0)).unwrap().links, l(&[]));
    }

    #[test]
    fn star_zone_dedups_and_uses_loopback() {
        let mut r = Routing::default();
        let c = r.add_zone(r.root(), "c", ZoneRouting::Star).unwrap();
        for i in 0..3 {
            r.place_host(HostId(i), c).unwrap();
        }
        r.set_backbone(c, Some(LinkId(100))).unwrap();
        // host 0: split-duplex (10 up, 11 down); host 1: shared link 20; host 2: shared + loopback.
        r.set_star_links(c, h(0), l(&[10]), l(&[11]), None).unwrap();
        r.set_star_links(c, h(1), l(&[20]), l(&[20]), None).unwrap();
        r.set_star_links(c, h(2), l(&[30]), l(&[30]), Some(LinkId(31))).unwrap();
        assert_eq!(r.route(HostId(0), HostId(1)).unwrap().links, l(&[10, 100, 20]));
        assert_eq!(r.route(HostId(0), HostId(0)).unwrap().links, l(&[10, 100, 11]));
        assert_eq!(r.route(HostId(1), HostId(1)).unwrap().links, l(&[20, 100]));
        assert_eq!(r.route(HostId(2), HostId(2)).unwrap().links, l(&[31]));
        assert_eq!(r.route(HostId(2), HostId(0)).unwrap().links, l(&[30, 100, 11]));
    }

    #[test]
    fn zone_routes_go_through_gateways() {
        let mut r = Routing::default();
        let root = r.root();
        let z1 = r.add_zone(root, "z1", ZoneRouting::Full).unwrap();
        let z2 = r.add_zone(root, "z2", ZoneRouting::Full).unwrap();
        r.place_host(HostId(0), z1).unwrap();
        r.place_host(HostId(1), z1).unwrap();
        r.place_host(HostId(2), z2).unwrap();
        r.add_zone_route(z1, h(0), h(1), l(&[1]), None).unwrap();
        r.add_zone_route(
            root,
            NetPoint::Zone(z1),
            NetPoint::Zone(z2),
            l(&[9]),
            Some((h(1), h(2))),
        )
        .unwrap();
        assert_eq!(r.route(HostId(0), HostId(2)).unwrap().links, l(&[1, 9]));
        assert_eq!(r.route(HostId(1), HostId(2)).unwrap().links, l(&[9]));
        assert_eq!(r.route(HostId(2), HostId(0)), None);
        assert!(matches!(
            r.add_zone_route(
                root,
                NetPoint::Zone(z2),
                NetPoint::Zone(z1),
                l(&[9]),
                Some((h(1), h(0)))
            ),
            Err(RoutingError::GatewayOutside { .. })
        ));
    }
}

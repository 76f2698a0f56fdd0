//! Shared construction logic of the importers and generators: name spaces, split-duplex links,
//! symmetrical routes and SimGrid's `<cluster>` expansion.

use rustc_hash::FxHashMap;

use sim_core::platform::{
    Host, HostId, Link, LinkId, NetPoint, Platform, RoutingError, SharingPolicy, ZoneId, ZoneRouting,
};
use sim_core::profile::Profile;

use crate::error::ErrorKind;

/// SimGrid's link sharing policies (SPLITDUPLEX becomes two SHARED links).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkPolicy {
    /// One shared link.
    Shared,
    /// One fat-pipe link.
    Fatpipe,
    /// Two shared links `<id>_UP` and `<id>_DOWN`.
    SplitDuplex,
}

impl LinkPolicy {
    /// Parses `SHARED`, `FATPIPE` or `SPLITDUPLEX`.
    pub fn parse(value: &str) -> Option<LinkPolicy> {
        match value {
            "SHARED" => Some(LinkPolicy::Shared),
            "FATPIPE" => Some(LinkPolicy::Fatpipe),
            "SPLITDUPLEX" => Some(LinkPolicy::SplitDuplex),
            _ => None,
        }
    }
}

/// Direction of a split-duplex link in a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `<id>_UP`.
    Up,
    /// `<id>_DOWN`.
    Down,
}

/// Time-varying behaviour of a link.
#[derive(Clone, Debug, Default)]
pub struct LinkProfiles {
    pub bandwidth: Option<Profile>,
    pub latency: Option<Profile>,
    pub state: Option<Profile>,
}

/// A SimGrid `<cluster>`, already parsed.
#[derive(Clone, Debug)]
pub struct ClusterSpec {
    pub id: String,
    pub prefix: String,
    pub suffix: String,
    pub radicals: Vec<i64>,
    pub speed: f64,
    pub cores: u32,
    pub bw: f64,
    pub lat: f64,
    pub policy: LinkPolicy,
    /// Backbone bandwidth, latency and policy (Shared or Fatpipe).
    pub backbone: Option<(f64, f64, LinkPolicy)>,
    /// Loopback bandwidth and latency.
    pub loopback: Option<(f64, f64)>,
    /// Limiter bandwidth.
    pub limiter: Option<f64>,
    /// Router name; SimGrid's default is `<prefix><id>_router<suffix>`.
    pub router: Option<String>,
}

/// Which part of a cluster an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterPart {
    Host,
    Link,
    Router,
}

/// A platform under construction.
pub struct Builder {
    pub platform: Platform,
    /// Hosts, routers and zones share one name space (SimGrid's net points).
    netpoints: FxHashMap<String, NetPoint>,
    /// Split-duplex link id -> (up, down).
    split: FxHashMap<String, (LinkId, LinkId)>,
    /// Each split-duplex half -> the other half.
    partner: FxHashMap<LinkId, LinkId>,
}

fn routing_message(err: RoutingError, names: &dyn Fn(NetPoint) -> String) -> ErrorKind {
    ErrorKind::Routing(match err {
        RoutingError::NotInZone { point, .. } => format!("'{}' is not directly inside this zone", names(point)),
        RoutingError::DuplicateRoute { src, dst } => format!(
            "the route from '{}' to '{}' already exists (routes are symmetrical by default: \
             declare both directions with symmetrical=\"NO\", or only one)",
            names(src),
            names(dst)
        ),
        RoutingError::DuplicateBypass { src, dst } => format!(
            "the bypass route from '{}' to '{}' already exists",
            names(src),
            names(dst)
        ),
        RoutingError::BypassEnd { point, zone } => format!(
            "'{}' cannot end a bypass route declared in zone '{}': the ends must be two zones inside \
             it on different branches (bypassZoneRoute)",
            names(point),
            names(NetPoint::Zone(zone))
        ),
        RoutingError::GatewayOutside { gateway, zone } => {
            format!(
                "gateway '{}' is not inside zone '{}'",
                names(gateway),
                names(NetPoint::Zone(zone))
            )
        }
        other => other.to_string(),
    })
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            platform: Platform::new(),
            netpoints: FxHashMap::default(),
            split: FxHashMap::default(),
            partner: FxHashMap::default(),
        }
    }

    /// The display name of a net point.
    pub fn name_of(&self, point: NetPoint) -> String {
        let r = &self.platform.routing;
        match point {
            NetPoint::Host(h) => self
                .platform
                .hosts
                .get(h.0 as usize)
                .map_or("?".into(), |h| h.name.clone()),
            NetPoint::Router(id) => r.router_name(id).to_string(),
            NetPoint::Zone(z) => r.zone_name(z).to_string(),
        }
    }

    fn routing_error(&self, err: RoutingError) -> ErrorKind {
        routing_message(err, &|p| self.name_of(p))
    }

    pub fn netpoint(&self, name: &str) -> Option<NetPoint> {
        self.netpoints.get(name).copied()
    }

    fn claim(&mut self, name: &str, kind: &'static str) -> Result<(), ErrorKind> {
        if self.netpoints.contains_key(name) {
            return Err(ErrorKind::Duplicate {
                kind,
                name: name.to_string(),
            });
        }
        Ok(())
    }

    /// Makes the root zone `name` with `routing`.
    pub fn configure_root(&mut self, name: &str, routing: ZoneRouting) -> Result<ZoneId, ErrorKind> {
        self.claim(name, "zone")?;
        self.platform
            .routing
            .configure_root(name, routing)
            .map_err(|e| self.routing_error(e))?;
        let root = self.platform.routing.root();
        self.netpoints.insert(name.to_string(), NetPoint::Zone(root));
        Ok(root)
    }

    pub fn add_zone(&mut self, parent: ZoneId, name: &str, routing: ZoneRouting) -> Result<ZoneId, ErrorKind> {
        self.claim(name, "zone")?;
        let zone = self
            .platform
            .routing
            .add_zone(parent, name, routing)
            .map_err(|e| self.routing_error(e))?;
        self.netpoints.insert(name.to_string(), NetPoint::Zone(zone));
        Ok(zone)
    }

    pub fn add_host(&mut self, zone: ZoneId, host: Host) -> Result<HostId, ErrorKind> {
        let name = host.name.clone();
        self.claim(&name, "host")?;
        let id = self.platform.add_host_in(host, zone).ok_or(ErrorKind::Duplicate {
            kind: "host",
            name: name.clone(),
        })?;
        self.netpoints.insert(name, NetPoint::Host(id));
        Ok(id)
    }

    pub fn add_router(&mut self, zone: ZoneId, name: &str) -> Result<NetPoint, ErrorKind> {
        self.claim(name, "router")?;
        let id = self
            .platform
            .routing
            .add_router(zone, name)
            .map_err(|e| self.routing_error(e))?;
        self.netpoints.insert(name.to_string(), NetPoint::Router(id));
        Ok(NetPoint::Router(id))
    }

    fn push_link(&mut self, link: Link) -> Result<LinkId, ErrorKind> {
        let name = link.name.clone();
        if self.split.contains_key(&name) {
            return Err(ErrorKind::Duplicate { kind: "link", name });
        }
        self.platform
            .add_link(link)
            .ok_or(ErrorKind::Duplicate { kind: "link", name })
    }

    /// Sets a link's power model (its `wattage_range` property).
    pub fn set_link_power(&mut self, link: LinkId, power: sim_core::energy::LinkPower) {
        self.platform.links[link.0 as usize].power = Some(power);
    }

    /// Adds a link; a split-duplex one becomes `<name>_UP` and `<name>_DOWN`. Returns the
    /// (up, down) links, equal unless split-duplex.
    pub fn add_link(
        &mut self,
        name: &str,
        bandwidth: f64,
        latency: f64,
        policy: LinkPolicy,
        profiles: LinkProfiles,
    ) -> Result<(LinkId, LinkId), ErrorKind> {
        let make = |name: String, policy: SharingPolicy| Link {
            name,
            bandwidth,
            latency,
            policy,
            bandwidth_profile: profiles.bandwidth.clone(),
            latency_profile: profiles.latency.clone(),
            state_profile: profiles.state.clone(),
            power: None,
        };
        match policy {
            LinkPolicy::Shared | LinkPolicy::Fatpipe => {
                if self.split.contains_key(name) {
                    return Err(ErrorKind::Duplicate {
                        kind: "link",
                        name: name.to_string(),
                    });
                }
                let sharing = if policy == LinkPolicy::Fatpipe {
                    SharingPolicy::Fatpipe
                } else {
                    SharingPolicy::Shared
                };
                let id = self.push_link(make(name.to_string(), sharing))?;
                Ok((id, id))
            }
            LinkPolicy::SplitDuplex => {
                if self.split.contains_key(name) || self.platform.link_id(name).is_some() {
                    return Err(ErrorKind::Duplicate {
                        kind: "link",
                        name: name.to_string(),
                    });
                }
                let up = self.push_link(make(format!("{name}_UP"), SharingPolicy::Shared))?;
                let down = self.push_link(make(format!("{name}_DOWN"), SharingPolicy::Shared))?;
                self.split.insert(name.to_string(), (up, down));
                self.partner.insert(up, down);
                self.partner.insert(down, up);
                Ok((up, down))
            }
        }
    }

    /// The links named `name` (both halves of a split-duplex link), for trace_connect.
    pub fn links_named(&self, name: &str) -> Vec<LinkId> {
        if let Some(&(up, down)) = self.split.get(name) {
            return vec![up, down];
        }
        self.platform.link_id(name).into_iter().collect()
    }

    /// Resolves a link reference of a route. Without a direction, `name` is a SHARED/FATPIPE link
    /// or one half (`x_UP`, `x_DOWN`) of a split-duplex one; with a direction, `name` must be a
    /// split-duplex link.
    pub fn resolve_link(&self, name: &str, direction: Option<Direction>) -> Result<LinkId, ErrorKind> {
        match (direction, self.split.get(name)) {
            (Some(Direction::Up), Some(&(up, _))) => Ok(up),
            (Some(Direction::Down), Some(&(_, down))) => Ok(down),
            (None, Some(_)) => Err(ErrorKind::BadValue {
                value: name.to_string(),
                reason: "this link is SPLITDUPLEX: say which direction the route uses (UP or DOWN)".into(),
            }),
            (Some(_), None) => match self.platform.link_id(name) {
                Some(_) => Err(ErrorKind::BadValue {
                    value: name.to_string(),
                    reason: "a direction only applies to SPLITDUPLEX links".into(),
                }),
                None => Err(ErrorKind::Unknown {
                    kind: "link",
                    name: name.to_string(),
                }),
            },
            (None, None) => self.platform.link_id(name).ok_or_else(|| ErrorKind::Unknown {
                kind: "link",
                name: name.to_string(),
            }),
        }
    }

    /// The reverse of a route: links in reverse order, split-duplex halves swapped.
    pub fn reverse(&self, links: &[LinkId]) -> Vec<LinkId> {
        links
            .iter()
            .rev()
            .map(|l| self.partner.get(l).copied().unwrap_or(*l))
            .collect()
    }

    /// Declares a route (and its reverse when `symmetrical`), SimGrid-style: the reverse has its
    /// gateways swapped; a symmetrical self-route is declared once in Full zones and is an error
    /// in Floyd/Dijkstra zones (as in SimGrid).
    pub fn add_route(
        &mut self,
        zone: ZoneId,
        src: NetPoint,
        dst: NetPoint,
        links: Vec<LinkId>,
        gateways: Option<(NetPoint, NetPoint)>,
        symmetrical: bool,
    ) -> Result<(), ErrorKind> {
        let back = self.reverse(&links);
        let routing = self.platform.routing.zone_routing(zone);
        self.platform
            .routing
            .add_zone_route(zone, src, dst, links, gateways)
            .map_err(|e| self.routing_error(e))?;
        if symmetrical && (src != dst || routing != ZoneRouting::Full) {
            let back_gw = gateways.map(|(a, b)| (b, a));
            self.platform
                .routing
                .add_zone_route(zone, dst, src, back, back_gw)
                .map_err(|e| match e {
                    RoutingError::DuplicateRoute { .. } => ErrorKind::Routing(format!(
                        "the route from '{}' to '{}' already exists: do not declare the reverse of a \
                     symmetrical route (or declare both with symmetrical=\"NO\")",
                        self.name_of(dst),
                        self.name_of(src)
                    )),
                    other => self.routing_error(other),
                })?;
        }
        Ok(())
    }

    /// Declares a bypass route (one direction; see [`sim_core::platform::Routing::add_bypass_route`]).
    pub fn add_bypass_route(
        &mut self,
        zone: ZoneId,
        src: NetPoint,
        dst: NetPoint,
        links: Vec<LinkId>,
        gateways: Option<(NetPoint, NetPoint)>,
    ) -> Result<(), ErrorKind> {
        self.platform
            .routing
            .add_bypass_route(zone, src, dst, links, gateways)
            .map_err(|e| self.routing_error(e))
    }

    /// Sets the private links of a member of a Star zone (`host_link`).
    pub fn set_star_links(
        &mut self,
        zone: ZoneId,
        member: NetPoint,
        up: Vec<LinkId>,
        down: Vec<LinkId>,
        loopback: Option<LinkId>,
    ) -> Result<(), ErrorKind> {
        self.platform
            .routing
            .set_star_links(zone, member, up, down, loopback)
            .map_err(|e| self.routing_error(e))
    }

    pub fn set_backbone(&mut self, zone: ZoneId, link: LinkId) -> Result<(), ErrorKind> {
        self.platform
            .routing
            .set_backbone(zone, Some(link))
            .map_err(|e| self.routing_error(e))
    }

    /// Fills the (empty) Star zone `zone` like SimGrid 3.32 expands `<cluster>`: hosts
    /// `<prefix><radical><suffix>`; private links `<id>_link_<radical>` (split-duplex halves
    /// `_UP`/`_DOWN`); optional loopback `<id>_link_<radical>_loopback` (FATPIPE), limiter
    /// `<id>_link_<radical>_limiter` (SHARED, zero latency) and backbone `<id>_backbone`; a router
    /// `<prefix><id>_router<suffix>` to use as gateway. Member routes: up = [limiter, private up],
    /// down = [private down, limiter]; the backbone sits in between.
    pub fn fill_cluster(&mut self, zone: ZoneId, spec: &ClusterSpec) -> Result<(), (ClusterPart, ErrorKind)> {
        if let Some((bw, lat, policy)) = spec.backbone {
            let (bb, _) = self
                .add_link(
                    &format!("{}_backbone", spec.id),
                    bw,
                    lat,
                    policy,
                    LinkProfiles::default(),
                )
                .map_err(|e| (ClusterPart::Link, e))?;
            self.set_backbone(zone, bb).map_err(|e| (ClusterPart::Link, e))?;
        }
        for &radical in &spec.radicals {
            let mut host = Host::new(format!("{}{}{}", spec.prefix, radical, spec.suffix), spec.speed);
            host.cores = spec.cores;
            let id = self.add_host(zone, host).map_err(|e| (ClusterPart::Host, e))?;
            let link_name = format!("{}_link_{}", spec.id, radical);
            let (up, down) = self
                .add_link(&link_name, spec.bw, spec.lat, spec.policy, LinkProfiles::default())
                .map_err(|e| (ClusterPart::Link, e))?;
            let loopback = match spec.loopback {
                Some((bw, lat)) => Some(
                    self.add_link(
                        &format!("{link_name}_loopback"),
                        bw,
                        lat,
                        LinkPolicy::Fatpipe,
                        LinkProfiles::default(),
                    )
                    .map_err(|e| (ClusterPart::Link, e))?
                    .0,
                ),
                None => None,
            };
            let limiter = match spec.limiter {
                Some(bw) => Some(
                    self.add_link(
                        &format!("{link_name}_limiter"),
                        bw,
                        0.0,
                        LinkPolicy::Shared,
                        LinkProfiles::default(),
                    )
                    .map_err(|e| (ClusterPart::Link, e))?
                    .0,
                ),
                None => None,
            };
            let up_links: Vec<LinkId> = limiter.into_iter().chain([up]).collect();
            let down_links: Vec<LinkId> = [down].into_iter().chain(limiter).collect();
            self.set_star_links(zone, NetPoint::Host(id), up_links, down_links, loopback)
                .map_err(|e| (ClusterPart::Host, e))?;
        }
        let router = spec
            .router
            .clone()
            .unwrap_or_else(|| format!("{}{}_router{}", spec.prefix, spec.id, spec.suffix));
        self.add_router(zone, &router).map_err(|e| (ClusterPart::Router, e))?;
        Ok(())
    }

    pub fn finish(self) -> Platform {
        self.platform
    }
}

/// Parses a SimGrid radical list: `0-99`, `1,3-5`, `7` (inclusive ranges, in the given order).
pub fn parse_radicals(value: &str) -> Result<Vec<i64>, String> {
    let mut out = Vec::new();
    for part in value.split(',') {
        let part = part.trim();
        let parse = |s: &str| {
            s.trim()
                .parse::<i64>()
                .map_err(|_| format!("\"{}\" is not an integer", s.trim()))
        };
        match part.split_once('-') {
            Some((a, b)) if !a.trim().is_empty() => {
                let (a, b) = (parse(a)?, parse(b)?);
                if b < a {
                    return Err(format!("range {a}-{b} is empty"));
                }
                if b - a >= 10_000_000 || out.len() as i64 + (b - a) >= 10_000_000 {
                    return Err("more than 10 million hosts".to_string());
                }
                out.extend(a..=b);
            }
            _ => out.push(parse(part)?),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radicals() {
        assert_eq!(parse_radicals("0-3").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_radicals("1,3-5, 9").unwrap(), vec![1, 3, 4, 5, 9]);
        assert_eq!(parse_radicals("7").unwrap(), vec![7]);
        assert_eq!(parse_radicals("-2").unwrap(), vec![-2]);
        assert!(parse_radicals("").is_err());
        assert!(parse_radicals("5-3").is_err());
        assert!(parse_radicals("a-3").is_err());
        assert!(parse_radicals("1,,2").is_err());
    }
}

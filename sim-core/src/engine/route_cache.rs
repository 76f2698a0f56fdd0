//! The engine's route cache: each host pair's route is resolved once, on its first comm, and
//! kept as a [`CachedRoute`] with its merged constraint uses, the uses a comm's variable gets
//! once implied links are left out ([`super::implied`]), and its network figures (latency,
//! penalty, narrowest bandwidth) as of the last link change. Where a pair's route is found:
//! [`super::route_index`]; where its lists are kept: [`super::route_lists`].

use super::activity::{ActivityKind, Phase, NO_VARIABLE, RELEASED};
use super::route_lists::Span;
use super::Engine;
use crate::platform::{HostId, RouteError};
use crate::sharing::{ConstraintId, VariableId};

/// A cached route: its links, the merged constraint uses of a comm on it, and its network
/// figures as of the last link change.
#[derive(Clone, Debug)]
pub(super) struct CachedRoute {
    /// Its links, in `Engine::route_lists` (as are the uses below).
    pub(super) links: Span,
    /// True for a host talking to itself without a declared route: use the loopback.
    pub(super) loopback: bool,
    /// Latency the zones add beyond the links' own (Vivaldi distances), seconds.
    pub(super) zone_latency: f64,
    /// (constraint, weight) of a comm's variable: 1 on every link of the route, `crosstraffic`
    /// on every link of the reverse route, merged once here rather than per comm.
    pub(super) uses: Span,
    /// The uses a comm's variable gets when some of `uses` are implied by others
    /// ([`super::implied`]); `None` when it gets all of them.
    pub(super) variable_uses: Option<Span>,
    /// The solver's key for `variable_uses` (it caches per key the scan of a lone variable's
    /// list): a new one each time the list changes.
    pub(super) key: u32,
    /// Value of `Engine::link_epoch` when the figures below were computed.
    pub(super) epoch: u64,
    /// Raw route latency.
    pub(super) latency: f64,
    /// Penalty and narrowest link bandwidth of a comm started now.
    pub(super) penalty: f64,
    pub(super) min_bandwidth: f64,
}

impl Engine {
    pub(super) fn cached_route(&mut self, src: HostId, dst: HostId) -> Result<u32, RouteError> {
        if let Some(index) = self.route_index.get(src, dst) {
            return Ok(index);
        }
        // Both directions are resolved into kept buffers, and what is cached is appended to
        // `route_lists`: caching a route allocates nothing of its own.
        let mut forward = std::mem::take(&mut self.forward_links);
        let Some(zone_latency) = self.platform.resolve_into(src, dst, &mut forward) else {
            self.forward_links = forward;
            return Err(self.platform.no_route(src, dst));
        };
        // A Vivaldi member reaches itself over its distance term, not the loopback.
        let loopback = src == dst && forward.is_empty() && zone_latency == 0.0;
        // A missing reverse route only disables cross traffic for this pair. The reverse
        // route's links are only read: taken from its cache entry when it has one (a worker's
        // answer to its master), else resolved.
        let mut back_links = std::mem::take(&mut self.back_links);
        back_links.clear();
        if !loopback && self.params.crosstraffic > 0.0 {
            match self.route_index.get(dst, src) {
                Some(back) => {
                    back_links.extend_from_slice(self.route_lists.links(self.routes[back as usize].links));
                }
                None => {
                    self.platform.route_into(dst, src, &mut back_links);
                }
            }
        }
        let (lmm, links) = (&mut self.lmm, &self.links);
        let uses = if loopback {
            let loopback = self.loopback;
            self.route_lists.push_uses_with(|out| out.push((loopback, 1.0)))
        } else {
            let cross = self.params.crosstraffic;
            let forward_uses = forward.iter().map(|l| (links[l.0 as usize].cons, 1.0));
            let back_uses = back_links.iter().map(|l| (links[l.0 as usize].cons, cross));
            self.route_lists
                .push_uses_with(|out| lmm.merge_uses_into(forward_uses.chain(back_uses), out))
        };
        let route_links = self.route_lists.push_links(&forward);
        self.forward_links = forward;
        self.back_links = back_links;
        let index = self.routes.len() as u32;
        let mut freed = Vec::new();
        self.implied.add_route(index, self.route_lists.uses(uses), &mut freed);
        self.routes.push(CachedRoute {
            links: route_links,
            loopback,
            zone_latency,
            uses,
            // Both set by `refresh_variable_uses` below.
            variable_uses: None,
            key: 0,
            epoch: u64::MAX,
            latency: 0.0,
            penalty: 0.0,
            min_bandwidth: 0.0,
        });
        self.route_index.insert(src, dst, index);
        self.refresh_variable_uses(index);
        for (link, routes) in freed {
            self.give_back(link, &routes);
        }
        Ok(index)
    }

    /// Sets a route's variable uses: its uses without the implied ones.
    fn refresh_variable_uses(&mut self, route: u32) {
        let uses = self.routes[route as usize].uses;
        let implied = &self.implied;
        // Written out only when something is left out: a route with nothing implied (a
        // cluster's) adds nothing to the buffer.
        let variable_uses = self
            .route_lists
            .uses(uses)
            .iter()
            .any(|&(c, _)| implied.is_implied(c))
            .then(|| self.route_lists.push_kept_uses(uses, |c| !implied.is_implied(c)));
        let key = self.next_route_key;
        self.next_route_key += 1;
        let cached = &mut self.routes[route as usize];
        cached.variable_uses = variable_uses;
        cached.key = key;
    }

    /// `link` is no longer implied on `routes`: they get its use back, and so does every comm
    /// already running on them (its variable was made without it). A link is freed at most once,
    /// so the scan of the activities runs at most once per link in a run.
    fn give_back(&mut self, link: ConstraintId, routes: &[u32]) {
        let mut on_freed_route = vec![false; self.routes.len()];
        for &route in routes {
            self.refresh_variable_uses(route);
            on_freed_route[route as usize] = true;
        }
        for slot in 0..self.activities.len() {
            let act = &self.activities[slot];
            if act.serial == RELEASED
                || act.phase != Phase::Running
                || act.var == NO_VARIABLE
                || !matches!(act.kind, ActivityKind::Comm { .. })
                || !on_freed_route[act.route as usize]
            {
                continue;
            }
            let var = VariableId(act.var);
            let uses = self.route_lists.uses(self.routes[act.route as usize].uses);
            let &(_, weight) = uses
                .iter()
                .find(|&&(c, _)| c == link)
                .expect("the route crosses the link");
            self.lmm.expand(var, link, weight);
            self.restored_uses += 1;
        }
    }

    /// Penalty and narrowest bandwidth of a comm on `route` with raw latency `latency`, from the
    /// links' current bandwidths.
    fn route_penalty_and_bandwidth(&self, route: u32, latency: f64) -> (f64, f64) {
        let route = &self.routes[route as usize];
        let (penalty, min_bw) = if route.loopback {
            (
                self.params
                    .penalty(latency, std::iter::once(self.params.loopback_bandwidth)),
                self.params.loopback_bandwidth,
            )
        } else {
            let links = self.route_lists.links(route.links);
            let bws = links.iter().map(|l| self.links[l.0 as usize].bandwidth);
            let min_bw = bws.clone().fold(f64::INFINITY, f64::min);
            (self.params.penalty(latency, bws), min_bw)
        };
        (penalty, min_bw)
    }

    /// The route's figures, recomputed if a link changed since they were cached.
    pub(super) fn refresh_route(&mut self, route: u32) -> &CachedRoute {
        if self.routes[route as usize].epoch != self.link_epoch {
            let cached = &self.routes[route as usize];
            let latency = if cached.loopback {
                self.params.loopback_latency
            } else {
                let links = self.route_lists.links(cached.links);
                let link_latency: f64 = links.iter().map(|l| self.links[l.0 as usize].latency).sum();
                link_latency + cached.zone_latency
            };
            let (penalty, min_bandwidth) = self.route_penalty_and_bandwidth(route, latency);
            let cached = &mut self.routes[route as usize];
            cached.latency = latency;
            cached.penalty = penalty;
            cached.min_bandwidth = min_bandwidth;
            cached.epoch = self.link_epoch;
        }
        &self.routes[route as usize]
    }
}

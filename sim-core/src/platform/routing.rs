//! Routes between hosts.
//!
//! The simplest routing: an explicit table of routes between host pairs (SimGrid's `Full`
//! routing). Routes may be asymmetric: the route from a to b and the route from b to a are
//! stored separately.

use std::collections::BTreeMap;

use super::{HostId, LinkId};

/// The ordered links a message crosses from its source to its destination.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Route {
    /// Links in crossing order.
    pub links: Vec<LinkId>,
}

/// A route that cannot be resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    /// The platform declares no route between the two hosts.
    #[error("no route from host '{src}' to host '{dst}'")]
    NoRoute { src: String, dst: String },
}

/// How hosts reach each other.
#[derive(Clone, Debug, Default)]
pub struct Routing {
    table: BTreeMap<(HostId, HostId), Route>,
}

impl Routing {
    /// Declares the route from `src` to `dst` (one direction only).
    pub fn add_route(&mut self, src: HostId, dst: HostId, links: Vec<LinkId>) {
        self.table.insert((src, dst), Route { links });
    }

    /// The route from `src` to `dst`; an empty route for `src == dst` when none is declared.
    pub fn route(&self, src: HostId, dst: HostId) -> Option<Route> {
        match self.table.get(&(src, dst)) {
            Some(route) => Some(route.clone()),
            None if src == dst => Some(Route::default()),
            None => None,
        }
    }
}

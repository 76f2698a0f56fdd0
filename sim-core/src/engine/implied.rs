//! Implied link constraints ([`crate::sharing::SharingMode::Fast`]): links a comm's variable
//! can leave out because another link of its route already bounds it.
//!
//! Link L's capacity constraint is implied by link M's when every cached route through L also
//! crosses M, with a weight on M at least L's, and M's capacity is at most `1 − MARGIN` times
//! L's. Whatever rates the other constraints allow, L then carries no more than M does, and M
//! carries at most its capacity, which is below L's: L can never saturate. The max-min
//! allocation is the fairest point of the feasible set, and a constraint that cannot saturate
//! does not shape that set, so the rates are the same with L left out of every comm on those
//! routes. They are the same to the last bit, too: in progressive filling L's level
//! (remaining / usage) stays at least `1 + MARGIN` times M's, so L is never the bottleneck nor
//! within [`crate::sharing`]'s level tolerance of it, and nothing else reads it.
//!
//! What it saves: on grid90 every route from the master crosses 11 links on average, and over
//! the 178 routes a master/worker run caches, 86 of the 134 links it uses are implied by another
//! (the master's own link, or a worker's narrow last hop), leaving 1.5 constraints per comm to
//! add, fill and remove.
//!
//! Routes are cached as comms first need them, so inclusion is tracked over the routes cached
//! so far. A link's candidates are the links every route through it has crossed, narrower by
//! the margin: its first route sets them and each later route intersects them. When none is
//! left the link is free for good, and the engine gives its use back to the comms already
//! running on routes through it. Chains (L implied by M, M by N) are sound: route inclusion,
//! the weight order and the capacity order are all transitive, and capacities fall by the
//! margin at each step, so every chain ends at a link that stays in the variables.
//!
//! Only SHARED links whose bandwidth never changes take part (a FATPIPE bounds each flow, not
//! their sum, and a bandwidth profile could reverse the capacity order); exact mode keeps every
//! use, as SimGrid does.

use crate::sharing::ConstraintId;

/// How much narrower, relatively, a link must be to imply another: far above the solver's level
/// tolerance (1e-12), so that an implied link never ties with its bottleneck.
pub(super) const MARGIN: f64 = 1e-3;

/// State of a constraint not yet on any cached route.
const UNSEEN: u32 = u32::MAX;
/// State of a constraint that stays in every variable (not eligible, or no candidate left).
const FREE: u32 = u32::MAX - 1;

/// A link implied so far: the links that could imply it, and the cached routes through it
/// (whose comms get its use back if it is freed).
struct Candidates {
    by: Vec<ConstraintId>,
    routes: Vec<u32>,
}

/// Which link constraints are implied by others over the routes cached so far.
pub(super) struct ImpliedLinks {
    /// Capacity of each constraint that may take part (a SHARED link with a fixed bandwidth),
    /// NaN for the others, indexed by constraint.
    capacity: Vec<f64>,
    /// Per constraint: [`UNSEEN`], [`FREE`], or its index in `candidates`.
    state: Vec<u32>,
    candidates: Vec<Candidates>,
    /// Scratch of [`ImpliedLinks::add_route`]: the route's weight on each constraint, NaN off
    /// the route, so that intersecting a link's candidates with the route costs one
    /// look-up per candidate, not a search of the route.
    route_weight: Vec<f64>,
}

impl ImpliedLinks {
    /// Tracking for the constraints with a known capacity in `capacity` (NaN: never left out).
    pub fn new(capacity: Vec<f64>) -> ImpliedLinks {
        let state = vec![UNSEEN; capacity.len()];
        let route_weight = vec![f64::NAN; capacity.len()];
        ImpliedLinks {
            capacity,
            state,
            candidates: Vec::new(),
            route_weight,
        }
    }

    /// Whether variables may leave `c` out.
    pub fn is_implied(&self, c: ConstraintId) -> bool {
        self.state.get(c.0 as usize).is_some_and(|&s| s != UNSEEN && s != FREE)
    }

    fn capacity(&self, c: ConstraintId) -> Option<f64> {
        self.capacity.get(c.0 as usize).copied().filter(|cap| !cap.is_nan())
    }

    /// Takes the new cached route `route` (its merged uses) into account. Each constraint it
    /// frees is pushed on `freed` with the earlier routes through it: their comms must get its
    /// use back.
    pub fn add_route(&mut self, route: u32, uses: &[(ConstraintId, f64)], freed: &mut Vec<(ConstraintId, Vec<u32>)>) {
        for &(c, weight) in uses {
            if let Some(slot) = self.route_weight.get_mut(c.0 as usize) {
                *slot = weight;
            }
        }
        for &(c, weight) in uses {
            let Some(cap) = self.capacity(c) else {
                continue;
            };
            match self.state[c.0 as usize] {
                FREE => {}
                UNSEEN => {
                    let by: Vec<ConstraintId> = uses
                        .iter()
                        .filter(|&&(m, w)| {
                            m != c && w >= weight && self.capacity(m).is_some_and(|mc| mc <= cap * (1.0 - MARGIN))
                        })
                        .map(|&(m, _)| m)
                        .collect();
                    self.state[c.0 as usize] = if by.is_empty() {
                        FREE
                    } else {
                        // Room for several routes: a candidate on a grid's shared links gathers
                        // a few, and a list starting with room for one would reallocate as it
                        // grows.
                        let mut routes = Vec::with_capacity(8);
                        routes.push(route);
                        self.candidates.push(Candidates { by, routes });
                        (self.candidates.len() - 1) as u32
                    };
                }
                index => {
                    let entry = &mut self.candidates[index as usize];
                    // Off the route, the weight is NaN and the comparison false.
                    let route_weight = &self.route_weight;
                    entry.by.retain(|&m| route_weight[m.0 as usize] >= weight);
                    if entry.by.is_empty() {
                        self.state[c.0 as usize] = FREE;
                        freed.push((c, std::mem::take(&mut entry.routes)));
                    } else {
                        entry.routes.push(route);
                    }
                }
            }
        }
        for &(c, _) in uses {
            if let Some(weight) = self.route_weight.get_mut(c.0 as usize) {
                *weight = f64::NAN;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAN: f64 = f64::NAN;

    fn c(i: u32) -> ConstraintId {
        ConstraintId(i)
    }

    #[test]
    fn a_wider_link_on_every_route_of_a_narrower_one_is_implied() {
        // 0: the master's link (10), 1: a backbone (100), 2 and 3: private links (50, 5).
        let mut links = ImpliedLinks::new(vec![10.0, 100.0, 50.0, 5.0]);
        let mut freed = Vec::new();
        links.add_route(0, &[(c(0), 1.0), (c(1), 1.0), (c(2), 1.0)], &mut freed);
        assert!(links.is_implied(c(1)) && links.is_implied(c(2)));
        assert!(!links.is_implied(c(0)), "nothing narrower on its route");
        links.add_route(1, &[(c(0), 1.0), (c(1), 1.0), (c(3), 1.0)], &mut freed);
        assert!(links.is_implied(c(1)), "both routes cross the master's link");
        assert!(!links.is_implied(c(3)) && !links.is_implied(c(0)));
        assert!(freed.is_empty());
        // A route through the backbone but not the master's link frees it, with the routes
        // whose comms left it out.
        links.add_route(2, &[(c(3), 1.0), (c(1), 1.0)], &mut freed);
        assert!(!links.is_implied(c(1)));
        assert_eq!(freed, vec![(c(1), vec![0, 1])]);
        // Freed for good: a later route cannot imply it again.
        freed.clear();
        links.add_route(3, &[(c(0), 1.0), (c(1), 1.0)], &mut freed);
        assert!(!links.is_implied(c(1)) && freed.is_empty());
        assert!(links.is_implied(c(2)), "only route 0 crosses it");
    }

    #[test]
    fn the_margin_the_weights_and_eligibility_are_required() {
        let mut links = ImpliedLinks::new(vec![10.0, 10.0 * (1.0 - MARGIN / 2.0), NAN, 100.0, 100.0]);
        let mut freed = Vec::new();
        // Too close in capacity: neither implies the other.
        links.add_route(0, &[(c(0), 1.0), (c(1), 1.0)], &mut freed);
        assert!(!links.is_implied(c(0)) && !links.is_implied(c(1)));
        // An ineligible link (FATPIPE or changing bandwidth) neither implies nor is implied.
        links.add_route(1, &[(c(2), 1.0), (c(3), 1.0)], &mut freed);
        assert!(!links.is_implied(c(3)) && !links.is_implied(c(2)));
        // A lighter use of the narrow link (cross traffic) does not bound a full use.
        links.add_route(2, &[(c(0), 0.05), (c(4), 1.0)], &mut freed);
        assert!(!links.is_implied(c(4)));
        assert!(freed.is_empty());
        // Nor on a later route: a link implied on its first route is freed by one that crosses
        // the narrow link only lightly.
        let mut links = ImpliedLinks::new(vec![10.0, 100.0]);
        links.add_route(0, &[(c(0), 1.0), (c(1), 1.0)], &mut freed);
        assert!(links.is_implied(c(1)));
        links.add_route(1, &[(c(1), 1.0), (c(0), 0.05)], &mut freed);
        assert!(!links.is_implied(c(1)));
        assert_eq!(freed, vec![(c(1), vec![0])]);
    }
}

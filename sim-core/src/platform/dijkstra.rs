//! Dijkstra zones' routes: SimGrid's per-query Dijkstra, answered from cached distance arrays.
//!
//! SimGrid's `DijkstraZone` runs one full Dijkstra search from the source for every route, so a
//! zone of `n` net points costs O(n log n) a route, and anything that resolves a route per host
//! (a master's route to each worker and back, `validate`'s route checks) costs O(n² log n).
//! Every route must stay the one SimGrid picks among equally short paths, so this module keeps
//! SimGrid's search as the definition ([`DijkstraGraph::reference_hops`]) and answers the same
//! question from distances, which can be shared by every route with the same source or the
//! same destination.
//!
//! # Why distances determine SimGrid's route
//!
//! SimGrid's search pops `(cost, node)` pairs from a lazy priority queue (smallest cost, then
//! smallest node number) and sets `pred[u] = v` when `cost[v] + w(v, u) < cost[u]` (strict).
//! When every edge costs at least one link, the first pop of each node carries its final
//! distance, nodes are first popped in `(distance, node)` order (all nodes at distance `k` are
//! queued before the first of them is popped, since they are reached from nodes at distance
//! below `k`), and later pops of a node change nothing. So `pred[u]` is the *first* in that
//! order of the in-neighbours `v` with `dist(v) + w(v, u) = dist(u)`: the one with the smallest
//! `(dist(v), node)`. The route from `s` to `d` is therefore fixed by `dist(s, ·)` alone, and
//! only on the nodes of shortest `s`–`d` paths (any `v` with `dist(s, v) + w(v, u) = dist(s, u)`
//! for such a `u` is on one too).
//!
//! Those distances come from either end:
//! - an array of distances **from `s`** gives them directly;
//! - an array of distances **to `d`** gives the nodes of shortest paths as those reached from `s`
//!   along edges with `to(u) + w(v, u) = to(v)` ("tight" edges), and for them
//!   `dist(s, v) = to(s) - to(v)`.
//!
//! The route is then walked back from `d`, one in-neighbour choice per hop. A zone with an edge
//! of no links (where a node can be queued again at the distance being popped, so the order
//! above does not hold) keeps SimGrid's search for every route.
//!
//! # The cache
//!
//! A route query looks for the distances from its source, then to its destination; on a miss it
//! computes the array for whichever end has been an end of more queries so far (the master of a
//! master/worker run after its first few routes), so one array answers every route that
//! includes that host. Arrays are kept up to [`CACHE_BYTES`] in all, the least recently used
//! dropped first; they are shared by every run on the platform, behind a mutex held only to
//! look up or insert. Which arrays are cached decides how fast a route comes, never which route.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

/// Marker for "no such node" in [`DijkstraGraph::node_of_vertex`].
pub(super) const NONE: u32 = u32::MAX;
/// Marker for SimGrid's implicit loopback edge (a route without links here), which costs 1.
pub(super) const LOOPBACK: u32 = u32::MAX - 1;
/// A node no path reaches, in a distance array.
const UNREACHED: u32 = u32::MAX;

/// Memory the distance arrays of one zone may take together: a few hundred arrays of a
/// 10,000-host grid (4 bytes a node), at least [`MIN_ARRAYS`] whatever the zone's size.
const CACHE_BYTES: usize = 16 << 20;
/// Arrays kept whatever their size: a route's two ends.
const MIN_ARRAYS: usize = 2;

/// SimGrid's Dijkstra graph of one zone, with the cached distances that answer its routes.
#[derive(Debug)]
pub(super) struct DijkstraGraph {
    /// Graph node of each zone vertex (`NONE`: in no declared route).
    node_of_vertex: Vec<u32>,
    /// Out-edges per node: (target node, edge index or `LOOPBACK`), in insertion order.
    out: Vec<Vec<(u32, u32)>>,
    /// In-edges per node: (source node, edge index), loopbacks left out (a self-loop is on no
    /// shortest path).
    inc: Vec<Vec<(u32, u32)>>,
    /// Cost of each declared edge: its number of links.
    cost: Vec<u32>,
    /// Whether routes come from distances: every edge has a link, and no path can cost
    /// `UNREACHED` or more (so distance sums are exact in `u32`, as SimGrid's are in `f64`).
    by_distances: bool,
    cache: Mutex<DistanceCache>,
}

/// Which distances an array holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Arrays {
    /// From this node to every node.
    From(u32),
    /// From every node to this one.
    To(u32),
}

#[derive(Debug)]
struct DistanceCache {
    /// How many queries each node was an end of: a miss computes the busier end's array.
    ends: Vec<u32>,
    /// Each cached array with the query clock of its last use.
    arrays: FxHashMap<Arrays, (Arc<[u32]>, u64)>,
    clock: u64,
    capacity: usize,
}

impl DistanceCache {
    /// The cached array that answers `s -> d`, or which array to compute.
    fn lookup(&mut self, s: u32, d: u32) -> Result<(Arrays, Arc<[u32]>), Arrays> {
        self.clock += 1;
        for end in [s, d] {
            self.ends[end as usize] = self.ends[end as usize].saturating_add(1);
        }
        for key in [Arrays::From(s), Arrays::To(d)] {
            if let Some((array, used)) = self.arrays.get_mut(&key) {
                *used = self.clock;
                return Ok((key, Arc::clone(array)));
            }
        }
        Err(if self.ends[d as usize] > self.ends[s as usize] {
            Arrays::To(d)
        } else {
            Arrays::From(s)
        })
    }

    fn insert(&mut self, key: Arrays, array: Arc<[u32]>) {
        // Another thread may have computed it meanwhile: the same array either way.
        if !self.arrays.contains_key(&key) && self.arrays.len() >= self.capacity {
            // Only on a miss, which cost a whole search: a scan of the few arrays is nothing.
            if let Some(&oldest) = self.arrays.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k) {
                self.arrays.remove(&oldest);
            }
        }
        self.arrays.insert(key, (array, self.clock));
    }
}

impl DijkstraGraph {
    /// SimGrid's DijkstraZone graph of a zone with `vertices` net points and the declared
    /// `edges` (source vertex, destination vertex, number of links), in declaration order:
    /// nodes in order of first appearance in an edge, out-edges in declaration order, then a
    /// loopback self-edge per node lacking one when `base` (SimGrid's base routing mode).
    pub(super) fn new(vertices: usize, edges: impl ExactSizeIterator<Item = (u32, u32, usize)>, base: bool) -> Self {
        let mut node_of_vertex = vec![NONE; vertices];
        let mut out: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut cost = Vec::with_capacity(edges.len());
        let mut node = |v: u32, out: &mut Vec<Vec<(u32, u32)>>| -> u32 {
            let slot = &mut node_of_vertex[v as usize];
            if *slot == NONE {
                *slot = out.len() as u32;
                out.push(Vec::new());
            }
            *slot
        };
        let mut total = 0u64;
        let mut positive = true;
        for (i, (src, dst, links)) in edges.enumerate() {
            let a = node(src, &mut out);
            let b = node(dst, &mut out);
            out[a as usize].push((b, i as u32));
            // More links than u32 holds cannot be allocated; saturating keeps the test honest.
            let c = u32::try_from(links).unwrap_or(u32::MAX);
            positive &= c > 0;
            total += u64::from(c);
            cost.push(c);
        }
        if base {
            for (i, edges) in out.iter_mut().enumerate() {
                if !edges.iter().any(|&(t, _)| t == i as u32) {
                    edges.push((i as u32, LOOPBACK));
                }
            }
        }
        let mut inc = vec![Vec::new(); out.len()];
        for (a, edges) in out.iter().enumerate() {
            for &(b, e) in edges {
                if e != LOOPBACK {
                    inc[b as usize].push((a as u32, e));
                }
            }
        }
        let capacity = (CACHE_BYTES / (4 * out.len().max(1))).max(MIN_ARRAYS);
        let cache = DistanceCache {
            ends: vec![0; out.len()],
            arrays: FxHashMap::default(),
            clock: 0,
            capacity,
        };
        DijkstraGraph {
            node_of_vertex,
            out,
            inc,
            cost,
            by_distances: positive && total < u64::from(UNREACHED),
            cache: Mutex::new(cache),
        }
    }

    /// The graph node of a zone vertex.
    pub(super) fn node(&self, vertex: u32) -> Option<u32> {
        self.node_of_vertex.get(vertex as usize).copied().filter(|&n| n != NONE)
    }

    /// The first out-edge from node `from` to node `to`, as SimGrid's graph search finds it.
    pub(super) fn edge_to(&self, from: u32, to: u32) -> Option<u32> {
        self.out[from as usize].iter().find(|&&(t, _)| t == to).map(|&(_, e)| e)
    }

    fn edge_cost(&self, e: u32) -> u32 {
        if e == LOOPBACK {
            1
        } else {
            self.cost[e as usize]
        }
    }

    /// The route from node `s` to node `d != s` as SimGrid's Dijkstra search gives it, into
    /// `hops` (cleared first): from `d` back to `s`, each hop's predecessor node and the edge
    /// from it. `false` when `d` cannot be reached.
    pub(super) fn hops(&self, s: u32, d: u32, hops: &mut Vec<(u32, u32)>) -> bool {
        if !self.by_distances {
            return self.reference_hops(s, d, hops);
        }
        let found = self.cache.lock().unwrap_or_else(|e| e.into_inner()).lookup(s, d);
        let (key, array) = match found {
            Ok(hit) => hit,
            Err(key) => {
                // Computed without the lock, so other runs' routes do not wait for it.
                let array = self.distances(key);
                self.cache
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, Arc::clone(&array));
                (key, array)
            }
        };
        match key {
            Arrays::From(_) => self.walk_back(s, d, hops, |v| {
                let dv = array[v as usize];
                (dv != UNREACHED).then_some(dv)
            }),
            Arrays::To(_) => {
                let to_d = &array;
                let total = to_d[s as usize];
                if total == UNREACHED {
                    hops.clear();
                    return false;
                }
                // The nodes of shortest paths from `s` to `d`: reached from `s` by tight edges.
                let mut on_paths = FxHashSet::default();
                on_paths.insert(s);
                let mut stack = vec![s];
                while let Some(v) = stack.pop() {
                    for &(u, e) in &self.out[v as usize] {
                        let tu = to_d[u as usize];
                        if e != LOOPBACK
                            && tu != UNREACHED
                            && u64::from(tu) + u64::from(self.cost[e as usize]) == u64::from(to_d[v as usize])
                            && on_paths.insert(u)
                        {
                            stack.push(u);
                        }
                    }
                }
                self.walk_back(s, d, hops, |v| on_paths.contains(&v).then(|| total - to_d[v as usize]))
            }
        }
    }

    /// Walks the route back from `d` to `s` given `from_s`, the distance from `s` of every
    /// node of a shortest `s`–`d` path (`None` elsewhere, or anywhere else it is not known):
    /// each node's predecessor is its in-neighbour `v` with `from_s(v) + w(v, x) = from_s(x)`
    /// and the smallest `(from_s(v), v)`, the one SimGrid's search settles first.
    fn walk_back(&self, s: u32, d: u32, hops: &mut Vec<(u32, u32)>, from_s: impl Fn(u32) -> Option<u32>) -> bool {
        hops.clear();
        let Some(mut dx) = from_s(d) else {
            return false;
        };
        let mut x = d;
        while x != s {
            let mut best: Option<(u32, u32, u32)> = None;
            for &(v, e) in &self.inc[x as usize] {
                let Some(dv) = from_s(v) else { continue };
                if u64::from(dv) + u64::from(self.cost[e as usize]) == u64::from(dx)
                    && best.map_or(true, |(bd, bv, _)| (dv, v) < (bd, bv))
                {
                    best = Some((dv, v, e));
                }
            }
            // A node of a shortest path other than `s` always has a predecessor on one; the
            // length check only guards against a defect looping forever.
            let Some((dv, v, e)) = best else {
                hops.clear();
                return false;
            };
            if hops.len() >= self.out.len() {
                hops.clear();
                return false;
            }
            hops.push((v, e));
            (x, dx) = (v, dv);
        }
        true
    }

    /// The distances [`Arrays`] names: a plain Dijkstra search over out-edges (from a node) or
    /// in-edges (to a node). Ties do not matter here: distances are unique.
    fn distances(&self, key: Arrays) -> Arc<[u32]> {
        let (start, adjacency) = match key {
            Arrays::From(s) => (s, &self.out),
            Arrays::To(d) => (d, &self.inc),
        };
        let mut dist = vec![UNREACHED; adjacency.len()];
        dist[start as usize] = 0;
        let mut queue = BinaryHeap::new();
        queue.push(Reverse((0u32, start)));
        while let Some(Reverse((dv, v))) = queue.pop() {
            if dv > dist[v as usize] {
                continue;
            }
            for &(u, e) in &adjacency[v as usize] {
                // Below `UNREACHED`: `by_distances` holds every path's cost under it.
                let du = dv + self.edge_cost(e);
                if du < dist[u as usize] {
                    dist[u as usize] = du;
                    queue.push(Reverse((du, u)));
                }
            }
        }
        dist.into()
    }

    /// SimGrid 3.32's `DijkstraZone::get_local_route` search, as it is: every node queued at
    /// the start, a lazy priority queue ordered by `(cost, node)`, a strict `<`, costs in
    /// `f64`. The definition [`DijkstraGraph::hops`] is held to, and its answer for zones with
    /// an edge of no links.
    fn reference_hops(&self, s: u32, d: u32, hops: &mut Vec<(u32, u32)>) -> bool {
        #[derive(Clone, Copy, PartialEq)]
        struct Cost(f64);
        impl Eq for Cost {}
        impl PartialOrd for Cost {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for Cost {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.0.total_cmp(&other.0)
            }
        }
        hops.clear();
        let count = self.out.len();
        let mut cost = vec![f64::MAX; count];
        let mut pred = vec![0u32; count];
        cost[s as usize] = 0.0;
        let mut queue = BinaryHeap::with_capacity(count);
        for (i, &c) in cost.iter().enumerate() {
            queue.push(Reverse((Cost(c), i as u32)));
        }
        while let Some(Reverse((_, v))) = queue.pop() {
            let cv = cost[v as usize];
            for &(u, e) in &self.out[v as usize] {
                let cost_vu = f64::from(self.edge_cost(e));
                if cost_vu + cv < cost[u as usize] {
                    pred[u as usize] = v;
                    cost[u as usize] = cost_vu + cv;
                    queue.push(Reverse((Cost(cost[u as usize]), u)));
                }
            }
        }
        if cost[d as usize] == f64::MAX {
            return false;
        }
        let mut v = d;
        while v != s {
            if hops.len() >= count {
                hops.clear();
                return false;
            }
            let p = pred[v as usize];
            let Some(e) = self.edge_to(p, v) else {
                hops.clear();
                return false;
            };
            hops.push((p, e));
            v = p;
        }
        true
    }

    /// Keeps at most `arrays` distance arrays (at least one), to exercise eviction.
    #[cfg(test)]
    fn set_cache_capacity(&self, arrays: usize) {
        self.cache.lock().unwrap().capacity = arrays.max(1);
    }

    /// Whether routes come from distance arrays (else from SimGrid's search itself).
    #[cfg(test)]
    fn by_distances(&self) -> bool {
        self.by_distances
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Every route of `g` between two of its nodes, asked in an order drawn from `seed`, against
    /// SimGrid's search: the same hops (so the same links in the same order), and the same
    /// answer for unreachable pairs.
    fn check_all_pairs(g: &DijkstraGraph, seed: u64) -> Result<(), TestCaseError> {
        let n = g.out.len() as u32;
        let mut pairs: Vec<(u32, u32)> = (0..n)
            .flat_map(|s| (0..n).map(move |d| (s, d)))
            .filter(|(s, d)| s != d)
            .collect();
        pairs.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for (s, d) in pairs {
            let found = g.hops(s, d, &mut got);
            prop_assert_eq!(found, g.reference_hops(s, d, &mut want), "{} -> {}", s, d);
            prop_assert_eq!(&got, &want, "{} -> {}", s, d);
        }
        Ok(())
    }

    /// `random_grid`'s shape: a random tree over `n` nodes plus `extra` random edges, each a
    /// one-link route declared both ways; many equally short paths.
    fn grid_edges(n: u32, extra: usize, rng: &mut ChaCha8Rng) -> Vec<(u32, u32, usize)> {
        let mut pairs: Vec<(u32, u32)> = (1..n).map(|i| (rng.gen_range(0..i), i)).collect();
        for _ in 0..extra {
            let (a, b) = (rng.gen_range(0..n), rng.gen_range(0..n));
            let pair = (a.min(b), a.max(b));
            if a != b && !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        pairs.iter().flat_map(|&(a, b)| [(a, b, 1), (b, a, 1)]).collect()
    }

    /// A directed graph's declared routes, at most one per ordered pair (as a zone holds them),
    /// first declaration kept.
    fn unique(edges: Vec<(u32, u32, usize)>) -> Vec<(u32, u32, usize)> {
        let mut seen = FxHashSet::default();
        edges.into_iter().filter(|&(a, b, _)| seen.insert((a, b))).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Random directed graphs with routes of one to three links (so shortest paths tie in
        /// many ways), some vertices in no route, self routes, any cache size: every route is
        /// SimGrid's.
        #[test]
        fn routes_from_distances_are_simgrids(
            vertices in 2u32..14,
            edges in prop::collection::vec((0u32..14, 0u32..14, 1usize..4), 0..60),
            base in any::<bool>(),
            capacity in 1usize..5,
            seed in any::<u64>(),
        ) {
            let edges = unique(edges.into_iter().filter(|&(a, b, _)| a < vertices && b < vertices).collect());
            let g = DijkstraGraph::new(vertices as usize, edges.into_iter(), base);
            prop_assert!(g.by_distances());
            g.set_cache_capacity(capacity);
            check_all_pairs(&g, seed)?;
        }

        /// Grids shaped as `random_grid` builds them, asked in random orders with small caches.
        #[test]
        fn grid_routes_from_distances_are_simgrids(
            nodes in 2u32..60,
            extra in 0usize..40,
            capacity in 1usize..5,
            seed in any::<u64>(),
        ) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let g = DijkstraGraph::new(nodes as usize, grid_edges(nodes, extra, &mut rng).into_iter(), true);
            g.set_cache_capacity(capacity);
            check_all_pairs(&g, seed)?;
        }
    }

    /// A master/worker pattern (routes from the master to each worker, then back) leaves the
    /// distances from and to the master in the cache and answers every route from them, in
    /// both ways the routes are found; each is SimGrid's.
    #[test]
    fn a_masters_routes_share_its_distances() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let g = DijkstraGraph::new(200, grid_edges(200, 60, &mut rng).into_iter(), true);
        let master = g.node(17).unwrap();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for worker in (0..200).filter(|&w| w != master) {
            for (s, d) in [(master, worker), (worker, master)] {
                assert!(g.hops(s, d, &mut got));
                assert!(g.reference_hops(s, d, &mut want));
                assert_eq!(got, want, "{s} -> {d}");
            }
        }
        let cache = g.cache.lock().unwrap();
        assert!(cache.arrays.contains_key(&Arrays::From(master)));
        assert!(cache.arrays.contains_key(&Arrays::To(master)));
        // The first worker's route back, before the master was the busier end, and nothing
        // else: 398 routes from three searches.
        assert_eq!(cache.arrays.len(), 3, "{:?}", cache.arrays.keys().collect::<Vec<_>>());
    }

    /// With a route of no links the search's order is not the distances' order: such a zone
    /// keeps SimGrid's search, and its routes are the search's.
    #[test]
    fn a_route_without_links_keeps_simgrids_search() {
        // 0 -> 1 costs nothing, so 0 -> 1 -> 3 and 0 -> 2 -> 3 tie at one link.
        let edges = [(0, 1, 0), (0, 2, 1), (1, 3, 1), (2, 3, 0)];
        let g = DijkstraGraph::new(4, edges.into_iter(), true);
        assert!(!g.by_distances());
        let (mut got, mut want) = (Vec::new(), Vec::new());
        assert!(g.hops(0, 3, &mut got));
        assert!(g.reference_hops(0, 3, &mut want));
        assert_eq!(got, want);
        assert!(g.cache.lock().unwrap().arrays.is_empty());
    }
}

//! Where the engine finds a host pair's cached route: `(source, destination)` → index in
//! `Engine::routes`.
//!
//! Every comm looks its route up, so on a large platform the look-up is a read out of cache. One
//! hash map of pairs makes it two (the map's control bytes, then the entry). Here each source
//! host has a row, found by index, sized to how many destinations it talks to:
//! - up to [`FEW`] destinations inline in the row (a worker that only answers its master): one
//!   read;
//! - more in a hash map of its own;
//! - routes to more than an eighth of all hosts (a master's): a table by destination, one read.
//!   A table costs at most 8 × 4 bytes per cached route, so memory stays linear in the routes.

use rustc_hash::FxHashMap;

use crate::platform::HostId;

/// Destinations a row holds inline.
const FEW: usize = 2;

/// A table entry without a route.
const NONE: u32 = u32::MAX;

/// The cached routes' indices by host pair.
#[derive(Debug, Default)]
pub(crate) struct RouteIndex {
    /// By source host; grown on first use.
    rows: Vec<Row>,
    /// Hosts of the platform: a table row's length.
    hosts: usize,
}

#[derive(Debug)]
enum Row {
    Few { len: u8, entries: [(u32, u32); FEW] },
    Many(Box<FxHashMap<u32, u32>>),
    Table(Box<[u32]>),
}

impl RouteIndex {
    pub fn new(hosts: usize) -> Self {
        RouteIndex {
            rows: Vec::new(),
            hosts,
        }
    }

    /// The route cached for `src` → `dst`, if any.
    #[inline]
    pub fn get(&self, src: HostId, dst: HostId) -> Option<u32> {
        match self.rows.get(src.0 as usize)? {
            Row::Few { len, entries } => entries[..*len as usize].iter().find(|e| e.0 == dst.0).map(|e| e.1),
            Row::Many(map) => map.get(&dst.0).copied(),
            Row::Table(table) => table.get(dst.0 as usize).copied().filter(|&r| r != NONE),
        }
    }

    /// Records `route` for `src` → `dst`, which has none yet. Both are hosts of the platform
    /// (the engine inserts only pairs `Platform::route` resolved), so a table row has room.
    pub fn insert(&mut self, src: HostId, dst: HostId, route: u32) {
        debug_assert!(self.get(src, dst).is_none(), "a pair's route is cached once");
        let index = src.0 as usize;
        if self.rows.len() <= index {
            self.rows.resize_with(index + 1, || Row::Few {
                len: 0,
                entries: [(0, 0); FEW],
            });
        }
        let hosts = self.hosts;
        let row = &mut self.rows[index];
        match row {
            Row::Few { len, entries } if (*len as usize) < FEW => {
                entries[*len as usize] = (dst.0, route);
                *len += 1;
            }
            Row::Few { entries, .. } => {
                let mut map: FxHashMap<u32, u32> = entries.iter().copied().collect();
                map.insert(dst.0, route);
                *row = Row::Many(Box::new(map));
            }
            Row::Many(map) => {
                map.insert(dst.0, route);
                if map.len() > hosts / 8 {
                    let mut table = vec![NONE; hosts].into_boxed_slice();
                    for (&d, &r) in map.iter() {
                        table[d as usize] = r;
                    }
                    *row = Row::Table(table);
                }
            }
            Row::Table(table) => table[dst.0 as usize] = route,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row shape answers as a map of pairs does, for pairs inserted in any order.
    #[test]
    fn every_row_shape_answers_as_a_map_of_pairs() {
        let hosts = 40;
        let mut index = RouteIndex::new(hosts);
        let mut reference = std::collections::HashMap::new();
        let mut route = 0;
        // Source 0 talks to 30 hosts of 40 (a table with gaps), 1 to four (a map: more than `FEW`, at most an
        // eighth of the hosts), 2 to two (inline), 3 to one.
        let fan_out = [30, 4, 2, 1];
        for (src, &n) in fan_out.iter().enumerate() {
            for k in 0..n {
                let dst = (k * 7 + src) % hosts;
                index.insert(HostId(src as u32), HostId(dst as u32), route);
                reference.insert((src, dst), route);
                route += 1;
                for (&(s, d), &r) in &reference {
                    assert_eq!(index.get(HostId(s as u32), HostId(d as u32)), Some(r), "{s} -> {d}");
                }
            }
        }
        assert!(matches!(index.rows[0], Row::Table(_)));
        assert!(matches!(index.rows[1], Row::Many(_)));
        assert!(matches!(index.rows[2], Row::Few { len: 2, .. }));
        for src in 0..6u32 {
            for dst in 0..hosts as u32 + 3 {
                let expected = reference.get(&(src as usize, dst as usize)).copied();
                assert_eq!(index.get(HostId(src), HostId(dst)), expected, "{src} -> {dst}");
            }
        }
    }
}

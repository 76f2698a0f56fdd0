//! `topology="DRAGONFLY"`, `topo_parameters="g,blue;c,black;r,green;n"`: a Cray Cascade-like
//! dragonfly (Faanes et al., "Cray Cascade: a Scalable HPC System based on a Dragonfly
//! Network", SC 2012), as SimGrid 3.32's `DragonflyZone` builds and routes it.
//!
//! `g` groups of `c` chassis of `r` routers (blades) with `n` hosts each; host `i` sits at
//! group `i / (c·r·n)`, chassis, blade and node in that mixed radix, and router
//! `(group, chassis, blade)` is number `group·c·r + chassis·r + blade`. Links (a counter `k`
//! numbers every dragonfly link of the platform):
//!
//! - `local_link_from_router_<R>_to_node_<j>_<k>` between router `R` and its `j`-th host;
//! - green: `green_link_in_chassis_<chassis>_between_routers_<a>_and_<b>_<k>`, all-to-all
//!   between the routers of a chassis, bandwidth × `green`;
//! - black: `black_link_in_group_<g>_between_chassis_<a>_and_<b>_blade_<l>_<k>`, between the
//!   routers of one blade number in the chassis of a group, bandwidth × `black`;
//! - blue: `blue_link_between_group_<a>_and_<b>_routers_<Ra>_and_<Rb>_<k>`, between router
//!   `b` of chassis 0 of group `a` and router `a` of chassis 0 of group `b`, bandwidth ×
//!   `blue`. So a group has at most `r` peers: `g <= r` is required (SimGrid indexes out of
//!   bounds otherwise).
//!
//! A link between `a < b` is used UP from `a` to `b`, DOWN back. Routers have limiters named
//! `<id>_link_<2N-1-R>_limiter` (`N` hosts) when `limiter_link` is set.
//!
//! Minimal routing, step by step as SimGrid 3.32 takes it: host → its router; if the
//! destination is in another group, green hop to the blade numbered after the destination group
//! (if not already there), black hop to chassis 0 (if not there), blue hop to the destination
//! group, arriving at router `(dst group, 0, src group)`; then, when the blades differ, a green
//! hop from the current router towards the destination blade — after which SimGrid takes the
//! current router to be the one in chassis 0, whatever chassis the hop was in — and, when the
//! chassis differ, a black hop; finally the destination router's local link. Router limiters
//! come before each green or black hop (the router it leaves), after the blue hop (the router
//! it leaves), and before the final local link (the destination router); host limiters first
//! and last.

use super::{positive, ClusterLinks, Counters, Layout, LayoutBuilder};

/// The dragonfly parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Dragonfly {
    pub groups: usize,
    pub blue: usize,
    pub chassis: usize,
    pub black: usize,
    pub routers: usize,
    pub green: usize,
    pub nodes: usize,
}

#[derive(Clone, Copy)]
struct Coords {
    group: usize,
    chassis: usize,
    blade: usize,
    node: usize,
}

impl Dragonfly {
    /// `"3,4;4,3;5,1;2"`.
    pub fn parse(parameters: &str) -> Result<Dragonfly, String> {
        let parts: Vec<&str> = parameters.split(';').collect();
        if parts.len() != 4 {
            return Err(format!(
                "a dragonfly is \"groups,blue links;chassis per group,black links;routers per \
                 chassis,green links;hosts per router\" (4 parts separated by ';'), got {} part(s)",
                parts.len()
            ));
        }
        let pair = |text: &str, what: &str, links: &str| -> Result<(usize, usize), String> {
            let items: Vec<&str> = text.split(',').collect();
            if items.len() != 2 {
                return Err(format!(
                    "the {what} part must be \"{what},{links}\" (2 values), got \"{}\"",
                    text.trim()
                ));
            }
            Ok((
                positive(items[0], &format!("the number of {what}"))?,
                positive(items[1], links)?,
            ))
        };
        let (groups, blue) = pair(parts[0], "groups", "blue links")?;
        let (chassis, black) = pair(parts[1], "chassis", "black links")?;
        let (routers, green) = pair(parts[2], "routers", "green links")?;
        let nodes = positive(parts[3], "the number of hosts per router")?;
        if groups > routers {
            return Err(format!(
                "{groups} groups but {routers} routers per chassis: SimGrid 3.32 attaches the blue link \
                 to group j to router j of chassis 0, so it needs at least as many routers per chassis \
                 as groups"
            ));
        }
        Ok(Dragonfly {
            groups,
            blue,
            chassis,
            black,
            routers,
            green,
            nodes,
        })
    }

    pub fn hosts(&self) -> usize {
        super::product([self.groups, self.chassis, self.routers, self.nodes])
    }

    fn coords(&self, host: usize) -> Coords {
        let per_group = self.chassis * self.routers * self.nodes;
        let per_chassis = self.routers * self.nodes;
        Coords {
            group: host / per_group,
            chassis: (host % per_group) / per_chassis,
            blade: (host % per_chassis) / self.nodes,
            node: host % self.nodes,
        }
    }

    fn router(&self, group: usize, chassis: usize, blade: usize) -> usize {
        group * self.chassis * self.routers + chassis * self.routers + blade
    }

    pub(super) fn layout(&self, c: &ClusterLinks, counters: &mut Counters) -> Result<Layout, String> {
        let n = self.hosts();
        let (nr, b_, ch) = (self.groups * self.chassis * self.routers, self.routers, self.chassis);
        let mut b = LayoutBuilder::new();
        for i in 0..n {
            b.leaf(c, i);
        }
        let router_limiter: Vec<Option<u32>> = (0..nr)
            .map(|r| c.limiter.map(|bw| b.limiter_link(c, (2 * n - 1 - r) as u64, bw)))
            .collect();
        let none = (u32::MAX, u32::MAX);
        let mut local = vec![none; nr * self.nodes];
        let mut green = vec![u32::MAX; nr * b_];
        let mut black = vec![u32::MAX; nr * ch];
        let mut blue = vec![u32::MAX; nr];
        let mut uid = || {
            counters.dragonfly_link += 1;
            counters.dragonfly_link - 1
        };
        for r in 0..nr {
            for j in 0..self.nodes {
                let name = format!("local_link_from_router_{r}_to_node_{j}_{}", uid());
                local[r * self.nodes + j] = b.pair(c, name, c.bandwidth);
            }
        }
        let green_bw = c.bandwidth * self.green as f64;
        for i in 0..self.groups * ch {
            for j in 0..b_ {
                for k in j + 1..b_ {
                    let name = format!("green_link_in_chassis_{}_between_routers_{j}_and_{k}_{}", i % ch, uid());
                    let (up, down) = b.pair(c, name, green_bw);
                    green[(i * b_ + j) * b_ + k] = up;
                    green[(i * b_ + k) * b_ + j] = down;
                }
            }
        }
        let black_bw = c.bandwidth * self.black as f64;
        for i in 0..self.groups {
            for j in 0..ch {
                for k in j + 1..ch {
                    for l in 0..b_ {
                        let name = format!(
                            "black_link_in_group_{i}_between_chassis_{j}_and_{k}_blade_{l}_{}",
                            uid()
                        );
                        let (up, down) = b.pair(c, name, black_bw);
                        black[self.router(i, j, l) * ch + k] = up;
                        black[self.router(i, k, l) * ch + j] = down;
                    }
                }
            }
        }
        let blue_bw = c.bandwidth * self.blue as f64;
        for i in 0..self.groups {
            for j in i + 1..self.groups {
                let (ri, rj) = (self.router(i, 0, j), self.router(j, 0, i));
                let name = format!("blue_link_between_group_{i}_and_{j}_routers_{ri}_and_{rj}_{}", uid());
                let (up, down) = b.pair(c, name, blue_bw);
                blue[ri] = up;
                blue[rj] = down;
            }
        }
        let missing = || "internal: dragonfly route through a missing link".to_string();
        let checked = |l: u32| if l == u32::MAX { Err(missing()) } else { Ok(l) };
        let route = |b: &LayoutBuilder, src: usize, dst: usize, out: &mut Vec<u32>| -> Result<(), String> {
            let (me, to) = (self.coords(src), self.coords(dst));
            let my_router = self.router(me.group, me.chassis, me.blade);
            let target = self.router(to.group, to.chassis, to.blade);
            let at = |r: usize| Coords {
                group: r / (ch * b_),
                chassis: (r % (ch * b_)) / b_,
                blade: r % b_,
                node: 0,
            };
            let mut current = my_router;
            out.extend(b.limiter[src]);
            out.push(local[my_router * self.nodes + me.node].0);
            if target != my_router {
                if to.group != at(current).group {
                    if at(current).blade != to.group {
                        out.extend(router_limiter[current]);
                        out.push(checked(green[current * b_ + to.group])?);
                        current = self.router(me.group, me.chassis, to.group);
                    }
                    if at(current).chassis != 0 {
                        out.extend(router_limiter[current]);
                        out.push(checked(black[current * ch])?);
                        current = self.router(me.group, 0, to.group);
                    }
                    out.push(checked(blue[current])?);
                    out.extend(router_limiter[current]);
                    current = self.router(to.group, 0, me.group);
                }
                if to.blade != at(current).blade {
                    out.extend(router_limiter[current]);
                    out.push(checked(green[current * b_ + to.blade])?);
                    current = self.router(to.group, 0, to.blade);
                }
                if to.chassis != at(current).chassis {
                    out.extend(router_limiter[current]);
                    out.push(checked(black[current * ch + to.chassis])?);
                }
            }
            out.extend(router_limiter[target]);
            out.push(local[target * self.nodes + to.node].1);
            out.extend(b.limiter[dst]);
            Ok(())
        };
        b.finish(n, route)
    }
}

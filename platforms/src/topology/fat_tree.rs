//! `topology="FAT_TREE"`, `topo_parameters="h;m1,...,mh;w1,...,wh;p1,...,ph"`: a real-life
//! fat tree (Zahavi, "D-Mod-K Routing Providing Non-Blocking Traffic for Shift Permutations on
//! Real Life Fat Trees", 2010), as SimGrid 3.32's `FatTreeZone` builds and routes it.
//!
//! `h` switch levels above the hosts (level 0); `mi` children per level-`i` switch, `wi`
//! parents per level-`(i-1)` node, `pi` parallel links between two connected nodes of levels
//! `i-1` and `i`. Level 0 holds `m1...mh` hosts; level `i` holds
//! `w1...wi · m(i+1)...mh` switches. Every node gets a label of `h` digits, counted in order
//! of position in a mixed radix whose digit `j` ranges over `w(j+1)` below the node's level and
//! `m(j+1)` from it up; a node and a switch one level up are connected when their labels agree
//! on every digit but the switch's level minus one, by `p` links numbered on the switch's side
//! as ports `label_child + k·m` and on the child's as `label_parent + k·w`.
//!
//! Identifiers: host `i` is `i`; switches count down from `2n - 1` (`n` hosts) by level, then
//! position. Links are `link_from_<child>_<parent>_<k>`, `k` numbering every fat-tree link of
//! the platform; host positions (used by the routing) also continue from one fat tree to the
//! next, as SimGrid's counters do.
//!
//! Routing (destination-mod-k): going up from a node of level `l` that is not an ancestor of
//! the destination, take parent port `(position_dst / (w1...wl)) mod (w(l+1)·p(l+1))`, which
//! spreads destinations over the parallel links too; going down from a switch of level `L`,
//! the source picks the parallel link: scan the child ports from `(position_src mod pL)·mL`
//! and follow every port `i` with `i mod mL == label_dst[L - 1]`, the scan going on from the
//! next port on the node just reached (SimGrid's loop keeps its counter across the step down)
//! and starting afresh at the next level otherwise. Limiters:
//! before each up link the limiter of the node it leaves, after each down link the limiter of
//! the switch it leaves, and the destination's at the end. A host reaches itself through its
//! loopback, or without one through its first switch and back.

use super::{positive, product, ClusterLinks, Counters, Layout, LayoutBuilder};

/// The fat-tree parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct FatTree {
    pub levels: usize,
    /// Children per switch, by level (`m`).
    pub down: Vec<usize>,
    /// Parents per node, by level (`w`).
    pub up: Vec<usize>,
    /// Parallel links, by level (`p`).
    pub count: Vec<usize>,
}

/// Largest number of switches accepted (their ports and links are built in full).
const MAX_SWITCHES: usize = 4 * super::MAX_HOSTS;

struct Node {
    id: u64,
    level: usize,
    position: usize,
    label: Vec<usize>,
    /// Link indices into `links` by port.
    children: Vec<Option<usize>>,
    parents: Vec<Option<usize>>,
    limiter: Option<u32>,
}

/// A link of the tree: its ends (node indices) and its up and down halves.
struct TreeLink {
    upper: usize,
    lower: usize,
    up: u32,
    down: u32,
}

impl FatTree {
    /// `"2;4,4;1,2;1,2"`.
    pub fn parse(parameters: &str) -> Result<FatTree, String> {
        let parts: Vec<&str> = parameters.split(';').collect();
        if parts.len() != 4 {
            return Err(format!(
                "a fat tree is \"levels;children per level;parents per level;links per level\" \
                 (4 parts separated by ';'), got {} part(s)",
                parts.len()
            ));
        }
        let levels = positive(parts[0], "the number of levels")?;
        let list = |text: &str, what: &str| -> Result<Vec<usize>, String> {
            let items: Vec<&str> = text.split(',').collect();
            if items.len() != levels {
                return Err(format!(
                    "{levels} level(s) but the {what} list has {} value(s)",
                    items.len()
                ));
            }
            items
                .iter()
                .enumerate()
                .map(|(i, v)| positive(v, &format!("the {what} of level {}", i + 1)))
                .collect()
        };
        let down = list(parts[1], "children count")?;
        let up = list(parts[2], "parents count")?;
        let count = list(parts[3], "link count")?;
        let t = FatTree {
            levels,
            down,
            up,
            count,
        };
        let switches: usize = (1..=levels).map(|l| t.nodes_at(l)).fold(0, usize::saturating_add);
        if switches > MAX_SWITCHES {
            return Err(format!(
                "this fat tree has {switches} switches, more than {MAX_SWITCHES}"
            ));
        }
        Ok(t)
    }

    pub fn hosts(&self) -> usize {
        product(self.down.iter().copied())
    }

    /// Nodes at `level` (0: hosts).
    fn nodes_at(&self, level: usize) -> usize {
        if level == 0 {
            return self.hosts();
        }
        product(
            self.up[..level]
                .iter()
                .copied()
                .chain(self.down[level..].iter().copied()),
        )
    }

    pub(super) fn layout(&self, c: &ClusterLinks, counters: &mut Counters) -> Result<Layout, String> {
        let n = self.hosts();
        let h = self.levels;
        let mut b = LayoutBuilder::new();
        let mut nodes: Vec<Node> = Vec::new();
        for i in 0..n {
            b.leaf(c, i);
            nodes.push(Node {
                id: i as u64,
                level: 0,
                position: counters.fat_tree_position,
                label: vec![0; h],
                children: Vec::new(),
                parents: vec![None; self.up[0] * self.count[0]],
                limiter: b.limiter[i],
            });
            counters.fat_tree_position += 1;
        }
        let switches: usize = (1..=h).map(|l| self.nodes_at(l)).sum();
        if c.limiter.is_some() && switches > n {
            return Err(format!(
                "with limiter_link, SimGrid 3.32 names switch limiters by switch number, counting down \
                 from {}, and host limiters by host number: this tree has {switches} switches for {n} \
                 hosts, so a switch limiter takes a host limiter's name and SimGrid aborts (link \
                 declared several times)",
                2 * n - 1
            ));
        }
        let mut next_id = 2 * n as u64;
        for level in 1..=h {
            for position in 0..self.nodes_at(level) {
                next_id -= 1;
                let limiter = c.limiter.map(|bw| b.limiter_link(c, next_id, bw));
                let parents = if level < h {
                    self.up[level] * self.count[level]
                } else {
                    0
                };
                nodes.push(Node {
                    id: next_id,
                    level,
                    position,
                    label: vec![0; h],
                    children: vec![None; self.down[level - 1] * self.count[level - 1]],
                    parents: vec![None; parents],
                    limiter,
                });
            }
        }
        // Labels: a mixed-radix counter per level, digit 0 first.
        let mut k = 0;
        for level in 0..=h {
            let radix: Vec<usize> = (0..h)
                .map(|j| if j + 1 > level { self.down[j] } else { self.up[j] })
                .collect();
            let mut label = vec![0; h];
            for _ in 0..self.nodes_at(level) {
                nodes[k].label.clone_from(&label);
                for pos in 0..h {
                    label[pos] += 1;
                    if label[pos] < radix[pos] {
                        break;
                    }
                    label[pos] = 0;
                }
                k += 1;
            }
        }
        // Links, child by child (levels 0..h-1 in order), parents in position order.
        let level_start: Vec<usize> = (0..=h).map(|l| (0..l).map(|i| self.nodes_at(i)).sum()).collect();
        let mut links: Vec<TreeLink> = Vec::new();
        for child in 0..level_start[h] {
            let level = nodes[child].level;
            for parent in level_start[level + 1]..level_start[level + 1] + self.nodes_at(level + 1) {
                let related = (0..h).all(|i| nodes[parent].label[i] == nodes[child].label[i] || i + 1 == level + 1);
                if !related {
                    continue;
                }
                for j in 0..self.count[level] {
                    let parent_port = nodes[child].label[level] + j * self.down[level];
                    let child_port = nodes[parent].label[level] + j * self.up[level];
                    let name = format!(
                        "link_from_{}_{}_{}",
                        nodes[child].id, nodes[parent].id, counters.fat_tree_link
                    );
                    counters.fat_tree_link += 1;
                    let (up, down) = b.pair(c, name, c.bandwidth);
                    links.push(TreeLink {
                        upper: parent,
                        lower: child,
                        up,
                        down,
                    });
                    let index = links.len() - 1;
                    let missing = || format!("internal: fat-tree port out of range ({parent_port}, {child_port})");
                    *nodes[parent].children.get_mut(parent_port).ok_or_else(missing)? = Some(index);
                    *nodes[child].parents.get_mut(child_port).ok_or_else(missing)? = Some(index);
                }
            }
        }
        let in_subtree = |root: &Node, node: &Node| {
            root.level > node.level
                && (0..node.level).all(|i| root.label[i] == node.label[i])
                && (root.level..h).all(|i| root.label[i] == node.label[i])
        };
        let unconnected =
            || "SimGrid 3.32 leaves a port of this fat tree unconnected and cannot route through it".to_string();
        let route = |_: &LayoutBuilder, src: usize, dst: usize, out: &mut Vec<u32>| -> Result<(), String> {
            let source = nodes[src].position;
            let target = &nodes[dst];
            let mut current = src;
            while !in_subtree(&nodes[current], target) {
                let node = &nodes[current];
                if node.level >= h {
                    return Err(unconnected());
                }
                let mut d = target.position;
                for i in 0..node.level {
                    d /= self.up[i];
                }
                d %= self.up[node.level] * self.count[node.level];
                let link = &links[node.parents[d].ok_or_else(unconnected)?];
                out.extend(node.limiter);
                out.push(link.up);
                current = link.upper;
            }
            let mut rounds = 0;
            while current != dst {
                rounds += 1;
                let level = nodes[current].level;
                if level == 0 || rounds > 4 * h + 4 {
                    return Err(unconnected());
                }
                let mut i = (source % self.count[level - 1]) * self.down[level - 1];
                while i < nodes[current].children.len() {
                    let node = &nodes[current];
                    if i % self.down[node.level - 1] == target.label[node.level - 1] {
                        let link = &links[node.children[i].ok_or_else(unconnected)?];
                        out.push(link.down);
                        out.extend(node.limiter);
                        current = link.lower;
                    }
                    i += 1;
                }
            }
            out.extend(nodes[dst].limiter);
            Ok(())
        };
        b.finish(n, route)
    }
}

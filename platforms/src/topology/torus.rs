//! `topology="TORUS"`, `topo_parameters="d1,d2,...,dk"`: a k-dimensional torus of
//! `d1 × ... × dk` hosts, as SimGrid 3.32's `TorusZone`.
//!
//! Leaf `r` has coordinates `(r / (d1...d(i-1))) mod di`. Each leaf owns one link per
//! dimension, to its successor in that dimension (wrapping around):
//! `<id>_link_from_<r>_to_<next>`. Routing is dimension-ordered: the first dimension where the
//! current leaf and the destination differ is corrected one hop at a time, in the direction
//! chosen from the *source's* coordinate `m` and the destination's `t` in that dimension:
//! forward when `m < t <= m + d/2`, or when `m > d/2` and `(m + d/2) mod d >= t`, backward
//! otherwise. A forward hop crosses the current leaf's link (its UP half), a backward hop the
//! next leaf's link (its DOWN half). With a limiter, each hop is preceded by the limiter of the
//! leaf it leaves, and the destination's limiter ends the route.

use super::{positive, product, ClusterLinks, Layout, LayoutBuilder};

/// The torus dimensions.
#[derive(Clone, Debug, PartialEq)]
pub struct Torus {
    pub dims: Vec<usize>,
}

impl Torus {
    /// `"3,2,2"`: positive integers separated by commas.
    pub fn parse(parameters: &str) -> Result<Torus, String> {
        let mut dims = Vec::new();
        for (i, part) in parameters.split(',').enumerate() {
            dims.push(positive(part, &format!("dimension {}", i + 1))?);
        }
        Ok(Torus { dims })
    }

    pub fn hosts(&self) -> usize {
        product(self.dims.iter().copied())
    }

    pub(super) fn layout(&self, c: &ClusterLinks) -> Result<Layout, String> {
        let n = self.hosts();
        let k = self.dims.len();
        let mut b = LayoutBuilder::new();
        // links[r * k + j]: leaf r's link in dimension j, (up, down).
        let mut links = Vec::with_capacity(n * k);
        for r in 0..n {
            b.leaf(c, r);
            let mut step = 1;
            for &d in &self.dims {
                let next = if (r / step) % d == d - 1 {
                    r - (d - 1) * step
                } else {
                    r + step
                };
                let name = format!("{}_link_from_{r}_to_{next}", c.id);
                links.push(b.pair(c, name, c.bandwidth));
                step *= d;
            }
        }
        let dims = self.dims.clone();
        let route = move |b: &LayoutBuilder, src: usize, dst: usize, out: &mut Vec<u32>| {
            let coord = |r: usize, j: usize| (r / product(dims[..j].iter().copied())) % dims[j];
            let mut current = src;
            while current != dst {
                let mut step = 1;
                let mut hop = None;
                for (j, &d) in dims.iter().enumerate() {
                    let here = (current / step) % d;
                    if here != (dst / step) % d {
                        let (m, t) = (coord(src, j), coord(dst, j));
                        let forward = (t > m && t <= m + d / 2) || (m > d / 2 && (m + d / 2) % d >= t);
                        hop = Some(if forward {
                            let next = if here == d - 1 {
                                current - (d - 1) * step
                            } else {
                                current + step
                            };
                            (next, links[current * k + j].0)
                        } else {
                            let next = if here == 0 {
                                current + (d - 1) * step
                            } else {
                                current - step
                            };
                            (next, links[next * k + j].1)
                        });
                        break;
                    }
                    step *= d;
                }
                let Some((next, link)) = hop else {
                    return Err("internal: torus hop not found".to_string());
                };
                out.extend(b.limiter[current]);
                out.push(link);
                current = next;
            }
            out.extend(b.limiter[dst]);
            Ok(())
        };
        b.finish(n, route)
    }
}

//! Where the engine's cached routes keep their lists: every route's links and uses sit in two
//! buffers shared by all routes, and a route names its part of each by a [`Span`].
//!
//! Why not one `Vec` per list: a run caches each route it uses once, and one `Vec` for the
//! links, one for the merged uses and one for the uses left after implied links are dropped
//! would be three allocations per route, a fixed cost every short run would pay (a 90-worker
//! grid90 run caches 178 routes: about 520 allocations, where a whole FAC2 run makes about
//! 1,800). Appending to kept buffers allocates only when one doubles.
//!
//! Nothing is ever removed. A route's variable uses are written again when one of its links
//! stops being implied ([`super::implied`]: at most once per link of the route), and the old
//! span is left behind, so the buffers hold at most (links + 1) uses lists per route.

use crate::platform::LinkId;
use crate::sharing::ConstraintId;

/// A range of one of the [`RouteLists`] buffers (not a `Range<usize>`, which is not `Copy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Span {
    start: usize,
    end: usize,
}

impl Span {
    pub fn len(self) -> usize {
        self.end - self.start
    }
}

/// The buffers (see the module docs). Fields are public to the engine so that a route's list
/// can be read while another field of the engine (the solver) is borrowed mutably.
#[derive(Debug, Default)]
pub(super) struct RouteLists {
    pub links: Vec<LinkId>,
    pub uses: Vec<(ConstraintId, f64)>,
}

impl RouteLists {
    /// Appends a route's links.
    pub fn push_links(&mut self, links: &[LinkId]) -> Span {
        let start = self.links.len();
        self.links.extend_from_slice(links);
        Span {
            start,
            end: self.links.len(),
        }
    }

    /// Appends a list of uses written by `write` (which only appends).
    pub fn push_uses_with(&mut self, write: impl FnOnce(&mut Vec<(ConstraintId, f64)>)) -> Span {
        let start = self.uses.len();
        write(&mut self.uses);
        Span {
            start,
            end: self.uses.len(),
        }
    }

    /// Appends the uses of `span` that `keep` accepts, in their order.
    pub fn push_kept_uses(&mut self, span: Span, keep: impl Fn(ConstraintId) -> bool) -> Span {
        let start = self.uses.len();
        self.uses.reserve(span.len());
        for i in span.start..span.end {
            let used = self.uses[i];
            if keep(used.0) {
                self.uses.push(used);
            }
        }
        Span {
            start,
            end: self.uses.len(),
        }
    }

    pub fn links(&self, span: Span) -> &[LinkId] {
        &self.links[span.start..span.end]
    }

    pub fn uses(&self, span: Span) -> &[(ConstraintId, f64)] {
        &self.uses[span.start..span.end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_name_what_was_appended_and_survive_later_appends() {
        let c = ConstraintId;
        let mut lists = RouteLists::default();
        let a = lists.push_links(&[LinkId(3), LinkId(1)]);
        let b = lists.push_links(&[]);
        let d = lists.push_links(&[LinkId(7)]);
        assert_eq!(lists.links(a), &[LinkId(3), LinkId(1)]);
        assert!(lists.links(b).is_empty());
        assert_eq!(lists.links(d), &[LinkId(7)]);
        let all = lists.push_uses_with(|out| out.extend([(c(0), 1.0), (c(1), 0.05), (c(2), 1.0)]));
        let kept = lists.push_kept_uses(all, |used| used != c(1));
        let none = lists.push_kept_uses(all, |_| false);
        assert_eq!(lists.uses(all), &[(c(0), 1.0), (c(1), 0.05), (c(2), 1.0)]);
        assert_eq!(lists.uses(kept), &[(c(0), 1.0), (c(2), 1.0)]);
        assert_eq!((none.len(), kept.len(), all.len()), (0, 2, 3));
    }
}

//! What the incremental path ([`super::incremental`]) knows of a constraint without reading its
//! list: the component its users belong to, and their usage total kept up as flows join and
//! leave.
//!
//! A join's check needs, for each constraint of the joining flow other than the bottleneck,
//! that every other user is in the bottleneck's component and a lower bound of the
//! constraint's new level `capacity / usage`. Reading the list for both costs its length: on a
//! contended grid a master's links carry every flow, so each join read several lists of
//! ninety. The summary answers both in constant time:
//!
//! * `Constraint::component` is set where the users' components are set (a fill tags every
//!   constraint of the component it fills, an incremental solve an accepted join's
//!   constraints) and cleared when a departure leaves one enabled user or none; it is only
//!   ever a promise that every enabled user has that component. A flow that starts alone
//!   finds its constraints cleared (it arrived on an empty one, or the others left after it
//!   came) and leaves them so: the common lone start writes no tag.
//! * A [`Summary`] is kept for a constraint of many users once a check has read its list
//!   (`Constraint::summarized`; a fill's search refreshes it). Its `usage` follows each SHARED
//!   element's arrival (`+ usage`) and departure (`- usage`). While only arrivals happened since
//!   the list was read, it is that list-order sum bit for bit (an enabled element is appended to
//!   the enabled part, and a scan adds in list order); after a departure it is within `slack` of
//!   the real sum, and [`Summary::upper`] bounds the sum a scan would compute. A lower bound of a
//!   level is all the check needs: the bottleneck's own level, which sets the values, is always
//!   an exact list-order sum.
//!
//! FATPIPE constraints (the usage is a maximum, which a departure cannot update) are never
//! summarized; they are read as before. Neither is a constraint no check has read: flows that
//! start alone (the common case on a volunteer grid's hundred thousand private links) touch no
//! summary.

use super::{ConstraintId, MaxMinSystem, Sharing};

/// A constraint's usage total, kept while `Constraint::summarized` (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Summary {
    /// The enabled users' usage total.
    pub(super) usage: f64,
    /// A bound of the distance between `usage` and the real (unrounded) sum of the usages.
    slack: f64,
    /// `usage` is the list-order sum a scan computes, bit for bit.
    pub(super) exact: bool,
}

/// Constraints with fewer users are read, not summarized: a short list costs no more to read
/// than a summary costs to keep up on every arrival and departure (a grid route's private links
/// carry one or two flows).
pub(super) const SUMMARY_MIN_USERS: u32 = 8;

/// A summarized usage total is trusted while its slack is at most this fraction of it: past
/// that the check reads the list again (about every few hundred departures), so the bound it
/// gives is never looser than ~1e-13 relative, far inside the fill's tie tolerance of 1e-12.
const SLACK_LIMIT: f64 = 1e-13;

impl Summary {
    /// Records a scan's list-order sum over `enabled` elements.
    pub(super) fn set_scanned(&mut self, usage: f64, enabled: u32) {
        self.usage = usage;
        // A sum of n positive terms in any order is within (n - 1)·ε of the real one.
        self.slack = f64::from(enabled) * f64::EPSILON * usage;
        self.exact = true;
    }

    /// A SHARED element of usage `u` joined the enabled part (appended to it).
    #[inline(always)]
    pub(super) fn add(&mut self, u: f64) {
        self.usage += u;
        // The addition rounds by at most half an ulp of the result.
        self.slack += f64::EPSILON * self.usage.abs();
    }

    /// A SHARED element of usage `u` left the enabled part, which keeps at least
    /// [`SUMMARY_MIN_USERS`] elements (below, `remove_variable` drops the summary).
    #[inline(always)]
    pub(super) fn remove(&mut self, u: f64) {
        self.usage -= u;
        self.slack += f64::EPSILON * self.usage.abs();
        // The elements now sum in another order.
        self.exact = false;
    }

    /// Panics unless the summary of constraint `c` keeps its promises (see the module docs).
    #[cfg(test)]
    pub(super) fn assert_holds(summary: Option<&Self>, c: usize, cons: &super::Constraint, vars: &[super::Variable]) {
        let enabled = &cons.elems[..cons.enabled as usize];
        // An empty constraint promises nothing: a flow arriving alone does not retag it.
        if enabled.is_empty() {
            assert_eq!(
                cons.component,
                super::NO_CONSTRAINT,
                "empty constraint {c} has a component"
            );
        }
        if cons.component != super::NO_CONSTRAINT {
            for e in enabled {
                assert_eq!(
                    vars[e.var.0 as usize].component, cons.component,
                    "a user of constraint {c}"
                );
            }
        }
        if !cons.summarized {
            return;
        }
        assert_eq!(cons.sharing, Sharing::Shared, "a summarized FATPIPE constraint {c}");
        let summary = summary.expect("a summarized constraint has a summary");
        let scanned = cons.listed_usage();
        if summary.exact {
            assert_eq!(
                summary.usage.to_bits(),
                scanned.to_bits(),
                "exact usage of constraint {c}"
            );
        }
        if let Some(upper) = summary.upper(cons.enabled) {
            assert!(upper >= scanned, "usage bound {upper} < {scanned} of constraint {c}");
        }
    }

    /// An upper bound of the list-order sum a scan of `enabled` elements would compute, if the
    /// total is known closely enough (see [`SLACK_LIMIT`]).
    pub(super) fn upper(&self, enabled: u32) -> Option<f64> {
        if self.exact {
            return Some(self.usage);
        }
        // (Written so that a NaN is not trusted.)
        let close = self.slack <= self.usage * SLACK_LIMIT;
        if !close {
            return None;
        }
        // The real sum is at most usage + slack, and the scan's rounding adds at most
        // (n - 1)·ε of it (with room to spare for the products' own rounding).
        Some((self.usage + self.slack) * (1.0 + f64::from(enabled + 2) * f64::EPSILON))
    }
}

impl MaxMinSystem {
    /// Records a scan's list-order usage total of `c` (SHARED constraints of at least
    /// [`SUMMARY_MIN_USERS`] users only).
    pub(super) fn record_scan(&mut self, c: ConstraintId, usage: f64) {
        let cons = &mut self.cons[c.0 as usize];
        if cons.sharing == Sharing::Shared && cons.enabled >= SUMMARY_MIN_USERS {
            cons.summarized = true;
            if self.summaries.len() <= c.0 as usize {
                self.summaries.resize(c.0 as usize + 1, Summary::default());
            }
            self.summaries[c.0 as usize].set_scanned(usage, cons.enabled);
        }
    }

    /// The usage total a scan of `c` would compute, if `c`'s summary has it bit for bit.
    pub(super) fn exact_usage(&self, c: ConstraintId) -> Option<f64> {
        if !self.cons[c.0 as usize].summarized {
            return None;
        }
        let summary = &self.summaries[c.0 as usize];
        summary.exact.then_some(summary.usage)
    }

    /// An upper bound of the usage total a scan of `c` would compute, if `c` is summarized
    /// closely enough.
    pub(super) fn usage_bound(&self, c: ConstraintId) -> Option<f64> {
        let cons = &self.cons[c.0 as usize];
        if !cons.summarized {
            return None;
        }
        self.summaries[c.0 as usize].upper(cons.enabled)
    }
}

//! The incremental solve of [`SharingMode::Fast`]: a flow joining or leaving a component that
//! one SHARED constraint fixes entirely (its *bottleneck*, `c*`), without a component search or
//! a fill.
//!
//! State kept by every solve of such a component ([`ClockInfo`]): `c*` is `single`, and
//! `second` is a lower bound of every other level of the component (each other constraint's
//! `capacity / usage` and each variable's `bound × penalty`). Then:
//!
//! * a flow leaving lowers the usage of its constraints, so the other levels only rise and
//!   `second` stays a lower bound;
//! * a flow joining (on `c*` and on constraints whose every other user is in the component)
//!   lowers only its own constraints' levels: they are recomputed, with its bound level, into
//!   `second`;
//! * a flow joining alone (no other user on any of its constraints) is a component of its own,
//!   filled at once as a lone component is (an exec starting on an idle host while a message
//!   leaves the master's link, the common pair in master/worker runs).
//!
//! The new level of `c*` is `capacity / usage`, the usage summed over `c*`'s list in list
//! order, as the component search sums it. If it is at most `second`, progressive filling would
//! find it as the first round's level, saturate `c*` and fix every variable (they all use `c*`)
//! at `level / penalty` (clipped by the bound, as the fill does) in that one round: the values
//! are bit-identical to [`SharingMode::Exact`]'s. Otherwise, and for any other change (a
//! capacity, penalty or bound, a flow joining two components), the solve falls back to filling
//! the touched components. The cost of an incremental step is the length of `c*`'s list plus
//! the lists of the joining flow's constraints, not the component's size times its rounds.

use super::{ClockInfo, ConstraintId, MaxMinSystem, Op, Sharing, VariableId, CLOCK_MIN_MEMBERS, NO_CONSTRAINT};
use crate::sharing::maxmin::Changes;

impl MaxMinSystem {
    /// Handles this solve's changes incrementally if every one of them allows it; returns false,
    /// having changed nothing, otherwise.
    pub(super) fn solve_incrementally(&mut self, changes: &mut Changes) -> bool {
        let mut groups = std::mem::take(&mut self.groups);
        let mut lone = std::mem::take(&mut self.lone);
        groups.clear();
        lone.clear();
        let ok = self.check_ops(&mut groups, &mut lone) && self.levels_hold(&mut groups);
        if ok {
            // In the order of the changes, as the fill's search would meet them: each group at
            // its first change, each lone variable at its own.
            let mut applied = 0;
            let mut next_lone = lone.iter().copied().peekable();
            for i in 0..self.ops.len() {
                match self.ops[i] {
                    Op::Join(v) if next_lone.next_if_eq(&i).is_some() => {
                        self.stats.components += 1;
                        self.stats.lone_components += 1;
                        self.fill_alone(v, changes);
                    }
                    Op::Join(v) => {
                        let star = ConstraintId(self.vars[v.0 as usize].component);
                        applied += self.apply_group(&mut groups, star, changes);
                    }
                    Op::Leave(star) => applied += self.apply_group(&mut groups, star, changes),
                }
            }
            debug_assert_eq!(applied, groups.len());
        }
        self.groups = groups;
        self.lone = lone;
        ok
    }

    /// Gathers each touched bottleneck with its lower bound of the other levels; false if a
    /// change is not one the incremental path handles.
    ///
    /// `lone` receives, in order, the indices in `ops` of the joins that are alone (a list of
    /// indices, so that applying them is a walk, not a search per change: a hundred thousand
    /// workers starting together are as many lone joins in one solve).
    fn check_ops(&mut self, groups: &mut Vec<(ConstraintId, f64, f64)>, lone: &mut Vec<usize>) -> bool {
        for i in 0..self.ops.len() {
            let (star, bound) = match self.ops[i] {
                Op::Leave(star) => {
                    if !self.clock_info[star.0 as usize].single {
                        return false;
                    }
                    (star, f64::INFINITY)
                }
                Op::Join(v) if self.is_alone(v) => {
                    lone.push(i);
                    continue;
                }
                Op::Join(v) => match self.check_join(v) {
                    Some(found) => {
                        // Counted in the bottleneck's component from now on (for the next
                        // joins' and `levels_hold`'s checks). If the solve falls back to a
                        // fill, the fill sets it again: a new variable is always filled.
                        self.vars[v.0 as usize].component = found.0 .0;
                        found
                    }
                    None => return false,
                },
            };
            match groups.iter_mut().find(|g| g.0 == star) {
                Some(group) => group.1 = group.1.min(bound),
                None => groups.push((star, self.clock_info[star.0 as usize].second.min(bound), 0.0)),
            }
        }
        true
    }

    /// True for a live, enabled variable that is the only enabled user of each of its
    /// constraints.
    fn is_alone(&self, v: VariableId) -> bool {
        let var = &self.vars[v.0 as usize];
        var.alive && var.penalty > 0.0 && var.elems.iter().all(|u| self.cons[u.cons.0 as usize].enabled == 1)
    }

    /// For a new variable: the bottleneck of the one-bottleneck component it joins and the
    /// levels it lowers (its bound level and its other constraints' new levels), or `None` if it
    /// does not join exactly one such component.
    fn check_join(&mut self, v: VariableId) -> Option<(ConstraintId, f64)> {
        let var = &self.vars[v.0 as usize];
        if !var.alive || var.penalty <= 0.0 {
            return None;
        }
        let star = var
            .elems
            .iter()
            .map(|u| u.cons)
            .find(|c| self.clock_info[c.0 as usize].single && self.cons[c.0 as usize].enabled > 1)?;
        let mut lowest = var.bound * var.penalty;
        for u in &var.elems {
            if u.weight <= 0.0 {
                return None;
            }
            let cons = &self.cons[u.cons.0 as usize];
            self.stats.elements_scanned += u64::from(cons.enabled);
            let mut usage = 0.0;
            for e in &cons.elems[..cons.enabled as usize] {
                if e.var != v && self.vars[e.var.0 as usize].component != star.0 {
                    return None;
                }
                if e.weight > 0.0 {
                    usage = cons.sharing.combine(usage, e.usage);
                }
            }
            if u.cons != star {
                lowest = lowest.min(cons.capacity.max(0.0) / usage);
            }
        }
        Some((star, lowest))
    }

    /// Computes each bottleneck's new level; true if every one is at most its component's other
    /// levels and every variable on it is in its component (a flow that left may have been the
    /// only link between the bottleneck and a flow that joined another component).
    fn levels_hold(&mut self, groups: &mut [(ConstraintId, f64, f64)]) -> bool {
        for group in groups.iter_mut() {
            let cons = &self.cons[group.0 .0 as usize];
            debug_assert_eq!(cons.sharing, Sharing::Shared);
            if cons.enabled > 0 && cons.enabled < CLOCK_MIN_MEMBERS {
                // Small enough for a fill to cost no more, and a fill reports the changes in
                // the exact solver's order, which decides how ties reach the application.
                return false;
            }
            self.stats.elements_scanned += u64::from(cons.enabled);
            let mut usage = 0.0;
            for e in &cons.elems[..cons.enabled as usize] {
                if self.vars[e.var.0 as usize].component != group.0 .0 {
                    return false;
                }
                if e.weight > 0.0 {
                    usage = cons.sharing.combine(usage, e.usage);
                }
            }
            if usage > 0.0 {
                let level = cons.capacity.max(0.0) / usage;
                if !level.is_finite() || level > group.1 {
                    return false;
                }
                group.2 = level;
            }
        }
        true
    }

    /// Applies `star`'s group unless done already (its level is then set to NaN); returns 1 if it
    /// applied it.
    fn apply_group(
        &mut self,
        groups: &mut [(ConstraintId, f64, f64)],
        star: ConstraintId,
        changes: &mut Changes,
    ) -> usize {
        let Some(group) = groups.iter_mut().find(|g| g.0 == star && !g.2.is_nan()) else {
            return 0;
        };
        let (second, level) = (group.1, group.2);
        group.2 = f64::NAN;
        self.apply(star, second, level, changes);
        1
    }

    /// Sets every variable on `star` to `level / penalty` and records the component's state.
    fn apply(&mut self, star: ConstraintId, second: f64, level: f64, changes: &mut Changes) {
        let enabled = self.cons[star.0 as usize].enabled as usize;
        if enabled == 0 {
            return; // the component is gone
        }
        self.clock_info[star.0 as usize] = ClockInfo {
            level,
            single: true,
            second,
            ..self.clock_info[star.0 as usize]
        };
        for i in 0..enabled {
            let v = self.cons[star.0 as usize].elems[i].var;
            let var = &mut self.vars[v.0 as usize];
            let (old_value, old_clock) = (var.value, var.clock);
            var.value = (level / var.penalty).min(var.bound);
            // As the fill records it: on the clock when the value is the level over the penalty
            // and the clock has enough members.
            var.clock = if enabled >= CLOCK_MIN_MEMBERS as usize && var.value == level / var.penalty {
                star.0
            } else {
                NO_CONSTRAINT
            };
            var.component = star.0;
            self.report(v, old_value, old_clock, changes);
        }
    }
}

#[cfg(test)]
#[path = "incremental_tests.rs"]
mod tests;

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
//!
//! Setting the values visits no flow already on `c*` when every one of them is on its clock
//! and stays there (the level is below each one's bound level, with room for rounding): a
//! clock member's value is `level / penalty` by definition ([`MaxMinSystem::value`] reads it
//! from the level), so moving the level sets them all, and only a joining flow is visited. The
//! clock is reported if some member's quotient moved, as visiting them would find. `c*`'s own
//! list is read once per solve, by the level computation, whatever joins it.

use super::{ClockInfo, ConstraintId, MaxMinSystem, Op, Sharing, VariableId, CLOCK_MIN_MEMBERS, NO_CONSTRAINT};
use crate::sharing::maxmin::Changes;

/// One bottleneck touched by an incremental solve.
#[derive(Clone, Copy, Debug)]
pub(super) struct Group {
    star: ConstraintId,
    /// A lower bound of the component's other levels.
    second: f64,
    /// The bottleneck's new level; NaN once applied.
    level: f64,
    /// How many new variables join it in this solve, and the last of them.
    joins: u32,
    joiner: VariableId,
}

/// Relative room below `second` within which a level is sure to leave every variable under
/// its bound after rounding (`level / penalty <= bound` when `level <= bound × penalty ×
/// (1 - ROOM)`: the product and the quotient each round by at most half an ulp).
const ROOM: f64 = 4.0 * f64::EPSILON;

/// No variable (`scan_users` without an exception).
const NO_VARIABLE: VariableId = VariableId(u32::MAX);

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
                        // Its check found every other user of its constraints in `star`'s
                        // component, which it is now in too.
                        for u in &self.vars[v.0 as usize].elems {
                            self.cons[u.cons.0 as usize].component = star.0;
                        }
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
    fn check_ops(&mut self, groups: &mut Vec<Group>, lone: &mut Vec<usize>) -> bool {
        for i in 0..self.ops.len() {
            let (star, bound, joiner) = match self.ops[i] {
                Op::Leave(star) => {
                    if !self.clock_info[star.0 as usize].single {
                        return false;
                    }
                    (star, f64::INFINITY, None)
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
                        (found.0, found.1, Some(v))
                    }
                    None => return false,
                },
            };
            let group = match groups.iter_mut().find(|g| g.star == star) {
                Some(group) => group,
                None => {
                    groups.push(Group {
                        star,
                        second: self.clock_info[star.0 as usize].second,
                        level: 0.0,
                        joins: 0,
                        joiner: NO_VARIABLE,
                    });
                    groups.last_mut().expect("just pushed")
                }
            };
            group.second = group.second.min(bound);
            if let Some(v) = joiner {
                group.joins += 1;
                group.joiner = v;
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
        for k in 0..var.elems.len() {
            let u = self.vars[v.0 as usize].elems[k];
            if u.weight <= 0.0 {
                return None;
            }
            if u.cons == star {
                // `levels_hold` sums its usage and checks its users, once for all its joins.
                continue;
            }
            let cons = &self.cons[u.cons.0 as usize];
            let usage = if cons.enabled == 1 {
                // The flow alone on it: its own usage, as a scan sums it.
                cons.sharing.combine(0.0, u.usage)
            } else if let Some(upper) = self.usage_bound(u.cons).filter(|_| cons.component == star.0) {
                upper
            } else {
                self.scan_users(u.cons, star, v)?
            };
            lowest = lowest.min(self.cons[u.cons.0 as usize].capacity.max(0.0) / usage);
        }
        Some((star, lowest))
    }

    /// The usage total of `c`'s enabled users, summed in list order, if each is `v` or in
    /// `star`'s component; recorded in `c`'s summary ([`NO_VARIABLE`] for no exception).
    fn scan_users(&mut self, c: ConstraintId, star: ConstraintId, v: VariableId) -> Option<f64> {
        let cons = &self.cons[c.0 as usize];
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
        self.record_scan(c, usage);
        Some(usage)
    }

    /// Computes each bottleneck's new level; true if every one is at most its component's other
    /// levels and every variable on it is in its component (a flow that left may have been the
    /// only link between the bottleneck and a flow that joined another component).
    fn levels_hold(&mut self, groups: &mut [Group]) -> bool {
        for group in groups.iter_mut() {
            let cons = &self.cons[group.star.0 as usize];
            debug_assert_eq!(cons.sharing, Sharing::Shared);
            if cons.enabled == 0 {
                continue; // the component is gone: nothing to apply, and no component to tag
            }
            if cons.enabled < CLOCK_MIN_MEMBERS {
                // Small enough for a fill to cost no more, and a fill reports the changes in
                // the exact solver's order, which decides how ties reach the application.
                return false;
            }
            let usage = if cons.component != group.star.0 {
                // Not known to hold its component alone: each user is checked as it is summed.
                let Some(usage) = self.scan_users(group.star, group.star, NO_VARIABLE) else {
                    return false;
                };
                self.cons[group.star.0 as usize].component = group.star.0;
                usage
            } else if let Some(usage) = self.exact_usage(group.star) {
                usage // only arrivals since the last scan: the list-order sum
            } else {
                self.stats.elements_scanned += u64::from(cons.enabled);
                let usage = cons.listed_usage();
                self.record_scan(group.star, usage);
                usage
            };
            let cons = &self.cons[group.star.0 as usize];
            if usage > 0.0 {
                let level = cons.capacity.max(0.0) / usage;
                if !level.is_finite() || level > group.second {
                    return false;
                }
                group.level = level;
            }
        }
        true
    }

    /// Applies `star`'s group unless done already (its level is then set to NaN); returns 1 if it
    /// applied it.
    fn apply_group(&mut self, groups: &mut [Group], star: ConstraintId, changes: &mut Changes) -> usize {
        let Some(group) = groups.iter_mut().find(|g| g.star == star && !g.level.is_nan()) else {
            return 0;
        };
        let applied = *group;
        group.level = f64::NAN;
        if !self.apply_to_clock(&applied, changes) {
            self.apply(star, applied.second, applied.level, changes);
        }
        1
    }

    /// Applies a group by moving its clock's level alone, when every variable already on the
    /// bottleneck progresses on its clock and stays there: their values are `level / penalty`
    /// through [`MaxMinSystem::value`], so only a new variable is visited. False, having changed
    /// nothing, if that does not hold (and [`MaxMinSystem::apply`] must visit every variable).
    fn apply_to_clock(&mut self, group: &Group, changes: &mut Changes) -> bool {
        let star = group.star.0 as usize;
        let enabled = self.cons[star].enabled;
        let info = &self.clock_info[star];
        let stays = enabled >= CLOCK_MIN_MEMBERS
            && group.joins <= 1
            && info.all_on_clock
            && group.level <= group.second * (1.0 - ROOM);
        if !stays {
            return false;
        }
        self.stats.level_only_applies += 1;
        let old_level = info.level;
        self.clock_info[star] = ClockInfo {
            level: group.level,
            single: true,
            second: group.second,
            ..self.clock_info[star]
        };
        // Reported as the full visit reports it: the clock once if a member's value moved.
        if group.level != old_level && self.a_member_moved(group, old_level) {
            let info = &mut self.clock_info[star];
            if info.reported != self.stamp {
                info.reported = self.stamp;
                changes.clocks.push(group.star);
            }
        }
        if group.joins == 1 {
            let v = group.joiner;
            let var = &mut self.vars[v.0 as usize];
            let (old_value, old_clock) = (var.value, var.clock);
            // Under its bound (`second` includes its bound level), so on the clock.
            var.value = (group.level / var.penalty).min(var.bound);
            let clock = if var.value == group.level / var.penalty {
                group.star.0
            } else {
                NO_CONSTRAINT
            };
            var.clock = clock;
            var.component = group.star.0;
            self.clock_info[star].all_on_clock = clock == group.star.0;
            self.report(v, old_value, old_clock, changes);
        }
        true
    }

    /// Whether a variable already on the group's clock gets another value from the new level
    /// (two levels an ulp apart can give every member the same quotient). The first member
    /// almost always answers.
    fn a_member_moved(&self, group: &Group, old_level: f64) -> bool {
        let cons = &self.cons[group.star.0 as usize];
        cons.elems[..cons.enabled as usize].iter().any(|e| {
            let var = &self.vars[e.var.0 as usize];
            e.var != group.joiner && group.level / var.penalty != old_level / var.penalty
        })
    }

    /// Sets every variable on `star` to `level / penalty` and records the component's state.
    fn apply(&mut self, star: ConstraintId, second: f64, level: f64, changes: &mut Changes) {
        let enabled = self.cons[star.0 as usize].enabled as usize;
        if enabled == 0 {
            return; // the component is gone
        }
        let mut all_on_clock = true;
        for i in 0..enabled {
            let v = self.cons[star.0 as usize].elems[i].var;
            let old_value = self.value(v); // from the clock's old level
            let var = &mut self.vars[v.0 as usize];
            let old_clock = var.clock;
            var.value = (level / var.penalty).min(var.bound);
            // As the fill records it: on the clock when the value is the level over the penalty
            // and the clock has enough members.
            let clock = if enabled >= CLOCK_MIN_MEMBERS as usize && var.value == level / var.penalty {
                star.0
            } else {
                NO_CONSTRAINT
            };
            var.clock = clock;
            all_on_clock &= clock == star.0;
            var.component = star.0;
            self.report(v, old_value, old_clock, changes);
        }
        self.clock_info[star.0 as usize] = ClockInfo {
            level,
            single: true,
            second,
            all_on_clock,
            ..self.clock_info[star.0 as usize]
        };
    }
}

#[cfg(test)]
#[path = "incremental_tests.rs"]
mod tests;

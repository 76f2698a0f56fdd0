//! Progressive filling of one connected component (the model is in [`super`]'s docs), and what
//! it learns on the way for [`SharingMode::Fast`]: which constraint fixed each variable (its
//! bottleneck clock) and whether one constraint fixed the whole component (the state the
//! incremental path starts from).

use super::{
    Changes, LoneScan, MaxMinSystem, Sharing, SharingMode, Use, VariableId, CLOCK_MIN_MEMBERS, LEVEL_TOLERANCE,
    NO_CONSTRAINT, NO_KEY,
};

impl MaxMinSystem {
    /// The general progressive filling, round by round.
    pub(super) fn fill_rounds(&mut self, changes: &mut Changes) {
        let mut to_fix = std::mem::take(&mut self.to_fix);
        let mut olds = std::mem::take(&mut self.old_values);
        olds.clear();
        olds.extend(
            self.comp_vars
                .iter()
                .map(|&v| (self.value(v), self.vars[v.0 as usize].clock)),
        );
        let mut unfixed = 0usize;
        for &v in &self.comp_vars {
            let var = &mut self.vars[v.0 as usize];
            var.fixed = var.penalty <= 0.0;
            var.fixed_by = NO_CONSTRAINT;
            if var.fixed {
                var.value = 0.0;
            } else {
                unfixed += 1;
            }
        }
        // What the first round fixed: whether bounds stopped anyone, how many constraints
        // saturated, and the last of them.
        let (mut rounds, mut by_bound, mut saturated, mut star) = (0u32, false, 0u32, NO_CONSTRAINT);
        let mut unbounded = false;
        // The constraints' remaining capacity, usage and unfixed count were set by the component
        // search (`visit_constraint`).
        while unfixed > 0 {
            self.stats.rounds += 1;
            rounds += 1;
            let mut level = f64::INFINITY;
            for &c in &self.comp_cons {
                let cons = &self.cons[c.0 as usize];
                if cons.unfixed > 0 && cons.usage > 0.0 {
                    level = level.min(cons.remaining.max(0.0) / cons.usage);
                }
            }
            for &v in &self.comp_vars {
                let var = &self.vars[v.0 as usize];
                if !var.fixed {
                    level = level.min(var.bound * var.penalty);
                }
            }
            if level.is_infinite() {
                // Unconstrained, unbounded variables: infinitely fast.
                for &v in &self.comp_vars {
                    let var = &mut self.vars[v.0 as usize];
                    if !var.fixed {
                        var.fixed = true;
                        var.value = f64::INFINITY;
                    }
                }
                unbounded = true;
                break;
            }
            let threshold = level * (1.0 + LEVEL_TOLERANCE);
            to_fix.clear();
            // Variables stopped by their bound.
            for &v in &self.comp_vars {
                let var = &self.vars[v.0 as usize];
                if !var.fixed && var.bound * var.penalty <= threshold {
                    to_fix.push((v, NO_CONSTRAINT));
                }
            }
            by_bound |= rounds == 1 && !to_fix.is_empty();
            // Variables on saturated constraints.
            for &c in &self.comp_cons {
                let cons = &self.cons[c.0 as usize];
                if cons.unfixed > 0 && cons.usage > 0.0 && cons.remaining.max(0.0) / cons.usage <= threshold {
                    self.clock_info[c.0 as usize].level = level;
                    if rounds == 1 {
                        saturated += 1;
                        star = c.0;
                    }
                    // On a FATPIPE only the variables with the largest weight/penalty saturate it;
                    // on a SHARED constraint every user does.
                    let least = match cons.sharing {
                        Sharing::Shared => 0.0,
                        Sharing::Fatpipe => cons.usage * (1.0 - LEVEL_TOLERANCE),
                    };
                    for e in &cons.elems[..cons.enabled as usize] {
                        if e.weight > 0.0 && e.usage >= least && !self.vars[e.var.0 as usize].fixed {
                            to_fix.push((e.var, c.0));
                        }
                    }
                }
            }
            // Fix this round's variables first; the constraints' remaining capacity and usage
            // only matter for a next round, which there is none of when every variable is fixed
            // (the common case: one bottleneck for the whole component).
            let mut k = 0;
            for i in 0..to_fix.len() {
                let (v, by) = to_fix[i];
                let var = &mut self.vars[v.0 as usize];
                if var.fixed {
                    continue; // listed twice
                }
                var.fixed = true;
                var.fixed_by = by;
                var.value = (level / var.penalty).min(var.bound);
                unfixed -= 1;
                to_fix[k] = to_fix[i];
                k += 1;
            }
            to_fix.truncate(k);
            if unfixed == 0 {
                break;
            }
            for &(v, _) in &to_fix {
                let var = &self.vars[v.0 as usize];
                let value = var.value;
                for k in 0..var.elems.len() {
                    let Use {
                        cons: c,
                        weight: w,
                        usage,
                        ..
                    } = self.vars[v.0 as usize].elems[k];
                    if w <= 0.0 {
                        continue;
                    }
                    let cons = &mut self.cons[c.0 as usize];
                    cons.unfixed -= 1;
                    match cons.sharing {
                        Sharing::Shared => {
                            cons.remaining -= w * value;
                            cons.usage = if cons.unfixed == 0 { 0.0 } else { cons.usage - usage };
                        }
                        Sharing::Fatpipe => {
                            let vars = &self.vars;
                            cons.usage = cons.elems[..cons.enabled as usize]
                                .iter()
                                .filter(|e| e.weight > 0.0 && !vars[e.var.0 as usize].fixed)
                                .map(|e| e.usage)
                                .fold(0.0, f64::max);
                        }
                    }
                }
            }
        }
        if self.mode == SharingMode::Fast {
            // One round, no bound, one saturated SHARED constraint: it fixed every variable, and
            // every variable uses it.
            let single = !unbounded
                && rounds == 1
                && !by_bound
                && saturated == 1
                && self.cons[star as usize].sharing == Sharing::Shared;
            self.record_bottlenecks(single.then_some(star));
        }
        for (i, &(old_value, old_clock)) in olds.iter().enumerate() {
            self.report(self.comp_vars[i], old_value, old_clock, changes);
        }
        self.to_fix = to_fix;
        self.old_values = olds;
    }

    /// After a fill in [`SharingMode::Fast`]: each variable's clock (the SHARED constraint that
    /// fixed it, when it fixed at least [`CLOCK_MIN_MEMBERS`] and the value is that constraint's
    /// level over its penalty exactly) and, when
    /// `star` fixed the whole component in one round, the component's one-bottleneck state.
    /// The constraints still hold the first round's remaining capacity and usage then (nothing
    /// was subtracted: no second round), so the other levels are read from them.
    fn record_bottlenecks(&mut self, star: Option<u32>) {
        for &c in &self.comp_cons {
            let info = &mut self.clock_info[c.0 as usize];
            info.single = false;
            info.all_on_clock = false;
        }
        let component = match star {
            Some(star) => {
                let mut second = f64::INFINITY;
                for &c in &self.comp_cons {
                    let cons = &self.cons[c.0 as usize];
                    if c.0 != star && cons.unfixed > 0 && cons.usage > 0.0 {
                        second = second.min(cons.remaining.max(0.0) / cons.usage);
                    }
                }
                for &v in &self.comp_vars {
                    let var = &self.vars[v.0 as usize];
                    second = second.min(var.bound * var.penalty);
                }
                let info = &mut self.clock_info[star as usize];
                info.single = true;
                info.second = second;
                star
            }
            None => NO_CONSTRAINT,
        };
        for &v in &self.comp_vars {
            let by = self.vars[v.0 as usize].fixed_by;
            if by != NO_CONSTRAINT {
                self.clock_info[by as usize].fixes += 1;
            }
        }
        let mut all_on_clock = true;
        for &v in &self.comp_vars {
            let var = &mut self.vars[v.0 as usize];
            var.component = component;
            let by = var.fixed_by;
            let clock = if by != NO_CONSTRAINT
                && self.cons[by as usize].sharing == Sharing::Shared
                && self.clock_info[by as usize].fixes >= CLOCK_MIN_MEMBERS
                && var.value == self.clock_info[by as usize].level / var.penalty
            {
                by
            } else {
                NO_CONSTRAINT
            };
            var.clock = clock;
            all_on_clock &= clock == component;
        }
        if component != NO_CONSTRAINT {
            self.clock_info[component as usize].all_on_clock = all_on_clock;
        }
        for &c in &self.comp_cons {
            self.clock_info[c.0 as usize].fixes = 0;
            self.cons[c.0 as usize].component = component;
        }
    }

    /// [`MaxMinSystem::fill`] when a single variable is to be solved (a message or an exec alone
    /// on its resources, the common case in master/worker runs): the filling takes one round,
    /// whose level is the smallest of the variable's constraint levels and its bound level. The
    /// expressions are those of the general loop, so the value is bit-identical. A lone variable
    /// is on no clock; in [`SharingMode::Fast`] its tightest SHARED constraint, if tighter than
    /// its bound, becomes the bottleneck of its one-variable component, so that a second flow
    /// joining there takes the incremental path.
    pub(super) fn fill_alone(&mut self, v: VariableId, changes: &mut Changes) {
        let (old, old_clock) = (self.value(v), self.vars[v.0 as usize].clock);
        let var = &self.vars[v.0 as usize];
        let mut component = NO_CONSTRAINT;
        let value = if var.penalty <= 0.0 {
            0.0
        } else {
            let bound_level = var.bound * var.penalty;
            let (best, best_c, next) = self.lone_scan(v);
            let level = bound_level.min(best);
            if self.mode == SharingMode::Fast
                && best_c != NO_CONSTRAINT
                && best <= bound_level
                && best.is_finite()
                && self.cons[best_c as usize].sharing == Sharing::Shared
            {
                let info = &mut self.clock_info[best_c as usize];
                info.single = true;
                info.all_on_clock = false; // a lone flow is on no clock
                info.second = next.min(bound_level);
                info.level = best;
                component = best_c;
            }
            let var = &self.vars[v.0 as usize];
            if level.is_infinite() {
                f64::INFINITY
            } else {
                (level / var.penalty).min(var.bound)
            }
        };
        let var = &mut self.vars[v.0 as usize];
        var.value = value;
        var.clock = NO_CONSTRAINT;
        // Its constraints' components are the caller's: a new flow alone on them finds them
        // cleared (`remove_variable`, `set_penalty`), which promises nothing; a fill retags them.
        var.component = component;
        self.report(v, old, old_clock, changes);
    }

    /// The smallest constraint level of a lone variable's uses, the first constraint that has
    /// it and the next smallest level: from its key's last scan if that still holds (see
    /// [`LoneScan`]), else scanned (and recorded under its key).
    #[inline]
    fn lone_scan(&mut self, v: VariableId) -> (f64, u32, f64) {
        let var = &self.vars[v.0 as usize];
        let key = var.key;
        if key != NO_KEY {
            let scan = &self.lone_scans[key as usize];
            if scan.capacity_epoch == self.capacity_epoch && scan.penalty_bits == var.penalty.to_bits() {
                self.stats.lone_scans_reused += 1;
                return (scan.best, scan.best_c, scan.next);
            }
        }
        let (mut best, mut best_c, mut next) = (f64::INFINITY, NO_CONSTRAINT, f64::INFINITY);
        for &Use {
            cons: c,
            weight: w,
            usage,
            ..
        } in &var.elems
        {
            if w > 0.0 {
                // Usage starts at 0 and this is its only unfixed user (max(0, u) = 0 + u:
                // `usage` is positive, so adding it to 0 gives it back bit for bit).
                let level = self.cons[c.0 as usize].capacity.max(0.0) / usage;
                if level < best {
                    next = best;
                    best = level;
                    best_c = c.0;
                } else {
                    next = next.min(level);
                }
            }
        }
        if key != NO_KEY {
            self.lone_scans[key as usize] = LoneScan {
                capacity_epoch: self.capacity_epoch,
                penalty_bits: var.penalty.to_bits(),
                best,
                best_c,
                next,
            };
        }
        (best, best_c, next)
    }
}

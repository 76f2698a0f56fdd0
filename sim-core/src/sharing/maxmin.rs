//! Weighted max-min fair sharing with bounds (SimGrid's LMM model).
//!
//! The system has *constraints* (resources with a capacity `C_c`) and *variables* (activities
//! with a sharing penalty `p_v > 0`, an optional upper bound `b_v`, and a consumption weight
//! `w_vc` on each constraint they use). A solution assigns each variable a value `x_v` such that
//!
//! * SHARED constraint:  `sum_v w_vc * x_v <= C_c`;
//! * FATPIPE constraint: `max_v w_vc * x_v <= C_c`;
//! * `x_v <= b_v`;
//!
//! and the vector `(p_v * x_v)` is max-min fair: no variable's level `p_v * x_v` can grow without
//! lowering the level of a variable whose level is not larger. A larger penalty therefore means a
//! smaller share (the network model uses the route's RTT as penalty, so long routes get less, as
//! TCP does).
//!
//! Progressive filling computes it: all unfixed variables rise at the same level `λ`, a variable
//! stops at `x_v = λ / p_v` when a constraint it uses saturates (`λ = remaining_c / usage_c`, with
//! `usage_c = Σ w_vc / p_v` for SHARED and `max w_vc / p_v` for FATPIPE, over unfixed variables) or
//! at `x_v = b_v` when its bound is reached first (`λ = b_v p_v`).
//!
//! Incremental re-solve: every change (new or removed variable, new capacity, penalty or bound)
//! marks the constraints it touches. [`MaxMinSystem::solve`] re-solves only the connected
//! components (constraints linked by variables with a positive penalty) that contain a marked
//! constraint or variable; every other value is unchanged by construction, because max-min
//! fairness decomposes over connected components.
//!
//! A variable with penalty 0 takes no share and links nothing (SimGrid's "disabled" variables).
//! The engine adds a comm only when its latency phase is over, so it does not use them.
//!
//! Cost of a solve: linear in the size of the touched components (their variables' constraint
//! uses) per filling round; one round when a single bottleneck fixes them all, which is the
//! common case. The search reads dense stamp arrays and each constraint's element list carries
//! the weights and penalties it sums, so a round is mostly sequential reads.

/// Index of a constraint (a resource).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConstraintId(pub u32);

/// Index of a variable (an activity's rate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VariableId(pub u32);

/// Sharing semantics of a constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// The weighted sum of the values is at most the capacity.
    Shared,
    /// The largest weighted value is at most the capacity.
    Fatpipe,
}

impl Sharing {
    /// Two amounts on one constraint (two weights of one variable, or a usage total and one
    /// more variable's usage), combined as the constraint combines usages: summed on SHARED, the
    /// larger kept on FATPIPE.
    fn combine(self, current: f64, weight: f64) -> f64 {
        match self {
            Sharing::Shared => current + weight,
            Sharing::Fatpipe => current.max(weight),
        }
    }
}

/// A variable's entry in a constraint's list. It carries the variable's weight and its usage
/// `weight / penalty`, so that summing a constraint's usage reads this list alone, in order, with
/// no division (the quotient is the one the sum would compute, so values are unchanged).
#[derive(Clone, Copy, Debug)]
struct Elem {
    var: VariableId,
    /// Index of the matching [`Use`] in the variable's list.
    var_pos: u32,
    weight: f64,
    /// `weight / penalty` of the variable.
    usage: f64,
}

/// A constraint's entry in a variable's list.
#[derive(Clone, Copy, Debug)]
struct Use {
    cons: ConstraintId,
    /// Index of the matching [`Elem`] in the constraint's list.
    pos: u32,
    /// Same as the element's weight.
    weight: f64,
    /// Same as the element's usage, `weight / penalty`.
    usage: f64,
}

/// One cache line each (aligned): a solve reads a few fields of many constraints.
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Constraint {
    capacity: f64,
    sharing: Sharing,
    /// The variables using it. The elements of variables with a positive penalty come first:
    /// `elems[..enabled]`. Solves look at those only, so flows waiting for their latency cost
    /// nothing (SimGrid keeps the same split).
    elems: Vec<Elem>,
    enabled: u32,
    // Scratch space for one solve.
    remaining: f64,
    usage: f64,
    unfixed: u32,
}

#[derive(Clone, Debug)]
struct Variable {
    penalty: f64,
    bound: f64,
    /// The constraints it uses.
    elems: Vec<Use>,
    value: f64,
    alive: bool,
    // Scratch space for one solve.
    fixed: bool,
}

/// Work done by [`MaxMinSystem::solve`] since the system was made. The counts depend only on the
/// sequence of changes, never on the machine, so they say where a run's solving time goes
/// without a profiler (`bot_scenario` prints them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolverStats {
    /// Solves that had a change to handle.
    pub solves: u64,
    /// Components filled, each on its own.
    pub components: u64,
    /// Of those, components of a single variable (filled by the one-round shortcut).
    pub lone_components: u64,
    /// Constraint elements read by the component searches (the enabled elements of every
    /// visited constraint): the solve's cost is about linear in this.
    pub elements_scanned: u64,
    /// Filling rounds of the components of several variables (one per distinct bottleneck
    /// level).
    pub rounds: u64,
}

/// A max-min system. See the module docs for the model.
#[derive(Clone, Debug, Default)]
pub struct MaxMinSystem {
    cons: Vec<Constraint>,
    vars: Vec<Variable>,
    free_vars: Vec<u32>,
    dirty_cons: Vec<ConstraintId>,
    dirty_vars: Vec<VariableId>,
    stamp: u64,
    /// Last solve that visited each constraint / variable (kept apart from the structs so the
    /// component search touches a few dense cache lines).
    cons_stamp: Vec<u64>,
    var_stamp: Vec<u64>,
    // Reused buffers (no allocation per solve once warm).
    comp_cons: Vec<ConstraintId>,
    comp_vars: Vec<VariableId>,
    to_fix: Vec<VariableId>,
    old_values: Vec<f64>,
    stats: SolverStats,
}

/// Relative tolerance for "this constraint saturates at the current level": levels equal up to
/// rounding are treated as one, so symmetric flows get bit-identical values.
const LEVEL_TOLERANCE: f64 = 1e-12;

impl MaxMinSystem {
    /// An empty system.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a resource of the given capacity.
    pub fn add_constraint(&mut self, capacity: f64, sharing: Sharing) -> ConstraintId {
        let id = ConstraintId(self.cons.len() as u32);
        self.cons.push(Constraint {
            capacity,
            sharing,
            elems: Vec::new(),
            enabled: 0,
            remaining: 0.0,
            usage: 0.0,
            unfixed: 0,
        });
        self.cons_stamp.push(0);
        id
    }

    /// Changes a resource's capacity (e.g. a speed profile event).
    pub fn set_capacity(&mut self, c: ConstraintId, capacity: f64) {
        self.cons[c.0 as usize].capacity = capacity;
        self.dirty_cons.push(c);
    }

    /// The capacity of a resource.
    pub fn capacity(&self, c: ConstraintId) -> f64 {
        self.cons[c.0 as usize].capacity
    }

    /// Adds a variable with a sharing penalty (0 = takes no share yet) and an upper bound
    /// (`f64::INFINITY` for none). Attach it to constraints with [`MaxMinSystem::expand`].
    pub fn add_variable(&mut self, penalty: f64, bound: f64) -> VariableId {
        let var = Variable {
            penalty,
            bound,
            elems: Vec::new(),
            value: 0.0,
            alive: true,
            fixed: false,
        };
        let id = match self.free_vars.pop() {
            Some(slot) => {
                // A new stamp of 0 is never the current one (solves count from 1).
                self.var_stamp[slot as usize] = 0;
                let old = std::mem::replace(&mut self.vars[slot as usize], var);
                // Keep the element list's allocation.
                let mut elems = old.elems;
                elems.clear();
                self.vars[slot as usize].elems = elems;
                VariableId(slot)
            }
            None => {
                self.vars.push(var);
                self.var_stamp.push(0);
                VariableId((self.vars.len() - 1) as u32)
            }
        };
        self.dirty_vars.push(id);
        id
    }

    /// Makes `v` consume `weight` per unit of value on `c`. Expanding twice on the same
    /// constraint combines the weights as the constraint combines usages: they add up on a
    /// SHARED constraint (a link on both the route and the reverse route: 1.05) and the larger
    /// one is kept on a FATPIPE (SimGrid's `expand_add`).
    pub fn expand(&mut self, v: VariableId, c: ConstraintId, weight: f64) {
        let var = &mut self.vars[v.0 as usize];
        if let Some(u) = var.elems.iter_mut().find(|u| u.cons == c) {
            let cons = &mut self.cons[c.0 as usize];
            u.weight = cons.sharing.combine(u.weight, weight);
            u.usage = u.weight / var.penalty;
            let elem = &mut cons.elems[u.pos as usize];
            elem.weight = u.weight;
            elem.usage = u.usage;
        } else {
            self.attach(v, c, weight);
        }
        if self.vars[v.0 as usize].penalty > 0.0 {
            self.dirty_cons.push(c);
        }
    }

    /// Combines a list of (constraint, weight) uses as successive [`MaxMinSystem::expand`] calls
    /// would, into one entry per constraint (first-use order), for
    /// [`MaxMinSystem::add_variable_with`]. Callers that start many variables on the same
    /// resources (a cached network route) merge once and reuse the result.
    pub fn merge_uses(&self, uses: impl IntoIterator<Item = (ConstraintId, f64)>) -> Vec<(ConstraintId, f64)> {
        let uses = uses.into_iter();
        let mut merged: Vec<(ConstraintId, f64)> = Vec::with_capacity(uses.size_hint().0);
        for (c, weight) in uses {
            match merged.iter_mut().find(|(cc, _)| *cc == c) {
                Some((_, current)) => *current = self.cons[c.0 as usize].sharing.combine(*current, weight),
                None => merged.push((c, weight)),
            }
        }
        merged
    }

    /// Adds a variable already attached to constraints: the same system as
    /// [`MaxMinSystem::add_variable`] followed by one [`MaxMinSystem::expand`] per use, without
    /// searching for repeated constraints. `uses` must name each constraint once (see
    /// [`MaxMinSystem::merge_uses`]).
    pub fn add_variable_with(&mut self, penalty: f64, bound: f64, uses: &[(ConstraintId, f64)]) -> VariableId {
        let v = self.add_variable(penalty, bound);
        for &(c, weight) in uses {
            debug_assert!(
                !self.vars[v.0 as usize].elems.iter().any(|u| u.cons == c),
                "uses must be merged"
            );
            self.attach(v, c, weight);
            if penalty > 0.0 {
                self.dirty_cons.push(c);
            }
        }
        v
    }

    /// Appends a new element (v uses c), keeping the enabled elements first.
    fn attach(&mut self, v: VariableId, c: ConstraintId, weight: f64) {
        let cons = &mut self.cons[c.0 as usize];
        let var = &mut self.vars[v.0 as usize];
        let usage = weight / var.penalty;
        cons.elems.push(Elem {
            var: v,
            var_pos: var.elems.len() as u32,
            weight,
            usage,
        });
        let pos = (cons.elems.len() - 1) as u32;
        var.elems.push(Use {
            cons: c,
            pos,
            weight,
            usage,
        });
        if var.penalty > 0.0 {
            let enabled = self.cons[c.0 as usize].enabled;
            self.swap_elems(c, pos, enabled);
            self.cons[c.0 as usize].enabled += 1;
        }
    }

    /// Swaps two elements of a constraint's list and repairs the variables' back-pointers.
    fn swap_elems(&mut self, c: ConstraintId, i: u32, j: u32) {
        if i == j {
            return;
        }
        let cons = &mut self.cons[c.0 as usize];
        cons.elems.swap(i as usize, j as usize);
        let (ei, ej) = (cons.elems[i as usize], cons.elems[j as usize]);
        self.vars[ei.var.0 as usize].elems[ei.var_pos as usize].pos = i;
        self.vars[ej.var.0 as usize].elems[ej.var_pos as usize].pos = j;
    }

    /// Changes a variable's penalty (0 takes it out of the sharing).
    pub fn set_penalty(&mut self, v: VariableId, penalty: f64) {
        let was_enabled = self.vars[v.0 as usize].penalty > 0.0;
        self.vars[v.0 as usize].penalty = penalty;
        for u in &mut self.vars[v.0 as usize].elems {
            u.usage = u.weight / penalty;
            self.cons[u.cons.0 as usize].elems[u.pos as usize].usage = u.usage;
        }
        let enabled = penalty > 0.0;
        if was_enabled != enabled {
            for k in 0..self.vars[v.0 as usize].elems.len() {
                let Use { cons: c, pos, .. } = self.vars[v.0 as usize].elems[k];
                if enabled {
                    let first_disabled = self.cons[c.0 as usize].enabled;
                    self.swap_elems(c, pos, first_disabled);
                    self.cons[c.0 as usize].enabled += 1;
                } else {
                    let last_enabled = self.cons[c.0 as usize].enabled - 1;
                    self.swap_elems(c, pos, last_enabled);
                    self.cons[c.0 as usize].enabled -= 1;
                    // Its share goes back to the others.
                    self.dirty_cons.push(c);
                }
            }
        }
        self.dirty_vars.push(v);
    }

    /// Changes a variable's bound (`f64::INFINITY` for none).
    pub fn set_bound(&mut self, v: VariableId, bound: f64) {
        self.vars[v.0 as usize].bound = bound;
        self.dirty_vars.push(v);
    }

    /// The variable's bound.
    pub fn bound(&self, v: VariableId) -> f64 {
        self.vars[v.0 as usize].bound
    }

    /// Removes a variable; its constraints are re-solved at the next [`MaxMinSystem::solve`].
    pub fn remove_variable(&mut self, v: VariableId) {
        let enabled = self.vars[v.0 as usize].penalty > 0.0;
        for k in 0..self.vars[v.0 as usize].elems.len() {
            let Use { cons: c, mut pos, .. } = self.vars[v.0 as usize].elems[k];
            if enabled {
                // Move it to the end of the enabled part first, so the split stays intact.
                let last_enabled = self.cons[c.0 as usize].enabled - 1;
                self.swap_elems(c, pos, last_enabled);
                self.cons[c.0 as usize].enabled -= 1;
                pos = last_enabled;
                // Nobody left on it: no share to hand back, nothing to re-solve.
                if last_enabled > 0 {
                    self.dirty_cons.push(c);
                }
            }
            let cons = &mut self.cons[c.0 as usize];
            cons.elems.swap_remove(pos as usize);
            if let Some(moved) = cons.elems.get(pos as usize) {
                self.vars[moved.var.0 as usize].elems[moved.var_pos as usize].pos = pos;
            }
        }
        let elems = std::mem::take(&mut self.vars[v.0 as usize].elems);
        let var = &mut self.vars[v.0 as usize];
        var.elems = elems;
        var.elems.clear();
        var.alive = false;
        var.value = 0.0;
        self.free_vars.push(v.0);
    }

    /// The value computed by the last solve.
    pub fn value(&self, v: VariableId) -> f64 {
        self.vars[v.0 as usize].value
    }

    /// The variables currently using a constraint.
    pub fn variables_of(&self, c: ConstraintId) -> impl Iterator<Item = VariableId> + '_ {
        self.cons[c.0 as usize].elems.iter().map(|e| e.var)
    }

    /// The work counters of every solve so far.
    pub fn stats(&self) -> SolverStats {
        self.stats
    }

    /// True when some change waits for a solve.
    pub fn needs_solve(&self) -> bool {
        !self.dirty_cons.is_empty() || !self.dirty_vars.is_empty()
    }

    /// Re-solves every component touched since the last solve and appends to `changed` each
    /// variable whose value changed (in a deterministic order).
    ///
    /// Components are filled one at a time: a round costs the component's size, not the size of
    /// everything touched at this date (a thousand single-exec hosts finishing together are a
    /// thousand one-variable fills, not one fill with a round per distinct level).
    pub fn solve(&mut self, changed: &mut Vec<VariableId>) {
        if !self.needs_solve() {
            return;
        }
        self.stamp += 1;
        self.stats.solves += 1;
        let stamp = self.stamp;
        let dirty_cons = std::mem::take(&mut self.dirty_cons);
        let dirty_vars = std::mem::take(&mut self.dirty_vars);
        for &c in &dirty_cons {
            if self.cons_stamp[c.0 as usize] == stamp {
                continue; // in a component filled already (a new variable marks all its constraints)
            }
            self.visit_constraint(c, stamp);
            self.fill_component(changed);
        }
        for &v in &dirty_vars {
            let var = &self.vars[v.0 as usize];
            if !var.alive || self.var_stamp[v.0 as usize] == stamp {
                continue;
            }
            if var.penalty > 0.0 && !var.elems.is_empty() {
                let c = var.elems[0].cons;
                self.visit_constraint(c, stamp);
            } else {
                self.var_stamp[v.0 as usize] = stamp;
                self.comp_vars.push(v);
            }
            self.fill_component(changed);
        }
        self.dirty_cons = dirty_cons;
        self.dirty_cons.clear();
        self.dirty_vars = dirty_vars;
        self.dirty_vars.clear();
    }

    /// Fills the component just collected (if it has variables) and empties the work lists.
    fn fill_component(&mut self, changed: &mut Vec<VariableId>) {
        if !self.comp_vars.is_empty() {
            self.stats.components += 1;
            self.fill(changed);
        }
        self.comp_cons.clear();
        self.comp_vars.clear();
    }

    /// Adds the connected component of `start` to the work lists (breadth-first), unless this
    /// solve has visited it already.
    fn visit_constraint(&mut self, start: ConstraintId, stamp: u64) {
        if self.cons_stamp[start.0 as usize] == stamp {
            return;
        }
        self.cons_stamp[start.0 as usize] = stamp;
        let first = self.comp_cons.len();
        self.comp_cons.push(start);
        let mut next = first;
        while next < self.comp_cons.len() {
            let c = self.comp_cons[next];
            next += 1;
            let cons = &mut self.cons[c.0 as usize];
            self.stats.elements_scanned += u64::from(cons.enabled);
            // The filling's starting state of this constraint is summed here, in the pass that
            // reads its list anyway: every enabled element's variable is unfixed at the start (its
            // penalty is positive), and the element carries the weight and the usage. The sum
            // runs in list order, as a separate pass would.
            let (mut usage, mut unfixed) = (0.0, 0u32);
            // Enabled elements only: their variables have a positive penalty and link their
            // constraints into one component.
            for e in &cons.elems[..cons.enabled as usize] {
                if e.weight > 0.0 {
                    unfixed += 1;
                    usage = cons.sharing.combine(usage, e.usage);
                }
                let v = e.var;
                if self.var_stamp[v.0 as usize] == stamp {
                    continue;
                }
                self.var_stamp[v.0 as usize] = stamp;
                self.comp_vars.push(v);
                for u in &self.vars[v.0 as usize].elems {
                    if self.cons_stamp[u.cons.0 as usize] != stamp {
                        self.cons_stamp[u.cons.0 as usize] = stamp;
                        self.comp_cons.push(u.cons);
                    }
                }
            }
            cons.remaining = cons.capacity;
            cons.usage = usage;
            cons.unfixed = unfixed;
        }
    }

    /// Progressive filling over the collected component.
    fn fill(&mut self, changed: &mut Vec<VariableId>) {
        match self.comp_vars[..] {
            [v] => {
                self.stats.lone_components += 1;
                self.fill_alone(v, changed)
            }
            _ => self.fill_rounds(changed),
        }
    }

    /// The general progressive filling, round by round.
    fn fill_rounds(&mut self, changed: &mut Vec<VariableId>) {
        let mut to_fix = std::mem::take(&mut self.to_fix);
        let mut olds = std::mem::take(&mut self.old_values);
        olds.clear();
        olds.extend(self.comp_vars.iter().map(|v| self.vars[v.0 as usize].value));
        let mut unfixed = 0usize;
        for &v in &self.comp_vars {
            let var = &mut self.vars[v.0 as usize];
            var.fixed = var.penalty <= 0.0;
            if var.fixed {
                var.value = 0.0;
            } else {
                unfixed += 1;
            }
        }
        // The constraints' remaining capacity, usage and unfixed count were set by the component
        // search (`visit_constraint`).
        while unfixed > 0 {
            self.stats.rounds += 1;
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
                break;
            }
            let threshold = level * (1.0 + LEVEL_TOLERANCE);
            to_fix.clear();
            // Variables stopped by their bound.
            for &v in &self.comp_vars {
                let var = &self.vars[v.0 as usize];
                if !var.fixed && var.bound * var.penalty <= threshold {
                    to_fix.push(v);
                }
            }
            // Variables on saturated constraints.
            for &c in &self.comp_cons {
                let cons = &self.cons[c.0 as usize];
                if cons.unfixed > 0 && cons.usage > 0.0 && cons.remaining.max(0.0) / cons.usage <= threshold {
                    // On a FATPIPE only the variables with the largest weight/penalty saturate it;
                    // on a SHARED constraint every user does.
                    let least = match cons.sharing {
                        Sharing::Shared => 0.0,
                        Sharing::Fatpipe => cons.usage * (1.0 - LEVEL_TOLERANCE),
                    };
                    for e in &cons.elems[..cons.enabled as usize] {
                        if e.weight > 0.0 && e.usage >= least && !self.vars[e.var.0 as usize].fixed {
                            to_fix.push(e.var);
                        }
                    }
                }
            }
            // Fix this round's variables first; the constraints' remaining capacity and usage
            // only matter for a next round, which there is none of when every variable is fixed
            // (the common case: one bottleneck for the whole component).
            let mut k = 0;
            for i in 0..to_fix.len() {
                let var = &mut self.vars[to_fix[i].0 as usize];
                if var.fixed {
                    continue; // listed twice
                }
                var.fixed = true;
                var.value = (level / var.penalty).min(var.bound);
                unfixed -= 1;
                to_fix[k] = to_fix[i];
                k += 1;
            }
            to_fix.truncate(k);
            if unfixed == 0 {
                break;
            }
            for &v in &to_fix {
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
        for (i, &v) in self.comp_vars.iter().enumerate() {
            let var = &self.vars[v.0 as usize];
            if var.alive && var.value != olds[i] {
                changed.push(v);
            }
        }
        self.to_fix = to_fix;
        self.old_values = olds;
    }
}

impl MaxMinSystem {
    /// [`MaxMinSystem::fill`] when a single variable is to be solved (a message or an exec alone
    /// on its resources, the common case in master/worker runs): the filling takes one round,
    /// whose level is the smallest of the variable's constraint levels and its bound level. The
    /// expressions are those of the general loop, so the value is bit-identical.
    fn fill_alone(&mut self, v: VariableId, changed: &mut Vec<VariableId>) {
        let var = &self.vars[v.0 as usize];
        let old = var.value;
        let value = if var.penalty <= 0.0 {
            0.0
        } else {
            let mut level = var.bound * var.penalty;
            for &Use {
                cons: c,
                weight: w,
                usage,
                ..
            } in &var.elems
            {
                let cons = &self.cons[c.0 as usize];
                if w > 0.0 {
                    // Usage starts at 0 and this is its only unfixed user (max(0, u) = 0 + u:
                    // `usage` is positive, so adding it to 0 gives it back bit for bit).
                    level = level.min(cons.capacity.max(0.0) / usage);
                }
            }
            if level.is_infinite() {
                f64::INFINITY
            } else {
                (level / var.penalty).min(var.bound)
            }
        };
        let var = &mut self.vars[v.0 as usize];
        var.value = value;
        if var.alive && value != old {
            changed.push(v);
        }
    }
}

#[cfg(test)]
#[path = "maxmin_tests.rs"]
mod tests;

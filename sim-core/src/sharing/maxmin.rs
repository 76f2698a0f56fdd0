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
    /// Every enabled user's component (`Variable::component`) is this, unless it is
    /// [`NO_CONSTRAINT`] (see [`summary`]).
    component: u32,
    /// Its [`Summary`] holds its usage total (in the padding of this line, so that a flow's
    /// arrival or departure reads the summary only where one is kept).
    summarized: bool,
    // Scratch space for one solve.
    remaining: f64,
    usage: f64,
    unfixed: u32,
}

// The fills read one cache line per constraint.
const _: () = assert!(std::mem::size_of::<Constraint>() <= 64);

impl Constraint {
    /// Its enabled users' usage total, summed in list order as the component search sums it
    /// (the sum a [`Summary`] must equal to the bit while it says it is exact).
    fn listed_usage(&self) -> f64 {
        self.elems[..self.enabled as usize]
            .iter()
            .filter(|e| e.weight > 0.0)
            .fold(0.0, |sum, e| self.sharing.combine(sum, e.usage))
    }
}

#[derive(Clone, Debug)]
struct Variable {
    penalty: f64,
    bound: f64,
    /// The constraints it uses.
    elems: Vec<Use>,
    value: f64,
    alive: bool,
    /// Added since the last solve (its constraints may still be expanded).
    fresh: bool,
    /// Its penalty changed since the last solve: reported on its own even if it stays on its
    /// clock, since its share of the clock's level (`1 / penalty`) moved.
    rekey: bool,
    /// The constraint whose level sets its value (`value = level / penalty`), when the last
    /// solve found one and the mode is [`SharingMode::Fast`] and it shares it with others:
    /// the bottleneck clock it progresses on. [`NO_CONSTRAINT`] otherwise.
    clock: u32,
    /// The bottleneck of its component when the whole component is fixed by one constraint
    /// (see [`ClockInfo::single`]); [`NO_CONSTRAINT`] otherwise.
    component: u32,
    // Scratch space for one solve.
    fixed: bool,
    /// The constraint that fixed it in this solve ([`NO_CONSTRAINT`]: its bound or penalty).
    fixed_by: u32,
    /// The key its list of uses was given under ([`MaxMinSystem::add_variable_keyed`]), whose
    /// [`LoneScan`] it may reuse; [`NO_KEY`] for none, or once the list was expanded.
    key: u32,
}

/// No key: a variable whose list of uses is its own (see [`MaxMinSystem::add_variable_keyed`]).
const NO_KEY: u32 = u32::MAX;

/// What [`MaxMinSystem::fill_alone`] found the last time it scanned a key's list of uses: the
/// smallest constraint level, the first constraint that has it, and the next smallest. They
/// depend only on the list (fixed per key), the capacities and the penalty (which sets each
/// use's usage, `weight / penalty`), so they hold while no capacity changed and the penalty is
/// the same to the bit; reusing them gives the scan's values exactly.
#[derive(Clone, Copy, Debug)]
struct LoneScan {
    /// [`MaxMinSystem::capacity_epoch`] when scanned; `u64::MAX` before the first scan.
    capacity_epoch: u64,
    /// Bits of the penalty the usages were computed with.
    penalty_bits: u64,
    best: f64,
    best_c: u32,
    next: f64,
}

impl Default for LoneScan {
    fn default() -> Self {
        LoneScan {
            capacity_epoch: u64::MAX,
            penalty_bits: 0,
            best: f64::INFINITY,
            best_c: NO_CONSTRAINT,
            next: f64::INFINITY,
        }
    }
}

/// No constraint (a variable on no bottleneck clock, or not in a one-bottleneck component).
pub const NO_CONSTRAINT: u32 = u32::MAX;

/// Fewest variables a constraint must fix for them to share its clock (and for a change of its
/// component to take the incremental path). A clock replaces one completion event per member by
/// one per clock, which pays once a level change would move many flows; below that, flows keep
/// their own rates and small components are refilled, whose arithmetic and order of reported
/// changes are the exact mode's (SimGrid's) to the bit. So lightly contended runs, where a
/// simulation that turns ties and near-ties into decisions (work stealing) would amplify a
/// last-digit difference, give the same results in both modes: a Grid-GUM PE's threads sharing
/// its core number 8 to 15, so with 16 the bundled Grid-GUM experiments give the exact mode's
/// results, which with 8 they do not. The contended grid90 runs, whose bottleneck carries some
/// 50 flows, are as fast with 16 as with 8 or 32.
pub const CLOCK_MIN_MEMBERS: u32 = 16;

/// How the solver re-solves after a change, and whether it reports bottleneck clocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SharingMode {
    /// Flows on one bottleneck share its clock, and a flow joining or leaving a component that
    /// one constraint fixes entirely is handled without refilling the component (see
    /// [`super::incremental`]). Values equal [`SharingMode::Exact`]'s; only the engine's
    /// progress arithmetic differs.
    #[default]
    Fast,
    /// Every change refills its whole component in SimGrid's order and every variable whose
    /// value changed is reported on its own: the reference.
    Exact,
}

/// Bottleneck bookkeeping of a constraint, kept apart from [`Constraint`] so that the solve's
/// hot loops read one cache line per constraint.
#[derive(Clone, Copy, Debug)]
struct ClockInfo {
    /// The level at which it last fixed variables (their values are `level / penalty`).
    level: f64,
    /// True when, at the last solve of its component, this constraint alone fixed every
    /// variable of the component in one round, and every variable of the component uses it.
    single: bool,
    /// When `single`: a lower bound of every other level of the component (the other
    /// constraints' `capacity / usage` and the variables' `bound × penalty`). A flow leaving
    /// only raises those, so the bound stays true; a flow joining lowers its own constraints'
    /// levels, which the join recomputes.
    second: f64,
    /// Last solve that reported this clock (one report per solve).
    reported: u64,
    /// Scratch of one fill: how many variables this constraint fixed.
    fixes: u32,
    /// When `single`: every enabled user progresses on this clock (its `clock` is this
    /// constraint), as the last solve of the component left them. Their values are then all
    /// `level / penalty`, read through [`MaxMinSystem::value`]: a solve that only moves the
    /// level need not visit them (see [`super::incremental`]).
    all_on_clock: bool,
}

impl Default for ClockInfo {
    fn default() -> Self {
        ClockInfo {
            level: 0.0,
            single: false,
            second: 0.0,
            reported: 0,
            fixes: 0,
            all_on_clock: false,
        }
    }
}

/// What a solve changed, for the engine: variables to reschedule one by one, and bottleneck
/// clocks whose level changed (every variable still on such a clock changed value with it).
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Variables whose value changed, or which joined or left a clock: each needs its own
    /// attention.
    pub vars: Vec<VariableId>,
    /// Constraints whose clock level changed; their continuing members are not in `vars`.
    pub clocks: Vec<ConstraintId>,
}

impl Changes {
    /// Empties both lists.
    pub fn clear(&mut self) {
        self.vars.clear();
        self.clocks.clear();
    }
}

/// A change since the last solve that the incremental solve can handle.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// A new variable.
    Join(VariableId),
    /// A variable of a one-bottleneck component, on this bottleneck, was removed.
    Leave(ConstraintId),
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
    /// Solves handled by the incremental path (a flow joining or leaving a one-bottleneck
    /// component), without a component search or a fill.
    pub incremental: u64,
    /// Flows alone on their links whose levels came from their route's last scan (see
    /// [`MaxMinSystem::add_variable_keyed`]) instead of a division per link.
    pub lone_scans_reused: u64,
    /// Bottlenecks of incremental solves whose level moved with every earlier variable on it
    /// staying on its clock: nothing but a new variable was visited.
    pub level_only_applies: u64,
}

/// A max-min system. See the module docs for the model.
#[derive(Clone, Debug, Default)]
pub struct MaxMinSystem {
    mode: SharingMode,
    cons: Vec<Constraint>,
    clock_info: Vec<ClockInfo>,
    /// The summarized constraints' usage totals, for the incremental path's checks (by
    /// constraint, up to the last one summarized so far).
    summaries: Vec<Summary>,
    vars: Vec<Variable>,
    free_vars: Vec<u32>,
    dirty_cons: Vec<ConstraintId>,
    dirty_vars: Vec<VariableId>,
    stamp: u64,
    /// Last solve that visited each constraint / variable (kept apart from the structs so the
    /// component search touches a few dense cache lines).
    cons_stamp: Vec<u64>,
    var_stamp: Vec<u64>,
    /// By constraint: where [`MaxMinSystem::merge_uses_into`] last appended it.
    merge_slot: Vec<usize>,
    // Reused buffers (no allocation per solve once warm).
    comp_cons: Vec<ConstraintId>,
    comp_vars: Vec<VariableId>,
    /// Variables fixed in a round, with the constraint that fixed them.
    to_fix: Vec<(VariableId, u32)>,
    /// Value and clock of each component variable before the fill.
    old_values: Vec<(f64, u32)>,
    stats: SolverStats,
    /// Changes since the last solve, for the incremental path.
    ops: Vec<Op>,
    /// False once a change the incremental path cannot handle happened since the last solve.
    ops_incremental: bool,
    /// Reused by the incremental path: the bottlenecks a solve touches.
    groups: Vec<incremental::Group>,
    /// Reused by the incremental path: the indices in `ops` of the joins of new variables alone
    /// on all their constraints.
    lone: Vec<usize>,
    /// Reused by [`MaxMinSystem::solve`].
    scratch: Changes,
    /// Changes of any constraint's capacity so far: a [`LoneScan`] made before the last one is
    /// stale.
    capacity_epoch: u64,
    /// The last scan of each key's list of uses by [`MaxMinSystem::fill_alone`], by key.
    lone_scans: Vec<LoneScan>,
}

/// Relative tolerance for "this constraint saturates at the current level": levels equal up to
/// rounding are treated as one, so symmetric flows get bit-identical values.
const LEVEL_TOLERANCE: f64 = 1e-12;

impl MaxMinSystem {
    /// An empty system, in [`SharingMode::Fast`].
    pub fn new() -> Self {
        Self::with_mode(SharingMode::Fast)
    }

    /// An empty system in the given mode.
    pub fn with_mode(mode: SharingMode) -> Self {
        MaxMinSystem {
            mode,
            // Nothing has happened yet that the incremental path could not handle.
            ops_incremental: true,
            ..Self::default()
        }
    }

    /// The mode it solves in.
    pub fn mode(&self) -> SharingMode {
        self.mode
    }

    /// Adds a resource of the given capacity.
    pub fn add_constraint(&mut self, capacity: f64, sharing: Sharing) -> ConstraintId {
        let id = ConstraintId(self.cons.len() as u32);
        self.cons.push(Constraint {
            capacity,
            sharing,
            elems: Vec::new(),
            enabled: 0,
            component: NO_CONSTRAINT,
            summarized: false,
            remaining: 0.0,
            usage: 0.0,
            unfixed: 0,
        });
        self.cons_stamp.push(0);
        self.merge_slot.push(0);
        self.clock_info.push(ClockInfo::default());
        id
    }

    /// Changes a resource's capacity (e.g. a speed profile event).
    pub fn set_capacity(&mut self, c: ConstraintId, capacity: f64) {
        self.cons[c.0 as usize].capacity = capacity;
        self.capacity_epoch += 1;
        self.dirty_cons.push(c);
        self.ops_incremental = false;
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
            fresh: true,
            rekey: false,
            clock: NO_CONSTRAINT,
            component: NO_CONSTRAINT,
            fixed: false,
            fixed_by: NO_CONSTRAINT,
            key: NO_KEY,
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
        if penalty > 0.0 {
            self.ops.push(Op::Join(id));
        } else {
            self.ops_incremental = false;
        }
        id
    }

    /// Makes `v` consume `weight` per unit of value on `c`. Expanding twice on the same
    /// constraint combines the weights as the constraint combines usages: they add up on a
    /// SHARED constraint (a link on both the route and the reverse route: 1.05) and the larger
    /// one is kept on a FATPIPE (SimGrid's `expand_add`).
    pub fn expand(&mut self, v: VariableId, c: ConstraintId, weight: f64) {
        let var = &mut self.vars[v.0 as usize];
        if !var.fresh {
            self.ops_incremental = false;
        }
        // Its list is its own from now on.
        var.key = NO_KEY;
        if let Some(u) = var.elems.iter_mut().find(|u| u.cons == c) {
            let cons = &mut self.cons[c.0 as usize];
            u.weight = cons.sharing.combine(u.weight, weight);
            u.usage = u.weight / var.penalty;
            let elem = &mut cons.elems[u.pos as usize];
            elem.weight = u.weight;
            elem.usage = u.usage;
            cons.summarized = false;
        } else {
            self.attach(v, c, weight);
        }
        if self.vars[v.0 as usize].penalty > 0.0 {
            self.dirty_cons.push(c);
        }
    }

    /// Combines a list of (constraint, weight) uses as successive [`MaxMinSystem::expand`] calls
    /// would, into one entry per constraint (first-use order), for
    /// [`MaxMinSystem::add_variable_with`], appended to `merged` (what it held before is left
    /// alone and not searched). Callers that start many variables on the same resources (a
    /// cached network route) merge once and reuse the result.
    pub fn merge_uses_into(
        &mut self,
        uses: impl IntoIterator<Item = (ConstraintId, f64)>,
        merged: &mut Vec<(ConstraintId, f64)>,
    ) {
        let uses = uses.into_iter();
        let start = merged.len();
        merged.reserve(uses.size_hint().0);
        for (c, weight) in uses {
            // Linear in the uses, not quadratic (about 22 on grid90: 11 links each way):
            // `merge_slot` remembers where each constraint went. A slot is never cleared; it is
            // this merge's when it points into what this merge appended and that entry names `c`
            // (every entry appended here set its constraint's slot).
            let slot = &mut self.merge_slot[c.0 as usize];
            match merged.get_mut(*slot).filter(|(cc, _)| *slot >= start && *cc == c) {
                Some((_, current)) => *current = self.cons[c.0 as usize].sharing.combine(*current, weight),
                None => {
                    *slot = merged.len();
                    merged.push((c, weight));
                }
            }
        }
    }

    /// Adds a variable already attached to constraints: the same system as
    /// [`MaxMinSystem::add_variable`] followed by one [`MaxMinSystem::expand`] per use, without
    /// searching for repeated constraints. `uses` must name each constraint once (see
    /// [`MaxMinSystem::merge_uses_into`]).
    pub fn add_variable_with(&mut self, penalty: f64, bound: f64, uses: &[(ConstraintId, f64)]) -> VariableId {
        let v = self.add_variable(penalty, bound);
        // One allocation for a new slot's list, not one per doubling (a run's first comms).
        self.vars[v.0 as usize].elems.reserve(uses.len());
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

    /// [`MaxMinSystem::add_variable_with`] for a list of uses that many variables share (a
    /// network route's), named by `key`: every variable added under one key must be given the
    /// same `uses`. When such a variable is alone on its constraints, the solve reuses the last
    /// scan of the list under its key while no capacity changed and the penalty is the same (a
    /// comm alone on a 10–17-link route otherwise divides every link's capacity again). Keys
    /// index a table: keep them dense (the engine passes its route cache's indices).
    pub fn add_variable_keyed(
        &mut self,
        penalty: f64,
        bound: f64,
        uses: &[(ConstraintId, f64)],
        key: u32,
    ) -> VariableId {
        let v = self.add_variable_with(penalty, bound, uses);
        if key != NO_KEY {
            self.vars[v.0 as usize].key = key;
            if self.lone_scans.len() <= key as usize {
                self.lone_scans.resize(key as usize + 1, LoneScan::default());
            }
        }
        v
    }

    /// Appends a new element (v uses c), keeping the enabled elements first: an enabled
    /// element takes the place of the first disabled one, which moves to the end (the order a
    /// push and a swap give, written out: this runs a dozen times per comm, inlined into the
    /// loop over a route's uses).
    #[inline(always)]
    fn attach(&mut self, v: VariableId, c: ConstraintId, weight: f64) {
        let cons = &mut self.cons[c.0 as usize];
        let var = &self.vars[v.0 as usize];
        let usage = weight / var.penalty;
        let elem = Elem {
            var: v,
            var_pos: var.elems.len() as u32,
            weight,
            usage,
        };
        let end = cons.elems.len() as u32;
        let pos = if var.penalty > 0.0 {
            if cons.summarized && weight > 0.0 {
                self.summaries[c.0 as usize].add(usage);
            }
            let first_disabled = cons.enabled;
            cons.enabled += 1;
            if first_disabled < end {
                let moved = cons.elems[first_disabled as usize];
                cons.elems[first_disabled as usize] = elem;
                cons.elems.push(moved);
                self.vars[moved.var.0 as usize].elems[moved.var_pos as usize].pos = end;
            } else {
                cons.elems.push(elem);
            }
            first_disabled
        } else {
            cons.elems.push(elem);
            end
        };
        self.vars[v.0 as usize].elems.push(Use {
            cons: c,
            pos,
            weight,
            usage,
        });
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
        self.ops_incremental = false;
        self.vars[v.0 as usize].rekey = true;
        let was_enabled = self.vars[v.0 as usize].penalty > 0.0;
        self.vars[v.0 as usize].penalty = penalty;
        for u in &mut self.vars[v.0 as usize].elems {
            u.usage = u.weight / penalty;
            self.cons[u.cons.0 as usize].elems[u.pos as usize].usage = u.usage;
            self.cons[u.cons.0 as usize].summarized = false;
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
                    if last_enabled <= 1 {
                        self.cons[c.0 as usize].component = NO_CONSTRAINT;
                    }
                    // Its share goes back to the others.
                    self.dirty_cons.push(c);
                }
            }
        }
        self.dirty_vars.push(v);
    }

    /// Panics unless every element and its variable's entry point at each other, every
    /// constraint lists its enabled users first (what `attach`, `remove_variable` and
    /// `set_penalty` keep while they move elements), every clock that claims all its users has
    /// them and every constraint's [`Summary`] keeps its promises (checked by the randomized tests).
    #[cfg(test)]
    pub(crate) fn assert_lists_consistent(&self) {
        for (c, cons) in self.cons.iter().enumerate() {
            for (i, e) in cons.elems.iter().enumerate() {
                let var = &self.vars[e.var.0 as usize];
                let u = &var.elems[e.var_pos as usize];
                assert_eq!(
                    (u.cons.0 as usize, u.pos as usize),
                    (c, i),
                    "element {i} of constraint {c}"
                );
                assert_eq!(i < cons.enabled as usize, var.penalty > 0.0, "split of constraint {c}");
            }
        }
        for (v, var) in self.vars.iter().enumerate() {
            for (k, u) in var.elems.iter().enumerate() {
                let e = &self.cons[u.cons.0 as usize].elems[u.pos as usize];
                assert_eq!(
                    (e.var.0 as usize, e.var_pos as usize),
                    (v, k),
                    "use {k} of variable {v}"
                );
            }
        }
        for var in self.vars.iter().filter(|var| var.clock != NO_CONSTRAINT) {
            assert!(var.alive, "a dead variable on clock {}", var.clock);
        }
        // The state the incremental path trusts: a one-bottleneck component all on its clock.
        for (c, info) in self.clock_info.iter().enumerate() {
            let users = &self.cons[c].elems[..self.cons[c].enabled as usize];
            let component = users.iter().all(|e| self.vars[e.var.0 as usize].component == c as u32);
            if info.single && info.all_on_clock && component {
                for e in users {
                    assert_eq!(self.vars[e.var.0 as usize].clock, c as u32, "a user of clock {c}");
                }
            }
        }
        for (c, cons) in self.cons.iter().enumerate() {
            Summary::assert_holds(self.summaries.get(c), c, cons, &self.vars);
        }
    }

    /// Changes a variable's bound (`f64::INFINITY` for none).
    pub fn set_bound(&mut self, v: VariableId, bound: f64) {
        self.vars[v.0 as usize].bound = bound;
        self.dirty_vars.push(v);
        self.ops_incremental = false;
    }

    /// The variable's bound.
    pub fn bound(&self, v: VariableId) -> f64 {
        self.vars[v.0 as usize].bound
    }

    /// Removes a variable; its constraints are re-solved at the next [`MaxMinSystem::solve`].
    pub fn remove_variable(&mut self, v: VariableId) {
        self.note_leave(v);
        // v's own list is taken out while its elements leave: the moves below only ever touch
        // other variables' entries (v uses each constraint once).
        let uses = std::mem::take(&mut self.vars[v.0 as usize].elems);
        let enabled = self.vars[v.0 as usize].penalty > 0.0;
        for u in &uses {
            let c = u.cons;
            let cons = &mut self.cons[c.0 as usize];
            let mut pos = u.pos;
            if enabled {
                // The last enabled element takes v's place, so the split stays intact (the order
                // a swap gives: the removal below drops v's now-vacant slot at `last_enabled`).
                let last_enabled = cons.enabled - 1;
                cons.enabled = last_enabled;
                if cons.summarized {
                    if last_enabled < SUMMARY_MIN_USERS {
                        cons.summarized = false;
                    } else if u.weight > 0.0 {
                        self.summaries[c.0 as usize].remove(u.usage);
                    }
                }
                if pos != last_enabled {
                    let moved = cons.elems[last_enabled as usize];
                    cons.elems[pos as usize] = moved;
                    self.vars[moved.var.0 as usize].elems[moved.var_pos as usize].pos = pos;
                    pos = last_enabled;
                }
                // Nobody left on it: no share to hand back, nothing to re-solve.
                if last_enabled > 0 {
                    self.dirty_cons.push(c);
                }
                // One user or none: no component to promise (the one left may be a new flow
                // about to start alone, see `summary`).
                if last_enabled <= 1 {
                    cons.component = NO_CONSTRAINT;
                }
            }
            cons.elems.swap_remove(pos as usize);
            if let Some(moved) = cons.elems.get(pos as usize) {
                self.vars[moved.var.0 as usize].elems[moved.var_pos as usize].pos = pos;
            }
        }
        let var = &mut self.vars[v.0 as usize];
        var.elems = uses;
        var.elems.clear();
        var.alive = false;
        var.value = 0.0;
        var.clock = NO_CONSTRAINT;
        var.component = NO_CONSTRAINT;
        self.free_vars.push(v.0);
    }

    /// The value computed by the last solve.
    pub fn value(&self, v: VariableId) -> f64 {
        let var = &self.vars[v.0 as usize];
        // A clock's members hold the value of the solve that put them there; the clock's level
        // has the latest (the value is `level / penalty` exactly, as the solve that set the
        // clock checked).
        match var.clock {
            NO_CONSTRAINT => var.value,
            c => self.clock_info[c as usize].level / var.penalty,
        }
    }

    /// Where `v` stands in `c`'s list of users (the order the component search visits them in),
    /// `u32::MAX` if it does not use `c`.
    pub fn position(&self, v: VariableId, c: ConstraintId) -> u32 {
        self.vars[v.0 as usize]
            .elems
            .iter()
            .find(|u| u.cons == c)
            .map_or(u32::MAX, |u| u.pos)
    }

    /// A constraint's usage as of the last solve: the sum over its users of their weight on it
    /// times their value, the largest such product on a FATPIPE constraint (SimGrid's
    /// `Constraint::get_usage`, which the link energy plugin reads).
    pub fn usage(&self, c: ConstraintId) -> f64 {
        let cons = &self.cons[c.0 as usize];
        let mut total = 0.0;
        for e in &cons.elems {
            if e.weight > 0.0 {
                total = cons.sharing.combine(total, e.weight * self.value(e.var));
            }
        }
        total
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
    /// variable whose value changed (in a deterministic order), whether it changed on its own or
    /// with its bottleneck clock.
    pub fn solve(&mut self, changed: &mut Vec<VariableId>) {
        let mut changes = std::mem::take(&mut self.scratch);
        changes.clear();
        self.solve_grouped(&mut changes);
        changed.extend_from_slice(&changes.vars);
        for &c in &changes.clocks {
            for e in &self.cons[c.0 as usize].elems[..self.cons[c.0 as usize].enabled as usize] {
                if self.vars[e.var.0 as usize].clock == c.0 && !changes.vars.contains(&e.var) {
                    changed.push(e.var);
                }
            }
        }
        self.scratch = changes;
    }

    /// Re-solves every component touched since the last solve and reports what changed, by
    /// variable and by bottleneck clock (see [`Changes`]; in [`SharingMode::Exact`] every
    /// change is a variable's).
    ///
    /// Components are filled one at a time: a round costs the component's size, not the size of
    /// everything touched at this date (a thousand single-exec hosts finishing together are a
    /// thousand one-variable fills, not one fill with a round per distinct level).
    pub fn solve_grouped(&mut self, changes: &mut Changes) {
        if !self.needs_solve() {
            return;
        }
        self.stamp += 1;
        self.stats.solves += 1;
        if self.mode == SharingMode::Fast && self.ops_incremental && self.solve_incrementally(changes) {
            self.stats.incremental += 1;
            self.dirty_cons.clear();
            self.dirty_vars.clear();
            self.end_of_solve();
            return;
        }
        let stamp = self.stamp;
        let dirty_cons = std::mem::take(&mut self.dirty_cons);
        let dirty_vars = std::mem::take(&mut self.dirty_vars);
        for &c in &dirty_cons {
            if self.cons_stamp[c.0 as usize] == stamp {
                continue; // in a component filled already (a new variable marks all its constraints)
            }
            self.visit_constraint(c, stamp);
            self.fill_component(changes);
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
            self.fill_component(changes);
        }
        self.dirty_cons = dirty_cons;
        self.dirty_cons.clear();
        self.dirty_vars = dirty_vars;
        self.dirty_vars.clear();
        self.end_of_solve();
    }

    /// Forgets the changes just handled: new variables are settled in.
    fn end_of_solve(&mut self) {
        for op in &self.ops {
            if let Op::Join(v) = *op {
                self.vars[v.0 as usize].fresh = false;
            }
        }
        self.ops.clear();
        self.ops_incremental = true;
    }

    /// The bottleneck clock `v` progresses on after the last solve: its value is
    /// [`MaxMinSystem::level`] of that constraint divided by its penalty. `None` for a variable
    /// fixed by its bound, alone on its resources, or in [`SharingMode::Exact`].
    pub fn clock_of(&self, v: VariableId) -> Option<ConstraintId> {
        let c = self.vars[v.0 as usize].clock;
        (c != NO_CONSTRAINT).then_some(ConstraintId(c))
    }

    /// The level at which `c` last fixed variables (its clock's speed).
    pub fn level(&self, c: ConstraintId) -> f64 {
        self.clock_info[c.0 as usize].level
    }

    /// A variable's sharing penalty.
    pub fn penalty(&self, v: VariableId) -> f64 {
        self.vars[v.0 as usize].penalty
    }

    /// Records a removed variable's effect for the incremental path (before its elements go).
    fn note_leave(&mut self, v: VariableId) {
        let var = &self.vars[v.0 as usize];
        let star = var.component;
        if var.fresh || var.penalty <= 0.0 || star == NO_CONSTRAINT || !self.clock_info[star as usize].single {
            self.ops_incremental = false;
        } else if self.cons[star as usize].enabled > 1 {
            self.ops.push(Op::Leave(ConstraintId(star)));
        }
    }

    /// Reports a variable whose value or clock the solve set: as a clock's level change when it
    /// stays on the same clock, else on its own.
    fn report(&mut self, v: VariableId, old_value: f64, old_clock: u32, changes: &mut Changes) {
        let var = &mut self.vars[v.0 as usize];
        if var.rekey && var.alive {
            var.rekey = false;
            changes.vars.push(v);
            return;
        }
        if !var.alive || (var.value == old_value && var.clock == old_clock) {
            return;
        }
        if var.clock != NO_CONSTRAINT && var.clock == old_clock {
            let info = &mut self.clock_info[var.clock as usize];
            if info.reported != self.stamp {
                info.reported = self.stamp;
                changes.clocks.push(ConstraintId(var.clock));
            }
        } else {
            changes.vars.push(v);
        }
    }

    /// Fills the component just collected (if it has variables) and empties the work lists.
    fn fill_component(&mut self, changes: &mut Changes) {
        if !self.comp_vars.is_empty() {
            self.stats.components += 1;
            self.fill(changes);
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
            if cons.summarized {
                self.summaries[c.0 as usize].set_scanned(usage, cons.enabled);
            }
        }
    }

    /// Progressive filling over the collected component.
    fn fill(&mut self, changes: &mut Changes) {
        match self.comp_vars[..] {
            [v] => {
                self.stats.lone_components += 1;
                self.fill_alone(v, changes);
                // A flow left alone by others' departures may still be tagged with its old
                // component (see `summary`).
                let component = self.vars[v.0 as usize].component;
                for &c in &self.comp_cons {
                    self.cons[c.0 as usize].component = component;
                }
            }
            _ => self.fill_rounds(changes),
        }
    }
}

#[path = "filling.rs"]
mod filling;

#[path = "incremental.rs"]
mod incremental;

#[path = "summary.rs"]
mod summary;
use summary::{Summary, SUMMARY_MIN_USERS};

#[cfg(test)]
#[path = "maxmin_tests.rs"]
mod tests;

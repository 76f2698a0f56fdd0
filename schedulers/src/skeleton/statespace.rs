//! Derivation of a PEPA model's reachable state space (its derivation graph).
//!
//! The rules are PEPA's structured operational semantics as printed in the SCPE pipeline
//! paper, Appendix A (Fig. A.1), after Hillston (1996):
//!
//! * **Prefix**: `(α, r).E --(α, r)--> E`.
//! * **Choice**: `E + F` has the transitions of `E` and of `F`.
//! * **Constant**: `A = E` has the transitions of `E`.
//! * **Cooperation** `E <L> F`: an action `α ∉ L` of either side proceeds alone; for `α ∈ L`
//!   every pair of an `α`-transition of `E` (rate `r1`) and of `F` (rate `r2`) gives one shared
//!   transition with rate `R = r1/r_α(E) · r2/r_α(F) · min(r_α(E), r_α(F))`, where the
//!   *apparent rate* `r_α(E)` is the sum of the rates of all `α`-activities enabled in `E`.
//! * **Hiding** `E/L`: actions in `L` become `tau`.
//!
//! Passive rates `w·⊤` follow Hillston's arithmetic: `w1⊤ + w2⊤ = (w1+w2)⊤`,
//! `min(r, w⊤) = r`, `min(w1⊤, w2⊤) = min(w1, w2)⊤`, and `w1⊤ / w2⊤ = w1/w2`. A co-operand may
//! not enable a shared action type both actively and passively, and no passive transition may
//! remain at the top level ("all passive actions must be synchronised", AMoGeT paper §3.1).
//!
//! **Representation.** The state space is generated from all interleavings, as the PEPA
//! Workbench does (SCPE paper, Appendix C.1). The model is compiled into a tree whose internal
//! nodes are the static combinators (cooperation, hiding) and whose leaves are *sequential
//! components*; a global state is the vector of the leaves' local derivatives. Constants defined by cooperations are inlined. The reachable states are
//! found breadth-first from the initial state, so state 0 is the system equation itself. The
//! graph is a multi-transition system: two activities leading to the same target are kept as
//! two transitions (their rates add up in the generator, see [`super::ctmc`]).

use std::collections::HashMap;

use thiserror::Error;

use super::pepa::{Model, Process, RateSpec};

/// Name of the silent action produced by hiding.
pub const TAU: &str = "tau";

/// Errors while deriving the state space.
#[derive(Debug, Error, PartialEq)]
pub enum PepaError {
    /// A constant is used but never defined.
    #[error("undefined constant {0}")]
    UndefinedConstant(String),
    /// A rate parameter is used but never defined.
    #[error("undefined rate parameter {0}")]
    UndefinedRate(String),
    /// A rate is not a positive finite number.
    #[error("rate of action {action} must be positive and finite, got {value}")]
    InvalidRate {
        /// Action type.
        action: String,
        /// The offending value.
        value: f64,
    },
    /// A constant is defined, directly or through other constants, as itself.
    #[error("unguarded recursion through constant {0}")]
    UnguardedRecursion(String),
    /// A sequential component continues as a cooperation or hiding.
    #[error("a sequential component continues as a cooperation or hiding (in {0})")]
    DynamicCombinator(String),
    /// A model component is defined recursively through a cooperation (infinite state space).
    #[error("model component {0} is defined recursively through a cooperation")]
    RecursiveModelComponent(String),
    /// A component enables the same action both actively and passively.
    #[error("action {0} is enabled both actively and passively by one component")]
    MixedActivePassive(String),
    /// A passive transition is left unsynchronised at the top level.
    #[error("passive action {action} is not synchronised (state {state})")]
    UnsynchronisedPassive {
        /// Action type.
        action: String,
        /// Description of the state.
        state: String,
    },
    /// The state space exceeds the configured limit.
    #[error("state space exceeds {0} states")]
    TooManyStates(usize),
}

/// A rate during derivation: active, or passive with a weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    /// Active rate (per unit time).
    Active(f64),
    /// Passive rate `w·⊤`.
    Passive(f64),
}

impl Rate {
    fn value(self) -> f64 {
        match self {
            Rate::Active(v) | Rate::Passive(v) => v,
        }
    }

    /// Sum of two rates of the same kind (apparent-rate accumulation).
    fn add(self, other: Rate, action: &str) -> Result<Rate, PepaError> {
        match (self, other) {
            (Rate::Active(a), Rate::Active(b)) => Ok(Rate::Active(a + b)),
            (Rate::Passive(a), Rate::Passive(b)) => Ok(Rate::Passive(a + b)),
            _ => Err(PepaError::MixedActivePassive(action.to_string())),
        }
    }

    /// `min` with Hillston's convention that any active rate is smaller than `⊤`.
    fn min(self, other: Rate) -> Rate {
        match (self, other) {
            (Rate::Active(a), Rate::Active(b)) => Rate::Active(a.min(b)),
            (Rate::Active(a), Rate::Passive(_)) | (Rate::Passive(_), Rate::Active(a)) => Rate::Active(a),
            (Rate::Passive(a), Rate::Passive(b)) => Rate::Passive(a.min(b)),
        }
    }
}

/// The rate of a shared activity (SCPE paper, Fig. A.1, third cooperation rule):
/// `R = r1/r_α(E) · r2/r_α(F) · min(r_α(E), r_α(F))`.
///
/// `r1` and `apparent1` are of the same kind (both active or both passive), as are `r2` and
/// `apparent2`, so each ratio is a plain number.
pub fn shared_rate(r1: Rate, apparent1: Rate, r2: Rate, apparent2: Rate) -> Rate {
    let m = apparent1.min(apparent2);
    let factor = (r1.value() / apparent1.value()) * (r2.value() / apparent2.value());
    match m {
        Rate::Active(v) => Rate::Active(factor * v),
        Rate::Passive(v) => Rate::Passive(factor * v),
    }
}

/// One transition of the derivation graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transition {
    /// Source state index.
    pub from: u32,
    /// Target state index.
    pub to: u32,
    /// Action id (index into [`StateSpace::actions`]).
    pub action: u32,
    /// Rate (always active at the top level).
    pub rate: f64,
}

/// A sequential component of the model: its reachable local derivatives and local transitions.
#[derive(Clone, Debug)]
pub struct Leaf {
    /// Name of the leaf: the constant it starts as, or its term when anonymous.
    pub name: String,
    /// Display names of the local derivatives: the constant's name when the derivative is a
    /// constant, otherwise the PEPA text of the term (the PEPA Workbench state-finder style).
    pub derivatives: Vec<String>,
    /// Local transitions per derivative: (action id, rate, target derivative).
    moves: Vec<Vec<(u32, Rate, u32)>>,
}

#[derive(Debug)]
enum Node {
    Leaf(usize),
    Coop {
        left: Box<Node>,
        right: Box<Node>,
        set: Vec<bool>,
    },
    Hide {
        child: Box<Node>,
        set: Vec<bool>,
    },
}

/// Options for [`derive`].
#[derive(Clone, Copy, Debug)]
pub struct DeriveOptions {
    /// Stop with [`PepaError::TooManyStates`] beyond this many states.
    pub max_states: usize,
}

impl Default for DeriveOptions {
    fn default() -> Self {
        DeriveOptions { max_states: 5_000_000 }
    }
}

/// The reachable state space of a PEPA model and its labelled transitions.
#[derive(Clone, Debug)]
pub struct StateSpace {
    /// Action names by id; id 0 is [`TAU`].
    pub actions: Vec<String>,
    /// The sequential components, in the left-to-right order of the system equation.
    pub leaves: Vec<Leaf>,
    states: Vec<u32>,
    /// All transitions, grouped by source state in increasing order.
    pub transitions: Vec<Transition>,
}

impl StateSpace {
    /// Number of reachable states.
    pub fn n_states(&self) -> usize {
        if self.leaves.is_empty() {
            0
        } else {
            self.states.len() / self.leaves.len()
        }
    }

    /// Number of transitions (arcs of the multi-transition system).
    pub fn n_transitions(&self) -> usize {
        self.transitions.len()
    }

    /// The local derivative index of every leaf in state `s`.
    pub fn state(&self, s: usize) -> &[u32] {
        let k = self.leaves.len();
        &self.states[s * k..(s + 1) * k]
    }

    /// Id of an action, if the model uses it.
    pub fn action_id(&self, name: &str) -> Option<u32> {
        self.actions.iter().position(|a| a == name).map(|i| i as u32)
    }

    /// Indices of the leaves with this name.
    pub fn leaves_named(&self, name: &str) -> Vec<usize> {
        (0..self.leaves.len())
            .filter(|&i| self.leaves[i].name == name)
            .collect()
    }

    /// Index of a derivative of a leaf by its display name.
    pub fn derivative_id(&self, leaf: usize, name: &str) -> Option<u32> {
        self.leaves[leaf]
            .derivatives
            .iter()
            .position(|d| d == name)
            .map(|i| i as u32)
    }

    /// A readable description of state `s`: the leaves' local derivatives, `|`-separated.
    pub fn describe(&self, s: usize) -> String {
        self.state(s)
            .iter()
            .enumerate()
            .map(|(l, &d)| self.leaves[l].derivatives[d as usize].as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

struct Compiler<'m> {
    defs: HashMap<&'m str, &'m Process>,
    params: HashMap<&'m str, f64>,
    actions: Vec<String>,
    action_ids: HashMap<String, u32>,
    leaves: Vec<Leaf>,
}

impl<'m> Compiler<'m> {
    fn action(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.action_ids.get(name) {
            return id;
        }
        let id = self.actions.len() as u32;
        self.actions.push(name.to_string());
        self.action_ids.insert(name.to_string(), id);
        id
    }

    fn def(&self, name: &str) -> Result<&'m Process, PepaError> {
        self.defs
            .get(name)
            .copied()
            .ok_or_else(|| PepaError::UndefinedConstant(name.to_string()))
    }

    /// Follows constant aliases to the first non-constant term; returns it with the first
    /// constant name met (if any).
    fn resolve(&self, p: &'m Process) -> Result<(&'m Process, Option<&'m str>), PepaError> {
        let mut cur = p;
        let mut first = None;
        let mut steps = 0;
        while let Process::Constant(name) = cur {
            if first.is_none() {
                first = Some(name.as_str());
            }
            steps += 1;
            if steps > self.defs.len() + 1 {
                return Err(PepaError::UnguardedRecursion(first.unwrap_or(name).to_string()));
            }
            cur = self.def(name)?;
        }
        Ok((cur, first))
    }

    fn is_sequential(&self, p: &'m Process) -> Result<bool, PepaError> {
        let (t, _) = self.resolve(p)?;
        Ok(matches!(t, Process::Prefix { .. } | Process::Choice(..)))
    }

    fn rate(&self, action: &str, r: &RateSpec) -> Result<Rate, PepaError> {
        let (v, passive) = match r {
            RateSpec::Value(v) => (*v, false),
            RateSpec::Param(p) => (
                *self
                    .params
                    .get(p.as_str())
                    .ok_or_else(|| PepaError::UndefinedRate(p.clone()))?,
                false,
            ),
            RateSpec::Passive(w) => (*w, true),
        };
        if !(v.is_finite() && v > 0.0) {
            return Err(PepaError::InvalidRate {
                action: action.to_string(),
                value: v,
            });
        }
        Ok(if passive { Rate::Passive(v) } else { Rate::Active(v) })
    }

    fn compile(&mut self, p: &'m Process, inlining: &mut Vec<&'m str>) -> Result<Node, PepaError> {
        match p {
            Process::Cooperation { left, actions, right } => {
                let l = self.compile(left, inlining)?;
                let r = self.compile(right, inlining)?;
                let ids: Vec<u32> = actions.iter().map(|a| self.action(a)).collect();
                Ok(Node::Coop {
                    left: Box::new(l),
                    right: Box::new(r),
                    set: self.set_of(&ids),
                })
            }
            Process::Hiding { process, actions } => {
                let c = self.compile(process, inlining)?;
                let ids: Vec<u32> = actions.iter().map(|a| self.action(a)).collect();
                Ok(Node::Hide {
                    child: Box::new(c),
                    set: self.set_of(&ids),
                })
            }
            Process::Constant(name) if !self.is_sequential(p)? => {
                if inlining.contains(&name.as_str()) {
                    return Err(PepaError::RecursiveModelComponent(name.clone()));
                }
                inlining.push(name);
                let body = self.def(name)?;
                let node = self.compile(body, inlining);
                inlining.pop();
                node
            }
            _ => Ok(Node::Leaf(self.leaf(p)?)),
        }
    }

    /// Membership vector over action ids; ids added later are outside every set.
    fn set_of(&self, ids: &[u32]) -> Vec<bool> {
        let mut v = vec![false; self.actions.len()];
        for &i in ids {
            v[i as usize] = true;
        }
        v
    }

    /// Local transitions of a sequential term: (action, rate, canonical target term).
    fn local_moves(
        &mut self,
        p: &'m Process,
        out: &mut Vec<(u32, Rate, &'m Process, Option<&'m str>)>,
    ) -> Result<(), PepaError> {
        let (t, _) = self.resolve(p)?;
        match t {
            Process::Prefix { action, rate, then } => {
                let r = self.rate(action, rate)?;
                let a = self.action(action);
                let (target, name) = self.resolve(then)?;
                if !matches!(target, Process::Prefix { .. } | Process::Choice(..)) {
                    return Err(PepaError::DynamicCombinator(format!("{t}")));
                }
                out.push((a, r, target, name));
                Ok(())
            }
            Process::Choice(l, r) => {
                self.local_moves(l, out)?;
                self.local_moves(r, out)
            }
            _ => Err(PepaError::DynamicCombinator(format!("{t}"))),
        }
    }

    fn leaf(&mut self, p: &'m Process) -> Result<usize, PepaError> {
        let (start, start_name) = self.resolve(p)?;
        let key = |t: &Process| t as *const Process as usize;
        let mut index: HashMap<usize, u32> = HashMap::new();
        let mut terms: Vec<&'m Process> = vec![start];
        let mut names: Vec<String> = vec![start_name.map_or_else(|| format!("{start}"), str::to_string)];
        index.insert(key(start), 0);
        let mut moves = Vec::new();
        let mut i = 0;
        while i < terms.len() {
            let mut out = Vec::new();
            self.local_moves(terms[i], &mut out)?;
            let mut local = Vec::with_capacity(out.len());
            for (a, r, target, name) in out {
                let id = match index.get(&key(target)) {
                    Some(&id) => id,
                    None => {
                        let id = terms.len() as u32;
                        index.insert(key(target), id);
                        terms.push(target);
                        names.push(name.map_or_else(|| format!("{target}"), str::to_string));
                        id
                    }
                };
                local.push((a, r, id));
            }
            moves.push(local);
            i += 1;
        }
        let leaf = Leaf {
            name: names[0].clone(),
            derivatives: names,
            moves,
        };
        self.leaves.push(leaf);
        Ok(self.leaves.len() - 1)
    }
}

/// A transition of a sub-tree: the action, its rate and the leaves it changes, as a range of
/// the per-state change arena.
#[derive(Clone, Copy)]
struct Local {
    action: u32,
    rate: Rate,
    start: u32,
    len: u32,
}

fn in_set(set: &[bool], a: u32) -> bool {
    set.get(a as usize).copied().unwrap_or(false)
}

/// The apparent rate `r_α` of `action` in a list of transitions: the sum of their rates
/// (`None` when the action is not enabled).
fn apparent(list: &[Local], action: u32, actions: &[String]) -> Result<Option<Rate>, PepaError> {
    let mut acc: Option<Rate> = None;
    for t in list.iter().filter(|t| t.action == action) {
        acc = Some(match acc {
            None => t.rate,
            Some(a) => a.add(t.rate, &actions[action as usize])?,
        });
    }
    Ok(acc)
}

/// Everything the per-state derivation reads.
struct Engine<'a> {
    leaves: &'a [Leaf],
    actions: &'a [String],
    tau: u32,
}

/// Buffers reused across nodes and states.
#[derive(Default)]
struct Scratch {
    arena: Vec<(u32, u32)>,
    tmp: Vec<Local>,
}

impl Engine<'_> {
    /// Appends the transitions of `node` in `state` to `out`; leaf changes go to the arena.
    /// Order: for a cooperation, the shared transitions, then the left's own, then the right's.
    fn collect(&self, node: &Node, state: &[u32], out: &mut Vec<Local>, sc: &mut Scratch) -> Result<(), PepaError> {
        match node {
            Node::Leaf(l) => {
                for &(action, rate, target) in &self.leaves[*l].moves[state[*l] as usize] {
                    sc.arena.push((*l as u32, target));
                    out.push(Local {
                        action,
                        rate,
                        start: sc.arena.len() as u32 - 1,
                        len: 1,
                    });
                }
                Ok(())
            }
            Node::Hide { child, set } => {
                let p0 = out.len();
                self.collect(child, state, out, sc)?;
                for t in &mut out[p0..] {
                    if in_set(set, t.action) {
                        t.action = self.tau;
                    }
                }
                Ok(())
            }
            Node::Coop { left, right, set } => {
                let p0 = out.len();
                self.collect(left, state, out, sc)?;
                let p1 = out.len();
                self.collect(right, state, out, sc)?;
                if !out[p0..].iter().any(|t| in_set(set, t.action)) {
                    return Ok(());
                }
                let (l, r) = out[p0..].split_at(p1 - p0);
                sc.tmp.clear();
                for t1 in l.iter().filter(|t| in_set(set, t.action)) {
                    let Some(a2) = apparent(r, t1.action, self.actions)? else {
                        continue;
                    };
                    let a1 = apparent(l, t1.action, self.actions)?.expect("t1 enables its action");
                    for t2 in r.iter().filter(|t2| t2.action == t1.action) {
                        let start = sc.arena.len() as u32;
                        for k in (t1.start..t1.start + t1.len).chain(t2.start..t2.start + t2.len) {
                            let change = sc.arena[k as usize];
                            sc.arena.push(change);
                        }
                        sc.tmp.push(Local {
                            action: t1.action,
                            rate: shared_rate(t1.rate, a1, t2.rate, a2),
                            start,
                            len: t1.len + t2.len,
                        });
                    }
                }
                sc.tmp.extend(l.iter().filter(|t| !in_set(set, t.action)));
                sc.tmp.extend(r.iter().filter(|t| !in_set(set, t.action)));
                out.truncate(p0);
                out.extend_from_slice(&sc.tmp);
                Ok(())
            }
        }
    }
}

/// A multiply-rotate hasher for the packed state keys (deterministic, no random seed).
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
}

type KeyBuild = std::hash::BuildHasherDefault<KeyHasher>;

/// The index from global states to state numbers: states are packed into a `u128` when their
/// leaves' derivative indices fit in 128 bits, and kept as vectors otherwise.
enum StateIndex {
    Packed {
        shifts: Vec<u32>,
        map: HashMap<u128, u32, KeyBuild>,
    },
    Wide(HashMap<Box<[u32]>, u32, KeyBuild>),
}

impl StateIndex {
    fn new(leaves: &[Leaf]) -> StateIndex {
        let mut shifts = Vec::with_capacity(leaves.len());
        let mut bits = 0u32;
        for l in leaves {
            shifts.push(bits);
            bits += usize::BITS - (l.derivatives.len().max(1) - 1).leading_zeros();
        }
        if bits <= 128 {
            StateIndex::Packed {
                shifts,
                map: HashMap::default(),
            }
        } else {
            StateIndex::Wide(HashMap::default())
        }
    }

    fn pack(shifts: &[u32], state: &[u32]) -> u128 {
        state
            .iter()
            .zip(shifts)
            .fold(0u128, |acc, (&d, &sh)| acc | (u128::from(d) << sh))
    }

    /// The number of `state`, inserting it as `next` when new (then the flag is `true`).
    fn get_or_insert(&mut self, state: &[u32], next: u32) -> (u32, bool) {
        match self {
            StateIndex::Packed { shifts, map } => {
                let key = Self::pack(shifts, state);
                match map.entry(key) {
                    std::collections::hash_map::Entry::Occupied(e) => (*e.get(), false),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(next);
                        (next, true)
                    }
                }
            }
            StateIndex::Wide(map) => match map.get(state) {
                Some(&id) => (id, false),
                None => {
                    map.insert(state.to_vec().into_boxed_slice(), next);
                    (next, true)
                }
            },
        }
    }
}

/// Derives the reachable state space of `model` by PEPA's operational semantics.
pub fn derive(model: &Model, options: &DeriveOptions) -> Result<StateSpace, PepaError> {
    let mut c = Compiler {
        defs: model.definitions.iter().map(|(n, p)| (n.as_str(), p)).collect(),
        params: model.params.iter().map(|(n, v)| (n.as_str(), *v)).collect(),
        actions: Vec::new(),
        action_ids: HashMap::new(),
        leaves: Vec::new(),
    };
    let tau = c.action(TAU);
    let tree = c.compile(&model.system, &mut Vec::new())?;
    let Compiler { actions, leaves, .. } = c;
    let k = leaves.len();
    let engine = Engine {
        leaves: &leaves,
        actions: &actions,
        tau,
    };

    let mut index = StateIndex::new(&leaves);
    let mut states: Vec<u32> = vec![0; k];
    index.get_or_insert(&states, 0);
    let mut transitions = Vec::new();
    let mut scratch = Scratch::default();
    let mut local = Vec::new();
    let mut cur = vec![0u32; k];
    let mut target = vec![0u32; k];
    let mut s = 0usize;
    while s * k < states.len() {
        cur.copy_from_slice(&states[s * k..(s + 1) * k]);
        scratch.arena.clear();
        local.clear();
        engine.collect(&tree, &cur, &mut local, &mut scratch)?;
        for &t in &local {
            let rate = match t.rate {
                Rate::Active(v) => v,
                Rate::Passive(_) => {
                    let state = cur
                        .iter()
                        .enumerate()
                        .map(|(l, &d)| leaves[l].derivatives[d as usize].as_str())
                        .collect::<Vec<_>>()
                        .join(" | ");
                    return Err(PepaError::UnsynchronisedPassive {
                        action: actions[t.action as usize].clone(),
                        state,
                    });
                }
            };
            target.copy_from_slice(&cur);
            for &(leaf, d) in &scratch.arena[t.start as usize..(t.start + t.len) as usize] {
                target[leaf as usize] = d;
            }
            let next = (states.len() / k) as u32;
            let (to, inserted) = index.get_or_insert(&target, next);
            if inserted {
                if next as usize >= options.max_states {
                    return Err(PepaError::TooManyStates(options.max_states));
                }
                states.extend_from_slice(&target);
            }
            transitions.push(Transition {
                from: s as u32,
                to,
                action: t.action,
                rate,
            });
        }
        s += 1;
    }
    Ok(StateSpace {
        actions,
        leaves,
        states,
        transitions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Model {
        Model::parse(text).unwrap()
    }

    #[test]
    fn tiny_example_has_nine_states() {
        // SCPE paper, Appendix C.2: tiny.pepa, two independent 3-state cycles -> 3 x 3 states,
        // each with 2 outgoing transitions (one per copy).
        let ss = derive(
            &parse("r1=2; r2=10; r3=1; P1=(start,r1).P2; P2=(run,r2).P3; P3=(stop,r3).P1; P1 || P1"),
            &DeriveOptions::default(),
        )
        .unwrap();
        assert_eq!(ss.n_states(), 9);
        assert_eq!(ss.n_transitions(), 18);
        assert_eq!(ss.describe(0), "P1 | P1");
    }

    /// Rates of the transitions labelled `action` out of the initial state, sorted.
    fn initial_rates(ss: &StateSpace, action: &str) -> Vec<f64> {
        let a = ss.action_id(action).unwrap();
        let mut rates: Vec<f64> = ss
            .transitions
            .iter()
            .filter(|t| t.from == 0 && t.action == a)
            .map(|t| t.rate)
            .collect();
        rates.sort_by(f64::total_cmp);
        rates
    }

    #[test]
    fn apparent_rate_formula_active_active() {
        // Hand-computed from Fig. A.1: E = (a,1).E1 + (a,3).E2 has r_a(E) = 4; F = (a,2).F has
        // r_a(F) = 2; min = 2. Shared rates: 1/4 * 2/2 * 2 = 0.5 and 3/4 * 2 = 1.5.
        let ss = derive(
            &parse("E = (a,1).E1 + (a,3).E2; E1 = (b,1).E; E2 = (c,1).E; F = (a,2).F; E <a> F"),
            &DeriveOptions::default(),
        )
        .unwrap();
        let rates = initial_rates(&ss, "a");
        assert_eq!(rates, vec![0.5, 1.5]);
    }

    #[test]
    fn passive_weights_split_the_active_rate() {
        // Hand-computed: P = (a, 1*infty).P1 + (a, 3*infty).P2 against (a, 8): shares 8/4 and 8*3/4.
        let ss = derive(
            &parse("P = (a, infty).P1 + (a, 3*infty).P2; P1 = (b,1).P; P2 = (b,1).P; Q = (a,8).Q; P <a> Q"),
            &DeriveOptions::default(),
        )
        .unwrap();
        let rates = initial_rates(&ss, "a");
        assert_eq!(rates, vec![2.0, 6.0]);
    }

    #[test]
    fn cooperation_is_blocked_until_both_enable() {
        // (a,1).(b,1).P <b> (b,5).(c,1).Q: b waits for a; the shared b has rate min(1,5) = 1.
        let ss = derive(
            &parse("P = (a,1).(b,1).P; Q = (b,5).(c,1).Q; P <b> Q"),
            &DeriveOptions::default(),
        )
        .unwrap();
        let b = ss.action_id("b").unwrap();
        assert!(ss.transitions.iter().all(|t| t.action != b || t.from != 0));
        let shared: Vec<_> = ss.transitions.iter().filter(|t| t.action == b).collect();
        assert!(!shared.is_empty());
        assert!(shared.iter().all(|t| t.rate == 1.0));
    }

    #[test]
    fn errors_are_reported() {
        let o = DeriveOptions::default();
        assert_eq!(
            derive(&parse("P = (a, infty).P; P"), &o).unwrap_err(),
            PepaError::UnsynchronisedPassive {
                action: "a".into(),
                state: "P".into()
            }
        );
        assert_eq!(
            derive(&parse("P = Q; Q = P; P"), &o).unwrap_err(),
            PepaError::UnguardedRecursion("P".into())
        );
        assert_eq!(
            derive(&parse("P = (a,1).P + (a,infty).P; Q = (a,1).Q; P <a> Q"), &o).unwrap_err(),
            PepaError::MixedActivePassive("a".into())
        );
        assert_eq!(
            derive(&parse("S = S || S; S"), &o).unwrap_err(),
            PepaError::RecursiveModelComponent("S".into())
        );
        assert_eq!(
            derive(&parse("P = (a,1).X; P"), &o).unwrap_err(),
            PepaError::UndefinedConstant("X".into())
        );
        assert!(matches!(
            derive(&parse("P = (a,1).(P || P); P"), &o).unwrap_err(),
            PepaError::DynamicCombinator(_)
        ));
    }

    #[test]
    fn state_limit() {
        let e = derive(&parse("P = (a,1).(b,1).P; P || P"), &DeriveOptions { max_states: 3 }).unwrap_err();
        assert_eq!(e, PepaError::TooManyStates(3));
    }

    #[test]
    fn hiding_relabels_to_tau() {
        let ss = derive(&parse("P = (a,1).(b,2).P; P/{a}"), &DeriveOptions::default()).unwrap();
        let tau = ss.action_id(TAU).unwrap();
        assert_eq!(ss.transitions[0].action, tau);
        assert_eq!(ss.n_states(), 2);
    }
}

//! Bottleneck clocks ([`crate::sharing::SharingMode::Fast`]): the activities whose rates one
//! constraint's level sets progress on that constraint's clock.
//!
//! Every activity a constraint fixes at level `λ` has rate `k λ`, with `k = factor / penalty`
//! (the network's bandwidth factor for a comm, 1 otherwise). So its work left at time `t` is
//! `k (T − V(t))`, where `V(t) = ∫ λ dt` is the clock's virtual time and `T` the virtual time at
//! which it completes, fixed when it joins: `T = V(now) + remaining / k`. A change of `λ` then
//! moves no activity: the clock advances `V` to now, takes the new level, and reschedules one
//! event, for the member with the smallest `T`: `now + (T − V) / λ`. That is what processor
//! sharing simulators and DSLab's `fair_fast` model do with a shared resource; here it holds for
//! any constraint that fixes several activities at one level.
//!
//! `V` is kept as a compensated sum (value plus rounding error) and restarts at 0 whenever the
//! clock empties: a member's `T − V` then loses about one rounding of `V` to cancellation, not one
//! per level change, so a completion date differs from per-activity settling by a few units in
//! the last place of `V / (T − V)`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::activity::{Activity, NO_VARIABLE};
use super::event::{next_generation, QueuedEvent, Slot};
use super::Engine;
use crate::sharing::{ConstraintId, VariableId};
use crate::time::SimTime;

/// No clock (an activity progressing on its own rate).
pub(crate) const NO_CLOCK: u32 = u32::MAX;

/// Members completing together, popped one by one, after which `pop_clock_head` may take the
/// rest in one pass over the clock's heap.
const BULK_DUE_MIN: usize = 32;

/// `Engine::due_rank` of a variable that is not in the round being placed.
const NOT_DUE: u32 = u32::MAX;

/// A member's entry: it completes when the clock's virtual time reaches `target`. Entries of
/// members that left (their generation moved on) are skipped when they reach the top.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Member {
    pub target: f64,
    pub slot: Slot,
    pub generation: u32,
}

impl PartialEq for Member {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Member {}

impl PartialOrd for Member {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Member {
    /// Reversed, so the binary heap pops the smallest target first (then the smallest slot).
    fn cmp(&self, other: &Self) -> Ordering {
        other.target.total_cmp(&self.target).then(other.slot.cmp(&self.slot))
    }
}

/// One bottleneck's clock.
#[derive(Clone, Debug, Default)]
pub(crate) struct Clock {
    /// Virtual time `V`, as `value + error` (a compensated sum of `λ dt` steps).
    value: f64,
    error: f64,
    last: SimTime,
    /// Current level `λ`.
    pub level: f64,
    /// The constraint whose level it follows.
    pub constraint: u32,
    /// Bumped whenever the clock's next completion may have moved: its pending event is stale.
    pub generation: u32,
    /// Members still on the clock (the heap also holds the entries of members that left).
    pub live: u32,
    /// Waiting in the engine's list of clocks to reschedule.
    pub dirty: bool,
    pub members: BinaryHeap<Member>,
}

impl Clock {
    /// A clock at virtual time 0 following `constraint`'s level.
    pub fn new(constraint: u32) -> Clock {
        Clock {
            constraint,
            ..Clock::default()
        }
    }

    /// Advances the virtual time to `now` at the current level.
    pub fn advance(&mut self, now: SimTime) {
        let dt = now - self.last;
        if dt > 0.0 && self.level > 0.0 {
            // Fast2Sum-style compensation (Neumaier): `error` keeps what `value` rounded off.
            let step = self.level * dt;
            let sum = self.value + step;
            self.error += if self.value.abs() >= step.abs() {
                (self.value - sum) + step
            } else {
                (step - sum) + self.value
            };
            self.value = sum;
        }
        self.last = now;
    }

    /// The virtual time at which work `remaining` at rate `k λ` completes, from now (the clock
    /// advanced to now).
    pub fn target(&self, remaining: f64, k: f64) -> f64 {
        self.value + (self.error + remaining / k)
    }

    /// Work left at `now` of a member with this target and factor, without moving the clock.
    pub fn remaining_at(&self, now: SimTime, target: f64, k: f64) -> f64 {
        let ahead = if self.level > 0.0 {
            self.level * (now - self.last)
        } else {
            0.0
        };
        (((target - self.value) - self.error - ahead) * k).max(0.0)
    }

    /// Seconds from the clock's last advance until the virtual time reaches `target`.
    pub fn time_to(&self, target: f64) -> f64 {
        (((target - self.value) - self.error) / self.level).max(0.0)
    }

    /// Whether a member with `target` completes together with the due `head` at `now` (the
    /// clock advanced to now): an exact tie (the clock may be a rounding short of it), or a
    /// completion that rounds to now.
    pub fn due_with(&self, head: &Member, target: f64, now: SimTime) -> bool {
        target == head.target || self.level.is_infinite() || (self.level > 0.0 && now + self.time_to(target) <= now)
    }

    /// Drops the entries of members that left from the top, returning the first live one.
    /// `live_member(slot, generation)` says whether an entry is still a member.
    pub fn head(&mut self, live_member: impl Fn(Slot, u32) -> bool) -> Option<Member> {
        while let Some(&top) = self.members.peek() {
            if live_member(top.slot, top.generation) {
                return Some(top);
            }
            self.members.pop();
        }
        None
    }

    /// Starts over at virtual time 0 when no member is left (see the module docs), and drops
    /// the entries of members that left once they outnumber the live ones.
    pub fn tidy(&mut self, live_member: impl Fn(Slot, u32) -> bool) {
        if self.live == 0 {
            self.members.clear();
            self.value = 0.0;
            self.error = 0.0;
        } else if self.members.len() > 2 * self.live as usize + 64 {
            self.members.retain(|m| live_member(m.slot, m.generation));
        }
    }
}

/// The engine's side of its clocks: activities join and leave them, a due clock gives up its
/// members due now, and marked clocks are rescheduled before time moves on.
impl Engine {
    /// The clock of constraint `c`, made on first use.
    pub(super) fn clock_for(&mut self, c: ConstraintId) -> u32 {
        let index = &mut self.clock_of_constraint[c.0 as usize];
        if *index == NO_CLOCK {
            *index = self.clocks.len() as u32;
            self.clocks.push(Clock::new(c.0));
        }
        *index
    }

    pub(super) fn clock_of_activity(&self, slot: Slot) -> Option<u32> {
        self.activity_clock
            .get(slot as usize)
            .copied()
            .filter(|&clock| clock != NO_CLOCK)
    }

    /// Notes that a clock's next completion may have moved: its pending event goes stale, and it
    /// is rescheduled before time moves on.
    pub(super) fn mark_clock(&mut self, clock: u32) {
        let state = &mut self.clocks[clock as usize];
        state.generation = next_generation(state.generation);
        if !state.dirty {
            state.dirty = true;
            self.dirty_clocks.push(clock);
        }
    }

    /// Puts a running activity (settled to now, its generation already moved on) on constraint
    /// `c`'s clock, progressing `k` work units per unit of the clock's virtual time.
    pub(super) fn join_clock(&mut self, slot: Slot, c: ConstraintId, k: f64) {
        let clock = self.clock_for(c);
        let now = self.now;
        let state = &mut self.clocks[clock as usize];
        state.advance(now);
        state.level = self.lmm.level(c);
        let act = &mut self.activities[slot as usize];
        let target = state.target(act.remaining, k);
        // On a clock, `remaining` holds the target and `rate` the factor `k` (see `clock`).
        act.remaining = target;
        act.rate = k;
        act.last_update = now;
        state.members.push(Member {
            target,
            slot,
            generation: act.generation,
        });
        state.live += 1;
        self.clock_joins += 1;
        if self.activity_clock.len() <= slot as usize {
            self.activity_clock.resize(slot as usize + 1, NO_CLOCK);
        }
        self.activity_clock[slot as usize] = clock;
        self.mark_clock(clock);
    }

    /// Takes an activity off its clock, if it is on one, with its work left as of now and no
    /// rate (the caller gives it its next one).
    pub(super) fn leave_clock(&mut self, slot: Slot) {
        let Some(clock) = self.clock_of_activity(slot) else {
            return;
        };
        let now = self.now;
        let state = &mut self.clocks[clock as usize];
        state.advance(now);
        let act = &mut self.activities[slot as usize];
        act.remaining = state.remaining_at(now, act.remaining, act.rate);
        act.rate = 0.0;
        act.last_update = now;
        self.drop_from_clock(slot);
    }

    /// Forgets an activity's clock membership (its heap entry goes stale with its generation).
    pub(super) fn drop_from_clock(&mut self, slot: Slot) {
        if let Some(clock) = self.clock_of_activity(slot) {
            self.activity_clock[slot as usize] = NO_CLOCK;
            self.clocks[clock as usize].live -= 1;
            self.mark_clock(clock);
        }
    }

    /// The member a clock's due event completes, taken off the clock. Members due at the same
    /// date (equal targets, within the last place) leave with it and complete right after it, in
    /// the order of the bottleneck's list of users: the order the exact solver would have
    /// queued their completions in at its last solve, so that ties reach the application in the
    /// same order in both modes.
    #[inline(never)] // out of the event loop's frame (see `next_notification_until`)
    pub(super) fn pop_clock_head(&mut self, clock: u32) -> Option<Slot> {
        let now = self.now;
        let mut due = std::mem::take(&mut self.due_scratch);
        due.clear();
        let mut round = None;
        {
            let (activities, activity_clock) = (&self.activities, &self.activity_clock);
            let live = |slot, generation| still_on_clock(activities, activity_clock, clock, slot, generation);
            let state = &mut self.clocks[clock as usize];
            state.advance(now);
            let constraint = ConstraintId(state.constraint);
            let position = |member: &Member| {
                let var = VariableId(activities[member.slot as usize].var);
                (self.lmm.position(var, constraint), *member)
            };
            // The head is due (its event says so); so is any member `due_with` it.
            while let Some(member) = state.head(live) {
                if due
                    .first()
                    .is_some_and(|(_, head)| !state.due_with(head, member.target, now))
                {
                    break;
                }
                // Many members completing together (a lock-step round of equal workers): once
                // they are an eighth of what is left, the rest are found in one pass over the
                // heap and the remainder re-heaped, instead of one pop (log n) each. The pass
                // costs at most eight times the pops made, and the sort below fixes the order.
                if due.len() >= BULK_DUE_MIN && due.len() >= state.members.len() / 8 {
                    let head = due[0].1;
                    let mut members = std::mem::take(&mut state.members).into_vec();
                    // Their positions come from one walk of the bottleneck's list below.
                    members.retain(|m| {
                        if !live(m.slot, m.generation) {
                            false
                        } else if state.due_with(&head, m.target, now) {
                            due.push((u32::MAX, *m));
                            false
                        } else {
                            true
                        }
                    });
                    state.members = BinaryHeap::from(members);
                    round = Some(constraint);
                    break;
                }
                state.members.pop();
                due.push(position(&member));
            }
        }
        match round {
            Some(constraint) => self.place_by_bottleneck_list(&mut due, constraint),
            None => sort_by_position(&mut due),
        }
        let first = due.first().map(|d| d.1.slot);
        for (i, &(_, member)) in due.iter().enumerate() {
            self.drop_from_clock(member.slot);
            if i > 0 {
                let act = &mut self.activities[member.slot as usize];
                act.remaining = 0.0;
                act.rate = 0.0;
                act.last_update = now;
                self.due_now.push_back((member.slot, member.generation));
            }
        }
        self.due_scratch = due;
        first
    }

    /// Puts a lock-step round's members (`due`, all on `constraint`) in the order of the
    /// constraint's list of users, with their positions, by one pass over that list into a kept
    /// buffer. Looking each member's position up instead reads its variable and then its list of
    /// uses: two dependent reads out of cache per member, which dominate on a round of many
    /// thousands of members.
    fn place_by_bottleneck_list(&mut self, due: &mut Vec<(u32, Member)>, constraint: ConstraintId) {
        let rank = &mut self.due_rank;
        for (i, (_, member)) in due.iter().enumerate() {
            // A clock's member always has a variable; the check keeps `rank` sized by variables.
            let var = self.activities[member.slot as usize].var;
            if var == NO_VARIABLE {
                continue;
            }
            let var = var as usize;
            if rank.len() <= var {
                rank.resize(var + 1, NOT_DUE);
            }
            rank[var] = i as u32;
        }
        let mut placed = std::mem::take(&mut self.due_placed);
        placed.clear();
        for (position, var) in self.lmm.variables_of(constraint).enumerate() {
            if let Some(i) = rank.get_mut(var.0 as usize).filter(|i| **i != NOT_DUE) {
                let member = due[*i as usize].1;
                placed.push((position as u32, member));
                *i = NOT_DUE;
            }
        }
        // Every member uses its bottleneck. Were one not found, it goes last, and its mark must
        // not outlive the round.
        debug_assert_eq!(placed.len(), due.len(), "a member off its bottleneck");
        if placed.len() < due.len() {
            for &(position, member) in due.iter() {
                let var = self.activities[member.slot as usize].var as usize;
                match rank.get_mut(var) {
                    Some(i) if *i != NOT_DUE => *i = NOT_DUE,
                    Some(_) => continue, // placed by the walk
                    None => {}           // no variable
                }
                placed.push((position, member));
            }
        }
        std::mem::swap(due, &mut placed);
        self.due_placed = placed;
    }

    /// Schedules the next completion of every clock marked since the last time.
    pub(super) fn reschedule_clocks(&mut self) {
        let now = self.now;
        let mut dirty = std::mem::take(&mut self.dirty_clocks);
        for &clock in &dirty {
            let (activities, activity_clock) = (&self.activities, &self.activity_clock);
            let live = |slot, generation| still_on_clock(activities, activity_clock, clock, slot, generation);
            let state = &mut self.clocks[clock as usize];
            state.dirty = false;
            state.tidy(live);
            let Some(head) = state.head(live) else {
                continue;
            };
            if state.level > 0.0 {
                state.advance(now);
                let due = if state.level.is_finite() {
                    now + state.time_to(head.target)
                } else {
                    now
                };
                let generation = state.generation;
                // As in `schedule`: a date that is not a finite number waits for infinity.
                if due.is_finite() || self.at_infinity {
                    self.queue.push(due, QueuedEvent::clock_due(clock, generation));
                }
            }
        }
        dirty.clear();
        self.dirty_clocks = dirty;
    }
}

/// Whether a clock's heap entry `(slot, generation)` is still a member of `clock`: entries of
/// members that left (rescheduled, completed, cancelled) stay in the heap until they surface.
fn still_on_clock(activities: &[Activity], activity_clock: &[u32], clock: u32, slot: Slot, generation: u32) -> bool {
    activities[slot as usize].generation == generation && activity_clock[slot as usize] == clock
}

/// Orders members due together by their element's position in the bottleneck's list (unique
/// per member). A lock-step round (most of the list due at once) is placed by position in one
/// pass; a few members are sorted.
fn sort_by_position(due: &mut Vec<(u32, Member)>) {
    let span = due
        .iter()
        .map(|&(position, _)| position as usize + 1)
        .max()
        .unwrap_or(0);
    if due.len() < BULK_DUE_MIN || span > 4 * due.len() {
        due.sort_unstable_by_key(|&(position, _)| position);
        return;
    }
    let mut index_at = vec![u32::MAX; span];
    for (i, &(position, _)) in due.iter().enumerate() {
        debug_assert_eq!(index_at[position as usize], u32::MAX, "positions are unique");
        index_at[position as usize] = i as u32;
    }
    let placed = index_at
        .iter()
        .filter(|&&i| i != u32::MAX)
        .map(|&i| due[i as usize])
        .collect();
    *due = placed;
}

#[cfg(test)]
#[path = "clock_tests.rs"]
mod tests;

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

use super::event::Slot;
use crate::time::SimTime;

/// No clock (an activity progressing on its own rate).
pub(crate) const NO_CLOCK: u32 = u32::MAX;

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

#[cfg(test)]
#[path = "clock_tests.rs"]
mod tests;

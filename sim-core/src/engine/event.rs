//! The closed set of engine events. Each names who schedules it and who handles it.

use crate::platform::{HostId, LinkId};

/// Slot of an activity in the engine's table.
pub(crate) type Slot = u32;

/// What a profile event changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileTarget {
    /// A host's speed factor (SimGrid `speed_file`).
    HostSpeed(HostId),
    /// A host's on/off state (SimGrid `state_file`).
    HostState(HostId),
    /// A link's bandwidth factor (SimGrid `bandwidth_file`).
    LinkBandwidth(LinkId),
    /// A link's latency (SimGrid `latency_file`).
    LinkLatency(LinkId),
    /// A link's on/off state (SimGrid `state_file`).
    LinkState(LinkId),
}

/// An engine event. Stale events (whose generation no longer matches their activity's) are
/// skipped when popped, never removed from the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Source: a resource model after a solve, or an FCFS disk, or a sleep. Destination: the
    /// activity, which completes if `generation` is still its own.
    #[allow(missing_docs)]
    Completion { slot: Slot, generation: u32 },
    /// Source: a bottleneck clock, when its level or members changed. Destination: the clock,
    /// whose member with the smallest target completes if `generation` is still the clock's.
    #[allow(missing_docs)]
    ClockDue { clock: u32, generation: u32 },
    /// Source: the network model at comm start. Destination: the comm, whose data phase starts.
    #[allow(missing_docs)]
    LatencyElapsed { slot: Slot, generation: u32 },
    /// Source: a profile (scheduled at engine creation, then one ahead). Destination: the
    /// resource it changes; `index` is the profile's event number.
    #[allow(missing_docs)]
    ProfileStep { target: ProfileTarget, index: u64 },
}

/// Generations (of activities and clocks) count modulo 2^30, so that an event the queue holds
/// fits in 8 bytes with its kind in the two bits left over ([`QueuedEvent`]). A stale event is
/// mistaken for a live one only if its activity's slot was reused 2^30 times while it waited.
const GENERATION_BITS: u32 = 30;
const GENERATION_MASK: u32 = (1 << GENERATION_BITS) - 1;

/// The generation after `generation`: the one way generations move on.
pub(crate) fn next_generation(generation: u32) -> u32 {
    generation.wrapping_add(1) & GENERATION_MASK
}

/// An [`Event`] as the future event set holds it: the activity's slot or the clock's index,
/// and the generation with the kind in its two high bits. 8 bytes against the 24 of an
/// `Event` (whose profile variant never enters the queue), so that a queue entry with its time
/// is 16 bytes: with thousands of pending events, what the queue moves is most of an event's
/// cost (hold model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QueuedEvent {
    target: u32,
    kind_and_generation: u32,
}

const COMPLETION: u32 = 0;
const CLOCK_DUE: u32 = 1;
const LATENCY_ELAPSED: u32 = 2;

impl QueuedEvent {
    fn new(kind: u32, target: u32, generation: u32) -> Self {
        debug_assert!(generation <= GENERATION_MASK, "generations move on by next_generation");
        QueuedEvent {
            target,
            kind_and_generation: kind << GENERATION_BITS | generation,
        }
    }

    /// [`Event::Completion`].
    pub(crate) fn completion(slot: Slot, generation: u32) -> Self {
        Self::new(COMPLETION, slot, generation)
    }

    /// [`Event::ClockDue`].
    pub(crate) fn clock_due(clock: u32, generation: u32) -> Self {
        Self::new(CLOCK_DUE, clock, generation)
    }

    /// [`Event::LatencyElapsed`].
    pub(crate) fn latency_elapsed(slot: Slot, generation: u32) -> Self {
        Self::new(LATENCY_ELAPSED, slot, generation)
    }

    /// The event it stands for.
    #[inline]
    pub(crate) fn event(self) -> Event {
        let (target, generation) = (self.target, self.kind_and_generation & GENERATION_MASK);
        match self.kind_and_generation >> GENERATION_BITS {
            COMPLETION => Event::Completion {
                slot: target,
                generation,
            },
            CLOCK_DUE => Event::ClockDue {
                clock: target,
                generation,
            },
            _ => Event::LatencyElapsed {
                slot: target,
                generation,
            },
        }
    }

    /// The activity it is for, if it is for one (not a clock).
    #[inline]
    pub(crate) fn activity(self) -> Option<Slot> {
        (self.kind_and_generation >> GENERATION_BITS != CLOCK_DUE).then_some(self.target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queued_event_stands_for_the_event_it_was_made_from() {
        for generation in [0, 1, 12_345, GENERATION_MASK] {
            for target in [0, 7, u32::MAX] {
                assert_eq!(
                    QueuedEvent::completion(target, generation).event(),
                    Event::Completion {
                        slot: target,
                        generation
                    }
                );
                assert_eq!(
                    QueuedEvent::clock_due(target, generation).event(),
                    Event::ClockDue {
                        clock: target,
                        generation
                    }
                );
                assert_eq!(
                    QueuedEvent::latency_elapsed(target, generation).event(),
                    Event::LatencyElapsed {
                        slot: target,
                        generation
                    }
                );
                assert_eq!(QueuedEvent::completion(target, generation).activity(), Some(target));
                assert_eq!(
                    QueuedEvent::latency_elapsed(target, generation).activity(),
                    Some(target)
                );
                assert_eq!(QueuedEvent::clock_due(target, generation).activity(), None);
            }
        }
        assert_eq!(std::mem::size_of::<QueuedEvent>(), 8);
    }

    #[test]
    fn generations_wrap_within_their_bits() {
        assert_eq!(next_generation(0), 1);
        assert_eq!(next_generation(GENERATION_MASK), 0);
        assert_eq!(next_generation(GENERATION_MASK - 1), GENERATION_MASK);
    }
}

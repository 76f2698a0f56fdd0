//! The future event set.
//!
//! A 4-ary heap of 16-byte keys; the events themselves sit in a slab indexed by slot. A key packs
//! `time bits (64) | insertion sequence (40) | slot (24)` into one `u128`, so ordering is a single
//! integer comparison: by time (the bits of a non-negative `f64` order like the number), then by
//! insertion order, which makes runs deterministic. Measured on the hold model with 10^4 pending
//! events (`gridsim bench engine`), this was 35% faster than `std`'s binary heap over 24-byte
//! `(time, seq, slot)` tuples.
//!
//! Limits: at most 2^24 (16.7 million) events pending at once; the sequence wraps after 2^40
//! (10^12) insertions, which could only reorder events of exactly equal times straddling the wrap.
//!
//! Nothing is ever removed from the middle: an event that became irrelevant is skipped when it
//! pops, by the generation check of its owner (see `engine`).

use std::cmp::Reverse;

use dary_heap::QuaternaryHeap;

use crate::time::SimTime;

const SLOT_BITS: u32 = 24;
const SEQ_BITS: u32 = 40;
const SLOT_MASK: u128 = (1 << SLOT_BITS) - 1;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

/// A priority queue of events of type `E`, ordered by (time, insertion sequence).
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: QuaternaryHeap<Reverse<u128>>,
    slots: Vec<Option<E>>,
    free: Vec<u32>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: QuaternaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            next_seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`.
    pub fn push(&mut self, time: SimTime, event: E) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(event);
                slot
            }
            None => {
                assert!(
                    self.slots.len() < 1 << SLOT_BITS,
                    "more than 2^24 events pending at once: the event queue's capacity"
                );
                self.slots.push(Some(event));
                (self.slots.len() - 1) as u32
            }
        };
        let seq = self.next_seq & SEQ_MASK;
        self.next_seq = self.next_seq.wrapping_add(1);
        let key = ((time.order_key() as u128) << 64) | ((seq as u128) << SLOT_BITS) | slot as u128;
        self.heap.push(Reverse(key));
    }

    /// Removes and returns the earliest event (earliest inserted among equal times).
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let Reverse(key) = self.heap.pop()?;
        let slot = (key & SLOT_MASK) as u32;
        let event = self.slots[slot as usize].take().expect("queued slot holds an event");
        self.free.push(slot);
        Some((SimTime::from_secs(f64::from_bits((key >> 64) as u64)), event))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap
            .peek()
            .map(|Reverse(k)| SimTime::from_secs(f64::from_bits((k >> 64) as u64)))
    }

    /// Number of pending events (stale ones included).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(SimTime::from_secs(2.0), "c");
        q.push(SimTime::from_secs(1.0), "a");
        q.push(SimTime::from_secs(2.0), "d");
        q.push(SimTime::from_secs(1.0), "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec!["a", "b", "c", "d"]);
    }

    #[test]
    fn slots_are_reused() {
        let mut q = EventQueue::new();
        for i in 0..100 {
            q.push(SimTime::from_secs(i as f64), i);
            assert_eq!(q.pop().map(|(_, e)| e), Some(i));
        }
        assert_eq!(q.slots.len(), 1);
        assert!(q.is_empty());
    }
}

//! The future event set.
//!
//! A binary heap of small `(time, sequence, slot)` keys; the events themselves sit in a slab
//! indexed by slot, so the heap moves 24-byte entries only (the style anchors measured entry size
//! to matter as much as the algorithm). Equal times pop in insertion order (the sequence number),
//! which makes runs deterministic. Nothing is ever removed from the middle: an event that became
//! irrelevant is skipped when it pops, by the generation check of its owner (see `engine`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    time: u64,
    seq: u64,
    slot: u32,
}

/// A priority queue of events of type `E`, ordered by (time, insertion sequence).
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Key>>,
    slots: Vec<Option<E>>,
    free: Vec<u32>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), slots: Vec::new(), free: Vec::new(), next_seq: 0 }
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
                self.slots.push(Some(event));
                (self.slots.len() - 1) as u32
            }
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Key { time: time.order_key(), seq, slot }));
    }

    /// Removes and returns the earliest event (earliest inserted among equal times).
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let Reverse(key) = self.heap.pop()?;
        let event = self.slots[key.slot as usize].take().expect("queued slot holds an event");
        self.free.push(key.slot);
        Some((SimTime::from_secs(f64::from_bits(key.time)), event))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(k)| SimTime::from_secs(f64::from_bits(k.time)))
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

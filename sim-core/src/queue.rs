//! The future event set.
//!
//! A monotone radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest
//! path problem", 1990) over the 64-bit time keys (the bits of a non-negative `f64` order like the
//! number), with 8-bit digits, plus a FIFO of the events due exactly at the last popped time. Pop
//! order is by time, then by insertion order, which makes runs deterministic. Events sit inline
//! next to their time in the buckets; no insertion sequence number is stored, because the
//! structure keeps insertion order among equal times by itself (see below).
//!
//! **Precondition (monotonicity):** every pushed time must be at or after the time of the last
//! popped event. The engine guarantees it (events are never scheduled in the past); `push` checks
//! it with a `debug_assert!` only, and in release builds a violation silently breaks the pop order.
//! Pushes *before the current minimum* are fine as long as they are not before the last popped
//! event: the engine peeks, re-solves a model, then may schedule events between the last popped
//! time and the peeked one. `peek_time` changes nothing, so it never restricts later pushes.
//!
//! How it works. `last` is the time of the last popped event (initially 0). Events at exactly
//! `last` wait in the FIFO `current`. Any other pending time `t > last` sits in the bucket
//! `(level, digit)` where `level` is the 8-bit digit holding the highest bit in which `t` differs
//! from `last`, and `digit` is `t`'s digit there. Every time of bucket `(l, d)` is below every time
//! of the buckets `(l, d')` with `d' > d` and of every higher level, so the earliest pending event
//! is in `current` or else in the first non-empty bucket, found with two `trailing_zeros` on a
//! two-level occupancy bitmap. Each bucket tracks its minimum time, so `peek_time` is O(1).
//! `pop` takes the first occurrence of the minimum `m` out of the first non-empty bucket `(l, d)`,
//! makes `m` the new `last`, and re-files the rest of that bucket relative to `m`: they agree with
//! `m` down to digit `l`, so they move to lower levels (or to `current` when equal to `m`), into
//! buckets that were empty. Events of the other buckets keep their bucket, because `m` agrees with
//! the old `last` above digit `l` and has digit `d` there. An event is re-filed at most 8 times
//! (7 levels down, then into `current`); in the hold model with 10^4 pending events, 1.6 times.
//!
//! Insertion order among equal times needs no sequence number: every bucket lists its events in
//! insertion order, since pushes append, and a re-filing spreads one bucket's events, in order,
//! over buckets that were empty. So the first occurrence of a bucket's minimum time is the
//! earliest inserted one, and `current` receives equal times in insertion order.
//!
//! Why not the `radix-heap` crate (0.4.2): it is a max-heap with no look at the next key that
//! leaves the structure alone. Its `top` is the bound on later pushes (the key it last popped or
//! constrained to), not the next key, and the one way to bring the next key up, `constrain`,
//! re-files the bucket and moves that bound to the next key, after which a push between the last
//! popped key and the next one panics: exactly the engine's peek-then-push-earlier pattern. It
//! also pops the last inserted first among equal keys, and finds the first non-empty bucket by a
//! linear scan.
//!
//! Why not a d-ary heap: a hold (pop the earliest event, push one at `now + Exp(1)`) on a heap
//! compares whole keys down a path that lengthens with the pending count, while the radix heap
//! re-files each event a bounded number of times. In ns per hold, on a shared 2-core AMD EPYC
//! (Zen 3, 2.45 GHz), against a 4-ary heap (crate `dary_heap`) of packed
//! `time | sequence | slot` `u128` keys over a slab of events:
//!
//! | pending | 4-ary heap | radix heap |
//! |--------:|-----------:|-----------:|
//! |    10^3 |         57 |         30 |
//! |    10^4 |         77 |         33 |
//! |    10^5 |        140 |         37 |
//!
//! (A scratch benchmark outside the repository: `cargo build --release`; fixed-seed table of
//! 2^16 Exp(1) samples, `u64` events, prefill then one warm-up hold per pending event, then
//! 2·10^7 holds timed in thread CPU time; median of 3 runs, the two queues interleaved. The
//! machine is shared: repeated medians vary by up to 20%.
//! `cargo bench --bench engine -- queue_hold` times this queue alone.)
//!
//! Memory: events sit in one `Vec` per bucket. A drained bucket keeps its buffer if its capacity
//! is at most 256 events and frees it otherwise, so idle buffers hold at most 2048 × 256 events.
//! In the hold model (2·10^6 holds) the total capacity peaked at 79 K events with 10^3 pending,
//! 93 K with 10^4 and 237 K with 10^5. There is no limit on the number of pending events, and the
//! 64 KiB bucket table is allocated once, by `new`.
//!
//! Nothing is ever removed from the middle: an event that became irrelevant is skipped when it
//! pops, by the generation check of its owner (see `engine`).

use std::collections::VecDeque;
use std::mem;

use crate::time::SimTime;

/// Bits of the key resolved by one level.
const DIGIT_BITS: u32 = 8;
/// Buckets per level.
const RADIX: usize = 1 << DIGIT_BITS;
/// Levels: one per digit of the 64-bit key.
const LEVELS: usize = (u64::BITS / DIGIT_BITS) as usize;
/// Buckets in all; bucket `level * RADIX + digit`.
const BUCKETS: usize = LEVELS * RADIX;
/// Words of the occupancy bitmap (one bit per bucket).
const WORDS: usize = BUCKETS / 64;
/// A drained bucket keeps its buffer up to this capacity (in events).
const KEEP_CAPACITY: usize = 256;

const _: () = assert!(u64::BITS % DIGIT_BITS == 0 && BUCKETS.is_power_of_two() && WORDS <= 64);

/// A pending event and its time key.
#[derive(Debug)]
struct Entry<E> {
    /// `SimTime::order_key` of the event's time.
    time: u64,
    event: E,
}

#[derive(Debug)]
struct Bucket<E> {
    /// In insertion order.
    entries: Vec<Entry<E>>,
    /// The smallest time in `entries`, `u64::MAX` when empty.
    min_time: u64,
}

/// The bucket of a time `time != last`, relative to `last`.
#[inline(always)]
fn bucket_index(time: u64, last: u64) -> usize {
    let high = 63 - (time ^ last).leading_zeros();
    let level = high / DIGIT_BITS;
    let digit = (time >> (level * DIGIT_BITS)) as usize & (RADIX - 1);
    // The mask only spares a bounds check: the index is below BUCKETS anyway.
    (level as usize * RADIX + digit) & (BUCKETS - 1)
}

/// Appends `entry` (whose time is not `last`) to its bucket relative to `last`, and marks the
/// bucket occupied. A free function over the fields, so that `pop` can keep `summary` in a local
/// while it re-files a bucket.
#[inline(always)]
fn file<E>(
    buckets: &mut [Bucket<E>; BUCKETS],
    words: &mut [u64; WORDS],
    summary: &mut u64,
    entry: Entry<E>,
    last: u64,
) {
    let b = bucket_index(entry.time, last);
    words[b / 64 % WORDS] |= 1 << (b % 64);
    *summary |= 1 << (b / 64);
    let bucket = &mut buckets[b];
    bucket.min_time = bucket.min_time.min(entry.time);
    bucket.entries.push(entry);
}

/// A priority queue of events of type `E`, ordered by (time, insertion order).
///
/// Monotone: a pushed time must not be before the time of the last popped event (see the module
/// documentation).
#[derive(Debug)]
pub struct EventQueue<E> {
    buckets: Box<[Bucket<E>; BUCKETS]>,
    /// Bit `b % 64` of word `b / 64` is set when bucket `b` is non-empty.
    words: [u64; WORDS],
    /// Bit `w` is set when `words[w]` is non-zero.
    summary: u64,
    /// The pending events at exactly `last`, in insertion order.
    current: VecDeque<Entry<E>>,
    /// Time key of the last popped event (0 before the first pop).
    last: u64,
    len: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        let buckets: Vec<Bucket<E>> = (0..BUCKETS)
            .map(|_| Bucket {
                entries: Vec::new(),
                min_time: u64::MAX,
            })
            .collect();
        let Ok(buckets) = buckets.into_boxed_slice().try_into() else {
            unreachable!("BUCKETS buckets were built")
        };
        EventQueue {
            buckets,
            words: [0; WORDS],
            summary: 0,
            current: VecDeque::new(),
            last: 0,
            len: 0,
        }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`.
    ///
    /// Precondition: `time` is not before the time of the last popped event (checked in debug
    /// builds only). It may be before [`EventQueue::peek_time`].
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        let time = time.order_key();
        debug_assert!(
            time >= self.last,
            "event pushed at {} s, before the last popped event at {} s",
            f64::from_bits(time),
            f64::from_bits(self.last)
        );
        self.len += 1;
        let entry = Entry { time, event };
        if time == self.last {
            self.current.push_back(entry);
        } else {
            file(&mut self.buckets, &mut self.words, &mut self.summary, entry, self.last);
        }
    }

    /// The first non-empty bucket.
    #[inline(always)]
    fn first_bucket(&self) -> Option<usize> {
        if self.summary == 0 {
            return None;
        }
        let w = self.summary.trailing_zeros() as usize % WORDS;
        Some((w * 64 + self.words[w].trailing_zeros() as usize) & (BUCKETS - 1))
    }

    /// Removes and returns the earliest event if it is not after `limit` (the engine's horizon):
    /// one look at the bitmap instead of a [`EventQueue::peek_time`] and a [`EventQueue::pop`].
    // Forced: on the engine's inlined event path (`Engine::next_notification_until`).
    #[inline(always)]
    pub fn pop_not_after(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        let next = if self.current.is_empty() {
            self.buckets[self.first_bucket()?].min_time
        } else {
            self.last
        };
        if next > limit.order_key() {
            return None;
        }
        self.pop()
    }

    /// Removes and returns the earliest event (earliest inserted among equal times).
    // Forced: on the engine's inlined event path (`Engine::next_notification_until`).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        // One function on purpose: splitting the bucket path into a helper returning an
        // `Option<Entry>` costs about 10% on the hold model.
        let min = if let Some(entry) = self.current.pop_front() {
            entry
        } else {
            // Take the first non-empty bucket and clear its occupancy bit.
            if self.summary == 0 {
                return None;
            }
            let w = self.summary.trailing_zeros() as usize % WORDS;
            let word = self.words[w];
            let b = (w * 64 + word.trailing_zeros() as usize) & (BUCKETS - 1);
            let word = word & (word - 1);
            self.words[w] = word;
            self.summary &= !(((word == 0) as u64) << w);
            let bucket = &mut self.buckets[b];
            let last = mem::replace(&mut bucket.min_time, u64::MAX);
            if bucket.entries.len() == 1 {
                bucket.entries.pop().expect("the bucket holds one event")
            } else {
                // Take out the first occurrence of the minimum, re-file the rest relative to it.
                let mut entries = mem::take(&mut bucket.entries);
                let at = entries
                    .iter()
                    .position(|e| e.time == last)
                    .expect("a bucket holds its minimum");
                let mut summary = self.summary;
                let mut rest = entries.drain(..);
                // Before the first occurrence of the minimum, every time is above it.
                for entry in rest.by_ref().take(at) {
                    file(&mut self.buckets, &mut self.words, &mut summary, entry, last);
                }
                let min = rest.next().expect("the minimum is at `at`");
                for entry in rest {
                    if entry.time == last {
                        self.current.push_back(entry);
                    } else {
                        file(&mut self.buckets, &mut self.words, &mut summary, entry, last);
                    }
                }
                self.summary = summary;
                if entries.capacity() <= KEEP_CAPACITY {
                    self.buckets[b].entries = entries;
                }
                min
            }
        };
        self.last = min.time;
        self.len -= 1;
        Some((SimTime::from_secs(f64::from_bits(min.time)), min.event))
    }

    /// The time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        let time = if self.current.is_empty() {
            self.buckets[self.first_bucket()?].min_time
        } else {
            self.last
        };
        Some(SimTime::from_secs(f64::from_bits(time)))
    }

    /// The earliest event, when finding it costs O(1): it waits at the last popped time, or its
    /// bucket holds one event or lies on the lowest level (whose buckets each hold a single time,
    /// so the first event is the earliest inserted). `None` otherwise, and when empty. For
    /// prefetching what the next pop will need; use [`EventQueue::pop`] to take it.
    // Forced: on the engine's inlined event path (`Engine::next_notification_until`).
    #[inline(always)]
    pub fn peek_cheap(&self) -> Option<&E> {
        if let Some(entry) = self.current.front() {
            return Some(&entry.event);
        }
        let b = self.first_bucket()?;
        let entries = &self.buckets[b].entries;
        if entries.len() == 1 || b < RADIX {
            entries.first().map(|e| &e.event)
        } else {
            None
        }
    }

    /// Keeps only the events for which `keep` is true, in their order (time, then insertion).
    /// O(pending events); for dropping superseded events in bulk.
    pub fn retain(&mut self, mut keep: impl FnMut(&E) -> bool) {
        self.current.retain(|e| keep(&e.event));
        let mut len = self.current.len();
        self.words = [0; WORDS];
        self.summary = 0;
        for (b, bucket) in self.buckets.iter_mut().enumerate() {
            if bucket.entries.is_empty() {
                continue;
            }
            // Entries keep their buckets: the buckets are relative to `last`, which does not move.
            bucket.entries.retain(|e| keep(&e.event));
            bucket.min_time = bucket.entries.iter().map(|e| e.time).min().unwrap_or(u64::MAX);
            if !bucket.entries.is_empty() {
                self.words[b / 64 % WORDS] |= 1 << (b % 64);
                self.summary |= 1 << (b / 64);
                len += bucket.entries.len();
            }
        }
        self.len = len;
    }

    /// Number of pending events (stale ones included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn secs(t: f64) -> SimTime {
        SimTime::from_secs(t)
    }

    /// Everything popped, as (time, event).
    fn drain<E>(q: &mut EventQueue<E>) -> Vec<(f64, E)> {
        std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.secs(), e)).collect()
    }

    /// Total buffer capacity, in events.
    fn capacity<E>(q: &EventQueue<E>) -> usize {
        q.buckets.iter().map(|b| b.entries.capacity()).sum::<usize>() + q.current.capacity()
    }

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

    /// With one event pending at a time, no buffer grows past its first allocation (4 events).
    #[test]
    fn storage_is_reused() {
        let mut q = EventQueue::new();
        for i in 0..3000 {
            q.push(SimTime::from_secs(i as f64 * 0.25), i);
            assert_eq!(q.pop().map(|(_, e)| e), Some(i));
        }
        assert!(q.buckets.iter().all(|b| b.entries.capacity() <= 4));
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn peek_cheap_is_the_next_pop_when_given() {
        let mut q = EventQueue::new();
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..2000u64 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            q.push(secs((rng % 1000) as f64 / 8.0), i);
        }
        let mut given = 0;
        loop {
            let peeked = q.peek_cheap().copied();
            let Some((_, e)) = q.pop() else { break };
            if let Some(p) = peeked {
                assert_eq!(p, e);
                given += 1;
            }
        }
        // Many times repeat (1000 distinct times for 2000 events): most peeks are answered.
        assert!(given > 1000, "only {given} peeks answered");
        assert!(q.peek_cheap().is_none());
    }

    #[test]
    fn pop_not_after_stops_at_the_limit() {
        let mut q = EventQueue::new();
        for (t, e) in [(2.0, 'b'), (1.0, 'a'), (3.0, 'c')] {
            q.push(secs(t), e);
        }
        assert_eq!(q.pop_not_after(secs(0.5)), None);
        assert_eq!(q.pop_not_after(secs(1.0)), Some((secs(1.0), 'a')));
        assert_eq!(q.pop_not_after(secs(2.5)), Some((secs(2.0), 'b')));
        assert_eq!(q.pop_not_after(secs(2.5)), None);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop_not_after(SimTime::INFINITY), Some((secs(3.0), 'c')));
        assert_eq!(q.pop_not_after(SimTime::INFINITY), None);
    }

    #[test]
    fn empty_queue() {
        let mut q: EventQueue<u8> = EventQueue::default();
        assert!(q.is_empty());
        assert_eq!(q.len(), 0);
        assert_eq!(q.peek_time(), None);
        assert_eq!(q.pop(), None);
    }

    /// The engine's pattern: peek, then schedule something between the last popped time and the
    /// peeked one.
    #[test]
    fn push_before_the_peeked_time() {
        let mut q = EventQueue::new();
        q.push(secs(1.0), "a");
        q.push(secs(5.0), "e");
        assert_eq!(q.pop(), Some((secs(1.0), "a")));
        assert_eq!(q.peek_time(), Some(secs(5.0)));
        q.push(secs(3.0), "c");
        assert_eq!(q.peek_time(), Some(secs(3.0)));
        q.push(secs(1.0), "b"); // at the last popped time
        assert_eq!(q.peek_time(), Some(secs(1.0)));
        q.push(secs(4.0), "d");
        assert_eq!(q.len(), 4);
        assert_eq!(drain(&mut q), vec![(1.0, "b"), (3.0, "c"), (4.0, "d"), (5.0, "e")]);
    }

    /// Equal times stay in insertion order whether they meet in one bucket, are re-filed
    /// together, or are pushed at the current time while others of that time wait.
    #[test]
    fn equal_times_are_fifo_across_refiling() {
        let mut q = EventQueue::new();
        q.push(secs(0.5), 0);
        for i in 1..=5 {
            q.push(secs(2.0), i);
        }
        q.push(secs(3.0), 6);
        for i in 7..=9 {
            q.push(secs(2.0), i);
        }
        assert_eq!(q.pop(), Some((secs(0.5), 0)));
        q.push(secs(2.0), 10);
        // The 2.0 bucket is re-filed around its first event; the others go to `current`.
        assert_eq!(q.pop(), Some((secs(2.0), 1)));
        q.push(secs(2.0), 11);
        let order: Vec<_> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, vec![2, 3, 4, 5, 7, 8, 9, 10, 11, 6]);
    }

    #[test]
    fn starts_at_zero_and_spans_all_magnitudes() {
        let times = [0.0, 1e-300, 1e-9, 0.5, 1.0, 3.25, 1024.0, 1e12, 1e300, f64::INFINITY];
        let mut q = EventQueue::new();
        for (i, &t) in times.iter().enumerate().rev() {
            q.push(secs(t), i);
            q.push(secs(t), i + 100);
        }
        let expected: Vec<_> = times
            .iter()
            .enumerate()
            .flat_map(|(i, &t)| [(t, i), (t, i + 100)])
            .collect();
        assert_eq!(drain(&mut q), expected);
    }

    /// A drained bucket gives back a buffer larger than `KEEP_CAPACITY`.
    #[test]
    fn large_buffers_are_freed() {
        let mut q = EventQueue::new();
        for i in 0..4 * KEEP_CAPACITY {
            q.push(secs(1.0 + i as f64 * 1e-6), i);
        }
        assert!(capacity(&q) >= 4 * KEEP_CAPACITY);
        assert_eq!(q.pop().map(|(_, e)| e), Some(0));
        let order: Vec<_> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, (1..4 * KEEP_CAPACITY).collect::<Vec<_>>());
        assert!(capacity(&q) <= BUCKETS / 8 * KEEP_CAPACITY, "capacity {}", capacity(&q));
    }

    /// The hold model against a sort of the same events by (time, insertion index).
    #[test]
    fn hold_model_matches_a_sort() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut exp = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // A coarse grid, so that many times are equal.
            (-(((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64).ln() * 64.0).floor() / 64.0
        };
        let mut q = EventQueue::new();
        let mut all = Vec::new();
        for i in 0..3000 {
            let t = exp();
            q.push(secs(t), i);
            all.push((t, i));
        }
        let mut popped = Vec::new();
        for i in 3000..60_000 {
            let (t, e) = q.pop().expect("the hold model keeps the queue full");
            popped.push((t.secs(), e));
            let t = t.secs() + exp();
            q.push(secs(t), i);
            all.push((t, i));
        }
        popped.extend(drain(&mut q));
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        assert_eq!(popped, all);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "before the last popped event")]
    fn pushing_into_the_past_is_caught_in_debug_builds() {
        let mut q = EventQueue::new();
        q.push(secs(2.0), ());
        q.pop();
        q.push(secs(1.0), ());
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// Push at a time chosen by `kind` from `arg` (see `push_time`).
        Push(u8, u32),
        Pop,
        Peek,
        /// Drop the events whose index leaves this remainder modulo 3.
        Retain(u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            5 => (0u8..7, any::<u32>()).prop_map(|(kind, arg)| Op::Push(kind, arg)),
            4 => Just(Op::Pop),
            2 => Just(Op::Peek),
            1 => (0u8..3).prop_map(Op::Retain),
        ]
    }

    /// A time at or after `last` (the last popped time), with many ties and the
    /// peek-then-push-earlier pattern.
    fn push_time(kind: u8, arg: u32, last: f64, pending: &[(f64, u64)]) -> f64 {
        let min = pending.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let frac = arg as f64 / u32::MAX as f64;
        match kind {
            // Exactly the last popped time.
            0 => last,
            // The time of a pending event.
            1 if !pending.is_empty() => pending[arg as usize % pending.len()].0,
            // Between the last popped time and the earliest pending one.
            2 if min.is_finite() => last + (min - last) * frac,
            // A few whole steps ahead: ties.
            3 => last + (arg % 4) as f64,
            // Just ahead.
            4 => last + (arg % 1000) as f64 * 1e-12,
            // Anywhere from 2^-30 to 2^30 ahead, rarely never.
            5 if arg % 61 == 0 => f64::INFINITY,
            5 => last + frac * 2f64.powi((arg % 61) as i32 - 30),
            _ => last + frac,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// Random interleavings of monotone pushes, peeks, pops and retains pop exactly like a
        /// sort by (time, insertion index).
        #[test]
        fn matches_a_sorted_reference(ops in prop::collection::vec(op(), 0..300)) {
            let mut q = EventQueue::new();
            let mut pending: Vec<(f64, u64)> = Vec::new();
            let mut last = 0.0;
            let mut next = 0u64;
            let earliest = |pending: &[(f64, u64)]| {
                pending
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, &(t, i))| (secs(t).order_key(), i))
                    .map(|(at, _)| at)
            };
            for op in ops.into_iter().chain(std::iter::repeat(Op::Pop).take(300)) {
                match op {
                    Op::Push(kind, arg) => {
                        let t = push_time(kind, arg, last, &pending);
                        prop_assert!(t >= last);
                        q.push(secs(t), next);
                        pending.push((t, next));
                        next += 1;
                    }
                    Op::Pop => {
                        let expected = earliest(&pending).map(|at| pending.remove(at));
                        if let Some((t, _)) = expected {
                            last = t;
                        }
                        let got = q.pop().map(|(t, e)| (t.order_key(), e));
                        prop_assert_eq!(got, expected.map(|(t, i)| (secs(t).order_key(), i)));
                    }
                    Op::Peek => {
                        let expected = earliest(&pending).map(|at| secs(pending[at].0).order_key());
                        prop_assert_eq!(q.peek_time().map(SimTime::order_key), expected);
                    }
                    Op::Retain(r) => {
                        q.retain(|&i| i % 3 != r as u64);
                        pending.retain(|&(_, i)| i % 3 != r as u64);
                    }
                }
                prop_assert_eq!(q.len(), pending.len());
                prop_assert_eq!(q.is_empty(), pending.is_empty());
            }
        }
    }
}

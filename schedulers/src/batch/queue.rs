//! The waiting queue as the simulation keeps it and policies read it: jobs in queue order
//! (submit time, then job id), reachable by position in O(log n), with removal in O(log n).
//!
//! Jobs join the queue in queue order (every job arriving at a date sorts after every job
//! already queued, whose submit times are earlier), so the queue is a subsequence of the jobs in
//! the order they joined: each job keeps the *slot* it was given when it joined, slots only
//! grow, and a job's position is the number of queued slots before its own. A Fenwick tree over
//! the slots (Fenwick 1994, "A new data structure for cumulative frequency tables") counts them
//! (position of a slot, slot at a position: O(log n)), and a doubly linked list of the queued
//! slots walks the queue in order in O(1) a job, however many jobs left it in between. When the
//! slots of jobs that left outnumber the queued ones, the queued jobs are given new slots from 0
//! ([`Queue::epoch`] counts these renumberings), so that the queue's memory follows its length,
//! not the number of jobs of the run, at O(1) amortized a job.

use super::policy::QueuedJob;

const NONE: u32 = u32::MAX;

/// The queue; see the module docs.
#[derive(Clone, Debug)]
pub struct Queue {
    /// Every job that joined, by slot.
    slots: Vec<QueuedJob>,
    /// Fenwick tree over the slots (1-based): `tree[i - 1]` counts the queued slots of
    /// `(i - lowbit(i), i]`.
    tree: Vec<u32>,
    /// The next and previous queued slot of each queued slot (`NONE` at the ends); a slot that
    /// left has `prev[s] == s`.
    next: Vec<u32>,
    prev: Vec<u32>,
    head: u32,
    tail: u32,
    len: usize,
    epoch: u64,
}

impl Default for Queue {
    fn default() -> Queue {
        Queue::with_capacity(0)
    }
}

impl Queue {
    /// An empty queue with room for `n` jobs.
    pub fn with_capacity(n: usize) -> Queue {
        Queue {
            slots: Vec::with_capacity(n),
            tree: Vec::with_capacity(n),
            next: Vec::with_capacity(n),
            prev: Vec::with_capacity(n),
            head: NONE,
            tail: NONE,
            len: 0,
            epoch: 0,
        }
    }

    /// How many times the queued jobs were given new slots: a slot names the same job only
    /// between two decisions of the same epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Gives the queued jobs new slots from 0, in queue order, when the slots of jobs that left
    /// outnumber the queued ones (and a few thousand); see the module docs.
    pub(crate) fn compact_if_sparse(&mut self) {
        // Unit tests renumber after a few jobs, so that the simulations of their small job
        // lists go through renumberings too.
        self.compact_over(if cfg!(test) { 8 } else { 4096 });
    }

    /// [`Queue::compact_if_sparse`] with `spare` slots allowed beyond twice the length.
    fn compact_over(&mut self, spare: usize) {
        if self.slots.len() < 2 * self.len + spare {
            return;
        }
        let live: Vec<QueuedJob> = self.iter().copied().collect();
        self.renumber(live);
    }

    /// Makes `live` (in queue order) the queue, in slots from 0, at a new epoch.
    fn renumber(&mut self, live: Vec<QueuedJob>) {
        for v in [&mut self.tree, &mut self.next, &mut self.prev] {
            v.clear();
        }
        self.slots.clear();
        (self.head, self.tail, self.len) = (NONE, NONE, 0);
        for job in live {
            self.push(job);
        }
        self.epoch += 1;
    }

    /// Jobs queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no job is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Jobs that ever joined (the next job's slot).
    pub fn joined(&self) -> usize {
        self.slots.len()
    }

    /// The job of `slot` (queued or not).
    pub fn job(&self, slot: usize) -> &QueuedJob {
        &self.slots[slot]
    }

    /// Whether the job of `slot` is still queued.
    pub fn is_queued(&self, slot: usize) -> bool {
        slot < self.slots.len() && self.prev[slot] != slot as u32
    }

    /// The first queued job.
    pub fn first(&self) -> Option<&QueuedJob> {
        (self.head != NONE).then(|| &self.slots[self.head as usize])
    }

    /// Queued slots from `position` on, in queue order (O(log n) to find the first, O(1) each
    /// after).
    pub fn slots_from(&self, position: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.slot_at(position).map_or(NONE, |s| s as u32);
        std::iter::from_fn(move || {
            if at == NONE {
                return None;
            }
            let s = at as usize;
            at = self.next[s];
            Some(s)
        })
    }

    /// Queued jobs in queue order.
    pub fn iter(&self) -> impl Iterator<Item = &QueuedJob> + '_ {
        self.slots_from(0).map(|s| &self.slots[s])
    }

    /// Queue position of the queued job of `slot` (`None` if it is not queued).
    pub fn position(&self, slot: usize) -> Option<usize> {
        if !self.is_queued(slot) {
            return None;
        }
        // Queued slots before `slot`: the prefix count of slots 1..=slot (1-based).
        let mut i = slot;
        let mut count = 0usize;
        while i > 0 {
            count += self.tree[i - 1] as usize;
            i &= i - 1;
        }
        Some(count)
    }

    /// The slot of the job at queue `position`, `None` past the end.
    pub fn slot_at(&self, position: usize) -> Option<usize> {
        if position >= self.len {
            return None;
        }
        // The smallest 1-based i whose prefix count exceeds `position`, by binary lifting.
        let n = self.tree.len();
        let mut step = if n == 0 {
            0
        } else {
            1usize << (usize::BITS - 1 - n.leading_zeros())
        };
        let (mut i, mut rest) = (0usize, position as u32);
        while step > 0 {
            if i + step <= n && self.tree[i + step - 1] <= rest {
                i += step;
                rest -= self.tree[i - 1];
            }
            step >>= 1;
        }
        Some(i)
    }

    /// Appends `job` at the end of the queue; returns its slot. Its submit time must be at least
    /// every queued job's (the simulation's arrivals are in queue order).
    pub(crate) fn push(&mut self, job: QueuedJob) -> usize {
        let slot = self.slots.len();
        // A new Fenwick node i counts (i - lowbit(i), i]: the slots of that range before i, all
        // present in the tree already, plus i itself.
        let i = slot + 1;
        let low = i - (i & i.wrapping_neg());
        let mut count = 1u32;
        let mut j = i - 1;
        while j > low {
            count += self.tree[j - 1];
            j &= j - 1;
        }
        // `j` walks down from i - 1 by whole Fenwick ranges, which tile (low, i - 1] exactly.
        self.tree.push(count);
        self.slots.push(job);
        self.next.push(NONE);
        self.prev.push(self.tail);
        if self.tail == NONE {
            self.head = slot as u32;
        } else {
            self.next[self.tail as usize] = slot as u32;
        }
        self.tail = slot as u32;
        self.len += 1;
        slot
    }

    /// Puts `job` back at its place in queue order (submit time, then id, then job index): a
    /// job a host failure sent back. Slots follow queue order, so the queued jobs are given new
    /// slots (a new [`Queue::epoch`]), at O(n): failures are rare beside arrivals.
    pub(crate) fn insert_in_order(&mut self, job: QueuedJob) {
        let key = |q: &QueuedJob| (q.submit_s, q.id, q.index);
        let before = |q: &QueuedJob| {
            let (a, b) = (key(q), key(&job));
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)).is_lt()
        };
        let mut live: Vec<QueuedJob> = self.iter().copied().collect();
        let at = live.partition_point(before);
        live.insert(at, job);
        self.renumber(live);
    }

    /// Removes the queued job of `slot`.
    pub(crate) fn remove(&mut self, slot: usize) {
        debug_assert!(self.is_queued(slot));
        let (p, n) = (self.prev[slot], self.next[slot]);
        if p == NONE {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.prev[slot] = slot as u32;
        let mut i = slot + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] -= 1;
            i += i & i.wrapping_neg();
        }
        self.len -= 1;
    }
}

impl std::ops::Index<usize> for Queue {
    type Output = QueuedJob;

    /// The job at queue `position` (O(log n)); panics past the end, as a slice does.
    fn index(&self, position: usize) -> &QueuedJob {
        match self.slot_at(position) {
            Some(s) => &self.slots[s],
            None => panic!("queue position {position} of {}", self.len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn job(index: usize) -> QueuedJob {
        QueuedJob {
            index,
            id: index as i64,
            submit_s: index as f64,
            size: 1,
            request_s: 1.0,
        }
    }

    proptest! {
        // Against a plain vector of the queued jobs: positions, slots, order, length, through
        // renumberings.
        #[test]
        fn agrees_with_a_vector(ops in prop::collection::vec((0u8..3, 0usize..1000), 1..300)) {
            let mut q = Queue::with_capacity(4);
            let mut v: Vec<usize> = Vec::new();
            let mut joined = 0;
            for (op, r) in ops {
                if op == 0 || v.is_empty() {
                    q.push(job(joined));
                    v.push(joined);
                    joined += 1;
                } else if op == 1 {
                    let index = v.remove(r % v.len());
                    let slot = (0..q.joined()).find(|&s| q.is_queued(s) && q.job(s).index == index).unwrap();
                    q.remove(slot);
                    prop_assert!(!q.is_queued(slot));
                    prop_assert_eq!(q.position(slot), None);
                } else {
                    let (epoch, before) = (q.epoch(), q.joined());
                    q.compact_over(3);
                    if before >= 2 * v.len() + 3 {
                        prop_assert_eq!((q.epoch(), q.joined()), (epoch + 1, v.len()));
                    } else {
                        prop_assert_eq!((q.epoch(), q.joined()), (epoch, before));
                    }
                }
                prop_assert_eq!(q.len(), v.len());
                for (p, &index) in v.iter().enumerate() {
                    let s = q.slot_at(p).unwrap();
                    prop_assert_eq!(q.job(s).index, index);
                    prop_assert_eq!(q.position(s), Some(p));
                    prop_assert_eq!(q[p].index, index);
                }
                prop_assert_eq!(q.slot_at(v.len()), None);
                prop_assert_eq!(q.iter().map(|j| j.index).collect::<Vec<_>>(), v.clone());
                prop_assert_eq!(q.first().map(|j| j.index), v.first().copied());
                for p in 0..=v.len() {
                    let from: Vec<usize> = q.slots_from(p).map(|s| q.job(s).index).collect();
                    prop_assert_eq!(from, v[p..].to_vec());
                }
            }
        }
    }
}

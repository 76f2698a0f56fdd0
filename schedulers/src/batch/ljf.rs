//! LJF: queued jobs start longest request first (equal requests in queue order) while the next
//! one fits; the first that does not fit blocks the rest (no backfilling).

use super::policy::{by_request, start_in_order, BatchPolicy, BatchView};
use crate::registry::{Entry, PolicyInfo};

/// Longest job first.
#[derive(Clone, Debug, Default)]
pub struct Ljf;

impl BatchPolicy for Ljf {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        start_in_order(view, by_request(view.queue, 0..view.queue.len(), true))
    }
}

/// The registry entry: `ljf`, no parameter.
pub const ENTRY: Entry<dyn BatchPolicy> = Entry {
    info: PolicyInfo {
        name: "ljf",
        description: "longest request first, no backfilling: the first job that does not fit blocks the rest",
        params: &[],
    },
    build: |_| Ok(Box::new(Ljf)),
};

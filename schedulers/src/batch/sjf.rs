//! SJF: queued jobs start shortest request first (equal requests in queue order) while the next
//! one fits; the first that does not fit blocks the rest (no backfilling). "Shortest" is by the
//! request, the only length a scheduler knows before a job runs.

use super::policy::{by_request, start_in_order, BatchPolicy, BatchView};
use crate::registry::{Entry, PolicyInfo};

/// Shortest job first.
#[derive(Clone, Debug, Default)]
pub struct Sjf;

impl BatchPolicy for Sjf {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        start_in_order(view, by_request(view.queue, 0..view.queue.len(), false))
    }
}

/// The registry entry: `sjf`, no parameter.
pub const ENTRY: Entry<dyn BatchPolicy> = Entry {
    info: PolicyInfo {
        name: "sjf",
        description: "shortest request first, no backfilling: the first job that does not fit blocks the rest",
        params: &[],
    },
    build: |_| Ok(Box::new(Sjf)),
};

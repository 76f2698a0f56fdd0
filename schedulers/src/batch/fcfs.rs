//! FCFS: jobs start in queue order (submit time, then job id) while the next one fits; a job
//! that does not fit blocks every later one (no backfilling).

use super::policy::{start_in_order, BatchPolicy, BatchView};
use crate::registry::{Entry, PolicyInfo};

/// First come, first served.
#[derive(Clone, Debug, Default)]
pub struct Fcfs;

impl BatchPolicy for Fcfs {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        start_in_order(view, 0..view.queue.len())
    }
}

/// The registry entry: `fcfs`, no parameter.
pub const ENTRY: Entry<dyn BatchPolicy> = Entry {
    info: PolicyInfo {
        name: "fcfs",
        description: "first come, first served: queue order, the first job that does not fit blocks the rest",
        params: &[],
    },
    build: |_| Ok(Box::new(Fcfs)),
};

//! SJF: queued jobs start shortest request first (equal requests in queue order) while the next
//! one fits; the first that does not fit blocks the rest (no backfilling). "Shortest" is by the
//! request, the only length a scheduler knows before a job runs.

use super::policy::{BatchPolicy, BatchView, RequestOrder};
use crate::registry::{Entry, PolicyInfo};

/// Shortest job first.
#[derive(Clone, Debug)]
pub struct Sjf {
    /// The queue by request, kept between decisions.
    order: RequestOrder,
}

impl Default for Sjf {
    fn default() -> Self {
        Sjf {
            order: RequestOrder::new(false),
        }
    }
}

impl BatchPolicy for Sjf {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        self.order.start_in_order(view)
    }
}

/// The registry entry: `sjf`, no parameter.
pub const ENTRY: Entry<dyn BatchPolicy> = Entry {
    info: PolicyInfo {
        name: "sjf",
        description: "shortest request first, no backfilling: the first job that does not fit blocks the rest",
        params: &[],
    },
    build: |_| Ok(Box::new(Sjf::default())),
};

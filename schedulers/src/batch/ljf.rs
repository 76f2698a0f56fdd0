//! LJF: queued jobs start longest request first (equal requests in queue order) while the next
//! one fits; the first that does not fit blocks the rest (no backfilling).

use super::policy::{BatchPolicy, BatchView, RequestOrder};
use crate::registry::{Entry, PolicyInfo};

/// Longest job first.
#[derive(Clone, Debug)]
pub struct Ljf {
    /// The queue by request, kept between decisions.
    order: RequestOrder,
}

impl Default for Ljf {
    fn default() -> Self {
        Ljf {
            order: RequestOrder::new(true),
        }
    }
}

impl BatchPolicy for Ljf {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        self.order.start_in_order(view)
    }
}

/// The registry entry: `ljf`, no parameter.
pub const ENTRY: Entry<dyn BatchPolicy> = Entry {
    info: PolicyInfo {
        name: "ljf",
        description: "longest request first, no backfilling: the first job that does not fit blocks the rest",
        params: &[],
    },
    build: |_| Ok(Box::new(Ljf::default())),
};

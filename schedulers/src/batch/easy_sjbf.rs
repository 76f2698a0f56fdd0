//! EASY-SJBF: EASY backfilling whose backfill candidates are taken shortest request first
//! (equal requests in queue order), as in Tsafrir, Etsion and Feitelson 2007 ("Backfilling
//! using system-generated predictions rather than user runtime estimates"). The reservation
//! rule is EASY's ([`super::policy::easy_backfill`]).

use super::policy::{easy_backfill, BatchPolicy, BatchView, RequestOrder};
use crate::registry::{Entry, PolicyInfo};

/// EASY backfilling, candidates shortest request first.
#[derive(Clone, Debug, Default)]
pub struct EasySjbf {
    /// The queue by request, kept between decisions.
    order: RequestOrder,
}

impl BatchPolicy for EasySjbf {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        easy_backfill(view, Some(&mut self.order))
    }
}

/// The registry entry: `easy-sjbf`, no parameter.
pub const ENTRY: Entry<dyn BatchPolicy> = Entry {
    info: PolicyInfo {
        name: "easy-sjbf",
        description: "EASY backfilling with backfill candidates shortest request first",
        params: &[],
    },
    build: |_| Ok(Box::new(EasySjbf::default())),
};

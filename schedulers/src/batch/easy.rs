//! EASY backfilling (Lifka 1995, "The ANL/IBM SP scheduling system"; as defined by Mu'alem and
//! Feitelson 2001): the queue's first job that does not fit gets a reservation at the earliest
//! date enough units are free assuming running jobs end at their requests; a later job, in queue
//! order, starts now if it fits in the free units and either ends by its request before that
//! reservation or uses only units the reservation does not need
//! ([`super::policy::easy_backfill`]).

use super::policy::{easy_backfill, BatchPolicy, BatchView};
use crate::registry::{Entry, PolicyInfo};

/// EASY backfilling, candidates in queue order.
#[derive(Clone, Debug, Default)]
pub struct Easy;

impl BatchPolicy for Easy {
    fn decide(&mut self, view: &BatchView<'_>) -> Vec<usize> {
        easy_backfill(view, None)
    }
}

/// The registry entry: `easy`, no parameter.
pub const ENTRY: Entry<dyn BatchPolicy> = Entry {
    info: PolicyInfo {
        name: "easy",
        description: "EASY backfilling: a reservation for the first blocked job, later jobs backfill in queue order if they do not delay it",
        params: &[],
    },
    build: |_| Ok(Box::new(Easy)),
};

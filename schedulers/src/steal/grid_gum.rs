//! Grid-GUM's load management (the paper's Fig 2; GUM's `HLComms.c` `processFish` and
//! `choosePE`): an idle PE sends one FISH to a random PE; a PE with sparks answers with one
//! spark; one without forwards the FISH to a random PE (the runtime sends it home once it has
//! been forwarded `hop_limit` times). The thread limit is the runtime's `thread_limit`.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::policy::{Answer, Fish, FishTarget, PeId, PeView, StealPolicy};
use super::registry::Makers;
use crate::registry::{Entry, PolicyInfo};

/// Random fishing and random forwarding.
#[derive(Clone, Debug, Default)]
pub struct GridGum;

/// A PE other than `me`, uniformly (`pes` ≥ 2).
pub fn random_other(me: PeId, pes: usize, rng: &mut ChaCha8Rng) -> PeId {
    let r = rng.gen_range(0..pes - 1);
    if r >= me {
        r + 1
    } else {
        r
    }
}

impl StealPolicy for GridGum {
    fn fish(&mut self, view: &PeView<'_>, rng: &mut ChaCha8Rng) -> Vec<FishTarget> {
        // GUM's maxFishes is 1: one FISH out at a time, and only when there is nothing to run.
        if !view.idle || view.outstanding != [0, 0] || view.pes < 2 {
            return Vec::new();
        }
        vec![FishTarget {
            to: random_other(view.me, view.pes, rng),
            wide: false,
        }]
    }

    fn answer(&mut self, view: &PeView<'_>, _fish: &Fish, rng: &mut ChaCha8Rng) -> Answer {
        if view.exportable > 0 {
            Answer::Give(1)
        } else {
            Answer::Forward(random_other(view.me, view.pes, rng))
        }
    }
}

/// The registry entry: `grid-gum`, no parameter of its own.
pub const ENTRY: Entry<Makers> = Entry {
    info: PolicyInfo {
        name: "grid-gum",
        description: "Grid-GUM: FISH a random PE, forward at random (Fig 2); thread_limit = 1 is the paper's 'thread limit'",
        params: &[],
    },
    build: |_| Ok(Makers::new(|_| Box::new(GridGum))),
};

//! Satin's cluster-aware random stealing (R. V. van Nieuwpoort, T. Kielmann and H. E. Bal,
//! "Efficient load balancing for wide-area divide-and-conquer applications", PPoPP 2001, §4):
//! an idle PE steals synchronously from a random PE of its own cluster (one request at a time,
//! and a victim without work says so at once: no forwarding) while keeping at most one
//! asynchronous steal request to a random PE of another cluster outstanding. Clusters are the
//! platform's `cluster` host property. The fish delay applies to each kind of request after a
//! failed one, as for GUM.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::policy::{Answer, Fish, FishTarget, PeView, StealPolicy};
use super::registry::Makers;
use crate::registry::{Entry, PolicyInfo};

/// Cluster-aware random stealing.
#[derive(Clone, Debug, Default)]
pub struct SatinCrs;

impl StealPolicy for SatinCrs {
    fn fish(&mut self, view: &PeView<'_>, rng: &mut ChaCha8Rng) -> Vec<FishTarget> {
        if !view.idle {
            return Vec::new();
        }
        let mine = view.clusters[view.me];
        let mut targets = Vec::new();
        for (wide, outstanding) in [(false, view.outstanding[0]), (true, view.outstanding[1])] {
            if outstanding > 0 {
                continue;
            }
            let candidates: Vec<usize> = (0..view.pes)
                .filter(|&q| q != view.me && (view.clusters[q] != mine) == wide)
                .collect();
            if !candidates.is_empty() {
                targets.push(FishTarget {
                    to: candidates[rng.gen_range(0..candidates.len())],
                    wide,
                });
            }
        }
        targets
    }

    fn answer(&mut self, view: &PeView<'_>, _fish: &Fish, _rng: &mut ChaCha8Rng) -> Answer {
        if view.exportable > 0 {
            Answer::Give(1)
        } else {
            Answer::Home
        }
    }

    /// A steal is answered with work or sent home, never passed on (Satin's CRS steals are
    /// synchronous requests to one victim).
    fn forwards_fish(&self) -> bool {
        false
    }
}

/// The registry entry: `satin-crs`, no parameter of its own.
pub const ENTRY: Entry<Makers> = Entry {
    info: PolicyInfo {
        name: "satin-crs",
        description: "Satin's cluster-aware random stealing (PPoPP 2001): synchronous local steals, one asynchronous wide-area steal",
        params: &[],
    },
    build: |_| Ok(Makers::new(|_| Box::new(SatinCrs))),
};

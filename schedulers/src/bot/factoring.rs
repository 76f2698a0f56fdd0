//! Factoring (Hummel, Schonberg & Flynn, CACM 35, 1992; reference [3] of the LDS paper) with
//! `α = 2` by default (FAC2): tasks go out in batches of `P` equal chunks; each chunk of a batch is
//! `ceil(R_batch / (α P))`, where `R_batch` is the number of tasks left when the batch began.
//! A batch is counted by the master's answers: the `P` answers after a batch began belong to it.

use super::{Assignment, ChunkPolicy, MasterView, Request};
use crate::registry::{Entry, Param, ParamError, PolicyInfo, Values};

/// Factoring state: the current batch's chunk size and how many of its chunks are left.
#[derive(Clone, Debug)]
pub struct Factoring {
    /// `α`, the batch divisor (FAC2: 2). At least 1.
    pub alpha: f64,
    chunk: u64,
    left_in_batch: usize,
}

impl Factoring {
    /// Factoring with ratio `alpha`.
    pub fn new(alpha: f64) -> Factoring {
        Factoring {
            alpha: alpha.max(1.0),
            chunk: 0,
            left_in_batch: 0,
        }
    }

    /// The chunk for the next answer, starting a batch when the last one is used up.
    pub fn next(&mut self, remaining: u64, workers: usize) -> u64 {
        if self.left_in_batch == 0 {
            let divisor = self.alpha * workers.max(1) as f64;
            self.chunk = ((remaining as f64 / divisor).ceil() as u64).max(1);
            self.left_in_batch = workers.max(1);
        }
        self.left_in_batch -= 1;
        self.chunk.min(remaining)
    }
}

impl ChunkPolicy for Factoring {
    fn assign(&mut self, view: &MasterView<'_>, _request: &Request) -> Assignment {
        Assignment::tasks(self.next(view.remaining, view.workers))
    }
}

/// The registry entry: `factoring` (FAC2 with the default `alpha`).
pub const ENTRY: Entry<dyn ChunkPolicy> = Entry {
    info: PolicyInfo {
        name: "factoring",
        description: "factoring: batches of P chunks of ceil(R_batch/(alpha P)) (alpha = 2: FAC2)",
        params: &[Param::real("alpha", "batch divisor", "2", 1.0)],
    },
    build,
};

fn build(v: &Values<'_>) -> Result<Box<dyn ChunkPolicy>, ParamError> {
    Ok(Box::new(Factoring::new(v.real("alpha")?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::testing::sequence;

    #[test]
    fn published_sequence_fac2_n1000_p4() {
        // Issue 3's reference: 125×4, 63×4, 31×4, 16×4, 8×4, 4×4, 2×4, 1×4.
        let mut expected = Vec::new();
        for chunk in [125, 63, 31, 16, 8, 4, 2, 1] {
            expected.extend([chunk; 4]);
        }
        assert_eq!(sequence(&mut Factoring::new(2.0), 1000, 4), expected);
    }

    #[test]
    fn alpha_three_uses_thirds() {
        // R = 90, P = 3, α = 3: ceil(90/9) = 10 ×3, then ceil(60/9) = 7 ×3, ...
        let seq = sequence(&mut Factoring::new(3.0), 90, 3);
        assert_eq!(&seq[..6], &[10, 10, 10, 7, 7, 7]);
        assert_eq!(seq.iter().sum::<u64>(), 90);
    }
}

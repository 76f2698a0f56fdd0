//! Guided self-scheduling (Polychronopoulos & Kuck, IEEE Trans. Computers 36, 1987; reference
//! [4] of the LDS paper): chunk = `max(k, ceil(R / P))`, clipped to `R`, where `R` is the number
//! of tasks not yet handed out and `P` the number of workers. Large chunks first, then smaller
//! ones; on heterogeneous grids the first big chunks may land on slow hosts.

use super::{div_ceil, Assignment, ChunkPolicy, MasterView, Request};
use crate::registry::{Entry, Param, ParamError, PolicyInfo, Values};

/// GSS with minimum chunk `k`.
#[derive(Clone, Debug)]
pub struct Gss {
    /// Minimum chunk `k`, at least 1.
    pub min_chunk: u64,
}

impl ChunkPolicy for Gss {
    fn assign(&mut self, view: &MasterView<'_>, _request: &Request) -> Assignment {
        let size = div_ceil(view.remaining, view.workers as u64).max(self.min_chunk.max(1));
        Assignment::tasks(size.min(view.remaining))
    }
}

/// The registry entry: `gss`, parameter `min_chunk`.
pub const ENTRY: Entry<dyn ChunkPolicy> = Entry {
    info: PolicyInfo {
        name: "gss",
        description: "guided self-scheduling: max(k, ceil(R/P))",
        params: &[Param::integer("min_chunk", "minimum chunk k", "1", 1.0).in_unit("tasks")],
    },
    build,
};

fn build(v: &Values<'_>) -> Result<Box<dyn ChunkPolicy>, ParamError> {
    Ok(Box::new(Gss {
        min_chunk: v.integer("min_chunk")?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::testing::sequence;

    #[test]
    fn published_sequence_n1000_p4() {
        // Issue 3's reference sequence for GSS(1), N = 1000, P = 4 (R_i = R_{i-1} - ceil(R_{i-1}/4)).
        let expected = [
            250, 188, 141, 106, 79, 59, 45, 33, 25, 19, 14, 11, 8, 6, 4, 3, 3, 2, 1, 1, 1, 1,
        ];
        assert_eq!(sequence(&mut Gss { min_chunk: 1 }, 1000, 4), expected);
    }

    #[test]
    fn minimum_chunk_applies() {
        let seq = sequence(&mut Gss { min_chunk: 10 }, 100, 4);
        assert_eq!(seq, vec![25, 19, 14, 11, 10, 10, 10, 1]);
    }
}

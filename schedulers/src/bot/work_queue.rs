//! Work queue / chunk self-scheduling (the paper's "Work Queue"; Chronopoulos et al., CLUSTER
//! 2001, reference [2] of the LDS paper): every request gets a fixed chunk of `k` tasks (clipped
//! to what remains); `k = 1` is pure self-scheduling.

use super::{Assignment, ChunkPolicy, MasterView, Request};
use crate::registry::{Entry, Param, ParamError, PolicyInfo, Values};

/// Fixed chunks of `chunk` tasks.
#[derive(Clone, Debug)]
pub struct WorkQueue {
    /// `k`, at least 1.
    pub chunk: u64,
}

impl ChunkPolicy for WorkQueue {
    fn assign(&mut self, view: &MasterView<'_>, _request: &Request) -> Assignment {
        Assignment::tasks(self.chunk.max(1).min(view.remaining))
    }
}

/// The registry entry: `wq`, parameter `chunk`.
pub const ENTRY: Entry<dyn ChunkPolicy> = Entry {
    info: PolicyInfo {
        name: "wq",
        description: "work queue: fixed chunks of k tasks (k = 1: pure self-scheduling)",
        params: &[Param::integer("chunk", "tasks per chunk k", "1", 1.0).in_unit("tasks")],
    },
    build,
};

fn build(v: &Values<'_>) -> Result<Box<dyn ChunkPolicy>, ParamError> {
    Ok(Box::new(WorkQueue { chunk: v.integer("chunk")? }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::testing::sequence;

    #[test]
    fn fixed_chunks_clipped_at_the_end() {
        assert_eq!(sequence(&mut WorkQueue { chunk: 3 }, 10, 2), vec![3, 3, 3, 1]);
        assert_eq!(sequence(&mut WorkQueue { chunk: 1 }, 3, 4), vec![1, 1, 1]);
    }
}

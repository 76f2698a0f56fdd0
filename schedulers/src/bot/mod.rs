//! Bag of tasks, master/worker (seed paper: Ferreto, De Rose & Northfleet, "Scheduling BoT
//! Applications in Grids using a Slave Oriented Adaptive Algorithm", `shared/papers/lds-*.md`).
//!
//! A master holds `N` equal, independent tasks of `F` flops and `B` bytes. Each worker sends a
//! small request (100 bytes) carrying what it measured; the master answers with a chunk of `k`
//! tasks as one message of `k·B` bytes (`k = 0`, a 100-byte message, means stop), never blocking
//! on a send and serving requests in arrival order; the worker computes `k·F` flops and asks
//! again. The makespan is the date the last task finishes. Task sizes may instead vary around
//! `F` ([`TaskSizes`]).
//!
//! Failures: when a worker's host turns off, the master learns of it at once and hands the
//! worker's chunk out again ([`LostChunk`]); when the host turns on, the worker starts afresh
//! and asks for work, as SimGrid's auto-restart actors and desktop-grid workers do.
//!
//! The chunk size is the policy's decision ([`ChunkPolicy`], one file per policy); a policy may
//! also give each worker a [`WorkerHook`] that turns the worker's measurements into a proposal
//! carried by its next request (LDS). Policies see a read-only [`MasterView`] and return a number.

mod app;
pub mod family;
pub mod registry;

// Every bag-of-tasks policy, in `gridsim list` order: each module exports its registry entry.
// Adding a policy is its file plus one line here.
crate::policies!(dyn ChunkPolicy;
    work_queue: [ENTRY],
    gss: [ENTRY],
    factoring: [ENTRY],
    tss: [ENTRY],
    weighted_factoring: [WF, AWF],
    lds: [ENTRY],
);

pub use app::{
    finish, run, simulation, BotConfig, BotOutcome, ChunkRecord, HostEnergy, LostChunk, MasterWorker, TaskSizes,
};

/// What a worker measured on its last chunk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChunkReport {
    /// Tasks in the chunk.
    pub size: u64,
    /// Seconds spent computing it.
    pub exec_time: f64,
}

/// A worker's request for work, as the master receives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// Index of the worker (0-based, in deployment order).
    pub worker: usize,
    /// Its last chunk's measurement (none on the first request).
    pub last: Option<ChunkReport>,
    /// The size it proposes for its next chunk (LDS adaptive phase).
    pub proposal: Option<u64>,
}

/// The read-only view a policy decides on.
#[derive(Clone, Copy, Debug)]
pub struct MasterView<'a> {
    /// `N`, all tasks.
    pub total: u64,
    /// Tasks not yet handed out.
    pub remaining: u64,
    /// Number of workers `P`.
    pub workers: usize,
    /// Chunks answered so far (stop messages excluded).
    pub answers: u64,
    /// Flops per task.
    pub task_flops: f64,
    /// Peak speed of each worker's host, flop/s (a static estimate, e.g. from a grid
    /// information service; measured rates come in the requests).
    pub worker_speeds: &'a [f64],
    /// Simulated time, seconds.
    pub now: f64,
}

/// The master's decision: the chunk for one request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Assignment {
    /// Tasks to send (`0` = stop). The master clips it to what remains.
    pub size: u64,
    /// Time slice the worker should aim at for its next chunk (LDS's `maxExecTime`).
    pub max_exec_time: Option<f64>,
}

impl Assignment {
    /// A chunk of `size` tasks with no further instruction.
    pub fn tasks(size: u64) -> Assignment {
        Assignment {
            size,
            max_exec_time: None,
        }
    }
}

/// A master-side chunking policy.
pub trait ChunkPolicy: Send {
    /// The chunk for this request. Called only while tasks remain.
    fn assign(&mut self, view: &MasterView<'_>, request: &Request) -> Assignment;

    /// [`ChunkPolicy::assign`], or why the policy could not decide: the master asks this. A
    /// built-in policy always decides (the default); one supplied at run time
    /// ([`crate::external::CheckedChunk`]) may fail, which ends the run with the message.
    fn try_assign(&mut self, view: &MasterView<'_>, request: &Request) -> Result<Assignment, String> {
        Ok(self.assign(view, request))
    }

    /// A per-worker hook turning measurements into proposals, if the policy uses one.
    fn worker_hook(&self) -> Option<Box<dyn WorkerHook>> {
        None
    }
}

/// Worker-side logic: after each chunk, optionally propose the next chunk's size.
pub trait WorkerHook: Send {
    /// Records a finished chunk; returns the size to propose to the master, if any.
    fn after_chunk(&mut self, report: &ChunkReport, max_exec_time: Option<f64>) -> Option<u64>;
}

/// `ceil(a / b)` for positive integers.
pub(crate) fn div_ceil(a: u64, b: u64) -> u64 {
    a.div_ceil(b.max(1))
}

#[cfg(test)]
pub(crate) mod testing {
    //! Drives a policy without an engine: requests come round-robin from the workers.
    use super::*;

    /// Chunk sizes a policy hands out for `n` tasks and `p` equal workers asking in turn.
    pub fn sequence(policy: &mut dyn ChunkPolicy, n: u64, p: usize) -> Vec<u64> {
        let speeds = vec![1e9; p];
        let mut remaining = n;
        let mut out = Vec::new();
        let mut worker = 0;
        while remaining > 0 {
            let view = MasterView {
                total: n,
                remaining,
                workers: p,
                answers: out.len() as u64,
                task_flops: 1e9,
                worker_speeds: &speeds,
                now: 0.0,
            };
            let size = policy
                .assign(
                    &view,
                    &Request {
                        worker,
                        last: None,
                        proposal: None,
                    },
                )
                .size
                .min(remaining);
            assert!(size > 0, "policy stalled with {remaining} tasks left");
            out.push(size);
            remaining -= size;
            worker = (worker + 1) % p;
        }
        out
    }
}

//! Batch scheduling of rigid parallel jobs from the Parallel and Grid Workloads Archives' logs
//! (issue 42): FCFS, EASY backfilling (and EASY-SJBF), conservative backfilling, SJF and LJF.
//!
//! # Model
//!
//! A job is rigid: it asks for `size` units (hosts: one processor of the log is one host of
//! the platform) and holds exactly those units from its start to its end. Its size is the
//! processors it requested (SWF field 8), or the processors it was allocated (field 5) when
//! the request is unknown. Its *request* (walltime) is SWF field 9, or its actual run time when
//! the log gives none (the run counts such jobs, `requests_from_runtime`). Under the `trace`
//! run-time model a job holds its units for its recorded run time (Batsim's "delay" profile);
//! with `kill_at_walltime` (the default) a job whose run time exceeds its request is killed when
//! it reaches it. A job larger than the platform is dropped and counted, never queued.
//!
//! The simulation ([`sim`]) is its own event loop over two kinds of events, arrivals and
//! completions, since jobs under the `trace` model share nothing the engine would arbitrate.
//! Pinned semantics, so that schedules compare with other simulators':
//!
//! - the queue is ordered by submit time, then job id (as written in the log);
//! - every arrival and completion of one date is applied before the policy decides;
//! - the policy sees a read-only [`policy::BatchView`] (date, free units, queue, running jobs
//!   with their planned ends = start + request) and returns the queue positions to start now;
//! - a started job gets the lowest-numbered free units, in platform host order.
//!
//! | policy | file | rule |
//! |---|---|---|
//! | `fcfs` | [`fcfs`] | start jobs in queue order while the next fits |
//! | `easy` | [`easy`] | FCFS, then one reservation for the blocked head; backfill in queue order |
//! | `easy-sjbf` | [`easy_sjbf`] | EASY with backfill candidates shortest request first |
//! | `conservative` | [`conservative`] | every queued job holds a reservation, compressed when jobs end early |
//! | `sjf` | [`sjf`] | shortest request first, no backfilling |
//! | `ljf` | [`ljf`] | longest request first, no backfilling |
//!
//! [`family`] is the `batch` family's adapter: parameters, the jobs of `[workload]` or of the
//! Lublin–Feitelson model ([`synthetic`]), metrics (wait, response, bounded slowdown,
//! utilisation) and the per-job table.

pub mod family;
pub mod policy;
pub mod profile;
pub mod registry;
pub mod sim;
pub mod synthetic;
#[cfg(test)]
mod tests;

// Every batch policy, in `gridsim list` order: each module exports its registry entry. Adding a
// policy is its file plus one line here.
crate::policies!(dyn policy::BatchPolicy;
    fcfs: [ENTRY],
    easy: [ENTRY],
    easy_sjbf: [ENTRY],
    conservative: [ENTRY],
    sjf: [ENTRY],
    ljf: [ENTRY],
);

pub use policy::{BatchPolicy, BatchView, QueuedJob, RunningJob};
pub use sim::{simulate, simulate_with_speeds, BatchJob, FinalState, JobResult, Outcome, SimConfig};

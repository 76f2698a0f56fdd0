//! Batch scheduling of rigid parallel jobs from the Parallel and Grid Workloads Archives' logs:
//! FCFS, EASY backfilling (and EASY-SJBF), conservative backfilling, SJF and LJF.
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
//! Hosts may go down and come back up (a state profile per host, SimGrid's model: value 0 is
//! down, any other value up, up before the first event). A host going down kills the jobs
//! holding any of its units at that date; under [`sim::OnFailure::Requeue`] such a job goes back
//! to the queue at its place and later starts over from scratch (at most `max_requeues` times,
//! then it ends failed), under [`sim::OnFailure::Fail`] it ends failed. A down host's units
//! take no job until it is up again. A job larger than the units up waits; one larger than the
//! platform is dropped. With `idle_off_s`, hosts idle that long are switched off and booted
//! again when the queue needs their units ([`sim::PowerSaving`]); [`energy`] counts each host's
//! joules under SimGrid's host energy model. The family's module docs ([`family`]) give the
//! grounding of each choice.
//!
//! The simulation ([`sim`]) is its own event loop over three kinds of events, arrivals,
//! completions and host state changes, since jobs under the `trace` model share nothing the
//! engine would arbitrate. Pinned semantics, so that schedules compare with other simulators':
//!
//! - the queue is ordered by submit time, then job id (as written in the log); a requeued job
//!   goes back to its place in that order;
//! - at one date: completions first (a job ending at the date its host goes down completed),
//!   then host state changes in platform host order, each host's in its profile's order (a
//!   down kills, an up frees the host's units; a down and an up at one date still kill), then
//!   the ends of boots and shutdowns, then arrivals, then the policy decides, once, if any job
//!   is queued; then idle hosts whose timeout has passed are switched off and off hosts booted
//!   (`idle_off_s`), so a host idle exactly `idle_off_s` when a job arrives takes the job;
//! - the policy sees a read-only [`policy::BatchView`] (date, free units, queue, running jobs
//!   with their planned ends = start + request) and returns the queue positions to start now;
//!   the free units are those up and held by no job, so plans (EASY's shadow time,
//!   conservative's profile) count only the units up now and assume no future failure, as a
//!   production scheduler's reservations do: a job larger than the units up gets no
//!   reservation (EASY lets any later job that fits backfill past it) until a host comes back;
//! - a started job gets the lowest-numbered free units, in platform host order;
//! - the run ends when no job is queued, running or left to arrive; or, with jobs queued,
//!   when nothing runs, none is left to arrive, and no host state will change (or only
//!   repeating profiles are left and a whole period of the longest has passed): those jobs
//!   never started ([`sim::Outcome::unfinished`]).
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
//! The queue ([`queue`]) and the policies' kept state make a decision cost O(log n) a job it
//! starts or looks at; only EASY's backfill candidates (until the free units run out),
//! conservative backfilling's compression after an early end or a host state change, and a
//! requeue (the queue renumbered) look at many queued jobs (`gridsim bench batch` measures it;
//! `docs/batch.md`, "Speed").
//!
//! [`family`] is the `batch` family's adapter: parameters, the jobs of `[workload]` or of the
//! Lublin–Feitelson model ([`synthetic`]), the platform's host state profiles, metrics (wait, response, bounded slowdown, utilisation,
//! requeues and failures) and the per-job and per-host tables.

pub mod energy;
#[cfg(test)]
mod energy_tests;
pub mod family;
pub mod policy;
pub mod profile;
pub mod queue;
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
pub use sim::{
    simulate, simulate_on, simulate_powered, simulate_with_speeds, Availability, BatchJob, FinalState, JobResult,
    OnFailure, Outcome, PowerChange, PowerSaving, PowerState, SimConfig,
};

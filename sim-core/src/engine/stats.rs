//! Work counters of a run.
//!
//! They count what the engine did, not how long it took, so they are deterministic: the same run
//! gives the same counts on any machine. Multiplied by a unit cost measured once, they tell where
//! a run's time goes; `benches/bot_scenario.rs` prints them beside its wall times.

use crate::sharing::SolverStats;

/// What an engine has done since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Events processed (the same count as [`super::Engine::steps`]).
    pub events: u64,
    /// Completion or latency events popped after their activity had been rescheduled or ended,
    /// and skipped (see [`super::Event`]). A rate change supersedes the activity's queued
    /// completion, if it had one, so in a contended run this is about `rate_changes`.
    pub stale_events: u64,
    /// Running activities whose rate a re-solve changed: each is settled at the current date and
    /// given a new completion event.
    pub rate_changes: u64,
    /// Activities put on a bottleneck clock (each also counts as a rate change).
    pub clock_joins: u64,
    /// Level changes of bottleneck clocks ([`crate::sharing::SharingMode::Fast`]): each moves
    /// every member of the clock at once, with one rescheduled event.
    pub clock_level_changes: u64,
    /// Link uses left out of comms' variables because another link of the route implies them
    /// (fast mode; see the engine's `implied` module).
    pub omitted_uses: u64,
    /// Of those, uses given back to running comms when a newly cached route showed that their
    /// link was not implied after all.
    pub restored_uses: u64,
    /// The max-min solver's share.
    pub solver: SolverStats,
}

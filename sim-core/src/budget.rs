//! Resource guards for one run: an event budget and a stop flag, so that a sweep with one
//! pathological point (a run that would take days, or never end) finishes and reports it.
//!
//! Whoever runs a simulation installs the guard for the current thread with [`run_limited`];
//! every [`crate::Engine`] on that thread charges its events to it (all engines of a run share
//! the budget, e.g. the probe simulations a skeleton run makes before its main one) and checks
//! the flag, every [`CHECK_EVERY`] events. When the budget is spent or the flag is raised (by a
//! wall-clock watchdog the caller keeps: the engine reads no clock), the run is abandoned:
//! the stack unwinds, without the panic hook, to [`run_limited`], which returns [`Stopped`].
//! Nothing of the abandoned run escapes, so no partial metric can be mistaken for a result.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Engines charge their events to the guard in batches of this many (a thread-local access
/// and an atomic load per batch: nothing against the events themselves).
pub const CHECK_EVERY: u64 = 4096;

/// What a run may use.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Engine events over the whole run (all its engines), if bounded.
    pub max_events: Option<u64>,
    /// Raised by the caller to stop the run (e.g. when its wall-clock budget is spent).
    pub stop: Option<Arc<AtomicBool>>,
}

/// Why a run was abandoned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// It processed more than its event budget; `events` were charged when it was stopped.
    Events {
        /// The budget.
        budget: u64,
        /// Events charged when it stopped (at most [`CHECK_EVERY`] past the budget).
        events: u64,
    },
    /// The caller raised the stop flag; `events` were charged by then.
    Flag {
        /// Events charged when it stopped.
        events: u64,
    },
}

impl Stopped {
    /// Events charged when the run stopped.
    pub fn events(&self) -> u64 {
        match *self {
            Stopped::Events { events, .. } | Stopped::Flag { events } => events,
        }
    }
}

/// The payload the stack unwinds with; private, so no other unwind is mistaken for it.
struct Abandon(Stopped);

struct Guard {
    limits: Limits,
    charged: u64,
}

thread_local! {
    static GUARD: Cell<Option<Guard>> = const { Cell::new(None) };
}

/// Runs `f` under `limits` on this thread: `Ok` with its value, or `Err` with why it was
/// abandoned. A panic inside `f` is not caught here (it unwinds on, as without a guard).
/// Guards do not nest: an inner call replaces the outer guard until it returns.
pub fn run_limited<R>(limits: Limits, f: impl FnOnce() -> R) -> Result<R, Stopped> {
    let outer = GUARD.with(|g| g.replace(Some(Guard { limits, charged: 0 })));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    GUARD.with(|g| g.set(outer));
    match result {
        Ok(value) => Ok(value),
        Err(payload) => match payload.downcast::<Abandon>() {
            Ok(abandon) => Err(abandon.0),
            Err(other) => panic::resume_unwind(other),
        },
    }
}

/// Charges `events` to this thread's guard, if any; abandons the run when the budget is spent
/// or the stop flag is up. Called by the engine every [`CHECK_EVERY`] events, and by an
/// application's own event loop that does not run on the engine (the batch family's), in
/// batches of the same size.
pub fn charge(events: u64) {
    let stopped = GUARD.with(|g| {
        let mut guard = g.take()?;
        guard.charged = guard.charged.saturating_add(events);
        let charged = guard.charged;
        let stopped = match (&guard.limits.max_events, &guard.limits.stop) {
            (Some(budget), _) if charged > *budget => Some(Stopped::Events {
                budget: *budget,
                events: charged,
            }),
            (_, Some(flag)) if flag.load(Ordering::Relaxed) => Some(Stopped::Flag { events: charged }),
            _ => None,
        };
        g.set(Some(guard));
        stopped
    });
    if let Some(stopped) = stopped {
        // `resume_unwind` skips the panic hook: an abandoned run prints nothing itself.
        panic::resume_unwind(Box::new(Abandon(stopped)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spent_budget_abandons_the_run_and_reports_it() {
        let limits = Limits {
            max_events: Some(10_000),
            stop: None,
        };
        let result = run_limited(limits, || {
            for _ in 0..100 {
                charge(CHECK_EVERY);
            }
            "finished"
        });
        assert_eq!(
            result,
            Err(Stopped::Events {
                budget: 10_000,
                events: 3 * CHECK_EVERY
            })
        );
        // The guard is gone after the run: charging now does nothing.
        charge(u64::MAX);
    }

    #[test]
    fn a_raised_flag_abandons_the_run_and_a_run_within_its_limits_returns() {
        let flag = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            max_events: Some(1 << 40),
            stop: Some(Arc::clone(&flag)),
        };
        assert_eq!(run_limited(limits.clone(), || 7), Ok(7));
        let result = run_limited(limits, || {
            charge(1);
            flag.store(true, Ordering::Relaxed);
            charge(1);
            unreachable!("the second charge stops the run")
        });
        assert_eq!(result, Err(Stopped::Flag { events: 2 }));
    }

    #[test]
    fn other_panics_pass_through() {
        let caught = panic::catch_unwind(|| run_limited(Limits::default(), || panic!("a real defect")));
        assert!(caught.is_err());
    }
}

//! The wall-clock side of `[limits] wall_s`, and Ctrl-C: one thread per sweep raises the stop
//! flag of every run past its deadline, and of every run once the sweep is interrupted (the
//! engine checks the flag; it reads no clock itself).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often deadlines are checked: a stopped run overruns its budget by about this much.
const TICK: Duration = Duration::from_millis(50);

/// The runs being watched: their deadlines and stop flags.
#[derive(Default)]
pub struct Watchdog {
    watched: Mutex<Vec<(Option<Instant>, Arc<AtomicBool>)>>,
}

impl Watchdog {
    /// A stop flag that this watchdog raises `budget` from now (never, without a budget), or
    /// when the sweep is interrupted.
    pub fn watch(&self, budget: Option<Duration>) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        let deadline = budget.and_then(|b| Instant::now().checked_add(b));
        self.lock().push((deadline, Arc::clone(&flag)));
        flag
    }

    /// Raises the flags past their deadlines every tick until `done` is signalled or dropped;
    /// forgets the runs that ended (only the watchdog holds their flag).
    pub fn serve(&self, done: &Receiver<()>) {
        while let Err(RecvTimeoutError::Timeout) = done.recv_timeout(TICK) {
            let now = Instant::now();
            let interrupted = super::interrupt::interrupted();
            self.lock().retain(|(deadline, flag)| {
                if interrupted || deadline.is_some_and(|d| now >= d) {
                    flag.store(true, Ordering::Relaxed);
                    return false;
                }
                Arc::strong_count(flag) > 1
            });
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Option<Instant>, Arc<AtomicBool>)>> {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

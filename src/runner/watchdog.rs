//! The wall-clock side of `[limits] wall_s`: one thread per sweep raises the stop flag of every
//! run past its deadline (the engine checks the flag; it reads no clock itself).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often deadlines are checked: a stopped run overruns its budget by about this much.
const TICK: Duration = Duration::from_millis(50);

/// The runs being watched: their deadlines and stop flags.
#[derive(Default)]
pub struct Watchdog {
    watched: Mutex<Vec<(Instant, Arc<AtomicBool>)>>,
}

impl Watchdog {
    /// A stop flag that this watchdog raises `budget` from now.
    pub fn watch(&self, budget: Duration) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        let deadline = Instant::now() + budget;
        self.lock().push((deadline, Arc::clone(&flag)));
        flag
    }

    /// Raises the flags past their deadlines every tick until `done` is signalled or dropped;
    /// forgets the runs that ended (only the watchdog holds their flag).
    pub fn serve(&self, done: &Receiver<()>) {
        while let Err(RecvTimeoutError::Timeout) = done.recv_timeout(TICK) {
            let now = Instant::now();
            self.lock().retain(|(deadline, flag)| {
                if now >= *deadline {
                    flag.store(true, Ordering::Relaxed);
                    return false;
                }
                Arc::strong_count(flag) > 1
            });
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Instant, Arc<AtomicBool>)>> {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

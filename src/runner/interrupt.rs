//! Ctrl-C (SIGINT) and SIGTERM during a sweep: the runs in flight are abandoned, the completed
//! ones are already stored, and `gridsim run` says how many and that running the same command
//! again resumes. A second signal ends the process at once, unless the handlers were installed
//! for an embedding interpreter, whose process must outlive the sweep.
//!
//! The handler only sets a flag (all a signal handler may safely do); the watchdog thread sees
//! it within a tick and raises every run's stop flag, which the engines check, and the runner
//! starts no new run. The handlers are installed for the sweep's execution only
//! ([`Handlers::install`]), so every other command keeps the default behaviour.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static SECOND_EXITS: AtomicBool = AtomicBool::new(true);

extern "C" fn on_signal(_: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) && SECOND_EXITS.load(Ordering::SeqCst) {
        // SAFETY: `_exit` is async-signal-safe; the second signal means "stop now".
        unsafe { libc::_exit(130) };
    }
}

/// Whether SIGINT or SIGTERM arrived since the handlers were installed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The previous dispositions of SIGINT and SIGTERM, put back on drop.
pub struct Handlers {
    previous: [(libc::c_int, libc::sigaction); 2],
}

impl Handlers {
    /// Installs the flag-setting handler for SIGINT and SIGTERM and clears the flag. With
    /// `second_exits`, a second signal ends the process (`_exit(130)`); without, it is ignored
    /// like the first beyond the flag it already set.
    pub fn install(second_exits: bool) -> Handlers {
        INTERRUPTED.store(false, Ordering::SeqCst);
        SECOND_EXITS.store(second_exits, Ordering::SeqCst);
        let mut previous = [(libc::SIGINT, zeroed()), (libc::SIGTERM, zeroed())];
        for (signal, old) in previous.iter_mut() {
            let mut action = zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SAFETY: `action` is a valid, fully initialised sigaction with an empty mask; the
            // handler only touches an atomic and calls `_exit`.
            unsafe {
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(*signal, &action, old);
            }
        }
        Handlers { previous }
    }
}

impl Drop for Handlers {
    fn drop(&mut self) {
        for (signal, old) in &self.previous {
            // SAFETY: restores the disposition `sigaction` reported when installing.
            unsafe { libc::sigaction(*signal, old, std::ptr::null_mut()) };
        }
    }
}

fn zeroed() -> libc::sigaction {
    // SAFETY: `sigaction` is plain data; all-zero is SIG_DFL with an empty mask and no flags.
    unsafe { std::mem::zeroed() }
}

/// The error `gridsim run` ends with when interrupted; `main` exits 130 on it, as a shell does
/// for a process ended by SIGINT.
#[derive(Debug)]
pub struct Interrupted {
    /// What to tell the user: how many runs are stored, and where.
    pub message: String,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Interrupted {}

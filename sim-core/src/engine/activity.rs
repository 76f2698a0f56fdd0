//! Activities: what applications ask the engine to do, and their progress bookkeeping.
//!
//! Progress is lazy: an activity stores `remaining` work as of `last_update` and its current
//! `rate`; it is settled (remaining -= rate · elapsed) only when its rate changes or it completes,
//! so a solve touches only the activities whose rate changed.

use crate::platform::{DiskId, HostId, LinkId};
use crate::sharing::VariableId;
use crate::time::SimTime;

/// Handle of a started activity. Unique for the whole run (slots are reused, serials are not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ActivityId {
    pub(crate) slot: u32,
    pub(crate) serial: u32,
}

/// Direction of a disk request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoOp {
    /// Read from the disk.
    Read,
    /// Write to the disk.
    Write,
}

/// What an activity does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivityKind {
    /// Computes flops on one core of a host.
    Exec {
        /// Where it runs.
        host: HostId,
    },
    /// Sends bytes from one host to another.
    Comm {
        /// Sender.
        src: HostId,
        /// Receiver.
        dst: HostId,
    },
    /// Reads or writes bytes on a disk.
    Io {
        /// The disk.
        disk: DiskId,
        /// Read or write.
        op: IoOp,
    },
    /// Waits a given duration.
    Sleep,
}

/// Why an activity failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureCause {
    /// The host it runs on (or an endpoint of the comm) is off.
    HostOff(HostId),
    /// A link of the comm's route is off.
    LinkOff(LinkId),
}

/// What the engine tells the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notification {
    /// The activity finished; `tag` is the value given at start.
    Completed {
        /// The activity.
        activity: ActivityId,
        /// What it was.
        kind: ActivityKind,
        /// The application's tag, given at start (see [`Tag`](super::Tag)).
        tag: u64,
    },
    /// The activity failed at the current time.
    Failed {
        /// The activity.
        activity: ActivityId,
        /// What it was.
        kind: ActivityKind,
        /// The application's tag, given at start (see [`Tag`](super::Tag)).
        tag: u64,
        /// Why it failed.
        cause: FailureCause,
    },
}

/// Serial of a released slot (no live activity has it).
pub(crate) const RELEASED: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// A comm waiting for its latency.
    Latency,
    /// Progressing at `rate`.
    Running,
    /// Waiting in an FCFS disk queue.
    Queued,
}

/// One activity's record. Exactly one cache line (64 bytes, aligned): the hold model touches one
/// record per event, and a record straddling two lines would cost a second miss once the table
/// outgrows the L2 cache. Comm-only figures live in `Engine::comm_latency`, and the progress
/// factor from the kind (the network's bandwidth factor for comms, else 1).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(crate) struct Activity {
    pub remaining: f64,
    /// Progress per second (work units: flops or bytes).
    pub rate: f64,
    pub last_update: SimTime,
    pub tag: u64,
    pub serial: u32,
    pub generation: u32,
    /// The max-min variable of its rate, [`NO_VARIABLE`] when it has none.
    pub var: u32,
    /// Index of a comm's cached route.
    pub route: u32,
    pub kind: ActivityKind,
    pub phase: Phase,
}

/// `Activity::var` of an activity without a max-min variable.
pub(crate) const NO_VARIABLE: u32 = u32::MAX;

const _: () = assert!(std::mem::size_of::<Activity>() == 64);

impl Activity {
    /// Its max-min variable, if it has one.
    pub fn variable(&self) -> Option<VariableId> {
        (self.var != NO_VARIABLE).then_some(VariableId(self.var))
    }

    /// Brings `remaining` up to `now`.
    pub fn settle(&mut self, now: SimTime) {
        if self.phase == Phase::Running && self.rate > 0.0 {
            let done = self.rate * (now - self.last_update);
            self.remaining = (self.remaining - done).max(0.0);
        }
        self.last_update = now;
    }
}

//! The closed set of engine events. Each names who schedules it and who handles it.

use crate::platform::{HostId, LinkId};

/// Slot of an activity in the engine's table.
pub(crate) type Slot = u32;

/// What a profile event changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileTarget {
    /// A host's speed factor (SimGrid `speed_file`).
    HostSpeed(HostId),
    /// A host's on/off state (SimGrid `state_file`).
    HostState(HostId),
    /// A link's bandwidth factor (SimGrid `bandwidth_file`).
    LinkBandwidth(LinkId),
    /// A link's latency (SimGrid `latency_file`).
    LinkLatency(LinkId),
    /// A link's on/off state (SimGrid `state_file`).
    LinkState(LinkId),
}

/// An engine event. Stale events (whose generation no longer matches their activity's) are
/// skipped when popped, never removed from the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Source: a resource model after a solve, or an FCFS disk, or a sleep. Destination: the
    /// activity, which completes if `generation` is still its own.
    #[allow(missing_docs)]
    Completion { slot: Slot, generation: u32 },
    /// Source: a bottleneck clock, when its level or members changed. Destination: the clock,
    /// whose member with the smallest target completes if `generation` is still the clock's.
    #[allow(missing_docs)]
    ClockDue { clock: u32, generation: u32 },
    /// Source: the network model at comm start. Destination: the comm, whose data phase starts.
    #[allow(missing_docs)]
    LatencyElapsed { slot: Slot, generation: u32 },
    /// Source: a profile (scheduled at engine creation, then one ahead). Destination: the
    /// resource it changes; `index` is the profile's event number.
    #[allow(missing_docs)]
    ProfileStep { target: ProfileTarget, index: u64 },
}

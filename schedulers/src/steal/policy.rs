//! The policy trait of the work-stealing runtime: whom an idle PE fishes, how a PE answers a
//! FISH, and what load information rides on messages. One policy object per PE, so a policy's
//! tables are that PE's partial view of the others; the runtime owns every spark and thread.

use rand_chacha::ChaCha8Rng;

/// Index of a processing element (PE): position in the run's list of hosts, 0 is the main PE.
pub type PeId = usize;

/// What a PE's policy sees of its PE when asked for a decision (read only).
#[derive(Clone, Copy, Debug)]
pub struct PeView<'a> {
    /// This PE.
    pub me: PeId,
    /// Simulated time, s.
    pub now: f64,
    /// Number of PEs.
    pub pes: usize,
    /// This PE's nominal speed, flop/s.
    pub speed: f64,
    /// Sparks in the local pool.
    pub sparks: usize,
    /// Sparks a FISH may take now (an idle PE keeps its only spark).
    pub exportable: usize,
    /// Runnable threads, the running one included.
    pub runnable: usize,
    /// Live threads: runnable or blocked.
    pub live: usize,
    /// No runnable thread.
    pub idle: bool,
    /// FISHes sent and not yet answered or returned: `[local, wide-area]`.
    pub outstanding: [usize; 2],
    /// The static cluster of every PE (platform host property `cluster`), indexed by PE.
    pub clusters: &'a [usize],
}

/// A new FISH to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FishTarget {
    /// The PE asked.
    pub to: PeId,
    /// Counted as a wide-area steal attempt (Satin) rather than a local one; GUM's fishes are
    /// all local.
    pub wide: bool,
}

/// A FISH as the PE holding it sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fish {
    /// The PE that is looking for work.
    pub origin: PeId,
    /// Times it has been forwarded.
    pub age: u32,
    /// Whether it is a wide-area attempt.
    pub wide: bool,
}

/// How a PE answers a FISH.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Send this many sparks (at least one; the runtime gives at most what is exportable) in
    /// one SCHEDULE.
    Give(usize),
    /// Forward the FISH to this PE (the runtime sends it home instead once it is too old).
    Forward(PeId),
    /// Send the FISH home: the fisher learns there is no work for it.
    Home,
}

/// One row of a PEDynamic table: a PE's load when it was last heard of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadEntry {
    /// The PE.
    pub pe: PeId,
    /// Its load (sparks in its pool).
    pub load: f64,
    /// When that load was measured, s since the start.
    pub stamp: f64,
}

/// Bytes one [`LoadEntry`] adds to a message (PE id, load, timestamp).
pub const LOAD_ENTRY_BYTES: f64 = 16.0;

/// Load management of one PE. Decisions are data; the runtime carries them out and enforces
/// what holds for every policy (thread limit, hop limit, fish delay, the idle PE's only spark).
pub trait StealPolicy: Send {
    /// Called when the PE could look for work (no runnable thread, or between time slices);
    /// returns the FISHes to send now (usually none or one).
    fn fish(&mut self, view: &PeView<'_>, rng: &mut ChaCha8Rng) -> Vec<FishTarget>;

    /// Answers a FISH from another PE (`view.exportable` sparks could go).
    fn answer(&mut self, view: &PeView<'_>, fish: &Fish, rng: &mut ChaCha8Rng) -> Answer;

    /// A startup message from `from` announcing its speed (PEStatic).
    fn on_hello(&mut self, _view: &PeView<'_>, _from: PeId, _speed: f64) {}

    /// Any message from `from`, sent at `sent_at` and carrying `info` (the sender's
    /// [`StealPolicy::piggyback`]); called before the message is handled.
    fn on_message(&mut self, _view: &PeView<'_>, _from: PeId, _sent_at: f64, _info: &[LoadEntry]) {}

    /// Load information to attach to an outgoing message (empty: none).
    fn piggyback(&mut self, _view: &PeView<'_>) -> Vec<LoadEntry> {
        Vec::new()
    }

    /// Whether [`StealPolicy::answer`] may return [`Answer::Forward`], so that the runtime's
    /// `hop_limit` applies to it (a policy that never forwards refuses that parameter).
    fn forwards_fish(&self) -> bool {
        true
    }
}

//! GUM's load management on the engine: spark pools, evaluate-and-die threads, FISH/SCHEDULE
//! work stealing and FETCH/RESUME data transfer, every message an engine transfer and every
//! reduction an engine exec.
//!
//! # The model (after GHC's GUM runtime: `Schedule.c`, `Sparks.c`, `HLComms.c`, `Pack.c`)
//!
//! Each PE (a host) has a spark pool, a FIFO run queue of runnable threads, blocked threads and
//! an inbox. Its scheduler loop, run whenever its CPU is free:
//!
//! 1. handles the messages that arrived (`message_flops` of CPU each, then their effects, in
//!    arrival order) — a PE running a thread sees messages only between time slices;
//! 2. asks its [`StealPolicy`] whether to fish (GUM: only when idle; Grid-GUM2's low-watermark:
//!    also when its pool runs low), unless it holds `thread_limit` live threads (runnable or
//!    blocked; the main thread counts only with `limit_counts_main`, as GUM's
//!    `advisory_thread_count` leaves it out) or the fish delay after a FISH that came home has
//!    not passed. (GUM 6.x's `Schedule.c`, `scheduleGetRemoteWork`, also fishes only below
//!    `maxThreads`.)
//! 3. runs the next runnable thread for one time slice (round robin); with none, activates the
//!    oldest spark of its pool as a new thread (not at the thread limit); with none, it is idle.
//!
//! A thread evaluates a [`Program`] node: it reads the node's data (below), its own work, then it sparks the children into the
//! local pool (newest last), then demands them in order. A child still in the local pool is
//! taken out and evaluated inline by the same thread (subsumption). A child another local
//! thread is evaluating blocks the demander until it is done. A child that was exported blocks
//! the demander and sends a FETCH to the PE the spark went to; a PE that exported it further
//! forwards the FETCH along the spark's path (GUM's FetchMe chain); the PE where it is evaluated
//! sends a RESUME carrying the value (`result_bytes`) when it is done. Then the node's combine
//! work runs, and the value is available. A thread dies when its root node is done; the program
//! ends when node 0, run by the main thread on PE 0, is done.
//!
//! # Remote data (GUM's `Pack.c` and `HLComms.c`)
//! Before its own work a node reads the program's data it names ([`Program`]'s `reads`), in
//! order. Data live on the PE that ran their producer; a PE that does not own a datum holds a
//! copy only of what reached it. Exporting sparks packs, per spark, its closure and then each
//! datum it reads that the exporting PE holds whole and that fits in the rest of the packet
//! (`pack_buffer_words`, GUM's `packBufferSize`); every other datum is packed as a FETCH_ME
//! (4 words). A thread that reads a datum its PE does not hold whole blocks on it, and the
//! PE sends a FETCH for the next packet to the owner (one FETCH per PE and datum at a time:
//! other readers join the blocking queue); the owner answers with a RESUME of at most one
//! packet, which wakes every reader, and the first to run again fetches the next packet, until
//! the datum is complete (GUM ships the rest of a large graph as FETCH_MEs that each cost a
//! round trip). A node's value is returned the same way: a value larger than a packet takes
//! several RESUMEs, the demander fetching each further one from the PE that evaluated it. A
//! FETCH for a value still under evaluation waits there until the evaluation ends (GUM's
//! blocking queue of a black hole). Blocked threads count against `thread_limit`, and a PE
//! whose threads are all blocked activates another spark or fishes: this is how threads pile
//! up on a PE (they never migrate; `Pack.c` refuses to pack a thread).
//!
//! # Overheads
//! Packing costs `pack_flops_per_word` per word sent in a SCHEDULE or RESUME, charged to the
//! sender's CPU at its next scheduler pass (the message leaves at once: the microseconds of
//! packing are not added to its latency); unpacking costs `unpack_flops_per_word` per word,
//! with the message's handling; turning a spark into a thread costs `thread_create_flops`
//! before the thread first runs. None of these counts as the program's work.
//!
//! A FISH that reaches a PE is answered by the PE's policy: a SCHEDULE with one spark (or
//! several: Grid-GUM2's Super-Schedule), taken oldest first, which the fisher puts into its
//! pool and acknowledges with an ACK (as it does a RESUME); or forwarded; or sent home. The runtime enforces what
//! every policy shares: a FISH forwarded `hop_limit` times goes home; an idle PE (no runnable
//! thread) keeps its only spark; a FISH that comes home starts the fish delay. Every message
//! carries a header and whatever the sender's policy piggybacks (Grid-GUM2's load table).
//!
//! At time 0 every PE sends every other a startup message with its speed (PEStatic), as GUM's
//! startup synchronisation does; the main thread starts at once.
//!
//! # Accounting
//! A PE is *busy* while its CPU runs a slice or handles messages, *blocked* while it is not busy
//! and holds a blocked thread, *idle* otherwise. The activity profile records, per PE, the
//! intervals with at least one runnable thread and their number.

use std::collections::{HashMap, VecDeque};

use rand_chacha::ChaCha8Rng;
use sim_core::platform::HostId;
use sim_core::{rng, Application, Engine, EngineStats, Notification, Simulation, Tag};

use super::config::{StealConfig, FETCH_ME_BYTES, WORD_BYTES};
use super::policy::{Answer, Fish, LoadEntry, PeId, PeView, StealPolicy, LOAD_ENTRY_BYTES};
use super::program::{DataId, NodeId, Program};

/// The kinds of message, for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MessageKind {
    /// Startup: a PE's speed.
    Hello,
    /// A request for work.
    Fish,
    /// Sparks for a fisher.
    Schedule,
    /// A request for a value.
    Fetch,
    /// A value.
    Resume,
    /// Acknowledges a SCHEDULE or a RESUME.
    Ack,
}

impl MessageKind {
    /// Every kind, in column order.
    pub const ALL: [MessageKind; 6] = [
        MessageKind::Hello,
        MessageKind::Fish,
        MessageKind::Schedule,
        MessageKind::Fetch,
        MessageKind::Resume,
        MessageKind::Ack,
    ];

    /// Lower-case name (`fish`, `schedule`, ...).
    pub fn name(self) -> &'static str {
        match self {
            MessageKind::Hello => "hello",
            MessageKind::Fish => "fish",
            MessageKind::Schedule => "schedule",
            MessageKind::Fetch => "fetch",
            MessageKind::Resume => "resume",
            MessageKind::Ack => "ack",
        }
    }
}

/// One PE's counters over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PeStats {
    /// Time running slices or handling messages, s.
    pub busy_s: f64,
    /// Time not busy while holding a blocked thread, s.
    pub blocked_s: f64,
    /// Time with nothing to do, s.
    pub idle_s: f64,
    /// Threads created (sparks activated, and the main thread).
    pub threads: u64,
    /// Sparks created here.
    pub sparks_created: u64,
    /// Sparks evaluated inline by their demander.
    pub sparks_subsumed: u64,
    /// Sparks sent away in SCHEDULEs.
    pub sparks_exported: u64,
    /// Sparks received in SCHEDULEs.
    pub sparks_received: u64,
    /// FISHes this PE sent out.
    pub fishes_sent: u64,
    /// Its FISHes that came home without work.
    pub fishes_failed: u64,
    /// Work done by its threads, flops.
    pub work_flops: f64,
    /// FETCHes of graph data (FETCH_MEs) its threads sent.
    pub data_fetches: u64,
    /// CPU work on packing, unpacking and creating threads, flops (not in `work_flops`).
    pub overhead_flops: f64,
    /// Most live threads it held at once (the main thread counted).
    pub max_live: usize,
}

/// An interval of a PE's activity profile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActivityInterval {
    /// The PE.
    pub pe: PeId,
    /// Start, s.
    pub start: f64,
    /// End, s.
    pub end: f64,
    /// Runnable threads (the running one included), at least 1.
    pub runnable: usize,
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StealOutcome {
    /// When the main thread finished the root, s.
    pub runtime_s: f64,
    /// Per-PE counters.
    pub pes: Vec<PeStats>,
    /// Messages sent, by [`MessageKind`] in `ALL` order.
    pub messages: [u64; 6],
    /// Bytes sent in messages.
    pub message_bytes: f64,
    /// Times each node was evaluated (exactly once each in a correct run).
    pub evaluations: Vec<u32>,
    /// The activity profile (empty unless `record_activity`).
    pub activity: Vec<ActivityInterval>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Fresh,
    Pooled(PeId),
    InFlight(PeId),
    Running(PeId),
    Done(PeId),
}

#[derive(Clone, Debug)]
struct NodeState {
    place: Place,
    /// The PEs the spark was sent to, in order (GUM's FetchMe chain).
    trail: Vec<u32>,
    /// The thread blocked on this node's value, and whether it sent a FETCH (then a RESUME
    /// wakes it) or waits for a local thread.
    waiting: Option<(usize, bool)>,
    /// The PE to RESUME when the node is done (a FETCH reached it first).
    resume_to: Option<PeId>,
    /// The whole value arrived at the parent's PE in RESUMEs.
    fetched: bool,
    /// Bytes of the value that arrived at the parent's PE so far.
    received: f64,
}

/// A PE's copy of a datum it does not own: what arrived, whether a FETCH is out, and the
/// threads blocked on it (GUM's blocking queue of a FETCH_ME).
#[derive(Clone, Debug, Default)]
struct Copy {
    bytes: f64,
    in_flight: bool,
    waiters: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Reading the node's data, `next_child` the index in `reads`.
    Read,
    /// The node's own work is done (or running).
    Own,
    Demand,
    Combine,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    node: NodeId,
    phase: Phase,
    next_child: u32,
}

#[derive(Clone, Debug)]
struct Thread {
    frames: Vec<Frame>,
    /// Flops left of the current segment (own or combine work).
    remaining: f64,
}

enum Step {
    Run,
    Blocked,
    Finished,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tally {
    Busy,
    Blocked,
    Idle,
}

enum Cpu {
    Idle,
    /// Running `thread`; the exec covers `amount` flops; `slice_left` flops remain of the slice.
    Thread {
        thread: usize,
        amount: f64,
        slice_left: f64,
    },
    Messages(Vec<usize>),
}

struct Pe {
    host: HostId,
    speed: f64,
    pool: VecDeque<NodeId>,
    pool_len: usize,
    run_queue: VecDeque<usize>,
    cpu: Cpu,
    live: usize,
    blocked: usize,
    inbox: Vec<usize>,
    outstanding: [usize; 2],
    next_fish_at: [f64; 2],
    timer_pending: bool,
    /// CPU work owed for packing and thread creation, charged at the next scheduler pass.
    debt: f64,
    tally: Tally,
    level: usize,
    since: f64,
    level_since: f64,
    stats: PeStats,
}

#[derive(Clone, Debug)]
enum Body {
    Hello {
        speed: f64,
    },
    Fish(Fish),
    /// Sparks with the data packed beside them (the others travel as FETCH_MEs).
    Schedule {
        nodes: Vec<NodeId>,
        wide: bool,
        packed: Vec<DataId>,
        bytes: f64,
    },
    Fetch {
        node: NodeId,
        requester: PeId,
        hop: usize,
    },
    /// A packet of a node's value.
    Resume {
        node: NodeId,
        bytes: f64,
    },
    /// A FETCH of the datum's next packet, from `offset` bytes on.
    FetchData {
        datum: DataId,
        requester: PeId,
        offset: f64,
    },
    /// A packet of a datum.
    ResumeData {
        datum: DataId,
        bytes: f64,
    },
    Ack,
}

impl Body {
    fn kind(&self) -> MessageKind {
        match self {
            Body::Hello { .. } => MessageKind::Hello,
            Body::Fish(_) => MessageKind::Fish,
            Body::Schedule { .. } => MessageKind::Schedule,
            Body::Fetch { .. } | Body::FetchData { .. } => MessageKind::Fetch,
            Body::Resume { .. } | Body::ResumeData { .. } => MessageKind::Resume,
            Body::Ack => MessageKind::Ack,
        }
    }
}

struct Message {
    from: PeId,
    to: PeId,
    sent_at: f64,
    body: Body,
    info: Vec<LoadEntry>,
    /// Packed graph carried, bytes (what the receiver unpacks).
    graph_bytes: f64,
}

/// Kind codes of the runtime's [`Tag`]s: a PE's exec (index: the PE), a message in flight
/// (index: the message) and a PE's timer (index: the PE).
const EXEC: u8 = 0;
const MESSAGE: u8 = 1;
const TIMER: u8 = 2;

/// The runtime as an engine application.
pub struct StealRuntime {
    config: StealConfig,
    program: Program,
    nodes: Vec<NodeState>,
    /// Copies of data on PEs other than their owner, by (datum, PE).
    copies: HashMap<(DataId, u32), Copy>,
    threads: Vec<Thread>,
    pes: Vec<Pe>,
    messages: Vec<Option<Message>>,
    free_messages: Vec<usize>,
    policies: Vec<Box<dyn StealPolicy>>,
    clusters: Vec<usize>,
    rng: ChaCha8Rng,
    outcome: StealOutcome,
    done: bool,
    error: Option<String>,
}

/// Sparks a FISH may take from a pool of `sparks`: all of them, except that an idle PE (no
/// runnable thread) keeps its only spark, which it will run itself.
pub fn exportable_sparks(idle: bool, sparks: usize) -> usize {
    if idle && sparks == 1 {
        0
    } else {
        sparks
    }
}

fn view<'a>(pes: &[Pe], clusters: &'a [usize], now: f64, p: PeId) -> PeView<'a> {
    let pe = &pes[p];
    let running = matches!(pe.cpu, Cpu::Thread { .. }) as usize;
    let runnable = pe.run_queue.len() + running;
    let idle = runnable == 0;
    PeView {
        me: p,
        now,
        pes: pes.len(),
        speed: pe.speed,
        sparks: pe.pool_len,
        exportable: exportable_sparks(idle, pe.pool_len),
        runnable,
        live: pe.live,
        idle,
        outstanding: pe.outstanding,
        clusters,
    }
}

impl StealRuntime {
    /// A runtime for `program` on `hosts` (PE i on `hosts[i]`; PE 0 runs the main thread),
    /// with one policy per PE and each PE's static cluster.
    pub fn new(
        engine: &Engine,
        program: Program,
        config: StealConfig,
        hosts: &[HostId],
        clusters: Vec<usize>,
        policies: Vec<Box<dyn StealPolicy>>,
        seed: u64,
    ) -> Result<StealRuntime, String> {
        config.validate()?;
        program.validate()?;
        if hosts.is_empty() {
            return Err("the work-stealing runtime needs at least one PE".into());
        }
        if policies.len() != hosts.len() || clusters.len() != hosts.len() {
            return Err("one policy and one cluster per PE".into());
        }
        let pes = hosts
            .iter()
            .map(|&h| Pe {
                host: h,
                speed: engine.platform().host(h).speed,
                pool: VecDeque::new(),
                pool_len: 0,
                run_queue: VecDeque::new(),
                cpu: Cpu::Idle,
                live: 0,
                blocked: 0,
                inbox: Vec::new(),
                outstanding: [0; 2],
                next_fish_at: [0.0; 2],
                timer_pending: false,
                debt: 0.0,
                tally: Tally::Idle,
                level: 0,
                since: 0.0,
                level_since: 0.0,
                stats: PeStats::default(),
            })
            .collect();
        let n = program.nodes.len();
        Ok(StealRuntime {
            nodes: vec![
                NodeState {
                    place: Place::Fresh,
                    trail: Vec::new(),
                    waiting: None,
                    resume_to: None,
                    fetched: false,
                    received: 0.0,
                };
                n
            ],
            outcome: StealOutcome {
                evaluations: vec![0; n],
                ..StealOutcome::default()
            },
            config,
            program,
            copies: HashMap::new(),
            threads: Vec::new(),
            pes,
            messages: Vec::new(),
            free_messages: Vec::new(),
            policies,
            clusters,
            rng: rng::stream(seed, "scheduler"),
            done: false,
            error: None,
        })
    }

    /// The result so far.
    pub fn outcome(&self) -> &StealOutcome {
        &self.outcome
    }

    fn send(&mut self, e: &mut Engine, from: PeId, to: PeId, body: Body) {
        let now = e.now().secs();
        let info = self.policies[from].piggyback(&view(&self.pes, &self.clusters, now, from));
        let graph_bytes = match &body {
            Body::Schedule { bytes, .. } | Body::Resume { bytes, .. } | Body::ResumeData { bytes, .. } => *bytes,
            _ => 0.0,
        };
        let payload = match &body {
            Body::Schedule { .. } | Body::Resume { .. } | Body::ResumeData { .. } => graph_bytes,
            _ => self.config.control_bytes,
        };
        // The sender packs the graph: its CPU pays at its next scheduler pass.
        let pack = self.config.pack_flops_per_word * graph_bytes / WORD_BYTES;
        if pack > 0.0 {
            self.pes[from].debt += pack;
            self.pes[from].stats.overhead_flops += pack;
        }
        let bytes = self.config.header_bytes + payload + LOAD_ENTRY_BYTES * info.len() as f64;
        self.outcome.messages[body.kind() as usize] += 1;
        self.outcome.message_bytes += bytes;
        let message = Message {
            from,
            to,
            sent_at: now,
            body,
            info,
            graph_bytes,
        };
        let id = match self.free_messages.pop() {
            Some(id) => {
                self.messages[id] = Some(message);
                id
            }
            None => {
                self.messages.push(Some(message));
                self.messages.len() - 1
            }
        };
        if from == to {
            // A FETCH chain can lead back to the requesting PE: deliver through the event
            // queue, never re-entrantly.
            e.sleep(0.0, Tag::new(id, MESSAGE).into());
        } else if let Err(err) = e.start_comm(
            self.pes[from].host,
            self.pes[to].host,
            bytes,
            Tag::new(id, MESSAGE).into(),
        ) {
            self.error.get_or_insert_with(|| err.to_string());
            self.done = true;
        }
    }

    /// Runs the scheduler loop of `p`, whose CPU is free.
    fn schedule(&mut self, e: &mut Engine, p: PeId) {
        if self.done || !matches!(self.pes[p].cpu, Cpu::Idle) {
            return;
        }
        if !self.pes[p].inbox.is_empty() || self.pes[p].debt > 0.0 {
            let batch = std::mem::take(&mut self.pes[p].inbox);
            let unpack: f64 = batch
                .iter()
                .filter_map(|&id| self.messages[id].as_ref())
                .map(|m| self.config.unpack_flops_per_word * m.graph_bytes / WORD_BYTES)
                .sum();
            self.pes[p].stats.overhead_flops += unpack;
            let debt = std::mem::take(&mut self.pes[p].debt);
            let flops = self.config.message_flops * batch.len() as f64 + unpack + debt;
            if flops > 0.0 {
                e.start_exec(self.pes[p].host, flops, Tag::new(p, EXEC).into());
                self.pes[p].cpu = Cpu::Messages(batch);
            } else {
                for id in batch {
                    self.handle(e, p, id);
                }
                self.schedule(e, p);
            }
            return;
        }
        let next = self.pes[p].run_queue.pop_front().or_else(|| self.activate(p));
        if self.pes[p].debt > 0.0 {
            // Creating the thread comes first; the scheduler loop then runs it.
            if let Some(t) = next {
                self.pes[p].run_queue.push_front(t);
            }
            let debt = std::mem::take(&mut self.pes[p].debt);
            e.start_exec(self.pes[p].host, debt, Tag::new(p, EXEC).into());
            self.pes[p].cpu = Cpu::Messages(Vec::new());
            return;
        }
        self.maybe_fish(e, p, next.is_none());
        if let Some(t) = next {
            let slice = self.config.time_slice_s * self.pes[p].speed;
            self.pes[p].cpu = Cpu::Thread {
                thread: t,
                amount: 0.0,
                slice_left: slice,
            };
            self.continue_thread(e, p);
        }
    }

    /// Whether `p` holds as many live threads as it may.
    fn at_thread_limit(&self, p: PeId) -> bool {
        let main = (p == 0 && !self.config.limit_counts_main && !self.done) as usize;
        self.pes[p].live.saturating_sub(main) >= self.config.thread_limit
    }

    /// A new thread from the oldest spark of `p`'s pool, unless at the thread limit.
    fn activate(&mut self, p: PeId) -> Option<usize> {
        if self.at_thread_limit(p) {
            return None;
        }
        let node = self.pop_spark(p)?;
        self.nodes[node as usize].place = Place::Running(p);
        let create = self.config.thread_create_flops;
        let pe = &mut self.pes[p];
        pe.live += 1;
        pe.stats.max_live = pe.stats.max_live.max(pe.live);
        pe.stats.threads += 1;
        if create > 0.0 {
            pe.debt += create;
            pe.stats.overhead_flops += create;
        }
        self.threads.push(Thread {
            frames: vec![Frame {
                node,
                phase: Phase::Read,
                next_child: 0,
            }],
            remaining: 0.0,
        });
        Some(self.threads.len() - 1)
    }

    /// The oldest spark still in `p`'s pool (entries taken by subsumption are skipped).
    fn pop_spark(&mut self, p: PeId) -> Option<NodeId> {
        while let Some(c) = self.pes[p].pool.pop_front() {
            if self.nodes[c as usize].place == Place::Pooled(p) {
                self.pes[p].pool_len -= 1;
                return Some(c);
            }
        }
        None
    }

    fn maybe_fish(&mut self, e: &mut Engine, p: PeId, idle: bool) {
        let now = e.now().secs();
        // The thread about to run is live; at the limit a PE looks for no more work.
        if self.at_thread_limit(p) {
            return;
        }
        let mut v = view(&self.pes, &self.clusters, now, p);
        v.idle = idle;
        v.exportable = exportable_sparks(idle, v.sparks);
        let targets = self.policies[p].fish(&v, &mut self.rng);
        let mut retry_at = f64::INFINITY;
        for target in targets {
            let lane = target.wide as usize;
            if target.to == p || target.to >= self.pes.len() {
                continue;
            }
            if now < self.pes[p].next_fish_at[lane] {
                retry_at = retry_at.min(self.pes[p].next_fish_at[lane]);
                continue;
            }
            self.pes[p].outstanding[lane] += 1;
            self.pes[p].stats.fishes_sent += 1;
            let fish = Fish {
                origin: p,
                age: 0,
                wide: target.wide,
            };
            self.send(e, p, target.to, Body::Fish(fish));
        }
        if retry_at.is_finite() && !self.pes[p].timer_pending {
            self.pes[p].timer_pending = true;
            e.sleep(retry_at - now, Tag::new(p, TIMER).into());
        }
    }

    /// Runs the current thread of `p` on: starts its next exec, or advances it through
    /// instantaneous steps until it needs the CPU, blocks, dies or its slice ends.
    fn continue_thread(&mut self, e: &mut Engine, p: PeId) {
        loop {
            let Cpu::Thread { thread, slice_left, .. } = self.pes[p].cpu else {
                return;
            };
            let remaining = self.threads[thread].remaining;
            if remaining > 0.0 {
                if slice_left <= 0.0 {
                    self.preempt(e, p, thread);
                    return;
                }
                let amount = remaining.min(slice_left);
                self.pes[p].cpu = Cpu::Thread {
                    thread,
                    amount,
                    slice_left,
                };
                e.start_exec(self.pes[p].host, amount, Tag::new(p, EXEC).into());
                return;
            }
            match self.advance(e, p, thread) {
                Step::Run => {}
                Step::Blocked | Step::Finished => {
                    self.pes[p].cpu = Cpu::Idle;
                    self.schedule(e, p);
                    return;
                }
            }
            if self.done {
                self.pes[p].cpu = Cpu::Idle;
                return;
            }
        }
    }

    fn preempt(&mut self, e: &mut Engine, p: PeId, thread: usize) {
        self.pes[p].run_queue.push_back(thread);
        self.pes[p].cpu = Cpu::Idle;
        self.schedule(e, p);
    }

    /// Moves `thread` on `p` past a finished segment, through every step that takes no CPU.
    fn advance(&mut self, e: &mut Engine, p: PeId, thread: usize) -> Step {
        loop {
            let Some(frame) = self.threads[thread].frames.last().copied() else {
                return Step::Finished;
            };
            let node = frame.node as usize;
            match frame.phase {
                Phase::Read => {
                    let Some(&d) = self.program.nodes[node].reads.get(frame.next_child as usize) else {
                        let top = self.top(thread);
                        top.phase = Phase::Own;
                        top.next_child = 0;
                        let flops = self.program.nodes[node].own_flops;
                        self.threads[thread].remaining = flops;
                        if flops > 0.0 {
                            return Step::Run;
                        }
                        continue;
                    };
                    if self.holds(p, d) {
                        self.top(thread).next_child += 1;
                        continue;
                    }
                    // A FETCH_ME: fetch the next packet unless a FETCH is out already, and
                    // block on it.
                    let owner = self.owner(d);
                    let copy = self.copies.entry((d, p as u32)).or_default();
                    copy.waiters.push(thread);
                    let offset = copy.bytes;
                    let send = !std::mem::replace(&mut copy.in_flight, true);
                    self.block(p);
                    if send {
                        self.pes[p].stats.data_fetches += 1;
                        self.send(
                            e,
                            p,
                            owner,
                            Body::FetchData {
                                datum: d,
                                requester: p,
                                offset,
                            },
                        );
                    }
                    return Step::Blocked;
                }
                Phase::Own => {
                    for i in 0..self.program.nodes[node].children.len() {
                        let c = self.program.nodes[node].children[i];
                        self.nodes[c as usize].place = Place::Pooled(p);
                        self.pes[p].pool.push_back(c);
                    }
                    let n = self.program.nodes[node].children.len();
                    self.pes[p].pool_len += n;
                    self.pes[p].stats.sparks_created += n as u64;
                    self.top(thread).phase = Phase::Demand;
                }
                Phase::Demand => {
                    let children = &self.program.nodes[node].children;
                    let Some(&c) = children.get(frame.next_child as usize) else {
                        self.top(thread).phase = Phase::Combine;
                        let flops = self.program.nodes[node].combine_flops;
                        self.threads[thread].remaining = flops;
                        if flops > 0.0 {
                            return Step::Run;
                        }
                        continue;
                    };
                    let child = &self.nodes[c as usize];
                    match child.place {
                        Place::Pooled(q) if q == p => {
                            // Subsumption: the demander evaluates the spark itself.
                            self.nodes[c as usize].place = Place::Running(p);
                            self.pes[p].pool_len -= 1;
                            self.pes[p].stats.sparks_subsumed += 1;
                            self.top(thread).next_child += 1;
                            self.threads[thread].frames.push(Frame {
                                node: c,
                                phase: Phase::Read,
                                next_child: 0,
                            });
                            self.threads[thread].remaining = 0.0;
                        }
                        Place::Done(q) if q == p => self.top(thread).next_child += 1,
                        _ if child.fetched => self.top(thread).next_child += 1,
                        Place::Running(q) if q == p => {
                            self.nodes[c as usize].waiting = Some((thread, false));
                            self.block(p);
                            return Step::Blocked;
                        }
                        _ => {
                            // The first FETCH follows the spark's path; one for a further
                            // packet of a value goes to the PE that sent the first.
                            let hop = if child.received > 0.0 {
                                child.trail.len().saturating_sub(1)
                            } else {
                                0
                            };
                            let first = child.trail.get(hop).map(|&q| q as usize);
                            self.nodes[c as usize].waiting = Some((thread, true));
                            self.block(p);
                            match first {
                                Some(q) => self.send(
                                    e,
                                    p,
                                    q,
                                    Body::Fetch {
                                        node: c,
                                        requester: p,
                                        hop,
                                    },
                                ),
                                None => {
                                    self.error
                                        .get_or_insert_with(|| format!("node {c} is neither local nor exported"));
                                    self.done = true;
                                }
                            }
                            return Step::Blocked;
                        }
                    }
                }
                Phase::Combine => {
                    self.threads[thread].frames.pop();
                    self.finish_node(e, p, frame.node);
                    if self.threads[thread].frames.is_empty() {
                        self.pes[p].live -= 1;
                        return Step::Finished;
                    }
                }
            }
        }
    }

    fn top(&mut self, thread: usize) -> &mut Frame {
        self.threads[thread]
            .frames
            .last_mut()
            .expect("a live thread has a frame")
    }

    /// The PE whose heap holds datum `d`: the one that ran its producer.
    fn owner(&self, d: DataId) -> PeId {
        match self.nodes[self.program.data[d as usize].producer as usize].place {
            Place::Running(q) | Place::Done(q) => q,
            // A reader exists only once its ancestor's own work is done.
            _ => 0,
        }
    }

    /// Whether `p` holds all of datum `d`.
    fn holds(&self, p: PeId, d: DataId) -> bool {
        self.owner(d) == p
            || self
                .copies
                .get(&(d, p as u32))
                .is_some_and(|c| c.bytes >= self.program.data[d as usize].bytes)
    }

    /// The next packet of node `node`'s value for a requester that has `received` bytes.
    fn value_packet(&self, node: NodeId) -> f64 {
        let n = node as usize;
        let left = (self.program.nodes[n].result_bytes - self.nodes[n].received).max(0.0);
        left.min(self.config.packet_bytes())
    }

    /// Packs sparks `nodes` on `p` for a SCHEDULE: each spark's closure, then the data it reads
    /// that `p` holds whole and that fit in the rest of its packet; a FETCH_ME for the others.
    fn pack(&self, p: PeId, nodes: &[NodeId]) -> (Vec<DataId>, f64) {
        let limit = self.config.packet_bytes();
        let mut packed = Vec::new();
        let mut bytes = 0.0;
        for &c in nodes {
            let node = &self.program.nodes[c as usize];
            let mut room = limit - node.graph_bytes;
            bytes += node.graph_bytes;
            for &d in &node.reads {
                let size = self.program.data[d as usize].bytes;
                if size <= room && self.holds(p, d) {
                    room -= size;
                    bytes += size;
                    packed.push(d);
                } else {
                    bytes += FETCH_ME_BYTES;
                }
            }
        }
        (packed, bytes)
    }

    fn block(&mut self, p: PeId) {
        self.pes[p].blocked += 1;
    }

    fn wake(&mut self, p: PeId, thread: usize) {
        self.pes[p].blocked -= 1;
        self.pes[p].run_queue.push_back(thread);
    }

    fn finish_node(&mut self, e: &mut Engine, p: PeId, node: NodeId) {
        let n = node as usize;
        self.nodes[n].place = Place::Done(p);
        self.outcome.evaluations[n] += 1;
        if node == 0 {
            self.outcome.runtime_s = e.now().secs();
            self.done = true;
            return;
        }
        if let Some(requester) = self.nodes[n].resume_to.take() {
            let bytes = self.value_packet(node);
            self.send(e, p, requester, Body::Resume { node, bytes });
        } else if let Some((t, false)) = self.nodes[n].waiting {
            self.nodes[n].waiting = None;
            self.wake(p, t);
        }
    }

    fn handle(&mut self, e: &mut Engine, p: PeId, id: usize) {
        let Some(msg) = self.messages[id].take() else {
            return;
        };
        self.free_messages.push(id);
        let now = e.now().secs();
        let v = view(&self.pes, &self.clusters, now, p);
        self.policies[p].on_message(&v, msg.from, msg.sent_at, &msg.info);
        match msg.body {
            Body::Hello { speed } => self.policies[p].on_hello(&v, msg.from, speed),
            Body::Fish(fish) => self.on_fish(e, p, fish),
            Body::Schedule {
                nodes, wide, packed, ..
            } => {
                for &c in &nodes {
                    self.nodes[c as usize].place = Place::Pooled(p);
                    self.pes[p].pool.push_back(c);
                }
                // Unpacked data replace the FETCH_MEs: threads blocked on them run again.
                for d in packed {
                    if self.owner(d) == p {
                        continue;
                    }
                    let size = self.program.data[d as usize].bytes;
                    let copy = self.copies.entry((d, p as u32)).or_default();
                    copy.bytes = size;
                    for t in std::mem::take(&mut copy.waiters) {
                        self.wake(p, t);
                    }
                }
                let pe = &mut self.pes[p];
                pe.pool_len += nodes.len();
                pe.stats.sparks_received += nodes.len() as u64;
                pe.outstanding[wide as usize] = pe.outstanding[wide as usize].saturating_sub(1);
                self.send(e, p, msg.from, Body::Ack);
            }
            Body::Fetch { node, requester, hop } => {
                let trail = &self.nodes[node as usize].trail;
                if hop + 1 < trail.len() {
                    let next = trail[hop + 1] as usize;
                    self.send(
                        e,
                        p,
                        next,
                        Body::Fetch {
                            node,
                            requester,
                            hop: hop + 1,
                        },
                    );
                } else if self.nodes[node as usize].place == Place::Done(p) {
                    let bytes = self.value_packet(node);
                    self.send(e, p, requester, Body::Resume { node, bytes });
                } else {
                    self.nodes[node as usize].resume_to = Some(requester);
                }
            }
            Body::Resume { node, bytes } => {
                let n = node as usize;
                self.nodes[n].received += bytes;
                if self.nodes[n].received >= self.program.nodes[n].result_bytes {
                    self.nodes[n].fetched = true;
                }
                if let Some((t, _)) = self.nodes[n].waiting.take() {
                    self.wake(p, t);
                }
                // GUM acknowledges an unpacked graph with the new global addresses.
                if msg.from != p {
                    self.send(e, p, msg.from, Body::Ack);
                }
            }
            Body::FetchData {
                datum,
                requester,
                offset,
            } => {
                // Data never move, so the owner answers at once with the next packet.
                let left = (self.program.data[datum as usize].bytes - offset).max(0.0);
                let bytes = left.min(self.config.packet_bytes());
                self.send(e, p, requester, Body::ResumeData { datum, bytes });
            }
            Body::ResumeData { datum, bytes } => {
                let size = self.program.data[datum as usize].bytes;
                let copy = self.copies.entry((datum, p as u32)).or_default();
                copy.bytes = (copy.bytes + bytes).min(size);
                copy.in_flight = false;
                for t in std::mem::take(&mut copy.waiters) {
                    self.wake(p, t);
                }
                if msg.from != p {
                    self.send(e, p, msg.from, Body::Ack);
                }
            }
            Body::Ack => {}
        }
        let _ = msg.to;
    }

    fn on_fish(&mut self, e: &mut Engine, p: PeId, fish: Fish) {
        let lane = fish.wide as usize;
        if fish.origin == p {
            let now = e.now().secs();
            let pe = &mut self.pes[p];
            pe.outstanding[lane] = pe.outstanding[lane].saturating_sub(1);
            pe.next_fish_at[lane] = now + self.config.fish_delay_s;
            pe.stats.fishes_failed += 1;
            return;
        }
        let v = view(&self.pes, &self.clusters, e.now().secs(), p);
        let exportable = v.exportable;
        let answer = self.policies[p].answer(&v, &fish, &mut self.rng);
        let older = Fish {
            age: fish.age + 1,
            ..fish
        };
        match answer {
            Answer::Give(k) if exportable > 0 => {
                let mut nodes = Vec::with_capacity(k.clamp(1, exportable));
                while nodes.len() < k.clamp(1, exportable) {
                    let Some(c) = self.pop_spark(p) else { break };
                    self.nodes[c as usize].place = Place::InFlight(fish.origin);
                    self.nodes[c as usize].trail.push(fish.origin as u32);
                    nodes.push(c);
                }
                self.pes[p].stats.sparks_exported += nodes.len() as u64;
                let (packed, bytes) = self.pack(p, &nodes);
                self.send(
                    e,
                    p,
                    fish.origin,
                    Body::Schedule {
                        nodes,
                        wide: fish.wide,
                        packed,
                        bytes,
                    },
                );
            }
            Answer::Forward(to) if fish.age < self.config.hop_limit && to != p && to < self.pes.len() => {
                self.send(e, p, to, Body::Fish(older));
            }
            _ => self.send(e, p, fish.origin, Body::Fish(older)),
        }
    }

    /// Brings `p`'s time accounting and activity profile up to `now`.
    fn retally(&mut self, p: PeId, now: f64) {
        let record = self.config.record_activity;
        let pe = &mut self.pes[p];
        let running = matches!(pe.cpu, Cpu::Thread { .. }) as usize;
        let tally = match pe.cpu {
            Cpu::Idle if pe.blocked > 0 => Tally::Blocked,
            Cpu::Idle => Tally::Idle,
            _ => Tally::Busy,
        };
        if tally != pe.tally {
            let spent = now - pe.since;
            match pe.tally {
                Tally::Busy => pe.stats.busy_s += spent,
                Tally::Blocked => pe.stats.blocked_s += spent,
                Tally::Idle => pe.stats.idle_s += spent,
            }
            pe.tally = tally;
            pe.since = now;
        }
        let level = if tally == Tally::Busy {
            pe.run_queue.len() + running
        } else {
            0
        };
        if level != pe.level {
            if record && pe.level > 0 && now > pe.level_since {
                self.outcome.activity.push(ActivityInterval {
                    pe: p,
                    start: pe.level_since,
                    end: now,
                    runnable: pe.level,
                });
            }
            pe.level = level;
            pe.level_since = now;
        }
    }

    fn close_accounts(&mut self, now: f64) {
        for p in 0..self.pes.len() {
            let pe = &mut self.pes[p];
            // Ending as idle with nothing blocked closes the open interval of any other state;
            // an idle one is closed by hand.
            let was_idle = pe.tally == Tally::Idle;
            pe.cpu = Cpu::Idle;
            pe.blocked = 0;
            pe.run_queue.clear();
            self.retally(p, now);
            let pe = &mut self.pes[p];
            if was_idle {
                pe.stats.idle_s += now - pe.since;
            }
            pe.since = now;
        }
        self.outcome.pes = self.pes.iter().map(|pe| pe.stats.clone()).collect();
    }
}

impl Application for StealRuntime {
    fn start(&mut self, engine: &mut Engine) {
        if self.config.startup_exchange {
            for p in 0..self.pes.len() {
                for q in 0..self.pes.len() {
                    if p != q {
                        let speed = self.pes[p].speed;
                        self.send(engine, p, q, Body::Hello { speed });
                    }
                }
            }
        }
        self.threads.push(Thread {
            frames: vec![Frame {
                node: 0,
                phase: Phase::Read,
                next_child: 0,
            }],
            remaining: 0.0,
        });
        self.nodes[0].place = Place::Running(0);
        self.pes[0].live = 1;
        self.pes[0].stats.max_live = 1;
        self.pes[0].stats.threads = 1;
        self.pes[0].run_queue.push_back(0);
        for p in 0..self.pes.len() {
            self.schedule(engine, p);
            self.retally(p, 0.0);
        }
    }

    fn on_notification(&mut self, e: &mut Engine, note: Notification) {
        if self.done {
            return;
        }
        let (tag_value, failed) = match note {
            Notification::Completed { tag, .. } => (tag, false),
            Notification::Failed { tag, .. } => (tag, true),
        };
        if failed {
            self.error =
                Some("an activity failed (a host or link went off); the work-stealing model has no failures".into());
            self.done = true;
            return;
        }
        let tag = Tag::from(tag_value);
        let index = tag.index();
        let p = match tag.kind() {
            EXEC => {
                let p = index;
                match std::mem::replace(&mut self.pes[p].cpu, Cpu::Idle) {
                    Cpu::Thread {
                        thread,
                        amount,
                        slice_left,
                    } => {
                        let t = &mut self.threads[thread];
                        // The exec covered the whole segment or the rest of the slice: settle
                        // exactly rather than by subtraction.
                        if amount >= t.remaining {
                            t.remaining = 0.0;
                        } else {
                            t.remaining -= amount;
                        }
                        self.pes[p].stats.work_flops += amount;
                        let slice_left = if amount >= slice_left { 0.0 } else { slice_left - amount };
                        self.pes[p].cpu = Cpu::Thread {
                            thread,
                            amount: 0.0,
                            slice_left,
                        };
                        if self.threads[thread].remaining > 0.0 {
                            self.preempt(e, p, thread);
                        } else {
                            self.continue_thread(e, p);
                        }
                    }
                    Cpu::Messages(batch) => {
                        for id in batch {
                            self.handle(e, p, id);
                        }
                        self.schedule(e, p);
                    }
                    Cpu::Idle => {}
                }
                p
            }
            MESSAGE => {
                let Some(to) = self.messages.get(index).and_then(|m| m.as_ref()).map(|m| m.to) else {
                    return;
                };
                self.pes[to].inbox.push(index);
                self.schedule(e, to);
                to
            }
            _ => {
                let p = index;
                self.pes[p].timer_pending = false;
                self.schedule(e, p);
                p
            }
        };
        let now = e.now().secs();
        if self.done {
            self.close_accounts(now);
        } else {
            self.retally(p, now);
        }
    }
}

/// Runs `program` to completion. Fails if the main thread never finishes (a routing error, a
/// failure, or a run that ran out of events).
pub fn run(engine: Engine, runtime: StealRuntime) -> Result<(StealOutcome, EngineStats), String> {
    let mut sim = Simulation::new(engine, runtime);
    sim.run();
    let stats = sim.stats();
    let app = &mut sim.app;
    if let Some(err) = app.error.take() {
        return Err(err);
    }
    if app.outcome.evaluations.first() != Some(&1) {
        return Err("the main thread never finished (the simulation ran out of events)".into());
    }
    Ok((std::mem::take(&mut app.outcome), stats))
}

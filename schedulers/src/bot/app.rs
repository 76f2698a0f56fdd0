//! The master/worker application on the engine (the protocol in the module docs of `bot`).
//!
//! Message tags encode `(worker, kind)`: a worker's request, the master's reply, the worker's
//! exec. The master answers each request when it arrives (notification order, which is arrival
//! order), starts the reply transfer and forgets it (non-blocking send).

use sim_core::platform::{HostId, LinkId};
use sim_core::{ActivityKind, Application, Engine, EngineStats, FailureCause, Notification, Simulation, Tag};

use super::{Assignment, ChunkPolicy, ChunkReport, MasterView, Request, WorkerHook};

/// The application's parameters.
#[derive(Clone, Debug)]
pub struct BotConfig {
    /// The master's host.
    pub master: HostId,
    /// One worker per entry, on these hosts (in deployment order).
    pub workers: Vec<HostId>,
    /// `N`.
    pub tasks: u64,
    /// `F`, flops per task.
    pub task_flops: f64,
    /// `B`, bytes per task (a chunk of k tasks is one message of k·B bytes).
    pub task_bytes: f64,
    /// Size of a request and of the stop message, bytes (100).
    pub control_bytes: f64,
    /// How task sizes vary around `task_flops` (equal, or drawn with a coefficient of variation).
    pub task_sizes: TaskSizes,
    /// Keep every chunk's record in [`BotOutcome::chunks`]. Off, memory stays proportional to
    /// the chunks in flight instead of growing with `N` (48 bytes per chunk).
    pub record_chunks: bool,
}

/// Task sizes: all `task_flops`, or drawn independently per task (task `i`'s size depends only
/// on the seed and `i`, so every scheduler of a comparison sees the same tasks) from a Gamma
/// distribution with mean `task_flops` and coefficient of variation `cv` (shape `1/cv²`, scale
/// `task_flops·cv²`): the usual model of task run times that vary around a mean, nonnegative
/// and right-skewed; `cv = 1` is the exponential.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum TaskSizes {
    /// Every task has `task_flops`.
    #[default]
    Equal,
    /// Gamma-distributed sizes.
    Gamma {
        /// Coefficient of variation (standard deviation / mean), > 0.
        cv: f64,
        /// Seed of the draws (the run's seed: the stream `task_sizes`).
        seed: u64,
    },
}

impl TaskSizes {
    /// Prefix sums of the `tasks` sizes drawn with mean `mean` (`None` when all are equal):
    /// entry `i` is the total of tasks `0..i`, so a chunk's flops are one subtraction.
    fn prefix_sums(self, tasks: u64, mean: f64) -> Option<Vec<f64>> {
        let TaskSizes::Gamma { cv, seed } = self else {
            return None;
        };
        let gamma = rand_distr::Gamma::new(1.0 / (cv * cv), mean * cv * cv).ok()?;
        let mut rng = sim_core::rng::stream(seed, "task_sizes");
        let mut sums = Vec::with_capacity(tasks as usize + 1);
        let mut total = 0.0;
        sums.push(total);
        for _ in 0..tasks {
            total += rand_distr::Distribution::sample(&gamma, &mut rng);
            sums.push(total);
        }
        Some(sums)
    }
}

/// One chunk's life.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChunkRecord {
    /// Worker index.
    pub worker: usize,
    /// Tasks in the chunk.
    pub size: u64,
    /// Index of the chunk's first task (chunks hold consecutive tasks).
    pub first_task: u64,
    /// When the master sent it.
    pub sent: f64,
    /// When the worker started computing it.
    pub start: f64,
    /// When the worker finished computing it.
    pub end: f64,
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BotOutcome {
    /// Date the last task finished, seconds.
    pub makespan: f64,
    /// Every computed chunk, in completion order (empty unless [`BotConfig::record_chunks`]).
    pub chunks: Vec<ChunkRecord>,
    /// Number of chunks computed (recorded or not).
    pub chunks_done: u64,
    /// Tasks computed (must equal `N`).
    pub tasks_done: u64,
    /// Times a worker was lost to its host's failure (a worker lost twice counts twice).
    pub workers_lost: usize,
    /// Times a lost worker was started again when its host came back.
    pub workers_restarted: usize,
    /// The chunks that failures took from workers (handed out again by the master).
    pub lost_chunks: Vec<LostChunk>,
    /// Every host with power properties (SimGrid's host energy model, `sim_core::energy`), in
    /// platform order, as of the makespan; empty on a platform without them.
    pub energy: Vec<HostEnergy>,
    /// Joules all links with a power model (`wattage_range`) consumed up to the makespan
    /// (SimGrid's link energy plugin, `sim_core::energy`); `None` on a platform without them.
    pub link_energy_j: Option<f64>,
}

/// A powered host's energy and CPU load from the start to the makespan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostEnergy {
    /// The host (any host of the platform: one the run does not use still draws idle power).
    pub host: HostId,
    /// Joules consumed.
    pub joules: f64,
    /// Its CPU load integrated over time, seconds (`Engine::cpu_load_s`).
    pub load_s: f64,
}

/// A chunk a worker lost when its host turned off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LostChunk {
    /// Worker index.
    pub worker: usize,
    /// Tasks in the chunk.
    pub size: u64,
    /// Index of the chunk's first task.
    pub first_task: u64,
    /// When it was lost.
    pub lost: f64,
}

/// What an activity of a worker is for: the kind code of its [`Tag`], whose index is the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    Request,
    Reply,
    Exec,
    /// The wait for a lost worker's host to come back.
    Restart,
}

/// Every kind, by code.
const KINDS: [Kind; 4] = [Kind::Request, Kind::Reply, Kind::Exec, Kind::Restart];

#[derive(Clone, Debug, Default)]
struct WorkerState {
    /// The chunk in flight to or on this worker: (size, first task, sent, max_exec_time).
    chunk: Option<(u64, u64, f64, Option<f64>)>,
    exec_start: f64,
    last: Option<ChunkReport>,
    proposal: Option<u64>,
    stopped: bool,
    lost: bool,
}

/// The master/worker application.
pub struct MasterWorker {
    config: BotConfig,
    policy: Box<dyn ChunkPolicy>,
    hooks: Vec<Option<Box<dyn WorkerHook>>>,
    workers: Vec<WorkerState>,
    speeds: Vec<f64>,
    next_task: u64,
    /// Tasks handed back by failed workers, as (first, size) ranges.
    returned: Vec<(u64, u64)>,
    answers: u64,
    outcome: BotOutcome,
    /// First error: a worker that cannot reach the master, or a policy that could not decide.
    error: Option<String>,
    /// Prefix sums of the drawn task sizes ([`TaskSizes::prefix_sums`]), if they vary.
    size_sums: Option<Vec<f64>>,
}

impl MasterWorker {
    /// A master/worker application with this policy.
    pub fn new(config: BotConfig, policy: Box<dyn ChunkPolicy>) -> MasterWorker {
        let hooks = config.workers.iter().map(|_| policy.worker_hook()).collect();
        let workers = vec![WorkerState::default(); config.workers.len()];
        let size_sums = config.task_sizes.prefix_sums(config.tasks, config.task_flops);
        MasterWorker {
            size_sums,
            config,
            policy,
            hooks,
            workers,
            speeds: Vec::new(),
            next_task: 0,
            returned: Vec::new(),
            answers: 0,
            outcome: BotOutcome::default(),
            error: None,
        }
    }

    /// The result (call after the run).
    pub fn outcome(&self) -> &BotOutcome {
        &self.outcome
    }

    /// A routing error that stopped part of the application, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn remaining(&self) -> u64 {
        self.config.tasks - self.next_task + self.returned.iter().map(|r| r.1).sum::<u64>()
    }

    fn send(&mut self, engine: &mut Engine, src: HostId, dst: HostId, bytes: f64, tag: u64) {
        if let Err(err) = engine.start_comm(src, dst, bytes, tag) {
            self.error.get_or_insert_with(|| err.to_string());
        }
    }

    /// Takes `size` consecutive tasks: returned ones first, then fresh ones.
    fn take_tasks(&mut self, size: u64) -> (u64, u64) {
        if let Some(range) = self.returned.pop() {
            let take = size.min(range.1);
            if take < range.1 {
                self.returned.push((range.0 + take, range.1 - take));
            }
            return (range.0, take);
        }
        let first = self.next_task;
        let take = size.min(self.config.tasks - first);
        self.next_task += take;
        (first, take)
    }

    fn on_request(&mut self, engine: &mut Engine, worker: usize) {
        let host = self.config.workers[worker];
        let remaining = self.remaining();
        let assignment = if remaining == 0 {
            Assignment::tasks(0)
        } else {
            let state = &self.workers[worker];
            let request = Request {
                worker,
                last: state.last,
                proposal: state.proposal,
            };
            let view = MasterView {
                total: self.config.tasks,
                remaining,
                workers: self.config.workers.len(),
                answers: self.answers,
                task_flops: self.config.task_flops,
                worker_speeds: &self.speeds,
                now: engine.now().secs(),
            };
            match self.policy.try_assign(&view, &request) {
                Ok(mut a) => {
                    a.size = a.size.clamp(1, remaining);
                    a
                }
                Err(e) => {
                    // The policy could not decide: the run ends in error, and this worker (as
                    // every other that asks from now on) gets no answer, so the engine runs out
                    // of events once the activities in flight end.
                    self.error.get_or_insert(e);
                    return;
                }
            }
        };
        if assignment.size == 0 {
            self.workers[worker].stopped = true;
            self.send(
                engine,
                self.config.master,
                host,
                self.config.control_bytes,
                Tag::new(worker, Kind::Reply as u8).into(),
            );
            return;
        }
        self.answers += 1;
        let (first, size) = self.take_tasks(assignment.size);
        let now = engine.now().secs();
        self.workers[worker].chunk = Some((size, first, now, assignment.max_exec_time));
        let bytes = size as f64 * self.config.task_bytes;
        self.send(
            engine,
            self.config.master,
            host,
            bytes,
            Tag::new(worker, Kind::Reply as u8).into(),
        );
    }

    /// The flops of tasks `first .. first + size`.
    fn chunk_flops(&self, first: u64, size: u64) -> f64 {
        match &self.size_sums {
            Some(sums) => sums[(first + size) as usize] - sums[first as usize],
            None => size as f64 * self.config.task_flops,
        }
    }

    fn on_reply(&mut self, engine: &mut Engine, worker: usize) {
        let chunk = self.workers[worker].chunk;
        let flops = chunk.map_or(0.0, |(size, first, ..)| self.chunk_flops(first, size));
        let state = &mut self.workers[worker];
        match chunk {
            Some(_) if !state.stopped => {
                state.exec_start = engine.now().secs();
                engine.start_exec(
                    self.config.workers[worker],
                    flops,
                    Tag::new(worker, Kind::Exec as u8).into(),
                );
            }
            _ => {} // the stop message: this worker is done
        }
    }

    fn on_exec_done(&mut self, engine: &mut Engine, worker: usize) {
        let now = engine.now().secs();
        let state = &mut self.workers[worker];
        let (size, first, sent, max_exec_time) = state.chunk.take().expect("an exec belongs to a chunk");
        let report = ChunkReport {
            size,
            exec_time: now - state.exec_start,
        };
        if self.config.record_chunks {
            self.outcome.chunks.push(ChunkRecord {
                worker,
                size,
                first_task: first,
                sent,
                start: state.exec_start,
                end: now,
            });
        }
        self.outcome.chunks_done += 1;
        self.outcome.tasks_done += size;
        self.outcome.makespan = self.outcome.makespan.max(now);
        if self.outcome.tasks_done >= self.config.tasks && engine.has_power() {
            // The last task is done: this is the makespan, when the energy is reported.
            self.outcome.energy = (0..engine.platform().hosts.len() as u32)
                .map(HostId)
                .filter_map(|host| {
                    Some(HostEnergy {
                        host,
                        joules: engine.energy_j(host)?,
                        load_s: engine.cpu_load_s(host)?,
                    })
                })
                .collect();
        }
        if self.outcome.tasks_done >= self.config.tasks && engine.has_link_power() {
            self.outcome.link_energy_j = Some(
                (0..engine.platform().links.len() as u32)
                    .filter_map(|l| engine.link_energy_j(LinkId(l)))
                    .sum(),
            );
        }
        state.last = Some(report);
        state.proposal = self.hooks[worker]
            .as_mut()
            .and_then(|h| h.after_chunk(&report, max_exec_time));
        self.send_request(engine, worker);
    }

    /// The worker asks the master for work (a control-size message carrying its report).
    fn send_request(&mut self, engine: &mut Engine, worker: usize) {
        let host = self.config.workers[worker];
        self.send(
            engine,
            host,
            self.config.master,
            self.config.control_bytes,
            Tag::new(worker, Kind::Request as u8).into(),
        );
    }

    fn on_failure(&mut self, engine: &mut Engine, worker: usize) {
        let state = &mut self.workers[worker];
        if state.lost {
            return;
        }
        state.lost = true;
        self.outcome.workers_lost += 1;
        // The idealised master learns of the loss at once and puts the chunk back.
        if let Some((size, first, ..)) = state.chunk.take() {
            self.returned.push((first, size));
            self.outcome.lost_chunks.push(LostChunk {
                worker,
                size,
                first_task: first,
                lost: engine.now().secs(),
            });
        }
        // The worker process starts again when its host comes back (SimGrid's auto-restart).
        let host = self.config.workers[worker];
        engine.sleep_until_on(host, Tag::new(worker, Kind::Restart as u8).into());
    }

    /// A lost worker's host is back: the worker starts afresh (no report, a new hook) and asks
    /// for work.
    fn on_restart(&mut self, engine: &mut Engine, worker: usize) {
        self.workers[worker] = WorkerState::default();
        self.hooks[worker] = self.policy.worker_hook();
        self.outcome.workers_restarted += 1;
        self.send_request(engine, worker);
    }
}

impl Application for MasterWorker {
    fn start(&mut self, engine: &mut Engine) {
        self.speeds = self
            .config
            .workers
            .iter()
            .map(|&h| {
                // A worker's speed at the pstate it runs at: the family may have moved it
                // from the platform's (DVFS).
                let host = engine.platform().host(h);
                match engine.pstate(h) {
                    p if p == host.pstate => host.speed,
                    p => host.pstate_speed(p).unwrap_or(host.speed),
                }
            })
            .collect();
        for worker in 0..self.config.workers.len() {
            self.send_request(engine, worker);
        }
    }

    fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
        match note {
            Notification::Completed { tag, .. } => {
                let tag = Tag::from(tag);
                let w = tag.index();
                match KINDS[tag.kind() as usize] {
                    Kind::Request => self.on_request(engine, w),
                    Kind::Reply => self.on_reply(engine, w),
                    Kind::Exec => self.on_exec_done(engine, w),
                    Kind::Restart => self.on_restart(engine, w),
                }
            }
            Notification::Failed { tag, kind, cause, .. } => {
                let worker = Tag::from(tag).index();
                let master_down = matches!(cause, FailureCause::HostOff(h) if h == self.config.master);
                if master_down {
                    self.error.get_or_insert_with(|| "the master's host turned off".into());
                } else if !matches!(kind, ActivityKind::Sleep) {
                    self.on_failure(engine, worker);
                }
            }
        }
    }
}

/// Runs the application to the end on `engine`; returns the outcome and the engine's work
/// counters (its event count among them), or the routing error that made a worker unreachable.
pub fn run(
    engine: Engine,
    config: BotConfig,
    policy: Box<dyn ChunkPolicy>,
) -> Result<(BotOutcome, EngineStats), String> {
    let mut sim = simulation(engine, config, policy);
    sim.run();
    finish(&mut sim)
}

/// The application coupled to `engine`, not started: [`run`] in three steps, for a caller that
/// times the simulation alone (`benches/bot_scenario.rs`, like SimGrid's `Engine::run`).
pub fn simulation(engine: Engine, config: BotConfig, policy: Box<dyn ChunkPolicy>) -> Simulation<MasterWorker> {
    Simulation::new(engine, MasterWorker::new(config, policy))
}

/// The outcome and work counters of a simulation that ran to its end, or its error.
pub fn finish(sim: &mut Simulation<MasterWorker>) -> Result<(BotOutcome, EngineStats), String> {
    if let Some(err) = sim.app.error() {
        return Err(err.to_string());
    }
    let stats = sim.stats();
    Ok((std::mem::take(&mut sim.app.outcome), stats))
}

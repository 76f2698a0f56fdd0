//! Remote skeleton invocations of Alt, Bischof & Gorlatch, simulated in the engine, so that the
//! predicted time of eq. 1 can be set against a simulated one (their Fig. 3: predicted and
//! measured times of `reduce` for lists of 256…2048 elements on 2 and 4 threads).
//!
//! **Registration (steps ①–② of their Fig. 1).** Each server registers its skeletons with
//! their performance functions ([`super::alt::PerfFunction`]) and the number of threads its
//! implementations use. The values eq. 1 needs are measured in the engine, as the paper
//! measures them (§4): `t_s` and `t_w` by "sending messages of varying size from the client
//! to the server, without invoking any skeletons" — messages of `k` list elements for each `k`
//! of [`Calibration::probe_elements`], sent alone, and a least-squares line
//! `time = t_s + k·t_w`; the server's speed-up over the client by running the same benchmark
//! on both (§4.1, "performance prediction through benchmarking"); the operator's time on the
//! client by running it there. A server on the client's own host is *local execution*:
//! `t_s = t_w = 0` and no message is sent. The client then asks the lookup service for every
//! server implementing the skeleton and keeps the least predicted `T` ([`choose_server`]), or
//! uses the server it was told to.
//!
//! **The invocation (steps ③ and ⑤).** The client sends one message holding the `n` list
//! elements and the operator's code (`n·e + o` bytes), the server runs the skeleton on `p`
//! threads, and sends one message of `r` elements back; the simulated `T` ends when the
//! result reaches the client. On the server the skeleton is a task graph whose tasks are
//! chains of operator applications, each one engine exec of `op_flops` (times a uniform
//! jitter factor in `[1 − j, 1 + j]` drawn from the run's `"service"` stream); a task starts
//! when the tasks it waits for are done, so at most `p` execs run at once and the host's
//! cores are shared by the engine (threads beyond the cores slow each other down). The graphs
//! implement the algorithms behind the performance functions of [`super::alt`]:
//! * reduce: `p` balanced contiguous blocks reduced in parallel (`b_k − 1` applications each),
//!   then one task reduces the `p` partial results (`p − 1`) — eq. 2;
//! * scan: blocks scanned in parallel (`b_k − 1`), one task computes the offsets of blocks
//!   `2..p` (`p − 2`), then blocks `2..p` add their offset in parallel (`b_k` each);
//! * divide-and-conquer: the top `L = ⌊log₂ p⌋` levels divide in parallel (one divide task per
//!   node, then the two halves, `⌈m/2⌉` and `⌊m/2⌋` elements, as separate tasks, then one
//!   conquer task), the `2^L` sub-lists are solved sequentially (`m − 1` divides and conquers,
//!   `m` base cases each).
//!
//! Every fork or join — a task that has to wait for another task — first costs
//! `sync_overhead_s` (a sleep): the paper's measured `t_red` is "slightly higher owing to the
//! overhead for synchronizing threads". `background_processes` CPU-bound processes compete
//! for the server's cores during the invocation (the paper's "load changes on the server").
//! With no jitter, no overhead, no background load and `p` no larger than the server's cores,
//! the simulated time equals eq. 1 for every list size the balanced partition divides
//! evenly, and whenever the network model is linear in the message size (the raw, CM02 and
//! LV08 models are, for a lone message).

use std::sync::Arc;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sim_core::platform::{HostId, Platform};
use sim_core::{ActivityId, Application, Engine, Notification, Simulation, Tag};

use super::alt::{choose_server, Invocation, LookupService, PerfFunction, Prediction, Server};
use super::measure::{run_probes, Probe};

/// A server as it registers with the lookup service.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSpec {
    /// Name.
    pub name: String,
    /// Its host (the client's host for local execution).
    pub host: HostId,
    /// Threads `p` its skeleton implementations use.
    pub threads: u64,
    /// The skeletons it implements, with their performance functions.
    pub skeletons: Vec<PerfFunction>,
}

/// How the registration measures the network and the servers.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// Bytes of one list element (the unit of `n`, `o`, `r` and `t_w`).
    pub element_bytes: f64,
    /// Message sizes, in elements, of the probes that measure `t_s` and `t_w` (at least two
    /// distinct sizes).
    pub probe_elements: Vec<u64>,
    /// Flops of the benchmark run on the client and on each server.
    pub benchmark_flops: f64,
}

/// Least-squares line `y = a + b·x`: returns `(a, b)`.
pub fn fit_line(xs: &[f64], ys: &[f64]) -> Option<(f64, f64)> {
    let n = xs.len() as f64;
    if xs.len() != ys.len() || xs.len() < 2 {
        return None;
    }
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let b = sxy / sxx;
    Some((my - b * mx, b))
}

/// Registers `servers` with a new lookup service, measuring each one's `t_s`, `t_w` and
/// speed-up from `client` in the engine (module docs).
pub fn register_servers(
    platform: &Arc<Platform>,
    client: HostId,
    servers: &[ServerSpec],
    cal: &Calibration,
) -> Result<LookupService, String> {
    if !(cal.element_bytes.is_finite() && cal.element_bytes > 0.0 && cal.benchmark_flops > 0.0) {
        return Err("element size and benchmark flops must be positive".into());
    }
    let xs: Vec<f64> = cal.probe_elements.iter().map(|&k| k as f64).collect();
    let client_bench = run_probes(
        Arc::clone(platform),
        &[Probe::Compute {
            host: client,
            flops: cal.benchmark_flops,
        }],
    )?[0];
    let mut lookup = LookupService::default();
    for s in servers {
        if s.threads == 0 {
            return Err(format!("server '{}' needs at least one thread", s.name));
        }
        let (t_s, t_w) = if s.host == client {
            (0.0, 0.0)
        } else {
            let probes: Vec<Probe> = cal
                .probe_elements
                .iter()
                .map(|&k| Probe::Message {
                    src: client,
                    dst: s.host,
                    bytes: k as f64 * cal.element_bytes,
                })
                .collect();
            let times = run_probes(Arc::clone(platform), &probes)?;
            fit_line(&xs, &times).ok_or("the probes need at least two distinct sizes")?
        };
        let bench = run_probes(
            Arc::clone(platform),
            &[Probe::Compute {
                host: s.host,
                flops: cal.benchmark_flops,
            }],
        )?[0];
        lookup.register(Server {
            name: s.name.clone(),
            t_s,
            t_w,
            processors: s.threads,
            speedup: client_bench / bench,
            skeletons: s.skeletons.clone(),
        });
    }
    Ok(lookup)
}

/// A task of the skeleton's graph: a chain of operator applications (costs in units of one
/// `⊕` application) that starts when `deps` are done.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// Cost of each application, in operator units.
    pub ops: Vec<f64>,
    /// Tasks to wait for.
    pub deps: Vec<usize>,
}

fn blocks(n: u64, p: u64) -> Vec<u64> {
    (0..p).map(|k| n / p + u64::from(k < n % p)).collect()
}

/// The task graph of a skeleton on `n ≥ p` elements and `p` threads (module docs). The last
/// task is the one that completes the result.
pub fn plan(skeleton: &PerfFunction, n: u64, p: u64) -> Result<Vec<Task>, String> {
    if p == 0 || n < p {
        return Err(format!("a skeleton needs n >= p >= 1 (n = {n}, p = {p})"));
    }
    let ones = |k: u64| vec![1.0; k as usize];
    let mut tasks = Vec::new();
    match skeleton {
        PerfFunction::Reduce if p == 1 => tasks.push(Task {
            ops: ones(n - 1),
            deps: vec![],
        }),
        PerfFunction::Scan if p == 1 => tasks.push(Task {
            ops: ones(n - 1),
            deps: vec![],
        }),
        PerfFunction::Reduce => {
            for b in blocks(n, p) {
                tasks.push(Task {
                    ops: ones(b - 1),
                    deps: vec![],
                });
            }
            tasks.push(Task {
                ops: ones(p - 1),
                deps: (0..p as usize).collect(),
            });
        }
        PerfFunction::Scan => {
            let bs = blocks(n, p);
            for &b in &bs {
                tasks.push(Task {
                    ops: ones(b - 1),
                    deps: vec![],
                });
            }
            let offsets = tasks.len();
            tasks.push(Task {
                ops: ones(p - 2),
                deps: (0..p as usize).collect(),
            });
            let adds: Vec<usize> = bs[1..]
                .iter()
                .map(|&b| {
                    tasks.push(Task {
                        ops: ones(b),
                        deps: vec![offsets],
                    });
                    tasks.len() - 1
                })
                .collect();
            tasks.push(Task {
                ops: vec![],
                deps: adds,
            });
        }
        PerfFunction::DivideAndConquer(c) => {
            let levels = p.ilog2();
            fn node(
                tasks: &mut Vec<Task>,
                m: u64,
                level: u32,
                levels: u32,
                parent: Option<usize>,
                c: &super::alt::DcCosts,
            ) -> usize {
                let deps: Vec<usize> = parent.into_iter().collect();
                if level == levels {
                    let mut ops = vec![c.divide; (m - 1) as usize];
                    ops.extend(vec![c.base; m as usize]);
                    ops.extend(vec![c.conquer; (m - 1) as usize]);
                    tasks.push(Task { ops, deps });
                    return tasks.len() - 1;
                }
                tasks.push(Task {
                    ops: vec![c.divide],
                    deps,
                });
                let divide = tasks.len() - 1;
                let left = node(tasks, m.div_ceil(2), level + 1, levels, Some(divide), c);
                let right = node(tasks, m / 2, level + 1, levels, Some(divide), c);
                tasks.push(Task {
                    ops: vec![c.conquer],
                    deps: vec![left, right],
                });
                tasks.len() - 1
            }
            node(&mut tasks, n, 0, levels, None, c);
        }
    }
    Ok(tasks)
}

/// One remote invocation to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteCall {
    /// The client's host.
    pub client: HostId,
    /// The server's host (the client's for local execution: no messages).
    pub server: HostId,
    /// Threads `p`.
    pub threads: u64,
    /// The skeleton (its performance function names the algorithm).
    pub skeleton: PerfFunction,
    /// List length `n`.
    pub n: u64,
    /// Bytes per list element.
    pub element_bytes: f64,
    /// Bytes of the operator's code, sent with the arguments.
    pub operator_bytes: f64,
    /// Elements of the result.
    pub result_elements: f64,
    /// Flops of one operator application.
    pub op_flops: f64,
    /// Relative half-width `j` of the uniform jitter of each application (0: none).
    pub op_jitter: f64,
    /// Cost of each fork or join, seconds.
    pub sync_overhead_s: f64,
    /// CPU-bound processes competing on the server during the invocation.
    pub background_processes: u32,
    /// Run seed (jitter from its `"service"` stream).
    pub seed: u64,
}

/// What one simulated invocation took.
#[derive(Clone, Debug, PartialEq)]
pub struct CallOutcome {
    /// From the call to the result's arrival at the client, seconds.
    pub total_s: f64,
    /// Arrival of the arguments at the server.
    pub request_s: f64,
    /// Time the skeleton ran on the server.
    pub compute_s: f64,
    /// Transfer of the result.
    pub reply_s: f64,
    /// Operator applications executed.
    pub applications: u64,
    /// Engine events processed.
    pub events: u64,
}

/// Kind codes of the invocation's [`Tag`]s: a task's exec and the sync overhead before a task
/// starts (index: the task), the request, the reply and the background load (index 0).
const TASK: u8 = 0;
const SYNC: u8 = 1;
const REQUEST: u8 = 2;
const REPLY: u8 = 3;
const BACKGROUND: u8 = 4;

struct CallApp {
    call: RemoteCall,
    tasks: Vec<Task>,
    waiting: Vec<usize>,
    next_op: Vec<usize>,
    children: Vec<Vec<usize>>,
    rng: ChaCha8Rng,
    background: Vec<ActivityId>,
    request_at: f64,
    computed_at: f64,
    done_at: Option<f64>,
    applications: u64,
    error: Option<String>,
}

impl CallApp {
    fn send(&mut self, engine: &mut Engine, src: HostId, dst: HostId, bytes: f64, tag: u64) {
        if let Err(e) = engine.start_comm(src, dst, bytes, tag) {
            self.error.get_or_insert_with(|| e.to_string());
        }
    }

    fn arguments_arrived(&mut self, engine: &mut Engine) {
        self.request_at = engine.now().secs();
        for t in 0..self.tasks.len() {
            if self.tasks[t].deps.is_empty() {
                self.run_task_op(engine, t);
            }
        }
    }

    /// Starts the next application of task `t`, or finishes the task.
    fn run_task_op(&mut self, engine: &mut Engine, t: usize) {
        let k = self.next_op[t];
        if let Some(&cost) = self.tasks[t].ops.get(k) {
            self.next_op[t] += 1;
            let j = self.call.op_jitter;
            let factor = if j > 0.0 {
                self.rng.gen_range(1.0 - j..=1.0 + j)
            } else {
                1.0
            };
            self.applications += 1;
            engine.start_exec(
                self.call.server,
                cost * self.call.op_flops * factor,
                Tag::new(t, TASK).into(),
            );
            return;
        }
        // Task done.
        if t + 1 == self.tasks.len() {
            self.computed_at = engine.now().secs();
            if self.call.server == self.call.client {
                self.finished(engine);
            } else {
                let bytes = self.call.result_elements * self.call.element_bytes;
                let (s, c) = (self.call.server, self.call.client);
                self.send(engine, s, c, bytes, Tag::new(0, REPLY).into());
            }
            return;
        }
        for i in 0..self.children[t].len() {
            let child = self.children[t][i];
            self.waiting[child] -= 1;
            if self.waiting[child] == 0 {
                if self.call.sync_overhead_s > 0.0 {
                    engine.sleep(self.call.sync_overhead_s, Tag::new(child, SYNC).into());
                } else {
                    self.run_task_op(engine, child);
                }
            }
        }
    }

    fn finished(&mut self, engine: &mut Engine) {
        self.done_at = Some(engine.now().secs());
        for id in std::mem::take(&mut self.background) {
            engine.cancel(id);
        }
    }
}

impl Application for CallApp {
    fn start(&mut self, engine: &mut Engine) {
        for _ in 0..self.call.background_processes {
            let id = engine.start_exec(self.call.server, f64::MAX / 4.0, Tag::new(0, BACKGROUND).into());
            self.background.push(id);
        }
        if self.call.server == self.call.client {
            self.arguments_arrived(engine);
        } else {
            let bytes = self.call.n as f64 * self.call.element_bytes + self.call.operator_bytes;
            let (c, s) = (self.call.client, self.call.server);
            self.send(engine, c, s, bytes, Tag::new(0, REQUEST).into());
        }
    }

    fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
        match note {
            Notification::Completed { tag, .. } => {
                let tag = Tag::from(tag);
                match tag.kind() {
                    REQUEST => self.arguments_arrived(engine),
                    REPLY => self.finished(engine),
                    BACKGROUND => {}
                    // A task's operation or the sync overhead before its first one ended.
                    TASK | SYNC => self.run_task_op(engine, tag.index()),
                    kind => unreachable!("tag kind {kind} is not the invocation's"),
                }
            }
            Notification::Failed { cause, .. } => {
                self.error
                    .get_or_insert_with(|| format!("the invocation failed: {cause:?}"));
            }
        }
    }
}

/// Simulates one invocation on `platform` (module docs).
pub fn simulate_call(platform: Arc<Platform>, call: &RemoteCall) -> Result<CallOutcome, String> {
    if !(0.0..1.0).contains(&call.op_jitter) {
        return Err(format!("op_jitter must be in [0, 1), got {}", call.op_jitter));
    }
    if !(call.op_flops >= 0.0 && call.sync_overhead_s >= 0.0 && call.element_bytes >= 0.0) {
        return Err("flops, sizes and overheads must be non-negative".into());
    }
    for h in [call.client, call.server] {
        if h.0 as usize >= platform.hosts.len() {
            return Err(format!("host {} is not on the platform", h.0));
        }
    }
    let tasks = plan(&call.skeleton, call.n, call.threads)?;
    let mut children = vec![Vec::new(); tasks.len()];
    for (t, task) in tasks.iter().enumerate() {
        for &d in &task.deps {
            children[d].push(t);
        }
    }
    let app = CallApp {
        waiting: tasks.iter().map(|t| t.deps.len()).collect(),
        next_op: vec![0; tasks.len()],
        children,
        tasks,
        rng: sim_core::rng::stream(call.seed, "service"),
        call: call.clone(),
        background: Vec::new(),
        request_at: 0.0,
        computed_at: 0.0,
        done_at: None,
        applications: 0,
        error: None,
    };
    let engine = Engine::new(platform).map_err(|e| e.to_string())?;
    let mut sim = Simulation::new(engine, app);
    sim.run();
    let events = sim.steps();
    let app = &mut sim.app;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    let total_s = app.done_at.ok_or("the invocation did not complete")?;
    Ok(CallOutcome {
        total_s,
        request_s: app.request_at,
        compute_s: app.computed_at - app.request_at,
        reply_s: total_s - app.computed_at,
        applications: app.applications,
        events,
    })
}

/// How the client picks the server.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// The least predicted `T` among the servers implementing the skeleton (Alt et al.).
    MinPredicted,
    /// This server (index in the registration order).
    Fixed(usize),
}

/// A client's skeleton call: registration, choice, prediction and simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct AltScenario {
    /// The client's host.
    pub client: HostId,
    /// The servers, in registration order.
    pub servers: Vec<ServerSpec>,
    /// How `t_s`, `t_w` and speed-ups are measured.
    pub calibration: Calibration,
    /// The skeleton called.
    pub skeleton: PerfFunction,
    /// List length.
    pub n: u64,
    /// Operator code size, bytes.
    pub operator_bytes: f64,
    /// Result size, elements.
    pub result_elements: f64,
    /// Flops of one operator application.
    pub op_flops: f64,
    /// See [`RemoteCall`].
    pub op_jitter: f64,
    /// See [`RemoteCall`].
    pub sync_overhead_s: f64,
    /// See [`RemoteCall`].
    pub background_processes: u32,
    /// The client's choice.
    pub choice: Choice,
    /// Run seed.
    pub seed: u64,
}

/// Prediction and simulation of one call.
#[derive(Clone, Debug, PartialEq)]
pub struct AltOutcome {
    /// The lookup service after registration (measured `t_s`, `t_w`, speed-ups).
    pub lookup: LookupService,
    /// Eq. 1 for every registered server (`None` where the skeleton is not implemented).
    pub predictions: Vec<Option<Prediction>>,
    /// Eq. 1 for the chosen server.
    pub prediction: Prediction,
    /// Operator time on the client, measured, seconds.
    pub t_op_client: f64,
    /// The simulated call.
    pub simulated: CallOutcome,
}

/// Registers the servers, predicts `T` for each, picks one and simulates the call there.
pub fn run_scenario(platform: &Arc<Platform>, sc: &AltScenario) -> Result<AltOutcome, String> {
    let lookup = register_servers(platform, sc.client, &sc.servers, &sc.calibration)?;
    let t_op_client = run_probes(
        Arc::clone(platform),
        &[Probe::Compute {
            host: sc.client,
            flops: sc.op_flops,
        }],
    )?[0];
    let inv = Invocation {
        skeleton: sc.skeleton.kind(),
        n: sc.n,
        operator_size: sc.operator_bytes / sc.calibration.element_bytes,
        result_size: sc.result_elements,
        t_op_client,
    };
    let predictions = (0..lookup.servers.len()).map(|i| lookup.predict(i, &inv)).collect();
    let prediction = match sc.choice {
        Choice::MinPredicted => choose_server(&lookup, &inv).ok_or("no registered server implements the skeleton")?,
        Choice::Fixed(i) => {
            if i >= lookup.servers.len() {
                return Err(format!("no server {i}"));
            }
            lookup
                .predict(i, &inv)
                .ok_or_else(|| format!("server '{}' does not implement the skeleton", lookup.servers[i].name))?
        }
    };
    let server = &sc.servers[prediction.server];
    let skeleton = *server
        .skeletons
        .iter()
        .find(|f| f.kind() == inv.skeleton)
        .expect("the chosen server implements the skeleton");
    let call = RemoteCall {
        client: sc.client,
        server: server.host,
        threads: server.threads,
        skeleton,
        n: sc.n,
        element_bytes: sc.calibration.element_bytes,
        operator_bytes: sc.operator_bytes,
        result_elements: sc.result_elements,
        op_flops: sc.op_flops,
        op_jitter: sc.op_jitter,
        sync_overhead_s: sc.sync_overhead_s,
        background_processes: sc.background_processes,
        seed: sc.seed,
    };
    let simulated = simulate_call(Arc::clone(platform), &call)?;
    Ok(AltOutcome {
        lookup,
        predictions,
        prediction,
        t_op_client,
        simulated,
    })
}

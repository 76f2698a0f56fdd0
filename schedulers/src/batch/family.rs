//! The batch family (`family = "batch"`): the rigid parallel jobs of a `[workload]` log (SWF or
//! GWF), or synthetic ones from the Lublin–Feitelson model, scheduled on the platform's hosts by
//! FCFS, EASY, EASY-SJBF, conservative backfilling, SJF or LJF ([`crate::batch`]).
//!
//! # Jobs
//!
//! Without a `[workload]`, `jobs` jobs are drawn from the Lublin–Feitelson model with the run's
//! seed ([`super::synthetic`], [`traces::lublin`]); they are then read as a log's jobs are.
//! With a log, `jobs` keeps its first N, and the model's parameters are refused.
//!
//! Each job of the trace (after the `[workload]` selection, whose `load_scale` divides the
//! arrival times) is one rigid job: its size is its requested processors (SWF field 8), else
//! its allocated processors (field 5); its request is SWF field 9, else (unknown, or not above
//! 0) its actual run time, counted in `requests_from_runtime` so that a log without requests
//! (NASA iPSC) says so. A job needing more units than the platform has is dropped and counted
//! (`jobs_dropped`); a run whose every job is dropped is refused.
//!
//! # Units and run times
//!
//! `unit = "host"`: one processor of the log is one host of the platform, the platform's hosts
//! in order are the units. `unit = "core"`: each core of each host is a unit, numbered host by
//! host in platform order (host 0's cores first), so several jobs may share a multi-core host;
//! refused on a platform whose hosts all have one core. A job gets the lowest-numbered free
//! units. `run_time_model = "trace"`: a job holds its units for its recorded run time, whatever
//! their speed (Batsim's "delay" profile). `run_time_model = "speed"`: the recorded run time is
//! work at `reference_speed_flops` (by default the platform's fastest host, so that no job runs
//! faster than recorded), and a job runs its run time times reference / speed of the slowest
//! host it holds; plans still use the requests as written, and kills happen at them.
//!
//! # Host failures
//!
//! A host with a state profile (`[platform.availability]`: an FTA trace, a SimGrid state
//! profile or a random failure model; or the platform's own `state_file`) goes down when its
//! profile says 0 and up when it says anything else, as the engine reads state profiles (up
//! before the first event). Going down kills, at that date, every job holding one of its units
//! (all of its cores with `unit = "core"`), and its units take no job until it is up again: the
//! policies see only the units up and free, and plan with the units up now, assuming no
//! future failure, as production schedulers do. `on_failure` says what a killed job does:
//!
//! - `requeue` (the default): it goes back to the queue at its place (submit time, then id)
//!   and later starts over from scratch, its lost work counted in `lost_unit_s`. This is what
//!   resource managers do with a batch job whose node fails: Slurm requeues it unless the job
//!   says `--no-requeue` (slurm.conf `JobRequeue`, default 1; sbatch `--requeue`), LSF reruns
//!   a job whose execution host fails, LoadLeveler's `restart = yes` (its default) requeues a
//!   vacated job. Each requeue counts once in `jobs_requeued`. A job may be requeued
//!   `max_requeues` times (default 5, Slurm's `MaxBatchRequeue`; LSF's `MAX_JOB_REQUEUE`
//!   bounds them too): killed once more, it ends failed, where Slurm would hold it for an
//!   administrator. Without the bound, a job longer than every window its hosts stay up (a
//!   periodic profile) would be retried for ever.
//! - `fail`: it ends failed at that date (`COMPLETED_FAILED`, counted in `jobs_failed`).
//!
//! A job larger than the platform is dropped; a job larger than the units up now waits. When
//! jobs still wait and nothing can start them any more (nothing runs, no job is left to
//! arrive, and no host's state will change, or only repeating profiles are left and a whole
//! period of the longest of them has passed with no unit able to take one: exact when they
//! share one period, as a profile given to every host and a random model's do), the run is
//! *incomplete*: it reports how many jobs never started and no metric, since a run that could
//! not finish its work never reports a number as if it had.
//!
//! # Energy
//!
//! When every host of the platform has SimGrid's power properties (`wattage_per_state`, and
//! `wattage_off`, 0 when absent), the run reports each host's joules from 0 to the makespan
//! ([`super::energy`]): SimGrid 3.32's host energy model at the pstate the host starts in (the
//! family never changes it), full load while a job holds the host (with `unit = "core"`, the share of its
//! cores held), idle power while on with no job, `wattage_off` while off or down. A platform with
//! no power property reports no energy metric, and a run asking for the `energy` or `power`
//! table there is refused: no power model is made up. A platform where some hosts have one and
//! others not is refused.
//!
//! `idle_off_s > 0` switches a host off once it has been idle that long, unless the queued jobs
//! need its units (the units they need together exceed the free and booting units without
//! it: EASY holding idle hosts for its head job keeps them on); the host shuts down for
//! `shutdown_s`, then is off. When the queued jobs need more units than are free or booting,
//! off hosts are booted, lowest-numbered first, as many as cover the shortfall (a host still
//! shutting down boots as soon as it is off), and take jobs `boot_s` later. Until then their
//! units are neither free nor up for the policy ([`super::policy::BatchView::booting`] counts
//! them), so jobs wait for the boot and the wait metrics show it. Booting and shutting down draw
//! `boot_w` and `shutdown_w`. The defaults (150 s at 120 W, 7 s at 110 W) are SimGrid 3.32's
//! `energy_boot` example, which models them as zero-speed pstates with those figures (18,000 J
//! and 770 J) and calls them educated guesses to be replaced by measurements of a real machine.
//! Not combined with host state profiles: a host would have two sources of down periods.
//!
//! # Metrics
//!
//! Over the jobs that ran to an end of their own (completed, or killed at their request; not
//! the jobs a failure ended, which `jobs_failed` counts): wait (start − submit), response (end −
//! submit), bounded slowdown `max(1, response / max(run, τ))` with `run` the time the job held
//! its hosts (Feitelson, Rudolph, Schwiegelshohn, Sevcik and Wong 1997). A requeued job's
//! start, end and run are those of its last execution, so its wait includes its killed ones.
//! Utilisation: unit-seconds held by every execution (killed ones included) / (units ×
//! makespan), down units counted in the units; `lost_unit_s` is the part of those unit-seconds
//! that failures killed. Makespan: the last end, from the first selected job's submission.
//!
//! # Tables
//!
//! `jobs`: one row per job that ran, failed ones included, in Batsim's column names; a requeued
//! job's row is its last execution. `hosts`: one row per execution and unit it held, the
//! executions a failure killed included (`final_state` `COMPLETED_KILLED`, Batsim's name for a
//! job killed before its end, with which a Batsim scheduler requeues one), so a Gantt chart
//! shows them. `downtime`: one row per unit and period its host is down, up to the makespan,
//! which a timeline figure hatches behind the executions (its `down` table). `energy`: one row
//! per host, its time busy, idle, booting, shutting down and off, and its joules. `power`: the
//! platform's watts from each date at which they change, with the joules drawn until then (a
//! `kind = "step"` figure).

use std::collections::BTreeMap;

use traces::info::nearest_rank;

use super::policy::BatchPolicy;
use sim_core::energy::HostPower;

use super::energy::{account, HostEnergy, Machine, PowerStep};
use super::registry;
use super::sim::{
    simulate_powered, Availability, BatchJob, FinalState, JobResult, OnFailure, Outcome, PowerSaving, SimConfig,
};
use super::synthetic;
use crate::external::{run_label, ExternalPolicy};
use crate::family::{
    declared_table, Family, FamilyInfo, Named, ParamReader, ParamValue, RunError, RunOutput, RunSpec, TableInfo,
    UsedParams,
};
use crate::registry::Param;

/// The batch scheduling family.
pub struct BatchFamily;

/// The resource unit a log's processor stands for.
const UNIT: Param = Param::text(
    "unit",
    "what one processor of the log is: host (each platform host is one unit, as in the KTH and \
     HPC2N logs, whose machines had one processor per node) or core (each core of each \
     host is one unit, so jobs may share a multi-core host)",
    "host",
);
/// How long a started job holds its units.
const RUN_TIME_MODEL: Param = Param::text(
    "run_time_model",
    "trace: a job holds its units for its recorded run time, whatever their speed (Batsim's \
     'delay' profile); speed: the recorded run time is work at reference_speed_flops, \
     so a job runs as long as its slowest host needs",
    "trace",
);
/// The speed at which the log's run times were recorded (`run_time_model = "speed"`).
const REFERENCE_SPEED: Param = Param::real(
    "reference_speed_flops",
    "run_time_model = speed: the speed per core at which the log's run times were recorded",
    Param::NO_DEFAULT,
    0.0,
)
.positive()
.in_unit("flop/s")
.computed_default("the platform's fastest host (no job runs faster than recorded); only with run_time_model = speed");
/// Whether jobs are killed at their request.
const KILL_AT_WALLTIME: Param = Param::boolean(
    "kill_at_walltime",
    "a job whose run time exceeds its request is killed when it reaches it, as a resource \
     manager does (Slurm and PBS kill at the time limit); false lets it \
     run on",
    "true",
);
/// What a host failure does to the jobs it kills.
const ON_FAILURE: Param = Param::text(
    "on_failure",
    "what a host going down ([platform.availability]) does to the jobs holding its units: \
     requeue (back to the queue at its place, by submit time then id, to start over from \
     scratch, as Slurm, LSF and LoadLeveler do by default) or fail (the job ends, \
     COMPLETED_FAILED)",
    "requeue",
);
/// How many times a job may be requeued.
const MAX_REQUEUES: Param = Param::integer(
    "max_requeues",
    "on_failure = requeue: the requeues a job may have; killed again after that, it ends failed \
     (COMPLETED_FAILED), so a job its hosts never let finish is not retried forever. Default 5, \
     Slurm's MaxBatchRequeue (slurm.conf), after which Slurm holds the job; LSF's MAX_JOB_REQUEUE \
     bounds requeues likewise",
    "5",
    0.0,
);
/// τ of the bounded slowdown.
const TAU_S: Param = Param::real(
    "tau_s",
    "τ of the bounded slowdown max(1, response / max(run, τ)); default 10 s, from Feitelson, \
     Rudolph, Schwiegelshohn, Sevcik and Wong, 'Theory and practice in parallel job \
     scheduling', JSSPP 1997",
    "10",
    0.0,
)
.positive()
.in_unit("s");

/// Idle time after which a host is switched off.
const IDLE_OFF_S: Param = Param::real(
    "idle_off_s",
    "switch a host off once it has been idle (on, no job) this long, unless the queued jobs \
     need its units; off hosts are booted when the queued jobs need more units than are free \
     or booting. 0 (the default): hosts are never switched off",
    "0",
    0.0,
)
.in_unit("s");
/// How long a boot takes.
const BOOT_S: Param = Param::real(
    "boot_s",
    "idle_off_s > 0: time from the decision to boot a host to its units taking jobs; default \
     150 s, SimGrid 3.32's energy_boot example (a boot measured at 150 s and 18,000 J)",
    "150",
    0.0,
)
.in_unit("s");
/// Watts drawn while booting.
const BOOT_W: Param = Param::real(
    "boot_w",
    "idle_off_s > 0, on a platform with host power properties: watts a booting host draws; \
     default 120 W, SimGrid 3.32's energy_boot example (18,000 J over 150 s)",
    "120",
    0.0,
)
.in_unit("W");
/// How long a shutdown takes.
const SHUTDOWN_S: Param = Param::real(
    "shutdown_s",
    "idle_off_s > 0: time from the decision to switch a host off to it being off (no job in \
     between); default 7 s, SimGrid 3.32's energy_boot example (a shutdown measured at 7 s and 770 J)",
    "7",
    0.0,
)
.in_unit("s");
/// Watts drawn while shutting down.
const SHUTDOWN_W: Param = Param::real(
    "shutdown_w",
    "idle_off_s > 0, on a platform with host power properties: watts a host shutting down \
     draws; default 110 W, SimGrid 3.32's energy_boot example (770 J over 7 s)",
    "110",
    0.0,
)
.in_unit("W");

/// The family's own parameters (the synthetic jobs' are also listed in
/// `synthetic::SYNTHETIC_ONLY`, which a test holds to this list).
const MODEL: &[Param] = &[
    UNIT,
    RUN_TIME_MODEL,
    REFERENCE_SPEED,
    KILL_AT_WALLTIME,
    ON_FAILURE,
    MAX_REQUEUES,
    TAU_S,
    IDLE_OFF_S,
    BOOT_S,
    BOOT_W,
    SHUTDOWN_S,
    SHUTDOWN_W,
    synthetic::JOBS,
    synthetic::MAX_SIZE,
    synthetic::SERIAL_PROB,
    synthetic::POW2_PROB,
    synthetic::SIZE_LOG_LOW,
    synthetic::SIZE_LOG_MED,
    synthetic::SIZE_LOW_PROB,
    synthetic::RUNTIME_A1,
    synthetic::RUNTIME_B1,
    synthetic::RUNTIME_A2,
    synthetic::RUNTIME_B2,
    synthetic::RUNTIME_PA,
    synthetic::RUNTIME_PB,
    synthetic::RUNTIME_LOG_MAX,
    synthetic::ARRIVAL_SHAPE,
    synthetic::ARRIVAL_SCALE,
    synthetic::ARRIVAL_LOG_MAX,
    synthetic::DAILY_CYCLE,
    synthetic::TARGET_LOAD,
    synthetic::REQUEST_MODEL,
    synthetic::REQUEST_FACTOR,
];

const METRICS: &[Named] = &[
    Named {
        name: "mean_wait_s",
        description: "mean over jobs that ran to an end of their own (not failed) of start - submit, s",
    },
    Named {
        name: "p50_wait_s",
        description: "median wait (nearest rank), s",
    },
    Named {
        name: "p90_wait_s",
        description: "90th percentile wait (nearest rank), s",
    },
    Named {
        name: "p99_wait_s",
        description: "99th percentile wait (nearest rank), s",
    },
    Named {
        name: "max_wait_s",
        description: "largest wait, s",
    },
    Named {
        name: "mean_response_s",
        description: "mean over jobs that ran to an end of their own of end - submit, s",
    },
    Named {
        name: "p50_response_s",
        description: "median response (nearest rank), s",
    },
    Named {
        name: "p90_response_s",
        description: "90th percentile response (nearest rank), s",
    },
    Named {
        name: "p99_response_s",
        description: "99th percentile response (nearest rank), s",
    },
    Named {
        name: "mean_bounded_slowdown",
        description: "mean over jobs that ran to an end of their own of max(1, response / max(run, tau_s))",
    },
    Named {
        name: "max_bounded_slowdown",
        description: "largest bounded slowdown",
    },
    Named {
        name: "utilisation",
        description: "unit-seconds held by every execution, killed ones included / (units x makespan)",
    },
    Named {
        name: "makespan_s",
        description: "date the last job ended, s from the first selected job's submission",
    },
    Named {
        name: "jobs_done",
        description: "jobs that ran (completed or killed at their request)",
    },
    Named {
        name: "jobs_killed",
        description: "jobs killed at their request (kill_at_walltime)",
    },
    Named {
        name: "jobs_requeued",
        description:
            "requeues: executions a host failure killed whose job went back to the queue (on_failure = requeue)",
    },
    Named {
        name: "jobs_failed",
        description: "jobs a host failure ended (on_failure = fail, or killed once more after max_requeues requeues)",
    },
    Named {
        name: "lost_unit_s",
        description: "unit-seconds held by executions a host failure killed",
    },
    Named {
        name: "jobs_dropped",
        description: "jobs dropped because they need more units than the platform has",
    },
    Named {
        name: "requests_from_runtime",
        description: "jobs whose log gives no request (or one not above 0): planned with their actual run time",
    },
    Named {
        name: "units",
        description: "units of the platform (hosts, or cores with unit = \"core\")",
    },
    Named {
        name: "boots",
        description: "boots of hosts switched off (idle_off_s)",
    },
    Named {
        name: "shutdowns",
        description: "hosts switched off after idle_off_s idle",
    },
    Named {
        name: "energy_j",
        description: "joules drawn by every host from 0 to the makespan (SimGrid's host energy model at each host's pstate; only on platforms whose hosts have wattage_per_state)",
    },
    Named {
        name: "idle_energy_j",
        description: "part of energy_j drawn by hosts on with no job",
    },
    Named {
        name: "transition_energy_j",
        description: "part of energy_j drawn by hosts booting or shutting down (idle_off_s)",
    },
    Named {
        name: "energy_per_job_j",
        description: "energy_j / jobs that ran to an end of their own (jobs_done)",
    },
    Named {
        name: "mean_power_w",
        description: "energy_j / makespan_s",
    },
    Named {
        name: "offered_load",
        description: "work the jobs bring (size x run time, cut at the request when killed there) / (units x their arrival period, last submit - first submit); set by the log and load_scale, not the policy",
    },
];

/// `jobs`: Batsim's `_jobs.csv` columns in Batsim's order (so that evalys and Batsim users'
/// scripts read the table: evalys's Gantt chart labels jobs by `workload_name`), then the bounded
/// slowdown. `hosts`: one row per job and host, for Gantt charts.
const TABLES: &[TableInfo] = &[TableInfo {
    name: "jobs",
    description: "per job that ran (a requeued job: its last execution), Batsim's columns in Batsim's order: id as written, workload w0, profile (delay under the trace run-time model, parallel_homogeneous under speed), submit, size, request, success (1, or 0 when killed at its request or by a failure), COMPLETED_SUCCESSFULLY, COMPLETED_WALLTIME_REACHED or COMPLETED_FAILED (ended by a host failure, on_failure = fail), start, held time, end, wait, response, stretch (response / held time), units held (Batsim's interval set, 0-based unit numbers in platform order), consumed energy (-1: not modelled), metadata (empty); then the bounded slowdown",
    columns: &[
        "job_id",
        "workload_name",
        "profile",
        "submission_time",
        "requested_number_of_resources",
        "requested_time",
        "success",
        "final_state",
        "starting_time",
        "execution_time",
        "finish_time",
        "waiting_time",
        "turnaround_time",
        "stretch",
        "allocated_resources",
        "consumed_energy",
        "metadata",
        "bounded_slowdown",
    ],
},
TableInfo {
    name: "quantiles",
    description: "the wait, response and bounded slowdown at each fraction 0.01..1 of the jobs that ran to an end of their own, not failed (nearest rank): their distributions, e.g. the CDF of wait drawn as a quantile curve",
    columns: &["fraction", "wait_s", "response_s", "bounded_slowdown"],
},
TableInfo {
    name: "hosts",
    description: "per execution and unit it held (a Gantt chart's rectangles, `kind = \"timeline\"`), by job then start: the unit's host (0-based, platform order), the unit (the host, or with unit = \"core\" the core's number over all hosts), job id as written, start, end, the job's size, how the execution ended (the jobs table's final states, or COMPLETED_KILLED for one a host failure killed and requeued), the job's user as the log writes it (SWF field 12; -1 when unknown, and for synthetic jobs), so that a Gantt chart can colour by user",
    columns: &["host", "unit", "job_id", "start_s", "end_s", "size", "final_state", "user"],
},
TableInfo {
    name: "downtime",
    description: "one row per unit and period its host is down (its state profile) until the makespan: the host (0-based, platform order), the unit, from and to; a timeline figure's `down` table, hatched behind the hosts table's executions",
    columns: &["host", "unit", "from_s", "to_s"],
},
TableInfo {
    name: "energy",
    description: "per host, on a platform whose hosts have power properties (wattage_per_state): the host (0-based, platform order), its name, seconds busy (on, a job holds a unit), idle (on, no job), booting, shutting down and off or down from 0 to the makespan (they add up to it), and its joules: in all, while idle, while booting or shutting down",
    columns: &["host", "name", "busy_s", "idle_s", "booting_s", "shutting_down_s", "off_s", "energy_j", "idle_energy_j", "transition_energy_j"],
},
TableInfo {
    name: "power",
    description: "the platform's power over time, on a platform whose hosts have power properties: one row per date at which the draw of all hosts changes (and the makespan), with the watts drawn from that date on and the joules drawn from 0 to it (a step line, `kind = \"step\"`)",
    columns: &["time_s", "watts", "energy_j"],
}];

/// A run's jobs and settings, read and checked.
struct Prepared {
    jobs: Vec<BatchJob>,
    /// Each job's user as the log writes it, -1 when unknown (the `hosts` table's colour key).
    users: Vec<i64>,
    /// `run_time_model = "speed"`: each unit's reference speed / its host's speed.
    slowness: Option<Vec<f64>>,
    /// The hosts with a state profile, if any.
    availability: Option<Availability>,
    /// The host of each unit, in unit order.
    unit_host: Vec<u32>,
    config: SimConfig,
    tau_s: f64,
    requests_from_runtime: u64,
    /// `idle_off_s > 0`: switching idle hosts off.
    saving: Option<PowerSaving>,
    /// Each host's power model and units, when the platform's hosts have one.
    power: Option<Vec<(HostPower, u32)>>,
    boot_w: f64,
    shutdown_w: f64,
}

fn prepare(spec: &ParamReader) -> Result<Prepared, RunError> {
    let cores = match spec.text(&UNIT)?.as_str() {
        "host" => false,
        "core" => true,
        other => {
            return Err(RunError::param(
                UNIT.name,
                format!("must be 'host' or 'core', got '{other}'"),
            ))
        }
    };
    let speed_model = match spec.text(&RUN_TIME_MODEL)?.as_str() {
        "trace" if spec.params.contains_key(REFERENCE_SPEED.name) => {
            return Err(RunError::param(
                REFERENCE_SPEED.name,
                "applies only with run_time_model = \"speed\"",
            ))
        }
        "trace" => false,
        "speed" => true,
        other => {
            return Err(RunError::param(
                RUN_TIME_MODEL.name,
                format!("must be 'trace' or 'speed', got '{other}'"),
            ))
        }
    };
    let kill_at_walltime = spec.boolean(&KILL_AT_WALLTIME)?;
    // Read whether or not a host fails in this run: a random failure model's profiles are
    // drawn only when the run starts.
    let on_failure = match spec.text(&ON_FAILURE)?.as_str() {
        "requeue" => OnFailure::Requeue,
        "fail" => OnFailure::Fail,
        other => {
            return Err(RunError::param(
                ON_FAILURE.name,
                format!("must be 'requeue' or 'fail', got '{other}'"),
            ))
        }
    };
    let max_requeues = spec.integer(&MAX_REQUEUES)?;
    if on_failure == OnFailure::Fail && spec.params.contains_key(MAX_REQUEUES.name) {
        return Err(RunError::param(
            MAX_REQUEUES.name,
            "applies only with on_failure = \"requeue\"",
        ));
    }
    let max_requeues = u32::try_from(max_requeues).unwrap_or(u32::MAX);
    let tau_s = spec.real(&TAU_S)?;
    let platform = &spec.platform;
    if platform.hosts.is_empty() {
        return Err(RunError::platform(format!(
            "platform '{}' has no host",
            spec.platform_name
        )));
    }
    if cores && platform.hosts.iter().all(|h| h.cores <= 1) {
        return Err(RunError::param(
            UNIT.name,
            format!(
                "= 'core' needs hosts of several cores, and every host of platform '{}' has one: use 'host'",
                spec.platform_name
            ),
        ));
    }
    // Units in platform order: each host, or each core of each host.
    let mut unit_host: Vec<u32> = Vec::new();
    for (i, host) in platform.hosts.iter().enumerate() {
        let n = if cores { host.cores } else { 1 };
        unit_host.extend(std::iter::repeat(i as u32).take(n as usize));
    }
    let what = if cores { "cores" } else { "hosts" };
    // The speed model's slowness of each unit: reference speed / its host's speed.
    let slowness = if speed_model {
        let reference = match spec.optional_real(&REFERENCE_SPEED)? {
            Some(r) => r,
            None => {
                let fastest = platform.hosts.iter().map(|h| h.speed).fold(0.0, f64::max);
                spec.default_used(REFERENCE_SPEED.name, ParamValue::Float(fastest));
                fastest
            }
        };
        Some(
            unit_host
                .iter()
                .map(|&h| reference / platform.hosts[h as usize].speed)
                .collect::<Vec<f64>>(),
        )
    } else {
        None
    };
    let units = u32::try_from(unit_host.len())
        .map_err(|_| RunError::platform(format!("the platform has more than 2^32 {what}")))?;
    // Each failing host's units: consecutive, since units are numbered host by host.
    let mut failing = Vec::new();
    let mut first = 0u32;
    for host in &platform.hosts {
        let n = if cores { host.cores } else { 1 };
        if let Some(profile) = &host.state_profile {
            failing.push((first..first + n, profile.clone()));
        }
        first += n;
    }
    let availability = (!failing.is_empty()).then_some(Availability {
        hosts: failing,
        on_failure,
        max_requeues,
    });
    // Power: every host's model, or none; a platform with some hosts modelled and not others
    // has no energy to report.
    let mut models = Vec::new();
    for host in &platform.hosts {
        models.push(HostPower::from_host(host).map_err(RunError::platform)?);
    }
    let power = if models.iter().all(Option::is_some) {
        Some(
            models
                .into_iter()
                .flatten()
                .zip(&platform.hosts)
                // The batch family never changes a host's pstate: only the range of the one it
                // starts in is ever drawn, kept as the model's pstate 0.
                .map(|(m, h)| {
                    let range = m.ranges.get(h.pstate).or(m.ranges.first()).cloned();
                    let model = HostPower {
                        ranges: range.into_iter().collect(),
                        off: m.off,
                    };
                    (model, if cores { h.cores } else { 1 })
                })
                .collect::<Vec<_>>(),
        )
    } else if let Some(i) = models.iter().position(Option::is_some) {
        let j = models.iter().position(Option::is_none).unwrap_or(0);
        return Err(RunError::platform(format!(
            "platform '{}': host '{}' has the property wattage_per_state and host '{}' has not: \
             give every host its power (or none, for a run without energy)",
            spec.platform_name, platform.hosts[i].name, platform.hosts[j].name
        )));
    } else {
        None
    };
    if power.is_none() {
        if let Some(table) = spec.tables.iter().find(|t| *t == "energy" || *t == "power") {
            return Err(RunError::platform(format!(
                "table '{table}' needs the hosts' power: no host of platform '{}' has the property \
                 wattage_per_state (SimGrid's 'idle:epsilon:full' watts per pstate)",
                spec.platform_name
            )));
        }
    }
    let idle_off_s = spec.real(&IDLE_OFF_S)?;
    let (mut boot_w, mut shutdown_w) = (0.0, 0.0);
    let saving = if idle_off_s > 0.0 {
        if availability.is_some() {
            return Err(RunError::param(
                IDLE_OFF_S.name,
                "switching idle hosts off is not combined with host state profiles \
                 ([platform.availability] or state_file): a host would have two kinds of down periods",
            ));
        }
        if power.is_some() {
            boot_w = spec.real(&BOOT_W)?;
            shutdown_w = spec.real(&SHUTDOWN_W)?;
        } else if let Some(p) = [&BOOT_W, &SHUTDOWN_W]
            .into_iter()
            .find(|p| spec.params.contains_key(p.name))
        {
            return Err(RunError::param(
                p.name,
                format!(
                    "applies only on a platform whose hosts have power properties (wattage_per_state), \
                     and platform '{}' has none",
                    spec.platform_name
                ),
            ));
        }
        let mut hosts = Vec::with_capacity(platform.hosts.len());
        let mut first = 0u32;
        for host in &platform.hosts {
            let n = if cores { host.cores } else { 1 };
            hosts.push(first..first + n);
            first += n;
        }
        Some(PowerSaving {
            hosts,
            idle_off_s,
            boot_s: spec.real(&BOOT_S)?,
            shutdown_s: spec.real(&SHUTDOWN_S)?,
        })
    } else {
        if let Some(p) = [&BOOT_S, &BOOT_W, &SHUTDOWN_S, &SHUTDOWN_W]
            .into_iter()
            .find(|p| spec.params.contains_key(p.name))
        {
            return Err(RunError::param(p.name, "applies only with idle_off_s > 0"));
        }
        None
    };
    // The log's jobs, or synthetic ones (`synthetic::jobs`).
    let source = synthetic::jobs(spec, units)?;
    if source.is_empty() {
        return Err("the workload has no job".into());
    }
    let mut requests_from_runtime = 0;
    let jobs: Vec<BatchJob> = source
        .iter()
        .map(|j| {
            let request_s = match j.requested_s {
                Some(r) if r > 0.0 => r,
                _ => {
                    requests_from_runtime += 1;
                    j.runtime_s
                }
            };
            BatchJob {
                id: j.id,
                submit_s: j.submit_s,
                size: j.requested_procs.unwrap_or(j.procs),
                request_s,
                runtime_s: j.runtime_s,
            }
        })
        .collect();
    let users: Vec<i64> = source.iter().map(|j| j.user.unwrap_or(-1)).collect();
    if let Some(bad) = jobs
        .iter()
        .find(|j| !(j.runtime_s.is_finite() && j.runtime_s >= 0.0 && j.submit_s.is_finite() && j.submit_s >= 0.0))
    {
        return Err(RunError::Other(format!(
            "workload job {}: run time {} s and submit time {} s must be finite numbers >= 0",
            bad.id, bad.runtime_s, bad.submit_s
        )));
    }
    if jobs.iter().all(|j| j.size > units) {
        let smallest = jobs.iter().map(|j| j.size).min().unwrap_or(0);
        return Err(RunError::platform(format!(
            "every job of the workload needs more {what} than platform '{}' has ({units}; the smallest job needs {smallest})",
            spec.platform_name
        )));
    }
    Ok(Prepared {
        jobs,
        users,
        slowness,
        availability,
        unit_host,
        config: SimConfig {
            units,
            kill_at_walltime,
        },
        tau_s,
        requests_from_runtime,
        saving,
        power,
        boot_w,
        shutdown_w,
    })
}

/// Each host's energy and the platform's power steps from 0 to `end`, when the platform's
/// hosts have a power model.
fn energy(prepared: &Prepared, outcome: &Outcome, end: f64) -> Option<(Vec<HostEnergy>, Vec<PowerStep>)> {
    let hosts = prepared.power.as_ref()?;
    let executions: Vec<&JobResult> = outcome.jobs.iter().chain(&outcome.requeued).collect();
    let mut down = Vec::new();
    for (units, profile) in prepared.availability.iter().flat_map(|a| &a.hosts) {
        let host = prepared.unit_host[units.start as usize] as usize;
        down.extend(
            profile
                .off_intervals(end)
                .into_iter()
                .map(|(from, to)| (host, from, to)),
        );
    }
    let machine = Machine {
        hosts,
        unit_host: &prepared.unit_host,
        boot_w: prepared.boot_w,
        shutdown_w: prepared.shutdown_w,
    };
    Some(account(&machine, &executions, &down, &outcome.power, end))
}

/// Bounded slowdown of a job that waited `wait` and held its units `run` seconds.
pub fn bounded_slowdown(wait: f64, run: f64, tau_s: f64) -> f64 {
    ((wait + run) / run.max(tau_s)).max(1.0)
}

/// Batsim's interval-set text of `ranges`: `0-3 7 9-10`.
fn interval_set(ranges: &[(u32, u32)]) -> String {
    let parts: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| if a == b { format!("{a}") } else { format!("{a}-{b}") })
        .collect();
    parts.join(" ")
}

/// Batsim's name of how an execution ended.
fn state_name(state: FinalState) -> &'static str {
    match state {
        FinalState::Completed => "COMPLETED_SUCCESSFULLY",
        FinalState::Killed => "COMPLETED_WALLTIME_REACHED",
        FinalState::Failed => "COMPLETED_FAILED",
        FinalState::Requeued => "COMPLETED_KILLED",
    }
}

/// The jobs that ran to an end of their own (completed or killed at their request): those the
/// wait, response and slowdown metrics cover.
fn ended(outcome: &Outcome) -> impl Iterator<Item = &JobResult> {
    outcome.jobs.iter().filter(|r| r.state != FinalState::Failed)
}

/// The metrics of `outcome`.
fn metrics(prepared: &Prepared, outcome: &Outcome) -> BTreeMap<String, f64> {
    let jobs = &prepared.jobs;
    let mut waits = Vec::with_capacity(outcome.jobs.len());
    let mut responses = Vec::with_capacity(outcome.jobs.len());
    let mut bsld_sum = 0.0;
    let mut bsld_max: f64 = 0.0;
    for r in ended(outcome) {
        let job = &jobs[r.index];
        let wait = r.start_s - job.submit_s;
        let run = r.end_s - r.start_s;
        let b = bounded_slowdown(wait, run, prepared.tau_s);
        waits.push(wait);
        responses.push(r.end_s - job.submit_s);
        bsld_sum += b;
        bsld_max = bsld_max.max(b);
    }
    let mut held = 0.0;
    let mut makespan: f64 = 0.0;
    for r in outcome.jobs.iter().chain(&outcome.requeued) {
        held += (r.end_s - r.start_s) * jobs[r.index].size as f64;
        makespan = makespan.max(r.end_s);
    }
    let n = waits.len().max(1) as f64;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / n;
    let mut m = BTreeMap::new();
    let mut put = |k: &str, v: f64| {
        m.insert(k.to_string(), v);
    };
    put("mean_wait_s", mean(&waits));
    put("mean_response_s", mean(&responses));
    waits.sort_by(f64::total_cmp);
    responses.sort_by(f64::total_cmp);
    for (name, q) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
        put(&format!("{name}_wait_s"), nearest_rank(&waits, q));
        put(&format!("{name}_response_s"), nearest_rank(&responses, q));
    }
    put("max_wait_s", waits.last().copied().unwrap_or(0.0));
    put("mean_bounded_slowdown", bsld_sum / n);
    put("max_bounded_slowdown", bsld_max);
    let units = prepared.config.units as f64;
    put(
        "utilisation",
        if makespan > 0.0 { held / (units * makespan) } else { 0.0 },
    );
    put("makespan_s", makespan);
    put("jobs_done", waits.len() as f64);
    let count = |state| outcome.jobs.iter().filter(|r| r.state == state).count() as f64;
    put("jobs_killed", count(FinalState::Killed));
    put("jobs_failed", count(FinalState::Failed));
    put("jobs_requeued", outcome.requeued.len() as f64);
    put("boots", outcome.boots as f64);
    put("shutdowns", outcome.shutdowns as f64);
    put("lost_unit_s", outcome.lost_unit_s);
    put("jobs_dropped", outcome.dropped.len() as f64);
    put("requests_from_runtime", prepared.requests_from_runtime as f64);
    put("units", units);
    put("offered_load", offered_load(prepared, &outcome.dropped));
    m
}

/// The work the jobs bring over the capacity of their arrival period: the sum over jobs not
/// dropped of size × run time (as recorded, or the request when `kill_at_walltime` cuts it),
/// over units × (last submit − first submit). It depends on the log and `load_scale`, not on
/// the policy, so it is the x axis of slowdown against load; 0 when every job arrives at once.
fn offered_load(prepared: &Prepared, dropped: &[usize]) -> f64 {
    let mut is_dropped = vec![false; prepared.jobs.len()];
    for &i in dropped {
        is_dropped[i] = true;
    }
    let (mut work, mut first, mut last) = (0.0, f64::INFINITY, f64::NEG_INFINITY);
    for (job, _) in prepared.jobs.iter().zip(&is_dropped).filter(|(_, d)| !**d) {
        let run = if prepared.config.kill_at_walltime {
            job.runtime_s.min(job.request_s)
        } else {
            job.runtime_s
        };
        work += f64::from(job.size) * run;
        first = first.min(job.submit_s);
        last = last.max(job.submit_s);
    }
    let period = last - first;
    if period > 0.0 {
        work / (f64::from(prepared.config.units) * period)
    } else {
        0.0
    }
}

/// The `jobs` table of `outcome`, in job-list order.
fn jobs_table(prepared: &Prepared, outcome: &Outcome) -> Vec<Vec<ParamValue>> {
    use ParamValue::{Float, Int, Str};
    outcome
        .jobs
        .iter()
        .map(|r| {
            let job = &prepared.jobs[r.index];
            let wait = r.start_s - job.submit_s;
            let run = r.end_s - r.start_s;
            let turnaround = r.end_s - job.submit_s;
            vec![
                Int(job.id),
                // A run replays one workload.
                Str("w0".into()),
                // Batsim's profile that holds the hosts as each run-time model does: a fixed
                // time, or the same work on every host, done when the slowest host is.
                Str(if prepared.slowness.is_some() {
                    "parallel_homogeneous"
                } else {
                    "delay"
                }
                .into()),
                Float(job.submit_s),
                Int(job.size as i64),
                Float(job.request_s),
                Int(matches!(r.state, FinalState::Completed) as i64),
                Str(state_name(r.state).into()),
                Float(r.start_s),
                Float(run),
                Float(r.end_s),
                Float(wait),
                Float(turnaround),
                // Batsim's stretch: turnaround / execution time (1 for a job of no time that
                // never waited, its turnaround when it waited).
                Float(if run > 0.0 {
                    turnaround / run
                } else if turnaround > 0.0 {
                    turnaround
                } else {
                    1.0
                }),
                Str(interval_set(&r.units)),
                // Batsim writes -1 when energy is not simulated; it is not here.
                Float(-1.0),
                Str(String::new()),
                Float(bounded_slowdown(wait, run, prepared.tau_s)),
            ]
        })
        .collect()
}

/// The `quantiles` table of `outcome`: nearest-rank quantiles at 0.01, 0.02, ..., 1.
fn quantiles_table(prepared: &Prepared, outcome: &Outcome) -> Vec<Vec<ParamValue>> {
    let (mut waits, mut responses, mut slowdowns) = (Vec::new(), Vec::new(), Vec::new());
    for r in ended(outcome) {
        let submit = prepared.jobs[r.index].submit_s;
        let wait = r.start_s - submit;
        waits.push(wait);
        responses.push(r.end_s - submit);
        slowdowns.push(bounded_slowdown(wait, r.end_s - r.start_s, prepared.tau_s));
    }
    for v in [&mut waits, &mut responses, &mut slowdowns] {
        v.sort_by(f64::total_cmp);
    }
    (1..=100)
        .map(|k| {
            let q = k as f64 / 100.0;
            vec![
                ParamValue::Float(q),
                ParamValue::Float(nearest_rank(&waits, q)),
                ParamValue::Float(nearest_rank(&responses, q)),
                ParamValue::Float(nearest_rank(&slowdowns, q)),
            ]
        })
        .collect()
}

/// The `hosts` table of `outcome`: each execution's hosts, by job-list order, then start (a
/// requeued job's killed executions before its last), then host.
fn hosts_table(prepared: &Prepared, outcome: &Outcome) -> Vec<Vec<ParamValue>> {
    use ParamValue::{Float, Int, Str};
    let mut executions: Vec<&JobResult> = outcome.jobs.iter().chain(&outcome.requeued).collect();
    executions.sort_by(|a, b| a.index.cmp(&b.index).then(a.start_s.total_cmp(&b.start_s)));
    let mut rows = Vec::new();
    for r in executions {
        let job = &prepared.jobs[r.index];
        for &(a, b) in &r.units {
            for unit in a..=b {
                rows.push(vec![
                    Int(prepared.unit_host[unit as usize] as i64),
                    Int(unit as i64),
                    Int(job.id),
                    Float(r.start_s),
                    Float(r.end_s),
                    Int(job.size as i64),
                    Str(state_name(r.state).into()),
                    Int(prepared.users[r.index]),
                ]);
            }
        }
    }
    rows
}

const INFO: FamilyInfo = FamilyInfo {
    name: "batch",
    description:
        "batch scheduling of rigid parallel jobs from a workload log or the Lublin-Feitelson model: FCFS, EASY, conservative backfilling, SJF, LJF",
    schedulers: registry::infos,
    parameters: MODEL,
    metrics: METRICS,
    tables: TABLES,
};

impl Family for BatchFamily {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }

    /// Synthetic jobs are drawn from the run's seed; a log's are fixed.
    fn draws_random_numbers(&self, spec: &RunSpec) -> bool {
        spec.workload.is_none()
    }

    fn replays_job_traces(&self) -> bool {
        true
    }

    fn validate(&self, spec: &RunSpec) -> Result<UsedParams, RunError> {
        let reader = ParamReader::new(spec);
        prepare(&reader)?;
        let policy_params = reader.numeric_params_besides(MODEL)?;
        registry::build(&spec.scheduler, &policy_params)?;
        reader.policy_defaults(registry::infos());
        Ok(reader.used())
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutput, RunError> {
        run_with(spec, None)
    }

    fn validate_external(&self, spec: &RunSpec, policy: &ExternalPolicy) -> Result<UsedParams, RunError> {
        let reader = ParamReader::new(spec);
        prepare(&reader)?;
        policy.values(&reader.numeric_params_besides(MODEL)?)?;
        reader.entry_defaults(&policy.info);
        Ok(reader.used())
    }

    fn run_external(&self, spec: &RunSpec, policy: &ExternalPolicy) -> Result<RunOutput, RunError> {
        run_with(spec, Some(policy))
    }
}

/// A run under the registry's policy of the run's scheduler, or under `external`.
fn run_with(spec: &RunSpec, external: Option<&ExternalPolicy>) -> Result<RunOutput, RunError> {
    let reader = ParamReader::new(spec);
    let prepared = prepare(&reader)?;
    let policy_params = reader.numeric_params_besides(MODEL)?;
    let (mut policy, failure): (Box<dyn BatchPolicy>, _) = match external {
        None => (registry::build(&spec.scheduler, &policy_params)?, None),
        Some(p) => {
            let checked = p.batch_policy(&policy_params, &run_label(spec))?;
            let failure = checked.failure();
            (Box::new(checked), Some(failure))
        }
    };
    let outcome = simulate_powered(
        &prepared.jobs,
        prepared.config,
        prepared.slowness.as_deref(),
        prepared.availability.as_ref(),
        prepared.saving.as_ref(),
        policy.as_mut(),
    )
    .map_err(|e| match failure.and_then(|f| f.get()) {
        // The policy's failure, if it failed, is the run's error, named as the policy's.
        Some(why) => RunError::Policy(format!("{why} (run {})", run_label(spec))),
        None => RunError::Other(format!("scheduler '{}': {e}", spec.scheduler)),
    })?;
    // Jobs left waiting for units that stayed down: the run has no result to report.
    let incomplete = (!outcome.unfinished.is_empty()).then(|| {
        let largest = outcome
            .unfinished
            .iter()
            .map(|&i| prepared.jobs[i].size)
            .max()
            .unwrap_or(0);
        format!(
            "incomplete: {} of {} jobs never started (the largest needs {largest} of the {} units): \
                 the units they need stayed down and nothing else could start them",
            outcome.unfinished.len(),
            prepared.jobs.len(),
            prepared.config.units
        )
    });
    let mut tables = BTreeMap::new();
    if spec.tables.iter().any(|t| t == "jobs") {
        tables.extend([declared_table(TABLES, "jobs", jobs_table(&prepared, &outcome))?]);
    }
    if spec.tables.iter().any(|t| t == "quantiles") {
        tables.extend([declared_table(
            TABLES,
            "quantiles",
            quantiles_table(&prepared, &outcome),
        )?]);
    }
    if spec.tables.iter().any(|t| t == "hosts") {
        tables.extend([declared_table(TABLES, "hosts", hosts_table(&prepared, &outcome))?]);
    }
    let mut metrics = metrics(&prepared, &outcome);
    let end = metrics.get("makespan_s").copied().unwrap_or(0.0);
    if let Some((hosts, steps)) = energy(&prepared, &outcome, end) {
        let total: f64 = hosts.iter().map(HostEnergy::joules).sum();
        let done = metrics.get("jobs_done").copied().unwrap_or(0.0);
        metrics.insert("energy_j".into(), total);
        metrics.insert("idle_energy_j".into(), hosts.iter().map(|h| h.idle_j).sum());
        metrics.insert("transition_energy_j".into(), hosts.iter().map(|h| h.transition_j).sum());
        metrics.insert("energy_per_job_j".into(), if done > 0.0 { total / done } else { 0.0 });
        metrics.insert("mean_power_w".into(), if end > 0.0 { total / end } else { 0.0 });
        if spec.tables.iter().any(|t| t == "energy") {
            let rows = hosts
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    use ParamValue::{Float, Int, Str};
                    vec![
                        Int(i as i64),
                        Str(spec.platform.hosts[i].name.clone()),
                        Float(e.busy_s),
                        Float(e.idle_s),
                        Float(e.booting_s),
                        Float(e.shutting_down_s),
                        Float(e.off_s),
                        Float(e.joules()),
                        Float(e.idle_j),
                        Float(e.transition_j),
                    ]
                })
                .collect();
            tables.extend([declared_table(TABLES, "energy", rows)?]);
        }
        if spec.tables.iter().any(|t| t == "power") {
            let rows = steps
                .iter()
                .map(|s| {
                    vec![
                        ParamValue::Float(s.time_s),
                        ParamValue::Float(s.watts),
                        ParamValue::Float(s.joules),
                    ]
                })
                .collect();
            tables.extend([declared_table(TABLES, "power", rows)?]);
        }
    }
    if spec.tables.iter().any(|t| t == "downtime") {
        let mut rows = Vec::new();
        for (units, profile) in prepared.availability.iter().flat_map(|a| &a.hosts) {
            let host = prepared.unit_host[units.start as usize] as i64;
            for (from, to) in profile.off_intervals(end) {
                rows.extend(units.clone().map(|u| {
                    vec![
                        ParamValue::Int(host),
                        ParamValue::Int(u as i64),
                        ParamValue::Float(from),
                        ParamValue::Float(to),
                    ]
                }));
            }
        }
        tables.extend([declared_table(TABLES, "downtime", rows)?]);
    }
    Ok(RunOutput {
        metrics,
        events: outcome.decisions + outcome.host_events,
        tables,
        incomplete,
    })
}

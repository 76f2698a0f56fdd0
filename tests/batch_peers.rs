//! The batch family side by side with two peer tools no one here wrote, both from PyPI:
//!
//! - **AccaSim 1.1.3** (a batch-scheduling simulator): its FirstInFirstOut, ShortestJobFirst and
//!   EASYBackfilling dispatchers against gridsim's `fcfs`, `sjf` and `easy`, job by job, on the
//!   first 5,000 jobs of the bundled KTH SP2 log on 100 one-processor hosts, and on two hand-made
//!   logs whose schedules are worked out below. FCFS and SJF must start every job at AccaSim's
//!   date. EASY parts from AccaSim where their rules differ (docs/batch.md, "Compared with
//!   AccaSim"): the test finds the first date the two part, computes from the common state at
//!   that date which of the documented differences it is, and fails on any other.
//! - **evalys 4.0.7** (Batsim's analysis library): it loads a `jobs` table `gridsim run` wrote,
//!   with its reader of Batsim's `_jobs.csv`, and draws its Gantt chart to a PNG; every job must
//!   read back with the start, finish and resource count of the hand-worked schedule.
//!
//! The tools run in the virtual environment `scripts/test.sh` creates and fills
//! (`target/peers-venv`, or `$GRIDSIM_PEERS_VENV`; `scripts/accasim_schedule.py` and
//! `scripts/evalys_gantt.py` drive them). Without it these tests fail; they never skip.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{gridsim, root};

/// Hosts of the KTH SP2 machine, one processor each (the log's MaxProcs).
const KTH_HOSTS: u32 = 100;
/// Jobs of the KTH slice: enough for EASY to part from AccaSim (at the log's 67th job) and for
/// thousands of FCFS and SJF starts, while keeping AccaSim's three runs short for CI.
const KTH_JOBS: usize = 5000;

/// The Python of the peer tools' virtual environment, after checking that it imports both.
fn peers_python() -> PathBuf {
    let venv = std::env::var_os("GRIDSIM_PEERS_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/peers-venv"));
    let python = venv.join("bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run scripts/test.sh, which creates this virtual environment and installs \
         AccaSim and evalys in it (scripts/peers-requirements.txt)",
        python.display()
    );
    // AccaSim 1.1.3 imports collections.Mapping, which Python 3.10 removed.
    let out = Command::new(&python)
        .args([
            "-c",
            "import collections, collections.abc; collections.Mapping = collections.abc.Mapping; \
             import accasim, evalys",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    assert!(
        out.status.success(),
        "{} cannot import AccaSim and evalys: run scripts/test.sh, which installs them \
         (scripts/peers-requirements.txt):\n{}",
        python.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    python
}

/// One job of a gridsim `jobs` table.
#[derive(Clone, Debug, PartialEq)]
struct Job {
    submit: f64,
    size: u32,
    request: f64,
    start: f64,
    end: f64,
    allocated: String,
    success: i64,
    final_state: String,
}

/// A policy's jobs by id.
type Schedule = BTreeMap<i64, Job>;

/// Runs `gridsim run` on `log` over `hosts` one-core hosts under `policies` (gridsim names) and
/// reads its `jobs` table back: {policy: schedule}.
fn gridsim_schedules(work: &Path, log: &Path, hosts: u32, policies: &[&str]) -> BTreeMap<String, Schedule> {
    let mut text = format!(
        "name = \"peers\"\nfamily = \"batch\"\nseed = 1\nreplications = 1\n\n[platform]\n\
         generator = \"homogeneous_cluster\"\nparams = {{ hosts = {hosts}, speed_flops = 1e9, \
         bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, backbone_bandwidth_bytes_per_s = 1e9, \
         backbone_latency_s = 5e-4 }}\n\n[workload]\ntrace = {:?}\n\n",
        log
    );
    for p in policies {
        text += &format!("[[schedulers]]\nname = \"{p}\"\n\n");
    }
    text += "[outputs]\ntables = [\"jobs\"]\n";
    std::fs::write(work.join("peers.toml"), text).unwrap();
    let out = gridsim(work, ["run", "peers.toml", "--out", "out", "--no-plots"]);
    assert!(out.ok, "gridsim run failed:\n{}", out.stderr);
    let mut reader = csv::Reader::from_path(work.join("out/results/peers/jobs.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("jobs.csv has no column {name}"))
    };
    let (sched, id, submit, size, request, start, end, alloc, success, state) = (
        col("scheduler"),
        col("job_id"),
        col("submission_time"),
        col("requested_number_of_resources"),
        col("requested_time"),
        col("starting_time"),
        col("finish_time"),
        col("allocated_resources"),
        col("success"),
        col("final_state"),
    );
    let mut all: BTreeMap<String, Schedule> = BTreeMap::new();
    for row in reader.records() {
        let row = row.unwrap();
        let f = |i: usize| row[i].parse::<f64>().unwrap();
        all.entry(row[sched].to_string()).or_default().insert(
            row[id].parse().unwrap(),
            Job {
                submit: f(submit),
                size: row[size].parse().unwrap(),
                request: f(request),
                start: f(start),
                end: f(end),
                allocated: row[alloc].to_string(),
                success: row[success].parse().unwrap(),
                final_state: row[state].to_string(),
            },
        );
    }
    all
}

/// AccaSim's {policy (fifo, sjf, easy): {job id: (submit, start)}} for `log` on `nodes` nodes.
fn accasim_schedules(python: &Path, log: &Path, nodes: u32) -> BTreeMap<String, BTreeMap<i64, (f64, f64)>> {
    let out = Command::new(python)
        .arg(root().join("scripts/accasim_schedule.py"))
        .arg(log)
        .args(["--nodes", &nodes.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "AccaSim failed on {}:\n{}",
        log.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let mut all: BTreeMap<String, BTreeMap<i64, (f64, f64)>> = BTreeMap::new();
    for row in reader.records() {
        let row = row.unwrap();
        all.entry(row[0].to_string()).or_default().insert(
            row[1].parse().unwrap(),
            (row[2].parse().unwrap(), row[3].parse().unwrap()),
        );
    }
    all
}

/// AccaSim's starts of `ours`' jobs on gridsim's clock. AccaSim keeps the log's own time origin;
/// gridsim may shift it: the shift is the one that aligns the first submission, and every other
/// submission must then agree too (the same jobs, read the same way).
fn aligned_starts(ours: &Schedule, theirs: &BTreeMap<i64, (f64, f64)>, policy: &str) -> BTreeMap<i64, f64> {
    let ids: BTreeSet<_> = ours.keys().collect();
    let their_ids: BTreeSet<_> = theirs.keys().collect();
    assert_eq!(ids, their_ids, "{policy}: the two ran different jobs");
    let first_theirs = theirs.values().map(|v| v.0).fold(f64::INFINITY, f64::min);
    let first_ours = ours.values().map(|j| j.submit).fold(f64::INFINITY, f64::min);
    let shift = first_theirs - first_ours;
    theirs
        .iter()
        .map(|(&id, &(submit, start))| {
            assert_eq!(submit - shift, ours[&id].submit, "{policy}: job {id}'s submission");
            (id, start - shift)
        })
        .collect()
}

/// How many jobs start at the same date in both, and the first date a job starts in one and
/// not the other (`None`: every job the same).
fn agreement(ours: &Schedule, theirs: &BTreeMap<i64, f64>) -> (usize, Option<f64>) {
    let same = ours.iter().filter(|(id, j)| j.start == theirs[*id]).count();
    let parting = ours
        .iter()
        .filter(|(id, j)| j.start != theirs[*id])
        .map(|(id, j)| j.start.min(theirs[id]))
        .reduce(f64::min);
    (same, parting)
}

/// A documented way AccaSim's EASY parts from gridsim's (docs/batch.md, "Compared with
/// AccaSim"), as found at the first date the two schedules differ.
#[derive(Clone, Debug, PartialEq)]
enum Parting {
    /// At `date` the queue's head fits and gridsim starts it; AccaSim holds it until the first
    /// event on or after the reservation it gave the head when the head first did not fit
    /// (`reservation`, fixed then from the requests), and starts it at `accasim_start`.
    HeldHead {
        date: f64,
        head: i64,
        reservation: f64,
        accasim_start: f64,
    },
    /// At `date` AccaSim backfills `job`, which gridsim's EASY refuses: by its request it ends
    /// after the blocked job's reservation (`shadow`) and it needs more than the `extra` units
    /// the reservation leaves.
    UnprotectedBackfill {
        date: f64,
        job: i64,
        shadow: f64,
        extra: u32,
    },
}

/// The queue at `date` in queue order (submit time, then id): jobs submitted by then that start
/// at it or later.
fn queue_at(ours: &Schedule, date: f64) -> Vec<i64> {
    let mut queue: Vec<i64> = ours
        .iter()
        .filter(|(_, j)| j.submit <= date && j.start >= date)
        .map(|(&id, _)| id)
        .collect();
    queue.sort_by(|a, b| ours[a].submit.total_cmp(&ours[b].submit).then(a.cmp(b)));
    queue
}

/// From `free` units and the releases `(date, units)`: the first date at which `need` units
/// are free (every release of that date counted), and how many are free then beyond `need`.
fn earliest_fit(free: u32, mut releases: Vec<(f64, u32)>, need: u32) -> Option<(f64, u32)> {
    if free >= need {
        return None;
    }
    releases.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut avail = free;
    for (i, &(date, units)) in releases.iter().enumerate() {
        avail += units;
        let last_of_date = !matches!(releases.get(i + 1), Some(next) if next.0 <= date);
        if avail >= need && last_of_date {
            return Some((date, avail - need));
        }
    }
    None
}

/// Explains the first date gridsim's EASY (`ours`) and AccaSim's (`theirs`, aligned) part, from
/// the state both had then (the same, since every earlier start agrees), or says why none of
/// the documented differences explains it. Every job ran its recorded time in both (no kill).
fn explain_easy_parting(ours: &Schedule, theirs: &BTreeMap<i64, f64>, units: u32) -> Result<Parting, String> {
    let (_, Some(t)) = agreement(ours, theirs) else {
        return Err("the schedules do not part".into());
    };
    let ours_at_t: BTreeSet<i64> = ours.iter().filter(|(_, j)| j.start == t).map(|(&id, _)| id).collect();
    let theirs_at_t: BTreeSet<i64> = theirs.iter().filter(|(_, &s)| s == t).map(|(&id, _)| id).collect();
    let queue = queue_at(ours, t);
    let holding = |date: f64| -> Vec<i64> {
        ours.iter()
            .filter(|(_, j)| j.start < date && j.end > date)
            .map(|(&id, _)| id)
            .collect()
    };
    let size = |ids: &[i64]| ids.iter().map(|id| ours[id].size).sum::<u32>();
    let head = *queue.first().ok_or("nothing queued at the parting date")?;
    if ours_at_t.contains(&head) && !theirs_at_t.contains(&head) {
        // The head first failed to fit at `b`, once every job ahead of it had started. AccaSim
        // then fixed its reservation from the jobs holding units after its in-order starts of
        // `b` (jobs it backfills at `b` are placed after, and count in neither).
        let ahead: Vec<i64> = ours
            .keys()
            .copied()
            .filter(|id| (ours[id].submit, *id) < (ours[&head].submit, head))
            .collect();
        let b = ahead.iter().map(|id| ours[id].start).fold(ours[&head].submit, f64::max);
        if b >= t {
            return Err(format!(
                "job {head} became the head at {b}, not before the parting at {t}"
            ));
        }
        let mut held = holding(b);
        held.extend(ahead.iter().filter(|id| ours[*id].start == b));
        let releases = held
            .iter()
            .map(|id| (ours[id].start + ours[id].request, ours[id].size))
            .collect();
        let (reservation, _) = earliest_fit(units - size(&held), releases, ours[&head].size)
            .ok_or(format!("head {head} fitted at {b}"))?;
        if reservation <= t {
            return Err(format!(
                "head {head} fits at {t}, after its reservation at {reservation}: AccaSim would start it"
            ));
        }
        // AccaSim decides only at submissions and actual ends (its own, after the parting).
        let next_event = ours
            .iter()
            .flat_map(|(id, j)| [j.submit, theirs[id] + (j.end - j.start)])
            .filter(|&d| d >= reservation)
            .fold(f64::INFINITY, f64::min);
        if theirs[&head] != next_event {
            return Err(format!(
                "AccaSim starts head {head} at {}, not at its first event ({next_event}) on or after \
                 its reservation at {reservation}",
                theirs[&head]
            ));
        }
        return Ok(Parting::HeldHead {
            date: t,
            head,
            reservation,
            accasim_start: theirs[&head],
        });
    }
    // gridsim's EASY at t: in-order starts while they fit, then the first job that does not fit
    // gets the reservation (the shadow time) from the requests.
    let running = holding(t);
    let mut free = units - size(&running);
    let mut in_order = Vec::new();
    for &id in &queue {
        if ours[&id].size > free {
            break;
        }
        free -= ours[&id].size;
        in_order.push(id);
    }
    let Some(&blocked) = queue.get(in_order.len()) else {
        return Err(format!("every queued job fits at {t}: no reservation to differ on"));
    };
    let releases = running
        .iter()
        .chain(&in_order)
        .map(|id| ((ours[id].start + ours[id].request).max(t), ours[id].size))
        .collect();
    let (shadow, extra) =
        earliest_fit(free, releases, ours[&blocked].size).ok_or(format!("job {blocked} fits at {t}"))?;
    let Some(&job) = theirs_at_t.difference(&ours_at_t).next() else {
        return Err(format!(
            "at {t} gridsim starts {:?}, which AccaSim does not, and none is the queue's head {head}",
            ours_at_t.difference(&theirs_at_t).collect::<Vec<_>>()
        ));
    };
    let j = &ours[&job];
    let behind_blocked = queue.iter().position(|&id| id == job) > Some(in_order.len());
    if !behind_blocked || j.size > free {
        return Err(format!(
            "AccaSim starts job {job} at {t}, which is no backfill gridsim could refuse"
        ));
    }
    if t + j.request > shadow && j.size > extra {
        Ok(Parting::UnprotectedBackfill {
            date: t,
            job,
            shadow,
            extra,
        })
    } else {
        Err(format!(
            "AccaSim backfills job {job} at {t}, which gridsim's EASY allows too (it ends by its \
             request at {}, the reservation is at {shadow}; it needs {} units, {extra} are extra)",
            t + j.request,
            j.size
        ))
    }
}

/// The bundled KTH log's header and first `jobs` jobs, as a plain SWF file in `dir`.
fn kth_slice(dir: &Path, jobs: usize) -> PathBuf {
    let gz = std::fs::File::open(root().join("traces/data/KTH-SP2-1996-2.1-cln.swf.gz")).unwrap();
    let path = dir.join("kth.swf");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut kept = 0;
    for line in BufReader::new(flate2::read::GzDecoder::new(gz)).lines() {
        let line = line.unwrap();
        let is_job = !line.trim().is_empty() && !line.trim_start().starts_with(';');
        if is_job {
            if kept == jobs {
                break;
            }
            kept += 1;
        }
        writeln!(out, "{line}").unwrap();
    }
    assert_eq!(kept, jobs, "the KTH log has fewer jobs than the slice");
    path
}

/// Each gridsim policy and AccaSim's dispatcher for it.
const POLICIES: [(&str, &str); 3] = [("fcfs", "fifo"), ("sjf", "sjf"), ("easy", "easy")];

/// gridsim's schedule and AccaSim's (aligned starts) of one policy.
type SideBySide = (Schedule, BTreeMap<i64, f64>);

/// Both simulators on `log` over `units` hosts, by AccaSim's policy name.
fn side_by_side(python: &Path, work: &Path, log: &Path, units: u32) -> BTreeMap<&'static str, SideBySide> {
    let ours = gridsim_schedules(work, log, units, &POLICIES.map(|p| p.0));
    let theirs = accasim_schedules(python, log, units);
    POLICIES
        .iter()
        .map(|&(g, a)| {
            let o = ours[g].clone();
            for (id, j) in &o {
                // AccaSim never kills a job at its request: the comparison needs none killed.
                assert_eq!(j.final_state, "COMPLETED_SUCCESSFULLY", "{g}: job {id}");
            }
            let t = aligned_starts(&o, &theirs[a], a);
            (a, (o, t))
        })
        .collect()
}

#[test]
fn kth_slice_fcfs_and_sjf_agree_with_accasim_and_easy_parts_as_documented() {
    let python = peers_python();
    let dir = tempfile::tempdir().unwrap();
    let log = kth_slice(dir.path(), KTH_JOBS);
    let runs = side_by_side(&python, dir.path(), &log, KTH_HOSTS);
    println!("first {KTH_JOBS} jobs of the KTH SP2 log on {KTH_HOSTS} hosts, gridsim against AccaSim:");
    for (policy, (ours, theirs)) in &runs {
        let (same, parting) = agreement(ours, theirs);
        let parting = match parting {
            None => "none".to_string(),
            Some(t) => {
                let before = ours.values().filter(|j| j.start < t).count();
                format!("at {t} s, after {before} jobs started alike")
            }
        };
        println!(
            "  {policy}: {same} of {} jobs start at the same date; first parting {parting}",
            ours.len()
        );
    }
    for policy in ["fifo", "sjf"] {
        let (ours, theirs) = &runs[policy];
        assert_eq!(
            agreement(ours, theirs),
            (ours.len(), None),
            "{policy}: gridsim and AccaSim must start every job at the same date"
        );
    }
    let (ours, theirs) = &runs["easy"];
    let parting = explain_easy_parting(ours, theirs, KTH_HOSTS)
        .unwrap_or_else(|e| panic!("EASY parts from AccaSim in no documented way: {e}"));
    println!("  easy parts as documented: {parting:?}");
    // docs/batch.md: on KTH the two part first when a job ends before its request and the
    // queue's head, job 67, fits: AccaSim holds it until the first event after its reservation.
    assert!(matches!(parting, Parting::HeldHead { head: 67, .. }), "{parting:?}");
}

/// Writes `text` as an SWF log in `dir` and runs both simulators on it over 4 hosts.
fn hand_log(python: &Path, dir: &Path, text: &str) -> BTreeMap<&'static str, SideBySide> {
    let log = dir.join("hand.swf");
    std::fs::write(&log, text).unwrap();
    side_by_side(python, dir, &log, 4)
}

fn our_starts(s: &Schedule) -> Vec<(i64, f64)> {
    s.iter().map(|(&id, j)| (id, j.start)).collect()
}

fn their_starts(s: &BTreeMap<i64, f64>) -> Vec<(i64, f64)> {
    s.iter().map(|(&id, &t)| (id, t)).collect()
}

/// 4 hosts. Job 1: submit 0, 2 hosts, runs 10 s of a 100 s request. Job 2: submit 1, 4 hosts,
/// 10 s (request 10). Job 3: submit 50, 1 host, 60 s (request 60).
///
/// gridsim, every policy: job 1 at 0; job 2 does not fit at 1 (2 free); job 1 ends at 10 and
/// job 2 fits and starts (10 to 20); job 3 at 50. EASY gave job 2, at 1, a reservation at 100,
/// when job 1's request ends.
///
/// AccaSim's EASY: job 2 blocked at 1 with that reservation; at 10 it is not tried (before its
/// reservation); at 50 job 3 backfills (50 to 110); 110, job 3's end, is its first event on or
/// after 100, and job 2 starts then. Its FIFO and SJF start job 2 at 10 like gridsim.
#[test]
fn accasim_easy_holds_a_fitting_head_until_its_reservation() {
    let python = peers_python();
    let dir = tempfile::tempdir().unwrap();
    let runs = hand_log(
        &python,
        dir.path(),
        "1 0 -1 10 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n\
         2 1 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
         3 50 -1 60 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
    );
    for (policy, (ours, theirs)) in &runs {
        assert_eq!(our_starts(ours), [(1, 0.0), (2, 10.0), (3, 50.0)], "gridsim {policy}");
        let job2 = if *policy == "easy" { 110.0 } else { 10.0 };
        assert_eq!(
            their_starts(theirs),
            [(1, 0.0), (2, job2), (3, 50.0)],
            "AccaSim {policy}"
        );
    }
    let (ours, theirs) = &runs["easy"];
    assert_eq!(
        explain_easy_parting(ours, theirs, 4),
        Ok(Parting::HeldHead {
            date: 10.0,
            head: 2,
            reservation: 100.0,
            accasim_start: 110.0
        })
    );
}

/// 4 hosts. Job 1: submit 0, 2 hosts, 100 s (request 100). Job 2: submit 1, 4 hosts, 10 s
/// (request 10). Job 3: submit 2, 2 hosts, 200 s (request 200).
///
/// gridsim's EASY: job 1 at 0; job 2 blocked at 1, reserved at 100 when job 1 ends, with no
/// extra unit; job 3 fits the 2 free hosts at 2 but would end at 202, after 100, on units the
/// reservation needs: it waits. Job 2 at 100 (to 110), job 3 at 110. FCFS and SJF the same.
///
/// AccaSim's EASY backfills without protecting the reservation: job 3 starts at 2 (to 202); at
/// 100 job 2 is tried and does not fit (2 free); it starts at 202.
#[test]
fn accasim_easy_backfills_over_the_reservation() {
    let python = peers_python();
    let dir = tempfile::tempdir().unwrap();
    let runs = hand_log(
        &python,
        dir.path(),
        "1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n\
         2 1 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
         3 2 -1 200 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n",
    );
    for (policy, (ours, theirs)) in &runs {
        assert_eq!(our_starts(ours), [(1, 0.0), (2, 100.0), (3, 110.0)], "gridsim {policy}");
        let accasim = if *policy == "easy" {
            [(1, 0.0), (2, 202.0), (3, 2.0)]
        } else {
            [(1, 0.0), (2, 100.0), (3, 110.0)]
        };
        assert_eq!(their_starts(theirs), accasim, "AccaSim {policy}");
    }
    let (ours, theirs) = &runs["easy"];
    assert_eq!(
        explain_easy_parting(ours, theirs, 4),
        Ok(Parting::UnprotectedBackfill {
            date: 2.0,
            job: 3,
            shadow: 100.0,
            extra: 0
        })
    );
}

/// evalys reads a `jobs` table `gridsim run` wrote and draws its Gantt chart. The log, on 4
/// hosts under FCFS (a job takes the lowest-numbered free hosts):
///
/// | job | submit | hosts | run | request | start | end | units | |
/// |---|---|---|---|---|---|---|---|---|
/// | 1 | 0 | 1 | 10 | 10 | 0 | 10 | 0 | |
/// | 2 | 0 | 1 | 100 | 100 | 0 | 100 | 1 | |
/// | 3 | 20 | 2 | 30 | 20 | 20 | 40 | 0 2 | killed at its request |
/// | 4 | 25 | 3 | 5 | 10 | 40 | 45 | 0 2-3 | only host 3 free at 25 |
#[test]
fn evalys_reads_the_jobs_table_and_draws_its_gantt_chart() {
    let python = peers_python();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hand.swf");
    std::fs::write(
        &log,
        "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
         2 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1\n\
         3 20 -1 30 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n\
         4 25 -1 5 3 -1 -1 3 10 -1 1 1 1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let ours = &gridsim_schedules(dir.path(), &log, 4, &["fcfs"])["fcfs"];
    let table: Vec<_> = ours
        .iter()
        .map(|(&id, j)| {
            (
                id,
                j.start,
                j.end,
                j.allocated.as_str(),
                j.success,
                j.final_state.as_str(),
            )
        })
        .collect();
    assert_eq!(
        table,
        [
            (1, 0.0, 10.0, "0", 1, "COMPLETED_SUCCESSFULLY"),
            (2, 0.0, 100.0, "1", 1, "COMPLETED_SUCCESSFULLY"),
            (3, 20.0, 40.0, "0 2", 0, "COMPLETED_WALLTIME_REACHED"),
            (4, 40.0, 45.0, "0 2-3", 1, "COMPLETED_SUCCESSFULLY"),
        ]
    );
    let png = dir.path().join("gantt.png");
    let out = Command::new(&python)
        .arg(root().join("scripts/evalys_gantt.py"))
        .arg(dir.path().join("out/results/peers/jobs.csv"))
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "evalys could not read or draw the jobs table:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"job_id,starting_time,finish_time,proc_alloc"));
    let read: Vec<(i64, f64, f64, u32)> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            (1, 0.0, 10.0, 1),
            (2, 0.0, 100.0, 1),
            (3, 20.0, 40.0, 2),
            (4, 40.0, 45.0, 3)
        ],
        "jobs as evalys read them: id, start, finish, resources in the interval set"
    );
    // evalys infers the machine from the allocations: hosts 0 to 3, four of them.
    assert_eq!(lines.last(), Some(&"resources,0,3,4"));
    let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "evalys's figure is not a PNG");
    assert!(
        bytes.len() > 10_000,
        "evalys's figure is {} bytes: nothing drawn",
        bytes.len()
    );
}

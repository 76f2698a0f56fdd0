//! The paper's load formulas, as pure functions of a node's jobs: buffer hit rate (eqs.
//! 5.2–5.4), page faults (eq. 4.3), the load index terms (eqs. 4.1–4.4), the M/G/1 response
//! time (eq. 4.5) and the migration cost (eq. 4.7). The simulation uses the same functions for
//! its hit and page-fault rates, so the policies' view of a node is the model's own.
//!
//! Rates (`λ_u`, `μ`) are per second of the job's CPU time; the experiment's `rate_unit_s`
//! turns the paper's "No./ms" into them (see `schedulers/src/cluster/family.rs`), and the load
//! index (eq. 4.1) counts `load_IO` back in that unit.

use super::config::ClusterConfig;

/// What the formulas need of one job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobLoad {
    /// `t_u`: CPU demand, s at full speed.
    pub cpu_s: f64,
    /// `λ_u`: explicit I/O accesses per second.
    pub io_rate: f64,
    /// `r_MEM(u)`: memory demand, bytes.
    pub memory_bytes: f64,
    /// `d_u`: data initially on disk, bytes (moved by a remote execution).
    pub data_bytes: f64,
}

/// Eq. 5.4: the probability that an explicit access of `job` on a node with `buffer_bytes` of
/// I/O buffer hits it, when `jobs` (including `job`) share the node:
///
/// `h = r/(r+1)` if `d_buf(i,u) >= d_data(u)`, else `r d_buf(i) / (t_u Σ_j λ_j d_j^RW)`, with
/// `d_buf(i,u) = λ_u d^RW d_buf(i) / Σ_k λ_k d^RW` (eq. 5.2) and
/// `d_data(u) = λ_u t_u d^RW / (r+1)` (eq. 5.3). Every job's mean request size is the same
/// `d^RW` here, so it cancels from 5.2. (Eq. 5.1 as printed has its cases swapped; 5.4 is what
/// 5.2 and 5.3 give.)
pub fn hit_probability(config: &ClusterConfig, jobs: &[JobLoad], job: &JobLoad, buffer_bytes: f64) -> f64 {
    hit_given_total(config, io_volume(config, jobs.iter()), job, buffer_bytes)
}

/// `Σ_j λ_j d_j^RW`, the denominator of eqs. 5.2 and 5.4.
fn io_volume<'a>(config: &ClusterConfig, jobs: impl Iterator<Item = &'a JobLoad>) -> f64 {
    jobs.map(|j| j.io_rate * config.request_mean_bytes).sum()
}

/// Eq. 5.4 with the node's `Σ λ d` already summed (`total`).
fn hit_given_total(config: &ClusterConfig, total: f64, job: &JobLoad, buffer_bytes: f64) -> f64 {
    let r = config.reaccess_rate;
    let cap = r / (r + 1.0);
    let d = config.request_mean_bytes;
    if job.io_rate <= 0.0 || total <= 0.0 || job.cpu_s <= 0.0 {
        return cap;
    }
    let share = job.io_rate * d * buffer_bytes / total;
    let data = job.io_rate * job.cpu_s * d / (r + 1.0);
    if share >= data {
        cap
    } else {
        (r * buffer_bytes / (job.cpu_s * total)).min(cap)
    }
}

/// Eq. 3.1's denominator, the job's execution time "in a dedicated setting", "without any
/// resource sharing": `t_u` plus its expected explicit I/O alone on a node with the configured
/// buffer, `t_u λ_u (1 − h) E[s]`, with `h` eq. 5.4 for the job alone and `E[s]` a mean request's
/// service time. No page faults: eq. 4.3 pages only a node whose jobs overcommit its memory,
/// and what a job alone would fault is not the co-runners' doing; a job that overcommits a node
/// by itself is rare (Pareto memory of mean 4 MB against 480 MB) and its faults count as
/// sharing's here.
pub fn dedicated_time(config: &ClusterConfig, job: &JobLoad) -> f64 {
    let alone = std::slice::from_ref(job);
    let h = hit_probability(config, alone, job, config.buffer_bytes);
    let (service_s, _) = config.request_service_moments();
    job.cpu_s + job.cpu_s * job.io_rate * (1.0 - h) * service_s
}

/// Eq. 4.3: a job's page-fault rate (per CPU second) on a node whose jobs need `memory_load`
/// bytes and have `user_memory` bytes: 0 when it fits, `μ · memory_load / user_memory`
/// otherwise.
pub fn page_fault_rate(config: &ClusterConfig, memory_load: f64, user_memory: f64) -> f64 {
    if memory_load <= user_memory {
        0.0
    } else {
        config.page_fault_rate * memory_load / user_memory
    }
}

/// A node's load, as the policies see it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NodeLoad {
    /// `load_CPU`: jobs on the node (eq. 4.1).
    pub jobs: usize,
    /// `load_MEM`: Σ r_MEM, bytes.
    pub memory_bytes: f64,
    /// `n_MEM`: memory left to jobs (RAM − buffer), bytes.
    pub user_memory_bytes: f64,
    /// Σ l_IO (eq. 4.4): explicit accesses that miss the buffer, per second.
    pub explicit_io: f64,
    /// Σ l_page (eq. 4.3): page faults per second.
    pub implicit_io: f64,
    /// `E(s_disk)`: mean disk service time of the node's requests, s.
    pub disk_mean_s: f64,
    /// `E(s_disk²)`, s².
    pub disk_mean_sq_s: f64,
    /// The disk's measured request rate, per second of wall-clock time, when eq. 4.5 reads
    /// `Λ_disk` as measured (`disk_arrival_rate = "measured"`); `None` for the paper's aggregate.
    pub measured_disk_rate: Option<f64>,
}

impl NodeLoad {
    /// `load_IO` (eq. 4.2).
    pub fn io(&self) -> f64 {
        self.explicit_io + self.implicit_io
    }

    /// `Λ_disk` of eq. 4.5: the aggregate access rate of the node's jobs (`load_IO`, each job's
    /// rate per second of its own CPU time), or the disk's measured rate when given.
    pub fn disk_rate(&self) -> f64 {
        self.measured_disk_rate.unwrap_or_else(|| self.io())
    }

    /// `ρ_disk = Λ E(s)`.
    pub fn disk_utilisation(&self) -> f64 {
        self.disk_rate() * self.disk_mean_s
    }

    /// Eq. 4.1: `W_CPU load_CPU + W_IO load_IO`, with `load_IO` counted per `rate_unit_s` (the
    /// paper's "No./ms" is `rate_unit_s = 0.001`), so that `W_IO` weighs the same quantity
    /// whatever unit an experiment reads the rates in.
    pub fn index(&self, w_io: f64, rate_unit_s: f64) -> f64 {
        (1.0 - w_io) * self.jobs as f64 + w_io * self.io() * rate_unit_s
    }
}

/// The load of a node holding `jobs` with `buffer_bytes` of buffer (eqs. 4.2–4.4). `jobs` is an
/// iterator so that a policy can ask about a node with one more job without copying its list.
pub fn node_load<'a>(
    config: &ClusterConfig,
    jobs: impl Iterator<Item = &'a JobLoad> + Clone,
    buffer_bytes: f64,
) -> NodeLoad {
    let user_memory = config.ram_bytes - buffer_bytes;
    let (count, memory) = jobs
        .clone()
        .fold((0usize, 0.0), |(n, m), j| (n + 1, m + j.memory_bytes));
    let faults_each = page_fault_rate(config, memory, user_memory);
    let total = io_volume(config, jobs.clone());
    let explicit: f64 = jobs
        .map(|j| j.io_rate * (1.0 - hit_given_total(config, total, j, buffer_bytes)))
        .sum();
    let implicit = faults_each * count as f64;
    let (req_mean, req_sq) = config.request_service_moments();
    let pf = config.page_fault_service_s;
    let total = explicit + implicit;
    let (mean, sq) = if total > 0.0 {
        (
            (explicit * req_mean + implicit * pf) / total,
            (explicit * req_sq + implicit * pf * pf) / total,
        )
    } else {
        (req_mean, req_sq)
    };
    NodeLoad {
        jobs: count,
        memory_bytes: memory,
        user_memory_bytes: user_memory,
        explicit_io: explicit,
        implicit_io: implicit,
        disk_mean_s: mean,
        disk_mean_sq_s: sq,
        measured_disk_rate: None,
    }
}

/// Eq. 4.5: the expected response time of `job` on a node whose load (with the job counted)
/// is `load`: `t_u E(L) + t_u λ_u (E(s) + Λ E(s²) / (2 (1 − ρ)))`; infinite when the disk is
/// saturated (`ρ >= 1`).
pub fn response_time(load: &NodeLoad, job: &JobLoad) -> f64 {
    let rho = load.disk_utilisation();
    if rho >= 1.0 {
        return f64::INFINITY;
    }
    let wait = load.disk_rate() * load.disk_mean_sq_s / (2.0 * (1.0 - rho));
    job.cpu_s * load.jobs as f64 + job.cpu_s * job.io_rate * (load.disk_mean_s + wait)
}

/// Eq. 4.7: `c_u = e + d_u (1/b_net + 1/b_disk_i + 1/b_disk_j)`.
pub fn migration_cost(config: &ClusterConfig, data_bytes: f64, net_bytes_per_s: f64) -> f64 {
    let disk = config.disk_rate_bytes_per_s;
    config.migration_fixed_s + data_bytes * (1.0 / net_bytes_per_s + 2.0 / disk)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(cpu_s: f64, io_rate: f64) -> JobLoad {
        JobLoad {
            cpu_s,
            io_rate,
            memory_bytes: 4e6,
            data_bytes: 0.0,
        }
    }

    #[test]
    fn hit_rates_follow_eq_5_4() {
        // r = 3, d = 250 KB. One job, t = 10 s, λ = 2/s: d_data = 2·10·250e3/4 = 1.25 MB.
        let c = ClusterConfig::default();
        let a = job(10.0, 2.0);
        // A 2 MB buffer holds it all: h = r/(r+1) = 0.75.
        assert_eq!(hit_probability(&c, &[a], &a, 2e6), 0.75);
        // A 1 MB buffer: h = r d_buf / (t Σ λ d) = 3·1e6 / (10·2·250e3) = 0.6.
        assert!((hit_probability(&c, &[a], &a, 1e6) - 0.6).abs() < 1e-12);
        // Two jobs share 1 MB in proportion to λ: b (λ = 6) gets 0.75 MB, needs 6·10·250e3/4 =
        // 3.75 MB: h_b = 3·1e6 / (10·(2+6)·250e3) = 0.15; a gets 0.25 MB < 1.25 MB: h_a = 0.15.
        let b = job(10.0, 6.0);
        assert!((hit_probability(&c, &[a, b], &b, 1e6) - 0.15).abs() < 1e-12);
        assert!((hit_probability(&c, &[a, b], &a, 1e6) - 0.15).abs() < 1e-12);
    }

    #[test]
    fn page_faults_follow_eq_4_3() {
        let c = ClusterConfig {
            page_fault_rate: 2.0,
            ..ClusterConfig::default()
        };
        assert_eq!(page_fault_rate(&c, 400e6, 480e6), 0.0);
        // 600 MB on 480 MB: μ · 600/480 = 2.5 per second.
        assert!((page_fault_rate(&c, 600e6, 480e6) - 2.5).abs() < 1e-12);
    }

    #[test]
    fn the_load_index_counts_io_in_the_papers_unit() {
        // Eq. 4.1 with W_IO = 0.5 on 3 jobs and 2,000 disk accesses per second: read in No./ms
        // (rate_unit_s = 0.001) load_IO is 2, so the index is 0.5·3 + 0.5·2 = 2.5; read per
        // second it is 0.5·3 + 0.5·2000.
        let load = NodeLoad {
            jobs: 3,
            explicit_io: 1500.0,
            implicit_io: 500.0,
            ..NodeLoad::default()
        };
        assert!((load.index(0.5, 1e-3) - 2.5).abs() < 1e-12);
        assert!((load.index(0.5, 1.0) - 1001.5).abs() < 1e-12);
    }

    #[test]
    fn a_measured_disk_rate_replaces_the_aggregate_in_eq_4_5() {
        // 10 accesses per CPU second on a disk of 20 ms mean service: ρ = 0.2 read as an
        // aggregate; measured at 40 requests per second, ρ = 0.8 and the wait is
        // 40 · 0.0005 / (2 · 0.2) = 0.05 s.
        let mut load = NodeLoad {
            jobs: 1,
            explicit_io: 10.0,
            disk_mean_s: 0.02,
            disk_mean_sq_s: 0.0005,
            ..NodeLoad::default()
        };
        assert!((load.disk_utilisation() - 0.2).abs() < 1e-12);
        load.measured_disk_rate = Some(40.0);
        assert!((load.disk_utilisation() - 0.8).abs() < 1e-12);
        let r = response_time(&load, &job(1.0, 1.0));
        assert!((r - (1.0 + (0.02 + 0.05))).abs() < 1e-12, "{r}");
    }

    #[test]
    fn migration_cost_follows_eq_4_7() {
        // e = 0.1 s, 10 MB over 125 MB/s and two 40 MB/s disks: 0.1 + 0.08 + 0.5 = 0.68 s.
        let c = ClusterConfig::default();
        assert!((migration_cost(&c, 10e6, 125e6) - 0.68).abs() < 1e-12);
    }

    #[test]
    fn response_time_is_the_m_g_1_formula() {
        let c = ClusterConfig::default();
        let load = NodeLoad {
            jobs: 2,
            explicit_io: 10.0,
            disk_mean_s: 0.02,
            disk_mean_sq_s: 0.0005,
            ..NodeLoad::default()
        };
        // ρ = 0.2; wait = 10·0.0005 / (2·0.8) = 0.003125; r = 5·2 + 5·1·(0.02 + 0.003125).
        let r = response_time(&load, &job(5.0, 1.0));
        assert!((r - (10.0 + 5.0 * 0.023125)).abs() < 1e-12);
        let _ = c;
    }
}

//! The cluster model's parameters: Table 5.1 of Qin, Jiang, Zhu & Swanson (WAL-FC), and every
//! choice the paper leaves open, each a named parameter with its default and reading.
//!
//! Each field an experiment sets has its parameter here ([`Param`]: name, unit, range and
//! default, in the experiment's units), which the family reads and [`ClusterConfig::default`]
//! takes its default from.

use std::fmt;

use crate::registry::Param;

/// `buffer_mb`: [`ClusterConfig::buffer_bytes`] in MB.
pub const BUFFER_MB: Param = Param::real(
    "buffer_mb",
    "initial I/O buffer per node (Table 5.1; unset, the platform's io_buffer of the first node when it gives one)",
    "160",
    0.0,
)
.in_unit("MB");
/// `request_mean_kb`: [`ClusterConfig::request_mean_bytes`] in KB.
pub const REQUEST_MEAN_KB: Param = Param::real("request_mean_kb", "mean I/O request size (§5.1)", "250", 0.0)
    .positive()
    .in_unit("KB");
/// `request_sd_kb`: [`ClusterConfig::request_sd_bytes`] in KB.
pub const REQUEST_SD_KB: Param = Param::real(
    "request_sd_kb",
    "standard deviation of the request size (§5.1)",
    "50",
    0.0,
)
.in_unit("KB");
/// `page_fault_rate`: [`ClusterConfig::page_fault_rate`] per [`RATE_UNIT_S`].
pub const PAGE_FAULT_RATE: Param = Param::real(
    "page_fault_rate",
    "page-fault rate mu of eq. 4.3 per rate_unit_s",
    "2",
    0.0,
);
/// `rate_unit_s`: the time unit of `page_fault_rate` and of the family's `io_rate`.
pub const RATE_UNIT_S: Param = Param::real(
    "rate_unit_s",
    "time unit of the two rates (§5: 'No./ms'; 1 reads them per second)",
    "0.001",
    0.0,
)
.positive()
.in_unit("s");
/// `reaccess_rate`: [`ClusterConfig::reaccess_rate`].
pub const REACCESS_RATE: Param = Param::real("reaccess_rate", "data re-access rate r of eq. 5.4", "3", 0.0);
/// `context_switch_ms`: [`ClusterConfig::context_switch_s`] in ms.
pub const CONTEXT_SWITCH_MS: Param =
    Param::real("context_switch_ms", "context switch cost (Table 5.1)", "0.1", 0.0).in_unit("ms");
/// `time_slice_ms`: [`ClusterConfig::time_slice_s`] in ms.
pub const TIME_SLICE_MS: Param = Param::real(
    "time_slice_ms",
    "round-robin time slice (0: processor sharing)",
    "0",
    0.0,
)
.in_unit("ms");
/// `load_info_period_s`: [`ClusterConfig::load_info_period_s`].
pub const LOAD_INFO_PERIOD_S: Param = Param::real(
    "load_info_period_s",
    "period of the load exchange (0: loads always current)",
    "0",
    0.0,
)
.in_unit("s");
/// `page_fault_service_ms`: [`ClusterConfig::page_fault_service_s`] in ms.
pub const PAGE_FAULT_SERVICE_MS: Param = Param::real(
    "page_fault_service_ms",
    "page-fault service time (Table 5.1)",
    "8.1",
    0.0,
)
.in_unit("ms");
/// `migration_fixed_s`: [`ClusterConfig::migration_fixed_s`].
pub const MIGRATION_FIXED_S: Param = Param::real(
    "migration_fixed_s",
    "fixed cost e of a remote execution (eq. 4.7)",
    "0.1",
    0.0,
)
.in_unit("s");
/// `migration_piece_kb`: [`ClusterConfig::migration_piece_bytes`] in KB.
pub const MIGRATION_PIECE_KB: Param = Param::real(
    "migration_piece_kb",
    "size of the disk requests that move a migrant's data d_u (default: the mean request of §5.1)",
    "250",
    0.0,
)
.positive()
.in_unit("KB");
/// `disk_arrival_rate`: [`ClusterConfig::measured_disk_rate_window_s`] unset (`aggregate`) or set
/// (`measured`).
pub const DISK_ARRIVAL_RATE: Param = Param::text(
    "disk_arrival_rate",
    "Λ_disk of eq. 4.5: aggregate (the paper's: the node's jobs' access rates summed, each per \
     second of its own CPU time) or measured (the requests that reached the disk per second of \
     wall-clock time, averaged over disk_rate_window_s)",
    "aggregate",
);
/// `disk_rate_window_s`: [`ClusterConfig::measured_disk_rate_window_s`].
pub const DISK_RATE_WINDOW_S: Param = Param::real(
    "disk_rate_window_s",
    "with disk_arrival_rate = measured: time constant of the exponential average of the disk's \
     request rate (paper silent)",
    "10",
    0.0,
)
.positive()
.in_unit("s");
/// `initial_data_factor`: [`ClusterConfig::initial_data_factor`].
pub const INITIAL_DATA_FACTOR: Param = Param::real(
    "initial_data_factor",
    "initial data d_u as a multiple of eq. 5.3's d_data",
    "1",
    0.0,
);

/// Model parameters of a homogeneous cluster and its jobs' I/O. Defaults: Table 5.1 and §5.1.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterConfig {
    /// RAM per node, bytes (Table 5.1: 640 MB).
    pub ram_bytes: f64,
    /// Initial I/O buffer per node, bytes (Table 5.1: 160 MB); WAL-FC's controller moves it.
    pub buffer_bytes: f64,
    /// Smallest buffer the controller may set, bytes (paper silent; default 0).
    pub min_buffer_bytes: f64,
    /// Smallest user memory `n_MEM = RAM − buffer` the controller may leave, bytes (paper
    /// silent; default 64 MB so that eq. 4.3 never divides by zero).
    pub min_user_memory_bytes: f64,
    /// Disk seek + rotation per request, s (Table 5.1: 8.0 ms).
    pub seek_rotation_s: f64,
    /// Disk transfer rate, bytes/s (Table 5.1: 40 MB/s).
    pub disk_rate_bytes_per_s: f64,
    /// Page-fault service time on the disk, s (Table 5.1: 8.1 ms).
    pub page_fault_service_s: f64,
    /// Cost of a context switch, s (Table 5.1: 0.1 ms); see [`super::app`] for when it is paid.
    pub context_switch_s: f64,
    /// Round-robin time slice, s; 0 (the default) is its limit, processor sharing.
    pub time_slice_s: f64,
    /// How often nodes exchange load information, s; 0 (the default) means policies always see
    /// the current loads (the paper is silent).
    pub load_info_period_s: f64,
    /// Mean size of an I/O request, bytes (§5.1: 250 KB, Gamma distributed).
    pub request_mean_bytes: f64,
    /// Standard deviation of the request size, bytes (§5.1: 50 KB).
    pub request_sd_bytes: f64,
    /// Node page-fault rate `μ` of eq. 4.3, per second of CPU time when memory is overcommitted.
    pub page_fault_rate: f64,
    /// Data re-access rate `r_u` of eqs. 5.1–5.4 (paper silent; default 3: a hit rate of at most
    /// 0.75).
    pub reaccess_rate: f64,
    /// Fixed cost `e` of a remote execution (eq. 4.7), s (paper silent; default 0.1 s).
    pub migration_fixed_s: f64,
    /// Initial data of a job `d_u` as a multiple of the data it accesses, `d_data(u)` of eq. 5.3
    /// (paper: "the amount of data initially stored on disk to be processed by job u"; default 1).
    pub initial_data_factor: f64,
    /// Size of each disk request that reads or writes a migrant's data, bytes. Eq. 4.7 prices
    /// `d_u` as a transfer; a disk serves it as a file of requests, so that other jobs'
    /// requests interleave with it (paper silent; default one mean request, 250 KB).
    pub migration_piece_bytes: f64,
    /// The time unit of the paper's rates, s (`No./ms`: 0.001). The simulation counts rates per
    /// second; the load index of eq. 4.1 adds `load_IO` in this unit to a job count, so that
    /// `W_IO` weighs the same quantity whatever unit the rates are read in.
    pub rate_unit_s: f64,
    /// `None`: eq. 4.5's `Λ_disk` is the aggregate of the node's jobs' access rates, as the
    /// paper defines it (at the literal unit it gives `ρ ≈ 40` per job, so eq. 4.6 almost never
    /// lets a job migrate). `Some(τ)`: the disk's measured request rate, an exponential average
    /// of time constant `τ` s over the requests that reached it.
    pub measured_disk_rate_window_s: Option<f64>,
}

impl Default for ClusterConfig {
    /// Table 5.1's cluster; the fields an experiment sets take their parameter's default.
    fn default() -> ClusterConfig {
        const MB: f64 = 1e6;
        ClusterConfig {
            ram_bytes: 640.0 * MB,
            buffer_bytes: BUFFER_MB.default_number() * MB,
            min_buffer_bytes: 0.0,
            min_user_memory_bytes: 64.0 * MB,
            seek_rotation_s: 8.0e-3,
            disk_rate_bytes_per_s: 40.0 * MB,
            page_fault_service_s: PAGE_FAULT_SERVICE_MS.default_number() / 1e3,
            context_switch_s: CONTEXT_SWITCH_MS.default_number() / 1e3,
            time_slice_s: TIME_SLICE_MS.default_number() / 1e3,
            load_info_period_s: LOAD_INFO_PERIOD_S.default_number(),
            request_mean_bytes: REQUEST_MEAN_KB.default_number() * 1e3,
            request_sd_bytes: REQUEST_SD_KB.default_number() * 1e3,
            page_fault_rate: PAGE_FAULT_RATE.default_number() / RATE_UNIT_S.default_number(),
            reaccess_rate: REACCESS_RATE.default_number(),
            migration_fixed_s: MIGRATION_FIXED_S.default_number(),
            initial_data_factor: INITIAL_DATA_FACTOR.default_number(),
            migration_piece_bytes: MIGRATION_PIECE_KB.default_number() * 1e3,
            rate_unit_s: RATE_UNIT_S.default_number(),
            measured_disk_rate_window_s: None,
        }
    }
}

/// A [`ClusterConfig`] value refused by [`ClusterConfig::validate`]: the field, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// The field, e.g. `buffer_bytes`.
    pub field: &'static str,
    /// What is wrong, naming the field (`parameter 'buffer_bytes' = ... must ...`).
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<ConfigError> for String {
    fn from(e: ConfigError) -> String {
        e.message
    }
}

impl ClusterConfig {
    /// Checks every value; the error names the field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let checks: [(&str, f64, f64); 18] = [
            ("time_slice_s", self.time_slice_s, 0.0),
            ("load_info_period_s", self.load_info_period_s, 0.0),
            ("ram_bytes", self.ram_bytes, f64::MIN_POSITIVE),
            ("buffer_bytes", self.buffer_bytes, 0.0),
            ("min_buffer_bytes", self.min_buffer_bytes, 0.0),
            ("min_user_memory_bytes", self.min_user_memory_bytes, f64::MIN_POSITIVE),
            ("seek_rotation_s", self.seek_rotation_s, 0.0),
            ("disk_rate_bytes_per_s", self.disk_rate_bytes_per_s, f64::MIN_POSITIVE),
            ("page_fault_service_s", self.page_fault_service_s, self.seek_rotation_s),
            ("context_switch_s", self.context_switch_s, 0.0),
            ("request_mean_bytes", self.request_mean_bytes, f64::MIN_POSITIVE),
            ("request_sd_bytes", self.request_sd_bytes, 0.0),
            ("page_fault_rate", self.page_fault_rate, 0.0),
            ("reaccess_rate", self.reaccess_rate, 0.0),
            ("migration_fixed_s", self.migration_fixed_s, 0.0),
            ("initial_data_factor", self.initial_data_factor, 0.0),
            ("migration_piece_bytes", self.migration_piece_bytes, f64::MIN_POSITIVE),
            ("rate_unit_s", self.rate_unit_s, f64::MIN_POSITIVE),
        ];
        for (name, value, min) in checks {
            if !(value.is_finite() && value >= min) {
                return Err(ConfigError {
                    field: name,
                    message: format!("parameter '{name}' must be a finite number >= {min}, got {value}"),
                });
            }
        }
        if self.buffer_bytes + self.min_user_memory_bytes > self.ram_bytes || self.min_buffer_bytes > self.buffer_bytes
        {
            return Err(ConfigError {
                field: "buffer_bytes",
                message: format!(
                    "parameter 'buffer_bytes' = {} must lie between min_buffer_bytes = {} and ram_bytes − \
                     min_user_memory_bytes = {}",
                    self.buffer_bytes,
                    self.min_buffer_bytes,
                    self.ram_bytes - self.min_user_memory_bytes
                ),
            });
        }
        Ok(())
    }

    /// Mean and mean square of an explicit request's disk service time,
    /// `s = seek + X / rate` with `X` the request size: `E[s] = seek + E[X]/rate`,
    /// `E[s²] = Var(X)/rate² + E[s]²`.
    pub fn request_service_moments(&self) -> (f64, f64) {
        let mean = self.seek_rotation_s + self.request_mean_bytes / self.disk_rate_bytes_per_s;
        let var = (self.request_sd_bytes / self.disk_rate_bytes_per_s).powi(2);
        (mean, var + mean * mean)
    }
}

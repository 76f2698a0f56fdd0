//! The cluster model's parameters: Table 5.1 of Qin, Jiang, Zhu & Swanson (WAL-FC), and every
//! choice the paper leaves open, each a named parameter with its default and reading.

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
}

impl Default for ClusterConfig {
    fn default() -> ClusterConfig {
        const MB: f64 = 1e6;
        ClusterConfig {
            ram_bytes: 640.0 * MB,
            buffer_bytes: 160.0 * MB,
            min_buffer_bytes: 0.0,
            min_user_memory_bytes: 64.0 * MB,
            seek_rotation_s: 8.0e-3,
            disk_rate_bytes_per_s: 40.0 * MB,
            page_fault_service_s: 8.1e-3,
            context_switch_s: 0.1e-3,
            time_slice_s: 0.0,
            load_info_period_s: 0.0,
            request_mean_bytes: 250e3,
            request_sd_bytes: 50e3,
            page_fault_rate: 0.0,
            reaccess_rate: 3.0,
            migration_fixed_s: 0.1,
            initial_data_factor: 1.0,
        }
    }
}

impl ClusterConfig {
    /// Checks every value; the message names the parameter.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, f64, f64); 16] = [
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
        ];
        for (name, value, min) in checks {
            if !(value.is_finite() && value >= min) {
                return Err(format!(
                    "parameter '{name}' must be a finite number >= {min}, got {value}"
                ));
            }
        }
        if self.buffer_bytes + self.min_user_memory_bytes > self.ram_bytes || self.min_buffer_bytes > self.buffer_bytes
        {
            return Err(format!(
                "parameter 'buffer_bytes' = {} must lie between min_buffer_bytes = {} and ram_bytes − \
                 min_user_memory_bytes = {}",
                self.buffer_bytes,
                self.min_buffer_bytes,
                self.ram_bytes - self.min_user_memory_bytes
            ));
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

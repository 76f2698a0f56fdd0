//! The runtime's parameters, with GUM's defaults where its sources give one.

/// Parameters of the GUM runtime model (see the module docs of [`super::runtime`]).
#[derive(Clone, Debug, PartialEq)]
pub struct StealConfig {
    /// Live threads (runnable or blocked) a PE may hold; at the limit it activates no spark and
    /// sends no FISH. GUM's `maxThreads` default is 1024; the paper's "thread limit" runs use 1.
    pub thread_limit: usize,
    /// Whether the main thread counts against PE 0's limit. GUM's scheduler compares
    /// `advisory_thread_count`, the threads made from sparks, with `maxThreads`, so by default
    /// it does not; the paper's "total number of live threads" reads as if it did.
    pub limit_counts_main: bool,
    /// Round-robin time slice, s (GHC's context-switch interval, 20 ms). Messages are handled
    /// between slices, as GUM's scheduler loop does.
    pub time_slice_s: f64,
    /// Times a FISH is forwarded before it is sent home (GUM `FISH_LIFE_EXPECTANCY`, 10).
    pub hop_limit: u32,
    /// Delay after a FISH comes home before the PE fishes again, s (GUM `FISH_DELAY`, 1000,
    /// "in us" by its comment: 1 ms).
    pub fish_delay_s: f64,
    /// CPU work to unpack and handle one incoming message, flops (GUM leaves it to the
    /// machine; 1.4e5 is 0.1 ms on a 1395 MHz PE counting a cycle as a flop).
    pub message_flops: f64,
    /// Bytes of every message besides its payload (MPI envelope and GUM packet header).
    pub header_bytes: f64,
    /// Payload of FISH, FETCH, ACK and startup messages, bytes (a few words each).
    pub control_bytes: f64,
    /// Exchange startup messages (every PE to every other, carrying its speed) at time 0.
    pub startup_exchange: bool,
    /// Record every PE's activity intervals (for the activity profile).
    pub record_activity: bool,
}

impl Default for StealConfig {
    fn default() -> Self {
        StealConfig {
            thread_limit: 1024,
            limit_counts_main: false,
            time_slice_s: 0.02,
            hop_limit: 10,
            fish_delay_s: 0.001,
            message_flops: 1.4e5,
            header_bytes: 64.0,
            control_bytes: 32.0,
            startup_exchange: true,
            record_activity: false,
        }
    }
}

impl StealConfig {
    /// Checks every value; the message names the parameter.
    pub fn validate(&self) -> Result<(), String> {
        if self.thread_limit == 0 {
            return Err("thread_limit must be at least 1".into());
        }
        for (name, x, min_positive) in [
            ("time_slice_ms", self.time_slice_s, true),
            ("fish_delay_ms", self.fish_delay_s, false),
            ("message_flops", self.message_flops, false),
            ("header_bytes", self.header_bytes, false),
            ("control_bytes", self.control_bytes, false),
        ] {
            let ok = x.is_finite() && if min_positive { x > 0.0 } else { x >= 0.0 };
            if !ok {
                return Err(format!(
                    "parameter '{name}' must be a finite number {}, got {x}",
                    if min_positive { "> 0" } else { ">= 0" }
                ));
            }
        }
        // A slice shorter than a microsecond makes a run take ~1e6 events per simulated second
        // per PE: refuse it rather than run for hours.
        if self.time_slice_s < 1e-6 {
            return Err(format!(
                "parameter 'time_slice_ms' must be at least 0.001 (1 us), got {}",
                self.time_slice_s * 1e3
            ));
        }
        Ok(())
    }
}

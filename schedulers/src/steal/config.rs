//! The runtime's parameters, with GUM's defaults where its sources give one.
//!
//! Each field an experiment sets has its parameter here ([`Param`]: name, unit, range and
//! default, in the experiment's units), which the family reads and [`StealConfig::default`]
//! takes its default from.

use crate::registry::Param;

/// `thread_limit`: [`StealConfig::thread_limit`].
pub const THREAD_LIMIT: Param = Param::integer(
    "thread_limit",
    "live threads per PE (GUM maxThreads; the paper's thread limit: 1)",
    "1024",
    1.0,
)
.at_most((1u64 << 20) as f64);
/// `limit_counts_main`: [`StealConfig::limit_counts_main`].
pub const LIMIT_COUNTS_MAIN: Param = Param::flag(
    "limit_counts_main",
    "1: the main thread counts against PE 0's thread limit; 0: only spark threads, as GUM",
    "0",
);
/// `time_slice_ms`: [`StealConfig::time_slice_s`] in ms; below 1 us a run would take ~1e6 events
/// per simulated second per PE.
pub const TIME_SLICE_MS: Param =
    Param::real("time_slice_ms", "round-robin time slice (GHC's)", "20", 0.001).in_unit("ms");
/// `hop_limit`: [`StealConfig::hop_limit`].
pub const HOP_LIMIT: Param = Param::integer(
    "hop_limit",
    "forwards before a FISH goes home (GUM FISH_LIFE_EXPECTANCY)",
    "10",
    0.0,
)
.at_most(1000.0);
/// `fish_delay_ms`: [`StealConfig::fish_delay_s`] in ms.
pub const FISH_DELAY_MS: Param = Param::real(
    "fish_delay_ms",
    "wait after a FISH comes home (GUM FISH_DELAY)",
    "1",
    0.0,
)
.at_most(1e9)
.in_unit("ms");
/// `message_flops`: [`StealConfig::message_flops`].
pub const MESSAGE_FLOPS: Param = Param::real(
    "message_flops",
    "CPU work to handle one message (the default is 0.1 ms at 1395 MHz)",
    "1.4e5",
    0.0,
)
.in_unit("flop");
/// `header_bytes`: [`StealConfig::header_bytes`].
pub const HEADER_BYTES: Param =
    Param::real("header_bytes", "bytes of every message besides its payload", "64", 0.0).in_unit("B");
/// `control_bytes`: [`StealConfig::control_bytes`].
pub const CONTROL_BYTES: Param = Param::real(
    "control_bytes",
    "payload of FISH, FETCH, ACK and startup messages",
    "32",
    0.0,
)
.in_unit("B");

/// `pack_buffer_words`: [`StealConfig::pack_buffer_words`].
pub const PACK_BUFFER_WORDS: Param = Param::integer(
    "pack_buffer_words",
    "packet limit: words of graph one SCHEDULE or RESUME carries (GUM packBufferSize)",
    "1024",
    1.0,
)
.at_most(1e15)
.in_unit("words");
/// `pack_flops_per_word`: [`StealConfig::pack_flops_per_word`].
pub const PACK_FLOPS_PER_WORD: Param = Param::real(
    "pack_flops_per_word",
    "CPU work to pack one word of graph into a packet (GranSim: a load and a store, 4 + 4 cycles)",
    "8",
    0.0,
)
.at_most(1e12)
.in_unit("flop");
/// `unpack_flops_per_word`: [`StealConfig::unpack_flops_per_word`].
pub const UNPACK_FLOPS_PER_WORD: Param = Param::real(
    "unpack_flops_per_word",
    "CPU work to unpack one word of a received packet (GranSim: a load and a store, 4 + 4 cycles)",
    "8",
    0.0,
)
.at_most(1e12)
.in_unit("flop");
/// `thread_create_flops`: [`StealConfig::thread_create_flops`].
pub const THREAD_CREATE_FLOPS: Param = Param::real(
    "thread_create_flops",
    "CPU work to turn a spark into a thread (GranSim THREADCREATETIME: 25 + 75 cycles)",
    "100",
    0.0,
)
.at_most(1e15)
.in_unit("flop");

/// Bytes of a heap word on the paper's PEs: 32-bit x86 PCs (1395 and 534 MHz), where GHC's
/// `StgWord` is 4 bytes. Converts program sizes (bytes) to GUM's packet limit (words).
pub const WORD_BYTES: f64 = 4.0;

/// Packed size of a FETCH_ME placeholder, bytes: GUM packs one as its global address (PE, slot,
/// weight) behind a header word (`Pack.c`, `PackFetchMe`): 4 words.
pub const FETCH_ME_BYTES: f64 = 4.0 * WORD_BYTES;

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
    /// The packet limit, words (GUM's `packBufferSize`, default 1024 in `RtsFlags.c`): a
    /// SCHEDULE carries the spark's closure and the data it reads that fit in this many words
    /// (a FETCH_ME for each of the others); a value or datum larger than it travels in RESUMEs
    /// of at most this many words, one FETCH each.
    pub pack_buffer_words: f64,
    /// CPU work to pack one word into a SCHEDULE or RESUME, flops, charged to the sender. The
    /// default is GranSim's instruction cost model (GHC's simulator of GUM, `GranSim.h`: a load
    /// and a store, `LOAD_COST` = `STORE_COST` = 4 cycles; a cycle counts as a flop here).
    pub pack_flops_per_word: f64,
    /// CPU work to unpack one received word, flops, charged to the receiver with the message's
    /// handling; the same GranSim load-and-store figure.
    pub unpack_flops_per_word: f64,
    /// CPU work to turn a spark into a thread, flops (GranSim `THREADCREATETIME`:
    /// 25 cycles plus `THREADSCHEDULETIME` 75). Subsumption creates no thread and costs none.
    pub thread_create_flops: f64,
    /// Exchange startup messages (every PE to every other, carrying its speed) at time 0.
    pub startup_exchange: bool,
    /// Record every PE's activity intervals (for the activity profile).
    pub record_activity: bool,
}

impl Default for StealConfig {
    /// Every parameter's default.
    fn default() -> Self {
        StealConfig {
            thread_limit: THREAD_LIMIT.default_number() as usize,
            limit_counts_main: LIMIT_COUNTS_MAIN.default_number() == 1.0,
            time_slice_s: TIME_SLICE_MS.default_number() / 1e3,
            hop_limit: HOP_LIMIT.default_number() as u32,
            fish_delay_s: FISH_DELAY_MS.default_number() / 1e3,
            message_flops: MESSAGE_FLOPS.default_number(),
            header_bytes: HEADER_BYTES.default_number(),
            control_bytes: CONTROL_BYTES.default_number(),
            pack_buffer_words: PACK_BUFFER_WORDS.default_number(),
            pack_flops_per_word: PACK_FLOPS_PER_WORD.default_number(),
            unpack_flops_per_word: UNPACK_FLOPS_PER_WORD.default_number(),
            thread_create_flops: THREAD_CREATE_FLOPS.default_number(),
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
            ("pack_buffer_words", self.pack_buffer_words, true),
            ("pack_flops_per_word", self.pack_flops_per_word, false),
            ("unpack_flops_per_word", self.unpack_flops_per_word, false),
            ("thread_create_flops", self.thread_create_flops, false),
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

    /// The packet limit in bytes.
    pub fn packet_bytes(&self) -> f64 {
        self.pack_buffer_words * WORD_BYTES
    }
}

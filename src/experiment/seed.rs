//! Seeds and run fingerprints: stable hashes of what defines a run.
//!
//! With common random numbers (the default) a run's seed is a hash of the base seed, the
//! platform and the replication number only. Every run of a replication on a platform then draws
//! the same random numbers, whatever its scheduler and parameters: a parameter changes how the
//! draws are used (scaled, transformed, how many are taken), never which numbers a stream gives.
//! This is common random numbers, the standard variance reduction for comparing simulated
//! systems: the points of a sweep and the compared schedulers differ by what the x axis and the
//! policy do, not by a new workload each. Each purpose draws from its own stream of the seed
//! (`sim_core::rng::stream`), so a draw of one purpose never shifts another's.
//!
//! With `common_random_numbers = false` the seed also hashes the run's parameters as sorted
//! (name, value) pairs and the scheduler with its parameters: every run draws independently.
//!
//! Either way the seed does not depend on the run's position in the sweep, so adding a value to
//! an axis, or a scheduler, leaves every other run's seed unchanged.
//!
//! The hash is FNV-1a 64 over an unambiguous byte encoding (every string is followed by a 0 byte
//! and values carry a type tag), finished with the SplitMix64 mixer so that nearby inputs give
//! unrelated seeds. Both are fixed algorithms: seeds are the same on every machine and with every
//! compiler version. Integers and integral floats with the same value (`1000`, `1000.0`) hash
//! the same, as they print the same in the CSV.

use crate::output::format_value;
use schedulers::family::ParamValue;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 over a byte stream.
#[derive(Clone, Copy, Debug)]
pub struct StableHasher {
    state: u64,
}

impl StableHasher {
    /// A hasher starting from `offset` (FNV's standard offset basis for [`StableHasher::new`]).
    pub fn with_offset(offset: u64) -> StableHasher {
        StableHasher { state: offset }
    }

    /// FNV-1a 64 with its standard offset basis.
    pub fn new() -> StableHasher {
        StableHasher::with_offset(FNV_OFFSET)
    }

    /// Feeds raw bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.state = (self.state ^ b as u64).wrapping_mul(FNV_PRIME);
        }
    }

    /// Feeds a string and a terminating 0 byte.
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
        self.bytes(&[0]);
    }

    /// Feeds a number (little-endian).
    pub fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }

    /// Feeds a parameter value with a type tag.
    pub fn value(&mut self, value: &ParamValue) {
        let tag = match value {
            ParamValue::Int(_) | ParamValue::Float(_) => "n",
            ParamValue::Str(_) => "s",
            ParamValue::Bool(_) => "b",
        };
        self.str(tag);
        self.str(&format_value(value));
    }

    /// The raw FNV-1a state.
    pub fn raw(&self) -> u64 {
        self.state
    }

    /// The state passed through the SplitMix64 finalizer.
    pub fn finish(&self) -> u64 {
        splitmix64(self.state)
    }
}

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher::new()
    }
}

/// The SplitMix64 output function (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What a run's seed depends on.
#[derive(Clone, Copy, Debug)]
pub struct SeedInput<'a> {
    /// The experiment's base seed.
    pub base_seed: u64,
    /// The platform's name as the experiment gives it.
    pub platform: &'a str,
    /// Workload parameters, sorted by name.
    pub params: &'a [(&'a str, &'a ParamValue)],
    /// Scheduler name and its parameters sorted by name; `None` with common random numbers.
    pub scheduler: Option<(&'a str, &'a [(&'a str, &'a ParamValue)])>,
    /// Replication number.
    pub replication: u32,
}

/// The seed of a run. See the module docs.
pub fn derive_seed(input: &SeedInput<'_>) -> u64 {
    let mut h = StableHasher::new();
    h.str("gridsim-seed-v1");
    h.u64(input.base_seed);
    h.str("platform");
    h.str(input.platform);
    for (name, value) in input.params {
        h.str(name);
        h.value(value);
    }
    if let Some((scheduler, params)) = input.scheduler {
        h.str("scheduler");
        h.str(scheduler);
        for (name, value) in params {
            h.str(name);
            h.value(value);
        }
    }
    h.str("replication");
    h.u64(input.replication as u64);
    h.finish()
}

/// A 128-bit hash as 32 hex digits: two FNV-1a streams with different offset bases, each
/// finished with SplitMix64. Used to name per-run result files.
pub fn fingerprint(feed: impl Fn(&mut StableHasher)) -> String {
    let mut a = StableHasher::new();
    let mut b = StableHasher::with_offset(splitmix64(FNV_OFFSET ^ 0x6772_6964_7369_6d21));
    feed(&mut a);
    feed(&mut b);
    format!("{:016x}{:016x}", a.finish(), b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_reference_vectors() {
        // FNV-1a 64 of "" and "a" (published test vectors).
        assert_eq!(StableHasher::new().raw(), 0xcbf29ce484222325);
        let mut h = StableHasher::new();
        h.bytes(b"a");
        assert_eq!(h.raw(), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn splitmix_matches_reference_output() {
        // First output of the SplitMix64 generator seeded with 0 is the mixer applied to 0.
        assert_eq!(splitmix64(0), 0xe220a8397b1dcdaf);
    }

    #[test]
    fn seeds_depend_on_every_input_but_not_on_int_or_float_spelling() {
        let tasks = ParamValue::Int(1000);
        let tasks_f = ParamValue::Float(1000.0);
        let other = ParamValue::Int(2000);
        let base = |params: &[(&str, &ParamValue)], sched: Option<(&str, &[(&str, &ParamValue)])>, rep: u32| {
            derive_seed(&SeedInput {
                base_seed: 7,
                platform: "p.xml",
                params,
                scheduler: sched,
                replication: rep,
            })
        };
        let s = base(&[("tasks", &tasks)], None, 0);
        assert_eq!(s, base(&[("tasks", &tasks_f)], None, 0));
        assert_ne!(s, base(&[("tasks", &other)], None, 0));
        assert_ne!(s, base(&[("tasks", &tasks)], None, 1));
        assert_ne!(s, base(&[("tasks", &tasks)], Some(("gss", &[])), 0));
        assert_ne!(
            derive_seed(&SeedInput {
                base_seed: 8,
                platform: "p.xml",
                params: &[("tasks", &tasks)],
                scheduler: None,
                replication: 0
            }),
            s
        );
        // Names and values are delimited: ("ab", "c") is not ("a", "bc").
        let c = ParamValue::Str("c".into());
        let bc = ParamValue::Str("bc".into());
        assert_ne!(base(&[("ab", &c)], None, 0), base(&[("a", &bc)], None, 0));
    }

    #[test]
    fn fingerprints_are_32_hex_digits_and_input_sensitive() {
        let f1 = fingerprint(|h| h.str("x"));
        let f2 = fingerprint(|h| h.str("y"));
        assert_eq!(f1.len(), 32);
        assert!(f1.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(f1, f2);
        assert_eq!(f1, fingerprint(|h| h.str("x")));
    }
}

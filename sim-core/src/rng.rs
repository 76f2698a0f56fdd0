//! Reproducible randomness.
//!
//! One seed per run; every purpose (workload, availability, scheduler, ...) draws from its own
//! ChaCha8 stream, selected by a stable 64-bit hash of the purpose's name. Streams of different
//! purposes are independent, so changing how many numbers the scheduler draws never perturbs the
//! workload (common random numbers across compared policies). ChaCha8 is a named algorithm whose
//! output is fixed, unlike `rand::rngs::StdRng`, which the rand docs say may change between
//! versions.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Derives the random stream of one purpose from a run seed.
pub fn stream(run_seed: u64, purpose: &str) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(run_seed);
    rng.set_stream(stable_hash(purpose));
    rng
}

/// The stream of purpose `"{purpose}.{n}"` (one per job, say), derived without building the
/// name: the same numbers as [`stream`] of that name.
pub fn numbered_stream(run_seed: u64, purpose: &str, n: u64) -> ChaCha8Rng {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let hash = fnv(fnv(fnv(FNV_OFFSET, purpose.as_bytes()), b"."), &digits[at..]);
    let mut rng = ChaCha8Rng::seed_from_u64(run_seed);
    rng.set_stream(hash);
    rng
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv(state: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(state, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// FNV-1a, 64 bit: fixed across platforms and compiler versions (unlike `std`'s hasher).
pub fn stable_hash(text: &str) -> u64 {
    fnv(FNV_OFFSET, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_seed_same_purpose_same_numbers() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = stream(42, "workload");
                move |_| r.gen()
            })
            .collect();
        let b: Vec<u64> = (0..8)
            .map({
                let mut r = stream(42, "workload");
                move |_| r.gen()
            })
            .collect();
        assert_eq!(a, b);
    }

    #[test]
    fn numbered_streams_are_the_streams_of_their_names() {
        for n in [0, 7, 10, 184_611, u64::MAX] {
            let named: u64 = stream(9, &format!("cluster.accesses.{n}")).gen();
            assert_eq!(numbered_stream(9, "cluster.accesses", n).gen::<u64>(), named, "{n}");
        }
    }

    #[test]
    fn purposes_and_seeds_differ() {
        let x: u64 = stream(42, "workload").gen();
        let y: u64 = stream(42, "scheduler").gen();
        let z: u64 = stream(43, "workload").gen();
        assert_ne!(x, y);
        assert_ne!(x, z);
    }

    #[test]
    fn fnv1a_reference_values() {
        // Reference values of FNV-1a 64 from the algorithm's published test vectors
        // (Fowler/Noll/Vo, "FNV hash" test suite): "" and "a".
        assert_eq!(stable_hash(""), 0xcbf29ce484222325);
        assert_eq!(stable_hash("a"), 0xaf63dc4c8601ec8c);
    }
}

//! `linsolv`: the exact solution of an `n × n` integer linear system by multiple homomorphic
//! images (data parallel, limited irregularity: Al Zain et al., Table 1).
//!
//! **Model.** The root sparks one image per prime, `k = linsolv_primes` sparks in prime order;
//! the spark for prime `p` reduces the matrix and right-hand side modulo `p` and solves the system
//! over `Z_p` by Gaussian elimination, returning the determinant and the solution modulo `p`. The
//! root needs all `k` results, combines them by Chinese remaindering, then runs a sequential tail
//! (rational reconstruction of the solution and checking it against the original system).
//!
//! Costs, in word-level modular multiply-adds, with `w = ceil(linsolv_entry_bytes / 8)` words per
//! matrix entry:
//!
//! * image `i`: `f_i · (n(n+1)·w + n³/3 + n²)` — reducing the `n(n+1)` entries word by word,
//!   forward elimination on the augmented matrix (`n³/3`), back substitution and the pivots'
//!   inverses (`n²`); `f_i = 1 + linsolv_jitter · u_i`, `u_i` uniform in `[-1, 1]`, drawn from `rng`
//!   in prime order (`k` draws, even when the jitter is 0, so the jitter only rescales);
//! * root own: one unit per spark created;
//! * root combine: Chinese remaindering of `n + 1` values (solution and determinant) from `k`
//!   residues with Garner's incremental method, `(n + 1)·k²/2`, then rational reconstruction of
//!   the `n + 1` values from their `k`-word images (an extended Euclid on `k`-word numbers each,
//!   quadratic in `k`: `(n + 1)·k²`), plus any further sequential tail, sized so that it is
//!   exactly the fraction `linsolv_tail` of the program's total work.
//!
//! The default tail is 0: the sequential part of the program's structure is the combining above,
//! about 3% of the work at the defaults (`1.5·61·32²` against `32` images of about `9·10⁴`), which
//! the model already charges; Chinese remaindering of 32 residues is cheap next to 32 Gaussian
//! eliminations. `linsolv_tail` is there to study a heavier tail (a verification of the solution
//! against the original system, which the sources do not mention).
//!
//! **Data:** the matrix and right-hand side, `n(n+1) × linsolv_entry_bytes` (117 120 bytes at the
//! defaults), are the program's input, on PE 0; every image spark reads them before reducing
//! them modulo its prime. They are 29 of GUM's 4096-byte packets: an exported image travels with
//! a FETCH_ME for the matrix, and the thread that runs it fetches the matrix packet by packet,
//! blocking on each FETCH (GUM's packing does not know what the receiver holds; a PE that has
//! fetched the matrix once keeps it, as GUM's global-address table does). The image's closure is
//! [`IMAGE_CLOSURE_BYTES`]; its `result_bytes` = `(n + 1) × 8` (word-size residues), which the
//! root reads when it combines them. The root's `graph_bytes` is the same
//! matrix and its `result_bytes` the rational solution, `2(n + 1) × linsolv_entry_bytes`.
//!
//! **Sources.** Loidl et al., "Comparing parallel functional languages: programming and
//! performance", HOSC 16(3), 2003, evaluate this "exact linear system solver" and, to our
//! knowledge of the paper (we had its abstract, not its text), its GpH version evaluates the
//! independent images in parallel with a strategy over the list of images before Chinese
//! remaindering; Al Zain et al. (Table 1) class it as data parallel with limited irregularity.
//! The algorithm is described from general knowledge of modular linear algebra; the cost
//! formulas are textbook operation counts, not measurements.
//!
//! **Choices the sources leave open.** The irregularity source: real images differ little in
//! cost (the primes have the same word size), and the original occasionally discards an unlucky
//! prime dividing the determinant; we model both as the `± linsolv_jitter` uniform factor
//! (default 0.1), not as actual primes. Any tail beyond the combining (`linsolv_tail`,
//! default 0) is not in the paper. The entry size (`linsolv_entry_bytes`, default 32: multi-word integers), `n` = 60 and
//! `k` = 32 are our defaults. Images are created in one flat list (no chunking).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::check_nodes;
use crate::registry::{Param, ParamError, Values};
use crate::steal::program::{DataId, Datum, Node, Program};

/// The matrix and right-hand side, the program's input.
const MATRIX: DataId = 0;

/// Packed closure of an image spark, bytes: the code pointer, the matrix pointer and the prime.
pub const IMAGE_CLOSURE_BYTES: f64 = 64.0;

/// Largest number of images accepted (one spark each).
pub const MAX_PRIMES: u64 = 1_000_000;

/// Largest matrix dimension accepted: costs stay below 1e15 units, exact enough in `f64`.
pub const MAX_N: u64 = 100_000;

/// Largest packed entry accepted, bytes.
pub const MAX_ENTRY_BYTES: u64 = 1 << 20;

/// `linsolv_primes`: k.
pub const PRIMES: Param = Param::integer(
    "linsolv_primes",
    "homomorphic images (primes), one spark each",
    "32",
    1.0,
)
.at_most(MAX_PRIMES as f64);

/// `linsolv_n`: n.
pub const N: Param = Param::integer("linsolv_n", "matrix dimension n", "60", 1.0).at_most(MAX_N as f64);

/// `linsolv_tail`: below 1, or the tail would be all the work.
pub const TAIL: Param = Param::real(
    "linsolv_tail",
    "sequential work after Chinese remaindering and rational reconstruction (e.g. a check), as a fraction of all work",
    "0",
    0.0,
)
.at_most(0.95);

/// `linsolv_entry_bytes`.
pub const ENTRY_BYTES: Param = Param::integer(
    "linsolv_entry_bytes",
    "packed size of one multi-word matrix entry",
    "32",
    1.0,
)
.at_most(MAX_ENTRY_BYTES as f64)
.in_unit("B");

/// `linsolv_jitter`: below 1, so that every image costs more than nothing.
pub const JITTER: Param = Param::real(
    "linsolv_jitter",
    "per-image cost factor drawn uniformly from 1 ± jitter",
    "0.1",
    0.0,
)
.at_most(0.9);

/// The program's parameters, for its registry entry.
pub const PARAMS: &[Param] = &[PRIMES, N, TAIL, ENTRY_BYTES, JITTER];

/// The spark tree of the `linsolv_*` parameters, in relative units, drawing the per-image
/// factors from `rng`.
pub(super) fn generate(p: &Values, rng: &mut ChaCha8Rng) -> Result<Program, ParamError> {
    let k = p.integer(PRIMES.name)?;
    let n = p.integer(N.name)? as f64;
    let tail = p.real(TAIL.name)?;
    let entry_bytes = p.integer(ENTRY_BYTES.name)?;
    let jitter = p.real(JITTER.name)?;
    check_nodes(&PRIMES, u128::from(k) + 1, &format!("linsolv_primes = {k}"))?;

    let words = entry_bytes.div_ceil(8) as f64;
    let entry_bytes = entry_bytes as f64;
    let image = n * (n + 1.0) * words + n * n * n / 3.0 + n * n;
    let images: Vec<f64> = (0..k)
        .map(|_| image * (1.0 + jitter * rng.gen_range(-1.0..=1.0)))
        .collect();
    let spawn = k as f64;
    let crt = (n + 1.0) * (k as f64) * (k as f64) / 2.0;
    let reconstruction = (n + 1.0) * (k as f64) * (k as f64);
    let parallel_part = spawn + images.iter().sum::<f64>() + crt + reconstruction;
    // tail = t · (rest + tail)  ⇔  tail = rest · t / (1 - t).
    let tail_work = parallel_part * tail / (1.0 - tail);

    let mut nodes = Vec::with_capacity(k as usize + 1);
    nodes.push(Node {
        own_flops: spawn,
        combine_flops: crt + reconstruction + tail_work,
        children: (1..=k as u32).collect(),
        graph_bytes: n * (n + 1.0) * entry_bytes,
        result_bytes: 2.0 * (n + 1.0) * entry_bytes,
        reads: Vec::new(),
    });
    nodes.extend(images.into_iter().map(|cost| Node {
        own_flops: cost,
        combine_flops: 0.0,
        children: Vec::new(),
        graph_bytes: IMAGE_CLOSURE_BYTES,
        result_bytes: (n + 1.0) * 8.0,
        reads: vec![MATRIX],
    }));
    Ok(Program {
        name: "linsolv".into(),
        nodes,
        data: vec![Datum {
            bytes: n * (n + 1.0) * entry_bytes,
            producer: 0,
        }],
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rand::SeedableRng;

    use super::*;

    fn build(pairs: &[(&str, f64)], seed: u64) -> Program {
        let map: BTreeMap<String, f64> = pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect();
        generate(
            &super::super::test_values("linsolv", &map),
            &mut ChaCha8Rng::seed_from_u64(seed),
        )
        .unwrap()
    }

    #[test]
    fn the_tail_is_the_requested_fraction_of_all_work() {
        for tail in [0.0, 0.1, 0.5, 0.95] {
            let p = build(&[("linsolv_tail", tail)], 1);
            let crt = 1.5 * 61.0 * 32.0 * 32.0;
            let tail_work = p.nodes[0].combine_flops - crt;
            let fraction = tail_work / p.total_flops();
            assert!((fraction - tail).abs() < 1e-12, "{fraction} vs {tail}");
        }
    }

    #[test]
    fn images_vary_within_the_jitter_and_carry_the_matrix() {
        let p = build(&[], 5);
        assert_eq!(p.validate(), Ok(()));
        assert_eq!(p.sparks(), 32);
        let nominal = 60.0 * 61.0 * 4.0 + 60.0f64.powi(3) / 3.0 + 3600.0;
        let costs: Vec<f64> = p.nodes[1..].iter().map(|n| n.own_flops).collect();
        assert!(costs.iter().all(|&c| (c / nominal - 1.0).abs() <= 0.1 + 1e-12));
        let (min, max) = costs
            .iter()
            .fold((f64::MAX, 0.0f64), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        assert!(max > min, "the jitter varies the images");
        assert!(p.nodes[1..]
            .iter()
            .all(|n| n.graph_bytes == IMAGE_CLOSURE_BYTES && n.result_bytes == 61.0 * 8.0 && n.reads == [MATRIX]));
        assert_eq!(p.data[0].bytes, 60.0 * 61.0 * 32.0);
        assert_eq!(p.data[0].producer, 0);
        // Without jitter every image costs the same.
        let flat = build(&[("linsolv_jitter", 0.0)], 5);
        assert!(flat.nodes[1..].iter().all(|n| n.own_flops == nominal));
    }

    #[test]
    fn extreme_values_stay_finite() {
        let p = build(
            &[
                ("linsolv_n", 1e5),
                ("linsolv_primes", 1.0),
                ("linsolv_entry_bytes", 1.0),
            ],
            0,
        );
        assert_eq!(p.validate(), Ok(()));
        let p = build(
            &[("linsolv_n", 1.0), ("linsolv_primes", 1e5), ("linsolv_tail", 0.95)],
            0,
        );
        assert_eq!(p.validate(), Ok(()));
    }
}

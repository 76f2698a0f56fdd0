//! `sumeuler`: Σ φ(k) for k = 1..n, one spark per chunk of the list (data parallel, limited
//! irregularity: Al Zain et al., Table 1).
//!
//! **Model.** The root splits `[1..n]` into `ceil(n / c)` chunks of `c = sumeuler_chunk`
//! consecutive integers (the last one possibly shorter) and sparks one chunk per spark, in list
//! order; a chunk spark computes the sum of `φ(k)` over its chunk; the root adds the chunk sums.
//! `φ(k)` is computed the naive way of the GpH program, counting the `x` in `[1..k-1]` with
//! `gcd(k, x) = 1`, so element `k` costs `k` units (one unit = one `relprime` test, the `k`-th
//! accounting for the element's list cell and addition) and chunk `[a..b]` costs
//! `Σ_{k=a..b} k = (a + b)(b - a + 1) / 2` units, computed exactly.
//!
//! Chunk costs thus grow linearly along the list, from `c(c+1)/2` to about `n·c`: the irregularity
//! is limited and predictable, not random (`rng` is not used). `graph_bytes` = 64 (the closure and
//! the chunk's two bounds; the list is generated where the chunk is evaluated); `result_bytes` = 16
//! (one boxed integer). **Data:** none. A chunk spark reads only its two bounds, which are in its
//! closure (`[a..b]` is enumerated where the chunk runs), so it never touches remote data and
//! never blocks on a FETCH: the thread limit can only act on it through the PEs' fishing.
//!
//! **Sources.** Al Zain et al. name and classify the program only; Loidl et al. (HOSC 16(3), 2003)
//! do not include it. The shape is that of the GpH `sumTotient` by P. Trinder (2003, after
//! N. Charles, H-W. Loidl and C. Runciman): `euler n = length (filter (relprime n) [1..n-1])`, with
//! the list of totients evaluated by `parListChunk 100` — the strategy of Trinder, Hammond, Loidl
//! & Peyton Jones, "Algorithm + Strategy = Parallelism", JFP 8(1), 1998. We model the variant that
//! sums each chunk inside its spark (`sum . map (sum . map euler) . splitAtN c`), so only one
//! integer per chunk returns to the root. The defaults `n` = 5000 and chunk size 100 are those of
//! H-W. Loidl's GpH sumEuler (2001; J. Berthold's 2008 port, `parallel/sumeuler/SumEuler.hs` of
//! GHC's nofib suite: "using defaults: 38,5000,100", i.e. its JFP version over an interval of 5000
//! in chunks of 100); Al Zain et al. give no input size.
//!
//! **Choices the sources leave open.** The `gcd` inside `relprime` takes `O(log k)` Euclid steps;
//! we count one unit per test regardless (a factor varying by about 2 across the list at the
//! defaults). The root's own work is one unit per chunk (splitting off the chunk and sparking it),
//! its combine one unit per chunk (an addition).

use super::check_nodes;
use crate::registry::{Param, ParamError, Values};
use crate::steal::program::{Node, Program};

/// Largest `n` accepted: keeps every sum exact in `u128` and the cost of the last chunk (about
/// `n·c`) far below `f64` precision limits.
pub const MAX_N: u64 = 1_000_000_000;

/// Root cost per chunk, both to spark it and to add its result, in `relprime` tests.
pub const PER_CHUNK_COST: f64 = 1.0;

/// `sumeuler_n`: n.
pub const N: Param = Param::integer("sumeuler_n", "upper end n of [1..n]", "5000", 1.0).at_most(MAX_N as f64);

/// `sumeuler_chunk`: c.
pub const CHUNK: Param =
    Param::integer("sumeuler_chunk", "list elements per chunk spark", "100", 1.0).at_most(MAX_N as f64);

/// The program's parameters, for its registry entry.
pub const PARAMS: &[Param] = &[N, CHUNK];

/// The spark tree of `sumeuler_n` / `sumeuler_chunk`, in relative units.
pub(super) fn generate(p: &Values) -> Result<Program, ParamError> {
    let n = p.integer(N.name)?;
    let c = p.integer(CHUNK.name)?;
    let chunks = n.div_ceil(c);
    check_nodes(
        &CHUNK,
        u128::from(chunks) + 1,
        &format!("sumeuler_n = {n} and sumeuler_chunk = {c} ({chunks} chunks)"),
    )?;
    let mut nodes = Vec::with_capacity(chunks as usize + 1);
    nodes.push(Node {
        own_flops: chunks as f64 * PER_CHUNK_COST,
        combine_flops: chunks as f64 * PER_CHUNK_COST,
        children: (1..=chunks as u32).collect(),
        graph_bytes: 64.0,
        result_bytes: 16.0,
        reads: Vec::new(),
    });
    for j in 0..chunks {
        nodes.push(Node {
            own_flops: chunk_cost(j * c + 1, ((j + 1) * c).min(n)),
            combine_flops: 0.0,
            children: Vec::new(),
            graph_bytes: 64.0,
            result_bytes: 16.0,
            // A chunk spark reads nothing beyond its closure: it generates its own list.
            reads: Vec::new(),
        });
    }
    Ok(Program {
        name: "sumeuler".into(),
        nodes,
        data: Vec::new(),
    })
}

/// Cost of the chunk `[a..=b]`: `Σ k`, exact in integers before the conversion.
fn chunk_cost(a: u64, b: u64) -> f64 {
    let (a, b) = (u128::from(a), u128::from(b));
    ((a + b) * (b - a + 1) / 2) as f64
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn build(n: f64, c: f64) -> Result<Program, String> {
        let map = BTreeMap::from([("sumeuler_n".to_string(), n), ("sumeuler_chunk".to_string(), c)]);
        generate(&super::super::test_values("sumeuler", &map)).map_err(|e| e.to_string())
    }

    #[test]
    fn chunks_cover_the_list_and_cost_the_sum_of_their_elements() {
        let p = build(1005.0, 100.0).unwrap();
        assert_eq!(p.validate(), Ok(()));
        assert_eq!(p.sparks(), 11);
        assert_eq!(p.nodes[1].own_flops, 5050.0);
        // The last chunk is [1001..1005].
        assert_eq!(p.nodes[11].own_flops, 5015.0);
        let elements: f64 = p.nodes[1..].iter().map(|n| n.own_flops).sum();
        assert_eq!(elements, 1005.0 * 1006.0 / 2.0);
        assert_eq!(p.nodes[0].combine_flops, 11.0 * PER_CHUNK_COST);
    }

    #[test]
    fn defaults_have_two_hundred_increasing_chunks() {
        let p = build(20_000.0, 100.0).unwrap();
        assert_eq!(p.nodes.len(), 201);
        assert!(p.nodes[1..].windows(2).all(|w| w[0].own_flops < w[1].own_flops));
        // Limited irregularity: the last chunk costs about 2n/c times the first.
        let ratio = p.nodes[200].own_flops / p.nodes[1].own_flops;
        assert!((390.0..400.0).contains(&ratio), "{ratio}");
    }

    #[test]
    fn a_chunk_larger_than_the_list_is_one_spark_and_huge_lists_are_refused() {
        assert_eq!(build(10.0, 1000.0).unwrap().sparks(), 1);
        assert_eq!(build(1.0, 1.0).unwrap().nodes[1].own_flops, 1.0);
        let err = build(1e9, 100.0).unwrap_err();
        assert!(
            err.contains("sumeuler_chunk") && err.contains("10000000 chunks"),
            "{err}"
        );
        // The largest accepted list still has exact chunk costs.
        let p = build(1e9, 1e9).unwrap();
        assert_eq!(p.nodes[1].own_flops, 5.000000005e17);
    }
}

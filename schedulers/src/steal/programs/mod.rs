//! The benchmark programs of Al Zain, Trinder, Loidl & Michaelson, "Managing Heterogeneity in a
//! Grid Parallel Haskell" (Table 1), as spark-tree generators.
//!
//! | program     | paradigm (Table 1)  | regularity (Table 1) | spark tree                          |
//! |-------------|---------------------|----------------------|-------------------------------------|
//! | `queens`    | divide and conquer  | regular              | the real N-queens search tree, cut  |
//! | `sumeuler`  | data parallel       | limited irregularity | `parListChunk` over `[1..n]`        |
//! | `linsolv`   | data parallel       | limited irregularity | one spark per homomorphic image     |
//! | `raytracer` | data parallel       | high irregularity    | blocks of rows of a traced scene    |
//!
//! Every generator first builds the tree's *shape* with costs in its own relative unit (a
//! search-tree node, a `gcd` call, a modular multiply-add, a ray-object test), then
//! [`build`] scales the whole program so that [`Program::total_flops`] is exactly the requested
//! sequential work: the programs say how work is *distributed*, an experiment says how much there
//! is. Only ratios of costs inside one program matter, so each module documents its unit and
//! every constant it chose.
//!
//! Parameters are named `<program>_<what>` so one experiment file can carry several programs'
//! parameters without collisions. Every value is checked (finite, in range, integral where it is
//! a count) and every combination that would exceed [`MAX_NODES`] nodes, or take more than about
//! two seconds to generate, is refused before anything large is allocated or enumerated.
//!
//! Generators that draw (`linsolv`'s per-image jitter, `raytracer`'s scene) take the caller's
//! `rng`, so one seed gives one program; `queens` and `sumeuler` are deterministic and draw
//! nothing.
//!
//! On sources: the Grid-GUM2 paper names and classifies the four programs but gives no code or
//! sizes. Loidl et al., "Comparing parallel functional languages: programming and performance"
//! (HOSC 16(3), 2003) cover linSolv and the ray tracer (and matrix multiplication), not queens or
//! sumEuler; we had its abstract, not its text, so what each module says of it is general
//! knowledge of the paper and is marked as such. Each module names the public code its shape
//! follows where there is one, and lists the choices that are ours.

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;

use super::program::{Program, MAX_NODES};
use crate::family::RunError;
use crate::registry::lookup;
pub use crate::registry::PolicyInfo;
use crate::registry::{Param, ParamError, Values};

pub mod lin_solv;
pub mod queens;
pub mod raytracer;
pub mod sum_euler;

/// Every program: its name, one line, and its parameters (each declared, with its kind, range
/// and default, in the program's own module).
pub const PROGRAMS: &[PolicyInfo] = &[
    PolicyInfo {
        name: "queens",
        description: "N-queens backtracking search; the search tree is sparked down to a depth (divide and conquer, regular)",
        params: queens::PARAMS,
    },
    PolicyInfo {
        name: "sumeuler",
        description: "sum of Euler's totient over [1..n], parListChunk over the list (data parallel, limited irregularity)",
        params: sum_euler::PARAMS,
    },
    PolicyInfo {
        name: "linsolv",
        description: "exact linear system solver by multiple homomorphic images and Chinese remaindering (data parallel, limited irregularity)",
        params: lin_solv::PARAMS,
    },
    PolicyInfo {
        name: "raytracer",
        description: "ray tracer over a random scene of sphere clusters, sparked as blocks of rows (data parallel, high irregularity)",
        params: raytracer::PARAMS,
    },
];

/// The paper's platform (§4): four PEs of 1395 MHz and four of 534 MHz, MHz in all.
pub const PAPER_TOTAL_MHZ: f64 = 4.0 * 1395.0 + 4.0 * 534.0;

/// The paper's fast PE, MHz: the reference PE of `sequential_s`.
pub const PAPER_FAST_MHZ: f64 = 1395.0;

/// Each program's Grid-GUM2 runtime in the paper (Table 1, last column), s: the runtime that the
/// reading of [`default_sequential_s`] starts from.
pub const PAPER_GRID_GUM2_S: &[(&str, f64)] = &[
    ("queens", 310.0),
    ("sumeuler", 279.0),
    ("linsolv", 180.0),
    ("raytracer", 572.0),
];

/// The default sequential time of program `name` on one 1395 MHz PE, s, read from the paper
/// (which gives no sequential times): under Grid-GUM2 "all PEs ... are uniformly loaded, and
/// finish at the same time" (§4, Fig 9b), i.e. the eight PEs computed for the whole run, so the
/// program's work is its Grid-GUM2 runtime × the platform's total speed, and one fast PE needs
/// runtime × 7716 / 1395 = runtime × 5.53: queens 1715 s, sumEuler 1543 s, linSolv 996 s,
/// raytracer 3164 s. Fig 9b shows raytracer; the same reading is applied to all four (it is an
/// upper bound on the work: overheads and idle time would make it less). No simulated runtime
/// is compared with anything to choose it: the paper's Grid-GUM2 runtimes become the perfect-
/// balance bound of the simulated platform, which no policy can beat.
pub fn default_sequential_s(name: &str) -> Option<f64> {
    PAPER_GRID_GUM2_S
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, runtime)| runtime * PAPER_TOTAL_MHZ / PAPER_FAST_MHZ)
}

/// The largest `total_flops` accepted, and the smallest: far outside any experiment, and far
/// enough from the ends of `f64` that scaled node costs stay normal numbers whose sum cannot
/// overflow.
const TOTAL_FLOPS_RANGE: (f64, f64) = (1e-100, 1e100);

/// Builds program `name` with these parameters (keys must be params of that program's entry,
/// missing ones take the documented default); the result's `total_flops()` equals `total_flops`
/// (relative error <= 1e-12) and passes `validate()`.
pub fn build(
    name: &str,
    params: &BTreeMap<String, f64>,
    total_flops: f64,
    rng: &mut ChaCha8Rng,
) -> Result<Program, RunError> {
    let entry = lookup(PROGRAMS, "program", name, params)?;
    let (lo, hi) = TOTAL_FLOPS_RANGE;
    if !(total_flops.is_finite() && (lo..=hi).contains(&total_flops)) {
        return Err(RunError::Other(format!(
            "program '{name}': total_flops must be a finite number from {lo:e} to {hi:e}, got {total_flops}"
        )));
    }
    let p = Values::new(entry, params);
    let generated = match name {
        "queens" => queens::generate(&p),
        "sumeuler" => sum_euler::generate(&p),
        "linsolv" => lin_solv::generate(&p, rng),
        "raytracer" => raytracer::generate(&p, rng),
        _ => return Err(format!("program '{name}' is listed but has no generator").into()),
    };
    let mut program = generated
        .map_err(|e| RunError::Param(ParamError::new(&e.param, format!("of program '{name}' {}", e.message))))?;
    scale_to(&mut program, total_flops)?;
    program.validate()?;
    Ok(program)
}

/// Scales `program` so that its total work is `total`, then folds the rounding residual into its
/// largest `own_flops`: after scaling, the sum of millions of products can be off by up to
/// `nodes × ε` relatively, more than the 1e-12 promised. Every generator puts at least a few
/// percent of its work in `own_flops`, so the largest holds far more than the residual (at most
/// `nodes × ε × total`), which thus never makes it negative.
fn scale_to(program: &mut Program, total: f64) -> Result<(), String> {
    let current = program.total_flops();
    if !(current.is_finite() && current > 0.0) {
        return Err(format!(
            "program '{}': generated shape has total work {current}; cannot scale it",
            program.name
        ));
    }
    program.scale_work(total / current);
    let Some(largest) =
        (0..program.nodes.len()).max_by(|&a, &b| program.nodes[a].own_flops.total_cmp(&program.nodes[b].own_flops))
    else {
        return Err(format!("program '{}' has no node", program.name));
    };
    // A few rounds: each re-sum rounds again, but the residual shrinks to an ulp of the total.
    for _ in 0..4 {
        let residual = total - program.total_flops();
        if residual.abs() <= total * 1e-15 {
            break;
        }
        let own = &mut program.nodes[largest].own_flops;
        *own = (*own + residual).max(0.0);
    }
    Ok(())
}

/// The values `params` of program `name` read against its registry entry, for tests that call a
/// generator.
#[cfg(test)]
pub(crate) fn test_values<'a>(name: &str, params: &'a BTreeMap<String, f64>) -> Values<'a> {
    let entry = PROGRAMS.iter().find(|p| p.name == name).expect("a listed program");
    Values::new(entry, params)
}

/// Refuses a program of `nodes` nodes when that exceeds [`MAX_NODES`], at `param`; `because`
/// names the parameters responsible.
pub(crate) fn check_nodes(param: &Param, nodes: u128, because: &str) -> Result<(), ParamError> {
    if nodes > MAX_NODES as u128 {
        return Err(ParamError::new(
            param.name,
            format!("is refused: {because} give {nodes} nodes; at most {MAX_NODES} are simulated"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    fn with(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    #[test]
    fn every_program_builds_with_defaults_validates_and_has_the_requested_work() {
        for info in PROGRAMS {
            for total in [1.0, 3.7e12, 1e-90, 1e99] {
                let p = build(info.name, &BTreeMap::new(), total, &mut rng(7)).unwrap();
                assert_eq!(p.name, info.name);
                assert_eq!(p.validate(), Ok(()));
                assert!(p.sparks() >= 1, "{}", info.name);
                let rel = (p.total_flops() - total).abs() / total;
                assert!(rel <= 1e-12, "{}: total {} vs {total}", info.name, p.total_flops());
            }
        }
    }

    #[test]
    fn documented_defaults_are_the_defaults_used() {
        for info in PROGRAMS {
            let explicit: BTreeMap<String, f64> = info
                .params
                .iter()
                .map(|p| (p.name.to_string(), p.default.parse::<f64>().unwrap()))
                .collect();
            let a = build(info.name, &BTreeMap::new(), 1e9, &mut rng(3)).unwrap();
            let b = build(info.name, &explicit, 1e9, &mut rng(3)).unwrap();
            assert_eq!(a, b, "{}", info.name);
        }
    }

    #[test]
    fn parameter_names_carry_their_program_name() {
        for info in PROGRAMS {
            for crate::registry::Param { name: key, .. } in info.params {
                assert!(key.starts_with(&format!("{}_", info.name)), "{key}");
            }
        }
    }

    #[test]
    fn same_seed_same_program() {
        for info in PROGRAMS {
            let a = build(info.name, &BTreeMap::new(), 1e10, &mut rng(11)).unwrap();
            let b = build(info.name, &BTreeMap::new(), 1e10, &mut rng(11)).unwrap();
            assert_eq!(a, b, "{}", info.name);
        }
        // The drawing programs do depend on the seed.
        for name in ["linsolv", "raytracer"] {
            let a = build(name, &BTreeMap::new(), 1e10, &mut rng(1)).unwrap();
            let b = build(name, &BTreeMap::new(), 1e10, &mut rng(2)).unwrap();
            assert_ne!(a, b, "{name}");
        }
    }

    #[test]
    fn unknown_names_and_parameters_are_refused_by_name() {
        let err = build("quens", &BTreeMap::new(), 1.0, &mut rng(0))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("quens") && err.contains("queens") && err.contains("raytracer"),
            "{err}"
        );
        // Another program's parameter is unknown to this one.
        let err = build("queens", &with(&[("sumeuler_n", 100.0)]), 1.0, &mut rng(0))
            .unwrap_err()
            .to_string();
        assert!(err.contains("'sumeuler_n'") && err.contains("queens_board"), "{err}");
        let err = build("raytracer", &with(&[("width", 100.0)]), 1.0, &mut rng(0))
            .unwrap_err()
            .to_string();
        assert!(err.contains("'width'"), "{err}");
    }

    #[test]
    fn total_flops_must_be_finite_and_positive() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::MIN_POSITIVE, 1e200] {
            let err = build("sumeuler", &BTreeMap::new(), bad, &mut rng(0))
                .unwrap_err()
                .to_string();
            assert!(err.contains("total_flops"), "{err}");
        }
    }

    #[test]
    fn out_of_range_values_are_refused_with_the_parameter_and_range() {
        let cases: &[(&str, &str, f64)] = &[
            ("queens", "queens_board", 40.0),
            ("queens", "queens_board", 3.0),
            ("queens", "queens_board", 12.5),
            ("queens", "queens_depth", 0.0),
            ("queens", "queens_depth", 13.0),
            ("sumeuler", "sumeuler_n", 0.0),
            ("sumeuler", "sumeuler_n", 1e300),
            ("sumeuler", "sumeuler_chunk", -4.0),
            ("linsolv", "linsolv_primes", 0.0),
            ("linsolv", "linsolv_n", 1.5),
            ("linsolv", "linsolv_tail", 1.0),
            ("linsolv", "linsolv_tail", -0.1),
            ("linsolv", "linsolv_entry_bytes", 0.0),
            ("linsolv", "linsolv_jitter", 2.0),
            ("raytracer", "raytracer_width", 0.0),
            ("raytracer", "raytracer_height", 1e7),
            ("raytracer", "raytracer_block_rows", 0.0),
            ("raytracer", "raytracer_objects", 0.0),
            ("raytracer", "raytracer_depth", 100.0),
            ("raytracer", "raytracer_samples", 0.0),
            ("raytracer", "raytracer_pareto_shape", -1.0),
            ("raytracer", "raytracer_pareto_shape", 0.001),
            ("raytracer", "raytracer_pareto_ratio", 0.5),
        ];
        for &(program, key, value) in cases {
            for v in [value, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let err = build(program, &with(&[(key, v)]), 1.0, &mut rng(0))
                    .unwrap_err()
                    .to_string();
                assert!(err.contains(&format!("'{key}'")) && err.contains(" to "), "{err}");
            }
        }
    }

    #[test]
    fn combinations_beyond_the_node_or_time_bound_are_refused_quickly() {
        let start = std::time::Instant::now();
        let cases: &[(&str, &[(&str, f64)])] = &[
            ("queens", &[("queens_board", 15.0), ("queens_depth", 15.0)]),
            ("sumeuler", &[("sumeuler_n", 1e9), ("sumeuler_chunk", 1.0)]),
            (
                "raytracer",
                &[
                    ("raytracer_height", 1e6),
                    ("raytracer_samples", 1e5),
                    ("raytracer_width", 1e5),
                ],
            ),
            ("raytracer", &[("raytracer_objects", 1e4), ("raytracer_depth", 16.0)]),
        ];
        for &(program, pairs) in cases {
            let err = build(program, &with(pairs), 1.0, &mut rng(0)).unwrap_err().to_string();
            assert!(!err.is_empty());
        }
        assert!(start.elapsed().as_secs_f64() < 1.0, "{:?}", start.elapsed());
    }
}

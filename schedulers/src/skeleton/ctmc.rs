//! The CTMC underlying a PEPA model: sparse generator, steady state, throughput, utilisation.
//!
//! **Generator.** As in the PEPA Workbench (SCPE paper, Appendix C.1), every transition of
//! the derivation graph from state `i` to state `j ≠ i` at rate `r` adds `r` to `q_ij`;
//! `q_ii = −Σ_{j≠i} q_ij`. Self-loops do not change the state and do not enter `Q` (they still
//! count in throughputs). The generator is stored column-wise (for each state the list of its
//! incoming rates), which is what Gauss–Seidel needs.
//!
//! **Steady state.** `π Q = 0`, `Σ π = 1` (SCPE paper, eqs. C.1–C.2). Two solvers:
//!
//! * [`Method::GaussSeidel`] — the classical iterative method for CTMCs (W. J. Stewart,
//!   *Introduction to the Numerical Solution of Markov Chains*, 1994, §3.2): one sweep sets, in
//!   state order, `π_j ← (Σ_{i≠j} π_i q_ij) / |q_jj|` using the newest values, optionally
//!   over-relaxed (SOR, factor `ω`), then renormalises. It only adds positive terms, so even the
//!   tiny probabilities of states left at rate 10⁹ keep full relative precision.
//!   **Convergence criterion:** stop after the first sweep `k` with
//!   `max_j |π_j^(k) − π_j^(k−1)| / max(π_j^(k), π_j^(k−1)) ≤ tolerance` (default 10⁻¹²), both
//!   vectors normalised; fail with [`CtmcError::NotConverged`] after `max_iterations` sweeps.
//!   The reported [`Solution::residual`] is then computed independently as the largest relative
//!   balance error `max_j |(πQ)_j| / (π_j |q_jj|)`.
//! * [`Method::Gth`] — Grassmann–Taksar–Heyman elimination (Grassmann, Taksar & Heyman,
//!   *Operations Research* 33(5), 1985): a direct, subtraction-free variant of Gaussian
//!   elimination on a dense matrix, accurate to rounding error for every entry; `O(n³)`, so
//!   for small chains and for checking the iterative solver.
//!
//! [`Method::Auto`] uses GTH up to [`SolveOptions::dense_limit`] states and Gauss–Seidel above.
//!
//! **Measures.** The throughput of action `α` is `Σ_s π_s Σ_{s --(α,r)-->} r` (AMoGeT paper
//! §4.5 computes it for `move_1` as `λ_1` times the probability of the states enabling it,
//! which is the same number). The utilisation of a component state is the probability that a
//! given sequential component is in a given local derivative.

use thiserror::Error;

use super::statespace::StateSpace;

/// Errors of the CTMC solvers and measures.
#[derive(Debug, Error, PartialEq)]
pub enum CtmcError {
    /// A state has no outgoing transition.
    #[error("deadlock: state {0} has no outgoing transition")]
    Deadlock(usize),
    /// The model has no state.
    #[error("empty state space")]
    Empty,
    /// GTH found a state that cannot return to the states before it: the chain is reducible.
    #[error("the chain is not irreducible (GTH pivot {0} is zero)")]
    Reducible(usize),
    /// Gauss–Seidel did not meet its criterion in time.
    #[error("Gauss-Seidel did not converge in {iterations} sweeps (last relative change {change:e})")]
    NotConverged {
        /// Sweeps done.
        iterations: usize,
        /// Largest relative change of the last sweep.
        change: f64,
    },
    /// The action does not occur in the model.
    #[error("unknown action {0}")]
    UnknownAction(String),
}

/// Steady-state solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// GTH up to `dense_limit` states, Gauss–Seidel above.
    Auto,
    /// Gauss–Seidel / SOR iteration.
    GaussSeidel,
    /// Dense Grassmann–Taksar–Heyman elimination.
    Gth,
}

/// Options of [`steady_state`].
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions {
    /// Which solver.
    pub method: Method,
    /// Largest relative change of any probability over one sweep at convergence.
    pub tolerance: f64,
    /// Largest number of Gauss–Seidel sweeps.
    pub max_iterations: usize,
    /// SOR relaxation factor `ω` (1 = plain Gauss–Seidel).
    pub relaxation: f64,
    /// Largest chain solved by GTH under [`Method::Auto`].
    pub dense_limit: usize,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            method: Method::Auto,
            tolerance: 1e-12,
            max_iterations: 200_000,
            relaxation: 1.0,
            dense_limit: 400,
        }
    }
}

/// The sparse generator, stored by column.
#[derive(Clone, Debug)]
pub struct Generator {
    /// `col_start[j]..col_start[j+1]` indexes the incoming rates of state `j`.
    col_start: Vec<usize>,
    /// Source state of each incoming rate.
    rows: Vec<u32>,
    /// The rate `q_ij`.
    rates: Vec<f64>,
    /// Exit rate `|q_jj|` of each state.
    pub exit: Vec<f64>,
}

impl Generator {
    /// Builds `Q` from the derivation graph, summing parallel arcs and dropping self-loops.
    pub fn new(ss: &StateSpace) -> Generator {
        let n = ss.n_states();
        let mut exit = vec![0.0; n];
        let mut count = vec![0usize; n + 1];
        for t in ss.transitions.iter().filter(|t| t.from != t.to) {
            exit[t.from as usize] += t.rate;
            count[t.to as usize + 1] += 1;
        }
        for j in 0..n {
            count[j + 1] += count[j];
        }
        let col_start = count.clone();
        let mut fill = count;
        let mut rows = vec![0u32; col_start[n]];
        let mut rates = vec![0.0; col_start[n]];
        for t in ss.transitions.iter().filter(|t| t.from != t.to) {
            let k = fill[t.to as usize];
            rows[k] = t.from;
            rates[k] = t.rate;
            fill[t.to as usize] += 1;
        }
        // Merge parallel arcs: within a column, sources arrive in increasing order.
        let mut g = Generator {
            col_start: vec![0; n + 1],
            rows: Vec::new(),
            rates: Vec::new(),
            exit,
        };
        for j in 0..n {
            let (a, b) = (col_start[j], col_start[j + 1]);
            let mut idx: Vec<usize> = (a..b).collect();
            idx.sort_by_key(|&k| rows[k]);
            for k in idx {
                if g.rows.len() > g.col_start[j] && *g.rows.last().unwrap() == rows[k] {
                    *g.rates.last_mut().unwrap() += rates[k];
                } else {
                    g.rows.push(rows[k]);
                    g.rates.push(rates[k]);
                }
            }
            g.col_start[j + 1] = g.rows.len();
        }
        g
    }

    /// Number of states.
    pub fn n(&self) -> usize {
        self.exit.len()
    }

    /// Number of distinct off-diagonal entries.
    pub fn nnz(&self) -> usize {
        self.rows.len()
    }

    /// Total inflow `Σ_{i≠j} π_i q_ij` into state `j`.
    fn inflow(&self, pi: &[f64], j: usize) -> f64 {
        let (a, b) = (self.col_start[j], self.col_start[j + 1]);
        self.rows[a..b]
            .iter()
            .zip(&self.rates[a..b])
            .map(|(&i, &q)| pi[i as usize] * q)
            .sum()
    }

    /// Largest relative balance error `max_j |(πQ)_j| / (π_j |q_jj|)` (0/0 counts as 0).
    pub fn residual(&self, pi: &[f64]) -> f64 {
        (0..self.n())
            .map(|j| {
                let out = pi[j] * self.exit[j];
                let inn = self.inflow(pi, j);
                let d = (inn - out).abs();
                if d == 0.0 {
                    0.0
                } else {
                    d / out.max(inn)
                }
            })
            .fold(0.0, f64::max)
    }
}

/// A steady-state distribution and how it was obtained.
#[derive(Clone, Debug)]
pub struct Solution {
    /// `π`, indexed like the states of the [`StateSpace`].
    pub probabilities: Vec<f64>,
    /// The solver actually used.
    pub method: Method,
    /// Gauss–Seidel sweeps (0 for GTH).
    pub iterations: usize,
    /// Largest relative balance error of the result.
    pub residual: f64,
}

/// Solves `π Q = 0, Σ π = 1` for the derivation graph `ss`.
pub fn steady_state(ss: &StateSpace, options: &SolveOptions) -> Result<Solution, CtmcError> {
    let g = Generator::new(ss);
    steady_state_of(&g, options)
}

/// Solves `π Q = 0, Σ π = 1` for a generator.
pub fn steady_state_of(g: &Generator, options: &SolveOptions) -> Result<Solution, CtmcError> {
    let n = g.n();
    if n == 0 {
        return Err(CtmcError::Empty);
    }
    if n == 1 {
        return Ok(Solution {
            probabilities: vec![1.0],
            method: Method::Gth,
            iterations: 0,
            residual: 0.0,
        });
    }
    if let Some(j) = g.exit.iter().position(|&e| e <= 0.0) {
        return Err(CtmcError::Deadlock(j));
    }
    let method = match options.method {
        Method::Auto if n <= options.dense_limit => Method::Gth,
        Method::Auto => Method::GaussSeidel,
        m => m,
    };
    let (probabilities, iterations) = match method {
        Method::Gth => (gth(g)?, 0),
        _ => gauss_seidel(g, options)?,
    };
    let residual = g.residual(&probabilities);
    Ok(Solution {
        probabilities,
        method,
        iterations,
        residual,
    })
}

fn normalise(v: &mut [f64]) {
    let s: f64 = v.iter().sum();
    v.iter_mut().for_each(|x| *x /= s);
}

fn gauss_seidel(g: &Generator, o: &SolveOptions) -> Result<(Vec<f64>, usize), CtmcError> {
    let n = g.n();
    let mut pi = vec![1.0 / n as f64; n];
    let mut prev = pi.clone();
    let w = o.relaxation;
    let mut change = f64::INFINITY;
    for sweep in 1..=o.max_iterations {
        for j in 0..n {
            let gs = g.inflow(&pi, j) / g.exit[j];
            pi[j] = if w == 1.0 {
                gs
            } else {
                ((1.0 - w) * pi[j] + w * gs).max(0.0)
            };
        }
        normalise(&mut pi);
        change = pi
            .iter()
            .zip(&prev)
            .map(|(&a, &b)| {
                let m = a.max(b);
                if m == 0.0 {
                    0.0
                } else {
                    (a - b).abs() / m
                }
            })
            .fold(0.0, f64::max);
        if change <= o.tolerance {
            return Ok((pi, sweep));
        }
        prev.copy_from_slice(&pi);
    }
    Err(CtmcError::NotConverged {
        iterations: o.max_iterations,
        change,
    })
}

/// Grassmann–Taksar–Heyman elimination on the dense rate matrix.
fn gth(g: &Generator) -> Result<Vec<f64>, CtmcError> {
    let n = g.n();
    let mut a = vec![0.0; n * n];
    for j in 0..n {
        for k in g.col_start[j]..g.col_start[j + 1] {
            a[g.rows[k] as usize * n + j] = g.rates[k];
        }
    }
    // Eliminate states n-1, ..., 1: censor the chain on {0..k-1}.
    for k in (1..n).rev() {
        let s: f64 = a[k * n..k * n + k].iter().sum();
        if s <= 0.0 {
            return Err(CtmcError::Reducible(k));
        }
        for i in 0..k {
            a[i * n + k] /= s;
        }
        for i in 0..k {
            let aik = a[i * n + k];
            if aik == 0.0 {
                continue;
            }
            for j in 0..k {
                if j != i {
                    a[i * n + j] += aik * a[k * n + j];
                }
            }
        }
    }
    let mut pi = vec![0.0; n];
    pi[0] = 1.0;
    for k in 1..n {
        pi[k] = (0..k).map(|i| pi[i] * a[i * n + k]).sum();
    }
    normalise(&mut pi);
    Ok(pi)
}

/// Throughput of `action`: `Σ_s π_s Σ_{s --(action,r)-->} r`.
pub fn throughput(ss: &StateSpace, pi: &[f64], action: &str) -> Result<f64, CtmcError> {
    let a = ss
        .action_id(action)
        .ok_or_else(|| CtmcError::UnknownAction(action.to_string()))?;
    Ok(ss
        .transitions
        .iter()
        .filter(|t| t.action == a)
        .map(|t| pi[t.from as usize] * t.rate)
        .sum())
}

/// Probability that sequential component `leaf` is in its local derivative `derivative`.
pub fn utilisation(ss: &StateSpace, pi: &[f64], leaf: usize, derivative: u32) -> f64 {
    (0..ss.n_states())
        .filter(|&s| ss.state(s)[leaf] == derivative)
        .map(|s| pi[s])
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::pepa::Model;
    use crate::skeleton::statespace::{derive, DeriveOptions};

    fn space(text: &str) -> StateSpace {
        derive(&Model::parse(text).unwrap(), &DeriveOptions::default()).unwrap()
    }

    #[test]
    fn two_state_chain() {
        // Hand-computed: rates 2 (up) and 3 (down) give pi = (3/5, 2/5); throughput of a = 2*3/5.
        let ss = space("P = (a,2).Q; Q = (b,3).P; P");
        for method in [Method::Gth, Method::GaussSeidel] {
            let sol = steady_state(
                &ss,
                &SolveOptions {
                    method,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!((sol.probabilities[0] - 0.6).abs() < 1e-14, "{method:?}");
            assert!((throughput(&ss, &sol.probabilities, "a").unwrap() - 1.2).abs() < 1e-14);
            assert!((utilisation(&ss, &sol.probabilities, 0, 1) - 0.4).abs() < 1e-14);
        }
    }

    #[test]
    fn tiny_example_throughput() {
        // SCPE paper, Appendix C.2, tiny.pepa: one copy spends 1/2, 1/10, 1/1 in its 3 states;
        // P(P2) = 0.1/1.6, so Trun1 = r2 * P(P2) = 10 * 0.0625 = 0.625 (hand-computed).
        let ss = space("r1=2; r2=10; r3=1; P1=(start,r1).P2; P2=(run,r2).P3; P3=(stop,r3).P1; P1 || P1");
        let sol = steady_state(&ss, &SolveOptions::default()).unwrap();
        let p2 = ss.derivative_id(0, "P2").unwrap();
        assert!((10.0 * utilisation(&ss, &sol.probabilities, 0, p2) - 0.625).abs() < 1e-12);
        // Both copies together run at twice that rate.
        assert!((throughput(&ss, &sol.probabilities, "run").unwrap() - 1.25).abs() < 1e-12);
    }

    #[test]
    fn deadlock_and_unknown_action() {
        let ss = space("P = (a,1).Q; Q = (a,1).Q; P");
        // Q only loops on itself: after leaving P the chain has no exit from Q.
        assert_eq!(
            steady_state(&ss, &SolveOptions::default()).unwrap_err(),
            CtmcError::Deadlock(1)
        );
        let ss = space("P = (a,1).(b,1).P; P");
        let sol = steady_state(&ss, &SolveOptions::default()).unwrap();
        assert_eq!(
            throughput(&ss, &sol.probabilities, "zz").unwrap_err(),
            CtmcError::UnknownAction("zz".into())
        );
    }

    #[test]
    fn parallel_arcs_are_summed() {
        // P = (a,1).Q + (b,2).Q has two arcs P->Q; q_PQ = 3, so pi_P = 4/7 with Q -> P at rate 4.
        let ss = space("P = (a,1).Q + (b,2).Q; Q = (c,4).P; P");
        let g = Generator::new(&ss);
        assert_eq!(g.nnz(), 2);
        assert_eq!(g.exit[0], 3.0);
        let sol = steady_state_of(&g, &SolveOptions::default()).unwrap();
        assert!((sol.probabilities[0] - 4.0 / 7.0).abs() < 1e-14);
    }

    #[test]
    fn not_converged_is_reported() {
        let ss = space("P = (a,1).(b,1).(c,5).P; P || P");
        let o = SolveOptions {
            method: Method::GaussSeidel,
            max_iterations: 1,
            ..Default::default()
        };
        assert!(matches!(
            steady_state(&ss, &o).unwrap_err(),
            CtmcError::NotConverged { iterations: 1, .. }
        ));
    }
}

//! Performance prediction for skeletons executed on remote grid servers (Alt, Bischof &
//! Gorlatch, "Algorithm Design and Performance Prediction in a Java-Based Grid System with
//! Skeletons", §4) — the prediction side: performance functions, the lookup service and the
//! client's server choice.
//!
//! **Remote execution time (eq. 1).** `T = 2·t_s + (n + o + r)·t_w + t_skel(n, p, t_⊕)`, with
//! `t_s` the start-up time of a message, `t_w` the time to transmit one data unit (one list
//! element; the paper measures it per matrix), `n`, `o`, `r` the sizes of the parameters, the
//! operator's bytecode and the result in those units, `p` the server's processors and `t_⊕`
//! the time of one application of the customising operator on the server.
//!
//! **Reduce (eq. 2).** The list is split into `p` sublists reduced in parallel by one thread
//! each, then the `p` partial results are reduced in one thread:
//! `t_red(n, p, t_⊕) = (⌈n/p⌉ − 1)·t_⊕ + (p − 1)·t_⊕`.
//!
//! **Scan and divide-and-conquer.** The paper names these skeletons (§2) but prints no
//! performance function for them. *Interpretation:* the same block-parallel scheme as its
//! reduce, with every count of operator applications exact:
//! * scan: each thread scans its block (`⌈n/p⌉ − 1`), one thread computes the offsets of blocks
//!   `2..p` from the block totals (`p − 2` applications when `p ≥ 2`), then each thread adds
//!   its offset to its block (`⌈n/p⌉` applications; none when `p = 1`):
//!   `t_scan = (2⌈n/p⌉ + p − 3)·t_⊕` for `p ≥ 2`, `(n − 1)·t_⊕` for `p = 1`;
//! * `DC(d, e, c)` on a list of `n` elements split into halves until length 1: the top
//!   `L = ⌊log₂ p⌋` levels run with one sub-problem per thread (one divide and one conquer per
//!   level on the critical path), then each thread solves a sub-list of `m = ⌈n/2^L⌉` elements
//!   sequentially (`m − 1` divides and conquers, `m` base cases):
//!   `t_dc = L·(t_d + t_c) + (m − 1)·(t_d + t_c) + m·t_e`.
//!
//! Like eq. 2, these assume `n ≥ p`.
//!
//! **Lookup service.** Servers register their skeletons, each with its performance function;
//! a client asks for the servers implementing a skeleton and picks the one with the least
//! predicted `T` ([`choose_server`]). Operator times come from the client's measurement
//! scaled by the server's benchmarked speed-up (§4.1, "performance prediction through
//! benchmarking").

/// A data-parallel skeleton.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkeletonKind {
    /// `reduce(⊕)`.
    Reduce,
    /// `scan(⊕)`.
    Scan,
    /// `DC(d, e, c)`.
    DivideAndConquer,
}

fn ceil_div(n: u64, p: u64) -> u64 {
    n.div_ceil(p)
}

fn floor_log2(p: u64) -> u64 {
    u64::from(p.ilog2())
}

/// Eq. 2: `t_red(n, p, t_⊕) = (⌈n/p⌉ − 1)·t_⊕ + (p − 1)·t_⊕`.
///
/// Panics if `n` or `p` is 0.
pub fn t_reduce(n: u64, p: u64, t_op: f64) -> f64 {
    assert!(n >= 1 && p >= 1, "reduce needs n >= 1 and p >= 1");
    ((ceil_div(n, p) - 1) + (p - 1)) as f64 * t_op
}

/// Block-parallel scan (module docs): `(2⌈n/p⌉ + p − 3)·t_⊕` for `p ≥ 2`, `(n − 1)·t_⊕` for
/// `p = 1`. Panics if `n` or `p` is 0.
pub fn t_scan(n: u64, p: u64, t_op: f64) -> f64 {
    assert!(n >= 1 && p >= 1, "scan needs n >= 1 and p >= 1");
    if p == 1 {
        return (n - 1) as f64 * t_op;
    }
    let b = ceil_div(n, p);
    ((b - 1) + (p - 2) + b) as f64 * t_op
}

/// Costs of the customising functions of `DC(d, e, c)`, per application.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcCosts {
    /// Divide a list into two halves.
    pub divide: f64,
    /// Apply `e` to a list of length one.
    pub base: f64,
    /// Combine two partial results.
    pub conquer: f64,
}

/// Divide-and-conquer on `p` threads (module docs). Panics if `n` or `p` is 0.
pub fn t_divide_and_conquer(n: u64, p: u64, c: &DcCosts) -> f64 {
    assert!(n >= 1 && p >= 1, "DC needs n >= 1 and p >= 1");
    let levels = floor_log2(p);
    let m = ceil_div(n, 1 << levels);
    let step = c.divide + c.conquer;
    levels as f64 * step + (m - 1) as f64 * step + m as f64 * c.base
}

/// A performance function registered with a skeleton (eq. 2 and the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PerfFunction {
    /// [`t_reduce`].
    Reduce,
    /// [`t_scan`].
    Scan,
    /// [`t_divide_and_conquer`]; its costs are in units of `t_⊕` (e.g. divide 0.1 means a
    /// tenth of one operator application).
    DivideAndConquer(DcCosts),
}

impl PerfFunction {
    /// `t_skel(n, p, t_⊕)`.
    pub fn time(&self, n: u64, p: u64, t_op: f64) -> f64 {
        match self {
            PerfFunction::Reduce => t_reduce(n, p, t_op),
            PerfFunction::Scan => t_scan(n, p, t_op),
            PerfFunction::DivideAndConquer(c) => t_divide_and_conquer(
                n,
                p,
                &DcCosts {
                    divide: c.divide * t_op,
                    base: c.base * t_op,
                    conquer: c.conquer * t_op,
                },
            ),
        }
    }

    /// The skeleton this function describes.
    pub fn kind(&self) -> SkeletonKind {
        match self {
            PerfFunction::Reduce => SkeletonKind::Reduce,
            PerfFunction::Scan => SkeletonKind::Scan,
            PerfFunction::DivideAndConquer(_) => SkeletonKind::DivideAndConquer,
        }
    }
}

/// A compute server as registered with the lookup service.
#[derive(Clone, Debug, PartialEq)]
pub struct Server {
    /// Name.
    pub name: String,
    /// Message start-up time `t_s` from the client, seconds.
    pub t_s: f64,
    /// Time `t_w` to send one data unit between client and server, seconds.
    pub t_w: f64,
    /// Processors (threads) `p` its skeleton implementations use.
    pub processors: u64,
    /// Client time of an operator divided by server time (benchmarked, §4.1).
    pub speedup: f64,
    /// Registered skeletons with their performance functions.
    pub skeletons: Vec<PerfFunction>,
}

/// The lookup service: the registered servers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LookupService {
    /// Servers in registration order.
    pub servers: Vec<Server>,
}

/// A skeleton invocation as the client describes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Invocation {
    /// Skeleton.
    pub skeleton: SkeletonKind,
    /// Size `n` of the parameters (data units).
    pub n: u64,
    /// Size `o` of the operator's bytecode (data units).
    pub operator_size: f64,
    /// Size `r` of the result (data units).
    pub result_size: f64,
    /// Time of one operator application measured on the client, seconds.
    pub t_op_client: f64,
}

/// The predicted time of an invocation on one server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Index of the server in the lookup service.
    pub server: usize,
    /// `2·t_s + (n + o + r)·t_w`.
    pub communication: f64,
    /// `t_skel(n, p, t_⊕)`.
    pub computation: f64,
    /// Their sum, `T` of eq. 1.
    pub total: f64,
}

impl LookupService {
    /// Registers a server (step 1 of Fig. 1).
    pub fn register(&mut self, server: Server) {
        self.servers.push(server);
    }

    /// Indices of the servers implementing `skeleton` (step 2 of Fig. 1).
    pub fn lookup(&self, skeleton: SkeletonKind) -> Vec<usize> {
        (0..self.servers.len())
            .filter(|&i| self.servers[i].skeletons.iter().any(|f| f.kind() == skeleton))
            .collect()
    }

    /// Eq. 1 for `inv` on server `i`; `None` if it does not implement the skeleton.
    pub fn predict(&self, i: usize, inv: &Invocation) -> Option<Prediction> {
        let s = &self.servers[i];
        let f = s.skeletons.iter().find(|f| f.kind() == inv.skeleton)?;
        let communication = 2.0 * s.t_s + (inv.n as f64 + inv.operator_size + inv.result_size) * s.t_w;
        let computation = f.time(inv.n, s.processors, inv.t_op_client / s.speedup);
        Some(Prediction {
            server: i,
            communication,
            computation,
            total: communication + computation,
        })
    }
}

/// The server minimising `T` (eq. 1) for `inv`, the first registered on ties; `None` when no
/// server implements the skeleton.
pub fn choose_server(lookup: &LookupService, inv: &Invocation) -> Option<Prediction> {
    lookup
        .lookup(inv.skeleton)
        .into_iter()
        .filter_map(|i| lookup.predict(i, inv))
        .fold(None, |best: Option<Prediction>, p| match best {
            Some(b) if b.total <= p.total => Some(b),
            _ => Some(p),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_matches_eq2() {
        // Eq. 2 by hand: n = 1024, p = 4 -> (256 - 1) + 3 = 258 operator applications.
        assert_eq!(t_reduce(1024, 4, 1.0), 258.0);
        // p = 1: a sequential reduction of n elements takes n - 1 applications.
        assert_eq!(t_reduce(10, 1, 2.0), 18.0);
        // n not divisible by p: ceil(10/4) = 3 -> 2 + 3 = 5.
        assert_eq!(t_reduce(10, 4, 1.0), 5.0);
    }

    #[test]
    fn scan_and_dc_counts() {
        // Scan, n = 8, p = 2 (hand count): blocks of 4 scanned in 3 steps, offset of block 2 is
        // the total of block 1 (0 extra steps), 4 additions -> 7.
        assert_eq!(t_scan(8, 2, 1.0), 7.0);
        assert_eq!(t_scan(8, 1, 1.0), 7.0);
        // p = 4, n = 8: 1 + 2 + 2 = 5.
        assert_eq!(t_scan(8, 4, 1.0), 5.0);
        // DC, n = 8, p = 1: 7 divides, 7 conquers, 8 base cases.
        let c = DcCosts {
            divide: 1.0,
            base: 10.0,
            conquer: 100.0,
        };
        assert_eq!(t_divide_and_conquer(8, 1, &c), 7.0 * 101.0 + 80.0);
        // p = 4: 2 parallel levels, then sub-lists of 2: 2*101 + 1*101 + 2*10.
        assert_eq!(t_divide_and_conquer(8, 4, &c), 3.0 * 101.0 + 20.0);
        // p = 3 has one fully parallel level: 1*101, then sub-lists of 4: 3*101 + 4*10.
        assert_eq!(t_divide_and_conquer(8, 3, &c), 4.0 * 101.0 + 40.0);
    }
}

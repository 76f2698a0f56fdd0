//! Trapezoid self-scheduling (Tzen & Ni, IEEE TPDS 4, 1993): chunks decrease linearly from
//! `first` to `last`. With `n = ceil(2N / (first + last))` chunks the decrement is
//! `δ = floor((first − last) / (n − 1))`; chunk `i` is `first − i·δ`, never below `last`, clipped
//! to what remains. Defaults: `first = ceil(N / (2P))`, `last = 1`.

use super::{div_ceil, Assignment, ChunkPolicy, MasterView, Request};
use crate::registry::{Entry, Param, ParamError, PolicyInfo, Values};

/// TSS with optional first/last chunk sizes.
#[derive(Clone, Debug, Default)]
pub struct Tss {
    /// First chunk; default `ceil(N / (2P))`.
    pub first: Option<u64>,
    /// Last chunk; default 1.
    pub last: Option<u64>,
    next: Option<(u64, u64, u64)>, // (next chunk, decrement, last)
}

impl Tss {
    /// TSS with the given first and last chunk sizes (defaults when `None`).
    pub fn new(first: Option<u64>, last: Option<u64>) -> Tss {
        Tss {
            first,
            last,
            next: None,
        }
    }
}

impl ChunkPolicy for Tss {
    fn assign(&mut self, view: &MasterView<'_>, _request: &Request) -> Assignment {
        let (chunk, delta, last) = *self.next.get_or_insert_with(|| {
            let first = self
                .first
                .unwrap_or_else(|| div_ceil(view.total, 2 * view.workers as u64))
                .max(1);
            let last = self.last.unwrap_or(1).clamp(1, first);
            let n = div_ceil(2 * view.total, first + last);
            let delta = if n > 1 { (first - last) / (n - 1) } else { 0 };
            (first, delta, last)
        });
        self.next = Some((chunk.saturating_sub(delta).max(last), delta, last));
        Assignment::tasks(chunk.min(view.remaining))
    }
}

/// The registry entry: `tss`, parameters `first` (default a formula the policy evaluates) and
/// `last`.
pub const ENTRY: Entry<dyn ChunkPolicy> = Entry {
    info: PolicyInfo {
        name: "tss",
        description: "trapezoid self-scheduling: linearly decreasing chunks from first to last",
        params: &[
            Param::integer("first", "first chunk", "ceil(N/(2P))", 1.0).in_unit("tasks"),
            Param::integer("last", "last chunk", "1", 1.0).in_unit("tasks"),
        ],
    },
    build,
};

fn build(v: &Values<'_>) -> Result<Box<dyn ChunkPolicy>, ParamError> {
    Ok(Box::new(Tss::new(v.optional_integer("first")?, v.optional_integer("last")?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::testing::sequence;

    #[test]
    fn published_sequence_n1000_p4() {
        // Issue 3's reference: first = 125, last = 1, n = ceil(2000/126) = 16, δ = floor(124/15) = 8.
        let expected = [125, 117, 109, 101, 93, 85, 77, 69, 61, 53, 45, 37, 28];
        assert_eq!(sequence(&mut Tss::new(None, None), 1000, 4), expected);
    }

    #[test]
    fn never_below_last() {
        let seq = sequence(&mut Tss::new(Some(10), Some(4)), 100, 2);
        assert!(seq.iter().take(seq.len() - 1).all(|&c| c >= 4), "{seq:?}");
        assert_eq!(seq.iter().sum::<u64>(), 100);
    }
}

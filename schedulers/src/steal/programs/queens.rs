//! `queens`: all solutions of the N-queens problem by backtracking, parallel down to a depth
//! (divide and conquer, regular: Al Zain et al., Table 1).
//!
//! **Model.** A search-tree node is a partial placement of `d` queens in the first `d` rows, no
//! two attacking; its children are the safe placements of a queen in row `d`, in increasing
//! column order. The spark tree is the search tree cut at depth `queens_depth`:
//!
//! * a node at depth `< queens_depth` sparks its children; its own work is one search-tree node
//!   (generating the safe children), its combine is concatenating the children's solution lists,
//!   [`CONCAT_COST`] per solution;
//! * a node at depth `queens_depth` (or a dead end above it) is a leaf spark that searches its
//!   whole subtree sequentially: its own work is the number of search-tree nodes in that subtree,
//!   counted by actually running the backtracking (bit-mask search), times [`NODE_COST`].
//!
//! So the program's work is, up to the concatenations, the size of the real backtracking tree,
//! and its irregularity is the real one: subtrees of different first placements differ in size,
//! but in a way fixed by the board (no randomness; `rng` is not used).
//!
//! `result_bytes` = 16 (the list's end) + solutions in the subtree × N × 8 (a list of N column
//! numbers per solution); `graph_bytes` = 64 + 8 (the closure and the queen the spark adds).
//!
//! **Data:** the board prefix. In `pargen` a child's closure is the new queen consed onto its
//! parent's board, so every spark below depth 1 reads its parent's board (a [`Datum`] of
//! 8 × depth bytes produced by the parent's own work, on the parent's PE) — the sharing the
//! GpH program has. Boards are a few words: they always fit in GUM's packet and travel with the
//! spark, so queens threads never block on data, only parents on their children's results
//! (whose lists of solutions may take several packets).
//! The solution count is therefore recoverable from the tree itself ([`solutions`]).
//!
//! **Sources.** Al Zain et al. only name the program ("places chess pieces on a board") and
//! classify it; Loidl et al. (HOSC 16(3), 2003) evaluate matrix multiplication, linSolv and a
//! ray tracer, not queens. The depth-threshold shape is the one of the GpH queens in the nofib
//! suite (`nofib/parallel/queens`, from `nofib/imaginary/queens`, parallelised by S. Marlow):
//! `pargen` sparks, with `parList`, the boards of the next row while the depth is below a
//! threshold, and below it generates the remaining rows sequentially; `parList` itself is from
//! Trinder, Hammond, Loidl & Peyton Jones, "Algorithm + Strategy = Parallelism", JFP 8(1), 1998.
//! That the Grid-GUM runs used this shape is our assumption.
//!
//! **Choices the sources leave open.** A constant cost per search-tree node (the real safety
//! check grows with the number of queens placed, by a factor of at most N, which we ignore);
//! the concatenation cost per solution ([`CONCAT_COST`] node costs); children in increasing
//! column order; the byte sizes above. `queens_board` is limited to 15: N = 16 visits about
//! 1.1e9 search-tree nodes, beyond the ~2 s generation bound, and [`SEARCH_BUDGET`] guards the
//! enumeration in any case.

use crate::registry::{Param, ParamError, Values};
use crate::steal::program::{DataId, Datum, Node, NodeId, Program, MAX_NODES};

/// Packed size of one queen of a board (a list cell holding a column), bytes.
pub const BOARD_ENTRY_BYTES: f64 = 8.0;

/// Cost of one search-tree node (generating its safe children), in the program's relative unit.
pub const NODE_COST: f64 = 1.0;

/// Cost of concatenating one solution into a parent's list, in the same unit: copying one cons
/// cell is much cheaper than testing a row of squares against the placed queens.
pub const CONCAT_COST: f64 = 0.1;

/// Smallest board accepted (smaller boards have no or trivial solutions).
pub const MIN_BOARD: u64 = 4;

/// Largest board accepted: 15 visits 1.7e8 search-tree nodes (about 1.2 s), 16 would visit
/// 1.1e9.
pub const MAX_BOARD: u64 = 15;

/// Most search-tree nodes one generation may visit (N = 15 visits 1.7e8, in about 1.2 s at
/// 7 ns per node): a guard on generation time independent of [`MAX_BOARD`].
pub const SEARCH_BUDGET: u64 = 200_000_000;

/// `queens_board`: N.
pub const BOARD: Param =
    Param::integer("queens_board", "board size N", "12", MIN_BOARD as f64).at_most(MAX_BOARD as f64);

/// `queens_depth`: the cut; at most `queens_board` too, which [`generate`] checks.
pub const DEPTH: Param = Param::integer(
    "queens_depth",
    "rows whose placements spark their children (at most N)",
    "2",
    1.0,
)
.at_most(MAX_BOARD as f64);

/// The program's parameters, for its registry entry.
pub const PARAMS: &[Param] = &[BOARD, DEPTH];

/// The partial placement at a search-tree node, as bit masks over the N columns: occupied
/// columns, and the squares of the current row attacked along either diagonal.
#[derive(Clone, Copy)]
struct Placement {
    cols: u32,
    left: u32,
    right: u32,
}

impl Placement {
    const EMPTY: Placement = Placement {
        cols: 0,
        left: 0,
        right: 0,
    };

    /// Safe columns of the next row, as a mask.
    fn free(self, full: u32) -> u32 {
        !(self.cols | self.left | self.right) & full
    }

    /// The placement after a queen in the column of bit `bit` of the next row.
    fn place(self, bit: u32, full: u32) -> Placement {
        Placement {
            cols: self.cols | bit,
            left: ((self.left | bit) << 1) & full,
            right: (self.right | bit) >> 1,
        }
    }
}

/// The search ran past its budget.
struct OverBudget;

/// Nodes and solutions of the subtree under `at` (depth `depth`), charging every node visited to
/// `budget`. Iterative, with the path's placements and untried columns on a fixed stack: this is
/// the generation's hot loop (1.7e8 nodes for N = 15).
fn search(at: Placement, depth: u32, board: u32, full: u32, budget: &mut u64) -> Result<(u64, u64), OverBudget> {
    let rows_left = (board - depth) as usize;
    let mut nodes: u64 = 1;
    let mut solutions: u64 = 0;
    if rows_left == 0 {
        solutions = 1;
    } else {
        // stack[i]: the placement i rows below `at` and its columns not tried yet.
        let mut stack = [(Placement::EMPTY, 0u32); 32];
        stack[0] = (at, at.free(full));
        let mut top = 0;
        loop {
            let (placement, untried) = stack[top];
            if untried == 0 {
                if top == 0 {
                    break;
                }
                top -= 1;
                continue;
            }
            let bit = untried & untried.wrapping_neg();
            stack[top].1 = untried & (untried - 1);
            nodes += 1;
            if nodes > *budget {
                return Err(OverBudget);
            }
            if top + 1 == rows_left {
                solutions += 1;
            } else {
                let child = placement.place(bit, full);
                top += 1;
                stack[top] = (child, child.free(full));
            }
        }
    }
    if nodes > *budget {
        return Err(OverBudget);
    }
    *budget -= nodes;
    Ok((nodes, solutions))
}

/// Number of search-tree nodes at depth `<= cut`, stopping as soon as it exceeds `limit`.
fn nodes_above(at: Placement, depth: u32, cut: u32, full: u32, limit: u64, count: &mut u64) {
    *count += 1;
    if depth == cut || *count > limit {
        return;
    }
    let mut free = at.free(full);
    while free != 0 && *count <= limit {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        nodes_above(at.place(bit, full), depth + 1, cut, full, limit, count);
    }
}

/// What building the spark tree needs to carry down.
struct Builder {
    board: u32,
    cut: u32,
    full: u32,
    budget: u64,
    nodes: Vec<Node>,
    data: Vec<Datum>,
}

impl Builder {
    /// Appends the spark for `at` (depth `depth`) and, before returning, its whole subtree
    /// (parents precede children); returns its id and the solutions under it.
    /// `prefix`: the parent's board, which the spark reads (none below the root).
    fn spark(&mut self, at: Placement, depth: u32, prefix: Option<DataId>) -> Result<(NodeId, u64), OverBudget> {
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            own_flops: 0.0,
            combine_flops: 0.0,
            children: Vec::new(),
            // The closure and the queen this spark adds; the rest of the board is the prefix.
            graph_bytes: 64.0 + if depth > 0 { BOARD_ENTRY_BYTES } else { 0.0 },
            result_bytes: 0.0,
            reads: prefix.into_iter().collect(),
        });
        let free = at.free(self.full);
        let (own, combine, children, solutions) = if depth == self.cut || depth == self.board || free == 0 {
            // Leaf spark: the whole subtree, searched sequentially.
            let (nodes, solutions) = search(at, depth, self.board, self.full, &mut self.budget)?;
            (nodes as f64 * NODE_COST, 0.0, Vec::new(), solutions)
        } else {
            if self.budget == 0 {
                return Err(OverBudget);
            }
            self.budget -= 1;
            let mut children = Vec::new();
            let mut solutions = 0;
            let mut rest = free;
            // The board this node built, which its children share.
            let board = (depth > 0).then(|| {
                self.data.push(Datum {
                    bytes: BOARD_ENTRY_BYTES * f64::from(depth),
                    producer: id,
                });
                (self.data.len() - 1) as DataId
            });
            while rest != 0 {
                let bit = rest & rest.wrapping_neg();
                rest &= rest - 1;
                let (child, s) = self.spark(at.place(bit, self.full), depth + 1, board)?;
                children.push(child);
                solutions += s;
            }
            (NODE_COST, solutions as f64 * CONCAT_COST, children, solutions)
        };
        let node = &mut self.nodes[id as usize];
        node.own_flops = own;
        node.combine_flops = combine;
        node.children = children;
        node.result_bytes = solutions as f64 * f64::from(self.board) * 8.0 + 16.0;
        Ok((id, solutions))
    }
}

/// The spark tree of `queens_board` / `queens_depth`, in relative units.
pub(super) fn generate(p: &Values) -> Result<Program, ParamError> {
    let board = p.integer(BOARD.name)?;
    let cut = p.integer(DEPTH.name)?;
    if cut > board {
        return Err(ParamError::new(
            DEPTH.name,
            format!(
                "must be an integer from {} to queens_board = {board}, got {cut}",
                DEPTH.min
            ),
        ));
    }
    tree(board as u32, cut as u32, SEARCH_BUDGET)
}

/// Builds the tree once its size is known to fit, with `budget` search-tree nodes at most.
fn tree(board: u32, cut: u32, budget: u64) -> Result<Program, ParamError> {
    let full = (1u32 << board) - 1;
    // Count the sparks first, stopping early, so an oversized tree is refused before allocation.
    let mut sparks = 0;
    nodes_above(Placement::EMPTY, 0, cut, full, MAX_NODES as u64, &mut sparks);
    if sparks > MAX_NODES as u64 {
        return Err(ParamError::new(
            DEPTH.name,
            format!(
                "is refused: queens_board = {board} and queens_depth = {cut} give more than {MAX_NODES} nodes; at \
                 most {MAX_NODES} are simulated (lower queens_depth)"
            ),
        ));
    }
    let mut builder = Builder {
        board,
        cut,
        full,
        budget,
        nodes: Vec::with_capacity(sparks as usize),
        data: Vec::new(),
    };
    builder.spark(Placement::EMPTY, 0, None).map_err(|OverBudget| {
        ParamError::new(
            BOARD.name,
            format!(
                "= {board} is refused: the search visits more than {budget} nodes, beyond the generation-time bound"
            ),
        )
    })?;
    Ok(Program {
        name: "queens".into(),
        nodes: builder.nodes,
        data: builder.data,
    })
}

/// Solutions found by `program`, a `queens` program on a `board` × `board` board, decoded from
/// the result sizes of its leaf sparks (each leaf returns its subtree's solutions).
pub fn solutions(program: &Program, board: u32) -> u64 {
    let per_solution = f64::from(board) * 8.0;
    program
        .nodes
        .iter()
        .filter(|n| n.children.is_empty())
        .map(|n| ((n.result_bytes - 16.0) / per_solution).round() as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn build(board: u32, cut: u32) -> Program {
        tree(board, cut, SEARCH_BUDGET).unwrap()
    }

    #[test]
    fn sparks_below_the_first_row_read_their_parents_board() {
        let program = build(8, 3);
        let mut parent = vec![None; program.nodes.len()];
        let mut depth = vec![0u32; program.nodes.len()];
        for (i, node) in program.nodes.iter().enumerate() {
            for &c in &node.children {
                parent[c as usize] = Some(i);
                depth[c as usize] = depth[i] + 1;
            }
        }
        for (i, node) in program.nodes.iter().enumerate() {
            if depth[i] <= 1 {
                assert!(node.reads.is_empty(), "node {i} at depth {}", depth[i]);
                continue;
            }
            let p = parent[i].unwrap();
            assert_eq!(node.reads.len(), 1, "node {i}");
            let board = &program.data[node.reads[0] as usize];
            assert_eq!(board.producer as usize, p);
            assert_eq!(board.bytes, BOARD_ENTRY_BYTES * f64::from(depth[p]));
        }
        // One board per internal node below the root.
        let internal = (1..program.nodes.len())
            .filter(|&i| !program.nodes[i].children.is_empty())
            .count();
        assert_eq!(program.data.len(), internal);
    }

    #[test]
    fn leaves_find_the_known_number_of_solutions() {
        // Solutions of the N-queens problem: OEIS A000170 (4: 2, 6: 4, 8: 92, 10: 724).
        for (board, expected) in [(4, 2), (6, 4), (8, 92), (10, 724)] {
            for cut in 1..=board {
                let program = build(board, cut);
                assert_eq!(program.validate(), Ok(()));
                assert_eq!(solutions(&program, board), expected, "N = {board}, depth {cut}");
            }
        }
    }

    #[test]
    fn inner_results_are_the_concatenation_of_their_children() {
        let program = build(8, 3);
        let per = 8.0 * 8.0;
        for node in &program.nodes {
            if node.children.is_empty() {
                continue;
            }
            let below: f64 = node
                .children
                .iter()
                .map(|&c| program.nodes[c as usize].result_bytes - 16.0)
                .sum();
            assert_eq!(node.result_bytes - 16.0, below);
            assert_eq!(node.combine_flops, below / per * CONCAT_COST);
            assert_eq!(node.own_flops, NODE_COST);
        }
    }

    #[test]
    fn the_search_work_does_not_depend_on_where_the_tree_is_cut() {
        // Own work counts every search-tree node exactly once, wherever the sparks stop.
        let own = |cut| build(9, cut).nodes.iter().map(|n| n.own_flops).sum::<f64>();
        let whole = own(1);
        for cut in 2..=9 {
            assert_eq!(own(cut), whole);
        }
        // The first row alone: root plus N children, all with depth-1 graphs.
        let p = build(9, 1);
        assert_eq!(p.nodes.len(), 10);
        assert!(p.nodes[1..]
            .iter()
            .all(|n| n.graph_bytes == 72.0 && n.children.is_empty()));
    }

    #[test]
    fn defaults_spark_the_first_two_rows() {
        // Row 0: 12 placements; row 1: 10 safe squares below an edge queen, 9 below the others.
        let p = build(12, 2);
        assert_eq!(p.nodes.len(), 1 + 12 + (2 * 10 + 10 * 9));
        assert_eq!(solutions(&p, 12), 14_200); // OEIS A000170, N = 12
    }

    #[test]
    fn the_budget_bounds_the_search() {
        let err = tree(10, 2, 1000).unwrap_err();
        assert!(err.param == "queens_board" && err.message.contains("1000"), "{err}");
        let err = tree(15, 15, SEARCH_BUDGET).unwrap_err();
        assert!(err.param == "queens_depth" && err.message.contains("at most"), "{err}");
    }

    #[test]
    fn the_depth_is_at_most_the_board() {
        let map = BTreeMap::from([("queens_board".to_string(), 8.0), ("queens_depth".to_string(), 9.0)]);
        let err = generate(&super::super::test_values("queens", &map)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter 'queens_depth' must be an integer from 1 to queens_board = 8, got 9"
        );
    }
}

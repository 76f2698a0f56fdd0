//! Programs as spark trees: what a GpH program looks like to GUM's load management.
//!
//! A GpH program creates potential parallelism with `par`: a *spark* is a pointer to an
//! unevaluated expression, placed in the local spark pool. Here a program is the tree of its
//! sparks (Trinder et al., "GUM: a portable parallel implementation of Haskell", PLDI 1996;
//! Trinder, Hammond, Loidl & Peyton Jones, "Algorithm + Strategy = Parallelism", JFP 1998).
//! Evaluating a node means, in order:
//!
//! 1. its own work (`own_flops`), before any child exists (e.g. splitting the input);
//! 2. sparking its children into the local pool, in order;
//! 3. demanding each child's value, in order: a child still in the local pool is evaluated
//!    inline by the demanding thread (subsumption), one evaluated elsewhere is fetched;
//! 4. combining the values (`combine_flops`), e.g. a sum, a concatenation, Chinese remaindering.
//!
//! Node 0 is the root, evaluated by the main thread on PE 0. Every other node has exactly one
//! parent, which lists it once; parents come before their children in `nodes`.
//!
//! `graph_bytes` is the packed size of the spark's own closure when a SCHEDULE exports it (the
//! code pointer and the free variables that are small values: a prime, a row range, a column);
//! `result_bytes` is the packed size of its value when RESUMEs return it to the demanding PE (a
//! row of pixels, a list of board positions, one integer).
//!
//! # Graph data
//! Larger structures a spark reads are [`Datum`]s of the program (`Program::data`): linSolv's
//! matrix, the raytracer's scene, a queens board prefix. A datum is produced by a node's own work
//! (node 0's: the program's input) and lives in the heap of the PE that ran that node; a spark
//! names the data it reads in `Node::reads`, and reads them, in order, before its own work. GUM's
//! packer (`Pack.c`, `PackNearbyGraph`) ships with an exported spark the data that fit in the
//! packet, and a FETCH_ME placeholder for the rest, which the thread fetches when it touches it
//! (see [`super::runtime`]). A node may only read data produced by one of its ancestors, which
//! exist by the time it is sparked, and data of an ancestor above its parent only if its parent
//! reads them too (a closure's free variables come from its parent's).

/// Index of a node in [`Program::nodes`].
pub type NodeId = u32;

/// Index of a datum in [`Program::data`].
pub type DataId = u32;

/// A structure in the heap that sparks read: its packed size and the node whose own work
/// produces it (0: the program's input, on PE 0 from the start).
#[derive(Clone, Debug, PartialEq)]
pub struct Datum {
    /// Packed size, bytes.
    pub bytes: f64,
    /// The node whose own work builds it; it lives on the PE that ran that node.
    pub producer: NodeId,
}

/// One spark (or the root) of a program.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Work before the children are sparked, flops.
    pub own_flops: f64,
    /// Work after every child's value is available, flops.
    pub combine_flops: f64,
    /// Children, sparked and then demanded in this order.
    pub children: Vec<NodeId>,
    /// Packed size of the unevaluated spark (SCHEDULE payload), bytes.
    pub graph_bytes: f64,
    /// Packed size of the node's value (RESUME payload), bytes.
    pub result_bytes: f64,
    /// Data the node reads before its own work, in order (see the module docs).
    pub reads: Vec<DataId>,
}

/// A program: its spark tree, root first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// Short name (`queens`, `sumeuler`, `linsolv`, `raytracer`, ...).
    pub name: String,
    /// The nodes; node 0 is the root.
    pub nodes: Vec<Node>,
    /// The data the nodes read.
    pub data: Vec<Datum>,
}

/// The largest program a generator may build: bounds memory on any parameter value.
pub const MAX_NODES: usize = 4_000_000;

impl Program {
    /// Total work of the program, flops (what one PE computes when nothing is exported).
    pub fn total_flops(&self) -> f64 {
        self.nodes.iter().map(|n| n.own_flops + n.combine_flops).sum()
    }

    /// Number of sparks (every node but the root).
    pub fn sparks(&self) -> usize {
        self.nodes.len().saturating_sub(1)
    }

    /// Checks the tree: a root, children after their parent, one parent each, finite
    /// non-negative amounts, at most [`MAX_NODES`] nodes.
    pub fn validate(&self) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err(format!("program '{}' has no node", self.name));
        }
        if self.nodes.len() > MAX_NODES {
            return Err(format!(
                "program '{}' has {} nodes; at most {MAX_NODES} are simulated",
                self.name,
                self.nodes.len()
            ));
        }
        let mut has_parent = vec![false; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            for (what, x) in [
                ("own_flops", node.own_flops),
                ("combine_flops", node.combine_flops),
                ("graph_bytes", node.graph_bytes),
                ("result_bytes", node.result_bytes),
            ] {
                if !(x.is_finite() && x >= 0.0) {
                    return Err(format!("program '{}': node {i}: {what} is {x}", self.name));
                }
            }
            for &c in &node.children {
                let c = c as usize;
                if c <= i || c >= self.nodes.len() {
                    return Err(format!("program '{}': node {i} has child {c} out of order", self.name));
                }
                if std::mem::replace(&mut has_parent[c], true) {
                    return Err(format!("program '{}': node {c} has two parents", self.name));
                }
            }
        }
        if let Some(orphan) = has_parent.iter().skip(1).position(|p| !p) {
            return Err(format!("program '{}': node {} has no parent", self.name, orphan + 1));
        }
        for (d, datum) in self.data.iter().enumerate() {
            if !(datum.bytes.is_finite() && datum.bytes >= 0.0) {
                return Err(format!("program '{}': datum {d}: bytes is {}", self.name, datum.bytes));
            }
            if datum.producer as usize >= self.nodes.len() {
                return Err(format!(
                    "program '{}': datum {d} is produced by node {}, which does not exist",
                    self.name, datum.producer
                ));
            }
        }
        let mut parent = vec![0 as NodeId; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            for &c in &node.children {
                parent[c as usize] = i as NodeId;
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            for &d in &node.reads {
                let Some(datum) = self.data.get(d as usize) else {
                    return Err(format!(
                        "program '{}': node {i} reads datum {d}, which does not exist",
                        self.name
                    ));
                };
                // The producer must be a proper ancestor: its own work is done before the
                // reader is sparked.
                let mut a = i;
                let found = loop {
                    if a == 0 {
                        break false;
                    }
                    a = parent[a] as usize;
                    if a == datum.producer as usize {
                        break true;
                    }
                };
                if !found {
                    return Err(format!(
                        "program '{}': node {i} reads datum {d} of node {}, which is not its ancestor",
                        self.name, datum.producer
                    ));
                }
                // A spark's closure is built from its parent's free variables: data of a
                // further ancestor reach it through its parent, which reads them too.
                let p = parent[i] as usize;
                if p != datum.producer as usize && !self.nodes[p].reads.contains(&d) {
                    return Err(format!(
                        "program '{}': node {i} reads datum {d} of node {}, which its parent {p} does not read",
                        self.name, datum.producer
                    ));
                }
            }
        }
        Ok(())
    }

    /// Multiplies every node's work by `factor` (generators build a shape, then scale it so the
    /// sequential run takes the time they were asked for).
    pub fn scale_work(&mut self, factor: f64) {
        for n in &mut self.nodes {
            n.own_flops *= factor;
            n.combine_flops *= factor;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(flops: f64) -> Node {
        Node {
            own_flops: flops,
            combine_flops: 0.0,
            children: vec![],
            graph_bytes: 100.0,
            result_bytes: 8.0,
            reads: vec![],
        }
    }

    #[test]
    fn validate_accepts_a_tree_and_refuses_shared_children_and_orphans() {
        let mut root = leaf(1.0);
        root.children = vec![1, 2];
        let good = Program {
            name: "t".into(),
            nodes: vec![root.clone(), leaf(2.0), leaf(3.0)],
            data: vec![Datum {
                bytes: 4096.0,
                producer: 0,
            }],
        };
        assert_eq!(good.validate(), Ok(()));
        assert_eq!(good.total_flops(), 6.0);
        assert_eq!(good.sparks(), 2);
        let mut twice = good.clone();
        twice.nodes[1].children = vec![2];
        assert!(twice.validate().unwrap_err().contains("two parents"));
        let mut orphan = good.clone();
        orphan.nodes.push(leaf(1.0));
        assert!(orphan.validate().unwrap_err().contains("node 3 has no parent"));
        let mut reads = good.clone();
        reads.nodes[2].reads = vec![0];
        assert_eq!(reads.validate(), Ok(()));
        // Data of a sibling, of the node itself or that does not exist is refused.
        let mut sibling = reads.clone();
        sibling.data[0].producer = 1;
        assert!(sibling.validate().unwrap_err().contains("not its ancestor"));
        let mut own = reads.clone();
        own.data[0].producer = 2;
        assert!(own.validate().unwrap_err().contains("not its ancestor"));
        let mut deep = reads.clone();
        deep.nodes.push(leaf(1.0));
        deep.nodes[2].children = vec![3];
        deep.nodes[3].reads = vec![0];
        assert_eq!(deep.validate(), Ok(()));
        deep.nodes[2].reads = vec![];
        assert!(deep.validate().unwrap_err().contains("parent 2 does not read"));
        let mut missing = reads;
        missing.nodes[1].reads = vec![5];
        assert!(missing.validate().unwrap_err().contains("does not exist"));
        let mut bad = good;
        bad.nodes[2].own_flops = f64::NAN;
        assert!(bad.validate().unwrap_err().contains("own_flops"));
    }
}

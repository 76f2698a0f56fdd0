//! Mappings of pipeline stages and Deal workers to processors; candidate enumeration and
//! ranking.
//!
//! A mapping is written as in the AMoGeT paper §4.2: `[input, tuple, output]`, where `input`
//! is the processor holding the initial data, `output` the processor receiving the results,
//! and `tuple` gives for each stage its processor, or, for a stage implemented as a Deal, the
//! bracketed tuple of its workers' processors: `[1, (1, (2, 4, 5), 3), 1]`. The text notation
//! numbers processors from 1 (processor 1 is the reference processor); [`Mapping`] stores
//! 0-based indices.
//!
//! **Enumeration** ([`enumerate_mappings`]) answers "all mappings up to processor relabelling"
//! for a given stage shape (number of workers per stage, 0 meaning a plain stage). Two
//! processors are *interchangeable* when swapping them changes nothing the model sees (same
//! per-processor features, same latency/link values to every other processor and between each
//! other) and neither holds the input or the output data. Interchangeability is an equivalence
//! relation, and relabelling within its classes does not change any rate, so only one mapping
//! per orbit is generated: within each class, processors are used in increasing order of first
//! appearance (stages in order, workers in order) — a restricted-growth enumeration. Other
//! symmetries of a platform are not detected; they can only leave equivalent duplicates, never
//! lose a mapping.
//!
//! **Ranking** ([`rank`]) sorts solved mappings by decreasing throughput; throughputs within a
//! relative `tie_tolerance` of each other are ties, kept in candidate order (the SCPE paper's
//! Table 5.1 lists the first of tied mappings, e.g. `(1,2,3)` before the identical `(1,3,2)`).
//! Evaluation of one mapping is a pure function ([`super::amoget::evaluate`],
//! [`super::scpe::evaluate`]) so callers can run the candidates in parallel.

use std::fmt;

use thiserror::Error;

/// Placement of one pipeline stage.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StageMapping {
    /// A plain (sequential) stage on one processor (0-based).
    Single(usize),
    /// A Deal: one processor (0-based) per worker, in the order inputs are dealt.
    Deal(Vec<usize>),
}

impl StageMapping {
    /// The processors of the stage's workers.
    pub fn workers(&self) -> &[usize] {
        match self {
            StageMapping::Single(p) => std::slice::from_ref(p),
            StageMapping::Deal(w) => w,
        }
    }

    /// Whether the stage is a Deal.
    pub fn is_deal(&self) -> bool {
        matches!(self, StageMapping::Deal(_))
    }
}

/// A mapping `[input, tuple, output]` (0-based processor indices).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mapping {
    /// Processor holding the input data.
    pub input: usize,
    /// One placement per stage.
    pub stages: Vec<StageMapping>,
    /// Processor receiving the output data.
    pub output: usize,
}

/// Error of [`Mapping::parse`].
#[derive(Debug, Error, PartialEq)]
#[error("bad mapping {text:?}: {message}")]
pub struct MappingParseError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub message: String,
}

impl Mapping {
    /// A pipeline without Deal from 0-based processors.
    pub fn pipeline(input: usize, stages: &[usize], output: usize) -> Mapping {
        Mapping {
            input,
            stages: stages.iter().map(|&p| StageMapping::Single(p)).collect(),
            output,
        }
    }

    /// Number of workers hosted by each of `n_processors` processors (`nb_j` of the AMoGeT
    /// paper §4.4, `nbst_j` of the SCPE paper §4.3); a plain stage counts as one worker.
    pub fn workers_per_processor(&self, n_processors: usize) -> Vec<usize> {
        let mut nb = vec![0; n_processors];
        for s in &self.stages {
            for &p in s.workers() {
                nb[p] += 1;
            }
        }
        nb
    }

    /// The largest processor index used, plus one.
    pub fn processors_needed(&self) -> usize {
        let m = self
            .stages
            .iter()
            .flat_map(|s| s.workers().iter().copied())
            .max()
            .unwrap_or(0);
        m.max(self.input).max(self.output) + 1
    }

    /// Parses the paper's notation with 1-based processors, e.g. `[1, (1, (2, 4), 3), 1]`.
    /// The bare tuple `(1, 2, 3)` is accepted too, with input = processor of the first stage's
    /// first worker and output = processor of the last stage's first worker.
    pub fn parse(text: &str) -> Result<Mapping, MappingParseError> {
        let err = |m: &str| MappingParseError {
            text: text.to_string(),
            message: m.to_string(),
        };
        let toks: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut pos = 0;
        fn number(toks: &[char], pos: &mut usize) -> Option<usize> {
            let start = *pos;
            while *pos < toks.len() && toks[*pos].is_ascii_digit() {
                *pos += 1;
            }
            toks[start..*pos]
                .iter()
                .collect::<String>()
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .map(|n| n - 1)
        }
        let tuple = |pos: &mut usize| -> Result<Vec<StageMapping>, MappingParseError> {
            if toks.get(*pos) != Some(&'(') {
                return Err(err("expected '('"));
            }
            *pos += 1;
            let mut stages = Vec::new();
            loop {
                if toks.get(*pos) == Some(&'(') {
                    *pos += 1;
                    let mut workers = Vec::new();
                    loop {
                        workers.push(number(&toks, pos).ok_or_else(|| err("expected a processor number >= 1"))?);
                        match toks.get(*pos) {
                            Some(',') => *pos += 1,
                            Some(')') => {
                                *pos += 1;
                                break;
                            }
                            _ => return Err(err("expected ',' or ')' in a worker tuple")),
                        }
                    }
                    stages.push(StageMapping::Deal(workers));
                } else {
                    stages.push(StageMapping::Single(
                        number(&toks, pos).ok_or_else(|| err("expected a processor number >= 1"))?,
                    ));
                }
                match toks.get(*pos) {
                    Some(',') => *pos += 1,
                    Some(')') => {
                        *pos += 1;
                        return Ok(stages);
                    }
                    _ => return Err(err("expected ',' or ')'")),
                }
            }
        };
        let m = if toks.first() == Some(&'[') {
            pos += 1;
            let input = number(&toks, &mut pos).ok_or_else(|| err("expected the input processor"))?;
            if toks.get(pos) != Some(&',') {
                return Err(err("expected ','"));
            }
            pos += 1;
            let stages = tuple(&mut pos)?;
            if toks.get(pos) != Some(&',') {
                return Err(err("expected ','"));
            }
            pos += 1;
            let output = number(&toks, &mut pos).ok_or_else(|| err("expected the output processor"))?;
            if toks.get(pos) != Some(&']') {
                return Err(err("expected ']'"));
            }
            pos += 1;
            Mapping { input, stages, output }
        } else {
            let stages = tuple(&mut pos)?;
            let input = stages[0].workers()[0];
            let output = stages[stages.len() - 1].workers()[0];
            Mapping { input, stages, output }
        };
        if pos != toks.len() {
            return Err(err("unexpected text at the end"));
        }
        Ok(m)
    }

    /// The stage tuple alone in the paper's notation, e.g. `(1,1,2,2)`.
    pub fn tuple_string(&self) -> String {
        let parts: Vec<String> = self
            .stages
            .iter()
            .map(|s| match s {
                StageMapping::Single(p) => (p + 1).to_string(),
                StageMapping::Deal(w) => {
                    format!(
                        "({})",
                        w.iter().map(|p| (p + 1).to_string()).collect::<Vec<_>>().join(",")
                    )
                }
            })
            .collect();
        format!("({})", parts.join(","))
    }
}

impl fmt::Display for Mapping {
    /// The paper's notation with 1-based processors: `[1, (1,(2,4),3), 1]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}, {}]", self.input + 1, self.tuple_string(), self.output + 1)
    }
}

/// What the enumeration needs to know about a platform: per-processor features and the
/// pairwise link values (latency or link performance).
#[derive(Clone, Debug)]
pub struct PlatformShape {
    /// Features of each processor (e.g. cpu and availability); equal vectors are required for
    /// two processors to be interchangeable.
    pub features: Vec<Vec<f64>>,
    /// `link[i][j]`, e.g. latency from `i` to `j`.
    pub link: Vec<Vec<f64>>,
}

impl PlatformShape {
    fn swappable(&self, a: usize, b: usize) -> bool {
        let n = self.features.len();
        self.features[a] == self.features[b]
            && self.link[a][b] == self.link[b][a]
            && self.link[a][a] == self.link[b][b]
            && (0..n)
                .filter(|&k| k != a && k != b)
                .all(|k| self.link[a][k] == self.link[b][k] && self.link[k][a] == self.link[k][b])
    }

    /// Classes of interchangeable processors (see the module docs); `fixed` processors (input
    /// and output holders) are singletons. Class id per processor, numbered in order.
    pub fn interchangeable_classes(&self, fixed: &[usize]) -> Vec<usize> {
        let n = self.features.len();
        let mut class = vec![usize::MAX; n];
        let mut next = 0;
        for a in 0..n {
            if class[a] != usize::MAX {
                continue;
            }
            class[a] = next;
            if !fixed.contains(&a) {
                let twins: Vec<usize> = (a + 1..n)
                    .filter(|&b| class[b] == usize::MAX && !fixed.contains(&b) && self.swappable(a, b))
                    .collect();
                for b in twins {
                    class[b] = next;
                }
            }
            next += 1;
        }
        class
    }
}

/// Error of [`enumerate_mappings`].
#[derive(Debug, Error, PartialEq)]
#[error("more than {0} candidate mappings")]
pub struct TooManyMappings(pub usize);

/// All mappings of a stage shape up to relabelling of interchangeable processors.
///
/// `shape[s]` is 0 for a plain stage and `k ≥ 1` for a Deal with `k` workers; `input` and
/// `output` are 0-based processors. Fails when more than `limit` mappings would be produced.
pub fn enumerate_mappings(
    platform: &PlatformShape,
    shape: &[usize],
    input: usize,
    output: usize,
    limit: usize,
) -> Result<Vec<Mapping>, TooManyMappings> {
    let n = platform.features.len();
    let class = platform.interchangeable_classes(&[input, output]);
    let slots: usize = shape.iter().map(|&k| k.max(1)).sum();
    let mut out = Vec::new();
    let mut assign = Vec::with_capacity(slots);
    fn rec(
        n: usize,
        class: &[usize],
        slots: usize,
        assign: &mut Vec<usize>,
        emit: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if assign.len() == slots {
            return emit(assign);
        }
        for p in 0..n {
            // Within a class, only the already-used members and the first unused one.
            let lower_unused = (0..p).any(|q| class[q] == class[p] && !assign.contains(&q));
            if lower_unused {
                continue;
            }
            assign.push(p);
            let go_on = rec(n, class, slots, assign, emit);
            assign.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
    let mut overflow = false;
    let mut emit = |a: &[usize]| {
        if out.len() >= limit {
            overflow = true;
            return false;
        }
        let mut k = 0;
        let stages = shape
            .iter()
            .map(|&w| {
                if w == 0 {
                    k += 1;
                    StageMapping::Single(a[k - 1])
                } else {
                    k += w;
                    StageMapping::Deal(a[k - w..k].to_vec())
                }
            })
            .collect();
        out.push(Mapping { input, stages, output });
        true
    };
    rec(n, &class, slots, &mut assign, &mut emit);
    if overflow {
        return Err(TooManyMappings(limit));
    }
    Ok(out)
}

/// A solved candidate mapping.
#[derive(Clone, Debug, PartialEq)]
pub struct MappingEvaluation {
    /// The mapping.
    pub mapping: Mapping,
    /// Reachable states of its model.
    pub states: usize,
    /// Transitions of its derivation graph.
    pub transitions: usize,
    /// Throughput of the pipeline (outputs per second).
    pub throughput: f64,
}

/// Indices of `results` from best (highest throughput) to worst. Throughputs within a relative
/// `tie_tolerance` of the best of their tie group keep the candidates' order.
pub fn rank(results: &[MappingEvaluation], tie_tolerance: f64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..results.len()).collect();
    idx.sort_by(|&a, &b| results[b].throughput.total_cmp(&results[a].throughput).then(a.cmp(&b)));
    // Re-order tie groups by candidate index.
    let mut out = Vec::with_capacity(idx.len());
    let mut i = 0;
    while i < idx.len() {
        let head = results[idx[i]].throughput;
        let mut j = i + 1;
        while j < idx.len() && head - results[idx[j]].throughput <= tie_tolerance * head.abs() {
            j += 1;
        }
        let mut group = idx[i..j].to_vec();
        group.sort_unstable();
        out.extend(group);
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_papers_examples() {
        // AMoGeT paper §4.2: "mappings = [1, (1, 2, 3), 3], [1, (1, 2, (1, 2)), 2];"
        let a = Mapping::parse("[1, (1, 2, 3), 3]").unwrap();
        assert_eq!(a, Mapping::pipeline(0, &[0, 1, 2], 2));
        let b = Mapping::parse("[1, (1, 2, (1, 2)), 2]").unwrap();
        assert_eq!(b.stages[2], StageMapping::Deal(vec![0, 1]));
        assert_eq!(b.output, 1);
        assert_eq!(b.to_string(), "[1, (1,2,(1,2)), 2]");
        assert_eq!(Mapping::parse(&b.to_string()).unwrap(), b);
        // The bare tuple of the SCPE paper's Table 5.1.
        assert_eq!(Mapping::parse("(1,3,3)").unwrap(), Mapping::pipeline(0, &[0, 2, 2], 2));
        assert!(Mapping::parse("[0, (1), 1]").is_err());
        assert!(Mapping::parse("[1, (1,2), 1").is_err());
    }

    #[test]
    fn workers_per_processor_counts_deal_workers() {
        // AMoGeT §3.2 example: Stage 1 a Deal on processors 1 and 2, stage 2 on processor 1.
        let m = Mapping::parse("[1, ((1,2),1), 1]").unwrap();
        assert_eq!(m.workers_per_processor(2), vec![2, 1]);
    }

    fn homogeneous(n: usize) -> PlatformShape {
        PlatformShape {
            features: vec![vec![1.0]; n],
            link: (0..n)
                .map(|i| (0..n).map(|j| if i == j { 0.0 } else { 1.0 }).collect())
                .collect(),
        }
    }

    #[test]
    fn enumeration_up_to_relabelling() {
        // Hand-enumerated: 3 identical processors, data on P1, 2 plain stages. P1 is fixed,
        // {P2, P3} interchangeable: (1,1) (1,2) (2,1) (2,2) (2,3).
        let maps = enumerate_mappings(&homogeneous(3), &[0, 0], 0, 0, 100).unwrap();
        let tuples: Vec<String> = maps.iter().map(Mapping::tuple_string).collect();
        assert_eq!(tuples, vec!["(1,1)", "(1,2)", "(2,1)", "(2,2)", "(2,3)"]);
        // A distinct P3 (different latency to P1) breaks the symmetry: all 3^2 = 9 mappings.
        let mut p = homogeneous(3);
        p.link[0][2] = 5.0;
        p.link[2][0] = 5.0;
        assert_eq!(enumerate_mappings(&p, &[0, 0], 0, 0, 100).unwrap().len(), 9);
        // Deal workers are enumerated too: one Deal of 2 workers on 2 identical free processors
        // plus P1: first worker in {1, 2}; second in {1, 2} or {1, 2, 3} -> 5.
        let maps = enumerate_mappings(&homogeneous(3), &[2], 0, 0, 100).unwrap();
        assert_eq!(maps.len(), 5);
        assert!(maps.iter().all(|m| m.stages[0].is_deal()));
        assert_eq!(
            enumerate_mappings(&homogeneous(3), &[0, 0], 0, 0, 4).unwrap_err(),
            TooManyMappings(4)
        );
    }

    #[test]
    fn ranking_keeps_candidate_order_for_ties() {
        let e = |t: f64| MappingEvaluation {
            mapping: Mapping::pipeline(0, &[0], 0),
            states: 1,
            transitions: 1,
            throughput: t,
        };
        let r = rank(&[e(1.0), e(3.0), e(2.0), e(3.0 * (1.0 + 1e-13))], 1e-9);
        assert_eq!(r, vec![1, 3, 2, 0]);
        let r = rank(&[e(1.0), e(3.0), e(2.0), e(3.0 * (1.0 + 1e-13))], 0.0);
        assert_eq!(r, vec![3, 1, 2, 0]);
    }
}

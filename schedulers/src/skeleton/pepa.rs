//! PEPA syntax tree, PEPA text export and a parser for the same text.
//!
//! PEPA (Hillston, *A Compositional Approach to Performance Modelling*, 1996) is the process
//! algebra both skeleton papers use (AMoGeT paper §3.1; SCPE pipeline paper §2.2 and
//! Appendix A). This module holds only the syntax: the combinators the skeleton models use —
//! prefix `(α, r).P`, choice `P + Q`, constants `A = P`, cooperation `P <L> Q` (with `P || Q`
//! for an empty `L`) — plus hiding `P/{L}` for completeness. The semantics live in
//! [`super::statespace`].
//!
//! Rates are either active (a literal or a named parameter) or passive, `w·⊤`, written
//! `infty` (weight 1) or `w*infty` in the text format of the PEPA Workbench (SCPE paper,
//! Fig. B.1).
//!
//! The text produced by [`Model::to_pepa`] follows the PEPA Workbench input language of the
//! SCPE paper's Fig. B.1: rate definitions `name = value;`, process definitions
//! `Name = (action, rate).Next + ...;`, and a final system equation. Numbers are printed in
//! plain decimal notation (never with an exponent) so that every PEPA tool can read them.
//! [`Model::parse`] reads that language back (including `//` and `/* */` comments and rate
//! expressions built with `*` and `/`), so exported models round-trip.

use std::collections::HashMap;
use std::fmt::{self, Write as _};

use thiserror::Error;

/// The rate of an activity as written in a model.
#[derive(Clone, Debug, PartialEq)]
pub enum RateSpec {
    /// An active rate given as a literal (per second in the skeleton models).
    Value(f64),
    /// An active rate given by the name of a parameter of [`Model::params`].
    Param(String),
    /// A passive rate `w·⊤`: the activity takes the rate of its cooperation partner,
    /// weighted by `w` against the other passive activities of the same type.
    Passive(f64),
}

/// A PEPA term.
#[derive(Clone, Debug, PartialEq)]
pub enum Process {
    /// `(action, rate).then`
    Prefix {
        /// Action type.
        action: String,
        /// Rate of the activity.
        rate: RateSpec,
        /// Behaviour after the activity.
        then: Box<Process>,
    },
    /// `left + right`
    Choice(Box<Process>, Box<Process>),
    /// A constant, defined in [`Model::definitions`].
    Constant(String),
    /// `left <actions> right`; `left || right` when `actions` is empty.
    Cooperation {
        /// Left co-operand.
        left: Box<Process>,
        /// Cooperation set.
        actions: Vec<String>,
        /// Right co-operand.
        right: Box<Process>,
    },
    /// `process/{actions}`: the listed actions become the silent type `tau`.
    Hiding {
        /// Hidden component.
        process: Box<Process>,
        /// Hidden action types.
        actions: Vec<String>,
    },
}

impl Process {
    /// A constant reference.
    pub fn constant(name: impl Into<String>) -> Process {
        Process::Constant(name.into())
    }

    /// `(action, rate).then`.
    pub fn prefix(action: impl Into<String>, rate: RateSpec, then: Process) -> Process {
        Process::Prefix {
            action: action.into(),
            rate,
            then: Box::new(then),
        }
    }

    /// A sequence of activities ending in `end`: `(a1, r1).(a2, r2)...end`.
    pub fn sequence(activities: Vec<(String, RateSpec)>, end: Process) -> Process {
        activities
            .into_iter()
            .rev()
            .fold(end, |acc, (a, r)| Process::prefix(a, r, acc))
    }

    /// The choice of all the given terms, associated to the left. `None` when empty.
    pub fn choice_of(terms: Vec<Process>) -> Option<Process> {
        terms
            .into_iter()
            .reduce(|acc, t| Process::Choice(Box::new(acc), Box::new(t)))
    }

    /// `left <actions> right`.
    pub fn coop(left: Process, actions: Vec<String>, right: Process) -> Process {
        Process::Cooperation {
            left: Box::new(left),
            actions,
            right: Box::new(right),
        }
    }

    /// The parallel composition (empty cooperation set) of all the given terms, associated to
    /// the left. `None` when empty.
    pub fn parallel_of(terms: Vec<Process>) -> Option<Process> {
        terms.into_iter().reduce(|acc, t| Process::coop(acc, Vec::new(), t))
    }
}

/// A PEPA model: rate parameters, constant definitions and the system equation.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Named rate parameters, in declaration order.
    pub params: Vec<(String, f64)>,
    /// Constant definitions `Name = term`, in declaration order.
    pub definitions: Vec<(String, Process)>,
    /// The system equation.
    pub system: Process,
}

/// Errors of [`Model::parse`].
#[derive(Debug, Error, PartialEq)]
pub enum ParseError {
    /// The text does not follow the grammar.
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What was expected.
        message: String,
    },
}

/// Formats an `f64` in plain decimal notation (Rust's `Display` never uses an exponent and
/// prints the shortest string that reads back to the same value).
fn number(x: f64) -> String {
    format!("{x}")
}

impl fmt::Display for RateSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateSpec::Value(v) => f.write_str(&number(*v)),
            RateSpec::Param(p) => f.write_str(p),
            RateSpec::Passive(w) if *w == 1.0 => f.write_str("infty"),
            RateSpec::Passive(w) => write!(f, "{}*infty", number(*w)),
        }
    }
}

fn action_set(actions: &[String]) -> String {
    actions.join(",")
}

impl Process {
    fn write(&self, out: &mut String, ctx: Ctx) {
        match self {
            Process::Prefix { action, rate, then } => {
                let _ = write!(out, "({action}, {rate}).");
                then.write(out, Ctx::PrefixBody);
            }
            Process::Choice(l, r) => {
                let paren = ctx == Ctx::PrefixBody || ctx == Ctx::Operand;
                if paren {
                    out.push('(');
                }
                l.write(out, Ctx::ChoiceArm);
                out.push_str(" + ");
                r.write(out, Ctx::ChoiceArm);
                if paren {
                    out.push(')');
                }
            }
            Process::Constant(name) => out.push_str(name),
            Process::Cooperation { left, actions, right } => {
                let paren = ctx != Ctx::Top;
                if paren {
                    out.push('(');
                }
                left.write(out, Ctx::Operand);
                if actions.is_empty() {
                    out.push_str(" || ");
                } else {
                    let _ = write!(out, " <{}> ", action_set(actions));
                }
                right.write(out, Ctx::Operand);
                if paren {
                    out.push(')');
                }
            }
            Process::Hiding { process, actions } => {
                process.write(out, Ctx::Operand);
                let _ = write!(out, "/{{{}}}", action_set(actions));
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Top,
    PrefixBody,
    ChoiceArm,
    Operand,
}

impl fmt::Display for Process {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write(&mut s, Ctx::Top);
        f.write_str(&s)
    }
}

impl Model {
    /// The value of a named rate parameter.
    pub fn param(&self, name: &str) -> Option<f64> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// The model as PEPA Workbench input text (SCPE paper, Fig. B.1 layout). `header` lines are
    /// written first as `//` comments.
    pub fn to_pepa_with_header(&self, header: &[String]) -> String {
        let mut out = String::new();
        for line in header {
            let _ = writeln!(out, "// {line}");
        }
        if !self.params.is_empty() {
            out.push_str("\n// Rates (per second)\n");
            for (name, value) in &self.params {
                let _ = writeln!(out, "{name} = {};", number(*value));
            }
        }
        out.push_str("\n// Sequential components\n");
        for (name, def) in &self.definitions {
            let mut body = String::new();
            def.write(&mut body, Ctx::Top);
            let _ = writeln!(out, "{name} = {body};");
        }
        out.push_str("\n// System equation\n");
        let _ = writeln!(out, "{}", self.system);
        out
    }

    /// The model as PEPA Workbench input text.
    pub fn to_pepa(&self) -> String {
        self.to_pepa_with_header(&[])
    }

    /// Parses PEPA text: `rate = expr;` and `Name = term;` statements followed by the system
    /// equation (optionally ending in `;`). Rate names start with a lower-case letter, process
    /// names with an upper-case letter. `infty` and `T` denote the passive rate.
    pub fn parse(text: &str) -> Result<Model, ParseError> {
        let tokens = lex(text)?;
        let mut p = Parser {
            tokens,
            pos: 0,
            params: HashMap::new(),
        };
        p.model()
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(f64),
    Sym(&'static str),
}

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut line = 1;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") || text[i..].starts_with('%') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..].find("*/").ok_or(ParseError::Syntax {
                line,
                message: "unterminated comment".into(),
            })?;
            line += text[i..i + 2 + end].matches('\n').count();
            i += end + 4;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_string()), line));
        } else if c.is_ascii_digit() || (c == '.' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit()) {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                let mut j = i + 1;
                if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j].is_ascii_digit() {
                    i = j;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let v: f64 = text[start..i].parse().map_err(|_| ParseError::Syntax {
                line,
                message: format!("bad number {}", &text[start..i]),
            })?;
            out.push((Tok::Num(v), line));
        } else {
            let sym: &'static str = if text[i..].starts_with("||") {
                "||"
            } else {
                match c {
                    '(' => "(",
                    ')' => ")",
                    '<' => "<",
                    '>' => ">",
                    '{' => "{",
                    '}' => "}",
                    ',' => ",",
                    '.' => ".",
                    '+' => "+",
                    '*' => "*",
                    '/' => "/",
                    '=' => "=",
                    ';' => ";",
                    _ => {
                        return Err(ParseError::Syntax {
                            line,
                            message: format!("unexpected character {c:?}"),
                        })
                    }
                }
            };
            i += sym.len();
            out.push((Tok::Sym(sym), line));
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(Tok, usize)>,
    pos: usize,
    params: HashMap<String, f64>,
}

/// A rate value during parsing: the passive weight is kept apart.
enum PRate {
    Active(f64),
    Passive(f64),
}

impl Parser {
    fn line(&self) -> usize {
        self.tokens.get(self.pos).or(self.tokens.last()).map_or(1, |t| t.1)
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError::Syntax {
            line: self.line(),
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.tokens.get(self.pos + k).map(|t| &t.0)
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, sym: &str) -> Result<(), ParseError> {
        if self.eat(sym) {
            Ok(())
        } else {
            self.err(format!("expected '{sym}'"))
        }
    }

    fn ident(&mut self) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => self.err("expected a name"),
        }
    }

    fn model(&mut self) -> Result<Model, ParseError> {
        let mut params = Vec::new();
        let mut definitions = Vec::new();
        loop {
            let is_def = matches!(self.peek(), Some(Tok::Ident(_))) && matches!(self.peek_at(1), Some(Tok::Sym("=")));
            if !is_def {
                break;
            }
            let name = self.ident()?;
            self.expect("=")?;
            if name.starts_with(|c: char| c.is_ascii_lowercase()) {
                let v = match self.rate_expr()? {
                    PRate::Active(v) => v,
                    PRate::Passive(_) => return self.err(format!("rate {name} cannot be passive")),
                };
                self.params.insert(name.clone(), v);
                params.push((name, v));
            } else {
                let body = self.process()?;
                definitions.push((name, body));
            }
            self.expect(";")?;
        }
        let system = self.process()?;
        self.eat(";");
        if self.pos != self.tokens.len() {
            return self.err("unexpected text after the system equation");
        }
        Ok(Model {
            params,
            definitions,
            system,
        })
    }

    fn rate_factor(&mut self) -> Result<PRate, ParseError> {
        match self.peek().cloned() {
            Some(Tok::Num(v)) => {
                self.pos += 1;
                Ok(PRate::Active(v))
            }
            Some(Tok::Ident(s)) if s == "infty" || s == "T" || s == "top" => {
                self.pos += 1;
                Ok(PRate::Passive(1.0))
            }
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                match self.params.get(&s) {
                    Some(v) => Ok(PRate::Active(*v)),
                    None => self.err(format!("undefined rate {s}")),
                }
            }
            Some(Tok::Sym("(")) => {
                self.pos += 1;
                let r = self.rate_expr()?;
                self.expect(")")?;
                Ok(r)
            }
            _ => self.err("expected a rate"),
        }
    }

    fn rate_expr(&mut self) -> Result<PRate, ParseError> {
        let mut acc = self.rate_factor()?;
        loop {
            let op = if self.eat("*") {
                '*'
            } else if self.eat("/") {
                '/'
            } else {
                return Ok(acc);
            };
            let rhs = self.rate_factor()?;
            acc = match (acc, rhs, op) {
                (PRate::Active(a), PRate::Active(b), '*') => PRate::Active(a * b),
                (PRate::Active(a), PRate::Active(b), _) => PRate::Active(a / b),
                (PRate::Active(a), PRate::Passive(w), '*') | (PRate::Passive(w), PRate::Active(a), '*') => {
                    PRate::Passive(a * w)
                }
                (PRate::Passive(w), PRate::Active(a), '/') => PRate::Passive(w / a),
                _ => return self.err("invalid passive rate expression"),
            };
        }
    }

    /// The rate inside an activity: a single parameter name stays symbolic.
    fn activity_rate(&mut self) -> Result<RateSpec, ParseError> {
        if let (Some(Tok::Ident(s)), Some(Tok::Sym(")"))) = (self.peek().cloned(), self.peek_at(1)) {
            if s != "infty" && s != "T" && s != "top" {
                if !self.params.contains_key(&s) {
                    return self.err(format!("undefined rate {s}"));
                }
                self.pos += 1;
                return Ok(RateSpec::Param(s));
            }
        }
        Ok(match self.rate_expr()? {
            PRate::Active(v) => RateSpec::Value(v),
            PRate::Passive(w) => RateSpec::Passive(w),
        })
    }

    fn action_list(&mut self, close: &str) -> Result<Vec<String>, ParseError> {
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.ident()?);
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(",")?;
        }
    }

    fn process(&mut self) -> Result<Process, ParseError> {
        let mut left = self.choice()?;
        loop {
            if self.eat("||") {
                let right = self.choice()?;
                left = Process::coop(left, Vec::new(), right);
            } else if self.eat("<") {
                let actions = self.action_list(">")?;
                let right = self.choice()?;
                left = Process::coop(left, actions, right);
            } else {
                return Ok(left);
            }
        }
    }

    fn choice(&mut self) -> Result<Process, ParseError> {
        let mut left = self.prefix()?;
        while self.eat("+") {
            let right = self.prefix()?;
            left = Process::Choice(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn prefix(&mut self) -> Result<Process, ParseError> {
        let is_activity = matches!(self.peek(), Some(Tok::Sym("(")))
            && matches!(self.peek_at(1), Some(Tok::Ident(s)) if s.starts_with(|c: char| c.is_ascii_lowercase()))
            && matches!(self.peek_at(2), Some(Tok::Sym(",")));
        let mut term = if is_activity {
            self.expect("(")?;
            let action = self.ident()?;
            self.expect(",")?;
            let rate = self.activity_rate()?;
            self.expect(")")?;
            self.expect(".")?;
            let then = self.prefix()?;
            Process::Prefix {
                action,
                rate,
                then: Box::new(then),
            }
        } else if self.eat("(") {
            let p = self.process()?;
            self.expect(")")?;
            p
        } else {
            let name = self.ident()?;
            if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
                return self.err(format!("process names start with an upper-case letter: {name}"));
            }
            Process::Constant(name)
        };
        while matches!(self.peek(), Some(Tok::Sym("/"))) && matches!(self.peek_at(1), Some(Tok::Sym("{"))) {
            self.pos += 2;
            let actions = self.action_list("}")?;
            term = Process::Hiding {
                process: Box::new(term),
                actions,
            };
        }
        Ok(term)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_fig_b1_style() {
        // Layout of the SCPE pipeline paper, Fig. B.1: `Stage1 = (move1, infty).(process1, infty)...`.
        let stage = Process::sequence(
            vec![
                ("move1".into(), RateSpec::Passive(1.0)),
                ("process1".into(), RateSpec::Passive(1.0)),
                ("move2".into(), RateSpec::Passive(1.0)),
            ],
            Process::constant("Stage1"),
        );
        assert_eq!(
            stage.to_string(),
            "(move1, infty).(process1, infty).(move2, infty).Stage1"
        );
        let sys = Process::coop(
            Process::constant("Network"),
            vec!["move1".into(), "move2".into()],
            Process::parallel_of(vec![Process::constant("A"), Process::constant("B")]).unwrap(),
        );
        assert_eq!(sys.to_string(), "Network <move1,move2> (A || B)");
    }

    #[test]
    fn numbers_have_no_exponent() {
        // 1e9 and 1e-5 are the AMoGeT paper's constants (§4.4); PEPA tools read plain decimals.
        assert_eq!(number(1e9), "1000000000");
        assert_eq!(number(1e-5), "0.00001");
    }

    #[test]
    fn parses_tiny_example() {
        // tiny.pepa of the SCPE paper, Appendix C.2.
        let m =
            Model::parse("r1=2; r2=10; r3=1;\nP1=(start,r1).P2;\nP2=(run,r2).P3;\nP3=(stop,r3).P1;\nP1 || P1").unwrap();
        assert_eq!(
            m.params,
            vec![("r1".into(), 2.0), ("r2".into(), 10.0), ("r3".into(), 1.0)]
        );
        assert_eq!(m.definitions.len(), 3);
        assert_eq!(
            m.system,
            Process::coop(Process::constant("P1"), vec![], Process::constant("P1"))
        );
    }

    #[test]
    fn parse_errors_name_the_line() {
        let e = Model::parse("r=1;\nP=(a,q).P;\nP").unwrap_err();
        assert_eq!(
            e,
            ParseError::Syntax {
                line: 2,
                message: "undefined rate q".into()
            }
        );
    }

    #[test]
    fn round_trips_choice_hiding_and_weights() {
        let text = "a = 1.5;\nP = (x, a).P + (y, 2*infty).(z, a*2).P;\nQ = (y, 3).Q;\n(P <y> Q)/{x}";
        let m = Model::parse(text).unwrap();
        let again = Model::parse(&m.to_pepa()).unwrap();
        assert_eq!(m, again);
        let Process::Choice(_, right) = &m.definitions[0].1 else {
            panic!("expected a choice")
        };
        let Process::Prefix { rate, then, .. } = right.as_ref() else {
            panic!("expected a prefix")
        };
        assert_eq!(*rate, RateSpec::Passive(2.0));
        let Process::Prefix { rate, .. } = then.as_ref() else {
            panic!("expected a prefix")
        };
        assert_eq!(*rate, RateSpec::Value(3.0));
    }
}

//! Normalisation: rules in a form every later phase can evaluate left to right.
//!
//! - `or` (and the tolerated `and`) are expanded into one rule per disjunct; negation is
//!   pushed inward (`not` over `or` becomes a conjunction of negations, `not` over
//!   `distinct` becomes [`Literal::Equal`]).
//! - Negations, `distinct` and equalities are moved right after the positive literals
//!   that bind their variables; positive literals keep their order.
//! - `distinct`/equality over ground terms is folded: a true test is dropped, a rule with
//!   a false test is dropped.
//! - Rules stated twice (after the steps above) are kept once.
//! - Where negation goes through recursion only across different constant arguments
//!   (`(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))`), the negated literals are
//!   redirected to auxiliary relations split off on those constants, defined by
//!   specialised copies of the rules ([`split`]), when that makes negation stratified.
//!
//! Normalisation assumes nothing about validity: it is also what the checker reads for
//! safety, stratification and the recursion restriction.

use std::collections::HashSet;

use crate::diagnostic::{Code, Diagnostic, Span};
use crate::syntax::ast::{self, Atom, Description, Term};

pub mod deps;
pub mod split;

pub use split::SplitName;

/// The most rules one sentence may expand to; beyond it the description is rejected.
pub const MAX_EXPANSION: usize = 4096;

/// A literal of a normalised body.
#[derive(Clone, Debug)]
pub enum Literal {
    /// A positive atom.
    Pos(Atom),
    /// A negated atom.
    Neg(Atom),
    /// The terms differ.
    Distinct(Term, Term, Span),
    /// The terms are equal (from `(not (distinct s t))`).
    Equal(Term, Term, Span),
}

impl Literal {
    /// Where the literal was written.
    pub fn span(&self) -> Span {
        match self {
            Literal::Pos(atom) | Literal::Neg(atom) => atom.span,
            Literal::Distinct(_, _, span) | Literal::Equal(_, _, span) => *span,
        }
    }

    /// Calls `f` on every variable of the literal.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a ast::Name)) {
        match self {
            Literal::Pos(atom) | Literal::Neg(atom) => atom.for_each_var(f),
            Literal::Distinct(a, b, _) | Literal::Equal(a, b, _) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
        }
    }
}

/// A rule with a flat body of literals, in evaluation order.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The head.
    pub head: Atom,
    /// The body, binders before the tests that need them.
    pub body: Vec<Literal>,
    /// The sentence it came from.
    pub span: Span,
}

/// Normalises a description; fails only when a sentence expands to too many rules.
pub fn normalize(description: &Description) -> Result<Vec<Rule>, Diagnostic> {
    let mut rules = Vec::new();
    let mut seen = HashSet::new();
    for rule in &description.rules {
        for body in expand_body(&rule.body, rule.span)? {
            let Some(body) = fold_and_order(body) else {
                continue;
            };
            let normal = Rule {
                head: rule.head.clone(),
                body,
                span: rule.span,
            };
            if seen.insert(rule_key(&normal)) {
                rules.push(normal);
            }
        }
    }
    Ok(split::split(rules))
}

/// The disjunctive normal form of a body: each alternative is a conjunction.
fn expand_body(body: &[ast::Literal], span: Span) -> Result<Vec<Vec<Literal>>, Diagnostic> {
    let mut alternatives = vec![Vec::new()];
    for literal in body {
        let options = expand(literal, false, span)?;
        alternatives = product(alternatives, &options, span)?;
    }
    Ok(alternatives)
}

fn too_many(span: Span) -> Diagnostic {
    Diagnostic::error(
        Code::Structure,
        format!("this sentence expands to more than {MAX_EXPANSION} rules"),
    )
    .at(span, "too many `or` alternatives")
}

fn product(
    left: Vec<Vec<Literal>>,
    right: &[Vec<Literal>],
    span: Span,
) -> Result<Vec<Vec<Literal>>, Diagnostic> {
    if left.len().saturating_mul(right.len()) > MAX_EXPANSION {
        return Err(too_many(span));
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for l in &left {
        for r in right {
            let mut both = l.clone();
            both.extend(r.iter().cloned());
            out.push(both);
        }
    }
    Ok(out)
}

/// The alternatives (each a conjunction) of one literal, negated if `negated`.
fn expand(
    literal: &ast::Literal,
    negated: bool,
    span: Span,
) -> Result<Vec<Vec<Literal>>, Diagnostic> {
    Ok(match (literal, negated) {
        (ast::Literal::Atom(atom), false) => vec![vec![Literal::Pos(atom.clone())]],
        (ast::Literal::Atom(atom), true) => vec![vec![Literal::Neg(atom.clone())]],
        (ast::Literal::Distinct(a, b, at), false) => {
            vec![vec![Literal::Distinct(a.clone(), b.clone(), *at)]]
        }
        (ast::Literal::Distinct(a, b, at), true) => {
            vec![vec![Literal::Equal(a.clone(), b.clone(), *at)]]
        }
        (ast::Literal::Not(inner, _), _) => expand(inner, !negated, span)?,
        // A disjunction, or a negated conjunction: the union of the parts' alternatives.
        (ast::Literal::Or(items, _), false) | (ast::Literal::And(items, _), true) => {
            let mut out = Vec::new();
            for item in items {
                out.extend(expand(item, negated, span)?);
                if out.len() > MAX_EXPANSION {
                    return Err(too_many(span));
                }
            }
            out
        }
        // A conjunction, or a negated disjunction: the product of the parts' alternatives.
        (ast::Literal::And(items, _), false) | (ast::Literal::Or(items, _), true) => {
            let mut out = vec![Vec::new()];
            for item in items {
                out = product(out, &expand(item, negated, span)?, span)?;
            }
            out
        }
    })
}

/// Folds ground tests and orders the body; `None` when a ground test is false.
fn fold_and_order(body: Vec<Literal>) -> Option<Vec<Literal>> {
    let mut positives = Vec::new();
    let mut tests = Vec::new();
    for literal in body {
        match &literal {
            Literal::Distinct(a, b, _) | Literal::Equal(a, b, _)
                if a.is_ground() && b.is_ground() =>
            {
                let equal = a.to_string() == b.to_string();
                if equal == matches!(literal, Literal::Distinct(..)) {
                    return None;
                }
            }
            Literal::Pos(_) => positives.push(literal),
            _ => tests.push(literal),
        }
    }
    Some(place_tests(positives, tests))
}

/// `positives` in their order, each test of `tests` right after the first prefix of
/// positives that binds its variables; tests whose variables are never bound (unsafe
/// rules) go last, in their order.
pub(crate) fn place_tests(positives: Vec<Literal>, tests: Vec<Literal>) -> Vec<Literal> {
    let mut bound: HashSet<&str> = HashSet::new();
    let mut placed = vec![false; tests.len()];
    let mut order: Vec<(usize, usize)> = Vec::new(); // (0 = positive / 1 = test, index)
    let place_ready =
        |bound: &HashSet<&str>, placed: &mut Vec<bool>, order: &mut Vec<(usize, usize)>| {
            for (i, test) in tests.iter().enumerate() {
                if !placed[i] {
                    let mut ready = true;
                    test.for_each_var(&mut |v| ready &= bound.contains(v.text.as_str()));
                    if ready {
                        placed[i] = true;
                        order.push((1, i));
                    }
                }
            }
        };
    place_ready(&bound, &mut placed, &mut order);
    for (i, positive) in positives.iter().enumerate() {
        order.push((0, i));
        positive.for_each_var(&mut |v| {
            bound.insert(v.text.as_str());
        });
        place_ready(&bound, &mut placed, &mut order);
    }
    for (i, done) in placed.iter().enumerate() {
        if !done {
            order.push((1, i));
        }
    }
    let mut positives: Vec<Option<Literal>> = positives.iter().cloned().map(Some).collect();
    let mut tests: Vec<Option<Literal>> = tests.iter().cloned().map(Some).collect();
    order
        .into_iter()
        .filter_map(|(kind, i)| {
            if kind == 0 {
                positives[i].take()
            } else {
                tests[i].take()
            }
        })
        .collect()
}

/// A text key identifying a rule up to spans.
fn rule_key(rule: &Rule) -> String {
    rule.to_string()
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.body.is_empty() {
            return write!(f, "{}", self.head);
        }
        write!(f, "(<= {}", self.head)?;
        for literal in &self.body {
            match literal {
                Literal::Pos(atom) => write!(f, " {atom}")?,
                Literal::Neg(atom) => write!(f, " (not {atom})")?,
                Literal::Distinct(a, b, _) => write!(f, " (distinct {a} {b})")?,
                Literal::Equal(a, b, _) => write!(f, " (not (distinct {a} {b}))")?,
            }
        }
        f.write_str(")")
    }
}

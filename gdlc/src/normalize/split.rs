//! Local stratification by splitting relations on their constant arguments.
//!
//! GDL requires stratified negation, judged on the relation dependency graph. Real games
//! write `(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))`: `goal/2` depends on its own
//! negation, but only across different constants of its second argument, so the
//! program is locally stratified and has one meaning. This pass makes such programs
//! stratified at the relation level, so every backend — the interpreter, the analysis
//! and the plan, the Rust and Prolog emitters, the prover — evaluates them unchanged:
//!
//! - A negated literal of an original rule whose relation is in the head's strongly
//!   connected component and has ground arguments is redirected to an auxiliary
//!   relation holding exactly the tuples of that relation with those ground arguments:
//!   `(not (goal ?r 100))` becomes `(not (goal?2=100 ?r))`. Its name is the relation's,
//!   then `?position=term` for each ground argument (positions from 1). A written
//!   symbol cannot contain `?`, so the name clashes with no user symbol.
//! - The auxiliary relation is defined by specialised copies of the rules whose heads
//!   match the ground arguments (the substitution applied to the whole rule; ground
//!   tests folded, a false one drops the copy). In a copy, every literal — positive or
//!   negated — whose relation is in the original component and has ground arguments is
//!   redirected the same way, recursively, so a split reaches through levels (`p` at 3
//!   on the absence of `p` at 2, which needs the absence of `p` at 1).
//! - Only negated literals are redirected in the original rules: `goal`, `legal` and the
//!   others keep their rules and meaning.
//! - At most [`MAX_SPLITS`] auxiliary relations and [`MAX_COPIES`] copied rules; beyond,
//!   the split is abandoned.
//! - The rewrite is kept only when the result is stratified; otherwise the rules are
//!   returned unchanged and the checker reports the negative cycle as before.
//!
//! The rewritten and copied literals keep the spans of the source, so diagnostics stay
//! located where the user wrote them; [`SplitName::of`] reads an auxiliary name back
//! for the checker's warning.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{Literal, Rule, fold_and_order, rule_key};
use crate::diagnostic::Span;
use crate::normalize::deps::{DependencyGraph, RelationKey, key_of};
use crate::syntax::ast::{Atom, Name, Term};

/// The most auxiliary relations one description may be split into.
pub const MAX_SPLITS: usize = 256;

/// The most specialised rule copies the split may add.
pub const MAX_COPIES: usize = 16_384;

/// The largest ground argument (in symbols) a split may be keyed on; beyond, the split
/// is abandoned. Specialising can nest a ground argument into the next one's key
/// (`(not (q (g (g ?x ?x) 1)))` under `?x` bound to the previous key doubles it at
/// every level), which the counts above do not bound: a random rule set found by
/// `parser_fuzz` grew its keys past memory.
pub const MAX_KEY_SYMBOLS: usize = 256;

/// The character between a relation's name and each ground argument in an auxiliary
/// name; it cannot occur in a written symbol.
const MARK: char = '?';

/// Splits relations on constant arguments where that makes negation stratified; returns
/// the rules unchanged when nothing needs it or the split does not help.
pub(super) fn split(rules: Vec<Rule>) -> Vec<Rule> {
    let graph = DependencyGraph::build(&rules);
    if stratified(&graph) {
        return rules;
    }
    match Splitter::new(&rules, &graph).run() {
        Some(split) if stratified(&DependencyGraph::build(&split)) => split,
        _ => rules,
    }
}

/// Whether no negated literal is in its head's component.
fn stratified(graph: &DependencyGraph) -> bool {
    !graph
        .dependencies
        .iter()
        .any(|dep| dep.negative && graph.same_component(dep.head, dep.body))
}

/// An auxiliary relation: the original relation and its ground arguments by position.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Pattern {
    relation: RelationKey,
    /// (position from 0, canonical text of the ground term).
    ground: Vec<(usize, String)>,
}

impl Pattern {
    fn name(&self) -> String {
        let mut name = self.relation.name.clone();
        for (position, term) in &self.ground {
            name.push(MARK);
            name.push_str(&format!("{}={term}", position + 1));
        }
        name
    }
}

/// The state of one split.
struct Splitter<'a> {
    rules: &'a [Rule],
    graph: &'a DependencyGraph,
    /// Auxiliary relations by pattern, with their ground terms (as written first).
    names: BTreeMap<Pattern, String>,
    /// Patterns still to define, in request order, with the ground terms.
    queue: Vec<(Pattern, Vec<(usize, Term)>)>,
    /// Whether a bound was exceeded.
    overflow: bool,
}

impl<'a> Splitter<'a> {
    fn new(rules: &'a [Rule], graph: &'a DependencyGraph) -> Self {
        Splitter {
            rules,
            graph,
            names: BTreeMap::new(),
            queue: Vec::new(),
            overflow: false,
        }
    }

    /// The relation index of an atom.
    fn relation(&self, atom: &Atom) -> Option<usize> {
        self.graph.relation(&atom.name.text, atom.arity())
    }

    /// Whether `atom`'s relation is in the component of relation `of`.
    fn in_component(&self, atom: &Atom, of: Option<usize>) -> bool {
        match (self.relation(atom), of) {
            (Some(a), Some(b)) => self.graph.same_component(a, b),
            _ => false,
        }
    }

    /// The rewritten originals followed by the auxiliary rules; `None` on overflow.
    fn run(mut self) -> Option<Vec<Rule>> {
        let mut out = Vec::with_capacity(self.rules.len());
        for rule in self.rules {
            let head = self.relation(&rule.head);
            let body = rule
                .body
                .iter()
                .map(|literal| match literal {
                    Literal::Neg(atom) if self.in_component(atom, head) => {
                        Literal::Neg(self.redirect(atom))
                    }
                    other => other.clone(),
                })
                .collect();
            out.push(Rule {
                head: rule.head.clone(),
                body,
                span: rule.span,
            });
        }
        if self.overflow {
            return None;
        }
        let mut by_head: BTreeMap<RelationKey, Vec<&Rule>> = BTreeMap::new();
        for rule in self.rules {
            by_head.entry(key_of(&rule.head)).or_default().push(rule);
        }
        let mut copies = 0usize;
        let mut next = 0;
        while let Some((pattern, ground)) = self.queue.get(next).cloned() {
            next += 1;
            let defining = by_head
                .get(&pattern.relation)
                .map_or(&[][..], Vec::as_slice);
            for &rule in defining {
                if let Some(copy) = self.specialise(rule, &pattern, &ground) {
                    copies += 1;
                    out.push(copy);
                }
                if copies > MAX_COPIES {
                    return None;
                }
            }
            if self.overflow {
                return None;
            }
        }
        let mut seen = HashSet::new();
        out.retain(|rule| seen.insert(rule_key(rule)));
        Some(out)
    }

    /// The auxiliary atom standing for `atom` restricted to its ground arguments, or
    /// `atom` itself when it has none (or the bound is reached).
    fn redirect(&mut self, atom: &Atom) -> Atom {
        let ground: Vec<(usize, Term)> = atom
            .args
            .iter()
            .enumerate()
            .filter(|(_, arg)| arg.is_ground())
            .map(|(i, arg)| (i, arg.clone()))
            .collect();
        if ground.is_empty() {
            return atom.clone();
        }
        if ground
            .iter()
            .any(|(_, term)| !symbols_at_most(term, MAX_KEY_SYMBOLS))
        {
            self.overflow = true;
            return atom.clone();
        }
        let pattern = Pattern {
            relation: key_of(atom),
            ground: ground.iter().map(|(i, t)| (*i, t.to_string())).collect(),
        };
        let name = match self.names.get(&pattern) {
            Some(name) => name.clone(),
            None => {
                if self.names.len() >= MAX_SPLITS {
                    self.overflow = true;
                    return atom.clone();
                }
                let name = pattern.name();
                self.names.insert(pattern.clone(), name.clone());
                self.queue.push((pattern, ground));
                name
            }
        };
        Atom {
            name: Name {
                text: name,
                span: atom.name.span,
            },
            args: atom
                .args
                .iter()
                .filter(|arg| !arg.is_ground())
                .cloned()
                .collect(),
            span: atom.span,
        }
    }

    /// The copy of `rule` (whose head is of the pattern's relation) defining the
    /// auxiliary relation of `pattern`, or `None` if its head cannot match.
    fn specialise(
        &mut self,
        rule: &Rule,
        pattern: &Pattern,
        ground: &[(usize, Term)],
    ) -> Option<Rule> {
        let mut substitution: HashMap<String, Term> = HashMap::new();
        for (position, term) in ground {
            if !matches(term, rule.head.args.get(*position)?, &mut substitution) {
                return None;
            }
        }
        let head_relation = self.relation(&rule.head);
        let head = Atom {
            name: Name {
                text: self.names.get(pattern)?.clone(),
                span: rule.head.name.span,
            },
            args: rule
                .head
                .args
                .iter()
                .enumerate()
                .filter(|(i, _)| !ground.iter().any(|(p, _)| p == i))
                .map(|(_, arg)| substitute(arg, &substitution))
                .collect(),
            span: rule.head.span,
        };
        let mut body = Vec::with_capacity(rule.body.len());
        for literal in &rule.body {
            body.push(match literal {
                Literal::Pos(atom) | Literal::Neg(atom) => {
                    let mut atom = substitute_atom(atom, &substitution);
                    if self.in_component(&atom, head_relation) {
                        atom = self.redirect(&atom);
                    }
                    if matches!(literal, Literal::Pos(_)) {
                        Literal::Pos(atom)
                    } else {
                        Literal::Neg(atom)
                    }
                }
                Literal::Distinct(a, b, span) => Literal::Distinct(
                    substitute(a, &substitution),
                    substitute(b, &substitution),
                    *span,
                ),
                Literal::Equal(a, b, span) => Literal::Equal(
                    substitute(a, &substitution),
                    substitute(b, &substitution),
                    *span,
                ),
            });
        }
        Some(Rule {
            head,
            body: fold_and_order(body)?,
            span: rule.span,
        })
    }
}

/// Matches the ground term `ground` against `term`, extending `substitution`.
fn matches(ground: &Term, term: &Term, substitution: &mut HashMap<String, Term>) -> bool {
    match (ground, term) {
        (_, Term::Var(var)) => match substitution.get(&var.text) {
            Some(bound) => bound.to_string() == ground.to_string(),
            None => {
                substitution.insert(var.text.clone(), ground.clone());
                true
            }
        },
        (Term::Const(a), Term::Const(b)) => a.text == b.text,
        (
            Term::Func {
                name: f, args: xs, ..
            },
            Term::Func {
                name: g, args: ys, ..
            },
        ) => {
            f.text == g.text
                && xs.len() == ys.len()
                && xs.iter().zip(ys).all(|(x, y)| matches(x, y, substitution))
        }
        _ => false,
    }
}

/// `term` with the substitution applied; a replaced variable's term takes the
/// variable's span.
fn substitute(term: &Term, substitution: &HashMap<String, Term>) -> Term {
    match term {
        Term::Var(var) => match substitution.get(&var.text) {
            Some(value) => respan(value, var.span),
            None => term.clone(),
        },
        Term::Const(_) => term.clone(),
        Term::Func { name, args, span } => Term::Func {
            name: name.clone(),
            args: args
                .iter()
                .map(|arg| substitute(arg, substitution))
                .collect(),
            span: *span,
        },
    }
}

fn substitute_atom(atom: &Atom, substitution: &HashMap<String, Term>) -> Atom {
    Atom {
        name: atom.name.clone(),
        args: atom
            .args
            .iter()
            .map(|arg| substitute(arg, substitution))
            .collect(),
        span: atom.span,
    }
}

/// `term` with every span set to `span`.
fn respan(term: &Term, span: Span) -> Term {
    match term {
        Term::Var(name) => Term::Var(Name {
            text: name.text.clone(),
            span,
        }),
        Term::Const(name) => Term::Const(Name {
            text: name.text.clone(),
            span,
        }),
        Term::Func { name, args, .. } => Term::Func {
            name: Name {
                text: name.text.clone(),
                span,
            },
            args: args.iter().map(|arg| respan(arg, span)).collect(),
            span,
        },
    }
}

/// An auxiliary relation's name read back: the relation it restricts and the ground
/// arguments it fixes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitName {
    /// The original relation's name.
    pub relation: String,
    /// The fixed arguments: position (from 0) and the term's text.
    pub ground: Vec<(usize, String)>,
}

impl SplitName {
    /// The split behind an auxiliary name, or `None` for a name a user can write.
    pub fn of(name: &str) -> Option<SplitName> {
        let mut parts = name.split(MARK);
        let relation = parts.next()?.to_owned();
        let mut ground = Vec::new();
        for part in parts {
            let (position, term) = part.split_once('=')?;
            let position: usize = position.parse().ok()?;
            ground.push((position.checked_sub(1)?, term.to_owned()));
        }
        (!ground.is_empty()).then_some(SplitName { relation, ground })
    }

    /// The arity of the original relation, for an auxiliary atom of `arity` arguments.
    pub fn original_arity(&self, arity: usize) -> usize {
        arity + self.ground.len()
    }

    /// The original atom's text, from the auxiliary atom's arguments.
    pub fn original_text(&self, args: &[Term]) -> String {
        let total = self.original_arity(args.len());
        let mut rest = args.iter();
        let mut text = format!("({}", self.relation);
        for i in 0..total {
            text.push(' ');
            match self.ground.iter().find(|(p, _)| *p == i) {
                Some((_, term)) => text.push_str(term),
                None => text.push_str(&rest.next().map(ToString::to_string).unwrap_or_default()),
            }
        }
        text.push(')');
        text
    }
}

/// Whether `term` holds at most `limit` symbols (stops counting past it).
fn symbols_at_most(term: &Term, limit: usize) -> bool {
    fn count(term: &Term, left: &mut usize) -> bool {
        if *left == 0 {
            return false;
        }
        *left -= 1;
        match term {
            Term::Var(_) | Term::Const(_) => true,
            Term::Func { args, .. } => args.iter().all(|arg| count(arg, left)),
        }
    }
    let mut left = limit;
    count(term, &mut left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::SourceFile;

    fn normalised(text: &str) -> Vec<Rule> {
        let parsed = crate::syntax::parse(&SourceFile::new("t.kif", text));
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        super::super::normalize(&parsed.description).expect("normalises")
    }

    fn texts(rules: &[Rule]) -> Vec<String> {
        rules.iter().map(ToString::to_string).collect()
    }

    /// A split whose keys would nest into each other (the key doubles at every level)
    /// is abandoned at `MAX_KEY_SYMBOLS`, in moments, instead of growing past memory
    /// (a rule set `parser_fuzz` found); the checker then reports the cycle.
    #[test]
    fn keys_that_grow_from_level_to_level_abandon_the_split() {
        let started = std::time::Instant::now();
        let rules = normalised(
            "(role a) (p (f a)) (dom 1) (dom 2) (dom 3) (dom a) (dom (f 1))
             (<= (q (f ?z) ?x) (p ?x) (q ?y ?z) (not (q (f a) (g (g ?x ?x) 1))) (not r))
             (<= r (p ?x) (q ?y ?z))
             (<= (q (f 1) (g ?z ?x)) (dom ?x) (dom ?y) (dom ?z) (q (f (g 3 3)) ?y))",
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "took {:?}",
            started.elapsed()
        );
        assert!(
            texts(&rules)
                .iter()
                .all(|r| !r.contains("?1=") && !r.contains("?2=")),
            "the split is kept: {:?}",
            texts(&rules)
        );
    }

    #[test]
    fn goal_on_the_absence_of_another_goal_value() {
        let rules = normalised(
            "(role a) (<= (goal ?r 100) (role ?r) (true (won ?r)))
             (<= (goal ?r 0) (role ?r) (not (goal ?r 100)))",
        );
        assert_eq!(
            texts(&rules),
            [
                "(role a)",
                "(<= (goal ?r 100) (role ?r) (true (won ?r)))",
                "(<= (goal ?r 0) (role ?r) (not (goal?2=100 ?r)))",
                "(<= (goal?2=100 ?r) (role ?r) (true (won ?r)))",
            ]
        );
        assert!(stratified(&DependencyGraph::build(&rules)));
    }

    #[test]
    fn two_levels_and_positive_recursion_in_copies() {
        let rules = normalised(
            "(<= (p ?x 1) (q ?x))
             (<= (p ?y 1) (p ?x 1) (e ?x ?y))
             (<= (p ?x 2) (r ?x) (not (p ?x 1)))
             (<= (p ?x 3) (r ?x) (not (p ?x 2)) (distinct ?x a))",
        );
        assert_eq!(
            texts(&rules),
            [
                "(<= (p ?x 1) (q ?x))",
                "(<= (p ?y 1) (p ?x 1) (e ?x ?y))",
                "(<= (p ?x 2) (r ?x) (not (p?2=1 ?x)))",
                "(<= (p ?x 3) (r ?x) (not (p?2=2 ?x)) (distinct ?x a))",
                "(<= (p?2=1 ?x) (q ?x))",
                "(<= (p?2=1 ?y) (p?2=1 ?x) (e ?x ?y))",
                "(<= (p?2=2 ?x) (r ?x) (not (p?2=1 ?x)))",
            ]
        );
        assert!(stratified(&DependencyGraph::build(&rules)));
    }

    #[test]
    fn repeated_head_variables_and_false_tests_drop_copies() {
        let rules = normalised(
            "(<= (p ?x ?x) (d ?x))
             (<= (p ?x ?y) (d ?x) (d ?y) (distinct ?y b))
             (<= (p a c) (d a) (not (p a b)) (not (p a a)))",
        );
        assert_eq!(
            texts(&rules),
            [
                "(<= (p ?x ?x) (d ?x))",
                "(<= (p ?x ?y) (d ?x) (d ?y) (distinct ?y b))",
                "(<= (p a c) (not p?1=a?2=b) (not p?1=a?2=a) (d a))",
                "(<= p?1=a?2=a (d a))",
                "(<= p?1=a?2=a (d a) (d a))",
            ]
        );
    }

    #[test]
    fn real_negative_cycles_are_left_alone() {
        for text in [
            "(<= p (not q)) (<= q (not p))",
            "(<= (p ?x) (d ?x) (not (q ?x))) (<= (q ?x) (d ?x) (not (p ?x)))",
            "(<= (p ?x 1) (d ?x) (not (p ?x 1)))",
            "(<= (p ?x 1) (d ?x) (p ?x ?y) (not (p ?x 2))) (<= (p ?x 2) (d ?x) (not (p ?x 1)))",
        ] {
            let rules = normalised(text);
            let split = rules.iter().any(|rule| {
                rule.body.iter().any(|literal| {
                    matches!(literal, Literal::Pos(atom) | Literal::Neg(atom)
                        if atom.name.text.contains(MARK))
                })
            });
            assert!(!split, "{text}: {:?}", texts(&rules));
        }
    }

    #[test]
    fn a_long_chain_of_levels() {
        let mut text = String::from("(<= (v ?x 60) (e ?x))");
        for level in 0..60 {
            text.push_str(&format!(
                "(<= (v ?x {level}) (d ?x) (not (v ?x {})))",
                level + 1
            ));
        }
        let rules = normalised(&text);
        assert_eq!(rules.len(), 61 + 60);
        assert!(stratified(&DependencyGraph::build(&rules)));
    }

    #[test]
    fn growing_splits_are_abandoned_at_the_bound() {
        let rules = normalised("(<= (p ?x) (d ?x) (p (f ?x))) (<= (p b) (d b) (not (p a)))");
        assert_eq!(
            texts(&rules),
            [
                "(<= (p ?x) (d ?x) (p (f ?x)))",
                "(<= (p b) (not (p a)) (d b))"
            ]
        );
    }

    #[test]
    fn names_read_back() {
        let split = SplitName::of("goal?2=100").expect("a split name");
        assert_eq!(split.relation, "goal");
        assert_eq!(split.ground, [(1, "100".to_owned())]);
        assert_eq!(split.original_arity(1), 2);
        let r = Term::Var(Name {
            text: "r".to_owned(),
            span: Span::default(),
        });
        assert_eq!(split.original_text(&[r]), "(goal ?r 100)");
        assert_eq!(
            SplitName::of("cell?1=(f a)?2=b")
                .expect("a split name")
                .original_text(&[]),
            "(cell (f a) b)"
        );
        assert_eq!(SplitName::of("goal"), None);
        assert_eq!(SplitName::of("goal?x"), None);
    }
}

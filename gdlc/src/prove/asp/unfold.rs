//! Unfolding static relations into the state-dependent rules that use them, so that the
//! paper's *removing existential variables* (section 6.2) can cut their joins apart.
//!
//! A state-dependent rule that joins several fluents through one static atom grounds to
//! one instance per tuple of that atom. Quarto's `row` is the example:
//!
//! ```text
//! row(T) :- index(Y), true(cell(1,Y,P1),T), …, true(cell(4,Y,P4),T), set(P1,P2,P3,P4).
//! set(P1,P2,P3,P4) :- bit(B), index(N), bitnis(N,P1,B), …, bitnis(N,P4,B).
//! ```
//!
//! `set/4` has tens of thousands of tuples, so `row` (and `column`, `diagonal`) ground to
//! half a million bodies per time step; each conflict of the solver then learns a
//! nogood of thousands of literals, and an induction step that holds is never finished.
//! With `set` unfolded, every `P_i` occurs in only two literals and is projected away
//! (`_e(T,Y,N,B) :- true(cell(1,Y,P1),T), bitnis(N,P1,B).`): a few thousand bodies, and
//! the same step is proved in a fraction of a second.
//!
//! The same holds of a state-dependent relation defined for every argument but called
//! with constants: chinesecheckers6's `goal` calls `(count h1 h2 i1 red ?payoff)`, and
//! `count(X, Y, Z, Player, 100) :- true(cell(X, Player)), …` grounds for every triple of
//! cells — two and a half million atoms per time step — where the call needs one.
//!
//! A positive body atom of a state-dependent rule is unfolded when its relation is not
//! recursive, is defined by rules (at least one with a body), and either
//! - is static (no time argument), has at most [`MAX_ALTERNATIVES`] rules, one of them
//!   has a variable of its body that is not in its head, and the atom has a variable
//!   that is not in the head of the calling rule (the variables the projection can then
//!   remove; without them, unfolding only copies the rule); or
//! - is state-dependent (not `true` or `does`), has at most [`MAX_SPECIALISED`] rules,
//!   and the atom has a ground argument where some rule's head has a variable (the
//!   unfolding specialises the rules to the call; static relations are computed once by
//!   the grounder, so specialising them gains nothing).
//!
//! Each defining rule, its variables renamed apart, is unified with the atom; the
//! calling rule is copied once per defining rule that unifies (none: the rule can never
//! fire and is dropped), with the unifier applied and the atom replaced by the defining
//! body. Unfolding repeats on the atoms it brings in, up to [`MAX_DEPTH`] levels and
//! [`MAX_COPIES`] rules per original rule. Static rules are kept as they are: other
//! rules, the formulas and the static relaxation of `legal` may still use them.

use std::collections::{BTreeMap, BTreeSet};

use crate::normalize::deps::{DependencyGraph, RelationKey, key_of};
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Name, Term};

/// Most defining rules of a static relation that is unfolded.
pub const MAX_ALTERNATIVES: usize = 4;

/// Most defining rules of a state-dependent relation that is specialised to a call.
pub const MAX_SPECIALISED: usize = 8;

/// Most rules one rule becomes by unfolding.
pub const MAX_COPIES: usize = 16;

/// Most nested unfoldings (a defining body's own static atoms, and so on).
pub const MAX_DEPTH: usize = 3;

/// The rules with static atoms unfolded into the rules for which `timed` holds of the
/// head (see the module docs); other rules unchanged, in the same order.
pub fn unfold(
    rules: &[Rule],
    graph: &DependencyGraph,
    timed: &dyn Fn(&RelationKey) -> bool,
) -> Vec<Rule> {
    let mut definitions: BTreeMap<RelationKey, Vec<&Rule>> = BTreeMap::new();
    for rule in rules {
        definitions
            .entry(key_of(&rule.head))
            .or_default()
            .push(rule);
    }
    let mut statics: BTreeSet<RelationKey> = BTreeSet::new();
    let mut specialisable: BTreeSet<RelationKey> = BTreeSet::new();
    for (key, defs) in &definitions {
        let candidate = defs.iter().any(|d| !d.body.is_empty())
            && graph
                .relation(&key.name, key.arity)
                .is_some_and(|r| !graph.recursive[graph.component_of[r]]);
        if !candidate {
            continue;
        }
        if !timed(key) {
            if defs.len() <= MAX_ALTERNATIVES && defs.iter().any(|d| has_existential(d)) {
                statics.insert(key.clone());
            }
        } else if defs.len() <= MAX_SPECIALISED
            && !matches!(
                (key.name.as_str(), key.arity),
                ("true" | "next", 1) | ("does", 2)
            )
        {
            specialisable.insert(key.clone());
        }
    }
    let unfoldable = |atom: &Atom, head: &Atom| {
        let key = key_of(atom);
        (statics.contains(&key) && {
            let mut in_head = BTreeSet::new();
            head.for_each_var(&mut |v| {
                in_head.insert(v.text.as_str());
            });
            let mut projectable = false;
            atom.for_each_var(&mut |v| projectable |= !in_head.contains(v.text.as_str()));
            projectable
        }) || (specialisable.contains(&key)
            && definitions.get(&key).is_some_and(|defs| {
                atom.args.iter().enumerate().any(|(i, arg)| {
                    arg.is_ground()
                        && defs
                            .iter()
                            .any(|d| d.head.args.get(i).is_some_and(|h| !h.is_ground()))
                })
            }))
    };

    let mut out = Vec::with_capacity(rules.len());
    for rule in rules {
        if (statics.is_empty() && specialisable.is_empty()) || !timed(&key_of(&rule.head)) {
            out.push(rule.clone());
            continue;
        }
        // Rules with the depth of unfolding of each body literal.
        let mut work: Vec<(Rule, Vec<usize>)> = vec![(rule.clone(), vec![0; rule.body.len()])];
        let mut done: Vec<Rule> = Vec::new();
        while let Some((current, depths)) = work.pop() {
            let target = current.body.iter().zip(&depths).position(|(l, &d)| {
                d < MAX_DEPTH && matches!(l, Literal::Pos(a) if unfoldable(a, &current.head))
            });
            let Some(i) = target else {
                done.push(current);
                continue;
            };
            let Literal::Pos(atom) = &current.body[i] else {
                done.push(current);
                continue;
            };
            let defs = definitions
                .get(&key_of(atom))
                .map(Vec::as_slice)
                .unwrap_or_default();
            let expanded: Vec<(Rule, Vec<usize>)> = defs
                .iter()
                .filter_map(|def| replace(&current, &depths, i, atom, def))
                .collect();
            if done.len() + work.len() + expanded.len() > MAX_COPIES {
                // Too many copies: keep the atom, but do not try it again.
                let mut depths = depths;
                depths[i] = MAX_DEPTH;
                work.push((current, depths));
                continue;
            }
            // Reverse, so that the first alternative is finished first.
            work.extend(expanded.into_iter().rev());
        }
        out.extend(done);
    }
    out
}

/// Whether a body variable of `rule` is not in its head.
fn has_existential(rule: &Rule) -> bool {
    let mut head = BTreeSet::new();
    rule.head.for_each_var(&mut |v| {
        head.insert(v.text.as_str());
    });
    let mut found = false;
    for literal in &rule.body {
        for_each_literal_var(literal, &mut |v| found |= !head.contains(v));
    }
    found
}

fn for_each_literal_var<'a>(literal: &'a Literal, f: &mut impl FnMut(&'a str)) {
    match literal {
        Literal::Pos(atom) | Literal::Neg(atom) => atom.for_each_var(&mut |v| f(&v.text)),
        Literal::Distinct(a, b, _) | Literal::Equal(a, b, _) => {
            a.for_each_var(&mut |v| f(&v.text));
            b.for_each_var(&mut |v| f(&v.text));
        }
    }
}

fn rule_vars(rule: &Rule) -> BTreeSet<String> {
    let mut vars = BTreeSet::new();
    rule.head.for_each_var(&mut |v| {
        vars.insert(v.text.clone());
    });
    for literal in &rule.body {
        for_each_literal_var(literal, &mut |v| {
            vars.insert(v.to_owned());
        });
    }
    vars
}

/// `rule` with body literal `i` (`atom`) replaced by the body of `def`, or `None` when
/// `def`'s head does not unify with `atom`.
fn replace(
    rule: &Rule,
    depths: &[usize],
    i: usize,
    atom: &Atom,
    def: &Rule,
) -> Option<(Rule, Vec<usize>)> {
    // Rename the definition's variables apart from the rule's.
    let mut used = rule_vars(rule);
    let mut renaming: BTreeMap<String, String> = BTreeMap::new();
    for var in rule_vars(def) {
        let mut n = 1usize;
        let fresh = loop {
            let candidate = format!("{var}_{n}");
            if !used.contains(&candidate) {
                break candidate;
            }
            n += 1;
        };
        used.insert(fresh.clone());
        renaming.insert(var, fresh);
    }
    let rename = |term: &Term| map_vars(term, &|name| Term::Var(renamed(name, &renaming)));
    let mut unifier = Unifier::default();
    for (call, head) in atom.args.iter().zip(&def.head.args) {
        if !unifier.unify(call, &rename(head)) {
            return None;
        }
    }
    let apply = |term: &Term| unifier.apply(term);
    let apply_atom = |atom: &Atom| Atom {
        name: atom.name.clone(),
        args: atom.args.iter().map(apply).collect(),
        span: atom.span,
    };
    let apply_literal = |literal: &Literal| match literal {
        Literal::Pos(atom) => Literal::Pos(apply_atom(atom)),
        Literal::Neg(atom) => Literal::Neg(apply_atom(atom)),
        Literal::Distinct(a, b, span) => Literal::Distinct(apply(a), apply(b), *span),
        Literal::Equal(a, b, span) => Literal::Equal(apply(a), apply(b), *span),
    };
    let rename_literal = |literal: &Literal| {
        let rename_atom = |atom: &Atom| Atom {
            name: atom.name.clone(),
            args: atom.args.iter().map(rename).collect(),
            span: atom.span,
        };
        match literal {
            Literal::Pos(atom) => Literal::Pos(rename_atom(atom)),
            Literal::Neg(atom) => Literal::Neg(rename_atom(atom)),
            Literal::Distinct(a, b, span) => Literal::Distinct(rename(a), rename(b), *span),
            Literal::Equal(a, b, span) => Literal::Equal(rename(a), rename(b), *span),
        }
    };
    let depth = depths[i] + 1;
    let mut body = Vec::with_capacity(rule.body.len() + def.body.len());
    let mut body_depths = Vec::with_capacity(body.capacity());
    for (j, literal) in rule.body.iter().enumerate() {
        if j == i {
            for inner in &def.body {
                body.push(apply_literal(&rename_literal(inner)));
                body_depths.push(depth);
            }
        } else {
            body.push(apply_literal(literal));
            body_depths.push(depths[j]);
        }
    }
    Some((
        Rule {
            head: apply_atom(&rule.head),
            body,
            span: rule.span,
        },
        body_depths,
    ))
}

fn renamed(name: &Name, renaming: &BTreeMap<String, String>) -> Name {
    Name {
        text: renaming
            .get(&name.text)
            .cloned()
            .unwrap_or_else(|| name.text.clone()),
        span: name.span,
    }
}

/// `term` with every variable replaced by `f` of its name.
fn map_vars(term: &Term, f: &dyn Fn(&Name) -> Term) -> Term {
    match term {
        Term::Var(name) => f(name),
        Term::Const(_) => term.clone(),
        Term::Func { name, args, span } => Term::Func {
            name: name.clone(),
            args: args.iter().map(|a| map_vars(a, f)).collect(),
            span: *span,
        },
    }
}

/// A most general unifier under construction (bindings are kept triangular).
#[derive(Default)]
struct Unifier {
    bindings: BTreeMap<String, Term>,
}

impl Unifier {
    /// Follows the bindings of a variable at the top of `term`.
    fn walk<'t>(&'t self, mut term: &'t Term) -> &'t Term {
        while let Term::Var(name) = term {
            match self.bindings.get(&name.text) {
                Some(bound) => term = bound,
                None => break,
            }
        }
        term
    }

    fn occurs(&self, var: &str, term: &Term) -> bool {
        match self.walk(term) {
            Term::Var(name) => name.text == var,
            Term::Const(_) => false,
            Term::Func { args, .. } => args.iter().any(|a| self.occurs(var, a)),
        }
    }

    fn unify(&mut self, a: &Term, b: &Term) -> bool {
        let (a, b) = (self.walk(a).clone(), self.walk(b).clone());
        match (&a, &b) {
            (Term::Var(x), Term::Var(y)) if x.text == y.text => true,
            (Term::Var(x), other) | (other, Term::Var(x)) => {
                if self.occurs(&x.text, other) {
                    return false;
                }
                self.bindings.insert(x.text.clone(), other.clone());
                true
            }
            (Term::Const(x), Term::Const(y)) => x.text == y.text,
            (
                Term::Func {
                    name: f, args: fa, ..
                },
                Term::Func {
                    name: g, args: ga, ..
                },
            ) => {
                f.text == g.text
                    && fa.len() == ga.len()
                    && fa.iter().zip(ga).all(|(x, y)| self.unify(x, y))
            }
            _ => false,
        }
    }

    /// `term` with the bindings applied throughout.
    fn apply(&self, term: &Term) -> Term {
        match self.walk(term) {
            Term::Func { name, args, span } => Term::Func {
                name: name.clone(),
                args: args.iter().map(|a| self.apply(a)).collect(),
                span: *span,
            },
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Span;

    fn var(name: &str) -> Term {
        Term::Var(Name {
            text: name.into(),
            span: Span { start: 0, end: 0 },
        })
    }

    fn constant(name: &str) -> Term {
        Term::Const(Name {
            text: name.into(),
            span: Span { start: 0, end: 0 },
        })
    }

    fn func(name: &str, args: Vec<Term>) -> Term {
        Term::Func {
            name: Name {
                text: name.into(),
                span: Span { start: 0, end: 0 },
            },
            args,
            span: Span { start: 0, end: 0 },
        }
    }

    fn text(term: &Term) -> String {
        match term {
            Term::Var(n) => format!("?{}", n.text),
            Term::Const(n) => n.text.clone(),
            Term::Func { name, args, .. } => format!(
                "({} {})",
                name.text,
                args.iter().map(text).collect::<Vec<_>>().join(" ")
            ),
        }
    }

    #[test]
    fn unifies_through_chains_and_refuses_cycles() {
        let mut u = Unifier::default();
        assert!(u.unify(&var("x"), &var("y")));
        assert!(u.unify(&var("y"), &func("f", vec![constant("a"), var("z")])));
        assert!(u.unify(&var("z"), &constant("b")));
        assert_eq!(text(&u.apply(&var("x"))), "(f a b)");
        assert!(!u.unify(&var("x"), &func("f", vec![constant("b"), constant("b")])));
        let mut u = Unifier::default();
        assert!(!u.unify(&var("x"), &func("g", vec![var("x")])));
        assert!(!Unifier::default().unify(&constant("a"), &constant("b")));
    }
}

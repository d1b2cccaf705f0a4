//! Stratification (no negation through recursion) and the recursion restriction (no
//! unbounded term growth through recursion), on the normalised rules.

use std::collections::{BTreeSet, VecDeque};

use crate::diagnostic::{Code, Diagnostic};
use crate::normalize::deps::{Dependency, DependencyGraph, key_of};
use crate::normalize::{Literal, Rule, SplitName};
use crate::syntax::ast::{Atom, Term};

pub(super) fn check(rules: &[Rule], graph: &DependencyGraph, out: &mut Vec<Diagnostic>) {
    stratification(rules, graph, out);
    local_stratification(rules, out);
    restriction(rules, graph, out);
}

/// The relation index of an atom.
fn relation(graph: &DependencyGraph, atom: &Atom) -> Option<usize> {
    let key = key_of(atom);
    graph.relation(&key.name, key.arity)
}

fn name(graph: &DependencyGraph, relation: usize) -> String {
    graph
        .relations
        .get(relation)
        .map_or_else(|| "?".to_owned(), ToString::to_string)
}

/// Negated literals whose relation is in the head's component.
fn stratification(rules: &[Rule], graph: &DependencyGraph, out: &mut Vec<Diagnostic>) {
    let outgoing = super::outgoing(graph);
    for dep in graph
        .dependencies
        .iter()
        .filter(|dep| dep.negative && graph.same_component(dep.head, dep.body))
    {
        let Some(literal) = rules
            .get(dep.rule)
            .and_then(|rule| rule.body.get(dep.literal))
        else {
            continue;
        };
        let (head, body) = (name(graph, dep.head), name(graph, dep.body));
        let mut cycle = vec![head.clone(), format!("not {body}")];
        cycle.extend(
            path_back(graph, &outgoing, dep.body, dep.head)
                .into_iter()
                .map(|(relation, negative)| {
                    let relation = name(graph, relation);
                    if negative {
                        format!("not {relation}")
                    } else {
                        relation
                    }
                }),
        );
        out.push(
            Diagnostic::error(Code::Unstratified, unstratified(&head, &body))
                .at(literal.span(), "negated literal inside a recursion")
                .with_note(format!("cycle: {}", cycle.join(" → ")))
                .with_note(STRATIFIED),
        );
    }
}

/// The negated literals normalisation redirected to a relation split on constant
/// arguments ([`crate::normalize::split`]): a warning at each, in the user's rules
/// (the specialised copies repeat their literals).
fn local_stratification(rules: &[Rule], out: &mut Vec<Diagnostic>) {
    for rule in rules {
        if SplitName::of(&rule.head.name.text).is_some() {
            continue;
        }
        for literal in &rule.body {
            let Literal::Neg(atom) = literal else {
                continue;
            };
            let Some(split) = SplitName::of(&atom.name.text) else {
                continue;
            };
            let head = key_of(&rule.head).to_string();
            let body = format!("{}/{}", split.relation, split.original_arity(atom.arity()));
            let fixed: Vec<String> = split
                .ground
                .iter()
                .map(|(position, term)| format!("argument {} is `{term}`", position + 1))
                .collect();
            let auxiliary = format!("{}/{}", atom.name.text, atom.arity());
            out.push(
                Diagnostic::warning(Code::Unstratified, locally(&head, &body))
                    .at(
                        literal.span(),
                        format!(
                            "only the tuples of `{body}` where {} are negated here",
                            super::and_list(&fixed)
                        ),
                    )
                    .with_note(format!(
                        "`(not {})` is evaluated as `(not {atom})`: `{auxiliary}` holds those \
                         tuples, defined by the rules of `{body}` specialised to them",
                        split.original_text(&atom.args)
                    ))
                    .with_note(
                        "with every such negation split on its constant arguments, negation \
                         is stratified: the rules are locally stratified and have one meaning",
                    ),
            );
        }
    }
}

fn locally(head: &str, body: &str) -> String {
    if head == body {
        format!(
            "`{head}` depends on its own negation only across different constants (locally stratified)"
        )
    } else {
        format!(
            "`{head}` depends on the negation of `{body}`, which depends on `{head}`, \
             only across different constants (locally stratified)"
        )
    }
}

const STRATIFIED: &str = "GDL requires stratified negation: \
    no relation may depend on the negation of a relation that depends on it";

fn unstratified(head: &str, body: &str) -> String {
    if head == body {
        format!("`{head}` depends on its own negation")
    } else {
        format!("`{head}` depends on the negation of `{body}`, which depends on `{head}`")
    }
}

/// The relations (and whether each edge is negated) on a shortest path from `from` to
/// `to` inside their component, excluding `from`; empty if `from == to`.
fn path_back(
    graph: &DependencyGraph,
    outgoing: &[Vec<&Dependency>],
    from: usize,
    to: usize,
) -> Vec<(usize, bool)> {
    if from == to {
        return Vec::new();
    }
    let component = graph.component_of.get(from).copied();
    let mut parent: Vec<Option<(usize, bool)>> = vec![None; graph.relations.len()];
    let mut queue = VecDeque::from([from]);
    let mut seen = BTreeSet::from([from]);
    while let Some(r) = queue.pop_front() {
        if r == to {
            break;
        }
        for dep in outgoing.get(r).into_iter().flatten() {
            if graph.component_of.get(dep.body).copied() == component && seen.insert(dep.body) {
                if let Some(slot) = parent.get_mut(dep.body) {
                    *slot = Some((r, dep.negative));
                }
                queue.push_back(dep.body);
            }
        }
    }
    let mut path = Vec::new();
    let mut at = to;
    while let Some(&Some((previous, negative))) = parent.get(at) {
        path.push((at, negative));
        if previous == from || path.len() > graph.relations.len() {
            break;
        }
        at = previous;
    }
    path.reverse();
    path
}

const RESTRICTION: &str = "in a literal recursive with the head, each argument must be ground, \
    equal to a head argument, or have its variables bound by a positive literal outside the \
    recursion";

/// An argument `arg` of a literal of relation `body`, recursive with the `head`, whose
/// variables `free` are not bound outside the recursion.
fn restriction_error(arg: &Term, free: &[String], head: &str, body: &str) -> Diagnostic {
    let recursive = if head == body {
        format!("`{head}` is defined recursively")
    } else {
        format!("`{body}` is recursive with the head `{head}`")
    };
    let message =
        format!("argument `{arg}` of a recursive literal breaks the recursion restriction");
    let label = format!("{} not bound outside the recursion", super::and_list(free));
    Diagnostic::error(Code::Recursion, message)
        .at(arg.span(), label)
        .with_note(recursive)
        .with_note(RESTRICTION)
}

/// The recursion restriction: each argument of a positive body literal recursive with the
/// head is ground, a head argument, or has all its variables bound outside the recursion.
fn restriction(rules: &[Rule], graph: &DependencyGraph, out: &mut Vec<Diagnostic>) {
    for rule in rules {
        let Some(head) = relation(graph, &rule.head) else {
            continue;
        };
        let recursive = |atom| relation(graph, atom).is_some_and(|r| graph.same_component(r, head));
        let mut outside: BTreeSet<&str> = BTreeSet::new();
        for literal in &rule.body {
            if let Literal::Pos(atom) = literal
                && !recursive(atom)
            {
                atom.for_each_var(&mut |var| {
                    outside.insert(var.text.as_str());
                });
            }
        }
        let head_args: BTreeSet<String> = rule.head.args.iter().map(ToString::to_string).collect();
        for literal in &rule.body {
            let Literal::Pos(atom) = literal else {
                continue;
            };
            if !recursive(atom) {
                continue;
            }
            for arg in &atom.args {
                if arg.is_ground() || head_args.contains(&arg.to_string()) {
                    continue;
                }
                let mut free: Vec<String> = Vec::new();
                arg.for_each_var(&mut |var| {
                    let text = format!("`?{}`", var.text);
                    if !outside.contains(var.text.as_str()) && !free.contains(&text) {
                        free.push(text);
                    }
                });
                if free.is_empty() {
                    continue;
                }
                let body = key_of(atom).to_string();
                out.push(restriction_error(arg, &free, &name(graph, head), &body));
            }
        }
    }
}

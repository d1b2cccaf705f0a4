//! Keyword dependencies: what `init`, `legal`, `goal`, `terminal`, `base` and `input` may
//! not depend on, through the relation dependency graph.

use std::collections::VecDeque;

use crate::diagnostic::{Code, Diagnostic};
use crate::normalize::Rule;
use crate::normalize::deps::{Dependency, DependencyGraph};

/// A restricted keyword relation, the relations it may not depend on, and why.
struct Restriction {
    keyword: (&'static str, usize),
    forbidden: &'static [(&'static str, usize)],
    why: &'static str,
}

const RESTRICTIONS: [Restriction; 6] = [
    Restriction {
        keyword: ("init", 1),
        forbidden: &[
            ("true", 1),
            ("does", 2),
            ("next", 1),
            ("legal", 2),
            ("goal", 2),
            ("terminal", 0),
            ("sees", 2),
        ],
        why: "the initial state must not depend on any state, move or game outcome",
    },
    Restriction {
        keyword: ("legal", 2),
        forbidden: &[("does", 2)],
        why: "legal moves must be determined by the current state alone",
    },
    Restriction {
        keyword: ("goal", 2),
        forbidden: &[("does", 2)],
        why: "goal values must be determined by the current state alone",
    },
    Restriction {
        keyword: ("terminal", 0),
        forbidden: &[("does", 2)],
        why: "terminality must be determined by the current state alone",
    },
    Restriction {
        keyword: ("base", 1),
        forbidden: &[("true", 1), ("does", 2)],
        why: "`base` must not depend on the state or the moves",
    },
    Restriction {
        keyword: ("input", 2),
        forbidden: &[("true", 1), ("does", 2)],
        why: "`input` must not depend on the state or the moves",
    },
];

pub(super) fn check(rules: &[Rule], graph: &DependencyGraph, out: &mut Vec<Diagnostic>) {
    let outgoing = super::outgoing(graph);
    for Restriction {
        keyword: (name, arity),
        forbidden,
        why,
    } in RESTRICTIONS
    {
        let Some(start) = graph.relation(name, arity) else {
            continue;
        };
        let reached = search(start, &outgoing);
        for &(bad_name, bad_arity) in forbidden {
            let Some(bad) = graph.relation(bad_name, bad_arity) else {
                continue;
            };
            let Some(chain) = path(&reached, bad) else {
                continue;
            };
            if let Some(diagnostic) = report(rules, graph, name, bad_name, &chain, why) {
                out.push(diagnostic);
            }
        }
    }
}

/// Breadth-first search from `start`: for each relation reached, the dependency it was
/// reached by (`None` for `start` and unreached relations), and whether it was reached.
fn search<'a>(
    start: usize,
    outgoing: &[Vec<&'a Dependency>],
) -> Vec<(bool, Option<&'a Dependency>)> {
    let mut reached: Vec<(bool, Option<&Dependency>)> = vec![(false, None); outgoing.len()];
    if let Some(slot) = reached.get_mut(start) {
        slot.0 = true;
    }
    let mut queue = VecDeque::from([start]);
    while let Some(r) = queue.pop_front() {
        for &dep in outgoing.get(r).into_iter().flatten() {
            if let Some(slot) = reached.get_mut(dep.body)
                && !slot.0
            {
                *slot = (true, Some(dep));
                queue.push_back(dep.body);
            }
        }
    }
    reached
}

/// The dependencies from the search's start to `target`, in order, if it was reached.
fn path<'a>(
    reached: &[(bool, Option<&'a Dependency>)],
    target: usize,
) -> Option<Vec<&'a Dependency>> {
    let mut chain = Vec::new();
    let mut at = target;
    loop {
        match reached.get(at)? {
            (false, _) => return None,
            (true, None) => break,
            (true, Some(dep)) => {
                chain.push(*dep);
                at = dep.head;
            }
        }
        if chain.len() > reached.len() {
            return None;
        }
    }
    chain.reverse();
    (!chain.is_empty()).then_some(chain)
}

fn report(
    rules: &[Rule],
    graph: &DependencyGraph,
    keyword: &str,
    forbidden: &str,
    chain: &[&Dependency],
    why: &str,
) -> Option<Diagnostic> {
    let literal_span =
        |dep: &Dependency| rules.get(dep.rule)?.body.get(dep.literal).map(|l| l.span());
    let first = chain.first()?;
    let last = chain.last()?;
    let mut steps: Vec<String> = Vec::new();
    steps.push(graph.relations.get(first.head)?.to_string());
    for dep in chain {
        let relation = graph.relations.get(dep.body)?;
        steps.push(if dep.negative {
            format!("not {relation}")
        } else {
            relation.to_string()
        });
    }
    let mut diagnostic = Diagnostic::error(
        Code::KeywordDependency,
        format!("`{keyword}` depends on `{forbidden}`"),
    )
    .at(
        literal_span(first)?,
        format!("this makes `{keyword}` depend on `{forbidden}`"),
    );
    if chain.len() > 1 {
        diagnostic =
            diagnostic.with_secondary(literal_span(last)?, format!("`{forbidden}` used here"));
    }
    Some(
        diagnostic
            .with_note(format!("dependency chain: {}", steps.join(" → ")))
            .with_note(why),
    )
}

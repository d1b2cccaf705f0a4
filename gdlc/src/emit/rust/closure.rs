//! Recursive demand modes whose calls complete their own memo table, without the layer's
//! shared fixpoint.
//!
//! A call into a recursive demand layer is tabled: its evaluation makes a memo table per
//! call it meets, and when one of those calls finds a table still being filled, the
//! layer's leader repeats every table of the evaluation until none grows
//! (`rt::Fixpoints`). A queen's or an amazon's line written as linear recursion
//! (`(<= (line ?x1 ?x3) (succ ?x1 ?x2) (empty ?x2) (line ?x2 ?x3))`) then costs a memo
//! table per square of the line, each holding the rest of the line.
//!
//! Three shapes of mode complete the table of a call on their own. In each, every call
//! into the layer other than to the mode itself goes to a mode of one of these shapes
//! (found first: the relation is a least fixpoint), whose tables are complete when the
//! call returns.
//!
//! - [`Closure::Once`]: no call back into the mode. One pass over its rules.
//! - [`Closure::Own`]: every call back into the mode has the call's own key (left-linear
//!   recursion, `(<= (p ?k ?y) (p ?k ?x) (step ?x ?y))`). Passes over the rules until
//!   the table stops growing; those calls read the table being filled.
//! - [`Closure::Chain`]: right-linear recursion. A rule has at most one call back into
//!   the mode, and each such call's unbound columns are variables of the head at the
//!   same columns, which occur nowhere else in the rule. The answers of a key are then
//!   the answers of the rules without such a call (exit rules) at every key reachable
//!   from it through such calls, with the key's own bound columns. The evaluation
//!   walks the reachable keys (a work list that is its own visited set) and runs the
//!   rules at each: a call back into the mode adds its key to the list, an exit rule
//!   adds its answer, the bound columns rewritten to the first key's.
//!
//! The join backend's evaluation of a mode of any other shape is unchanged; the
//! executor (the reference the generated code is checked against) is unchanged.

use std::collections::BTreeMap;

use crate::ir::{Arg, Ir, VarId};
use crate::plan::{Access, DemandMode, Evaluation, Node, Plan, Query, Slot, Test};

/// How a recursive demand mode completes the memo table of a call (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Closure {
    /// No call back into the mode: one pass.
    Once,
    /// Calls back into the mode have the call's key: passes until the table stops
    /// growing.
    Own,
    /// Right-linear: the keys reachable through calls back into the mode, walked as a
    /// work list.
    Chain,
}

/// The modes of recursive demand layers that complete their tables on their own, by
/// (relation, mode).
pub(super) fn closures(ir: &Ir, plan: &Plan) -> BTreeMap<(usize, usize), Closure> {
    let mut closed = BTreeMap::new();
    loop {
        let mut added = false;
        for (r, relation) in plan.relations.iter().enumerate() {
            let Evaluation::Demand(modes) = &relation.evaluation else {
                continue;
            };
            if !ir.layers[ir.layer_of[r]].cyclic {
                continue;
            }
            for (m, mode) in modes.iter().enumerate() {
                if closed.contains_key(&(r, m)) {
                    continue;
                }
                if let Some(closure) = classify(ir, r, m, mode, &closed) {
                    closed.insert((r, m), closure);
                    added = true;
                }
            }
        }
        if !added {
            return closed;
        }
    }
}

/// The shape of mode `m` of relation `r`, given the modes already found closed; `None`
/// when it needs the layer's fixpoint.
fn classify(
    ir: &Ir,
    r: usize,
    m: usize,
    mode: &DemandMode,
    closed: &BTreeMap<(usize, usize), Closure>,
) -> Option<Closure> {
    let layer = ir.layer_of[r];
    let in_layer = |q: &Query| ir.layer_of[q.relation.0 as usize] == layer;
    let mut rules = Vec::new();
    collect_rules(&mode.tree, &mut rules)?;
    let (mut own, mut chain) = (0, 0);
    for rule in rules {
        let Node::Query { query: input, .. } = rule else {
            return None;
        };
        if input.access != Access::Input {
            return None;
        }
        let mut calls = Vec::new();
        let mut negated = false;
        rule.for_each_query_negated(&mut |query, under_not| {
            if in_layer(query) && query.access != Access::Input {
                negated |= under_not;
                calls.push(query);
            }
        });
        if negated {
            return None;
        }
        let mut back = Vec::new();
        for call in calls {
            let Access::Call(called) = call.access else {
                return None;
            };
            if (call.relation.0 as usize, called) == (r, m) {
                back.push(call);
            } else if !closed.contains_key(&(call.relation.0 as usize, called)) {
                return None;
            }
        }
        for call in &back {
            if same_key(input, call, &mode.bound) {
                own += 1;
            } else if back.len() == 1 && passes_through(rule, call, &mode.bound) {
                chain += 1;
            } else {
                return None;
            }
        }
    }
    match (own, chain) {
        (0, 0) => Some(Closure::Once),
        (_, 0) => Some(Closure::Own),
        (0, _) => Some(Closure::Chain),
        _ => None,
    }
}

/// The bodies of the mode's rules (each starts with the input query); `None` for a tree
/// of another shape.
fn collect_rules<'n>(node: &'n Node, out: &mut Vec<&'n Node>) -> Option<()> {
    match node {
        Node::Sequence(children) => {
            for child in children {
                collect_rules(child, out)?;
            }
            Some(())
        }
        Node::Rule { body, .. } => {
            out.push(body);
            Some(())
        }
        _ => None,
    }
}

/// What a slot of the input or of a call's key holds.
fn key_value(slot: Slot) -> Option<Arg> {
    match slot {
        Slot::Sym(s) => Some(Arg::Sym(s)),
        Slot::Bound(v) | Slot::Bind(v) | Slot::Same(v) => Some(Arg::Var(v)),
        Slot::Free => None,
    }
}

/// Whether `call` passes the key the rule's `input` query read, column for column.
fn same_key(input: &Query, call: &Query, bound: &[usize]) -> bool {
    bound.iter().all(|&c| {
        let from_call = match call.slots[c] {
            Slot::Sym(s) => Some(Arg::Sym(s)),
            Slot::Bound(v) => Some(Arg::Var(v)),
            _ => None,
        };
        from_call.is_some() && from_call == key_value(input.slots[c])
    })
}

/// Whether each unbound column of `call` binds a variable that the rule's head has at
/// the same column and that occurs nowhere else in the rule.
fn passes_through(rule: &Node, call: &Query, bound: &[usize]) -> bool {
    let mut accepts = Vec::new();
    find_accepts(rule, &mut accepts);
    let [head] = accepts[..] else {
        return false;
    };
    (0..call.slots.len())
        .filter(|c| !bound.contains(c))
        .all(|c| match call.slots[c] {
            Slot::Bind(v) => head.get(c) == Some(&Arg::Var(v)) && occurrences(rule, v) == 2,
            _ => false,
        })
}

/// The head arguments of every accept of the tree.
fn find_accepts<'n>(node: &'n Node, out: &mut Vec<&'n [Arg]>) {
    match node {
        Node::Sequence(children) => {
            for child in children {
                find_accepts(child, out);
            }
        }
        Node::Repeat(body) | Node::Rule { body, .. } => find_accepts(body, out),
        Node::SemiNaive {
            initial, rounds, ..
        } => {
            find_accepts(initial, out);
            find_accepts(rounds, out);
        }
        Node::Query { then, .. } | Node::If { then, .. } => find_accepts(then, out),
        Node::Accept { args, .. } => out.push(args),
    }
}

/// How many slots, test arguments and head arguments of the tree hold `v`.
fn occurrences(node: &Node, v: VarId) -> usize {
    let in_query = |q: &Query| {
        q.slots
            .iter()
            .filter(|&&s| matches!(s, Slot::Bound(x) | Slot::Bind(x) | Slot::Same(x) if x == v))
            .count()
    };
    let in_args = |args: &[Arg]| args.iter().filter(|&&a| a == Arg::Var(v)).count();
    match node {
        Node::Sequence(children) => children.iter().map(|c| occurrences(c, v)).sum(),
        Node::Repeat(body) | Node::Rule { body, .. } => occurrences(body, v),
        Node::SemiNaive {
            initial, rounds, ..
        } => occurrences(initial, v) + occurrences(rounds, v),
        Node::Query { query, then } => in_query(query) + occurrences(then, v),
        Node::If { test, then } => {
            let here = match test {
                Test::Absent(query) => in_query(query),
                Test::Distinct(pairs) | Test::Equal(pairs) => {
                    pairs.iter().map(|&(a, b)| in_args(&[a, b])).sum()
                }
            };
            here + occurrences(then, v)
        }
        Node::Accept { args, .. } => in_args(args),
    }
}

//! A bound on the length of every game, proved from a step counter: a fluent
//! `(c v)` that starts at some constants, moves along a successor table in every step
//! and ends the game at some of its values.
//!
//! The domain analysis ([`super::domains`]) asks for it when terms nest deeper from
//! state to state (`(next (msg (ack ?m)))`): a game that lasts at most `L` steps nests
//! them at most `L` times, so `true` only needs the fluents of its first `L` steps.
//!
//! What is proved, on the rules as written (no evaluation):
//!
//! - some `init` fact `(init (c v))` holds a constant `v`;
//! - some `next` rule is `(<= (next (c ?n)) (true (c ?r)) (s ?r ?n))` exactly (in
//!   either order; `s` may have more arguments, constants, as in `(plus ?r 1 ?n)`),
//!   for a relation `s` whose rules are all ground facts — so every
//!   value the counter holds is followed, in the next state, by all its successors,
//!   whatever the players do (other rules may add values: they only add);
//! - `terminal` holds in every state holding `(c v)` for the *final* values `v`: a
//!   rule `(<= terminal (true (c v)))`, or `(<= terminal p)` and `(<= p (true (c v)))`
//!   for a proposition `p`;
//! - from the initial values, the successor table has no cycle, and every value
//!   reached is final or has a successor.
//!
//! Then after `t` steps the counter holds the ends of every successor path of length
//! `t` from an initial value, and every path ends at a final value: the game lasts at
//! most the longest such path, `L` steps.

use std::collections::{BTreeMap, BTreeSet};

use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Term};

/// The most values a counter's successor table may reach from its initial values for
/// the bound to be sought (a longer table bounds nothing useful).
const MAX_COUNTER_VALUES: usize = 100_000;

/// A proved bound on the number of joint moves of every game of `rules`, with the
/// counter fluent's name that proves it; `None` when no counter is found.
pub fn length_bound(rules: &[Rule]) -> Option<(String, usize)> {
    let mut best: Option<(String, usize)> = None;
    for name in counter_candidates(rules) {
        if let Some(length) = counter_bound(rules, &name)
            && best.as_ref().is_none_or(|(_, b)| length < *b)
        {
            best = Some((name, length));
        }
    }
    best
}

/// Names of unary fluents some `next` rule derives (sorted).
fn counter_candidates(rules: &[Rule]) -> BTreeSet<String> {
    rules
        .iter()
        .filter(|r| r.head.is("next", 1))
        .filter_map(|r| match &r.head.args[0] {
            Term::Func { name, args, .. } if args.len() == 1 => Some(name.text.clone()),
            _ => None,
        })
        .collect()
}

/// The constant of `term` when it is `(name v)` with `v` a constant.
fn counter_value<'a>(term: &'a Term, name: &str) -> Option<&'a str> {
    match term {
        Term::Func { name: f, args, .. } if f.text == name && args.len() == 1 => match &args[0] {
            Term::Const(v) => Some(&v.text),
            _ => None,
        },
        _ => None,
    }
}

/// The bound proved by counter `name`, if it is one (see the module doc): the least
/// over its successor relations.
fn counter_bound(rules: &[Rule], name: &str) -> Option<usize> {
    let initial = initial_values(rules, name);
    if initial.is_empty() {
        return None;
    }
    let finals = final_values(rules, name);
    successor_steps(rules, name)
        .iter()
        .filter_map(|step| longest_path(&initial, &table_of(rules, step)?, &finals))
        .min()
}

/// The counter's values in `init` facts (other `init` rules only add values, which
/// advance too).
fn initial_values(rules: &[Rule], name: &str) -> Vec<String> {
    rules
        .iter()
        .filter(|r| r.head.is("init", 1) && r.body.is_empty())
        .filter_map(|r| counter_value(&r.head.args[0], name).map(str::to_owned))
        .collect()
}

/// A successor step of a counter: the atom `(s … ?r … ?n …)` of a rule `(<= (next (c
/// ?n)) (true (c ?r)) (s … ?r … ?n …))`, its other arguments constants.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Step {
    relation: String,
    /// Per argument: `None` for the two variables, else the constant.
    args: Vec<Option<String>>,
    /// The positions of `?r` and `?n`.
    from: usize,
    to: usize,
}

/// The successor steps of the counter's `next` rules of the form
/// `(<= (next (c ?n)) (true (c ?r)) (s … ?r … ?n …))` (sorted): each such rule adds,
/// for every value held, all its successors, whatever else holds.
fn successor_steps(rules: &[Rule], name: &str) -> BTreeSet<Step> {
    rules
        .iter()
        .filter(|r| r.head.is("next", 1))
        .filter_map(|rule| successor_step(rule, name))
        .collect()
}

/// The step of a rule `(<= (next (c ?n)) (true (c ?r)) (s … ?r … ?n …))`, in either
/// order.
fn successor_step(rule: &Rule, name: &str) -> Option<Step> {
    let var = |t: &Term| match t {
        Term::Var(v) => Some(v.text.clone()),
        _ => None,
    };
    let counter_var = |t: &Term| match t {
        Term::Func { name: f, args, .. } if f.text == name && args.len() == 1 => var(&args[0]),
        _ => None,
    };
    let next = counter_var(&rule.head.args[0])?;
    let [Literal::Pos(a), Literal::Pos(b)] = rule.body.as_slice() else {
        return None;
    };
    let (current, step) = if a.is("true", 1) { (a, b) } else { (b, a) };
    if !current.is("true", 1) {
        return None;
    }
    let previous = counter_var(&current.args[0])?;
    let position = |v: &str| {
        let mut at = step
            .args
            .iter()
            .enumerate()
            .filter(|(_, t)| var(t).as_deref() == Some(v));
        at.next().filter(|_| at.next().is_none()).map(|(i, _)| i)
    };
    let (from, to) = (position(&previous)?, position(&next)?);
    let args = step
        .args
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            _ if i == from || i == to => Some(None),
            Term::Const(c) => Some(Some(c.text.clone())),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    (previous != next).then(|| Step {
        relation: step.name.text.clone(),
        args,
        from,
        to,
    })
}

/// The successor table of `step`: its relation's facts that match its constants, from
/// value to values; `None` unless every rule of the relation is a fact of constants.
fn table_of(rules: &[Rule], step: &Step) -> Option<BTreeMap<String, Vec<String>>> {
    let mut table: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for rule in rules.iter().filter(|r| r.head.name.text == step.relation) {
        if !rule.body.is_empty() {
            return None;
        }
        if rule.head.args.len() != step.args.len() {
            continue;
        }
        let values = rule
            .head
            .args
            .iter()
            .map(|t| match t {
                Term::Const(c) => Some(c.text.as_str()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let matches = step
            .args
            .iter()
            .zip(&values)
            .all(|(want, have)| want.as_deref().is_none_or(|w| w == *have));
        if matches {
            table
                .entry(values[step.from].to_owned())
                .or_default()
                .push(values[step.to].to_owned());
        }
    }
    Some(table)
}

/// The counter values whose fluent alone makes a state terminal.
fn final_values(rules: &[Rule], name: &str) -> BTreeSet<String> {
    // Propositions that hold whenever the counter holds a value, by value.
    let held_value = |rule: &Rule| -> Option<String> {
        match rule.body.as_slice() {
            [Literal::Pos(atom)] if atom.is("true", 1) => {
                counter_value(&atom.args[0], name).map(str::to_owned)
            }
            _ => None,
        }
    };
    let mut propositions: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for rule in rules.iter().filter(|r| r.head.args.is_empty()) {
        if let Some(value) = held_value(rule) {
            propositions
                .entry(&rule.head.name.text)
                .or_default()
                .insert(value);
        }
    }
    let mut finals = propositions.get("terminal").cloned().unwrap_or_default();
    for rule in rules.iter().filter(|r| r.head.is("terminal", 0)) {
        if let [Literal::Pos(Atom { name: p, args, .. })] = rule.body.as_slice()
            && args.is_empty()
            && let Some(values) = propositions.get(p.text.as_str())
        {
            finals.extend(values.iter().cloned());
        }
    }
    finals
}

/// The most successor steps from an initial value to a final one, when every value
/// reached before a final one has a successor and none lies on a cycle.
fn longest_path(
    initial: &[String],
    table: &BTreeMap<String, Vec<String>>,
    finals: &BTreeSet<String>,
) -> Option<usize> {
    // Depth-first, with the longest path from each value remembered once it is known.
    let mut longest: BTreeMap<&str, usize> = BTreeMap::new();
    let mut on_path: BTreeSet<&str> = BTreeSet::new();
    let mut stack: Vec<(&str, usize)> = initial.iter().map(|v| (v.as_str(), 0)).collect();
    while let Some(&(value, next_child)) = stack.last() {
        if finals.contains(value) || longest.contains_key(value) && next_child == 0 {
            longest.entry(value).or_insert(0);
            stack.pop();
            continue;
        }
        let children = table.get(value).map(Vec::as_slice).unwrap_or_default();
        if children.is_empty() || longest.len() > MAX_COUNTER_VALUES {
            return None;
        }
        if next_child == 0 {
            on_path.insert(value);
        }
        if let Some(child) = children.get(next_child) {
            stack.last_mut().expect("not empty").1 += 1;
            if on_path.contains(child.as_str()) {
                return None;
            }
            if !longest.contains_key(child.as_str()) {
                stack.push((child, 0));
            }
            continue;
        }
        let length = 1 + children
            .iter()
            .map(|c| longest[c.as_str()])
            .max()
            .unwrap_or(0);
        longest.insert(value, length);
        on_path.remove(value);
        stack.pop();
    }
    initial
        .iter()
        .map(|v| longest.get(v.as_str()).copied())
        .max()?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<Rule> {
        let front = crate::front_end(&crate::SourceFile::new("t.kif", text));
        assert!(front.is_valid(), "{:?}", front.diagnostics);
        front.rules.clone()
    }

    const BASE: &str = "(role a) (init (round 0)) (<= (legal a wait) (true (round ?r)))
        (<= (goal a 100) (true (round ?r)))
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)";

    #[test]
    fn a_round_counter_bounds_the_game() {
        let game = format!(
            "{BASE} (<= (next (round ?n)) (true (round ?r)) (succ ?r ?n))
             (<= terminal (true (round 5)))"
        );
        assert_eq!(length_bound(&rules(&game)), Some(("round".to_owned(), 5)));
        // Through a proposition, the earliest final value counting.
        let game = format!(
            "{BASE} (<= (next (round ?n)) (succ ?r ?n) (true (round ?r)))
             (<= timeout (true (round 3))) (<= terminal timeout)"
        );
        assert_eq!(length_bound(&rules(&game)), Some(("round".to_owned(), 3)));
        // A rule that adds a value back (a reset) only adds: the first value still
        // advances to the end.
        let game = format!(
            "{BASE} (<= (next (round ?n)) (true (round ?r)) (succ ?r ?n))
             (<= (next (round 0)) (does a wait))
             (<= terminal (true (round 5)))"
        );
        assert_eq!(length_bound(&rules(&game)), Some(("round".to_owned(), 5)));
        // A step through a table with more arguments, its other ones constants.
        let game = "(role a) (init (t 0)) (<= (legal a wait) (true (t ?r)))
            (<= (goal a 100) (true (t ?r)))
            (plus 0 1 1) (plus 1 1 2) (plus 2 1 3) (plus 0 2 2) (plus 1 2 3)
            (<= (next (t ?n)) (true (t ?r)) (plus ?r 1 ?n))
            (<= terminal (true (t 3)))";
        assert_eq!(length_bound(&rules(game)), Some(("t".to_owned(), 3)));
    }

    #[test]
    fn a_counter_that_may_stop_or_never_ends_bounds_nothing() {
        // The counter advances only when a player waits: it may stand still.
        let game = format!(
            "{BASE} (<= (next (round ?n)) (true (round ?r)) (succ ?r ?n) (does a wait))
             (<= terminal (true (round 5)))"
        );
        assert_eq!(length_bound(&rules(&game)), None);
        // No final value: the counter runs off its table.
        let game = format!(
            "{BASE} (<= (next (round ?n)) (true (round ?r)) (succ ?r ?n))
             (<= terminal (true (round 9)))"
        );
        assert_eq!(length_bound(&rules(&game)), None);
        // A cycle before the final value.
        let game = format!(
            "{BASE} (succ 5 0) (<= (next (round ?n)) (true (round ?r)) (succ ?r ?n))
             (<= terminal (true (round 7)))"
        );
        assert_eq!(length_bound(&rules(&game)), None);
        // Terminal only with another condition.
        let game = format!(
            "{BASE} (<= (next (round ?n)) (true (round ?r)) (succ ?r ?n))
             (<= terminal (true (round 5)) (true (round 1)))"
        );
        assert_eq!(length_bound(&rules(&game)), None);
    }
}

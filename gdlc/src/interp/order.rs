//! The order a rule's body runs in for a call: chosen from the game's structure, never
//! from the order the literals were written in.
//!
//! For each rule and set of head columns a call binds, the body is ordered greedily:
//! every test (negation, `distinct`, equality, or a positive literal whose variables
//! are all bound) runs as soon as its variables are bound; otherwise the positive
//! literal expected to match the fewest tuples goes next. Expected matches come from
//! the relation's *sample* where it has one — the ground facts of a relation defined
//! only by facts, the initial state for `true`, one move per role for `does` — as the
//! tuples agreeing with the literal's constants and repeated variables, divided by the
//! distinct values at each bound variable's place (uniform selectivity) — for `true`
//! at least one, plus a scan of the whole state (at least [`STATE_GUESS`] fluents)
//! unless the fluent is known, as only whole fluents are indexed. A derived relation's
//! answers are estimated from its own rules, the same way (the product of the matches
//! of each rule's ordered body, summed over its rules; [`Estimates`]), a call met again
//! while being estimated guessed at ten answers per free column; a call back into the
//! head's own recursive component costs ten times its answers (binding before
//! recursing keeps its tables small). Ties go to the literal with fewer free
//! variables, then to facts before stored relations before derived ones, then to the
//! literal with more constants, and only then to the written position, which no
//! estimate separates from an equal one.
//!
//! Only speed depends on this: the answers of a call are the same in any order, as
//! negation and `distinct` run only once their variables are bound.

use rustc_hash::{FxHashMap, FxHashSet};

use super::program::{Pat, Program, Sample, Step, bound_mask};
use super::relation::ColumnMask;
use super::terms::{TermId, TermStore};

/// The most tuples a sample keeps (evenly spaced).
pub const MAX_SAMPLE: usize = 512;

/// The fewest fluents a state is guessed to hold when a lookup of `true` scans it.
pub const STATE_GUESS: usize = 32;

/// Keeps at most [`MAX_SAMPLE`] of `tuples`, evenly spaced.
pub fn thinned(mut tuples: Vec<Box<[TermId]>>) -> Vec<Box<[TermId]>> {
    if tuples.len() <= MAX_SAMPLE {
        return tuples;
    }
    let step = tuples.len() as f64 / MAX_SAMPLE as f64;
    (0..MAX_SAMPLE)
        .map(|i| std::mem::take(&mut tuples[(i as f64 * step) as usize]))
        .collect()
}

/// Expected answers of derived relations per set of bound columns, remembered for the
/// interpreter's lifetime (they depend on the rules alone).
#[derive(Clone, Debug, Default)]
pub struct Estimates {
    /// (answers, work) of a call.
    answers: FxHashMap<(usize, ColumnMask), (f64, f64)>,
    active: FxHashSet<(usize, ColumnMask)>,
}

/// The body of rule `r` in run order for a call binding the head columns of
/// `head_mask`: (step index, bound columns of that step) pairs.
pub fn order(
    program: &Program,
    store: &TermStore,
    estimates: &mut Estimates,
    r: usize,
    head_mask: ColumnMask,
) -> Vec<(u32, ColumnMask)> {
    ordered(program, store, estimates, r, head_mask).0
}

/// [`order`], the answers the rule is expected to give for such a call (the product of
/// its steps' matches; a test halves them) and the work it costs (the sum over its
/// steps of the rows reaching the step times the step's cost).
fn ordered(
    program: &Program,
    store: &TermStore,
    estimates: &mut Estimates,
    r: usize,
    head_mask: ColumnMask,
) -> (Vec<(u32, ColumnMask)>, f64, f64) {
    let rule = &program.rules[r];
    let mut bound = vec![false; rule.num_vars];
    for (i, pat) in rule.head.iter().enumerate().take(64) {
        if head_mask & (1 << i) != 0 {
            pat.for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    let positives = positive_order(program, store, estimates, r, &bound);
    let mut next_positive = positives.iter().peekable();
    let mut left: Vec<usize> = (0..rule.steps.len()).collect();
    let mut placed = Vec::with_capacity(rule.steps.len());
    let mut rows = 1.0f64;
    let mut work = 0.0f64;
    while !left.is_empty() {
        let ready = left
            .iter()
            .position(|&s| is_test(&rule.steps[s]) && vars_bound(&rule.steps[s], &bound));
        let (at, matches, cost) = match (ready, next_positive.peek()) {
            (Some(at), _) => (
                at,
                0.5,
                test_cost(program, store, estimates, &rule.steps[left[at]], &bound),
            ),
            (None, Some(&&p)) => {
                next_positive.next();
                let (matches, cost) = candidate(program, store, estimates, r, p, &bound);
                (
                    left.iter().position(|&s| s == p).unwrap_or(0),
                    matches,
                    cost,
                )
            }
            // A test no positive literal binds (not in a safe rule): last.
            (None, None) => (0, 0.5, 1.0),
        };
        work = (work + rows * cost).min(1e12);
        rows = (rows * matches).min(1e12);
        let s = left.remove(at);
        let mask = match &rule.steps[s] {
            Step::Scan { pats, .. } => {
                let mask = bound_mask(pats, &bound);
                pats.iter()
                    .for_each(|p| p.for_each_var(&mut |v| bound[v as usize] = true));
                mask
            }
            _ => 0,
        };
        placed.push((s as u32, mask));
    }
    (placed, rows, work)
}

/// The most positive literals ordered exactly (over every subset); beyond, greedily.
pub const MAX_EXACT: usize = 8;

/// The positive literals of rule `r` (step indices) in the order of least estimated
/// work with `bound` bound: exact by dynamic programming over subsets up to
/// [`MAX_EXACT`] literals (tests counted as they become ready), greedy beyond.
fn positive_order(
    program: &Program,
    store: &TermStore,
    estimates: &mut Estimates,
    r: usize,
    bound: &[bool],
) -> Vec<usize> {
    let rule = &program.rules[r];
    let positives: Vec<usize> = (0..rule.steps.len())
        .filter(|&s| !is_test(&rule.steps[s]))
        .collect();
    let n = positives.len();
    if n > MAX_EXACT {
        let mut b = bound.to_vec();
        let mut left = positives.clone();
        let mut order = Vec::with_capacity(n);
        while !left.is_empty() {
            let (at, _, _) = cheapest(program, store, estimates, r, &left, &b);
            let s = left.remove(at);
            if let Step::Scan { pats, .. } = &rule.steps[s] {
                pats.iter()
                    .for_each(|p| p.for_each_var(&mut |v| b[v as usize] = true));
            }
            order.push(s);
        }
        return order;
    }
    let tests: Vec<usize> = (0..rule.steps.len())
        .filter(|&s| is_test(&rule.steps[s]))
        .collect();
    let bound_after = |mask: usize| {
        let mut b = bound.to_vec();
        for (i, &s) in positives.iter().enumerate() {
            if mask & (1 << i) != 0
                && let Step::Scan { pats, .. } = &rule.steps[s]
            {
                pats.iter()
                    .for_each(|p| p.for_each_var(&mut |v| b[v as usize] = true));
            }
        }
        b
    };
    let full = (1usize << n) - 1;
    // best[mask]: (work, rows, last literal) of the cheapest order of `mask`.
    let mut best: Vec<Option<(f64, f64, usize)>> = vec![None; full + 1];
    best[0] = Some((0.0, 1.0, usize::MAX));
    for mask in 0..full {
        let Some((work, rows, _)) = best[mask] else {
            continue;
        };
        let b = bound_after(mask);
        for i in (0..n).filter(|i| mask & (1 << i) == 0) {
            let (matches, cost) = candidate(program, store, estimates, r, positives[i], &b);
            let next = mask | (1 << i);
            let after = bound_after(next);
            let mut total = work + rows * cost;
            let mut rows_after = (rows * matches).min(1e12);
            for &t in &tests {
                if vars_bound(&rule.steps[t], &after) && !vars_bound(&rule.steps[t], &b) {
                    total +=
                        rows_after * test_cost(program, store, estimates, &rule.steps[t], &after);
                    rows_after *= 0.5;
                }
            }
            if best[next].is_none_or(|(w, _, _)| total < w) {
                best[next] = Some((total.min(1e12), rows_after, i));
            }
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut mask = full;
    while mask != 0 {
        let Some((_, _, i)) = best[mask] else {
            break;
        };
        order.push(positives[i]);
        mask &= !(1 << i);
    }
    order.reverse();
    order
}

/// The cost of a test: one, or evaluating the call a negation makes.
fn test_cost(
    program: &Program,
    store: &TermStore,
    estimates: &mut Estimates,
    step: &Step,
    bound: &[bool],
) -> f64 {
    match step {
        Step::Absent { rel, pats } if !program.relations[*rel].stored => {
            let all = bound_mask(pats, bound);
            1.0 + estimate(program, store, estimates, *rel, all).1
        }
        _ => 1.0,
    }
}

/// Expected answers and work of a call of derived relation `rel` binding the columns
/// of `mask`: the sums over its rules; a call met again while it is estimated
/// (recursion) is guessed at ten answers and as much work per free column.
fn estimate(
    program: &Program,
    store: &TermStore,
    estimates: &mut Estimates,
    rel: usize,
    mask: ColumnMask,
) -> (f64, f64) {
    if let Some(&known) = estimates.answers.get(&(rel, mask)) {
        return known;
    }
    let info = &program.relations[rel];
    let free = (0..info.arity.min(64))
        .filter(|c| mask & (1 << c) == 0)
        .count();
    if !estimates.active.insert((rel, mask)) {
        let guess = 10f64.powi(free as i32);
        return (guess, guess);
    }
    let (mut answers, mut work) = (0.0f64, 0.0f64);
    for &r in &info.rules {
        let (_, rows, cost) = ordered(program, store, estimates, r, mask);
        answers += rows;
        work += 1.0 + cost;
    }
    estimates.active.remove(&(rel, mask));
    let total = (answers.min(1e12), work.min(1e12));
    estimates.answers.insert((rel, mask), total);
    total
}

/// Whether a step only filters (binds nothing once its variables are bound).
fn is_test(step: &Step) -> bool {
    !matches!(step, Step::Scan { .. })
}

fn vars_bound(step: &Step, bound: &[bool]) -> bool {
    let mut all = true;
    let mut check = |v: u16| all &= bound[v as usize];
    match step {
        Step::Scan { pats, .. } | Step::Absent { pats, .. } => {
            pats.iter().for_each(|p| p.for_each_var(&mut check));
        }
        Step::Distinct(a, b) | Step::Equal(a, b) => {
            a.for_each_var(&mut check);
            b.for_each_var(&mut check);
        }
    }
    all
}

/// The position in `left` of the step to run next when no test is ready, and its
/// expected matches: the positive literal of least (cost, free variables, kind,
/// constants, position), its cost being its matches plus what it scans (and ten times
/// that for a call back into the head's recursive component that leaves a column
/// free); a test whose variables no literal left can bind (not in a safe rule) only
/// when nothing else is.
fn cheapest(
    program: &Program,
    store: &TermStore,
    estimates: &mut Estimates,
    r: usize,
    left: &[usize],
    bound: &[bool],
) -> (usize, f64, f64) {
    let rule = &program.rules[r];
    let mut best: Option<(usize, f64, f64, Key)> = None;
    for (at, &s) in left.iter().enumerate() {
        let Step::Scan { rel, pats } = &rule.steps[s] else {
            continue;
        };
        let mut free = FxHashSet::default();
        let mut constants = 0;
        for pat in pats.iter() {
            count_leaves(pat, bound, &mut free, &mut constants);
        }
        let (matches, cost) = candidate(program, store, estimates, r, s, bound);
        let kind = match program.relations[*rel].sample {
            Sample::Tuples(_) if !program.relations[*rel].stored => 0,
            Sample::Tuples(_) | Sample::Moves(_) => 1,
            Sample::Derived => 2,
        };
        let key = (
            cost + matches,
            free.len(),
            kind,
            std::cmp::Reverse(constants),
            s,
        );
        if best
            .as_ref()
            .is_none_or(|(_, _, _, b)| key.partial_cmp(b) == Some(std::cmp::Ordering::Less))
        {
            best = Some((at, matches, cost, key));
        }
    }
    best.map_or((0, 1.0, 1.0), |(at, matches, cost, _)| (at, matches, cost))
}

/// The expected matches and cost of positive step `s` of rule `r` with `bound` bound
/// (see the module docs).
fn candidate(
    program: &Program,
    store: &TermStore,
    estimates: &mut Estimates,
    r: usize,
    s: usize,
    bound: &[bool],
) -> (f64, f64) {
    let Step::Scan { rel, pats } = &program.rules[r].steps[s] else {
        return (0.5, 1.0);
    };
    let mut free = FxHashSet::default();
    let mut constants = 0;
    for pat in pats.iter() {
        count_leaves(pat, bound, &mut free, &mut constants);
    }
    let info = &program.relations[*rel];
    let (matches, cost) = match &info.sample {
        Sample::Moves(roles) => match pats.first() {
            Some(first) if pat_bound(first, bound) => (1.0, 1.0),
            _ => (*roles as f64, 1.0),
        },
        Sample::Tuples(tuples) if info.stored => {
            // The state: the initial state's matches (at least one, as states grow),
            // and a scan of the whole state unless the fluent is known, as only whole
            // fluents are indexed.
            let matches = sampled_matches(store, tuples, pats, bound).max(1.0);
            let scan = if free.is_empty() {
                1.0
            } else {
                tuples.len().max(STATE_GUESS) as f64
            };
            (matches, scan)
        }
        Sample::Tuples(tuples) => (sampled_matches(store, tuples, pats, bound), 1.0),
        Sample::Derived => {
            let mask = bound_mask(pats, bound);
            let (answers, work) = estimate(program, store, estimates, *rel, mask);
            let recursive = program.same_component(*rel, program.head_of[r]);
            let cost = 1.0 + work;
            (
                answers,
                if recursive && !free.is_empty() {
                    10.0 * cost
                } else {
                    cost
                },
            )
        }
    };
    (
        if free.is_empty() {
            matches.min(0.5)
        } else {
            matches
        },
        cost,
    )
}

/// How candidate literals compare (see [`cheapest`]).
type Key = (f64, usize, u8, std::cmp::Reverse<usize>, usize);

fn pat_bound(pat: &Pat, bound: &[bool]) -> bool {
    let mut all = true;
    pat.for_each_var(&mut |v| all &= bound[v as usize]);
    all
}

fn count_leaves(pat: &Pat, bound: &[bool], free: &mut FxHashSet<u16>, constants: &mut usize) {
    match pat {
        Pat::Var(v) if !bound[*v as usize] => {
            free.insert(*v);
        }
        Pat::Var(_) => {}
        Pat::Term(_) => *constants += 1,
        Pat::App(_, args) => {
            *constants += 1;
            args.iter()
                .for_each(|a| count_leaves(a, bound, free, constants));
        }
    }
}

/// The sample's tuples agreeing with `pats` (constants, functors, repeated variables),
/// divided by the distinct values of each bound variable among them.
fn sampled_matches(
    store: &TermStore,
    tuples: &[Box<[TermId]>],
    pats: &[Pat],
    bound: &[bool],
) -> f64 {
    let mut matching = 0usize;
    let mut values: FxHashMap<u16, FxHashSet<TermId>> = FxHashMap::default();
    let mut seen: Vec<(u16, TermId)> = Vec::new();
    for tuple in tuples {
        seen.clear();
        if tuple.len() != pats.len()
            || !pats
                .iter()
                .zip(tuple.iter())
                .all(|(p, &t)| agrees(store, p, t, &mut seen))
        {
            continue;
        }
        matching += 1;
        for &(v, t) in &seen {
            if bound[v as usize] {
                values.entry(v).or_default().insert(t);
            }
        }
    }
    let mut estimate = matching as f64;
    for distinct in values.values() {
        estimate /= distinct.len().max(1) as f64;
    }
    // Fewer than one expected match still costs a lookup; a relation the sample
    // shows empty for this pattern may still hold in other states.
    estimate.max(0.25)
}

/// Whether ground `term` fits `pat`, recording each variable's value once (a variable
/// met again must have the same value).
fn agrees(store: &TermStore, pat: &Pat, term: TermId, seen: &mut Vec<(u16, TermId)>) -> bool {
    match pat {
        Pat::Var(v) => match seen.iter().find(|(w, _)| w == v) {
            Some(&(_, value)) => value == term,
            None => {
                seen.push((*v, term));
                true
            }
        },
        Pat::Term(t) => *t == term,
        Pat::App(functor, args) => {
            store.functor(term) == *functor
                && store.args(term).len() == args.len()
                && args
                    .iter()
                    .zip(store.args(term))
                    .all(|(a, &t)| agrees(store, a, t, seen))
        }
    }
}

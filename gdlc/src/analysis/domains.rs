//! Argument domains: for every relation and every argument path, a finite superset of
//! the symbols that can stand there, computed by fixpoint (Dumalion's domain-dependence
//! relation with the nesting property).
//!
//! Paths are qualified by function symbol (see [`crate::ir::Path`]), so the arguments of
//! different functors at one position keep separate domains. A rule adds to its head's
//! domains: a constant or function symbol at its path, and for a variable the
//! *variable's tree* — the intersection, path by path, of the subtrees of every positive
//! body atom it occurs in (a variable is bounded by each of its binders). `true` ⊇
//! `init` ∪ `next` and `does` ⊇ `legal`. Negative literals and `distinct` bound
//! nothing.
//!
//! Recursion that nests terms more than [`DEPTH_MARGIN`] levels deeper than the deepest
//! term written in the rules escapes the abstraction: `(<= (r ?x (f ?x)) (r ?y ?x) (q
//! ?y))` is finite because `q` is, which no per-path domain sees. The recursive
//! relations involved are then evaluated ([`super::statics`], bounded) and their tuples
//! are their domains: static ones (depending on neither `true` nor `does`) to their
//! real value, which also replaces their rules for every later stage
//! ([`Computed::rules`]); state-dependent ones over the domains of the state, a superset
//! of their value in every state, repeated until the domains stop growing (see
//! [`compute`]). Terms that keep growing from state to state are bounded by the game's
//! length when a step counter proves one ([`super::length`]): `next` then feeds `true`
//! only that many times. Otherwise, or past an evaluation's bounds, the domains cannot
//! be bounded: an error naming the relation and the rule.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::statics;
use super::tree::{Domains, Tree};
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{SymbolId, Symbols, child_path};
use crate::normalize::deps::{DependencyGraph, RelationKey, key_of};
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Term};

/// How much deeper than the deepest written term a derived term may nest.
pub const DEPTH_MARGIN: usize = 8;

/// The deepest function nesting of a term (0 for a constant or variable).
fn term_depth(term: &Term) -> usize {
    match term {
        Term::Func { args, .. } => 1 + args.iter().map(term_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The nesting limit of a game: its deepest written term plus [`DEPTH_MARGIN`].
pub fn depth_limit(rules: &[Rule]) -> usize {
    written_depth(rules) + DEPTH_MARGIN
}

/// The deepest function nesting of a term written in the rules.
fn written_depth(rules: &[Rule]) -> usize {
    let atoms = rules.iter().flat_map(|r| {
        std::iter::once(&r.head).chain(r.body.iter().filter_map(|l| match l {
            Literal::Pos(a) | Literal::Neg(a) => Some(a),
            _ => None,
        }))
    });
    atoms
        .flat_map(|a| a.args.iter())
        .map(term_depth)
        .max()
        .unwrap_or(0)
}

/// The symbol of a constant or function term.
pub fn symbol_of(symbols: &mut Symbols, term: &Term) -> Option<SymbolId> {
    match term {
        Term::Var(_) => None,
        Term::Const(name) => Some(symbols.intern(&name.text, 0)),
        Term::Func { name, args, .. } => Some(symbols.intern(&name.text, args.len())),
    }
}

/// A term nests deeper than the game's limit (see [`depth_limit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooDeep;

/// Calls `f(name, path)` for every variable of `term`, which stands at `path`.
pub fn visit_vars(
    term: &Term,
    path: &[u32],
    symbols: &mut Symbols,
    f: &mut impl FnMut(&str, &[u32]),
) {
    match term {
        Term::Var(name) => f(&name.text, path),
        Term::Const(_) => {}
        Term::Func { args, .. } => {
            let Some(functor) = symbol_of(symbols, term) else {
                return;
            };
            for (j, arg) in args.iter().enumerate() {
                visit_vars(arg, &child_path(path, functor, j), symbols, f);
            }
        }
    }
}

/// The trees of the variables of a rule body: each the intersection over the positive
/// atoms it occurs in.
pub fn variable_trees(
    rule: &Rule,
    domains: &Domains,
    symbols: &mut Symbols,
) -> HashMap<String, Tree> {
    let mut trees: HashMap<String, Tree> = HashMap::new();
    let empty = Tree::default();
    for literal in &rule.body {
        let Literal::Pos(atom) = literal else {
            continue;
        };
        let relation = domains.get(&key_of(atom)).unwrap_or(&empty);
        for (i, arg) in atom.args.iter().enumerate() {
            visit_vars(arg, &[i as u32], symbols, &mut |name, at| {
                let mut tree = relation.subtree(at);
                tree.prune();
                let merged = match trees.get(name) {
                    Some(existing) => existing.intersect(&tree),
                    None => tree,
                };
                trees.insert(name.to_owned(), merged);
            });
        }
    }
    trees
}

/// Adds `term` at `path` to `tree`; `Err(TooDeep)` if it would nest deeper than `limit`.
fn add_term(
    tree: &mut Tree,
    path: &[u32],
    term: &Term,
    vars: &HashMap<String, Tree>,
    symbols: &mut Symbols,
    limit: usize,
) -> Result<bool, TooDeep> {
    let depth = |p: &[u32]| p.len() / 2;
    if depth(path) > limit {
        return Err(TooDeep);
    }
    match term {
        Term::Var(name) => match vars.get(&name.text) {
            Some(var) => {
                if var.nodes.keys().any(|p| depth(path) + depth(p) > limit) {
                    return Err(TooDeep);
                }
                Ok(tree.graft(path, var))
            }
            None => Ok(false),
        },
        Term::Const(_) | Term::Func { .. } => {
            let symbol = symbol_of(symbols, term).ok_or(TooDeep)?;
            let mut changed = tree.add(path, symbol);
            if let Term::Func { args, .. } = term {
                for (j, arg) in args.iter().enumerate() {
                    changed |= add_term(
                        tree,
                        &child_path(path, symbol, j),
                        arg,
                        vars,
                        symbols,
                        limit,
                    )?;
                }
            }
            Ok(changed)
        }
    }
}

/// What one rule adds to its head relation's domains (absolute paths), given its
/// variables' trees: `Ok(None)` when a head variable has no possible value (the rule
/// cannot fire), `Err(TooDeep)` when a term would nest deeper than `limit`.
pub fn head_tree(
    rule: &Rule,
    vars: &HashMap<String, Tree>,
    symbols: &mut Symbols,
    limit: usize,
) -> Result<Option<Tree>, TooDeep> {
    if head_vars(&rule.head)
        .iter()
        .any(|v| vars.get(v).is_none_or(Tree::root_is_empty))
    {
        return Ok(None);
    }
    let mut tree = Tree::default();
    for (i, arg) in rule.head.args.iter().enumerate() {
        add_term(&mut tree, &[i as u32], arg, vars, symbols, limit)?;
    }
    Ok(Some(tree))
}

/// The domains of a game, with the rules they hold for.
#[derive(Debug)]
pub struct Computed<'a> {
    /// Per relation, its argument domains.
    pub domains: Domains,
    /// The rules, where every relation of [`evaluated`](Self::evaluated) has its
    /// facts (the real fixpoint) instead of its rules; the rules given otherwise.
    pub rules: Cow<'a, [Rule]>,
    /// The static relations whose rules were evaluated (sorted).
    pub evaluated: Vec<RelationKey>,
    /// The state-dependent relations whose domains are their relaxed evaluation over
    /// the domains of the state (sorted); they keep their rules.
    pub relaxed: Vec<RelationKey>,
    /// The nesting limit that held: [`depth_limit`] of the rules, raised to the
    /// deepest evaluated term plus [`DEPTH_MARGIN`].
    pub limit: usize,
}

/// How many times the relaxed relations are evaluated again over grown domains before
/// their domains are declared unbounded.
pub const MAX_ROUNDS: usize = 32;

/// Computes the domains of every relation of `rules` (a checked game).
///
/// First by the path-wise abstraction alone. When a rule nests terms past the limit,
/// the relations of the recursive components in that rule's cone are evaluated
/// ([`super::statics`]) and their tuples become their domains; the abstraction then
/// runs again with those domains fixed. Static ones (depending on neither `true` nor
/// `does`) first: their evaluation is their real value, which replaces their rules
/// ([`Computed::rules`]). State-dependent ones only when no static one is left: they
/// are evaluated over the domains of the state (every tuple the domains of `true`,
/// `does` and the other state-dependent relations allow, negation on them taken as
/// true), a superset of their value in every state, and again over the domains that
/// result until nothing grows ([`MAX_ROUNDS`] at most). A rule still nesting too deep
/// with nothing left to evaluate, an evaluation passing its bounds or relaxed domains
/// that keep growing are an error naming the relation and the rule.
pub fn compute<'a>(rules: &'a [Rule], symbols: &mut Symbols) -> Result<Computed<'a>, Diagnostic> {
    let graph = DependencyGraph::build(rules);
    let is_static = static_relations(&graph);
    let mut wanted: BTreeSet<usize> = BTreeSet::new();
    let mut facts: Option<statics::Facts> = None;
    let mut state_domains: Option<Domains> = None;
    let mut rounds = 0;
    // Set once terms nest deeper from state to state in a game proved to end.
    let mut unrolled: Option<Unrolled> = None;
    loop {
        let pinned: BTreeMap<RelationKey, Tree> = match &facts {
            Some(facts) => facts
                .relations()
                .map(|k| (k.clone(), facts.tree(k)))
                .collect(),
            None => BTreeMap::new(),
        };
        let limit = depth_limit(rules).max(facts.as_ref().map_or(0, |f| f.depth() + DEPTH_MARGIN))
            + unrolled
                .as_ref()
                .map_or(0, |u| u.steps * written_depth(rules).max(1));
        let evaluate =
            |wanted: &BTreeSet<usize>, domains: Option<&Domains>, symbols: &mut Symbols| {
                let inputs = statics::Inputs {
                    is_static: &is_static,
                    domains,
                };
                statics::evaluate(rules, &graph, wanted, inputs, symbols).map_err(|exceeded| {
                    let rule = &rules[exceeded.rule];
                    let key = key_of(&rule.head);
                    let dynamic = graph
                        .relation(&key.name, key.arity)
                        .is_some_and(|r| !is_static[r]);
                    unbounded_evaluated(&key, rule, exceeded.limit, dynamic)
                })
            };
        let failed = match fixpoint(rules, symbols, &pinned, limit, unrolled.as_ref()) {
            Ok(domains) => {
                let relaxed: Vec<RelationKey> = wanted
                    .iter()
                    .filter(|&&r| !is_static[r])
                    .map(|&r| graph.relations[r].clone())
                    .collect();
                if !relaxed.is_empty() {
                    // Relaxed values hold only if the domains they produce give them back.
                    let again = evaluate(&wanted, Some(&domains), symbols)?;
                    if relaxed
                        .iter()
                        .any(|k| pinned.get(k) != Some(&again.tree(k)))
                    {
                        rounds += 1;
                        if rounds > MAX_ROUNDS {
                            let rule = rules
                                .iter()
                                .find(|r| key_of(&r.head) == relaxed[0])
                                .unwrap_or(&rules[0]);
                            return Err(unbounded_relaxed(&relaxed[0], rule));
                        }
                        facts = Some(again);
                        state_domains = Some(domains);
                        continue;
                    }
                }
                let is_evaluated_static = |k: &RelationKey| {
                    graph
                        .relation(&k.name, k.arity)
                        .is_some_and(|r| is_static[r])
                };
                return Ok(Computed {
                    domains,
                    rules: match &facts {
                        Some(facts) if pinned.keys().any(is_evaluated_static) => {
                            Cow::Owned(with_facts(rules, facts, &is_evaluated_static, symbols))
                        }
                        _ => Cow::Borrowed(rules),
                    },
                    evaluated: pinned
                        .keys()
                        .filter(|k| is_evaluated_static(k))
                        .cloned()
                        .collect(),
                    relaxed,
                    limit,
                });
            }
            Err(failed) => failed,
        };
        let rule = &rules[failed];
        let head_key = key_of(&rule.head);
        let recursive: Vec<usize> = graph
            .relation(&head_key.name, head_key.arity)
            .map(|head| graph.cone(head))
            .unwrap_or_default()
            .into_iter()
            .filter(|&r| graph.recursive[graph.component_of[r]] && !wanted.contains(&r))
            .collect();
        let statics: Vec<usize> = recursive
            .iter()
            .copied()
            .filter(|&r| is_static[r])
            .collect();
        let more = if statics.is_empty() {
            recursive
        } else {
            statics
        };
        if more.is_empty() {
            // Terms that grow from state to state are bounded by the game's length,
            // when it is proved (a step counter).
            let Some(unrolled_now) = &unrolled else {
                if let Some((counter, steps)) = super::length::length_bound(rules) {
                    unrolled = Some(Unrolled {
                        steps,
                        rule: failed,
                        counter,
                    });
                    continue;
                }
                return Err(unbounded(&head_key, rule, limit));
            };
            return Err(unbounded(&head_key, rule, limit).with_note(format!(
                "the game ends within {} steps (its counter `{}`), but the terms of its first {} \
                 states nest deeper than {limit} levels or take more than {MAX_UNROLLED_PATHS} \
                 argument paths",
                unrolled_now.steps, unrolled_now.counter, unrolled_now.steps
            )));
        }
        wanted.extend(more);
        facts = Some(evaluate(&wanted, state_domains.as_ref(), symbols)?);
    }
}

/// Per relation of `graph`, whether it depends on neither `true` nor `does`.
fn static_relations(graph: &DependencyGraph) -> Vec<bool> {
    let inputs: Vec<usize> = [("true", 1), ("does", 2)]
        .into_iter()
        .filter_map(|(name, arity)| graph.relation(name, arity))
        .collect();
    (0..graph.relations.len())
        .map(|r| !graph.cone(r).iter().any(|c| inputs.contains(c)))
        .collect()
}

/// `rules` with the rules of every evaluated relation that `replace` accepts replaced by
/// its facts, placed where its first rule was and located at that rule.
fn with_facts(
    rules: &[Rule],
    facts: &statics::Facts,
    replace: &dyn Fn(&RelationKey) -> bool,
    symbols: &Symbols,
) -> Vec<Rule> {
    let evaluated: BTreeSet<&RelationKey> = facts.relations().filter(|k| replace(k)).collect();
    let mut placed: BTreeSet<RelationKey> = BTreeSet::new();
    let mut out = Vec::with_capacity(rules.len());
    for rule in rules {
        let key = key_of(&rule.head);
        if !evaluated.contains(&key) {
            out.push(rule.clone());
            continue;
        }
        if placed.insert(key.clone()) {
            out.extend(
                facts
                    .atoms(&key, symbols, rule.span)
                    .into_iter()
                    .map(|head| Rule {
                        head,
                        body: Vec::new(),
                        span: rule.span,
                    }),
            );
        }
    }
    out
}

/// A fixpoint in which `next` feeds `true` a bounded number of times (see
/// [`super::length`]): the domains of the states of a game that lasts at most
/// `steps` joint moves.
#[derive(Clone, Debug)]
struct Unrolled {
    /// The most times `next`'s domain is added to `true`'s.
    steps: usize,
    /// The rule reported when the domains grow past [`MAX_UNROLLED_PATHS`].
    rule: usize,
    /// The fluent whose values count the steps.
    counter: String,
}

/// The most argument paths, over every relation, that an unrolled fixpoint may reach
/// (terms of several function symbols nested step after step multiply them).
const MAX_UNROLLED_PATHS: usize = 1 << 16;

/// The abstract fixpoint, with the domains of `pinned` relations fixed (their rules are
/// skipped). `next` feeds `true` until nothing grows or, when `unrolled`, only once
/// the other rules are stable and at most `steps` times. `Err` gives the index of a
/// rule nesting terms deeper than `limit`.
fn fixpoint(
    rules: &[Rule],
    symbols: &mut Symbols,
    pinned: &BTreeMap<RelationKey, Tree>,
    limit: usize,
    unrolled: Option<&Unrolled>,
) -> Result<Domains, usize> {
    let mut domains: Domains = BTreeMap::new();
    for rule in rules {
        domains.entry(key_of(&rule.head)).or_default();
        for literal in &rule.body {
            if let Literal::Pos(atom) | Literal::Neg(atom) = literal {
                domains.entry(key_of(atom)).or_default();
            }
        }
    }
    for (key, tree) in pinned {
        domains.insert(key.clone(), tree.clone());
    }
    let key = |name: &str, arity: usize| RelationKey {
        name: name.to_owned(),
        arity,
    };
    let mut steps = 0;
    loop {
        let mut changed = false;
        for (index, rule) in rules.iter().enumerate() {
            let head_key = key_of(&rule.head);
            if pinned.contains_key(&head_key) {
                continue;
            }
            let vars = variable_trees(rule, &domains, symbols);
            match head_tree(rule, &vars, symbols, limit) {
                Ok(Some(tree)) => changed |= domains.entry(head_key).or_default().graft(&[], &tree),
                Ok(None) => {}
                Err(TooDeep) => return Err(index),
            }
        }
        // true ⊇ init ∪ next; does ⊇ legal.
        for (from, to) in [
            (key("init", 1), key("true", 1)),
            (key("legal", 2), key("does", 2)),
        ] {
            if let Some(source) = domains.get(&from).cloned() {
                changed |= domains.entry(to).or_default().graft(&[], &source);
            }
        }
        let step = match unrolled {
            None => true,
            Some(unrolled) => !changed && steps < unrolled.steps,
        };
        if step && let Some(source) = domains.get(&key("next", 1)).cloned() {
            changed |= domains
                .entry(key("true", 1))
                .or_default()
                .graft(&[], &source);
            steps += 1;
            if let Some(unrolled) = unrolled
                && domains.values().map(|t| t.nodes.len()).sum::<usize>() > MAX_UNROLLED_PATHS
            {
                return Err(unrolled.rule);
            }
        }
        if !changed {
            return Ok(domains);
        }
    }
}

fn head_vars(head: &Atom) -> Vec<String> {
    let mut names = Vec::new();
    head.for_each_var(&mut |name| names.push(name.text.clone()));
    names
}

fn unbounded(relation: &RelationKey, rule: &Rule, limit: usize) -> Diagnostic {
    Diagnostic::error(
        Code::Unbounded,
        format!("the domain of `{relation}` cannot be bounded"),
    )
    .at(
        rule.span,
        format!("this rule nests terms of `{relation}` deeper than {limit} levels"),
    )
    .with_note(format!(
        "the analysis bounds each argument by the symbols that can reach it; here recursion builds \
             ever deeper terms ({DEPTH_MARGIN} levels past the deepest term written in the rules)"
    ))
    .with_note(
        "no recursive relation is left to evaluate to its fixpoint: the terms grow from state \
             to state (`next` feeds `true`)",
    )
}

fn unbounded_evaluated(
    relation: &RelationKey,
    rule: &Rule,
    limit: statics::Limit,
    dynamic: bool,
) -> Diagnostic {
    let why = if dynamic {
        "its tuples were computed over the domains of the state instead"
    } else {
        "it does not depend on the state, so its tuples were computed instead"
    };
    Diagnostic::error(
        Code::Unbounded,
        format!("the domain of `{relation}` cannot be bounded"),
    )
    .at(
        rule.span,
        format!("evaluating `{relation}` passed its bound at this rule"),
    )
    .with_note(format!(
        "recursion builds terms of `{relation}` the analysis cannot bound by symbols; {why}, \
             and the computation stopped before a fixpoint: {}",
        limit.describe()
    ))
}

fn unbounded_relaxed(relation: &RelationKey, rule: &Rule) -> Diagnostic {
    Diagnostic::error(
        Code::Unbounded,
        format!("the domain of `{relation}` cannot be bounded"),
    )
    .at(
        rule.span,
        format!("`{relation}` keeps feeding new terms to the state"),
    )
    .with_note(format!(
        "recursion builds terms of `{relation}` the analysis cannot bound by symbols; its tuples \
             were computed over the domains of the state, and the state's domains still grew after \
             {MAX_ROUNDS} rounds"
    ))
}

//! The fixpoint of recursive relations, for the domains the path-wise abstraction of
//! [`super::domains`] cannot bound.
//!
//! When recursion builds terms the abstraction cannot bound — e.g.
//! `(<= (r ?x (f ?x)) (r ?y ?x) (q ?y))`, finite only because `q` stops it, which a
//! per-path domain cannot see — the relation's tuples are computed here, bottom-up
//! (semi-naive, one dependency component after the other, negation on lower
//! components only, as stratification guarantees). A relation that depends on neither
//! `true` nor `does` has one value for the whole game: that is computed exactly, and the
//! analysis uses it as the relation's facts. A state-dependent one is computed over the
//! domains of the state — every tuple the domains of `true`, `does` and the other
//! state-dependent relations allow holds, negation on them is true — which gives a
//! superset of its value in any state that fits those domains.
//!
//! Evaluation is bounded: at most [`MAX_TUPLES`] tuples, [`MAX_TUPLE_SIZE`] symbols per
//! tuple and [`MAX_STEPS`] join steps. A relation that passes a bound is reported as
//! unbounded by the caller, naming the rule that was deriving it. Everything is
//! deterministic: tuples are kept in derivation order and rules run in their order.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;

use crate::diagnostic::Span;
use crate::ir::{NIL, SymbolId, Symbols, child_path};
use crate::normalize::deps::{DependencyGraph, RelationKey, key_of};
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Name, Term};

use super::tree::{Domains, Tree};

/// The most tuples evaluated over all relations of one evaluation.
pub const MAX_TUPLES: usize = 100_000;

/// The most symbols one evaluated tuple may hold (its terms written out in full).
pub const MAX_TUPLE_SIZE: usize = 1_000;

/// The most candidate tuples tried while joining, over one evaluation.
pub const MAX_STEPS: u64 = 50_000_000;

/// Why an evaluation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// More than [`MAX_TUPLES`] tuples.
    Tuples,
    /// A tuple of more than [`MAX_TUPLE_SIZE`] symbols.
    TupleSize,
    /// More than [`MAX_STEPS`] join steps.
    Steps,
    /// A test or negation reached with a variable still unbound (not a checked game).
    Unbound,
    /// Negation inside a recursive component (not a stratified game).
    Unstratified,
}

impl Limit {
    /// What was passed, for a note.
    pub fn describe(self) -> String {
        match self {
            Limit::Tuples => format!("more than {MAX_TUPLES} tuples"),
            Limit::TupleSize => format!("a tuple of more than {MAX_TUPLE_SIZE} symbols"),
            Limit::Steps => format!("more than {MAX_STEPS} join steps"),
            Limit::Unbound => "a test over an unbound variable".to_owned(),
            Limit::Unstratified => "a negation inside the recursion".to_owned(),
        }
    }
}

/// An evaluation that passed a bound: the rule (index into the rules given) that was
/// running, and the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exceeded {
    /// The rule being evaluated.
    pub rule: usize,
    /// The bound it passed.
    pub limit: Limit,
}

/// An interned ground term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct TermId(u32);

/// Hash-consed ground terms over the IR's symbols (name and arity).
#[derive(Default)]
struct Terms {
    nodes: Vec<(SymbolId, Box<[TermId]>)>,
    sizes: Vec<usize>,
    ids: HashMap<(SymbolId, Box<[TermId]>), TermId>,
}

impl Terms {
    fn intern(&mut self, symbol: SymbolId, args: &[TermId]) -> TermId {
        let key = (symbol, Box::<[TermId]>::from(args));
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = TermId(self.nodes.len() as u32);
        let size = args
            .iter()
            .fold(1usize, |n, a| n.saturating_add(self.sizes[a.0 as usize]));
        self.nodes.push(key.clone());
        self.sizes.push(size);
        self.ids.insert(key, id);
        id
    }

    fn symbol(&self, term: TermId) -> SymbolId {
        self.nodes[term.0 as usize].0
    }

    fn args(&self, term: TermId) -> &[TermId] {
        &self.nodes[term.0 as usize].1
    }

    fn size(&self, term: TermId) -> usize {
        self.sizes[term.0 as usize]
    }
}

/// A term of a rule with its variables numbered.
#[derive(Clone, Debug)]
enum Pat {
    Var(usize),
    Ground(TermId),
    App(SymbolId, Vec<Pat>),
}

/// A rule's literal, compiled.
#[derive(Clone, Debug)]
enum Step {
    Scan(usize, Vec<Pat>),
    Absent(usize, Vec<Pat>),
    Distinct(Pat, Pat),
    Equal(Pat, Pat),
}

struct Compiled {
    index: usize,
    head: usize,
    head_args: Vec<Pat>,
    steps: Vec<Step>,
    vars: usize,
}

/// One relation's tuples, in derivation order, with an index per column.
struct Table {
    tuples: Vec<Box<[TermId]>>,
    set: HashSet<Box<[TermId]>>,
    columns: Vec<HashMap<TermId, Vec<u32>>>,
}

impl Table {
    fn new(arity: usize) -> Self {
        Table {
            tuples: Vec::new(),
            set: HashSet::new(),
            columns: vec![HashMap::new(); arity],
        }
    }

    fn insert(&mut self, tuple: Box<[TermId]>) -> bool {
        if self.set.contains(&tuple) {
            return false;
        }
        let at = self.tuples.len() as u32;
        for (column, &value) in self.columns.iter_mut().zip(tuple.iter()) {
            column.entry(value).or_default().push(at);
        }
        self.set.insert(tuple.clone());
        self.tuples.push(tuple);
        true
    }
}

/// The evaluated static relations: their tuples, to read as trees or as facts.
pub struct Facts {
    terms: Terms,
    relations: BTreeMap<RelationKey, Vec<Box<[TermId]>>>,
}

impl Facts {
    /// The relations evaluated.
    pub fn relations(&self) -> impl Iterator<Item = &RelationKey> {
        self.relations.keys()
    }

    /// The domains of a relation's tuples (empty if it was not evaluated).
    pub fn tree(&self, relation: &RelationKey) -> Tree {
        let mut tree = Tree::default();
        for tuple in self.relations.get(relation).into_iter().flatten() {
            for (i, &term) in tuple.iter().enumerate() {
                self.add_to_tree(&mut tree, &[i as u32], term);
            }
        }
        tree
    }

    fn add_to_tree(&self, tree: &mut Tree, path: &[u32], term: TermId) {
        let symbol = self.terms.symbol(term);
        tree.nodes.entry(path.to_vec()).or_default().insert(symbol);
        for (j, &arg) in self.terms.args(term).iter().enumerate() {
            self.add_to_tree(tree, &child_path(path, symbol, j), arg);
        }
    }

    /// The deepest function nesting of any evaluated term.
    pub fn depth(&self) -> usize {
        let mut depth = vec![0usize; self.terms.nodes.len()];
        // Arguments are interned before the terms holding them.
        for (i, (_, args)) in self.terms.nodes.iter().enumerate() {
            if let Some(deepest) = args.iter().map(|a| depth[a.0 as usize]).max() {
                depth[i] = deepest + 1;
            }
        }
        depth.into_iter().max().unwrap_or(0)
    }

    /// A relation's tuples as facts, located at `span` (the rules they replace).
    pub fn atoms(&self, relation: &RelationKey, symbols: &Symbols, span: Span) -> Vec<Atom> {
        self.relations
            .get(relation)
            .into_iter()
            .flatten()
            .map(|tuple| Atom {
                name: Name {
                    text: relation.name.clone(),
                    span,
                },
                args: tuple
                    .iter()
                    .map(|&t| self.ast_term(t, symbols, span))
                    .collect(),
                span,
            })
            .collect()
    }

    fn ast_term(&self, term: TermId, symbols: &Symbols, span: Span) -> Term {
        let name = Name {
            text: symbols.symbol(self.terms.symbol(term)).name.clone(),
            span,
        };
        let args = self.terms.args(term);
        if args.is_empty() {
            Term::Const(name)
        } else {
            Term::Func {
                name,
                args: args
                    .iter()
                    .map(|&a| self.ast_term(a, symbols, span))
                    .collect(),
                span,
            }
        }
    }
}

/// What an evaluation reads besides the rules it evaluates.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// Per relation of the graph, whether it is static: its value is the same in every
    /// state, so it is evaluated exactly.
    pub is_static: &'a [bool],
    /// The domains that stand for the state-dependent relations outside the evaluation
    /// (`true`, `does`, …): every tuple they allow is read as holding. `None`: empty.
    pub domains: Option<&'a Domains>,
}

/// Evaluates the relations `wanted` (indices into `graph`, whole dependency
/// components) to their least fixpoint: by their rules, with the static relations they
/// depend on, and with every state-dependent relation outside `wanted` read from
/// `inputs.domains` and negation on a state-dependent relation taken as true. For static
/// `wanted` relations that is their exact value; for state-dependent ones a superset of
/// their value in every state whose relations fit the domains. Returns the tuples of
/// `wanted`.
pub fn evaluate(
    rules: &[Rule],
    graph: &DependencyGraph,
    wanted: &BTreeSet<usize>,
    inputs: Inputs<'_>,
    symbols: &mut Symbols,
) -> Result<Facts, Exceeded> {
    // The relations evaluated by their rules, and those read from the domains.
    let mut evaluated = BTreeSet::new();
    let mut read = BTreeSet::new();
    let mut stack: Vec<usize> = wanted.iter().rev().copied().collect();
    while let Some(r) = stack.pop() {
        if evaluated.contains(&r) || read.contains(&r) {
            continue;
        }
        if !wanted.contains(&r) && !inputs.is_static[r] {
            read.insert(r);
            continue;
        }
        evaluated.insert(r);
        stack.extend(
            graph
                .dependencies
                .iter()
                .filter(|d| d.head == r)
                .map(|d| d.body),
        );
    }
    let mut evaluator = Evaluator {
        terms: Terms::default(),
        tables: graph
            .relations
            .iter()
            .map(|key| Table::new(key.arity))
            .collect(),
        steps: 0,
        tuples: 0,
    };
    let mut compiled: Vec<Compiled> = Vec::new();
    let mut reader: BTreeMap<usize, usize> = BTreeMap::new();
    for (index, rule) in rules.iter().enumerate() {
        let Some(head) = graph.relation(&rule.head.name.text, rule.head.args.len()) else {
            continue;
        };
        if evaluated.contains(&head) {
            let rule = evaluator.compile(index, head, rule, graph, inputs.is_static, symbols);
            for step in &rule.steps {
                match step {
                    Step::Scan(r, _) => {
                        reader.entry(*r).or_insert(index);
                    }
                    Step::Absent(r, _) if graph.same_component(*r, head) => {
                        return Err(Exceeded {
                            rule: index,
                            limit: Limit::Unstratified,
                        });
                    }
                    _ => {}
                }
            }
            compiled.push(rule);
        }
    }
    for &r in &read {
        let tree = inputs.domains.and_then(|d| d.get(&graph.relations[r]));
        if let Some(tree) = tree {
            evaluator.load(r, tree, symbols).map_err(|limit| Exceeded {
                rule: reader.get(&r).copied().unwrap_or(0),
                limit,
            })?;
        }
    }
    for (c, members) in graph.components.iter().enumerate() {
        if !members.iter().any(|m| evaluated.contains(m)) {
            continue;
        }
        let component: Vec<&Compiled> = compiled
            .iter()
            .filter(|rule| graph.component_of[rule.head] == c)
            .collect();
        evaluator.component(&component, members, graph.recursive[c])?;
    }
    let relations = wanted
        .iter()
        .map(|&r| {
            let table = std::mem::replace(&mut evaluator.tables[r], Table::new(0));
            (graph.relations[r].clone(), table.tuples)
        })
        .collect();
    Ok(Facts {
        terms: evaluator.terms,
        relations,
    })
}

struct Evaluator {
    terms: Terms,
    tables: Vec<Table>,
    steps: u64,
    tuples: usize,
}

impl Evaluator {
    fn compile(
        &mut self,
        index: usize,
        head: usize,
        rule: &Rule,
        graph: &DependencyGraph,
        is_static: &[bool],
        symbols: &mut Symbols,
    ) -> Compiled {
        let mut vars = HashMap::new();
        let head_args = rule
            .head
            .args
            .iter()
            .map(|t| self.pattern(t, &mut vars, symbols))
            .collect();
        let mut steps = Vec::new();
        for literal in &rule.body {
            let step = match literal {
                Literal::Pos(atom) | Literal::Neg(atom) => {
                    let key = key_of(atom);
                    let Some(relation) = graph.relation(&key.name, key.arity) else {
                        continue;
                    };
                    if matches!(literal, Literal::Neg(_)) && !is_static[relation] {
                        // Its value differs between states: relaxed to true.
                        continue;
                    }
                    let pats = atom
                        .args
                        .iter()
                        .map(|t| self.pattern(t, &mut vars, symbols))
                        .collect();
                    if matches!(literal, Literal::Pos(_)) {
                        Step::Scan(relation, pats)
                    } else {
                        Step::Absent(relation, pats)
                    }
                }
                Literal::Distinct(a, b, _) => Step::Distinct(
                    self.pattern(a, &mut vars, symbols),
                    self.pattern(b, &mut vars, symbols),
                ),
                Literal::Equal(a, b, _) => Step::Equal(
                    self.pattern(a, &mut vars, symbols),
                    self.pattern(b, &mut vars, symbols),
                ),
            };
            steps.push(step);
        }
        Compiled {
            index,
            head,
            head_args,
            steps,
            vars: vars.len(),
        }
    }

    fn pattern(
        &mut self,
        term: &Term,
        vars: &mut HashMap<String, usize>,
        symbols: &mut Symbols,
    ) -> Pat {
        match term {
            Term::Var(name) => {
                let next = vars.len();
                Pat::Var(*vars.entry(name.text.clone()).or_insert(next))
            }
            Term::Const(name) => Pat::Ground(self.terms.intern(symbols.intern(&name.text, 0), &[])),
            Term::Func { name, args, .. } => {
                let symbol = symbols.intern(&name.text, args.len());
                let args: Vec<Pat> = args
                    .iter()
                    .map(|a| self.pattern(a, vars, symbols))
                    .collect();
                let ground: Option<Vec<TermId>> = args
                    .iter()
                    .map(|a| match a {
                        Pat::Ground(t) => Some(*t),
                        _ => None,
                    })
                    .collect();
                match ground {
                    Some(ground) => Pat::Ground(self.terms.intern(symbol, &ground)),
                    None => Pat::App(symbol, args),
                }
            }
        }
    }

    /// Fills relation `r` with every tuple its domains allow.
    fn load(&mut self, r: usize, tree: &Tree, symbols: &Symbols) -> Result<(), Limit> {
        let arity = self.tables[r].columns.len();
        let mut tuples: Vec<Vec<TermId>> = vec![Vec::new()];
        for i in 0..arity {
            let terms = self.enumerate(tree, &[i as u32], symbols)?;
            let mut next = Vec::new();
            for tuple in &tuples {
                for &term in &terms {
                    if next.len() >= MAX_TUPLES {
                        return Err(Limit::Tuples);
                    }
                    let mut longer = tuple.clone();
                    longer.push(term);
                    next.push(longer);
                }
            }
            tuples = next;
        }
        for tuple in tuples {
            if self.tables[r].insert(tuple.into_boxed_slice()) {
                self.tuples += 1;
                if self.tuples > MAX_TUPLES {
                    return Err(Limit::Tuples);
                }
            }
        }
        Ok(())
    }

    /// Every term a domain tree allows at `path`, at most [`MAX_TUPLES`].
    fn enumerate(
        &mut self,
        tree: &Tree,
        path: &[u32],
        symbols: &Symbols,
    ) -> Result<Vec<TermId>, Limit> {
        let mut out = Vec::new();
        for &symbol in tree.nodes.get(path).into_iter().flatten() {
            if symbol == NIL {
                continue;
            }
            let mut argument_lists: Vec<Vec<TermId>> = vec![Vec::new()];
            for j in 0..symbols.symbol(symbol).arity {
                let terms = self.enumerate(tree, &child_path(path, symbol, j), symbols)?;
                let mut next = Vec::new();
                for args in &argument_lists {
                    for &term in &terms {
                        if next.len() >= MAX_TUPLES {
                            return Err(Limit::Tuples);
                        }
                        let mut longer = args.clone();
                        longer.push(term);
                        next.push(longer);
                    }
                }
                argument_lists = next;
            }
            for args in argument_lists {
                let term = self.terms.intern(symbol, &args);
                if self.terms.size(term) > MAX_TUPLE_SIZE {
                    return Err(Limit::TupleSize);
                }
                out.push(term);
                if out.len() > MAX_TUPLES {
                    return Err(Limit::Tuples);
                }
            }
        }
        Ok(out)
    }

    /// Evaluates one dependency component whose dependencies are complete.
    fn component(
        &mut self,
        rules: &[&Compiled],
        members: &[usize],
        recursive: bool,
    ) -> Result<(), Exceeded> {
        let full = |tables: &[Table]| -> Vec<Range<u32>> {
            tables.iter().map(|t| 0..t.tuples.len() as u32).collect()
        };
        // First round: every rule over everything known.
        let mut start: Vec<u32> = members
            .iter()
            .map(|&m| self.tables[m].tuples.len() as u32)
            .collect();
        let ranges = full(&self.tables);
        for rule in rules {
            self.fire(rule, &ranges, None)?;
        }
        if !recursive {
            return Ok(());
        }
        // Then semi-naively: each rule once per body atom of the component, that atom
        // reading only the tuples the previous round added.
        loop {
            let end: Vec<u32> = members
                .iter()
                .map(|&m| self.tables[m].tuples.len() as u32)
                .collect();
            if start == end {
                return Ok(());
            }
            let ranges = full(&self.tables);
            for rule in rules {
                for (k, step) in rule.steps.iter().enumerate() {
                    let Step::Scan(relation, _) = step else {
                        continue;
                    };
                    let Some(m) = members.iter().position(|m| m == relation) else {
                        continue;
                    };
                    if start[m] == end[m] {
                        continue;
                    }
                    self.fire(rule, &ranges, Some((k, start[m]..end[m])))?;
                }
            }
            start = end;
        }
    }

    /// Runs one rule: each body atom scans its relation's tuples in `ranges`, the atom
    /// `delta` names only the given range. New head tuples are inserted afterwards.
    fn fire(
        &mut self,
        rule: &Compiled,
        ranges: &[Range<u32>],
        delta: Option<(usize, Range<u32>)>,
    ) -> Result<(), Exceeded> {
        let mut env = vec![None; rule.vars];
        let mut found = Vec::new();
        self.solve(rule, 0, ranges, &delta, &mut env, &mut found)
            .map_err(|limit| Exceeded {
                rule: rule.index,
                limit,
            })?;
        for tuple in found {
            if self.tables[rule.head].insert(tuple) {
                self.tuples += 1;
                if self.tuples > MAX_TUPLES {
                    return Err(Exceeded {
                        rule: rule.index,
                        limit: Limit::Tuples,
                    });
                }
            }
        }
        Ok(())
    }

    fn solve(
        &mut self,
        rule: &Compiled,
        at: usize,
        ranges: &[Range<u32>],
        delta: &Option<(usize, Range<u32>)>,
        env: &mut Vec<Option<TermId>>,
        found: &mut Vec<Box<[TermId]>>,
    ) -> Result<(), Limit> {
        let Some(step) = rule.steps.get(at) else {
            let mut tuple = Vec::with_capacity(rule.head_args.len());
            let mut size = 0usize;
            for pat in &rule.head_args {
                let term = self.instantiate(pat, env).ok_or(Limit::Unbound)?;
                size = size.saturating_add(self.terms.size(term));
                tuple.push(term);
            }
            if size > MAX_TUPLE_SIZE {
                return Err(Limit::TupleSize);
            }
            found.push(tuple.into_boxed_slice());
            return Ok(());
        };
        match step {
            Step::Scan(relation, pats) => {
                let range = match delta {
                    Some((k, range)) if *k == at => range.clone(),
                    _ => ranges[*relation].clone(),
                };
                let candidates = self.candidates(*relation, pats, env, range);
                for index in candidates {
                    self.steps += 1;
                    if self.steps > MAX_STEPS {
                        return Err(Limit::Steps);
                    }
                    let mut bound = Vec::new();
                    let tuple = &self.tables[*relation].tuples[index as usize];
                    let matched = pats
                        .iter()
                        .zip(tuple.iter())
                        .all(|(pat, &value)| self.unify(pat, value, env, &mut bound));
                    if matched {
                        self.solve(rule, at + 1, ranges, delta, env, found)?;
                    }
                    for var in bound {
                        env[var] = None;
                    }
                }
                Ok(())
            }
            Step::Absent(relation, pats) => {
                let mut tuple = Vec::with_capacity(pats.len());
                for pat in pats {
                    tuple.push(self.instantiate(pat, env).ok_or(Limit::Unbound)?);
                }
                if self.tables[*relation].set.contains(tuple.as_slice()) {
                    Ok(())
                } else {
                    self.solve(rule, at + 1, ranges, delta, env, found)
                }
            }
            Step::Distinct(a, b) | Step::Equal(a, b) => {
                let a = self.instantiate(a, env).ok_or(Limit::Unbound)?;
                let b = self.instantiate(b, env).ok_or(Limit::Unbound)?;
                if (a == b) == matches!(step, Step::Equal(..)) {
                    self.solve(rule, at + 1, ranges, delta, env, found)
                } else {
                    Ok(())
                }
            }
        }
    }

    /// The indices in `range` of the tuples that may match `pats`: those sharing the
    /// value of the most selective bound column, or the whole range.
    fn candidates(
        &mut self,
        relation: usize,
        pats: &[Pat],
        env: &[Option<TermId>],
        range: Range<u32>,
    ) -> Vec<u32> {
        let mut best: Option<&Vec<u32>> = None;
        let mut known = Vec::new();
        for (column, pat) in pats.iter().enumerate() {
            if let Some(value) = self.instantiate_known(pat, env) {
                known.push((column, value));
            }
        }
        let table = &self.tables[relation];
        for (column, value) in known {
            let bucket = table.columns[column].get(&value);
            match bucket {
                None => return Vec::new(),
                Some(bucket) if best.is_none_or(|b| bucket.len() < b.len()) => {
                    best = Some(bucket);
                }
                Some(_) => {}
            }
        }
        match best {
            Some(bucket) => {
                let from = bucket.partition_point(|&i| i < range.start);
                let to = bucket.partition_point(|&i| i < range.end);
                bucket[from..to].to_vec()
            }
            None => range.collect(),
        }
    }

    /// The ground value of a pattern under `env`, interning new terms.
    fn instantiate(&mut self, pat: &Pat, env: &[Option<TermId>]) -> Option<TermId> {
        match pat {
            Pat::Var(v) => env[*v],
            Pat::Ground(t) => Some(*t),
            Pat::App(symbol, args) => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.instantiate(arg, env)?);
                }
                Some(self.terms.intern(*symbol, &values))
            }
        }
    }

    /// The ground value of a pattern under `env` if it exists already (a term never
    /// interned cannot be in any table).
    fn instantiate_known(&self, pat: &Pat, env: &[Option<TermId>]) -> Option<TermId> {
        match pat {
            Pat::Var(v) => env[*v],
            Pat::Ground(t) => Some(*t),
            Pat::App(symbol, args) => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.instantiate_known(arg, env)?);
                }
                let key = (*symbol, values.into_boxed_slice());
                // An absent term matches nothing: a term id no table holds.
                Some(
                    self.terms
                        .ids
                        .get(&key)
                        .copied()
                        .unwrap_or(TermId(u32::MAX)),
                )
            }
        }
    }

    /// Matches a pattern against a ground term, binding free variables (recorded in
    /// `bound` so the caller can undo them).
    fn unify(
        &self,
        pat: &Pat,
        value: TermId,
        env: &mut [Option<TermId>],
        bound: &mut Vec<usize>,
    ) -> bool {
        match pat {
            Pat::Ground(t) => *t == value,
            Pat::Var(v) => match env[*v] {
                Some(t) => t == value,
                None => {
                    env[*v] = Some(value);
                    bound.push(*v);
                    true
                }
            },
            Pat::App(symbol, args) => {
                self.terms.symbol(value) == *symbol
                    && self.terms.args(value).len() == args.len()
                    && args
                        .iter()
                        .zip(self.terms.args(value))
                        .all(|(a, &v)| self.unify(a, v, env, bound))
            }
        }
    }
}

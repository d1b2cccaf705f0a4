//! Demand-driven rule evaluation.
//!
//! A query of a relation with some arguments bound is a *call*. The answers of a call
//! to a non-recursive relation are computed top-down — each rule's head is matched
//! with the call, its body run left to right, each body atom itself a call — and
//! memoised under the relation, the bound columns and their values. Non-recursive
//! relations cannot call themselves, so this always terminates. A recursive component
//! (an SCC with a cycle) is instead *materialised*: all its tuples computed bottom-up,
//! semi-naively, to a fixpoint; calls into it are index lookups. `true` and `does` are
//! materialised too (the state and the joint move).
//!
//! The bound/free status of every argument is known when a rule is compiled (literals
//! run left to right after normalisation), so each body atom knows the columns it calls
//! or looks up by. Only what the queries of a state need is ever computed: rules written
//! for top-down provers (e.g. `(coordinate ?x)` generators behind a negated call) cost
//! no more than they do there.

use std::hash::BuildHasher;
use std::rc::Rc;

use hashbrown::{Equivalent, HashMap};
use rustc_hash::FxBuildHasher;

use super::relation::{ColumnMask, Relation};
use super::terms::{Sym, TermId, TermStore};

/// An argument pattern.
#[derive(Clone, Debug)]
pub enum Pat {
    /// A variable slot.
    Var(u16),
    /// A ground term.
    Term(TermId),
    /// A compound term with variables.
    App(Sym, Box<[Pat]>),
}

impl Pat {
    fn for_each_var(&self, f: &mut impl FnMut(u16)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::Term(_) => {}
            Pat::App(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// One body literal, compiled.
#[derive(Clone, Debug)]
pub enum Step {
    /// A positive atom: the tuples agreeing on the `mask` columns (those bound when the
    /// atom is reached), the other columns matched against `pats`.
    Scan {
        /// The relation.
        rel: usize,
        /// One pattern per column.
        pats: Box<[Pat]>,
        /// The columns bound when the literal is reached.
        mask: ColumnMask,
    },
    /// A negated atom (all its variables are bound by then).
    Absent {
        /// The relation.
        rel: usize,
        /// One pattern per column.
        pats: Box<[Pat]>,
    },
    /// The two terms differ.
    Distinct(Pat, Pat),
    /// The two terms are equal.
    Equal(Pat, Pat),
}

/// A compiled rule.
#[derive(Clone, Debug)]
pub struct CompiledRule {
    /// The head relation.
    pub head_rel: usize,
    /// The head's argument patterns.
    pub head: Box<[Pat]>,
    /// The body, in evaluation order.
    pub steps: Vec<Step>,
    /// Number of variable slots.
    pub num_vars: usize,
    /// Body steps (indices) that read a relation of the rule's own recursive component.
    pub recursive_steps: Vec<usize>,
}

/// The columns of `pats` whose variables are all in `bound`.
fn bound_mask(pats: &[Pat], bound: &[bool]) -> ColumnMask {
    let mut mask = 0;
    for (i, pat) in pats.iter().enumerate().take(64) {
        let mut ready = true;
        pat.for_each_var(&mut |v| ready &= bound[v as usize]);
        if ready {
            mask |= 1 << i;
        }
    }
    mask
}

impl CompiledRule {
    /// Fixes each positive atom's bound columns, given the head columns bound by the
    /// call (`head_mask`; none for bottom-up evaluation).
    fn plan(&self, head_mask: ColumnMask) -> Vec<ColumnMask> {
        let mut bound = vec![false; self.num_vars];
        for (i, pat) in self.head.iter().enumerate().take(64) {
            if head_mask & (1 << i) != 0 {
                pat.for_each_var(&mut |v| bound[v as usize] = true);
            }
        }
        let mut masks = Vec::with_capacity(self.steps.len());
        for step in &self.steps {
            match step {
                Step::Scan { pats, .. } => {
                    masks.push(bound_mask(pats, &bound));
                    for pat in pats.iter() {
                        pat.for_each_var(&mut |v| bound[v as usize] = true);
                    }
                }
                _ => masks.push(0),
            }
        }
        masks
    }
}

/// How a relation is evaluated, and when its results are forgotten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Depends on neither `true` nor `does`: kept for the interpreter's lifetime.
    Static,
    /// Depends on `true` but not `does`: forgotten when the state changes.
    State,
    /// Depends on `does`: forgotten when the state or the joint move changes.
    Move,
}

/// What is known about a relation at compile time.
#[derive(Clone, Debug)]
pub struct RelationInfo {
    /// Number of columns.
    pub arity: usize,
    /// When its results are forgotten.
    pub phase: Phase,
    /// Whether it is materialised (recursive component, or an input: `true`, `does`).
    pub materialised: bool,
    /// Its dependency component.
    pub component: usize,
    /// The rules with this head relation.
    pub rules: Vec<usize>,
}

/// The compiled program: rules and relation facts, immutable after construction.
#[derive(Clone, Debug)]
pub struct Program {
    /// All rules.
    pub rules: Vec<CompiledRule>,
    /// Per relation.
    pub relations: Vec<RelationInfo>,
    /// Relations of each component.
    pub components: Vec<Vec<usize>>,
}

impl Program {
    /// Gives each rule's atoms their bottom-up lookup columns (used inside recursive
    /// components) and makes sure the materialised relations have the indexes that
    /// queries will use.
    pub fn finish(&mut self, db: &mut Db) {
        for rule in &mut self.rules {
            let masks = rule.plan(0);
            for (step, mask) in rule.steps.iter_mut().zip(masks) {
                if let Step::Scan { mask: slot, .. } = step {
                    *slot = mask;
                }
            }
        }
        // Indexes on materialised relations for every mask a call or scan may use: the
        // bottom-up masks above, plus those of top-down plans for any head mask are
        // created lazily by `Db::lookup`.
        for rule in &self.rules {
            for step in &rule.steps {
                if let Step::Scan { rel, mask, .. } = step
                    && self.relations[*rel].materialised
                    && *mask != 0
                {
                    Rc::make_mut(&mut db.materialised[*rel]).ensure_index(*mask);
                }
            }
        }
    }
}

/// A memoised call's key: the bound columns and their values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct CallKey {
    mask: ColumnMask,
    values: Box<[TermId]>,
}

/// A borrowed [`CallKey`], for lookups without allocating.
#[derive(Hash)]
struct CallRef<'a> {
    mask: ColumnMask,
    values: &'a [TermId],
}

impl Equivalent<CallKey> for CallRef<'_> {
    fn equivalent(&self, key: &CallKey) -> bool {
        self.mask == key.mask && *self.values == *key.values
    }
}

/// The mutable side of evaluation: terms, materialised relations and call memos.
#[derive(Clone, Debug)]
pub struct Db {
    /// The term interner.
    pub store: TermStore,
    /// Materialised relations (empty for the others). Shared so that an evaluation can
    /// iterate one while it computes others; only changed when nobody iterates it.
    pub materialised: Vec<Rc<Relation>>,
    /// Whether each recursive component has been materialised.
    pub component_done: Vec<bool>,
    calls: Vec<HashMap<CallKey, Rc<Relation>, FxBuildHasher>>,
}

impl Db {
    /// An empty database for `program`.
    pub fn new(program: &Program, store: TermStore) -> Self {
        Db {
            store,
            materialised: program.relations.iter().map(|r| Rc::new(Relation::new(r.arity))).collect(),
            component_done: vec![false; program.components.len()],
            calls: program.relations.iter().map(|_| HashMap::default()).collect(),
        }
    }

    /// Forgets everything of the given phases (`true`/`does` tuples included).
    pub fn forget(&mut self, program: &Program, phases: &[Phase]) {
        for (rel, info) in program.relations.iter().enumerate() {
            if phases.contains(&info.phase) {
                Rc::make_mut(&mut self.materialised[rel]).clear();
                self.calls[rel].clear();
                self.component_done[info.component] = false;
            }
        }
    }

    /// The tuples of `rel` agreeing with `values` on the columns of `mask` (`values`
    /// holds one entry per column; unbound entries are ignored), appended flat to `out`.
    pub fn query(&mut self, program: &Program, rel: usize, mask: ColumnMask, values: &[TermId], out: &mut Vec<TermId>) {
        let info = &program.relations[rel];
        if info.materialised {
            self.ensure_component(program, info.component);
            let relation = self.indexed(rel, mask);
            if mask == 0 {
                for i in 0..relation.len() {
                    out.extend_from_slice(relation.tuple(i));
                }
            } else {
                for i in relation.lookup(mask, values) {
                    out.extend_from_slice(relation.tuple(i));
                }
            }
        } else {
            let answers = self.call(program, rel, mask, values);
            for i in 0..answers.len() {
                out.extend_from_slice(answers.tuple(i));
            }
        }
    }

    /// Whether relation `rel` has any tuple (e.g. whether `terminal` holds).
    pub fn holds(&mut self, program: &Program, rel: usize) -> bool {
        let info = &program.relations[rel];
        if info.materialised {
            self.ensure_component(program, info.component);
            !self.materialised[rel].is_empty()
        } else {
            !self.call(program, rel, 0, &[]).is_empty()
        }
    }

    /// A materialised relation, with an index on `mask` (unless `mask` is empty).
    fn indexed(&mut self, rel: usize, mask: ColumnMask) -> Rc<Relation> {
        if mask != 0 && !self.materialised[rel].has_index(mask) {
            Rc::make_mut(&mut self.materialised[rel]).ensure_index(mask);
        }
        Rc::clone(&self.materialised[rel])
    }

    /// The answers of a call to a non-materialised relation, memoised.
    fn call(&mut self, program: &Program, rel: usize, mask: ColumnMask, values: &[TermId]) -> Rc<Relation> {
        let mut bound = [TermId(0); 16];
        let mut owned = Vec::new();
        let key_values: &[TermId] = {
            let selected = values.iter().enumerate().filter(|(i, _)| *i < 64 && mask & (1 << i) != 0).map(|(_, &v)| v);
            let count = mask.count_ones() as usize;
            if count <= bound.len() {
                for (slot, v) in bound.iter_mut().zip(selected) {
                    *slot = v;
                }
                &bound[..count]
            } else {
                owned.extend(selected);
                &owned
            }
        };
        let probe = CallRef { mask, values: key_values };
        let hash = FxBuildHasher.hash_one(&probe);
        if let Some((_, answers)) = self.calls[rel].raw_entry().from_hash(hash, |k| probe.equivalent(k)) {
            return Rc::clone(answers);
        }
        let info = &program.relations[rel];
        let mut answers = Relation::new(info.arity);
        let mut out = Vec::new();
        for &r in &info.rules {
            let rule = &program.rules[r];
            out.clear();
            let solutions = Solver::run(program, self, rule, Some((mask, values)), None, &mut out);
            if info.arity == 0 {
                if solutions > 0 {
                    answers.insert(&[]);
                }
            } else {
                for tuple in out.chunks_exact(info.arity) {
                    answers.insert(tuple);
                }
            }
        }
        let answers = Rc::new(answers);
        let key = CallKey { mask, values: key_values.into() };
        self.calls[rel].insert(key, Rc::clone(&answers));
        answers
    }

    /// Materialises a component (a no-op when done or when it has no rules).
    fn ensure_component(&mut self, program: &Program, component: usize) {
        if self.component_done[component] {
            return;
        }
        self.component_done[component] = true;
        let members = &program.components[component];
        let rules: Vec<usize> = members.iter().flat_map(|&m| program.relations[m].rules.iter().copied()).collect();
        if rules.is_empty() {
            return;
        }
        let mut out = Vec::new();
        let mut lo: Vec<u32> = members.iter().map(|&m| self.materialised[m].len()).collect();
        for &r in &rules {
            self.run_and_insert(program, r, None, &mut out);
        }
        loop {
            let hi: Vec<u32> = members.iter().map(|&m| self.materialised[m].len()).collect();
            if lo == hi {
                break;
            }
            for &r in &rules {
                for &s in &program.rules[r].recursive_steps {
                    let Step::Scan { rel, .. } = program.rules[r].steps[s] else { continue };
                    let Some(k) = members.iter().position(|&m| m == rel) else { continue };
                    if lo[k] < hi[k] {
                        self.run_and_insert(program, r, Some(Delta { step: s, lo: lo[k], hi: hi[k] }), &mut out);
                    }
                }
            }
            lo = hi;
        }
    }

    fn run_and_insert(&mut self, program: &Program, r: usize, delta: Option<Delta>, out: &mut Vec<TermId>) {
        out.clear();
        let rule = &program.rules[r];
        let solutions = Solver::run(program, self, rule, None, delta, out);
        let arity = rule.head.len();
        let head = Rc::make_mut(&mut self.materialised[rule.head_rel]);
        if arity == 0 {
            if solutions > 0 {
                head.insert(&[]);
            }
            return;
        }
        for tuple in out.chunks_exact(arity) {
            head.insert(tuple);
        }
    }
}

/// A delta restriction: step `step` reads only tuples `lo..hi` of its relation.
#[derive(Clone, Copy, Debug)]
struct Delta {
    step: usize,
    lo: u32,
    hi: u32,
}

struct Solver<'a> {
    program: &'a Program,
    rule: &'a CompiledRule,
    /// Bound columns of each step for this evaluation.
    masks: Vec<ColumnMask>,
    bindings: Vec<Option<TermId>>,
    trail: Vec<u16>,
    /// Scratch for lookup keys (taken while in use, returned before recursing).
    key: Vec<TermId>,
    delta: Option<Delta>,
    out: &'a mut Vec<TermId>,
    solutions: usize,
}

/// Matches `pat` against `term`, binding free variables (recorded on `trail`).
fn unify(store: &TermStore, bindings: &mut [Option<TermId>], trail: &mut Vec<u16>, pat: &Pat, term: TermId) -> bool {
    match pat {
        Pat::Var(v) => match bindings[*v as usize] {
            Some(bound) => bound == term,
            None => {
                bindings[*v as usize] = Some(term);
                trail.push(*v);
                true
            }
        },
        Pat::Term(t) => *t == term,
        Pat::App(functor, args) => {
            store.functor(term) == *functor
                && store.args(term).len() == args.len()
                && args.iter().enumerate().all(|(i, a)| unify(store, bindings, trail, a, store.args(term)[i]))
        }
    }
}

/// The ground term a bound pattern denotes, if it exists in the store.
fn resolve(store: &TermStore, bindings: &[Option<TermId>], pat: &Pat) -> Option<TermId> {
    match pat {
        Pat::Var(v) => bindings[*v as usize],
        Pat::Term(t) => Some(*t),
        Pat::App(functor, args) => {
            let mut buffer = [TermId(0); 8];
            if args.len() <= buffer.len() {
                for (slot, arg) in buffer.iter_mut().zip(args.iter()) {
                    *slot = resolve(store, bindings, arg)?;
                }
                store.find(*functor, &buffer[..args.len()])
            } else {
                let parts: Option<Vec<TermId>> = args.iter().map(|a| resolve(store, bindings, a)).collect();
                store.find(*functor, &parts?)
            }
        }
    }
}

/// The ground term a bound pattern denotes, interned.
fn instantiate(store: &mut TermStore, bindings: &[Option<TermId>], pat: &Pat) -> Option<TermId> {
    match pat {
        Pat::Var(v) => bindings[*v as usize],
        Pat::Term(t) => Some(*t),
        Pat::App(functor, args) => {
            let mut parts = [TermId(0); 8];
            if args.len() <= parts.len() {
                for (slot, arg) in parts.iter_mut().zip(args.iter()) {
                    *slot = instantiate(store, bindings, arg)?;
                }
                Some(store.intern(*functor, &parts[..args.len()]))
            } else {
                let mut parts = Vec::with_capacity(args.len());
                for arg in args.iter() {
                    parts.push(instantiate(store, bindings, arg)?);
                }
                Some(store.intern(*functor, &parts))
            }
        }
    }
}

/// Values of `pats` for the columns of `mask` (others `TermId(u32::MAX)`), or `None`
/// if a bound column names a term that was never built (so nothing can match).
fn key_of(store: &TermStore, bindings: &[Option<TermId>], pats: &[Pat], mask: ColumnMask, key: &mut Vec<TermId>) -> Option<()> {
    key.clear();
    for (i, pat) in pats.iter().enumerate() {
        if i < 64 && mask & (1 << i) != 0 {
            key.push(resolve(store, bindings, pat)?);
        } else {
            key.push(TermId(u32::MAX));
        }
    }
    Some(())
}

impl<'a> Solver<'a> {
    /// Runs `rule`, top-down for a call (`call`: the head's bound columns and values)
    /// or bottom-up (`None`), appending head tuples to `out`; returns the number of
    /// solutions.
    fn run(
        program: &'a Program,
        db: &mut Db,
        rule: &'a CompiledRule,
        call: Option<(ColumnMask, &[TermId])>,
        delta: Option<Delta>,
        out: &'a mut Vec<TermId>,
    ) -> usize {
        let mut solver = Solver {
            program,
            rule,
            masks: Vec::new(),
            bindings: vec![None; rule.num_vars],
            trail: Vec::new(),
            key: Vec::new(),
            delta,
            out,
            solutions: 0,
        };
        match call {
            Some((mask, values)) => {
                for (i, pat) in rule.head.iter().enumerate().take(64) {
                    if mask & (1 << i) != 0
                        && !unify(&db.store, &mut solver.bindings, &mut solver.trail, pat, values[i])
                    {
                        return 0;
                    }
                }
                solver.masks = rule.plan(mask);
            }
            None => {
                solver.masks = rule
                    .steps
                    .iter()
                    .map(|s| if let Step::Scan { mask, .. } = s { *mask } else { 0 })
                    .collect();
            }
        }
        solver.solve(db, 0);
        solver.solutions
    }

    fn solve(&mut self, db: &mut Db, step: usize) {
        let rule = self.rule;
        let Some(current) = rule.steps.get(step) else {
            let start = self.out.len();
            for pat in rule.head.iter() {
                match instantiate(&mut db.store, &self.bindings, pat) {
                    Some(term) => self.out.push(term),
                    None => {
                        // An unbound head variable: impossible in a checked (safe) game.
                        self.out.truncate(start);
                        return;
                    }
                }
            }
            self.solutions += 1;
            return;
        };
        match current {
            Step::Scan { rel, pats, .. } => {
                let mask = self.masks[step];
                let mut key = std::mem::take(&mut self.key);
                let exists = key_of(&db.store, &self.bindings, pats, mask, &mut key).is_some();
                let info = &self.program.relations[*rel];
                if !exists {
                    self.key = key;
                } else if info.materialised {
                    if info.component != self.program.relations[rule.head_rel].component {
                        db.ensure_component(self.program, info.component);
                    }
                    let relation = db.indexed(*rel, mask);
                    let (lo, hi) = match self.delta {
                        Some(d) if d.step == step => (d.lo, d.hi),
                        _ => (0, relation.len()),
                    };
                    if mask == 0 {
                        self.key = key;
                        for i in lo..hi {
                            self.try_tuple(db, step, pats, relation.tuple(i));
                        }
                    } else {
                        let hits = relation.lookup(mask, &key);
                        self.key = key;
                        for i in hits.filter(|&i| i >= lo && i < hi) {
                            self.try_tuple(db, step, pats, relation.tuple(i));
                        }
                    }
                } else {
                    let answers = db.call(self.program, *rel, mask, &key);
                    self.key = key;
                    for i in 0..answers.len() {
                        self.try_tuple(db, step, pats, answers.tuple(i));
                    }
                }
            }
            Step::Absent { rel, pats } => {
                let all = if pats.len() >= 64 { u64::MAX } else { (1u64 << pats.len()) - 1 };
                let mut key = std::mem::take(&mut self.key);
                // A term that was never built cannot be in any relation.
                let present = key_of(&db.store, &self.bindings, pats, all, &mut key).is_some() && {
                    let info = &self.program.relations[*rel];
                    if info.materialised {
                        db.ensure_component(self.program, info.component);
                        db.materialised[*rel].contains(&key)
                    } else {
                        !db.call(self.program, *rel, all, &key).is_empty()
                    }
                };
                self.key = key;
                if !present {
                    self.solve(db, step + 1);
                }
            }
            Step::Distinct(a, b) | Step::Equal(a, b) => {
                let x = instantiate(&mut db.store, &self.bindings, a);
                let y = instantiate(&mut db.store, &self.bindings, b);
                let (Some(x), Some(y)) = (x, y) else { return };
                if (x == y) == matches!(current, Step::Equal(..)) {
                    self.solve(db, step + 1);
                }
            }
        }
    }

    fn try_tuple(&mut self, db: &mut Db, step: usize, pats: &[Pat], tuple: &[TermId]) {
        let mark = self.trail.len();
        let mut ok = true;
        for (pat, &term) in pats.iter().zip(tuple) {
            if !unify(&db.store, &mut self.bindings, &mut self.trail, pat, term) {
                ok = false;
                break;
            }
        }
        if ok {
            self.solve(db, step + 1);
        }
        for v in self.trail.drain(mark..) {
            self.bindings[v as usize] = None;
        }
    }
}

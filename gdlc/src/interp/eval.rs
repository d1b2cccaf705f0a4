//! Demand-driven rule evaluation with tabling.
//!
//! A query of a relation with some arguments bound is a *call*. A call's answers are
//! computed top-down — each rule's head is matched with the call, its body run left to
//! right, each body atom itself a call — and kept in a *table* under the relation, the
//! bound columns and their values, so no call is evaluated twice in a state.
//!
//! Calls into a recursive component (an SCC with a cycle) may depend on themselves.
//! The first call into such a component leads: it evaluates its table, and every table
//! of the component created meanwhile, round after round, until a round adds no answer
//! and creates no table. A call to a table still in progress sees its current answers.
//! This reaches the least fixpoint (recursion is positive: negation is stratified) and
//! terminates because the recursion restriction keeps answers finite.
//!
//! `true` and `does` — the state and the joint move — are stored relations with indexes.
//!
//! The bound/free status of every argument is known when a rule is planned for a call's
//! bound head columns (literals run left to right after normalisation). Only what the
//! queries of a state need is ever computed: rules written for top-down provers (e.g.
//! `(coordinate ?x)` generators behind a negated call) cost no more than they do there.

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
    /// A positive atom: the tuples agreeing on the columns bound when it is reached,
    /// the other columns matched against `pats`.
    Scan {
        /// The relation.
        rel: usize,
        /// One pattern per column.
        pats: Box<[Pat]>,
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
    /// The head's argument patterns.
    pub head: Box<[Pat]>,
    /// The body, in evaluation order.
    pub steps: Vec<Step>,
    /// Number of variable slots.
    pub num_vars: usize,
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
    /// Each step's bound columns, given the head columns bound by the call.
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
    /// Whether it is stored rather than derived (`true`, `does`).
    pub stored: bool,
    /// Its dependency component.
    pub component: usize,
    /// Whether its component is recursive.
    pub recursive: bool,
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

/// One call's answers.
#[derive(Clone, Debug)]
struct Table {
    key: CallKey,
    answers: Rc<Relation>,
}

/// The tables of one relation.
#[derive(Clone, Debug, Default)]
struct Tables {
    by_key: HashMap<CallKey, u32, FxBuildHasher>,
    tables: Vec<Table>,
}

/// A recursive component being evaluated: its tables, in creation order.
#[derive(Clone, Debug)]
struct Fixpoint {
    component: usize,
    tables: Vec<(usize, u32)>,
}

/// The mutable side of evaluation: terms, stored relations and tables.
#[derive(Clone, Debug)]
pub struct Db {
    /// The term interner.
    pub store: TermStore,
    /// Stored relations (`true`, `does`; empty for the others). Shared so that an
    /// evaluation can iterate one while it computes others.
    pub stored: Vec<Rc<Relation>>,
    tables: Vec<Tables>,
    /// Recursive components being evaluated, innermost last.
    fixpoints: Vec<Fixpoint>,
}

impl Db {
    /// An empty database for `program`.
    pub fn new(program: &Program, store: TermStore) -> Self {
        Db {
            store,
            stored: program
                .relations
                .iter()
                .map(|r| Rc::new(Relation::new(r.arity)))
                .collect(),
            tables: program
                .relations
                .iter()
                .map(|_| Tables::default())
                .collect(),
            fixpoints: Vec::new(),
        }
    }

    /// Forgets everything of the given phases (`true`/`does` tuples included).
    pub fn forget(&mut self, program: &Program, phases: &[Phase]) {
        for (rel, info) in program.relations.iter().enumerate() {
            if phases.contains(&info.phase) {
                if !self.stored[rel].is_empty() {
                    Rc::make_mut(&mut self.stored[rel]).clear();
                }
                self.tables[rel].by_key.clear();
                self.tables[rel].tables.clear();
            }
        }
    }

    /// The tuples of `rel` agreeing with `values` on the columns of `mask` (`values`
    /// holds one entry per column; unbound entries are ignored), appended flat to `out`.
    pub fn query(
        &mut self,
        program: &Program,
        rel: usize,
        mask: ColumnMask,
        values: &[TermId],
        out: &mut Vec<TermId>,
    ) {
        if program.relations[rel].stored {
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
        if program.relations[rel].stored {
            !self.stored[rel].is_empty()
        } else {
            !self.call(program, rel, 0, &[]).is_empty()
        }
    }

    /// A stored relation, with an index on `mask` (unless `mask` is empty).
    fn indexed(&mut self, rel: usize, mask: ColumnMask) -> Rc<Relation> {
        if mask != 0 && !self.stored[rel].has_index(mask) {
            Rc::make_mut(&mut self.stored[rel]).ensure_index(mask);
        }
        Rc::clone(&self.stored[rel])
    }

    /// The answers of a call to a derived relation: complete, or the current answers of
    /// a table still in progress in a recursive component.
    fn call(
        &mut self,
        program: &Program,
        rel: usize,
        mask: ColumnMask,
        values: &[TermId],
    ) -> Rc<Relation> {
        let mut bound = [TermId(0); 16];
        let mut owned = Vec::new();
        let key_values: &[TermId] = {
            let selected = values
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < 64 && mask & (1 << i) != 0)
                .map(|(_, &v)| v);
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
        let probe = CallRef {
            mask,
            values: key_values,
        };
        let hash = FxBuildHasher.hash_one(&probe);
        if let Some((_, &t)) = self.tables[rel]
            .by_key
            .raw_entry()
            .from_hash(hash, |k| probe.equivalent(k))
        {
            return Rc::clone(&self.tables[rel].tables[t as usize].answers);
        }
        let info = &program.relations[rel];
        let key = CallKey {
            mask,
            values: key_values.into(),
        };
        let t = self.tables[rel].tables.len() as u32;
        self.tables[rel].tables.push(Table {
            key: key.clone(),
            answers: Rc::new(Relation::new(info.arity)),
        });
        self.tables[rel].by_key.insert(key, t);
        if !info.recursive {
            self.evaluate(program, rel, t);
        } else if let Some(fixpoint) = self
            .fixpoints
            .iter_mut()
            .find(|f| f.component == info.component)
        {
            // Inside the component's fixpoint: evaluate once now; the leader repeats.
            fixpoint.tables.push((rel, t));
            self.evaluate(program, rel, t);
        } else {
            self.lead_fixpoint(program, info.component, rel, t);
        }
        Rc::clone(&self.tables[rel].tables[t as usize].answers)
    }

    /// Evaluates the tables of a recursive component, starting from one, until a round
    /// adds no answer and creates no table.
    fn lead_fixpoint(&mut self, program: &Program, component: usize, rel: usize, t: u32) {
        self.fixpoints.push(Fixpoint {
            component,
            tables: vec![(rel, t)],
        });
        let depth = self.fixpoints.len() - 1;
        loop {
            let tables_before = self.fixpoints[depth].tables.len();
            let mut grew = false;
            let mut i = 0;
            while let Some(&(r, t)) = self.fixpoints[depth].tables.get(i) {
                grew |= self.evaluate(program, r, t);
                i += 1;
            }
            if !grew && self.fixpoints[depth].tables.len() == tables_before {
                break;
            }
        }
        self.fixpoints.truncate(depth);
    }

    /// Runs every rule of `rel` for table `t`, adding answers; true if any was new.
    fn evaluate(&mut self, program: &Program, rel: usize, t: u32) -> bool {
        let info = &program.relations[rel];
        let key = self.tables[rel].tables[t as usize].key.clone();
        let mut values = vec![TermId(u32::MAX); info.arity];
        let mut next_value = key.values.iter();
        for (i, slot) in values.iter_mut().enumerate().take(64) {
            if key.mask & (1 << i) != 0
                && let Some(&v) = next_value.next()
            {
                *slot = v;
            }
        }
        let mut out = Vec::new();
        let mut grew = false;
        for &r in &info.rules {
            out.clear();
            let solutions = Solver::run(
                program,
                self,
                &program.rules[r],
                key.mask,
                &values,
                &mut out,
            );
            let answers = Rc::make_mut(&mut self.tables[rel].tables[t as usize].answers);
            if info.arity == 0 {
                if solutions > 0 {
                    grew |= answers.insert(&[]);
                }
            } else {
                for tuple in out.chunks_exact(info.arity) {
                    grew |= answers.insert(tuple);
                }
            }
        }
        grew
    }
}

struct Solver<'a> {
    program: &'a Program,
    rule: &'a CompiledRule,
    /// Bound columns of each step for this call.
    masks: Vec<ColumnMask>,
    bindings: Vec<Option<TermId>>,
    trail: Vec<u16>,
    /// Scratch for lookup keys (taken while in use, returned before recursing).
    key: Vec<TermId>,
    out: &'a mut Vec<TermId>,
    solutions: usize,
}

/// Matches `pat` against `term`, binding free variables (recorded on `trail`).
fn unify(
    store: &TermStore,
    bindings: &mut [Option<TermId>],
    trail: &mut Vec<u16>,
    pat: &Pat,
    term: TermId,
) -> bool {
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
                && args
                    .iter()
                    .enumerate()
                    .all(|(i, a)| unify(store, bindings, trail, a, store.args(term)[i]))
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
                let parts: Option<Vec<TermId>> =
                    args.iter().map(|a| resolve(store, bindings, a)).collect();
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

/// Values of `pats` for the columns of `mask` (others `TermId(u32::MAX)`). For a
/// stored relation (`interned` false) `None` if a bound column names a term that was
/// never built, so nothing can match; a call to a derived relation interns the terms
/// it asks for, since evaluating the call may build them.
fn key_of(
    store: &mut TermStore,
    bindings: &[Option<TermId>],
    pats: &[Pat],
    mask: ColumnMask,
    key: &mut Vec<TermId>,
    interned: bool,
) -> Option<()> {
    key.clear();
    for (i, pat) in pats.iter().enumerate() {
        if i < 64 && mask & (1 << i) != 0 {
            key.push(if interned {
                instantiate(store, bindings, pat)?
            } else {
                resolve(store, bindings, pat)?
            });
        } else {
            key.push(TermId(u32::MAX));
        }
    }
    Some(())
}

impl<'a> Solver<'a> {
    /// Runs `rule` for a call whose bound head columns are `mask` with `values` (one
    /// entry per column), appending head tuples to `out`; returns the number of
    /// solutions.
    fn run(
        program: &'a Program,
        db: &mut Db,
        rule: &'a CompiledRule,
        mask: ColumnMask,
        values: &[TermId],
        out: &'a mut Vec<TermId>,
    ) -> usize {
        let mut solver = Solver {
            program,
            rule,
            masks: Vec::new(),
            bindings: vec![None; rule.num_vars],
            trail: Vec::new(),
            key: Vec::new(),
            out,
            solutions: 0,
        };
        for (i, pat) in rule.head.iter().enumerate().take(64) {
            if mask & (1 << i) != 0
                && !unify(
                    &db.store,
                    &mut solver.bindings,
                    &mut solver.trail,
                    pat,
                    values[i],
                )
            {
                return 0;
            }
        }
        solver.masks = rule.plan(mask);
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
            Step::Scan { rel, pats } => {
                let mask = self.masks[step];
                let mut key = std::mem::take(&mut self.key);
                let derived = !self.program.relations[*rel].stored;
                let exists =
                    key_of(&mut db.store, &self.bindings, pats, mask, &mut key, derived).is_some();
                if !exists {
                    self.key = key;
                } else if self.program.relations[*rel].stored {
                    let relation = db.indexed(*rel, mask);
                    if mask == 0 {
                        self.key = key;
                        for i in 0..relation.len() {
                            self.try_tuple(db, step, pats, relation.tuple(i));
                        }
                    } else {
                        let hits = relation.lookup(mask, &key);
                        self.key = key;
                        for i in hits {
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
                let all = if pats.len() >= 64 {
                    u64::MAX
                } else {
                    (1u64 << pats.len()) - 1
                };
                let mut key = std::mem::take(&mut self.key);
                // A term that was never built cannot be in a stored relation.
                let derived = !self.program.relations[*rel].stored;
                let present = key_of(&mut db.store, &self.bindings, pats, all, &mut key, derived)
                    .is_some()
                    && {
                        if self.program.relations[*rel].stored {
                            db.stored[*rel].contains(&key)
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

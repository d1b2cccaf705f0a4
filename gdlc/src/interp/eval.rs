//! Demand-driven rule evaluation with tabling.
//!
//! A query of a relation with some arguments bound is a *call*. A call's answers are
//! computed top-down — each rule's head is matched with the call, its body run left to
//! right, each body atom itself a call — and kept in a *table* under the relation, the
//! bound columns and their values, so no call is evaluated twice in a state.
//!
//! **Recursion.** A call may meet a table that is still being computed (a cycle of
//! calls, possible only through recursive rules); it then reads the answers found so
//! far. Such a table, and every table that read it, is *incomplete* until the cycle is
//! closed. Incomplete tables are kept on a stack in creation order, and every
//! evaluation records the lowest stack position of an incomplete table it read
//! (directly, or through a call that stayed incomplete), as in Tarjan's algorithm for
//! strongly connected components:
//! - a table whose evaluation read nothing incomplete is complete at once — the common
//!   case, evaluated exactly once even in recursive relations (e.g. a path followed
//!   from a bound start);
//! - a table whose evaluation read only itself and tables created after it *leads*:
//!   it and every table above it on the stack are evaluated again, round after round,
//!   until a round adds no answer and leaves no new incomplete table, then all of them
//!   are complete. This reaches the least fixpoint (positive recursion: negation is
//!   stratified, so a negated call never meets an incomplete table) and terminates
//!   because the recursion restriction keeps answers finite. If a round reads an
//!   incomplete table below the leader, the leader gives way to that older one;
//! - otherwise the table stays incomplete and the caller inherits its lowest position.
//!
//! **Static membership tests.** A relation that depends on neither `true` nor `does`
//! keeps its tables for the interpreter's lifetime. When one has been called with
//! [`WHOLE_AFTER`] different keys and is then called with every column bound, its whole
//! extension (the call with no bound column) is computed once, and such calls are
//! answered from it through an index: the same answers, without a table per key.
//! (Without it, a test such as `(square ?x1 … ?y4)` with all eight columns bound, run
//! for every four pieces of every state, keeps one table per combination ever met.)
//! That computation is bounded ([`WHOLE_MAX_ANSWERS`] answers in the tables it creates,
//! [`WHOLE_MAX_STEPS`] tuples matched): past a bound it is abandoned — the tables it
//! created are dropped, the stack of incomplete tables is as before — and the relation
//! keeps its per-key tables for good (sudoku's whole extension would exhaust memory).
//! Only tests with every column bound are answered so (calls that leave a column free
//! may walk a relation whose whole extension is huge), and only for relations whose
//! rules build no compound term in their heads and bind every head variable in their
//! bodies (see [`RelationInfo::groundable`](super::program::RelationInfo::groundable);
//! lists built by recursion are not).
//!
//! `true` and `does` — the state and the joint move — are stored relations with indexes.
//!
//! The bound/free status of every argument is known when a rule is planned for a call's
//! bound head columns (the body's run order is chosen then from the game's structure,
//! see `order.rs`); plans are cached per rule and head columns. Only what the queries of a state need is ever
//! computed: rules written for top-down provers (e.g. `(coordinate ?x)` generators
//! behind a negated call) cost no more than they do there. Variable bindings, the
//! undo trail and call keys live on stacks shared by all rule activations, so
//! evaluating a rule allocates nothing once they have grown.

use std::hash::{BuildHasher, Hasher};

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::program::{CompiledRule, Pat, Phase, Program, Step};
use super::relation::{ColumnMask, END, Relation};
use super::terms::{TermId, TermStore};

/// Calls of a static relation with this many different keys make it computed whole
/// (`None`: never).
pub const WHOLE_AFTER: Option<usize> = Some(256);

/// Answers the computation of a whole extension may add to the tables it creates
/// before it is abandoned.
pub const WHOLE_MAX_ANSWERS: usize = 1 << 17;

/// Tuples the computation of a whole extension may match before it is abandoned.
pub const WHOLE_MAX_STEPS: usize = 1 << 22;

/// A term id that no term has: the value of an unbound column in a key.
const UNBOUND: TermId = TermId(u32::MAX);

/// "No incomplete table read" as a stack position.
const NONE: u32 = u32::MAX;

/// One call's answers.
#[derive(Clone, Debug)]
struct Table {
    /// The bound columns.
    mask: ColumnMask,
    /// The bound values, at `Tables::keys[key..key + mask.count_ones()]`.
    key: u32,
    answers: Relation,
    /// Its position on the stack of incomplete tables; [`NONE`] once complete.
    position: u32,
}

/// Whether a static relation's whole extension is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Whole {
    /// Not asked for (fewer than [`WHOLE_AFTER`] tables).
    #[default]
    No,
    /// Being computed (calls meanwhile are answered by their own tables).
    Making,
    /// This table, the call with no bound column (used once complete).
    Table(u32),
    /// Its computation went past a bound: per-key tables for good.
    Abandoned,
}

/// What the computation of a whole extension in progress may still do.
#[derive(Clone, Copy, Debug)]
struct Budget {
    answers: usize,
    steps: usize,
    /// A bound was reached: every rule activation stops at once.
    exhausted: bool,
}

/// The tables of one relation.
#[derive(Clone, Debug, Default)]
struct Tables {
    /// Table ids by the hash of their key.
    index: HashTable<u32>,
    /// The bound values of every table's key, one after the other.
    keys: Vec<TermId>,
    list: Vec<Table>,
    whole: Whole,
}

/// The values of the columns of `mask` in `values` (one entry per column).
fn bound_values(values: &[TermId], mask: ColumnMask) -> impl Iterator<Item = TermId> + '_ {
    values
        .iter()
        .enumerate()
        .filter(move |(i, _)| *i < 64 && mask & (1 << i) != 0)
        .map(|(_, &v)| v)
}

fn hash_key(mask: ColumnMask, values: impl Iterator<Item = TermId>) -> u64 {
    let mut hasher = FxBuildHasher.build_hasher();
    hasher.write_u64(mask);
    for v in values {
        hasher.write_u32(v.0);
    }
    hasher.finish()
}

impl Tables {
    fn key_of(&self, table: &Table) -> &[TermId] {
        let start = table.key as usize;
        &self.keys[start..start + table.mask.count_ones() as usize]
    }

    /// The table of the call binding `mask` to `values` (one entry per column).
    fn find(&self, mask: ColumnMask, values: &[TermId]) -> Option<u32> {
        let hash = hash_key(mask, bound_values(values, mask));
        self.index
            .find(hash, |&t| {
                let table = &self.list[t as usize];
                table.mask == mask
                    && self
                        .key_of(table)
                        .iter()
                        .copied()
                        .eq(bound_values(values, mask))
            })
            .copied()
    }

    /// A new, empty table for the call binding `mask` to `values`.
    fn create(&mut self, arity: usize, mask: ColumnMask, values: &[TermId], position: u32) -> u32 {
        let t = self.list.len() as u32;
        let key = self.keys.len() as u32;
        self.keys.extend(bound_values(values, mask));
        self.list.push(Table {
            mask,
            key,
            answers: Relation::new(arity),
            position,
        });
        let hash = hash_key(mask, bound_values(values, mask));
        let (list, keys) = (&self.list, &self.keys);
        self.index.insert_unique(hash, t, |&other| {
            let table = &list[other as usize];
            let start = table.key as usize;
            let values = &keys[start..start + table.mask.count_ones() as usize];
            hash_key(table.mask, values.iter().copied())
        });
        t
    }

    /// Drops the tables from `len` on.
    fn truncate(&mut self, len: usize) {
        if self.list.len() <= len {
            return;
        }
        self.index.retain(|t| (*t as usize) < len);
        if let Some(first) = self.list.get(len) {
            self.keys.truncate(first.key as usize);
        }
        self.list.truncate(len);
    }

    fn clear(&mut self) {
        self.index.clear();
        self.keys.clear();
        self.list.clear();
        self.whole = Whole::No;
    }
}

/// The answers of a call, read by position while other calls are evaluated.
#[derive(Clone, Copy, Debug)]
enum Answers {
    /// Every answer of this table of the relation.
    All(u32),
    /// The answers of this (complete) table on one chain of its index `slot`, from
    /// `first` ([`END`]: none).
    Chain { t: u32, slot: usize, first: u32 },
}

/// Where a tuple being matched is.
#[derive(Clone, Copy, Debug)]
enum Source {
    Stored(usize),
    Table(usize, u32),
}

/// The mutable side of evaluation: terms, stored relations and tables.
#[derive(Clone, Debug)]
pub struct Db {
    /// The term interner.
    pub store: TermStore,
    /// Stored relations (`true`, `does`; empty for the others).
    pub stored: Vec<Relation>,
    tables: Vec<Tables>,
    /// Incomplete tables, in creation order.
    stack: Vec<(usize, u32)>,
    /// The lowest stack position of an incomplete table read by the evaluation in
    /// progress ([`NONE`]: none).
    low: u32,
    /// Plans by rule and bound head columns: where their steps start in `plan_steps`.
    plans: FxHashMap<(usize, ColumnMask), u32>,
    /// Each plan's steps in run order: the step's index in the rule and its bound
    /// columns (`order.rs`).
    plan_steps: Vec<(u32, ColumnMask)>,
    /// Expected answers of derived relations, for ordering bodies.
    estimates: super::order::Estimates,
    /// Tuples matched against a body literal so far: the evaluation's work.
    pub tuples_tried: u64,
    /// Variable bindings of the rule activations in progress, each a window.
    bindings: Vec<Option<TermId>>,
    /// Bindings to undo on backtracking (positions in the activation's window).
    trail: Vec<u16>,
    /// Call keys and head tuples under construction.
    keys: Vec<TermId>,
    /// Set while a whole extension is computed (one at a time).
    budget: Option<Budget>,
}

impl Db {
    /// An empty database for `program`.
    pub fn new(program: &Program, store: TermStore) -> Self {
        Db {
            store,
            stored: program
                .relations
                .iter()
                .map(|r| Relation::new(r.arity))
                .collect(),
            tables: program
                .relations
                .iter()
                .map(|_| Tables::default())
                .collect(),
            stack: Vec::new(),
            low: NONE,
            plans: FxHashMap::default(),
            plan_steps: Vec::new(),
            estimates: super::order::Estimates::default(),
            tuples_tried: 0,
            bindings: Vec::new(),
            trail: Vec::new(),
            keys: Vec::new(),
            budget: None,
        }
    }

    /// Tables kept, and answers in them, over every relation.
    pub fn table_sizes(&self) -> (usize, usize) {
        let tables = self.tables.iter().map(|t| t.list.len()).sum();
        let answers = self
            .tables
            .iter()
            .flat_map(|t| &t.list)
            .map(|table| table.answers.len() as usize)
            .sum();
        (tables, answers)
    }

    /// Forgets everything of the given phases (`true`/`does` tuples included).
    pub fn forget(&mut self, program: &Program, phases: &[Phase]) {
        for (rel, info) in program.relations.iter().enumerate() {
            if phases.contains(&info.phase) {
                self.stored[rel].clear();
                self.tables[rel].clear();
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
            let relation = &mut self.stored[rel];
            if mask == 0 {
                for i in 0..relation.len() {
                    out.extend_from_slice(relation.tuple(i));
                }
            } else {
                relation.ensure_index(mask);
                let (slot, mut i) = relation.chain_start(mask, values);
                while i != END {
                    out.extend_from_slice(relation.tuple(i));
                    i = relation.chain_next(slot, i);
                }
            }
        } else {
            let key = self.push_key(program, rel, values);
            let answers = self.call(program, rel, mask, key);
            self.keys.truncate(key);
            let mut at = self.first(rel, answers);
            while let Some(i) = at {
                out.extend_from_slice(self.answer(rel, answers, i));
                at = self.after(rel, answers, i);
            }
        }
        debug_assert!(self.stack.is_empty(), "a query leaves every table complete");
    }

    /// Whether relation `rel` has any tuple (e.g. whether `terminal` holds).
    pub fn holds(&mut self, program: &Program, rel: usize) -> bool {
        if program.relations[rel].stored {
            !self.stored[rel].is_empty()
        } else {
            let key = self.push_key(program, rel, &[]);
            let answers = self.call(program, rel, 0, key);
            self.keys.truncate(key);
            self.first(rel, answers).is_some()
        }
    }

    /// Pushes a key for `rel` made of `values` (unbound beyond them) on `keys`; where it
    /// starts.
    fn push_key(&mut self, program: &Program, rel: usize, values: &[TermId]) -> usize {
        let start = self.keys.len();
        let arity = program.relations[rel].arity;
        self.keys.extend(values.iter().copied().take(arity));
        self.keys.resize(start + arity, UNBOUND);
        start
    }

    /// The first answer's position.
    fn first(&self, rel: usize, answers: Answers) -> Option<u32> {
        match answers {
            Answers::All(t) => (!self.tables[rel].list[t as usize].answers.is_empty()).then_some(0),
            Answers::Chain { first, .. } => (first != END).then_some(first),
        }
    }

    /// The position of the answer after `i` (for a table in progress, answers added
    /// meanwhile are read too).
    fn after(&self, rel: usize, answers: Answers, i: u32) -> Option<u32> {
        match answers {
            Answers::All(t) => {
                (i + 1 < self.tables[rel].list[t as usize].answers.len()).then_some(i + 1)
            }
            Answers::Chain { t, slot, .. } => {
                let next = self.tables[rel].list[t as usize]
                    .answers
                    .chain_next(slot, i);
                (next != END).then_some(next)
            }
        }
    }

    /// The answer at position `i`.
    fn answer(&self, rel: usize, answers: Answers, i: u32) -> &[TermId] {
        let (Answers::All(t) | Answers::Chain { t, .. }) = answers;
        self.tables[rel].list[t as usize].answers.tuple(i)
    }

    /// The answers of a call to a derived relation (its key: one value per column at
    /// `keys[key..]`, the unbound ones ignored):
    /// complete, or the current answers of a table still in progress.
    fn call(&mut self, program: &Program, rel: usize, mask: ColumnMask, key: usize) -> Answers {
        let info = &program.relations[rel];
        let every_column = mask.count_ones() as usize == info.arity.min(64);
        if mask != 0 && every_column && info.groundable && info.phase == Phase::Static {
            if self.tables[rel].whole == Whole::No
                && self.budget.is_none()
                && WHOLE_AFTER.is_some_and(|after| self.tables[rel].list.len() >= after)
            {
                self.tables[rel].whole = self.make_whole(program, rel, key);
            }
            if let Whole::Table(t) = self.tables[rel].whole {
                let table = &mut self.tables[rel].list[t as usize];
                if table.position == NONE {
                    let values = &self.keys[key..key + program.relations[rel].arity];
                    table.answers.ensure_index(mask);
                    let (slot, first) = table.answers.chain_start(mask, values);
                    return Answers::Chain { t, slot, first };
                }
            }
        }
        Answers::All(self.table(program, rel, mask, key))
    }

    /// Computes the whole extension of static relation `rel` (a table with no bound
    /// column) within [`WHOLE_MAX_ANSWERS`] and [`WHOLE_MAX_STEPS`]; past either, drops
    /// every table the computation created, as if it had not run.
    fn make_whole(&mut self, program: &Program, rel: usize, key: usize) -> Whole {
        self.tables[rel].whole = Whole::Making;
        let sizes: Vec<usize> = self.tables.iter().map(|t| t.list.len()).collect();
        let (stack, low) = (self.stack.len(), self.low);
        self.budget = Some(Budget {
            answers: WHOLE_MAX_ANSWERS,
            steps: WHOLE_MAX_STEPS,
            exhausted: false,
        });
        let whole = self.table(program, rel, 0, key);
        let budget = self.budget.take();
        if !budget.is_some_and(|b| b.exhausted) {
            return Whole::Table(whole);
        }
        // Only tables created by the computation are above `stack` or past `sizes`;
        // those older were read, never changed (answers go to the table evaluated).
        self.stack.truncate(stack);
        self.low = low;
        for (tables, &size) in self.tables.iter_mut().zip(&sizes) {
            tables.truncate(size);
        }
        Whole::Abandoned
    }

    /// Counts a tuple matched by a bounded computation; false once past its bound.
    #[inline]
    fn spend_step(&mut self) -> bool {
        match &mut self.budget {
            None => true,
            Some(budget) => {
                if budget.steps == 0 {
                    budget.exhausted = true;
                }
                budget.steps = budget.steps.saturating_sub(1);
                !budget.exhausted
            }
        }
    }

    /// The table of a call, evaluated if new (see the module docs for when it is
    /// complete).
    fn table(&mut self, program: &Program, rel: usize, mask: ColumnMask, key: usize) -> u32 {
        let arity = program.relations[rel].arity;
        let values = &self.keys[key..key + arity];
        if let Some(t) = self.tables[rel].find(mask, values) {
            let position = self.tables[rel].list[t as usize].position;
            self.low = self.low.min(position);
            return t;
        }
        let position = self.stack.len() as u32;
        let t = self.tables[rel].create(arity, mask, values, position);
        self.stack.push((rel, t));
        let outer = std::mem::replace(&mut self.low, NONE);
        self.evaluate(program, rel, t);
        let low = if self.low == NONE {
            self.complete_from(position);
            NONE
        } else if self.low >= position {
            self.lead(program, position)
        } else {
            self.low
        };
        self.low = outer.min(low);
        t
    }

    /// Evaluates the tables from stack position `from` up again and again until a round
    /// adds no answer and leaves no new incomplete table, then marks them complete
    /// ([`NONE`]); or returns the position of an older incomplete table that a round
    /// read, leaving them incomplete.
    fn lead(&mut self, program: &Program, from: u32) -> u32 {
        loop {
            let size = self.stack.len();
            let mut grew = false;
            let mut i = from as usize;
            while let Some(&(rel, t)) = self.stack.get(i) {
                self.low = NONE;
                grew |= self.evaluate(program, rel, t);
                if self.low < from {
                    return self.low;
                }
                i += 1;
            }
            if !grew && self.stack.len() == size {
                break;
            }
        }
        self.complete_from(from);
        NONE
    }

    /// Marks the tables from stack position `from` up complete and pops them.
    fn complete_from(&mut self, from: u32) {
        for (rel, t) in self.stack.drain(from as usize..) {
            self.tables[rel].list[t as usize].position = NONE;
        }
    }

    /// Runs every rule of `rel` for table `t`, adding answers; true if any was new.
    fn evaluate(&mut self, program: &Program, rel: usize, t: u32) -> bool {
        let mut grew = false;
        for &r in &program.relations[rel].rules {
            grew |= self.run_rule(program, r, rel, t);
        }
        grew
    }

    /// The steps of rule `r` in run order for calls binding `mask`: where they start in
    /// `plan_steps`.
    fn plan(&mut self, program: &Program, r: usize, mask: ColumnMask) -> u32 {
        if let Some(&start) = self.plans.get(&(r, mask)) {
            return start;
        }
        let start = self.plan_steps.len() as u32;
        let steps = super::order::order(program, &self.store, &mut self.estimates, r, mask);
        self.plan_steps.extend(steps);
        self.plans.insert((r, mask), start);
        start
    }

    /// Runs rule `r` for table `t` of `rel`; true if it added an answer.
    fn run_rule(&mut self, program: &Program, r: usize, rel: usize, t: u32) -> bool {
        let rule = &program.rules[r];
        let base = self.bindings.len();
        self.bindings.resize(base + rule.num_vars, None);
        let trail = self.trail.len();
        let table = &self.tables[rel].list[t as usize];
        let mask = table.mask;
        let key = table.key as usize;
        let mut matched = true;
        let mut next_value = key;
        for (i, pat) in rule.head.iter().enumerate().take(64) {
            if mask & (1 << i) != 0 {
                let value = self.tables[rel].keys[next_value];
                next_value += 1;
                if !unify(
                    &self.store,
                    &mut self.bindings[base..],
                    &mut self.trail,
                    pat,
                    value,
                ) {
                    matched = false;
                    break;
                }
            }
        }
        let mut grew = false;
        if matched {
            let plan = self.plan(program, r, mask);
            let frame = Frame {
                rule,
                base,
                plan,
                rel,
                t,
            };
            grew = self.solve(program, &frame, 0);
        }
        self.trail.truncate(trail);
        self.bindings.truncate(base);
        grew
    }

    /// Runs the body of `frame`'s rule from `step` on; true if an answer was new.
    fn solve(&mut self, program: &Program, frame: &Frame<'_>, step: usize) -> bool {
        if self.budget.is_some_and(|b| b.exhausted) {
            return false;
        }
        let rule = frame.rule;
        if step == rule.steps.len() {
            return self.add_answer(frame);
        }
        let (index, mask) = self.plan_steps[frame.plan as usize + step];
        let current = &rule.steps[index as usize];
        match current {
            Step::Scan { rel, pats } => {
                let rel = *rel;
                let stored = program.relations[rel].stored;
                let key = self.keys.len();
                let exists = key_of(
                    &mut self.store,
                    &self.bindings[frame.base..],
                    pats,
                    mask,
                    &mut self.keys,
                    !stored,
                )
                .is_some();
                if !exists {
                    self.keys.truncate(key);
                    return false;
                }
                let mut grew = false;
                if stored {
                    if mask == 0 {
                        self.keys.truncate(key);
                        for i in 0..self.stored[rel].len() {
                            grew |=
                                self.try_tuple(program, frame, step, pats, Source::Stored(rel), i);
                        }
                    } else {
                        let relation = &mut self.stored[rel];
                        relation.ensure_index(mask);
                        let (slot, mut i) = relation.chain_start(mask, &self.keys[key..]);
                        self.keys.truncate(key);
                        while i != END {
                            let next = self.stored[rel].chain_next(slot, i);
                            grew |=
                                self.try_tuple(program, frame, step, pats, Source::Stored(rel), i);
                            i = next;
                        }
                    }
                } else {
                    let answers = self.call(program, rel, mask, key);
                    self.keys.truncate(key);
                    let (Answers::All(t) | Answers::Chain { t, .. }) = answers;
                    let mut at = self.first(rel, answers);
                    while let Some(i) = at {
                        grew |=
                            self.try_tuple(program, frame, step, pats, Source::Table(rel, t), i);
                        at = self.after(rel, answers, i);
                    }
                }
                grew
            }
            Step::Absent { rel, pats } => {
                let rel = *rel;
                let all = if pats.len() >= 64 {
                    u64::MAX
                } else {
                    (1u64 << pats.len()) - 1
                };
                let stored = program.relations[rel].stored;
                let key = self.keys.len();
                // A term that was never built cannot be in a stored relation.
                let present = key_of(
                    &mut self.store,
                    &self.bindings[frame.base..],
                    pats,
                    all,
                    &mut self.keys,
                    !stored,
                )
                .is_some()
                    && if stored {
                        self.stored[rel].contains(&self.keys[key..])
                    } else {
                        let answers = self.call(program, rel, all, key);
                        self.first(rel, answers).is_some()
                    };
                self.keys.truncate(key);
                !present && self.solve(program, frame, step + 1)
            }
            Step::Distinct(a, b) | Step::Equal(a, b) => {
                let bindings = &self.bindings[frame.base..];
                let x = instantiate(&mut self.store, bindings, a);
                let y = instantiate(&mut self.store, bindings, b);
                let (Some(x), Some(y)) = (x, y) else {
                    return false;
                };
                (x == y) == matches!(current, Step::Equal(..))
                    && self.solve(program, frame, step + 1)
            }
        }
    }

    /// Adds the head of `frame`'s rule, as bound now, to its table; true if new.
    fn add_answer(&mut self, frame: &Frame<'_>) -> bool {
        let start = self.keys.len();
        for pat in frame.rule.head.iter() {
            match instantiate(&mut self.store, &self.bindings[frame.base..], pat) {
                Some(term) => self.keys.push(term),
                None => {
                    // An unbound head variable: impossible in a checked (safe) game.
                    self.keys.truncate(start);
                    return false;
                }
            }
        }
        let answers = &mut self.tables[frame.rel].list[frame.t as usize].answers;
        let grew = answers.insert(&self.keys[start..]);
        self.keys.truncate(start);
        if grew && let Some(budget) = &mut self.budget {
            if budget.answers == 0 {
                budget.exhausted = true;
            }
            budget.answers = budget.answers.saturating_sub(1);
        }
        grew
    }

    /// Matches `pats` with tuple `i` of `source`, and runs the rest of the body if they
    /// match; true if an answer was new.
    fn try_tuple(
        &mut self,
        program: &Program,
        frame: &Frame<'_>,
        step: usize,
        pats: &[Pat],
        source: Source,
        i: u32,
    ) -> bool {
        if !self.spend_step() {
            return false;
        }
        self.tuples_tried += 1;
        let mark = self.trail.len();
        let tuple = match source {
            Source::Stored(rel) => self.stored[rel].tuple(i),
            Source::Table(rel, t) => self.tables[rel].list[t as usize].answers.tuple(i),
        };
        let bindings = &mut self.bindings[frame.base..];
        let trail = &mut self.trail;
        let store = &self.store;
        let matched = pats
            .iter()
            .zip(tuple)
            .all(|(pat, &term)| unify(store, bindings, trail, pat, term));
        let grew = matched && self.solve(program, frame, step + 1);
        for v in self.trail.drain(mark..) {
            self.bindings[frame.base + v as usize] = None;
        }
        grew
    }
}

/// One activation of a rule: where its bindings and step masks are, and the table its
/// answers go to.
struct Frame<'a> {
    rule: &'a CompiledRule,
    /// Start of its bindings in `Db::bindings`.
    base: usize,
    /// Start of its steps in `Db::plan_steps`.
    plan: u32,
    rel: usize,
    t: u32,
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

/// Values of `pats` for the columns of `mask` (others [`UNBOUND`]), pushed on `key`. For a
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
    for (i, pat) in pats.iter().enumerate() {
        if i < 64 && mask & (1 << i) != 0 {
            key.push(if interned {
                instantiate(store, bindings, pat)?
            } else {
                resolve(store, bindings, pat)?
            });
        } else {
            key.push(UNBOUND);
        }
    }
    Some(())
}

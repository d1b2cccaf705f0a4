//! The engine of the plan executor: relation stores built as the plan says (flag,
//! bitset, hash set, indexes, memo tables) and an evaluator of filter trees.
//!
//! - Materialised layers run their tree once ([`LayerEvaluation::Once`]) or until a
//!   round adds nothing ([`LayerEvaluation::Fixpoint`]). Tuples accepted by a rule are
//!   buffered and added when the rule is done, so no store changes while a query
//!   iterates it.
//! - Demand relations are called with the values of their bound columns; each call's
//!   answers are a memo table. Calls into a recursive layer are tabled: the first one
//!   leads, re-evaluating every table of the layer created meanwhile until a round adds
//!   no answer and creates no table; a call to a table in progress sees its current
//!   answers (a least fixpoint: recursion is positive).
//! - Nothing here decides anything: every access path comes from the plan.

use std::hash::Hasher;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use crate::ir::{Arg, Ir, NIL, Phase, RelationId, SymbolId};
use crate::plan::{Access, Evaluation, LayerEvaluation, Node, Plan, Query, Slot, Storage, Test};

const NONE: u32 = u32::MAX;

/// The work counted for each new tuple of a materialised relation, besides the nodes
/// that derived it: the generated code sets its bit and lists it for the relation's
/// readers (a semi-naive round decodes it again). Charged less, a layer materialised
/// over the whole state looked cheaper than asking for the few tuples its readers
/// need: amazons' queen lines, every pair of squares each state (thousands of tuples)
/// against the lines from the four queens — at one node per tuple, a renamed amazons
/// kept them materialised at 0.80 of the nodes on demand, and the generated code ran
/// twice the instructions. An answer of a demand mode is not charged: most such modes
/// are inlined at their call sites and store nothing.
const MATERIALISED_TUPLE_WORK: usize = 2;

/// The work counted for each memo table a call of a recursive demand relation opens,
/// and for each new answer in it: the generated code tables every such call (a hash
/// lookup, a table allocated, answers inserted and read back through their store),
/// where a non-recursive demand mode is mostly inlined and stores nothing. Uncharged,
/// team chess's slider rays on demand counted less than 1/[`crate::planner::GAIN`] times
/// the nodes of the materialised rays in one order of its rule bodies, so they stayed
/// on demand, and the generated code ran 2.3 times the instructions.
const MEMO_TABLE_WORK: usize = 4;
const MEMO_ANSWER_WORK: usize = 2;

fn hash_values(values: impl Iterator<Item = SymbolId>) -> u64 {
    let mut hasher = FxHasher::default();
    for v in values {
        hasher.write_u32(v.0);
    }
    hasher.finish()
}

/// The bit of a tuple in a bitset store, if every value is in its column's domain.
fn bit_of(positions: &[Vec<u32>], strides: &[usize], tuple: &[SymbolId]) -> Option<usize> {
    let mut bit = 0;
    for (c, s) in tuple.iter().enumerate() {
        let p = *positions[c].get(s.0 as usize)?;
        if p == NONE {
            return None;
        }
        bit += p as usize * strides[c];
    }
    Some(bit)
}

/// Adds row number `row` (about to hold `tuple`) to a hash set of rows unless an equal
/// row is there; true if it was added.
fn insert_row(
    table: &mut HashTable<u32>,
    rows: &[SymbolId],
    arity: usize,
    tuple: &[SymbolId],
    row: u32,
) -> bool {
    let stored = |r: u32| &rows[r as usize * arity..(r as usize + 1) * arity];
    let hash = hash_values(tuple.iter().copied());
    if table.find(hash, |&r| stored(r) == tuple).is_some() {
        return false;
    }
    table.insert_unique(hash, row, |&r| hash_values(stored(r).iter().copied()));
    true
}

/// How a store keeps its tuples unique.
#[derive(Clone, Debug)]
enum Dedupe {
    /// No columns: at most one (empty) tuple.
    Flag,
    /// A bitset over the product of the column domains.
    Bits {
        /// Per column, symbol id → position in the domain (`NONE` if absent).
        positions: Vec<Vec<u32>>,
        strides: Vec<usize>,
        bits: Vec<u64>,
        /// Tuples outside the domains (none if the analysis is sound), by hash.
        overflow: HashTable<u32>,
    },
    /// A hash set of row numbers.
    Hash(HashTable<u32>),
}

/// A hash index on some columns: each key's rows as a chain, newest first.
#[derive(Clone, Debug)]
struct Index {
    columns: Vec<usize>,
    heads: HashTable<u32>,
    next: Vec<u32>,
}

/// The tuples of one relation (or one memo table).
#[derive(Clone, Debug)]
pub struct Store {
    arity: usize,
    rows: Vec<SymbolId>,
    count: usize,
    dedupe: Dedupe,
    indexes: Vec<Index>,
}

impl Store {
    fn new(ir: &Ir, relation: RelationId, storage: &Storage, indexes: &[Vec<usize>]) -> Self {
        let columns = &ir.relation(relation).columns;
        let dedupe = match storage {
            _ if columns.is_empty() => Dedupe::Flag,
            Storage::Bitset { radices } => {
                let mut strides = vec![1; radices.len()];
                for c in (0..radices.len().saturating_sub(1)).rev() {
                    strides[c] = strides[c + 1] * radices[c + 1].max(1);
                }
                let total = strides.first().copied().unwrap_or(1) * radices[0].max(1);
                let positions = columns
                    .iter()
                    .map(|c| {
                        let mut map = vec![NONE; ir.symbols.len()];
                        for (i, s) in c.domain.iter().enumerate() {
                            map[s.0 as usize] = i as u32;
                        }
                        map
                    })
                    .collect();
                Dedupe::Bits {
                    positions,
                    strides,
                    bits: vec![0; total.div_ceil(64)],
                    overflow: HashTable::new(),
                }
            }
            _ => Dedupe::Hash(HashTable::new()),
        };
        Store {
            arity: columns.len(),
            rows: Vec::new(),
            count: 0,
            dedupe,
            indexes: indexes
                .iter()
                .map(|columns| Index {
                    columns: columns.clone(),
                    heads: HashTable::new(),
                    next: Vec::new(),
                })
                .collect(),
        }
    }

    fn plain(arity: usize) -> Self {
        Store {
            arity,
            rows: Vec::new(),
            count: 0,
            dedupe: if arity == 0 {
                Dedupe::Flag
            } else {
                Dedupe::Hash(HashTable::new())
            },
            indexes: Vec::new(),
        }
    }

    /// Number of tuples.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there is no tuple.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Tuple `i`.
    pub fn row(&self, i: usize) -> &[SymbolId] {
        &self.rows[i * self.arity..(i + 1) * self.arity]
    }

    fn clear(&mut self) {
        match &mut self.dedupe {
            Dedupe::Flag => {}
            Dedupe::Bits {
                positions,
                strides,
                bits,
                overflow,
            } => {
                if self.count * 4 > bits.len() {
                    bits.iter_mut().for_each(|w| *w = 0);
                } else {
                    for row in self.rows.chunks_exact(self.arity) {
                        if let Some(bit) = bit_of(positions, strides, row) {
                            bits[bit / 64] = 0;
                        }
                    }
                }
                overflow.clear();
            }
            Dedupe::Hash(table) => table.clear(),
        }
        for index in &mut self.indexes {
            index.heads.clear();
            index.next.clear();
        }
        self.rows.clear();
        self.count = 0;
    }

    /// Whether the tuple is present.
    pub fn contains(&self, tuple: &[SymbolId]) -> bool {
        match &self.dedupe {
            Dedupe::Flag => self.count > 0,
            Dedupe::Bits {
                positions,
                strides,
                bits,
                overflow,
            } => match bit_of(positions, strides, tuple) {
                Some(bit) => bits[bit / 64] & (1 << (bit % 64)) != 0,
                None => self.find_in(overflow, tuple),
            },
            Dedupe::Hash(table) => self.find_in(table, tuple),
        }
    }

    fn find_in(&self, table: &HashTable<u32>, tuple: &[SymbolId]) -> bool {
        let hash = hash_values(tuple.iter().copied());
        table
            .find(hash, |&row| self.row(row as usize) == tuple)
            .is_some()
    }

    /// Adds a tuple; true if it was new.
    pub fn insert(&mut self, tuple: &[SymbolId]) -> bool {
        debug_assert_eq!(tuple.len(), self.arity);
        let row = self.count as u32;
        let arity = self.arity;
        let new = match &mut self.dedupe {
            Dedupe::Flag => self.count == 0,
            Dedupe::Bits {
                positions,
                strides,
                bits,
                overflow,
            } => match bit_of(positions, strides, tuple) {
                Some(bit) => {
                    let word = &mut bits[bit / 64];
                    let mask = 1 << (bit % 64);
                    let new = *word & mask == 0;
                    *word |= mask;
                    new
                }
                None => insert_row(overflow, &self.rows, arity, tuple, row),
            },
            Dedupe::Hash(table) => insert_row(table, &self.rows, arity, tuple, row),
        };
        if !new {
            return false;
        }
        self.rows.extend_from_slice(tuple);
        self.count += 1;
        let rows = &self.rows;
        for index in &mut self.indexes {
            let columns = &index.columns;
            let key_hash = hash_values(columns.iter().map(|&c| tuple[c]));
            let project_eq = |r: u32| {
                let stored = &rows[r as usize * arity..(r as usize + 1) * arity];
                columns.iter().all(|&c| stored[c] == tuple[c])
            };
            match index.heads.find_mut(key_hash, |&r| project_eq(r)) {
                Some(head) => {
                    index.next.push(*head);
                    *head = row;
                }
                None => {
                    index.next.push(NONE);
                    index.heads.insert_unique(key_hash, row, |&r| {
                        let stored = &rows[r as usize * arity..(r as usize + 1) * arity];
                        hash_values(columns.iter().map(|&c| stored[c]))
                    });
                }
            }
        }
        true
    }

    /// The first row whose columns of index `i` hold `key` (in the index's column
    /// order), or `NONE`.
    fn first(&self, i: usize, key: &[SymbolId]) -> u32 {
        let index = &self.indexes[i];
        let hash = hash_values(key.iter().copied());
        index
            .heads
            .find(hash, |&r| {
                let stored = self.row(r as usize);
                index.columns.iter().zip(key).all(|(&c, &k)| stored[c] == k)
            })
            .copied()
            .unwrap_or(NONE)
    }

    fn index_of(&self, columns: &[usize]) -> Option<usize> {
        self.indexes.iter().position(|i| i.columns == columns)
    }
}

/// The memo tables of one demand relation in one mode.
#[derive(Clone, Debug, Default)]
struct Memo {
    by_key: HashTable<u32>,
    keys: Vec<Vec<SymbolId>>,
    answers: Vec<Store>,
}

impl Memo {
    fn clear(&mut self) {
        self.by_key.clear();
        self.keys.clear();
        self.answers.clear();
    }
}

/// A recursive demand layer being evaluated: its tables, in creation order.
#[derive(Clone, Debug)]
struct Fixpoint {
    layer: usize,
    tables: Vec<(usize, usize, usize)>,
}

/// Where accepted tuples go.
#[derive(Clone, Copy, Debug)]
enum Sink {
    /// Buffered, then added to the head relation's store when the rule is done.
    Layer,
    /// Added to a memo table: relation, mode, table.
    Memo(usize, usize, usize),
}

/// The state of an evaluation: every store and memo table.
#[derive(Clone, Debug)]
pub struct Engine<'a> {
    ir: &'a Ir,
    plan: &'a Plan,
    stores: Vec<Store>,
    memos: Vec<Vec<Memo>>,
    fixpoints: Vec<Fixpoint>,
    /// Per relation, the rows its last semi-naive round added.
    deltas: Vec<(usize, usize)>,
    /// Per relation, the indexes the join backend updates per new row (none where it
    /// keeps bits only): counted as work.
    index_upkeep: Vec<usize>,
    computed: Vec<bool>,
    pending: Vec<(RelationId, SymbolId)>,
    pending_values: Vec<SymbolId>,
    grew: bool,
    scratch: Vec<SymbolId>,
    binding_pool: Vec<Vec<SymbolId>>,
    /// The most tuples a store may hold (compile-time evaluation), and whether an
    /// insertion was refused for it.
    limit: usize,
    over_limit: bool,
    /// The most tree nodes a run may visit (compile-time evaluation), and how many it
    /// visited; past it, `over_limit` is set too.
    work_limit: usize,
    work: usize,
    /// The most values (of tuples and memo keys) a run may store, and how many it
    /// stored: wide tuples cost memory that the nodes visited do not count.
    value_limit: usize,
    stored: usize,
}

impl<'a> Engine<'a> {
    /// Stores for every relation, static tables loaded.
    pub fn new(ir: &'a Ir, plan: &'a Plan) -> Self {
        let mut stores = Vec::with_capacity(ir.relations.len());
        let mut memos = Vec::with_capacity(ir.relations.len());
        for (r, relation_plan) in plan.relations.iter().enumerate() {
            let id = RelationId(r as u32);
            let mut store = Store::new(ir, id, &relation_plan.storage, &relation_plan.indexes);
            if let Evaluation::Static(tuples) = &relation_plan.evaluation {
                for tuple in tuples {
                    store.insert(tuple);
                }
            }
            stores.push(store);
            memos.push(match &relation_plan.evaluation {
                Evaluation::Demand(modes) => vec![Memo::default(); modes.len()],
                _ => Vec::new(),
            });
        }
        let computed = plan
            .layers
            .iter()
            .map(|l| matches!(l.evaluation, LayerEvaluation::Static))
            .collect();
        Engine {
            ir,
            plan,
            stores,
            memos,
            fixpoints: Vec::new(),
            deltas: vec![(0, 0); ir.relations.len()],
            index_upkeep: plan
                .relations
                .iter()
                .zip(&ir.relations)
                .map(|(rp, relation)| {
                    let rows = match &rp.storage {
                        Storage::Hashed => true,
                        Storage::Bitset { radices } => {
                            relation.keyword.is_some()
                                || crate::plan::keeps_rows(radices, &rp.indexes)
                        }
                        Storage::Flag | Storage::Memo => false,
                    };
                    if rows { rp.indexes.len() } else { 0 }
                })
                .collect(),
            computed,
            pending: Vec::new(),
            pending_values: Vec::new(),
            grew: false,
            scratch: Vec::new(),
            binding_pool: Vec::new(),
            limit: usize::MAX,
            over_limit: false,
            work_limit: usize::MAX,
            work: 0,
            value_limit: usize::MAX,
            stored: 0,
        }
    }

    /// Stops evaluating after `limit` tree nodes visited (see [`Engine::over_limit`]).
    pub fn set_work_limit(&mut self, limit: usize) {
        self.work_limit = limit;
    }

    /// Stops evaluating once `limit` values (of tuples and memo keys) are stored in all
    /// (see [`Engine::over_limit`]).
    pub fn set_value_limit(&mut self, limit: usize) {
        self.value_limit = limit;
    }

    /// The tree nodes visited so far (the work [`Engine::set_work_limit`] bounds).
    pub fn work(&self) -> usize {
        self.work
    }

    /// Refuses to grow any store past `limit` tuples (see [`Engine::over_limit`]).
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// Whether a store reached the limit, or the work its limit, so that results are
    /// incomplete.
    pub fn over_limit(&self) -> bool {
        self.over_limit
    }

    /// Whether `relation` is materialised (not static, not an input) and its layer
    /// computed for the current input.
    pub fn is_computed_materialised(&self, relation: RelationId) -> bool {
        let l = self.ir.layer_of[relation.0 as usize];
        self.computed[l]
            && matches!(
                self.plan.relations[relation.0 as usize].evaluation,
                Evaluation::Materialised
            )
    }

    /// The store of a relation.
    pub fn store(&self, relation: RelationId) -> &Store {
        &self.stores[relation.0 as usize]
    }

    /// The tuples of a materialised relation, sorted.
    pub fn tuples(&self, relation: RelationId) -> Vec<Vec<SymbolId>> {
        let store = self.store(relation);
        let mut tuples: Vec<Vec<SymbolId>> =
            (0..store.len()).map(|i| store.row(i).to_vec()).collect();
        tuples.sort_unstable();
        tuples
    }

    /// Forgets everything that depends on the given phase (`State` forgets `Move` too)
    /// and replaces the tuples of the input relation `input` (`true` or `does`).
    pub fn set_input<'t>(
        &mut self,
        phase: Phase,
        input: Option<RelationId>,
        tuples: impl IntoIterator<Item = &'t [SymbolId]>,
    ) {
        for (l, layer) in self.ir.layers.iter().enumerate() {
            let forget = match phase {
                Phase::Static => false,
                Phase::State => layer.phase != Phase::Static,
                Phase::Move => layer.phase == Phase::Move,
            };
            if !forget {
                continue;
            }
            self.computed[l] = false;
            for &relation in &layer.relations {
                let r = relation.0 as usize;
                if Some(relation) != input
                    && self.plan.layers[l].evaluation == LayerEvaluation::Input
                {
                    continue;
                }
                self.stores[r].clear();
                for memo in &mut self.memos[r] {
                    memo.clear();
                }
            }
        }
        if let Some(input) = input {
            let store = &mut self.stores[input.0 as usize];
            store.clear();
            for tuple in tuples {
                store.insert(tuple);
            }
            self.computed[self.ir.layer_of[input.0 as usize]] = true;
        }
    }

    /// Computes the materialised layers among `layers` (in evaluation order) not yet
    /// computed.
    pub fn ensure(&mut self, layers: &[usize]) {
        for &l in layers {
            if !self.computed[l] {
                self.evaluate_layer(l);
            }
        }
    }

    /// Evaluates a materialised layer's tree.
    pub fn evaluate_layer(&mut self, l: usize) {
        self.computed[l] = true;
        let plan = self.plan;
        let Some(tree) = &plan.layers[l].tree else {
            return;
        };
        self.run(tree, &mut Vec::new(), Sink::Layer, &[]);
    }

    /// Semi-naive evaluation (see [`Node::SemiNaive`]).
    fn semi_naive(
        &mut self,
        initial: &'a Node,
        rounds: &'a Node,
        relations: &[RelationId],
        bindings: &mut Vec<SymbolId>,
    ) {
        self.run(initial, bindings, Sink::Layer, &[]);
        let mut marks = vec![0; relations.len()];
        loop {
            let mut added = false;
            for (mark, &relation) in marks.iter_mut().zip(relations) {
                let r = relation.0 as usize;
                let count = self.stores[r].len();
                self.deltas[r] = (*mark, count);
                added |= count > *mark;
                *mark = count;
            }
            if !added || self.over_limit {
                break;
            }
            self.run(rounds, bindings, Sink::Layer, &[]);
        }
    }

    fn flush(&mut self) {
        let mut start = 0;
        let pending = std::mem::take(&mut self.pending);
        let values = std::mem::take(&mut self.pending_values);
        for &(relation, _) in &pending {
            let arity = self.stores[relation.0 as usize].arity;
            let tuple = &values[start..start + arity];
            start += arity;
            if self.stores[relation.0 as usize].len() >= self.limit {
                self.over_limit = true;
                continue;
            }
            let new = self.stores[relation.0 as usize].insert(tuple);
            // The generated code stores each new tuple of a materialised relation (a
            // bit set and listed for its readers, [`MATERIALISED_TUPLE_WORK`]) and keeps
            // an index per lookup pattern up to date where it keeps rows: measured
            // planning counts that work too.
            if new {
                self.work += MATERIALISED_TUPLE_WORK + self.index_upkeep[relation.0 as usize];
                self.store_values(arity);
            }
            self.grew |= new;
        }
        self.pending = pending;
        self.pending.clear();
        self.pending_values = values;
        self.pending_values.clear();
    }

    /// Counts `values` stored; past the value limit, sets `over_limit`.
    fn store_values(&mut self, values: usize) {
        self.stored += values;
        if self.stored > self.value_limit {
            self.over_limit = true;
        }
    }

    fn value(arg: Arg, bindings: &[SymbolId]) -> SymbolId {
        match arg {
            Arg::Var(v) => bindings[v.0 as usize],
            Arg::Sym(s) => s,
        }
    }

    fn slot_value(slot: Slot, bindings: &[SymbolId]) -> SymbolId {
        match slot {
            Slot::Sym(s) => s,
            Slot::Bound(v) | Slot::Bind(v) | Slot::Same(v) => bindings[v.0 as usize],
            Slot::Free => NIL,
        }
    }

    /// Matches a tuple against slots, binding `Bind` variables.
    fn matches(tuple: &[SymbolId], slots: &[Slot], bindings: &mut [SymbolId]) -> bool {
        for (value, slot) in tuple.iter().zip(slots) {
            match *slot {
                Slot::Sym(s) => {
                    if *value != s {
                        return false;
                    }
                }
                Slot::Bound(v) | Slot::Same(v) => {
                    if *value != bindings[v.0 as usize] {
                        return false;
                    }
                }
                Slot::Bind(v) => bindings[v.0 as usize] = *value,
                Slot::Free => {}
            }
        }
        true
    }

    fn run(
        &mut self,
        node: &'a Node,
        bindings: &mut Vec<SymbolId>,
        sink: Sink,
        input: &[SymbolId],
    ) {
        if self.over_limit {
            return;
        }
        self.work += 1;
        if self.work > self.work_limit {
            self.over_limit = true;
            return;
        }
        match node {
            Node::Sequence(children) => {
                for child in children {
                    self.run(child, bindings, sink, input);
                }
            }
            Node::Repeat(body) => loop {
                self.grew = false;
                self.run(body, bindings, sink, input);
                if !self.grew || self.over_limit {
                    break;
                }
            },
            Node::SemiNaive {
                initial,
                rounds,
                relations,
            } => self.semi_naive(initial, rounds, relations, bindings),
            Node::Rule { num_vars, body, .. } => {
                let mut own = self.binding_pool.pop().unwrap_or_default();
                own.clear();
                own.resize(*num_vars, NIL);
                self.run(body, &mut own, sink, input);
                self.binding_pool.push(own);
                if matches!(sink, Sink::Layer) {
                    self.flush();
                }
            }
            Node::Query { query, then } => self.query(query, then, bindings, sink, input),
            Node::If { test, then } => {
                let holds = match test {
                    Test::Distinct(pairs) => pairs
                        .iter()
                        .any(|&(a, b)| Self::value(a, bindings) != Self::value(b, bindings)),
                    Test::Equal(pairs) => pairs
                        .iter()
                        .all(|&(a, b)| Self::value(a, bindings) == Self::value(b, bindings)),
                    Test::Absent(query) => !self.exists(query, bindings),
                };
                if holds {
                    self.run(then, bindings, sink, input);
                }
            }
            Node::Accept { relation, args } => match sink {
                Sink::Layer => {
                    if self.pending.len() >= self.limit {
                        self.over_limit = true;
                        return;
                    }
                    self.pending.push((*relation, NIL));
                    for &arg in args {
                        self.pending_values.push(Self::value(arg, bindings));
                    }
                }
                Sink::Memo(r, mode, t) => {
                    let mut tuple = std::mem::take(&mut self.scratch);
                    tuple.clear();
                    tuple.extend(args.iter().map(|&a| Self::value(a, bindings)));
                    if self.memos[r][mode].answers[t].insert(&tuple) {
                        self.store_values(tuple.len());
                        if self.ir.layers[self.ir.layer_of[r]].cyclic {
                            self.work += MEMO_ANSWER_WORK;
                        }
                    }
                    self.scratch = tuple;
                }
            },
        }
    }

    /// Whether some tuple matches a query whose columns are all known.
    fn exists(&mut self, query: &'a Query, bindings: &[SymbolId]) -> bool {
        let r = query.relation.0 as usize;
        match &query.access {
            Access::Flag => !self.stores[r].is_empty(),
            Access::Call(mode) => {
                let t = self.call_with(r, *mode, &query.slots, bindings);
                !self.memos[r][*mode].answers[t].is_empty()
            }
            _ => {
                let mut tuple = std::mem::take(&mut self.scratch);
                tuple.clear();
                tuple.extend(query.slots.iter().map(|&s| Self::slot_value(s, bindings)));
                let found = self.stores[r].contains(&tuple);
                self.scratch = tuple;
                found
            }
        }
    }

    fn query(
        &mut self,
        query: &'a Query,
        then: &'a Node,
        bindings: &mut Vec<SymbolId>,
        sink: Sink,
        input: &[SymbolId],
    ) {
        let r = query.relation.0 as usize;
        let slots = &query.slots[..];
        match &query.access {
            Access::Flag => {
                if !self.stores[r].is_empty() {
                    self.run(then, bindings, sink, input);
                }
            }
            Access::Member => {
                if self.exists(query, bindings) {
                    self.run(then, bindings, sink, input);
                }
            }
            Access::Delta => {
                let (lo, hi) = self.deltas[r];
                for i in lo..hi {
                    if Self::matches(self.stores[r].row(i), slots, bindings) {
                        self.run(then, bindings, sink, input);
                    }
                }
            }
            Access::Scan => {
                let n = self.stores[r].len();
                for i in 0..n {
                    if Self::matches(self.stores[r].row(i), slots, bindings) {
                        self.run(then, bindings, sink, input);
                    }
                }
            }
            Access::Index(columns) => {
                let mut key = std::mem::take(&mut self.scratch);
                key.clear();
                key.extend(
                    columns
                        .iter()
                        .map(|&c| Self::slot_value(slots[c], bindings)),
                );
                let store = &self.stores[r];
                let Some(index) = store.index_of(columns) else {
                    // The plan registers every index its trees read; should one be
                    // missing, a scan gives the same answers (never fewer).
                    debug_assert!(false, "no index {columns:?} on relation {r}");
                    self.scratch = key;
                    for i in 0..self.stores[r].len() {
                        if Self::matches(self.stores[r].row(i), slots, bindings) {
                            self.run(then, bindings, sink, input);
                        }
                    }
                    return;
                };
                let mut row = store.first(index, &key);
                self.scratch = key;
                while row != NONE {
                    if Self::matches(self.stores[r].row(row as usize), slots, bindings) {
                        self.run(then, bindings, sink, input);
                    }
                    row = self.stores[r].indexes[index].next[row as usize];
                }
            }
            Access::Call(mode) => {
                let t = self.call_with(r, *mode, slots, bindings);
                let mut i = 0;
                while i < self.memos[r][*mode].answers[t].len() {
                    if Self::matches(self.memos[r][*mode].answers[t].row(i), slots, bindings) {
                        self.run(then, bindings, sink, input);
                    }
                    i += 1;
                }
            }
            Access::Input => {
                if Self::matches(input, slots, bindings) {
                    self.run(then, bindings, sink, input);
                }
            }
        }
    }

    /// The memo table of a call in `mode` with the bound values of `slots`.
    fn call_with(&mut self, r: usize, mode: usize, slots: &[Slot], bindings: &[SymbolId]) -> usize {
        let plan = self.plan;
        let Evaluation::Demand(modes) = &plan.relations[r].evaluation else {
            return 0;
        };
        let bound = &modes[mode].bound;
        let hash = hash_values(bound.iter().map(|&c| Self::slot_value(slots[c], bindings)));
        let memo = &self.memos[r][mode];
        if let Some(&t) = memo.by_key.find(hash, |&t| {
            memo.keys[t as usize]
                .iter()
                .zip(bound)
                .all(|(&k, &c)| k == Self::slot_value(slots[c], bindings))
        }) {
            return t as usize;
        }
        let key: Vec<SymbolId> = bound
            .iter()
            .map(|&c| Self::slot_value(slots[c], bindings))
            .collect();
        let arity = self.stores[r].arity;
        self.store_values(key.len() + arity);
        let memo = &mut self.memos[r][mode];
        let t = memo.keys.len();
        memo.keys.push(key);
        memo.answers.push(Store::plain(arity));
        let keys = &memo.keys;
        memo.by_key.insert_unique(hash, t as u32, |&t| {
            hash_values(keys[t as usize].iter().copied())
        });
        let layer = self.ir.layer_of[r];
        if !self.ir.layers[layer].cyclic {
            self.evaluate_call(r, mode, t);
            return t;
        }
        self.work += MEMO_TABLE_WORK;
        if let Some(fixpoint) = self.fixpoints.iter_mut().find(|f| f.layer == layer) {
            fixpoint.tables.push((r, mode, t));
            self.evaluate_call(r, mode, t);
        } else {
            self.fixpoints.push(Fixpoint {
                layer,
                tables: vec![(r, mode, t)],
            });
            let depth = self.fixpoints.len() - 1;
            loop {
                let before = self.fixpoints[depth].tables.len();
                let mut grew = false;
                let mut i = 0;
                while let Some(&(r, mode, t)) = self.fixpoints[depth].tables.get(i) {
                    grew |= self.evaluate_call(r, mode, t);
                    i += 1;
                }
                if !grew && self.fixpoints[depth].tables.len() == before {
                    break;
                }
            }
            self.fixpoints.truncate(depth);
        }
        t
    }

    /// Runs a demand mode's rules for one table; true if an answer was added.
    fn evaluate_call(&mut self, r: usize, mode: usize, t: usize) -> bool {
        let plan = self.plan;
        let Evaluation::Demand(modes) = &plan.relations[r].evaluation else {
            return false;
        };
        let mut input = vec![NIL; self.stores[r].arity];
        for (&c, &v) in modes[mode].bound.iter().zip(&self.memos[r][mode].keys[t]) {
            input[c] = v;
        }
        let before = self.memos[r][mode].answers[t].len();
        self.run(
            &modes[mode].tree,
            &mut Vec::new(),
            Sink::Memo(r, mode, t),
            &input,
        );
        self.memos[r][mode].answers[t].len() > before
    }
}

//! The evaluation plan: how every relation of an analysed game is computed and stored,
//! as plain data that the plan executor ([`crate::exec`]) runs directly and that code
//! generation turns into loops. Every decision — evaluation mode, data structure, join
//! order, index — is made by the planner ([`crate::planner`]) and recorded here with its
//! reason, so that backends make none of their own.
//!
//! A rule becomes a chain of *filter tree* nodes ([`Node`]): [`Node::Query`] enumerates
//! the tuples of a relation that agree with what is bound and binds the rest,
//! [`Node::If`] tests a negation, `distinct` or equality once its variables are bound,
//! [`Node::Accept`] adds the head tuple. A layer's rules form a [`Node::Sequence`]; a
//! recursive layer is evaluated semi-naively ([`Node::SemiNaive`]: after a first
//! round of the exit rules, each round joins only the previous round's new tuples), or,
//! when one of its relations has no columns or is a keyword, wraps the sequence in
//! [`Node::Repeat`], evaluated until a round adds nothing.
//!
//! Relations are evaluated in one of four ways ([`Evaluation`]): `true`/`does` are the
//! reasoner's input; static relations are computed by the planner, at compile time, into sorted
//! tables; the others are *materialised* bottom-up, layer by layer, once per state (or
//! per joint move when they depend on `does`) — or, when their tuple space is large and
//! every query binds some of their columns, evaluated *on demand*: a call with bound
//! columns runs the relation's rules planned for exactly those bound columns
//! ([`DemandMode`]) and its answers are memoised per state by the bound values.

use std::collections::BTreeMap;

use crate::ir::{Arg, Ir, Keyword, RelationId, SymbolId, VarId};

/// The most combinations of positions of unknown columns that a lookup of `true`
/// enumerates (one bit test each) when they lie before a known column in the state's
/// order (the join backend's `Emitter::gap_enumerated`).
pub const MAX_GAP_COMBINATIONS: usize = 16;

/// The order of the state's columns under each function symbol of `true`, most
/// significant first, from the lookups of `true` in `layer_trees` and `mode_trees`
/// that leave some column of the functor unknown: the columns known most often (a
/// constant or a bound variable) outermost, the ones lookups bind innermost, ties in
/// the columns' order. Lookups then read the narrow range their known columns fix,
/// and the column that varies inside a join is the one a word holds (`(cell ?s
/// ?colour ?piece)`, read with the colour and the piece known and the square bound,
/// is a 64-bit word of squares per colour and piece: a bit board). Only functors
/// whose order differs from the columns' are listed.
pub fn state_column_orders(
    ir: &Ir,
    layer_trees: &[Option<Node>],
    mode_trees: &[Vec<Option<Node>>],
) -> BTreeMap<SymbolId, Vec<usize>> {
    let Some(true_rel) = ir.keyword(Keyword::True) else {
        return BTreeMap::new();
    };
    let relation = ir.relation(true_rel);
    let Some(top) = relation.columns.iter().position(|c| c.path == [0]) else {
        return BTreeMap::new();
    };
    // Per functor, per column: the number of lookups knowing it.
    let mut counts: BTreeMap<SymbolId, BTreeMap<usize, usize>> = BTreeMap::new();
    let mut look = |query: &Query, negated: bool| {
        if negated || query.relation != true_rel {
            return;
        }
        let Some(Slot::Sym(f)) = query.slots.get(top).copied() else {
            return;
        };
        let under = relation.columns_under(0, f);
        let known = |c: usize| matches!(query.slots[c], Slot::Sym(_) | Slot::Bound(_));
        if under.iter().all(|&c| known(c)) {
            return;
        }
        let per_column = counts.entry(f).or_default();
        for c in under {
            *per_column.entry(c).or_default() += usize::from(known(c));
        }
    };
    let trees = layer_trees
        .iter()
        .chain(mode_trees.iter().flatten())
        .flatten();
    for tree in trees {
        tree.for_each_query_negated(&mut look);
    }
    counts
        .into_iter()
        .filter_map(|(f, per_column)| {
            let columns = relation.columns_under(0, f);
            let mut order = columns.clone();
            // Every lookup counts each of the functor's columns: descending times
            // known (stable: ties keep the columns' order).
            order.sort_by_key(|c| std::cmp::Reverse(per_column.get(c).copied().unwrap_or(0)));
            (order != columns).then_some((f, order))
        })
        .collect()
}

/// Sorted column indices of a relation (the columns a lookup binds).
pub type Columns = Vec<usize>;

/// The plan of a game: one entry per IR relation and per IR layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Per relation (index = [`RelationId`]).
    pub relations: Vec<RelationPlan>,
    /// Per layer (index = the IR layer's index).
    pub layers: Vec<LayerPlan>,
    /// The state layouts decided per function symbol of `true` whose dense block is
    /// large (see [`crate::planner::fluent_layouts`]); any other functor's block is dense.
    pub fluents: Vec<FluentLayout>,
    /// The state's column order per function symbol of `true` whose lookups decide
    /// one ([`state_column_orders`]), most significant first; any other functor's
    /// columns are numbered in their order.
    pub state_orders: BTreeMap<SymbolId, Vec<usize>>,
    /// What measured planning ([`crate::planner::tune`]) tried, when it ran.
    pub tuning: Option<Tuning>,
}

/// How the state numbers the fluents of one function symbol of `true`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FluentLayout {
    /// The function symbol (the fluents' root).
    pub functor: SymbolId,
    /// The number of its fluents in the product of the column domains (saturating).
    pub dense: usize,
    /// When the fluents are *listed*: every fluent that can occur, as sorted tuples of
    /// `true` (the fluents of the relaxed game), each given one state bit in this
    /// order. `None`: one bit per tuple of the product.
    pub listed: Option<Vec<Vec<SymbolId>>>,
    /// Why.
    pub reason: String,
}

/// How one relation is computed and stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelationPlan {
    /// How its tuples are computed.
    pub evaluation: Evaluation,
    /// The data structure holding its tuples.
    pub storage: Storage,
    /// The bound-column sets of the lookups made into it ([`Access::Index`]), sorted;
    /// each is kept as an index.
    pub indexes: Vec<Columns>,
    /// Why this evaluation and storage were chosen.
    pub reason: String,
}

/// How a relation's tuples are computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// `true` or `does`: set by the reasoner from the state or the joint move.
    Input,
    /// Computed at compile time: the tuples, sorted.
    Static(Vec<Vec<SymbolId>>),
    /// Computed bottom-up by its layer's tree, per state or per joint move.
    Materialised,
    /// Computed per call from the bound columns, memoised per state; one mode per set
    /// of bound columns that some query uses.
    Demand(Vec<DemandMode>),
}

/// The rules of a demand-evaluated relation planned for one set of bound columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemandMode {
    /// The columns a call binds.
    pub bound: Columns,
    /// One [`Node::Rule`] per rule of the relation, each starting with an
    /// [`Access::Input`] query of the call's bound values.
    pub tree: Node,
}

/// The data structure holding a relation's tuples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A relation without columns: one flag.
    Flag,
    /// One bit per tuple of the product of the column domains (mixed radix: the
    /// position of each column's symbol in its domain); tuples also kept in a list for
    /// enumeration.
    Bitset {
        /// The domain size of each column; the product is the bitset's length.
        radices: Vec<usize>,
    },
    /// A hash set of tuples with a tuple list, plus a hash index per lookup pattern.
    Hashed,
    /// Demand evaluation: per call, a memo table of answers keyed by the bound values.
    Memo,
}

/// How one layer is evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerPlan {
    /// The mode.
    pub evaluation: LayerEvaluation,
    /// The layer's tree, for materialised and static layers.
    pub tree: Option<Node>,
}

/// How one layer is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerEvaluation {
    /// `true` or `does`.
    Input,
    /// At compile time (its relations' tables are in the plan).
    Static,
    /// Bottom-up, once (acyclic).
    Once,
    /// Bottom-up, repeated until nothing new is derived (recursive).
    Fixpoint,
    /// On demand: its relations are computed per call (see [`DemandMode`]); recursive
    /// calls are tabled, the first call into the layer repeating until nothing new.
    Demand,
}

/// A filter tree node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// Runs each child in turn.
    Sequence(Vec<Node>),
    /// Runs the child until a round adds no tuple to the layer.
    Repeat(Box<Node>),
    /// Semi-naive evaluation of a recursive layer: `initial` (the exit rules: those with
    /// no positive literal on the layer's relations) once; then,
    /// while the last round added tuples to `relations`, `rounds` — each rule once
    /// per positive literal on the layer's relations, that literal reading only the
    /// tuples the previous round added ([`Access::Delta`]: the rows from where the
    /// previous delta ended to the count when this round began), first.
    SemiNaive {
        /// The layer's exit rules.
        initial: Box<Node>,
        /// The delta variants.
        rounds: Box<Node>,
        /// The layer's relations, whose rows are the deltas.
        relations: Vec<RelationId>,
    },
    /// One rule: fresh bindings for its variables, then the body.
    Rule {
        /// The rule's index in [`crate::ir::Ir::rules`].
        rule: usize,
        /// Number of flat variables.
        num_vars: usize,
        /// The body's first node.
        body: Box<Node>,
    },
    /// For each tuple matching the query, runs the child.
    Query {
        /// What to look up and how.
        query: Query,
        /// What runs for each match.
        then: Box<Node>,
    },
    /// Runs the child if the test holds.
    If {
        /// The test.
        test: Test,
        /// What runs when it holds.
        then: Box<Node>,
    },
    /// Adds the head tuple (one argument per column) to the relation.
    Accept {
        /// The head relation.
        relation: RelationId,
        /// One argument per column; every variable is bound here.
        args: Vec<Arg>,
    },
}

impl Node {
    /// Calls `f` on every join of the tree ([`Node::Query`]) with what runs for each
    /// match.
    pub fn for_each_join<'n>(&'n self, f: &mut impl FnMut(&'n Query, &'n Node)) {
        match self {
            Node::Sequence(children) => {
                for child in children {
                    child.for_each_join(f);
                }
            }
            Node::Repeat(body) | Node::Rule { body, .. } => body.for_each_join(f),
            Node::SemiNaive {
                initial, rounds, ..
            } => {
                initial.for_each_join(f);
                rounds.for_each_join(f);
            }
            Node::Query { query, then } => {
                f(query, then);
                then.for_each_join(f);
            }
            Node::If { then, .. } => then.for_each_join(f),
            Node::Accept { .. } => {}
        }
    }

    /// Calls `f` on every query of the tree, those of negated tests included.
    pub fn for_each_query(&self, f: &mut impl FnMut(&Query)) {
        self.for_each_query_negated(&mut |query, _| f(query));
    }

    /// Calls `f` on every query of the tree with whether it is negated (the query of a
    /// [`Test::Absent`]).
    pub fn for_each_query_negated<'n>(&'n self, f: &mut impl FnMut(&'n Query, bool)) {
        match self {
            Node::Sequence(children) => {
                for child in children {
                    child.for_each_query_negated(f);
                }
            }
            Node::Repeat(body) | Node::Rule { body, .. } => body.for_each_query_negated(f),
            Node::SemiNaive {
                initial, rounds, ..
            } => {
                initial.for_each_query_negated(f);
                rounds.for_each_query_negated(f);
            }
            Node::Query { query, then } => {
                f(query, false);
                then.for_each_query_negated(f);
            }
            Node::If { test, then } => {
                if let Test::Absent(query) = test {
                    f(query, true);
                }
                then.for_each_query_negated(f);
            }
            Node::Accept { .. } => {}
        }
    }
}

/// The most bits a lookup into a bitset relation held as bits only may scan: past it
/// the join backend keeps the relation's rows with hash indexes instead.
pub const MAX_LOOKUP_SCAN: usize = 256;

/// Whether a lookup binding `columns` (sorted) of a bitset relation with `radices`
/// scans more than [`MAX_LOOKUP_SCAN`] bits: the bits of the range its known leading
/// columns fix, when it binds a column after an unknown one.
pub fn wide_lookup(radices: &[usize], columns: &[usize]) -> bool {
    let prefix = (0..radices.len())
        .take_while(|c| columns.contains(c))
        .count();
    prefix < columns.len() && radices[prefix..].iter().product::<usize>() > MAX_LOOKUP_SCAN
}

/// The most copies of a bits-only relation's bits in other column orders: a wide
/// lookup (see [`wide_lookup`]) reads a copy whose leading columns are the ones it
/// binds, so it scans only the range they fix. A relation with more wide lookups keeps
/// its rows with hash indexes instead.
pub const MAX_BIT_COPIES: usize = 2;

/// The wide lookups of a bitset relation with `radices` among `indexes`, each served
/// by a copy of its bits with the lookup's columns first (see [`MAX_BIT_COPIES`]).
pub fn copied_lookups<'c>(radices: &[usize], indexes: &'c [Columns]) -> Vec<&'c Columns> {
    indexes
        .iter()
        .filter(|columns| wide_lookup(radices, columns))
        .collect()
}

/// Whether a bitset relation with `radices` and lookups `indexes` keeps its rows with
/// hash indexes (more wide lookups than [`MAX_BIT_COPIES`]) rather than bits only.
pub fn keeps_rows(radices: &[usize], indexes: &[Columns]) -> bool {
    copied_lookups(radices, indexes).len() > MAX_BIT_COPIES
}

/// The column order of the copy serving a lookup binding `columns` (sorted) of a
/// relation with `arity` columns: those columns first, then the others.
pub fn copy_order(arity: usize, columns: &[usize]) -> Vec<usize> {
    let mut order = columns.to_vec();
    order.extend((0..arity).filter(|c| !columns.contains(c)));
    order
}

/// A lookup into a relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// The relation.
    pub relation: RelationId,
    /// One slot per column.
    pub slots: Vec<Slot>,
    /// The access path.
    pub access: Access,
}

impl Query {
    /// The columns whose value is known before the lookup.
    pub fn bound_columns(&self) -> Columns {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Slot::Sym(_) | Slot::Bound(_)))
            .map(|(i, _)| i)
            .collect()
    }
}

/// What a query does with one column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Must hold this symbol.
    Sym(SymbolId),
    /// Must equal this already bound variable.
    Bound(VarId),
    /// Binds this variable.
    Bind(VarId),
    /// Must equal this variable, bound by an earlier column of the same tuple.
    Same(VarId),
    /// Not looked at (a demand call's unbound column, see [`Access::Input`]).
    Free,
}

/// How a query finds its tuples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// A relation without columns: whether its flag is set.
    Flag,
    /// Every column known: one membership test.
    Member,
    /// Some columns known: the index on those columns.
    Index(Columns),
    /// No column known: every tuple.
    Scan,
    /// A call to a demand relation in the given mode (index into its modes).
    Call(usize),
    /// The bound values of the current demand call (first node of a demand rule).
    Input,
    /// The tuples the previous round of a [`Node::SemiNaive`] added (no column
    /// known; first node of a delta variant).
    Delta,
}

/// A test on bound variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Test {
    /// No tuple matches the query (every slot is a symbol or bound variable).
    Absent(Query),
    /// Some pair differs.
    Distinct(Vec<(Arg, Arg)>),
    /// Every pair is equal.
    Equal(Vec<(Arg, Arg)>),
}

/// What measured planning found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Sample states measured.
    pub samples: usize,
    /// The threshold plan's work on them.
    pub threshold_work: usize,
    /// The work of the plan whose join orders use the relations' sizes on the samples,
    /// when it was no more than the threshold plan's (and a second start).
    pub sized_work: Option<usize>,
    /// Whether the kept plan comes from the search started at the sized plan (else
    /// from the threshold plan); its trials are the ones recorded.
    pub from_sized: bool,
    /// Each trial, in the order made.
    pub trials: Vec<Trial>,
    /// The kept plan's work on them.
    pub best_work: usize,
}

impl Tuning {
    /// The kept plan's work per sample state (one playout step: terminal, legal moves,
    /// next state), rounded up; `None` without samples.
    pub fn work_per_sample(&self) -> Option<usize> {
        (self.samples > 0).then(|| self.best_work.div_ceil(self.samples))
    }
}

/// One trial of measured planning: layer `layer` materialised, or on demand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trial {
    /// The IR layer.
    pub layer: usize,
    /// Whether the trial put the layer on demand (otherwise it materialised it).
    pub on_demand: bool,
    /// The best work before the trial.
    pub before: usize,
    /// The work the trial had to stay within: `before × GAIN` (or `DEMAND_GAIN`, see
    /// [`crate::planner::tune`]),
    /// or less when another trial of the same round did better.
    pub limit: usize,
    /// The trial's work, `None` when it passed `limit` (or could not be planned or
    /// measured).
    pub work: Option<usize>,
    /// Whether the trial's plan was kept (see [`Trial::kept`]).
    pub kept: bool,
}

impl Trial {
    /// Whether the trial's plan was kept.
    pub fn kept(&self) -> bool {
        self.kept
    }
}

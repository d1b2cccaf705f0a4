//! Planning: join order, evaluation mode and data structure of every relation (the
//! threshold plan, which measured planning starts from).
//!
//! 1. Demand layers are decided from the last layer back: a non-entry layer is evaluated
//!    on demand when one of its relations has a tuple space above [`DEMAND_THRESHOLD`]
//!    and every query of its relations binds a column; its relations then get one
//!    [`DemandMode`] per set of bound columns used, planned with those columns bound.
//! 2. The other static layers are planned and evaluated here, by the plan executor's
//!    engine, into tables (a static demand layer reading only static tables too, when
//!    its real extension is small); a static relation with more than [`STATIC_LIMIT`]
//!    tuples is an error.
//! 3. Every other rule's body is ordered by least estimated work (`order.rs`): tests
//!    (negation, `distinct`, equality) as soon as their variables are bound, the
//!    positive literals in the order minimising the rows reaching each literal times its
//!    scan cost — exact by dynamic programming over subsets of up to 12 literals, greedy
//!    beyond. Matches are exact for static tables, one per role for `does`, and for
//!    `true` the domain product times the density of that functor's fluents (sampled by
//!    measured planning, else the initial state's), with a scan over the range the known
//!    leading columns fix; a call into a demand layer costs its evaluation.
//! 4. The state's column order per functor of `true` follows the lookups of `true` (see
//!    [`crate::plan::state_column_orders`]), and the trees are planned again with it.
//! 5. Storage: a flag without columns; a bitset when the product of the column domains
//!    is small (up to 2^18 bits for dynamic relations); otherwise a hash set with one
//!    index per lookup pattern.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{Code, Diagnostic};
use crate::exec::engine::Engine;
use crate::ir::{Arg, FlatAtom, FlatLiteral, Ir, Keyword, Phase, RelationId, SymbolId, VarId};
use crate::plan::{
    Access, Columns, DemandMode, Evaluation, LayerEvaluation, LayerPlan, Node, Plan, Query,
    RelationPlan, Slot, Storage, Test,
};

/// A layer whose largest relation has more possible tuples than this (product of the
/// column domains) is evaluated on demand, when every query of it binds a column.
pub const DEMAND_THRESHOLD: f64 = 4096.0;

/// A static layer whose largest relation has more possible tuples than this is
/// evaluated on demand (memoised for the reasoner's lifetime), when every query of it
/// binds a column.
pub const STATIC_DEMAND_THRESHOLD: f64 = 1_000_000.0;

/// The largest static relation computed at compile time.
pub const STATIC_LIMIT: usize = 2_000_000;

/// The most tuples a static relation put on demand for its domain product may have to
/// be computed at compile time all the same (see `Planner::evaluate_statics`).
pub const SMALL_STATIC_LIMIT: usize = 1 << 16;

/// The most steps (tree nodes visited) that evaluation may take.
pub const SMALL_STATIC_WORK: usize = 1 << 23;

/// The largest tuple space stored as a bitset (bits), per evaluation phase.
const BITSET_LIMIT_STATIC: f64 = (1u64 << 20) as f64;
const BITSET_LIMIT_DYNAMIC: f64 = (1u64 << 18) as f64;

/// The planner's thresholds and overrides; the defaults are the threshold plan
/// ([`plan`]), which measured planning ([`super::tuned`]) starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanOptions {
    /// A state-dependent layer goes on demand above this many possible tuples.
    pub demand_threshold: f64,
    /// A static layer goes on demand above this many possible tuples.
    pub static_demand_threshold: f64,
    /// Layers (IR layer indices) materialised whatever their size.
    pub materialise: BTreeSet<usize>,
    /// Layers (IR layer indices) on demand whatever their size, when every query of
    /// them binds a column.
    pub on_demand: BTreeSet<usize>,
    /// Per relation (index = [`RelationId`]), its mean size on sample states where
    /// measured (see [`super::tune()`]): join orders use it for derived relations instead
    /// of the product of their column domains. Empty: nothing measured.
    pub sampled: Vec<Option<SampledSize>>,
    /// Per function symbol of `true`'s argument, its mean number of fluents over the
    /// states of a sampling playout (see [`super::tune()`]): scans of the state use it
    /// for the state's density instead of the initial state's. Empty: not measured.
    pub state_counts: Vec<(SymbolId, f64)>,
}

/// The mean size of a materialised relation on sample states.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledSize {
    /// Mean number of tuples.
    pub rows: f64,
    /// Mean number of distinct values per column.
    pub distinct: Vec<f64>,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            demand_threshold: DEMAND_THRESHOLD,
            static_demand_threshold: STATIC_DEMAND_THRESHOLD,
            materialise: BTreeSet::new(),
            on_demand: BTreeSet::new(),
            sampled: Vec::new(),
            state_counts: Vec::new(),
        }
    }
}

/// Plans an analysed game.
pub fn plan(ir: &Ir) -> Result<Plan, Diagnostic> {
    plan_with(ir, &PlanOptions::default())
}

/// Plans an analysed game with other thresholds (tests use 0 to put every layer that
/// can be on demand on demand).
pub fn plan_with(ir: &Ir, options: &PlanOptions) -> Result<Plan, Diagnostic> {
    plan_seeded(ir, options, None).map(|(plan, _)| plan)
}

/// What planning computes at compile time whatever the state-dependent layers'
/// evaluation: the static tables and the fluent layouts. Measured planning plans a
/// game once per trial and reuses them ([`plan_seeded`]).
#[derive(Clone, Debug)]
pub struct Statics {
    tables: Vec<Option<Vec<Vec<SymbolId>>>>,
    stats: Vec<Option<TableStats>>,
    /// Per static layer, whether it was on demand before and after the compile-time
    /// evaluation (`None` for other layers).
    decided: Vec<Option<(bool, bool)>>,
    fluents: Vec<crate::plan::FluentLayout>,
}

/// [`plan_with`], reusing the static results of `seed` (an earlier plan of the same
/// game), and returning this plan's. With a seed, a plan that would decide a static
/// layer otherwise (and compute tables again) is an error: measured planning does not
/// try it.
pub fn plan_seeded(
    ir: &Ir,
    options: &PlanOptions,
    seed: Option<&Statics>,
) -> Result<(Plan, Statics), Diagnostic> {
    let mut planner = Planner::new(ir, options.clone());
    planner.decide()?;
    let decided = planner.evaluate_statics(seed)?;
    // The state's column order follows the trees' lookups of `true`; the trees are
    // then planned again with the ranges that order gives.
    let before_trees = planner.trees_snapshot();
    planner.build_trees()?;
    let orders = crate::plan::state_column_orders(ir, &planner.layer_trees, &planner.mode_trees);
    if !orders.is_empty() {
        planner.restore_trees(before_trees);
        planner.state_orders = orders;
        planner.build_trees()?;
    }
    let tables = planner.tables.clone();
    let stats = planner.stats.clone();
    let mut plan = planner.finish();
    plan.fluents = match seed {
        Some(seed) if seed.decided == decided => seed.fluents.clone(),
        _ => super::fluent_layouts(ir, &plan),
    };
    let statics = Statics {
        tables,
        stats,
        decided,
        fluents: plan.fluents.clone(),
    };
    Ok((plan, statics))
}

/// Exact statistics of a static table.
#[derive(Clone, Debug)]
pub(super) struct TableStats {
    pub(super) len: usize,
    /// Distinct values per column.
    pub(super) distinct: Vec<usize>,
}

/// The planner's tree state before [`Planner::build_trees`].
type TreesSnapshot = (
    Vec<BTreeMap<Columns, usize>>,
    Vec<Vec<Option<Node>>>,
    Vec<BTreeSet<Columns>>,
    Vec<Option<Node>>,
);

/// One step of an ordered body.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// A positive literal: its slots.
    Query(RelationId, Vec<Slot>),
    /// A negative literal (every slot a symbol or bound variable).
    Absent(RelationId, Vec<Slot>),
    /// `distinct`.
    Distinct(Vec<(Arg, Arg)>),
    /// Equality.
    Equal(Vec<(Arg, Arg)>),
}

/// A call whose answers are being estimated (a frame of the estimation's stack).
pub(super) struct AnswerFrame {
    pub(super) key: (RelationId, Columns),
    /// The answers assumed where the call is met again inside its own estimate.
    pub(super) assumed: f64,
    /// Whether it was met again.
    pub(super) reentered: bool,
    /// The lowest stack depth of a call met again while this one was estimated: an
    /// estimate that depends on an assumption of a call below it is memoised only
    /// provisionally ([`Answers::provisional`]).
    pub(super) lowest_reentry: usize,
    /// Renewed whenever the frame is pushed or its assumption changes: a provisional
    /// estimate made under it holds while it does.
    pub(super) epoch: u64,
}

/// An estimate that depends on the assumptions of calls still being estimated: the
/// answers, and the frames it depends on (from the lowest one met again to the one
/// that asked for it) by depth and epoch.
pub(super) struct Provisional {
    pub(super) answers: f64,
    pub(super) lowest: usize,
    pub(super) epochs: Vec<u64>,
}

/// The planner's memo and stack of answer estimates (see `Planner::call_answers` in `answers.rs`).
#[derive(Default)]
pub(super) struct Answers {
    pub(super) memo: RefCell<BTreeMap<(RelationId, Columns), f64>>,
    pub(super) stack: RefCell<Vec<AnswerFrame>>,
    /// Estimates inside a recursion, valid while the frames they depend on are
    /// unchanged: without them a recursive component's estimates are recomputed for
    /// every literal its bodies' orders weigh.
    pub(super) provisional: RefCell<BTreeMap<(RelationId, Columns), Provisional>>,
    pub(super) epochs: Cell<u64>,
    pub(super) spent: Cell<usize>,
}

impl Answers {
    /// Forgets every estimate (a layer's evaluation or a table changed) and renews the
    /// budget.
    pub(super) fn forget(&self) {
        self.memo.borrow_mut().clear();
        self.provisional.borrow_mut().clear();
        self.spent.set(0);
    }

    /// A new epoch (see [`AnswerFrame::epoch`]).
    pub(super) fn next_epoch(&self) -> u64 {
        let epoch = self.epochs.get() + 1;
        self.epochs.set(epoch);
        epoch
    }
}

/// The planner: the decisions made so far, the static tables, and the trees planned.
pub(super) struct Planner<'a> {
    pub(super) ir: &'a Ir,
    pub(super) options: PlanOptions,
    /// Static tables, once computed.
    pub(super) tables: Vec<Option<Vec<Vec<SymbolId>>>>,
    pub(super) stats: Vec<Option<TableStats>>,
    /// Layers evaluated on demand.
    demand_layer: Vec<bool>,
    /// Per relation, the demand modes found so far (bound columns → mode index).
    modes: Vec<BTreeMap<Columns, usize>>,
    /// Per relation and mode, the planned tree.
    mode_trees: Vec<Vec<Option<Node>>>,
    /// Per relation, the index patterns used.
    indexes: Vec<BTreeSet<Columns>>,
    layer_trees: Vec<Option<Node>>,
    /// The state's column order per function symbol of `true` (see
    /// [`crate::plan::state_column_orders`]): the ranges of `true` lookups follow it.
    pub(super) state_orders: BTreeMap<SymbolId, Vec<usize>>,
    /// The estimated work of one call of a demand relation by its bound columns
    /// ([`Self::call_work`]), forgotten whenever a layer's evaluation or a table
    /// changes; and the calls being estimated (recursion).
    pub(super) call_works: RefCell<BTreeMap<(RelationId, Columns), f64>>,
    pub(super) estimating: RefCell<BTreeSet<(RelationId, Columns)>>,
    /// The expected answers of demand calls ([`Self::call_answers`]).
    pub(super) answers: Answers,
}

impl<'a> Planner<'a> {
    fn new(ir: &'a Ir, options: PlanOptions) -> Self {
        let n = ir.relations.len();
        Planner {
            ir,
            options,
            tables: vec![None; n],
            stats: vec![None; n],
            demand_layer: vec![false; ir.layers.len()],
            modes: vec![BTreeMap::new(); n],
            mode_trees: vec![Vec::new(); n],
            indexes: vec![BTreeSet::new(); n],
            layer_trees: vec![None; ir.layers.len()],
            state_orders: BTreeMap::new(),
            call_works: RefCell::new(BTreeMap::new()),
            estimating: RefCell::new(BTreeSet::new()),
            answers: Default::default(),
        }
    }

    /// Forgets the estimated work of demand calls (a layer's evaluation or a table
    /// changed).
    fn forget_call_works(&self) {
        self.call_works.borrow_mut().clear();
        self.answers.forget();
    }

    fn is_input(&self, relation: RelationId) -> bool {
        matches!(
            self.ir.relation(relation).keyword,
            Some(Keyword::True | Keyword::Does)
        )
    }

    pub(super) fn is_demand(&self, relation: RelationId) -> bool {
        self.demand_layer[self.ir.layer_of[relation.0 as usize]]
    }

    // ---- trees ----

    /// The access path of a query given the evaluation decided so far.
    fn access(&mut self, relation: RelationId, slots: &[Slot]) -> Access {
        let bound: Columns = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Slot::Sym(_) | Slot::Bound(_)))
            .map(|(i, _)| i)
            .collect();
        let r = relation.0 as usize;
        if slots.is_empty() {
            Access::Flag
        } else if self.is_demand(relation) {
            let next = self.modes[r].len();
            let mode = *self.modes[r].entry(bound).or_insert(next);
            if mode == next {
                self.mode_trees[r].push(None);
            }
            Access::Call(mode)
        } else if bound.len() == slots.len() {
            Access::Member
        } else if bound.is_empty() {
            Access::Scan
        } else {
            self.indexes[r].insert(bound.clone());
            Access::Index(bound)
        }
    }

    /// The filter tree of rule `r`: `prefix` (a demand rule's input query) then the
    /// ordered body, then the head.
    fn rule_tree(
        &mut self,
        r: usize,
        prefix: Option<Query>,
        bound: &mut [bool],
    ) -> Result<Node, Diagnostic> {
        self.rule_tree_skipping(r, prefix, bound, None)
    }

    /// [`Self::rule_tree`] with body literal `skip` left out (the prefix reads it).
    fn rule_tree_skipping(
        &mut self,
        r: usize,
        prefix: Option<Query>,
        bound: &mut [bool],
        skip: Option<usize>,
    ) -> Result<Node, Diagnostic> {
        let steps = self.order(r, bound, skip)?;
        let rule = &self.ir.rules[r];
        let mut node = Node::Accept {
            relation: rule.head.relation,
            args: rule.head.args.clone(),
        };
        for step in steps.into_iter().rev() {
            node = match step {
                Step::Query(relation, slots) => Node::Query {
                    query: Query {
                        relation,
                        access: self.access(relation, &slots),
                        slots,
                    },
                    then: Box::new(node),
                },
                Step::Absent(relation, slots) => Node::If {
                    test: Test::Absent(Query {
                        relation,
                        access: self.access(relation, &slots),
                        slots,
                    }),
                    then: Box::new(node),
                },
                Step::Distinct(pairs) => Node::If {
                    test: Test::Distinct(pairs),
                    then: Box::new(node),
                },
                Step::Equal(pairs) => Node::If {
                    test: Test::Equal(pairs),
                    then: Box::new(node),
                },
            };
        }
        if let Some(query) = prefix {
            node = Node::Query {
                query,
                then: Box::new(node),
            };
        }
        Ok(Node::Rule {
            rule: r,
            num_vars: rule.vars.len(),
            body: Box::new(node),
        })
    }

    /// The tree of a materialised (or static) layer.
    fn layer_tree(&mut self, l: usize) -> Result<Node, Diagnostic> {
        let layer = &self.ir.layers[l];
        let members = layer.relations.clone();
        let semi_naive = layer.cyclic
            && members.iter().all(|&m| {
                let relation = self.ir.relation(m);
                relation.keyword.is_none() && !relation.columns.is_empty()
            });
        // Semi-naively, the first round runs only the exit rules (no positive literal on
        // the layer's relations): the recursive rules then see every tuple as the first
        // delta, joined from it rather than from a scan of their other literals.
        let mut rules = Vec::with_capacity(layer.rules.len());
        for &r in &layer.rules {
            if semi_naive && self.reads_any(r, &members) {
                continue;
            }
            let mut bound = vec![false; self.ir.rules[r].vars.len()];
            rules.push(self.rule_tree(r, None, &mut bound)?);
        }
        let sequence = Node::Sequence(rules);
        if !layer.cyclic {
            return Ok(sequence);
        }
        if !semi_naive {
            return Ok(Node::Repeat(Box::new(sequence)));
        }
        let mut rounds = Vec::new();
        for &r in &self.ir.layers[l].rules {
            let rule = &self.ir.rules[r];
            for (i, literal) in rule.body.iter().enumerate() {
                let FlatLiteral::Pos(atom) = literal else {
                    continue;
                };
                if !members.contains(&atom.relation) {
                    continue;
                }
                let mut bound = vec![false; rule.vars.len()];
                let delta = Query {
                    relation: atom.relation,
                    slots: slots(atom, &mut bound),
                    access: Access::Delta,
                };
                rounds.push(self.rule_tree_skipping(r, Some(delta), &mut bound, Some(i))?);
            }
        }
        Ok(Node::SemiNaive {
            initial: Box::new(sequence),
            rounds: Box::new(Node::Sequence(rounds)),
            relations: members,
        })
    }

    /// Whether rule `r` has a positive literal on one of `relations`.
    fn reads_any(&self, r: usize, relations: &[RelationId]) -> bool {
        self.ir.rules[r].body.iter().any(
            |literal| matches!(literal, FlatLiteral::Pos(atom) if relations.contains(&atom.relation)),
        )
    }

    /// The tree of a demand relation's rules for calls binding `columns`.
    fn mode_tree(&mut self, relation: RelationId, columns: &[usize]) -> Result<Node, Diagnostic> {
        let rules: Vec<usize> = self.ir.layers[self.ir.layer_of[relation.0 as usize]]
            .rules
            .iter()
            .copied()
            .filter(|&r| self.ir.rules[r].head.relation == relation)
            .collect();
        let mut trees = Vec::with_capacity(rules.len());
        for r in rules {
            let head = &self.ir.rules[r].head;
            let mut bound = vec![false; self.ir.rules[r].vars.len()];
            let mut slots = vec![Slot::Free; head.args.len()];
            for &c in columns {
                slots[c] = match head.args[c] {
                    Arg::Sym(s) => Slot::Sym(s),
                    Arg::Var(v) if bound[v.0 as usize] => Slot::Same(v),
                    Arg::Var(v) => {
                        bound[v.0 as usize] = true;
                        Slot::Bind(v)
                    }
                };
            }
            let prefix = Query {
                relation,
                slots,
                access: Access::Input,
            };
            trees.push(self.rule_tree(r, Some(prefix), &mut bound)?);
        }
        Ok(Node::Sequence(trees))
    }

    // ---- passes ----

    /// The bound columns of every query in the body of rule `r`, ordered with the
    /// variables of `bound` bound.
    fn call_sites(
        &self,
        r: usize,
        bound: &mut [bool],
    ) -> Result<Vec<(RelationId, Columns)>, Diagnostic> {
        let mut sites = Vec::new();
        for step in self.order(r, bound, None)? {
            if let Step::Query(relation, slots) | Step::Absent(relation, slots) = step {
                let columns = slots
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| matches!(s, Slot::Sym(_) | Slot::Bound(_)))
                    .map(|(i, _)| i)
                    .collect();
                if !slots.is_empty() {
                    sites.push((relation, columns));
                }
            }
        }
        Ok(sites)
    }

    /// The variables of rule `r` bound by a call binding the head columns `columns`.
    pub(super) fn head_bound(&self, r: usize, columns: &[usize]) -> Vec<bool> {
        let rule = &self.ir.rules[r];
        let mut bound = vec![false; rule.vars.len()];
        for &c in columns {
            if let Arg::Var(v) = rule.head.args[c] {
                bound[v.0 as usize] = true;
            }
        }
        bound
    }

    /// Decides which layers are evaluated on demand, from the last layer to the first:
    /// a layer's queries all come from later layers, whose evaluation (and, for demand
    /// layers, whose modes) is known by then. A large layer is demand-evaluated when no
    /// query of it — from later layers, or from its own rules under its own modes —
    /// leaves every column unbound.
    fn decide(&mut self) -> Result<(), Diagnostic> {
        let mut patterns: Vec<BTreeSet<Columns>> = vec![BTreeSet::new(); self.ir.relations.len()];
        for l in (0..self.ir.layers.len()).rev() {
            let layer = &self.ir.layers[l];
            if layer.relations.iter().any(|&r| self.is_input(r)) {
                continue;
            }
            let entry = layer.relations.iter().any(|&r| {
                matches!(
                    self.ir.relation(r).keyword,
                    Some(
                        Keyword::Legal
                            | Keyword::Next
                            | Keyword::Goal
                            | Keyword::Terminal
                            | Keyword::Sees
                            | Keyword::Init
                    )
                )
            });
            let threshold = if layer.phase == Phase::Static {
                self.options.static_demand_threshold
            } else {
                self.options.demand_threshold
            };
            let members = layer.relations.clone();
            let large = members.iter().any(|&r| self.space(r) > threshold);
            let unbound = members
                .iter()
                .any(|r| patterns[r.0 as usize].contains(&Vec::new()));
            let mut demand = !entry
                && (large || self.options.on_demand.contains(&l))
                && !unbound
                && !self.options.materialise.contains(&l);
            let mut found: Vec<(RelationId, Columns)> = Vec::new();
            if demand {
                // The layer's own modes, closed under its recursive calls.
                let mut local: BTreeSet<(RelationId, Columns)> = members
                    .iter()
                    .flat_map(|&r| patterns[r.0 as usize].iter().map(move |c| (r, c.clone())))
                    .collect();
                let mut done: BTreeSet<(RelationId, Columns)> = BTreeSet::new();
                'closure: while let Some(mode) = local.difference(&done).next().cloned() {
                    done.insert(mode.clone());
                    let (relation, columns) = mode;
                    for &r in &layer.rules {
                        if self.ir.rules[r].head.relation != relation {
                            continue;
                        }
                        let mut bound = self.head_bound(r, &columns);
                        for (callee, bound_columns) in self.call_sites(r, &mut bound)? {
                            if members.contains(&callee) {
                                if bound_columns.is_empty() {
                                    demand = false;
                                    break 'closure;
                                }
                                local.insert((callee, bound_columns));
                            } else {
                                found.push((callee, bound_columns));
                            }
                        }
                    }
                }
            }
            if !demand {
                found.clear();
                for &r in &layer.rules {
                    let mut bound = vec![false; self.ir.rules[r].vars.len()];
                    found.extend(self.call_sites(r, &mut bound)?);
                }
            }
            for (callee, columns) in found {
                patterns[callee.0 as usize].insert(columns);
            }
            self.demand_layer[l] = demand;
            self.forget_call_works();
        }
        Ok(())
    }

    /// Evaluates the static layers not evaluated on demand, in order, into tables; and
    /// the static layers put on demand for their domain products whose rules read only
    /// static tables, when their real extension turns out small (within
    /// [`SMALL_STATIC_LIMIT`] tuples and [`SMALL_STATIC_WORK`] steps): quad's
    /// eight-column `square` has 7⁸ possible tuples and a few hundred real ones, and on
    /// demand it took a memo table per key tested in every state.
    fn evaluate_statics(
        &mut self,
        seed: Option<&Statics>,
    ) -> Result<Vec<Option<(bool, bool)>>, Diagnostic> {
        (0..self.ir.layers.len())
            .map(|l| self.evaluate_static_layer(l, seed))
            .collect()
    }

    /// [`Self::evaluate_statics`] for layer `l`: for a static layer, whether it was
    /// on demand before and after.
    fn evaluate_static_layer(
        &mut self,
        l: usize,
        seed: Option<&Statics>,
    ) -> Result<Option<(bool, bool)>, Diagnostic> {
        let layer = &self.ir.layers[l];
        if layer.phase != Phase::Static || layer.relations.iter().any(|&r| self.is_input(r)) {
            return Ok(None);
        }
        let before = self.demand_layer[l];
        // Every earlier static layer came out as in the seed, so this one does too
        // when it was decided the same way.
        if let Some(seed) = seed {
            let Some((_, after)) = seed.decided[l].filter(|&(seeded, _)| seeded == before) else {
                return Err(Diagnostic::error(
                    Code::Unbounded,
                    format!(
                        "measured planning: the trial changes how static layer {l} is evaluated"
                    ),
                ));
            };
            for &r in &layer.relations {
                let r = r.0 as usize;
                self.tables[r].clone_from(&seed.tables[r]);
                self.stats[r].clone_from(&seed.stats[r]);
            }
            self.demand_layer[l] = after;
            self.forget_call_works();
            return Ok(Some((before, after)));
        }
        if !self.demand_layer[l] {
            if !self.evaluate_static(l, STATIC_LIMIT, usize::MAX)? {
                return Err(self.too_large(l));
            }
        } else if self.reads_only_tables(l) {
            self.demand_layer[l] = false;
            self.forget_call_works();
            if !self.evaluate_static(l, SMALL_STATIC_LIMIT, SMALL_STATIC_WORK)? {
                self.demand_layer[l] = true;
                self.retain_used_indexes();
            }
            self.forget_call_works();
        }
        Ok(Some((before, self.demand_layer[l])))
    }

    /// Whether every relation that the rules of layer `l` read outside it is a static
    /// table (so that the layer can be evaluated whole without calling a demand layer
    /// with no bound column).
    fn reads_only_tables(&self, l: usize) -> bool {
        self.ir.layers[l].rules.iter().all(|&r| {
            self.ir.rules[r].body.iter().all(|literal| match literal {
                FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) => {
                    let k = self.ir.layer_of[atom.relation.0 as usize];
                    k == l || (self.ir.layers[k].phase == Phase::Static && !self.demand_layer[k])
                }
                _ => true,
            })
        })
    }

    /// The error for static layer `l` past [`STATIC_LIMIT`].
    fn too_large(&self, l: usize) -> Diagnostic {
        let relation = self.ir.layers[l].relations[0];
        let rule = self.ir.layers[l]
            .rules
            .first()
            .map(|&r| self.ir.rules[r].span);
        let mut diagnostic = Diagnostic::error(
            Code::Unbounded,
            format!(
                "static relation `{}` has more than {STATIC_LIMIT} tuples, and some \
                 query of it binds no argument",
                self.ir.relation(relation).key()
            ),
        );
        if let Some(span) = rule {
            diagnostic = diagnostic.at(span, "computed by this rule");
        }
        diagnostic
    }

    /// Evaluates one static layer at compile time into tables; false (nothing kept) if
    /// a relation has more than `limit` tuples or the evaluation takes more than
    /// `work` steps.
    fn evaluate_static(&mut self, l: usize, limit: usize, work: usize) -> Result<bool, Diagnostic> {
        let tree = self.layer_tree(l)?;
        self.layer_trees[l] = Some(tree);
        self.complete_modes()?;
        // A provisional plan: this layer materialised in hash sets, earlier static
        // tables loaded.
        let provisional = self.provisional_plan(l);
        let mut engine = Engine::new(self.ir, &provisional);
        engine.set_limit(limit);
        engine.set_work_limit(work);
        engine.evaluate_layer(l);
        let over = engine.over_limit()
            || self.ir.layers[l]
                .relations
                .iter()
                .any(|&relation| engine.store(relation).len() > limit);
        if over {
            self.layer_trees[l] = None;
            return Ok(false);
        }
        for &relation in &self.ir.layers[l].relations {
            let tuples = engine.tuples(relation);
            let arity = self.ir.relation(relation).columns.len();
            let distinct = (0..arity)
                .map(|c| {
                    tuples
                        .iter()
                        .map(|t| t[c])
                        .collect::<BTreeSet<SymbolId>>()
                        .len()
                })
                .collect();
            self.stats[relation.0 as usize] = Some(TableStats {
                len: tuples.len(),
                distinct,
            });
            self.tables[relation.0 as usize] = Some(tuples);
            self.forget_call_works();
        }
        // The tree served compile time only: keep exactly the indexes that the trees
        // still alive use (demand modes planned meanwhile stay in the plan and are run
        // again, by later static layers and at run time).
        self.layer_trees[l] = None;
        self.retain_used_indexes();
        Ok(true)
    }

    /// Drops every index that no live tree (layer or demand mode) reads.
    fn retain_used_indexes(&mut self) {
        let mut used: Vec<BTreeSet<Columns>> = vec![BTreeSet::new(); self.indexes.len()];
        let trees = self
            .layer_trees
            .iter()
            .chain(self.mode_trees.iter().flatten())
            .flatten();
        for tree in trees {
            tree.for_each_query(&mut |query| {
                if let Access::Index(columns) = &query.access {
                    used[query.relation.0 as usize].insert(columns.clone());
                }
            });
        }
        for (indexes, used) in self.indexes.iter_mut().zip(used) {
            indexes.retain(|columns| used.contains(columns));
        }
    }

    /// The plan the engine needs to evaluate static layer `l`: tables computed so far,
    /// layer `l` materialised with the indexes its tree uses.
    fn provisional_plan(&self, l: usize) -> Plan {
        Plan {
            relations: (0..self.ir.relations.len())
                .map(|r| RelationPlan {
                    evaluation: match &self.tables[r] {
                        Some(tuples) => Evaluation::Static(tuples.clone()),
                        None if self.is_demand(RelationId(r as u32)) => {
                            Evaluation::Demand(self.demand_modes(r))
                        }
                        None => Evaluation::Materialised,
                    },
                    storage: if self.ir.relations[r].columns.is_empty() {
                        Storage::Flag
                    } else if self.is_demand(RelationId(r as u32)) {
                        Storage::Memo
                    } else {
                        Storage::Hashed
                    },
                    indexes: self.indexes[r].iter().cloned().collect(),
                    reason: String::new(),
                })
                .collect(),
            layers: (0..self.ir.layers.len())
                .map(|i| LayerPlan {
                    evaluation: if self.demand_layer[i] {
                        LayerEvaluation::Demand
                    } else if self.tables_done(i) {
                        LayerEvaluation::Static
                    } else if self.ir.layers[i].cyclic {
                        LayerEvaluation::Fixpoint
                    } else {
                        LayerEvaluation::Once
                    },
                    tree: if i == l {
                        self.layer_trees[i].clone()
                    } else {
                        None
                    },
                })
                .collect(),
            fluents: Vec::new(),
            state_orders: BTreeMap::new(),
            tuning: None,
        }
    }

    /// The demand modes of relation `r` planned so far, in mode order.
    fn demand_modes(&self, r: usize) -> Vec<DemandMode> {
        let mut by_index: Vec<(usize, &Columns)> =
            self.modes[r].iter().map(|(c, &m)| (m, c)).collect();
        by_index.sort();
        by_index
            .into_iter()
            .map(|(m, bound)| DemandMode {
                bound: bound.clone(),
                tree: self.mode_trees[r][m]
                    .clone()
                    .unwrap_or(Node::Sequence(Vec::new())),
            })
            .collect()
    }

    fn tables_done(&self, l: usize) -> bool {
        let relations = &self.ir.layers[l].relations;
        !relations.is_empty()
            && relations
                .iter()
                .all(|r| self.tables[r.0 as usize].is_some())
    }

    /// Plans every demand mode used so far that has no tree yet (which may use more).
    fn complete_modes(&mut self) -> Result<(), Diagnostic> {
        // Demand modes, until every mode used has a tree.
        loop {
            let mut pending = None;
            'find: for r in 0..self.modes.len() {
                for (columns, &m) in &self.modes[r] {
                    if self.mode_trees[r][m].is_none() {
                        pending = Some((r, columns.clone(), m));
                        break 'find;
                    }
                }
            }
            let Some((r, columns, m)) = pending else {
                break;
            };
            // Mark as in progress so that recursive calls reuse the mode.
            self.mode_trees[r][m] = Some(Node::Sequence(Vec::new()));
            let tree = self.mode_tree(RelationId(r as u32), &columns)?;
            self.mode_trees[r][m] = Some(tree);
        }
        Ok(())
    }

    /// What [`Self::build_trees`] fills: demand modes, their trees, indexes and the
    /// layers' trees.
    fn trees_snapshot(&self) -> TreesSnapshot {
        (
            self.modes.clone(),
            self.mode_trees.clone(),
            self.indexes.clone(),
            self.layer_trees.clone(),
        )
    }

    fn restore_trees(&mut self, snapshot: TreesSnapshot) {
        (self.modes, self.mode_trees, self.indexes, self.layer_trees) = snapshot;
    }

    /// Builds the trees of the materialised layers and of every demand mode used.
    fn build_trees(&mut self) -> Result<(), Diagnostic> {
        for l in 0..self.ir.layers.len() {
            let layer = &self.ir.layers[l];
            if layer.phase != Phase::Static
                && !self.demand_layer[l]
                && !layer.relations.iter().any(|&r| self.is_input(r))
            {
                let tree = self.layer_tree(l)?;
                self.layer_trees[l] = Some(tree);
            }
        }
        self.complete_modes()?;
        Ok(())
    }

    fn finish(mut self) -> Plan {
        let ir = self.ir;
        let mut relations = Vec::with_capacity(ir.relations.len());
        for (r, relation) in ir.relations.iter().enumerate() {
            let id = RelationId(r as u32);
            let space = self.space(id);
            let (evaluation, why) = if self.is_input(id) {
                (Evaluation::Input, "the reasoner's input".to_owned())
            } else if let Some(tuples) = self.tables[r].take() {
                let why = format!(
                    "static: {} computed at compile time",
                    counted(tuples.len() as f64, "tuple")
                );
                (Evaluation::Static(tuples), why)
            } else if self.is_demand(id) {
                let modes = self.demand_modes(r);
                let measured = if self.options.on_demand.contains(&ir.layer_of[r]) {
                    ", cheaper than materialised on sample states (measured planning),"
                } else {
                    ""
                };
                let why = format!(
                    "on demand: {}{measured} and every query binds a column",
                    counted(space, "possible tuple")
                );
                (Evaluation::Demand(modes), why)
            } else {
                let why = if self.ir.layers[ir.layer_of[r]].rules.is_empty()
                    && relation.keyword.is_none()
                {
                    "materialised: no rules (always empty)".to_owned()
                } else if self.options.materialise.contains(&ir.layer_of[r]) {
                    format!(
                        "materialised: {}, cheaper than on demand on sample states (measured planning)",
                        counted(space, "possible tuple")
                    )
                } else if space > DEMAND_THRESHOLD {
                    "materialised: some query binds no column".to_owned()
                } else {
                    format!("materialised: {}", counted(space, "possible tuple"))
                };
                (Evaluation::Materialised, why)
            };
            let bitset_limit = if matches!(evaluation, Evaluation::Static(_)) {
                BITSET_LIMIT_STATIC
            } else {
                BITSET_LIMIT_DYNAMIC
            };
            let (storage, how) = if relation.columns.is_empty() {
                (Storage::Flag, "a flag".to_owned())
            } else if matches!(evaluation, Evaluation::Demand(_)) {
                (Storage::Memo, "memo tables per call".to_owned())
            } else if space <= bitset_limit {
                (
                    Storage::Bitset {
                        radices: relation.columns.iter().map(|c| c.domain.len()).collect(),
                    },
                    format!("a bitset of {}", counted(space, "bit")),
                )
            } else {
                (
                    Storage::Hashed,
                    format!("a hash set ({})", counted(space, "possible tuple")),
                )
            };
            relations.push(RelationPlan {
                evaluation,
                storage,
                indexes: self.indexes[r].iter().cloned().collect(),
                reason: format!("{why}; stored in {how}"),
            });
        }
        let layers = (0..ir.layers.len())
            .map(|l| {
                let layer = &ir.layers[l];
                let evaluation = if layer.relations.iter().any(|&r| self.is_input(r)) {
                    LayerEvaluation::Input
                } else if layer.phase == Phase::Static {
                    LayerEvaluation::Static
                } else if self.demand_layer[l] {
                    LayerEvaluation::Demand
                } else if layer.cyclic {
                    LayerEvaluation::Fixpoint
                } else {
                    LayerEvaluation::Once
                };
                LayerPlan {
                    evaluation,
                    tree: self.layer_trees[l].take(),
                }
            })
            .collect();
        Plan {
            relations,
            layers,
            fluents: Vec::new(),
            state_orders: std::mem::take(&mut self.state_orders),
            tuning: None,
        }
    }
}

/// The slots of an atom, binding its unbound variables (in `bound`).
pub(super) fn slots(atom: &FlatAtom, bound: &mut [bool]) -> Vec<Slot> {
    let mut fresh: Vec<VarId> = Vec::new();
    atom.args
        .iter()
        .map(|a| match *a {
            Arg::Sym(s) => Slot::Sym(s),
            Arg::Var(v) if fresh.contains(&v) => Slot::Same(v),
            Arg::Var(v) if bound[v.0 as usize] => Slot::Bound(v),
            Arg::Var(v) => {
                bound[v.0 as usize] = true;
                fresh.push(v);
                Slot::Bind(v)
            }
        })
        .collect()
}

/// `count` and `noun`, plural unless the count is one.
fn counted(count: f64, noun: &str) -> String {
    let s = if count == 1.0 { "" } else { "s" };
    format!("{} {noun}{s}", fmt_count(count))
}

/// A count for reasons: exact up to a billion, else in powers of ten.
fn fmt_count(count: f64) -> String {
    if count < 1e9 {
        format!("{}", count as u64)
    } else {
        format!("{count:.1e}")
    }
}

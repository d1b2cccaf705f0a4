//! Grounding: the rules of an analysed game instantiated into ground atoms, keeping only
//! what can be reached from the initial state.
//!
//! The *relaxed* game — negation on state-dependent relations ignored, `true` holding
//! every fluent `init` or `next` can produce, `does` every move `legal` can produce — is
//! evaluated bottom-up, semi-naively, to its least fixpoint ([`ground`]). Its atoms are
//! a superset of every atom true in some reachable state (negation only removes
//! derivations), so the rule instances found on the way — each head with the ground
//! body literals that still depend on the state or the move — compute every relation
//! exactly once a state is given: static literals are decided here (static relations
//! come from the plan's compile-time tables, or, too large for one, are grounded first
//! to the tuples asked for), and a negated atom that is never reachable always holds.
//! Only the atoms some rule can ask for are derived ([`demand`]): each rule's head
//! variables are restricted to the values its callers can pass.
//!
//! The result ([`Grounding`]) numbers every reachable atom of every non-static relation
//! and lists the instances; the ground backend ([`crate::emit::ground`]) turns it into
//! straight-line code. Grounding gives up, with the reason, past [`Limits`]: the join
//! backend then compiles the game.
//!
//! Each round joins a rule once per growing body literal, starting from that literal's
//! new tuples, so a step counter does not make every body join again per round. A
//! static relation the plan left on demand (too large for a compile-time table) that a
//! grounded rule reads is grounded first, to the tuples asked for; a negation of one
//! inside another's rules is refused. With `project`, each rule's *existential
//! components* — body literals connected by variables the head lacks, reading a state-
//! or move-dependent relation — become auxiliary relations over the head variables they
//! share (ids past `ir.relations`, phases in [`Grounding::aux_phases`]), so `(does ?p
//! (move ?anyX ?anyY))` costs one atom per role instead of multiplying the rule's
//! instances; a body that is one component has the part reading the state that shares
//! the fewest variables with the rest split off so (`project`: a queen on a diagonal,
//! one atom per diagonal); projections that do not save literals are undone once the
//! instances are known. [`Grounding::evaluation_order`] gives the strongly connected components of the
//! ground dependencies; [`simplify`] runs last ([`ground_unsimplified`] is the grounding
//! before it).

pub mod demand;
pub mod exec;
mod project;
mod rules;
pub mod share;
pub mod simplify;

use rustc_hash::FxHashMap as HashMap;

use petgraph::graph::{DiGraph, NodeIndex};

use crate::ir::{Arg, FlatAtom, FlatLiteral, Ir, Keyword, Phase, RelationId, SymbolId};
use crate::plan::{Evaluation, Plan};

use demand::Demand;
use project::project_rule;
use rules::{Join, RuleSpec, order_rule};

/// How large a grounding may become before it is abandoned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Reachable atoms of non-static relations.
    pub atoms: usize,
    /// Rule instances.
    pub instances: usize,
    /// Ground literals in all instance bodies.
    pub literals: usize,
    /// Tuples visited by the joins.
    pub steps: u64,
}

/// The limits the compiler uses. They bound gdlc's own time and memory (about 3 s and
/// 350 MB at worst over the corpus and 105 unseen games), not the generated code, which
/// the emitter's literal budgets bound: a grounding of a few hundred thousand instances
/// often shrinks to straight-line code of a few thousand literals per state (chess
/// endgames: 336,000 instances, 13,000 literals; 20× the join backend's playouts).
pub const LIMITS: Limits = Limits {
    atoms: 100_000,
    instances: 1_600_000,
    literals: 6_000_000,
    steps: 60_000_000,
};

/// A reachable atom's index in [`Grounding::atoms`].
pub type AtomId = u32;

/// A reachable atom of a non-static relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// Its relation.
    pub relation: RelationId,
    /// Its flattened tuple.
    pub tuple: Vec<SymbolId>,
}

/// A ground body literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Literal {
    /// The atom holds.
    Pos(AtomId),
    /// The atom does not hold.
    Neg(AtomId),
}

impl Literal {
    /// The literal's atom.
    pub fn atom(self) -> AtomId {
        let (Literal::Pos(a) | Literal::Neg(a)) = self;
        a
    }
}

/// One ground instance of a rule: the head holds when every literal does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The rule's index in [`Ir::rules`].
    pub rule: usize,
    /// The head atom.
    pub head: AtomId,
    /// The literals on state- or move-dependent relations, sorted (static ones are
    /// decided; an empty body always holds).
    pub body: Vec<Literal>,
}

/// The ground game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grounding {
    /// Every reachable atom of a non-static relation, grouped by relation in id order,
    /// each group in order of derivation.
    pub atoms: Vec<Atom>,
    /// The atoms of each relation: `relation_atoms[r]` is a range of [`Self::atoms`].
    pub relation_atoms: Vec<std::ops::Range<AtomId>>,
    /// Instances, sorted by head then body, without duplicates.
    pub instances: Vec<Instance>,
    /// For each atom of `next`, the `true` atom of the same fluent; for each atom of
    /// `legal`, the `does` atom of the same move (other atoms: `None`).
    pub input_of: Vec<Option<AtomId>>,
    /// The initial state's fluents, as `true` atoms, sorted.
    pub init: Vec<AtomId>,
    /// The auxiliary relations of projected rules (see [`ground`]), then those of
    /// shared conjunctions (see [`share::share_conjunctions`]): relation
    /// `ir.relations.len() + k` is the `k`-th, with this phase.
    pub aux_phases: Vec<Phase>,
    /// How many of the auxiliary relations, the last ones, hold shared conjunctions.
    pub shared_relations: usize,
}

impl Grounding {
    /// The phase of a relation of the grounding (one of the IR or an auxiliary one).
    pub fn phase(&self, ir: &Ir, relation: RelationId) -> Phase {
        let r = relation.0 as usize;
        match r.checked_sub(ir.relations.len()) {
            Some(k) => self.aux_phases[k],
            None => ir.layers[ir.layer_of[r]].phase,
        }
    }

    /// Whether a relation is an auxiliary one, not of the IR.
    pub fn is_aux(&self, ir: &Ir, relation: RelationId) -> bool {
        relation.0 as usize >= ir.relations.len()
    }

    /// A relation's name for comments and messages: its key, or `projection k` or
    /// `shared conjunction k` for an auxiliary one (which the IR does not hold).
    pub fn relation_name(&self, ir: &Ir, relation: RelationId) -> String {
        let projections = self.aux_phases.len() - self.shared_relations;
        match (relation.0 as usize).checked_sub(ir.relations.len()) {
            Some(k) if k >= projections => format!("shared conjunction {}", k - projections),
            Some(k) => format!("projection {k}"),
            None => ir.relation(relation).key(),
        }
    }

    /// The atoms of a relation.
    pub fn of(&self, relation: RelationId) -> std::ops::Range<AtomId> {
        self.relation_atoms[relation.0 as usize].clone()
    }

    /// Number of ground literals in all instance bodies.
    pub fn literal_count(&self) -> usize {
        self.instances.iter().map(|i| i.body.len()).sum()
    }

    /// The atoms that are not inputs (`true` and `does` atoms are), in evaluation
    /// order: groups of atoms that depend on each other (strongly connected components
    /// of the ground dependencies, each sorted), dependencies first, each with whether
    /// it is recursive (a group of several atoms, or one atom reading itself). Negation
    /// never reaches inside a group (the rules are stratified).
    pub fn evaluation_order(&self, ir: &Ir) -> Vec<(Vec<AtomId>, bool)> {
        let inputs = [ir.keyword(Keyword::True), ir.keyword(Keyword::Does)];
        let is_input = |a: AtomId| inputs.contains(&Some(self.atoms[a as usize].relation));
        let n = self.atoms.len();
        let mut graph: DiGraph<AtomId, ()> = DiGraph::new();
        let nodes: Vec<NodeIndex> = (0..n as AtomId).map(|a| graph.add_node(a)).collect();
        let mut self_loop = vec![false; n];
        for instance in &self.instances {
            for literal in &instance.body {
                let (Literal::Pos(b) | Literal::Neg(b)) = *literal;
                if !is_input(b) {
                    graph.add_edge(nodes[b as usize], nodes[instance.head as usize], ());
                    if b == instance.head {
                        self_loop[b as usize] = true;
                    }
                }
            }
        }
        let mut components = petgraph::algo::tarjan_scc(&graph);
        components.reverse();
        components
            .into_iter()
            .map(|c| {
                let mut atoms: Vec<AtomId> = c.into_iter().map(|i| graph[i]).collect();
                atoms.sort_unstable();
                let cyclic = atoms.len() > 1 || self_loop[atoms[0] as usize];
                (atoms, cyclic)
            })
            .filter(|(atoms, _)| !is_input(atoms[0]))
            .collect()
    }
}

/// Grounds `ir` (planned as `plan`, whose static tables it reads) within `limits`, or
/// says why it cannot.
///
/// With `project`, each rule's existential components are projected first: a body's
/// literals connected by variables the head does not have (`(does ?p (move ?anyX
/// ?anyY))` in a rule whose head has `?p` only) are split off into an auxiliary
/// relation over the component's head variables, so the rule's instances no longer
/// multiply by the component's bindings; the projections that do not pay are undone
/// once the instances are known. It fails at once when no rule has such a component.
///
/// The instances are then simplified ([`simplify::simplify`]): aliases, constants and
/// duplicates replaced in the bodies that read them.
pub fn ground(ir: &Ir, plan: &Plan, limits: &Limits, project: bool) -> Result<Grounding, String> {
    ground_unsimplified(ir, plan, limits, project).map(|g| simplify::simplify(ir, g))
}

/// [`ground`] without the simplification: every instance as the rules give it.
pub fn ground_unsimplified(
    ir: &Ir,
    plan: &Plan,
    limits: &Limits,
    project: bool,
) -> Result<Grounding, String> {
    let mut grounder = Grounder::new(ir, plan, *limits, true, project)?;
    if project && grounder.aux_phases.is_empty() {
        return Err("no rule body has a component to project".to_owned());
    }
    grounder.fixpoint()?;
    grounder.finish()
}

/// The limits of [`reachable_fluents`]: no instances are kept, so only the atoms and
/// the join steps are bounded.
pub const REACHABILITY_LIMITS: Limits = Limits {
    atoms: 1 << 20,
    instances: usize::MAX,
    literals: usize::MAX,
    steps: 60_000_000,
};

/// The fluents of the relaxed game (see the module docs) as tuples of `true`, in order
/// of derivation: a superset of every fluent of every reachable state, found by the
/// grounding fixpoint without keeping its instances, so it stays cheap where a full
/// grounding is too large. `limits.atoms` and `limits.steps` bound it.
pub fn reachable_fluents(
    ir: &Ir,
    plan: &Plan,
    limits: &Limits,
) -> Result<Vec<Vec<SymbolId>>, String> {
    let Some(true_rel) = ir.keyword(Keyword::True) else {
        return Ok(Vec::new());
    };
    let mut grounder = Grounder::new(ir, plan, *limits, false, false)?;
    grounder.fixpoint()?;
    Ok(std::mem::take(
        &mut grounder.tables[true_rel.0 as usize].tuples,
    ))
}

/// The bound value of a variable not bound yet.
const UNBOUND: SymbolId = SymbolId(u32::MAX);

/// The tuples of one relation, with hash indexes on the column sets the joins use.
#[derive(Default)]
struct Table {
    tuples: Vec<Vec<SymbolId>>,
    ids: HashMap<Vec<SymbolId>, u32>,
    /// Per bound-column set: key → tuple ids, ascending.
    indexes: HashMap<Vec<usize>, HashMap<Vec<SymbolId>, Vec<u32>>>,
    is_static: bool,
}

impl Table {
    fn insert(&mut self, tuple: Vec<SymbolId>) -> bool {
        if self.ids.contains_key(&tuple) {
            return false;
        }
        let id = self.tuples.len() as u32;
        for (columns, index) in &mut self.indexes {
            let key: Vec<SymbolId> = columns.iter().map(|&c| tuple[c]).collect();
            index.entry(key).or_default().push(id);
        }
        self.ids.insert(tuple.clone(), id);
        self.tuples.push(tuple);
        true
    }

    fn ensure_index(&mut self, columns: &[usize]) {
        if columns.is_empty() || self.indexes.contains_key(columns) {
            return;
        }
        let mut index: HashMap<Vec<SymbolId>, Vec<u32>> = HashMap::default();
        for (id, tuple) in self.tuples.iter().enumerate() {
            let key: Vec<SymbolId> = columns.iter().map(|&c| tuple[c]).collect();
            index.entry(key).or_default().push(id as u32);
        }
        self.indexes.insert(columns.to_vec(), index);
    }
}

/// Builds the hash indexes the join orders of `rules` look tuples up by.
fn ensure_indexes(rules: &[RulePlan], tables: &mut [Table]) {
    for rule in rules {
        let orders = std::iter::once(&rule.steps).chain(rule.pivots.iter().map(|p| &p.order));
        for step in orders.flatten() {
            if let Step::Pos {
                relation, bound, ..
            } = step
            {
                tables[relation.0 as usize].ensure_index(bound);
            }
        }
    }
}

/// A body step of a rule, in the order the grounder joins it.
#[derive(Clone, Debug)]
enum Step {
    /// A positive literal (the body's `literal`-th), with the columns bound before it.
    Pos {
        literal: usize,
        relation: RelationId,
        args: Vec<Arg>,
        bound: Vec<usize>,
    },
    /// A negative literal (every argument bound).
    Neg {
        relation: RelationId,
        args: Vec<Arg>,
    },
    /// Some pair differs.
    Distinct(Vec<(Arg, Arg)>),
    /// Every pair is equal (binding an unbound side).
    Equal(Vec<(Arg, Arg)>),
    /// A head variable's value is one of those asked for (sorted).
    Member(u32, Vec<SymbolId>),
}

/// A positive literal of a rule body on a relation that grows, and the body ordered
/// from it.
struct Pivot {
    /// Its index in the body.
    literal: usize,
    relation: RelationId,
    order: Vec<Step>,
}

/// A rule to ground: its head and its body in join orders.
struct RulePlan {
    rule: usize,
    /// The head relation's `name/arity`, for messages.
    head_key: String,
    head: (RelationId, Vec<Arg>),
    /// The body in the order of the first round, which reads every tuple.
    steps: Vec<Step>,
    /// For each positive literal on a relation that grows (by its index in the
    /// body), the body ordered from that literal: later rounds join from the last
    /// round's new tuples of one literal, so starting there visits only what can be
    /// new (a rule that reads a step counter would otherwise join its whole body again
    /// in every round).
    pivots: Vec<Pivot>,
    num_vars: usize,
}

/// A derivation found in a round, resolved to atoms at the end.
struct Found {
    rule: usize,
    head: (RelationId, Vec<SymbolId>),
    pos: Vec<(RelationId, u32)>,
    neg: Vec<(RelationId, Vec<SymbolId>)>,
}

struct Grounder<'a> {
    ir: &'a Ir,
    limits: Limits,
    tables: Vec<Table>,
    rules: Vec<RulePlan>,
    found: Vec<Found>,
    /// Where the derivations of the current round start in `found`.
    round_start: usize,
    steps: u64,
    literals: usize,
    true_rel: Option<RelationId>,
    does_rel: Option<RelationId>,
    next_rel: Option<RelationId>,
    legal_rel: Option<RelationId>,
    /// Whether the derivations' bodies are kept (a grounding), or only new heads (the
    /// reachable atoms).
    instances: bool,
    /// The phases of the auxiliary relations of projected rules.
    aux_phases: Vec<Phase>,
}

impl<'a> Grounder<'a> {
    fn new(
        ir: &'a Ir,
        plan: &'a Plan,
        limits: Limits,
        instances: bool,
        project: bool,
    ) -> Result<Self, String> {
        let mut tables: Vec<Table> = (0..ir.relations.len()).map(|_| Table::default()).collect();
        let mut untabled = vec![false; ir.relations.len()];
        for (r, relation_plan) in plan.relations.iter().enumerate() {
            let phase = ir.layers[ir.layer_of[r]].phase;
            // Entry relations are atoms even when static (`(legal robot a)` as a fact):
            // their rules are grounded like the others.
            let entry = matches!(
                ir.relations[r].keyword,
                Some(
                    Keyword::Legal
                        | Keyword::Goal
                        | Keyword::Terminal
                        | Keyword::Sees
                        | Keyword::Next
                )
            );
            if phase != Phase::Static || entry {
                continue;
            }
            match &relation_plan.evaluation {
                Evaluation::Static(tuples) => {
                    let table = &mut tables[r];
                    table.is_static = true;
                    for tuple in tuples {
                        table.insert(tuple.clone());
                    }
                }
                _ => {
                    tables[r].is_static = true;
                    untabled[r] = true;
                }
            }
        }
        let demand = Self::demand(ir, &tables, &untabled);
        // Static relations without a compile-time table (too large whole) that some
        // grounded rule reads are grounded first, to the atoms asked for.
        let reads_untabled = |spec: &RuleSpec| {
            spec.body.iter().any(|literal| match literal {
                FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) => {
                    untabled[atom.relation.0 as usize]
                }
                _ => false,
            })
        };
        let mut static_specs = Vec::new();
        let mut specs = Vec::new();
        for (index, rule) in ir.rules.iter().enumerate() {
            let head = rule.head.relation.0 as usize;
            if tables[head].is_static && !untabled[head] {
                continue;
            }
            let Some(spec) = RuleSpec::asked(ir, index, &demand) else {
                continue;
            };
            if untabled[head] {
                static_specs.push(spec);
            } else {
                specs.push(spec);
            }
        }
        if specs.iter().any(reads_untabled) {
            tables = Self::ground_untabled(ir, limits, tables, &untabled, static_specs)?;
        }
        let mut rules = Vec::new();
        let mut aux_phases = Vec::new();
        for spec in specs {
            if project {
                for spec in project_rule(ir, &tables, spec, &mut aux_phases) {
                    if spec.head.relation.0 as usize >= tables.len() {
                        tables.push(Table::default());
                    }
                    rules.push(order_rule(ir, &tables, &spec)?);
                }
            } else {
                rules.push(order_rule(ir, &tables, &spec)?);
            }
        }
        ensure_indexes(&rules, &mut tables);
        let mut grounder = Grounder::with(ir, limits, tables, rules, instances, aux_phases);
        // The initial state's fluents are the first `true` atoms.
        if let (Some(init), Some(true_rel)) = (ir.keyword(Keyword::Init), grounder.true_rel) {
            let fluents: Vec<Vec<SymbolId>> = grounder.tables[init.0 as usize].tuples.clone();
            for tuple in fluents {
                let converted = grounder.convert(init, true_rel, &tuple)?;
                grounder.tables[true_rel.0 as usize].insert(converted);
            }
        }
        Ok(grounder)
    }

    /// A grounder of `rules` over `tables`, before its first round.
    fn with(
        ir: &'a Ir,
        limits: Limits,
        tables: Vec<Table>,
        rules: Vec<RulePlan>,
        instances: bool,
        aux_phases: Vec<Phase>,
    ) -> Self {
        Grounder {
            ir,
            limits,
            tables,
            rules,
            found: Vec::new(),
            round_start: 0,
            steps: 0,
            literals: 0,
            true_rel: ir.keyword(Keyword::True),
            does_rel: ir.keyword(Keyword::Does),
            next_rel: ir.keyword(Keyword::Next),
            legal_rel: ir.keyword(Keyword::Legal),
            instances,
            aux_phases,
        }
    }

    /// Which atoms of each relation the grounded rules can ask for (see [`demand`]):
    /// relations with a keyword and compile-time tables are not restricted.
    fn demand(ir: &Ir, tables: &[Table], untabled: &[bool]) -> Demand {
        let n = ir.relations.len();
        let restrictable: Vec<bool> = (0..n)
            .map(|r| ir.relations[r].keyword.is_none() && (!tables[r].is_static || untabled[r]))
            .collect();
        let table_columns = |r: usize, c: usize| {
            let table = &tables[r];
            (table.is_static && !untabled[r])
                .then(|| table.tuples.iter().map(|tuple| tuple[c]).collect())
        };
        Demand::compute(ir, &restrictable, &table_columns)
    }

    /// Grounds the static relations without a compile-time table (`untabled`) from
    /// their rules (`specs`), to the atoms asked for, and returns `tables` with theirs
    /// filled in as compile-time tables. Their rules read only static relations; a
    /// negation of one of them cannot be decided while it grows, so it is refused.
    fn ground_untabled(
        ir: &'a Ir,
        limits: Limits,
        mut tables: Vec<Table>,
        untabled: &[bool],
        specs: Vec<RuleSpec>,
    ) -> Result<Vec<Table>, String> {
        for spec in &specs {
            for literal in &spec.body {
                if let FlatLiteral::Neg(atom) = literal
                    && untabled[atom.relation.0 as usize]
                {
                    return Err(format!(
                        "the static relation `{}` has no compile-time table",
                        ir.relation(atom.relation).key()
                    ));
                }
            }
        }
        for (r, table) in tables.iter_mut().enumerate() {
            if untabled[r] {
                table.is_static = false;
            }
        }
        let rules = specs
            .iter()
            .map(|spec| order_rule(ir, &tables, spec))
            .collect::<Result<Vec<_>, _>>()?;
        ensure_indexes(&rules, &mut tables);
        // Static rules read neither `true` nor `does`: the keyword relations play no part.
        let mut grounder = Grounder::with(ir, limits, tables, rules, false, Vec::new());
        grounder.fixpoint()?;
        let mut tables = grounder.tables;
        for (r, table) in tables.iter_mut().enumerate() {
            if untabled[r] {
                table.is_static = true;
            }
        }
        Ok(tables)
    }

    /// A tuple of `from` as a tuple of `to` (same terms, `to`'s columns).
    fn convert(
        &self,
        from: RelationId,
        to: RelationId,
        tuple: &[SymbolId],
    ) -> Result<Vec<SymbolId>, String> {
        let terms = self.ir.decode(from, tuple).ok_or_else(|| {
            format!(
                "a tuple of `{}` does not decode",
                self.ir.relation(from).key()
            )
        })?;
        self.ir.encode(to, &terms).ok_or_else(|| {
            format!(
                "a tuple of `{}` does not fit the columns of `{}`",
                self.ir.relation(from).key(),
                self.ir.relation(to).key()
            )
        })
    }

    /// Semi-naive evaluation of the relaxed game to its fixpoint.
    fn fixpoint(&mut self) -> Result<(), String> {
        let n = self.tables.len();
        let mut old = vec![0u32; n];
        let mut first = true;
        loop {
            let end: Vec<u32> = self.tables.iter().map(|t| t.tuples.len() as u32).collect();
            for r in 0..self.rules.len() {
                if first {
                    self.run_rule(r, None, &old, &end)?;
                    continue;
                }
                for k in 0..self.rules[r].pivots.len() {
                    let grown = self.rules[r].pivots[k].relation.0 as usize;
                    if old[grown] < end[grown] {
                        self.run_rule(r, Some(k), &old, &end)?;
                    }
                }
            }
            first = false;
            let grew = self.absorb()?;
            if !grew {
                return Ok(());
            }
            old = end;
        }
    }

    /// Adds the heads found this round (and the fluents and moves they make) to the
    /// tables; whether any table grew.
    fn absorb(&mut self) -> Result<bool, String> {
        let mut grew = false;
        let heads: Vec<(RelationId, Vec<SymbolId>)> = self.found[self.round_start..]
            .iter()
            .map(|f| f.head.clone())
            .collect();
        self.round_start = self.found.len();
        if !self.instances {
            self.found.clear();
            self.round_start = 0;
        }
        for (relation, tuple) in heads {
            if self.tables[relation.0 as usize].insert(tuple.clone()) {
                grew = true;
                let input = if Some(relation) == self.next_rel {
                    self.true_rel
                } else if Some(relation) == self.legal_rel {
                    self.does_rel
                } else {
                    None
                };
                if let Some(input) = input {
                    let converted = self.convert(relation, input, &tuple)?;
                    self.tables[input.0 as usize].insert(converted);
                }
            }
        }
        let atoms: usize = self
            .tables
            .iter()
            .filter(|t| !t.is_static)
            .map(|t| t.tuples.len())
            .sum();
        if atoms > self.limits.atoms {
            return Err(format!(
                "more than {} reachable atoms (the largest relation: {})",
                self.limits.atoms,
                self.largest()
            ));
        }
        Ok(grew)
    }

    fn largest(&self) -> String {
        let (r, table) = self
            .tables
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_static)
            .max_by_key(|(_, t)| t.tuples.len())
            .expect("a relation");
        let name = match self.ir.relations.get(r) {
            Some(relation) => relation.key(),
            None => format!(
                "a projection of a rule body ({})",
                r - self.ir.relations.len()
            ),
        };
        format!("`{name}`, {} atoms", table.tuples.len())
    }

    /// Joins rule `r`: with `pivot` (an index into its `pivots`), that order's first
    /// literal reads the last round's new tuples, the body's literals before it the
    /// older ones and those after it both; without, every literal reads everything.
    fn run_rule(
        &mut self,
        r: usize,
        pivot: Option<usize>,
        old: &[u32],
        end: &[u32],
    ) -> Result<(), String> {
        let rule = &self.rules[r];
        let mut bindings = vec![UNBOUND; rule.num_vars];
        let (order, pivot) = match pivot {
            None => (&rule.steps, None),
            Some(k) => (&rule.pivots[k].order, Some(rule.pivots[k].literal)),
        };
        let mut join = Join {
            tables: &self.tables,
            rule,
            order,
            pivot,
            old,
            end,
            steps: self.steps,
            limits: &self.limits,
            found: &mut self.found,
            instances: self.instances,
            literals: self.literals,
            pos: Vec::new(),
            neg: Vec::new(),
        };
        let result = join.step(0, &mut bindings);
        self.steps = join.steps;
        self.literals = join.literals;
        result
    }

    /// Resolves the derivations into atoms and instances.
    fn finish(self) -> Result<Grounding, String> {
        let mut relation_atoms = Vec::with_capacity(self.tables.len());
        let mut atoms = Vec::new();
        for (r, table) in self.tables.iter().enumerate() {
            let start = atoms.len() as AtomId;
            if !table.is_static {
                for tuple in &table.tuples {
                    atoms.push(Atom {
                        relation: RelationId(r as u32),
                        tuple: tuple.clone(),
                    });
                }
            }
            relation_atoms.push(start..atoms.len() as AtomId);
        }
        let atom_of =
            |relation: RelationId, local: u32| relation_atoms[relation.0 as usize].start + local;
        let mut instances = Vec::new();
        for found in &self.found {
            let (head_rel, head_tuple) = &found.head;
            let head_local = self.tables[head_rel.0 as usize].ids[head_tuple];
            let mut body: Vec<Literal> = found
                .pos
                .iter()
                .map(|&(relation, local)| Literal::Pos(atom_of(relation, local)))
                .collect();
            for (relation, tuple) in &found.neg {
                if let Some(&local) = self.tables[relation.0 as usize].ids.get(tuple) {
                    body.push(Literal::Neg(atom_of(*relation, local)));
                }
            }
            if !normalize_body(&mut body) {
                continue;
            }
            instances.push(Instance {
                rule: found.rule,
                head: atom_of(*head_rel, head_local),
                body,
            });
        }
        if !self.aux_phases.is_empty() {
            // The auxiliary relations' atoms are the last ranges.
            let base = self.ir.relations.len();
            let mut aux: Vec<Option<usize>> = vec![None; atoms.len()];
            for k in 0..self.aux_phases.len() {
                for a in relation_atoms[base + k].clone() {
                    aux[a as usize] = Some(k);
                }
            }
            instances = inline_unprofitable(
                instances,
                &aux,
                self.aux_phases.len(),
                self.limits.instances,
            )?;
            let literals: usize = instances.iter().map(|i| i.body.len()).sum();
            if instances.len() > self.limits.instances || literals > self.limits.literals {
                return Err(format!(
                    "more than {} rule instances or {} ground literals",
                    self.limits.instances, self.limits.literals
                ));
            }
        }
        instances.sort_by(|a, b| (a.head, &a.body, a.rule).cmp(&(b.head, &b.body, b.rule)));
        instances.dedup_by(|a, b| a.head == b.head && a.body == b.body);
        let mut input_of = vec![None; atoms.len()];
        for (from, to) in [
            (self.next_rel, self.true_rel),
            (self.legal_rel, self.does_rel),
        ] {
            let (Some(from), Some(to)) = (from, to) else {
                continue;
            };
            for (local, tuple) in self.tables[from.0 as usize].tuples.iter().enumerate() {
                let converted = self.convert(from, to, tuple)?;
                let target = self.tables[to.0 as usize].ids[&converted];
                input_of[atom_of(from, local as u32) as usize] = Some(atom_of(to, target));
            }
        }
        let mut init = Vec::new();
        if let (Some(init_rel), Some(true_rel)) = (self.ir.keyword(Keyword::Init), self.true_rel) {
            for tuple in &self.tables[init_rel.0 as usize].tuples {
                let converted = self.convert(init_rel, true_rel, tuple)?;
                init.push(atom_of(
                    true_rel,
                    self.tables[true_rel.0 as usize].ids[&converted],
                ));
            }
        }
        init.sort_unstable();
        init.dedup();
        Ok(Grounding {
            atoms,
            relation_atoms,
            instances,
            input_of,
            init,
            aux_phases: self.aux_phases,
            shared_relations: 0,
        })
    }
}

/// Sorts an instance body and drops repeated literals; false when it holds an atom and
/// its negation (the instance never holds).
fn normalize_body(body: &mut Vec<Literal>) -> bool {
    body.sort_unstable();
    body.dedup();
    !body
        .iter()
        .any(|l| matches!(l, Literal::Neg(a) if body.contains(&Literal::Pos(*a))))
}

/// Undoes the projections that do not pay (`aux[a]`: the auxiliary relation of atom
/// `a`, if any, of `count`): a projection is kept when its instances and the literals
/// reading it hold fewer literals than the instances would with each reading literal
/// replaced by each of the auxiliary atom's bodies; otherwise it is replaced so. Fails
/// past `max` instances (alternatives of several inlined literals multiply).
fn inline_unprofitable(
    instances: Vec<Instance>,
    aux: &[Option<usize>],
    count: usize,
    max: usize,
) -> Result<Vec<Instance>, String> {
    let mut bodies: HashMap<AtomId, Vec<usize>> = HashMap::default();
    for (i, instance) in instances.iter().enumerate() {
        if aux[instance.head as usize].is_some() {
            bodies.entry(instance.head).or_default().push(i);
        }
    }
    let mut with = vec![0usize; count];
    let mut without = vec![0usize; count];
    for instance in &instances {
        if let Some(k) = aux[instance.head as usize] {
            with[k] += instance.body.len() + 1;
            continue;
        }
        for literal in &instance.body {
            let Literal::Pos(a) = *literal else { continue };
            let Some(k) = aux[a as usize] else { continue };
            with[k] += 1;
            for &i in bodies.get(&a).map_or(&[][..], |v| v) {
                without[k] += instance.body.len() + instances[i].body.len();
            }
        }
    }
    let inline: Vec<bool> = (0..count).map(|k| without[k] <= with[k]).collect();
    let inlined = |a: AtomId| aux[a as usize].is_some_and(|k| inline[k]);
    let mut out = Vec::with_capacity(instances.len());
    for instance in &instances {
        if inlined(instance.head) {
            continue;
        }
        // The cross product of the alternatives of every inlined literal.
        let mut partial: Vec<Vec<Literal>> = vec![Vec::new()];
        for &literal in &instance.body {
            match literal {
                Literal::Pos(a) if inlined(a) => {
                    let alternatives = bodies.get(&a).map_or(&[][..], |v| v);
                    if out.len() + partial.len() * alternatives.len() > max {
                        return Err(format!(
                            "more than {max} rule instances (undoing a projection)"
                        ));
                    }
                    let mut expanded = Vec::with_capacity(partial.len() * alternatives.len());
                    for body in &partial {
                        for &i in alternatives {
                            let mut body = body.clone();
                            body.extend_from_slice(&instances[i].body);
                            expanded.push(body);
                        }
                    }
                    partial = expanded;
                }
                _ => partial.iter_mut().for_each(|body| body.push(literal)),
            }
        }
        for mut body in partial {
            if !normalize_body(&mut body) {
                continue;
            }
            out.push(Instance {
                rule: instance.rule,
                head: instance.head,
                body,
            });
        }
    }
    Ok(out)
}

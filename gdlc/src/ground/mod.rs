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
//! instances; projections that do not save literals are undone once the instances are
//! known. [`Grounding::evaluation_order`] gives the strongly connected components of the
//! ground dependencies; [`simplify`] runs last ([`ground_unsimplified`] is the grounding
//! before it).

pub mod demand;
pub mod exec;
pub mod share;
pub mod simplify;

use rustc_hash::FxHashMap as HashMap;

use petgraph::graph::{DiGraph, NodeIndex};

use crate::ir::{Arg, FlatAtom, FlatLiteral, Ir, Keyword, Phase, RelationId, SymbolId};
use crate::plan::{Evaluation, Plan};

use demand::Demand;

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

/// One rule's join, reading the tables and recording derivations.
struct Join<'g> {
    tables: &'g [Table],
    rule: &'g RulePlan,
    /// The body in the order joined.
    order: &'g [Step],
    /// The body index of the literal that reads only the last round's new tuples.
    pivot: Option<usize>,
    old: &'g [u32],
    end: &'g [u32],
    steps: u64,
    literals: usize,
    limits: &'g Limits,
    found: &'g mut Vec<Found>,
    /// Whether bodies are kept; if not, only heads not in the tables yet are recorded.
    instances: bool,
    pos: Vec<(RelationId, u32)>,
    neg: Vec<(RelationId, Vec<SymbolId>)>,
}

impl Join<'_> {
    fn value(bindings: &[SymbolId], arg: Arg) -> SymbolId {
        match arg {
            Arg::Sym(s) => s,
            Arg::Var(v) => bindings[v.0 as usize],
        }
    }

    fn step(&mut self, i: usize, bindings: &mut Vec<SymbolId>) -> Result<(), String> {
        let Some(step) = self.order.get(i) else {
            return self.accept(bindings);
        };
        match step {
            Step::Pos {
                literal,
                relation,
                args,
                bound,
            } => self.positive(i, *literal, *relation, args, bound, bindings),
            Step::Neg { relation, args } => {
                let tuple: Vec<SymbolId> = args.iter().map(|&a| Self::value(bindings, a)).collect();
                let table = &self.tables[relation.0 as usize];
                if table.is_static {
                    if table.ids.contains_key(&tuple) {
                        return Ok(());
                    }
                    return self.step(i + 1, bindings);
                }
                self.neg.push((*relation, tuple));
                let result = self.step(i + 1, bindings);
                self.neg.pop();
                result
            }
            Step::Distinct(pairs) => {
                let differs = pairs
                    .iter()
                    .any(|&(a, b)| Self::value(bindings, a) != Self::value(bindings, b));
                if differs {
                    self.step(i + 1, bindings)
                } else {
                    Ok(())
                }
            }
            Step::Member(var, values) => {
                if values.binary_search(&bindings[*var as usize]).is_ok() {
                    self.step(i + 1, bindings)
                } else {
                    Ok(())
                }
            }
            Step::Equal(pairs) => {
                let mut newly = Vec::new();
                let mut holds = true;
                for &(a, b) in pairs {
                    let (va, vb) = (Self::value(bindings, a), Self::value(bindings, b));
                    match (va == UNBOUND, vb == UNBOUND, a, b) {
                        (true, false, Arg::Var(v), _) => {
                            bindings[v.0 as usize] = vb;
                            newly.push(v);
                        }
                        (false, true, _, Arg::Var(v)) => {
                            bindings[v.0 as usize] = va;
                            newly.push(v);
                        }
                        (true, true, _, _) => {
                            return Err("an equality between two unbound variables".into());
                        }
                        _ => holds &= va == vb,
                    }
                }
                let result = if holds {
                    self.step(i + 1, bindings)
                } else {
                    Ok(())
                };
                for v in newly {
                    bindings[v.0 as usize] = UNBOUND;
                }
                result
            }
        }
    }

    fn positive(
        &mut self,
        i: usize,
        literal: usize,
        relation: RelationId,
        args: &[Arg],
        bound: &[usize],
        bindings: &mut Vec<SymbolId>,
    ) -> Result<(), String> {
        let r = relation.0 as usize;
        let table = &self.tables[r];
        let (lo, hi) = if table.is_static {
            (0, table.tuples.len() as u32)
        } else {
            match self.pivot {
                None => (0, self.end[r]),
                Some(p) if literal < p => (0, self.old[r]),
                Some(p) if literal == p => (self.old[r], self.end[r]),
                Some(_) => (0, self.end[r]),
            }
        };
        if lo >= hi {
            return Ok(());
        }
        let key: Vec<SymbolId> = bound
            .iter()
            .map(|&c| Self::value(bindings, args[c]))
            .collect();
        let ids: &[u32] = if bound.is_empty() {
            &[]
        } else {
            match table.indexes.get(bound).and_then(|index| index.get(&key)) {
                Some(ids) => ids,
                None => return Ok(()),
            }
        };
        let candidates: Box<dyn Iterator<Item = u32>> = if bound.is_empty() {
            Box::new(lo..hi)
        } else {
            let start = ids.partition_point(|&id| id < lo);
            Box::new(ids[start..].iter().copied().take_while(|&id| id < hi))
        };
        let mut newly = Vec::with_capacity(args.len());
        for id in candidates {
            self.steps += 1;
            if self.steps > self.limits.steps {
                return Err(format!(
                    "more than {} join steps (in the rule for `{}`)",
                    self.limits.steps, self.rule.head_key
                ));
            }
            let tuple = &self.tables[r].tuples[id as usize];
            let mut matches = true;
            for (c, &arg) in args.iter().enumerate() {
                let value = tuple[c];
                match arg {
                    Arg::Sym(s) => matches &= s == value,
                    Arg::Var(v) => {
                        let slot = &mut bindings[v.0 as usize];
                        if *slot == UNBOUND {
                            *slot = value;
                            newly.push(v);
                        } else {
                            matches &= *slot == value;
                        }
                    }
                }
                if !matches {
                    break;
                }
            }
            let result = if matches {
                let dynamic = !self.tables[r].is_static;
                if dynamic {
                    self.pos.push((relation, id));
                }
                let result = self.step(i + 1, bindings);
                if dynamic {
                    self.pos.pop();
                }
                result
            } else {
                Ok(())
            };
            for v in newly.drain(..) {
                bindings[v.0 as usize] = UNBOUND;
            }
            result?;
        }
        Ok(())
    }

    fn accept(&mut self, bindings: &[SymbolId]) -> Result<(), String> {
        let (relation, args) = &self.rule.head;
        let tuple: Vec<SymbolId> = args.iter().map(|&a| Self::value(bindings, a)).collect();
        if tuple.contains(&UNBOUND) {
            return Err(format!(
                "rule {} has an unbound head variable",
                self.rule.rule
            ));
        }
        if !self.instances {
            if !self.tables[relation.0 as usize].ids.contains_key(&tuple) {
                // A round can find millions of new atoms: the limit holds within it.
                if self.found.len() >= self.limits.atoms {
                    return Err(format!(
                        "more than {} reachable atoms (found in one round, the last in the rule for `{}`)",
                        self.limits.atoms, self.rule.head_key
                    ));
                }
                self.found.push(Found {
                    rule: self.rule.rule,
                    head: (*relation, tuple),
                    pos: Vec::new(),
                    neg: Vec::new(),
                });
            }
            return Ok(());
        }
        self.literals += self.pos.len() + self.neg.len();
        if self.found.len() > self.limits.instances || self.literals > self.limits.literals {
            return Err(format!(
                "more than {} rule instances or {} ground literals (the last in the rule for `{}`)",
                self.limits.instances, self.limits.literals, self.rule.head_key
            ));
        }
        self.found.push(Found {
            rule: self.rule.rule,
            head: (*relation, tuple),
            pos: self.pos.clone(),
            neg: self.neg.clone(),
        });
        Ok(())
    }
}

/// Orders a rule's body for joining: repeatedly the positive literal with the most
/// bound columns (static relations first on ties), every test as soon as its
/// variables are bound.
fn order_rule(ir: &Ir, tables: &[Table], rule: &RuleSpec) -> Result<RulePlan, String> {
    let index = rule.rule;
    let steps = order_body(ir, tables, rule, None)?;
    let mut pivots = Vec::new();
    for (literal, body_literal) in rule.body.iter().enumerate() {
        if let FlatLiteral::Pos(atom) = body_literal
            && !tables[atom.relation.0 as usize].is_static
        {
            pivots.push(Pivot {
                literal,
                relation: atom.relation,
                order: order_body(ir, tables, rule, Some(literal))?,
            });
        }
    }
    Ok(RulePlan {
        rule: index,
        head_key: ir.relation(ir.rules[index].head.relation).key(),
        head: (rule.head.relation, rule.head.args.clone()),
        steps,
        pivots,
        num_vars: rule.num_vars,
    })
}

/// A rule's body in join order (see [`order_rule`]), from the body's `first`-th
/// literal (a positive one) when given.
fn order_body(
    ir: &Ir,
    tables: &[Table],
    rule: &RuleSpec,
    first: Option<usize>,
) -> Result<Vec<Step>, String> {
    let span = ir.rules[rule.rule].span;
    let mut bound = vec![false; rule.num_vars];
    let is_bound = |bound: &[bool], arg: &Arg| match arg {
        Arg::Sym(_) => true,
        Arg::Var(v) => bound[v.0 as usize],
    };
    let mut positives: Vec<(usize, &crate::ir::FlatAtom)> = Vec::new();
    let mut tests: Vec<&FlatLiteral> = Vec::new();
    for (k, literal) in rule.body.iter().enumerate() {
        match literal {
            FlatLiteral::Pos(atom) => positives.push((k, atom)),
            other => tests.push(other),
        }
    }
    let mut steps = Vec::new();
    let place_tests =
        |bound: &mut Vec<bool>, tests: &mut Vec<&FlatLiteral>, steps: &mut Vec<Step>| {
            loop {
                let ready = tests.iter().position(|t| match t {
                    FlatLiteral::Neg(atom) => atom.args.iter().all(|a| is_bound(bound, a)),
                    FlatLiteral::Distinct(pairs) => pairs
                        .iter()
                        .all(|(a, b)| is_bound(bound, a) && is_bound(bound, b)),
                    FlatLiteral::Equal(pairs) => pairs
                        .iter()
                        .all(|(a, b)| is_bound(bound, a) || is_bound(bound, b)),
                    FlatLiteral::Pos(_) => false,
                });
                let Some(t) = ready else { break };
                match tests.remove(t) {
                    FlatLiteral::Neg(atom) => steps.push(Step::Neg {
                        relation: atom.relation,
                        args: atom.args.clone(),
                    }),
                    FlatLiteral::Distinct(pairs) => steps.push(Step::Distinct(pairs.clone())),
                    FlatLiteral::Equal(pairs) => {
                        for (a, b) in pairs {
                            for arg in [a, b] {
                                if let Arg::Var(v) = arg {
                                    bound[v.0 as usize] = true;
                                }
                            }
                        }
                        steps.push(Step::Equal(pairs.clone()));
                    }
                    FlatLiteral::Pos(_) => unreachable!("tests hold no positive literal"),
                }
            }
        };
    let mut members: Vec<&(u32, Vec<SymbolId>)> = rule.members.iter().collect();
    let place_members =
        |bound: &[bool], members: &mut Vec<&(u32, Vec<SymbolId>)>, steps: &mut Vec<Step>| {
            members.retain(|&(var, values)| {
                if bound[*var as usize] {
                    steps.push(Step::Member(*var, values.clone()));
                    false
                } else {
                    true
                }
            });
        };
    place_tests(&mut bound, &mut tests, &mut steps);
    place_members(&bound, &mut members, &mut steps);
    while !positives.is_empty() {
        let best = (0..positives.len())
            .max_by_key(|&i| {
                let (k, atom) = positives[i];
                let known = atom.args.iter().filter(|a| is_bound(&bound, a)).count();
                let all = known == atom.args.len();
                let is_static = tables[atom.relation.0 as usize].is_static;
                (
                    Some(k) == first,
                    all,
                    known > 0 && is_static,
                    known,
                    is_static,
                    std::cmp::Reverse(i),
                )
            })
            .expect("a positive literal");
        let (literal, atom) = positives.remove(best);
        let known: Vec<usize> = (0..atom.args.len())
            .filter(|&c| is_bound(&bound, &atom.args[c]))
            .collect();
        for arg in &atom.args {
            if let Arg::Var(v) = arg {
                bound[v.0 as usize] = true;
            }
        }
        steps.push(Step::Pos {
            literal,
            relation: atom.relation,
            args: atom.args.clone(),
            bound: known,
        });
        place_tests(&mut bound, &mut tests, &mut steps);
        place_members(&bound, &mut members, &mut steps);
    }
    if !tests.is_empty() || !members.is_empty() {
        return Err(format!(
            "a test of the rule at {}..{} has a variable no positive literal binds",
            span.start, span.end
        ));
    }
    Ok(steps)
}

/// A rule to order: one of the IR's, or a part of one after projection.
struct RuleSpec {
    /// The IR rule it comes from.
    rule: usize,
    head: FlatAtom,
    body: Vec<FlatLiteral>,
    num_vars: usize,
    /// Variables of the head whose values are restricted to those asked for (see
    /// [`demand`]), each with the values, sorted.
    members: Vec<(u32, Vec<SymbolId>)>,
}

impl RuleSpec {
    /// IR rule `index` restricted to the heads asked for, or `None` when it has none.
    fn asked(ir: &Ir, index: usize, demand: &Demand) -> Option<RuleSpec> {
        let rule = &ir.rules[index];
        let r = rule.head.relation.0 as usize;
        if demand.none_asked(r) {
            return None;
        }
        let mut members: Vec<(u32, Vec<SymbolId>)> = Vec::new();
        for (c, arg) in rule.head.args.iter().enumerate() {
            let Some(values) = demand.column(r, c) else {
                continue;
            };
            match *arg {
                Arg::Sym(s) if !values.contains(&s) => return None,
                Arg::Sym(_) => {}
                Arg::Var(v) => members.push((v.0, values.iter().copied().collect())),
            }
        }
        Some(RuleSpec {
            rule: index,
            head: rule.head.clone(),
            body: rule.body.clone(),
            num_vars: rule.vars.len(),
            members,
        })
    }
}

/// The variables of a body literal.
fn literal_vars(literal: &FlatLiteral) -> Vec<u32> {
    let args: Vec<&Arg> = match literal {
        FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) => atom.args.iter().collect(),
        FlatLiteral::Distinct(pairs) | FlatLiteral::Equal(pairs) => {
            pairs.iter().flat_map(|(a, b)| [a, b]).collect()
        }
    };
    args.into_iter()
        .filter_map(|a| match a {
            Arg::Var(v) => Some(v.0),
            Arg::Sym(_) => None,
        })
        .collect()
}

/// A rule with its existential components projected (see [`ground`]): the body's
/// literals connected by variables the head does not have form components; each
/// component that reads a state- or move-dependent relation, binds its head variables
/// with its own positive literals and leaves other literals in the body becomes an
/// auxiliary relation over those head variables (`aux_phases` grows by one per
/// component). Returns the auxiliary rules, then the rule reading them; the rule alone
/// when nothing is projected.
fn project_rule(
    ir: &Ir,
    tables: &[Table],
    rule: RuleSpec,
    aux_phases: &mut Vec<Phase>,
) -> Vec<RuleSpec> {
    let mut head_vars = vec![false; rule.num_vars];
    for v in literal_vars(&FlatLiteral::Pos(rule.head.clone())) {
        head_vars[v as usize] = true;
    }
    // Union-find over literals joined by a shared non-head variable.
    let n = rule.body.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut owner: Vec<Option<usize>> = vec![None; rule.num_vars];
    for (i, literal) in rule.body.iter().enumerate() {
        for v in literal_vars(literal) {
            if head_vars[v as usize] {
                continue;
            }
            match owner[v as usize] {
                Some(j) => {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    parent[a] = b;
                }
                None => owner[v as usize] = Some(i),
            }
        }
    }
    let mut components: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for i in 0..n {
        let r = root(&mut parent, i);
        components.entry(r).or_default().push(i);
    }
    let phase_of = |r: RelationId| ir.layers[ir.layer_of[r.0 as usize]].phase;
    let mut projected = vec![false; n];
    let mut out = Vec::new();
    let mut main_body = Vec::new();
    for members in components.values() {
        if members.len() == n {
            break;
        }
        let vars: Vec<u32> = members
            .iter()
            .flat_map(|&i| literal_vars(&rule.body[i]))
            .collect();
        if vars.iter().all(|&v| head_vars[v as usize]) {
            continue;
        }
        let mut phase = Phase::Static;
        let mut dynamic = false;
        let mut positive_vars = vec![false; rule.num_vars];
        for &i in members {
            if let FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) = &rule.body[i] {
                let r = atom.relation.0 as usize;
                if r < ir.relations.len() && !tables[r].is_static {
                    dynamic = true;
                    phase = phase.max(phase_of(atom.relation));
                }
            }
            if let FlatLiteral::Pos(_) = &rule.body[i] {
                for v in literal_vars(&rule.body[i]) {
                    positive_vars[v as usize] = true;
                }
            }
        }
        let mut interface: Vec<u32> = vars
            .iter()
            .copied()
            .filter(|&v| head_vars[v as usize])
            .collect();
        interface.sort_unstable();
        interface.dedup();
        if !dynamic || interface.iter().any(|&v| !positive_vars[v as usize]) {
            continue;
        }
        let aux = RelationId((ir.relations.len() + aux_phases.len()) as u32);
        aux_phases.push(phase);
        let aux_atom = FlatAtom {
            relation: aux,
            args: interface
                .iter()
                .map(|&v| Arg::Var(crate::ir::VarId(v)))
                .collect(),
        };
        out.push(RuleSpec {
            rule: rule.rule,
            head: aux_atom.clone(),
            body: members.iter().map(|&i| rule.body[i].clone()).collect(),
            num_vars: rule.num_vars,
            members: Vec::new(),
        });
        main_body.push(FlatLiteral::Pos(aux_atom));
        for &i in members {
            projected[i] = true;
        }
    }
    if out.is_empty() {
        return vec![rule];
    }
    for (i, literal) in rule.body.iter().enumerate() {
        if !projected[i] {
            main_body.push(literal.clone());
        }
    }
    out.push(RuleSpec {
        body: main_body,
        ..rule
    });
    out
}

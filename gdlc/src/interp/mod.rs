//! The reference interpreter: evaluates the normalised rules of any valid game and
//! implements [`gdlc_runtime::Game`], GDL-II included.
//!
//! It is the oracle every compiled reasoner is checked against, so it is written to be
//! obviously correct first:
//! - ground terms are hash-consed (`terms`); relations are sets of tuples with indexes
//!   on the columns queries bind (`relation`);
//! - evaluation is demand-driven (`eval`): a query computes only the answers it
//!   asks for, memoised per call; recursive components are materialised bottom-up;
//! - results are kept by what they depend on: *static* ones (neither `true` nor
//!   `does`) for the interpreter's lifetime, *state* ones until the state changes,
//!   *move* ones until the state or joint move changes — so a playout step computes
//!   legal, terminal and next from one state.
//!
//! `random` (GDL-II) is an ordinary role; `sees` is computed like `next`. Legal moves
//! and percepts are listed in canonical KIF text order (the runtime contract asks for
//! an order that depends on the state alone; text order is the spelling's own).

mod eval;
mod order;
mod program;
mod relation;
mod terms;

use std::collections::HashMap;

use gdlc_runtime::{Game, GoalError, RoleIndex, StateError};

use crate::FrontEnd;
use crate::diagnostic::{Code, Diagnostic};
use crate::normalize::deps::DependencyGraph;
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::Term;
use crate::syntax::{self, SExpr};
use eval::Db;
use program::{CompiledRule, Pat, Phase, Program, RelationInfo, Sample, Step};
pub use terms::TermId;
use terms::TermStore;

/// A state of the interpreter: its true fluents, sorted by id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    fluents: Vec<TermId>,
}

/// Indices of the relations the interpreter queries.
#[derive(Clone, Copy, Debug)]
struct Entry {
    true_rel: Option<usize>,
    does_rel: Option<usize>,
    legal: Option<usize>,
    next: Option<usize>,
    terminal: Option<usize>,
    goal: Option<usize>,
    sees: Option<usize>,
}

/// The reference interpreter of one game.
#[derive(Clone, Debug)]
pub struct Interpreter {
    program: Program,
    db: Db,
    entry: Entry,
    role_names: Vec<String>,
    role_terms: Vec<TermId>,
    initial: State,
    current_state: Option<State>,
    current_joint: Option<Vec<TermId>>,
    text_cache: HashMap<TermId, String>,
    scratch: Vec<TermId>,
}

impl Interpreter {
    /// An interpreter for a checked game; fails if the front end reported errors.
    pub fn new(front: &FrontEnd) -> Result<Self, Diagnostic> {
        if !front.is_valid() {
            return Err(Diagnostic::error(
                Code::Structure,
                "the game description is not valid GDL",
            ));
        }
        Ok(Self::from_rules(&front.rules))
    }

    /// An interpreter for normalised rules that passed the checker.
    pub fn from_rules(rules: &[Rule]) -> Self {
        let graph = DependencyGraph::build(rules);
        let mut store = TermStore::default();
        let find = |name: &str, arity: usize| graph.relation(name, arity);
        let entry = Entry {
            true_rel: find("true", 1),
            does_rel: find("does", 2),
            legal: find("legal", 2),
            next: find("next", 1),
            terminal: find("terminal", 0),
            goal: find("goal", 2),
            sees: find("sees", 2),
        };
        let mut relations = Vec::with_capacity(graph.relations.len());
        for (rel, key) in graph.relations.iter().enumerate() {
            let cone = graph.cone(rel);
            let phase = if entry.does_rel.is_some_and(|d| cone.contains(&d)) {
                Phase::Move
            } else if entry.true_rel.is_some_and(|t| cone.contains(&t)) {
                Phase::State
            } else {
                Phase::Static
            };
            relations.push(RelationInfo {
                arity: key.arity,
                phase,
                stored: Some(rel) == entry.true_rel || Some(rel) == entry.does_rel,
                rules: Vec::new(),
                groundable: true,
                sample: Sample::Derived,
            });
        }
        let mut compiled = Vec::with_capacity(rules.len());
        let mut head_of = Vec::with_capacity(rules.len());
        for rule in rules {
            let Some(head_rel) = graph.relation(&rule.head.name.text, rule.head.args.len()) else {
                continue;
            };
            relations[head_rel].rules.push(compiled.len());
            head_of.push(head_rel);
            compiled.push(compile_rule(rule, head_rel, &graph, &mut store));
        }
        mark_groundable(&mut relations, &compiled);
        set_samples(&mut relations, &compiled, &entry);
        if let Some(d) = entry.does_rel {
            let roles = rules
                .iter()
                .filter(|r| r.head.is("role", 1) && r.body.is_empty())
                .count();
            relations[d].sample = Sample::Moves(roles.max(1));
        }
        let mut program = Program {
            rules: compiled,
            relations,
            head_of,
            component_of: graph.component_of.clone(),
        };
        let mut db = Db::new(&program, store);

        // Roles in description order: the `role` facts as written.
        let mut role_terms = Vec::new();
        let mut role_names = Vec::new();
        for rule in rules {
            if rule.head.is("role", 1)
                && rule.body.is_empty()
                && let Some(term) = ground_term(&mut db.store, &rule.head.args[0])
                && !role_terms.contains(&term)
            {
                role_terms.push(term);
                role_names.push(db.store.render(term));
            }
        }
        let mut initial = Vec::new();
        if let Some(init) = graph.relation("init", 1) {
            db.query(&program, init, 0, &[], &mut initial);
        }
        initial.sort_unstable();
        initial.dedup();
        // Bodies that read `true` are ordered with the initial state as its sample,
        // whether `init` is written as facts or derived by rules (no rule reading
        // `true` has been ordered yet: `init` cannot depend on it).
        if let Some(t) = entry.true_rel {
            let fluents = initial.iter().map(|&f| Box::from([f])).collect();
            program.relations[t].sample = Sample::Tuples(order::thinned(fluents));
        }
        Interpreter {
            program,
            db,
            entry,
            role_names,
            role_terms,
            initial: State { fluents: initial },
            current_state: None,
            current_joint: None,
            text_cache: HashMap::new(),
            scratch: Vec::new(),
        }
    }

    /// The tuples matched against body literals since the interpreter was made: its work,
    /// counted the same on every machine.
    pub fn work(&self) -> u64 {
        self.db.tuples_tried
    }

    /// Memo tables kept (over every relation and phase), and the answers in them: what
    /// the interpreter's memory grows with.
    pub fn table_sizes(&self) -> (usize, usize) {
        self.db.table_sizes()
    }

    /// Makes `state` the current state (forgetting state and move results if it changed).
    fn load_state(&mut self, state: &State) {
        if self.current_state.as_ref() == Some(state) {
            return;
        }
        self.db.forget(&self.program, &[Phase::State, Phase::Move]);
        if let Some(t) = self.entry.true_rel {
            let relation = &mut self.db.stored[t];
            for &fluent in &state.fluents {
                relation.insert(&[fluent]);
            }
        }
        self.current_state = Some(state.clone());
        self.current_joint = None;
    }

    /// Makes `joint` the current joint move in the current state.
    fn load_joint(&mut self, joint: &[TermId]) {
        if self.current_joint.as_deref() == Some(joint) {
            return;
        }
        self.db.forget(&self.program, &[Phase::Move]);
        if let Some(d) = self.entry.does_rel {
            let relation = &mut self.db.stored[d];
            for (role, &mv) in self.role_terms.iter().zip(joint) {
                relation.insert(&[*role, mv]);
            }
        }
        self.current_joint = Some(joint.to_vec());
    }

    /// The tuples of `rel` (flat) whose first column is `first`, or all of them.
    fn query(&mut self, rel: Option<usize>, first: Option<TermId>, out: &mut Vec<TermId>) {
        out.clear();
        if let Some(rel) = rel {
            match first {
                Some(term) => self
                    .db
                    .query(&self.program, rel, 1, &[term, TermId(u32::MAX)], out),
                None => self.db.query(&self.program, rel, 0, &[], out),
            }
        }
    }

    /// The second column of a binary relation's tuples whose first column is `role`'s
    /// term, in `out`.
    fn of_role(&mut self, rel: Option<usize>, role: RoleIndex, out: &mut Vec<TermId>) {
        let mut pairs = std::mem::take(&mut self.scratch);
        self.query(rel, Some(self.role_terms[role]), &mut pairs);
        out.clear();
        out.extend(pairs.chunks_exact(2).map(|pair| pair[1]));
        self.scratch = pairs;
    }

    /// Sorts terms by their canonical KIF text.
    fn sort_by_text(&mut self, terms: &mut [TermId]) {
        for &t in terms.iter() {
            if !self.text_cache.contains_key(&t) {
                self.text_cache.insert(t, self.db.store.render(t));
            }
        }
        let cache = &self.text_cache;
        terms.sort_by(|a, b| cache[a].cmp(&cache[b]));
    }

    /// Parses ground KIF text into an interned term.
    fn parse_ground(&mut self, text: &str) -> Result<TermId, gdlc_runtime::kif::KifError> {
        let canonical = gdlc_runtime::kif::canonical(text)?;
        let sexprs = syntax::read_sexprs(&canonical).ok();
        sexprs
            .as_deref()
            .and_then(|s| s.first())
            .and_then(|s| sexpr_term(&mut self.db.store, s))
            .ok_or_else(|| gdlc_runtime::kif::KifError {
                message: "not a ground term".into(),
                offset: 0,
                text: text.into(),
            })
    }
}

fn sexpr_term(store: &mut TermStore, sexpr: &SExpr) -> Option<TermId> {
    match sexpr {
        SExpr::Symbol(text, _) => Some(store.constant(&text.to_ascii_lowercase())),
        SExpr::Variable(..) => None,
        SExpr::List(items, _) => {
            let (SExpr::Symbol(functor, _), rest) = items.split_first()? else {
                return None;
            };
            let functor = store.symbol(&functor.to_ascii_lowercase());
            let args: Option<Vec<TermId>> =
                rest.iter().map(|item| sexpr_term(store, item)).collect();
            Some(store.intern(functor, &args?))
        }
    }
}

/// Interns a ground AST term; `None` if it has variables.
fn ground_term(store: &mut TermStore, term: &Term) -> Option<TermId> {
    match term {
        Term::Var(_) => None,
        Term::Const(name) => Some(store.constant(&name.text)),
        Term::Func { name, args, .. } => {
            let functor = store.symbol(&name.text);
            let args: Option<Vec<TermId>> = args.iter().map(|a| ground_term(store, a)).collect();
            Some(store.intern(functor, &args?))
        }
    }
}

/// Sets [`RelationInfo::groundable`]: false for a relation with a rule that leaves a
/// head variable unbound by its positive body literals or builds a compound term in its
/// head, or that calls such a relation (the greatest fixpoint, so that recursion alone
/// keeps it true). Answers of the others are made of terms written in the rules, so
/// their whole extension is finite and small enough to compute.
fn mark_groundable(relations: &mut [RelationInfo], rules: &[CompiledRule]) {
    let safe = |rule: &CompiledRule| {
        let mut bound = vec![false; rule.num_vars];
        for step in &rule.steps {
            if let Step::Scan { pats, .. } = step {
                pats.iter()
                    .for_each(|p| p.for_each_var(&mut |v| bound[v as usize] = true));
            }
        }
        let mut all = true;
        rule.head
            .iter()
            .for_each(|p| p.for_each_var(&mut |v| all &= bound[v as usize]));
        all && rule.head.iter().all(|p| !matches!(p, Pat::App(..)))
    };
    for info in relations.iter_mut() {
        info.groundable = info.stored || info.rules.iter().all(|&r| safe(&rules[r]));
    }
    loop {
        let mut changed = false;
        for rel in 0..relations.len() {
            if !relations[rel].groundable {
                continue;
            }
            let calls_unsafe = relations[rel].rules.iter().any(|&r| {
                rules[r].steps.iter().any(|step| match step {
                    Step::Scan { rel, .. } | Step::Absent { rel, .. } => {
                        !relations[*rel].groundable
                    }
                    _ => false,
                })
            });
            if calls_unsafe {
                relations[rel].groundable = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// The samples bodies are ordered by (see `order.rs`): the ground facts of a relation
/// defined by ground facts alone (`true` gets the initial state once it is computed).
fn set_samples(relations: &mut [RelationInfo], rules: &[CompiledRule], entry: &Entry) {
    let ground_facts = |rel: usize| -> Option<Vec<Box<[TermId]>>> {
        relations[rel]
            .rules
            .iter()
            .map(|&r| {
                let rule = &rules[r];
                if !rule.steps.is_empty() {
                    return None;
                }
                rule.head
                    .iter()
                    .map(|p| match p {
                        Pat::Term(t) => Some(*t),
                        _ => None,
                    })
                    .collect()
            })
            .collect()
    };
    let samples: Vec<Option<Vec<Box<[TermId]>>>> = (0..relations.len())
        .map(|rel| {
            if relations[rel].stored || relations[rel].rules.is_empty() {
                None
            } else {
                ground_facts(rel)
            }
        })
        .collect();
    for (rel, sample) in samples.into_iter().enumerate() {
        if let Some(tuples) = sample {
            relations[rel].sample = Sample::Tuples(order::thinned(tuples));
        }
    }
    // `true` has no rules: until the initial state is known, an empty sample (one
    // match, a scan of at least `order::STATE_GUESS` fluents).
    if let Some(t) = entry.true_rel {
        relations[t].sample = Sample::Tuples(Vec::new());
    }
}

fn compile_rule(
    rule: &Rule,
    head_rel: usize,
    graph: &DependencyGraph,
    store: &mut TermStore,
) -> CompiledRule {
    let mut vars: Vec<String> = Vec::new();
    let mut pattern = |term: &Term, store: &mut TermStore| compile_term(term, &mut vars, store);
    let head: Box<[Pat]> = rule.head.args.iter().map(|t| pattern(t, store)).collect();
    let mut steps = Vec::with_capacity(rule.body.len());
    for literal in &rule.body {
        let step = match literal {
            Literal::Pos(atom) | Literal::Neg(atom) => {
                let pats: Box<[Pat]> = atom.args.iter().map(|t| pattern(t, store)).collect();
                // Every body relation is a node of the graph built from these rules.
                let rel = graph
                    .relation(&atom.name.text, atom.args.len())
                    .unwrap_or(head_rel);
                if matches!(literal, Literal::Pos(_)) {
                    Step::Scan { rel, pats }
                } else {
                    Step::Absent { rel, pats }
                }
            }
            Literal::Distinct(a, b, _) => Step::Distinct(pattern(a, store), pattern(b, store)),
            Literal::Equal(a, b, _) => Step::Equal(pattern(a, store), pattern(b, store)),
        };
        steps.push(step);
    }
    CompiledRule {
        head,
        steps,
        num_vars: vars.len(),
    }
}

fn compile_term(term: &Term, vars: &mut Vec<String>, store: &mut TermStore) -> Pat {
    if let Some(ground) = ground_term(store, term) {
        return Pat::Term(ground);
    }
    match term {
        Term::Var(name) => {
            let slot = vars
                .iter()
                .position(|v| *v == name.text)
                .unwrap_or_else(|| {
                    vars.push(name.text.clone());
                    vars.len() - 1
                });
            Pat::Var(slot as u16)
        }
        Term::Const(name) => Pat::Term(store.constant(&name.text)),
        Term::Func { name, args, .. } => {
            let functor = store.symbol(&name.text);
            Pat::App(
                functor,
                args.iter().map(|a| compile_term(a, vars, store)).collect(),
            )
        }
    }
}

impl Game for Interpreter {
    type State = State;
    type Move = TermId;
    type Percept = TermId;

    fn num_roles(&self) -> usize {
        self.role_terms.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        &self.role_names[role]
    }

    fn initial_state(&mut self) -> State {
        self.initial.clone()
    }

    fn is_terminal(&mut self, state: &State) -> bool {
        self.load_state(state);
        self.entry
            .terminal
            .is_some_and(|rel| self.db.holds(&self.program, rel))
    }

    fn legal_moves(&mut self, state: &State, role: RoleIndex, out: &mut Vec<TermId>) {
        self.load_state(state);
        self.of_role(self.entry.legal, role, out);
        self.sort_by_text(out);
    }

    fn next_state(&mut self, state: &State, joint: &[TermId]) -> State {
        self.load_state(state);
        self.load_joint(joint);
        let mut fluents = Vec::new();
        self.query(self.entry.next, None, &mut fluents);
        fluents.sort_unstable();
        fluents.dedup();
        State { fluents }
    }

    fn goal(&mut self, state: &State, role: RoleIndex) -> Result<u8, GoalError> {
        self.load_state(state);
        let mut values = Vec::new();
        self.of_role(self.entry.goal, role, &mut values);
        let mut numbers = Vec::with_capacity(values.len());
        for value in values {
            let text = self.db.store.render(value);
            match gdlc_runtime::kif::goal_value(&text) {
                Some(n) => numbers.push(n),
                None => return Err(GoalError::NotANumber(text)),
            }
        }
        GoalError::single(numbers)
    }

    fn sees(&mut self, state: &State, joint: &[TermId], role: RoleIndex, out: &mut Vec<TermId>) {
        self.load_state(state);
        self.load_joint(joint);
        self.of_role(self.entry.sees, role, out);
        out.sort_unstable();
        out.dedup();
        self.sort_by_text(out);
    }

    fn move_to_kif(&self, mv: TermId) -> String {
        self.db.store.render(mv)
    }

    fn percept_to_kif(&self, percept: TermId) -> String {
        self.db.store.render(percept)
    }

    fn state_to_kif(&self, state: &State) -> Vec<String> {
        let mut texts: Vec<String> = state
            .fluents
            .iter()
            .map(|&f| self.db.store.render(f))
            .collect();
        texts.sort();
        texts
    }

    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<State, StateError> {
        let mut ids = Vec::with_capacity(fluents.len());
        for text in fluents {
            ids.push(self.parse_ground(text).map_err(StateError::Syntax)?);
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(State { fluents: ids })
    }
}

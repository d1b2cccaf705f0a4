//! The plan executor: runs a game's [`crate::plan::Plan`] directly and implements
//! [`gdlc_runtime::Game`], so that the plan is proven against the reference
//! interpreter (perft, legal-move sets, next states, goals) before any code is
//! generated from it.
//!
//! Fluents, moves and percepts are flattened tuples of the IR, interned as small ids;
//! a state is the sorted list of its fluent ids. The engine ([`engine`]) keeps the
//! results of the last state and joint move, so one playout step evaluates each layer
//! at most once.

pub mod engine;

use std::collections::HashMap;

use gdlc_runtime::{Game, GoalError, RoleIndex, StateError};

use crate::ir::{Entry, Ir, Keyword, NIL, Phase, RelationId, SymbolId, Symbols, Term};
use crate::plan::Plan;
use engine::Engine;

/// A state of the executor: its fluent ids, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExecState {
    fluents: Vec<u32>,
}

/// Tuples interned as small ids, with their KIF text.
#[derive(Clone, Debug, Default)]
struct Interner {
    ids: HashMap<Vec<SymbolId>, u32>,
    tuples: Vec<Vec<SymbolId>>,
    texts: Vec<String>,
}

impl Interner {
    fn intern(&mut self, tuple: &[SymbolId], text: impl FnOnce() -> String) -> u32 {
        if let Some(&id) = self.ids.get(tuple) {
            return id;
        }
        let id = self.tuples.len() as u32;
        self.ids.insert(tuple.to_vec(), id);
        self.tuples.push(tuple.to_vec());
        self.texts.push(text());
        id
    }
}

/// The canonical KIF text of a term.
pub fn term_text(symbols: &Symbols, term: &Term) -> String {
    let name = &symbols.symbol(term.symbol).name;
    if term.args.is_empty() {
        return name.clone();
    }
    let mut text = format!("({name}");
    for arg in &term.args {
        text.push(' ');
        text.push_str(&term_text(symbols, arg));
    }
    text.push(')');
    text
}

/// The plan executor of one game.
#[derive(Clone, Debug)]
pub struct Executor<'a> {
    ir: &'a Ir,
    engine: Engine<'a>,
    role_names: Vec<String>,
    true_rel: Option<RelationId>,
    does_rel: Option<RelationId>,
    cones: HashMap<Entry, Vec<usize>>,
    fluents: Interner,
    moves: Interner,
    percepts: Interner,
    current_state: Option<Vec<u32>>,
    current_joint: Option<Vec<u32>>,
    /// Whether legal moves are listed by their tuples of symbol ids (the game's
    /// structure) rather than by their KIF text ([`Self::order_moves_by_structure`]).
    moves_by_structure: bool,
}

impl<'a> Executor<'a> {
    /// An executor of `plan`, the plan of `ir`.
    pub fn new(ir: &'a Ir, plan: &'a Plan) -> Self {
        Executor {
            ir,
            engine: Engine::new(ir, plan),
            role_names: ir
                .roles
                .iter()
                .map(|&r| ir.symbols.symbol(r).name.clone())
                .collect(),
            true_rel: ir.keyword(Keyword::True),
            does_rel: ir.keyword(Keyword::Does),
            cones: ir.cones.iter().cloned().collect(),
            fluents: Interner::default(),
            moves: Interner::default(),
            percepts: Interner::default(),
            current_state: None,
            current_joint: None,
            moves_by_structure: false,
        }
    }

    /// Lists legal moves in ascending order of their flattened tuples of symbol ids
    /// instead of their KIF text. Symbols are numbered by structural colour
    /// ([`crate::analysis::colours`]), so a seeded playout then plays the same game
    /// whatever the symbols are called: measured planning samples its states this way.
    pub fn order_moves_by_structure(&mut self) {
        self.moves_by_structure = true;
    }

    /// The filter-tree nodes the engine has visited so far: the cost measure of
    /// measured planning ([`crate::planner::tuned`]).
    pub fn work(&self) -> usize {
        self.engine.work()
    }

    /// The function symbol of `true`'s argument in each fluent of `state` (nil where
    /// the game has no `true`).
    pub fn fluent_roots<'s>(&'s self, state: &'s ExecState) -> impl Iterator<Item = SymbolId> + 's {
        let root = self
            .true_rel
            .and_then(|r| self.ir.relation(r).column_of(&[0]));
        state.fluents.iter().map(move |&f| {
            root.and_then(|c| self.fluents.tuples[f as usize].get(c).copied())
                .unwrap_or(NIL)
        })
    }

    /// Stops evaluating after `limit` nodes visited in all (see [`Self::over_limit`]).
    pub fn set_work_limit(&mut self, limit: usize) {
        self.engine.set_work_limit(limit);
    }

    /// Stops evaluating once `limit` values are stored in all (see [`Self::over_limit`]).
    pub fn set_value_limit(&mut self, limit: usize) {
        self.engine.set_value_limit(limit);
    }

    /// Whether the work limit was passed, so that every later answer is incomplete.
    pub fn over_limit(&self) -> bool {
        self.engine.over_limit()
    }

    fn ensure(&mut self, entry: Entry) -> Option<RelationId> {
        let relation = self.ir.keyword(entry.keyword())?;
        if let Some(cone) = self.cones.get(&entry) {
            self.engine.ensure(cone);
        }
        Some(relation)
    }

    fn load_state(&mut self, state: &ExecState) {
        if self.current_state.as_ref() == Some(&state.fluents) {
            return;
        }
        let tuples = state
            .fluents
            .iter()
            .map(|&f| self.fluents.tuples[f as usize].as_slice());
        self.engine.set_input(Phase::State, self.true_rel, tuples);
        self.current_state = Some(state.fluents.clone());
        self.current_joint = None;
    }

    fn load_joint(&mut self, joint: &[u32]) {
        if self.current_joint.as_deref() == Some(joint) {
            return;
        }
        let mut tuples = Vec::with_capacity(joint.len());
        if let Some(does) = self.does_rel {
            let columns = &self.ir.relation(does).columns;
            for (role, &mv) in joint.iter().enumerate() {
                let mut tuple = vec![NIL; columns.len()];
                let mut moves = self.moves.tuples[mv as usize].iter();
                for (c, column) in columns.iter().enumerate() {
                    if column.path == [0] {
                        tuple[c] = self.ir.roles[role];
                    } else if column.path[0] == 1 {
                        tuple[c] = moves.next().copied().unwrap_or(NIL);
                    }
                }
                tuples.push(tuple);
            }
        }
        self.engine
            .set_input(Phase::Move, self.does_rel, tuples.iter().map(Vec::as_slice));
        self.current_joint = Some(joint.to_vec());
    }

    /// The decoded second argument of a tuple of `relation` as KIF text.
    fn second_text(&self, relation: RelationId, tuple: &[SymbolId]) -> String {
        match self.ir.decode(relation, tuple) {
            Some(args) if args.len() == 2 => term_text(&self.ir.symbols, &args[1]),
            _ => "?".to_owned(),
        }
    }

    /// Per relation, for the materialised relations whose layer is computed for the
    /// current input, its tuples and the distinct values of each column (measured
    /// planning's sizes, see [`crate::planner::tune`]).
    pub fn computed_sizes(&self) -> Vec<Option<(usize, Vec<usize>)>> {
        (0..self.ir.relations.len())
            .map(|r| {
                let relation = RelationId(r as u32);
                if !self.engine.is_computed_materialised(relation) {
                    return None;
                }
                let store = self.engine.store(relation);
                let arity = self.ir.relation(relation).columns.len();
                let distinct = (0..arity)
                    .map(|c| {
                        let mut values: Vec<SymbolId> =
                            (0..store.len()).map(|i| store.row(i)[c]).collect();
                        values.sort_unstable();
                        values.dedup();
                        values.len()
                    })
                    .collect();
                Some((store.len(), distinct))
            })
            .collect()
    }

    /// The rows of `relation` whose first argument is `role`, as (role-less) ids.
    fn of_role(&mut self, relation: RelationId, role: RoleIndex, percepts: bool) -> Vec<u32> {
        let role_symbol = self.ir.roles[role];
        let columns = &self.ir.relation(relation).columns;
        let Some(role_column) = columns.iter().position(|c| c.path == [0]) else {
            return Vec::new();
        };
        let second: Vec<usize> = (0..columns.len())
            .filter(|&c| columns[c].path[0] == 1)
            .collect();
        let store = self.engine.store(relation);
        let rows: Vec<Vec<SymbolId>> = (0..store.len())
            .map(|i| store.row(i).to_vec())
            .filter(|row| row[role_column] == role_symbol)
            .collect();
        let mut ids = Vec::with_capacity(rows.len());
        for row in rows {
            let key: Vec<SymbolId> = second.iter().map(|&c| row[c]).collect();
            let known = if percepts {
                self.percepts.ids.get(&key)
            } else {
                self.moves.ids.get(&key)
            };
            let id = match known {
                Some(&id) => id,
                None => {
                    let text = self.second_text(relation, &row);
                    let interner = if percepts {
                        &mut self.percepts
                    } else {
                        &mut self.moves
                    };
                    interner.intern(&key, || text)
                }
            };
            ids.push(id);
        }
        ids.sort_unstable();
        ids.dedup();
        if self.moves_by_structure && !percepts {
            let tuples = &self.moves.tuples;
            ids.sort_by(|&a, &b| tuples[a as usize].cmp(&tuples[b as usize]));
            return ids;
        }
        let texts = if percepts {
            &self.percepts.texts
        } else {
            &self.moves.texts
        };
        ids.sort_by(|&a, &b| texts[a as usize].cmp(&texts[b as usize]));
        ids
    }

    fn intern_fluents(&mut self, relation: RelationId) -> ExecState {
        let store = self.engine.store(relation);
        let rows: Vec<Vec<SymbolId>> = (0..store.len()).map(|i| store.row(i).to_vec()).collect();
        let mut fluents = Vec::with_capacity(rows.len());
        for row in rows {
            let ir = self.ir;
            let true_rel = self.true_rel.unwrap_or(relation);
            fluents.push(self.fluents.intern(&row, || {
                ir.decode(true_rel, &row)
                    .and_then(|args| args.first().map(|t| term_text(&ir.symbols, t)))
                    .unwrap_or_default()
            }));
        }
        fluents.sort_unstable();
        fluents.dedup();
        ExecState { fluents }
    }
}

impl Game for Executor<'_> {
    type State = ExecState;
    type Move = u32;
    type Percept = u32;

    fn num_roles(&self) -> usize {
        self.role_names.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        &self.role_names[role]
    }

    fn initial_state(&mut self) -> ExecState {
        match self.ensure(Entry::Init) {
            Some(init) => self.intern_fluents(init),
            None => ExecState {
                fluents: Vec::new(),
            },
        }
    }

    fn is_terminal(&mut self, state: &ExecState) -> bool {
        self.load_state(state);
        self.ensure(Entry::Terminal)
            .is_some_and(|t| !self.engine.store(t).is_empty())
    }

    fn legal_moves(&mut self, state: &ExecState, role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        self.load_state(state);
        if let Some(legal) = self.ensure(Entry::Legal) {
            *out = self.of_role(legal, role, false);
        }
    }

    fn next_state(&mut self, state: &ExecState, joint: &[u32]) -> ExecState {
        self.load_state(state);
        self.load_joint(joint);
        match self.ensure(Entry::Next) {
            Some(next) => self.intern_fluents(next),
            None => ExecState {
                fluents: Vec::new(),
            },
        }
    }

    fn goal(&mut self, state: &ExecState, role: RoleIndex) -> Result<u8, GoalError> {
        self.load_state(state);
        let Some(goal) = self.ensure(Entry::Goal) else {
            return Err(GoalError::Missing);
        };
        let role_symbol = self.ir.roles[role];
        let store = self.engine.store(goal);
        let rows: Vec<Vec<SymbolId>> = (0..store.len())
            .map(|i| store.row(i).to_vec())
            .filter(|row| {
                self.ir.relation(goal).column_of(&[0]).map(|c| row[c]) == Some(role_symbol)
            })
            .collect();
        let mut numbers = Vec::with_capacity(rows.len());
        for row in rows {
            let text = self.second_text(goal, &row);
            match gdlc_runtime::kif::goal_value(&text) {
                Some(n) => numbers.push(n),
                None => return Err(GoalError::NotANumber(text)),
            }
        }
        GoalError::single(numbers)
    }

    fn sees(&mut self, state: &ExecState, joint: &[u32], role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        self.load_state(state);
        self.load_joint(joint);
        if let Some(sees) = self.ensure(Entry::Sees) {
            *out = self.of_role(sees, role, true);
        }
    }

    fn move_to_kif(&self, mv: u32) -> String {
        self.moves.texts[mv as usize].clone()
    }

    fn percept_to_kif(&self, percept: u32) -> String {
        self.percepts.texts[percept as usize].clone()
    }

    fn state_to_kif(&self, state: &ExecState) -> Vec<String> {
        let mut texts: Vec<String> = state
            .fluents
            .iter()
            .map(|&f| self.fluents.texts[f as usize].clone())
            .collect();
        texts.sort();
        texts
    }

    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<ExecState, StateError> {
        let mut ids = Vec::with_capacity(fluents.len());
        for text in fluents {
            let canonical = gdlc_runtime::kif::canonical(text).map_err(StateError::Syntax)?;
            let tuple = crate::analysis::term_from_kif(self.ir, &canonical)
                .and_then(|term| self.ir.encode(self.true_rel?, &[term]));
            let Some(tuple) = tuple else {
                return Err(StateError::UnknownFluent(canonical));
            };
            ids.push(self.fluents.intern(&tuple, || canonical.clone()));
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ExecState { fluents: ids })
    }
}

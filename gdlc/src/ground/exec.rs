//! A direct evaluator of a [`Grounding`]: a [`Game`] that evaluates the ground
//! instances of every atom, in [`Grounding::evaluation_order`], on each call.
//!
//! It is slow and simple on purpose: it checks the grounding itself (reachable atoms,
//! instances, static literals decided, negation kept) against the reference
//! interpreter without compiling anything (`gdlc/tests/ground.rs`), so that a wrong
//! answer of a ground reasoner can be told apart from a wrong grounding.

use gdlc_runtime::{Game, GoalError, RoleIndex, StateError, kif};

use super::{AtomId, Grounding, Literal};
use crate::exec::term_text;
use crate::ir::{Ir, Keyword};

/// A grounded game evaluated atom by atom.
#[derive(Clone, Debug)]
pub struct GroundGame {
    roles: Vec<String>,
    atoms: usize,
    /// Instances by head: body literals per instance.
    instances: Vec<Vec<Vec<Literal>>>,
    order: Vec<(Vec<AtomId>, bool)>,
    input_of: Vec<Option<AtomId>>,
    init: Vec<AtomId>,
    /// Text of each `true` atom (its fluent) and `does` atom (its move); else empty.
    texts: Vec<String>,
    /// Per role: its `legal`, `goal` (with value text) and `sees` (with percept
    /// index) atoms.
    legal: Vec<Vec<AtomId>>,
    goals: Vec<Vec<(AtomId, String)>>,
    sees: Vec<Vec<(AtomId, u32)>>,
    terminal: Vec<AtomId>,
    next: Vec<AtomId>,
    percepts: Vec<String>,
    /// `true` atoms by fluent text, sorted.
    fluents: Vec<(String, AtomId)>,
    /// The last evaluation: its state, joint move and every atom's value.
    cache: Option<(Vec<AtomId>, Vec<AtomId>, Vec<bool>)>,
}

impl GroundGame {
    /// The evaluator of `grounding`, the grounding of `ir`.
    pub fn new(ir: &Ir, grounding: &Grounding) -> Self {
        let n = grounding.atoms.len();
        let mut instances = vec![Vec::new(); n];
        for instance in &grounding.instances {
            instances[instance.head as usize].push(instance.body.clone());
        }
        let roles = ir.roles.len();
        let mut texts = vec![String::new(); n];
        let mut legal = vec![Vec::new(); roles];
        let mut goals = vec![Vec::new(); roles];
        let mut sees_text: Vec<Vec<(AtomId, String)>> = vec![Vec::new(); roles];
        let mut terminal = Vec::new();
        let mut next = Vec::new();
        let mut fluents = Vec::new();
        let role_of = |term: &crate::ir::Term| {
            ir.roles
                .iter()
                .position(|&r| r == term.symbol && term.args.is_empty())
        };
        for (a, atom) in grounding.atoms.iter().enumerate() {
            let a = a as AtomId;
            if grounding.is_aux(ir, atom.relation) {
                continue;
            }
            let Some(keyword) = ir.relation(atom.relation).keyword else {
                continue;
            };
            let Some(args) = ir.decode(atom.relation, &atom.tuple) else {
                continue;
            };
            let text = |i: usize| term_text(&ir.symbols, &args[i]);
            match keyword {
                Keyword::True => {
                    texts[a as usize] = text(0);
                    fluents.push((text(0), a));
                }
                Keyword::Next => next.push(a),
                Keyword::Terminal => terminal.push(a),
                Keyword::Does | Keyword::Legal | Keyword::Goal | Keyword::Sees => {
                    let Some(r) = role_of(&args[0]) else {
                        continue;
                    };
                    match keyword {
                        Keyword::Does => texts[a as usize] = text(1),
                        Keyword::Legal => legal[r].push(a),
                        Keyword::Goal => goals[r].push((a, text(1))),
                        _ => sees_text[r].push((a, text(1))),
                    }
                }
                _ => {}
            }
        }
        fluents.sort();
        let mut percepts: Vec<String> = sees_text.iter().flatten().map(|p| p.1.clone()).collect();
        percepts.sort();
        percepts.dedup();
        let sees = sees_text
            .into_iter()
            .map(|list| {
                list.into_iter()
                    .map(|(a, t)| (a, percepts.binary_search(&t).expect("listed") as u32))
                    .collect()
            })
            .collect();
        GroundGame {
            roles: ir
                .roles
                .iter()
                .map(|&r| ir.symbols.symbol(r).name.clone())
                .collect(),
            atoms: n,
            instances,
            order: grounding.evaluation_order(ir),
            input_of: grounding.input_of.clone(),
            init: grounding.init.clone(),
            texts,
            legal,
            goals,
            sees,
            terminal,
            next,
            percepts,
            fluents,
            cache: None,
        }
    }

    /// Every atom's value in `state` (true atoms) under `joint` (does atoms), kept
    /// for the next call.
    fn evaluate(&mut self, state: &[AtomId], joint: &[AtomId]) -> Vec<bool> {
        if let Some((s, j, value)) = &self.cache
            && s == state
            && j == joint
        {
            return value.clone();
        }
        let value = self.compute(state, joint);
        self.cache = Some((state.to_vec(), joint.to_vec(), value.clone()));
        value
    }

    fn compute(&self, state: &[AtomId], joint: &[AtomId]) -> Vec<bool> {
        let mut value = vec![false; self.atoms];
        for &a in state.iter().chain(joint) {
            value[a as usize] = true;
        }
        let holds = |value: &[bool], body: &[Literal]| {
            body.iter().all(|&l| match l {
                Literal::Pos(a) => value[a as usize],
                Literal::Neg(a) => !value[a as usize],
            })
        };
        for (atoms, cyclic) in &self.order {
            loop {
                let mut changed = false;
                for &a in atoms {
                    if !value[a as usize]
                        && self.instances[a as usize]
                            .iter()
                            .any(|body| holds(&value, body))
                    {
                        value[a as usize] = true;
                        changed = true;
                    }
                }
                if !cyclic || !changed {
                    break;
                }
            }
        }
        value
    }
}

impl Game for GroundGame {
    type State = Vec<AtomId>;
    type Move = AtomId;
    type Percept = u32;

    fn num_roles(&self) -> usize {
        self.roles.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        &self.roles[role]
    }

    fn initial_state(&mut self) -> Vec<AtomId> {
        self.init.clone()
    }

    fn is_terminal(&mut self, state: &Vec<AtomId>) -> bool {
        let value = self.evaluate(state, &[]);
        self.terminal.iter().any(|&a| value[a as usize])
    }

    fn legal_moves(&mut self, state: &Vec<AtomId>, role: RoleIndex, out: &mut Vec<AtomId>) {
        out.clear();
        let value = self.evaluate(state, &[]);
        for &a in &self.legal[role] {
            if value[a as usize]
                && let Some(does) = self.input_of[a as usize]
            {
                out.push(does);
            }
        }
        out.sort_by(|&x, &y| self.texts[x as usize].cmp(&self.texts[y as usize]));
        out.dedup();
    }

    fn next_state(&mut self, state: &Vec<AtomId>, joint: &[AtomId]) -> Vec<AtomId> {
        let value = self.evaluate(state, joint);
        let mut next: Vec<AtomId> = self
            .next
            .iter()
            .filter(|&&a| value[a as usize])
            .filter_map(|&a| self.input_of[a as usize])
            .collect();
        next.sort_unstable();
        next.dedup();
        next
    }

    fn goal(&mut self, state: &Vec<AtomId>, role: RoleIndex) -> Result<u8, GoalError> {
        let value = self.evaluate(state, &[]);
        let mut values = Vec::new();
        for (a, text) in &self.goals[role] {
            if value[*a as usize] {
                values.push(
                    kif::goal_value(text).ok_or_else(|| GoalError::NotANumber(text.clone()))?,
                );
            }
        }
        GoalError::single(values)
    }

    fn sees(&mut self, state: &Vec<AtomId>, joint: &[AtomId], role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        let value = self.evaluate(state, joint);
        out.extend(
            self.sees[role]
                .iter()
                .filter(|(a, _)| value[*a as usize])
                .map(|&(_, p)| p),
        );
        out.sort_unstable();
        out.dedup();
    }

    fn move_to_kif(&self, mv: AtomId) -> String {
        self.texts[mv as usize].clone()
    }

    fn percept_to_kif(&self, percept: u32) -> String {
        self.percepts[percept as usize].clone()
    }

    fn state_to_kif(&self, state: &Vec<AtomId>) -> Vec<String> {
        let mut texts: Vec<String> = state
            .iter()
            .map(|&a| self.texts[a as usize].clone())
            .collect();
        texts.sort();
        texts
    }

    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<Vec<AtomId>, StateError> {
        let mut state = Vec::with_capacity(fluents.len());
        for text in fluents {
            let canonical = kif::canonical(text).map_err(StateError::Syntax)?;
            let i = self
                .fluents
                .binary_search_by(|(t, _)| t.as_str().cmp(&canonical))
                .map_err(|_| StateError::UnknownFluent(canonical.clone()))?;
            state.push(self.fluents[i].1);
        }
        state.sort_unstable();
        state.dedup();
        Ok(state)
    }
}

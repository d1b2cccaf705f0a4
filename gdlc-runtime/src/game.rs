//! The [`Game`] trait: what every reasoner offers, and its error types.
//!
//! Conventions:
//! - Roles are numbered `0..num_roles()` in the order of the `role` facts of the game
//!   description. In GDL-II, `random` is an ordinary role here; drivers pick its moves
//!   uniformly at random like anyone else's.
//! - A joint move is a slice with one move per role, in role order.
//! - Query methods take `&mut self` so that a reasoner may keep scratch buffers and
//!   caches between calls without allocating in the playout loop; clone a reasoner to
//!   use it from several threads.
//! - Goal values are the integers 0..=100 of GDL. A state where a role has no goal value,
//!   or several, gives a [`GoalError`] rather than a guess.

use std::fmt::Debug;
use std::hash::Hash;

use crate::kif;

/// Index of a role in description order.
pub type RoleIndex = usize;

/// A game reasoner: the rules of one game, queried state by state.
pub trait Game {
    /// A game state: the set of fluents that are true.
    type State: Clone + Eq + Hash + Debug;
    /// A move of one role.
    type Move: Copy + Eq + Hash + Ord + Debug;
    /// A percept of GDL-II (`sees`).
    type Percept: Copy + Eq + Hash + Ord + Debug;

    /// Number of roles.
    fn num_roles(&self) -> usize;
    /// Name of a role as KIF text (lowercase), e.g. `"white"` or `"random"`.
    fn role_name(&self, role: RoleIndex) -> &str;

    /// The initial state.
    fn initial_state(&mut self) -> Self::State;
    /// Whether `state` is terminal.
    fn is_terminal(&mut self, state: &Self::State) -> bool;
    /// Clears `out` and writes the legal moves of `role` in `state` into it, without
    /// duplicates, in an order of the reasoner's own that depends on the state alone
    /// (so a seeded playout replays): the interpreter and the join backend list them in
    /// ascending byte order of their canonical KIF text, the ground backend in its
    /// layout order (the game's structure, whatever the symbols are called).
    /// Reasoners are compared by their sets ([`crate::compare`]).
    fn legal_moves(&mut self, state: &Self::State, role: RoleIndex, out: &mut Vec<Self::Move>);
    /// The legal move a random playout picks for `role` in `state`: `pick(n)`, given the
    /// number `n ≥ 1` of legal moves, chooses an index below it, and the move at that
    /// index of [`Self::legal_moves`]' order is returned; `None` (and `pick` not called)
    /// when `role` has no legal move. `scratch` is a buffer for the moves. Reasoners
    /// that can count and index their legal moves without listing them override it;
    /// the result must not differ from this default.
    fn random_legal_move(
        &mut self,
        state: &Self::State,
        role: RoleIndex,
        scratch: &mut Vec<Self::Move>,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<Self::Move>
    where
        Self: Sized,
    {
        self.legal_moves(state, role, scratch);
        if scratch.is_empty() {
            return None;
        }
        Some(scratch[pick(scratch.len())])
    }
    /// One step of a random playout from `state`: [`RandomStep::Terminal`] if it is
    /// terminal; else every role's [`Self::random_legal_move`] with `pick` (in role
    /// order), written into `joint`, and the state that follows. Reasoners that
    /// evaluate a state once for all of it override it; the result must not differ from
    /// this default.
    fn random_step(
        &mut self,
        state: &Self::State,
        joint: &mut Vec<Self::Move>,
        scratch: &mut Vec<Self::Move>,
        mut pick: impl FnMut(usize) -> usize,
    ) -> RandomStep<Self::State>
    where
        Self: Sized,
    {
        if self.is_terminal(state) {
            return RandomStep::Terminal;
        }
        joint.clear();
        for role in 0..self.num_roles() {
            match self.random_legal_move(state, role, scratch, &mut pick) {
                Some(mv) => joint.push(mv),
                None => return RandomStep::NoLegalMove(role),
            }
        }
        RandomStep::Next(self.next_state(state, joint))
    }
    /// The state that follows `state` when the roles play `joint` (one move per role, in
    /// role order). The caller is responsible for passing legal moves.
    fn next_state(&mut self, state: &Self::State, joint: &[Self::Move]) -> Self::State;
    /// The goal value of `role` in `state`.
    fn goal(&mut self, state: &Self::State, role: RoleIndex) -> Result<u8, GoalError>;
    /// Clears `out` and writes what `role` sees when `joint` is played in `state`
    /// (GDL-II), without duplicates, in an order of the reasoner's own (ascending
    /// canonical KIF text in every reasoner today). Empty for games without `sees`.
    fn sees(
        &mut self,
        state: &Self::State,
        joint: &[Self::Move],
        role: RoleIndex,
        out: &mut Vec<Self::Percept>,
    );

    /// A move as canonical KIF text (see [`kif::canonical`]).
    fn move_to_kif(&self, mv: Self::Move) -> String;
    /// A percept as canonical KIF text.
    fn percept_to_kif(&self, percept: Self::Percept) -> String;
    /// The fluents of `state` as canonical KIF text, sorted.
    fn state_to_kif(&self, state: &Self::State) -> Vec<String>;
    /// The state made of the given fluents (KIF text). Fails on malformed text or on a
    /// fluent this reasoner cannot represent.
    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<Self::State, StateError>;

    /// Index of the role called `name` (case-insensitive).
    fn role_index(&self, name: &str) -> Option<RoleIndex> {
        let wanted = name.trim().to_ascii_lowercase();
        (0..self.num_roles()).find(|&r| self.role_name(r) == wanted)
    }

    /// The legal move of `role` in `state` whose KIF text is `text`. Rejects text that is
    /// malformed or names a move that is not legal, with a message saying which.
    fn legal_move_from_kif(
        &mut self,
        state: &Self::State,
        role: RoleIndex,
        text: &str,
    ) -> Result<Self::Move, MoveError> {
        let wanted = kif::canonical(text).map_err(MoveError::Syntax)?;
        let mut moves = Vec::new();
        self.legal_moves(state, role, &mut moves);
        moves
            .into_iter()
            .find(|&m| self.move_to_kif(m) == wanted)
            .ok_or_else(|| MoveError::NotLegal {
                role: self.role_name(role).to_owned(),
                text: wanted,
            })
    }
}

/// What one step of a random playout found ([`Game::random_step`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RandomStep<S> {
    /// The state is terminal: nothing was played.
    Terminal,
    /// Every role played its pick; the state that follows.
    Next(S),
    /// This role has no legal move in the non-terminal state.
    NoLegalMove(RoleIndex),
}

/// Why a goal value could not be given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GoalError {
    /// No goal rule holds for the role in this state.
    #[error("no goal value holds for this role")]
    Missing,
    /// Several goal values hold for the role in this state (the two smallest are named).
    #[error("several goal values hold for this role ({0} and {1} among them)")]
    Ambiguous(u8, u8),
    /// A goal value that is not an integer in 0..=100.
    #[error("goal value `{0}` is not an integer in 0..=100")]
    NotANumber(String),
}

impl GoalError {
    /// The one goal value among the values derived for a role (duplicates allowed), or
    /// why there is none.
    pub fn single(mut values: Vec<u8>) -> Result<u8, GoalError> {
        values.sort_unstable();
        values.dedup();
        match values[..] {
            [] => Err(GoalError::Missing),
            [one] => Ok(one),
            [a, b, ..] => Err(GoalError::Ambiguous(a, b)),
        }
    }
}

/// The goal values derived for a role, gathered one at a time without allocating:
/// the two smallest distinct ones are kept, which is all [`HeldGoals::value`] needs.
#[derive(Clone, Copy, Debug)]
pub struct HeldGoals {
    /// The smallest and second smallest distinct values; `NO_GOAL` where none.
    smallest: [u16; 2],
}

const NO_GOAL: u16 = u16::MAX;

impl Default for HeldGoals {
    fn default() -> Self {
        HeldGoals {
            smallest: [NO_GOAL; 2],
        }
    }
}

impl HeldGoals {
    /// Notes that value `v` holds (again, possibly).
    #[inline]
    pub fn add(&mut self, v: u8) {
        let v = u16::from(v);
        let [a, b] = &mut self.smallest;
        if v == *a || v == *b {
            return;
        }
        if v < *a {
            *b = *a;
            *a = v;
        } else if v < *b {
            *b = v;
        }
    }

    /// The one value that holds, or [`GoalError::Missing`], or
    /// [`GoalError::Ambiguous`] with the two smallest.
    #[inline]
    pub fn value(self) -> Result<u8, GoalError> {
        match self.smallest {
            [NO_GOAL, _] => Err(GoalError::Missing),
            [one, NO_GOAL] => Ok(one as u8),
            [a, b] => Err(GoalError::Ambiguous(a as u8, b as u8)),
        }
    }
}

/// Why a move text was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a ground KIF term.
    #[error("malformed move: {0}")]
    Syntax(kif::KifError),
    /// The move is well formed but not legal for the role in this state.
    #[error("`{text}` is not a legal move for role `{role}` in this state")]
    NotLegal {
        /// The role's name.
        role: String,
        /// The move, as canonical KIF.
        text: String,
    },
}

/// Why a state could not be built from fluent texts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// A fluent text is not a ground KIF term.
    #[error("malformed fluent: {0}")]
    Syntax(kif::KifError),
    /// The fluent cannot occur in this game.
    #[error("`{0}` is not a fluent of this game")]
    UnknownFluent(String),
}

#[cfg(test)]
mod tests {
    use super::{GoalError, HeldGoals};

    fn value_of(values: &[u8]) -> Result<u8, GoalError> {
        let mut held = HeldGoals::default();
        values.iter().for_each(|&v| held.add(v));
        held.value()
    }

    #[test]
    fn held_goals_give_the_one_value_or_the_two_smallest() {
        assert_eq!(value_of(&[]), Err(GoalError::Missing));
        assert_eq!(value_of(&[50, 50, 50]), Ok(50));
        assert_eq!(value_of(&[0]), Ok(0));
        assert_eq!(value_of(&[100, 0]), Err(GoalError::Ambiguous(0, 100)));
        assert_eq!(
            value_of(&[100, 75, 100, 25, 50, 25]),
            Err(GoalError::Ambiguous(25, 50))
        );
    }
}

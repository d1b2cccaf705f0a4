//! What a *ground* reasoner runs on: games whose rules gdlc instantiated into ground
//! atoms at compile time (`gdlc::ground`), one bit per reachable fluent.
//!
//! The generated module implements [`GroundRules`]: straight-line code per entry point
//! over the state's words (the goals of large games as a [`crate::program`]), plus
//! constant tables of texts. [`Ground`] turns it into a
//! [`Game`]:
//!
//! - **The state** is [`Bits<W>`]: bit `i` is the `i`-th reachable fluent of
//!   [`GroundRules::FLUENTS`], in the compiler's layout order (along the game's
//!   chains, coordinates innermost: a board per piece, its neighbours at one
//!   distance; a bit whose text is empty is never set; `state_to_kif` sorts the
//!   texts).
//! - **A move** is a `u32`, its index in [`GroundRules::MOVES`]: every role's legal
//!   moves in one range (`ROLE_MOVES[r]..ROLE_MOVES[r + 1]`), in layout order inside
//!   it (by direction, then square, so one direction's legal bits are the board
//!   shifted, whatever the coordinates are called); their legality bits lie in `d` in
//!   that order, with holes ([`GroundRules::LEGAL_WORDS`]), and a legal-move list
//!   needs no sort, no interning and no hashing.
//! - **A percept** is a `u32` into [`GroundRules::PERCEPTS`] (sorted texts).
//!
//! A state given as text must consist of reachable fluents: the ground rules are only
//! correct on those (any other fluent is "not a fluent of this game").

use crate::bits::Bits;
// Also public here, where they were first: the bit-word helpers and the random picks.
pub use crate::bits::{bit, count_ones, nth_one, push_masked, push_ones, rank_in};
use crate::game::{Game, GoalError, RandomStep, RoleIndex, StateError};
use crate::kif;
pub use crate::pick::{
    FEW_WORDS, MoveBits, listed_in_summary, nth_smallest, pick_one_in, pick_one_listed,
    pick_one_masked, pick_one_of,
};

/// The generated half of a ground reasoner: constant tables and three evaluation
/// functions over the state `s` (`W` words), the derived state atoms `d` (`D` words)
/// and the move-dependent atoms `m` (`M` words).
pub trait GroundRules<const W: usize, const D: usize, const M: usize> {
    /// Role names in description order.
    const ROLES: &'static [&'static str];
    /// Reachable fluents as canonical KIF text, in layout order (not text order:
    /// the game's chains, structural colours); bit `i` of the state is `FLUENTS[i]` (an empty text: a bit
    /// left unused, so that a board starts a word).
    const FLUENTS: &'static [&'static str];
    /// Every role's possible moves as canonical KIF text; role `r`'s are
    /// `ROLE_MOVES[r]..ROLE_MOVES[r + 1]`, in layout order.
    const MOVES: &'static [&'static str];
    /// Start of each role's move range, and the end of the last.
    const ROLE_MOVES: &'static [u32];
    /// Possible percepts as canonical KIF text, sorted.
    const PERCEPTS: &'static [&'static str];
    /// The initial state.
    const INIT: [u64; W];
    /// Per role, where the legality of its moves is in `d`: the words holding its
    /// moves' bits, each with the mask of those bits, in move order — the `k`-th bit
    /// of the masks (word by word, low bits first) is the role's `k`-th move. The bits
    /// mirror what the moves read, with holes between (a move reading the square at
    /// bit `b` of the state at bit `b` plus a constant), so that a direction's moves
    /// are computed as one word. The holes, the bits between a role's first and last
    /// move's that are not its moves', are never set: a random pick counts the range
    /// whole ([`MoveBits`]).
    const LEGAL_WORDS: &'static [&'static [(u32, u64)]];
    /// The bit of `d` holding `terminal` (`None`: never terminal).
    const TERMINAL_BIT: Option<u32>;
    /// Per role, its goal atoms: the bit of `d` and the value (the text of a value
    /// that is not a goal value, an error when it holds).
    const GOALS: &'static [&'static [(u32, Result<u8, &'static str>)]];
    /// Per role, its percept atoms: the bit of `m` and the percept, by percept.
    const SEES: &'static [&'static [(u32, u32)]];
    /// Whether the goals are worth remembering by state (in [`Ground`], every role's
    /// value by state while states repeat): a program run as data (too long for
    /// straight-line code), not a few literals.
    const GOALS_REMEMBERED: bool = false;

    /// Computes into `d` (cleared first) every state atom that `terminal`, `legal`,
    /// `next` and `sees` need.
    fn eval_state(s: &[u64; W], d: &mut [u64; D]);
    /// Adds to `d` the state atoms only goals need (after [`Self::eval_state`]).
    fn eval_goals(s: &[u64; W], d: &mut [u64; D]);
    /// Computes the move-dependent atoms into `m` (cleared first) and the next state
    /// into `n`, from the state, its atoms and the joint move (one move per role).
    fn eval_moves(s: &[u64; W], d: &[u64; D], joint: &[u32], m: &mut [u64; M], n: &mut [u64; W]);
}

/// Which atoms of the cached state are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cached {
    Nothing,
    State,
    Goals,
}

/// The lookups of a [`GoalMemo`] after which it stops unless one in eight hit.
const GOAL_MEMO_TRIAL: u64 = 4096;

/// The most states a [`GoalMemo`] holds (it reads them back, adding none, after).
const MAX_GOAL_MEMO: usize = 1 << 16;

/// Every role's goal value in states met before, by state, for rules whose goals are a
/// long program ([`GroundRules::GOALS_REMEMBERED`]): goals are a function of the state
/// alone, and in some games few states end a game — a one-move game of guesses between
/// 0 and 100, its goals tens of thousands of literals over the two guesses, ends in at
/// most 10,201 states. It is kept while it pays: after [`GOAL_MEMO_TRIAL`] lookups with
/// fewer than one hit in eight (a game whose ends rarely repeat), it is dropped and
/// never asked again; past [`MAX_GOAL_MEMO`] states it adds no more.
#[derive(Clone, Debug, Default)]
struct GoalMemo<const W: usize> {
    /// Each state's first value in `values` (one per role).
    at: rustc_hash::FxHashMap<[u64; W], u32>,
    values: Vec<u8>,
    /// A state's values as they are gathered, before [`GoalMemo::remember`].
    scratch: Vec<u8>,
    lookups: u64,
    hits: u64,
    off: bool,
}

impl<const W: usize> GoalMemo<W> {
    /// The goal values of `state`, one per role, if remembered.
    fn get(&mut self, state: &[u64; W], roles: usize) -> Option<&[u8]> {
        if self.off {
            return None;
        }
        self.lookups += 1;
        let Some(&at) = self.at.get(state) else {
            if self.lookups >= GOAL_MEMO_TRIAL && self.hits * 8 < self.lookups {
                *self = GoalMemo {
                    off: true,
                    ..GoalMemo::default()
                };
            }
            return None;
        };
        self.hits += 1;
        Some(&self.values[at as usize..at as usize + roles])
    }

    /// Remembers `state`'s goal values (one per role).
    fn remember(&mut self, state: &[u64; W], values: &[u8]) {
        if self.off || self.at.len() >= MAX_GOAL_MEMO {
            return;
        }
        self.at.insert(*state, self.values.len() as u32);
        self.values.extend_from_slice(values);
    }
}

/// A [`Game`] over generated ground rules, caching the atoms of the last state.
#[derive(Clone, Debug)]
pub struct Ground<R, const W: usize, const D: usize, const M: usize> {
    state: [u64; W],
    cached: Cached,
    d: [u64; D],
    m: [u64; M],
    goal_memo: GoalMemo<W>,
    /// Each role's [`GroundRules::LEGAL_WORDS`] by shape, for the random picks of the
    /// roles of more than [`FEW_WORDS`] words.
    move_bits: Box<[MoveBits]>,
    rules: std::marker::PhantomData<R>,
}

impl<R: GroundRules<W, D, M>, const W: usize, const D: usize, const M: usize> Default
    for Ground<R, W, D, M>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<R: GroundRules<W, D, M>, const W: usize, const D: usize, const M: usize> Ground<R, W, D, M> {
    /// The reasoner.
    pub fn new() -> Self {
        Ground {
            state: [0; W],
            cached: Cached::Nothing,
            d: [0; D],
            m: [0; M],
            goal_memo: GoalMemo {
                off: !R::GOALS_REMEMBERED,
                ..GoalMemo::default()
            },
            move_bits: R::LEGAL_WORDS.iter().map(|m| MoveBits::of(m)).collect(),
            rules: std::marker::PhantomData,
        }
    }

    /// Role `role`'s goal value from the goal atoms in `d`.
    fn goal_in_d(&self, role: RoleIndex) -> Result<u8, GoalError> {
        let mut held = crate::game::HeldGoals::default();
        for &(b, value) in R::GOALS[role] {
            if bit(&self.d, b as usize) {
                match value {
                    Ok(value) => held.add(value),
                    Err(text) => return Err(GoalError::NotANumber(text.to_owned())),
                }
            }
        }
        held.value()
    }

    #[inline]
    fn load(&mut self, s: &[u64; W]) {
        if self.cached == Cached::Nothing || self.state != *s {
            self.state = *s;
            R::eval_state(s, &mut self.d);
            self.cached = Cached::State;
        }
    }

    /// Role `role`'s random pick from the atoms of the loaded state (see
    /// [`Game::random_legal_move`]).
    #[inline]
    fn pick_loaded(&self, role: RoleIndex, pick: impl FnOnce(usize) -> usize) -> Option<u32> {
        let masks = R::LEGAL_WORDS[role];
        // A role of a few words (most have one) is shaped from the constant table,
        // not read from `move_bits`: where the roles' loop is unrolled, its masks are
        // constants.
        let shape = if masks.len() <= FEW_WORDS {
            MoveBits::of(masks)
        } else {
            self.move_bits[role]
        };
        let k = shape.pick(&self.d, masks, pick)?;
        Some(R::ROLE_MOVES[role] + k)
    }
}

impl<R: GroundRules<W, D, M>, const W: usize, const D: usize, const M: usize> Game
    for Ground<R, W, D, M>
{
    type State = Bits<W>;
    type Move = u32;
    type Percept = u32;

    fn num_roles(&self) -> usize {
        R::ROLES.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        R::ROLES[role]
    }

    fn initial_state(&mut self) -> Bits<W> {
        Bits(R::INIT)
    }

    fn is_terminal(&mut self, state: &Bits<W>) -> bool {
        self.load(&state.0);
        R::TERMINAL_BIT.is_some_and(|b| bit(&self.d, b as usize))
    }

    fn legal_moves(&mut self, state: &Bits<W>, role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        self.load(&state.0);
        push_masked(&self.d, R::LEGAL_WORDS[role], R::ROLE_MOVES[role], out);
    }

    fn random_legal_move(
        &mut self,
        state: &Bits<W>,
        role: RoleIndex,
        _scratch: &mut Vec<u32>,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<u32> {
        self.load(&state.0);
        self.pick_loaded(role, pick)
    }

    fn random_step(
        &mut self,
        state: &Bits<W>,
        joint: &mut Vec<u32>,
        _scratch: &mut Vec<u32>,
        mut pick: impl FnMut(usize) -> usize,
    ) -> RandomStep<Bits<W>> {
        // The state's atoms once for its terminal flag, every role's pick and the next
        // state (each query alone compares the state with the cached one).
        self.load(&state.0);
        if R::TERMINAL_BIT.is_some_and(|b| bit(&self.d, b as usize)) {
            return RandomStep::Terminal;
        }
        joint.clear();
        for role in 0..R::ROLES.len() {
            match self.pick_loaded(role, &mut pick) {
                Some(mv) => joint.push(mv),
                None => return RandomStep::NoLegalMove(role),
            }
        }
        let mut next = [0; W];
        R::eval_moves(&state.0, &self.d, joint, &mut self.m, &mut next);
        RandomStep::Next(Bits(next))
    }

    fn next_state(&mut self, state: &Bits<W>, joint: &[u32]) -> Bits<W> {
        self.load(&state.0);
        let mut next = [0; W];
        R::eval_moves(&state.0, &self.d, joint, &mut self.m, &mut next);
        Bits(next)
    }

    fn goal(&mut self, state: &Bits<W>, role: RoleIndex) -> Result<u8, GoalError> {
        let goals_here = self.cached == Cached::Goals && self.state == state.0;
        if !(self.goal_memo.off || goals_here)
            && let Some(values) = self.goal_memo.get(&state.0, R::ROLES.len())
        {
            return Ok(values[role]);
        }
        self.load(&state.0);
        if self.cached != Cached::Goals {
            R::eval_goals(&state.0, &mut self.d);
            self.cached = Cached::Goals;
            if !self.goal_memo.off {
                // Every role's value, remembered only when each has one (gathered in
                // the memo's own scratch: nothing allocated once it has grown).
                let mut values = std::mem::take(&mut self.goal_memo.scratch);
                values.clear();
                for r in 0..R::ROLES.len() {
                    match self.goal_in_d(r) {
                        Ok(value) => values.push(value),
                        Err(_) => break,
                    }
                }
                if values.len() == R::ROLES.len() {
                    self.goal_memo.remember(&state.0, &values);
                }
                self.goal_memo.scratch = values;
            }
        }
        self.goal_in_d(role)
    }

    fn sees(&mut self, state: &Bits<W>, joint: &[u32], role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        self.load(&state.0);
        let mut next = [0; W];
        R::eval_moves(&state.0, &self.d, joint, &mut self.m, &mut next);
        for &(b, percept) in R::SEES[role] {
            if bit(&self.m, b as usize) {
                out.push(percept);
            }
        }
    }

    fn move_to_kif(&self, mv: u32) -> String {
        R::MOVES[mv as usize].to_owned()
    }

    fn percept_to_kif(&self, percept: u32) -> String {
        R::PERCEPTS[percept as usize].to_owned()
    }

    fn state_to_kif(&self, state: &Bits<W>) -> Vec<String> {
        let mut ones = Vec::new();
        push_ones(&state.0, 0, W * 64, 0, &mut ones);
        let mut texts: Vec<String> = ones
            .into_iter()
            .map(|i| R::FLUENTS[i as usize].to_owned())
            .collect();
        texts.sort_unstable();
        texts
    }

    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<Bits<W>, StateError> {
        let mut state = Bits([0; W]);
        for text in fluents {
            let canonical = kif::canonical(text).map_err(StateError::Syntax)?;
            let i = R::FLUENTS
                .iter()
                .position(|&f| f == canonical)
                .ok_or_else(|| StateError::UnknownFluent(canonical.clone()))?;
            state.0[i >> 6] |= 1 << (i & 63);
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_goal_memo_reads_back_what_it_remembered_while_it_pays() {
        let mut memo = GoalMemo::<2>::default();
        assert_eq!(memo.get(&[1, 2], 2), None);
        memo.remember(&[1, 2], &[100, 0]);
        memo.remember(&[3, 4], &[50, 50]);
        assert_eq!(memo.get(&[1, 2], 2), Some(&[100, 0][..]));
        assert_eq!(memo.get(&[3, 4], 2), Some(&[50, 50][..]));
        assert_eq!(memo.get(&[2, 1], 2), None);
        // Hits keep it: one lookup in two hits.
        for i in 0..GOAL_MEMO_TRIAL {
            let state = if i % 2 == 0 { [1, 2] } else { [9, i] };
            memo.get(&state, 2);
        }
        assert!(!memo.off);
        // States that never repeat drop it, and it is asked no more.
        let mut misses = GoalMemo::<1>::default();
        for i in 0..GOAL_MEMO_TRIAL {
            assert_eq!(misses.get(&[i], 1), None);
            misses.remember(&[i], &[i as u8]);
        }
        assert!(misses.off && misses.at.is_empty() && misses.values.is_empty());
        misses.remember(&[0], &[7]);
        assert_eq!(misses.get(&[0], 1), None);
    }
}

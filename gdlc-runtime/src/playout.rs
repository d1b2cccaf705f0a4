//! Seeded random playouts: every role plays a uniformly random legal move until the
//! game ends.
//!
//! The same seed gives the same playout for the same reasoner: moves are drawn from the
//! sorted legal-move lists with a fixed PCG generator. [`Stepper`] is the allocation-free
//! loop shared with the simulation-count driver.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::game::{Game, GoalError, RandomStep, RoleIndex};

/// Settings of a random playout.
#[derive(Clone, Copy, Debug)]
pub struct PlayoutOptions {
    /// Seed of the random generator.
    pub seed: u64,
    /// Give up after this many steps (a valid game always ends; this guards bad ones).
    pub max_steps: usize,
}

impl Default for PlayoutOptions {
    fn default() -> Self {
        PlayoutOptions {
            seed: 0,
            max_steps: 100_000,
        }
    }
}

/// A finished playout.
#[derive(Clone, Debug)]
pub struct Playout<M> {
    /// The joint moves played, one move per role in role order.
    pub joint_moves: Vec<Vec<M>>,
    /// The goal value of each role in the terminal state.
    pub goals: Vec<Result<u8, GoalError>>,
}

/// Why a playout could not be finished.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayoutError {
    /// A role had no legal move in a non-terminal state (the game is not playable).
    #[error("role `{role}` has no legal move in the non-terminal state after {step} steps")]
    NoLegalMove {
        /// The role's name.
        role: String,
        /// Steps played before that state.
        step: usize,
    },
    /// The game did not end within the step limit.
    #[error("the game did not end within {0} steps")]
    StepLimit(usize),
}

/// Plays one seeded random playout from the initial state.
pub fn random_playout<G: Game>(
    game: &mut G,
    options: PlayoutOptions,
) -> Result<Playout<G::Move>, PlayoutError> {
    let initial = game.initial_state();
    random_playout_from(game, initial, options)
}

/// Plays one seeded random playout from `state`.
pub fn random_playout_from<G: Game>(
    game: &mut G,
    state: G::State,
    options: PlayoutOptions,
) -> Result<Playout<G::Move>, PlayoutError> {
    let mut stepper = Stepper::new(game, options.seed);
    let mut joint_moves = Vec::new();
    let terminal = stepper.play_to_end(game, state, options.max_steps, |joint| {
        joint_moves.push(joint.to_vec())
    })?;
    let goals = (0..game.num_roles())
        .map(|role| game.goal(&terminal, role))
        .collect();
    Ok(Playout { joint_moves, goals })
}

/// The reusable buffers of a random playout; stepping allocates nothing once warm.
pub struct Stepper<M> {
    rng: Pcg64Mcg,
    legal: Vec<M>,
    /// The joint move of the last step.
    pub joint: Vec<M>,
}

impl<M: Copy> Stepper<M> {
    /// A stepper whose random choices follow `seed`.
    pub fn new<G: Game<Move = M>>(game: &G, seed: u64) -> Self {
        Stepper {
            rng: Pcg64Mcg::seed_from_u64(seed),
            legal: Vec::new(),
            joint: Vec::with_capacity(game.num_roles()),
        }
    }

    /// Picks a random legal move for every role and returns the next state, or the
    /// index of a role that has no legal move.
    pub fn step<G: Game<Move = M>>(
        &mut self,
        game: &mut G,
        state: &G::State,
    ) -> Result<G::State, RoleIndex> {
        self.joint.clear();
        for role in 0..game.num_roles() {
            let rng = &mut self.rng;
            match game.random_legal_move(state, role, &mut self.legal, |n| pick(rng, n)) {
                Some(mv) => self.joint.push(mv),
                None => return Err(role),
            }
        }
        Ok(game.next_state(state, &self.joint))
    }

    /// One random step from `state` ([`Game::random_step`]: nothing if it is terminal),
    /// its joint move in [`Self::joint`].
    pub fn random_step<G: Game<Move = M>>(
        &mut self,
        game: &mut G,
        state: &G::State,
    ) -> RandomStep<G::State> {
        let rng = &mut self.rng;
        game.random_step(state, &mut self.joint, &mut self.legal, |n| pick(rng, n))
    }

    /// Plays random steps from `state` until a terminal state, which it returns; calls
    /// `on_step` with each joint move. Fails on a moveless role or after `max_steps`.
    pub fn play_to_end<G: Game<Move = M>>(
        &mut self,
        game: &mut G,
        mut state: G::State,
        max_steps: usize,
        mut on_step: impl FnMut(&[M]),
    ) -> Result<G::State, PlayoutError> {
        let mut steps = 0;
        loop {
            if steps == max_steps {
                return if game.is_terminal(&state) {
                    Ok(state)
                } else {
                    Err(PlayoutError::StepLimit(steps))
                };
            }
            match self.random_step(game, &state) {
                RandomStep::Terminal => return Ok(state),
                RandomStep::Next(next) => state = next,
                RandomStep::NoLegalMove(role) => {
                    return Err(PlayoutError::NoLegalMove {
                        role: game.role_name(role).to_owned(),
                        step: steps,
                    });
                }
            }
            on_step(&self.joint);
            steps += 1;
        }
    }
}

/// A uniformly random index below `n` (`n ≥ 1`); one legal move (a role out of turn)
/// needs no draw.
#[inline]
fn pick(rng: &mut Pcg64Mcg, n: usize) -> usize {
    if n == 1 { 0 } else { rng.random_range(0..n) }
}

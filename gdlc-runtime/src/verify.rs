//! Differential checking of two reasoners of the same game: perft, and along seeded
//! random playouts the full legal-move sets, terminal flags, goal values, percepts and
//! next states, all compared as sets of canonical KIF text, and the candidate's random
//! pick (`Game::random_legal_move`) and whole random step (`Game::random_step`), what
//! its playouts use, against its own list and next state. The
//! playouts are the candidate's: each step picks the seeded index of the candidate's
//! list, in the candidate's own order (reasoners may list moves in different orders,
//! see [`Game::legal_moves`]), and the reference plays the move of the same text. The
//! first difference is reported with the playout, step and what differed.

use std::fmt;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::game::{Game, RandomStep, RoleIndex};
use crate::perft::perft;

/// What to compare.
#[derive(Clone, Copy, Debug)]
pub struct CompareOptions {
    /// Perft depth from the initial state (0: no perft).
    pub perft_depth: u32,
    /// Number of seeded random playouts.
    pub playouts: usize,
    /// Steps per playout at most.
    pub max_steps: usize,
    /// Seed of the first playout (playout `i` uses `seed + i`).
    pub seed: u64,
}

/// What was compared, when the reasoners agree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// The perft figures, depth 1 up to the requested depth.
    pub perft: Vec<u64>,
    /// States compared along the playouts.
    pub states: usize,
}

/// Compares `candidate` with `reference`; `Err` holds the first difference.
pub fn compare<R: Game, C: Game>(
    reference: &mut R,
    candidate: &mut C,
    options: CompareOptions,
) -> Result<Agreement, String> {
    let mut pair = Pair::new(reference, candidate)?;
    let mut agreement = Agreement {
        perft: pair.perft(options.perft_depth)?,
        states: 0,
    };
    for playout in 0..options.playouts {
        let seed = options.seed.wrapping_add(playout as u64);
        agreement.states += pair.playout(seed, options.max_steps)?;
    }
    Ok(agreement)
}

/// Where a difference was found: a step of the playout of a seed.
#[derive(Clone, Copy, Debug)]
struct Step {
    seed: u64,
    step: usize,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "playout seed {}, step {}", self.seed, self.step)
    }
}

/// The two reasoners being compared, with the buffers their lists are read into.
struct Pair<'a, R: Game, C: Game> {
    reference: &'a mut R,
    candidate: &'a mut C,
    roles: usize,
    moves_r: Vec<R::Move>,
    moves_c: Vec<C::Move>,
    scratch: Vec<C::Move>,
    percepts_r: Vec<R::Percept>,
    percepts_c: Vec<C::Percept>,
    /// The joint move of the step, in each reasoner's terms.
    joint_r: Vec<R::Move>,
    joint_c: Vec<C::Move>,
    /// Each role's seeded index into the candidate's list, this step.
    picks: Vec<usize>,
    /// The joint move of the candidate's own random step.
    joint_step: Vec<C::Move>,
}

impl<'a, R: Game, C: Game> Pair<'a, R, C> {
    /// The pair, if the reasoners have the same roles in the same order.
    fn new(reference: &'a mut R, candidate: &'a mut C) -> Result<Self, String> {
        let roles = reference.num_roles();
        if candidate.num_roles() != roles {
            return Err(format!(
                "roles: {} in the reference, {} in the candidate",
                roles,
                candidate.num_roles()
            ));
        }
        for role in 0..roles {
            if reference.role_name(role) != candidate.role_name(role) {
                return Err(format!(
                    "role {role}: `{}` in the reference, `{}` in the candidate",
                    reference.role_name(role),
                    candidate.role_name(role)
                ));
            }
        }
        Ok(Pair {
            reference,
            candidate,
            roles,
            moves_r: Vec::new(),
            moves_c: Vec::new(),
            scratch: Vec::new(),
            percepts_r: Vec::new(),
            percepts_c: Vec::new(),
            joint_r: Vec::with_capacity(roles),
            joint_c: Vec::with_capacity(roles),
            picks: Vec::with_capacity(roles),
            joint_step: Vec::with_capacity(roles),
        })
    }

    /// The perft figures of both from their initial states, depth 1 to `depth`, if they
    /// agree.
    fn perft(&mut self, depth: u32) -> Result<Vec<u64>, String> {
        let start_r = self.reference.initial_state();
        let start_c = self.candidate.initial_state();
        let mut figures = Vec::new();
        for depth in 1..=depth {
            let expected = perft(self.reference, &start_r, depth);
            let found = perft(self.candidate, &start_c, depth);
            if expected != found {
                return Err(format!(
                    "perft({depth}): {expected} in the reference, {found} in the candidate"
                ));
            }
            figures.push(expected);
        }
        Ok(figures)
    }

    /// Plays the candidate's seeded random playout on both, comparing every state on
    /// the way; the number of states compared.
    fn playout(&mut self, seed: u64, max_steps: usize) -> Result<usize, String> {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut state_r = self.reference.initial_state();
        let mut state_c = self.candidate.initial_state();
        let mut states = 0;
        for step in 0..=max_steps {
            let at = Step { seed, step };
            states += 1;
            let terminal = self.same_state(&state_r, &state_c, at)?;
            if terminal {
                self.same_random_step(&state_c, RandomStep::Terminal, at)?;
                break;
            }
            if step == max_steps {
                break;
            }
            self.picks.clear();
            if !self.joint_moves(&state_r, &state_c, &mut rng, at)? {
                let role = self.picks.len();
                self.same_random_step(&state_c, RandomStep::NoLegalMove(role), at)?;
                break;
            }
            self.same_percepts(&state_r, &state_c, at)?;
            state_r = self.reference.next_state(&state_r, &self.joint_r);
            let next_c = self.candidate.next_state(&state_c, &self.joint_c);
            self.same_random_step(&state_c, RandomStep::Next(next_c.clone()), at)?;
            state_c = next_c;
        }
        Ok(states)
    }

    /// Checks that the states have the same fluents, terminal flag and goal values;
    /// whether they are terminal.
    fn same_state(
        &mut self,
        state_r: &R::State,
        state_c: &C::State,
        at: Step,
    ) -> Result<bool, String> {
        let fluents_r = self.reference.state_to_kif(state_r);
        let fluents_c = self.candidate.state_to_kif(state_c);
        if fluents_r != fluents_c {
            return Err(format!(
                "{at}: states differ\n  reference: {}\n  candidate: {}",
                fluents_r.join(" "),
                fluents_c.join(" ")
            ));
        }
        let terminal = self.reference.is_terminal(state_r);
        if terminal != self.candidate.is_terminal(state_c) {
            return Err(format!("{at}: terminal is {terminal} in the reference"));
        }
        for role in 0..self.roles {
            let goal_r = self.reference.goal(state_r, role);
            let goal_c = self.candidate.goal(state_c, role);
            if goal_r != goal_c {
                return Err(format!(
                    "{at}: goal of {}: {goal_r:?} in the reference, {goal_c:?} in the candidate",
                    self.reference.role_name(role)
                ));
            }
        }
        Ok(terminal)
    }

    /// Sets the joint move of the step, in each reasoner's terms: every role's seeded
    /// pick from the candidate's list (see [`Self::push_role_move`]); whether every role
    /// has a legal move.
    fn joint_moves(
        &mut self,
        state_r: &R::State,
        state_c: &C::State,
        rng: &mut Pcg64Mcg,
        at: Step,
    ) -> Result<bool, String> {
        self.joint_r.clear();
        self.joint_c.clear();
        for role in 0..self.roles {
            if !self.push_role_move(state_r, state_c, role, rng, at)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Checks that `role` has the same legal moves in both, then picks the seeded index
    /// of the candidate's list, checks that the candidate's random pick agrees, and
    /// adds the move to the joint move in each reasoner's terms (the reference's is the
    /// one of the same text); whether the role has a legal move.
    fn push_role_move(
        &mut self,
        state_r: &R::State,
        state_c: &C::State,
        role: RoleIndex,
        rng: &mut Pcg64Mcg,
        at: Step,
    ) -> Result<bool, String> {
        self.reference.legal_moves(state_r, role, &mut self.moves_r);
        self.candidate.legal_moves(state_c, role, &mut self.moves_c);
        let listed_r: Vec<String> = self
            .moves_r
            .iter()
            .map(|&m| self.reference.move_to_kif(m))
            .collect();
        let listed_c: Vec<String> = self
            .moves_c
            .iter()
            .map(|&m| self.candidate.move_to_kif(m))
            .collect();
        let texts_r = sorted(listed_r.clone());
        let texts_c = sorted(listed_c.clone());
        if texts_r != texts_c {
            return Err(format!(
                "{at}: legal moves of {}\n  reference: {}\n  candidate: {}",
                self.reference.role_name(role),
                texts_r.join(" "),
                texts_c.join(" ")
            ));
        }
        if self.moves_c.is_empty() {
            return Ok(false);
        }
        let pick = rng.random_range(0..self.moves_c.len());
        self.same_random_pick(state_c, role, pick, at)?;
        self.picks.push(pick);
        // The sets are equal, so the reference lists the candidate's pick.
        let Some(played_r) = listed_r.iter().position(|t| *t == listed_c[pick]) else {
            return Err(format!("{at}: `{}` is not listed", listed_c[pick]));
        };
        self.joint_r.push(self.moves_r[played_r]);
        self.joint_c.push(self.moves_c[pick]);
        Ok(true)
    }

    /// Checks that the candidate's random pick (what its playouts use), given the seeded
    /// index `pick`, is move `pick` of its list (`moves_c`).
    fn same_random_pick(
        &mut self,
        state_c: &C::State,
        role: RoleIndex,
        pick: usize,
        at: Step,
    ) -> Result<(), String> {
        let mut offered = None;
        let picked = self
            .candidate
            .random_legal_move(state_c, role, &mut self.scratch, |n| {
                offered = Some(n);
                pick.min(n.saturating_sub(1))
            });
        let listed = &self.moves_c;
        if offered != Some(listed.len()) || picked != Some(listed[pick]) {
            return Err(format!(
                "{at}: random pick of {}: {:?} of {offered:?} moves, the list has {} of {}",
                self.reference.role_name(role),
                picked.map(|m| self.candidate.move_to_kif(m)),
                self.candidate.move_to_kif(listed[pick]),
                listed.len()
            ));
        }
        Ok(())
    }

    /// Checks the candidate's whole random step (`Game::random_step`, what its playouts
    /// use), given the step's seeded indices: that it finds what the queries one by one
    /// found (`expected`), and plays the step's joint move.
    fn same_random_step(
        &mut self,
        state_c: &C::State,
        expected: RandomStep<C::State>,
        at: Step,
    ) -> Result<(), String> {
        let mut picks = self.picks.iter();
        let got =
            self.candidate
                .random_step(state_c, &mut self.joint_step, &mut self.scratch, |n| {
                    picks.next().map_or(0, |&k| k.min(n.saturating_sub(1)))
                });
        let describe = |step: &RandomStep<C::State>, game: &C| match step {
            RandomStep::Terminal => "terminal".to_owned(),
            RandomStep::NoLegalMove(role) => format!("no legal move of {}", game.role_name(*role)),
            RandomStep::Next(next) => format!("next state {}", game.state_to_kif(next).join(" ")),
        };
        if got != expected {
            return Err(format!(
                "{at}: random step: {}, where the queries one by one give {}",
                describe(&got, self.candidate),
                describe(&expected, self.candidate)
            ));
        }
        if matches!(got, RandomStep::Next(_)) && self.joint_step != self.joint_c {
            let texts = |joint: &[C::Move]| {
                joint
                    .iter()
                    .map(|&m| self.candidate.move_to_kif(m))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            return Err(format!(
                "{at}: random step played {}, the seeded picks are {}",
                texts(&self.joint_step),
                texts(&self.joint_c)
            ));
        }
        Ok(())
    }

    /// Checks that every role sees the same percepts in both after the joint move.
    fn same_percepts(
        &mut self,
        state_r: &R::State,
        state_c: &C::State,
        at: Step,
    ) -> Result<(), String> {
        for role in 0..self.roles {
            self.reference
                .sees(state_r, &self.joint_r, role, &mut self.percepts_r);
            self.candidate
                .sees(state_c, &self.joint_c, role, &mut self.percepts_c);
            let texts_r = sorted(
                self.percepts_r
                    .iter()
                    .map(|&p| self.reference.percept_to_kif(p))
                    .collect(),
            );
            let texts_c = sorted(
                self.percepts_c
                    .iter()
                    .map(|&p| self.candidate.percept_to_kif(p))
                    .collect(),
            );
            if texts_r != texts_c {
                return Err(format!(
                    "{at}: percepts of {}\n  reference: {}\n  candidate: {}",
                    self.reference.role_name(role),
                    texts_r.join(" "),
                    texts_c.join(" ")
                ));
            }
        }
        Ok(())
    }
}

/// `texts` sorted: a reasoner's list compared as a set.
fn sorted(mut texts: Vec<String>) -> Vec<String> {
    texts.sort_unstable();
    texts
}

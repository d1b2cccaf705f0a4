//! Playing from percepts (GDL-II): a belief state of sampled states consistent with what
//! the role has seen, and a move chosen by searching a few of them.
//!
//! Each turn the player learns its own last move and its percepts. Every believed state
//! is advanced by every joint move with that own move (a random sample of them when
//! the other roles have too many combinations), and a successor is kept when the role
//! would have seen exactly those percepts there. Each state carries a weight, its
//! probability if the other roles play uniformly at random (exact for `random`): a
//! successor weighs its parent's weight over the number of the others' joint moves,
//! and equal states add up. The set is capped by keeping the heaviest states.
//! The move is searched by determinisation: a few believed states, drawn by weight,
//! are each searched as if they were the true state; visits are added up per move,
//! scaled by the state's weight, and only moves legal in every believed state are
//! played.

use std::collections::HashMap;
use std::time::Instant;

use gdlc_runtime::game::{Game, RoleIndex};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::mcts::Mcts;

/// Believed states kept at most.
const MAX_STATES: usize = 256;
/// Joint moves of the other roles tried per believed state at most.
const MAX_JOINTS: usize = 64;
/// Believed states searched per move at most.
const MAX_SEARCHED: usize = 8;

/// The states a role believes possible.
pub struct Belief<G: Game> {
    role: RoleIndex,
    /// States and their weights (summing to 1 up to the cap's losses).
    states: Vec<(G::State, f64)>,
    rng: Pcg64Mcg,
}

impl<G: Game + Clone> Belief<G> {
    /// The belief at the start: the initial state.
    pub fn new(game: &mut G, role: RoleIndex, seed: u64) -> Self {
        Belief {
            role,
            states: vec![(game.initial_state(), 1.0)],
            rng: Pcg64Mcg::seed_from_u64(seed),
        }
    }

    /// How many states are believed possible.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether no state is believed possible (never after [`Belief::new`]).
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Advances the belief by a turn in which the role played `own` (KIF text) and saw
    /// `percepts` (canonical KIF text, any order). When no successor fits (the sampling
    /// lost the true state), every successor is kept, and the error says so.
    pub fn update(&mut self, game: &mut G, own: &str, percepts: &[String]) -> Result<(), String> {
        let mut wanted: Vec<&str> = percepts.iter().map(String::as_str).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut kept: HashMap<G::State, f64> = HashMap::new();
        let mut all: HashMap<G::State, f64> = HashMap::new();
        let mut legal = Vec::new();
        let mut sees = Vec::new();
        for (state, weight) in std::mem::take(&mut self.states) {
            let Ok(mine) = game.legal_move_from_kif(&state, self.role, own) else {
                continue;
            };
            let (joints, combinations) = self.joints(game, &state, mine, &mut legal);
            let share = weight / combinations as f64;
            for joint in joints {
                game.sees(&state, &joint, self.role, &mut sees);
                let mut texts: Vec<String> = sees.iter().map(|&p| game.percept_to_kif(p)).collect();
                texts.sort_unstable();
                texts.dedup();
                let next = game.next_state(&state, &joint);
                if texts.iter().map(String::as_str).eq(wanted.iter().copied()) {
                    *kept.entry(next).or_default() += share;
                } else if kept.is_empty() && all.len() < MAX_STATES {
                    *all.entry(next).or_default() += share;
                }
            }
        }
        let consistent = !kept.is_empty();
        let mut states: Vec<(G::State, f64)> =
            if consistent { kept } else { all }.into_iter().collect();
        // A deterministic order (the maps' is not), then the heaviest first.
        states.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)))
        });
        states.truncate(MAX_STATES);
        let total: f64 = states.iter().map(|(_, w)| w).sum();
        if total > 0.0 {
            for (_, w) in &mut states {
                *w /= total;
            }
        }
        self.states = states;
        if consistent {
            Ok(())
        } else {
            Err("no believed state fits the percepts; keeping every successor".to_owned())
        }
    }

    /// Joint moves with `mine` for this role and, for the others, every combination of
    /// their legal moves (or a random sample of them), and how many the weight is
    /// shared by.
    fn joints(
        &mut self,
        game: &mut G,
        state: &G::State,
        mine: G::Move,
        legal: &mut Vec<G::Move>,
    ) -> (Vec<Vec<G::Move>>, usize) {
        let roles = game.num_roles();
        let mut choices: Vec<Vec<G::Move>> = Vec::with_capacity(roles);
        for role in 0..roles {
            if role == self.role {
                choices.push(vec![mine]);
            } else {
                game.legal_moves(state, role, legal);
                choices.push(legal.clone());
            }
        }
        if choices.iter().any(Vec::is_empty) {
            return (Vec::new(), 1);
        }
        let combinations = choices
            .iter()
            .try_fold(1usize, |n, c| n.checked_mul(c.len()))
            .unwrap_or(usize::MAX);
        if combinations <= MAX_JOINTS {
            let mut joints = vec![Vec::new()];
            for options in &choices {
                joints = joints
                    .into_iter()
                    .flat_map(|joint| {
                        options.iter().map(move |&m| {
                            let mut j = joint.clone();
                            j.push(m);
                            j
                        })
                    })
                    .collect();
            }
            (joints, combinations)
        } else {
            let sample = (0..MAX_JOINTS)
                .map(|_| {
                    choices
                        .iter()
                        .map(|options| options[self.rng.random_range(0..options.len())])
                        .collect()
                })
                .collect();
            (sample, MAX_JOINTS)
        }
    }

    /// The role's move: legal in every believed state, the most visited over searches
    /// of a few believed states until `deadline`. `None` when the role has no move.
    pub fn choose(&mut self, game: &mut G, deadline: Instant) -> Option<G::Move> {
        let candidates = self.legal_everywhere(game);
        if candidates.len() <= 1 {
            return candidates.first().copied();
        }
        let sample = self.draw(MAX_SEARCHED);
        let mut visits: HashMap<G::Move, f64> = HashMap::new();
        let start = Instant::now();
        let total = deadline.saturating_duration_since(start);
        for (k, &i) in sample.iter().enumerate() {
            let until = start + total.mul_f64((k + 1) as f64 / sample.len() as f64);
            let (state, weight) = &self.states[i];
            let mut search = Mcts::new(game.clone(), state.clone(), self.rng.random());
            search.search_until(until, u64::MAX);
            let n_total: u32 = search.root_visits(self.role).iter().sum();
            for (m, n) in search
                .legal_moves(self.role)
                .iter()
                .zip(search.root_visits(self.role))
            {
                *visits.entry(*m).or_default() += weight * f64::from(n) / f64::from(n_total.max(1));
            }
        }
        candidates.iter().copied().max_by(|a, b| {
            let va = visits.get(a).copied().unwrap_or(0.0);
            let vb = visits.get(b).copied().unwrap_or(0.0);
            va.total_cmp(&vb).then(b.cmp(a))
        })
    }

    /// A uniformly random move among those legal in every believed state.
    pub fn random_move(&mut self, game: &mut G) -> Option<G::Move> {
        let candidates = self.legal_everywhere(game);
        (!candidates.is_empty()).then(|| candidates[self.rng.random_range(0..candidates.len())])
    }

    /// The role's moves legal in every believed state (those of the heaviest state when
    /// the states agree on none).
    fn legal_everywhere(&mut self, game: &mut G) -> Vec<G::Move> {
        let mut common: Option<Vec<G::Move>> = None;
        let mut legal = Vec::new();
        for (state, _) in &self.states {
            game.legal_moves(state, self.role, &mut legal);
            common = Some(match common {
                None => legal.clone(),
                Some(c) => c.into_iter().filter(|m| legal.contains(m)).collect(),
            });
        }
        let mut candidates = common.unwrap_or_default();
        if candidates.is_empty()
            && let Some((state, _)) = self.states.first()
        {
            game.legal_moves(state, self.role, &mut candidates);
        }
        candidates
    }

    /// Up to `n` distinct believed states drawn by weight (indices).
    fn draw(&mut self, n: usize) -> Vec<usize> {
        let mut left: Vec<usize> = (0..self.states.len()).collect();
        let mut drawn = Vec::new();
        while drawn.len() < n && !left.is_empty() {
            let total: f64 = left.iter().map(|&i| self.states[i].1).sum();
            let mut x = self.rng.random::<f64>() * total;
            let mut pick = left.len() - 1;
            for (k, &i) in left.iter().enumerate() {
                x -= self.states[i].1;
                if x <= 0.0 {
                    pick = k;
                    break;
                }
            }
            drawn.push(left.swap_remove(pick));
        }
        drawn
    }
}

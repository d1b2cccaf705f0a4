//! Differential checking of two reasoners of the same game: perft, and along seeded
//! random playouts the full legal-move sets, terminal flags, goal values, percepts and
//! next states, all compared as sets of canonical KIF text, and the candidate's random
//! pick (`Game::random_legal_move`, what its playouts use) against its own list. The
//! playouts are the candidate's: each step picks the seeded index of the candidate's
//! list, in the candidate's own order (reasoners may list moves in different orders,
//! see [`Game::legal_moves`]), and the reference plays the move of the same text. The
//! first difference is reported with the playout, step and what differed.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::game::Game;
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
    let mut agreement = Agreement::default();
    let start_r = reference.initial_state();
    let start_c = candidate.initial_state();
    for depth in 1..=options.perft_depth {
        let expected = perft(reference, &start_r, depth);
        let found = perft(candidate, &start_c, depth);
        if expected != found {
            return Err(format!(
                "perft({depth}): {expected} in the reference, {found} in the candidate"
            ));
        }
        agreement.perft.push(expected);
    }
    let mut moves_r = Vec::new();
    let mut moves_c = Vec::new();
    let mut scratch = Vec::new();
    let mut percepts_r = Vec::new();
    let mut percepts_c = Vec::new();
    for playout in 0..options.playouts {
        let seed = options.seed.wrapping_add(playout as u64);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut state_r = reference.initial_state();
        let mut state_c = candidate.initial_state();
        let at = |step: usize| format!("playout seed {seed}, step {step}");
        for step in 0..=options.max_steps {
            agreement.states += 1;
            let fluents_r = reference.state_to_kif(&state_r);
            let fluents_c = candidate.state_to_kif(&state_c);
            if fluents_r != fluents_c {
                return Err(format!(
                    "{}: states differ\n  reference: {}\n  candidate: {}",
                    at(step),
                    fluents_r.join(" "),
                    fluents_c.join(" ")
                ));
            }
            let terminal = reference.is_terminal(&state_r);
            if terminal != candidate.is_terminal(&state_c) {
                return Err(format!(
                    "{}: terminal is {terminal} in the reference",
                    at(step)
                ));
            }
            for role in 0..roles {
                let goal_r = reference.goal(&state_r, role);
                let goal_c = candidate.goal(&state_c, role);
                if goal_r != goal_c {
                    return Err(format!(
                        "{}: goal of {}: {goal_r:?} in the reference, {goal_c:?} in the candidate",
                        at(step),
                        reference.role_name(role)
                    ));
                }
            }
            if terminal || step == options.max_steps {
                break;
            }
            let mut joint_r = Vec::with_capacity(roles);
            let mut joint_c = Vec::with_capacity(roles);
            for role in 0..roles {
                reference.legal_moves(&state_r, role, &mut moves_r);
                candidate.legal_moves(&state_c, role, &mut moves_c);
                let listed_r: Vec<String> =
                    moves_r.iter().map(|&m| reference.move_to_kif(m)).collect();
                let listed_c: Vec<String> =
                    moves_c.iter().map(|&m| candidate.move_to_kif(m)).collect();
                let texts_r = sorted(listed_r.clone());
                let texts_c = sorted(listed_c.clone());
                if texts_r != texts_c {
                    return Err(format!(
                        "{}: legal moves of {}\n  reference: {}\n  candidate: {}",
                        at(step),
                        reference.role_name(role),
                        texts_r.join(" "),
                        texts_c.join(" ")
                    ));
                }
                if moves_c.is_empty() {
                    break;
                }
                let pick = rng.random_range(0..moves_c.len());
                // The candidate's random pick (what its playouts use) agrees with its
                // list.
                let mut offered = None;
                let picked = candidate.random_legal_move(&state_c, role, &mut scratch, |n| {
                    offered = Some(n);
                    pick.min(n.saturating_sub(1))
                });
                if offered != Some(moves_c.len()) || picked != Some(moves_c[pick]) {
                    return Err(format!(
                        "{}: random pick of {}: {:?} of {offered:?} moves, the list has {} of {}",
                        at(step),
                        reference.role_name(role),
                        picked.map(|m| candidate.move_to_kif(m)),
                        candidate.move_to_kif(moves_c[pick]),
                        moves_c.len()
                    ));
                }
                // The sets are equal, so the reference lists the candidate's pick.
                let Some(played_r) = listed_r.iter().position(|t| *t == listed_c[pick]) else {
                    return Err(format!("{}: `{}` is not listed", at(step), listed_c[pick]));
                };
                joint_r.push(moves_r[played_r]);
                joint_c.push(moves_c[pick]);
            }
            if joint_r.len() < roles {
                break;
            }
            for role in 0..roles {
                reference.sees(&state_r, &joint_r, role, &mut percepts_r);
                candidate.sees(&state_c, &joint_c, role, &mut percepts_c);
                let texts_r = sorted(
                    percepts_r
                        .iter()
                        .map(|&p| reference.percept_to_kif(p))
                        .collect(),
                );
                let texts_c = sorted(
                    percepts_c
                        .iter()
                        .map(|&p| candidate.percept_to_kif(p))
                        .collect(),
                );
                if texts_r != texts_c {
                    return Err(format!(
                        "{}: percepts of {}\n  reference: {}\n  candidate: {}",
                        at(step),
                        reference.role_name(role),
                        texts_r.join(" "),
                        texts_c.join(" ")
                    ));
                }
            }
            state_r = reference.next_state(&state_r, &joint_r);
            state_c = candidate.next_state(&state_c, &joint_c);
        }
    }
    Ok(agreement)
}

/// `texts` sorted: a reasoner's list compared as a set.
fn sorted(mut texts: Vec<String>) -> Vec<String> {
    texts.sort_unstable();
    texts
}

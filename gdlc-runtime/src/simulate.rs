//! The simulation-count driver: random playouts from the initial state for a given
//! time, counting playouts and state changes — the figure reasoners are compared by —
//! and, when one of them fails, that playout found again ([`failing_playout`]).

use std::time::{Duration, Instant};

use crate::game::Game;
use crate::playout::{PlayoutError, Stepper};

/// What a timed run of random playouts achieved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimulationReport {
    /// Complete playouts (initial state to terminal state).
    pub playouts: u64,
    /// State changes (calls of `next_state`), including those of the unfinished last
    /// playout.
    pub states: u64,
    /// Wall-clock time used.
    pub elapsed: Duration,
}

impl SimulationReport {
    /// Complete playouts per second.
    pub fn playouts_per_second(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64()
    }

    /// State changes per second.
    pub fn states_per_second(&self) -> f64 {
        self.states as f64 / self.elapsed.as_secs_f64()
    }
}

/// Runs random playouts for about `budget` (at least one playout is finished), reading
/// the clock once per playout. Goals are evaluated at each terminal state, as a player
/// would.
pub fn simulate_for<G: Game>(
    game: &mut G,
    budget: Duration,
    seed: u64,
    max_steps: usize,
) -> Result<SimulationReport, PlayoutError> {
    let mut stepper = Stepper::new(game, seed);
    let initial = game.initial_state();
    let start = Instant::now();
    let mut report = SimulationReport {
        playouts: 0,
        states: 0,
        elapsed: Duration::ZERO,
    };
    let mut goal_sum = 0u64;
    loop {
        let mut steps = 0u64;
        let state = stepper.play_to_end(game, initial.clone(), max_steps, |_| steps += 1)?;
        for role in 0..game.num_roles() {
            goal_sum += u64::from(game.goal(&state, role).unwrap_or(0));
        }
        report.playouts += 1;
        report.states += steps;
        report.elapsed = start.elapsed();
        if report.elapsed >= budget {
            break;
        }
    }
    std::hint::black_box(goal_sum);
    Ok(report)
}

/// A playout of [`simulate_for`]'s run that could not be finished, found again by
/// [`failing_playout`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedPlayout<M> {
    /// Which playout of the run failed, from 1.
    pub number: u64,
    /// The joint moves it played before it failed, one move per role in role order.
    pub joint_moves: Vec<Vec<M>>,
    /// Why it failed.
    pub error: PlayoutError,
}

/// The first playout of [`simulate_for`]'s run with `seed` that fails, with the joint
/// moves that led to the failure, so that it can be replayed (by the interpreter:
/// `gdlc playout GAME --moves …`). `simulate_for` keeps no record of its playouts;
/// this plays the same random playouts again (one seed gives one run), recording
/// each, until one fails. `None` when none fails within `budget`.
pub fn failing_playout<G: Game>(
    game: &mut G,
    budget: Duration,
    seed: u64,
    max_steps: usize,
) -> Option<FailedPlayout<G::Move>> {
    let mut stepper = Stepper::new(game, seed);
    let initial = game.initial_state();
    let start = Instant::now();
    let mut number = 0;
    while start.elapsed() < budget {
        number += 1;
        let mut joint_moves: Vec<Vec<G::Move>> = Vec::new();
        let played = stepper.play_to_end(game, initial.clone(), max_steps, |joint| {
            joint_moves.push(joint.to_vec())
        });
        if let Err(error) = played {
            return Some(FailedPlayout {
                number,
                joint_moves,
                error,
            });
        }
    }
    None
}

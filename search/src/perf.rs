//! gdl-perf's perf test on any reasoner: random playouts from the initial state for a
//! time budget, counting state changes and rollouts as gdl-perf's own runners do (the
//! clock is read before each rollout and each state change; an unfinished rollout's
//! state changes count, the rollout does not).

use std::time::{Duration, Instant};

use gdlc_runtime::game::{Game, RandomStep};
use gdlc_runtime::playout::Stepper;

/// What a perf test counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerfCounts {
    /// Length of the timed part.
    pub elapsed: Duration,
    /// Joint moves applied.
    pub state_changes: u64,
    /// Terminal states reached (every role's goal computed there).
    pub rollouts: u64,
}

/// Runs the test for `budget`; fails when a role has no legal move in a non-terminal
/// state.
pub fn run<G: Game>(game: &mut G, budget: Duration) -> Result<PerfCounts, String> {
    let mut stepper = Stepper::new(game, 1);
    let initial = game.initial_state();
    let roles = game.num_roles();
    let start = Instant::now();
    let mut counts = PerfCounts {
        elapsed: Duration::ZERO,
        state_changes: 0,
        rollouts: 0,
    };
    let mut state = initial.clone();
    let mut goal_sum = 0u64;
    while start.elapsed() < budget {
        match stepper.random_step(game, &state) {
            RandomStep::Terminal => {
                for role in 0..roles {
                    goal_sum += u64::from(game.goal(&state, role).unwrap_or(0));
                }
                counts.rollouts += 1;
                state = initial.clone();
            }
            RandomStep::Next(next) => {
                state = next;
                counts.state_changes += 1;
            }
            RandomStep::NoLegalMove(role) => {
                return Err(format!(
                    "role `{}` has no legal move in a non-terminal state",
                    game.role_name(role)
                ));
            }
        }
    }
    counts.elapsed = start.elapsed();
    std::hint::black_box(goal_sum);
    Ok(counts)
}

//! `gdlc-player perf GAME_FILE RESULT_FILE SECONDS`: gdl-perf's perf-test process
//! protocol. Random playouts from the initial state for SECONDS (whole seconds, as
//! gdl-perf's own runners check the clock), counting state changes and rollouts, then
//! `key=value` lines in RESULT_FILE: `version`, `millisecondsTaken`, `numStateChanges`,
//! `numRollouts`, or `version` and `errorMessage` when the test cannot run.

use std::path::Path;
use std::time::{Duration, Instant};

use gdlc_runtime::game::Game;
use gdlc_runtime::playout::Stepper;

use crate::reasoner::{ReasonerKind, Rules, Visitor};

/// What a perf run counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerfCounts {
    /// Length of the timed part.
    pub elapsed: Duration,
    /// Joint moves applied (an unfinished rollout's included).
    pub state_changes: u64,
    /// Terminal states reached.
    pub rollouts: u64,
    /// The reasoner used.
    pub reasoner: ReasonerKind,
}

/// Runs the test on the rules in `game_file` for `seconds`.
pub fn run(game_file: &Path, seconds: u64) -> Result<PerfCounts, String> {
    let text = std::fs::read_to_string(game_file)
        .map_err(|e| format!("cannot read {}: {e}", game_file.display()))?;
    let rules = Rules::parse(&game_file.display().to_string(), &text)?;
    rules.with_reasoner(Timed {
        budget: Duration::from_secs(seconds),
    })?
}

/// The result file's text for an outcome.
pub fn result_text(outcome: &Result<PerfCounts, String>) -> String {
    let version = format!("version=gdlc-player {}\n", env!("CARGO_PKG_VERSION"));
    match outcome {
        Ok(counts) => format!(
            "{version}millisecondsTaken={}\nnumStateChanges={}\nnumRollouts={}\n",
            counts.elapsed.as_millis(),
            counts.state_changes,
            counts.rollouts
        ),
        Err(why) => format!(
            "{version}errorMessage={}\n",
            why.replace(['\n', '\r'], " ").trim()
        ),
    }
}

struct Timed {
    budget: Duration,
}

impl Visitor for Timed {
    type Output = Result<PerfCounts, String>;

    fn visit<G: Game + Clone + Send>(self, reasoner: ReasonerKind, mut game: G) -> Self::Output {
        let mut stepper = Stepper::new(&game, 1);
        let initial = game.initial_state();
        let roles = game.num_roles();
        let start = Instant::now();
        let mut counts = PerfCounts {
            elapsed: Duration::ZERO,
            state_changes: 0,
            rollouts: 0,
            reasoner,
        };
        let mut state = initial.clone();
        let mut goal_sum = 0u64;
        while start.elapsed() < self.budget {
            if game.is_terminal(&state) {
                for role in 0..roles {
                    goal_sum += u64::from(game.goal(&state, role).unwrap_or(0));
                }
                counts.rollouts += 1;
                state = initial.clone();
                continue;
            }
            state = stepper.step(&mut game, &state).map_err(|role| {
                format!(
                    "role `{}` has no legal move in a non-terminal state",
                    game.role_name(role)
                )
            })?;
            counts.state_changes += 1;
        }
        counts.elapsed = start.elapsed();
        std::hint::black_box(goal_sum);
        Ok(counts)
    }
}

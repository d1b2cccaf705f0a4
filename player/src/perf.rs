//! `gdlc-player perf GAME_FILE RESULT_FILE SECONDS`: gdl-perf's perf-test process
//! protocol. Random playouts from the initial state for SECONDS (whole seconds, as
//! gdl-perf's own runners check the clock), counting state changes and rollouts, then
//! `key=value` lines in RESULT_FILE: `version`, `millisecondsTaken`, `numStateChanges`,
//! `numRollouts`, or `version` and `errorMessage` when the test cannot run.
//!
//! [`thread_rates`] (`gdlc-player bench`) measures random playouts per second on 1, 2, …
//! N threads, each on its own clone of the reasoner.

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

    fn visit<G>(self, reasoner: ReasonerKind, mut game: G) -> Self::Output
    where
        G: Game + Clone + Send,
        G::Move: Send,
    {
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

/// Playouts per second with `threads` threads, each running random playouts from the
/// initial state on its own clone of the reasoner for `budget`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThreadRate {
    /// Threads used.
    pub threads: usize,
    /// Playouts completed by all threads, per second.
    pub playouts_per_second: f64,
}

/// Measures random playouts per second on 1, 2, … `max_threads` threads.
pub fn thread_rates(
    game_file: &Path,
    max_threads: usize,
    budget: Duration,
) -> Result<(ReasonerKind, Vec<ThreadRate>), String> {
    let text = std::fs::read_to_string(game_file)
        .map_err(|e| format!("cannot read {}: {e}", game_file.display()))?;
    let rules = Rules::parse(&game_file.display().to_string(), &text)?;
    rules.with_reasoner(Threads {
        max_threads,
        budget,
    })?
}

struct Threads {
    max_threads: usize,
    budget: Duration,
}

impl Visitor for Threads {
    type Output = Result<(ReasonerKind, Vec<ThreadRate>), String>;

    fn visit<G>(self, reasoner: ReasonerKind, game: G) -> Self::Output
    where
        G: Game + Clone + Send,
        G::Move: Send,
    {
        let mut rates = Vec::new();
        for threads in 1..=self.max_threads.max(1) {
            let reports = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|i| {
                        let mut game = game.clone();
                        let budget = self.budget;
                        scope.spawn(move || {
                            gdlc_runtime::simulate::simulate_for(
                                &mut game,
                                budget,
                                i as u64 + 1,
                                100_000,
                            )
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().map_err(|_| "a playout thread panicked".to_owned()))
                    .collect::<Result<Vec<_>, _>>()
            })?;
            let mut playouts_per_second = 0.0;
            for report in reports {
                playouts_per_second += report.map_err(|e| e.to_string())?.playouts_per_second();
            }
            rates.push(ThreadRate {
                threads,
                playouts_per_second,
            });
        }
        Ok((reasoner, rates))
    }
}

//! `gdlc-player perf GAME_FILE RESULT_FILE SECONDS`: gdl-perf's perf-test process
//! protocol. Random playouts from the initial state for SECONDS, counting state changes
//! and rollouts (`gdlc_search::perf`), on the fastest reasoner the player can make —
//! compiled natively before the timed part when the rules are not built in — then
//! `key=value` lines in RESULT_FILE: `version`, `millisecondsTaken`, `numStateChanges`,
//! `numRollouts`, or `version` and `errorMessage` when the test cannot run.
//!
//! [`thread_rates`] (`gdlc-player bench`) measures random playouts per second on 1, 2, …
//! N threads, each on its own clone of the reasoner.

use std::path::Path;
use std::time::Duration;

use gdlc_runtime::game::Game;
pub use gdlc_search::perf::PerfCounts;

use crate::native::{self, Worker};
use crate::reasoner::{ReasonerKind, Rules, Visitor};

/// A perf test's counts and the reasoner that ran it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerfOutcome {
    /// What was counted.
    pub counts: PerfCounts,
    /// The reasoner, in words.
    pub reasoner: String,
}

/// Runs the test on the rules in `game_file` for `seconds`: on the built-in compiled
/// reasoner, else (with a native cache) on a reasoner compiled now, outside the timed
/// part, else on the plan executor.
pub fn run(
    game_file: &Path,
    seconds: u64,
    native_cache: Option<&Path>,
) -> Result<PerfOutcome, String> {
    let text = std::fs::read_to_string(game_file)
        .map_err(|e| format!("cannot read {}: {e}", game_file.display()))?;
    let rules = Rules::parse(&game_file.display().to_string(), &text)?;
    if let (Some(cache), ReasonerKind::PlanExecutor) = (native_cache, rules.preferred()) {
        let native = native::build(rules.text(), rules.fingerprint(), cache).and_then(|built| {
            let mut worker = Worker::spawn(&built.binary, 1)?;
            worker.perf(seconds)
        });
        match native {
            Ok(counts) => {
                return Ok(PerfOutcome {
                    counts,
                    reasoner: "a reasoner compiled natively on the fly".to_owned(),
                });
            }
            Err(why) => eprintln!("no native reasoner ({why}); using the plan executor"),
        }
    }
    rules.with_reasoner(Timed {
        budget: Duration::from_secs(seconds),
    })?
}

/// The result file's text for an outcome.
pub fn result_text(outcome: &Result<PerfOutcome, String>) -> String {
    let version = format!("version=gdlc-player {}\n", env!("CARGO_PKG_VERSION"));
    match outcome {
        Ok(PerfOutcome { counts, .. }) => format!(
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
    type Output = Result<PerfOutcome, String>;

    fn visit<G>(self, reasoner: ReasonerKind, mut game: G) -> Self::Output
    where
        G: Game + Clone + Send,
        G::Move: Send,
    {
        let counts = gdlc_search::perf::run(&mut game, self.budget)?;
        Ok(PerfOutcome {
            counts,
            reasoner: reasoner.to_string(),
        })
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

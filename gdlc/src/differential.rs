//! The differential check of a compiled reasoner against the reference interpreter, as
//! run by the driver binary that `cargo xtask verify` generates.
//!
//! The driver is one `main` dispatching on a game key to the reasoner crates it depends
//! on; everything else is here, so that it is compiled, linted and tested with the
//! workspace. A [`DriverRequest`] (from the driver's command line) names the game's KIF
//! file; [`DriverRequest::check`] loads it into [`Interpreter`], picks the perft depth
//! when none was asked for ([`auto_perft_depth`]) and calls
//! [`gdlc_runtime::compare`]: perft to that depth, then seeded random playouts
//! comparing legal-move sets, terminal flags, goals, percepts and next states.
//!
//! **Automatic perft depth.** The largest depth `d` (at most [`MAX_AUTO_DEPTH`]) whose
//! perft tree — every state generated from the initial state by joint moves up to
//! depth `d` — has at most [`NODE_BUDGET`] states in the interpreter; deeper depths are
//! not tried once the tree ends (every state at depth `d` is terminal), since they
//! count the same. [`auto_perft`] walks the tree breadth first, one level at a time,
//! and knows each level's size from the legal move counts of the level above before
//! generating it: every state is loaded at most twice, a level over the budget is never
//! built, and the walk yields the interpreter's perft figures, so only the candidate
//! counts its perft afterwards. A game whose first step alone has more joint moves than the
//! budget gets depth 0 (playouts only).
//!
//! The driver prints one line on stdout, `PASS <summary>` (exit 0) or
//! `FAIL <first difference>` (exit 1, the difference may span several lines); usage
//! errors go to stderr with exit code 2.

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use gdlc_runtime::{CompareOptions, Game};

use crate::SourceFile;
use crate::interp::Interpreter;

/// Most states of the interpreter's perft tree for the automatic depth.
pub const NODE_BUDGET: u64 = 10_000;

/// The deepest automatic perft depth.
pub const MAX_AUTO_DEPTH: u32 = 10;

/// The perft depth for a differential check of `game` (see the module docs): the
/// largest depth up to `max_depth` whose perft tree has at most `node_budget` states.
pub fn auto_perft_depth<G: Game>(game: &mut G, node_budget: u64, max_depth: u32) -> u32 {
    auto_perft(game, node_budget, max_depth).len() as u32
}

/// The perft figures of `game` from depth 1 to the automatic depth (see the module
/// docs; [`auto_perft_depth`] is their number), found in one breadth-first walk. Each
/// level is gone through twice: first every state is checked for terminality and asked
/// its legal moves, which gives the size of the next level — the walk stops there, as
/// soon as the budget is exceeded, without generating any of it —, then the next level
/// is generated. So every state of the tree is loaded into the game at most twice,
/// where a depth-first search per depth would load the upper states once per depth.
///
/// perft(d) counts the paths of the tree that end at depth `d`, or earlier at a
/// terminal state ([`gdlc_runtime::perft()`]); so perft(d) = (terminal states at depths
/// below `d`) + (states at depth `d`), every state counted once per path to it.
pub fn auto_perft<G: Game>(game: &mut G, node_budget: u64, max_depth: u32) -> Vec<u64> {
    let roles = game.num_roles();
    let mut figures = Vec::new();
    let mut level = vec![game.initial_state()];
    let mut terminal_above = 0u64;
    let mut generated = 0u64;
    // Per state of `level`: the legal moves of each role, or none when it cannot move.
    let mut legal: Vec<Vec<Vec<G::Move>>> = Vec::new();
    for depth in 1..=max_depth {
        legal.clear();
        let mut children = 0u64;
        let mut terminals = 0u64;
        for state in &level {
            let mut moves = Vec::new();
            if game.is_terminal(state) {
                terminals += 1;
            } else {
                moves = vec![Vec::new(); roles];
                for (role, out) in moves.iter_mut().enumerate() {
                    game.legal_moves(state, role, out);
                }
                if moves.iter().any(Vec::is_empty) {
                    moves.clear();
                } else {
                    let product = moves
                        .iter()
                        .fold(1u64, |n, m| n.saturating_mul(m.len() as u64));
                    children = children.saturating_add(product);
                    if generated.saturating_add(children) > node_budget {
                        return figures;
                    }
                }
            }
            legal.push(moves);
        }
        // Every state at the depth reached is terminal: deeper depths count the same.
        if depth > 1 && terminals == level.len() as u64 {
            break;
        }
        generated += children;
        terminal_above += terminals;
        let mut next_level = Vec::with_capacity(children as usize);
        let mut choice = vec![0usize; roles];
        let mut joint = Vec::with_capacity(roles);
        for (state, moves) in level.iter().zip(&legal) {
            if moves.is_empty() {
                continue;
            }
            choice.iter_mut().for_each(|c| *c = 0);
            loop {
                joint.clear();
                joint.extend(choice.iter().zip(moves).map(|(&i, m)| m[i]));
                next_level.push(game.next_state(state, &joint));
                if !advance(&mut choice, moves) {
                    break;
                }
            }
        }
        level = next_level;
        figures.push(terminal_above + level.len() as u64);
    }
    figures
}

/// Steps the odometer `choice` over the product of the move lists; false when done.
fn advance<M>(choice: &mut [usize], legal: &[Vec<M>]) -> bool {
    for (digit, moves) in choice.iter_mut().zip(legal).rev() {
        *digit += 1;
        if *digit < moves.len() {
            return true;
        }
        *digit = 0;
    }
    false
}

/// What the verify driver is asked to do, from its command line:
/// `GAME KIF DEPTH PLAYOUTS MAX_STEPS SEED`, `DEPTH` a number or `auto`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverRequest {
    /// The key of the reasoner in the driver (its crate name).
    pub game: String,
    /// The game's rules, for the interpreter.
    pub kif: PathBuf,
    /// The perft depth, or `None` for [`auto_perft_depth`].
    pub depth: Option<u32>,
    /// The number of seeded random playouts.
    pub playouts: usize,
    /// Steps per playout at most.
    pub max_steps: usize,
    /// Seed of the first playout.
    pub seed: u64,
}

/// What a passing check compared.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Perft from depth 1 to the depth used.
    pub perft: Vec<u64>,
    /// Whether the depth was chosen by [`auto_perft_depth`].
    pub automatic_depth: bool,
    /// Playouts compared.
    pub playouts: usize,
    /// States compared along the playouts.
    pub states: usize,
    /// Seconds the check took (interpreter included).
    pub seconds: f64,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.automatic_depth { " (auto)" } else { "" };
        if self.perft.is_empty() {
            write!(f, "no perft{how}")?;
        } else {
            let counts: Vec<String> = self.perft.iter().map(u64::to_string).collect();
            write!(
                f,
                "perft {} to depth {}{how}",
                counts.join(" "),
                self.perft.len()
            )?;
        }
        write!(
            f,
            ", {} playouts, {} states, {:.1} s",
            self.playouts, self.states, self.seconds
        )
    }
}

impl DriverRequest {
    /// The command-line arguments that [`from_args`](Self::from_args) reads back.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            self.game.clone(),
            self.kif.display().to_string(),
            self.depth
                .map_or_else(|| "auto".to_owned(), |d| d.to_string()),
            self.playouts.to_string(),
            self.max_steps.to_string(),
            self.seed.to_string(),
        ]
    }

    /// Reads the arguments after the program name.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let args: Vec<String> = args.into_iter().collect();
        let [game, kif, depth, playouts, max_steps, seed] = args.as_slice() else {
            return Err(format!(
                "expected GAME KIF DEPTH PLAYOUTS MAX_STEPS SEED, got {} argument(s)",
                args.len()
            ));
        };
        fn number<T: std::str::FromStr>(name: &str, text: &str) -> Result<T, String> {
            text.parse()
                .map_err(|_| format!("{name}: `{text}` is not a number"))
        }
        Ok(DriverRequest {
            game: game.clone(),
            kif: PathBuf::from(kif),
            depth: if depth == "auto" {
                None
            } else {
                Some(number("DEPTH", depth)?)
            },
            playouts: number("PLAYOUTS", playouts)?,
            max_steps: number("MAX_STEPS", max_steps)?,
            seed: number("SEED", seed)?,
        })
    }

    /// Compares `candidate` with the interpreter on the request's game; `Err` is the
    /// first difference, or why the interpreter could not be loaded.
    pub fn check<G: Game>(&self, candidate: &mut G) -> Result<Outcome, String> {
        let start = Instant::now();
        let file = SourceFile::read(&self.kif).map_err(|d| d.to_string())?;
        let front = crate::front_end(&file);
        if !front.is_valid() {
            let rendered: String = front
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.render(&file))
                .collect();
            return Err(format!("not valid GDL:\n{rendered}"));
        }
        let mut interpreter = Interpreter::new(&front).map_err(|d| d.render(&file))?;
        // With the automatic depth, the interpreter's perft figures come from the walk
        // that chose the depth; only the candidate's are counted here.
        let (perft_depth, automatic) = match self.depth {
            Some(depth) => (depth, None),
            None => (
                0,
                Some(auto_perft(&mut interpreter, NODE_BUDGET, MAX_AUTO_DEPTH)),
            ),
        };
        if let Some(figures) = &automatic {
            // Roles first (a compare without perft or playouts checks only them).
            let roles_only = CompareOptions {
                perft_depth: 0,
                playouts: 0,
                max_steps: 0,
                seed: 0,
            };
            gdlc_runtime::compare(&mut interpreter, candidate, roles_only)?;
            let start = candidate.initial_state();
            for (depth, &expected) in (1..).zip(figures) {
                let found = gdlc_runtime::perft(candidate, &start, depth);
                if expected != found {
                    return Err(format!(
                        "perft({depth}): {expected} in the reference, {found} in the candidate"
                    ));
                }
            }
        }
        let options = CompareOptions {
            perft_depth,
            playouts: self.playouts,
            max_steps: self.max_steps,
            seed: self.seed,
        };
        let mut agreement = gdlc_runtime::compare(&mut interpreter, candidate, options)?;
        let automatic_depth = automatic.is_some();
        if let Some(figures) = automatic {
            agreement.perft = figures;
        }
        Ok(Outcome {
            perft: agreement.perft,
            automatic_depth,
            playouts: self.playouts,
            states: agreement.states,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// Runs [`check`](Self::check) and prints its line: `PASS …` (exit 0) or `FAIL …`
    /// (exit 1).
    pub fn run<G: Game>(&self, mut candidate: G) -> ExitCode {
        match self.check(&mut candidate) {
            Ok(outcome) => {
                println!("PASS {outcome}");
                ExitCode::SUCCESS
            }
            Err(difference) => {
                println!("FAIL {difference}");
                ExitCode::FAILURE
            }
        }
    }

    /// The driver's answer to a game key it was not built with (exit 2).
    pub fn unknown_game(&self) -> ExitCode {
        eprintln!(
            "error: this driver has no reasoner `{}` (it is rewritten by every `cargo xtask verify`)",
            self.game
        );
        ExitCode::from(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICTACTOE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../games/tictactoe.kif");
    const NIM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../games/nim.kif");

    fn interpreter(path: &str) -> Interpreter {
        let file = SourceFile::read(std::path::Path::new(path)).expect("team game");
        Interpreter::new(&crate::front_end(&file)).expect("valid")
    }

    #[test]
    fn automatic_depth_stays_within_the_budget() {
        // Tictactoe: 9 + 72 + 504 + 3024 = 3609 states to depth 4, 18729 to depth 5.
        let mut game = interpreter(TICTACTOE);
        assert_eq!(auto_perft_depth(&mut game, NODE_BUDGET, MAX_AUTO_DEPTH), 4);
        assert_eq!(auto_perft_depth(&mut game, 3609, MAX_AUTO_DEPTH), 4);
        assert_eq!(auto_perft_depth(&mut game, 3608, MAX_AUTO_DEPTH), 3);
        assert_eq!(auto_perft_depth(&mut game, 8, MAX_AUTO_DEPTH), 0);
        assert_eq!(auto_perft_depth(&mut game, NODE_BUDGET, 2), 2);
    }

    #[test]
    fn automatic_depth_stops_where_the_game_ends() {
        // A tiny game that always ends after two steps.
        let file = SourceFile::new(
            "short.kif",
            "(role p) (init (step 0)) (succ 0 1) (succ 1 2)
             (<= (legal p go) (not terminal))
             (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
             (<= terminal (true (step 2)))
             (goal p 100)",
        );
        let mut game = Interpreter::new(&crate::front_end(&file)).expect("valid");
        assert_eq!(auto_perft_depth(&mut game, NODE_BUDGET, MAX_AUTO_DEPTH), 2);
    }

    #[test]
    fn automatic_figures_are_the_perft_figures() {
        // Nim ends at different depths along different paths; tictactoe has no role
        // without moves; the tiny game below has a state where no role can move.
        let dead_end = SourceFile::new(
            "dead.kif",
            "(role p) (role q) (init (s 0)) (succ 0 1) (succ 1 2)
             (<= (legal p (go ?y)) (true (s ?x)) (succ ?x ?y))
             (<= (legal p stop) (true (s 0)))
             (legal q wait)
             (<= (next (s ?y)) (does p (go ?y)))
             (<= terminal (true (s 2)))
             (goal p 100) (goal q 0)",
        );
        let games = [
            interpreter(NIM),
            interpreter(TICTACTOE),
            Interpreter::new(&crate::front_end(&dead_end)).expect("valid"),
        ];
        for mut game in games {
            for budget in [0, 10, 100, NODE_BUDGET] {
                let figures = auto_perft(&mut game, budget, MAX_AUTO_DEPTH);
                let initial = game.initial_state();
                let expected: Vec<u64> = (1..=figures.len() as u32)
                    .map(|d| gdlc_runtime::perft(&mut game, &initial, d))
                    .collect();
                assert_eq!(figures, expected, "budget {budget}");
            }
        }
    }

    #[test]
    fn the_interpreter_agrees_with_itself() {
        let request = DriverRequest {
            game: "nim".to_owned(),
            kif: PathBuf::from(NIM),
            depth: None,
            playouts: 3,
            max_steps: 200,
            seed: 7,
        };
        let outcome = request.check(&mut interpreter(NIM)).expect("same reasoner");
        assert!(outcome.automatic_depth && !outcome.perft.is_empty());
        assert_eq!(outcome.playouts, 3);
        assert!(outcome.to_string().starts_with("perft "), "{outcome}");
    }

    #[test]
    fn a_different_game_is_a_difference() {
        let request = DriverRequest {
            game: "tictactoe".to_owned(),
            kif: PathBuf::from(TICTACTOE),
            depth: Some(1),
            playouts: 1,
            max_steps: 10,
            seed: 0,
        };
        let difference = request
            .check(&mut interpreter(NIM))
            .expect_err("nim is not tictactoe");
        assert!(!difference.is_empty());
        let missing = DriverRequest {
            kif: PathBuf::from("/nonexistent/game.kif"),
            ..request
        };
        let error = missing
            .check(&mut interpreter(NIM))
            .expect_err("no such file");
        assert!(error.contains("cannot read"), "{error}");
    }

    #[test]
    fn arguments_round_trip() {
        let request = DriverRequest {
            game: "gdlc-game-nim-0123abcd".to_owned(),
            kif: PathBuf::from("games/nim.kif"),
            depth: None,
            playouts: 200,
            max_steps: 500,
            seed: 1,
        };
        assert_eq!(
            DriverRequest::from_args(request.to_args()),
            Ok(request.clone())
        );
        let fixed = DriverRequest {
            depth: Some(3),
            ..request
        };
        assert_eq!(DriverRequest::from_args(fixed.to_args()), Ok(fixed));
        assert!(DriverRequest::from_args(["a".to_owned()]).is_err());
        let bad: Vec<String> = ["g", "k", "deep", "1", "1", "1"]
            .map(str::to_owned)
            .to_vec();
        assert!(
            DriverRequest::from_args(bad)
                .expect_err("not a number")
                .contains("DEPTH")
        );
    }
}

//! Project automation, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! - `rates FILE... [--seconds N]`: random playouts per second and state changes per
//!   second of the reference interpreter, one core, one line per game. Build with
//!   `--release` for meaningful figures (`cargo run --release -p xtask -- rates …`);
//!   `--plan` measures the plan executor instead; `--reference NAME` (no files) measures
//!   a hand-written reference reasoner of `gdlc-benches` (`tictactoe`, `connectfour`,
//!   `connectfour7`, `breakthrough`, `breakthrough-team`).
//!
//! - `prolog FILE (--perft DEPTH | --seconds N) [--seed N]`: the SWI-Prolog baseline.
//!   Emits the game's Prolog program and the driver (`gdlc::emit::prolog`) under
//!   `target/prolog/<game>/` (`$CARGO_TARGET_DIR/prolog/<game>/` when that is set) and
//!   runs `swipl` on it: `--perft` prints `depth<TAB>count` lines like `gdlc perft`,
//!   `--seconds` prints playouts/s and states/s like `rates`.
//!
//! - `compile FILE [--out DIR]`: the game's reasoner crate (`Cargo.toml`, `src/lib.rs`)
//!   in `generated/<stem>/` or DIR; `codegen [--check]`: the crates of every
//!   `games/*.kif`, regenerated or checked fresh (see `codegen.rs`).
//!
//! - `verify FILE... [--playouts N] [--depth D] [--steps S] [--jobs N]`: compiles the
//!   games into a scratch workspace, builds one driver per batch and compares each
//!   compiled reasoner with the interpreter, `--jobs` games at a time; `perft FILE DEPTH`: the compiled reasoner's perft (see
//!   `scratch.rs`).
//!
//! - `test [-- ARGS]`: `cargo test --workspace`, saying first what it
//!   skips on this machine (see `test_cmd.rs`).
//!
//! - `house`: checks the house rules — the compiler's layers, no import circles, file
//!   and function lengths — and prints the largest files and longest functions (see
//!   `house.rs`).
//!
//! - `bench [--games LIST] [--seconds N] [--seed N] [--out DIR]`: gdlc and rustc
//!   times, generated reasoners' random playouts/s against SWI-Prolog, the hand-written
//!   references and the propnet targets, one game after the other, written to
//!   `target/bench/` as markdown, CSV and an SVG chart (see `bench/`).

mod bench;
mod codegen;
mod house;
mod prolog;
mod scratch;
mod spellings;
mod test_cmd;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use gdlc::SourceFile;
use gdlc::interp::Interpreter;

#[derive(Parser)]
#[command(name = "xtask", about = "gdlc project automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure the reference interpreter's random playouts per second.
    Rates {
        /// Games (KIF).
        #[arg(required_unless_present = "reference")]
        files: Vec<PathBuf>,
        /// Seconds of playouts per game.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Seed of the random playouts.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Measure the plan executor instead of the interpreter.
        #[arg(long)]
        plan: bool,
        /// Measure a hand-written reference reasoner instead (no files): tictactoe,
        /// connectfour (8×6 corpus), connectfour7 (7×6 team), breakthrough (corpus) or
        /// breakthrough-team.
        #[arg(long, conflicts_with_all = ["files", "plan"])]
        reference: Option<String>,
    },
    /// Run a game's Prolog translation with SWI-Prolog: perft or timed playouts.
    Prolog {
        /// The game (KIF).
        file: PathBuf,
        /// Print perft for each depth 1..=DEPTH.
        #[arg(long, conflicts_with = "seconds", required_unless_present = "seconds")]
        perft: Option<u32>,
        /// Seconds of random playouts.
        #[arg(long)]
        seconds: Option<f64>,
        /// Seed of the random playouts.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Compile a game into a reasoner crate (Cargo.toml and src/lib.rs).
    Compile {
        /// The game (KIF).
        file: PathBuf,
        /// The crate's directory (default: `generated/<stem>` of the workspace).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Regenerate the crate of every games/*.kif in generated/, or check them fresh.
    Codegen {
        /// Compare instead of writing; fail naming the stale or missing crates.
        #[arg(long)]
        check: bool,
    },
    /// Compile games and compare each compiled reasoner with the interpreter.
    Verify {
        /// Games (KIF).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Seeded random playouts per game.
        #[arg(long, default_value_t = 200)]
        playouts: usize,
        /// Perft depth (default: the deepest whose perft tree has at most 10^4 states
        /// in the interpreter, at most 10).
        #[arg(long)]
        depth: Option<u32>,
        /// Steps per playout at most.
        #[arg(long, default_value_t = 500)]
        steps: usize,
        /// Seed of the first playout.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Games per driver build.
        #[arg(long, default_value_t = 16)]
        batch: usize,
        /// Seconds allowed for the check of one game.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
        /// Memory (address space, MiB) allowed for the check of one game; 0: no limit.
        #[arg(long, default_value_t = 4096)]
        memory: u64,
        /// Games checked at the same time, each in its own process (default: the
        /// number of CPUs); the output keeps the order of the files.
        #[arg(long)]
        jobs: Option<usize>,
        /// The Rust backend: `auto` (ground when the game grounds within the limits,
        /// else join), `ground`, `join` or `projected` (ground, on the projected
        /// grounding even where the plain one fits).
        #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
        backend: BackendArg,
    },
    /// Benchmark: each game compiled, checked against the interpreter, and measured:
    /// gdlc and rustc times, generated reasoner against Prolog, the hand-written
    /// references and the propnet targets; results in target/bench/.
    Bench {
        /// Comma-separated games: names (the team's games/NAME.kif, else the corpus'),
        /// team:NAME, corpus:NAME or paths (default: tictactoe, connect four and
        /// breakthrough — team and corpus files —, connect4, blocker, checkers,
        /// skirmish, chess, othello-comp2007, reversi, quarto, pentago, hex, amazons;
        /// without the corpus, the team's games).
        #[arg(long)]
        games: Option<String>,
        /// Seconds of random playouts per figure.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Seed of the random playouts.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write results.md, results.csv and ratios.svg (default:
        /// target/bench, or $CARGO_TARGET_DIR/bench).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Seeded playouts of the check of each generated reasoner against the
        /// interpreter before it is measured (as `verify`); 0 skips the check.
        #[arg(long, default_value_t = 20)]
        check_playouts: usize,
        /// Other spellings of each game measured right after it, written by `gdlc
        /// scramble`: comma-separated KIND:SEED, KIND one of all (renamed, numbers too,
        /// and reordered), numbers (the same with numbers kept, as ggp-base's server
        /// sends), order (reordered only), names (renamed only).
        #[arg(long)]
        spellings: Option<String>,
    },
    /// The project's tests: `cargo test --workspace`, after one line each on the game
    /// corpus and SWI-Prolog (found, or which tests skip without them; with
    /// GDLC_REQUIRE_CORPUS=1 / GDLC_REQUIRE_SWIPL=1 missing ones are errors).
    Test {
        /// Arguments for cargo test (after `--`).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Check the house rules (one-way pipeline, no import circles, file and function
    /// lengths) and print the layers, the largest files and the longest functions.
    House,
    /// Perft of the compiled reasoner, printed as `gdlc perft` prints it.
    Perft {
        /// The game (KIF).
        file: PathBuf,
        /// The deepest depth to count.
        depth: u32,
    },
}

/// Prints an error message of a command (rendered diagnostics are printed as they are).
fn report(message: &str) {
    if message.starts_with("error") {
        eprintln!("{}", message.trim_end());
    } else {
        eprintln!("error: {}", message.trim_end());
    }
}

/// The exit code of a command that either succeeds or fails with a message.
fn exit_code(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            report(&message);
            ExitCode::FAILURE
        }
    }
}

/// One row of the `rates` and `prolog --seconds` tables (after their header
/// `game playouts states seconds playouts/s states/s`, tab-separated).
fn rate_line(name: &str, report: &gdlc_runtime::SimulationReport) -> String {
    format!(
        "{name}\t{}\t{}\t{:.2}\t{:.1}\t{:.0}",
        report.playouts,
        report.states,
        report.elapsed.as_secs_f64(),
        report.playouts_per_second(),
        report.states_per_second()
    )
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Rates {
            seconds,
            seed,
            reference: Some(name),
            ..
        } => reference_rates(&name, seconds, seed),
        Command::Rates {
            files,
            seconds,
            seed,
            plan,
            reference: None,
        } => rates(&files, seconds, seed, plan),
        Command::Prolog {
            file,
            perft,
            seconds,
            seed,
        } => exit_code(prolog::command(&file, perft, seconds, seed)),
        Command::Compile { file, out } => exit_code(codegen::compile(&file, out.as_deref())),
        Command::Codegen { check } => exit_code(codegen::codegen(check)),
        Command::Test { args } => match test_cmd::test(&args) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(message) => {
                report(&message);
                ExitCode::FAILURE
            }
        },
        Command::Verify {
            files,
            playouts,
            depth,
            steps,
            seed,
            batch,
            timeout,
            memory,
            jobs,
            backend,
        } => {
            let jobs = jobs.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
            let options = scratch::VerifyOptions {
                depth,
                playouts,
                max_steps: steps,
                seed,
                batch,
                timeout: Duration::from_secs(timeout),
                memory_mb: memory,
                backend: match backend {
                    BackendArg::Auto => gdlc::Backend::Auto,
                    BackendArg::Ground => gdlc::Backend::Ground,
                    BackendArg::Join => gdlc::Backend::Join,
                    BackendArg::Projected => gdlc::Backend::GroundProjected,
                },
            };
            match scratch::verify_with_jobs(&files, &options, jobs) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(message) => {
                    report(&message);
                    ExitCode::FAILURE
                }
            }
        }
        Command::Bench {
            games,
            seconds,
            seed,
            out,
            check_playouts,
            spellings,
        } => {
            let spellings = match spellings.as_deref().map(spellings::parse).transpose() {
                Ok(spellings) => spellings.unwrap_or_default(),
                Err(message) => {
                    report(&message);
                    return ExitCode::from(2);
                }
            };
            let options = bench::Options {
                spellings,
                games,
                seconds,
                seed,
                out,
                check_playouts,
                command_line: command_line(),
            };
            match bench::bench(&options) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(message) => {
                    report(&message);
                    ExitCode::FAILURE
                }
            }
        }
        Command::House => {
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            match house::check(&root) {
                Ok(found) => {
                    print!("{}", house::report(&found));
                    if found.breaks.is_empty() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                }
                Err(message) => {
                    report(&message);
                    ExitCode::FAILURE
                }
            }
        }
        Command::Perft { file, depth } => match scratch::perft(&file, depth) {
            Ok(code) => code,
            Err(message) => {
                report(&message);
                ExitCode::FAILURE
            }
        },
    }
}

/// This run's command line as `cargo xtask …` (arguments with spaces quoted).
fn command_line() -> String {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| {
            if a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect();
    format!("cargo xtask {}", args.join(" "))
}

/// A valid game's front end and source, or the rendered reason it cannot be used.
fn load(path: &Path) -> Result<(gdlc::FrontEnd, SourceFile), String> {
    let file = SourceFile::read(path).map_err(|d| d.to_string())?;
    let front = gdlc::front_end(&file);
    if !front.is_valid() {
        let rendered: String = front
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.render(&file))
            .collect();
        return Err(format!("{} is not valid GDL:\n{rendered}", path.display()));
    }
    Ok((front, file))
}

/// `rates --reference NAME`: the playout rate of a hand-written reference reasoner.
fn reference_rates(name: &str, seconds: f64, seed: u64) -> ExitCode {
    use gdlc_benches::reference;
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: this is a debug build; measure with `cargo run --release -p xtask -- rates …`"
        );
    }
    let Some(report) = reference::simulate(name, Duration::from_secs_f64(seconds), seed, 100_000)
    else {
        eprintln!(
            "error: no reference `{name}` ({})",
            reference::NAMES.join(", ")
        );
        return ExitCode::FAILURE;
    };
    match report {
        Ok(report) => {
            println!("game\tplayouts\tstates\tseconds\tplayouts/s\tstates/s");
            println!(
                "{name} (reference)\t{}\t{}\t{:.2}\t{:.1}\t{:.0}",
                report.playouts,
                report.states,
                report.elapsed.as_secs_f64(),
                report.playouts_per_second(),
                report.states_per_second()
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{name}: {err}");
            ExitCode::FAILURE
        }
    }
}

fn rates(files: &[PathBuf], seconds: f64, seed: u64, plan: bool) -> ExitCode {
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: this is a debug build; measure with `cargo run --release -p xtask -- rates …`"
        );
    }
    let mut failed = false;
    println!("game\tplayouts\tstates\tseconds\tplayouts/s\tstates/s");
    for path in files {
        let name = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let duration = Duration::from_secs_f64(seconds);
        let report = match load(path) {
            Err(message) => Err(message),
            Ok((front, file)) if plan => {
                let render = |d: gdlc::Diagnostic| d.render(&file);
                gdlc::analysis::analyze(&front)
                    .map_err(render)
                    .and_then(|ir| {
                        let plan = gdlc::planner::tuned(&ir).map_err(render)?;
                        let mut executor = gdlc::exec::Executor::new(&ir, &plan);
                        gdlc_runtime::simulate_for(&mut executor, duration, seed, 100_000)
                            .map_err(|err| err.to_string())
                    })
            }
            Ok((front, file)) => match Interpreter::new(&front) {
                Ok(mut interpreter) => {
                    gdlc_runtime::simulate_for(&mut interpreter, duration, seed, 100_000)
                        .map_err(|err| err.to_string())
                }
                Err(diagnostic) => Err(diagnostic.render(&file)),
            },
        };
        match report {
            Ok(report) => println!("{}", rate_line(&name, &report)),
            Err(message) => {
                eprintln!("{name}: {message}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The Rust backend `verify` compiles with.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum BackendArg {
    /// Ground when the game grounds within the limits, else join.
    Auto,
    /// The ground backend (a game it cannot compile fails).
    Ground,
    /// The join backend.
    Join,
    /// The ground backend on the projected grounding, even where the plain one fits (a
    /// game without a projection fails): checks the path `auto` takes on large games.
    Projected,
}

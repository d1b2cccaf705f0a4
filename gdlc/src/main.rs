//! The `gdlc` command line: a thin caller of the library.
//!
//! - `gdlc check FILE...` — diagnostics and a summary; exit 0 iff every file is valid.
//! - `gdlc compile FILE... [--out DIR]` — a reasoner crate per game (`gdlc::game_crate`).
//! - `gdlc perft FILE DEPTH` — `depth<TAB>count` for each depth 1..=DEPTH.
//! - `gdlc playout FILE [--seed N] [--count N] [--moves TEXT]` — seeded random playouts.
//! - `gdlc explain FILE --stage domains|flat|layers|plan|ground` — text dumps of the analysis.
//! - `gdlc scramble FILE [--seed N] [--keep-numbers] [--no-rename] [--no-reorder]` — the
//!   same game in another spelling (`gdlc::scramble`), on standard output.
//! - `gdlc prove FILE [--class …] [--formula TEXT] …` — prove invariants (feature
//!   `prove`; see `prove_cmd.rs`).
//!
//! Every failure is a located message and exit code 1; nothing panics on bad input.

#[cfg(feature = "prove")]
mod prove_cmd;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
use gdlc::interp::Interpreter;
use gdlc::{Diagnostic, SourceFile};
use gdlc_runtime::{Game, PlayoutOptions};

#[derive(Parser)]
#[command(
    name = "gdlc",
    version,
    about = "GDL game rules: check them, compile them to Rust reasoner crates, play, count and prove"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check game descriptions for validity and print located diagnostics.
    Check {
        /// KIF files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print only errors, not warnings.
        #[arg(long)]
        quiet: bool,
    },
    /// Compile games to Rust reasoner crates (Cargo.toml, src/lib.rs, and a runner in
    /// src/main.rs: `cargo run --release -- perft 3`).
    Compile {
        /// KIF files to compile.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The crate's directory (one game), or the directory holding one crate per
        /// game, named after the file's stem (several games). Default: generated/<stem>.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Count joint-move sequences from the initial state, for each depth up to DEPTH.
    Perft {
        /// The game (KIF).
        file: PathBuf,
        /// The deepest depth to count.
        depth: u32,
        /// Count with the plan executor instead of the reference interpreter.
        #[arg(long)]
        plan: bool,
    },
    /// Play seeded random games and print each joint move and the final goals.
    Playout {
        /// The game (KIF).
        file: PathBuf,
        /// Seed of the first playout (playout i uses seed + i).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Number of playouts.
        #[arg(long, default_value_t = 1)]
        count: u64,
        /// Joint moves to play first, separated by `;`, one move per role in role order,
        /// e.g. `"(mark 1 1) noop; noop (mark 2 2)"`.
        #[arg(long)]
        moves: Option<String>,
        /// Give up after this many steps.
        #[arg(long, default_value_t = 100_000)]
        max_steps: usize,
    },
    /// Print a stage of the analysis as text.
    Explain {
        /// The game (KIF).
        file: PathBuf,
        /// The stage to print.
        #[arg(long, value_enum)]
        stage: StageArg,
    },
    /// Write the same game in another spelling: symbols and variables renamed to random
    /// words, sentences and body literals shuffled (what ggp-base's game server does to
    /// every game it sends by default). The result goes to standard output.
    Scramble {
        /// The game (KIF).
        file: PathBuf,
        /// Seed of the random names and orders.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Keep numbers as they are (as ggp-base's scrambler does).
        #[arg(long)]
        keep_numbers: bool,
        /// Keep every name (only reorder).
        #[arg(long)]
        no_rename: bool,
        /// Keep the order of sentences and literals (only rename).
        #[arg(long)]
        no_reorder: bool,
    },
    /// Prove invariants by induction with answer set programming: the standard property
    /// classes (functionals, legals, goals, persistence) or your own formulas.
    Prove {
        /// The game (KIF).
        file: PathBuf,
        /// A class to attempt (repeatable; default: all four, or none with --formula).
        #[arg(long = "class", value_enum)]
        classes: Vec<ClassArg>,
        /// A formula to prove (repeatable), e.g.
        /// `(forall ((?x ?y (domain true 0/cell.0))) (count 0 1 ((?p (domain true 0/cell.2))) (true (cell ?x ?y ?p))))`.
        #[arg(long = "formula")]
        formulas: Vec<String>,
        /// Write every program, as it is solved, to this directory (for stand-alone clingo).
        #[arg(long)]
        emit_asp: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Most ground atoms of one program; properties beyond it are not attempted.
        #[arg(long, default_value_t = 5_000_000)]
        max_ground: u64,
        /// Most seconds of solving per program (default 30; 0 for none); properties undecided
        /// then are not attempted.
        #[arg(long)]
        time_limit: Option<f64>,
    },
}

/// The property classes `prove --class` accepts.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ClassArg {
    /// At most / exactly one value per argument tuple; exactly one control fluent.
    Functionals,
    /// Playability and turn-taking.
    Legals,
    /// Zero-sum, unique and monotonic goal values.
    Goals,
    /// Every ground fluent stays true / stays false.
    Persistence,
}

/// The analysis stages `explain` can print.
#[derive(Clone, Copy, clap::ValueEnum)]
enum StageArg {
    /// Argument domains per relation and path; legal-move domains per role.
    Domains,
    /// Flattened relations and rules.
    Flat,
    /// Layers, phases and entry-point cones.
    Layers,
    /// The evaluation plan: per relation evaluation and storage, filter trees.
    Plan,
    /// The grounding: reachable atoms per relation, rule instances, and which Rust
    /// backend compiles the game (ground, or join and why).
    Ground,
}

/// A failure already reported to the user.
struct Reported;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check { files, quiet } => check(&files, quiet),
        Command::Compile { files, out } => compile(&files, out.as_deref()),
        Command::Perft { file, depth, plan } => perft(&file, depth, plan),
        Command::Playout {
            file,
            seed,
            count,
            moves,
            max_steps,
        } => playout(&file, seed, count, moves.as_deref(), max_steps),
        Command::Explain { file, stage } => explain(&file, stage),
        Command::Scramble {
            file,
            seed,
            keep_numbers,
            no_rename,
            no_reorder,
        } => scramble(
            &file,
            &gdlc::scramble::Options {
                seed,
                rename: !no_rename,
                keep_numbers,
                reorder: !no_reorder,
            },
        ),
        Command::Prove {
            file,
            classes,
            formulas,
            emit_asp,
            json,
            max_ground,
            time_limit,
        } => prove(
            file, &classes, formulas, emit_asp, json, max_ground, time_limit,
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Reported) => ExitCode::FAILURE,
    }
}

fn emit(diagnostic: &Diagnostic, file: &SourceFile) {
    let choice = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    };
    let mut stderr = StandardStream::stderr(choice);
    diagnostic.emit(file, &mut stderr);
}

fn check(files: &[PathBuf], quiet: bool) -> Result<(), Reported> {
    let (mut valid, mut errors, mut warnings) = (0, 0, 0);
    for path in files {
        let file = match SourceFile::read(path) {
            Ok(file) => file,
            Err(diagnostic) => {
                emit(
                    &diagnostic,
                    &SourceFile::new(path.display().to_string(), ""),
                );
                errors += 1;
                continue;
            }
        };
        let front = gdlc::front_end(&file);
        for diagnostic in &front.diagnostics {
            if diagnostic.is_error() {
                errors += 1;
            } else {
                warnings += 1;
            }
            if diagnostic.is_error() || !quiet {
                emit(diagnostic, &file);
            }
        }
        if front.is_valid() {
            valid += 1;
        }
    }
    let invalid = files.len() - valid;
    println!(
        "checked {} file{}: {valid} valid, {invalid} invalid ({errors} error{}, {warnings} warning{})",
        files.len(),
        plural(files.len()),
        plural(errors),
        plural(warnings)
    );
    if invalid == 0 { Ok(()) } else { Err(Reported) }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `gdlc compile`: one crate per game; every game is attempted, the exit code says
/// whether all compiled.
fn compile(files: &[PathBuf], out: Option<&Path>) -> Result<(), Reported> {
    use gdlc::game_crate::{self, CrateError};
    let mut failed = 0;
    for path in files {
        let stem = game_crate::game_stem(path);
        let dir = match out {
            Some(dir) if files.len() == 1 => dir.to_path_buf(),
            Some(dir) => dir.join(&stem),
            None => Path::new("generated").join(&stem),
        };
        let start = std::time::Instant::now();
        match game_crate::write_crate(path, &path.display().to_string(), &dir) {
            Ok(krate) => {
                let what = if krate.written.is_empty() {
                    "unchanged".to_owned()
                } else {
                    format!("wrote {}", krate.written.join(", "))
                };
                println!(
                    "{} → {} (crate {}): {what} in {:.2} s",
                    path.display(),
                    krate.dir.display(),
                    krate.name,
                    start.elapsed().as_secs_f64()
                );
                match &krate.workspace {
                    None => println!(
                        "  run it: cd {} && cargo run --release -- perft 3   (or: playout, rates, history, help)",
                        krate.dir.display()
                    ),
                    Some(workspace) => println!(
                        "  inside the Cargo workspace {}: it must be one of its members; then \
                         `cargo run --release -p {} -- perft 3` (or: playout, rates, history, help)",
                        workspace.display(),
                        krate.name
                    ),
                }
            }
            Err(CrateError::Compile { file, diagnostics }) => {
                for diagnostic in &diagnostics {
                    emit(diagnostic, &file);
                }
                failed += 1;
            }
            Err(CrateError::Io(message)) => {
                eprintln!("error: {message}");
                failed += 1;
            }
        }
    }
    if failed == 0 {
        Ok(())
    } else {
        if files.len() > 1 {
            eprintln!("error: {failed} of {} games did not compile", files.len());
        }
        Err(Reported)
    }
}

/// Reads a source file, reporting a failure.
fn read_source(path: &Path) -> Result<SourceFile, Reported> {
    SourceFile::read(path).map_err(|diagnostic| {
        emit(
            &diagnostic,
            &SourceFile::new(path.display().to_string(), ""),
        );
        Reported
    })
}

/// `gdlc scramble`: the game in another spelling on standard output.
fn scramble(path: &Path, options: &gdlc::scramble::Options) -> Result<(), Reported> {
    let file = read_source(path)?;
    let text = gdlc::scramble::scramble(&file, options).map_err(|diagnostic| {
        emit(&diagnostic, &file);
        Reported
    })?;
    std::io::stdout().write_all(text.as_bytes()).map_err(|err| {
        eprintln!("error: writing the scrambled game: {err}");
        Reported
    })
}

/// Reads and checks a game, reporting any error.
fn front_end(path: &Path) -> Result<(SourceFile, gdlc::FrontEnd), Reported> {
    let file = read_source(path)?;
    let front = gdlc::front_end(&file);
    let mut failed = false;
    for diagnostic in front.diagnostics.iter().filter(|d| d.is_error()) {
        emit(diagnostic, &file);
        failed = true;
    }
    if failed {
        Err(Reported)
    } else {
        Ok((file, front))
    }
}

/// Reads, checks and loads a game into the interpreter, reporting any error.
fn load(path: &Path) -> Result<Interpreter, Reported> {
    let (file, front) = front_end(path)?;
    Interpreter::new(&front).map_err(|diagnostic| {
        emit(&diagnostic, &file);
        Reported
    })
}

fn explain(path: &Path, stage: StageArg) -> Result<(), Reported> {
    let (file, front) = front_end(path)?;
    let ir = gdlc::analysis::analyze(&front).map_err(|diagnostic| {
        emit(&diagnostic, &file);
        Reported
    })?;
    let text = match stage {
        StageArg::Domains => gdlc::explain::explain(&ir, gdlc::explain::Stage::Domains),
        StageArg::Flat => gdlc::explain::explain(&ir, gdlc::explain::Stage::Flat),
        StageArg::Layers => gdlc::explain::explain(&ir, gdlc::explain::Stage::Layers),
        StageArg::Plan => {
            let plan = gdlc::planner::tuned(&ir).map_err(|diagnostic| {
                emit(&diagnostic, &file);
                Reported
            })?;
            gdlc::explain::plan(&ir, &plan)
        }
        StageArg::Ground => {
            let plan = gdlc::planner::plan(&ir).map_err(|diagnostic| {
                emit(&diagnostic, &file);
                Reported
            })?;
            gdlc::explain::ground(&ir, &plan, &file.name)
        }
    };
    // A closed pipe (e.g. `| head`) is not an error worth reporting.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

#[cfg(feature = "prove")]
fn prove(
    file: PathBuf,
    classes: &[ClassArg],
    formulas: Vec<String>,
    emit_asp: Option<PathBuf>,
    json: bool,
    max_ground: u64,
    time_limit: Option<f64>,
) -> Result<(), Reported> {
    use gdlc::prove::Class;
    let classes = classes
        .iter()
        .map(|c| match c {
            ClassArg::Functionals => Class::Functionals,
            ClassArg::Legals => Class::Legals,
            ClassArg::Goals => Class::Goals,
            ClassArg::Persistence => Class::Persistence,
        })
        .collect();
    prove_cmd::prove(&prove_cmd::ProveArgs {
        file,
        classes,
        formulas,
        emit_asp,
        json,
        max_ground,
        time_limit,
    })
}

#[cfg(not(feature = "prove"))]
fn prove(
    _: PathBuf,
    _: &[ClassArg],
    _: Vec<String>,
    _: Option<PathBuf>,
    _: bool,
    _: u64,
    _: Option<f64>,
) -> Result<(), Reported> {
    eprintln!("error: this gdlc was built without the `prove` feature (clingo)");
    Err(Reported)
}

fn perft(path: &Path, depth: u32, plan: bool) -> Result<(), Reported> {
    if !plan {
        let mut game = load(path)?;
        return print_perft(&mut game, depth);
    }
    let (file, front) = front_end(path)?;
    let report = |diagnostic: gdlc::Diagnostic| {
        emit(&diagnostic, &file);
        Reported
    };
    let ir = gdlc::analysis::analyze(&front).map_err(report)?;
    let plan = gdlc::planner::tuned(&ir).map_err(report)?;
    let mut game = gdlc::exec::Executor::new(&ir, &plan);
    print_perft(&mut game, depth)
}

/// Prints perft at depths 1..=depth, one `depth<TAB>count` line each.
fn print_perft<G: Game>(game: &mut G, depth: u32) -> Result<(), Reported> {
    let initial = game.initial_state();
    let mut out = std::io::stdout().lock();
    for d in 1..=depth {
        let count = gdlc_runtime::perft(game, &initial, d);
        // A closed pipe (e.g. `| head`) is not an error worth reporting.
        if writeln!(out, "{d}\t{count}")
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    Ok(())
}

fn playout(
    path: &Path,
    seed: u64,
    count: u64,
    moves: Option<&str>,
    max_steps: usize,
) -> Result<(), Reported> {
    let mut game = load(path)?;
    let (prefix, start) = match moves {
        Some(text) => prefix_moves(&mut game, text)?,
        None => (Vec::new(), game.initial_state()),
    };
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for i in 0..count {
        let seed = seed.wrapping_add(i);
        let options = PlayoutOptions { seed, max_steps };
        match gdlc_runtime::playout::random_playout_from(&mut game, start.clone(), options) {
            Ok(playout) => {
                let lines = gdlc_runtime::cli::playout_lines(&game, i + 1, seed, &prefix, &playout);
                for line in lines {
                    if writeln!(out, "{line}").is_err() {
                        return Ok(());
                    }
                }
            }
            Err(err) => {
                eprintln!("error: playout {} (seed {seed}): {err}", i + 1);
                failed = true;
            }
        }
    }
    if failed { Err(Reported) } else { Ok(()) }
}

/// Plays the joint moves given on the command line from the initial state; returns
/// their canonical texts and the state reached. Illegal or malformed moves are
/// reported against the argument text.
fn prefix_moves(
    game: &mut Interpreter,
    text: &str,
) -> Result<(Vec<Vec<String>>, gdlc::interp::State), Reported> {
    let source = SourceFile::new("--moves", text);
    let mut state = game.initial_state();
    let mut played = Vec::new();
    let mut offset = 0;
    for (step, joint_text) in text.split(';').enumerate() {
        let joint_start = offset;
        offset += joint_text.len() + 1;
        if joint_text.trim().is_empty() && step > 0 && joint_start >= text.trim_end().len() {
            break; // a trailing `;`
        }
        let located = |d: Diagnostic| d.with_note(format!("in joint move {}", step + 1));
        let terms = gdlc::syntax::split_terms(joint_text).map_err(|d| {
            emit(&located(d.shifted(joint_start)), &source);
            Reported
        })?;
        if game.is_terminal(&state) {
            let span = gdlc::Span::new(joint_start, joint_start + joint_text.len());
            emit(
                &located(
                    Diagnostic::error(gdlc::diagnostic::Code::Move, "the game is already over")
                        .at(span, "no move can follow"),
                ),
                &source,
            );
            return Err(Reported);
        }
        if terms.len() != game.num_roles() {
            let span = gdlc::Span::new(joint_start, joint_start + joint_text.len());
            let message = format!(
                "a joint move needs one move per role ({}), found {}",
                game.num_roles(),
                terms.len()
            );
            emit(
                &located(Diagnostic::error(gdlc::diagnostic::Code::Move, message).at(span, "here")),
                &source,
            );
            return Err(Reported);
        }
        let mut joint = Vec::with_capacity(terms.len());
        for (role, (move_text, span)) in terms.iter().enumerate() {
            match game.legal_move_from_kif(&state, role, move_text) {
                Ok(mv) => joint.push(mv),
                Err(err) => {
                    let span = gdlc::Span::new(joint_start + span.start, joint_start + span.end);
                    let label = format!("move of role `{}`", game.role_name(role));
                    emit(
                        &located(
                            Diagnostic::error(gdlc::diagnostic::Code::Move, err.to_string())
                                .at(span, label),
                        ),
                        &source,
                    );
                    return Err(Reported);
                }
            }
        }
        played.push(joint.iter().map(|&m| game.move_to_kif(m)).collect());
        state = game.next_state(&state, &joint);
    }
    Ok((played, state))
}

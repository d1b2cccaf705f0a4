//! A small command line for any reasoner: what a generated crate's `src/main.rs` runs.
//!
//! ```text
//! perft DEPTH                                  depth<TAB>count for each depth 1..=DEPTH
//! playout [--seed N] [--count N] [--max-steps N]
//!                                              seeded random playouts, as `gdlc playout`
//! rates [--seconds S] [--seed N]               random playouts/s and states/s, one core
//! history FILE [--state-changes N] [--seed N]  gdl-perf's correctness-test log
//! help                                         this text
//! ```
//!
//! `history` writes the log gdl-perf's correctness test reads from an engine
//! ([`write_history`]): seeded random games, each state's terminality, every role's legal
//! moves, the joint move played and the goals at the end, until more than N state
//! changes (`player/scripts/gdl-perf-correctness` runs it for gdl-perf; its validator
//! replays the log on ggp-base's prover).
//!
//! The output formats are `gdlc perft`'s and `gdlc playout`'s ([`playout_lines`] is
//! shared with it), so a compiled reasoner and the interpreter can be compared with
//! `diff`. Usage errors print the usage and exit with code 2; a game that cannot be
//! played (no legal move, no end) exits with code 1 — where a role has no legal move in
//! a random playout, after printing the joint moves that led there, which `gdlc playout
//! GAME --moves …` replays on the interpreter. Arguments are parsed by hand: the
//! runtime keeps its dependencies to what generated code needs.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use crate::game::Game;
use crate::playout::{Playout, PlayoutError, PlayoutOptions};

/// The usage text.
pub const USAGE: &str = "\
usage: <reasoner> COMMAND
  perft DEPTH                                  perft counts for depths 1..=DEPTH
  playout [--seed N] [--count N] [--max-steps N]
                                               seeded random playouts (seed N, N+1, …)
  rates [--seconds S] [--seed N]               random playouts per second, one core
  history FILE [--state-changes N] [--seed N]  gdl-perf's correctness-test log of
                                               random games, until N state changes
  help                                         this text";

/// A command of the runner.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Perft to a depth.
    Perft(u32),
    /// Seeded random playouts.
    Playout {
        /// The first seed.
        seed: u64,
        /// How many.
        count: u64,
        /// The step limit of each.
        max_steps: usize,
    },
    /// Timed random playouts.
    Rates {
        /// The time budget in seconds.
        seconds: f64,
        /// The seed.
        seed: u64,
    },
    /// gdl-perf's correctness-test log.
    History {
        /// Where the log goes.
        file: String,
        /// Games are played until more state changes than this.
        state_changes: u64,
        /// The seed of the moves' choice.
        seed: u64,
    },
    /// The usage text.
    Help,
}

/// Reads the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("no command given".to_owned());
    };
    let mut options = Options::new(rest);
    let parsed = match command.as_str() {
        "perft" => {
            let depth = options.positional("DEPTH")?;
            Command::Perft(parse_number(&depth, "DEPTH")?)
        }
        "playout" => Command::Playout {
            seed: options.value("--seed", 0)?,
            count: options.value("--count", 1)?,
            max_steps: options.value("--max-steps", 100_000)?,
        },
        "rates" => {
            let seconds: f64 = options.value("--seconds", 5.0)?;
            if !(seconds.is_finite() && seconds > 0.0) {
                return Err(format!("--seconds must be positive, not {seconds}"));
            }
            Command::Rates {
                seconds,
                seed: options.value("--seed", 1)?,
            }
        }
        "history" => Command::History {
            file: options.positional("FILE")?,
            state_changes: options.value("--state-changes", 0)?,
            seed: options.value("--seed", 1)?,
        },
        "help" | "--help" | "-h" => Command::Help,
        other => return Err(format!("unknown command `{other}`")),
    };
    options.finish()?;
    Ok(parsed)
}

/// The arguments of one command, consumed as they are read.
struct Options<'a> {
    args: Vec<Option<&'a str>>,
}

impl<'a> Options<'a> {
    fn new(args: &'a [String]) -> Self {
        Options {
            args: args.iter().map(|a| Some(a.as_str())).collect(),
        }
    }

    /// The first argument not starting with `--`.
    fn positional(&mut self, name: &str) -> Result<String, String> {
        let slot = self
            .args
            .iter_mut()
            .find(|a| a.is_some_and(|a| !a.starts_with("--")))
            .ok_or_else(|| format!("missing {name}"))?;
        Ok(slot.take().unwrap_or_default().to_owned())
    }

    /// The value of `--name VALUE` or `--name=VALUE`, else `default`.
    fn value<T: std::str::FromStr>(&mut self, name: &str, default: T) -> Result<T, String> {
        for i in 0..self.args.len() {
            let Some(arg) = self.args[i] else { continue };
            if arg == name {
                self.args[i] = None;
                let value = self
                    .args
                    .get_mut(i + 1)
                    .and_then(Option::take)
                    .ok_or_else(|| format!("{name} needs a value"))?;
                return parse_number(value, name);
            }
            if let Some(value) = arg.strip_prefix(name).and_then(|v| v.strip_prefix('=')) {
                self.args[i] = None;
                return parse_number(value, name);
            }
        }
        Ok(default)
    }

    /// An error naming the first argument nobody read.
    fn finish(self) -> Result<(), String> {
        match self.args.into_iter().flatten().next() {
            Some(arg) => Err(format!("unexpected argument `{arg}`")),
            None => Ok(()),
        }
    }
}

fn parse_number<T: std::str::FromStr>(text: &str, name: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{name} must be a number, not `{text}`"))
}

/// The lines `gdlc playout` prints for playout number `number` (1-based) played with
/// `seed`: the roles, each joint move (the `prefix` texts first, then the playout's), and
/// the goals (`none` for a role without a goal value, with a warning on stderr).
pub fn playout_lines<G: Game>(
    game: &G,
    number: u64,
    seed: u64,
    prefix: &[Vec<String>],
    playout: &Playout<G::Move>,
) -> Vec<String> {
    let roles: Vec<&str> = (0..game.num_roles()).map(|r| game.role_name(r)).collect();
    let mut lines = vec![
        format!("playout\t{number}\tseed\t{seed}"),
        format!("roles\t{}", roles.join("\t")),
    ];
    for (step, joint) in prefix.iter().enumerate() {
        lines.push(format!("{}\t{}", step + 1, joint.join("\t")));
    }
    for (step, joint) in playout.joint_moves.iter().enumerate() {
        let texts = move_texts(game, joint);
        lines.push(format!("{}\t{}", prefix.len() + step + 1, texts.join("\t")));
    }
    let mut goals = Vec::new();
    for (role, goal) in roles.iter().zip(&playout.goals) {
        match goal {
            Ok(value) => goals.push(value.to_string()),
            Err(err) => {
                eprintln!("warning: playout {number}: goal of role `{role}`: {err}");
                goals.push("none".to_owned());
            }
        }
    }
    lines.push(format!("goals\t{}", goals.join("\t")));
    lines
}

/// Runs the command of the process arguments on the reasoner `new()` makes; the exit
/// code says how it went.
pub fn main<G: Game>(new: fn() -> G) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args) {
        Ok(command) => run(&mut new(), &command),
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Runs one command on `game`, printing to stdout.
pub fn run<G: Game>(game: &mut G, command: &Command) -> ExitCode {
    let mut out = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) ends the output; it is not an error worth reporting.
    match *command {
        Command::Help => {
            let _ = writeln!(out, "{USAGE}");
        }
        Command::Perft(depth) => {
            let initial = game.initial_state();
            for d in 1..=depth {
                let count = crate::perft(game, &initial, d);
                if writeln!(out, "{d}\t{count}")
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    break;
                }
            }
        }
        Command::Playout {
            seed,
            count,
            max_steps,
        } => {
            for i in 0..count {
                let seed = seed.wrapping_add(i);
                let options = PlayoutOptions { seed, max_steps };
                match crate::random_playout(game, options) {
                    Ok(playout) => {
                        for line in playout_lines(game, i + 1, seed, &[], &playout) {
                            if writeln!(out, "{line}").is_err() {
                                return ExitCode::SUCCESS;
                            }
                        }
                    }
                    Err(err) => return unplayable_replayed(game, &err, 1, seed, max_steps),
                }
            }
        }
        Command::History {
            ref file,
            state_changes,
            seed,
        } => {
            let written = std::fs::File::create(file).and_then(|f| {
                let mut log = std::io::BufWriter::new(f);
                write_history(game, state_changes, seed, 100_000, &mut log)?;
                log.flush()
            });
            if let Err(e) = written {
                eprintln!("error: cannot write {file}: {e}");
                return ExitCode::FAILURE;
            }
        }
        Command::Rates { seconds, seed } => {
            let budget = Duration::from_secs_f64(seconds);
            match crate::simulate_for(game, budget, seed, 100_000) {
                Ok(report) => {
                    let _ = writeln!(
                        out,
                        "{} playouts, {} states in {:.2} s: {:.1} playouts/s, {:.0} states/s",
                        report.playouts,
                        report.states,
                        report.elapsed.as_secs_f64(),
                        report.playouts_per_second(),
                        report.states_per_second()
                    );
                }
                Err(err) => return unplayable_replayed(game, &err, u64::MAX, seed, 100_000),
            }
        }
    }
    ExitCode::SUCCESS
}

/// gdl-perf's correctness-test log (its `GameActionFormat`): `!R!` and the roles, then
/// games from the initial state: per state `!T!false`, each role's legal moves (`!L!`,
/// move texts joined by commas) and the joint move chosen at random (`!C!`), then
/// `!T!true` and the goals (`!G!`); games repeat until more than `state_changes` state
/// changes, then `!F!`. An initial state that is terminal gives `!T!true` and `!F!`
/// (as gdl-perf's own engines do); a state without a legal move for a role, a game past
/// `max_steps` or a goal without a value gives `!E!` and the reason, then `!F!`.
pub fn write_history<G: Game>(
    game: &mut G,
    state_changes: u64,
    seed: u64,
    max_steps: usize,
    out: &mut impl Write,
) -> std::io::Result<()> {
    use rand::{RngExt, SeedableRng};
    let roles: Vec<String> = (0..game.num_roles())
        .map(|r| game.role_name(r).to_owned())
        .collect();
    writeln!(out, "!R!{}", roles.join(","))?;
    let initial = game.initial_state();
    if game.is_terminal(&initial) {
        return writeln!(out, "!T!true\n!F!");
    }
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut changes = 0u64;
    let mut legal = Vec::new();
    loop {
        let mut state = initial.clone();
        let mut steps = 0usize;
        while !game.is_terminal(&state) {
            if steps == max_steps {
                return writeln!(out, "!E!no terminal state after {max_steps} steps\n!F!");
            }
            writeln!(out, "!T!false")?;
            let mut joint = Vec::with_capacity(roles.len());
            for (role, name) in roles.iter().enumerate() {
                game.legal_moves(&state, role, &mut legal);
                if legal.is_empty() {
                    return writeln!(out, "!E!role {name} has no legal move\n!F!");
                }
                writeln!(out, "!L!{}", move_texts(game, &legal).join(","))?;
                joint.push(legal[rng.random_range(0..legal.len())]);
            }
            writeln!(out, "!C!{}", move_texts(game, &joint).join(","))?;
            state = game.next_state(&state, &joint);
            changes += 1;
            steps += 1;
        }
        writeln!(out, "!T!true")?;
        let mut goals = Vec::with_capacity(roles.len());
        for (role, name) in roles.iter().enumerate() {
            match game.goal(&state, role) {
                Ok(value) => goals.push(value.to_string()),
                Err(err) => return writeln!(out, "!E!goal of role {name}: {err}\n!F!"),
            }
        }
        writeln!(out, "!G!{}", goals.join(","))?;
        if changes > state_changes {
            return writeln!(out, "!F!");
        }
    }
}

/// The KIF text of each of `moves` (a joint move in role order, a role's legal moves).
fn move_texts<G: Game>(game: &G, moves: &[G::Move]) -> Vec<String> {
    moves.iter().map(|&m| game.move_to_kif(m)).collect()
}

/// Reports a run of random playouts with `seed` (of at most `playouts`) that could
/// not be finished; for a role without a legal move, with the joint moves of the
/// playout that failed, found again ([`crate::simulate::failing_playout`]), so that
/// the state can be reached again: `gdlc playout GAME --moves …` replays them on the
/// interpreter.
fn unplayable_replayed<G: Game>(
    game: &mut G,
    err: &PlayoutError,
    playouts: u64,
    seed: u64,
    max_steps: usize,
) -> ExitCode {
    eprintln!("error: {err}");
    if matches!(err, PlayoutError::NoLegalMove { .. })
        && let Some(failed) = crate::simulate::failing_playout(
            game,
            Duration::from_secs(REPLAY_SECONDS),
            seed,
            max_steps,
        )
        && failed.number <= playouts
    {
        let joints: Vec<String> = failed
            .joint_moves
            .iter()
            .map(|joint| move_texts(game, joint).join(" "))
            .collect();
        eprintln!(
            "note: in random playout {} of seed {seed}, after these joint moves (replay them with `gdlc playout GAME --moves \"…\"`):\n{}",
            failed.number,
            joints.join("; ")
        );
    }
    ExitCode::FAILURE
}

/// How long a failed run of random playouts is played again to find the joint moves of
/// the playout that failed (it is found as fast as the run found it).
const REPLAY_SECONDS: u64 = 60;

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn commands_are_read_with_defaults() {
        assert_eq!(parse(&args("perft 3")), Ok(Command::Perft(3)));
        assert_eq!(
            parse(&args("playout --count 2 --seed=7")),
            Ok(Command::Playout {
                seed: 7,
                count: 2,
                max_steps: 100_000
            })
        );
        assert_eq!(
            parse(&args("rates")),
            Ok(Command::Rates {
                seconds: 5.0,
                seed: 1
            })
        );
        assert_eq!(parse(&args("--help")), Ok(Command::Help));
        assert_eq!(
            parse(&args("history log.txt --state-changes 5")),
            Ok(Command::History {
                file: "log.txt".to_owned(),
                state_changes: 5,
                seed: 1
            })
        );
    }

    #[test]
    fn bad_arguments_are_refused_with_the_reason() {
        let error = |text: &str| parse(&args(text)).expect_err(text);
        assert_eq!(error(""), "no command given");
        assert_eq!(error("perft"), "missing DEPTH");
        assert_eq!(error("perft x"), "DEPTH must be a number, not `x`");
        assert_eq!(error("perft 2 3"), "unexpected argument `3`");
        assert_eq!(error("playout --seed"), "--seed needs a value");
        assert_eq!(
            error("rates --seconds 0"),
            "--seconds must be positive, not 0"
        );
        assert_eq!(error("history"), "missing FILE");
        assert_eq!(error("fly"), "unknown command `fly`");
    }
}

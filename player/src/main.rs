//! The `gdlc-player` command: `serve` (a GGP player over HTTP), `match` (local matches
//! through the same protocol over loopback) and `perf` (gdl-perf's perf-test process).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use gdlc_player::matches::{Contestant, MatchSettings, play_match};
use gdlc_player::server::{Player, Server};
use gdlc_player::session::Strategy;

#[derive(Parser)]
#[command(
    name = "gdlc-player",
    version,
    about = "A general game player on gdlc's reasoners"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play matches for a game manager over HTTP (the GGP protocol).
    Serve {
        /// The port to listen on.
        #[arg(long, default_value_t = 9147)]
        port: u16,
        /// The address to listen on (0.0.0.0: every interface).
        #[arg(long, default_value = "0.0.0.0")]
        host: String,
        /// Play uniformly random legal moves instead of searching.
        #[arg(long)]
        random: bool,
        /// Seed of the player's random choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Search threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// Never compile rules natively on the fly (by default, rules that are not built
        /// in are compiled with gdlc and cargo while the plan executor plays).
        #[arg(long)]
        no_compile: bool,
    },
    /// Play local matches between players of this binary or players at HOST:PORT.
    Match {
        /// The game (KIF).
        game: PathBuf,
        /// One player per role, in role order: mcts, random or HOST:PORT.
        #[arg(long, value_delimiter = ',', default_value = "mcts,random")]
        players: Vec<String>,
        #[command(flatten)]
        options: MatchOptions,
    },
    /// Compile a game's reasoner natively into the cache now (what `serve` does on the
    /// fly for rules that are not built in), and print how long it took.
    Compile {
        /// The game (KIF).
        game: PathBuf,
    },
    /// Random playouts per second on 1, 2, … N threads.
    Bench {
        /// The game (KIF).
        game: PathBuf,
        /// The most threads to measure (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// Seconds per measurement.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
    /// gdl-perf's perf test: random playouts for SECONDS, counts in RESULT_FILE (rules
    /// that are not built in are compiled natively first, unless --no-compile).
    Perf {
        /// The game (KIF).
        game_file: PathBuf,
        /// Where the `key=value` results go.
        result_file: PathBuf,
        /// Length of the test in seconds.
        seconds: u64,
        /// Run on the plan executor rather than compiling natively.
        #[arg(long)]
        no_compile: bool,
    },
}

/// The number of cores (1 when it cannot be told).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve {
            port,
            host,
            random,
            seed,
            threads,
            no_compile,
        } => serve(&host, port, random, seed, threads, no_compile),
        Command::Match {
            game,
            players,
            options,
        } => run_matches(&game, &players, options),
        Command::Compile { game } => compile(&game),
        Command::Bench {
            game,
            threads,
            seconds,
        } => bench(&game, threads, seconds),
        Command::Perf {
            game_file,
            result_file,
            seconds,
            no_compile,
        } => perf(&game_file, &result_file, seconds, no_compile),
    }
}

/// The `serve` command: plays for a game manager on `host:port` until killed.
fn serve(
    host: &str,
    port: u16,
    random: bool,
    seed: u64,
    threads: Option<usize>,
    no_compile: bool,
) -> ExitCode {
    let threads = threads.unwrap_or_else(cores);
    let server = match Server::bind((host, port)) {
        Ok(server) => server,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::FAILURE;
        }
    };
    let strategy = if random {
        Strategy::Random
    } else {
        Strategy::Mcts
    };
    eprintln!("gdlc-player: listening on {host}:{}", server.port());
    server.run(
        {
            let player =
                Player::new(strategy, seed, Some("gdlc-player".to_owned())).with_threads(threads);
            if no_compile {
                player
            } else {
                player.with_native_cache(gdlc_player::native::cache_dir())
            }
        },
        false,
    );
    ExitCode::SUCCESS
}

/// The `compile` command: compiles a game's reasoner into the cache and prints how
/// long it took.
fn compile(game: &Path) -> ExitCode {
    let built = std::fs::read_to_string(game)
        .map_err(|e| format!("cannot read {}: {e}", game.display()))
        .and_then(|text| gdlc_player::reasoner::Rules::parse(&game.display().to_string(), &text))
        .and_then(|rules| {
            let cache = gdlc_player::native::cache_dir();
            gdlc_player::native::build(rules.text(), rules.fingerprint(), &cache)
        });
    match built {
        Ok(built) => {
            println!(
                "{}: gdlc {:.2} s, cargo {:.2} s",
                built.binary.display(),
                built.gdlc.as_secs_f64(),
                built.cargo.as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::FAILURE
        }
    }
}

/// The `bench` command: prints random playouts per second on 1 to `threads` threads.
fn bench(game: &Path, threads: Option<usize>, seconds: f64) -> ExitCode {
    let threads = threads.unwrap_or_else(cores);
    if !(seconds.is_finite() && seconds > 0.0) {
        eprintln!("error: --seconds must be a positive number");
        return ExitCode::FAILURE;
    }
    match gdlc_player::perf::thread_rates(game, threads, Duration::from_secs_f64(seconds)) {
        Ok((reasoner, rates)) => {
            println!("# {} on {reasoner}", game.display());
            println!("threads\tplayouts/s\tspeed-up");
            let one = rates.first().map_or(1.0, |r| r.playouts_per_second);
            for rate in rates {
                println!(
                    "{}\t{:.0}\t{:.2}",
                    rate.threads,
                    rate.playouts_per_second,
                    rate.playouts_per_second / one
                );
            }
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::FAILURE
        }
    }
}

/// The `perf` command: gdl-perf's perf test, its counts written to `result_file`.
fn perf(game_file: &Path, result_file: &Path, seconds: u64, no_compile: bool) -> ExitCode {
    let cache = (!no_compile).then(gdlc_player::native::cache_dir);
    let outcome = gdlc_player::perf::run(game_file, seconds, cache.as_deref());
    if let Err(why) = &outcome {
        eprintln!("error: {why}");
    }
    let text = gdlc_player::perf::result_text(&outcome);
    if let Err(e) = std::fs::write(result_file, text) {
        eprintln!("error: cannot write {}: {e}", result_file.display());
        return ExitCode::FAILURE;
    }
    match outcome {
        Ok(outcome) => {
            eprintln!(
                "{} rollouts, {} state changes in {} ms on {}",
                outcome.counts.rollouts,
                outcome.counts.state_changes,
                outcome.counts.elapsed.as_millis(),
                outcome.reasoner
            );
            ExitCode::SUCCESS
        }
        Err(_) => ExitCode::FAILURE,
    }
}

/// The `match` command's settings.
#[derive(clap::Args)]
struct MatchOptions {
    /// Seconds per move.
    #[arg(long, default_value_t = 1.0)]
    playclock: f64,
    /// Seconds to get ready.
    #[arg(long, default_value_t = 10.0)]
    startclock: f64,
    /// Number of matches.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// Rotate the players by one role after each match (so each plays every role).
    #[arg(long)]
    rotate: bool,
    /// Seed of the players' and the manager's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search threads of each local MCTS player.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Let local MCTS players compile rules that are not built in on the fly.
    #[arg(long)]
    compile: bool,
    /// Speak GDL-II: tell each player only its own last move and its percepts.
    #[arg(long)]
    percepts: bool,
}

fn run_matches(game: &PathBuf, players: &[String], options: MatchOptions) -> ExitCode {
    let MatchOptions {
        playclock,
        startclock,
        count,
        rotate,
        seed,
        threads,
        compile,
        percepts,
    } = options;
    let fail = |why: String| {
        eprintln!("error: {why}");
        ExitCode::FAILURE
    };
    let rules = match std::fs::read_to_string(game) {
        Ok(text) => text,
        Err(e) => return fail(format!("cannot read {}: {e}", game.display())),
    };
    let contestants: Vec<Contestant> = match players.iter().map(|p| Contestant::parse(p)).collect()
    {
        Ok(c) => c,
        Err(why) => return fail(why),
    };
    let clock = |s: f64, what: &str| {
        (s.is_finite() && s > 0.0)
            .then(|| Duration::from_secs_f64(s))
            .ok_or(format!("the {what} must be a positive number of seconds"))
    };
    let (play_clock, start_clock) = match (
        clock(playclock, "play clock"),
        clock(startclock, "start clock"),
    ) {
        (Ok(p), Ok(s)) => (p, s),
        (Err(why), _) | (_, Err(why)) => return fail(why),
    };
    let stem = game
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy());
    // Per player label: matches, summed scores.
    let mut totals: Vec<(String, usize, u64)> = Vec::new();
    let mut faults = 0;
    for index in 0..count {
        let mut seated = contestants.clone();
        if rotate && !seated.is_empty() {
            let k = index % seated.len();
            seated.rotate_right(k);
        }
        let settings = MatchSettings {
            rules: rules.clone(),
            players: seated.clone(),
            start_clock,
            play_clock,
            seed: seed.wrapping_add(index as u64),
            threads,
            native_cache: compile.then(gdlc_player::native::cache_dir),
            percepts,
        };
        let outcome = match play_match(&settings, &format!("{stem}.{}", index + 1)) {
            Ok(outcome) => outcome,
            Err(why) => return fail(why),
        };
        let seats: Vec<String> = outcome
            .roles
            .iter()
            .zip(&seated)
            .zip(&outcome.goals)
            .map(|((role, player), goal)| format!("{role}={} {goal}", player.label()))
            .collect();
        println!(
            "match {}: {} ({} steps)",
            index + 1,
            seats.join(", "),
            outcome.steps
        );
        for fault in &outcome.faults {
            println!("  fault: {fault}");
        }
        faults += outcome.faults.len();
        for (player, goal) in seated.iter().zip(&outcome.goals) {
            let label = player.label();
            match totals.iter_mut().find(|(l, _, _)| *l == label) {
                Some(entry) => {
                    entry.1 += 1;
                    entry.2 += u64::from(*goal);
                }
                None => totals.push((label, 1, u64::from(*goal))),
            }
        }
    }
    for (label, seats, sum) in &totals {
        println!(
            "{label}: mean goal {:.1} over {seats} seat(s)",
            *sum as f64 / *seats as f64
        );
    }
    println!("faults: {faults}");
    ExitCode::SUCCESS
}

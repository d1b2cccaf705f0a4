//! A worker process: one game's natively compiled reasoner and a search, driven by a
//! parent over standard input and output, one line per message, fields separated by
//! tabs. The player compiles a crate whose `main` calls [`main`] when the rules it
//! received are not built in (`gdlc-player`'s `native` module).
//!
//! - The worker starts with `ready<TAB>ROLE…` (the roles, in order).
//! - `advance<TAB>MOVE…` (one move per role, KIF text): the joint move played; reply
//!   `ok`, or `error<TAB>WHY` when the moves are not legal.
//! - `think<TAB>MILLIS<TAB>ROLE`: search for MILLIS milliseconds, reply
//!   `move<TAB>MOVE<TAB>ITERATIONS` (the role's best move at the root, and the search
//!   iterations — each a playout or a terminal node — the worker's main thread ran), or
//!   `error<TAB>WHY`.
//! - `perf<TAB>SECONDS`: gdl-perf's perf test on this reasoner, from the initial state
//!   (see [`crate::perf`]); reply `perf<TAB>MILLIS<TAB>STATE_CHANGES<TAB>ROLLOUTS`.
//! - `quit`, or the end of the input: exit.
//!
//! Between messages the worker searches on (pondering). Its first argument, when
//! given, is the number of search threads.

use std::io::{BufRead, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use gdlc_runtime::game::Game;

use crate::parallel::ParallelSearch;

/// How long the worker searches between two looks at its input.
const SLICE: Duration = Duration::from_millis(10);

/// Runs the worker loop on the reasoner `new` makes, until `quit` or the end of input.
pub fn main<G>(new: fn() -> G)
where
    G: Game + Clone + Send,
    G::Move: Send,
{
    let threads = std::env::args()
        .nth(1)
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(1);
    let game = new();
    let roles: Vec<String> = (0..game.num_roles())
        .map(|r| game.role_name(r).to_owned())
        .collect();
    let (lines, inbox) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut out = std::io::stdout().lock();
    let mut say = |text: String| {
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    };
    say(format!("ready\t{}", roles.join("\t")));
    std::thread::scope(|scope| {
        let mut search = ParallelSearch::new(scope, game, threads, 1);
        loop {
            let line = if search.main().is_over() {
                inbox.recv().ok()
            } else {
                match inbox.recv_timeout(Duration::ZERO) {
                    Ok(line) => Some(line),
                    Err(RecvTimeoutError::Timeout) => {
                        search.search_until(Instant::now() + SLICE);
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => None,
                }
            };
            let Some(line) = line else { break };
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[..] {
                ["quit"] => break,
                ["advance", ref moves @ ..] => say(match advance(&mut search, moves) {
                    Ok(()) => "ok".to_owned(),
                    Err(why) => format!("error\t{why}"),
                }),
                ["perf", seconds] => say(match seconds.parse::<u64>() {
                    Ok(seconds) => {
                        let mut game = search.main().game().clone();
                        match crate::perf::run(&mut game, Duration::from_secs(seconds)) {
                            Ok(c) => format!(
                                "perf\t{}\t{}\t{}",
                                c.elapsed.as_millis(),
                                c.state_changes,
                                c.rollouts
                            ),
                            Err(why) => format!("error\t{why}"),
                        }
                    }
                    Err(_) => format!("error\tbad time `{seconds}`"),
                }),
                ["think", millis, role] => say(match think(&mut search, millis, role) {
                    Ok((text, iterations)) => format!("move\t{text}\t{iterations}"),
                    Err(why) => format!("error\t{why}"),
                }),
                _ => say(format!("error\tunknown message `{line}`")),
            }
        }
        search.finish();
    });
}

fn advance<'s, G>(search: &mut ParallelSearch<'s, G>, texts: &[&str]) -> Result<(), String>
where
    G: Game + Clone + Send + 's,
    G::Move: Send,
{
    let main = search.main();
    if texts.len() != main.game().num_roles() {
        return Err(format!(
            "expected {} moves, got {}",
            main.game().num_roles(),
            texts.len()
        ));
    }
    let state = main.state().clone();
    let joint = texts
        .iter()
        .enumerate()
        .map(|(role, text)| {
            main.game()
                .legal_move_from_kif(&state, role, text)
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    search.advance(&joint);
    Ok(())
}

fn think<'s, G>(
    search: &mut ParallelSearch<'s, G>,
    millis: &str,
    role: &str,
) -> Result<(String, u64), String>
where
    G: Game + Clone + Send + 's,
    G::Move: Send,
{
    let millis: u64 = millis.parse().map_err(|_| format!("bad time `{millis}`"))?;
    let role: usize = role.parse().map_err(|_| format!("bad role `{role}`"))?;
    if role >= search.main().game().num_roles() {
        return Err(format!("no role {role}"));
    }
    if search.main().is_over() {
        return Err("the game is over".to_owned());
    }
    let report = search.search_until(Instant::now() + Duration::from_millis(millis));
    let best = search.best_move(role).ok_or("no legal move")?;
    Ok((search.main().game().move_to_kif(best), report.iterations))
}

//! criterion micro-benchmarks of the reasoners' three queries, on the team's games:
//! the generated crates of `games/` (tictactoe, connect four 7 × 6, breakthrough, chess)
//! and, where one exists, the hand-written reference for the same file.
//!
//! Each game's positions are the states along seeded random playouts (seeds 1, 2, …,
//! until at least [`MIN_STATES`] states), not just the initial state: early, middle
//! and end positions alike. A reasoner and its reference pick the same moves for the
//! same seed (the references list legal moves by KIF text, and so do these games'
//! generated crates: their layout order, numbers by value, is text order here), so
//! both are measured on the same positions. Per game and reasoner there are three benchmarks, each one pass over
//! all positions (criterion's throughput is in positions per second):
//!
//! - `legal_moves`: every role's legal moves in every non-terminal state;
//! - `next_state`: the next state of every non-terminal state under the joint move the
//!   playout played there;
//! - `terminal_goals`: `is_terminal` and every role's goal in every state (goal values
//!   missing in open positions, as the team files give none, are measured too).
//!
//! Run with `cargo bench -p gdlc-benches` (a filter such as `-- chess` selects
//! benchmarks; `-- --test` runs each once as a check).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_main};
use gdlc_benches::reference::{Breakthrough, ConnectFour7, TicTacToe};
use gdlc_runtime::{Game, PlayoutOptions, random_playout};

/// The fewest positions collected per game.
const MIN_STATES: usize = 48;

/// Positions of a game along seeded random playouts.
struct Positions<G: Game> {
    /// Every state visited, terminal states included.
    states: Vec<G::State>,
    /// Every non-terminal state with the joint move played from it.
    steps: Vec<(G::State, Vec<G::Move>)>,
}

/// The positions of playouts with seeds 1, 2, … until at least [`MIN_STATES`] states.
fn positions<G: Game>(game: &mut G) -> Positions<G> {
    let mut positions = Positions {
        states: Vec::new(),
        steps: Vec::new(),
    };
    let mut seed = 1;
    while positions.states.len() < MIN_STATES {
        let options = PlayoutOptions {
            seed,
            max_steps: 1000,
        };
        let playout = random_playout(game, options)
            .unwrap_or_else(|e| panic!("playout with seed {seed}: {e}"));
        let mut state = game.initial_state();
        for joint in playout.joint_moves {
            let next = game.next_state(&state, &joint);
            positions.states.push(state.clone());
            positions.steps.push((state, joint));
            state = next;
        }
        positions.states.push(state);
        seed += 1;
    }
    positions
}

/// The three benchmarks of `game` in group `name`.
fn queries<G: Game>(c: &mut Criterion, name: &str, mut game: G) {
    let positions = positions(&mut game);
    let roles = game.num_roles();
    let mut group = c.benchmark_group(name);

    group.throughput(Throughput::Elements(positions.steps.len() as u64));
    let mut moves = Vec::new();
    group.bench_function("legal_moves", |b| {
        b.iter(|| {
            let mut count = 0;
            for (state, _) in &positions.steps {
                for role in 0..roles {
                    game.legal_moves(state, role, &mut moves);
                    count += moves.len();
                }
            }
            black_box(count)
        });
    });
    group.bench_function("next_state", |b| {
        b.iter(|| {
            for (state, joint) in &positions.steps {
                black_box(game.next_state(state, joint));
            }
        });
    });

    group.throughput(Throughput::Elements(positions.states.len() as u64));
    group.bench_function("terminal_goals", |b| {
        b.iter(|| {
            for state in &positions.states {
                black_box(game.is_terminal(state));
                for role in 0..roles {
                    black_box(game.goal(state, role).ok());
                }
            }
        });
    });
    group.finish();
}

fn tictactoe(c: &mut Criterion) {
    queries(c, "tictactoe/generated", gdlc_game_tictactoe::new());
    queries(c, "tictactoe/reference", TicTacToe::new());
}

fn connectfour(c: &mut Criterion) {
    queries(c, "connectfour/generated", gdlc_game_connectfour::new());
    queries(c, "connectfour/reference", ConnectFour7::new());
}

fn breakthrough(c: &mut Criterion) {
    queries(c, "breakthrough/generated", gdlc_game_breakthrough::new());
    queries(c, "breakthrough/reference", Breakthrough::team());
}

fn chess(c: &mut Criterion) {
    queries(c, "chess/generated", gdlc_game_chess::new());
}

/// Shorter than criterion's defaults (3 s warm-up, 5 s measurement) so that the 21
/// benchmarks take about two minutes; `--warm-up-time` and `--measurement-time`
/// override it.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

/// Every benchmark, with [`config`] and then criterion's command-line options (what
/// `criterion_group!` would write, with documentation).
fn reasoners() {
    let mut criterion = config().configure_from_args();
    tictactoe(&mut criterion);
    connectfour(&mut criterion);
    breakthrough(&mut criterion);
    chess(&mut criterion);
}

criterion_main!(reasoners);

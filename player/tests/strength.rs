//! The search against a uniformly random player, on the compiled built-in games, with a
//! fixed number of iterations per move (so the result does not depend on the machine's
//! speed): it never loses tictactoe and scores at least 90 % (win 1, draw ½) at connect
//! four and breakthrough, as first and as second player.

use gdlc_player::mcts::Mcts;
use gdlc_player::reasoner::builtin;
use gdlc_runtime::game::Game;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::time::{Duration, Instant};

/// The search's score (0..=1) in one game against random players, `iterations` per move.
fn score_against_random<G: Game + Clone>(game: &G, seat: usize, iterations: u64, seed: u64) -> f64 {
    let mut game = game.clone();
    let initial = game.initial_state();
    let mut search = Mcts::new(game.clone(), initial, seed);
    let mut rng = Pcg64Mcg::seed_from_u64(seed.wrapping_mul(31));
    let far = Instant::now() + Duration::from_secs(3600);
    while !search.is_over() {
        let joint: Vec<G::Move> = (0..game.num_roles())
            .map(|role| {
                if role == seat && search.legal_moves(role).len() > 1 {
                    search.search_until(far, iterations);
                    search.best_move(role).expect("a legal move")
                } else {
                    let moves = search.legal_moves(role);
                    moves[rng.random_range(0..moves.len())]
                }
            })
            .collect();
        search.advance(&joint);
    }
    let end = search.state().clone();
    f64::from(game.goal(&end, seat).expect("a goal value")) / 100.0
}

fn mean_score<G: Game + Clone>(game: G, seat: usize, games: u64, iterations: u64) -> f64 {
    (0..games)
        .map(|seed| score_against_random(&game, seat, iterations, seed))
        .sum::<f64>()
        / games as f64
}

#[test]
fn tictactoe_is_never_lost() {
    for seat in 0..2 {
        for seed in 0..10 {
            let score = score_against_random(&builtin::tictactoe::new(), seat, 2_000, seed);
            assert!(score >= 0.5, "seat {seat}, seed {seed}: lost");
        }
    }
}

#[test]
fn connect_four_is_won_nine_times_in_ten() {
    for seat in 0..2 {
        let score = mean_score(builtin::connectfour::new(), seat, 10, 1_500);
        assert!(score >= 0.9, "seat {seat}: {score}");
    }
}

#[test]
fn breakthrough_is_won_nine_times_in_ten() {
    for seat in 0..2 {
        let score = mean_score(builtin::breakthrough::new(), seat, 10, 1_000);
        assert!(score >= 0.9, "seat {seat}: {score}");
    }
}

//! The generated reasoner crates of the team's games (`generated/`, from `games/`)
//! against the reference interpreter: perft and, along 200 seeded random playouts, the
//! full legal-move sets, next states, terminal and goals. Chess also reproduces the
//! published perft figures from the initial position with the generated reasoner.

use std::path::Path;

use gdlc::interp::Interpreter;
use gdlc_runtime::{CompareOptions, Game, compare, perft};

fn interpreter(name: &str) -> Interpreter {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../games")
        .join(name);
    let file = gdlc::SourceFile::read(&path).unwrap_or_else(|d| panic!("{d}"));
    let front = gdlc::front_end(&file);
    assert!(front.is_valid(), "{name} is not valid");
    Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"))
}

fn agree<G: Game>(name: &str, mut generated: G, perft_depth: u32, playouts: usize) {
    let mut reference = interpreter(name);
    let options = CompareOptions {
        perft_depth,
        playouts,
        max_steps: 300,
        seed: 1,
    };
    if let Err(difference) = compare(&mut reference, &mut generated, options) {
        panic!("{name}: {difference}");
    }
}

#[test]
fn tictactoe_agrees() {
    agree("tictactoe.kif", gdlc_game_tictactoe::new(), 4, 200);
}

#[test]
fn connectfour_agrees() {
    agree("connectfour.kif", gdlc_game_connectfour::new(), 3, 200);
}

#[test]
fn breakthrough_agrees() {
    agree("breakthrough.kif", gdlc_game_breakthrough::new(), 2, 200);
}

#[test]
fn nim_agrees() {
    agree("nim.kif", gdlc_game_nim::new(), 3, 200);
}

#[test]
fn chess_agrees() {
    // The interpreter is slow on chess: fewer playouts here; `cargo xtask verify
    // games/chess.kif` runs the full 200.
    agree("chess.kif", gdlc_game_chess::new(), 2, 10);
}

#[test]
fn chess_perft_matches_the_published_figures() {
    let mut chess = gdlc_game_chess::new();
    let start = chess.initial_state();
    let counts: Vec<u64> = (1..=4).map(|d| perft(&mut chess, &start, d)).collect();
    assert_eq!(counts, [20, 400, 8902, 197281]);
}

#[test]
fn illegal_move_text_is_rejected() {
    let mut chess = gdlc_game_chess::new();
    let start = chess.initial_state();
    let white = chess.role_index("white").expect("white plays");
    let mut moves = Vec::new();
    chess.legal_moves(&start, white, &mut moves);
    let first = chess.move_to_kif(moves[0]);
    assert_eq!(
        chess.legal_move_from_kif(&start, white, &first),
        Ok(moves[0])
    );
    let error = chess
        .legal_move_from_kif(&start, white, "(fly e 2 e 9)")
        .expect_err("not a legal move");
    assert!(error.to_string().contains("not a legal move"), "{error}");
    assert!(chess.legal_move_from_kif(&start, white, "(move").is_err());
}

//! The reasoner compiled at build time counts tictactoe's move sequences right.

use gdlc_runtime::Game as _;

#[test]
fn tictactoe_perft() {
    let mut game = builder_demo::tictactoe::new();
    let start = game.initial_state();
    let counts: Vec<u64> = (1..=3)
        .map(|depth| gdlc_runtime::perft(&mut game, &start, depth))
        .collect();
    assert_eq!(counts, [9, 72, 504]);
}

//! The team's own games (`games/*.kif`): valid without a single diagnostic, and their
//! perft from the initial state matches figures known independently of gdlc.

use gdlc::SourceFile;
use gdlc::interp::Interpreter;
use gdlc_runtime::{Game, PlayoutOptions};

fn load(name: &str) -> Interpreter {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../games")
        .join(name);
    let file = SourceFile::read(&path).unwrap_or_else(|d| panic!("{d}"));
    let front = gdlc::front_end(&file);
    let rendered: Vec<String> = front.diagnostics.iter().map(|d| d.render(&file)).collect();
    assert!(
        rendered.is_empty(),
        "{name} has diagnostics:\n{}",
        rendered.join("\n")
    );
    Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"))
}

fn assert_perft(name: &str, expected: &[u64]) {
    let mut game = load(name);
    let initial = game.initial_state();
    let counts: Vec<u64> = (1..=expected.len() as u32)
        .map(|d| gdlc_runtime::perft(&mut game, &initial, d))
        .collect();
    assert_eq!(counts, expected, "perft of {name}");
}

#[test]
fn tictactoe_perft() {
    assert_perft("tictactoe.kif", &[9, 72, 504, 3024, 15120, 56160]);
}

#[test]
fn connect_four_perft() {
    // No line can be completed before ply 7, so every depth below is 7^d.
    assert_perft("connectfour.kif", &[7, 49, 343, 2401, 16807]);
}

#[test]
fn breakthrough_perft() {
    assert_perft("breakthrough.kif", &[22, 484, 11132]);
}

#[test]
fn nim_perft() {
    // Heaps 3, 4, 5: 12 first moves; 113 = 30 + 38 + 45 replies.
    assert_perft("nim.kif", &[12, 113, 810]);
}

#[test]
fn every_team_game_ends_with_one_goal_per_role() {
    for name in [
        "tictactoe.kif",
        "connectfour.kif",
        "breakthrough.kif",
        "nim.kif",
    ] {
        let mut game = load(name);
        for seed in 0..20 {
            let playout = gdlc_runtime::random_playout(
                &mut game,
                PlayoutOptions {
                    seed,
                    max_steps: 1000,
                },
            )
            .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            assert!(!playout.joint_moves.is_empty());
            let goals: Vec<u8> = playout
                .goals
                .iter()
                .map(|g| *g.as_ref().unwrap_or_else(|e| panic!("{name}: {e}")))
                .collect();
            assert_eq!(goals.len(), game.num_roles());
            // Every team game is two-player and zero-sum-like: the goals add up to 100.
            assert_eq!(
                goals.iter().map(|&g| u32::from(g)).sum::<u32>(),
                100,
                "{name} seed {seed}: {goals:?}"
            );
        }
    }
}

//! Playing from percepts (GDL-II): the belief state weighs the states consistent with
//! what the role saw, and matches spoken in GDL-II (each player told only its own move
//! and percepts; `random` played by the manager) end without a fault.

use std::time::{Duration, Instant};

use gdlc_player::belief::Belief;
use gdlc_player::matches::{MatchSettings, play_match};
use gdlc_runtime::game::Game;

mod common;
use common::{corpus_game, test_game};

/// GDL-II settings: percepts only, and two search threads (the belief stops the helpers
/// it does not use).
fn settings(rules: String, players: &[&str]) -> MatchSettings {
    MatchSettings {
        seed: 5,
        threads: 2,
        percepts: true,
        ..common::settings(rules, players, Duration::from_millis(300))
    }
}

#[test]
fn the_belief_weighs_states_by_their_chance_and_the_search_switches() {
    let text = test_game("doors");
    let front = gdlc::front_end(&gdlc::SourceFile::new("doors.kif", text.as_str()));
    let mut game = gdlc::interp::Interpreter::new(&front).expect("valid");
    let player = game.role_index("player").expect("a role");
    let mut belief = Belief::new(&mut game, player, 1);
    // The prize is hidden: three states, each a third.
    belief.update(&mut game, "noop", &[]).expect("consistent");
    assert_eq!(belief.len(), 3);
    // Door 1 picked, door 3 opened: the prize is behind 1 (a third: the opener had two
    // doors to choose from) or behind 2 (two thirds: it had one).
    belief
        .update(&mut game, "(pick 1)", &[])
        .expect("consistent");
    belief
        .update(&mut game, "noop", &["(opened 3)".to_owned()])
        .expect("consistent");
    assert_eq!(belief.len(), 2);
    let choice = belief
        .choose(&mut game, Instant::now() + Duration::from_millis(300))
        .expect("a move");
    assert_eq!(game.move_to_kif(choice), "switch");
    // Percepts no state explains: the belief says so and keeps the successors.
    let mut lost = Belief::new(&mut game, player, 1);
    assert!(
        lost.update(&mut game, "noop", &["(opened 2)".to_owned()])
            .is_err()
    );
    assert!(!lost.is_empty());
}

#[test]
fn gdl2_matches_are_played_from_percepts_without_faults() {
    let mut games = vec![
        (
            "doors".to_owned(),
            test_game("doors"),
            vec!["random", "mcts"],
        ),
        (
            "guess".to_owned(),
            test_game("guess"),
            vec!["random", "mcts"],
        ),
    ];
    if let Some(text) = corpus_game("montyhall") {
        games.push(("montyhall".to_owned(), text, vec!["random", "mcts"]));
    }
    if let Some(text) = corpus_game("kriegtictactoe") {
        games.push((
            "kriegtictactoe".to_owned(),
            text.clone(),
            vec!["mcts", "random"],
        ));
        games.push(("kriegtictactoe".to_owned(), text, vec!["random", "mcts"]));
    }
    for (name, rules, players) in games {
        let outcome = play_match(&settings(rules, &players), &name).expect("a match");
        assert!(
            outcome.faults.is_empty(),
            "{name} {players:?}: {:?}",
            outcome.faults
        );
    }
}

#[test]
fn the_random_role_is_left_to_the_manager() {
    let error = play_match(&settings(test_game("doors"), &["mcts", "mcts"]), "doors")
        .expect_err("`random` is the manager's");
    assert!(error.contains("played by the manager"), "{error}");
}

//! Playing from percepts (GDL-II): the belief state weighs the states consistent with
//! what the role saw, and matches spoken in GDL-II (each player told only its own move
//! and percepts; `random` played by the manager) end without a fault.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gdlc_player::belief::Belief;
use gdlc_player::matches::{Contestant, MatchSettings, play_match};
use gdlc_runtime::game::Game;

fn test_game(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/games/{name}.kif"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The corpus directory (`GDLC_GAMES`, else `../shared/games`), or `None` with a note;
/// with `GDLC_REQUIRE_CORPUS=1` its absence fails the test.
fn corpus_game(name: &str) -> Option<String> {
    let dir = std::env::var_os("GDLC_GAMES").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/games"),
        PathBuf::from,
    );
    let path = dir.join(format!("{name}.kif"));
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            assert!(
                std::env::var("GDLC_REQUIRE_CORPUS").as_deref() != Ok("1"),
                "{}: {e} (GDLC_REQUIRE_CORPUS=1)",
                path.display()
            );
            eprintln!("skipped: {} not found (set GDLC_GAMES)", path.display());
            None
        }
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

fn settings(rules: String, players: &[&str]) -> MatchSettings {
    MatchSettings {
        rules,
        players: players
            .iter()
            .map(|p| Contestant::parse(p).expect("a player"))
            .collect(),
        start_clock: Duration::from_secs(10),
        play_clock: Duration::from_millis(300),
        seed: 5,
        // Two search threads: the belief stops the helpers it does not use.
        threads: 2,
        native_cache: None,
        percepts: true,
    }
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

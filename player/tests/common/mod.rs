//! What the player's integration tests share: reading games and match settings.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use gdlc_player::matches::{Contestant, MatchSettings};

/// A game of the team's `games/`.
pub fn team_game(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../games/{name}.kif"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A game of `player/tests/games/`.
pub fn test_game(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/games/{name}.kif"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A game of the corpus (`GDLC_GAMES`, else `../shared/games`), or `None` with a note;
/// with `GDLC_REQUIRE_CORPUS=1` its absence fails the test.
pub fn corpus_game(name: &str) -> Option<String> {
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

/// Settings of a local match between the named players (`mcts`, `random`), one search
/// thread each, GDL (not GDL-II) messages, no compilation on the fly.
pub fn settings(rules: String, players: &[&str], play_clock: Duration) -> MatchSettings {
    MatchSettings {
        rules,
        players: players
            .iter()
            .map(|p| Contestant::parse(p).expect("a player"))
            .collect(),
        start_clock: Duration::from_secs(10),
        play_clock,
        seed: 3,
        threads: 1,
        native_cache: None,
        percepts: false,
    }
}

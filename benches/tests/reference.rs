//! The hand-written reference reasoners against the reference interpreter: perft from
//! the initial state and, along seeded random playouts, legal-move sets, terminal
//! flags, goals and next states must be identical as KIF text (`gdlc_runtime::compare`).
//! Corpus games come from `$GDLC_GAMES` (default `../shared/games` beside the
//! repository); the tests print a skip message when it is absent. Team games come from
//! `games/` in the repository.

use std::path::{Path, PathBuf};

use gdlc::SourceFile;
use gdlc::interp::Interpreter;
use gdlc_benches::reference::{Breakthrough, ConnectFour7, ConnectFour8, TicTacToe};
use gdlc_runtime::{CompareOptions, Game, compare};

/// The corpus directory: `$GDLC_GAMES`, or `../../shared/games` from this crate.
fn corpus_path() -> PathBuf {
    match std::env::var_os("GDLC_GAMES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/games")),
    }
}

/// A corpus game's path, or `None` (with a skip message) when the corpus is absent.
fn corpus_game(name: &str) -> Option<PathBuf> {
    let dir = corpus_path();
    if !dir.is_dir() {
        println!(
            "corpus not found at {} (set GDLC_GAMES); skipping",
            dir.display()
        );
        return None;
    }
    let path = dir.join(name);
    assert!(path.is_file(), "corpus game {} is missing", path.display());
    Some(path)
}

/// A team game's path.
fn team_game(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../games")).join(name)
}

/// The interpreter of the game at `path`, panicking with diagnostics if invalid.
fn interpreter(path: &Path) -> Interpreter {
    let file = SourceFile::read(path)
        .unwrap_or_else(|d| panic!("cannot read {}: {d}", path.display()));
    let front = gdlc::front_end(&file);
    if !front.is_valid() {
        let rendered: String = front.diagnostics.iter().map(|d| d.render(&file)).collect();
        panic!("{} is not valid:\n{rendered}", file.name);
    }
    Interpreter::new(&front)
        .unwrap_or_else(|d| panic!("interpreter for {}: {}", file.name, d.render(&file)))
}

/// Compares `reference` with the interpreter of `path` and checks the perft figures.
fn agree<G: Game>(path: &Path, reference: &mut G, options: CompareOptions, perft: &[u64]) {
    let started = std::time::Instant::now();
    let mut oracle = interpreter(path);
    let agreement = compare(&mut oracle, reference, options)
        .unwrap_or_else(|difference| panic!("{}: {difference}", path.display()));
    eprintln!(
        "{}: perft {:?}, {} states along {} playouts agree ({:.1}s)",
        path.display(),
        agreement.perft,
        agreement.states,
        options.playouts,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(agreement.perft, perft, "{}: perft", path.display());
}

fn options(perft_depth: u32, playouts: usize) -> CompareOptions {
    CompareOptions {
        perft_depth,
        playouts,
        max_steps: 200,
        seed: 1,
    }
}

#[test]
fn tictactoe_agrees() {
    let Some(path) = corpus_game("tictactoe.kif") else {
        return;
    };
    agree(
        &path,
        &mut TicTacToe::new(),
        options(9, 200),
        &[9, 72, 504, 3024, 15120, 56160, 154944, 255168, 255168],
    );
}

#[test]
fn connectfour_8x6_agrees() {
    let Some(path) = corpus_game("connectfour.kif") else {
        return;
    };
    agree(&path, &mut ConnectFour8::new(), options(4, 100), &[8, 64, 512, 4096]);
}

#[test]
fn connectfour_7x6_agrees() {
    agree(
        &team_game("connectfour.kif"),
        &mut ConnectFour7::new(),
        options(4, 100),
        &[7, 49, 343, 2401],
    );
}

#[test]
fn breakthrough_corpus_agrees() {
    let Some(path) = corpus_game("breakthrough.kif") else {
        return;
    };
    agree(&path, &mut Breakthrough::corpus(), options(2, 100), &[22, 484]);
}

#[test]
fn breakthrough_team_agrees() {
    agree(
        &team_game("breakthrough.kif"),
        &mut Breakthrough::team(),
        options(2, 100),
        &[22, 484],
    );
}

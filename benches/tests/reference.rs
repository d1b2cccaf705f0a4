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
        assert!(
            std::env::var_os("GDLC_REQUIRE_CORPUS").is_none_or(|v| v != "1"),
            "corpus not found at {} and GDLC_REQUIRE_CORPUS=1",
            dir.display()
        );
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
    let file =
        SourceFile::read(path).unwrap_or_else(|d| panic!("cannot read {}: {d}", path.display()));
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
        max_steps: 400,
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
        options(9, 1000),
        &[9, 72, 504, 3024, 15120, 56160, 154944, 255168, 255168],
    );
}

#[test]
fn tictactoe_team_agrees() {
    // The team's file words the rules differently (`mark-of`, `opponent`) but has the
    // same fluents, moves and goals as the corpus file the reference mirrors. Perft
    // to depth 9 visits every reachable state, so fewer playouts are needed.
    agree(
        &team_game("tictactoe.kif"),
        &mut TicTacToe::new(),
        options(9, 100),
        &[9, 72, 504, 3024, 15120, 56160, 154944, 255168, 255168],
    );
}

#[test]
fn connectfour_8x6_agrees() {
    let Some(path) = corpus_game("connectfour.kif") else {
        return;
    };
    agree(
        &path,
        &mut ConnectFour8::new(),
        options(5, 1000),
        &[8, 64, 512, 4096, 32768],
    );
}

#[test]
fn connectfour_7x6_agrees() {
    agree(
        &team_game("connectfour.kif"),
        &mut ConnectFour7::new(),
        options(5, 1000),
        &[7, 49, 343, 2401, 16807],
    );
}

#[test]
fn breakthrough_corpus_agrees() {
    let Some(path) = corpus_game("breakthrough.kif") else {
        return;
    };
    agree(
        &path,
        &mut Breakthrough::corpus(),
        options(3, 300),
        &[22, 484, 11132],
    );
}

#[test]
fn breakthrough_team_agrees() {
    agree(
        &team_game("breakthrough.kif"),
        &mut Breakthrough::team(),
        options(3, 300),
        &[22, 484, 11132],
    );
}

/// `state_from_kif` inverts `state_to_kif` on the states of seeded random playouts.
fn round_trip<G: Game>(game: &mut G, playouts: u64) {
    let mut moves = Vec::new();
    let mut joint = Vec::new();
    for seed in 0..playouts {
        let mut state = game.initial_state();
        let mut pick = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        for _ in 0..400 {
            let texts = game.state_to_kif(&state);
            let slices: Vec<&str> = texts.iter().map(String::as_str).collect();
            let back = game
                .state_from_kif(&slices)
                .unwrap_or_else(|err| panic!("{err}: {}", texts.join(" ")));
            assert_eq!(back, state, "round trip of {}", texts.join(" "));
            if game.is_terminal(&state) {
                break;
            }
            joint.clear();
            for role in 0..game.num_roles() {
                game.legal_moves(&state, role, &mut moves);
                pick ^= pick << 13;
                pick ^= pick >> 7;
                pick ^= pick << 17;
                joint.push(moves[(pick % moves.len() as u64) as usize]);
            }
            state = game.next_state(&state, &joint);
        }
    }
}

#[test]
fn states_round_trip_through_kif() {
    round_trip(&mut TicTacToe::new(), 50);
    round_trip(&mut ConnectFour8::new(), 50);
    round_trip(&mut ConnectFour7::new(), 50);
    round_trip(&mut Breakthrough::corpus(), 50);
    round_trip(&mut Breakthrough::team(), 50);
}

#[test]
fn unrepresentable_states_are_rejected() {
    let mut c4 = ConnectFour7::new();
    assert!(
        c4.state_from_kif(&["(cell 1 2 red)", "(control red)"])
            .is_err()
    );
    assert!(
        c4.state_from_kif(&["(cell 8 1 red)", "(control red)"])
            .is_err()
    );
    assert!(c4.state_from_kif(&["(cell 1 1 red)"]).is_err());
    assert!(
        c4.state_from_kif(&["(cell 1 1 red)", "(control black)"])
            .is_ok()
    );
    let mut ttt = TicTacToe::new();
    assert!(ttt.state_from_kif(&["(control xplayer)"]).is_err());
    let mut bt = Breakthrough::team();
    assert!(
        bt.state_from_kif(&["(cellholds 1 1 white)", "(control white)"])
            .is_err()
    );
    assert!(
        bt.state_from_kif(&["(cell 1 1 white)", "(CONTROL white)"])
            .is_ok()
    );
}

#[test]
fn breakthrough_lists_moves_of_more_than_sixteen_pawns() {
    let mut game = Breakthrough::team();
    let mut fluents: Vec<String> = (1..=8)
        .flat_map(|x| (1..=3).map(move |y| format!("(cell {x} {y} white)")))
        .collect();
    fluents.push("(cell 1 8 black)".into());
    fluents.push("(control white)".into());
    let slices: Vec<&str> = fluents.iter().map(String::as_str).collect();
    let state = game.state_from_kif(&slices).expect("representable");
    let mut moves = Vec::new();
    game.legal_moves(&state, 0, &mut moves);
    let texts: Vec<String> = moves.iter().map(|&m| game.move_to_kif(m)).collect();
    // Rank 3 only: 8 straight, 7 to the left, 7 to the right.
    assert_eq!(texts.len(), 22, "{texts:?}");
    let mut sorted = texts.clone();
    sorted.sort();
    assert_eq!(texts, sorted);
}

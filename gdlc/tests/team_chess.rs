//! `games/chess.kif`, the team's chess: valid without a single diagnostic, the published
//! perft figures from the initial position and from the Chess Programming Wiki "Perft
//! Results" positions (started from custom states), the special rules one by one, and
//! seeded random playouts that end with one goal value per role.
//!
//! The deeper perft figures are `#[ignore]`d tests for a release build:
//! `cargo test --release -p gdlc --test team_chess -- --ignored --test-threads=1`.

use gdlc::SourceFile;
use gdlc::interp::{Interpreter, State};
use gdlc_runtime::{Game, PlayoutOptions};

fn load() -> Interpreter {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/chess.kif");
    let file = SourceFile::read(&path).unwrap_or_else(|d| panic!("{d}"));
    let front = gdlc::front_end(&file);
    let rendered: Vec<String> = front.diagnostics.iter().map(|d| d.render(&file)).collect();
    assert!(
        rendered.is_empty(),
        "chess.kif has diagnostics:\n{}",
        rendered.join("\n")
    );
    assert!(front.is_valid());
    Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"))
}

/// The fluents of chess.kif for a position in Forsyth–Edwards notation (the move
/// counters are ignored: the ply counter starts at 0).
fn fen_fluents(fen: &str) -> Vec<String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    assert!(
        fields.len() >= 4,
        "FEN needs board, side, castling, ep: {fen}"
    );
    let mut fluents = Vec::new();
    let rows: Vec<&str> = fields[0].split('/').collect();
    assert_eq!(rows.len(), 8, "{fen}");
    for (row, text) in rows.iter().enumerate() {
        let rank = 8 - row;
        let mut file = 0u8;
        for ch in text.chars() {
            if let Some(skip) = ch.to_digit(10) {
                file += skip as u8;
                continue;
            }
            let colour = if ch.is_ascii_uppercase() {
                "white"
            } else {
                "black"
            };
            let piece = match ch.to_ascii_lowercase() {
                'k' => "king",
                'q' => "queen",
                'r' => "rook",
                'b' => "bishop",
                'n' => "knight",
                'p' => "pawn",
                other => panic!("bad piece {other:?} in {fen}"),
            };
            let square = format!("{}{rank}", char::from(b'a' + file));
            fluents.push(format!("(cell {square} {colour} {piece})"));
            file += 1;
        }
        assert_eq!(file, 8, "row {row} of {fen}");
    }
    fluents.push(match fields[1] {
        "w" => "(control white)".to_owned(),
        "b" => "(control black)".to_owned(),
        other => panic!("bad side {other:?} in {fen}"),
    });
    for ch in fields[2].chars().filter(|&c| c != '-') {
        let (colour, side) = match ch {
            'K' => ("white", "kingside"),
            'Q' => ("white", "queenside"),
            'k' => ("black", "kingside"),
            'q' => ("black", "queenside"),
            other => panic!("bad castling {other:?} in {fen}"),
        };
        fluents.push(format!("(castle {colour} {side})"));
    }
    if fields[3] != "-" {
        fluents.push(format!("(ep {})", fields[3]));
    }
    fluents.push("(ply 0)".to_owned());
    fluents
}

fn position(game: &mut Interpreter, fen: &str) -> State {
    let fluents = fen_fluents(fen);
    let refs: Vec<&str> = fluents.iter().map(String::as_str).collect();
    game.state_from_kif(&refs)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Chess perft: the number of move sequences of length `depth`, counting the legal
/// moves at the last level without playing them. A position without moves (mate,
/// stalemate) counts nothing, as in the published figures (`gdlc_runtime::perft`
/// counts a terminal state before the last level as one leaf instead).
fn chess_perft(game: &mut Interpreter, state: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let roles = game.num_roles();
    let mut legal: Vec<Vec<_>> = vec![Vec::new(); roles];
    for (role, moves) in legal.iter_mut().enumerate() {
        game.legal_moves(state, role, moves);
    }
    if depth == 1 {
        return legal.iter().map(|moves| moves.len() as u64).product();
    }
    // One role moves, the other plays noop: the joint moves are the mover's moves.
    let mover = (0..roles)
        .find(|&r| legal[r].len() != 1 || game.move_to_kif(legal[r][0]) != "noop")
        .unwrap_or(0);
    let mut total = 0;
    for i in 0..legal[mover].len() {
        let joint: Vec<_> = (0..roles)
            .map(|r| if r == mover { legal[r][i] } else { legal[r][0] })
            .collect();
        let next = game.next_state(state, &joint);
        total += chess_perft(game, &next, depth - 1);
    }
    total
}

fn assert_position_perft(fen: &str, expected: &[u64]) {
    let mut game = load();
    let state = position(&mut game, fen);
    let counts: Vec<u64> = (1..=expected.len() as u32)
        .map(|d| chess_perft(&mut game, &state, d))
        .collect();
    assert_eq!(counts, expected, "perft of {fen}");
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POSITION_3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POSITION_4_MIRRORED: &str =
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1";
const POSITION_5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
const POSITION_6: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

#[test]
fn valid_without_diagnostics() {
    // `load` fails on any diagnostic, warnings included.
    let game = load();
    assert_eq!(game.num_roles(), 2);
    assert_eq!([game.role_name(0), game.role_name(1)], ["white", "black"]);
}

const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn initial_position_perft() {
    let mut game = load();
    let initial = game.initial_state();
    let counts: Vec<u64> = (1..=3)
        .map(|d| gdlc_runtime::perft(&mut game, &initial, d))
        .collect();
    assert_eq!(counts, [20, 400, 8902]);
    // The FEN reader builds the same state as the game's `init`.
    let from_fen = position(&mut game, INITIAL);
    assert_eq!(from_fen, initial);
}

#[test]
fn kiwipete_perft() {
    // Castling both ways, en passant, promotions, pins.
    assert_position_perft(KIWIPETE, &[48, 2039, 97862]);
}

#[test]
fn position_3_perft() {
    // Few pieces: en passant with a rank pin on the king, checks by pawns and rooks.
    assert_position_perft(POSITION_3, &[14, 191, 2812, 43238]);
}

#[test]
fn position_4_perft() {
    // In check from the start; promotions with capture; castling rights of one side.
    assert_position_perft(POSITION_4, &[6, 264, 9467]);
    assert_position_perft(POSITION_4_MIRRORED, &[6, 264, 9467]);
}

#[test]
fn position_5_perft() {
    // A promotion with capture, castling through an attacked square.
    assert_position_perft(POSITION_5, &[44, 1486, 62379]);
}

#[test]
fn position_6_perft() {
    assert_position_perft(POSITION_6, &[46, 2079, 89890]);
}

/// The legal moves of `role` in `state`, as text.
fn legal(game: &mut Interpreter, state: &State, role: usize) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(state, role, &mut moves);
    moves.iter().map(|&m| game.move_to_kif(m)).collect()
}

/// Plays `moves` alternately from `state` (the player to move first), each checked
/// legal.
fn play(game: &mut Interpreter, mut state: State, moves: &[&str]) -> State {
    for text in moves {
        let mover = if legal(game, &state, 0) == ["noop"] {
            1
        } else {
            0
        };
        let other = 1 - mover;
        let mv = game
            .legal_move_from_kif(&state, mover, text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let noop = game
            .legal_move_from_kif(&state, other, "noop")
            .unwrap_or_else(|e| panic!("noop: {e}"));
        let joint = if mover == 0 { [mv, noop] } else { [noop, mv] };
        state = game.next_state(&state, &joint);
    }
    state
}

fn goals(game: &mut Interpreter, state: &State) -> Vec<u8> {
    (0..game.num_roles())
        .map(|r| {
            game.goal(state, r)
                .unwrap_or_else(|e| panic!("role {r}: {e}"))
        })
        .collect()
}

fn has_cell(game: &Interpreter, state: &State, fluent: &str) -> bool {
    game.state_to_kif(state).iter().any(|f| f == fluent)
}

#[test]
fn checkmate_ends_the_game() {
    let mut game = load();
    let initial = game.initial_state();
    assert!(!game.is_terminal(&initial));
    assert_eq!(goals(&mut game, &initial), [50, 50]);
    // Fool's mate.
    let mated = play(
        &mut game,
        initial,
        &[
            "(move f2 f3)",
            "(move e7 e5)",
            "(move g2 g4)",
            "(move d8 h4)",
        ],
    );
    assert!(game.is_terminal(&mated));
    assert!(legal(&mut game, &mated, 0).is_empty());
    assert_eq!(goals(&mut game, &mated), [0, 100]);
}

#[test]
fn stalemate_is_a_draw() {
    let mut game = load();
    let state = position(&mut game, "k7/8/1Q6/8/8/8/8/7K b - - 0 1");
    assert!(game.is_terminal(&state));
    assert!(legal(&mut game, &state, 1).is_empty());
    assert_eq!(goals(&mut game, &state), [50, 50]);
    // With the queen on b5 instead, a7 is free.
    let state = position(&mut game, "k7/8/8/1Q6/8/8/8/7K b - - 0 1");
    assert!(!game.is_terminal(&state));
    assert_eq!(legal(&mut game, &state, 1), ["(move a8 a7)"]);
}

#[test]
fn the_move_cap_ends_the_game_after_200_plies() {
    let mut game = load();
    let initial = game.initial_state();
    let fluents: Vec<String> = game
        .state_to_kif(&initial)
        .into_iter()
        .map(|f| {
            if f == "(ply 0)" {
                "(ply 199)".into()
            } else {
                f
            }
        })
        .collect();
    let refs: Vec<&str> = fluents.iter().map(String::as_str).collect();
    let last = game.state_from_kif(&refs).expect("fluents");
    assert!(!game.is_terminal(&last));
    let capped = play(&mut game, last, &["(move e2 e4)"]);
    assert!(has_cell(&game, &capped, "(ply 200)"));
    assert!(game.is_terminal(&capped));
    assert_eq!(goals(&mut game, &capped), [50, 50]);
}

#[test]
fn en_passant_only_right_after_the_double_step() {
    let mut game = load();
    let start = position(&mut game, "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
    let after = play(&mut game, start.clone(), &["(move e2 e4)"]);
    assert!(has_cell(&game, &after, "(ep e3)"));
    assert!(legal(&mut game, &after, 1).contains(&"(move d4 e3)".to_owned()));
    let taken = play(&mut game, after.clone(), &["(move d4 e3)"]);
    assert!(has_cell(&game, &taken, "(cell e3 black pawn)"));
    assert!(!has_cell(&game, &taken, "(cell e4 white pawn)"));
    assert!(!has_cell(&game, &taken, "(cell d4 black pawn)"));
    // A tempo later the chance is gone.
    let later = play(&mut game, after, &["(move e8 d8)", "(move e1 d1)"]);
    assert!(!legal(&mut game, &later, 1).contains(&"(move d4 e3)".to_owned()));
    // A single step gives no en passant either.
    let single = play(&mut game, start, &["(move e2 e3)"]);
    assert!(
        !game
            .state_to_kif(&single)
            .iter()
            .any(|f| f.starts_with("(ep "))
    );
}

#[test]
fn en_passant_and_pins() {
    let mut game = load();
    // Both pawns leave the fifth rank: the rook on h5 would attack the king on a5.
    let state = position(&mut game, "8/8/8/KPp4r/8/8/8/7k w - c6 0 1");
    assert!(!legal(&mut game, &state, 0).contains(&"(move b5 c6)".to_owned()));
    let state = position(&mut game, "8/8/8/KPp5/8/8/8/7k w - c6 0 1");
    assert!(legal(&mut game, &state, 0).contains(&"(move b5 c6)".to_owned()));
    // The pawn on c5 is pinned by the bishop on f8, but capturing en passant keeps it
    // on the pin line (it lands on d6); a push would not.
    let state = position(&mut game, "5b1k/8/8/2Pp4/8/K7/8/8 w - d6 0 1");
    let moves = legal(&mut game, &state, 0);
    assert!(moves.contains(&"(move c5 d6)".to_owned()), "{moves:?}");
    assert!(!moves.contains(&"(move c5 c6)".to_owned()), "{moves:?}");
}

#[test]
fn promotion_offers_four_pieces() {
    let mut game = load();
    let state = position(&mut game, "1n6/P7/8/8/8/8/8/k6K w - - 0 1");
    let moves = legal(&mut game, &state, 0);
    for to in ["a8", "b8"] {
        for piece in ["bishop", "knight", "queen", "rook"] {
            let text = format!("(promote a7 {to} {piece})");
            assert!(moves.contains(&text), "{text} missing from {moves:?}");
        }
        assert!(!moves.contains(&format!("(move a7 {to})")), "{moves:?}");
    }
    let knighted = play(&mut game, state, &["(promote a7 b8 knight)"]);
    assert!(has_cell(&game, &knighted, "(cell b8 white knight)"));
    assert!(!has_cell(&game, &knighted, "(cell a7 white pawn)"));
}

#[test]
fn castling_rules() {
    let mut game = load();
    let both = position(&mut game, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let moves = legal(&mut game, &both, 0);
    assert!(moves.contains(&"(move e1 g1)".to_owned()));
    assert!(moves.contains(&"(move e1 c1)".to_owned()));
    let castled = play(&mut game, both.clone(), &["(move e1 g1)"]);
    for fluent in [
        "(cell g1 white king)",
        "(cell f1 white rook)",
        "(cell a1 white rook)",
    ] {
        assert!(has_cell(&game, &castled, fluent), "{fluent}");
    }
    let fluents = game.state_to_kif(&castled);
    assert!(!fluents.iter().any(|f| f.starts_with("(castle white")));
    assert!(fluents.contains(&"(castle black kingside)".to_owned()));
    // A rook move loses that side's right only; so does a capture on the rook's square.
    let rook_moved = play(&mut game, both, &["(move h1 h2)", "(move a8 a1)"]);
    let fluents = game.state_to_kif(&rook_moved);
    assert!(!fluents.iter().any(|f| f.starts_with("(castle white")));
    assert!(fluents.contains(&"(castle black kingside)".to_owned()));
    assert!(!fluents.contains(&"(castle black queenside)".to_owned()));

    // Not through an attacked square (f1), but b1 may be attacked on the queen side.
    let state = position(&mut game, "1r2kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    let moves = legal(&mut game, &state, 0);
    assert!(!moves.contains(&"(move e1 g1)".to_owned()));
    assert!(moves.contains(&"(move e1 c1)".to_owned()));
    // Not onto an attacked square, nor out of check.
    let state = position(&mut game, "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(!legal(&mut game, &state, 0).contains(&"(move e1 g1)".to_owned()));
    let state = position(&mut game, "4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    let moves = legal(&mut game, &state, 0);
    assert!(!moves.contains(&"(move e1 g1)".to_owned()));
    assert!(!moves.contains(&"(move e1 c1)".to_owned()));
    // Not with a piece in between.
    let state = position(&mut game, "4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1");
    let moves = legal(&mut game, &state, 0);
    assert!(!moves.contains(&"(move e1 g1)".to_owned()));
    assert!(!moves.contains(&"(move e1 c1)".to_owned()));
}

#[test]
fn no_move_may_leave_the_king_attacked() {
    let mut game = load();
    // The knight on e2 is pinned by the rook on e8; the king cannot step along the
    // rook's line away from it, nor next to the other king.
    let state = position(&mut game, "4r3/8/8/8/8/8/4N3/4K2k w - - 0 1");
    let moves = legal(&mut game, &state, 0);
    assert!(
        moves.iter().all(|m| !m.starts_with("(move e2")),
        "{moves:?}"
    );
    // In check from a1: not d1 (attacked), f1 (behind the king on the rook's line)
    // or f2 (next to the other king).
    let state = position(&mut game, "8/8/8/8/8/6k1/8/r3K3 w - - 0 1");
    let moves = legal(&mut game, &state, 0);
    assert_eq!(moves, ["(move e1 d2)", "(move e1 e2)"]);
    // Double check: only the king moves, though Rxd3 would answer the knight's check.
    let state = position(&mut game, "4r2k/8/8/8/8/R2n4/8/4K3 w - - 0 1");
    let moves = legal(&mut game, &state, 0);
    assert!(moves.iter().all(|m| m.starts_with("(move e1")), "{moves:?}");
    assert!(!moves.is_empty());
}

#[test]
fn random_playouts_end_with_one_goal_per_role() {
    let mut game = load();
    let mut lengths = Vec::new();
    for seed in 0..12 {
        let playout = gdlc_runtime::random_playout(
            &mut game,
            PlayoutOptions {
                seed,
                max_steps: 250,
            },
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let plies = playout.joint_moves.len();
        assert!((1..=200).contains(&plies), "seed {seed}: {plies} plies");
        let goals: Vec<u8> = playout
            .goals
            .iter()
            .map(|g| *g.as_ref().unwrap_or_else(|e| panic!("seed {seed}: {e}")))
            .collect();
        assert!(
            matches!(goals[..], [50, 50] | [100, 0] | [0, 100]),
            "seed {seed}: {goals:?}"
        );
        // Replay: before the cap, the game ends because the player to move has no
        // move; it is mated exactly when it scores 0.
        let mut state = game.initial_state();
        for joint in &playout.joint_moves {
            assert!(!game.is_terminal(&state), "seed {seed}");
            state = game.next_state(&state, joint);
        }
        assert!(game.is_terminal(&state), "seed {seed}");
        if plies < 200 {
            let mover = usize::from(plies % 2 == 1);
            assert!(legal(&mut game, &state, mover).is_empty(), "seed {seed}");
            assert_eq!(legal(&mut game, &state, 1 - mover), ["noop"], "seed {seed}");
            assert_ne!(goals[mover], 100, "seed {seed}: {goals:?}");
        } else {
            assert_ne!(goals, [100, 100], "seed {seed}");
        }
        lengths.push(plies);
    }
    assert!(lengths.iter().any(|&n| n < 200), "{lengths:?}");
}

fn assert_deep_perft(cases: &[(&str, u32, u64)]) {
    for &(fen, depth, expected) in cases {
        let mut game = load();
        let state = position(&mut game, fen);
        let start = std::time::Instant::now();
        let count = chess_perft(&mut game, &state, depth);
        eprintln!(
            "{fen}: perft {depth} = {count} in {:.1} s",
            start.elapsed().as_secs_f64()
        );
        assert_eq!(count, expected, "{fen} at depth {depth}");
    }
}

/// Deeper published figures, for a release build (see the module docs).
#[test]
#[ignore = "minutes in a release build"]
fn deep_perft() {
    assert_deep_perft(&[
        (INITIAL, 5, 4_865_609),
        (POSITION_4, 4, 422_333),
        (POSITION_4_MIRRORED, 4, 422_333),
        (POSITION_3, 5, 674_624),
        (POSITION_5, 4, 2_103_487),
        (POSITION_6, 4, 3_894_594),
        (KIWIPETE, 4, 4_085_603),
    ]);
}

/// Martin Sedlak's perft positions (TalkChess), each aimed at one rule: en passant
/// that would expose the king, castling that gives check, castling rights and
/// captures on the rooks' squares, promotions out of check or to avoid stalemate,
/// stalemate versus mate.
#[test]
#[ignore = "minutes in a release build"]
fn special_rules_perft() {
    assert_deep_perft(&[
        ("3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1_134_888),
        ("8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1_015_133),
        ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1_440_467),
        ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661_072),
        ("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803_711),
        ("1k6/1b6/8/8/7R/8/8/4K2R b K - 0 1", 5, 1_063_513),
        ("r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4, 1_274_206),
        ("r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4, 1_720_476),
        ("2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, 3_821_001),
        ("8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 5, 1_004_658),
        ("4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, 217_342),
        ("8/P1k5/K7/8/8/8/8/8 w - - 0 1", 6, 92_683),
        ("K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2_217),
        ("8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 7, 567_584),
    ]);
}

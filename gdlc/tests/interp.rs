//! The reference interpreter (`gdlc::interp::Interpreter`) against known facts: perft
//! of tictactoe, the expected behaviour of the small tricky games of `games/test/`
//! (see its README), the `Game` conventions (sorted, deduplicated moves; KIF round
//! trips; seeded playouts; move errors), GDL-II (`random`, `sees`) and goal errors.

mod common;

use common::{corpus_interpreter, interpreter_from_text};
use gdlc::interp::{Interpreter, State};
use gdlc_runtime::{Game, GoalError, MoveError, PlayoutOptions, StateError, random_playout};

/// The legal moves of a role as canonical KIF text, in the order the reasoner gives.
fn legal_texts(game: &mut Interpreter, state: &State, role: usize) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(state, role, &mut moves);
    moves.iter().map(|&m| game.move_to_kif(m)).collect()
}

/// Plays one joint move given as one text per role; panics if a move is not legal.
fn play(game: &mut Interpreter, state: &State, texts: &[&str]) -> State {
    assert_eq!(texts.len(), game.num_roles());
    let joint: Vec<_> = texts
        .iter()
        .enumerate()
        .map(|(role, text)| {
            game.legal_move_from_kif(state, role, text)
                .unwrap_or_else(|err| panic!("{text}: {err}"))
        })
        .collect();
    game.next_state(state, &joint)
}

fn role(game: &Interpreter, name: &str) -> usize {
    game.role_index(name)
        .unwrap_or_else(|| panic!("no role `{name}`"))
}

#[test]
fn tictactoe_perft() {
    let Some(mut game) = corpus_interpreter("tictactoe.kif") else {
        return;
    };
    let initial = game.initial_state();
    let counts: Vec<u64> = (1..=6)
        .map(|d| gdlc_runtime::perft(&mut game, &initial, d))
        .collect();
    assert_eq!(counts, [9, 72, 504, 3024, 15120, 56160]);
    assert_eq!(gdlc_runtime::perft(&mut game, &initial, 0), 1);
}

/// Perft of a corpus game from its initial state at depths 1, 2, …
fn assert_perft(name: &str, expected: &[u64]) {
    let Some(mut game) = corpus_interpreter(name) else {
        return;
    };
    let initial = game.initial_state();
    let counts: Vec<u64> = (1..=expected.len() as u32)
        .map(|d| gdlc_runtime::perft(&mut game, &initial, d))
        .collect();
    assert_eq!(counts, expected, "{name}");
}

/// Published perft of chess (no castling, en passant or promotion is possible yet).
#[test]
fn chess_perft() {
    assert_perft("chess.kif", &[20, 400, 8902]);
}

/// Published perft of Othello.
#[test]
fn othello_perft() {
    assert_perft("reversi.kif", &[4, 12, 56, 244, 1396]);
    assert_perft("othello-comp2007.kif", &[4, 12, 56, 244]);
}

/// Connect four on 7 columns: every column is open and nobody can have four in a row
/// within 5 plies, so perft is 7^d.
#[test]
fn connect_four_perft() {
    assert_perft("connect4.kif", &[7, 49, 343, 2401, 16807]);
}

/// Breakthrough: 22 first moves; the pieces do not meet before the third ply.
#[test]
fn breakthrough_perft() {
    assert_perft("breakthrough.kif", &[22, 484, 11132]);
}

#[test]
fn tictactoe_rules() {
    let Some(mut game) = corpus_interpreter("tictactoe.kif") else {
        return;
    };
    assert_eq!(game.num_roles(), 2);
    assert_eq!(
        (game.role_name(0), game.role_name(1)),
        ("xplayer", "oplayer")
    );
    assert_eq!(game.role_index("OPLAYER"), Some(1));
    assert_eq!(game.role_index("nobody"), None);
    let initial = game.initial_state();
    assert!(!game.is_terminal(&initial));
    let x_moves = legal_texts(&mut game, &initial, 0);
    assert_eq!(x_moves.len(), 9);
    assert_eq!(x_moves[0], "(mark 1 1)");
    assert_eq!(legal_texts(&mut game, &initial, 1), ["noop"]);

    // x takes the first row.
    let mut state = initial;
    for joint in [
        ["(mark 1 1)", "noop"],
        ["noop", "(mark 2 1)"],
        ["(mark 1 2)", "noop"],
        ["noop", "(mark 2 2)"],
    ] {
        state = play(&mut game, &state, &joint);
        assert!(!game.is_terminal(&state));
    }
    assert_eq!(legal_texts(&mut game, &state, 0).len(), 5);
    state = play(&mut game, &state, &["(mark 1 3)", "noop"]);
    assert!(game.is_terminal(&state));
    assert_eq!(game.goal(&state, 0), Ok(100));
    assert_eq!(game.goal(&state, 1), Ok(0));
    let fluents = game.state_to_kif(&state);
    assert!(fluents.contains(&"(cell 1 3 x)".to_owned()), "{fluents:?}");
    assert!(
        fluents.contains(&"(control oplayer)".to_owned()),
        "{fluents:?}"
    );
}

#[test]
fn move_errors() {
    let Some(mut game) = corpus_interpreter("tictactoe.kif") else {
        return;
    };
    let initial = game.initial_state();
    // Legal, in any spelling.
    let mv = game
        .legal_move_from_kif(&initial, 0, "  ( MARK 2   3 ) ")
        .expect("legal");
    assert_eq!(game.move_to_kif(mv), "(mark 2 3)");
    // Well formed but not legal: off the board, the other role's move, wrong role.
    for (role, text, canonical) in [
        (0, "(mark 9 9)", "(mark 9 9)"),
        (0, "NOOP", "noop"),
        (1, "(mark 1 1)", "(mark 1 1)"),
        (0, "(mark 1 1 1)", "(mark 1 1 1)"),
    ] {
        match game.legal_move_from_kif(&initial, role, text) {
            Err(MoveError::NotLegal { role: name, text }) => {
                assert_eq!(name, game.role_name(role));
                assert_eq!(text, canonical);
            }
            other => panic!("{text}: expected NotLegal, got {other:?}"),
        }
    }
    // Malformed.
    for text in ["(mark 1", "", "(mark ?x 1)", "(mark 1 1))", "a b", "()"] {
        match game.legal_move_from_kif(&initial, 0, text) {
            Err(MoveError::Syntax(_)) => {}
            other => panic!("{text:?}: expected Syntax, got {other:?}"),
        }
    }
    // The same cell twice.
    let state = play(&mut game, &initial, &["(mark 1 1)", "noop"]);
    assert!(matches!(
        game.legal_move_from_kif(&state, 1, "(mark 1 1)"),
        Err(MoveError::NotLegal { .. })
    ));
}

#[test]
fn test_case_1a_goal_without_condition() {
    let Some(mut game) = corpus_interpreter("test/test_case_1a.kif") else {
        return;
    };
    let you = role(&game, "you");
    let initial = game.initial_state();
    assert!(!game.is_terminal(&initial));
    assert_eq!(game.goal(&initial, you), Ok(100));
    assert_eq!(legal_texts(&mut game, &initial, you), ["proceed"]);
    let next = play(&mut game, &initial, &["proceed"]);
    assert!(game.is_terminal(&next));
    assert_eq!(game.goal(&next, you), Ok(100));
}

#[test]
fn test_case_3c_undefined_proposition_is_false() {
    let Some(mut game) = corpus_interpreter("test/test_case_3c.kif") else {
        return;
    };
    let initial = game.initial_state();
    assert!(!game.is_terminal(&initial));
    assert_eq!(legal_texts(&mut game, &initial, 0), ["win"]);
    let next = play(&mut game, &initial, &["win"]);
    assert!(game.is_terminal(&next));
    assert_eq!(game.goal(&next, 0), Ok(100));
}

/// One legal move `expected`; after it the game is over, with goal 100 if given.
fn one_move_then_over(name: &str, expected: &str, goal: Option<u8>) {
    let Some(mut game) = corpus_interpreter(name) else {
        return;
    };
    let initial = game.initial_state();
    assert!(
        !game.is_terminal(&initial),
        "{name}: initial state terminal"
    );
    assert_eq!(legal_texts(&mut game, &initial, 0), [expected], "{name}");
    let next = play(&mut game, &initial, &[expected]);
    assert!(
        game.is_terminal(&next),
        "{name}: not terminal after {expected}"
    );
    if let Some(goal) = goal {
        assert_eq!(game.goal(&next, 0), Ok(goal), "{name}");
    }
}

#[test]
fn test_case_5a_recursion_through_a_function_term() {
    one_move_then_over("test/test_case_5a.kif", "proceed", Some(100));
}

#[test]
fn test_case_5b_repeated_head_variables() {
    one_move_then_over("test/test_case_5b.kif", "(draw 1 1 1 2)", Some(100));
}

#[test]
fn test_case_5c_rule_cycle_without_base_case() {
    one_move_then_over("test/test_case_5c.kif", "proceed", Some(100));
}

#[test]
fn test_case_5d_mutual_recursion_feeding_init() {
    one_move_then_over("test/test_case_5d.kif", "proceed", Some(100));
}

#[test]
fn test_case_5e_left_recursive_closure() {
    let Some(mut game) = corpus_interpreter("test/test_case_5e.kif") else {
        return;
    };
    let initial = game.initial_state();
    assert_eq!(
        legal_texts(&mut game, &initial, 0),
        [
            "(reduce a 0)",
            "(reduce a 1)",
            "(reduce c 0)",
            "(reduce c 1)",
            "(reduce c 2)",
            "(reduce c 3)",
            "(reduce c 4)"
        ]
    );
    let next = play(&mut game, &initial, &["(reduce c 3)"]);
    assert!(game.is_terminal(&next));
    assert_eq!(game.goal(&next, 0), Ok(100));
}

#[test]
fn test_distinct_beginning_rule() {
    let Some(mut game) = corpus_interpreter("test/test_distinct_beginning_rule.kif") else {
        return;
    };
    let initial = game.initial_state();
    assert_eq!(
        legal_texts(&mut game, &initial, 0),
        ["(do a b)", "(do b a)"]
    );
    let next = play(&mut game, &initial, &["(do a b)"]);
    assert!(game.is_terminal(&next));
    assert_eq!(game.goal(&next, 0), Ok(100));
}

/// The other valid small test games load and can be played to the end.
#[test]
fn other_small_test_games_play_to_the_end() {
    for name in [
        "test/test_case_1b.kif",
        "test/test_case_2a.kif",
        "test/test_case_2b.kif",
        "test/test_case_2c.kif",
        "test/test_case_3a.kif",
        "test/test_case_3d.kif",
        "test/test_case_4a.kif",
        "test/test_clean_not_distinct.kif",
        "test/simplemutex.kif",
    ] {
        let Some(mut game) = corpus_interpreter(name) else {
            return;
        };
        let options = PlayoutOptions {
            seed: 3,
            max_steps: 1000,
        };
        // A game may end because a role has no legal move; that is reported, not a panic.
        match random_playout(&mut game, options) {
            Ok(playout) => assert_eq!(playout.goals.len(), game.num_roles()),
            Err(err) => println!("{name}: {err}"),
        }
    }
}

const SORTING_GAME: &str = "
(role r)
(legal r (m 9))
(legal r b)
(legal r (m 10))
(legal r (m 1))
(legal r (M 1))
(legal r (a (b c)))
(legal r a)
(<= (legal r (m 9)) (true s))
(<= (legal r (m 9)) (true s) (true s))
(init s)
(<= (next t) (does r a))
(<= terminal (true t))
(goal r 50)
";

#[test]
fn legal_moves_are_sorted_by_canonical_text_and_deduplicated() {
    let mut game = interpreter_from_text("sorting.kif", SORTING_GAME);
    let initial = game.initial_state();
    assert_eq!(
        legal_texts(&mut game, &initial, 0),
        ["(a (b c))", "(m 1)", "(m 10)", "(m 9)", "a", "b"]
    );
    // The buffer is cleared, not appended to.
    let mut moves = Vec::new();
    game.legal_moves(&initial, 0, &mut moves);
    game.legal_moves(&initial, 0, &mut moves);
    assert_eq!(moves.len(), 6);
}

#[test]
fn legal_moves_of_corpus_games_are_sorted_along_playouts() {
    for name in [
        "tictactoe.kif",
        "connect4.kif",
        "montyhall.kif",
        "buttons.kif",
        "blocker.kif",
    ] {
        let Some(mut game) = corpus_interpreter(name) else {
            return;
        };
        let playout = random_playout(
            &mut game,
            PlayoutOptions {
                seed: 11,
                max_steps: 500,
            },
        )
        .unwrap_or_else(|err| panic!("{name}: {err}"));
        let mut state = game.initial_state();
        for joint in &playout.joint_moves {
            for role in 0..game.num_roles() {
                let texts = legal_texts(&mut game, &state, role);
                assert!(
                    texts.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()),
                    "{name}: moves of role {role} not sorted and unique: {texts:?}"
                );
                for text in &texts {
                    assert_eq!(
                        gdlc_runtime::kif::canonical(text).as_ref(),
                        Ok(text),
                        "not canonical"
                    );
                    // Every legal move can be chosen by its own text.
                    let mv = game
                        .legal_move_from_kif(&state, role, text)
                        .unwrap_or_else(|err| panic!("{name}: {text}: {err}"));
                    assert_eq!(&game.move_to_kif(mv), text);
                }
            }
            state = game.next_state(&state, joint);
        }
        assert!(
            game.is_terminal(&state),
            "{name}: replayed playout does not end"
        );
    }
}

#[test]
fn state_kif_round_trip() {
    let Some(mut game) = corpus_interpreter("tictactoe.kif") else {
        return;
    };
    let fluents = [
        "(control oplayer)",
        "(cell 1 1 x)",
        "(cell 2 2 o)",
        "(cell 1 1 x)",
        "(cell 1 2 b)",
    ];
    let state = game.state_from_kif(&fluents).expect("fluents of tictactoe");
    let mut expected: Vec<String> = fluents.iter().map(|&f| f.to_owned()).collect();
    expected.sort();
    expected.dedup();
    assert_eq!(game.state_to_kif(&state), expected);

    // Non-canonical spellings are read as their canonical form.
    let same = game
        .state_from_kif(&[
            "( CONTROL  oplayer )",
            "(Cell 1 1 X)",
            "(cell 2 2 o)",
            "(cell 1 2 b)",
        ])
        .expect("well formed");
    assert_eq!(same, state);

    // Initial state: to text and back gives the same state and the same answers.
    let initial = game.initial_state();
    let texts = game.state_to_kif(&initial);
    assert_eq!(texts.len(), 10);
    assert!(texts.windows(2).all(|w| w[0] < w[1]), "{texts:?}");
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let back = game.state_from_kif(&refs).expect("round trip");
    assert_eq!(back, initial);
    assert_eq!(legal_texts(&mut game, &back, 0).len(), 9);

    // A built state is a real state: moves are computed from it.
    let built = game
        .state_from_kif(&[
            "(control oplayer)",
            "(cell 1 1 x)",
            "(cell 1 2 x)",
            "(cell 1 3 x)",
        ])
        .expect("well formed");
    assert!(game.is_terminal(&built));
    assert_eq!(game.goal(&built, 0), Ok(100));

    // Malformed fluent text.
    for bad in ["(cell 1 1", "(cell ?x 1 b)", ""] {
        match game.state_from_kif(&["(control xplayer)", bad]) {
            Err(StateError::Syntax(_)) => {}
            other => panic!("{bad:?}: expected a syntax error, got {other:?}"),
        }
    }
    // The empty state.
    let empty = game.state_from_kif(&[]).expect("empty state");
    assert!(game.state_to_kif(&empty).is_empty());
}

#[test]
fn seeded_playouts_are_deterministic() {
    let Some(mut game) = corpus_interpreter("tictactoe.kif") else {
        return;
    };
    let mut fresh = corpus_interpreter("tictactoe.kif").expect("loaded once");
    let texts = |game: &Interpreter, joint_moves: &[Vec<_>]| -> Vec<Vec<String>> {
        joint_moves
            .iter()
            .map(|joint| joint.iter().map(|&m| game.move_to_kif(m)).collect())
            .collect()
    };
    let mut distinct = std::collections::BTreeSet::new();
    for seed in 0..8 {
        let options = PlayoutOptions {
            seed,
            max_steps: 100,
        };
        let a = random_playout(&mut game, options).expect("tictactoe ends");
        let b = random_playout(&mut game, options).expect("tictactoe ends");
        let c = random_playout(&mut fresh, options).expect("tictactoe ends");
        assert_eq!(a.joint_moves, b.joint_moves, "seed {seed}: same reasoner");
        assert_eq!(a.goals, b.goals);
        assert_eq!(
            texts(&game, &a.joint_moves),
            texts(&fresh, &c.joint_moves),
            "seed {seed}: fresh reasoner"
        );
        assert_eq!(a.goals, c.goals);
        assert!((5..=9).contains(&a.joint_moves.len()));
        for goal in &a.goals {
            assert!(matches!(goal, Ok(0 | 50 | 100)), "{goal:?}");
        }
        distinct.insert(texts(&game, &a.joint_moves));
    }
    assert!(distinct.len() > 1, "every seed gives the same playout");
}

#[test]
fn gdl2_montyhall_random_role_and_sees() {
    gdl2_game("montyhall.kif", "random");
}

#[test]
fn gdl2_kriegtictactoe_sees() {
    gdl2_game("kriegtictactoe.kif", "");
}

/// Plays seeded playouts of a GDL-II game to the end and checks that `sees` gives a
/// percept to some role at some step.
fn gdl2_game(name: &str, random_role: &str) {
    let Some(file) = common::game_source(name) else {
        return;
    };
    let front = gdlc::front_end(&file);
    assert!(
        front.is_valid(),
        "{name} is not valid: {:?}",
        front.diagnostics
    );
    let mut game = Interpreter::new(&front).expect("valid");
    if !random_role.is_empty() {
        assert!(
            game.role_index(random_role).is_some(),
            "{name}: no `{random_role}` role"
        );
    }
    let mut seen = 0;
    for seed in 0..4 {
        let playout = random_playout(
            &mut game,
            PlayoutOptions {
                seed,
                max_steps: 1000,
            },
        )
        .unwrap_or_else(|err| panic!("{name} seed {seed}: {err}"));
        assert!(!playout.joint_moves.is_empty());
        let mut state = game.initial_state();
        let mut percepts = Vec::new();
        for joint in &playout.joint_moves {
            for role in 0..game.num_roles() {
                game.sees(&state, joint, role, &mut percepts);
                let texts: Vec<String> = percepts.iter().map(|&p| game.percept_to_kif(p)).collect();
                assert!(
                    texts.windows(2).all(|w| w[0] < w[1]),
                    "{name}: percepts not sorted: {texts:?}"
                );
                seen += texts.len();
            }
            state = game.next_state(&state, joint);
        }
        assert!(game.is_terminal(&state));
        // Every non-random role has a goal value at the end.
        for role in 0..game.num_roles() {
            if game.role_name(role) != "random" {
                assert!(
                    playout.goals[role].is_ok(),
                    "{name}: goal of {}: {:?}",
                    game.role_name(role),
                    playout.goals[role]
                );
            }
        }
    }
    assert!(seen > 0, "{name}: no role ever sees anything");
}

#[test]
fn montyhall_candidate_sees_the_opened_door() {
    let Some(mut game) = corpus_interpreter("montyhall.kif") else {
        return;
    };
    let candidate = role(&game, "candidate");
    let random = role(&game, "random");
    assert_eq!(random, 0);
    let initial = game.initial_state();
    let mut texts = vec![String::new(); 2];
    texts[random] = "(hide_car 1)".to_owned();
    texts[candidate] = "(choose 2)".to_owned();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let state = play(&mut game, &initial, &refs);
    // The host may open only door 3 (not the car, not the chosen door).
    assert_eq!(legal_texts(&mut game, &state, random), ["(open_door 3)"]);
    texts[random] = "(open_door 3)".to_owned();
    texts[candidate] = "noop".to_owned();
    let joint: Vec<_> = (0..2)
        .map(|r| {
            game.legal_move_from_kif(&state, r, &texts[r])
                .expect("legal")
        })
        .collect();
    let mut percepts = Vec::new();
    game.sees(&state, &joint, candidate, &mut percepts);
    let seen: Vec<String> = percepts.iter().map(|&p| game.percept_to_kif(p)).collect();
    assert_eq!(seen, ["3"]);
    game.sees(&state, &joint, random, &mut percepts);
    assert!(percepts.is_empty(), "the host sees nothing");
    let state = game.next_state(&state, &joint);
    let state = play(&mut game, &state, &["noop", "switch"]);
    assert!(game.is_terminal(&state));
    assert_eq!(game.goal(&state, candidate), Ok(100), "switching wins here");
}

#[test]
fn chess_terminal_without_goal_is_missing() {
    let Some(mut game) = corpus_interpreter("chess.kif") else {
        return;
    };
    let initial = game.initial_state();
    let fluents: Vec<String> = game
        .state_to_kif(&initial)
        .into_iter()
        .map(|f| {
            if f.starts_with("(step ") {
                "(step 201)".to_owned()
            } else {
                f
            }
        })
        .collect();
    assert!(
        fluents.contains(&"(step 201)".to_owned()),
        "no step counter in {fluents:?}"
    );
    let refs: Vec<&str> = fluents.iter().map(String::as_str).collect();
    let state = game.state_from_kif(&refs).expect("chess fluents");
    assert!(game.is_terminal(&state), "the move limit ends the game");
    for role in 0..game.num_roles() {
        assert_eq!(
            game.goal(&state, role),
            Err(GoalError::Missing),
            "role {}",
            game.role_name(role)
        );
    }
}

#[test]
fn ambiguous_goal_is_an_error() {
    let text = "
(role r)
(init s)
(legal r go)
(<= (next t) (does r go))
(<= terminal (true t))
(<= (goal r 70) (true t))
(<= (goal r 30) (true t))
(<= (goal r 30) (true s))
(goal r 90)
";
    let mut game = interpreter_from_text("ambiguous.kif", text);
    let initial = game.initial_state();
    assert_eq!(game.goal(&initial, 0), Err(GoalError::Ambiguous(30, 90)));
    let next = play(&mut game, &initial, &["go"]);
    assert_eq!(game.goal(&next, 0), Err(GoalError::Ambiguous(30, 70)));
}

/// A goal value reached through a variable is checked at run time, by the same rule
/// as the checker applies to constants: the integers 0 … 100 written canonically.
#[test]
fn goal_value_through_a_variable_must_be_a_canonical_integer() {
    let mut wrong = Vec::new();
    for (value, expected) in [
        ("0", Ok(0)),
        ("100", Ok(100)),
        ("abc", Err(GoalError::NotANumber("abc".to_owned()))),
        ("101", Err(GoalError::NotANumber("101".to_owned()))),
        ("(f 1)", Err(GoalError::NotANumber("(f 1)".to_owned()))),
        ("0100", Err(GoalError::NotANumber("0100".to_owned()))),
        ("+50", Err(GoalError::NotANumber("+50".to_owned()))),
    ] {
        let text = format!(
            "(role r)\n(init s)\n(legal r go)\n(<= (next t) (does r go))\n(<= terminal (true t))\n\
             (val {value})\n(<= (goal r ?v) (val ?v))\n"
        );
        let mut game = interpreter_from_text("goal.kif", &text);
        let initial = game.initial_state();
        let actual = game.goal(&initial, 0);
        if actual != expected {
            wrong.push(format!("`{value}`: expected {expected:?}, got {actual:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "goal values read wrongly:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn equality_from_negated_distinct() {
    let text = "
(role r)
(p a) (p b) (q b) (q c)
(<= (legal r (both ?x ?y)) (p ?x) (q ?y) (not (distinct ?x ?y)))
(<= (legal r (two ?x ?y)) (p ?x) (q ?y) (distinct ?x ?y))
(init s)
(<= (next t) (true s))
(<= terminal (true t))
(goal r 100)
";
    let mut game = interpreter_from_text("equality.kif", text);
    let initial = game.initial_state();
    assert_eq!(
        legal_texts(&mut game, &initial, 0),
        ["(both b b)", "(two a b)", "(two a c)", "(two b c)"]
    );
}

#[test]
fn or_and_negation_in_bodies() {
    let text = "
(role r)
(init (c 1))
(init (c 3))
(n 1) (n 2) (n 3) (n 4)
(<= (legal r (odd ?x)) (n ?x) (or (true (c ?x)) (and (distinct ?x 1) (distinct ?x 2) (distinct ?x 3))))
(<= (legal r (none ?x)) (n ?x) (not (or (true (c ?x)) (distinct ?x 2))))
(<= (next t) (true s))
(<= terminal (true t))
(goal r 100)
";
    let mut game = interpreter_from_text("or.kif", text);
    let initial = game.initial_state();
    assert_eq!(
        legal_texts(&mut game, &initial, 0),
        ["(none 2)", "(odd 1)", "(odd 3)", "(odd 4)"]
    );
}

#[test]
fn case_insensitive_symbols_are_one_symbol() {
    let text = "
(ROLE Robot)
(init (Cell A))
(<= (legal robot (Move ?x)) (TRUE (cell ?x)))
(<= (next done) (does ROBOT (move a)))
(<= terminal (true DONE))
(goal robot 100)
";
    let mut game = interpreter_from_text("case.kif", text);
    assert_eq!(game.role_name(0), "robot");
    let initial = game.initial_state();
    assert_eq!(game.state_to_kif(&initial), ["(cell a)"]);
    assert_eq!(legal_texts(&mut game, &initial, 0), ["(move a)"]);
    let next = play(&mut game, &initial, &["(MOVE A)"]);
    assert!(game.is_terminal(&next));
}

#[test]
fn perft_counts_every_role_and_stops_at_terminal_states() {
    // Two roles moving simultaneously with 2 and 3 moves, for two steps.
    let text = "
(role a) (role b)
(init (step 0))
(succ 0 1) (succ 1 2)
(x 1) (x 2) (y 1) (y 2) (y 3)
(<= (legal a (pa ?v)) (x ?v))
(<= (legal b (pb ?v)) (y ?v))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= terminal (true (step 2)))
(goal a 0) (goal b 0)
";
    let mut game = interpreter_from_text("perft.kif", text);
    let initial = game.initial_state();
    let counts: Vec<u64> = (0..=4)
        .map(|d| gdlc_runtime::perft(&mut game, &initial, d))
        .collect();
    assert_eq!(counts, [1, 6, 36, 36, 36]);
}

/// Symbols may contain any character that is not KIF whitespace, a parenthesis, `;`,
/// `?` or `"`; a move made of such symbols can be chosen by its own text.
#[test]
fn moves_with_unusual_characters_round_trip() {
    let symbols = [
        "caf\u{e9}",
        "\u{3bb}x",
        "a\u{a0}b",
        "x\u{2003}y",
        "1st-move",
        "a.b",
        "x+",
        "<-",
    ];
    let mut text = String::from(
        "(role r)\n(init s)\n(<= (next t) (does r ?m) (ok ?m))\n(<= terminal (true t))\n(goal r 100)\n\
         (<= (legal r (m ?x)) (ok ?x))\n",
    );
    for symbol in symbols {
        text.push_str(&format!("(ok {symbol})\n"));
    }
    let mut game = interpreter_from_text("unusual.kif", &text);
    let initial = game.initial_state();
    let texts = legal_texts(&mut game, &initial, 0);
    assert_eq!(texts.len(), symbols.len(), "{texts:?}");
    let mut wrong = Vec::new();
    for text in &texts {
        match game.legal_move_from_kif(&initial, 0, text) {
            Ok(mv) if game.move_to_kif(mv) == *text => {}
            other => wrong.push(format!("{text:?}: {other:?}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "moves that cannot be chosen by their own text:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn games_without_sees_see_nothing() {
    let Some(mut game) = corpus_interpreter("tictactoe.kif") else {
        return;
    };
    let initial = game.initial_state();
    let joint: Vec<_> = ["(mark 2 2)", "noop"]
        .iter()
        .enumerate()
        .map(|(role, text)| {
            game.legal_move_from_kif(&initial, role, text)
                .expect("legal")
        })
        .collect();
    let mut percepts = vec![joint[0]];
    for role in 0..2 {
        game.sees(&initial, &joint, role, &mut percepts);
        assert!(percepts.is_empty(), "role {role} sees {percepts:?}");
    }
}

/// Every valid corpus game loads and plays the first steps of a seeded random playout
/// without panicking (a few steps only, to keep the slowest games cheap); a finished
/// playout has one goal result per role.
#[test]
fn every_valid_corpus_game_plays() {
    let Some(dir) = common::games_dir() else {
        return;
    };
    let mut failures = Vec::new();
    for path in common::kif_files(&dir) {
        let file = common::read_source(&path);
        let front = gdlc::front_end(&file);
        if !front.is_valid() {
            continue;
        }
        let mut game = Interpreter::new(&front).expect("valid game loads");
        let options = PlayoutOptions {
            seed: 5,
            max_steps: 8,
        };
        match random_playout(&mut game, options) {
            Ok(playout) => assert_eq!(playout.goals.len(), game.num_roles()),
            Err(gdlc_runtime::PlayoutError::StepLimit(_)) => {}
            Err(err) => failures.push(format!("{}: {err}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A call to a derived relation with a bound compound argument that no rule has built
/// yet (here `(add 0)`) must evaluate the relation, not conclude that no tuple can
/// hold such a term. Found by the plan executor on qyshinsu.
#[test]
fn call_with_a_compound_term_not_built_yet() {
    let mut game = interpreter_from_text(
        "unbuilt.kif",
        "(role a) (init (c a)) (s 0) (s 1)
         (<= (legal a (add ?x)) (true (c a)) (s ?x))
         (<= (h ?p) (role ?p) (s ?x) (legal ?p (add ?x)))
         (<= terminal (not (h a)))
         (<= (goal a 100) (h a)) (<= (goal a 0) (not (h a)))
         (<= (next (c a)) (true (c a)))",
    );
    let initial = game.initial_state();
    assert!(!game.is_terminal(&initial));
    assert_eq!(gdlc_runtime::perft(&mut game, &initial, 1), 2);
}

/// A game whose one legal rule tests a static relation of `n`⁴ tuples with every
/// column bound, for `n`² different keys in the initial state.
fn membership_game(n: usize) -> String {
    let mut text = String::from(
        "(role p) (init on) (<= (next on) (true on)) (<= terminal (true off))
         (goal p 0)
         (<= (big ?a ?b ?c ?d) (num ?a) (num ?b) (num ?c) (num ?d))
         (<= (legal p (mark ?a ?b)) (true on) (num ?a) (num ?b) (big ?a ?b ?b ?a))\n",
    );
    for i in 0..n {
        text.push_str(&format!("(num n{i})\n"));
    }
    text
}

/// Static membership tests with many keys: a relation with a small extension is
/// computed whole instead of one table per key (quad's `square`), and one whose
/// extension is huge is abandoned past the bound, keeping per-key tables (sudoku):
/// memory stays bounded either way, and the answers are the same.
#[test]
fn static_membership_tables_are_bounded() {
    // 18⁴ = 104,976 tuples: small enough to compute whole.
    let mut game = interpreter_from_text("small.kif", &membership_game(18));
    let initial = game.initial_state();
    let mut moves = Vec::new();
    game.legal_moves(&initial, 0, &mut moves);
    assert_eq!(moves.len(), 324);
    let (tables, _) = game.table_sizes();
    assert!(tables < 300, "{tables} tables: not computed whole");

    // 60⁴ = 12,960,000 tuples: abandoned, per-key tables kept.
    let mut game = interpreter_from_text("huge.kif", &membership_game(60));
    let initial = game.initial_state();
    game.legal_moves(&initial, 0, &mut moves);
    assert_eq!(moves.len(), 3600);
    assert_eq!(game.move_to_kif(moves[0]), "(mark n0 n0)");
    let (tables, answers) = game.table_sizes();
    assert!(
        answers < 20_000,
        "{tables} tables, {answers} answers: the whole extension was kept"
    );
    // Another state asks again, answered by the kept tables.
    let other = game.next_state(&initial, &[moves[1]]);
    game.legal_moves(&other, 0, &mut moves);
    assert_eq!(moves.len(), 3600);
}

/// gdl-perf's correctness-test log (`gdlc_runtime::cli::write_history`), written by the
/// interpreter for a game of two steps and a game with a terminal initial state: every
/// state's terminality, each role's legal moves, a joint move among them, the goals at
/// the end, games repeated until more state changes than asked, then `!F!`.
#[test]
fn correctness_logs_list_every_state_legal_moves_and_goals() {
    let mut game = interpreter_from_text(
        "two.kif",
        "(role p) (role q) (init (s 0)) (succ 0 1) (succ 1 2)
         (<= (legal p (go ?y)) (true (s ?x)) (succ ?x ?y))
         (<= (legal p stay) (true (s 0)))
         (legal q wait)
         (<= (next (s ?y)) (does p (go ?y)))
         (<= (next (s 1)) (does p stay))
         (<= terminal (true (s 2)))
         (goal p 100) (goal q 0)",
    );
    let mut log = Vec::new();
    gdlc_runtime::cli::write_history(&mut game, 3, 7, 100, &mut log).expect("written");
    let log = String::from_utf8(log).expect("text");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "!R!p,q");
    assert_eq!(lines.last(), Some(&"!F!"));
    // Each game: s 0 (p: go 1 or stay), s 1 (p: go 2), terminal; every game two steps.
    let game_lines = [
        "!T!false",
        "!L!(go 1),stay",
        "!L!wait",
        "",
        "!T!false",
        "!L!(go 2)",
        "!L!wait",
        "!C!(go 2),wait",
        "!T!true",
        "!G!100,0",
    ];
    let games = &lines[1..lines.len() - 1];
    assert_eq!(
        games.len(),
        2 * game_lines.len(),
        "two games of two steps: 4 > 3 changes"
    );
    for (line, expected) in games.iter().zip(game_lines.iter().cycle()) {
        if expected.is_empty() {
            assert!(
                ["!C!(go 1),wait", "!C!stay,wait"].contains(line),
                "a legal joint move: {line}"
            );
        } else {
            assert_eq!(line, expected);
        }
    }

    let mut ended = interpreter_from_text(
        "ended.kif",
        "(role p) (legal p go) (<= terminal (not (true (s 0)))) (goal p 50)",
    );
    let mut log = Vec::new();
    gdlc_runtime::cli::write_history(&mut ended, 10, 1, 100, &mut log).expect("written");
    assert_eq!(
        String::from_utf8(log).expect("text"),
        "!R!p\n!T!true\n!F!\n"
    );
}

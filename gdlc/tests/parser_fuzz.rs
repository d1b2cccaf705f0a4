//! Robustness of the front end: `gdlc::front_end` never panics on random text, on
//! truncated or cut real games, or on deeply nested input; and when such input happens
//! to be a valid game, the interpreter built from it answers the basic queries without
//! panicking.

mod common;

use gdlc::diagnostic::Code;
use gdlc::interp::Interpreter;
use gdlc::{SourceFile, syntax};
use gdlc_runtime::Game;
use proptest::prelude::*;

/// Tokens the random texts are made of: KIF punctuation, whitespace of every kind,
/// keywords, symbols, variables, and a few characters that are not KIF.
const TOKENS: &[&str] = &[
    "(",
    "(",
    "(",
    ")",
    ")",
    ")",
    "?",
    ";",
    " ",
    " ",
    "\n",
    "\r\n",
    "\t",
    "a",
    "b",
    "X",
    "1",
    "0",
    "100",
    "0100",
    "<=",
    "not",
    "or",
    "and",
    "distinct",
    "role",
    "init",
    "true",
    "does",
    "next",
    "legal",
    "goal",
    "terminal",
    "sees",
    "random",
    "base",
    "input",
    "?x",
    "?Y",
    "?",
    "\"",
    "é",
    "λ",
    "\u{0}",
    "\u{a0}",
    "-",
    "+",
    ".",
    "(<= ",
    "(not ",
    "(or ",
    "(distinct ",
    "(role a)",
];

/// Runs the front end; when the text is a valid game, builds the interpreter and asks
/// it the questions a player would ask first.
fn exercise(name: &str, text: &str) {
    let file = SourceFile::new(name, text);
    let front = gdlc::front_end(&file);
    for diagnostic in &front.diagnostics {
        // Rendering must not panic either (spans inside the text, on char boundaries).
        let _ = diagnostic.render(&file);
        if let Some(span) = diagnostic.span {
            assert!(
                span.start <= span.end && span.end <= text.len(),
                "{diagnostic}: span {span:?} outside the text"
            );
            assert!(
                text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
                "{diagnostic}: span {span:?} not on char boundaries"
            );
        }
    }
    if front.is_valid() {
        let mut game = Interpreter::new(&front).expect("a valid game loads");
        query(&mut game);
    } else {
        assert!(Interpreter::new(&front).is_err(), "an invalid game loaded");
    }
}

/// Initial state, terminal test, legal moves, one step if possible, and goals.
fn query(game: &mut Interpreter) {
    let initial = game.initial_state();
    let _ = game.state_to_kif(&initial);
    let terminal = game.is_terminal(&initial);
    let mut joint = Vec::new();
    let mut moves = Vec::new();
    for role in 0..game.num_roles() {
        let _ = game.role_name(role);
        game.legal_moves(&initial, role, &mut moves);
        for &mv in &moves {
            let _ = game.move_to_kif(mv);
        }
        if let Some(&first) = moves.first() {
            joint.push(first);
        }
        let _ = game.goal(&initial, role);
    }
    if !terminal && joint.len() == game.num_roles() {
        let next = game.next_state(&initial, &joint);
        let _ = game.is_terminal(&next);
        let mut percepts = Vec::new();
        for role in 0..game.num_roles() {
            game.sees(&initial, &joint, role, &mut percepts);
            let _ = game.goal(&next, role);
        }
    }
}

fn token_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..120).prop_map(|tokens| tokens.concat())
}

/// Small corpus games whose prefixes and cuts are cheap to check.
const SMALL_GAMES: &[&str] = &[
    "tictactoe.kif",
    "montyhall.kif",
    "kriegtictactoe.kif",
    "buttons.kif",
    "connect4.kif",
    "test/test_case_1a.kif",
    "test/test_case_3a.kif",
    "test/test_case_5e.kif",
    "test/test_distinct_beginning_rule.kif",
];

fn small_games() -> Option<Vec<(String, String)>> {
    let dir = common::games_dir()?;
    Some(
        SMALL_GAMES
            .iter()
            .map(|name| {
                let file = common::read_source(&dir.join(name));
                (name.to_string(), file.text)
            })
            .collect(),
    )
}

/// The longest prefix of `text` of at most `len` bytes that ends on a char boundary.
fn prefix(text: &str, len: usize) -> &str {
    let mut len = len.min(text.len());
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    &text[..len]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn front_end_never_panics_on_token_soup(text in token_text()) {
        exercise("soup.kif", &text);
    }

    #[test]
    fn front_end_never_panics_on_random_characters(text in "[()?; \t\r\n\"a-zA-Z0-9<=.+-]{0,200}") {
        exercise("chars.kif", &text);
    }

    #[test]
    fn front_end_never_panics_on_arbitrary_unicode(text in "\\PC{0,100}") {
        exercise("unicode.kif", &text);
    }

    #[test]
    fn split_terms_never_panics(text in token_text()) {
        if let Ok(terms) = syntax::split_terms(&text) {
            for (term, span) in terms {
                prop_assert_eq!(&text[span.start..span.end], term.as_str());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn truncated_corpus_games_never_panic(game in 0..SMALL_GAMES.len(), fraction in 0.0..=1.0f64) {
        let Some(games) = small_games() else { return Ok(()) };
        let (name, text) = &games[game];
        let cut = prefix(text, (text.len() as f64 * fraction) as usize);
        exercise(name, cut);
    }

    #[test]
    fn corpus_games_with_a_range_removed_never_panic(
        game in 0..SMALL_GAMES.len(),
        start in 0.0..=1.0f64,
        length in 0usize..200,
    ) {
        let Some(games) = small_games() else { return Ok(()) };
        let (name, text) = &games[game];
        let head = prefix(text, (text.len() as f64 * start) as usize);
        let tail_start = prefix(text, head.len() + length).len();
        let cut = format!("{head}{}", &text[tail_start..]);
        exercise(name, &cut);
    }
}

#[test]
fn every_prefix_of_tictactoe_is_handled() {
    let Some(file) = common::game_source("tictactoe.kif") else {
        return;
    };
    let text = &file.text;
    let mut valid = 0;
    for len in 0..=text.len() {
        if text.is_char_boundary(len) {
            let cut = &text[..len];
            exercise("tictactoe.kif", cut);
            if gdlc::front_end(&SourceFile::new("t", cut)).is_valid() {
                valid += 1;
            }
        }
    }
    println!("{valid} valid prefixes");
    // The whole file is valid, so at least one prefix is and the interpreter was run.
    assert!(valid >= 1, "no prefix of tictactoe is valid");
}

/// Every small game with one sentence removed: mostly valid games with a defect the
/// interpreter must survive (no initial control, no terminal rule, a missing goal …),
/// played for a few random steps.
#[test]
fn corpus_games_with_one_sentence_removed_never_panic() {
    let Some(games) = small_games() else { return };
    let mut valid = 0;
    for (name, text) in &games {
        let parsed = syntax::parse(&SourceFile::new(name.as_str(), text.as_str()));
        assert!(!parsed.has_errors(), "{name} does not parse");
        for rule in &parsed.description.rules {
            let cut = format!("{}{}", &text[..rule.span.start], &text[rule.span.end..]);
            exercise(name, &cut);
            let front = gdlc::front_end(&SourceFile::new(name.as_str(), cut.as_str()));
            if front.is_valid() {
                valid += 1;
                let mut game = Interpreter::new(&front).expect("a valid game loads");
                let options = gdlc_runtime::PlayoutOptions {
                    seed: 1,
                    max_steps: 20,
                };
                let _ = gdlc_runtime::random_playout(&mut game, options);
            }
        }
    }
    assert!(
        valid > 0,
        "no cut game was valid; the interpreter was never exercised"
    );
}

#[test]
fn ten_thousand_open_parentheses_is_a_syntax_error() {
    let text = "(".repeat(10_000);
    let file = SourceFile::new("deep.kif", text.as_str());
    let front = gdlc::front_end(&file);
    assert!(!front.is_valid());
    assert!(
        front
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.code == Code::Syntax),
        "{:?}",
        front.diagnostics
    );
    let _ = front.diagnostics[0].render(&file);
}

#[test]
fn ten_thousand_balanced_parentheses_is_a_syntax_error() {
    let text = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
    let front = gdlc::front_end(&SourceFile::new("deep.kif", text.as_str()));
    assert!(
        front
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.code == Code::Syntax),
        "{:?}",
        front.diagnostics
    );
    let text = format!(
        "(role a) (init {}x{})",
        "(f ".repeat(10_000),
        ")".repeat(10_000)
    );
    let front = gdlc::front_end(&SourceFile::new("deep.kif", text.as_str()));
    assert!(
        front
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.code == Code::Syntax),
        "{:?}",
        front.diagnostics
    );
    assert!(syntax::split_terms(&"(".repeat(10_000)).is_err());
}

/// A small valid game whose initial fluent is a term nested as deep as the parser
/// accepts: the whole pipeline handles it without exhausting the stack.
#[test]
fn nesting_at_the_limit_runs_through_the_whole_pipeline() {
    // `(init` is one level, so the fluent has `MAX_NESTING - 1`.
    let depth = syntax::MAX_NESTING - 1;
    let fluent = format!("{}x{}", "(f ".repeat(depth), ")".repeat(depth));
    let text = format!(
        "(role r)\n(init {fluent})\n(<= (legal r go) (true ?x))\n(<= (next done) (does r go))\n\
         (<= terminal (true done))\n(goal r 100)\n"
    );
    let file = SourceFile::new("deep.kif", text.as_str());
    let front = gdlc::front_end(&file);
    let rendered: String = front.diagnostics.iter().map(|d| d.render(&file)).collect();
    assert!(front.is_valid(), "{rendered}");
    let mut game = Interpreter::new(&front).expect("valid");
    let initial = game.initial_state();
    assert_eq!(game.state_to_kif(&initial), std::slice::from_ref(&fluent));
    assert!(!game.is_terminal(&initial));
    let go = game.legal_move_from_kif(&initial, 0, "go").expect("legal");
    let next = game.next_state(&initial, &[go]);
    assert!(game.is_terminal(&next));
    assert_eq!(game.goal(&next, 0), Ok(100));

    // One level deeper is rejected by the parser.
    let deeper = format!(
        "(init {}x{})",
        "(f ".repeat(depth + 1),
        ")".repeat(depth + 1)
    );
    let front = gdlc::front_end(&SourceFile::new("deeper.kif", deeper.as_str()));
    assert!(
        front
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.code == Code::Syntax)
    );
}

/// Deeply nested connectives inside the limit: `not`, `or`, `and`.
#[test]
fn deeply_nested_connectives_do_not_overflow() {
    let depth = syntax::MAX_NESTING - 2;
    for connective in ["not", "or", "and"] {
        let body = format!(
            "{}(true a){}",
            format!("({connective} ").repeat(depth),
            ")".repeat(depth)
        );
        let text = format!(
            "(role r)\n(init a)\n(<= (legal r go) {body})\n(<= (next done) (does r go))\n\
             (<= terminal (true done))\n(goal r 100)\n"
        );
        exercise("connectives.kif", &text);
    }
}

/// A random term over a small vocabulary: constants, variables and `(f …)`.
fn term() -> impl Strategy<Value = String> {
    let leaf =
        prop::sample::select(&["1", "2", "3", "a", "?x", "?y", "?z"][..]).prop_map(str::to_owned);
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| format!("(f {t})")),
            (inner.clone(), inner).prop_map(|(s, t)| format!("(g {s} {t})")),
        ]
    })
}

/// A random body literal: the game's relations and keywords, `not`, `distinct`, `or`,
/// `and`.
fn literal() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        term().prop_map(|t| format!("(true (c {t}))")),
        term().prop_map(|t| format!("(does a (m {t}))")),
        term().prop_map(|t| format!("(p {t})")),
        (term(), term()).prop_map(|(s, t)| format!("(q {s} {t})")),
        Just("r".to_owned()),
        Just("(r)".to_owned()),
        term().prop_map(|t| format!("(legal a (m {t}))")),
        (term(), term()).prop_map(|(s, t)| format!("(distinct {s} {t})")),
    ];
    atom.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|l| format!("(not {l})")),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|ls| format!("(or {})", ls.join(" "))),
            prop::collection::vec(inner, 1..3).prop_map(|ls| format!("(and {})", ls.join(" "))),
        ]
    })
}

/// A random rule: a head over the game's relations and a body of random literals.
fn rule() -> impl Strategy<Value = String> {
    let head = prop_oneof![
        term().prop_map(|t| format!("(p {t})")),
        (term(), term()).prop_map(|(s, t)| format!("(q {s} {t})")),
        Just("r".to_owned()),
        term().prop_map(|t| format!("(next (c {t}))")),
        term().prop_map(|t| format!("(legal a (m {t}))")),
        term().prop_map(|t| format!("(sees a {t})")),
        prop::sample::select(&["0", "50", "100"][..]).prop_map(|v| format!("(goal a {v})")),
        Just("terminal".to_owned()),
        term().prop_map(|t| format!("(init (c {t}))")),
    ];
    // Most bodies start by binding every variable over a finite domain, so that many
    // generated rules are safe and the checker passes them on to the interpreter.
    let binders = prop::sample::select(&["", "(dom ?x) (dom ?y) (dom ?z)", "(p ?x) (q ?y ?z)"][..]);
    (head, binders, prop::collection::vec(literal(), 0..4)).prop_map(|(head, binders, body)| {
        if binders.is_empty() && body.is_empty() {
            head
        } else {
            format!("(<= {head} {binders} {})", body.join(" "))
        }
    })
}

/// A small game skeleton (valid on its own) plus random rules.
fn random_game() -> impl Strategy<Value = String> {
    prop::collection::vec(rule(), 0..8).prop_map(|rules| {
        let mut text = String::from(
            "(role a)\n(init (c 1))\n(<= (legal a (m ?x)) (true (c ?x)))\n(legal a noop)\n\
             (<= (next (c 2)) (does a noop))\n(<= terminal (true (c 3)))\n(goal a 50)\n\
             (dom 1) (dom 2) (dom 3) (dom a) (dom (f 1))\n",
        );
        for rule in rules {
            text.push_str(&rule);
            text.push('\n');
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_shrink_time: 30_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random rule sets exercise normalisation, every check and, when the checker
    /// accepts them, the interpreter (which must then finish each query).
    #[test]
    fn random_rule_sets_never_panic_or_hang(text in random_game()) {
        let (done, wait) = std::sync::mpsc::channel();
        let input = text.clone();
        let worker = std::thread::spawn(move || {
            let file = SourceFile::new("random.kif", input.as_str());
            let front = gdlc::front_end(&file);
            if front.is_valid() {
                let mut game = Interpreter::new(&front).expect("a valid game loads");
                query(&mut game);
                let options = gdlc_runtime::PlayoutOptions { seed: 2, max_steps: 5 };
                let _ = gdlc_runtime::random_playout(&mut game, options);
                let initial = game.initial_state();
                let _ = gdlc_runtime::perft(&mut game, &initial, 2);
            }
            let _ = done.send(front.is_valid());
        });
        match wait.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(_) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                let panic = worker.join().err().map(|p| {
                    p.downcast_ref::<String>().cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_default()
                });
                prop_assert!(false, "panicked ({panic:?}) on:\n{text}");
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                prop_assert!(false, "no answer within 10 s on:\n{text}");
            }
        }
    }
}

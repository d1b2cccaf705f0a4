//! `gdlc::scramble`: another spelling of a game means the same game. Scrambled files
//! parse, check, keep their perft under the interpreter and the plan executor, and the
//! scrambler is deterministic and really renames and reorders.

mod common;

use gdlc::SourceFile;
use gdlc::analysis::analyze;
use gdlc::exec::Executor;
use gdlc::explain::{Stage, explain};
use gdlc::scramble::{Options, scramble};
use gdlc_runtime::{Game, perft};

/// The spellings tried on every game: everything, numbers kept (ggp-base's scrambler),
/// reordering only, renaming only.
fn spellings(seed: u64) -> [Options; 4] {
    [
        Options::all(seed),
        Options {
            keep_numbers: true,
            ..Options::all(seed + 1)
        },
        Options {
            rename: false,
            ..Options::all(seed + 2)
        },
        Options {
            reorder: false,
            ..Options::all(seed + 3)
        },
    ]
}

fn perfts(game: &mut impl Game, depth: u32) -> Vec<u64> {
    let initial = game.initial_state();
    (1..=depth).map(|d| perft(game, &initial, d)).collect()
}

/// Perft of the interpreter and of the plan executor (the tuned plan, as compiled).
fn both_perfts(file: &SourceFile, depth: u32) -> (Vec<u64>, Vec<u64>) {
    let front = gdlc::front_end(file);
    assert!(
        front.is_valid(),
        "{} is not valid:\n{}\n{}",
        file.name,
        front
            .diagnostics
            .iter()
            .map(|d| d.render(file))
            .collect::<String>(),
        file.text
    );
    let mut interpreter = common::interpreter_for(file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(file)));
    let plan = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{}", d.render(file)));
    let mut executor = Executor::new(&ir, &plan);
    (
        perfts(&mut interpreter, depth),
        perfts(&mut executor, depth),
    )
}

fn assert_spellings_agree(file: &SourceFile, depth: u32, seed: u64) {
    let (plain, executed) = both_perfts(file, depth);
    assert_eq!(
        plain, executed,
        "{}: executor against interpreter",
        file.name
    );
    for options in spellings(seed) {
        let text = scramble(file, &options).unwrap_or_else(|d| panic!("{}", d.render(file)));
        let scrambled = SourceFile::new(format!("{} scrambled {options:?}", file.name), text);
        let (interpreted, executed) = both_perfts(&scrambled, depth);
        assert_eq!(interpreted, plain, "{}: interpreter", scrambled.name);
        assert_eq!(executed, plain, "{}: executor", scrambled.name);
    }
}

#[test]
fn team_games_keep_their_perft_in_every_spelling() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../games");
    for (name, depth, seed) in [
        ("tictactoe.kif", 3, 11),
        ("connectfour.kif", 3, 23),
        ("breakthrough.kif", 2, 37),
        ("nim.kif", 3, 41),
    ] {
        let file = common::read_source(&std::path::Path::new(dir).join(name));
        assert_spellings_agree(&file, depth, seed);
    }
}

#[test]
fn corpus_games_keep_their_perft_in_every_spelling() {
    for (name, depth, seed) in [
        ("checkers.kif", 2, 101),
        ("pentago.kif", 1, 202),
        ("blocker.kif", 2, 303),
        ("3pttc.kif", 2, 404),
    ] {
        let Some(file) = common::game_source(name) else {
            return;
        };
        assert_spellings_agree(&file, depth, seed);
    }
}

/// The interpreter's work (tuples matched) for perft to `depth`.
fn interpreter_work(file: &SourceFile, depth: u32) -> u64 {
    let mut interpreter = common::interpreter_for(file);
    perfts(&mut interpreter, depth);
    interpreter.work()
}

/// The interpreter orders bodies from the game, not from the text: in every spelling,
/// perft costs it at most twice the work of the plain file (counted in tuples matched,
/// which do not depend on the machine). Written order once made reordered checkers
/// thousands of times slower.
#[test]
fn the_interpreter_works_alike_in_every_spelling() {
    let team = concat!(env!("CARGO_MANIFEST_DIR"), "/../games");
    let mut files = vec![
        (
            common::read_source(&std::path::Path::new(team).join("connectfour.kif")),
            3,
        ),
        (
            common::read_source(&std::path::Path::new(team).join("breakthrough.kif")),
            2,
        ),
    ];
    for (name, depth) in [("checkers.kif", 3), ("chess.kif", 2), ("amazons.kif", 1)] {
        if let Some(file) = common::game_source(name) {
            files.push((file, depth));
        }
    }
    for (file, depth) in files {
        let plain = interpreter_work(&file, depth);
        for options in spellings(9) {
            let text = scramble(&file, &options).expect("scrambles");
            let scrambled = SourceFile::new(format!("{} {options:?}", file.name), text);
            let work = interpreter_work(&scrambled, depth);
            assert!(
                work <= 2 * plain + 1000,
                "{}: {work} tuples matched, plain {plain}",
                scrambled.name
            );
        }
    }
}

#[test]
fn scrambling_renames_reorders_and_is_deterministic() {
    let file = SourceFile::new(
        "tiny.kif",
        "; a comment\n(role Xplayer) (role oplayer)\n(init (cell 1 b)) (init (cell 10 b))\n\
         (<= (legal ?p (mark ?x)) (true (cell ?x b)) (role ?p))\n(<= terminal (not (true (cell 1 b))))\n\
         (<= (goal ?p 100) (role ?p))\n(<= (next (cell ?x x)) (does ?p (mark ?x)))\n",
    );
    let all = scramble(&file, &Options::all(7)).expect("scrambles");
    assert_eq!(all, scramble(&file, &Options::all(7)).expect("scrambles"));
    assert_ne!(all, scramble(&file, &Options::all(8)).expect("scrambles"));
    for kept in [
        "(role ", "(init ", "(legal ", "(true ", "terminal", "(goal ", "100", "(not ",
    ] {
        assert!(all.contains(kept), "{kept} kept in\n{all}");
    }
    for renamed in [
        "xplayer", "Xplayer", "cell", "mark", "?p", "?x", " 10 ", "comment",
    ] {
        assert!(!all.contains(renamed), "{renamed} renamed in\n{all}");
    }
    let numbers = scramble(
        &file,
        &Options {
            keep_numbers: true,
            ..Options::all(7)
        },
    )
    .expect("scrambles");
    assert!(numbers.contains(" 10 "), "numbers kept:\n{numbers}");
    let unrenamed = scramble(
        &file,
        &Options {
            rename: false,
            ..Options::all(7)
        },
    )
    .expect("scrambles");
    assert!(unrenamed.contains("(cell ?x b)"), "{unrenamed}");
    let characters = |text: &str| {
        let mut characters: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        characters.sort_unstable();
        characters
    };
    let unordered = scramble(
        &file,
        &Options {
            reorder: false,
            rename: false,
            ..Options::all(7)
        },
    )
    .expect("scrambles");
    assert_eq!(characters(&unordered), characters(&unrenamed));
    assert!(unordered.starts_with("(role Xplayer)"), "{unordered}");
}

#[test]
fn a_syntax_error_is_reported_not_scrambled() {
    let file = SourceFile::new("bad.kif", "(role x) (init (cell 1)");
    let error = scramble(&file, &Options::all(0)).expect_err("unclosed parenthesis");
    assert!(
        error.render(&file).contains("never closed"),
        "{}",
        error.render(&file)
    );
}

fn ir_of(file: &SourceFile) -> gdlc::ir::Ir {
    let front = gdlc::front_end(file);
    analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(file)))
}

/// The analysis numbers symbols and lists rules and body literals in canonical order,
/// from the game's structure: a file with its sentences and body literals shuffled
/// (names kept) gives the same symbols, the same argument domains and the same flat
/// rules, so the same layouts and plans — and, for the smaller games, the same
/// generated code.
#[test]
fn a_reordered_spelling_gives_the_same_symbols_and_domains() {
    let team = concat!(env!("CARGO_MANIFEST_DIR"), "/../games");
    let mut files: Vec<SourceFile> = ["tictactoe.kif", "connectfour.kif", "chess.kif"]
        .iter()
        .map(|name| common::read_source(&std::path::Path::new(team).join(name)))
        .collect();
    for name in [
        "checkers.kif",
        "amazons.kif",
        "othello-comp2007.kif",
        "hex.kif",
    ] {
        if let Some(file) = common::game_source(name) {
            files.push(file);
        }
    }
    let mut compiled = 0;
    for file in files {
        let plain = ir_of(&file);
        for seed in [31, 32] {
            let options = Options {
                rename: false,
                ..Options::all(seed)
            };
            let text = scramble(&file, &options).expect("scrambles");
            let reordered = ir_of(&SourceFile::new(
                format!("{} {options:?}", file.name),
                text.clone(),
            ));
            assert_eq!(
                explain(&reordered, Stage::Domains),
                explain(&plain, Stage::Domains),
                "{} reordered with seed {seed}: other domains",
                file.name,
            );
            assert_eq!(reordered.symbols, plain.symbols, "{}", file.name);
            assert_eq!(
                explain(&reordered, Stage::Flat),
                explain(&plain, Stage::Flat),
                "{} reordered with seed {seed}: other flat rules",
                file.name,
            );
            if ["tictactoe", "connectfour"]
                .iter()
                .any(|game| file.name.ends_with(&format!("/{game}.kif")))
            {
                let code = |file: &SourceFile| {
                    let code = gdlc::compile_rust(file).expect("compiles");
                    // The first line names the source file.
                    code.split_once('\n')
                        .map(|(_, rest)| rest.to_owned())
                        .unwrap_or(code)
                };
                let reordered_file = SourceFile::new(format!("{} reordered", file.name), text);
                assert!(
                    code(&reordered_file) == code(&file),
                    "{} reordered with seed {seed}: other code",
                    file.name
                );
                compiled += 1;
            }
        }
    }
    assert_eq!(compiled, 4, "tictactoe and connectfour, two seeds each");
}

/// The symbols of a successor chain are numbered along it whatever their names, so a
/// renamed board keeps its coordinates in board order (and its neighbours one position
/// apart in every store and in the fluent bits).
#[test]
fn renamed_coordinates_keep_the_order_of_their_chain() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../games");
    let file = common::read_source(&std::path::Path::new(dir).join("connectfour.kif"));
    let plain = ir_of(&file);
    assert!(!plain.chains.is_empty(), "connectfour's succ is a chain");
    for seed in [41, 42, 43] {
        let options = Options {
            keep_numbers: false,
            ..Options::all(seed)
        };
        let text = scramble(&file, &options).expect("scrambles");
        let renamed = ir_of(&SourceFile::new(format!("connectfour {options:?}"), text));
        // The chains have the same lengths, and the constants of each, in chain order,
        // have increasing symbol numbers.
        let lengths = |ir: &gdlc::ir::Ir| -> Vec<usize> {
            ir.chains.iter().map(|c| c.constants.len()).collect()
        };
        assert_eq!(lengths(&renamed), lengths(&plain), "seed {seed}");
        for chain in &renamed.chains {
            let ids: Vec<u32> = chain
                .constants
                .iter()
                .map(|c| renamed.symbols.get(c, 0).expect("interned").0)
                .collect();
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "seed {seed}: {ids:?}");
        }
    }
}

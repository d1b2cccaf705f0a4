//! Locally stratified negation (`gdlc::normalize::split`): a game whose relations depend
//! on their own negation only across different constants is valid, with a warning at
//! each such literal, and every backend that reads the normalised rules plays it alike —
//! the interpreter, the plan executor and the Prolog program (when `swipl` runs; the
//! compiled reasoner is compared by `cargo xtask verify tests/stratification/race.kif`).
//! The prover (cargo feature `prove`) proves one goal value per role on it. A real
//! negative cycle stays a located error showing the cycle.

mod common;

use std::path::{Path, PathBuf};

use gdlc::analysis::analyze;
use gdlc::diagnostic::Code;
use gdlc::emit::prolog;
use gdlc::exec::Executor;
use gdlc::interp::Interpreter;
use gdlc::{Severity, SourceFile};
use gdlc_runtime::{CompareOptions, Game, PlayoutOptions, compare, random_playout};

/// The test game: a race whose `above`, `legal` and `goal` (on two levels) are
/// locally stratified.
fn race() -> SourceFile {
    common::read_source(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stratification/race.kif"),
    )
}

/// Perft of the race from the interpreter, depths 1 to 8 (the game ends at step 8).
const RACE_PERFT: [u64; 8] = [2, 4, 8, 16, 32, 64, 128, 232];

#[test]
fn race_is_valid_with_a_warning_at_each_split_negation() {
    let file = race();
    let front = gdlc::front_end(&file);
    assert!(front.is_valid(), "{:?}", front.diagnostics);
    let located: Vec<(usize, usize, String)> = front
        .diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.severity, Severity::Warning, "{d:?}");
            assert_eq!(d.code, Code::Unstratified, "{d:?}");
            assert!(d.message.contains("locally stratified"), "{}", d.message);
            let span = d.span.expect("located");
            let (line, column) = file.line_column(span.start);
            (line, column, file.text[span.start..span.end].to_owned())
        })
        .collect();
    assert_eq!(
        located,
        [
            (15, 46, "(above ?r ?x yes)".to_owned()),
            (20, 46, "(legal ?r (add 2))".to_owned()),
            (35, 33, "(goal ?r 100)".to_owned()),
            (36, 32, "(goal ?r 100)".to_owned()),
            (36, 52, "(goal ?r 50)".to_owned()),
        ]
    );
    // `goal` and `legal` keep their own rules; only the negated literals are redirected.
    let goal_rules = front
        .rules
        .iter()
        .filter(|rule| rule.head.is("goal", 2))
        .count();
    assert_eq!(goal_rules, 3);
}

#[test]
fn interpreter_perft() {
    let mut game = common::interpreter_for(&race());
    let initial = game.initial_state();
    let counts: Vec<u64> = (1..=8)
        .map(|d| gdlc_runtime::perft(&mut game, &initial, d))
        .collect();
    assert_eq!(counts, RACE_PERFT);
}

#[test]
fn plan_executor_agrees_with_the_interpreter() {
    let file = race();
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let mut reference = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
    let mut executor = Executor::new(&ir, &plan);
    let options = CompareOptions {
        perft_depth: 8,
        playouts: 40,
        max_steps: 20,
        seed: 1,
    };
    compare(&mut reference, &mut executor, options).unwrap_or_else(|e| panic!("{e}"));
}

/// Every goal value is reached along random playouts (the two-level split matters).
#[test]
fn every_goal_value_occurs() {
    let mut game = common::interpreter_for(&race());
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..40 {
        let options = PlayoutOptions {
            seed,
            max_steps: 20,
        };
        let playout = random_playout(&mut game, options).unwrap_or_else(|e| panic!("{e}"));
        for goal in playout.goals.into_iter().flatten() {
            seen.insert(goal);
        }
    }
    assert_eq!(seen.into_iter().collect::<Vec<u8>>(), [0, 50, 100]);
}

/// The diagnostics of one program (roles, legal, terminal and goal added).
fn diagnostics(rules: &str) -> Vec<gdlc::Diagnostic> {
    let text = format!(
        "(role a) (legal a noop) (<= terminal (true done)) (goal a 100) (d 1) (d 2)\n{rules}"
    );
    gdlc::front_end(&SourceFile::new("cycle.kif", text)).diagnostics
}

#[test]
fn real_negative_cycles_stay_located_errors_with_the_cycle() {
    for (rules, cycle) in [
        (
            "(<= p (not q)) (<= q (not p))",
            "cycle: p/0 → not q/0 → not p/0",
        ),
        (
            "(<= (p ?x) (d ?x) (not (q ?x))) (<= (q ?x) (d ?x) (not (p ?x)))",
            "cycle: p/1 → not q/1 → not p/1",
        ),
        (
            "(<= (p ?x 1) (d ?x) (not (p ?x 1)))",
            "cycle: p/2 → not p/2",
        ),
        (
            "(<= (p ?x 1) (d ?x) (d ?y) (p ?x ?y) (not (p ?x 2))) (<= (p ?x 2) (d ?x) (not (p ?x 1)))",
            "cycle: p/2 → not p/2",
        ),
    ] {
        let found = diagnostics(rules);
        let errors: Vec<&gdlc::Diagnostic> = found.iter().filter(|d| d.is_error()).collect();
        assert!(!errors.is_empty(), "{rules}: {found:?}");
        for error in errors {
            assert_eq!(error.code, Code::Unstratified, "{rules}: {error:?}");
            assert!(error.span.is_some(), "{rules}: {error:?}");
        }
        assert!(
            found
                .iter()
                .any(|d| d.is_error() && d.notes.iter().any(|n| n == cycle)),
            "{rules}: no note `{cycle}` in {found:?}"
        );
        assert!(
            found.iter().all(|d| d.is_error()),
            "{rules}: a warning next to the error: {found:?}"
        );
    }
}

#[test]
fn prolog_program_agrees_with_the_interpreter() {
    if !common::swipl_available() {
        return;
    }
    let file = race();
    let front = gdlc::front_end(&file);
    let program =
        prolog::emit_program(&front, &file.name).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let dir: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("prolog")
        .join("local-stratification-race");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for (name, text) in [
        (prolog::PROGRAM_FILE, program.as_str()),
        (prolog::DRIVER_FILE, prolog::DRIVER),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let output = prolog::perft_command(&dir, 8)
        .output()
        .unwrap_or_else(|e| panic!("cannot run swipl: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "swipl failed:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let counts: Vec<u64> = prolog::parse_perft(&stdout)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|(_, count)| count)
        .collect();
    assert_eq!(counts, RACE_PERFT);
}

/// The prover reads the split rules too: in every reachable state each role has
/// exactly one goal value, and the two-level `goal` rules never give two.
#[cfg(feature = "prove")]
#[test]
fn prover_proves_one_goal_value_per_role() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stratification/race.kif");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .arg("prove")
        .arg(&path)
        .arg("--class")
        .arg("goals")
        .arg("--formula")
        .arg("(forall ((?r (set red blue))) (count 1 1 ((?v (set 0 50 100))) (goal ?r ?v)))")
        .output()
        .unwrap_or_else(|e| panic!("cannot run gdlc prove: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "gdlc prove failed:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for property in ["unique goal values", "formula 1"] {
        assert!(
            stdout
                .lines()
                .any(|line| line.contains("proved") && line.contains(property)),
            "`{property}` not proved:\n{stdout}"
        );
    }
}

//! The invariant prover: outcomes on tiny games with known answers (every outcome
//! covered), the time limit, golden ASP text, the unfolding of static relations and the
//! domain guards bound by the formula, formula errors, the command line, and the paper's
//! properties of quarto and tictactoe from the corpus (checked against the interpreter).
//!
//! `UPDATE_EXPECT=1` re-blesses the golden programs in `tests/prove/`.

#![cfg(feature = "prove")]

mod common;

use std::path::PathBuf;
use std::process::Command;

use gdlc::SourceFile;
use gdlc::ir::Ir;
use gdlc::prove::asp::{AspGame, Request, Start};
use gdlc::prove::formula::{self, Formula};
use gdlc::prove::{Class, Options, Outcome, Report, RunStatus, Step};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/prove")).join(name)
}

struct Game {
    file: SourceFile,
    front: gdlc::FrontEnd,
    ir: Ir,
}

fn load(path: &std::path::Path) -> Game {
    let file = common::read_source(path);
    let front = gdlc::front_end(&file);
    assert!(front.is_valid(), "{} is not valid", path.display());
    let ir = gdlc::analysis::analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    Game { file, front, ir }
}

fn parse(game: &Game, text: &str) -> Formula {
    formula::parse(text, &game.ir)
        .unwrap_or_else(|d| panic!("{}", d.render(&SourceFile::new("formula", text))))
}

/// Proves the given classes and formulas with the given limits.
fn prove_with(game: &Game, classes: &[Class], formulas: &[&str], options: &Options) -> Report {
    let formulas: Vec<Formula> = formulas.iter().map(|t| parse(game, t)).collect();
    let properties = gdlc::prove::properties(&game.ir, classes, &formulas);
    let asp = AspGame::new(&game.front.rules, &game.ir, &game.file.name);
    gdlc::prove::prove(&asp, properties, options, &mut |_| {})
        .unwrap_or_else(|d| panic!("{}", d.render(&game.file)))
}

fn prove(game: &Game, classes: &[Class], formulas: &[&str]) -> Report {
    prove_with(game, classes, formulas, &Options::default())
}

/// The outcome of the property named `name`.
fn outcome<'r>(report: &'r Report, name: &str) -> &'r Outcome {
    let found: Vec<&Outcome> = report
        .verdicts
        .iter()
        .filter(|v| v.property.name == name)
        .map(|v| &v.outcome)
        .collect();
    assert_eq!(found.len(), 1, "property `{name}` in {:#?}", names(report));
    found[0]
}

fn names(report: &Report) -> Vec<String> {
    report
        .verdicts
        .iter()
        .map(|v| format!("{} {}", v.outcome.word(), v.property.name))
        .collect()
}

#[test]
fn counter_game_outcomes() {
    let game = load(&fixture("counter.kif"));
    let report = prove(&game, &Class::STANDARD, &[]);
    let summary = names(&report).join("\n");
    expect_test::expect![[r#"
        proved at most one ?x1 in (count ?x1)
        proved exactly one ?x1 in (count ?x1)
        proved at most one ?x1 in (light ?x1)
        proved exactly one ?x1 in (light ?x1)
        proved playability
        proved turn-taking
        proved zero-sum
        proved unique goal values
        proved monotonic goal values
        false-initially (count 1) stays true
        proved (count 1) stays false
        not-inductive (count 2) stays true
        false-initially (count 2) stays false
        proved (count 3) stays true
        not-inductive (count 3) stays false
        false-initially (light off) stays true
        proved (light off) stays false
        proved (light on) stays true
        false-initially (light on) stays false"#]]
    .assert_eq(&summary);
    // Every run's result is recorded; the functionals are assumed by later classes.
    assert!(report.runs.iter().all(|r| r.ground_atoms > 0));
    let persistence_step = report
        .runs
        .iter()
        .find(|r| r.class == Class::Persistence && r.step == gdlc::prove::Step::Induction)
        .expect("a persistence induction step");
    assert_eq!(persistence_step.assumptions, 4);
    assert_eq!(persistence_step.horizon, 2);
}

#[test]
fn every_outcome_on_known_formulas() {
    let game = load(&fixture("hidden.kif"));
    let formulas = [
        // Holds in every reachable state and is inductive.
        "(true a)",
        // False in the initial state.
        "(true d)",
        // Holds in every reachable state, but the unreachable state {c} leads to b.
        "(not (true b))",
        // Holds, of degree 1: d is true after the first move.
        "(or terminal (next (true d)))",
        // Legal is state-dependent: go is always legal.
        "(exists ((?m (domain legal 1))) (legal r ?m))",
    ];
    let report = prove(&game, &[], &formulas);
    let words: Vec<&str> = report.verdicts.iter().map(|v| v.outcome.word()).collect();
    assert_eq!(
        words,
        [
            "proved",
            "false-initially",
            "not-inductive",
            "proved",
            "proved"
        ]
    );

    // With a grounding limit below any program, nothing is attempted.
    let tiny = Options {
        max_ground: 1,
        ..Options::default()
    };
    let report = prove_with(&game, &[], &formulas, &tiny);
    for verdict in &report.verdicts {
        assert_eq!(
            verdict.outcome,
            Outcome::NotAttempted("grounding exceeds 1 atoms".into()),
            "{}",
            verdict.property.name
        );
    }
    // The limit was detected on the game alone, not by trying each property.
    assert!(report.runs.iter().any(|r| r.targets == 0));
    assert!(report.runs.len() < 2 * formulas.len());
}

#[test]
fn grounding_limit_splits_groups() {
    // A limit between the game alone and the game with many formulas: the group is
    // split until the properties fit, and every property is still decided.
    let game = load(&fixture("counter.kif"));
    let everything = prove(&game, &[Class::Persistence], &[]);
    let largest = everything
        .runs
        .iter()
        .map(|r| r.ground_atoms)
        .max()
        .expect("a run");
    let options = Options {
        max_ground: largest - 1,
        ..Options::default()
    };
    let split = prove_with(&game, &[Class::Persistence], &[], &options);
    assert!(split.runs.len() > everything.runs.len());
    for (a, b) in everything.verdicts.iter().zip(&split.verdicts) {
        assert_eq!(a.outcome, b.outcome, "{}", a.property.name);
    }
}

/// Not every pigeon alone in a hole: the induction step is the pigeonhole principle.
const PIGEONS: &str = "(not (and (forall ((?p (domain true 0/at.0))) (exists ((?h (domain true 0/at.1))) (true (at ?p ?h)))) \
     (forall ((?h (domain true 0/at.1))) (count 0 1 ((?p (domain true 0/at.0))) (true (at ?p ?h))))))";

#[test]
fn time_limit_leaves_properties_not_attempted() {
    // A default limit is always set.
    assert_eq!(
        Options::default().time_limit,
        Some(gdlc::prove::DEFAULT_TIME_LIMIT)
    );
    let game = load(&fixture("pigeons.kif"));
    let limit = std::time::Duration::from_millis(300);
    let options = Options {
        time_limit: Some(limit),
        ..Options::default()
    };
    let started = std::time::Instant::now();
    let report = prove_with(&game, &[], &[PIGEONS], &options);
    assert_eq!(
        report.verdicts[0].outcome,
        Outcome::NotAttempted("solving passed the time limit of 0.3 s".into())
    );
    // The base case is solved; the step is cut at the limit, not long after it.
    let step = report
        .runs
        .iter()
        .find(|r| r.step == Step::Induction)
        .expect("an induction step");
    assert_eq!(step.status, RunStatus::TimedOut);
    assert!(step.solve_seconds >= 0.9 * limit.as_secs_f64(), "{step:?}");
    assert!(step.solve_seconds < 5.0, "{step:?}");
    assert!(started.elapsed().as_secs_f64() < 10.0);
}

#[test]
fn golden_programs_are_deterministic() {
    let game = load(&fixture("counter.kif"));
    let asp = AspGame::new(&game.front.rules, &game.ir, "counter.kif");
    let assumption = parse(
        &game,
        "(forall ((?x (set 1 2 3))) (count 0 1 ((?y (domain true 0/light.0))) (and (true (count ?x)) (true (light ?y)))))",
    );
    let targets = [
        parse(&game, "(=> (true (light on)) (next (true (light on))))"),
        parse(
            &game,
            "(forall ((?r (domain role 0))) (count 2 inf ((?m (domain legal 1))) (legal ?r ?m)))",
        ),
    ];
    for (start, horizon, file) in [
        (Start::Initial, 1, "counter.base.lp"),
        (Start::Generated, 2, "counter.step.lp"),
    ] {
        let request = Request {
            title: "golden test".into(),
            start,
            horizon,
            targets: targets.iter().collect(),
            assumptions: if start == Start::Generated {
                vec![&assumption]
            } else {
                Vec::new()
            },
        };
        let program = asp.program(&request);
        let expected = match start {
            Start::Initial => ["_f1", "_f2"],
            Start::Generated => ["_s1", "_s2"],
        };
        assert_eq!(program.shown, expected);
        // Same input, same bytes.
        let again = AspGame::new(&game.front.rules, &game.ir, "counter.kif").program(&request);
        assert_eq!(program, again);
        expect_test::expect_file![fixture(file)].assert_eq(&program.text);
    }
}

fn formula_error(game: &Game, text: &str) -> String {
    let err = formula::parse(text, &game.ir).expect_err("the formula is rejected");
    err.render(&SourceFile::new("formula", text))
}

#[test]
fn formula_errors_are_located() {
    let game = load(&fixture("counter.kif"));
    expect_test::expect![[r#"
        error[formula]: unknown relation `ture/1`
          ┌─ formula:1:7
          │
        1 │ (not (ture (count 1)))
          │       ^^^^ not a relation of the game

    "#]]
    .assert_eq(&formula_error(&game, "(not (ture (count 1)))"));
    expect_test::expect![[r#"
        error[formula]: variable `?y` is not bound
          ┌─ formula:1:39
          │
        1 │ (exists ((?x (set 1 2))) (true (count ?y)))
          │                                       ^^ bind it with `exists`, `forall` or `count`

    "#]]
    .assert_eq(&formula_error(
        &game,
        "(exists ((?x (set 1 2))) (true (count ?y)))",
    ));
    expect_test::expect![[r#"
        error[formula]: `true/1` has no argument path `0/cell.0`
          ┌─ formula:1:27
          │
        1 │ (exists ((?x (domain true 0/cell.0))) (true (count ?x)))
          │                           ^^^^^^^^ unknown path
          │
          = its paths are: 0 0/count.0 0/light.0

    "#]]
    .assert_eq(&formula_error(
        &game,
        "(exists ((?x (domain true 0/cell.0))) (true (count ?x)))",
    ));
    expect_test::expect![[r#"
        error[formula]: `does/2` cannot be used in a formula
          ┌─ formula:1:2
          │
        1 │ (does p inc)
          │  ^^^^^^^^^^^ formulas cannot refer to moves; use `legal`

    "#]]
    .assert_eq(&formula_error(&game, "(does p inc)"));
    expect_test::expect![[r#"
        error[formula]: `count` takes a lower bound, an upper bound, a list of bindings and a formula
          ┌─ formula:1:1
          │
        1 │ (count 1 ((?x (set 1))) (true (count ?x)))
          │ ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ 3 arguments here

    "#]]
    .assert_eq(&formula_error(&game, "(count 1 ((?x (set 1))) (true (count ?x)))"));
    expect_test::expect![[r#"
        error[formula]: unknown constant `4`
          ┌─ formula:1:14
          │
        1 │ (true (count 4))
          │              ^ it does not occur in the game

    "#]]
    .assert_eq(&formula_error(&game, "(true (count 4))"));
    expect_test::expect![[r#"
        error[formula]: unclosed `(`
          ┌─ formula:1:1
          │
        1 │ (and terminal
          │ ^ this `(` is never closed

    "#]]
    .assert_eq(&formula_error(&game, "(and terminal"));
}

#[test]
fn formulas_print_as_they_parse() {
    let game = load(&fixture("counter.kif"));
    for text in [
        "(forall ((?x ?y (set 1 2)) (?z (domain true 0/count.0))) (count 1 inf ((?w (domain true 0))) (or (true ?w) (not (true (count ?z))))))",
        "(=> (and (true (light on)) terminal) (next (goal p 100)))",
    ] {
        let parsed = parse(&game, text);
        assert_eq!(parsed.to_string(), text);
        assert_eq!(parse(&game, &parsed.to_string()), parsed);
    }
    assert_eq!(parse(&game, "(next (next (true (light on))))").degree(), 2);
}

fn gdlc(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .output()
        .expect("the gdlc binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "gdlc panicked:\n{stderr}");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr,
    )
}

#[test]
fn command_line() {
    let game = fixture("hidden.kif");
    let game = game.to_string_lossy();
    let dir = std::env::temp_dir().join(format!("gdlc-prove-test-{}", std::process::id()));
    let dir_text = dir.to_string_lossy().into_owned();
    let (code, stdout, stderr) = gdlc(&[
        "prove",
        &game,
        "--formula",
        "(not (true b))",
        "--formula",
        "(true a)",
        "--emit-asp",
        &dir_text,
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout
            .contains(r#""name":"formula 1","formula":"(not (true b))","outcome":"not-inductive""#),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#""name":"formula 2","formula":"(true a)","outcome":"proved""#),
        "{stdout}"
    );
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .expect("the programs were written")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    written.sort();
    assert_eq!(written, ["01-formulas-base.lp", "02-formulas-step.lp"]);
    let _ = std::fs::remove_dir_all(&dir);

    // Text report with the class summary.
    let counter = fixture("counter.kif");
    let (code, stdout, _) = gdlc(&[
        "prove",
        &counter.to_string_lossy(),
        "--class",
        "functionals",
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("functionals"), "{stdout}");
    assert!(stdout.contains("ground atoms"), "{stdout}");

    // A bad formula is a located error and exit code 1.
    let (code, _, stderr) = gdlc(&["prove", &game, "--formula", "(true (cell 1))"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("error[formula]: unknown function symbol `cell/1`"),
        "{stderr}"
    );
    assert!(stderr.contains("--formula:1:8"), "{stderr}");

    // A missing file too.
    let (code, _, stderr) = gdlc(&["prove", "no/such/game.kif"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("cannot read"), "{stderr}");

    // The time limit: what it cuts is not attempted, with the reason; no progress
    // lines when stderr is not a terminal.
    let pigeons = fixture("pigeons.kif");
    let pigeons = pigeons.to_string_lossy();
    let (code, stdout, stderr) = gdlc(&[
        "prove",
        &pigeons,
        "--formula",
        PIGEONS,
        "--time-limit",
        "0.2",
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(
            r#""outcome":"not-attempted","reason":"solving passed the time limit of 0.2 s""#
        ),
        "{stdout}"
    );
    assert!(stdout.contains(r#""status":"timed-out""#), "{stdout}");
    assert_eq!(stderr, "");
    let (code, stdout, _) = gdlc(&[
        "prove",
        &pigeons,
        "--formula",
        PIGEONS,
        "--time-limit",
        "0.2",
    ]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("1 property not attempted: solving passed the time limit of 0.2 s"),
        "{stdout}"
    );
    for bad in ["-1", "nan", "inf"] {
        let option = format!("--time-limit={bad}");
        let (code, _, stderr) = gdlc(&["prove", &pigeons, &option]);
        assert_eq!(code, 1, "{bad}");
        assert!(stderr.contains("invalid --time-limit"), "{stderr}");
    }
}

#[test]
fn static_relations_are_unfolded_and_projected() {
    // `line` joins three cells through the static `same/3`: unfolded, each cell's piece
    // is projected away with its `bit` literal, and `same` is no longer needed.
    let game = load(&fixture("lines.kif"));
    let report = prove(&game, &[Class::Functionals, Class::Goals], &[]);
    assert_eq!(outcome(&report, "zero-sum"), &Outcome::Proved);
    assert_eq!(outcome(&report, "unique goal values"), &Outcome::Proved);
    let asp = AspGame::new(&game.front.rules, &game.ir, &game.file.name);
    let target = parse(
        &game,
        "(=> terminal (exists ((?r (set white black))) (goal ?r 50)))",
    );
    let program = asp.program(&Request {
        title: "unfolding".into(),
        start: Start::Generated,
        horizon: 1,
        targets: vec![&target],
        assumptions: Vec::new(),
    });
    let line: Vec<&str> = program
        .text
        .lines()
        .filter(|l| l.starts_with("line("))
        .collect();
    assert_eq!(line.len(), 1, "{}", program.text);
    assert!(!line[0].contains("same("), "{}", line[0]);
    assert!(line[0].contains("_e"), "{}", line[0]);
    assert!(!program.text.contains("same("), "{}", program.text);
    check_goals_against_interpreter(&fixture("lines.kif"), &[], 200);
}

#[test]
fn domain_guards_bound_by_the_formula_are_left_out() {
    // The move domain of `paths.kif` has a million terms; playability and turn-taking
    // bind the move with `legal` itself, so no run grounds the domain.
    let game = load(&fixture("paths.kif"));
    let report = prove(&game, &[Class::Legals], &[]);
    assert_eq!(outcome(&report, "playability"), &Outcome::Proved);
    assert_eq!(outcome(&report, "turn-taking"), &Outcome::Proved);
    for run in &report.runs {
        assert!(run.ground_atoms < 10_000, "{run:?}");
    }
}

#[test]
fn quarto_invariants_of_the_paper() {
    let Some(path) = common::game_path("quarto.kif") else {
        return;
    };
    let game = load(&path);
    // Persistence of placed pieces: every cell holding a piece keeps it.
    let placed = "(forall ((?x ?y (domain true 0/cell.0)) (?p (domain true 0/pool.0))) \
                  (=> (true (cell ?x ?y ?p)) (next (true (cell ?x ?y ?p)))))";
    let mut formulas = vec![placed.to_owned()];
    // The same for a few single cells and pieces, as ground persistence formulas.
    for (x, y, p) in [(1, 1, "p0000"), (2, 3, "p1010"), (4, 4, "p1111")] {
        formulas.push(format!(
            "(=> (true (cell {x} {y} {p})) (next (true (cell {x} {y} {p}))))"
        ));
    }
    let texts: Vec<&str> = formulas.iter().map(String::as_str).collect();
    let report = prove(&game, &[Class::Functionals], &texts);
    for name in [
        "at most one ?x1 in (selected ?x1)",
        "exactly one ?x3 in (cell ?x1 ?x2 ?x3) per ?x1 ?x2",
        "exactly one control fluent of (selectcontrol white) (selectcontrol black) (placecontrol white) (placecontrol black)",
    ] {
        assert_eq!(outcome(&report, name), &Outcome::Proved, "{name}");
    }
    // A functional that does not hold initially: the pool holds 16 pieces.
    assert_eq!(
        outcome(&report, "at most one ?x1 in (pool ?x1)"),
        &Outcome::FalseInitially
    );
    for verdict in report
        .verdicts
        .iter()
        .filter(|v| v.property.class == Class::Formulas)
    {
        assert_eq!(
            verdict.outcome,
            Outcome::Proved,
            "{}",
            verdict.property.formula
        );
    }
}

#[test]
fn quarto_goals_are_proved_and_hold() {
    // The goal step that once stalled (the static `set/4` joining four cells): all three
    // goal properties are proved, and they hold along random playouts.
    let Some(path) = common::game_path("quarto.kif") else {
        return;
    };
    let report = check_goals_against_interpreter(
        &path,
        &["zero-sum", "unique goal values", "monotonic goal values"],
        30,
    );
    for run in &report.runs {
        assert_ne!(run.status, RunStatus::TimedOut, "{run:?}");
    }
}

#[test]
fn tictactoe_legals() {
    let Some(path) = common::game_path("tictactoe.kif") else {
        return;
    };
    let game = load(&path);
    let report = prove(&game, &[Class::Functionals, Class::Legals], &[]);
    assert_eq!(outcome(&report, "playability"), &Outcome::Proved);
    assert_eq!(outcome(&report, "turn-taking"), &Outcome::Proved);
}

/// A small deterministic random number generator (xorshift), for playouts.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Checks the persistence verdicts of a game against the interpreter: a proved
/// `f stays true` (false) is never broken along random playouts, and a
/// `false-initially` one is broken by some joint move from the initial state.
fn check_persistence_against_interpreter(path: &std::path::Path, playouts: usize) {
    use gdlc_runtime::Game;
    let game = load(path);
    let report = prove(&game, &[Class::Functionals, Class::Persistence], &[]);
    let mut interp = gdlc::interp::Interpreter::new(&game.front).expect("interpreter");
    // (fluent, stays true?) → outcome
    let mut claims = Vec::new();
    for verdict in report
        .verdicts
        .iter()
        .filter(|v| v.property.class == Class::Persistence)
    {
        let (fluent, positive) = if let Some(f) = verdict.property.name.strip_suffix(" stays true")
        {
            (f.to_owned(), true)
        } else if let Some(f) = verdict.property.name.strip_suffix(" stays false") {
            (f.to_owned(), false)
        } else {
            panic!("unexpected persistence property {}", verdict.property.name)
        };
        claims.push((fluent, positive, verdict.outcome.clone()));
    }
    assert!(!claims.is_empty());
    let broken = |before: &[String], after: &[String], fluent: &str, positive: bool| {
        let was = before.iter().any(|f| f == fluent);
        let is = after.iter().any(|f| f == fluent);
        if positive { was && !is } else { !was && is }
    };
    // All joint moves from the initial state.
    let initial = interp.initial_state();
    let initial_text = interp.state_to_kif(&initial);
    let mut successors = Vec::new();
    if !interp.is_terminal(&initial) {
        let mut per_role = Vec::new();
        for role in 0..interp.num_roles() {
            let mut moves = Vec::new();
            interp.legal_moves(&initial, role, &mut moves);
            per_role.push(moves);
        }
        let mut index = vec![0usize; per_role.len()];
        'joint: loop {
            let joint: Vec<_> = index.iter().zip(&per_role).map(|(&i, m)| m[i]).collect();
            let next = interp.next_state(&initial, &joint);
            successors.push(interp.state_to_kif(&next));
            for k in (0..index.len()).rev() {
                index[k] += 1;
                if index[k] < per_role[k].len() {
                    continue 'joint;
                }
                index[k] = 0;
            }
            break;
        }
    }
    for (fluent, positive, outcome) in &claims {
        if *outcome == Outcome::FalseInitially {
            assert!(
                successors
                    .iter()
                    .any(|s| broken(&initial_text, s, fluent, *positive)),
                "{fluent} (stays {positive}) is reported false initially but no first move breaks it"
            );
        }
    }
    // Random playouts.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..playouts {
        let mut state = interp.initial_state();
        let mut text = interp.state_to_kif(&state);
        for _ in 0..200 {
            if interp.is_terminal(&state) {
                break;
            }
            let mut joint = Vec::new();
            for role in 0..interp.num_roles() {
                let mut moves = Vec::new();
                interp.legal_moves(&state, role, &mut moves);
                assert!(!moves.is_empty(), "a role without legal moves");
                joint.push(moves[rng.below(moves.len())]);
            }
            let next = interp.next_state(&state, &joint);
            let next_text = interp.state_to_kif(&next);
            for (fluent, positive, outcome) in &claims {
                if *outcome == Outcome::Proved {
                    assert!(
                        !broken(&text, &next_text, fluent, *positive),
                        "proved: {fluent} stays {positive}, but a playout breaks it"
                    );
                }
            }
            state = next;
            text = next_text;
        }
    }
}

/// Proves the functionals and goals of a game, asserts that the properties named in
/// `proved` are proved, and checks every proved goal property along random playouts of
/// the interpreter: zero-sum and unique goal values in terminal states; monotonic: one
/// goal value per role in every state, never lower after a move.
fn check_goals_against_interpreter(
    path: &std::path::Path,
    proved: &[&str],
    playouts: usize,
) -> Report {
    use gdlc_runtime::Game;
    let game = load(path);
    let report = prove(&game, &[Class::Functionals, Class::Goals], &[]);
    for name in proved {
        assert_eq!(outcome(&report, name), &Outcome::Proved, "{name}");
    }
    let holds = |name: &str| {
        report
            .verdicts
            .iter()
            .any(|v| v.property.name == name && v.outcome == Outcome::Proved)
    };
    let (zero_sum, unique, monotonic) = (
        holds("zero-sum"),
        holds("unique goal values"),
        holds("monotonic goal values"),
    );
    let mut interp = gdlc::interp::Interpreter::new(&game.front).expect("interpreter");
    let roles = interp.num_roles();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..playouts {
        let mut state = interp.initial_state();
        let mut before: Option<Vec<u8>> = None;
        for _ in 0..200 {
            let terminal = interp.is_terminal(&state);
            let goals: Vec<_> = (0..roles).map(|r| interp.goal(&state, r)).collect();
            if monotonic || (terminal && unique) {
                assert!(goals.iter().all(Result::is_ok), "{goals:?}");
            }
            if terminal && zero_sum && goals.iter().all(Result::is_ok) {
                let sum: u32 = goals.iter().flatten().map(|&v| u32::from(v)).sum();
                assert_eq!(sum, 100, "{goals:?}");
            }
            if monotonic {
                let now: Vec<u8> = goals.iter().flatten().copied().collect();
                if let Some(before) = &before {
                    assert!(
                        before.iter().zip(&now).all(|(b, n)| b <= n),
                        "{before:?} {now:?}"
                    );
                }
                before = Some(now);
            }
            if terminal {
                break;
            }
            let mut joint = Vec::new();
            for role in 0..roles {
                let mut moves = Vec::new();
                interp.legal_moves(&state, role, &mut moves);
                assert!(!moves.is_empty(), "a role without legal moves");
                joint.push(moves[rng.below(moves.len())]);
            }
            state = interp.next_state(&state, &joint);
        }
    }
    report
}

#[test]
fn persistence_agrees_with_the_interpreter() {
    check_persistence_against_interpreter(&fixture("chain.kif"), 20);
    check_persistence_against_interpreter(&fixture("counter.kif"), 20);
    for name in ["tictactoe.kif", "connect4.kif", "endgame.kif"] {
        if let Some(path) = common::game_path(name) {
            check_persistence_against_interpreter(&path, 100);
        }
    }
}

/// The games of the paper's Figure 3 (in the corpus).
const FIGURE_3: [&str; 19] = [
    "3pttc",
    "bidding-tictactoe",
    "breakthrough",
    "capture_the_king",
    "catcha_mouse",
    "cephalopodmicro",
    "checkers",
    "chinesecheckers6",
    "chomp",
    "connect4",
    "endgame",
    "knightfight",
    "kriegtictactoe",
    "othello-comp2007",
    "pawn_whopping",
    "quarto",
    "smallest",
    "tictactoe",
    "tttcc4",
];

/// Every proved goal and persistence property of every Figure 3 game holds along random
/// playouts, and every persistence property false initially is broken by a first move.
/// Minutes in a release build: `cargo test --release -p gdlc --test prove -- --ignored`.
#[test]
#[ignore = "minutes; run in release with --ignored"]
fn figure_3_verdicts_agree_with_the_interpreter() {
    for name in FIGURE_3 {
        let Some(path) = common::game_path(&format!("{name}.kif")) else {
            return;
        };
        eprintln!("{name}");
        check_goals_against_interpreter(&path, &[], 20);
        check_persistence_against_interpreter(&path, 20);
    }
}

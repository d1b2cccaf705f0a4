//! The xtask commands end to end, run as the built `xtask` binary.
//!
//! `verify_representative_games` is the CI check of the Rust backend: it compiles a
//! small representative subset — the team's tictactoe and nim, and from the corpus
//! (`$GDLC_GAMES`, default `../shared/games`) tictactoe, connect4, blocker
//! (simultaneous moves), kriegtictactoe and montyhall (GDL-II: `sees`, `random`) — and
//! compares every compiled reasoner with the interpreter (perft to the automatic depth,
//! seeded playouts). It builds gdlc and the reasoners once in the scratch workspace
//! (`$CARGO_TARGET_DIR/verify` or `target/verify`), later runs are incremental.
//! Without the corpus it verifies the team's games only and says so.
//! `generated_crates_are_fresh` is `cargo xtask codegen --check`.
//!
//! `bench_measures_and_reports_failed_games` runs `cargo xtask bench` for a fraction of
//! a second on the team's tictactoe and a game gdlc rejects: the first gets its row
//! with every figure (generated, hand-written, Prolog when `swipl` is installed), the
//! second a failed row, and the results are written all the same. It builds gdlc, the
//! game's crate and a driver in release mode in the bench's scratch workspace
//! (`$CARGO_TARGET_DIR/bench/workspace` or `target/bench/workspace`), incremental
//! after the first run. `bench_refuses_bad_input` needs no build.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("GDLC_GAMES") {
        Some(dir) => PathBuf::from(dir),
        None => workspace().join("../shared/games"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("GDLC_REQUIRE_CORPUS").is_none_or(|v| v != "1"),
            "corpus not found at {} and GDLC_REQUIRE_CORPUS=1",
            dir.display()
        );
        println!(
            "corpus not found at {} (set GDLC_GAMES); skipping its games",
            dir.display()
        );
        None
    }
}

fn xtask(args: &[&str], files: &[PathBuf]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .args(files)
        .output()
        .expect("run xtask")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh directory for this test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
}

#[test]
fn verify_representative_games() {
    let mut files = vec![
        workspace().join("games/tictactoe.kif"),
        workspace().join("games/nim.kif"),
        // The ground backend's keep masks (the frame axiom "not touched by the move").
        workspace().join("games/breakthrough.kif"),
        // Fluents too many for a dense state, few reachable: the ground backend.
        workspace().join("gdlc/tests/ground/rotation.kif"),
        // The same, too large to ground: the join backend with listed fluents.
        workspace().join("gdlc/tests/plan/sorting.kif"),
        // Projected rules and goals as a program: the ground backend.
        workspace().join("gdlc/tests/ground/marks.kif"),
        // `next` instances under one move as keyed programs: the ground backend.
        workspace().join("gdlc/tests/ground/teleport.kif"),
        // Demand guards: atoms only the player in control reads.
        workspace().join("gdlc/tests/ground/convert.kif"),
        // Aliases and duplicates replaced by the grounding's simplification, not
        // across phases.
        workspace().join("gdlc/tests/ground/lines.kif"),
        workspace().join("gdlc/tests/ground/phases.kif"),
        // Frame rules with an instance per move and cell: ground past 400,000 instances.
        workspace().join("gdlc/tests/ground/frames.kif"),
        // A state laid out with numbers by value (not text order): states as text sorted.
        workspace().join("gdlc/tests/ground/wide.kif"),
        // Chains of move-dependent atoms under few moves, in those moves' arms.
        workspace().join("gdlc/tests/ground/flips.kif"),
        // A word-parallel family under its demand guard (the player in control).
        workspace().join("gdlc/tests/ground/tokens.kif"),
    ];
    if let Some(dir) = corpus() {
        for game in [
            "tictactoe.kif",
            "connect4.kif",
            "blocker.kif",
            "kriegtictactoe.kif",
            "montyhall.kif",
            // Keyed programs, nested guards: the ground backend.
            "checkers.kif",
            // Goals as a forward program (piece counts; a negation deferred).
            "reversi.kif",
            // Shared conjunctions ("has a legal move" repeats `legal`), projected.
            "pacman3p.kif",
            // Code past the default budget, ground under the budget measured against
            // the join backend's work.
            "god.kif",
            // `next` facts (a next state computed at compile time) and left recursion.
            "test/test_distinct_beginning_rule.kif",
            "test/test_case_5e.kif",
        ] {
            files.push(dir.join(game));
        }
    }
    let output = xtask(&["verify", "--playouts", "100"], &files);
    let stdout = text(&output.stdout);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "verify failed:\n{stdout}\n{}",
        text(&output.stderr)
    );
    let passed = stdout.lines().filter(|l| l.starts_with("PASS ")).count();
    assert_eq!(passed, files.len(), "{stdout}");
}

/// The join backend stays checked on games the ground backend would take.
#[test]
fn verify_the_join_backend_on_groundable_games() {
    let mut files = vec![
        workspace().join("games/tictactoe.kif"),
        // Listed fluents (a fluent too large for a dense state).
        workspace().join("gdlc/tests/ground/rotation.kif"),
        // Right-linear recursion over a cyclic graph: a work list that meets its start.
        workspace().join("gdlc/tests/plan/walk.kif"),
        // Recursive demand modes: right-linear over cycles, left-linear, every column
        // bound, and non-linear (tabled, evaluations that must repeat).
        workspace().join("gdlc/tests/plan/rays.kif"),
        // A call with too many heads to copy its caller's continuation: its answers
        // gathered in a buffer.
        workspace().join("gdlc/tests/plan/gathered.kif"),
        // Measured planning materialises a layer the threshold plan puts on demand.
        workspace().join("gdlc/tests/plan/flips.kif"),
        // A recursive layer from its exit rules; a wide lookup read from a copy of the
        // bits in another column order.
        workspace().join("gdlc/tests/plan/walkers.kif"),
        // Measured planning puts small layers that read demand layers on demand.
        workspace().join("gdlc/tests/plan/ladder.kif"),
        // Word closures: runs along a last column of 7 ranks, fields across words.
        workspace().join("gdlc/tests/plan/beams.kif"),
        // Walks inlined: a ring of 70 cells, keys and answers past the stack's room.
        workspace().join("gdlc/tests/plan/track.kif"),
        // Random moves as the k-th set bit of a role's range of `legal`, laid out in
        // text order (squares 1..12 by name, roles against their order).
        workspace().join("gdlc/tests/plan/relay.kif"),
        // A relation copied into another in another column order, bit by bit through
        // a constant table.
        workspace().join("gdlc/tests/plan/mirror.kif"),
        // Static rows looked up by their key (every key, some keys) or scanned.
        workspace().join("gdlc/tests/plan/lookups.kif"),
        // Rules ending in literals whose bindings the head does not read: the first
        // match is enough.
        workspace().join("gdlc/tests/plan/tails.kif"),
    ];
    if let Some(dir) = corpus() {
        for game in [
            "connect4.kif",
            "kriegtictactoe.kif",
            "test/test_case_5e.kif",
        ] {
            files.push(dir.join(game));
        }
    }
    let output = xtask(&["verify", "--playouts", "50", "--backend", "join"], &files);
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "verify failed:\n{stdout}\n{}",
        text(&output.stderr)
    );
    let passed = stdout.lines().filter(|l| l.starts_with("PASS ")).count();
    assert_eq!(passed, files.len(), "{stdout}");
}

#[test]
fn verify_reports_missing_and_invalid_games() {
    let dir = scratch("verify-bad");
    let invalid = dir.join("invalid.kif");
    std::fs::write(&invalid, "(role x)\n(<= (p ?x) (not (q ?x)))\n").expect("write");
    let missing = dir.join("missing.kif");
    let output = xtask(&["verify"], &[invalid.clone(), missing.clone()]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "SKIP {}: not valid GDL: error[unsafe]",
            invalid.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "FAIL {}: error[io]: cannot read",
            missing.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("verified 2 game(s): 0 passed, 1 failed, 1 skipped"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_and_perft_refuse_bad_input() {
    let dir = scratch("compile-bad");
    let invalid = dir.join("invalid.kif");
    std::fs::write(&invalid, "(role x)\n(<= (p ?x) (not (q ?x)))\n").expect("write");
    let out = dir.join("out");
    let output = xtask(
        &["compile", "--out", out.to_str().expect("utf-8")],
        std::slice::from_ref(&invalid),
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[unsafe]"), "{stderr}");
    assert!(stderr.contains("invalid.kif:2:8"), "{stderr}");
    assert!(!out.exists(), "nothing is written for an invalid game");

    let output = xtask(&["compile"], &[dir.join("missing.kif")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("cannot read"));

    let output = xtask(&["perft"], &[invalid, PathBuf::from("2")]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is not valid GDL"), "{stderr}");
    assert!(output.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generated_crates_are_fresh() {
    let output = xtask(&["codegen", "--check"], &[]);
    assert!(
        output.status.success(),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

/// The fields of a CSV line (no quoted commas in the lines read here).
fn csv_fields(line: &str) -> Vec<&str> {
    line.split(',').collect()
}

#[test]
fn bench_measures_and_reports_failed_games() {
    let dir = scratch("bench");
    let broken = dir.join("broken.kif");
    std::fs::write(&broken, "(role x)\n(<= (p ?x) (not (q ?x)))\n").expect("write");
    let out = dir.join("results");
    let games = format!("tictactoe,{}", broken.display());
    let output = xtask(
        &[
            "bench",
            "--games",
            &games,
            "--seconds",
            "0.2",
            "--check-playouts",
            "2",
            "--out",
            out.to_str().expect("utf-8"),
        ],
        &[],
    );
    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    println!("{stdout}\n{stderr}");
    assert_eq!(output.status.code(), Some(1), "a game failed: exit 1");
    assert!(stderr.contains("1 game(s) failed"), "{stderr}");

    let markdown = std::fs::read_to_string(out.join("results.md")).expect("results.md");
    let csv = std::fs::read_to_string(out.join("results.csv")).expect("results.csv");
    let svg = std::fs::read_to_string(out.join("ratios.svg")).expect("ratios.svg");

    let row = markdown
        .lines()
        .find(|l| l.starts_with("| tictactoe (team) | `games/tictactoe.kif` |"))
        .unwrap_or_else(|| panic!("no tictactoe row in\n{markdown}"));
    assert!(row.contains("| 285,000‡ |"), "{row}");
    assert!(
        row.starts_with("| tictactoe (team) | `games/tictactoe.kif` | PASS |"),
        "checked against the interpreter: {row}"
    );
    assert!(
        stdout.contains("PASS "),
        "the check's verify line: {stdout}"
    );
    assert!(markdown.contains("- command: `cargo xtask bench --games tictactoe,"));
    assert!(markdown.contains("| broken | `"), "{markdown}");
    assert!(
        markdown.contains("- broken: gdlc: error[unsafe]"),
        "{markdown}"
    );

    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    let header = csv_fields(lines[0]);
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let tictactoe = csv_fields(lines[1]);
    assert_eq!(tictactoe[0], "tictactoe (team)");
    let positive = |name: &str| {
        let value: f64 = tictactoe[column(name)]
            .parse()
            .unwrap_or_else(|_| panic!("{name} is not a number in {}", lines[1]));
        assert!(value > 0.0, "{name} = {value}");
    };
    for name in [
        "gdlc_seconds",
        "rustc_seconds",
        "generated_playouts_per_second",
        "generated_states_per_second",
        "reference_playouts_per_second",
        "generated_over_reference",
        "generated_over_target",
    ] {
        positive(name);
    }
    if std::process::Command::new("swipl")
        .arg("--version")
        .output()
        .is_ok()
    {
        positive("prolog_playouts_per_second");
        positive("generated_over_prolog");
    } else {
        assert!(
            markdown.contains("swipl not installed (apt-get install swi-prolog-nox)"),
            "{markdown}"
        );
        assert_eq!(tictactoe[column("prolog_playouts_per_second")], "");
    }
    assert_eq!(tictactoe[column("propnet_target_for")], "corpus variant");
    assert_eq!(tictactoe[column("checked")], "pass");
    assert!(lines[2].starts_with("broken,file,"), "{}", lines[2]);
    assert_eq!(csv_fields(lines[2])[column("checked")], "", "not checked");
    assert_eq!(
        csv_fields(lines[2])[column("generated_playouts_per_second")],
        ""
    );

    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.contains("tictactoe (team)"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_refuses_bad_input() {
    let dir = scratch("bench-bad");
    let out = dir.join("results");
    let out_arg = out.to_str().expect("utf-8").to_owned();
    // A corpus of one game, so that the messages do not depend on ../shared.
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).expect("corpus dir");
    std::fs::copy(
        workspace().join("games/nim.kif"),
        corpus.join("othergame.kif"),
    )
    .expect("corpus game");
    let no_corpus = dir.join("no-corpus");
    let bench = |env_corpus: &Path, args: &[&str]| {
        let mut all = vec!["bench", "--out", &out_arg];
        all.extend(args.iter().copied());
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(&all)
            .env("GDLC_GAMES", env_corpus)
            .output()
            .expect("run xtask")
    };
    let output = bench(&no_corpus, &["--games", "nosuchgame"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: unknown game `nosuchgame`:")
            && stderr.contains("does not exist (set GDLC_GAMES)"),
        "{stderr}"
    );
    let output = bench(&no_corpus, &["--games", "corpus:othergame"]);
    assert!(
        text(&output.stderr).contains("cannot find game `corpus:othergame`"),
        "{}",
        text(&output.stderr)
    );
    for (args, expected) in [
        (
            vec!["--games", "nosuchgame"],
            "error: unknown game `nosuchgame`: neither",
        ),
        (
            vec!["--games", "team:blocker"],
            "error: unknown game `team:blocker`",
        ),
        (
            vec!["--games", "/no/such/game.kif"],
            "error: game file /no/such/game.kif does not exist",
        ),
        (vec!["--games", "tictactoe,"], "error: empty game name"),
        (
            vec!["--games", "tictactoe", "--seconds", "0"],
            "error: --seconds must be a positive number",
        ),
    ] {
        let output = bench(&corpus, &args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    assert!(!out.join("results.md").exists(), "nothing is measured");
    let _ = std::fs::remove_dir_all(&dir);
}

//! The `gdlc` command line, run as a process: `check`, `perft` and `playout`, their
//! output, exit codes (0 success, 1 reported failure, never 101 — a panic) and located
//! messages.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const VALID_GAME: &str = "\
(role you)
(init (state 0))
(<= (legal you proceed) (true (state 0)))
(<= (next (state 1)) (does you proceed))
(<= terminal (true (state 1)))
(goal you 100)
";

/// Invalid: an unsafe variable `?y` on line 3, column 20.
const INVALID_GAME: &str = "\
(role you)
(init (state 0))
(<= (legal you (go ?y)) (true (state 0)))
(<= (next (state 1)) (does you proceed))
(<= terminal (true (state 1)))
(goal you 100)
";

/// A temporary file, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(label: &str, text: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "gdlc-cli-test-{}-{n}-{label}.kif",
            std::process::id()
        ));
        std::fs::write(&path, text)
            .unwrap_or_else(|err| panic!("cannot write {}: {err}", path.display()));
        TempFile(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn gdlc<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let output: Output = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .output()
        .expect("the gdlc binary runs");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert_ne!(run.code, 101, "gdlc panicked:\n{}", run.stderr);
    assert!(
        !run.stderr.contains("panicked"),
        "gdlc panicked:\n{}",
        run.stderr
    );
    run
}

fn tictactoe() -> Option<PathBuf> {
    common::game_path("tictactoe.kif")
}

#[test]
fn check_valid_game() {
    let file = TempFile::new("valid", VALID_GAME);
    let run = gdlc([Path::new("check"), file.path()]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    assert!(
        run.stdout
            .contains("checked 1 file: 1 valid, 0 invalid (0 errors, 0 warnings)"),
        "stdout:\n{}",
        run.stdout
    );
}

#[test]
fn check_valid_corpus_game() {
    let Some(path) = tictactoe() else { return };
    let run = gdlc([Path::new("check"), &path]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    assert!(
        run.stdout.contains("checked 1 file: 1 valid, 0 invalid ("),
        "stdout:\n{}",
        run.stdout
    );
}

#[test]
fn check_warnings_do_not_fail_and_quiet_hides_them() {
    let text = VALID_GAME.replace("(goal you 100)", "(<= (goal you 100))");
    let file = TempFile::new("warning", &text);
    let run = gdlc([Path::new("check"), file.path()]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    assert!(
        run.stdout
            .contains("1 valid, 0 invalid (0 errors, 1 warning)"),
        "stdout:\n{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("warning[empty-body]"),
        "stderr:\n{}",
        run.stderr
    );
    let run = gdlc([Path::new("check"), Path::new("--quiet"), file.path()]);
    assert_eq!(run.code, 0);
    assert!(!run.stderr.contains("warning"), "stderr:\n{}", run.stderr);
}

#[test]
fn check_invalid_game_reports_location() {
    let file = TempFile::new("invalid", INVALID_GAME);
    let run = gdlc([Path::new("check"), file.path()]);
    assert_eq!(
        run.code, 1,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains("error[unsafe]"),
        "stderr:\n{}",
        run.stderr
    );
    let location = format!("┌─ {}:3:20", file.path().display());
    assert!(
        run.stderr.contains(&location),
        "no `{location}` in stderr:\n{}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains("checked 1 file: 0 valid, 1 invalid (1 error"),
        "stdout:\n{}",
        run.stdout
    );
}

#[test]
fn check_syntax_error_reports_line_and_column() {
    let file = TempFile::new("syntax", "(role a)\n(init (p 1)\n");
    let run = gdlc([Path::new("check"), file.path()]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("error[syntax]"),
        "stderr:\n{}",
        run.stderr
    );
    let location = format!("┌─ {}:2:1", file.path().display());
    assert!(
        run.stderr.contains(&location),
        "no `{location}` in stderr:\n{}",
        run.stderr
    );
}

#[test]
fn check_missing_file() {
    let missing =
        std::env::temp_dir().join(format!("gdlc-cli-test-{}-missing.kif", std::process::id()));
    let run = gdlc([Path::new("check"), &missing]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("cannot read"),
        "stderr:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&missing.display().to_string()),
        "stderr:\n{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("checked 1 file: 0 valid, 1 invalid"),
        "stdout:\n{}",
        run.stdout
    );
}

#[test]
fn check_several_files_counts_each() {
    let valid = TempFile::new("many-valid", VALID_GAME);
    let valid2 = TempFile::new("many-valid2", VALID_GAME);
    let invalid = TempFile::new("many-invalid", INVALID_GAME);
    let syntax = TempFile::new("many-syntax", "(role a))");
    let run = gdlc([
        Path::new("check"),
        valid.path(),
        invalid.path(),
        valid2.path(),
        syntax.path(),
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("checked 4 files: 2 valid, 2 invalid (2 errors, 0 warnings)"),
        "stdout:\n{}",
        run.stdout
    );
    assert!(run.stderr.contains(&invalid.path().display().to_string()));
    assert!(run.stderr.contains(&syntax.path().display().to_string()));
    assert!(!run.stderr.contains(&valid.path().display().to_string()));

    // All valid: exit 0.
    let run = gdlc([Path::new("check"), valid.path(), valid2.path()]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("checked 2 files: 2 valid, 0 invalid"),
        "stdout:\n{}",
        run.stdout
    );
}

#[test]
fn perft_tictactoe() {
    let Some(path) = tictactoe() else { return };
    let run = gdlc([Path::new("perft"), &path, Path::new("6")]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        ["1\t9", "2\t72", "3\t504", "4\t3024", "5\t15120", "6\t56160"]
    );
}

#[test]
fn perft_malformed_game() {
    let file = TempFile::new("perft-bad", "(role a)\n(init (p 1)\n");
    let run = gdlc([Path::new("perft"), file.path(), Path::new("2")]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "stdout:\n{}", run.stdout);
    assert!(
        run.stderr.contains("error[syntax]"),
        "stderr:\n{}",
        run.stderr
    );

    let file = TempFile::new("perft-invalid", INVALID_GAME);
    let run = gdlc([Path::new("perft"), file.path(), Path::new("2")]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "stdout:\n{}", run.stdout);
}

#[test]
fn perft_missing_file_and_bad_depth() {
    let missing =
        std::env::temp_dir().join(format!("gdlc-cli-test-{}-nofile.kif", std::process::id()));
    let run = gdlc([Path::new("perft"), &missing, Path::new("2")]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("cannot read"),
        "stderr:\n{}",
        run.stderr
    );
    let file = TempFile::new("perft-depth", VALID_GAME);
    let run = gdlc([Path::new("perft"), file.path(), Path::new("deep")]);
    assert_ne!(run.code, 0);
}

#[test]
fn perft_small_game() {
    let file = TempFile::new("perft-small", VALID_GAME);
    let run = gdlc([Path::new("perft"), file.path(), Path::new("3")]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    // One move, then terminal: a terminal state counts as one leaf at any depth.
    assert_eq!(
        run.stdout.lines().collect::<Vec<_>>(),
        ["1\t1", "2\t1", "3\t1"]
    );
}

/// Splits playout output into playouts (each a list of lines).
fn playouts(stdout: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    for line in stdout.lines() {
        if line.starts_with("playout\t") {
            out.push(Vec::new());
        }
        out.last_mut()
            .expect("output starts with a `playout` line")
            .push(line);
    }
    out
}

#[test]
fn playout_is_deterministic_and_ends_with_goals() {
    let Some(path) = tictactoe() else { return };
    let args = [
        Path::new("playout"),
        &path,
        Path::new("--seed"),
        Path::new("7"),
        Path::new("--count"),
        Path::new("2"),
    ];
    let run = gdlc(args);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    let again = gdlc(args);
    assert_eq!(run.stdout, again.stdout, "same seed, different playouts");
    let games = playouts(&run.stdout);
    assert_eq!(games.len(), 2, "stdout:\n{}", run.stdout);
    for (i, lines) in games.iter().enumerate() {
        let seed = 7 + i;
        assert_eq!(lines[0], format!("playout\t{}\tseed\t{seed}", i + 1));
        assert_eq!(lines[1], "roles\txplayer\toplayer");
        let last = lines.last().expect("non-empty");
        let goals: Vec<&str> = last.split('\t').collect();
        assert_eq!(goals[0], "goals", "last line: {last}");
        assert_eq!(goals.len(), 3);
        let values: Vec<u32> = goals[1..]
            .iter()
            .map(|g| g.parse().expect("numeric goal"))
            .collect();
        assert!(
            matches!(values.as_slice(), [100, 0] | [0, 100] | [50, 50]),
            "tictactoe goals {values:?}"
        );
        // Steps are numbered 1, 2, … and tictactoe ends within 5..=9 steps.
        let steps = &lines[2..lines.len() - 1];
        assert!((5..=9).contains(&steps.len()), "{} steps", steps.len());
        for (n, step) in steps.iter().enumerate() {
            let fields: Vec<&str> = step.split('\t').collect();
            assert_eq!(fields[0], (n + 1).to_string());
            assert_eq!(fields.len(), 3, "{step}");
        }
    }
    // Playout i uses seed + i.
    let other = gdlc([
        Path::new("playout"),
        &path,
        Path::new("--seed"),
        Path::new("8"),
    ]);
    assert_eq!(other.code, 0);
    assert_eq!(
        playouts(&other.stdout)[0][2..],
        games[1][2..],
        "seed 8 is the second playout of seed 7"
    );
}

#[test]
fn playout_with_moves_echoes_them() {
    let Some(path) = tictactoe() else { return };
    let run = gdlc([
        Path::new("playout"),
        &path,
        Path::new("--moves"),
        Path::new("(MARK 1 1) noop; noop (mark  2 2)"),
    ]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[2], "1\t(mark 1 1)\tnoop");
    assert_eq!(lines[3], "2\tnoop\t(mark 2 2)");
    assert!(lines.last().expect("output").starts_with("goals\t"));

    // A trailing `;` is allowed.
    let run = gdlc([
        Path::new("playout"),
        &path,
        Path::new("--moves"),
        Path::new("(mark 1 1) noop;"),
    ]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    assert_eq!(run.stdout.lines().nth(2), Some("1\t(mark 1 1)\tnoop"));
}

#[test]
fn playout_with_moves_to_the_end() {
    let Some(path) = tictactoe() else { return };
    let moves =
        "(mark 1 1) noop; noop (mark 2 1); (mark 1 2) noop; noop (mark 2 2); (mark 1 3) noop";
    let run = gdlc([
        Path::new("playout"),
        &path,
        Path::new("--moves"),
        Path::new(moves),
    ]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2 + 5 + 1, "stdout:\n{}", run.stdout);
    assert_eq!(lines[6], "5\t(mark 1 3)\tnoop");
    assert_eq!(lines[7], "goals\t100\t0");

    // A move after the end is rejected.
    let more = format!("{moves}; noop (mark 3 3)");
    let run = gdlc([
        Path::new("playout"),
        &path,
        Path::new("--moves"),
        Path::new(&more),
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("already over"),
        "stderr:\n{}",
        run.stderr
    );
}

#[test]
fn playout_with_illegal_move_names_role_and_location() {
    let Some(path) = tictactoe() else { return };
    let run = gdlc([
        Path::new("playout"),
        &path,
        Path::new("--moves"),
        Path::new("(mark 9 9) noop"),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("xplayer"), "stderr:\n{}", run.stderr);
    assert!(
        run.stderr.contains("--moves:1:1"),
        "stderr:\n{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "stdout:\n{}", run.stdout);

    // The same cell twice: the second role's move, in the second joint move.
    let text = "(mark 1 1) noop; noop (mark 1 1)";
    let run = gdlc([
        Path::new("playout"),
        &path,
        Path::new("--moves"),
        Path::new(text),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("oplayer"), "stderr:\n{}", run.stderr);
    assert!(
        run.stderr.contains("--moves:1:23"),
        "stderr:\n{}",
        run.stderr
    );
    assert!(run.stderr.contains("(mark 1 1)"), "stderr:\n{}", run.stderr);

    // A legal move of the wrong role.
    let run = gdlc([
        Path::new("playout"),
        &path,
        Path::new("--moves"),
        Path::new("noop (mark 1 1)"),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("xplayer"), "stderr:\n{}", run.stderr);
}

/// Runs `playout --moves TEXT` on `path` for each text: exit 1, and stderr contains
/// `expected`.
fn assert_moves_rejected(path: &Path, texts: &[&str], expected: &str) {
    for text in texts {
        let run = gdlc([
            Path::new("playout"),
            path,
            Path::new("--moves"),
            Path::new(text),
        ]);
        assert_eq!(run.code, 1, "{text:?} accepted");
        assert!(
            run.stderr.contains(expected),
            "{text:?}: stderr:\n{}",
            run.stderr
        );
    }
}

#[test]
fn playout_with_wrong_number_of_moves() {
    let Some(path) = tictactoe() else { return };
    assert_moves_rejected(
        &path,
        &[
            "(mark 1 1)",
            "(mark 1 1) noop noop",
            "(mark 1 1) noop; noop",
        ],
        "one move per role",
    );
}

#[test]
fn playout_with_malformed_moves() {
    let Some(path) = tictactoe() else { return };
    assert_moves_rejected(
        &path,
        &[
            "(mark 1",
            "(mark 1 1)) noop",
            "(mark ?x 1) noop",
            "\"x\" noop",
            "() noop",
        ],
        "--moves:",
    );
}

#[test]
fn playout_of_invalid_game_fails() {
    let file = TempFile::new("playout-invalid", INVALID_GAME);
    let run = gdlc([Path::new("playout"), file.path()]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("error[unsafe]"),
        "stderr:\n{}",
        run.stderr
    );
}

#[test]
fn playout_step_limit_is_an_error() {
    // A game that never ends.
    let text = "(role r)\n(init s)\n(legal r go)\n(<= (next s) (true s))\n(<= terminal (true t))\n(goal r 0)\n";
    let file = TempFile::new("endless", text);
    let run = gdlc([
        Path::new("playout"),
        file.path(),
        Path::new("--max-steps"),
        Path::new("10"),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("10 steps"), "stderr:\n{}", run.stderr);
}

#[test]
fn no_arguments_is_a_usage_error() {
    let run = gdlc(std::iter::empty::<&str>());
    assert_eq!(run.code, 2, "clap usage errors exit with 2");
    let run = gdlc(["check"]);
    assert_eq!(run.code, 2);
}

#[test]
fn playout_reports_a_missing_goal_without_failing() {
    // The goal holds in the initial state only, not in the terminal one.
    let text = "(role r)\n(init s)\n(legal r go)\n(<= (next t) (does r go))\n(<= terminal (true t))\n(<= (goal r 100) (true s))\n";
    let file = TempFile::new("no-goal", text);
    let run = gdlc([Path::new("playout"), file.path()]);
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    assert_eq!(
        run.stdout.lines().last(),
        Some("goals\tnone"),
        "stdout:\n{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("goal of role `r`"),
        "stderr:\n{}",
        run.stderr
    );
}

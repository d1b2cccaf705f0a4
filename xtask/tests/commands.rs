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
    ];
    if let Some(dir) = corpus() {
        for game in [
            "tictactoe.kif",
            "connect4.kif",
            "blocker.kif",
            "kriegtictactoe.kif",
            "montyhall.kif",
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

//! Helpers shared by the integration tests: where the corpus of public games is, and
//! loading a game through the front end.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use gdlc::SourceFile;
use gdlc::interp::Interpreter;

/// The corpus directory: `$GDLC_GAMES`, or `../../shared/games` from the crate.
pub fn corpus_path() -> PathBuf {
    match std::env::var_os("GDLC_GAMES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/games")),
    }
}

/// The corpus directory if it exists; otherwise prints why the caller skips and
/// returns `None` — or panics when `GDLC_REQUIRE_CORPUS=1` (CI: `cargo xtask test
/// --require-all`), so that a missing corpus cannot pass unnoticed there.
pub fn games_dir() -> Option<PathBuf> {
    let dir = corpus_path();
    if dir.is_dir() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("GDLC_REQUIRE_CORPUS").is_none_or(|v| v != "1"),
            "corpus not found at {} and GDLC_REQUIRE_CORPUS=1",
            dir.display()
        );
        println!(
            "corpus not found at {} (set GDLC_GAMES); skipping",
            dir.display()
        );
        None
    }
}

/// The path of a corpus game, e.g. `game_path("tictactoe.kif")` or
/// `game_path("test/test_case_1a.kif")`, or `None` (with the skip message) when the
/// corpus is absent.
pub fn game_path(name: &str) -> Option<PathBuf> {
    let path = games_dir()?.join(name);
    assert!(path.is_file(), "corpus game {} is missing", path.display());
    Some(path)
}

/// Reads a corpus game, or `None` when the corpus is absent.
pub fn game_source(name: &str) -> Option<SourceFile> {
    let path = game_path(name)?;
    Some(read_source(&path))
}

/// Reads a file as a [`SourceFile`], panicking with the path on failure.
pub fn read_source(path: &Path) -> SourceFile {
    SourceFile::read(path).unwrap_or_else(|d| panic!("cannot read {}: {d}", path.display()))
}

/// The `*.kif` files directly in `dir`, sorted.
pub fn kif_files(dir: &Path) -> Vec<PathBuf> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "kif"))
        .collect();
    files.sort();
    files
}

/// Runs the front end on `file` and builds the interpreter, panicking with the rendered
/// diagnostics if the game is not valid.
pub fn interpreter_for(file: &SourceFile) -> Interpreter {
    let front = gdlc::front_end(file);
    if !front.is_valid() {
        let rendered: String = front.diagnostics.iter().map(|d| d.render(file)).collect();
        panic!("{} is not valid:\n{rendered}", file.name);
    }
    Interpreter::new(&front)
        .unwrap_or_else(|d| panic!("interpreter for {}: {}", file.name, d.render(file)))
}

/// The interpreter of a corpus game, or `None` when the corpus is absent.
pub fn corpus_interpreter(name: &str) -> Option<Interpreter> {
    game_source(name).map(|file| interpreter_for(&file))
}

/// The interpreter of a game given as text.
pub fn interpreter_from_text(name: &str, text: &str) -> Interpreter {
    interpreter_for(&SourceFile::new(name, text))
}

/// Whether `swipl` (SWI-Prolog) can be run. If it cannot, prints that the calling test
/// skips and returns false — or panics with how to install it when
/// `GDLC_REQUIRE_SWIPL=1` (CI: nothing may skip there).
pub fn swipl_available() -> bool {
    let runs = std::process::Command::new("swipl")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if runs {
        return true;
    }
    assert!(
        std::env::var_os("GDLC_REQUIRE_SWIPL").is_none_or(|v| v != "1"),
        "swipl (SWI-Prolog) is needed (GDLC_REQUIRE_SWIPL=1) but could not be run: \
         install it (Debian/Ubuntu: apt-get install swi-prolog-nox)"
    );
    println!("swipl not installed: skipping this Prolog test");
    false
}

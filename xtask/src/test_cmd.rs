//! `cargo xtask test [-- ARGS]`: the project's test command.
//!
//! It runs `cargo test --workspace ARGS`, after saying on one line each what the tests
//! can use on this machine and what they skip without it:
//!
//! - the game corpus (`$GDLC_GAMES`, default `../shared/games` beside the repository):
//!   without it, the corpus suites run on the team's games only;
//! - SWI-Prolog (`swipl`): without it, the Prolog backend tests (`gdlc/tests/prolog.rs`)
//!   skip.
//!
//! `cargo test` captures what passing tests print, so a skip would otherwise go unseen.
//! With `GDLC_REQUIRE_CORPUS=1` or `GDLC_REQUIRE_SWIPL=1` in the environment (CI sets
//! both) a missing corpus or `swipl` is an error before anything runs, and the tests
//! themselves, which read the same variables, fail instead of skipping.

use std::path::PathBuf;
use std::process::Command;

use crate::bench::Places;

/// What the tests can use here.
struct Setup {
    corpus: PathBuf,
    corpus_found: bool,
    swipl: Option<String>,
}

impl Setup {
    fn here() -> Setup {
        let corpus = Places::here().corpus;
        Setup {
            corpus_found: corpus.is_dir(),
            corpus,
            swipl: crate::prolog::swipl_version().filter(|v| !v.is_empty()),
        }
    }

    /// One line per resource: found, or what is skipped and how to enable it.
    fn lines(&self) -> [String; 2] {
        let corpus = if self.corpus_found {
            format!("test setup: game corpus at {}", self.corpus.display())
        } else {
            format!(
                "test setup: game corpus not found at {}: corpus suites run on the team's games only (set GDLC_GAMES to run them all)",
                self.corpus.display()
            )
        };
        let swipl = match &self.swipl {
            Some(version) => format!("test setup: {version}"),
            None => "test setup: swipl not installed: the Prolog backend tests (gdlc/tests/prolog.rs) skip (apt-get install swi-prolog-nox to run them)".to_owned(),
        };
        [corpus, swipl]
    }
}

/// Whether the environment variable `name` is `1`.
fn required(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| v == "1")
}

/// Runs the tests; `Ok(false)` when cargo test failed.
pub fn test(args: &[String]) -> Result<bool, String> {
    let setup = Setup::here();
    for line in setup.lines() {
        eprintln!("{line}");
    }
    let mut missing = Vec::new();
    if required("GDLC_REQUIRE_CORPUS") && !setup.corpus_found {
        missing.push("the game corpus (GDLC_REQUIRE_CORPUS=1)");
    }
    if required("GDLC_REQUIRE_SWIPL") && setup.swipl.is_none() {
        missing.push("swipl (GDLC_REQUIRE_SWIPL=1)");
    }
    if !missing.is_empty() {
        return Err(format!("missing: {}", missing.join(", ")));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(crate::codegen::workspace_root())
        .args(["test", "--workspace"])
        .args(args);
    if setup.corpus_found {
        command.env("GDLC_GAMES", &setup.corpus);
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    Ok(status.success())
}

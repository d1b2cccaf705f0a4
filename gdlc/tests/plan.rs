//! The plan executor against the reference interpreter on every valid corpus game, the
//! test cases and the team's games: perft from the initial state and, along seeded
//! random playouts, the legal-move sets, terminal flags, goals, percepts and next
//! states must be identical.

mod common;

use std::path::Path;

use gdlc::analysis::analyze;
use gdlc::exec::Executor;
use gdlc::interp::Interpreter;
use gdlc_runtime::{CompareOptions, compare};

/// Valid games the analysis cannot bound (see `analysis.rs`).
const UNBOUNDED: &[&str] = &[];

/// Compares the executor of one game with the interpreter; `None` if the game is not
/// valid or not analysable.
fn agree(path: &Path, options: CompareOptions) -> Option<Result<gdlc_runtime::Agreement, String>> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    let file = common::read_source(path);
    let front = gdlc::front_end(&file);
    if !front.is_valid() || UNBOUNDED.contains(&name.as_str()) {
        return None;
    }
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{name}: {}", d.render(&file)));
    let plan = gdlc::plan::plan(&ir).unwrap_or_else(|d| panic!("{name}: {}", d.render(&file)));
    let mut reference = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
    let mut executor = Executor::new(&ir, &plan);
    Some(compare(&mut reference, &mut executor, options))
}

fn check_dir(dir: &Path, options: CompareOptions) -> usize {
    let mut failures = Vec::new();
    let mut agreed = 0;
    let only = std::env::var("GDLC_ONLY").ok();
    for path in common::kif_files(dir) {
        if only
            .as_ref()
            .is_some_and(|o| !path.to_string_lossy().contains(o.as_str()))
        {
            continue;
        }
        let started = std::time::Instant::now();
        let result = agree(&path, options);
        eprintln!(
            "{:>8.2}s {}",
            started.elapsed().as_secs_f64(),
            path.display()
        );
        match result {
            None => {}
            Some(Ok(_)) => agreed += 1,
            Some(Err(difference)) => failures.push(format!("{}: {difference}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{agreed} games agree in {}", dir.display());
    agreed
}

#[test]
fn executor_agrees_on_the_corpus() {
    let Some(dir) = common::games_dir() else {
        return;
    };
    let options = CompareOptions {
        perft_depth: 1,
        playouts: 2,
        max_steps: 40,
        seed: 1,
    };
    let agreed = check_dir(&dir, options);
    assert!(agreed >= 140, "only {agreed} corpus games compared");
    let tests = check_dir(&dir.join("test"), options);
    assert!(tests >= 17, "only {tests} test cases compared");
}

#[test]
fn executor_agrees_on_the_explain_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/explain");
    let options = CompareOptions {
        perft_depth: 3,
        playouts: 5,
        max_steps: 50,
        seed: 3,
    };
    assert!(check_dir(&dir, options) >= 4);
}

#[test]
fn executor_agrees_on_the_team_games() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
    let options = CompareOptions {
        perft_depth: 2,
        playouts: 3,
        max_steps: 200,
        seed: 7,
    };
    assert!(check_dir(&dir, options) >= 4);
}

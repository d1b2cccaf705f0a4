//! Compilation on the fly: rules that are not built in become a native worker process
//! (gdlc, then cargo), which answers the line protocol of `gdlc_search::worker`.

use std::path::PathBuf;
use std::time::Duration;

use gdlc_player::native::{Worker, build};
use gdlc_player::reasoner::Rules;

#[test]
fn rules_not_built_in_are_compiled_to_a_worker_that_searches() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/games/pennies.kif");
    let text = std::fs::read_to_string(&path).expect("the test game");
    let rules = Rules::parse("pennies", &text).expect("valid");
    assert_eq!(rules.builtin(), None);
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gdlc-player-cache");
    let built = build(rules.text(), rules.fingerprint(), &cache).expect("builds");
    assert!(built.binary.is_file(), "{}", built.binary.display());
    // Built before: cargo has nothing to do.
    let again = build(rules.text(), rules.fingerprint(), &cache).expect("builds");
    assert_eq!(again.binary, built.binary);

    let mut worker = Worker::spawn(&built.binary, 2).expect("starts");
    assert_eq!(worker.roles, ["left", "right"]);
    let (first, iterations) = worker
        .think(Duration::from_millis(100), Duration::from_secs(5), 0)
        .expect("a move");
    // A game of three steps: 100 ms of search runs many playouts.
    assert!(iterations > 10, "{iterations} playouts");
    assert!(
        first == "(show heads)" || first == "(show tails)",
        "{first}"
    );
    worker
        .advance(&["(show heads)".to_owned(), "(show tails)".to_owned()])
        .expect("legal");
    let error = worker
        .advance(&["(show edge)".to_owned(), "(show tails)".to_owned()])
        .expect_err("not legal");
    assert!(error.contains("not a legal move"), "{error}");
    let error = worker
        .advance(&["(show heads)".to_owned()])
        .expect_err("one move short");
    assert!(error.contains("expected 2 moves"), "{error}");
    // The worker goes on after refusing.
    let (second, _) = worker
        .think(Duration::from_millis(50), Duration::from_secs(5), 1)
        .expect("a move");
    assert!(second.starts_with("(show "), "{second}");
}

#[test]
fn perf_tests_run_natively_and_on_the_plan_executor_and_write_gdl_perf_results() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/games/pennies.kif");
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gdlc-player-cache");
    for native in [Some(cache.as_path()), None] {
        let outcome = gdlc_player::perf::run(&path, 1, native);
        let done = outcome.as_ref().expect("runs");
        // Pennies always lasts three steps.
        assert!(done.counts.rollouts > 0, "{done:?}");
        assert!(
            done.counts.state_changes >= 3 * done.counts.rollouts,
            "{done:?}"
        );
        assert_eq!(
            done.reasoner.contains("natively"),
            native.is_some(),
            "{}",
            done.reasoner
        );
        let text = gdlc_player::perf::result_text(&outcome);
        let keys: Vec<&str> = text.lines().filter_map(|l| l.split('=').next()).collect();
        assert_eq!(
            keys,
            [
                "version",
                "millisecondsTaken",
                "numStateChanges",
                "numRollouts"
            ]
        );
    }
    let missing = gdlc_player::perf::run(&PathBuf::from("/nonexistent.kif"), 1, None);
    assert!(gdlc_player::perf::result_text(&missing).contains("errorMessage=cannot read"));
}

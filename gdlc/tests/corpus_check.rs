//! Runs the front end over every game of the corpus (`GDLC_GAMES`, default
//! `../../shared/games`, and its `test/` directory) and compares a one-line-per-file
//! summary — valid or not, error codes, warning codes — with
//! `tests/corpus/summary.expected`. `UPDATE_EXPECT=1` rewrites the summary.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use gdlc::{Severity, SourceFile};

/// Sorted unique code names of the diagnostics of one severity, or `-`.
fn codes(diagnostics: &[gdlc::Diagnostic], severity: Severity) -> String {
    let names: BTreeSet<&str> = diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .map(|d| d.code.name())
        .collect();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.into_iter().collect::<Vec<_>>().join(",")
    }
}

fn summary_line(shown: &str, path: &Path) -> String {
    let file = match std::fs::read(path) {
        Ok(bytes) => SourceFile::new(shown, String::from_utf8_lossy(&bytes).into_owned()),
        Err(err) => return format!("{shown}\tunreadable: {err}"),
    };
    let front = gdlc::front_end(&file);
    let valid = if front.is_valid() { "valid" } else { "invalid" };
    let errors = codes(&front.diagnostics, Severity::Error);
    let warnings = codes(&front.diagnostics, Severity::Warning);
    format!("{shown}\t{valid}\t{errors}\t{warnings}")
}

#[test]
fn corpus_summary() {
    let Some(dir) = common::games_dir() else {
        return;
    };
    let mut lines = Vec::new();
    for path in common::kif_files(&dir) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        lines.push(summary_line(&name, &path));
    }
    for path in common::kif_files(&dir.join("test")) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        lines.push(summary_line(&format!("test/{name}"), &path));
    }
    let mut actual = lines.join("\n");
    actual.push('\n');
    expect_test::expect_file![concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/summary.expected"
    )]
    .assert_eq(&actual);
}

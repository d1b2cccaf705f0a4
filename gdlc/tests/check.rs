//! Golden diagnostics of the front end (parser and checker): every `tests/check/*.kif`
//! is run through [`gdlc::front_end`] and its rendered diagnostics are compared with the
//! `.expected` file next to it. `UPDATE_EXPECT=1` rewrites the expectations.

mod common;

use std::path::{Path, PathBuf};

use gdlc::SourceFile;

/// Renders every diagnostic of one fixture, as shown under the name `tests/check/<file>`.
fn render(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    let file = SourceFile::new(format!("tests/check/{name}"), text);
    let front = gdlc::front_end(&file);
    if front.diagnostics.is_empty() {
        return "no diagnostics\n".to_owned();
    }
    front.diagnostics.iter().map(|d| d.render(&file)).collect()
}

#[test]
fn golden_diagnostics() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/check"));
    let fixtures = common::kif_files(&dir);
    assert!(!fixtures.is_empty(), "no fixtures in {}", dir.display());
    for path in fixtures {
        let actual = render(&path);
        expect_test::expect_file![path.with_extension("expected")].assert_eq(&actual);
    }
}

/// Every fixture with one line removed: the checker never panics, and its output is
/// sorted by position and the same on a second run.
#[test]
fn line_deletions_are_checked_deterministically() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/check"));
    let fixtures = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()));
    for path in fixtures.filter_map(|entry| entry.ok().map(|entry| entry.path())) {
        if path.extension().is_none_or(|ext| ext != "kif") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for skip in 0..lines.len() {
            let kept: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, l)| *l)
                .collect();
            let file = SourceFile::new("variant.kif", kept.join("\n"));
            let front = gdlc::front_end(&file);
            let first = gdlc::check::check(&front.description, &front.rules);
            let second = gdlc::check::check(&front.description, &front.rules);
            assert_eq!(
                first,
                second,
                "{} without line {}",
                path.display(),
                skip + 1
            );
            let starts: Vec<usize> = first
                .iter()
                .map(|d| d.span.map_or(usize::MAX, |s| s.start))
                .collect();
            assert!(
                starts.is_sorted(),
                "{} without line {}: unsorted {starts:?}",
                path.display(),
                skip + 1
            );
            for diagnostic in &first {
                let _ = diagnostic.render(&file);
            }
        }
    }
}

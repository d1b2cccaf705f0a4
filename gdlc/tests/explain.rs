//! Golden dumps of the analysis stages and the plan (`gdlc explain`): for every game in
//! `tests/explain/*.kif` and the team's tictactoe, each stage's text is compared with
//! `tests/explain/<game>.<stage>`. `UPDATE_EXPECT=1` rewrites them. The dumps must also
//! be byte-identical when the analysis runs again.

mod common;

use std::path::PathBuf;

use gdlc::SourceFile;
use gdlc::explain::{Stage, explain};

fn games() -> Vec<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/explain"));
    let mut games = common::kif_files(&dir);
    games.push(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../games/tictactoe.kif"
    )));
    games
}

#[test]
fn golden_explain_dumps() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/explain"));
    for path in games() {
        let file = SourceFile::read(&path).unwrap_or_else(|d| panic!("{d}"));
        let front = gdlc::front_end(&file);
        assert!(front.is_valid(), "{} is not valid", path.display());
        let ir = gdlc::analysis::analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
        let again =
            gdlc::analysis::analyze(&gdlc::front_end(&file)).unwrap_or_else(|d| panic!("{d}"));
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (stage, extension) in [
            (Stage::Domains, "domains"),
            (Stage::Flat, "flat"),
            (Stage::Layers, "layers"),
        ] {
            let text = explain(&ir, stage);
            assert_eq!(
                text,
                explain(&again, stage),
                "{stem}: {extension} differs between runs"
            );
            expect_test::expect_file![dir.join(format!("{stem}.{extension}"))].assert_eq(&text);
        }
        let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
        let text = gdlc::explain::plan(&ir, &plan);
        let replanned = gdlc::planner::plan(&again).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(
            text,
            gdlc::explain::plan(&again, &replanned),
            "{stem}: plan differs between runs"
        );
        expect_test::expect_file![dir.join(format!("{stem}.plan"))].assert_eq(&text);
    }
}

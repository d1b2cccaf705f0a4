//! The games of a bench run: names and paths resolved to the team's or the corpus'
//! files (`team:NAME`, `corpus:NAME`), the default lists, and what each game is
//! compared with — its propnet target and hand-written reference.

use std::path::{Path, PathBuf};

use crate::codegen;

/// The default game list when the corpus is present.
pub const DEFAULT_GAMES: &str = "tictactoe,corpus:tictactoe,connectfour,corpus:connectfour,\
    connect4,breakthrough,corpus:breakthrough,blocker,checkers,skirmish,chess,\
    othello-comp2007,reversi,quarto,pentago,hex,amazons";

/// The default game list without the corpus: the team's games (`games/`), which every
/// clone has.
pub const TEAM_GAMES: &str = "tictactoe,connectfour,breakthrough,nim,chess";

/// Random playouts per second of the strongest public GDL reasoner (a propnet) on one
/// core, published for the files of the corpus (`../shared/games/<stem>.kif`).
pub const PROPNET_TARGETS: [(&str, f64); 10] = [
    ("tictactoe", 285_000.0),
    ("connectfour", 150_000.0),
    ("connect4", 84_000.0),
    ("breakthrough", 30_000.0),
    ("blocker", 415_000.0),
    ("skirmish", 1_900.0),
    ("reversi", 3_000.0),
    ("quarto", 12_000.0),
    ("pentago", 13_000.0),
    ("hex", 1_900.0),
];

/// Corpus games whose propnet could not be built within 120 s.
pub const NO_PROPNET: [&str; 4] = ["checkers", "chess", "othello-comp2007", "amazons"];

/// Where a game's rules come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The team's `games/<stem>.kif`.
    Team,
    /// The corpus' `<stem>.kif`.
    Corpus,
    /// Any other file.
    File,
}

impl Origin {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Origin::Team => "team",
            Origin::Corpus => "corpus",
            Origin::File => "file",
        }
    }
}

/// A game to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchGame {
    /// Its name in the results, e.g. `connectfour (team, 7×6)`.
    pub label: String,
    /// The absolute path of its rules.
    pub path: PathBuf,
    /// The path as shown: relative to the workspace root where possible.
    pub shown: String,
    /// Where it comes from.
    pub origin: Origin,
    /// The file's stem.
    pub stem: String,
}

/// The directories game names are looked up in.
#[derive(Clone, Debug)]
pub struct Places {
    /// The workspace root (paths are shown relative to it).
    pub workspace: PathBuf,
    /// The team's games (`games/`).
    pub team: PathBuf,
    /// The corpus (`$GDLC_GAMES`, default `../shared/games`).
    pub corpus: PathBuf,
}

impl Places {
    /// The places of this workspace.
    pub fn here() -> Places {
        let workspace = codegen::workspace_root();
        let corpus = match std::env::var_os("GDLC_GAMES") {
            Some(dir) => PathBuf::from(dir),
            None => workspace.join("../shared/games"),
        };
        Places {
            team: workspace.join("games"),
            corpus: codegen::absolute(&corpus).unwrap_or(corpus),
            workspace,
        }
    }
}

/// A board size to tell variants apart in labels, where the team's file and the
/// corpus' differ in it.
fn variant(stem: &str, origin: Origin) -> Option<&'static str> {
    match (stem, origin) {
        ("connectfour", Origin::Team) => Some("7×6"),
        ("connectfour", Origin::Corpus) => Some("8×6"),
        _ => None,
    }
}

/// Reads the `--games` list: comma-separated names (`NAME`, `team:NAME`,
/// `corpus:NAME`) or paths (with a `/` or ending in `.kif`), resolved against `places`.
/// Every game must exist, and none may be given twice.
pub fn parse_games(list: &str, places: &Places) -> Result<Vec<BenchGame>, String> {
    let mut games: Vec<BenchGame> = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(format!("empty game name in `{list}`"));
        }
        let game = resolve(item, places)?;
        if let Some(earlier) = games.iter().find(|g| g.path == game.path) {
            return Err(format!(
                "game `{item}` is given twice (it is {} again)",
                earlier.shown
            ));
        }
        games.push(game);
    }
    Ok(games)
}

/// One item of the game list.
fn resolve(item: &str, places: &Places) -> Result<BenchGame, String> {
    let corpus_missing = || {
        format!(
            "the corpus directory {} does not exist (set GDLC_GAMES)",
            places.corpus.display()
        )
    };
    let in_dir = |dir: &Path, name: &str| dir.join(format!("{name}.kif"));
    let path = if let Some(name) = item.strip_prefix("team:") {
        let path = in_dir(&places.team, name);
        if !path.is_file() {
            return Err(format!(
                "unknown game `{item}`: {} does not exist",
                path.display()
            ));
        }
        path
    } else if let Some(name) = item.strip_prefix("corpus:") {
        if !places.corpus.is_dir() {
            return Err(format!("cannot find game `{item}`: {}", corpus_missing()));
        }
        let path = in_dir(&places.corpus, name);
        if !path.is_file() {
            return Err(format!(
                "unknown game `{item}`: {} does not exist",
                path.display()
            ));
        }
        path
    } else if item.contains(['/', '\\']) || item.ends_with(".kif") {
        let path = PathBuf::from(item);
        if !path.is_file() {
            return Err(format!("game file {item} does not exist"));
        }
        path
    } else {
        let team = in_dir(&places.team, item);
        let corpus = in_dir(&places.corpus, item);
        if team.is_file() {
            team
        } else if corpus.is_file() {
            corpus
        } else if !places.corpus.is_dir() {
            return Err(format!(
                "unknown game `{item}`: {} does not exist and {}",
                team.display(),
                corpus_missing()
            ));
        } else {
            return Err(format!(
                "unknown game `{item}`: neither {} nor {} exists",
                team.display(),
                corpus.display()
            ));
        }
    };
    let path =
        codegen::absolute(&path).map_err(|e| format!("cannot resolve {}: {e}", path.display()))?;
    let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let same_dir = |dir: &Path| codegen::absolute(dir).is_ok_and(|dir| dir == parent);
    let origin = if same_dir(&places.team) {
        Origin::Team
    } else if same_dir(&places.corpus) {
        Origin::Corpus
    } else {
        Origin::File
    };
    let stem = codegen::game_stem(&path);
    let shown = codegen::relative_path(&places.workspace, &path)
        .unwrap_or_else(|| path.clone())
        .display()
        .to_string();
    let label = match (origin, variant(&stem, origin)) {
        (Origin::File, _) => stem.clone(),
        (origin, Some(size)) => format!("{stem} ({}, {size})", origin.as_str()),
        (origin, None) => format!("{stem} ({})", origin.as_str()),
    };
    Ok(BenchGame {
        label,
        path,
        shown,
        origin,
        stem,
    })
}

/// The game list to measure: `given`, else [`DEFAULT_GAMES`] when the corpus is there,
/// else [`TEAM_GAMES`] with a note saying why.
pub fn default_games(given: Option<&str>, places: &Places) -> (String, Option<String>) {
    match given {
        Some(list) => (list.to_owned(), None),
        None if places.corpus.is_dir() => (DEFAULT_GAMES.to_owned(), None),
        None => (
            TEAM_GAMES.to_owned(),
            Some(format!(
                "the game corpus is not at {} (set GDLC_GAMES to measure its games too): measuring the team's games ({TEAM_GAMES})",
                places.corpus.display()
            )),
        ),
    }
}

/// The propnet figure a game is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// Published random playouts/s; `corpus_variant` when this game's file is not the
    /// corpus file the figure was published for.
    Published {
        /// Random playouts per second.
        playouts_per_second: f64,
        /// Whether the figure is for the corpus file of the same name, not this one.
        corpus_variant: bool,
    },
    /// The propnet could not be built for the corpus file of this name.
    NoPropnet {
        /// Whether this game's file is not the corpus file.
        corpus_variant: bool,
    },
    /// No figure for this game.
    None,
}

impl Target {
    /// The target of `game`, found by its file's stem.
    pub fn of(game: &BenchGame) -> Target {
        let corpus_variant = game.origin != Origin::Corpus;
        if let Some(&(_, playouts_per_second)) =
            PROPNET_TARGETS.iter().find(|(stem, _)| *stem == game.stem)
        {
            Target::Published {
                playouts_per_second,
                corpus_variant,
            }
        } else if NO_PROPNET.contains(&game.stem.as_str()) {
            Target::NoPropnet { corpus_variant }
        } else {
            Target::None
        }
    }

    pub(super) fn playouts_per_second(self) -> Option<f64> {
        match self {
            Target::Published {
                playouts_per_second,
                ..
            } => Some(playouts_per_second),
            _ => None,
        }
    }

    pub(super) fn corpus_variant(self) -> bool {
        matches!(
            self,
            Target::Published {
                corpus_variant: true,
                ..
            } | Target::NoPropnet {
                corpus_variant: true
            }
        )
    }
}

/// The hand-written reference (`gdlc_benches::reference::NAMES`) whose rules are those
/// of `game`'s file, proven by `benches/tests/reference.rs`.
pub fn reference_for(game: &BenchGame) -> Option<&'static str> {
    match (game.stem.as_str(), game.origin) {
        ("tictactoe", Origin::Team | Origin::Corpus) => Some("tictactoe"),
        ("connectfour", Origin::Corpus) => Some("connectfour"),
        ("connectfour", Origin::Team) => Some("connectfour7"),
        ("breakthrough", Origin::Corpus) => Some("breakthrough"),
        ("breakthrough", Origin::Team) => Some("breakthrough-team"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(corpus: &Path) -> Places {
        let workspace = codegen::workspace_root();
        Places {
            team: workspace.join("games"),
            corpus: corpus.to_path_buf(),
            workspace,
        }
    }

    /// A corpus directory holding the given empty games.
    fn fake_corpus(name: &str, games: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-bench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create corpus");
        for game in games {
            std::fs::write(dir.join(format!("{game}.kif")), "(role x)\n").expect("write game");
        }
        dir
    }

    #[test]
    fn game_names_resolve_to_team_then_corpus_files() {
        let corpus = fake_corpus("names", &["tictactoe", "blocker", "connectfour"]);
        let places = places(&corpus);
        let games = parse_games(
            " tictactoe, corpus:tictactoe,blocker,team:connectfour,corpus:connectfour",
            &places,
        )
        .expect("games resolve");
        let summary: Vec<(&str, Origin, &str)> = games
            .iter()
            .map(|g| (g.label.as_str(), g.origin, g.stem.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                ("tictactoe (team)", Origin::Team, "tictactoe"),
                ("tictactoe (corpus)", Origin::Corpus, "tictactoe"),
                ("blocker (corpus)", Origin::Corpus, "blocker"),
                ("connectfour (team, 7×6)", Origin::Team, "connectfour"),
                ("connectfour (corpus, 8×6)", Origin::Corpus, "connectfour"),
            ]
        );
        assert_eq!(games[0].shown, "games/tictactoe.kif");
        assert_eq!(games[1].path, corpus.join("tictactoe.kif"));
        // A path is taken as it is; its origin is found from its directory.
        let by_path = corpus.join("blocker.kif").display().to_string();
        let games = parse_games(&format!("{by_path},games/nim.kif"), &places);
        // `games/nim.kif` is relative to the current directory (xtask's, in tests).
        let message = games.expect_err("relative to the current directory");
        assert!(
            message.contains("games/nim.kif does not exist"),
            "{message}"
        );
        let games = parse_games(&by_path, &places).expect("absolute path");
        assert_eq!(games[0].origin, Origin::Corpus);
        let _ = std::fs::remove_dir_all(&corpus);
    }

    #[test]
    fn bad_game_lists_are_refused_with_the_reason() {
        let corpus = fake_corpus("bad", &["blocker"]);
        let here = places(&corpus);
        let error = |list: &str| parse_games(list, &here).expect_err(list);
        assert!(error("nosuchgame").contains("unknown game `nosuchgame`: neither"));
        assert!(error("tictactoe,,blocker").contains("empty game name"));
        assert!(error("team:blocker").contains("unknown game `team:blocker`"));
        assert!(error("corpus:chess").contains("unknown game `corpus:chess`"));
        assert!(error("blocker,corpus:blocker").contains("given twice"));
        assert!(error("x/missing.kif").contains("game file x/missing.kif does not exist"));
        let absent = places(&corpus.join("absent"));
        let message = parse_games("blocker", &absent).expect_err("no corpus");
        assert!(
            message.contains("does not exist (set GDLC_GAMES)"),
            "{message}"
        );
        let _ = std::fs::remove_dir_all(&corpus);
    }

    #[test]
    fn targets_and_references_follow_the_file() {
        let game = |stem: &str, origin| BenchGame {
            label: stem.to_owned(),
            path: PathBuf::from(format!("/x/{stem}.kif")),
            shown: String::new(),
            origin,
            stem: stem.to_owned(),
        };
        assert_eq!(
            Target::of(&game("connectfour", Origin::Corpus)),
            Target::Published {
                playouts_per_second: 150_000.0,
                corpus_variant: false
            }
        );
        assert_eq!(
            Target::of(&game("connectfour", Origin::Team)),
            Target::Published {
                playouts_per_second: 150_000.0,
                corpus_variant: true
            }
        );
        assert_eq!(
            Target::of(&game("chess", Origin::Team)),
            Target::NoPropnet {
                corpus_variant: true
            }
        );
        assert_eq!(Target::of(&game("nim", Origin::Team)), Target::None);
        assert_eq!(
            reference_for(&game("connectfour", Origin::Team)),
            Some("connectfour7")
        );
        assert_eq!(
            reference_for(&game("breakthrough", Origin::Corpus)),
            Some("breakthrough")
        );
        assert_eq!(reference_for(&game("tictactoe", Origin::File)), None);
        assert_eq!(reference_for(&game("chess", Origin::Team)), None);
        for (name, _) in PROPNET_TARGETS {
            assert!(!NO_PROPNET.contains(&name));
        }
        for name in ["tictactoe", "connectfour7", "breakthrough-team"] {
            assert!(gdlc_benches::reference::NAMES.contains(&name));
        }
    }
}

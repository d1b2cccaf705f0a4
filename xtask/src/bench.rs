//! `cargo xtask bench [--games LIST] [--seconds N] [--seed N] [--out DIR]`: where gdlc
//! stands, game by game, against SWI-Prolog, the hand-written references and the
//! published propnet figures — in one run, one measurement at a time.
//!
//! For each game, sequentially:
//!
//! 1. **gdlc**: parse → check → analysis → plan → Rust emit (`gdlc::compile_rust`),
//!    timed in a release build of gdlc (the `gdlc-bench-compiler` tool, best of up to
//!    five runs within a second), which also writes the game's crate;
//! 2. **rustc**: `cargo build --release -p <game crate>` of that crate alone, timed,
//!    after its dependencies (`gdlc-runtime`) were built once for the whole run;
//! 3. **generated**: random playouts from the initial state for `--seconds` with
//!    `gdlc_runtime::simulate_for`, in a release build of a driver
//!    (`gdlc_benches::driver`) linked with the game's crate;
//! 4. **hand-written**: the same with the reference of `gdlc_benches::reference` that
//!    mirrors the file, where one exists (tictactoe, connect four, breakthrough; team
//!    and corpus files);
//! 5. **Prolog**: the same with the game's Prolog translation under `swipl`
//!    (`gdlc::emit::prolog`); without `swipl` the column stays empty and the run says
//!    so.
//!
//! Every row also gets the propnet target published for its corpus file (random
//! playouts/s, one core; see [`PROPNET_TARGETS`]) and the ratios generated / Prolog,
//! generated / hand-written and generated / target. A row whose rules are not that
//! corpus file (the team's files) shows the target marked as being for the corpus
//! variant.
//!
//! The builds happen in a scratch Cargo workspace (see `scratch.rs`; `<target>` is
//! `$CARGO_TARGET_DIR` or this workspace's `target`), kept between runs, with this
//! repository's release profile, so a debug build of xtask (`cargo xtask`) measures
//! release code:
//!
//! ```text
//! <target>/bench/workspace/
//!   Cargo.toml                 [workspace] members drivers/*; the release profile
//!   drivers/compiler/          gdlc-bench-compiler: gdlc (no default features), timed
//!   drivers/runtime/           gdlc-bench-runtime: builds gdlc-runtime and gdlc-benches
//!                              as the games and the driver need them, before any timing
//!   drivers/bench/             gdlc-bench-driver: gdlc-benches and the current game
//!                              (which makes the game's crate a member)
//!   generated/<stem>-<hash>.rs the compiler tool's output
//!   games/<stem>-<hash>/       the game crates (written only when gdlc succeeds)
//!   prolog/<stem>-<hash>/      the Prolog programs and driver
//!   logs/                      the last cargo output of each kind of build
//!   target/
//! ```
//!
//! The results go to `<target>/bench/` (or `--out`):
//! `results.md` (the table with the machine's facts), `results.csv` and `ratios.svg`
//! (a bar chart of the ratios, log scale). A progress bar on stderr ticks once per
//! phase; each finished row is printed.
//!
//! Games are names or paths (`--games tictactoe,corpus:connectfour,x/y.kif`): a name is
//! the team's `games/<name>.kif` when it exists, else the corpus'
//! `$GDLC_GAMES/<name>.kif` (default `../shared/games` beside the repository);
//! `team:NAME` and `corpus:NAME` choose explicitly. An unknown game is an error before
//! anything runs; a game that fails to compile or run is reported in its row, the
//! others still run, and the exit code is 1.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use gdlc::emit::prolog;
use gdlc_runtime::SimulationReport;
use indicatif::{ProgressBar, ProgressStyle};

use crate::codegen::{self, CrateFiles};
use crate::scratch::{self, Build, GameCrate, Limits, Scratch, write_file};

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

/// Steps per playout at most (as `cargo xtask rates`).
const MAX_STEPS: usize = 100_000;

/// Progress-bar ticks per game: gdlc, rustc, check, generated, hand-written, Prolog.
const PHASES: u64 = 6;

/// The options of `cargo xtask bench`.
#[derive(Clone, Debug)]
pub struct Options {
    /// Comma-separated games (`None`: [`DEFAULT_GAMES`]).
    pub games: Option<String>,
    /// Seconds of playouts per figure.
    pub seconds: f64,
    /// Seed of the random playouts.
    pub seed: u64,
    /// Seeded playouts of the check against the interpreter (0: no check).
    pub check_playouts: usize,
    /// Where the results go (`None`: `<target>/bench`).
    pub out: Option<PathBuf>,
    /// Other spellings measured after each game (`--spellings`, see
    /// [`crate::spellings`]).
    pub spellings: Vec<crate::spellings::Spelling>,
    /// The command line, as shown in the results.
    pub command_line: String,
}

// ---------------------------------------------------------------------------------
// The games.

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
    fn as_str(self) -> &'static str {
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

    fn playouts_per_second(self) -> Option<f64> {
        match self {
            Target::Published {
                playouts_per_second,
                ..
            } => Some(playouts_per_second),
            _ => None,
        }
    }

    fn corpus_variant(self) -> bool {
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

// ---------------------------------------------------------------------------------
// Results.

/// A measured rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Complete random playouts per second.
    pub playouts_per_second: f64,
    /// State changes per second.
    pub states_per_second: f64,
}

impl From<&SimulationReport> for Rate {
    fn from(report: &SimulationReport) -> Rate {
        Rate {
            playouts_per_second: report.playouts_per_second(),
            states_per_second: report.states_per_second(),
        }
    }
}

/// One game's results.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The game's name in the results.
    pub label: String,
    /// Its rules, as shown.
    pub rules: String,
    /// Where they come from.
    pub origin: Origin,
    /// The check against the interpreter: `Some(true)` passed, `Some(false)` failed
    /// (the reason is in `failures`), `None` not run.
    pub checked: Option<bool>,
    /// gdlc's time in seconds.
    pub gdlc_seconds: Option<f64>,
    /// rustc's time in seconds.
    pub rustc_seconds: Option<f64>,
    /// The release build of the driver binary linking the game's crate, in seconds.
    pub driver_seconds: Option<f64>,
    /// The generated reasoner.
    pub generated: Option<Rate>,
    /// The Prolog baseline.
    pub prolog: Option<Rate>,
    /// The hand-written reference's name and rate, where one exists.
    pub reference: Option<(String, Option<Rate>)>,
    /// The propnet target.
    pub target: Target,
    /// What failed, one line each (`rustc: …`).
    pub failures: Vec<String>,
    /// Remarks on the figures.
    pub notes: Vec<String>,
}

impl Row {
    fn new(game: &BenchGame) -> Row {
        Row {
            label: game.label.clone(),
            rules: game.shown.clone(),
            origin: game.origin,
            checked: None,
            gdlc_seconds: None,
            rustc_seconds: None,
            driver_seconds: None,
            generated: None,
            prolog: None,
            reference: reference_for(game).map(|name| (name.to_owned(), None)),
            target: Target::of(game),
            failures: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Notes that a timed build compiled `others` besides its crate.
    fn note_others(&mut self, what: &str, others: &[String]) {
        if !others.is_empty() {
            self.notes.push(format!(
                "the {what} time includes {} other crate(s) ({})",
                others.len(),
                others.join(", ")
            ));
        }
    }

    fn reference_rate(&self) -> Option<Rate> {
        self.reference.as_ref().and_then(|(_, rate)| *rate)
    }

    /// Generated playouts/s over Prolog's.
    pub fn over_prolog(&self) -> Option<f64> {
        ratio(self.generated, self.prolog.map(|r| r.playouts_per_second))
    }

    /// Generated playouts/s over the hand-written reference's.
    pub fn over_reference(&self) -> Option<f64> {
        ratio(
            self.generated,
            self.reference_rate().map(|r| r.playouts_per_second),
        )
    }

    /// Generated playouts/s over the propnet target.
    pub fn over_target(&self) -> Option<f64> {
        ratio(self.generated, self.target.playouts_per_second())
    }
}

fn ratio(generated: Option<Rate>, other: Option<f64>) -> Option<f64> {
    let generated = generated?.playouts_per_second;
    let other = other?;
    (other > 0.0).then(|| generated / other)
}

/// Facts about the run, printed above the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Facts {
    /// The command line.
    pub command: String,
    /// The date (UTC, `YYYY-MM-DD HH:MM`).
    pub date: String,
    /// The CPU model.
    pub cpu: String,
    /// Logical CPUs.
    pub cpus: usize,
    /// `rustc --version`.
    pub rustc: String,
    /// `swipl --version`, or `None` when it is not installed.
    pub swipl: Option<String>,
    /// Seconds of playouts per figure.
    pub seconds: f64,
    /// Seed of the playouts.
    pub seed: u64,
    /// Load averages (1 min) at the start and the end.
    pub load: (Option<f64>, Option<f64>),
    /// Playouts of the check against the interpreter (0: not run).
    pub check_playouts: usize,
    /// Why the games are what they are, when that needs saying (no corpus).
    pub games_note: Option<String>,
}

/// A tick of the chart's log axis: `0.01`, `0.5`, `1`, `1,000`.
fn axis_label(value: f64) -> String {
    if value >= 1.0 {
        thousands(value)
    } else {
        let text = significant(value, 2);
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// `value` with `digits` significant digits (at least), no exponent.
fn significant(value: f64, digits: i32) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    format!("{value:.decimals$}")
}

/// An integer with thousands separators: `285000` → `285,000`.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if value < 0.0 && digits != "0" {
        out.insert(0, '-');
    }
    out
}

/// A rate for reading: integers with separators from 100 up, else three significant
/// digits (`231,456`, `55.2`, `4.53`, `0.385`).
pub fn format_rate(value: f64) -> String {
    if value >= 100.0 {
        thousands(value)
    } else {
        significant(value, 3)
    }
}

/// A ratio for reading: integers with separators from 100 up, else two significant
/// digits, at least one decimal (`1,234`, `46.3`, `2.3`, `0.81`, `0.045`).
pub fn format_ratio(value: f64) -> String {
    if value >= 100.0 {
        thousands(value)
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        significant(value, 2)
    }
}

/// Seconds for reading: `0.021`, `2.45`, `14.1`.
pub fn format_seconds(value: f64) -> String {
    if value >= 10.0 {
        format!("{value:.1}")
    } else if value >= 0.1 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// The mark of figures that are for the corpus variant of a team file.
const VARIANT_MARK: &str = "‡";

/// The markdown document: facts, the table, notes and failures.
pub fn render_markdown(facts: &Facts, rows: &[Row]) -> String {
    let mut out = String::new();
    let load = |l: Option<f64>| l.map_or("unknown".to_owned(), |l| format!("{l:.2}"));
    let _ = writeln!(out, "# gdlc benchmark\n");
    let _ = writeln!(out, "- command: `{}`", facts.command);
    let _ = writeln!(out, "- date: {} UTC", facts.date);
    let _ = writeln!(
        out,
        "- machine: {}, {} logical CPU(s); load average {} at the start, {} at the end",
        facts.cpu,
        facts.cpus,
        load(facts.load.0),
        load(facts.load.1)
    );
    let _ = writeln!(out, "- {}", facts.rustc);
    let _ = writeln!(
        out,
        "- {}",
        facts.swipl.as_deref().unwrap_or(
            "SWI-Prolog: swipl not installed (apt-get install swi-prolog-nox), so the Prolog columns are empty"
        )
    );
    let _ = writeln!(
        out,
        "- every rate: {} s of random playouts from the initial state (seed {}), one core, one measurement at a time",
        facts.seconds, facts.seed
    );
    let _ = writeln!(
        out,
        "- every Rust crate (reasoners, references, gdlc) built with `RUSTFLAGS={NATIVE}`: for the machine that runs it"
    );
    let _ = match facts.check_playouts {
        0 => writeln!(out, "- checked: not run (`--check-playouts 0`)"),
        n => writeln!(
            out,
            "- checked: each generated reasoner against the interpreter first (`cargo xtask verify --playouts {n}`: perft, then legal moves, next states, goals and percepts along {n} seeded playouts)"
        ),
    };
    if let Some(note) = &facts.games_note {
        let _ = writeln!(out, "- games: {note}");
    }
    out.push('\n');
    out.push_str(
        "| game | rules | checked | gdlc (s) | rustc (s) | generated playouts/s | generated states/s \
         | Prolog playouts/s | Prolog states/s | generated / Prolog | hand-written playouts/s \
         | generated / hand-written | propnet target playouts/s | generated / target |\n",
    );
    out.push_str("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let dash = || "—".to_owned();
    for row in rows {
        let failed = |phase: &str| row.failures.iter().any(|f| f.starts_with(phase));
        let or_failed = |value: Option<String>, phase: &str| {
            value.unwrap_or_else(|| {
                if failed(phase) {
                    "failed".to_owned()
                } else {
                    dash()
                }
            })
        };
        let mark = if row.target.corpus_variant() {
            VARIANT_MARK
        } else {
            ""
        };
        let target = match row.target {
            Target::Published {
                playouts_per_second,
                ..
            } => format!("{}{mark}", format_rate(playouts_per_second)),
            Target::NoPropnet { .. } => format!("no propnet{mark}"),
            Target::None => dash(),
        };
        let cells = [
            row.label.clone(),
            format!("`{}`", row.rules),
            match row.checked {
                Some(true) => "PASS".to_owned(),
                Some(false) => "FAIL".to_owned(),
                None => dash(),
            },
            or_failed(row.gdlc_seconds.map(format_seconds), "gdlc"),
            or_failed(row.rustc_seconds.map(format_seconds), "rustc"),
            or_failed(
                row.generated.map(|r| format_rate(r.playouts_per_second)),
                "generated",
            ),
            row.generated
                .map_or_else(dash, |r| format_rate(r.states_per_second)),
            or_failed(
                row.prolog.map(|r| format_rate(r.playouts_per_second)),
                "Prolog",
            ),
            row.prolog
                .map_or_else(dash, |r| format_rate(r.states_per_second)),
            row.over_prolog().map_or_else(dash, format_ratio),
            match &row.reference {
                None => dash(),
                Some((_, rate)) => or_failed(
                    rate.map(|r| format_rate(r.playouts_per_second)),
                    "hand-written",
                ),
            },
            row.over_reference().map_or_else(dash, format_ratio),
            target,
            row.over_target()
                .map_or_else(dash, |r| format!("{}{mark}", format_ratio(r))),
        ];
        out.push('|');
        for cell in cells {
            let _ = write!(out, " {} |", cell.replace('|', "\\|"));
        }
        out.push('\n');
    }
    out.push_str(
        "\ngdlc: parse → check → analysis → plan → Rust emit (`gdlc::compile_rust`), \
         release build, best of up to 5 runs. rustc: `cargo build --release` of the \
         game's generated crate alone (its dependencies built before), this repository's \
         release profile (`codegen-units = 1`, thin LTO). The release build of the \
         measuring binary that links the crate (where the runtime's generic reasoner is \
         instantiated for the game, then thin LTO over every crate and linking) is in \
         `results.csv` (`driver_build_seconds`): mostly the same for every game. Generated, hand-written and \
         Prolog rates: `gdlc_runtime::simulate_for` in release builds and the Prolog \
         driver under SWI-Prolog; goals are read at the end of every playout. The \
         propnet targets are the published random playouts/s of the strongest public \
         GDL reasoner on one core, for the corpus files; \"no propnet\": it could not be \
         built within 120 s.\n",
    );
    if rows.iter().any(|r| r.target.corpus_variant()) {
        let _ = writeln!(
            out,
            "\n{VARIANT_MARK} The target was published for the corpus file of the same name; \
             this row's rules are a different file (the team's), so the ratio compares \
             variants."
        );
    }
    let notes: Vec<String> = rows
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| format!("- {}: {n}", r.label)))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "\nNotes:\n\n{}", notes.join("\n"));
    }
    let failures: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.failures
                .iter()
                .map(move |f| format!("- {}: {}", r.label, f.replace('\n', " ")))
        })
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "\nFailures:\n\n{}", failures.join("\n"));
    }
    out
}

/// A CSV field, quoted when needed.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// The CSV header.
pub const CSV_HEADER: &str = "game,origin,rules,checked,gdlc_seconds,rustc_seconds,driver_build_seconds,\
    generated_playouts_per_second,generated_states_per_second,prolog_playouts_per_second,\
    prolog_states_per_second,generated_over_prolog,reference,reference_playouts_per_second,\
    reference_states_per_second,generated_over_reference,propnet_target_playouts_per_second,\
    propnet_target_for,generated_over_target,failures,notes";

/// The CSV document: a header and one line per row; numbers unrounded but for
/// floating-point noise, empty fields where there is no figure.
pub fn render_csv(rows: &[Row]) -> String {
    let number = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.6}"));
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for row in rows {
        let target_for = match row.target {
            Target::None => "",
            Target::NoPropnet { .. } => "no propnet",
            _ if row.target.corpus_variant() => "corpus variant",
            _ => "this file",
        };
        let reference_rate = row.reference_rate();
        let fields = [
            csv_field(&row.label),
            row.origin.as_str().to_owned(),
            csv_field(&row.rules),
            match row.checked {
                Some(true) => "pass",
                Some(false) => "fail",
                None => "",
            }
            .to_owned(),
            number(row.gdlc_seconds),
            number(row.rustc_seconds),
            number(row.driver_seconds),
            number(row.generated.map(|r| r.playouts_per_second)),
            number(row.generated.map(|r| r.states_per_second)),
            number(row.prolog.map(|r| r.playouts_per_second)),
            number(row.prolog.map(|r| r.states_per_second)),
            number(row.over_prolog()),
            csv_field(row.reference.as_ref().map_or("", |(name, _)| name)),
            number(reference_rate.map(|r| r.playouts_per_second)),
            number(reference_rate.map(|r| r.states_per_second)),
            number(row.over_reference()),
            number(row.target.playouts_per_second()),
            target_for.to_owned(),
            number(row.over_target()),
            csv_field(&row.failures.join("; ").replace('\n', " ")),
            csv_field(&row.notes.join("; ").replace('\n', " ")),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// The bar chart of the ratios (generated / Prolog, / propnet target, / hand-written)
/// per game, horizontal bars on a log scale, as SVG.
pub fn render_svg(title: &str, rows: &[Row]) -> Result<String, String> {
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};

    const SERIES: [(&str, RGBColor); 3] = [
        ("generated / Prolog", RGBColor(31, 119, 180)),
        (
            "generated / propnet target (‡: the corpus file's)",
            RGBColor(255, 127, 14),
        ),
        ("generated / hand-written", RGBColor(44, 160, 44)),
    ];
    const TARGET_SERIES: usize = 1;
    // The legend's band below the games, in game bands (80 px).
    const LEGEND_BAND: f64 = 80.0 / 48.0;
    let values = |row: &Row| [row.over_prolog(), row.over_target(), row.over_reference()];
    let all: Vec<f64> = rows
        .iter()
        .flat_map(values)
        .flatten()
        .filter(|v| *v > 0.0 && v.is_finite())
        .collect();
    // Whole decades around the values and 1 (parity).
    let low = all.iter().copied().fold(1.0_f64, f64::min);
    let high = all.iter().copied().fold(1.0_f64, f64::max);
    let low = 10f64.powi(low.log10().floor() as i32 - i32::from(low >= 1.0));
    let high = 10f64.powi(high.log10().ceil() as i32 + i32::from(high <= 1.0));

    let label_width = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0) as u32
        * 7
        + 20;
    let width = 760 + label_width;
    // One band of 48 px per game, and one of 80 px below them for the legend.
    let height = 210 + 48 * rows.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let error = |e: &dyn std::fmt::Display| format!("cannot draw the chart: {e}");
        root.fill(&WHITE).map_err(|e| error(&e))?;
        let count = rows.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .margin_left(label_width)
            .x_label_area_size(40)
            .build_cartesian_2d((low..high).log_scale(), -LEGEND_BAND..count)
            .map_err(|e| error(&e))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_desc("ratio (log scale; 1 = as fast)")
            .x_label_formatter(&|v| format!("{}×", axis_label(*v)))
            .draw()
            .map_err(|e| error(&e))?;
        // Parity.
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(1.0, -LEGEND_BAND), (1.0, count)],
                BLACK.stroke_width(1),
            )))
            .map_err(|e| error(&e))?;
        let slot = 0.8 / SERIES.len() as f64;
        for (s, (name, color)) in SERIES.iter().enumerate() {
            // (value, bottom, top, label) per bar.
            let bars: Vec<(f64, f64, f64, String)> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, row)| {
                    let value = values(row)[s].filter(|v| *v > 0.0 && v.is_finite())?;
                    // The first game at the top.
                    let top = count - i as f64 - 0.1 - slot * s as f64;
                    let mark = if s == TARGET_SERIES && row.target.corpus_variant() {
                        VARIANT_MARK
                    } else {
                        ""
                    };
                    let label = format!("{}{mark}", format_ratio(value));
                    Some((value, top - slot, top, label))
                })
                .collect();
            let color = *color;
            chart
                .draw_series(bars.iter().map(|&(value, bottom, top, _)| {
                    Rectangle::new([(low, bottom), (value, top)], color.filled())
                }))
                .map_err(|e| error(&e))?
                .label(*name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
            chart
                .draw_series(bars.iter().map(|(value, bottom, top, label)| {
                    // A little right of the bar's end (a constant gap on a log axis).
                    Text::new(
                        label.clone(),
                        (value * 1.06, (bottom + top) / 2.0),
                        ("sans-serif", 11)
                            .into_font()
                            .into_text_style(&root)
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    )
                }))
                .map_err(|e| error(&e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| error(&e))?;
        // Game names left of the plotting area, at the middle of their bars.
        let style = ("sans-serif", 13)
            .into_font()
            .into_text_style(&root)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, row) in rows.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(low, count - i as f64 - 0.5));
            root.draw(&Text::new(row.label.clone(), (x - 8, y), style.clone()))
                .map_err(|e| error(&e))?;
        }
        if all.is_empty() {
            let (x, y) = chart.backend_coord(&(1.0, count / 2.0));
            root.draw(&Text::new(
                "no ratios: no game has both figures",
                (x, y),
                style.pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(|e| error(&e))?;
        }
        root.present().map_err(|e| error(&e))?;
    }
    Ok(svg)
}

// ---------------------------------------------------------------------------------
// Machine facts.

/// The civil date and time (UTC) of `time`: `YYYY-MM-DD HH:MM`.
pub fn utc_date(time: SystemTime) -> String {
    let seconds = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (seconds / 86_400) as i64;
    let minutes = (seconds % 86_400) / 60;
    // Days to the civil date (proleptic Gregorian), era by era of 400 years.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        minutes / 60,
        minutes % 60
    )
}

/// The CPU model and the number of logical CPUs, from `/proc/cpuinfo` text.
pub fn cpu_facts(cpuinfo: &str) -> (Option<String>, usize) {
    let model = cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == "model name").then(|| value.trim().to_owned())
    });
    let count = cpuinfo
        .lines()
        .filter(|line| {
            line.split(':')
                .next()
                .is_some_and(|k| k.trim() == "processor")
        })
        .count();
    (model, count)
}

/// The 1-minute load average, from `/proc/loadavg`.
fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// `rustc --version`.
fn rustc_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "rustc: version unknown".to_owned())
}

// ---------------------------------------------------------------------------------
// Running.

/// The bench workspace's manifest.
const WORKSPACE_MANIFEST: &str = r#"# Written by `cargo xtask bench`; rewritten on every run.
[workspace]
resolver = "3"
# The game being measured is a member as the driver's path dependency.
members = ["drivers/*"]

# The release profile of the gdlc repository: gdlc, the reasoners and the references
# are measured as a release build of the repository runs them.
[profile.release]
debug = 1
codegen-units = 1
lto = "thin"
"#;

/// The rustc flags of every benchmark build: the reasoners, the hand-written
/// references and gdlc are compiled for the machine that runs them (as the JVM under the
/// propnet targets compiles for it): `popcnt` and the other instructions past the
/// x86-64 baseline are used (breakthrough's generated reasoner: 19 % more playouts/s).
pub(crate) const NATIVE: &str = "-C target-cpu=native";

const COMPILER: &str = "gdlc-bench-compiler";
const DRIVER: &str = "gdlc-bench-driver";
const RUNTIME: &str = "gdlc-bench-runtime";

/// The compiler tool's `main.rs`.
const COMPILER_MAIN: &str = r#"//! Written by `cargo xtask bench`: gdlc on one game, timed.
//! Usage: gdlc-bench-compiler KIF SOURCE_NAME OUT_RS
//!
//! Compiles the game with `gdlc::compile_rust` (parse, check, analysis, plan, Rust
//! emit) up to 5 times until 1 s has passed, writes the code to OUT_RS (if it changed)
//! and prints `gdlc<TAB>BEST_SECONDS<TAB>runs<TAB>N`; diagnostics on stderr, one a line.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kif, source, out] = args.as_slice() else {
        eprintln!("usage: gdlc-bench-compiler KIF SOURCE_NAME OUT_RS");
        return ExitCode::from(2);
    };
    let read = match gdlc::SourceFile::read(Path::new(kif)) {
        Ok(file) => file,
        Err(diagnostic) => {
            eprintln!("{diagnostic}");
            return ExitCode::FAILURE;
        }
    };
    let file = gdlc::SourceFile::new(source.clone(), read.text);
    let (mut best, mut total, mut runs) = (Duration::MAX, Duration::ZERO, 0);
    let mut code = String::new();
    while runs < 5 && total < Duration::from_secs(1) {
        let start = Instant::now();
        let compiled = gdlc::compile_rust(&file);
        let elapsed = start.elapsed();
        match compiled {
            Ok(text) => code = text,
            Err(diagnostics) => {
                for d in &diagnostics {
                    match d.span {
                        Some(span) => {
                            let (line, column) = file.line_column(span.start);
                            eprintln!("{d} ({}:{line}:{column})", file.name);
                        }
                        None => eprintln!("{d} ({})", file.name),
                    }
                }
                return ExitCode::FAILURE;
            }
        }
        best = best.min(elapsed);
        total += elapsed;
        runs += 1;
    }
    if let Err(e) = gdlc::builder::write_if_changed(Path::new(out), &code) {
        eprintln!("cannot write {out}: {e}");
        return ExitCode::FAILURE;
    }
    println!("gdlc\t{:.6}\truns\t{runs}", best.as_secs_f64());
    ExitCode::SUCCESS
}
"#;

/// The driver's `main.rs` (the same for every game; its manifest names the game).
const DRIVER_MAIN: &str = r#"//! Written by `cargo xtask bench`: random playouts of the generated reasoner `game`
//! or of a hand-written reference, for a given time (see `gdlc_benches::driver`).

fn main() -> std::process::ExitCode {
    gdlc_benches::driver::main(game::new())
}
"#;

/// Reads the compiler tool's output line: gdlc's best time in seconds.
fn parse_compiler_output(stdout: &str) -> Option<f64> {
    let line = stdout.lines().find(|l| l.starts_with("gdlc\t"))?;
    line.split('\t').nth(1)?.parse().ok()
}

/// The bench's scratch workspace and what it runs.
struct Bench {
    scratch: Scratch,
    seconds: f64,
    seed: u64,
    swipl: bool,
    check_playouts: usize,
    limits: Limits,
}

impl Bench {
    /// Opens the workspace and builds what every game needs: the compiler tool and
    /// `gdlc-runtime` (alone, as a game crate needs it).
    fn open(root: &Path, options: &Options, swipl: bool) -> Result<Bench, String> {
        let (seconds, seed) = (options.seconds, options.seed);
        let mut scratch = Scratch::open(root, WORKSPACE_MANIFEST)?;
        scratch.echo = false;
        scratch.rustflags = Some(NATIVE);
        // The driver is rewritten for each game; last run's may name a crate that is
        // gone, which would stop cargo from loading the workspace.
        // (A directory matched by `drivers/*` must hold a manifest: the whole driver
        // goes; its build products stay in the target directory.)
        let stale = scratch.root.join("drivers").join("bench");
        if stale.exists() {
            std::fs::remove_dir_all(&stale)
                .map_err(|e| format!("cannot remove {}: {e}", stale.display()))?;
        }
        let dir = scratch.root.join("drivers").join("compiler");
        let manifest = format!(
            "# Written by `cargo xtask bench`.\n\
             [package]\nname = \"{COMPILER}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ngdlc = {}\n",
            codegen::path_dependency(
                &dir,
                &codegen::workspace_root().join("gdlc"),
                ", default-features = false"
            )?,
        );
        write_file(&dir.join("Cargo.toml"), &manifest)?;
        write_file(&dir.join("src").join("main.rs"), COMPILER_MAIN)?;
        // gdlc-runtime as a game crate alone needs it, and gdlc-benches for the driver:
        // built through a library that depends on nothing else, so that their
        // dependencies' features are those a game crate and the driver select
        // (`-p gdlc-runtime` would take the compiler's, with a larger `syn`).
        let dir = scratch.root.join("drivers").join("runtime");
        let manifest = format!(
            "# Written by `cargo xtask bench`: builds the games' dependencies before they are timed.\n\
             [package]\nname = \"{RUNTIME}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ngdlc-runtime = {}\ngdlc-benches = {}\n",
            codegen::runtime_dependency(&dir)?,
            codegen::path_dependency(&dir, &codegen::workspace_root().join("benches"), "")?,
        );
        write_file(&dir.join("Cargo.toml"), &manifest)?;
        write_file(
            &dir.join("src").join("lib.rs"),
            "//! Written by `cargo xtask bench`: nothing but dependencies on gdlc-runtime and gdlc-benches.\n",
        )?;
        for (package, log) in [(COMPILER, "compiler"), (RUNTIME, "runtime")] {
            let build = scratch.build(package, "release", &["--message-format", "short"], log)?;
            if !build.success {
                return Err(format!(
                    "cannot build {package} for the benchmark: {}",
                    build.error_summary()
                ));
            }
        }
        let limits = Limits {
            // Generous: a figure takes `seconds`, but at least one playout is finished.
            timeout: Duration::from_secs_f64(seconds * 10.0 + 300.0),
            memory_mb: 4096,
        };
        Ok(Bench {
            scratch,
            seconds,
            seed,
            swipl,
            check_playouts: options.check_playouts,
            limits,
        })
    }

    /// The check of `game`'s generated reasoner against the interpreter: `cargo xtask
    /// verify` on this one game with `check_playouts` playouts (its own scratch
    /// workspace and output: a `PASS`/`FAIL` line).
    fn check(&self, game: &BenchGame) -> Result<(), String> {
        let options = scratch::VerifyOptions {
            depth: None,
            playouts: self.check_playouts,
            max_steps: 500,
            seed: self.seed,
            batch: 1,
            timeout: Duration::from_secs(600),
            memory_mb: 4096,
            backend: gdlc::Backend::Auto,
        };
        match scratch::verify(std::slice::from_ref(&game.path), &options)? {
            true => Ok(()),
            false => Err("the generated reasoner disagrees with the interpreter or does not build (see the FAIL line of `cargo xtask verify`)".to_owned()),
        }
    }

    /// gdlc on `game`: its crate written, gdlc's time. The tool writes the code
    /// outside `games/`, so that a game gdlc rejects leaves no crate without a
    /// manifest there (which would stop cargo from loading the workspace).
    fn gdlc(&self, game: &BenchGame, krate: &GameCrate) -> Result<f64, String> {
        let staging = self.scratch.root.join("generated");
        std::fs::create_dir_all(&staging)
            .map_err(|e| format!("cannot create {}: {e}", staging.display()))?;
        let dir_name = krate.dir.file_name().unwrap_or_default().to_string_lossy();
        let code = staging.join(format!("{dir_name}.rs"));
        let args = [
            game.path.display().to_string(),
            codegen::source_name(&game.path),
            code.display().to_string(),
        ];
        let finished = scratch::run_limited(
            &self.scratch.binary("release", COMPILER),
            &args,
            &self.limits,
        )?;
        if !finished.status.is_some_and(|s| s.success()) {
            let first = finished
                .stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(str::to_owned);
            return Err(first.unwrap_or_else(|| finished.failure(&self.limits)));
        }
        let seconds = parse_compiler_output(&finished.stdout).ok_or_else(|| {
            format!(
                "unexpected output from the compiler tool: {}",
                finished.stdout.trim()
            )
        })?;
        let files = CrateFiles {
            cargo_toml: gdlc::emit::rust::cargo_toml(
                &krate.name,
                &codegen::runtime_dependency(&krate.dir)?,
            ),
            lib_rs: std::fs::read_to_string(&code)
                .map_err(|e| format!("cannot read {}: {e}", code.display()))?,
            main_rs: None,
        };
        files.write(&krate.dir)?;
        Ok(seconds)
    }

    /// rustc on the game's crate alone: seconds, and the other crates cargo compiled
    /// (none when the dependencies were ready).
    fn rustc(&self, krate: &GameCrate) -> Result<(f64, Vec<String>), String> {
        let lib_rs = krate.dir.join("src").join("lib.rs");
        // Cargo rebuilds what is newer than its last build: the code may be unchanged.
        std::fs::File::options()
            .write(true)
            .open(&lib_rs)
            .and_then(|f| f.set_modified(SystemTime::now()))
            .map_err(|e| format!("cannot touch {}: {e}", lib_rs.display()))?;
        self.timed_build(&krate.name, "rustc").map_err(|build| {
            build
                .first_error_in(&self.scratch.root, &krate.dir)
                .unwrap_or_else(|| build.error_summary())
        })
    }

    /// `cargo build --release -p package`, timed: seconds, and the crates compiled
    /// besides `package`; or the failed build.
    fn timed_build(&self, package: &str, log: &str) -> Result<(f64, Vec<String>), Build> {
        let start = Instant::now();
        let build = self
            .scratch
            .build(package, "release", &["--message-format", "short"], log)
            .map_err(|message| Build {
                success: false,
                lines: vec![format!("error: {message}")],
                log: PathBuf::new(),
            })?;
        let seconds = start.elapsed().as_secs_f64();
        if !build.success {
            return Err(build);
        }
        let others = build
            .lines
            .iter()
            .filter_map(|l| l.trim().strip_prefix("Compiling "))
            .filter_map(|rest| rest.split(' ').next())
            .filter(|name| *name != package)
            .map(str::to_owned)
            .collect();
        Ok((seconds, others))
    }

    /// Writes the driver for `krate` (which makes the crate a workspace member).
    fn write_driver(&self, krate: &GameCrate) -> Result<(), String> {
        let dir = self.scratch.root.join("drivers").join("bench");
        let workspace = codegen::workspace_root();
        let manifest = format!(
            "# Written by `cargo xtask bench`; rewritten for every game.\n\
             [package]\nname = \"{DRIVER}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ngdlc-benches = {}\ngame = {}\n",
            codegen::path_dependency(&dir, &workspace.join("benches"), "")?,
            codegen::path_dependency(&dir, &krate.dir, &format!(", package = \"{}\"", krate.name))?,
        );
        write_file(&dir.join("Cargo.toml"), &manifest)?;
        write_file(&dir.join("src").join("main.rs"), DRIVER_MAIN)
    }

    /// Builds the driver: seconds, and the crates compiled besides it.
    fn build_driver(&self) -> Result<(f64, Vec<String>), String> {
        self.timed_build(DRIVER, "driver")
            .map_err(|build| build.error_summary())
    }

    fn budget(&self) -> gdlc_benches::driver::Budget {
        gdlc_benches::driver::Budget {
            time: Duration::from_secs_f64(self.seconds),
            seed: self.seed,
            max_steps: MAX_STEPS,
        }
    }

    /// Runs the built driver on `request`.
    fn measure(&self, request: &gdlc_benches::driver::Request) -> Result<Rate, String> {
        let finished = scratch::run_limited(
            &self.scratch.binary("release", DRIVER),
            &request.to_args(),
            &self.limits,
        )?;
        if !finished.status.is_some_and(|s| s.success()) {
            let error = finished
                .stderr
                .lines()
                .find_map(|l| l.strip_prefix("error: "))
                .map(str::to_owned);
            return Err(error.unwrap_or_else(|| finished.failure(&self.limits)));
        }
        let report = prolog::parse_playouts(&finished.stdout).map_err(|e| e.to_string())?;
        Ok(Rate::from(&report))
    }

    /// The Prolog baseline on `game`.
    fn prolog(&self, game: &BenchGame, krate: &GameCrate) -> Result<Rate, String> {
        let (front, _) = crate::load(&game.path)?;
        let dir_name = krate.dir.file_name().unwrap_or_default();
        let dir = self.scratch.root.join("prolog").join(dir_name);
        crate::prolog::write_program(&front, &game.path, &dir)?;
        let command = prolog::playouts_command(&dir, self.seconds, self.seed, MAX_STEPS as u64);
        let stdout = crate::prolog::run(&command, &dir, Some(self.limits.timeout))
            .map_err(|e| e.to_string())?;
        let report = prolog::parse_playouts(&stdout).map_err(|e| e.to_string())?;
        Ok(Rate::from(&report))
    }

    /// Every phase of one game, ticking `bar` after each.
    fn game(&self, game: &BenchGame, bar: &ProgressBar) -> Row {
        let mut row = Row::new(game);
        let phase = |name: &str| bar.set_message(format!("{}: {name}", game.label));
        let krate = match self.scratch.game_crate(&game.path) {
            Ok(krate) => krate,
            Err(message) => {
                row.failures.push(format!("gdlc: {message}"));
                bar.inc(PHASES - 1);
                return row;
            }
        };
        phase("gdlc");
        let compiled = match self.gdlc(game, &krate) {
            Ok(seconds) => {
                row.gdlc_seconds = Some(seconds);
                true
            }
            Err(message) => {
                row.failures.push(format!("gdlc: {message}"));
                false
            }
        };
        bar.inc(1);
        phase("rustc");
        let compiled = compiled
            && match self.write_driver(&krate) {
                Ok(()) => true,
                Err(message) => {
                    row.failures.push(format!("gdlc: {message}"));
                    false
                }
            };
        let built = compiled
            && match self.rustc(&krate) {
                Ok((seconds, others)) => {
                    row.rustc_seconds = Some(seconds);
                    row.note_others("rustc", &others);
                    true
                }
                Err(message) => {
                    row.failures.push(format!("rustc: {message}"));
                    false
                }
            };
        bar.inc(1);
        // Only a reasoner that compiled is worth checking (an invalid game would be a
        // SKIP of verify, not a pass).
        if built && self.check_playouts > 0 {
            phase("checking against the interpreter");
            let checked = bar.suspend(|| self.check(game));
            row.checked = Some(checked.is_ok());
            if let Err(message) = checked {
                row.failures.push(format!("checked: {message}"));
            }
        }
        bar.inc(1);
        phase("generated reasoner");
        let driver = built
            && match self.build_driver() {
                Ok((seconds, others)) => {
                    row.driver_seconds = Some(seconds);
                    row.note_others("driver build", &others);
                    true
                }
                Err(message) => {
                    row.failures
                        .push(format!("generated: the driver does not build: {message}"));
                    false
                }
            };
        if driver {
            match self.measure(&gdlc_benches::driver::Request::Generated(self.budget())) {
                Ok(rate) => row.generated = Some(rate),
                Err(message) => row.failures.push(format!("generated: {message}")),
            }
        }
        bar.inc(1);
        phase("hand-written reference");
        if let Some((name, rate)) = &mut row.reference {
            if driver {
                let request = gdlc_benches::driver::Request::Reference {
                    name: name.clone(),
                    budget: self.budget(),
                };
                match self.measure(&request) {
                    Ok(measured) => *rate = Some(measured),
                    Err(message) => {
                        let message = format!("hand-written: {message}");
                        row.failures.push(message);
                    }
                }
            } else {
                row.notes.push(
                    "the hand-written reference was not measured (its driver links the game)"
                        .to_owned(),
                );
            }
        }
        bar.inc(1);
        phase("Prolog");
        if self.swipl {
            match self.prolog(game, &krate) {
                Ok(rate) => row.prolog = Some(rate),
                // The baseline failing is not gdlc's failure: a note, not a failure.
                Err(message) => row
                    .notes
                    .push(format!("Prolog failed: {}", message.replace('\n', " "))),
            }
        }
        bar.inc(1);
        row
    }
}

/// A finished row in one line, for the terminal.
pub fn row_line(row: &Row) -> String {
    let mut parts = Vec::new();
    if let Some(s) = row.gdlc_seconds {
        parts.push(format!("gdlc {} s", format_seconds(s)));
    }
    if let Some(s) = row.rustc_seconds {
        parts.push(format!("rustc {} s", format_seconds(s)));
    }
    if let Some(s) = row.driver_seconds {
        parts.push(format!("driver build {} s", format_seconds(s)));
    }
    if let Some(rate) = row.generated {
        parts.push(format!(
            "generated {} playouts/s ({} states/s)",
            format_rate(rate.playouts_per_second),
            format_rate(rate.states_per_second)
        ));
    }
    if let Some(rate) = row.prolog {
        let ratio = row
            .over_prolog()
            .map_or(String::new(), |r| format!(", ratio {}", format_ratio(r)));
        parts.push(format!(
            "Prolog {} playouts/s{ratio}",
            format_rate(rate.playouts_per_second)
        ));
    }
    if let Some(rate) = row.reference_rate() {
        let ratio = row
            .over_reference()
            .map_or(String::new(), |r| format!(", ratio {}", format_ratio(r)));
        parts.push(format!(
            "hand-written {} playouts/s{ratio}",
            format_rate(rate.playouts_per_second)
        ));
    }
    let variant = if row.target.corpus_variant() {
        " (corpus variant)"
    } else {
        ""
    };
    match row.target {
        Target::Published {
            playouts_per_second,
            ..
        } => {
            let ratio = row
                .over_target()
                .map_or(String::new(), |r| format!(", ratio {}", format_ratio(r)));
            parts.push(format!(
                "propnet target {}{variant}{ratio}",
                format_rate(playouts_per_second)
            ));
        }
        Target::NoPropnet { .. } => parts.push(format!("no propnet{variant}")),
        Target::None => {}
    }
    let mut line = format!("{} [{}]: {}", row.label, row.rules, parts.join(" · "));
    for failure in &row.failures {
        let _ = write!(line, "\n    FAILED {}", failure.replace('\n', "\n    "));
    }
    for note in &row.notes {
        let _ = write!(line, "\n    note: {note}");
    }
    line
}

/// `cargo xtask bench`; `Ok(false)` when some game failed (the results are written).
pub fn bench(options: &Options) -> Result<bool, String> {
    if !(options.seconds.is_finite() && options.seconds > 0.0) {
        return Err(format!(
            "--seconds must be a positive number of seconds, not {}",
            options.seconds
        ));
    }
    let places = Places::here();
    let (list, games_note) = default_games(options.games.as_deref(), &places);
    if let Some(note) = &games_note {
        eprintln!("note: {note}");
    }
    let games = parse_games(&list, &places)?;
    let out = match &options.out {
        Some(dir) => dir.clone(),
        None => scratch::target_root().join("bench"),
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let games = crate::spellings::with_spellings(games, &options.spellings, &out)?;
    let swipl_version = crate::prolog::swipl_version();
    if swipl_version.is_none() {
        eprintln!(
            "warning: {}; the Prolog columns stay empty",
            crate::prolog::SWIPL_MISSING
        );
    }
    let (cpu, cpus) = cpu_facts(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default());
    let cpus = if cpus > 0 {
        cpus
    } else {
        std::thread::available_parallelism().map_or(1, usize::from)
    };
    let mut facts = Facts {
        check_playouts: options.check_playouts,
        games_note,
        command: options.command_line.clone(),
        date: utc_date(SystemTime::now()),
        cpu: cpu.unwrap_or_else(|| "CPU model unknown".to_owned()),
        cpus,
        rustc: rustc_version(),
        swipl: swipl_version.map(|v| v.replace("version", "").replace("  ", " ")),
        seconds: options.seconds,
        seed: options.seed,
        load: (load_average(), None),
    };

    let bar = ProgressBar::new(1 + PHASES * games.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
    );
    bar.set_message("building gdlc and gdlc-runtime (release)");
    let started = Instant::now();
    let bench = Bench::open(
        &scratch::target_root().join("bench").join("workspace"),
        options,
        facts.swipl.is_some(),
    );
    let bench = match bench {
        Ok(bench) => bench,
        Err(message) => {
            bar.finish_and_clear();
            return Err(message);
        }
    };
    bar.inc(1);
    let mut rows = Vec::new();
    for game in &games {
        let row = bench.game(game, &bar);
        bar.suspend(|| println!("{}", row_line(&row)));
        rows.push(row);
    }
    bar.finish_and_clear();
    facts.load.1 = load_average();

    let markdown = render_markdown(&facts, &rows);
    let csv = render_csv(&rows);
    let svg = render_svg(
        &format!(
            "gdlc generated reasoners: random playouts/s ratios ({} s each)",
            options.seconds
        ),
        &rows,
    )?;
    for (name, text) in [
        ("results.md", &markdown),
        ("results.csv", &csv),
        ("ratios.svg", &svg),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    println!("\n{markdown}");
    println!(
        "bench took {:.0} s; wrote {}, results.csv and ratios.svg",
        started.elapsed().as_secs_f64(),
        out.join("results.md").display()
    );
    let failed = rows.iter().filter(|r| !r.failures.is_empty()).count();
    if failed > 0 {
        eprintln!("error: {failed} game(s) failed (see their rows)");
    }
    Ok(failed == 0)
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

    #[test]
    fn numbers_are_formatted_for_reading() {
        assert_eq!(format_rate(285_000.0), "285,000");
        assert_eq!(format_rate(1_234_567.4), "1,234,567");
        assert_eq!(format_rate(352.4), "352");
        assert_eq!(format_rate(55.24), "55.2");
        assert_eq!(format_rate(4.527), "4.53");
        assert_eq!(format_rate(0.3851), "0.385");
        assert_eq!(format_rate(0.0), "0");
        assert_eq!(format_ratio(1234.4), "1,234");
        assert_eq!(format_ratio(46.31), "46.3");
        assert_eq!(format_ratio(2.34), "2.3");
        assert_eq!(format_ratio(1.0), "1.0");
        assert_eq!(format_ratio(0.812), "0.81");
        assert_eq!(format_ratio(0.0451), "0.045");
        assert_eq!(axis_label(0.01), "0.01");
        assert_eq!(axis_label(0.5), "0.5");
        assert_eq!(axis_label(1.0), "1");
        assert_eq!(axis_label(1000.0), "1,000");
        assert_eq!(format_seconds(0.0213), "0.021");
        assert_eq!(format_seconds(2.449), "2.45");
        assert_eq!(format_seconds(14.14), "14.1");
    }

    #[test]
    fn dates_are_civil_utc() {
        let at = |seconds: u64| utc_date(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds));
        assert_eq!(at(0), "1970-01-01 00:00");
        assert_eq!(at(951_782_400), "2000-02-29 00:00");
        assert_eq!(at(1_700_000_000), "2023-11-14 22:13");
        assert_eq!(at(4_102_444_799), "2099-12-31 23:59");
    }

    #[test]
    fn cpu_facts_come_from_cpuinfo() {
        let text = "processor\t: 0\nmodel name\t: Example CPU @ 2.0GHz\n\nprocessor\t: 1\nmodel name\t: Example CPU @ 2.0GHz\n";
        assert_eq!(
            cpu_facts(text),
            (Some("Example CPU @ 2.0GHz".to_owned()), 2)
        );
        assert_eq!(cpu_facts(""), (None, 0));
    }

    fn rate(playouts_per_second: f64) -> Option<Rate> {
        Some(Rate {
            playouts_per_second,
            states_per_second: playouts_per_second * 10.0,
        })
    }

    fn sample_rows() -> Vec<Row> {
        vec![
            Row {
                label: "tictactoe (team)".to_owned(),
                rules: "games/tictactoe.kif".to_owned(),
                origin: Origin::Team,
                checked: Some(true),
                gdlc_seconds: Some(0.0213),
                rustc_seconds: Some(2.5),
                driver_seconds: Some(7.25),
                generated: rate(200_000.0),
                prolog: rate(4_000.0),
                reference: Some(("tictactoe".to_owned(), rate(8_000_000.0))),
                target: Target::Published {
                    playouts_per_second: 285_000.0,
                    corpus_variant: true,
                },
                failures: Vec::new(),
                notes: Vec::new(),
            },
            Row {
                label: "checkers (corpus)".to_owned(),
                rules: "../shared/games/checkers.kif".to_owned(),
                origin: Origin::Corpus,
                checked: None,
                gdlc_seconds: Some(1.3),
                rustc_seconds: None,
                driver_seconds: None,
                generated: None,
                prolog: rate(3.0),
                reference: None,
                target: Target::NoPropnet {
                    corpus_variant: false,
                },
                failures: vec!["rustc: src/lib.rs:1:1: error: x, \"y\"".to_owned()],
                notes: vec!["Prolog was slow".to_owned()],
            },
        ]
    }

    #[test]
    fn ratios_need_both_figures() {
        let rows = sample_rows();
        assert_eq!(rows[0].over_prolog(), Some(50.0));
        assert_eq!(rows[0].over_reference(), Some(0.025));
        assert!((rows[0].over_target().expect("target") - 0.7018).abs() < 1e-3);
        assert_eq!(rows[1].over_prolog(), None);
        assert_eq!(rows[1].over_target(), None);
    }

    #[test]
    fn markdown_has_one_line_per_game_and_explains_marks_and_failures() {
        let facts = Facts {
            command: "cargo xtask bench --seconds 2".to_owned(),
            date: "2026-01-02 03:04".to_owned(),
            cpu: "Example CPU".to_owned(),
            cpus: 2,
            rustc: "rustc 1.95.0".to_owned(),
            swipl: None,
            seconds: 2.0,
            seed: 1,
            load: (Some(0.5), None),
            check_playouts: 20,
            games_note: Some("no corpus".to_owned()),
        };
        let text = render_markdown(&facts, &sample_rows());
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.contains(
            &"| tictactoe (team) | `games/tictactoe.kif` | PASS | 0.021 | 2.50 | 200,000 | 2,000,000 | 4,000 | 40,000 | 50.0 | 8,000,000 | 0.025 | 285,000‡ | 0.70‡ |"
        ), "{text}");
        assert!(lines.contains(
            &"| checkers (corpus) | `../shared/games/checkers.kif` | — | 1.30 | failed | — | — | 3.00 | 30.0 | — | — | — | no propnet | — |"
        ), "{text}");
        assert!(text.contains("- machine: Example CPU, 2 logical CPU(s); load average 0.50 at the start, unknown at the end"));
        assert!(text.contains("swipl not installed (apt-get install swi-prolog-nox)"));
        assert!(text.contains("`cargo xtask verify --playouts 20`"));
        assert!(text.contains("- games: no corpus"));
        assert!(text.contains("‡ The target was published for the corpus file"));
        assert!(text.contains("- checkers (corpus): rustc: src/lib.rs:1:1: error: x, \"y\""));
        assert!(text.contains("- checkers (corpus): Prolog was slow"));
        // Every table line has as many cells as the header.
        let cells = |line: &str| line.matches('|').count();
        let table: Vec<&&str> = lines.iter().filter(|l| l.starts_with('|')).collect();
        assert_eq!(table.len(), 4);
        assert!(table.iter().all(|l| cells(l) == cells(table[0])));
    }

    #[test]
    fn csv_has_a_header_and_quoted_fields() {
        let text = render_csv(&sample_rows());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(
            lines[1],
            "tictactoe (team),team,games/tictactoe.kif,pass,0.021300,2.500000,7.250000,200000.000000,\
             2000000.000000,4000.000000,40000.000000,50.000000,tictactoe,8000000.000000,\
             80000000.000000,0.025000,285000.000000,corpus variant,0.701754,,"
        );
        assert!(
            lines[2].ends_with(
                ",no propnet,,\"rustc: src/lib.rs:1:1: error: x, \"\"y\"\"\",Prolog was slow"
            ),
            "{}",
            lines[2]
        );
        let columns = CSV_HEADER.split(',').count();
        assert_eq!(lines[1].split(',').count(), columns);
    }

    #[test]
    fn the_chart_draws_a_bar_per_ratio() {
        let svg = render_svg("ratios", &sample_rows()).expect("chart");
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("tictactoe (team)"));
        assert!(svg.contains("checkers (corpus)"));
        assert!(svg.contains("generated / Prolog"));
        // Bars: the first row's three ratios (50, 0.70, 0.025) in the series' colours.
        for colour in ["#1F77B4", "#FF7F0E", "#2CA02C"] {
            assert!(svg.contains(colour), "no {colour} in the chart");
        }
        for label in ["\n50.0\n", "\n0.70‡\n", "\n0.025\n"] {
            assert!(svg.contains(label), "no {label:?} in the chart");
        }
        let empty = render_svg("ratios", &[]).expect("empty chart");
        assert!(empty.contains("no ratios"));
    }

    #[test]
    fn compiler_output_is_read() {
        assert_eq!(
            parse_compiler_output("gdlc\t0.012500\truns\t5\n"),
            Some(0.0125)
        );
        assert_eq!(parse_compiler_output("something else"), None);
    }

    #[test]
    fn driver_lines_are_read_by_the_prolog_parser() {
        let report = SimulationReport {
            playouts: 10,
            states: 90,
            elapsed: Duration::from_millis(2500),
        };
        let line = gdlc_benches::driver::report_line(&report);
        assert_eq!(prolog::parse_playouts(&line), Ok(report));
    }
}

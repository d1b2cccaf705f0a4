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
use indicatif::{ProgressBar, ProgressStyle};

use crate::codegen::{self, CrateFiles};
use crate::scratch::{self, Build, GameCrate, Limits, Scratch, write_file};

mod facts;
mod games;
mod report;

pub use facts::*;
pub use games::*;
pub use report::*;

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
    use gdlc_runtime::SimulationReport;

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

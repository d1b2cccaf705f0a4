//! `cargo xtask verify` and `cargo xtask perft`: generated reasoners built and run in a
//! scratch Cargo workspace.
//!
//! The scratch workspace lives in `$CARGO_TARGET_DIR/verify` (or `target/verify` of this
//! workspace) and is kept between runs, so that rebuilding is incremental:
//!
//! ```text
//! verify/
//!   Cargo.toml            [workspace] members games/*, drivers/*; the `verify` profile
//!   Cargo.lock            copied from this workspace on every run (same versions)
//!   games/<stem>-<hash>/  one crate per game file: gdlc-game-<stem>-<hash>
//!   drivers/verify/       gdlc-verify-driver: depends on gdlc (no default features),
//!                         gdlc-runtime and the games of the current batch
//!   drivers/perft/        gdlc-perft-driver: depends on gdlc-runtime and one game
//!   bin/                  copies of each batch's verify driver while its games run
//!   target/               their shared target directory
//!   logs/                 the output of the last cargo build of each batch
//! ```
//!
//! The hash is that of the game file's absolute path, so two games with the same stem
//! (`games/tictactoe.kif` and the corpus' `tictactoe.kif`) get different crates, and a
//! game keeps its crate from one run to the next.
//!
//! **verify** goes through the files in batches (16 by default): gdlc compiles each game
//! (a game that is not valid GDL is `SKIP`ped with the validator's first error; one gdlc
//! cannot compile `FAIL`s with its diagnostic), then one `cargo build` builds the batch's
//! crates and its driver with the `verify` profile (generated code at `opt-level = 1` to
//! keep rustc quick, dependencies — the interpreter — at `opt-level = 2`, debug
//! assertions on). When generated crates do not compile, cargo is run with
//! `--keep-going`; those games `FAIL` with rustc's first error and the driver is rebuilt
//! without them. Then the driver runs once per game, in its own process with a time
//! and a memory limit (so that a panic, a loop or a runaway allocation fails only that
//! game), `--jobs` games at a time (default: the number of CPUs) while the next batch
//! is built; verdicts are printed in the order of the files. It compares the
//! reasoner with the
//! interpreter ([`gdlc::differential`]; perft to a depth chosen automatically unless
//! `--depth` is given, then seeded random playouts).
//!
//! **perft** builds the perft driver for one game with the release profile and prints
//! `depth<TAB>count` lines exactly as `gdlc perft` does.
//!
//! `cargo xtask bench` (`bench/`) uses the same machinery in its own scratch
//! workspace: [`Scratch`] opened at another root with another manifest and quiet
//! builds, the game crates' layout, and [`run_limited`] for its drivers.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use gdlc::SourceFile;
use gdlc::builder::write_if_changed;
use gdlc::differential::DriverRequest;

use crate::codegen::{self, CrateFiles};

/// The options of `cargo xtask verify`.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// The perft depth (`None`: automatic).
    pub depth: Option<u32>,
    /// Seeded random playouts per game.
    pub playouts: usize,
    /// Steps per playout at most.
    pub max_steps: usize,
    /// Seed of the first playout.
    pub seed: u64,
    /// Games per driver build.
    pub batch: usize,
    /// Time allowed for the check of one game.
    pub timeout: Duration,
    /// Memory (address space, MiB) allowed for the check of one game; 0: unlimited.
    pub memory_mb: u64,
    /// Which Rust backend compiles the games.
    pub backend: gdlc::Backend,
}

const VERIFY_DRIVER: &str = "gdlc-verify-driver";
const PERFT_DRIVER: &str = "gdlc-perft-driver";

/// The scratch workspace's manifest.
const WORKSPACE_MANIFEST: &str = r#"# Written by `cargo xtask verify` and `cargo xtask perft`; rewritten on every run.
[workspace]
resolver = "3"
members = ["games/*", "drivers/*"]

# Generated code is compiled with little optimisation to keep rustc quick; the
# interpreter and the runtime (dependencies) are optimised, built once.
[profile.verify]
inherits = "dev"
opt-level = 1
debug = false

[profile.verify.package."*"]
opt-level = 2
"#;

/// A scratch workspace: `verify`'s, or `bench`'s (see `bench/`). One run at a time
/// uses it: opening it takes an exclusive lock on `<root>/.lock`, held until the value is
/// dropped (two runs would rewrite each other's driver and crates), so a second run
/// waits, saying so.
pub(crate) struct Scratch {
    /// Its directory.
    pub root: PathBuf,
    /// Whether cargo's output is echoed to stderr while it builds.
    pub echo: bool,
    /// Flags for rustc added to `RUSTFLAGS` in every build (the benchmark's
    /// [`crate::bench::NATIVE`]).
    pub rustflags: Option<&'static str>,
    /// The open lock file; the lock goes with it.
    _lock: std::fs::File,
}

/// Creates `root` if needed and takes the exclusive lock of `<root>/.lock`, waiting (and
/// saying so) while another run holds it.
fn lock_exclusively(root: &Path) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let path = root.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => return Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {
            eprintln!(
                "waiting for another run that uses {} to finish",
                root.display()
            );
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(format!("cannot lock {}: {e}", path.display()));
        }
    }
    file.lock()
        .map_err(|e| format!("cannot lock {}: {e}", path.display()))?;
    Ok(file)
}

/// A game's crate in the scratch workspace.
#[derive(Clone, Debug)]
pub(crate) struct GameCrate {
    /// The path as the user gave it.
    pub shown: String,
    /// The absolute path of the KIF file.
    pub kif: PathBuf,
    /// The crate name.
    pub name: String,
    /// The crate directory.
    pub dir: PathBuf,
}

/// What became of one game.
enum Verdict {
    Pass(String),
    Fail(String),
    Skip(String),
}

impl Verdict {
    /// The summary or the reason.
    fn into_message(self) -> String {
        match self {
            Verdict::Pass(text) | Verdict::Fail(text) | Verdict::Skip(text) => text,
        }
    }
}

/// FNV-1a, 32 bits: a hash that is the same on every platform and Rust version.
fn stable_hash(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// This workspace's target directory: `$CARGO_TARGET_DIR`, else `<workspace>/target`.
pub(crate) fn target_root() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => codegen::workspace_root().join("target"),
    }
}

impl Scratch {
    /// Opens (creating it if needed) the scratch workspace of `verify` and `perft`.
    fn open_verify() -> Result<Scratch, String> {
        Scratch::open(&target_root().join("verify"), WORKSPACE_MANIFEST)
    }

    /// Opens (creating it if needed) the scratch workspace at `root`, whose manifest is
    /// `manifest`.
    pub fn open(root: &Path, manifest: &str) -> Result<Scratch, String> {
        let root = codegen::absolute(root)
            .map_err(|e| format!("cannot resolve {}: {e}", root.display()))?;
        let lock = lock_exclusively(&root)?;
        let write = |path: PathBuf, text: &str| {
            write_if_changed(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        };
        write(root.join("Cargo.toml"), manifest)?;
        // The same dependency versions as this workspace, so no registry look-up: the
        // workspace's lock file is copied on every run (cargo adds the scratch crates,
        // which are path dependencies).
        let ours = codegen::workspace_root().join("Cargo.lock");
        if let Ok(text) = std::fs::read_to_string(&ours) {
            write(root.join("Cargo.lock"), &text)?;
        }
        Ok(Scratch {
            root,
            echo: true,
            rustflags: None,
            _lock: lock,
        })
    }

    fn target_dir(&self) -> PathBuf {
        self.root.join("target")
    }

    /// The crate of the game at `path` (not yet written).
    pub fn game_crate(&self, path: &Path) -> Result<GameCrate, String> {
        let kif = codegen::absolute(path)
            .map_err(|e| format!("cannot resolve {}: {e}", path.display()))?;
        let stem = codegen::sanitize_crate_name(&codegen::game_stem(path));
        let hash = stable_hash(kif.to_string_lossy().as_bytes());
        let dir_name = format!("{stem}-{hash:08x}");
        Ok(GameCrate {
            shown: path.display().to_string(),
            name: codegen::crate_name(&dir_name),
            dir: self.root.join("games").join(dir_name),
            kif,
        })
    }

    /// Compiles a game into its crate: the crate, or the game's verdict.
    fn prepare(&self, path: &Path, backend: gdlc::Backend) -> Result<(GameCrate, f64), Verdict> {
        let file = SourceFile::read(path).map_err(|d| Verdict::Fail(d.to_string()))?;
        let front = gdlc::front_end(&file);
        if !front.is_valid() {
            let errors: Vec<_> = front.diagnostics.iter().filter(|d| d.is_error()).collect();
            let more = match errors.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            return Err(Verdict::Skip(format!(
                "not valid GDL: {}{more}",
                one_line(errors[0], &file)
            )));
        }
        let krate = self.game_crate(path).map_err(Verdict::Fail)?;
        let start = Instant::now();
        // A bug in the compiler fails this game, not the whole run (the panic message
        // is printed on stderr by the default hook).
        let source = codegen::source_name(path);
        let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            gdlc::compile::rust_with_backend(&front, &source, backend)
        }))
        .map_err(|_| Verdict::Fail("gdlc panicked (see the message above)".to_owned()))?;
        let lib_rs = compiled.map_err(|d| Verdict::Fail(one_line(&d, &file)))?;
        let seconds = start.elapsed().as_secs_f64();
        let runtime = codegen::runtime_dependency(&krate.dir).map_err(Verdict::Fail)?;
        let files = CrateFiles {
            cargo_toml: gdlc::emit::rust::cargo_toml(&krate.name, &runtime),
            lib_rs,
            main_rs: None,
        };
        files.write(&krate.dir).map_err(Verdict::Fail)?;
        Ok((krate, seconds))
    }

    /// Writes the verify driver for `games`.
    fn write_verify_driver(&self, games: &[GameCrate]) -> Result<(), String> {
        let dir = self.root.join("drivers").join("verify");
        let workspace = codegen::workspace_root();
        let mut manifest = format!(
            "# Written by `cargo xtask verify`; rewritten for every batch of games.\n\
             [package]\nname = \"{VERIFY_DRIVER}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ngdlc = {}\ngdlc-runtime = {}\n",
            codegen::path_dependency(&dir, &workspace.join("gdlc"), ", default-features = false")?,
            codegen::path_dependency(&dir, &workspace.join("gdlc-runtime"), "")?,
        );
        let mut arms = String::new();
        for game in games {
            manifest.push_str(&format!(
                "{} = {}\n",
                game.name,
                codegen::path_dependency(&dir, &game.dir, "")?
            ));
            arms.push_str(&format!(
                "        \"{}\" => request.run({}::new()),\n",
                game.name,
                codegen::crate_ident(&game.name)
            ));
        }
        let main = format!(
            "//! Written by `cargo xtask verify`: compares each reasoner with the interpreter\n\
             //! (`gdlc::differential`). Usage: {VERIFY_DRIVER} GAME KIF DEPTH PLAYOUTS MAX_STEPS SEED\n\n\
             use std::process::ExitCode;\n\n\
             use gdlc::differential::DriverRequest;\n\n\
             fn main() -> ExitCode {{\n\
             \x20   let request = match DriverRequest::from_args(std::env::args().skip(1)) {{\n\
             \x20       Ok(request) => request,\n\
             \x20       Err(message) => {{\n\
             \x20           eprintln!(\"error: {{message}}\");\n\
             \x20           return ExitCode::from(2);\n\
             \x20       }}\n\
             \x20   }};\n\
             \x20   match request.game.as_str() {{\n\
             {arms}\
             \x20       _ => request.unknown_game(),\n\
             \x20   }}\n\
             }}\n"
        );
        write_file(&dir.join("Cargo.toml"), &manifest)?;
        write_file(&dir.join("src").join("main.rs"), &main)
    }

    /// Writes the perft driver for `game`.
    fn write_perft_driver(&self, game: &GameCrate) -> Result<(), String> {
        let dir = self.root.join("drivers").join("perft");
        let manifest = format!(
            "# Written by `cargo xtask perft`; rewritten for every game.\n\
             [package]\nname = \"{PERFT_DRIVER}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ngdlc-runtime = {}\ngame = {}\n",
            codegen::path_dependency(&dir, &codegen::workspace_root().join("gdlc-runtime"), "")?,
            codegen::path_dependency(&dir, &game.dir, &format!(", package = \"{}\"", game.name))?,
        );
        let main = format!(
            "//! Written by `cargo xtask perft`: perft of the reasoner compiled from\n\
             //! {}, printed as `gdlc perft` prints it. Usage: {PERFT_DRIVER} DEPTH\n\n\
             use std::io::Write as _;\n\
             use std::process::ExitCode;\n\n\
             use gdlc_runtime::Game as _;\n\n\
             fn main() -> ExitCode {{\n\
             \x20   let Some(depth) = std::env::args().nth(1).and_then(|a| a.parse::<u32>().ok()) else {{\n\
             \x20       eprintln!(\"usage: {PERFT_DRIVER} DEPTH\");\n\
             \x20       return ExitCode::from(2);\n\
             \x20   }};\n\
             \x20   let mut game = game::new();\n\
             \x20   let initial = game.initial_state();\n\
             \x20   let mut out = std::io::stdout().lock();\n\
             \x20   for d in 1..=depth {{\n\
             \x20       let count = gdlc_runtime::perft(&mut game, &initial, d);\n\
             \x20       // A closed pipe (e.g. `| head`) ends the output.\n\
             \x20       if writeln!(out, \"{{d}}\\t{{count}}\").and_then(|()| out.flush()).is_err() {{\n\
             \x20           break;\n\
             \x20       }}\n\
             \x20   }}\n\
             \x20   ExitCode::SUCCESS\n\
             }}\n",
            game.shown.replace('\n', " ")
        );
        write_file(&dir.join("Cargo.toml"), &manifest)?;
        write_file(&dir.join("src").join("main.rs"), &main)
    }

    /// `cargo build` of `package` with `profile` in the scratch workspace. Cargo's output
    /// is echoed to stderr (warnings left out) when `echo` is set, and kept in
    /// `logs/<log>.log`.
    pub fn build(
        &self,
        package: &str,
        profile: &str,
        extra: &[&str],
        log: &str,
    ) -> Result<Build, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .arg("build")
            .arg("--manifest-path")
            .arg(self.root.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(self.target_dir())
            .args(["--profile", profile, "--package", package])
            .args(extra)
            .env("CARGO_TERM_COLOR", "never")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(flags) = self.rustflags {
            let mut all = std::env::var("RUSTFLAGS").unwrap_or_default();
            if !all.is_empty() {
                all.push(' ');
            }
            all.push_str(flags);
            command.env("RUSTFLAGS", all);
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        let stdout = child.stdout.take().map(|mut out| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = out.read_to_string(&mut text);
                text
            })
        });
        let mut lines = Vec::new();
        if let Some(stderr) = child.stderr.take() {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let trimmed = line.trim_start();
                if self.echo && !(trimmed.starts_with("warning") || trimmed.contains(": warning")) {
                    eprintln!("    {trimmed}");
                }
                lines.push(line);
            }
        }
        let status = child
            .wait()
            .map_err(|e| format!("cargo did not finish: {e}"))?;
        let stdout = stdout.and_then(|t| t.join().ok()).unwrap_or_default();
        let log_path = self.root.join("logs").join(format!("{log}.log"));
        let mut text = lines.join("\n");
        text.push('\n');
        text.push_str(&stdout);
        write_file(&log_path, &text)?;
        Ok(Build {
            success: status.success(),
            lines,
            log: log_path,
        })
    }

    /// The path of binary `name` built with `profile`.
    pub fn binary(&self, profile: &str, name: &str) -> PathBuf {
        let dir = if profile == "dev" { "debug" } else { profile };
        self.target_dir()
            .join(dir)
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
    }
}

/// A finished cargo build.
pub(crate) struct Build {
    /// Whether cargo succeeded.
    pub success: bool,
    /// Cargo's stderr, line by line.
    pub lines: Vec<String>,
    /// Where the output was kept.
    pub log: PathBuf,
}

impl Build {
    /// The crates cargo could not compile.
    fn failed_crates(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter_map(|line| {
                let rest = line.trim().strip_prefix("error: could not compile `")?;
                Some(rest.split('`').next()?.to_owned())
            })
            .collect()
    }

    /// rustc's first error in the crate at `dir` (short message format).
    pub fn first_error_in(&self, root: &Path, dir: &Path) -> Option<String> {
        let relative = dir.strip_prefix(root).ok()?;
        let relative = format!("{}/", relative.display());
        let absolute = format!("{}/", dir.display());
        self.lines.iter().find_map(|line| {
            let line = line.trim();
            let in_crate = line
                .strip_prefix(&relative)
                .or(line.strip_prefix(&absolute))?;
            in_crate
                .contains(": error")
                .then(|| format!("rustc: {in_crate}"))
        })
    }

    /// The last error lines, for failures not tied to one game.
    pub fn error_summary(&self) -> String {
        let errors: Vec<&str> = self
            .lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| l.starts_with("error") || l.contains(": error"))
            .collect();
        let tail = &errors[errors.len().saturating_sub(5)..];
        format!(
            "cargo build failed (log: {}){}{}",
            self.log.display(),
            if tail.is_empty() { "" } else { ":\n  " },
            tail.join("\n  ")
        )
    }
}

/// Writes `text` to `path` unless it already holds it (creating directories).
pub(crate) fn write_file(path: &Path, text: &str) -> Result<(), String> {
    write_if_changed(path, text)
        .map(|_| ())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A diagnostic on one line: `message (file:line:column)`.
pub(crate) fn one_line(diagnostic: &gdlc::Diagnostic, file: &SourceFile) -> String {
    match diagnostic.span {
        Some(span) => {
            let (line, column) = file.line_column(span.start);
            format!("{diagnostic} ({}:{line}:{column})", file.name)
        }
        None => diagnostic.to_string(),
    }
}

/// Counts of verdicts.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Tally {
    fn report(&mut self, game: &str, verdict: Verdict) {
        match verdict {
            Verdict::Pass(summary) => {
                self.passed += 1;
                println!("PASS {game} ({summary})");
            }
            Verdict::Fail(reason) => {
                self.failed += 1;
                println!("FAIL {game}: {reason}");
            }
            Verdict::Skip(reason) => {
                self.skipped += 1;
                println!("SKIP {game}: {reason}");
            }
        }
    }
}

/// Verdicts printed in the order of the files, whatever the order they come in.
#[derive(Default)]
struct Reporter {
    tally: Tally,
    /// Verdicts that came before an earlier file's, by file number.
    waiting: std::collections::BTreeMap<usize, (String, Verdict)>,
    /// The number of the next file to print.
    next: usize,
}

impl Reporter {
    /// Records the verdict of file number `index`, printing every verdict now in order.
    fn report(&mut self, index: usize, game: String, verdict: Verdict) {
        self.waiting.insert(index, (game, verdict));
        while let Some((game, verdict)) = self.waiting.remove(&self.next) {
            self.tally.report(&game, verdict);
            self.next += 1;
        }
    }
}

/// A game whose driver is built, waiting to be checked.
struct Job {
    /// Its file number (for the order of the output).
    index: usize,
    shown: String,
    driver: PathBuf,
    args: Vec<String>,
}

/// The games waiting to be checked, shared by the builder and the workers.
#[derive(Default)]
struct Queue {
    jobs: std::collections::VecDeque<Job>,
    /// Whether every batch is built (no job will come).
    closed: bool,
}

/// The state shared between the builder (the calling thread) and the workers.
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    reporter: Mutex<Reporter>,
}

impl Shared {
    fn push(&self, job: Job) {
        lock(&self.queue).jobs.push_back(job);
        self.ready.notify_one();
    }

    fn close(&self) {
        lock(&self.queue).closed = true;
        self.ready.notify_all();
    }

    /// The next job, waiting for one; `None` once the queue is closed and empty.
    fn take(&self) -> Option<Job> {
        let mut queue = lock(&self.queue);
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                return Some(job);
            }
            if queue.closed {
                return None;
            }
            queue = self
                .ready
                .wait(queue)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    fn report(&self, index: usize, game: String, verdict: Verdict) {
        lock(&self.reporter).report(index, game, verdict);
    }
}

/// Locks a mutex, going on if another thread panicked while holding it (the data are
/// verdicts and jobs, still meaningful).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// [`verify_with_jobs`] one game at a time.
pub fn verify(files: &[PathBuf], options: &VerifyOptions) -> Result<bool, String> {
    verify_with_jobs(files, options, 1)
}

/// `cargo xtask verify FILE...`; true when no game failed.
///
/// The calling thread compiles and builds batch after batch, and `jobs` workers check
/// the games of the batches already built meanwhile, each game in its own process;
/// every batch's driver is copied (`bin/verify-<n>`) so that building the next
/// batch does not replace a driver in use. Verdicts are printed in the order of the
/// files.
pub fn verify_with_jobs(
    files: &[PathBuf],
    options: &VerifyOptions,
    jobs: usize,
) -> Result<bool, String> {
    let files = &distinct_files(files);
    let scratch = Scratch::open_verify()?;
    let start = Instant::now();
    let shared = Shared {
        queue: Mutex::new(Queue::default()),
        ready: Condvar::new(),
        reporter: Mutex::new(Reporter::default()),
    };
    let limits = Limits {
        timeout: options.timeout,
        memory_mb: options.memory_mb,
    };
    let bin = scratch.root.join("bin");
    let built = std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                while let Some(job) = shared.take() {
                    let verdict = run_driver(&job.driver, &job.args, &limits);
                    shared.report(job.index, job.shown, verdict);
                }
            });
        }
        let built = build_batches(&scratch, files, options, &bin, &shared);
        // The workers finish the jobs queued so far, then stop.
        shared.close();
        built
    });
    let _ = std::fs::remove_dir_all(&bin);
    built?;
    let reporter = shared
        .reporter
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let tally = reporter.tally;
    println!(
        "verified {} game(s): {} passed, {} failed, {} skipped",
        files.len(),
        tally.passed,
        tally.failed,
        tally.skipped
    );
    eprintln!("verify took {:.1} s", start.elapsed().as_secs_f64());
    Ok(tally.failed == 0)
}

/// `files` without the repeats of a file named twice (the same path, or two paths to
/// one file: `games/chess.kif` and its absolute path), each noted on stderr: a game's
/// crate is named after its file, and one batch cannot hold two crates of one name.
fn distinct_files(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    let mut distinct = Vec::new();
    for file in files {
        let key = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
        if seen.insert(key) {
            distinct.push(file.clone());
        } else {
            eprintln!(
                "note: {} is named more than once; verified once",
                file.display()
            );
        }
    }
    distinct
}

/// Compiles and builds the games of `files` batch after batch, queueing each game
/// of a built batch for the workers and reporting the others' verdicts.
fn build_batches(
    scratch: &Scratch,
    files: &[PathBuf],
    options: &VerifyOptions,
    bin: &Path,
    shared: &Shared,
) -> Result<(), String> {
    let batch_size = options.batch.max(1);
    let batches = files.len().div_ceil(batch_size);
    for (number, batch) in files.chunks(batch_size).enumerate() {
        let label = format!("batch {}/{batches}", number + 1);
        let first = number * batch_size;
        let mut games = Vec::new();
        let mut gdlc_seconds = 0.0;
        for (offset, path) in batch.iter().enumerate() {
            match scratch.prepare(path, options.backend) {
                Ok((game, seconds)) => {
                    gdlc_seconds += seconds;
                    games.push((first + offset, game));
                }
                Err(verdict) => {
                    shared.report(first + offset, path.display().to_string(), verdict);
                }
            }
        }
        if games.is_empty() {
            continue;
        }
        eprintln!(
            "{label}: gdlc compiled {} game(s) in {gdlc_seconds:.2} s; building the driver (cargo build --profile verify)",
            games.len()
        );
        let start = Instant::now();
        let games = build_verify_driver(scratch, games, &label, shared)?;
        if games.is_empty() {
            continue;
        }
        eprintln!(
            "{label}: built in {:.1} s; checking {} game(s)",
            start.elapsed().as_secs_f64(),
            games.len()
        );
        std::fs::create_dir_all(bin)
            .map_err(|e| format!("cannot create {}: {e}", bin.display()))?;
        let driver = bin.join(format!(
            "verify-{}{}",
            number + 1,
            std::env::consts::EXE_SUFFIX
        ));
        let built = scratch.binary("verify", VERIFY_DRIVER);
        std::fs::copy(&built, &driver).map_err(|e| {
            format!(
                "cannot copy {} to {}: {e}",
                built.display(),
                driver.display()
            )
        })?;
        for (index, game) in games {
            let request = DriverRequest {
                game: game.name.clone(),
                kif: game.kif.clone(),
                depth: options.depth,
                playouts: options.playouts,
                max_steps: options.max_steps,
                seed: options.seed,
            };
            shared.push(Job {
                index,
                shown: game.shown,
                driver: driver.clone(),
                args: request.to_args(),
            });
        }
    }
    Ok(())
}

/// Builds the verify driver for `games`; those whose crate does not compile are
/// reported and left out. The games the driver was built with.
fn build_verify_driver(
    scratch: &Scratch,
    mut games: Vec<(usize, GameCrate)>,
    label: &str,
    shared: &Shared,
) -> Result<Vec<(usize, GameCrate)>, String> {
    let log = format!("verify-{}", label.replace(['/', ' '], "-"));
    while !games.is_empty() {
        let crates: Vec<GameCrate> = games.iter().map(|(_, g)| g.clone()).collect();
        scratch.write_verify_driver(&crates)?;
        let build = scratch.build(
            VERIFY_DRIVER,
            "verify",
            &["--keep-going", "--message-format", "short"],
            &log,
        )?;
        if build.success {
            return Ok(games);
        }
        let failed = build.failed_crates();
        let (broken, fine): (Vec<_>, Vec<_>) = games
            .into_iter()
            .partition(|(_, g)| failed.contains(&g.name));
        if broken.is_empty() {
            // Not a game's fault (the driver, a dependency, cargo itself): every game
            // of the batch fails with cargo's errors.
            let summary = build.error_summary();
            for (index, game) in fine {
                shared.report(index, game.shown, Verdict::Fail(summary.clone()));
            }
            return Ok(Vec::new());
        }
        for (index, game) in broken {
            let reason = build
                .first_error_in(&scratch.root, &game.dir)
                .unwrap_or_else(|| build.error_summary());
            let reason = format!(
                "the generated crate does not compile: {reason}\n  (crate {}, log {})",
                game.dir.display(),
                build.log.display()
            );
            shared.report(index, game.shown, Verdict::Fail(reason));
        }
        games = fine;
        if !games.is_empty() {
            eprintln!("{label}: rebuilding the driver without the games that failed");
        }
    }
    Ok(games)
}

/// The limits of one run of a driver.
pub(crate) struct Limits {
    /// Wall-clock time, after which the driver is killed.
    pub timeout: Duration,
    /// Address space in MiB (0: unlimited).
    pub memory_mb: u64,
}

/// A command running `program` with its address space limited to `memory_mb` MiB (on
/// Unix, through the shell's `ulimit -v`; 0 or elsewhere: no limit). A reasoner that
/// runs away then fails alone instead of taking the machine's memory.
fn limited_command(program: &Path, memory_mb: u64) -> Command {
    if cfg!(unix) && memory_mb > 0 {
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(format!(
                "ulimit -v {} && exec \"$0\" \"$@\"",
                memory_mb.saturating_mul(1024)
            ))
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// How a run of a driver ended.
pub(crate) struct Finished {
    /// Its exit status (`None` if it could not be waited for after a kill).
    pub status: Option<ExitStatus>,
    /// Whether it was killed at the time-out.
    pub timed_out: bool,
    /// Everything it printed on stdout.
    pub stdout: String,
    /// Everything it printed on stderr.
    pub stderr: String,
}

impl Finished {
    /// The last lines of stderr, as `:\n  line…`, or nothing.
    pub fn stderr_tail(&self) -> String {
        let lines: Vec<&str> = self.stderr.lines().collect();
        let tail = &lines[lines.len().saturating_sub(8)..];
        if tail.is_empty() {
            String::new()
        } else {
            format!(":\n  {}", tail.join("\n  "))
        }
    }

    /// Why the run gave no result, in words: killed at the time-out, out of memory, or
    /// how it ended; with the end of its stderr.
    pub fn failure(&self, limits: &Limits) -> String {
        let detail = self.stderr_tail();
        if self.timed_out {
            format!(
                "no result after {} s (killed){detail}",
                limits.timeout.as_secs()
            )
        } else if self.stderr.contains("memory allocation of") {
            format!("ran out of memory (limit {} MiB){detail}", limits.memory_mb)
        } else {
            format!("the driver {}{detail}", describe(self.status))
        }
    }
}

/// Runs `program` with `args` under `limits`, collecting its output; killed at the
/// time-out. `Err` only when it cannot be started or waited for.
pub(crate) fn run_limited(
    program: &Path,
    args: &[String],
    limits: &Limits,
) -> Result<Finished, String> {
    let mut child = limited_command(program, limits.memory_mb)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        pipe.map(|mut pipe| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = pipe.read_to_string(&mut text);
                text
            })
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    let (status, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (Some(status), false),
            Ok(None) if start.elapsed() >= limits.timeout => {
                // Best effort: if it cannot be killed it is already gone.
                let _ = child.kill();
                break (child.wait().ok(), true);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for {}: {e}", program.display())),
        }
    };
    let collect = |t: Option<std::thread::JoinHandle<String>>| {
        t.and_then(|t| t.join().ok()).unwrap_or_default()
    };
    Ok(Finished {
        status,
        timed_out,
        stdout: collect(stdout),
        stderr: collect(stderr),
    })
}

/// Runs a driver with `args` and reads its verdict, killing it after the time-out.
fn run_driver(driver: &Path, args: &[String], limits: &Limits) -> Verdict {
    let finished = match run_limited(driver, args, limits) {
        Ok(finished) => finished,
        Err(message) => return Verdict::Fail(message),
    };
    if let Some(summary) = finished.stdout.strip_prefix("PASS ") {
        return Verdict::Pass(summary.trim_end().to_owned());
    }
    if let Some(difference) = finished.stdout.strip_prefix("FAIL ") {
        return Verdict::Fail(difference.trim_end().to_owned());
    }
    let detail = finished.stderr_tail();
    if finished.timed_out {
        return Verdict::Fail(format!(
            "no verdict after {} s (killed; raise --timeout){detail}",
            limits.timeout.as_secs()
        ));
    }
    if finished.stderr.contains("memory allocation of") {
        return Verdict::Fail(format!(
            "ran out of memory (limit {} MiB; raise --memory){detail}",
            limits.memory_mb
        ));
    }
    Verdict::Fail(finished.failure(limits))
}

/// How a process ended, in words.
pub(crate) fn describe(status: Option<ExitStatus>) -> String {
    let Some(status) = status else {
        return "ended in an unknown way".to_owned();
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            let cause = match signal {
                6 => " (SIGABRT: an abort, e.g. a stack overflow)",
                9 => " (SIGKILL: e.g. the out-of-memory killer)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            return format!("was killed by signal {signal}{cause}");
        }
    }
    match status.code() {
        Some(101) => "panicked".to_owned(),
        Some(code) => format!("exited with code {code} and no verdict"),
        None => format!("ended with {status}"),
    }
}

/// `cargo xtask perft FILE DEPTH`: the compiled reasoner's perft, as `gdlc perft`
/// prints it.
pub fn perft(path: &Path, depth: u32) -> Result<ExitCode, String> {
    let scratch = Scratch::open_verify()?;
    let file = SourceFile::read(path).map_err(|d| d.to_string())?;
    let front = gdlc::front_end(&file);
    if !front.is_valid() {
        let rendered: String = front
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.render(&file))
            .collect();
        return Err(format!("{} is not valid GDL:\n{rendered}", path.display()));
    }
    let game = match scratch.prepare(path, gdlc::Backend::Auto) {
        Ok((game, seconds)) => {
            eprintln!("gdlc: {} compiled in {seconds:.3} s", path.display());
            game
        }
        Err(verdict) => return Err(verdict.into_message()),
    };
    scratch.write_perft_driver(&game)?;
    eprintln!("building the reasoner (cargo build --release)");
    let build = scratch.build(
        PERFT_DRIVER,
        "release",
        &["--message-format", "short"],
        "perft",
    )?;
    if !build.success {
        return Err(build.error_summary());
    }
    let status = Command::new(scratch.binary("release", PERFT_DRIVER))
        .arg(depth.to_string())
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run the perft driver: {e}"))?;
    if status.success() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(format!("the perft driver {}", describe(Some(status))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_named_twice_is_verified_once() {
        let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let relative = PathBuf::from("Cargo.toml");
        let absolute = manifest.join("Cargo.toml");
        let other = manifest.join("src/main.rs");
        // The test runs in the crate's directory, where the relative path is the same file.
        let files = [absolute.clone(), other.clone(), relative, absolute.clone()];
        assert_eq!(distinct_files(&files), [absolute, other]);
        // A missing file stays (its error is reported when it is compiled).
        let missing = PathBuf::from("no/such/game.kif");
        assert_eq!(
            distinct_files(&[missing.clone(), missing.clone()]),
            [missing]
        );
    }

    #[test]
    fn hashes_are_stable() {
        // FNV-1a test vectors.
        assert_eq!(stable_hash(b""), 0x811c_9dc5);
        assert_eq!(stable_hash(b"a"), 0xe40c_292c);
        assert_eq!(stable_hash(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn build_output_names_the_failed_crates_and_their_errors() {
        let root = Path::new("/s/verify");
        let build = Build {
            success: false,
            lines: vec![
                "   Compiling gdlc-game-a-00000001 v0.1.0 (/s/verify/games/a-00000001)".into(),
                "games/a-00000001/src/lib.rs:3:9: warning: unused variable: `x`".into(),
                "games/a-00000001/src/lib.rs:7:5: error[E0425]: cannot find value `y` in this scope".into(),
                "error: could not compile `gdlc-game-a-00000001` (lib) due to 1 previous error; 1 warning emitted".into(),
            ],
            log: PathBuf::from("/s/verify/logs/x.log"),
        };
        assert_eq!(build.failed_crates(), ["gdlc-game-a-00000001"]);
        assert_eq!(
            build
                .first_error_in(root, &root.join("games/a-00000001"))
                .as_deref(),
            Some("rustc: src/lib.rs:7:5: error[E0425]: cannot find value `y` in this scope")
        );
        assert_eq!(
            build.first_error_in(root, &root.join("games/b-00000002")),
            None
        );
        assert!(build.error_summary().contains("could not compile"));
    }
}

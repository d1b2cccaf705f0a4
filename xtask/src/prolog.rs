//! The SWI-Prolog baseline run from xtask: `cargo xtask prolog` and the Prolog column
//! of `cargo xtask bench`.
//!
//! [`write_program`] writes a game's Prolog translation and the driver
//! (`gdlc::emit::prolog`) into a directory; [`run`] runs one of the driver's command
//! lines (`prolog::perft_command`, `prolog::playouts_command`) and returns its output
//! or why it failed — with a distinct error when `swipl` is not installed, which the
//! bench reports as an empty column rather than a failure.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use gdlc::emit::prolog;

use crate::codegen;
use crate::scratch::{self, Limits};

/// Where `cargo xtask prolog` writes programs: `$CARGO_TARGET_DIR/prolog`, else
/// `<workspace>/target/prolog`.
pub fn root() -> PathBuf {
    scratch::target_root().join("prolog")
}

/// The message when `swipl` cannot be found.
pub const SWIPL_MISSING: &str = "swipl not installed (apt-get install swi-prolog-nox)";

/// Why a run of the Prolog driver gave no output.
#[derive(Debug)]
pub enum RunError {
    /// `swipl` is not installed (not on `PATH`).
    Missing,
    /// It ran and failed, or could not be run: the message.
    Failed(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Missing => f.write_str(SWIPL_MISSING),
            RunError::Failed(message) => f.write_str(message),
        }
    }
}

/// Writes the Prolog program of the valid game `front` (read from `path`) and the
/// driver into `dir`.
pub fn write_program(front: &gdlc::FrontEnd, path: &Path, dir: &Path) -> Result<(), String> {
    let program =
        prolog::emit_program(front, &path.display().to_string()).map_err(|d| d.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (file_name, text) in [
        (prolog::PROGRAM_FILE, program.as_str()),
        (prolog::DRIVER_FILE, prolog::DRIVER),
    ] {
        let target = dir.join(file_name);
        std::fs::write(&target, text)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    Ok(())
}

/// Runs the driver's `command` (on the program in `dir`); killed after `timeout` when
/// one is given. Its stdout, or why there is none.
pub fn run(command: &Command, dir: &Path, timeout: Option<Duration>) -> Result<String, RunError> {
    let program = Path::new(command.get_program());
    let args: Vec<String> = command
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let limits = Limits {
        // Without a time-out: as long as it takes.
        timeout: timeout.unwrap_or(Duration::MAX),
        memory_mb: 0,
    };
    if !swipl_available(program) {
        return Err(RunError::Missing);
    }
    let finished = scratch::run_limited(program, &args, &limits).map_err(RunError::Failed)?;
    if finished.timed_out || !finished.status.is_some_and(|s| s.success()) {
        let why = if finished.timed_out {
            format!(
                "no result after {:.0} s (killed)",
                limits.timeout.as_secs_f64()
            )
        } else {
            scratch::describe(finished.status)
        };
        return Err(RunError::Failed(format!(
            "swipl on {} {why}:\n{}{}",
            dir.join(prolog::PROGRAM_FILE).display(),
            finished.stdout,
            finished.stderr.trim_end()
        )));
    }
    Ok(finished.stdout)
}

/// Whether `program` (`swipl`) can be started.
fn swipl_available(program: &Path) -> bool {
    Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

/// `swipl --version`'s text, or `None` when it is not installed.
pub fn swipl_version() -> Option<String> {
    let output = Command::new("swipl").arg("--version").output().ok()?;
    Some(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// `cargo xtask prolog FILE (--perft DEPTH | --seconds N) [--seed N]`.
pub fn command(
    path: &Path,
    perft: Option<u32>,
    seconds: Option<f64>,
    seed: u64,
) -> Result<(), String> {
    let name = codegen::game_stem(path);
    let (front, _) = crate::load(path)?;
    let dir = root().join(&name);
    write_program(&front, path, &dir)?;
    let command = match (perft, seconds) {
        (Some(depth), _) => prolog::perft_command(&dir, depth),
        (None, Some(seconds)) => prolog::playouts_command(&dir, seconds, seed, 100_000),
        (None, None) => return Err("give --perft DEPTH or --seconds N".to_owned()),
    };
    let stdout = run(&command, &dir, None).map_err(|e| e.to_string())?;
    if perft.is_some() {
        let counts = prolog::parse_perft(&stdout).map_err(|e| e.to_string())?;
        for (depth, count) in counts {
            println!("{depth}\t{count}");
        }
    } else {
        let report = prolog::parse_playouts(&stdout).map_err(|e| e.to_string())?;
        println!("game\tplayouts\tstates\tseconds\tplayouts/s\tstates/s");
        println!("{}", crate::rate_line(&name, &report));
    }
    Ok(())
}

//! Reasoners compiled on the fly: for rules that are not built in, gdlc compiles them to
//! Rust, cargo builds a small crate around the code (the game plus `gdlc-search`'s
//! worker loop), and the player searches in that worker process from then on.
//!
//! The crate is written under the cache directory (`$GDLC_PLAYER_CACHE`, else
//! `$HOME/.cache/gdlc-player`, else the system's temporary directory), one per rules
//! fingerprint, and built into one shared target directory there, so the runtime and
//! the search are compiled once and a game seen before is not built again. The crate
//! depends on the runtime and the search by path, on the sources this player was built
//! from: a player moved away from them cannot compile on the fly, and says so.
//!
//! The worker speaks the line protocol of `gdlc_search::worker`; [`Worker`] is the
//! parent's side, with a time limit on every reply.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use gdlc::SourceFile;

/// Where the crates and their shared target directory go.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("GDLC_PLAYER_CACHE") {
        return PathBuf::from(dir);
    }
    match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".cache/gdlc-player"),
        None => std::env::temp_dir().join("gdlc-player"),
    }
}

/// The workspace this player was built from.
fn workspace_root() -> Result<PathBuf, String> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "the player's sources have no parent directory".to_owned())
}

/// The sources of `gdlc-runtime` and `gdlc-search` this player was built from.
fn sources() -> Result<(PathBuf, PathBuf), String> {
    let root = workspace_root()?;
    let runtime = root.join("gdlc-runtime");
    let search = root.join("search");
    if runtime.join("Cargo.toml").is_file() && search.join("Cargo.toml").is_file() {
        Ok((runtime, search))
    } else {
        Err(format!(
            "the gdlc sources this player was built from are gone ({}): no compilation on the fly",
            root.display()
        ))
    }
}

/// A built worker binary, and how long gdlc and cargo took.
#[derive(Clone, Debug)]
pub struct Built {
    /// The executable.
    pub binary: PathBuf,
    /// gdlc's time (rules to Rust).
    pub gdlc: Duration,
    /// cargo's time (nothing to do when the crate was built before).
    pub cargo: Duration,
}

/// Compiles `rules` (valid GDL) into a worker binary under `cache`; `fingerprint`
/// names the crate.
pub fn build(rules: &str, fingerprint: u64, cache: &Path) -> Result<Built, String> {
    let (runtime, search) = sources()?;
    let started = Instant::now();
    let file = SourceFile::new("rules.kif", rules);
    let code = gdlc::compile_rust(&file).map_err(|diagnostics| {
        diagnostics
            .iter()
            .map(|d| d.render(&file))
            .collect::<String>()
    })?;
    let gdlc_time = started.elapsed();
    let name = format!("gdlc-worker-{fingerprint:016x}");
    let dir = cache.join("crates").join(&name);
    let write = |path: PathBuf, text: &str| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        gdlc::builder::write_if_changed(&path, text)
            .map(|_| ())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let manifest = format!(
        "# Written by gdlc-player: a natively compiled reasoner and a search worker.\n\
         [package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\ngdlc-runtime = {{ path = {runtime:?} }}\ngdlc-search = {{ path = {search:?} }}\n\n\
         [workspace]\n"
    );
    write(dir.join("Cargo.toml"), &manifest)?;
    // The workspace's lock file: the same dependency versions as the player's, already
    // downloaded, so that cargo needs no registry to resolve them.
    let lock = dir.join("Cargo.lock");
    if !lock.exists()
        && let Ok(text) = std::fs::read_to_string(workspace_root()?.join("Cargo.lock"))
    {
        write(lock, &text)?;
    }
    write(dir.join("src/game.rs"), &code)?;
    write(
        dir.join("src/main.rs"),
        "//! A worker process (see `gdlc_search::worker`) for one game.\n\n\
         #[allow(missing_docs, clippy::all)]\nmod game {\n    include!(\"game.rs\");\n}\n\n\
         fn main() {\n    gdlc_search::worker::main(game::new);\n}\n",
    )?;
    let target = cache.join("target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let started = Instant::now();
    let output = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
        return Err(format!(
            "cargo build failed:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(Built {
        binary: target
            .join("release")
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX)),
        gdlc: gdlc_time,
        cargo: started.elapsed(),
    })
}

/// A running worker process.
pub struct Worker {
    child: Child,
    input: ChildStdin,
    replies: Receiver<String>,
    /// The game's roles, as the worker reported them.
    pub roles: Vec<String>,
}

impl Worker {
    /// Starts `binary` with `threads` search threads and waits for its `ready` line.
    pub fn spawn(binary: &Path, threads: usize) -> Result<Worker, String> {
        let mut child = Command::new(binary)
            .arg(threads.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let (input, output) = match (child.stdin.take(), child.stdout.take()) {
            (Some(input), Some(output)) => (input, output),
            _ => return Err("the worker has no pipes".to_owned()),
        };
        let (send, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut worker = Worker {
            child,
            input,
            replies,
            roles: Vec::new(),
        };
        let ready = worker.reply(Duration::from_secs(5))?;
        match ready.strip_prefix("ready\t") {
            Some(roles) => worker.roles = roles.split('\t').map(str::to_owned).collect(),
            None => return Err(format!("the worker said `{ready}` instead of ready")),
        }
        Ok(worker)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.input, "{line}")
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("the worker is gone: {e}"))
    }

    fn reply(&mut self, within: Duration) -> Result<String, String> {
        let line = self
            .replies
            .recv_timeout(within)
            .map_err(|_| "the worker did not answer in time".to_owned())?;
        match line.strip_prefix("error\t") {
            Some(why) => Err(format!("the worker: {why}")),
            None => Ok(line),
        }
    }

    /// The joint move played (KIF text, one per role).
    pub fn advance(&mut self, moves: &[String]) -> Result<(), String> {
        self.send(&format!("advance\t{}", moves.join("\t")))?;
        match self.reply(Duration::from_secs(2))?.as_str() {
            "ok" => Ok(()),
            other => Err(format!("the worker said `{other}` to advance")),
        }
    }

    /// The best move of `role` after searching for `budget`, waiting for it at most
    /// `wait` (at least `budget`), and the iterations the worker's main thread ran.
    pub fn think(
        &mut self,
        budget: Duration,
        wait: Duration,
        role: usize,
    ) -> Result<(String, u64), String> {
        self.send(&format!("think\t{}\t{role}", budget.as_millis()))?;
        let line = self.reply(wait.max(budget))?;
        line.strip_prefix("move\t")
            .and_then(|rest| rest.split_once('\t'))
            .and_then(|(text, n)| Some((text.to_owned(), n.parse().ok()?)))
            .ok_or_else(|| format!("the worker said `{line}` to think"))
    }
}

impl Worker {
    /// gdl-perf's perf test in the worker, for `seconds`.
    pub fn perf(&mut self, seconds: u64) -> Result<gdlc_search::perf::PerfCounts, String> {
        self.send(&format!("perf\t{seconds}"))?;
        let line = self.reply(Duration::from_secs(seconds + 10))?;
        let fields: Vec<&str> = line.split('\t').collect();
        let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
        match (fields.first(), number(1), number(2), number(3)) {
            (Some(&"perf"), Some(millis), Some(state_changes), Some(rollouts)) => {
                Ok(gdlc_search::perf::PerfCounts {
                    elapsed: Duration::from_millis(millis),
                    state_changes,
                    rollouts,
                })
            }
            _ => Err(format!("the worker said `{line}` to perf")),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(200);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

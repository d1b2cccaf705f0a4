//! Compiling games from a build script, in the style of `prost-build`.
//!
//! In `Cargo.toml`, depend on gdlc at build time without the prover (which would build
//! clingo) and on the runtime at run time:
//!
//! ```toml
//! [dependencies]
//! gdlc-runtime = "…"
//!
//! [build-dependencies]
//! gdlc = { version = "…", default-features = false }
//! ```
//!
//! In `build.rs`'s `main`:
//!
//! ```no_run
//! gdlc::Builder::new()
//!     .file("games/tictactoe.kif")
//!     .compile_or_exit();
//! ```
//!
//! and in the crate, one module per game (the file is named after the game's stem):
//!
//! ```ignore
//! pub mod tictactoe {
//!     include!(concat!(env!("OUT_DIR"), "/tictactoe.rs"));
//! }
//!
//! let mut game = tictactoe::new(); // a `gdlc_runtime::Game`
//! ```
//!
//! [`Builder::compile`] writes `<out_dir>/<stem>.rs` for every file (the output directory
//! is `$OUT_DIR` unless [`Builder::out_dir`] says otherwise), rewriting a file only when
//! its content changed so that dependants are not rebuilt for nothing, and prints
//! `cargo:rerun-if-changed=<file>` for each game and `cargo:warning=…` for each warning
//! of the validator. [`Builder::compile_or_exit`] renders the errors (file, line, column
//! and the source line) on stderr and exits with code 1, which makes cargo show them.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::{Diagnostic, SourceFile};

/// Compiles GDL games to Rust source files for `include!` (see the module docs).
#[derive(Clone, Debug)]
pub struct Builder {
    files: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    cargo_directives: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// A builder with no game, writing to `$OUT_DIR` and printing cargo directives.
    pub fn new() -> Self {
        Builder {
            files: Vec::new(),
            out_dir: None,
            cargo_directives: true,
        }
    }

    /// Adds a game (a KIF file; a relative path is relative to the package's directory,
    /// where cargo runs build scripts).
    pub fn file(mut self, path: impl AsRef<Path>) -> Self {
        self.files.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds several games.
    pub fn files<P: AsRef<Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
        self.files
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// Writes the generated files to `dir` instead of `$OUT_DIR` (created if missing).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` and `cargo:warning` lines on stdout
    /// (default: yes; turn off when not running as a build script).
    pub fn cargo_directives(mut self, print: bool) -> Self {
        self.cargo_directives = print;
        self
    }

    /// The file `compile` writes for `game`: `<out_dir>/<stem>.rs`.
    fn output_name(game: &Path) -> Option<String> {
        let stem = game.file_stem()?.to_str()?;
        (!stem.is_empty()).then(|| format!("{stem}.rs"))
    }

    /// Compiles every game and writes `<out_dir>/<stem>.rs` for each, in the order the
    /// games were added. Every game is attempted; the error lists each one that failed.
    pub fn compile(&self) -> Result<Vec<PathBuf>, BuildError> {
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::NoOutDir)?,
        };
        if self.cargo_directives {
            for game in &self.files {
                println!("cargo:rerun-if-changed={}", game.display());
            }
        }
        let mut outputs = Vec::with_capacity(self.files.len());
        for game in &self.files {
            let Some(name) = Self::output_name(game) else {
                return Err(BuildError::NoFileName(game.clone()));
            };
            let output = out_dir.join(name);
            if let Some(earlier) = outputs
                .iter()
                .position(|o| *o == output)
                .map(|i| self.files[i].clone())
            {
                return Err(BuildError::SameName {
                    first: earlier,
                    second: game.clone(),
                    output,
                });
            }
            outputs.push(output);
        }
        std::fs::create_dir_all(&out_dir).map_err(|error| BuildError::OutDir {
            path: out_dir.clone(),
            error,
        })?;
        let mut failures = Vec::new();
        for (game, output) in self.files.iter().zip(&outputs) {
            if let Err(failure) = self.compile_one(game, output) {
                failures.push(failure);
            }
        }
        if failures.is_empty() {
            Ok(outputs)
        } else {
            Err(BuildError::Games(failures))
        }
    }

    fn compile_one(&self, game: &Path, output: &Path) -> Result<(), GameError> {
        let file = SourceFile::read(game).map_err(GameError::Read)?;
        let front = crate::front_end(&file);
        if self.cargo_directives {
            for warning in front.diagnostics.iter().filter(|d| !d.is_error()) {
                println!("cargo:warning={}", one_line(warning, &file));
            }
        }
        if !front.is_valid() {
            let diagnostics = front
                .diagnostics
                .into_iter()
                .filter(Diagnostic::is_error)
                .collect();
            return Err(GameError::Compile { file, diagnostics });
        }
        let code = match crate::compile::rust_from_front_end(&front, &file.name) {
            Ok(code) => code,
            Err(diagnostic) => {
                return Err(GameError::Compile {
                    file,
                    diagnostics: vec![diagnostic],
                });
            }
        };
        write_if_changed(output, &code).map_err(|error| GameError::Write {
            path: output.to_path_buf(),
            error,
        })?;
        Ok(())
    }

    /// [`compile`](Self::compile), or on failure the rendered errors on stderr and exit
    /// code 1 (for `build.rs`: cargo then shows them and stops the build).
    pub fn compile_or_exit(&self) -> Vec<PathBuf> {
        match self.compile() {
            Ok(outputs) => outputs,
            Err(error) => {
                eprint!("{}", error.render());
                eprintln!("error: gdlc could not compile the game rules");
                std::process::exit(1);
            }
        }
    }
}

/// A diagnostic on one line: `file:line:column: warning[code]: message`.
fn one_line(diagnostic: &Diagnostic, file: &SourceFile) -> String {
    match diagnostic.span {
        Some(span) => {
            let (line, column) = file.line_column(span.start);
            format!("{}:{line}:{column}: {diagnostic}", file.name)
        }
        None => format!("{}: {diagnostic}", file.name),
    }
}

/// Why [`Builder::compile`] failed.
#[derive(Debug)]
pub enum BuildError {
    /// No output directory: `$OUT_DIR` is not set (not in a build script) and
    /// [`Builder::out_dir`] was not called.
    NoOutDir,
    /// The output directory cannot be created.
    OutDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// A game path without a file name to name its output after.
    NoFileName(PathBuf),
    /// Two games would be written to the same file.
    SameName {
        /// The game added first.
        first: PathBuf,
        /// The game added later.
        second: PathBuf,
        /// The file both would be written to.
        output: PathBuf,
    },
    /// Games that failed (the others were written).
    Games(Vec<GameError>),
}

/// Why one game failed.
#[derive(Debug)]
pub enum GameError {
    /// The file cannot be read.
    Read(Diagnostic),
    /// The game is not valid GDL, or the compiler cannot compile it.
    Compile {
        /// The game's source, to render the diagnostics against.
        file: SourceFile,
        /// The errors.
        diagnostics: Vec<Diagnostic>,
    },
    /// The generated file cannot be written.
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
}

impl GameError {
    /// The error as text: rendered diagnostics (with file, line, column and the source
    /// line) or a one-line message.
    pub fn render(&self) -> String {
        match self {
            GameError::Read(diagnostic) => format!("{diagnostic}\n"),
            GameError::Compile { file, diagnostics } => {
                diagnostics.iter().map(|d| d.render(file)).collect()
            }
            GameError::Write { path, error } => {
                format!("error: cannot write {}: {error}\n", path.display())
            }
        }
    }
}

impl BuildError {
    /// The error as text, one rendered block per failure.
    pub fn render(&self) -> String {
        match self {
            BuildError::NoOutDir => {
                "error: OUT_DIR is not set: call gdlc::Builder from a build script, or give it an out_dir\n"
                    .to_owned()
            }
            BuildError::OutDir { path, error } => {
                format!("error: cannot create {}: {error}\n", path.display())
            }
            BuildError::NoFileName(path) => {
                format!("error: `{}` has no file name to name its output after\n", path.display())
            }
            BuildError::SameName {
                first,
                second,
                output,
            } => format!(
                "error: `{}` and `{}` would both be written to {}: rename one of them\n",
                first.display(),
                second.display(),
                output.display()
            ),
            BuildError::Games(failures) => failures.iter().map(GameError::render).collect(),
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render().trim_end())
    }
}

impl std::error::Error for BuildError {}

/// Writes `contents` to `path` unless the file already holds exactly that; true if it
/// wrote. Creates missing parent directories. The new content is written to a
/// temporary file beside the target and renamed over it, so a reader never sees a
/// half-written file.
pub fn write_if_changed(path: &Path, contents: &str) -> io::Result<bool> {
    match std::fs::read(path) {
        Ok(existing) if existing == contents.as_bytes() => return Ok(false),
        Ok(_) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    // Unique per process and per call, so that threads writing the same file at once
    // each rename their own complete copy.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}.{call}.tmp", std::process::id()));
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, contents)?;
    std::fs::rename(&temporary, path).inspect_err(|_| {
        // Best effort: the rename's error is the one worth reporting.
        let _ = std::fs::remove_file(&temporary);
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh, empty directory under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gdlc-builder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch directory");
        dir
    }

    fn modified(path: &Path) -> std::time::SystemTime {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .expect("metadata")
    }

    #[test]
    fn writes_only_changed_content() {
        let dir = scratch("write");
        let path = dir.join("sub/dir/out.rs");
        assert!(write_if_changed(&path, "one").expect("first write"));
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "one");
        let first = modified(&path);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!write_if_changed(&path, "one").expect("same content"));
        assert_eq!(modified(&path), first, "unchanged content is not rewritten");
        assert!(write_if_changed(&path, "two").expect("new content"));
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "two");
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().expect("parent"))
            .expect("list")
            .filter_map(Result::ok)
            .filter(|e| e.file_name() != "out.rs")
            .collect();
        assert!(leftovers.is_empty(), "no temporary file is left behind");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Threads of one process writing the same file at once (two builds of one crate)
    /// each succeed, and the file ends whole.
    #[test]
    fn threads_writing_one_file_at_once_all_succeed() {
        let dir = scratch("threads");
        let path = dir.join("out.rs");
        std::thread::scope(|scope| {
            for i in 0..8 {
                let path = &path;
                scope.spawn(move || {
                    for round in 0..50 {
                        let text = format!("thread {i} round {round}");
                        write_if_changed(path, &text).expect("each write succeeds");
                    }
                });
            }
        });
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(
            text.starts_with("thread ") && text.contains(" round 49"),
            "{text}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn games_compile_to_their_stem_and_are_rewritten_only_when_changed() {
        let dir = scratch("valid");
        let game = concat!(env!("CARGO_MANIFEST_DIR"), "/../games/tictactoe.kif");
        let builder = Builder::new()
            .file(game)
            .out_dir(dir.join("out"))
            .cargo_directives(false);
        let outputs = builder.compile().expect("tictactoe compiles");
        assert_eq!(outputs, [dir.join("out/tictactoe.rs")]);
        let code = std::fs::read_to_string(&outputs[0]).expect("read");
        assert!(code.contains("pub fn new()"), "{code}");
        let first = modified(&outputs[0]);
        std::thread::sleep(std::time::Duration::from_millis(20));
        builder.compile().expect("compiles again");
        assert_eq!(modified(&outputs[0]), first);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn invalid_games_are_located_errors_and_the_others_still_compile() {
        let dir = scratch("invalid");
        let bad = dir.join("bad.kif");
        std::fs::write(&bad, "(role x)\n(<= (p ?x) (not (q ?x)))\n").expect("write");
        let missing = dir.join("missing.kif");
        let error = Builder::new()
            .file(&bad)
            .file(&missing)
            .out_dir(dir.join("out"))
            .cargo_directives(false)
            .compile()
            .expect_err("both games fail");
        let BuildError::Games(failures) = &error else {
            panic!("unexpected error {error:?}");
        };
        assert_eq!(failures.len(), 2);
        let text = error.render();
        assert!(text.contains("error[unsafe]"), "{text}");
        assert!(text.contains("bad.kif:2:"), "{text}");
        assert!(text.contains("cannot read"), "{text}");
        assert!(!dir.join("out/bad.rs").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn games_with_one_stem_are_refused() {
        let error = Builder::new()
            .file("a/tictactoe.kif")
            .file("b/tictactoe.kif")
            .out_dir(std::env::temp_dir())
            .cargo_directives(false)
            .compile()
            .expect_err("same output");
        assert!(matches!(error, BuildError::SameName { .. }), "{error:?}");
    }

    #[test]
    fn without_out_dir_outside_build_scripts_it_says_so() {
        if std::env::var_os("OUT_DIR").is_some() {
            return;
        }
        let error = Builder::new()
            .cargo_directives(false)
            .compile()
            .expect_err("no OUT_DIR");
        assert!(matches!(error, BuildError::NoOutDir));
        assert!(error.to_string().contains("OUT_DIR"));
    }

    #[test]
    fn output_names_follow_the_stem() {
        assert_eq!(
            Builder::output_name(Path::new("../../games/tictactoe.kif")).as_deref(),
            Some("tictactoe.rs")
        );
        assert_eq!(Builder::output_name(Path::new("..")), None);
    }
}

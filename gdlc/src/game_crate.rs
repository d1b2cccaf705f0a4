//! Reasoner crates: what `gdlc compile` and `cargo xtask compile` write.
//!
//! A game's crate is a directory with
//!
//! - `Cargo.toml`: package `gdlc-game-<stem>` ([`crate_name`]) depending on
//!   `gdlc-runtime` — by path to the runtime beside this gdlc's sources when they exist
//!   (relative when the crate is on the same tree, [`runtime_dependency`]), else by
//!   version — and, when the directory is not inside a Cargo workspace, an empty
//!   `[workspace]` table so that it builds on its own;
//! - `src/lib.rs`: the reasoner ([`compile_rust`](crate::compile_rust)): `new()`, a
//!   [`gdlc_runtime::Game`];
//! - `src/main.rs`: a runner ([`runner_main_rs`]) calling [`gdlc_runtime::cli::main`],
//!   so `cargo run --release -- perft 3` (or `playout`, `rates`) runs the reasoner.
//!
//! Files are rewritten only when their content changes ([`write_if_changed`]), so cargo
//! rebuilds only what changed, and the content depends only on the game text, the name
//! it is given, and where the crate and the runtime are relative to each other: the same
//! input gives byte-identical crates.
//!
//! The path helpers here ([`absolute`], [`relative_path`], [`path_dependency`],
//! [`toml_string`]) are shared with xtask's scratch workspaces.

use std::path::{Component, Path, PathBuf};

use crate::builder::write_if_changed;
use crate::{Diagnostic, SourceFile};

/// `name` made a valid crate name: lowercase ASCII letters, digits, `_` and `-` (any
/// other character becomes `-`, a run of `_` and `-` its first), starting with a letter
/// or `_` (`g` is put before a leading digit or `-`); `game` if nothing is left.
pub fn sanitize_crate_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    // Runs of separators as one: rustc warns on a crate name whose identifier has
    // `__` (not snake case), e.g. from a file named `games__chess__chess.kif`.
    let mut previous_separator = false;
    out.retain(|c| {
        let separator = c == '_' || c == '-';
        let keep = !(separator && previous_separator);
        previous_separator = separator;
        keep
    });
    if out.is_empty() {
        out.push_str("game");
    }
    if out.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        out.insert(0, 'g');
    }
    out
}

/// The crate name of the game whose file stem is `stem`: `gdlc-game-<stem>`, sanitised.
pub fn crate_name(stem: &str) -> String {
    sanitize_crate_name(&format!("gdlc-game-{stem}"))
}

/// The identifier a crate is known by in Rust code.
pub fn crate_ident(crate_name: &str) -> String {
    crate_name.replace('-', "_")
}

/// The stem of a game file, its name in messages and directories.
pub fn game_stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// `path` made absolute (against the current directory) with `.` and `..` resolved;
/// the longest existing prefix is canonicalised, so symbolic links there are followed.
pub fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    let joined = std::env::current_dir()?.join(path);
    let mut existing = joined.as_path();
    let mut rest = Vec::new();
    let base = loop {
        match existing.canonicalize() {
            Ok(base) => break base,
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_owned());
                    existing = parent;
                }
                // `..` or the root: resolve what remains lexically.
                _ => break PathBuf::new(),
            },
        }
    };
    let mut out = base;
    let tail: PathBuf = if out.as_os_str().is_empty() {
        joined.clone()
    } else {
        rest.iter().rev().collect()
    };
    for component in tail.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Ok(out)
}

/// The relative path from directory `from` to `to`, both absolute and normalised;
/// `None` when they share nothing below the root (the absolute path is clearer then).
pub fn relative_path(from: &Path, to: &Path) -> Option<PathBuf> {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let root_only = from
        .iter()
        .take_while(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
        .count();
    if common <= root_only {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for component in &to[common..] {
        out.push(component);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Some(out)
}

/// A TOML basic string holding `text`.
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML path dependency on `target` for a crate in `crate_dir` (both absolute): by
/// relative path when there is one, else by absolute path; `extra` is appended inside
/// the table (e.g. `, default-features = false`).
pub fn path_dependency(crate_dir: &Path, target: &Path, extra: &str) -> Result<String, String> {
    let path = relative_path(crate_dir, target).unwrap_or_else(|| target.to_path_buf());
    let text = path
        .to_str()
        .ok_or_else(|| format!("{} is not valid UTF-8", path.display()))?
        // TOML paths read the same with `/` on every platform.
        .replace('\\', "/");
    Ok(format!("{{ path = {}{extra} }}", toml_string(&text)))
}

/// The sources of `gdlc-runtime` beside this gdlc's, when they exist (a build from a
/// checkout, or `cargo install --path gdlc`).
pub fn runtime_sources() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gdlc-runtime");
    let dir = dir.canonicalize().ok()?;
    dir.join("Cargo.toml").is_file().then_some(dir)
}

/// The `gdlc-runtime` dependency of a generated crate in `crate_dir` (absolute): a path
/// to [`runtime_sources`] when they exist, else this gdlc's version from the registry.
pub fn runtime_dependency(crate_dir: &Path) -> Result<String, String> {
    match runtime_sources() {
        Some(runtime) => path_dependency(crate_dir, &runtime, ""),
        None => Ok(toml_string(env!("CARGO_PKG_VERSION"))),
    }
}

/// The nearest directory at or above `dir` (absolute) whose `Cargo.toml` declares a
/// `[workspace]`, if any.
pub fn enclosing_workspace(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| {
            std::fs::read_to_string(d.join("Cargo.toml")).is_ok_and(|text| {
                text.lines()
                    .any(|line| line.trim_start().starts_with("[workspace]"))
            })
        })
        .map(Path::to_path_buf)
}

/// The `src/main.rs` of a generated crate: the runner of [`gdlc_runtime::cli`].
pub fn runner_main_rs(crate_name: &str, source: &str) -> String {
    let ident = crate_ident(crate_name);
    format!(
        "// Generated by gdlc {} from `{}`. Do not edit: regenerate it with gdlc.\n\
         //\n\
         // Runs the reasoner: `cargo run --release -- perft 3`, `playout`, `rates`\n\
         // (`-- --help` lists them).\n\
         \n\
         fn main() -> std::process::ExitCode {{\n    gdlc_runtime::cli::main({ident}::new)\n}}\n",
        env!("CARGO_PKG_VERSION"),
        source.replace('\n', " ")
    )
}

/// The files of a generated crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrateFiles {
    /// `Cargo.toml`.
    pub cargo_toml: String,
    /// `src/lib.rs`.
    pub lib_rs: String,
    /// `src/main.rs`, the runner (none in scratch workspaces, which only link the
    /// library).
    pub main_rs: Option<String>,
}

impl CrateFiles {
    /// The files with their paths under `dir`.
    pub fn paths(&self, dir: &Path) -> Vec<(PathBuf, &str)> {
        let mut paths = vec![
            (dir.join("Cargo.toml"), self.cargo_toml.as_str()),
            (dir.join("src").join("lib.rs"), self.lib_rs.as_str()),
        ];
        if let Some(main_rs) = &self.main_rs {
            paths.push((dir.join("src").join("main.rs"), main_rs.as_str()));
        }
        paths
    }

    /// Writes the files that changed; the names (relative to `dir`) of those written.
    pub fn write(&self, dir: &Path) -> Result<Vec<String>, String> {
        let mut written = Vec::new();
        for (path, text) in self.paths(dir) {
            if write_if_changed(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?
            {
                written.push(
                    path.strip_prefix(dir)
                        .unwrap_or(&path)
                        .display()
                        .to_string(),
                );
            }
        }
        Ok(written)
    }

    /// The files of the files that differ from what is in `dir` (missing ones included),
    /// relative to `dir`.
    pub fn stale_in(&self, dir: &Path) -> Vec<String> {
        self.paths(dir)
            .into_iter()
            .filter(|(path, text)| {
                std::fs::read(path).map_or(true, |bytes| bytes != text.as_bytes())
            })
            .map(|(path, _)| {
                path.strip_prefix(dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string()
            })
            .collect()
    }
}

/// Why a crate was not written.
#[derive(Debug)]
pub enum CrateError {
    /// The game does not compile: its located diagnostics, against `file`.
    Compile {
        /// The game as read.
        file: SourceFile,
        /// The errors.
        diagnostics: Vec<Diagnostic>,
    },
    /// Reading the game or writing the crate failed.
    Io(String),
}

impl CrateError {
    /// The error as text for a terminal (diagnostics rendered with their source lines).
    pub fn render(&self) -> String {
        match self {
            CrateError::Compile { file, diagnostics } => diagnostics
                .iter()
                .map(|d| match d.span {
                    Some(_) => d.render(file),
                    None => format!("{}: {}", file.name, d.render(file)),
                })
                .collect(),
            CrateError::Io(message) => message.clone(),
        }
    }
}

/// The files of the reasoner crate `crate_name` for `file`, to live in `crate_dir`
/// (absolute). `runner`: whether to add `src/main.rs`; `standalone`: whether to add an
/// empty `[workspace]` (for a directory outside every Cargo workspace).
pub fn crate_files(
    file: &SourceFile,
    crate_name: &str,
    crate_dir: &Path,
    runner: bool,
    standalone: bool,
) -> Result<CrateFiles, CrateError> {
    let lib_rs = crate::compile_rust(file).map_err(|diagnostics| CrateError::Compile {
        file: file.clone(),
        diagnostics,
    })?;
    let runtime = runtime_dependency(crate_dir).map_err(CrateError::Io)?;
    let mut cargo_toml = crate::emit::rust::cargo_toml(crate_name, &runtime);
    if standalone {
        cargo_toml
            .push_str("\n# Not a member of any workspace: this crate is its own.\n[workspace]\n");
    }
    Ok(CrateFiles {
        cargo_toml,
        lib_rs,
        main_rs: runner.then(|| runner_main_rs(crate_name, &file.name)),
    })
}

/// A crate written by [`write_crate`].
#[derive(Clone, Debug)]
pub struct WrittenCrate {
    /// The crate's directory (absolute).
    pub dir: PathBuf,
    /// The crate name.
    pub name: String,
    /// The workspace it belongs to, when the directory is inside one.
    pub workspace: Option<PathBuf>,
    /// The files that changed (relative to `dir`); empty when all were up to date.
    pub written: Vec<String>,
}

/// Compiles the game at `path` into a reasoner crate with a runner in `dir`, naming the
/// game `source_name` in the generated headers. The crate is `gdlc-game-<stem>`.
pub fn write_crate(path: &Path, source_name: &str, dir: &Path) -> Result<WrittenCrate, CrateError> {
    let read = SourceFile::read(path).map_err(|d| CrateError::Io(d.to_string()))?;
    let file = SourceFile::new(source_name, read.text);
    let dir = absolute(dir)
        .map_err(|e| CrateError::Io(format!("cannot resolve {}: {e}", dir.display())))?;
    let name = crate_name(&game_stem(path));
    // The crate's own directory may hold a `[workspace]` of an earlier standalone write.
    let workspace = dir.parent().and_then(enclosing_workspace);
    let files = crate_files(&file, &name, &dir, true, workspace.is_none())?;
    let written = files.write(&dir).map_err(CrateError::Io)?;
    Ok(WrittenCrate {
        dir,
        name,
        workspace,
        written,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_names_are_valid() {
        assert_eq!(crate_name("tictactoe"), "gdlc-game-tictactoe");
        assert_eq!(crate_name("TicTacToe_3D"), "gdlc-game-tictactoe_3d");
        assert_eq!(crate_name("connect four.v2"), "gdlc-game-connect-four-v2");
        assert_eq!(crate_name("échecs"), "gdlc-game-checs");
        assert_eq!(
            crate_name("games__chess__chess"),
            "gdlc-game-games_chess_chess"
        );
        assert_eq!(sanitize_crate_name("3pffa"), "g3pffa");
        assert_eq!(sanitize_crate_name("-x"), "g-x");
        assert_eq!(sanitize_crate_name(""), "game");
        assert_eq!(sanitize_crate_name("_ok"), "_ok");
        assert_eq!(crate_ident("gdlc-game-3pffa"), "gdlc_game_3pffa");
    }

    #[test]
    fn relative_paths() {
        let rel = |a: &str, b: &str| relative_path(Path::new(a), Path::new(b));
        assert_eq!(
            rel("/w/generated/tictactoe", "/w/gdlc-runtime"),
            Some(PathBuf::from("../../gdlc-runtime"))
        );
        assert_eq!(
            rel("/w", "/w/gdlc-runtime"),
            Some(PathBuf::from("gdlc-runtime"))
        );
        assert_eq!(rel("/w/x", "/w/x"), Some(PathBuf::from(".")));
        assert_eq!(rel("/tmp/out", "/w/gdlc-runtime"), None);
    }

    #[test]
    fn absolute_paths_resolve_dots_past_missing_directories() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .canonicalize()
            .expect("manifest dir");
        let path = root.join("src/../no/such/./dir/..");
        assert_eq!(absolute(&path).expect("absolute"), root.join("no/such"));
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_string("a\"b\\c\u{1}"), "\"a\\\"b\\\\c\\u0001\"");
    }

    #[test]
    fn the_runner_calls_the_runtime_cli_with_the_crate() {
        let main_rs = runner_main_rs("gdlc-game-nim", "games/nim.kif");
        assert!(main_rs.contains("gdlc_runtime::cli::main(gdlc_game_nim::new)"));
        assert!(main_rs.starts_with("// Generated by gdlc"));
    }

    #[test]
    fn a_crate_outside_any_workspace_is_standalone_and_inside_one_is_not() {
        let root = std::env::temp_dir().join(format!("gdlc-crate-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/nim.kif");

        let alone = write_crate(&game, "nim.kif", &root.join("alone")).expect("writes");
        assert!(alone.workspace.is_none());
        let toml = std::fs::read_to_string(alone.dir.join("Cargo.toml")).expect("toml");
        assert!(toml.contains("name = \"gdlc-game-nim\""), "{toml}");
        assert!(toml.contains("\n[workspace]\n"), "{toml}");
        assert!(alone.dir.join("src/main.rs").is_file());
        assert_eq!(alone.written, ["Cargo.toml", "src/lib.rs", "src/main.rs"]);
        let again = write_crate(&game, "nim.kif", &root.join("alone")).expect("writes");
        assert!(
            again.written.is_empty(),
            "unchanged files are not rewritten"
        );

        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"member\"]\n",
        )
        .expect("manifest");
        let member = write_crate(&game, "nim.kif", &root.join("member")).expect("writes");
        assert_eq!(
            member.workspace.as_deref(),
            Some(root.canonicalize().expect("root").as_path())
        );
        let toml = std::fs::read_to_string(member.dir.join("Cargo.toml")).expect("toml");
        assert!(!toml.contains("[workspace]"), "{toml}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn an_invalid_game_is_a_located_error_and_writes_nothing() {
        let root = std::env::temp_dir().join(format!("gdlc-crate-bad-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("dir");
        let game = root.join("bad.kif");
        std::fs::write(&game, "(role a)\n(<= (p ?x) (not (q ?x)))\n").expect("game");
        let error = write_crate(&game, "bad.kif", &root.join("out")).expect_err("invalid");
        assert!(matches!(error, CrateError::Compile { .. }));
        assert!(error.render().contains("bad.kif:2:"), "{}", error.render());
        assert!(!root.join("out").exists());
        let _ = std::fs::remove_dir_all(&root);
    }
}

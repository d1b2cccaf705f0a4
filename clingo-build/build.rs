//! Build script of gdlc-clingo-build: compiles clingo's C++ with the `cc` crate, once, into
//! `$CLINGO_LIBRARY_PATH/<target>-<key>/` and points the linker there.
//!
//! The design (where the sources come from, the stamp, the atomic build, the linker
//! script that stands for `-lclingo`) is described in the crate documentation, `src/lib.rs`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, SystemTime};

/// The clingo-sys release whose sources are compiled (Cargo.toml pins the same version).
const CLINGO_SYS_VERSION: &str = "0.7.2";

/// The clingo release that clingo-sys [`CLINGO_SYS_VERSION`] ships, as `libclingo/clingo.h`
/// spells it: checked so that a source tree given by hand is the right one.
const CLINGO_VERSION: &str = "5.6.2";

/// Version of the recipe below: bump it when sources, flags or layout change, so that no
/// earlier build is reused.
const RECIPE: u32 = 1;

/// Optimisation level (upstream's CMake `Release` configuration uses `-O3 -DNDEBUG` too).
const OPT_LEVEL: u32 = 3;

/// Header-only libraries of `third_party/` that gringo and clingo include.
const THIRD_PARTY: [&str; 5] = [
    "hopscotch-map",
    "sparse-map",
    "ordered-map",
    "optional",
    "variant",
];

/// Written last into a finished build: the key it was built for.
const STAMP: &str = "stamp";

/// A `.tmp-*` build directory untouched for this long belongs to a build that was killed.
const ABANDONED_AFTER: Duration = Duration::from_secs(12 * 60 * 60);

fn main() {
    if let Err(message) = run() {
        eprintln!("error: gdlc-clingo-build: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    println!("cargo:rerun-if-changed=build.rs");
    for var in [
        "CLINGO_LIBRARY_PATH",
        "GDLC_CLINGO_SRC",
        "CARGO_HOME",
        "CXXSTDLIB",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let root = library_root()?;
    if let Some(existing) = existing_library(&root) {
        println!(
            "cargo:warning=linking the clingo library {} found in CLINGO_LIBRARY_PATH instead \
             of building clingo from source (remove it, or point CLINGO_LIBRARY_PATH \
             elsewhere, to build clingo)",
            existing.display()
        );
        return Ok(());
    }
    remove_abandoned(&root);
    check_target()?;
    let target = var("TARGET")?;
    let source = locate_sources()?;
    let base = base_build();
    let key = build_key(&base, &target, &source)?;
    let dir = root.join(format!("{target}-{:016x}", fnv1a(key.as_bytes())));
    let stamp = dir.join(STAMP);
    // The stamp's modification time is set in the past, so cargo reruns this script only
    // when the stamp disappears (`cargo clean`, `rm -r target/clingo`), not after a build.
    println!("cargo:rerun-if-changed={}", stamp.display());
    if !is_built(&dir, &key) {
        build(&root, &dir, &key, &source, &base)?;
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    Ok(())
}

fn var(name: &str) -> Result<String, String> {
    env::var(name).map_err(|_| format!("cargo did not set {name}"))
}

/// `CLINGO_LIBRARY_PATH`, made absolute: the workspace's `.cargo/config.toml` sets it to
/// `target/clingo` of the checkout.
fn library_root() -> Result<PathBuf, String> {
    let Some(root) = env::var_os("CLINGO_LIBRARY_PATH") else {
        return Err(
            "CLINGO_LIBRARY_PATH is not set. The gdlc workspace's .cargo/config.toml \
             sets it: run cargo from inside the gdlc checkout, or set it to the directory \
             where clingo is to be built"
                .to_owned(),
        );
    };
    std::path::absolute(&root)
        .map_err(|e| format!("CLINGO_LIBRARY_PATH={}: {e}", Path::new(&root).display()))
}

/// A clingo library that someone else put right into `CLINGO_LIBRARY_PATH` (builds of this
/// script live in subdirectories, so they never match).
fn existing_library(root: &Path) -> Option<PathBuf> {
    [
        "libclingo.so",
        "libclingo.a",
        "libclingo.dylib",
        "import_clingo.lib",
    ]
    .iter()
    .map(|name| root.join(name))
    .find(|path| path.exists())
}

/// The linker script that stands for `-lclingo` needs a linker that reads GNU linker
/// scripts: GNU ld, gold, lld and mold on ELF systems.
fn check_target() -> Result<(), String> {
    let os = var("CARGO_CFG_TARGET_OS")?;
    match os.as_str() {
        "linux" | "freebsd" | "netbsd" | "openbsd" | "dragonfly" => Ok(()),
        _ => Err(format!(
            "building clingo from source is implemented for ELF targets (Linux, the BSDs), \
             not for `{os}`: install clingo {CLINGO_VERSION} and set CLINGO_LIBRARY_PATH to \
             the directory of its library"
        )),
    }
}

/// The `clingo` directory of the clingo-sys package: `GDLC_CLINGO_SRC` if set, else the
/// package as cargo unpacked it under `$CARGO_HOME/registry/src/*/`, else a vendored copy
/// beside the workspace (`vendor/`).
fn locate_sources() -> Result<PathBuf, String> {
    let package = format!("clingo-sys-{CLINGO_SYS_VERSION}");
    if let Some(given) = env::var_os("GDLC_CLINGO_SRC") {
        let given = PathBuf::from(given);
        for candidate in [given.join("clingo"), given.clone()] {
            if candidate.join("libclingo/clingo.h").is_file() {
                check_version(&candidate)?;
                return Ok(candidate);
            }
        }
        return Err(format!(
            "GDLC_CLINGO_SRC={} is neither a clingo-sys package (with clingo/libclingo/clingo.h) \
             nor a clingo source tree (with libclingo/clingo.h)",
            given.display()
        ));
    }
    let mut candidates = Vec::new();
    let mut looked = Vec::new();
    match cargo_home() {
        Some(home) => {
            let registry = home.join("registry").join("src");
            looked.push(registry.join("*").join(&package).join("clingo"));
            if let Ok(entries) = fs::read_dir(&registry) {
                let mut indexes: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                indexes.sort();
                candidates.extend(indexes.iter().map(|i| i.join(&package).join("clingo")));
            }
        }
        None => looked.push(PathBuf::from(
            "$CARGO_HOME (neither CARGO_HOME nor HOME is set)",
        )),
    }
    let manifest_dir = PathBuf::from(var("CARGO_MANIFEST_DIR")?);
    if let Some(workspace) = manifest_dir.parent() {
        for name in ["clingo-sys", package.as_str()] {
            let vendored = workspace.join("vendor").join(name).join("clingo");
            looked.push(vendored.clone());
            candidates.push(vendored);
        }
    }
    for candidate in candidates {
        if candidate.join("libclingo/clingo.h").is_file() && check_version(&candidate).is_ok() {
            return Ok(candidate);
        }
    }
    let looked: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
    Err(format!(
        "cannot find the C++ sources of clingo {CLINGO_VERSION} that the {package} package \
         ships (cargo downloads it as a dependency of this crate). Looked for:\n    {}\n\
         Set GDLC_CLINGO_SRC to the directory of the clingo-sys {CLINGO_SYS_VERSION} package \
         (for instance vendor/clingo-sys) if it is elsewhere.",
        looked.join("\n    ")
    ))
}

fn cargo_home() -> Option<PathBuf> {
    if let Some(home) = env::var_os("CARGO_HOME") {
        return Some(PathBuf::from(home));
    }
    env::var_os("HOME")
        .or_else(|| env::var_os("USERPROFILE"))
        .map(|home| PathBuf::from(home).join(".cargo"))
}

/// Checks that `libclingo/clingo.h` of the tree defines [`CLINGO_VERSION`].
fn check_version(tree: &Path) -> Result<(), String> {
    let header = tree.join("libclingo/clingo.h");
    let text =
        fs::read_to_string(&header).map_err(|e| format!("reading {}: {e}", header.display()))?;
    let wanted = format!("#define CLINGO_VERSION \"{CLINGO_VERSION}\"");
    if text.contains(&wanted) {
        Ok(())
    } else {
        Err(format!(
            "{} is not clingo {CLINGO_VERSION} (no `{wanted}`), the version clingo-sys \
             {CLINGO_SYS_VERSION} binds",
            header.display()
        ))
    }
}

/// The flags shared by every library: C++, optimised, no debug information, no assertions,
/// no warnings (clingo's code is not ours to fix), no `cargo:` output (this script links
/// through the linker script, not through cc's `rustc-link-lib` lines).
fn base_build() -> cc::Build {
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .opt_level(OPT_LEVEL)
        .debug(false)
        .define("NDEBUG", None)
        .warnings(false)
        .cargo_warnings(false)
        .cargo_metadata(false);
    build
}

/// Everything a build depends on besides the (pinned) recipe: what the stamp holds and the
/// build directory's name hashes. Profiles do not enter it (the flags are fixed), so dev,
/// test, release and clippy share one build.
fn build_key(base: &cc::Build, target: &str, source: &Path) -> Result<String, String> {
    // With cargo metadata on, cc prints `rerun-if-env-changed` for the variables that
    // choose the compiler and its flags (CXX, CXXFLAGS, ...).
    let mut probe = base.clone();
    probe.cargo_metadata(true);
    let compiler = probe.try_get_compiler().map_err(|e| {
        format!("compiling clingo needs a C++ compiler (g++ or clang++; CXX chooses one): {e}")
    })?;
    let version = Command::new(compiler.path())
        .arg("--version")
        .output()
        .map(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_owned()
        })
        .unwrap_or_default();
    let args: Vec<String> = compiler
        .args()
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    Ok(format!(
        "gdlc-clingo-build recipe {RECIPE}\nclingo-sys {CLINGO_SYS_VERSION}\ntarget {target}\n\
         source {}\ncompiler {} {}\ncompiler version {version}\nc++ library {}\n",
        source.display(),
        compiler.path().display(),
        args.join(" "),
        cxx_stdlib()
    ))
}

/// The C++ standard library to link: `CXXSTDLIB` if set (as for cc), else the target's.
fn cxx_stdlib() -> String {
    if let Ok(lib) = env::var("CXXSTDLIB") {
        return lib;
    }
    match env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("freebsd" | "openbsd") => "c++".to_owned(),
        _ => "stdc++".to_owned(),
    }
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust releases.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn is_built(dir: &Path, key: &str) -> bool {
    fs::read_to_string(dir.join(STAMP)).is_ok_and(|stamp| stamp == key)
}

/// Builds into a fresh `.tmp-*` directory beside `dir` and renames it to `dir` when
/// complete, so a build that is killed or runs concurrently never leaves a half-written
/// `dir` behind.
fn build(
    root: &Path,
    dir: &Path,
    key: &str,
    source: &Path,
    base: &cc::Build,
) -> Result<(), String> {
    fs::create_dir_all(root).map_err(|e| format!("creating {}: {e}", root.display()))?;
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = root.join(format!(".tmp-{}-{nanos}", std::process::id()));
    fs::create_dir(&tmp).map_err(|e| format!("creating {}: {e}", tmp.display()))?;
    if let Err(message) = compile(&tmp, dir, key, source, base) {
        let _ = fs::remove_dir_all(&tmp);
        return Err(message);
    }
    if fs::rename(&tmp, dir).is_ok() {
        return Ok(());
    }
    if is_built(dir, key) {
        // A concurrent build of the same key finished first: use it.
        let _ = fs::remove_dir_all(&tmp);
        return Ok(());
    }
    // `dir` exists without a matching stamp (damaged by hand): replace it.
    let _ = fs::remove_dir_all(dir);
    fs::rename(&tmp, dir).map_err(|e| {
        let _ = fs::remove_dir_all(&tmp);
        format!("moving {} to {}: {e}", tmp.display(), dir.display())
    })
}

/// Removes the `.tmp-*` directories of builds that were killed.
fn remove_abandoned(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let abandoned = entry.file_name().to_string_lossy().starts_with(".tmp-")
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age > ABANDONED_AFTER);
        if abandoned {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// One static library of clingo, as its CMakeLists.txt defines it.
struct Library {
    /// The archive is `lib/lib<name>.a`.
    name: &'static str,
    /// clasp and libpotassco are C++11 with GNU extensions, the others C++14.
    std: &'static str,
    includes: Vec<PathBuf>,
    defines: Vec<(&'static str, Option<&'static str>)>,
    sources: Vec<PathBuf>,
}

/// The five libraries of clingo (sources, include directories and definitions from the
/// CMakeLists.txt files of clingo 5.6.2 and clasp 3.3.9, with threads and without Python
/// and Lua); `generated` holds the headers that CMake would configure.
fn libraries(src: &Path, generated: &Path) -> Vec<Library> {
    let potassco = src.join("clasp/libpotassco");
    let clasp = src.join("clasp");
    let reify = src.join("libreify");
    let gringo = src.join("libgringo");
    let clingo = src.join("libclingo");
    let third_party = THIRD_PARTY.map(|lib| src.join("third_party").join(lib).join("include"));
    // Definitions that libgringo's interface carries to its users (CMake's PUBLIC):
    // hopscotch maps, and no symbol visibility attributes in a static build.
    let gringo_defines = vec![
        ("CLINGO_MAP_TYPE", Some("0")),
        ("CLINGO_NO_VISIBILITY", None),
    ];
    let mut gringo_sources = files(&gringo.join("src"), GRINGO_SOURCES);
    gringo_sources.extend(files(&gringo.join("gen/src/input"), GRINGO_PARSERS));
    vec![
        Library {
            name: "potassco",
            std: "gnu++11",
            includes: vec![potassco.clone()],
            defines: vec![],
            sources: files(&potassco.join("src"), POTASSCO_SOURCES),
        },
        Library {
            name: "clasp",
            std: "gnu++11",
            includes: vec![clasp.clone(), generated.join("clasp"), potassco.clone()],
            defines: vec![],
            sources: files(&clasp.join("src"), CLASP_SOURCES),
        },
        Library {
            name: "reify",
            std: "c++14",
            // libgringo for its Tarjan algorithm (gringo/graph.hh).
            includes: vec![reify.clone(), gringo.clone(), potassco.clone()],
            defines: vec![],
            sources: files(&reify.join("src"), &["program.cc"]),
        },
        Library {
            name: "gringo",
            std: "c++14",
            includes: [
                vec![
                    gringo.clone(),
                    generated.join("gringo"),
                    gringo.join("gen/src"),
                    potassco.clone(),
                    reify.clone(),
                ],
                third_party.to_vec(),
            ]
            .concat(),
            defines: gringo_defines.clone(),
            sources: gringo_sources,
        },
        Library {
            name: "clingo",
            std: "c++14",
            includes: [
                vec![
                    clingo.clone(),
                    gringo,
                    clasp,
                    generated.join("clasp"),
                    potassco,
                    reify,
                ],
                third_party.to_vec(),
            ]
            .concat(),
            defines: [gringo_defines, vec![("CLINGO_BUILD_LIBRARY", None)]].concat(),
            sources: files(&clingo.join("src"), CLINGO_SOURCES),
        },
    ]
}

/// The paths of files `names` in `dir`.
fn files(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    names.iter().map(|name| dir.join(name)).collect()
}

/// potassco's sources, in `clasp/libpotassco/src`.
const POTASSCO_SOURCES: &[&str] = &[
    "application.cpp",
    "aspif.cpp",
    "aspif_text.cpp",
    "clingo.cpp",
    "convert.cpp",
    "match_basic_types.cpp",
    "program_options.cpp",
    "rule_utils.cpp",
    "smodels.cpp",
    "string_convert.cpp",
    "theory_data.cpp",
    "value_store.cpp",
];

/// clasp's sources, in `clasp/src`.
const CLASP_SOURCES: &[&str] = &[
    "asp_preprocessor.cpp",
    "cb_enumerator.cpp",
    "clasp_app.cpp",
    "clasp_facade.cpp",
    "clasp_options.cpp",
    "clasp_output.cpp",
    "clause.cpp",
    "clingo.cpp",
    "constraint.cpp",
    "dependency_graph.cpp",
    "enumerator.cpp",
    "heuristics.cpp",
    "logic_program.cpp",
    "logic_program_types.cpp",
    "lookahead.cpp",
    "minimize_constraint.cpp",
    "model_enumerators.cpp",
    "parser.cpp",
    "program_builder.cpp",
    "satelite.cpp",
    "shared_context.cpp",
    "solve_algorithms.cpp",
    "solver.cpp",
    "solver_strategies.cpp",
    "solver_types.cpp",
    "statistics.cpp",
    "timer.cpp",
    "unfounded_check.cpp",
    "weight_constraint.cpp",
    "parallel_solve.cpp",
];

/// libgringo's sources, in `libgringo/src`.
const GRINGO_SOURCES: &[&str] = &[
    "symbol.cc",
    "term.cc",
    "terms.cc",
    "ground/instantiation.cc",
    "ground/literal.cc",
    "ground/literals.cc",
    "ground/program.cc",
    "ground/statements.cc",
    "input/aggregate.cc",
    "input/aggregates.cc",
    "input/groundtermparser.cc",
    "input/literal.cc",
    "input/literals.cc",
    "input/nongroundparser.cc",
    "input/program.cc",
    "input/programbuilder.cc",
    "input/statement.cc",
    "input/theory.cc",
    "output/aggregates.cc",
    "output/literal.cc",
    "output/literals.cc",
    "output/output.cc",
    "output/statement.cc",
    "output/statements.cc",
    "output/theory.cc",
];

/// The parsers bison generated, shipped in `libgringo/gen/src/input` (CMake's fallback
/// without bison).
const GRINGO_PARSERS: &[&str] = &[
    "groundtermgrammar/grammar.cc",
    "nongroundgrammar/grammar.cc",
];

/// libclingo's sources, in `libclingo/src`.
const CLINGO_SOURCES: &[&str] = &[
    "astv2.cc",
    "astv2_build.cc",
    "astv2_parse.cc",
    "astv2_str.cc",
    "astv2_unpool.cc",
    "clingo_app.cc",
    "clingocontrol.cc",
    "control.cc",
    "gringo_app.cc",
    "incmode.cc",
    "scripts.cc",
];

/// Compiles the five libraries into `tmp/lib/`, writes the linker scripts (which name
/// the archives at their final place, `dir/lib/`) and, last, the stamp.
fn compile(
    tmp: &Path,
    dir: &Path,
    key: &str,
    source: &Path,
    base: &cc::Build,
) -> Result<(), String> {
    let generated = tmp.join("generated");
    write_clasp_config(source, &generated.join("clasp/clasp/config.h"))?;
    // No built-in search path for `#include` (CMake's CLINGO_CLINGOPATH, empty by default).
    configure(
        &source.join("libgringo/src/input/clingopath.hh.in"),
        &generated.join("gringo/input/clingopath.hh"),
        &[("@CLINGO_CLINGOPATH@", "")],
    )?;
    let libraries = libraries(source, &generated);
    let missing: Vec<String> = libraries
        .iter()
        .flat_map(|lib| &lib.sources)
        .filter(|file| !file.is_file())
        .map(|file| file.display().to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "clingo sources missing from {}:\n    {}",
            source.display(),
            missing.join("\n    ")
        ));
    }
    let lib_dir = tmp.join("lib");
    let objects = tmp.join("objects");
    // One thread per library; cc's `parallel` feature runs each library's compilations
    // in parallel too, all within the job slots cargo's jobserver hands out.
    let archives = thread::scope(|scope| {
        let workers: Vec<_> = libraries
            .iter()
            .map(|lib| {
                let objects = objects.join(lib.name);
                scope.spawn(move || compile_library(base, lib, &objects))
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|_| Err("a compiling thread panicked".to_owned()))
            })
            .collect::<Result<Vec<PathBuf>, String>>()
    })?;
    fs::create_dir_all(&lib_dir).map_err(|e| format!("creating {}: {e}", lib_dir.display()))?;
    let mut finals = Vec::new();
    for archive in archives {
        let Some(name) = archive.file_name() else {
            return Err(format!(
                "cc returned the archive path {}",
                archive.display()
            ));
        };
        fs::rename(&archive, lib_dir.join(name))
            .map_err(|e| format!("moving {}: {e}", archive.display()))?;
        finals.push(dir.join("lib").join(name));
    }
    // The objects are in the archives now.
    let _ = fs::remove_dir_all(&objects);
    let script = linker_script(&finals)?;
    for name in ["libclingo.so", "libclingo.a"] {
        write(&tmp.join(name), &script)?;
    }
    let stamp = tmp.join(STAMP);
    write(&stamp, key)?;
    // See `run`: a stamp older than any build keeps cargo from rerunning this script.
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(946_684_800); // 2000-01-01
    fs::File::options()
        .write(true)
        .open(&stamp)
        .and_then(|file| file.set_modified(long_ago))
        .map_err(|e| format!("setting the time of {}: {e}", stamp.display()))
}

/// Compiles one library into `objects/lib<name>.a` and returns that path.
fn compile_library(base: &cc::Build, lib: &Library, objects: &Path) -> Result<PathBuf, String> {
    fs::create_dir_all(objects).map_err(|e| format!("creating {}: {e}", objects.display()))?;
    let mut build = base.clone();
    build
        .std(lib.std)
        .out_dir(objects)
        .includes(&lib.includes)
        .files(&lib.sources);
    for &(name, value) in &lib.defines {
        build.define(name, value);
    }
    build
        .try_compile(lib.name)
        .map_err(|e| format!("compiling clingo's lib{}: {e}", lib.name))?;
    Ok(objects.join(format!("lib{}.a", lib.name)))
}

/// The file the linker reads for `-lclingo`: the archives as one group (they refer to each
/// other), then the C++ standard library.
fn linker_script(archives: &[PathBuf]) -> Result<String, String> {
    let mut quoted = Vec::new();
    for archive in archives {
        let path = archive.display().to_string();
        if path.contains('"') {
            return Err(format!(
                "the linker script cannot name {path}: it contains a quote"
            ));
        }
        quoted.push(format!("\"{path}\""));
    }
    let stdlib = cxx_stdlib();
    let stdlib = if stdlib.is_empty() {
        String::new()
    } else {
        format!("INPUT ( -l{stdlib} )\n")
    };
    Ok(format!(
        "/* Written by gdlc-clingo-build (clingo-build/build.rs). The linker reads this file\n   \
         for -lclingo: clingo's static libraries, then the C++ standard library. */\n\
         GROUP ( {} )\n{stdlib}",
        quoted.join(" ")
    ))
}

/// Writes clasp's `config.h` from `clasp/clasp/config.h.in` with the values of clasp's
/// CMakeLists.txt for a build with threads.
fn write_clasp_config(source: &Path, out: &Path) -> Result<(), String> {
    let cmake = source.join("clasp/CMakeLists.txt");
    let text =
        fs::read_to_string(&cmake).map_err(|e| format!("reading {}: {e}", cmake.display()))?;
    let version = text
        .split("project(CLASP VERSION ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .ok_or_else(|| format!("no `project(CLASP VERSION ...)` in {}", cmake.display()))?;
    let mut parts = version.split('.');
    let (major, minor, patch) = match (parts.next(), parts.next(), parts.next()) {
        (Some(major), Some(minor), Some(patch)) => (major, minor, patch),
        _ => return Err(format!("clasp version `{version}` in {}", cmake.display())),
    };
    let quoted = format!("\"{version}\"");
    configure(
        &source.join("clasp/clasp/config.h.in"),
        out,
        &[
            ("\"@CLASP_VERSION@\"", &quoted),
            ("@CLASP_VERSION_MAJOR@", major),
            ("@CLASP_VERSION_MINOR@", minor),
            ("@CLASP_VERSION_PATCH@", patch),
            (
                "#cmakedefine01 CLASP_HAS_THREADS",
                "#define CLASP_HAS_THREADS 1",
            ),
            ("@CLASP_USE_STD_VECTOR@", "0"),
            (
                "@CLASP_DEFINE_ATOMIC@",
                "namespace mt { using std::atomic; }",
            ),
            ("@CLASP_ATOMIC_TYPE@", "std::atomic"),
        ],
    )
}

/// CMake's `configure_file`, for the placeholders given: each must occur, and none other
/// may be left.
fn configure(template: &Path, out: &Path, values: &[(&str, &str)]) -> Result<(), String> {
    let mut text =
        fs::read_to_string(template).map_err(|e| format!("reading {}: {e}", template.display()))?;
    for (placeholder, value) in values {
        if !text.contains(placeholder) {
            return Err(format!(
                "`{placeholder}` not found in {}",
                template.display()
            ));
        }
        text = text.replace(placeholder, value);
    }
    if let Some(left) = leftover_placeholder(&text) {
        return Err(format!(
            "{} has a placeholder this build does not know: `{left}`",
            template.display()
        ));
    }
    write(out, &text)
}

/// The first `@NAME@` or `#cmakedefine` left in a configured text.
fn leftover_placeholder(text: &str) -> Option<&str> {
    if let Some(at) = text.find("#cmakedefine") {
        return text[at..].lines().next();
    }
    let bytes = text.as_bytes();
    let mut start = None;
    for (i, &byte) in bytes.iter().enumerate() {
        match (byte, start) {
            (b'@', Some(s)) if i > s + 1 => return Some(&text[s..=i]),
            (b'@', _) => start = Some(i),
            (b'A'..=b'Z' | b'0'..=b'9' | b'_', _) => {}
            _ => start = None,
        }
    }
    None
}

fn write(path: &Path, contents: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("creating {}: {e}", parent.display()))?;
    }
    fs::write(path, contents).map_err(|e| format!("writing {}: {e}", path.display()))
}

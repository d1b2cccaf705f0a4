//! Builds clingo, the answer set solver that gdlc's prover embeds, without cmake.
//!
//! This crate has no code: its build script (`build.rs`) compiles clingo's C++ with the
//! [`cc`](https://docs.rs/cc) crate, and gdlc's `prove` feature depends on it next to the
//! `clingo` crate. The `static-linking` feature of `clingo-sys` would run cmake instead;
//! without that feature, clingo-sys only asks the linker for `-lclingo` from the directory
//! in `CLINGO_LIBRARY_PATH`, which the workspace's `.cargo/config.toml` sets to
//! `target/clingo` of the checkout. This crate fills that directory.
//!
//! # What the build script does
//!
//! - **Sources.** It compiles the sources that the clingo-sys package ships (clingo 5.6.2
//!   with clasp 3.3.9, under `clingo/`) where cargo unpacked them:
//!   `$CARGO_HOME/registry/src/*/clingo-sys-0.7.2/clingo`, else `vendor/clingo-sys` of the
//!   workspace. `GDLC_CLINGO_SRC` names the package (or its `clingo/` tree) explicitly, for
//!   vendored or offline set-ups. This crate pins clingo-sys `=0.7.2`; as clingo-sys
//!   declares `links = "clingo"`, the dependency graph holds one clingo-sys, so the sources
//!   compiled are those of the version the `clingo` crate binds. Nothing of clingo is copied
//!   into this repository.
//! - **Recipe.** The five static libraries of clingo's CMake build — libpotassco, libclasp
//!   (with threads), libreify, libgringo (with the parsers bison generated, which clingo
//!   ships in `libgringo/gen/`) and libclingo — with the source lists, include directories
//!   (the header-only `third_party/` maps, `optional` and `variant` among them) and
//!   definitions of their CMakeLists.txt; no Python, no Lua, no applications or tests. The
//!   two headers CMake configures (clasp's `config.h`, gringo's `clingopath.hh`) are
//!   written from their `.in` templates. Optimised (`-O3 -DNDEBUG`), without debug
//!   information, whatever the cargo profile.
//! - **Parallel.** One thread per library, and cc's `parallel` feature within each, all
//!   limited by the job slots of cargo's jobserver (every core by default).
//! - **Once.** The result goes to `$CLINGO_LIBRARY_PATH/<target>-<hash>/`, the hash of a
//!   key made of the recipe's version, the clingo-sys version, the target, the source
//!   directory, the C++ compiler with its flags and version, and the C++ standard library.
//!   A `stamp` file holding the key is written last; a later run (another profile, `cargo
//!   clippy`, another target directory of the same checkout) finds it and compiles
//!   nothing. Cargo reruns the script if the stamp disappears.
//! - **Atomic.** The build happens in a `.tmp-*` directory beside its destination and is
//!   renamed into place when complete. Two concurrent builds both complete and the first
//!   rename wins; a killed build leaves only a `.tmp-*` directory, which a later run
//!   removes once it is 12 hours old.
//! - **Bring your own clingo.** If `CLINGO_LIBRARY_PATH` itself already holds a clingo
//!   library (`libclingo.so`, …), for instance because the variable was set to an
//!   installed clingo 5.6, nothing is built and that library is linked.
//!
//! # Linking: a linker script named `libclingo.so`
//!
//! clingo-sys asks for `-lclingo` as a dynamic library, and the static libraries need the
//! C++ standard library after them. The build directory therefore holds, under the names
//! the linker searches for `-lclingo` (`libclingo.so`, and `libclingo.a` for fully static
//! links), a GNU linker script — the mechanism of glibc's own `libc.so`:
//!
//! ```text
//! GROUP ( ".../lib/libpotassco.a" ".../lib/libclasp.a" ... ".../lib/libclingo.a" )
//! INPUT ( -lstdc++ )
//! ```
//!
//! so the archives (as a group: they refer to each other) and then libstdc++ take exactly
//! the place of `-lclingo` on the command line. The build script adds the build directory
//! to the library search path (`cargo:rustc-link-search`), which cargo passes on to every
//! binary and test that depends on this crate; `CLINGO_LIBRARY_PATH` itself holds only
//! build directories, so no other `libclingo` can be found first. Emitting
//! `cargo:rustc-link-lib` lines instead would not do: their order relative to clingo-sys's
//! `-lclingo` is not defined, and with `--as-needed` a C++ library placed before the
//! archives would be dropped. GNU ld, gold, lld and mold read such scripts, so this is
//! implemented for ELF targets (Linux, the BSDs); elsewhere the build script stops with a
//! message saying so (an installed clingo still works, see above).
//!
//! The first build of clingo takes several minutes of CPU (about 80 C++ files); every
//! later build of the checkout reuses it. `cargo clean` (of the default target directory)
//! removes it.

//! Project automation, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! - `rates FILE... [--seconds N]`: random playouts per second and state changes per
//!   second of the reference interpreter, one core, one line per game. Build with
//!   `--release` for meaningful figures (`cargo run --release -p xtask -- rates …`).
//!
//! Later stages add `compile`, `verify`, `perft`, `codegen --check` and `bench`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use gdlc::SourceFile;
use gdlc::interp::Interpreter;

#[derive(Parser)]
#[command(name = "xtask", about = "gdlc project automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure the reference interpreter's random playouts per second.
    Rates {
        /// Games (KIF).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Seconds of playouts per game.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Seed of the random playouts.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Rates {
            files,
            seconds,
            seed,
        } => rates(&files, seconds, seed),
    }
}

fn rates(files: &[PathBuf], seconds: f64, seed: u64) -> ExitCode {
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: this is a debug build; measure with `cargo run --release -p xtask -- rates …`"
        );
    }
    let mut failed = false;
    println!("game\tplayouts\tstates\tseconds\tplayouts/s\tstates/s");
    for path in files {
        let name = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let game = SourceFile::read(path).map(|file| (gdlc::front_end(&file), file));
        let mut interpreter = match game {
            Err(diagnostic) => {
                eprintln!("{name}: {diagnostic}");
                failed = true;
                continue;
            }
            Ok((front, file)) => match Interpreter::new(&front) {
                Ok(interpreter) => interpreter,
                Err(_) => {
                    for diagnostic in front.diagnostics.iter().filter(|d| d.is_error()) {
                        eprint!("{}", diagnostic.render(&file));
                    }
                    failed = true;
                    continue;
                }
            },
        };
        match gdlc_runtime::simulate_for(
            &mut interpreter,
            Duration::from_secs_f64(seconds),
            seed,
            100_000,
        ) {
            Ok(report) => println!(
                "{name}\t{}\t{}\t{:.2}\t{:.1}\t{:.0}",
                report.playouts,
                report.states,
                report.elapsed.as_secs_f64(),
                report.playouts_per_second(),
                report.states_per_second()
            ),
            Err(err) => {
                eprintln!("{name}: {err}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

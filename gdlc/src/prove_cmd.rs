//! `gdlc prove`: the command-line front of [`gdlc::prove`] (part of the `gdlc` binary).
//!
//! Reads and analyses the game, parses `--formula` texts (errors are located in the
//! formula text), runs the prover with a progress bar on stderr, writes each program
//! to `--emit-asp DIR` as it is solved, and prints a report: one line per property,
//! a summary per class, and the runs with their grounding and solving times — or all
//! of it as JSON with `--json`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gdlc::diagnostic::Code;
use gdlc::emit::asp::AspGame;
use gdlc::prove::{Class, Event, Options, Outcome, Report, RunStatus, Step};
use gdlc::{Diagnostic, SourceFile};

use crate::{Reported, emit, front_end};

/// The options of `gdlc prove`.
pub struct ProveArgs {
    /// The game.
    pub file: PathBuf,
    /// Classes to attempt (all four when empty and no formula is given).
    pub classes: Vec<Class>,
    /// Formulas to prove.
    pub formulas: Vec<String>,
    /// Where to write the programs.
    pub emit_asp: Option<PathBuf>,
    /// Report as JSON.
    pub json: bool,
    /// Ground-atom limit per program.
    pub max_ground: u64,
    /// Solving time limit per program, in seconds.
    pub time_limit: Option<f64>,
}

pub fn prove(args: &ProveArgs) -> Result<(), Reported> {
    let (file, front) = front_end(&args.file)?;
    let ir = gdlc::analysis::analyze(&front).map_err(|diagnostic| {
        emit(&diagnostic, &file);
        Reported
    })?;
    let mut formulas = Vec::new();
    for text in &args.formulas {
        let source = SourceFile::new("--formula", text.as_str());
        match gdlc::prove::formula::parse(text, &ir) {
            Ok(formula) => formulas.push(formula),
            Err(diagnostic) => {
                emit(&diagnostic, &source);
                return Err(Reported);
            }
        }
    }
    let classes: Vec<Class> = if args.classes.is_empty() && formulas.is_empty() {
        Class::STANDARD.to_vec()
    } else {
        args.classes.clone()
    };
    if let Some(dir) = &args.emit_asp {
        std::fs::create_dir_all(dir).map_err(|err| io_error(dir, &err))?;
    }
    let properties = gdlc::prove::properties(&ir, &classes, &formulas);
    let game = AspGame::new(&front.rules, &ir, &file.name);
    let options = Options {
        max_ground: args.max_ground,
        time_limit: args.time_limit.map(Duration::from_secs_f64),
    };

    let bar = indicatif::ProgressBar::new(properties.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} decided  {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let mut write_error: Option<Diagnostic> = None;
    let started = Instant::now();
    let report = gdlc::prove::prove(&game, properties, &options, &mut |event| match event {
        Event::Program { file, text } => {
            bar.set_message(file.trim_end_matches(".lp").to_owned());
            if let Some(dir) = &args.emit_asp
                && write_error.is_none()
            {
                let path = dir.join(file);
                if let Err(err) = std::fs::write(&path, text) {
                    write_error = Some(Diagnostic::error(
                        Code::Io,
                        format!("cannot write `{}`: {err}", path.display()),
                    ));
                }
            }
        }
        Event::RunDone(_) => {}
        Event::Decided { done, .. } => bar.set_position(done as u64),
    });
    bar.finish_and_clear();
    let report = report.map_err(|diagnostic| {
        emit(&diagnostic, &file);
        Reported
    })?;
    if let Some(diagnostic) = write_error {
        emit(&diagnostic, &file);
        return Err(Reported);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let text = if args.json {
        json(&file.name, &report, elapsed)
    } else {
        text(&file.name, &report, elapsed)
    };
    // A closed pipe (e.g. `| head`) is not an error worth reporting.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

fn io_error(path: &Path, err: &std::io::Error) -> Reported {
    let diagnostic = Diagnostic::error(
        Code::Io,
        format!("cannot create `{}`: {err}", path.display()),
    );
    emit(
        &diagnostic,
        &SourceFile::new(path.display().to_string(), ""),
    );
    Reported
}

fn outcome_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::NotAttempted(why) => format!("not-attempted ({why})"),
        other => other.word().to_owned(),
    }
}

/// Counts per outcome of a class, and the time of its runs.
struct Tally {
    proved: usize,
    false_initially: usize,
    not_inductive: usize,
    not_attempted: usize,
    seconds: f64,
}

fn tallies(report: &Report) -> Vec<(Class, Tally)> {
    let mut out: Vec<(Class, Tally)> = Vec::new();
    for verdict in &report.verdicts {
        let class = verdict.property.class;
        let index = match out.iter().position(|(c, _)| *c == class) {
            Some(i) => i,
            None => {
                let seconds = report
                    .runs
                    .iter()
                    .filter(|r| r.class == class)
                    .map(|r| r.ground_seconds + r.solve_seconds)
                    .sum();
                out.push((
                    class,
                    Tally {
                        proved: 0,
                        false_initially: 0,
                        not_inductive: 0,
                        not_attempted: 0,
                        seconds,
                    },
                ));
                out.len() - 1
            }
        };
        let tally = &mut out[index].1;
        match verdict.outcome {
            Outcome::Proved => tally.proved += 1,
            Outcome::FalseInitially => tally.false_initially += 1,
            Outcome::NotInductive => tally.not_inductive += 1,
            Outcome::NotAttempted(_) => tally.not_attempted += 1,
        }
    }
    out
}

fn text(game: &str, report: &Report, elapsed: f64) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{game}: {} properties", report.verdicts.len());
    let mut current = None;
    for verdict in &report.verdicts {
        if current != Some(verdict.property.class) {
            current = Some(verdict.property.class);
            let _ = writeln!(out, "\n{}", verdict.property.class.name());
        }
        let _ = writeln!(
            out,
            "  {:<16} {}",
            outcome_text(&verdict.outcome),
            verdict.property.name
        );
        if verdict.property.class == Class::Formulas {
            let _ = writeln!(out, "  {:<16} {}", "", verdict.property.formula);
        }
    }
    let _ = writeln!(
        out,
        "\n{:<12} {:>7} {:>16} {:>14} {:>14} {:>9}",
        "class", "proved", "false-initially", "not-inductive", "not-attempted", "seconds"
    );
    for (class, t) in tallies(report) {
        let _ = writeln!(
            out,
            "{:<12} {:>7} {:>16} {:>14} {:>14} {:>9.2}",
            class.name(),
            t.proved,
            t.false_initially,
            t.not_inductive,
            t.not_attempted,
            t.seconds
        );
    }
    let _ = writeln!(
        out,
        "\n{:>3} {:<12} {:<5} {:>4} {:>7} {:>8} {:>7} {:>12} {:>8} {:>8}  status",
        "run",
        "class",
        "step",
        "pass",
        "horizon",
        "formulas",
        "assumed",
        "ground atoms",
        "ground s",
        "solve s"
    );
    for run in &report.runs {
        let _ = writeln!(
            out,
            "{:>3} {:<12} {:<5} {:>4} {:>7} {:>8} {:>7} {:>12} {:>8.2} {:>8.2}  {}",
            run.id,
            run.class.name(),
            match run.step {
                Step::Base => "base",
                Step::Induction => "step",
            },
            run.pass,
            run.horizon,
            run.targets,
            run.assumptions,
            run.ground_atoms,
            run.ground_seconds,
            run.solve_seconds,
            status_word(run.status)
        );
    }
    let _ = writeln!(out, "\ntotal {elapsed:.2} s");
    out
}

fn status_word(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Solved => "solved",
        RunStatus::Unsatisfiable => "unsatisfiable",
        RunStatus::OverLimit => "over-limit",
        RunStatus::TimedOut => "timed-out",
    }
}

/// A JSON string literal.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json(game: &str, report: &Report, elapsed: f64) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\"game\":{},\"seconds\":{elapsed:.3},\"properties\":[",
        quote(game)
    );
    for (i, verdict) in report.verdicts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let reason = match &verdict.outcome {
            Outcome::NotAttempted(why) => format!(",\"reason\":{}", quote(why)),
            _ => String::new(),
        };
        let runs: Vec<String> = verdict.runs.iter().map(ToString::to_string).collect();
        let _ = write!(
            out,
            "\n{{\"class\":{},\"name\":{},\"formula\":{},\"outcome\":{}{reason},\"runs\":[{}]}}",
            quote(verdict.property.class.name()),
            quote(&verdict.property.name),
            quote(&verdict.property.formula.to_string()),
            quote(verdict.outcome.word()),
            runs.join(",")
        );
    }
    out.push_str("],\n\"classes\":[");
    for (i, (class, t)) in tallies(report).iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "\n{{\"class\":{},\"proved\":{},\"false_initially\":{},\"not_inductive\":{},\"not_attempted\":{},\"seconds\":{:.3}}}",
            quote(class.name()),
            t.proved,
            t.false_initially,
            t.not_inductive,
            t.not_attempted,
            t.seconds
        );
    }
    out.push_str("],\n\"runs\":[");
    for (i, run) in report.runs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "\n{{\"id\":{},\"class\":{},\"step\":{},\"pass\":{},\"horizon\":{},\"formulas\":{},\"assumptions\":{},\"ground_atoms\":{},\"ground_seconds\":{:.3},\"solve_seconds\":{:.3},\"status\":{},\"file\":{}}}",
            run.id,
            quote(run.class.name()),
            quote(match run.step {
                Step::Base => "base",
                Step::Induction => "step",
            }),
            run.pass,
            run.horizon,
            run.targets,
            run.assumptions,
            run.ground_atoms,
            run.ground_seconds,
            run.solve_seconds,
            quote(status_word(run.status)),
            quote(&run.file)
        );
    }
    out.push_str("]}\n");
    out
}

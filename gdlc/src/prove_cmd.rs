//! `gdlc prove`: the command-line front of [`gdlc::prove`] (part of the `gdlc` binary).
//!
//! Reads and analyses the game, parses `--formula` texts (errors are located in the
//! formula text), runs the prover, writes each program to `--emit-asp DIR` as it is
//! solved, and prints a report: one line per property, a summary per class, and the runs
//! with their grounding and solving times — or all of it as JSON with `--json`.
//!
//! Each program is solved for at most `--time-limit` seconds
//! ([`gdlc::prove::DEFAULT_TIME_LIMIT`] when the option is absent, no limit with `0`);
//! properties a run leaves undecided are `not-attempted`, with the reason, and the text
//! report ends with how many and why. While it works, and only when stderr is a
//! terminal, two progress lines show the properties decided so far and the current run
//! (its class, step, size, phase and time).

use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gdlc::diagnostic::Code;
use gdlc::prove::asp::AspGame;
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
    /// Solving time limit per program, in seconds (absent: the default; `0`: none).
    pub time_limit: Option<f64>,
}

/// The solving time limit of `--time-limit SECONDS`.
fn time_limit(seconds: Option<f64>) -> Result<Option<Duration>, String> {
    match seconds {
        None => Ok(Some(gdlc::prove::DEFAULT_TIME_LIMIT)),
        Some(0.0) => Ok(None),
        Some(s) => Duration::try_from_secs_f64(s).map(Some).map_err(|_| {
            format!("invalid --time-limit `{s}`: give a number of seconds, or 0 for no limit")
        }),
    }
}

pub fn prove(args: &ProveArgs) -> Result<(), Reported> {
    let time_limit = time_limit(args.time_limit).map_err(|message| {
        eprintln!("error: {message}");
        Reported
    })?;
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
        time_limit,
    };

    let mut progress = Progress::new(properties.len(), time_limit);
    let mut write_error: Option<Diagnostic> = None;
    let started = Instant::now();
    let report = gdlc::prove::prove(&game, properties, &options, &mut |event| match event {
        Event::Program { file, text, run } => {
            progress.run_started(run);
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
        Event::Solving { ground_atoms } => progress.solving(ground_atoms),
        Event::RunDone(_) => {}
        Event::Decided { done, .. } => progress.decided(done),
    });
    progress.finish();
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

/// The progress lines on stderr (hidden when stderr is not a terminal): properties
/// decided, and the current run with its own clock.
struct Progress {
    /// Kept so that the lines are drawn together.
    _lines: indicatif::MultiProgress,
    overall: indicatif::ProgressBar,
    run: indicatif::ProgressBar,
    /// What the run line says before its phase.
    current: String,
    limit: String,
}

impl Progress {
    fn new(properties: usize, time_limit: Option<Duration>) -> Self {
        let target = if std::io::stderr().is_terminal() {
            indicatif::ProgressDrawTarget::stderr()
        } else {
            indicatif::ProgressDrawTarget::hidden()
        };
        let lines = indicatif::MultiProgress::with_draw_target(target);
        let style = |template: &str| {
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        };
        let overall = lines.add(indicatif::ProgressBar::new(properties as u64));
        overall.set_style(style(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} properties decided",
        ));
        let run = lines.add(indicatif::ProgressBar::new_spinner());
        run.set_style(style("  [{elapsed:>4}] {msg}"));
        overall.enable_steady_tick(Duration::from_millis(200));
        run.enable_steady_tick(Duration::from_millis(200));
        let limit = match time_limit {
            Some(limit) => format!(
                "(time limit {} s)",
                gdlc::prove::seconds_text(limit.as_secs_f64())
            ),
            None => "(no time limit)".to_owned(),
        };
        Progress {
            _lines: lines,
            overall,
            run,
            current: String::new(),
            limit,
        }
    }

    fn run_started(&mut self, run: &gdlc::prove::Run) {
        let text = format!(
            "run {} {} {}{}: {} formula{}",
            run.id,
            run.class.name(),
            step_word(run.step),
            if run.pass > 1 {
                format!(" pass {}", run.pass)
            } else {
                String::new()
            },
            run.targets,
            if run.targets == 1 { "" } else { "s" },
        );
        self.run.reset_elapsed();
        self.run.set_message(format!("{text}, grounding"));
        self.current = text;
    }

    fn solving(&self, ground_atoms: u64) {
        self.run.set_message(format!(
            "{}, solving {ground_atoms} ground atoms {}",
            self.current, self.limit
        ));
    }

    fn decided(&self, done: usize) {
        self.overall.set_position(done as u64);
    }

    fn finish(&self) {
        self.run.finish_and_clear();
        self.overall.finish_and_clear();
    }
}

fn step_word(step: Step) -> &'static str {
    match step {
        Step::Base => "base",
        Step::Induction => "step",
    }
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
            step_word(run.step),
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
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for verdict in &report.verdicts {
        if let Outcome::NotAttempted(why) = &verdict.outcome {
            match reasons.iter_mut().find(|(w, _)| *w == why.as_str()) {
                Some((_, n)) => *n += 1,
                None => reasons.push((why, 1)),
            }
        }
    }
    if !reasons.is_empty() {
        let _ = writeln!(out);
    }
    for (why, n) in reasons {
        let hint = if why.starts_with("solving") {
            " (raise it with --time-limit SECONDS, 0 for none)"
        } else if why.starts_with("grounding") {
            " (raise it with --max-ground N)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{n} propert{} not attempted: {why}{hint}",
            if n == 1 { "y" } else { "ies" }
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
            quote(step_word(run.step)),
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

//! The invariant prover (Haufe, Schiffel, Thielscher): proves state sequence invariants
//! of a game by induction, with answer set programs from [`crate::emit::asp`] solved by
//! an embedded clingo.
//!
//! - [`formula`]: the formula language, its parser and text form;
//! - [`classes`]: the property classes of the paper's section 6.3, generated from the IR;
//! - [`prove`] (feature `prove`): the driver, and `solver`, the clingo binding.
//!
//! **How a property is proved.** Properties are attempted in groups of one class and one
//! degree `d`, many at once by cautious reasoning (section 5.1): the *base case* program
//! starts in the initial state with horizon `d` and shows the name of each formula φ;
//! φ holds initially iff its name is in every answer set. The *induction step* program
//! starts in any state of the fluent domain (the state generator), has horizon `d + 1`,
//! and shows the name of `φ ⊃ ○φ`; proven invariants are added as constraints. A
//! property is **proved** iff both hold; **false in the initial state** if the base case
//! fails (a real sequence from the initial state violates it); **not provable by
//! induction** if only the step fails (it may still hold: the generated states include
//! unreachable ones); **not attempted** when the grounding exceeds the configured limit
//! or the solver exceeds its time limit before deciding it.
//!
//! Functionals are attempted first, and again with the functionals already proven as
//! assumptions until a pass proves nothing new (the paper runs them twice); the proven
//! ones are then assumed by every later class. Every run holds formulas of one degree
//! `d` and assumes only formulas of degree 0, so the horizons are exactly `d` and
//! `d + 1`: no counterexample needs extending, and the proofs do not rely on the game
//! being playable (the paper's Theorem 17 and the note after it).

pub mod classes;
pub mod formula;
#[cfg(feature = "prove")]
pub mod solver;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::diagnostic::Diagnostic;
use crate::emit::asp::{AspGame, Request, Start};
use formula::Formula;

/// A property class (section 6.3), or the user's own formulas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// At most / exactly one value per argument tuple; exactly one control fluent.
    Functionals,
    /// Playability and turn-taking.
    Legals,
    /// Zero-sum, unique and monotonic goal values.
    Goals,
    /// Every ground fluent stays true / stays false.
    Persistence,
    /// Formulas given by the user.
    Formulas,
}

impl Class {
    /// The four generated classes, in the order they are attempted.
    pub const STANDARD: [Class; 4] = [
        Class::Functionals,
        Class::Legals,
        Class::Goals,
        Class::Persistence,
    ];

    /// The class's name as used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Class::Functionals => "functionals",
            Class::Legals => "legals",
            Class::Goals => "goals",
            Class::Persistence => "persistence",
            Class::Formulas => "formulas",
        }
    }
}

/// A property to prove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// Its class.
    pub class: Class,
    /// A short description.
    pub name: String,
    /// The invariant.
    pub formula: Formula,
}

/// What became of a property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Holds in every reachable state: base case and induction step proved.
    Proved,
    /// Does not hold in the initial state.
    FalseInitially,
    /// Holds initially, but the induction step fails (some state of the domain, maybe
    /// unreachable, satisfies it and has a successor that does not).
    NotInductive,
    /// Not decided, and why (grounding or time limit).
    NotAttempted(String),
}

impl Outcome {
    /// A short stable word for reports.
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Proved => "proved",
            Outcome::FalseInitially => "false-initially",
            Outcome::NotInductive => "not-inductive",
            Outcome::NotAttempted(_) => "not-attempted",
        }
    }
}

/// Which half of an induction proof a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The base case (from the initial state).
    Base,
    /// The induction step (from generated states).
    Induction,
}

/// How a solver run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Search completed with answer sets.
    Solved,
    /// Search completed: no answer set (every shown formula holds vacuously).
    Unsatisfiable,
    /// Grounding exceeded the limit; nothing was decided.
    OverLimit,
    /// Solving exceeded the time limit.
    TimedOut,
}

/// One program given to the solver.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// 1-based number, in the order of running.
    pub id: usize,
    /// The class of its formulas.
    pub class: Class,
    /// Base case or induction step.
    pub step: Step,
    /// 1 for the first attempt of a group, 2… for the functionals' later passes.
    pub pass: usize,
    /// The horizon (number of joint moves).
    pub horizon: usize,
    /// Number of formulas decided at once.
    pub targets: usize,
    /// Number of proven invariants assumed.
    pub assumptions: usize,
    /// Ground atoms of the program.
    pub ground_atoms: u64,
    /// Grounding time in seconds.
    pub ground_seconds: f64,
    /// Solving time in seconds.
    pub solve_seconds: f64,
    /// How it ended.
    pub status: RunStatus,
    /// A file name for the program (`03-functionals-step.lp`).
    pub file: String,
}

/// A property and what became of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The property.
    pub property: Property,
    /// Its outcome.
    pub outcome: Outcome,
    /// The runs (ids) that decided it.
    pub runs: Vec<usize>,
}

/// The result of proving.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// One verdict per property, in the order given.
    pub verdicts: Vec<Verdict>,
    /// Every solver run, in order.
    pub runs: Vec<Run>,
}

/// Limits of the prover.
#[derive(Clone, Debug)]
pub struct Options {
    /// Most ground atoms of one program; a property whose program exceeds it (even alone)
    /// is not attempted.
    pub max_ground: u64,
    /// Most solving time of one program.
    pub time_limit: Option<Duration>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_ground: 5_000_000,
            time_limit: None,
        }
    }
}

/// Progress of a proof, for the caller to show or record.
#[derive(Debug)]
pub enum Event<'a> {
    /// A program is about to be solved (the `--emit-asp` hook).
    Program {
        /// Suggested file name.
        file: &'a str,
        /// The ASP text.
        text: &'a str,
    },
    /// A run finished.
    RunDone(&'a Run),
    /// Properties decided so far, of all.
    Decided {
        /// Decided.
        done: usize,
        /// All.
        total: usize,
    },
}

/// The properties of the given classes, then the given formulas (as class
/// [`Class::Formulas`], named `formula 1`, …).
pub fn properties(ir: &crate::ir::Ir, classes: &[Class], formulas: &[Formula]) -> Vec<Property> {
    let mut out = Vec::new();
    for class in Class::STANDARD {
        if classes.contains(&class) {
            out.extend(classes::generate(ir, class));
        }
    }
    for (i, formula) in formulas.iter().enumerate() {
        out.push(Property {
            class: Class::Formulas,
            name: format!("formula {}", i + 1),
            formula: formula.clone(),
        });
    }
    out
}

/// Per-target answer of one group of runs.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Answer {
    Holds,
    Fails,
    Undecided(String),
}

/// Proves `properties` of `game`.
#[cfg(feature = "prove")]
pub fn prove(
    game: &AspGame<'_>,
    properties: Vec<Property>,
    options: &Options,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Report, Diagnostic> {
    let mut driver = Driver {
        game,
        options,
        on_event,
        runs: Vec::new(),
    };
    let total = properties.len();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; total];
    let mut run_ids: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut proven_functionals: Vec<usize> = Vec::new();
    let mut done = 0;

    let mut classes: Vec<Class> = properties.iter().map(|p| p.class).collect();
    classes.sort();
    classes.dedup();
    for class in classes {
        let mut by_degree: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, p) in properties.iter().enumerate().filter(|(_, p)| p.class == class) {
            by_degree.entry(p.formula.degree()).or_default().push(i);
        }
        for (degree, members) in by_degree {
            // Base case.
            let targets: Vec<&Formula> = members.iter().map(|&i| &properties[i].formula).collect();
            let first = driver.runs.len();
            let base = driver.group(class, Step::Base, 1, degree, &targets, &[])?;
            let base_runs: Vec<usize> = driver.runs[first..].iter().map(|r| r.id).collect();
            let mut candidates = Vec::new();
            for (&i, answer) in members.iter().zip(base) {
                run_ids[i].extend(&base_runs);
                match answer {
                    Answer::Holds => candidates.push(i),
                    Answer::Fails => outcomes[i] = Some(Outcome::FalseInitially),
                    Answer::Undecided(why) => outcomes[i] = Some(Outcome::NotAttempted(why)),
                }
            }
            done += members.len() - candidates.len();
            on_event_decided(&mut driver, done, total);

            // Induction step, repeated for functionals while it proves more.
            let mut assumed: Vec<usize> = if class == Class::Functionals {
                Vec::new()
            } else {
                proven_functionals.clone()
            };
            let mut pass = 1;
            while !candidates.is_empty() {
                let targets: Vec<&Formula> =
                    candidates.iter().map(|&i| &properties[i].formula).collect();
                let assumptions: Vec<&Formula> =
                    assumed.iter().map(|&i| &properties[i].formula).collect();
                let first = driver.runs.len();
                let step =
                    driver.group(class, Step::Induction, pass, degree, &targets, &assumptions)?;
                let step_runs: Vec<usize> = driver.runs[first..].iter().map(|r| r.id).collect();
                let mut failed = Vec::new();
                let mut newly = Vec::new();
                for (&i, answer) in candidates.iter().zip(step) {
                    run_ids[i].extend(&step_runs);
                    match answer {
                        Answer::Holds => {
                            outcomes[i] = Some(Outcome::Proved);
                            newly.push(i);
                        }
                        Answer::Fails => failed.push(i),
                        Answer::Undecided(why) => outcomes[i] = Some(Outcome::NotAttempted(why)),
                    }
                }
                done += candidates.len() - failed.len();
                on_event_decided(&mut driver, done, total);
                if class == Class::Functionals {
                    proven_functionals.extend(&newly);
                }
                let again = class == Class::Functionals && !newly.is_empty() && !failed.is_empty();
                candidates = failed;
                if !again {
                    break;
                }
                assumed.extend(newly);
                pass += 1;
            }
            for i in candidates {
                outcomes[i] = Some(Outcome::NotInductive);
                done += 1;
            }
            on_event_decided(&mut driver, done, total);
        }
    }
    let verdicts = properties
        .into_iter()
        .zip(outcomes)
        .zip(run_ids)
        .map(|((property, outcome), runs)| Verdict {
            property,
            outcome: outcome.unwrap_or(Outcome::NotAttempted("not run".into())),
            runs,
        })
        .collect();
    Ok(Report {
        verdicts,
        runs: driver.runs,
    })
}

#[cfg(feature = "prove")]
fn on_event_decided(driver: &mut Driver<'_, '_, '_>, done: usize, total: usize) {
    (driver.on_event)(Event::Decided { done, total });
}

#[cfg(feature = "prove")]
struct Driver<'g, 'o, 'e> {
    game: &'g AspGame<'g>,
    options: &'o Options,
    on_event: &'e mut dyn FnMut(Event<'_>),
    runs: Vec<Run>,
}

#[cfg(feature = "prove")]
impl Driver<'_, '_, '_> {
    /// Decides a group of targets, splitting it when its grounding is over the limit.
    fn group(
        &mut self,
        class: Class,
        step: Step,
        pass: usize,
        degree: usize,
        targets: &[&Formula],
        assumptions: &[&Formula],
    ) -> Result<Vec<Answer>, Diagnostic> {
        let (answers, over) = self.run(class, step, pass, degree, targets, assumptions)?;
        if !over {
            return Ok(answers);
        }
        let limit = format!("grounding exceeds {} atoms", self.options.max_ground);
        if targets.len() == 1 {
            return Ok(vec![Answer::Undecided(limit)]);
        }
        // Is the game alone over the limit? Then no smaller group can fit.
        let (_, alone_over) = self.run(class, step, pass, degree, &[], assumptions)?;
        if alone_over {
            return Ok(vec![Answer::Undecided(limit); targets.len()]);
        }
        let mut out = Vec::with_capacity(targets.len());
        let (left, right) = targets.split_at(targets.len() / 2);
        for half in [left, right] {
            out.extend(self.group(class, step, pass, degree, half, assumptions)?);
        }
        Ok(out)
    }

    /// One program: answers per target, and whether grounding was over the limit.
    fn run(
        &mut self,
        class: Class,
        step: Step,
        pass: usize,
        degree: usize,
        targets: &[&Formula],
        assumptions: &[&Formula],
    ) -> Result<(Vec<Answer>, bool), Diagnostic> {
        let (start, horizon, what) = match step {
            Step::Base => (Start::Initial, degree, "base case"),
            Step::Induction => (Start::Generated, degree + 1, "induction step"),
        };
        let id = self.runs.len() + 1;
        let pass_text = if pass > 1 {
            format!(", pass {pass}")
        } else {
            String::new()
        };
        let request = Request {
            title: format!(
                "{} {what}{pass_text}: {} formula{} of degree {degree}, horizon {horizon}, {} assumption{}",
                class.name(),
                targets.len(),
                if targets.len() == 1 { "" } else { "s" },
                assumptions.len(),
                if assumptions.len() == 1 { "" } else { "s" },
            ),
            start,
            horizon,
            targets: targets.to_vec(),
            assumptions: assumptions.to_vec(),
        };
        let program = self.game.program(&request);
        let file = format!(
            "{id:02}-{}-{}{}.lp",
            class.name(),
            match step {
                Step::Base => "base",
                Step::Induction => "step",
            },
            if pass > 1 {
                format!("-pass{pass}")
            } else {
                String::new()
            }
        );
        (self.on_event)(Event::Program {
            file: &file,
            text: &program.text,
        });
        let outcome = solver::solve(&program.text, self.options.max_ground, self.options.time_limit)?;
        let (status, answers, over) = match &outcome.solved {
            solver::Solved::Complete {
                cautious,
                unsatisfiable,
            } => {
                let answers = program
                    .shown
                    .iter()
                    .map(|name| {
                        if *unsatisfiable || cautious.contains(name) {
                            Answer::Holds
                        } else {
                            Answer::Fails
                        }
                    })
                    .collect();
                let status = if *unsatisfiable {
                    RunStatus::Unsatisfiable
                } else {
                    RunStatus::Solved
                };
                (status, answers, false)
            }
            solver::Solved::OverLimit => (RunStatus::OverLimit, Vec::new(), true),
            solver::Solved::TimedOut { upper } => {
                let why = "solving exceeds the time limit".to_owned();
                let answers = program
                    .shown
                    .iter()
                    .map(|name| match upper {
                        Some(upper) if !upper.contains(name) => Answer::Fails,
                        _ => Answer::Undecided(why.clone()),
                    })
                    .collect();
                (RunStatus::TimedOut, answers, false)
            }
        };
        let run = Run {
            id,
            class,
            step,
            pass,
            horizon,
            targets: targets.len(),
            assumptions: assumptions.len(),
            ground_atoms: outcome.ground_atoms,
            ground_seconds: outcome.ground_time.as_secs_f64(),
            solve_seconds: outcome.solve_time.as_secs_f64(),
            status,
            file,
        };
        (self.on_event)(Event::RunDone(&run));
        self.runs.push(run);
        Ok((answers, over))
    }
}

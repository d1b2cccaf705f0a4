//! The invariant prover (Haufe, Schiffel, Thielscher): proves state sequence invariants
//! of a game by induction, with answer set programs solved by an embedded clingo.
//!
//! - [`formula`]: the formula language, its parser and text form;
//! - [`asp`]: the temporal answer set programs: the game over time steps, state and
//!   action generators, formula encodings, base-case and induction-step programs. Plain
//!   text, runnable by a stand-alone clingo (`gdlc prove --emit-asp`);
//! - [`classes`]: the property classes of the paper's section 6.3, generated from the IR;
//! - `prove` (feature `prove`): the driver (`driver.rs`), and `solver`, the clingo
//!   binding.
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

pub mod asp;
pub mod classes;
#[cfg(feature = "prove")]
mod driver;
pub mod formula;
#[cfg(feature = "prove")]
pub mod solver;

use std::time::Duration;

#[cfg(feature = "prove")]
pub use driver::prove;
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

/// The default of [`Options::max_ground`].
pub const DEFAULT_MAX_GROUND: u64 = 5_000_000;

/// The default of [`Options::time_limit`]: 30 s of solving per program. Every game of
/// the paper's Figure 3 then ends within a few minutes (`docs/prove-figure3.md`); the
/// paper aborted runs after 100 s.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(30);

/// Limits of the prover.
#[derive(Clone, Debug)]
pub struct Options {
    /// Most ground atoms of one program; a property whose program exceeds it (even alone)
    /// is not attempted.
    pub max_ground: u64,
    /// Most solving time of one program (`None`: no limit). The properties a run leaves
    /// undecided when it passes the limit are not attempted.
    pub time_limit: Option<Duration>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_ground: DEFAULT_MAX_GROUND,
            time_limit: Some(DEFAULT_TIME_LIMIT),
        }
    }
}

/// Progress of a proof, for the caller to show or record.
#[derive(Debug)]
pub enum Event<'a> {
    /// A program is about to be grounded and solved (the `--emit-asp` hook).
    Program {
        /// Suggested file name.
        file: &'a str,
        /// The ASP text.
        text: &'a str,
        /// Its run: number, class, step, pass, horizon, targets and assumptions are
        /// set; the costs and the status are not known yet.
        run: &'a Run,
    },
    /// The program of the current run is grounded; solving starts.
    Solving {
        /// Its ground atoms.
        ground_atoms: u64,
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

/// Seconds as short text for messages: `30`, `0.5`, `0.001`.
pub fn seconds_text(seconds: f64) -> String {
    let text = format!("{seconds:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text.is_empty() {
        "0".to_owned()
    } else {
        text.to_owned()
    }
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

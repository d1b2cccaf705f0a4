//! The embedded answer set solver: grounds and solves one program with clingo (linked
//! statically, crate `clingo`) in cautious mode and returns the shown atoms that are in
//! every answer set.
//!
//! The ground program is measured by its number of ground atoms right after grounding;
//! above the limit it is not solved. (clingo cannot interrupt grounding, and the
//! `clingo` crate's ground-program observer builds slices from null pointers for empty
//! rule bodies, which is undefined behaviour, so no observer is registered.) Solving can
//! be given a time limit: the search runs asynchronously, the caller waits on its solve
//! handle for at most the time left, and cancels it (clingo stops the search and joins
//! its threads) when the limit passes, also between answer sets of the cautious
//! enumeration. Grounding cannot be interrupted. clingo's warnings (e.g.
//! about atoms without rules) are switched off: the emitted programs declare what they
//! leave undefined, and no warning changes a result.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use clingo::{ClingoError, Part, ShowType, SolveMode, SolveResult, control};

use crate::diagnostic::{Code, Diagnostic};

/// How a solver call ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solved {
    /// The search space was exhausted: the shown atoms in every answer set (every
    /// shown atom when there is no answer set at all, `unsatisfiable`).
    Complete {
        /// Shown atoms in all answer sets.
        cautious: BTreeSet<String>,
        /// Whether there was no answer set.
        unsatisfiable: bool,
    },
    /// The ground program has more atoms than the limit; it was not solved.
    OverLimit,
    /// Solving was cancelled at the time limit: `upper` is the intersection of the
    /// answer sets found so far (a superset of the cautious consequences), if any.
    TimedOut {
        /// Shown atoms in all answer sets found before the limit, if one was found.
        upper: Option<BTreeSet<String>>,
    },
}

/// A solver call's result and costs.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// What was found.
    pub solved: Solved,
    /// Ground atoms of the program.
    pub ground_atoms: u64,
    /// Time spent grounding.
    pub ground_time: Duration,
    /// Time spent solving.
    pub solve_time: Duration,
}

fn solver_error(what: &str, err: &ClingoError) -> Diagnostic {
    Diagnostic::error(Code::Solver, format!("clingo failed to {what}: {err}"))
}

/// Grounds and solves `text` in cautious mode. `max_atoms` bounds the ground program;
/// `time_limit` bounds the search; `grounded` is told the number of ground atoms when
/// grounding ends and solving starts (not when the program is over the limit).
pub fn solve(
    text: &str,
    max_atoms: u64,
    time_limit: Option<Duration>,
    grounded: &mut dyn FnMut(u64),
) -> Result<Outcome, Diagnostic> {
    let arguments = vec![
        "--enum-mode=cautious".to_owned(),
        "--models=0".to_owned(),
        "--warn=none".to_owned(),
    ];
    let mut control = control(arguments).map_err(|e| solver_error("start", &e))?;
    control
        .add("base", &[], text)
        .map_err(|e| solver_error("read the program", &e))?;
    let part = Part::new("base", vec![]).map_err(|e| solver_error("start", &e))?;
    let started = Instant::now();
    control
        .ground(&[part])
        .map_err(|e| solver_error("ground", &e))?;
    let ground_time = started.elapsed();
    let ground_atoms = control
        .symbolic_atoms()
        .and_then(|atoms| atoms.size())
        .map_err(|e| solver_error("count the ground atoms", &e))? as u64;
    if ground_atoms > max_atoms {
        return Ok(Outcome {
            solved: Solved::OverLimit,
            ground_atoms,
            ground_time,
            solve_time: Duration::ZERO,
        });
    }

    grounded(ground_atoms);
    let started = Instant::now();
    let mut handle = control
        .solve(SolveMode::ASYNC | SolveMode::YIELD, &[])
        .map_err(|e| solver_error("solve", &e))?;
    let mut last: Option<BTreeSet<String>> = None;
    let mut timed_out = false;
    loop {
        if let Some(limit) = time_limit {
            let left = limit.saturating_sub(started.elapsed());
            if !handle.wait(left) {
                timed_out = true;
                handle.cancel().map_err(|e| solver_error("stop", &e))?;
                break;
            }
        }
        let model = handle.model().map_err(|e| solver_error("solve", &e))?;
        let Some(model) = model else {
            break;
        };
        let symbols = model
            .symbols(ShowType::SHOWN)
            .map_err(|e| solver_error("read a model", &e))?;
        last = Some(symbols.iter().map(ToString::to_string).collect());
        handle.resume().map_err(|e| solver_error("solve", &e))?;
    }
    let result = if timed_out {
        None
    } else {
        Some(handle.get().map_err(|e| solver_error("solve", &e))?)
    };
    handle.close().map_err(|e| solver_error("finish", &e))?;
    let solve_time = started.elapsed();
    let solved = match (result, last) {
        (None, upper) => Solved::TimedOut { upper },
        (Some(result), last) => {
            let unsatisfiable = result.contains(SolveResult::UNSATISFIABLE) || last.is_none();
            Solved::Complete {
                cautious: last.unwrap_or_default(),
                unsatisfiable,
            }
        }
    };
    Ok(Outcome {
        solved,
        ground_atoms,
        ground_time,
        solve_time,
    })
}

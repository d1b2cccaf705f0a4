//! The prover's driver: groups properties by class and degree, runs the base case and
//! the induction step (repeating the functionals' step while it proves more), splits
//! groups whose grounding is over the limit, and collects the verdicts (see the
//! module docs of [`crate::prove`]).

use std::collections::BTreeMap;

use super::formula::Formula;
use super::{
    Class, Event, Options, Outcome, Property, Report, Run, RunStatus, Step, Verdict, seconds_text,
    solver,
};
use crate::diagnostic::Diagnostic;
use crate::prove::asp::{AspGame, Request, Start};

/// Per-target answer of one group of runs.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Answer {
    Holds,
    Fails,
    Undecided(String),
}

/// Proves `properties` of `game`.
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
        for (i, p) in properties
            .iter()
            .enumerate()
            .filter(|(_, p)| p.class == class)
        {
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

fn on_event_decided(driver: &mut Driver<'_, '_, '_>, done: usize, total: usize) {
    (driver.on_event)(Event::Decided { done, total });
}

struct Driver<'g, 'o, 'e> {
    game: &'g AspGame<'g>,
    options: &'o Options,
    on_event: &'e mut dyn FnMut(Event<'_>),
    runs: Vec<Run>,
}

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
        let mut run = Run {
            id,
            class,
            step,
            pass,
            horizon,
            targets: targets.len(),
            assumptions: assumptions.len(),
            ground_atoms: 0,
            ground_seconds: 0.0,
            solve_seconds: 0.0,
            status: RunStatus::Solved,
            file,
        };
        (self.on_event)(Event::Program {
            file: &run.file,
            text: &program.text,
            run: &run,
        });
        let on_event = &mut *self.on_event;
        let outcome = solver::solve(
            &program.text,
            self.options.max_ground,
            self.options.time_limit,
            &mut |ground_atoms| on_event(Event::Solving { ground_atoms }),
        )?;
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
                let why = match self.options.time_limit {
                    Some(limit) => format!(
                        "solving passed the time limit of {} s",
                        seconds_text(limit.as_secs_f64())
                    ),
                    None => "solving was stopped".to_owned(),
                };
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
        run.ground_atoms = outcome.ground_atoms;
        run.ground_seconds = outcome.ground_time.as_secs_f64();
        run.solve_seconds = outcome.solve_time.as_secs_f64();
        run.status = status;
        (self.on_event)(Event::RunDone(&run));
        self.runs.push(run);
        Ok((answers, over))
    }
}

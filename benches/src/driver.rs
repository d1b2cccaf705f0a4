//! The measuring process of `cargo xtask bench`: random playouts of one reasoner for a
//! given time, in a release build, printed as one line.
//!
//! `cargo xtask bench` writes, for each game, a small binary crate into its scratch
//! workspace whose `main` is `gdlc_benches::driver::main(game::new())`, builds it with
//! the release profile and runs it once per figure:
//!
//! ```text
//! DRIVER generated SECONDS SEED MAX_STEPS        the generated reasoner `game`
//! DRIVER reference NAME SECONDS SEED MAX_STEPS   a hand-written reference (see
//!                                                reference::NAMES)
//! ```
//!
//! Both measure with [`gdlc_runtime::simulate_for`] (random playouts from the initial
//! state, goals read at each end, one thread) and print
//! `playouts<TAB>N<TAB>states<TAB>M<TAB>seconds<TAB>S` — the line the Prolog driver
//! prints, so one parser (`gdlc::emit::prolog::parse_playouts`) reads both. Bad
//! arguments exit with code 2, a playout error with code 1 and its message on stderr.

use std::process::ExitCode;
use std::time::Duration;

use gdlc_runtime::{Game, SimulationReport, simulate_for};

use crate::reference;

/// What to measure, as given on the driver's command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// The generated reasoner the driver was built with.
    Generated(Budget),
    /// The hand-written reference called `name` (one of [`reference::NAMES`]).
    Reference {
        /// The reference's name.
        name: String,
        /// Time, seed and step limit.
        budget: Budget,
    },
}

/// How long and how to play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Wall-clock time of the playouts.
    pub time: Duration,
    /// Seed of the random playouts.
    pub seed: u64,
    /// Steps per playout at most.
    pub max_steps: usize,
}

impl Budget {
    fn to_args(self) -> [String; 3] {
        [
            self.time.as_secs_f64().to_string(),
            self.seed.to_string(),
            self.max_steps.to_string(),
        ]
    }

    fn from_args(args: &[String]) -> Result<Budget, String> {
        let [seconds, seed, max_steps] = args else {
            return Err(format!(
                "expected SECONDS SEED MAX_STEPS, got {} argument(s)",
                args.len()
            ));
        };
        let time = seconds
            .parse::<f64>()
            .ok()
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .ok_or_else(|| format!("`{seconds}` is not a number of seconds"))?;
        let seed = seed
            .parse()
            .map_err(|_| format!("`{seed}` is not a seed (an unsigned integer)"))?;
        let max_steps = max_steps
            .parse()
            .map_err(|_| format!("`{max_steps}` is not a number of steps"))?;
        Ok(Budget {
            time,
            seed,
            max_steps,
        })
    }
}

impl Request {
    /// The driver's arguments for this request (without the program name).
    pub fn to_args(&self) -> Vec<String> {
        match self {
            Request::Generated(budget) => std::iter::once("generated".to_owned())
                .chain(budget.to_args())
                .collect(),
            Request::Reference { name, budget } => ["reference".to_owned(), name.clone()]
                .into_iter()
                .chain(budget.to_args())
                .collect(),
        }
    }

    /// Reads a request from the driver's arguments (without the program name).
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Result<Request, String> {
        let args: Vec<String> = args.into_iter().collect();
        match args.split_first() {
            Some((kind, rest)) if kind == "generated" => {
                Budget::from_args(rest).map(Request::Generated)
            }
            Some((kind, rest)) if kind == "reference" => {
                let (name, rest) = rest
                    .split_first()
                    .ok_or("expected NAME SECONDS SEED MAX_STEPS after `reference`")?;
                if !reference::NAMES.contains(&name.as_str()) {
                    return Err(format!(
                        "no reference `{name}` (one of {})",
                        reference::NAMES.join(", ")
                    ));
                }
                Ok(Request::Reference {
                    name: name.clone(),
                    budget: Budget::from_args(rest)?,
                })
            }
            _ => Err(
                "usage: DRIVER generated SECONDS SEED MAX_STEPS | DRIVER reference NAME SECONDS SEED MAX_STEPS"
                    .to_owned(),
            ),
        }
    }
}

/// The driver's output line for `report`.
pub fn report_line(report: &SimulationReport) -> String {
    format!(
        "playouts\t{}\tstates\t{}\tseconds\t{:.6}",
        report.playouts,
        report.states,
        report.elapsed.as_secs_f64()
    )
}

/// The driver's `main`: reads the request from the command line, measures the
/// generated reasoner `game` or a reference, and prints the report line.
pub fn main<G: Game>(mut game: G) -> ExitCode {
    let request = match Request::from_args(std::env::args().skip(1)) {
        Ok(request) => request,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let report = match &request {
        Request::Generated(budget) => {
            simulate_for(&mut game, budget.time, budget.seed, budget.max_steps)
        }
        Request::Reference { name, budget } => {
            match reference::simulate(name, budget.time, budget.seed, budget.max_steps) {
                Some(report) => report,
                // Names were checked when the request was read.
                None => {
                    eprintln!("error: no reference `{name}`");
                    return ExitCode::from(2);
                }
            }
        }
    };
    match report {
        Ok(report) => {
            println!("{}", report_line(&report));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn requests_round_trip_through_arguments() {
        let budget = Budget {
            time: Duration::from_millis(250),
            seed: 7,
            max_steps: 1000,
        };
        for request in [
            Request::Generated(budget),
            Request::Reference {
                name: "connectfour7".to_owned(),
                budget,
            },
        ] {
            assert_eq!(Request::from_args(request.to_args()), Ok(request));
        }
        assert_eq!(
            Request::from_args(args("generated 2 1 500")),
            Ok(Request::Generated(Budget {
                time: Duration::from_secs(2),
                seed: 1,
                max_steps: 500
            }))
        );
    }

    #[test]
    fn bad_requests_are_refused() {
        for (text, expected) in [
            ("generated 2 1", "expected SECONDS SEED MAX_STEPS, got 2"),
            ("generated -1 1 5", "`-1` is not a number of seconds"),
            ("generated 1 x 5", "`x` is not a seed"),
            ("reference chess 1 1 5", "no reference `chess`"),
            ("reference", "expected NAME"),
            ("playouts 1 1 5", "usage:"),
        ] {
            let error = Request::from_args(args(text)).expect_err(text);
            assert!(error.contains(expected), "{text}: {error}");
        }
        assert!(Request::from_args(Vec::new()).is_err());
    }

    #[test]
    fn the_report_line_has_the_prolog_drivers_layout() {
        let report = SimulationReport {
            playouts: 12,
            states: 345,
            elapsed: Duration::from_millis(1500),
        };
        assert_eq!(
            report_line(&report),
            "playouts\t12\tstates\t345\tseconds\t1.500000"
        );
    }
}

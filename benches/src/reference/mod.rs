//! Hand-written reference reasoners: the practical limit of simulation speed.
//!
//! Each type implements [`gdlc_runtime::Game`] with bit boards and no allocation in the
//! playout loop (`legal_moves`, `next_state`, `is_terminal`, `goal`). Their rules are
//! those of the KIF files they mirror, fluent for fluent and move for move, so that
//! `gdlc_runtime::compare` can check them against the interpreter as KIF text.
//!
//! States a reasoner cannot represent (e.g. a connect-four disc floating above an empty
//! square, or a state without a `control` fluent) are rejected by `state_from_kif`;
//! every state reachable from the initial state is representable.

pub mod breakthrough;
pub mod connectfour;
pub mod tictactoe;

pub use breakthrough::Breakthrough;
pub use connectfour::{ConnectFour, ConnectFour7, ConnectFour8};
pub use tictactoe::TicTacToe;

use std::time::Duration;

use gdlc_runtime::{GoalError, PlayoutError, SimulationReport, StateError, kif};

/// The names of the references, as `cargo xtask rates --reference` and the bench
/// driver know them: tictactoe (corpus and team files), connect four 8 × 6 (corpus)
/// and 7 × 6 (team), breakthrough (corpus) and breakthrough-team.
pub const NAMES: [&str; 5] = [
    "tictactoe",
    "connectfour",
    "connectfour7",
    "breakthrough",
    "breakthrough-team",
];

/// Random playouts of the reference called `name` (one of [`NAMES`]) for `budget`
/// with [`gdlc_runtime::simulate_for`]; `None` for an unknown name.
pub fn simulate(
    name: &str,
    budget: Duration,
    seed: u64,
    max_steps: usize,
) -> Option<Result<SimulationReport, PlayoutError>> {
    fn run<G: gdlc_runtime::Game>(
        mut game: G,
        budget: Duration,
        seed: u64,
        max_steps: usize,
    ) -> Result<SimulationReport, PlayoutError> {
        gdlc_runtime::simulate_for(&mut game, budget, seed, max_steps)
    }
    Some(match name {
        "tictactoe" => run(TicTacToe::new(), budget, seed, max_steps),
        "connectfour" => run(ConnectFour8::new(), budget, seed, max_steps),
        "connectfour7" => run(ConnectFour7::new(), budget, seed, max_steps),
        "breakthrough" => run(Breakthrough::corpus(), budget, seed, max_steps),
        "breakthrough-team" => run(Breakthrough::team(), budget, seed, max_steps),
        _ => return None,
    })
}

/// A fluent parsed from KIF text: its canonical text and its elements (the name first,
/// then the arguments), e.g. `(cell 1 2 x)` gives `["cell", "1", "2", "x"]`.
pub(crate) struct Fluent {
    /// The canonical text.
    pub text: String,
    /// The name and arguments; a bare symbol gives one element.
    pub parts: Vec<String>,
}

impl Fluent {
    /// Parses `text`; nested terms are kept as one unparsed argument and so never match
    /// a reasoner's patterns.
    pub fn parse(text: &str) -> Result<Self, StateError> {
        let text = kif::canonical(text).map_err(StateError::Syntax)?;
        let parts = match text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            Some(inner) if !inner.contains('(') => inner.split(' ').map(str::to_owned).collect(),
            Some(_) => vec![text.clone()],
            None => vec![text.clone()],
        };
        Ok(Fluent { text, parts })
    }

    /// The parts as string slices, for matching.
    pub fn slices(&self) -> Vec<&str> {
        self.parts.iter().map(String::as_str).collect()
    }

    /// The error saying this fluent cannot be represented.
    pub fn unknown(&self) -> StateError {
        StateError::UnknownFluent(self.text.clone())
    }
}

/// A coordinate `1..=max` written as a KIF number, as a zero-based index.
pub(crate) fn coordinate(text: &str, max: usize) -> Option<usize> {
    match text.as_bytes() {
        [d @ b'1'..=b'9'] if usize::from(d - b'0') <= max => Some(usize::from(d - b'0') - 1),
        _ => None,
    }
}

/// The goal value from the set of values that hold, like the interpreter: none is
/// [`GoalError::Missing`], several are [`GoalError::Ambiguous`] (the two smallest).
/// `values` is a bit set over `[0, 50, 100]`.
pub(crate) fn goal_from_set(values: u8) -> Result<u8, GoalError> {
    const VALUES: [u8; 3] = [0, 50, 100];
    let mut held = VALUES
        .iter()
        .enumerate()
        .filter(|&(i, _)| values & (1 << i) != 0)
        .map(|(_, &v)| v);
    match (held.next(), held.next()) {
        (None, _) => Err(GoalError::Missing),
        (Some(v), None) => Ok(v),
        (Some(a), Some(b)) => Err(GoalError::Ambiguous(a, b)),
    }
}

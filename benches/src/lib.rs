//! The benchmark suite of gdlc (issue 6).
//!
//! - [`reference`](mod@reference): hand-written bit-board reasoners of tictactoe, connect four (8×6
//!   corpus and 7×6 team variants) and breakthrough (corpus and team variants) whose
//!   rules are identical to the KIF files, proven by the tests in `benches/tests/`
//!   against the reference interpreter. They are the practical limit the generated
//!   reasoners are measured against.
//! - [`driver`]: the measuring process of `cargo xtask bench` (random playouts of a
//!   generated reasoner or a reference in a release build).
//! - `benches/reasoners.rs`: criterion micro-benchmarks of the generated team crates
//!   and the references (legal moves, next state, terminal and goals).

pub mod driver;
pub mod reference;

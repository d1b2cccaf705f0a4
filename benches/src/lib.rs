//! The benchmark suite of gdlc (issue 6).
//!
//! For now it holds the hand-written [`reference`] reasoners: bit-board implementations
//! of tictactoe, connect four (8×6 corpus and 7×6 team variants) and breakthrough (corpus
//! and team variants) whose rules are identical to the KIF files, proven by the tests in
//! `benches/tests/` against the reference interpreter. They are the practical limit the
//! generated reasoners are measured against.

pub mod reference;

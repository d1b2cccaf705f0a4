//! Backends: text and code generated from the analysed game.
//!
//! - [`asp`]: the temporal answer set programs of the invariant prover (Haufe, Schiffel
//!   and Thielscher): the game over time steps, state and action generators, formula
//!   encodings, base-case and induction-step programs. Plain text, runnable by a
//!   stand-alone clingo; the solver itself lives in [`crate::prove`].
//!
//! Every backend is deterministic: the same game and request give byte-identical output.

pub mod asp;

//! Backends: text and code generated from the analysed game.
//!
//! - [`prolog`]: the conventional translation used by Prolog-based GGP players, run by
//!   SWI-Prolog with an embedded driver; it is the baseline of the benchmark suite.
//! - [`rust`]: the join backend, the plan's filter trees as loops in a reasoner crate.
//! - [`ground`]: the ground backend, a grounded game ([`crate::ground`]) as
//!   straight-line bit-word code; [`crate::compile::Backend`] chooses between the two.
//! - [`asp`]: the temporal answer set programs of the invariant prover (Haufe, Schiffel
//!   and Thielscher): the game over time steps, state and action generators, formula
//!   encodings, base-case and induction-step programs. Plain text, runnable by a
//!   stand-alone clingo; the solver itself lives in [`crate::prove`].
//!
//! Emitters are pure functions to text: they do no I/O, and the same input always gives
//! the same bytes. Running the emitted program (writing files, spawning the engine) is
//! left to the callers (xtask, tests, the prover's driver).

pub mod asp;
pub mod ground;
pub mod prolog;
pub mod rust;

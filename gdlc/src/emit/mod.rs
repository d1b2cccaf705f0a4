//! Backends: text and code generated from the analysed game.
//!
//! - [`prolog`]: the conventional translation used by Prolog-based GGP players, run by
//!   SWI-Prolog with an embedded driver; it is the baseline of the benchmark suite.
//! - [`rust`]: the join backend, the plan's filter trees as loops in a reasoner crate.
//! - [`ground`]: the ground backend, a grounded game ([`crate::ground`]) as
//!   straight-line bit-word code; [`crate::compile::Backend`] chooses between the two.
//!
//! Emitters are pure functions to text: they do no I/O, and the same input always gives
//! the same bytes. Running the emitted program (writing files, spawning the engine) is
//! left to the callers (xtask, tests, the build script). The temporal answer set programs
//! of the invariant prover are written by [`crate::prove::asp`].

pub mod ground;
pub mod prolog;
pub mod rust;

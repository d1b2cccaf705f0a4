//! Backends: text programs emitted from the analysed game for other engines.
//!
//! - [`prolog`]: the conventional translation used by Prolog-based GGP players, run by
//!   SWI-Prolog with an embedded driver; it is the baseline of the benchmark suite.
//!
//! Emitters are pure functions from the front end's result to text: they do no I/O, and
//! the same input always gives the same bytes. Running the emitted program (writing the
//! files, spawning the engine) is left to the callers (xtask, tests).

pub mod prolog;

//! gdlc-search: game-tree search over any `gdlc_runtime::Game`, kept apart from the
//! player so that a reasoner compiled on the fly needs only this crate and the runtime.
//!
//! - [`mcts`]: Monte Carlo tree search (decoupled UCT).
//! - [`parallel`]: root-parallel search, one tree per thread.
//! - [`perf`]: gdl-perf's perf test (random playouts for a time, counted).
//! - [`worker`]: the line protocol of a worker process, a native reasoner and a search
//!   behind standard input and output (see `gdlc-player`'s `native` module).

pub mod mcts;
pub mod parallel;
pub mod perf;
pub mod worker;

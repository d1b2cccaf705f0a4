//! gdlc-player: a general game player on gdlc's reasoners.
//!
//! - [`mcts`], [`parallel`] (from `gdlc-search`): Monte Carlo tree search (decoupled
//!   UCT) over any `gdlc_runtime::Game`, root-parallel on several threads.
//! - [`reasoner`]: which reasoner plays a game: one compiled into the binary (the
//!   team's games, by `build.rs`), else gdlc's plan executor, else its interpreter.
//! - [`native`]: a reasoner compiled on the fly (gdlc, then rustc), searched in a
//!   worker process.
//! - [`session`]: one match on its own thread, searching until each deadline.
//! - [`belief`]: playing from percepts (GDL-II): sampled consistent states.
//! - [`protocol`], [`server`]: the GGP protocol's messages and the HTTP player.
//! - [`client`], [`mod@matches`]: a game manager for local matches over loopback HTTP.
//! - [`perf`]: gdl-perf's perf-test process protocol.

pub use gdlc_search::{mcts, parallel};

pub mod belief;
pub mod client;
pub mod matches;
pub mod native;
pub mod perf;
pub mod protocol;
pub mod reasoner;
pub mod server;
pub mod session;

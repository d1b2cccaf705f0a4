//! gdlc-player: a general game player on gdlc's reasoners.
//!
//! - [`mcts`]: Monte Carlo tree search (decoupled UCT) over any `gdlc_runtime::Game`.
//! - [`reasoner`]: which reasoner plays a game: one compiled into the binary (the
//!   team's games, by `build.rs`), else gdlc's plan executor, else its interpreter.
//! - [`parallel`]: root-parallel search, one tree per thread.
//! - [`session`]: one match on its own thread, searching until each deadline.
//! - [`protocol`], [`server`]: the GGP protocol's messages and the HTTP player.
//! - [`client`], [`matches`]: a game manager for local matches over loopback HTTP.
//! - [`perf`]: gdl-perf's perf-test process protocol.

pub mod client;
pub mod matches;
pub mod mcts;
pub mod parallel;
pub mod perf;
pub mod protocol;
pub mod reasoner;
pub mod server;
pub mod session;

//! A crate whose reasoner is compiled from GDL rules at build time: `build.rs` runs
//! `gdlc::Builder` on `games/tictactoe.kif`, and the generated module is included here.
//! `tictactoe::new()` is a `gdlc_runtime::Game`:
//!
//! ```
//! use gdlc_runtime::Game as _;
//!
//! let mut game = builder_demo::tictactoe::new();
//! let start = game.initial_state();
//! assert_eq!(gdlc_runtime::perft(&mut game, &start, 1), 9);
//! ```

/// Tictactoe, compiled by gdlc from `games/tictactoe.kif`.
pub mod tictactoe {
    include!(concat!(env!("OUT_DIR"), "/tictactoe.rs"));
}

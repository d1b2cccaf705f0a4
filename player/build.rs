//! Compiles the team's games into the player (`$OUT_DIR/<stem>.rs`): a match whose rules
//! are one of these is played on the compiled reasoner (see `src/builtin.rs`).

fn main() {
    gdlc::Builder::new()
        .files([
            "../games/tictactoe.kif",
            "../games/connectfour.kif",
            "../games/breakthrough.kif",
            "../games/chess.kif",
        ])
        .compile_or_exit();
}

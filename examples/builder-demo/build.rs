//! Compiles the team's tictactoe rules into `$OUT_DIR/tictactoe.rs`; cargo reruns this
//! when the rules change, and a game that does not compile stops the build with
//! gdlc's diagnostics.

fn main() {
    gdlc::Builder::new()
        .file("../../games/tictactoe.kif")
        .compile_or_exit();
}

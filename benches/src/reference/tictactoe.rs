//! Tictactoe as in `../shared/games/tictactoe.kif`, on two 9-bit boards.
//!
//! Roles `xplayer`, `oplayer`; fluents `(cell ?m ?n ?w)` for every square (`?w` is `x`,
//! `o` or `b` for blank) and `(control ?p)`. The player in control plays `(mark ?m ?n)`
//! on a blank square, the other plays `noop`. Terminal when a player has a line (row,
//! column or diagonal) or no square is blank. Goals: 100 to the player with a line and 0
//! to the other; 50 each on a full board without lines; none while the game is open
//! without a line (the KIF gives no goal rule for it).
//!
//! Square `(cell m n _)` is bit `3(m-1) + (n-1)`; whether a board has a line is one
//! lookup in a 512-entry table built at compile time.

use gdlc_runtime::{Game, GoalError, RoleIndex, StateError};

use super::{Fluent, coordinate, goal_from_set};

/// The eight lines as square masks.
const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// All nine squares.
const FULL: u16 = 0x1ff;

/// `HAS_LINE[board]`: whether the 9-bit `board` contains one of [`LINES`].
static HAS_LINE: [bool; 512] = line_table();

const fn line_table() -> [bool; 512] {
    let mut table = [false; 512];
    let mut board = 0;
    while board < 512 {
        let mut i = 0;
        while i < LINES.len() {
            if board as u16 & LINES[i] == LINES[i] {
                table[board] = true;
            }
            i += 1;
        }
        board += 1;
    }
    table
}

/// A tictactoe state: the squares of each player and whose turn it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Squares holding `x`, by bit (see the module docs).
    pub x: u16,
    /// Squares holding `o`.
    pub o: u16,
    /// Whether `oplayer` is in control (else `xplayer`).
    pub o_to_move: bool,
}

impl State {
    fn x_line(&self) -> bool {
        HAS_LINE[usize::from(self.x)]
    }

    fn o_line(&self) -> bool {
        HAS_LINE[usize::from(self.o)]
    }

    fn open(&self) -> bool {
        (self.x | self.o) != FULL
    }
}

/// A move: `0..9` is `(mark m n)` on square `3(m-1) + (n-1)`, [`NOOP`] is `noop`; the
/// numeric order is the order of the KIF texts.
pub type Move = u8;

/// The `noop` move.
pub const NOOP: Move = 9;

const ROLES: [&str; 2] = ["xplayer", "oplayer"];

/// The tictactoe reasoner.
#[derive(Clone, Debug, Default)]
pub struct TicTacToe;

impl TicTacToe {
    /// A tictactoe reasoner.
    pub fn new() -> Self {
        TicTacToe
    }
}

impl Game for TicTacToe {
    type State = State;
    type Move = Move;
    type Percept = ();

    fn num_roles(&self) -> usize {
        2
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        ROLES[role]
    }

    fn initial_state(&mut self) -> State {
        State {
            x: 0,
            o: 0,
            o_to_move: false,
        }
    }

    #[inline]
    fn is_terminal(&mut self, state: &State) -> bool {
        !state.open() || state.x_line() || state.o_line()
    }

    #[inline]
    fn legal_moves(&mut self, state: &State, role: RoleIndex, out: &mut Vec<Move>) {
        out.clear();
        if (role == 1) != state.o_to_move {
            out.push(NOOP);
            return;
        }
        let mut blank = !(state.x | state.o) & FULL;
        while blank != 0 {
            out.push(blank.trailing_zeros() as Move);
            blank &= blank - 1;
        }
    }

    #[inline]
    fn next_state(&mut self, state: &State, joint: &[Move]) -> State {
        let mut next = *state;
        let mover = usize::from(state.o_to_move);
        let mv = joint[mover];
        if mv < NOOP {
            let bit = 1u16 << mv;
            if (state.x | state.o) & bit == 0 {
                if mover == 0 {
                    next.x |= bit;
                } else {
                    next.o |= bit;
                }
            }
        }
        next.o_to_move = !state.o_to_move;
        next
    }

    fn goal(&mut self, state: &State, role: RoleIndex) -> Result<u8, GoalError> {
        let (mine, theirs) = if role == 0 {
            (state.x_line(), state.o_line())
        } else {
            (state.o_line(), state.x_line())
        };
        let mut values = 0;
        if mine {
            values |= 0b100;
        }
        if theirs {
            values |= 0b001;
        }
        if !mine && !theirs && !state.open() {
            values |= 0b010;
        }
        goal_from_set(values)
    }

    fn sees(&mut self, _: &State, _: &[Move], _: RoleIndex, out: &mut Vec<()>) {
        out.clear();
    }

    fn move_to_kif(&self, mv: Move) -> String {
        if mv >= NOOP {
            "noop".to_owned()
        } else {
            format!("(mark {} {})", mv / 3 + 1, mv % 3 + 1)
        }
    }

    fn percept_to_kif(&self, _: ()) -> String {
        String::new()
    }

    fn state_to_kif(&self, state: &State) -> Vec<String> {
        let mut fluents: Vec<String> = (0..9)
            .map(|square| {
                let bit = 1u16 << square;
                let mark = if state.x & bit != 0 {
                    "x"
                } else if state.o & bit != 0 {
                    "o"
                } else {
                    "b"
                };
                format!("(cell {} {} {mark})", square / 3 + 1, square % 3 + 1)
            })
            .collect();
        fluents.push(format!("(control {})", ROLES[usize::from(state.o_to_move)]));
        fluents.sort();
        fluents
    }

    /// Needs exactly one `cell` fluent per square and one `control` fluent.
    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<State, StateError> {
        let mut state = self.initial_state();
        let mut seen = 0u16;
        let mut control = None;
        for text in fluents {
            let fluent = Fluent::parse(text)?;
            match fluent.slices()[..] {
                ["cell", m, n, mark] => {
                    let (Some(m), Some(n)) = (coordinate(m, 3), coordinate(n, 3)) else {
                        return Err(fluent.unknown());
                    };
                    let bit = 1u16 << (3 * m + n);
                    if seen & bit != 0 {
                        return Err(fluent.unknown());
                    }
                    seen |= bit;
                    match mark {
                        "x" => state.x |= bit,
                        "o" => state.o |= bit,
                        "b" => {}
                        _ => return Err(fluent.unknown()),
                    }
                }
                ["control", role] if control.is_none() => match role {
                    "xplayer" => control = Some(false),
                    "oplayer" => control = Some(true),
                    _ => return Err(fluent.unknown()),
                },
                _ => return Err(fluent.unknown()),
            }
        }
        if seen != FULL {
            let square = (!seen & FULL).trailing_zeros();
            return Err(StateError::UnknownFluent(format!(
                "(cell {} {} b)",
                square / 3 + 1,
                square % 3 + 1
            )));
        }
        state.o_to_move =
            control.ok_or_else(|| StateError::UnknownFluent("(control ?p)".into()))?;
        Ok(state)
    }
}

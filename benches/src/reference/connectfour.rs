//! Connect four as in `../shared/games/connectfour.kif` (8 columns × 6 rows) and in the
//! team's `games/connectfour.kif` (7 × 6), on two `u64` bit boards.
//!
//! Both files have roles `red`, `black`; fluents `(cell ?c ?r ?player)` for occupied
//! squares only (column `?c` from 1, row `?r` from 1 at the bottom) and
//! `(control ?player)`; moves `(drop ?c)` into a column whose top square is empty, and
//! `noop` for the player not in control. Terminal when a player has four in a line
//! (horizontal, vertical, diagonal) or the grid is full. Goals: 100 to the player with
//! a line, 0 to the other, 50 each on a full grid without lines. They differ in one
//! rule: while the grid is open and nobody has a line, the corpus file gives both
//! players 0 and the team file gives no goal at all — the `ZERO_WHILE_OPEN` parameter.
//!
//! Layout: square (column `c`, row `r`), both zero-based, is bit `7c + r`; bit `7c + 6`
//! of every column is a sentinel that stays clear, so shifting by 1 (vertical), 7
//! (horizontal), 6 and 8 (diagonals) never wraps a line across columns, and the square
//! a disc lands on is `(occupied + bottom) & column`.

use gdlc_runtime::{Game, GoalError, RoleIndex, StateError};

use super::{Fluent, coordinate, goal_from_set};

/// Rows of the grid.
const ROWS: usize = 6;
/// Bits per column: the rows and a sentinel.
const STRIDE: usize = ROWS + 1;

/// Connect four `WIDTH` columns wide; `ZERO_WHILE_OPEN` selects the goal rule of open,
/// line-free states (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct ConnectFour<const WIDTH: usize, const ZERO_WHILE_OPEN: bool>;

/// The corpus variant, `../shared/games/connectfour.kif`: 8 × 6, goal 0 while open.
pub type ConnectFour8 = ConnectFour<8, true>;
/// The team variant, `games/connectfour.kif`: 7 × 6, no goal while open.
pub type ConnectFour7 = ConnectFour<7, false>;

/// A connect-four state: each player's discs, whose turn it is, and which players have
/// a line (a function of the discs, kept to make `is_terminal` one test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Discs of `red` (index 0) and `black` (index 1), by bit (see the module docs).
    pub discs: [u64; 2],
    /// Whether `black` is in control (else `red`).
    pub black_to_move: bool,
    /// Bit 0: `red` has a line; bit 1: `black` has a line.
    lines: u8,
}

/// A move: `0..WIDTH` is `(drop c+1)`, [`NOOP`] is `noop`; the numeric order is the
/// order of the KIF texts (at most 9 columns).
pub type Move = u8;

/// The `noop` move.
pub const NOOP: Move = u8::MAX;

const ROLES: [&str; 2] = ["red", "black"];

/// Whether `board` has four in a line.
#[inline]
fn has_line(board: u64) -> bool {
    let mut found = false;
    for shift in [1, STRIDE, STRIDE - 1, STRIDE + 1] {
        let pairs = board & (board >> shift);
        found |= pairs & (pairs >> (2 * shift)) != 0;
    }
    found
}

impl<const WIDTH: usize, const ZERO_WHILE_OPEN: bool> ConnectFour<WIDTH, ZERO_WHILE_OPEN> {
    /// The bottom square of every column.
    const BOTTOM: u64 = Self::row_mask(0);
    /// The top square of every column.
    const TOP: u64 = Self::row_mask(ROWS - 1);

    const fn row_mask(row: usize) -> u64 {
        let mut mask = 0;
        let mut column = 0;
        while column < WIDTH {
            mask |= 1 << (column * STRIDE + row);
            column += 1;
        }
        mask
    }

    /// The squares (without the sentinel) of zero-based `column`.
    const fn column_mask(column: usize) -> u64 {
        ((1 << ROWS) - 1) << (column * STRIDE)
    }

    /// A connect-four reasoner.
    pub fn new() -> Self {
        const { assert!(WIDTH >= 4 && WIDTH <= 9) };
        ConnectFour
    }

    fn lines_of(discs: [u64; 2]) -> u8 {
        u8::from(has_line(discs[0])) | (u8::from(has_line(discs[1])) << 1)
    }

    fn full(state: &State) -> bool {
        (state.discs[0] | state.discs[1]) & Self::TOP == Self::TOP
    }
}

impl<const WIDTH: usize, const ZERO_WHILE_OPEN: bool> Game for ConnectFour<WIDTH, ZERO_WHILE_OPEN> {
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
            discs: [0, 0],
            black_to_move: false,
            lines: 0,
        }
    }

    #[inline]
    fn is_terminal(&mut self, state: &State) -> bool {
        state.lines != 0 || Self::full(state)
    }

    #[inline]
    fn legal_moves(&mut self, state: &State, role: RoleIndex, out: &mut Vec<Move>) {
        out.clear();
        if (role == 1) != state.black_to_move {
            out.push(NOOP);
            return;
        }
        let mut open = !(state.discs[0] | state.discs[1]) & Self::TOP;
        while open != 0 {
            out.push((open.trailing_zeros() as usize / STRIDE) as Move);
            open &= open - 1;
        }
    }

    #[inline]
    fn next_state(&mut self, state: &State, joint: &[Move]) -> State {
        let mover = usize::from(state.black_to_move);
        let mut next = *state;
        next.black_to_move = !state.black_to_move;
        let column = usize::from(joint[mover]);
        if column < WIDTH {
            let occupied = state.discs[0] | state.discs[1];
            let landing =
                (occupied + (Self::BOTTOM & Self::column_mask(column))) & Self::column_mask(column);
            next.discs[mover] |= landing;
            if has_line(next.discs[mover]) {
                next.lines |= 1 << mover;
            }
        }
        next
    }

    fn goal(&mut self, state: &State, role: RoleIndex) -> Result<u8, GoalError> {
        let mine = state.lines & (1 << role) != 0;
        let theirs = state.lines & (1 << (1 - role)) != 0;
        let mut values = 0;
        if mine {
            values |= 0b100;
        }
        if theirs {
            values |= 0b001;
        }
        if !mine && !theirs {
            if !Self::full(state) {
                if ZERO_WHILE_OPEN {
                    values |= 0b001;
                }
            } else {
                values |= 0b010;
            }
        }
        goal_from_set(values)
    }

    fn sees(&mut self, _: &State, _: &[Move], _: RoleIndex, out: &mut Vec<()>) {
        out.clear();
    }

    fn move_to_kif(&self, mv: Move) -> String {
        if usize::from(mv) < WIDTH {
            format!("(drop {})", mv + 1)
        } else {
            "noop".to_owned()
        }
    }

    fn percept_to_kif(&self, _: ()) -> String {
        String::new()
    }

    fn state_to_kif(&self, state: &State) -> Vec<String> {
        let mut fluents = Vec::new();
        for (player, &discs) in state.discs.iter().enumerate() {
            for column in 0..WIDTH {
                for row in 0..ROWS {
                    if discs & (1 << (column * STRIDE + row)) != 0 {
                        fluents.push(format!(
                            "(cell {} {} {})",
                            column + 1,
                            row + 1,
                            ROLES[player]
                        ));
                    }
                }
            }
        }
        fluents.push(format!(
            "(control {})",
            ROLES[usize::from(state.black_to_move)]
        ));
        fluents.sort();
        fluents
    }

    /// Needs one `control` fluent, at most one disc per square, and no disc above an
    /// empty square (every reachable state is so).
    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<State, StateError> {
        let mut state = self.initial_state();
        let mut control = None;
        for text in fluents {
            let fluent = Fluent::parse(text)?;
            match fluent.slices()[..] {
                ["cell", c, r, player] => {
                    let (Some(c), Some(r), Some(p)) = (
                        coordinate(c, WIDTH),
                        coordinate(r, ROWS),
                        ROLES.iter().position(|&name| name == player),
                    ) else {
                        return Err(fluent.unknown());
                    };
                    let bit = 1u64 << (c * STRIDE + r);
                    let occupied = state.discs[0] | state.discs[1];
                    if occupied & bit != 0 {
                        return Err(fluent.unknown());
                    }
                    state.discs[p] |= bit;
                }
                ["control", role] if control.is_none() => {
                    control = Some(match role {
                        "red" => false,
                        "black" => true,
                        _ => return Err(fluent.unknown()),
                    });
                }
                _ => return Err(fluent.unknown()),
            }
        }
        let occupied = state.discs[0] | state.discs[1];
        for column in 0..WIDTH {
            let stack = (occupied & Self::column_mask(column)) >> (column * STRIDE);
            if stack & (stack + 1) != 0 {
                let row = (!stack).trailing_zeros() as usize + 1;
                return Err(StateError::UnknownFluent(format!(
                    "(cell {} {row} ?player): a disc floats above this empty square",
                    column + 1
                )));
            }
        }
        state.black_to_move =
            control.ok_or_else(|| StateError::UnknownFluent("(control ?player)".into()))?;
        state.lines = Self::lines_of(state.discs);
        Ok(state)
    }
}

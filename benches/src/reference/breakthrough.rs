//! Breakthrough as in `../shared/games/breakthrough.kif` (the corpus) and the team's
//! `games/breakthrough.kif`, on two `u64` bit boards.
//!
//! Both files have roles `white`, `black` on an 8 × 8 board; one fluent per pawn, plus
//! `(control ?player)`. The player in control plays `(move ?x1 ?y1 ?x2 ?y2)`: a pawn steps
//! one rank forward (white up, black down), straight onto an empty square or diagonally
//! onto any square without a friendly pawn (capturing an enemy pawn there); the other
//! player plays `noop`. A player wins when one of its pawns reaches the far rank or the
//! opponent has no pawns left; terminal when someone wins. The files differ in:
//! - the pawn fluent: `(cellholds ?x ?y ?player)` in the corpus (written `cellHolds`),
//!   `(cell ?x ?y ?player)` in the team file;
//! - goals while nobody wins: the corpus gives 0 to both (`(goal white 0)` holds when
//!   white has not won), the team file gives none.
//!
//! [`Variant`] selects one; only the KIF conversions and `goal` consult it.
//!
//! Layout: square (file `x`, rank `y`), both zero-based, is bit `8x + y` (file-major), so
//! visiting pawns from the lowest bit up and, for each, the targets left, straight and
//! right lists moves in the byte order of their KIF text.

use gdlc_runtime::{Game, GoalError, RoleIndex, StateError};

use super::{Fluent, coordinate, goal_from_set};

/// Which KIF file the reasoner mirrors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `../shared/games/breakthrough.kif`.
    Corpus,
    /// The team's `games/breakthrough.kif`.
    Team,
}

/// Rank 1 (`y = 0`) of every file.
const RANK_1: u64 = 0x0101_0101_0101_0101;
/// Rank 8 (`y = 7`) of every file.
const RANK_8: u64 = RANK_1 << 7;

/// A breakthrough state: each player's pawns and whose turn it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Pawns of `white` (index 0) and `black` (index 1), by bit (see the module docs).
    pub pawns: [u64; 2],
    /// Whether `black` is in control (else `white`).
    pub black_to_move: bool,
}

impl State {
    fn white_wins(&self) -> bool {
        self.pawns[0] & RANK_8 != 0 || self.pawns[1] == 0
    }

    fn black_wins(&self) -> bool {
        self.pawns[1] & RANK_1 != 0 || self.pawns[0] == 0
    }
}

/// A move: `256 * player + 4 * from + direction` with `player` 0 (white) or 1 (black),
/// `from` the bit of the moving pawn and `direction` 0 (to file `x - 1`), 1 (straight)
/// or 2 (to file `x + 1`); [`NOOP`] is `noop`. Among one player's moves the numeric
/// order is the order of the KIF texts.
pub type Move = u16;

/// The `noop` move.
pub const NOOP: Move = u16::MAX;

const ROLES: [&str; 2] = ["white", "black"];

/// The breakthrough reasoner.
#[derive(Clone, Debug)]
pub struct Breakthrough {
    variant: Variant,
}

impl Breakthrough {
    /// A reasoner for `variant`.
    pub fn new(variant: Variant) -> Self {
        Breakthrough { variant }
    }

    /// The corpus variant.
    pub fn corpus() -> Self {
        Self::new(Variant::Corpus)
    }

    /// The team variant.
    pub fn team() -> Self {
        Self::new(Variant::Team)
    }

    /// The name of the pawn fluent, as canonical KIF.
    fn pawn_fluent(&self) -> &'static str {
        match self.variant {
            Variant::Corpus => "cellholds",
            Variant::Team => "cell",
        }
    }

    /// The source and target squares of a move (not `noop`).
    #[inline]
    fn squares(mv: Move) -> (u32, u32) {
        let from = u32::from((mv >> 2) & 63);
        let direction = u32::from(mv & 3);
        // White steps one rank up (+1), black one rank down (-1); files are 8 apart.
        let forward = if mv >> 8 == 0 { from + 1 } else { from - 1 };
        (from, forward + 8 * direction - 8)
    }
}

impl Default for Breakthrough {
    fn default() -> Self {
        Self::corpus()
    }
}

impl Game for Breakthrough {
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
            pawns: [RANK_1 | RANK_1 << 1, RANK_8 | RANK_8 >> 1],
            black_to_move: false,
        }
    }

    #[inline]
    fn is_terminal(&mut self, state: &State) -> bool {
        state.white_wins() || state.black_wins()
    }

    #[inline]
    fn legal_moves(&mut self, state: &State, role: RoleIndex, out: &mut Vec<Move>) {
        out.clear();
        if (role == 1) != state.black_to_move {
            out.push(NOOP);
            return;
        }
        let [white, black] = state.pawns;
        let empty = !(white | black);
        // For each direction, the pawns that may move that way (by their own square).
        let (left, straight, right) = if role == 0 {
            let movers = white & !RANK_8;
            (
                movers & (!white << 7),
                movers & (empty >> 1),
                movers & (!white >> 9),
            )
        } else {
            let movers = black & !RANK_1;
            (
                movers & (!black << 9),
                movers & (empty << 1),
                movers & (!black >> 7),
            )
        };
        // Write all three candidates of each pawn and advance past the legal ones:
        // branch-free, then one copy into `out` (more copies only for a state with more
        // than 16 pawns, which `state_from_kif` may build).
        let mut buffer = [0 as Move; 3 * 16];
        let mut count = 0;
        let mut any = left | straight | right;
        let role_bits = (role as Move) << 8;
        while any != 0 {
            let from = any.trailing_zeros();
            let base = role_bits | ((from as Move) << 2);
            buffer[count] = base;
            count += ((left >> from) & 1) as usize;
            buffer[count] = base | 1;
            count += ((straight >> from) & 1) as usize;
            buffer[count] = base | 2;
            count += ((right >> from) & 1) as usize;
            any &= any - 1;
            if count > buffer.len() - 3 {
                out.extend_from_slice(&buffer[..count]);
                count = 0;
            }
        }
        out.extend_from_slice(&buffer[..count]);
    }

    #[inline]
    fn next_state(&mut self, state: &State, joint: &[Move]) -> State {
        let mover = usize::from(state.black_to_move);
        let mut next = *state;
        next.black_to_move = !state.black_to_move;
        let mv = joint[mover];
        if mv != NOOP {
            let (from, to) = Self::squares(mv);
            let (from, to) = (1u64 << from, 1u64 << to);
            next.pawns[mover] = (state.pawns[mover] & !from) | to;
            next.pawns[1 - mover] &= !(to | from);
        }
        next
    }

    fn goal(&mut self, state: &State, role: RoleIndex) -> Result<u8, GoalError> {
        let wins = [state.white_wins(), state.black_wins()];
        let mut values = 0;
        if wins[role] {
            values |= 0b100;
        }
        let loses = match self.variant {
            Variant::Corpus => !wins[role],
            Variant::Team => wins[1 - role],
        };
        if loses {
            values |= 0b001;
        }
        goal_from_set(values)
    }

    fn sees(&mut self, _: &State, _: &[Move], _: RoleIndex, out: &mut Vec<()>) {
        out.clear();
    }

    fn move_to_kif(&self, mv: Move) -> String {
        if mv == NOOP {
            return "noop".to_owned();
        }
        let (from, to) = Self::squares(mv);
        format!(
            "(move {} {} {} {})",
            from / 8 + 1,
            from % 8 + 1,
            to / 8 + 1,
            to % 8 + 1
        )
    }

    fn percept_to_kif(&self, _: ()) -> String {
        String::new()
    }

    fn state_to_kif(&self, state: &State) -> Vec<String> {
        let name = self.pawn_fluent();
        let mut fluents = Vec::new();
        for (player, &pawns) in state.pawns.iter().enumerate() {
            let mut rest = pawns;
            while rest != 0 {
                let square = rest.trailing_zeros();
                fluents.push(format!(
                    "({name} {} {} {})",
                    square / 8 + 1,
                    square % 8 + 1,
                    ROLES[player]
                ));
                rest &= rest - 1;
            }
        }
        fluents.push(format!(
            "(control {})",
            ROLES[usize::from(state.black_to_move)]
        ));
        fluents.sort();
        fluents
    }

    /// Needs one `control` fluent and at most one pawn per square.
    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<State, StateError> {
        let mut state = State {
            pawns: [0, 0],
            black_to_move: false,
        };
        let mut control = None;
        let name = self.pawn_fluent();
        for text in fluents {
            let fluent = Fluent::parse(text)?;
            match fluent.slices()[..] {
                [pawn, x, y, player] if pawn == name => {
                    let (Some(x), Some(y), Some(p)) = (
                        coordinate(x, 8),
                        coordinate(y, 8),
                        ROLES.iter().position(|&role| role == player),
                    ) else {
                        return Err(fluent.unknown());
                    };
                    let bit = 1u64 << (8 * x + y);
                    if (state.pawns[0] | state.pawns[1]) & bit != 0 {
                        return Err(fluent.unknown());
                    }
                    state.pawns[p] |= bit;
                }
                ["control", role] if control.is_none() => {
                    control = Some(match role {
                        "white" => false,
                        "black" => true,
                        _ => return Err(fluent.unknown()),
                    });
                }
                _ => return Err(fluent.unknown()),
            }
        }
        state.black_to_move =
            control.ok_or_else(|| StateError::UnknownFluent("(control ?player)".into()))?;
        Ok(state)
    }
}

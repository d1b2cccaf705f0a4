//! [`Compiled`]: a generated game's [`Rules`] as a [`Game`]. It loads a state or a joint
//! move into the rules' [`Input`] only when it changes, interns the rows of the entry
//! relations as moves and percepts ([`Interner`]) and lists them in canonical text
//! order, and picks a random legal move among the legal store's bits in place when they
//! are in text order.
//!
//! It caches the loaded state and joint move, interns moves and percepts (dense table or
//! hash, and by the entry store's row bit when it has one) and lists them in KIF text
//! order. Moves whose layout proves it (`gdlc-runtime/src/compiled/text_order.rs`:
//! constants and functions of constants, no two functors of one name, no last argument
//! whose name continues another with a character below `)`) are ordered by a key read
//! from their columns — the root symbol's block, then each argument's rank by name — so
//! no text is compared in the playout loop; otherwise, and for percepts, by rank (texts
//! ranked again when those seen since the last ranking are as many as it ranked; until
//! then a list's ranked ids are sorted by rank, its new ones by text, and the two
//! merged). A random move skips all of that where the compiler proved the order of
//! `legal`'s bits (`Rules::LEGAL_IN_TEXT_ORDER`): `legal`'s store (flat or by functor
//! blocks) is laid out in text order — functors by the text their terms start with, each
//! argument's domain by name, the role column (outer) as the analysis has it — and
//! `Emitter::legal_in_text_order` enumerates every move of the layout in bit order and
//! checks their texts ascend (constants and functions of constants only); the runtime
//! then picks the k-th set bit of the role's range (`Store::outer_range`), interning only
//! that move.

use super::interner::Interner;
use super::layout::Coder;
use super::meta::Meta;
use super::rules::{Changed, Entry, Input, Rules};
use super::text_order::TextOrder;
use super::{NONE, Sym};
use crate::bits::Bits;
use crate::game::{Game, GoalError, HeldGoals, RoleIndex, StateError};
use crate::kif;
use crate::pick::{listed_in_summary, pick_one_in, pick_one_listed, pick_one_of};

/// The most words holding legal moves for which a random move is picked by sorting
/// those words (beyond, by selecting among the rows' bits).
const MAX_LEGAL_WORDS_SORTED: usize = 64;

/// A generated game as a [`Game`].
#[derive(Clone, Debug)]
pub struct Compiled<R, const W: usize> {
    rules: R,
    input: Input<W>,
    state_loaded: bool,
    joint_loaded: Vec<u32>,
    moves: Interner,
    percepts: Interner,
    /// Move and percept ids, with the role symbol of their row, by the bit of their
    /// row in the entry store (`NONE`: not seen yet), when that store is a bitset.
    move_of_bit: Vec<(u32, Sym)>,
    percept_of_bit: Vec<(u32, Sym)>,
    scratch: Vec<Sym>,
}

impl<R: Rules<W>, const W: usize> Default for Compiled<R, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Rules<W>, const W: usize> Compiled<R, W> {
    /// A reasoner for the game.
    pub fn new() -> Self {
        let meta = R::META;
        let legal_arity = meta.legal_paths.len();
        let fluents = Coder::new(&meta.fluents, meta.true_paths.len(), meta.symbols.len());
        Compiled {
            rules: R::new(),
            input: Input {
                state: Bits::default(),
                ones: Vec::new(),
                joint: vec![0; legal_arity * meta.roles.len()],
                fluents,
            },
            state_loaded: false,
            joint_loaded: Vec::new(),
            moves: Interner::new(legal_arity, Some((&meta.moves, meta.symbols.len())))
                .ordered_by(TextOrder::of_moves(meta)),
            percepts: Interner::new(meta.sees_paths.len(), None),
            move_of_bit: Vec::new(),
            percept_of_bit: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The game's tables.
    pub fn meta(&self) -> &'static Meta {
        R::META
    }

    fn load_state(&mut self, state: &Bits<W>) {
        if self.state_loaded && self.input.state == *state {
            return;
        }
        self.input.set_state(state, R::STATE_LIST);
        self.state_loaded = true;
        self.joint_loaded.clear();
        self.rules.forget(Changed::State);
    }

    fn load_joint(&mut self, joint: &[u32]) {
        if self.joint_loaded == joint {
            return;
        }
        let arity = R::META.legal_paths.len();
        for (role, &mv) in joint.iter().enumerate() {
            let tuple = &mut self.input.joint[role * arity..(role + 1) * arity];
            tuple.copy_from_slice(self.moves.tuple(mv));
            if arity > 0 {
                tuple[0] = R::META.roles[role];
            }
        }
        self.joint_loaded.clear();
        self.joint_loaded.extend_from_slice(joint);
        self.rules.forget(Changed::Move);
    }

    fn state_of(&mut self, entry: Entry) -> Bits<W> {
        let meta = R::META;
        let mut state = Bits::default();
        if let Some(store) = self.rules.entry(&self.input, entry) {
            for i in 0..store.len() {
                match self.input.fluents.code(store.row(i)) {
                    Some(bit) => state.set(bit),
                    None => panic!(
                        "gdlc internal error: fluent {} outside the state layout",
                        meta.text(meta.true_paths, store.row(i), 0)
                    ),
                }
            }
        }
        state
    }

    /// The move id of the legal tuple numbered `bit` (of role `role_symbol`), interned
    /// when first seen, as [`Self::of_role`] interns it.
    fn legal_move_of_bit(&mut self, bit: usize, role_symbol: Sym) -> u32 {
        if let Some(&(id, _)) = self.move_of_bit.get(bit)
            && id != NONE
        {
            return id;
        }
        let meta = R::META;
        let Some(store) = self.rules.entry(&self.input, Entry::Legal) else {
            unreachable!("legal was computed for this state");
        };
        self.scratch.clear();
        self.scratch.resize(meta.legal_paths.len(), 0);
        store.decode_bit(bit, &mut self.scratch);
        self.scratch[0] = 0;
        let scratch = &self.scratch;
        let id = self
            .moves
            .intern(scratch, |tuple| meta.text(meta.legal_paths, tuple, 1));
        if self.move_of_bit.len() <= bit {
            self.move_of_bit.resize(bit + 1, (NONE, 0));
        }
        self.move_of_bit[bit] = (id, role_symbol);
        id
    }

    /// The ids of the entry relation's rows of `role` (role column 0), interned, in
    /// row order (callers sort them by text, or select one).
    fn of_role(&mut self, entry: Entry, role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        let meta = R::META;
        let role_symbol = meta.roles[role];
        let (interner, paths, of_bit) = if entry == Entry::Sees {
            (
                &mut self.percepts,
                meta.sees_paths,
                &mut self.percept_of_bit,
            )
        } else {
            (&mut self.moves, meta.legal_paths, &mut self.move_of_bit)
        };
        let Some(store) = self.rules.entry(&self.input, entry) else {
            return;
        };
        // The id of `role`'s tuple in row `row` (`None`: an unlisted store's tuple
        // numbered `bit`), unless its bit has an id already; `None` for another
        // role's tuple.
        let scratch = &mut self.scratch;
        let mut id_of = |bit: Option<usize>, row: Option<usize>| -> Option<u32> {
            if let Some(&(id, row_role)) = bit.and_then(|b| of_bit.get(b))
                && id != NONE
            {
                return (row_role == role_symbol).then_some(id);
            }
            scratch.clear();
            match (row, bit) {
                (Some(i), _) if store.has_rows() => scratch.extend_from_slice(store.row(i)),
                (Some(i), _) => {
                    scratch.resize(paths.len(), 0);
                    store.decode_row(i, scratch);
                }
                (None, Some(b)) => {
                    scratch.resize(paths.len(), 0);
                    store.decode_bit(b, scratch);
                }
                (None, None) => return None,
            }
            let row_role = scratch[0];
            if row_role != role_symbol {
                return None;
            }
            scratch[0] = 0;
            let id = interner.intern(scratch, |tuple| meta.text(paths, tuple, 1));
            if let Some(b) = bit {
                if of_bit.len() <= b {
                    of_bit.resize(b + 1, (NONE, 0));
                }
                of_bit[b] = (id, row_role);
            }
            Some(id)
        };
        if store.is_unlisted() {
            // The bits, word by word (no row numbers to read them by).
            let Some((words, nonzero)) = store.bit_words_listed() else {
                return;
            };
            for &w in nonzero {
                let mut word = words[w as usize];
                while word != 0 {
                    let bit = (w * 64 + word.trailing_zeros()) as usize;
                    word &= word - 1;
                    out.extend(id_of(Some(bit), None));
                }
            }
            return;
        }
        for i in 0..store.len() {
            out.extend(id_of(store.row_bit(i), Some(i)));
        }
    }
}

impl<R: Rules<W>, const W: usize> Game for Compiled<R, W> {
    type State = Bits<W>;
    type Move = u32;
    type Percept = u32;

    fn num_roles(&self) -> usize {
        R::META.roles.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        R::META.role_names[role]
    }

    fn initial_state(&mut self) -> Bits<W> {
        self.state_loaded = false;
        self.joint_loaded.clear();
        self.rules.forget(Changed::State);
        self.state_of(Entry::Init)
    }

    fn is_terminal(&mut self, state: &Bits<W>) -> bool {
        self.load_state(state);
        self.rules
            .entry(&self.input, Entry::Terminal)
            .is_some_and(|store| !store.is_empty())
    }

    fn legal_moves(&mut self, state: &Bits<W>, role: RoleIndex, out: &mut Vec<u32>) {
        self.load_state(state);
        self.of_role(Entry::Legal, role, out);
        // Rows are unique and so are their ids.
        self.moves.sort(out);
    }

    fn random_legal_move(
        &mut self,
        state: &Bits<W>,
        role: RoleIndex,
        scratch: &mut Vec<u32>,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<u32> {
        self.load_state(state);
        if R::LEGAL_IN_TEXT_ORDER {
            let role_symbol = R::META.roles[role];
            let store = self.rules.entry(&self.input, Entry::Legal)?;
            if let Some((lo, hi)) = store.outer_range(0, role_symbol) {
                // A range of few words is counted and searched in place; a wide one
                // (a move per tuple of a big product, amazons') through the words
                // holding a bit or, past those a summary can order, its rows' bits.
                if let Some(words) = store.bit_words()
                    && (hi - lo) / 64 <= 2 * store.len() + 8
                {
                    let bit = pick_one_in(words, lo, hi, pick)?;
                    return Some(self.legal_move_of_bit(bit, role_symbol));
                }
                // A wide range: the words holding a bit, in order by a summary of the
                // range (amazons', a summary entry per 32 words: 489) or, when few,
                // sorted (chess's moves, a word per square moved from); with many
                // words in a range too wide to summarise, the rows' bits.
                if let Some((words, nonzero)) = store.bit_words_listed()
                    && (nonzero.len() <= MAX_LEGAL_WORDS_SORTED
                        || store.is_unlisted()
                        || listed_in_summary(lo, hi, nonzero.len()))
                {
                    let bit = pick_one_listed(words, nonzero, lo, hi, scratch, pick)?;
                    return Some(self.legal_move_of_bit(bit, role_symbol));
                }
                let bit = pick_one_of(store.row_bits(), lo, hi, scratch, pick)?;
                return Some(self.legal_move_of_bit(bit, role_symbol));
            }
        }
        self.of_role(Entry::Legal, role, scratch);
        if scratch.is_empty() {
            return None;
        }
        let k = pick(scratch.len());
        Some(self.moves.nth(scratch, k))
    }

    fn next_state(&mut self, state: &Bits<W>, joint: &[u32]) -> Bits<W> {
        self.load_state(state);
        self.load_joint(joint);
        self.rules.next(&self.input)
    }

    fn goal(&mut self, state: &Bits<W>, role: RoleIndex) -> Result<u8, GoalError> {
        self.load_state(state);
        let meta = R::META;
        let role_symbol = meta.roles[role];
        let Some(store) = self.rules.entry(&self.input, Entry::Goal) else {
            return Err(GoalError::Missing);
        };
        // Which of the values 0..=100 hold, without allocating: a goal value is a
        // constant whose name is a canonical integer (anything else is an error).
        let value_column = meta.goal_paths.iter().position(|p| *p == [1]);
        let mut held = HeldGoals::default();
        for i in 0..store.len() {
            let row = store.row(i);
            if row[0] != role_symbol {
                continue;
            }
            let (name, arity) = value_column.map_or(("", 1), |c| meta.symbols[row[c] as usize]);
            match kif::goal_value(name).filter(|_| arity == 0) {
                Some(value) => held.add(value),
                None => return Err(GoalError::NotANumber(meta.text(meta.goal_paths, row, 1))),
            }
        }
        held.value()
    }

    fn sees(&mut self, state: &Bits<W>, joint: &[u32], role: RoleIndex, out: &mut Vec<u32>) {
        self.load_state(state);
        self.load_joint(joint);
        self.of_role(Entry::Sees, role, out);
        self.percepts.sort(out);
    }

    fn move_to_kif(&self, mv: u32) -> String {
        let meta = R::META;
        self.moves
            .text(mv, |tuple| meta.text(meta.legal_paths, tuple, 1))
    }

    fn percept_to_kif(&self, percept: u32) -> String {
        let meta = R::META;
        self.percepts
            .text(percept, |tuple| meta.text(meta.sees_paths, tuple, 1))
    }

    fn state_to_kif(&self, state: &Bits<W>) -> Vec<String> {
        let meta = R::META;
        let mut tuple = vec![0; meta.true_paths.len()];
        let mut texts: Vec<String> = state
            .ones(0, meta.fluents.bits)
            .map(|bit| {
                meta.fluents.decode(bit, &mut tuple);
                meta.text(meta.true_paths, &tuple, 0)
            })
            .collect();
        texts.sort();
        texts
    }

    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<Bits<W>, StateError> {
        let meta = R::META;
        let mut state = Bits::default();
        for text in fluents {
            let canonical = kif::canonical(text).map_err(StateError::Syntax)?;
            let bit = meta
                .encode(meta.true_paths, 0, &canonical)
                .and_then(|tuple| self.input.fluents.code_checked(&tuple));
            match bit {
                Some(bit) => state.set(bit),
                None => return Err(StateError::UnknownFluent(canonical)),
            }
        }
        Ok(state)
    }
}

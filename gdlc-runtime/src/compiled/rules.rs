//! The contract of a generated crate with the runtime: it implements [`Rules`] (its
//! stores and its filter trees as code), which read an [`Input`] (the state, the joint
//! move and the state numbering), forget what depends on the part of it that
//! [`Changed`], and compute an [`Entry`] relation on demand.

use super::Sym;
use super::layout::Coder;
use super::meta::Meta;
use super::store::Store;
use crate::bits::Bits;

/// What the rules read: the state, the joint move and the state numbering.
#[derive(Clone, Debug)]
pub struct Input<const W: usize> {
    /// The state.
    pub state: Bits<W>,
    /// The set bits of `state`, ascending, when the rules read them
    /// ([`Rules::STATE_LIST`]): a scan of a wide, sparse block of the state reads these
    /// rather than every word of the block (see [`Input::ones_from`]).
    pub ones: Vec<u32>,
    /// The joint move: one `does` tuple per role, flat.
    pub joint: Vec<Sym>,
    /// The state numbering: `fluents.positions` holds, per `true` column, the position
    /// of each symbol in the column's domain (`column * symbols + symbol`).
    pub fluents: Coder,
}

impl<const W: usize> Input<W> {
    /// The set bits of the state from bit `lo` on, ascending (the caller stops at the
    /// end of its range).
    #[inline]
    pub fn ones_from(&self, lo: usize) -> &[u32] {
        let start = self.ones.partition_point(|&b| (b as usize) < lo);
        &self.ones[start..]
    }

    /// Sets the state, and its list of set bits when `list`.
    pub fn set_state(&mut self, state: &Bits<W>, list: bool) {
        self.state.clone_from(state);
        self.ones.clear();
        if !list {
            return;
        }
        for (w, &word) in self.state.0.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                self.ones.push((w * 64) as u32 + word.trailing_zeros());
                word &= word - 1;
            }
        }
    }
}

/// The phase of the input that changed (see [`Rules::forget`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    /// The state (and so the joint move).
    State,
    /// The joint move only.
    Move,
}

/// An entry point of a reasoner: the keyword relation it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `init`.
    Init,
    /// `legal`.
    Legal,
    /// `next`.
    Next,
    /// `terminal`.
    Terminal,
    /// `goal`.
    Goal,
    /// `sees`.
    Sees,
}

/// The rules of a generated game: its stores and its filter trees as code.
pub trait Rules<const W: usize>: Clone {
    /// The game's tables.
    const META: &'static Meta;
    /// Whether the code reads the state's list of set bits ([`Input::ones`]), which is
    /// then made each time a state is loaded.
    const STATE_LIST: bool = false;
    /// Whether a role's legal moves in canonical text order are its set bits of the
    /// `legal` store's range ascending ([`Store::outer_range`]): a random move is then
    /// the k-th of them, without listing or ranking the others.
    const LEGAL_IN_TEXT_ORDER: bool = false;
    /// Stores for every relation, constant tables loaded.
    fn new() -> Self;
    /// Forgets what depends on the input that changed.
    fn forget(&mut self, changed: Changed);
    /// Computes what the entry point needs, unless already computed since the input
    /// last changed, and returns the entry relation's tuples (`None` if the game has
    /// no such relation).
    fn entry(&mut self, input: &Input<W>, entry: Entry) -> Option<&Store>;
    /// The next state: the `next` rules write state bits directly.
    fn next(&mut self, input: &Input<W>) -> Bits<W>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiled::layout::Layout;

    #[test]
    fn input_lists_the_state_bits_in_order() {
        let mut input = Input::<3> {
            state: Bits::default(),
            ones: vec![7],
            joint: Vec::new(),
            fluents: Coder::new(&EMPTY_LAYOUT, 0, 1),
        };
        let mut state = Bits::<3>::default();
        for i in [191, 0, 64, 5, 130] {
            state.set(i);
        }
        input.set_state(&state, true);
        assert_eq!(input.ones, [0, 5, 64, 130, 191]);
        assert_eq!(input.ones_from(0), [0, 5, 64, 130, 191]);
        assert_eq!(input.ones_from(6), [64, 130, 191]);
        assert_eq!(input.ones_from(64), [64, 130, 191]);
        assert!(input.ones_from(192).is_empty());
        // Rules that read no list get none (and no stale one from an earlier state).
        input.set_state(&state, false);
        assert!(input.ones.is_empty());
        assert_eq!(input.state, state);
    }

    static EMPTY_LAYOUT: Layout = Layout {
        top: 0,
        bits: 0,
        functors: &[],
    };
}

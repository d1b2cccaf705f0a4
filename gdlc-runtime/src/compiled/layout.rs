//! The dense numbering of the terms of one argument of a relation by their top-level
//! function symbol ([`Layout`]: a block of numbers per functor, [`FunctorLayout`]; a
//! listed block's ranks, [`listed_rank`] and [`listed_from`]), the numbering of tuples
//! by it ([`Coder`]) and back ([`Layout::decode`]).

use super::{NONE, Sym};

/// A dense numbering of the terms of one argument of a relation (the state's
/// fluents, or the moves): per top-level function symbol, a block of numbers.
#[derive(Debug)]
pub struct Layout {
    /// The column of the argument's root symbol.
    pub top: usize,
    /// The numbers used: the sum of the block sizes.
    pub bits: usize,
    /// Per functor, by ascending base.
    pub functors: &'static [FunctorLayout],
}

/// The block of numbers of one top-level function symbol of a [`Layout`].
#[derive(Debug)]
pub struct FunctorLayout {
    /// The symbol.
    pub symbol: Sym,
    /// The first number of the block.
    pub base: usize,
    /// The size of the block.
    pub size: usize,
    /// The columns under the symbol, most significant first.
    pub columns: &'static [usize],
    /// The stride of each of those columns.
    pub strides: &'static [usize],
    /// The domain of each of those columns.
    pub domains: &'static [&'static [Sym]],
    /// `None` for a dense block (number `base + d` for the tuple of mixed-radix number
    /// `d`); for a listed block, the mixed-radix numbers of its tuples, ascending
    /// (number `base + i` for the tuple of mixed-radix number `keys[i]`).
    pub keys: Option<&'static [u64]>,
}

/// The rank of dense number `key` in the ascending `keys` of a listed block, if it is
/// there.
#[inline]
pub fn listed_rank(keys: &[u64], key: usize) -> Option<usize> {
    keys.binary_search(&(key as u64)).ok()
}

/// The number of `keys` (ascending) below `key`: the rank where dense numbers from
/// `key` on start.
#[inline]
pub fn listed_from(keys: &[u64], key: usize) -> usize {
    keys.partition_point(|&k| k < key as u64)
}

/// Numbers tuples by a [`Layout`]: per column the position of each symbol in the
/// column's domain, and per symbol its block.
#[derive(Clone, Debug)]
pub struct Coder {
    /// The layout it numbers by.
    pub(super) layout: &'static Layout,
    /// The number of symbols of the game.
    pub(super) num_symbols: usize,
    /// `column * num_symbols + symbol` → position in the column's domain, or `NONE`.
    pub positions: Vec<u32>,
    /// Symbol → index of its block in the layout, or `NONE`.
    functor_of: Vec<u32>,
}

impl Coder {
    /// The coder of `layout` for tuples of `arity` columns over `num_symbols` symbols.
    pub fn new(layout: &'static Layout, arity: usize, num_symbols: usize) -> Self {
        let mut positions = vec![NONE; arity * num_symbols];
        let mut functor_of = vec![NONE; num_symbols];
        for (k, functor) in layout.functors.iter().enumerate() {
            functor_of[functor.symbol as usize] = k as u32;
            for (&c, domain) in functor.columns.iter().zip(functor.domains) {
                for (i, &s) in domain.iter().enumerate() {
                    positions[c * num_symbols + s as usize] = i as u32;
                }
            }
        }
        Coder {
            layout,
            num_symbols,
            positions,
            functor_of,
        }
    }

    /// The number of a tuple whose columns outside its functor are nil (as every
    /// tuple derived by the rules is), if it is in the layout.
    #[inline]
    pub fn code(&self, tuple: &[Sym]) -> Option<usize> {
        let k = *self.functor_of.get(tuple[self.layout.top] as usize)?;
        if k == NONE {
            return None;
        }
        let functor = &self.layout.functors[k as usize];
        let mut offset = 0;
        for (&c, &stride) in functor.columns.iter().zip(functor.strides) {
            let p = self.positions[c * self.num_symbols + tuple[c] as usize];
            if p == NONE {
                return None;
            }
            offset += p as usize * stride;
        }
        if let Some(keys) = functor.keys {
            offset = listed_rank(keys, offset)?;
        }
        Some(functor.base + offset)
    }

    /// Like [`Coder::code`], and checks that the columns outside the functor are nil.
    pub fn code_checked(&self, tuple: &[Sym]) -> Option<usize> {
        let code = self.code(tuple)?;
        let k = self.functor_of[tuple[self.layout.top] as usize] as usize;
        let functor = &self.layout.functors[k];
        let stray = tuple
            .iter()
            .enumerate()
            .any(|(c, &v)| v != 0 && c != self.layout.top && !functor.columns.contains(&c));
        (!stray).then_some(code)
    }
}

impl Layout {
    /// The tuple of a number, into `out` (one symbol per column).
    pub fn decode(&self, code: usize, out: &mut [Sym]) {
        out.iter_mut().for_each(|v| *v = 0);
        let k = self.functors.partition_point(|f| f.base <= code) - 1;
        let functor = &self.functors[k];
        out[self.top] = functor.symbol;
        let mut offset = code - functor.base;
        if let Some(keys) = functor.keys {
            offset = keys[offset] as usize;
        }
        for ((&c, &stride), domain) in functor
            .columns
            .iter()
            .zip(functor.strides)
            .zip(functor.domains)
        {
            out[c] = domain[(offset / stride) % domain.len()];
        }
    }
}

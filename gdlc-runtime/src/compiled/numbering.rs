//! [`Numbering`]: how a bitset [`Store`](super::Store) numbers its tuples — flat, by the
//! mixed-radix number of the columns' positions in their domains, or by a
//! [`Layout`](super::Layout) of one compound argument with the other columns' positions
//! around it — and decodes a number back into a tuple.

use std::sync::Arc;

use super::layout::Coder;
use super::{NONE, Sym};

/// How a bitset store numbers its tuples.
#[derive(Clone, Debug)]
pub(super) enum Numbering {
    /// The mixed-radix number of the columns' positions in their domains.
    Flat {
        /// `column * num_symbols + symbol` → position in the column's domain (shared
        /// by the copies of a memo table's template).
        positions: Arc<[u32]>,
        num_symbols: usize,
        /// 0 for a memo table's bound columns ([`Store::memo_bitset`](super::Store::memo_bitset)).
        strides: Vec<usize>,
        /// The columns' domains.
        domains: Arc<[Vec<Sym>]>,
    },
    /// One compound argument numbered by a [`Layout`](super::Layout) (a block per function symbol),
    /// plus the other columns' positions in their domains times their strides.
    Coded {
        coder: Coder,
        /// The other columns: (column, stride).
        outer: Vec<(usize, usize)>,
        /// Their domains.
        outer_domains: Vec<Vec<Sym>>,
    },
}

impl Numbering {
    /// The bit of a tuple, `None` when a symbol is outside its column's domain.
    #[inline]
    pub(super) fn bit(&self, tuple: &[Sym]) -> Option<usize> {
        match self {
            Numbering::Flat {
                positions,
                num_symbols,
                strides,
                ..
            } => bit_of(positions, *num_symbols, strides, tuple),
            Numbering::Coded { coder, outer, .. } => {
                let mut bit = coder.code(tuple)?;
                for &(c, stride) in outer {
                    let p = coder.positions[c * coder.num_symbols + tuple[c] as usize];
                    if p == NONE {
                        return None;
                    }
                    bit += p as usize * stride;
                }
                Some(bit)
            }
        }
    }

    /// The tuple of a bit, into `out` (one symbol per column).
    pub(super) fn decode(&self, bit: usize, out: &mut [Sym]) {
        match self {
            Numbering::Flat {
                strides, domains, ..
            } => {
                for ((v, &stride), domain) in out.iter_mut().zip(strides).zip(domains.iter()) {
                    // A memo table's bound columns (stride 0) are its key, not numbered.
                    if stride == 0 {
                        continue;
                    }
                    *v = domain[(bit / stride) % domain.len()];
                }
            }
            Numbering::Coded {
                coder,
                outer,
                outer_domains,
            } => {
                let inner = coder.layout.bits.max(1);
                coder.layout.decode(bit % inner, out);
                for (&(c, stride), domain) in outer.iter().zip(outer_domains) {
                    out[c] = domain[(bit / stride) % domain.len()];
                }
            }
        }
    }
}

#[inline]
fn bit_of(
    positions: &[u32],
    num_symbols: usize,
    strides: &[usize],
    tuple: &[Sym],
) -> Option<usize> {
    let mut bit = 0;
    for (c, (&s, &stride)) in tuple.iter().zip(strides).enumerate() {
        let p = *positions.get(c * num_symbols + s as usize)?;
        if p == NONE {
            return None;
        }
        bit += p as usize * stride;
    }
    Some(bit)
}

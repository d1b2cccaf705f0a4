//! The canonical KIF text order of moves, read from their columns instead of their texts.
//!
//! The join backend lists legal moves in text order (an order that depends on the state
//! alone, as `Game::legal_moves` asks, and the interpreter's). Its runtime interns each
//! move it meets and ranked them by sorting texts; a game whose moves keep being new (amazons: two million
//! possible moves, thousands new per state) sorted texts for as long as it ran. Yet for
//! the usual shape of a move — a constant (`noop`) or a function of constants (`(move e2
//! e4)`) — text order is fixed by the columns alone: first the block of the root symbol,
//! then each argument's name in string order. [`TextOrder`] turns a move's tuple into a
//! number whose order is its text's, from the layout of the moves (`Meta::moves`), or
//! refuses the layout when it cannot prove that (nested arguments, two functors of one
//! name, a last argument whose name continues another's with a character below `)`).
//!
//! Why the numbers follow the texts: the text of `(f a1 … an)` is `(f ` followed by the
//! arguments joined by spaces and a closing `)`. Two moves of one functor first differ in
//! some argument; if neither name there is a prefix of the other, their first differing
//! character decides, as it decides the names' string order. If one name is a proper
//! prefix of the other, the shorter is followed by a space (the smallest character a
//! text holds) or, for the last argument, by `)`, which the refusal above handles.
//! Moves of different root symbols differ within `(f ` against `(g `, or at the first
//! character of a constant (never `(`), so blocks order as those prefixes do.

use super::Sym;
use super::meta::Meta;

/// Nil, the padding of columns a term lacks: never an argument of a move's functor.
const NIL: Sym = 0;

/// Rank tables larger than this (columns × symbols) are not built.
const MAX_RANK_ENTRIES: usize = 1 << 22;

/// A move's text order as a number computed from its columns (see the module docs).
#[derive(Clone, Debug)]
pub struct TextOrder {
    /// The tuple column holding the move's root symbol.
    top: usize,
    /// Per symbol, the index of its block in `blocks` (`u32::MAX`: not a root symbol).
    block_of: Vec<u32>,
    blocks: Vec<Block>,
}

/// The moves of one root symbol.
#[derive(Clone, Debug)]
struct Block {
    /// The block's place among the blocks in text order, in the key's top bits.
    base: u64,
    /// The tuple columns of the arguments, first argument first.
    columns: Vec<usize>,
    /// The mixed-radix stride of each argument's rank.
    strides: Vec<u64>,
    /// Per argument, the rank of each symbol's name among the argument's domain
    /// (`u32::MAX`: not in it).
    ranks: Vec<Vec<u32>>,
}

/// Bits of a key below the block's place.
const BLOCK_SHIFT: u32 = 48;

impl TextOrder {
    /// The text order of `meta`'s moves, if their layout proves it (see the module docs).
    pub fn of_moves(meta: &Meta) -> Option<TextOrder> {
        let layout = &meta.moves;
        let num_symbols = meta.symbols.len();
        let functors = layout.functors;
        if functors.len() >= 1 << (64 - BLOCK_SHIFT) {
            return None;
        }
        let entries: usize = functors.iter().map(|f| f.columns.len()).sum::<usize>();
        if entries.checked_mul(num_symbols)? > MAX_RANK_ENTRIES {
            return None;
        }
        let mut prefixes = Vec::with_capacity(functors.len());
        let mut blocks = Vec::with_capacity(functors.len());
        for functor in functors {
            let (name, arity) = *meta.symbols.get(functor.symbol as usize)?;
            if arity as usize != functor.columns.len() {
                return None;
            }
            prefixes.push(if arity == 0 {
                name.to_owned()
            } else {
                format!("({name} ")
            });
            let mut ranks = Vec::with_capacity(functor.columns.len());
            for (j, (&column, &domain)) in functor.columns.iter().zip(functor.domains).enumerate() {
                let path: &[u32] = meta.legal_paths.get(column)?;
                if path != [1, functor.symbol, j as u32] {
                    return None;
                }
                let last = j + 1 == functor.columns.len();
                ranks.push(argument_ranks(meta, domain, last, num_symbols)?);
            }
            let mut strides = vec![1u64; ranks.len()];
            let mut size = 1u64;
            for (k, domain) in functor.domains.iter().enumerate().rev() {
                strides[k] = size;
                size = size.checked_mul(domain.len() as u64)?;
            }
            if size > 1 << BLOCK_SHIFT {
                return None;
            }
            blocks.push(Block {
                base: 0,
                columns: functor.columns.to_vec(),
                strides,
                ranks,
            });
        }
        // Blocks in the order of their texts' common prefixes; two equal prefixes (one
        // name at two arities) would interleave.
        let mut order: Vec<usize> = (0..blocks.len()).collect();
        order.sort_by(|&a, &b| prefixes[a].cmp(&prefixes[b]));
        if order.windows(2).any(|w| prefixes[w[0]] == prefixes[w[1]]) {
            return None;
        }
        for (place, &b) in order.iter().enumerate() {
            blocks[b].base = (place as u64) << BLOCK_SHIFT;
        }
        let mut block_of = vec![u32::MAX; num_symbols];
        for (b, functor) in functors.iter().enumerate() {
            block_of[functor.symbol as usize] = b as u32;
        }
        Some(TextOrder {
            top: layout.top,
            block_of,
            blocks,
        })
    }

    /// The number of a move's tuple, in the order of its text; `None` for a tuple
    /// outside the layout.
    #[inline]
    pub fn key(&self, tuple: &[Sym]) -> Option<u64> {
        let root = *tuple.get(self.top)? as usize;
        let block = &self.blocks[*self.block_of.get(root)? as usize];
        let mut key = block.base;
        for ((&column, &stride), ranks) in
            block.columns.iter().zip(&block.strides).zip(&block.ranks)
        {
            let rank = *ranks.get(*tuple.get(column)? as usize)?;
            if rank == u32::MAX {
                return None;
            }
            key += u64::from(rank) * stride;
        }
        Some(key)
    }
}

/// Per symbol, the rank of its name in an argument's domain; `None` when the domain
/// holds a function symbol (nested terms), or, for the last argument, a name that
/// continues another with a character sorting before `)`.
fn argument_ranks(meta: &Meta, domain: &[Sym], last: bool, num_symbols: usize) -> Option<Vec<u32>> {
    let mut names = Vec::with_capacity(domain.len());
    for &symbol in domain {
        if symbol == NIL {
            continue;
        }
        let (name, arity) = *meta.symbols.get(symbol as usize)?;
        if arity != 0 {
            return None;
        }
        names.push((name, symbol));
    }
    names.sort_unstable();
    if last {
        // Sorted, a name's continuations follow it directly.
        for (i, (shorter, _)) in names.iter().enumerate() {
            for (longer, _) in &names[i + 1..] {
                let Some(rest) = longer.as_bytes().strip_prefix(shorter.as_bytes()) else {
                    break;
                };
                if rest.first().is_some_and(|&c| c <= b')') {
                    return None;
                }
            }
        }
    }
    let mut ranks = vec![u32::MAX; num_symbols];
    for (rank, &(_, symbol)) in names.iter().enumerate() {
        ranks[symbol as usize] = rank as u32;
    }
    Some(ranks)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::compiled::layout::{FunctorLayout, Layout};

    /// The layout of `noop`, `(mark X Y)` and `(m2 X)` over the symbols below.
    pub(crate) fn meta(last_names: &'static [&'static str]) -> Meta {
        let symbols: Vec<(&'static str, u32)> =
            [("#nil", 0), ("r", 0), ("noop", 0), ("mark", 2), ("m2", 1)]
                .into_iter()
                .chain(["1", "10", "2", "a"].map(|n| (n, 0)))
                .chain(last_names.iter().map(|&n| (n, 0)))
                .collect();
        let last: Vec<Sym> = (9..9 + last_names.len() as Sym).collect();
        let leak = |v: Vec<Sym>| -> &'static [Sym] { Vec::leak(v) };
        Meta {
            source: "test",
            symbols: Vec::leak(symbols),
            roles: &[1],
            role_names: &["r"],
            true_paths: &[],
            fluents: Layout {
                top: 0,
                bits: 0,
                functors: &[],
            },
            legal_paths: &[&[0], &[1], &[1, 3, 0], &[1, 3, 1], &[1, 4, 0]],
            moves: Layout {
                top: 1,
                bits: 0,
                functors: Vec::leak(vec![
                    FunctorLayout {
                        symbol: 2,
                        base: 0,
                        size: 1,
                        columns: &[],
                        strides: &[],
                        domains: &[],
                        keys: None,
                    },
                    FunctorLayout {
                        symbol: 3,
                        base: 1,
                        size: 0,
                        columns: &[2, 3],
                        strides: &[0, 0],
                        domains: Vec::leak(vec![leak(vec![0, 5, 6, 7, 8]), leak(last)]),
                        keys: None,
                    },
                    FunctorLayout {
                        symbol: 4,
                        base: 0,
                        size: 0,
                        columns: &[4],
                        strides: &[0],
                        domains: Vec::leak(vec![leak(vec![5, 6])]),
                        keys: None,
                    },
                ]),
            },
            goal_paths: &[],
            sees_paths: &[],
        }
    }

    /// Keys sort as the texts of the moves do: `(m2 1)` < `(mark 1 x)` < `(mark 10 …)`
    /// < `(mark 2 …)` < `noop`, and within an argument `x` < `xa` < `y`.
    #[test]
    fn keys_follow_the_texts() {
        let meta = meta(&["x", "xa", "y"]);
        let order = TextOrder::of_moves(&meta).expect("a flat layout");
        let moves: [(&str, [Sym; 5]); 7] = [
            ("(m2 1)", [0, 4, 0, 0, 5]),
            ("(m2 10)", [0, 4, 0, 0, 6]),
            ("(mark 1 x)", [0, 3, 5, 9, 0]),
            ("(mark 1 xa)", [0, 3, 5, 10, 0]),
            ("(mark 10 y)", [0, 3, 6, 11, 0]),
            ("(mark 2 x)", [0, 3, 7, 9, 0]),
            ("noop", [0, 2, 0, 0, 0]),
        ];
        assert!(moves.windows(2).all(|w| w[0].0 < w[1].0), "texts in order");
        let keys: Vec<u64> = moves
            .iter()
            .map(|(text, tuple)| order.key(tuple).unwrap_or_else(|| panic!("{text}")))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert_eq!(
            order.key(&[0, 3, 5, 1, 0]),
            None,
            "a symbol outside the domain"
        );
    }

    /// `(mark 1 x)` sorts after `(mark 1 x!)` (`!` < `)`), against the names' order:
    /// such a layout is refused.
    #[test]
    fn a_last_argument_continued_below_the_parenthesis_is_refused() {
        assert!(TextOrder::of_moves(&meta(&["x", "x!"])).is_none());
        assert!(TextOrder::of_moves(&meta(&["x", "x-"])).is_some());
    }
}

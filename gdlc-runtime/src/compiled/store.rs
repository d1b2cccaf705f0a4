//! [`Store`]: the tuples of a derived relation or of a memo table — a list of rows kept
//! unique by a flag, a bitset (numbered as a [`Numbering`] says) or a hash set, with a
//! chained hash index per lookup pattern — and the hashing and comparison of tuples it
//! shares with the memo tables.

use std::hash::Hasher;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use super::layout::{Coder, Layout};
use super::numbering::Numbering;
use super::{NONE, Sym};

/// The hash of a tuple's (or a call key's) symbols.
pub(super) fn hash_values(values: impl Iterator<Item = Sym>) -> u64 {
    let mut hasher = FxHasher::default();
    for v in values {
        hasher.write_u32(v);
    }
    hasher.finish()
}

/// Whether two tuples are equal: compared in line (tuples are a few symbols, where a
/// slice comparison calls `memcmp`).
#[inline(always)]
pub(super) fn same(a: &[Sym], b: &[Sym]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Adds row `row` (about to hold `tuple`) to a hash set of rows unless an equal row is
/// there; the existing row's number if there was one.
fn insert_row(
    table: &mut HashTable<u32>,
    rows: &[Sym],
    arity: usize,
    tuple: &[Sym],
    row: u32,
) -> Option<u32> {
    let stored = |r: u32| &rows[r as usize * arity..(r as usize + 1) * arity];
    let hash = hash_values(tuple.iter().copied());
    if let Some(&found) = table.find(hash, |&r| same(stored(r), tuple)) {
        return Some(found);
    }
    table.insert_unique(hash, row, |&r| hash_values(stored(r).iter().copied()));
    None
}

#[derive(Clone, Debug)]
enum Dedupe {
    Flag,
    Bits {
        numbering: Numbering,
        bits: Vec<u64>,
        /// The words holding set bits.
        dirty: Vec<u32>,
    },
    Hash(HashTable<u32>),
}

#[derive(Clone, Debug)]
struct Index {
    columns: Vec<usize>,
    heads: HashTable<u32>,
    next: Vec<u32>,
}

/// The tuples of one relation (or one memo table): a list of rows, kept unique by a
/// flag, a bitset or a hash set, with a hash index per lookup pattern.
#[derive(Clone, Debug)]
pub struct Store {
    arity: usize,
    rows: Vec<Sym>,
    count: usize,
    dedupe: Dedupe,
    indexes: Vec<Index>,
    /// A bitset store's bit of each row.
    row_bits: Vec<u32>,
    /// Whether the rows' tuples are kept (see [`Store::without_rows`]).
    keep_rows: bool,
    /// Whether a bitset store lists its rows' bits in `row_bits` (see
    /// [`Store::unlisted`]).
    list_bits: bool,
}

impl Store {
    /// A store kept unique by hashing, with one index per column list.
    pub fn hashed(arity: usize, indexes: &[&[usize]]) -> Self {
        Store {
            arity,
            rows: Vec::new(),
            count: 0,
            dedupe: if arity == 0 {
                Dedupe::Flag
            } else {
                Dedupe::Hash(HashTable::new())
            },
            indexes: indexes
                .iter()
                .map(|columns| Index {
                    columns: columns.to_vec(),
                    heads: HashTable::new(),
                    next: Vec::new(),
                })
                .collect(),
            row_bits: Vec::new(),
            keep_rows: true,
            list_bits: true,
        }
    }

    /// A store kept unique by a bitset over the product of the column domains (symbols
    /// outside them are refused: the compiler's analysis guarantees there are none).
    pub fn bitset(domains: &[&[Sym]], num_symbols: usize, indexes: &[&[usize]]) -> Self {
        let store = Store::hashed(domains.len(), indexes);
        if domains.is_empty() {
            return store;
        }
        let mut strides = vec![1; domains.len()];
        for c in (0..domains.len() - 1).rev() {
            strides[c] = strides[c + 1] * domains[c + 1].len().max(1);
        }
        let total = strides[0] * domains[0].len().max(1);
        store.with_flat_bits(domains, strides, total, num_symbols)
    }

    /// The template of a memo table kept unique by a bitset over its free columns: a
    /// table's bound columns hold its key, the same in every row, so their stride is 0
    /// and the bitset numbers only the other columns' positions in their `domains`
    /// (one per column). See [`Memo::with_bits`](super::Memo::with_bits).
    pub fn memo_bitset(domains: &[&[Sym]], bound: &[usize], num_symbols: usize) -> Self {
        let mut strides = vec![0; domains.len()];
        let mut total = 1;
        for c in (0..domains.len()).rev().filter(|c| !bound.contains(c)) {
            strides[c] = total;
            total *= domains[c].len().max(1);
        }
        Store::hashed(domains.len(), &[]).with_flat_bits(domains, strides, total, num_symbols)
    }

    /// The store kept unique by `total` bits, each tuple's the sum of its columns'
    /// positions in their `domains` times their `strides`.
    fn with_flat_bits(
        mut self,
        domains: &[&[Sym]],
        strides: Vec<usize>,
        total: usize,
        num_symbols: usize,
    ) -> Self {
        let mut positions = vec![NONE; domains.len() * num_symbols];
        for (c, domain) in domains.iter().enumerate() {
            for (i, &s) in domain.iter().enumerate() {
                positions[c * num_symbols + s as usize] = i as u32;
            }
        }
        self.dedupe = Dedupe::Bits {
            numbering: Numbering::Flat {
                positions: positions.into(),
                num_symbols,
                strides,
                domains: domains.iter().map(|d| d.to_vec()).collect(),
            },
            bits: vec![0; total.div_ceil(64)],
            dirty: Vec::new(),
        };
        self
    }

    /// A store kept unique by a bitset numbered by `layout` over one compound argument
    /// of the relation (a block per function symbol, see [`Layout`]) and by the
    /// positions of the other columns in their domains (`outer`: column and domain,
    /// most significant first). Rows and indexes are kept as in a hashed store; the
    /// rows have bits ([`Store::row_bit`]).
    pub fn coded(
        arity: usize,
        layout: &'static Layout,
        outer: &[(usize, &[Sym])],
        num_symbols: usize,
        indexes: &[&[usize]],
    ) -> Self {
        let mut store = Store::hashed(arity, indexes);
        let mut coder = Coder::new(layout, arity, num_symbols);
        let mut strides = Vec::with_capacity(outer.len());
        let mut stride = layout.bits.max(1);
        for &(c, domain) in outer.iter().rev() {
            strides.push((c, stride));
            for (i, &s) in domain.iter().enumerate() {
                coder.positions[c * num_symbols + s as usize] = i as u32;
            }
            stride *= domain.len().max(1);
        }
        strides.reverse();
        store.dedupe = Dedupe::Bits {
            numbering: Numbering::Coded {
                coder,
                outer: strides,
                outer_domains: outer.iter().map(|(_, d)| d.to_vec()).collect(),
            },
            bits: vec![0; stride.div_ceil(64)],
            dirty: Vec::new(),
        };
        store
    }

    /// A bitset store that keeps only its bits and their order, not its rows' tuples
    /// (for an entry relation no rule reads: the runtime decodes a row's tuple from its
    /// bit, [`Store::decode_row`]); a store that is not a bitset is returned as is.
    pub fn without_rows(mut self) -> Self {
        if matches!(self.dedupe, Dedupe::Bits { .. }) && self.indexes.is_empty() {
            self.keep_rows = false;
        }
        self
    }

    /// A bitset store without rows that does not list its rows' bits either: its
    /// tuples are read through the words holding a bit ([`Store::bit_words_listed`],
    /// in no particular order), not by row number. For `legal` when no rule reads it
    /// (the runtime picks a move from the words and lists the moves from them): a
    /// move inserted costs a bit and, for a word's first bit, the word's number, not
    /// a row's bit as well (amazons inserts about 500 moves per state). A store that
    /// keeps its rows is returned as is.
    pub fn unlisted(mut self) -> Self {
        if matches!(self.dedupe, Dedupe::Bits { .. }) && !self.keep_rows {
            self.list_bits = false;
        }
        self
    }

    /// Whether the store's tuples are read through its words, not by row number
    /// ([`Store::unlisted`]).
    #[inline]
    pub fn is_unlisted(&self) -> bool {
        !self.list_bits
    }

    /// Whether [`Store::row`] gives the rows' tuples (else decode them:
    /// [`Store::decode_row`]).
    #[inline]
    pub fn has_rows(&self) -> bool {
        self.keep_rows
    }

    /// The tuple of row `i` of a bitset store, decoded from its bit into `out`.
    pub fn decode_row(&self, i: usize, out: &mut [Sym]) {
        let Dedupe::Bits { numbering, .. } = &self.dedupe else {
            panic!("gdlc internal error: a row decoded from a store without a bitset");
        };
        numbering.decode(self.row_bits[i] as usize, out);
    }

    /// A store holding the `count` rows of a constant table (flat, `arity` symbols per
    /// row).
    pub fn with_rows(mut self, rows: &[Sym], count: usize) -> Self {
        if self.arity == 0 {
            if count > 0 {
                self.insert(&[]);
            }
            return self;
        }
        for row in rows.chunks_exact(self.arity) {
            self.insert(row);
        }
        self
    }

    /// Number of tuples.
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there is no tuple.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Tuple `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &[Sym] {
        &self.rows[i * self.arity..(i + 1) * self.arity]
    }

    /// Removes every tuple, keeping the memory.
    pub fn clear(&mut self) {
        match &mut self.dedupe {
            Dedupe::Flag => {}
            Dedupe::Bits { bits, dirty, .. } => {
                for &w in dirty.iter() {
                    bits[w as usize] = 0;
                }
                dirty.clear();
            }
            Dedupe::Hash(table) => table.clear(),
        }
        for index in &mut self.indexes {
            index.heads.clear();
            index.next.clear();
        }
        self.rows.clear();
        self.row_bits.clear();
        self.count = 0;
    }

    /// The row number of a tuple, if present.
    pub fn find(&self, tuple: &[Sym]) -> Option<u32> {
        match &self.dedupe {
            Dedupe::Flag => (self.count > 0).then_some(0),
            Dedupe::Bits { .. } => (0..self.count as u32).find(|&r| self.row(r as usize) == tuple),
            Dedupe::Hash(table) => {
                let hash = hash_values(tuple.iter().copied());
                table
                    .find(hash, |&r| same(self.row(r as usize), tuple))
                    .copied()
            }
        }
    }

    /// Whether the tuple is present.
    #[inline]
    pub fn contains(&self, tuple: &[Sym]) -> bool {
        match &self.dedupe {
            Dedupe::Flag => self.count > 0,
            Dedupe::Bits {
                numbering, bits, ..
            } => match numbering.bit(tuple) {
                Some(bit) => bits[bit / 64] & (1 << (bit % 64)) != 0,
                None => false,
            },
            Dedupe::Hash(table) => {
                let hash = hash_values(tuple.iter().copied());
                table
                    .find(hash, |&r| same(self.row(r as usize), tuple))
                    .is_some()
            }
        }
    }

    /// Adds a tuple; true if it was new.
    #[inline]
    pub fn insert(&mut self, tuple: &[Sym]) -> bool {
        debug_assert_eq!(tuple.len(), self.arity);
        let row = self.count as u32;
        let new = match &mut self.dedupe {
            Dedupe::Flag => self.count == 0,
            Dedupe::Bits { numbering, .. } => match numbering.bit(tuple) {
                Some(bit) => return self.insert_bit(bit, tuple),
                None => panic!(
                    "gdlc internal error: tuple {tuple:?} outside the domains of a bitset store"
                ),
            },
            Dedupe::Hash(table) => insert_row(table, &self.rows, self.arity, tuple, row).is_none(),
        };
        if new {
            self.push_row(tuple);
        }
        new
    }

    /// For a bitset store whose outermost column is `column` (numbered by functor blocks
    /// with that one outer column, or flat with it first): the bits of the tuples whose
    /// `column` holds `symbol` (`legal`'s moves of one role).
    pub fn outer_range(&self, column: usize, symbol: Sym) -> Option<(usize, usize)> {
        let Dedupe::Bits { numbering, .. } = &self.dedupe else {
            return None;
        };
        match numbering {
            Numbering::Coded {
                coder,
                outer,
                outer_domains,
            } => {
                let [(c, stride)] = outer[..] else {
                    return None;
                };
                let p = outer_domains[0].iter().position(|&s| s == symbol)?;
                (c == column).then(|| (p * stride, p * stride + coder.layout.bits.max(1)))
            }
            Numbering::Flat {
                positions, strides, ..
            } => {
                let p = *positions.get(symbol as usize)?;
                (column == 0 && p != NONE && strides[0] > 0).then(|| {
                    let (p, stride) = (p as usize, strides[0]);
                    (p * stride, (p + 1) * stride)
                })
            }
        }
    }

    /// The tuple numbered `bit` in a bitset store (see [`Self::insert_bit`]).
    pub fn decode_bit(&self, bit: usize, out: &mut [Sym]) {
        let Dedupe::Bits { numbering, .. } = &self.dedupe else {
            panic!("gdlc internal error: a bit decoded in a store without a bitset");
        };
        numbering.decode(bit, out);
    }

    /// Adds a tuple of a bitset store whose bit (the mixed-radix number of its columns'
    /// positions in their domains) the caller computed; true if it was new.
    ///
    /// Inlined at every call site: the test of the bit and the bookkeeping of a new
    /// one are a few instructions, the rows' code and the panics are out of line (an
    /// outlined insert spent most of its instructions saving registers: amazons'
    /// moves).
    #[inline(always)]
    pub fn insert_bit(&mut self, bit: usize, tuple: &[Sym]) -> bool {
        if !self.set_bit(bit) {
            return false;
        }
        if self.list_bits {
            self.row_bits.push(bit as u32);
        }
        if self.keep_rows {
            self.push_new_row(tuple);
        } else {
            self.count += 1;
        }
        true
    }

    /// [`Self::insert_bit`] into a store made [without rows](Self::without_rows) and
    /// [unlisted](Self::unlisted): the bit, its word's listing and the count alone,
    /// with no flags to test (amazons' moves, some 500 a state).
    #[inline(always)]
    pub fn insert_unlisted_bit(&mut self, bit: usize) -> bool {
        debug_assert!(!self.keep_rows && !self.list_bits, "a store of bits alone");
        if !self.set_bit(bit) {
            return false;
        }
        self.count += 1;
        true
    }

    /// Sets bit `bit` of a bitset store, listing its word among those holding a bit
    /// when it is the word's first; whether it was clear (the inserts' common part).
    #[inline(always)]
    fn set_bit(&mut self, bit: usize) -> bool {
        let Dedupe::Bits { bits, dirty, .. } = &mut self.dedupe else {
            not_a_bitset();
        };
        let Some(word) = bits.get_mut(bit / 64) else {
            bit_outside_the_bitset(bit);
        };
        let mask = 1 << (bit % 64);
        if *word & mask != 0 {
            return false;
        }
        if *word == 0 {
            dirty.push((bit / 64) as u32);
        }
        *word |= mask;
        true
    }

    /// [`Self::push_row`] out of line, for [`Self::insert_bit`].
    #[inline(never)]
    fn push_new_row(&mut self, tuple: &[Sym]) {
        self.push_row(tuple);
    }

    /// Inserts into a bitset store without rows the tuples numbered `offset + b` for
    /// each `b` of `bits` (another store's [`Self::row_bits`]: its tuples under
    /// columns of this store already bound); whether one was new.
    #[inline]
    pub fn insert_bits_at(&mut self, offset: usize, bits: &[u32]) -> bool {
        debug_assert!(!self.keep_rows, "rows copied as bits alone");
        let mut grew = false;
        for &bit in bits {
            grew |= self.insert_bit(offset + bit as usize, &[]);
        }
        grew
    }

    /// The bits of a bitset store's rows, in row order (empty for other stores and
    /// for an [unlisted](Store::unlisted) one).
    #[inline]
    pub fn row_bits(&self) -> &[u32] {
        &self.row_bits
    }

    /// Whether the tuple numbered `bit` (as for [`Self::insert_bit`]) is in a bitset
    /// store.
    #[inline]
    pub fn has_bit(&self, bit: usize) -> bool {
        let Dedupe::Bits { bits, .. } = &self.dedupe else {
            panic!("gdlc internal error: a bit tested in a store without a bitset");
        };
        bits[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// The words of a bitset store (`None` for other stores).
    #[inline]
    pub fn bit_words(&self) -> Option<&[u64]> {
        match &self.dedupe {
            Dedupe::Bits { bits, .. } => Some(bits),
            _ => None,
        }
    }

    /// The words of a bitset store and the indexes of those holding a set bit, in the
    /// order they got their first (`None` for other stores).
    #[inline]
    pub fn bit_words_listed(&self) -> Option<(&[u64], &[u32])> {
        match &self.dedupe {
            Dedupe::Bits { bits, dirty, .. } => Some((bits, dirty)),
            _ => None,
        }
    }

    /// The bit of row `i` of a bitset store (`None` for other stores and for an
    /// [unlisted](Store::unlisted) one).
    #[inline]
    pub fn row_bit(&self, i: usize) -> Option<usize> {
        self.row_bits.get(i).map(|&b| b as usize)
    }

    /// Appends a new tuple's row and indexes it.
    #[inline]
    fn push_row(&mut self, tuple: &[Sym]) {
        let row = self.count as u32;
        let arity = self.arity;
        debug_assert_eq!(tuple.len(), arity, "a row of the store's arity");
        self.rows.extend_from_slice(tuple);
        self.count += 1;
        let rows = &self.rows;
        for index in &mut self.indexes {
            let columns = &index.columns;
            let key_hash = hash_values(columns.iter().map(|&c| tuple[c]));
            let project_eq = |r: u32| {
                let stored = &rows[r as usize * arity..(r as usize + 1) * arity];
                columns.iter().all(|&c| stored[c] == tuple[c])
            };
            match index.heads.find_mut(key_hash, |&r| project_eq(r)) {
                Some(head) => {
                    index.next.push(*head);
                    *head = row;
                }
                None => {
                    index.next.push(NONE);
                    index.heads.insert_unique(key_hash, row, |&r| {
                        let stored = &rows[r as usize * arity..(r as usize + 1) * arity];
                        hash_values(columns.iter().map(|&c| stored[c]))
                    });
                }
            }
        }
    }

    /// The first row whose columns of index `i` hold `key` (in the index's column
    /// order), or [`NONE`].
    #[inline]
    pub fn first(&self, i: usize, key: &[Sym]) -> u32 {
        let index = &self.indexes[i];
        let hash = hash_values(key.iter().copied());
        index
            .heads
            .find(hash, |&r| {
                let stored = self.row(r as usize);
                index.columns.iter().zip(key).all(|(&c, &k)| stored[c] == k)
            })
            .copied()
            .unwrap_or(NONE)
    }

    /// The row after `row` in the chain of index `i`, or [`NONE`].
    #[inline]
    pub fn next(&self, i: usize, row: u32) -> u32 {
        self.indexes[i].next[row as usize]
    }
}

/// The panic of a bit inserted into a store that is not a bitset (a bug of gdlc's).
#[cold]
#[inline(never)]
fn not_a_bitset() -> ! {
    panic!("gdlc internal error: a bit inserted into a store without a bitset");
}

/// The panic of a bit past a bitset store's words (a bug of gdlc's).
#[cold]
#[inline(never)]
fn bit_outside_the_bitset(bit: usize) -> ! {
    panic!("gdlc internal error: bit {bit} outside a bitset store");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiled::layout::FunctorLayout;

    #[test]
    fn an_outer_column_value_has_a_range_of_bits() {
        // Flat: column 0 outermost, 3 values of column 1 per value of column 0.
        let mut store = Store::bitset(&[&[1, 2], &[3, 4, 5]], 6, &[]);
        assert_eq!(store.outer_range(0, 2), Some((3, 6)));
        assert_eq!(store.outer_range(0, 1), Some((0, 3)));
        assert_eq!(store.outer_range(0, 3), None);
        assert_eq!(store.outer_range(1, 4), None);
        assert!(store.insert(&[2, 4]));
        assert_eq!(store.row_bit(0), Some(4));
        let mut out = [0; 2];
        store.decode_bit(4, &mut out);
        assert_eq!(out, [2, 4]);
    }

    #[test]
    fn stores_dedupe_and_index() {
        let mut store = Store::hashed(2, &[&[1]]);
        assert!(store.insert(&[1, 2]));
        assert!(store.insert(&[3, 2]));
        assert!(!store.insert(&[1, 2]));
        assert_eq!(store.len(), 2);
        let mut rows = Vec::new();
        let mut r = store.first(0, &[2]);
        while r != NONE {
            rows.push(store.row(r as usize).to_vec());
            r = store.next(0, r);
        }
        assert_eq!(rows, [vec![3, 2], vec![1, 2]]);
        store.clear();
        assert!(store.is_empty() && store.first(0, &[2]) == NONE);
        let mut bits = Store::bitset(&[&[1, 3], &[2]], 4, &[]);
        assert!(bits.insert(&[3, 2]) && !bits.insert(&[3, 2]));
        assert!(bits.contains(&[3, 2]) && !bits.contains(&[1, 2]));
    }

    #[test]
    fn unlisted_stores_are_read_through_their_words() {
        let mut store = Store::bitset(&[&[1, 2], &[5, 6], &[5, 6]], 7, &[])
            .without_rows()
            .unlisted();
        assert!(store.is_unlisted());
        // A store that keeps its rows lists them whatever it is asked.
        assert!(!Store::bitset(&[&[1, 2]], 3, &[]).unlisted().is_unlisted());
        for bit in [6, 1, 6, 3] {
            store.insert_bit(bit, &[]);
        }
        assert_eq!(store.len(), 3);
        assert!(store.row_bits().is_empty());
        assert_eq!(store.row_bit(0), None);
        let (words, listed) = store.bit_words_listed().expect("a bitset");
        assert_eq!(listed, [0]);
        assert_eq!(words[0], 1 << 1 | 1 << 3 | 1 << 6);
        let mut out = [0; 3];
        store.decode_bit(6, &mut out);
        assert_eq!(out, [2, 6, 5]);
        store.clear();
        assert!(store.is_empty());
        assert_eq!(
            store.bit_words_listed().expect("a bitset").1,
            [] as [u32; 0]
        );
        store.insert_bit(2, &[]);
        assert_eq!(store.len(), 1);
    }

    /// A bitset store without rows keeps its bits in the order set, and each row's
    /// tuple decodes from its bit, over a flat numbering and over one coded by a
    /// layout of a nested argument.
    #[test]
    fn stores_without_rows_decode_their_rows_from_bits() {
        // Symbols: 1, 2 roles; 3 `noop`; 4 `mark` (arity 2); 5, 6 coordinates.
        let mut flat = Store::bitset(&[&[1, 2], &[5, 6], &[5, 6]], 7, &[]).without_rows();
        assert!(!flat.has_rows());
        for tuple in [[2, 6, 5], [1, 5, 5], [2, 6, 5]] {
            let bit =
                (tuple[0] as usize - 1) * 4 + (tuple[1] as usize - 5) * 2 + (tuple[2] as usize - 5);
            flat.insert_bit(bit, &tuple);
        }
        assert_eq!(flat.len(), 2);
        let mut out = [0; 3];
        flat.decode_row(0, &mut out);
        assert_eq!(out, [2, 6, 5]);
        flat.decode_row(1, &mut out);
        assert_eq!(out, [1, 5, 5]);

        // (legal ROLE MOVE), MOVE = noop | (mark X Y): columns role, functor, X, Y.
        static LAYOUT: Layout = Layout {
            top: 1,
            bits: 5,
            functors: &[
                FunctorLayout {
                    symbol: 3,
                    base: 0,
                    size: 1,
                    columns: &[],
                    strides: &[],
                    domains: &[],
                    keys: None,
                },
                FunctorLayout {
                    symbol: 4,
                    base: 1,
                    size: 4,
                    columns: &[2, 3],
                    strides: &[2, 1],
                    domains: &[&[5, 6], &[5, 6]],
                    keys: None,
                },
            ],
        };
        let mut coded = Store::coded(4, &LAYOUT, &[(0, &[1, 2][..])], 7, &[]).without_rows();
        for tuple in [[2, 4, 6, 5], [1, 3, 0, 0], [2, 4, 6, 5], [2, 3, 0, 0]] {
            coded.insert(&tuple);
        }
        assert_eq!(coded.len(), 3);
        let decoded: Vec<[Sym; 4]> = (0..coded.len())
            .map(|i| {
                let mut out = [9; 4];
                coded.decode_row(i, &mut out);
                out
            })
            .collect();
        assert_eq!(decoded, [[2, 4, 6, 5], [1, 3, 0, 0], [2, 3, 0, 0]]);
        assert!(coded.contains(&[1, 3, 0, 0]) && !coded.contains(&[1, 4, 5, 5]));
    }
}

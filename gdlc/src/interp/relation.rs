//! A relation's tuples: a flat, append-only store with a duplicate filter and indexes
//! on the column sets that queries bind, built on first use and kept up to date.

use std::hash::{BuildHasher, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::terms::TermId;

/// A set of bound columns, as a bit mask (arity is at most 64 for indexing).
pub type ColumnMask = u64;

/// An index: tuples sharing the key columns form a chain (first, last) threaded
/// through `next`, so adding a tuple never allocates a group of its own.
#[derive(Clone, Debug)]
struct Index {
    mask: ColumnMask,
    /// Chains by key: (first tuple, last tuple).
    table: HashTable<(u32, u32)>,
    /// For each tuple, the next tuple of its chain (`END` at the end).
    next: Vec<u32>,
}

/// The end of an index chain.
pub const END: u32 = u32::MAX;

/// The tuples of one relation.
#[derive(Clone, Debug)]
pub struct Relation {
    arity: usize,
    data: Vec<TermId>,
    len: u32,
    dedup: HashTable<u32>,
    indexes: Vec<Index>,
}

fn hash_columns(tuple: &[TermId], mask: ColumnMask) -> u64 {
    let mut hasher = FxBuildHasher.build_hasher();
    for (i, t) in tuple.iter().enumerate() {
        if mask & (1 << i) != 0 {
            hasher.write_u32(t.0);
        }
    }
    hasher.finish()
}

fn equal_columns(a: &[TermId], b: &[TermId], mask: ColumnMask) -> bool {
    a.iter()
        .zip(b)
        .enumerate()
        .all(|(i, (x, y))| mask & (1 << i) == 0 || x == y)
}

impl Relation {
    /// An empty relation of the given arity.
    pub fn new(arity: usize) -> Self {
        Relation {
            arity,
            data: Vec::new(),
            len: 0,
            dedup: HashTable::new(),
            indexes: Vec::new(),
        }
    }

    /// Number of tuples.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether there is no tuple.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tuple at `index` (insertion order).
    pub fn tuple(&self, index: u32) -> &[TermId] {
        let start = index as usize * self.arity;
        &self.data[start..start + self.arity]
    }

    fn full_mask(&self) -> ColumnMask {
        if self.arity >= 64 {
            u64::MAX
        } else {
            (1u64 << self.arity) - 1
        }
    }

    /// Whether `tuple` is present.
    pub fn contains(&self, tuple: &[TermId]) -> bool {
        let mask = self.full_mask();
        let hash = hash_columns(tuple, mask);
        self.dedup.find(hash, |&i| self.tuple(i) == tuple).is_some()
    }

    /// Adds `tuple`; false if it was present.
    pub fn insert(&mut self, tuple: &[TermId]) -> bool {
        debug_assert_eq!(tuple.len(), self.arity);
        if self.contains(tuple) {
            return false;
        }
        let index = self.len;
        self.data.extend_from_slice(tuple);
        self.len += 1;
        let mask = self.full_mask();
        let (arity, data) = (self.arity, &self.data);
        let at = |i: u32| &data[i as usize * arity..(i as usize + 1) * arity];
        self.dedup
            .insert_unique(hash_columns(tuple, mask), index, |&i| {
                hash_columns(at(i), mask)
            });
        for idx in &mut self.indexes {
            add_to_index(idx, data, arity, index);
        }
        true
    }

    /// Removes every tuple (keeping the indexes' column sets).
    pub fn clear(&mut self) {
        self.data.clear();
        self.len = 0;
        self.dedup.clear();
        for idx in &mut self.indexes {
            idx.table.clear();
            idx.next.clear();
        }
    }

    /// Makes sure an index on `mask` exists.
    pub fn ensure_index(&mut self, mask: ColumnMask) {
        if self.indexes.iter().any(|idx| idx.mask == mask) {
            return;
        }
        let mut idx = Index {
            mask,
            table: HashTable::new(),
            next: Vec::new(),
        };
        for i in 0..self.len {
            add_to_index(&mut idx, &self.data, self.arity, i);
        }
        self.indexes.push(idx);
    }

    /// The first tuple agreeing with `key` on the columns of `mask` ([`END`] if none),
    /// with the index to follow its chain in ([`chain_next`](Self::chain_next)); an
    /// index on `mask` must exist (else nothing is found). Other columns of `key` are
    /// ignored. Chains are followed by position so that the relation can be read while
    /// the caller evaluates other relations.
    pub fn chain_start(&self, mask: ColumnMask, key: &[TermId]) -> (usize, u32) {
        let Some(slot) = self.indexes.iter().position(|idx| idx.mask == mask) else {
            return (0, END);
        };
        let idx = &self.indexes[slot];
        let hash = hash_columns(key, mask);
        let found = idx.table.find(hash, |&(first, _)| {
            equal_columns(self.tuple(first), key, mask)
        });
        (slot, found.map_or(END, |&(first, _)| first))
    }

    /// The tuple after `tuple` in its chain of the index `slot` ([`END`] at the end).
    pub fn chain_next(&self, slot: usize, tuple: u32) -> u32 {
        self.indexes[slot].next[tuple as usize]
    }
}

fn add_to_index(idx: &mut Index, data: &[TermId], arity: usize, index: u32) {
    let at = |i: u32| &data[i as usize * arity..(i as usize + 1) * arity];
    let tuple = at(index);
    let hash = hash_columns(tuple, idx.mask);
    let mask = idx.mask;
    idx.next.push(END);
    match idx
        .table
        .find_mut(hash, |&(first, _)| equal_columns(at(first), tuple, mask))
    {
        Some(chain) => {
            idx.next[chain.1 as usize] = index;
            chain.1 = index;
        }
        None => {
            idx.table
                .insert_unique(hash, (index, index), |&(first, _)| {
                    hash_columns(at(first), mask)
                });
        }
    }
}

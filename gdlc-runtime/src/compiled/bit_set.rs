//! [`BitSet`]: a derived relation kept as bits alone, its bits listed in the order set
//! or not ([`UnlistedBitSet`]), and [`has_bit_in`], the test of a copy of its words.

use crate::bits::word_field;

/// The tuples of a derived relation as bits only: one bit per tuple of the product of
/// its column domains (the generated code numbers tuples and decodes bits), with the
/// words that hold set bits listed so that clearing costs what was set, and — for a
/// relation some code reads in the order set — the bits set, listed.
#[derive(Clone, Debug)]
pub struct BitSet<const LISTED: bool = true> {
    words: Vec<u64>,
    dirty: Vec<u32>,
    /// The bits set, in the order set (a semi-naive round reads a range of them);
    /// kept only when `LISTED`.
    added: Vec<u32>,
}

/// A [`BitSet`] read only by its words and bit tests (no code reads [`BitSet::len`] or
/// [`BitSet::added`]): its bits are not listed, and [`BitSet::or_field`] sets a field a
/// word at a time. Whether a set is listed is part of its type, so that no insertion
/// tests it at run time.
pub type UnlistedBitSet = BitSet<false>;

impl BitSet<true> {
    /// An empty set of `bits` bits that lists the bits set.
    pub fn new(bits: usize) -> Self {
        BitSet::empty(bits)
    }
}

impl BitSet<false> {
    /// An empty set of `bits` bits that does not list them (see [`UnlistedBitSet`]).
    pub fn unlisted(bits: usize) -> Self {
        BitSet::empty(bits)
    }
}

impl<const LISTED: bool> BitSet<LISTED> {
    fn empty(bits: usize) -> Self {
        BitSet {
            words: vec![0; bits.div_ceil(64).max(1)],
            dirty: Vec::new(),
            added: Vec::new(),
        }
    }

    /// Sets bit `bit`; true if it was clear.
    #[inline]
    pub fn insert(&mut self, bit: usize) -> bool {
        let word = &mut self.words[bit / 64];
        let mask = 1 << (bit % 64);
        if *word & mask != 0 {
            return false;
        }
        if *word == 0 {
            self.dirty.push((bit / 64) as u32);
        }
        *word |= mask;
        if LISTED {
            self.added.push(bit as u32);
        }
        true
    }

    /// Whether bit `bit` is set.
    #[inline]
    pub fn has_bit(&self, bit: usize) -> bool {
        self.words[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// The `n` (at most 64) bits from bit `lo` as a word (see [`word_field`]).
    #[inline]
    pub fn field(&self, lo: usize, n: usize) -> u64 {
        word_field(&self.words, lo, n)
    }

    /// Sets the bits of `bits`, a field from bit `lo` (bit `i` is bit `lo + i`), each
    /// new one listed as [`Self::insert`] lists it; returns those that were new.
    #[inline(always)]
    pub fn or_field(&mut self, lo: usize, bits: u64) -> u64 {
        if !LISTED {
            let (w, shift) = (lo / 64, lo % 64);
            let mut fresh = self.or_word(w, bits << shift) >> shift;
            if shift != 0 && bits >> (64 - shift) != 0 {
                fresh |= self.or_word(w + 1, bits >> (64 - shift)) << (64 - shift);
            }
            return fresh;
        }
        let mut fresh = 0;
        let mut rest = bits;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if self.insert(lo + i) {
                fresh |= 1 << i;
            }
        }
        fresh
    }

    /// Sets the bits of `bits` in word `w`; returns those that were clear.
    #[inline(always)]
    fn or_word(&mut self, w: usize, bits: u64) -> u64 {
        let word = &mut self.words[w];
        let fresh = bits & !*word;
        if fresh != 0 {
            if *word == 0 {
                self.dirty.push(w as u32);
            }
            *word |= fresh;
        }
        fresh
    }

    /// Number of bits set (of a listed set).
    #[inline]
    pub fn len(&self) -> usize {
        assert!(LISTED, "gdlc internal error: an unlisted bit set counted");
        self.added.len()
    }

    /// The `i`-th bit set (in the order set).
    #[inline]
    pub fn added(&self, i: usize) -> usize {
        self.added[i] as usize
    }

    /// Whether no bit is set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.dirty.is_empty()
    }

    /// How many words hold a set bit (listed or not: each word is listed once, when it
    /// gets its first bit, for clearing).
    #[inline]
    pub fn nonzero_words(&self) -> usize {
        self.dirty.len()
    }

    /// The index of the `i`-th word to get a set bit (see [`Self::nonzero_words`]).
    #[inline]
    pub fn nonzero_word(&self, i: usize) -> usize {
        self.dirty[i] as usize
    }

    /// Word `w` (bits `64 * w ..`).
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w]
    }

    /// The words (for [`OnesCursor`](super::OnesCursor)).
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// A copy of the words of a set of at most `N` words, the rest zero: a layer that
    /// only tests a small set of an earlier layer tests its copy ([`has_bit_in`]), held
    /// in registers or on the stack rather than reached through the rules each time.
    #[inline]
    pub fn words_array<const N: usize>(&self) -> [u64; N] {
        let mut copy = [0; N];
        for (to, from) in copy.iter_mut().zip(&self.words) {
            *to = *from;
        }
        copy
    }

    /// Clears every bit, keeping the memory.
    #[inline]
    pub fn clear(&mut self) {
        for &w in &self.dirty {
            self.words[w as usize] = 0;
        }
        self.dirty.clear();
        self.added.clear();
    }
}

/// Whether bit `bit` of a copy of a set's words ([`BitSet::words_array`]) is set.
#[inline(always)]
pub fn has_bit_in<const N: usize>(words: &[u64; N], bit: usize) -> bool {
    words[bit / 64] & (1 << (bit % 64)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{Bits, OnesCursor};

    #[test]
    fn fields_read_and_set_runs_of_bits_across_words() {
        let mut state = Bits::<2>::default();
        for i in [3, 60, 63, 64, 70, 127] {
            state.set(i);
        }
        assert_eq!(state.field(0, 64), (1 << 3) | (1 << 60) | (1 << 63));
        assert_eq!(state.field(60, 8), 0b1_1001);
        assert_eq!(state.field(60, 4), 0b1001);
        assert_eq!(state.field(64, 64), 1 | (1 << 6) | (1 << 63));
        // Past the end reads as clear.
        assert_eq!(state.field(120, 64), 1 << 7);
        let mut set = BitSet::new(200);
        set.insert(66);
        // A field of 10 bits from bit 60: bits 60..70, bit 66 already set.
        let fresh = set.or_field(60, 0b10_0100_0001);
        assert_eq!(fresh, 0b10_0000_0001);
        assert_eq!(set.field(60, 10), 0b10_0100_0001);
        assert_eq!(
            (0..set.len()).map(|i| set.added(i)).collect::<Vec<_>>(),
            [66, 60, 69]
        );
        assert_eq!(set.or_field(60, 0b1), 0);
        set.clear();
        assert_eq!(set.field(60, 10), 0);
        // Unlisted, a field is set a word at a time, across two words too.
        let mut set = BitSet::unlisted(200);
        set.insert(66);
        assert_eq!(set.or_field(60, 0b10_0100_0001), 0b10_0000_0001);
        assert_eq!(set.field(60, 10), 0b10_0100_0001);
        assert_eq!(set.or_field(0, u64::MAX), u64::MAX ^ (1 << 60));
        assert_eq!(set.or_field(130, 1 << 63), 1 << 63);
        assert!(set.has_bit(193) && !set.has_bit(192) && !set.is_empty());
        set.clear();
        assert!(set.is_empty() && set.words().iter().all(|&w| w == 0));
    }

    #[test]
    fn the_words_holding_a_bit_are_listed_once_in_the_order_they_got_one() {
        fn check<const LISTED: bool>(mut set: BitSet<LISTED>) {
            set.insert(200);
            set.insert(5);
            set.insert(7);
            set.or_field(126, 0b101);
            set.insert(201);
            let words: Vec<usize> = (0..set.nonzero_words())
                .map(|i| set.nonzero_word(i))
                .collect();
            assert_eq!(words, [3, 0, 1, 2]);
            assert_eq!(set.word(0), 0b1010_0000);
            assert_eq!(set.word(1), 1 << 62);
            assert_eq!(set.word(2), 1);
            assert_eq!(set.word(3), 0b11 << 8);
            set.clear();
            assert_eq!(set.nonzero_words(), 0);
            set.insert(299);
            assert_eq!((set.nonzero_words(), set.nonzero_word(0)), (1, 4));
        }
        check(BitSet::new(300));
        check(BitSet::unlisted(300));
    }

    #[test]
    fn cursor_steps_like_ones_over_a_bit_set() {
        let mut set = BitSet::new(200);
        assert!(set.is_empty());
        for bit in [3, 4, 130, 199] {
            assert!(set.insert(bit));
        }
        assert!(!set.insert(4));
        assert!(set.has_bit(3) && set.has_bit(130) && !set.has_bit(0));
        let mut cursor = OnesCursor::new(set.words(), 4, 199);
        let mut seen = Vec::new();
        while let Some(bit) = cursor.next(set.words()) {
            seen.push(bit);
            set.insert(150); // mutating between steps is allowed
        }
        assert_eq!(seen, [4, 130, 150]);
        set.clear();
        assert!(set.is_empty() && !set.has_bit(130) && set.words().iter().all(|&w| w == 0));
        assert!(set.insert(130));
    }
}

//! Bit words: [`Bits`], the fixed-width bit set that is the state of both generated
//! reasoners (the join backend's [`crate::compiled`] and the ground backend's
//! [`crate::ground`]), and the reading of the set bits of a range of words — one tested
//! ([`bit`]), listed ([`push_ones`]), counted ([`count_ones`]) or indexed
//! ([`nth_one`]), walked by an iterator ([`Ones`]) or a cursor that does not borrow the
//! words ([`OnesCursor`]), or read as a field of up to 64 bits ([`word_field`]).
//!
//! It uses no other module of the crate: the runtimes and the random picks of
//! [`crate::pick`] build on it.

use std::fmt;
use std::hash::{Hash, Hasher};

/// A set of fluents: a fixed number of 64-bit words.
#[derive(Clone, PartialEq, Eq)]
pub struct Bits<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Bits([0; W])
    }
}

impl<const W: usize> Hash for Bits<W> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl<const W: usize> fmt::Debug for Bits<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.ones(0, W * 64)).finish()
    }
}

impl<const W: usize> Bits<W> {
    /// Whether bit `i` is set.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    /// Sets bit `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    /// Sets the bits of `lo..hi` that are set in `other` (a frame axiom's copy).
    #[inline]
    pub fn or_range(&mut self, other: &Self, lo: usize, hi: usize) {
        if lo >= hi {
            return;
        }
        let (first, last) = (lo / 64, (hi - 1) / 64);
        for w in first..=last {
            let mut mask = !0u64;
            if w == first {
                mask &= !0u64 << (lo % 64);
            }
            if w == last {
                mask &= !0u64 >> (63 - (hi - 1) % 64);
            }
            self.0[w] |= other.0[w] & mask;
        }
    }

    /// The `n` (at most 64) bits from bit `lo` as a word: bit `lo + i` is bit `i`
    /// (a word closure's field, see [`word_field`]).
    #[inline]
    pub fn field(&self, lo: usize, n: usize) -> u64 {
        word_field(&self.0, lo, n)
    }

    /// Sets the bits of `bits`, a field from bit `lo` (bit `i` is bit `lo + i`; a
    /// `next` rule's word of new fluents).
    #[inline]
    pub fn or_field(&mut self, lo: usize, bits: u64) {
        let (w, shift) = (lo / 64, lo % 64);
        self.0[w] |= bits << shift;
        if shift != 0 && bits >> (64 - shift) != 0 {
            self.0[w + 1] |= bits >> (64 - shift);
        }
    }

    /// The set bits in `lo..hi`, ascending.
    #[inline]
    pub fn ones(&self, lo: usize, hi: usize) -> Ones<'_> {
        Ones {
            words: &self.0,
            cursor: OnesCursor::new(&self.0, lo, hi),
        }
    }
}

/// The `n` (1 to 64) bits of `words` from bit `lo` as one word, bit `lo + i` as bit
/// `i`; bits past the end of `words` read as clear. A word closure (a recursive rule
/// computed a field of 64 or fewer bits at a time, see the compiler's `words.rs`)
/// reads its relation, its filters and the state this way.
#[inline]
pub fn word_field(words: &[u64], lo: usize, n: usize) -> u64 {
    let (w, shift) = (lo / 64, lo % 64);
    let mut value = words.get(w).map_or(0, |&x| x >> shift);
    if shift != 0
        && let Some(&next) = words.get(w + 1)
    {
        value |= next << (64 - shift);
    }
    if n < 64 {
        value & ((1u64 << n) - 1)
    } else {
        value
    }
}

/// Iterator over set bits (see [`Bits::ones`]).
pub struct Ones<'a> {
    words: &'a [u64],
    cursor: OnesCursor,
}

impl Iterator for Ones<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        self.cursor.next(self.words)
    }
}

/// A position among the set bits in `lo..hi` of a word slice that is not borrowed
/// between steps, so that the loop body may mutate what holds the words (bits set
/// meanwhile in the current word are not seen; fixpoint rounds catch them).
#[derive(Clone, Copy, Debug)]
pub struct OnesCursor {
    word: usize,
    current: u64,
    hi: usize,
}

impl OnesCursor {
    /// A cursor before the first set bit of `words` in `lo..hi`.
    #[inline]
    pub fn new(words: &[u64], lo: usize, hi: usize) -> Self {
        let word = lo / 64;
        let current = if lo < hi {
            words[word] & (!0u64 << (lo % 64))
        } else {
            0
        };
        OnesCursor { word, current, hi }
    }

    /// The next set bit, if any below `hi`.
    #[inline]
    pub fn next(&mut self, words: &[u64]) -> Option<usize> {
        loop {
            if self.current != 0 {
                let bit = self.word * 64 + self.current.trailing_zeros() as usize;
                if bit >= self.hi {
                    return None;
                }
                self.current &= self.current - 1;
                return Some(bit);
            }
            self.word += 1;
            if self.word * 64 >= self.hi {
                return None;
            }
            self.current = words[self.word];
        }
    }
}

/// Whether bit `i` of some words is set.
#[inline(always)]
pub fn bit(words: &[u64], i: usize) -> bool {
    words[i >> 6] >> (i & 63) & 1 != 0
}

/// Appends `base + k` for every set bit `lo + k` of `words` with `lo + k < hi`, in
/// increasing order.
#[inline]
pub fn push_ones(words: &[u64], lo: usize, hi: usize, base: u32, out: &mut Vec<u32>) {
    if lo >= hi {
        return;
    }
    let (first, last) = (lo >> 6, (hi - 1) >> 6);
    // Move `base + k` is bit `lo + k`: a word's bit `b` is move `offset + b`.
    let mut offset = base
        .wrapping_sub(lo as u32)
        .wrapping_add((first * 64) as u32);
    for w in first..=last {
        let mut word = masked_word(words, w, lo, hi);
        while word != 0 {
            out.push(offset.wrapping_add(word.trailing_zeros()));
            word &= word - 1;
        }
        offset = offset.wrapping_add(64);
    }
}

/// How many bits of `mask` lie below bit `bit` (`bit < 64`): the index of a set
/// bit among the bits a mask selects.
#[inline(always)]
pub fn rank_in(mask: u64, bit: u32) -> u32 {
    (mask & ((1u64 << bit) - 1)).count_ones()
}

/// Pushes `base + k` for each set bit of `words` under `masks` — `(word, mask)` pairs,
/// in order — where `k` is that bit's index among all the masks' bits: the moves of a
/// role whose legality bits lie in `d` with holes between (see
/// [`crate::ground::GroundRules::LEGAL_WORDS`]).
#[inline]
pub fn push_masked(words: &[u64], masks: &[(u32, u64)], base: u32, out: &mut Vec<u32>) {
    let mut first = base;
    for &(w, mask) in masks {
        let mut word = words[w as usize] & mask;
        while word != 0 {
            out.push(first + rank_in(mask, word.trailing_zeros()));
            word &= word - 1;
        }
        first += mask.count_ones();
    }
}

/// The set bits of `words` in `lo..hi`.
#[inline]
pub fn count_ones(words: &[u64], lo: usize, hi: usize) -> usize {
    if lo >= hi {
        return 0;
    }
    let (first, last) = (lo >> 6, (hi - 1) >> 6);
    let mut count = 0;
    for w in first..=last {
        let word = masked_word(words, w, lo, hi);
        // Legal moves are often sparse: no `count_ones` (a dozen instructions
        // without `popcnt`) on empty words.
        if word != 0 {
            count += word.count_ones() as usize;
        }
    }
    count
}

/// The index of the `k`-th (from 0) set bit of `words` in `lo..hi`, if there are more
/// than `k`.
#[inline]
pub fn nth_one(words: &[u64], lo: usize, hi: usize, mut k: usize) -> Option<usize> {
    if lo >= hi {
        return None;
    }
    let (first, last) = (lo >> 6, (hi - 1) >> 6);
    for w in first..=last {
        let word = masked_word(words, w, lo, hi);
        if word == 0 {
            continue;
        }
        let ones = word.count_ones() as usize;
        if k >= ones {
            k -= ones;
            continue;
        }
        return Some(w * 64 + select(word, k as u32) as usize);
    }
    None
}

/// The position of the `k`-th (from 0) set bit of `word`, which has more than `k`.
/// Branch-free where the machine has `pdep` (BMI2, in a build for it: where it deposits
/// bit `k` among the word's ones): `k` is a random pick, and a loop of `k` rounds missed
/// its exit on nearly every pick, which cost more than the rest of a small game's step.
#[inline(always)]
pub(crate) fn select(word: u64, k: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        safe_arch::population_deposit_u64(1u64 << k, word).trailing_zeros()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        select_by_clearing(word, k)
    }
}

/// [`select`] without `pdep`: the lowest set bit once the `k` below it are cleared. (A
/// binary search on the ones of its halves takes six `count_ones`, which without the
/// `popcnt` instruction — not in the x86-64 baseline — cost more than this loop on the
/// few legal moves of a word.)
#[inline(always)]
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "bmi2"),
    allow(dead_code, reason = "the fallback, and the tests' check of `pdep`")
)]
pub(crate) fn select_by_clearing(mut word: u64, k: u32) -> u32 {
    for _ in 0..k {
        word &= word - 1;
    }
    word.trailing_zeros()
}

/// Word `w` of `words` with the bits outside `lo..hi` cleared.
#[inline(always)]
pub(crate) fn masked_word(words: &[u64], w: usize, lo: usize, hi: usize) -> u64 {
    let mut word = words[w];
    if w == lo >> 6 {
        word &= !0u64 << (lo & 63);
    }
    if w == (hi - 1) >> 6 {
        word &= !0u64 >> (63 - ((hi - 1) & 63));
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ones_respects_ranges() {
        let mut bits = Bits::<3>::default();
        for i in [0, 5, 63, 64, 100, 130, 191] {
            bits.set(i);
        }
        assert_eq!(
            bits.ones(0, 192).collect::<Vec<_>>(),
            [0, 5, 63, 64, 100, 130, 191]
        );
        assert_eq!(bits.ones(5, 101).collect::<Vec<_>>(), [5, 63, 64, 100]);
        assert_eq!(bits.ones(6, 63).count(), 0);
        assert_eq!(bits.ones(64, 64).count(), 0);
    }

    /// A field or-ed into a state sets its bits from `lo` on, across two words too,
    /// and reads back as the same field.
    #[test]
    fn a_state_field_is_or_ed_in_place() {
        let mut state = Bits::<3>::default();
        state.or_field(0, 0b1011);
        state.or_field(60, 0xff);
        state.or_field(128, 1 << 63);
        assert_eq!(state.0, [0b1011 | 0xf << 60, 0xf, 1 << 63]);
        assert_eq!(state.field(60, 8), 0xff);
        assert_eq!(state.field(0, 4), 0b1011);
    }

    #[test]
    fn or_range_copies_only_the_range() {
        let mut from = Bits::<3>::default();
        for i in [0, 5, 63, 64, 100, 130, 191] {
            from.set(i);
        }
        for (lo, hi) in [(0, 192), (5, 101), (6, 63), (64, 64), (63, 65), (100, 191)] {
            let mut to = Bits::<3>::default();
            to.set(1);
            to.or_range(&from, lo, hi);
            let mut expected: Vec<usize> = from.ones(lo, hi).collect();
            expected.push(1);
            expected.sort_unstable();
            expected.dedup();
            assert_eq!(to.ones(0, 192).collect::<Vec<_>>(), expected, "{lo}..{hi}");
        }
    }

    #[test]
    fn ones_are_listed_in_order_from_the_base() {
        let mut out = Vec::new();
        push_ones(&[0b1010, 1 << 63, 1], 0, 192, 100, &mut out);
        assert_eq!(out, vec![101, 103, 227, 228]);
        out.clear();
        push_ones(&[0b1010, 1 << 63, 0b11], 3, 129, 0, &mut out);
        assert_eq!(out, vec![0, 124, 125]);
        let words = [0b100u64, 0];
        assert!(bit(&words, 2) && !bit(&words, 1) && !bit(&words, 64));
    }

    #[test]
    fn masked_bits_are_numbered_across_the_masks() {
        let words = [0b1011_0000u64, 0, !0];
        let masks = [(0, 0b1111_0000u64), (1, 0xff), (2, 0b101)];
        let mut out = Vec::new();
        push_masked(&words, &masks, 10, &mut out);
        // Word 0: bits 4, 5, 7 of mask bits 4..8 (indices 0, 1, 3); word 1 has none of
        // its 8; word 2: bits 0 and 2, indices 12 and 13.
        assert_eq!(out, vec![10, 11, 13, 22, 23]);
        assert_eq!(rank_in(0b1010_1010, 5), 2);
        assert_eq!(rank_in(!0, 63), 63);
        assert_eq!(rank_in(!0, 0), 0);
    }

    #[test]
    fn select_finds_every_set_bit() {
        for word in [
            1u64,
            1 << 63,
            !0,
            0x8000_0001_0000_0100,
            0x5555_5555_5555_5555,
        ] {
            let mut rest = word;
            let mut k = 0;
            while rest != 0 {
                assert_eq!(select(word, k), rest.trailing_zeros(), "{word:#x} #{k}");
                assert_eq!(select_by_clearing(word, k), rest.trailing_zeros());
                rest &= rest - 1;
                k += 1;
            }
        }
    }
}

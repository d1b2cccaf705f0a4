//! The random pick of a legal move among the set bits of a range of words, without
//! listing them all: the `k`-th set bit of a range read whole ([`pick_one_in`]), of
//! words listed in any order
//! ([`pick_one_listed`], which puts them in order by a summary bit per word or by a sort,
//! [`listed_in_summary`]), or the `k`-th smallest of a list of bit numbers
//! ([`pick_one_of`], narrowed a digit at a time by [`nth_smallest`]). A join reasoner
//! whose legal moves are a bitset store in text order picks its random move this way.

use crate::bits::{masked_word, rank_in, select};

/// The most words a range may span for [`pick_one_listed`] to mark its listed words in
/// a summary on the stack (64 words per summary word) rather than sort them.
const MAX_SUMMARY_WORDS: usize = 16;

/// The most words of a range per word holding a bit (and 8,192 more) for which
/// [`pick_one_listed`] marks the listed words in a summary on the heap, 32 words of the
/// range per summary entry, rather than sort them: the summary is cleared and scanned
/// whole, a few instructions per entry, 16 entries per listed word at most, against a
/// sort's few comparisons per listed word (amazons' moves: 15,626 words of a role's
/// range, 489 entries, 20 to 400 words holding a bit).
const HEAP_SUMMARY_WORDS_PER_LISTED: usize = 512;

/// The most listed words of a range past 1,024 words that [`pick_one_listed`] sorts
/// rather than mark in a summary on the heap (which it clears and scans whole).
const MAX_LISTED_SORTED: usize = 64;

/// Whether [`pick_one_listed`] may put `listed` words holding a bit in `lo..hi` in
/// order through a summary (on the stack, or on the heap when the range is not much
/// wider than the words holding a bit) rather than by sorting them.
pub fn listed_in_summary(lo: usize, hi: usize, listed: usize) -> bool {
    let words = (hi.max(lo + 1) - 1) / 64 - lo / 64 + 1;
    words / 64 < MAX_SUMMARY_WORDS
        || words <= HEAP_SUMMARY_WORDS_PER_LISTED * listed + MAX_SUMMARY_WORDS * 512
}

/// The number of set bits of `words` in `lo..hi` and the `k`-th of them (from 0, `k`
/// chosen by `pick` from the count), reading only the words listed in `nonzero` (the
/// words that hold a set bit, in any order: a sparse range of many words, a bitset
/// store's legal moves, is walked through them). The listed words of the range are
/// put in order by a summary bit per word — on the stack for a range of at most 1,024
/// words, else, past 64 of them in range (`MAX_LISTED_SORTED`), in `scratch` when
/// [`listed_in_summary`] — or by sorting them in `scratch`. `None` if the range holds
/// no set bit.
pub fn pick_one_listed(
    words: &[u64],
    nonzero: &[u32],
    lo: usize,
    hi: usize,
    scratch: &mut Vec<u32>,
    pick: impl FnOnce(usize) -> usize,
) -> Option<usize> {
    if lo >= hi {
        return None;
    }
    let (first, last) = (lo >> 6, (hi - 1) >> 6);
    let in_range = |w: u32| (w as usize).wrapping_sub(first) <= last - first;
    if (last - first) / 64 < MAX_SUMMARY_WORDS {
        let mut summary = [0u64; MAX_SUMMARY_WORDS];
        let count = summarise(&mut summary, words, nonzero, lo, hi);
        return nth_marked(words, &summary, first, lo, hi, count, pick);
    }
    // Few listed words of the range are sorted (a role with one move among another's
    // hundreds), many marked in a summary in `scratch` (counted first: a count reads
    // each listed word once, with no branch and no write).
    let listed = nonzero.iter().filter(|&&w| in_range(w)).count();
    scratch.clear();
    if listed > MAX_LISTED_SORTED && listed_in_summary(lo, hi, listed) {
        scratch.resize((last - first) / 32 + 1, 0);
        let count = summarise(scratch, words, nonzero, lo, hi);
        return nth_marked(words, scratch, first, lo, hi, count, pick);
    }
    scratch.extend(nonzero.iter().copied().filter(|&w| in_range(w)));
    scratch.sort_unstable();
    let count: usize = scratch
        .iter()
        .map(|&w| masked_word(words, w as usize, lo, hi).count_ones() as usize)
        .sum();
    nth_of_words(
        words,
        scratch.iter().map(|&w| w as usize),
        lo,
        hi,
        count,
        pick,
    )
}

/// Picks one of the set bits of `words` under `masks` (`(word, mask)` pairs, in
/// order) with `pick(count)`: its index among the masks' bits (see
/// [`crate::bits::push_masked`]), `None` if none is set. The `k`-th set bit in mask
/// order is the one `pick` returning `k` chooses, as in the list `push_masked` gives.
pub fn pick_one_masked(
    words: &[u64],
    masks: &[(u32, u64)],
    pick: impl FnOnce(usize) -> usize,
) -> Option<u32> {
    let count: u32 = masks
        .iter()
        .map(|&(w, mask)| (words[w as usize] & mask).count_ones())
        .sum();
    if count == 0 {
        return None;
    }
    let mut k = pick(count as usize) as u32;
    let mut first = 0;
    for &(w, mask) in masks {
        let word = words[w as usize] & mask;
        let ones = word.count_ones();
        if k < ones {
            return Some(first + rank_in(mask, select(word, k)));
        }
        k -= ones;
        first += mask.count_ones();
    }
    None
}

/// The most words whose moves [`MoveBits`] picks under their masks rather than by
/// counting their range whole: with few words, going through the masks costs less
/// than the range's first and last words (breakthrough's three: 40 instructions a
/// pick against 80); with many, more (capture the king's 29: 620 against 390).
pub const FEW_WORDS: usize = 4;

/// How a role's legal-move bits lie in a reasoner's words (its `(word, mask)` pairs,
/// as [`pick_one_masked`] takes them), read once so that a random pick takes the
/// cheapest way for that shape. The bits between a role's first and last move's that
/// are not its moves' (holes) must never be set, as in a ground reasoner's `d` (see
/// [`crate::ground::GroundRules::LEGAL_WORDS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveBits {
    /// No move.
    Empty,
    /// One word, under a mask: counted and selected in place.
    Word {
        /// The word.
        word: u32,
        /// Its moves' bits.
        mask: u64,
    },
    /// A few words ([`FEW_WORDS`] at most), under their masks: [`pick_one_masked`].
    Masked,
    /// More words: the range `lo..hi` of bits from the first move's to the last's,
    /// counted whole a word at a time ([`pick_one_in`]; checkers' 640 moves in ten
    /// words, capture the king's 1,793 in 29).
    Range {
        /// The first move's bit.
        lo: usize,
        /// The bit after the last move's.
        hi: usize,
        /// Whether the range has holes (a picked bit's move is then its rank among the
        /// masks' bits, not its distance from `lo`).
        holes: bool,
    },
}

impl MoveBits {
    /// The shape of the bits under `masks` (`(word, mask)` pairs by word, no mask
    /// empty).
    pub fn of(masks: &[(u32, u64)]) -> MoveBits {
        match *masks {
            [] => MoveBits::Empty,
            [(word, mask)] => MoveBits::Word { word, mask },
            _ if masks.len() <= FEW_WORDS => MoveBits::Masked,
            [(first, first_mask), .., (last, last_mask)] => {
                let lo = first as usize * 64 + first_mask.trailing_zeros() as usize;
                let hi = last as usize * 64 + 64 - last_mask.leading_zeros() as usize;
                let bits: usize = masks.iter().map(|&(_, m)| m.count_ones() as usize).sum();
                MoveBits::Range {
                    lo,
                    hi,
                    holes: bits != hi - lo,
                }
            }
        }
    }

    /// The index among the role's moves (bits in mask order) of the one `pick` chooses
    /// from their count, as [`pick_one_masked`] gives it; `None` if none is set.
    #[inline]
    pub fn pick(
        self,
        words: &[u64],
        masks: &[(u32, u64)],
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<u32> {
        match self {
            MoveBits::Empty => None,
            MoveBits::Word { word, mask } => {
                // Count the word's bits and select the picked one in place — the move
                // listed at that index, without listing them (pushing every legal move
                // into a list cost more than the rest of connect four's step together).
                let window = words[word as usize] & mask;
                let n = window.count_ones();
                if n == 0 {
                    return None;
                }
                Some(rank_in(mask, select(window, pick(n as usize) as u32)))
            }
            MoveBits::Masked => pick_one_masked(words, masks, pick),
            MoveBits::Range { lo, hi, holes } => {
                let bit = pick_one_in(words, lo, hi, pick)?;
                if !holes {
                    return Some((bit - lo) as u32);
                }
                let word = (bit / 64) as u32;
                let mut before = 0;
                for &(w, mask) in masks {
                    if w == word {
                        return Some(before + rank_in(mask, (bit % 64) as u32));
                    }
                    before += mask.count_ones();
                }
                None
            }
        }
    }
}

/// The `k`-th (from 0, `k` chosen by `pick` from the count) set bit of `words` in
/// `lo..hi`, reading every word of the range: the bit [`crate::bits::nth_one`] finds
/// for `pick(count_ones(..))`. One pass counts the bits and notes the first and last
/// words holding one; the picked bit is sought from the nearer of the two (a role out
/// of turn has one legal move among many words, found at once). `None` if the range
/// holds no set bit. (A ground reasoner's roles with hundreds of moves, checkers' 640
/// in ten words, pick this way.)
#[inline]
pub fn pick_one_in(
    words: &[u64],
    lo: usize,
    hi: usize,
    pick: impl FnOnce(usize) -> usize,
) -> Option<usize> {
    if lo >= hi {
        return None;
    }
    let (first, last) = (lo >> 6, (hi - 1) >> 6);
    let span = &words[first..=last];
    let (head, tail) = (!0u64 << (lo & 63), !0u64 >> (63 - ((hi - 1) & 63)));
    let word_at = |i: usize| {
        let mut word = span[i];
        word &= if i == 0 { head } else { !0 };
        word &= if i == span.len() - 1 { tail } else { !0 };
        word
    };
    // Counted whole, the bits of the first and last words outside the range taken off
    // once; the words holding a bit marked (the first 64: a longer range is walked
    // from its ends).
    let (mut whole, mut set) = (0, 0u64);
    for (i, &word) in span.iter().enumerate() {
        whole += word.count_ones();
        set |= u64::from(word != 0) << (i & 63);
    }
    let outside = (span[0] & !head).count_ones() + (span[span.len() - 1] & !tail).count_ones();
    let count = (whole - outside) as usize;
    if count == 0 {
        return None;
    }
    let (first_set, last_set) = if span.len() > 64 {
        (0, span.len() - 1)
    } else {
        (
            set.trailing_zeros() as usize,
            63 - set.leading_zeros() as usize,
        )
    };
    let k = pick(count);
    let at = |i: usize, k: usize| Some((first + i) * 64 + select(word_at(i), k as u32) as usize);
    if k < count / 2 {
        let mut k = k;
        for i in first_set..last_set + 1 {
            let ones = word_at(i).count_ones() as usize;
            if k < ones {
                return at(i, k);
            }
            k -= ones;
        }
    } else {
        // The picked bit's place counted from the last set bit, backwards.
        let mut from_end = count - 1 - k;
        for i in (first_set..last_set + 1).rev() {
            let ones = word_at(i).count_ones() as usize;
            if from_end < ones {
                return at(i, ones - 1 - from_end);
            }
            from_end -= ones;
        }
    }
    None
}

/// An entry of a summary of words: a bit per word ([`pick_one_listed`]).
trait SummaryEntry: Copy + Into<u64> {
    /// The words an entry marks.
    const BITS: usize;
    /// The entry with bit `i` set too.
    fn with(self, i: usize) -> Self;
}

impl SummaryEntry for u64 {
    const BITS: usize = 64;
    fn with(self, i: usize) -> Self {
        self | 1 << i
    }
}

impl SummaryEntry for u32 {
    const BITS: usize = 32;
    fn with(self, i: usize) -> Self {
        self | 1 << i
    }
}

/// Marks in `summary` (cleared, covering the words of `lo..hi`) the words of `nonzero`
/// in that range: bit `i` of entry `s` is word `lo / 64 + s * BITS + i`. The number of
/// set bits of `words` in the range.
fn summarise<M: SummaryEntry>(
    summary: &mut [M],
    words: &[u64],
    nonzero: &[u32],
    lo: usize,
    hi: usize,
) -> usize {
    let (first, last) = (lo >> 6, (hi - 1) >> 6);
    let mut count = 0;
    for &w in nonzero {
        let w = w as usize;
        let i = w.wrapping_sub(first);
        if i <= last - first {
            summary[i / M::BITS] = summary[i / M::BITS].with(i % M::BITS);
            count += masked_word(words, w, lo, hi).count_ones() as usize;
        }
    }
    count
}

/// The `k`-th (chosen by `pick` from `count`, the set bits of `words` in `lo..hi`) set
/// bit of the words marked in `summary` (see [`summarise`]), in order. `None` if
/// `count` is 0.
fn nth_marked<M: SummaryEntry>(
    words: &[u64],
    summary: &[M],
    first: usize,
    lo: usize,
    hi: usize,
    count: usize,
    pick: impl FnOnce(usize) -> usize,
) -> Option<usize> {
    let marked = summary.iter().enumerate().flat_map(|(s, &marks)| {
        let mut rest: u64 = marks.into();
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let w = first + s * M::BITS + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                w
            })
        })
    });
    nth_of_words(words, marked, lo, hi, count, pick)
}

/// The `k`-th (chosen by `pick` from `count`, the set bits of `words` in `lo..hi`) set
/// bit of the words `in_order` (ascending, every word of the range holding a bit).
/// `None` if `count` is 0.
fn nth_of_words(
    words: &[u64],
    in_order: impl Iterator<Item = usize>,
    lo: usize,
    hi: usize,
    count: usize,
    pick: impl FnOnce(usize) -> usize,
) -> Option<usize> {
    if count == 0 {
        return None;
    }
    let mut k = pick(count);
    for w in in_order {
        let word = masked_word(words, w, lo, hi);
        let ones = word.count_ones() as usize;
        if k < ones {
            return Some(w * 64 + select(word, k as u32) as usize);
        }
        k -= ones;
    }
    None
}

/// The `k`-th smallest (from 0, `k` chosen by `pick` from the count) of the values of
/// `values` in `lo..hi`, which are distinct (a bitset store's rows' bits, in the order
/// inserted: a wide range of many words holding a bit, amazons' moves). The values in
/// range are copied into `scratch` in one pass, then narrowed by their digits
/// ([`nth_smallest`]). `None` if none is in range.
pub fn pick_one_of(
    values: &[u32],
    lo: usize,
    hi: usize,
    scratch: &mut Vec<u32>,
    pick: impl FnOnce(usize) -> usize,
) -> Option<usize> {
    let lo = u32::try_from(lo).ok()?;
    let width = u32::try_from(hi.min(u32::MAX as usize))
        .ok()?
        .checked_sub(lo)?;
    scratch.clear();
    let (mut min, mut max) = (u32::MAX, 0);
    for &v in values {
        if v.wrapping_sub(lo) < width {
            scratch.push(v);
            min = min.min(v);
            max = max.max(v);
        }
    }
    if scratch.is_empty() {
        return None;
    }
    let k = pick(scratch.len());
    Some(nth_smallest(scratch, k, (min, max)) as usize)
}

/// The most values [`nth_smallest`] sorts; more are narrowed by a digit first.
const MAX_SORTED: usize = 8;

/// The `k`-th smallest (from 0) of `values` (`k` < their number; `bounds` their least
/// and greatest), reordering and shrinking them: while more than a few are left, they
/// are counted by the next 8 bits below their common leading bits, and only those of
/// the digit holding the `k`-th are kept (two passes over the values per digit, a few
/// instructions per value; a selection by partitioning compares each several times).
pub fn nth_smallest(values: &mut Vec<u32>, mut k: usize, bounds: (u32, u32)) -> u32 {
    debug_assert!(k < values.len());
    let (mut min, mut max) = bounds;
    while values.len() > MAX_SORTED {
        let span = max - min;
        if span == 0 {
            return min;
        }
        let shift = (32 - span.leading_zeros()).saturating_sub(8);
        let mut counts = [0u32; 256];
        for &v in values.iter() {
            counts[((v - min) >> shift) as usize] += 1;
        }
        let mut digit = 0;
        while k >= counts[digit] as usize {
            k -= counts[digit] as usize;
            digit += 1;
        }
        let (base, mut kept) = (min, 0);
        (min, max) = (u32::MAX, 0);
        for i in 0..values.len() {
            let v = values[i];
            if ((v - base) >> shift) as usize == digit {
                values[kept] = v;
                kept += 1;
                min = min.min(v);
                max = max.max(v);
            }
        }
        values.truncate(kept);
    }
    values.sort_unstable();
    values[k]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{count_ones, nth_one, push_masked, push_ones};
    use proptest::strategy::Strategy as _;

    /// A pick among masked bits is the move at that index of the masked list, for
    /// every index, and none where no masked bit is set.
    #[test]
    fn masked_picks_agree_with_the_masked_list() {
        let words = [0xf0f0_0000_0000_000fu64, 0, 1 << 63 | 0b101];
        let masks = [(0, 0x00f0_0000_0000_00f3u64), (1, !0), (2, 1 << 63 | 0b100)];
        let mut listed = Vec::new();
        push_masked(&words, &masks, 0, &mut listed);
        assert_eq!(listed.len(), 8);
        for (k, &expected) in listed.iter().enumerate() {
            let picked = pick_one_masked(&words, &masks, |n| {
                assert_eq!(n, listed.len());
                k
            });
            assert_eq!(picked, Some(expected), "pick {k}");
        }
        assert_eq!(pick_one_masked(&words, &[(1, !0)], |_| 0), None);
        assert_eq!(pick_one_masked(&words, &[], |_| 0), None);
    }

    /// A role's bits are one word, or one range across words, with holes or without.
    #[test]
    fn move_bits_have_the_shape_of_their_masks() {
        assert_eq!(
            MoveBits::of(&[(3, 0b1010)]),
            MoveBits::Word {
                word: 3,
                mask: 0b1010
            }
        );
        let range = [(2, !0u64 << 60), (3, !0), (4, !0), (5, !0), (6, 0xff)];
        assert_eq!(
            MoveBits::of(&range),
            MoveBits::Range {
                lo: 2 * 64 + 60,
                hi: 6 * 64 + 8,
                holes: false
            }
        );
        assert_eq!(MoveBits::of(&range[..2]), MoveBits::Masked);
        let holes = [(2, !0), (4, !0), (5, 1), (6, 1), (7, 1 << 5)];
        assert_eq!(
            MoveBits::of(&holes),
            MoveBits::Range {
                lo: 128,
                hi: 7 * 64 + 6,
                holes: true
            }
        );
        assert_eq!(MoveBits::of(&[]), MoveBits::Empty);
    }

    proptest::proptest! {
        /// Every pick among masked words, sparse or dense, one bit or many, is the move
        /// listed at that index, whatever shape the bits have.
        #[test]
        fn masked_picks_are_the_listed_moves(
            words in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(0u64),
                    (0u32..64).prop_map(|b| 1u64 << b),
                    proptest::num::u64::ANY,
                ],
                1..12,
            ),
            masks in proptest::collection::vec((0usize..12, proptest::num::u64::ANY), 0..12),
        ) {
            let masks: Vec<(u32, u64)> = masks
                .into_iter()
                .map(|(w, mask)| ((w % words.len()) as u32, mask))
                .collect();
            let mut listed = Vec::new();
            push_masked(&words, &masks, 0, &mut listed);
            for (k, &expected) in listed.iter().enumerate() {
                let picked = pick_one_masked(&words, &masks, |n| {
                    assert_eq!(n, listed.len());
                    k
                });
                proptest::prop_assert_eq!(picked, Some(expected));
            }
            if listed.is_empty() {
                proptest::prop_assert_eq!(pick_one_masked(&words, &masks, |_| 0), None);
            }
        }

        /// A role's moves picked by the shape of their bits are the moves listed, with
        /// holes (never set, as in a ground reasoner) or without, the words around the
        /// role's range holding anything.
        #[test]
        fn shaped_picks_are_the_listed_moves(
            mut words in proptest::collection::vec(proptest::num::u64::ANY, 1..12),
            masks in proptest::collection::btree_map(0u32..12, proptest::num::u64::ANY, 0..12),
        ) {
            let masks: Vec<(u32, u64)> = masks
                .into_iter()
                .filter(|&(w, mask)| (w as usize) < words.len() && mask != 0)
                .collect();
            if let MoveBits::Range { lo, hi, .. } = MoveBits::of(&masks) {
                for bit in lo..hi {
                    let (w, b) = ((bit / 64) as u32, bit % 64);
                    if !masks.iter().any(|&(mw, m)| mw == w && m >> b & 1 != 0) {
                        words[w as usize] &= !(1 << b);
                    }
                }
            }
            let mut listed = Vec::new();
            push_masked(&words, &masks, 0, &mut listed);
            let shape = MoveBits::of(&masks);
            for (k, &expected) in listed.iter().enumerate() {
                let picked = shape.pick(&words, &masks, |n| {
                    assert_eq!(n, listed.len());
                    k
                });
                proptest::prop_assert_eq!(picked, Some(expected));
            }
            if listed.is_empty() {
                proptest::prop_assert_eq!(shape.pick(&words, &masks, |_| 0), None);
            }
        }

        /// Ranges of bits across words (and ranges cut into masks) pick as masks do.
        #[test]
        fn ranged_picks_are_the_listed_moves(
            words in proptest::collection::vec(proptest::num::u64::ANY, 1..8),
            lo in 0usize..512,
            len in 1usize..512,
        ) {
            let total = words.len() * 64;
            let lo = lo % total;
            let hi = (lo + len).min(total);
            let masks: Vec<(u32, u64)> = (lo / 64..=(hi - 1) / 64)
                .map(|w| {
                    let from = lo.max(w * 64) - w * 64;
                    let to = hi.min(w * 64 + 64) - w * 64;
                    let mask = if to - from == 64 { !0 } else { ((1u64 << (to - from)) - 1) << from };
                    (w as u32, mask)
                })
                .collect();
            let shape = MoveBits::of(&masks);
            if masks.len() > FEW_WORDS {
                proptest::prop_assert_eq!(shape, MoveBits::Range { lo, hi, holes: false });
            }
            let mut listed = Vec::new();
            push_masked(&words, &masks, 0, &mut listed);
            for (k, &expected) in listed.iter().enumerate() {
                proptest::prop_assert_eq!(shape.pick(&words, &masks, |_| k), Some(expected));
            }
        }
    }

    /// Counting and indexing the set bits of a range agree with listing them, on
    /// ranges that start and end inside words and span several.
    #[test]
    fn counted_and_indexed_ones_agree_with_the_list() {
        let words = [
            0xf0f0_0000_0000_000fu64,
            0,
            1 << 63 | 0b101,
            0x8000_0000_0000_0001,
        ];
        for lo in [0, 3, 60, 64, 130, 191] {
            for hi in [lo, lo + 1, 65, 129, 192, 200, 256] {
                let mut listed = Vec::new();
                push_ones(&words, lo, hi, lo as u32, &mut listed);
                assert_eq!(count_ones(&words, lo, hi), listed.len(), "{lo}..{hi}");
                for (k, &bit) in listed.iter().enumerate() {
                    assert_eq!(
                        nth_one(&words, lo, hi, k),
                        Some(bit as usize),
                        "{lo}..{hi} #{k}"
                    );
                }
                assert_eq!(nth_one(&words, lo, hi, listed.len()), None);
                // Read whole: the same count and the same k-th.
                let mut counted = 0;
                pick_one_in(&words, lo, hi, |n| {
                    counted = n;
                    0
                });
                assert_eq!(counted, listed.len(), "{lo}..{hi}");
                for (k, &bit) in listed.iter().enumerate() {
                    let picked = pick_one_in(&words, lo, hi, |_| k);
                    assert_eq!(picked, Some(bit as usize), "{lo}..{hi} #{k}");
                }
                // Through the nonzero words listed out of order (as a bitset store
                // lists them, by first bit set): the same count and the same k-th.
                let nonzero = [3, 0, 2];
                let mut scratch = Vec::new();
                let mut counted = None;
                let first = pick_one_listed(&words, &nonzero, lo, hi, &mut scratch, |n| {
                    counted = Some(n);
                    0
                });
                assert_eq!(counted.unwrap_or(0), listed.len(), "{lo}..{hi}");
                assert_eq!(first, listed.first().map(|&b| b as usize), "{lo}..{hi}");
                for (k, &bit) in listed.iter().enumerate() {
                    let picked = pick_one_listed(&words, &nonzero, lo, hi, &mut scratch, |_| k);
                    assert_eq!(picked, Some(bit as usize), "{lo}..{hi} #{k}");
                }
            }
        }
    }

    /// A range of more than 1,024 words puts its listed words in order through a
    /// summary on the heap when many are in range and the range is not far wider, else
    /// by sorting them; every way the k-th set bit is the one counting gives.
    #[test]
    fn listed_words_of_a_wide_range_are_taken_in_order() {
        let mut words = vec![0u64; 70_000];
        let mut nonzero = vec![1999u32, 3, 1500, 64, 39_999, 700, 1024, 69_999];
        nonzero.extend((0..100).map(|i| 2_100 + 97 * i));
        for (i, &w) in nonzero.iter().enumerate() {
            words[w as usize] = 0b1001 << (i % 60) | 1 << 63;
        }
        let mut scratch = Vec::new();
        // (range, whether its listed words are marked in a summary on the heap)
        for (lo, hi, summarised) in [
            (0, 4_480_000, false),
            (3 * 64 + 1, 1999 * 64 + 4, false),
            (2_000 * 64 + 5, 12_000 * 64, true),
            (1, 40_000 * 64 + 9, true),
            (64 * 64, 64 * 64 + 64, false),
        ] {
            let listed = nonzero
                .iter()
                .filter(|&&w| (lo / 64..=(hi - 1) / 64).contains(&(w as usize)))
                .count();
            let wide = (hi - 1) / 64 - lo / 64 >= 64 * MAX_SUMMARY_WORDS;
            assert_eq!(
                wide && listed > MAX_LISTED_SORTED && listed_in_summary(lo, hi, listed),
                summarised,
                "{lo}..{hi}"
            );
            let total = count_ones(&words, lo, hi);
            for k in 0..total {
                let picked = pick_one_listed(&words, &nonzero, lo, hi, &mut scratch, |n| {
                    assert_eq!(n, total, "{lo}..{hi}");
                    k
                });
                assert_eq!(picked, nth_one(&words, lo, hi, k), "{lo}..{hi} #{k}");
            }
        }
    }

    /// The picked value is the `k`-th of the values in range in ascending order, for
    /// every `k`: values spread over a wide range, clustered (moves of a few pieces in
    /// a block of a million bits), equal to the range's ends, or few.
    #[test]
    fn picked_values_are_the_kth_in_order() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut sets: Vec<Vec<u32>> = vec![vec![5], vec![9, 3, 7], (0..40).rev().collect()];
        for clusters in [1, 4, 30] {
            let mut set = std::collections::BTreeSet::new();
            for c in 0..clusters {
                let base = 1_000_000 + c * 31_337;
                for _ in 0..(480 / clusters) {
                    set.insert(base + rng.random_range(0..10_000u32));
                }
            }
            let mut values: Vec<u32> = set.into_iter().collect();
            values.sort_by_key(|v| v.wrapping_mul(2_654_435_761));
            sets.push(values);
        }
        let mut scratch = Vec::new();
        for values in &sets {
            let max = *values.iter().max().expect("a set of values") as usize;
            let min = *values.iter().min().expect("a set of values") as usize;
            for (lo, hi) in [
                (0, max + 1),
                (min, max + 1),
                (min + 1, max),
                (max + 1, max + 9),
            ] {
                let mut in_range: Vec<u32> = values
                    .iter()
                    .copied()
                    .filter(|&v| (lo..hi).contains(&(v as usize)))
                    .collect();
                in_range.sort_unstable();
                if in_range.is_empty() {
                    assert_eq!(pick_one_of(values, lo, hi, &mut scratch, |_| 0), None);
                    continue;
                }
                for k in (0..in_range.len()).step_by(in_range.len().div_ceil(60)) {
                    let picked = pick_one_of(values, lo, hi, &mut scratch, |n| {
                        assert_eq!(n, in_range.len(), "{lo}..{hi}");
                        k
                    });
                    assert_eq!(picked, Some(in_range[k] as usize), "{lo}..{hi} #{k}");
                }
            }
        }
    }
}

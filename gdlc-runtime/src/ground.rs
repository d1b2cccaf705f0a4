//! What a *ground* reasoner runs on: games whose rules gdlc instantiated into ground
//! atoms at compile time (`gdlc::ground`), one bit per reachable fluent.
//!
//! The generated module implements [`GroundRules`]: straight-line code per entry point
//! over the state's words (the goals of large games as a [`crate::program`]), plus
//! constant tables of texts. [`Ground`] turns it into a
//! [`Game`]:
//!
//! - **The state** is [`Bits<W>`]: bit `i` is the `i`-th reachable fluent of
//!   [`GroundRules::FLUENTS`], in the compiler's layout order (numbers by value, so a
//!   board's neighbours lie at one distance; `state_to_kif` sorts the texts).
//! - **A move** is a `u32`, its index in [`GroundRules::MOVES`]: every role's legal
//!   moves in one range (`ROLE_MOVES[r]..ROLE_MOVES[r + 1]`), in layout order inside
//!   it like the fluents (a move's coordinates along the game's chains, so renaming
//!   them does not scatter the legal bits), and a legal-move list, in that order,
//!   needs no sort, no interning and no hashing.
//! - **A percept** is a `u32` into [`GroundRules::PERCEPTS`] (sorted texts).
//!
//! A state given as text must consist of reachable fluents: the ground rules are only
//! correct on those (any other fluent is "not a fluent of this game").

use crate::compiled::Bits;
use crate::game::{Game, GoalError, RoleIndex, StateError};
use crate::kif;

/// The generated half of a ground reasoner: constant tables and three evaluation
/// functions over the state `s` (`W` words), the derived state atoms `d` (`D` words)
/// and the move-dependent atoms `m` (`M` words).
pub trait GroundRules<const W: usize, const D: usize, const M: usize> {
    /// Role names in description order.
    const ROLES: &'static [&'static str];
    /// Reachable fluents as canonical KIF text, in layout order (not text order:
    /// integers by value); bit `i` of the state is `FLUENTS[i]`.
    const FLUENTS: &'static [&'static str];
    /// Every role's possible moves as canonical KIF text; role `r`'s are
    /// `ROLE_MOVES[r]..ROLE_MOVES[r + 1]`, in layout order.
    const MOVES: &'static [&'static str];
    /// Start of each role's move range, and the end of the last.
    const ROLE_MOVES: &'static [u32];
    /// Possible percepts as canonical KIF text, sorted.
    const PERCEPTS: &'static [&'static str];
    /// The initial state.
    const INIT: [u64; W];
    /// Per role, the bit of `d` holding the legality of its first move; its moves'
    /// bits follow in move order.
    const LEGAL_BITS: &'static [u32];
    /// The bit of `d` holding `terminal` (`None`: never terminal).
    const TERMINAL_BIT: Option<u32>;
    /// Per role, its goal atoms: the bit of `d` and the value's text.
    const GOALS: &'static [&'static [(u32, &'static str)]];
    /// Per role, its percept atoms: the bit of `m` and the percept, by percept.
    const SEES: &'static [&'static [(u32, u32)]];
    /// Whether the goals are worth remembering by state (in [`Ground`], every role's
    /// value by state while states repeat): a program run as data (too long for
    /// straight-line code), not a few literals.
    const GOALS_REMEMBERED: bool = false;

    /// Computes into `d` (cleared first) every state atom that `terminal`, `legal`,
    /// `next` and `sees` need.
    fn eval_state(s: &[u64; W], d: &mut [u64; D]);
    /// Adds to `d` the state atoms only goals need (after [`Self::eval_state`]).
    fn eval_goals(s: &[u64; W], d: &mut [u64; D]);
    /// Computes the move-dependent atoms into `m` (cleared first) and the next state
    /// into `n`, from the state, its atoms and the joint move (one move per role).
    fn eval_moves(s: &[u64; W], d: &[u64; D], joint: &[u32], m: &mut [u64; M], n: &mut [u64; W]);
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

/// The position of the `k`-th (from 0) set bit of `word`, which has more than `k`: the
/// lowest set bit once the `k` below it are cleared. (A binary search on the ones of
/// its halves takes six `count_ones`, which without the `popcnt` instruction — not in
/// the x86-64 baseline — cost more than this loop on the few legal moves of a word.)
#[inline(always)]
fn select(mut word: u64, k: u32) -> u32 {
    for _ in 0..k {
        word &= word - 1;
    }
    word.trailing_zeros()
}

/// Word `w` of `words` with the bits outside `lo..hi` cleared.
#[inline(always)]
fn masked_word(words: &[u64], w: usize, lo: usize, hi: usize) -> u64 {
    let mut word = words[w];
    if w == lo >> 6 {
        word &= !0u64 << (lo & 63);
    }
    if w == (hi - 1) >> 6 {
        word &= !0u64 >> (63 - ((hi - 1) & 63));
    }
    word
}

/// Which atoms of the cached state are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cached {
    Nothing,
    State,
    Goals,
}

/// The lookups of a [`GoalMemo`] after which it stops unless one in eight hit.
const GOAL_MEMO_TRIAL: u64 = 4096;

/// The most states a [`GoalMemo`] holds (it reads them back, adding none, after).
const MAX_GOAL_MEMO: usize = 1 << 16;

/// Every role's goal value in states met before, by state, for rules whose goals are a
/// long program ([`GroundRules::GOALS_REMEMBERED`]): goals are a function of the state
/// alone, and in some games few states end a game — a one-move game of guesses between
/// 0 and 100, its goals tens of thousands of literals over the two guesses, ends in at
/// most 10,201 states. It is kept while it pays: after [`GOAL_MEMO_TRIAL`] lookups with
/// fewer than one hit in eight (a game whose ends rarely repeat), it is dropped and
/// never asked again; past [`MAX_GOAL_MEMO`] states it adds no more.
#[derive(Clone, Debug, Default)]
struct GoalMemo<const W: usize> {
    /// Each state's first value in `values` (one per role).
    at: rustc_hash::FxHashMap<[u64; W], u32>,
    values: Vec<u8>,
    /// A state's values as they are gathered, before [`GoalMemo::remember`].
    scratch: Vec<u8>,
    lookups: u64,
    hits: u64,
    off: bool,
}

impl<const W: usize> GoalMemo<W> {
    /// The goal values of `state`, one per role, if remembered.
    fn get(&mut self, state: &[u64; W], roles: usize) -> Option<&[u8]> {
        if self.off {
            return None;
        }
        self.lookups += 1;
        let Some(&at) = self.at.get(state) else {
            if self.lookups >= GOAL_MEMO_TRIAL && self.hits * 8 < self.lookups {
                *self = GoalMemo {
                    off: true,
                    ..GoalMemo::default()
                };
            }
            return None;
        };
        self.hits += 1;
        Some(&self.values[at as usize..at as usize + roles])
    }

    /// Remembers `state`'s goal values (one per role).
    fn remember(&mut self, state: &[u64; W], values: &[u8]) {
        if self.off || self.at.len() >= MAX_GOAL_MEMO {
            return;
        }
        self.at.insert(*state, self.values.len() as u32);
        self.values.extend_from_slice(values);
    }
}

/// A [`Game`] over generated ground rules, caching the atoms of the last state.
#[derive(Clone, Debug)]
pub struct Ground<R, const W: usize, const D: usize, const M: usize> {
    state: [u64; W],
    cached: Cached,
    d: [u64; D],
    m: [u64; M],
    goal_memo: GoalMemo<W>,
    rules: std::marker::PhantomData<R>,
}

impl<R: GroundRules<W, D, M>, const W: usize, const D: usize, const M: usize> Default
    for Ground<R, W, D, M>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<R: GroundRules<W, D, M>, const W: usize, const D: usize, const M: usize> Ground<R, W, D, M> {
    /// The reasoner.
    pub fn new() -> Self {
        Ground {
            state: [0; W],
            cached: Cached::Nothing,
            d: [0; D],
            m: [0; M],
            goal_memo: GoalMemo {
                off: !R::GOALS_REMEMBERED,
                ..GoalMemo::default()
            },
            rules: std::marker::PhantomData,
        }
    }

    /// Role `role`'s goal value from the goal atoms in `d`.
    fn goal_in_d(&self, role: RoleIndex) -> Result<u8, GoalError> {
        let mut held = crate::game::HeldGoals::default();
        for &(b, text) in R::GOALS[role] {
            if bit(&self.d, b as usize) {
                match kif::goal_value(text) {
                    Some(value) => held.add(value),
                    None => return Err(GoalError::NotANumber(text.to_owned())),
                }
            }
        }
        held.value()
    }

    #[inline]
    fn load(&mut self, s: &[u64; W]) {
        if self.cached == Cached::Nothing || self.state != *s {
            self.state = *s;
            R::eval_state(s, &mut self.d);
            self.cached = Cached::State;
        }
    }
}

impl<R: GroundRules<W, D, M>, const W: usize, const D: usize, const M: usize> Game
    for Ground<R, W, D, M>
{
    type State = Bits<W>;
    type Move = u32;
    type Percept = u32;

    fn num_roles(&self) -> usize {
        R::ROLES.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        R::ROLES[role]
    }

    fn initial_state(&mut self) -> Bits<W> {
        Bits(R::INIT)
    }

    fn is_terminal(&mut self, state: &Bits<W>) -> bool {
        self.load(&state.0);
        R::TERMINAL_BIT.is_some_and(|b| bit(&self.d, b as usize))
    }

    fn legal_moves(&mut self, state: &Bits<W>, role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        self.load(&state.0);
        let base = R::ROLE_MOVES[role];
        let count = (R::ROLE_MOVES[role + 1] - base) as usize;
        let lo = R::LEGAL_BITS[role] as usize;
        push_ones(&self.d, lo, lo + count, base, out);
    }

    fn random_legal_move(
        &mut self,
        state: &Bits<W>,
        role: RoleIndex,
        scratch: &mut Vec<u32>,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<u32> {
        self.load(&state.0);
        let base = R::ROLE_MOVES[role];
        let lo = R::LEGAL_BITS[role] as usize;
        let hi = lo + (R::ROLE_MOVES[role + 1] - base) as usize;
        if hi - lo <= 64 {
            // A few moves: listing them is as cheap as counting (measured on
            // tictactoe, where counting and selecting cost 7–16 % of the playouts/s).
            scratch.clear();
            push_ones(&self.d, lo, hi, base, scratch);
            return (!scratch.is_empty()).then(|| scratch[pick(scratch.len())]);
        }
        let n = count_ones(&self.d, lo, hi);
        if n == 0 {
            return None;
        }
        let bit = nth_one(&self.d, lo, hi, pick(n)).expect("fewer than n set bits");
        Some(base + (bit - lo) as u32)
    }

    fn next_state(&mut self, state: &Bits<W>, joint: &[u32]) -> Bits<W> {
        self.load(&state.0);
        let mut next = [0; W];
        R::eval_moves(&state.0, &self.d, joint, &mut self.m, &mut next);
        Bits(next)
    }

    fn goal(&mut self, state: &Bits<W>, role: RoleIndex) -> Result<u8, GoalError> {
        let goals_here = self.cached == Cached::Goals && self.state == state.0;
        if !(self.goal_memo.off || goals_here)
            && let Some(values) = self.goal_memo.get(&state.0, R::ROLES.len())
        {
            return Ok(values[role]);
        }
        self.load(&state.0);
        if self.cached != Cached::Goals {
            R::eval_goals(&state.0, &mut self.d);
            self.cached = Cached::Goals;
            if !self.goal_memo.off {
                // Every role's value, remembered only when each has one (gathered in
                // the memo's own scratch: nothing allocated once it has grown).
                let mut values = std::mem::take(&mut self.goal_memo.scratch);
                values.clear();
                for r in 0..R::ROLES.len() {
                    match self.goal_in_d(r) {
                        Ok(value) => values.push(value),
                        Err(_) => break,
                    }
                }
                if values.len() == R::ROLES.len() {
                    self.goal_memo.remember(&state.0, &values);
                }
                self.goal_memo.scratch = values;
            }
        }
        self.goal_in_d(role)
    }

    fn sees(&mut self, state: &Bits<W>, joint: &[u32], role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        self.load(&state.0);
        let mut next = [0; W];
        R::eval_moves(&state.0, &self.d, joint, &mut self.m, &mut next);
        for &(b, percept) in R::SEES[role] {
            if bit(&self.m, b as usize) {
                out.push(percept);
            }
        }
    }

    fn move_to_kif(&self, mv: u32) -> String {
        R::MOVES[mv as usize].to_owned()
    }

    fn percept_to_kif(&self, percept: u32) -> String {
        R::PERCEPTS[percept as usize].to_owned()
    }

    fn state_to_kif(&self, state: &Bits<W>) -> Vec<String> {
        let mut ones = Vec::new();
        push_ones(&state.0, 0, W * 64, 0, &mut ones);
        let mut texts: Vec<String> = ones
            .into_iter()
            .map(|i| R::FLUENTS[i as usize].to_owned())
            .collect();
        texts.sort_unstable();
        texts
    }

    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<Bits<W>, StateError> {
        let mut state = Bits([0; W]);
        for text in fluents {
            let canonical = kif::canonical(text).map_err(StateError::Syntax)?;
            let i = R::FLUENTS
                .iter()
                .position(|&f| f == canonical)
                .ok_or_else(|| StateError::UnknownFluent(canonical.clone()))?;
            state.0[i >> 6] |= 1 << (i & 63);
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_goal_memo_reads_back_what_it_remembered_while_it_pays() {
        let mut memo = GoalMemo::<2>::default();
        assert_eq!(memo.get(&[1, 2], 2), None);
        memo.remember(&[1, 2], &[100, 0]);
        memo.remember(&[3, 4], &[50, 50]);
        assert_eq!(memo.get(&[1, 2], 2), Some(&[100, 0][..]));
        assert_eq!(memo.get(&[3, 4], 2), Some(&[50, 50][..]));
        assert_eq!(memo.get(&[2, 1], 2), None);
        // Hits keep it: one lookup in two hits.
        for i in 0..GOAL_MEMO_TRIAL {
            let state = if i % 2 == 0 { [1, 2] } else { [9, i] };
            memo.get(&state, 2);
        }
        assert!(!memo.off);
        // States that never repeat drop it, and it is asked no more.
        let mut misses = GoalMemo::<1>::default();
        for i in 0..GOAL_MEMO_TRIAL {
            assert_eq!(misses.get(&[i], 1), None);
            misses.remember(&[i], &[i as u8]);
        }
        assert!(misses.off && misses.at.is_empty() && misses.values.is_empty());
        misses.remember(&[0], &[7]);
        assert_eq!(misses.get(&[0], 1), None);
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
                rest &= rest - 1;
                k += 1;
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

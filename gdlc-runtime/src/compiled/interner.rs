//! [`Interner`]: tuples (a game's moves or its percepts) numbered in order of first
//! sight, written as canonical KIF text when asked, and sorted and selected in text
//! order — by keys read from their columns while a [`TextOrder`] holds, else by ranking
//! their texts.

use super::layout::{Coder, Layout};
use super::store::Store;
use super::text_order::TextOrder;
use super::{NONE, Sym};

/// Tuples numbered in order of first sight, with their canonical KIF text and their
/// rank in text order.
#[derive(Clone, Debug)]
pub struct Interner {
    tuples: Store,
    /// The texts of the first ids, made only when ranking needs them: while `order`
    /// holds, none (a playout never needs a move's text); once it is dropped, every
    /// id's ([`Self::text`] makes the others from their tuples).
    texts: Vec<String>,
    /// Texts made for [`Self::text`] while `texts` lacks them (a playout printed move by
    /// move asks for the same ones again and again).
    shown: std::cell::RefCell<Vec<Option<String>>>,
    ranks: Vec<u32>,
    /// Ids below this are ranked.
    ranked: usize,
    /// Full rankings done (see [`Self::sort`]).
    rankings: usize,
    /// Scratch of [`Self::sort`]: the ranked ids as packed keys, the unranked ids.
    keys: Vec<u64>,
    late: Vec<u32>,
    /// When the tuples have a small dense numbering: number → id (`NONE` if unseen).
    dense: Option<(Coder, Vec<u32>)>,
    /// When the tuples' text order follows from their columns ([`TextOrder`]): each
    /// id's key in that order, so lists sort and select by key and no text is ranked.
    /// Dropped for good if a tuple has no key.
    order: Option<TextOrder>,
    order_keys: Vec<u64>,
    /// Scratch of the keyed sort and selection: (key, id).
    keyed: Vec<(u64, u32)>,
}

/// The largest dense numbering an [`Interner`] keeps a direct table for.
const MAX_DENSE: usize = 1 << 20;

impl Interner {
    pub(super) fn new(arity: usize, layout: Option<(&'static Layout, usize)>) -> Self {
        Interner {
            tuples: Store::hashed(arity, &[]),
            texts: Vec::new(),
            shown: std::cell::RefCell::new(Vec::new()),
            ranks: Vec::new(),
            ranked: 0,
            rankings: 0,
            keys: Vec::new(),
            late: Vec::new(),
            dense: layout.filter(|(layout, _)| layout.bits <= MAX_DENSE).map(
                |(layout, num_symbols)| {
                    (
                        Coder::new(layout, arity, num_symbols),
                        vec![NONE; layout.bits],
                    )
                },
            ),
            order: None,
            order_keys: Vec::new(),
            keyed: Vec::new(),
        }
    }

    /// Fills `keyed` with the (key in text order, id) of each id (see `order`).
    fn key_ids(&mut self, ids: &[u32]) {
        self.keyed.clear();
        let keys = &self.order_keys;
        self.keyed
            .extend(ids.iter().map(|&id| (keys[id as usize], id)));
    }

    /// Sorts and selects ids by `order`'s keys instead of ranking texts.
    pub(super) fn ordered_by(mut self, order: Option<TextOrder>) -> Self {
        debug_assert!(self.texts.is_empty());
        self.order = order;
        self
    }

    /// The id of `tuple`, numbered now if new. `text` makes a tuple's text, when ranking
    /// needs it (not while `order` holds).
    #[inline]
    pub(super) fn intern(&mut self, tuple: &[Sym], text: impl Fn(&[Sym]) -> String) -> u32 {
        let code = self
            .dense
            .as_ref()
            .and_then(|(coder, ids)| coder.code(tuple).map(|code| (code, ids[code])));
        match code {
            Some((_, id)) if id != NONE => return id,
            None => {
                if let Some(id) = self.tuples.find(tuple) {
                    return id;
                }
            }
            Some(_) => {}
        }
        self.tuples.insert(tuple);
        let id = (self.tuples.len() - 1) as u32;
        let key = self.order.as_ref().map(|order| order.key(tuple));
        match key {
            Some(Some(key)) => self.order_keys.push(key),
            Some(None) => {
                self.order = None;
                self.order_keys = Vec::new();
                for old in self.texts.len()..self.tuples.len() {
                    self.texts.push(text(self.tuples.row(old)));
                }
            }
            None => self.texts.push(text(tuple)),
        }
        if let (Some((code, _)), Some((_, ids))) = (code, self.dense.as_mut()) {
            ids[code] = id;
        }
        id
    }

    /// The tuple of an id.
    #[inline]
    pub(super) fn tuple(&self, id: u32) -> &[Sym] {
        self.tuples.row(id as usize)
    }

    /// The text of an id.
    pub(super) fn text(&self, id: u32, text: impl Fn(&[Sym]) -> String) -> String {
        if let Some(made) = self.texts.get(id as usize) {
            return made.clone();
        }
        let mut shown = self.shown.borrow_mut();
        let i = id as usize;
        if shown.len() <= i {
            shown.resize(i + 1, None);
        }
        shown[i]
            .get_or_insert_with(|| text(self.tuples.row(i)))
            .clone()
    }

    /// Ranks every text seen so far (a full sort).
    fn rank(&mut self) {
        let mut order: Vec<u32> = (0..self.texts.len() as u32).collect();
        order.sort_by(|&a, &b| self.texts[a as usize].cmp(&self.texts[b as usize]));
        self.ranks = vec![0; order.len()];
        for (rank, &id) in order.iter().enumerate() {
            self.ranks[id as usize] = rank as u32;
        }
        self.ranked = self.texts.len();
        self.rankings += 1;
    }

    /// The id that sorting `ids` by text would put at index `k` (`ids` is reordered):
    /// a selection by rank, linear, where every id is ranked; else a sort.
    pub(super) fn nth(&mut self, ids: &mut [u32], k: usize) -> u32 {
        if self.order.is_some() {
            self.key_ids(ids);
            return self.keyed.select_nth_unstable(k).1.1;
        }
        let unranked = self.texts.len() - self.ranked;
        if unranked > 0 && unranked >= self.ranked {
            self.rank();
        }
        if ids.iter().any(|&id| id as usize >= self.ranked) {
            self.sort(ids);
            return ids[k];
        }
        self.keys.clear();
        self.keys.extend(
            ids.iter()
                .map(|&id| (u64::from(self.ranks[id as usize]) << 32) | u64::from(id)),
        );
        *self.keys.select_nth_unstable(k).1 as u32
    }

    /// Sorts ids by their text. Ranking is a sort of every text seen, so it is redone
    /// only when the texts seen since the last one are at least as many as those it
    /// ranked: its total cost stays within a constant factor of one sort of all texts,
    /// however many calls bring new ones (amazons' moves are first seen a few at a time
    /// over a million possible ones). Until then, the ranked ids of a list are sorted
    /// by rank, the others by text, and the two merged by text.
    pub(super) fn sort(&mut self, ids: &mut [u32]) {
        if self.order.is_some() {
            self.key_ids(ids);
            // Keys are distinct for distinct tuples.
            self.keyed.sort_unstable();
            for (id, &(_, keyed)) in ids.iter_mut().zip(&self.keyed) {
                *id = keyed;
            }
            return;
        }
        let unranked = self.texts.len() - self.ranked;
        if unranked > 0 && unranked >= self.ranked {
            self.rank();
        }
        // Sorting packed (rank, id) words is cheaper than sorting ids by a looked-up key.
        self.keys.clear();
        self.late.clear();
        for &id in ids.iter() {
            if (id as usize) < self.ranked {
                self.keys
                    .push((u64::from(self.ranks[id as usize]) << 32) | u64::from(id));
            } else {
                self.late.push(id);
            }
        }
        self.keys.sort_unstable();
        if self.late.is_empty() {
            for (id, key) in ids.iter_mut().zip(&self.keys) {
                *id = *key as u32;
            }
            return;
        }
        let texts = &self.texts;
        let text = |id: u32| texts[id as usize].as_str();
        self.late.sort_unstable_by(|&a, &b| text(a).cmp(text(b)));
        // Texts are distinct: no ties.
        let (mut ranked, mut late) = (
            self.keys.iter().map(|&k| k as u32).peekable(),
            self.late.iter().copied().peekable(),
        );
        for slot in ids.iter_mut() {
            *slot = match (ranked.peek(), late.peek()) {
                (Some(&a), Some(&b)) if text(a) < text(b) => ranked.next(),
                (Some(_), Some(_)) | (None, _) => late.next(),
                (Some(_), None) => ranked.next(),
            }
            .expect("as many ids as slots");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interner_ranks_a_logarithmic_number_of_times() {
        // New tuples arriving a few per call (amazons' moves) must not re-sort every
        // text seen on each call.
        let mut interner = Interner::new(1, None);
        let mut ids = Vec::new();
        let n = 5000u32;
        for call in 0..n / 5 {
            ids.clear();
            for k in 0..5 {
                // Texts in an order unrelated to first sight.
                let v = (call * 5 + k) * 7919 % n;
                ids.push(interner.intern(&[v + 1], |t| format!("m{:05}", t[0] - 1)));
            }
            // And some already seen.
            for k in 0..call.min(20) {
                let v = k * 7919 % n;
                ids.push(interner.intern(&[v + 1], |t| format!("m{:05}", t[0] - 1)));
            }
            interner.sort(&mut ids);
            let texts: Vec<&str> = ids
                .iter()
                .map(|&i| interner.texts[i as usize].as_str())
                .collect();
            assert!(texts.is_sorted(), "call {call}: {texts:?}");
        }
        assert_eq!(interner.texts.len(), n as usize);
        assert!(
            interner.rankings <= 14,
            "{} renumberings",
            interner.rankings
        );
    }

    /// While moves' texts follow from their columns, interning makes no text (amazons
    /// met thousands of new moves a state, each once written out); a tuple without a
    /// key drops the order and makes every text seen, so sorting by text goes on.
    #[test]
    fn a_keyed_interner_makes_texts_only_when_its_order_is_dropped() {
        let meta = crate::compiled::text_order::tests::meta(&["x", "xa", "y"]);
        let made = std::cell::Cell::new(0);
        let text = |tuple: &[Sym]| {
            made.set(made.get() + 1);
            meta.text(meta.legal_paths, tuple, 1)
        };
        let mut interner = Interner::new(5, None).ordered_by(TextOrder::of_moves(&meta));
        let keyed = [
            [0, 3, 7, 9, 0],
            [0, 4, 0, 0, 6],
            [0, 2, 0, 0, 0],
            [0, 3, 5, 10, 0],
        ];
        let mut ids: Vec<u32> = keyed.iter().map(|t| interner.intern(t, text)).collect();
        assert_eq!(made.get(), 0, "no text while the order holds");
        assert_eq!(interner.text(1, text), "(m2 10)");
        assert_eq!(interner.text(1, text), "(m2 10)");
        assert_eq!(made.get(), 1, "a text asked twice is made once");
        interner.sort(&mut ids);
        let texts: Vec<String> = ids.iter().map(|&id| interner.text(id, text)).collect();
        assert_eq!(texts, ["(m2 10)", "(mark 1 xa)", "(mark 2 x)", "noop"]);
        // `r` is outside the domain of `mark`'s last argument: no key.
        made.set(0);
        ids.push(interner.intern(&[0, 3, 5, 1, 0], text));
        assert_eq!(made.get(), 5, "every text once the order is dropped");
        interner.sort(&mut ids);
        made.set(0);
        let texts: Vec<String> = ids.iter().map(|&id| interner.text(id, text)).collect();
        assert_eq!(
            texts,
            ["(m2 10)", "(mark 1 r)", "(mark 1 xa)", "(mark 2 x)", "noop"]
        );
        assert_eq!(made.get(), 0, "texts made once");
    }

    /// Lists mixing ranked ids and ids seen since the last ranking sort by text (the
    /// ranked by rank, the new by text, merged), whether new texts arrive in ascending
    /// order, in descending order or all between the same two neighbours.
    #[test]
    fn interner_sorts_lists_mixing_ranked_and_new_ids() {
        let sorted = |interner: &mut Interner, mut ids: Vec<u32>| {
            interner.sort(&mut ids);
            let texts: Vec<&str> = ids
                .iter()
                .map(|&i| interner.texts[i as usize].as_str())
                .collect();
            assert!(texts.is_sorted(), "{texts:?}");
        };
        for order in ["ascending", "descending", "between"] {
            let mut interner = Interner::new(1, None);
            let mut ids = Vec::new();
            for k in 0..3000u32 {
                let text = match order {
                    "ascending" => format!("m{k:05}"),
                    "descending" => format!("m{:05}", 99_999 - k),
                    // Each new text between "a" and the one before it: "a" < "ab…b" < "b".
                    _ if k == 0 => "a".to_owned(),
                    _ if k == 1 => "b".to_owned(),
                    _ => format!("a{}", "b".repeat(k as usize)),
                };
                ids.push(interner.intern(&[k + 1], |_| text.clone()));
                if k % 97 == 0 {
                    sorted(&mut interner, ids.clone());
                }
            }
            sorted(&mut interner, ids);
            assert!(
                interner.rankings <= 13,
                "{order}: {} rankings",
                interner.rankings
            );
        }
    }

    /// The id a random legal move picks (`Interner::nth`, a selection by rank) is the
    /// one at the same index of the list sorted by text, ranked or not.
    #[test]
    fn interner_selects_the_id_sorting_would_put_at_an_index() {
        let mut interner = Interner::new(1, None);
        for round in 0..40u32 {
            let ids: Vec<u32> = (0..25u32)
                .map(|k| {
                    let v = (round * 25 + k) * 7919 % 613;
                    interner.intern(&[v + 1], |t| format!("m{:04}", t[0] - 1))
                })
                .collect();
            let mut sorted = ids.clone();
            interner.sort(&mut sorted);
            for k in [0, 7, 24] {
                let mut scratch = ids.clone();
                assert_eq!(
                    interner.nth(&mut scratch, k),
                    sorted[k],
                    "round {round}, k {k}"
                );
            }
        }
    }
}

//! What demand-evaluated relations remember and gather: per call key a table of answers
//! ([`Memo`]) or, for a call with every column bound, whether the key holds ([`Known`]);
//! the stack of the recursive demand layers being evaluated ([`Fixpoints`]); and for
//! inlined calls and walks, the answers gathered ([`Gathered`]) and the filter of the
//! keys met ([`walk_bit`]).

use hashbrown::HashTable;

use super::Sym;
use super::store::{Store, hash_values, same};

/// The memo tables of one demand-evaluated relation in one mode: per call key (the
/// values of the bound columns) a table of answers. Cleared tables are reused.
#[derive(Clone, Debug)]
pub struct Memo {
    arity: usize,
    key_len: usize,
    by_key: HashTable<u32>,
    keys: Vec<Sym>,
    answers: Vec<Store>,
    /// What a new table starts as, when tables are kept unique by bits
    /// ([`Memo::with_bits`]); otherwise a hashed store.
    template: Option<Store>,
    /// Per table of a recursive demand layer, the evaluation of the layer that made it
    /// ([`Fixpoints::epoch`]); 0 for tables made outside one.
    epochs: Vec<u32>,
    used: usize,
    /// Answers in the tables in use.
    rows: usize,
}

/// Tables the memo of a static relation keeps from one state to the next at most (see
/// [`Memo::bound`]).
pub const MAX_STATIC_MEMO_TABLES: usize = 1 << 16;

/// Answers the memo of a static relation keeps from one state to the next at most.
pub const MAX_STATIC_MEMO_ROWS: usize = 1 << 20;

impl Memo {
    /// Memo tables for answers of `arity` columns called with `key_len` bound values.
    pub fn new(arity: usize, key_len: usize) -> Self {
        Memo {
            arity,
            key_len,
            by_key: HashTable::new(),
            keys: Vec::new(),
            answers: Vec::new(),
            template: None,
            epochs: Vec::new(),
            used: 0,
            rows: 0,
        }
    }

    /// Memo tables kept unique by a bitset over their free columns rather than by
    /// hashing whole rows: each new table is a copy of `template`
    /// ([`Store::memo_bitset`]), made once and reused like the others.
    pub fn with_bits(arity: usize, key_len: usize, template: Store) -> Self {
        Memo {
            template: Some(template),
            ..Memo::new(arity, key_len)
        }
    }

    /// Forgets every table.
    pub fn clear(&mut self) {
        self.by_key.clear();
        self.keys.clear();
        for table in &mut self.answers[..self.used] {
            table.clear();
        }
        self.used = 0;
        self.rows = 0;
    }

    /// Tables in use, and answers in them.
    pub fn size(&self) -> (usize, usize) {
        (self.used, self.rows)
    }

    /// Forgets every table, and frees all but `max_tables` of them, when they are more than
    /// `max_tables` or hold more than `max_rows` answers. The memo of a static
    /// relation is kept from state to state, where the keys met may never repeat
    /// (quad's test of eight bound columns, `square`, for every four pieces): the
    /// generated code bounds it whenever the state changes, when no table is in use.
    pub fn bound(&mut self, max_tables: usize, max_rows: usize) {
        if self.used <= max_tables && self.rows <= max_rows {
            return;
        }
        // The key index and the first `max_tables` tables keep their capacity: a state
        // that needs more tables than that will need them again.
        self.clear();
        self.answers.truncate(max_tables);
        self.epochs.truncate(max_tables);
    }

    /// The table of a key, if made.
    #[inline]
    pub fn find(&self, key: &[Sym]) -> Option<usize> {
        let hash = hash_values(key.iter().copied());
        let n = self.key_len;
        self.by_key
            .find(hash, |&t| {
                same(&self.keys[t as usize * n..(t as usize + 1) * n], key)
            })
            .map(|&t| t as usize)
    }

    /// Makes an empty table for a key that has none.
    pub fn create(&mut self, key: &[Sym]) -> usize {
        let t = self.used;
        self.used += 1;
        if self.answers.len() < self.used {
            let table = match &self.template {
                Some(template) => template.clone(),
                None => Store::hashed(self.arity, &[]),
            };
            self.answers.push(table);
            self.epochs.push(0);
        }
        self.epochs[t] = 0;
        self.keys.extend_from_slice(key);
        let n = self.key_len;
        let keys = &self.keys;
        self.by_key
            .insert_unique(hash_values(key.iter().copied()), t as u32, |&t| {
                hash_values(keys[t as usize * n..(t as usize + 1) * n].iter().copied())
            });
        t
    }

    /// Records that table `t` belongs to the evaluation `epoch` of its recursive layer
    /// ([`Fixpoints::epoch`]).
    #[inline]
    pub fn set_epoch(&mut self, t: usize, epoch: u32) {
        self.epochs[t] = epoch;
    }

    /// The evaluation of its recursive layer that made table `t` (see
    /// [`Fixpoints::reread_table`]).
    #[inline]
    pub fn epoch(&self, t: usize) -> u32 {
        self.epochs[t]
    }

    /// The key of table `t`.
    #[inline]
    pub fn key(&self, t: usize) -> &[Sym] {
        &self.keys[t * self.key_len..(t + 1) * self.key_len]
    }

    /// The answers of table `t`.
    #[inline]
    pub fn table(&self, t: usize) -> &Store {
        &self.answers[t]
    }

    /// Adds an answer to table `t`; true if new.
    #[inline]
    pub fn insert(&mut self, t: usize, tuple: &[Sym]) -> bool {
        let new = self.answers[t].insert(tuple);
        self.rows += usize::from(new);
        new
    }
}

/// A walk's filter of the keys or answers it has met (generated code: `seenD`): one of
/// 64 bits per key, chosen by hashing its symbols. A key whose bit is clear is new,
/// with no search of those met; one whose bit is set is searched for (another key may
/// have set it). Amazons' lines meet at most ten squares: most of a walk's steps add a
/// new key, which cost a search of every key met before.
#[inline(always)]
pub fn walk_bit<const W: usize>(key: [Sym; W]) -> u64 {
    // Symbols are small numbers: a key of one is its own bit (distinct below 64), a
    // wider one shifts the earlier symbols by three bits a column, no multiply.
    let mut hash = 0u32;
    for symbol in key {
        hash = hash.rotate_left(3) ^ symbol;
    }
    1 << (hash % 64)
}

/// The answers an inlined call gathers before its caller's continuation reads them
/// (the values of the variables the call binds, `W` of them), each once: the first
/// [`GATHERED_ON_STACK`] in an array searched in place, later ones in a vector with a
/// hash set. A union of lines can reach a square along two of them (a torus); the
/// continuation then runs once for it, as it did over a memo table.
#[derive(Clone, Debug)]
pub struct Gathered<const W: usize> {
    stack: [[Sym; W]; GATHERED_ON_STACK],
    count: usize,
    spill: Vec<[Sym; W]>,
    seen: rustc_hash::FxHashSet<[Sym; W]>,
}

/// The answers a [`Gathered`] holds in its array.
pub const GATHERED_ON_STACK: usize = 32;

impl<const W: usize> Default for Gathered<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Gathered<W> {
    /// No answers.
    #[inline]
    pub fn new() -> Self {
        Gathered {
            stack: [[0; W]; GATHERED_ON_STACK],
            count: 0,
            spill: Vec::new(),
            seen: rustc_hash::FxHashSet::default(),
        }
    }

    /// Adds an answer unless already there.
    #[inline]
    pub fn add(&mut self, answer: [Sym; W]) {
        if self.stack[..self.count].contains(&answer) {
            return;
        }
        if self.count < GATHERED_ON_STACK {
            self.stack[self.count] = answer;
            self.count += 1;
        } else if self.seen.insert(answer) {
            self.spill.push(answer);
        }
    }

    /// How many answers are held.
    #[inline]
    pub fn len(&self) -> usize {
        self.count + self.spill.len()
    }

    /// Whether no answer is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Answer `i`, in the order added.
    #[inline]
    pub fn get(&self, i: usize) -> [Sym; W] {
        if i < GATHERED_ON_STACK {
            self.stack[i]
        } else {
            self.spill[i - GATHERED_ON_STACK]
        }
    }
}

/// The answers of a demand relation called with every column bound, outside a
/// recursive layer: per key, whether it holds. A whole table per key (a [`Memo`]) would
/// cost a hashed store and a scan of its rows for one bit, and its evaluation would
/// find every derivation where the first is enough (chess's "the king is attacked" from
/// any piece).
#[derive(Clone, Debug)]
pub struct Known {
    key_len: usize,
    by_key: HashTable<u32>,
    keys: Vec<Sym>,
    holds: Vec<bool>,
}

impl Known {
    /// Known answers for keys of `key_len` values.
    pub fn new(key_len: usize) -> Self {
        Known {
            key_len,
            by_key: HashTable::new(),
            keys: Vec::new(),
            holds: Vec::new(),
        }
    }

    /// Whether a key holds, if known.
    #[inline]
    pub fn find(&self, key: &[Sym]) -> Option<bool> {
        let hash = hash_values(key.iter().copied());
        let n = self.key_len;
        self.by_key
            .find(hash, |&k| {
                same(&self.keys[k as usize * n..(k as usize + 1) * n], key)
            })
            .map(|&k| self.holds[k as usize])
    }

    /// Records whether a key that is not known yet holds.
    pub fn insert(&mut self, key: &[Sym], holds: bool) {
        debug_assert_eq!(key.len(), self.key_len);
        let k = self.holds.len() as u32;
        self.holds.push(holds);
        self.keys.extend_from_slice(key);
        let n = self.key_len;
        let keys = &self.keys;
        self.by_key
            .insert_unique(hash_values(key.iter().copied()), k, |&k| {
                hash_values(keys[k as usize * n..(k as usize + 1) * n].iter().copied())
            });
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.by_key.clear();
        self.keys.clear();
        self.holds.clear();
    }

    /// Forgets every key when more than `max_keys` are known (see [`Memo::bound`]; the
    /// second bound, on answers, is the same here).
    pub fn bound(&mut self, max_keys: usize, _max_answers: usize) {
        if self.holds.len() > max_keys {
            self.clear();
        }
    }
}

/// A memo table of a demand relation: relation, mode, table.
pub type Table = (u32, u32, usize);

/// The recursive demand layers being evaluated, innermost last: per layer its tables
/// (relation, mode, table) in creation order. A layer's first call leads: it
/// re-evaluates every table of the layer until a round adds no answer and makes no
/// table. Entries are reused, so a warm stack allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Fixpoints {
    /// Per depth: the layer, its tables, and whether a call found a table of the
    /// layer while it was evaluated (see [`Fixpoints::reread_table`]).
    layers: Vec<(u32, Vec<Table>, bool)>,
    /// Per depth: the number of its evaluation (see [`Fixpoints::epoch`]).
    epochs: Vec<u32>,
    /// The number the next evaluation gets (from 1: 0 is no evaluation).
    next_epoch: u32,
    active: usize,
}

impl Fixpoints {
    /// The depth of `layer` if it is being evaluated.
    #[inline]
    pub fn find(&self, layer: u32) -> Option<usize> {
        self.layers[..self.active]
            .iter()
            .position(|(l, _, _)| *l == layer)
    }

    /// Notes that a call found an existing table of `layer` made by evaluation `epoch`:
    /// only a table of the evaluation still open can be incomplete. A table of an
    /// evaluation that has ended is a fixpoint's, final, and reading it needs no other
    /// pass (amazons' lines: a line from a square meets the lines from the squares
    /// after it, made before; rereading them made every new line evaluated twice).
    /// Epochs wrap after 2^32 evaluations: a stale table taken for an open one only
    /// costs a pass, never an answer.
    #[inline]
    pub fn reread_table(&mut self, layer: u32, epoch: u32) {
        if let Some(depth) = self.find(layer)
            && self.epochs[depth] == epoch
        {
            self.layers[depth].2 = true;
        }
    }

    /// The number of the evaluation at `depth`: tables made in it are marked with it
    /// ([`Memo::set_epoch`]), so that [`Self::reread_table`] tells them from final ones.
    #[inline]
    pub fn epoch(&self, depth: usize) -> u32 {
        self.epochs[depth]
    }

    /// Whether a call found an existing table of the layer at `depth` since it was
    /// opened.
    #[inline]
    pub fn was_reread(&self, depth: usize) -> bool {
        self.layers[depth].2
    }

    /// Starts evaluating `layer` with its first table; its depth.
    pub fn open(&mut self, layer: u32, table: Table) -> usize {
        let depth = self.active;
        self.active += 1;
        if self.layers.len() == depth {
            self.layers.push((layer, Vec::new(), false));
            self.epochs.push(0);
        }
        self.next_epoch = self.next_epoch.wrapping_add(1).max(1);
        self.epochs[depth] = self.next_epoch;
        let entry = &mut self.layers[depth];
        entry.0 = layer;
        entry.1.clear();
        entry.1.push(table);
        entry.2 = false;
        depth
    }

    /// Adds a table made while the layer at `depth` is evaluated.
    #[inline]
    pub fn push(&mut self, depth: usize, table: Table) {
        self.layers[depth].1.push(table);
    }

    /// The number of tables of the layer at `depth`.
    #[inline]
    pub fn len(&self, depth: usize) -> usize {
        self.layers[depth].1.len()
    }

    /// Table `i` of the layer at `depth`.
    #[inline]
    pub fn table(&self, depth: usize, i: usize) -> Table {
        self.layers[depth].1[i]
    }

    /// Ends the evaluation of the layer at `depth` (and of any inside it).
    pub fn close(&mut self, depth: usize) {
        self.active = depth;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers gathered are kept once each, in the order first added, on the stack and
    /// past it.
    #[test]
    fn gathered_answers_are_kept_once_in_order() {
        let mut gathered = Gathered::<2>::new();
        assert!(gathered.is_empty());
        let answers: Vec<[Sym; 2]> = (0..100).map(|i| [i % 7, i / 7]).collect();
        for round in 0..3 {
            for &answer in &answers {
                gathered.add(answer);
            }
            assert_eq!(gathered.len(), answers.len(), "round {round}");
        }
        let held: Vec<[Sym; 2]> = (0..gathered.len()).map(|i| gathered.get(i)).collect();
        assert_eq!(held, answers);
    }

    #[test]
    fn memo_tables_are_reused() {
        let mut memo = Memo::new(2, 1);
        let t = memo.create(&[7]);
        memo.insert(t, &[7, 1]);
        assert_eq!(memo.find(&[7]), Some(t));
        memo.clear();
        assert_eq!(memo.find(&[7]), None);
        let u = memo.create(&[8]);
        assert!(memo.table(u).is_empty());
        assert_eq!(memo.key(u), [8]);
    }

    #[test]
    fn memo_bound_forgets_past_its_limits() {
        let mut memo = Memo::new(2, 1);
        for k in 0..100 {
            let t = memo.create(&[k]);
            memo.insert(t, &[k, 1]);
            memo.insert(t, &[k, 2]);
            memo.insert(t, &[k, 2]);
        }
        assert_eq!(memo.size(), (100, 200));
        memo.bound(100, 200);
        assert_eq!(memo.size(), (100, 200), "within its limits: kept");
        assert!(memo.find(&[5]).is_some());
        memo.bound(99, 1000);
        assert_eq!(memo.size(), (0, 0));
        assert!(memo.find(&[5]).is_none() && memo.answers.len() == 99);
        let t = memo.create(&[5]);
        memo.insert(t, &[5, 1]);
        memo.bound(1000, 0);
        assert_eq!(memo.size(), (0, 0), "past its rows");
        let t = memo.create(&[6]);
        assert!(memo.table(t).is_empty());
    }

    #[test]
    fn fixpoint_stack_nests_and_reuses_entries() {
        let mut stack = Fixpoints::default();
        let outer = stack.open(3, (1, 0, 0));
        let inner = stack.open(5, (2, 0, 0));
        stack.push(outer, (1, 0, 1));
        assert_eq!((stack.find(3), stack.find(5)), (Some(outer), Some(inner)));
        assert_eq!((stack.len(outer), stack.table(outer, 1)), (2, (1, 0, 1)));
        stack.close(inner);
        assert_eq!(stack.find(5), None);
        stack.close(outer);
        let again = stack.open(7, (4, 1, 2));
        assert_eq!((again, stack.len(again), stack.find(3)), (0, 1, None));
    }

    #[test]
    fn a_table_found_again_while_its_layer_is_evaluated_is_remembered() {
        let mut stack = Fixpoints::default();
        stack.reread_table(3, 0);
        let outer = stack.open(3, (1, 0, 0));
        assert!(
            !stack.was_reread(outer),
            "found before the layer opened: complete"
        );
        let inner = stack.open(5, (2, 0, 0));
        stack.reread_table(3, stack.epoch(outer));
        assert!(stack.was_reread(outer) && !stack.was_reread(inner));
        stack.close(outer);
        let again = stack.open(3, (1, 0, 1));
        assert!(!stack.was_reread(again), "a new evaluation starts afresh");
    }

    /// Memo tables kept unique by bits over their free columns: each table dedupes its
    /// own answers whatever its key, tables made again after a clear start empty, and
    /// the rows are the whole tuples.
    #[test]
    fn memo_tables_with_bits_dedupe_answers_per_key() {
        // p(K, X, Y): column 0 bound, X in {5, 6}, Y in {7, 8, 9}.
        let template = Store::memo_bitset(&[&[1, 2], &[5, 6], &[7, 8, 9]], &[0], 10);
        let mut memo = Memo::with_bits(3, 1, template);
        for round in 0..2 {
            let a = memo.create(&[1]);
            let b = memo.create(&[2]);
            assert!(memo.insert(a, &[1, 5, 7]));
            assert!(memo.insert(a, &[1, 6, 9]));
            assert!(!memo.insert(a, &[1, 5, 7]), "round {round}");
            assert!(memo.insert(b, &[2, 5, 7]), "another key, its own table");
            assert_eq!(memo.table(a).len(), 2);
            assert_eq!(memo.table(a).row(1), &[1, 6, 9]);
            assert_eq!(memo.table(b).len(), 1);
            memo.clear();
        }
    }

    /// Only a table of the evaluation still open can be incomplete: finding a table an
    /// ended evaluation made (final) needs no second pass; finding one of the open
    /// evaluation does, also after other evaluations of the layer came and went.
    #[test]
    fn only_a_table_of_the_open_evaluation_asks_for_another_pass() {
        let mut stack = Fixpoints::default();
        let mut memo = Memo::new(2, 1);
        let first = stack.open(3, (1, 0, 0));
        let old = memo.create(&[1]);
        memo.set_epoch(old, stack.epoch(first));
        stack.close(first);
        let second = stack.open(3, (1, 0, 1));
        let new = memo.create(&[2]);
        memo.set_epoch(new, stack.epoch(second));
        stack.reread_table(3, memo.epoch(old));
        assert!(
            !stack.was_reread(second),
            "a final table was taken for an open one"
        );
        let inner = stack.open(5, (2, 0, 0));
        stack.reread_table(3, memo.epoch(new));
        assert!(stack.was_reread(second) && !stack.was_reread(inner));
        stack.close(second);
        // A table made outside every evaluation (epoch 0) is never taken for an open one.
        let third = stack.open(3, (1, 0, 2));
        let outside = memo.create(&[3]);
        stack.reread_table(3, memo.epoch(outside));
        assert!(!stack.was_reread(third));
    }

    #[test]
    fn a_walk_filter_bit_is_one_of_64_chosen_by_the_key() {
        let mut bits = std::collections::BTreeSet::new();
        for a in 0..20 {
            for b in 0..20 {
                let bit = walk_bit([a, b]);
                assert_eq!(bit.count_ones(), 1);
                assert_eq!(bit, walk_bit([a, b]));
                bits.insert(bit);
            }
            assert_eq!(walk_bit([a]).count_ones(), 1);
        }
        // The hash spreads a board's squares over the filter.
        assert!(bits.len() > 48, "{}", bits.len());
        // Ten squares of a line: mostly distinct bits (a clash only costs a search).
        let line: std::collections::BTreeSet<u64> = (4..14).map(|x| walk_bit([x])).collect();
        assert!(line.len() >= 8, "{line:?}");
    }
}

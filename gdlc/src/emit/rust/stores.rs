//! What each relation is kept as, decided from who reads it: whether a store keeps
//! rows, a list of its bits or its bits alone; the copies of bits-only relations that
//! word joins test; whether a rule inserts straight into its head's store; which demand
//! modes are known modes and whether they remember their answers; each memo table's
//! constructor.
//!
//! **Derived relations stored as bitsets** (not entries): an `rt::BitSet` (bits only,
//! dirty words listed for clearing), filled, tested and scanned like the state with a
//! constant positions table `POS_R`; the bits are also listed in the order set (unless no
//! code reads the list: *unlisted bit sets* below), so a semi-naive round reads its delta
//! as a range of that list. A scan of the whole relation wider than 256 bits reads only
//! the words holding a bit (listed once each, for clearing), each word when reached (bits
//! its own body sets in words not reached yet are met in this round, sound as the round
//! is monotone; the others in the next). A lookup binding columns after an unknown one
//! over more than 256 bits (it would scan that whole range) reads a copy of the bits in
//! another column order, its bound columns first (`plan::copied_lookups`, fields
//! `rR_byC…`, set with the main bits on each insert); a relation with more than two such
//! lookups keeps rows with hash indexes instead (`rt::Store`, its membership tests still
//! numbered in generated code: `Store::has_bit`).
//!
//! **Entry relations** (`legal`, `goal`, `terminal`, `sees`, `init`) and hashed
//! relations: an `rt::Store`, which the runtime reads as rows; bitset stores take the bit
//! the generated code numbers and remember each row's bit. A hashed relation whose tuples
//! nest terms in one argument (`legal`'s moves, a relation of moves) is kept unique by
//! bits numbered per functor block of that argument times the positions of its other
//! columns, at most 2²² bits (`rt::Store::coded`, a static `LAYOUT_R`): an insert
//! computes its bit in line — the functor's block base plus the columns' positions times
//! their strides, or a `match` on the functor when only the run time knows it —, and the
//! runtime keeps a legal move's id by its row's bit instead of interning it again. A
//! `legal` or `sees` bitset no rule reads keeps no rows (`Store::without_rows`): the
//! runtime lists its bits in the order set and decodes a bit's tuple only the first time
//! it sees it. Such a `legal` does not list its rows' bits either (`Store::unlisted`):
//! the runtime reads its moves through the words holding a bit (the list the store keeps
//! to clear them), so an insert costs the bit, and for a word's first bit the word's
//! number (amazons: about 500 moves a state); its inserts call
//! `Store::insert_unlisted_bit`, which tests no flag for rows or a list
//! (`Emitter::bits_alone`). A random legal move is selected by rank (`Interner::nth`),
//! not sorted; when the role's moves are its bits in text order, it is the k-th set bit
//! of the role's range, counted in place for a range of few words, else through the
//! store's list of words holding a bit, put in order by a summary bit per word
//! (`pick::pick_one_listed`; chess's moves, 320 words, lie in a dozen) — on the stack for
//! a range of at most 1,024 words, on the heap for a wider one not much wider than its
//! words holding a bit (`pick::listed_in_summary`: amazons', 15,626 words per role, 489
//! summary entries), else the words sorted —, and past 64 such words in a range too wide
//! to summarise by selecting among the rows' bits (`pick::pick_one_of`: the bits in range
//! copied in one pass, then narrowed a digit of 8 bits at a time to the k-th).
//!
//! **Unlisted bit sets**: a bit set whose list of bits set no generated code reads (no
//! `len()`, no `added(…)`: decided on the generated code's tokens, `find_list_readers`)
//! is made `rt::BitSet::unlisted`, of type `rt::UnlistedBitSet` (`BitSet<false>`: whether
//! a set lists is in its type, so no insert tests it at run time): inserts keep no list,
//! `or_field` sets a word at a time. Only a semi-naive round's delta needs the list: a
//! whole scan, a copy of a relation numbered alike and a word closure's prefixes (lane
//! dividing 64) read the *words holding a bit* instead
//! (`BitSet::nonzero_words`/`nonzero_word`: the list of words every bit set keeps for
//! clearing, each word once, in the order it got its first bit), so most bit sets keep no
//! list (team chess: 34 of 35).
//!
//! **Memo tables of state relations with small free columns** (product of their domains
//! at most 1,024) dedupe by a bitset over those columns (`rt::Memo::with_bits`, a
//! template `Store::memo_bitset` whose bound columns have stride 0, copied per new
//! table); a static relation's memo, bounded and re-made each state, keeps hashing.

use super::*;

impl Emitter<'_> {
    /// The copies of bits-only relations that word joins would test (see
    /// [`Self::word_join`]): where a layer's rule scans a bits-only relation whose
    /// column numbered last binds a variable, and then tests a bits-only relation of
    /// at most [`MAX_WORD_COPY_BITS`] bits on that variable in a column its bits number
    /// before others (team chess's `(not (colour-on ?t ?c))`, `?t` first), a copy of
    /// that relation's bits with that column last.
    pub(super) fn word_copies(&self) -> BTreeMap<RelationId, Vec<Vec<usize>>> {
        let mut wanted: BTreeMap<RelationId, Vec<Vec<usize>>> = BTreeMap::new();
        for tree in self
            .plan
            .layers
            .iter()
            .filter_map(|layer| layer.tree.as_ref())
        {
            tree.for_each_join(&mut |query, then| {
                let scanned = self.bit_columns(query.relation).and_then(|numbered| {
                    match query.slots[numbered.last()?.0] {
                        Slot::Bind(v) => Some(v),
                        _ => None,
                    }
                });
                if let (Some(v), Some(tail)) = (scanned, Self::tests_then_accept(then)) {
                    for (test, _) in tail.tests {
                        self.want_word_copy(test, v, &mut wanted);
                    }
                }
            });
        }
        wanted
    }

    /// Adds to `wanted` the copy of `test`'s relation with `v`'s column last, if it is
    /// bits-only, small enough, and neither its bits nor its copies number it last.
    fn want_word_copy(
        &self,
        test: &Query,
        v: VarId,
        wanted: &mut BTreeMap<RelationId, Vec<Vec<usize>>>,
    ) {
        let r = test.relation;
        let Some(numbered) = self.bit_columns(r) else {
            return;
        };
        let [c] = (0..test.slots.len())
            .filter(|&c| test.slots[c] == Slot::Bound(v))
            .collect::<Vec<_>>()[..]
        else {
            return;
        };
        let bits = numbered
            .first()
            .map_or(1, |(_, stride, domain)| stride * domain.len());
        let columns: Vec<usize> = (0..test.slots.len()).filter(|&d| d != c).collect();
        let radices: Vec<usize> = numbered.iter().map(|(_, _, d)| d.len()).collect();
        let planned =
            crate::plan::copied_lookups(&radices, &self.plan.relations[r.0 as usize].indexes);
        let last_somewhere = numbered.last().is_some_and(|(last, _, _)| *last == c)
            || planned
                .iter()
                .any(|lookup| crate::plan::copy_order(radices.len(), lookup).last() == Some(&c));
        if bits > MAX_WORD_COPY_BITS || last_somewhere || columns.is_empty() {
            return;
        }
        let copies = wanted.entry(r).or_default();
        if !copies.contains(&columns) {
            copies.push(columns);
        }
    }

    /// Whether the store of `legal` or `sees` keeps its bits only: a bitset (over its
    /// columns, or coded) that no rule reads, so that only the runtime lists its rows,
    /// decoding each new one from its bit.
    pub(super) fn rows_unread(&self, r: RelationId) -> bool {
        let keyword = self.ir.relation(r).keyword;
        if keyword.is_none() {
            return self.only_copied_or_tested(r);
        }
        if !matches!(keyword, Some(Keyword::Legal | Keyword::Sees))
            || !matches!(
                self.plan.relations[r.0 as usize].evaluation,
                Evaluation::Materialised
            )
            || !self.plan.relations[r.0 as usize].indexes.is_empty()
            || (self.numbered_columns(r).is_none() && self.coded_numbering(r).is_none())
        {
            return false;
        }
        let mut read = false;
        let mut look = |q: &Query| read |= q.relation == r;
        for layer in &self.plan.layers {
            if let Some(tree) = &layer.tree {
                tree.for_each_query(&mut look);
            }
        }
        for relation_plan in &self.plan.relations {
            if let Evaluation::Demand(modes) = &relation_plan.evaluation {
                for mode in modes {
                    mode.tree.for_each_query(&mut look);
                }
            }
        }
        !read
    }

    /// Whether relation `r`'s store keeps its tuples as bits alone, neither rows nor a
    /// list of their bits (the runtime's `Store::unlisted`): a
    /// `legal` no rule reads, which the runtime reads through its words.
    pub(super) fn bits_alone(&self, r: RelationId) -> bool {
        self.rows_unread(r) && self.ir.relation(r).keyword == Some(Keyword::Legal)
    }

    /// Whether a materialised coded relation's rows go unread: every join reading it
    /// is the source of a copy of its bits ([`Self::coded_copy`], in a rule whose
    /// tuples go straight to the head) or asks only whether it has a tuple
    /// ([`Self::whole_store_tested`]). Demand modes read rows.
    fn only_copied_or_tested(&self, r: RelationId) -> bool {
        if self.plan.relations[r.0 as usize].evaluation != Evaluation::Materialised
            || !self.plan.relations[r.0 as usize].indexes.is_empty()
            || !self.has_store(r)
            || self.coded_numbering(r).is_none()
        {
            return false;
        }
        let mut demand_reads = false;
        for relation_plan in &self.plan.relations {
            if let Evaluation::Demand(modes) = &relation_plan.evaluation {
                for mode in modes {
                    mode.tree
                        .for_each_query(&mut |q| demand_reads |= q.relation == r);
                }
            }
        }
        !demand_reads
            && self.plan.layers.iter().all(|layer| {
                layer
                    .tree
                    .as_ref()
                    .is_none_or(|tree| self.reads_as_bits(tree, r, false))
            })
    }

    /// Whether every read of `r` under `node` is a copy of its bits in a rule whose
    /// tuples go straight to the head (`direct`) or a test of whether it has a tuple.
    fn reads_as_bits(&self, node: &Node, r: RelationId, direct: bool) -> bool {
        match node {
            Node::Sequence(children) => children.iter().all(|c| self.reads_as_bits(c, r, direct)),
            Node::Repeat(body) => self.reads_as_bits(body, r, direct),
            Node::SemiNaive {
                initial, rounds, ..
            } => self.reads_as_bits(initial, r, direct) && self.reads_as_bits(rounds, r, direct),
            Node::Rule { rule, body, .. } => {
                let head = self.ir.rules[*rule].head.relation;
                self.reads_as_bits(body, r, self.inserts_directly(head, body))
            }
            Node::Accept { .. } => true,
            Node::If { test, then } => {
                !matches!(test, Test::Absent(q) if q.relation == r)
                    && self.reads_as_bits(then, r, direct)
            }
            Node::Query { query, then } => {
                (query.relation != r
                    || (direct && self.copied_bits(query, then).is_some())
                    || self.whole_store_tested(query, then))
                    && self.reads_as_bits(then, r, direct)
            }
        }
    }

    /// Whether a layer's rule for `head` with `body` adds its tuples straight to the
    /// head's store: unless the body reads the rows being added (a recursive rule over
    /// a store with rows); bits-only stores are read through short borrows (bit tests,
    /// cursors, the delta's bit numbers), and a bit set while a round runs is seen by it
    /// or the next.
    pub(super) fn inserts_directly(&self, head: RelationId, body: &Node) -> bool {
        self.arity(head) > 0
            && Some(head) != self.next_rel
            && (!Self::reads(body, head) || self.bit_columns(head).is_some())
    }

    /// Whether a join asks only whether a stored relation has a tuple: a scan binding
    /// every column, none of them read after (`(<= mobile (mover-move ?m))`). It is
    /// emitted as a test of whether the store is empty, reading no row.
    pub(super) fn whole_store_tested(&self, query: &Query, then: &Node) -> bool {
        query.access == Access::Scan
            && self.has_store(query.relation)
            && query.slots.iter().all(|s| matches!(s, Slot::Bind(_)))
            && Self::existential(query, then)
    }

    /// Whether mode `m` of demand relation `r` binds every column outside a recursive
    /// layer: its calls then ask whether the key holds (`rt::Known`, `ask_r_m`), and its
    /// evaluation (`holds_r_m`) stops at the first answer.
    pub(super) fn known_mode(&self, r: RelationId, m: usize) -> bool {
        let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation else {
            return false;
        };
        modes[m].bound.len() == self.arity(r)
            && !self.ir.layers[self.ir.layer_of[r.0 as usize]].cyclic
    }

    /// Whether a known mode remembers its answers per key (`rt::Known`): when its
    /// evaluation does work worth a hash lookup — a loop over a relation computed per
    /// state, a call that fills a memo table, or asks of two or more known modes (which
    /// could meet the same keys again below). Otherwise (a few static lookups, state
    /// bits and at most one ask) it is evaluated at every ask: a hash lookup and insert
    /// cost more (a chess variant's "a piece of this side stands on a line to that
    /// square": 85 and 150 instructions, asked 1.6 million times in 1,163 states).
    pub(super) fn known_memoised(&self, r: RelationId, m: usize) -> bool {
        let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation else {
            return false;
        };
        let mut work = false;
        let mut asks = 0;
        self.known_work(&modes[m].tree, &mut work, &mut asks);
        work || asks >= 2
    }

    /// Walks a known mode's tree for [`Self::known_memoised`].
    fn known_work(&self, node: &Node, work: &mut bool, asks: &mut usize) {
        let mut query = |query: &Query| match query.access {
            Access::Call(m) if self.known_mode(query.relation, m) => *asks += 1,
            Access::Call(_) => *work = true,
            Access::Index(_) | Access::Scan | Access::Delta => {
                if !matches!(
                    self.plan.relations[query.relation.0 as usize].evaluation,
                    Evaluation::Static(_)
                ) {
                    *work = true;
                }
            }
            Access::Flag | Access::Member | Access::Input => {}
        };
        match node {
            Node::Sequence(children) => {
                for child in children {
                    self.known_work(child, work, asks);
                }
            }
            Node::Repeat(body) => self.known_work(body, work, asks),
            Node::SemiNaive {
                initial, rounds, ..
            } => {
                self.known_work(initial, work, asks);
                self.known_work(rounds, work, asks);
            }
            Node::Rule { body, .. } => self.known_work(body, work, asks),
            Node::Query { query: q, then } => {
                query(q);
                self.known_work(then, work, asks);
            }
            Node::If { test, then } => {
                if let Test::Absent(q) = test {
                    query(q);
                }
                self.known_work(then, work, asks);
            }
            Node::Accept { .. } => {}
        }
    }

    /// Whether mode `m` of demand relation `r` has a memo field: every mode but the
    /// known ones evaluated at every ask.
    pub(super) fn has_memo(&self, r: RelationId, m: usize) -> bool {
        !self.known_mode(r, m) || self.known_memoised(r, m)
    }

    /// Whether a rule body reads `relation` (a query or a negated query on it).
    pub(super) fn reads(node: &Node, relation: RelationId) -> bool {
        match node {
            Node::Sequence(children) => children.iter().any(|c| Self::reads(c, relation)),
            Node::Repeat(body) | Node::Rule { body, .. } => Self::reads(body, relation),
            Node::SemiNaive {
                initial, rounds, ..
            } => Self::reads(initial, relation) || Self::reads(rounds, relation),
            Node::Accept { .. } => false,
            Node::If { test, then } => {
                matches!(test, Test::Absent(q) if q.relation == relation)
                    || Self::reads(then, relation)
            }
            Node::Query { query, then } => {
                query.relation == relation || Self::reads(then, relation)
            }
        }
    }

    /// A memo's constructor: tables kept unique by a bitset over the free columns when
    /// their domains' product is at most [`MAX_MEMO_TABLE_BITS`] (a bit test per answer
    /// instead of hashing the row) and the relation depends on the state, else by
    /// hashing.
    pub(super) fn memo_init(&self, r: RelationId, bound: &[usize]) -> TokenStream {
        let columns = &self.ir.relation(r).columns;
        let arity = lit(columns.len());
        let key_len = lit(bound.len());
        let bits = (0..columns.len())
            .filter(|c| !bound.contains(c))
            .try_fold(1usize, |bits, c| {
                bits.checked_mul(columns[c].domain.len().max(1))
            });
        // A static relation's memo is bounded from state to state, dropping and making
        // tables again; a table with bits costs allocations to make (gt_two_thirds:
        // +16 % instructions), a hashed one none until its first answer.
        let kept = self.ir.layers[self.ir.layer_of[r.0 as usize]].phase == Phase::Static;
        match bits {
            Some(bits) if bits <= MAX_MEMO_TABLE_BITS && bound.len() < columns.len() && !kept => {
                let domains = columns.iter().map(|c| {
                    let d = c.domain.iter().map(|&s| sym(s));
                    quote!(&[#(#d),*])
                });
                let bound = bound.iter().map(|&c| lit(c));
                let num_symbols = lit(self.ir.symbols.len());
                quote!(rt::Memo::with_bits(
                    #arity,
                    #key_len,
                    rt::Store::memo_bitset(&[#(#domains),*], &[#(#bound),*], #num_symbols)
                ))
            }
            _ => quote!(rt::Memo::new(#arity, #key_len)),
        }
    }
}

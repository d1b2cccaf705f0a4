//! Word joins ([`Emitter::word_join`]): the last join of a rule over one variable's
//! positions as a word — where the fields come from (a bits-only relation or one of its
//! copies, the state, a static relation's constant table of bits) and where the word
//! goes (the head's field, the next state's).
//!
//! **Word joins**: the last join of a rule that scans a bits-only relation whose column
//! numbered last (stride 1, at most 64 values) binds the rule's last variable, followed
//! only by tests and an insert into a bits-only head (`Emitter::tests_then_accept`), runs
//! as word operations (`Emitter::word_join`): the scanned field, and-ed with the field of
//! each test of that variable (a relation's bits or a copy in which its column is
//! numbered last — made for the purpose when no numbering has it so,
//! `Emitter::word_copies`, up to 4,096 bits; negated for `not`), or-ed into the head's
//! field; tests not reading the variable guard the word; the head's copies are set from
//! the new bits. A static relation (scanned or tested) is read as words too, from a
//! constant table of its tuples' bits with the variable's column numbered last and each
//! column over its values (`Emitter::static_word_field`, `STATIC_FIELDS_<r>_<column>`, at
//! most 2^16 bits, written only for the joins that read it): knight jumps from a square,
//! adjacency along a direction. The state is read as words likewise, its block's last
//! column with stride 1 (`Emitter::state_word_scan`, `WordSource::State`): as a scan with
//! the block's other columns known (`king-at`: the mover's king's word) or bound here and
//! enumerated, their domains multiplying to at most 64 (`occupied`: the or of the twelve
//! words of colour and piece), and as a test (the tested variable's field of the block: a
//! mask). A scan of a whole static relation, every column bound here to a distinct
//! variable, enumerates the columns but the last over their values (at most 64
//! combinations) and reads the last one's field from its constant table
//! (`Emitter::static_word_scan`): amazons' `(<= (emptycell ?x ?y) (cell ?x ?y) (not (true
//! (location ?x ?y white))) …)` is ten words of ten squares, each and-ed with the
//! complements of three of the state's words, not a hundred rows of three bit tests. A
//! scan of a bits-only relation binding every column runs once per field holding a bit,
//! the other columns decoded from the field's place: found through the words holding a
//! bit when a field never straddles words (its width divides 64), else through the list
//! of bits set. A head whose bits number another column last takes the word in a copy
//! that numbers the word's column last, if it has one, and the new bits in its own bits
//! one by one (`colour-on ?s ?c`, copied colour first: each colour and piece's word of
//! squares or-ed into the copy).

use super::*;

/// The code running `body` once per field of `width` bits of the bit set `store`
/// (field `k` is bits `k * width ..`) that holds a bit, the field's number in the local
/// `field`. When a field never straddles words (`width` divides 64), through the words
/// holding a bit, each once (`BitSet::nonzero_words`), so the set needs no list of its
/// bits; else through the list of bits set, repeats of the field just met skipped.
pub(super) fn for_each_field_with_a_bit(
    store: &Ident,
    width: usize,
    field: &Ident,
    body: TokenStream,
) -> TokenStream {
    let n = lit(width);
    if width == 64 {
        return quote! {
            for i in 0..self.#store.nonzero_words() {
                let #field = self.#store.nonzero_word(i);
                #body
            }
        };
    }
    if 64 % width == 0 {
        let mask = Literal::u64_unsuffixed(u64::MAX >> (64 - width));
        return quote! {
            for i in 0..self.#store.nonzero_words() {
                let word = self.#store.nonzero_word(i);
                let mut parts = self.#store.word(word);
                while parts != 0 {
                    let part = parts.trailing_zeros() as usize / #n;
                    parts &= !(#mask << (part * #n));
                    let #field = word * (64 / #n) + part;
                    #body
                }
            }
        };
    }
    quote! {
        {
            let mut last_field = usize::MAX;
            for i in 0..self.#store.len() {
                let #field = self.#store.added(i) / #n;
                if #field == last_field {
                    continue;
                }
                last_field = #field;
                #body
            }
        }
    }
}

/// The rest of a rule after a join when it is only tests and the head (see
/// `Emitter::tests_then_accept`).
pub(super) struct TestsThenAccept<'n> {
    /// The tests in order, each with whether it is negated.
    pub(super) tests: Vec<(&'n Query, bool)>,
    /// The head's relation and arguments.
    pub(super) head: RelationId,
    pub(super) args: &'n [Arg],
}

/// Where a word join reads a field (`Emitter::word_field`): a bit set of the
/// generated code, or a static relation's constant table of bits.
#[derive(Clone)]
enum WordSource {
    Store(Ident),
    /// The state (`input.state`).
    State,
    /// The table, and its definition when no code emitted so far has it (added to
    /// the file's tables only once the word join is emitted).
    Static {
        table: Ident,
        definition: Option<TokenStream>,
    },
}

impl WordSource {
    /// The `n` bits from bit `lo`, as a word.
    pub(super) fn field(&self, lo: &TokenStream, n: &Literal) -> TokenStream {
        match self {
            WordSource::Store(store) => quote!(self.#store.field(#lo, #n)),
            WordSource::State => quote!(input.state.field(#lo, #n)),
            WordSource::Static { table, .. } => quote!(rt::word_field(&#table, #lo, #n)),
        }
    }
}

/// A query on `true` read a word at a time (`Emitter::state_word_scan`): the variable
/// whose values the word holds and their domain in the block, the first bit of the
/// field, and the variables bound here by enumerating their positions.
struct StateWordScan {
    pub(super) v: VarId,
    pub(super) lane: Vec<SymbolId>,
    pub(super) lo: TokenStream,
    pub(super) enumerated: Vec<(VarId, Vec<SymbolId>)>,
}

/// A scan of a whole static relation read a word at a time (see
/// `Emitter::static_word_scan`).
struct StaticWordScan {
    /// The variable of the column numbered in the word.
    pub(super) v: VarId,
    pub(super) source: WordSource,
    /// The bit of the constant table where the field starts.
    pub(super) lo: TokenStream,
    /// The other columns' variables, each over its column's values.
    pub(super) enumerated: Vec<(VarId, Vec<SymbolId>)>,
}

/// How a word join reads the relation it scans (see `Emitter::join_scan`).
enum JoinScan {
    /// A query on the state, its other columns bound here enumerated.
    State(StateWordScan),
    /// A whole static relation, its other columns enumerated.
    Static(StaticWordScan),
    /// A whole bits-only relation, once per field that holds a bit.
    Whole,
    /// A field of a relation whose other columns are known.
    Field,
}

impl Emitter<'_> {
    /// The last join of a rule over one variable's positions as a word (`(<= (reach ?s
    /// ?t) … (sweep ?s ?dir ?t) (not (colour-on ?t ?c)))` once `?s`, `?dir` and `?c`
    /// are bound): a scan of a bits-only relation whose column numbered last binds
    /// `?t`, followed only by tests and an insert into a bits-only head. A test of a
    /// bits-only relation with `?t`'s column numbered last (in its bits or a copy of
    /// them in another column order), its other columns known, is a mask; a test not
    /// reading `?t` guards the word. The matches are then a word: the scanned field,
    /// and-ed with each mask (negated for `not`), or-ed into the head's field (`?t`'s
    /// column numbered last there too), the head's copies set bit by bit from what was
    /// new. When the scan binds the other columns too (the whole relation), it runs
    /// once per field that has a bit, those columns decoded from where it sits: found
    /// through the words that hold a bit when fields do not straddle words (then the
    /// scan needs no list of the bits set), else through the list.
    /// `None` for any other join.
    pub(super) fn word_join(
        &self,
        query: &Query,
        then: &Node,
        sink: Sink,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        if !matches!(sink, Sink::Layer)
            || !self.direct.get()
            || !matches!(query.access, Access::Scan | Access::Index(_))
        {
            return Ok(None);
        }
        let Some((scan, v)) = self.join_scan(query) else {
            return Ok(None);
        };
        let Some(width) = self.decoded.borrow().get(&v).map(Vec::len) else {
            return Ok(None);
        };
        if width == 0 || width > 64 {
            return Ok(None);
        }
        let Some((mut code, guards)) = self.word_code(query, then, &scan, v, width) else {
            return Ok(None);
        };
        for (test, negated) in guards.into_iter().rev() {
            code = if negated {
                let exists = self.exists(test, sink)?;
                quote!({ #exists if !exists { #code } })
            } else {
                self.query(test, code, sink)?
            };
        }
        Ok(Some(self.join_scan_loops(query, scan, width, code)))
    }

    /// How a word join reads the scanned relation, and the variable `v` whose values
    /// the word holds: a query on the state or a whole static relation, its other
    /// columns enumerated; a whole bits-only relation, every column bound here to
    /// distinct variables, the last one's the word's; or one variable bound here.
    fn join_scan(&self, query: &Query) -> Option<(JoinScan, VarId)> {
        let binds: Vec<VarId> = (query.slots.iter())
            .filter_map(|slot| match slot {
                Slot::Bind(v) => Some(*v),
                _ => None,
            })
            .collect();
        let source = query.relation;
        if binds.len() > 1 && Some(source) == self.true_rel {
            let scan = self.state_word_scan(&query.slots)?;
            let v = scan.v;
            return Some((JoinScan::State(scan), v));
        }
        if binds.len() > 1 {
            // A whole static relation (`(cell ?x ?y)`): its columns but the last
            // enumerated over their values, the last one's a word of a constant table.
            if let Some(scan) = self.static_word_scan(query, &binds) {
                let v = scan.v;
                return Some((JoinScan::Static(scan), v));
            }
            // Every column bound here, to distinct variables; the last one's is the
            // word's.
            let numbered = self.bit_columns(source)?;
            let distinct: BTreeSet<VarId> = binds.iter().copied().collect();
            if binds.len() != query.slots.len() || distinct.len() != binds.len() {
                return None;
            }
            return match (numbered.last(), query.access == Access::Scan) {
                (Some(&(c, 1, _)), true) => match query.slots[c] {
                    Slot::Bind(v) => Some((JoinScan::Whole, v)),
                    _ => None,
                },
                _ => None,
            };
        }
        match binds[..] {
            [v] => Some((JoinScan::Field, v)),
            _ => None,
        }
    }

    /// The code of a word join (`scan` of `query`, `then` the rest of the rule) for
    /// one word of `width` bits of `v`'s values: the scanned field and-ed with each
    /// mask, or-ed into the head; and the tests not reading `v`, which guard it.
    /// `None` when the rest of the rule is not only tests read as masks or guards
    /// and an insert that takes a word.
    fn word_code<'n>(
        &self,
        query: &Query,
        then: &'n Node,
        scan: &JoinScan,
        v: VarId,
        width: usize,
    ) -> Option<(TokenStream, Vec<(&'n Query, bool)>)> {
        let source = query.relation;
        let (source_words, source_lo) = match scan {
            JoinScan::State(scan) => {
                let start = lit(self.run_start(v, &scan.lane)?);
                let lo = &scan.lo;
                (WordSource::State, quote!(#lo + #start))
            }
            JoinScan::Static(scan) => (scan.source.clone(), scan.lo.clone()),
            JoinScan::Whole => (WordSource::Store(Self::store(source)), quote!(offset)),
            JoinScan::Field => self.word_field(source, &query.slots, v)?,
        };
        let n = lit(width);
        let source_field = source_words.field(&source_lo, &n);
        let mut sources = vec![source_words];
        let TestsThenAccept { tests, head, args } = Self::tests_then_accept(then)?;
        let mut masks = Vec::new();
        let mut guards = Vec::new();
        for (test, negated) in tests {
            if !test.slots.contains(&Slot::Bound(v)) {
                guards.push((test, negated));
            } else {
                if (test.relation == source && Some(source) != self.true_rel)
                    || self.is_demand(test.relation)
                {
                    return None;
                }
                let (words, lo) = self.word_field(test.relation, &test.slots, v)?;
                let field = words.field(&lo, &n);
                sources.push(words);
                masks.push(if negated {
                    quote!(w &= !#field;)
                } else {
                    quote!(w &= #field;)
                });
            }
        }
        if head == source
            || Self::reads(then, head)
            || args.iter().filter(|a| **a == Arg::Var(v)).count() != 1
        {
            return None;
        }
        let or_head = if Some(head) == self.next_rel {
            self.word_into_next(args, v)
        } else {
            self.word_into(head, args, v)
        }?;
        for source in sources {
            if let WordSource::Static {
                table,
                definition: Some(definition),
            } = source
            {
                self.tables
                    .borrow_mut()
                    .entry(table.to_string())
                    .or_insert(definition);
            }
        }
        let code = quote! {
            {
                let mut w: u64 = #source_field;
                #(#masks)*
                if w != 0 {
                    #or_head
                }
            }
        };
        Some((code, guards))
    }

    /// A word join's `code` (for words of `width` bits) inside the loops of its
    /// `scan` of `query`: over the positions of the columns a scan of the state or of
    /// a static relation enumerates, or over the fields of a whole bits-only relation
    /// that hold a bit, its other columns decoded from where the field sits.
    fn join_scan_loops(
        &self,
        query: &Query,
        scan: JoinScan,
        width: usize,
        code: TokenStream,
    ) -> TokenStream {
        match scan {
            JoinScan::State(StateWordScan { enumerated, .. })
            | JoinScan::Static(StaticWordScan { enumerated, .. }) => {
                let enumerated = enumerated.iter().map(|(u, d)| (*u, d.as_slice()));
                self.for_each_position(enumerated, code)
            }
            JoinScan::Field => code,
            JoinScan::Whole => {
                let source = query.relation;
                let n = lit(width);
                let numbered = self.bit_columns(source).expect("checked above");
                let decodes = numbered[..numbered.len() - 1]
                    .iter()
                    .map(|(c, stride, domain)| {
                        let Slot::Bind(u) = query.slots[*c] else {
                            unreachable!("every column is bound here")
                        };
                        let (p, value) = (var_position(u), var(u));
                        let table = self.domain_table(domain);
                        let (stride, radix) = (lit(*stride), lit(domain.len()));
                        quote! {
                            let #p: usize = (offset / #stride) % #radix;
                            let #value: Sym = #table[#p];
                        }
                    });
                let field = format_ident!("field");
                let body = quote! {
                    let offset = field * #n;
                    #(#decodes)*
                    #code
                };
                for_each_field_with_a_bit(&Self::store(source), width, &field, body)
            }
        }
    }

    /// For [`Self::word_join`], a scan of a whole static relation, every column bound
    /// here to a distinct variable (`binds`): the variable of the last column is the
    /// word's, its field a constant table's (`Self::static_word_field`) at the
    /// positions of the other columns' variables, which are enumerated over their
    /// column's values (at most [`MAX_ENUMERATED_FIELDS`] combinations). `(cell ?x
    /// ?y)` before tests of the state's squares: ten words of ten squares, not a
    /// hundred rows.
    fn static_word_scan(&self, query: &Query, binds: &[VarId]) -> Option<StaticWordScan> {
        let Evaluation::Static(tuples) = &self.plan.relations[query.relation.0 as usize].evaluation
        else {
            return None;
        };
        let distinct: BTreeSet<VarId> = binds.iter().copied().collect();
        if query.access != Access::Scan
            || binds.len() != query.slots.len()
            || distinct.len() != binds.len()
        {
            return None;
        }
        let (&v, others) = binds.split_last()?;
        let enumerated: Vec<(VarId, Vec<SymbolId>)> = others
            .iter()
            .enumerate()
            .map(|(c, &u)| (u, static_values(tuples, c)))
            .collect();
        let mut combinations = 1usize;
        for (u, values) in &enumerated {
            // The enumeration numbers each variable by its column's values, as the
            // static query would have decoded it.
            if self.decoded.borrow().get(u) != Some(values) {
                return None;
            }
            combinations = combinations.checked_mul(values.len())?;
        }
        if combinations > MAX_ENUMERATED_FIELDS {
            return None;
        }
        let mut slots = query.slots.clone();
        for slot in &mut slots[..others.len()] {
            if let Slot::Bind(u) = *slot {
                *slot = Slot::Bound(u);
            }
        }
        let (source, lo) = self.static_word_field(query.relation, tuples, &slots, v)?;
        Some(StaticWordScan {
            v,
            source,
            lo,
            enumerated,
        })
    }

    /// The rest of a rule after a join when it is only tests (each with whether it is
    /// negated) and then the head (`None` otherwise): what [`Self::word_join`] can run
    /// on a word.
    pub(super) fn tests_then_accept(then: &Node) -> Option<TestsThenAccept<'_>> {
        let mut tests = Vec::new();
        let mut node = then;
        loop {
            let (test, negated, next) = match node {
                Node::If {
                    test: Test::Absent(test),
                    then,
                } => (test, true, then),
                Node::Query { query: test, then }
                    if test
                        .slots
                        .iter()
                        .all(|s| matches!(s, Slot::Sym(_) | Slot::Bound(_))) =>
                {
                    (test, false, then)
                }
                Node::Accept { relation, args } => {
                    return Some(TestsThenAccept {
                        tests,
                        head: *relation,
                        args,
                    });
                }
                _ => return None,
            };
            tests.push((test, negated));
            node = next;
        }
    }

    /// For [`Self::word_join`]: `w` or-ed into `head`'s field of variable `v`'s values
    /// (its column numbered last, the others known from `args`), the head's copies set
    /// from the new bits. When the head's bits number another column last but a copy
    /// of them numbers `v`'s (`colour-on ?s ?c`, copied colour first for the lookups
    /// knowing the colour), the word goes into that copy and the new bits into the
    /// head's bits and its other copies one by one.
    fn word_into(&self, head: RelationId, args: &[Arg], v: VarId) -> Option<TokenStream> {
        let numbered = self.bit_columns(head)?;
        let column = args.iter().position(|a| *a == Arg::Var(v))?;
        let lane_last = |numbered: &[(usize, usize, Vec<SymbolId>)]| {
            let (last, rest) = numbered.split_last()?;
            (last.0 == column && last.1 == 1).then_some(())?;
            Some((self.run_start(v, &last.2)?, rest.to_vec()))
        };
        let copies = self.bit_copies(head);
        let main = Self::store(head);
        // The bits or-ed as a word (the head's or a copy's) and the sets (the field,
        // its numbering) then set bit by bit.
        let (word_set, start, rest, bitwise) = match lane_last(&numbered) {
            Some((start, rest)) => {
                let bitwise: Vec<_> = copies
                    .iter()
                    .map(|c| (c.field.clone(), c.numbered.clone()))
                    .collect();
                (main, start, rest, bitwise)
            }
            None => {
                let (i, (start, rest)) = copies
                    .iter()
                    .enumerate()
                    .find_map(|(i, c)| Some((i, lane_last(&c.numbered)?)))?;
                let mut bitwise = vec![(main, numbered.clone())];
                bitwise.extend(
                    copies
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(_, c)| (c.field.clone(), c.numbered.clone())),
                );
                (copies[i].field.clone(), start, rest, bitwise)
            }
        };
        let mut lo = if rest.is_empty() {
            quote!(0)
        } else {
            self.bit_of_args(head, &rest, args)?
        };
        if start > 0 {
            let start = lit(start);
            lo = quote!(#lo + #start);
        }
        let copied = if bitwise.is_empty() {
            quote!()
        } else {
            let (p, value) = (var_position(v), var(v));
            let table = self.domain_table(self.decoded.borrow().get(&v)?);
            let mut inserts = Vec::new();
            for (field, numbered) in &bitwise {
                let bit = self.bit_of_args(head, numbered, args)?;
                inserts.push(quote!(self.#field.insert(#bit);));
            }
            quote! {
                let mut rest = fresh;
                while rest != 0 {
                    let #p: usize = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let #value: Sym = #table[#p];
                    #(#inserts)*
                }
            }
        };
        Some(quote! {
            let fresh = self.#word_set.or_field(#lo, w);
            if fresh != 0 {
                self.grew = true;
                #copied
            }
        })
    }

    /// For [`Self::word_join`] into `next` (a frame axiom filtered per square, `(<= (next
    /// (cell ?s ?c ?p)) (true (cell ?s ?c ?p)) (not (changed ?s)))`): `w` or-ed into
    /// the next state's field of variable `v`'s values, when the head's functor block
    /// numbers `v`'s column last and every other column holds a symbol of its domain or
    /// a variable whose position is known.
    fn word_into_next(&self, args: &[Arg], v: VarId) -> Option<TokenStream> {
        let Some(Arg::Sym(functor)) = args.first().copied() else {
            return None;
        };
        let block = self.blocks.iter().find(|b| b.symbol == functor)?;
        if block.keys.is_some() {
            return None;
        }
        let column = args.iter().position(|a| *a == Arg::Var(v))?;
        let (last, rest) = block.columns.split_last()?;
        if last.0 != column || last.1 != 1 {
            return None;
        }
        let start = lit(block.base + self.run_start(v, &last.2)?);
        let mut terms = vec![quote!(#start)];
        for (c, stride, domain) in rest {
            let stride = lit(*stride);
            let p = match args[*c] {
                Arg::Sym(s) => {
                    let p = lit(domain.iter().position(|&d| d == s)?);
                    quote!(#p)
                }
                Arg::Var(u) => self.known_position(u, domain)?,
            };
            terms.push(quote!(#p * #stride));
        }
        Some(quote!(self.next_bits.or_field(#(#terms)+*, w);))
    }

    /// For [`Self::word_join`]: the store (a bits-only relation's or one of its copies)
    /// in which variable `v`'s one column of `slots` is numbered last, every other
    /// column holding a symbol of its domain or a variable with a known position, and
    /// the bit where the field of `v`'s values starts. A static relation's bits in
    /// that order are a constant table (`Self::static_word_field`).
    fn word_field(
        &self,
        r: RelationId,
        slots: &[Slot],
        v: VarId,
    ) -> Option<(WordSource, TokenStream)> {
        if let Evaluation::Static(tuples) = &self.plan.relations[r.0 as usize].evaluation {
            return self.static_word_field(r, tuples, slots, v);
        }
        if Some(r) == self.true_rel {
            // A test of `v`'s value reads the field of all its values (the mask).
            let slots: Vec<Slot> = (slots.iter())
                .map(|&slot| match slot {
                    Slot::Bound(w) if w == v => Slot::Bind(v),
                    slot => slot,
                })
                .collect();
            let scan = self.state_word_scan(&slots)?;
            if scan.v != v || !scan.enumerated.is_empty() {
                return None;
            }
            let start = lit(self.run_start(v, &scan.lane)?);
            let lo = scan.lo;
            return Some((WordSource::State, quote!(#lo + #start)));
        }
        if !matches!(
            self.plan.relations[r.0 as usize].evaluation,
            Evaluation::Materialised
        ) || slots
            .iter()
            .filter(|s| matches!(s, Slot::Bind(w) | Slot::Bound(w) if *w == v))
            .count()
            != 1
        {
            return None;
        }
        let mut numberings = vec![(Self::store(r), self.bit_columns(r)?)];
        numberings.extend(
            self.bit_copies(r)
                .into_iter()
                .map(|copy| (copy.field, copy.numbered)),
        );
        'numbering: for (store, numbered) in numberings {
            let Some(((c, 1, domain), rest)) = numbered.split_last() else {
                continue;
            };
            if !matches!(slots[*c], Slot::Bind(w) | Slot::Bound(w) if w == v) {
                continue;
            }
            let Some(start) = self.run_start(v, domain) else {
                continue;
            };
            let mut terms = vec![quote!(0)];
            for (c, stride, domain) in rest {
                let p = match slots[*c] {
                    Slot::Sym(s) => {
                        let Some(p) = domain.iter().position(|&d| d == s) else {
                            continue 'numbering;
                        };
                        let p = lit(p);
                        quote!(#p)
                    }
                    Slot::Bound(w) => {
                        let Some(p) = self.known_position(w, domain) else {
                            continue 'numbering;
                        };
                        p
                    }
                    _ => continue 'numbering,
                };
                let stride = lit(*stride);
                terms.push(quote!(#p * #stride));
            }
            let start = lit(start);
            return Some((WordSource::Store(store), quote!(#(#terms)+* + #start)));
        }
        None
    }

    /// A query on `true` read a word at a time: its functor's block (dense) numbers
    /// the column of a variable `v` last, with stride 1, and every other column of
    /// the block holds a symbol, a variable with a known position, or a variable
    /// bound here only, over the whole domain the block numbers it by; the columns
    /// outside the block are nil or not looked at. Those bound here are enumerated
    /// (their domains multiply to at most [`MAX_ENUMERATED_FIELDS`]): `(true (cell ?s
    /// ?colour ?piece))` is the fields of squares of each colour and piece (a bit
    /// board each). `lo` is the first bit of `v`'s field, from the positions.
    fn state_word_scan(&self, slots: &[Slot]) -> Option<StateWordScan> {
        let true_rel = self.true_rel?;
        let top = self
            .ir
            .relation(true_rel)
            .columns
            .iter()
            .position(|c| c.path == [0])?;
        let Slot::Sym(functor) = *slots.get(top)? else {
            return None;
        };
        let block = self.blocks.iter().find(|b| b.symbol == functor)?;
        if block.keys.is_some() {
            return None;
        }
        let ((last, 1, lane), rest) = block.columns.split_last()? else {
            return None;
        };
        let Slot::Bind(v) = slots[*last] else {
            return None;
        };
        let occurrences = |u: VarId| {
            slots
                .iter()
                .filter(|s| matches!(s, Slot::Bind(w) | Slot::Bound(w) | Slot::Same(w) if *w == u))
                .count()
        };
        if occurrences(v) != 1 {
            return None;
        }
        for (c, slot) in slots.iter().enumerate() {
            let outside = c != top && !block.columns.iter().any(|(bc, _, _)| *bc == c);
            if outside && !matches!(slot, Slot::Sym(NIL) | Slot::Free) {
                return None;
            }
        }
        let base = lit(block.base);
        let mut terms = vec![quote!(#base)];
        let mut enumerated = Vec::new();
        let mut combinations: usize = 1;
        for (c, stride, domain) in rest {
            let stride_lit = lit(*stride);
            match slots[*c] {
                Slot::Sym(sym) => {
                    let p = lit(domain.iter().position(|&d| d == sym)?);
                    terms.push(quote!(#p * #stride_lit));
                }
                Slot::Bound(u) => {
                    let p = self.known_position(u, domain)?;
                    terms.push(quote!(#p * #stride_lit));
                }
                Slot::Bind(u) if occurrences(u) == 1 && self.run_start(u, domain) == Some(0) => {
                    combinations = combinations.saturating_mul(domain.len());
                    let p = var_position(u);
                    terms.push(quote!(#p * #stride_lit));
                    enumerated.push((u, domain.clone()));
                }
                _ => return None,
            }
        }
        (combinations <= MAX_ENUMERATED_FIELDS).then(|| StateWordScan {
            v,
            lane: lane.clone(),
            lo: quote!(#(#terms)+*),
            enumerated,
        })
    }

    /// [`Self::word_field`] of a static relation: its tuples' bits numbered with
    /// `v`'s column last and the others before it in their order, each over its
    /// column's values (`static_values`, the positions static queries bind), as a
    /// constant table `STATIC_FIELDS_<r>_<column>` (at most `MAX_STATIC_FIELD_BITS`):
    /// team chess's knight jumps from a square as a word of squares.
    fn static_word_field(
        &self,
        r: RelationId,
        tuples: &[Vec<SymbolId>],
        slots: &[Slot],
        v: VarId,
    ) -> Option<(WordSource, TokenStream)> {
        let is_v = |s: &Slot| matches!(s, Slot::Bind(w) | Slot::Bound(w) if *w == v);
        if slots.iter().filter(|s| is_v(s)).count() != 1 || tuples.is_empty() {
            return None;
        }
        let last = slots.iter().position(is_v)?;
        let lane = static_values(tuples, last);
        let start = self.run_start(v, &lane)?;
        let mut columns: Vec<(usize, Vec<SymbolId>)> = (0..slots.len())
            .filter(|&c| c != last)
            .map(|c| (c, static_values(tuples, c)))
            .collect();
        columns.push((last, lane));
        let mut strides = vec![1usize; columns.len()];
        for k in (0..columns.len() - 1).rev() {
            strides[k] = strides[k + 1].checked_mul(columns[k + 1].1.len())?;
        }
        let size = strides[0].checked_mul(columns[0].1.len())?;
        if size > MAX_STATIC_FIELD_BITS {
            return None;
        }
        let mut terms = vec![quote!(0)];
        for ((c, domain), stride) in columns.iter().zip(&strides).take(columns.len() - 1) {
            let p = match slots[*c] {
                Slot::Sym(s) => {
                    let p = lit(domain.iter().position(|&d| d == s)?);
                    quote!(#p)
                }
                Slot::Bound(w) => self.known_position(w, domain)?,
                _ => return None,
            };
            let stride = lit(*stride);
            terms.push(quote!(#p * #stride));
        }
        let table = format_ident!("STATIC_FIELDS_{}_{}", r.0, last);
        let mut definition = None;
        if !self.tables.borrow().contains_key(&table.to_string()) {
            let mut words = vec![0u64; size.div_ceil(64)];
            for row in tuples {
                let bit = dense_key(&columns, &strides, row);
                words[bit / 64] |= 1 << (bit % 64);
            }
            let len = lit(words.len());
            let values = words.iter().map(|&w| Literal::u64_unsuffixed(w));
            let doc = format!(
                "`{}`'s tuples as bits, column {last} numbered last (word joins read its fields).",
                self.ir.relation(r).key()
            );
            definition = Some(quote!(#[doc = #doc] static #table: [u64; #len] = [#(#values),*];));
        }
        let start = lit(start);
        Some((
            WordSource::Static { table, definition },
            quote!(#(#terms)+* + #start),
        ))
    }
}

//! Accepted tuples into stores: a tuple's bit numbered in line (direct inserts, coded
//! bits), whole relations copied or mapped into another bit by bit or word by word, and
//! the next state's bits (`next` heads, frame axioms copying a block).
//!
//! **`next`**: heads set bits of the next state directly; a frame axiom `(<= (next (f
//! ?x…)) (true (f ?x…)))` copies `f`'s block word by word, and one whose last join is a
//! word (a state word scan filtered by fields of bits-only relations, `(<= (next (cell ?s
//! ?c ?p)) (true (cell ?s ?c ?p)) (not (changed ?s)))`) or-s that word into the next
//! state (`Emitter::word_into_next`, `Bits::or_field`) when the head's block numbers the
//! word's variable last.
//!
//! **Copies of relations numbered alike**: a rule of one literal on a materialised
//! bits-only relation whose head is another bits-only relation with the same variables in
//! the same columns and the same numbered columns (domains and strides) sets the source's
//! bits in the head as they are (`Emitter::bits_copied`): a word at a time through
//! `or_field`: every word when at most 256 bits, else the words holding a bit.
//!
//! **Copies of relations numbered otherwise**: the same rule whose head takes the
//! source's variables (or some of them: team chess's `pinned-piece` of `pin`) in another
//! column order, over other domains or beside constants (amazons' `(<= (rookmove ?x1 ?y1
//! ?x2 ?y2) (horizontalmove ?x2 ?y2 ?x1 ?y1))`), when no word join takes it (the source's
//! last column numbered last in the head) and the source has at most 2^14 bits: each set
//! bit of the source (through the words holding one) is the head's bit read from a
//! constant table made for the rule (`Emitter::bits_mapped`, `BIT_MAP_<hash>_<len>`,
//! `u32::MAX` where the head's domains lack a value), rather than decoded into positions
//! and numbered again.
//!
//! **Copies of moves into `legal`**: a rule of `legal` whose last join scans a coded
//! relation of moves (`(<= (legal ?c ?m) (true (control ?c)) (mover-move ?m))`) whose
//! functor blocks are `legal`'s (same symbols, bases, strides and domains: such a
//! relation is numbered in text order like `legal`, `copied_into_legal`) adds the
//! source's row bits at the bound columns' offset (`Emitter::coded_copy`,
//! `rt::Store::insert_bits_at`). A materialised coded relation read only by such copies
//! and by scans asking whether it is empty keeps no rows (`only_copied_or_tested`).
//!
//! **`self.grew` only where read**: a direct insert notes that it added a tuple
//! (`self.grew |= …`) only inside a `Node::Repeat`, whose rounds read it
//! (`Emitter::growing`); elsewhere it is a statement (amazons' moves: a store to memory
//! per move less).
//!
//! A rule whose body does not read its head, or reads it as bits only (bit tests, cursors
//! and a delta's bit numbers borrow the bits briefly; a bit set during a round is seen by
//! it or the next), inserts accepted tuples directly; the others buffer them in `pending`
//! until the rule is done.

use super::*;

impl Emitter<'_> {
    /// The statement running `insert` (an expression: whether it added a tuple), noting
    /// in `self.grew` that it did only inside a [`Node::Repeat`], whose rounds read it.
    fn growing(&self, insert: TokenStream) -> TokenStream {
        if self.repeats.get() > 0 {
            quote!(self.grew |= #insert;)
        } else {
            quote!(#insert;)
        }
    }

    /// Adds an accepted tuple straight to its relation's store: bitset relations get
    /// the bit numbered here (from decoded positions where the variables have them).
    pub(super) fn direct_insert(&self, relation: RelationId, args: &[Arg]) -> TokenStream {
        let store = Self::store(relation);
        let values: Vec<TokenStream> = args.iter().map(|&a| Self::value(a)).collect();
        // A store without rows (`Store::without_rows`) keeps a tuple as its bit alone:
        // no tuple to build for it.
        let row: &[TokenStream] = if self.rows_unread(relation) {
            &[]
        } else {
            &values
        };
        if let Some(bit) = self.coded_bit(relation, args) {
            if self.bits_alone(relation) {
                return self.growing(quote!(self.#store.insert_unlisted_bit(#bit)));
            }
            return self.growing(quote!(self.#store.insert_bit(#bit, &[#(#row),*])));
        }
        let Some(numbered) = self.numbered_columns(relation) else {
            return self.growing(quote!(self.#store.insert(&[#(#values),*])));
        };
        let Some(bit) = self.bit_of_args(relation, &numbered, args) else {
            return quote!(panic!("gdlc internal error: a tuple outside the domains of its relation"););
        };
        if self.bit_columns(relation).is_none() {
            return self.growing(quote!(self.#store.insert_bit(#bit, &[#(#row),*])));
        }
        let copies = self.bit_copies(relation);
        if copies.is_empty() {
            return self.growing(quote!(self.#store.insert(#bit)));
        }
        let mut inserts = Vec::new();
        for copy in &copies {
            let field = &copy.field;
            let bit = self
                .bit_of_args(relation, &copy.numbered, args)
                .expect("the same domains as the relation's bits");
            inserts.push(quote!(self.#field.insert(#bit);));
        }
        quote! {
            if self.#store.insert(#bit) {
                self.grew = true;
                #(#inserts)*
            }
        }
    }

    /// A rule body that is one scan of a materialised relation and then the head, a
    /// relation other than the scanned one, `next` and any relation with copies of its
    /// bits: the scan, the head and its arguments (what [`Self::bits_copied`] and
    /// [`Self::bits_mapped`] copy).
    fn relation_copy<'n>(&self, body: &'n Node) -> Option<(&'n Query, RelationId, &'n [Arg])> {
        let Node::Query { query, then } = body else {
            return None;
        };
        let Node::Accept { relation, args } = then.as_ref() else {
            return None;
        };
        let (head, source) = (*relation, query.relation);
        if head == source
            || Some(head) == self.next_rel
            || query.access != Access::Scan
            || self.plan.relations[source.0 as usize].evaluation != Evaluation::Materialised
            || !self.bit_copies(head).is_empty()
        {
            return None;
        }
        Some((query, head, args))
    }

    /// A rule that copies one bits-only relation into another numbered alike
    /// (`(<= (queen ?a ?b ?c ?d) (rook ?a ?b ?c ?d))`, the same variables in the same
    /// columns, over the same domains): the source's bits are set in the head as they
    /// are, a word at a time (every word of a narrow relation, else the words that hold
    /// a bit), rather than decoded into positions and numbered again. `None` for any
    /// other rule.
    pub(super) fn bits_copied(&self, body: &Node) -> Option<TokenStream> {
        let (query, head, args) = self.relation_copy(body)?;
        let source = query.relation;
        if args.len() != query.slots.len() {
            return None;
        }
        let same_columns = query
            .slots
            .iter()
            .zip(args)
            .all(|(slot, arg)| matches!((slot, arg), (Slot::Bind(v), Arg::Var(w)) if v == w));
        let numbered = self.bit_columns(head)?;
        if !same_columns || self.bit_columns(source)? != numbered {
            return None;
        }
        let (head, source) = (Self::store(head), Self::store(source));
        let size = numbered
            .first()
            .map_or(1, |(_, stride, domain)| stride * domain.len());
        if size <= STORE_LIST_SCAN_BITS {
            // A few words: each copied whole, its new bits listed.
            let fields = (0..size).step_by(64).map(|lo| {
                let n = lit((size - lo).min(64));
                let lo = lit(lo);
                quote!(self.grew |= self.#head.or_field(#lo, self.#source.field(#lo, #n)) != 0;)
            });
            return Some(quote!({ #(#fields)* }));
        }
        // Else the words that hold a bit, each copied whole.
        Some(quote! {
            for i in 0..self.#source.nonzero_words() {
                let word = self.#source.nonzero_word(i);
                self.grew |= self.#head.or_field(word * 64, self.#source.word(word)) != 0;
            }
        })
    }

    /// A rule that copies one bits-only relation into another numbered otherwise
    /// (`(<= (rook ?a ?b ?c ?d) (horizontal ?c ?d ?a ?b))`: its columns in another
    /// order, over other domains, some of them only, or with constants in the head): each of the source's
    /// bits maps to the head's bit through a constant table made here
    /// (`BIT_MAP_<hash>_<len>`, `u32::MAX` where the head's domains lack a value), so a
    /// tuple costs a load and an insert rather than being decoded into positions and
    /// numbered again. Only for sources of at most [`MAX_MAPPED_BITS`] bits, heads
    /// without copies, and rules a word join does not take (the source's last column
    /// numbered last in the head too). `None` for any other rule.
    pub(super) fn bits_mapped(&self, body: &Node) -> Option<TokenStream> {
        let (query, head, args) = self.relation_copy(body)?;
        let source = query.relation;
        // Every source column binds its own variable.
        let mut column_of = BTreeMap::new();
        for (c, slot) in query.slots.iter().enumerate() {
            let Slot::Bind(v) = slot else {
                return None;
            };
            if column_of.insert(*v, c).is_some() {
                return None;
            }
        }
        let from = self.bit_columns(source)?;
        let to = self.bit_columns(head)?;
        let size = from
            .first()
            .map_or(1, |(_, stride, domain)| stride * domain.len());
        if size > MAX_MAPPED_BITS || to.len() != args.len() {
            return None;
        }
        // Each head column: the source column whose value it takes, or a constant.
        let mut values = Vec::with_capacity(args.len());
        for arg in args {
            values.push(match arg {
                Arg::Var(v) => Err(*column_of.get(v)?),
                Arg::Sym(s) => Ok(*s),
            });
        }
        let (&(last_from, ..), &(last_to, ..)) = (from.last()?, to.last()?);
        if values[last_to] == Err(last_from) {
            return None;
        }
        let map: Vec<u32> = (0..size)
            .map(|bit| {
                let symbol = |c: usize| {
                    let (_, stride, domain) = &from[c];
                    domain[(bit / stride) % domain.len()]
                };
                let mut target = 0usize;
                for (c, (_, stride, domain)) in to.iter().enumerate() {
                    let value = match values[c] {
                        Err(source_column) => symbol(source_column),
                        Ok(constant) => constant,
                    };
                    match domain.iter().position(|&d| d == value) {
                        Some(p) => target += p * stride,
                        None => return u32::MAX,
                    }
                }
                u32::try_from(target).unwrap_or(u32::MAX)
            })
            .collect();
        // FNV-1a over the map, as for the domains' tables: the name follows the
        // contents, so the output stays deterministic.
        let hash = fnv1a(map.iter().flat_map(|m| m.to_le_bytes()));
        let table = format_ident!("BIT_MAP_{:016X}_{}", hash, map.len());
        let len = lit(map.len());
        let entries = map.iter().map(|&m| Literal::u32_unsuffixed(m));
        self.tables.borrow_mut().insert(
            table.to_string(),
            quote! {
                #[doc = "Each bit of a relation's bits mapped to another relation's bit (`u32::MAX`: none)."]
                static #table: [u32; #len] = [#(#entries),*];
            },
        );
        let (head, source) = (Self::store(head), Self::store(source));
        Some(quote! {
            for i in 0..self.#source.nonzero_words() {
                let word = self.#source.nonzero_word(i);
                let mut rest = self.#source.word(word);
                while rest != 0 {
                    let to = #table[word * 64 + rest.trailing_zeros() as usize];
                    rest &= rest - 1;
                    if to != u32::MAX {
                        self.grew |= self.#head.insert(to as usize);
                    }
                }
            }
        })
    }

    /// The last join of a rule that copies every tuple of a coded relation into a coded
    /// head without rows under outer columns already bound (`(<= (legal ?c ?m) (true
    /// (control ?c)) (mover-move ?m))`), when the source's blocks are the head's, laid
    /// out alike: the head's bit of a tuple is then the source's bit plus the bound
    /// columns' offset, and the source's bits are added at that offset as they are,
    /// rather than each row decoded and numbered again. `None` for any other join.
    pub(super) fn coded_copy(&self, query: &Query, then: &Node, sink: Sink) -> Option<TokenStream> {
        if !matches!(sink, Sink::Layer) || !self.direct.get() {
            return None;
        }
        self.copied_bits(query, then)
    }

    /// The copy [`Self::coded_copy`] emits for a join of a rule whose accepted tuples
    /// go straight to the head's store, if the join has its shape.
    pub(super) fn copied_bits(&self, query: &Query, then: &Node) -> Option<TokenStream> {
        let Node::Accept { relation, args } = then else {
            return None;
        };
        let (head, source) = (*relation, query.relation);
        if head == source
            || Some(head) == self.next_rel
            || query.access != Access::Scan
            || self.plan.relations[source.0 as usize].evaluation != Evaluation::Materialised
            || !self.rows_unread(head)
        {
            return None;
        }
        let (from, to) = (self.coded_numbering(source)?, self.coded_numbering(head)?);
        if !from.outer.is_empty() {
            return None;
        }
        // Each source column's variable is the head's in one column.
        let mut head_column = Vec::with_capacity(query.slots.len());
        for slot in &query.slots {
            let Slot::Bind(v) = slot else {
                return None;
            };
            let at: Vec<usize> = (0..args.len())
                .filter(|&c| args[c] == Arg::Var(*v))
                .collect();
            let [c] = at[..] else {
                return None;
            };
            head_column.push(c);
        }
        let mapped_alike =
            |(c, stride, domain): &(usize, usize, Vec<SymbolId>),
             (d, their_stride, their_domain): &(usize, usize, Vec<SymbolId>)| {
                head_column[*c] == *d && stride == their_stride && domain == their_domain
            };
        let same_blocks = head_column[from.top] == to.top
            && from.blocks.iter().all(|block| {
                to.blocks.iter().any(|theirs| {
                    theirs.symbol == block.symbol
                        && theirs.base == block.base
                        && theirs.size == block.size
                        && block.keys.is_none()
                        && theirs.keys.is_none()
                        && block.columns.len() == theirs.columns.len()
                        && block
                            .columns
                            .iter()
                            .zip(&theirs.columns)
                            .all(|(a, b)| mapped_alike(a, b))
                })
            });
        let outer_columns: Vec<usize> = to.outer.iter().map(|(c, _)| *c).collect();
        let rest_outer = (0..args.len())
            .filter(|c| !head_column.contains(c))
            .eq(outer_columns.iter().copied());
        if !same_blocks || !rest_outer {
            return None;
        }
        let outer = to.outer_numbered();
        let offset = if outer.is_empty() {
            quote!(0)
        } else {
            self.bit_of_args(head, &outer, args)?
        };
        let (head, source) = (Self::store(head), Self::store(source));
        Some(quote! {
            self.grew |= self.#head.insert_bits_at(#offset, self.#source.row_bits());
        })
    }

    /// The bit of an accepted tuple of a relation with a coded numbering and a
    /// positions table (see [`Self::coded_positions`]) whose functor is a constant:
    /// the block's base plus the mixed-radix number of the other columns.
    fn coded_bit(&self, relation: RelationId, args: &[Arg]) -> Option<TokenStream> {
        if !self.coded_positions(relation) {
            return None;
        }
        let coded = self.coded_numbering(relation)?;
        let outer = coded.outer_numbered();
        let block_bit = |block: &FunctorBlock| {
            let mut numbered = outer.clone();
            numbered.extend(block.columns.iter().cloned());
            let bit = self.bit_of_args(relation, &numbered, args)?;
            let base = lit(block.base);
            Some(quote!(#base + #bit))
        };
        match args[coded.top] {
            Arg::Sym(functor) => block_bit(coded.blocks.iter().find(|b| b.symbol == functor)?),
            // The functor is known at run time only: one arm per block.
            Arg::Var(v) if coded.blocks.len() <= MAX_CODED_ARMS => {
                let v = var(v);
                let mut arms = Vec::new();
                for block in &coded.blocks {
                    let symbol = sym(block.symbol);
                    let bit = block_bit(block)?;
                    arms.push(quote!(#symbol => #bit,));
                }
                Some(quote!(match #v {
                    #(#arms)*
                    _ => panic!("gdlc internal error: a tuple outside the domains of its relation"),
                }))
            }
            Arg::Var(_) => None,
        }
    }

    /// The bit of an accepted tuple in bits numbered as `numbered`, from decoded
    /// positions where the variables have them; `None` when a symbol of `args` is
    /// outside its column's domain.
    pub(super) fn bit_of_args(
        &self,
        relation: RelationId,
        numbered: &[(usize, usize, Vec<SymbolId>)],
        args: &[Arg],
    ) -> Option<TokenStream> {
        let table = Self::positions(relation);
        let num_symbols = self.ir.symbols.len();
        let mut terms = Vec::new();
        for (c, stride, domain) in numbered {
            let stride_lit = lit(*stride);
            match args[*c] {
                Arg::Sym(s) => {
                    let term = lit(domain.iter().position(|&d| d == s)? * stride);
                    terms.push(quote!(#term));
                }
                Arg::Var(v) => match self.known_position(v, domain) {
                    Some(p) => terms.push(quote!(#p * #stride_lit)),
                    None => {
                        let offset = lit(c * num_symbols);
                        let value = var(v);
                        let term = quote!(#table[#offset + #value as usize] as usize * #stride_lit);
                        terms.push(self.hoisted(v, term));
                    }
                },
            }
        }
        Some(quote!(#(#terms)+*))
    }

    /// The state block a `next` rule copies whole, if it is a frame axiom
    /// `(<= (next (f ?x…)) (true (f ?x…)))` over all of `f`'s columns.
    pub(super) fn frame_block(&self, rule: &Node) -> Option<&FunctorBlock> {
        let Node::Rule { body, .. } = rule else {
            return None;
        };
        let Node::Query { query, then } = body.as_ref() else {
            return None;
        };
        let Node::Accept { relation, args } = then.as_ref() else {
            return None;
        };
        if Some(query.relation) != self.true_rel
            || Some(*relation) != self.next_rel
            || query.slots.len() != args.len()
        {
            return None;
        }
        let Some(Slot::Sym(functor)) = query.slots.first().copied() else {
            return None;
        };
        let block = self.blocks.iter().find(|b| b.symbol == functor)?;
        let same = query
            .slots
            .iter()
            .zip(args)
            .all(|(slot, arg)| match (slot, arg) {
                (Slot::Sym(s), Arg::Sym(a)) => s == a,
                (Slot::Bind(v), Arg::Var(a)) => v == a,
                _ => false,
            });
        let all_bound = block
            .columns
            .iter()
            .all(|(c, _, _)| matches!(query.slots[*c], Slot::Bind(_)));
        (same && all_bound).then_some(block)
    }

    /// Sets the state bit of a `next` head.
    pub(super) fn next_accept(&self, args: &[Arg]) -> Result<TokenStream, Diagnostic> {
        let values: Vec<TokenStream> = args.iter().map(|&a| Self::value(a)).collect();
        let Some(Arg::Sym(functor)) = args.first().copied() else {
            return Ok(quote! {
                let tuple = [#(#values),*];
                match input.fluents.code(&tuple) {
                    Some(bit) => self.next_bits.set(bit),
                    None => rt::outside_layout(&META, &tuple),
                }
            });
        };
        // A head outside the layout belongs to a rule the analysis found dead (its body
        // can never hold); should it fire anyway, that is reported, not mis-encoded.
        let unreachable = quote!(rt::outside_layout(&META, &[#(#values),*]););
        let Some(block) = self.blocks.iter().find(|b| b.symbol == functor) else {
            return Ok(unreachable);
        };
        let num_symbols = self.ir.symbols.len();
        let positions = self.fluent_positions();
        let mut terms = vec![quote!(0)];
        for (c, stride, domain) in &block.columns {
            let stride = lit(*stride);
            match args[*c] {
                Arg::Sym(s) => {
                    let Some(p) = domain.iter().position(|&d| d == s) else {
                        return Ok(unreachable);
                    };
                    let p = lit(p);
                    terms.push(quote!(#p * #stride));
                }
                Arg::Var(v) => {
                    if let Some(p) = self.known_position(v, domain) {
                        terms.push(quote!(#p * #stride));
                        continue;
                    }
                    let v = var(v);
                    let offset = lit(c * num_symbols);
                    terms.push(quote!({
                        let p = #positions[#offset + #v as usize];
                        if p == NONE {
                            rt::outside_layout(&META, &[#(#values),*]);
                        }
                        p as usize
                    } * #stride));
                }
            }
        }
        let base = lit(block.base);
        Ok(match &block.keys {
            Some((_, keys)) => quote! {
                match rt::listed_rank(&#keys, #(#terms)+*) {
                    Some(i) => self.next_bits.set(#base + i),
                    None => rt::outside_layout(&META, &[#(#values),*]),
                }
            },
            None => quote!(self.next_bits.set(#base + #(#terms)+*);),
        })
    }
}

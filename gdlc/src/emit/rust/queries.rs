//! Queries ([`Emitter::query`]) by what holds the relation — the state, the joint move,
//! a constant table, a memo table, a call's key, a store's bits or rows — and a tuple's
//! columns matched against a query's slots.

use super::*;

impl Emitter<'_> {
    /// `(array[c], slot)` for every column `c`: a tuple read from the local `array`.
    pub(super) fn read_from(array: &Ident, slots: &[Slot]) -> Vec<(TokenStream, Slot)> {
        slots
            .iter()
            .enumerate()
            .map(|(c, &s)| {
                let c = lit(c);
                (quote!(#array[#c]), s)
            })
            .collect()
    }

    /// Conditions and bindings matching `(value, slot)` pairs: `Sym`, `Bound` and
    /// `Same` slots become conditions, `Bind` slots `let`s.
    pub(super) fn matcher(columns: &[(TokenStream, Slot)]) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let mut conds = Vec::new();
        let mut binds = Vec::new();
        // A `Same` column may come before its `Bind` column (the state's blocks order
        // columns by use, `state_column_orders`): it compares with that value.
        let mut bound_here: BTreeMap<VarId, TokenStream> = BTreeMap::new();
        for (value, slot) in columns {
            if let Slot::Bind(v) = *slot {
                bound_here.entry(v).or_insert_with(|| value.clone());
            }
        }
        for (value, slot) in columns {
            match *slot {
                Slot::Sym(s) => {
                    let s = sym(s);
                    conds.push(quote!(#value == #s));
                }
                Slot::Bound(v) => {
                    let v = var(v);
                    conds.push(quote!(#value == #v));
                }
                Slot::Same(v) => match bound_here.get(&v) {
                    Some(first) => conds.push(quote!(#value == #first)),
                    None => {
                        let v = var(v);
                        conds.push(quote!(#value == #v));
                    }
                },
                Slot::Bind(v) => {
                    let v = var(v);
                    binds.push(quote!(let #v: Sym = #value;));
                }
                Slot::Free => {}
            }
        }
        (conds, binds)
    }

    pub(super) fn guarded(conds: &[TokenStream], body: TokenStream) -> TokenStream {
        if conds.is_empty() {
            body
        } else {
            quote!(if #(#conds)&&* { #body })
        }
    }

    /// The code running `then` for each match of `query`.
    pub(super) fn query(
        &self,
        query: &Query,
        then: TokenStream,
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        let r = query.relation;
        if Some(r) == self.true_rel {
            return Ok(self.true_query(query, then));
        }
        if Some(r) == self.does_rel {
            return Ok(self.does_query(query, then));
        }
        if let Evaluation::Static(tuples) = &self.plan.relations[r.0 as usize].evaluation {
            return Ok(self.static_query(r, tuples, query, then));
        }
        if let Access::Call(m) = query.access {
            return self.call_query(query, m, then, sink);
        }
        if let Access::Input = query.access {
            return self.input_query(query, then, sink);
        }
        if self.is_demand(r) {
            return Err(backend_error(format!(
                "internal error: `{}` is demand-evaluated but queried without a call",
                self.ir.relation(r).key()
            )));
        }
        self.store_query(query, then)
    }

    /// A call to mode `m` of a demand relation: a walk's answers read back, the mode's
    /// rules inlined, a known mode asked, or the rows of the call's memo table.
    fn call_query(
        &self,
        query: &Query,
        m: usize,
        then: TokenStream,
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        let r = query.relation;
        let slots = &query.slots;
        if sink == Sink::Inline
            && let Some((inline::Walk::Answers, depth)) = self.walk_of(r.0 as usize, m)
        {
            return Ok(self.walk_answers(depth, query, then));
        }
        if let Some(inlined) = self.inlined_call(query, &then)? {
            return Ok(inlined);
        }
        let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation else {
            return Err(backend_error(format!(
                "internal error: a call to `{}`, which is not demand-evaluated",
                self.ir.relation(r).key()
            )));
        };
        let key = modes[m].bound.iter().map(|&c| key_value(slots[c]));
        if self.known_mode(r, m) {
            let ask = format_ident!("ask{}_{}", r.0, m);
            return Ok(quote! {
                if self.#ask(input, &[#(#key),*]) {
                    #then
                }
            });
        }
        let call = format_ident!("call{}_{}", r.0, m);
        let memo = Self::memo(r, m);
        let t = self.fresh("t");
        // A call back into an `Own` mode has the call's key: its table is the one
        // being filled.
        let own = sink == Sink::Memo(r.0 as usize, m)
            && self.closure(r.0 as usize, m) == Some(Closure::Own);
        let call = if own {
            quote!(memo_table)
        } else {
            quote!(self.#call(input, &[#(#key),*]))
        };
        let i = self.fresh("i");
        let row = self.fresh("row");
        let columns = Self::read_from(&row, slots);
        let (conds, binds) = Self::matcher(&columns);
        let body = Self::guarded(&conds, quote!(#(#binds)* #then));
        Ok(quote! {
            let #t = #call;
            let mut #i = 0;
            while #i < self.#memo.table(#t).len() {
                let #row = self.#memo.table(#t).row(#i);
                #i += 1;
                #body
            }
        })
    }

    /// A demand rule's input: the call's key matched against the bound columns.
    fn input_query(
        &self,
        query: &Query,
        then: TokenStream,
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        let (rel, m) = match sink {
            Sink::Memo(rel, m) | Sink::Known(rel, m) => (rel, m),
            Sink::Inline => self.inlined_mode(),
            _ => {
                return Err(backend_error(
                    "internal error: a demand call's input outside a demand rule",
                ));
            }
        };
        let Evaluation::Demand(modes) = &self.plan.relations[rel].evaluation else {
            return Err(backend_error(
                "internal error: input of a non-demand relation",
            ));
        };
        let bound = &modes[m].bound;
        let columns: Vec<(TokenStream, Slot)> = (query.slots.iter())
            .enumerate()
            .map(|(c, &s)| match bound.iter().position(|&b| b == c) {
                Some(j) => {
                    let j = lit(j);
                    (quote!(key[#j]), s)
                }
                None => (quote!(0), Slot::Free),
            })
            .collect();
        let (conds, binds) = Self::matcher(&columns);
        Ok(Self::guarded(&conds, quote!(#(#binds)* #then)))
    }

    /// A query on a derived relation's store: its bits (or a copy's) where it has
    /// them for this access, else its rows — a delta's, an index's, all of them.
    fn store_query(&self, query: &Query, then: TokenStream) -> Result<TokenStream, Diagnostic> {
        let r = query.relation;
        let slots = &query.slots;
        let store = Self::store(r);
        // Bits only (a semi-naive delta: the bits set in the last round); or a bitset
        // store with rows tested for one tuple: the bit is numbered here, as for its
        // inserts (`rt::Store::has_bit`).
        let copy = match &query.access {
            Access::Index(columns) => self
                .bit_copies(r)
                .into_iter()
                .find(|copy| copy.columns == *columns),
            _ => None,
        };
        let (numbered, store) = match (copy, self.bit_columns(r)) {
            (Some(copy), _) => (Some(copy.numbered), copy.field),
            (None, Some(numbered)) => (Some(numbered), store),
            (None, None) if query.access == Access::Member => (self.numbered_columns(r), store),
            (None, None) => (None, store),
        };
        if let Some(numbered) = numbered {
            return Ok(self.store_bits_query(query, &numbered, store, then));
        }
        if query.access == Access::Delta {
            let delta = Self::delta(r);
            let row = self.fresh("row");
            let i = self.fresh("i");
            let columns = Self::read_from(&row, slots);
            let (conds, binds) = Self::matcher(&columns);
            let body = Self::guarded(&conds, quote!(#(#binds)* #then));
            return Ok(quote! {
                for #i in #delta.0..#delta.1 {
                    let #row = self.#store.row(#i);
                    #body
                }
            });
        }
        Ok(match &query.access {
            Access::Flag => quote!(if !self.#store.is_empty() { #then }),
            Access::Member => {
                let values = (0..slots.len()).map(|c| key_value(slots[c]));
                quote!(if self.#store.contains(&[#(#values),*]) { #then })
            }
            Access::Scan | Access::Index(_) => self.rows_query(query, &store, then)?,
            Access::Call(_) | Access::Input | Access::Delta => unreachable!("handled above"),
        })
    }

    /// A query read from the bits of `store` (the relation's or a copy's, numbered as
    /// `numbered`): a flag, or [`Self::bits_query`].
    fn store_bits_query(
        &self,
        query: &Query,
        numbered: &[(usize, usize, Vec<SymbolId>)],
        store: Ident,
        then: TokenStream,
    ) -> TokenStream {
        let r = query.relation;
        if query.access == Access::Flag {
            return quote!(if !self.#store.is_empty() { #then });
        }
        let size = numbered
            .first()
            .map_or(1, |(_, stride, domain)| stride * domain.len().max(1));
        let table = Self::positions(r);
        let bits = if query.access == Access::Delta {
            Bits::Delta(store, Self::delta(r))
        } else {
            Bits::Store(store)
        };
        let snapshot = match &bits {
            Bits::Store(store) if self.bit_columns(r).is_some() => self.snapshot_of(r, store, size),
            _ => None,
        };
        let source = BitSource {
            base: 0,
            size,
            columns: numbered,
            positions: quote!(#table),
            bits,
            keys: None,
            snapshot,
        };
        self.bits_query(&source, &query.slots, Vec::new(), then)
    }

    /// A scan of `store`'s rows, through the query's index if it has one.
    fn rows_query(
        &self,
        query: &Query,
        store: &Ident,
        then: TokenStream,
    ) -> Result<TokenStream, Diagnostic> {
        let r = query.relation;
        let slots = &query.slots;
        let row = self.fresh("row");
        let columns = Self::read_from(&row, slots);
        let (conds, binds) = Self::matcher(&columns);
        let body = Self::guarded(&conds, quote!(#(#binds)* #then));
        Ok(match &query.access {
            Access::Index(cols) => {
                let index = self.plan.relations[r.0 as usize]
                    .indexes
                    .iter()
                    .position(|i| i == cols)
                    .ok_or_else(|| {
                        backend_error(format!(
                            "internal error: no index on columns {cols:?} of `{}`",
                            self.ir.relation(r).key()
                        ))
                    })?;
                let index = lit(index);
                let key = cols.iter().map(|&c| key_value(slots[c]));
                let at = self.fresh("at");
                quote! {
                    let mut #at = self.#store.first(#index, &[#(#key),*]);
                    while #at != NONE {
                        let #row = self.#store.row(#at as usize);
                        #at = self.#store.next(#index, #at);
                        #body
                    }
                }
            }
            _ => {
                let i = self.fresh("i");
                quote! {
                    for #i in 0..self.#store.len() {
                        let #row = self.#store.row(#i);
                        #body
                    }
                }
            }
        })
    }

    /// A query on `does`: the joint move's tuple of each role the role slot allows.
    fn does_query(&self, query: &Query, then: TokenStream) -> TokenStream {
        let Some(does) = self.does_rel else {
            return quote!();
        };
        let arity = self.arity(does);
        let arity_lit = lit(arity);
        let row = self.fresh("row");
        let columns = Self::read_from(&row, &query.slots);
        let (conds, binds) = Self::matcher(&columns);
        let body = Self::guarded(&conds, quote!(#(#binds)* #then));
        if let Some(Slot::Sym(role)) = query.slots.first()
            && let Some(index) = self.ir.roles.iter().position(|r| r == role)
        {
            let start = lit(index * arity);
            let end = lit((index + 1) * arity);
            return quote! {
                {
                    let #row = &input.joint[#start..#end];
                    #body
                }
            };
        }
        let role = self.fresh("role");
        let roles = lit(self.ir.roles.len());
        quote! {
            for #role in 0..#roles {
                let #row = &input.joint[#role * #arity_lit..(#role + 1) * #arity_lit];
                #body
            }
        }
    }

    /// A query on `true`, read from the state bits.
    fn true_query(&self, query: &Query, then: TokenStream) -> TokenStream {
        let slots = &query.slots;
        let Some(Slot::Sym(functor)) = slots.first().copied() else {
            // The functor is not known: decode every set bit.
            let tuple = self.fresh("tuple");
            let bit = self.fresh("bit");
            let arity = lit(slots.len());
            let bits = lit(self.state_bits);
            let columns = Self::read_from(&tuple, slots);
            let (conds, binds) = Self::matcher(&columns);
            let body = Self::guarded(&conds, quote!(#(#binds)* #then));
            return quote! {
                let mut #tuple = [0 as Sym; #arity];
                for #bit in input.state.ones(0, #bits) {
                    META.fluents.decode(#bit, &mut #tuple);
                    #body
                }
            };
        };
        let Some(block) = self.blocks.iter().find(|b| b.symbol == functor) else {
            return quote!();
        };
        // Columns outside the functor hold nil.
        let mut outside = Vec::new();
        for (c, &slot) in slots.iter().enumerate().skip(1) {
            if block.columns.iter().any(|(bc, _, _)| *bc == c) {
                continue;
            }
            if let Slot::Sym(s) = slot
                && s != NIL
            {
                return quote!();
            }
            outside.push((quote!(0), slot));
        }
        let source = BitSource {
            base: block.base,
            size: block.size,
            columns: &block.columns,
            positions: self.fluent_positions(),
            bits: Bits::State,
            keys: block.keys.as_ref().map(|(_, table)| table),
            snapshot: None,
        };
        self.bits_query(&source, slots, outside, then)
    }
}

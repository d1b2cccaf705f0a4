//! Filter trees as code ([`Emitter::node`]): sequences, repeats, semi-naive rounds,
//! rules and their pending tuples, accepts into each sink, tests, and queries with the
//! searches that stop at the first match (existential queries and tails), calls back
//! into a chain's work list, and the variables bound by decoding bits.
//!
//! A query whose bindings nothing after it reads (nor the head) stops at its first match:
//! it is emitted as an existence test (`let exists = 'found: { … break 'found true … }`)
//! before the rest of the rule (`Emitter::existential`); one binding every column of a
//! stored relation asks whether the store is empty (`Emitter::whole_store_tested`; `(<=
//! mobile (mover-move ?m))`). The same holds for the *tail* of a rule: from the first
//! query on whose bindings, and those of every query after it, the head does not read,
//! the rest of the path is one search (`let exists = 'found: { … }`), its accept replaced
//! by `break 'found true`, and the head's tuple is added once after it
//! (`Emitter::existential_tail`; amazons' `(<= (legalMove ?p) (true (location ?x ?y ?p))
//! (queenMove ?x ?y ?u ?v) (emptyCell ?u ?v))` stops at a queen's first empty target).
//! Only a straight path whose accept depends on its values alone: not a path through a
//! call back into a recursive mode (its accept adds the call's key), nor a known mode's
//! evaluation (an answer returns at once already). When the accept inserts straight into
//! a layer's bit set, the search runs only if the store does not hold the tuple already
//! (`Emitter::accepted_already`, a bit test before it): amazons' `legalMove ?p` is
//! searched from one piece of `?p` with a move, not from every piece (each arrow's eight
//! lines).

use super::*;

impl Emitter<'_> {
    /// Whether variable `v` was decoded from values all in `domain` (sorted): its
    /// position there, looked up, needs no guard.
    pub(super) fn decoded_within(&self, v: VarId, domain: &[SymbolId]) -> bool {
        (self.decoded.borrow().get(&v))
            .is_some_and(|from| from.iter().all(|s| domain.binary_search(s).is_ok()))
    }

    /// Where the values variable `v` was decoded from start in `domain`: 0 when they
    /// are the domain, else where their run sits in it ([`Self::known_position`]).
    pub(super) fn run_start(&self, v: VarId, domain: &[SymbolId]) -> Option<usize> {
        let decoded = self.decoded.borrow();
        let from = decoded.get(&v)?;
        if from.as_slice() == domain {
            return Some(0);
        }
        let start = domain.binary_search(from.first()?).ok()?;
        (domain.get(start..start + from.len())? == from.as_slice()).then_some(start)
    }

    /// The variables of a rule body bound by decoding bits (see [`Self::bits_query`]),
    /// with their domains.
    fn find_decoded(&self, node: &Node, out: &mut BTreeMap<VarId, Vec<SymbolId>>) {
        match node {
            Node::Sequence(children) => children.iter().for_each(|c| self.find_decoded(c, out)),
            Node::Repeat(body) | Node::Rule { body, .. } => self.find_decoded(body, out),
            Node::SemiNaive {
                initial, rounds, ..
            } => {
                self.find_decoded(initial, out);
                self.find_decoded(rounds, out);
            }
            Node::If { then, .. } => self.find_decoded(then, out),
            Node::Accept { .. } => {}
            Node::Query { query, then } => {
                let columns = if Some(query.relation) == self.true_rel {
                    match query.slots.first() {
                        Some(Slot::Sym(f)) => self
                            .blocks
                            .iter()
                            .find(|b| b.symbol == *f)
                            .map(|b| b.columns.clone()),
                        _ => None,
                    }
                } else if let Evaluation::Static(tuples) =
                    &self.plan.relations[query.relation.0 as usize].evaluation
                {
                    // A static query binds each variable with its position among its
                    // column's values (`static_values`).
                    Some(
                        (0..query.slots.len())
                            .map(|c| (c, 0, static_values(tuples, c)))
                            .collect(),
                    )
                } else if matches!(
                    query.access,
                    Access::Member | Access::Index(_) | Access::Scan | Access::Delta
                ) {
                    self.bit_columns(query.relation)
                } else {
                    None
                };
                for (c, _, domain) in columns.unwrap_or_default() {
                    if let Slot::Bind(v) = query.slots[c] {
                        out.insert(v, domain);
                    }
                }
                self.find_decoded(then, out);
            }
        }
    }

    /// The position of bound variable `v` in `domain` when it was decoded from that
    /// domain, or from one that is a run of it (the squares within the squares and
    /// nil: its position plus where the run starts), so no lookup is needed.
    pub(super) fn known_position(&self, v: VarId, domain: &[SymbolId]) -> Option<TokenStream> {
        let p = var_position(v);
        Some(match self.run_start(v, domain)? {
            0 => quote!(#p),
            start => {
                let start = lit(start);
                quote!((#p + #start))
            }
        })
    }

    /// The code of filter tree `node`, its accepted tuples going to `sink`.
    pub(super) fn node(&self, node: &Node, sink: Sink) -> Result<TokenStream, Diagnostic> {
        match node {
            Node::Sequence(children) => {
                let children = children
                    .iter()
                    .map(|c| self.node(c, sink))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(quote!(#(#children)*))
            }
            Node::Repeat(body) => self.repeat(body, sink),
            Node::SemiNaive {
                initial,
                rounds,
                relations,
            } => self.semi_naive(initial, rounds, relations, sink),
            Node::Rule { rule, body, .. } => self.rule(node, *rule, body, sink),
            Node::Accept { relation, args } => self.accept(node, *relation, args, sink),
            Node::If { test, then } => self.test(test, then, sink),
            Node::Query { query, then } => self.query_node(node, query, then, sink),
        }
    }

    /// A [`Node::Repeat`]: `body` in rounds until one adds no tuple.
    fn repeat(&self, body: &Node, sink: Sink) -> Result<TokenStream, Diagnostic> {
        self.repeats.set(self.repeats.get() + 1);
        let body = self.node(body, sink);
        self.repeats.set(self.repeats.get() - 1);
        let body = body?;
        Ok(quote! {
            loop {
                self.grew = false;
                #body
                if !self.grew {
                    break;
                }
            }
        })
    }

    /// A [`Node::SemiNaive`] evaluation of `relations`: `initial`, then `rounds` over
    /// each relation's delta (the rows or bits the last round added) until a round adds
    /// none — or a word closure ([`Self::word_closure`]) in a layer.
    fn semi_naive(
        &self,
        initial: &Node,
        rounds: &Node,
        relations: &[RelationId],
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        let initial = self.node(initial, sink)?;
        if matches!(sink, Sink::Layer)
            && let Some(closure) = self.word_closure(relations)
        {
            let closure = self.word_closure_code(&closure);
            return Ok(quote! {
                #initial
                #closure
            });
        }
        let rounds = self.node(rounds, sink)?;
        let marks = relations.iter().map(|&r| {
            let (delta, store) = (Self::delta(r), Self::store(r));
            quote! {
                let count = self.#store.len();
                #delta = (#delta.1, count);
                added |= #delta.0 < count;
            }
        });
        let deltas = relations.iter().map(|&r| Self::delta(r));
        Ok(quote! {
            #initial
            #(let mut #deltas: (usize, usize) = (0, 0);)*
            loop {
                let mut added = false;
                #(#marks)*
                if !added {
                    break;
                }
                #rounds
            }
        })
    }

    /// A [`Node::Rule`] (`node`) for rule `rule` with `body`: a copy of a relation's
    /// bits, a frame axiom's block, the body with its accepts straight into the head's
    /// store, or the body buffering them in `pending` and the inserts after.
    fn rule(
        &self,
        node: &Node,
        rule: usize,
        body: &Node,
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        if matches!(sink, Sink::Layer)
            && let Some(copy) = self.bits_copied(body).or_else(|| self.bits_mapped(body))
        {
            return Ok(copy);
        }
        let mut decoded = BTreeMap::new();
        self.find_decoded(body, &mut decoded);
        let head = self.ir.rules[rule].head.relation;
        let arity = self.arity(head);
        let next_head = Some(head) == self.next_rel;
        if next_head && let Some(block) = self.frame_block(node) {
            let lo = lit(block.base);
            let hi = lit(block.base + block.size);
            return Ok(quote!(self.next_bits.or_range(&input.state, #lo, #hi);));
        }
        // A `next` head sets bits of the next state, which no body reads: its
        // accepts are direct too (a word join may then or a word into it).
        let direct =
            matches!(sink, Sink::Layer) && (next_head || self.inserts_directly(head, body));
        let outer = self.decoded.replace(decoded);
        let outer_direct = self.direct.replace(direct);
        let body = self.node(body, sink);
        self.decoded.replace(outer);
        self.direct.set(outer_direct);
        let body = body?;
        if direct {
            return Ok(quote!({ #body }));
        }
        Ok(match sink {
            Sink::Layer if arity > 0 && Some(head) != self.next_rel => {
                self.pending_inserts(head, arity, body)
            }
            _ => quote!({ #body }),
        })
    }

    /// A layer's rule body `body` buffering its accepted tuples (`arity` columns) in
    /// `pending`, then their inserts into `head`'s store: by the bit numbered here
    /// where the store has bits.
    fn pending_inserts(&self, head: RelationId, arity: usize, body: TokenStream) -> TokenStream {
        let store = Self::store(head);
        let Some(numbered) = self.numbered_columns(head) else {
            let arity = lit(arity);
            return quote! {
                {
                    #body
                }
                {
                    let pending = std::mem::take(&mut self.pending);
                    for tuple in pending.chunks_exact(#arity) {
                        self.grew |= self.#store.insert(tuple);
                    }
                    self.pending = pending;
                    self.pending.clear();
                }
            };
        };
        let table = Self::positions(head);
        let num_symbols = self.ir.symbols.len();
        let bit_of = |numbered: &[(usize, usize, Vec<SymbolId>)]| {
            let terms = numbered.iter().map(|(c, stride, _)| {
                let offset = lit(c * num_symbols);
                let c = lit(*c);
                let stride = lit(*stride);
                quote!(#table[#offset + tuple[#c] as usize] as usize * #stride)
            });
            quote!(#(#terms)+*)
        };
        let bit = bit_of(&numbered);
        let arity = lit(arity);
        let copies = self.bit_copies(head);
        let insert = if self.bit_columns(head).is_none() {
            quote!(self.grew |= self.#store.insert_bit(bit, tuple);)
        } else if copies.is_empty() {
            quote!(self.grew |= self.#store.insert(bit);)
        } else {
            let inserts = copies.iter().map(|copy| {
                let field = &copy.field;
                let bit = bit_of(&copy.numbered);
                quote!(self.#field.insert(#bit);)
            });
            quote! {
                if self.#store.insert(bit) {
                    self.grew = true;
                    #(#inserts)*
                }
            }
        };
        quote! {
            {
                #body
            }
            {
                let pending = std::mem::take(&mut self.pending);
                for tuple in pending.chunks_exact(#arity) {
                    let bit = #bit;
                    #insert
                }
                self.pending = pending;
                self.pending.clear();
            }
        }
    }

    /// A [`Node::Accept`] (`node`) of a tuple of `relation`: what replaces the accept
    /// of an existential tail being searched, a `next` bit, a direct insert, or the
    /// tuple handed to `sink`.
    fn accept(
        &self,
        node: &Node,
        relation: RelationId,
        args: &[Arg],
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        let leave = (self.tail_accept.borrow().as_ref())
            .filter(|(accept, _)| std::ptr::eq(*accept, node))
            .map(|(_, leave)| leave.clone());
        if let Some(leave) = leave {
            return Ok(leave);
        }
        if Some(relation) == self.next_rel {
            return self.next_accept(args);
        }
        if self.direct.get() && matches!(sink, Sink::Layer) && !args.is_empty() {
            return Ok(self.direct_insert(relation, args));
        }
        let values = args.iter().map(|&a| Self::value(a));
        Ok(match sink {
            Sink::Layer if args.is_empty() => {
                let store = Self::store(relation);
                quote!(self.grew |= self.#store.insert(&[]);)
            }
            Sink::Layer => quote!(self.pending.extend_from_slice(&[#(#values),*]);),
            Sink::Memo(r, m) if self.closure(r, m) == Some(Closure::Chain) => {
                // An answer of a key down the chain, with the first key's bound
                // columns.
                let memo = Self::memo(RelationId(r as u32), m);
                let bound = self.bound(r, m);
                let values = args.iter().enumerate().map(|(c, &a)| {
                    match bound.iter().position(|&b| b == c) {
                        Some(j) => {
                            let j = lit(j);
                            quote!(origin[#j])
                        }
                        None => Self::value(a),
                    }
                });
                quote!(self.#memo.insert(memo_table, &[#(#values),*]);)
            }
            Sink::Memo(r, m) => {
                let memo = Self::memo(RelationId(r as u32), m);
                quote!(self.#memo.insert(memo_table, &[#(#values),*]);)
            }
            Sink::Push(r, m) => {
                let chain = Self::chain(r, m);
                quote!(self.#chain.insert(&link_key);)
            }
            Sink::Inline => self.continue_inlined(args),
            Sink::Walk(depth) => self.walk_push(depth),
            // Every column is bound: the answer is the key.
            Sink::Known(..) => quote!(return true;),
        })
    }

    /// A [`Node::If`]: `then` under `test`.
    fn test(&self, test: &Test, then: &Node, sink: Sink) -> Result<TokenStream, Diagnostic> {
        let then = self.node(then, sink)?;
        Ok(match test {
            Test::Distinct(pairs) => {
                let conds = pairs.iter().map(|&(a, b)| {
                    let (a, b) = (Self::value(a), Self::value(b));
                    quote!(#a != #b)
                });
                quote!(if #(#conds)||* { #then })
            }
            Test::Equal(pairs) => {
                let conds = pairs.iter().map(|&(a, b)| {
                    let (a, b) = (Self::value(a), Self::value(b));
                    quote!(#a == #b)
                });
                quote!(if true #(&& #conds)* { #then })
            }
            Test::Absent(query) => {
                let exists = self.exists(query, sink)?;
                quote! {
                    #exists
                    if !exists { #then }
                }
            }
        })
    }

    /// A [`Node::Query`] (`node`): `then` for the matches of `query` — unless the join
    /// is a copy of bits, a word join, a call back into a chain, a test of a whole
    /// store, or a search stopping at the first match.
    fn query_node(
        &self,
        node: &Node,
        query: &Query,
        then: &Node,
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        if let Some(copy) = self.coded_copy(query, then, sink) {
            return Ok(copy);
        }
        if let Some(words) = self.word_join(query, then, sink)? {
            return Ok(words);
        }
        if let Some(push) = self.chain_link(query, then, sink)? {
            return Ok(push);
        }
        if self.whole_store_tested(query, then) {
            let store = Self::store(query.relation);
            let then = self.node(then, sink)?;
            return Ok(quote! {
                if !self.#store.is_empty() { #then }
            });
        }
        if self.tail_accept.borrow().is_none()
            && let Some(accept) = self.existential_tail(node, sink)
        {
            return self.tail_search(node, accept, sink);
        }
        if Self::existential(query, then) {
            // Nothing after reads what the query binds: one match is enough.
            let exists = self.exists(query, sink)?;
            let then = self.node(then, sink)?;
            return Ok(quote! {
                #exists
                if exists { #then }
            });
        }
        if matches!(query.access, Access::Call(_)) {
            // What the continuation numbers from values bound before the
            // call is computed once, before it (`hoist.rs`).
            let (lets, then) = self.hoisting(query, then, || self.node(then, sink))?;
            let code = self.query(query, then, sink)?;
            Ok(if lets.is_empty() {
                code
            } else {
                quote!({ #(#lets)* #code })
            })
        } else {
            let then = self.node(then, sink)?;
            self.query(query, then, sink)
        }
    }

    /// The search of an existential tail (`node`, its `accept`: see
    /// [`Self::existential_tail`]): nothing after reads what this query and those
    /// after it bind, so the first match of them all is enough, and the accept runs
    /// once — not at all when the tuple is accepted already.
    fn tail_search(
        &self,
        node: &Node,
        accept: &Node,
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        let label =
            syn::Lifetime::new(&format!("'{}", self.fresh("found")), MacroSpan::call_site());
        self.tail_accept
            .replace(Some((accept as *const Node, quote!(break #label true;))));
        let search = self.node(node, sink);
        self.tail_accept.replace(None);
        let search = search?;
        let held = self.accepted_already(accept, sink)?;
        let accept = self.node(accept, sink)?;
        let tail = quote! {
            let exists = #label: {
                #search
                false
            };
            if exists { #accept }
        };
        Ok(match held {
            Some(held) => quote! {
                #held
                if !exists { #tail }
            },
            None => tail,
        })
    }

    /// For an existential tail's accept (`Self::existential_tail`) inserting straight
    /// into a layer's bit set: `let exists = …;`, whether the store holds the tuple
    /// already (its values are all bound before the tail), so the search is skipped
    /// when it could only find it again: amazons' `legalMove ?p`, known from the first
    /// piece of `?p` with a move, was searched again from each of its pieces (every
    /// arrow's eight lines). `None` for other accepts and sinks.
    fn accepted_already(
        &self,
        accept: &Node,
        sink: Sink,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        let Node::Accept { relation, args } = accept else {
            return Ok(None);
        };
        let bitset = matches!(
            self.plan.relations[relation.0 as usize].storage,
            Storage::Bitset { .. }
        );
        if !matches!(sink, Sink::Layer)
            || !self.direct.get()
            || !bitset
            || args.is_empty()
            || Some(*relation) == self.next_rel
        {
            return Ok(None);
        }
        let slots = args
            .iter()
            .map(|&arg| match arg {
                Arg::Var(v) => Slot::Bound(v),
                Arg::Sym(s) => Slot::Sym(s),
            })
            .collect();
        let query = Query {
            relation: *relation,
            slots,
            access: Access::Member,
        };
        self.exists(&query, sink).map(Some)
    }

    /// `let exists = …;`: whether some tuple matches `query`, the scan stopping at the
    /// first.
    pub(super) fn exists(&self, query: &Query, sink: Sink) -> Result<TokenStream, Diagnostic> {
        let label =
            syn::Lifetime::new(&format!("'{}", self.fresh("found")), MacroSpan::call_site());
        let found = self.query(query, quote!(break #label true;), sink)?;
        Ok(quote! {
            let exists = #label: {
                #found
                false
            };
        })
    }

    /// Whether `query` binds variables that nothing in `then` reads (the rule's head
    /// included): its matches then differ only in values no one looks at, and `then`
    /// runs the same for each (`(<= mobile (mover-move ?m))`, `(<= (occupied ?s)
    /// (true (cell ?s ?c ?p)))` once `?s` is bound).
    pub(super) fn existential(query: &Query, then: &Node) -> bool {
        if matches!(query.access, Access::Input | Access::Flag | Access::Member) {
            return false;
        }
        let bound: Vec<VarId> = query
            .slots
            .iter()
            .filter_map(|slot| match slot {
                Slot::Bind(v) => Some(*v),
                _ => None,
            })
            .collect();
        !bound.is_empty() && !bound.iter().any(|&v| Self::reads_var(then, v))
    }

    /// The accept ending the rule's path from `node`, a query, when the variables this
    /// query and the queries after it bind are not among the accept's (`(<=
    /// (legalMove ?p) (true (location ?x ?y ?p)) (queenMove ?x ?y ?u ?v) (emptyCell ?u
    /// ?v))` once `?p` is bound): the accepted tuple is the same for every match of
    /// them, so one is enough. Only a straight path (queries and tests, then the
    /// accept), and only for sinks whose accept depends on nothing but its values (not
    /// a chain's `link_key`, nor a known mode's early return).
    fn existential_tail<'n>(&self, node: &'n Node, sink: Sink) -> Option<&'n Node> {
        if !matches!(sink, Sink::Layer | Sink::Memo(..) | Sink::Inline) {
            return None;
        }
        let Node::Query { query, .. } = node else {
            return None;
        };
        if matches!(query.access, Access::Input | Access::Flag | Access::Member) {
            return None;
        }
        let mut bound = Vec::new();
        let mut at = node;
        loop {
            match at {
                Node::Query { query, then } => {
                    // A call back into a recursive mode's walk or work list: what
                    // follows adds the call's key (`Self::chain_link`), another sink.
                    if let Access::Call(m) = query.access
                        && self.closure(query.relation.0 as usize, m).is_some()
                    {
                        return None;
                    }
                    bound.extend(query.slots.iter().filter_map(|slot| match slot {
                        Slot::Bind(v) => Some(*v),
                        _ => None,
                    }));
                    at = then;
                }
                Node::If { then, .. } => at = then,
                Node::Accept { args, .. } => {
                    let read = bound.iter().any(|&v| args.contains(&Arg::Var(v)));
                    return (!bound.is_empty() && !read).then_some(at);
                }
                _ => return None,
            }
        }
    }

    /// Whether a node reads variable `v`.
    fn reads_var(node: &Node, v: VarId) -> bool {
        let in_slots = |slots: &[Slot]| {
            slots
                .iter()
                .any(|s| matches!(s, Slot::Bound(x) | Slot::Same(x) | Slot::Bind(x) if *x == v))
        };
        let in_args = |args: &[Arg]| args.contains(&Arg::Var(v));
        match node {
            Node::Sequence(children) => children.iter().any(|c| Self::reads_var(c, v)),
            Node::Repeat(body) | Node::Rule { body, .. } => Self::reads_var(body, v),
            Node::SemiNaive {
                initial, rounds, ..
            } => Self::reads_var(initial, v) || Self::reads_var(rounds, v),
            Node::Query { query, then } => in_slots(&query.slots) || Self::reads_var(then, v),
            Node::If { test, then } => {
                let in_test = match test {
                    Test::Absent(query) => in_slots(&query.slots),
                    Test::Distinct(pairs) | Test::Equal(pairs) => {
                        pairs.iter().any(|(a, b)| in_args(&[*a, *b]))
                    }
                };
                in_test || Self::reads_var(then, v)
            }
            Node::Accept { args, .. } => in_args(args),
        }
    }

    /// A call back into a [`Closure::Chain`] mode: the rest of the rule adds the call's
    /// key to the work list (or to the keys of the walk it is inlined as) instead of
    /// reading the call's answers.
    fn chain_link(
        &self,
        query: &Query,
        then: &Node,
        sink: Sink,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        let Access::Call(m) = query.access else {
            return Ok(None);
        };
        let r = query.relation.0 as usize;
        let link_sink = match sink {
            Sink::Memo(sr, sm)
                if (sr, sm) == (r, m) && self.closure(r, m) == Some(Closure::Chain) =>
            {
                Sink::Push(r, m)
            }
            Sink::Inline => match self.walk_of(r, m) {
                Some((inline::Walk::Keys, depth)) => Sink::Walk(depth),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let key = self.bound(r, m).iter().map(|&c| key_value(query.slots[c]));
        let then = self.node(then, link_sink)?;
        Ok(Some(quote! {
            {
                let link_key = [#(#key),*];
                #then
            }
        }))
    }
}

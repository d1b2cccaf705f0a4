//! The generated module around the rules: `META` (symbols, roles, the state's and the
//! moves' layouts), the constant tables, the `Rules` struct with a field per store and
//! memo table, and its `rt::Rules` implementation (`new`, `forget`, `entry`, `next`).

use super::*;

/// Adds to `out` the name of each store some code of `tokens` counts or reads in the
/// order set (`self.rN.len()`, `self.rN.added(…)`): a bit set no code reads so is made
/// `rt::BitSet::unlisted` (its inserts keep no list, its fields are set a word at a
/// time). Decided on the generated code itself, so no reader is missed.
fn find_list_readers(tokens: &TokenStream, out: &mut BTreeSet<String>) {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        if let TokenTree::Group(group) = tree {
            find_list_readers(&group.stream(), out);
        }
        if let [
            TokenTree::Ident(this),
            TokenTree::Punct(dot),
            TokenTree::Ident(name),
            TokenTree::Punct(dot2),
            TokenTree::Ident(method),
            ..,
        ] = &trees[i..]
            && this == "self"
            && dot.as_char() == '.'
            && dot2.as_char() == '.'
            && (method == "len" || method == "added")
        {
            out.insert(name.to_string());
        }
    }
}

impl Emitter<'_> {
    fn paths_static(&self, r: Option<RelationId>) -> TokenStream {
        let Some(r) = r else {
            return quote!(&[]);
        };
        let paths = self.ir.relation(r).columns.iter().map(|c| {
            let steps = c.path.iter().map(|&s| Literal::u32_unsuffixed(s));
            quote!(&[#(#steps),*])
        });
        quote!(&[#(#paths),*])
    }

    pub(super) fn file(&self, source: &str) -> Result<TokenStream, Diagnostic> {
        let ir = self.ir;
        let words = lit(self.words());
        let num_symbols = lit(ir.symbols.len());
        let symbols = (0..ir.symbols.len()).map(|i| {
            let s = ir.symbols.symbol(SymbolId(i as u32));
            let name = &s.name;
            let arity = Literal::u32_unsuffixed(s.arity as u32);
            quote!((#name, #arity))
        });
        let roles = ir.roles.iter().map(|&r| sym(r));
        let role_names = ir.roles.iter().map(|&r| ir.symbols.symbol(r).name.clone());
        let fluents = layout_tokens(&self.blocks, 0);
        let moves = match ir.keyword(Keyword::Legal) {
            Some(legal) => {
                let top = ir
                    .relation(legal)
                    .columns
                    .iter()
                    .position(|c| c.path == [1])
                    .unwrap_or(0);
                layout_tokens(&functor_blocks(ir, legal, 1, &[], &BTreeMap::new()), top)
            }
            None => layout_tokens(&[], 0),
        };
        let true_paths = self.paths_static(self.state_rel);
        let legal_paths = self.paths_static(self.ir.keyword(Keyword::Legal));
        let goal_paths = self.paths_static(self.ir.keyword(Keyword::Goal));
        let sees_paths = self.paths_static(self.ir.keyword(Keyword::Sees));

        let mut statics = Vec::new();
        let mut fields = Vec::new();
        let mut inits = Vec::new();
        // The bits-only relations' fields: their place in `inits`, name and size.
        let mut bit_sets = Vec::new();
        for (r, relation_plan) in self.plan.relations.iter().enumerate() {
            let id = RelationId(r as u32);
            let relation = ir.relation(id);
            let arity = relation.columns.len();
            if let Evaluation::Demand(modes) = &relation_plan.evaluation {
                for (m, mode) in modes.iter().enumerate() {
                    let name = Self::memo(id, m);
                    let key_len = lit(mode.bound.len());
                    if !self.has_memo(id, m) {
                        continue;
                    }
                    if self.known_mode(id, m) {
                        fields.push(quote!(#name: rt::Known));
                        inits.push(quote!(#name: rt::Known::new(#key_len)));
                    } else {
                        fields.push(quote!(#name: rt::Memo));
                        let init = self.memo_init(id, &mode.bound);
                        inits.push(quote!(#name: #init));
                    }
                    if self.closure(id.0 as usize, m) == Some(Closure::Chain) {
                        let chain = Self::chain(id.0 as usize, m);
                        fields.push(quote!(#chain: rt::Store));
                        inits.push(quote!(#chain: rt::Store::hashed(#key_len, &[])));
                    }
                }
                continue;
            }
            if !self.has_store(id) {
                continue;
            }
            let name = Self::store(id);
            let bit_columns = self.bit_columns(id);
            if self.numbered_columns(id).is_some() || self.coded_positions(id) {
                let table = Self::positions(id);
                let mut positions = vec![u32::MAX; arity * ir.symbols.len()];
                // A coded relation numbers its nested columns as its functor blocks do.
                let coded = self.coded_positions(id);
                for (c, column) in relation.columns.iter().enumerate() {
                    let domain = if coded {
                        coded_domain(ir, id, column)
                    } else {
                        numbered_domain(ir, id, column)
                    };
                    for (p, s) in domain.iter().enumerate() {
                        positions[c * ir.symbols.len() + s.0 as usize] = p as u32;
                    }
                }
                let len = lit(positions.len());
                let values = positions.iter().map(|&p| Literal::u32_unsuffixed(p));
                let doc = format!(
                    "Position of each symbol in each column's domain of `{}` (`u32::MAX`: none).",
                    relation.key()
                );
                statics.push(quote!(#[doc = #doc] static #table: [u32; #len] = [#(#values),*];));
            }
            let no_indexes = Vec::new();
            let indexes = if bit_columns.is_some() {
                &no_indexes
            } else {
                &relation_plan.indexes
            };
            let indexes = indexes.iter().map(|cols: &Vec<usize>| {
                let cols = cols.iter().map(|&c| lit(c));
                quote!(&[#(#cols),*])
            });
            let indexes = quote!(&[#(#indexes),*]);
            let mut make = match &relation_plan.storage {
                Storage::Bitset { .. } if arity > 0 => {
                    let domains = relation.columns.iter().map(|c| {
                        let d = numbered_domain(ir, id, c).into_iter().map(sym);
                        quote!(&[#(#d),*])
                    });
                    quote!(rt::Store::bitset(&[#(#domains),*], #num_symbols, #indexes))
                }
                Storage::Hashed if let Some(coded) = self.coded_numbering(id) => {
                    let layout = format_ident!("LAYOUT_{}", id.0);
                    let layout_value = layout_tokens(&coded.blocks, coded.top);
                    let doc = format!(
                        "The numbering of the tuples of `{}` by the functor blocks of one argument.",
                        relation.key()
                    );
                    statics.push(quote!(#[doc = #doc] static #layout: rt::Layout = #layout_value;));
                    let outer = coded.outer.iter().map(|(c, domain)| {
                        let c = lit(*c);
                        let d = domain.iter().map(|&s| sym(s));
                        quote!((#c, &[#(#d),*][..]))
                    });
                    let arity = lit(arity);
                    quote!(rt::Store::coded(#arity, &#layout, &[#(#outer),*], #num_symbols, #indexes))
                }
                _ => {
                    let arity = lit(arity);
                    quote!(rt::Store::hashed(#arity, #indexes))
                }
            };
            if let Evaluation::Static(tuples) = &relation_plan.evaluation {
                let table = Self::table(id);
                let rows = tuples.iter().map(|row| {
                    let values = row.iter().map(|&s| sym(s));
                    quote!([#(#values),*])
                });
                let arity_lit = lit(arity);
                let count = lit(tuples.len());
                let doc = format!("The tuples of `{}`, sorted.", relation.key());
                statics.push(quote!(#[doc = #doc] static #table: [[Sym; #arity_lit]; #count] = [#(#rows),*];));
                make = quote!(#make.with_rows(#table.as_flattened(), #count));
            }
            if let Some(numbered) = &bit_columns {
                let bits = lit(numbered
                    .first()
                    .map_or(1, |(_, stride, domain)| stride * domain.len().max(1)));
                bit_sets.push((fields.len(), inits.len(), name.clone(), bits.clone()));
                fields.push(quote!());
                inits.push(quote!());
                for copy in self.bit_copies(id) {
                    let field = copy.field;
                    bit_sets.push((fields.len(), inits.len(), field, bits.clone()));
                    fields.push(quote!());
                    inits.push(quote!());
                }
                continue;
            }
            if self.rows_unread(id) {
                make = quote!(#make.without_rows());
            }
            if self.bits_alone(id) {
                make = quote!(#make.unlisted());
            }
            fields.push(quote!(#name: rt::Store));
            inits.push(quote!(#name: #make));
        }

        if self.fluent_positions_len() <= MAX_POSITIONS {
            let num_symbols = ir.symbols.len();
            let mut positions = vec![u32::MAX; self.fluent_positions_len()];
            for block in &self.blocks {
                for (c, _, domain) in &block.columns {
                    for (p, s) in domain.iter().enumerate() {
                        positions[c * num_symbols + s.0 as usize] = p as u32;
                    }
                }
            }
            let len = lit(positions.len());
            let values = positions.iter().map(|&p| Literal::u32_unsuffixed(p));
            statics.push(quote! {
                /// Position of each symbol in each state column's domain (`u32::MAX`: none),
                /// as `META.fluents` gives them.
                static FLUENT_POSITIONS: [u32; #len] = [#(#values),*];
            });
        }
        for block in &self.blocks {
            if let Some((keys, table)) = &block.keys {
                let len = lit(keys.len());
                let values = keys.iter().map(|&k| Literal::u64_unsuffixed(k));
                let doc = format!(
                    "The dense numbers of the `{}` fluents that can occur, ascending: the state bit of each is its rank here.",
                    ir.symbols.symbol(block.symbol).name
                );
                statics.push(quote! {
                    #[doc = #doc]
                    static #table: [u64; #len] = [#(#values),*];
                });
            }
        }
        let num_layers = ir.layers.len();
        let computed_init = (0..num_layers).map(|l| {
            let static_layer = matches!(
                self.plan.layers[l].evaluation,
                LayerEvaluation::Static | LayerEvaluation::Input | LayerEvaluation::Demand
            );
            quote!(#static_layer)
        });
        let num_layers_lit = lit(num_layers);

        let mut methods = Vec::new();
        for (l, layer_plan) in self.plan.layers.iter().enumerate() {
            if !matches!(
                layer_plan.evaluation,
                LayerEvaluation::Once | LayerEvaluation::Fixpoint
            ) {
                continue;
            }
            let Some(tree) = &layer_plan.tree else {
                continue;
            };
            let name = format_ident!("layer{}", l);
            self.snapshots.replace(Some(Snapshots {
                own: ir.layers[l].relations.iter().copied().collect(),
                used: BTreeMap::new(),
            }));
            let body = self.node(tree, Sink::Layer);
            let snapshots = self.snapshots.take();
            let body = body?;
            let copies = (snapshots.map(|s| s.used))
                .unwrap_or_default()
                .into_values()
                .map(|(local, store, words)| {
                    let words = lit(words);
                    quote!(let #local: [u64; #words] = self.#store.words_array::<#words>();)
                });
            let body = quote!(#(#copies)* #body);
            let doc = format!(
                "Layer {l}: {}.",
                ir.layers[l]
                    .relations
                    .iter()
                    .map(|&r| format!("`{}`", ir.relation(r).key()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            methods.push(quote! {
                #[doc = #doc]
                fn #name(&mut self, input: &Input) {
                    #body
                }
            });
        }
        let mut dispatch_arms = Vec::new();
        for (r, relation_plan) in self.plan.relations.iter().enumerate() {
            let Evaluation::Demand(modes) = &relation_plan.evaluation else {
                continue;
            };
            let id = RelationId(r as u32);
            let layer = ir.layer_of[r];
            let cyclic = ir.layers[layer].cyclic;
            for (m, mode) in modes.iter().enumerate() {
                let memo = Self::memo(id, m);
                if self.known_mode(id, m) {
                    methods.extend(self.known_methods(id, m, &mode.tree)?);
                    continue;
                }
                let eval = format_ident!("eval{}_{}", r, m);
                let call = format_ident!("call{}_{}", r, m);
                let key_len = lit(mode.bound.len());
                let body = self.node(&mode.tree, Sink::Memo(r, m))?;
                let r_lit = Literal::u32_unsuffixed(r as u32);
                let m_lit = Literal::u32_unsuffixed(m as u32);
                let layer_lit = Literal::u32_unsuffixed(layer as u32);
                let doc = format!(
                    "`{}` called with columns {:?} bound: adds the answers to memo table `memo_table`; true if one was new.",
                    ir.relation(id).key(),
                    mode.bound
                );
                let closure = self.closure(r, m);
                let evaluation = match closure {
                    None | Some(Closure::Once) => quote! {
                        let mut key = [0 as Sym; #key_len];
                        key.copy_from_slice(self.#memo.key(memo_table));
                        #body
                    },
                    Some(Closure::Own) => quote! {
                        let mut key = [0 as Sym; #key_len];
                        key.copy_from_slice(self.#memo.key(memo_table));
                        loop {
                            let pass = self.#memo.table(memo_table).len();
                            #body
                            if self.#memo.table(memo_table).len() == pass {
                                break;
                            }
                        }
                    },
                    Some(Closure::Chain) => {
                        let chain = Self::chain(r, m);
                        quote! {
                            let mut origin = [0 as Sym; #key_len];
                            origin.copy_from_slice(self.#memo.key(memo_table));
                            // The mode is not evaluated again before this evaluation
                            // ends (its calls go to modes closed before it).
                            self.#chain.clear();
                            self.#chain.insert(&origin);
                            let mut link = 0;
                            while link < self.#chain.len() {
                                let mut key = [0 as Sym; #key_len];
                                key.copy_from_slice(self.#chain.row(link));
                                link += 1;
                                #body
                            }
                        }
                    }
                };
                methods.push(quote! {
                    #[doc = #doc]
                    fn #eval(&mut self, input: &Input, memo_table: usize) -> bool {
                        let before = self.#memo.table(memo_table).len();
                        #evaluation
                        self.#memo.table(memo_table).len() > before
                    }
                });
                // A closed mode's tables are complete when its evaluation returns.
                let cyclic = cyclic && closure.is_none();
                let reread = if cyclic {
                    quote!(self.fixpoints.reread_table(#layer_lit, self.#memo.epoch(t));)
                } else {
                    quote!()
                };
                let evaluate = if cyclic {
                    dispatch_arms.push(quote!((#r_lit, #m_lit) => self.#eval(input, t),));
                    quote! {
                        if let Some(depth) = self.fixpoints.find(#layer_lit) {
                            self.fixpoints.push(depth, (#r_lit, #m_lit, t));
                            self.#memo.set_epoch(t, self.fixpoints.epoch(depth));
                            self.#eval(input, t);
                        } else {
                            let depth = self.fixpoints.open(#layer_lit, (#r_lit, #m_lit, t));
                            self.#memo.set_epoch(t, self.fixpoints.epoch(depth));
                            // The first pass makes every table it calls; it is the
                            // fixpoint unless a call found a table of this pass.
                            self.#eval(input, t);
                            while self.fixpoints.was_reread(depth) {
                                let before = self.fixpoints.len(depth);
                                let mut grew = false;
                                let mut i = 0;
                                while i < self.fixpoints.len(depth) {
                                    let (r, m, table) = self.fixpoints.table(depth, i);
                                    grew |= self.eval_table(input, r, m, table);
                                    i += 1;
                                }
                                if !grew && self.fixpoints.len(depth) == before {
                                    break;
                                }
                            }
                            self.fixpoints.close(depth);
                        }
                    }
                } else {
                    quote!(self.#eval(input, t);)
                };
                methods.push(quote! {
                    /// The memo table of a call, evaluated if new.
                    fn #call(&mut self, input: &Input, key: &[Sym]) -> usize {
                        if let Some(t) = self.#memo.find(key) {
                            #reread
                            return t;
                        }
                        let t = self.#memo.create(key);
                        #evaluate
                        t
                    }
                });
            }
        }
        methods.push(quote! {
            /// Evaluates a table of a recursive demand layer.
            fn eval_table(&mut self, input: &Input, r: u32, m: u32, t: usize) -> bool {
                match (r, m) {
                    #(#dispatch_arms)*
                    _ => false,
                }
            }
        });

        // forget: per phase, the layers to reset.
        let mut forget_state = Vec::new();
        let mut forget_move = Vec::new();
        for (l, layer) in ir.layers.iter().enumerate() {
            let evaluation = self.plan.layers[l].evaluation;
            if layer.phase == Phase::Static {
                // Kept from state to state, but bounded: the keys met may never repeat.
                for &r in &layer.relations {
                    if let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation
                    {
                        for m in (0..modes.len()).filter(|&m| self.has_memo(r, m)) {
                            let memo = Self::memo(r, m);
                            forget_state.push(quote!(self.#memo.bound(
                                rt::MAX_STATIC_MEMO_TABLES,
                                rt::MAX_STATIC_MEMO_ROWS
                            );));
                        }
                    }
                }
                continue;
            }
            if matches!(evaluation, LayerEvaluation::Static | LayerEvaluation::Input)
                || layer.phase == Phase::Static
            {
                continue;
            }
            let l_lit = lit(l);
            let mut clears = Vec::new();
            for &r in &layer.relations {
                if let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation {
                    for m in (0..modes.len()).filter(|&m| self.has_memo(r, m)) {
                        let memo = Self::memo(r, m);
                        clears.push(quote!(self.#memo.clear();));
                    }
                } else if Some(r) == self.next_rel {
                    clears.push(quote!(self.next_bits = State::default();));
                } else if self.has_store(r) {
                    let store = Self::store(r);
                    clears.push(quote!(self.#store.clear();));
                    for copy in self.bit_copies(r) {
                        let field = copy.field;
                        clears.push(quote!(self.#field.clear();));
                    }
                }
            }
            let reset = if evaluation == LayerEvaluation::Demand {
                quote!(#(#clears)*)
            } else {
                quote! {
                    if self.computed[#l_lit] {
                        self.computed[#l_lit] = false;
                        #(#clears)*
                    }
                }
            };
            forget_state.push(reset.clone());
            if layer.phase == Phase::Move {
                forget_move.push(reset);
            }
        }

        let mut entry_arms = Vec::new();
        let mut next_steps = quote!();
        for (entry, cone) in &ir.cones {
            let variant = Ident::new(&format!("{entry:?}"), MacroSpan::call_site());
            let Some(relation) = ir.keyword(entry.keyword()) else {
                continue;
            };
            let is_next = Some(relation) == self.next_rel;
            if !is_next && !self.has_store(relation) {
                return Err(backend_error(format!(
                    "the entry relation `{}` has no store",
                    ir.relation(relation).key()
                )));
            }
            let store = Self::store(relation);
            let steps = cone
                .iter()
                .filter(|&&l| {
                    matches!(
                        self.plan.layers[l].evaluation,
                        LayerEvaluation::Once | LayerEvaluation::Fixpoint
                    ) && self.plan.layers[l].tree.is_some()
                })
                .map(|&l| {
                    let name = format_ident!("layer{}", l);
                    let l_lit = lit(l);
                    quote! {
                        if !self.computed[#l_lit] {
                            self.computed[#l_lit] = true;
                            self.#name(input);
                        }
                    }
                });
            if is_next {
                next_steps = quote!(#(#steps)*);
                continue;
            }
            entry_arms.push(quote! {
                rt::Entry::#variant => {
                    #(#steps)*
                    Some(&self.#store)
                }
            });
        }

        // A `next` computed at compile time (its rules depend on nothing) is a constant.
        let next_body = match self
            .next_rel
            .map(|r| &self.plan.relations[r.0 as usize].evaluation)
        {
            Some(Evaluation::Static(tuples)) => {
                let sets = tuples
                    .iter()
                    .map(|tuple| {
                        let args: Vec<Arg> = tuple.iter().map(|&s| Arg::Sym(s)).collect();
                        self.next_accept(&args)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                quote! {
                    self.next_bits = State::default();
                    #(#sets)*
                    self.next_bits.clone()
                }
            }
            _ => quote! {
                #next_steps
                self.next_bits.clone()
            },
        };
        let tables: Vec<TokenStream> = self.tables.borrow().values().cloned().collect();
        // Read after every layer and mode is emitted.
        let state_list = self.state_list.get().then(|| {
            quote!(
                const STATE_LIST: bool = true;
            )
        });
        let legal_order = self.legal_in_text_order().then(|| {
            quote!(
                const LEGAL_IN_TEXT_ORDER: bool = true;
            )
        });
        let allow = quote!(#[allow(
            dead_code,
            unused_variables,
            unused_mut,
            unused_labels,
            unused_parens,
            unreachable_code,
            unreachable_patterns,
            non_snake_case,
            clippy::all,
            clippy::pedantic,
            clippy::nursery
        )]);
        let words_doc = format!("Words of state bits ({} bits).", self.state_bits);
        let mut listed = BTreeSet::new();
        let code = [&methods, &entry_arms, &forget_state, &forget_move];
        for tokens in code.into_iter().flatten().chain([&next_body]) {
            find_list_readers(tokens, &mut listed);
        }
        for (field_at, init_at, name, bits) in bit_sets {
            (fields[field_at], inits[init_at]) = if listed.contains(&name.to_string()) {
                (
                    quote!(#name: rt::BitSet),
                    quote!(#name: rt::BitSet::new(#bits)),
                )
            } else {
                (
                    quote!(#name: rt::UnlistedBitSet),
                    quote!(#name: rt::BitSet::unlisted(#bits)),
                )
            };
        }
        Ok(quote! {
            use gdlc_runtime::compiled::{self as rt, Sym, NONE};

            #[doc = #words_doc]
            pub const WORDS: usize = #words;
            /// The reasoner of the game.
            pub type Reasoner = rt::Compiled<Rules, WORDS>;
            /// A state of the game: one bit per possible fluent.
            pub type State = rt::Bits<WORDS>;
            type Input = rt::Input<WORDS>;

            /// A new reasoner of the game.
            pub fn new() -> Reasoner {
                Reasoner::new()
            }

            /// The game's tables.
            pub static META: rt::Meta = rt::Meta {
                source: #source,
                symbols: &[#(#symbols),*],
                roles: &[#(#roles),*],
                role_names: &[#(#role_names),*],
                true_paths: #true_paths,
                fluents: #fluents,
                legal_paths: #legal_paths,
                moves: #moves,
                goal_paths: #goal_paths,
                sees_paths: #sees_paths,
            };

            #(#[allow(dead_code)] #statics)*
            #(#[allow(dead_code)] #tables)*

            /// The rules of the game: a store per derived relation, the filter trees as
            /// code.
            #allow
            #[derive(Clone, Debug)]
            pub struct Rules {
                computed: [bool; #num_layers_lit],
                pending: Vec<Sym>,
                grew: bool,
                fixpoints: rt::Fixpoints,
                next_bits: State,
                #(#fields,)*
            }

            #allow
            impl rt::Rules<WORDS> for Rules {
                const META: &'static rt::Meta = &META;
                #state_list
                #legal_order

                fn new() -> Self {
                    Rules {
                        computed: [#(#computed_init),*],
                        pending: Vec::new(),
                        grew: false,
                        fixpoints: rt::Fixpoints::default(),
                        next_bits: State::default(),
                        #(#inits,)*
                    }
                }

                fn forget(&mut self, changed: rt::Changed) {
                    match changed {
                        rt::Changed::State => { #(#forget_state)* }
                        rt::Changed::Move => { #(#forget_move)* }
                    }
                }

                fn entry(&mut self, input: &Input, entry: rt::Entry) -> Option<&rt::Store> {
                    match entry {
                        #(#entry_arms)*
                        _ => None,
                    }
                }

                fn next(&mut self, input: &Input) -> State {
                    #next_body
                }
            }

            #allow
            impl Rules {
                #(#methods)*
            }
        })
    }
}

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

/// The fields of the generated `Rules` for stores and memo tables, their initial
/// values, and the constant tables they read (see [`Emitter::store_fields`]).
#[derive(Default)]
struct StoreFields {
    statics: Vec<TokenStream>,
    fields: Vec<TokenStream>,
    inits: Vec<TokenStream>,
    /// The bits-only relations' fields: their place in `fields` and `inits`, name and
    /// size. Their type waits until every reader is emitted ([`StoreFields::settle`]).
    bit_sets: Vec<(usize, usize, Ident, Literal)>,
}

impl StoreFields {
    /// Adds a bits-only relation's field (or a copy's) of `bits` bits, typed later.
    fn bit_set(&mut self, name: Ident, bits: Literal) {
        self.bit_sets
            .push((self.fields.len(), self.inits.len(), name, bits));
        self.fields.push(quote!());
        self.inits.push(quote!());
    }

    /// Types each bit set: `rt::BitSet` when some code of `code` reads it in the order
    /// set ([`find_list_readers`]), else `rt::UnlistedBitSet`.
    fn settle<'t>(&mut self, code: impl IntoIterator<Item = &'t TokenStream>) {
        let mut listed = BTreeSet::new();
        for tokens in code {
            find_list_readers(tokens, &mut listed);
        }
        for (field_at, init_at, name, bits) in std::mem::take(&mut self.bit_sets) {
            (self.fields[field_at], self.inits[init_at]) = if listed.contains(&name.to_string()) {
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
    }
}

/// The code of the generated `rt::Rules` implementation's methods (see
/// [`Emitter::rules_impl`]).
struct RulesCode {
    /// Per phase (`rt::Changed`), the layers reset.
    forget_state: Vec<TokenStream>,
    forget_move: Vec<TokenStream>,
    /// `entry`'s arms, one per entry relation.
    entry_arms: Vec<TokenStream>,
    /// `next`'s body.
    next_body: TokenStream,
}

/// The attributes of the generated items holding rules code (generated code is
/// regular, not minimal: an existence test over a word's set bits that stops at the
/// first one never reads the rest it updates, hence `unused_assignments`).
fn allow() -> TokenStream {
    quote!(#[allow(
        dead_code,
        unused_variables,
        unused_mut,
        unused_assignments,
        unused_labels,
        unused_parens,
        unreachable_code,
        unreachable_patterns,
        non_snake_case,
        clippy::all,
        clippy::pedantic,
        clippy::nursery
    )])
}

impl Emitter<'_> {
    /// The whole generated module, `source` naming the KIF file in `META`.
    pub(super) fn file(&self, source: &str) -> Result<TokenStream, Diagnostic> {
        let meta = self.meta(source);
        let mut stores = self.store_fields();
        stores.statics.extend(self.fluent_statics());
        let mut methods = self.layer_methods()?;
        methods.extend(self.demand_methods()?);
        let (forget_state, forget_move) = self.forgets();
        let (entry_arms, next_steps) = self.entries()?;
        let rules = RulesCode {
            forget_state,
            forget_move,
            entry_arms,
            next_body: self.next_body(next_steps)?,
        };
        let tables: Vec<TokenStream> = self.tables.borrow().values().cloned().collect();
        let code = [
            &methods,
            &rules.entry_arms,
            &rules.forget_state,
            &rules.forget_move,
        ];
        stores.settle(code.into_iter().flatten().chain([&rules.next_body]));
        let words = lit(self.words());
        let words_doc = format!("Words of state bits ({} bits).", self.state_bits);
        let StoreFields {
            statics,
            fields,
            inits,
            ..
        } = stores;
        let num_layers_lit = lit(self.ir.layers.len());
        let allow = allow();
        let rules_impl = self.rules_impl(&inits, rules);
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

            #meta

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

            #rules_impl

            #allow
            impl Rules {
                #(#methods)*
            }
        })
    }

    /// `META`: the game's symbols, roles, and the layouts of its fluents and moves.
    fn meta(&self, source: &str) -> TokenStream {
        let ir = self.ir;
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
        quote! {
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
        }
    }

    /// The column paths of relation `r` (none without it), as `META` gives them.
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

    /// The fields of every store and memo table, in relation order, with the constant
    /// tables they read.
    fn store_fields(&self) -> StoreFields {
        let mut out = StoreFields::default();
        for (r, relation_plan) in self.plan.relations.iter().enumerate() {
            let id = RelationId(r as u32);
            if let Evaluation::Demand(modes) = &relation_plan.evaluation {
                self.memo_fields(id, modes, &mut out);
                continue;
            }
            if self.has_store(id) {
                self.store_field(id, &mut out);
            }
        }
        out
    }

    /// The memo table of each mode of demand relation `id` that has one, and the work
    /// list of each [`Closure::Chain`] mode.
    fn memo_fields(
        &self,
        id: RelationId,
        modes: &[crate::plan::DemandMode],
        out: &mut StoreFields,
    ) {
        for (m, mode) in modes.iter().enumerate() {
            let name = Self::memo(id, m);
            let key_len = lit(mode.bound.len());
            if !self.has_memo(id, m) {
                continue;
            }
            if self.known_mode(id, m) {
                out.fields.push(quote!(#name: rt::Known));
                out.inits.push(quote!(#name: rt::Known::new(#key_len)));
            } else {
                out.fields.push(quote!(#name: rt::Memo));
                let init = self.memo_init(id, &mode.bound);
                out.inits.push(quote!(#name: #init));
            }
            if self.closure(id.0 as usize, m) == Some(Closure::Chain) {
                let chain = Self::chain(id.0 as usize, m);
                out.fields.push(quote!(#chain: rt::Store));
                out.inits
                    .push(quote!(#chain: rt::Store::hashed(#key_len, &[])));
            }
        }
    }

    /// The field of relation `id`'s store (a bit set's typed later), with its
    /// positions table, its numbering's layout and its tuples when static.
    fn store_field(&self, id: RelationId, out: &mut StoreFields) {
        let ir = self.ir;
        let relation = ir.relation(id);
        let arity = relation.columns.len();
        let name = Self::store(id);
        let bit_columns = self.bit_columns(id);
        if self.numbered_columns(id).is_some() || self.coded_positions(id) {
            out.statics.push(self.positions_static(id));
        }
        let mut make = self.store_constructor(id, bit_columns.is_some(), &mut out.statics);
        if let Evaluation::Static(tuples) = &self.plan.relations[id.0 as usize].evaluation {
            let table = Self::table(id);
            let rows = tuples.iter().map(|row| {
                let values = row.iter().map(|&s| sym(s));
                quote!([#(#values),*])
            });
            let arity_lit = lit(arity);
            let count = lit(tuples.len());
            let doc = format!("The tuples of `{}`, sorted.", relation.key());
            out.statics.push(
                quote!(#[doc = #doc] static #table: [[Sym; #arity_lit]; #count] = [#(#rows),*];),
            );
            make = quote!(#make.with_rows(#table.as_flattened(), #count));
        }
        if let Some(numbered) = &bit_columns {
            let bits = lit(numbered
                .first()
                .map_or(1, |(_, stride, domain)| stride * domain.len().max(1)));
            out.bit_set(name, bits.clone());
            for copy in self.bit_copies(id) {
                out.bit_set(copy.field, bits.clone());
            }
            return;
        }
        if self.rows_unread(id) {
            make = quote!(#make.without_rows());
        }
        if self.bits_alone(id) {
            make = quote!(#make.unlisted());
        }
        out.fields.push(quote!(#name: rt::Store));
        out.inits.push(quote!(#name: #make));
    }

    /// `POS_R`: the position of each symbol in each column's domain of relation `id`,
    /// as its bits number them.
    fn positions_static(&self, id: RelationId) -> TokenStream {
        let ir = self.ir;
        let relation = ir.relation(id);
        let arity = relation.columns.len();
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
        quote!(#[doc = #doc] static #table: [u32; #len] = [#(#values),*];)
    }

    /// The constructor of relation `id`'s store (`bits_only`: its bits are a bit set
    /// of their own, with no indexes), adding the layout of a coded numbering to
    /// `statics`.
    fn store_constructor(
        &self,
        id: RelationId,
        bits_only: bool,
        statics: &mut Vec<TokenStream>,
    ) -> TokenStream {
        let ir = self.ir;
        let relation = ir.relation(id);
        let arity = relation.columns.len();
        let relation_plan = &self.plan.relations[id.0 as usize];
        let num_symbols = lit(ir.symbols.len());
        let no_indexes = Vec::new();
        let indexes = if bits_only {
            &no_indexes
        } else {
            &relation_plan.indexes
        };
        let indexes = indexes.iter().map(|cols: &Vec<usize>| {
            let cols = cols.iter().map(|&c| lit(c));
            quote!(&[#(#cols),*])
        });
        let indexes = quote!(&[#(#indexes),*]);
        match &relation_plan.storage {
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
        }
    }

    /// The state's constant tables: `FLUENT_POSITIONS` (when small enough) and the
    /// dense numbers of each listed block's fluents.
    fn fluent_statics(&self) -> Vec<TokenStream> {
        let mut statics = Vec::new();
        if self.fluent_positions_len() <= MAX_POSITIONS {
            let num_symbols = self.ir.symbols.len();
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
                    self.ir.symbols.symbol(block.symbol).name
                );
                statics.push(quote! {
                    #[doc = #doc]
                    static #table: [u64; #len] = [#(#values),*];
                });
            }
        }
        statics
    }

    /// `forget`'s code per phase: the layers a new state resets, and those a new joint
    /// move resets.
    fn forgets(&self) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let mut forget_state = Vec::new();
        let mut forget_move = Vec::new();
        for (l, layer) in self.ir.layers.iter().enumerate() {
            let evaluation = self.plan.layers[l].evaluation;
            if layer.phase == Phase::Static {
                // Kept from state to state, but bounded: the keys met may never repeat.
                forget_state.extend(self.memo_bounds(&layer.relations));
                continue;
            }
            if matches!(evaluation, LayerEvaluation::Static | LayerEvaluation::Input)
                || layer.phase == Phase::Static
            {
                continue;
            }
            let reset = self.layer_reset(l, &layer.relations, evaluation);
            forget_state.push(reset.clone());
            if layer.phase == Phase::Move {
                forget_move.push(reset);
            }
        }
        (forget_state, forget_move)
    }

    /// The bounds on the memo tables of a static layer's demand relations `relations`.
    fn memo_bounds(&self, relations: &[RelationId]) -> Vec<TokenStream> {
        let mut bounds = Vec::new();
        for &r in relations {
            if let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation {
                for m in (0..modes.len()).filter(|&m| self.has_memo(r, m)) {
                    let memo = Self::memo(r, m);
                    bounds.push(quote!(self.#memo.bound(
                        rt::MAX_STATIC_MEMO_TABLES,
                        rt::MAX_STATIC_MEMO_ROWS
                    );));
                }
            }
        }
        bounds
    }

    /// The reset of layer `l` (its relations `relations`, evaluated as `evaluation`):
    /// its memo tables, stores and copies cleared, once computed unless demanded.
    fn layer_reset(
        &self,
        l: usize,
        relations: &[RelationId],
        evaluation: LayerEvaluation,
    ) -> TokenStream {
        let l_lit = lit(l);
        let mut clears = Vec::new();
        for &r in relations {
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
        if evaluation == LayerEvaluation::Demand {
            quote!(#(#clears)*)
        } else {
            quote! {
                if self.computed[#l_lit] {
                    self.computed[#l_lit] = false;
                    #(#clears)*
                }
            }
        }
    }

    /// `entry`'s arms, each computing the layers of its cone not yet computed and
    /// giving the entry relation's store, and the steps computing `next`'s cone.
    fn entries(&self) -> Result<(Vec<TokenStream>, TokenStream), Diagnostic> {
        let ir = self.ir;
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
        Ok((entry_arms, next_steps))
    }

    /// `next`'s body: the layers of its cone (`next_steps`), or, for a `next` computed
    /// at compile time (its rules depend on nothing), its constant bits.
    fn next_body(&self, next_steps: TokenStream) -> Result<TokenStream, Diagnostic> {
        Ok(
            match self
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
            },
        )
    }

    /// The generated `impl rt::Rules<WORDS> for Rules`, its stores made by `inits`.
    /// Called once every layer and mode is emitted: it reads whether some scan reads
    /// the state's list of set bits.
    fn rules_impl(&self, inits: &[TokenStream], rules: RulesCode) -> TokenStream {
        let RulesCode {
            forget_state,
            forget_move,
            entry_arms,
            next_body,
        } = rules;
        let computed_init = (0..self.ir.layers.len()).map(|l| {
            let static_layer = matches!(
                self.plan.layers[l].evaluation,
                LayerEvaluation::Static | LayerEvaluation::Input | LayerEvaluation::Demand
            );
            quote!(#static_layer)
        });
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
        let allow = allow();
        quote! {
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
        }
    }
}

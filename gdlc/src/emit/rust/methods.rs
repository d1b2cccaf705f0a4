//! The methods of the generated `Rules`: one per materialised layer (`layerN`), per
//! demand mode the evaluation filling a memo table (`evalR_M`) and the call finding or
//! making it (`callR_M`, tabled with the layer's shared fixpoint when recursive), and a
//! known mode's `holdsR_M` and `askR_M`.
//!
//! **Demand relations**: an `rt::Memo` per mode (those of static relations kept from
//! state to state, bounded by `Memo::bound` whenever the state changes). A mode that
//! binds every column outside a recursive layer is a question, not a table
//! (`askR_M`/`holdsR_M`): its evaluation returns at the first derivation, and its answers
//! are remembered per key (`rt::Known`) only when the evaluation does work worth a hash
//! lookup (it reads a relation computed per state, fills a memo table, or asks two or
//! more such questions); otherwise it is evaluated at every ask
//! (`Emitter::known_memoised`).
//!
//! A recursive demand layer is tabled with a leader: its first pass makes every table it
//! calls, and is the fixpoint unless some call found a table made in this same evaluation
//! of the layer, which may still be incomplete (`rt::Fixpoints::reread_table`: each table
//! carries the number of the evaluation that made it, `Memo::epoch`; a table of an
//! evaluation that has ended is final and needs no second pass); only then does it repeat
//! until nothing is new.

use super::*;

impl Emitter<'_> {
    /// The method of each materialised layer with rules, in layer order.
    pub(super) fn layer_methods(&self) -> Result<Vec<TokenStream>, Diagnostic> {
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
            methods.push(self.layer_method(l, tree)?);
        }
        Ok(methods)
    }

    /// `layerN`: layer `l`'s filter tree `tree`, after copies of the small sets of
    /// earlier layers it tests ([`Snapshots`]).
    fn layer_method(&self, l: usize, tree: &Node) -> Result<TokenStream, Diagnostic> {
        let ir = self.ir;
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
        Ok(quote! {
            #[doc = #doc]
            fn #name(&mut self, input: &Input) {
                #body
            }
        })
    }

    /// The methods of every demand mode, in relation and mode order, and then
    /// `eval_table`, which evaluates a table of a recursive demand layer again.
    pub(super) fn demand_methods(&self) -> Result<Vec<TokenStream>, Diagnostic> {
        let mut methods = Vec::new();
        let mut dispatch_arms = Vec::new();
        for (r, relation_plan) in self.plan.relations.iter().enumerate() {
            let Evaluation::Demand(modes) = &relation_plan.evaluation else {
                continue;
            };
            let id = RelationId(r as u32);
            for (m, mode) in modes.iter().enumerate() {
                if self.known_mode(id, m) {
                    methods.extend(self.known_methods(id, m, &mode.tree)?);
                    continue;
                }
                methods.extend(self.mode_methods(r, m, mode, &mut dispatch_arms)?);
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
        Ok(methods)
    }

    /// `evalR_M` and `callR_M` of mode `m` (`mode`) of demand relation `r`; a mode of a
    /// recursive layer evaluated through its shared fixpoint adds its arm of
    /// `eval_table` to `dispatch_arms`.
    fn mode_methods(
        &self,
        r: usize,
        m: usize,
        mode: &crate::plan::DemandMode,
        dispatch_arms: &mut Vec<TokenStream>,
    ) -> Result<[TokenStream; 2], Diagnostic> {
        let id = RelationId(r as u32);
        let layer = self.ir.layer_of[r];
        let memo = Self::memo(id, m);
        let eval = format_ident!("eval{}_{}", r, m);
        let call = format_ident!("call{}_{}", r, m);
        let body = self.node(&mode.tree, Sink::Memo(r, m))?;
        let doc = format!(
            "`{}` called with columns {:?} bound: adds the answers to memo table `memo_table`; true if one was new.",
            self.ir.relation(id).key(),
            mode.bound
        );
        let closure = self.closure(r, m);
        let evaluation = self.mode_evaluation(r, m, mode.bound.len(), body);
        let eval_fn = quote! {
            #[doc = #doc]
            fn #eval(&mut self, input: &Input, memo_table: usize) -> bool {
                let before = self.#memo.table(memo_table).len();
                #evaluation
                self.#memo.table(memo_table).len() > before
            }
        };
        // A closed mode's tables are complete when its evaluation returns.
        let cyclic = self.ir.layers[layer].cyclic && closure.is_none();
        let layer_lit = Literal::u32_unsuffixed(layer as u32);
        let reread = if cyclic {
            quote!(self.fixpoints.reread_table(#layer_lit, self.#memo.epoch(t));)
        } else {
            quote!()
        };
        let evaluate = if cyclic {
            let (r_lit, m_lit) = (
                Literal::u32_unsuffixed(r as u32),
                Literal::u32_unsuffixed(m as u32),
            );
            dispatch_arms.push(quote!((#r_lit, #m_lit) => self.#eval(input, t),));
            Self::tabled_evaluation(r, m, layer, &memo, &eval)
        } else {
            quote!(self.#eval(input, t);)
        };
        let call_fn = quote! {
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
        };
        Ok([eval_fn, call_fn])
    }

    /// The body of `evalR_M` around the rules' code `body`: the key (`key_len`
    /// columns) read from the memo table, and the passes a mode that completes its
    /// table on its own makes ([`Closure`]).
    fn mode_evaluation(
        &self,
        r: usize,
        m: usize,
        key_len: usize,
        body: TokenStream,
    ) -> TokenStream {
        let memo = Self::memo(RelationId(r as u32), m);
        let key_len = lit(key_len);
        match self.closure(r, m) {
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
        }
    }

    /// `callR_M`'s evaluation of a new table `t` of mode `m` of relation `r` in the
    /// recursive `layer`: inside the layer's open fixpoint, or opening it as its
    /// leader, which repeats the tables of the evaluation until none grows.
    fn tabled_evaluation(
        r: usize,
        m: usize,
        layer: usize,
        memo: &Ident,
        eval: &Ident,
    ) -> TokenStream {
        let r_lit = Literal::u32_unsuffixed(r as u32);
        let m_lit = Literal::u32_unsuffixed(m as u32);
        let layer_lit = Literal::u32_unsuffixed(layer as u32);
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
    }

    /// The methods of a known mode (see [`Self::known_mode`]): `holds_r_m` evaluates
    /// the rules for a key and returns at the first answer; `ask_r_m` remembers it.
    fn known_methods(
        &self,
        r: RelationId,
        m: usize,
        tree: &Node,
    ) -> Result<Vec<TokenStream>, Diagnostic> {
        let memo = Self::memo(r, m);
        let holds = format_ident!("holds{}_{}", r.0, m);
        let ask = format_ident!("ask{}_{}", r.0, m);
        let body = self.node(tree, Sink::Known(r.0 as usize, m))?;
        let doc = format!(
            "Whether `{}` holds for `key` (every column bound).",
            self.ir.relation(r).key()
        );
        let holds_fn = quote! {
            #[doc = #doc]
            fn #holds(&mut self, input: &Input, key: &[Sym]) -> bool {
                #body
                false
            }
        };
        if !self.known_memoised(r, m) {
            return Ok(vec![
                holds_fn,
                quote! {
                    /// Whether a call's key holds (cheap enough to evaluate at every ask).
                    #[inline]
                    fn #ask(&mut self, input: &Input, key: &[Sym]) -> bool {
                        self.#holds(input, key)
                    }
                },
            ]);
        }
        Ok(vec![
            holds_fn,
            quote! {
                /// Whether a call's key holds, evaluated if not known.
                fn #ask(&mut self, input: &Input, key: &[Sym]) -> bool {
                    if let Some(holds) = self.#memo.find(key) {
                        return holds;
                    }
                    let holds = self.#holds(input, key);
                    self.#memo.insert(key, holds);
                    holds
                }
            },
        ])
    }
}

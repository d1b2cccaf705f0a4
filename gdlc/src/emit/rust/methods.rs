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
    /// The methods of a known mode (see [`Self::known_mode`]): `holds_r_m` evaluates
    /// the rules for a key and returns at the first answer; `ask_r_m` remembers it.
    pub(super) fn known_methods(
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

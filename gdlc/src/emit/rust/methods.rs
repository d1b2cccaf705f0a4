//! The methods of the generated `Rules`: one per materialised layer (`layerN`), per
//! demand mode the evaluation filling a memo table (`evalR_M`) and the call finding or
//! making it (`callR_M`, tabled with the layer's shared fixpoint when recursive), and a
//! known mode's `holdsR_M` and `askR_M`.

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

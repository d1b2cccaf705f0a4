//! Positions looked up once before a call, not once per answer.
//!
//! A rule's code after a call (its continuation) runs for each answer of the call: at
//! every square of a walked line, at every row of a memo table. When it numbers a
//! bit — the head's bit of a direct insert — from variables bound *before* the call,
//! each of those terms (`POS_R[offset + v] * stride`: a bounds-checked load and a
//! multiply) is the same for every answer, and the compiler does not move it out of
//! the loop (the load's bounds check may panic, and it sits under the answer's
//! tests). Amazons' legal rule numbers `(play x1 y1 x2 y2 x3 y3)`: four of its six
//! terms come from the queen and its destination, bound before the arrow's lines
//! are walked.
//!
//! So while the emitter writes the continuation of a call ([`Emitter::hoisting`]), a
//! *hoist scope* is open: it records the variables the call and its continuation
//! bind, and a term over any other variable becomes a local computed before the call
//! (`let hoistN = …;`), which the continuation then reads. Scopes nest (a call
//! inside a continuation); a term goes to the outermost scope that binds none of its
//! variables, within the same inlining depth (the names of variables differ between
//! depths: an inlined mode's code is another rule's).

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;

use crate::Diagnostic;
use crate::ir::VarId;
use crate::plan::{Node, Query, Slot};

use super::{Emitter, INLINE_DEPTH};

/// The terms computed before one call (see the module docs).
pub(super) struct HoistScope {
    /// The inlining depth the call is emitted at.
    depth: usize,
    /// The variables bound by the call and by its continuation.
    bound_inside: BTreeSet<VarId>,
    /// The locals to compute before the call.
    lets: Vec<TokenStream>,
}

/// The variables `query` binds.
fn bound_by(query: &Query, out: &mut BTreeSet<VarId>) {
    for slot in &query.slots {
        if let Slot::Bind(v) = *slot {
            out.insert(v);
        }
    }
}

/// The variables the queries of `node` bind.
fn bound_in(node: &Node, out: &mut BTreeSet<VarId>) {
    node.for_each_join(&mut |query, _| bound_by(query, out));
}

impl Emitter<'_> {
    /// `emit_then()`, the code of `then` (the continuation of `call`), with a hoist
    /// scope open while it is written; returns it with the locals to compute before
    /// the call.
    pub(super) fn hoisting(
        &self,
        call: &Query,
        then: &Node,
        emit_then: impl FnOnce() -> Result<TokenStream, Diagnostic>,
    ) -> Result<(Vec<TokenStream>, TokenStream), Diagnostic> {
        let mut bound_inside = BTreeSet::new();
        bound_by(call, &mut bound_inside);
        bound_in(then, &mut bound_inside);
        self.hoists.borrow_mut().push(HoistScope {
            depth: INLINE_DEPTH.get(),
            bound_inside,
            lets: Vec::new(),
        });
        let code = emit_then();
        let scope = self
            .hoists
            .borrow_mut()
            .pop()
            .expect("the scope pushed above");
        Ok((scope.lets, code?))
    }

    /// `term`, a value computed from `v` alone, as a local of the outermost open scope
    /// whose call and continuation do not bind `v`; `term` itself when there is none.
    pub(super) fn hoisted(&self, v: VarId, term: TokenStream) -> TokenStream {
        let depth = INLINE_DEPTH.get();
        let mut hoists = self.hoists.borrow_mut();
        let Some(scope) = hoists
            .iter_mut()
            .find(|s| s.depth == depth && !s.bound_inside.contains(&v))
        else {
            return term;
        };
        let name = self.fresh("hoist");
        scope.lets.push(quote! {
            #[allow(unused_variables)]
            let #name = #term;
        });
        quote!(#name)
    }
}

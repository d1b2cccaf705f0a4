//! Calls inlined: a call to a cheap demand mode runs the mode's rules in place.
//!
//! A call fills the mode's memo table for its key (a hashed store, each answer hashed
//! on insert) and the caller then reads the table back. When the mode's rules are
//! cheap — static lookups, single tuple tests, and calls — and no recursion runs
//! through them (a mode outside a recursive layer, or one that never calls itself,
//! [`Closure::Once`]), the table is pure overhead: amazons' legal moves went through
//! queen lines, a union over rook and bishop lines, a union over the four directions,
//! each a memo table holding copies of the answers below (2 of every 3 memo inserts).
//!
//! Cheap means: every query a static lookup, a single tuple test or the input, and at
//! most one call on any path through a rule, to a mode that remembers its answers —
//! so a key called again costs a lookup, as the memo table did.
//!
//! At the call site the emitter instead emits the mode's rules, their input reading the
//! caller's key (`let key = […]`), their variables named apart from the caller's
//! (`vN_D`, `INLINE_DEPTH`), and each head becomes the caller's continuation: the
//! caller's slots matched against the head's values, as they would be against a row of
//! the table. Calls inside are inlined in turn. The memo table no longer dedupes the
//! answers: an answer two rules derive runs the continuation twice, which every store,
//! memo table and state bit it ends in absorbs (sets, not lists).
//!
//! The continuation is copied once per head reached ([`MAX_INLINED_HEADS`], counted
//! through nested inlining before emitting), the inlined code of one call must stay
//! under [`MAX_INLINED_TEXT`] bytes of source, and the inlined code of the whole game
//! under [`MAX_GAME_INLINED_TEXT`] (call sites in emission order, so deterministic);
//! otherwise the call stays a call. Code size is compile time: a game's crate is built
//! when a match starts.

use proc_macro2::TokenStream;
use quote::quote;

use crate::Diagnostic;
use crate::ir::{Arg, RelationId};
use crate::plan::{Access, Evaluation, Node, Query, Slot, Test};

use super::{Closure, Emitter, INLINE_DEPTH, Sink};

/// The most heads (copies of the continuation) one inlined call may reach.
const MAX_INLINED_HEADS: usize = 32;

/// The most source text of one inlined call.
const MAX_INLINED_TEXT: usize = 48_000;

/// The most source text of all inlined calls of a game.
const MAX_GAME_INLINED_TEXT: usize = 200_000;

/// What an inlined call's heads continue with.
pub(super) struct Continuation {
    relation: usize,
    mode: usize,
    /// The caller's slots on the call's columns.
    slots: Vec<Slot>,
    /// The caller's code after the call.
    then: TokenStream,
}

impl Emitter<'_> {
    /// The code of `query`, a call, with the called mode's rules in place and `then`
    /// run at each head; `None` when the call stays a call.
    pub(super) fn inlined_call(
        &self,
        query: &Query,
        then: &TokenStream,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        let Access::Call(m) = query.access else {
            return Ok(None);
        };
        let r = query.relation.0 as usize;
        if !self.inlines(r, m) || self.heads(r, m, MAX_INLINED_HEADS).is_none() {
            return Ok(None);
        }
        let Evaluation::Demand(modes) = &self.plan.relations[r].evaluation else {
            return Ok(None);
        };
        let key = modes[m]
            .bound
            .iter()
            .map(|&c| super::key_value(query.slots[c]));
        let key_len = super::lit(modes[m].bound.len());
        let key = quote!([#(#key),*]);
        self.continuations.borrow_mut().push(Continuation {
            relation: r,
            mode: m,
            slots: query.slots.clone(),
            then: then.clone(),
        });
        let depth = INLINE_DEPTH.get();
        INLINE_DEPTH.set(depth + 1);
        let body = self.node(&modes[m].tree, Sink::Inline);
        INLINE_DEPTH.set(depth);
        self.continuations.borrow_mut().pop();
        let body = body?;
        let code = quote! {
            {
                let key: [Sym; #key_len] = #key;
                #body
            }
        };
        let len = code.to_string().len();
        let total = self.inlined_text.get() + len;
        if len > MAX_INLINED_TEXT || total > MAX_GAME_INLINED_TEXT {
            return Ok(None);
        }
        self.inlined_text.set(total);
        Ok(Some(code))
    }

    /// The relation and mode of the innermost call being inlined.
    pub(super) fn inlined_mode(&self) -> (usize, usize) {
        let continuations = self.continuations.borrow();
        let top = continuations
            .last()
            .expect("an inlined rule's input inside an inlined call");
        (top.relation, top.mode)
    }

    /// A head of an inlined rule: the caller's slots matched against its values, then
    /// the caller's continuation.
    pub(super) fn continue_inlined(&self, args: &[Arg]) -> TokenStream {
        let values: Vec<TokenStream> = args.iter().map(|&a| Self::value(a)).collect();
        let continuations = self.continuations.borrow();
        let top = continuations
            .last()
            .expect("an inlined rule's head inside an inlined call");
        let depth = INLINE_DEPTH.get();
        // The caller's slots name the caller's variables.
        INLINE_DEPTH.set(depth - 1);
        let columns: Vec<(TokenStream, Slot)> =
            values.into_iter().zip(top.slots.iter().copied()).collect();
        let (conds, binds) = Self::matcher(&columns);
        INLINE_DEPTH.set(depth);
        let then = &top.then;
        Self::guarded(&conds, quote!({ #(#binds)* #then }))
    }

    /// Whether calls to mode `m` of relation `r` may be inlined: a memo mode no
    /// recursion runs through whose rules only look up static tables, test single
    /// tuples and call.
    fn inlines(&self, r: usize, m: usize) -> bool {
        let Evaluation::Demand(modes) = &self.plan.relations[r].evaluation else {
            return false;
        };
        let relation = RelationId(r as u32);
        let cyclic = self.ir.layers[self.ir.layer_of[r]].cyclic;
        if self.known_mode(relation, m) || (cyclic && self.closure(r, m) != Some(Closure::Once)) {
            return false;
        }
        let Node::Sequence(rules) = &modes[m].tree else {
            return false;
        };
        rules.iter().all(|rule| match rule {
            Node::Rule { body, .. } => {
                matches!(&**body, Node::Query { query, .. } if query.access == Access::Input)
                    && self.cheap(body)
            }
            _ => false,
        })
    }

    /// Whether every query of the tree is a static lookup, a single tuple test or the
    /// input, and every path through it makes at most one call, to a mode that
    /// remembers its answers (a memo table, or a question whose answers are kept:
    /// `Emitter::known_memoised`). The inlined rules run at every call where the memo
    /// table ran them once per key; a call to the same key again then costs what the
    /// memo lookup did, not the evaluation of a question asked afresh each time.
    fn cheap(&self, node: &Node) -> bool {
        self.cheap_path(node, 0)
    }

    /// [`Self::cheap`] on the rest of a path that made `calls` calls so far.
    fn cheap_path(&self, node: &Node, calls: usize) -> bool {
        let query_calls = |query: &Query| -> Option<usize> {
            if let Access::Call(m) = query.access {
                let relation = query.relation;
                let remembered = !self.known_mode(relation, m) || self.known_memoised(relation, m);
                return remembered.then_some(1);
            }
            let fixed = matches!(query.access, Access::Input | Access::Member | Access::Flag)
                || matches!(
                    self.plan.relations[query.relation.0 as usize].evaluation,
                    Evaluation::Static(_)
                );
            fixed.then_some(0)
        };
        let step = |query: &Query, then: &Node| match query_calls(query) {
            Some(more) if calls + more <= 1 => self.cheap_path(then, calls + more),
            _ => false,
        };
        match node {
            Node::Sequence(children) => children.iter().all(|c| self.cheap_path(c, calls)),
            Node::Rule { body, .. } => self.cheap_path(body, calls),
            Node::Query { query, then } => step(query, then),
            Node::If { test, then } => match test {
                Test::Absent(query) => step(query, then),
                Test::Distinct(_) | Test::Equal(_) => self.cheap_path(then, calls),
            },
            Node::Accept { .. } => true,
            Node::Repeat(_) | Node::SemiNaive { .. } => false,
        }
    }

    /// How many heads an inlined call to mode `m` of relation `r` reaches, nested
    /// inlined calls followed; `None` past `limit`.
    fn heads(&self, r: usize, m: usize, limit: usize) -> Option<usize> {
        let Evaluation::Demand(modes) = &self.plan.relations[r].evaluation else {
            return None;
        };
        let Node::Sequence(rules) = &modes[m].tree else {
            return None;
        };
        let mut total = 0usize;
        for rule in rules {
            total += self.rule_heads(rule, limit)?;
            if total > limit {
                return None;
            }
        }
        Some(total)
    }

    /// The heads one path through an inlined rule reaches: the product of the heads of
    /// the inlined calls on it.
    fn rule_heads(&self, node: &Node, limit: usize) -> Option<usize> {
        match node {
            Node::Rule { body, .. } => self.rule_heads(body, limit),
            Node::Query { query, then } => {
                let here = match query.access {
                    Access::Call(m) if self.inlines(query.relation.0 as usize, m) => {
                        self.heads(query.relation.0 as usize, m, limit).unwrap_or(1)
                    }
                    _ => 1,
                };
                let total = here.checked_mul(self.rule_heads(then, limit)?)?;
                (total <= limit).then_some(total)
            }
            Node::If { then, .. } => self.rule_heads(then, limit),
            Node::Accept { .. } => Some(1),
            _ => None,
        }
    }
}

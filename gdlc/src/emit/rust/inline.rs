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
//! under [`MAX_GAME_INLINED_TEXT`] (call sites in emission order, so deterministic).
//! Code size is compile time: a game's crate is built when a match starts. A call past
//! those limits is inlined *gathering* its answers, if that fits them: each head adds
//! the values of the variables the call binds to a local buffer (`gatheredD`, a
//! `rt::Gathered`, which keeps each answer once), and the continuation, written once,
//! runs for each answer after the rules (once, when the call binds nothing). Amazons'
//! legal rule calls the queen lines (eight walks, each ending in the arrow lines with
//! their own heads): a copy of the continuation at each head doubled the crate's
//! source, a memo table hashed every answer; gathered, neither. Otherwise the call
//! stays a call.
//!
//! A right-linear mode ([`Closure::Chain`], a line walked square by square) is inlined
//! as a *walk*: its memo table held, per key, the exit rules' answers at every key
//! reachable through its calls back into itself; the walk visits those keys from a
//! local array (`walkD`, the call's key first; a key already in it is not added, so a
//! line closing on itself ends) and runs the rules at each, a call back into the mode
//! adding its key, an exit rule's head running the continuation with the bound columns
//! of the call's own key (`originD`). The array holds only the key's *varying* places:
//! a place every call back passes on unchanged (the variable its rule read there, or
//! the same constant) holds the call's key at every key met, so it is read from
//! `originD` (a line's row as it steps along a column): a narrower key to store and
//! compare, and what is computed from those places the compiler hoists out of the
//! loop.
//!
//! A left-linear mode whose calls back into itself have the call's key
//! ([`Closure::Own`]) is inlined as a walk of its *answers*: the same array holds the
//! answers found (their free columns: the bound ones hold the walk's key in every
//! answer), the rules without a call back run once, those with one in passes until
//! none is new (none when the first found nothing), a call back reads the answers
//! found so far (and those found while it runs) without comparing the key columns,
//! and a head runs the continuation only for a new answer. A call back that a pass
//! enters at most once, with the same bindings every pass (only the input, single
//! tuple tests and static lookups of at most one row before it), reads each answer
//! once, from a cursor of its own (`cursorD_I`): a line walked backwards from its end
//! costs a read per square, not a read of every square found so far per pass. Keys or
//! answers past the array's [`MAX_WALK`] go to a vector (`spillD`), allocated only
//! then; the count of keys (`walkedD`) counts both, so the vector is read only when
//! it holds some (a walk of a line shorter than the array never touches it). Whether
//! a key or answer was met is first asked of a filter of 64 bits (`seenD`, a bit per
//! key by a hash of its symbols, `rt::walk_bit`): a clear bit means a new one, with no
//! search of those met; a set bit (the key, or another with its bit) means a search.

use proc_macro2::TokenStream;
use quote::quote;

use crate::Diagnostic;
use crate::ir::{Arg, RelationId};
use crate::plan::{Access, Evaluation, Node, Query, Slot, Test};

use super::{Closure, Emitter, INLINE_DEPTH, Sink};

/// The most heads (copies of the continuation) one inlined call may reach.
const MAX_INLINED_HEADS: usize = 32;

/// The most heads an inlined call gathering its answers may reach (each adds the
/// answer to the buffer: a few lines).
const MAX_GATHERED_HEADS: usize = 256;

/// The most source text of one inlined call.
const MAX_INLINED_TEXT: usize = 128_000;

/// The most source text of all inlined calls of a game.
const MAX_GAME_INLINED_TEXT: usize = 200_000;

/// The keys an inlined walk holds on the stack (see the module docs): a line of the
/// board of up to 16 squares (longer ones spill into a vector).
const MAX_WALK: usize = 16;

/// What an inlined call's heads continue with.
pub(super) struct Continuation {
    relation: usize,
    mode: usize,
    /// The caller's slots on the call's columns.
    slots: Vec<Slot>,
    /// The caller's code after the call.
    then: TokenStream,
    /// For a walk, its kind and the depth naming its locals.
    walk: Option<(Walk, usize)>,
    /// For a walk of answers, its calls back entered at most once per pass, each
    /// reading the answers from a cursor of its own (`cursorD_I`, I its place here).
    cursors: Vec<*const Query>,
    /// For a walk of keys, the places of the key that its calls back may change (the
    /// others hold the call's key at every key met: `walkD` holds only these).
    varying: Vec<usize>,
}

/// What an inlined recursive mode walks (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Walk {
    /// The keys of a [`Closure::Chain`] mode.
    Keys,
    /// The answers of a [`Closure::Own`] mode.
    Answers,
}

impl Emitter<'_> {
    /// The code of `query`, a call, with the called mode's rules in place: `then` run
    /// at each head, or, when copies of it at every head would pass the text budgets,
    /// the answers gathered first and `then` run once over them; `None` when the call
    /// stays a call.
    pub(super) fn inlined_call(
        &self,
        query: &Query,
        then: &TokenStream,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        if let Some(code) = self.inlined_with(query, then, MAX_INLINED_HEADS)? {
            return Ok(Some(code));
        }
        self.inlined_gathered(query, then)
    }

    /// The call inlined with its heads adding the variables it binds to a local
    /// buffer (`gatheredD`, the caller's depth), and `then` run once after the rules,
    /// for each answer gathered (see the module docs).
    fn inlined_gathered(
        &self,
        query: &Query,
        then: &TokenStream,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        let mut binds = Vec::new();
        for slot in &query.slots {
            if let Slot::Bind(v) = *slot
                && !binds.contains(&v)
            {
                binds.push(v);
            }
        }
        let names: Vec<proc_macro2::Ident> = binds.iter().map(|&v| super::var(v)).collect();
        let depth = INLINE_DEPTH.get();
        let gathered = quote::format_ident!("gathered{}", depth);
        let read = quote::format_ident!("gathered_read{}", depth);
        if names.is_empty() {
            // Nothing to bind: whether any head was reached.
            let add = quote!(#gathered = true;);
            let Some(rules) = self.inlined_with(query, &add, MAX_GATHERED_HEADS)? else {
                return Ok(None);
            };
            return Ok(Some(quote! {
                {
                    let mut #gathered = false;
                    #rules
                    if #gathered {
                        #then
                    }
                }
            }));
        }
        let width = super::lit(names.len());
        let add = quote!(#gathered.add([#(#names),*]););
        let Some(rules) = self.inlined_with(query, &add, MAX_GATHERED_HEADS)? else {
            return Ok(None);
        };
        Ok(Some(quote! {
            {
                let mut #gathered = rt::Gathered::<#width>::new();
                #rules
                let mut #read: usize = 0;
                while #read < #gathered.len() {
                    let [#(#names),*] = #gathered.get(#read);
                    #read += 1;
                    #then
                }
            }
        }))
    }

    /// The call inlined with `then` at each head, if it reaches at most `max_heads`
    /// heads and its text is within the budgets.
    fn inlined_with(
        &self,
        query: &Query,
        then: &TokenStream,
        max_heads: usize,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        let Access::Call(m) = query.access else {
            return Ok(None);
        };
        // The game's budget spent: no inlined code fits (and emitting it to find out
        // would cost compile time at every call site left).
        if self.inlined_text.get() >= MAX_GAME_INLINED_TEXT {
            return Ok(None);
        }
        let r = query.relation.0 as usize;
        let walk = match self.closure(r, m) {
            Some(Closure::Chain) => Some(Walk::Keys),
            Some(Closure::Own) => Some(Walk::Answers),
            _ => None,
        };
        if !self.inlines(r, m) || self.heads(r, m, max_heads).is_none() {
            return Ok(None);
        }
        let Evaluation::Demand(modes) = &self.plan.relations[r].evaluation else {
            return Ok(None);
        };
        let mode = &modes[m];
        let key = (mode.bound.iter()).map(|&c| super::key_value(query.slots[c]));
        let key = quote!([#(#key),*]);
        let depth = INLINE_DEPTH.get();
        let mut cursors = Vec::new();
        if walk == Some(Walk::Answers) {
            self.single_entry_calls(&mode.tree, (r, m), &mut cursors);
        }
        let cursor_names: Vec<proc_macro2::Ident> = (0..cursors.len())
            .map(|i| quote::format_ident!("cursor{}_{}", depth, i))
            .collect();
        let varying = if walk == Some(Walk::Keys) {
            self.varying_key_places(&mode.tree, &mode.bound, (r, m))
        } else {
            Vec::new()
        };
        self.continuations.borrow_mut().push(Continuation {
            relation: r,
            mode: m,
            slots: query.slots.clone(),
            then: then.clone(),
            walk: walk.map(|kind| (kind, depth)),
            cursors,
            varying: varying.clone(),
        });
        // The calls inlined inside count as part of this one's text.
        let before = self.inlined_text.get();
        INLINE_DEPTH.set(depth + 1);
        let rules = self.inlined_rules(&mode.tree, (r, m), walk);
        INLINE_DEPTH.set(depth);
        self.continuations.borrow_mut().pop();
        let (once, body) = rules?;
        let code = match walk {
            Some(Walk::Answers) => {
                let free = self.ir.relations[r].columns.len() - mode.bound.len();
                Self::answers_walk(
                    depth,
                    (&key, mode.bound.len()),
                    free,
                    &cursor_names,
                    once,
                    body,
                )
            }
            Some(Walk::Keys) => Self::keys_walk(depth, (&key, mode.bound.len()), &varying, body),
            None => {
                let key_len = super::lit(mode.bound.len());
                quote! {
                    {
                        let key: [Sym; #key_len] = #key;
                        #body
                    }
                }
            }
        };
        let len = code.to_string().len();
        let total = before + len;
        if len > MAX_INLINED_TEXT || total > MAX_GAME_INLINED_TEXT {
            self.inlined_text.set(before);
            return Ok(None);
        }
        self.inlined_text.set(total);
        Ok(Some(code))
    }

    /// The rules of mode `own` (`tree`) inlined: those a walk of answers runs once,
    /// and those it runs in passes — the rules that read its answers (a call back into
    /// the mode); the others find the same answers every pass. Any other call runs
    /// every rule once, as the second.
    fn inlined_rules(
        &self,
        tree: &Node,
        own: (usize, usize),
        walk: Option<Walk>,
    ) -> Result<(TokenStream, TokenStream), Diagnostic> {
        if walk != Some(Walk::Answers) {
            return Ok((quote!(), self.node(tree, Sink::Inline)?));
        }
        let rules: Vec<&Node> = match tree {
            Node::Sequence(rules) => rules.iter().collect(),
            tree => vec![tree],
        };
        let (passes, once): (Vec<&Node>, Vec<&Node>) = rules
            .into_iter()
            .partition(|rule| Self::calls_back(rule, own));
        let emit = |rules: Vec<&Node>| -> Result<TokenStream, Diagnostic> {
            let code = rules
                .into_iter()
                .map(|rule| self.node(rule, Sink::Inline))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(quote!(#(#code)*))
        };
        let (once, passes) = (emit(once), emit(passes));
        Ok((once?, passes?))
    }

    /// The inlined walk of the answers of a call (its key `key` of `key_len` columns,
    /// `free` other columns) at `depth`, with the cursors of its calls back
    /// `cursor_names`: the rules `once`, then passes of the rules `body` until one
    /// finds no new answer.
    fn answers_walk(
        depth: usize,
        (key, key_len): (&TokenStream, usize),
        free: usize,
        cursor_names: &[proc_macro2::Ident],
        once: TokenStream,
        body: TokenStream,
    ) -> TokenStream {
        let WalkNames {
            origin,
            keys: answers,
            count,
            spill,
            link: pass,
            seen,
        } = WalkNames::at(depth);
        let cap = super::lit(MAX_WALK);
        let key_len = super::lit(key_len);
        // An answer is held by its free columns: every answer has the walk's key in
        // the bound ones.
        let free = super::lit(free);
        quote! {
            {
                let #origin: [Sym; #key_len] = #key;
                let key: [Sym; #key_len] = #origin;
                let mut #answers = [[0 as Sym; #free]; #cap];
                let mut #count: usize = 0;
                let mut #seen: u64 = 0;
                let mut #spill: Vec<[Sym; #free]> = Vec::new();
                #(let mut #cursor_names: usize = 0;)*
                #once
                while #count > 0 {
                    let #pass = #count;
                    #body
                    if #count == #pass {
                        break;
                    }
                }
            }
        }
    }

    /// The inlined walk of the keys of a call (its key `key` of `key_len` columns) at
    /// `depth`, holding the key's places `varying` (the others are the call's): the
    /// rules `body` run at each key met.
    fn keys_walk(
        depth: usize,
        (key, key_len): (&TokenStream, usize),
        varying: &[usize],
        body: TokenStream,
    ) -> TokenStream {
        let WalkNames {
            origin,
            keys,
            count,
            spill,
            link,
            seen,
        } = WalkNames::at(depth);
        let cap = super::lit(MAX_WALK);
        // The walk holds the key's varying places; the others are the call's.
        let width = super::lit(varying.len());
        let first = varying.iter().map(|&j| {
            let j = super::lit(j);
            quote!(#origin[#j])
        });
        let places = (0..key_len).map(|j| match varying.iter().position(|&v| v == j) {
            Some(i) => {
                let i = super::lit(i);
                quote!(entry[#i])
            }
            None => {
                let j = super::lit(j);
                quote!(#origin[#j])
            }
        });
        let key_len = super::lit(key_len);
        quote! {
            {
                let #origin: [Sym; #key_len] = #key;
                let mut #keys = [[0 as Sym; #width]; #cap];
                #keys[0] = [#(#first),*];
                let mut #seen: u64 = rt::walk_bit(#keys[0]);
                let mut #count: usize = 1;
                let mut #spill: Vec<[Sym; #width]> = Vec::new();
                let mut #link: usize = 0;
                while #link < #count {
                    let entry: [Sym; #width] = if #link < #cap {
                        #keys[#link]
                    } else {
                        #spill[#link - #cap]
                    };
                    #link += 1;
                    let key: [Sym; #key_len] = [#(#places),*];
                    #body
                }
            }
        }
    }

    /// The relation and mode of the innermost call being inlined.
    pub(super) fn inlined_mode(&self) -> (usize, usize) {
        let continuations = self.continuations.borrow();
        let top = continuations
            .last()
            .expect("an inlined rule's input inside an inlined call");
        (top.relation, top.mode)
    }

    /// The kind and depth of the walk that calls back into mode `m` of relation `r`
    /// inline: the innermost inlined call, when it is a walk of that mode.
    pub(super) fn walk_of(&self, r: usize, m: usize) -> Option<(Walk, usize)> {
        let continuations = self.continuations.borrow();
        let top = continuations.last()?;
        if (top.relation, top.mode) == (r, m) {
            top.walk
        } else {
            None
        }
    }

    /// An accept after a call back into the mode of the walk at `depth`: the call's key
    /// (its varying places) joins the walk's keys unless already there.
    pub(super) fn walk_push(&self, depth: usize) -> TokenStream {
        let continuations = self.continuations.borrow();
        let walk = continuations
            .iter()
            .rev()
            .find(|c| c.walk == Some((Walk::Keys, depth)))
            .expect("a call back inside its walk");
        let places = walk.varying.iter().map(|&j| {
            let j = super::lit(j);
            quote!(link_key[#j])
        });
        let add = Self::add_unmet(depth, &quote::format_ident!("link_entry"));
        quote! {
            let link_entry = [#(#places),*];
            let _ = #add;
        }
    }

    /// The places of a walk's key (mode `own`'s bound columns `bound`, its rules
    /// `tree`) that a call back may change: those where some call back does not pass
    /// the value its rule read from the key there (the same variable, or the same
    /// constant). Every key the walk meets holds the call's key in the others.
    fn varying_key_places(&self, tree: &Node, bound: &[usize], own: (usize, usize)) -> Vec<usize> {
        let rules: Vec<&Node> = match tree {
            Node::Sequence(rules) => rules.iter().collect(),
            tree => vec![tree],
        };
        let mut varying = vec![false; bound.len()];
        for rule in rules {
            let Node::Rule { body, .. } = rule else {
                return (0..bound.len()).collect();
            };
            let Node::Query { query: input, .. } = &**body else {
                return (0..bound.len()).collect();
            };
            if input.access != Access::Input {
                return (0..bound.len()).collect();
            }
            rule.for_each_query(&mut |query| {
                if !Self::is_call_back(query, own) {
                    return;
                }
                for (j, &c) in bound.iter().enumerate() {
                    let kept = match (input.slots[c], query.slots[c]) {
                        (Slot::Bind(v) | Slot::Same(v), Slot::Bound(w)) => v == w,
                        (Slot::Sym(a), Slot::Sym(b)) => a == b,
                        _ => false,
                    };
                    varying[j] |= !kept;
                }
            });
        }
        (0..bound.len()).filter(|&j| varying[j]).collect()
    }

    /// An expression adding the array local `entry` to the keys or answers of the walk
    /// at `depth` unless already there (on the stack, or spilled past its room): whether
    /// it was added.
    fn add_unmet(depth: usize, entry: &proc_macro2::Ident) -> TokenStream {
        let WalkNames {
            keys,
            count,
            spill,
            seen,
            ..
        } = WalkNames::at(depth);
        let cap = super::lit(MAX_WALK);
        quote! {
            if {
                // Searched for only when its bit of the filter is set.
                let bit = rt::walk_bit(#entry);
                let met = #seen & bit != 0
                    && (#keys[..#count.min(#cap)].contains(&#entry)
                        || (#count > #cap && #spill.contains(&#entry)));
                #seen |= bit;
                met
            } {
                false
            } else {
                if #count < #cap {
                    #keys[#count] = #entry;
                } else {
                    #spill.push(#entry);
                }
                #count += 1;
                true
            }
        }
    }

    /// A call back into the mode of the walk of answers at `depth`, inline: `then` for
    /// each answer found so far, and each found while it runs. A call back entered at
    /// most once per pass (with the same bindings each pass) reads each answer once,
    /// from its cursor; any other reads them all, every pass.
    pub(super) fn walk_answers(
        &self,
        depth: usize,
        query: &Query,
        then: TokenStream,
    ) -> TokenStream {
        let WalkNames {
            keys: answers,
            count,
            spill,
            ..
        } = WalkNames::at(depth);
        let cap = super::lit(MAX_WALK);
        let slots = &query.slots;
        let cursor = self.continuations.borrow().last().and_then(|top| {
            top.cursors
                .iter()
                .position(|&site| std::ptr::eq(site, query))
        });
        let i = quote::format_ident!("read{}", depth);
        let (start, save) = match cursor {
            Some(place) => {
                let cursor = quote::format_ident!("cursor{}_{}", depth, place);
                (quote!(#cursor), quote!(#cursor = #i;))
            }
            None => (quote!(0), quote!()),
        };
        let row = quote::format_ident!("answer{}", depth);
        // Every answer has the walk's key in the bound columns, and a call back into an
        // own mode passes that key (`Closure::Own`): those columns need no comparing,
        // and the answers hold only the free ones.
        let (r, m) = self.inlined_mode();
        let bound: &[usize] = match &self.plan.relations[r].evaluation {
            Evaluation::Demand(modes) => &modes[m].bound,
            _ => &[],
        };
        let mut held = 0;
        let columns: Vec<(TokenStream, Slot)> = slots
            .iter()
            .enumerate()
            .map(|(c, &slot)| {
                if bound.contains(&c) {
                    return (quote!(0), Slot::Free);
                }
                let i = super::lit(held);
                held += 1;
                (quote!(#row[#i]), slot)
            })
            .collect();
        let (conds, binds) = Self::matcher(&columns);
        let body = Self::guarded(&conds, quote!(#(#binds)* #then));
        quote! {
            let mut #i: usize = #start;
            while #i < #count {
                let #row = if #i < #cap { #answers[#i] } else { #spill[#i - #cap] };
                #i += 1;
                #body
            }
            #save
        }
    }

    /// Whether the rule `rule` of mode `own` calls back into it.
    fn calls_back(rule: &Node, own: (usize, usize)) -> bool {
        let mut found = false;
        rule.for_each_query(&mut |query| found |= Self::is_call_back(query, own));
        found
    }

    /// Whether `query` calls mode `own` (relation, mode).
    fn is_call_back(query: &Query, own: (usize, usize)) -> bool {
        query.access == Access::Call(own.1) && query.relation.0 as usize == own.0
    }

    /// The calls back into mode `own` in `node` (a mode's tree) that a pass enters at
    /// most once, with the same bindings every pass: on their path from the rule's
    /// input, only tests and queries matching at most one row (see
    /// [`Self::at_most_one_match`]).
    fn single_entry_calls(&self, node: &Node, own: (usize, usize), out: &mut Vec<*const Query>) {
        match node {
            Node::Sequence(children) => {
                for child in children {
                    self.single_entry_calls(child, own, out);
                }
            }
            Node::Rule { body, .. } => self.single_entry_calls(body, own, out),
            Node::Query { query, then } => {
                if Self::is_call_back(query, own) {
                    out.push(query as *const Query);
                } else if self.at_most_one_match(query) {
                    self.single_entry_calls(then, own, out);
                }
            }
            Node::If { then, .. } => self.single_entry_calls(then, own, out),
            Node::Accept { .. } | Node::Repeat(_) | Node::SemiNaive { .. } => {}
        }
    }

    /// Whether `query` matches at most one row whatever its bound values: the input,
    /// a test of one tuple, or a static relation with at most one row per value of its
    /// known columns.
    fn at_most_one_match(&self, query: &Query) -> bool {
        if matches!(query.access, Access::Input | Access::Member | Access::Flag) {
            return true;
        }
        let Evaluation::Static(tuples) = &self.plan.relations[query.relation.0 as usize].evaluation
        else {
            return false;
        };
        let known: Vec<usize> = (0..query.slots.len())
            .filter(|&c| matches!(query.slots[c], Slot::Sym(_) | Slot::Bound(_)))
            .collect();
        let mut keys: Vec<Vec<crate::ir::SymbolId>> = tuples
            .iter()
            .map(|row| known.iter().map(|&c| row[c]).collect())
            .collect();
        let rows = keys.len();
        keys.sort();
        keys.dedup();
        keys.len() == rows
    }

    /// A head of an inlined rule: the caller's slots matched against its values, then
    /// the caller's continuation. A walk of keys has its call's key in the bound
    /// columns; a walk of answers runs the continuation on new answers only.
    pub(super) fn continue_inlined(&self, args: &[Arg]) -> TokenStream {
        let mut values: Vec<TokenStream> = args.iter().map(|&a| Self::value(a)).collect();
        let continuations = self.continuations.borrow();
        let top = continuations
            .last()
            .expect("an inlined rule's head inside an inlined call");
        let mut new_answer = None;
        if let Some((Walk::Answers, depth)) = top.walk
            && let Evaluation::Demand(modes) = &self.plan.relations[top.relation].evaluation
        {
            // The answer's free columns (its bound ones hold the walk's key).
            let bound = &modes[top.mode].bound;
            let free = (0..values.len())
                .filter(|c| !bound.contains(c))
                .map(|c| &values[c]);
            let add = Self::add_unmet(depth, &quote::format_ident!("answer"));
            new_answer = Some(quote! {
                let answer = [#(#free),*];
                #add
            });
        }
        if let Some((Walk::Keys, depth)) = top.walk
            && let Evaluation::Demand(modes) = &self.plan.relations[top.relation].evaluation
        {
            let origin = WalkNames::at(depth).origin;
            for (j, &c) in modes[top.mode].bound.iter().enumerate() {
                let j = super::lit(j);
                values[c] = quote!(#origin[#j]);
            }
        }
        let depth = INLINE_DEPTH.get();
        // The caller's slots name the caller's variables.
        INLINE_DEPTH.set(depth - 1);
        let columns: Vec<(TokenStream, Slot)> =
            values.into_iter().zip(top.slots.iter().copied()).collect();
        let (conds, binds) = Self::matcher(&columns);
        INLINE_DEPTH.set(depth);
        let then = &top.then;
        let continued = Self::guarded(&conds, quote!({ #(#binds)* #then }));
        match new_answer {
            Some(new) => quote! {
                if { #new } {
                    #continued
                }
            },
            None => continued,
        }
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
        let closed = self.closure(r, m).is_some();
        if self.known_mode(relation, m) || (cyclic && !closed) {
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
            total += self.rule_heads(rule, limit, (r, m))?;
            if total > limit {
                return None;
            }
        }
        Some(total)
    }

    /// The heads one path through an inlined rule of mode `own` reaches: the product of
    /// the heads of the inlined calls on it (none after a walk's call back into its own
    /// mode, which adds a key).
    fn rule_heads(&self, node: &Node, limit: usize, own: (usize, usize)) -> Option<usize> {
        match node {
            Node::Rule { body, .. } => self.rule_heads(body, limit, own),
            Node::Query { query, then } => {
                let here = match query.access {
                    // A walk of keys adds a key; a walk of answers reads them.
                    Access::Call(m) if (query.relation.0 as usize, m) == own => {
                        if self.closure(own.0, own.1) == Some(Closure::Chain) {
                            return Some(0);
                        }
                        1
                    }
                    Access::Call(m) if self.inlines(query.relation.0 as usize, m) => {
                        self.heads(query.relation.0 as usize, m, limit).unwrap_or(1)
                    }
                    _ => 1,
                };
                let total = here.checked_mul(self.rule_heads(then, limit, own)?)?;
                (total <= limit).then_some(total)
            }
            Node::If { then, .. } => self.rule_heads(then, limit, own),
            Node::Accept { .. } => Some(1),
            _ => None,
        }
    }
}

/// The locals of a walk inlined at a depth (see the module docs).
struct WalkNames {
    /// The call's key.
    origin: proc_macro2::Ident,
    /// The keys met, the call's first.
    keys: proc_macro2::Ident,
    /// How many keys are met (on the stack and spilled: the spill is read only past
    /// the stack's room).
    count: proc_macro2::Ident,
    /// The keys met past the array's room.
    spill: proc_macro2::Ident,
    /// The next key to visit.
    link: proc_macro2::Ident,
    /// The filter of the keys or answers met (`rt::walk_bit`).
    seen: proc_macro2::Ident,
}

impl WalkNames {
    fn at(depth: usize) -> Self {
        WalkNames {
            origin: quote::format_ident!("origin{}", depth),
            keys: quote::format_ident!("walk{}", depth),
            count: quote::format_ident!("walked{}", depth),
            spill: quote::format_ident!("spill{}", depth),
            link: quote::format_ident!("link{}", depth),
            seen: quote::format_ident!("seen{}", depth),
        }
    }
}

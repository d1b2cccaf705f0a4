//! Calls to views inlined: a demand mode outside recursion whose every rule renames one
//! call (`(<= (queen-line ?a ?b ?c ?d) (rook-line ?a ?b ?c ?d))`, `(<= (rook-line ?a ?b
//! ?c ?d) (row-line ?c ?d ?a ?b))`) is a union of other calls with columns permuted.
//! Calling it fills its memo table with copies of the answers of the calls it makes,
//! each hashed again (amazons' legal moves: 2 of every 3 memo inserts, through queen
//! lines over rook and bishop lines over the four directions).
//!
//! At a call site, such a call becomes the calls its rules make, each a query of the
//! caller with the view's variables replaced by the caller's values and variables
//! (views of views are followed), and the caller's continuation runs once per rule. The
//! view's memo table no longer dedupes the answers: an answer two rules derive runs the
//! continuation twice, which every store, memo table and state bit it ends in absorbs
//! (sets, not lists). The continuation is copied once per call made, so a call site is
//! inlined only while the copies stay few and small ([`MAX_INLINED_CALLS`],
//! [`MAX_INLINED_TEXT`]).
//!
//! A rule of another shape, a column the renaming cannot express as a slot of the new
//! query (a symbol in the view's head, a variable repeated, a head column the caller
//! reads from a variable the view binds to a key value), keeps the call.

use std::collections::BTreeMap;

use crate::ir::{Arg, VarId};
use crate::plan::{Access, Evaluation, Node, Query, Slot};

use super::Emitter;

/// The most calls one call site may turn into.
pub(super) const MAX_INLINED_CALLS: usize = 8;

/// The most source text of the continuation times its copies.
pub(super) const MAX_INLINED_TEXT: usize = 16_000;

/// A view rule: its input slots, the call it makes, its head.
struct ViewRule<'p> {
    input: &'p [Slot],
    call: &'p Query,
    head: &'p [Arg],
}

impl Emitter<'_> {
    /// The calls a call to a view makes, as queries of the caller, when the view is
    /// inlined at this call site; `None` keeps the call. `text` is the size of the
    /// continuation's source.
    pub(super) fn inlined_view(&self, query: &Query, text: usize) -> Option<Vec<Query>> {
        let Access::Call(m) = query.access else {
            return None;
        };
        let calls = self.view_calls(query.relation.0 as usize, m)?;
        if calls > MAX_INLINED_CALLS || text.saturating_mul(calls) > MAX_INLINED_TEXT {
            return None;
        }
        let bound = self.bound(query.relation.0 as usize, m);
        self.view_rules(query.relation.0 as usize, m)?
            .iter()
            .map(|rule| renamed(query, bound, rule))
            .collect()
    }

    /// How many calls a call to mode `m` of relation `r` makes once inlined, views of
    /// views followed; `None` when it is not a view.
    fn view_calls(&self, r: usize, m: usize) -> Option<usize> {
        let mut calls = 0usize;
        for rule in self.view_rules(r, m)? {
            let Access::Call(sub) = rule.call.access else {
                return None;
            };
            calls += self
                .view_calls(rule.call.relation.0 as usize, sub)
                .unwrap_or(1);
            if calls > MAX_INLINED_CALLS {
                return None;
            }
        }
        Some(calls)
    }

    /// The rules of mode `m` of relation `r` when each is an input, one call and the
    /// head, outside recursion.
    fn view_rules(&self, r: usize, m: usize) -> Option<Vec<ViewRule<'_>>> {
        let Evaluation::Demand(modes) = &self.plan.relations[r].evaluation else {
            return None;
        };
        let relation = crate::ir::RelationId(r as u32);
        if self.ir.layers[self.ir.layer_of[r]].cyclic || self.known_mode(relation, m) {
            return None;
        }
        let Node::Sequence(rules) = &modes[m].tree else {
            return None;
        };
        rules
            .iter()
            .map(|rule| {
                let Node::Rule { body, .. } = rule else {
                    return None;
                };
                let Node::Query { query: input, then } = &**body else {
                    return None;
                };
                let Node::Query { query: call, then } = &**then else {
                    return None;
                };
                let Node::Accept { args, .. } = &**then else {
                    return None;
                };
                (input.access == Access::Input && matches!(call.access, Access::Call(_))).then_some(
                    ViewRule {
                        input: &input.slots,
                        call,
                        head: args,
                    },
                )
            })
            .collect()
    }
}

/// The call `rule` makes, as a query of the caller's call `caller` to the view (whose
/// mode binds `bound`); `None` when a column cannot be renamed.
fn renamed(caller: &Query, bound: &[usize], rule: &ViewRule) -> Option<Query> {
    // The view's variables: those its input binds, as the caller's key values; those
    // its call binds, as the caller's slot at the head column holding them.
    let mut keyed: BTreeMap<VarId, Slot> = BTreeMap::new();
    for &c in bound {
        let value = match caller.slots[c] {
            Slot::Sym(s) => Slot::Sym(s),
            Slot::Bound(u) => Slot::Bound(u),
            _ => return None,
        };
        match rule.input[c] {
            Slot::Bind(v) if !keyed.contains_key(&v) => {
                keyed.insert(v, value);
            }
            Slot::Sym(s) if value == Slot::Sym(s) => {}
            _ => return None,
        }
    }
    let mut free: BTreeMap<VarId, Slot> = BTreeMap::new();
    for (c, &arg) in rule.head.iter().enumerate() {
        if bound.contains(&c) {
            // The input read the key at this column: a variable it bound, or a symbol
            // it compared.
            continue;
        }
        let Arg::Var(v) = arg else {
            return None;
        };
        if keyed.contains_key(&v) || free.contains_key(&v) {
            return None;
        }
        let slot = match caller.slots[c] {
            Slot::Same(_) => return None,
            slot => slot,
        };
        free.insert(v, slot);
    }
    let mut seen: BTreeMap<VarId, usize> = BTreeMap::new();
    let mut slots = Vec::with_capacity(rule.call.slots.len());
    for &slot in &rule.call.slots {
        slots.push(match slot {
            Slot::Sym(s) => Slot::Sym(s),
            Slot::Free => Slot::Free,
            Slot::Bound(v) => *keyed.get(&v)?,
            Slot::Bind(v) => {
                *seen.entry(v).or_default() += 1;
                // A variable only the call binds is not looked at.
                free.get(&v).copied().unwrap_or(Slot::Free)
            }
            Slot::Same(v) => match free.get(&v)? {
                Slot::Bind(u) => Slot::Same(*u),
                Slot::Free => return None,
                &other => other,
            },
        });
    }
    // Every caller variable the call binds is bound by the new query, once.
    let binds = |slots: &[Slot], u: VarId| slots.iter().filter(|&&s| s == Slot::Bind(u)).count();
    for slot in &caller.slots {
        if let Slot::Bind(u) = *slot
            && binds(&slots, u) != 1
        {
            return None;
        }
    }
    if seen.values().any(|&n| n > 1) {
        return None;
    }
    Some(Query {
        relation: rule.call.relation,
        slots,
        access: rule.call.access.clone(),
    })
}

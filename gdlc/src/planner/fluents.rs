//! The state layout decided per function symbol of `true`: dense or listed.
//!
//! A backend gives each fluent a state bit. *Dense*, the bits of a functor's fluents
//! are the product of its columns' domains (mixed radix), so a fluent's bit is
//! arithmetic on its arguments' positions. The domains come from the argument
//! analysis, which treats columns independently; for a fluent such as an ordering of
//! eight items, the product (9⁸) is far larger than the fluents that can occur (8!),
//! too large for a state. Such a functor's fluents are *listed*: the fluents of the
//! relaxed game ([`crate::ground::reachable_fluents`], a superset of every fluent of
//! every reachable state) each get a bit, in the order of their dense numbers, so a
//! fluent's bit is the rank of its dense number in a sorted table.
//!
//! Only functors whose dense block is larger than [`LISTED_ABOVE`] are considered, and
//! listed when at most a quarter of their dense block can occur; the decision and its
//! reason are part of the plan ([`crate::plan::Plan::fluents`]).

use crate::ground::{REACHABILITY_LIMITS, reachable_fluents};
use crate::ir::{Ir, Keyword, NIL, SymbolId};
use crate::plan::{FluentLayout, Plan};

/// Functors with more dense fluents than this are candidates for a listed layout.
pub const LISTED_ABOVE: usize = 1 << 14;

/// The layout decisions for the functors of `true` whose dense block exceeds
/// [`LISTED_ABOVE`], in the order of the root column's domain.
pub fn fluent_layouts(ir: &Ir, plan: &Plan) -> Vec<FluentLayout> {
    let Some(true_rel) = ir.keyword(Keyword::True) else {
        return Vec::new();
    };
    let relation = ir.relation(true_rel);
    let Some(root) = relation.column_of(&[0]) else {
        return Vec::new();
    };
    let large: Vec<(SymbolId, Vec<usize>, usize)> = relation.columns[root]
        .domain
        .iter()
        .filter(|&&f| f != NIL)
        .map(|&f| {
            let under = relation.columns_under(0, f);
            let dense = under.iter().fold(1usize, |size, &c| {
                size.saturating_mul(relation.columns[c].domain.len())
            });
            (f, under, dense)
        })
        .filter(|&(_, _, dense)| dense > LISTED_ABOVE)
        .collect();
    if large.is_empty() {
        return Vec::new();
    }
    let reachable = reachable_fluents(ir, plan, &REACHABILITY_LIMITS);
    large
        .into_iter()
        .map(|(functor, under, dense)| {
            let fluents = match &reachable {
                Ok(fluents) => fluents,
                Err(why) => {
                    return FluentLayout {
                        functor,
                        dense,
                        listed: None,
                        reason: format!(
                            "dense: {dense} values after analysis; the fluents that can occur are unknown ({why})"
                        ),
                    };
                }
            };
            // Each fluent of this functor with its dense number's digits.
            let mut keyed: Vec<(Vec<usize>, Vec<SymbolId>)> = fluents
                .iter()
                .filter(|tuple| tuple[root] == functor)
                .filter_map(|tuple| {
                    let digits = under
                        .iter()
                        .map(|&c| {
                            relation.columns[c]
                                .domain
                                .iter()
                                .position(|&d| d == tuple[c])
                        })
                        .collect::<Option<Vec<usize>>>()?;
                    Some((digits, tuple.clone()))
                })
                .collect();
            keyed.sort();
            keyed.dedup();
            let count = keyed.len();
            if count.saturating_mul(4) <= dense {
                FluentLayout {
                    functor,
                    dense,
                    listed: Some(keyed.into_iter().map(|(_, tuple)| tuple).collect()),
                    reason: format!(
                        "listed: {count} can occur (relaxed reachability) of {dense} after analysis"
                    ),
                }
            } else {
                FluentLayout {
                    functor,
                    dense,
                    listed: None,
                    reason: format!(
                        "dense: {count} can occur (relaxed reachability) of {dense} after analysis, too many to list"
                    ),
                }
            }
        })
        .collect()
}

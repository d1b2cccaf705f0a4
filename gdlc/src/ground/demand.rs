//! Demand restriction: which atoms of a derived relation some rule can ask for.
//!
//! Bottom-up grounding derives every atom a relation's rules can produce, including
//! atoms no rule ever reads. A helper relation called only with constants — `(count h1
//! h2 i1 red ?payoff)` for a goal, over a `count` defined for every triple of cells —
//! would ground to every triple. Grounders avoid that by propagating the call sites'
//! bindings into the callee (magic sets); this module does the simple, per-column form.
//!
//! For every relation without a keyword that some other relation's rules read, it
//! computes, per column, the set of values any call site can pass ([`Demand::columns`]):
//! a constant at the call site gives itself, a variable gives the values it can take in
//! that rule — those of the columns of the head it appears in, when those are
//! restricted, intersected with the values of the columns of the positive static
//! tables (compile-time tables) that bind it — or any value when nothing bounds it.
//! Call sites count only in rules whose heads are asked for, so the sets are computed
//! to a fixpoint from the entry relations (`legal`, `next`, `goal` …), which are
//! asked for in full.
//!
//! An atom of relation `r` outside `columns[r]` (some column's value outside its set) is
//! read by no rule instance that matters: the grounder skips the instances whose head
//! is such an atom, so the grounding keeps the exact truth of every atom a reachable
//! rule instance reads.

use std::collections::BTreeSet;

use crate::ir::{Arg, FlatLiteral, Ir, SymbolId};

/// The values asked for, per relation and column (`None`: any value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demand {
    /// For each relation of the IR, whether any of its atoms is asked for and, per
    /// column, the values asked for. Relations not restricted have every column `None`.
    pub columns: Vec<Option<Vec<Option<BTreeSet<SymbolId>>>>>,
}

impl Demand {
    /// The demand of `ir`'s relations. `restrictable[r]` says whether relation `r` may
    /// be restricted (no keyword, not a compile-time table); `table_columns(r, c)` gives
    /// the values of column `c` of a compile-time table `r`, `None` for other relations.
    pub fn compute(
        ir: &Ir,
        restrictable: &[bool],
        table_columns: &dyn Fn(usize, usize) -> Option<BTreeSet<SymbolId>>,
    ) -> Demand {
        let n = ir.relations.len();
        // A relation that no other relation's rules read keeps every atom: it is not
        // restricted.
        let mut called_by_others = vec![false; n];
        for rule in &ir.rules {
            for literal in &rule.body {
                if let FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) = literal
                    && atom.relation != rule.head.relation
                {
                    called_by_others[atom.relation.0 as usize] = true;
                }
            }
        }
        let restricted: Vec<bool> = (0..n)
            .map(|r| restrictable[r] && called_by_others[r])
            .collect();
        let mut columns: Vec<Option<Vec<Option<BTreeSet<SymbolId>>>>> = (0..n)
            .map(|r| {
                let arity = ir.relations[r].columns.len();
                if restricted[r] {
                    None
                } else {
                    Some(vec![None; arity])
                }
            })
            .collect();
        let mut cache: Vec<Vec<Option<Option<BTreeSet<SymbolId>>>>> = (0..n)
            .map(|r| vec![None; ir.relations[r].columns.len()])
            .collect();
        let mut column_of_table = |r: usize, c: usize| -> Option<BTreeSet<SymbolId>> {
            cache[r][c]
                .get_or_insert_with(|| table_columns(r, c))
                .clone()
        };
        let mut changed = true;
        while changed {
            changed = false;
            for rule in &ir.rules {
                let head = rule.head.relation.0 as usize;
                let Some(vars) =
                    rule_variable_values(columns[head].as_deref(), rule, &mut column_of_table)
                else {
                    continue;
                };
                for literal in &rule.body {
                    let (FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom)) = literal else {
                        continue;
                    };
                    let callee = atom.relation.0 as usize;
                    if !restricted[callee] {
                        continue;
                    }
                    let sets = columns[callee].get_or_insert_with(|| {
                        changed = true;
                        vec![Some(BTreeSet::new()); atom.args.len()]
                    });
                    for (c, arg) in atom.args.iter().enumerate() {
                        let asked = match *arg {
                            Arg::Sym(s) => Some(BTreeSet::from([s])),
                            Arg::Var(v) => vars[v.0 as usize].clone(),
                        };
                        changed |= widen(&mut sets[c], asked);
                    }
                }
            }
        }
        Demand { columns }
    }

    /// The values asked for in column `c` of relation `r`, if restricted.
    pub fn column(&self, r: usize, c: usize) -> Option<&BTreeSet<SymbolId>> {
        match self.columns.get(r) {
            Some(Some(sets)) => sets.get(c).and_then(Option::as_ref),
            Some(None) => Some(&EMPTY),
            None => None,
        }
    }

    /// Whether no atom of relation `r` is asked for.
    pub fn none_asked(&self, r: usize) -> bool {
        matches!(self.columns.get(r), Some(None))
    }
}

static EMPTY: BTreeSet<SymbolId> = BTreeSet::new();

/// The values each variable of `rule` can take in an instance whose head is asked for
/// (`None`: any value), or `None` when no such instance exists.
fn rule_variable_values(
    head_columns: Option<&[Option<BTreeSet<SymbolId>>]>,
    rule: &crate::ir::FlatRule,
    column_of_table: &mut dyn FnMut(usize, usize) -> Option<BTreeSet<SymbolId>>,
) -> Option<Vec<Option<BTreeSet<SymbolId>>>> {
    let head_columns = head_columns?;
    let mut vars: Vec<Option<BTreeSet<SymbolId>>> = vec![None; rule.vars.len()];
    for (c, arg) in rule.head.args.iter().enumerate() {
        let Some(set) = &head_columns[c] else {
            continue;
        };
        match *arg {
            Arg::Sym(s) if !set.contains(&s) => return None,
            Arg::Sym(_) => {}
            Arg::Var(v) => narrow(&mut vars[v.0 as usize], set),
        }
    }
    for literal in &rule.body {
        match literal {
            FlatLiteral::Pos(atom) => {
                for (c, arg) in atom.args.iter().enumerate() {
                    if let Arg::Var(v) = *arg
                        && let Some(set) = column_of_table(atom.relation.0 as usize, c)
                    {
                        narrow(&mut vars[v.0 as usize], &set);
                    }
                }
            }
            FlatLiteral::Equal(pairs) => {
                for &(a, b) in pairs {
                    if let (Arg::Var(v), Arg::Sym(s)) | (Arg::Sym(s), Arg::Var(v)) = (a, b) {
                        narrow(&mut vars[v.0 as usize], &BTreeSet::from([s]));
                    }
                }
            }
            _ => {}
        }
    }
    if vars
        .iter()
        .any(|set| set.as_ref().is_some_and(BTreeSet::is_empty))
    {
        return None;
    }
    Some(vars)
}

/// Intersects a variable's values with `set`.
fn narrow(values: &mut Option<BTreeSet<SymbolId>>, set: &BTreeSet<SymbolId>) {
    match values {
        None => *values = Some(set.clone()),
        Some(values) => values.retain(|s| set.contains(s)),
    }
}

/// Adds `asked` to a column's values; whether it grew.
fn widen(column: &mut Option<BTreeSet<SymbolId>>, asked: Option<BTreeSet<SymbolId>>) -> bool {
    match (column.as_mut(), asked) {
        (None, _) => false,
        (Some(_), None) => {
            *column = None;
            true
        }
        (Some(values), Some(asked)) => {
            let before = values.len();
            values.extend(asked);
            values.len() > before
        }
    }
}

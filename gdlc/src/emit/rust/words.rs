//! Word closures: a recursive relation whose recursive rules extend a run along its
//! last column, computed 64 or fewer tuples at a time with word operations.
//!
//! The shape is a ray or a line written left-linearly, as chess writes a slider's
//! reach: `(<= (sweep ?s ?d ?u) (sweep ?s ?d ?t) (not (occupied ?t)) (adj ?t ?d ?u))`.
//! A bits-only relation numbers its last column lowest, so the tuples sharing the other
//! columns (the *prefix*, here `?s ?d`) are one run of bits, a *field* of as many bits
//! as the last column's domain has symbols (the *lane*). When that domain has at most
//! 64, a recursive rule of the shape below maps one field to new bits of the same
//! field by word operations:
//!
//! - its head is the relation with distinct variables, the prefix `?s ?d` and the lane
//!   variable `?u`;
//! - its one literal on the relation repeats the prefix and has a variable `?t` in the
//!   lane;
//! - every other literal is a *filter* on `?t` — positive or negated, on the state or
//!   on a bits-only relation of a lower layer that has `?t` as its lowest column over
//!   the same domain (a field read: `not (occupied ?t)` is `& !occupied`), or on a
//!   static relation (a mask per prefix) — or the one *step*, a static relation of `?t`
//!   and `?u` (and constants and prefix variables), decomposed per prefix into classes
//!   of equal offset `pos(?u) - pos(?t)`: one mask and one shift each (`adj ?t n ?u` is
//!   one class: a shift by one, the last rank masked off).
//!
//! The evaluation replaces the layer's semi-naive rounds: after the exit rules, each
//! prefix with a bit runs its own fixpoint: the new bits (first the whole field) are
//! filtered and stepped by every recursive rule, and what that adds to the field is
//! the next round's new bits, until nothing is added. Prefixes are independent (the
//! rules keep the prefix), so this is the semi-naive fixpoint, a field at a time, the
//! field in a register (filters read from lower layers and the state, fixed during
//! the closure, are read once per prefix). The field's new bits are then written at
//! once — listed in the relation's order of bits set, ascending, and set in its
//! copies, as tuple inserts would. Every other recursive layer is evaluated as before.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Arg, FlatAtom, FlatLiteral, RelationId, SymbolId, VarId};
use crate::plan::Evaluation;

use super::{Emitter, for_each_field_with_a_bit, lit};

/// The most prefix values a step's or a static filter's table is built for.
const MAX_KEYS: usize = 1 << 12;

/// The most offset classes of a step for one prefix (one mask and shift each).
const MAX_CLASSES: usize = 8;

/// A relation evaluated as a word closure (see the module docs).
pub(super) struct WordClosure {
    relation: RelationId,
    /// The relation's numbered columns `(column, stride, domain)`, the lane last.
    columns: Vec<(usize, usize, Vec<SymbolId>)>,
    rules: Vec<WordRule>,
}

/// One recursive rule of a word closure.
struct WordRule {
    rule: usize,
    filters: Vec<Filter>,
    step: Keyed<Vec<(u64, i64)>>,
}

/// A table per prefix: the prefix columns it depends on (with the stride of each in
/// the key) and one entry per key.
struct Keyed<T> {
    key: Vec<(usize, usize)>,
    entries: Vec<T>,
}

/// A condition on the lane variable.
enum Filter {
    /// A field of the state (`None`) or of a bits-only relation: its first bit is
    /// `base` plus, per `(prefix column, stride)` of `terms`, that column's position
    /// times the stride.
    Field {
        source: Option<RelationId>,
        base: usize,
        terms: Vec<(usize, usize)>,
        negated: bool,
    },
    /// A static relation: the lane positions that pass, per prefix.
    Mask(Keyed<u64>),
}

/// What a literal's argument is in a recursive rule of a word closure.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Constant(SymbolId),
    /// The lane variable of the body literal on the relation.
    From,
    /// The head's lane variable.
    To,
    /// A prefix variable: the relation's column.
    Prefix(usize),
    /// A variable occurring once in the rule (in a static literal): any value.
    Free,
}

impl Emitter<'_> {
    /// The word closure of a semi-naive layer of the one relation `relations`, if
    /// every recursive rule has the shape of the module docs.
    pub(super) fn word_closure(&self, relations: &[RelationId]) -> Option<WordClosure> {
        let [relation] = relations[..] else {
            return None;
        };
        let columns = self.bit_columns(relation)?;
        let lane = columns.last()?.2.len();
        if lane == 0 || lane > 64 || self.is_demand(relation) {
            return None;
        }
        let layer = &self.ir.layers[self.ir.layer_of[relation.0 as usize]];
        let mut rules = Vec::new();
        for &r in &layer.rules {
            let rule = &self.ir.rules[r];
            let recursive = rule
                .body
                .iter()
                .any(|l| matches!(l, FlatLiteral::Pos(atom) if atom.relation == relation));
            if recursive {
                rules.push(self.word_rule(r, relation, &columns)?);
            }
        }
        (!rules.is_empty()).then_some(WordClosure {
            relation,
            columns,
            rules,
        })
    }

    /// Rule `r` as a recursive rule of a word closure of `relation`, if it has the
    /// shape.
    fn word_rule(
        &self,
        r: usize,
        relation: RelationId,
        columns: &[(usize, usize, Vec<SymbolId>)],
    ) -> Option<WordRule> {
        let rule = &self.ir.rules[r];
        let last = columns.len() - 1;
        let lane_domain = &columns[last].2;
        let head_var = |i: usize| match rule.head.args[i] {
            Arg::Var(v) => Some(v),
            Arg::Sym(_) => None,
        };
        let mut prefix: Vec<VarId> = Vec::with_capacity(last);
        for i in 0..last {
            let v = head_var(i)?;
            if prefix.contains(&v) {
                return None;
            }
            prefix.push(v);
        }
        let to = head_var(last)?;
        if prefix.contains(&to) {
            return None;
        }
        // The one literal on the relation: the prefix, then `?t`.
        let mut from = None;
        for literal in &rule.body {
            if let FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) = literal
                && atom.relation == relation
            {
                let FlatLiteral::Pos(_) = literal else {
                    return None;
                };
                if from.is_some() || atom.args[..last] != rule.head.args[..last] {
                    return None;
                }
                let Arg::Var(t) = atom.args[last] else {
                    return None;
                };
                if t == to || prefix.contains(&t) {
                    return None;
                }
                from = Some(t);
            }
        }
        let from = from?;
        let mut uses = vec![0usize; rule.vars.len()];
        for literal in &rule.body {
            match literal {
                FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) => {
                    for arg in &atom.args {
                        if let Arg::Var(v) = arg {
                            uses[v.0 as usize] += 1;
                        }
                    }
                }
                FlatLiteral::Distinct(_) | FlatLiteral::Equal(_) => return None,
            }
        }
        let role = |arg: Arg| -> Option<Role> {
            Some(match arg {
                Arg::Sym(s) => Role::Constant(s),
                Arg::Var(v) if v == from => Role::From,
                Arg::Var(v) if v == to => Role::To,
                Arg::Var(v) => match prefix.iter().position(|&p| p == v) {
                    Some(i) => Role::Prefix(i),
                    None if uses[v.0 as usize] == 1 => Role::Free,
                    None => return None,
                },
            })
        };
        let mut filters = Vec::new();
        let mut step = None;
        for literal in &rule.body {
            let (atom, negated) = match literal {
                FlatLiteral::Pos(atom) => (atom, false),
                FlatLiteral::Neg(atom) => (atom, true),
                _ => return None,
            };
            if atom.relation == relation {
                continue;
            }
            let roles = atom
                .args
                .iter()
                .map(|&a| role(a))
                .collect::<Option<Vec<Role>>>()?;
            let count = |wanted: Role| roles.iter().filter(|&&x| x == wanted).count();
            let (froms, tos) = (count(Role::From), count(Role::To));
            match &self.plan.relations[atom.relation.0 as usize].evaluation {
                Evaluation::Static(rows) => {
                    if froms != 1 || tos > 1 || (tos == 1 && (negated || step.is_some())) {
                        return None;
                    }
                    let tables = StaticLiteral {
                        roles: &roles,
                        rows,
                        columns,
                        lane_domain,
                    };
                    if tos == 1 {
                        step = Some(tables.step()?);
                    } else {
                        filters.push(Filter::Mask(tables.mask(negated)?));
                    }
                }
                _ if tos > 0 || froms != 1 || roles.contains(&Role::Free) => return None,
                _ => filters.push(self.field_filter(atom, &roles, negated, columns)?),
            }
        }
        Some(WordRule {
            rule: r,
            filters,
            step: step?,
        })
    }

    /// A filter reading a field of the state or of a bits-only relation: the lane
    /// variable in a column of stride 1 over the lane's domain, every other column a
    /// constant or a prefix variable over its prefix column's domain.
    fn field_filter(
        &self,
        atom: &FlatAtom,
        roles: &[Role],
        negated: bool,
        columns: &[(usize, usize, Vec<SymbolId>)],
    ) -> Option<Filter> {
        let lane_domain = &columns[columns.len() - 1].2;
        let (source, base, numbered) = if Some(atom.relation) == self.true_rel {
            let top = self
                .ir
                .relation(atom.relation)
                .columns
                .iter()
                .position(|c| c.path == [0])?;
            let Role::Constant(functor) = roles[top] else {
                return None;
            };
            let block = self.blocks.iter().find(|b| b.symbol == functor)?;
            if block.keys.is_some() {
                return None;
            }
            (None, block.base, block.columns.clone())
        } else {
            // A relation of a lower layer (the layer is this relation alone).
            (Some(atom.relation), 0, self.bit_columns(atom.relation)?)
        };
        let mut base = base;
        let mut terms = Vec::new();
        let mut lane_found = false;
        for (c, stride, domain) in &numbered {
            match roles[*c] {
                Role::From => {
                    if *stride != 1 {
                        return None;
                    }
                    base += run_start(domain, lane_domain)?;
                    lane_found = true;
                }
                Role::Constant(s) => base += domain.iter().position(|&d| d == s)? * stride,
                Role::Prefix(i) => {
                    base += run_start(domain, &columns[i].2)? * stride;
                    terms.push((i, *stride));
                }
                _ => return None,
            }
        }
        lane_found.then_some(Filter::Field {
            source,
            base,
            terms,
            negated,
        })
    }

    /// The code of a word closure (see the module docs); runs after the layer's exit
    /// rules.
    pub(super) fn word_closure_code(&self, closure: &WordClosure) -> TokenStream {
        let relation = closure.relation;
        let store = Self::store(relation);
        let columns = &closure.columns;
        let last = columns.len() - 1;
        let lane = columns[last].2.len();
        let lane_lit = lit(lane);
        let positions: Vec<TokenStream> = (0..last)
            .map(|i| {
                let p = format_ident!("prefix{}", i);
                let (_, stride, domain) = &columns[i];
                let over = lit(stride / lane);
                let radix = lit(domain.len());
                quote!(let #p: usize = (prefix / #over) % #radix;)
            })
            .collect();
        let (setups, rules): (Vec<TokenStream>, Vec<TokenStream>) = closure
            .rules
            .iter()
            .enumerate()
            .map(|(k, rule)| self.word_rule_code(relation, k, rule, lane))
            .unzip();
        let copies: Vec<TokenStream> = self
            .bit_copies(relation)
            .iter()
            .map(|copy| {
                let field = &copy.field;
                let terms = copy.numbered.iter().map(|(c, stride, _)| {
                    let stride = lit(*stride);
                    if *c == last {
                        quote!(q * #stride)
                    } else {
                        let p = format_ident!("prefix{}", c);
                        quote!(#p * #stride)
                    }
                });
                quote!(self.#field.insert(#(#terms)+*);)
            })
            .collect();
        let copy_loop = if copies.is_empty() {
            quote!()
        } else {
            quote! {
                let mut rest = fresh;
                while rest != 0 {
                    let q = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    #(#copies)*
                }
            }
        };
        // The field is kept in a register through the rounds (the filters and steps,
        // fixed per prefix, read once) and its new bits written once.
        let closure = quote! {
            let lo = prefix * #lane_lit;
            #(#positions)*
            #(#setups)*
            let start = self.#store.field(lo, #lane_lit);
            let mut field = start;
            let mut frontier = start;
            loop {
                let mut reached = 0u64;
                #(#rules)*
                let added = reached & !field;
                if added == 0 {
                    break;
                }
                field |= added;
                frontier = added;
            }
            let fresh = field & !start;
            if fresh != 0 {
                self.#store.or_field(lo, fresh);
                self.grew = true;
                #copy_loop
            }
        };
        // The prefixes holding a bit (the closure of a prefix sets bits in its own
        // field only).
        let prefix = format_ident!("prefix");
        for_each_field_with_a_bit(&store, lane, &prefix, closure)
    }

    /// One recursive rule's part of a word closure: what it reads once per prefix (its
    /// filters, and-ed into one word, and its step's classes) and its contribution to
    /// a round (the frontier filtered, then stepped).
    fn word_rule_code(
        &self,
        relation: RelationId,
        k: usize,
        rule: &WordRule,
        lane: usize,
    ) -> (TokenStream, TokenStream) {
        let lane_lit = lit(lane);
        let key = |keyed_key: &[(usize, usize)]| -> TokenStream {
            let terms = keyed_key.iter().map(|&(i, stride)| {
                let p = format_ident!("prefix{}", i);
                let stride = lit(stride);
                quote!(#p * #stride)
            });
            quote!(0 #(+ #terms)*)
        };
        let lane_mask = if lane == 64 {
            u64::MAX
        } else {
            (1u64 << lane) - 1
        };
        let filters = rule
            .filters
            .iter()
            .enumerate()
            .map(|(f, filter)| match filter {
                Filter::Field {
                    source,
                    base,
                    terms,
                    negated,
                } => {
                    let base = lit(*base);
                    let terms = terms.iter().map(|&(i, stride)| {
                        let p = format_ident!("prefix{}", i);
                        let stride = lit(stride);
                        quote!(+ #p * #stride)
                    });
                    let read = match source {
                        None => quote!(input.state.field(#base #(#terms)*, #lane_lit)),
                        Some(r) => {
                            let store = Self::store(*r);
                            quote!(self.#store.field(#base #(#terms)*, #lane_lit))
                        }
                    };
                    if *negated {
                        quote!(& !#read)
                    } else {
                        quote!(& #read)
                    }
                }
                Filter::Mask(keyed) => {
                    let name = format_ident!("WORD_MASK_{}_{}_{}", relation.0, k, f);
                    let len = lit(keyed.entries.len());
                    let values = keyed.entries.iter().map(|m| *m & lane_mask);
                    let doc = format!(
                        "The lane positions a static filter of `{}` passes, per prefix.",
                        self.ir.relation(relation).key()
                    );
                    self.tables.borrow_mut().insert(
                        name.to_string(),
                        quote!(#[doc = #doc] static #name: [u64; #len] = [#(#values),*];),
                    );
                    let key = key(&keyed.key);
                    quote!(& #name[#key])
                }
            });
        let classes = rule.step.entries.iter().map(Vec::len).max().unwrap_or(0);
        let name = format_ident!("WORD_STEP_{}_{}", relation.0, k);
        let len = lit(rule.step.entries.len());
        let width = lit(classes);
        let entries = rule.step.entries.iter().map(|entry| {
            let slots = (0..classes).map(|c| match entry.get(c) {
                Some(&(mask, delta)) => {
                    let mask = mask & lane_mask;
                    let (left, right) = if delta >= 0 {
                        (delta as u32, 0u32)
                    } else {
                        (0u32, (-delta) as u32)
                    };
                    quote!((#mask, #left, #right))
                }
                None => quote!((0, 0, 0)),
            });
            quote!([#(#slots),*])
        });
        let doc = format!(
            "The step of a recursive rule of `{}` (rule {}) per prefix: (mask of the positions stepped from, left shift, right shift) per offset class.",
            self.ir.relation(relation).key(),
            rule.rule
        );
        self.tables.borrow_mut().insert(
            name.to_string(),
            quote!(#[doc = #doc] static #name: [[(u64, u32, u32); #width]; #len] = [#(#entries),*];),
        );
        let key = key(&rule.step.key);
        let (filter, step) = (format_ident!("filter{}", k), format_ident!("step{}", k));
        let setup = quote! {
            let #filter: u64 = !0u64 #(#filters)*;
            let #step = &#name[#key];
        };
        let round = quote! {
            {
                let from = frontier & #filter;
                for &(mask, left, right) in #step {
                    reached |= ((from & mask) << left) >> right;
                }
            }
        };
        (setup, round)
    }
}

/// Where `run` starts in `domain` when it is a run of it (a state column keeps nil
/// where that makes its radix a power of two: the 7 ranks within nil and the ranks),
/// so that positions in `run` plus the start are positions in `domain`.
fn run_start(domain: &[SymbolId], run: &[SymbolId]) -> Option<usize> {
    let start = domain.iter().position(|&d| Some(&d) == run.first())?;
    (domain.get(start..start + run.len())? == run).then_some(start)
}

/// A static literal of a recursive rule of a word closure, to be tabled per prefix.
struct StaticLiteral<'a> {
    roles: &'a [Role],
    rows: &'a [Vec<SymbolId>],
    columns: &'a [(usize, usize, Vec<SymbolId>)],
    lane_domain: &'a [SymbolId],
}

impl StaticLiteral<'_> {
    /// The prefix columns the literal reads, with their strides in its key, and the
    /// number of keys.
    fn key(&self) -> Option<(Vec<(usize, usize)>, usize)> {
        let mut read: Vec<usize> = self
            .roles
            .iter()
            .filter_map(|r| match r {
                Role::Prefix(i) => Some(*i),
                _ => None,
            })
            .collect();
        read.sort_unstable();
        read.dedup();
        let mut stride = 1usize;
        let mut key = vec![(0, 0); read.len()];
        for (k, &i) in read.iter().enumerate().rev() {
            key[k] = (i, stride);
            stride = stride.checked_mul(self.columns[i].2.len())?;
        }
        (stride <= MAX_KEYS).then_some((key, stride))
    }

    /// For each row the literal matches: its key and the lane positions of `?t` and,
    /// if present, `?u`.
    fn matches(&self, key: &[(usize, usize)]) -> Vec<(usize, usize, Option<usize>)> {
        let mut out = Vec::new();
        'rows: for row in self.rows {
            let mut prefix_values: Vec<Option<SymbolId>> = vec![None; self.columns.len()];
            let (mut from, mut to) = (None, None);
            for (j, role) in self.roles.iter().enumerate() {
                let value = row[j];
                match *role {
                    Role::Constant(s) if s != value => continue 'rows,
                    Role::Constant(_) | Role::Free => {}
                    Role::From => from = Some(value),
                    Role::To => to = Some(value),
                    Role::Prefix(i) => match prefix_values[i] {
                        Some(seen) if seen != value => continue 'rows,
                        _ => prefix_values[i] = Some(value),
                    },
                }
            }
            let position = |domain: &[SymbolId], s: SymbolId| domain.iter().position(|&d| d == s);
            let Some(from) = from.and_then(|s| position(self.lane_domain, s)) else {
                continue;
            };
            let to = match to {
                Some(s) => match position(self.lane_domain, s) {
                    Some(p) => Some(p),
                    None => continue,
                },
                None => None,
            };
            let mut k = 0;
            for &(i, stride) in key {
                let Some(p) = prefix_values[i].and_then(|s| position(&self.columns[i].2, s)) else {
                    continue 'rows;
                };
                k += p * stride;
            }
            out.push((k, from, to));
        }
        out
    }

    /// The step table: per key, the classes `(mask of ?t positions, offset)`.
    fn step(&self) -> Option<Keyed<Vec<(u64, i64)>>> {
        let (key, keys) = self.key()?;
        let mut entries: Vec<Vec<(u64, i64)>> = vec![Vec::new(); keys];
        for (k, from, to) in self.matches(&key) {
            let delta = to? as i64 - from as i64;
            let entry = &mut entries[k];
            match entry.iter_mut().find(|(_, d)| *d == delta) {
                Some((mask, _)) => *mask |= 1 << from,
                None => entry.push((1 << from, delta)),
            }
        }
        if entries.iter().any(|e| e.len() > MAX_CLASSES) {
            return None;
        }
        for entry in &mut entries {
            entry.sort_by_key(|&(_, d)| d);
        }
        Some(Keyed { key, entries })
    }

    /// The filter table: per key, the `?t` positions that pass.
    fn mask(&self, negated: bool) -> Option<Keyed<u64>> {
        let (key, keys) = self.key()?;
        let mut entries = vec![0u64; keys];
        for (k, from, _) in self.matches(&key) {
            entries[k] |= 1 << from;
        }
        if negated {
            for e in &mut entries {
                *e = !*e;
            }
        }
        Some(Keyed { key, entries })
    }
}

//! Queries on static relations, answered from constant tables: rows filtered at compile
//! time, unrolled when few, or selected through an offset table keyed on the known
//! columns; the positions of the values they bind.
//!
//! **Static relations**: constant arrays. A query with bound columns reads the rows of
//! its key (every known column, while the dense key space stays ≤ 2^16 or the table's
//! size) through a constant offset table (`TABLE_R_ATc…`, `TABLE_R_BYc…`); one without
//! reads every row matching its symbols, unrolled into constants when there are at most 8
//! rows and the copies stay small. Positions travel with bindings: a variable a static
//! query binds gets its position among its column's values too (a parallel table
//! `<table>_POS`, or a constant when unrolled), so a later key, bit or state test over a
//! domain those values are (or are a run of) reads the position instead of looking the
//! symbol up (`POS_R`, `TABLE_R_Pc`); a keyed lookup by a variable decoded from such a
//! domain needs no lookup or guard either (`Emitter::known_position`).
//!
//! A static relation read by a key (`TABLE_r_BYcols`, its rows sorted by the key of the
//! bound columns, and `TABLE_r_ATcols`, each key's first row) is *looked up* when no key
//! has two rows: with a row for every key the key numbers the row (no `AT` table: `succ`,
//! a cell's neighbour in one direction), otherwise the key's two offsets are compared
//! once (`if i < AT[key + 1]`), not looped over. Several rows per key are scanned.

use super::*;

/// The dense number of a static tuple over some of its columns, each `(column, its
/// sorted values)` with its stride: the sum of each value's position times the stride.
pub(super) fn dense_key(
    columns: &[(usize, Vec<SymbolId>)],
    strides: &[usize],
    row: &[SymbolId],
) -> usize {
    columns
        .iter()
        .zip(strides)
        .map(|((c, values), stride)| {
            values
                .binary_search(&row[*c])
                .expect("a value of the column")
                * stride
        })
        .sum()
}

/// The values of column `c` of a static relation's tuples, sorted: a variable a static
/// query binds there has its position among them (`static_positions`).
pub(super) fn static_values(tuples: &[Vec<SymbolId>], c: usize) -> Vec<SymbolId> {
    let mut values: Vec<SymbolId> = tuples.iter().map(|row| row[c]).collect();
    values.sort_unstable();
    values.dedup();
    values
}

/// The position of `value` among the values of column `c` of a static relation.
fn position_in(tuples: &[Vec<SymbolId>], c: usize, value: SymbolId) -> usize {
    static_values(tuples, c)
        .binary_search(&value)
        .expect("a value of the column")
}

/// The key a static query with a bound column selects rows by (see
/// `Emitter::static_keyed`): every known column, while the dense key space stays
/// small, each `(column, its sorted values)` with its stride.
struct StaticKey {
    columns: Vec<(usize, Vec<SymbolId>)>,
    strides: Vec<usize>,
    /// The number of keys.
    space: usize,
    /// The relation's arity.
    arity: usize,
}

impl StaticKey {
    /// The key of a query with `slots` on a static relation of `tuples`.
    fn new(tuples: &[Vec<SymbolId>], slots: &[Slot]) -> Self {
        let mut columns: Vec<(usize, Vec<SymbolId>)> = Vec::new();
        let mut space: usize = 1;
        let cap = (1usize << 16).max(tuples.len());
        for (c, slot) in slots.iter().enumerate() {
            if !matches!(slot, Slot::Sym(_) | Slot::Bound(_)) {
                continue;
            }
            let mut values: Vec<SymbolId> = tuples.iter().map(|row| row[c]).collect();
            values.sort();
            values.dedup();
            if !columns.is_empty() && space.saturating_mul(values.len()) > cap {
                continue;
            }
            space = space.saturating_mul(values.len());
            columns.push((c, values));
        }
        let mut strides = vec![1usize; columns.len()];
        for k in (0..columns.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1] * columns[k + 1].1.len();
        }
        StaticKey {
            columns,
            strides,
            space,
            arity: slots.len(),
        }
    }

    /// The key of a row.
    fn of(&self, row: &[SymbolId]) -> usize {
        dense_key(&self.columns, &self.strides, row)
    }

    /// The key's columns as the tables' names give them (`2_0`).
    fn suffix(&self) -> String {
        (self.columns.iter())
            .map(|(c, _)| c.to_string())
            .collect::<Vec<_>>()
            .join("_")
    }

    /// The table of relation `r`'s rows sorted by the key.
    fn by(&self, r: RelationId) -> Ident {
        format_ident!("TABLE_{}_BY{}", r.0, self.suffix())
    }

    /// The table of each key's first row in [`Self::by`].
    fn at(&self, r: RelationId) -> Ident {
        format_ident!("TABLE_{}_AT{}", r.0, self.suffix())
    }
}

impl Emitter<'_> {
    /// The position locals of the variables a static query binds (`Bind` slots), each
    /// its value's position among its column's values (see [`static_values`]), as
    /// `position(column)` reads it.
    fn static_positions(
        slots: &[Slot],
        position: impl Fn(usize) -> TokenStream,
    ) -> Vec<TokenStream> {
        slots
            .iter()
            .enumerate()
            .filter_map(|(c, slot)| match slot {
                Slot::Bind(v) => {
                    let p = var_position(*v);
                    let read = position(c);
                    Some(quote!(let #p: usize = #read as usize;))
                }
                _ => None,
            })
            .collect()
    }

    /// The position locals of the variables a query binds from row `i` of the static
    /// table `table` (its rows `rows`, in its order): read from `<table>_POS`.
    fn static_row_positions(
        &self,
        table: &Ident,
        tuples: &[Vec<SymbolId>],
        rows: &[&Vec<SymbolId>],
        slots: &[Slot],
        i: &Ident,
    ) -> Vec<TokenStream> {
        let Some(positions) = self.static_positions_table(table, tuples, rows, slots) else {
            return Vec::new();
        };
        Self::static_positions(slots, |c| {
            let c = lit(c);
            quote!(#positions[#i][#c])
        })
    }

    /// The table of positions parallel to the static table `table` (its rows `rows`,
    /// in its order), when the query binds a variable: `<table>_POS`.
    fn static_positions_table(
        &self,
        table: &Ident,
        tuples: &[Vec<SymbolId>],
        rows: &[&Vec<SymbolId>],
        slots: &[Slot],
    ) -> Option<Ident> {
        if !slots.iter().any(|s| matches!(s, Slot::Bind(_))) {
            return None;
        }
        let name = format_ident!("{}_POS", table);
        if self.tables.borrow().contains_key(&name.to_string()) {
            return Some(name);
        }
        let arity = slots.len();
        let values: Vec<Vec<SymbolId>> = (0..arity).map(|c| static_values(tuples, c)).collect();
        let wide = values.iter().any(|v| v.len() > usize::from(u16::MAX));
        let entries = rows.iter().map(|row| {
            let positions = (0..arity).map(|c| {
                let p = values[c]
                    .binary_search(&row[c])
                    .expect("a value of the column");
                if wide {
                    Literal::u32_unsuffixed(p as u32)
                } else {
                    Literal::u16_unsuffixed(p as u16)
                }
            });
            quote!([#(#positions),*])
        });
        let (count, arity) = (lit(rows.len()), lit(arity));
        let ty = if wide { quote!(u32) } else { quote!(u16) };
        let doc =
            format!("Each row's values' positions among its columns' values, as `{table}`'s.");
        self.tables.borrow_mut().insert(
            name.to_string(),
            quote!(#[doc = #doc] static #name: [[#ty; #arity]; #count] = [#(#entries),*];),
        );
        Some(name)
    }

    /// A query on a static relation, answered from its constant table: symbols in the
    /// query filter the rows at compile time; a bound variable selects the rows holding
    /// its value through a constant offset table over the symbols (rows sorted by that
    /// column); other columns are compared or bound per row.
    pub(super) fn static_query(
        &self,
        r: RelationId,
        tuples: &[Vec<SymbolId>],
        query: &Query,
        then: TokenStream,
    ) -> TokenStream {
        let slots = &query.slots;
        let arity = slots.len();
        let rows: Vec<&Vec<SymbolId>> = tuples
            .iter()
            .filter(|row| {
                slots
                    .iter()
                    .zip(row.iter())
                    .all(|(slot, &v)| !matches!(*slot, Slot::Sym(s) if s != v))
            })
            .collect();
        if rows.is_empty() {
            return quote!();
        }
        // Symbol slots are settled; the matcher sees them as free.
        let free_slots: Vec<Slot> = slots
            .iter()
            .map(|&s| {
                if matches!(s, Slot::Sym(_)) {
                    Slot::Free
                } else {
                    s
                }
            })
            .collect();
        if arity == 0 || free_slots.iter().all(|s| matches!(s, Slot::Free)) {
            return then;
        }
        let row = self.fresh("row");
        if !slots.iter().any(|s| matches!(s, Slot::Bound(_))) {
            // No bound column: every remaining row.
            return self.static_rows(r, tuples, &rows, &free_slots, &row, then);
        }
        self.static_keyed(r, tuples, slots, &row, then)
    }

    /// A static query binding every column it does not match against a symbol
    /// (`free_slots`) over `rows`, the rows of `tuples` its symbols allow: unrolled when
    /// few and small (the row's symbols become constants the optimiser folds into the
    /// body), else a loop over a constant table of those rows, each `row`.
    fn static_rows(
        &self,
        r: RelationId,
        tuples: &[Vec<SymbolId>],
        rows: &[&Vec<SymbolId>],
        free_slots: &[Slot],
        row: &Ident,
        then: TokenStream,
    ) -> TokenStream {
        if rows.len() <= MAX_UNROLLED_ROWS
            && then.to_string().len() * rows.len() <= MAX_UNROLLED_TEXT
        {
            let copies = rows.iter().map(|values| {
                let columns: Vec<(TokenStream, Slot)> = values
                    .iter()
                    .zip(free_slots)
                    .map(|(&v, &slot)| {
                        let v = sym(v);
                        (quote!(#v), slot)
                    })
                    .collect();
                let (conds, binds) = Self::matcher(&columns);
                let positions = Self::static_positions(free_slots, |c| {
                    let p = lit(position_in(tuples, c, values[c]));
                    quote!(#p)
                });
                Self::guarded(&conds, quote!({ #(#binds)* #(#positions)* #then }))
            });
            return quote!(#(#copies)*);
        }
        let table = if rows.len() == tuples.len() {
            Self::table(r)
        } else {
            let name = format_ident!("TABLE_{}_Q{}", r.0, self.names.get());
            self.names.set(self.names.get() + 1);
            let count = lit(rows.len());
            let arity_lit = lit(free_slots.len());
            let values = rows.iter().map(|row| {
                let values = row.iter().map(|&s| sym(s));
                quote!([#(#values),*])
            });
            self.tables.borrow_mut().insert(
                name.to_string(),
                quote!(static #name: [[Sym; #arity_lit]; #count] = [#(#values),*];),
            );
            name
        };
        let columns = Self::read_from(row, free_slots);
        let (conds, binds) = Self::matcher(&columns);
        let i = self.fresh("i");
        let positions = self.static_row_positions(&table, tuples, rows, free_slots, &i);
        let body = Self::guarded(&conds, quote!(#(#binds)* #(#positions)* #then));
        quote! {
            for (#i, #row) in #table.iter().enumerate() {
                #body
            }
        }
    }

    /// A static query with a bound column: the rows of each key over the known
    /// columns ([`StaticKey`]) found through the key's offset, `row` each; the other
    /// columns matched per row.
    fn static_keyed(
        &self,
        r: RelationId,
        tuples: &[Vec<SymbolId>],
        slots: &[Slot],
        row: &Ident,
        then: TokenStream,
    ) -> TokenStream {
        let key = StaticKey::new(tuples, slots);
        let by = key.by(r);
        let at = key.at(r);
        let mut sorted: Vec<&Vec<SymbolId>> = tuples.iter().collect();
        sorted.sort_by_key(|row| key.of(row));
        let lookup = self.static_key_tables(r, &key, &sorted);
        let Some((prelude, guards, terms)) = self.static_key_terms(r, &key, slots) else {
            return quote!();
        };
        // Columns outside the key are matched per row.
        let checked: Vec<Slot> = slots
            .iter()
            .enumerate()
            .map(|(c, &s)| {
                if key.columns.iter().any(|(k, _)| *k == c) {
                    Slot::Free
                } else {
                    s
                }
            })
            .collect();
        let columns = Self::read_from(row, &checked);
        let (conds, binds) = Self::matcher(&columns);
        let i = self.fresh("i");
        let positions = self.static_row_positions(&by, tuples, &sorted, &checked, &i);
        let body = Self::guarded(&conds, quote!(#(#binds)* #(#positions)* #then));
        let key = self.fresh("key");
        let scan = match lookup {
            // Every key has its row: the key numbers it.
            Some(true) => quote! {
                let #i = #(#terms)+*;
                let #row = &#by[#i];
                #body
            },
            Some(false) => quote! {
                let #key = #(#terms)+*;
                let #i = #at[#key] as usize;
                if #i < #at[#key + 1] as usize {
                    let #row = &#by[#i];
                    #body
                }
            },
            None => quote! {
                let #key = #(#terms)+*;
                for #i in #at[#key] as usize..#at[#key + 1] as usize {
                    let #row = &#by[#i];
                    #body
                }
            },
        };
        let scan = Self::guarded(&guards, scan);
        quote!({ #(#prelude)* #scan })
    }

    /// The tables of static relation `r` sorted by `key` (`sorted`): the rows
    /// (`TABLE_R_BYC`) and, unless every key has exactly one row, each key's first
    /// (`TABLE_R_ATC`). `Some(exactly one)` when every key has at most one row (`succ`,
    /// a cell's neighbour in one direction: the row is looked up, not scanned).
    fn static_key_tables(
        &self,
        r: RelationId,
        key: &StaticKey,
        sorted: &[&Vec<SymbolId>],
    ) -> Option<bool> {
        let (by, at, suffix) = (key.by(r), key.at(r), key.suffix());
        let mut offsets = vec![0u32; key.space + 1];
        for row in sorted {
            offsets[key.of(row) + 1] += 1;
        }
        // At most one row per key: the row is looked up, not scanned; with exactly one
        // per key, its number is the key.
        let counts = &offsets[1..];
        let lookup = counts
            .iter()
            .all(|&n| n <= 1)
            .then(|| counts.iter().all(|&n| n == 1));
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        if self.tables.borrow().contains_key(&by.to_string()) {
            return lookup;
        }
        let arity_lit = lit(key.arity);
        let count = lit(sorted.len());
        let values = sorted.iter().map(|row| {
            let values = row.iter().map(|&s| sym(s));
            quote!([#(#values),*])
        });
        let offsets_len = lit(offsets.len());
        let offsets = offsets.iter().map(|&o| Literal::u32_unsuffixed(o));
        let doc = if lookup == Some(true) {
            format!(
                "The tuples of `{}`, one per key of columns {suffix}, in key order.",
                self.ir.relation(r).key()
            )
        } else {
            format!(
                "The tuples of `{}` sorted by the key of columns {suffix}; `{at}` gives each key's first.",
                self.ir.relation(r).key()
            )
        };
        let mut tables = self.tables.borrow_mut();
        tables.insert(
            by.to_string(),
            quote!(#[doc = #doc] static #by: [[Sym; #arity_lit]; #count] = [#(#values),*];),
        );
        if lookup != Some(true) {
            tables.insert(
                at.to_string(),
                quote!(static #at: [u32; #offsets_len] = [#(#offsets),*];),
            );
        }
        lookup
    }

    /// The terms of a static query's key: constant for symbols, the position of a
    /// variable decoded from the column's values, else looked up in a positions table
    /// (`TABLE_R_PC`: computed in the prelude, guarded). `None` when a symbol is not in
    /// its column: no row matches.
    fn static_key_terms(
        &self,
        r: RelationId,
        key: &StaticKey,
        slots: &[Slot],
    ) -> Option<(Vec<TokenStream>, Vec<TokenStream>, Vec<TokenStream>)> {
        let num_symbols = self.ir.symbols.len();
        let mut prelude = Vec::new();
        let mut guards = Vec::new();
        let mut terms = Vec::new();
        for ((c, values), stride) in key.columns.iter().zip(&key.strides) {
            let stride_lit = lit(*stride);
            match slots[*c] {
                Slot::Sym(s) => {
                    let term = lit(values.binary_search(&s).ok()? * stride);
                    terms.push(quote!(#term));
                }
                Slot::Bound(v) => {
                    // A variable decoded from these values (or a run of them) is keyed
                    // by its position, without a lookup or a guard.
                    if let Some(p) = self.known_position(v, values) {
                        terms.push(quote!(#p * #stride_lit));
                        continue;
                    }
                    let positions = format_ident!("TABLE_{}_P{}", r.0, c);
                    if !self.tables.borrow().contains_key(&positions.to_string()) {
                        let mut table = vec![u32::MAX; num_symbols];
                        for (p, s) in values.iter().enumerate() {
                            table[s.0 as usize] = p as u32;
                        }
                        let len = lit(table.len());
                        let table = table.iter().map(|&p| Literal::u32_unsuffixed(p));
                        self.tables.borrow_mut().insert(
                            positions.to_string(),
                            quote!(static #positions: [u32; #len] = [#(#table),*];),
                        );
                    }
                    let k = self.fresh("k");
                    let within = self.decoded_within(v, values);
                    let v = var(v);
                    prelude.push(quote!(let #k = #positions[#v as usize] as usize;));
                    if !within {
                        guards.push(quote!(#k != NONE as usize));
                    }
                    terms.push(quote!(#k * #stride_lit));
                }
                _ => unreachable!("key columns are known"),
            }
        }
        Some((prelude, guards, terms))
    }
}

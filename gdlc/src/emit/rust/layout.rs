//! How tuples become bits: the state's functor blocks (a block per top-level function
//! symbol of `true`, inside it the mixed-radix number of the arguments' positions), a
//! relation numbered by the functor blocks of one argument (a coded store: `legal`'s
//! moves), the flat numbering of bitset relations and their copies in other column
//! orders, the text order `legal`'s bits follow, and the positions tables.
//!
//! The state layout (`rt::Layout`) gives each top-level functor of `true` a block of
//! bits, inside it the mixed-radix number of the argument positions in their analysis
//! domains, in the plan's order for the functor (`Plan::state_orders`, else the
//! arguments' order). A block numbers the functor's own arguments without nil, which
//! their columns' domains hold only for the fluents of other functors (`own_domain`: team
//! chess's `cell` block is 64 × 2 × 6 bits, not 65 × 3 × 7); nested columns keep nil.
//! Moves are numbered by the same scheme over `legal`'s second argument.

use super::*;

/// The block of state bits of one functor of `true`.
#[derive(Clone, Debug)]
pub(super) struct FunctorBlock {
    pub(super) symbol: SymbolId,
    pub(super) base: usize,
    pub(super) size: usize,
    /// `true` columns under the functor, most significant first, with stride and
    /// domain.
    pub(super) columns: Vec<(usize, usize, Vec<SymbolId>)>,
    /// For a listed block ([`crate::plan::FluentLayout`]): the dense numbers of its
    /// fluents, ascending (bit `base + i` is the fluent of dense number `keys[i]`),
    /// and the name of their constant table.
    pub(super) keys: Option<(Vec<u64>, Ident)>,
}

/// The blocks of a numbering of argument `arg` of `relation`: per top-level function
/// symbol, the mixed-radix numbers of its columns' positions in their domains (sizes
/// saturate; callers bound them) — or, for a functor `listed` gives the fluents of, the
/// rank of that number among theirs.
pub(super) fn functor_blocks(
    ir: &Ir,
    relation: RelationId,
    arg: u32,
    listed: &[crate::plan::FluentLayout],
    orders: &BTreeMap<SymbolId, Vec<usize>>,
) -> Vec<FunctorBlock> {
    let columns = &ir.relation(relation).columns;
    let Some(top) = columns.iter().position(|c| c.path == [arg]) else {
        return Vec::new();
    };
    let text_ordered = text_ordered(ir, relation);
    let mut functors: Vec<SymbolId> = columns[top]
        .domain
        .iter()
        .copied()
        .filter(|&f| f != NIL)
        .collect();
    if text_ordered {
        functors.sort_by_key(|&f| text_prefix(ir, f));
    }
    let mut blocks = Vec::new();
    let mut base: usize = 0;
    for f in functors {
        let under = orders
            .get(&f)
            .cloned()
            .unwrap_or_else(|| ir.relation(relation).columns_under(arg, f));
        let mut size: usize = 1;
        let mut with_strides = vec![(0, 0, Vec::new()); under.len()];
        for (k, &c) in under.iter().enumerate().rev() {
            let domain = coded_domain(ir, relation, &columns[c]);
            let stride = size;
            size = size.saturating_mul(domain.len());
            with_strides[k] = (c, stride, domain);
        }
        let keys = listed
            .iter()
            .find(|layout| layout.functor == f)
            .and_then(|layout| layout.listed.as_ref())
            .map(|tuples| {
                let mut keys: Vec<u64> = tuples
                    .iter()
                    .filter_map(|tuple| {
                        with_strides
                            .iter()
                            .try_fold(0u64, |key, (c, stride, domain)| {
                                let p = domain.iter().position(|&d| d == tuple[*c])?;
                                Some(key + (p * stride) as u64)
                            })
                    })
                    .collect();
                keys.sort_unstable();
                keys.dedup();
                size = keys.len();
                (keys, format_ident!("FLUENT_KEYS_{}", f.0))
            });
        blocks.push(FunctorBlock {
            symbol: f,
            base,
            size,
            columns: with_strides,
            keys,
        });
        base = base.saturating_add(size);
    }
    blocks
}

/// The domain of a column under a function symbol as the symbol's block numbers it: an
/// argument of the symbol itself (path `[arg, f, i]`) is never [`NIL`] where the
/// symbol is the root (symbols carry their arity), so `NIL`, which the column's
/// domain holds for the terms under other symbols, gets no position — unless it
/// makes the radix a power of two, whose digits the code extracts with shifts rather
/// than divisions (kalah's 31 counts and nil, chinese checkers' 7 pieces and nil ran
/// slower without it). A deeper column keeps it (its parent argument may be a
/// constant).
fn own_domain(column: &crate::ir::Column) -> Vec<SymbolId> {
    if column.path.len() == 3 && !column.domain.len().is_power_of_two() {
        column
            .domain
            .iter()
            .copied()
            .filter(|&s| s != NIL)
            .collect()
    } else {
        column.domain.clone()
    }
}

/// Whether `relation`'s functor blocks are numbered in the canonical text order of
/// their terms (`legal`: the runtime picks a role's k-th move in text order as its
/// k-th set bit, see `Emitter::legal_in_text_order`): functors ordered by the text
/// their terms start with, each argument's domain by name. A relation of moves that a
/// rule of `legal` copies whole is numbered so too ([`copied_into_legal`]).
fn text_ordered(ir: &Ir, relation: RelationId) -> bool {
    ir.relation(relation).keyword == Some(Keyword::Legal) || copied_into_legal(ir, relation)
}

/// Whether a rule of `legal` reads `relation` (a relation of nested terms) in a
/// positive atom whose every argument is a variable of the head's move (`(<= (legal ?c
/// ?m) (true (control ?c)) (mover-move ?m))`). Numbered in text order like `legal`'s,
/// its bits are then `legal`'s under the role (`Emitter::coded_copy`).
fn copied_into_legal(ir: &Ir, relation: RelationId) -> bool {
    let Some(legal) = ir.keyword(Keyword::Legal) else {
        return false;
    };
    if relation == legal
        || !ir
            .relation(relation)
            .columns
            .iter()
            .any(|c| c.path.len() > 1)
    {
        return false;
    }
    let legal_columns = &ir.relation(legal).columns;
    let in_move = |rule: &crate::ir::FlatRule, arg: &Arg| {
        matches!(arg, Arg::Var(_))
            && (rule.head.args.iter().zip(legal_columns))
                .any(|(head_arg, column)| head_arg == arg && column.path[0] == 1)
    };
    ir.rules
        .iter()
        .filter(|rule| rule.head.relation == legal)
        .any(|rule| {
            rule.body.iter().any(|literal| {
                matches!(literal, crate::ir::FlatLiteral::Pos(atom)
                    if atom.relation == relation && atom.args.iter().all(|a| in_move(rule, a)))
            })
        })
}

/// The start of the text of a term of root symbol `f`: `(f ` for a function symbol,
/// the whole text for a constant.
fn text_prefix(ir: &Ir, f: SymbolId) -> String {
    let symbol = ir.symbols.symbol(f);
    if symbol.arity == 0 {
        symbol.name.clone()
    } else {
        format!("({} ", symbol.name)
    }
}

/// A column's domain as its relation's functor blocks number it: [`own_domain`],
/// sorted by name where the blocks are in text order ([`text_ordered`]) and the column
/// is under the numbered argument (the outer columns, `legal`'s role, keep the
/// analysis' order: `rt::Store::coded` numbers them from it).
pub(super) fn coded_domain(
    ir: &Ir,
    relation: RelationId,
    column: &crate::ir::Column,
) -> Vec<SymbolId> {
    let mut domain = own_domain(column);
    if text_ordered(ir, relation) && column.path.len() > 1 {
        domain.sort_by(|a, b| ir.symbols.symbol(*a).name.cmp(&ir.symbols.symbol(*b).name));
    }
    domain
}

/// A column's domain as its relation's bitset numbers it: the analysis' domain,
/// sorted by text where the relation's terms are numbered in text order: a root
/// column's functors by the text their terms start with ([`text_prefix`]), the others
/// by name.
pub(super) fn numbered_domain(
    ir: &Ir,
    relation: RelationId,
    column: &crate::ir::Column,
) -> Vec<SymbolId> {
    let mut domain = column.domain.clone();
    if text_ordered(ir, relation) {
        domain.sort_by_key(|&s| text_prefix(ir, s));
    }
    domain
}

/// The `rt::Layout` of blocks whose argument root is column `top`.
pub(super) fn layout_tokens(blocks: &[FunctorBlock], top: usize) -> TokenStream {
    let bits = lit(blocks.last().map_or(0, |b| b.base.saturating_add(b.size)));
    let top = lit(top);
    let functors = blocks.iter().map(|b| {
        let symbol = sym(b.symbol);
        let base = lit(b.base);
        let size = lit(b.size);
        let columns = b.columns.iter().map(|(c, _, _)| lit(*c));
        let strides = b.columns.iter().map(|(_, s, _)| lit(*s));
        let domains = b.columns.iter().map(|(_, _, d)| {
            let d = d.iter().map(|&s| sym(s));
            quote!(&[#(#d),*])
        });
        let keys = match &b.keys {
            Some((_, table)) => quote!(Some(&#table)),
            None => quote!(None),
        };
        quote!(rt::FunctorLayout {
            symbol: #symbol,
            base: #base,
            size: #size,
            columns: &[#(#columns),*],
            strides: &[#(#strides),*],
            domains: &[#(#domains),*],
            keys: #keys,
        })
    });
    quote!(rt::Layout {
        top: #top,
        bits: #bits,
        functors: &[#(#functors),*],
    })
}

/// A numbering of a relation's tuples by the functor blocks of one argument and the
/// positions of its other columns (see `Emitter::coded_numbering`).
pub(super) struct CodedNumbering {
    /// The column of the argument's root symbol.
    pub(super) top: usize,
    /// The argument's blocks.
    pub(super) blocks: Vec<FunctorBlock>,
    /// The other columns and their domains.
    pub(super) outer: Vec<(usize, Vec<SymbolId>)>,
}

impl CodedNumbering {
    /// The other columns numbered `(column, stride, domain)`, most significant first:
    /// each value of them a range of the blocks' bits (`legal`'s role).
    pub(super) fn outer_numbered(&self) -> Vec<(usize, usize, Vec<SymbolId>)> {
        let layout_bits = self.blocks.last().map_or(0, |b| b.base + b.size);
        let mut outer = Vec::new();
        let mut stride = layout_bits.max(1);
        for (c, domain) in self.outer.iter().rev() {
            outer.push((*c, stride, domain.clone()));
            stride *= domain.len().max(1);
        }
        outer.reverse();
        outer
    }
}

/// A copy of a bits-only relation's bits in another column order (see
/// `Emitter::bit_copies`).
pub(super) struct BitCopy {
    /// The columns of the lookup it serves (its leading columns).
    pub(super) columns: Vec<usize>,
    /// Its field.
    pub(super) field: Ident,
    /// Its numbered columns, in its order.
    pub(super) numbered: Vec<(usize, usize, Vec<SymbolId>)>,
}

impl Emitter<'_> {
    /// For a derived relation stored hashed whose tuples nest terms in one argument
    /// (`legal`'s moves, a relation of moves): that argument's functor blocks and the
    /// other columns with their domains, when the bits of that numbering are at most
    /// [`MAX_CODED_BITS`]. Its store is then kept unique by those bits
    /// (`rt::Store::coded`) rather than by hashing its rows, and its rows have bits
    /// (the runtime keeps a legal move's id by its bit).
    pub(super) fn coded_numbering(&self, r: RelationId) -> Option<CodedNumbering> {
        let relation_plan = &self.plan.relations[r.0 as usize];
        if !matches!(relation_plan.storage, Storage::Hashed)
            || !matches!(relation_plan.evaluation, Evaluation::Materialised)
            || !self.has_store(r)
        {
            return None;
        }
        let columns = &self.ir.relation(r).columns;
        let nests = |arg: u32| columns.iter().any(|d| d.path.len() > 1 && d.path[0] == arg);
        let mut compound = Vec::new();
        let mut outer = Vec::new();
        for (c, column) in columns.iter().enumerate() {
            if let [arg] = column.path.as_slice() {
                if nests(*arg) {
                    compound.push((*arg, c));
                } else {
                    outer.push((c, column.domain.clone()));
                }
            }
        }
        let [(arg, top)] = compound[..] else {
            return None;
        };
        let blocks = functor_blocks(self.ir, r, arg, &[], &BTreeMap::new());
        let layout_bits = blocks
            .iter()
            .try_fold(0usize, |sum, b| sum.checked_add(b.size))?;
        let total = outer.iter().try_fold(layout_bits.max(1), |t, (_, d)| {
            t.checked_mul(d.len().max(1))
        })?;
        (total <= MAX_CODED_BITS).then_some(CodedNumbering { top, blocks, outer })
    }

    /// Whether a role's legal moves in canonical text order are its set bits of
    /// `legal`'s store in ascending order (`rt::Rules::LEGAL_IN_TEXT_ORDER`): `legal` is
    /// coded with the role as its one outer column, and every move its blocks number is
    /// a constant or a function of constants whose texts, enumerated in bit order,
    /// ascend strictly (the blocks are laid out in text order, [`text_ordered`]; this
    /// checks it, names whose characters sort below a space or `)` included). Then the
    /// runtime picks a random move as the k-th set bit of the role's range.
    pub(super) fn legal_in_text_order(&self) -> bool {
        let Some(legal) = self.ir.keyword(Keyword::Legal) else {
            return false;
        };
        if let Some(numbered) = self.numbered_columns(legal) {
            return self.flat_legal_in_text_order(legal, &numbered);
        }
        let Some(coded) = self.coded_numbering(legal) else {
            return false;
        };
        let role_column = self
            .ir
            .relation(legal)
            .columns
            .iter()
            .position(|c| c.path == [0]);
        if coded.outer.len() != 1 || Some(coded.outer[0].0) != role_column {
            return false;
        }
        let symbols = &self.ir.symbols;
        let mut previous: Option<String> = None;
        let mut enumerated = 0usize;
        for block in &coded.blocks {
            let functor = symbols.symbol(block.symbol);
            let direct = block.columns.iter().all(|(c, _, domain)| {
                self.ir.relation(legal).columns[*c].path.len() == 3
                    && domain.iter().all(|&s| symbols.symbol(s).arity == 0)
            });
            if !direct || block.keys.is_some() || block.columns.len() != functor.arity {
                return false;
            }
            enumerated = enumerated.saturating_add(block.size);
            if enumerated > MAX_TEXT_ORDER_CHECK {
                return false;
            }
            // Every tuple of the block in bit order (strides descend), nil skipped: no
            // move has it as an argument.
            let radices: Vec<usize> = block.columns.iter().map(|(_, _, d)| d.len()).collect();
            if radices.contains(&0) {
                continue;
            }
            let mut digits = vec![0usize; radices.len()];
            loop {
                let args: Option<Vec<&str>> = block
                    .columns
                    .iter()
                    .zip(&digits)
                    .map(|((_, _, domain), &d)| {
                        let s = domain[d];
                        (s != NIL).then(|| symbols.symbol(s).name.as_str())
                    })
                    .collect();
                if let Some(args) = args {
                    let text = if args.is_empty() {
                        functor.name.clone()
                    } else {
                        format!("({} {})", functor.name, args.join(" "))
                    };
                    if previous.as_ref().is_some_and(|p| *p >= text) {
                        return false;
                    }
                    previous = Some(text);
                }
                // The next digits, last fastest.
                let mut k = radices.len();
                loop {
                    if k == 0 {
                        break;
                    }
                    k -= 1;
                    digits[k] += 1;
                    if digits[k] < radices[k] {
                        break;
                    }
                    digits[k] = 0;
                }
                if k == 0 && digits.iter().all(|&d| d == 0) {
                    break;
                }
            }
        }
        true
    }

    /// [`Self::legal_in_text_order`] for a `legal` stored in a flat bitset: the role
    /// its first column, every other combination of columns in bit order either no
    /// move (a column outside its root's shape not nil, or an argument nil) or a
    /// constant or a function of constants, their texts ascending strictly.
    fn flat_legal_in_text_order(
        &self,
        legal: RelationId,
        numbered: &[(usize, usize, Vec<SymbolId>)],
    ) -> bool {
        let columns = &self.ir.relation(legal).columns;
        let symbols = &self.ir.symbols;
        if columns.first().map(|c| c.path.as_slice()) != Some(&[0][..]) {
            return false;
        }
        let Some(root) = columns.iter().position(|c| c.path == [1]) else {
            return false;
        };
        let rest = &numbered[1..];
        let total = rest
            .iter()
            .try_fold(1usize, |t, (_, _, d)| t.checked_mul(d.len()));
        if rest.iter().any(|(_, _, d)| d.is_empty())
            || total.is_none_or(|t| t > MAX_TEXT_ORDER_CHECK)
        {
            return false;
        }
        let radices: Vec<usize> = rest.iter().map(|(_, _, d)| d.len()).collect();
        let mut digits = vec![0usize; radices.len()];
        let mut previous: Option<String> = None;
        loop {
            let value = |c: usize| rest[c - 1].2[digits[c - 1]];
            let f = value(root);
            let functor = symbols.symbol(f);
            let mut args = Vec::new();
            let mut valid = f != NIL;
            for (c, column) in columns.iter().enumerate().skip(1) {
                if c == root {
                    continue;
                }
                let path = &column.path;
                let under = path.len() == 3 && path[1] == f.0;
                let v = value(c);
                if under {
                    if v == NIL {
                        valid = false;
                    } else if symbols.symbol(v).arity != 0 {
                        return false;
                    }
                    args.push((path[2], symbols.symbol(v).name.as_str()));
                } else if path.len() > 3 && path[1] == f.0 {
                    return false;
                } else if v != NIL {
                    valid = false;
                }
            }
            if valid && args.len() == functor.arity {
                args.sort_by_key(|&(i, _)| i);
                let text = if args.is_empty() {
                    functor.name.clone()
                } else {
                    let args: Vec<&str> = args.iter().map(|&(_, a)| a).collect();
                    format!("({} {})", functor.name, args.join(" "))
                };
                if previous.as_ref().is_some_and(|p| *p >= text) {
                    return false;
                }
                previous = Some(text);
            }
            let mut k = radices.len();
            while k > 0 {
                k -= 1;
                digits[k] += 1;
                if digits[k] < radices[k] {
                    break;
                }
                digits[k] = 0;
            }
            if digits.iter().all(|&d| d == 0) {
                return true;
            }
        }
    }

    /// Whether a relation with a coded numbering (see [`Self::coded_numbering`]) has a
    /// positions table (`POS_R`), so that inserts with a known functor number their
    /// bit in line.
    pub(super) fn coded_positions(&self, r: RelationId) -> bool {
        self.arity(r) * self.ir.symbols.len() <= MAX_POSITIONS && self.coded_numbering(r).is_some()
    }

    /// The numbered columns `(column, stride, domain)` of a derived relation stored in
    /// a bitset (bit = mixed-radix number of the columns' positions in their domains,
    /// strides as `rt::Store::bitset` computes them, a positions table emitted);
    /// `None` for other relations.
    pub(super) fn numbered_columns(
        &self,
        r: RelationId,
    ) -> Option<Vec<(usize, usize, Vec<SymbolId>)>> {
        let relation_plan = &self.plan.relations[r.0 as usize];
        let arity = self.arity(r);
        let bitset = matches!(relation_plan.storage, Storage::Bitset { .. })
            && matches!(relation_plan.evaluation, Evaluation::Materialised);
        if !bitset
            || !self.has_store(r)
            || arity == 0
            || arity * self.ir.symbols.len() > MAX_POSITIONS
        {
            return None;
        }
        let columns = &self.ir.relation(r).columns;
        if columns.iter().any(|c| c.domain.is_empty()) {
            return None;
        }
        let mut stride = 1;
        let mut numbered = vec![(0, 0, Vec::new()); arity];
        for c in (0..arity).rev() {
            numbered[c] = (c, stride, numbered_domain(self.ir, r, &columns[c]));
            stride *= columns[c].domain.len();
        }
        Some(numbered)
    }

    /// The numbered columns of a derived relation kept as bits only (an `rt::BitSet`),
    /// queried, filled and scanned bit by bit: a bitset relation that is not an entry
    /// (the runtime reads `legal`, `goal`, … as rows of a store), none of whose
    /// lookups scans more than [`crate::plan::MAX_LOOKUP_SCAN`] bits (a lookup binding columns after
    /// an unknown one scans the whole range its known leading columns fix: such a
    /// relation keeps its rows with hash indexes instead). A semi-naive round reads its
    /// delta from the bits in the order set (`rt::BitSet::added`).
    pub(super) fn bit_columns(&self, r: RelationId) -> Option<Vec<(usize, usize, Vec<SymbolId>)>> {
        if self.ir.relation(r).keyword.is_some() {
            return None;
        }
        let numbered = self.numbered_columns(r)?;
        let radices: Vec<usize> = numbered.iter().map(|(_, _, d)| d.len()).collect();
        let keeps_rows =
            crate::plan::keeps_rows(&radices, &self.plan.relations[r.0 as usize].indexes);
        (!keeps_rows).then_some(numbered)
    }

    /// The copies of a bits-only relation's bits in other column orders, one per wide
    /// lookup (see [`crate::plan::copied_lookups`]): the columns the lookup binds, the
    /// copy's field, and the numbered columns in the copy's order (those columns
    /// first, so the lookup scans only the range they fix).
    pub(super) fn bit_copies(&self, r: RelationId) -> Vec<BitCopy> {
        let Some(numbered) = self.bit_columns(r) else {
            return Vec::new();
        };
        let radices: Vec<usize> = numbered.iter().map(|(_, _, d)| d.len()).collect();
        let mut all: Vec<&Vec<usize>> =
            crate::plan::copied_lookups(&radices, &self.plan.relations[r.0 as usize].indexes);
        for columns in self.word_copies.get(&r).into_iter().flatten() {
            if !all.contains(&columns) {
                all.push(columns);
            }
        }
        all.into_iter()
            .map(|columns| {
                let order = crate::plan::copy_order(numbered.len(), columns);
                let mut stride = 1;
                let mut copy = vec![(0, 0, Vec::new()); order.len()];
                for (k, &c) in order.iter().enumerate().rev() {
                    copy[k] = (c, stride, numbered[c].2.clone());
                    stride *= numbered[c].2.len();
                }
                let suffix: Vec<String> = columns.iter().map(usize::to_string).collect();
                BitCopy {
                    columns: columns.clone(),
                    field: format_ident!("r{}_by{}", r.0, suffix.join("_")),
                    numbered: copy,
                }
            })
            .collect()
    }

    /// The table of each symbol's position in each state column's domain: the constant
    /// `FLUENT_POSITIONS` (which the optimiser can fold), or the coder's copy when
    /// the table would be too large to emit.
    pub(super) fn fluent_positions(&self) -> TokenStream {
        if self.fluent_positions_len() <= MAX_POSITIONS {
            quote!(FLUENT_POSITIONS)
        } else {
            quote!(input.fluents.positions)
        }
    }

    pub(super) fn fluent_positions_len(&self) -> usize {
        let arity = self.state_rel.map_or(0, |r| self.arity(r));
        arity * self.ir.symbols.len()
    }
}

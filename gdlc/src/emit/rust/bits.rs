//! Queries read from bits, the state's functor blocks and bits-only relations: a bit
//! test when every column is known, else a scan of the narrowest range the known leading
//! columns allow (a word, the state's list of set bits, constant masks, a cursor, a
//! delta); the tables of a domain's symbols; the local copies of small sets of earlier
//! layers.
//!
//! **`true`**: the state bits — a bit test when every argument is known, else the set
//! bits of the range the known leading arguments fix, the others compared per bit. A
//! range of at most 64 bits is copied into a word and walked there (a bits-only
//! relation's too: bits its body sets in the range meanwhile are seen by the next round
//! of a recursive layer, as no other layer writes it). A range wider than 512 bits reads
//! the state's ascending list of set bits (`Input::ones`, made when the state is loaded;
//! `Input::ones_from` finds the range's start by binary search) instead of every word of
//! the range: states are sparse (team chess: 32 pieces in a 768-bit block). Unknown
//! columns before a known one whose domains multiply to at most 16 are enumerated around
//! the query, which then reads the narrower range or tests one bit
//! (`Emitter::gap_enumerated`: team chess's `next`, knowing the moved piece's square and
//! colour, tests the six pieces between them). A scan of a whole block (of at most 16
//! words) whose inner columns are partly known and too many columns before them unknown
//! to enumerate reads each word of the block and-ed with a constant mask of the bits
//! whose known columns match, one mask per combination of their positions
//! (`Emitter::state_mask`, `STATE_MASK_<hash>_<len>`, at most 2,048 words), instead of
//! testing every bit set in the block. A listed functor's block (`FLUENT_KEYS_f`, the
//! sorted dense numbers of its fluents) maps a dense number to its bit by binary search
//! (`rt::listed_rank`) and a range of dense numbers to a range of bits
//! (`rt::listed_from`), so the same reads apply. A variable decoded from a bit keeps its
//! position (`vN_pos`), so later queries and `next` heads on the same domain skip the
//! position lookup; its symbol is read from a static table of the domain
//! (`SYMS_<hash>_<len>`, one per distinct domain, named by its contents so the code stays
//! deterministic), never from an array literal, which the compiled code would build on
//! the stack at every use.
//!
//! **Small sets of earlier layers tested through a copy**: a layer's method that tests a
//! bit set of an earlier layer of at most four words (`MAX_SNAPSHOT_WORDS`) copies its
//! words into a local when it starts (`let rN_words: [u64; W] =
//! self.rN.words_array::<W>();`) and tests the copy (`rt::has_bit_in`): no layer changes
//! an earlier layer's sets, and the copy stays in registers or on the stack where each
//! test through the rules reloaded the set's pointer and length. Only the layer methods
//! do (`Emitter::snapshots`); a demand mode's method tests the set itself. A bits test of
//! a variable decoded from values all in the tested column's domain
//! (`Emitter::decoded_within`), or a static lookup keyed by one, needs no guard for a
//! value outside it.

use super::*;

/// Where a query reads bits: the state's block of one functor of `true`, or the
/// bitset of a derived relation's store.
pub(super) struct BitSource<'b> {
    /// The block's first bit.
    pub(super) base: usize,
    /// The block's number of bits.
    pub(super) size: usize,
    /// `(column, stride, domain)` of the columns numbered, most significant first.
    pub(super) columns: &'b [(usize, usize, Vec<SymbolId>)],
    /// The table of positions, indexed by `column * num_symbols + symbol`.
    pub(super) positions: TokenStream,
    /// What holds the bits.
    pub(super) bits: Bits,
    /// For a listed block of the state: the table of its dense numbers, ascending.
    pub(super) keys: Option<&'b Ident>,
    /// For a small set of an earlier layer: the local copy of its words a test reads
    /// (see [`Snapshots`]), and the number of words.
    pub(super) snapshot: Option<(Ident, usize)>,
}

/// The bit sets of earlier layers that the method of the layer being emitted tests,
/// each through a local copy of its words (`rN_words`, at most
/// [`MAX_SNAPSHOT_WORDS`]): no layer changes an earlier layer's sets, and a copy in
/// registers or on the stack spares each test the reads of the set's words through
/// the rules (amazons' empty squares, tested at every step of every line: two words).
pub(super) struct Snapshots {
    /// The layer's own relations (sets it changes).
    pub(super) own: BTreeSet<RelationId>,
    /// The copies tested so far: their local, the set's field and its words.
    pub(super) used: BTreeMap<String, (Ident, Ident, usize)>,
}

/// A scan's masks of the state's bits (see `Emitter::state_mask`): the table, the
/// words each combination spans from word `first`, and the combination's index.
struct StateMask {
    pub(super) table: Ident,
    pub(super) words: usize,
    pub(super) first: usize,
    pub(super) combo: TokenStream,
}

/// The range of a [`BitSource`]'s bits that the known leading columns of a query fix
/// (see `Emitter::range`), and the locals a scan of it binds.
struct Range<'s> {
    /// How many leading columns are known.
    prefix: usize,
    /// The source's first bit.
    base: Literal,
    /// The dense number of the range's first bit, and the range's width in dense
    /// numbers.
    lo_key: TokenStream,
    width: Literal,
    /// The range's bits (a listed block's whole range: its size).
    width_bits: usize,
    /// For a listed block of the state: its table, the range's first bit and its end.
    listed: Option<(&'s Ident, TokenStream, TokenStream)>,
    /// The range's first bit, the bit met, and its offset in the source.
    lo: Ident,
    bit: Ident,
    offset: Ident,
}

/// What holds the bits of a [`BitSource`].
pub(super) enum Bits {
    /// The state (`input.state`).
    State,
    /// A bitset store (`self.<store>`).
    Store(Ident),
    /// The bits a bits-only store gained in the last semi-naive round: `self.<store>`'s
    /// set bits numbered `<delta>.0 .. <delta>.1` in the order set.
    Delta(Ident, Ident),
}

impl Emitter<'_> {
    /// The local copy of the words of relation `r`'s set `store` (`size` bits) that a
    /// test in the layer method being emitted may read instead of the set, when the
    /// set is an earlier layer's and small ([`Snapshots`]).
    pub(super) fn snapshot_of(
        &self,
        r: RelationId,
        store: &Ident,
        size: usize,
    ) -> Option<(Ident, usize)> {
        let snapshots = self.snapshots.borrow();
        let snapshots = snapshots.as_ref()?;
        let words = size.div_ceil(64).max(1);
        if snapshots.own.contains(&r) || words > MAX_SNAPSHOT_WORDS {
            return None;
        }
        Some((format_ident!("{}_words", store), words))
    }

    /// Records that the layer method being emitted reads `local`, the copy of `store`.
    fn snapshot_used(&self, store: &Ident, local: &Ident, words: usize) {
        if let Some(snapshots) = self.snapshots.borrow_mut().as_mut() {
            snapshots
                .used
                .entry(local.to_string())
                .or_insert_with(|| (local.clone(), store.clone(), words));
        }
    }

    /// The constant table of a domain's symbols by position, which a value decoded from
    /// a bit indexes (`SYMS_…[digit]`). An array literal indexed in place is built on
    /// the stack at every use: 16 instructions for 64 squares where a load does (team
    /// chess: 14 % of its instructions). Named by a hash of its contents, so a domain
    /// met again reuses its table and the names do not depend on the order of use.
    pub(super) fn domain_table(&self, domain: &[SymbolId]) -> Ident {
        // FNV-1a over the symbol ids: stable from run to run and platform to platform.
        let hash = fnv1a(domain.iter().flat_map(|s| s.0.to_le_bytes()));
        // A name another domain took (a collision of the hash) gets a suffix.
        let mut domains = self.domain_tables.borrow_mut();
        let mut name = format_ident!("SYMS_{:016X}_{}", hash, domain.len());
        for k in 1usize.. {
            match domains.get(&name.to_string()) {
                Some(taken) if taken.as_slice() != domain => {
                    name = format_ident!("SYMS_{:016X}_{}_{}", hash, domain.len(), k);
                }
                Some(_) => return name,
                None => break,
            }
        }
        domains.insert(name.to_string(), domain.to_vec());
        let mut tables = self.tables.borrow_mut();
        let len = lit(domain.len());
        let values = domain.iter().map(|&s| sym(s));
        let names: Vec<String> = domain
            .iter()
            .take(8)
            .map(|&s| self.ir.symbols.display(s))
            .collect();
        let doc = format!(
            "A domain's symbols by position ({}{}).",
            names.join(", "),
            if domain.len() > 8 { ", …" } else { "" }
        );
        tables.insert(
            name.to_string(),
            quote!(#[doc = #doc] static #name: [Sym; #len] = [#(#values),*];),
        );
        name
    }

    /// The masks of a scan of a whole block of the state whose inner columns are
    /// partly known (`(true (cell ?s ?c knight))`, `?c` bound, the square outermost):
    /// for each combination of the known columns' positions, the block's bits whose
    /// positions match, as words — a constant table, so the scan reads only the
    /// matching bits of each word instead of testing every bit set in the block.
    /// `None` when no inner column is known, or the block spans more than
    /// `STATE_MASK_WORDS` words, or the table would exceed `STATE_MASK_TABLE_WORDS`.
    fn state_mask(
        &self,
        source: &BitSource,
        position: &[Option<TokenStream>],
        base: usize,
    ) -> Option<StateMask> {
        let known: Vec<(usize, usize, &TokenStream)> = source
            .columns
            .iter()
            .zip(position)
            .filter_map(|((_, stride, domain), p)| Some((*stride, domain.len(), p.as_ref()?)))
            .collect();
        let (_, stride, domain) = source.columns.first()?;
        let width = stride * domain.len();
        if known.is_empty() || width == 0 {
            return None;
        }
        let first = base / 64;
        let words = (base + width - 1) / 64 - first + 1;
        let combos: usize = known.iter().map(|(_, radix, _)| radix).product();
        if words > STATE_MASK_WORDS || combos * words > STATE_MASK_TABLE_WORDS {
            return None;
        }
        let mut masks = vec![0u64; combos * words];
        for offset in 0..width {
            let combo = known.iter().fold(0, |acc, (stride, radix, _)| {
                acc * radix + (offset / stride) % radix
            });
            let bit = base + offset;
            masks[combo * words + bit / 64 - first] |= 1 << (bit % 64);
        }
        // FNV-1a over the masks, as for the domains' tables: the name follows the
        // contents, so the output stays deterministic.
        let hash = fnv1a(masks.iter().flat_map(|m| m.to_le_bytes()));
        let table = format_ident!("STATE_MASK_{:016X}_{}", hash, masks.len());
        let len = lit(masks.len());
        let values = masks.iter().map(|&m| Literal::u64_unsuffixed(m));
        self.tables.borrow_mut().insert(
            table.to_string(),
            quote! {
                #[doc = "A block of the state's bits matching each combination of its known inner columns."]
                static #table: [u64; #len] = [#(#values),*];
            },
        );
        // The combination's index: the known positions in mixed radix, the last
        // column's least significant (as the masks were numbered above).
        let mut multiplier = combos;
        let terms = known.iter().map(|(_, radix, p)| {
            multiplier /= radix;
            let m = lit(multiplier);
            quote!(#p * #m)
        });
        let combo = quote!(#(#terms)+*);
        Some(StateMask {
            table,
            words,
            first,
            combo,
        })
    }

    /// [`Self::bits_query`] when unknown columns lie before a known one in `source`'s
    /// order and their domains multiply to at most [`crate::plan::MAX_GAP_COMBINATIONS`]: a loop
    /// over their positions around the query with them known, which then reads the
    /// narrow range of the columns now leading, or tests one bit (`(true (cell ?t ?o
    /// ?piece))` with the square and colour known, the piece's column between them:
    /// six bit tests instead of a scan of the colour's pieces). `None` otherwise.
    fn gap_enumerated(
        &self,
        source: &BitSource,
        slots: &[Slot],
        outside: &[(TokenStream, Slot)],
        then: &TokenStream,
    ) -> Option<TokenStream> {
        if matches!(source.bits, Bits::Delta(..)) {
            return None;
        }
        let known = |c: usize| matches!(slots[c], Slot::Sym(_) | Slot::Bound(_));
        let last_known = source.columns.iter().rposition(|(c, _, _)| known(*c))?;
        let gap: Vec<&(usize, usize, Vec<SymbolId>)> = source.columns[..last_known]
            .iter()
            .filter(|(c, _, _)| !known(*c))
            .collect();
        if gap.is_empty() {
            return None;
        }
        let mut combinations: usize = 1;
        let mut with_known = slots.to_vec();
        for (c, _, domain) in &gap {
            let Slot::Bind(v) = slots[*c] else {
                return None;
            };
            let repeated = slots
                .iter()
                .filter(|s| matches!(s, Slot::Bind(w) | Slot::Same(w) if *w == v))
                .count()
                > 1
                || outside.iter().any(
                    |(_, s)| matches!(s, Slot::Bind(w) | Slot::Same(w) | Slot::Bound(w) if *w == v),
                );
            if repeated || self.run_start(v, domain) != Some(0) {
                return None;
            }
            combinations = combinations.saturating_mul(domain.len());
            with_known[*c] = Slot::Bound(v);
        }
        if combinations > crate::plan::MAX_GAP_COMBINATIONS {
            return None;
        }
        let code = self.bits_query(source, &with_known, outside.to_vec(), then.clone());
        let enumerated = gap.into_iter().map(|(c, _, domain)| {
            let Slot::Bind(v) = slots[*c] else {
                unreachable!("checked above")
            };
            (v, domain.as_slice())
        });
        Some(self.for_each_position(enumerated, code))
    }

    /// `code` inside one loop per variable of `vars`, the first outermost, over the
    /// positions of its domain (`vN_pos`), binding the variable to its symbol there.
    pub(super) fn for_each_position<'d>(
        &self,
        vars: impl DoubleEndedIterator<Item = (VarId, &'d [SymbolId])>,
        mut code: TokenStream,
    ) -> TokenStream {
        for (v, domain) in vars.rev() {
            let (p, value) = (var_position(v), var(v));
            let table = self.domain_table(domain);
            let radix = lit(domain.len());
            code = quote! {
                for #p in 0..#radix {
                    let #value: Sym = #table[#p];
                    #code
                }
            };
        }
        code
    }

    /// The code running `then` for each set bit of `source` matching `slots` (and the
    /// columns `outside` the bits, matched as given): a bit test when every column is
    /// known, else a scan of the narrowest range the known leading columns allow.
    pub(super) fn bits_query(
        &self,
        source: &BitSource,
        slots: &[Slot],
        outside: Vec<(TokenStream, Slot)>,
        then: TokenStream,
    ) -> TokenStream {
        if let Some(code) = self.gap_enumerated(source, slots, &outside, &then) {
            return code;
        }
        let Some((prelude, position)) = self.known_positions(source, slots) else {
            return quote!();
        };
        let guards: Vec<TokenStream> = source
            .columns
            .iter()
            .zip(&position)
            .filter_map(|((c, _, domain), p)| match (slots[*c], p) {
                (Slot::Bound(v), Some(p))
                    if self.known_position(v, domain).is_none()
                        && !self.decoded_within(v, domain) =>
                {
                    Some(quote!(#p != NONE as usize))
                }
                _ => None,
            })
            .collect();
        let (outside_conds, outside_binds) = Self::matcher(&outside);
        if position.iter().all(Option::is_some) && !matches!(source.bits, Bits::Delta(..)) {
            let mut conds = guards;
            conds.extend(outside_conds);
            conds.push(self.bit_test(source, &position));
            let body = Self::guarded(&conds, quote!(#(#outside_binds)* #then));
            return quote!({ #(#prelude)* #body });
        }
        let then = (outside_conds, outside_binds, then);
        let scan = self.range_scan(source, slots, &position, then);
        let scan = Self::guarded(&guards, scan);
        quote!({ #(#prelude)* #scan })
    }

    /// The position of each column of `source` that `slots` know: a constant for a
    /// symbol, a decoded variable's own position, else looked up in the positions
    /// table (a local of the prelude, also returned). `None` when a symbol is outside
    /// its column's domain: no bit matches.
    fn known_positions(
        &self,
        source: &BitSource,
        slots: &[Slot],
    ) -> Option<(Vec<TokenStream>, Vec<Option<TokenStream>>)> {
        let num_symbols = self.ir.symbols.len();
        let positions = &source.positions;
        let mut prelude = Vec::new();
        let mut position: Vec<Option<TokenStream>> = Vec::new();
        for (c, _, domain) in source.columns {
            match slots[*c] {
                Slot::Sym(s) => {
                    let p = lit(domain.iter().position(|&d| d == s)?);
                    position.push(Some(quote!(#p)));
                }
                Slot::Bound(v) => {
                    if let Some(p) = self.known_position(v, domain) {
                        position.push(Some(p));
                        continue;
                    }
                    let p = self.fresh("p");
                    let v = var(v);
                    let offset = lit(c * num_symbols);
                    prelude.push(quote!(let #p = #positions[#offset + #v as usize] as usize;));
                    position.push(Some(quote!(#p)));
                }
                _ => position.push(None),
            }
        }
        Some((prelude, position))
    }

    /// Whether `source` has the bit of the known positions `position` (every column's).
    fn bit_test(&self, source: &BitSource, position: &[Option<TokenStream>]) -> TokenStream {
        let base_lit = lit(source.base);
        let mut terms = vec![quote!(0)];
        for ((_, stride, _), p) in source.columns.iter().zip(position) {
            let p = p.as_ref().expect("all known");
            let stride = lit(*stride);
            terms.push(quote!(#p * #stride));
        }
        let offset = quote!(#(#terms)+*);
        match (&source.bits, source.keys) {
            (Bits::State, Some(keys)) => quote!(
                rt::listed_rank(&#keys, #offset).is_some_and(|i| input.state.get(#base_lit + i))
            ),
            (Bits::State, None) => quote!(input.state.get(#base_lit + #offset)),
            (Bits::Store(store), _) => match &source.snapshot {
                Some((local, words)) => {
                    self.snapshot_used(store, local, *words);
                    quote!(rt::has_bit_in(&#local, #base_lit + #offset))
                }
                None => quote!(self.#store.has_bit(#base_lit + #offset)),
            },
            (Bits::Delta(..), _) => unreachable!("a delta is scanned"),
        }
    }

    /// The scan of the range of `source` that the known leading columns fix (their
    /// positions `position`), the others filtered, decoded and bound per bit; `then`
    /// is the conditions and bindings of the columns outside the bits and the code run
    /// for each match.
    fn range_scan(
        &self,
        source: &BitSource,
        slots: &[Slot],
        position: &[Option<TokenStream>],
        then: (Vec<TokenStream>, Vec<TokenStream>, TokenStream),
    ) -> TokenStream {
        let (mut conds, outside_binds, then) = then;
        let range = self.range(source, position);
        let offset = &range.offset;
        let mut inner_conds = Vec::new();
        let mut columns = Vec::new();
        let mut decodes = Vec::new();
        for (k, ((c, stride, domain), p)) in source.columns.iter().zip(position).enumerate() {
            let stride = lit(*stride);
            let radix = lit(domain.len());
            let digit = quote!((#offset / #stride) % #radix);
            match p {
                Some(_) if k < range.prefix => {}
                Some(p) => inner_conds.push(quote!(#digit == #p)),
                None => {
                    if let Slot::Bind(v) = slots[*c] {
                        let p = var_position(v);
                        decodes.push(quote!(let #p: usize = #digit;));
                    }
                    let table = self.domain_table(domain);
                    columns.push((quote!(#table[#digit]), slots[*c]));
                }
            }
        }
        let (more_conds, binds) = Self::matcher(&columns);
        conds.extend(more_conds);
        let unguarded = quote!(#(#outside_binds)* #(#binds)* #(#decodes)* #then);
        if range.prefix == 0
            && source.keys.is_none()
            && matches!(source.bits, Bits::State)
            && let Some(mask) = self.state_mask(source, position, source.base)
        {
            // The whole block, its bound inner columns a constant mask per value.
            let body = Self::guarded(&conds, unguarded);
            return self.masked_scan(&range, mask, body);
        }
        conds.extend(inner_conds);
        let body = Self::guarded(&conds, unguarded);
        // A range wider than several words is read from the list of set bits (the
        // state's, ascending, or a bits-only store's, in the order set) rather than
        // word by word: states and derived relations are sparse.
        let wide = match source.bits {
            Bits::State => range.width_bits > STATE_LIST_SCAN_BITS,
            _ => range.width_bits > STORE_LIST_SCAN_BITS,
        };
        let hi = self.fresh("hi");
        if wide && matches!(source.bits, Bits::State) {
            self.state_list.set(true);
        }
        match &source.bits {
            Bits::State => self.state_range_scan(&range, wide, &hi, body),
            Bits::Store(store) => self.store_range_scan(&range, store, wide, body),
            Bits::Delta(store, delta) => {
                let i = self.fresh("i");
                let Range {
                    base,
                    lo_key,
                    width,
                    lo,
                    bit,
                    offset,
                    ..
                } = &range;
                quote! {
                    let #lo = #base + #lo_key;
                    for #i in #delta.0..#delta.1 {
                        let #bit = self.#store.added(#i);
                        if #bit < #lo || #bit >= #lo + #width {
                            continue;
                        }
                        let #offset = #bit - #base;
                        #body
                    }
                }
            }
        }
    }

    /// The range of `source`'s bits its known leading columns (`position`'s first
    /// known ones) fix, and the locals a scan of it binds.
    fn range<'s>(&self, source: &BitSource<'s>, position: &[Option<TokenStream>]) -> Range<'s> {
        // Narrow to the range fixed by the known leading columns, filter the rest.
        let prefix = position.iter().take_while(|p| p.is_some()).count();
        let base_lit = lit(source.base);
        let mut lo_terms = vec![quote!(0)];
        for (p, column) in position.iter().zip(source.columns).take(prefix) {
            let p = p.as_ref().expect("prefix is known");
            let stride = lit(column.1);
            lo_terms.push(quote!(#p * #stride));
        }
        // The dense numbers `lo_key .. lo_key + width` are the range; in a listed
        // block, the bits of the keys in it.
        let width = if prefix == 0 {
            source
                .columns
                .first()
                .map_or(1, |(_, stride, domain)| stride * domain.len())
        } else {
            source.columns[prefix - 1].1
        };
        let width_bits = if source.keys.is_some() && prefix == 0 {
            source.size
        } else {
            width
        };
        let width = lit(width);
        let lo_key = quote!(#(#lo_terms)+*);
        // A listed block: its table and the bits of the keys in the range.
        let listed = source.keys.map(|keys| {
            if prefix == 0 {
                let size = lit(source.size);
                (keys, quote!(#base_lit), quote!(#base_lit + #size))
            } else {
                (
                    keys,
                    quote!(#base_lit + rt::listed_from(&#keys, #lo_key)),
                    quote!(#base_lit + rt::listed_from(&#keys, #lo_key + #width)),
                )
            }
        });
        Range {
            prefix,
            base: base_lit,
            lo_key,
            width,
            width_bits,
            listed,
            lo: self.fresh("lo"),
            bit: self.fresh("bit"),
            offset: self.fresh("offset"),
        }
    }

    /// A scan of a whole block of the state through the masks of its known inner
    /// columns ([`Self::state_mask`]), `body` run for each bit.
    fn masked_scan(&self, range: &Range, mask: StateMask, body: TokenStream) -> TokenStream {
        let StateMask {
            table,
            words,
            first,
            combo,
        } = mask;
        let Range {
            base, bit, offset, ..
        } = range;
        let (word, rest) = (self.fresh("word"), self.fresh("rest"));
        let (first_lit, last_lit, words_lit) = (lit(first), lit(first + words - 1), lit(words));
        quote! {
            for #word in #first_lit..=#last_lit {
                let mut #rest = input.state.0[#word]
                    & #table[(#combo) * #words_lit + #word - #first_lit];
                while #rest != 0 {
                    let #bit = #word * 64 + #rest.trailing_zeros() as usize;
                    #rest &= #rest - 1;
                    let #offset = #bit - #base;
                    #body
                }
            }
        }
    }

    /// A scan of a range of the state's bits (`wide`: read from the state's list of
    /// set bits, up to `hi`), `body` run for each.
    fn state_range_scan(
        &self,
        range: &Range,
        wide: bool,
        hi: &Ident,
        body: TokenStream,
    ) -> TokenStream {
        let Range {
            base,
            lo_key,
            width,
            lo,
            bit,
            offset,
            ..
        } = range;
        if let Some((keys, lo_bit, hi_bit)) = &range.listed {
            return if wide {
                quote! {
                    let #hi = #hi_bit;
                    for &#bit in input.ones_from(#lo_bit) {
                        let #bit = #bit as usize;
                        if #bit >= #hi {
                            break;
                        }
                        let #offset = #keys[#bit - #base] as usize;
                        #body
                    }
                }
            } else {
                quote! {
                    for #bit in input.state.ones(#lo_bit, #hi_bit) {
                        let #offset = #keys[#bit - #base] as usize;
                        #body
                    }
                }
            };
        }
        if range.width_bits <= 64 {
            return self.word_range_scan(range, quote!(input.state), body);
        }
        if wide {
            return quote! {
                let #lo = #base + #lo_key;
                let #hi = #lo + #width;
                for &#bit in input.ones_from(#lo) {
                    let #bit = #bit as usize;
                    if #bit >= #hi {
                        break;
                    }
                    let #offset = #bit - #base;
                    #body
                }
            };
        }
        quote! {
            let #lo = #lo_key;
            for #bit in input.state.ones(#base + #lo, #base + #lo + #width) {
                let #offset = #bit - #base;
                #body
            }
        }
    }

    /// A scan of a range of bit set `store`'s bits (`wide`: the whole store, read
    /// through the words that hold a bit), `body` run for each.
    fn store_range_scan(
        &self,
        range: &Range,
        store: &Ident,
        wide: bool,
        body: TokenStream,
    ) -> TokenStream {
        let Range {
            base,
            lo_key,
            width,
            lo,
            bit,
            offset,
            ..
        } = range;
        if range.width_bits <= 64 {
            return self.word_range_scan(range, quote!(self.#store), body);
        }
        if wide && range.prefix == 0 {
            // The whole store: the set bits of the words that hold one, in the
            // order the words got their first bit (each read when reached: bits
            // this scan's own body sets in words not yet reached are met now,
            // sound in a monotone round; the others in the next round, as for a
            // delta).
            let (i, word, rest) = (self.fresh("i"), self.fresh("word"), self.fresh("rest"));
            return quote! {
                for #i in 0..self.#store.nonzero_words() {
                    let #word = self.#store.nonzero_word(#i);
                    let mut #rest = self.#store.word(#word);
                    while #rest != 0 {
                        let #bit = #word * 64 + #rest.trailing_zeros() as usize;
                        #rest &= #rest - 1;
                        let #offset = #bit - #base;
                        #body
                    }
                }
            };
        }
        let cursor = self.fresh("cursor");
        quote! {
            let #lo = #base + #lo_key;
            let mut #cursor = rt::OnesCursor::new(self.#store.words(), #lo, #lo + #width);
            while let Some(#bit) = #cursor.next(self.#store.words()) {
                let #offset = #bit - #base;
                #body
            }
        }
    }

    /// A range of one word or less: its bits (of `words`, the state or a store) copied
    /// into a word, walked there (a store's bits the body sets in the range meanwhile
    /// are not seen; a recursive layer's next round sees them).
    fn word_range_scan(&self, range: &Range, words: TokenStream, body: TokenStream) -> TokenStream {
        let Range {
            base,
            lo_key,
            width,
            lo,
            bit,
            offset,
            ..
        } = range;
        let rest = self.fresh("rest");
        quote! {
            let #lo = #base + #lo_key;
            let mut #rest = #words.field(#lo, #width);
            while #rest != 0 {
                let #bit = #lo + #rest.trailing_zeros() as usize;
                #rest &= #rest - 1;
                let #offset = #bit - #base;
                #body
            }
        }
    }
}

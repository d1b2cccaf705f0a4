//! The Rust backend: a game's plan as Rust source, to be compiled as a reasoner crate
//! (`cargo xtask compile`) or included from a build script ([`crate::Builder`]).
//!
//! The generated module defines `Rules`, which implements
//! [`gdlc_runtime::compiled::Rules`], and `Reasoner`, the [`gdlc_runtime::Game`] built
//! on it. What it holds:
//!
//! - **The state** is a fixed array of 64-bit words, one bit per possible fluent:
//!   a block of bits per top-level function symbol of `true`, inside it the
//!   mixed-radix number of the arguments' positions in their column domains (the
//!   analysis' domains, so every reachable fluent has a bit).
//! - **Constant tables**: the symbol table, the state layout, the column domains and
//!   every static relation (computed by the planner) as `static` arrays.
//! - **One function per materialised layer** and **one per demand mode**: the plan's
//!   filter trees as nested loops and tests over locals. Queries on `true` read the
//!   state bits directly — a membership test when every argument is known, otherwise
//!   the set bits of the narrowest range of the functor's block the known leading
//!   arguments allow; queries on `does` read the joint move's tuples; static relations
//!   are read from constant tables through constant offset tables keyed on the known
//!   columns (small scans unrolled); derived relations stored as bitsets are bits only
//!   (`rt::BitSet`), read like the state, a lookup binding later columns only from a
//!   copy of the bits with those columns first; entry and hashed relations use a
//!   store, kept unique by bits numbered per functor block where one argument nests
//!   terms (`legal`'s moves: `rt::Store::coded`).
//! - **Demand relations**: a memo table per call key (`callR_M`/`evalR_M`), recursive
//!   layers tabled with a shared fixpoint, except the modes `closure.rs` finds complete
//!   their tables on their own (a work list for right-linear recursion); calls to
//!   cheap modes are inlined at the call site (`inline.rs`).
//!
//! Nothing is decided here that the plan did not decide, except representation: the
//! state layout, bits-only relations, constant tables, unrolling and inlining.
//! The output is deterministic: everything is emitted in id order and formatted with
//! prettyplease.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Literal, Span as MacroSpan, TokenStream};
use quote::{format_ident, quote};

use crate::Diagnostic;
use crate::diagnostic::Code;
use crate::ir::{Arg, Ir, Keyword, NIL, Phase, RelationId, SymbolId, VarId};
use crate::plan::{Access, Evaluation, LayerEvaluation, Node, Plan, Query, Slot, Storage, Test};

mod closure;
mod hoist;
mod inline;
mod words;
use closure::Closure;

/// The largest positions table (arity × symbols) of a relation queried bit by bit.
const MAX_POSITIONS: usize = 1 << 18;

/// Scans of a static table with at most this many rows are unrolled when the copies
/// of the loop body stay under [`MAX_UNROLLED_TEXT`] bytes of source.
const MAX_UNROLLED_ROWS: usize = 8;
const MAX_UNROLLED_TEXT: usize = 16_000;

/// A scan of a state range wider than this reads the state's list of set bits instead
/// of the range's words. Below, the binary search for the range's start costs about
/// what the words do (kalah's 372-bit block of pit counts, scanned inside loops, and
/// chinese checkers' 259-bit board, full, ran slower from the list).
const STATE_LIST_SCAN_BITS: usize = 512;
/// The widest block of the state (in words) a scan reads through constant masks of
/// its known inner columns (`Emitter::state_mask`), and the largest such table.
const STATE_MASK_WORDS: usize = 16;
const STATE_MASK_TABLE_WORDS: usize = 2048;
/// The most fields a word join reads from one scan of the state, enumerating the
/// positions of the columns it binds besides the word's (`Emitter::state_word_scan`).
const MAX_ENUMERATED_FIELDS: usize = 64;
/// The most bits of a static relation's table of bits for word joins
/// (`Emitter::static_word_field`): 8 KiB.
const MAX_STATIC_FIELD_BITS: usize = 1 << 16;

/// A scan of a whole bits-only relation wider than this reads the bits in the order
/// set instead of the words.
const STORE_LIST_SCAN_BITS: usize = 256;

/// The most bits of a relation whose bits a rule copies into another relation through
/// a constant table of the head's bit per bit (`Emitter::bits_mapped`): 64 KiB.
const MAX_MAPPED_BITS: usize = 1 << 14;

/// The most bits of a relation copied so that word joins test it a word at a time
/// (`Emitter::word_copies`).
const MAX_WORD_COPY_BITS: usize = 4096;

/// The most bits of a memo table kept unique by a bitset over its free columns (see
/// `Emitter::memo_init`): every table of the mode holds that many bits.
const MAX_MEMO_TABLE_BITS: usize = 1024;

/// The most moves `Emitter::legal_in_text_order` enumerates to check that a role's
/// legal bits ascend in text order.
const MAX_TEXT_ORDER_CHECK: usize = 1 << 21;

/// The most state bits a generated reasoner may use (32 KiB per state).
pub const MAX_STATE_BITS: usize = 1 << 18;

/// The `Cargo.toml` of a generated crate named `crate_name`, depending on gdlc-runtime
/// through `runtime` (a TOML dependency value such as `{ path = "../../gdlc-runtime" }`).
pub fn cargo_toml(crate_name: &str, runtime: &str) -> String {
    format!(
        "# Generated by gdlc {}. Do not edit.\n[package]\nname = \"{crate_name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\ngdlc-runtime = {runtime}\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// The generated reasoner module for `ir` planned as `plan`: Rust source usable both as
/// a crate's `src/lib.rs` and through `include!`. It defines `pub struct Rules`,
/// `pub type Reasoner` (a [`gdlc_runtime::Game`]) and `pub fn new() -> Reasoner`.
/// `source` names the KIF file in the header.
pub fn lib_rs(ir: &Ir, plan: &Plan, source: &str) -> Result<String, Diagnostic> {
    let emitter = Emitter::new(ir, plan)?;
    let tokens = emitter.file(source)?;
    let file: syn::File = syn::parse2(tokens).map_err(|e| {
        backend_error(format!(
            "internal error: the generated code does not parse: {e}"
        ))
    })?;
    let body = prettyplease::unparse(&file);
    Ok(format!(
        "// Generated by gdlc {} from `{}`. Do not edit: regenerate it with gdlc.\n//\n// A reasoner for the game: `new()` gives a `Reasoner`, which implements\n// `gdlc_runtime::Game`.\n\n{body}",
        env!("CARGO_PKG_VERSION"),
        source.replace('\n', " ")
    ))
}

/// Adds to `out` the name of each store some code of `tokens` counts or reads in the
/// order set (`self.rN.len()`, `self.rN.added(…)`): a bit set no code reads so is made
/// `rt::BitSet::unlisted` (its inserts keep no list, its fields are set a word at a
/// time). Decided on the generated code itself, so no reader is missed.
fn find_list_readers(tokens: &TokenStream, out: &mut BTreeSet<String>) {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        if let TokenTree::Group(group) = tree {
            find_list_readers(&group.stream(), out);
        }
        if let [
            TokenTree::Ident(this),
            TokenTree::Punct(dot),
            TokenTree::Ident(name),
            TokenTree::Punct(dot2),
            TokenTree::Ident(method),
            ..,
        ] = &trees[i..]
            && this == "self"
            && dot.as_char() == '.'
            && dot2.as_char() == '.'
            && (method == "len" || method == "added")
        {
            out.insert(name.to_string());
        }
    }
}

/// The code running `body` once per field of `width` bits of the bit set `store`
/// (field `k` is bits `k * width ..`) that holds a bit, the field's number in the local
/// `field`. When a field never straddles words (`width` divides 64), through the words
/// holding a bit, each once (`BitSet::nonzero_words`), so the set needs no list of its
/// bits; else through the list of bits set, repeats of the field just met skipped.
fn for_each_field_with_a_bit(
    store: &Ident,
    width: usize,
    field: &Ident,
    body: TokenStream,
) -> TokenStream {
    let n = lit(width);
    if width == 64 {
        return quote! {
            for i in 0..self.#store.nonzero_words() {
                let #field = self.#store.nonzero_word(i);
                #body
            }
        };
    }
    if 64 % width == 0 {
        let mask = Literal::u64_unsuffixed(u64::MAX >> (64 - width));
        return quote! {
            for i in 0..self.#store.nonzero_words() {
                let word = self.#store.nonzero_word(i);
                let mut parts = self.#store.word(word);
                while parts != 0 {
                    let part = parts.trailing_zeros() as usize / #n;
                    parts &= !(#mask << (part * #n));
                    let #field = word * (64 / #n) + part;
                    #body
                }
            }
        };
    }
    quote! {
        {
            let mut last_field = usize::MAX;
            for i in 0..self.#store.len() {
                let #field = self.#store.added(i) / #n;
                if #field == last_field {
                    continue;
                }
                last_field = #field;
                #body
            }
        }
    }
}

fn backend_error(message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Code::Backend, message)
}

/// FNV-1a over bytes: the hash naming a generated table after its contents, stable
/// from run to run and platform to platform, so the output stays deterministic.
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn lit(value: usize) -> Literal {
    Literal::usize_unsuffixed(value)
}

fn sym(s: SymbolId) -> Literal {
    Literal::u32_unsuffixed(s.0)
}

thread_local! {
    /// How many inlined calls (see `inline.rs`) enclose the code being emitted: the
    /// variables of an inlined rule are named apart from its caller's.
    static INLINE_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn var(v: VarId) -> Ident {
    match INLINE_DEPTH.get() {
        0 => format_ident!("v{}", v.0),
        depth => format_ident!("v{}_{}", v.0, depth),
    }
}

/// The value a slot of a call's key passes: its symbol or its bound variable.
fn key_value(slot: Slot) -> TokenStream {
    match slot {
        Slot::Sym(s) => {
            let s = sym(s);
            quote!(#s)
        }
        Slot::Bound(v) => {
            let v = var(v);
            quote!(#v)
        }
        _ => quote!(0),
    }
}

/// The local holding the position of variable `v` in the domain it was decoded from.
fn var_position(v: VarId) -> Ident {
    format_ident!("{}_pos", var(v))
}

/// The dense number of a static tuple over some of its columns, each `(column, its
/// sorted values)` with its stride: the sum of each value's position times the stride.
fn dense_key(columns: &[(usize, Vec<SymbolId>)], strides: &[usize], row: &[SymbolId]) -> usize {
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
fn static_values(tuples: &[Vec<SymbolId>], c: usize) -> Vec<SymbolId> {
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

/// The block of state bits of one functor of `true`.
#[derive(Clone, Debug)]
struct FunctorBlock {
    symbol: SymbolId,
    base: usize,
    size: usize,
    /// `true` columns under the functor, most significant first, with stride and
    /// domain.
    columns: Vec<(usize, usize, Vec<SymbolId>)>,
    /// For a listed block ([`crate::plan::FluentLayout`]): the dense numbers of its
    /// fluents, ascending (bit `base + i` is the fluent of dense number `keys[i]`),
    /// and the name of their constant table.
    keys: Option<(Vec<u64>, Ident)>,
}

/// The blocks of a numbering of argument `arg` of `relation`: per top-level function
/// symbol, the mixed-radix numbers of its columns' positions in their domains (sizes
/// saturate; callers bound them) — or, for a functor `listed` gives the fluents of, the
/// rank of that number among theirs.
fn functor_blocks(
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
fn coded_domain(ir: &Ir, relation: RelationId, column: &crate::ir::Column) -> Vec<SymbolId> {
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
fn numbered_domain(ir: &Ir, relation: RelationId, column: &crate::ir::Column) -> Vec<SymbolId> {
    let mut domain = column.domain.clone();
    if text_ordered(ir, relation) {
        domain.sort_by_key(|&s| text_prefix(ir, s));
    }
    domain
}

/// The `rt::Layout` of blocks whose argument root is column `top`.
fn layout_tokens(blocks: &[FunctorBlock], top: usize) -> TokenStream {
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

/// Where a query reads bits: the state's block of one functor of `true`, or the
/// bitset of a derived relation's store.
struct BitSource<'b> {
    /// The block's first bit.
    base: usize,
    /// The block's number of bits.
    size: usize,
    /// `(column, stride, domain)` of the columns numbered, most significant first.
    columns: &'b [(usize, usize, Vec<SymbolId>)],
    /// The table of positions, indexed by `column * num_symbols + symbol`.
    positions: TokenStream,
    /// What holds the bits.
    bits: Bits,
    /// For a listed block of the state: the table of its dense numbers, ascending.
    keys: Option<&'b Ident>,
    /// For a small set of an earlier layer: the local copy of its words a test reads
    /// (see [`Snapshots`]), and the number of words.
    snapshot: Option<(Ident, usize)>,
}

/// What holds the bits of a [`BitSource`].
/// The most bits of a hashed relation's store numbered by functor blocks (see
/// `Emitter::coded_numbering`): 4 Mi bits, 512 KiB per store.
const MAX_CODED_BITS: usize = 1 << 22;

/// The most functor blocks of a coded numbering whose bit an insert computes in line
/// when the functor is known at run time only (one `match` arm per block).
const MAX_CODED_ARMS: usize = 8;

/// A numbering of a relation's tuples by the functor blocks of one argument and the
/// positions of its other columns (see `Emitter::coded_numbering`).
struct CodedNumbering {
    /// The column of the argument's root symbol.
    top: usize,
    /// The argument's blocks.
    blocks: Vec<FunctorBlock>,
    /// The other columns and their domains.
    outer: Vec<(usize, Vec<SymbolId>)>,
}

impl CodedNumbering {
    /// The other columns numbered `(column, stride, domain)`, most significant first:
    /// each value of them a range of the blocks' bits (`legal`'s role).
    fn outer_numbered(&self) -> Vec<(usize, usize, Vec<SymbolId>)> {
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

/// The rest of a rule after a join when it is only tests and the head (see
/// `Emitter::tests_then_accept`).
struct TestsThenAccept<'n> {
    /// The tests in order, each with whether it is negated.
    tests: Vec<(&'n Query, bool)>,
    /// The head's relation and arguments.
    head: RelationId,
    args: &'n [Arg],
}

/// A copy of a bits-only relation's bits in another column order (see
/// `Emitter::bit_copies`).
struct BitCopy {
    /// The columns of the lookup it serves (its leading columns).
    columns: Vec<usize>,
    /// Its field.
    field: Ident,
    /// Its numbered columns, in its order.
    numbered: Vec<(usize, usize, Vec<SymbolId>)>,
}

/// Where a word join reads a field (`Emitter::word_field`): a bit set of the
/// generated code, or a static relation's constant table of bits.
#[derive(Clone)]
enum WordSource {
    Store(Ident),
    /// The state (`input.state`).
    State,
    /// The table, and its definition when no code emitted so far has it (added to
    /// the file's tables only once the word join is emitted).
    Static {
        table: Ident,
        definition: Option<TokenStream>,
    },
}

impl WordSource {
    /// The `n` bits from bit `lo`, as a word.
    fn field(&self, lo: &TokenStream, n: &Literal) -> TokenStream {
        match self {
            WordSource::Store(store) => quote!(self.#store.field(#lo, #n)),
            WordSource::State => quote!(input.state.field(#lo, #n)),
            WordSource::Static { table, .. } => quote!(rt::word_field(&#table, #lo, #n)),
        }
    }
}

/// A query on `true` read a word at a time (`Emitter::state_word_scan`): the variable
/// whose values the word holds and their domain in the block, the first bit of the
/// field, and the variables bound here by enumerating their positions.
struct StateWordScan {
    v: VarId,
    lane: Vec<SymbolId>,
    lo: TokenStream,
    enumerated: Vec<(VarId, Vec<SymbolId>)>,
}

/// The most words of a set of an earlier layer that a layer's method copies into a
/// local to test it (see [`Snapshots`]).
const MAX_SNAPSHOT_WORDS: usize = 4;

/// The bit sets of earlier layers that the method of the layer being emitted tests,
/// each through a local copy of its words (`rN_words`, at most
/// [`MAX_SNAPSHOT_WORDS`]): no layer changes an earlier layer's sets, and a copy in
/// registers or on the stack spares each test the reads of the set's words through
/// the rules (amazons' empty squares, tested at every step of every line: two words).
struct Snapshots {
    /// The layer's own relations (sets it changes).
    own: BTreeSet<RelationId>,
    /// The copies tested so far: their local, the set's field and its words.
    used: BTreeMap<String, (Ident, Ident, usize)>,
}

/// A scan of a whole static relation read a word at a time (see
/// `Emitter::static_word_scan`).
struct StaticWordScan {
    /// The variable of the column numbered in the word.
    v: VarId,
    source: WordSource,
    /// The bit of the constant table where the field starts.
    lo: TokenStream,
    /// The other columns' variables, each over its column's values.
    enumerated: Vec<(VarId, Vec<SymbolId>)>,
}

/// A scan's masks of the state's bits (see `Emitter::state_mask`): the table, the
/// words each combination spans from word `first`, and the combination's index.
struct StateMask {
    table: Ident,
    words: usize,
    first: usize,
    combo: TokenStream,
}

enum Bits {
    /// The state (`input.state`).
    State,
    /// A bitset store (`self.<store>`).
    Store(Ident),
    /// The bits a bits-only store gained in the last semi-naive round: `self.<store>`'s
    /// set bits numbered `<delta>.0 .. <delta>.1` in the order set.
    Delta(Ident, Ident),
}

/// Where accepted tuples go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sink {
    /// The layer's store, buffered until the rule is done.
    Layer,
    /// The current memo table of a demand relation in a mode.
    Memo(usize, usize),
    /// The evaluation of a known mode (see `Emitter::known_mode`): an answer returns
    /// `true`.
    Known(usize, usize),
    /// After a call back into a [`Closure::Chain`] mode (relation, mode): an accept
    /// adds the call's key (`link_key`) to the work list (`chainR_M`).
    Push(usize, usize),
    /// A mode's rules inlined at a call site (see `inline.rs`): an accept runs the
    /// caller's continuation on the head's values.
    Inline,
    /// After a call back into a [`Closure::Chain`] mode inlined as a walk, whose locals
    /// are named by the depth held (see `inline.rs`): an accept adds the call's key
    /// (`link_key`) to the walk's keys.
    Walk(usize),
}

struct Emitter<'a> {
    ir: &'a Ir,
    plan: &'a Plan,
    true_rel: Option<RelationId>,
    does_rel: Option<RelationId>,
    state_rel: Option<RelationId>,
    next_rel: Option<RelationId>,
    blocks: Vec<FunctorBlock>,
    state_bits: usize,
    /// Counter making local names unique.
    names: std::cell::Cell<usize>,
    /// Constant tables that queries asked for (by name, so emitted once and in order).
    tables: std::cell::RefCell<BTreeMap<String, TokenStream>>,
    /// The domain of each `SYMS_…` table in `tables` (see `Emitter::domain_table`).
    domain_tables: std::cell::RefCell<BTreeMap<String, Vec<SymbolId>>>,
    /// In the rule being emitted: the variables bound by decoding a bit, with the
    /// domain they were decoded from (their position in it is a local too).
    decoded: std::cell::RefCell<BTreeMap<VarId, Vec<SymbolId>>>,
    /// While a layer's method is emitted: the small sets of earlier layers it tests,
    /// through a copy of their words made when the method starts ([`Snapshots`]).
    snapshots: std::cell::RefCell<Option<Snapshots>>,
    /// How many [`Node::Repeat`] loops enclose the code being emitted: only their
    /// rounds read `self.grew` (whether a round added a tuple).
    repeats: std::cell::Cell<usize>,
    /// In the rule being emitted: whether accepted tuples go straight into the head's
    /// store (the body does not read the head relation), not through `pending`.
    direct: std::cell::Cell<bool>,
    /// Whether some scan reads the state's list of set bits (`rt::Rules::STATE_LIST`).
    state_list: std::cell::Cell<bool>,
    /// The modes of recursive demand layers that complete a call's table on their own.
    closures: BTreeMap<(usize, usize), Closure>,
    /// The continuations of the calls being inlined, innermost last (see `inline.rs`).
    continuations: std::cell::RefCell<Vec<inline::Continuation>>,
    /// The source text of the calls inlined so far.
    inlined_text: std::cell::Cell<usize>,
    /// While a rule's existential tail is searched (see `Emitter::existential_tail`):
    /// the rule's accept, and what runs in its place (leaving the search).
    tail_accept: std::cell::RefCell<Option<(*const Node, TokenStream)>>,
    /// Per bits-only relation, the copies word joins test it through (see
    /// `Emitter::word_copies`): the columns numbered first in each.
    word_copies: BTreeMap<RelationId, Vec<Vec<usize>>>,
    /// The hoist scopes open, outermost first (see `hoist.rs`).
    hoists: std::cell::RefCell<Vec<hoist::HoistScope>>,
}

impl<'a> Emitter<'a> {
    fn new(ir: &'a Ir, plan: &'a Plan) -> Result<Self, Diagnostic> {
        let true_rel = ir.keyword(Keyword::True);
        let state_rel = true_rel
            .or(ir.keyword(Keyword::Next))
            .or(ir.keyword(Keyword::Init));
        let paths = |r: Option<RelationId>| {
            r.map(|r| {
                ir.relation(r)
                    .columns
                    .iter()
                    .map(|c| c.path.clone())
                    .collect::<Vec<_>>()
            })
        };
        let state_paths = paths(state_rel);
        for keyword in [Keyword::True, Keyword::Next, Keyword::Init] {
            let own = paths(ir.keyword(keyword));
            if own.is_some() && own != state_paths {
                return Err(backend_error(format!(
                    "`{keyword:?}` does not share the flattened shape of the state; the Rust backend needs `true`, `next` and `init` alike"
                )));
            }
        }
        let legal_paths = paths(ir.keyword(Keyword::Legal));
        let does_paths = paths(ir.keyword(Keyword::Does));
        if legal_paths.is_some() && does_paths.is_some() && legal_paths != does_paths {
            return Err(backend_error(
                "`legal` and `does` have different flattened shapes; the Rust backend needs them alike",
            ));
        }
        for keyword in [Keyword::Legal, Keyword::Goal, Keyword::Sees] {
            if let Some(r) = ir.keyword(keyword)
                && ir.relation(r).columns.first().map(|c| c.path.as_slice()) != Some(&[0][..])
            {
                return Err(backend_error(format!("`{keyword:?}` has no role column")));
            }
        }
        let blocks = state_rel
            .map(|state| functor_blocks(ir, state, 0, &plan.fluents, &plan.state_orders))
            .unwrap_or_default();
        let bits = blocks.last().map_or(0, |b| b.base.saturating_add(b.size));
        if let Some(b) = blocks.iter().find(|b| b.size > MAX_STATE_BITS) {
            let why = plan
                .fluents
                .iter()
                .find(|layout| layout.functor == b.symbol)
                .map_or(String::new(), |layout| format!(" ({})", layout.reason));
            let mut error = backend_error(format!(
                "the fluents `({} …)` have {} possible values after analysis, more than the {MAX_STATE_BITS} state bits the Rust backend supports{why}",
                ir.symbols.symbol(b.symbol).name,
                b.size
            ));
            let heads = [ir.keyword(Keyword::Next), ir.keyword(Keyword::Init)];
            if let Some(rule) = ir.rules.iter().find(|rule| {
                heads.contains(&Some(rule.head.relation))
                    && rule.head.args.first() == Some(&Arg::Sym(b.symbol))
            }) {
                error = error.at(rule.span, "a rule making such fluents");
            }
            return Err(error);
        }
        if bits > MAX_STATE_BITS {
            return Err(backend_error(format!(
                "the state needs {bits} bits after analysis, more than the {MAX_STATE_BITS} the Rust backend supports"
            )));
        }
        for (r, relation_plan) in plan.relations.iter().enumerate() {
            let id = RelationId(r as u32);
            if Some(id) == true_rel || Some(id) == ir.keyword(Keyword::Does) {
                continue;
            }
            if matches!(relation_plan.evaluation, Evaluation::Input) {
                return Err(backend_error(format!(
                    "relation `{}` is an input the Rust backend does not know",
                    ir.relation(id).key()
                )));
            }
        }
        let mut emitter = Emitter {
            ir,
            plan,
            true_rel,
            does_rel: ir.keyword(Keyword::Does),
            state_rel,
            next_rel: ir.keyword(Keyword::Next),
            blocks,
            state_bits: bits,
            names: std::cell::Cell::new(0),
            tables: std::cell::RefCell::new(BTreeMap::new()),
            decoded: std::cell::RefCell::new(BTreeMap::new()),
            snapshots: std::cell::RefCell::new(None),
            repeats: std::cell::Cell::new(0),
            domain_tables: std::cell::RefCell::new(BTreeMap::new()),
            direct: std::cell::Cell::new(false),
            state_list: std::cell::Cell::new(false),
            closures: closure::closures(ir, plan),
            continuations: std::cell::RefCell::new(Vec::new()),
            inlined_text: std::cell::Cell::new(0),
            tail_accept: std::cell::RefCell::new(None),
            word_copies: BTreeMap::new(),
            hoists: std::cell::RefCell::new(Vec::new()),
        };
        emitter.word_copies = emitter.word_copies();
        Ok(emitter)
    }

    /// The copies of bits-only relations that word joins would test (see
    /// [`Self::word_join`]): where a layer's rule scans a bits-only relation whose
    /// column numbered last binds a variable, and then tests a bits-only relation of
    /// at most [`MAX_WORD_COPY_BITS`] bits on that variable in a column its bits number
    /// before others (team chess's `(not (colour-on ?t ?c))`, `?t` first), a copy of
    /// that relation's bits with that column last.
    fn word_copies(&self) -> BTreeMap<RelationId, Vec<Vec<usize>>> {
        let mut wanted: BTreeMap<RelationId, Vec<Vec<usize>>> = BTreeMap::new();
        for tree in self
            .plan
            .layers
            .iter()
            .filter_map(|layer| layer.tree.as_ref())
        {
            tree.for_each_join(&mut |query, then| {
                let scanned = self.bit_columns(query.relation).and_then(|numbered| {
                    match query.slots[numbered.last()?.0] {
                        Slot::Bind(v) => Some(v),
                        _ => None,
                    }
                });
                if let (Some(v), Some(tail)) = (scanned, Self::tests_then_accept(then)) {
                    for (test, _) in tail.tests {
                        self.want_word_copy(test, v, &mut wanted);
                    }
                }
            });
        }
        wanted
    }

    /// Adds to `wanted` the copy of `test`'s relation with `v`'s column last, if it is
    /// bits-only, small enough, and neither its bits nor its copies number it last.
    fn want_word_copy(
        &self,
        test: &Query,
        v: VarId,
        wanted: &mut BTreeMap<RelationId, Vec<Vec<usize>>>,
    ) {
        let r = test.relation;
        let Some(numbered) = self.bit_columns(r) else {
            return;
        };
        let [c] = (0..test.slots.len())
            .filter(|&c| test.slots[c] == Slot::Bound(v))
            .collect::<Vec<_>>()[..]
        else {
            return;
        };
        let bits = numbered
            .first()
            .map_or(1, |(_, stride, domain)| stride * domain.len());
        let columns: Vec<usize> = (0..test.slots.len()).filter(|&d| d != c).collect();
        let radices: Vec<usize> = numbered.iter().map(|(_, _, d)| d.len()).collect();
        let planned =
            crate::plan::copied_lookups(&radices, &self.plan.relations[r.0 as usize].indexes);
        let last_somewhere = numbered.last().is_some_and(|(last, _, _)| *last == c)
            || planned
                .iter()
                .any(|lookup| crate::plan::copy_order(radices.len(), lookup).last() == Some(&c));
        if bits > MAX_WORD_COPY_BITS || last_somewhere || columns.is_empty() {
            return;
        }
        let copies = wanted.entry(r).or_default();
        if !copies.contains(&columns) {
            copies.push(columns);
        }
    }

    fn words(&self) -> usize {
        self.state_bits.div_ceil(64).max(1)
    }

    fn arity(&self, r: RelationId) -> usize {
        self.ir.relation(r).columns.len()
    }

    fn is_demand(&self, r: RelationId) -> bool {
        matches!(
            self.plan.relations[r.0 as usize].evaluation,
            Evaluation::Demand(_)
        )
    }

    /// Whether the relation has a store field (`r<N>`).
    fn has_store(&self, r: RelationId) -> bool {
        Some(r) != self.true_rel
            && Some(r) != self.does_rel
            && Some(r) != self.next_rel
            && !self.is_demand(r)
    }

    /// For a derived relation stored hashed whose tuples nest terms in one argument
    /// (`legal`'s moves, a relation of moves): that argument's functor blocks and the
    /// other columns with their domains, when the bits of that numbering are at most
    /// [`MAX_CODED_BITS`]. Its store is then kept unique by those bits
    /// (`rt::Store::coded`) rather than by hashing its rows, and its rows have bits
    /// (the runtime keeps a legal move's id by its bit).
    fn coded_numbering(&self, r: RelationId) -> Option<CodedNumbering> {
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
    fn legal_in_text_order(&self) -> bool {
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
    fn coded_positions(&self, r: RelationId) -> bool {
        self.arity(r) * self.ir.symbols.len() <= MAX_POSITIONS && self.coded_numbering(r).is_some()
    }

    /// Whether the store of `legal` or `sees` keeps its bits only: a bitset (over its
    /// columns, or coded) that no rule reads, so that only the runtime lists its rows,
    /// decoding each new one from its bit.
    fn rows_unread(&self, r: RelationId) -> bool {
        let keyword = self.ir.relation(r).keyword;
        if keyword.is_none() {
            return self.only_copied_or_tested(r);
        }
        if !matches!(keyword, Some(Keyword::Legal | Keyword::Sees))
            || !matches!(
                self.plan.relations[r.0 as usize].evaluation,
                Evaluation::Materialised
            )
            || !self.plan.relations[r.0 as usize].indexes.is_empty()
            || (self.numbered_columns(r).is_none() && self.coded_numbering(r).is_none())
        {
            return false;
        }
        let mut read = false;
        let mut look = |q: &Query| read |= q.relation == r;
        for layer in &self.plan.layers {
            if let Some(tree) = &layer.tree {
                tree.for_each_query(&mut look);
            }
        }
        for relation_plan in &self.plan.relations {
            if let Evaluation::Demand(modes) = &relation_plan.evaluation {
                for mode in modes {
                    mode.tree.for_each_query(&mut look);
                }
            }
        }
        !read
    }

    /// Whether relation `r`'s store keeps its tuples as bits alone, neither rows nor a
    /// list of their bits (the runtime's `Store::unlisted`): a
    /// `legal` no rule reads, which the runtime reads through its words.
    fn bits_alone(&self, r: RelationId) -> bool {
        self.rows_unread(r) && self.ir.relation(r).keyword == Some(Keyword::Legal)
    }

    /// Whether a materialised coded relation's rows go unread: every join reading it
    /// is the source of a copy of its bits ([`Self::coded_copy`], in a rule whose
    /// tuples go straight to the head) or asks only whether it has a tuple
    /// ([`Self::whole_store_tested`]). Demand modes read rows.
    fn only_copied_or_tested(&self, r: RelationId) -> bool {
        if self.plan.relations[r.0 as usize].evaluation != Evaluation::Materialised
            || !self.plan.relations[r.0 as usize].indexes.is_empty()
            || !self.has_store(r)
            || self.coded_numbering(r).is_none()
        {
            return false;
        }
        let mut demand_reads = false;
        for relation_plan in &self.plan.relations {
            if let Evaluation::Demand(modes) = &relation_plan.evaluation {
                for mode in modes {
                    mode.tree
                        .for_each_query(&mut |q| demand_reads |= q.relation == r);
                }
            }
        }
        !demand_reads
            && self.plan.layers.iter().all(|layer| {
                layer
                    .tree
                    .as_ref()
                    .is_none_or(|tree| self.reads_as_bits(tree, r, false))
            })
    }

    /// Whether every read of `r` under `node` is a copy of its bits in a rule whose
    /// tuples go straight to the head (`direct`) or a test of whether it has a tuple.
    fn reads_as_bits(&self, node: &Node, r: RelationId, direct: bool) -> bool {
        match node {
            Node::Sequence(children) => children.iter().all(|c| self.reads_as_bits(c, r, direct)),
            Node::Repeat(body) => self.reads_as_bits(body, r, direct),
            Node::SemiNaive {
                initial, rounds, ..
            } => self.reads_as_bits(initial, r, direct) && self.reads_as_bits(rounds, r, direct),
            Node::Rule { rule, body, .. } => {
                let head = self.ir.rules[*rule].head.relation;
                self.reads_as_bits(body, r, self.inserts_directly(head, body))
            }
            Node::Accept { .. } => true,
            Node::If { test, then } => {
                !matches!(test, Test::Absent(q) if q.relation == r)
                    && self.reads_as_bits(then, r, direct)
            }
            Node::Query { query, then } => {
                (query.relation != r
                    || (direct && self.copied_bits(query, then).is_some())
                    || self.whole_store_tested(query, then))
                    && self.reads_as_bits(then, r, direct)
            }
        }
    }

    /// Whether a layer's rule for `head` with `body` adds its tuples straight to the
    /// head's store: unless the body reads the rows being added (a recursive rule over
    /// a store with rows); bits-only stores are read through short borrows (bit tests,
    /// cursors, the delta's bit numbers), and a bit set while a round runs is seen by it
    /// or the next.
    fn inserts_directly(&self, head: RelationId, body: &Node) -> bool {
        self.arity(head) > 0
            && Some(head) != self.next_rel
            && (!Self::reads(body, head) || self.bit_columns(head).is_some())
    }

    /// Whether a join asks only whether a stored relation has a tuple: a scan binding
    /// every column, none of them read after (`(<= mobile (mover-move ?m))`). It is
    /// emitted as a test of whether the store is empty, reading no row.
    fn whole_store_tested(&self, query: &Query, then: &Node) -> bool {
        query.access == Access::Scan
            && self.has_store(query.relation)
            && query.slots.iter().all(|s| matches!(s, Slot::Bind(_)))
            && Self::existential(query, then)
    }

    /// The numbered columns `(column, stride, domain)` of a derived relation stored in
    /// a bitset (bit = mixed-radix number of the columns' positions in their domains,
    /// strides as `rt::Store::bitset` computes them, a positions table emitted);
    /// `None` for other relations.
    fn numbered_columns(&self, r: RelationId) -> Option<Vec<(usize, usize, Vec<SymbolId>)>> {
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
    fn bit_columns(&self, r: RelationId) -> Option<Vec<(usize, usize, Vec<SymbolId>)>> {
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
    fn bit_copies(&self, r: RelationId) -> Vec<BitCopy> {
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
    fn fluent_positions(&self) -> TokenStream {
        if self.fluent_positions_len() <= MAX_POSITIONS {
            quote!(FLUENT_POSITIONS)
        } else {
            quote!(input.fluents.positions)
        }
    }

    fn fluent_positions_len(&self) -> usize {
        let arity = self.state_rel.map_or(0, |r| self.arity(r));
        arity * self.ir.symbols.len()
    }

    /// The positions table of a bitset relation.
    fn positions(r: RelationId) -> Ident {
        format_ident!("POS_{}", r.0)
    }

    fn store(r: RelationId) -> Ident {
        format_ident!("r{}", r.0)
    }

    /// The constant table of a static relation.
    fn table(r: RelationId) -> Ident {
        format_ident!("TABLE_{}", r.0)
    }

    /// The local holding a semi-naive layer relation's last delta (a row range).
    fn delta(r: RelationId) -> Ident {
        format_ident!("delta{}", r.0)
    }

    /// Whether mode `m` of demand relation `r` binds every column outside a recursive
    /// layer: its calls then ask whether the key holds (`rt::Known`, `ask_r_m`), and its
    /// evaluation (`holds_r_m`) stops at the first answer.
    fn known_mode(&self, r: RelationId, m: usize) -> bool {
        let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation else {
            return false;
        };
        modes[m].bound.len() == self.arity(r)
            && !self.ir.layers[self.ir.layer_of[r.0 as usize]].cyclic
    }

    /// Whether a known mode remembers its answers per key (`rt::Known`): when its
    /// evaluation does work worth a hash lookup — a loop over a relation computed per
    /// state, a call that fills a memo table, or asks of two or more known modes (which
    /// could meet the same keys again below). Otherwise (a few static lookups, state
    /// bits and at most one ask) it is evaluated at every ask: a hash lookup and insert
    /// cost more (a chess variant's "a piece of this side stands on a line to that
    /// square": 85 and 150 instructions, asked 1.6 million times in 1,163 states).
    fn known_memoised(&self, r: RelationId, m: usize) -> bool {
        let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation else {
            return false;
        };
        let mut work = false;
        let mut asks = 0;
        self.known_work(&modes[m].tree, &mut work, &mut asks);
        work || asks >= 2
    }

    /// Walks a known mode's tree for [`Self::known_memoised`].
    fn known_work(&self, node: &Node, work: &mut bool, asks: &mut usize) {
        let mut query = |query: &Query| match query.access {
            Access::Call(m) if self.known_mode(query.relation, m) => *asks += 1,
            Access::Call(_) => *work = true,
            Access::Index(_) | Access::Scan | Access::Delta => {
                if !matches!(
                    self.plan.relations[query.relation.0 as usize].evaluation,
                    Evaluation::Static(_)
                ) {
                    *work = true;
                }
            }
            Access::Flag | Access::Member | Access::Input => {}
        };
        match node {
            Node::Sequence(children) => {
                for child in children {
                    self.known_work(child, work, asks);
                }
            }
            Node::Repeat(body) => self.known_work(body, work, asks),
            Node::SemiNaive {
                initial, rounds, ..
            } => {
                self.known_work(initial, work, asks);
                self.known_work(rounds, work, asks);
            }
            Node::Rule { body, .. } => self.known_work(body, work, asks),
            Node::Query { query: q, then } => {
                query(q);
                self.known_work(then, work, asks);
            }
            Node::If { test, then } => {
                if let Test::Absent(q) = test {
                    query(q);
                }
                self.known_work(then, work, asks);
            }
            Node::Accept { .. } => {}
        }
    }

    /// Whether mode `m` of demand relation `r` has a memo field: every mode but the
    /// known ones evaluated at every ask.
    fn has_memo(&self, r: RelationId, m: usize) -> bool {
        !self.known_mode(r, m) || self.known_memoised(r, m)
    }

    fn memo(r: RelationId, mode: usize) -> Ident {
        format_ident!("m{}_{}", r.0, mode)
    }

    fn fresh(&self, prefix: &str) -> Ident {
        let n = self.names.get();
        self.names.set(n + 1);
        format_ident!("{prefix}{n}")
    }

    fn paths_static(&self, r: Option<RelationId>) -> TokenStream {
        let Some(r) = r else {
            return quote!(&[]);
        };
        let paths = self.ir.relation(r).columns.iter().map(|c| {
            let steps = c.path.iter().map(|&s| Literal::u32_unsuffixed(s));
            quote!(&[#(#steps),*])
        });
        quote!(&[#(#paths),*])
    }

    fn file(&self, source: &str) -> Result<TokenStream, Diagnostic> {
        let ir = self.ir;
        let words = lit(self.words());
        let num_symbols = lit(ir.symbols.len());
        let symbols = (0..ir.symbols.len()).map(|i| {
            let s = ir.symbols.symbol(SymbolId(i as u32));
            let name = &s.name;
            let arity = Literal::u32_unsuffixed(s.arity as u32);
            quote!((#name, #arity))
        });
        let roles = ir.roles.iter().map(|&r| sym(r));
        let role_names = ir.roles.iter().map(|&r| ir.symbols.symbol(r).name.clone());
        let fluents = layout_tokens(&self.blocks, 0);
        let moves = match ir.keyword(Keyword::Legal) {
            Some(legal) => {
                let top = ir
                    .relation(legal)
                    .columns
                    .iter()
                    .position(|c| c.path == [1])
                    .unwrap_or(0);
                layout_tokens(&functor_blocks(ir, legal, 1, &[], &BTreeMap::new()), top)
            }
            None => layout_tokens(&[], 0),
        };
        let true_paths = self.paths_static(self.state_rel);
        let legal_paths = self.paths_static(self.ir.keyword(Keyword::Legal));
        let goal_paths = self.paths_static(self.ir.keyword(Keyword::Goal));
        let sees_paths = self.paths_static(self.ir.keyword(Keyword::Sees));

        let mut statics = Vec::new();
        let mut fields = Vec::new();
        let mut inits = Vec::new();
        // The bits-only relations' fields: their place in `inits`, name and size.
        let mut bit_sets = Vec::new();
        for (r, relation_plan) in self.plan.relations.iter().enumerate() {
            let id = RelationId(r as u32);
            let relation = ir.relation(id);
            let arity = relation.columns.len();
            if let Evaluation::Demand(modes) = &relation_plan.evaluation {
                for (m, mode) in modes.iter().enumerate() {
                    let name = Self::memo(id, m);
                    let key_len = lit(mode.bound.len());
                    if !self.has_memo(id, m) {
                        continue;
                    }
                    if self.known_mode(id, m) {
                        fields.push(quote!(#name: rt::Known));
                        inits.push(quote!(#name: rt::Known::new(#key_len)));
                    } else {
                        fields.push(quote!(#name: rt::Memo));
                        let init = self.memo_init(id, &mode.bound);
                        inits.push(quote!(#name: #init));
                    }
                    if self.closure(id.0 as usize, m) == Some(Closure::Chain) {
                        let chain = Self::chain(id.0 as usize, m);
                        fields.push(quote!(#chain: rt::Store));
                        inits.push(quote!(#chain: rt::Store::hashed(#key_len, &[])));
                    }
                }
                continue;
            }
            if !self.has_store(id) {
                continue;
            }
            let name = Self::store(id);
            let bit_columns = self.bit_columns(id);
            if self.numbered_columns(id).is_some() || self.coded_positions(id) {
                let table = Self::positions(id);
                let mut positions = vec![u32::MAX; arity * ir.symbols.len()];
                // A coded relation numbers its nested columns as its functor blocks do.
                let coded = self.coded_positions(id);
                for (c, column) in relation.columns.iter().enumerate() {
                    let domain = if coded {
                        coded_domain(ir, id, column)
                    } else {
                        numbered_domain(ir, id, column)
                    };
                    for (p, s) in domain.iter().enumerate() {
                        positions[c * ir.symbols.len() + s.0 as usize] = p as u32;
                    }
                }
                let len = lit(positions.len());
                let values = positions.iter().map(|&p| Literal::u32_unsuffixed(p));
                let doc = format!(
                    "Position of each symbol in each column's domain of `{}` (`u32::MAX`: none).",
                    relation.key()
                );
                statics.push(quote!(#[doc = #doc] static #table: [u32; #len] = [#(#values),*];));
            }
            let no_indexes = Vec::new();
            let indexes = if bit_columns.is_some() {
                &no_indexes
            } else {
                &relation_plan.indexes
            };
            let indexes = indexes.iter().map(|cols: &Vec<usize>| {
                let cols = cols.iter().map(|&c| lit(c));
                quote!(&[#(#cols),*])
            });
            let indexes = quote!(&[#(#indexes),*]);
            let mut make = match &relation_plan.storage {
                Storage::Bitset { .. } if arity > 0 => {
                    let domains = relation.columns.iter().map(|c| {
                        let d = numbered_domain(ir, id, c).into_iter().map(sym);
                        quote!(&[#(#d),*])
                    });
                    quote!(rt::Store::bitset(&[#(#domains),*], #num_symbols, #indexes))
                }
                Storage::Hashed if let Some(coded) = self.coded_numbering(id) => {
                    let layout = format_ident!("LAYOUT_{}", id.0);
                    let layout_value = layout_tokens(&coded.blocks, coded.top);
                    let doc = format!(
                        "The numbering of the tuples of `{}` by the functor blocks of one argument.",
                        relation.key()
                    );
                    statics.push(quote!(#[doc = #doc] static #layout: rt::Layout = #layout_value;));
                    let outer = coded.outer.iter().map(|(c, domain)| {
                        let c = lit(*c);
                        let d = domain.iter().map(|&s| sym(s));
                        quote!((#c, &[#(#d),*][..]))
                    });
                    let arity = lit(arity);
                    quote!(rt::Store::coded(#arity, &#layout, &[#(#outer),*], #num_symbols, #indexes))
                }
                _ => {
                    let arity = lit(arity);
                    quote!(rt::Store::hashed(#arity, #indexes))
                }
            };
            if let Evaluation::Static(tuples) = &relation_plan.evaluation {
                let table = Self::table(id);
                let rows = tuples.iter().map(|row| {
                    let values = row.iter().map(|&s| sym(s));
                    quote!([#(#values),*])
                });
                let arity_lit = lit(arity);
                let count = lit(tuples.len());
                let doc = format!("The tuples of `{}`, sorted.", relation.key());
                statics.push(quote!(#[doc = #doc] static #table: [[Sym; #arity_lit]; #count] = [#(#rows),*];));
                make = quote!(#make.with_rows(#table.as_flattened(), #count));
            }
            if let Some(numbered) = &bit_columns {
                let bits = lit(numbered
                    .first()
                    .map_or(1, |(_, stride, domain)| stride * domain.len().max(1)));
                bit_sets.push((fields.len(), inits.len(), name.clone(), bits.clone()));
                fields.push(quote!());
                inits.push(quote!());
                for copy in self.bit_copies(id) {
                    let field = copy.field;
                    bit_sets.push((fields.len(), inits.len(), field, bits.clone()));
                    fields.push(quote!());
                    inits.push(quote!());
                }
                continue;
            }
            if self.rows_unread(id) {
                make = quote!(#make.without_rows());
            }
            if self.bits_alone(id) {
                make = quote!(#make.unlisted());
            }
            fields.push(quote!(#name: rt::Store));
            inits.push(quote!(#name: #make));
        }

        if self.fluent_positions_len() <= MAX_POSITIONS {
            let num_symbols = ir.symbols.len();
            let mut positions = vec![u32::MAX; self.fluent_positions_len()];
            for block in &self.blocks {
                for (c, _, domain) in &block.columns {
                    for (p, s) in domain.iter().enumerate() {
                        positions[c * num_symbols + s.0 as usize] = p as u32;
                    }
                }
            }
            let len = lit(positions.len());
            let values = positions.iter().map(|&p| Literal::u32_unsuffixed(p));
            statics.push(quote! {
                /// Position of each symbol in each state column's domain (`u32::MAX`: none),
                /// as `META.fluents` gives them.
                static FLUENT_POSITIONS: [u32; #len] = [#(#values),*];
            });
        }
        for block in &self.blocks {
            if let Some((keys, table)) = &block.keys {
                let len = lit(keys.len());
                let values = keys.iter().map(|&k| Literal::u64_unsuffixed(k));
                let doc = format!(
                    "The dense numbers of the `{}` fluents that can occur, ascending: the state bit of each is its rank here.",
                    ir.symbols.symbol(block.symbol).name
                );
                statics.push(quote! {
                    #[doc = #doc]
                    static #table: [u64; #len] = [#(#values),*];
                });
            }
        }
        let num_layers = ir.layers.len();
        let computed_init = (0..num_layers).map(|l| {
            let static_layer = matches!(
                self.plan.layers[l].evaluation,
                LayerEvaluation::Static | LayerEvaluation::Input | LayerEvaluation::Demand
            );
            quote!(#static_layer)
        });
        let num_layers_lit = lit(num_layers);

        let mut methods = Vec::new();
        for (l, layer_plan) in self.plan.layers.iter().enumerate() {
            if !matches!(
                layer_plan.evaluation,
                LayerEvaluation::Once | LayerEvaluation::Fixpoint
            ) {
                continue;
            }
            let Some(tree) = &layer_plan.tree else {
                continue;
            };
            let name = format_ident!("layer{}", l);
            self.snapshots.replace(Some(Snapshots {
                own: ir.layers[l].relations.iter().copied().collect(),
                used: BTreeMap::new(),
            }));
            let body = self.node(tree, Sink::Layer);
            let snapshots = self.snapshots.take();
            let body = body?;
            let copies = (snapshots.map(|s| s.used))
                .unwrap_or_default()
                .into_values()
                .map(|(local, store, words)| {
                    let words = lit(words);
                    quote!(let #local: [u64; #words] = self.#store.words_array::<#words>();)
                });
            let body = quote!(#(#copies)* #body);
            let doc = format!(
                "Layer {l}: {}.",
                ir.layers[l]
                    .relations
                    .iter()
                    .map(|&r| format!("`{}`", ir.relation(r).key()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            methods.push(quote! {
                #[doc = #doc]
                fn #name(&mut self, input: &Input) {
                    #body
                }
            });
        }
        let mut dispatch_arms = Vec::new();
        for (r, relation_plan) in self.plan.relations.iter().enumerate() {
            let Evaluation::Demand(modes) = &relation_plan.evaluation else {
                continue;
            };
            let id = RelationId(r as u32);
            let layer = ir.layer_of[r];
            let cyclic = ir.layers[layer].cyclic;
            for (m, mode) in modes.iter().enumerate() {
                let memo = Self::memo(id, m);
                if self.known_mode(id, m) {
                    methods.extend(self.known_methods(id, m, &mode.tree)?);
                    continue;
                }
                let eval = format_ident!("eval{}_{}", r, m);
                let call = format_ident!("call{}_{}", r, m);
                let key_len = lit(mode.bound.len());
                let body = self.node(&mode.tree, Sink::Memo(r, m))?;
                let r_lit = Literal::u32_unsuffixed(r as u32);
                let m_lit = Literal::u32_unsuffixed(m as u32);
                let layer_lit = Literal::u32_unsuffixed(layer as u32);
                let doc = format!(
                    "`{}` called with columns {:?} bound: adds the answers to memo table `memo_table`; true if one was new.",
                    ir.relation(id).key(),
                    mode.bound
                );
                let closure = self.closure(r, m);
                let evaluation = match closure {
                    None | Some(Closure::Once) => quote! {
                        let mut key = [0 as Sym; #key_len];
                        key.copy_from_slice(self.#memo.key(memo_table));
                        #body
                    },
                    Some(Closure::Own) => quote! {
                        let mut key = [0 as Sym; #key_len];
                        key.copy_from_slice(self.#memo.key(memo_table));
                        loop {
                            let pass = self.#memo.table(memo_table).len();
                            #body
                            if self.#memo.table(memo_table).len() == pass {
                                break;
                            }
                        }
                    },
                    Some(Closure::Chain) => {
                        let chain = Self::chain(r, m);
                        quote! {
                            let mut origin = [0 as Sym; #key_len];
                            origin.copy_from_slice(self.#memo.key(memo_table));
                            // The mode is not evaluated again before this evaluation
                            // ends (its calls go to modes closed before it).
                            self.#chain.clear();
                            self.#chain.insert(&origin);
                            let mut link = 0;
                            while link < self.#chain.len() {
                                let mut key = [0 as Sym; #key_len];
                                key.copy_from_slice(self.#chain.row(link));
                                link += 1;
                                #body
                            }
                        }
                    }
                };
                methods.push(quote! {
                    #[doc = #doc]
                    fn #eval(&mut self, input: &Input, memo_table: usize) -> bool {
                        let before = self.#memo.table(memo_table).len();
                        #evaluation
                        self.#memo.table(memo_table).len() > before
                    }
                });
                // A closed mode's tables are complete when its evaluation returns.
                let cyclic = cyclic && closure.is_none();
                let reread = if cyclic {
                    quote!(self.fixpoints.reread_table(#layer_lit, self.#memo.epoch(t));)
                } else {
                    quote!()
                };
                let evaluate = if cyclic {
                    dispatch_arms.push(quote!((#r_lit, #m_lit) => self.#eval(input, t),));
                    quote! {
                        if let Some(depth) = self.fixpoints.find(#layer_lit) {
                            self.fixpoints.push(depth, (#r_lit, #m_lit, t));
                            self.#memo.set_epoch(t, self.fixpoints.epoch(depth));
                            self.#eval(input, t);
                        } else {
                            let depth = self.fixpoints.open(#layer_lit, (#r_lit, #m_lit, t));
                            self.#memo.set_epoch(t, self.fixpoints.epoch(depth));
                            // The first pass makes every table it calls; it is the
                            // fixpoint unless a call found a table of this pass.
                            self.#eval(input, t);
                            while self.fixpoints.was_reread(depth) {
                                let before = self.fixpoints.len(depth);
                                let mut grew = false;
                                let mut i = 0;
                                while i < self.fixpoints.len(depth) {
                                    let (r, m, table) = self.fixpoints.table(depth, i);
                                    grew |= self.eval_table(input, r, m, table);
                                    i += 1;
                                }
                                if !grew && self.fixpoints.len(depth) == before {
                                    break;
                                }
                            }
                            self.fixpoints.close(depth);
                        }
                    }
                } else {
                    quote!(self.#eval(input, t);)
                };
                methods.push(quote! {
                    /// The memo table of a call, evaluated if new.
                    fn #call(&mut self, input: &Input, key: &[Sym]) -> usize {
                        if let Some(t) = self.#memo.find(key) {
                            #reread
                            return t;
                        }
                        let t = self.#memo.create(key);
                        #evaluate
                        t
                    }
                });
            }
        }
        methods.push(quote! {
            /// Evaluates a table of a recursive demand layer.
            fn eval_table(&mut self, input: &Input, r: u32, m: u32, t: usize) -> bool {
                match (r, m) {
                    #(#dispatch_arms)*
                    _ => false,
                }
            }
        });

        // forget: per phase, the layers to reset.
        let mut forget_state = Vec::new();
        let mut forget_move = Vec::new();
        for (l, layer) in ir.layers.iter().enumerate() {
            let evaluation = self.plan.layers[l].evaluation;
            if layer.phase == Phase::Static {
                // Kept from state to state, but bounded: the keys met may never repeat.
                for &r in &layer.relations {
                    if let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation
                    {
                        for m in (0..modes.len()).filter(|&m| self.has_memo(r, m)) {
                            let memo = Self::memo(r, m);
                            forget_state.push(quote!(self.#memo.bound(
                                rt::MAX_STATIC_MEMO_TABLES,
                                rt::MAX_STATIC_MEMO_ROWS
                            );));
                        }
                    }
                }
                continue;
            }
            if matches!(evaluation, LayerEvaluation::Static | LayerEvaluation::Input)
                || layer.phase == Phase::Static
            {
                continue;
            }
            let l_lit = lit(l);
            let mut clears = Vec::new();
            for &r in &layer.relations {
                if let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation {
                    for m in (0..modes.len()).filter(|&m| self.has_memo(r, m)) {
                        let memo = Self::memo(r, m);
                        clears.push(quote!(self.#memo.clear();));
                    }
                } else if Some(r) == self.next_rel {
                    clears.push(quote!(self.next_bits = State::default();));
                } else if self.has_store(r) {
                    let store = Self::store(r);
                    clears.push(quote!(self.#store.clear();));
                    for copy in self.bit_copies(r) {
                        let field = copy.field;
                        clears.push(quote!(self.#field.clear();));
                    }
                }
            }
            let reset = if evaluation == LayerEvaluation::Demand {
                quote!(#(#clears)*)
            } else {
                quote! {
                    if self.computed[#l_lit] {
                        self.computed[#l_lit] = false;
                        #(#clears)*
                    }
                }
            };
            forget_state.push(reset.clone());
            if layer.phase == Phase::Move {
                forget_move.push(reset);
            }
        }

        let mut entry_arms = Vec::new();
        let mut next_steps = quote!();
        for (entry, cone) in &ir.cones {
            let variant = Ident::new(&format!("{entry:?}"), MacroSpan::call_site());
            let Some(relation) = ir.keyword(entry.keyword()) else {
                continue;
            };
            let is_next = Some(relation) == self.next_rel;
            if !is_next && !self.has_store(relation) {
                return Err(backend_error(format!(
                    "the entry relation `{}` has no store",
                    ir.relation(relation).key()
                )));
            }
            let store = Self::store(relation);
            let steps = cone
                .iter()
                .filter(|&&l| {
                    matches!(
                        self.plan.layers[l].evaluation,
                        LayerEvaluation::Once | LayerEvaluation::Fixpoint
                    ) && self.plan.layers[l].tree.is_some()
                })
                .map(|&l| {
                    let name = format_ident!("layer{}", l);
                    let l_lit = lit(l);
                    quote! {
                        if !self.computed[#l_lit] {
                            self.computed[#l_lit] = true;
                            self.#name(input);
                        }
                    }
                });
            if is_next {
                next_steps = quote!(#(#steps)*);
                continue;
            }
            entry_arms.push(quote! {
                rt::Entry::#variant => {
                    #(#steps)*
                    Some(&self.#store)
                }
            });
        }

        // A `next` computed at compile time (its rules depend on nothing) is a constant.
        let next_body = match self
            .next_rel
            .map(|r| &self.plan.relations[r.0 as usize].evaluation)
        {
            Some(Evaluation::Static(tuples)) => {
                let sets = tuples
                    .iter()
                    .map(|tuple| {
                        let args: Vec<Arg> = tuple.iter().map(|&s| Arg::Sym(s)).collect();
                        self.next_accept(&args)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                quote! {
                    self.next_bits = State::default();
                    #(#sets)*
                    self.next_bits.clone()
                }
            }
            _ => quote! {
                #next_steps
                self.next_bits.clone()
            },
        };
        let tables: Vec<TokenStream> = self.tables.borrow().values().cloned().collect();
        // Read after every layer and mode is emitted.
        let state_list = self.state_list.get().then(|| {
            quote!(
                const STATE_LIST: bool = true;
            )
        });
        let legal_order = self.legal_in_text_order().then(|| {
            quote!(
                const LEGAL_IN_TEXT_ORDER: bool = true;
            )
        });
        let allow = quote!(#[allow(
            dead_code,
            unused_variables,
            unused_mut,
            unused_labels,
            unused_parens,
            unreachable_code,
            unreachable_patterns,
            non_snake_case,
            clippy::all,
            clippy::pedantic,
            clippy::nursery
        )]);
        let words_doc = format!("Words of state bits ({} bits).", self.state_bits);
        let mut listed = BTreeSet::new();
        let code = [&methods, &entry_arms, &forget_state, &forget_move];
        for tokens in code.into_iter().flatten().chain([&next_body]) {
            find_list_readers(tokens, &mut listed);
        }
        for (field_at, init_at, name, bits) in bit_sets {
            (fields[field_at], inits[init_at]) = if listed.contains(&name.to_string()) {
                (
                    quote!(#name: rt::BitSet),
                    quote!(#name: rt::BitSet::new(#bits)),
                )
            } else {
                (
                    quote!(#name: rt::UnlistedBitSet),
                    quote!(#name: rt::BitSet::unlisted(#bits)),
                )
            };
        }
        Ok(quote! {
            use gdlc_runtime::compiled::{self as rt, Sym, NONE};

            #[doc = #words_doc]
            pub const WORDS: usize = #words;
            /// The reasoner of the game.
            pub type Reasoner = rt::Compiled<Rules, WORDS>;
            /// A state of the game: one bit per possible fluent.
            pub type State = rt::Bits<WORDS>;
            type Input = rt::Input<WORDS>;

            /// A new reasoner of the game.
            pub fn new() -> Reasoner {
                Reasoner::new()
            }

            /// The game's tables.
            pub static META: rt::Meta = rt::Meta {
                source: #source,
                symbols: &[#(#symbols),*],
                roles: &[#(#roles),*],
                role_names: &[#(#role_names),*],
                true_paths: #true_paths,
                fluents: #fluents,
                legal_paths: #legal_paths,
                moves: #moves,
                goal_paths: #goal_paths,
                sees_paths: #sees_paths,
            };

            #(#[allow(dead_code)] #statics)*
            #(#[allow(dead_code)] #tables)*

            /// The rules of the game: a store per derived relation, the filter trees as
            /// code.
            #allow
            #[derive(Clone, Debug)]
            pub struct Rules {
                computed: [bool; #num_layers_lit],
                pending: Vec<Sym>,
                grew: bool,
                fixpoints: rt::Fixpoints,
                next_bits: State,
                #(#fields,)*
            }

            #allow
            impl rt::Rules<WORDS> for Rules {
                const META: &'static rt::Meta = &META;
                #state_list
                #legal_order

                fn new() -> Self {
                    Rules {
                        computed: [#(#computed_init),*],
                        pending: Vec::new(),
                        grew: false,
                        fixpoints: rt::Fixpoints::default(),
                        next_bits: State::default(),
                        #(#inits,)*
                    }
                }

                fn forget(&mut self, changed: rt::Changed) {
                    match changed {
                        rt::Changed::State => { #(#forget_state)* }
                        rt::Changed::Move => { #(#forget_move)* }
                    }
                }

                fn entry(&mut self, input: &Input, entry: rt::Entry) -> Option<&rt::Store> {
                    match entry {
                        #(#entry_arms)*
                        _ => None,
                    }
                }

                fn next(&mut self, input: &Input) -> State {
                    #next_body
                }
            }

            #allow
            impl Rules {
                #(#methods)*
            }
        })
    }

    /// The methods of a known mode (see [`Self::known_mode`]): `holds_r_m` evaluates
    /// the rules for a key and returns at the first answer; `ask_r_m` remembers it.
    fn known_methods(
        &self,
        r: RelationId,
        m: usize,
        tree: &Node,
    ) -> Result<Vec<TokenStream>, Diagnostic> {
        let memo = Self::memo(r, m);
        let holds = format_ident!("holds{}_{}", r.0, m);
        let ask = format_ident!("ask{}_{}", r.0, m);
        let body = self.node(tree, Sink::Known(r.0 as usize, m))?;
        let doc = format!(
            "Whether `{}` holds for `key` (every column bound).",
            self.ir.relation(r).key()
        );
        let holds_fn = quote! {
            #[doc = #doc]
            fn #holds(&mut self, input: &Input, key: &[Sym]) -> bool {
                #body
                false
            }
        };
        if !self.known_memoised(r, m) {
            return Ok(vec![
                holds_fn,
                quote! {
                    /// Whether a call's key holds (cheap enough to evaluate at every ask).
                    #[inline]
                    fn #ask(&mut self, input: &Input, key: &[Sym]) -> bool {
                        self.#holds(input, key)
                    }
                },
            ]);
        }
        Ok(vec![
            holds_fn,
            quote! {
                /// Whether a call's key holds, evaluated if not known.
                fn #ask(&mut self, input: &Input, key: &[Sym]) -> bool {
                    if let Some(holds) = self.#memo.find(key) {
                        return holds;
                    }
                    let holds = self.#holds(input, key);
                    self.#memo.insert(key, holds);
                    holds
                }
            },
        ])
    }

    /// Whether a rule body reads `relation` (a query or a negated query on it).
    fn reads(node: &Node, relation: RelationId) -> bool {
        match node {
            Node::Sequence(children) => children.iter().any(|c| Self::reads(c, relation)),
            Node::Repeat(body) | Node::Rule { body, .. } => Self::reads(body, relation),
            Node::SemiNaive {
                initial, rounds, ..
            } => Self::reads(initial, relation) || Self::reads(rounds, relation),
            Node::Accept { .. } => false,
            Node::If { test, then } => {
                matches!(test, Test::Absent(q) if q.relation == relation)
                    || Self::reads(then, relation)
            }
            Node::Query { query, then } => {
                query.relation == relation || Self::reads(then, relation)
            }
        }
    }

    /// The statement running `insert` (an expression: whether it added a tuple), noting
    /// in `self.grew` that it did only inside a [`Node::Repeat`], whose rounds read it.
    fn growing(&self, insert: TokenStream) -> TokenStream {
        if self.repeats.get() > 0 {
            quote!(self.grew |= #insert;)
        } else {
            quote!(#insert;)
        }
    }

    /// Adds an accepted tuple straight to its relation's store: bitset relations get
    /// the bit numbered here (from decoded positions where the variables have them).
    fn direct_insert(&self, relation: RelationId, args: &[Arg]) -> TokenStream {
        let store = Self::store(relation);
        let values: Vec<TokenStream> = args.iter().map(|&a| Self::value(a)).collect();
        // A store without rows (`Store::without_rows`) keeps a tuple as its bit alone:
        // no tuple to build for it.
        let row: &[TokenStream] = if self.rows_unread(relation) {
            &[]
        } else {
            &values
        };
        if let Some(bit) = self.coded_bit(relation, args) {
            if self.bits_alone(relation) {
                return self.growing(quote!(self.#store.insert_unlisted_bit(#bit)));
            }
            return self.growing(quote!(self.#store.insert_bit(#bit, &[#(#row),*])));
        }
        let Some(numbered) = self.numbered_columns(relation) else {
            return self.growing(quote!(self.#store.insert(&[#(#values),*])));
        };
        let Some(bit) = self.bit_of_args(relation, &numbered, args) else {
            return quote!(panic!("gdlc internal error: a tuple outside the domains of its relation"););
        };
        if self.bit_columns(relation).is_none() {
            return self.growing(quote!(self.#store.insert_bit(#bit, &[#(#row),*])));
        }
        let copies = self.bit_copies(relation);
        if copies.is_empty() {
            return self.growing(quote!(self.#store.insert(#bit)));
        }
        let mut inserts = Vec::new();
        for copy in &copies {
            let field = &copy.field;
            let bit = self
                .bit_of_args(relation, &copy.numbered, args)
                .expect("the same domains as the relation's bits");
            inserts.push(quote!(self.#field.insert(#bit);));
        }
        quote! {
            if self.#store.insert(#bit) {
                self.grew = true;
                #(#inserts)*
            }
        }
    }

    /// A rule body that is one scan of a materialised relation and then the head, a
    /// relation other than the scanned one, `next` and any relation with copies of its
    /// bits: the scan, the head and its arguments (what [`Self::bits_copied`] and
    /// [`Self::bits_mapped`] copy).
    fn relation_copy<'n>(&self, body: &'n Node) -> Option<(&'n Query, RelationId, &'n [Arg])> {
        let Node::Query { query, then } = body else {
            return None;
        };
        let Node::Accept { relation, args } = then.as_ref() else {
            return None;
        };
        let (head, source) = (*relation, query.relation);
        if head == source
            || Some(head) == self.next_rel
            || query.access != Access::Scan
            || self.plan.relations[source.0 as usize].evaluation != Evaluation::Materialised
            || !self.bit_copies(head).is_empty()
        {
            return None;
        }
        Some((query, head, args))
    }

    /// A rule that copies one bits-only relation into another numbered alike
    /// (`(<= (queen ?a ?b ?c ?d) (rook ?a ?b ?c ?d))`, the same variables in the same
    /// columns, over the same domains): the source's bits are set in the head as they
    /// are, a word at a time (every word of a narrow relation, else the words that hold
    /// a bit), rather than decoded into positions and numbered again. `None` for any
    /// other rule.
    fn bits_copied(&self, body: &Node) -> Option<TokenStream> {
        let (query, head, args) = self.relation_copy(body)?;
        let source = query.relation;
        if args.len() != query.slots.len() {
            return None;
        }
        let same_columns = query
            .slots
            .iter()
            .zip(args)
            .all(|(slot, arg)| matches!((slot, arg), (Slot::Bind(v), Arg::Var(w)) if v == w));
        let numbered = self.bit_columns(head)?;
        if !same_columns || self.bit_columns(source)? != numbered {
            return None;
        }
        let (head, source) = (Self::store(head), Self::store(source));
        let size = numbered
            .first()
            .map_or(1, |(_, stride, domain)| stride * domain.len());
        if size <= STORE_LIST_SCAN_BITS {
            // A few words: each copied whole, its new bits listed.
            let fields = (0..size).step_by(64).map(|lo| {
                let n = lit((size - lo).min(64));
                let lo = lit(lo);
                quote!(self.grew |= self.#head.or_field(#lo, self.#source.field(#lo, #n)) != 0;)
            });
            return Some(quote!({ #(#fields)* }));
        }
        // Else the words that hold a bit, each copied whole.
        Some(quote! {
            for i in 0..self.#source.nonzero_words() {
                let word = self.#source.nonzero_word(i);
                self.grew |= self.#head.or_field(word * 64, self.#source.word(word)) != 0;
            }
        })
    }

    /// A rule that copies one bits-only relation into another numbered otherwise
    /// (`(<= (rook ?a ?b ?c ?d) (horizontal ?c ?d ?a ?b))`: its columns in another
    /// order, over other domains, some of them only, or with constants in the head): each of the source's
    /// bits maps to the head's bit through a constant table made here
    /// (`BIT_MAP_<hash>_<len>`, `u32::MAX` where the head's domains lack a value), so a
    /// tuple costs a load and an insert rather than being decoded into positions and
    /// numbered again. Only for sources of at most [`MAX_MAPPED_BITS`] bits, heads
    /// without copies, and rules a word join does not take (the source's last column
    /// numbered last in the head too). `None` for any other rule.
    fn bits_mapped(&self, body: &Node) -> Option<TokenStream> {
        let (query, head, args) = self.relation_copy(body)?;
        let source = query.relation;
        // Every source column binds its own variable.
        let mut column_of = BTreeMap::new();
        for (c, slot) in query.slots.iter().enumerate() {
            let Slot::Bind(v) = slot else {
                return None;
            };
            if column_of.insert(*v, c).is_some() {
                return None;
            }
        }
        let from = self.bit_columns(source)?;
        let to = self.bit_columns(head)?;
        let size = from
            .first()
            .map_or(1, |(_, stride, domain)| stride * domain.len());
        if size > MAX_MAPPED_BITS || to.len() != args.len() {
            return None;
        }
        // Each head column: the source column whose value it takes, or a constant.
        let mut values = Vec::with_capacity(args.len());
        for arg in args {
            values.push(match arg {
                Arg::Var(v) => Err(*column_of.get(v)?),
                Arg::Sym(s) => Ok(*s),
            });
        }
        let (&(last_from, ..), &(last_to, ..)) = (from.last()?, to.last()?);
        if values[last_to] == Err(last_from) {
            return None;
        }
        let map: Vec<u32> = (0..size)
            .map(|bit| {
                let symbol = |c: usize| {
                    let (_, stride, domain) = &from[c];
                    domain[(bit / stride) % domain.len()]
                };
                let mut target = 0usize;
                for (c, (_, stride, domain)) in to.iter().enumerate() {
                    let value = match values[c] {
                        Err(source_column) => symbol(source_column),
                        Ok(constant) => constant,
                    };
                    match domain.iter().position(|&d| d == value) {
                        Some(p) => target += p * stride,
                        None => return u32::MAX,
                    }
                }
                u32::try_from(target).unwrap_or(u32::MAX)
            })
            .collect();
        // FNV-1a over the map, as for the domains' tables: the name follows the
        // contents, so the output stays deterministic.
        let hash = fnv1a(map.iter().flat_map(|m| m.to_le_bytes()));
        let table = format_ident!("BIT_MAP_{:016X}_{}", hash, map.len());
        let len = lit(map.len());
        let entries = map.iter().map(|&m| Literal::u32_unsuffixed(m));
        self.tables.borrow_mut().insert(
            table.to_string(),
            quote! {
                #[doc = "Each bit of a relation's bits mapped to another relation's bit (`u32::MAX`: none)."]
                static #table: [u32; #len] = [#(#entries),*];
            },
        );
        let (head, source) = (Self::store(head), Self::store(source));
        Some(quote! {
            for i in 0..self.#source.nonzero_words() {
                let word = self.#source.nonzero_word(i);
                let mut rest = self.#source.word(word);
                while rest != 0 {
                    let to = #table[word * 64 + rest.trailing_zeros() as usize];
                    rest &= rest - 1;
                    if to != u32::MAX {
                        self.grew |= self.#head.insert(to as usize);
                    }
                }
            }
        })
    }

    /// The last join of a rule that copies every tuple of a coded relation into a coded
    /// head without rows under outer columns already bound (`(<= (legal ?c ?m) (true
    /// (control ?c)) (mover-move ?m))`), when the source's blocks are the head's, laid
    /// out alike: the head's bit of a tuple is then the source's bit plus the bound
    /// columns' offset, and the source's bits are added at that offset as they are,
    /// rather than each row decoded and numbered again. `None` for any other join.
    fn coded_copy(&self, query: &Query, then: &Node, sink: Sink) -> Option<TokenStream> {
        if !matches!(sink, Sink::Layer) || !self.direct.get() {
            return None;
        }
        self.copied_bits(query, then)
    }

    /// The last join of a rule over one variable's positions as a word (`(<= (reach ?s
    /// ?t) … (sweep ?s ?dir ?t) (not (colour-on ?t ?c)))` once `?s`, `?dir` and `?c`
    /// are bound): a scan of a bits-only relation whose column numbered last binds
    /// `?t`, followed only by tests and an insert into a bits-only head. A test of a
    /// bits-only relation with `?t`'s column numbered last (in its bits or a copy of
    /// them in another column order), its other columns known, is a mask; a test not
    /// reading `?t` guards the word. The matches are then a word: the scanned field,
    /// and-ed with each mask (negated for `not`), or-ed into the head's field (`?t`'s
    /// column numbered last there too), the head's copies set bit by bit from what was
    /// new. When the scan binds the other columns too (the whole relation), it runs
    /// once per field that has a bit, those columns decoded from where it sits: found
    /// through the words that hold a bit when fields do not straddle words (then the
    /// scan needs no list of the bits set), else through the list.
    /// `None` for any other join.
    fn word_join(
        &self,
        query: &Query,
        then: &Node,
        sink: Sink,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        if !matches!(sink, Sink::Layer)
            || !self.direct.get()
            || !matches!(query.access, Access::Scan | Access::Index(_))
        {
            return Ok(None);
        }
        let binds: Vec<VarId> = (query.slots.iter())
            .filter_map(|slot| match slot {
                Slot::Bind(v) => Some(*v),
                _ => None,
            })
            .collect();
        let source = query.relation;
        let state_scan = if binds.len() > 1 && Some(source) == self.true_rel {
            match self.state_word_scan(&query.slots) {
                Some(scan) => Some(scan),
                None => return Ok(None),
            }
        } else {
            None
        };
        // A whole static relation (`(cell ?x ?y)`): its columns but the last
        // enumerated over their values, the last one's a word of a constant table.
        let static_scan = if binds.len() > 1 && state_scan.is_none() {
            self.static_word_scan(query, &binds)
        } else {
            None
        };
        let whole = binds.len() > 1 && state_scan.is_none() && static_scan.is_none();
        let v = if let Some(scan) = &state_scan {
            scan.v
        } else if let Some(scan) = &static_scan {
            scan.v
        } else if whole {
            // Every column bound here, to distinct variables; the last one's is the word's.
            let Some(numbered) = self.bit_columns(source) else {
                return Ok(None);
            };
            let distinct: BTreeSet<VarId> = binds.iter().copied().collect();
            if binds.len() != query.slots.len() || distinct.len() != binds.len() {
                return Ok(None);
            }
            match (numbered.last(), query.access == Access::Scan) {
                (Some(&(c, 1, _)), true) => match query.slots[c] {
                    Slot::Bind(v) => v,
                    _ => return Ok(None),
                },
                _ => return Ok(None),
            }
        } else if let [v] = binds[..] {
            v
        } else {
            return Ok(None);
        };
        let Some(width) = self.decoded.borrow().get(&v).map(Vec::len) else {
            return Ok(None);
        };
        if width == 0 || width > 64 {
            return Ok(None);
        }
        let (source_words, source_lo) = if let Some(scan) = &state_scan {
            let Some(start) = self.run_start(v, &scan.lane) else {
                return Ok(None);
            };
            let start = lit(start);
            let lo = &scan.lo;
            (WordSource::State, quote!(#lo + #start))
        } else if let Some(scan) = &static_scan {
            (scan.source.clone(), scan.lo.clone())
        } else if whole {
            (WordSource::Store(Self::store(source)), quote!(offset))
        } else {
            match self.word_field(source, &query.slots, v) {
                Some(field) => field,
                None => return Ok(None),
            }
        };
        let n = lit(width);
        let source_field = source_words.field(&source_lo, &n);
        let mut sources = vec![source_words];
        let Some(TestsThenAccept { tests, head, args }) = Self::tests_then_accept(then) else {
            return Ok(None);
        };
        let mut masks = Vec::new();
        let mut guards = Vec::new();
        for (test, negated) in tests {
            if !test.slots.contains(&Slot::Bound(v)) {
                guards.push((test, negated));
            } else {
                if (test.relation == source && Some(source) != self.true_rel)
                    || self.is_demand(test.relation)
                {
                    return Ok(None);
                }
                let Some((words, lo)) = self.word_field(test.relation, &test.slots, v) else {
                    return Ok(None);
                };
                let field = words.field(&lo, &n);
                sources.push(words);
                masks.push(if negated {
                    quote!(w &= !#field;)
                } else {
                    quote!(w &= #field;)
                });
            }
        }
        if head == source
            || Self::reads(then, head)
            || args.iter().filter(|a| **a == Arg::Var(v)).count() != 1
        {
            return Ok(None);
        }
        let or_head = if Some(head) == self.next_rel {
            self.word_into_next(args, v)
        } else {
            self.word_into(head, args, v)
        };
        let Some(or_head) = or_head else {
            return Ok(None);
        };
        for source in sources {
            if let WordSource::Static {
                table,
                definition: Some(definition),
            } = source
            {
                self.tables
                    .borrow_mut()
                    .entry(table.to_string())
                    .or_insert(definition);
            }
        }
        let mut code = quote! {
            {
                let mut w: u64 = #source_field;
                #(#masks)*
                if w != 0 {
                    #or_head
                }
            }
        };
        for (test, negated) in guards.into_iter().rev() {
            code = if negated {
                let exists = self.exists(test, sink)?;
                quote!({ #exists if !exists { #code } })
            } else {
                self.query(test, code, sink)?
            };
        }
        // A scan of the state or of a static relation: its other columns enumerated.
        let enumerated = (state_scan.map(|scan| scan.enumerated))
            .or_else(|| static_scan.map(|scan| scan.enumerated));
        if let Some(enumerated) = enumerated {
            let enumerated = enumerated.iter().map(|(u, d)| (*u, d.as_slice()));
            return Ok(Some(self.for_each_position(enumerated, code)));
        }
        if !whole {
            return Ok(Some(code));
        }
        let numbered = self.bit_columns(source).expect("checked above");
        let decodes = numbered[..numbered.len() - 1]
            .iter()
            .map(|(c, stride, domain)| {
                let Slot::Bind(u) = query.slots[*c] else {
                    unreachable!("every column is bound here")
                };
                let (p, value) = (var_position(u), var(u));
                let table = self.domain_table(domain);
                let (stride, radix) = (lit(*stride), lit(domain.len()));
                quote! {
                    let #p: usize = (offset / #stride) % #radix;
                    let #value: Sym = #table[#p];
                }
            });
        let field = format_ident!("field");
        let body = quote! {
            let offset = field * #n;
            #(#decodes)*
            #code
        };
        Ok(Some(for_each_field_with_a_bit(
            &Self::store(source),
            width,
            &field,
            body,
        )))
    }

    /// For [`Self::word_join`], a scan of a whole static relation, every column bound
    /// here to a distinct variable (`binds`): the variable of the last column is the
    /// word's, its field a constant table's (`Self::static_word_field`) at the
    /// positions of the other columns' variables, which are enumerated over their
    /// column's values (at most [`MAX_ENUMERATED_FIELDS`] combinations). `(cell ?x
    /// ?y)` before tests of the state's squares: ten words of ten squares, not a
    /// hundred rows.
    fn static_word_scan(&self, query: &Query, binds: &[VarId]) -> Option<StaticWordScan> {
        let Evaluation::Static(tuples) = &self.plan.relations[query.relation.0 as usize].evaluation
        else {
            return None;
        };
        let distinct: BTreeSet<VarId> = binds.iter().copied().collect();
        if query.access != Access::Scan
            || binds.len() != query.slots.len()
            || distinct.len() != binds.len()
        {
            return None;
        }
        let (&v, others) = binds.split_last()?;
        let enumerated: Vec<(VarId, Vec<SymbolId>)> = others
            .iter()
            .enumerate()
            .map(|(c, &u)| (u, static_values(tuples, c)))
            .collect();
        let mut combinations = 1usize;
        for (u, values) in &enumerated {
            // The enumeration numbers each variable by its column's values, as the
            // static query would have decoded it.
            if self.decoded.borrow().get(u) != Some(values) {
                return None;
            }
            combinations = combinations.checked_mul(values.len())?;
        }
        if combinations > MAX_ENUMERATED_FIELDS {
            return None;
        }
        let mut slots = query.slots.clone();
        for slot in &mut slots[..others.len()] {
            if let Slot::Bind(u) = *slot {
                *slot = Slot::Bound(u);
            }
        }
        let (source, lo) = self.static_word_field(query.relation, tuples, &slots, v)?;
        Some(StaticWordScan {
            v,
            source,
            lo,
            enumerated,
        })
    }

    /// The local copy of the words of relation `r`'s set `store` (`size` bits) that a
    /// test in the layer method being emitted may read instead of the set, when the
    /// set is an earlier layer's and small ([`Snapshots`]).
    fn snapshot_of(&self, r: RelationId, store: &Ident, size: usize) -> Option<(Ident, usize)> {
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

    /// The rest of a rule after a join when it is only tests (each with whether it is
    /// negated) and then the head (`None` otherwise): what [`Self::word_join`] can run
    /// on a word.
    fn tests_then_accept(then: &Node) -> Option<TestsThenAccept<'_>> {
        let mut tests = Vec::new();
        let mut node = then;
        loop {
            let (test, negated, next) = match node {
                Node::If {
                    test: Test::Absent(test),
                    then,
                } => (test, true, then),
                Node::Query { query: test, then }
                    if test
                        .slots
                        .iter()
                        .all(|s| matches!(s, Slot::Sym(_) | Slot::Bound(_))) =>
                {
                    (test, false, then)
                }
                Node::Accept { relation, args } => {
                    return Some(TestsThenAccept {
                        tests,
                        head: *relation,
                        args,
                    });
                }
                _ => return None,
            };
            tests.push((test, negated));
            node = next;
        }
    }

    /// For [`Self::word_join`]: `w` or-ed into `head`'s field of variable `v`'s values
    /// (its column numbered last, the others known from `args`), the head's copies set
    /// from the new bits. When the head's bits number another column last but a copy
    /// of them numbers `v`'s (`colour-on ?s ?c`, copied colour first for the lookups
    /// knowing the colour), the word goes into that copy and the new bits into the
    /// head's bits and its other copies one by one.
    fn word_into(&self, head: RelationId, args: &[Arg], v: VarId) -> Option<TokenStream> {
        let numbered = self.bit_columns(head)?;
        let column = args.iter().position(|a| *a == Arg::Var(v))?;
        let lane_last = |numbered: &[(usize, usize, Vec<SymbolId>)]| {
            let (last, rest) = numbered.split_last()?;
            (last.0 == column && last.1 == 1).then_some(())?;
            Some((self.run_start(v, &last.2)?, rest.to_vec()))
        };
        let copies = self.bit_copies(head);
        let main = Self::store(head);
        // The bits or-ed as a word (the head's or a copy's) and the sets (the field,
        // its numbering) then set bit by bit.
        let (word_set, start, rest, bitwise) = match lane_last(&numbered) {
            Some((start, rest)) => {
                let bitwise: Vec<_> = copies
                    .iter()
                    .map(|c| (c.field.clone(), c.numbered.clone()))
                    .collect();
                (main, start, rest, bitwise)
            }
            None => {
                let (i, (start, rest)) = copies
                    .iter()
                    .enumerate()
                    .find_map(|(i, c)| Some((i, lane_last(&c.numbered)?)))?;
                let mut bitwise = vec![(main, numbered.clone())];
                bitwise.extend(
                    copies
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(_, c)| (c.field.clone(), c.numbered.clone())),
                );
                (copies[i].field.clone(), start, rest, bitwise)
            }
        };
        let mut lo = if rest.is_empty() {
            quote!(0)
        } else {
            self.bit_of_args(head, &rest, args)?
        };
        if start > 0 {
            let start = lit(start);
            lo = quote!(#lo + #start);
        }
        let copied = if bitwise.is_empty() {
            quote!()
        } else {
            let (p, value) = (var_position(v), var(v));
            let table = self.domain_table(self.decoded.borrow().get(&v)?);
            let mut inserts = Vec::new();
            for (field, numbered) in &bitwise {
                let bit = self.bit_of_args(head, numbered, args)?;
                inserts.push(quote!(self.#field.insert(#bit);));
            }
            quote! {
                let mut rest = fresh;
                while rest != 0 {
                    let #p: usize = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let #value: Sym = #table[#p];
                    #(#inserts)*
                }
            }
        };
        Some(quote! {
            let fresh = self.#word_set.or_field(#lo, w);
            if fresh != 0 {
                self.grew = true;
                #copied
            }
        })
    }

    /// For [`Self::word_join`] into `next` (a frame axiom filtered per square, `(<= (next
    /// (cell ?s ?c ?p)) (true (cell ?s ?c ?p)) (not (changed ?s)))`): `w` or-ed into
    /// the next state's field of variable `v`'s values, when the head's functor block
    /// numbers `v`'s column last and every other column holds a symbol of its domain or
    /// a variable whose position is known.
    fn word_into_next(&self, args: &[Arg], v: VarId) -> Option<TokenStream> {
        let Some(Arg::Sym(functor)) = args.first().copied() else {
            return None;
        };
        let block = self.blocks.iter().find(|b| b.symbol == functor)?;
        if block.keys.is_some() {
            return None;
        }
        let column = args.iter().position(|a| *a == Arg::Var(v))?;
        let (last, rest) = block.columns.split_last()?;
        if last.0 != column || last.1 != 1 {
            return None;
        }
        let start = lit(block.base + self.run_start(v, &last.2)?);
        let mut terms = vec![quote!(#start)];
        for (c, stride, domain) in rest {
            let stride = lit(*stride);
            let p = match args[*c] {
                Arg::Sym(s) => {
                    let p = lit(domain.iter().position(|&d| d == s)?);
                    quote!(#p)
                }
                Arg::Var(u) => self.known_position(u, domain)?,
            };
            terms.push(quote!(#p * #stride));
        }
        Some(quote!(self.next_bits.or_field(#(#terms)+*, w);))
    }

    /// For [`Self::word_join`]: the store (a bits-only relation's or one of its copies)
    /// in which variable `v`'s one column of `slots` is numbered last, every other
    /// column holding a symbol of its domain or a variable with a known position, and
    /// the bit where the field of `v`'s values starts. A static relation's bits in
    /// that order are a constant table (`Self::static_word_field`).
    fn word_field(
        &self,
        r: RelationId,
        slots: &[Slot],
        v: VarId,
    ) -> Option<(WordSource, TokenStream)> {
        if let Evaluation::Static(tuples) = &self.plan.relations[r.0 as usize].evaluation {
            return self.static_word_field(r, tuples, slots, v);
        }
        if Some(r) == self.true_rel {
            // A test of `v`'s value reads the field of all its values (the mask).
            let slots: Vec<Slot> = (slots.iter())
                .map(|&slot| match slot {
                    Slot::Bound(w) if w == v => Slot::Bind(v),
                    slot => slot,
                })
                .collect();
            let scan = self.state_word_scan(&slots)?;
            if scan.v != v || !scan.enumerated.is_empty() {
                return None;
            }
            let start = lit(self.run_start(v, &scan.lane)?);
            let lo = scan.lo;
            return Some((WordSource::State, quote!(#lo + #start)));
        }
        if !matches!(
            self.plan.relations[r.0 as usize].evaluation,
            Evaluation::Materialised
        ) || slots
            .iter()
            .filter(|s| matches!(s, Slot::Bind(w) | Slot::Bound(w) if *w == v))
            .count()
            != 1
        {
            return None;
        }
        let mut numberings = vec![(Self::store(r), self.bit_columns(r)?)];
        numberings.extend(
            self.bit_copies(r)
                .into_iter()
                .map(|copy| (copy.field, copy.numbered)),
        );
        'numbering: for (store, numbered) in numberings {
            let Some(((c, 1, domain), rest)) = numbered.split_last() else {
                continue;
            };
            if !matches!(slots[*c], Slot::Bind(w) | Slot::Bound(w) if w == v) {
                continue;
            }
            let Some(start) = self.run_start(v, domain) else {
                continue;
            };
            let mut terms = vec![quote!(0)];
            for (c, stride, domain) in rest {
                let p = match slots[*c] {
                    Slot::Sym(s) => {
                        let Some(p) = domain.iter().position(|&d| d == s) else {
                            continue 'numbering;
                        };
                        let p = lit(p);
                        quote!(#p)
                    }
                    Slot::Bound(w) => {
                        let Some(p) = self.known_position(w, domain) else {
                            continue 'numbering;
                        };
                        p
                    }
                    _ => continue 'numbering,
                };
                let stride = lit(*stride);
                terms.push(quote!(#p * #stride));
            }
            let start = lit(start);
            return Some((WordSource::Store(store), quote!(#(#terms)+* + #start)));
        }
        None
    }

    /// A query on `true` read a word at a time: its functor's block (dense) numbers
    /// the column of a variable `v` last, with stride 1, and every other column of
    /// the block holds a symbol, a variable with a known position, or a variable
    /// bound here only, over the whole domain the block numbers it by; the columns
    /// outside the block are nil or not looked at. Those bound here are enumerated
    /// (their domains multiply to at most [`MAX_ENUMERATED_FIELDS`]): `(true (cell ?s
    /// ?colour ?piece))` is the fields of squares of each colour and piece (a bit
    /// board each). `lo` is the first bit of `v`'s field, from the positions.
    fn state_word_scan(&self, slots: &[Slot]) -> Option<StateWordScan> {
        let true_rel = self.true_rel?;
        let top = self
            .ir
            .relation(true_rel)
            .columns
            .iter()
            .position(|c| c.path == [0])?;
        let Slot::Sym(functor) = *slots.get(top)? else {
            return None;
        };
        let block = self.blocks.iter().find(|b| b.symbol == functor)?;
        if block.keys.is_some() {
            return None;
        }
        let ((last, 1, lane), rest) = block.columns.split_last()? else {
            return None;
        };
        let Slot::Bind(v) = slots[*last] else {
            return None;
        };
        let occurrences = |u: VarId| {
            slots
                .iter()
                .filter(|s| matches!(s, Slot::Bind(w) | Slot::Bound(w) | Slot::Same(w) if *w == u))
                .count()
        };
        if occurrences(v) != 1 {
            return None;
        }
        for (c, slot) in slots.iter().enumerate() {
            let outside = c != top && !block.columns.iter().any(|(bc, _, _)| *bc == c);
            if outside && !matches!(slot, Slot::Sym(NIL) | Slot::Free) {
                return None;
            }
        }
        let base = lit(block.base);
        let mut terms = vec![quote!(#base)];
        let mut enumerated = Vec::new();
        let mut combinations: usize = 1;
        for (c, stride, domain) in rest {
            let stride_lit = lit(*stride);
            match slots[*c] {
                Slot::Sym(sym) => {
                    let p = lit(domain.iter().position(|&d| d == sym)?);
                    terms.push(quote!(#p * #stride_lit));
                }
                Slot::Bound(u) => {
                    let p = self.known_position(u, domain)?;
                    terms.push(quote!(#p * #stride_lit));
                }
                Slot::Bind(u) if occurrences(u) == 1 && self.run_start(u, domain) == Some(0) => {
                    combinations = combinations.saturating_mul(domain.len());
                    let p = var_position(u);
                    terms.push(quote!(#p * #stride_lit));
                    enumerated.push((u, domain.clone()));
                }
                _ => return None,
            }
        }
        (combinations <= MAX_ENUMERATED_FIELDS).then(|| StateWordScan {
            v,
            lane: lane.clone(),
            lo: quote!(#(#terms)+*),
            enumerated,
        })
    }

    /// [`Self::word_field`] of a static relation: its tuples' bits numbered with
    /// `v`'s column last and the others before it in their order, each over its
    /// column's values (`static_values`, the positions static queries bind), as a
    /// constant table `STATIC_FIELDS_<r>_<column>` (at most `MAX_STATIC_FIELD_BITS`):
    /// team chess's knight jumps from a square as a word of squares.
    fn static_word_field(
        &self,
        r: RelationId,
        tuples: &[Vec<SymbolId>],
        slots: &[Slot],
        v: VarId,
    ) -> Option<(WordSource, TokenStream)> {
        let is_v = |s: &Slot| matches!(s, Slot::Bind(w) | Slot::Bound(w) if *w == v);
        if slots.iter().filter(|s| is_v(s)).count() != 1 || tuples.is_empty() {
            return None;
        }
        let last = slots.iter().position(is_v)?;
        let lane = static_values(tuples, last);
        let start = self.run_start(v, &lane)?;
        let mut columns: Vec<(usize, Vec<SymbolId>)> = (0..slots.len())
            .filter(|&c| c != last)
            .map(|c| (c, static_values(tuples, c)))
            .collect();
        columns.push((last, lane));
        let mut strides = vec![1usize; columns.len()];
        for k in (0..columns.len() - 1).rev() {
            strides[k] = strides[k + 1].checked_mul(columns[k + 1].1.len())?;
        }
        let size = strides[0].checked_mul(columns[0].1.len())?;
        if size > MAX_STATIC_FIELD_BITS {
            return None;
        }
        let mut terms = vec![quote!(0)];
        for ((c, domain), stride) in columns.iter().zip(&strides).take(columns.len() - 1) {
            let p = match slots[*c] {
                Slot::Sym(s) => {
                    let p = lit(domain.iter().position(|&d| d == s)?);
                    quote!(#p)
                }
                Slot::Bound(w) => self.known_position(w, domain)?,
                _ => return None,
            };
            let stride = lit(*stride);
            terms.push(quote!(#p * #stride));
        }
        let table = format_ident!("STATIC_FIELDS_{}_{}", r.0, last);
        let mut definition = None;
        if !self.tables.borrow().contains_key(&table.to_string()) {
            let mut words = vec![0u64; size.div_ceil(64)];
            for row in tuples {
                let bit = dense_key(&columns, &strides, row);
                words[bit / 64] |= 1 << (bit % 64);
            }
            let len = lit(words.len());
            let values = words.iter().map(|&w| Literal::u64_unsuffixed(w));
            let doc = format!(
                "`{}`'s tuples as bits, column {last} numbered last (word joins read its fields).",
                self.ir.relation(r).key()
            );
            definition = Some(quote!(#[doc = #doc] static #table: [u64; #len] = [#(#values),*];));
        }
        let start = lit(start);
        Some((
            WordSource::Static { table, definition },
            quote!(#(#terms)+* + #start),
        ))
    }

    /// Whether variable `v` was decoded from values all in `domain` (sorted): its
    /// position there, looked up, needs no guard.
    fn decoded_within(&self, v: VarId, domain: &[SymbolId]) -> bool {
        (self.decoded.borrow().get(&v))
            .is_some_and(|from| from.iter().all(|s| domain.binary_search(s).is_ok()))
    }

    /// Where the values variable `v` was decoded from start in `domain`: 0 when they
    /// are the domain, else where their run sits in it ([`Self::known_position`]).
    fn run_start(&self, v: VarId, domain: &[SymbolId]) -> Option<usize> {
        let decoded = self.decoded.borrow();
        let from = decoded.get(&v)?;
        if from.as_slice() == domain {
            return Some(0);
        }
        let start = domain.binary_search(from.first()?).ok()?;
        (domain.get(start..start + from.len())? == from.as_slice()).then_some(start)
    }

    /// The copy [`Self::coded_copy`] emits for a join of a rule whose accepted tuples
    /// go straight to the head's store, if the join has its shape.
    fn copied_bits(&self, query: &Query, then: &Node) -> Option<TokenStream> {
        let Node::Accept { relation, args } = then else {
            return None;
        };
        let (head, source) = (*relation, query.relation);
        if head == source
            || Some(head) == self.next_rel
            || query.access != Access::Scan
            || self.plan.relations[source.0 as usize].evaluation != Evaluation::Materialised
            || !self.rows_unread(head)
        {
            return None;
        }
        let (from, to) = (self.coded_numbering(source)?, self.coded_numbering(head)?);
        if !from.outer.is_empty() {
            return None;
        }
        // Each source column's variable is the head's in one column.
        let mut head_column = Vec::with_capacity(query.slots.len());
        for slot in &query.slots {
            let Slot::Bind(v) = slot else {
                return None;
            };
            let at: Vec<usize> = (0..args.len())
                .filter(|&c| args[c] == Arg::Var(*v))
                .collect();
            let [c] = at[..] else {
                return None;
            };
            head_column.push(c);
        }
        let mapped_alike =
            |(c, stride, domain): &(usize, usize, Vec<SymbolId>),
             (d, their_stride, their_domain): &(usize, usize, Vec<SymbolId>)| {
                head_column[*c] == *d && stride == their_stride && domain == their_domain
            };
        let same_blocks = head_column[from.top] == to.top
            && from.blocks.iter().all(|block| {
                to.blocks.iter().any(|theirs| {
                    theirs.symbol == block.symbol
                        && theirs.base == block.base
                        && theirs.size == block.size
                        && block.keys.is_none()
                        && theirs.keys.is_none()
                        && block.columns.len() == theirs.columns.len()
                        && block
                            .columns
                            .iter()
                            .zip(&theirs.columns)
                            .all(|(a, b)| mapped_alike(a, b))
                })
            });
        let outer_columns: Vec<usize> = to.outer.iter().map(|(c, _)| *c).collect();
        let rest_outer = (0..args.len())
            .filter(|c| !head_column.contains(c))
            .eq(outer_columns.iter().copied());
        if !same_blocks || !rest_outer {
            return None;
        }
        let outer = to.outer_numbered();
        let offset = if outer.is_empty() {
            quote!(0)
        } else {
            self.bit_of_args(head, &outer, args)?
        };
        let (head, source) = (Self::store(head), Self::store(source));
        Some(quote! {
            self.grew |= self.#head.insert_bits_at(#offset, self.#source.row_bits());
        })
    }

    /// The bit of an accepted tuple of a relation with a coded numbering and a
    /// positions table (see [`Self::coded_positions`]) whose functor is a constant:
    /// the block's base plus the mixed-radix number of the other columns.
    fn coded_bit(&self, relation: RelationId, args: &[Arg]) -> Option<TokenStream> {
        if !self.coded_positions(relation) {
            return None;
        }
        let coded = self.coded_numbering(relation)?;
        let outer = coded.outer_numbered();
        let block_bit = |block: &FunctorBlock| {
            let mut numbered = outer.clone();
            numbered.extend(block.columns.iter().cloned());
            let bit = self.bit_of_args(relation, &numbered, args)?;
            let base = lit(block.base);
            Some(quote!(#base + #bit))
        };
        match args[coded.top] {
            Arg::Sym(functor) => block_bit(coded.blocks.iter().find(|b| b.symbol == functor)?),
            // The functor is known at run time only: one arm per block.
            Arg::Var(v) if coded.blocks.len() <= MAX_CODED_ARMS => {
                let v = var(v);
                let mut arms = Vec::new();
                for block in &coded.blocks {
                    let symbol = sym(block.symbol);
                    let bit = block_bit(block)?;
                    arms.push(quote!(#symbol => #bit,));
                }
                Some(quote!(match #v {
                    #(#arms)*
                    _ => panic!("gdlc internal error: a tuple outside the domains of its relation"),
                }))
            }
            Arg::Var(_) => None,
        }
    }

    /// The bit of an accepted tuple in bits numbered as `numbered`, from decoded
    /// positions where the variables have them; `None` when a symbol of `args` is
    /// outside its column's domain.
    fn bit_of_args(
        &self,
        relation: RelationId,
        numbered: &[(usize, usize, Vec<SymbolId>)],
        args: &[Arg],
    ) -> Option<TokenStream> {
        let table = Self::positions(relation);
        let num_symbols = self.ir.symbols.len();
        let mut terms = Vec::new();
        for (c, stride, domain) in numbered {
            let stride_lit = lit(*stride);
            match args[*c] {
                Arg::Sym(s) => {
                    let term = lit(domain.iter().position(|&d| d == s)? * stride);
                    terms.push(quote!(#term));
                }
                Arg::Var(v) => match self.known_position(v, domain) {
                    Some(p) => terms.push(quote!(#p * #stride_lit)),
                    None => {
                        let offset = lit(c * num_symbols);
                        let value = var(v);
                        let term = quote!(#table[#offset + #value as usize] as usize * #stride_lit);
                        terms.push(self.hoisted(v, term));
                    }
                },
            }
        }
        Some(quote!(#(#terms)+*))
    }

    /// The state block a `next` rule copies whole, if it is a frame axiom
    /// `(<= (next (f ?x…)) (true (f ?x…)))` over all of `f`'s columns.
    fn frame_block(&self, rule: &Node) -> Option<&FunctorBlock> {
        let Node::Rule { body, .. } = rule else {
            return None;
        };
        let Node::Query { query, then } = body.as_ref() else {
            return None;
        };
        let Node::Accept { relation, args } = then.as_ref() else {
            return None;
        };
        if Some(query.relation) != self.true_rel
            || Some(*relation) != self.next_rel
            || query.slots.len() != args.len()
        {
            return None;
        }
        let Some(Slot::Sym(functor)) = query.slots.first().copied() else {
            return None;
        };
        let block = self.blocks.iter().find(|b| b.symbol == functor)?;
        let same = query
            .slots
            .iter()
            .zip(args)
            .all(|(slot, arg)| match (slot, arg) {
                (Slot::Sym(s), Arg::Sym(a)) => s == a,
                (Slot::Bind(v), Arg::Var(a)) => v == a,
                _ => false,
            });
        let all_bound = block
            .columns
            .iter()
            .all(|(c, _, _)| matches!(query.slots[*c], Slot::Bind(_)));
        (same && all_bound).then_some(block)
    }

    /// The variables of a rule body bound by decoding bits (see [`Self::bits_query`]),
    /// with their domains.
    fn find_decoded(&self, node: &Node, out: &mut BTreeMap<VarId, Vec<SymbolId>>) {
        match node {
            Node::Sequence(children) => children.iter().for_each(|c| self.find_decoded(c, out)),
            Node::Repeat(body) | Node::Rule { body, .. } => self.find_decoded(body, out),
            Node::SemiNaive {
                initial, rounds, ..
            } => {
                self.find_decoded(initial, out);
                self.find_decoded(rounds, out);
            }
            Node::If { then, .. } => self.find_decoded(then, out),
            Node::Accept { .. } => {}
            Node::Query { query, then } => {
                let columns = if Some(query.relation) == self.true_rel {
                    match query.slots.first() {
                        Some(Slot::Sym(f)) => self
                            .blocks
                            .iter()
                            .find(|b| b.symbol == *f)
                            .map(|b| b.columns.clone()),
                        _ => None,
                    }
                } else if let Evaluation::Static(tuples) =
                    &self.plan.relations[query.relation.0 as usize].evaluation
                {
                    // A static query binds each variable with its position among its
                    // column's values (`static_values`).
                    Some(
                        (0..query.slots.len())
                            .map(|c| (c, 0, static_values(tuples, c)))
                            .collect(),
                    )
                } else if matches!(
                    query.access,
                    Access::Member | Access::Index(_) | Access::Scan | Access::Delta
                ) {
                    self.bit_columns(query.relation)
                } else {
                    None
                };
                for (c, _, domain) in columns.unwrap_or_default() {
                    if let Slot::Bind(v) = query.slots[c] {
                        out.insert(v, domain);
                    }
                }
                self.find_decoded(then, out);
            }
        }
    }

    /// The position of bound variable `v` in `domain` when it was decoded from that
    /// domain, or from one that is a run of it (the squares within the squares and
    /// nil: its position plus where the run starts), so no lookup is needed.
    fn known_position(&self, v: VarId, domain: &[SymbolId]) -> Option<TokenStream> {
        let p = var_position(v);
        Some(match self.run_start(v, domain)? {
            0 => quote!(#p),
            start => {
                let start = lit(start);
                quote!((#p + #start))
            }
        })
    }

    fn value(arg: Arg) -> TokenStream {
        match arg {
            Arg::Var(v) => {
                let v = var(v);
                quote!(#v)
            }
            Arg::Sym(s) => {
                let s = sym(s);
                quote!(#s)
            }
        }
    }

    fn node(&self, node: &Node, sink: Sink) -> Result<TokenStream, Diagnostic> {
        Ok(match node {
            Node::Sequence(children) => {
                let children = children
                    .iter()
                    .map(|c| self.node(c, sink))
                    .collect::<Result<Vec<_>, _>>()?;
                quote!(#(#children)*)
            }
            Node::Repeat(body) => {
                self.repeats.set(self.repeats.get() + 1);
                let body = self.node(body, sink);
                self.repeats.set(self.repeats.get() - 1);
                let body = body?;
                quote! {
                    loop {
                        self.grew = false;
                        #body
                        if !self.grew {
                            break;
                        }
                    }
                }
            }
            Node::SemiNaive {
                initial,
                rounds,
                relations,
            } => {
                let initial = self.node(initial, sink)?;
                if matches!(sink, Sink::Layer)
                    && let Some(closure) = self.word_closure(relations)
                {
                    let closure = self.word_closure_code(&closure);
                    return Ok(quote! {
                        #initial
                        #closure
                    });
                }
                let rounds = self.node(rounds, sink)?;
                let marks = relations.iter().map(|&r| {
                    let (delta, store) = (Self::delta(r), Self::store(r));
                    quote! {
                        let count = self.#store.len();
                        #delta = (#delta.1, count);
                        added |= #delta.0 < count;
                    }
                });
                let deltas = relations.iter().map(|&r| Self::delta(r));
                quote! {
                    #initial
                    #(let mut #deltas: (usize, usize) = (0, 0);)*
                    loop {
                        let mut added = false;
                        #(#marks)*
                        if !added {
                            break;
                        }
                        #rounds
                    }
                }
            }
            Node::Rule { rule, body, .. } => {
                if matches!(sink, Sink::Layer)
                    && let Some(copy) = self.bits_copied(body).or_else(|| self.bits_mapped(body))
                {
                    return Ok(copy);
                }
                let mut decoded = BTreeMap::new();
                self.find_decoded(body, &mut decoded);
                let head = self.ir.rules[*rule].head.relation;
                let arity = self.arity(head);
                let next_head = Some(head) == self.next_rel;
                if next_head && let Some(block) = self.frame_block(node) {
                    let lo = lit(block.base);
                    let hi = lit(block.base + block.size);
                    return Ok(quote!(self.next_bits.or_range(&input.state, #lo, #hi);));
                }
                // A `next` head sets bits of the next state, which no body reads: its
                // accepts are direct too (a word join may then or a word into it).
                let direct =
                    matches!(sink, Sink::Layer) && (next_head || self.inserts_directly(head, body));
                let outer = self.decoded.replace(decoded);
                let outer_direct = self.direct.replace(direct);
                let body = self.node(body, sink);
                self.decoded.replace(outer);
                self.direct.set(outer_direct);
                let body = body?;
                if direct {
                    return Ok(quote!({ #body }));
                }
                match sink {
                    Sink::Layer if arity > 0 && Some(head) != self.next_rel => {
                        let store = Self::store(head);
                        if let Some(numbered) = self.numbered_columns(head) {
                            let table = Self::positions(head);
                            let num_symbols = self.ir.symbols.len();
                            let bit_of = |numbered: &[(usize, usize, Vec<SymbolId>)]| {
                                let terms = numbered.iter().map(|(c, stride, _)| {
                                    let offset = lit(c * num_symbols);
                                    let c = lit(*c);
                                    let stride = lit(*stride);
                                    quote!(#table[#offset + tuple[#c] as usize] as usize * #stride)
                                });
                                quote!(#(#terms)+*)
                            };
                            let bit = bit_of(&numbered);
                            let arity = lit(arity);
                            let copies = self.bit_copies(head);
                            let insert = if self.bit_columns(head).is_none() {
                                quote!(self.grew |= self.#store.insert_bit(bit, tuple);)
                            } else if copies.is_empty() {
                                quote!(self.grew |= self.#store.insert(bit);)
                            } else {
                                let inserts = copies.iter().map(|copy| {
                                    let field = &copy.field;
                                    let bit = bit_of(&copy.numbered);
                                    quote!(self.#field.insert(#bit);)
                                });
                                quote! {
                                    if self.#store.insert(bit) {
                                        self.grew = true;
                                        #(#inserts)*
                                    }
                                }
                            };
                            return Ok(quote! {
                                {
                                    #body
                                }
                                {
                                    let pending = std::mem::take(&mut self.pending);
                                    for tuple in pending.chunks_exact(#arity) {
                                        let bit = #bit;
                                        #insert
                                    }
                                    self.pending = pending;
                                    self.pending.clear();
                                }
                            });
                        }
                        let arity = lit(arity);
                        quote! {
                            {
                                #body
                            }
                            {
                                let pending = std::mem::take(&mut self.pending);
                                for tuple in pending.chunks_exact(#arity) {
                                    self.grew |= self.#store.insert(tuple);
                                }
                                self.pending = pending;
                                self.pending.clear();
                            }
                        }
                    }
                    _ => quote!({ #body }),
                }
            }
            Node::Accept { .. }
                if self
                    .tail_accept
                    .borrow()
                    .as_ref()
                    .is_some_and(|(accept, _)| std::ptr::eq(*accept, node)) =>
            {
                let (_, leave) = self.tail_accept.borrow().clone().expect("checked");
                leave
            }
            Node::Accept { relation, args } if Some(*relation) == self.next_rel => {
                self.next_accept(args)?
            }
            Node::Accept { relation, args }
                if self.direct.get() && matches!(sink, Sink::Layer) && !args.is_empty() =>
            {
                self.direct_insert(*relation, args)
            }
            Node::Accept { relation, args } => {
                let values = args.iter().map(|&a| Self::value(a));
                match sink {
                    Sink::Layer if args.is_empty() => {
                        let store = Self::store(*relation);
                        quote!(self.grew |= self.#store.insert(&[]);)
                    }
                    Sink::Layer => quote!(self.pending.extend_from_slice(&[#(#values),*]);),
                    Sink::Memo(r, m) if self.closure(r, m) == Some(Closure::Chain) => {
                        // An answer of a key down the chain, with the first key's bound
                        // columns.
                        let memo = Self::memo(RelationId(r as u32), m);
                        let bound = self.bound(r, m);
                        let values = args.iter().enumerate().map(|(c, &a)| {
                            match bound.iter().position(|&b| b == c) {
                                Some(j) => {
                                    let j = lit(j);
                                    quote!(origin[#j])
                                }
                                None => Self::value(a),
                            }
                        });
                        quote!(self.#memo.insert(memo_table, &[#(#values),*]);)
                    }
                    Sink::Memo(r, m) => {
                        let memo = Self::memo(RelationId(r as u32), m);
                        quote!(self.#memo.insert(memo_table, &[#(#values),*]);)
                    }
                    Sink::Push(r, m) => {
                        let chain = Self::chain(r, m);
                        quote!(self.#chain.insert(&link_key);)
                    }
                    Sink::Inline => self.continue_inlined(args),
                    Sink::Walk(depth) => self.walk_push(depth),
                    // Every column is bound: the answer is the key.
                    Sink::Known(..) => quote!(return true;),
                }
            }
            Node::If { test, then } => {
                let then = self.node(then, sink)?;
                match test {
                    Test::Distinct(pairs) => {
                        let conds = pairs.iter().map(|&(a, b)| {
                            let (a, b) = (Self::value(a), Self::value(b));
                            quote!(#a != #b)
                        });
                        quote!(if #(#conds)||* { #then })
                    }
                    Test::Equal(pairs) => {
                        let conds = pairs.iter().map(|&(a, b)| {
                            let (a, b) = (Self::value(a), Self::value(b));
                            quote!(#a == #b)
                        });
                        quote!(if true #(&& #conds)* { #then })
                    }
                    Test::Absent(query) => {
                        let exists = self.exists(query, sink)?;
                        quote! {
                            #exists
                            if !exists { #then }
                        }
                    }
                }
            }
            Node::Query { query, then } => {
                if let Some(copy) = self.coded_copy(query, then, sink) {
                    return Ok(copy);
                }
                if let Some(words) = self.word_join(query, then, sink)? {
                    return Ok(words);
                }
                if let Some(push) = self.chain_link(query, then, sink)? {
                    return Ok(push);
                }
                if self.whole_store_tested(query, then) {
                    let store = Self::store(query.relation);
                    let then = self.node(then, sink)?;
                    return Ok(quote! {
                        if !self.#store.is_empty() { #then }
                    });
                }
                if self.tail_accept.borrow().is_none()
                    && let Some(accept) = self.existential_tail(node, sink)
                {
                    // Nothing after reads what this query and those after it bind: the
                    // first match of them all is enough, and the accept runs once.
                    let label = syn::Lifetime::new(
                        &format!("'{}", self.fresh("found")),
                        MacroSpan::call_site(),
                    );
                    self.tail_accept
                        .replace(Some((accept as *const Node, quote!(break #label true;))));
                    let search = self.node(node, sink);
                    self.tail_accept.replace(None);
                    let search = search?;
                    let held = self.accepted_already(accept, sink)?;
                    let accept = self.node(accept, sink)?;
                    let tail = quote! {
                        let exists = #label: {
                            #search
                            false
                        };
                        if exists { #accept }
                    };
                    return Ok(match held {
                        Some(held) => quote! {
                            #held
                            if !exists { #tail }
                        },
                        None => tail,
                    });
                }
                if Self::existential(query, then) {
                    // Nothing after reads what the query binds: one match is enough.
                    let exists = self.exists(query, sink)?;
                    let then = self.node(then, sink)?;
                    return Ok(quote! {
                        #exists
                        if exists { #then }
                    });
                }
                if matches!(query.access, Access::Call(_)) {
                    // What the continuation numbers from values bound before the
                    // call is computed once, before it (`hoist.rs`).
                    let (lets, then) = self.hoisting(query, then, || self.node(then, sink))?;
                    let code = self.query(query, then, sink)?;
                    if lets.is_empty() {
                        code
                    } else {
                        quote!({ #(#lets)* #code })
                    }
                } else {
                    let then = self.node(then, sink)?;
                    self.query(query, then, sink)?
                }
            }
        })
    }

    /// For an existential tail's accept (`Self::existential_tail`) inserting straight
    /// into a layer's bit set: `let exists = …;`, whether the store holds the tuple
    /// already (its values are all bound before the tail), so the search is skipped
    /// when it could only find it again: amazons' `legalMove ?p`, known from the first
    /// piece of `?p` with a move, was searched again from each of its pieces (every
    /// arrow's eight lines). `None` for other accepts and sinks.
    fn accepted_already(
        &self,
        accept: &Node,
        sink: Sink,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        let Node::Accept { relation, args } = accept else {
            return Ok(None);
        };
        let bitset = matches!(
            self.plan.relations[relation.0 as usize].storage,
            Storage::Bitset { .. }
        );
        if !matches!(sink, Sink::Layer)
            || !self.direct.get()
            || !bitset
            || args.is_empty()
            || Some(*relation) == self.next_rel
        {
            return Ok(None);
        }
        let slots = args
            .iter()
            .map(|&arg| match arg {
                Arg::Var(v) => Slot::Bound(v),
                Arg::Sym(s) => Slot::Sym(s),
            })
            .collect();
        let query = Query {
            relation: *relation,
            slots,
            access: Access::Member,
        };
        self.exists(&query, sink).map(Some)
    }

    /// `let exists = …;`: whether some tuple matches `query`, the scan stopping at the
    /// first.
    fn exists(&self, query: &Query, sink: Sink) -> Result<TokenStream, Diagnostic> {
        let label =
            syn::Lifetime::new(&format!("'{}", self.fresh("found")), MacroSpan::call_site());
        let found = self.query(query, quote!(break #label true;), sink)?;
        Ok(quote! {
            let exists = #label: {
                #found
                false
            };
        })
    }

    /// Whether `query` binds variables that nothing in `then` reads (the rule's head
    /// included): its matches then differ only in values no one looks at, and `then`
    /// runs the same for each (`(<= mobile (mover-move ?m))`, `(<= (occupied ?s)
    /// (true (cell ?s ?c ?p)))` once `?s` is bound).
    fn existential(query: &Query, then: &Node) -> bool {
        if matches!(query.access, Access::Input | Access::Flag | Access::Member) {
            return false;
        }
        let bound: Vec<VarId> = query
            .slots
            .iter()
            .filter_map(|slot| match slot {
                Slot::Bind(v) => Some(*v),
                _ => None,
            })
            .collect();
        !bound.is_empty() && !bound.iter().any(|&v| Self::reads_var(then, v))
    }

    /// The accept ending the rule's path from `node`, a query, when the variables this
    /// query and the queries after it bind are not among the accept's (`(<=
    /// (legalMove ?p) (true (location ?x ?y ?p)) (queenMove ?x ?y ?u ?v) (emptyCell ?u
    /// ?v))` once `?p` is bound): the accepted tuple is the same for every match of
    /// them, so one is enough. Only a straight path (queries and tests, then the
    /// accept), and only for sinks whose accept depends on nothing but its values (not
    /// a chain's `link_key`, nor a known mode's early return).
    fn existential_tail<'n>(&self, node: &'n Node, sink: Sink) -> Option<&'n Node> {
        if !matches!(sink, Sink::Layer | Sink::Memo(..) | Sink::Inline) {
            return None;
        }
        let Node::Query { query, .. } = node else {
            return None;
        };
        if matches!(query.access, Access::Input | Access::Flag | Access::Member) {
            return None;
        }
        let mut bound = Vec::new();
        let mut at = node;
        loop {
            match at {
                Node::Query { query, then } => {
                    // A call back into a recursive mode's walk or work list: what
                    // follows adds the call's key (`Self::chain_link`), another sink.
                    if let Access::Call(m) = query.access
                        && self.closure(query.relation.0 as usize, m).is_some()
                    {
                        return None;
                    }
                    bound.extend(query.slots.iter().filter_map(|slot| match slot {
                        Slot::Bind(v) => Some(*v),
                        _ => None,
                    }));
                    at = then;
                }
                Node::If { then, .. } => at = then,
                Node::Accept { args, .. } => {
                    let read = bound.iter().any(|&v| args.contains(&Arg::Var(v)));
                    return (!bound.is_empty() && !read).then_some(at);
                }
                _ => return None,
            }
        }
    }

    /// Whether a node reads variable `v`.
    fn reads_var(node: &Node, v: VarId) -> bool {
        let in_slots = |slots: &[Slot]| {
            slots
                .iter()
                .any(|s| matches!(s, Slot::Bound(x) | Slot::Same(x) | Slot::Bind(x) if *x == v))
        };
        let in_args = |args: &[Arg]| args.contains(&Arg::Var(v));
        match node {
            Node::Sequence(children) => children.iter().any(|c| Self::reads_var(c, v)),
            Node::Repeat(body) | Node::Rule { body, .. } => Self::reads_var(body, v),
            Node::SemiNaive {
                initial, rounds, ..
            } => Self::reads_var(initial, v) || Self::reads_var(rounds, v),
            Node::Query { query, then } => in_slots(&query.slots) || Self::reads_var(then, v),
            Node::If { test, then } => {
                let in_test = match test {
                    Test::Absent(query) => in_slots(&query.slots),
                    Test::Distinct(pairs) | Test::Equal(pairs) => {
                        pairs.iter().any(|(a, b)| in_args(&[*a, *b]))
                    }
                };
                in_test || Self::reads_var(then, v)
            }
            Node::Accept { args, .. } => in_args(args),
        }
    }

    /// A call back into a [`Closure::Chain`] mode: the rest of the rule adds the call's
    /// key to the work list (or to the keys of the walk it is inlined as) instead of
    /// reading the call's answers.
    fn chain_link(
        &self,
        query: &Query,
        then: &Node,
        sink: Sink,
    ) -> Result<Option<TokenStream>, Diagnostic> {
        let Access::Call(m) = query.access else {
            return Ok(None);
        };
        let r = query.relation.0 as usize;
        let link_sink = match sink {
            Sink::Memo(sr, sm)
                if (sr, sm) == (r, m) && self.closure(r, m) == Some(Closure::Chain) =>
            {
                Sink::Push(r, m)
            }
            Sink::Inline => match self.walk_of(r, m) {
                Some((inline::Walk::Keys, depth)) => Sink::Walk(depth),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let key = self.bound(r, m).iter().map(|&c| key_value(query.slots[c]));
        let then = self.node(then, link_sink)?;
        Ok(Some(quote! {
            {
                let link_key = [#(#key),*];
                #then
            }
        }))
    }

    /// A memo's constructor: tables kept unique by a bitset over the free columns when
    /// their domains' product is at most [`MAX_MEMO_TABLE_BITS`] (a bit test per answer
    /// instead of hashing the row) and the relation depends on the state, else by
    /// hashing.
    fn memo_init(&self, r: RelationId, bound: &[usize]) -> TokenStream {
        let columns = &self.ir.relation(r).columns;
        let arity = lit(columns.len());
        let key_len = lit(bound.len());
        let bits = (0..columns.len())
            .filter(|c| !bound.contains(c))
            .try_fold(1usize, |bits, c| {
                bits.checked_mul(columns[c].domain.len().max(1))
            });
        // A static relation's memo is bounded from state to state, dropping and making
        // tables again; a table with bits costs allocations to make (gt_two_thirds:
        // +16 % instructions), a hashed one none until its first answer.
        let kept = self.ir.layers[self.ir.layer_of[r.0 as usize]].phase == Phase::Static;
        match bits {
            Some(bits) if bits <= MAX_MEMO_TABLE_BITS && bound.len() < columns.len() && !kept => {
                let domains = columns.iter().map(|c| {
                    let d = c.domain.iter().map(|&s| sym(s));
                    quote!(&[#(#d),*])
                });
                let bound = bound.iter().map(|&c| lit(c));
                let num_symbols = lit(self.ir.symbols.len());
                quote!(rt::Memo::with_bits(
                    #arity,
                    #key_len,
                    rt::Store::memo_bitset(&[#(#domains),*], &[#(#bound),*], #num_symbols)
                ))
            }
            _ => quote!(rt::Memo::new(#arity, #key_len)),
        }
    }

    /// How mode `m` of relation `r` completes a call's table on its own, if it does.
    fn closure(&self, r: usize, m: usize) -> Option<Closure> {
        self.closures.get(&(r, m)).copied()
    }

    /// The columns mode `m` of demand relation `r` binds.
    fn bound(&self, r: usize, m: usize) -> &[usize] {
        match &self.plan.relations[r].evaluation {
            Evaluation::Demand(modes) => &modes[m].bound,
            _ => &[],
        }
    }

    /// The work list of a [`Closure::Chain`] mode.
    fn chain(r: usize, m: usize) -> Ident {
        format_ident!("chain{}_{}", r, m)
    }

    /// Sets the state bit of a `next` head.
    fn next_accept(&self, args: &[Arg]) -> Result<TokenStream, Diagnostic> {
        let values: Vec<TokenStream> = args.iter().map(|&a| Self::value(a)).collect();
        let Some(Arg::Sym(functor)) = args.first().copied() else {
            return Ok(quote! {
                let tuple = [#(#values),*];
                match input.fluents.code(&tuple) {
                    Some(bit) => self.next_bits.set(bit),
                    None => rt::outside_layout(&META, &tuple),
                }
            });
        };
        // A head outside the layout belongs to a rule the analysis found dead (its body
        // can never hold); should it fire anyway, that is reported, not mis-encoded.
        let unreachable = quote!(rt::outside_layout(&META, &[#(#values),*]););
        let Some(block) = self.blocks.iter().find(|b| b.symbol == functor) else {
            return Ok(unreachable);
        };
        let num_symbols = self.ir.symbols.len();
        let positions = self.fluent_positions();
        let mut terms = vec![quote!(0)];
        for (c, stride, domain) in &block.columns {
            let stride = lit(*stride);
            match args[*c] {
                Arg::Sym(s) => {
                    let Some(p) = domain.iter().position(|&d| d == s) else {
                        return Ok(unreachable);
                    };
                    let p = lit(p);
                    terms.push(quote!(#p * #stride));
                }
                Arg::Var(v) => {
                    if let Some(p) = self.known_position(v, domain) {
                        terms.push(quote!(#p * #stride));
                        continue;
                    }
                    let v = var(v);
                    let offset = lit(c * num_symbols);
                    terms.push(quote!({
                        let p = #positions[#offset + #v as usize];
                        if p == NONE {
                            rt::outside_layout(&META, &[#(#values),*]);
                        }
                        p as usize
                    } * #stride));
                }
            }
        }
        let base = lit(block.base);
        Ok(match &block.keys {
            Some((_, keys)) => quote! {
                match rt::listed_rank(&#keys, #(#terms)+*) {
                    Some(i) => self.next_bits.set(#base + i),
                    None => rt::outside_layout(&META, &[#(#values),*]),
                }
            },
            None => quote!(self.next_bits.set(#base + #(#terms)+*);),
        })
    }

    /// The constant table of a domain's symbols by position, which a value decoded from
    /// a bit indexes (`SYMS_…[digit]`). An array literal indexed in place is built on
    /// the stack at every use: 16 instructions for 64 squares where a load does (team
    /// chess: 14 % of its instructions). Named by a hash of its contents, so a domain
    /// met again reuses its table and the names do not depend on the order of use.
    fn domain_table(&self, domain: &[SymbolId]) -> Ident {
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

    /// `(array[c], slot)` for every column `c`: a tuple read from the local `array`.
    fn read_from(array: &Ident, slots: &[Slot]) -> Vec<(TokenStream, Slot)> {
        slots
            .iter()
            .enumerate()
            .map(|(c, &s)| {
                let c = lit(c);
                (quote!(#array[#c]), s)
            })
            .collect()
    }

    /// Conditions and bindings matching `(value, slot)` pairs: `Sym`, `Bound` and
    /// `Same` slots become conditions, `Bind` slots `let`s.
    fn matcher(columns: &[(TokenStream, Slot)]) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let mut conds = Vec::new();
        let mut binds = Vec::new();
        // A `Same` column may come before its `Bind` column (the state's blocks order
        // columns by use, `state_column_orders`): it compares with that value.
        let mut bound_here: BTreeMap<VarId, TokenStream> = BTreeMap::new();
        for (value, slot) in columns {
            if let Slot::Bind(v) = *slot {
                bound_here.entry(v).or_insert_with(|| value.clone());
            }
        }
        for (value, slot) in columns {
            match *slot {
                Slot::Sym(s) => {
                    let s = sym(s);
                    conds.push(quote!(#value == #s));
                }
                Slot::Bound(v) => {
                    let v = var(v);
                    conds.push(quote!(#value == #v));
                }
                Slot::Same(v) => match bound_here.get(&v) {
                    Some(first) => conds.push(quote!(#value == #first)),
                    None => {
                        let v = var(v);
                        conds.push(quote!(#value == #v));
                    }
                },
                Slot::Bind(v) => {
                    let v = var(v);
                    binds.push(quote!(let #v: Sym = #value;));
                }
                Slot::Free => {}
            }
        }
        (conds, binds)
    }

    fn guarded(conds: &[TokenStream], body: TokenStream) -> TokenStream {
        if conds.is_empty() {
            body
        } else {
            quote!(if #(#conds)&&* { #body })
        }
    }

    /// The code running `then` for each match of `query`.
    fn query(
        &self,
        query: &Query,
        then: TokenStream,
        sink: Sink,
    ) -> Result<TokenStream, Diagnostic> {
        let r = query.relation;
        if Some(r) == self.true_rel {
            return Ok(self.true_query(query, then));
        }
        if Some(r) == self.does_rel {
            return Ok(self.does_query(query, then));
        }
        let slots = &query.slots;
        let known = |c: usize| key_value(slots[c]);
        if let Evaluation::Static(tuples) = &self.plan.relations[r.0 as usize].evaluation {
            return Ok(self.static_query(r, tuples, query, then));
        }
        if let Access::Call(m) = query.access {
            if sink == Sink::Inline
                && let Some((inline::Walk::Answers, depth)) = self.walk_of(r.0 as usize, m)
            {
                return Ok(self.walk_answers(depth, query, then));
            }
            if let Some(inlined) = self.inlined_call(query, &then)? {
                return Ok(inlined);
            }
            let Evaluation::Demand(modes) = &self.plan.relations[r.0 as usize].evaluation else {
                return Err(backend_error(format!(
                    "internal error: a call to `{}`, which is not demand-evaluated",
                    self.ir.relation(r).key()
                )));
            };
            let key = modes[m].bound.iter().map(|&c| known(c));
            if self.known_mode(r, m) {
                let ask = format_ident!("ask{}_{}", r.0, m);
                return Ok(quote! {
                    if self.#ask(input, &[#(#key),*]) {
                        #then
                    }
                });
            }
            let call = format_ident!("call{}_{}", r.0, m);
            let memo = Self::memo(r, m);
            let t = self.fresh("t");
            // A call back into an `Own` mode has the call's key: its table is the one
            // being filled.
            let own = sink == Sink::Memo(r.0 as usize, m)
                && self.closure(r.0 as usize, m) == Some(Closure::Own);
            let call = if own {
                quote!(memo_table)
            } else {
                quote!(self.#call(input, &[#(#key),*]))
            };
            let i = self.fresh("i");
            let row = self.fresh("row");
            let columns = Self::read_from(&row, slots);
            let (conds, binds) = Self::matcher(&columns);
            let body = Self::guarded(&conds, quote!(#(#binds)* #then));
            return Ok(quote! {
                let #t = #call;
                let mut #i = 0;
                while #i < self.#memo.table(#t).len() {
                    let #row = self.#memo.table(#t).row(#i);
                    #i += 1;
                    #body
                }
            });
        }
        if let Access::Input = query.access {
            let (rel, m) = match sink {
                Sink::Memo(rel, m) | Sink::Known(rel, m) => (rel, m),
                Sink::Inline => self.inlined_mode(),
                _ => {
                    return Err(backend_error(
                        "internal error: a demand call's input outside a demand rule",
                    ));
                }
            };
            let Evaluation::Demand(modes) = &self.plan.relations[rel].evaluation else {
                return Err(backend_error(
                    "internal error: input of a non-demand relation",
                ));
            };
            let bound = &modes[m].bound;
            let columns: Vec<(TokenStream, Slot)> = slots
                .iter()
                .enumerate()
                .map(|(c, &s)| match bound.iter().position(|&b| b == c) {
                    Some(j) => {
                        let j = lit(j);
                        (quote!(key[#j]), s)
                    }
                    None => (quote!(0), Slot::Free),
                })
                .collect();
            let (conds, binds) = Self::matcher(&columns);
            return Ok(Self::guarded(&conds, quote!(#(#binds)* #then)));
        }
        if self.is_demand(r) {
            return Err(backend_error(format!(
                "internal error: `{}` is demand-evaluated but queried without a call",
                self.ir.relation(r).key()
            )));
        }
        let store = Self::store(r);
        // Bits only (a semi-naive delta: the bits set in the last round); or a bitset
        // store with rows tested for one tuple: the bit is numbered here, as for its
        // inserts (`rt::Store::has_bit`).
        let copy = match &query.access {
            Access::Index(columns) => self
                .bit_copies(r)
                .into_iter()
                .find(|copy| copy.columns == *columns),
            _ => None,
        };
        let (numbered, store) = match (copy, self.bit_columns(r)) {
            (Some(copy), _) => (Some(copy.numbered), copy.field),
            (None, Some(numbered)) => (Some(numbered), store),
            (None, None) if query.access == Access::Member => (self.numbered_columns(r), store),
            (None, None) => (None, store),
        };
        if let Some(numbered) = numbered {
            if query.access == Access::Flag {
                return Ok(quote!(if !self.#store.is_empty() { #then }));
            }
            let size = numbered
                .first()
                .map_or(1, |(_, stride, domain)| stride * domain.len().max(1));
            let table = Self::positions(r);
            let bits = if query.access == Access::Delta {
                Bits::Delta(store, Self::delta(r))
            } else {
                Bits::Store(store)
            };
            let snapshot = match &bits {
                Bits::Store(store) if self.bit_columns(r).is_some() => {
                    self.snapshot_of(r, store, size)
                }
                _ => None,
            };
            let source = BitSource {
                base: 0,
                size,
                columns: &numbered,
                positions: quote!(#table),
                bits,
                keys: None,
                snapshot,
            };
            return Ok(self.bits_query(&source, slots, Vec::new(), then));
        }
        if query.access == Access::Delta {
            let delta = Self::delta(r);
            let row = self.fresh("row");
            let i = self.fresh("i");
            let columns = Self::read_from(&row, slots);
            let (conds, binds) = Self::matcher(&columns);
            let body = Self::guarded(&conds, quote!(#(#binds)* #then));
            return Ok(quote! {
                for #i in #delta.0..#delta.1 {
                    let #row = self.#store.row(#i);
                    #body
                }
            });
        }
        Ok(match &query.access {
            Access::Flag => quote!(if !self.#store.is_empty() { #then }),
            Access::Member => {
                let values = (0..slots.len()).map(known);
                quote!(if self.#store.contains(&[#(#values),*]) { #then })
            }
            Access::Scan | Access::Index(_) => {
                let row = self.fresh("row");
                let columns = Self::read_from(&row, slots);
                let (conds, binds) = Self::matcher(&columns);
                let body = Self::guarded(&conds, quote!(#(#binds)* #then));
                match &query.access {
                    Access::Index(cols) => {
                        let index = self.plan.relations[r.0 as usize]
                            .indexes
                            .iter()
                            .position(|i| i == cols)
                            .ok_or_else(|| {
                                backend_error(format!(
                                    "internal error: no index on columns {cols:?} of `{}`",
                                    self.ir.relation(r).key()
                                ))
                            })?;
                        let index = lit(index);
                        let key = cols.iter().map(|&c| known(c));
                        let at = self.fresh("at");
                        quote! {
                            let mut #at = self.#store.first(#index, &[#(#key),*]);
                            while #at != NONE {
                                let #row = self.#store.row(#at as usize);
                                #at = self.#store.next(#index, #at);
                                #body
                            }
                        }
                    }
                    _ => {
                        let i = self.fresh("i");
                        quote! {
                            for #i in 0..self.#store.len() {
                                let #row = self.#store.row(#i);
                                #body
                            }
                        }
                    }
                }
            }
            Access::Call(_) | Access::Input | Access::Delta => unreachable!("handled above"),
        })
    }

    /// A query on a static relation, answered from its constant table: symbols in the
    /// query filter the rows at compile time; a bound variable selects the rows holding
    /// its value through a constant offset table over the symbols (rows sorted by that
    /// column); other columns are compared or bound per row.
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

    fn static_query(
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
        let arity_lit = lit(arity);
        let row = self.fresh("row");
        if !slots.iter().any(|s| matches!(s, Slot::Bound(_))) {
            // No bound column: every remaining row, unrolled when few and small (the
            // row's symbols become constants the optimiser folds into the body).
            if rows.len() <= MAX_UNROLLED_ROWS
                && then.to_string().len() * rows.len() <= MAX_UNROLLED_TEXT
            {
                let copies = rows.iter().map(|values| {
                    let columns: Vec<(TokenStream, Slot)> = values
                        .iter()
                        .zip(&free_slots)
                        .map(|(&v, &slot)| {
                            let v = sym(v);
                            (quote!(#v), slot)
                        })
                        .collect();
                    let (conds, binds) = Self::matcher(&columns);
                    let positions = Self::static_positions(&free_slots, |c| {
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
            let columns = Self::read_from(&row, &free_slots);
            let (conds, binds) = Self::matcher(&columns);
            let i = self.fresh("i");
            let positions = self.static_row_positions(&table, tuples, &rows, &free_slots, &i);
            let body = Self::guarded(&conds, quote!(#(#binds)* #(#positions)* #then));
            return quote! {
                for (#i, #row) in #table.iter().enumerate() {
                    #body
                }
            };
        }
        // The key: every known column, while the dense key space stays small.
        let num_symbols = self.ir.symbols.len();
        let mut key_columns: Vec<(usize, Vec<SymbolId>)> = Vec::new();
        let mut space: usize = 1;
        let cap = (1usize << 16).max(tuples.len());
        for (c, slot) in slots.iter().enumerate() {
            if !matches!(slot, Slot::Sym(_) | Slot::Bound(_)) {
                continue;
            }
            let mut values: Vec<SymbolId> = tuples.iter().map(|row| row[c]).collect();
            values.sort();
            values.dedup();
            if !key_columns.is_empty() && space.saturating_mul(values.len()) > cap {
                continue;
            }
            space = space.saturating_mul(values.len());
            key_columns.push((c, values));
        }
        let mut strides = vec![1usize; key_columns.len()];
        for k in (0..key_columns.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1] * key_columns[k + 1].1.len();
        }
        let key_of = |row: &[SymbolId]| dense_key(&key_columns, &strides, row);
        let suffix = key_columns
            .iter()
            .map(|(c, _)| c.to_string())
            .collect::<Vec<_>>()
            .join("_");
        let by = format_ident!("TABLE_{}_BY{}", r.0, suffix);
        let at = format_ident!("TABLE_{}_AT{}", r.0, suffix);
        let mut sorted: Vec<&Vec<SymbolId>> = tuples.iter().collect();
        sorted.sort_by_key(|row| key_of(row));
        let mut offsets = vec![0u32; space + 1];
        for row in &sorted {
            offsets[key_of(row) + 1] += 1;
        }
        // At most one row per key (`succ`, a cell's neighbour in one direction): the
        // row is looked up, not scanned; with exactly one per key, its number is the key.
        let counts = &offsets[1..];
        let lookup = counts
            .iter()
            .all(|&n| n <= 1)
            .then(|| counts.iter().all(|&n| n == 1));
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        if !self.tables.borrow().contains_key(&by.to_string()) {
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
        }
        // The key's terms: constant for symbols, looked up for variables.
        let mut prelude = Vec::new();
        let mut guards = Vec::new();
        let mut terms = Vec::new();
        for ((c, values), stride) in key_columns.iter().zip(&strides) {
            let stride_lit = lit(*stride);
            match slots[*c] {
                Slot::Sym(s) => match values.binary_search(&s) {
                    Ok(p) => {
                        let term = lit(p * stride);
                        terms.push(quote!(#term));
                    }
                    Err(_) => return quote!(),
                },
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
        // Columns outside the key are matched per row.
        let checked: Vec<Slot> = slots
            .iter()
            .enumerate()
            .map(|(c, &s)| {
                if key_columns.iter().any(|(k, _)| *k == c) {
                    Slot::Free
                } else {
                    s
                }
            })
            .collect();
        let columns = Self::read_from(&row, &checked);
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

    /// A query on `does`: the joint move's tuple of each role the role slot allows.
    fn does_query(&self, query: &Query, then: TokenStream) -> TokenStream {
        let Some(does) = self.does_rel else {
            return quote!();
        };
        let arity = self.arity(does);
        let arity_lit = lit(arity);
        let row = self.fresh("row");
        let columns = Self::read_from(&row, &query.slots);
        let (conds, binds) = Self::matcher(&columns);
        let body = Self::guarded(&conds, quote!(#(#binds)* #then));
        if let Some(Slot::Sym(role)) = query.slots.first()
            && let Some(index) = self.ir.roles.iter().position(|r| r == role)
        {
            let start = lit(index * arity);
            let end = lit((index + 1) * arity);
            return quote! {
                {
                    let #row = &input.joint[#start..#end];
                    #body
                }
            };
        }
        let role = self.fresh("role");
        let roles = lit(self.ir.roles.len());
        quote! {
            for #role in 0..#roles {
                let #row = &input.joint[#role * #arity_lit..(#role + 1) * #arity_lit];
                #body
            }
        }
    }

    /// A query on `true`, read from the state bits.
    fn true_query(&self, query: &Query, then: TokenStream) -> TokenStream {
        let slots = &query.slots;
        let Some(Slot::Sym(functor)) = slots.first().copied() else {
            // The functor is not known: decode every set bit.
            let tuple = self.fresh("tuple");
            let bit = self.fresh("bit");
            let arity = lit(slots.len());
            let bits = lit(self.state_bits);
            let columns = Self::read_from(&tuple, slots);
            let (conds, binds) = Self::matcher(&columns);
            let body = Self::guarded(&conds, quote!(#(#binds)* #then));
            return quote! {
                let mut #tuple = [0 as Sym; #arity];
                for #bit in input.state.ones(0, #bits) {
                    META.fluents.decode(#bit, &mut #tuple);
                    #body
                }
            };
        };
        let Some(block) = self.blocks.iter().find(|b| b.symbol == functor) else {
            return quote!();
        };
        // Columns outside the functor hold nil.
        let mut outside = Vec::new();
        for (c, &slot) in slots.iter().enumerate().skip(1) {
            if block.columns.iter().any(|(bc, _, _)| *bc == c) {
                continue;
            }
            if let Slot::Sym(s) = slot
                && s != NIL
            {
                return quote!();
            }
            outside.push((quote!(0), slot));
        }
        let source = BitSource {
            base: block.base,
            size: block.size,
            columns: &block.columns,
            positions: self.fluent_positions(),
            bits: Bits::State,
            keys: block.keys.as_ref().map(|(_, table)| table),
            snapshot: None,
        };
        self.bits_query(&source, slots, outside, then)
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
    fn for_each_position<'d>(
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
    fn bits_query(
        &self,
        source: &BitSource,
        slots: &[Slot],
        outside: Vec<(TokenStream, Slot)>,
        then: TokenStream,
    ) -> TokenStream {
        if let Some(code) = self.gap_enumerated(source, slots, &outside, &then) {
            return code;
        }
        let num_symbols = self.ir.symbols.len();
        let positions = &source.positions;
        // Known positions of the columns.
        let mut prelude = Vec::new();
        let mut position: Vec<Option<TokenStream>> = Vec::new();
        for (c, _, domain) in source.columns {
            match slots[*c] {
                Slot::Sym(s) => match domain.iter().position(|&d| d == s) {
                    Some(p) => {
                        let p = lit(p);
                        position.push(Some(quote!(#p)));
                    }
                    None => return quote!(),
                },
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
        let base = source.base;
        let (outside_conds, outside_binds) = Self::matcher(&outside);
        if position.iter().all(Option::is_some) && !matches!(source.bits, Bits::Delta(..)) {
            let base_lit = lit(base);
            let mut terms = vec![quote!(0)];
            for ((_, stride, _), p) in source.columns.iter().zip(&position) {
                let p = p.as_ref().expect("all known");
                let stride = lit(*stride);
                terms.push(quote!(#p * #stride));
            }
            let mut conds = guards;
            conds.extend(outside_conds);
            let offset = quote!(#(#terms)+*);
            conds.push(match (&source.bits, source.keys) {
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
            });
            let body = Self::guarded(&conds, quote!(#(#outside_binds)* #then));
            return quote!({ #(#prelude)* #body });
        }
        // Narrow to the range fixed by the known leading columns, filter the rest.
        let prefix = position.iter().take_while(|p| p.is_some()).count();
        let base_lit = lit(base);
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
        let lo = self.fresh("lo");
        let bit = self.fresh("bit");
        let offset = self.fresh("offset");
        let mut conds = outside_conds;
        let mut inner_conds = Vec::new();
        let mut columns = Vec::new();
        let mut decodes = Vec::new();
        for (k, ((c, stride, domain), p)) in source.columns.iter().zip(&position).enumerate() {
            let stride = lit(*stride);
            let radix = lit(domain.len());
            let digit = quote!((#offset / #stride) % #radix);
            match p {
                Some(_) if k < prefix => {}
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
        if prefix == 0
            && source.keys.is_none()
            && matches!(source.bits, Bits::State)
            && let Some(mask) = self.state_mask(source, &position, base)
        {
            // The whole block, its bound inner columns a constant mask per value.
            let body = Self::guarded(&conds, unguarded);
            let StateMask {
                table,
                words,
                first,
                combo,
            } = mask;
            let (word, rest) = (self.fresh("word"), self.fresh("rest"));
            let (first_lit, last_lit, words_lit) = (lit(first), lit(first + words - 1), lit(words));
            let scan = quote! {
                for #word in #first_lit..=#last_lit {
                    let mut #rest = input.state.0[#word]
                        & #table[(#combo) * #words_lit + #word - #first_lit];
                    while #rest != 0 {
                        let #bit = #word * 64 + #rest.trailing_zeros() as usize;
                        #rest &= #rest - 1;
                        let #offset = #bit - #base_lit;
                        #body
                    }
                }
            };
            let scan = Self::guarded(&guards, scan);
            return quote!({ #(#prelude)* #scan });
        }
        conds.extend(inner_conds);
        let body = Self::guarded(&conds, unguarded);
        // A range wider than several words is read from the list of set bits (the
        // state's, ascending, or a bits-only store's, in the order set) rather than
        // word by word: states and derived relations are sparse.
        let wide = match source.bits {
            Bits::State => width_bits > STATE_LIST_SCAN_BITS,
            _ => width_bits > STORE_LIST_SCAN_BITS,
        };
        let hi = self.fresh("hi");
        if wide && matches!(source.bits, Bits::State) {
            self.state_list.set(true);
        }
        let scan = match &source.bits {
            Bits::State if let Some((keys, lo_bit, hi_bit)) = listed => {
                if wide {
                    quote! {
                        let #hi = #hi_bit;
                        for &#bit in input.ones_from(#lo_bit) {
                            let #bit = #bit as usize;
                            if #bit >= #hi {
                                break;
                            }
                            let #offset = #keys[#bit - #base_lit] as usize;
                            #body
                        }
                    }
                } else {
                    quote! {
                        for #bit in input.state.ones(#lo_bit, #hi_bit) {
                            let #offset = #keys[#bit - #base_lit] as usize;
                            #body
                        }
                    }
                }
            }
            // A range of one word or less: its bits copied into a word, walked there (a
            // store's bits the body sets in the range meanwhile are not seen; a recursive
            // layer's next round sees them).
            Bits::State | Bits::Store(_) if width_bits <= 64 => {
                let words = match &source.bits {
                    Bits::Store(store) => quote!(self.#store),
                    _ => quote!(input.state),
                };
                let rest = self.fresh("rest");
                quote! {
                    let #lo = #base_lit + #lo_key;
                    let mut #rest = #words.field(#lo, #width);
                    while #rest != 0 {
                        let #bit = #lo + #rest.trailing_zeros() as usize;
                        #rest &= #rest - 1;
                        let #offset = #bit - #base_lit;
                        #body
                    }
                }
            }
            Bits::State if wide => quote! {
                let #lo = #base_lit + #lo_key;
                let #hi = #lo + #width;
                for &#bit in input.ones_from(#lo) {
                    let #bit = #bit as usize;
                    if #bit >= #hi {
                        break;
                    }
                    let #offset = #bit - #base_lit;
                    #body
                }
            },
            Bits::State => quote! {
                let #lo = #lo_key;
                for #bit in input.state.ones(#base_lit + #lo, #base_lit + #lo + #width) {
                    let #offset = #bit - #base_lit;
                    #body
                }
            },
            Bits::Store(store) if wide && prefix == 0 => {
                // The whole store: the set bits of the words that hold one, in the
                // order the words got their first bit (each read when reached: bits
                // this scan's own body sets in words not yet reached are met now,
                // sound in a monotone round; the others in the next round, as for a
                // delta).
                let (i, word, rest) = (self.fresh("i"), self.fresh("word"), self.fresh("rest"));
                quote! {
                    for #i in 0..self.#store.nonzero_words() {
                        let #word = self.#store.nonzero_word(#i);
                        let mut #rest = self.#store.word(#word);
                        while #rest != 0 {
                            let #bit = #word * 64 + #rest.trailing_zeros() as usize;
                            #rest &= #rest - 1;
                            let #offset = #bit - #base_lit;
                            #body
                        }
                    }
                }
            }
            Bits::Delta(store, delta) => {
                let i = self.fresh("i");
                quote! {
                    let #lo = #base_lit + #lo_key;
                    for #i in #delta.0..#delta.1 {
                        let #bit = self.#store.added(#i);
                        if #bit < #lo || #bit >= #lo + #width {
                            continue;
                        }
                        let #offset = #bit - #base_lit;
                        #body
                    }
                }
            }
            Bits::Store(store) => {
                let cursor = self.fresh("cursor");
                quote! {
                    let #lo = #base_lit + #lo_key;
                    let mut #cursor = rt::OnesCursor::new(self.#store.words(), #lo, #lo + #width);
                    while let Some(#bit) = #cursor.next(self.#store.words()) {
                        let #offset = #bit - #base_lit;
                        #body
                    }
                }
            }
        };
        let scan = Self::guarded(&guards, scan);
        quote!({ #(#prelude)* #scan })
    }
}

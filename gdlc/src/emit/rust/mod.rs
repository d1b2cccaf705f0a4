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
//!
//! The code, by concern: this module the budgets, the entry points and the `Emitter`
//! with its names; `layout` how tuples become bits (functor blocks, numberings, copies
//! in other column orders); `stores` what each relation is kept as; `module` the
//! generated module around the rules; `methods` its methods per layer and per demand
//! mode; `nodes` filter trees as code; `queries` queries by what holds the relation;
//! `statics` static relations' constant tables; `bits` queries read from bits;
//! `word_join` joins a word at a time; `inserts` accepted tuples into stores; `words`
//! word closures; `closure` recursive modes completing their own tables; `inline` calls
//! inlined; `hoist` terms hoisted before a call.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Literal, Span as MacroSpan, TokenStream};
use quote::{format_ident, quote};

use crate::Diagnostic;
use crate::diagnostic::Code;
use crate::ir::{Arg, Ir, Keyword, NIL, Phase, RelationId, SymbolId, VarId};
use crate::plan::{Access, Evaluation, LayerEvaluation, Node, Plan, Query, Slot, Storage, Test};

mod bits;
mod closure;
mod hoist;
mod inline;
mod inserts;
mod layout;
mod methods;
mod module;
mod nodes;
mod queries;
mod statics;
mod stores;
mod word_join;
mod words;
use bits::*;
use closure::Closure;
use layout::*;
use statics::*;
use word_join::*;

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

/// The most bits of a hashed relation's store numbered by functor blocks (see
/// `Emitter::coded_numbering`): 4 Mi bits, 512 KiB per store.
const MAX_CODED_BITS: usize = 1 << 22;

/// The most functor blocks of a coded numbering whose bit an insert computes in line
/// when the functor is known at run time only (one `match` arm per block).
const MAX_CODED_ARMS: usize = 8;

/// The most words of a set of an earlier layer that a layer's method copies into a
/// local to test it (see [`Snapshots`]).
const MAX_SNAPSHOT_WORDS: usize = 4;

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
    /// The emitter of `ir` planned as `plan`, or why the join backend cannot emit it.
    fn new(ir: &'a Ir, plan: &'a Plan) -> Result<Self, Diagnostic> {
        let true_rel = ir.keyword(Keyword::True);
        let state_rel = true_rel
            .or(ir.keyword(Keyword::Next))
            .or(ir.keyword(Keyword::Init));
        check_shapes(ir, state_rel)?;
        let blocks = state_blocks(ir, plan, state_rel)?;
        let bits = blocks.last().map_or(0, |b| b.base.saturating_add(b.size));
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

    fn memo(r: RelationId, mode: usize) -> Ident {
        format_ident!("m{}_{}", r.0, mode)
    }

    fn fresh(&self, prefix: &str) -> Ident {
        let n = self.names.get();
        self.names.set(n + 1);
        format_ident!("{prefix}{n}")
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
}

/// Checks the shapes the join backend needs: `true`, `next` and `init` flattened alike
/// (as `state_rel`), `legal` and `does` alike, and a role column first in `legal`,
/// `goal` and `sees`.
fn check_shapes(ir: &Ir, state_rel: Option<RelationId>) -> Result<(), Diagnostic> {
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
    Ok(())
}

/// The state's functor blocks (`state_rel`'s), or the error naming the block or the
/// state past [`MAX_STATE_BITS`].
fn state_blocks(
    ir: &Ir,
    plan: &Plan,
    state_rel: Option<RelationId>,
) -> Result<Vec<FunctorBlock>, Diagnostic> {
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
    Ok(blocks)
}

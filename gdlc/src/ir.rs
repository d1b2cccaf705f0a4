//! The analysed intermediate representation shared by every backend: plain data with
//! index ids and no behaviour beyond accessors.
//!
//! - [`Symbols`]: every constant and function symbol, interned **with its arity**
//!   (`f/1` and `f/2` are different symbols), so a flattened tuple decodes to exactly
//!   one term. [`NIL`] pads columns where a term has no subterm.
//! - [`Relation`]: a relation with its *shape* — the argument paths that any of its
//!   terms can have — one flattened [`Column`] per path, in preorder, each with a finite
//!   domain of symbols. A path is the argument index, then for each step down a
//!   (function symbol, argument index) pair: `(cell 1 2 b)` and `(control x)` in `true`
//!   use the paths `0`, `0/cell.0` … and `0`, `0/control.0` — different columns, so
//!   each keeps its own domain.
//! - [`FlatRule`]: a rule over flattened relations: every atom has one argument per
//!   column, each a variable or a symbol; a GDL variable becomes one flat variable per
//!   node of its own shape.
//! - [`Layer`]: the relations of one strongly connected component of the dependency
//!   graph, in evaluation order, with the rules computing them.

use std::fmt;

/// An interned symbol (name and arity).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SymbolId(pub u32);

/// The padding symbol `#nil`: no subterm at this path.
pub const NIL: SymbolId = SymbolId(0);

/// A relation's index in [`Ir::relations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelationId(pub u32);

/// A flat variable's index in [`FlatRule::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarId(pub u32);

/// A symbol: lowercase name and arity (0 for a constant).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Symbol {
    /// The name.
    pub name: String,
    /// Number of arguments when used as a function symbol; 0 for a constant.
    pub arity: usize,
}

/// The symbol table; [`NIL`] is always entry 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbols {
    symbols: Vec<Symbol>,
    index: std::collections::BTreeMap<Symbol, SymbolId>,
}

impl Default for Symbols {
    fn default() -> Self {
        let mut symbols = Symbols {
            symbols: Vec::new(),
            index: Default::default(),
        };
        symbols.intern("#nil", 0);
        symbols
    }
}

impl Symbols {
    /// The id of `name/arity`, interned if new.
    pub fn intern(&mut self, name: &str, arity: usize) -> SymbolId {
        let key = Symbol {
            name: name.to_owned(),
            arity,
        };
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = SymbolId(self.symbols.len() as u32);
        self.symbols.push(key.clone());
        self.index.insert(key, id);
        id
    }

    /// The id of `name/arity`, if interned.
    pub fn get(&self, name: &str, arity: usize) -> Option<SymbolId> {
        self.index
            .get(&Symbol {
                name: name.to_owned(),
                arity,
            })
            .copied()
    }

    /// The symbol of an id.
    pub fn symbol(&self, id: SymbolId) -> &Symbol {
        &self.symbols[id.0 as usize]
    }

    /// Number of symbols (with [`NIL`]).
    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    /// Whether only [`NIL`] is interned.
    pub fn is_empty(&self) -> bool {
        self.symbols.len() <= 1
    }

    /// `name` for a constant, `name/arity` for a function symbol.
    pub fn display(&self, id: SymbolId) -> String {
        let symbol = self.symbol(id);
        if symbol.arity == 0 {
            symbol.name.clone()
        } else {
            format!("{}/{}", symbol.name, symbol.arity)
        }
    }
}

/// A path into a relation's arguments: the argument index, then for each step down a
/// function symbol's id and the argument index under it. Relative paths (inside a
/// variable's value) have no leading argument index.
pub type Path = Vec<u32>;

/// The path of child `index` under function symbol `functor` at `path`.
pub fn child_path(path: &[u32], functor: SymbolId, index: usize) -> Path {
    let mut child = path.to_vec();
    child.push(functor.0);
    child.push(index as u32);
    child
}

/// The parent of a path and the (functor, index) step to it, if it has one: an absolute
/// path of odd length > 1, or a relative path of even length > 0.
pub fn split_path(path: &[u32]) -> Option<(&[u32], SymbolId, usize)> {
    let n = path.len();
    (n >= 2).then(|| (&path[..n - 2], SymbolId(path[n - 2]), path[n - 1] as usize))
}

/// A GDL keyword relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Keyword {
    /// `role/1`.
    Role,
    /// `init/1`.
    Init,
    /// `true/1`.
    True,
    /// `next/1`.
    Next,
    /// `legal/2`.
    Legal,
    /// `does/2`.
    Does,
    /// `goal/2`.
    Goal,
    /// `terminal/0`.
    Terminal,
    /// `sees/2` (GDL-II).
    Sees,
    /// `base/1`.
    Base,
    /// `input/2`.
    Input,
}

impl Keyword {
    /// The keyword of a relation name and arity, if it is one.
    pub fn of(name: &str, arity: usize) -> Option<Keyword> {
        Some(match (name, arity) {
            ("role", 1) => Keyword::Role,
            ("init", 1) => Keyword::Init,
            ("true", 1) => Keyword::True,
            ("next", 1) => Keyword::Next,
            ("legal", 2) => Keyword::Legal,
            ("does", 2) => Keyword::Does,
            ("goal", 2) => Keyword::Goal,
            ("terminal", 0) => Keyword::Terminal,
            ("sees", 2) => Keyword::Sees,
            ("base", 1) => Keyword::Base,
            ("input", 2) => Keyword::Input,
            _ => return None,
        })
    }
}

/// One flattened column: a path of the relation's shape and its domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The argument path this column holds the symbol of.
    pub path: Path,
    /// Column of the parent path (`None` for an argument's root).
    pub parent: Option<usize>,
    /// The symbols that can occur here, sorted; [`NIL`] included when a term can lack
    /// this path.
    pub domain: Vec<SymbolId>,
}

/// A relation with its flattened columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// Lowercase name.
    pub name: String,
    /// Number of (unflattened) arguments.
    pub arity: usize,
    /// The keyword, for GDL keyword relations.
    pub keyword: Option<Keyword>,
    /// Flattened columns in path preorder.
    pub columns: Vec<Column>,
}

impl Relation {
    /// `name/arity`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.name, self.arity)
    }

    /// The columns under function symbol `functor` at the root of argument `arg`
    /// (their paths start with `arg`, `functor`), in path preorder.
    pub fn columns_under(&self, arg: u32, functor: SymbolId) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&c| {
                let path = &self.columns[c].path;
                path.len() > 1 && path[0] == arg && path[1] == functor.0
            })
            .collect()
    }

    /// The column of a path, if it is part of the shape.
    pub fn column_of(&self, path: &[u32]) -> Option<usize> {
        self.columns
            .binary_search_by(|c| c.path.as_slice().cmp(path))
            .ok()
    }
}

/// A ground term over interned symbols.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Term {
    /// The constant or function symbol.
    pub symbol: SymbolId,
    /// The arguments (as many as the symbol's arity).
    pub args: Vec<Term>,
}

/// A flattened argument: a flat variable or a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arg {
    /// A flat variable.
    Var(VarId),
    /// A symbol ([`NIL`] where the term has no subterm).
    Sym(SymbolId),
}

/// A flattened atom: one argument per column of its relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatAtom {
    /// The relation.
    pub relation: RelationId,
    /// One argument per column.
    pub args: Vec<Arg>,
}

/// A literal of a flattened body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlatLiteral {
    /// A positive atom.
    Pos(FlatAtom),
    /// A negated atom.
    Neg(FlatAtom),
    /// The two terms differ: some pair of flattened arguments differs.
    Distinct(Vec<(Arg, Arg)>),
    /// The two terms are equal: every pair of flattened arguments is equal.
    Equal(Vec<(Arg, Arg)>),
}

/// A flat variable: a node of a GDL variable's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatVar {
    /// The GDL variable's name (without `?`).
    pub name: String,
    /// The path inside the variable's value (empty for the value's root symbol).
    pub path: Path,
    /// The symbols it can take, sorted.
    pub domain: Vec<SymbolId>,
}

/// A rule over flattened relations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatRule {
    /// The head.
    pub head: FlatAtom,
    /// The body, in evaluation order.
    pub body: Vec<FlatLiteral>,
    /// Flat variables.
    pub vars: Vec<FlatVar>,
    /// Where the rule was written.
    pub span: crate::diagnostic::Span,
}

/// A relation's dependence on the state and the joint move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Depends on neither `true` nor `does`: computed once, at compile time.
    Static,
    /// Depends on `true` but not `does`.
    State,
    /// Depends on `does`.
    Move,
}

/// One strongly connected component of the dependency graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// Its relations, sorted.
    pub relations: Vec<RelationId>,
    /// Whether it is recursive (computed to a fixpoint) or acyclic (computed once).
    pub cyclic: bool,
    /// When it must be recomputed.
    pub phase: Phase,
    /// The rules (indices into [`Ir::rules`]) whose heads are in this layer.
    pub rules: Vec<usize>,
}

/// An entry point of a reasoner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Entry {
    /// The initial state.
    Init,
    /// Legal moves.
    Legal,
    /// The next state.
    Next,
    /// Termination.
    Terminal,
    /// Goal values.
    Goal,
    /// GDL-II percepts.
    Sees,
}

impl Entry {
    /// Every entry point.
    pub const ALL: [Entry; 6] = [
        Entry::Init,
        Entry::Legal,
        Entry::Next,
        Entry::Terminal,
        Entry::Goal,
        Entry::Sees,
    ];

    /// The keyword relation of the entry point.
    pub fn keyword(self) -> Keyword {
        match self {
            Entry::Init => Keyword::Init,
            Entry::Legal => Keyword::Legal,
            Entry::Next => Keyword::Next,
            Entry::Terminal => Keyword::Terminal,
            Entry::Goal => Keyword::Goal,
            Entry::Sees => Keyword::Sees,
        }
    }
}

/// A chain of constants found in the game (by [`crate::analysis::canonical`]): a
/// static relation whose facts link them one after the other, which orders them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    /// The relation whose facts form it, as `name/2`.
    pub relation: String,
    /// Whether the relation lists every link both ways.
    pub symmetric: bool,
    /// The constants from its start.
    pub constants: Vec<String>,
}

/// The analysed game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ir {
    /// Every symbol, numbered in canonical order ([`crate::analysis::canonical`]).
    pub symbols: Symbols,
    /// The chains of constants that ordered symbols.
    pub chains: Vec<Chain>,
    /// Every relation, sorted by name then arity.
    pub relations: Vec<Relation>,
    /// Every rule, flattened, in canonical order.
    pub rules: Vec<FlatRule>,
    /// Roles in description order.
    pub roles: Vec<SymbolId>,
    /// Layers in evaluation order (dependencies first).
    pub layers: Vec<Layer>,
    /// The layer of each relation.
    pub layer_of: Vec<usize>,
    /// For each entry point, the layers (indices, in evaluation order) it needs.
    pub cones: Vec<(Entry, Vec<usize>)>,
    /// For each role (in role order), the flattened legal-move domain: one sorted
    /// symbol set per column of `legal`'s second argument.
    pub move_domains: Vec<Vec<(Path, Vec<SymbolId>)>>,
}

impl Ir {
    /// The relation with a keyword, if the game has it.
    pub fn keyword(&self, keyword: Keyword) -> Option<RelationId> {
        self.relations
            .iter()
            .position(|r| r.keyword == Some(keyword))
            .map(|i| RelationId(i as u32))
    }

    /// A relation by id.
    pub fn relation(&self, id: RelationId) -> &Relation {
        &self.relations[id.0 as usize]
    }

    /// The flattened columns of a ground argument list of `relation`, or `None` if a
    /// term does not fit the relation's shape.
    pub fn encode(&self, relation: RelationId, args: &[Term]) -> Option<Vec<SymbolId>> {
        let relation = self.relation(relation);
        if args.len() != relation.arity {
            return None;
        }
        let mut out = vec![NIL; relation.columns.len()];
        for (i, arg) in args.iter().enumerate() {
            encode_into(&self.symbols, relation, &[i as u32], arg, &mut out)?;
        }
        Some(out)
    }

    /// The ground arguments a flattened tuple of `relation` stands for, or `None` if the
    /// tuple is not well formed (a symbol's children missing, or a stray non-nil).
    pub fn decode(&self, relation: RelationId, tuple: &[SymbolId]) -> Option<Vec<Term>> {
        let relation = self.relation(relation);
        if tuple.len() != relation.columns.len() {
            return None;
        }
        let mut used = vec![false; tuple.len()];
        let mut args = Vec::with_capacity(relation.arity);
        for i in 0..relation.arity {
            args.push(decode_at(
                &self.symbols,
                relation,
                &[i as u32],
                tuple,
                &mut used,
            )?);
        }
        // Every column not part of a decoded term must be nil.
        let stray = tuple.iter().zip(&used).any(|(&s, &u)| !u && s != NIL);
        (!stray).then_some(args)
    }

    /// A path as text: `0`, `0/cell.2`, `1/move.0/pos.1` (relative paths start with `/`
    /// or are empty).
    pub fn path_text(&self, path: &[u32]) -> String {
        let (mut text, rest) = if path.len() % 2 == 1 {
            (path[0].to_string(), &path[1..])
        } else {
            (String::new(), path)
        };
        for step in rest.chunks_exact(2) {
            text.push('/');
            text.push_str(&self.symbols.symbol(SymbolId(step[0])).name);
            text.push('.');
            text.push_str(&step[1].to_string());
        }
        text
    }
}

fn encode_into(
    symbols: &Symbols,
    relation: &Relation,
    path: &[u32],
    term: &Term,
    out: &mut [SymbolId],
) -> Option<()> {
    let column = relation.column_of(path)?;
    if symbols.symbol(term.symbol).arity != term.args.len() || term.symbol == NIL {
        return None;
    }
    out[column] = term.symbol;
    for (j, child) in term.args.iter().enumerate() {
        encode_into(
            symbols,
            relation,
            &child_path(path, term.symbol, j),
            child,
            out,
        )?;
    }
    Some(())
}

fn decode_at(
    symbols: &Symbols,
    relation: &Relation,
    path: &[u32],
    tuple: &[SymbolId],
    used: &mut [bool],
) -> Option<Term> {
    let column = relation.column_of(path)?;
    let symbol = tuple[column];
    if symbol == NIL || symbol.0 as usize >= symbols.len() {
        return None;
    }
    used[column] = true;
    let arity = symbols.symbol(symbol).arity;
    let mut args = Vec::with_capacity(arity);
    for j in 0..arity {
        args.push(decode_at(
            symbols,
            relation,
            &child_path(path, symbol, j),
            tuple,
            used,
        )?);
    }
    Some(Term { symbol, args })
}

impl fmt::Display for Keyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

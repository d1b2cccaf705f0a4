//! Hash-consed ground terms: every distinct ground term has exactly one [`TermId`], so
//! term equality is id equality.

use std::hash::{BuildHasher, Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

/// A symbol (constant or function name), interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sym(pub u32);

/// A ground term, interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TermId(pub u32);

#[derive(Clone, Copy, Debug)]
struct TermData {
    functor: Sym,
    /// Start of the arguments in `TermStore::args`.
    start: u32,
    arity: u32,
}

/// The interner of symbols and ground terms.
#[derive(Clone, Debug, Default)]
pub struct TermStore {
    names: Vec<String>,
    symbols: FxHashMap<String, Sym>,
    terms: Vec<TermData>,
    args: Vec<TermId>,
    table: HashTable<TermId>,
}

fn hash_term(functor: Sym, args: &[TermId]) -> u64 {
    let mut hasher = FxBuildHasher.build_hasher();
    functor.hash(&mut hasher);
    args.hash(&mut hasher);
    hasher.finish()
}

impl TermStore {
    /// The symbol with this (lowercase) name, interned.
    pub fn symbol(&mut self, name: &str) -> Sym {
        if let Some(&sym) = self.symbols.get(name) {
            return sym;
        }
        let sym = Sym(self.names.len() as u32);
        self.names.push(name.to_owned());
        self.symbols.insert(name.to_owned(), sym);
        sym
    }

    /// The name of a symbol.
    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }

    /// The term `functor(args…)` (a constant when `args` is empty), interned.
    pub fn intern(&mut self, functor: Sym, args: &[TermId]) -> TermId {
        if let Some(id) = self.find(functor, args) {
            return id;
        }
        let id = TermId(self.terms.len() as u32);
        let start = self.args.len() as u32;
        self.args.extend_from_slice(args);
        self.terms.push(TermData {
            functor,
            start,
            arity: args.len() as u32,
        });
        let hash = hash_term(functor, args);
        let terms = &self.terms;
        let all_args = &self.args;
        self.table.insert_unique(hash, id, |&t| {
            let data = terms[t.0 as usize];
            hash_term(
                data.functor,
                &all_args[data.start as usize..(data.start + data.arity) as usize],
            )
        });
        id
    }

    /// The term `functor(args…)` if it was interned before.
    pub fn find(&self, functor: Sym, args: &[TermId]) -> Option<TermId> {
        let hash = hash_term(functor, args);
        self.table
            .find(hash, |&t| {
                let data = self.terms[t.0 as usize];
                data.functor == functor && self.args_of_data(data) == args
            })
            .copied()
    }

    /// The constant `name`, interned.
    pub fn constant(&mut self, name: &str) -> TermId {
        let sym = self.symbol(name);
        self.intern(sym, &[])
    }

    fn args_of_data(&self, data: TermData) -> &[TermId] {
        &self.args[data.start as usize..(data.start + data.arity) as usize]
    }

    /// The functor of a term.
    pub fn functor(&self, term: TermId) -> Sym {
        self.terms[term.0 as usize].functor
    }

    /// The arguments of a term (empty for a constant).
    pub fn args(&self, term: TermId) -> &[TermId] {
        self.args_of_data(self.terms[term.0 as usize])
    }

    /// A term as canonical KIF text.
    pub fn render(&self, term: TermId) -> String {
        let mut out = String::new();
        self.render_into(term, &mut out);
        out
    }

    fn render_into(&self, term: TermId, out: &mut String) {
        let data = self.terms[term.0 as usize];
        if data.arity == 0 {
            out.push_str(self.name(data.functor));
            return;
        }
        out.push('(');
        out.push_str(self.name(data.functor));
        for &arg in self.args_of_data(data) {
            out.push(' ');
            self.render_into(arg, out);
        }
        out.push(')');
    }
}

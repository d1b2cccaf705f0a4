//! Flattening: every relation gets one fixed list of columns — the paths of its shape,
//! in preorder — and every rule is rewritten over them.
//!
//! A relation's shape is the union of the paths of its domains and of every term that
//! occurs in its atoms (a variable contributes the paths of its own tree). `init`,
//! `next` and `true` share one shape, as do `legal` and `does`, so tuples move between
//! them column by column. A GDL variable becomes one flat variable per path of its
//! tree; a column the term does not reach holds [`NIL`].

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::domains::{symbol_of, variable_trees};
use super::tree::{Domains, Tree};
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    Arg, Column, FlatAtom, FlatLiteral, FlatRule, FlatVar, Keyword, NIL, Path, Relation,
    RelationId, SymbolId, Symbols, VarId, child_path, split_path,
};
use crate::normalize::deps::{RelationKey, key_of};
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Term};

/// The relations (with columns) and flattened rules of a game.
pub struct Flattened {
    /// Relations sorted by key; index = [`RelationId`].
    pub relations: Vec<Relation>,
    /// Flattened rules, in normalised order.
    pub rules: Vec<FlatRule>,
}

/// Adds the paths of `term`, which stands at `path`, to `shape`.
fn term_paths(
    term: &Term,
    path: &[u32],
    vars: &HashMap<String, Tree>,
    symbols: &mut Symbols,
    shape: &mut BTreeSet<Path>,
) {
    shape.insert(path.to_vec());
    match term {
        Term::Var(name) => {
            if let Some(tree) = vars.get(&name.text) {
                for sub in tree.nodes.keys() {
                    let mut full = path.to_vec();
                    full.extend_from_slice(sub);
                    shape.insert(full);
                }
            }
        }
        Term::Const(_) => {}
        Term::Func { args, .. } => {
            let Some(functor) = symbol_of(symbols, term) else {
                return;
            };
            for (j, arg) in args.iter().enumerate() {
                term_paths(arg, &child_path(path, functor, j), vars, symbols, shape);
            }
        }
    }
}

fn atom_paths(
    atom: &Atom,
    vars: &HashMap<String, Tree>,
    symbols: &mut Symbols,
    shape: &mut BTreeSet<Path>,
) {
    for (i, arg) in atom.args.iter().enumerate() {
        term_paths(arg, &[i as u32], vars, symbols, shape);
    }
}

/// Flattens a checked game whose domains are known.
pub fn flatten(
    rules: &[Rule],
    domains: &Domains,
    relation_colours: &BTreeMap<(String, usize), u32>,
    symbols: &mut Symbols,
) -> Result<Flattened, Diagnostic> {
    // Shapes: domain paths, then every occurrence.
    let mut shapes: BTreeMap<RelationKey, BTreeSet<Path>> = domains
        .iter()
        .map(|(key, tree)| (key.clone(), tree.nodes.keys().cloned().collect()))
        .collect();
    let mut rule_vars = Vec::with_capacity(rules.len());
    for rule in rules {
        let vars = variable_trees(rule, domains, symbols);
        atom_paths(
            &rule.head,
            &vars,
            symbols,
            shapes.entry(key_of(&rule.head)).or_default(),
        );
        for literal in &rule.body {
            if let Literal::Pos(atom) | Literal::Neg(atom) = literal {
                atom_paths(
                    atom,
                    &vars,
                    symbols,
                    shapes.entry(key_of(atom)).or_default(),
                );
            }
        }
        rule_vars.push(vars);
    }
    let key = |name: &str, arity: usize| RelationKey {
        name: name.to_owned(),
        arity,
    };
    for group in [
        vec![key("init", 1), key("next", 1), key("true", 1)],
        vec![key("legal", 2), key("does", 2)],
    ] {
        let present: Vec<&RelationKey> = group.iter().filter(|k| shapes.contains_key(k)).collect();
        let union: BTreeSet<Path> = present
            .iter()
            .flat_map(|k| shapes[*k].iter().cloned())
            .collect();
        for k in present {
            shapes.insert(k.clone(), union.clone());
        }
    }

    // Relations numbered by their structural colour, then by name (a relation the
    // colours do not know, made by the analysis, after those of its colour).
    let mut ordered: Vec<(&RelationKey, &BTreeSet<Path>)> = shapes.iter().collect();
    ordered.sort_by_cached_key(|(key, _)| {
        let colour = relation_colours.get(&(key.name.clone(), key.arity));
        (colour.copied().unwrap_or(u32::MAX), (*key).clone())
    });

    // Columns.
    let empty = Tree::default();
    let mut relations = Vec::with_capacity(shapes.len());
    for &(key, shape) in &ordered {
        let tree = domains.get(key).unwrap_or(&empty);
        let paths: Vec<&Path> = shape.iter().collect();
        let mut columns: Vec<Column> = Vec::with_capacity(paths.len());
        for path in paths {
            let step = split_path(path);
            let parent =
                step.and_then(|(parent, _, _)| columns.iter().position(|c| c.path[..] == *parent));
            let mut domain: BTreeSet<SymbolId> = tree.nodes.get(path).cloned().unwrap_or_default();
            if let Some((_, functor, _)) = step {
                // The path is absent whenever the parent holds another symbol (or nil).
                let parent_domain = parent.map_or(&[][..], |p| &columns[p].domain[..]);
                if !tree.nodes.contains_key(path) || parent_domain.iter().any(|&s| s != functor) {
                    domain.insert(NIL);
                }
            }
            columns.push(Column {
                path: path.clone(),
                parent,
                domain: domain.into_iter().collect(),
            });
        }
        relations.push(Relation {
            name: key.name.clone(),
            arity: key.arity,
            keyword: Keyword::of(&key.name, key.arity),
            columns,
        });
    }
    let ids: BTreeMap<RelationKey, RelationId> = ordered
        .iter()
        .enumerate()
        .map(|(i, (k, _))| ((*k).clone(), RelationId(i as u32)))
        .collect();

    // Rules.
    let mut flat_rules = Vec::with_capacity(rules.len());
    for (rule, vars) in rules.iter().zip(&rule_vars) {
        let mut flattener = RuleFlattener {
            relations: &relations,
            ids: &ids,
            vars,
            symbols,
            flat: Vec::new(),
            index: BTreeMap::new(),
        };
        let head = flattener
            .atom(&rule.head)
            .map_err(|path| internal(rule, &path))?;
        let mut body = Vec::with_capacity(rule.body.len());
        for literal in &rule.body {
            body.push(match literal {
                Literal::Pos(atom) => {
                    FlatLiteral::Pos(flattener.atom(atom).map_err(|p| internal(rule, &p))?)
                }
                Literal::Neg(atom) => {
                    FlatLiteral::Neg(flattener.atom(atom).map_err(|p| internal(rule, &p))?)
                }
                Literal::Distinct(a, b, _) => FlatLiteral::Distinct(flattener.pairs(a, b)),
                Literal::Equal(a, b, _) => FlatLiteral::Equal(flattener.pairs(a, b)),
            });
        }
        let vars = flattener.flat;
        flat_rules.push(FlatRule {
            head,
            body,
            vars,
            span: rule.span,
        });
    }
    Ok(Flattened {
        relations,
        rules: flat_rules,
    })
}

fn internal(rule: &Rule, path: &[u32]) -> Diagnostic {
    Diagnostic::error(
        Code::Unbounded,
        format!("internal: path {path:?} is missing from a relation's shape"),
    )
    .at(rule.span, "while flattening this rule")
}

struct RuleFlattener<'a> {
    relations: &'a [Relation],
    ids: &'a BTreeMap<RelationKey, RelationId>,
    vars: &'a HashMap<String, Tree>,
    symbols: &'a mut Symbols,
    flat: Vec<FlatVar>,
    index: BTreeMap<(String, Path), VarId>,
}

impl RuleFlattener<'_> {
    /// The flat variable of GDL variable `name` at `path` inside its value.
    fn var(&mut self, name: &str, path: &[u32]) -> VarId {
        if let Some(&id) = self.index.get(&(name.to_owned(), path.to_vec())) {
            return id;
        }
        let tree = self.vars.get(name);
        let mut domain: BTreeSet<SymbolId> = tree
            .and_then(|t| t.nodes.get(path))
            .cloned()
            .unwrap_or_default();
        if let Some((parent, functor, _)) = split_path(path) {
            let parent_symbols = tree.and_then(|t| t.nodes.get(parent));
            if parent_symbols.is_none_or(|p| p.iter().any(|&s| s != functor)) {
                domain.insert(NIL);
            }
        }
        let id = VarId(self.flat.len() as u32);
        self.flat.push(FlatVar {
            name: name.to_owned(),
            path: path.to_vec(),
            domain: domain.into_iter().collect(),
        });
        self.index.insert((name.to_owned(), path.to_vec()), id);
        id
    }

    /// The variable's paths (its tree's, or just the root).
    fn var_paths(&self, name: &str) -> Vec<Path> {
        match self.vars.get(name) {
            Some(tree) if !tree.nodes.is_empty() => tree.nodes.keys().cloned().collect(),
            _ => vec![Vec::new()],
        }
    }

    /// Flat arguments of `term` by path relative to it.
    fn term_args(&mut self, term: &Term, path: &[u32], out: &mut BTreeMap<Path, Arg>) {
        match term {
            Term::Var(name) => {
                for sub in self.var_paths(&name.text) {
                    let id = self.var(&name.text, &sub);
                    let mut full = path.to_vec();
                    full.extend_from_slice(&sub);
                    out.insert(full, Arg::Var(id));
                }
            }
            Term::Const(_) | Term::Func { .. } => {
                let Some(symbol) = symbol_of(self.symbols, term) else {
                    return;
                };
                out.insert(path.to_vec(), Arg::Sym(symbol));
                if let Term::Func { args, .. } = term {
                    for (j, arg) in args.iter().enumerate() {
                        self.term_args(arg, &child_path(path, symbol, j), out);
                    }
                }
            }
        }
    }

    fn atom(&mut self, atom: &Atom) -> Result<FlatAtom, Path> {
        let key = key_of(atom);
        let Some(&id) = self.ids.get(&key) else {
            return Err(Vec::new());
        };
        let relation = &self.relations[id.0 as usize];
        let mut by_path = BTreeMap::new();
        for (i, arg) in atom.args.iter().enumerate() {
            self.term_args(arg, &[i as u32], &mut by_path);
        }
        let mut args = vec![Arg::Sym(NIL); relation.columns.len()];
        for (path, arg) in by_path {
            let column = relation.column_of(&path).ok_or(path)?;
            args[column] = arg;
        }
        Ok(FlatAtom { relation: id, args })
    }

    fn pairs(&mut self, a: &Term, b: &Term) -> Vec<(Arg, Arg)> {
        let mut left = BTreeMap::new();
        let mut right = BTreeMap::new();
        self.term_args(a, &[], &mut left);
        self.term_args(b, &[], &mut right);
        let paths: BTreeSet<&Path> = left.keys().chain(right.keys()).collect();
        paths
            .into_iter()
            .map(|p| {
                (
                    left.get(p).copied().unwrap_or(Arg::Sym(NIL)),
                    right.get(p).copied().unwrap_or(Arg::Sym(NIL)),
                )
            })
            .collect()
    }
}

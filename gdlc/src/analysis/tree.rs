//! Symbol trees: the symbols that can stand at each argument path of a relation (its
//! domains) or below a variable. What the domain fixpoint (`domains.rs`) computes and
//! the bounded evaluation of recursive relations (`statics.rs`) reads and refines.

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{Path, SymbolId, split_path};
use crate::normalize::deps::RelationKey;

/// Symbols per path: a relation's domains (absolute paths), or a variable's (relative).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// Symbols at each path.
    pub nodes: BTreeMap<Path, BTreeSet<SymbolId>>,
}

impl Tree {
    pub(super) fn add(&mut self, path: &[u32], symbol: SymbolId) -> bool {
        self.nodes.entry(path.to_vec()).or_default().insert(symbol)
    }

    /// The subtree at `at`, with paths relative to it (empty if `at` is absent).
    pub fn subtree(&self, at: &[u32]) -> Tree {
        let mut nodes = BTreeMap::new();
        for (path, symbols) in self.nodes.range(at.to_vec()..) {
            if !path.starts_with(at) {
                break;
            }
            nodes.insert(path[at.len()..].to_vec(), symbols.clone());
        }
        Tree { nodes }
    }

    /// Adds `tree` at `at`; true if anything was new.
    pub(super) fn graft(&mut self, at: &[u32], tree: &Tree) -> bool {
        let mut changed = false;
        for (path, symbols) in &tree.nodes {
            let mut full = at.to_vec();
            full.extend_from_slice(path);
            let slot = self.nodes.entry(full).or_default();
            for &s in symbols {
                changed |= slot.insert(s);
            }
        }
        changed
    }

    /// The path-wise intersection of two variable trees, without nodes that can no
    /// longer occur.
    pub(super) fn intersect(&self, other: &Tree) -> Tree {
        let mut nodes = BTreeMap::new();
        for (path, mine) in &self.nodes {
            if let Some(theirs) = other.nodes.get(path) {
                nodes.insert(path.clone(), mine.intersection(theirs).copied().collect());
            }
        }
        let mut tree = Tree { nodes };
        tree.prune();
        tree
    }

    /// Removes, in a variable tree, empty nodes and nodes whose parent cannot hold
    /// their functor. Paths are visited parents first, so removals cascade.
    pub(super) fn prune(&mut self) {
        let paths: Vec<Path> = self.nodes.keys().cloned().collect();
        for path in paths {
            let reachable = match split_path(&path) {
                None => true,
                Some((parent, functor, _)) => {
                    self.nodes.get(parent).is_some_and(|p| p.contains(&functor))
                }
            };
            if !reachable || self.nodes.get(&path).is_some_and(BTreeSet::is_empty) {
                self.nodes.remove(&path);
            }
        }
    }

    /// Whether the root (path `[]`) has no symbol: the variable cannot be bound.
    pub fn root_is_empty(&self) -> bool {
        self.nodes.get(&Vec::new()).is_none_or(BTreeSet::is_empty)
    }
}

/// Domains of every relation.
pub type Domains = BTreeMap<RelationKey, Tree>;

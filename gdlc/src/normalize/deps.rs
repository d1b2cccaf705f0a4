//! The relation dependency graph of normalised rules and its strongly connected
//! components, in a deterministic dependencies-first order.
//!
//! A node is a relation (name and arity); an edge goes from a rule's head relation to
//! each relation of its positive or negated body atoms. `distinct` and equality are
//! tests, not relations. `true` and `does` have no rules: they are the inputs.

use std::collections::BTreeMap;

use petgraph::graph::{DiGraph, NodeIndex};

use crate::normalize::{Literal, Rule};

/// A relation: its name and arity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelationKey {
    /// Lowercased name.
    pub name: String,
    /// Number of arguments.
    pub arity: usize,
}

impl std::fmt::Display for RelationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.name, self.arity)
    }
}

/// Where one relation depends on another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependency {
    /// The head relation (index into [`DependencyGraph::relations`]).
    pub head: usize,
    /// The body relation.
    pub body: usize,
    /// Whether the body atom is negated.
    pub negative: bool,
    /// Index of the rule.
    pub rule: usize,
    /// Index of the literal in the rule's body.
    pub literal: usize,
}

/// The dependency graph with its components.
#[derive(Clone, Debug)]
pub struct DependencyGraph {
    /// All relations that occur, sorted.
    pub relations: Vec<RelationKey>,
    /// Every head–body dependency, in rule order.
    pub dependencies: Vec<Dependency>,
    /// Strongly connected components, dependencies before dependents; each sorted.
    pub components: Vec<Vec<usize>>,
    /// The component of each relation.
    pub component_of: Vec<usize>,
    /// Whether each component is recursive (has a cycle, possibly a self-loop).
    pub recursive: Vec<bool>,
    index: BTreeMap<RelationKey, usize>,
}

/// The relation of an atom.
pub fn key_of(atom: &crate::syntax::ast::Atom) -> RelationKey {
    RelationKey {
        name: atom.name.text.clone(),
        arity: atom.args.len(),
    }
}

impl DependencyGraph {
    /// Builds the graph of `rules`.
    pub fn build(rules: &[Rule]) -> Self {
        let mut index = BTreeMap::new();
        for rule in rules {
            index.insert(key_of(&rule.head), 0);
            for literal in &rule.body {
                if let Literal::Pos(atom) | Literal::Neg(atom) = literal {
                    index.insert(key_of(atom), 0);
                }
            }
        }
        for (i, slot) in index.values_mut().enumerate() {
            *slot = i;
        }
        let relations: Vec<RelationKey> = index.keys().cloned().collect();
        let mut dependencies = Vec::new();
        for (r, rule) in rules.iter().enumerate() {
            let head = index[&key_of(&rule.head)];
            for (l, literal) in rule.body.iter().enumerate() {
                if let Literal::Pos(atom) | Literal::Neg(atom) = literal {
                    let negative = matches!(literal, Literal::Neg(_));
                    dependencies.push(Dependency {
                        head,
                        body: index[&key_of(atom)],
                        negative,
                        rule: r,
                        literal: l,
                    });
                }
            }
        }
        let mut graph: DiGraph<(), ()> =
            DiGraph::with_capacity(relations.len(), dependencies.len());
        for _ in &relations {
            graph.add_node(());
        }
        for dep in &dependencies {
            graph.update_edge(NodeIndex::new(dep.head), NodeIndex::new(dep.body), ());
        }
        // Tarjan yields components in reverse topological order of the edges head → body,
        // i.e. dependencies first; node and edge order are deterministic.
        let mut components: Vec<Vec<usize>> = petgraph::algo::tarjan_scc(&graph)
            .into_iter()
            .map(|scc| {
                let mut nodes: Vec<usize> = scc.into_iter().map(NodeIndex::index).collect();
                nodes.sort_unstable();
                nodes
            })
            .collect();
        components.shrink_to_fit();
        let mut component_of = vec![0; relations.len()];
        for (c, nodes) in components.iter().enumerate() {
            for &n in nodes {
                component_of[n] = c;
            }
        }
        let mut recursive: Vec<bool> = components.iter().map(|nodes| nodes.len() > 1).collect();
        for dep in &dependencies {
            if dep.head == dep.body {
                recursive[component_of[dep.head]] = true;
            }
        }
        DependencyGraph {
            relations,
            dependencies,
            components,
            component_of,
            recursive,
            index,
        }
    }

    /// The index of a relation, if it occurs.
    pub fn relation(&self, name: &str, arity: usize) -> Option<usize> {
        self.index
            .get(&RelationKey {
                name: name.to_owned(),
                arity,
            })
            .copied()
    }

    /// Whether relations `a` and `b` are in the same component.
    pub fn same_component(&self, a: usize, b: usize) -> bool {
        self.component_of[a] == self.component_of[b]
    }

    /// Every relation `relation` depends on, directly or not (itself included), as a
    /// sorted list of indices.
    pub fn cone(&self, relation: usize) -> Vec<usize> {
        let mut seen = vec![false; self.relations.len()];
        let mut stack = vec![relation];
        seen[relation] = true;
        while let Some(r) = stack.pop() {
            for dep in self.dependencies.iter().filter(|d| d.head == r) {
                if !seen[dep.body] {
                    seen[dep.body] = true;
                    stack.push(dep.body);
                }
            }
        }
        (0..seen.len()).filter(|&r| seen[r]).collect()
    }
}

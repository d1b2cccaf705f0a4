//! Layers: the strongly connected components of the relation dependency graph in
//! evaluation order (from [`crate::normalize::deps`]), each acyclic (computed once) or cyclic
//! (computed to a fixpoint), with its phase — static relations depend on neither `true`
//! nor `does` and are computed at compile time — its rules, and for every entry point
//! the layers it needs.

use std::collections::BTreeMap;

use crate::ir::{Entry, Keyword, Layer, Phase, Relation, RelationId};
use crate::normalize::Rule;
use crate::normalize::deps::{DependencyGraph, RelationKey};

/// Layers, the layer of each relation, and the cone of each entry point.
pub struct Layering {
    /// Layers in evaluation order.
    pub layers: Vec<Layer>,
    /// Layer of each relation.
    pub layer_of: Vec<usize>,
    /// Layers needed by each entry point the game has.
    pub cones: Vec<(Entry, Vec<usize>)>,
}

/// Layers the relations of a flattened game (`relations` sorted by key, as the IR
/// holds them; `rules` the normalised rules, in the IR's order).
pub fn layer(rules: &[Rule], relations: &[Relation]) -> Layering {
    let graph = DependencyGraph::build(rules);
    let ids: BTreeMap<RelationKey, RelationId> = relations
        .iter()
        .enumerate()
        .map(|(i, r)| {
            (
                RelationKey {
                    name: r.name.clone(),
                    arity: r.arity,
                },
                RelationId(i as u32),
            )
        })
        .collect();
    let id_of = |g: usize| ids.get(&graph.relations[g]).copied();

    // Phases from the cones of the graph.
    let true_rel = graph.relation("true", 1);
    let does_rel = graph.relation("does", 2);
    let phase_of = |g: usize| {
        let cone = graph.cone(g);
        if does_rel.is_some_and(|d| cone.contains(&d)) {
            Phase::Move
        } else if true_rel.is_some_and(|t| cone.contains(&t)) {
            Phase::State
        } else {
            Phase::Static
        }
    };

    let mut layers = Vec::new();
    let mut layer_of = vec![usize::MAX; relations.len()];
    // Relations the rules never mention (only linked by domains) come first, alone.
    for (i, relation) in relations.iter().enumerate() {
        if graph.relation(&relation.name, relation.arity).is_none() {
            let phase = match relation.keyword {
                Some(Keyword::True) => Phase::State,
                Some(Keyword::Does) => Phase::Move,
                _ => Phase::Static,
            };
            layer_of[i] = layers.len();
            layers.push(Layer {
                relations: vec![RelationId(i as u32)],
                cyclic: false,
                phase,
                rules: Vec::new(),
            });
        }
    }
    for (c, members) in graph.components.iter().enumerate() {
        let mut rels: Vec<RelationId> = members.iter().filter_map(|&g| id_of(g)).collect();
        rels.sort_unstable();
        let phase = members
            .iter()
            .map(|&g| phase_of(g))
            .max()
            .unwrap_or(Phase::Static);
        for r in &rels {
            layer_of[r.0 as usize] = layers.len();
        }
        let rules_here: Vec<usize> = rules
            .iter()
            .enumerate()
            .filter(|(_, rule)| {
                graph
                    .relation(&rule.head.name.text, rule.head.args.len())
                    .is_some_and(|g| graph.component_of[g] == c)
            })
            .map(|(i, _)| i)
            .collect();
        layers.push(Layer {
            relations: rels,
            cyclic: graph.recursive[c],
            phase,
            rules: rules_here,
        });
    }

    let offset = layers.len() - graph.components.len();
    let mut cones = Vec::new();
    for entry in Entry::ALL {
        let Some(relation) = relations
            .iter()
            .position(|r| r.keyword == Some(entry.keyword()))
        else {
            continue;
        };
        let mut needed: Vec<usize> =
            match graph.relation(&relations[relation].name, relations[relation].arity) {
                Some(g) => graph
                    .cone(g)
                    .into_iter()
                    .map(|r| graph.component_of[r] + offset)
                    .collect(),
                None => vec![layer_of[relation]],
            };
        needed.sort_unstable();
        needed.dedup();
        cones.push((entry, needed));
    }
    Layering {
        layers,
        layer_of,
        cones,
    }
}

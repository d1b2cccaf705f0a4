//! Simplification of a grounding, as propnet builders optimise their networks: atoms
//! that only restate something else are replaced, in every body that reads them, by
//! what they restate.
//!
//! - **Aliases**: an atom whose only instance has one literal is that literal (the
//!   last cell of a line, "the line of one cell from here" is "my piece is here").
//! - **Constants**: an atom with an instance of empty body always holds: read
//!   positively it is dropped from a body, negatively the reading instance never holds.
//! - **Subsumed instances**: an instance whose body holds every literal of a shorter
//!   instance of the same head adds nothing, and is dropped.
//! - **Duplicates**: atoms with the same instances (the same set of bodies) are one
//!   atom: the first one stands for the others ("the cells from here going north" and
//!   "from there going south" are the same two cells). Only atoms of one phase are
//!   merged (a relation's phase is that of its most dependent rule, so an atom of a
//!   move-dependent relation can have the same bodies as a state atom).
//!
//! - **One move per role**: a body that reads two different moves of one role never
//!   holds, and is dropped; beside a move of its role, "not that other move" always
//!   holds, and is dropped from the body.
//!
//! Only atoms that no entry point reads directly are replaced: `legal`, `goal`,
//! `terminal`, `sees` and `next` keep their instances (the backends read them), though
//! their bodies are simplified too. A replaced atom keeps its number and loses its
//! instances: nothing reads it any more. The passes repeat until nothing changes (a
//! replacement can make new aliases and duplicates).

use rustc_hash::FxHashMap as HashMap;

use super::{AtomId, Grounding, Instance, Literal, normalize_body};
use crate::ir::{Ir, Keyword, Phase, RelationId};

/// The most rounds of replacement (each round replaces every alias, constant and
/// duplicate found; a chain of `k` aliases takes one round, as aliases are followed).
const MAX_ROUNDS: usize = 16;

/// What an atom is replaced by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Replacement {
    /// A literal (an alias, or the first of duplicates).
    Literal(Literal),
    /// Always holds.
    True,
}

/// The grounding with aliases, constants and duplicates replaced (see the module docs).
pub fn simplify(ir: &Ir, mut g: Grounding) -> Grounding {
    let entries: Vec<RelationId> = [
        Keyword::Legal,
        Keyword::Goal,
        Keyword::Terminal,
        Keyword::Sees,
        Keyword::Next,
    ]
    .into_iter()
    .filter_map(|k| ir.keyword(k))
    .collect();
    let replaceable: Vec<bool> = g
        .atoms
        .iter()
        .map(|atom| !entries.contains(&atom.relation))
        .collect();
    g.instances = drop_subsumed(one_move_per_role(ir, std::mem::take(&mut g.instances), &g));
    for _ in 0..MAX_ROUNDS {
        let replacements = replacements(ir, &g, &replaceable);
        if replacements.is_empty() {
            break;
        }
        g.instances = drop_subsumed(rewrite(&g.instances, &replacements));
    }
    g
}

/// The instances without those that read two different moves of one role, and without
/// the negated moves of a role whose move the body reads (see the module docs).
fn one_move_per_role(ir: &Ir, instances: Vec<Instance>, g: &Grounding) -> Vec<Instance> {
    let Some(does) = ir.keyword(Keyword::Does) else {
        return instances;
    };
    // The role of each `does` atom (its first column).
    let role_of = |a: AtomId| {
        let atom = &g.atoms[a as usize];
        (atom.relation == does).then(|| atom.tuple[0])
    };
    instances
        .into_iter()
        .filter_map(|mut instance| {
            let played: Vec<(crate::ir::SymbolId, AtomId)> = instance
                .body
                .iter()
                .filter_map(|&l| match l {
                    Literal::Pos(a) => role_of(a).map(|role| (role, a)),
                    Literal::Neg(_) => None,
                })
                .collect();
            if played.is_empty() {
                return Some(instance);
            }
            let exclusive = played
                .iter()
                .any(|&(role, a)| played.iter().any(|&(r, b)| r == role && b != a));
            if exclusive {
                return None;
            }
            instance.body.retain(|&l| match l {
                Literal::Neg(a) => match role_of(a) {
                    Some(role) => !played.iter().any(|&(r, b)| r == role && b != a),
                    None => true,
                },
                Literal::Pos(_) => true,
            });
            Some(instance)
        })
        .collect()
}

/// The most instances of one head compared pairwise for subsumption.
const MAX_SUBSUMPTION: usize = 64;

/// The instances (sorted by head then body) without those another instance of the same
/// head subsumes: a body that holds every literal of a shorter one adds nothing to the
/// OR (`h ← a` makes `h ← a ∧ b` redundant). Heads with more than
/// [`MAX_SUBSUMPTION`] instances are left as they are.
fn drop_subsumed(instances: Vec<Instance>) -> Vec<Instance> {
    let mut keep = vec![true; instances.len()];
    let mut start = 0;
    while start < instances.len() {
        let head = instances[start].head;
        let end = start
            + instances[start..]
                .iter()
                .take_while(|i| i.head == head)
                .count();
        if end - start <= MAX_SUBSUMPTION {
            for j in start..end {
                keep[j] = !(start..end).any(|i| {
                    i != j
                        && keep[i]
                        && instances[i].body.len() < instances[j].body.len()
                        && is_subset(&instances[i].body, &instances[j].body)
                });
            }
        }
        start = end;
    }
    instances
        .into_iter()
        .zip(keep)
        .filter_map(|(instance, keep)| keep.then_some(instance))
        .collect()
}

/// Whether every literal of `small` is in `large` (both sorted).
fn is_subset(small: &[Literal], large: &[Literal]) -> bool {
    let mut rest = large.iter();
    small.iter().all(|l| rest.any(|m| m == l))
}

/// This round's replacements: aliases and constants, and duplicates among the rest.
fn replacements(ir: &Ir, g: &Grounding, replaceable: &[bool]) -> HashMap<AtomId, Replacement> {
    let mut by_head: Vec<&[Instance]> = vec![&[]; g.atoms.len()];
    let mut start = 0;
    while start < g.instances.len() {
        let head = g.instances[start].head;
        let end = start
            + g.instances[start..]
                .iter()
                .take_while(|i| i.head == head)
                .count();
        by_head[head as usize] = &g.instances[start..end];
        start = end;
    }
    let mut replacements: HashMap<AtomId, Replacement> = HashMap::default();
    let mut first_with: HashMap<(Phase, Vec<&[Literal]>), AtomId> = HashMap::default();
    for (a, instances) in by_head.iter().enumerate() {
        let atom = a as AtomId;
        if !replaceable[a] || instances.is_empty() {
            continue;
        }
        if instances.iter().any(|i| i.body.is_empty()) {
            replacements.insert(atom, Replacement::True);
            continue;
        }
        if let [instance] = instances
            && let [literal] = instance.body[..]
            && literal.atom() != atom
        {
            replacements.insert(atom, Replacement::Literal(literal));
            continue;
        }
        // Bodies that read the atom itself are not compared (recursion).
        if instances
            .iter()
            .any(|i| i.body.iter().any(|l| l.atom() == atom))
        {
            continue;
        }
        // Only atoms of one phase are merged: a state atom's readers must not read a
        // move-dependent one, which the state code does not compute.
        let phase = g.phase(ir, g.atoms[a].relation);
        let bodies: Vec<&[Literal]> = instances.iter().map(|i| i.body.as_slice()).collect();
        match first_with.get(&(phase, bodies.clone())) {
            Some(&first) => {
                replacements.insert(atom, Replacement::Literal(Literal::Pos(first)));
            }
            None => {
                first_with.insert((phase, bodies), atom);
            }
        }
    }
    replacements
}

/// What a literal becomes: a literal, or a constant (`true`: it always holds).
fn resolve(literal: Literal, replacements: &HashMap<AtomId, Replacement>) -> Result<Literal, bool> {
    let mut literal = literal;
    // Aliases chain (each step to another atom; a cycle of aliases cannot reach a
    // fixpoint here, so it stops after as many steps as there are replacements).
    for _ in 0..=replacements.len() {
        let (atom, positive) = match literal {
            Literal::Pos(a) => (a, true),
            Literal::Neg(a) => (a, false),
        };
        match replacements.get(&atom) {
            None => return Ok(literal),
            Some(Replacement::True) => return Err(positive),
            Some(&Replacement::Literal(to)) => {
                literal = if positive {
                    to
                } else {
                    match to {
                        Literal::Pos(b) => Literal::Neg(b),
                        Literal::Neg(b) => Literal::Pos(b),
                    }
                };
            }
        }
    }
    Ok(literal)
}

/// The instances with the replaced atoms' instances dropped and their readings
/// replaced, sorted by head then body, without duplicates.
fn rewrite(instances: &[Instance], replacements: &HashMap<AtomId, Replacement>) -> Vec<Instance> {
    let mut result = Vec::with_capacity(instances.len());
    'instances: for instance in instances {
        if replacements.contains_key(&instance.head) {
            continue;
        }
        let mut body = Vec::with_capacity(instance.body.len());
        for &literal in &instance.body {
            match resolve(literal, replacements) {
                Ok(l) => body.push(l),
                Err(true) => {}
                Err(false) => continue 'instances,
            }
        }
        // A contradiction never holds; nor, in the least fixpoint, does an instance
        // that needs its own head.
        if !normalize_body(&mut body) || body.contains(&Literal::Pos(instance.head)) {
            continue;
        }
        result.push(Instance {
            rule: instance.rule,
            head: instance.head,
            body,
        });
    }
    result.sort_by(|a, b| (a.head, &a.body, a.rule).cmp(&(b.head, &b.body, b.rule)));
    result.dedup_by(|a, b| a.head == b.head && a.body == b.body);
    result
}

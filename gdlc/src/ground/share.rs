//! Shared conjunctions: where one instance's body is another instance's body plus one
//! literal, the common part becomes one auxiliary atom that both read, so that it is
//! computed once.
//!
//! The typical case: a role's legal move holds when it is in control and the move's
//! conditions hold, and a "has a legal move" rule (for `terminal`) repeats those
//! conditions without the control. Ground, the conditions are spelled out twice per
//! move; shared, each move's conditions are one atom, the legal move reads it and the
//! control, and "has a legal move" is the OR of those atoms (word-parallel in the
//! ground backend when they are numbered together).
//!
//! Only bodies that are both an instance's whole body and another's body less one
//! literal are shared, and only where that costs no more literals (the gain is in the
//! emitted code: a copy under a guard, an OR of words). The shared atoms belong to
//! auxiliary relations (see [`Grounding::aux_phases`]), one per phase, named `shared
//! conjunction` by [`Grounding::relation_name`].

use rustc_hash::FxHashMap as HashMap;

use super::{Atom, AtomId, Grounding, Instance, Literal};
use crate::ir::{Ir, Phase, RelationId};

/// The fewest literals of a shared conjunction.
const MIN_SHARED: usize = 2;

/// The grounding with shared conjunctions, or `None` when nothing is worth sharing.
/// Every atom keeps its number; the shared atoms come after them.
pub fn share_conjunctions(ir: &Ir, g: &Grounding) -> Option<Grounding> {
    // Each body of at least MIN_SHARED literals: how many instances have it, and the
    // first one's rule.
    let mut whole: HashMap<&[Literal], (usize, usize)> = HashMap::default();
    for instance in &g.instances {
        if instance.body.len() >= MIN_SHARED {
            whole
                .entry(instance.body.as_slice())
                .or_insert((0, instance.rule))
                .0 += 1;
        }
    }
    // Each instance that extends a whole body by one literal: the body and the literal.
    let mut extends: Vec<Option<(Vec<Literal>, Literal)>> = vec![None; g.instances.len()];
    let mut extenders: HashMap<Vec<Literal>, usize> = HashMap::default();
    for (i, instance) in g.instances.iter().enumerate() {
        if instance.body.len() <= MIN_SHARED {
            continue;
        }
        for k in 0..instance.body.len() {
            let mut part = instance.body.clone();
            let rest = part.remove(k);
            if whole.contains_key(part.as_slice()) {
                *extenders.entry(part.clone()).or_default() += 1;
                extends[i] = Some((part, rest));
                break;
            }
        }
    }
    // Worth sharing: no more literals than before (each instance that extends the body
    // then reads one atom and its literal, and the whole bodies one atom: a legal move
    // under its role's control test, and "has a legal move" an OR of words).
    let mut shared: Vec<&Vec<Literal>> = extenders
        .iter()
        .filter(|&(part, &extending)| {
            let wholes = whole[part.as_slice()].0;
            let before = part.len() * (wholes + extending);
            let after = part.len() + wholes + 2 * extending;
            after <= before
        })
        .map(|(part, _)| part)
        .collect();
    if shared.is_empty() {
        return None;
    }
    let phase_of = |part: &[Literal]| {
        part.iter()
            .map(|l| g.phase(ir, g.atoms[l.atom() as usize].relation))
            .max()
            .unwrap_or(Phase::State)
    };
    // Deterministic numbering: by phase, then body.
    shared.sort_by(|a, b| (phase_of(a), *a).cmp(&(phase_of(b), *b)));
    let mut result = g.clone();
    let mut atom_of: HashMap<&[Literal], AtomId> = HashMap::default();
    let mut relation_of: Vec<(Phase, RelationId)> = Vec::new();
    for part in &shared {
        let phase = phase_of(part);
        if relation_of.last().is_none_or(|&(p, _)| p != phase) {
            let relation = RelationId((ir.relations.len() + result.aux_phases.len()) as u32);
            result.aux_phases.push(phase);
            result.shared_relations += 1;
            let at = result.atoms.len() as AtomId;
            result.relation_atoms.push(at..at);
            relation_of.push((phase, relation));
        }
        let relation = relation_of.last().expect("a relation").1;
        let atom = result.atoms.len() as AtomId;
        result.atoms.push(Atom {
            relation,
            tuple: Vec::new(),
        });
        result.input_of.push(None);
        result.relation_atoms.last_mut().expect("its range").end = atom + 1;
        atom_of.insert(part.as_slice(), atom);
    }
    let mut instances = Vec::with_capacity(g.instances.len() + shared.len());
    for (instance, extension) in g.instances.iter().zip(&extends) {
        let mut instance = instance.clone();
        if let Some(&atom) = atom_of.get(instance.body.as_slice()) {
            instance.body = vec![Literal::Pos(atom)];
        } else if let Some((part, rest)) = extension
            && let Some(&atom) = atom_of.get(part.as_slice())
        {
            instance.body = vec![Literal::Pos(atom), *rest];
            instance.body.sort_unstable();
        }
        instances.push(instance);
    }
    for part in &shared {
        instances.push(Instance {
            // The rule of an instance whose whole body it is.
            rule: whole[part.as_slice()].1,
            head: atom_of[part.as_slice()],
            body: (*part).clone(),
        });
    }
    instances.sort_by(|a, b| (a.head, &a.body, a.rule).cmp(&(b.head, &b.body, b.rule)));
    instances.dedup_by(|a, b| a.head == b.head && a.body == b.body);
    result.instances = instances;
    Some(result)
}

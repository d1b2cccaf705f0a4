//! Word-parallel families of the ground backend: atoms of one relation in one shape
//! relative to their own bit, computed together (`family_key`, `families`), and the
//! demand guards that put an atom no reader needs under an `if` on a fluent.

use super::*;

/// An atom's literals as bits of `s` or of a family placed in `d` (`None`: another
/// literal, or an empty instance), with its anchor and signature.
pub(super) fn family_key(
    instances: &[&Instance],
    places: &[Place],
    placed: &[bool],
) -> Option<(&'static str, usize, Vec<Shape>)> {
    let bodies: Vec<Vec<(&'static str, bool, usize)>> = instances
        .iter()
        .map(|instance| {
            instance
                .body
                .iter()
                .map(|&l| {
                    let (Literal::Pos(b) | Literal::Neg(b)) = l;
                    let positive = matches!(l, Literal::Pos(_));
                    match places[b as usize] {
                        Place::State(bit) => Some(("s", positive, bit)),
                        Place::D(bit) if placed[b as usize] => Some(("d", positive, bit)),
                        _ => None,
                    }
                })
                .collect::<Option<Vec<_>>>()
                .filter(|body| !body.is_empty())
        })
        .collect::<Option<_>>()?;
    let literals = || bodies.iter().flatten();
    let array = if literals().any(|l| l.0 == "s") {
        "s"
    } else {
        "d"
    };
    let anchor = literals().filter(|l| l.0 == array).map(|l| l.2).min()?;
    let mut signature: Vec<Shape> = bodies
        .iter()
        .map(|body| {
            let mut shape: Shape = body
                .iter()
                .map(|&(a, p, bit)| (a, p, bit as isize - anchor as isize))
                .collect();
            shape.sort_unstable();
            shape
        })
        .collect();
    signature.sort();
    signature.dedup();
    Some((array, anchor, signature))
}

/// Finds the families among the atoms not placed yet of the state's and the goals'
/// cones (see [`Family`]), those reading earlier families after them, and places
/// them in `d` from bit `d_bits` on. The atoms of `legal` are left to
/// `Placing::legal_moves`, which places them in move order.
pub(super) fn families(
    g: &Grounding,
    by_head: &[Vec<&Instance>],
    places: &mut [Place],
    d_bits: &mut usize,
    order: &[(Vec<AtomId>, bool)],
    cones: &[&[bool]; 2],
    legal: Option<RelationId>,
) -> Vec<Family> {
    type Key = (RelationId, bool, &'static str, Vec<Shape>);
    let mut families = Vec::new();
    let mut placed = vec![false; g.atoms.len()];
    loop {
        let mut groups: BTreeMap<Key, Vec<(AtomId, usize)>> = BTreeMap::new();
        for (atoms, cyclic) in order {
            if *cyclic {
                continue;
            }
            for &a in atoms {
                let i = a as usize;
                let Some(goals) = (0..2).find(|&c| cones[c][i]).map(|c| c == 1) else {
                    continue;
                };
                if places[i] != Place::Never || Some(g.atoms[i].relation) == legal {
                    continue;
                }
                let Some((array, anchor, signature)) = family_key(&by_head[i], places, &placed)
                else {
                    continue;
                };
                groups
                    .entry((g.atoms[i].relation, goals, array, signature))
                    .or_default()
                    .push((a, anchor));
            }
        }
        let found: Vec<Family> = groups
            .into_iter()
            .filter(|(_, atoms)| {
                let mut anchors: Vec<usize> = atoms.iter().map(|&(_, anchor)| anchor).collect();
                anchors.sort_unstable();
                anchors.dedup();
                // Two atoms at one anchor would share a bit.
                atoms.len() >= MIN_FAMILY && anchors.len() == atoms.len()
            })
            .map(|((relation, _, _, shapes), atoms)| Family {
                relation,
                atoms,
                shapes,
            })
            .collect();
        if found.is_empty() {
            return families;
        }
        for family in found {
            // The first atom at the first free bit with its anchor's bit in the word.
            let min_anchor = family.atoms.iter().map(|&(_, anchor)| anchor).min();
            let min_anchor = min_anchor.expect("atoms");
            let start = d_bits.next_multiple_of(64) + min_anchor % 64;
            let offset = start as isize - min_anchor as isize;
            for &(a, anchor) in &family.atoms {
                let bit = (anchor as isize + offset) as usize;
                places[a as usize] = Place::D(bit);
                placed[a as usize] = true;
                *d_bits = (*d_bits).max(bit + 1);
            }
            families.push(family);
        }
    }
}

/// Per atom, a fluent without which the atom's value is never used, if there is one:
/// the *demand guard* it is computed under.
///
/// An atom's value matters only when one of its readers (the rule instances whose body
/// holds it) can hold; a reader holds only when every fluent it *implies* holds: its
/// positive fluent literals, the fluents every instance of its positive derived atoms
/// implies, for `does(r, m)` the fluents `legal(r, m)` implies (a played move is
/// legal), and its head's own demand guard. The fluents every reader implies are the
/// atom's candidates; of those, the one that is a candidate of the most atoms is its
/// guard, so that atoms share `if` blocks. A player's `has a legal move at (x, y)`,
/// read only by its legal moves (under `(control ?player)`), is computed only for the
/// player in control.
///
/// Entry points (`legal`, `terminal`, `goal`, `sees`, `next`) and recursive atoms get
/// no guard: the runtime reads the former, and the latter are computed by iteration.
pub(super) fn demand_guards(
    ir: &Ir,
    g: &Grounding,
    places: &[Place],
    order: &[(Vec<AtomId>, bool)],
) -> Vec<Option<AtomId>> {
    let n = g.atoms.len();
    let relation_of = |k: Keyword| ir.keyword(k);
    let entries: Vec<RelationId> = [
        Keyword::Legal,
        Keyword::Terminal,
        Keyword::Goal,
        Keyword::Sees,
        Keyword::Next,
    ]
    .into_iter()
    .filter_map(relation_of)
    .collect();
    let is_fluent = |a: AtomId| matches!(places[a as usize], Place::State(_));
    let mut by_head: Vec<Vec<&Instance>> = vec![Vec::new(); n];
    let mut readers: Vec<Vec<&Instance>> = vec![Vec::new(); n];
    for instance in &g.instances {
        by_head[instance.head as usize].push(instance);
        for &literal in &instance.body {
            readers[literal.atom() as usize].push(instance);
        }
    }
    let intersect = |a: &[AtomId], b: &[AtomId]| -> Vec<AtomId> {
        a.iter()
            .copied()
            .filter(|x| b.binary_search(x).is_ok())
            .collect()
    };
    let mut cyclic = vec![false; n];
    for (atoms, is_cyclic) in order {
        for &a in atoms {
            cyclic[a as usize] = *is_cyclic;
        }
    }
    // The fluents a body implies, with `also`, sorted: its positive fluent literals
    // and what its positive derived literals imply.
    let body_implies =
        |body: &[Literal], mut also: Vec<AtomId>, implied: &[Option<Vec<AtomId>>]| -> Vec<AtomId> {
            for &literal in body {
                if let Literal::Pos(b) = literal {
                    if is_fluent(b) {
                        also.push(b);
                    } else if let Some(more) = &implied[b as usize] {
                        also.extend(more);
                    }
                }
            }
            also.sort_unstable();
            also.dedup();
            also
        };
    // The fluents each derived atom implies (`None`: not computed, or recursive).
    let mut implied: Vec<Option<Vec<AtomId>>> = vec![None; n];
    for (atoms, is_cyclic) in order {
        if *is_cyclic {
            continue;
        }
        for &a in atoms {
            let mut common: Option<Vec<AtomId>> = None;
            for instance in &by_head[a as usize] {
                let holds = body_implies(&instance.body, Vec::new(), &implied);
                common = Some(match common {
                    None => holds,
                    Some(c) => intersect(&c, &holds),
                });
            }
            implied[a as usize] = Some(common.unwrap_or_default());
        }
    }
    // `does(r, m)` implies what `legal(r, m)` implies.
    for a in 0..n {
        if let Some(does) = g.input_of[a]
            && Some(g.atoms[a].relation) == relation_of(Keyword::Legal)
        {
            implied[does as usize] = implied[a].clone();
        }
    }
    // Candidates, readers first.
    let mut candidates: Vec<Vec<AtomId>> = vec![Vec::new(); n];
    for (atoms, is_cyclic) in order.iter().rev() {
        if *is_cyclic {
            continue;
        }
        for &a in atoms {
            let i = a as usize;
            if entries.contains(&g.atoms[i].relation) || readers[i].is_empty() {
                continue;
            }
            let mut common: Option<Vec<AtomId>> = None;
            for reader in &readers[i] {
                let head_guard = candidates[reader.head as usize].clone();
                let holds = body_implies(&reader.body, head_guard, &implied);
                common = Some(match common {
                    None => holds,
                    Some(c) => intersect(&c, &holds),
                });
                if common.as_ref().is_some_and(Vec::is_empty) {
                    break;
                }
            }
            candidates[i] = common.unwrap_or_default();
        }
    }
    let mut counts: BTreeMap<AtomId, usize> = BTreeMap::new();
    for list in &candidates {
        for &c in list {
            *counts.entry(c).or_default() += 1;
        }
    }
    candidates
        .iter()
        .enumerate()
        .map(|(a, list)| {
            if cyclic[a] {
                return None;
            }
            list.iter()
                .copied()
                .max_by_key(|c| (counts[c], std::cmp::Reverse(*c)))
        })
        .collect()
}

/// Copies of instances with some literals left out of their bodies (those a guard or
/// a common factor tests once for all of them).
pub(super) fn without<'i>(
    instances: impl Iterator<Item = &'i Instance>,
    left_out: &[Literal],
) -> Vec<Instance> {
    instances
        .map(|i| Instance {
            rule: i.rule,
            head: i.head,
            body: i
                .body
                .iter()
                .copied()
                .filter(|l| !left_out.contains(l))
                .collect(),
        })
        .collect()
}

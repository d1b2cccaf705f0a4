//! Projection of rule bodies into auxiliary relations, for the projected grounding
//! (see [`super::ground`]): a rule's instances multiply by the bindings of every
//! variable of its body, so a part of the body that reads the state or the moves and
//! shares few variables with the rest is grounded once as an auxiliary relation over
//! those variables, and the rule reads that instead.
//!
//! Two shapes are found, both from the body's variables alone (never from names):
//!
//! - **existential components** ([`project_rule`]): literals connected by variables the
//!   head lacks, and sharing none of them with the rest — `(does ?p (mark ?anyX
//!   ?anyY))` becomes one atom per role;
//! - **a part joined to the rest by few variables** ([`split_rule`]), when no component
//!   projects (it reads the state, not the moves): "a queen on the diagonal `?c`" in `(attacked ?r ?c2) :- (true (cell
//!   ?r2 ?c3 queen)) (plus ?r2 ?c3 ?c) (plus ?r ?c2 ?c)` is an auxiliary relation over
//!   `?c`, grounded once per diagonal instead of once per square; "a piece of `?color`
//!   diagonally next to `(?x, ?y)`" is one over `?x ?y ?color` whatever shape is placed.
//!
//! Both are only offers: the grounder undoes every projection that does not save
//! literals once the instances are known (`inline_unprofitable`).

use super::rules::{RuleSpec, literal_vars};
use super::*;

/// Bodies with more literals than this are not searched for a part to split off
/// (the search looks at every subset of the body).
const MAX_SPLIT_LITERALS: usize = 12;

/// Parts split off one rule at most.
const MAX_SPLITS: usize = 2;

/// A rule with its existential components projected (see [`ground`]): the body's
/// literals connected by variables the head does not have form components; each
/// component that reads a state- or move-dependent relation, binds its head variables
/// with its own positive literals and leaves other literals in the body becomes an
/// auxiliary relation over those head variables (`aux_phases` grows by one per
/// component). Returns the auxiliary rules, then the rule reading them. When no
/// component projects, the body is split instead ([`split_rule`]).
pub(super) fn project_rule(
    ir: &Ir,
    tables: &[Table],
    rule: RuleSpec,
    aux_phases: &mut Vec<Phase>,
) -> Vec<RuleSpec> {
    let mut head_vars = vec![false; rule.num_vars];
    for v in literal_vars(&FlatLiteral::Pos(rule.head.clone())) {
        head_vars[v as usize] = true;
    }
    // Union-find over literals joined by a shared non-head variable.
    let n = rule.body.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut owner: Vec<Option<usize>> = vec![None; rule.num_vars];
    for (i, literal) in rule.body.iter().enumerate() {
        for v in literal_vars(literal) {
            if head_vars[v as usize] {
                continue;
            }
            match owner[v as usize] {
                Some(j) => {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    parent[a] = b;
                }
                None => owner[v as usize] = Some(i),
            }
        }
    }
    let mut components: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for i in 0..n {
        let r = root(&mut parent, i);
        components.entry(r).or_default().push(i);
    }
    let phase_of = |r: RelationId| ir.layers[ir.layer_of[r.0 as usize]].phase;
    let mut projected = vec![false; n];
    let mut out = Vec::new();
    let mut main_body = Vec::new();
    for members in components.values() {
        if members.len() == n {
            break;
        }
        let vars: Vec<u32> = members
            .iter()
            .flat_map(|&i| literal_vars(&rule.body[i]))
            .collect();
        if vars.iter().all(|&v| head_vars[v as usize]) {
            continue;
        }
        let mut phase = Phase::Static;
        let mut dynamic = false;
        let mut positive_vars = vec![false; rule.num_vars];
        for &i in members {
            if let FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) = &rule.body[i] {
                let r = atom.relation.0 as usize;
                if r < ir.relations.len() && !tables[r].is_static {
                    dynamic = true;
                    phase = phase.max(phase_of(atom.relation));
                }
            }
            if let FlatLiteral::Pos(_) = &rule.body[i] {
                for v in literal_vars(&rule.body[i]) {
                    positive_vars[v as usize] = true;
                }
            }
        }
        let mut interface: Vec<u32> = vars
            .iter()
            .copied()
            .filter(|&v| head_vars[v as usize])
            .collect();
        interface.sort_unstable();
        interface.dedup();
        if !dynamic || interface.iter().any(|&v| !positive_vars[v as usize]) {
            continue;
        }
        let aux = RelationId((ir.relations.len() + aux_phases.len()) as u32);
        aux_phases.push(phase);
        let aux_atom = FlatAtom {
            relation: aux,
            args: interface
                .iter()
                .map(|&v| Arg::Var(crate::ir::VarId(v)))
                .collect(),
        };
        out.push(RuleSpec {
            rule: rule.rule,
            head: aux_atom.clone(),
            body: members.iter().map(|&i| rule.body[i].clone()).collect(),
            num_vars: rule.num_vars,
            members: Vec::new(),
        });
        main_body.push(FlatLiteral::Pos(aux_atom));
        for &i in members {
            projected[i] = true;
        }
    }
    if out.is_empty() {
        return split_rule(ir, tables, rule, aux_phases);
    }
    for (i, literal) in rule.body.iter().enumerate() {
        if !projected[i] {
            main_body.push(literal.clone());
        }
    }
    out.push(RuleSpec {
        body: main_body,
        ..rule
    });
    out
}

/// A rule none of whose components projects, with parts split off into auxiliary relations
/// (at most [`MAX_SPLITS`]): each time, the part of the body that reads a
/// state-dependent relation and is joined to the rest of the rule (and its head) by the
/// fewest variables ([`best_part`]) becomes an auxiliary relation over those variables.
/// Returns the auxiliary rules, then the rule reading them; the rule alone when no part
/// is found.
fn split_rule(
    ir: &Ir,
    tables: &[Table],
    mut rule: RuleSpec,
    aux_phases: &mut Vec<Phase>,
) -> Vec<RuleSpec> {
    let mut out = Vec::new();
    for _ in 0..MAX_SPLITS {
        let Some(part) = best_part(ir, tables, &rule) else {
            break;
        };
        let aux = RelationId((ir.relations.len() + aux_phases.len()) as u32);
        aux_phases.push(Phase::State);
        let aux_atom = FlatAtom {
            relation: aux,
            args: part
                .interface
                .iter()
                .map(|&v| Arg::Var(crate::ir::VarId(v)))
                .collect(),
        };
        let (inside, outside): (Vec<_>, Vec<_>) = rule
            .body
            .into_iter()
            .enumerate()
            .partition(|(i, _)| part.literals & (1 << i) != 0);
        out.push(RuleSpec {
            rule: rule.rule,
            head: aux_atom.clone(),
            body: inside.into_iter().map(|(_, l)| l).collect(),
            num_vars: rule.num_vars,
            members: Vec::new(),
        });
        let mut body = vec![FlatLiteral::Pos(aux_atom)];
        body.extend(outside.into_iter().map(|(_, l)| l));
        rule = RuleSpec { body, ..rule };
    }
    out.push(rule);
    out
}

/// A part of a rule body to split off (see [`best_part`]).
struct Part {
    /// The body's literals in it, as bits.
    literals: u32,
    /// The variables it shares with the rest of the rule and its head, ascending.
    interface: Vec<u32>,
}

/// The part of `rule`'s body to split off, if any: a proper subset of the literals
/// that reads a state-dependent relation and none that depends on the moves (a rule
/// reading `does` is best run under the move played, which the ground backend does
/// when `does` stays in its instances), nor an auxiliary relation (the only ones in
/// the body are this rule's own earlier splits); whose literals are connected by
/// variables found nowhere else in the rule (at least one), which lacks some variable
/// of the rule (else it would have as many instances as the rule: nothing is saved),
/// and whose variables shared with the rest are bound by its own positive literals.
/// Of those, the one sharing the fewest variables, then the smallest (fewest variables
/// of its own, then fewest literals: of two ghosts each tested apart from the player,
/// one is split off at a time), then first in body order.
fn best_part(ir: &Ir, tables: &[Table], rule: &RuleSpec) -> Option<Part> {
    let n = rule.body.len();
    if !(2..=MAX_SPLIT_LITERALS).contains(&n) || rule.num_vars > 64 {
        return None;
    }
    let vars: Vec<u64> = rule
        .body
        .iter()
        .map(|l| var_bits(&literal_vars(l)))
        .collect();
    let head = var_bits(&literal_vars(&FlatLiteral::Pos(rule.head.clone())));
    let all = vars.iter().fold(head, |acc, v| acc | v);
    let positive: Vec<bool> = rule
        .body
        .iter()
        .map(|l| matches!(l, FlatLiteral::Pos(_)))
        .collect();
    // Literals reading an auxiliary relation (an earlier split), as bits; and each
    // literal's phase, `None` for a static relation or a test.
    let mut earlier = 0u32;
    let phase: Vec<Option<Phase>> = (rule.body.iter().enumerate())
        .map(|(i, l)| match l {
            FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) => {
                let r = atom.relation.0 as usize;
                if r >= ir.relations.len() {
                    earlier |= 1 << i;
                    None
                } else if tables[r].is_static {
                    None
                } else {
                    Some(ir.layers[ir.layer_of[r]].phase)
                }
            }
            _ => None,
        })
        .collect();
    let mut best: Option<((u32, u32, u32), Part)> = None;
    for mask in 1u32..(1 << n) - 1 {
        let members = || (0..n).filter(move |&i| mask & (1 << i) != 0);
        if mask & earlier != 0 || members().filter_map(|i| phase[i]).max() != Some(Phase::State) {
            continue;
        }
        let inside = members().fold(0, |acc, i| acc | vars[i]);
        let outside = (0..n)
            .filter(|&i| mask & (1 << i) == 0)
            .fold(head, |acc, i| acc | vars[i]);
        let interface = inside & outside;
        let private = inside & !outside;
        // A part over every variable of the rule would be as large as the rule.
        if private == 0 || inside == all || !connected_by(mask, private, &vars) {
            continue;
        }
        let bound = members()
            .filter(|&i| positive[i])
            .fold(0, |acc, i| acc | vars[i]);
        if interface & !bound != 0 {
            continue;
        }
        let key = (
            interface.count_ones(),
            private.count_ones(),
            mask.count_ones(),
        );
        if best.as_ref().is_none_or(|(best_key, _)| key < *best_key) {
            let part = Part {
                literals: mask,
                interface: (0..64).filter(|v| interface & (1 << v) != 0).collect(),
            };
            best = Some((key, part));
        }
    }
    best.map(|(_, part)| part)
}

/// Variables as bits (the rule has at most 64).
fn var_bits(vars: &[u32]) -> u64 {
    vars.iter().fold(0, |acc, &v| acc | (1 << v))
}

/// Whether the literals of `mask` are connected through the variables of `private`.
fn connected_by(mask: u32, private: u64, vars: &[u64]) -> bool {
    let first = mask.trailing_zeros() as usize;
    let mut reached = 1u32 << first;
    let mut through = vars[first] & private;
    loop {
        let mut grew = false;
        for (i, &v) in vars.iter().enumerate() {
            if mask & (1 << i) != 0 && reached & (1 << i) == 0 && v & through != 0 {
                reached |= 1 << i;
                through |= v & private;
                grew = true;
            }
        }
        if !grew {
            return reached == mask;
        }
    }
}

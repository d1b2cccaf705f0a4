//! Statements of the ground backend: the atoms of `eval_state` and `eval_goals` in
//! evaluation order — under nested guards, head-parallel by family, or repeated to a
//! fixpoint where they are recursive — and the clearing of `d`'s words.

use super::*;

impl<'a> Layout<'a> {
    /// Statements computing the atoms of one function (`wanted`), in evaluation order.
    ///
    /// Atoms no other atom of the function reads (legal moves, goals …) that share a
    /// guard — a positive literal in every instance, held by at least [`MIN_GUARDED`]
    /// of them — come last, under `if` on the guard, without it: the atoms of the role
    /// not in control cost one test.
    pub(super) fn statements(&self, wanted: &[bool], out: &mut String) {
        let guards = self.guards(wanted);
        let mut in_family = vec![false; self.g.atoms.len()];
        for family in &self.families {
            if !family.atoms.iter().any(|&(a, _)| wanted[a as usize]) {
                continue;
            }
            for &(a, _) in &family.atoms {
                in_family[a as usize] = true;
            }
            self.family_statements(family, out);
            out.push_str(CHUNK_MARK);
        }
        // By level (the longest chain of atoms of this function below an atom): atoms
        // of one level do not read each other, so each level's acyclic atoms are
        // computed in any order: head-parallel or under nested guards (see
        // `parallel_statements`).
        let mut level: Vec<Option<usize>> = vec![None; self.g.atoms.len()];
        let mut levels: Vec<(Vec<Vec<AtomId>>, Vec<AtomId>)> = Vec::new();
        for (atoms, cyclic) in &self.order {
            let atoms: Vec<AtomId> = atoms
                .iter()
                .copied()
                .filter(|&a| {
                    wanted[a as usize]
                        && !guards.contains_key(&a)
                        && !in_family[a as usize]
                        && self.places[a as usize] != Place::Never
                })
                .collect();
            if atoms.is_empty() {
                continue;
            }
            let at = self.level_above(&atoms, &level);
            for &a in &atoms {
                level[a as usize] = Some(at);
            }
            if levels.len() <= at {
                levels.resize_with(at + 1, Default::default);
            }
            if *cyclic {
                levels[at].0.push(atoms);
            } else {
                levels[at].1.extend(atoms);
            }
        }
        for (cyclic_groups, acyclic) in levels {
            for atoms in cyclic_groups {
                let computed: Vec<(AtomId, String)> =
                    atoms.iter().map(|&a| (a, self.expression(a))).collect();
                self.assign(&computed, true, out);
                out.push_str(CHUNK_MARK);
            }
            // The level's atoms by demand guard (see `demand_guards`): those of one
            // guard with enough literals between them are computed under an `if`.
            let mut by_demand: BTreeMap<Option<AtomId>, Vec<(AtomId, Vec<Instance>)>> =
                BTreeMap::new();
            for &a in &acyclic {
                let rest: Vec<Instance> = self.by_head[a as usize]
                    .iter()
                    .map(|&i| i.clone())
                    .collect();
                by_demand
                    .entry(self.demand.get(a as usize).copied().flatten())
                    .or_default()
                    .push((a, rest));
            }
            let literals = |items: &[(AtomId, Vec<Instance>)]| -> usize {
                items
                    .iter()
                    .flat_map(|(_, rest)| rest)
                    .map(|i| i.body.len())
                    .sum()
            };
            let mut unguarded = by_demand.remove(&None).unwrap_or_default();
            let mut guarded = Vec::new();
            for (guard, items) in by_demand {
                if literals(&items) < MIN_DEMAND_GUARDED {
                    unguarded.extend(items);
                } else {
                    guarded.push((guard.expect("a guard"), items));
                }
            }
            for statement in self.parallel_statements(unguarded) {
                out.push_str(&statement);
                out.push_str(CHUNK_MARK);
            }
            for (guard, items) in guarded {
                let statements = self.parallel_statements(items);
                for block in guarded_blocks(&self.literal(Literal::Pos(guard)), &statements) {
                    out.push_str(&block);
                    out.push_str(CHUNK_MARK);
                }
            }
        }
        let mut by_guard: BTreeMap<AtomId, Vec<AtomId>> = BTreeMap::new();
        for (&a, &guard) in &guards {
            by_guard.entry(guard).or_default().push(a);
        }
        for (guard, atoms) in by_guard {
            let statements = self.guarded_statements(guard, &atoms);
            for block in guarded_blocks(&self.literal(Literal::Pos(guard)), &statements) {
                out.push_str(&block);
                out.push_str(CHUNK_MARK);
            }
        }
    }

    /// The level of a group of `atoms` (the longest chain of atoms below it): one above
    /// the highest `level` of an atom outside the group that its instances read, 0 if
    /// none has one.
    pub(super) fn level_above(&self, atoms: &[AtomId], level: &[Option<usize>]) -> usize {
        atoms
            .iter()
            .flat_map(|&a| &self.by_head[a as usize])
            .flat_map(|i| &i.body)
            .filter_map(|&l| {
                let b = l.atom();
                (!atoms.contains(&b)).then(|| level[b as usize]).flatten()
            })
            .max()
            .map_or(0, |l| l + 1)
    }

    /// The statements of the atoms under one guard, the guard left out of their
    /// instances. Atoms of one instance in the same shape relative to their own bit
    /// (literals from the same arrays, same polarities, same distances) are computed
    /// together, one masked word expression per word of `d` (*head-parallel*); the
    /// guarded atoms are read by no other atom of the function, so their order is free.
    pub(super) fn guarded_statements(&self, guard: AtomId, atoms: &[AtomId]) -> Vec<String> {
        let items = atoms
            .iter()
            .map(|&a| {
                let rest = without(
                    self.by_head[a as usize].iter().copied(),
                    &[Literal::Pos(guard)],
                );
                (a, rest)
            })
            .collect();
        self.parallel_statements(items)
    }

    /// The statements of atoms that no atom among them reads (each with its
    /// instances), in any order: atoms of `d` with one instance in one shape relative
    /// to their own bit are computed head-parallel; the others under nested guards
    /// (see [`Self::guard_tree`]).
    pub(super) fn parallel_statements(&self, items: Vec<(AtomId, Vec<Instance>)>) -> Vec<String> {
        type Shape = Vec<(&'static str, bool, isize)>;
        type Member = (usize, AtomId, Vec<Instance>);
        let mut classes: BTreeMap<Shape, Vec<Member>> = BTreeMap::new();
        let mut single: Vec<(AtomId, Vec<Instance>)> = Vec::new();
        for (a, rest) in items {
            let Place::D(head) = self.places[a as usize] else {
                single.push((a, rest));
                continue;
            };
            let shape: Option<Shape> = match &rest[..] {
                [instance] if !instance.body.is_empty() => instance
                    .body
                    .iter()
                    .map(|&l| {
                        self.bit_of(l).map(|(array, bit, positive)| {
                            (array, positive, bit as isize - head as isize)
                        })
                    })
                    .collect(),
                _ => None,
            };
            match shape {
                Some(mut shape) => {
                    shape.sort_unstable();
                    classes.entry(shape).or_default().push((head, a, rest));
                }
                None => single.push((a, rest)),
            }
        }
        let mut statements = Vec::new();
        for (shape, members) in classes {
            // Per word of `d`, the class' atoms there; a lone one is computed alone
            // (a shifted word costs more than a bit when only one bit is used).
            let mut by_word: BTreeMap<usize, Vec<Member>> = BTreeMap::new();
            for member in members {
                by_word.entry(member.0 / 64).or_default().push(member);
            }
            for (w, members) in by_word {
                if members.len() == 1 {
                    let (_, a, rest) = members.into_iter().next().expect("one member");
                    single.push((a, rest));
                    continue;
                }
                let mask = head_mask(members.iter().map(|&(head, ..)| head));
                let and = self.shape_word(&shape, w, 0, mask);
                statements.push(format!("d[{w}] |= ({and}) & {mask:#x};\n"));
            }
        }
        self.guard_tree(single, &mut statements);
        statements
    }

    /// Statements of atoms that no atom among them reads (each with its instances),
    /// under nested guards: repeatedly, the positive literal that every instance of the
    /// most atoms holds (at least [`MIN_GUARDED`]) becomes an `if` around those atoms,
    /// left out of their instances, and so on inside. A legal move's source square
    /// guards every move from it: an empty square costs one test.
    pub(super) fn guard_tree(
        &self,
        items: Vec<(AtomId, Vec<Instance>)>,
        statements: &mut Vec<String>,
    ) {
        // Each atom with the literals every one of its instances holds, and how many
        // atoms hold each literal so (kept up to date as atoms move inside a guard).
        let mut items: Vec<(AtomId, Vec<Instance>, Vec<Literal>)> = items
            .into_iter()
            .map(|(a, rest)| {
                let common: Vec<Literal> = rest.first().map_or_else(Vec::new, |first| {
                    first
                        .body
                        .iter()
                        .copied()
                        .filter(|&l| {
                            matches!(l, Literal::Pos(b)
                                if matches!(self.places[b as usize], Place::State(_) | Place::D(_)))
                                && rest.iter().all(|i| i.body.contains(&l))
                        })
                        .collect()
                });
                (a, rest, common)
            })
            .collect();
        let mut counts: BTreeMap<Literal, usize> = BTreeMap::new();
        for (_, _, common) in &items {
            for &l in common {
                *counts.entry(l).or_default() += 1;
            }
        }
        loop {
            let best = counts
                .iter()
                .filter(|&(_, &count)| count >= MIN_GUARDED)
                .max_by_key(|&(&l, &count)| (count, std::cmp::Reverse(l)))
                .map(|(&l, _)| l);
            let Some(best) = best else { break };
            let (inside, outside): (Vec<_>, Vec<_>) = items
                .into_iter()
                .partition(|(_, _, common)| common.contains(&best));
            items = outside;
            let inside: Vec<(AtomId, Vec<Instance>)> = inside
                .into_iter()
                .map(|(a, mut rest, common)| {
                    for l in common {
                        *counts.get_mut(&l).expect("counted") -= 1;
                    }
                    for instance in &mut rest {
                        instance.body.retain(|&l| l != best);
                    }
                    (a, rest)
                })
                .collect();
            let mut inner = Vec::new();
            self.guard_tree(inside, &mut inner);
            statements.extend(guarded_blocks(&self.literal(best), &inner));
        }
        for (a, rest, _) in items {
            let refs: Vec<&Instance> = rest.iter().collect();
            let mut text = String::new();
            self.assign(&[(a, self.expression_of(&refs))], false, &mut text);
            statements.push(text);
        }
    }

    /// A family's atoms (see [`Family`]), one statement per word of `d` they occupy,
    /// repeated in a loop of [`Family::rounds`] where its atoms read each other.
    pub(super) fn family_statements(&self, family: &Family, out: &mut String) {
        let Place::D(first) = self.places[family.atoms[0].0 as usize] else {
            unreachable!("a family is in `d`")
        };
        // A multiple of 64: bit `b` of `d` is computed from the bits `b - offset + δ` of
        // the literals' arrays.
        let offset = first as isize - family.atoms[0].1 as isize;
        // Per word, the family's bits and each shape's.
        let mut masks: BTreeMap<usize, (u64, Vec<u64>)> = BTreeMap::new();
        for (&(a, _), holds) in family.atoms.iter().zip(&family.holds) {
            let Place::D(bit) = self.places[a as usize] else {
                unreachable!("a family is in `d`")
            };
            let (all, by_shape) = masks
                .entry(bit / 64)
                .or_insert_with(|| (0, vec![0; family.shapes.len()]));
            *all |= 1 << (bit % 64);
            for &k in holds {
                by_shape[k] |= 1 << (bit % 64);
            }
        }
        // A doc comment on an empty item: the generated text is parsed and printed
        // again, which keeps doc comments only.
        let _ = writeln!(
            out,
            "/// `{}`: {} atoms, word-parallel{}.\nconst _: () = ();",
            self.g.relation_name(self.ir, family.relation),
            family.atoms.len(),
            if family.rounds > 1 {
                format!(", {} rounds", family.rounds)
            } else {
                String::new()
            }
        );
        // Under the family's demand guard, if any; the words it owns are cleared
        // otherwise (nothing else clears them).
        let guard = self.family_guard(family);
        if let Some(guard) = guard {
            let _ = writeln!(out, "if {} & 1 != 0 {{", self.literal(Literal::Pos(guard)));
        }
        if family.rounds > 1 {
            let _ = writeln!(out, "for _ in 0..{} {{", family.rounds);
        }
        for (&w, (mask, by_shape)) in &masks {
            // The shapes by the bits they hold in this word.
            let mut by_mask: BTreeMap<u64, Vec<String>> = BTreeMap::new();
            for (shape, &held) in family.shapes.iter().zip(by_shape) {
                if held != 0 {
                    let and = self.shape_word(shape, w, offset, held);
                    by_mask.entry(held).or_default().push(format!("({and})"));
                }
            }
            let value = if by_mask.len() == 1 && by_mask.contains_key(mask) {
                format!("({}) & {mask:#x}", by_mask[mask].join(" | "))
            } else {
                let parts: Vec<String> = by_mask
                    .iter()
                    .map(|(held, ors)| format!("(({}) & {held:#x})", ors.join(" | ")))
                    .collect();
                parts.join(" | ")
            };
            // A word the family owns is assigned whole: `eval_state` does not clear
            // it. Another is OR-ed into, or, computed in rounds, its bits replaced.
            if self.owned.contains(&w) {
                let _ = writeln!(out, "d[{w}] = {value};");
            } else if family.rounds > 1 {
                let _ = writeln!(out, "d[{w}] = (d[{w}] & !{mask:#x}) | {value};");
            } else {
                let _ = writeln!(out, "d[{w}] |= {value};");
            }
        }
        if family.rounds > 1 {
            out.push_str("}\n");
        }
        if guard.is_some() {
            let owned: Vec<&usize> = masks.keys().filter(|w| self.owned.contains(w)).collect();
            if !owned.is_empty() {
                out.push_str("} else {\n");
                for w in owned {
                    let _ = writeln!(out, "d[{w}] = 0;");
                }
            }
            out.push_str("}\n");
        }
    }

    /// The demand guard every atom of `family` has, if any (see `demand_guards`: a
    /// player's moves are needed only for the player in control).
    pub(super) fn family_guard(&self, family: &Family) -> Option<AtomId> {
        family
            .atoms
            .iter()
            .map(|&(a, _)| self.demand.get(a as usize).copied().flatten())
            .reduce(|x, y| if x == y { x } else { None })
            .flatten()
    }

    /// The words of `d` that one family of the state's cone owns — every atom placed
    /// there is that family's — which its statement assigns whole, so `eval_state`
    /// need not clear them (skirmish: 3,000 of its 3,200 words, cleared every state).
    pub(super) fn owned_words(&self) -> BTreeSet<usize> {
        let mut owner: BTreeMap<usize, Option<usize>> = BTreeMap::new();
        let mut family_of: Vec<Option<usize>> = vec![None; self.g.atoms.len()];
        for (f, family) in self.families.iter().enumerate() {
            if family
                .atoms
                .iter()
                .any(|&(a, _)| self.state_cone[a as usize])
            {
                for &(a, _) in &family.atoms {
                    family_of[a as usize] = Some(f);
                }
            }
        }
        for (a, place) in self.places.iter().enumerate() {
            if let Place::D(bit) = *place {
                let f = family_of[a];
                owner
                    .entry(bit / 64)
                    .and_modify(|o| {
                        if *o != f {
                            *o = None;
                        }
                    })
                    .or_insert(f);
            }
        }
        owner
            .into_iter()
            .filter_map(|(w, f)| f.map(|_| w))
            .collect()
    }

    /// The code that clears `d` before `eval_state` (`goals` false) or `eval_goals`
    /// (true): every word an atom is placed in but those a family owns (see
    /// [`Self::owned_words`]); a word whose atoms only goals need is cleared by
    /// `eval_goals`, which runs once per playout where `eval_state` runs every step
    /// (othello-comp2007: 750 of the 755 words it cleared every state). As ranges, or,
    /// for `eval_state`, the whole array when no word is skipped.
    pub(super) fn clear_d(&self, goals: bool) -> String {
        let owned = &self.owned;
        if owned.is_empty() && !goals {
            return "*d = [0; D_WORDS];\n".to_owned();
        }
        // Per word: whether an atom is placed there, and whether only goals need all
        // of them.
        let mut used = vec![false; words(self.d_bits)];
        let mut only_goals = vec![true; words(self.d_bits)];
        for (a, place) in self.places.iter().enumerate() {
            if let Place::D(bit) = *place {
                used[bit / 64] = true;
                only_goals[bit / 64] &= self.goal_cone[a] && !self.state_cone[a];
            }
        }
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (w, &is_used) in used.iter().enumerate() {
            if !is_used || owned.contains(&w) || only_goals[w] != goals {
                continue;
            }
            match ranges.last_mut() {
                Some((_, hi)) if *hi == w => *hi = w + 1,
                _ => ranges.push((w, w + 1)),
            }
        }
        let mut code = String::new();
        if ranges.len() > MAX_CLEARED_RANGES {
            if !goals {
                return "*d = [0; D_WORDS];\n".to_owned();
            }
            let list: Vec<String> = ranges
                .iter()
                .map(|(lo, hi)| format!("({lo}, {hi})"))
                .collect();
            let _ = writeln!(
                code,
                "for (lo, hi) in [{}] {{ d[lo..hi].fill(0); }}",
                list.join(", ")
            );
            return code;
        }
        for (lo, hi) in ranges {
            if hi == lo + 1 {
                let _ = writeln!(code, "d[{lo}] = 0;");
            } else {
                let _ = writeln!(code, "d[{lo}..{hi}].fill(0);");
            }
        }
        code
    }

    /// The guarded atoms of a function (see [`Self::statements`]) and their guards.
    pub(super) fn guards(&self, wanted: &[bool]) -> BTreeMap<AtomId, AtomId> {
        let mut in_family = vec![false; self.g.atoms.len()];
        for family in &self.families {
            for &(a, _) in &family.atoms {
                in_family[a as usize] = true;
            }
        }
        let computed = |a: AtomId| wanted[a as usize] && self.places[a as usize] != Place::Never;
        let mut read = vec![false; self.g.atoms.len()];
        let mut cyclic = vec![false; self.g.atoms.len()];
        for (atoms, is_cyclic) in &self.order {
            for &a in atoms {
                cyclic[a as usize] = *is_cyclic;
                if !computed(a) {
                    continue;
                }
                for instance in &self.by_head[a as usize] {
                    for &literal in &instance.body {
                        let (Literal::Pos(b) | Literal::Neg(b)) = literal;
                        read[b as usize] = true;
                    }
                }
            }
        }
        // Per sink atom, the state bits or earlier atoms every instance holds.
        let mut candidates: BTreeMap<AtomId, Vec<AtomId>> = BTreeMap::new();
        let mut counts: BTreeMap<AtomId, usize> = BTreeMap::new();
        for a in 0..self.g.atoms.len() as AtomId {
            let instances = &self.by_head[a as usize];
            if !computed(a)
                || read[a as usize]
                || cyclic[a as usize]
                || in_family[a as usize]
                || instances.is_empty()
            {
                continue;
            }
            let common: Vec<AtomId> = instances[0]
                .body
                .iter()
                .filter_map(|&l| match l {
                    Literal::Pos(b)
                        if matches!(self.places[b as usize], Place::State(_) | Place::D(_))
                            && instances.iter().all(|i| i.body.contains(&l)) =>
                    {
                        Some(b)
                    }
                    _ => None,
                })
                .collect();
            for &b in &common {
                *counts.entry(b).or_default() += 1;
            }
            if !common.is_empty() {
                candidates.insert(a, common);
            }
        }
        candidates
            .into_iter()
            .filter_map(|(a, common)| {
                let best = common
                    .into_iter()
                    .max_by_key(|b| (counts[b], std::cmp::Reverse(*b)))
                    .expect("a candidate");
                (counts[&best] >= MIN_GUARDED).then_some((a, best))
            })
            .collect()
    }

    /// Statements setting each atom's bit to its expression; a recursive group is
    /// repeated until no bit changes.
    pub(super) fn assign(&self, computed: &[(AtomId, String)], cyclic: bool, out: &mut String) {
        if cyclic {
            out.push_str("loop {\nlet mut changed = false;\n");
        }
        for (a, expression) in computed {
            let (array, bit) = self.target(*a);
            let (w, b) = (bit / 64, bit % 64);
            if cyclic {
                let _ = writeln!(
                    out,
                    "let v = ({expression}) << {b}u32;\nif v & !{array}[{w}] != 0 {{ {array}[{w}] |= v; changed = true; }}"
                );
            } else {
                let _ = writeln!(out, "{array}[{w}] |= ({expression}) << {b}u32;");
            }
        }
        if cyclic {
            out.push_str("if !changed { break; }\n}\n");
        }
    }

    pub(super) fn target(&self, a: AtomId) -> (&'static str, usize) {
        match self.places[a as usize] {
            Place::D(bit) => ("d", bit),
            Place::M(bit) => ("m", bit),
            Place::Next(bit) => ("n", bit),
            other => unreachable!("atom {a} is not computed ({other:?})"),
        }
    }
}

//! Programs of the ground backend: goals and move-dependent atoms of large games as
//! data (a table of instances run by `gdlc_runtime::program`) instead of code.
//!
//! When the code would pass [`super::MAX_EMITTED_LITERALS`] even with keyed programs,
//! the goals — evaluated once per game — become data: a *forward* program
//! (`program::Forward`) when no goal atom depends on itself, each instance watched by
//! its last literal of the program (or, with none, by its rarest positive fluent,
//! estimated from the initial state), so only what becomes true is followed; else a
//! `u32` program of groups, atoms, instances and literals, recursive groups repeated
//! until stable. Its lists are byte strings (`program::Words`), one token each for
//! rustc. Goals run as a program are remembered by state (`GroundRules::GOALS_REMEMBERED`;
//! the runtime's goal memo stops for good when its hits are rare). The code every state
//! and joint move runs must still fit in straight lines: as a program it is slower than
//! the join backend.

use super::*;

impl<'a> Layout<'a> {
    /// The goals' atoms (`wanted`) as a program over `s` and `d` (see
    /// [`gdlc_runtime::program`]): a static array named `name` in `tables`, and the
    /// statement running it.
    pub(super) fn goal_program(&self, wanted: &[bool], name: &str, tables: &mut String) -> String {
        use gdlc_runtime::program as p;
        if !self.recursive_in(wanted)
            && let Some(statement) = self.forward_program(wanted, name, tables)
        {
            return statement;
        }
        let mut words: Vec<u32> = Vec::new();
        for (atoms, cyclic) in &self.order {
            let atoms: Vec<AtomId> = atoms
                .iter()
                .copied()
                .filter(|&a| wanted[a as usize] && self.places[a as usize] != Place::Never)
                .collect();
            if atoms.is_empty() {
                continue;
            }
            let header = atoms.len() as u32;
            words.push(if *cyclic { header | p::CYCLIC } else { header });
            for a in atoms {
                let Place::D(bit) = self.places[a as usize] else {
                    unreachable!("the goals' atoms are state atoms")
                };
                words.push(bit as u32);
                let length_at = words.len();
                words.push(0);
                for instance in &self.by_head[a as usize] {
                    self.program_instance(&instance.body, &mut words);
                }
                words[length_at] = (words.len() - length_at - 1) as u32;
            }
        }
        let _ = writeln!(
            tables,
            "/// The goals' rules as data (`gdlc_runtime::program`).\nstatic {name}: [u32; {}] = [{}];",
            words.len(),
            decimal_list(&words)
        );
        format!("gdlc_runtime::program::run(&{name}, s, d);\n")
    }

    /// The atoms `wanted`, none recursive, as a forward program (see
    /// [`gdlc_runtime::program::Forward`]): a static named `name` in `tables`, and the
    /// statement running it. An instance is watched by its positive literal of the
    /// program that comes last in evaluation order (the others, and its negative
    /// literals, come before: final when that one is looked at); without a literal of
    /// the program, by its rarest positive fluent (see [`Self::fluent_frequencies`]).
    /// `None` if a literal does not come before its head (the evaluation order
    /// guarantees it does).
    pub(super) fn forward_program(
        &self,
        wanted: &[bool],
        name: &str,
        tables: &mut String,
    ) -> Option<String> {
        let frequency = self.fluent_frequencies();
        let atoms: Vec<AtomId> = self
            .order
            .iter()
            .flat_map(|(atoms, _)| atoms.iter().copied())
            .filter(|&a| wanted[a as usize] && self.places[a as usize] != Place::Never)
            .collect();
        let mut index: BTreeMap<AtomId, u32> = BTreeMap::new();
        for (k, &a) in atoms.iter().enumerate() {
            index.insert(a, k as u32);
        }
        let mut bits = Vec::with_capacity(atoms.len());
        let mut instances: Vec<u32> = Vec::new();
        let mut roots = Vec::new();
        let mut fluent_watched: Vec<Vec<u32>> = Vec::new();
        let mut watched: Vec<Vec<u32>> = vec![Vec::new(); atoms.len()];
        let mut deferred: Vec<Vec<u32>> = vec![Vec::new(); atoms.len()];
        for (k, &a) in atoms.iter().enumerate() {
            let Place::D(bit) = self.places[a as usize] else {
                unreachable!("the goals' atoms are state atoms")
            };
            bits.push(bit as u32);
            for instance in &self.by_head[a as usize] {
                let at = instances.len() as u32;
                instances.push(k as u32);
                if !self.program_instance(&instance.body, &mut instances) {
                    instances.pop();
                    continue;
                }
                let before = instance.body.iter().all(|&l| {
                    let (Literal::Pos(b) | Literal::Neg(b)) = l;
                    index.get(&b).is_none_or(|&i| (i as usize) < k)
                });
                if !before {
                    return None;
                }
                // Its last literal of the program: positive, it watches for it;
                // negated, it waits until that atom is final.
                let index_of = |l: &Literal| {
                    let (Literal::Pos(b) | Literal::Neg(b)) = *l;
                    index.get(&b).copied()
                };
                let last = instance.body.iter().filter_map(index_of).max();
                match last {
                    Some(last)
                        if instance
                            .body
                            .iter()
                            .any(|l| matches!(l, Literal::Pos(_)) && index_of(l) == Some(last)) =>
                    {
                        watched[last as usize].push(at);
                    }
                    Some(last) => deferred[last as usize].push(at),
                    None => {
                        let rarest = instance
                            .body
                            .iter()
                            .filter_map(|&l| match (l, self.places[l.atom() as usize]) {
                                (Literal::Pos(_), Place::State(bit)) => Some(bit),
                                _ => None,
                            })
                            .min_by(|&a, &b| frequency[a].total_cmp(&frequency[b]));
                        match rarest {
                            Some(bit) => {
                                if fluent_watched.len() <= bit {
                                    fluent_watched.resize(bit + 1, Vec::new());
                                }
                                fluent_watched[bit].push(at);
                            }
                            None => roots.push(at),
                        }
                    }
                }
            }
        }
        // Per atom, where its list starts, and the lists.
        let lists = |per_atom: &[Vec<u32>]| {
            let mut at = Vec::with_capacity(per_atom.len() + 1);
            let mut all = Vec::new();
            for list in per_atom {
                at.push(all.len() as u32);
                all.extend_from_slice(list);
            }
            at.push(all.len() as u32);
            (at, all)
        };
        let (watch_at, watch) = lists(&watched);
        let (fluent_watch_at, fluent_watch) = lists(&fluent_watched);
        let mut fluents_watched = vec![0u64; fluent_watched.len().div_ceil(64)];
        for (bit, list) in fluent_watched.iter().enumerate() {
            if !list.is_empty() {
                fluents_watched[bit / 64] |= 1 << (bit % 64);
            }
        }
        let (deferred_at, deferred_all) = lists(&deferred);
        let mut deferring = vec![0u64; atoms.len().div_ceil(64)];
        for (k, list) in deferred.iter().enumerate() {
            if !list.is_empty() {
                deferring[k / 64] |= 1 << (k % 64);
            }
        }
        // Lists of words as byte strings (one token each for rustc, where an array
        // literal costs type checking per element); bit sets as static arrays.
        let mut fields = Vec::new();
        for (field, list) in [
            ("bits", &bits),
            ("instances", &instances),
            ("roots", &roots),
            ("fluent_watch_at", &fluent_watch_at),
            ("fluent_watch", &fluent_watch),
            ("watch_at", &watch_at),
            ("watch", &watch),
            ("deferred_at", &deferred_at),
            ("deferred", &deferred_all),
        ] {
            fields.push(format!(
                "{field}: gdlc_runtime::program::Words({})",
                byte_string(list)
            ));
        }
        for (field, list) in [
            ("fluents_watched", &fluents_watched),
            ("deferring", &deferring),
        ] {
            let array = format!("{name}_{}", field.to_uppercase());
            let _ = writeln!(
                tables,
                "static {array}: [u64; {}] = [{}];",
                list.len(),
                hex_list(list)
            );
            fields.push(format!("{field}: &{array}"));
        }
        let _ = writeln!(
            tables,
            "/// The goals' rules as data (`gdlc_runtime::program::Forward`).\nstatic {name}: gdlc_runtime::program::Forward = gdlc_runtime::program::Forward {{ {} }};",
            fields.join(", ")
        );
        Some(format!(
            "gdlc_runtime::program::run_forward(&{name}, s, d, &mut [0; {}]);\n",
            atoms.len().div_ceil(64)
        ))
    }

    /// Per fluent (bit of `s`), how often a state may hold it, estimated from the
    /// initial state: the share of its function symbol's fluents that hold there (at
    /// least one): a board cell's piece, one of many, is rarer than whose turn it is.
    pub(super) fn fluent_frequencies(&self) -> Vec<f64> {
        let functor = |text: &str| {
            let text = text.strip_prefix('(').unwrap_or(text);
            text.split([' ', ')']).next().unwrap_or(text).to_owned()
        };
        let mut total: BTreeMap<String, usize> = BTreeMap::new();
        let mut held: BTreeMap<String, usize> = BTreeMap::new();
        for text in &self.fluents {
            *total.entry(functor(text)).or_default() += 1;
        }
        for &bit in &self.init {
            *held.entry(functor(&self.fluents[bit])).or_default() += 1;
        }
        self.fluents
            .iter()
            .map(|text| {
                let f = functor(text);
                held.get(&f).copied().unwrap_or(0).max(1) as f64 / total[&f] as f64
            })
            .collect()
    }

    /// Appends an instance to a program (its length, then its literals: bits of `s`,
    /// `d` or, in keyed programs, `m`); nothing when it can never hold. Whether it
    /// was appended.
    pub(super) fn program_instance(&self, body: &[Literal], words: &mut Vec<u32>) -> bool {
        use gdlc_runtime::program as p;
        let length_at = words.len();
        words.push(0);
        for &literal in body {
            let (Literal::Pos(a) | Literal::Neg(a)) = literal;
            let negated = if matches!(literal, Literal::Neg(_)) {
                p::NEGATED
            } else {
                0
            };
            match self.places[a as usize] {
                Place::State(bit) => words.push(p::FROM_S | negated | bit as u32),
                Place::D(bit) => words.push(p::FROM_D | negated | bit as u32),
                Place::M(bit) => words.push(p::FROM_M | negated | bit as u32),
                // Never holds: the instance does not, or the negation always does.
                Place::Next(_) | Place::Never if negated == 0 => {
                    words.truncate(length_at);
                    return false;
                }
                Place::Next(_) | Place::Never => {}
                Place::Move(..) => unreachable!("programs read no move"),
            }
        }
        words[length_at] = (words.len() - length_at - 1) as u32;
        true
    }
}

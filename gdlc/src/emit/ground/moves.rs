//! `eval_moves` of the ground backend: the move-dependent atoms and the next state —
//! frame masks, `next` heads in one shape computed together, instances under one move
//! in match arms, and keyed programs for moves with thousands of instances.
//!
//! The next state is `s & (COPY | FRAME_r[move] | KEPT & KEEP_0[move] & KEEP_1[move] …)`:
//! unconditional copies, copies under one move, and copies under a condition on the
//! joint move that is a conjunction over roles (the usual "not touched by the move"
//! frame axiom). Other `next` instances run under a `match` on the move that enables
//! them, or, past the code budget, as **keyed programs**: per role, the instances of
//! every move in one `u32` array with a slice per move (`KEYED_r`, `KEYED_AT_r`), of
//! which the played move's runs (`gdlc_runtime::program::run_keyed`; instances that
//! also read another move stay in `match` arms). Instances under one move of
//! move-dependent atoms that read only `s` and `d` ("the mover captured", reversi's
//! flips) run first, before the code that reads those atoms: as `match` arms, or with
//! keyed programs as **early keyed programs** (`EARLY_r`). The other move-dependent
//! atoms' instances under one move become **late arms**, one `match` per role emitted
//! right before the first statement that reads one of their atoms (`LateArms`). An
//! atom that can hold only under a few moves of one role — each instance reads one of
//! them, or an atom that holds under such moves alone (reversi's flips, one square
//! further along a line each step: a square is flipped only by a move on its lines) —
//! runs in those moves' late arms too, and when that makes chains of them, level by
//! level (`order_by_level`: a `match` per step of the chain rather than per atom).

use super::*;

impl<'a> Layout<'a> {
    /// Whether an instance of `next` copies its own fluent, and under which move.
    pub(super) fn copy_of(&self, instance: &Instance) -> Option<Option<(usize, u32)>> {
        let Place::Next(bit) = self.places[instance.head as usize] else {
            return None;
        };
        let mut copies = false;
        let mut under = None;
        for &literal in &instance.body {
            let Literal::Pos(a) = literal else {
                return None;
            };
            match self.places[a as usize] {
                Place::State(b) if b == bit && !copies => copies = true,
                Place::Move(r, mv) if under.is_none() => under = Some((r, mv)),
                _ => return None,
            }
        }
        copies.then_some(under)
    }

    /// `eval_moves`' body, writing to `out`: the move-dependent atoms and the next
    /// state; returns the constant tables and functions it reads.
    pub(super) fn eval_moves(&self, out: &mut String) -> String {
        let mut rest: Vec<bool> = self.move_cone.clone();
        let move_only = self.move_only_atoms();
        let move_tables = self.move_tables(&move_only, &mut rest);
        let frames = self.frames(&move_only);
        let mut tables = frames.tables(&move_tables);
        out.push_str("*m = [0; M_WORDS];\n");
        for role in move_tables.keys() {
            let base = self.role_moves[*role];
            let _ = writeln!(
                out,
                "let moved = &MOVED_{role}[(joint[{role}] - {base}) as usize];\nfor w in 0..M_WORDS {{ m[w] |= moved[w]; }}"
            );
        }
        let early_rest = self.early_arms(out, &mut tables);
        self.kept_state(&frames, out);
        self.in_evaluation_order(&mut rest, &frames.partial, &early_rest, out, &mut tables);
        tables
    }

    /// Move-dependent atoms that only say which moves were played (taken out of
    /// `rest`): per role, a table from its move to their bits of `m`.
    fn move_tables(
        &self,
        move_only: &[Option<Vec<Vec<u32>>>],
        rest: &mut [bool],
    ) -> BTreeMap<usize, Vec<Vec<u64>>> {
        let mut move_tables: BTreeMap<usize, Vec<Vec<u64>>> = BTreeMap::new();
        let mw = words(self.m_bits);
        for (a, sets) in move_only.iter().enumerate() {
            let (Some(sets), Place::M(bit)) = (sets, self.places[a]) else {
                continue;
            };
            rest[a] = false;
            for (role, moves) in sets.iter().enumerate() {
                let base = self.role_moves[role];
                for &mv in moves {
                    let count = (self.role_moves[role + 1] - base) as usize;
                    let table = move_tables
                        .entry(role)
                        .or_insert_with(|| vec![vec![0; mw]; count]);
                    table[(mv - base) as usize][bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        move_tables
    }

    /// The fluents the next state copies (see [`Frames`]), and every `next` head's
    /// other instances.
    fn frames(&self, move_only: &[Option<Vec<Vec<u32>>>]) -> Frames<'a> {
        let w = words(self.fluents.len());
        let roles = self.role_moves.len() - 1;
        let mut frames = Frames {
            copy: vec![0u64; w],
            under_move: BTreeMap::new(),
            kept: vec![0u64; w],
            keeps: (0..roles)
                .map(|r| {
                    vec![vec![0u64; w]; (self.role_moves[r + 1] - self.role_moves[r]) as usize]
                })
                .collect(),
            partial: vec![None; self.g.atoms.len()],
        };
        for a in 0..self.g.atoms.len() {
            let Place::Next(bit) = self.places[a] else {
                continue;
            };
            let mut others = Vec::new();
            let mut kept = false;
            for instance in &self.by_head[a] {
                if !kept
                    && self.copy_of(instance).is_none()
                    && let Some(factors) = self.keep_factors(instance, bit, move_only)
                {
                    kept = true;
                    frames.kept[bit / 64] |= 1 << (bit % 64);
                    for (role, rows) in frames.keeps.iter_mut().enumerate() {
                        let base = self.role_moves[role];
                        for (k, row) in rows.iter_mut().enumerate() {
                            if factors(role, base + k as u32) {
                                row[bit / 64] |= 1 << (bit % 64);
                            }
                        }
                    }
                    continue;
                }
                match self.copy_of(instance) {
                    Some(None) => frames.copy[bit / 64] |= 1 << (bit % 64),
                    Some(Some((role, mv))) => {
                        let base = self.role_moves[role];
                        let count = (self.role_moves[role + 1] - base) as usize;
                        let table = frames
                            .under_move
                            .entry(role)
                            .or_insert_with(|| vec![vec![0; w]; count]);
                        table[(mv - base) as usize][bit / 64] |= 1 << (bit % 64);
                    }
                    None => others.push(*instance),
                }
            }
            frames.partial[a] = Some(others);
        }
        frames
    }

    /// Move-dependent atoms' instances under one move that read only the state,
    /// before everything that reads them: `match` arms on the move (reversi's flips:
    /// only the played move's run, not every move's test of the joint move), or with
    /// keyed programs an early keyed program. Returns per such atom its other
    /// instances, ORed in later.
    fn early_arms(&self, out: &mut String, tables: &mut String) -> Vec<Option<Vec<&'a Instance>>> {
        let mut early_rest: Vec<Option<Vec<&Instance>>> = vec![None; self.g.atoms.len()];
        let mut early: BTreeMap<usize, MoveArms> = BTreeMap::new();
        for (a, keyable) in self.early_keyed_atoms().into_iter().enumerate() {
            let Place::M(bit) = self.places[a] else {
                continue;
            };
            if !keyable {
                continue;
            }
            early_rest[a] = Some(split_by_move(
                self.by_head[a].iter().copied(),
                bit,
                |instance| self.early_key(instance),
                &mut early,
            ));
        }
        if self.tabled.keyed {
            // Instances that also read another move stay in `match` arms.
            let programs = self.take_programmable(&mut early);
            self.keyed_programs(&programs, KeyedTarget::Early, out, tables);
        }
        self.move_arms(&early, "m", "early", out, tables);
        early_rest
    }

    /// The next state's start: the state masked by what is copied (see [`Frames`])
    /// under the joint move.
    fn kept_state(&self, frames: &Frames, out: &mut String) {
        out.push_str("for w in 0..WORDS {\nlet mut keep = COPY[w];\n");
        for role in frames.under_move.keys() {
            let base = self.role_moves[*role];
            let _ = writeln!(
                out,
                "keep |= FRAME_{role}[(joint[{role}] - {base}) as usize][w];"
            );
        }
        if frames.has_keeps() {
            out.push_str("let mut kept = KEPT[w];\n");
            for role in frames.keep_roles() {
                let base = self.role_moves[role];
                let _ = writeln!(
                    out,
                    "kept &= KEEP_{role}[(joint[{role}] - {base}) as usize][w];"
                );
            }
            out.push_str("keep |= kept;\n");
        }
        out.push_str("n[w] = s[w] & keep;\n}\n");
    }

    /// Everything else (`rest`) in evaluation order; `next` heads only with the
    /// instances that are not copies (`partial`), those under one move in a `match` on
    /// it at the end.
    fn in_evaluation_order(
        &self,
        rest: &mut [bool],
        partial: &[Option<Vec<&'a Instance>>],
        early_rest: &[Option<Vec<&'a Instance>>],
        out: &mut String,
        tables: &mut String,
    ) {
        let (only_under, implied) = self.moves_under(early_rest);
        let mut pending = Pending {
            keyed: BTreeMap::new(),
            late: LateArms {
                arms: BTreeMap::new(),
                atoms: vec![false; self.g.atoms.len()],
                flushed: 0,
            },
            next_classes: BTreeMap::new(),
            only_under,
        };
        // Chains of atoms under some moves (keyed by what they read) run level by
        // level when that takes far fewer late `match`es (reversi: 16 rather than
        // 511); otherwise the evaluation order stands (it keeps what a `next` head
        // reads close to it).
        let mut groups: Vec<(&[AtomId], bool)> =
            self.order.iter().map(|(a, c)| (a.as_slice(), *c)).collect();
        if implied {
            let by_level = self.order_by_level(rest);
            let flushes = |groups: &[(&[AtomId], bool)]| {
                self.late_flushes(groups, rest, early_rest, &pending.only_under)
            };
            if flushes(&groups) > 2 * flushes(&by_level) + 8 {
                groups = by_level;
            }
        }
        for (atoms, cyclic) in groups {
            let atoms: Vec<AtomId> = atoms
                .iter()
                .copied()
                .filter(|&a| rest[a as usize] && self.places[a as usize] != Place::Never)
                .collect();
            if atoms
                .iter()
                .any(|&a| pending.late.read_by(&self.by_head[a as usize]))
            {
                self.flush_late(&mut pending.late, out, tables);
            }
            let mut computed = Vec::new();
            for &a in &atoms {
                rest[a as usize] = false;
                let expression = match &partial[a as usize] {
                    Some(others) => self.next_expression(a, others, &mut pending),
                    None => self.move_atom_expression(
                        a,
                        cyclic,
                        early_rest[a as usize].as_deref(),
                        &mut pending,
                    ),
                };
                if let Some(expression) = expression {
                    computed.push((a, expression));
                }
            }
            if computed.is_empty() {
                continue;
            }
            self.assign(&computed, cyclic, out);
            out.push_str(CHUNK_MARK);
        }
        self.flush_late(&mut pending.late, out, tables);
        self.next_classes(pending.next_classes, out);
        if self.tabled.keyed {
            // Instances that also read another move stay in `match` arms.
            let programs = self.take_programmable(&mut pending.keyed);
            self.keyed_programs(&programs, KeyedTarget::Next, out, tables);
        }
        self.move_arms(&pending.keyed, "n", "arm", out, tables);
    }

    /// The evaluation order's groups of atoms computed in `eval_moves` (`wanted`),
    /// by level — the longest chain of such atoms below a group — each level in
    /// evaluation order: atoms of one level read none of another of it, so the late
    /// arms of a level (reversi's flips one square further along each line) run
    /// together, one `match` per level rather than one per group read.
    fn order_by_level(&self, wanted: &[bool]) -> Vec<(&[AtomId], bool)> {
        let mut level: Vec<Option<usize>> = vec![None; self.g.atoms.len()];
        let mut levels: Vec<Vec<(&[AtomId], bool)>> = Vec::new();
        for (atoms, cyclic) in &self.order {
            if !atoms.iter().any(|&a| wanted[a as usize]) {
                continue;
            }
            let at = self.level_above(atoms, &level);
            for &a in atoms {
                level[a as usize] = Some(at);
            }
            if levels.len() <= at {
                levels.resize_with(at + 1, Vec::new);
            }
            levels[at].push((atoms.as_slice(), *cyclic));
        }
        levels.into_iter().flatten().collect()
    }

    /// The expression of `next` head `a` from its instances other than copies
    /// (`others`), or `None` when they are all left for later: instances under one
    /// move of one role run only when that move is played, and a head of one instance
    /// in one shape is computed with the others of that shape.
    fn next_expression(
        &self,
        a: AtomId,
        others: &[&'a Instance],
        pending: &mut Pending<'a>,
    ) -> Option<String> {
        let Place::Next(bit) = self.places[a as usize] else {
            unreachable!("partial instances are of `next` heads")
        };
        let unkeyed = split_by_move(
            others.iter().copied(),
            bit,
            |instance| self.key_of(instance),
            &mut pending.keyed,
        );
        if unkeyed.is_empty() {
            return None;
        }
        if let Some(shape) = self.next_shape(bit, &unkeyed) {
            pending.join_next_class(shape, (bit, a, unkeyed));
            return None;
        }
        Some(self.expression_of(&unkeyed))
    }

    /// The expression of move-dependent atom `a` (or a `next` head without
    /// instances) from its instances not run early (`early_rest`, if some were), or
    /// `None` when they are all left for later: instances under one move become late
    /// `match` arms, and a `next` head of one instance in one shape is computed with
    /// the others of that shape.
    fn move_atom_expression(
        &self,
        a: AtomId,
        cyclic: bool,
        early_rest: Option<&[&'a Instance]>,
        pending: &mut Pending<'a>,
    ) -> Option<String> {
        let all: &[&Instance] = early_rest.unwrap_or(&self.by_head[a as usize]);
        let unkeyed = match self.places[a as usize] {
            Place::M(bit) if !cyclic => {
                let only_under = &pending.only_under;
                let keys = |instance: &Instance| self.implied_keys(instance, only_under);
                let unkeyed =
                    split_by_moves(all.iter().copied(), bit, keys, &mut pending.late.arms);
                pending.late.atoms[a as usize] |= unkeyed.len() < all.len();
                unkeyed
            }
            _ => all.to_vec(),
        };
        if unkeyed.is_empty() && (early_rest.is_some() || !all.is_empty()) {
            return None;
        }
        if let Place::Next(bit) = self.places[a as usize]
            && !cyclic
            && let Some(shape) = self.next_shape(bit, &unkeyed)
        {
            pending.join_next_class(shape, (bit, a, unkeyed));
            return None;
        }
        Some(self.expression_of(&unkeyed))
    }

    /// The shape of a `next` head's one instance relative to the head's bit `bit`
    /// (each literal's array, polarity and distance, sorted), when every literal is a
    /// bit of `s`, `d` or `m`.
    pub(super) fn next_shape(&self, bit: usize, instances: &[&Instance]) -> Option<NextShape> {
        let [instance] = instances else {
            return None;
        };
        if instance.body.is_empty() {
            return None;
        }
        let mut shape = instance
            .body
            .iter()
            .map(|&l| {
                self.bit_of(l)
                    .map(|(array, at, positive)| (array, positive, at as isize - bit as isize))
            })
            .collect::<Option<NextShape>>()?;
        shape.sort_unstable();
        Some(shape)
    }

    /// The `next` heads collected by shape (see [`Self::next_shape`]): per word of
    /// `n`, the heads of one shape there as one masked word expression — a step
    /// counter's successor is the state shifted by one — and a head alone in its word
    /// as its own statement.
    pub(super) fn next_classes(
        &self,
        classes: BTreeMap<NextShape, Vec<NextMember<'_>>>,
        out: &mut String,
    ) {
        let mut single: Vec<(AtomId, String)> = Vec::new();
        for (shape, members) in classes {
            let mut by_word: BTreeMap<usize, Vec<NextMember<'_>>> = BTreeMap::new();
            for member in members {
                by_word.entry(member.0 / 64).or_default().push(member);
            }
            for (w, members) in by_word {
                if let [(_, a, instances)] = &members[..] {
                    single.push((*a, self.expression_of(instances)));
                    continue;
                }
                let mask = head_mask(members.iter().map(|&(head, ..)| head));
                let and = self.shape_word(&shape, w, 0, mask);
                let _ = writeln!(out, "n[{w}] |= ({and}) & {mask:#x};");
                out.push_str(CHUNK_MARK);
            }
        }
        if !single.is_empty() {
            self.assign(&single, false, out);
            out.push_str(CHUNK_MARK);
        }
    }

    /// Emits the pending late arms (see [`LateArms`]) and clears them.
    pub(super) fn flush_late(&self, late: &mut LateArms, out: &mut String, tables: &mut String) {
        if late.arms.is_empty() {
            return;
        }
        let name = format!("late{}", late.flushed);
        self.move_arms(&late.arms, "m", &name, out, tables);
        late.arms.clear();
        late.atoms.fill(false);
        late.flushed += 1;
    }

    /// Takes out of `arms` the instances a keyed program can hold (their rest reads
    /// no other move, [`Self::programmable`]); the others stay for `match` arms.
    pub(super) fn take_programmable(
        &self,
        arms_by_role: &mut BTreeMap<usize, MoveArms>,
    ) -> BTreeMap<usize, MoveArms> {
        let mut programs: BTreeMap<usize, MoveArms> = BTreeMap::new();
        for (role, arms) in arms_by_role.iter_mut() {
            for (mv, heads) in arms.iter_mut() {
                let (programmed, kept): (Vec<_>, Vec<_>) = std::mem::take(heads)
                    .into_iter()
                    .partition(|(_, body)| self.programmable(body));
                *heads = kept;
                if !programmed.is_empty() {
                    programs.entry(*role).or_default().insert(*mv, programmed);
                }
            }
            arms.retain(|_, heads| !heads.is_empty());
        }
        programs
    }

    /// Instances under one move of one role as a `match` on that role's move per role,
    /// so only the played move's run: each sets its bit of `target` (`n` or `m`).
    /// Long arms are functions of their own, named `{name}_{role}_{move}_{k}`.
    pub(super) fn move_arms(
        &self,
        arms_by_role: &BTreeMap<usize, MoveArms>,
        target: &str,
        name: &str,
        out: &mut String,
        tables: &mut String,
    ) {
        for (role, arms) in arms_by_role.iter().filter(|(_, arms)| !arms.is_empty()) {
            let _ = writeln!(out, "match joint[{role}] {{");
            for (i, (mv, heads)) in arms.iter().enumerate() {
                if i > 0 && i % 64 == 0 {
                    // Long matches are split (only one arm of all of them runs).
                    let _ = write!(out, "_ => {{}}\n}}\n{CHUNK_MARK}match joint[{role}] {{\n");
                }
                let mut arm = String::new();
                for (k, statement) in self.arm_statements(heads, target).iter().enumerate() {
                    if k > 0 && k % 64 == 0 {
                        arm.push_str(CHUNK_MARK);
                    }
                    arm.push_str(statement);
                }
                // A long arm (a move that moves the whole board) is functions of its
                // own: rustc's time grows faster than a function's size.
                let arm = chunked(
                    &arm,
                    &format!("{name}_{role}_{mv}"),
                    MOVES_PARAMS,
                    MOVES_ARGS,
                    tables,
                );
                let _ = writeln!(out, "{mv} => {{\n{arm}}}");
            }
            out.push_str("_ => {}\n}\n");
            out.push_str(CHUNK_MARK);
        }
    }

    /// The statements of one arm (see [`Self::move_arms`]): each head's instance sets
    /// its bit of `target`. Heads whose instances have one shape relative to their own
    /// bit (see [`Self::next_shape`]) are set together, one masked word per word of
    /// `target` — a dropped disc lands on the one open cell above a filled one, a whole
    /// column in one word — and heads without literals are one constant per word.
    /// Into `m`, whose atoms an arm's later instances may read, each head is set alone,
    /// in order.
    fn arm_statements(&self, heads: &[(usize, Vec<Literal>)], target: &str) -> Vec<String> {
        let mut statements = Vec::new();
        // By shape, by word of `target`: the heads' indices.
        let mut classes: BTreeMap<NextShape, BTreeMap<usize, Vec<usize>>> = BTreeMap::new();
        let mut constant: BTreeMap<usize, u64> = BTreeMap::new();
        let mut single: Vec<usize> = Vec::new();
        for (i, (bit, body)) in heads.iter().enumerate() {
            if target != "n" {
                single.push(i);
            } else if body.is_empty() {
                *constant.entry(bit / 64).or_default() |= 1 << (bit % 64);
            } else if let Some(mut shape) = body
                .iter()
                .map(|&l| {
                    self.bit_of(l)
                        .map(|(array, at, positive)| (array, positive, at as isize - *bit as isize))
                })
                .collect::<Option<NextShape>>()
            {
                shape.sort_unstable();
                let by_word = classes.entry(shape).or_default();
                by_word.entry(bit / 64).or_default().push(i);
            } else {
                single.push(i);
            }
        }
        for (w, mask) in constant {
            statements.push(if mask.count_ones() == 1 {
                format!("{target}[{w}] |= 1 << {}u32;\n", mask.trailing_zeros())
            } else {
                format!("{target}[{w}] |= {mask:#x};\n")
            });
        }
        for (shape, by_word) in &classes {
            for (&w, members) in by_word {
                if let [i] = members[..] {
                    single.push(i);
                    continue;
                }
                let mask = head_mask(members.iter().map(|&i| heads[i].0));
                let and = self.shape_word(shape, w, 0, mask);
                statements.push(format!("{target}[{w}] |= ({and}) & {mask:#x};\n"));
            }
        }
        for i in single {
            let (bit, body) = &heads[i];
            let (w, b) = (bit / 64, bit % 64);
            if body.is_empty() {
                statements.push(format!("{target}[{w}] |= 1 << {b}u32;\n"));
            } else {
                let parts: Vec<String> = body.iter().map(|&l| self.literal(l)).collect();
                statements.push(format!(
                    "{target}[{w}] |= (({}) & 1) << {b}u32;\n",
                    parts.join(" & ")
                ));
            }
        }
        statements
    }

    /// Instances under one move as keyed programs (see
    /// [`gdlc_runtime::program::run_keyed`]): per role, the instances of all its
    /// moves in one array (`KEYED_r`, or `EARLY_r` for [`KeyedTarget::Early`]) with
    /// each move's start in another (`KEYED_AT_r`, `EARLY_AT_r`), and the statement
    /// that runs the played move's.
    pub(super) fn keyed_programs(
        &self,
        keyed: &BTreeMap<usize, MoveArms>,
        target: KeyedTarget,
        out: &mut String,
        tables: &mut String,
    ) {
        let (name, what, reads_m, sets) = match target {
            KeyedTarget::Next => ("KEYED", "`next` instances", "m", "n"),
            KeyedTarget::Early => ("EARLY", "move-dependent atoms' instances", "&[]", "m"),
        };
        for (role, arms) in keyed {
            let base = self.role_moves[*role];
            let count = (self.role_moves[role + 1] - base) as usize;
            let mut words: Vec<u32> = Vec::new();
            let mut starts: Vec<u32> = Vec::with_capacity(count + 1);
            for k in 0..count {
                starts.push(words.len() as u32);
                for (bit, body) in arms.get(&(base + k as u32)).into_iter().flatten() {
                    words.push(*bit as u32);
                    if !self.program_instance(body, &mut words) {
                        words.pop();
                    }
                }
            }
            starts.push(words.len() as u32);
            let _ = writeln!(
                tables,
                "/// The {what} under each move of role {role} (`gdlc_runtime::program::run_keyed`).\nstatic {name}_{role}: [u32; {}] = [{}];\nstatic {name}_AT_{role}: [u32; {}] = [{}];",
                words.len(),
                decimal_list(&words),
                starts.len(),
                decimal_list(&starts)
            );
            let _ = writeln!(
                out,
                "{{\nlet k = (joint[{role}] - {base}) as usize;\ngdlc_runtime::program::run_keyed(&{name}_{role}[{name}_AT_{role}[k] as usize..{name}_AT_{role}[k + 1] as usize], s, d, {reads_m}, {sets});\n}}"
            );
        }
    }

    /// For each atom of `m` whose every instance is one played move, the moves that
    /// make it hold, per role.
    pub(super) fn move_only_atoms(&self) -> Vec<Option<Vec<Vec<u32>>>> {
        let roles = self.role_moves.len() - 1;
        (0..self.g.atoms.len())
            .map(|a| {
                if !matches!(self.places[a], Place::M(_)) || self.by_head[a].is_empty() {
                    return None;
                }
                let mut sets = vec![Vec::new(); roles];
                for instance in &self.by_head[a] {
                    let [Literal::Pos(x)] = instance.body[..] else {
                        return None;
                    };
                    let Place::Move(role, mv) = self.places[x as usize] else {
                        return None;
                    };
                    sets[role].push(mv);
                }
                Some(sets)
            })
            .collect()
    }

    /// When an instance of `next` copies its fluent (`bit`) under a condition on the
    /// joint move that is a conjunction of conditions on each role's move: that
    /// condition, as `holds(role, move)`.
    pub(super) fn keep_factors<'m>(
        &self,
        instance: &Instance,
        bit: usize,
        move_only: &'m [Option<Vec<Vec<u32>>>],
    ) -> Option<impl Fn(usize, u32) -> bool + 'm> {
        // (role, moves, wanted): role's move must be in `moves` (wanted) or not.
        let mut factors: Vec<(usize, Vec<u32>, bool)> = Vec::new();
        let mut copies = false;
        for &literal in &instance.body {
            let (Literal::Pos(x) | Literal::Neg(x)) = literal;
            let positive = matches!(literal, Literal::Pos(_));
            match (self.places[x as usize], &move_only[x as usize]) {
                (Place::State(b), _) if b == bit && positive && !copies => copies = true,
                (Place::Move(role, mv), _) => factors.push((role, vec![mv], positive)),
                (Place::M(_), Some(sets)) => {
                    let involved: Vec<usize> =
                        (0..sets.len()).filter(|&r| !sets[r].is_empty()).collect();
                    if positive {
                        // An OR across roles is not a conjunction.
                        let [role] = involved[..] else {
                            return None;
                        };
                        factors.push((role, sets[role].clone(), true));
                    } else {
                        for role in involved {
                            factors.push((role, sets[role].clone(), false));
                        }
                    }
                }
                _ => return None,
            }
        }
        copies.then_some(move |role: usize, mv: u32| {
            factors
                .iter()
                .filter(|(r, _, _)| *r == role)
                .all(|(_, moves, wanted)| moves.contains(&mv) == *wanted)
        })
    }

    /// The move-dependent atoms (of `m`, not only saying which moves were played, not
    /// recursive) whose instances under one move that read only the state and its
    /// atoms ([`Self::early_key`]) can be an *early* keyed program: it runs first in
    /// `eval_moves`, before the code that reads them (in skirmish, "the mover captured":
    /// one instance per move, reading the target cell).
    pub(super) fn early_keyed_atoms(&self) -> Vec<bool> {
        let move_only = self.move_only_atoms();
        let mut early: Vec<bool> = (0..self.g.atoms.len())
            .map(|a| {
                self.move_cone[a] && matches!(self.places[a], Place::M(_)) && move_only[a].is_none()
            })
            .collect();
        for (atoms, cyclic) in &self.order {
            if *cyclic {
                for &a in atoms {
                    early[a as usize] = false;
                }
            }
        }
        early
    }

    /// An instance under one move (its role and move) whose rest reads only the state,
    /// its atoms `d` and other moves of the joint move, and that rest: what runs early,
    /// in the played move's `match` arm — in its keyed program when the rest reads no
    /// other move ([`Self::programmable`]). battle's "a capture happened" instances
    /// each read two moves: keyed by the first, one test of the other each.
    pub(super) fn early_key(&self, instance: &Instance) -> Option<(usize, u32, Vec<Literal>)> {
        let (role, mv, body) = self.key_of(instance)?;
        body.iter()
            .all(|&l| {
                let (Literal::Pos(b) | Literal::Neg(b)) = l;
                matches!(
                    self.places[b as usize],
                    Place::State(_) | Place::D(_) | Place::Never | Place::Move(..)
                )
            })
            .then_some((role, mv, body))
    }

    /// Per atom of `m` computed in order (not in a recursive group), the few moves
    /// under which alone it can hold ([`Self::few_moves`]): its instances run early
    /// under their move, the others under theirs ([`Self::implied_keys`]); and whether
    /// some instance is under moves only through what it reads.
    fn moves_under(
        &self,
        early_rest: &[Option<Vec<&'a Instance>>],
    ) -> (Vec<Option<MoveSet>>, bool) {
        let mut under: Vec<Option<MoveSet>> = vec![None; self.g.atoms.len()];
        let mut implied = false;
        for (atoms, cyclic) in &self.order {
            if *cyclic {
                continue;
            }
            for &a in atoms {
                if !matches!(self.places[a as usize], Place::M(_)) {
                    continue;
                }
                let rest = early_rest[a as usize].as_deref();
                let keys = self.by_head[a as usize].iter().map(|&i| {
                    let early = rest.is_some_and(|rest| !rest.iter().any(|&r| std::ptr::eq(r, i)));
                    if early {
                        self.early_key(i).map(|(r, m, _)| vec![(r, m, Vec::new())])
                    } else {
                        let keys = self.implied_keys(i, &under);
                        implied |= keys.is_some() && self.key_of(i).is_none();
                        keys
                    }
                });
                under[a as usize] = self.few_moves(moves_of(keys));
            }
        }
        (under, implied)
    }

    /// How many times late arms would be flushed computing `groups` in that order: an
    /// atom read while some atom it reads has instances waiting in late arms.
    fn late_flushes(
        &self,
        groups: &[(&[AtomId], bool)],
        wanted: &[bool],
        early_rest: &[Option<Vec<&'a Instance>>],
        only_under: &[Option<MoveSet>],
    ) -> usize {
        let mut pending = vec![false; self.g.atoms.len()];
        let mut any = false;
        let mut flushes = 0;
        for &(atoms, cyclic) in groups {
            let atoms = atoms.iter().copied().filter(|&a| wanted[a as usize]);
            let reads_pending = atoms.clone().any(|a| {
                self.by_head[a as usize]
                    .iter()
                    .any(|i| i.body.iter().any(|l| pending[l.atom() as usize]))
            });
            if any && reads_pending {
                flushes += 1;
                pending.fill(false);
                any = false;
            }
            for a in atoms {
                if cyclic || !matches!(self.places[a as usize], Place::M(_)) {
                    continue;
                }
                let instances: &[&Instance] = match early_rest[a as usize].as_deref() {
                    Some(rest) => rest,
                    None => &self.by_head[a as usize],
                };
                if instances
                    .iter()
                    .any(|i| self.implied_keys(i, only_under).is_some())
                {
                    pending[a as usize] = true;
                    any = true;
                }
            }
        }
        flushes + usize::from(any)
    }

    /// `moves` if they are few enough for an atom holding under them alone to be
    /// computed in their arms: moves of one role, at most a quarter of its moves (the
    /// atom is then skipped on three moves in four; pacman's "some ghost moved", under
    /// every move of a role, would run in every arm).
    fn few_moves(&self, moves: Option<MoveSet>) -> Option<MoveSet> {
        let moves = moves?;
        let &(role, _) = moves.first()?;
        let count = (self.role_moves[role + 1] - self.role_moves[role]) as usize;
        (moves.iter().all(|&(r, _)| r == role) && moves.len() * 4 <= count).then_some(moves)
    }

    /// The moves an instance runs under, each with the body to test there: its first
    /// positive `does` literal (see [`Self::key_of`]) or, without one, the fewest moves
    /// under which alone one of its positive literals can hold (`only_under`), the
    /// body kept whole.
    fn implied_keys(
        &self,
        instance: &Instance,
        only_under: &[Option<MoveSet>],
    ) -> Option<Vec<(usize, u32, Vec<Literal>)>> {
        if let Some(key) = self.key_of(instance) {
            return Some(vec![key]);
        }
        // One literal's moves suffice: the instance holds only if that literal does.
        // (Not the intersection of several: two roles' moves are played together.)
        let under = instance
            .body
            .iter()
            .filter_map(|&literal| match literal {
                Literal::Pos(b) => only_under[b as usize].as_ref(),
                Literal::Neg(_) => None,
            })
            .min_by_key(|moves| moves.len())?;
        Some(
            under
                .iter()
                .map(|&(role, mv)| (role, mv, instance.body.clone()))
                .collect(),
        )
    }

    /// The first positive `does` literal of an instance (its role and move), and the
    /// rest of its body.
    pub(super) fn key_of(&self, instance: &Instance) -> Option<(usize, u32, Vec<Literal>)> {
        let position = instance.body.iter().position(
            |&l| matches!(l, Literal::Pos(a) if matches!(self.places[a as usize], Place::Move(..))),
        )?;
        let Literal::Pos(a) = instance.body[position] else {
            return None;
        };
        let Place::Move(role, mv) = self.places[a as usize] else {
            return None;
        };
        let mut body = instance.body.clone();
        body.remove(position);
        Some((role, mv, body))
    }
}

/// What the next state copies from the state, as masks: frame axioms that copy a
/// fluent unchanged (always, or under one move of one role), and conditional copies
/// (`next(f)` from `true(f)` and conditions on the joint move alone, one per fluent).
struct Frames<'i> {
    /// The fluents always copied (`COPY`).
    copy: Vec<u64>,
    /// Per role, per move, the fluents copied under it (`FRAME_r`).
    under_move: BTreeMap<usize, Vec<Vec<u64>>>,
    /// The fluents with a conditional copy (`KEPT`).
    kept: Vec<u64>,
    /// Per role, per move, the fluents with a conditional copy its move keeps
    /// (`KEEP_r`).
    keeps: Vec<Vec<Vec<u64>>>,
    /// Per `next` head, its instances other than copies.
    partial: Vec<Option<Vec<&'i Instance>>>,
}

impl Frames<'_> {
    /// Whether some fluent has a conditional copy.
    fn has_keeps(&self) -> bool {
        self.kept.iter().any(|&x| x != 0)
    }

    /// The roles whose move decides some conditional copy.
    fn keep_roles(&self) -> Vec<usize> {
        (0..self.keeps.len())
            .filter(|&r| self.keeps[r].iter().any(|row| *row != self.kept))
            .collect()
    }

    /// The masks as constants, after the tables of the atoms that only say which
    /// moves were played (`MOVED_r`, from `move_tables`).
    fn tables(&self, move_tables: &BTreeMap<usize, Vec<Vec<u64>>>) -> String {
        let mut tables = String::new();
        for (role, table) in &self.under_move {
            let _ = write!(
                tables,
                "static FRAME_{role}: [[u64; WORDS]; {}] = [",
                table.len()
            );
            for row in table {
                let _ = write!(tables, "[{}],", hex_list(row));
            }
            tables.push_str("];\n");
        }
        let _ = writeln!(
            tables,
            "static COPY: [u64; WORDS] = [{}];",
            hex_list(&self.copy)
        );
        for (role, table) in move_tables {
            tables.push_str(&table_text(&format!("MOVED_{role}"), "M_WORDS", table));
        }
        if self.has_keeps() {
            let _ = writeln!(
                tables,
                "static KEPT: [u64; WORDS] = [{}];",
                hex_list(&self.kept)
            );
            for role in self.keep_roles() {
                tables.push_str(&table_text(
                    &format!("KEEP_{role}"),
                    "WORDS",
                    &self.keeps[role],
                ));
            }
        }
        tables
    }
}

/// A table of words per move as a constant named `name`, rows of `width` words.
fn table_text(name: &str, width: &str, table: &[Vec<u64>]) -> String {
    let mut text = format!("static {name}: [[u64; {width}]; {}] = [", table.len());
    for row in table {
        let _ = write!(text, "[{}],", hex_list(row));
    }
    text.push_str("];\n");
    text
}

/// What the statements of `eval_moves` in evaluation order leave for later.
struct Pending<'i> {
    /// `next` instances under one move: keyed programs or `match` arms at the end.
    keyed: BTreeMap<usize, MoveArms>,
    /// Other move-dependent atoms' instances under one move: `match` arms too, run
    /// before the first statement that reads one of their atoms.
    late: LateArms,
    /// `next` heads of one instance, by shape relative to their bit: computed
    /// head-parallel at the end (nothing reads `n`, so their order is free).
    next_classes: BTreeMap<NextShape, Vec<NextMember<'i>>>,
    /// Per atom of `m`, the few moves (role and move) under which alone it can hold:
    /// each instance reads one of them, or atoms that hold under some of them alone
    /// (reversi's flips along a line, a chain of atoms of which only the first reads
    /// the move: a square is flipped only by a move on its lines). Instances that read
    /// such atoms run in those moves' arms only.
    only_under: Vec<Option<MoveSet>>,
}

impl<'i> Pending<'i> {
    /// Leaves a `next` head of one instance for the head-parallel class of its shape.
    fn join_next_class(&mut self, shape: NextShape, member: NextMember<'i>) {
        self.next_classes.entry(shape).or_default().push(member);
    }
}

/// The most moves an atom of `m` may hold under alone for its instances to run in
/// their arms (each instance runs in the arm of every move it may hold under).
const MAX_MOVES_UNDER: usize = 16;

/// Moves (role and move).
type MoveSet = BTreeSet<(usize, u32)>;

/// The moves under which alone an atom can hold: the union of its instances' moves
/// (`keys` of each), `None` if one runs under none, there are none or more than
/// [`MAX_MOVES_UNDER`].
fn moves_of(
    mut keys: impl Iterator<Item = Option<Vec<(usize, u32, Vec<Literal>)>>>,
) -> Option<MoveSet> {
    let mut moves = MoveSet::new();
    let mut any = false;
    keys.try_for_each(|keys| {
        any = true;
        moves.extend(keys?.into_iter().map(|(role, mv, _)| (role, mv)));
        (moves.len() <= MAX_MOVES_UNDER).then_some(())
    })?;
    any.then_some(moves)
}

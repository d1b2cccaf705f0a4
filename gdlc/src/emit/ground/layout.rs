//! The ground backend's layout: every atom's place (a bit of the state `s`, of the
//! state atoms `d` or of the move atoms `m`, or a move number), numbered in layout
//! order, and the sizes a budget is weighed by.

use super::*;

impl<'a> Layout<'a> {
    /// The layout of grounding `g` under `budget`, or why its code does not fit.
    /// `weighed` holds the grounding's sizes once known ([`Layout::weigh`]): a
    /// budget they do not fit is refused before any work.
    pub(super) fn new(
        ir: &'a Ir,
        g: &'a Grounding,
        budget: Budget,
        weighed: &mut Option<Weighed>,
    ) -> Result<Self, String> {
        if let Some(known) = weighed {
            Tabled::chosen(known, budget)?;
        }
        let relation_of = |k: Keyword| ir.keyword(k);
        let true_rel = relation_of(Keyword::True);
        let does_rel = relation_of(Keyword::Does);
        let next_rel = relation_of(Keyword::Next);
        let legal_rel = relation_of(Keyword::Legal);
        let goal_rel = relation_of(Keyword::Goal);
        let terminal_rel = relation_of(Keyword::Terminal);
        let sees_rel = relation_of(Keyword::Sees);
        let n = g.atoms.len();
        let mut places = vec![Place::Never; n];
        let args_of = |a: AtomId| {
            let atom = &g.atoms[a as usize];
            ir.decode(atom.relation, &atom.tuple).ok_or_else(|| {
                format!(
                    "an atom of `{}` does not decode",
                    ir.relation(atom.relation).key()
                )
            })
        };
        let role_of = |term: &crate::ir::Term| {
            ir.roles
                .iter()
                .position(|&r| r == term.symbol && term.args.is_empty())
        };

        // Fluents in layout order (canonical symbol order), ties by text.
        let mut fluents: Vec<(crate::ir::Term, String, AtomId)> = Vec::new();
        if let Some(t) = true_rel {
            for a in g.of(t) {
                let mut args = args_of(a)?;
                let term = args.swap_remove(0);
                let text = term_text(&ir.symbols, &term);
                fluents.push((term, text, a));
            }
        }
        fluents.sort_by(|a, b| layout_order(&a.0, &b.0).then_with(|| a.1.cmp(&b.1)));
        for (bit, &(_, _, a)) in fluents.iter().enumerate() {
            places[a as usize] = Place::State(bit);
        }
        let init: Vec<usize> = g
            .init
            .iter()
            .map(|&a| match places[a as usize] {
                Place::State(bit) => bit,
                _ => unreachable!("initial fluents are fluents"),
            })
            .collect();

        // Moves per role in layout order, ties by text.
        let mut per_role: Vec<Vec<(crate::ir::Term, String, AtomId)>> =
            vec![Vec::new(); ir.roles.len()];
        if let Some(d) = does_rel {
            for a in g.of(d) {
                let mut args = args_of(a)?;
                if let Some(r) = role_of(&args[0]) {
                    let term = args.swap_remove(1);
                    let text = term_text(&ir.symbols, &term);
                    per_role[r].push((term, text, a));
                }
            }
        }
        let mut moves = Vec::new();
        let mut role_moves = vec![0u32];
        for (r, list) in per_role.iter_mut().enumerate() {
            list.sort_by(|a, b| layout_order(&a.0, &b.0).then_with(|| a.1.cmp(&b.1)));
            for (_, text, a) in list.iter() {
                places[*a as usize] = Place::Move(r, moves.len() as u32);
                moves.push(text.clone());
            }
            role_moves.push(moves.len() as u32);
        }

        let phase = |r: RelationId| g.phase(ir, r);
        let mut by_head: Vec<Vec<&Instance>> = vec![Vec::new(); n];
        for instance in &g.instances {
            by_head[instance.head as usize].push(instance);
        }
        let is_input = |a: AtomId| {
            let r = Some(g.atoms[a as usize].relation);
            r == true_rel || r == does_rel
        };

        // Evaluation order: strongly connected components of the ground dependencies.
        let order = g.evaluation_order(ir);

        // Which atoms each evaluation function needs.
        let is_move_atom = |a: AtomId| {
            let r = g.atoms[a as usize].relation;
            Some(r) == sees_rel || (Some(r) != next_rel && phase(r) == Phase::Move)
        };
        let closure =
            |roots: Vec<AtomId>, within: &dyn Fn(AtomId) -> bool, seen: &mut Vec<bool>| {
                let mut stack = roots;
                while let Some(a) = stack.pop() {
                    if seen[a as usize] || !within(a) {
                        continue;
                    }
                    seen[a as usize] = true;
                    for instance in &by_head[a as usize] {
                        for literal in &instance.body {
                            let (Literal::Pos(b) | Literal::Neg(b)) = *literal;
                            stack.push(b);
                        }
                    }
                }
            };
        let of_rel =
            |r: Option<RelationId>| r.map(|r| g.of(r).collect::<Vec<_>>()).unwrap_or_default();
        let mut move_cone = vec![false; n];
        let mut roots = of_rel(next_rel);
        roots.extend(of_rel(sees_rel));
        closure(
            roots.clone(),
            &|a| {
                !is_input(a) && (is_move_atom(a) || Some(g.atoms[a as usize].relation) == next_rel)
            },
            &mut move_cone,
        );
        // The state atoms the move cone reads, plus terminal and legal.
        let mut state_roots: Vec<AtomId> = of_rel(terminal_rel);
        state_roots.extend(of_rel(legal_rel));
        for a in 0..n {
            if move_cone[a] {
                for instance in &by_head[a] {
                    for literal in &instance.body {
                        let (Literal::Pos(b) | Literal::Neg(b)) = *literal;
                        state_roots.push(b);
                    }
                }
            }
        }
        let mut state_cone = vec![false; n];
        closure(
            state_roots,
            &|a| !is_input(a) && !is_move_atom(a) && Some(g.atoms[a as usize].relation) != next_rel,
            &mut state_cone,
        );
        let mut goal_cone = state_cone.clone();
        closure(
            of_rel(goal_rel),
            &|a| !is_input(a) && !is_move_atom(a) && Some(g.atoms[a as usize].relation) != next_rel,
            &mut goal_cone,
        );
        for a in 0..n {
            if state_cone[a] {
                goal_cone[a] = false;
            }
        }

        // Bits of `d`: legal moves per role in move order, terminal, goals, the rest.
        let mut d_bits = 0usize;
        let mut legal_bits = Vec::with_capacity(ir.roles.len());
        let mut legal_of_move: BTreeMap<u32, AtomId> = BTreeMap::new();
        for a in of_rel(legal_rel) {
            if let Some(does) = g.input_of[a as usize]
                && let Place::Move(_, mv) = places[does as usize]
            {
                legal_of_move.insert(mv, a);
            }
        }
        for r in 0..ir.roles.len() {
            legal_bits.push(d_bits);
            for mv in role_moves[r]..role_moves[r + 1] {
                if let Some(&a) = legal_of_move.get(&mv) {
                    places[a as usize] = Place::D(d_bits);
                }
                d_bits += 1;
            }
        }
        let mut terminal_bit = None;
        for a in of_rel(terminal_rel) {
            places[a as usize] = Place::D(d_bits);
            terminal_bit = Some(d_bits);
            d_bits += 1;
        }
        let mut goals: Vec<Vec<(usize, String)>> = vec![Vec::new(); ir.roles.len()];
        for a in of_rel(goal_rel) {
            let args = args_of(a)?;
            if let Some(r) = role_of(&args[0]) {
                places[a as usize] = Place::D(d_bits);
                goals[r].push((d_bits, term_text(&ir.symbols, &args[1])));
                d_bits += 1;
            }
        }
        for goal in &mut goals {
            goal.sort_by(|a, b| (&a.1, a.0).cmp(&(&b.1, b.0)));
        }
        // Percepts: bits of `m` first.
        let mut m_bits = 0usize;
        let mut percept_atoms: Vec<(usize, String, AtomId)> = Vec::new();
        for a in of_rel(sees_rel) {
            let args = args_of(a)?;
            if let Some(r) = role_of(&args[0]) {
                percept_atoms.push((r, term_text(&ir.symbols, &args[1]), a));
            }
        }
        let mut percepts: Vec<String> = percept_atoms.iter().map(|p| p.1.clone()).collect();
        percepts.sort();
        percepts.dedup();
        let mut sees: Vec<Vec<(usize, u32)>> = vec![Vec::new(); ir.roles.len()];
        percept_atoms.sort();
        for (r, text, a) in &percept_atoms {
            let percept = percepts.binary_search(text).expect("listed") as u32;
            places[*a as usize] = Place::M(m_bits);
            sees[*r].push((m_bits, percept));
            m_bits += 1;
        }
        // Families: placed where their literals are, computed word-parallel.
        let families = families(
            g,
            &by_head,
            &mut places,
            &mut d_bits,
            &order,
            &[&state_cone, &goal_cone],
        );
        // Shared conjunctions (see `crate::ground::share`) in the order of the bits of
        // the atoms that read them (a role's legal move reading its conditions), so
        // that those copy them head-parallel.
        let shared_from = ir.relations.len() + g.aux_phases.len() - g.shared_relations;
        let mut by_reader: Vec<(usize, AtomId)> = Vec::new();
        for instance in &g.instances {
            let Place::D(bit) = places[instance.head as usize] else {
                continue;
            };
            for &literal in &instance.body {
                let b = literal.atom() as usize;
                if matches!(literal, Literal::Pos(_))
                    && g.atoms[b].relation.0 as usize >= shared_from
                    && places[b] == Place::Never
                    && (state_cone[b] || goal_cone[b])
                    && !move_cone[b]
                {
                    by_reader.push((bit, b as AtomId));
                }
            }
        }
        by_reader.sort_unstable();
        for (_, b) in by_reader {
            if places[b as usize] == Place::Never {
                places[b as usize] = Place::D(d_bits);
                d_bits += 1;
            }
        }
        // The rest, in evaluation order.
        for (atoms, _) in &order {
            for &a in atoms {
                let i = a as usize;
                if places[i] != Place::Never {
                    continue;
                }
                if Some(g.atoms[i].relation) == next_rel {
                    if let Some(f) = g.input_of[i]
                        && let Place::State(bit) = places[f as usize]
                    {
                        places[i] = Place::Next(bit);
                    }
                } else if move_cone[i] {
                    places[i] = Place::M(m_bits);
                    m_bits += 1;
                } else if state_cone[i] || goal_cone[i] {
                    places[i] = Place::D(d_bits);
                    d_bits += 1;
                }
            }
        }
        let layout = Layout {
            ir,
            g,
            places,
            fluents: fluents.into_iter().map(|f| f.1).collect(),
            init,
            moves,
            role_moves,
            percepts,
            legal_bits,
            terminal_bit,
            goals,
            sees,
            by_head,
            order,
            state_cone,
            goal_cone,
            move_cone,
            d_bits,
            m_bits,
            tabled: Tabled::default(),
            families,
            owned: BTreeSet::new(),
            demand: Vec::new(),
        };
        let mut layout = layout;
        layout.owned = layout.owned_words();
        layout.demand = demand_guards(ir, g, &layout.places, &layout.order);
        let sizes = *weighed.get_or_insert_with(|| layout.weigh());
        layout.tabled = Tabled::chosen(&sizes, budget)?;
        Ok(layout)
    }

    /// The sizes [`Tabled::chosen`] weighs (see there): with shared conjunctions,
    /// the straight-line code is measured as emitted, since what sharing saves (the
    /// words of an OR, a guard's literal) shows only there. Other groundings keep the
    /// literal count, which keeps the projected grounding where it pays (tron_10x10:
    /// the plain one fits as emitted but runs 5× slower).
    pub(super) fn weigh(&self) -> Weighed {
        let size = |cone: &[bool]| {
            if self.g.shared_relations > 0 {
                self.emitted_reads(cone)
            } else {
                self.cone_literals(cone)
            }
        };
        let (keyed_literals, keyed_per_move) = self.keyed_literals();
        Weighed {
            state: size(&self.state_cone),
            moves: self.cone_literals(&self.move_cone),
            goals: size(&self.goal_cone),
            keyed_literals,
            keyed_per_move,
            goal_literals: self.cone_literals(&self.goal_cone),
            goals_recursive: self.recursive_in(&self.goal_cone),
        }
    }

    /// The size of the straight-line code computing a cone of state atoms: how many
    /// bits and words of `s` and `d` it reads. A literal is one read, but atoms under
    /// a guard do not repeat its literal, word-parallel families and head-parallel
    /// atoms read a word for up to 64 atoms, and an OR of atoms numbered together
    /// reads their words.
    pub(super) fn emitted_reads(&self, cone: &[bool]) -> usize {
        let mut code = String::new();
        self.statements(cone, &mut code);
        let accesses = code.matches("s[").count() + code.matches("d[").count();
        accesses - code.matches("] |=").count() - code.matches("] = (").count()
    }

    /// How many atoms of the straight-line state and goal code have a demand guard
    /// (see [`demand_guards`]).
    pub(super) fn demand_guarded(&self) -> usize {
        let mut in_family = vec![false; self.g.atoms.len()];
        for family in &self.families {
            for &(a, _) in &family.atoms {
                in_family[a as usize] = true;
            }
        }
        (0..self.g.atoms.len())
            .filter(|&a| {
                (self.state_cone[a] || (self.goal_cone[a] && !self.tabled.goals))
                    && self.demand[a].is_some()
                    && matches!(self.places[a], Place::D(_))
                    && !in_family[a]
            })
            .count()
    }

    /// Whether an atom of a cone is recursive (depends on itself).
    pub(super) fn recursive_in(&self, cone: &[bool]) -> bool {
        self.order.iter().any(|(atoms, cyclic)| {
            *cyclic
                && atoms
                    .iter()
                    .any(|&a| cone[a as usize] && self.places[a as usize] != Place::Never)
        })
    }

    /// Whether the rest of an instance under one move can be in a keyed program: it
    /// reads no other move.
    pub(super) fn programmable(&self, body: &[Literal]) -> bool {
        !body.iter().any(|&l| {
            let (Literal::Pos(b) | Literal::Neg(b)) = l;
            matches!(self.places[b as usize], Place::Move(..))
        })
    }

    /// The literals of the instances that run under one move of one role and can be
    /// in a keyed program (see `eval_moves`): of `next`, and of the move-dependent
    /// atoms that can be keyed early ([`Self::early_keyed_atoms`]); and the most of
    /// them per move of one role on average: what keyed programs run per joint move
    /// and role.
    pub(super) fn keyed_literals(&self) -> (usize, usize) {
        let roles = self.role_moves.len() - 1;
        let mut per_role = vec![0usize; roles];
        for (a, early) in self.early_keyed_atoms().into_iter().enumerate() {
            if !self.move_cone[a] {
                continue;
            }
            if early {
                for instance in &self.by_head[a] {
                    if let Some((role, _, body)) = self.early_key(instance)
                        && self.programmable(&body)
                    {
                        per_role[role] += instance.body.len();
                    }
                }
                continue;
            }
            if !matches!(self.places[a], Place::Next(_)) {
                continue;
            }
            for instance in &self.by_head[a] {
                if self.copy_of(instance).is_some() {
                    continue;
                }
                if let Some((role, _, body)) = self.key_of(instance)
                    && self.programmable(&body)
                {
                    per_role[role] += instance.body.len();
                }
            }
        }
        let per_move = (0..roles)
            .map(|r| {
                let moves = (self.role_moves[r + 1] - self.role_moves[r]).max(1) as usize;
                per_role[r].div_ceil(moves)
            })
            .max()
            .unwrap_or(0);
        (per_role.iter().sum(), per_move)
    }

    /// The literals the code of one cone spells out: copies of a fluent (unconditional
    /// or under one move) and atoms that only say which moves were played become bits
    /// of constant tables and are not counted.
    pub(super) fn cone_literals(&self, cone: &[bool]) -> usize {
        let move_only = self.move_only_atoms();
        (0..self.g.atoms.len())
            .filter(|&a| cone[a] && move_only[a].is_none())
            .map(|a| {
                self.by_head[a]
                    .iter()
                    .filter(|i| self.copy_of(i).is_none())
                    .map(|i| i.body.len().max(1))
                    .sum::<usize>()
            })
            .sum()
    }
}

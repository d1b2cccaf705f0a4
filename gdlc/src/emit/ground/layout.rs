//! The ground backend's layout: every atom's place (a bit of the state `s`, of the
//! state atoms `d` or of the move atoms `m`, or a move number), numbered in layout
//! order, and the sizes a budget is weighed by.

use super::*;

impl<'a> Layout<'a> {
    /// The layout of grounding `g` under `budget`, or why its code does not fit
    /// ([`Tabled::chosen`], asking `join_work` for the join backend's work where
    /// needed). `weighed` holds the grounding's sizes once known ([`Layout::weigh`]):
    /// a budget they do not fit is refused before any work.
    pub(super) fn new(
        ir: &'a Ir,
        g: &'a Grounding,
        budget: Budget,
        weighed: &mut Option<Weighed>,
        join_work: JoinWork,
    ) -> Result<Self, String> {
        if let Some(known) = weighed {
            Tabled::chosen(known, budget, join_work)?;
        }
        let mut placing = Placing::new(ir, g);
        let (fluents, init) = placing.fluents()?;
        let by_head = instances_by_head(g);
        let (moves, role_moves) = placing.moves(&by_head)?;
        // Evaluation order: strongly connected components of the ground dependencies.
        let order = g.evaluation_order(ir);
        let cones = placing.cones(&by_head);
        // Bits of `d`: terminal, goals, families, legal moves per role in move order
        // (mirroring what they read), the rest.
        let terminal_bit = placing.terminal();
        let goals = placing.goals()?;
        // Percepts: bits of `m` first.
        let (percepts, sees) = placing.percepts()?;
        // Families: placed where their literals are, computed word-parallel, each of
        // atoms of one demand guard (which reads the fluents' places only).
        let demand = demand_guards(ir, g, &placing.places, &order);
        let families = families(
            g,
            &Context::new(&by_head, &order, &demand),
            &mut placing.places,
            &placing.regions,
            &mut placing.d_bits,
            &[&cones.state, &cones.goal],
            placing.legal_rel,
        );
        let legal_words = placing.legal_moves(&role_moves, &by_head);
        placing.shared_conjunctions(&cones);
        placing.the_rest(&order, &cones);
        let Placing {
            places,
            d_bits,
            m_bits,
            ..
        } = placing;
        let mut layout = Layout {
            ir,
            g,
            places,
            fluents,
            init,
            moves,
            role_moves,
            percepts,
            legal_words,
            terminal_bit,
            goals,
            sees,
            by_head,
            order,
            state_cone: cones.state,
            goal_cone: cones.goal,
            move_cone: cones.moves,
            d_bits,
            m_bits,
            tabled: Tabled::default(),
            families,
            owned: BTreeSet::new(),
            demand,
        };
        layout.owned = layout.owned_words();
        let sizes = *weighed.get_or_insert_with(|| layout.weigh());
        layout.tabled = Tabled::chosen(&sizes, budget, join_work)?;
        Ok(layout)
    }

    /// The sizes [`Tabled::chosen`] weighs (see there): the straight-line code as
    /// emitted, and as written — its literals, or, with shared conjunctions, as
    /// emitted too, since what sharing saves (the words of an OR, a guard's literal)
    /// shows only there.
    ///
    /// Code past the default budget by more than sharing can shrink it
    /// (`MAX_SHARING_GAIN`) is not laid out as emitted to be weighed (team chess's
    /// 821,000 literals: 3 s of the compiler's time, for reads within 15 % of them).
    pub(super) fn weigh(&self) -> Weighed {
        let shared = self.g.shared_relations > 0;
        let as_emitted = |cone: &[bool], literals: usize| {
            if shared || literals <= MAX_SHARING_GAIN * MAX_EMITTED_LITERALS {
                self.emitted_reads(cone)
            } else {
                literals
            }
        };
        let state_literals = self.cone_literals(&self.state_cone);
        let goal_literals = self.cone_literals(&self.goal_cone);
        let state = as_emitted(&self.state_cone, state_literals);
        let goals = as_emitted(&self.goal_cone, goal_literals);
        let (keyed_literals, keyed_per_move) = self.keyed_literals();
        Weighed {
            state,
            written_state: if shared { state } else { state_literals },
            moves: self.cone_literals(&self.move_cone),
            goals,
            written_goals: if shared { goals } else { goal_literals },
            keyed_literals,
            keyed_per_move,
            goal_literals,
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
        accesses
            - code.matches("] |=").count()
            - code.matches("] = (").count()
            - code.matches("] = 0;").count()
    }

    /// How many atoms of the straight-line state and goal code have a demand guard
    /// (see [`demand_guards`]; an atom of a word-parallel family, when the whole family
    /// has it).
    pub(super) fn demand_guarded(&self) -> usize {
        let mut in_unguarded_family = vec![false; self.g.atoms.len()];
        for family in &self.families {
            if self.family_guard(family).is_none() {
                for &(a, _) in &family.atoms {
                    in_unguarded_family[a as usize] = true;
                }
            }
        }
        (0..self.g.atoms.len())
            .filter(|&a| {
                (self.state_cone[a] || (self.goal_cone[a] && !self.tabled.goals))
                    && self.demand[a].is_some()
                    && matches!(self.places[a], Place::D(_))
                    && !in_unguarded_family[a]
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

/// Moves are numbered by shape only on a board at least one in this many of whose
/// bits hold at the start (see `Placing::move_shapes`).
const MIN_BOARD_DENSITY: usize = 8;

/// A move's shape and anchor (see `Placing::move_shapes`): per literal its kind (0: a
/// board bit, 1: another fluent, 2: a derived atom reading the board, 3: another),
/// polarity and distance from the anchor, sorted; then the anchor, a bit of the state.
type MoveShape = (Vec<(u8, bool, isize)>, usize);

/// Instances by head atom.
fn instances_by_head(g: &Grounding) -> Vec<Vec<&Instance>> {
    let mut by_head: Vec<Vec<&Instance>> = vec![Vec::new(); g.atoms.len()];
    for instance in &g.instances {
        by_head[instance.head as usize].push(instance);
    }
    by_head
}

/// Marks in `seen` the atoms `roots` reach through instance bodies while `within`
/// holds.
fn close_over(
    by_head: &[Vec<&Instance>],
    roots: Vec<AtomId>,
    within: &dyn Fn(AtomId) -> bool,
    seen: &mut [bool],
) {
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
}

/// Per role, each percept's bit of `m` and number.
type RolePercepts = Vec<Vec<(usize, u32)>>;

/// Which atoms each evaluation function needs.
struct Cones {
    /// What `eval_moves` computes: `next`, `sees` and the move-dependent atoms.
    moves: Vec<bool>,
    /// What `eval_state` computes: what the move cone reads, `terminal` and `legal`.
    state: Vec<bool>,
    /// What only `eval_goals` computes.
    goal: Vec<bool>,
}

/// The layout while atoms are placed: the grounding's keyword relations, every atom's
/// place so far and the bits of `d` and `m` taken.
struct Placing<'a> {
    ir: &'a Ir,
    g: &'a Grounding,
    true_rel: Option<RelationId>,
    does_rel: Option<RelationId>,
    next_rel: Option<RelationId>,
    legal_rel: Option<RelationId>,
    goal_rel: Option<RelationId>,
    terminal_rel: Option<RelationId>,
    sees_rel: Option<RelationId>,
    places: Vec<Place>,
    /// Per bit of the state, its *region*: the first bit of its board (the fluents of
    /// one symbol that differ only in their coordinates), else its own bit.
    regions: Vec<usize>,
    d_bits: usize,
    m_bits: usize,
}

impl<'a> Placing<'a> {
    /// Nothing placed yet.
    fn new(ir: &'a Ir, g: &'a Grounding) -> Self {
        let relation_of = |k: Keyword| ir.keyword(k);
        Placing {
            ir,
            g,
            true_rel: relation_of(Keyword::True),
            does_rel: relation_of(Keyword::Does),
            next_rel: relation_of(Keyword::Next),
            legal_rel: relation_of(Keyword::Legal),
            goal_rel: relation_of(Keyword::Goal),
            terminal_rel: relation_of(Keyword::Terminal),
            sees_rel: relation_of(Keyword::Sees),
            places: vec![Place::Never; g.atoms.len()],
            regions: Vec::new(),
            d_bits: 0,
            m_bits: 0,
        }
    }

    /// An atom's arguments, or why they do not decode.
    fn args_of(&self, a: AtomId) -> Result<Vec<crate::ir::Term>, String> {
        let atom = &self.g.atoms[a as usize];
        self.ir.decode(atom.relation, &atom.tuple).ok_or_else(|| {
            format!(
                "an atom of `{}` does not decode",
                self.ir.relation(atom.relation).key()
            )
        })
    }

    /// The role a term names, if it names one.
    fn role_of(&self, term: &crate::ir::Term) -> Option<usize> {
        self.ir
            .roles
            .iter()
            .position(|&r| r == term.symbol && term.args.is_empty())
    }

    /// The atoms of a relation, none if the game lacks it.
    fn of_rel(&self, r: Option<RelationId>) -> Vec<AtomId> {
        r.map(|r| self.g.of(r).collect::<Vec<_>>())
            .unwrap_or_default()
    }

    /// Whether an atom's relation is `r`.
    fn is(&self, a: AtomId, r: Option<RelationId>) -> bool {
        Some(self.g.atoms[a as usize].relation) == r
    }

    /// Places the fluents as bits of the state in layout order (canonical symbol
    /// order) with each fluent's coordinate columns last (see
    /// [`Self::coordinate_columns`]), ties by text: their texts, and the bits of the
    /// initial state.
    fn fluents(&mut self) -> Result<(Vec<String>, Vec<usize>), String> {
        let mut fluents: Vec<(crate::ir::Term, String, AtomId)> = Vec::new();
        for a in self.of_rel(self.true_rel) {
            let mut args = self.args_of(a)?;
            let term = args.swap_remove(0);
            let text = term_text(&self.ir.symbols, &term);
            fluents.push((term, text, a));
        }
        // Sorted by the layout order of their terms with the coordinates last.
        let coordinates = self.coordinate_columns(fluents.iter().map(|f| &f.0));
        let mut keyed: Vec<(crate::ir::Term, String, AtomId)> = fluents
            .into_iter()
            .map(|(term, text, a)| {
                let inner = &coordinates[&(term.symbol, term.args.len())];
                let (outer, coordinate): (Vec<_>, Vec<_>) = term
                    .args
                    .iter()
                    .zip(inner)
                    .partition(|&(_, &is_coordinate)| !is_coordinate);
                let args = outer
                    .into_iter()
                    .chain(coordinate)
                    .map(|(arg, _)| arg.clone());
                let key = crate::ir::Term {
                    symbol: term.symbol,
                    args: args.collect(),
                };
                (key, text, a)
            })
            .collect();
        keyed.sort_by(|a, b| layout_order(&a.0, &b.0).then_with(|| a.1.cmp(&b.1)));
        // A board (the fluents of one symbol that differ only in their coordinates)
        // that fits a word starts a word rather than straddle two, when that takes no
        // more words of state: its lines are then shifts of one word.
        let boards: Vec<Option<(crate::ir::SymbolId, Vec<crate::ir::Term>)>> = keyed
            .iter()
            .map(|(key, _, _)| {
                let flags = &coordinates[&(key.symbol, key.args.len())];
                let outer = flags.iter().filter(|&&c| !c).count();
                (outer < key.args.len()).then(|| (key.symbol, key.args[..outer].to_vec()))
            })
            .collect();
        let bits = board_bits(&boards);
        let bits = if words(bits.last().map_or(0, |b| b + 1)) == words(keyed.len()) {
            bits
        } else {
            (0..keyed.len()).collect()
        };
        let mut texts = vec![String::new(); bits.last().map_or(0, |b| b + 1)];
        self.regions = (0..texts.len()).collect();
        for (k, ((_, text, a), &bit)) in keyed.into_iter().zip(&bits).enumerate() {
            self.places[a as usize] = Place::State(bit);
            texts[bit] = text;
            if k > 0 && boards[k].is_some() && boards[k] == boards[k - 1] {
                self.regions[bit] = self.regions[bits[k - 1]];
            }
        }
        let init: Vec<usize> = self
            .g
            .init
            .iter()
            .map(|&a| match self.places[a as usize] {
                Place::State(bit) => bit,
                _ => unreachable!("initial fluents are fluents"),
            })
            .collect();
        Ok((texts, init))
    }

    /// Per fluent symbol (and arity), which of its columns are *coordinates*: every
    /// value there is a constant of one of the game's chains (see
    /// [`crate::analysis::canonical`]). The layout puts them last, so that the fluents
    /// that differ only in their coordinates — a piece of one kind and colour on every
    /// square — lie side by side, one board to a run of bits, whatever order the
    /// columns were written in: a move or a line is then one shift of a word.
    fn coordinate_columns<'t>(
        &self,
        terms: impl Iterator<Item = &'t crate::ir::Term>,
    ) -> BTreeMap<(crate::ir::SymbolId, usize), Vec<bool>> {
        let chained: BTreeSet<&str> = self
            .ir
            .chains
            .iter()
            .flat_map(|c| c.constants.iter().map(String::as_str))
            .collect();
        let mut columns: BTreeMap<(crate::ir::SymbolId, usize), Vec<bool>> = BTreeMap::new();
        for term in terms {
            let flags = columns
                .entry((term.symbol, term.args.len()))
                .or_insert_with(|| vec![true; term.args.len()]);
            for (flag, arg) in flags.iter_mut().zip(&term.args) {
                *flag &= arg.args.is_empty()
                    && chained.contains(self.ir.symbols.symbol(arg.symbol).name.as_str());
            }
        }
        columns
    }

    /// Numbers the moves per role by shape and anchor (see [`Self::move_shapes`]),
    /// then in layout order, ties by text: their texts, and where each role's range
    /// starts (and the last ends).
    fn moves(&mut self, by_head: &[Vec<&Instance>]) -> Result<(Vec<String>, Vec<u32>), String> {
        let mut per_role: Vec<Vec<(crate::ir::Term, String, AtomId)>> =
            vec![Vec::new(); self.ir.roles.len()];
        for a in self.of_rel(self.does_rel) {
            let mut args = self.args_of(a)?;
            if let Some(r) = self.role_of(&args[0]) {
                let term = args.swap_remove(1);
                let text = term_text(&self.ir.symbols, &term);
                per_role[r].push((term, text, a));
            }
        }
        let mut moves = Vec::new();
        let mut role_moves = vec![0u32];
        let shapes = self.move_shapes(by_head);
        for (r, list) in per_role.iter_mut().enumerate() {
            list.sort_by(|a, b| {
                let (x, y) = (shapes.get(&a.2), shapes.get(&b.2));
                y.is_some()
                    .cmp(&x.is_some())
                    .then_with(|| x.cmp(&y))
                    .then_with(|| layout_order(&a.0, &b.0))
                    .then_with(|| a.1.cmp(&b.1))
            });
            for (_, text, a) in list.iter() {
                self.places[*a as usize] = Place::Move(r, moves.len() as u32);
                moves.push(text.clone());
            }
            role_moves.push(moves.len() as u32);
        }
        Ok((moves, role_moves))
    }

    /// Per `does` atom whose move has a `legal` atom, its *shape* and anchor: moves are
    /// numbered by shape, then anchor, so that a role's legal moves of one shape — a
    /// step in one direction from every square — are consecutive bits of `d` at one
    /// distance from the board's bits they read, computed a word at a time.
    ///
    /// A move's anchor is the first state bit its legal instances read positively of
    /// the role's *board*: the fluent symbol read at the most bits by the role's legal
    /// moves. Its shape is what its legal instances read, relative to the anchor: a
    /// board bit by its distance, another fluent by its polarity alone, a derived atom
    /// by the distance of the first board bit its own instances read. A role whose
    /// board is sparse at the start (under one bit in [`MIN_BOARD_DENSITY`]) gets no
    /// shapes.
    fn move_shapes(&self, by_head: &[Vec<&Instance>]) -> BTreeMap<AtomId, MoveShape> {
        let g = self.g;
        let legal = self.of_rel(self.legal_rel);
        // Each fluent's bit and symbol.
        let fluents: Vec<Option<(usize, crate::ir::SymbolId)>> = (0..g.atoms.len())
            .map(|a| match self.places[a] {
                Place::State(bit) => {
                    let args = self.args_of(a as AtomId).ok()?;
                    Some((bit, args[0].symbol))
                }
                _ => None,
            })
            .collect();
        let fluent_symbol = |a: AtomId| fluents[a as usize];
        let bodies = |a: AtomId| by_head[a as usize].iter().map(|i| &i.body[..]);
        let mut by_role: Vec<Vec<(AtomId, AtomId)>> = vec![Vec::new(); self.ir.roles.len()];
        for &a in &legal {
            let Some(does) = g.input_of[a as usize] else {
                continue;
            };
            if let Some(r) = self
                .args_of(does)
                .ok()
                .and_then(|args| self.role_of(&args[0]))
            {
                by_role[r].push((a, does));
            }
        }
        let mut shapes = BTreeMap::new();
        for moves in by_role {
            let mut bits_of: BTreeMap<crate::ir::SymbolId, BTreeSet<usize>> = BTreeMap::new();
            for &(a, _) in &moves {
                for body in bodies(a) {
                    for &l in body {
                        if let (Literal::Pos(_), Some((bit, symbol))) = (l, fluent_symbol(l.atom()))
                        {
                            bits_of.entry(symbol).or_default().insert(bit);
                        }
                    }
                }
            }
            let Some(board) = bits_of
                .iter()
                .max_by_key(|(symbol, bits)| (bits.len(), std::cmp::Reverse(**symbol)))
                .map(|(&symbol, _)| symbol)
            else {
                continue;
            };
            let board_bit = |b: AtomId| fluent_symbol(b).filter(|f| f.1 == board).map(|f| f.0);
            // A sparse board (a few pieces at the start) keeps its moves in layout
            // order: each square's moves under one test of the square beat a word per
            // direction when most squares are empty.
            let squares = fluents
                .iter()
                .filter(|f| f.is_some_and(|f| f.1 == board))
                .count();
            let occupied = g.init.iter().filter(|&&a| board_bit(a).is_some()).count();
            if occupied * MIN_BOARD_DENSITY < squares {
                continue;
            }
            for (a, does) in moves {
                let literals = || bodies(a).flatten();
                let Some(anchor) = literals()
                    .filter(|l| matches!(l, Literal::Pos(_)))
                    .filter_map(|l| board_bit(l.atom()))
                    .min()
                else {
                    continue;
                };
                let mut shape: Vec<(u8, bool, isize)> = literals()
                    .map(|&l| {
                        let b = l.atom();
                        let positive = matches!(l, Literal::Pos(_));
                        if let Some(bit) = board_bit(b) {
                            (0, positive, bit as isize - anchor as isize)
                        } else if fluent_symbol(b).is_some() {
                            (1, positive, 0)
                        } else {
                            let first = bodies(b)
                                .flatten()
                                .filter_map(|l| board_bit(l.atom()))
                                .min();
                            match first {
                                Some(bit) => (2, positive, bit as isize - anchor as isize),
                                None => (3, positive, 0),
                            }
                        }
                    })
                    .collect();
                shape.sort_unstable();
                shape.dedup();
                shapes.insert(does, (shape, anchor));
            }
        }
        shapes
    }

    /// Which atoms each evaluation function needs.
    fn cones(&self, by_head: &[Vec<&Instance>]) -> Cones {
        let g = self.g;
        let n = g.atoms.len();
        let is_input = |a: AtomId| self.is(a, self.true_rel) || self.is(a, self.does_rel);
        let is_move_atom = |a: AtomId| {
            let r = g.atoms[a as usize].relation;
            Some(r) == self.sees_rel
                || (Some(r) != self.next_rel && g.phase(self.ir, r) == Phase::Move)
        };
        let mut moves = vec![false; n];
        let mut roots = self.of_rel(self.next_rel);
        roots.extend(self.of_rel(self.sees_rel));
        close_over(
            by_head,
            roots,
            &|a| !is_input(a) && (is_move_atom(a) || self.is(a, self.next_rel)),
            &mut moves,
        );
        // The state atoms the move cone reads, plus terminal and legal.
        let mut state_roots: Vec<AtomId> = self.of_rel(self.terminal_rel);
        state_roots.extend(self.of_rel(self.legal_rel));
        for a in 0..n {
            if moves[a] {
                for instance in &by_head[a] {
                    for literal in &instance.body {
                        let (Literal::Pos(b) | Literal::Neg(b)) = *literal;
                        state_roots.push(b);
                    }
                }
            }
        }
        let of_state = |a: AtomId| !is_input(a) && !is_move_atom(a) && !self.is(a, self.next_rel);
        let mut state = vec![false; n];
        close_over(by_head, state_roots, &of_state, &mut state);
        let mut goal = state.clone();
        close_over(by_head, self.of_rel(self.goal_rel), &of_state, &mut goal);
        for a in 0..n {
            if state[a] {
                goal[a] = false;
            }
        }
        Cones { moves, state, goal }
    }

    /// Places each role's legal moves as bits of `d` in move order, a bit for every
    /// move (legal or not), and returns per role the words of `d` they occupy with
    /// the mask of their bits there (see `GroundRules::LEGAL_WORDS`).
    ///
    /// Consecutive moves that read the same bits but for some at one distance further
    /// on (a mark on the next blank square, a step from the next square: see
    /// [`legal_runs`]) are a *run*, placed with the holes of what they read: the
    /// run's bits lie at one distance from those literals, so its moves are computed
    /// as one shifted word under their common guard, as long as the role takes no
    /// more words than one bit a move would (see [`legal_offsets`]). A role starts
    /// on a fresh word when it would otherwise take one word more.
    fn legal_moves(
        &mut self,
        role_moves: &[u32],
        by_head: &[Vec<&Instance>],
    ) -> Vec<Vec<(usize, u64)>> {
        let mut legal_of_move: BTreeMap<u32, AtomId> = BTreeMap::new();
        for a in self.of_rel(self.legal_rel) {
            if let Some(does) = self.g.input_of[a as usize]
                && let Place::Move(_, mv) = self.places[does as usize]
            {
                legal_of_move.insert(mv, a);
            }
        }
        let mut legal_words = Vec::with_capacity(self.ir.roles.len());
        for r in 0..self.ir.roles.len() {
            let atoms: Vec<Option<AtomId>> = (role_moves[r]..role_moves[r + 1])
                .map(|mv| legal_of_move.get(&mv).copied())
                .collect();
            let bodies: Vec<Option<Vec<LiteralBit>>> = atoms
                .iter()
                .map(|a| a.and_then(|a| self.placed_body(&by_head[a as usize])))
                .collect();
            let offsets = legal_offsets(&bodies);
            let span = offsets.last().map_or(0, |&o| o + 1);
            if span > 0 && self.d_bits % 64 + span > 64 * words(span) {
                self.d_bits = self.d_bits.next_multiple_of(64);
            }
            let mut masks: BTreeMap<usize, u64> = BTreeMap::new();
            for (a, offset) in atoms.into_iter().zip(offsets) {
                let bit = self.d_bits + offset;
                if let Some(a) = a {
                    self.places[a as usize] = Place::D(bit);
                }
                *masks.entry(bit / 64).or_default() |= 1 << (bit % 64);
            }
            self.d_bits += span;
            legal_words.push(masks.into_iter().collect());
        }
        legal_words
    }

    /// The literals of an atom with one instance, each as its array, polarity and
    /// bit, sorted; `None` unless every literal is placed in `s` or `d`.
    fn placed_body(&self, instances: &[&Instance]) -> Option<Vec<LiteralBit>> {
        let [instance] = instances else { return None };
        let mut body: Vec<LiteralBit> = instance
            .body
            .iter()
            .map(|&l| {
                let positive = matches!(l, Literal::Pos(_));
                match self.places[l.atom() as usize] {
                    Place::State(bit) => Some(("s", positive, bit)),
                    Place::D(bit) => Some(("d", positive, bit)),
                    _ => None,
                }
            })
            .collect::<Option<_>>()?;
        body.sort_unstable();
        Some(body)
    }

    /// Places `terminal` as a bit of `d`: its bit, if the game has it.
    fn terminal(&mut self) -> Option<usize> {
        let mut terminal_bit = None;
        for a in self.of_rel(self.terminal_rel) {
            self.places[a as usize] = Place::D(self.d_bits);
            terminal_bit = Some(self.d_bits);
            self.d_bits += 1;
        }
        terminal_bit
    }

    /// Places the goals as bits of `d`: per role, each goal's bit and value text, in
    /// value order.
    fn goals(&mut self) -> Result<Vec<Vec<(usize, String)>>, String> {
        let mut goals: Vec<Vec<(usize, String)>> = vec![Vec::new(); self.ir.roles.len()];
        for a in self.of_rel(self.goal_rel) {
            let args = self.args_of(a)?;
            if let Some(r) = self.role_of(&args[0]) {
                self.places[a as usize] = Place::D(self.d_bits);
                goals[r].push((self.d_bits, term_text(&self.ir.symbols, &args[1])));
                self.d_bits += 1;
            }
        }
        for goal in &mut goals {
            goal.sort_by(|a, b| (&a.1, a.0).cmp(&(&b.1, b.0)));
        }
        Ok(goals)
    }

    /// Places the percepts as the first bits of `m`: the percept texts in order, and
    /// per role each percept's bit and number.
    fn percepts(&mut self) -> Result<(Vec<String>, RolePercepts), String> {
        let mut percept_atoms: Vec<(usize, String, AtomId)> = Vec::new();
        for a in self.of_rel(self.sees_rel) {
            let args = self.args_of(a)?;
            if let Some(r) = self.role_of(&args[0]) {
                percept_atoms.push((r, term_text(&self.ir.symbols, &args[1]), a));
            }
        }
        let mut percepts: Vec<String> = percept_atoms.iter().map(|p| p.1.clone()).collect();
        percepts.sort();
        percepts.dedup();
        let mut sees: RolePercepts = vec![Vec::new(); self.ir.roles.len()];
        percept_atoms.sort();
        for (r, text, a) in &percept_atoms {
            let percept = percepts.binary_search(text).expect("listed") as u32;
            self.places[*a as usize] = Place::M(self.m_bits);
            sees[*r].push((self.m_bits, percept));
            self.m_bits += 1;
        }
        Ok((percepts, sees))
    }

    /// Places the shared conjunctions (see `crate::ground::share`) in the order of the
    /// bits of the atoms that read them (a role's legal move reading its conditions),
    /// so that those copy them head-parallel.
    fn shared_conjunctions(&mut self, cones: &Cones) {
        let (ir, g) = (self.ir, self.g);
        let shared_from = ir.relations.len() + g.aux_phases.len() - g.shared_relations;
        let mut by_reader: Vec<(usize, AtomId)> = Vec::new();
        for instance in &g.instances {
            let Place::D(bit) = self.places[instance.head as usize] else {
                continue;
            };
            for &literal in &instance.body {
                let b = literal.atom() as usize;
                if matches!(literal, Literal::Pos(_))
                    && g.atoms[b].relation.0 as usize >= shared_from
                    && self.places[b] == Place::Never
                    && (cones.state[b] || cones.goal[b])
                    && !cones.moves[b]
                {
                    by_reader.push((bit, b as AtomId));
                }
            }
        }
        by_reader.sort_unstable();
        for (_, b) in by_reader {
            if self.places[b as usize] == Place::Never {
                self.places[b as usize] = Place::D(self.d_bits);
                self.d_bits += 1;
            }
        }
    }

    /// Places the rest in evaluation order: `next` atoms at their fluents' bits, the
    /// move cone in `m`, the state and goal cones in `d`.
    fn the_rest(&mut self, order: &[(Vec<AtomId>, bool)], cones: &Cones) {
        for (atoms, _) in order {
            for &a in atoms {
                let i = a as usize;
                if self.places[i] != Place::Never {
                    continue;
                }
                if self.is(a, self.next_rel) {
                    if let Some(f) = self.g.input_of[i]
                        && let Place::State(bit) = self.places[f as usize]
                    {
                        self.places[i] = Place::Next(bit);
                    }
                } else if cones.moves[i] {
                    self.places[i] = Place::M(self.m_bits);
                    self.m_bits += 1;
                } else if cones.state[i] || cones.goal[i] {
                    self.places[i] = Place::D(self.d_bits);
                    self.d_bits += 1;
                }
            }
        }
    }
}

/// A literal of a placed atom: its array (`s` or `d`), polarity and bit.
type LiteralBit = (&'static str, bool, usize);

/// The offset of each of a role's moves from the first of its bits in `d`, given
/// what each move's legal atom reads (`None`: no single instance over placed atoms).
///
/// Moves are split into runs ([`legal_runs`]); a run's moves lie at the distances of
/// what they read, holes kept, as long as the role still fits the words its moves
/// take one bit each (the densest runs first: a pick reads every word of the role);
/// every other move takes the next bit.
fn legal_offsets(bodies: &[Option<Vec<LiteralBit>>]) -> Vec<usize> {
    let runs = legal_runs(bodies);
    let span = |run: &Vec<usize>| run.last().map_or(0, |&d| d + 1);
    let mut densest: Vec<usize> = (0..runs.len()).filter(|&i| runs[i].len() >= 2).collect();
    // By holes per move, fewest first (compared as fractions), then in move order.
    densest.sort_by(|&a, &b| {
        (span(&runs[a]) * runs[b].len())
            .cmp(&(span(&runs[b]) * runs[a].len()))
            .then(a.cmp(&b))
    });
    let budget = words(bodies.len()) * 64;
    let mut total = bodies.len();
    let mut mirrored = vec![false; runs.len()];
    for i in densest {
        let holes = span(&runs[i]) - runs[i].len();
        if total + holes <= budget {
            mirrored[i] = true;
            total += holes;
        }
    }
    let mut offsets = Vec::with_capacity(bodies.len());
    let mut next = 0;
    for (run, mirrored) in runs.iter().zip(mirrored) {
        if mirrored {
            offsets.extend(run.iter().map(|&d| next + d));
            next += span(run);
        } else {
            offsets.extend((0..run.len()).map(|k| next + k));
            next += run.len();
        }
    }
    offsets
}

/// Splits a role's moves (in move order, by what their legal atoms read) into runs:
/// each move after the first of a run reads what the one before reads, but for some
/// literals each one distance further on in the same array with the same polarity
/// (the literals both read are the run's common guard). Returns per run each move's
/// distance from the run's first.
fn legal_runs(bodies: &[Option<Vec<LiteralBit>>]) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        let step = match (i.checked_sub(1).and_then(|p| bodies[p].as_ref()), body) {
            (Some(before), Some(body)) => step_between(before, body),
            _ => None,
        };
        match (step, runs.last_mut()) {
            (Some(step), Some(run)) => {
                let last = *run.last().expect("a run has a move");
                run.push(last + step);
            }
            _ => runs.push(vec![0]),
        }
    }
    runs
}

/// The distance by which `after` reads what `before` reads one step further on: the
/// literals not in both, paired in order, each in the same array with the same
/// polarity and `after`'s at one positive distance from `before`'s.
fn step_between(before: &[LiteralBit], after: &[LiteralBit]) -> Option<usize> {
    let only = |x: &[LiteralBit], y: &[LiteralBit]| -> Vec<LiteralBit> {
        x.iter().filter(|l| !y.contains(l)).copied().collect()
    };
    let (was, is) = (only(before, after), only(after, before));
    if was.is_empty() || was.len() != is.len() {
        return None;
    }
    let mut step = None;
    for (w, i) in was.iter().zip(&is) {
        if (w.0, w.1) != (i.0, i.1) || i.2 <= w.2 || step.is_some_and(|s| s != i.2 - w.2) {
            return None;
        }
        step = Some(i.2 - w.2);
    }
    step
}

/// The bit of each fluent, in layout order, given each one's board (`None`: not on
/// one; consecutive fluents of one board share it): one after the other, but a board
/// of at most 64 fluents that would straddle two words starts the next word.
fn board_bits<B: PartialEq>(boards: &[Option<B>]) -> Vec<usize> {
    let mut bits = Vec::with_capacity(boards.len());
    let mut next = 0;
    let mut i = 0;
    while i < boards.len() {
        let size = match &boards[i] {
            Some(board) => boards[i..]
                .iter()
                .take_while(|b| b.as_ref() == Some(board))
                .count(),
            None => 1,
        };
        if size <= 64 && next % 64 + size > 64 {
            next = next.next_multiple_of(64);
        }
        bits.extend(next..next + size);
        next += size;
        i += size;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks on blank squares every third bit under one control fluent: one run,
    /// mirrored; a `noop` under the other control fluent starts its own.
    #[test]
    fn moves_reading_one_step_further_on_are_a_run_with_holes() {
        let mark = |square: usize| Some(vec![("s", true, 3 * square), ("s", true, 28)]);
        let mut bodies = vec![Some(vec![("s", true, 27)])];
        bodies.extend((0..9).map(mark));
        assert_eq!(
            legal_runs(&bodies),
            vec![vec![0], (0..9).map(|k| 3 * k).collect()]
        );
        assert_eq!(
            legal_offsets(&bodies),
            std::iter::once(0)
                .chain((0..9).map(|k| 1 + 3 * k))
                .collect::<Vec<_>>()
        );
        // A move reading nothing placed, or another array, polarity or distance,
        // ends a run.
        assert_eq!(step_between(&[("s", true, 3)], &[("s", false, 6)]), None);
        assert_eq!(step_between(&[("s", true, 3)], &[("d", true, 6)]), None);
        assert_eq!(
            step_between(
                &[("s", true, 3), ("s", true, 4)],
                &[("s", true, 5), ("s", true, 7)]
            ),
            None
        );
        assert_eq!(step_between(&[("s", true, 3)], &[("s", true, 3)]), None);
        assert_eq!(
            legal_runs(&[mark(0), None, mark(1)]),
            vec![vec![0], vec![0], vec![0]]
        );
    }

    /// Runs keep their holes only while the role fits the words of one bit a move:
    /// the densest first, a run too sparse for what is left bit after bit.
    #[test]
    fn holes_take_no_more_words_than_one_bit_a_move() {
        let far = |k: usize| Some(vec![("s", true, 100 * k)]);
        let bodies: Vec<_> = (0..3).map(far).collect();
        assert_eq!(legal_offsets(&bodies), vec![0, 1, 2]);
        let near: Vec<_> = (0..3).map(|k| Some(vec![("d", false, 6 * k)])).collect();
        assert_eq!(legal_offsets(&near), vec![0, 6, 12]);
        // 70 moves take two words (128 bits). A run of 10 drops every fifth bit (46
        // bits, 36 of them holes) fits beside 60 contiguous moves...
        let drops = (0..10).map(|k| Some(vec![("d", true, 5 * k)]));
        let mut dense: Vec<_> = (0..60).map(|k| Some(vec![("s", true, k)])).collect();
        dense.extend(drops.clone());
        let offsets = legal_offsets(&dense);
        assert_eq!(
            (offsets[59], offsets[60], offsets[61], offsets[69]),
            (59, 60, 65, 105)
        );
        // Beside 60 moves every second bit (119 bits, 59 holes: 129 bits in all, one
        // too many), those go bit by bit and the drops keep their holes.
        let mut sparse: Vec<_> = (0..60).map(|k| Some(vec![("s", true, 2 * k)])).collect();
        sparse.extend(drops);
        let offsets = legal_offsets(&sparse);
        assert_eq!(
            (offsets[1], offsets[59], offsets[60], offsets[69]),
            (1, 59, 60, 105)
        );
    }

    /// Boards of 42 cells: the second starts the next word rather than straddle.
    #[test]
    fn a_board_that_fits_a_word_starts_one_rather_than_straddle() {
        let mut boards: Vec<Option<u8>> = vec![Some(0); 42];
        boards.extend(vec![Some(1); 42]);
        boards.extend([None, None]);
        let bits = board_bits(&boards);
        assert_eq!(bits[41], 41);
        assert_eq!(bits[42], 64);
        assert_eq!(bits[83], 105);
        assert_eq!(&bits[84..], &[106, 107]);
        // A board larger than a word is not moved.
        let big = vec![Some(0u8); 100];
        assert_eq!(board_bits(&big), (0..100).collect::<Vec<_>>());
    }
}

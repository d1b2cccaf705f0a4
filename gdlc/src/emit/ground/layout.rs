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
        let mut placing = Placing::new(ir, g);
        let (fluents, init) = placing.fluents()?;
        let by_head = instances_by_head(g);
        let (moves, role_moves) = placing.moves(&by_head)?;
        // Evaluation order: strongly connected components of the ground dependencies.
        let order = g.evaluation_order(ir);
        let cones = placing.cones(&by_head);
        // Bits of `d`: legal moves per role in move order, terminal, goals, the rest.
        let legal_bits = placing.legal_moves(&role_moves);
        let terminal_bit = placing.terminal();
        let goals = placing.goals()?;
        // Percepts: bits of `m` first.
        let (percepts, sees) = placing.percepts()?;
        // Families: placed where their literals are, computed word-parallel.
        let families = families(
            g,
            &by_head,
            &mut placing.places,
            &mut placing.d_bits,
            &order,
            &[&cones.state, &cones.goal],
        );
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
            legal_bits,
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
            demand: Vec::new(),
        };
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
        let fluents = keyed;
        for (bit, &(_, _, a)) in fluents.iter().enumerate() {
            self.places[a as usize] = Place::State(bit);
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
        Ok((fluents.into_iter().map(|f| f.1).collect(), init))
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

    /// Places each role's legal moves as bits of `d` in move order (a bit for every
    /// move, legal or not): where each role's bits start.
    fn legal_moves(&mut self, role_moves: &[u32]) -> Vec<usize> {
        let mut legal_bits = Vec::with_capacity(self.ir.roles.len());
        let mut legal_of_move: BTreeMap<u32, AtomId> = BTreeMap::new();
        for a in self.of_rel(self.legal_rel) {
            if let Some(does) = self.g.input_of[a as usize]
                && let Place::Move(_, mv) = self.places[does as usize]
            {
                legal_of_move.insert(mv, a);
            }
        }
        for r in 0..self.ir.roles.len() {
            legal_bits.push(self.d_bits);
            for mv in role_moves[r]..role_moves[r + 1] {
                if let Some(&a) = legal_of_move.get(&mv) {
                    self.places[a as usize] = Place::D(self.d_bits);
                }
                self.d_bits += 1;
            }
        }
        legal_bits
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

//! Cost estimates and join order: how many tuples a lookup is expected to match and
//! scan, what a demand call is expected to cost, and the order of a rule body's
//! literals that these make cheapest (see [`Planner::cheapest_order`]).

use super::build::{Planner, Step, slots};
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Arg, FlatAtom, FlatLiteral, FlatRule, Keyword, NIL, Phase, RelationId, SymbolId};
use crate::plan::{Columns, MAX_GAP_COMBINATIONS};

/// The most positive literals of a rule body ordered by exhaustive search.
const MAX_EXACT_ORDER: usize = 12;

/// The most positive literals of a rule whose estimated work as a demand call
/// ([`Planner::call_work`]) comes from the exact order.
const MAX_EXACT_CALL_ORDER: usize = 6;

impl Planner<'_> {
    /// The estimated work of one call of demand relation `relation` with `columns`
    /// bound: one, plus the work of each of its rules in a cheap order with those head
    /// columns bound (which counts the calls they make in turn). A call met again
    /// while it is estimated (recursion through other layers) counts one. Rules of
    /// more than [`MAX_EXACT_CALL_ORDER`] positive literals are ordered greedily
    /// ([`Self::order_and_work`] with `exact` false): the exact search of a caller's
    /// order asks for the callee's work under many sets of bound columns, and an
    /// exact search under each, nested down a chain of calls, is exponential in the
    /// chain (ruledepthexponential's twenty `prereq` levels took 21 s to plan). Short
    /// rules keep the exact order: with every call estimated greedily, amazons'
    /// threshold plan took 32.4M nodes on its sample states against 1.25M.
    fn call_work(&self, relation: RelationId, columns: Columns) -> f64 {
        let key = (relation, columns);
        if let Some(&work) = self.call_works.borrow().get(&key) {
            return work;
        }
        if !self.estimating.borrow_mut().insert(key.clone()) {
            return 1.0;
        }
        let layer = self.ir.layer_of[relation.0 as usize];
        let mut work = 1.0;
        for &r in &self.ir.layers[layer].rules {
            if self.ir.rules[r].head.relation == relation {
                work += self
                    .order_and_work(r, &self.head_bound(r, &key.1), None, false)
                    .1;
            }
        }
        self.estimating.borrow_mut().remove(&key);
        self.call_works.borrow_mut().insert(key, work);
        work
    }

    /// The rows the body of rule `r` produces with the variables in `bound` bound.
    pub(super) fn body_rows(&self, r: usize, bound: &[bool]) -> f64 {
        OrderCosts::new(self, r, bound, None).rows()
    }

    /// Expected number of tuples matching a literal whose columns are known as given
    /// (`Some(Some(s))` a symbol, `Some(None)` a bound variable, `None` unknown).
    ///
    /// A recursive demand relation's estimate is at most the answers its rules give
    /// ([`Self::call_answers`]). (Only recursive ones: for the others the domain
    /// product is what the calls' work estimate was measured against, and the rules'
    /// answers moved the corpus both ways — alexchess 29 % more work, battle 82 % less.)
    pub(super) fn estimate(&self, relation: RelationId, known: &[Option<Option<SymbolId>>]) -> f64 {
        let layer = &self.ir.layers[self.ir.layer_of[relation.0 as usize]];
        if !self.is_demand(relation) || !layer.cyclic {
            return self.size_estimate(relation, known);
        }
        if known.iter().all(Option::is_none) && !known.is_empty() {
            // Never enumerate a demand relation whole while anything else can go first.
            return 1e30;
        }
        let columns: Columns = (0..known.len()).filter(|&c| known[c].is_some()).collect();
        let answers = self.call_answers(relation, columns).max(0.1);
        self.size_estimate(relation, known).min(answers)
    }

    /// [`Self::estimate`] from the relation's table or sampled size, else from the
    /// domains of its unknown columns.
    fn size_estimate(&self, relation: RelationId, known: &[Option<Option<SymbolId>>]) -> f64 {
        if self.ir.relation(relation).keyword == Some(Keyword::Does) {
            // One move per role: one tuple once the role is known.
            let role_known = self
                .ir
                .relation(relation)
                .column_of(&[0])
                .is_some_and(|c| known[c].is_some());
            return if role_known {
                1.0
            } else {
                self.ir.roles.len().max(1) as f64
            };
        }
        if let Some(stats) = &self.stats[relation.0 as usize] {
            if stats.len == 0 {
                return 0.0;
            }
            let mut estimate = stats.len as f64;
            for (c, k) in known.iter().enumerate() {
                if k.is_some() {
                    estimate /= stats.distinct[c].max(1) as f64;
                }
            }
            return estimate.max(0.5);
        }
        if let Some(Some(sampled)) = self.options.sampled.get(relation.0 as usize) {
            let mut estimate = sampled.rows.max(0.5);
            for (c, k) in known.iter().enumerate() {
                if k.is_some() {
                    estimate /= sampled.distinct[c].max(1.0);
                }
            }
            return estimate.max(0.1);
        }
        let columns = &self.ir.relation(relation).columns;
        let mut estimate = 1.0f64;
        for (c, column) in columns.iter().enumerate() {
            if known[c].is_some() {
                continue;
            }
            let parent_symbol = column.parent.and_then(|p| known[p].flatten());
            let own_functor = crate::ir::split_path(&column.path).map(|(_, f, _)| f);
            let size = match (parent_symbol, own_functor) {
                (Some(parent), Some(functor)) if parent != functor => 1,
                (Some(_), Some(_)) => column.domain.iter().filter(|&&s| s != NIL).count(),
                _ => column.domain.len(),
            };
            estimate *= size.max(1) as f64;
        }
        estimate
    }

    /// The tuple space of a relation (nothing known).
    pub(super) fn space(&self, relation: RelationId) -> f64 {
        let columns = &self.ir.relation(relation).columns;
        columns
            .iter()
            .map(|c| c.domain.len().max(1) as f64)
            .product()
    }

    /// The positive literals of rule `r` (indices into its body) in the order of least
    /// estimated work, with the variables in `bound` already bound. The work of an
    /// order is the sum over its literals of the rows reaching the literal times the
    /// literal's cost (its scan, see [`Self::scan_and_matches`]); tests run as soon
    /// as their variables are bound and halve the rows. Exact over subsets (dynamic
    /// programming) up to [`MAX_EXACT_ORDER`] literals, greedy beyond.
    ///
    /// A call back into the rule's own recursive demand layer costs its rows times the
    /// fan-out of the static tables before it (their matches multiplied, exact, up to
    /// a thousand): each row reaching it is a call with its own memo table, whose
    /// evaluation makes as many calls again one level down, so binding more of its
    /// columns by enumerating a static table first (othello's `(++ ?count ?count++)`
    /// before the recursive `piececount` call that would give the count) multiplies
    /// the tables at every level, while the domain-product estimate of its answers
    /// makes that look cheap. (Only static tables count: the estimates of derived
    /// relations are domain products, far too large to be squared.)
    ///
    /// A call of another layer's demand relation also costs, per row reaching it, the
    /// work of evaluating the call ([`Self::call_work`]): enumerating its answers with
    /// few columns bound once is cheaper than calling it bound per candidate of a
    /// table or of the state, though the estimated answers may tie.
    fn cheapest_order(&self, r: usize, bound: &[bool], skip: Option<usize>) -> Vec<usize> {
        self.order_and_work(r, bound, skip, true).0
    }

    /// [`Self::cheapest_order`] and its estimated work; with `exact` false, the greedy
    /// order (the cheapest next literal each time) past [`MAX_EXACT_CALL_ORDER`]
    /// literals.
    fn order_and_work(
        &self,
        r: usize,
        bound: &[bool],
        skip: Option<usize>,
        exact: bool,
    ) -> (Vec<usize>, f64) {
        let costs = OrderCosts::new(self, r, bound, skip);
        let n = costs.positives.len();
        if n == 0 {
            return (Vec::new(), 0.0);
        }
        if n > MAX_EXACT_ORDER || (!exact && n > MAX_EXACT_CALL_ORDER) {
            costs.greedy()
        } else {
            costs.exact()
        }
    }

    /// The estimated cost of one lookup (`.0`: tuples looked at) and its number of
    /// matches (`.1`), the columns known as in [`Self::estimate`]. The state is sparse:
    /// a `true` lookup expects the density of its functor's fluents (see
    /// [`Self::state_density`]), and scans the range its known leading columns fix
    /// (matching the rest per tuple), each fluent scanned costing twice a table row
    /// (the generated code decodes and compares it); lookups elsewhere go through an
    /// exact index.
    fn scan_and_matches(
        &self,
        relation: RelationId,
        known: &[Option<Option<SymbolId>>],
    ) -> (f64, f64) {
        let matches = self.estimate(relation, known);
        if self.ir.relation(relation).keyword != Some(Keyword::True) || known.is_empty() {
            return (matches, matches);
        }
        let density = self.state_density(known[0].flatten());
        let order = known[0]
            .flatten()
            .and_then(|functor| self.state_orders.get(&functor));
        let scanned = match order {
            // The functor's columns in the state's order: the range of the known
            // leading ones, or a bit test per combination of the few unknown
            // columns before the last known one (the code enumerates them).
            Some(order) => {
                let leading = order.iter().take_while(|&&c| known[c].is_some()).count();
                let last_known = order.iter().rposition(|&c| known[c].is_some());
                let mut prefix = known.to_vec();
                for &c in &order[leading..] {
                    prefix[c] = None;
                }
                let range = 2.0 * self.estimate(relation, &prefix) * density;
                let gap: f64 = last_known.map_or(1.0, |last| {
                    order
                        .get(leading..last)
                        .unwrap_or_default()
                        .iter()
                        .filter(|&&c| known[c].is_none())
                        .map(|&c| self.ir.relation(relation).columns[c].domain.len().max(1) as f64)
                        .product()
                });
                if gap > 1.0 && gap <= MAX_GAP_COMBINATIONS as f64 {
                    let mut through_last = known.to_vec();
                    if let Some(last) = last_known {
                        for &c in &order[last + 1..] {
                            through_last[c] = None;
                        }
                        for &c in &order[..last] {
                            through_last[c] = through_last[c].or(Some(None));
                        }
                    }
                    let per_combination = 2.0 * self.estimate(relation, &through_last) * density;
                    range.min(gap * per_combination.max(1.0))
                } else {
                    range
                }
            }
            None => {
                let leading = known.iter().take_while(|k| k.is_some()).count();
                let prefix: Vec<Option<Option<SymbolId>>> = known
                    .iter()
                    .enumerate()
                    .map(|(c, &k)| if c < leading { k } else { None })
                    .collect();
                2.0 * self.estimate(relation, &prefix) * density
            }
        };
        (
            (scanned).max(matches * density),
            (matches * density).max(1e-3),
        )
    }

    /// The fraction of possible fluents (of functor `functor`, or all) that hold: their
    /// mean number over the states of a sampling playout where measured (at least one
    /// per thousand); else initially, at least one in ten (games often start empty and
    /// fill up).
    fn state_density(&self, functor: Option<SymbolId>) -> f64 {
        if !self.options.state_counts.is_empty()
            && let Some(state) = self.ir.keyword(Keyword::True)
        {
            let columns = self.ir.relation(state).columns.len();
            let mut known = vec![None; columns];
            if let Some(f) = functor {
                known[0] = Some(Some(f));
            }
            let space = self.estimate(state, &known).max(1.0);
            let held: f64 = self
                .options
                .state_counts
                .iter()
                .filter(|(f, _)| functor.is_none_or(|g| *f == g))
                .map(|(_, count)| count)
                .sum();
            return (held / space).clamp(1e-3, 1.0);
        }
        let (Some(init), Some(state)) = (
            self.ir.keyword(Keyword::Init),
            self.ir.keyword(Keyword::True),
        ) else {
            return 0.25;
        };
        let Some(tuples) = &self.tables[init.0 as usize] else {
            return 0.25;
        };
        let columns = self.ir.relation(state).columns.len();
        let mut known = vec![None; columns];
        if let Some(f) = functor {
            known[0] = Some(Some(f));
        }
        let space = self.estimate(state, &known).max(1.0);
        let held = tuples
            .iter()
            .filter(|t| functor.is_none_or(|f| t.first() == Some(&f)))
            .count();
        (held as f64 / space).clamp(0.1, 1.0)
    }

    /// Orders the body of rule `r` (but literal `skip`, already placed) with the
    /// variables in `bound` already bound.
    pub(super) fn order(
        &self,
        r: usize,
        bound: &mut [bool],
        skip: Option<usize>,
    ) -> Result<Vec<Step>, Diagnostic> {
        let rule = &self.ir.rules[r];
        let mut chosen = self.cheapest_order(r, bound, skip).into_iter();
        let mut remaining: Vec<&FlatLiteral> = rule
            .body
            .iter()
            .enumerate()
            .filter(|&(i, _)| Some(i) != skip)
            .map(|(_, l)| l)
            .collect();
        let mut steps = Vec::with_capacity(remaining.len());
        let arg_ready = |a: &Arg, bound: &[bool]| match a {
            Arg::Var(v) => bound[v.0 as usize],
            Arg::Sym(_) => true,
        };
        loop {
            // Tests whose variables are bound, in written order.
            let mut i = 0;
            while i < remaining.len() {
                let step = match remaining[i] {
                    FlatLiteral::Pos(_) => None,
                    FlatLiteral::Neg(atom) => atom
                        .args
                        .iter()
                        .all(|a| arg_ready(a, bound))
                        .then(|| Step::Absent(atom.relation, slots(atom, &mut bound.to_vec()))),
                    FlatLiteral::Distinct(pairs) => pairs
                        .iter()
                        .all(|(a, b)| arg_ready(a, bound) && arg_ready(b, bound))
                        .then(|| Step::Distinct(pairs.clone())),
                    FlatLiteral::Equal(pairs) => pairs
                        .iter()
                        .all(|(a, b)| arg_ready(a, bound) && arg_ready(b, bound))
                        .then(|| Step::Equal(pairs.clone())),
                };
                match step {
                    Some(step) => {
                        steps.push(step);
                        remaining.remove(i);
                    }
                    None => i += 1,
                }
            }
            // The next positive literal of the cheapest order.
            let Some(next) = chosen.next() else { break };
            let Some(i) = remaining
                .iter()
                .position(|l| std::ptr::eq(*l, &rule.body[next]))
            else {
                break;
            };
            let FlatLiteral::Pos(atom) = remaining.remove(i) else {
                break;
            };
            steps.push(Step::Query(atom.relation, slots(atom, bound)));
        }
        if let Some(literal) = remaining.first() {
            let relation = match literal {
                FlatLiteral::Pos(a) | FlatLiteral::Neg(a) => self.ir.relation(a.relation).key(),
                _ => "distinct".to_owned(),
            };
            return Err(Diagnostic::error(
                Code::Unbounded,
                format!(
                    "the planner cannot order a literal of `{relation}`: a variable is never bound"
                ),
            )
            .at(rule.span, "in this rule"));
        }
        Ok(steps)
    }
}

/// The positive literals of one rule's body being ordered and what placing each
/// costs (see [`Planner::cheapest_order`]); literal `i` here is the `i`th of
/// `positives`, and sets of them are bit masks.
struct OrderCosts<'p, 'a> {
    planner: &'p Planner<'a>,
    rule: &'a FlatRule,
    /// The layer of the rule's head.
    head_layer: usize,
    /// The positive literals (indices into the body), but the one skipped.
    positives: Vec<usize>,
    /// The variables of each test (negation, `distinct`, equality).
    tests: Vec<Vec<usize>>,
    /// The variables bound before the body.
    bound: &'p [bool],
}

impl<'p, 'a> OrderCosts<'p, 'a> {
    /// The costs of ordering rule `r`'s body (but literal `skip`) with `bound` bound.
    fn new(planner: &'p Planner<'a>, r: usize, bound: &'p [bool], skip: Option<usize>) -> Self {
        let ir = planner.ir;
        let rule = &ir.rules[r];
        let positives: Vec<usize> = (0..rule.body.len())
            .filter(|&i| matches!(rule.body[i], FlatLiteral::Pos(_)) && Some(i) != skip)
            .collect();
        let tests: Vec<Vec<usize>> = rule
            .body
            .iter()
            .filter_map(|l| match l {
                FlatLiteral::Pos(_) => None,
                FlatLiteral::Neg(atom) => Some(variables(&atom.args)),
                FlatLiteral::Distinct(pairs) | FlatLiteral::Equal(pairs) => Some(
                    pairs
                        .iter()
                        .flat_map(|(a, b)| variables(&[*a, *b]))
                        .collect(),
                ),
            })
            .collect();
        OrderCosts {
            planner,
            rule,
            head_layer: ir.layer_of[rule.head.relation.0 as usize],
            positives,
            tests,
            bound,
        }
    }

    /// Positive literal `i`.
    fn atom(&self, i: usize) -> &'a FlatAtom {
        match &self.rule.body[self.positives[i]] {
            FlatLiteral::Pos(atom) => atom,
            _ => unreachable!("positive literals only"),
        }
    }

    /// Whether a relation is of the rule's own recursive demand layer.
    fn recursive_demand(&self, relation: RelationId) -> bool {
        let ir = self.planner.ir;
        ir.layers[self.head_layer].cyclic
            && ir.layer_of[relation.0 as usize] == self.head_layer
            && self.planner.is_demand(relation)
    }

    /// The variables bound once the literals of `mask` are placed.
    fn bound_after(&self, mask: usize) -> Vec<bool> {
        let mut b = self.bound.to_vec();
        for i in (0..self.positives.len()).filter(|i| mask & (1 << i) != 0) {
            for v in variables(&self.atom(i).args) {
                b[v] = true;
            }
        }
        b
    }

    /// How many tests can run with `b` bound.
    fn ready_tests(&self, b: &[bool]) -> usize {
        self.tests
            .iter()
            .filter(|t| t.iter().all(|&v| b[v]))
            .count()
    }

    /// Whether a recursive call reads the caller's own memo table: the head's
    /// relation, called with the head's bound columns and their variables (a
    /// left-linear rule extending its own answers). Any other recursive call opens a
    /// table per key and is charged its work like a call of another layer: else "test
    /// each candidate by a fully bound recursive call" ties with "extend the own
    /// answers", and written order chose.
    fn own_table(&self, a: &FlatAtom, known: &[Option<Option<SymbolId>>]) -> bool {
        let head = &self.rule.head;
        a.relation == head.relation
            && (0..a.args.len()).all(|c| match head.args[c] {
                Arg::Var(v) if self.bound[v.0 as usize] => a.args[c] == Arg::Var(v),
                Arg::Var(_) => known[c].is_none(),
                Arg::Sym(_) => true,
            })
    }

    /// Rows, work and static fan-out after placing literal `i` with `b` bound,
    /// `rows` rows and fan-out `fan`.
    fn step(&self, i: usize, b: &[bool], rows: f64, fan: f64) -> (f64, f64, f64) {
        let planner = self.planner;
        let a = self.atom(i);
        let known = self.known(i, b);
        let (scan, matches) = planner.scan_and_matches(a.relation, &known);
        let rows_after = self.rows_after(i, b, rows, matches);
        let penalty = if self.recursive_demand(a.relation) {
            fan
        } else {
            1.0
        };
        let call = if planner.is_demand(a.relation)
            && (!self.recursive_demand(a.relation) || !self.own_table(a, &known))
            && planner.ir.layers[planner.ir.layer_of[a.relation.0 as usize]].phase != Phase::Static
        {
            let columns: Columns = (0..known.len()).filter(|&c| known[c].is_some()).collect();
            planner.call_work(a.relation, columns)
        } else {
            0.0
        };
        let fan_after = if planner.stats[a.relation.0 as usize].is_some() {
            (fan * matches).clamp(1.0, 1e3)
        } else {
            fan
        };
        (
            rows_after,
            rows * (penalty * (1.0 + scan) + call),
            fan_after,
        )
    }

    /// What is known of literal `i`'s columns with `b` bound (as in
    /// [`Planner::estimate`]).
    fn known(&self, i: usize, b: &[bool]) -> Vec<Option<Option<SymbolId>>> {
        self.atom(i)
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Sym(s) => Some(Some(*s)),
                Arg::Var(v) if b[v.0 as usize] => Some(None),
                Arg::Var(_) => None,
            })
            .collect()
    }

    /// The rows after placing literal `i`, matching `matches` tuples, on `rows` rows
    /// with `b` bound: each test it makes ready halves them.
    fn rows_after(&self, i: usize, b: &[bool], rows: f64, matches: f64) -> f64 {
        let mut after = b.to_vec();
        for v in variables(&self.atom(i).args) {
            after[v] = true;
        }
        let newly = self.ready_tests(&after) - self.ready_tests(b);
        rows * matches * 0.5f64.powi(newly as i32)
    }

    /// The rows the body produces, its literals placed greedily by fewest rows after
    /// each (the work of the lookups does not matter to how many answers there are).
    fn rows(&self) -> f64 {
        let n = self.positives.len();
        let mut mask = 0usize;
        let mut rows = 0.5f64.powi(self.ready_tests(self.bound) as i32);
        for _ in 0..n {
            let b = self.bound_after(mask);
            let (i, after) = (0..n)
                .filter(|i| mask & (1 << i) == 0)
                .map(|i| {
                    let matches = self
                        .planner
                        .estimate(self.atom(i).relation, &self.known(i, &b));
                    (i, self.rows_after(i, &b, rows, matches))
                })
                .fold((usize::MAX, f64::INFINITY), |best, (i, after)| {
                    if best.0 == usize::MAX || after < best.1 {
                        (i, after)
                    } else {
                        best
                    }
                });
            mask |= 1 << i;
            rows = after;
        }
        rows
    }

    /// The greedy order (the cheapest next literal each time, its work plus the rows
    /// after it) and its work.
    fn greedy(&self) -> (Vec<usize>, f64) {
        let n = self.positives.len();
        let mut order = Vec::with_capacity(n);
        let mut mask = 0usize;
        let mut rows = 1.0;
        let mut fan = 1.0;
        let mut total = 0.0;
        while order.len() < n {
            let b = self.bound_after(mask);
            let mut best: Option<(usize, f64, f64, f64, f64)> = None;
            for i in (0..n).filter(|i| mask & (1 << i) == 0) {
                let (rows_after, work, fan_after) = self.step(i, &b, rows, fan);
                if best.is_none_or(|(_, w, _, _, _)| work + rows_after < w) {
                    best = Some((i, work + rows_after, rows_after, fan_after, work));
                }
            }
            let (i, _, rows_after, fan_after, work) = best.expect("a literal is left");
            total += work;
            order.push(self.positives[i]);
            mask |= 1 << i;
            rows = rows_after;
            fan = fan_after;
        }
        (order, total)
    }

    /// The order of least work over all subsets (dynamic programming) and its work.
    fn exact(&self) -> (Vec<usize>, f64) {
        let n = self.positives.len();
        // best[mask]: (work, rows, static fan-out, last literal) of the cheapest order
        // of `mask`.
        let full = (1usize << n) - 1;
        let mut best: Vec<Option<(f64, f64, f64, usize)>> = vec![None; full + 1];
        let initial_tests = self.ready_tests(self.bound);
        best[0] = Some((
            0.0,
            0.5f64.powi(initial_tests as i32).max(1e-9),
            1.0,
            usize::MAX,
        ));
        for mask in 0..full {
            let Some((work, rows, fan, _)) = best[mask] else {
                continue;
            };
            let b = self.bound_after(mask);
            for i in (0..n).filter(|i| mask & (1 << i) == 0) {
                let (rows_after, step_work, fan_after) = self.step(i, &b, rows, fan);
                let total = work + step_work;
                let next = mask | (1 << i);
                if best[next].is_none_or(|(w, _, _, _)| total < w) {
                    best[next] = Some((total, rows_after, fan_after, i));
                }
            }
        }
        let work = best[full].map_or(0.0, |(work, _, _, _)| work);
        let mut order = Vec::with_capacity(n);
        let mut mask = full;
        while mask != 0 {
            let (_, _, _, i) = best[mask].expect("every subset is reached");
            order.push(self.positives[i]);
            mask &= !(1 << i);
        }
        order.reverse();
        (order, work)
    }
}

/// The variables among `args`.
fn variables(args: &[Arg]) -> Vec<usize> {
    args.iter()
        .filter_map(|a| match a {
            Arg::Var(v) => Some(v.0 as usize),
            Arg::Sym(_) => None,
        })
        .collect()
}

//! Formula encodings (the paper's Table 2): a formula of the property language as ASP
//! rules over auxiliary predicates `_f<k>` of its free variables — quantifiers grounded
//! by clingo through guards on their domains, counting quantifiers as `#count`
//! aggregates, conjunctions inlined where a literal can stand for them — each formula's
//! name atom shown (`#show`) for cautious reasoning.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// A conjunction of body literals encoding a subformula.
struct Conj {
    lits: Vec<String>,
    /// Variables bound by positive literals (quantified ones included).
    bound: BTreeSet<String>,
    /// Variables introduced inside (by inlined existentials).
    local: BTreeSet<String>,
    /// Whether the conjunction is one literal that may be negated with `not`.
    negatable: bool,
    /// Whether a literal is an aggregate (which cannot nest in another aggregate).
    aggregate: bool,
    /// Variables that a positive literal binds to a column of the analysis, with that
    /// column: the column's domain guard adds nothing for them.
    implied: BTreeSet<(String, DomainColumn)>,
}

impl Conj {
    /// A conjunction of `lits` that binds, implies and introduces nothing.
    fn plain(lits: Vec<String>, negatable: bool, aggregate: bool) -> Self {
        Conj {
            lits,
            bound: BTreeSet::new(),
            local: BTreeSet::new(),
            negatable,
            aggregate,
            implied: BTreeSet::new(),
        }
    }
}

/// A column of a relation of the analysis (a domain predicate `_dom_<relation>_<column>`).
type DomainColumn = (RelationId, usize);

/// A quantified variable in scope: GDL name, ASP name, domain predicate.
struct ScopeVar {
    gdl: String,
    guard: Guard,
}

/// A quantified variable (ASP name) and its domain.
#[derive(Clone)]
struct Guard {
    asp: String,
    /// The domain predicate.
    domain: String,
    /// The analysis column the domain predicate stands for, if it is one; the predicate
    /// is registered (and so emitted) only when a guard literal uses it.
    column: Option<DomainColumn>,
}

/// Writes the rules of one program's formulas: auxiliary predicates named from `prefix`,
/// the needs and domain predicates they use recorded on the way, the text in `out`.
pub(super) struct Encoder<'g, 'n> {
    game: &'g AspGame<'g>,
    prefix: String,
    aux: usize,
    pub(super) out: String,
    needs: &'n mut Needs,
    domains: &'n mut Domains,
    scope: Vec<ScopeVar>,
    /// How often each ASP variable name was bound so far (for fresh names).
    names: BTreeMap<String, usize>,
    /// The formula whose auxiliary predicate is the name atom itself (compared by
    /// address only, never dereferenced).
    top: Option<*const Formula>,
}

impl<'g, 'n> Encoder<'g, 'n> {
    pub(super) fn new(
        game: &'g AspGame<'g>,
        prefix: &str,
        needs: &'n mut Needs,
        domains: &'n mut Domains,
    ) -> Self {
        Encoder {
            game,
            prefix: prefix.to_owned(),
            aux: 0,
            out: String::new(),
            needs,
            domains,
            scope: Vec::new(),
            names: BTreeMap::new(),
            top: None,
        }
    }

    /// Encodes `formula` as the rules of the name atom `prefix`. A disjunction (or
    /// `○`) at the top defines the name directly instead of through an auxiliary.
    pub(super) fn root(&mut self, formula: &Formula, level: usize) {
        let top = match formula {
            Formula::Implies(a, b) => Formula::Or(vec![(**a).clone().negate(), (**b).clone()]),
            other => other.clone(),
        };
        self.top = Some(&top as *const Formula);
        let conj = self.encode(&top, level);
        self.top = None;
        let name = self.prefix.clone();
        if conj.lits != [name.clone()] {
            self.rule(&name, &conj.lits);
        }
    }

    fn rule(&mut self, head: &str, body: &[String]) {
        if body.is_empty() {
            let _ = writeln!(self.out, "{head}.");
        } else {
            let _ = writeln!(self.out, "{head} :- {}.", body.join(", "));
        }
    }

    fn fresh_aux(&mut self) -> String {
        self.aux += 1;
        format!("{}_{}", self.prefix, self.aux)
    }

    fn lookup(&self, gdl: &str) -> Option<&Guard> {
        self.scope
            .iter()
            .rev()
            .find(|v| v.gdl == gdl)
            .map(|v| &v.guard)
    }

    /// The literal restricting a variable to its domain (registering the domain).
    fn guard_literal(&mut self, guard: &Guard) -> String {
        if let Some((relation, column)) = guard.column {
            self.domains.column(self.game.ir, relation, column);
        }
        format!("{}({})", guard.domain, guard.asp)
    }

    /// The free quantified variables of `formula` (ASP names, in scope order) with
    /// their domain predicates.
    fn free_vars(&self, formula: &Formula) -> Vec<Guard> {
        let mut names: BTreeSet<String> = BTreeSet::new();
        collect_free(formula, &mut Vec::new(), &mut names);
        let mut out: Vec<(usize, Guard)> = Vec::new();
        for name in names {
            if let Some(pos) = self.scope.iter().rposition(|v| v.gdl == name) {
                out.push((pos, self.scope[pos].guard.clone()));
            }
        }
        out.sort_by_key(|(pos, _)| *pos);
        out.into_iter().map(|(_, guard)| guard).collect()
    }

    /// Defines an auxiliary predicate over the free variables of `formula` by one rule
    /// per conjunction; returns its atom.
    fn define(&mut self, formula: &Formula, bodies: Vec<Conj>) -> Conj {
        let free = self.free_vars(formula);
        let name = if self.top.is_some_and(|top| std::ptr::eq(top, formula)) {
            self.prefix.clone()
        } else {
            self.fresh_aux()
        };
        let args: Vec<String> = free.iter().map(|g| g.asp.clone()).collect();
        let head = atom_text(&name, &args);
        if bodies.is_empty() {
            self.rule(&head, &["#false".to_owned()]);
        }
        for conj in bodies {
            let mut lits = conj.lits;
            for guard in &free {
                if !conj.bound.contains(&guard.asp) {
                    lits.push(self.guard_literal(guard));
                }
            }
            self.rule(&head, &lits);
        }
        Conj {
            bound: args.into_iter().collect(),
            ..Conj::plain(vec![head], true, false)
        }
    }

    /// Brings the variables of `bindings` into scope; returns their guards.
    fn bind(&mut self, bindings: &[formula::Binding]) -> Vec<Guard> {
        let mut added = Vec::new();
        for binding in bindings {
            let (domain, column) = self.domain(&binding.domain);
            for var in &binding.vars {
                let base = variable(var);
                let count = self.names.entry(base.clone()).or_insert(0);
                *count += 1;
                let asp = if *count == 1 {
                    base
                } else {
                    format!("{base}''{count}")
                };
                let guard = Guard {
                    asp,
                    domain: domain.clone(),
                    column,
                };
                self.scope.push(ScopeVar {
                    gdl: var.clone(),
                    guard: guard.clone(),
                });
                added.push(guard);
            }
        }
        added
    }

    /// The domain predicate of a binding, and the analysis column it stands for.
    fn domain(&mut self, domain: &Domain) -> (String, Option<DomainColumn>) {
        match domain {
            Domain::Set(terms) => {
                let texts = terms.iter().map(|t| self.term(t)).collect();
                (self.domains.set(texts), None)
            }
            Domain::Column {
                relation, column, ..
            } => (
                column_predicate(self.game.ir, *relation, *column),
                Some((*relation, *column)),
            ),
        }
    }

    /// The analysis columns at which quantified variables occur in `args` of
    /// `relation` (each variable with the column of each of its occurrences).
    fn implied(&self, relation: RelationId, args: &[FTerm]) -> BTreeSet<(String, DomainColumn)> {
        let mut out = BTreeSet::new();
        let mut work: Vec<(Vec<u32>, &FTerm)> = args
            .iter()
            .enumerate()
            .map(|(i, a)| (vec![i as u32], a))
            .collect();
        while let Some((path, term)) = work.pop() {
            match term {
                FTerm::Var(name) => {
                    if let (Some(guard), Some(column)) = (
                        self.lookup(name),
                        self.game.ir.relation(relation).column_of(&path),
                    ) {
                        out.insert((guard.asp.clone(), (relation, column)));
                    }
                }
                FTerm::Const(_) => {}
                FTerm::Func(name, inner) => {
                    if let Some(symbol) = self.game.ir.symbols.get(name, inner.len()) {
                        for (j, a) in inner.iter().enumerate() {
                            work.push((child_path(&path, symbol, j), a));
                        }
                    }
                }
            }
        }
        out
    }

    fn term(&self, term: &FTerm) -> String {
        match term {
            FTerm::Var(name) => self
                .lookup(name)
                .map_or_else(|| variable(name), |v| v.asp.clone()),
            FTerm::Const(name) => constant(name),
            FTerm::Func(name, args) => {
                let args: Vec<String> = args.iter().map(|a| self.term(a)).collect();
                format!("{}({})", identifier(name), args.join(", "))
            }
        }
    }

    fn encode(&mut self, formula: &Formula, level: usize) -> Conj {
        match formula {
            Formula::Atom(atom) => self.encode_atom(atom, level),
            Formula::Not(inner) => self.encode_not(inner, level),
            Formula::And(parts) => self.encode_and(parts, level),
            Formula::Or(parts) => {
                let bodies = parts.iter().map(|p| self.encode(p, level)).collect();
                self.define(formula, bodies)
            }
            Formula::Implies(a, b) => {
                let rewritten = Formula::Or(vec![(**a).clone().negate(), (**b).clone()]);
                self.encode(&rewritten, level)
            }
            Formula::Next(inner) => {
                self.game.need(self.needs, &key("terminal", 0), level);
                let terminal = Conj::plain(
                    vec![
                        self.game
                            .named_atom("terminal", Vec::new(), &level.to_string()),
                    ],
                    true,
                    false,
                );
                let later = self.encode(inner, level + 1);
                self.define(formula, vec![terminal, later])
            }
            Formula::Exists(bindings, body) => self.encode_exists(bindings, body, level),
            Formula::Forall(bindings, body) => {
                let rewritten =
                    Formula::Exists(bindings.clone(), Box::new((**body).clone().negate())).negate();
                self.encode(&rewritten, level)
            }
            Formula::Count {
                low,
                high,
                bindings,
                body,
            } => self.encode_count(*low, *high, bindings, body, level),
        }
    }

    /// An atom of the game at `level`, with the variables it binds and the columns
    /// it binds them at.
    fn encode_atom(&mut self, atom: &formula::Atom, level: usize) -> Conj {
        let relation = key(&atom.relation, atom.args.len());
        self.game.need(self.needs, &relation, level);
        let mut args: Vec<String> = atom.args.iter().map(|t| self.term(t)).collect();
        let mut bound = BTreeSet::new();
        for arg in &atom.args {
            arg.for_each_var(&mut |v| {
                if let Some(s) = self.lookup(v) {
                    bound.insert(s.asp.clone());
                }
            });
        }
        let implied = match self.game.relation_id(&relation) {
            Some(id) => self.implied(id, &atom.args),
            None => BTreeSet::new(),
        };
        if self.game.timed(&relation) {
            args.push(level.to_string());
        }
        Conj {
            bound,
            implied,
            ..Conj::plain(
                vec![atom_text(&identifier(&atom.relation), &args)],
                true,
                false,
            )
        }
    }

    /// The negation of `inner`: of its one literal, or of its definition.
    fn encode_not(&mut self, inner: &Formula, level: usize) -> Conj {
        if let Formula::Not(twice) = inner {
            return self.encode(twice, level);
        }
        let conj = self.encode(inner, level);
        let aggregate = conj.aggregate && conj.lits.len() == 1;
        let literal = if conj.lits.len() == 1 && conj.negatable && conj.local.is_empty() {
            conj.lits.into_iter().next().unwrap_or_default()
        } else {
            let defined = self.define(inner, vec![conj]);
            defined.lits.into_iter().next().unwrap_or_default()
        };
        Conj::plain(vec![format!("not {literal}")], false, aggregate)
    }

    /// A conjunction, inlined: its parts' literals together.
    fn encode_and(&mut self, parts: &[Formula], level: usize) -> Conj {
        let mut all = Conj::plain(Vec::new(), false, false);
        for part in parts {
            let conj = self.encode(part, level);
            if parts.len() == 1 {
                return conj;
            }
            all.lits.extend(conj.lits);
            all.bound.extend(conj.bound);
            all.local.extend(conj.local);
            all.implied.extend(conj.implied);
            all.aggregate |= conj.aggregate;
        }
        all
    }

    /// An existential, inlined: the body with a domain guard for each bound variable
    /// it does not bind at its domain's column.
    fn encode_exists(
        &mut self,
        bindings: &[formula::Binding],
        body: &Formula,
        level: usize,
    ) -> Conj {
        let depth = self.scope.len();
        let added = self.bind(bindings);
        let mut conj = self.encode(body, level);
        self.scope.truncate(depth);
        for guard in added {
            if !self.implies(&conj, &guard) {
                let literal = self.guard_literal(&guard);
                conj.lits.push(literal);
            }
            conj.bound.insert(guard.asp.clone());
            conj.local.insert(guard.asp);
        }
        conj.negatable = conj.lits.len() == 1 && conj.negatable;
        conj
    }

    /// A counting quantifier as a `#count` aggregate over the bound variables.
    fn encode_count(
        &mut self,
        low: u32,
        high: Option<u32>,
        bindings: &[formula::Binding],
        body: &Formula,
        level: usize,
    ) -> Conj {
        let depth = self.scope.len();
        let added = self.bind(bindings);
        let mut conj = self.encode(body, level);
        if conj.aggregate {
            // Aggregates do not nest: name the body first.
            conj = self.define(body, vec![conj]);
        }
        self.scope.truncate(depth);
        let mut tuple = Vec::new();
        for guard in added {
            if !self.implies(&conj, &guard) {
                let literal = self.guard_literal(&guard);
                conj.lits.push(literal);
            }
            tuple.push(guard.asp);
        }
        let mut text = String::new();
        if low > 0 {
            let _ = write!(text, "{low} <= ");
        }
        let _ = write!(
            text,
            "#count {{ {} : {} }}",
            tuple.join(", "),
            conj.lits.join(", ")
        );
        if let Some(high) = high {
            let _ = write!(text, " <= {high}");
        }
        Conj::plain(vec![text], true, true)
    }

    /// Whether a positive literal of `conj` binds the variable of `guard` to the very
    /// column its domain stands for, so that the guard adds nothing: every value a
    /// relation takes in the program is in its columns' domains (the analysis domains
    /// are supersets, the state generator draws from them, and moves are legal).
    fn implies(&self, conj: &Conj, guard: &Guard) -> bool {
        guard
            .column
            .is_some_and(|column| conj.implied.contains(&(guard.asp.clone(), column)))
    }
}

/// Collects the variables of `formula` not bound inside it.
fn collect_free(formula: &Formula, bound: &mut Vec<String>, out: &mut BTreeSet<String>) {
    match formula {
        Formula::Atom(atom) => {
            for arg in &atom.args {
                arg.for_each_var(&mut |v| {
                    if !bound.iter().any(|b| b == v) {
                        out.insert(v.to_owned());
                    }
                });
            }
        }
        Formula::Not(f) | Formula::Next(f) => collect_free(f, bound, out),
        Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|f| collect_free(f, bound, out)),
        Formula::Implies(a, b) => {
            collect_free(a, bound, out);
            collect_free(b, bound, out);
        }
        Formula::Exists(bindings, body)
        | Formula::Forall(bindings, body)
        | Formula::Count { bindings, body, .. } => {
            let depth = bound.len();
            bound.extend(bindings.iter().flat_map(|b| b.vars.iter().cloned()));
            collect_free(body, bound, out);
            bound.truncate(depth);
        }
    }
}

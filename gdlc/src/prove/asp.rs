//! Temporal answer set programs for proving state sequence invariants (Haufe, Schiffel,
//! Thielscher, sections 4–6), as text for clingo.
//!
//! A program has these parts, in this order:
//!
//! - **time**: `_time(0..N).` for the horizon `N`;
//! - **the game over time** (the paper's G≤N, Definition 10): every rule of the game,
//!   with a last argument `T` on relations that depend on `true` or `does` and none on
//!   static ones; `(next f)` becomes `true(f, T+1)`. Only the rules some consumer needs
//!   are emitted, and only up to the last time step it needs them (section 6.2,
//!   *removing unnecessary rules*): `next` up to `N-1`, `legal` and `terminal` up to
//!   `N-1` for the action generator, and whatever the formulas mention at the levels
//!   they mention it;
//! - **the first state**: the initial state (`true(F, 0) :- init(F).`, base case) or the
//!   state generator `{ true(F, 0) : _dom_true_0(F) }.` over the fluent domain of the
//!   analysis (induction step, Definition 15);
//! - **the action generator** (section 4.3.1 with Definition 23): exactly one
//!   `does(r, M, T)` per role and non-terminated step, candidates from the *static
//!   relaxation* of `legal` (state-dependent literals replaced by their domains or
//!   dropped when negated), each checked against `legal`;
//! - **domains**: the domain encoding of Definition 22, one predicate per column of a
//!   relation (`_dom_true_3(1; 2; 3).`, `_dom_true_0(cell(A, B, C)) :- …`), and explicit
//!   sets of formulas (`_set1(…)`);
//! - **formulas** (Table 2, `asp/encode.rs`): each formula φ gets a name atom, true in an answer set iff
//!   φ holds on the state sequence it represents. Subformulas get auxiliary predicates
//!   whose arguments are their free quantified variables, so quantifiers are grounded
//!   by clingo rather than here; atoms, conjunctions and existentials are inlined into
//!   their parent rule (section 6.2, *cutting indirections*), counting quantifiers
//!   become `#count` aggregates (weight atoms). A quantified variable that a positive
//!   atom binds at the very column its domain stands for gets no domain guard (every
//!   value of a column is in its domain): playability over checkers' moves would
//!   otherwise ground the whole move domain, tens of millions of terms. Base case: the
//!   name of φ (`_f<k>`); induction step: the name of `φ ⊃ ○φ` (`_s<k>`); proven
//!   invariants Ψ (`_a<k>`) are added as constraints `:- not _a<k>.`;
//! - `#show` of the name atoms, so that `clingo FILE --enum-mode=cautious` prints the
//!   names that hold in every answer set.
//!
//! Game rules are also rewritten by the paper's *removing existential variables*
//! (section 6.2): a body variable that is not in the head and links only some literals
//! is projected away through an auxiliary predicate `_e<k>`. Before that, relations are
//! unfolded into the state-dependent rules that use them where it lets the projection
//! work or specialises a rule to constants (`asp/unfold.rs`: quarto's `line` through
//! the static `set/4`, chinesecheckers6's `goal` through `count`).
//!
//! Names: GDL symbols become ASP constants (`cell`, `p0000`), canonical integers stay
//! integers (`100`), anything else is escaped injectively (`white-pawn` →
//! `x'white'2Dpawn`, `0100` → `x'0100`); GDL variables become capitalised ASP variables
//! (`?piece` → `Piece`). Every name this module adds starts with `_`, which no escaped
//! GDL name does, so nothing can clash.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::ir::{Ir, NIL, RelationId, child_path};
use crate::normalize::deps::{DependencyGraph, RelationKey, key_of};
use crate::normalize::{Literal, Rule};
use crate::prove::formula::{self, Domain, Formula, Term as FTerm, find_relation, is_timed};
use crate::syntax::ast;

mod encode;
mod unfold;

use encode::Encoder;

/// The time variable of the temporal program (no GDL variable maps to it).
const TIME: &str = "T'";

// ---------------------------------------------------------------------------------------
// Names

/// Whether `name` can be written as an ASP identifier unchanged.
fn plain(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name != "not"
}

/// Writes the characters of `name`, escaping every byte outside `[a-z0-9_]` as `'HH`.
fn escape_into(out: &mut String, name: &str) {
    for byte in name.bytes() {
        if byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_' {
            out.push(byte as char);
        } else {
            let _ = write!(out, "'{byte:02X}");
        }
    }
}

/// The ASP identifier of a GDL name (relation or function symbol).
pub fn identifier(name: &str) -> String {
    if plain(name) {
        return name.to_owned();
    }
    let mut out = String::from("x'");
    escape_into(&mut out, name);
    out
}

/// The ASP term of a GDL constant: canonical integers stay integers.
pub fn constant(name: &str) -> String {
    let canonical_int = name == "0"
        || (name.len() <= 9
            && name.starts_with(|c: char| ('1'..='9').contains(&c))
            && name.bytes().all(|b| b.is_ascii_digit()));
    if canonical_int {
        name.to_owned()
    } else {
        identifier(name)
    }
}

/// The ASP variable of a GDL variable (name without `?`).
pub fn variable(name: &str) -> String {
    if plain(name) || name == "not" {
        let mut chars = name.chars();
        let first = chars.next().map(|c| c.to_ascii_uppercase());
        return first.into_iter().chain(chars).collect();
    }
    let mut out = String::from("V'");
    escape_into(&mut out, name);
    out
}

/// The ASP text of a GDL term.
fn ast_term(term: &ast::Term) -> String {
    match term {
        ast::Term::Var(name) => variable(&name.text),
        ast::Term::Const(name) => constant(&name.text),
        ast::Term::Func { name, args, .. } => {
            let args: Vec<String> = args.iter().map(ast_term).collect();
            format!("{}({})", identifier(&name.text), args.join(", "))
        }
    }
}

/// An atom's text from its predicate and argument texts.
fn atom_text(predicate: &str, args: &[String]) -> String {
    if args.is_empty() {
        predicate.to_owned()
    } else {
        format!("{predicate}({})", args.join(", "))
    }
}

// ---------------------------------------------------------------------------------------
// Requests

/// Where the state sequences of a program start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// In the initial state: the base case.
    Initial,
    /// In any state of the fluent domain: the induction step.
    Generated,
}

/// What one program is for.
#[derive(Clone, Debug)]
pub struct Request<'f> {
    /// A one-line description for the header comment.
    pub title: String,
    /// Base case or induction step.
    pub start: Start,
    /// The last time step `N` (sequences of up to `N` joint moves).
    pub horizon: usize,
    /// The formulas to decide: their name atoms are shown. Base case: `φ`; induction
    /// step: `φ ⊃ ○φ`.
    pub targets: Vec<&'f Formula>,
    /// Invariants already proven: every answer set must satisfy them (at time 0).
    pub assumptions: Vec<&'f Formula>,
}

/// An emitted program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The ASP text.
    pub text: String,
    /// The name atom of each target, in order.
    pub shown: Vec<String>,
}

// ---------------------------------------------------------------------------------------
// The game

/// A game prepared for ASP emission: its normalised rules, IR and dependency graph.
pub struct AspGame<'a> {
    ir: &'a Ir,
    rules: &'a [Rule],
    /// The rules with relations unfolded into the state-dependent rules that use them
    /// (module `unfold`): what the game over time is emitted from. The static
    /// relaxation of `legal` reads the rules as written.
    unfolded: Vec<Rule>,
    graph: DependencyGraph,
    source: String,
}

/// Time steps up to which each state-dependent relation is needed, and the static
/// relations that are needed.
#[derive(Default)]
struct Needs {
    timed: BTreeMap<RelationKey, usize>,
    fixed: BTreeSet<RelationKey>,
}

impl Needs {
    /// Records that `key` is needed at time `level`; true if that is new.
    fn add(&mut self, timed: bool, key: &RelationKey, level: usize) -> bool {
        if timed {
            match self.timed.get_mut(key) {
                None => {
                    self.timed.insert(key.clone(), level);
                    true
                }
                Some(slot) if *slot < level => {
                    *slot = level;
                    true
                }
                Some(_) => false,
            }
        } else {
            self.fixed.insert(key.clone())
        }
    }
}

fn key(name: &str, arity: usize) -> RelationKey {
    RelationKey {
        name: name.to_owned(),
        arity,
    }
}

/// Registry of the domain predicates a program uses.
#[derive(Default)]
struct Domains {
    /// Requested columns `(relation, column)`, in first-request order.
    columns: Vec<(RelationId, usize)>,
    /// Explicit sets (ASP texts of their elements), in first-request order.
    sets: Vec<Vec<String>>,
}

impl Domains {
    fn column(&mut self, ir: &Ir, relation: RelationId, column: usize) -> String {
        if !self.columns.contains(&(relation, column)) {
            self.columns.push((relation, column));
        }
        column_predicate(ir, relation, column)
    }

    fn set(&mut self, elements: Vec<String>) -> String {
        let index = match self.sets.iter().position(|s| *s == elements) {
            Some(i) => i,
            None => {
                self.sets.push(elements);
                self.sets.len() - 1
            }
        };
        format!("_set{}", index + 1)
    }
}

fn column_predicate(ir: &Ir, relation: RelationId, column: usize) -> String {
    format!("_dom_{}_{column}", identifier(&ir.relation(relation).name))
}

/// A literal of a game rule, kept structured for the existential-variable rewrite.
#[derive(Clone, Debug)]
struct GLit<'a> {
    text: String,
    vars: BTreeSet<String>,
    positive: bool,
    /// The GDL atom and relation it came from (none for tests and added literals).
    source: Option<(&'a ast::Atom, RelationId)>,
}

#[derive(Clone, Debug)]
struct GRule<'a> {
    head: String,
    head_vars: BTreeSet<String>,
    body: Vec<GLit<'a>>,
}

impl GRule<'_> {
    fn text(&self) -> String {
        if self.body.is_empty() {
            return format!("{}.", self.head);
        }
        let body: Vec<&str> = self.body.iter().map(|l| l.text.as_str()).collect();
        format!("{} :- {}.", self.head, body.join(", "))
    }
}

fn term_vars(term: &ast::Term, out: &mut BTreeSet<String>) {
    term.for_each_var(&mut |v| {
        out.insert(variable(&v.text));
    });
}

impl<'a> AspGame<'a> {
    /// Prepares a checked, analysed game; `source` names it in headers.
    pub fn new(rules: &'a [Rule], ir: &'a Ir, source: &str) -> Self {
        let graph = DependencyGraph::build(rules);
        let timed = |key: &RelationKey| {
            (key.name == "next" && key.arity == 1) || is_timed(ir, &key.name, key.arity)
        };
        let unfolded = unfold::unfold(rules, &graph, &timed);
        AspGame {
            ir,
            rules,
            unfolded,
            graph,
            source: source.to_owned(),
        }
    }

    /// Whether a relation carries a time argument (`next` always does: it becomes
    /// `true` at the following step).
    fn timed(&self, key: &RelationKey) -> bool {
        (key.name == "next" && key.arity == 1) || is_timed(self.ir, &key.name, key.arity)
    }

    fn need(&self, needs: &mut Needs, key: &RelationKey, level: usize) -> bool {
        needs.add(self.timed(key), key, level)
    }

    /// The text of a game atom at time `time` (`None`: static or untimed context).
    fn atom(&self, atom: &ast::Atom, time: Option<&str>) -> String {
        let mut args: Vec<String> = atom.args.iter().map(ast_term).collect();
        if let Some(t) = time
            && self.timed(&key_of(atom))
        {
            args.push(t.to_owned());
        }
        atom_text(&identifier(&atom.name.text), &args)
    }

    /// A keyword or derived atom `name(args)` at an explicit time.
    fn named_atom(&self, name: &str, args: Vec<String>, time: &str) -> String {
        let mut args = args;
        if self.timed(&key(name, args.len())) {
            args.push(time.to_owned());
        }
        atom_text(&identifier(name), &args)
    }

    fn relation_id(&self, key: &RelationKey) -> Option<RelationId> {
        find_relation(self.ir, &key.name, key.arity)
    }

    /// Relations `legal` depends on through positive edges only (itself included).
    fn legal_positive_cone(&self) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let Some(legal) = self.graph.relation("legal", 2) else {
            return seen;
        };
        let mut stack = vec![legal];
        seen.insert(legal);
        while let Some(r) = stack.pop() {
            for dep in self
                .graph
                .dependencies
                .iter()
                .filter(|d| d.head == r && !d.negative)
            {
                if seen.insert(dep.body) {
                    stack.push(dep.body);
                }
            }
        }
        seen
    }

    /// Emits the program for a request.
    pub fn program(&self, request: &Request<'_>) -> Program {
        let horizon = request.horizon;
        let mut needs = Needs::default();
        let mut domains = Domains::default();
        // Formulas first: they tell which relations are needed at which levels.
        let (formula_text, shown) = self.formulas(request, &mut needs, &mut domains);
        let legal_cone = self.seed_needs(request, &mut needs);

        let mut out = String::new();
        let _ = writeln!(
            out,
            "% @generated by gdlc {} from {}: do not edit.",
            env!("CARGO_PKG_VERSION"),
            self.source
        );
        let _ = writeln!(out, "% {}", request.title);
        let _ = writeln!(
            out,
            "% Run `clingo FILE --enum-mode=cautious`: a shown atom in the last answer is in every answer set."
        );
        let _ = writeln!(out, "\n_time(0..{horizon}).");

        let mut defined: BTreeSet<RelationKey> = BTreeSet::new();
        let game = self.game_over_time(&needs, horizon, &mut domains, &mut defined);
        let _ = writeln!(out, "\n% The game over time (G≤{horizon}).");
        out.push_str(&game);
        self.first_state(request.start, &mut domains, &mut defined, &mut out);
        if horizon >= 1 {
            self.action_generator(horizon, &legal_cone, &mut domains, &mut out);
            defined.insert(key("does", 2));
        }

        // Domains.
        let domain_text = self.domain_text(&domains);
        if !domain_text.is_empty() {
            let _ = writeln!(out, "\n% Domains.");
            out.push_str(&domain_text);
        }

        if !formula_text.is_empty() {
            let _ = writeln!(out, "\n% Formulas.");
            out.push_str(&formula_text);
        }

        self.declare_undefined(&needs, &defined, &mut out);

        let _ = writeln!(out);
        for name in &shown {
            let _ = writeln!(out, "#show {name}/0.");
        }
        Program { text: out, shown }
    }

    /// The formulas of a request as rules (assumptions as constraints), noting what
    /// they need; and the names of the targets, to show.
    fn formulas(
        &self,
        request: &Request<'_>,
        needs: &mut Needs,
        domains: &mut Domains,
    ) -> (String, Vec<String>) {
        let mut formula_text = String::new();
        let mut shown = Vec::new();
        for (k, psi) in request.assumptions.iter().enumerate() {
            let name = format!("_a{}", k + 1);
            let _ = writeln!(formula_text, "% {name}: proven invariant {psi}");
            let mut encoder = Encoder::new(self, &name, needs, domains);
            encoder.root(psi, 0);
            formula_text.push_str(&encoder.out);
            let _ = writeln!(formula_text, ":- not {name}.");
        }
        for (k, phi) in request.targets.iter().enumerate() {
            let (name, encoded) = match request.start {
                Start::Initial => (format!("_f{}", k + 1), (*phi).clone()),
                Start::Generated => (
                    format!("_s{}", k + 1),
                    (*phi).clone().implies((*phi).clone().next()),
                ),
            };
            let what = match request.start {
                Start::Initial => "holds",
                Start::Generated => "step (φ ⊃ ○φ) holds for",
            };
            let _ = writeln!(formula_text, "% {name}: {what} {phi}");
            let mut encoder = Encoder::new(self, &name, needs, domains);
            encoder.root(&encoded, 0);
            formula_text.push_str(&encoder.out);
            shown.push(name);
        }
        (formula_text, shown)
    }

    /// Adds to `needs` the seeds — transitions, the action generator and the first
    /// state — and propagates them through the rules: the relations of `legal`'s
    /// positive cone, which the action generator's static relaxation uses.
    fn seed_needs(&self, request: &Request<'_>, needs: &mut Needs) -> BTreeSet<usize> {
        let horizon = request.horizon;
        if horizon >= 1 {
            for name in [("next", 1), ("legal", 2), ("terminal", 0)] {
                self.need(needs, &key(name.0, name.1), horizon - 1);
            }
        }
        if request.start == Start::Initial {
            self.need(needs, &key("init", 1), 0);
        }
        // The static relaxation of legal uses the static relations of its cone.
        let legal_cone = if horizon >= 1 && self.timed(&key("legal", 2)) {
            self.legal_positive_cone()
        } else {
            BTreeSet::new()
        };
        for &r in &legal_cone {
            for dep in self.graph.dependencies.iter().filter(|d| d.head == r) {
                let body = &self.graph.relations[dep.body];
                if !self.timed(body) {
                    self.need(needs, body, 0);
                }
            }
        }
        self.propagate(needs);
        legal_cone
    }

    /// The rules of the game over time that something needs, noting the relations
    /// they define.
    fn game_over_time(
        &self,
        needs: &Needs,
        horizon: usize,
        domains: &mut Domains,
        defined: &mut BTreeSet<RelationKey>,
    ) -> String {
        let mut game = String::new();
        let mut split_counter = 0usize;
        for rule in &self.unfolded {
            let head = key_of(&rule.head);
            let Some(grule) = self.temporal_rule(rule, needs, horizon) else {
                continue;
            };
            defined.insert(if head == key("next", 1) {
                key("true", 1)
            } else {
                head
            });
            for r in self.split_existentials(grule, &mut split_counter, domains) {
                game.push_str(&r.text());
                game.push('\n');
            }
        }
        game
    }

    /// The first state: the initial state, or the state generator.
    fn first_state(
        &self,
        start: Start,
        domains: &mut Domains,
        defined: &mut BTreeSet<RelationKey>,
        out: &mut String,
    ) {
        match start {
            Start::Initial => {
                let _ = writeln!(out, "\n% The initial state.");
                let _ = writeln!(out, "true(F, 0) :- init(F).");
                defined.insert(key("true", 1));
            }
            Start::Generated => {
                let _ = writeln!(
                    out,
                    "\n% The state generator: any set of fluents of the domain."
                );
                if let Some(id) = self.relation_id(&key("true", 1)) {
                    let dom = domains.column(self.ir, id, 0);
                    let _ = writeln!(out, "{{ true(F, 0) : {dom}(F) }}.");
                    defined.insert(key("true", 1));
                }
            }
        }
    }

    /// The action generator: one move per role and non-terminated step, from `legal`
    /// or its static relaxation over `legal_cone`, checked against `legal`.
    fn action_generator(
        &self,
        horizon: usize,
        legal_cone: &BTreeSet<usize>,
        domains: &mut Domains,
        out: &mut String,
    ) {
        let _ = writeln!(out, "\n% The action generator.");
        let t = TIME;
        let terminal = self.named_atom("terminal", Vec::new(), t);
        let _ = writeln!(
            out,
            "_terminated({t}) :- _time({t}), {t} < {horizon}, {terminal}."
        );
        let _ = writeln!(
            out,
            "_terminated({t}+1) :- _terminated({t}), {t}+1 < {horizon}."
        );
        let candidates = if self.timed(&key("legal", 2)) {
            out.push_str(&self.static_relaxation(legal_cone, domains));
            "_static_legal"
        } else {
            "legal"
        };
        for &role in &self.ir.roles {
            let role = constant(&self.ir.symbols.symbol(role).name);
            let _ = writeln!(
                out,
                "1 {{ does({role}, M, {t}) : {candidates}({role}, M) }} 1 :- _time({t}), {t} < {horizon}, not _terminated({t})."
            );
        }
        let legal = self.named_atom("legal", vec!["R".into(), "M".into()], t);
        let _ = writeln!(out, ":- does(R, M, {t}), not {legal}.");
    }

    /// Relations that are used but never defined: declared to silence clingo.
    fn declare_undefined(&self, needs: &Needs, defined: &BTreeSet<RelationKey>, out: &mut String) {
        let mut undefined: BTreeSet<String> = BTreeSet::new();
        for key in needs.timed.keys() {
            if !defined.contains(key) && *key != self::key("next", 1) {
                undefined.insert(format!("{}/{}", identifier(&key.name), key.arity + 1));
            }
        }
        for key in &needs.fixed {
            if !defined.contains(key) {
                undefined.insert(format!("{}/{}", identifier(&key.name), key.arity));
            }
        }
        if !undefined.is_empty() {
            let _ = writeln!(out, "\n% Relations without rules here.");
            for name in undefined {
                let _ = writeln!(out, "#defined {name}.");
            }
        }
    }

    /// Propagates needs from heads to bodies through the rules.
    fn propagate(&self, needs: &mut Needs) {
        loop {
            let mut changed = false;
            for rule in &self.unfolded {
                let head = key_of(&rule.head);
                let level = if self.timed(&head) {
                    match needs.timed.get(&head) {
                        Some(&l) => l,
                        None => continue,
                    }
                } else if needs.fixed.contains(&head) {
                    0
                } else {
                    continue;
                };
                for literal in &rule.body {
                    if let Literal::Pos(atom) | Literal::Neg(atom) = literal {
                        changed |= self.need(needs, &key_of(atom), level);
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// The temporal version of a game rule, if it is needed.
    fn temporal_rule<'s>(
        &'s self,
        rule: &'s Rule,
        needs: &Needs,
        horizon: usize,
    ) -> Option<GRule<'s>> {
        let head_key = key_of(&rule.head);
        let is_next = head_key == key("next", 1);
        let timed = is_next || self.timed(&head_key);
        let t = TIME;
        let mut body = Vec::new();
        let head;
        let mut head_vars = BTreeSet::new();
        for arg in &rule.head.args {
            term_vars(arg, &mut head_vars);
        }
        if timed {
            let level = *needs.timed.get(&head_key)?;
            head = if is_next {
                let args: Vec<String> = rule.head.args.iter().map(ast_term).collect();
                format!("true({}, {t}+1)", args.join(", "))
            } else {
                self.atom(&rule.head, Some(t))
            };
            head_vars.insert(t.to_owned());
            body.push(GLit {
                text: format!("_time({t})"),
                vars: BTreeSet::from([t.to_owned()]),
                positive: true,
                source: None,
            });
            if level < horizon {
                body.push(GLit {
                    text: format!("{t} <= {level}"),
                    vars: BTreeSet::from([t.to_owned()]),
                    positive: false,
                    source: None,
                });
            }
        } else {
            if !needs.fixed.contains(&head_key) {
                return None;
            }
            head = self.atom(&rule.head, None);
        }
        for literal in &rule.body {
            body.push(match literal {
                Literal::Pos(atom) | Literal::Neg(atom) => {
                    let positive = matches!(literal, Literal::Pos(_));
                    let atom_key = key_of(atom);
                    let mut vars = BTreeSet::new();
                    for arg in &atom.args {
                        term_vars(arg, &mut vars);
                    }
                    if self.timed(&atom_key) {
                        vars.insert(t.to_owned());
                    }
                    let text = self.atom(atom, Some(t));
                    GLit {
                        text: if positive {
                            text
                        } else {
                            format!("not {text}")
                        },
                        vars,
                        positive,
                        source: self.relation_id(&atom_key).map(|id| (atom, id)),
                    }
                }
                Literal::Distinct(a, b, _) | Literal::Equal(a, b, _) => {
                    let mut vars = BTreeSet::new();
                    term_vars(a, &mut vars);
                    term_vars(b, &mut vars);
                    let op = if matches!(literal, Literal::Distinct(..)) {
                        "!="
                    } else {
                        "="
                    };
                    GLit {
                        text: format!("{} {op} {}", ast_term(a), ast_term(b)),
                        vars,
                        positive: false,
                        source: None,
                    }
                }
            });
        }
        Some(GRule {
            head,
            head_vars,
            body,
        })
    }

    /// The paper's *removing existential variables*: while a body variable `V` that is
    /// not in the head occurs in only some literals and the others have a variable of
    /// their own, the literals with `V` move to a rule of their own, projected on the
    /// variables they share with the rest.
    fn split_existentials<'s>(
        &'s self,
        rule: GRule<'s>,
        counter: &mut usize,
        domains: &mut Domains,
    ) -> Vec<GRule<'s>> {
        let mut done = Vec::new();
        let mut work = vec![(rule, 0usize)];
        while let Some((mut rule, depth)) = work.pop() {
            if depth >= 8 {
                done.push(rule);
                continue;
            }
            let mut order: Vec<String> = Vec::new();
            for literal in &rule.body {
                for v in &literal.vars {
                    if !order.contains(v) {
                        order.push(v.clone());
                    }
                }
            }
            // Of the variables that can be projected away, take the one whose literals
            // share the fewest variables with the rest (the smallest projection).
            let mut split: Option<(String, Vec<String>, Vec<GLit<'s>>)> = None;
            for v in order.iter().filter(|v| !rule.head_vars.contains(*v)) {
                let (plus, minus): (Vec<&GLit>, Vec<&GLit>) =
                    rule.body.iter().partition(|l| l.vars.contains(v));
                if minus.is_empty() {
                    continue;
                }
                let minus_vars: BTreeSet<&String> = minus.iter().flat_map(|l| &l.vars).collect();
                let plus_vars: BTreeSet<&String> = plus.iter().flat_map(|l| &l.vars).collect();
                let shared: Vec<String> = order
                    .iter()
                    .filter(|w| {
                        plus_vars.contains(w)
                            && (minus_vars.contains(w) || rule.head_vars.contains(*w))
                    })
                    .cloned()
                    .collect();
                if minus_vars.iter().all(|w| shared.contains(w)) {
                    continue;
                }
                if split
                    .as_ref()
                    .is_some_and(|(_, best, _)| best.len() <= shared.len())
                {
                    continue;
                }
                // Variables of the new rule bound only by tests or negations need a
                // domain guard from a positive literal of the rest.
                let mut guards = Vec::new();
                let mut unsafe_var = false;
                for w in &plus_vars {
                    if plus.iter().any(|l| l.positive && l.vars.contains(*w)) {
                        continue;
                    }
                    match self.guard(w, &minus, domains) {
                        Some(g) => guards.push(g),
                        None => unsafe_var = true,
                    }
                }
                if !unsafe_var {
                    split = Some((v.clone(), shared, guards));
                }
            }
            let Some((v, shared, guards)) = split else {
                done.push(rule);
                continue;
            };
            *counter += 1;
            let name = format!("_e{counter}");
            let head = atom_text(&name, &shared);
            let (plus, minus): (Vec<GLit>, Vec<GLit>) =
                rule.body.into_iter().partition(|l| l.vars.contains(&v));
            let mut aux_body = plus;
            aux_body.extend(guards);
            let aux = GRule {
                head: head.clone(),
                head_vars: shared.iter().cloned().collect(),
                body: aux_body,
            };
            let link = GLit {
                text: head,
                vars: shared.iter().cloned().collect(),
                positive: true,
                source: None,
            };
            // Keep the time guard first, then the projection, then the rest.
            let mut body = Vec::with_capacity(minus.len() + 1);
            let mut rest = minus.into_iter().peekable();
            while let Some(l) = rest.next_if(|l| l.source.is_none() && l.positive) {
                body.push(l);
            }
            body.push(link);
            body.extend(rest);
            rule.body = body;
            work.push((aux, depth + 1));
            work.push((rule, depth + 1));
        }
        done
    }

    /// A positive literal binding `var` to a superset of its values, from `literals`.
    fn guard<'s>(
        &'s self,
        var: &str,
        literals: &[&GLit<'s>],
        domains: &mut Domains,
    ) -> Option<GLit<'s>> {
        if var == TIME {
            return Some(GLit {
                text: format!("_time({TIME})"),
                vars: BTreeSet::from([TIME.to_owned()]),
                positive: true,
                source: None,
            });
        }
        for literal in literals.iter().filter(|l| l.positive) {
            let Some((atom, relation)) = literal.source else {
                continue;
            };
            for (i, arg) in atom.args.iter().enumerate() {
                if let Some(path) = self.var_path(arg, &[i as u32], var)
                    && let Some(column) = self.ir.relation(relation).column_of(&path)
                {
                    let predicate = domains.column(self.ir, relation, column);
                    return Some(GLit {
                        text: format!("{predicate}({var})"),
                        vars: BTreeSet::from([var.to_owned()]),
                        positive: true,
                        source: None,
                    });
                }
            }
        }
        None
    }

    /// The IR path of the first occurrence of ASP variable `var` in `term` at `path`.
    fn var_path(&self, term: &ast::Term, path: &[u32], var: &str) -> Option<Vec<u32>> {
        match term {
            ast::Term::Var(name) => (variable(&name.text) == var).then(|| path.to_vec()),
            ast::Term::Const(_) => None,
            ast::Term::Func { name, args, .. } => {
                let symbol = self.ir.symbols.get(&name.text, args.len())?;
                args.iter()
                    .enumerate()
                    .find_map(|(j, a)| self.var_path(a, &child_path(path, symbol, j), var))
            }
        }
    }

    /// The static relaxation of `legal` (Definition 23): rules for `_static_p` for every
    /// state-dependent `p` in the positive cone of `legal`.
    fn static_relaxation(&self, cone: &BTreeSet<usize>, domains: &mut Domains) -> String {
        let mut out = String::new();
        let true_id = self.relation_id(&key("true", 1));
        for rule in self.rules {
            let head = key_of(&rule.head);
            let in_cone = self
                .graph
                .relation(&head.name, head.arity)
                .is_some_and(|g| cone.contains(&g));
            if !in_cone || !self.timed(&head) {
                continue;
            }
            let mut body = Vec::new();
            let mut possible = true;
            for literal in &rule.body {
                match literal {
                    Literal::Pos(atom) => {
                        let k = key_of(atom);
                        if k == key("true", 1) {
                            match true_id {
                                Some(id) => {
                                    let dom = domains.column(self.ir, id, 0);
                                    body.push(format!("{dom}({})", ast_term(&atom.args[0])));
                                }
                                None => possible = false,
                            }
                        } else if self.timed(&k) {
                            body.push(format!("_static_{}", self.atom(atom, None)));
                        } else {
                            body.push(self.atom(atom, None));
                        }
                    }
                    Literal::Neg(atom) => {
                        if !self.timed(&key_of(atom)) {
                            body.push(format!("not {}", self.atom(atom, None)));
                        }
                    }
                    Literal::Distinct(a, b, _) => {
                        body.push(format!("{} != {}", ast_term(a), ast_term(b)));
                    }
                    Literal::Equal(a, b, _) => {
                        body.push(format!("{} = {}", ast_term(a), ast_term(b)));
                    }
                }
            }
            if !possible {
                continue;
            }
            let head_text = format!("_static_{}", self.atom(&rule.head, None));
            if body.is_empty() {
                let _ = writeln!(out, "{head_text}.");
            } else {
                let _ = writeln!(out, "{head_text} :- {}.", body.join(", "));
            }
        }
        let _ = writeln!(out, "#defined _static_legal/2.");
        out
    }

    /// The domain predicates requested, with the columns they depend on.
    fn domain_text(&self, domains: &Domains) -> String {
        let mut out = String::new();
        let mut done: BTreeSet<(RelationId, usize)> = BTreeSet::new();
        let mut work: Vec<(RelationId, usize)> = domains.columns.iter().rev().copied().collect();
        while let Some((relation, column)) = work.pop() {
            if !done.insert((relation, column)) {
                continue;
            }
            let rel = self.ir.relation(relation);
            let predicate = column_predicate(self.ir, relation, column);
            let mut constants = Vec::new();
            let mut children = Vec::new();
            for &symbol in &rel.columns[column].domain {
                if symbol == NIL {
                    continue;
                }
                let sym = self.ir.symbols.symbol(symbol);
                if sym.arity == 0 {
                    constants.push(constant(&sym.name));
                    continue;
                }
                let mut vars = Vec::new();
                let mut body = Vec::new();
                let mut complete = true;
                for j in 0..sym.arity {
                    let path = child_path(&rel.columns[column].path, symbol, j);
                    match rel.column_of(&path) {
                        Some(child) => {
                            let var = format!("X{}", j + 1);
                            body.push(format!(
                                "{}({var})",
                                column_predicate(self.ir, relation, child)
                            ));
                            vars.push(var);
                            children.push((relation, child));
                        }
                        None => complete = false,
                    }
                }
                if complete {
                    let _ = writeln!(
                        out,
                        "{predicate}({}({})) :- {}.",
                        identifier(&sym.name),
                        vars.join(", "),
                        body.join(", ")
                    );
                }
            }
            if constants.is_empty() {
                if !rel.columns[column]
                    .domain
                    .iter()
                    .any(|&s| s != NIL && self.ir.symbols.symbol(s).arity > 0)
                {
                    let _ = writeln!(out, "#defined {predicate}/1.");
                }
            } else {
                let _ = writeln!(out, "{predicate}({}).", constants.join("; "));
            }
            for child in children.into_iter().rev() {
                work.push(child);
            }
        }
        for (i, set) in domains.sets.iter().enumerate() {
            if set.is_empty() {
                let _ = writeln!(out, "#defined _set{}/1.", i + 1);
            } else {
                let _ = writeln!(out, "_set{}({}).", i + 1, set.join("; "));
            }
        }
        out
    }
}

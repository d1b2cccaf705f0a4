//! State sequence invariants: a small KIF-style formula language (the paper's
//! Definition 3), its parser with located errors, and its canonical text.
//!
//! ```text
//! formula := atom
//!          | (not F) | (and F…) | (or F…) | (=> F G)
//!          | (next F)                                   ; ○F: F holds in every successor
//!          | (exists (binding…) F) | (forall (binding…) F)
//!          | (count LOW HIGH (binding…) F)              ; LOW..HIGH instances hold; HIGH may be `inf`
//! atom    := NAME | (NAME term…)                        ; a relation of the game
//! binding := (?x ?y … DOMAIN)                           ; the variables range over DOMAIN
//! DOMAIN  := (set term…)                                ; explicit ground terms
//!          | (domain RELATION PATH)                     ; a computed argument domain
//! ```
//!
//! Atoms name relations of the game: `true`, `legal`, `goal`, `terminal` and any derived
//! or static relation, but not `init`, `next`, `sees` nor anything that depends on
//! `does` (the paper's Definition 3). Every variable of an atom is bound by an enclosing
//! quantifier. `(domain RELATION PATH)` is the set of ground terms the analysis allows at
//! an argument path of a relation, with `RELATION` as `name` or `name/arity` and `PATH`
//! as printed by `gdlc explain --stage domains` (`(domain true 0/cell.0)` are the first
//! arguments of `cell` fluents, `(domain role 0)` the roles, `(domain true 0)` every
//! fluent). Formula words (`not`, `and`, `or`, `=>`, `next`, `exists`, `forall`,
//! `count`) take precedence over relations of the same name.
//!
//! The *degree* of a formula is the deepest nesting of `next`.

use std::fmt;

use crate::diagnostic::{Code, Diagnostic, Span};
use crate::ir::{Ir, Keyword, NIL, Phase, RelationId, SymbolId};
use crate::syntax::{SExpr, read_sexprs};

/// A term of a formula: lowercase names, variables without their `?`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Term {
    /// A variable bound by a quantifier.
    Var(String),
    /// A constant.
    Const(String),
    /// A function application (at least one argument).
    Func(String, Vec<Term>),
}

impl Term {
    /// The ground term of an IR term.
    pub fn from_ir(ir: &Ir, term: &crate::ir::Term) -> Term {
        let name = ir.symbols.symbol(term.symbol).name.clone();
        if term.args.is_empty() {
            Term::Const(name)
        } else {
            Term::Func(
                name,
                term.args.iter().map(|a| Term::from_ir(ir, a)).collect(),
            )
        }
    }

    /// Calls `f` on every variable name of the term.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Term::Var(name) => f(name),
            Term::Const(_) => {}
            Term::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// An atom over a relation of the game.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Atom {
    /// The relation's name (lowercase).
    pub relation: String,
    /// The arguments.
    pub args: Vec<Term>,
}

/// Where a quantified variable ranges.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Domain {
    /// Explicit ground terms, in the order written (duplicates are kept once).
    Set(Vec<Term>),
    /// The ground terms the analysis allows in one column of a relation.
    Column {
        /// The relation.
        relation: RelationId,
        /// The column's index in the relation.
        column: usize,
        /// The relation's name (for the text form).
        relation_key: String,
        /// The path as text, e.g. `0/cell.2`.
        path: String,
    },
}

/// Variables and the domain they range over.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Binding {
    /// Variable names, without `?`.
    pub vars: Vec<String>,
    /// Their domain.
    pub domain: Domain,
}

/// A state sequence invariant.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Formula {
    /// An atom of the game, true in the current state.
    Atom(Atom),
    /// Negation.
    Not(Box<Formula>),
    /// Conjunction (true when empty).
    And(Vec<Formula>),
    /// Disjunction (false when empty).
    Or(Vec<Formula>),
    /// Implication.
    Implies(Box<Formula>, Box<Formula>),
    /// ○F: F holds in the next state (true in a terminal state).
    Next(Box<Formula>),
    /// Some assignment of the bound variables satisfies the body.
    Exists(Vec<Binding>, Box<Formula>),
    /// Every assignment of the bound variables satisfies the body.
    Forall(Vec<Binding>, Box<Formula>),
    /// Between `low` and `high` (inclusive; `None`: no upper bound) assignments of the
    /// bound variables satisfy the body.
    Count {
        /// Least number of satisfying assignments.
        low: u32,
        /// Greatest number, if bounded.
        high: Option<u32>,
        /// The counted variables.
        bindings: Vec<Binding>,
        /// The body.
        body: Box<Formula>,
    },
}

impl Formula {
    /// The deepest nesting of `next`.
    pub fn degree(&self) -> usize {
        match self {
            Formula::Atom(_) => 0,
            Formula::Not(f) => f.degree(),
            Formula::And(fs) | Formula::Or(fs) => fs.iter().map(Formula::degree).max().unwrap_or(0),
            Formula::Implies(a, b) => a.degree().max(b.degree()),
            Formula::Next(f) => 1 + f.degree(),
            Formula::Exists(_, f) | Formula::Forall(_, f) => f.degree(),
            Formula::Count { body, .. } => body.degree(),
        }
    }

    /// `(not self)`.
    pub fn negate(self) -> Formula {
        Formula::Not(Box::new(self))
    }

    /// `(=> self then)`.
    pub fn implies(self, then: Formula) -> Formula {
        Formula::Implies(Box::new(self), Box::new(then))
    }

    /// `(next self)`.
    pub fn next(self) -> Formula {
        Formula::Next(Box::new(self))
    }

    /// The atom `(relation args…)`.
    pub fn atom(relation: &str, args: Vec<Term>) -> Formula {
        Formula::Atom(Atom {
            relation: relation.to_owned(),
            args,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Text

fn write_term(f: &mut fmt::Formatter<'_>, term: &Term) -> fmt::Result {
    match term {
        Term::Var(name) => write!(f, "?{name}"),
        Term::Const(name) => f.write_str(name),
        Term::Func(name, args) => {
            write!(f, "({name}")?;
            for arg in args {
                f.write_str(" ")?;
                write_term(f, arg)?;
            }
            f.write_str(")")
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_term(f, self)
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.args.is_empty() {
            return f.write_str(&self.relation);
        }
        write!(f, "({}", self.relation)?;
        for arg in &self.args {
            write!(f, " {arg}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Domain::Set(terms) => {
                f.write_str("(set")?;
                for term in terms {
                    write!(f, " {term}")?;
                }
                f.write_str(")")
            }
            Domain::Column {
                relation_key, path, ..
            } => write!(f, "(domain {relation_key} {path})"),
        }
    }
}

fn write_bindings(f: &mut fmt::Formatter<'_>, bindings: &[Binding]) -> fmt::Result {
    f.write_str("(")?;
    for (i, binding) in bindings.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        f.write_str("(")?;
        for var in &binding.vars {
            write!(f, "?{var} ")?;
        }
        write!(f, "{})", binding.domain)?;
    }
    f.write_str(")")
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, word: &str, items: &[Formula]| {
            write!(f, "({word}")?;
            for item in items {
                write!(f, " {item}")?;
            }
            f.write_str(")")
        };
        match self {
            Formula::Atom(atom) => write!(f, "{atom}"),
            Formula::Not(inner) => write!(f, "(not {inner})"),
            Formula::And(items) => list(f, "and", items),
            Formula::Or(items) => list(f, "or", items),
            Formula::Implies(a, b) => write!(f, "(=> {a} {b})"),
            Formula::Next(inner) => write!(f, "(next {inner})"),
            Formula::Exists(bindings, body) | Formula::Forall(bindings, body) => {
                let word = if matches!(self, Formula::Exists(..)) {
                    "exists"
                } else {
                    "forall"
                };
                write!(f, "({word} ")?;
                write_bindings(f, bindings)?;
                write!(f, " {body})")
            }
            Formula::Count {
                low,
                high,
                bindings,
                body,
            } => {
                write!(f, "(count {low} ")?;
                match high {
                    Some(high) => write!(f, "{high} ")?,
                    None => f.write_str("inf ")?,
                }
                write_bindings(f, bindings)?;
                write!(f, " {body})")
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Game facts the formula language needs

/// The relation of `name/arity` in the IR.
pub fn find_relation(ir: &Ir, name: &str, arity: usize) -> Option<RelationId> {
    ir.relations
        .iter()
        .position(|r| r.name == name && r.arity == arity)
        .map(|i| RelationId(i as u32))
}

/// Whether atoms of `name/arity` carry a time argument in the temporal program: the
/// relation depends on `true` or `does`. Keyword relations a game lacks count as
/// state-dependent.
pub fn is_timed(ir: &Ir, name: &str, arity: usize) -> bool {
    match find_relation(ir, name, arity) {
        Some(id) => ir.layers[ir.layer_of[id.0 as usize]].phase != Phase::Static,
        None => matches!(
            Keyword::of(name, arity),
            Some(
                Keyword::True | Keyword::Does | Keyword::Legal | Keyword::Goal | Keyword::Terminal
            )
        ),
    }
}

/// The ground terms of a column of a relation: its symbols, function symbols expanded
/// over their argument columns. `None` when there are more than `limit`.
pub fn column_terms(
    ir: &Ir,
    relation: RelationId,
    column: usize,
    limit: usize,
) -> Option<Vec<crate::ir::Term>> {
    let rel = ir.relation(relation);
    let mut out = Vec::new();
    for &symbol in &rel.columns[column].domain {
        if symbol == NIL {
            continue;
        }
        let arity = ir.symbols.symbol(symbol).arity;
        let mut partial: Vec<Vec<crate::ir::Term>> = vec![Vec::new()];
        for j in 0..arity {
            let path = crate::ir::child_path(&rel.columns[column].path, symbol, j);
            let values = match rel.column_of(&path) {
                Some(child) => column_terms(ir, relation, child, limit)?,
                None => Vec::new(),
            };
            if partial.len().saturating_mul(values.len()) > limit {
                return None;
            }
            partial = partial
                .iter()
                .flat_map(|prefix| {
                    values.iter().map(move |v| {
                        let mut next = prefix.clone();
                        next.push(v.clone());
                        next
                    })
                })
                .collect();
        }
        for args in partial {
            out.push(crate::ir::Term { symbol, args });
            if out.len() > limit {
                return None;
            }
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------
// Parsing

fn error(span: Span, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Code::Formula, message).at(span, label)
}

/// Parses one formula against a game. Spans of errors are offsets into `text`.
pub fn parse(text: &str, ir: &Ir) -> Result<Formula, Diagnostic> {
    let sexprs = read_sexprs(text).map_err(|d| Diagnostic {
        code: Code::Formula,
        ..d
    })?;
    match sexprs.as_slice() {
        [one] => Parser {
            ir,
            scope: Vec::new(),
        }
        .formula(one),
        [] => Err(Diagnostic::error(Code::Formula, "the formula is empty")
            .at(Span::new(0, text.len()), "no formula here")),
        [_, second, ..] => Err(error(
            second.span(),
            "a formula is one expression",
            "unexpected second expression",
        )
        .with_note("combine several formulas with `(and …)`")),
    }
}

struct Parser<'a> {
    ir: &'a Ir,
    /// Variables bound by enclosing quantifiers.
    scope: Vec<String>,
}

/// The lowercase symbol of an s-expression that is a plain symbol.
fn word(sexpr: &SExpr) -> Option<String> {
    match sexpr {
        SExpr::Symbol(text, _) => Some(text.to_ascii_lowercase()),
        _ => None,
    }
}

impl Parser<'_> {
    fn formula(&mut self, sexpr: &SExpr) -> Result<Formula, Diagnostic> {
        let span = sexpr.span();
        let items = match sexpr {
            SExpr::Variable(..) => {
                return Err(error(
                    span,
                    "a variable is not a formula",
                    "expected a formula",
                ));
            }
            SExpr::Symbol(..) => return self.atom(sexpr, &[]).map(Formula::Atom),
            SExpr::List(items, _) => items,
        };
        let Some((head, rest)) = items.split_first() else {
            return Err(error(
                span,
                "an empty list is not a formula",
                "expected a formula",
            ));
        };
        let Some(head_word) = word(head) else {
            return Err(error(
                head.span(),
                "a formula starts with a relation name or a connective",
                "expected a name",
            ));
        };
        let arity_error = |expected: &str| {
            error(
                span,
                format!("`{head_word}` takes {expected}"),
                format!(
                    "{} argument{} here",
                    rest.len(),
                    if rest.len() == 1 { "" } else { "s" }
                ),
            )
        };
        match head_word.as_str() {
            "not" | "next" => {
                let [inner] = rest else {
                    return Err(arity_error("one formula"));
                };
                let inner = Box::new(self.formula(inner)?);
                Ok(if head_word == "not" {
                    Formula::Not(inner)
                } else {
                    Formula::Next(inner)
                })
            }
            "and" | "or" => {
                let parts = rest
                    .iter()
                    .map(|s| self.formula(s))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(if head_word == "and" {
                    Formula::And(parts)
                } else {
                    Formula::Or(parts)
                })
            }
            "=>" => {
                let [a, b] = rest else {
                    return Err(arity_error("two formulas"));
                };
                Ok(Formula::Implies(
                    Box::new(self.formula(a)?),
                    Box::new(self.formula(b)?),
                ))
            }
            "exists" | "forall" => {
                let [bindings, body] = rest else {
                    return Err(arity_error("a list of bindings and a formula"));
                };
                let (bindings, body) = self.quantified(bindings, body)?;
                Ok(if head_word == "exists" {
                    Formula::Exists(bindings, body)
                } else {
                    Formula::Forall(bindings, body)
                })
            }
            "count" => {
                let [low, high, bindings, body] = rest else {
                    return Err(arity_error(
                        "a lower bound, an upper bound, a list of bindings and a formula",
                    ));
                };
                let low_value = bound(low)?;
                let high_value = match word(high).as_deref() {
                    Some("inf") => None,
                    _ => Some(bound(high)?),
                };
                if let Some(h) = high_value
                    && h < low_value
                {
                    return Err(error(
                        high.span(),
                        "the upper bound is below the lower bound",
                        format!("at most {h}, but at least {low_value}"),
                    ));
                }
                let (bindings, body) = self.quantified(bindings, body)?;
                Ok(Formula::Count {
                    low: low_value,
                    high: high_value,
                    bindings,
                    body,
                })
            }
            _ => self.atom(head, rest).map(Formula::Atom),
        }
    }

    fn quantified(
        &mut self,
        bindings: &SExpr,
        body: &SExpr,
    ) -> Result<(Vec<Binding>, Box<Formula>), Diagnostic> {
        let SExpr::List(items, span) = bindings else {
            return Err(error(
                bindings.span(),
                "expected a list of bindings like `((?x ?y (domain true 0/cell.0)))`",
                "not a list",
            ));
        };
        if items.is_empty() {
            return Err(error(
                *span,
                "a quantifier binds at least one variable",
                "no bindings",
            ));
        }
        let mut out = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for item in items {
            let binding = self.binding(item)?;
            for var in &binding.vars {
                if names.contains(var) {
                    return Err(error(
                        item.span(),
                        format!("variable `?{var}` is bound twice by one quantifier"),
                        "bound again here",
                    ));
                }
                names.push(var.clone());
            }
            out.push(binding);
        }
        let depth = self.scope.len();
        self.scope.extend(names);
        let body = self.formula(body);
        self.scope.truncate(depth);
        Ok((out, Box::new(body?)))
    }

    fn binding(&mut self, sexpr: &SExpr) -> Result<Binding, Diagnostic> {
        let SExpr::List(items, span) = sexpr else {
            return Err(error(
                sexpr.span(),
                "a binding is a list of variables and a domain, like `(?x ?y (set 1 2 3))`",
                "not a list",
            ));
        };
        let Some((domain, vars)) = items.split_last() else {
            return Err(error(
                *span,
                "an empty binding",
                "expected variables and a domain",
            ));
        };
        if vars.is_empty() {
            return Err(error(
                *span,
                "a binding needs at least one variable",
                "no variable",
            ));
        }
        let mut names = Vec::new();
        for var in vars {
            match var {
                SExpr::Variable(text, _) => names.push(text[1..].to_ascii_lowercase()),
                other => {
                    return Err(error(
                        other.span(),
                        "expected a variable like `?x`",
                        "not a variable",
                    ));
                }
            }
        }
        Ok(Binding {
            vars: names,
            domain: self.domain(domain)?,
        })
    }

    fn domain(&mut self, sexpr: &SExpr) -> Result<Domain, Diagnostic> {
        let hint = "a domain is `(set term…)` or `(domain RELATION PATH)`";
        let SExpr::List(items, span) = sexpr else {
            return Err(error(sexpr.span(), hint, "not a domain"));
        };
        match items.split_first() {
            Some((head, rest)) if word(head).as_deref() == Some("set") => {
                let mut terms: Vec<Term> = Vec::new();
                for item in rest {
                    let term = ground_term(item)?;
                    if !terms.contains(&term) {
                        terms.push(term);
                    }
                }
                Ok(Domain::Set(terms))
            }
            Some((head, rest)) if word(head).as_deref() == Some("domain") => {
                let [relation, path] = rest else {
                    return Err(error(*span, "`domain` takes a relation and a path", "here")
                        .with_note("e.g. `(domain true 0/cell.0)`; `gdlc explain --stage domains` lists the paths"));
                };
                self.column_domain(relation, path)
            }
            _ => Err(error(*span, hint, "not a domain")),
        }
    }

    fn column_domain(&self, relation: &SExpr, path: &SExpr) -> Result<Domain, Diagnostic> {
        let Some(name) = word(relation) else {
            return Err(error(
                relation.span(),
                "expected a relation name",
                "not a name",
            ));
        };
        let (name, arity) = match name.rsplit_once('/') {
            Some((n, a)) => match a.parse::<usize>() {
                Ok(a) => (n.to_owned(), Some(a)),
                Err(_) => (name.clone(), None),
            },
            None => (name.clone(), None),
        };
        let candidates: Vec<RelationId> = (0..self.ir.relations.len())
            .filter(|&i| {
                let r = &self.ir.relations[i];
                r.name == name && arity.is_none_or(|a| a == r.arity)
            })
            .map(|i| RelationId(i as u32))
            .collect();
        let id = match candidates.as_slice() {
            [one] => *one,
            [] => {
                return Err(error(
                    relation.span(),
                    format!("unknown relation `{name}` in a domain"),
                    "no such relation in the game",
                ));
            }
            _ => {
                return Err(error(
                    relation.span(),
                    format!("relation `{name}` has several arities"),
                    "write `name/arity`",
                ));
            }
        };
        let Some(path_text) = word(path).or_else(|| match path {
            SExpr::Symbol(t, _) => Some(t.clone()),
            _ => None,
        }) else {
            return Err(error(
                path.span(),
                "expected a path like `0/cell.2`",
                "not a path",
            ));
        };
        let rel = self.ir.relation(id);
        let Some(column) = rel
            .columns
            .iter()
            .position(|c| self.ir.path_text(&c.path) == path_text)
        else {
            let known: Vec<String> = rel
                .columns
                .iter()
                .map(|c| self.ir.path_text(&c.path))
                .collect();
            return Err(error(
                path.span(),
                format!("`{}` has no argument path `{path_text}`", rel.key()),
                "unknown path",
            )
            .with_note(format!("its paths are: {}", known.join(" "))));
        };
        Ok(Domain::Column {
            relation: id,
            column,
            relation_key: rel.name.clone(),
            path: path_text,
        })
    }

    fn atom(&mut self, head: &SExpr, args: &[SExpr]) -> Result<Atom, Diagnostic> {
        let Some(name) = word(head) else {
            return Err(error(head.span(), "expected a relation name", "not a name"));
        };
        let span = match args.last() {
            Some(last) => Span::new(head.span().start, last.span().end + 1),
            None => head.span(),
        };
        let arity = args.len();
        let Some(id) = find_relation(self.ir, &name, arity) else {
            let mut err = error(
                head.span(),
                format!("unknown relation `{name}/{arity}`"),
                "not a relation of the game",
            );
            let others: Vec<String> = self
                .ir
                .relations
                .iter()
                .filter(|r| r.name == name)
                .map(|r| r.key())
                .collect();
            if !others.is_empty() {
                err = err.with_note(format!("the game has {}", others.join(", ")));
            }
            return Err(err);
        };
        let relation = self.ir.relation(id);
        let layer_phase = self.ir.layers[self.ir.layer_of[id.0 as usize]].phase;
        let forbidden = match relation.keyword {
            Some(Keyword::Init) => Some("`init` describes the initial state only; use `true`"),
            Some(Keyword::Next) => Some("`next` is a rule head; use the operator `(next F)`"),
            Some(Keyword::Does) => Some("formulas cannot refer to moves; use `legal`"),
            Some(Keyword::Sees) => Some("formulas cannot refer to percepts"),
            _ if layer_phase == Phase::Move => {
                Some("formulas cannot refer to relations that depend on `does`")
            }
            _ => None,
        };
        if let Some(reason) = forbidden {
            return Err(error(
                span,
                format!("`{}` cannot be used in a formula", relation.key()),
                reason,
            ));
        }
        let mut terms = Vec::with_capacity(args.len());
        for arg in args {
            terms.push(self.term(arg)?);
        }
        Ok(Atom {
            relation: name,
            args: terms,
        })
    }

    fn term(&self, sexpr: &SExpr) -> Result<Term, Diagnostic> {
        match sexpr {
            SExpr::Variable(text, span) => {
                let name = text[1..].to_ascii_lowercase();
                if !self.scope.contains(&name) {
                    return Err(error(
                        *span,
                        format!("variable `?{name}` is not bound"),
                        "bind it with `exists`, `forall` or `count`",
                    ));
                }
                Ok(Term::Var(name))
            }
            SExpr::Symbol(text, span) => {
                let name = text.to_ascii_lowercase();
                self.known_symbol(&name, 0, *span)?;
                Ok(Term::Const(name))
            }
            SExpr::List(items, span) => {
                let Some((head, rest)) = items.split_first() else {
                    return Err(error(*span, "an empty list is not a term", "here"));
                };
                let Some(name) = word(head) else {
                    return Err(error(head.span(), "expected a function symbol", "here"));
                };
                if rest.is_empty() {
                    self.known_symbol(&name, 0, *span)?;
                    return Ok(Term::Const(name));
                }
                self.known_symbol(&name, rest.len(), head.span())?;
                let args = rest
                    .iter()
                    .map(|a| self.term(a))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Term::Func(name, args))
            }
        }
    }

    fn known_symbol(&self, name: &str, arity: usize, span: Span) -> Result<SymbolId, Diagnostic> {
        self.ir.symbols.get(name, arity).ok_or_else(|| {
            let what = if arity == 0 {
                format!("constant `{name}`")
            } else {
                format!("function symbol `{name}/{arity}`")
            };
            error(
                span,
                format!("unknown {what}"),
                "it does not occur in the game",
            )
        })
    }
}

/// A natural number bound of `count`.
fn bound(sexpr: &SExpr) -> Result<u32, Diagnostic> {
    match sexpr {
        SExpr::Symbol(text, span) => text.parse::<u32>().map_err(|_| {
            error(
                *span,
                "a bound is a natural number (or `inf` as upper bound)",
                "not a number",
            )
        }),
        other => Err(error(
            other.span(),
            "a bound is a natural number",
            "not a number",
        )),
    }
}

/// A ground term of an explicit domain (its symbols need not occur in the game).
fn ground_term(sexpr: &SExpr) -> Result<Term, Diagnostic> {
    match sexpr {
        SExpr::Variable(_, span) => Err(error(*span, "a domain lists ground terms", "a variable")),
        SExpr::Symbol(text, _) => Ok(Term::Const(text.to_ascii_lowercase())),
        SExpr::List(items, span) => {
            let Some((head, rest)) = items.split_first() else {
                return Err(error(*span, "an empty list is not a term", "here"));
            };
            let Some(name) = word(head) else {
                return Err(error(head.span(), "expected a function symbol", "here"));
            };
            if rest.is_empty() {
                return Ok(Term::Const(name));
            }
            Ok(Term::Func(
                name,
                rest.iter()
                    .map(ground_term)
                    .collect::<Result<Vec<_>, _>>()?,
            ))
        }
    }
}

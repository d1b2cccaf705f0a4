//! The abstract syntax of a GDL description, with spans.
//!
//! Symbols are lowercased (KIF is case-insensitive); numbers are symbols like any other
//! (`0100` and `100` differ). `(p)` has already been read as `p`. Keywords (`true`,
//! `does`, …) are ordinary relation names here; the checker gives them meaning.

use std::fmt;

use crate::diagnostic::Span;

/// A symbol (constant, function or relation name) with where it was written.
#[derive(Clone, Debug)]
pub struct Name {
    /// The lowercased symbol.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

/// A term: a variable, a constant or a function application.
#[derive(Clone, Debug)]
pub enum Term {
    /// `?x` (the name is stored without the `?`, lowercased).
    Var(Name),
    /// A constant symbol.
    Const(Name),
    /// `(f t1 … tn)` with n ≥ 1.
    Func {
        /// The function symbol.
        name: Name,
        /// The arguments.
        args: Vec<Term>,
        /// The whole term.
        span: Span,
    },
}

impl Term {
    /// Where the term was written.
    pub fn span(&self) -> Span {
        match self {
            Term::Var(name) | Term::Const(name) => name.span,
            Term::Func { span, .. } => *span,
        }
    }

    /// Calls `f` on every variable occurring in the term.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a Name)) {
        match self {
            Term::Var(name) => f(name),
            Term::Const(_) => {}
            Term::Func { args, .. } => args.iter().for_each(|arg| arg.for_each_var(f)),
        }
    }

    /// Whether the term has no variables.
    pub fn is_ground(&self) -> bool {
        let mut ground = true;
        self.for_each_var(&mut |_| ground = false);
        ground
    }
}

/// An atom: a relation name applied to terms (`terminal`, `(cell 1 1 b)`).
#[derive(Clone, Debug)]
pub struct Atom {
    /// The relation name.
    pub name: Name,
    /// The arguments (empty for a proposition).
    pub args: Vec<Term>,
    /// The whole atom.
    pub span: Span,
}

impl Atom {
    /// Number of arguments.
    pub fn arity(&self) -> usize {
        self.args.len()
    }

    /// Whether this is the relation `name` (already lowercase) with `arity` arguments.
    pub fn is(&self, name: &str, arity: usize) -> bool {
        self.name.text == name && self.args.len() == arity
    }

    /// Calls `f` on every variable occurring in the atom.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a Name)) {
        self.args.iter().for_each(|arg| arg.for_each_var(f));
    }
}

/// A body literal.
#[derive(Clone, Debug)]
pub enum Literal {
    /// A positive atom.
    Atom(Atom),
    /// `(not L)`.
    Not(Box<Literal>, Span),
    /// `(distinct s t)`.
    Distinct(Term, Term, Span),
    /// `(or L1 … Ln)`.
    Or(Vec<Literal>, Span),
    /// `(and L1 … Ln)`, not GDL but accepted (with a warning) inside `or`.
    And(Vec<Literal>, Span),
}

impl Literal {
    /// Where the literal was written.
    pub fn span(&self) -> Span {
        match self {
            Literal::Atom(atom) => atom.span,
            Literal::Not(_, span)
            | Literal::Distinct(_, _, span)
            | Literal::Or(_, span)
            | Literal::And(_, span) => *span,
        }
    }
}

/// A rule `(<= head body…)`; a fact is a rule with an empty body.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The head atom.
    pub head: Atom,
    /// The body literals (empty for a fact).
    pub body: Vec<Literal>,
    /// The whole sentence.
    pub span: Span,
}

/// A whole game description: its sentences in file order.
#[derive(Clone, Debug, Default)]
pub struct Description {
    /// Facts and rules in file order.
    pub rules: Vec<Rule>,
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Var(name) => write!(f, "?{}", name.text),
            Term::Const(name) => f.write_str(&name.text),
            Term::Func { name, args, .. } => {
                write!(f, "({}", name.text)?;
                for arg in args {
                    write!(f, " {arg}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.args.is_empty() {
            return f.write_str(&self.name.text);
        }
        write!(f, "({}", self.name.text)?;
        for arg in &self.args {
            write!(f, " {arg}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, head: &str, items: &[Literal]| {
            write!(f, "({head}")?;
            for item in items {
                write!(f, " {item}")?;
            }
            f.write_str(")")
        };
        match self {
            Literal::Atom(atom) => write!(f, "{atom}"),
            Literal::Not(inner, _) => write!(f, "(not {inner})"),
            Literal::Distinct(a, b, _) => write!(f, "(distinct {a} {b})"),
            Literal::Or(items, _) => list(f, "or", items),
            Literal::And(items, _) => list(f, "and", items),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.body.is_empty() {
            return write!(f, "{}", self.head);
        }
        write!(f, "(<= {}", self.head)?;
        for literal in &self.body {
            write!(f, " {literal}")?;
        }
        f.write_str(")")
    }
}

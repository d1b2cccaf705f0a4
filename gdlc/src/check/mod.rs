//! Validity checking: the restrictions of the GDL specification (Love et al.; Definition 2
//! of Haufe, Schiffel and Thielscher), each reported as a located diagnostic.
//!
//! The checker runs after parsing and normalisation succeeded. Checks about what was
//! written (keywords, arities, goal values) read the [`Description`]; checks about the
//! logic program (safety, stratification, recursion, keyword dependencies) read the
//! normalised rules, whose literals keep the spans of the source. Rules expanded from
//! one `or` share spans, so identical diagnostics are reported once. Diagnostics are
//! sorted by position (those without a position last), then by code.
//!
//! Policies, one per check:
//!
//! - [`Code::KeywordArity`] (error): `role`/1, `init`/1, `true`/1, `next`/1, `legal`/2,
//!   `does`/2, `goal`/2, `terminal`/0, `sees`/2 used with another arity, at each use.
//!   `base`/1 and `input`/2 were not keywords in old GDL: with another arity they are
//!   ordinary relations — a warning at the first use of each such arity.
//! - [`Code::KeywordPlacement`] (error): `true`/`does` in a head; `init`, `next`, `sees`,
//!   `base`, `input` in a body (also under `not`/`or`); a `role` rule with a body;
//!   `distinct`, `not`, `or`, `and` as the relation of a head.
//! - [`Code::KeywordDependency`] (error): `init` depends on `true`, `does`, `next`,
//!   `legal`, `goal`, `terminal` or `sees`; `legal`, `goal`, `terminal` depend on `does`;
//!   `base`, `input` depend on `true` or `does`. One error per pair, at the body literal of
//!   the keyword's own rule that starts the shortest chain; the chain is in a note. A
//!   `role` that depends on anything has a body, which is already a placement error.
//! - [`Code::Unsafe`] (error): a variable of the head, of a negated literal, of `distinct`
//!   or of an equality that occurs in no positive body literal, once per variable and
//!   normalised rule, at its first such occurrence (a fact with a variable is unsafe).
//! - [`Code::Unstratified`] (error): a negated literal whose relation is in the same
//!   strongly connected component as the head, at the literal, with the cycle. A
//!   warning with the same code at each negated literal that normalisation redirected
//!   to a relation split on constant arguments ([`crate::normalize::split`]): such
//!   rules are locally stratified, and valid.
//! - [`Code::Recursion`] (error): an argument of a positive body literal recursive with
//!   the head that is not ground, not syntactically equal to a head argument, and has a
//!   variable occurring in no positive body literal outside the head's component.
//! - [`Code::RelationArity`] (error): a relation name (not a keyword at its keyword arity)
//!   used with several arities, once per name, at the first use of a second arity.
//! - [`Code::FunctionArity`] (warning): a function symbol used with several arities
//!   (a constant counts as arity 0): `f`/n are distinct symbols for each n; once per name.
//!   A symbol used both as a relation and as a function or constant is fine: relations
//!   and terms are separate name spaces (`(cell 1 1 b)` and `(true (cell 1 1 b))`).
//! - [`Code::KeywordAsFunction`] (warning): a keyword (`does`, `true`, …, `distinct`,
//!   `not`, `or`) as a function symbol inside a term is an ordinary function symbol there;
//!   once per symbol, at its first use.
//! - [`Code::Missing`] (error, no position): no `role` fact, or no rule or fact for
//!   `legal`, `terminal` or `goal` (`init` is not required).
//! - [`Code::GoalValue`] (error): the value of a `goal` head that is a constant other than
//!   the integers `0` … `100` (written without leading zeros), or a compound term.

mod arity;
mod dependency;
mod keywords;
mod recursion;
mod safety;

use crate::diagnostic::{Code, Diagnostic, Span};
use crate::normalize::Rule;
use crate::normalize::deps::{Dependency, DependencyGraph};
use crate::syntax::ast::{self, Atom, Description, Term};

/// Checks a description and its normalised rules; returns errors and warnings, sorted by
/// position, then code.
pub fn check(description: &Description, rules: &[Rule]) -> Vec<Diagnostic> {
    let graph = DependencyGraph::build(rules);
    let mut diagnostics = Vec::new();
    keywords::check(description, &mut diagnostics);
    arity::check(description, &mut diagnostics);
    dependency::check(rules, &graph, &mut diagnostics);
    safety::check(rules, &mut diagnostics);
    recursion::check(rules, &graph, &mut diagnostics);
    sort_and_dedup(diagnostics)
}

/// The keyword relations with their arities.
const KEYWORDS: [(&str, usize); 11] = [
    ("role", 1),
    ("init", 1),
    ("true", 1),
    ("next", 1),
    ("legal", 2),
    ("does", 2),
    ("goal", 2),
    ("terminal", 0),
    ("sees", 2),
    ("base", 1),
    ("input", 2),
];

/// The arity of a keyword relation, or `None` for an ordinary name.
fn keyword_arity(name: &str) -> Option<usize> {
    KEYWORDS
        .iter()
        .find(|(keyword, _)| *keyword == name)
        .map(|&(_, arity)| arity)
}

/// Whether `name` is a keyword that was an ordinary relation in old GDL.
fn is_late_keyword(name: &str) -> bool {
    matches!(name, "base" | "input")
}

/// Whether `name`/`arity` is a keyword relation (at its keyword arity).
fn is_keyword(name: &str, arity: usize) -> bool {
    keyword_arity(name) == Some(arity)
}

/// Where an atom stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// The head of a rule or a fact.
    Head,
    /// A body literal (possibly under `not`, `or`, `and`).
    Body,
}

/// Calls `f` on every atom of the description, with its place and rule, in file order.
fn for_each_atom<'a>(
    description: &'a Description,
    f: &mut impl FnMut(&'a Atom, Place, &'a ast::Rule),
) {
    fn literal<'a>(
        l: &'a ast::Literal,
        rule: &'a ast::Rule,
        f: &mut impl FnMut(&'a Atom, Place, &'a ast::Rule),
    ) {
        match l {
            ast::Literal::Atom(atom) => f(atom, Place::Body, rule),
            ast::Literal::Not(inner, _) => literal(inner, rule, f),
            ast::Literal::Distinct(..) => {}
            ast::Literal::Or(items, _) | ast::Literal::And(items, _) => {
                items.iter().for_each(|item| literal(item, rule, f));
            }
        }
    }
    for rule in &description.rules {
        f(&rule.head, Place::Head, rule);
        rule.body.iter().for_each(|item| literal(item, rule, f));
    }
}

/// Calls `f` on every term of the description (arguments and their subterms, and the
/// terms of `distinct`), in file order.
fn for_each_term<'a>(description: &'a Description, f: &mut impl FnMut(&'a Term)) {
    fn term<'a>(t: &'a Term, f: &mut impl FnMut(&'a Term)) {
        f(t);
        if let Term::Func { args, .. } = t {
            args.iter().for_each(|arg| term(arg, f));
        }
    }
    fn literal<'a>(l: &'a ast::Literal, f: &mut impl FnMut(&'a Term)) {
        match l {
            ast::Literal::Atom(atom) => atom.args.iter().for_each(|arg| term(arg, f)),
            ast::Literal::Not(inner, _) => literal(inner, f),
            ast::Literal::Distinct(a, b, _) => {
                term(a, f);
                term(b, f);
            }
            ast::Literal::Or(items, _) | ast::Literal::And(items, _) => {
                items.iter().for_each(|item| literal(item, f));
            }
        }
    }
    for rule in &description.rules {
        rule.head.args.iter().for_each(|arg| term(arg, f));
        rule.body.iter().for_each(|item| literal(item, f));
    }
}

/// The dependencies of each relation (indexed like [`DependencyGraph::relations`]), in
/// rule order.
fn outgoing(graph: &DependencyGraph) -> Vec<Vec<&Dependency>> {
    let mut outgoing: Vec<Vec<&Dependency>> = vec![Vec::new(); graph.relations.len()];
    for dep in &graph.dependencies {
        if let Some(list) = outgoing.get_mut(dep.head) {
            list.push(dep);
        }
    }
    outgoing
}

/// "1 argument", "2 arguments".
fn arguments(n: usize) -> String {
    if n == 1 {
        "1 argument".to_owned()
    } else {
        format!("{n} arguments")
    }
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The sort key of a diagnostic: position (none last), then code.
fn position(diagnostic: &Diagnostic) -> (bool, usize, usize, Code) {
    let span = diagnostic.span.unwrap_or(Span::new(usize::MAX, usize::MAX));
    (
        diagnostic.span.is_none(),
        span.start,
        span.end,
        diagnostic.code,
    )
}

/// Sorts by position then code (then message, for determinism) and drops repeats.
fn sort_and_dedup(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.sort_by(|a, b| {
        position(a)
            .cmp(&position(b))
            .then_with(|| a.severity.cmp(&b.severity))
            .then_with(|| a.message.cmp(&b.message))
            .then_with(|| a.label.cmp(&b.label))
    });
    let mut out: Vec<Diagnostic> = Vec::with_capacity(diagnostics.len());
    for diagnostic in diagnostics {
        let key = position(&diagnostic);
        let repeated = out
            .iter()
            .rev()
            .take_while(|seen| position(seen) == key)
            .any(|seen| *seen == diagnostic);
        if !repeated {
            out.push(diagnostic);
        }
    }
    out
}

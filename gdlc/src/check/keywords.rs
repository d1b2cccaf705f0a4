//! Keyword arities and placement, keywords used as function symbols, missing keyword
//! relations and goal values: checks on the description as written.

use std::collections::BTreeMap;

use super::{
    Place, arguments, for_each_atom, for_each_term, is_keyword, is_late_keyword, keyword_arity,
};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::syntax::ast::{Description, Term};

pub(super) fn check(description: &Description, out: &mut Vec<Diagnostic>) {
    arities(description, out);
    placement(description, out);
    as_function(description, out);
    missing(description, out);
    goal_values(description, out);
}

/// Keyword relations with a wrong arity; `base`/`input` with another arity are ordinary.
fn arities(description: &Description, out: &mut Vec<Diagnostic>) {
    // First use of each (late keyword, other arity).
    let mut ordinary: BTreeMap<(&str, usize), Span> = BTreeMap::new();
    for_each_atom(description, &mut |atom, _, _| {
        let name = atom.name.text.as_str();
        let Some(expected) = keyword_arity(name) else {
            return;
        };
        if expected == atom.arity() {
            return;
        }
        if is_late_keyword(name) {
            let first = ordinary.entry((name, atom.arity())).or_insert(atom.span);
            *first = (*first).min(atom.span);
            return;
        }
        out.push(
            Diagnostic::error(
                Code::KeywordArity,
                format!("keyword `{name}` used with {}", arguments(atom.arity())),
            )
            .at(atom.span, format!("`{name}` takes {}", arguments(expected))),
        );
    });
    for ((name, arity), span) in ordinary {
        let expected = keyword_arity(name).unwrap_or_default();
        out.push(
            Diagnostic::warning(
                Code::KeywordArity,
                format!("`{name}` with {} is an ordinary relation", arguments(arity)),
            )
            .at(span, format!("not the keyword `{name}`/{expected}"))
            .with_note(format!(
                "`{name}` was not a keyword in old GDL; with {} it is read as an ordinary relation",
                arguments(arity)
            )),
        );
    }
}

/// Keywords where they may not stand.
fn placement(description: &Description, out: &mut Vec<Diagnostic>) {
    for_each_atom(description, &mut |atom, place, rule| {
        let name = atom.name.text.as_str();
        let keyword = is_keyword(name, atom.arity());
        let error = match place {
            Place::Head if keyword && matches!(name, "true" | "does") => {
                let given = if name == "true" {
                    "the current state"
                } else {
                    "the players' moves"
                };
                Diagnostic::error(
                    Code::KeywordPlacement,
                    format!("`{name}` in the head of a rule"),
                )
                .at(
                    atom.span,
                    format!("`{name}` is given by {given} and cannot be defined"),
                )
                .with_note(format!("`{name}` may only appear in rule bodies"))
            }
            Place::Head if keyword && name == "role" && !rule.body.is_empty() => {
                Diagnostic::error(Code::KeywordPlacement, "`role` defined by a rule")
                    .at(atom.span, "roles must be ground facts")
                    .with_note("list each role as a fact: `(role name)`")
            }
            Place::Head if matches!(name, "distinct" | "not" | "or" | "and") => Diagnostic::error(
                Code::KeywordPlacement,
                format!("`{name}` in the head of a rule"),
            )
            .at(
                atom.span,
                format!("`{name}` is a connective and cannot be defined"),
            )
            .with_note("rename the relation"),
            Place::Body
                if keyword && matches!(name, "init" | "next" | "sees" | "base" | "input") =>
            {
                let instead = match name {
                    "next" | "init" => "; to test the current state, use `(true …)`",
                    _ => "",
                };
                Diagnostic::error(
                    Code::KeywordPlacement,
                    format!("`{name}` in the body of a rule"),
                )
                .at(atom.span, format!("`{name}` may only appear in heads"))
                .with_note(format!(
                    "`{name}` is defined by rules but never queried{instead}"
                ))
            }
            _ => return,
        };
        out.push(error);
    });
}

/// Keywords used as function symbols: tolerated, one warning per symbol.
fn as_function(description: &Description, out: &mut Vec<Diagnostic>) {
    let mut uses: BTreeMap<&str, (Span, usize)> = BTreeMap::new();
    for_each_term(description, &mut |term| {
        if let Term::Func { name, .. } = term
            && (keyword_arity(&name.text).is_some()
                || matches!(name.text.as_str(), "distinct" | "not" | "or"))
        {
            let entry = uses.entry(name.text.as_str()).or_insert((name.span, 0));
            entry.0 = entry.0.min(name.span);
            entry.1 += 1;
        }
    });
    for (name, (span, count)) in uses {
        let mut warning = Diagnostic::warning(
            Code::KeywordAsFunction,
            format!("keyword `{name}` used as a function symbol"),
        )
        .at(span, "read as an ordinary function symbol here")
        .with_note(format!(
            "inside a term `{name}` has no special meaning; renaming it avoids confusion"
        ));
        if count > 1 {
            warning = warning.with_note(format!(
                "`{name}` is used as a function symbol {count} times"
            ));
        }
        out.push(warning);
    }
}

/// Required keyword relations without any rule or fact.
fn missing(description: &Description, out: &mut Vec<Diagnostic>) {
    let defined = |name: &str, arity: usize| {
        description
            .rules
            .iter()
            .any(|rule| rule.head.is(name, arity))
    };
    if !defined("role", 1) {
        out.push(
            Diagnostic::error(Code::Missing, "no `role` fact")
                .with_note("add a fact `(role name)` for each player"),
        );
    }
    for (name, arity, example) in [
        ("legal", 2, "(<= (legal ?role move) …)"),
        ("terminal", 0, "(<= terminal …)"),
        ("goal", 2, "(<= (goal ?role 100) …)"),
    ] {
        if !defined(name, arity) {
            out.push(
                Diagnostic::error(Code::Missing, format!("no rule defines `{name}`"))
                    .with_note(format!("every game needs `{name}`, e.g. `{example}`")),
            );
        }
    }
}

/// Goal heads whose value is a constant other than 0 … 100, or a compound term.
fn goal_values(description: &Description, out: &mut Vec<Diagnostic>) {
    for rule in &description.rules {
        if !rule.head.is("goal", 2) {
            continue;
        }
        let bad = match rule.head.args.get(1) {
            Some(Term::Const(name)) if gdlc_runtime::kif::goal_value(&name.text).is_none() => {
                Some((name.span, name.text.clone()))
            }
            Some(term @ Term::Func { .. }) => Some((term.span(), term.to_string())),
            _ => None,
        };
        if let Some((span, text)) = bad {
            out.push(
                Diagnostic::error(
                    Code::GoalValue,
                    format!("goal value `{text}` is not an integer from 0 to 100"),
                )
                .at(span, "not a goal value")
                .with_note("goal values are the integers 0 … 100, written without leading zeros"),
            );
        }
    }
}

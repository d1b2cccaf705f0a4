//! Consistent arities: of relations (an error) and of function symbols (a warning: each
//! name/arity pair is its own symbol).

use std::collections::BTreeMap;

use super::{and_list, arguments, for_each_atom, for_each_term, is_late_keyword, keyword_arity};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::syntax::ast::{Description, Term};

pub(super) fn check(description: &Description, out: &mut Vec<Diagnostic>) {
    relations(description, out);
    functions(description, out);
}

/// Uses of one name: for each arity, the first use.
type Uses<'a> = BTreeMap<&'a str, BTreeMap<usize, Span>>;

fn record<'a>(uses: &mut Uses<'a>, name: &'a str, arity: usize, span: Span) {
    let first = uses.entry(name).or_default().entry(arity).or_insert(span);
    *first = (*first).min(span);
}

/// The arities of one name, first-used first: the primary location is the first use of
/// the second arity, the secondary ones the first uses of the others.
fn report(
    code: Code,
    what: &str,
    name: &str,
    arities: &BTreeMap<usize, Span>,
    out: &mut Vec<Diagnostic>,
) {
    if arities.len() < 2 {
        return;
    }
    let mut by_position: Vec<(Span, usize)> = arities
        .iter()
        .map(|(&arity, &span)| (span, arity))
        .collect();
    by_position.sort_unstable();
    let Some(&(span, arity)) = by_position.get(1) else {
        return;
    };
    let list: Vec<String> = arities.keys().map(usize::to_string).collect();
    let message = format!("{what} `{name}` used with {} arguments", and_list(&list));
    let mut diagnostic = if code == Code::FunctionArity {
        let symbols: Vec<String> = arities.keys().map(|a| format!("`{name}`/{a}")).collect();
        Diagnostic::warning(code, message).with_note(format!(
            "read as distinct symbols, one per arity: {}",
            and_list(&symbols)
        ))
    } else {
        Diagnostic::error(code, message)
            .with_note("a relation has one arity; rename one of the uses")
    }
    .at(span, format!("`{name}` with {} here", arguments(arity)));
    for &(other, other_arity) in by_position.iter().filter(|&&(s, _)| s != span) {
        diagnostic =
            diagnostic.with_secondary(other, format!("`{name}` with {}", arguments(other_arity)));
    }
    out.push(diagnostic);
}

/// Relations used with several arities; keywords at their keyword arity are left out
/// (other arities of keywords are reported as keyword errors, except `base`/`input`).
fn relations(description: &Description, out: &mut Vec<Diagnostic>) {
    let mut uses = Uses::new();
    for_each_atom(description, &mut |atom, _, _| {
        let name = atom.name.text.as_str();
        match keyword_arity(name) {
            None => {}
            Some(arity) if is_late_keyword(name) && arity != atom.arity() => {}
            Some(_) => return,
        }
        record(&mut uses, name, atom.arity(), atom.span);
    });
    for (name, arities) in &uses {
        report(Code::RelationArity, "relation", name, arities, out);
    }
}

/// Function symbols (constants count as arity 0) used with several arities.
fn functions(description: &Description, out: &mut Vec<Diagnostic>) {
    let mut uses = Uses::new();
    for_each_term(description, &mut |term| match term {
        Term::Var(_) => {}
        Term::Const(name) => record(&mut uses, &name.text, 0, name.span),
        Term::Func { name, args, .. } => record(&mut uses, &name.text, args.len(), name.span),
    });
    for (name, arities) in &uses {
        report(Code::FunctionArity, "function symbol", name, arities, out);
    }
}

//! Safety: every variable of a rule occurs in a positive body literal.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{Code, Diagnostic, Span};
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::Name;

pub(super) fn check(rules: &[Rule], out: &mut Vec<Diagnostic>) {
    for rule in rules {
        let mut bound: BTreeSet<&str> = BTreeSet::new();
        for literal in &rule.body {
            if let Literal::Pos(atom) = literal {
                atom.for_each_var(&mut |var| {
                    bound.insert(var.text.as_str());
                });
            }
        }
        // The first unbound occurrence of each variable, and where it stands.
        let mut unbound: BTreeMap<&str, (Span, &str)> = BTreeMap::new();
        let mut occurrences: Vec<(&Name, &str)> = Vec::new();
        rule.head
            .for_each_var(&mut |var| occurrences.push((var, "in the head")));
        for literal in &rule.body {
            let place = match literal {
                Literal::Pos(_) => continue,
                Literal::Neg(_) => "in a negated literal",
                Literal::Distinct(..) => "in `distinct`",
                Literal::Equal(..) => "in an equality",
            };
            literal.for_each_var(&mut |var| occurrences.push((var, place)));
        }
        for (var, place) in occurrences {
            if bound.contains(var.text.as_str()) {
                continue;
            }
            let first = unbound
                .entry(var.text.as_str())
                .or_insert((var.span, place));
            if var.span < first.0 {
                *first = (var.span, place);
            }
        }
        for (name, (span, place)) in unbound {
            let fix = if rule.body.is_empty() {
                format!(
                    "a fact cannot contain variables; \
                     give `?{name}` a value or add a body that binds it"
                )
            } else {
                format!(
                    "add a positive literal that binds `?{name}` \
                     (`not` and `distinct` do not bind variables)"
                )
            };
            out.push(
                Diagnostic::error(Code::Unsafe, format!("unsafe variable `?{name}` {place}"))
                    .at(span, "occurs in no positive body literal")
                    .with_note(fix),
            );
        }
    }
}

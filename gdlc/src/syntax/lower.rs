//! Lowering: s-expressions → GDL sentences, literals and terms.
//!
//! Repairs with one unambiguous reading are made here and reported as warnings; every
//! other structural problem is an error located at the offending expression.

use super::ast::{Atom, Description, Literal, Name, Rule, Term};
use super::{Parsed, SExpr};
use crate::diagnostic::{Code, Diagnostic, Span};

pub(super) fn lower(sexprs: &[SExpr]) -> Parsed {
    let mut lowerer = Lowerer {
        diagnostics: Vec::new(),
    };
    let rules = sexprs
        .iter()
        .filter_map(|sexpr| lowerer.sentence(sexpr))
        .collect();
    Parsed {
        description: Description { rules },
        diagnostics: lowerer.diagnostics,
    }
}

struct Lowerer {
    diagnostics: Vec<Diagnostic>,
}

fn name(text: &str, span: Span) -> Name {
    Name {
        text: text.to_ascii_lowercase(),
        span,
    }
}

impl Lowerer {
    fn error(&mut self, span: Span, message: impl Into<String>, label: &str) {
        self.diagnostics
            .push(Diagnostic::error(Code::Structure, message).at(span, label));
    }

    fn sentence(&mut self, sexpr: &SExpr) -> Option<Rule> {
        if let SExpr::List(items, span) = sexpr
            && let Some(SExpr::Symbol(head, _)) = items.first()
            && head == "<="
        {
            let Some(head_sexpr) = items.get(1) else {
                self.error(*span, "a rule needs a head", "`<=` with nothing after it");
                return None;
            };
            let head = self.atom(head_sexpr)?;
            let body: Vec<Literal> = items[2..]
                .iter()
                .filter_map(|item| self.literal(item))
                .collect();
            if body.len() != items.len() - 2 {
                return None;
            }
            if body.is_empty() {
                self.diagnostics.push(
                    Diagnostic::warning(Code::EmptyBody, "rule with an empty body")
                        .at(*span, "read as the fact")
                        .with_note(format!("write `{head}` instead")),
                );
            }
            return Some(Rule {
                head,
                body,
                span: *span,
            });
        }
        let head = self.atom(sexpr)?;
        Some(Rule {
            span: head.span,
            head,
            body: Vec::new(),
        })
    }

    fn atom(&mut self, sexpr: &SExpr) -> Option<Atom> {
        match sexpr {
            SExpr::Symbol(text, span) => Some(Atom {
                name: name(text, *span),
                args: Vec::new(),
                span: *span,
            }),
            SExpr::Variable(_, span) => {
                self.error(
                    *span,
                    "a variable cannot stand for a sentence",
                    "expected an atom",
                );
                None
            }
            SExpr::List(items, span) => {
                let relation = match items.first() {
                    None => {
                        self.error(
                            *span,
                            "an empty list is not an atom",
                            "expected `(relation …)`",
                        );
                        return None;
                    }
                    Some(SExpr::Symbol(text, name_span)) => name(text, *name_span),
                    Some(other) => {
                        self.error(other.span(), "expected a relation name", "not a symbol");
                        return None;
                    }
                };
                if items.len() == 1 {
                    self.parenthesised(*span, &relation.text, "proposition");
                }
                let args: Vec<Term> = items[1..]
                    .iter()
                    .filter_map(|item| self.term(item))
                    .collect();
                (args.len() == items.len() - 1).then_some(Atom {
                    name: relation,
                    args,
                    span: *span,
                })
            }
        }
    }

    fn parenthesised(&mut self, span: Span, text: &str, what: &str) {
        self.diagnostics.push(
            Diagnostic::warning(
                Code::ParenthesisedConstant,
                format!("`({text})` written for the {what} `{text}`"),
            )
            .at(span, format!("read as `{text}`")),
        );
    }

    fn literal(&mut self, sexpr: &SExpr) -> Option<Literal> {
        let SExpr::List(items, span) = sexpr else {
            return self.atom(sexpr).map(Literal::Atom);
        };
        let keyword = match items.first() {
            Some(SExpr::Symbol(text, _)) => text.to_ascii_lowercase(),
            _ => return self.atom(sexpr).map(Literal::Atom),
        };
        let args = &items[1..];
        match keyword.as_str() {
            "not" => {
                if args.len() != 1 {
                    self.error(
                        *span,
                        format!("`not` takes one literal, found {}", args.len()),
                        "here",
                    );
                    return None;
                }
                let inner = self.literal(&args[0])?;
                if let Literal::Distinct(a, b, _) = &inner {
                    self.diagnostics.push(
                        Diagnostic::warning(
                            Code::NegatedDistinct,
                            "`(not (distinct …))` in a body",
                        )
                        .at(*span, format!("read as the equality of `{a}` and `{b}`")),
                    );
                }
                Some(Literal::Not(Box::new(inner), *span))
            }
            "or" | "and" => {
                if args.is_empty() {
                    self.error(
                        *span,
                        format!("`{keyword}` needs at least one literal"),
                        "empty",
                    );
                    return None;
                }
                let literals: Vec<Literal> =
                    args.iter().filter_map(|arg| self.literal(arg)).collect();
                if literals.len() != args.len() {
                    return None;
                }
                if keyword == "or" {
                    Some(Literal::Or(literals, *span))
                } else {
                    self.diagnostics.push(
                        Diagnostic::warning(Code::AndConnective, "`and` is not part of GDL")
                            .at(*span, "read as the conjunction of its literals"),
                    );
                    Some(Literal::And(literals, *span))
                }
            }
            "distinct" => {
                if args.len() != 2 {
                    self.error(
                        *span,
                        format!("`distinct` takes two terms, found {}", args.len()),
                        "here",
                    );
                    return None;
                }
                let a = self.term(&args[0])?;
                let b = self.term(&args[1])?;
                Some(Literal::Distinct(a, b, *span))
            }
            _ => self.atom(sexpr).map(Literal::Atom),
        }
    }

    fn term(&mut self, sexpr: &SExpr) -> Option<Term> {
        match sexpr {
            SExpr::Symbol(text, span) => Some(Term::Const(name(text, *span))),
            SExpr::Variable(text, span) => Some(Term::Var(name(&text[1..], *span))),
            SExpr::List(items, span) => {
                let function = match items.first() {
                    None => {
                        self.error(
                            *span,
                            "an empty list is not a term",
                            "expected `(function …)`",
                        );
                        return None;
                    }
                    Some(SExpr::Symbol(text, name_span)) => name(text, *name_span),
                    Some(other) => {
                        self.error(other.span(), "expected a function symbol", "not a symbol");
                        return None;
                    }
                };
                if items.len() == 1 {
                    self.parenthesised(*span, &function.text, "constant");
                    return Some(Term::Const(Name {
                        text: function.text,
                        span: *span,
                    }));
                }
                let args: Vec<Term> = items[1..]
                    .iter()
                    .filter_map(|item| self.term(item))
                    .collect();
                (args.len() == items.len() - 1).then_some(Term::Func {
                    name: function,
                    args,
                    span: *span,
                })
            }
        }
    }
}

//! Syntax: KIF text → [`ast::Description`], with located diagnostics.
//!
//! Two steps: the pest grammar (`kif.pest`) reads s-expressions, and `lower` gives
//! them GDL structure (sentences, literals, terms). Defects with one unambiguous repair
//! — a rule with an empty body, `(p)` for `p`, `and` in a body, `(not (distinct …))` —
//! are repaired here and reported as warnings.

pub mod ast;
mod lower;

use pest::Parser as _;

use crate::diagnostic::{Code, Diagnostic, SourceFile, Span};

/// The deepest list nesting accepted; deeper input is rejected before parsing so that
/// no recursive step can exhaust the stack.
pub const MAX_NESTING: usize = 256;

/// The result of parsing: the description (partial if there were errors) and the
/// diagnostics found, in file order.
#[derive(Debug)]
pub struct Parsed {
    /// The sentences that could be read.
    pub description: ast::Description,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// An s-expression: what the grammar reads before it is given GDL meaning.
#[derive(Clone, Debug)]
pub(crate) enum SExpr {
    /// A symbol as written (not yet lowercased).
    Symbol(String, Span),
    /// A variable as written, with its `?`.
    Variable(String, Span),
    /// A parenthesised list.
    List(Vec<SExpr>, Span),
}

impl SExpr {
    pub(crate) fn span(&self) -> Span {
        match self {
            SExpr::Symbol(_, span) | SExpr::Variable(_, span) | SExpr::List(_, span) => *span,
        }
    }
}

mod grammar {
    //! The pest parser generated from `kif.pest`.
    #![allow(missing_docs)]
    #[derive(pest_derive::Parser)]
    #[grammar = "syntax/kif.pest"]
    pub(super) struct KifParser;
}
use grammar::{KifParser, Rule};

/// Parses a whole game description.
pub fn parse(file: &SourceFile) -> Parsed {
    match read_sexprs(&file.text) {
        Ok(sexprs) => lower::lower(&sexprs),
        Err(diagnostic) => Parsed {
            description: ast::Description::default(),
            diagnostics: vec![diagnostic],
        },
    }
}

/// Splits a text into its top-level ground terms (e.g. the moves of a joint move), each
/// with its text and span; variables are rejected.
pub fn split_terms(text: &str) -> Result<Vec<(String, Span)>, Diagnostic> {
    let sexprs = read_sexprs(text)?;
    let mut terms = Vec::with_capacity(sexprs.len());
    for sexpr in sexprs {
        let span = sexpr.span();
        if let Some(var) = find_variable(&sexpr) {
            return Err(
                Diagnostic::error(Code::Move, "a move cannot contain a variable")
                    .at(var, "variable"),
            );
        }
        terms.push((text[span.start..span.end].to_owned(), span));
    }
    Ok(terms)
}

fn find_variable(sexpr: &SExpr) -> Option<Span> {
    match sexpr {
        SExpr::Variable(_, span) => Some(*span),
        SExpr::Symbol(..) => None,
        SExpr::List(items, _) => items.iter().find_map(find_variable),
    }
}

/// Reads the s-expressions of a text, or the first syntax error.
pub(crate) fn read_sexprs(text: &str) -> Result<Vec<SExpr>, Diagnostic> {
    check_parentheses(text)?;
    let mut pairs = KifParser::parse(Rule::file, text).map_err(|err| pest_error(text, &err))?;
    let file = pairs
        .next()
        .map(|pair| pair.into_inner())
        .into_iter()
        .flatten();
    Ok(file
        .filter(|pair| pair.as_rule() != Rule::EOI)
        .map(to_sexpr)
        .collect())
}

fn to_sexpr(pair: pest::iterators::Pair<'_, Rule>) -> SExpr {
    let span = Span::new(pair.as_span().start(), pair.as_span().end());
    match pair.as_rule() {
        Rule::variable => SExpr::Variable(pair.as_str().to_owned(), span),
        Rule::list => SExpr::List(pair.into_inner().map(to_sexpr).collect(), span),
        _ => SExpr::Symbol(pair.as_str().to_owned(), span),
    }
}

/// Finds unbalanced parentheses and excessive nesting, skipping comments, so that the
/// common syntax errors get a precise message and the parser never recurses deeply.
fn check_parentheses(text: &str) -> Result<(), Diagnostic> {
    let mut open: Vec<usize> = Vec::new();
    let mut in_comment = false;
    for (at, byte) in text.bytes().enumerate() {
        match byte {
            b'\n' | b'\r' => in_comment = false,
            _ if in_comment => {}
            b';' => in_comment = true,
            b'(' => {
                open.push(at);
                if open.len() > MAX_NESTING {
                    return Err(Diagnostic::error(
                        Code::Syntax,
                        format!("lists are nested more than {MAX_NESTING} deep"),
                    )
                    .at(Span::new(at, at + 1), "too deep"));
                }
            }
            b')' if open.pop().is_none() => {
                return Err(Diagnostic::error(Code::Syntax, "unmatched `)`")
                    .at(Span::new(at, at + 1), "no `(` before this"));
            }
            _ => {}
        }
    }
    match open.pop() {
        Some(at) => Err(Diagnostic::error(Code::Syntax, "unclosed `(`")
            .at(Span::new(at, at + 1), "this `(` is never closed")),
        None => Ok(()),
    }
}

fn pest_error(text: &str, err: &pest::error::Error<Rule>) -> Diagnostic {
    let (start, end) = match err.location {
        pest::error::InputLocation::Pos(pos) => (pos, pos),
        pest::error::InputLocation::Span(span) => span,
    };
    let end = if end > start {
        end
    } else {
        text[start..]
            .chars()
            .next()
            .map_or(start, |c| start + c.len_utf8())
    };
    let found = text[start..end].to_owned();
    let message = match found.as_str() {
        "?" => "a variable needs a name after `?`".to_owned(),
        "\"" => "strings are not part of GDL".to_owned(),
        "" => "unexpected end of file".to_owned(),
        other => format!("unexpected `{other}`"),
    };
    Diagnostic::error(Code::Syntax, message).at(Span::new(start, end), "here")
}

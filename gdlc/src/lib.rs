//! gdlc: a compiler from GDL game rules (KIF) to fast Rust reasoners, with a reference
//! interpreter.
//!
//! The pipeline, one module per phase:
//! [`syntax`] (KIF → AST) → [`check`] (validity, located diagnostics) →
//! [`normalize`] (or-expansion, literal order, duplicates) → [`analysis`] (domains,
//! flattening, layers: the [`ir`]) → [`plan`] (filter trees, evaluation modes, storage)
//! → [`exec`] (the plan executor) and [`emit`] (backends: Prolog, temporal ASP, which
//! [`prove`] solves with an embedded clingo — cargo feature `prove`, on by default — to
//! prove invariants). [`interp`] is the reference interpreter every reasoner is checked
//! against; [`front_end`] runs the front end on one file.
//!
//! To compile a game: [`compile_rust`] (one file to the Rust source of its reasoner)
//! and, from a build script, [`Builder`]; [`game_crate`] writes a whole reasoner crate
//! with a runner (`gdlc compile`). [`differential`] checks a compiled reasoner
//! against the interpreter (the driver of `cargo xtask verify`).

pub mod analysis;
pub mod builder;
pub mod check;
pub mod compile;
pub mod diagnostic;
pub mod differential;
pub mod emit;
pub mod exec;
pub mod explain;
pub mod game_crate;
pub mod ground;
pub mod interp;
pub mod ir;
pub mod normalize;
pub mod plan;
pub mod planner;
pub mod prove;
pub mod scramble;
pub mod syntax;

pub use builder::Builder;
pub use compile::{Backend, compile_rust};
pub use diagnostic::{Diagnostic, Severity, SourceFile, Span};

/// The front end's result for one file: the description, its normalised rules and every
/// diagnostic (parse, normalisation and check), in that order.
#[derive(Debug)]
pub struct FrontEnd {
    /// The parsed description (partial if parsing failed).
    pub description: syntax::ast::Description,
    /// The normalised rules (empty if parsing or normalisation failed).
    pub rules: Vec<normalize::Rule>,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl FrontEnd {
    /// Whether the description is valid GDL (no error diagnostics).
    pub fn is_valid(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses, normalises and checks one source file.
pub fn front_end(file: &SourceFile) -> FrontEnd {
    let parsed = syntax::parse(file);
    let mut diagnostics = parsed.diagnostics;
    let description = parsed.description;
    let mut rules = Vec::new();
    if !diagnostics.iter().any(Diagnostic::is_error) {
        match normalize::normalize(&description) {
            Ok(normal) => {
                diagnostics.extend(check::check(&description, &normal));
                rules = normal;
            }
            Err(diagnostic) => diagnostics.push(diagnostic),
        }
    }
    // One order for everything: by position, located ones first, errors before
    // warnings at the same place.
    diagnostics.sort_by_key(|d| {
        (
            d.span.is_none(),
            d.span.map(|s| (s.start, s.end)),
            std::cmp::Reverse(d.severity),
        )
    });
    FrontEnd {
        description,
        rules,
        diagnostics,
    }
}

//! Validity checking (being written).
use crate::diagnostic::Diagnostic;
use crate::normalize::Rule;
use crate::syntax::ast::Description;

/// Checks a description and its normalised rules; returns errors and warnings.
pub fn check(_description: &Description, _rules: &[Rule]) -> Vec<Diagnostic> {
    Vec::new()
}

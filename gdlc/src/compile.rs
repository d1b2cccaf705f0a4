//! The whole compiler as one call: KIF source to the Rust source of a reasoner.
//!
//! [`compile_rust`] runs [`front_end`](crate::front_end) (parse, normalise, check),
//! [`analysis::analyze`](crate::analysis::analyze), [`planner::plan`](crate::planner::plan)
//! and [`emit::rust::lib_rs`](crate::emit::rust::lib_rs). Its output is usable as a
//! crate's `src/lib.rs` (with [`emit::rust::cargo_toml`](crate::emit::rust::cargo_toml))
//! and through `include!` (see [`Builder`](crate::Builder)). Failures are the located
//! diagnostics; render them with [`Diagnostic::render`] against the same
//! [`SourceFile`].

use crate::{Diagnostic, FrontEnd, SourceFile};

/// Compiles one game to the Rust source of its reasoner. The header of the generated
/// code names the file as `file.name`.
///
/// `Err` holds the front end's errors when the game is not valid GDL (warnings are not
/// reported here: run [`front_end`](crate::front_end) to see them), otherwise the one
/// diagnostic of the analysis, the planner or the Rust backend that stopped it.
pub fn compile_rust(file: &SourceFile) -> Result<String, Vec<Diagnostic>> {
    let front = crate::front_end(file);
    if !front.is_valid() {
        return Err(front
            .diagnostics
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect());
    }
    rust_from_front_end(&front, &file.name).map_err(|diagnostic| vec![diagnostic])
}

/// The back half of [`compile_rust`], for callers that ran the front end themselves:
/// analysis, plan and Rust code of a valid game. `source` names the KIF file in the
/// header of the generated code. The backend is chosen automatically
/// ([`Backend::Auto`]).
pub fn rust_from_front_end(front: &FrontEnd, source: &str) -> Result<String, Diagnostic> {
    rust_with_backend(front, source, Backend::Auto)
}

/// Which Rust backend compiles a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// The ground backend when the game grounds within
    /// [`ground::LIMITS`](crate::ground::LIMITS) and its code fits the default budget,
    /// or the budget measured against the join backend's work
    /// ([`ground_and_emit_auto`](crate::emit::ground::ground_and_emit_auto)); else the
    /// join backend.
    #[default]
    Auto,
    /// The ground backend ([`crate::emit::ground`]), or an error saying why not.
    Ground,
    /// The join backend ([`crate::emit::rust`]): the plan's filter trees as loops.
    Join,
    /// The ground backend on the projected grounding even where the plain one fits, or
    /// an error saying why not: for checking the projected path on every game that
    /// projects (`cargo xtask verify --backend projected`); [`Backend::Auto`] uses it
    /// only where the plain grounding does not fit.
    GroundProjected,
}

/// [`rust_from_front_end`] with a chosen backend.
pub fn rust_with_backend(
    front: &FrontEnd,
    source: &str,
    backend: Backend,
) -> Result<String, Diagnostic> {
    let ir = crate::analysis::analyze(front)?;
    let (plan, statics) =
        crate::planner::plan_seeded(&ir, &crate::planner::PlanOptions::default(), None)?;
    if backend == Backend::GroundProjected {
        return crate::emit::ground::ground_projected_and_emit(&ir, &plan, source).map_err(
            |reason| {
                crate::emit::ground::backend_error(format!(
                    "the ground backend cannot compile this game projected: {reason}"
                ))
            },
        );
    }
    let mut tuned = None;
    if backend != Backend::Join {
        let (grounded, join_plan) =
            crate::emit::ground::ground_and_emit_auto(&ir, &plan, source, || {
                crate::planner::tune(&ir, plan.clone(), &statics)
            });
        tuned = join_plan;
        match (grounded.and_then(|grounded| grounded.module), backend) {
            (Ok(code), _) => return Ok(code),
            (Err(reason), Backend::Ground) => {
                return Err(crate::emit::ground::backend_error(format!(
                    "the ground backend cannot compile this game: {reason}"
                )));
            }
            (Err(_), _) => {}
        }
    }
    let plan = tuned.unwrap_or_else(|| crate::planner::tune(&ir, plan, &statics));
    crate::emit::rust::lib_rs(&ir, &plan, source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    #[test]
    fn valid_games_compile_to_a_reasoner_module() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../games/nim.kif");
        let file = SourceFile::read(std::path::Path::new(path)).expect("team game");
        let code = compile_rust(&file).expect("nim compiles");
        for item in ["pub struct Rules", "pub type Reasoner", "pub fn new()"] {
            assert!(code.contains(item), "no `{item}` in\n{code}");
        }
        assert_eq!(
            compile_rust(&file),
            Ok(code),
            "the same game gives the same code"
        );
    }

    #[test]
    fn invalid_games_give_their_located_errors() {
        let file = SourceFile::new("bad.kif", "(role x)\n(<= (p ?x) (not (q ?x)))\n");
        let errors = compile_rust(&file).expect_err("the game is invalid");
        assert!(!errors.is_empty());
        assert!(errors.iter().all(Diagnostic::is_error));
        assert!(
            errors
                .iter()
                .any(|d| d.code == Code::Unsafe && d.span.is_some())
        );
        assert!(errors[0].render(&file).contains("bad.kif:"));
    }

    #[test]
    fn unreadable_kif_is_a_syntax_error() {
        let file = SourceFile::new("broken.kif", "(role x");
        let errors = compile_rust(&file).expect_err("unbalanced");
        assert_eq!(errors[0].code, Code::Syntax);
    }
}

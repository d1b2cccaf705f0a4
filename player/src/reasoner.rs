//! Which reasoner plays a game: a compiled one built into the binary when the rules are
//! one of its games, else gdlc's plan executor, else the reference interpreter.
//!
//! Rules are matched by a fingerprint of their normalised form (each normalised rule's
//! text, sorted), so white space, comments, case and the order of the rules do not
//! matter. The built-in games are the team's (`games/*.kif`), compiled by `build.rs`
//! with `gdlc::Builder`.
//!
//! A reasoner's type differs from game to game, so callers pass a [`Visitor`] whose
//! generic method receives whichever reasoner was chosen.

use std::collections::hash_map::DefaultHasher;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use gdlc::{Diagnostic, FrontEnd, SourceFile};
use gdlc_runtime::game::Game;

/// The compiled games (`build.rs` writes `$OUT_DIR/<stem>.rs`).
pub mod builtin {
    /// Tictactoe, from `games/tictactoe.kif`.
    pub mod tictactoe {
        include!(concat!(env!("OUT_DIR"), "/tictactoe.rs"));
    }
    /// Connect four, from `games/connectfour.kif`.
    pub mod connectfour {
        include!(concat!(env!("OUT_DIR"), "/connectfour.rs"));
    }
    /// Breakthrough, from `games/breakthrough.kif`.
    pub mod breakthrough {
        include!(concat!(env!("OUT_DIR"), "/breakthrough.rs"));
    }
    /// Chess, from `games/chess.kif`.
    pub mod chess {
        include!(concat!(env!("OUT_DIR"), "/chess.rs"));
    }
}

/// The rules of the built-in games, by name.
const BUILTIN_RULES: [(&str, &str); 4] = [
    ("tictactoe", include_str!("../../games/tictactoe.kif")),
    ("connectfour", include_str!("../../games/connectfour.kif")),
    ("breakthrough", include_str!("../../games/breakthrough.kif")),
    ("chess", include_str!("../../games/chess.kif")),
];

/// The kind of reasoner a game is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasonerKind {
    /// Compiled into this binary (the built-in game's name).
    Compiled(&'static str),
    /// gdlc's plan executor, planned when the rules arrived.
    PlanExecutor,
    /// gdlc's reference interpreter (when no plan could be made).
    Interpreter,
}

impl fmt::Display for ReasonerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReasonerKind::Compiled(name) => write!(f, "the compiled reasoner of built-in `{name}`"),
            ReasonerKind::PlanExecutor => f.write_str("gdlc's plan executor"),
            ReasonerKind::Interpreter => f.write_str("gdlc's reference interpreter"),
        }
    }
}

/// Receives the reasoner chosen for a game.
pub trait Visitor {
    /// What the visit gives back.
    type Output;
    /// Called once with the reasoner and its kind.
    fn visit<G>(self, kind: ReasonerKind, game: G) -> Self::Output
    where
        G: Game + Clone + Send,
        G::Move: Send;
}

/// Valid rules, read and checked.
pub struct Rules {
    file: SourceFile,
    front: FrontEnd,
    fingerprint: u64,
}

impl Rules {
    /// Reads rules from KIF text; fails with gdlc's rendered diagnostics when they are
    /// not valid GDL.
    pub fn parse(name: &str, text: &str) -> Result<Rules, String> {
        let file = SourceFile::new(name, text);
        let front = gdlc::front_end(&file);
        if !front.is_valid() {
            let errors: Vec<String> = front
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.render(&file))
                .collect();
            return Err(format!("{name} is not valid GDL:\n{}", errors.join("")));
        }
        let fingerprint = fingerprint(&front);
        Ok(Rules {
            file,
            front,
            fingerprint,
        })
    }

    /// The rules' text, as received.
    pub fn text(&self) -> &str {
        &self.file.text
    }

    /// A hash of the normalised rules (what built-in games are matched by).
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The name of the built-in game these rules are, if any.
    pub fn builtin(&self) -> Option<&'static str> {
        builtin_fingerprints()
            .iter()
            .find(|(_, print)| *print == self.fingerprint)
            .map(|(name, _)| *name)
    }

    /// The reasoner kind [`Rules::with_reasoner`] will choose, without building it
    /// (a plan that cannot be made shows only when building).
    pub fn preferred(&self) -> ReasonerKind {
        self.builtin()
            .map_or(ReasonerKind::PlanExecutor, ReasonerKind::Compiled)
    }

    /// Builds the best reasoner for these rules and hands it to `visitor`.
    pub fn with_reasoner<V: Visitor>(&self, visitor: V) -> Result<V::Output, String> {
        use builtin::*;
        match self.builtin() {
            Some("tictactoe") => return Ok(visitor.visit(self.preferred(), tictactoe::new())),
            Some("connectfour") => {
                return Ok(visitor.visit(self.preferred(), connectfour::new()));
            }
            Some("breakthrough") => {
                return Ok(visitor.visit(self.preferred(), breakthrough::new()));
            }
            Some("chess") => return Ok(visitor.visit(self.preferred(), chess::new())),
            _ => {}
        }
        let render = |d: Diagnostic| d.render(&self.file);
        let planned = gdlc::analysis::analyze(&self.front)
            .map_err(render)
            .and_then(|ir| {
                gdlc::planner::tuned(&ir)
                    .map_err(render)
                    .map(|plan| (ir, plan))
            });
        match planned {
            Ok((ir, plan)) => {
                let executor = gdlc::exec::Executor::new(&ir, &plan);
                Ok(visitor.visit(ReasonerKind::PlanExecutor, executor))
            }
            Err(_) => {
                let interpreter = gdlc::interp::Interpreter::new(&self.front).map_err(render)?;
                Ok(visitor.visit(ReasonerKind::Interpreter, interpreter))
            }
        }
    }
}

/// The built-in games' fingerprints, computed once.
fn builtin_fingerprints() -> &'static [(&'static str, u64)] {
    static PRINTS: OnceLock<Vec<(&'static str, u64)>> = OnceLock::new();
    PRINTS.get_or_init(|| {
        BUILTIN_RULES
            .iter()
            .filter_map(|(name, text)| {
                let front = gdlc::front_end(&SourceFile::new(*name, *text));
                front.is_valid().then(|| (*name, fingerprint(&front)))
            })
            .collect()
    })
}

/// A hash of the normalised rules, independent of their order and layout.
fn fingerprint(front: &FrontEnd) -> u64 {
    let mut rules: Vec<String> = front.rules.iter().map(ToString::to_string).collect();
    rules.sort_unstable();
    rules.dedup();
    let mut hasher = DefaultHasher::new();
    rules.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_rules_are_recognised_whatever_their_layout() {
        // Upper case, a comment and the first rule moved to the end.
        let text = BUILTIN_RULES[0].1;
        let first = text.find("(role").expect("a role fact");
        let end = first + text[first..].find(')').expect("closed") + 1;
        let moved = format!(
            "; a comment\n{}\n{}\n",
            format!("{}{}", &text[..first], &text[end..]).to_uppercase(),
            &text[first..end]
        );
        let rules = Rules::parse("moved", &moved).expect("valid");
        assert_eq!(rules.builtin(), Some("tictactoe"));
    }

    #[test]
    fn other_rules_are_not_built_in() {
        let text = BUILTIN_RULES[0]
            .1
            .replace("(<= (goal ?player 50)", "(<= (goal ?player 40)");
        let rules = Rules::parse("changed", &text).expect("valid");
        assert_eq!(rules.builtin(), None);
        assert_eq!(rules.preferred(), ReasonerKind::PlanExecutor);
    }
}

//! The interpreter's compiled program: rules as argument patterns and body steps, and
//! what is known of each relation before evaluation (arity, phase, how its matches are
//! estimated). Built once per game (`mod.rs`), read by the evaluator (`eval.rs`) and by
//! the body orderer (`order.rs`).

use super::relation::ColumnMask;
use super::terms::{Sym, TermId};

/// An argument pattern.
#[derive(Clone, Debug)]
pub enum Pat {
    /// A variable slot.
    Var(u16),
    /// A ground term.
    Term(TermId),
    /// A compound term with variables.
    App(Sym, Box<[Pat]>),
}

impl Pat {
    pub(super) fn for_each_var(&self, f: &mut impl FnMut(u16)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::Term(_) => {}
            Pat::App(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// One body literal, compiled.
#[derive(Clone, Debug)]
pub enum Step {
    /// A positive atom: the tuples agreeing on the columns bound when it is reached,
    /// the other columns matched against `pats`.
    Scan {
        /// The relation.
        rel: usize,
        /// One pattern per column.
        pats: Box<[Pat]>,
    },
    /// A negated atom (all its variables are bound by then).
    Absent {
        /// The relation.
        rel: usize,
        /// One pattern per column.
        pats: Box<[Pat]>,
    },
    /// The two terms differ.
    Distinct(Pat, Pat),
    /// The two terms are equal.
    Equal(Pat, Pat),
}

/// A compiled rule.
#[derive(Clone, Debug)]
pub struct CompiledRule {
    /// The head's argument patterns.
    pub head: Box<[Pat]>,
    /// The body, in evaluation order.
    pub steps: Vec<Step>,
    /// Number of variable slots.
    pub num_vars: usize,
}

/// The columns of `pats` whose variables are all in `bound`.
pub(super) fn bound_mask(pats: &[Pat], bound: &[bool]) -> ColumnMask {
    let mut mask = 0;
    for (i, pat) in pats.iter().enumerate().take(64) {
        let mut ready = true;
        pat.for_each_var(&mut |v| ready &= bound[v as usize]);
        if ready {
            mask |= 1 << i;
        }
    }
    mask
}

/// How a relation is evaluated, and when its results are forgotten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Depends on neither `true` nor `does`: kept for the interpreter's lifetime.
    Static,
    /// Depends on `true` but not `does`: forgotten when the state changes.
    State,
    /// Depends on `does`: forgotten when the state or the joint move changes.
    Move,
}

/// What is known about a relation at compile time.
#[derive(Clone, Debug)]
pub struct RelationInfo {
    /// Number of columns.
    pub arity: usize,
    /// When its results are forgotten.
    pub phase: Phase,
    /// Whether it is stored rather than derived (`true`, `does`).
    pub stored: bool,
    /// The rules with this head relation.
    pub rules: Vec<usize>,
    /// Whether its whole extension is made of terms written in the rules, all found
    /// by a call with no bound column: each of its rules, and of the rules of the
    /// relations they call, binds every head variable in a positive body literal and
    /// builds no compound term in its head (`(<= (islist (list ?x ?l)) (e ?x) (islist
    /// ?l))` does, and has a huge extension).
    pub groundable: bool,
    /// What its matches are estimated from when bodies are ordered (`order.rs`).
    pub sample: Sample,
}

/// The compiled program: rules and relation facts, immutable after construction.
#[derive(Clone, Debug)]
pub struct Program {
    /// All rules.
    pub rules: Vec<CompiledRule>,
    /// Per relation.
    pub relations: Vec<RelationInfo>,
    /// The head relation of each rule.
    pub head_of: Vec<usize>,
    /// The strongly connected component of each relation in the dependency graph.
    pub component_of: Vec<usize>,
}

impl Program {
    /// Whether two relations are in one strongly connected component.
    pub fn same_component(&self, a: usize, b: usize) -> bool {
        self.component_of[a] == self.component_of[b]
    }
}

/// What a relation's matches are estimated from.
#[derive(Clone, Debug, Default)]
pub enum Sample {
    /// Derived by rules: guessed (see the module docs).
    #[default]
    Derived,
    /// Ground tuples that stand for the relation's extension.
    Tuples(Vec<Box<[TermId]>>),
    /// `does`: one tuple per role once the role is known.
    Moves(usize),
}

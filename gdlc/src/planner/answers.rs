//! The expected number of answers of a demand call, from the relation's rules rather
//! than from its columns' domains (see [`Planner::call_answers`]).
//!
//! The domain product of a call's unknown columns says nothing of how the rules
//! produce them. laiklee_hex appends a cell to a path list, `(append_el ?id ?list
//! ?list2)`: with the cell and the list known there is one answer, but the domain
//! product of the fifty flattened columns of `?list2` is 10^42, the same as that of
//! the recursive `connection2` call enumerating every list. Both orders of
//! `connection`'s body then cost alike and the written order chose: in one spelling
//! the plan called `connection2` with its list unbound, and planning ran out of
//! memory. Estimating the answers from the rules (each rule's rows in a cheap order)
//! separates the two.

use super::build::{AnswerFrame, Planner, Provisional};
use crate::ir::RelationId;
use crate::plan::Columns;

/// The most rule bodies ordered to estimate answers between two changes of the
/// planner's decisions; past it, estimates fall back to the columns' domains (a game
/// of long chains of calls must not make planning slow).
const ANSWER_BUDGET: usize = 20_000;

/// A recursive call counted again by the rules it reaches (`answers = base + growth
/// × answers`) is bounded only while each answer yields fewer than this many more;
/// from there on it may grow with every level (a transitive closure) and the
/// columns' domains estimate it.
const MAX_GROWTH: f64 = 0.9;

impl Planner<'_> {
    /// The expected answers of one call of demand relation `relation` with `columns`
    /// bound: the sum over its rules of the rows their bodies produce in a cheap order
    /// with those head columns bound, infinite where unknown (the budget is spent, or a
    /// recursion may grow without bound).
    ///
    /// A call met again inside its own estimate (recursion) is solved as a linear
    /// recurrence: the rules are counted with the inner call assumed to answer
    /// nothing (`base`) and once (`base + growth`); below [`MAX_GROWTH`] the answers
    /// are `base / (1 − growth)` (appending to a list: one answer), else infinite.
    pub(super) fn call_answers(&self, relation: RelationId, columns: Columns) -> f64 {
        let key = (relation, columns);
        if let Some(&answers) = self.answers.memo.borrow().get(&key) {
            return answers;
        }
        if let Some(answers) = self.provisional_answers(&key) {
            return answers;
        }
        {
            let mut stack = self.answers.stack.borrow_mut();
            if let Some(depth) = stack.iter().position(|f| f.key == key) {
                stack[depth].reentered = true;
                for frame in &mut stack[depth + 1..] {
                    frame.lowest_reentry = frame.lowest_reentry.min(depth);
                }
                return stack[depth].assumed;
            }
            let spent = self.answers.spent.get();
            if spent >= ANSWER_BUDGET {
                return f64::INFINITY;
            }
            self.answers.spent.set(spent + 1);
            let depth = stack.len();
            stack.push(AnswerFrame {
                key: key.clone(),
                assumed: 0.0,
                reentered: false,
                lowest_reentry: depth,
                epoch: self.answers.next_epoch(),
            });
        }
        let base = self.rules_answers(relation, &key.1);
        let reentered = {
            let mut stack = self.answers.stack.borrow_mut();
            let top = stack.last_mut().expect("own frame");
            top.assumed = 1.0;
            top.epoch = self.answers.next_epoch();
            top.reentered
        };
        let answers = if reentered {
            let growth = self.rules_answers(relation, &key.1) - base;
            if growth < MAX_GROWTH {
                base / (1.0 - growth.max(0.0))
            } else {
                f64::INFINITY
            }
        } else {
            base
        };
        let mut stack = self.answers.stack.borrow_mut();
        let frame = stack.pop().expect("own frame");
        let depth = stack.len();
        if frame.lowest_reentry >= depth {
            self.answers.memo.borrow_mut().insert(key, answers);
        } else {
            let lowest = frame.lowest_reentry;
            if let Some(parent) = stack.last_mut() {
                parent.lowest_reentry = parent.lowest_reentry.min(lowest);
            }
            let epochs = stack[lowest..].iter().map(|f| f.epoch).collect();
            self.answers.provisional.borrow_mut().insert(
                key,
                Provisional {
                    answers,
                    lowest,
                    epochs,
                },
            );
        }
        answers
    }

    /// A provisional estimate of `key` still valid: every frame it depends on is on
    /// the stack, unchanged (the estimate may have been made below other frames than
    /// the current ones above its lowest dependency; it is an estimate).
    fn provisional_answers(&self, key: &(RelationId, Columns)) -> Option<f64> {
        let provisional = self.answers.provisional.borrow();
        let entry = provisional.get(key)?;
        let stack = self.answers.stack.borrow();
        let frames = stack.get(entry.lowest..entry.lowest + entry.epochs.len())?;
        frames
            .iter()
            .zip(&entry.epochs)
            .all(|(frame, &epoch)| frame.epoch == epoch)
            .then_some(entry.answers)
    }

    /// The rows the rules of `relation` produce with the head columns `columns` bound.
    fn rules_answers(&self, relation: RelationId, columns: &[usize]) -> f64 {
        let layer = self.ir.layer_of[relation.0 as usize];
        self.ir.layers[layer]
            .rules
            .iter()
            .filter(|&&r| self.ir.rules[r].head.relation == relation)
            .map(|&r| self.body_rows(r, &self.head_bound(r, columns)))
            .sum()
    }
}

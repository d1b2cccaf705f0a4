//! The rules the grounder joins: each rule's body ordered for joining (from a growing
//! literal's new tuples in a semi-naive round, [`order_rule`]), the join that
//! enumerates its instances over the tables ([`Join`]).

use super::*;

/// One rule's join, reading the tables and recording derivations.
pub(super) struct Join<'g> {
    pub(super) tables: &'g [Table],
    pub(super) rule: &'g RulePlan,
    /// The body in the order joined.
    pub(super) order: &'g [Step],
    /// The body index of the literal that reads only the last round's new tuples.
    pub(super) pivot: Option<usize>,
    pub(super) old: &'g [u32],
    pub(super) end: &'g [u32],
    pub(super) steps: u64,
    pub(super) literals: usize,
    pub(super) limits: &'g Limits,
    pub(super) found: &'g mut Vec<Found>,
    /// Whether bodies are kept; if not, only heads not in the tables yet are recorded.
    pub(super) instances: bool,
    pub(super) pos: Vec<(RelationId, u32)>,
    pub(super) neg: Vec<(RelationId, Vec<SymbolId>)>,
}

impl Join<'_> {
    fn value(bindings: &[SymbolId], arg: Arg) -> SymbolId {
        match arg {
            Arg::Sym(s) => s,
            Arg::Var(v) => bindings[v.0 as usize],
        }
    }

    pub(super) fn step(&mut self, i: usize, bindings: &mut Vec<SymbolId>) -> Result<(), String> {
        let Some(step) = self.order.get(i) else {
            return self.accept(bindings);
        };
        match step {
            Step::Pos {
                literal,
                relation,
                args,
                bound,
            } => self.positive(i, *literal, *relation, args, bound, bindings),
            Step::Neg { relation, args } => {
                let tuple: Vec<SymbolId> = args.iter().map(|&a| Self::value(bindings, a)).collect();
                let table = &self.tables[relation.0 as usize];
                if table.is_static {
                    if table.ids.contains_key(&tuple) {
                        return Ok(());
                    }
                    return self.step(i + 1, bindings);
                }
                self.neg.push((*relation, tuple));
                let result = self.step(i + 1, bindings);
                self.neg.pop();
                result
            }
            Step::Distinct(pairs) => {
                let differs = pairs
                    .iter()
                    .any(|&(a, b)| Self::value(bindings, a) != Self::value(bindings, b));
                if differs {
                    self.step(i + 1, bindings)
                } else {
                    Ok(())
                }
            }
            Step::Member(var, values) => {
                if values.binary_search(&bindings[*var as usize]).is_ok() {
                    self.step(i + 1, bindings)
                } else {
                    Ok(())
                }
            }
            Step::Equal(pairs) => {
                let mut newly = Vec::new();
                let mut holds = true;
                for &(a, b) in pairs {
                    let (va, vb) = (Self::value(bindings, a), Self::value(bindings, b));
                    match (va == UNBOUND, vb == UNBOUND, a, b) {
                        (true, false, Arg::Var(v), _) => {
                            bindings[v.0 as usize] = vb;
                            newly.push(v);
                        }
                        (false, true, _, Arg::Var(v)) => {
                            bindings[v.0 as usize] = va;
                            newly.push(v);
                        }
                        (true, true, _, _) => {
                            return Err("an equality between two unbound variables".into());
                        }
                        _ => holds &= va == vb,
                    }
                }
                let result = if holds {
                    self.step(i + 1, bindings)
                } else {
                    Ok(())
                };
                for v in newly {
                    bindings[v.0 as usize] = UNBOUND;
                }
                result
            }
        }
    }

    fn positive(
        &mut self,
        i: usize,
        literal: usize,
        relation: RelationId,
        args: &[Arg],
        bound: &[usize],
        bindings: &mut Vec<SymbolId>,
    ) -> Result<(), String> {
        let r = relation.0 as usize;
        let table = &self.tables[r];
        let (lo, hi) = if table.is_static {
            (0, table.tuples.len() as u32)
        } else {
            match self.pivot {
                None => (0, self.end[r]),
                Some(p) if literal < p => (0, self.old[r]),
                Some(p) if literal == p => (self.old[r], self.end[r]),
                Some(_) => (0, self.end[r]),
            }
        };
        if lo >= hi {
            return Ok(());
        }
        let key: Vec<SymbolId> = bound
            .iter()
            .map(|&c| Self::value(bindings, args[c]))
            .collect();
        let ids: &[u32] = if bound.is_empty() {
            &[]
        } else {
            match table.indexes.get(bound).and_then(|index| index.get(&key)) {
                Some(ids) => ids,
                None => return Ok(()),
            }
        };
        let candidates: Box<dyn Iterator<Item = u32>> = if bound.is_empty() {
            Box::new(lo..hi)
        } else {
            let start = ids.partition_point(|&id| id < lo);
            Box::new(ids[start..].iter().copied().take_while(|&id| id < hi))
        };
        let mut newly = Vec::with_capacity(args.len());
        for id in candidates {
            self.steps += 1;
            if self.steps > self.limits.steps {
                return Err(format!(
                    "more than {} join steps (in the rule for `{}`)",
                    self.limits.steps, self.rule.head_key
                ));
            }
            let tuple = &self.tables[r].tuples[id as usize];
            let mut matches = true;
            for (c, &arg) in args.iter().enumerate() {
                let value = tuple[c];
                match arg {
                    Arg::Sym(s) => matches &= s == value,
                    Arg::Var(v) => {
                        let slot = &mut bindings[v.0 as usize];
                        if *slot == UNBOUND {
                            *slot = value;
                            newly.push(v);
                        } else {
                            matches &= *slot == value;
                        }
                    }
                }
                if !matches {
                    break;
                }
            }
            let result = if matches {
                let dynamic = !self.tables[r].is_static;
                if dynamic {
                    self.pos.push((relation, id));
                }
                let result = self.step(i + 1, bindings);
                if dynamic {
                    self.pos.pop();
                }
                result
            } else {
                Ok(())
            };
            for v in newly.drain(..) {
                bindings[v.0 as usize] = UNBOUND;
            }
            result?;
        }
        Ok(())
    }

    fn accept(&mut self, bindings: &[SymbolId]) -> Result<(), String> {
        let (relation, args) = &self.rule.head;
        let tuple: Vec<SymbolId> = args.iter().map(|&a| Self::value(bindings, a)).collect();
        if tuple.contains(&UNBOUND) {
            return Err(format!(
                "rule {} has an unbound head variable",
                self.rule.rule
            ));
        }
        if !self.instances {
            if !self.tables[relation.0 as usize].ids.contains_key(&tuple) {
                // A round can find millions of new atoms: the limit holds within it.
                if self.found.len() >= self.limits.atoms {
                    return Err(format!(
                        "more than {} reachable atoms (found in one round, the last in the rule for `{}`)",
                        self.limits.atoms, self.rule.head_key
                    ));
                }
                self.found.push(Found {
                    rule: self.rule.rule,
                    head: (*relation, tuple),
                    pos: Vec::new(),
                    neg: Vec::new(),
                });
            }
            return Ok(());
        }
        self.literals += self.pos.len() + self.neg.len();
        if self.found.len() > self.limits.instances || self.literals > self.limits.literals {
            return Err(format!(
                "more than {} rule instances or {} ground literals (the last in the rule for `{}`)",
                self.limits.instances, self.limits.literals, self.rule.head_key
            ));
        }
        self.found.push(Found {
            rule: self.rule.rule,
            head: (*relation, tuple),
            pos: self.pos.clone(),
            neg: self.neg.clone(),
        });
        Ok(())
    }
}

/// Orders a rule's body for joining: repeatedly the positive literal with the most
/// bound columns (static relations first on ties), every test as soon as its
/// variables are bound.
pub(super) fn order_rule(ir: &Ir, tables: &[Table], rule: &RuleSpec) -> Result<RulePlan, String> {
    let index = rule.rule;
    let steps = order_body(ir, tables, rule, None)?;
    let mut pivots = Vec::new();
    for (literal, body_literal) in rule.body.iter().enumerate() {
        if let FlatLiteral::Pos(atom) = body_literal
            && !tables[atom.relation.0 as usize].is_static
        {
            pivots.push(Pivot {
                literal,
                relation: atom.relation,
                order: order_body(ir, tables, rule, Some(literal))?,
            });
        }
    }
    Ok(RulePlan {
        rule: index,
        head_key: ir.relation(ir.rules[index].head.relation).key(),
        head: (rule.head.relation, rule.head.args.clone()),
        steps,
        pivots,
        num_vars: rule.num_vars,
    })
}

/// A rule's body in join order (see [`order_rule`]), from the body's `first`-th
/// literal (a positive one) when given.
pub(super) fn order_body(
    ir: &Ir,
    tables: &[Table],
    rule: &RuleSpec,
    first: Option<usize>,
) -> Result<Vec<Step>, String> {
    let span = ir.rules[rule.rule].span;
    let mut bound = vec![false; rule.num_vars];
    let is_bound = |bound: &[bool], arg: &Arg| match arg {
        Arg::Sym(_) => true,
        Arg::Var(v) => bound[v.0 as usize],
    };
    let mut positives: Vec<(usize, &crate::ir::FlatAtom)> = Vec::new();
    let mut tests: Vec<&FlatLiteral> = Vec::new();
    for (k, literal) in rule.body.iter().enumerate() {
        match literal {
            FlatLiteral::Pos(atom) => positives.push((k, atom)),
            other => tests.push(other),
        }
    }
    let mut steps = Vec::new();
    let place_tests =
        |bound: &mut Vec<bool>, tests: &mut Vec<&FlatLiteral>, steps: &mut Vec<Step>| {
            loop {
                let ready = tests.iter().position(|t| match t {
                    FlatLiteral::Neg(atom) => atom.args.iter().all(|a| is_bound(bound, a)),
                    FlatLiteral::Distinct(pairs) => pairs
                        .iter()
                        .all(|(a, b)| is_bound(bound, a) && is_bound(bound, b)),
                    FlatLiteral::Equal(pairs) => pairs
                        .iter()
                        .all(|(a, b)| is_bound(bound, a) || is_bound(bound, b)),
                    FlatLiteral::Pos(_) => false,
                });
                let Some(t) = ready else { break };
                match tests.remove(t) {
                    FlatLiteral::Neg(atom) => steps.push(Step::Neg {
                        relation: atom.relation,
                        args: atom.args.clone(),
                    }),
                    FlatLiteral::Distinct(pairs) => steps.push(Step::Distinct(pairs.clone())),
                    FlatLiteral::Equal(pairs) => {
                        for (a, b) in pairs {
                            for arg in [a, b] {
                                if let Arg::Var(v) = arg {
                                    bound[v.0 as usize] = true;
                                }
                            }
                        }
                        steps.push(Step::Equal(pairs.clone()));
                    }
                    FlatLiteral::Pos(_) => unreachable!("tests hold no positive literal"),
                }
            }
        };
    let mut members: Vec<&(u32, Vec<SymbolId>)> = rule.members.iter().collect();
    let place_members =
        |bound: &[bool], members: &mut Vec<&(u32, Vec<SymbolId>)>, steps: &mut Vec<Step>| {
            members.retain(|&(var, values)| {
                if bound[*var as usize] {
                    steps.push(Step::Member(*var, values.clone()));
                    false
                } else {
                    true
                }
            });
        };
    place_tests(&mut bound, &mut tests, &mut steps);
    place_members(&bound, &mut members, &mut steps);
    while !positives.is_empty() {
        let best = (0..positives.len())
            .max_by_key(|&i| {
                let (k, atom) = positives[i];
                let known = atom.args.iter().filter(|a| is_bound(&bound, a)).count();
                let all = known == atom.args.len();
                let is_static = tables[atom.relation.0 as usize].is_static;
                (
                    Some(k) == first,
                    all,
                    known > 0 && is_static,
                    known,
                    is_static,
                    std::cmp::Reverse(i),
                )
            })
            .expect("a positive literal");
        let (literal, atom) = positives.remove(best);
        let known: Vec<usize> = (0..atom.args.len())
            .filter(|&c| is_bound(&bound, &atom.args[c]))
            .collect();
        for arg in &atom.args {
            if let Arg::Var(v) = arg {
                bound[v.0 as usize] = true;
            }
        }
        steps.push(Step::Pos {
            literal,
            relation: atom.relation,
            args: atom.args.clone(),
            bound: known,
        });
        place_tests(&mut bound, &mut tests, &mut steps);
        place_members(&bound, &mut members, &mut steps);
    }
    if !tests.is_empty() || !members.is_empty() {
        return Err(format!(
            "a test of the rule at {}..{} has a variable no positive literal binds",
            span.start, span.end
        ));
    }
    Ok(steps)
}

/// A rule to order: one of the IR's, or a part of one after projection.
pub(super) struct RuleSpec {
    /// The IR rule it comes from.
    pub(super) rule: usize,
    pub(super) head: FlatAtom,
    pub(super) body: Vec<FlatLiteral>,
    pub(super) num_vars: usize,
    /// Variables of the head whose values are restricted to those asked for (see
    /// [`demand`]), each with the values, sorted.
    pub(super) members: Vec<(u32, Vec<SymbolId>)>,
}

impl RuleSpec {
    /// IR rule `index` restricted to the heads asked for, or `None` when it has none.
    pub(super) fn asked(ir: &Ir, index: usize, demand: &Demand) -> Option<RuleSpec> {
        let rule = &ir.rules[index];
        let r = rule.head.relation.0 as usize;
        if demand.none_asked(r) {
            return None;
        }
        let mut members: Vec<(u32, Vec<SymbolId>)> = Vec::new();
        for (c, arg) in rule.head.args.iter().enumerate() {
            let Some(values) = demand.column(r, c) else {
                continue;
            };
            match *arg {
                Arg::Sym(s) if !values.contains(&s) => return None,
                Arg::Sym(_) => {}
                Arg::Var(v) => members.push((v.0, values.iter().copied().collect())),
            }
        }
        Some(RuleSpec {
            rule: index,
            head: rule.head.clone(),
            body: rule.body.clone(),
            num_vars: rule.vars.len(),
            members,
        })
    }
}

/// The variables of a body literal.
pub(super) fn literal_vars(literal: &FlatLiteral) -> Vec<u32> {
    let args: Vec<&Arg> = match literal {
        FlatLiteral::Pos(atom) | FlatLiteral::Neg(atom) => atom.args.iter().collect(),
        FlatLiteral::Distinct(pairs) | FlatLiteral::Equal(pairs) => {
            pairs.iter().flat_map(|(a, b)| [a, b]).collect()
        }
    };
    args.into_iter()
        .filter_map(|a| match a {
            Arg::Var(v) => Some(v.0),
            Arg::Sym(_) => None,
        })
        .collect()
}

//! The property classes of the paper's section 6.3, generated from the analysed game.
//!
//! - **functionals**: for every fluent function symbol `f/m` (m ≤ [`MAX_FUNCTIONAL_ARITY`])
//!   and every nonempty set `Y` of its argument positions, "for all values of the other
//!   arguments, at most one (and: exactly one) `Y` makes `(true (f …))` hold"; plus
//!   "exactly one control fluent holds" over the ground instances of the unary fluents
//!   whose argument ranges over roles, when there are at least two;
//! - **legals**: playability (every role has a legal move in every non-terminal state)
//!   and turn-taking (at most one role has two or more legal moves);
//! - **goals**: zero-sum (in terminal states the goal values add up to 100), unique
//!   goal values in terminal states, and monotonic goal values (one value in every state,
//!   never decreasing);
//! - **persistence**: for every ground fluent `f` of the domain, `f ⊃ ○f` and
//!   `¬f ⊃ ○¬f`.
//!
//! Argument domains are the analysis's column domains (`(domain true 0/cell.0)`), move
//! domains the column of `legal`'s move argument, goal values the symbols of `goal`'s
//! second column.

use crate::ir::{Ir, NIL, RelationId};
use crate::prove::formula::{Binding, Domain, Formula, Term, column_terms, find_relation};
use crate::prove::{Class, Property};

/// Fluents with more arguments are not given functional formulas (2^m subsets each).
pub const MAX_FUNCTIONAL_ARITY: usize = 6;

/// At most this many ground fluents are given persistence formulas.
pub const MAX_FLUENTS: usize = 100_000;

/// At most this many goal-value combinations make the zero-sum formula.
pub const MAX_GOAL_COMBINATIONS: usize = 10_000;

fn column_domain(ir: &Ir, relation: RelationId, column: usize) -> Domain {
    let rel = ir.relation(relation);
    Domain::Column {
        relation,
        column,
        relation_key: rel.name.clone(),
        path: ir.path_text(&rel.columns[column].path),
    }
}

fn var(name: &str) -> Term {
    Term::Var(name.to_owned())
}

fn roles(ir: &Ir) -> Vec<Term> {
    ir.roles
        .iter()
        .map(|&r| Term::Const(ir.symbols.symbol(r).name.clone()))
        .collect()
}

/// The properties of one class.
pub fn generate(ir: &Ir, class: Class) -> Vec<Property> {
    match class {
        Class::Functionals => functionals(ir),
        Class::Legals => legals(ir),
        Class::Goals => goals(ir),
        Class::Persistence => persistence(ir),
        Class::Formulas => Vec::new(),
    }
}

fn property(class: Class, name: String, formula: Formula) -> Property {
    Property {
        class,
        name,
        formula,
    }
}

fn functionals(ir: &Ir) -> Vec<Property> {
    let mut out = Vec::new();
    let Some(fluents) = find_relation(ir, "true", 1) else {
        return out;
    };
    let rel = ir.relation(fluents);
    for &symbol in &rel.columns[0].domain {
        if symbol == NIL {
            continue;
        }
        let sym = ir.symbols.symbol(symbol);
        let m = sym.arity;
        if m == 0 || m > MAX_FUNCTIONAL_ARITY {
            continue;
        }
        let columns: Option<Vec<usize>> = (0..m)
            .map(|j| rel.column_of(&crate::ir::child_path(&[0], symbol, j)))
            .collect();
        let Some(columns) = columns else {
            continue;
        };
        let names: Vec<String> = (1..=m).map(|j| format!("x{j}")).collect();
        let atom = Formula::atom(
            "true",
            vec![Term::Func(
                sym.name.clone(),
                names.iter().map(|n| var(n)).collect(),
            )],
        );
        let pattern = format!(
            "({} {})",
            sym.name,
            names
                .iter()
                .map(|n| format!("?{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for subset in 1u32..(1 << m) {
            let (counted, outer): (Vec<usize>, Vec<usize>) =
                (0..m).partition(|&j| subset & (1 << j) != 0);
            let bindings = |positions: &[usize]| -> Vec<Binding> {
                positions
                    .iter()
                    .map(|&j| Binding {
                        vars: vec![names[j].clone()],
                        domain: column_domain(ir, fluents, columns[j]),
                    })
                    .collect()
            };
            let per = if outer.is_empty() {
                String::new()
            } else {
                format!(
                    " per {}",
                    outer
                        .iter()
                        .map(|&j| format!("?{}", names[j]))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            };
            let of = counted
                .iter()
                .map(|&j| format!("?{}", names[j]))
                .collect::<Vec<_>>()
                .join(" ");
            for (low, word) in [(0, "at most one"), (1, "exactly one")] {
                let count = Formula::Count {
                    low,
                    high: Some(1),
                    bindings: bindings(&counted),
                    body: Box::new(atom.clone()),
                };
                let formula = if outer.is_empty() {
                    count
                } else {
                    Formula::Forall(bindings(&outer), Box::new(count))
                };
                out.push(property(
                    Class::Functionals,
                    format!("{word} {of} in {pattern}{per}"),
                    formula,
                ));
            }
        }
    }
    // Control fluents: unary fluents whose argument ranges over roles.
    let role_set: Vec<crate::ir::SymbolId> = ir.roles.clone();
    let mut control = Vec::new();
    for &symbol in &rel.columns[0].domain {
        if symbol == NIL || ir.symbols.symbol(symbol).arity != 1 {
            continue;
        }
        let Some(column) = rel.column_of(&crate::ir::child_path(&[0], symbol, 0)) else {
            continue;
        };
        let values: Vec<_> = rel.columns[column]
            .domain
            .iter()
            .copied()
            .filter(|&s| s != NIL)
            .collect();
        if values.is_empty() || !values.iter().all(|s| role_set.contains(s)) {
            continue;
        }
        let name = ir.symbols.symbol(symbol).name.clone();
        for value in values {
            control.push(Term::Func(
                name.clone(),
                vec![Term::Const(ir.symbols.symbol(value).name.clone())],
            ));
        }
    }
    if control.len() >= 2 {
        let text: Vec<String> = control.iter().map(ToString::to_string).collect();
        out.push(property(
            Class::Functionals,
            format!("exactly one control fluent of {}", text.join(" ")),
            Formula::Count {
                low: 1,
                high: Some(1),
                bindings: vec![Binding {
                    vars: vec!["f".into()],
                    domain: Domain::Set(control),
                }],
                body: Box::new(Formula::atom("true", vec![var("f")])),
            },
        ));
    }
    out
}

fn move_domain(ir: &Ir) -> Option<Domain> {
    let legal = find_relation(ir, "legal", 2)?;
    let column = ir.relation(legal).column_of(&[1])?;
    Some(column_domain(ir, legal, column))
}

fn legals(ir: &Ir) -> Vec<Property> {
    let Some(moves) = move_domain(ir) else {
        return Vec::new();
    };
    let role_domain = Domain::Set(roles(ir));
    let legal = Formula::atom("legal", vec![var("r"), var("m")]);
    let playability = Formula::atom("terminal", Vec::new())
        .negate()
        .implies(Formula::Forall(
            vec![Binding {
                vars: vec!["r".into()],
                domain: role_domain.clone(),
            }],
            Box::new(Formula::Exists(
                vec![Binding {
                    vars: vec!["m".into()],
                    domain: moves.clone(),
                }],
                Box::new(legal.clone()),
            )),
        ));
    let turn_taking = Formula::Count {
        low: 0,
        high: Some(1),
        bindings: vec![Binding {
            vars: vec!["r".into()],
            domain: role_domain,
        }],
        body: Box::new(Formula::Count {
            low: 2,
            high: None,
            bindings: vec![Binding {
                vars: vec!["m".into()],
                domain: moves,
            }],
            body: Box::new(legal),
        }),
    };
    vec![
        property(Class::Legals, "playability".into(), playability),
        property(Class::Legals, "turn-taking".into(), turn_taking),
    ]
}

/// The goal values of the game that are integers, ascending.
fn goal_values(ir: &Ir) -> Vec<(u32, String)> {
    let Some(goal) = find_relation(ir, "goal", 2) else {
        return Vec::new();
    };
    let Some(column) = ir.relation(goal).column_of(&[1]) else {
        return Vec::new();
    };
    let mut values: Vec<(u32, String)> = ir.relation(goal).columns[column]
        .domain
        .iter()
        .filter(|&&s| s != NIL)
        .filter_map(|&s| {
            let name = &ir.symbols.symbol(s).name;
            name.parse::<u32>().ok().map(|v| (v, name.clone()))
        })
        .collect();
    values.sort();
    values
}

fn goals(ir: &Ir) -> Vec<Property> {
    let values = goal_values(ir);
    let roles = roles(ir);
    if values.is_empty() || roles.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let goal =
        |role: Term, value: &str| Formula::atom("goal", vec![role, Term::Const(value.to_owned())]);
    let terminal = || Formula::atom("terminal", Vec::new());

    // Zero-sum: no combination of values that does not add up to 100.
    let combinations = values.len().checked_pow(roles.len() as u32);
    if combinations.is_some_and(|c| c <= MAX_GOAL_COMBINATIONS) {
        let mut conjuncts = Vec::new();
        for combination in 0..combinations.unwrap_or(0) {
            // Role i takes value digit i of `combination` in base |values| (role 0 most
            // significant), so combinations come in lexicographic order.
            let mut rest = combination;
            let mut index = vec![0usize; roles.len()];
            for slot in index.iter_mut().rev() {
                *slot = rest % values.len();
                rest /= values.len();
            }
            let sum: u32 = index.iter().map(|&i| values[i].0).sum();
            if sum != 100 {
                conjuncts.push(Formula::Or(
                    roles
                        .iter()
                        .zip(&index)
                        .map(|(r, &i)| goal(r.clone(), &values[i].1).negate())
                        .collect(),
                ));
            }
        }
        out.push(property(
            Class::Goals,
            "zero-sum".into(),
            terminal().implies(Formula::And(conjuncts)),
        ));
    }

    let value_domain = Domain::Set(values.iter().map(|(_, n)| Term::Const(n.clone())).collect());
    let role_binding = vec![Binding {
        vars: vec!["r".into()],
        domain: Domain::Set(roles.clone()),
    }];
    let exactly_one = Formula::Count {
        low: 1,
        high: Some(1),
        bindings: vec![Binding {
            vars: vec!["v".into()],
            domain: value_domain,
        }],
        body: Box::new(Formula::atom("goal", vec![var("r"), var("v")])),
    };
    out.push(property(
        Class::Goals,
        "unique goal values".into(),
        Formula::Forall(
            role_binding.clone(),
            Box::new(terminal().implies(exactly_one.clone())),
        ),
    ));
    let mut never_lower = Vec::new();
    for (high, high_name) in &values {
        for (low, low_name) in &values {
            if high > low {
                never_lower.push(
                    Formula::And(vec![
                        goal(var("r"), high_name),
                        goal(var("r"), low_name).next(),
                    ])
                    .negate(),
                );
            }
        }
    }
    out.push(property(
        Class::Goals,
        "monotonic goal values".into(),
        Formula::Forall(
            role_binding,
            Box::new(Formula::And(vec![
                exactly_one,
                terminal().negate().implies(Formula::And(never_lower)),
            ])),
        ),
    ));
    out
}

fn persistence(ir: &Ir) -> Vec<Property> {
    let Some(fluents) = find_relation(ir, "true", 1) else {
        return Vec::new();
    };
    let Some(terms) = column_terms(ir, fluents, 0, MAX_FLUENTS) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(2 * terms.len());
    for term in &terms {
        let fluent = Term::from_ir(ir, term);
        let holds = Formula::atom("true", vec![fluent.clone()]);
        out.push(property(
            Class::Persistence,
            format!("{fluent} stays true"),
            holds.clone().implies(holds.clone().next()),
        ));
        out.push(property(
            Class::Persistence,
            format!("{fluent} stays false"),
            holds.clone().negate().implies(holds.negate().next()),
        ));
    }
    out
}

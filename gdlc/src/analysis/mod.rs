//! Analysis: from checked, normalised rules to the [`crate::ir::Ir`] every backend
//! shares — argument domains ([`domains`], with the real fixpoint of the static
//! relations the abstraction cannot bound in [`statics`]), flattening ([`flatten`]) and
//! layers ([`layers`]). Analysis does no I/O and never panics on a checked game; a game it
//! cannot handle gets a diagnostic naming the relation and rule.

pub mod canonical;
pub mod colours;
pub mod domains;
pub mod flatten;
pub mod layers;
pub mod length;
pub mod statics;
pub mod tree;

use std::collections::BTreeSet;

use crate::FrontEnd;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Ir, Keyword, NIL, Path, SymbolId, Symbols};

/// The IR term of ground KIF text, if every symbol of it is known to the IR (a term
/// with an unknown symbol cannot occur in the game).
pub fn term_from_kif(ir: &Ir, text: &str) -> Option<crate::ir::Term> {
    let sexprs = crate::syntax::read_sexprs(text).ok()?;
    let [sexpr] = sexprs.as_slice() else {
        return None;
    };
    sexpr_term(ir, sexpr)
}

fn sexpr_term(ir: &Ir, sexpr: &crate::syntax::SExpr) -> Option<crate::ir::Term> {
    use crate::syntax::SExpr;
    match sexpr {
        SExpr::Symbol(name, _) => Some(crate::ir::Term {
            symbol: ir.symbols.get(&name.to_ascii_lowercase(), 0)?,
            args: Vec::new(),
        }),
        SExpr::Variable(..) => None,
        SExpr::List(items, _) => {
            let (SExpr::Symbol(name, _), rest) = items.split_first()? else {
                return None;
            };
            if rest.is_empty() {
                return Some(crate::ir::Term {
                    symbol: ir.symbols.get(&name.to_ascii_lowercase(), 0)?,
                    args: Vec::new(),
                });
            }
            let symbol = ir.symbols.get(&name.to_ascii_lowercase(), rest.len())?;
            let args: Option<Vec<crate::ir::Term>> =
                rest.iter().map(|item| sexpr_term(ir, item)).collect();
            Some(crate::ir::Term {
                symbol,
                args: args?,
            })
        }
    }
}

/// Analyses a valid game.
pub fn analyze(front: &FrontEnd) -> Result<Ir, Diagnostic> {
    if !front.is_valid() {
        return Err(Diagnostic::error(
            Code::Structure,
            "the game description is not valid GDL",
        ));
    }
    let mut symbols = Symbols::default();
    let canonical::Canonical {
        rules: canonical_rules,
        chains,
        relations: relation_colours,
    } = canonical::canonical(&front.rules, &mut symbols);
    let computed = domains::compute(&canonical_rules, &mut symbols)?;
    let rules: &[crate::normalize::Rule] = &computed.rules;
    let domains = &computed.domains;
    let flat = flatten::flatten(rules, domains, &relation_colours, &mut symbols)?;
    let layering = layers::layer(rules, &flat.relations);

    let roles: Vec<SymbolId> = {
        let mut seen = Vec::new();
        for rule in rules
            .iter()
            .filter(|r| r.head.is("role", 1) && r.body.is_empty())
        {
            if let Some(symbol) = domains::symbol_of(&mut symbols, &rule.head.args[0])
                && !seen.contains(&symbol)
            {
                seen.push(symbol);
            }
        }
        seen
    };
    let move_domains = move_domains(
        rules,
        domains,
        computed.limit,
        &flat.relations,
        &roles,
        &mut symbols,
    );
    Ok(Ir {
        symbols,
        chains,
        relations: flat.relations,
        rules: flat.rules,
        roles,
        layers: layering.layers,
        layer_of: layering.layer_of,
        cones: layering.cones,
        move_domains,
    })
}

/// Per role, the domain of each column of `legal`'s move argument, from the legal
/// rules that can apply to the role.
fn move_domains(
    rules: &[crate::normalize::Rule],
    domains: &tree::Domains,
    limit: usize,
    relations: &[crate::ir::Relation],
    roles: &[SymbolId],
    symbols: &mut Symbols,
) -> Vec<Vec<(Path, Vec<SymbolId>)>> {
    let Some(legal) = relations.iter().find(|r| r.keyword == Some(Keyword::Legal)) else {
        return roles.iter().map(|_| Vec::new()).collect();
    };
    let move_columns: Vec<&crate::ir::Column> =
        legal.columns.iter().filter(|c| c.path[0] == 1).collect();
    let mut per_role: Vec<Vec<BTreeSet<SymbolId>>> = roles
        .iter()
        .map(|_| vec![BTreeSet::new(); move_columns.len()])
        .collect();
    for rule in rules.iter().filter(|r| r.head.is("legal", 2)) {
        let vars = domains::variable_trees(rule, domains, symbols);
        let Ok(Some(tree)) = domains::head_tree(rule, &vars, symbols, limit) else {
            continue;
        };
        let role_values = tree.nodes.get(&vec![0]).cloned().unwrap_or_default();
        let moves = tree.subtree(&[1]);
        for r in (0..roles.len()).filter(|&r| role_values.contains(&roles[r])) {
            for (k, column) in move_columns.iter().enumerate() {
                let relative = &column.path[1..];
                let absent = match crate::ir::split_path(relative) {
                    None => false,
                    Some((parent, functor, _)) => moves
                        .nodes
                        .get(parent)
                        .is_none_or(|p| p.iter().any(|&s| s != functor)),
                };
                if let Some(found) = moves.nodes.get(relative) {
                    per_role[r][k].extend(found.iter().copied());
                }
                if absent {
                    per_role[r][k].insert(NIL);
                }
            }
        }
    }
    per_role
        .into_iter()
        .map(|columns| {
            move_columns
                .iter()
                .zip(columns)
                .map(|(c, set)| (c.path.clone(), set.into_iter().collect()))
                .collect()
        })
        .collect()
}

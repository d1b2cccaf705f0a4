//! Readable text dumps of the analysis stages (`gdlc explain FILE --stage …`), the same
//! bytes for the same input: domains, flattened rules, layers and the plan ([`plan`]).

use std::fmt::Write as _;

use crate::ir::{Arg, Entry, FlatAtom, FlatLiteral, FlatRule, Ir, Phase, SymbolId};
use crate::plan::{Access, Evaluation, LayerEvaluation, Node, Plan, Query, Slot, Storage, Test};

/// A stage of the analysis that can be dumped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Argument domains per relation and path; legal-move domains per role.
    Domains,
    /// Flattened relations (columns) and rules.
    Flat,
    /// Layers in evaluation order, with phases and entry-point cones.
    Layers,
}

/// The text dump of one stage.
pub fn explain(ir: &Ir, stage: Stage) -> String {
    match stage {
        Stage::Domains => domains(ir),
        Stage::Flat => flat(ir),
        Stage::Layers => layers(ir),
    }
}

/// How the constants of each column of the state's fluents and of the moves are
/// ordered — the order of their positions in every store and of the fluents' and the
/// ground moves' bits ([`crate::analysis::canonical`]): by the chains of static
/// relations the game defines, or the rules they occur in (their structural colour,
/// [`crate::analysis::colours`]).
fn orders_text(ir: &Ir, out: &mut String) {
    use crate::ir::Keyword;
    // The fluent is `true`'s argument 0, the move `does`'s argument 1.
    for (keyword, kind, argument) in [(Keyword::True, "fluent", 0), (Keyword::Does, "move", 1)] {
        let Some(relation) = ir.keyword(keyword) else {
            continue;
        };
        for column in &ir.relation(relation).columns {
            if column.path.first() == Some(&argument) {
                column_order_text(ir, kind, column, out);
            }
        }
    }
}

/// One line of [`orders_text`]: the order of `column` (of a fluent or a move).
fn column_order_text(ir: &Ir, kind: &str, column: &crate::ir::Column, out: &mut String) {
    let values: Vec<&str> = column
        .domain
        .iter()
        .filter(|&&s| s != crate::ir::NIL && ir.symbols.symbol(s).arity == 0)
        .map(|&s| ir.symbols.symbol(s).name.as_str())
        .collect();
    if values.len() < 2 {
        return;
    }
    let mut parts = Vec::new();
    let mut rest: Vec<&str> = values.clone();
    for chain in &ir.chains {
        let on: usize = rest
            .iter()
            .filter(|v| chain.constants.iter().any(|c| c == *v))
            .count();
        if on > 0 {
            rest.retain(|v| !chain.constants.iter().any(|c| c == v));
            parts.push(format!(
                "{on} by the chain of static relation `{}`{}",
                chain.relation,
                if chain.symmetric { " (both ways)" } else { "" }
            ));
        }
    }
    if !rest.is_empty() {
        parts.push(format!(
            "{} by the rules they occur in (structural colour; integers of one colour by value)",
            rest.len()
        ));
    }
    let _ = writeln!(
        out,
        "order of {kind} column {} ({} constants): {}",
        ir.path_text(&column.path),
        values.len(),
        parts.join(", then ")
    );
}

fn symbol_set(ir: &Ir, symbols: &[SymbolId]) -> String {
    let names: Vec<String> = symbols.iter().map(|&s| ir.symbols.display(s)).collect();
    format!("{{{}}}", names.join(" "))
}

fn domains(ir: &Ir) -> String {
    let mut out = String::new();
    for relation in &ir.relations {
        let _ = writeln!(
            out,
            "{} ({} column{})",
            relation.key(),
            relation.columns.len(),
            plural(relation.columns.len())
        );
        for column in &relation.columns {
            let _ = writeln!(
                out,
                "  {:<8} {}",
                ir.path_text(&column.path),
                symbol_set(ir, &column.domain)
            );
        }
    }
    let roles: Vec<String> = ir.roles.iter().map(|&r| ir.symbols.display(r)).collect();
    let _ = writeln!(out, "\nroles: {}", roles.join(" "));
    for (role, columns) in ir.roles.iter().zip(&ir.move_domains) {
        let _ = writeln!(out, "moves of {}", ir.symbols.display(*role));
        for (path, symbols) in columns {
            let _ = writeln!(
                out,
                "  {:<8} {}",
                ir.path_text(path),
                symbol_set(ir, symbols)
            );
        }
    }
    out
}

fn arg_text(ir: &Ir, rule: &FlatRule, arg: Arg) -> String {
    match arg {
        Arg::Sym(s) => ir.symbols.display(s),
        Arg::Var(v) => {
            let var = &rule.vars[v.0 as usize];
            format!("?{}{}", var.name, ir.path_text(&var.path))
        }
    }
}

fn atom_text(ir: &Ir, rule: &FlatRule, atom: &FlatAtom) -> String {
    let relation = ir.relation(atom.relation);
    if atom.args.is_empty() {
        return relation.name.clone();
    }
    let args: Vec<String> = atom.args.iter().map(|&a| arg_text(ir, rule, a)).collect();
    format!("({} {})", relation.name, args.join(" "))
}

/// A flattened rule as text: flat atoms list one argument per column; `distinct` and
/// `equal` list their two flattened sides.
pub fn rule_text(ir: &Ir, rule: &FlatRule) -> String {
    let head = atom_text(ir, rule, &rule.head);
    if rule.body.is_empty() {
        return head;
    }
    let sides = |pairs: &[(Arg, Arg)]| {
        let left: Vec<String> = pairs.iter().map(|&(a, _)| arg_text(ir, rule, a)).collect();
        let right: Vec<String> = pairs.iter().map(|&(_, b)| arg_text(ir, rule, b)).collect();
        format!("[{}] [{}]", left.join(" "), right.join(" "))
    };
    let mut text = format!("(<= {head}");
    for literal in &rule.body {
        let part = match literal {
            FlatLiteral::Pos(atom) => atom_text(ir, rule, atom),
            FlatLiteral::Neg(atom) => format!("(not {})", atom_text(ir, rule, atom)),
            FlatLiteral::Distinct(pairs) => format!("(distinct {})", sides(pairs)),
            FlatLiteral::Equal(pairs) => format!("(equal {})", sides(pairs)),
        };
        text.push(' ');
        text.push_str(&part);
    }
    text.push(')');
    text
}

fn flat(ir: &Ir) -> String {
    let mut out = String::new();
    for relation in &ir.relations {
        let columns: Vec<String> = relation
            .columns
            .iter()
            .map(|c| ir.path_text(&c.path))
            .collect();
        let _ = writeln!(out, "{}: {}", relation.key(), columns.join(" "));
    }
    out.push('\n');
    for rule in &ir.rules {
        let _ = writeln!(out, "{}", rule_text(ir, rule));
    }
    out
}

fn layers(ir: &Ir) -> String {
    let mut out = String::new();
    for (i, layer) in ir.layers.iter().enumerate() {
        let names: Vec<String> = layer
            .relations
            .iter()
            .map(|&r| ir.relation(r).key())
            .collect();
        let phase = match layer.phase {
            Phase::Static => "static",
            Phase::State => "state",
            Phase::Move => "move",
        };
        let kind = if layer.cyclic { "cyclic" } else { "acyclic" };
        let _ = writeln!(
            out,
            "layer {i}: {phase} {kind} [{}] {} rule{}",
            names.join(" "),
            layer.rules.len(),
            plural(layer.rules.len())
        );
    }
    out.push('\n');
    for (entry, cone) in &ir.cones {
        let name = match entry {
            Entry::Init => "init",
            Entry::Legal => "legal",
            Entry::Next => "next",
            Entry::Terminal => "terminal",
            Entry::Goal => "goal",
            Entry::Sees => "sees",
        };
        let layers: Vec<String> = cone.iter().map(usize::to_string).collect();
        let _ = writeln!(out, "{name} needs layers {}", layers.join(" "));
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The trials of measured planning, one line each.
fn tuning_text(ir: &Ir, tuning: &crate::plan::Tuning, out: &mut String) {
    let _ = writeln!(
        out,
        "measured planning: {} sample states, threshold plan {} nodes",
        tuning.samples, tuning.threshold_work
    );
    let _ = match tuning.sized_work {
        Some(work) => writeln!(
            out,
            "  join orders from the relations' sizes on the samples: {work} nodes: {}",
            if tuning.from_sized {
                "kept (the trials below start from it)"
            } else {
                "a second start, whose search ended dearer (the trials below start from the threshold plan)"
            }
        ),
        None => writeln!(
            out,
            "  join orders from the relations' sizes on the samples: more nodes: not kept"
        ),
    };
    for trial in &tuning.trials {
        let names: Vec<String> = ir.layers[trial.layer]
            .relations
            .iter()
            .map(|&r| ir.relation(r).key())
            .collect();
        let (tried, other) = if trial.on_demand {
            ("on demand", "materialised")
        } else {
            ("materialised", "on demand")
        };
        let outcome = match trial.work {
            Some(work) if trial.kept => format!("{work} nodes: {tried}"),
            Some(work) => format!("{work} nodes: another trial of the round kept"),
            None => format!("over {} nodes: stays {other}", trial.limit),
        };
        let _ = writeln!(
            out,
            "  layer {} [{}] {tried}, against {} nodes: {outcome}",
            trial.layer,
            names.join(" "),
            trial.before
        );
    }
}

/// The plan as text: every relation's evaluation, storage, indexes and reason; then
/// every layer's filter tree and every demand mode's tree, one node per line.
pub fn plan(ir: &Ir, plan: &Plan) -> String {
    let mut out = String::new();
    orders_text(ir, &mut out);
    for (relation, rp) in ir.relations.iter().zip(&plan.relations) {
        let kind = match &rp.evaluation {
            Evaluation::Input => "input".to_owned(),
            Evaluation::Static(tuples) => format!("static ({} tuples)", tuples.len()),
            Evaluation::Materialised => "materialised".to_owned(),
            Evaluation::Demand(modes) => {
                format!("demand ({} mode{})", modes.len(), plural(modes.len()))
            }
        };
        let storage = match &rp.storage {
            Storage::Flag => "flag".to_owned(),
            Storage::Bitset { radices } => {
                let radices: Vec<String> = radices.iter().map(usize::to_string).collect();
                format!("bitset {}", radices.join("x"))
            }
            Storage::Hashed => "hashed".to_owned(),
            Storage::Memo => "memo".to_owned(),
        };
        let _ = writeln!(out, "{}: {kind}, {storage}", relation.key());
        for index in &rp.indexes {
            let _ = writeln!(out, "  index on {}", columns_text(ir, relation, index));
        }
        let _ = writeln!(out, "  because {}", rp.reason);
    }
    for layout in &plan.fluents {
        let _ = writeln!(
            out,
            "fluents ({} …): {}",
            ir.symbols.symbol(layout.functor).name,
            layout.reason
        );
    }
    if let Some(state) = ir.keyword(crate::ir::Keyword::True) {
        for (functor, order) in &plan.state_orders {
            let _ = writeln!(
                out,
                "fluents ({} …) numbered {}, the last lowest: the columns the lookups of `true` know most often first",
                ir.symbols.symbol(*functor).name,
                columns_text(ir, ir.relation(state), order)
            );
        }
    }
    if let Some(tuning) = &plan.tuning {
        tuning_text(ir, tuning, &mut out);
    }
    for (l, lp) in plan.layers.iter().enumerate() {
        let names: Vec<String> = ir.layers[l]
            .relations
            .iter()
            .map(|&r| ir.relation(r).key())
            .collect();
        let mode = match lp.evaluation {
            LayerEvaluation::Input => "input",
            LayerEvaluation::Static => "static",
            LayerEvaluation::Once => "once",
            LayerEvaluation::Fixpoint => "fixpoint",
            LayerEvaluation::Demand => "demand",
        };
        let _ = writeln!(out, "\nlayer {l} [{}]: {mode}", names.join(" "));
        if let Some(tree) = &lp.tree {
            node_text(ir, tree, None, 1, &mut out);
        }
        for &r in &ir.layers[l].relations {
            if let Evaluation::Demand(modes) = &plan.relations[r.0 as usize].evaluation {
                for (m, mode) in modes.iter().enumerate() {
                    let relation = ir.relation(r);
                    let _ = writeln!(
                        out,
                        "  {} mode {m}: bound {}",
                        relation.key(),
                        columns_text(ir, relation, &mode.bound)
                    );
                    node_text(ir, &mode.tree, None, 2, &mut out);
                }
            }
        }
    }
    out
}

fn columns_text(ir: &Ir, relation: &crate::ir::Relation, columns: &[usize]) -> String {
    if columns.is_empty() {
        return "{}".to_owned();
    }
    let paths: Vec<String> = columns
        .iter()
        .map(|&c| ir.path_text(&relation.columns[c].path))
        .collect();
    format!("{{{}}}", paths.join(" "))
}

fn slot_text(ir: &Ir, rule: Option<&FlatRule>, slot: Slot) -> String {
    let var = |v: crate::ir::VarId| match rule {
        Some(rule) => arg_text(ir, rule, Arg::Var(v)),
        None => format!("?{}", v.0),
    };
    match slot {
        Slot::Sym(s) => ir.symbols.display(s),
        Slot::Bound(v) => var(v),
        Slot::Bind(v) => format!("{}!", var(v)),
        Slot::Same(v) => format!("{}=", var(v)),
        Slot::Free => "_".to_owned(),
    }
}

fn query_text(ir: &Ir, rule: Option<&FlatRule>, query: &Query) -> String {
    let relation = ir.relation(query.relation);
    let slots: Vec<String> = query
        .slots
        .iter()
        .map(|&s| slot_text(ir, rule, s))
        .collect();
    let access = match &query.access {
        Access::Flag => "flag".to_owned(),
        Access::Member => "member".to_owned(),
        Access::Index(columns) => format!("index {}", columns_text(ir, relation, columns)),
        Access::Scan => "scan".to_owned(),
        Access::Call(mode) => format!("call mode {mode}"),
        Access::Input => "input".to_owned(),
        Access::Delta => "delta".to_owned(),
    };
    if slots.is_empty() {
        format!("{} by {access}", relation.name)
    } else {
        format!("({} {}) by {access}", relation.name, slots.join(" "))
    }
}

/// One node per line, children indented; `?x!` binds, `?x=` repeats a column of the
/// same tuple, `_` is a column a demand call leaves unbound.
fn node_text(ir: &Ir, node: &Node, rule: Option<&FlatRule>, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    match node {
        Node::Sequence(children) => {
            for child in children {
                node_text(ir, child, rule, depth, out);
            }
        }
        Node::Repeat(body) => {
            let _ = writeln!(out, "{indent}repeat until nothing new");
            node_text(ir, body, rule, depth + 1, out);
        }
        Node::SemiNaive {
            initial, rounds, ..
        } => {
            let _ = writeln!(out, "{indent}semi-naive: first the exit rules");
            node_text(ir, initial, rule, depth + 1, out);
            let _ = writeln!(
                out,
                "{indent}then, while a round adds tuples, each recursive literal from the last round's (by delta)"
            );
            node_text(ir, rounds, rule, depth + 1, out);
        }
        Node::Rule { rule: r, body, .. } => {
            let flat = &ir.rules[*r];
            let _ = writeln!(out, "{indent}rule {r}: {}", rule_text(ir, flat));
            node_text(ir, body, Some(flat), depth + 1, out);
        }
        Node::Query { query, then } => {
            let _ = writeln!(out, "{indent}query {}", query_text(ir, rule, query));
            node_text(ir, then, rule, depth + 1, out);
        }
        Node::If { test, then } => {
            let sides = |pairs: &[(Arg, Arg)]| -> String {
                let parts: Vec<String> = pairs
                    .iter()
                    .map(|&(a, b)| {
                        let text = |x: Arg| match rule {
                            Some(rule) => arg_text(ir, rule, x),
                            None => format!("{x:?}"),
                        };
                        format!("{} {}", text(a), text(b))
                    })
                    .collect();
                parts.join(", ")
            };
            let text = match test {
                Test::Absent(query) => format!("absent {}", query_text(ir, rule, query)),
                Test::Distinct(pairs) => format!("distinct {}", sides(pairs)),
                Test::Equal(pairs) => format!("equal {}", sides(pairs)),
            };
            let _ = writeln!(out, "{indent}if {text}");
            node_text(ir, then, rule, depth + 1, out);
        }
        Node::Accept { relation, args } => {
            let args: Vec<String> = args
                .iter()
                .map(|&a| match rule {
                    Some(rule) => arg_text(ir, rule, a),
                    None => format!("{a:?}"),
                })
                .collect();
            let name = &ir.relation(*relation).name;
            if args.is_empty() {
                let _ = writeln!(out, "{indent}accept {name}");
            } else {
                let _ = writeln!(out, "{indent}accept ({name} {})", args.join(" "));
            }
        }
    }
}

/// The grounding of a planned game ([`crate::ground`]): which Rust backend compiles
/// it and why, the reachable atoms of every non-static relation, and the instances.
pub fn ground(ir: &Ir, plan: &Plan, source: &str) -> String {
    let mut out = String::new();
    orders_text(ir, &mut out);
    let (grounded, _) = crate::emit::ground::ground_and_emit_auto(ir, plan, source, || {
        crate::planner::tuned(ir).unwrap_or_else(|_| plan.clone())
    });
    let grounded = match grounded {
        Ok(grounded) => grounded,
        Err(reason) => {
            let _ = writeln!(out, "backend: join (the grounding stopped: {reason})");
            return out;
        }
    };
    let grounding = &grounded.grounding;
    match &grounded.module {
        Ok(_) => {
            let mut how = Vec::new();
            if grounded.projected {
                how.push("rules projected".to_owned());
            }
            if grounded.grounding.shared_relations > 0 {
                how.push("conjunctions shared".to_owned());
            }
            if let Some(work) = grounded.budget.join_work {
                how.push(format!(
                    "code budget {} literals: the join backend's work is {work} per step",
                    grounded.budget.literals
                ));
            }
            if how.is_empty() {
                let _ = writeln!(out, "backend: ground");
            } else {
                let _ = writeln!(out, "backend: ground ({})", how.join(", "));
            }
        }
        Err(reason) => {
            let _ = writeln!(out, "backend: join ({reason})");
        }
    }
    let _ = writeln!(
        out,
        "{} reachable atoms, {} rule instances, {} ground literals",
        grounding.atoms.len(),
        grounding.instances.len(),
        grounding.literal_count()
    );
    if let Ok(size) = crate::emit::ground::code_size(ir, grounding, grounded.budget) {
        let _ = writeln!(
            out,
            "code: {} literals per state ({} reads as emitted), {} per joint move ({}), {} for goals ({})",
            size.state,
            size.state_reads,
            size.moves,
            if size.keyed_program {
                format!(
                    "those under one move a keyed program, {} per move",
                    size.keyed_per_move
                )
            } else {
                "straight-line".to_owned()
            },
            size.goals,
            if size.goals_program {
                "a program"
            } else {
                "straight-line"
            }
        );
        let _ = writeln!(
            out,
            "word-parallel families: {} ({} atoms); atoms computed under a guard: {}; with a demand guard: {}",
            size.families, size.family_atoms, size.guarded, size.demand_guarded
        );
    }
    for (r, relation) in ir.relations.iter().enumerate() {
        let atoms = grounding.of(crate::ir::RelationId(r as u32));
        if atoms.is_empty() {
            continue;
        }
        let instances = grounding
            .instances
            .iter()
            .filter(|i| atoms.contains(&i.head))
            .count();
        let _ = writeln!(
            out,
            "{}: {} atoms, {} instances",
            relation.key(),
            atoms.len(),
            instances
        );
    }
    for k in 0..grounding.aux_phases.len() {
        let relation = crate::ir::RelationId((ir.relations.len() + k) as u32);
        let atoms = grounding.of(relation);
        let instances = grounding
            .instances
            .iter()
            .filter(|i| atoms.contains(&i.head))
            .count();
        if instances == 0 {
            // Undone: the projection did not pay.
            continue;
        }
        let _ = writeln!(
            out,
            "{} (of rule bodies): {} atoms, {} instances",
            grounding.relation_name(ir, relation),
            atoms.len(),
            instances
        );
    }
    out
}

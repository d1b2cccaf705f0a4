//! Readable text dumps of the analysis stages (`gdlc explain FILE --stage …`), the same
//! bytes for the same input: domains, flattened rules, layers.

use std::fmt::Write as _;

use crate::ir::{Arg, Entry, FlatAtom, FlatLiteral, FlatRule, Ir, Phase, SymbolId};

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

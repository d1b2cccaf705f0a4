//! The Prolog backend: the conventional translation of a GDL game into a Prolog program,
//! as Prolog-based GGP players run it, and the SWI-Prolog driver that plays it.
//!
//! It is the baseline of the benchmark suite, so it is meant to be honest and reasonably
//! tuned, not a strawman: what a careful player author would write by hand for
//! SWI-Prolog, and nothing a Prolog player would not do.
//!
//! # The translation
//!
//! - **Rules are clauses.** Each normalised rule ([`crate::normalize`]: `or` expanded,
//!   negations and `distinct` placed right after the positive literals binding their
//!   variables) becomes one clause; positive literals keep the order they were written
//!   in, as Prolog players run descriptions (GDL is written with Prolog in mind).
//!   Clauses are grouped by relation, relations in order of their first rule.
//! - **Names.** GDL relation `r/n` is predicate `g_r/n` (every game predicate carries the
//!   prefix, so a relation called `member`, `length`, `succ`, `is`, `call` or `halt`
//!   clashes with no built-in). Constants and function symbols are atoms, quoted unless
//!   they are plain lowercase identifiers that are not operators (`'mod'`, `','`, `'!'`,
//!   `'[]'`); numbers are atoms too (`'0100'` and `'100'` differ, as in GDL). Variables become `X`, `Piece` … (or `V_3` when the
//!   GDL name is not a plain identifier); a variable occurring once is `_`.
//! - **State and moves.** The state is the dynamic relation `g_true/1`, one fact per
//!   fluent, asserted and retracted by the driver; the joint move is `g_does/2` facts,
//!   asserted around the computation of `next`. SWI-Prolog's just-in-time indexing
//!   indexes `g_true(cell(X, Y, b))` on the arguments of `cell/3` (deep indexing), so no
//!   per-fluent predicates are needed.
//! - **Tests.** `distinct` is `\==` and `(not (distinct s t))` is `==`: both sides are
//!   ground where the normaliser places them. `not` is `\+`, likewise after its binders.
//! - **Cut where semantics allow.** The driver collects every answer with `findall` and
//!   deduplicates with `sort`, so only the *set* of answers matters. A positive literal
//!   whose fresh variables are used neither later in the body nor in the head can only
//!   succeed or fail; it is wrapped in `once/1`, which stops the search for further
//!   proofs of the same fact (e.g. `once(g_true(control(P)))` with `P` bound, or a
//!   proposition like `once(g_open)`). Calls to tabled predicates are left alone.
//! - **Static relations are computed once.** A relation that depends on neither `true`
//!   nor `does` and has rules is emitted under the name `gs_r` and listed in
//!   `gdlc_materialise(g_r(…), gs_r(…))` facts, dependencies first. When the driver loads
//!   the program it computes each one once and, if it has at most 1,000 answers, asserts
//!   them (deduplicated) as `g_r` facts, which the rest of the game reads with JIT
//!   indexing. A larger relation keeps its rules behind one bridging clause
//!   `g_r(…) :- gs_r(…)`: SWI-Prolog indexes a table on one or two arguments, and a
//!   bucket of a large many-column table (checkers' and chess' 65,280 `different_cells`)
//!   is slower to scan than the tuple is to derive (measured: checkers about 2.5×,
//!   chess 1.4× slower with everything materialised). So does a relation whose first
//!   1,001 answers take more than 10⁷ inferences (lists of every length, only ever
//!   called with bound arguments). A rule of `gs_r` reads other static relations
//!   through their `g_` names. Pure fact relations (`index`, `succ` tables …)
//!   are facts from the start.
//! - **Recursion terminates: by tabling, or by proof that it needs none.** SLD
//!   resolution loops on left recursion and on recursion through cyclic data
//!   (adjacency on a hex board). Every predicate of a recursive strongly connected
//!   component of the dependency graph ([`crate::normalize::deps`]) that is static is tabled
//!   (`:- table gs_r/n.`): it is computed at load time or, when it stays behind a
//!   bridge, memoised per call variant (static tables never go stale). A recursive component that
//!   depends on the state is left to plain SLD resolution when `termination` proves that
//!   every chain of recursive calls walks along a finite acyclic static relation (chess'
//!   `(next_file ?u ?w)` before `(clear_row ?w ?x ?v)`, Othello's `nextcell`, skirmish's
//!   `plus`): the static literals before each recursive call are evaluated, by the
//!   reference interpreter and within a cost bound from the analysis' domain sizes,
//!   into a graph between the key arguments of the head and of the call, which must
//!   have no cycle. Otherwise the component is tabled
//!   `:- table g_r/n as incremental.`, with `g_true/1` and `g_does/2` declared
//!   incremental, so SWI-Prolog invalidates exactly the answer tables that depend on a
//!   changed fluent or move. Tabling is the safe default but costs (incremental tables
//!   made chess, skirmish and Othello 3–6× slower than SLD), hence the proof. Games
//!   without tabled state-dependent relations pay nothing: their `g_true/1` and
//!   `g_does/2` are plain dynamic predicates.
//! - **Missing relations fail.** Relations that are called but have no rules, and the
//!   entry points the driver calls (`role`, `init`, `legal`, `next`, `terminal`,
//!   `goal`), are declared dynamic, so a call fails instead of raising an existence
//!   error (an undefined proposition is false in GDL).
//!
//! The output is deterministic: the same rules give the same bytes.
//!
//! # The driver
//!
//! [`DRIVER`] (`prolog_driver.pl`) is written next to the program ([`DRIVER_FILE`],
//! [`PROGRAM_FILE`]) and run with `swipl`; [`perft_command`] and [`playouts_command`]
//! build the command lines, [`parse_perft`] and [`parse_playouts`] read the answers. A
//! state is a sorted list of fluents mirrored by the `g_true/1` facts; a playout step
//! retracts and asserts only the fluents that change. Per state the driver tests
//! `terminal` once and computes each role's legal moves once (`findall` + `sort`); a
//! joint move is asserted as `does` facts for one `findall` of `next`. Random playouts
//! pick moves with `random_member/2` from a seeded generator, run from the initial state
//! until a terminal state (where every role's goal is queried once, as a player would),
//! and are counted with their state changes for a given wall-clock time, with
//! SWI-Prolog's separate garbage-collection thread turned off (one core). Perft counts
//! joint-move sequences exactly like [`gdlc_runtime::perft()`] (a terminal state is one
//! leaf; a non-terminal state where a role has no move is none).

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use gdlc_runtime::SimulationReport;

use crate::FrontEnd;
use crate::diagnostic::{Code, Diagnostic};
use crate::normalize::deps::{DependencyGraph, RelationKey, key_of};
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Term};

mod termination;

/// The SWI-Prolog driver: loads a program emitted by [`emit_program`] and runs perft or
/// timed random playouts (see the file's header for its command line and output).
pub const DRIVER: &str = include_str!("prolog_driver.pl");

/// The file name the driver is written to, beside the program.
pub const DRIVER_FILE: &str = "driver.pl";

/// The file name the game program is written to.
pub const PROGRAM_FILE: &str = "game.pl";

/// Alphanumeric atoms that SWI-Prolog declares as operators; they are quoted wherever
/// they stand as constants. (A test compares this list with `swipl`'s own.)
pub const OPERATOR_ATOMS: &[&str] = &[
    "as",
    "discontiguous",
    "div",
    "dynamic",
    "initialization",
    "is",
    "meta_predicate",
    "mod",
    "module_transparent",
    "multifile",
    "public",
    "rdiv",
    "rem",
    "table",
    "thread_initialization",
    "thread_local",
    "volatile",
    "xor",
];

/// The entry points the driver calls, declared dynamic when the game has no rules for
/// them.
const ENTRY_POINTS: &[(&str, usize)] = &[
    ("role", 1),
    ("init", 1),
    ("legal", 2),
    ("next", 1),
    ("terminal", 0),
    ("goal", 2),
];

/// The Prolog program of a valid game. `source_name` is named in the header.
///
/// Fails (without a location) if the front end reported errors: only valid GDL has a
/// meaning to translate.
pub fn emit_program(front: &FrontEnd, source_name: &str) -> Result<String, Diagnostic> {
    if !front.is_valid() {
        return Err(Diagnostic::error(
            Code::Structure,
            "the game description is not valid GDL; there is no Prolog program to emit",
        ));
    }
    // Domain sizes bound what the termination proof may evaluate; without them (an
    // analysis error) every recursive component is tabled.
    let ir = crate::analysis::analyze(front).ok();
    Ok(Emitter::new(&front.rules, ir.as_ref()).program(source_name))
}

/// What a relation depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Neither `true` nor `does`.
    Static,
    /// `true` but not `does`.
    State,
    /// `does`.
    Move,
}

/// How one relation is emitted.
#[derive(Clone, Debug)]
struct RelationPlan {
    key: RelationKey,
    phase: Phase,
    component: usize,
    /// Static with rules: clauses under `gs_`, facts materialised under `g_`.
    materialised: bool,
    /// In a recursive component.
    tabled: bool,
    /// Has at least one rule or fact.
    defined: bool,
}

struct Emitter<'a> {
    rules: &'a [Rule],
    graph: DependencyGraph,
    plans: Vec<RelationPlan>,
}

impl<'a> Emitter<'a> {
    fn new(rules: &'a [Rule], ir: Option<&crate::ir::Ir>) -> Self {
        let graph = DependencyGraph::build(rules);
        let true_rel = graph.relation("true", 1);
        let does_rel = graph.relation("does", 2);
        let mut defined = vec![false; graph.relations.len()];
        let mut has_body = vec![false; graph.relations.len()];
        for rule in rules {
            if let Some(rel) = graph.relation(&rule.head.name.text, rule.head.arity()) {
                defined[rel] = true;
                has_body[rel] |= !rule.body.is_empty();
            }
        }
        let phases: Vec<Phase> = (0..graph.relations.len())
            .map(|rel| {
                let cone = graph.cone(rel);
                if does_rel.is_some_and(|d| cone.contains(&d)) {
                    Phase::Move
                } else if true_rel.is_some_and(|t| cone.contains(&t)) {
                    Phase::State
                } else {
                    Phase::Static
                }
            })
            .collect();
        let is_static: Vec<bool> = phases.iter().map(|&p| p == Phase::Static).collect();
        // Recursive components that depend on the state: tabled unless SLD resolution
        // provably terminates on them.
        let candidates: Vec<usize> = (0..graph.components.len())
            .filter(|&c| graph.recursive[c] && graph.components[c].iter().any(|&r| !is_static[r]))
            .collect();
        let cost = match ir {
            Some(ir) => termination::rule_costs(&graph, ir),
            None => vec![None; graph.relations.len()],
        };
        let sld = termination::sld_terminating(rules, &graph, &is_static, &cost, &candidates);
        let plans = graph
            .relations
            .iter()
            .enumerate()
            .map(|(rel, key)| {
                let phase = phases[rel];
                let component = graph.component_of[rel];
                RelationPlan {
                    key: key.clone(),
                    phase,
                    component,
                    materialised: phase == Phase::Static && has_body[rel],
                    tabled: graph.recursive[component] && !sld.contains(&component),
                    defined: defined[rel],
                }
            })
            .collect();
        Emitter {
            rules,
            graph,
            plans,
        }
    }

    fn plan_of(&self, atom: &Atom) -> Option<&RelationPlan> {
        self.graph
            .relation(&atom.name.text, atom.arity())
            .map(|rel| &self.plans[rel])
    }

    /// The predicate name of `plan` as called from a clause of `caller`: the `gs_`
    /// version inside a materialised component, the `g_` version everywhere else.
    fn predicate(plan: &RelationPlan, caller: Option<&RelationPlan>) -> String {
        let inner = plan.materialised
            && caller.is_some_and(|c| c.materialised && c.component == plan.component);
        let prefix = if inner { "gs_" } else { "g_" };
        atom_text(&format!("{prefix}{}", plan.key.name))
    }

    fn program(&self, source_name: &str) -> String {
        let mut out = String::new();
        self.header(&mut out, source_name);
        self.declarations(&mut out);
        self.materialisation(&mut out);
        self.clauses(&mut out);
        out
    }

    fn header(&self, out: &mut String, source_name: &str) {
        let source: String = source_name
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let _ = writeln!(
            out,
            "% @generated by gdlc {} from {source}; do not edit.",
            env!("CARGO_PKG_VERSION")
        );
        out.push_str(
            "% The conventional Prolog translation of a GDL game (gdlc::emit::prolog):\n\
             % relation r/n is g_r/n, the state is g_true/1 facts, the joint move g_does/2\n\
             % facts. Run it with the gdlc driver (driver.pl), which materialises the\n\
             % gdlc_materialise/2 relations at load time.\n\
             \n\
             :- encoding(utf8).\n",
        );
    }

    fn declarations(&self, out: &mut String) {
        let incremental = self
            .plans
            .iter()
            .any(|p| p.tabled && p.phase != Phase::Static);
        let inputs = "[g_does/2, g_true/1]";
        if incremental {
            let _ = writeln!(out, ":- dynamic({inputs}, [incremental(true)]).");
        } else {
            let _ = writeln!(out, ":- dynamic({inputs}).");
        }
        // Relations without rules (called, or entry points) and materialised ones.
        let mut dynamic: BTreeSet<String> = BTreeSet::new();
        dynamic.insert("gdlc_materialise/2".to_owned());
        for plan in &self.plans {
            let input = matches!(
                (plan.key.name.as_str(), plan.key.arity),
                ("true", 1) | ("does", 2)
            );
            if (!plan.defined && !input) || plan.materialised {
                dynamic.insert(indicator(&Self::predicate(plan, None), plan.key.arity));
            }
        }
        for &(name, arity) in ENTRY_POINTS {
            if self.graph.relation(name, arity).is_none() {
                dynamic.insert(indicator(&atom_text(&format!("g_{name}")), arity));
            }
        }
        let list: Vec<String> = dynamic.into_iter().collect();
        let _ = writeln!(out, ":- dynamic([{}]).", list.join(", "));
        let mut tables: BTreeSet<String> = BTreeSet::new();
        for plan in self.plans.iter().filter(|p| p.tabled && p.defined) {
            let table = if plan.phase == Phase::Static {
                let name = Self::predicate(plan, Some(plan));
                format!(":- table {}.", indicator(&name, plan.key.arity))
            } else {
                let name = Self::predicate(plan, None);
                format!(
                    ":- table {} as incremental.",
                    indicator(&name, plan.key.arity)
                )
            };
            tables.insert(table);
        }
        for table in tables {
            let _ = writeln!(out, "{table}");
        }
    }

    fn materialisation(&self, out: &mut String) {
        let mut first = true;
        for component in &self.graph.components {
            for &rel in component {
                let plan = &self.plans[rel];
                if !plan.materialised {
                    continue;
                }
                if first {
                    out.push_str(
                        "\n% Static relations with rules, dependencies first. The driver computes\n\
                         % each second argument at load time and asserts its answers as facts of the\n\
                         % first, or, beyond 1000 answers, makes the first call the second.\n",
                    );
                    first = false;
                }
                let args: Vec<String> = (1..=plan.key.arity).map(|i| format!("A{i}")).collect();
                let call = |name: String| {
                    if args.is_empty() {
                        name
                    } else {
                        format!("{name}({})", args.join(", "))
                    }
                };
                let _ = writeln!(
                    out,
                    "gdlc_materialise({}, {}).",
                    call(Self::predicate(plan, None)),
                    call(Self::predicate(plan, Some(plan)))
                );
            }
        }
    }

    fn clauses(&self, out: &mut String) {
        // Relations in order of their first rule; rules in order within a relation.
        let mut order: Vec<RelationKey> = Vec::new();
        let mut groups: HashMap<RelationKey, Vec<&Rule>> = HashMap::new();
        for rule in self.rules {
            let key = key_of(&rule.head);
            let group = groups.entry(key.clone()).or_default();
            if group.is_empty() {
                order.push(key);
            }
            group.push(rule);
        }
        for key in order {
            let Some(rel) = self.graph.relation(&key.name, key.arity) else {
                continue;
            };
            let plan = &self.plans[rel];
            let phase = match plan.phase {
                Phase::Static if plan.materialised => "static, computed at load time",
                Phase::Static => "static facts",
                Phase::State => "state",
                Phase::Move => "move",
            };
            let tabled = if plan.tabled {
                ", tabled"
            } else if self.graph.recursive[plan.component] {
                ", recursive, terminates untabled"
            } else {
                ""
            };
            let _ = writeln!(out, "\n% {key} ({phase}{tabled})");
            for rule in groups.get(&key).into_iter().flatten() {
                self.clause(out, rule, plan);
            }
        }
    }

    fn clause(&self, out: &mut String, rule: &Rule, plan: &RelationPlan) {
        let vars = VarNames::of(rule);
        let head = call_text(&Self::predicate(plan, Some(plan)), &rule.head.args, &vars);
        if rule.body.is_empty() {
            let _ = writeln!(out, "{head}.");
            return;
        }
        // Variables used at or after each literal, and in the head.
        let mut used_after: Vec<BTreeSet<&str>> = vec![BTreeSet::new(); rule.body.len() + 1];
        let last = rule.body.len();
        rule.head.for_each_var(&mut |v| {
            used_after[last].insert(v.text.as_str());
        });
        for (i, literal) in rule.body.iter().enumerate().rev() {
            let mut set = used_after[i + 1].clone();
            literal.for_each_var(&mut |v| {
                set.insert(v.text.as_str());
            });
            used_after[i] = set;
        }
        let mut bound: BTreeSet<&str> = BTreeSet::new();
        let mut goals = Vec::with_capacity(rule.body.len());
        for (i, literal) in rule.body.iter().enumerate() {
            let goal = match literal {
                Literal::Pos(atom) => {
                    let callee = self.plan_of(atom);
                    let name = callee.map_or_else(
                        || atom_text(&format!("g_{}", atom.name.text)),
                        |c| Self::predicate(c, Some(plan)),
                    );
                    let text = call_text(&name, &atom.args, &vars);
                    let mut needed = false;
                    atom.for_each_var(&mut |v| {
                        let name = v.text.as_str();
                        needed |= !bound.contains(name) && used_after[i + 1].contains(name);
                    });
                    atom.for_each_var(&mut |v| {
                        bound.insert(v.text.as_str());
                    });
                    if needed || callee.is_some_and(|c| c.tabled) {
                        text
                    } else {
                        format!("once({text})")
                    }
                }
                Literal::Neg(atom) => {
                    let name = self.plan_of(atom).map_or_else(
                        || atom_text(&format!("g_{}", atom.name.text)),
                        |c| Self::predicate(c, Some(plan)),
                    );
                    format!("\\+ {}", call_text(&name, &atom.args, &vars))
                }
                Literal::Distinct(a, b, _) => {
                    format!("{} \\== {}", term_text(a, &vars), term_text(b, &vars))
                }
                Literal::Equal(a, b, _) => {
                    format!("{} == {}", term_text(a, &vars), term_text(b, &vars))
                }
            };
            goals.push(goal);
        }
        let _ = writeln!(out, "{head} :-\n    {}.", goals.join(",\n    "));
    }
}

/// `name/arity`.
fn indicator(name: &str, arity: usize) -> String {
    format!("{name}/{arity}")
}

/// The Prolog names of one clause's variables.
struct VarNames {
    names: HashMap<String, String>,
}

impl VarNames {
    fn of(rule: &Rule) -> Self {
        let mut order: Vec<String> = Vec::new();
        let mut count: HashMap<String, usize> = HashMap::new();
        let mut note = |name: &str| {
            let n = count.entry(name.to_owned()).or_insert(0);
            if *n == 0 {
                order.push(name.to_owned());
            }
            *n += 1;
        };
        rule.head.for_each_var(&mut |v| note(&v.text));
        for literal in &rule.body {
            literal.for_each_var(&mut |v| note(&v.text));
        }
        let names = order
            .iter()
            .enumerate()
            .map(|(i, gdl)| {
                let prolog = if count.get(gdl).copied().unwrap_or(0) <= 1 {
                    "_".to_owned()
                } else {
                    var_text(gdl, i)
                };
                (gdl.clone(), prolog)
            })
            .collect();
        VarNames { names }
    }

    fn get(&self, gdl: &str) -> &str {
        self.names.get(gdl).map_or("_", String::as_str)
    }
}

/// A Prolog variable for GDL variable `gdl` (lowercase, without `?`), the `index`-th of
/// its clause: the name capitalised if it is a plain identifier, else `V_index` (plain
/// names have no underscore, so the two kinds never meet).
fn var_text(gdl: &str, index: usize) -> String {
    let mut chars = gdl.chars();
    match chars.next() {
        Some(first)
            if first.is_ascii_lowercase()
                && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()) =>
        {
            let mut name = first.to_ascii_uppercase().to_string();
            name.push_str(&gdl[1..]);
            name
        }
        _ => format!("V_{index}"),
    }
}

/// A Prolog atom for a GDL symbol: as is when it is a plain lowercase identifier that is
/// not an operator, quoted otherwise.
pub fn atom_text(symbol: &str) -> String {
    let mut chars = symbol.chars();
    let plain = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !OPERATOR_ATOMS.contains(&symbol);
    if plain {
        return symbol.to_owned();
    }
    let mut quoted = String::with_capacity(symbol.len() + 2);
    quoted.push('\'');
    for c in symbol.chars() {
        match c {
            '\'' => quoted.push_str("\\'"),
            '\\' => quoted.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(quoted, "\\x{:x}\\", u32::from(c));
            }
            c => quoted.push(c),
        }
    }
    quoted.push('\'');
    quoted
}

fn call_text(name: &str, args: &[Term], vars: &VarNames) -> String {
    if args.is_empty() {
        return name.to_owned();
    }
    let args: Vec<String> = args.iter().map(|arg| term_text(arg, vars)).collect();
    format!("{name}({})", args.join(", "))
}

fn term_text(term: &Term, vars: &VarNames) -> String {
    match term {
        Term::Var(name) => vars.get(&name.text).to_owned(),
        Term::Const(name) => atom_text(&name.text),
        Term::Func { name, args, .. } => call_text(&atom_text(&name.text), args, vars),
    }
}

/// The `swipl` command that prints perft of the program in `dir` for each depth
/// `1..=depth`, as lines `perft<TAB>depth<TAB>count` (see [`parse_perft`]).
pub fn perft_command(dir: &Path, depth: u32) -> Command {
    let mut command = swipl(dir);
    command.arg("perft").arg(depth.to_string());
    command
}

/// The `swipl` command that runs seeded random playouts of the program in `dir` for
/// about `seconds` and prints one line
/// `playouts<TAB>N<TAB>states<TAB>M<TAB>seconds<TAB>S` (see [`parse_playouts`]); a
/// playout longer than `max_steps` is an error.
pub fn playouts_command(dir: &Path, seconds: f64, seed: u64, max_steps: u64) -> Command {
    let mut command = swipl(dir);
    command
        .arg("playouts")
        .arg(seconds.to_string())
        .arg(seed.to_string())
        .arg(max_steps.to_string());
    command
}

fn swipl(dir: &Path) -> Command {
    let mut command = Command::new("swipl");
    // No personal init file; the driver is the script, the program its first argument.
    command
        .arg("-f")
        .arg("none")
        .arg(dir.join(DRIVER_FILE))
        .arg("--")
        .arg(dir.join(PROGRAM_FILE));
    command
}

/// The driver printed something this module does not understand.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unexpected output from the Prolog driver: {0}")]
pub struct OutputError(pub String);

/// Reads the driver's perft lines: `(depth, count)` in order.
pub fn parse_perft(stdout: &str) -> Result<Vec<(u32, u64)>, OutputError> {
    let mut counts = Vec::new();
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["perft", depth, count] => {
                let depth = depth.parse().map_err(|_| OutputError(line.to_owned()))?;
                let count = count.parse().map_err(|_| OutputError(line.to_owned()))?;
                counts.push((depth, count));
            }
            _ => return Err(OutputError(line.to_owned())),
        }
    }
    Ok(counts)
}

/// Reads the driver's playout line.
pub fn parse_playouts(stdout: &str) -> Result<SimulationReport, OutputError> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("playouts\t"))
        .ok_or_else(|| OutputError(stdout.trim().to_owned()))?;
    let fields: Vec<&str> = line.split('\t').collect();
    let bad = || OutputError(line.to_owned());
    match fields.as_slice() {
        ["playouts", playouts, "states", states, "seconds", seconds] => {
            let seconds: f64 = seconds.parse().map_err(|_| bad())?;
            Ok(SimulationReport {
                playouts: playouts.parse().map_err(|_| bad())?,
                states: states.parse().map_err(|_| bad())?,
                elapsed: Duration::try_from_secs_f64(seconds).map_err(|_| bad())?,
            })
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoms_are_quoted_when_needed() {
        assert_eq!(atom_text("cell"), "cell");
        assert_eq!(atom_text("g_cell_2"), "g_cell_2");
        assert_eq!(atom_text("1"), "'1'");
        assert_eq!(atom_text("0100"), "'0100'");
        assert_eq!(atom_text("index++"), "'index++'");
        assert_eq!(atom_text("mod"), "'mod'");
        assert_eq!(atom_text("it's"), "'it\\'s'");
        assert_eq!(atom_text("a\\b"), "'a\\\\b'");
        assert_eq!(atom_text("Ω"), "'Ω'");
    }

    #[test]
    fn variables_are_named_without_collisions() {
        assert_eq!(var_text("x", 0), "X");
        assert_eq!(var_text("piece2", 3), "Piece2");
        assert_eq!(var_text("a-b", 3), "V_3");
        assert_eq!(var_text("a_b", 4), "V_4");
        assert_eq!(var_text("1x", 5), "V_5");
    }

    #[test]
    fn driver_output_is_parsed() {
        assert_eq!(
            parse_perft("perft\t1\t9\nperft\t2\t72\n"),
            Ok(vec![(1, 9), (2, 72)])
        );
        assert!(parse_perft("perft\t1\n").is_err());
        let report =
            parse_playouts("playouts\t10\tstates\t90\tseconds\t2.000000\n").expect("parses");
        assert_eq!((report.playouts, report.states), (10, 90));
        assert!((report.playouts_per_second() - 5.0).abs() < 1e-9);
        assert!(parse_playouts("nothing").is_err());
    }
}

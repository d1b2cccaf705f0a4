//! Which recursive state-dependent components SLD resolution evaluates to the end, so
//! that they need no tabling.
//!
//! Tabling is safe but not free (SWI-Prolog's incremental tables cost chess, skirmish
//! and Othello a factor of 3 to 6), and the recursions of real games are almost always
//! walks along a static, acyclic relation: `(next_file ?u ?w)` before the recursive
//! `(clear_row ?w ?x ?v)`. A component is left untabled when this module proves that
//! such a walk bounds every recursive call:
//!
//! 1. For each relation `q` of the component, choose *key* positions: those where every
//!    recursive call of `q` has a ground term or variables bound by the *static*
//!    positive literals before the call, and where (for each recursive call in a rule
//!    of `q`) the head's term is likewise bound. Positions that fail are dropped until
//!    the choice is stable.
//! 2. For each recursive call, the static literals before it (positive ones, then the
//!    `distinct`/`not` tests over their variables) relate the head's key values to the
//!    call's key values. Those pairs are computed by the reference interpreter on a
//!    probe game made of the game's static rules, and give edges
//!    `(head relation, head key) → (called relation, call key)`.
//! 3. If this finite graph has no cycle, every chain of nested recursive calls is a path
//!    in it, so it is finite, and SLD resolution terminates (the literals that were left
//!    out — on `true`, `does` — only remove edges). Otherwise the component is tabled.
//!
//! Only the static literals connected to the key variables (through shared variables)
//! are evaluated: dropping the others only adds edges. The evaluation must stay cheap,
//! so a component is given up (and tabled) when one of those literals needs a rule
//! whose variables' domains (from [`crate::analysis`]) multiply beyond
//! `MAX_RULE_COST` — a list relation of 25-element lists would never finish. Everything
//! else that cannot be decided (no analysis, a game using `gdlc_` names, which the probe
//! uses, a literal depending on `init` or `legal`, which the probe replaces, a graph
//! too large) falls back to tabling too.

use std::collections::{BTreeSet, HashMap};

use gdlc_runtime::Game;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::diagnostic::Span;
use crate::interp::Interpreter;
use crate::normalize::deps::DependencyGraph;
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Name, Term};

/// Beyond this many edges the analysis gives up (and the components are tabled).
const MAX_EDGES: usize = 1_000_000;

/// The most a rule evaluated by the probe may cost: the product of the domain sizes of
/// its variables.
const MAX_RULE_COST: f64 = 1e7;

/// The recursive calls of one component: nodes are (relation, key text) pairs.
type CallGraph = (DiGraph<(), ()>, HashMap<(usize, String), NodeIndex>);

/// A recursive call: rule `rule`'s body literal `literal`, from `head` to `callee`.
struct Call {
    rule: usize,
    literal: usize,
    head: usize,
    callee: usize,
}

/// The components among `candidates` (indices into `graph.components`) proven to
/// terminate under SLD resolution. `is_static[rel]` tells whether a relation depends on
/// neither `true` nor `does`; `cost[rel]` bounds the cost of evaluating its own rules
/// (see [`rule_costs`]), `None` when unknown.
pub(super) fn sld_terminating(
    rules: &[Rule],
    graph: &DependencyGraph,
    is_static: &[bool],
    cost: &[Option<f64>],
    candidates: &[usize],
) -> BTreeSet<usize> {
    if candidates.is_empty() || rules.iter().any(|r| r.to_string().contains("gdlc_")) {
        return BTreeSet::new();
    }
    let game = Recursions {
        rules,
        graph,
        is_static,
        cone_cost: cone_costs(graph, cost),
    };
    // Recursive calls and key positions, per candidate component.
    let mut keys: Keys = HashMap::new();
    for &component in candidates {
        for &rel in &graph.components[component] {
            keys.insert(rel, (0..graph.relations[rel].arity).collect());
        }
    }
    let calls = game.recursive_calls(&keys);
    game.narrow_keys(&calls, &mut keys);
    let (probe, given_up) = game.probe(&calls, &keys);
    let Some(graphs) = call_graphs(&probe, &calls, graph) else {
        return BTreeSet::new();
    };
    // No cycle, no tabling.
    candidates
        .iter()
        .filter(|c| !given_up.contains(c))
        .filter(|component| {
            graphs
                .get(component)
                .is_none_or(|(g, _)| !petgraph::algo::is_cyclic_directed(g))
        })
        .copied()
        .collect()
}

/// Per relation of a candidate component, its key positions.
type Keys = HashMap<usize, BTreeSet<usize>>;

/// What evaluating each relation may cost: its most expensive rule, cone included.
fn cone_costs(graph: &DependencyGraph, cost: &[Option<f64>]) -> Vec<f64> {
    (0..graph.relations.len())
        .map(|rel| {
            graph
                .cone(rel)
                .iter()
                .map(|&r| cost[r].unwrap_or(f64::INFINITY))
                .fold(0.0, f64::max)
        })
        .collect()
}

/// The game's rules and relations as the analysis reads them.
struct Recursions<'r> {
    rules: &'r [Rule],
    graph: &'r DependencyGraph,
    /// Per relation, whether it depends on neither `true` nor `does`.
    is_static: &'r [bool],
    /// Per relation, what evaluating it may cost (see [`cone_costs`]).
    cone_cost: Vec<f64>,
}

impl Recursions<'_> {
    /// The relation of an atom, if the graph has it.
    fn relation_of(&self, atom: &Atom) -> Option<usize> {
        self.graph.relation(&atom.name.text, atom.arity())
    }

    /// Whether an atom is static (or of no relation of the graph).
    fn is_static_atom(&self, atom: &Atom) -> bool {
        self.relation_of(atom).is_none_or(|rel| self.is_static[rel])
    }

    /// The recursive calls in the rules of the relations of `keys`.
    fn recursive_calls(&self, keys: &Keys) -> Vec<Call> {
        let mut calls: Vec<Call> = Vec::new();
        for (r, rule) in self.rules.iter().enumerate() {
            let Some(head) = self.relation_of(&rule.head) else {
                continue;
            };
            if !keys.contains_key(&head) {
                continue;
            }
            for (l, literal) in rule.body.iter().enumerate() {
                if let Literal::Pos(atom) = literal
                    && let Some(callee) = self.relation_of(atom)
                    && self.graph.same_component(head, callee)
                {
                    calls.push(Call {
                        rule: r,
                        literal: l,
                        head,
                        callee,
                    });
                }
            }
        }
        calls
    }

    /// The variables the static positive literals before a call bind.
    fn static_vars(&self, call: &Call) -> BTreeSet<String> {
        let mut vars = BTreeSet::new();
        for literal in &self.rules[call.rule].body[..call.literal] {
            if let Literal::Pos(atom) = literal
                && self.is_static_atom(atom)
            {
                atom.for_each_var(&mut |v| {
                    vars.insert(v.text.clone());
                });
            }
        }
        vars
    }

    /// Drops the key positions where a call's or its head's term is not bound by the
    /// static literals before the call, until the choice is stable.
    fn narrow_keys(&self, calls: &[Call], keys: &mut Keys) {
        let covered = |term: &Term, vars: &BTreeSet<String>| {
            let mut ok = true;
            term.for_each_var(&mut |v| ok &= vars.contains(&v.text));
            ok
        };
        loop {
            let mut changed = false;
            for call in calls {
                let vars = self.static_vars(call);
                let rule = &self.rules[call.rule];
                let Literal::Pos(atom) = &rule.body[call.literal] else {
                    continue;
                };
                for (rel, args) in [(call.head, &rule.head.args), (call.callee, &atom.args)] {
                    if let Some(positions) = keys.get_mut(&rel) {
                        let before = positions.len();
                        positions.retain(|&i| args.get(i).is_some_and(|t| covered(t, &vars)));
                        changed |= positions.len() != before;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The probe game: the static rules, a probe role, and one `legal` rule per call
    /// giving its edges; and the components given up.
    fn probe(&self, calls: &[Call], keys: &Keys) -> (Vec<Rule>, BTreeSet<usize>) {
        let span = Span::new(0, 0);
        let mut probe: Vec<Rule> = self
            .rules
            .iter()
            .filter(|rule| {
                // The probe has its own `legal`, and needs no initial state.
                !rule.head.is("legal", 2)
                    && !rule.head.is("init", 1)
                    && self
                        .relation_of(&rule.head)
                        .is_some_and(|rel| self.is_static[rel])
            })
            .cloned()
            .collect();
        probe.push(Rule {
            head: Atom {
                name: probe_name("role"),
                args: vec![probe_constant("gdlc_probe")],
                span,
            },
            body: Vec::new(),
            span,
        });
        let mut given_up: BTreeSet<usize> = BTreeSet::new();
        for (e, call) in calls.iter().enumerate() {
            let rule = &self.rules[call.rule];
            let Literal::Pos(atom) = &rule.body[call.literal] else {
                continue;
            };
            let (body, gives_up) = self.edge_body(call, atom, keys);
            if gives_up {
                given_up.insert(self.graph.component_of[call.head]);
            }
            if given_up.contains(&self.graph.component_of[call.head]) {
                continue;
            }
            let edge = Term::Func {
                name: probe_name("gdlc_edge"),
                args: vec![
                    probe_constant(&e.to_string()),
                    key_term(keys, call.head, &rule.head.args),
                    key_term(keys, call.callee, &atom.args),
                ],
                span,
            };
            probe.push(Rule {
                head: Atom {
                    name: probe_name("legal"),
                    args: vec![probe_constant("gdlc_probe"), edge],
                    span,
                },
                body,
                span,
            });
        }
        (probe, given_up)
    }

    /// The body of a call's edge rule (`atom` is the call): the static positive
    /// literals before it connected to the key variables, then the tests over their
    /// variables; and whether one of those literals is too costly to evaluate or
    /// needs what the probe drops, giving the component up.
    fn edge_body(&self, call: &Call, atom: &Atom, keys: &Keys) -> (Vec<Literal>, bool) {
        let rule = &self.rules[call.rule];
        let prefix = &rule.body[..call.literal];
        let mut wanted: BTreeSet<String> = BTreeSet::new();
        for &i in &keys[&call.head] {
            rule.head.args[i].for_each_var(&mut |v| {
                wanted.insert(v.text.clone());
            });
        }
        for &i in &keys[&call.callee] {
            atom.args[i].for_each_var(&mut |v| {
                wanted.insert(v.text.clone());
            });
        }
        let positives: Vec<&Atom> = prefix
            .iter()
            .filter_map(|l| match l {
                Literal::Pos(a) if self.is_static_atom(a) => Some(a),
                _ => None,
            })
            .collect();
        let chosen = connected(&positives, &mut wanted);
        let mut gives_up = false;
        let mut body: Vec<Literal> = Vec::new();
        for (a, _) in positives.iter().zip(&chosen).filter(|(_, c)| **c) {
            if self
                .relation_of(a)
                .is_some_and(|rel| self.cone_cost[rel] > MAX_RULE_COST || self.needs_dropped(rel))
            {
                gives_up = true;
            }
            body.push(Literal::Pos((*a).clone()));
        }
        // Tests over those variables, after them.
        for literal in prefix {
            let keep = match literal {
                Literal::Neg(a) => self
                    .relation_of(a)
                    .is_none_or(|rel| self.is_static[rel] && self.cone_cost[rel] <= MAX_RULE_COST),
                Literal::Distinct(..) | Literal::Equal(..) => true,
                Literal::Pos(_) => false,
            };
            let mut bound = true;
            literal.for_each_var(&mut |v| bound &= wanted.contains(&v.text));
            if keep && bound {
                body.push(literal.clone());
            }
        }
        (body, gives_up)
    }

    /// Whether a relation depends on `legal` or `init`, which the probe replaces.
    fn needs_dropped(&self, rel: usize) -> bool {
        self.graph.cone(rel).iter().any(|&r| {
            let key = &self.graph.relations[r];
            matches!((key.name.as_str(), key.arity), ("legal", 2) | ("init", 1))
        })
    }
}

/// Which of `positives` connect to the `wanted` variables through shared variables
/// (`wanted` grows by their variables).
fn connected(positives: &[&Atom], wanted: &mut BTreeSet<String>) -> Vec<bool> {
    let mut chosen = vec![false; positives.len()];
    loop {
        let mut grew = false;
        for (i, a) in positives.iter().enumerate() {
            let mut touches = false;
            a.for_each_var(&mut |v| touches |= wanted.contains(&v.text));
            if !chosen[i] && touches {
                chosen[i] = true;
                grew = true;
                a.for_each_var(&mut |v| {
                    wanted.insert(v.text.clone());
                });
            }
        }
        if !grew {
            return chosen;
        }
    }
}

/// A name of the probe game.
fn probe_name(text: &str) -> Name {
    Name {
        text: text.to_owned(),
        span: Span::new(0, 0),
    }
}

/// A constant of the probe game.
fn probe_constant(text: &str) -> Term {
    Term::Const(probe_name(text))
}

/// A relation's key values among `args`, as one term of the probe game.
fn key_term(keys: &Keys, rel: usize, args: &[Term]) -> Term {
    let args: Vec<Term> = keys[&rel].iter().map(|&i| args[i].clone()).collect();
    if args.is_empty() {
        probe_constant("gdlc_key")
    } else {
        Term::Func {
            name: probe_name("gdlc_key"),
            args,
            span: Span::new(0, 0),
        }
    }
}

/// The call graph of each component, from the probe game's legal moves; `None` when
/// they cannot be read or are too many.
fn call_graphs(
    probe: &[Rule],
    calls: &[Call],
    graph: &DependencyGraph,
) -> Option<HashMap<usize, CallGraph>> {
    let mut interpreter = Interpreter::from_rules(probe);
    let role = interpreter.role_index("gdlc_probe")?;
    let state = interpreter.initial_state();
    let mut moves = Vec::new();
    interpreter.legal_moves(&state, role, &mut moves);
    if moves.len() > MAX_EDGES {
        return None;
    }
    let mut graphs: HashMap<usize, CallGraph> = HashMap::new();
    for mv in moves {
        let text = interpreter.move_to_kif(mv);
        let Some(inner) = text
            .strip_prefix("(gdlc_edge ")
            .and_then(|t| t.strip_suffix(')'))
        else {
            continue;
        };
        let parts = crate::syntax::split_terms(inner).ok()?;
        let [(e, _), (from, _), (to, _)] = parts.as_slice() else {
            return None;
        };
        let call = e.parse::<usize>().ok().and_then(|e| calls.get(e))?;
        let component = graph.component_of[call.head];
        let (g, nodes) = graphs.entry(component).or_default();
        let mut node = |key: (usize, String)| *nodes.entry(key).or_insert_with(|| g.add_node(()));
        let a = node((call.head, from.clone()));
        let b = node((call.callee, to.clone()));
        g.add_edge(a, b, ());
    }
    Some(graphs)
}

/// The cost bound of each relation of `graph` (indexed like `graph.relations`): the
/// largest product of variable domain sizes over its own flattened rules (1 for facts);
/// `None` for relations the analysis does not know.
pub(super) fn rule_costs(graph: &DependencyGraph, ir: &crate::ir::Ir) -> Vec<Option<f64>> {
    let mut cost: HashMap<(&str, usize), f64> = HashMap::new();
    for relation in &ir.relations {
        cost.insert((relation.name.as_str(), relation.arity), 1.0);
    }
    for rule in &ir.rules {
        let relation = ir.relation(rule.head.relation);
        let product = rule
            .vars
            .iter()
            .map(|v| v.domain.len().max(1) as f64)
            .product::<f64>();
        let entry = cost
            .entry((relation.name.as_str(), relation.arity))
            .or_insert(1.0);
        *entry = entry.max(product);
    }
    graph
        .relations
        .iter()
        .map(|key| cost.get(&(key.name.as_str(), key.arity)).copied())
        .collect()
}

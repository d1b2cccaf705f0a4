//! Canonical order: how the analysis numbers symbols and lists rules, from the game's
//! structure rather than from how its text is written.
//!
//! Every later phase numbers what it meets in symbol order — argument domains are sorted
//! by [`SymbolId`], so are bitset positions, ground atoms and the state's fluent bits —
//! and walks rules and bodies in list order. Left to the text, the same game renamed or
//! reordered (what a game server's scrambler sends) would get another layout and other
//! join orders, and run slower for no reason in the game. So before the analysis:
//!
//! - **Symbols are numbered along the orders the game defines.** A static relation of two
//!   constant arguments, given by facts only, whose facts form chains (every constant at
//!   most one successor and one predecessor, no cycle: `succ`, `next_row`, a counter's
//!   step table) orders the constants of each chain of three or more from its start; a
//!   relation listed both ways (`adjacent`) orders its paths from an end, leaving aside
//!   facts that relate a constant to itself (`same or adjacent`). Longer chains
//!   are taken first; a chain meeting a constant already placed is left out. Every
//!   other symbol comes next by its structural colour ([`super::colours`]: roles by
//!   their order, the rest by the rules they occur in — a number's value is a name
//!   like any other, and a game server renames numbers too); only among symbols of one
//!   colour, integers by value, then names. A board's
//!   coordinates thus lie in board order whatever they are called, and a neighbour is
//!   one position away.
//! - **Rules are listed in a canonical order**: by a key of their head and body literals
//!   — relations' colours, constant ranks and the structural colour of variables (their places
//!   in the head, then the literals they meet: `variable_colours`, never their names)
//!   — but `role` facts first and in written order (it is the order of the roles).
//!   Rules equal under the key keep their written order.
//! - **Body literals are listed in a canonical order**: positive literals by the same
//!   key, each test (negation, `distinct`, equality) right after the first positives
//!   that bind its variables. The planner orders bodies by estimated work and breaks
//!   ties by list order; so a reordered file gives the same IR, the same plan and the
//!   same code.
//!
//! What still follows names: which of the symbols the colour refinement cannot tell
//! apart is individualised first (for a true symmetry that changes nothing but the
//! mirror image: see [`super::colours`]), and the order among rules equal under the
//! key.
//!
//! `gdlc explain --stage plan` (and `ground`) says how each column of the state's
//! fluents got its order.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::colours;
use crate::ir::{Chain, SymbolId, Symbols};
use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Term};

/// What [`canonical`] gives: the rules in canonical order, the chains that ordered
/// symbols, and the structural colour of every relation (name, arity), by which
/// relations are numbered.
pub struct Canonical {
    /// The rules in canonical order.
    pub rules: Vec<Rule>,
    /// The chains that ordered constants.
    pub chains: Vec<Chain>,
    /// Per relation, its colour ([`colours`]).
    pub relations: BTreeMap<SymbolKey, u32>,
}

/// The ranks literal and rule keys compare: of symbols, and the colours of relations.
struct Ranks {
    symbols: BTreeMap<SymbolKey, SymbolId>,
    relations: BTreeMap<SymbolKey, u32>,
}

/// The shortest chain that orders its constants.
const MIN_CHAIN: usize = 3;

/// A symbol as the analysis interns it: name and arity.
pub type SymbolKey = (String, usize);

/// Interns every symbol of `rules` into `symbols` in canonical order and returns the
/// rules in canonical order, with the chains that ordered symbols.
pub fn canonical(rules: &[Rule], symbols: &mut Symbols) -> Canonical {
    let roles = roles(rules);
    let mut chains = chains(rules, &roles);
    let tables = coordinate_tables(rules, &chains);
    chains.extend(tables);
    let mut rank_in_chain: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (c, chain) in chains.iter().enumerate() {
        for (p, constant) in chain.constants.iter().enumerate() {
            rank_in_chain.insert(constant.as_str(), (c, p));
        }
    }
    let colours = colours::colours(rules, |node| initial(node, &rank_in_chain, &roles));
    let mut keys: BTreeSet<SymbolKey> = BTreeSet::new();
    for rule in rules {
        for_each_term(rule, &mut |term| collect_symbols(term, &mut keys));
    }
    let mut ordered: Vec<SymbolKey> = keys.into_iter().collect();
    ordered.sort_by_cached_key(|(name, arity)| {
        let chained = (*arity == 0)
            .then(|| rank_in_chain.get(name.as_str()))
            .flatten();
        let colour = i64::from(colours[&(name.clone(), *arity, false)]);
        match (chained, name.parse::<i64>()) {
            (Some(&(c, p)), _) => (0, c as i64, p as i64, String::new(), *arity),
            (None, Ok(value)) if *arity == 0 => (1, colour, value, String::new(), 0),
            _ => (1, colour, i64::MAX, name.clone(), *arity),
        }
    });
    let mut rank: BTreeMap<SymbolKey, SymbolId> = BTreeMap::new();
    for key in ordered {
        let id = symbols.intern(&key.0, key.1);
        rank.insert(key, id);
    }
    let relations: BTreeMap<SymbolKey, u32> = colours
        .iter()
        .filter(|((_, _, relation), _)| *relation)
        .map(|((name, arity, _), &c)| ((name.clone(), *arity), c))
        .collect();
    let ranks = Ranks {
        symbols: rank,
        relations: relations.clone(),
    };
    let keyed = |rule: &Rule| {
        let colours = variable_colours(&rule.head, &rule.body, &ranks);
        let rule = Rule {
            head: rule.head.clone(),
            body: canonical_body(&rule.body, &ranks, &colours),
            span: rule.span,
        };
        (rule_key(&rule, &ranks, &colours), rule)
    };
    let (roles, others): (Vec<&Rule>, Vec<&Rule>) = rules
        .iter()
        .partition(|r| r.head.is("role", 1) && r.body.is_empty());
    let mut sorted: Vec<(String, Rule)> = others.into_iter().map(keyed).collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let ordered = roles
        .into_iter()
        .cloned()
        .chain(sorted.into_iter().map(|(_, rule)| rule))
        .collect();
    Canonical {
        rules: ordered,
        chains,
        relations,
    }
}

/// The roles' names in the order of their `role` facts.
fn roles(rules: &[Rule]) -> Vec<&str> {
    let mut roles: Vec<&str> = Vec::new();
    for rule in rules {
        if rule.head.is("role", 1)
            && rule.body.is_empty()
            && let Term::Const(name) = &rule.head.args[0]
            && !roles.contains(&name.text.as_str())
        {
            roles.push(&name.text);
        }
    }
    roles
}

/// A symbol's first colour ([`colours::Initial`]): its chain's place, its value, its
/// role's index, its keyword, else its arity.
fn initial(
    (name, arity, relation): &colours::Node,
    rank_in_chain: &BTreeMap<&str, (usize, usize)>,
    roles: &[&str],
) -> colours::Initial {
    if *relation {
        return match crate::ir::Keyword::of(name, *arity) {
            Some(_) => (3, 0, 0, name.clone(), *arity),
            None => (5, 0, 0, String::new(), *arity),
        };
    }
    let chained = (*arity == 0)
        .then(|| rank_in_chain.get(name.as_str()))
        .flatten();
    let role = (*arity == 0)
        .then(|| roles.iter().position(|r| r == name))
        .flatten();
    match (chained, name.parse::<i64>(), role) {
        (Some(&(c, p)), _, _) => (0, c as i64, p as i64, String::new(), 0),
        (None, _, Some(r)) => (2, r as i64, 0, String::new(), 0),
        _ => (4, 0, 0, String::new(), *arity),
    }
}

/// `body` in canonical order: its positive literals by key, each test (negation,
/// `distinct`, equality) right after the positives that bind its variables
/// ([`crate::normalize::place_tests`]), tests by key among themselves.
fn canonical_body(body: &[Literal], rank: &Ranks, colours: &Colours) -> Vec<Literal> {
    let keyed = |literals: Vec<&Literal>| {
        let mut keyed: Vec<(String, Literal)> = literals
            .into_iter()
            .map(|l| (literal_key(l, rank, colours), l.clone()))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        keyed.into_iter().map(|(_, l)| l).collect::<Vec<Literal>>()
    };
    let (positives, tests): (Vec<&Literal>, Vec<&Literal>) =
        body.iter().partition(|l| matches!(l, Literal::Pos(_)));
    crate::normalize::place_tests(keyed(positives), keyed(tests))
}

/// `f` on every term at argument level of `rule` (heads, atoms, tests).
fn for_each_term<'a>(rule: &'a Rule, f: &mut impl FnMut(&'a Term)) {
    rule.head.args.iter().for_each(&mut *f);
    for literal in &rule.body {
        match literal {
            Literal::Pos(atom) | Literal::Neg(atom) => atom.args.iter().for_each(&mut *f),
            Literal::Distinct(a, b, _) | Literal::Equal(a, b, _) => {
                f(a);
                f(b);
            }
        }
    }
}

fn collect_symbols(term: &Term, keys: &mut BTreeSet<SymbolKey>) {
    match term {
        Term::Var(_) => {}
        Term::Const(name) => {
            keys.insert((name.text.clone(), 0));
        }
        Term::Func { name, args, .. } => {
            keys.insert((name.text.clone(), args.len()));
            for arg in args {
                collect_symbols(arg, keys);
            }
        }
    }
}

/// The chains of the static binary relations given by facts (see the module docs), the
/// longest first, chains of one length by the structural colours of their relation
/// and constants (before any chain is known: [`colours`] from the roles, values and
/// keywords alone), names last; a chain that meets a constant of an earlier one is
/// left out.
fn chains(rules: &[Rule], roles: &[&str]) -> Vec<Chain> {
    let early = colours::colours(rules, |node| initial(node, &BTreeMap::new(), roles));
    let colour = |name: &str| early.get(&(name.to_owned(), 0, false)).copied();
    let derived: HashSet<(&str, usize)> = rules
        .iter()
        .filter(|r| !r.body.is_empty())
        .map(|r| (r.head.name.text.as_str(), r.head.args.len()))
        .collect();
    let mut links: BTreeMap<&str, BTreeSet<(&str, &str)>> = BTreeMap::new();
    let mut not_constants: HashSet<&str> = HashSet::new();
    let mut reflexive: HashSet<&str> = HashSet::new();
    for rule in rules.iter().filter(|r| r.body.is_empty()) {
        let name = rule.head.name.text.as_str();
        if rule.head.args.len() != 2
            || derived.contains(&(name, 2))
            || crate::ir::Keyword::of(name, 2).is_some()
        {
            continue;
        }
        match (&rule.head.args[0], &rule.head.args[1]) {
            (Term::Const(a), Term::Const(b)) if a.text != b.text => {
                links
                    .entry(name)
                    .or_default()
                    .insert((a.text.as_str(), b.text.as_str()));
            }
            // A constant related to itself: left aside if the relation turns out
            // symmetric ("same or adjacent", blocker's `cont`), else it orders nothing
            // (a table mapping some values to themselves, knightstour's `scoremap`).
            (Term::Const(_), Term::Const(_)) => {
                reflexive.insert(name);
            }
            _ => {
                not_constants.insert(name);
            }
        }
    }
    let mut found: Vec<(Option<u32>, Chain)> = Vec::new();
    for (relation, links) in links {
        if not_constants.contains(relation)
            || (reflexive.contains(relation)
                && !links.iter().all(|&(a, b)| links.contains(&(b, a))))
        {
            continue;
        }
        let relation_colour = early.get(&(relation.to_owned(), 2, true)).copied();
        found.extend(
            paths(relation, &links, &colour)
                .into_iter()
                .map(|chain| (relation_colour, chain)),
        );
    }
    found.sort_by_cached_key(|(relation_colour, chain)| {
        let colours: Vec<Option<u32>> = chain.constants.iter().map(|c| colour(c)).collect();
        (
            std::cmp::Reverse(chain.constants.len()),
            *relation_colour,
            colours,
            chain.relation.clone(),
            chain.constants.clone(),
        )
    });
    let mut found: Vec<Chain> = found.into_iter().map(|(_, chain)| chain).collect();
    let mut placed: HashSet<String> = HashSet::new();
    found.retain(|chain| {
        if chain.constants.iter().any(|c| placed.contains(c)) {
            return false;
        }
        placed.extend(chain.constants.iter().cloned());
        true
    });
    found
}

/// The constants a static table keys by chained coordinates, in the order of their
/// coordinates: team chess's `(square ?s ?f ?r)`, whose files and ranks are chains,
/// orders its squares file by file and rank by rank, whatever they are called — and a
/// neighbour in a direction is then one distance away. A relation given by facts only,
/// of two or more constant arguments, one of which (the key) holds every constant
/// once, none of them on a chain, every other argument on a chain, no two keys at the
/// same coordinates; the key's constants become a chain of the relation.
fn coordinate_tables(rules: &[Rule], chains: &[Chain]) -> Vec<Chain> {
    let mut rank: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (c, chain) in chains.iter().enumerate() {
        for (p, constant) in chain.constants.iter().enumerate() {
            rank.insert(constant.as_str(), (c, p));
        }
    }
    let derived: HashSet<(&str, usize)> = rules
        .iter()
        .filter(|r| !r.body.is_empty())
        .map(|r| (r.head.name.text.as_str(), r.head.args.len()))
        .collect();
    let mut facts: BTreeMap<(&str, usize), Vec<Vec<&str>>> = BTreeMap::new();
    let mut not_constants: HashSet<(&str, usize)> = HashSet::new();
    for rule in rules.iter().filter(|r| r.body.is_empty()) {
        let key = (rule.head.name.text.as_str(), rule.head.args.len());
        if key.1 < 2 || derived.contains(&key) || crate::ir::Keyword::of(key.0, key.1).is_some() {
            continue;
        }
        let args: Option<Vec<&str>> = rule
            .head
            .args
            .iter()
            .map(|a| match a {
                Term::Const(name) => Some(name.text.as_str()),
                _ => None,
            })
            .collect();
        match args {
            Some(args) => facts.entry(key).or_default().push(args),
            None => {
                not_constants.insert(key);
            }
        }
    }
    let mut found: Vec<Chain> = Vec::new();
    let mut placed: HashSet<&str> = HashSet::new();
    for ((name, arity), rows) in &facts {
        if not_constants.contains(&(name, *arity)) || rows.len() < MIN_CHAIN {
            continue;
        }
        for key in 0..*arity {
            let keys: BTreeSet<&str> = rows.iter().map(|row| row[key]).collect();
            let on_chains = rows
                .iter()
                .all(|row| (0..*arity).all(|i| i == key || rank.contains_key(row[i])));
            if keys.len() != rows.len()
                || !on_chains
                || keys
                    .iter()
                    .any(|k| rank.contains_key(k) || placed.contains(k))
            {
                continue;
            }
            let mut keyed: Vec<(Vec<(usize, usize)>, &str)> = rows
                .iter()
                .map(|row| {
                    let at = (0..*arity).filter(|&i| i != key).map(|i| rank[row[i]]);
                    (at.collect(), row[key])
                })
                .collect();
            keyed.sort();
            if keyed.windows(2).any(|w| w[0].0 == w[1].0) {
                continue;
            }
            placed.extend(keys);
            found.push(Chain {
                relation: format!("{name}/{arity}"),
                symmetric: false,
                constants: keyed.into_iter().map(|(_, k)| k.to_owned()).collect(),
            });
            break;
        }
    }
    found
}

/// The paths (of [`MIN_CHAIN`] constants or more) that `links` forms, if every
/// constant has at most one successor and one predecessor and there is no cycle — or,
/// for links given both ways, at most two neighbours and no cycle. Nothing otherwise.
fn paths(
    relation: &str,
    links: &BTreeSet<(&str, &str)>,
    colour: &impl Fn(&str) -> Option<u32>,
) -> Vec<Chain> {
    let symmetric = links.iter().all(|&(a, b)| links.contains(&(b, a)));
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut into: BTreeMap<&str, usize> = BTreeMap::new();
    for &(a, b) in links {
        next.entry(a).or_default().push(b);
        next.entry(b).or_default();
        *into.entry(b).or_default() += 1;
        into.entry(a).or_default();
    }
    let limit = if symmetric { 2 } else { 1 };
    if next.values().any(|n| n.len() > limit) || into.values().any(|&n| n > limit) {
        return Vec::new();
    }
    // Starts: no predecessor (directed) or one neighbour (symmetric); an end of a
    // symmetric path is taken from the one that sorts first as a symbol would.
    let starts: Vec<&str> = next
        .iter()
        .filter(|(node, out)| {
            if symmetric {
                out.len() == 1
            } else {
                into[*node] == 0
            }
        })
        .map(|(node, _)| *node)
        .collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut chains = Vec::new();
    let mut starts = starts;
    starts.sort_by_key(|s| (colour(s), fallback_key(s)));
    for start in starts {
        if seen.contains(start) {
            continue;
        }
        let mut path = vec![start];
        seen.insert(start);
        let mut at = start;
        while let Some(&step) = next[at].iter().find(|n| !seen.contains(*n)) {
            path.push(step);
            seen.insert(step);
            at = step;
        }
        if path.len() >= MIN_CHAIN {
            chains.push(Chain {
                relation: format!("{relation}/2"),
                symmetric,
                constants: path.into_iter().map(str::to_owned).collect(),
            });
        }
    }
    if seen.len() != next.len() {
        // A cycle: no start reaches it, and it orders nothing.
        return Vec::new();
    }
    chains
}

/// Integers by value before other names, which go by text.
fn fallback_key(name: &str) -> (u8, i64, &str) {
    match name.parse::<i64>() {
        Ok(value) => (0, value, ""),
        Err(_) => (1, 0, name),
    }
}

/// Per variable of a rule, a name for its place in the rule's structure (see
/// `variable_colours`).
type Colours = BTreeMap<String, String>;

/// Rounds of refinement of the variables' colours.
const COLOUR_ROUNDS: usize = 3;

/// Colours the variables of a rule by their structure, not their names: first by the
/// places they hold in the head, then, round by round, by the keys of the literals
/// they occur in (with the colours of the round before) and where in them — so two
/// literals of one relation differ in key when their variables play different parts
/// (`(cell ?x1 ?y1 b)` at the move's source against `(cell ?x2 ?y2 b)` at its target).
fn variable_colours(head: &Atom, body: &[Literal], rank: &Ranks) -> Colours {
    let mut colours: Colours = Colours::new();
    let mut at = 0;
    head.for_each_var(&mut |v| {
        let colour = colours.entry(v.text.clone()).or_default();
        colour.push_str(&format!("h{at:04}."));
        at += 1;
    });
    for literal in body {
        literal.for_each_var(&mut |v| {
            colours.entry(v.text.clone()).or_default();
        });
    }
    for _ in 0..COLOUR_ROUNDS {
        let mut refined: BTreeMap<String, Vec<String>> = colours
            .iter()
            .map(|(v, c)| (v.clone(), vec![c.clone()]))
            .collect();
        for literal in body {
            let key = literal_key(literal, rank, &colours);
            let mut at = 0;
            literal.for_each_var(&mut |v| {
                if let Some(parts) = refined.get_mut(&v.text) {
                    parts.push(format!("{key}@{at}"));
                }
                at += 1;
            });
        }
        let mut names: BTreeSet<String> = BTreeSet::new();
        let refined: BTreeMap<String, String> = refined
            .into_iter()
            .map(|(v, mut parts)| {
                parts[1..].sort();
                let name = parts.join("|");
                names.insert(name.clone());
                (v, name)
            })
            .collect();
        let number: BTreeMap<&String, usize> =
            names.iter().enumerate().map(|(i, n)| (n, i)).collect();
        colours = refined
            .iter()
            .map(|(v, name)| (v.clone(), format!("c{:06}", number[name])))
            .collect();
    }
    colours
}

/// A literal as text with every constant replaced by its rank and every variable by
/// its colour: equal for literals that differ only in variables of one colour.
fn literal_key(literal: &Literal, rank: &Ranks, colours: &Colours) -> String {
    let mut key = String::new();
    match literal {
        Literal::Pos(atom) => atom_key(atom, rank, colours, &mut key),
        Literal::Neg(atom) => {
            key.push('~');
            atom_key(atom, rank, colours, &mut key);
        }
        Literal::Distinct(a, b, _) | Literal::Equal(a, b, _) => {
            key.push_str(if matches!(literal, Literal::Distinct(..)) {
                "!="
            } else {
                "=="
            });
            term_key(a, rank, colours, &mut key);
            term_key(b, rank, colours, &mut key);
        }
    }
    key
}

fn atom_key(atom: &Atom, rank: &Ranks, colours: &Colours, key: &mut String) {
    use std::fmt::Write as _;
    let colour = rank
        .relations
        .get(&(atom.name.text.clone(), atom.args.len()))
        .copied()
        .unwrap_or(u32::MAX);
    let _ = write!(key, "(#{colour:08}.");
    key.push_str(&atom.name.text);
    key.push('/');
    key.push_str(&atom.args.len().to_string());
    for arg in &atom.args {
        term_key(arg, rank, colours, key);
    }
    key.push(')');
}

fn term_key(term: &Term, rank: &Ranks, colours: &Colours, key: &mut String) {
    use std::fmt::Write as _;
    match term {
        Term::Var(name) => {
            let _ = write!(
                key,
                " ?{}",
                colours.get(&name.text).map_or("", String::as_str)
            );
        }
        Term::Const(name) => {
            let id = rank
                .symbols
                .get(&(name.text.clone(), 0))
                .map_or(u32::MAX, |s| s.0);
            let _ = write!(key, " #{id:08}");
        }
        Term::Func { name, args, .. } => {
            let id = rank
                .symbols
                .get(&(name.text.clone(), args.len()))
                .map_or(u32::MAX, |s| s.0);
            let _ = write!(key, " (#{id:08}");
            for arg in args {
                term_key(arg, rank, colours, key);
            }
            key.push(')');
        }
    }
}

/// A rule's key: its head's, then its body literals' in order.
fn rule_key(rule: &Rule, rank: &Ranks, colours: &Colours) -> String {
    let mut key = String::new();
    atom_key(&rule.head, rank, colours, &mut key);
    for literal in &rule.body {
        key.push(' ');
        key.push_str(&literal_key(literal, rank, colours));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chains_of(rules: &[Rule]) -> Vec<Chain> {
        chains(rules, &[])
    }

    fn rules(text: &str) -> Vec<Rule> {
        let file = crate::SourceFile::new("test.kif", text);
        let parsed = crate::syntax::parse(&file);
        crate::normalize::normalize(&parsed.description).expect("normalised")
    }

    #[test]
    fn a_successor_chain_orders_its_constants_whatever_their_names() {
        let game = "(succ zeta alpha) (succ alpha mu) (succ mu beta) (index beta)";
        let chains = chains_of(&rules(game));
        assert_eq!(chains.len(), 1);
        assert_eq!(chains[0].constants, ["zeta", "alpha", "mu", "beta"]);
        let mut symbols = Symbols::default();
        canonical(&rules(game), &mut symbols);
        let ids: Vec<u32> = ["zeta", "alpha", "mu", "beta"]
            .iter()
            .map(|n| symbols.get(n, 0).expect("interned").0)
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    }

    #[test]
    fn branching_cyclic_or_derived_relations_order_nothing() {
        assert!(chains_of(&rules("(succ a b) (succ a c) (succ c d) (succ d e)")).is_empty());
        assert!(chains_of(&rules("(succ a b) (succ b c) (succ c a)")).is_empty());
        assert!(
            chains_of(&rules(
                "(succ a b) (succ b c) (succ c d) (<= (succ ?x ?y) (p ?x ?y)) (p e f)"
            ))
            .is_empty()
        );
    }

    #[test]
    fn a_symmetric_path_is_ordered_from_an_end() {
        let chains = chains_of(&rules("(adj b a) (adj a b) (adj b c) (adj c b)"));
        assert_eq!(chains.len(), 1);
        assert!(chains[0].symmetric);
        assert_eq!(chains[0].constants, ["a", "b", "c"]);
    }

    #[test]
    fn a_reflexive_symmetric_path_is_ordered_from_an_end() {
        // "Same or adjacent", as blocker's `cont` writes its columns.
        let found = chains_of(&rules(
            "(near w w) (near x x) (near y y) (near x w) (near w x) (near x y) (near y x)",
        ));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].constants, ["w", "x", "y"]);
        // One way only, a relation with a constant related to itself is a table, not
        // an order.
        assert!(chains_of(&rules("(score 1 1) (score 2 5) (score 5 7) (score 7 9)")).is_empty());
    }

    #[test]
    fn integers_of_one_colour_go_by_value_and_roles_keep_their_order() {
        let game = "(role white) (role black) (p 10) (p 9) (p 100) (init (p 1000))";
        let mut symbols = Symbols::default();
        let ordered = canonical(&rules(game), &mut symbols).rules;
        let id = |n: &str| symbols.get(n, 0).expect("interned").0;
        assert!(id("9") < id("10") && id("10") < id("100"));
        assert!(ordered[0].head.args[0].to_string() == "white");
        assert!(ordered[1].head.args[0].to_string() == "black");
    }

    #[test]
    fn the_order_does_not_depend_on_the_written_order() {
        let a = "(role x) (succ 1 2) (succ 2 3) (<= (p ?a ?b) (succ ?a ?b) (q ?b) (not (r ?a)))
                 (q 2) (r 1)";
        let b = "(r 1) (q 2) (<= (p ?a ?b) (not (r ?a)) (q ?b) (succ ?a ?b)) (succ 2 3)
                 (role x) (succ 1 2)";
        let text = |game: &str| {
            let mut symbols = Symbols::default();
            let ordered = canonical(&rules(game), &mut symbols).rules;
            let names: Vec<String> = (0..symbols.len())
                .map(|i| symbols.display(SymbolId(i as u32)))
                .collect();
            let heads: Vec<String> = ordered.iter().map(|r| r.head.to_string()).collect();
            (names, heads)
        };
        assert_eq!(text(a), text(b));
    }
}

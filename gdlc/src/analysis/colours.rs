//! Structural colours of a game's symbols: what tells two names apart when the game
//! gives them no order (no chain, not an integer), from the rules they occur in and
//! never from how they are spelled.
//!
//! Colour refinement over the rules, as for graphs: every symbol — a relation, a
//! function or a constant — starts with a colour from what the game fixes (the GDL
//! keywords, the roles in their order, the chains' places, arity),
//! then, round by round, takes as colour its old one with the places it occurs in:
//! which literal of which rule (both described by the colours of the round before, a
//! rule's body as a multiset), and where in the literal. Colours are ranks of sorted
//! signatures, so the same game renamed or reordered gets the same colours.
//!
//! Symbols the refinement cannot tell apart (a symmetric pair, most often) are then
//! individualised, as in canonical labelling: the first of the lowest shared colour
//! (by its initial colour, then an integer's value, then its name) is set apart and
//! the refinement goes on, until every symbol has a colour of its own (or 64 were set
//! apart). For a true symmetry the choice is immaterial — either symbol gives the same
//! game up to the mirror — and the others fall in line with it: the five places of a
//! symmetric line come out in one orientation, whichever way they are spelled, where
//! without it each mirror pair was ordered by its names on its own.
//!
//! `canonical` numbers symbols and lists rules by these colours, and `flatten`
//! numbers relations by them, so that the layout and the code of a ground reasoner —
//! which board comes first, which atoms share a word — follow the game's structure:
//! speedChess's six piece kinds are told apart by the moves each has.

use std::collections::BTreeMap;

use crate::normalize::{Literal, Rule};
use crate::syntax::ast::{Atom, Term};

/// A symbol: name, arity and whether it names a relation (else a function or a
/// constant).
pub type Node = (String, usize, bool);

/// Most rounds of refinement (each one reaches one step further through the rules)
/// before a fixpoint.
const MOST_ROUNDS: usize = 12;
/// Most rounds of refinement in all, those after each individualisation included.
const MOST_TOTAL_ROUNDS: usize = 160;

/// Most symbols individualised (set apart from others of their colour, see
/// [`colours`]).
const MOST_INDIVIDUALISED: usize = 64;

/// The token of a variable, a constant, a function and each kind of literal in the
/// streams colours are computed from; a colour `c` is `COLOUR + c`.
const VAR: u32 = 0;
const CONST: u32 = 1;
const FUNC: u32 = 2;
const HEAD: u32 = 3;
const POS: u32 = 4;
const NEG: u32 = 5;
const DISTINCT: u32 = 6;
const EQUAL: u32 = 7;
const COLOUR: u32 = 16;

/// What a symbol's first colour comes from, compared as it is ordered: the game's
/// own orders first (chain place, integer value), then the role index, the keyword
/// (by its fixed name) and the arity.
pub type Initial = (u8, i64, i64, String, usize);

/// The colour of every symbol of `rules`, refined from `initial` (see the module docs).
pub fn colours(rules: &[Rule], initial: impl Fn(&Node) -> Initial) -> BTreeMap<Node, u32> {
    let mut nodes: BTreeMap<Node, u32> = BTreeMap::new();
    for rule in rules {
        collect_atom(&rule.head, &mut nodes);
        for literal in &rule.body {
            match literal {
                Literal::Pos(atom) | Literal::Neg(atom) => collect_atom(atom, &mut nodes),
                Literal::Distinct(a, b, _) | Literal::Equal(a, b, _) => {
                    collect_term(a, &mut nodes);
                    collect_term(b, &mut nodes);
                }
            }
        }
    }
    let keys: Vec<Node> = nodes.keys().cloned().collect();
    let firsts: Vec<Initial> = keys.iter().map(&initial).collect();
    let mut colour = ranks(&firsts);
    for (key, &c) in keys.iter().zip(&colour) {
        nodes.insert(key.clone(), c);
    }
    let mut distinct = count_distinct(&colour);
    let mut rounds = 0;
    let mut individualised = 0;
    loop {
        for _ in 0..MOST_ROUNDS {
            if rounds == MOST_TOTAL_ROUNDS {
                break;
            }
            rounds += 1;
            let refined = refine(rules, &keys, &nodes);
            colour = ranks(&refined);
            for (key, &c) in keys.iter().zip(&colour) {
                nodes.insert(key.clone(), c);
            }
            let now = count_distinct(&colour);
            if now == distinct {
                break;
            }
            distinct = now;
        }
        if distinct == keys.len()
            || individualised == MOST_INDIVIDUALISED
            || rounds == MOST_TOTAL_ROUNDS
        {
            break;
        }
        // Individualise: the first symbol (by its initial colour, then an integer's
        // value, then its name) of the lowest colour still shared is set apart, and
        // refinement goes on.
        let shared = lowest_shared(&colour);
        let tie = |i: usize| (&firsts[i], integer_value(&keys[i]), &keys[i]);
        let chosen = (0..keys.len())
            .filter(|&i| colour[i] == shared)
            .min_by(|&a, &b| tie(a).cmp(&tie(b)))
            .expect("a shared colour has symbols");
        let split: Vec<(u32, bool)> = (0..keys.len()).map(|i| (colour[i], i != chosen)).collect();
        colour = ranks(&split);
        for (key, &c) in keys.iter().zip(&colour) {
            nodes.insert(key.clone(), c);
        }
        distinct += 1;
        individualised += 1;
    }
    nodes
}

/// An integer constant's value first (so integers of one colour are individualised
/// in ascending order), then every other symbol.
fn integer_value((name, arity, relation): &Node) -> (bool, i64) {
    match name.parse::<i64>() {
        Ok(value) if *arity == 0 && !*relation => (false, value),
        _ => (true, 0),
    }
}

/// The lowest colour two symbols or more share (there is one: fewer distinct colours
/// than symbols).
fn lowest_shared(colour: &[u32]) -> u32 {
    let mut sorted = colour.to_vec();
    sorted.sort_unstable();
    sorted
        .windows(2)
        .find(|pair| pair[0] == pair[1])
        .map(|pair| pair[0])
        .expect("a colour shared by two symbols")
}

/// One round: per symbol (in `keys` order), its signature — its colour, then the
/// places it occurs in, sorted.
fn refine(rules: &[Rule], keys: &[Node], colours: &BTreeMap<Node, u32>) -> Vec<Vec<Vec<u32>>> {
    // Every literal as a stream of tokens; a rule as its head's stream and its body's
    // streams sorted.
    let streams: Vec<Vec<Vec<u32>>> = rules
        .iter()
        .map(|rule| {
            let vars = variable_ranks(rule, colours);
            let cx = (colours, &vars);
            std::iter::once(atom_stream(HEAD, &rule.head, cx))
                .chain(rule.body.iter().map(|l| literal_stream(l, cx)))
                .collect()
        })
        .collect();
    let rule_keys: Vec<Vec<u32>> = streams
        .iter()
        .map(|literals| {
            let mut body: Vec<&Vec<u32>> = literals[1..].iter().collect();
            body.sort();
            let mut key = literals[0].clone();
            for literal in body {
                key.push(u32::MAX);
                key.extend(literal);
            }
            key
        })
        .collect();
    let rule_colour = ranks(&rule_keys);
    let literal_keys: Vec<&Vec<u32>> = streams.iter().flatten().collect();
    let literal_colour = ranks(&literal_keys);
    let index: BTreeMap<&Node, usize> = keys.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let mut signatures: Vec<Vec<Vec<u32>>> = keys.iter().map(|k| vec![vec![colours[k]]]).collect();
    let mut literal_at = 0;
    for (r, rule) in rules.iter().enumerate() {
        let literals = std::iter::once((HEAD, Some(&rule.head), None)).chain(rule.body.iter().map(
            |literal| match literal {
                Literal::Pos(atom) => (POS, Some(atom), None),
                Literal::Neg(atom) => (NEG, Some(atom), None),
                Literal::Distinct(a, b, _) => (DISTINCT, None, Some([a, b])),
                Literal::Equal(a, b, _) => (EQUAL, None, Some([a, b])),
            },
        ));
        for (kind, atom, terms) in literals {
            let context = vec![rule_colour[r], literal_colour[literal_at], kind];
            literal_at += 1;
            let mut at = |node: Node, path: &[u32]| {
                let mut place = context.clone();
                place.extend(path);
                signatures[index[&node]].push(place);
            };
            if let Some(atom) = atom {
                at((atom.name.text.clone(), atom.args.len(), true), &[]);
                for (i, arg) in atom.args.iter().enumerate() {
                    term_places(arg, &mut vec![i as u32], &mut at);
                }
            }
            for (i, term) in terms.into_iter().flatten().enumerate() {
                term_places(term, &mut vec![i as u32], &mut at);
            }
        }
    }
    for signature in &mut signatures {
        signature[1..].sort();
    }
    signatures
}

/// `at` on every symbol of `term` with its path of argument positions.
fn term_places(term: &Term, path: &mut Vec<u32>, at: &mut impl FnMut(Node, &[u32])) {
    match term {
        Term::Var(_) => {}
        Term::Const(name) => at((name.text.clone(), 0, false), path),
        Term::Func { name, args, .. } => {
            at((name.text.clone(), args.len(), false), path);
            for (i, arg) in args.iter().enumerate() {
                path.push(i as u32);
                term_places(arg, path, at);
                path.pop();
            }
        }
    }
}

/// Per variable of `rule`, the rank of the places it occurs in (literal kind, relation
/// colour, argument path) among the rule's variables: `(next ?x ?y1 ?x ?y2)` reading
/// `(succ ?y1 ?y2)` differs from one reading `(succ ?y2 ?y1)`, whatever the names.
fn variable_ranks(rule: &Rule, colours: &BTreeMap<Node, u32>) -> BTreeMap<String, u32> {
    let mut places: BTreeMap<String, Vec<Vec<u32>>> = BTreeMap::new();
    let mut literal = |kind: u32, relation: u32, terms: &[&Term]| {
        for (i, term) in terms.iter().enumerate() {
            let mut path = vec![kind, relation, i as u32];
            variable_places(term, &mut path, &mut places);
        }
    };
    let relation = |atom: &Atom| colours[&(atom.name.text.clone(), atom.args.len(), true)];
    literal(
        HEAD,
        relation(&rule.head),
        &rule.head.args.iter().collect::<Vec<_>>(),
    );
    for l in &rule.body {
        match l {
            Literal::Pos(atom) => {
                literal(POS, relation(atom), &atom.args.iter().collect::<Vec<_>>())
            }
            Literal::Neg(atom) => {
                literal(NEG, relation(atom), &atom.args.iter().collect::<Vec<_>>())
            }
            Literal::Distinct(a, b, _) => literal(DISTINCT, 0, &[a, b]),
            Literal::Equal(a, b, _) => literal(EQUAL, 0, &[a, b]),
        }
    }
    let names: Vec<String> = places.keys().cloned().collect();
    let signatures: Vec<Vec<Vec<u32>>> = places
        .into_values()
        .map(|mut p| {
            p.sort();
            p
        })
        .collect();
    names.into_iter().zip(ranks(&signatures)).collect()
}

/// Every variable of `term` with its path (after `path`'s prefix).
fn variable_places(term: &Term, path: &mut Vec<u32>, places: &mut BTreeMap<String, Vec<Vec<u32>>>) {
    match term {
        Term::Var(name) => places
            .entry(name.text.clone())
            .or_default()
            .push(path.clone()),
        Term::Const(_) => {}
        Term::Func { args, .. } => {
            for (i, arg) in args.iter().enumerate() {
                path.push(i as u32);
                variable_places(arg, path, places);
                path.pop();
            }
        }
    }
}

/// The colours of symbols and the ranks of a rule's variables a stream is written with.
type StreamContext<'a> = (&'a BTreeMap<Node, u32>, &'a BTreeMap<String, u32>);

fn literal_stream(literal: &Literal, colours: StreamContext) -> Vec<u32> {
    match literal {
        Literal::Pos(atom) => atom_stream(POS, atom, colours),
        Literal::Neg(atom) => atom_stream(NEG, atom, colours),
        Literal::Distinct(a, b, _) | Literal::Equal(a, b, _) => {
            let kind = if matches!(literal, Literal::Distinct(..)) {
                DISTINCT
            } else {
                EQUAL
            };
            let mut stream = vec![kind];
            term_stream(a, colours, &mut stream);
            term_stream(b, colours, &mut stream);
            stream
        }
    }
}

fn atom_stream(kind: u32, atom: &Atom, colours: StreamContext) -> Vec<u32> {
    let node = (atom.name.text.clone(), atom.args.len(), true);
    let mut stream = vec![kind, COLOUR + colours.0[&node]];
    for arg in &atom.args {
        term_stream(arg, colours, &mut stream);
    }
    stream
}

fn term_stream(term: &Term, colours: StreamContext, stream: &mut Vec<u32>) {
    match term {
        Term::Var(name) => {
            stream.push(VAR);
            stream.push(COLOUR + colours.1[&name.text]);
        }
        Term::Const(name) => {
            stream.push(CONST);
            stream.push(COLOUR + colours.0[&(name.text.clone(), 0, false)]);
        }
        Term::Func { name, args, .. } => {
            stream.push(FUNC);
            stream.push(COLOUR + colours.0[&(name.text.clone(), args.len(), false)]);
            for arg in args {
                term_stream(arg, colours, stream);
            }
        }
    }
}

fn collect_atom(atom: &Atom, nodes: &mut BTreeMap<Node, u32>) {
    nodes.insert((atom.name.text.clone(), atom.args.len(), true), 0);
    for arg in &atom.args {
        collect_term(arg, nodes);
    }
}

fn collect_term(term: &Term, nodes: &mut BTreeMap<Node, u32>) {
    match term {
        Term::Var(_) => {}
        Term::Const(name) => {
            nodes.insert((name.text.clone(), 0, false), 0);
        }
        Term::Func { name, args, .. } => {
            nodes.insert((name.text.clone(), args.len(), false), 0);
            for arg in args {
                collect_term(arg, nodes);
            }
        }
    }
}

/// Each item's rank among the distinct items.
fn ranks<T: Ord>(items: &[T]) -> Vec<u32> {
    let mut sorted: Vec<&T> = items.iter().collect();
    sorted.sort();
    sorted.dedup();
    items
        .iter()
        .map(|item| sorted.binary_search(&item).expect("an item") as u32)
        .collect()
}

fn count_distinct(colours: &[u32]) -> usize {
    let mut sorted = colours.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<Rule> {
        let file = crate::SourceFile::new("test.kif", text);
        let parsed = crate::syntax::parse(&file);
        crate::normalize::normalize(&parsed.description).expect("normalised")
    }

    fn first(node: &Node) -> Initial {
        (0, 0, 0, String::new(), node.1)
    }

    /// Two kinds told apart by the moves each has get distinct colours, the same in
    /// every spelling; a symmetric pair is individualised into two.
    #[test]
    fn symbols_are_told_apart_by_their_rules_not_their_names() {
        let game = |king: &str, pawn: &str, step: &str| {
            format!(
                "(<= (moves {king} ?x ?y) ({step} ?x ?y)) (<= (moves {pawn} ?x ?y) (ahead ?x ?y))
                 ({step} a b) ({step} b a) (ahead a b) (ahead b c) (side l) (side r)"
            )
        };
        let plain = colours(&rules(&game("king", "pawn", "adj")), first);
        let renamed = colours(&rules(&game("zz", "aa", "qq")), first);
        let colour = |c: &BTreeMap<Node, u32>, n: &str| c[&(n.to_owned(), 0, false)];
        assert_ne!(colour(&plain, "king"), colour(&plain, "pawn"));
        assert_eq!(colour(&plain, "king"), colour(&renamed, "zz"));
        assert_eq!(colour(&plain, "pawn"), colour(&renamed, "aa"));
        assert_ne!(colour(&plain, "l"), colour(&plain, "r"));
    }

    /// A line of five places, symmetric end to end, in four spellings: once one end is
    /// set apart the other pairs follow it, so the colours along the line are one
    /// sequence (read from the end of the lower colour) in every spelling.
    #[test]
    fn individualisation_orients_a_mirror_image_once() {
        let spellings = [
            ["a", "b", "c", "d", "e"],
            ["e", "d", "c", "b", "a"],
            ["b", "e", "a", "d", "c"],
            ["d", "a", "e", "c", "b"],
        ];
        let mut sequences = Vec::new();
        for names in spellings {
            let mut text = String::from("(<= (near ?x ?z) (adj ?x ?y) (adj ?y ?z))");
            for pair in names.windows(2) {
                text += &format!(" (adj {0} {1}) (adj {1} {0})", pair[0], pair[1]);
            }
            let colours = colours(&rules(&text), first);
            let mut sequence: Vec<u32> = names
                .iter()
                .map(|n| colours[&(n.to_string(), 0, false)])
                .collect();
            if sequence[0] > sequence[4] {
                sequence.reverse();
            }
            let mut distinct = sequence.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), 5, "{names:?}: {sequence:?}");
            sequences.push(sequence);
        }
        assert!(sequences.windows(2).all(|w| w[0] == w[1]), "{sequences:?}");
    }
}

//! `gdlc scramble`: the same game in another spelling, to test that nothing depends on it.
//!
//! GDL means the same whatever its symbols are called and in whatever order its rules and
//! body literals are written, and game servers use that: ggp-base's server sends every
//! game with each non-numeric constant and variable renamed to a dictionary word by
//! default. A reasoner whose speed or answers follow the spelling is wrong, so this
//! module writes such spellings, seeded and deterministic:
//!
//! - **renaming** ([`Options::rename`]): every symbol that is not a GDL keyword (at any
//!   arity: `base`, `input`, `random` included) and every variable gets a fresh random
//!   word, one word per name for the whole file (symbols are read case-insensitively, as
//!   the parser does). Numbers are renamed too unless [`Options::keep_numbers`] (what
//!   ggp-base's scrambler does), but for the goal values written in `goal` heads (and
//!   every integer 0–100 when some goal value is a variable), which must stay numbers.
//! - **reordering** ([`Options::reorder`]): the sentences of the file are shuffled (the
//!   `role` facts keep their order among themselves: it is the order of the roles), and
//!   so are the literals of every rule body and of every `or`/`and` in it.
//!
//! Comments are dropped. The output parses to a description with exactly the same
//! meaning: perft and every goal are unchanged (tests in `tests/scramble.rs`).

use std::collections::{BTreeMap, BTreeSet};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::diagnostic::{Diagnostic, SourceFile};
use crate::syntax::{SExpr, read_sexprs};

/// What to change (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The seed of every random choice: the same seed gives the same output.
    pub seed: u64,
    /// Rename symbols and variables.
    pub rename: bool,
    /// Keep numbers as they are (rename only the other symbols).
    pub keep_numbers: bool,
    /// Shuffle sentences and body literals.
    pub reorder: bool,
}

impl Options {
    /// Everything renamed (numbers too) and reordered.
    pub fn all(seed: u64) -> Options {
        Options {
            seed,
            rename: true,
            keep_numbers: false,
            reorder: true,
        }
    }
}

/// Names GDL gives meaning to, never renamed.
const RESERVED: [&str; 18] = [
    "<=", "not", "or", "and", "distinct", "role", "init", "true", "next", "legal", "does", "goal",
    "terminal", "sees", "base", "input", "random", "=",
];

/// The text of `file` in another spelling, or its first syntax error.
pub fn scramble(file: &SourceFile, options: &Options) -> Result<String, Diagnostic> {
    let mut sentences = read_sexprs(&file.text)?;
    let mut rng = Pcg64Mcg::seed_from_u64(options.seed);
    let names = if options.rename {
        Renaming::new(&sentences, options, &mut rng)
    } else {
        Renaming::default()
    };
    if options.reorder {
        // The role facts keep their order among themselves: it is the game's order of
        // the roles (of joint moves and goals), not a matter of spelling.
        let roles: Vec<SExpr> = sentences
            .iter()
            .filter(|s| is_role_fact(s))
            .cloned()
            .collect();
        shuffle(&mut sentences, &mut rng);
        let mut roles = roles.into_iter();
        for sentence in sentences.iter_mut().filter(|s| is_role_fact(s)) {
            if let Some(role) = roles.next() {
                *sentence = role;
            }
        }
        for sentence in &mut sentences {
            reorder_rule(sentence, &mut rng);
        }
    }
    let mut out = String::new();
    for sentence in &sentences {
        write_sentence(&mut out, sentence, &names);
        out.push('\n');
    }
    Ok(out)
}

/// The new name of every symbol and variable (lowercased old name → new name).
#[derive(Default)]
struct Renaming {
    symbols: BTreeMap<String, String>,
    variables: BTreeMap<String, String>,
}

impl Renaming {
    fn new(sentences: &[SExpr], options: &Options, rng: &mut Pcg64Mcg) -> Renaming {
        let mut symbols = BTreeSet::new();
        let mut variables = BTreeSet::new();
        for sentence in sentences {
            collect(sentence, &mut symbols, &mut variables);
        }
        let goal_values = GoalValues::of(sentences);
        let kept = |name: &str| {
            RESERVED.contains(&name)
                || (is_number(name) && (options.keep_numbers || goal_values.keeps(name)))
        };
        let mut taken: BTreeSet<String> = symbols.iter().filter(|s| kept(s)).cloned().collect();
        let mut fresh = |rng: &mut Pcg64Mcg| loop {
            let word = random_word(rng);
            if !RESERVED.contains(&word.as_str()) && taken.insert(word.clone()) {
                break word;
            }
        };
        let symbols = symbols
            .into_iter()
            .filter(|s| !kept(s))
            .map(|s| (s, fresh(rng)))
            .collect();
        let variables = variables.into_iter().map(|v| (v, fresh(rng))).collect();
        Renaming { symbols, variables }
    }

    fn symbol<'a>(&'a self, name: &'a str) -> &'a str {
        self.symbols
            .get(&name.to_lowercase())
            .map_or(name, String::as_str)
    }

    fn variable<'a>(&'a self, name: &'a str) -> &'a str {
        self.variables
            .get(&name.to_lowercase())
            .map_or(name, String::as_str)
    }
}

fn collect(sexpr: &SExpr, symbols: &mut BTreeSet<String>, variables: &mut BTreeSet<String>) {
    match sexpr {
        SExpr::Symbol(name, _) => {
            symbols.insert(name.to_lowercase());
        }
        SExpr::Variable(name, _) => {
            variables.insert(name[1..].to_lowercase());
        }
        SExpr::List(items, _) => items.iter().for_each(|i| collect(i, symbols, variables)),
    }
}

fn is_number(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

/// The numbers that must stay numbers: every goal value written as a constant, and
/// when some goal value is not written as a constant (a variable, whose values may be
/// numbers of other relations), every integer 0–100.
struct GoalValues {
    written: BTreeSet<String>,
    any_small: bool,
}

impl GoalValues {
    fn of(sentences: &[SExpr]) -> GoalValues {
        let mut values = GoalValues {
            written: BTreeSet::new(),
            any_small: false,
        };
        for sentence in sentences {
            let head = match sentence {
                SExpr::List(items, _) => match items.first() {
                    Some(SExpr::Symbol(s, _)) if s == "<=" => items.get(1),
                    _ => Some(sentence),
                },
                SExpr::Symbol(..) | SExpr::Variable(..) => None,
            };
            let Some(SExpr::List(items, _)) = head else {
                continue;
            };
            match items.as_slice() {
                [SExpr::Symbol(goal, _), _, value] if goal.eq_ignore_ascii_case("goal") => {
                    match value {
                        SExpr::Symbol(value, _) => {
                            values.written.insert(value.to_lowercase());
                        }
                        SExpr::Variable(..) | SExpr::List(..) => values.any_small = true,
                    }
                }
                _ => {}
            }
        }
        values
    }

    fn keeps(&self, number: &str) -> bool {
        self.written.contains(number)
            || (self.any_small && number.parse::<u32>().is_ok_and(|v| v <= 100))
    }
}

/// A pronounceable random word of two to four syllables.
fn random_word(rng: &mut Pcg64Mcg) -> String {
    const ONSETS: [&str; 20] = [
        "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
        "br", "st",
    ];
    const VOWELS: [&str; 6] = ["a", "e", "i", "o", "u", "ou"];
    let syllables = rng.random_range(2..=4);
    let mut word = String::new();
    for _ in 0..syllables {
        word.push_str(ONSETS[rng.random_range(0..ONSETS.len())]);
        word.push_str(VOWELS[rng.random_range(0..VOWELS.len())]);
    }
    word
}

/// Fisher–Yates with the scrambler's generator.
/// Whether `sentence` is a fact `(role r)`.
fn is_role_fact(sentence: &SExpr) -> bool {
    matches!(sentence, SExpr::List(items, _)
        if items.len() == 2
            && matches!(&items[0], SExpr::Symbol(name, _) if name.eq_ignore_ascii_case("role")))
}

fn shuffle<T>(items: &mut [T], rng: &mut Pcg64Mcg) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.random_range(0..=i));
    }
}

/// Shuffles the body of a rule, and the items of every `or`/`and` in it.
fn reorder_rule(sentence: &mut SExpr, rng: &mut Pcg64Mcg) {
    let SExpr::List(items, _) = sentence else {
        return;
    };
    if !matches!(items.first(), Some(SExpr::Symbol(s, _)) if s == "<=") || items.len() < 3 {
        return;
    }
    let body = &mut items[2..];
    shuffle(body, rng);
    for literal in body {
        reorder_connectives(literal, rng);
    }
}

fn reorder_connectives(literal: &mut SExpr, rng: &mut Pcg64Mcg) {
    let SExpr::List(items, _) = literal else {
        return;
    };
    match items.first() {
        Some(SExpr::Symbol(s, _))
            if s.eq_ignore_ascii_case("or") || s.eq_ignore_ascii_case("and") =>
        {
            shuffle(&mut items[1..], rng);
            for item in &mut items[1..] {
                reorder_connectives(item, rng);
            }
        }
        Some(SExpr::Symbol(s, _)) if s.eq_ignore_ascii_case("not") => {
            for item in &mut items[1..] {
                reorder_connectives(item, rng);
            }
        }
        _ => {}
    }
}

/// A sentence on one line, or a rule with one body literal per line.
fn write_sentence(out: &mut String, sentence: &SExpr, names: &Renaming) {
    match sentence {
        SExpr::List(items, _) if matches!(items.first(), Some(SExpr::Symbol(s, _)) if s == "<=") => {
            out.push_str("(<=");
            for (i, item) in items[1..].iter().enumerate() {
                out.push_str(if i == 0 { " " } else { "\n    " });
                write_term(out, item, names);
            }
            out.push(')');
        }
        _ => write_term(out, sentence, names),
    }
}

fn write_term(out: &mut String, sexpr: &SExpr, names: &Renaming) {
    match sexpr {
        SExpr::Symbol(name, _) => out.push_str(names.symbol(name)),
        SExpr::Variable(name, _) => {
            out.push('?');
            out.push_str(names.variable(&name[1..]));
        }
        SExpr::List(items, _) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_term(out, item, names);
            }
            out.push(')');
        }
    }
}

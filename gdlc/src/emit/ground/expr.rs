//! Expressions of the ground backend: a literal, an atom and a set of instances as
//! branch-free `u64` expressions over the state's and the derived atoms' words.

use super::*;

impl<'a> Layout<'a> {
    /// The value of a literal as a `u64` whose bit 0 is the truth.
    pub(super) fn literal(&self, literal: Literal) -> String {
        let (Literal::Pos(a) | Literal::Neg(a)) = literal;
        let positive = matches!(literal, Literal::Pos(_));
        let read = |array: &str, bit: usize| {
            let (w, b) = (bit / 64, bit % 64);
            if b == 0 {
                format!("{array}[{w}]")
            } else {
                format!("({array}[{w}] >> {b}u32)")
            }
        };
        let value = match self.places[a as usize] {
            Place::State(bit) => read("s", bit),
            Place::D(bit) => read("d", bit),
            Place::M(bit) => read("m", bit),
            Place::Move(role, mv) => format!("((joint[{role}] == {mv}) as u64)"),
            Place::Next(_) | Place::Never => "0".to_owned(),
        };
        if positive { value } else { format!("!{value}") }
    }

    /// The OR over an atom's instances of the AND of their literals (bit 0).
    pub(super) fn expression(&self, a: AtomId) -> String {
        self.expression_of(&self.by_head[a as usize])
    }

    /// The array, bit and polarity of a literal read from bit words (`None`: a move
    /// comparison or a constant).
    pub(super) fn bit_of(&self, literal: Literal) -> Option<(&'static str, usize, bool)> {
        let (Literal::Pos(a) | Literal::Neg(a)) = literal;
        let positive = matches!(literal, Literal::Pos(_));
        match self.places[a as usize] {
            Place::State(bit) => Some(("s", bit, positive)),
            Place::D(bit) => Some(("d", bit, positive)),
            Place::M(bit) => Some(("m", bit, positive)),
            _ => None,
        }
    }

    pub(super) fn array_words(&self, array: &str) -> usize {
        match array {
            "s" => words(self.fluents.len()),
            "d" => words(self.d_bits),
            _ => words(self.m_bits),
        }
    }

    /// Word `w` of `array` read `delta` bits further on (bit `i` of the result is bit
    /// `64 w + i + delta` of the array; bits outside the array read as 0), where only
    /// the result's bits under `mask` matter: a word none of them comes from is not
    /// read.
    pub(super) fn shifted_word(&self, array: &str, w: usize, delta: isize, mask: u64) -> String {
        let len = self.array_words(array) as isize;
        let word = |i: isize| (0..len).contains(&i).then(|| format!("{array}[{i}]"));
        let start = w as isize * 64 + delta;
        let q = start.div_euclid(64);
        let r = start.rem_euclid(64);
        let parts: Vec<String> = if r == 0 {
            word(q).into_iter().collect()
        } else {
            // The low `64 - r` bits of the result come from word `q`, the rest from
            // word `q + 1`.
            let low = (1u64 << (64 - r)) - 1;
            [
                word(q)
                    .filter(|_| mask & low != 0)
                    .map(|x| format!("({x} >> {r}u32)")),
                word(q + 1)
                    .filter(|_| mask & !low != 0)
                    .map(|x| format!("({x} << {}u32)", 64 - r)),
            ]
            .into_iter()
            .flatten()
            .collect()
        };
        match parts.len() {
            0 => "0u64".to_owned(),
            1 => parts.into_iter().next().expect("one"),
            _ => format!("({})", parts.join(" | ")),
        }
    }

    /// Word `w` of an instance shape's AND (see [`Shape`]): each literal's array read
    /// `distance - offset` bits further on, negated where the literal is negative
    /// (only the bits under `mask` matter).
    pub(super) fn shape_word(
        &self,
        shape: &[(&'static str, bool, isize)],
        w: usize,
        offset: isize,
        mask: u64,
    ) -> String {
        let parts: Vec<String> = shape
            .iter()
            .map(|&(array, positive, delta)| {
                let read = self.shifted_word(array, w, delta - offset, mask);
                if positive { read } else { format!("!{read}") }
            })
            .collect();
        parts.join(" & ")
    }

    /// The OR over some instances of the AND of their literals (bit 0). Instances of
    /// the same shape — literals from the same arrays with the same polarities at the
    /// same distances from the first — are computed together, word-parallel: the
    /// AND of the arrays shifted by those distances, under the mask of the first
    /// literals' bits, is non-zero when one of them holds.
    pub(super) fn expression_of(&self, instances: &[&Instance]) -> String {
        if instances.is_empty() {
            return "0u64".to_owned();
        }
        if instances.iter().any(|i| i.body.is_empty()) {
            return "1u64".to_owned();
        }
        // Literals every instance holds are tested once, before the rest (an occupied
        // square has no legal move to test).
        if instances.len() > 1 {
            let common: Vec<Literal> = instances[0]
                .body
                .iter()
                .copied()
                .filter(|l| instances[1..].iter().all(|i| i.body.contains(l)))
                .collect();
            if !common.is_empty() {
                let rest = without(instances.iter().copied(), &common);
                let rest_refs: Vec<&Instance> = rest.iter().collect();
                let factor: Vec<String> = common.iter().map(|&l| self.literal(l)).collect();
                let factor = factor.join(" & ");
                let inner = self.expression_of(&rest_refs);
                if inner == "1u64" {
                    return format!("({factor}) & 1");
                }
                if rest.len() > SHORT_CIRCUIT_PAST {
                    return format!("((({factor}) & 1 != 0 && ({inner}) & 1 != 0) as u64)");
                }
                return format!("(({factor}) & ({inner}))");
            }
        }
        // Shape → (first array, positions of the first literal).
        type Shape = Vec<(&'static str, bool, isize)>;
        let mut classes: BTreeMap<(&'static str, Shape), Vec<usize>> = BTreeMap::new();
        let mut scalar: Vec<&Instance> = Vec::new();
        for instance in instances {
            let bits: Option<Vec<(&'static str, usize, bool)>> =
                instance.body.iter().map(|&l| self.bit_of(l)).collect();
            let Some(mut bits) = bits else {
                scalar.push(instance);
                continue;
            };
            bits.sort_unstable();
            let (first_array, first, _) = bits[0];
            let shape: Shape = bits
                .iter()
                .map(|&(array, bit, positive)| (array, positive, bit as isize - first as isize))
                .collect();
            classes.entry((first_array, shape)).or_default().push(first);
        }
        let mut alternatives = Vec::new();
        for ((first_array, shape), firsts) in &classes {
            let mut masks = vec![0u64; self.array_words(first_array)];
            for &first in firsts {
                masks[first / 64] |= 1 << (first % 64);
            }
            let used: Vec<usize> = (0..masks.len()).filter(|&w| masks[w] != 0).collect();
            // Word-parallel when it reads fewer words than the instances one by one.
            if firsts.len() < 3 || used.len() * 2 > firsts.len() {
                for &first in firsts {
                    let parts: Vec<String> = shape
                        .iter()
                        .map(|&(array, positive, delta)| {
                            let bit = (first as isize + delta) as usize;
                            let (w, b) = (bit / 64, bit % 64);
                            let read = if b == 0 {
                                format!("{array}[{w}]")
                            } else {
                                format!("({array}[{w}] >> {b}u32)")
                            };
                            if positive { read } else { format!("!{read}") }
                        })
                        .collect();
                    alternatives.push(if parts.len() == 1 {
                        parts.into_iter().next().expect("one")
                    } else {
                        format!("({})", parts.join(" & "))
                    });
                }
                continue;
            }
            let words: Vec<String> = used
                .iter()
                .map(|&w| {
                    let mut parts: Vec<String> = shape
                        .iter()
                        .map(|&(array, positive, delta)| {
                            let read = self.shifted_word(array, w, delta, masks[w]);
                            if positive { read } else { format!("!{read}") }
                        })
                        .collect();
                    parts.push(format!("{:#x}", masks[w]));
                    format!("({})", parts.join(" & "))
                })
                .collect();
            alternatives.push(format!("((({}) != 0) as u64)", words.join(" | ")));
        }
        for instance in scalar {
            let parts: Vec<String> = instance.body.iter().map(|&l| self.literal(l)).collect();
            alternatives.push(if parts.len() == 1 {
                parts.into_iter().next().expect("one")
            } else {
                format!("({})", parts.join(" & "))
            });
        }
        if alternatives.len() > SHORT_CIRCUIT_PAST {
            // Stops at the first that holds (a player has some legal move …).
            let tests: Vec<String> = alternatives
                .iter()
                .map(|a| format!("{a} & 1 != 0"))
                .collect();
            return format!("(({}) as u64)", tests.join(" || "));
        }
        format!("({}) & 1", alternatives.join(" | "))
    }
}

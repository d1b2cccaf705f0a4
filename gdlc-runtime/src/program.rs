//! Ground rules as data: a program of `u32` words that a small interpreter evaluates
//! over the bit words of a ground reasoner ([`crate::ground`]).
//!
//! The ground backend writes rules as straight-line code, which is fastest but costs
//! rustc time in proportion to its size. When a game's code would pass a budget, its
//! goals — evaluated once per game — are written as a program instead: constant data
//! that compiles in no time, evaluated at a few instructions per literal. A program
//! computes bits of the state's atoms `d` from the state `s` and `d`.
//!
//! A program is a sequence of groups, in evaluation order:
//!
//! - group: `header` = number of atoms | [`CYCLIC`] when the atoms depend on each other
//!   (the group is then repeated until no atom changes), then its atoms;
//! - atom: its bit of `d`, the number of words of its instances, then the instances;
//! - instance: the number of its literals, then the literals; it holds when every
//!   literal does (an empty one always holds), the atom when one instance does;
//! - literal: [`FROM_D`] for a bit of `d` (else a bit of `s`), [`NEGATED`] for the
//!   negation, and the bit.
//!
//! A *forward* program ([`Forward`], [`run_forward`]) holds the same rules when no atom
//! depends on itself: its atoms numbered in evaluation order, each instance with its
//! head, and each atom's *watch list*, the instances in which it is the last literal of
//! the program, positive; the instances whose last literal of the program is negative
//! wait in that atom's *deferred list* until it is final. Only the instances of atoms
//! that become true are looked at, and those deferred (in reversi's goals, a piece
//! count along the board: 128 true atoms of 8,000).
//!
//! A *keyed* program ([`run_keyed`]) holds the `next` instances that run under one move
//! of one role (in games with thousands of moves, most of the next state's code): a
//! sequence of instances, each the bit of the next state it sets, the number of its
//! literals, then the literals, which may also read the move-dependent atoms `m`
//! ([`FROM_M`]). The generated code keeps one per move and runs the played one.

/// A group's atoms depend on each other.
pub const CYCLIC: u32 = 1 << 31;
/// Literal: a bit of the state `s`.
pub const FROM_S: u32 = 0;
/// Literal: a bit of `d`.
pub const FROM_D: u32 = 1 << 31;
/// Literal: the negation.
pub const NEGATED: u32 = 1 << 30;

/// Literal of a keyed program: a bit of the move-dependent atoms `m`.
pub const FROM_M: u32 = 1 << 29;

const BIT: u32 = (1 << 30) - 1;

/// The bit of a keyed program's literal.
const KEYED_BIT: u32 = FROM_M - 1;

#[inline(always)]
fn get(words: &[u64], bit: u32) -> bool {
    words[(bit >> 6) as usize] >> (bit & 63) & 1 != 0
}

/// Whether the instance `program[at..end]` holds.
#[inline(always)]
fn holds(program: &[u32], s: &[u64], d: &[u64], at: usize, end: usize) -> bool {
    program[at..end].iter().all(|&literal| {
        let words = if literal & FROM_D != 0 { d } else { s };
        get(words, literal & BIT) != (literal & NEGATED != 0)
    })
}

/// Evaluates the atom at `program[at]`: returns where the next one starts and whether
/// its bit was newly set. An atom already set is skipped.
#[inline(always)]
fn atom(program: &[u32], s: &[u64], d: &mut [u64], at: usize) -> (usize, bool) {
    let bit = program[at];
    let end = at + 2 + program[at + 1] as usize;
    if get(d, bit) {
        return (end, false);
    }
    let mut at = at + 2;
    while at < end {
        let instance_end = at + 1 + program[at] as usize;
        if holds(program, s, d, at + 1, instance_end) {
            d[(bit >> 6) as usize] |= 1 << (bit & 63);
            return (end, true);
        }
        at = instance_end;
    }
    (end, false)
}

/// Runs a program: sets the bits of `d` it computes from the state `s` and `d`.
pub fn run(program: &[u32], s: &[u64], d: &mut [u64]) {
    let mut at = 0;
    while at < program.len() {
        let header = program[at];
        let count = (header & !CYCLIC) as usize;
        at += 1;
        let start = at;
        loop {
            at = start;
            let mut changed = false;
            for _ in 0..count {
                let (next, newly) = atom(program, s, d, at);
                changed |= newly;
                at = next;
            }
            if header & CYCLIC == 0 || !changed {
                break;
            }
        }
    }
}

/// A list of `u32` words as little-endian bytes: generated code writes a forward
/// program's lists as byte strings, which rustc reads as one token each, where an
/// array of numbers costs it type checking per element (othello-comp2007's goals:
/// 570,000 words).
#[derive(Clone, Copy, Debug)]
pub struct Words<'a>(pub &'a [u8]);

impl<'a> Words<'a> {
    /// The `i`-th word.
    #[inline(always)]
    pub fn get(&self, i: usize) -> u32 {
        let bytes: [u8; 4] = self.0[4 * i..4 * i + 4].try_into().expect("four bytes");
        u32::from_le_bytes(bytes)
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.0.len() / 4
    }

    /// Whether there is no word.
    pub fn is_empty(&self) -> bool {
        self.0.len() < 4
    }

    /// The words `from..to`.
    #[inline(always)]
    pub fn range(self, from: usize, to: usize) -> impl Iterator<Item = u32> + 'a {
        self.0[4 * from..4 * to]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    }

    /// Words as little-endian bytes (what generated code writes as a byte string).
    pub fn encode(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// A forward program (see the module docs): the atoms of an acyclic program in
/// evaluation order, as data for [`run_forward`].
#[derive(Clone, Copy, Debug)]
pub struct Forward<'a> {
    /// Each atom's bit of `d`.
    pub bits: Words<'a>,
    /// The instances: the head atom, the number of literals, the literals (as in a
    /// program).
    pub instances: Words<'a>,
    /// Where the instances without a literal of the program or a watched fluent
    /// (*roots*) start.
    pub roots: Words<'a>,
    /// The fluents of `s` with a watch list, one bit each.
    pub fluents_watched: &'a [u64],
    /// Where each fluent's watch list starts in `fluent_watch` (one more entry at the
    /// end; only as many entries as fluents up to the last watched one).
    pub fluent_watch_at: Words<'a>,
    /// Where the instances without a literal of the program that watch one of their
    /// positive fluents start.
    pub fluent_watch: Words<'a>,
    /// Where each atom's watch list starts in `watch` (one more entry at the end).
    pub watch_at: Words<'a>,
    /// Where the instances whose last literal of the program is the atom, positive,
    /// start.
    pub watch: Words<'a>,
    /// Where each atom's deferred list starts in `deferred` (one more entry at the end).
    pub deferred_at: Words<'a>,
    /// Where the instances whose last literal of the program is the atom, negated,
    /// start.
    pub deferred: Words<'a>,
    /// The atoms with a deferred list, one bit each.
    pub deferring: &'a [u64],
}

/// The `i`-th of the lists `lists` that start at `at`.
#[inline(always)]
fn list<'a>(lists: Words<'a>, at: Words<'a>, i: usize) -> impl Iterator<Item = u32> + 'a {
    lists.range(at.get(i) as usize, at.get(i + 1) as usize)
}

/// Runs a forward program: sets the bits of `d` it computes from the state `s` and
/// `d`. An instance is looked at once: as a root; when the state holds its watched
/// fluent; when its last literal of the program (positive) becomes true; or, that
/// literal negative, once its atom is final. Every literal's atom comes before its head
/// in evaluation order, so the instance's other literals are final then too.
/// `derived`: zeroed scratch of one bit per atom (the caller's, so that nothing is
/// allocated).
pub fn run_forward(program: &Forward, s: &[u64], d: &mut [u64], derived: &mut [u64]) {
    let derived = &mut derived[..program.bits.len().div_ceil(64)];
    let instances = program.instances;
    let fire = |at: usize, d: &[u64], derived: &mut [u64]| {
        let head = instances.get(at) as usize;
        if derived[head >> 6] >> (head & 63) & 1 != 0 {
            return;
        }
        let end = at + 2 + instances.get(at + 1) as usize;
        let holds = instances.range(at + 2, end).all(|literal| {
            let words = if literal & FROM_D != 0 { d } else { s };
            get(words, literal & BIT) != (literal & NEGATED != 0)
        });
        if holds {
            derived[head >> 6] |= 1 << (head & 63);
        }
    };
    for at in program.roots.range(0, program.roots.len()) {
        fire(at as usize, d, derived);
    }
    for (w, &watched) in program.fluents_watched.iter().enumerate() {
        let mut held = s[w] & watched;
        while held != 0 {
            let fluent = w * 64 + held.trailing_zeros() as usize;
            held &= held - 1;
            for at in list(program.fluent_watch, program.fluent_watch_at, fluent) {
                fire(at as usize, d, derived);
            }
        }
    }
    // Heads come after their literals: a derived atom is only ever later in the scan.
    for w in 0..derived.len() {
        let mut done = 0u64;
        loop {
            let left = (derived[w] | program.deferring[w]) & !done;
            if left == 0 {
                break;
            }
            let b = left.trailing_zeros();
            done |= 1 << b;
            let atom = w * 64 + b as usize;
            if derived[w] >> b & 1 != 0 {
                let bit = program.bits.get(atom);
                d[(bit >> 6) as usize] |= 1 << (bit & 63);
                for at in list(program.watch, program.watch_at, atom) {
                    fire(at as usize, d, derived);
                }
            }
            if program.deferring[w] >> b & 1 != 0 {
                for at in list(program.deferred, program.deferred_at, atom) {
                    fire(at as usize, d, derived);
                }
            }
        }
    }
}

/// Runs a keyed program (see the module docs): sets the bits of the next state `n`
/// whose instances hold, reading the state `s`, its atoms `d` and the move-dependent
/// atoms `m`.
pub fn run_keyed(program: &[u32], s: &[u64], d: &[u64], m: &[u64], n: &mut [u64]) {
    let mut at = 0;
    while at < program.len() {
        let bit = program[at];
        let end = at + 2 + program[at + 1] as usize;
        let holds = program[at + 2..end].iter().all(|&literal| {
            let words = if literal & FROM_D != 0 {
                d
            } else if literal & FROM_M != 0 {
                m
            } else {
                s
            };
            get(words, literal & KEYED_BIT) != (literal & NEGATED != 0)
        });
        if holds {
            n[(bit >> 6) as usize] |= 1 << (bit & 63);
        }
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_instances_read_s_d_and_m() {
        // n3 = s1 & !d0; n70 = m2; n5 = (empty); n6 = s0 (does not hold).
        #[rustfmt::skip]
        let program = [
            3, 2, FROM_S | 1, FROM_D | NEGATED,
            70, 1, FROM_M | 2,
            5, 0,
            6, 1, FROM_S,
        ];
        let mut n = [0u64; 2];
        run_keyed(&program, &[0b10], &[0], &[0b100], &mut n);
        assert_eq!(n, [0b101000, 1 << 6]);
        let mut n = [0u64; 2];
        run_keyed(&program, &[0b10], &[1], &[0], &mut n);
        assert_eq!(n, [0b100000, 0]);
    }

    #[test]
    fn groups_instances_negation_and_recursion() {
        // d0 = s1 & !s2; d1 = d0; cyclic: d2 = s0 | d3, d3 = d2; d4 = (empty instance).
        #[rustfmt::skip]
        let program = [
            2,
            0, 3, 2, FROM_S | 1, FROM_S | NEGATED | 2,
            1, 2, 1, FROM_D,
            CYCLIC | 2,
            2, 4, 1, FROM_S, 1, FROM_D | 3,
            3, 2, 1, FROM_D | 2,
            1,
            4, 1, 0,
        ];
        let mut d = [0u64];
        run(&program, &[0b011], &mut d);
        assert_eq!(d[0], 0b11111);
        let mut d = [0u64];
        run(&program, &[0b110], &mut d);
        assert_eq!(d[0], 0b10000);
    }

    #[test]
    fn forward_programs_look_only_at_what_became_true() {
        // Atoms (bit of d = index + 8): a0 = s0; a1 = a0 & !s1; a2 = a1 | s2;
        // a3 = a0 & a2 & !a1; a4 = s3 & a3.
        #[rustfmt::skip]
        let instances = [
            0, 1, FROM_S,                                   // 0: a0, watching s0
            1, 2, FROM_D | 8, FROM_S | NEGATED | 1,         // 3: a1, watched by a0
            2, 1, FROM_D | 9,                               // 7: a2, watched by a1
            2, 1, FROM_S | 2,                               // 10: a2 (root)
            3, 3, FROM_D | 8, FROM_D | 10, FROM_D | NEGATED | 9, // 13: a3, watched by a2
            4, 2, FROM_S | 3, FROM_D | 11,                  // 18: a4, watched by a3
        ];
        // Deferred: a5 = s3 & !a1 (once a1 is final), a6 = !a4 (once a4 is).
        let instances = [
            &instances[..],
            &[5, 2, FROM_S | 3, FROM_D | NEGATED | 9], // 22
            &[6, 1, FROM_D | NEGATED | 12],            // 26
        ]
        .concat();
        let bytes: Vec<Vec<u8>> = [
            &[8, 9, 10, 11, 12, 13, 14][..],
            &instances,
            &[10],
            // a0 watches s0.
            &[0, 1],
            &[0],
            &[0, 1, 2, 3, 4, 4, 4, 4],
            &[3, 7, 13, 18],
            &[0, 0, 1, 1, 1, 2, 2, 2],
            &[22, 26],
        ]
        .iter()
        .map(|list| Words::encode(list))
        .collect();
        let program = Forward {
            bits: Words(&bytes[0]),
            instances: Words(&bytes[1]),
            roots: Words(&bytes[2]),
            fluents_watched: &[0b1],
            fluent_watch_at: Words(&bytes[3]),
            fluent_watch: Words(&bytes[4]),
            watch_at: Words(&bytes[5]),
            watch: Words(&bytes[6]),
            deferred_at: Words(&bytes[7]),
            deferred: Words(&bytes[8]),
            deferring: &[0b10010],
        };
        let run = |s: u64| {
            let mut d = [0u64];
            run_forward(&program, &[s], &mut d, &mut [0; 1]);
            d[0] >> 8
        };
        // s0 only: a0, a1, a2 (from a1); a3 needs !a1; a6.
        assert_eq!(run(0b0001), 0b1000111);
        // s0, s1, s2, s3: a0, a2 (root), a3, a4, a5.
        assert_eq!(run(0b1111), 0b0111101);
        // s2 alone: a2 only (a3 needs a0); a6.
        assert_eq!(run(0b0100), 0b1000100);
        // s3 alone: a5 (a1 does not hold), a6.
        assert_eq!(run(0b1000), 0b1100000);
    }

    #[test]
    fn recursion_reaches_through_later_atoms() {
        // cyclic: d0 = d1, d1 = d2, d2 = s0: needs three rounds in this order.
        #[rustfmt::skip]
        let program = [
            CYCLIC | 3,
            0, 2, 1, FROM_D | 1,
            1, 2, 1, FROM_D | 2,
            2, 2, 1, FROM_S,
        ];
        let mut d = [0u64];
        run(&program, &[1], &mut d);
        assert_eq!(d[0], 0b111);
    }
}

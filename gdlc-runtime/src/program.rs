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

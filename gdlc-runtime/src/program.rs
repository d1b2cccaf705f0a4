//! Ground rules as data: a program of `u32` words that a small interpreter evaluates
//! over the bit words of a ground reasoner ([`crate::ground`]).
//!
//! The ground backend writes most rules as straight-line code, which is fastest but
//! costs rustc time in proportion to its size. Beyond a budget, the coldest parts of a
//! game (goals first) are written as a program instead: constant data that compiles in
//! no time, evaluated at a few instructions per literal.
//!
//! A program is a sequence of groups, in evaluation order:
//!
//! - group: `header` = number of atoms | [`CYCLIC`] when the atoms depend on each other
//!   (the group is then repeated until no atom changes), then its atoms;
//! - atom: `target` (array in the top two bits: [`TO_D`], [`TO_M`], [`TO_N`]; the bit
//!   below), the number of words of its instances, then the instances;
//! - instance: the number of words of its literals, then the literals; it holds when
//!   every literal does (an empty one always holds), the atom when one instance does;
//! - literal: array in the top two bits ([`FROM_S`], [`FROM_D`], [`FROM_M`], or
//!   [`FROM_MOVE`]), [`NEGATED`] below, then the bit; a move literal (`joint[role] ==
//!   move`) has the role in place of the bit and the move in the next word.

/// A group's atoms depend on each other.
pub const CYCLIC: u32 = 1 << 31;
/// Target: a bit of `d` (state atoms).
pub const TO_D: u32 = 0;
/// Target: a bit of `m` (move-dependent atoms).
pub const TO_M: u32 = 1 << 30;
/// Target: a bit of `n` (the next state).
pub const TO_N: u32 = 2 << 30;
/// Literal: a bit of the state `s`.
pub const FROM_S: u32 = 0;
/// Literal: a bit of `d`.
pub const FROM_D: u32 = 1 << 30;
/// Literal: a bit of `m`.
pub const FROM_M: u32 = 2 << 30;
/// Literal: a role's move (`role`, then the move in the next word).
pub const FROM_MOVE: u32 = 3 << 30;
/// Literal: the negation.
pub const NEGATED: u32 = 1 << 29;

const ARRAY: u32 = 3 << 30;
const INDEX: u32 = (1 << 29) - 1;

#[inline(always)]
fn get(words: &[u64], bit: u32) -> bool {
    words[(bit >> 6) as usize] >> (bit & 63) & 1 != 0
}

/// The state atoms `d`: written by a program for the state, read by one for moves.
trait StateAtoms {
    fn read(&self) -> &[u64];
    fn write(&mut self) -> &mut [u64];
}

impl StateAtoms for &mut [u64] {
    fn read(&self) -> &[u64] {
        self
    }
    fn write(&mut self) -> &mut [u64] {
        self
    }
}

impl StateAtoms for &[u64] {
    fn read(&self) -> &[u64] {
        self
    }
    fn write(&mut self) -> &mut [u64] {
        unreachable!("a program for moves has no target in `d`")
    }
}

/// Where a program reads and writes.
struct Words<'a, D> {
    s: &'a [u64],
    joint: &'a [u32],
    d: D,
    m: &'a mut [u64],
    n: &'a mut [u64],
}

impl<D: StateAtoms> Words<'_, D> {
    /// Whether the instance starting at `program[at]` holds (`end`: one past it).
    #[inline(always)]
    fn holds(&self, program: &[u32], mut at: usize, end: usize) -> bool {
        while at < end {
            let word = program[at];
            let bit = word & INDEX;
            let value = match word & ARRAY {
                FROM_S => get(self.s, bit),
                FROM_D => get(self.d.read(), bit),
                FROM_M => get(self.m, bit),
                _ => {
                    at += 1;
                    self.joint[bit as usize] == program[at]
                }
            };
            if value == (word & NEGATED != 0) {
                return false;
            }
            at += 1;
        }
        true
    }

    /// Sets a target bit; whether it was clear.
    #[inline(always)]
    fn set(&mut self, target: u32) -> bool {
        let bit = target & INDEX;
        let words = match target & ARRAY {
            TO_D => self.d.write(),
            TO_M => &mut *self.m,
            _ => &mut *self.n,
        };
        let (w, mask) = ((bit >> 6) as usize, 1u64 << (bit & 63));
        let clear = words[w] & mask == 0;
        words[w] |= mask;
        clear
    }

    fn is_set(&self, target: u32) -> bool {
        let bit = target & INDEX;
        match target & ARRAY {
            TO_D => get(self.d.read(), bit),
            TO_M => get(self.m, bit),
            _ => get(self.n, bit),
        }
    }

    /// Evaluates one atom at `program[at]`; returns where the next one starts and
    /// whether its bit was newly set. An atom already set is skipped when `skip_set`.
    #[inline(always)]
    fn atom(&mut self, program: &[u32], at: usize, skip_set: bool) -> (usize, bool) {
        let target = program[at];
        let end = at + 2 + program[at + 1] as usize;
        if skip_set && self.is_set(target) {
            return (end, false);
        }
        let mut at = at + 2;
        while at < end {
            let instance_end = at + 1 + program[at] as usize;
            if self.holds(program, at + 1, instance_end) {
                return (end, self.set(target));
            }
            at = instance_end;
        }
        (end, false)
    }

    fn run(&mut self, program: &[u32]) {
        let mut at = 0;
        while at < program.len() {
            let header = program[at];
            let count = (header & !CYCLIC) as usize;
            at += 1;
            if header & CYCLIC == 0 {
                for _ in 0..count {
                    at = self.atom(program, at, false).0;
                }
                continue;
            }
            let start = at;
            loop {
                at = start;
                let mut changed = false;
                for _ in 0..count {
                    let (next, newly) = self.atom(program, at, true);
                    changed |= newly;
                    at = next;
                }
                if !changed {
                    break;
                }
            }
        }
    }
}

/// Runs a program computing state atoms (targets in `d`) from the state `s`.
pub fn run_state(program: &[u32], s: &[u64], d: &mut [u64]) {
    Words {
        s,
        joint: &[],
        d,
        m: &mut [],
        n: &mut [],
    }
    .run(program);
}

/// Runs a program computing move-dependent atoms and next-state bits (targets in `m`
/// and `n`) from the state `s`, its atoms `d` and the joint move.
pub fn run_moves(
    program: &[u32],
    s: &[u64],
    d: &[u64],
    joint: &[u32],
    m: &mut [u64],
    n: &mut [u64],
) {
    Words { s, joint, d, m, n }.run(program);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_instances_negation_and_recursion() {
        // d0 = s1 & !s2; d1 = d0 | joint[0] == 5 (never: no joint);
        // cyclic: d2 = s0 | d3, d3 = d2.
        let program = [
            2,
            TO_D,
            3,
            2,
            FROM_S | 1,
            FROM_S | NEGATED | 2,
            TO_D | 1,
            2,
            1,
            FROM_D,
            CYCLIC | 2,
            TO_D | 2,
            4,
            1,
            FROM_S,
            1,
            FROM_D | 3,
            TO_D | 3,
            2,
            1,
            FROM_D | 2,
        ];
        let mut d = [0u64];
        run_state(&program, &[0b011], &mut d);
        assert_eq!(d[0], 0b1111);
        let mut d = [0u64];
        run_state(&program, &[0b110], &mut d);
        assert_eq!(d[0], 0);
    }

    #[test]
    fn moves_and_next_state_targets() {
        // m0 = joint[1] == 7; n3 = m0 & s0; n4 = (empty instance).
        let program = [
            3,
            TO_M,
            3,
            2,
            FROM_MOVE | 1,
            7,
            TO_N | 3,
            3,
            2,
            FROM_M,
            FROM_S,
            TO_N | 4,
            1,
            0,
        ];
        let (mut m, mut n) = ([0u64], [0u64]);
        run_moves(&program, &[1], &[0], &[0, 7], &mut m, &mut n);
        assert_eq!((m[0], n[0]), (1, 0b11000));
        let (mut m, mut n) = ([0u64], [0u64]);
        run_moves(&program, &[1], &[0], &[0, 6], &mut m, &mut n);
        assert_eq!((m[0], n[0]), (0, 0b10000));
    }
}

//! The ground backend: a game grounded by [`crate::ground`] as straight-line Rust over
//! bit words, implementing [`gdlc_runtime::ground::GroundRules`].
//!
//! Layout (one bit per reachable ground atom):
//!
//! - **the state** `s`: one bit per reachable fluent, in canonical symbol order
//!   (`layout_order`: along the chains the game defines, so a board's neighbours lie at
//!   one distance whatever the coordinates are called) with each fluent's coordinate
//!   columns (chain constants) last, whatever order they were written in: one board
//!   per piece and colour, so a step or a line is one shift of a word; a board that
//!   fits a word starts one rather than straddle two, when that takes no more words
//!   (the bits between are unused, their `FLUENTS` texts empty);
//! - **moves**: every role's possible moves numbered in one range per role, by
//!   *shape* (what their legal instances read, relative to the board bit they start
//!   from: one direction of step), then by that bit, then in layout order, so a
//!   direction's moves are the board shifted, computed a word at a time;
//! - **`d`**: the state-dependent atoms — `terminal`, the goals, the word-parallel
//!   families, then each role's legal moves in move order, a run of moves that read
//!   the same but one step further on placed with the holes of what they read (see
//!   `Placing::legal_moves`: the run is one masked word, and `LEGAL_WORDS` gives the
//!   role's words and masks), then every intermediate atom an entry point needs, in
//!   evaluation order;
//! - **`m`**: the move-dependent atoms — the percepts first, then the intermediates.
//!
//! Each atom is computed once, dependencies first, as one branch-free expression: the
//! OR over its instances of the AND of their literals (a bit of `s`, `d` or `m`, or a
//! comparison of the joint move), shifted into its bit. Atoms that depend on each
//! other (recursion that the grounding did not unfold) are repeated until none
//! changes. Atoms of one relation that read the state in shapes relative to one bit
//! of theirs are a *word-parallel family* (see `Family`): a few word operations for
//! up to 64 atoms, a shape only some of them have under its mask, and a relation traced
//! one square further in each instance (a line of pieces) computed in rounds, one word
//! per direction. Frame axioms that copy a fluent unchanged — always, or under one move of
//! one role — become masks: the next state starts as `s & (COPY | FRAME_r[move])`.
//! `next` heads of one instance in one shape relative to their own bit (a step
//! counter's successor) are computed together, one masked word expression per word.
//! A word of `d` that one family owns is assigned whole, so `eval_state` clears
//! only the other words that hold atoms, but for those only goals need, which
//! `eval_goals` clears.
//!
//! `eval_state` computes what `terminal`, `legal`, `next` and `sees` need; `eval_goals`
//! adds what only goals need; `eval_moves` computes the move-dependent atoms and the
//! next state. The runtime ([`gdlc_runtime::ground::Ground`]) caches `d` per state.
//! The output is deterministic: every list is in atom, fluent or move order.
//!
//! Atoms of one level (none reads another) are computed in any order: those of one
//! instance in one shape relative to their own bit together, one masked word
//! expression per word (*head-parallel*), the others under nested guards — the
//! positive literal every instance of several atoms holds becomes an `if` around them
//! (a move's source square guards every move from it), and so on inside. An atom no
//! reader uses unless some fluent holds (see `demand_guards`) is computed under an
//! `if` on that fluent (a word-parallel family too, when all its atoms have one), and a
//! literal every instance of an atom holds is tested once.
//!
//! Size: straight-line code costs rustc time, so past [`MAX_EMITTED_LITERALS`] the
//! `next` instances that run under one move become keyed programs (data for
//! [`gdlc_runtime::program::run_keyed`], one slice per move, of which the played one
//! runs), and then the goals a program ([`gdlc_runtime::program::run_forward`], or
//! [`gdlc_runtime::program::run`] when a goal atom is recursive); the rest of the code
//! of every state and joint move must fit in straight lines, else the join backend is
//! used.
//! [`ground_and_emit`] grounds plainly first, projected (see [`crate::ground::ground`])
//! only when the plain grounding cannot be emitted, and then each of the two with
//! shared conjunctions ([`crate::ground::share`]).
//!
//! The code, by concern: this module the budgets and entry points; `layout` every
//! atom's place and the sizes a budget is weighed by; `families` word-parallel families
//! and demand guards; `expr` literals and instances as word expressions; `statements`
//! `eval_state`'s and `eval_goals`' atoms in evaluation order; `moves` `eval_moves` and
//! the next state; `programs` goals and keyed moves as data; `module` the generated
//! module around them.
//!
//! **Budgets.** The fixed budget is [`MAX_EMITTED_LITERALS`] straight-line literals (rustc's
//! time grows with them). When a game grounds but does not fit, [`ground_and_emit_auto`]
//! (what `Backend::Auto` and `gdlc explain --stage ground` use) measures the join
//! backend's tuned plan — its executor's work per sampled step,
//! [`crate::plan::Tuning::work_per_sample`] — and emits again under a measured budget: up to
//! [`MAX_MEASURED_LITERALS`] literals, when the code run for every state is at most
//! [`LITERALS_PER_JOIN_NODE`] literals per node of that work. The tuned plan and the
//! groundings (plain, projected, shared: `Groundings`) are made once for both budgets,
//! and so are their code sizes (`Weighed`), so the second budget refuses a grounding
//! from its sizes; a grounding past the budget by more than sharing can shrink
//! (`MAX_SHARING_GAIN`) is not shared. Plain groundings come first: projection's
//! auxiliary atoms replace instances that would run only under one move, which is
//! slower where the plain grounding fits as written.
//!
//! **Written and emitted.** Straight-line code is weighed two ways: as written (its
//! literals; a shared grounding's reads) and as emitted (the bits and words it reads:
//! a word-parallel family reads a word for up to 64 atoms, atoms under a guard do not
//! repeat its literal). Code that fits as written is taken, with what is a program
//! chosen from the emitted sizes; code that fits only as emitted is taken when it reads
//! at most [`READS_PER_JOIN_NODE`] bits and words a step per node of the join
//! backend's work (measured then, and carried in the grounding's budget), and a plain
//! grounding that fits only as emitted gives way to the projected one when that reads
//! less a step (see `Tabled::chosen`). The rules come from measurements, and the
//! emitted size counts a family computed in rounds once, so it is not taken alone.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::Diagnostic;
use crate::diagnostic::Code;
use crate::exec::term_text;
use crate::ground::{AtomId, Grounding, Instance, Literal};
use crate::ir::{Ir, Keyword, Phase, RelationId};
use crate::plan::Plan;

mod expr;
mod families;
mod layout;
mod module;
mod moves;
mod programs;
mod statements;

use families::*;

/// The most ground literals the straight-line code may hold (rustc takes about 0.2–0.3 s
/// per thousand at the release profile: capture_the_king's 28,000 in 7 s, skirmish's
/// 40,000 in 10–13 s): past it, the goals are written as a program, data for
/// [`gdlc_runtime::program`], and if the rest is still larger, the join backend is used.
pub const MAX_EMITTED_LITERALS: usize = 30_000;

/// The most ground literals the straight-line code may hold when the join backend's
/// measured work says the ground code pays for its rustc time (see [`Budget::measured`]):
/// rustc takes 5–13 s at this size (god's 52,600: 5 s; four_way_battle's 43,700: 13 s).
pub const MAX_MEASURED_LITERALS: usize = 80_000;

/// How many literals of the code run for every state one node of the join backend's
/// work is worth (see [`Budget::measured`]). A ground literal is a bit test; a join node
/// a loop step, a lookup or an insert. Measured, per state literals against the join
/// plan's work per sampled step, and the ground code's playouts/s against the join
/// backend's: a 4-player othello 0.04 and 60× faster, god 9.7 and 6×, four_way_battle
/// 7 and 3×, a 4-player chinese checkers 43 and 0.65× (slower).
pub const LITERALS_PER_JOIN_NODE: usize = 20;

/// How much straight-line code the ground backend may emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The most literals of straight-line code for every state and joint move, and
    /// goals (see [`MAX_EMITTED_LITERALS`]).
    pub literals: usize,
    /// The most of them computed for every state.
    pub state_literals: usize,
    /// The join backend's work per sampled step the state bound was measured against,
    /// when it was (for the reason given when the code does not fit).
    pub join_work: Option<usize>,
}

impl Budget {
    /// The budget of every game: [`MAX_EMITTED_LITERALS`].
    pub const DEFAULT: Budget = Budget {
        literals: MAX_EMITTED_LITERALS,
        state_literals: usize::MAX,
        join_work: None,
    };

    /// The budget of a game whose code does not fit [`Budget::DEFAULT`], given the
    /// join backend's measured work per step (its tuned plan's executor nodes per sample
    /// state, see [`crate::plan::Tuning::work_per_sample`]): up to
    /// [`MAX_MEASURED_LITERALS`], when the code run for every state is at most
    /// [`LITERALS_PER_JOIN_NODE`] literals per node of that work. Large straight-line
    /// code pays where the join backend does much work per state (othello's lines from
    /// every square), not where it touches little of the board (chinese checkers'
    /// jumps from the few pieces that move).
    pub fn measured(join_work: usize) -> Budget {
        Budget {
            literals: MAX_MEASURED_LITERALS,
            state_literals: join_work.saturating_mul(LITERALS_PER_JOIN_NODE),
            join_work: Some(join_work),
        }
    }
}

/// The most ground literals of the goals as a program evaluated bottom-up (when a goal
/// atom is recursive): goals are evaluated once per game, but a program this large
/// costs more than the join backend's goals on short games.
pub const MAX_PROGRAM_LITERALS: usize = 100_000;

/// The most ground literals of the goals as a forward program (no goal atom
/// recursive), which looks only at the instances of true fluents and atoms: its size
/// costs rustc time, not playouts (mastermind448's 392,000: 28× the join backend's
/// playouts/s, rustc 4.4 s; othello-comp2007's 285,000: 6.4×, 8.1 s).
pub const MAX_FORWARD_PROGRAM_LITERALS: usize = 400_000;

/// The most literals a keyed program may hold per move of a role on average: it runs
/// the played move's, interpreted, every joint move, so it pays where moves are many
/// and each touches little (measured: checkers 50 and 5.6× faster than the join
/// backend, knightwar 42 and 4×, reversi 120 and 1.1× faster than its projected
/// grounding), not where a few moves each cover the board (mummymaze2p 1,201 and
/// pacman3p 38,000: 5–6× slower than the join backend).
const MAX_KEYED_PER_MOVE: usize = 250;

/// The most literals of keyed programs in all: their arrays are source text rustc
/// parses (knightwar's 230,000 words: 1.7 MB of source).
const MAX_KEYED_LITERALS: usize = 1_000_000;

/// The most that sharing conjunctions ([`crate::ground::share`]) is taken to shrink the
/// straight-line code of every state: a grounding whose code is further past the
/// budget is not shared (sharing team chess's two groundings and laying them out cost
/// 2 s of the compiler's 4.2). The most measured, over the 459 files of the corpus,
/// its `test/` cases and GGP.org's repository, is 11× (wargame01's 1,663 literals to
/// 150 reads); on games that sharing brought within the budget, 3.4× (knightazons).
const MAX_SHARING_GAIN: usize = 20;

/// Which code is a program rather than straight-line code.
#[derive(Clone, Copy, Debug, Default)]
struct Tabled {
    /// `eval_goals` runs a program.
    goals: bool,
    /// The `next` instances under one move are a keyed program per role, of which
    /// `eval_moves` runs the played move's part, rather than arms of a `match`.
    keyed: bool,
}

/// The budget-independent sizes of a grounding's code that [`Tabled::chosen`] weighs
/// against a budget ([`Layout::weigh`]): computed once per grounding, so a second
/// budget is tried without laying the grounding out again.
#[derive(Clone, Copy, Debug)]
struct Weighed {
    /// The straight-line code of every state as emitted: the bits and words it reads
    /// (see [`Layout::emitted_reads`]; a word-parallel family reads a word for up to 64
    /// atoms, atoms under a guard do not repeat its literal).
    state: usize,
    /// The same code as written: its literals, or its reads for a grounding with
    /// shared conjunctions (what sharing saves shows only as emitted).
    written_state: usize,
    /// The literals of every joint move.
    moves: usize,
    /// The straight-line code of the goals as emitted, and as written (as `state`).
    goals: usize,
    written_goals: usize,
    /// The literals of the instances under one move that a keyed program can hold, and
    /// their most per move of a role on average.
    keyed_literals: usize,
    keyed_per_move: usize,
    /// The goals' literals, and whether a goal atom is recursive.
    goal_literals: usize,
    goals_recursive: bool,
}

impl Weighed {
    /// The sizes with the straight-line code as written.
    fn as_written(&self) -> Weighed {
        Weighed {
            state: self.written_state,
            goals: self.written_goals,
            ..*self
        }
    }

    /// The code run at every step, as emitted, when `tabled` is chosen: the state's
    /// code, the joint move's, and of a keyed program the part of one move.
    fn per_step(&self, tabled: Tabled) -> usize {
        let moves = if tabled.keyed {
            self.moves.saturating_sub(self.keyed_literals) + self.keyed_per_move
        } else {
            self.moves
        };
        self.state + moves
    }
}

/// The join backend's work per step (its tuned plan's executor nodes per sample state,
/// [`crate::plan::Tuning::work_per_sample`]), asked for only when needed: `None` when
/// it is not known.
type JoinWork<'w> = &'w mut dyn FnMut() -> Option<usize>;

/// How many bits and words the ground code run at every step may read per node of the
/// join backend's work, for code that fits its budget only as emitted (see
/// `Tabled::chosen`). Measured on GGP.org's games whose code fits as emitted and not
/// as written, ground against join playouts/s: blokbox_simple 0.6 reads per node and
/// 34× faster, skirmish 1.05 and 2× (against its shared grounding), strangeSkirmish
/// 0.8 and 1.7×; skirmishNew 8.9 and 0.8× (slower), amazons_10x10 13.7 and 0.42×, hex
/// 77 and 0.13×, tron_10x10's plain grounding 4.4 and 0.12× against its projected one.
pub const READS_PER_JOIN_NODE: usize = 4;

impl Tabled {
    /// Which code is a program rather than straight-line code, weighing the code as
    /// emitted (see [`Tabled::fit`]). Code that fits its budget as written is taken
    /// with the choice the emitted sizes give (the goals of hallway and quad as
    /// straight lines, not a program: 2.4–3.3× faster). Code that fits only as emitted
    /// is taken when what it runs every step reads at most [`READS_PER_JOIN_NODE`] bits
    /// and words per node of the join backend's work (`join_work`, asked for only
    /// then); else the code is weighed as written. Word-parallel families make a
    /// grounding's code many times shorter than its literals (blokbox_simple: 229,000
    /// literals per state, 29,000 reads), but as emitted it counts the work of a family
    /// computed in rounds once, and of a plain grounding past its budget it does not
    /// show that projection computes less: hence the comparison with the join backend.
    fn chosen(weighed: &Weighed, budget: Budget, join_work: JoinWork) -> Result<Tabled, String> {
        let written = Tabled::fit(&weighed.as_written(), budget);
        if let Ok(emitted) = Tabled::fit(weighed, budget) {
            let mut pays = || {
                join_work().is_some_and(|work| {
                    weighed.per_step(emitted) <= work.saturating_mul(READS_PER_JOIN_NODE)
                })
            };
            if written.is_ok() || pays() {
                return Ok(emitted);
            }
        }
        written
    }

    /// Whether code of sizes `weighed` fits `budget` as they are, and which code is a
    /// program then.
    fn fit(weighed: &Weighed, budget: Budget) -> Result<Tabled, String> {
        let Weighed {
            state,
            written_state,
            moves,
            goals,
            keyed_literals,
            keyed_per_move,
            goal_literals: literals,
            goals_recursive,
            ..
        } = *weighed;
        // The measured budget's bound was measured on the code as written.
        if written_state > budget.state_literals {
            let work = budget.join_work.unwrap_or_default();
            return Err(format!(
                "the ground code for every state would hold {written_state} literals, more than {LITERALS_PER_JOIN_NODE} per node of the join backend's {work} per step"
            ));
        }
        let fits = |literals: usize| literals <= budget.literals;
        if fits(state + moves + goals) {
            return Ok(Tabled::default());
        }
        let mut tabled = Tabled::default();
        let mut per_step = state + moves;
        if !fits(per_step)
            && keyed_per_move <= MAX_KEYED_PER_MOVE
            && keyed_literals <= MAX_KEYED_LITERALS
        {
            tabled.keyed = true;
            per_step -= keyed_literals;
        }
        if !fits(per_step) {
            return Err(format!(
                "the ground code for every state and joint move would hold {per_step} literals, more than {} ({state} per state, {moves} per joint move, {keyed_literals} of them under one move, {keyed_per_move} per move of a role on average)",
                budget.literals
            ));
        }
        if !fits(per_step + goals) {
            let limit = if goals_recursive {
                MAX_PROGRAM_LITERALS
            } else {
                MAX_FORWARD_PROGRAM_LITERALS
            };
            if literals > limit {
                return Err(format!(
                    "the ground goals hold {literals} literals, more than {limit}"
                ));
            }
            tabled.goals = true;
        }
        Ok(tabled)
    }
}

/// The fewest atoms that share a guard before they are computed under it (see
/// `Layout::statements`).
const MIN_GUARDED: usize = 4;

/// Statements under a guard (`condition`, a `u64` whose bit 0 is its truth) as `if`
/// blocks of at most half [`MAX_FUNCTION_TEXT`] each (and at least one statement), so
/// that the function holding them can still be split: a large block repeats its test.
fn guarded_blocks(condition: &str, statements: &[String]) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut body = String::new();
    for statement in statements {
        if !body.is_empty() && body.len() + statement.len() > MAX_FUNCTION_TEXT / 2 {
            blocks.push(format!("if {condition} & 1 != 0 {{\n{body}}}\n"));
            body.clear();
        }
        body.push_str(statement);
    }
    if !body.is_empty() {
        blocks.push(format!("if {condition} & 1 != 0 {{\n{body}}}\n"));
    }
    blocks
}

/// Separates statements that may go to different functions (see [`chunked`]).
const CHUNK_MARK: &str = "/*chunk*/\n";

/// The mask of some atoms' bits within their word.
fn head_mask(bits: impl Iterator<Item = usize>) -> u64 {
    bits.fold(0, |mask, bit| mask | 1 << (bit % 64))
}

/// The shape of a ground instance relative to its head's bit: per literal, its array
/// (`s`, `d`, `m`), polarity and distance, sorted.
type NextShape = Vec<(&'static str, bool, isize)>;

/// A `next` head of one instance: its bit, atom and instance.
type NextMember<'g> = (usize, AtomId, Vec<&'g Instance>);

/// The most source text of one generated function: rustc's optimiser is superlinear in
/// a function's size, so larger bodies are split into functions of about this size.
const MAX_FUNCTION_TEXT: usize = 10_000;

/// The parameters of `eval_moves` and of the functions its body is split into.
const MOVES_PARAMS: &str = "s: &[u64; WORDS], d: &[u64; D_WORDS], joint: &[u32], m: &mut [u64; M_WORDS], n: &mut [u64; WORDS]";

/// The arguments that pass [`MOVES_PARAMS`] on.
const MOVES_ARGS: &str = "s, d, joint, m, n";

/// A function body as a list of calls to functions of at most [`MAX_FUNCTION_TEXT`]
/// bytes each (`name_0`, `name_1` …, written to `functions`), or the body itself when
/// it is small. `params` declares, `args` passes, the function's parameters.
fn chunked(body: &str, name: &str, params: &str, args: &str, functions: &mut String) -> String {
    if body.len() <= MAX_FUNCTION_TEXT {
        return body.replace(CHUNK_MARK, "");
    }
    let mut chunks: Vec<String> = vec![String::new()];
    for unit in body.split(CHUNK_MARK) {
        let last = chunks.last_mut().expect("one chunk");
        if !last.is_empty() && last.len() + unit.len() > MAX_FUNCTION_TEXT {
            chunks.push(String::new());
        }
        chunks.last_mut().expect("one chunk").push_str(unit);
    }
    let mut calls = String::new();
    for (k, chunk) in chunks.iter().enumerate() {
        let _ = writeln!(
            functions,
            "#[inline(never)]\n#[allow(clippy::all, unused_parens, unused_mut, unused_variables)]\nfn {name}_{k}({params}) {{\n{chunk}}}"
        );
        let _ = writeln!(calls, "{name}_{k}({args});");
    }
    calls
}

/// Instances of move-dependent atoms under one move, in `match` arms not emitted yet
/// (`eval_moves`): the arms, which atoms they set, and how many were emitted before.
struct LateArms {
    arms: BTreeMap<usize, MoveArms>,
    atoms: Vec<bool>,
    flushed: usize,
}

impl LateArms {
    /// Whether one of `instances` reads an atom the pending arms set.
    fn read_by(&self, instances: &[&Instance]) -> bool {
        !self.arms.is_empty()
            && instances
                .iter()
                .any(|i| i.body.iter().any(|l| self.atoms[l.atom() as usize]))
    }
}

/// Of instances that set `bit`, those under some moves (`keys`: per move its role,
/// the move and the body to test there) go to those moves' arms; the others are
/// returned.
fn split_by_moves<'i>(
    instances: impl Iterator<Item = &'i Instance>,
    bit: usize,
    keys: impl Fn(&Instance) -> Option<Vec<(usize, u32, Vec<Literal>)>>,
    arms: &mut BTreeMap<usize, MoveArms>,
) -> Vec<&'i Instance> {
    let mut others = Vec::new();
    for instance in instances {
        match keys(instance) {
            Some(keys) => {
                for (role, mv, body) in keys {
                    arms.entry(role)
                        .or_default()
                        .entry(mv)
                        .or_default()
                        .push((bit, body));
                }
            }
            None => others.push(instance),
        }
    }
    others
}

/// Of instances that set `bit`, those under one move (`key`: its role and move, and
/// the rest of the body) go to that move's arm; the others are returned.
fn split_by_move<'i>(
    instances: impl Iterator<Item = &'i Instance>,
    bit: usize,
    key: impl Fn(&Instance) -> Option<(usize, u32, Vec<Literal>)>,
    arms: &mut BTreeMap<usize, MoveArms>,
) -> Vec<&'i Instance> {
    split_by_moves(instances, bit, |i| key(i).map(|k| vec![k]), arms)
}

/// Numbers as the elements of an array literal: `1,2,3`.
fn decimal_list(words: &[u32]) -> String {
    words
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Words as a byte string literal of their little-endian bytes
/// ([`gdlc_runtime::program::Words`]): printable ASCII as itself, other bytes escaped.
fn byte_string(words: &[u32]) -> String {
    let mut out = String::with_capacity(words.len() * 8 + 3);
    out.push_str("b\"");
    for byte in gdlc_runtime::program::Words::encode(words) {
        if (0x20..=0x7e).contains(&byte) && byte != b'"' && byte != b'\\' {
            out.push(byte as char);
        } else {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out.push('"');
    out
}

/// Bit words as the elements of an array literal: `0x1,0x0`.
fn hex_list(words: &[u64]) -> String {
    words
        .iter()
        .map(|x| format!("{x:#x}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// What a keyed program sets (see `Layout::keyed_programs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyedTarget {
    /// Bits of the next state `n`, at the end of `eval_moves`.
    Next,
    /// Bits of the move-dependent atoms `m`, first in `eval_moves` (their instances
    /// read only `s` and `d`).
    Early,
}

/// Per move of one role, the bits (of `n`, or of `m` early) set under it with the rest
/// of their bodies.
type MoveArms = BTreeMap<u32, Vec<(usize, Vec<Literal>)>>;

/// Where an atom's value lives at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// A fluent: bit of `s`.
    State(usize),
    /// A move: `joint[role] == index`.
    Move(usize, u32),
    /// A state atom: bit of `d`.
    D(usize),
    /// A move-dependent atom: bit of `m`.
    M(usize),
    /// A head of `next`: written into `n` at this bit.
    Next(usize),
    /// Never holds (a move of no role, an atom no entry point needs).
    Never,
}

/// A game grounded for this backend: the grounding, and its module or why it cannot
/// be emitted.
pub struct Grounded {
    /// The grounding.
    pub grounding: Grounding,
    /// Whether its rules were projected (see [`crate::ground::ground`]).
    pub projected: bool,
    /// The module ([`lib_rs`]), or why this backend cannot emit it.
    pub module: Result<String, String>,
    /// The budget the module was emitted under.
    pub budget: Budget,
}

/// Grounds a planned game and emits its module: the plain grounding when it grounds
/// and emits; else the projected one when that does (projection shrinks some games
/// several times, but on games that fit without it, its auxiliary atoms cost more than
/// they save: they replace instances that run only under one move); else the plain,
/// then the projected grounding with shared conjunctions (see
/// [`crate::ground::share`]) when that emits; else the plain grounding with the reason
/// it cannot be emitted, under `budget`. `Err`: the reason the game does not ground at
/// all.
pub fn ground_and_emit(
    ir: &Ir,
    plan: &Plan,
    source: &str,
    budget: Budget,
) -> Result<Grounded, String> {
    Groundings::new(ir, plan).emit(ir, plan, source, budget, &mut || budget.join_work)
}

/// The groundings [`ground_and_emit`] tries, each made at most once, so that the
/// automatic choice can try a second budget without grounding again (grounding is most
/// of the compiler's time on a game whose code does not fit: team chess 3.0 → 5.5 s
/// when it grounded twice).
struct Groundings {
    plain: Result<Grounding, String>,
    /// Made when first needed.
    projected: Option<Result<Grounding, String>>,
    /// With shared conjunctions, of the plain and of the projected grounding: made when
    /// first needed (`None` inside: nothing to share, or no grounding).
    shared: [Option<Option<Grounding>>; 2],
    /// The sizes of each grounding's code once laid out (plain, projected, and those
    /// with shared conjunctions), so the second budget refuses a grounding without
    /// laying it out again (team chess: 7.2 → 4.2 s, measured in turn).
    weighed: [Option<Weighed>; 4],
}

impl Groundings {
    fn new(ir: &Ir, plan: &Plan) -> Self {
        Groundings {
            plain: crate::ground::ground(ir, plan, &crate::ground::LIMITS, false),
            projected: None,
            shared: [None, None],
            weighed: [None; 4],
        }
    }

    fn projected(&mut self, ir: &Ir, plan: &Plan) -> &Result<Grounding, String> {
        self.projected
            .get_or_insert_with(|| crate::ground::ground(ir, plan, &crate::ground::LIMITS, true))
    }

    /// The plain (`0`) or projected (`1`) grounding with shared conjunctions.
    fn shared(&mut self, ir: &Ir, plan: &Plan, which: usize) -> Option<&Grounding> {
        if self.shared[which].is_none() {
            let base = if which == 0 {
                self.plain.as_ref().ok()
            } else {
                self.projected(ir, plan).as_ref().ok()
            };
            let shared = base.and_then(|g| crate::ground::share::share_conjunctions(ir, g));
            self.shared[which] = Some(shared);
        }
        self.shared[which].as_ref().and_then(Option::as_ref)
    }

    /// The projected grounding's module, where the plain grounding's fits only as
    /// emitted and the projected one's, taken as emitted, reads less every step: the
    /// emitted size of plain code does not show that projection computes less
    /// (queens: 17,450 reads per state plain, 6,663 projected, and 3× slower).
    fn projected_reading_less(
        &mut self,
        ir: &Ir,
        plan: &Plan,
        source: &str,
        budget: Budget,
        join_work: JoinWork,
    ) -> Option<String> {
        let plain = self.weighed[0]?;
        if Tabled::fit(&plain.as_written(), budget).is_ok() {
            return None;
        }
        let plain_tabled = Tabled::fit(&plain, budget).ok()?;
        self.projected(ir, plan);
        let Some(Ok(projected)) = &self.projected else {
            return None;
        };
        let module = lib_rs_weighed(
            ir,
            projected,
            source,
            budget,
            &mut self.weighed[1],
            join_work,
        )
        .ok()?;
        let weighed = self.weighed[1]?;
        let tabled = Tabled::fit(&weighed, budget).ok()?;
        (weighed.per_step(tabled) < plain.per_step(plain_tabled)).then_some(module)
    }

    /// See [`ground_and_emit`]; `join_work` is the join backend's work per step,
    /// asked for only where code fits only as emitted (see [`Tabled::chosen`]).
    fn emit(
        &mut self,
        ir: &Ir,
        plan: &Plan,
        source: &str,
        budget: Budget,
        join_work: JoinWork,
    ) -> Result<Grounded, String> {
        let found = |grounding: &Grounding, projected: bool, module: String| Grounded {
            grounding: grounding.clone(),
            projected,
            module: Ok(module),
            budget,
        };
        let plain_module = self.plain.as_ref().ok().map(|grounding| {
            lib_rs_weighed(
                ir,
                grounding,
                source,
                budget,
                &mut self.weighed[0],
                join_work,
            )
        });
        if matches!(plain_module, Some(Ok(_)))
            && let Some(module) = self.projected_reading_less(ir, plan, source, budget, join_work)
            && let Some(Ok(projected)) = &self.projected
        {
            return Ok(found(projected, true, module));
        }
        if let (Ok(grounding), Some(Ok(module))) = (&self.plain, &plain_module) {
            return Ok(found(grounding, false, module.clone()));
        }
        self.projected(ir, plan);
        let projected = self.projected.as_ref().expect("made above");
        let why_not_projected = match projected {
            Ok(grounding) => {
                match lib_rs_weighed(
                    ir,
                    grounding,
                    source,
                    budget,
                    &mut self.weighed[1],
                    join_work,
                ) {
                    Ok(module) => return Ok(found(grounding, true, module)),
                    Err(reason) => reason,
                }
            }
            Err(reason) => reason.clone(),
        };
        let limit = budget.literals.min(budget.state_literals);
        for (which, projected) in [(0, false), (1, true)] {
            if self.weighed[which].is_some_and(|w| w.state / MAX_SHARING_GAIN > limit) {
                continue;
            }
            self.shared(ir, plan, which);
            if let Some(shared) = self.shared[which].as_ref().and_then(Option::as_ref)
                && let Ok(module) = lib_rs_weighed(
                    ir,
                    shared,
                    source,
                    budget,
                    &mut self.weighed[2 + which],
                    join_work,
                )
            {
                return Ok(found(shared, projected, module));
            }
        }
        // Neither: the plain grounding's reason, and the projected one's.
        match (&self.plain, plain_module) {
            (Ok(grounding), Some(Err(reason))) => Ok(Grounded {
                grounding: grounding.clone(),
                projected: false,
                module: Err(format!("{reason}; projected: {why_not_projected}")),
                budget,
            }),
            (Err(reason), _) => Err(format!("{reason}; projected: {why_not_projected}")),
            (Ok(_), _) => unreachable!("a plain grounding has a module or a reason"),
        }
    }
}

/// The ground backend's choice for [`crate::Backend::Auto`]: [`ground_and_emit`] under
/// [`Budget::DEFAULT`], and when the game grounds but its code does not fit, again under
/// [`Budget::measured`] against the join backend's work per step on its tuned plan
/// (`join_plan`, made only when needed: for the second budget, or for code that fits
/// only as emitted, see `Tabled::chosen`). Also returns that plan when it was made,
/// for the join backend. A module that does not fit either budget gives both reasons.
pub fn ground_and_emit_auto(
    ir: &Ir,
    plan: &Plan,
    source: &str,
    join_plan: impl FnOnce() -> Plan,
) -> (Result<Grounded, String>, Option<Plan>) {
    let mut groundings = Groundings::new(ir, plan);
    let mut join = LazyJoin {
        make: Some(join_plan),
        tuned: None,
    };
    let mut grounded = groundings.emit(ir, plan, source, Budget::DEFAULT, &mut || join.work());
    if !matches!(&grounded, Ok(g) if g.module.is_err()) {
        // Where the join backend's work was measured (for code that fits only as
        // emitted), the budget carries it, for `explain` and `code_size`.
        if let Ok(grounded) = &mut grounded
            && join.tuned.is_some()
        {
            grounded.budget.join_work = join.work();
        }
        return (grounded, join.tuned);
    }
    let Some(work) = join.work() else {
        return (grounded, join.tuned);
    };
    let measured = groundings.emit(ir, plan, source, Budget::measured(work), &mut || Some(work));
    let grounded = match (grounded, measured) {
        (_, Ok(measured)) if measured.module.is_ok() => Ok(measured),
        (Ok(mut grounded), measured) => {
            let why = match measured {
                Ok(Grounded {
                    module: Err(why), ..
                })
                | Err(why) => why,
                Ok(_) => unreachable!("a module that fits is returned above"),
            };
            if let Err(reason) = &mut grounded.module {
                *reason =
                    format!("{reason}; under the budget measured against the join backend: {why}");
            }
            Ok(grounded)
        }
        (Err(reason), _) => Err(reason),
    };
    (grounded, join.tuned)
}

/// The join backend's tuned plan, made when its work is first asked for.
struct LazyJoin<F> {
    make: Option<F>,
    tuned: Option<Plan>,
}

impl<F: FnOnce() -> Plan> LazyJoin<F> {
    /// The tuned plan's work per step (see [`JoinWork`]).
    fn work(&mut self) -> Option<usize> {
        if let Some(make) = self.make.take() {
            self.tuned = Some(make());
        }
        self.tuned
            .as_ref()
            .and_then(|plan| plan.tuning.as_ref())
            .and_then(|tuning| tuning.work_per_sample())
    }
}

/// The projected grounding of a planned game and its module, or why there is none.
fn ground_projected(ir: &Ir, plan: &Plan, source: &str) -> Result<(Grounding, String), String> {
    let grounding = crate::ground::ground(ir, plan, &crate::ground::LIMITS, true)?;
    let module = lib_rs(ir, &grounding, source, Budget::DEFAULT)?;
    Ok((grounding, module))
}

/// The module of the projected grounding even where the plain one would be used (to
/// check the projected path on games that fit without it), or why there is none.
pub fn ground_projected_and_emit(ir: &Ir, plan: &Plan, source: &str) -> Result<String, String> {
    ground_projected(ir, plan, source).map(|(_, module)| module)
}

/// The ground reasoner module for a grounded game under `budget`, or why this backend
/// cannot emit it (the caller then uses the join backend).
pub fn lib_rs(
    ir: &Ir,
    grounding: &Grounding,
    source: &str,
    budget: Budget,
) -> Result<String, String> {
    lib_rs_weighed(ir, grounding, source, budget, &mut None, &mut || {
        budget.join_work
    })
}

/// [`lib_rs`] with the grounding's sizes once known (see [`Layout::new`]).
fn lib_rs_weighed(
    ir: &Ir,
    grounding: &Grounding,
    source: &str,
    budget: Budget,
    weighed: &mut Option<Weighed>,
    join_work: JoinWork,
) -> Result<String, String> {
    let layout = Layout::new(ir, grounding, budget, weighed, join_work)?;
    let text = layout.module();
    let file = syn::parse_file(&text)
        .map_err(|e| format!("internal error: the generated code does not parse: {e}"))?;
    let body = prettyplease::unparse(&file);
    Ok(format!(
        "// Generated by gdlc {} from `{}`. Do not edit: regenerate it with gdlc.\n//\n// A ground reasoner for the game: `new()` gives a `Reasoner`, which implements\n// `gdlc_runtime::Game`.\n\n{body}",
        env!("CARGO_PKG_VERSION"),
        source.replace('\n', " ")
    ))
}

/// The size of a grounded game's code per entry point: the ground literals of the
/// atoms computed for every state, for every joint move and for goals only (copies of
/// fluents excluded), and whether the goals are a program rather than straight-line code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeSize {
    /// Literals of `eval_state` (terminal, legal, what the moves read).
    pub state: usize,
    /// `eval_state`'s size as emitted (the bits and words it reads), which the budget
    /// counts beside the literals (see [`READS_PER_JOIN_NODE`]).
    pub state_reads: usize,
    /// Literals of `eval_moves`.
    pub moves: usize,
    /// Literals of `eval_goals`.
    pub goals: usize,
    /// Whether `eval_goals` is a program.
    pub goals_program: bool,
    /// Whether the `next` instances under one move are keyed programs.
    pub keyed_program: bool,
    /// The literals of those instances per move of a role, on average (the most of
    /// any role).
    pub keyed_per_move: usize,
    /// Word-parallel families (see `Family`): how many, and their atoms.
    pub families: usize,
    /// The atoms in the families.
    pub family_atoms: usize,
    /// Atoms computed under a guard (the player in control …).
    pub guarded: usize,
    /// Atoms of the straight-line code with a demand guard: a fluent without which
    /// no reader uses them (a player's "has a move" while another is in control).
    pub demand_guarded: usize,
}

/// The code size of a grounded game under `budget` (see [`CodeSize`]), or why this
/// backend cannot emit it.
pub fn code_size(ir: &Ir, grounding: &Grounding, budget: Budget) -> Result<CodeSize, String> {
    let layout = Layout::new(ir, grounding, budget, &mut None, &mut || budget.join_work)?;
    Ok(CodeSize {
        state: layout.cone_literals(&layout.state_cone),
        state_reads: layout.emitted_reads(&layout.state_cone),
        moves: layout.cone_literals(&layout.move_cone),
        goals: layout.cone_literals(&layout.goal_cone),
        goals_program: layout.tabled.goals,
        keyed_program: layout.tabled.keyed,
        keyed_per_move: layout.keyed_literals().1,
        families: layout.families.len(),
        family_atoms: layout.families.iter().map(|f| f.atoms.len()).sum(),
        guarded: layout.guards(&layout.state_cone).len()
            + if layout.tabled.goals {
                0
            } else {
                layout.guards(&layout.goal_cone).len()
            },
        demand_guarded: layout.demand_guarded(),
    })
}

/// A diagnostic for a failure of this backend that the caller reports.
pub fn backend_error(message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Code::Backend, message)
}

struct Layout<'a> {
    ir: &'a Ir,
    g: &'a Grounding,
    places: Vec<Place>,
    fluents: Vec<String>,
    init: Vec<usize>,
    moves: Vec<String>,
    role_moves: Vec<u32>,
    percepts: Vec<String>,
    /// Per role, the words of `d` holding its moves' legality and their masks.
    legal_words: Vec<Vec<(usize, u64)>>,
    terminal_bit: Option<usize>,
    goals: Vec<Vec<(usize, String)>>,
    sees: Vec<Vec<(usize, u32)>>,
    /// Instances by head atom.
    by_head: Vec<Vec<&'a Instance>>,
    /// Derived atoms in evaluation order, with whether each starts a recursive group
    /// (its group's length).
    order: Vec<(Vec<AtomId>, bool)>,
    state_cone: Vec<bool>,
    goal_cone: Vec<bool>,
    move_cone: Vec<bool>,
    d_bits: usize,
    m_bits: usize,
    tabled: Tabled,
    families: Vec<Family>,
    /// The words of `d` a family owns (see [`Layout::owned_words`]).
    owned: BTreeSet<usize>,
    /// Per atom, a fluent without which its value is never used (see
    /// [`demand_guards`]): the atom is computed only when the fluent holds.
    demand: Vec<Option<AtomId>>,
}

/// Atoms of one relation whose instances read only bits of the state, of earlier
/// families or of the family itself, in shapes relative to each atom's *anchor* (its
/// first bit of the state, or a literal all its instances hold; see `families`):
/// placed in `d` at their anchors plus one offset, so the whole family is a few word
/// operations — `(occupied ?x ?y)` as `s | s >> 1` under a mask. A shape only some
/// atoms have is masked to theirs (an edge square lacks a neighbour); a family whose
/// atoms read each other (a line of pieces traced one square further in each
/// instance) is computed in [`Family::rounds`] rounds.
#[derive(Clone, Debug)]
struct Family {
    relation: RelationId,
    /// Atoms and their anchors.
    atoms: Vec<(AtomId, usize)>,
    /// The instances' shapes: literals as (array, positive, distance from the anchor).
    shapes: Vec<Shape>,
    /// Per atom (as in `atoms`), the shapes its instances have.
    holds: Vec<Vec<usize>>,
    /// How many times its words are computed: one more than the longest chain of its
    /// atoms reading each other (1: they read earlier words only).
    rounds: usize,
}

/// A family instance's literals: (array, positive, distance from the anchor).
type Shape = Vec<(&'static str, bool, isize)>;

/// An atom with more alternatives (instances, or word-parallel classes of them) than
/// this is computed with `||`, stopping at the first that holds, rather than an OR of
/// all of them.
const SHORT_CIRCUIT_PAST: usize = 8;

/// The fewest literals the atoms of one level and one demand guard hold between them
/// before they are computed under it (see `demand_guards`).
const MIN_DEMAND_GUARDED: usize = 8;

/// The most ranges of `d` cleared one by one before `eval_state` (see
/// `Layout::clear_d`); past it, the whole array is cleared.
const MAX_CLEARED_RANGES: usize = 64;

/// The fewest atoms a family has.
const MIN_FAMILY: usize = 8;

/// The fewest atoms a family's shapes are held by on average, when they are not all
/// held by every atom.
const MIN_SHARING: usize = 4;

/// The order of the state's fluent bits: terms compared symbol by symbol, argument by
/// argument, in canonical symbol order ([`crate::analysis::canonical`]): along the
/// chains the game defines (a board's coordinates in board order whatever their
/// names), then by structural colour. So a board's neighbours lie at one
/// distance and fall into word-parallel families and classes.
fn layout_order(a: &crate::ir::Term, b: &crate::ir::Term) -> std::cmp::Ordering {
    a.symbol
        .cmp(&b.symbol)
        .then_with(|| a.args.len().cmp(&b.args.len()))
        .then_with(|| {
            a.args
                .iter()
                .zip(&b.args)
                .map(|(x, y)| layout_order(x, y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

fn words(bits: usize) -> usize {
    bits.div_ceil(64)
}

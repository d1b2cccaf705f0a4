//! The ground backend: a game grounded by [`crate::ground`] as straight-line Rust over
//! bit words, implementing [`gdlc_runtime::ground::GroundRules`].
//!
//! Layout (one bit per reachable ground atom):
//!
//! - **the state** `s`: one bit per reachable fluent, in canonical symbol order
//!   (`layout_order`: along the chains the game defines, so a board's neighbours lie at
//!   one distance whatever the coordinates are called);
//! - **moves**: every role's possible moves numbered in one range per role, in layout
//!   order like the fluents, so a legal-move list is the set bits of one range of `d`
//!   and a move's bit follows the board whatever its coordinates are called;
//! - **`d`**: the state-dependent atoms — each role's legal moves first (in move
//!   order), then `terminal`, the goals, and every intermediate atom an entry point
//!   needs, in evaluation order;
//! - **`m`**: the move-dependent atoms — the percepts first, then the intermediates.
//!
//! Each atom is computed once, dependencies first, as one branch-free expression: the
//! OR over its instances of the AND of their literals (a bit of `s`, `d` or `m`, or a
//! comparison of the joint move), shifted into its bit. Atoms that depend on each
//! other (recursion that the grounding did not unfold) are repeated until none
//! changes. Frame axioms that copy a fluent unchanged — always, or under one move of
//! one role — become masks: the next state starts as `s & (COPY | FRAME_r[move])`.
//! `next` heads of one instance in one shape relative to their own bit (a step
//! counter's successor) are computed together, one masked word expression per word.
//! A word of `d` that one family owns is assigned whole, so `eval_state` clears
//! only the other words that hold atoms.
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
//! `if` on that fluent, and a literal every instance of an atom holds is tested once.
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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::Diagnostic;
use crate::diagnostic::Code;
use crate::exec::term_text;
use crate::ground::{AtomId, Grounding, Instance, Literal};
use crate::ir::{Ir, Keyword, Phase, RelationId};
use crate::plan::Plan;

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
    /// The straight-line code of every state (literals, or reads as emitted).
    state: usize,
    /// The literals of every joint move.
    moves: usize,
    /// The straight-line code of the goals (as `state`).
    goals: usize,
    /// The literals of the instances under one move that a keyed program can hold, and
    /// their most per move of a role on average.
    keyed_literals: usize,
    keyed_per_move: usize,
    /// The goals' literals, and whether a goal atom is recursive.
    goal_literals: usize,
    goals_recursive: bool,
}

impl Tabled {
    /// Which code is a program (data) rather than straight-line code: nothing while
    /// all the code fits [`MAX_EMITTED_LITERALS`]. Past it, in this order until it
    /// fits:
    ///
    /// 1. the `next` instances that run under one move become a keyed program (data:
    ///    only the played move's part runs, so they cost no more than straight-line
    ///    arms), when the code of every state and joint move does not fit;
    /// 2. the goals, which run once per game, become a program.
    ///
    /// The code every state and joint move runs must fit in straight lines, else the
    /// join backend is used: as a program it is slower than the join backend on every
    /// game measured, even as a forward program that looks only at the instances of
    /// true fluents and atoms (god 0.75×, skirmish 0.71×, mummymaze2p 0.01×).
    fn chosen(weighed: &Weighed, budget: Budget) -> Result<Tabled, String> {
        let Weighed {
            state,
            moves,
            goals,
            keyed_literals,
            keyed_per_move,
            goal_literals: literals,
            goals_recursive,
        } = *weighed;
        if state > budget.state_literals {
            let work = budget.join_work.unwrap_or_default();
            return Err(format!(
                "the ground code for every state would hold {state} literals, more than {LITERALS_PER_JOIN_NODE} per node of the join backend's {work} per step"
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

/// Of instances that set `bit`, those under one move (`key`: its role and move, and
/// the rest of the body) go to that move's arm; the others are returned.
fn split_by_move<'i>(
    instances: impl Iterator<Item = &'i Instance>,
    bit: usize,
    key: impl Fn(&Instance) -> Option<(usize, u32, Vec<Literal>)>,
    arms: &mut BTreeMap<usize, MoveArms>,
) -> Vec<&'i Instance> {
    let mut others = Vec::new();
    for instance in instances {
        match key(instance) {
            Some((role, mv, body)) => arms
                .entry(role)
                .or_default()
                .entry(mv)
                .or_default()
                .push((bit, body)),
            None => others.push(instance),
        }
    }
    others
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
    Groundings::new(ir, plan).emit(ir, plan, source, budget)
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

    /// See [`ground_and_emit`].
    fn emit(
        &mut self,
        ir: &Ir,
        plan: &Plan,
        source: &str,
        budget: Budget,
    ) -> Result<Grounded, String> {
        let found = |grounding: &Grounding, projected: bool, module: String| Grounded {
            grounding: grounding.clone(),
            projected,
            module: Ok(module),
            budget,
        };
        let plain_module =
            self.plain.as_ref().ok().map(|grounding| {
                lib_rs_weighed(ir, grounding, source, budget, &mut self.weighed[0])
            });
        if let (Ok(grounding), Some(Ok(module))) = (&self.plain, &plain_module) {
            return Ok(found(grounding, false, module.clone()));
        }
        self.projected(ir, plan);
        let projected = self.projected.as_ref().expect("made above");
        let why_not_projected = match projected {
            Ok(grounding) => {
                match lib_rs_weighed(ir, grounding, source, budget, &mut self.weighed[1]) {
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
                && let Ok(module) =
                    lib_rs_weighed(ir, shared, source, budget, &mut self.weighed[2 + which])
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
/// (`join_plan`, made only then). Also returns that plan when it was made, for the join
/// backend. A module that does not fit either budget gives both reasons.
pub fn ground_and_emit_auto(
    ir: &Ir,
    plan: &Plan,
    source: &str,
    join_plan: impl FnOnce() -> Plan,
) -> (Result<Grounded, String>, Option<Plan>) {
    let mut groundings = Groundings::new(ir, plan);
    let grounded = groundings.emit(ir, plan, source, Budget::DEFAULT);
    if !matches!(&grounded, Ok(g) if g.module.is_err()) {
        return (grounded, None);
    }
    let tuned = join_plan();
    let Some(work) = tuned.tuning.as_ref().and_then(|t| t.work_per_sample()) else {
        return (grounded, Some(tuned));
    };
    let measured = groundings.emit(ir, plan, source, Budget::measured(work));
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
    (grounded, Some(tuned))
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
    lib_rs_weighed(ir, grounding, source, budget, &mut None)
}

/// [`lib_rs`] with the grounding's sizes once known (see [`Layout::new`]).
fn lib_rs_weighed(
    ir: &Ir,
    grounding: &Grounding,
    source: &str,
    budget: Budget,
    weighed: &mut Option<Weighed>,
) -> Result<String, String> {
    let layout = Layout::new(ir, grounding, budget, weighed)?;
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
    /// With shared conjunctions, `eval_state`'s size as emitted (the bits and words
    /// it reads), which the budget counts instead.
    pub state_reads: Option<usize>,
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
    let layout = Layout::new(ir, grounding, budget, &mut None)?;
    Ok(CodeSize {
        state: layout.cone_literals(&layout.state_cone),
        state_reads: (grounding.shared_relations > 0)
            .then(|| layout.emitted_reads(&layout.state_cone)),
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
    legal_bits: Vec<usize>,
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

/// Atoms of one relation whose instances read only bits of the state or of earlier
/// families, in the same shape relative to each atom's *anchor* (its first bit of the
/// state, else of `d`): placed in `d` at their anchors plus one offset (a multiple of
/// 64), so the whole family is a few word operations — `(occupied ?x ?y)` as
/// `s | s >> 1` under a mask, then `(empty ?x ?y)` as its complement.
#[derive(Clone, Debug)]
struct Family {
    relation: RelationId,
    /// Atoms and their anchors.
    atoms: Vec<(AtomId, usize)>,
    /// The instances' shapes: literals as (array, positive, distance from the anchor).
    shapes: Vec<Shape>,
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

/// An atom's literals as bits of `s` or of a family placed in `d` (`None`: another
/// literal, or an empty instance), with its anchor and signature.
fn family_key(
    instances: &[&Instance],
    places: &[Place],
    placed: &[bool],
) -> Option<(&'static str, usize, Vec<Shape>)> {
    let bodies: Vec<Vec<(&'static str, bool, usize)>> = instances
        .iter()
        .map(|instance| {
            instance
                .body
                .iter()
                .map(|&l| {
                    let (Literal::Pos(b) | Literal::Neg(b)) = l;
                    let positive = matches!(l, Literal::Pos(_));
                    match places[b as usize] {
                        Place::State(bit) => Some(("s", positive, bit)),
                        Place::D(bit) if placed[b as usize] => Some(("d", positive, bit)),
                        _ => None,
                    }
                })
                .collect::<Option<Vec<_>>>()
                .filter(|body| !body.is_empty())
        })
        .collect::<Option<_>>()?;
    let literals = || bodies.iter().flatten();
    let array = if literals().any(|l| l.0 == "s") {
        "s"
    } else {
        "d"
    };
    let anchor = literals().filter(|l| l.0 == array).map(|l| l.2).min()?;
    let mut signature: Vec<Shape> = bodies
        .iter()
        .map(|body| {
            let mut shape: Shape = body
                .iter()
                .map(|&(a, p, bit)| (a, p, bit as isize - anchor as isize))
                .collect();
            shape.sort_unstable();
            shape
        })
        .collect();
    signature.sort();
    signature.dedup();
    Some((array, anchor, signature))
}

/// Finds the families among the atoms not placed yet of the state's and the goals'
/// cones (see [`Family`]), those reading earlier families after them, and places
/// them in `d` from bit `d_bits` on.
fn families(
    g: &Grounding,
    by_head: &[Vec<&Instance>],
    places: &mut [Place],
    d_bits: &mut usize,
    order: &[(Vec<AtomId>, bool)],
    cones: &[&[bool]; 2],
) -> Vec<Family> {
    type Key = (RelationId, bool, &'static str, Vec<Shape>);
    let mut families = Vec::new();
    let mut placed = vec![false; g.atoms.len()];
    loop {
        let mut groups: BTreeMap<Key, Vec<(AtomId, usize)>> = BTreeMap::new();
        for (atoms, cyclic) in order {
            if *cyclic {
                continue;
            }
            for &a in atoms {
                let i = a as usize;
                let Some(goals) = (0..2).find(|&c| cones[c][i]).map(|c| c == 1) else {
                    continue;
                };
                if places[i] != Place::Never {
                    continue;
                }
                let Some((array, anchor, signature)) = family_key(&by_head[i], places, &placed)
                else {
                    continue;
                };
                groups
                    .entry((g.atoms[i].relation, goals, array, signature))
                    .or_default()
                    .push((a, anchor));
            }
        }
        let found: Vec<Family> = groups
            .into_iter()
            .filter(|(_, atoms)| {
                let mut anchors: Vec<usize> = atoms.iter().map(|&(_, anchor)| anchor).collect();
                anchors.sort_unstable();
                anchors.dedup();
                // Two atoms at one anchor would share a bit.
                atoms.len() >= MIN_FAMILY && anchors.len() == atoms.len()
            })
            .map(|((relation, _, _, shapes), atoms)| Family {
                relation,
                atoms,
                shapes,
            })
            .collect();
        if found.is_empty() {
            return families;
        }
        for family in found {
            // The first atom at the first free bit with its anchor's bit in the word.
            let min_anchor = family.atoms.iter().map(|&(_, anchor)| anchor).min();
            let min_anchor = min_anchor.expect("atoms");
            let start = d_bits.next_multiple_of(64) + min_anchor % 64;
            let offset = start as isize - min_anchor as isize;
            for &(a, anchor) in &family.atoms {
                let bit = (anchor as isize + offset) as usize;
                places[a as usize] = Place::D(bit);
                placed[a as usize] = true;
                *d_bits = (*d_bits).max(bit + 1);
            }
            families.push(family);
        }
    }
}

/// Per atom, a fluent without which the atom's value is never used, if there is one:
/// the *demand guard* it is computed under.
///
/// An atom's value matters only when one of its readers (the rule instances whose body
/// holds it) can hold; a reader holds only when every fluent it *implies* holds: its
/// positive fluent literals, the fluents every instance of its positive derived atoms
/// implies, for `does(r, m)` the fluents `legal(r, m)` implies (a played move is
/// legal), and its head's own demand guard. The fluents every reader implies are the
/// atom's candidates; of those, the one that is a candidate of the most atoms is its
/// guard, so that atoms share `if` blocks. A player's `has a legal move at (x, y)`,
/// read only by its legal moves (under `(control ?player)`), is computed only for the
/// player in control.
///
/// Entry points (`legal`, `terminal`, `goal`, `sees`, `next`) and recursive atoms get
/// no guard: the runtime reads the former, and the latter are computed by iteration.
fn demand_guards(
    ir: &Ir,
    g: &Grounding,
    places: &[Place],
    order: &[(Vec<AtomId>, bool)],
) -> Vec<Option<AtomId>> {
    let n = g.atoms.len();
    let relation_of = |k: Keyword| ir.keyword(k);
    let entries: Vec<RelationId> = [
        Keyword::Legal,
        Keyword::Terminal,
        Keyword::Goal,
        Keyword::Sees,
        Keyword::Next,
    ]
    .into_iter()
    .filter_map(relation_of)
    .collect();
    let is_fluent = |a: AtomId| matches!(places[a as usize], Place::State(_));
    let mut by_head: Vec<Vec<&Instance>> = vec![Vec::new(); n];
    let mut readers: Vec<Vec<&Instance>> = vec![Vec::new(); n];
    for instance in &g.instances {
        by_head[instance.head as usize].push(instance);
        for &literal in &instance.body {
            readers[literal.atom() as usize].push(instance);
        }
    }
    let intersect = |a: &[AtomId], b: &[AtomId]| -> Vec<AtomId> {
        a.iter()
            .copied()
            .filter(|x| b.binary_search(x).is_ok())
            .collect()
    };
    let mut cyclic = vec![false; n];
    for (atoms, is_cyclic) in order {
        for &a in atoms {
            cyclic[a as usize] = *is_cyclic;
        }
    }
    // The fluents a body implies, with `also`, sorted: its positive fluent literals
    // and what its positive derived literals imply.
    let body_implies =
        |body: &[Literal], mut also: Vec<AtomId>, implied: &[Option<Vec<AtomId>>]| -> Vec<AtomId> {
            for &literal in body {
                if let Literal::Pos(b) = literal {
                    if is_fluent(b) {
                        also.push(b);
                    } else if let Some(more) = &implied[b as usize] {
                        also.extend(more);
                    }
                }
            }
            also.sort_unstable();
            also.dedup();
            also
        };
    // The fluents each derived atom implies (`None`: not computed, or recursive).
    let mut implied: Vec<Option<Vec<AtomId>>> = vec![None; n];
    for (atoms, is_cyclic) in order {
        if *is_cyclic {
            continue;
        }
        for &a in atoms {
            let mut common: Option<Vec<AtomId>> = None;
            for instance in &by_head[a as usize] {
                let holds = body_implies(&instance.body, Vec::new(), &implied);
                common = Some(match common {
                    None => holds,
                    Some(c) => intersect(&c, &holds),
                });
            }
            implied[a as usize] = Some(common.unwrap_or_default());
        }
    }
    // `does(r, m)` implies what `legal(r, m)` implies.
    for a in 0..n {
        if let Some(does) = g.input_of[a]
            && Some(g.atoms[a].relation) == relation_of(Keyword::Legal)
        {
            implied[does as usize] = implied[a].clone();
        }
    }
    // Candidates, readers first.
    let mut candidates: Vec<Vec<AtomId>> = vec![Vec::new(); n];
    for (atoms, is_cyclic) in order.iter().rev() {
        if *is_cyclic {
            continue;
        }
        for &a in atoms {
            let i = a as usize;
            if entries.contains(&g.atoms[i].relation) || readers[i].is_empty() {
                continue;
            }
            let mut common: Option<Vec<AtomId>> = None;
            for reader in &readers[i] {
                let head_guard = candidates[reader.head as usize].clone();
                let holds = body_implies(&reader.body, head_guard, &implied);
                common = Some(match common {
                    None => holds,
                    Some(c) => intersect(&c, &holds),
                });
                if common.as_ref().is_some_and(Vec::is_empty) {
                    break;
                }
            }
            candidates[i] = common.unwrap_or_default();
        }
    }
    let mut counts: BTreeMap<AtomId, usize> = BTreeMap::new();
    for list in &candidates {
        for &c in list {
            *counts.entry(c).or_default() += 1;
        }
    }
    candidates
        .iter()
        .enumerate()
        .map(|(a, list)| {
            if cyclic[a] {
                return None;
            }
            list.iter()
                .copied()
                .max_by_key(|c| (counts[c], std::cmp::Reverse(*c)))
        })
        .collect()
}

/// Copies of instances with some literals left out of their bodies (those a guard or
/// a common factor tests once for all of them).
fn without<'i>(
    instances: impl Iterator<Item = &'i Instance>,
    left_out: &[Literal],
) -> Vec<Instance> {
    instances
        .map(|i| Instance {
            rule: i.rule,
            head: i.head,
            body: i
                .body
                .iter()
                .copied()
                .filter(|l| !left_out.contains(l))
                .collect(),
        })
        .collect()
}

/// The order of the state's fluent bits: terms compared symbol by symbol, argument by
/// argument, in canonical symbol order ([`crate::analysis::canonical`]): along the
/// chains the game defines (a board's coordinates in board order whatever their
/// names), then integers by value, then names. So a board's neighbours lie at one
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

impl<'a> Layout<'a> {
    /// The layout of grounding `g` under `budget`, or why its code does not fit.
    /// `weighed` holds the grounding's sizes once known ([`Layout::weigh`]): a
    /// budget they do not fit is refused before any work.
    fn new(
        ir: &'a Ir,
        g: &'a Grounding,
        budget: Budget,
        weighed: &mut Option<Weighed>,
    ) -> Result<Self, String> {
        if let Some(known) = weighed {
            Tabled::chosen(known, budget)?;
        }
        let relation_of = |k: Keyword| ir.keyword(k);
        let true_rel = relation_of(Keyword::True);
        let does_rel = relation_of(Keyword::Does);
        let next_rel = relation_of(Keyword::Next);
        let legal_rel = relation_of(Keyword::Legal);
        let goal_rel = relation_of(Keyword::Goal);
        let terminal_rel = relation_of(Keyword::Terminal);
        let sees_rel = relation_of(Keyword::Sees);
        let n = g.atoms.len();
        let mut places = vec![Place::Never; n];
        let args_of = |a: AtomId| {
            let atom = &g.atoms[a as usize];
            ir.decode(atom.relation, &atom.tuple).ok_or_else(|| {
                format!(
                    "an atom of `{}` does not decode",
                    ir.relation(atom.relation).key()
                )
            })
        };
        let role_of = |term: &crate::ir::Term| {
            ir.roles
                .iter()
                .position(|&r| r == term.symbol && term.args.is_empty())
        };

        // Fluents in layout order (canonical symbol order), ties by text.
        let mut fluents: Vec<(crate::ir::Term, String, AtomId)> = Vec::new();
        if let Some(t) = true_rel {
            for a in g.of(t) {
                let mut args = args_of(a)?;
                let term = args.swap_remove(0);
                let text = term_text(&ir.symbols, &term);
                fluents.push((term, text, a));
            }
        }
        fluents.sort_by(|a, b| layout_order(&a.0, &b.0).then_with(|| a.1.cmp(&b.1)));
        for (bit, &(_, _, a)) in fluents.iter().enumerate() {
            places[a as usize] = Place::State(bit);
        }
        let init: Vec<usize> = g
            .init
            .iter()
            .map(|&a| match places[a as usize] {
                Place::State(bit) => bit,
                _ => unreachable!("initial fluents are fluents"),
            })
            .collect();

        // Moves per role in layout order, ties by text.
        let mut per_role: Vec<Vec<(crate::ir::Term, String, AtomId)>> =
            vec![Vec::new(); ir.roles.len()];
        if let Some(d) = does_rel {
            for a in g.of(d) {
                let mut args = args_of(a)?;
                if let Some(r) = role_of(&args[0]) {
                    let term = args.swap_remove(1);
                    let text = term_text(&ir.symbols, &term);
                    per_role[r].push((term, text, a));
                }
            }
        }
        let mut moves = Vec::new();
        let mut role_moves = vec![0u32];
        for (r, list) in per_role.iter_mut().enumerate() {
            list.sort_by(|a, b| layout_order(&a.0, &b.0).then_with(|| a.1.cmp(&b.1)));
            for (_, text, a) in list.iter() {
                places[*a as usize] = Place::Move(r, moves.len() as u32);
                moves.push(text.clone());
            }
            role_moves.push(moves.len() as u32);
        }

        let phase = |r: RelationId| g.phase(ir, r);
        let mut by_head: Vec<Vec<&Instance>> = vec![Vec::new(); n];
        for instance in &g.instances {
            by_head[instance.head as usize].push(instance);
        }
        let is_input = |a: AtomId| {
            let r = Some(g.atoms[a as usize].relation);
            r == true_rel || r == does_rel
        };

        // Evaluation order: strongly connected components of the ground dependencies.
        let order = g.evaluation_order(ir);

        // Which atoms each evaluation function needs.
        let is_move_atom = |a: AtomId| {
            let r = g.atoms[a as usize].relation;
            Some(r) == sees_rel || (Some(r) != next_rel && phase(r) == Phase::Move)
        };
        let closure =
            |roots: Vec<AtomId>, within: &dyn Fn(AtomId) -> bool, seen: &mut Vec<bool>| {
                let mut stack = roots;
                while let Some(a) = stack.pop() {
                    if seen[a as usize] || !within(a) {
                        continue;
                    }
                    seen[a as usize] = true;
                    for instance in &by_head[a as usize] {
                        for literal in &instance.body {
                            let (Literal::Pos(b) | Literal::Neg(b)) = *literal;
                            stack.push(b);
                        }
                    }
                }
            };
        let of_rel =
            |r: Option<RelationId>| r.map(|r| g.of(r).collect::<Vec<_>>()).unwrap_or_default();
        let mut move_cone = vec![false; n];
        let mut roots = of_rel(next_rel);
        roots.extend(of_rel(sees_rel));
        closure(
            roots.clone(),
            &|a| {
                !is_input(a) && (is_move_atom(a) || Some(g.atoms[a as usize].relation) == next_rel)
            },
            &mut move_cone,
        );
        // The state atoms the move cone reads, plus terminal and legal.
        let mut state_roots: Vec<AtomId> = of_rel(terminal_rel);
        state_roots.extend(of_rel(legal_rel));
        for a in 0..n {
            if move_cone[a] {
                for instance in &by_head[a] {
                    for literal in &instance.body {
                        let (Literal::Pos(b) | Literal::Neg(b)) = *literal;
                        state_roots.push(b);
                    }
                }
            }
        }
        let mut state_cone = vec![false; n];
        closure(
            state_roots,
            &|a| !is_input(a) && !is_move_atom(a) && Some(g.atoms[a as usize].relation) != next_rel,
            &mut state_cone,
        );
        let mut goal_cone = state_cone.clone();
        closure(
            of_rel(goal_rel),
            &|a| !is_input(a) && !is_move_atom(a) && Some(g.atoms[a as usize].relation) != next_rel,
            &mut goal_cone,
        );
        for a in 0..n {
            if state_cone[a] {
                goal_cone[a] = false;
            }
        }

        // Bits of `d`: legal moves per role in move order, terminal, goals, the rest.
        let mut d_bits = 0usize;
        let mut legal_bits = Vec::with_capacity(ir.roles.len());
        let mut legal_of_move: BTreeMap<u32, AtomId> = BTreeMap::new();
        for a in of_rel(legal_rel) {
            if let Some(does) = g.input_of[a as usize]
                && let Place::Move(_, mv) = places[does as usize]
            {
                legal_of_move.insert(mv, a);
            }
        }
        for r in 0..ir.roles.len() {
            legal_bits.push(d_bits);
            for mv in role_moves[r]..role_moves[r + 1] {
                if let Some(&a) = legal_of_move.get(&mv) {
                    places[a as usize] = Place::D(d_bits);
                }
                d_bits += 1;
            }
        }
        let mut terminal_bit = None;
        for a in of_rel(terminal_rel) {
            places[a as usize] = Place::D(d_bits);
            terminal_bit = Some(d_bits);
            d_bits += 1;
        }
        let mut goals: Vec<Vec<(usize, String)>> = vec![Vec::new(); ir.roles.len()];
        for a in of_rel(goal_rel) {
            let args = args_of(a)?;
            if let Some(r) = role_of(&args[0]) {
                places[a as usize] = Place::D(d_bits);
                goals[r].push((d_bits, term_text(&ir.symbols, &args[1])));
                d_bits += 1;
            }
        }
        for goal in &mut goals {
            goal.sort_by(|a, b| (&a.1, a.0).cmp(&(&b.1, b.0)));
        }
        // Percepts: bits of `m` first.
        let mut m_bits = 0usize;
        let mut percept_atoms: Vec<(usize, String, AtomId)> = Vec::new();
        for a in of_rel(sees_rel) {
            let args = args_of(a)?;
            if let Some(r) = role_of(&args[0]) {
                percept_atoms.push((r, term_text(&ir.symbols, &args[1]), a));
            }
        }
        let mut percepts: Vec<String> = percept_atoms.iter().map(|p| p.1.clone()).collect();
        percepts.sort();
        percepts.dedup();
        let mut sees: Vec<Vec<(usize, u32)>> = vec![Vec::new(); ir.roles.len()];
        percept_atoms.sort();
        for (r, text, a) in &percept_atoms {
            let percept = percepts.binary_search(text).expect("listed") as u32;
            places[*a as usize] = Place::M(m_bits);
            sees[*r].push((m_bits, percept));
            m_bits += 1;
        }
        // Families: placed where their literals are, computed word-parallel.
        let families = families(
            g,
            &by_head,
            &mut places,
            &mut d_bits,
            &order,
            &[&state_cone, &goal_cone],
        );
        // Shared conjunctions (see `crate::ground::share`) in the order of the bits of
        // the atoms that read them (a role's legal move reading its conditions), so
        // that those copy them head-parallel.
        let shared_from = ir.relations.len() + g.aux_phases.len() - g.shared_relations;
        let mut by_reader: Vec<(usize, AtomId)> = Vec::new();
        for instance in &g.instances {
            let Place::D(bit) = places[instance.head as usize] else {
                continue;
            };
            for &literal in &instance.body {
                let b = literal.atom() as usize;
                if matches!(literal, Literal::Pos(_))
                    && g.atoms[b].relation.0 as usize >= shared_from
                    && places[b] == Place::Never
                    && (state_cone[b] || goal_cone[b])
                    && !move_cone[b]
                {
                    by_reader.push((bit, b as AtomId));
                }
            }
        }
        by_reader.sort_unstable();
        for (_, b) in by_reader {
            if places[b as usize] == Place::Never {
                places[b as usize] = Place::D(d_bits);
                d_bits += 1;
            }
        }
        // The rest, in evaluation order.
        for (atoms, _) in &order {
            for &a in atoms {
                let i = a as usize;
                if places[i] != Place::Never {
                    continue;
                }
                if Some(g.atoms[i].relation) == next_rel {
                    if let Some(f) = g.input_of[i]
                        && let Place::State(bit) = places[f as usize]
                    {
                        places[i] = Place::Next(bit);
                    }
                } else if move_cone[i] {
                    places[i] = Place::M(m_bits);
                    m_bits += 1;
                } else if state_cone[i] || goal_cone[i] {
                    places[i] = Place::D(d_bits);
                    d_bits += 1;
                }
            }
        }
        let layout = Layout {
            ir,
            g,
            places,
            fluents: fluents.into_iter().map(|f| f.1).collect(),
            init,
            moves,
            role_moves,
            percepts,
            legal_bits,
            terminal_bit,
            goals,
            sees,
            by_head,
            order,
            state_cone,
            goal_cone,
            move_cone,
            d_bits,
            m_bits,
            tabled: Tabled::default(),
            families,
            owned: BTreeSet::new(),
            demand: Vec::new(),
        };
        let mut layout = layout;
        layout.owned = layout.owned_words();
        layout.demand = demand_guards(ir, g, &layout.places, &layout.order);
        let sizes = *weighed.get_or_insert_with(|| layout.weigh());
        layout.tabled = Tabled::chosen(&sizes, budget)?;
        Ok(layout)
    }

    /// The sizes [`Tabled::chosen`] weighs (see there): with shared conjunctions,
    /// the straight-line code is measured as emitted, since what sharing saves (the
    /// words of an OR, a guard's literal) shows only there. Other groundings keep the
    /// literal count, which keeps the projected grounding where it pays (tron_10x10:
    /// the plain one fits as emitted but runs 5× slower).
    fn weigh(&self) -> Weighed {
        let size = |cone: &[bool]| {
            if self.g.shared_relations > 0 {
                self.emitted_reads(cone)
            } else {
                self.cone_literals(cone)
            }
        };
        let (keyed_literals, keyed_per_move) = self.keyed_literals();
        Weighed {
            state: size(&self.state_cone),
            moves: self.cone_literals(&self.move_cone),
            goals: size(&self.goal_cone),
            keyed_literals,
            keyed_per_move,
            goal_literals: self.cone_literals(&self.goal_cone),
            goals_recursive: self.recursive_in(&self.goal_cone),
        }
    }

    /// The size of the straight-line code computing a cone of state atoms: how many
    /// bits and words of `s` and `d` it reads. A literal is one read, but atoms under
    /// a guard do not repeat its literal, word-parallel families and head-parallel
    /// atoms read a word for up to 64 atoms, and an OR of atoms numbered together
    /// reads their words.
    fn emitted_reads(&self, cone: &[bool]) -> usize {
        let mut code = String::new();
        self.statements(cone, &mut code);
        let accesses = code.matches("s[").count() + code.matches("d[").count();
        accesses - code.matches("] |=").count() - code.matches("] = (").count()
    }

    /// How many atoms of the straight-line state and goal code have a demand guard
    /// (see [`demand_guards`]).
    fn demand_guarded(&self) -> usize {
        let mut in_family = vec![false; self.g.atoms.len()];
        for family in &self.families {
            for &(a, _) in &family.atoms {
                in_family[a as usize] = true;
            }
        }
        (0..self.g.atoms.len())
            .filter(|&a| {
                (self.state_cone[a] || (self.goal_cone[a] && !self.tabled.goals))
                    && self.demand[a].is_some()
                    && matches!(self.places[a], Place::D(_))
                    && !in_family[a]
            })
            .count()
    }

    /// Whether an atom of a cone is recursive (depends on itself).
    fn recursive_in(&self, cone: &[bool]) -> bool {
        self.order.iter().any(|(atoms, cyclic)| {
            *cyclic
                && atoms
                    .iter()
                    .any(|&a| cone[a as usize] && self.places[a as usize] != Place::Never)
        })
    }

    /// Whether the rest of an instance under one move can be in a keyed program: it
    /// reads no other move.
    fn programmable(&self, body: &[Literal]) -> bool {
        !body.iter().any(|&l| {
            let (Literal::Pos(b) | Literal::Neg(b)) = l;
            matches!(self.places[b as usize], Place::Move(..))
        })
    }

    /// The literals of the instances that run under one move of one role and can be
    /// in a keyed program (see `eval_moves`): of `next`, and of the move-dependent
    /// atoms that can be keyed early ([`Self::early_keyed_atoms`]); and the most of
    /// them per move of one role on average: what keyed programs run per joint move
    /// and role.
    fn keyed_literals(&self) -> (usize, usize) {
        let roles = self.role_moves.len() - 1;
        let mut per_role = vec![0usize; roles];
        for (a, early) in self.early_keyed_atoms().into_iter().enumerate() {
            if !self.move_cone[a] {
                continue;
            }
            if early {
                for instance in &self.by_head[a] {
                    if let Some((role, _, body)) = self.early_key(instance)
                        && self.programmable(&body)
                    {
                        per_role[role] += instance.body.len();
                    }
                }
                continue;
            }
            if !matches!(self.places[a], Place::Next(_)) {
                continue;
            }
            for instance in &self.by_head[a] {
                if self.copy_of(instance).is_some() {
                    continue;
                }
                if let Some((role, _, body)) = self.key_of(instance)
                    && self.programmable(&body)
                {
                    per_role[role] += instance.body.len();
                }
            }
        }
        let per_move = (0..roles)
            .map(|r| {
                let moves = (self.role_moves[r + 1] - self.role_moves[r]).max(1) as usize;
                per_role[r].div_ceil(moves)
            })
            .max()
            .unwrap_or(0);
        (per_role.iter().sum(), per_move)
    }

    /// The literals the code of one cone spells out: copies of a fluent (unconditional
    /// or under one move) and atoms that only say which moves were played become bits
    /// of constant tables and are not counted.
    fn cone_literals(&self, cone: &[bool]) -> usize {
        let move_only = self.move_only_atoms();
        (0..self.g.atoms.len())
            .filter(|&a| cone[a] && move_only[a].is_none())
            .map(|a| {
                self.by_head[a]
                    .iter()
                    .filter(|i| self.copy_of(i).is_none())
                    .map(|i| i.body.len().max(1))
                    .sum::<usize>()
            })
            .sum()
    }

    /// The value of a literal as a `u64` whose bit 0 is the truth.
    fn literal(&self, literal: Literal) -> String {
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
    fn expression(&self, a: AtomId) -> String {
        self.expression_of(&self.by_head[a as usize])
    }

    /// The array, bit and polarity of a literal read from bit words (`None`: a move
    /// comparison or a constant).
    fn bit_of(&self, literal: Literal) -> Option<(&'static str, usize, bool)> {
        let (Literal::Pos(a) | Literal::Neg(a)) = literal;
        let positive = matches!(literal, Literal::Pos(_));
        match self.places[a as usize] {
            Place::State(bit) => Some(("s", bit, positive)),
            Place::D(bit) => Some(("d", bit, positive)),
            Place::M(bit) => Some(("m", bit, positive)),
            _ => None,
        }
    }

    fn array_words(&self, array: &str) -> usize {
        match array {
            "s" => words(self.fluents.len()),
            "d" => words(self.d_bits),
            _ => words(self.m_bits),
        }
    }

    /// Word `w` of `array` read `delta` bits further on (bit `i` of the result is bit
    /// `64 w + i + delta` of the array; bits outside the array read as 0).
    fn shifted_word(&self, array: &str, w: usize, delta: isize) -> String {
        let len = self.array_words(array) as isize;
        let word = |i: isize| (0..len).contains(&i).then(|| format!("{array}[{i}]"));
        let start = w as isize * 64 + delta;
        let q = start.div_euclid(64);
        let r = start.rem_euclid(64);
        let parts: Vec<String> = if r == 0 {
            word(q).into_iter().collect()
        } else {
            [
                word(q).map(|x| format!("({x} >> {r}u32)")),
                word(q + 1).map(|x| format!("({x} << {}u32)", 64 - r)),
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
    /// `distance - offset` bits further on, negated where the literal is negative.
    fn shape_word(&self, shape: &[(&'static str, bool, isize)], w: usize, offset: isize) -> String {
        let parts: Vec<String> = shape
            .iter()
            .map(|&(array, positive, delta)| {
                let read = self.shifted_word(array, w, delta - offset);
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
    fn expression_of(&self, instances: &[&Instance]) -> String {
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
                            let read = self.shifted_word(array, w, delta);
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

    /// The goals' atoms (`wanted`) as a program over `s` and `d` (see
    /// [`gdlc_runtime::program`]): a static array named `name` in `tables`, and the
    /// statement running it.
    fn goal_program(&self, wanted: &[bool], name: &str, tables: &mut String) -> String {
        use gdlc_runtime::program as p;
        if !self.recursive_in(wanted)
            && let Some(statement) = self.forward_program(wanted, name, tables)
        {
            return statement;
        }
        let mut words: Vec<u32> = Vec::new();
        for (atoms, cyclic) in &self.order {
            let atoms: Vec<AtomId> = atoms
                .iter()
                .copied()
                .filter(|&a| wanted[a as usize] && self.places[a as usize] != Place::Never)
                .collect();
            if atoms.is_empty() {
                continue;
            }
            let header = atoms.len() as u32;
            words.push(if *cyclic { header | p::CYCLIC } else { header });
            for a in atoms {
                let Place::D(bit) = self.places[a as usize] else {
                    unreachable!("the goals' atoms are state atoms")
                };
                words.push(bit as u32);
                let length_at = words.len();
                words.push(0);
                for instance in &self.by_head[a as usize] {
                    self.program_instance(&instance.body, &mut words);
                }
                words[length_at] = (words.len() - length_at - 1) as u32;
            }
        }
        let _ = writeln!(
            tables,
            "/// The goals' rules as data (`gdlc_runtime::program`).\nstatic {name}: [u32; {}] = [{}];",
            words.len(),
            decimal_list(&words)
        );
        format!("gdlc_runtime::program::run(&{name}, s, d);\n")
    }

    /// The atoms `wanted`, none recursive, as a forward program (see
    /// [`gdlc_runtime::program::Forward`]): a static named `name` in `tables`, and the
    /// statement running it. An instance is watched by its positive literal of the
    /// program that comes last in evaluation order (the others, and its negative
    /// literals, come before: final when that one is looked at); without a literal of
    /// the program, by its rarest positive fluent (see [`Self::fluent_frequencies`]).
    /// `None` if a literal does not come before its head (the evaluation order
    /// guarantees it does).
    fn forward_program(&self, wanted: &[bool], name: &str, tables: &mut String) -> Option<String> {
        let frequency = self.fluent_frequencies();
        let atoms: Vec<AtomId> = self
            .order
            .iter()
            .flat_map(|(atoms, _)| atoms.iter().copied())
            .filter(|&a| wanted[a as usize] && self.places[a as usize] != Place::Never)
            .collect();
        let mut index: BTreeMap<AtomId, u32> = BTreeMap::new();
        for (k, &a) in atoms.iter().enumerate() {
            index.insert(a, k as u32);
        }
        let mut bits = Vec::with_capacity(atoms.len());
        let mut instances: Vec<u32> = Vec::new();
        let mut roots = Vec::new();
        let mut fluent_watched: Vec<Vec<u32>> = Vec::new();
        let mut watched: Vec<Vec<u32>> = vec![Vec::new(); atoms.len()];
        let mut deferred: Vec<Vec<u32>> = vec![Vec::new(); atoms.len()];
        for (k, &a) in atoms.iter().enumerate() {
            let Place::D(bit) = self.places[a as usize] else {
                unreachable!("the goals' atoms are state atoms")
            };
            bits.push(bit as u32);
            for instance in &self.by_head[a as usize] {
                let at = instances.len() as u32;
                instances.push(k as u32);
                if !self.program_instance(&instance.body, &mut instances) {
                    instances.pop();
                    continue;
                }
                let before = instance.body.iter().all(|&l| {
                    let (Literal::Pos(b) | Literal::Neg(b)) = l;
                    index.get(&b).is_none_or(|&i| (i as usize) < k)
                });
                if !before {
                    return None;
                }
                // Its last literal of the program: positive, it watches for it;
                // negated, it waits until that atom is final.
                let index_of = |l: &Literal| {
                    let (Literal::Pos(b) | Literal::Neg(b)) = *l;
                    index.get(&b).copied()
                };
                let last = instance.body.iter().filter_map(index_of).max();
                match last {
                    Some(last)
                        if instance
                            .body
                            .iter()
                            .any(|l| matches!(l, Literal::Pos(_)) && index_of(l) == Some(last)) =>
                    {
                        watched[last as usize].push(at);
                    }
                    Some(last) => deferred[last as usize].push(at),
                    None => {
                        let rarest = instance
                            .body
                            .iter()
                            .filter_map(|&l| match (l, self.places[l.atom() as usize]) {
                                (Literal::Pos(_), Place::State(bit)) => Some(bit),
                                _ => None,
                            })
                            .min_by(|&a, &b| frequency[a].total_cmp(&frequency[b]));
                        match rarest {
                            Some(bit) => {
                                if fluent_watched.len() <= bit {
                                    fluent_watched.resize(bit + 1, Vec::new());
                                }
                                fluent_watched[bit].push(at);
                            }
                            None => roots.push(at),
                        }
                    }
                }
            }
        }
        // Per atom, where its list starts, and the lists.
        let lists = |per_atom: &[Vec<u32>]| {
            let mut at = Vec::with_capacity(per_atom.len() + 1);
            let mut all = Vec::new();
            for list in per_atom {
                at.push(all.len() as u32);
                all.extend_from_slice(list);
            }
            at.push(all.len() as u32);
            (at, all)
        };
        let (watch_at, watch) = lists(&watched);
        let (fluent_watch_at, fluent_watch) = lists(&fluent_watched);
        let mut fluents_watched = vec![0u64; fluent_watched.len().div_ceil(64)];
        for (bit, list) in fluent_watched.iter().enumerate() {
            if !list.is_empty() {
                fluents_watched[bit / 64] |= 1 << (bit % 64);
            }
        }
        let (deferred_at, deferred_all) = lists(&deferred);
        let mut deferring = vec![0u64; atoms.len().div_ceil(64)];
        for (k, list) in deferred.iter().enumerate() {
            if !list.is_empty() {
                deferring[k / 64] |= 1 << (k % 64);
            }
        }
        // Lists of words as byte strings (one token each for rustc, where an array
        // literal costs type checking per element); bit sets as static arrays.
        let mut fields = Vec::new();
        for (field, list) in [
            ("bits", &bits),
            ("instances", &instances),
            ("roots", &roots),
            ("fluent_watch_at", &fluent_watch_at),
            ("fluent_watch", &fluent_watch),
            ("watch_at", &watch_at),
            ("watch", &watch),
            ("deferred_at", &deferred_at),
            ("deferred", &deferred_all),
        ] {
            fields.push(format!(
                "{field}: gdlc_runtime::program::Words({})",
                byte_string(list)
            ));
        }
        for (field, list) in [
            ("fluents_watched", &fluents_watched),
            ("deferring", &deferring),
        ] {
            let array = format!("{name}_{}", field.to_uppercase());
            let _ = writeln!(
                tables,
                "static {array}: [u64; {}] = [{}];",
                list.len(),
                hex_list(list)
            );
            fields.push(format!("{field}: &{array}"));
        }
        let _ = writeln!(
            tables,
            "/// The goals' rules as data (`gdlc_runtime::program::Forward`).\nstatic {name}: gdlc_runtime::program::Forward = gdlc_runtime::program::Forward {{ {} }};",
            fields.join(", ")
        );
        Some(format!(
            "gdlc_runtime::program::run_forward(&{name}, s, d, &mut [0; {}]);\n",
            atoms.len().div_ceil(64)
        ))
    }

    /// Per fluent (bit of `s`), how often a state may hold it, estimated from the
    /// initial state: the share of its function symbol's fluents that hold there (at
    /// least one): a board cell's piece, one of many, is rarer than whose turn it is.
    fn fluent_frequencies(&self) -> Vec<f64> {
        let functor = |text: &str| {
            let text = text.strip_prefix('(').unwrap_or(text);
            text.split([' ', ')']).next().unwrap_or(text).to_owned()
        };
        let mut total: BTreeMap<String, usize> = BTreeMap::new();
        let mut held: BTreeMap<String, usize> = BTreeMap::new();
        for text in &self.fluents {
            *total.entry(functor(text)).or_default() += 1;
        }
        for &bit in &self.init {
            *held.entry(functor(&self.fluents[bit])).or_default() += 1;
        }
        self.fluents
            .iter()
            .map(|text| {
                let f = functor(text);
                held.get(&f).copied().unwrap_or(0).max(1) as f64 / total[&f] as f64
            })
            .collect()
    }

    /// Appends an instance to a program (its length, then its literals: bits of `s`,
    /// `d` or, in keyed programs, `m`); nothing when it can never hold. Whether it
    /// was appended.
    fn program_instance(&self, body: &[Literal], words: &mut Vec<u32>) -> bool {
        use gdlc_runtime::program as p;
        let length_at = words.len();
        words.push(0);
        for &literal in body {
            let (Literal::Pos(a) | Literal::Neg(a)) = literal;
            let negated = if matches!(literal, Literal::Neg(_)) {
                p::NEGATED
            } else {
                0
            };
            match self.places[a as usize] {
                Place::State(bit) => words.push(p::FROM_S | negated | bit as u32),
                Place::D(bit) => words.push(p::FROM_D | negated | bit as u32),
                Place::M(bit) => words.push(p::FROM_M | negated | bit as u32),
                // Never holds: the instance does not, or the negation always does.
                Place::Next(_) | Place::Never if negated == 0 => {
                    words.truncate(length_at);
                    return false;
                }
                Place::Next(_) | Place::Never => {}
                Place::Move(..) => unreachable!("programs read no move"),
            }
        }
        words[length_at] = (words.len() - length_at - 1) as u32;
        true
    }

    /// Statements computing the atoms of one function (`wanted`), in evaluation order.
    ///
    /// Atoms no other atom of the function reads (legal moves, goals …) that share a
    /// guard — a positive literal in every instance, held by at least [`MIN_GUARDED`]
    /// of them — come last, under `if` on the guard, without it: the atoms of the role
    /// not in control cost one test.
    fn statements(&self, wanted: &[bool], out: &mut String) {
        let guards = self.guards(wanted);
        let mut in_family = vec![false; self.g.atoms.len()];
        for family in &self.families {
            if !family.atoms.iter().any(|&(a, _)| wanted[a as usize]) {
                continue;
            }
            for &(a, _) in &family.atoms {
                in_family[a as usize] = true;
            }
            self.family_statements(family, out);
            out.push_str(CHUNK_MARK);
        }
        // By level (the longest chain of atoms of this function below an atom): atoms
        // of one level do not read each other, so each level's acyclic atoms are
        // computed in any order: head-parallel or under nested guards (see
        // `parallel_statements`).
        let mut level: Vec<Option<usize>> = vec![None; self.g.atoms.len()];
        let mut levels: Vec<(Vec<Vec<AtomId>>, Vec<AtomId>)> = Vec::new();
        for (atoms, cyclic) in &self.order {
            let atoms: Vec<AtomId> = atoms
                .iter()
                .copied()
                .filter(|&a| {
                    wanted[a as usize]
                        && !guards.contains_key(&a)
                        && !in_family[a as usize]
                        && self.places[a as usize] != Place::Never
                })
                .collect();
            if atoms.is_empty() {
                continue;
            }
            let below = atoms
                .iter()
                .flat_map(|&a| &self.by_head[a as usize])
                .flat_map(|i| &i.body)
                .filter_map(|&l| {
                    let (Literal::Pos(b) | Literal::Neg(b)) = l;
                    if atoms.contains(&b) {
                        None
                    } else {
                        level[b as usize]
                    }
                })
                .max();
            let at = below.map_or(0, |l| l + 1);
            for &a in &atoms {
                level[a as usize] = Some(at);
            }
            if levels.len() <= at {
                levels.resize_with(at + 1, Default::default);
            }
            if *cyclic {
                levels[at].0.push(atoms);
            } else {
                levels[at].1.extend(atoms);
            }
        }
        for (cyclic_groups, acyclic) in levels {
            for atoms in cyclic_groups {
                let computed: Vec<(AtomId, String)> =
                    atoms.iter().map(|&a| (a, self.expression(a))).collect();
                self.assign(&computed, true, out);
                out.push_str(CHUNK_MARK);
            }
            // The level's atoms by demand guard (see `demand_guards`): those of one
            // guard with enough literals between them are computed under an `if`.
            let mut by_demand: BTreeMap<Option<AtomId>, Vec<(AtomId, Vec<Instance>)>> =
                BTreeMap::new();
            for &a in &acyclic {
                let rest: Vec<Instance> = self.by_head[a as usize]
                    .iter()
                    .map(|&i| i.clone())
                    .collect();
                by_demand
                    .entry(self.demand.get(a as usize).copied().flatten())
                    .or_default()
                    .push((a, rest));
            }
            let literals = |items: &[(AtomId, Vec<Instance>)]| -> usize {
                items
                    .iter()
                    .flat_map(|(_, rest)| rest)
                    .map(|i| i.body.len())
                    .sum()
            };
            let mut unguarded = by_demand.remove(&None).unwrap_or_default();
            let mut guarded = Vec::new();
            for (guard, items) in by_demand {
                if literals(&items) < MIN_DEMAND_GUARDED {
                    unguarded.extend(items);
                } else {
                    guarded.push((guard.expect("a guard"), items));
                }
            }
            for statement in self.parallel_statements(unguarded) {
                out.push_str(&statement);
                out.push_str(CHUNK_MARK);
            }
            for (guard, items) in guarded {
                let statements = self.parallel_statements(items);
                for block in guarded_blocks(&self.literal(Literal::Pos(guard)), &statements) {
                    out.push_str(&block);
                    out.push_str(CHUNK_MARK);
                }
            }
        }
        let mut by_guard: BTreeMap<AtomId, Vec<AtomId>> = BTreeMap::new();
        for (&a, &guard) in &guards {
            by_guard.entry(guard).or_default().push(a);
        }
        for (guard, atoms) in by_guard {
            let statements = self.guarded_statements(guard, &atoms);
            for block in guarded_blocks(&self.literal(Literal::Pos(guard)), &statements) {
                out.push_str(&block);
                out.push_str(CHUNK_MARK);
            }
        }
    }

    /// The statements of the atoms under one guard, the guard left out of their
    /// instances. Atoms of one instance in the same shape relative to their own bit
    /// (literals from the same arrays, same polarities, same distances) are computed
    /// together, one masked word expression per word of `d` (*head-parallel*); the
    /// guarded atoms are read by no other atom of the function, so their order is free.
    fn guarded_statements(&self, guard: AtomId, atoms: &[AtomId]) -> Vec<String> {
        let items = atoms
            .iter()
            .map(|&a| {
                let rest = without(
                    self.by_head[a as usize].iter().copied(),
                    &[Literal::Pos(guard)],
                );
                (a, rest)
            })
            .collect();
        self.parallel_statements(items)
    }

    /// The statements of atoms that no atom among them reads (each with its
    /// instances), in any order: atoms of `d` with one instance in one shape relative
    /// to their own bit are computed head-parallel; the others under nested guards
    /// (see [`Self::guard_tree`]).
    fn parallel_statements(&self, items: Vec<(AtomId, Vec<Instance>)>) -> Vec<String> {
        type Shape = Vec<(&'static str, bool, isize)>;
        type Member = (usize, AtomId, Vec<Instance>);
        let mut classes: BTreeMap<Shape, Vec<Member>> = BTreeMap::new();
        let mut single: Vec<(AtomId, Vec<Instance>)> = Vec::new();
        for (a, rest) in items {
            let Place::D(head) = self.places[a as usize] else {
                single.push((a, rest));
                continue;
            };
            let shape: Option<Shape> = match &rest[..] {
                [instance] if !instance.body.is_empty() => instance
                    .body
                    .iter()
                    .map(|&l| {
                        self.bit_of(l).map(|(array, bit, positive)| {
                            (array, positive, bit as isize - head as isize)
                        })
                    })
                    .collect(),
                _ => None,
            };
            match shape {
                Some(mut shape) => {
                    shape.sort_unstable();
                    classes.entry(shape).or_default().push((head, a, rest));
                }
                None => single.push((a, rest)),
            }
        }
        let mut statements = Vec::new();
        for (shape, members) in classes {
            // Per word of `d`, the class' atoms there; a lone one is computed alone
            // (a shifted word costs more than a bit when only one bit is used).
            let mut by_word: BTreeMap<usize, Vec<Member>> = BTreeMap::new();
            for member in members {
                by_word.entry(member.0 / 64).or_default().push(member);
            }
            for (w, members) in by_word {
                if members.len() == 1 {
                    let (_, a, rest) = members.into_iter().next().expect("one member");
                    single.push((a, rest));
                    continue;
                }
                let mask = head_mask(members.iter().map(|&(head, ..)| head));
                let and = self.shape_word(&shape, w, 0);
                statements.push(format!("d[{w}] |= ({and}) & {mask:#x};\n"));
            }
        }
        self.guard_tree(single, &mut statements);
        statements
    }

    /// Statements of atoms that no atom among them reads (each with its instances),
    /// under nested guards: repeatedly, the positive literal that every instance of the
    /// most atoms holds (at least [`MIN_GUARDED`]) becomes an `if` around those atoms,
    /// left out of their instances, and so on inside. A legal move's source square
    /// guards every move from it: an empty square costs one test.
    fn guard_tree(&self, items: Vec<(AtomId, Vec<Instance>)>, statements: &mut Vec<String>) {
        // Each atom with the literals every one of its instances holds, and how many
        // atoms hold each literal so (kept up to date as atoms move inside a guard).
        let mut items: Vec<(AtomId, Vec<Instance>, Vec<Literal>)> = items
            .into_iter()
            .map(|(a, rest)| {
                let common: Vec<Literal> = rest.first().map_or_else(Vec::new, |first| {
                    first
                        .body
                        .iter()
                        .copied()
                        .filter(|&l| {
                            matches!(l, Literal::Pos(b)
                                if matches!(self.places[b as usize], Place::State(_) | Place::D(_)))
                                && rest.iter().all(|i| i.body.contains(&l))
                        })
                        .collect()
                });
                (a, rest, common)
            })
            .collect();
        let mut counts: BTreeMap<Literal, usize> = BTreeMap::new();
        for (_, _, common) in &items {
            for &l in common {
                *counts.entry(l).or_default() += 1;
            }
        }
        loop {
            let best = counts
                .iter()
                .filter(|&(_, &count)| count >= MIN_GUARDED)
                .max_by_key(|&(&l, &count)| (count, std::cmp::Reverse(l)))
                .map(|(&l, _)| l);
            let Some(best) = best else { break };
            let (inside, outside): (Vec<_>, Vec<_>) = items
                .into_iter()
                .partition(|(_, _, common)| common.contains(&best));
            items = outside;
            let inside: Vec<(AtomId, Vec<Instance>)> = inside
                .into_iter()
                .map(|(a, mut rest, common)| {
                    for l in common {
                        *counts.get_mut(&l).expect("counted") -= 1;
                    }
                    for instance in &mut rest {
                        instance.body.retain(|&l| l != best);
                    }
                    (a, rest)
                })
                .collect();
            let mut inner = Vec::new();
            self.guard_tree(inside, &mut inner);
            statements.extend(guarded_blocks(&self.literal(best), &inner));
        }
        for (a, rest, _) in items {
            let refs: Vec<&Instance> = rest.iter().collect();
            let mut text = String::new();
            self.assign(&[(a, self.expression_of(&refs))], false, &mut text);
            statements.push(text);
        }
    }

    /// A family's atoms (see [`Family`]), one statement per word of `d` they occupy.
    fn family_statements(&self, family: &Family, out: &mut String) {
        let Place::D(first) = self.places[family.atoms[0].0 as usize] else {
            unreachable!("a family is in `d`")
        };
        // A multiple of 64: bit `b` of `d` is computed from the bits `b - offset + δ` of
        // the literals' arrays.
        let offset = first as isize - family.atoms[0].1 as isize;
        let mut masks: BTreeMap<usize, u64> = BTreeMap::new();
        for &(a, _) in &family.atoms {
            let Place::D(bit) = self.places[a as usize] else {
                unreachable!("a family is in `d`")
            };
            *masks.entry(bit / 64).or_default() |= 1 << (bit % 64);
        }
        // A doc comment on an empty item: the generated text is parsed and printed
        // again, which keeps doc comments only.
        let _ = writeln!(
            out,
            "/// `{}`: {} atoms, word-parallel.\nconst _: () = ();",
            self.g.relation_name(self.ir, family.relation),
            family.atoms.len()
        );
        for (w, mask) in masks {
            let alternatives: Vec<String> = family
                .shapes
                .iter()
                .map(|shape| format!("({})", self.shape_word(shape, w, offset)))
                .collect();
            // A word the family owns is assigned whole: `eval_state` does not clear it.
            let op = if self.owned.contains(&w) { "=" } else { "|=" };
            let _ = writeln!(
                out,
                "d[{w}] {op} ({}) & {mask:#x};",
                alternatives.join(" | ")
            );
        }
    }

    /// The words of `d` that one family of the state's cone owns — every atom placed
    /// there is that family's — which its statement assigns whole, so `eval_state`
    /// need not clear them (skirmish: 3,000 of its 3,200 words, cleared every state).
    fn owned_words(&self) -> BTreeSet<usize> {
        let mut owner: BTreeMap<usize, Option<usize>> = BTreeMap::new();
        let mut family_of: Vec<Option<usize>> = vec![None; self.g.atoms.len()];
        for (f, family) in self.families.iter().enumerate() {
            if family
                .atoms
                .iter()
                .any(|&(a, _)| self.state_cone[a as usize])
            {
                for &(a, _) in &family.atoms {
                    family_of[a as usize] = Some(f);
                }
            }
        }
        for (a, place) in self.places.iter().enumerate() {
            if let Place::D(bit) = *place {
                let f = family_of[a];
                owner
                    .entry(bit / 64)
                    .and_modify(|o| {
                        if *o != f {
                            *o = None;
                        }
                    })
                    .or_insert(f);
            }
        }
        owner
            .into_iter()
            .filter_map(|(w, f)| f.map(|_| w))
            .collect()
    }

    /// The code that clears `d` before `eval_state`: every word but those a family
    /// owns (see [`Self::owned_words`]) and those no atom is placed in (nothing writes
    /// them), as ranges, or the whole array when no word is skipped.
    fn clear_d(&self) -> String {
        let owned = &self.owned;
        if owned.is_empty() {
            return "*d = [0; D_WORDS];\n".to_owned();
        }
        let mut used = vec![false; words(self.d_bits)];
        for place in &self.places {
            if let Place::D(bit) = *place {
                used[bit / 64] = true;
            }
        }
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (w, &is_used) in used.iter().enumerate() {
            if !is_used || owned.contains(&w) {
                continue;
            }
            match ranges.last_mut() {
                Some((_, hi)) if *hi == w => *hi = w + 1,
                _ => ranges.push((w, w + 1)),
            }
        }
        if ranges.len() > MAX_CLEARED_RANGES {
            return "*d = [0; D_WORDS];\n".to_owned();
        }
        let mut code = String::new();
        for (lo, hi) in ranges {
            if hi == lo + 1 {
                let _ = writeln!(code, "d[{lo}] = 0;");
            } else {
                let _ = writeln!(code, "d[{lo}..{hi}].fill(0);");
            }
        }
        code
    }

    /// The guarded atoms of a function (see [`Self::statements`]) and their guards.
    fn guards(&self, wanted: &[bool]) -> BTreeMap<AtomId, AtomId> {
        let mut in_family = vec![false; self.g.atoms.len()];
        for family in &self.families {
            for &(a, _) in &family.atoms {
                in_family[a as usize] = true;
            }
        }
        let computed = |a: AtomId| wanted[a as usize] && self.places[a as usize] != Place::Never;
        let mut read = vec![false; self.g.atoms.len()];
        let mut cyclic = vec![false; self.g.atoms.len()];
        for (atoms, is_cyclic) in &self.order {
            for &a in atoms {
                cyclic[a as usize] = *is_cyclic;
                if !computed(a) {
                    continue;
                }
                for instance in &self.by_head[a as usize] {
                    for &literal in &instance.body {
                        let (Literal::Pos(b) | Literal::Neg(b)) = literal;
                        read[b as usize] = true;
                    }
                }
            }
        }
        // Per sink atom, the state bits or earlier atoms every instance holds.
        let mut candidates: BTreeMap<AtomId, Vec<AtomId>> = BTreeMap::new();
        let mut counts: BTreeMap<AtomId, usize> = BTreeMap::new();
        for a in 0..self.g.atoms.len() as AtomId {
            let instances = &self.by_head[a as usize];
            if !computed(a)
                || read[a as usize]
                || cyclic[a as usize]
                || in_family[a as usize]
                || instances.is_empty()
            {
                continue;
            }
            let common: Vec<AtomId> = instances[0]
                .body
                .iter()
                .filter_map(|&l| match l {
                    Literal::Pos(b)
                        if matches!(self.places[b as usize], Place::State(_) | Place::D(_))
                            && instances.iter().all(|i| i.body.contains(&l)) =>
                    {
                        Some(b)
                    }
                    _ => None,
                })
                .collect();
            for &b in &common {
                *counts.entry(b).or_default() += 1;
            }
            if !common.is_empty() {
                candidates.insert(a, common);
            }
        }
        candidates
            .into_iter()
            .filter_map(|(a, common)| {
                let best = common
                    .into_iter()
                    .max_by_key(|b| (counts[b], std::cmp::Reverse(*b)))
                    .expect("a candidate");
                (counts[&best] >= MIN_GUARDED).then_some((a, best))
            })
            .collect()
    }

    /// Statements setting each atom's bit to its expression; a recursive group is
    /// repeated until no bit changes.
    fn assign(&self, computed: &[(AtomId, String)], cyclic: bool, out: &mut String) {
        if cyclic {
            out.push_str("loop {\nlet mut changed = false;\n");
        }
        for (a, expression) in computed {
            let (array, bit) = self.target(*a);
            let (w, b) = (bit / 64, bit % 64);
            if cyclic {
                let _ = writeln!(
                    out,
                    "let v = ({expression}) << {b}u32;\nif v & !{array}[{w}] != 0 {{ {array}[{w}] |= v; changed = true; }}"
                );
            } else {
                let _ = writeln!(out, "{array}[{w}] |= ({expression}) << {b}u32;");
            }
        }
        if cyclic {
            out.push_str("if !changed { break; }\n}\n");
        }
    }

    fn target(&self, a: AtomId) -> (&'static str, usize) {
        match self.places[a as usize] {
            Place::D(bit) => ("d", bit),
            Place::M(bit) => ("m", bit),
            Place::Next(bit) => ("n", bit),
            other => unreachable!("atom {a} is not computed ({other:?})"),
        }
    }

    /// Whether an instance of `next` copies its own fluent, and under which move.
    fn copy_of(&self, instance: &Instance) -> Option<Option<(usize, u32)>> {
        let Place::Next(bit) = self.places[instance.head as usize] else {
            return None;
        };
        let mut copies = false;
        let mut under = None;
        for &literal in &instance.body {
            let Literal::Pos(a) = literal else {
                return None;
            };
            match self.places[a as usize] {
                Place::State(b) if b == bit && !copies => copies = true,
                Place::Move(r, mv) if under.is_none() => under = Some((r, mv)),
                _ => return None,
            }
        }
        copies.then_some(under)
    }

    fn eval_moves(&self, out: &mut String) -> String {
        let w = words(self.fluents.len());
        let mut copy = vec![0u64; w];
        let mut frames: BTreeMap<usize, Vec<Vec<u64>>> = BTreeMap::new();
        let mut rest: Vec<bool> = self.move_cone.clone();
        // Move-dependent atoms that only say which moves were played: per role, a
        // table from its move to their bits of `m`.
        let roles = self.role_moves.len() - 1;
        let move_only = self.move_only_atoms();
        let mut move_tables: BTreeMap<usize, Vec<Vec<u64>>> = BTreeMap::new();
        let mw = words(self.m_bits);
        for (a, sets) in move_only.iter().enumerate() {
            let (Some(sets), Place::M(bit)) = (sets, self.places[a]) else {
                continue;
            };
            rest[a] = false;
            for (role, moves) in sets.iter().enumerate() {
                let base = self.role_moves[role];
                for &mv in moves {
                    let count = (self.role_moves[role + 1] - base) as usize;
                    let table = move_tables
                        .entry(role)
                        .or_insert_with(|| vec![vec![0; mw]; count]);
                    table[(mv - base) as usize][bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        // Conditional copies (`next(f)` from `true(f)` and conditions on the joint
        // move alone, one per fluent): per role, the fluents its move keeps.
        let mut keep_family = vec![0u64; w];
        let mut keeps: Vec<Vec<Vec<u64>>> = (0..roles)
            .map(|r| vec![vec![0u64; w]; (self.role_moves[r + 1] - self.role_moves[r]) as usize])
            .collect();
        let mut partial: Vec<Option<Vec<&Instance>>> = vec![None; self.g.atoms.len()];
        for (a, slot) in partial.iter_mut().enumerate() {
            let Place::Next(bit) = self.places[a] else {
                continue;
            };
            let mut others = Vec::new();
            let mut kept = false;
            for instance in &self.by_head[a] {
                if !kept
                    && self.copy_of(instance).is_none()
                    && let Some(factors) = self.keep_factors(instance, bit, &move_only)
                {
                    kept = true;
                    keep_family[bit / 64] |= 1 << (bit % 64);
                    for (role, rows) in keeps.iter_mut().enumerate() {
                        let base = self.role_moves[role];
                        for (k, row) in rows.iter_mut().enumerate() {
                            if factors(role, base + k as u32) {
                                row[bit / 64] |= 1 << (bit % 64);
                            }
                        }
                    }
                    continue;
                }
                match self.copy_of(instance) {
                    Some(None) => copy[bit / 64] |= 1 << (bit % 64),
                    Some(Some((role, mv))) => {
                        let base = self.role_moves[role];
                        let count = (self.role_moves[role + 1] - base) as usize;
                        let table = frames
                            .entry(role)
                            .or_insert_with(|| vec![vec![0; w]; count]);
                        table[(mv - base) as usize][bit / 64] |= 1 << (bit % 64);
                    }
                    None => others.push(*instance),
                }
            }
            *slot = Some(others);
        }
        // Frame tables become constants.
        let mut tables = String::new();
        for (role, table) in &frames {
            let _ = write!(
                tables,
                "static FRAME_{role}: [[u64; WORDS]; {}] = [",
                table.len()
            );
            for row in table {
                let _ = write!(tables, "[{}],", hex_list(row));
            }
            tables.push_str("];\n");
        }
        let _ = writeln!(tables, "static COPY: [u64; WORDS] = [{}];", hex_list(&copy));
        let table_text = |name: String, width: &str, table: &[Vec<u64>]| {
            let mut text = format!("static {name}: [[u64; {width}]; {}] = [", table.len());
            for row in table {
                let _ = write!(text, "[{}],", hex_list(row));
            }
            text.push_str("];\n");
            text
        };
        for (role, table) in &move_tables {
            tables.push_str(&table_text(format!("MOVED_{role}"), "M_WORDS", table));
        }
        let keep_roles: Vec<usize> = (0..roles)
            .filter(|&r| keeps[r].iter().any(|row| *row != keep_family))
            .collect();
        let has_keeps = keep_family.iter().any(|&x| x != 0);
        if has_keeps {
            let _ = writeln!(
                tables,
                "static KEPT: [u64; WORDS] = [{}];",
                hex_list(&keep_family)
            );
            for &role in &keep_roles {
                tables.push_str(&table_text(format!("KEEP_{role}"), "WORDS", &keeps[role]));
            }
        }
        out.push_str("*m = [0; M_WORDS];\n");
        for role in move_tables.keys() {
            let base = self.role_moves[*role];
            let _ = writeln!(
                out,
                "let moved = &MOVED_{role}[(joint[{role}] - {base}) as usize];\nfor w in 0..M_WORDS {{ m[w] |= moved[w]; }}"
            );
        }
        // Move-dependent atoms' instances under one move that read only the state,
        // before everything that reads them: `match` arms on the move (reversi's
        // flips: only the played move's run, not every move's test of the joint
        // move), or with keyed programs an early keyed program; the atoms' other
        // instances are ORed in below.
        let mut early_rest: Vec<Option<Vec<&Instance>>> = vec![None; self.g.atoms.len()];
        let mut early: BTreeMap<usize, MoveArms> = BTreeMap::new();
        for (a, keyable) in self.early_keyed_atoms().into_iter().enumerate() {
            let Place::M(bit) = self.places[a] else {
                continue;
            };
            if !keyable {
                continue;
            }
            early_rest[a] = Some(split_by_move(
                self.by_head[a].iter().copied(),
                bit,
                |instance| self.early_key(instance),
                &mut early,
            ));
        }
        if self.tabled.keyed {
            // Instances that also read another move stay in `match` arms.
            let programs = self.take_programmable(&mut early);
            self.keyed_programs(&programs, KeyedTarget::Early, out, &mut tables);
        }
        self.move_arms(&early, "m", "early", out, &mut tables);
        out.push_str("for w in 0..WORDS {\nlet mut keep = COPY[w];\n");
        for role in frames.keys() {
            let base = self.role_moves[*role];
            let _ = writeln!(
                out,
                "keep |= FRAME_{role}[(joint[{role}] - {base}) as usize][w];"
            );
        }
        if has_keeps {
            out.push_str("let mut kept = KEPT[w];\n");
            for role in &keep_roles {
                let base = self.role_moves[*role];
                let _ = writeln!(
                    out,
                    "kept &= KEEP_{role}[(joint[{role}] - {base}) as usize][w];"
                );
            }
            out.push_str("keep |= kept;\n");
        }
        out.push_str("n[w] = s[w] & keep;\n}\n");
        // Everything else in evaluation order; `next` heads only with the instances
        // that are not copies, those under one move in a `match` on it at the end.
        let mut keyed: BTreeMap<usize, MoveArms> = BTreeMap::new();
        // Other move-dependent atoms' instances under one move: `match` arms too, run
        // before the first statement that reads one of their atoms.
        let mut late = LateArms {
            arms: BTreeMap::new(),
            atoms: vec![false; self.g.atoms.len()],
            flushed: 0,
        };
        // `next` heads of one instance, by shape relative to their bit: computed
        // head-parallel at the end (nothing reads `n`, so their order is free).
        let mut next_classes: BTreeMap<NextShape, Vec<NextMember<'_>>> = BTreeMap::new();
        for (atoms, cyclic) in &self.order {
            let atoms: Vec<AtomId> = atoms
                .iter()
                .copied()
                .filter(|&a| rest[a as usize] && self.places[a as usize] != Place::Never)
                .collect();
            if atoms
                .iter()
                .any(|&a| late.read_by(&self.by_head[a as usize]))
            {
                self.flush_late(&mut late, out, &mut tables);
            }
            let mut computed = Vec::new();
            for &a in &atoms {
                rest[a as usize] = false;
                let expression = match &partial[a as usize] {
                    Some(others) => {
                        // A `next` head: instances under one move of one role run
                        // only when that move is played.
                        let Place::Next(bit) = self.places[a as usize] else {
                            unreachable!("partial instances are of `next` heads")
                        };
                        let unkeyed = split_by_move(
                            others.iter().copied(),
                            bit,
                            |instance| self.key_of(instance),
                            &mut keyed,
                        );
                        if unkeyed.is_empty() {
                            continue;
                        }
                        if let Some(shape) = self.next_shape(bit, &unkeyed) {
                            next_classes
                                .entry(shape)
                                .or_default()
                                .push((bit, a, unkeyed));
                            continue;
                        }
                        self.expression_of(&unkeyed)
                    }
                    None => {
                        let all: &[&Instance] = match &early_rest[a as usize] {
                            Some(others) => others,
                            None => &self.by_head[a as usize],
                        };
                        let unkeyed = match self.places[a as usize] {
                            Place::M(bit) if !*cyclic => {
                                let unkeyed = split_by_move(
                                    all.iter().copied(),
                                    bit,
                                    |instance| self.key_of(instance),
                                    &mut late.arms,
                                );
                                late.atoms[a as usize] |= unkeyed.len() < all.len();
                                unkeyed
                            }
                            _ => all.to_vec(),
                        };
                        if unkeyed.is_empty()
                            && (early_rest[a as usize].is_some() || !all.is_empty())
                        {
                            continue;
                        }
                        if let Place::Next(bit) = self.places[a as usize]
                            && !*cyclic
                            && let Some(shape) = self.next_shape(bit, &unkeyed)
                        {
                            next_classes
                                .entry(shape)
                                .or_default()
                                .push((bit, a, unkeyed));
                            continue;
                        }
                        self.expression_of(&unkeyed)
                    }
                };
                computed.push((a, expression));
            }
            if computed.is_empty() {
                continue;
            }
            self.assign(&computed, *cyclic, out);
            out.push_str(CHUNK_MARK);
        }
        self.flush_late(&mut late, out, &mut tables);
        self.next_classes(next_classes, out);
        if self.tabled.keyed {
            // Instances that also read another move stay in `match` arms.
            let programs = self.take_programmable(&mut keyed);
            self.keyed_programs(&programs, KeyedTarget::Next, out, &mut tables);
        }
        self.move_arms(&keyed, "n", "arm", out, &mut tables);
        tables
    }

    /// The shape of a `next` head's one instance relative to the head's bit `bit`
    /// (each literal's array, polarity and distance, sorted), when every literal is a
    /// bit of `s`, `d` or `m`.
    fn next_shape(&self, bit: usize, instances: &[&Instance]) -> Option<NextShape> {
        let [instance] = instances else {
            return None;
        };
        if instance.body.is_empty() {
            return None;
        }
        let mut shape = instance
            .body
            .iter()
            .map(|&l| {
                self.bit_of(l)
                    .map(|(array, at, positive)| (array, positive, at as isize - bit as isize))
            })
            .collect::<Option<NextShape>>()?;
        shape.sort_unstable();
        Some(shape)
    }

    /// The `next` heads collected by shape (see [`Self::next_shape`]): per word of
    /// `n`, the heads of one shape there as one masked word expression — a step
    /// counter's successor is the state shifted by one — and a head alone in its word
    /// as its own statement.
    fn next_classes(&self, classes: BTreeMap<NextShape, Vec<NextMember<'_>>>, out: &mut String) {
        let mut single: Vec<(AtomId, String)> = Vec::new();
        for (shape, members) in classes {
            let mut by_word: BTreeMap<usize, Vec<NextMember<'_>>> = BTreeMap::new();
            for member in members {
                by_word.entry(member.0 / 64).or_default().push(member);
            }
            for (w, members) in by_word {
                if let [(_, a, instances)] = &members[..] {
                    single.push((*a, self.expression_of(instances)));
                    continue;
                }
                let mask = head_mask(members.iter().map(|&(head, ..)| head));
                let and = self.shape_word(&shape, w, 0);
                let _ = writeln!(out, "n[{w}] |= ({and}) & {mask:#x};");
                out.push_str(CHUNK_MARK);
            }
        }
        if !single.is_empty() {
            self.assign(&single, false, out);
            out.push_str(CHUNK_MARK);
        }
    }

    /// Emits the pending late arms (see [`LateArms`]) and clears them.
    fn flush_late(&self, late: &mut LateArms, out: &mut String, tables: &mut String) {
        if late.arms.is_empty() {
            return;
        }
        let name = format!("late{}", late.flushed);
        self.move_arms(&late.arms, "m", &name, out, tables);
        late.arms.clear();
        late.atoms.fill(false);
        late.flushed += 1;
    }

    /// Takes out of `arms` the instances a keyed program can hold (their rest reads
    /// no other move, [`Self::programmable`]); the others stay for `match` arms.
    fn take_programmable(
        &self,
        arms_by_role: &mut BTreeMap<usize, MoveArms>,
    ) -> BTreeMap<usize, MoveArms> {
        let mut programs: BTreeMap<usize, MoveArms> = BTreeMap::new();
        for (role, arms) in arms_by_role.iter_mut() {
            for (mv, heads) in arms.iter_mut() {
                let (programmed, kept): (Vec<_>, Vec<_>) = std::mem::take(heads)
                    .into_iter()
                    .partition(|(_, body)| self.programmable(body));
                *heads = kept;
                if !programmed.is_empty() {
                    programs.entry(*role).or_default().insert(*mv, programmed);
                }
            }
            arms.retain(|_, heads| !heads.is_empty());
        }
        programs
    }

    /// Instances under one move of one role as a `match` on that role's move per role,
    /// so only the played move's run: each sets its bit of `target` (`n` or `m`).
    /// Long arms are functions of their own, named `{name}_{role}_{move}_{k}`.
    fn move_arms(
        &self,
        arms_by_role: &BTreeMap<usize, MoveArms>,
        target: &str,
        name: &str,
        out: &mut String,
        tables: &mut String,
    ) {
        for (role, arms) in arms_by_role.iter().filter(|(_, arms)| !arms.is_empty()) {
            let _ = writeln!(out, "match joint[{role}] {{");
            for (i, (mv, heads)) in arms.iter().enumerate() {
                if i > 0 && i % 64 == 0 {
                    // Long matches are split (only one arm of all of them runs).
                    let _ = write!(out, "_ => {{}}\n}}\n{CHUNK_MARK}match joint[{role}] {{\n");
                }
                let mut arm = String::new();
                for (k, (bit, body)) in heads.iter().enumerate() {
                    let (w, b) = (bit / 64, bit % 64);
                    if k > 0 && k % 64 == 0 {
                        arm.push_str(CHUNK_MARK);
                    }
                    if body.is_empty() {
                        let _ = writeln!(arm, "{target}[{w}] |= 1 << {b}u32;");
                    } else {
                        let parts: Vec<String> = body.iter().map(|&l| self.literal(l)).collect();
                        let _ = writeln!(
                            arm,
                            "{target}[{w}] |= (({}) & 1) << {b}u32;",
                            parts.join(" & ")
                        );
                    }
                }
                // A long arm (a move that moves the whole board) is functions of its
                // own: rustc's time grows faster than a function's size.
                let arm = chunked(
                    &arm,
                    &format!("{name}_{role}_{mv}"),
                    MOVES_PARAMS,
                    MOVES_ARGS,
                    tables,
                );
                let _ = writeln!(out, "{mv} => {{\n{arm}}}");
            }
            out.push_str("_ => {}\n}\n");
            out.push_str(CHUNK_MARK);
        }
    }

    /// Instances under one move as keyed programs (see
    /// [`gdlc_runtime::program::run_keyed`]): per role, the instances of all its
    /// moves in one array (`KEYED_r`, or `EARLY_r` for [`KeyedTarget::Early`]) with
    /// each move's start in another (`KEYED_AT_r`, `EARLY_AT_r`), and the statement
    /// that runs the played move's.
    fn keyed_programs(
        &self,
        keyed: &BTreeMap<usize, MoveArms>,
        target: KeyedTarget,
        out: &mut String,
        tables: &mut String,
    ) {
        let (name, what, reads_m, sets) = match target {
            KeyedTarget::Next => ("KEYED", "`next` instances", "m", "n"),
            KeyedTarget::Early => ("EARLY", "move-dependent atoms' instances", "&[]", "m"),
        };
        for (role, arms) in keyed {
            let base = self.role_moves[*role];
            let count = (self.role_moves[role + 1] - base) as usize;
            let mut words: Vec<u32> = Vec::new();
            let mut starts: Vec<u32> = Vec::with_capacity(count + 1);
            for k in 0..count {
                starts.push(words.len() as u32);
                for (bit, body) in arms.get(&(base + k as u32)).into_iter().flatten() {
                    words.push(*bit as u32);
                    if !self.program_instance(body, &mut words) {
                        words.pop();
                    }
                }
            }
            starts.push(words.len() as u32);
            let _ = writeln!(
                tables,
                "/// The {what} under each move of role {role} (`gdlc_runtime::program::run_keyed`).\nstatic {name}_{role}: [u32; {}] = [{}];\nstatic {name}_AT_{role}: [u32; {}] = [{}];",
                words.len(),
                decimal_list(&words),
                starts.len(),
                decimal_list(&starts)
            );
            let _ = writeln!(
                out,
                "{{\nlet k = (joint[{role}] - {base}) as usize;\ngdlc_runtime::program::run_keyed(&{name}_{role}[{name}_AT_{role}[k] as usize..{name}_AT_{role}[k + 1] as usize], s, d, {reads_m}, {sets});\n}}"
            );
        }
    }

    /// For each atom of `m` whose every instance is one played move, the moves that
    /// make it hold, per role.
    fn move_only_atoms(&self) -> Vec<Option<Vec<Vec<u32>>>> {
        let roles = self.role_moves.len() - 1;
        (0..self.g.atoms.len())
            .map(|a| {
                if !matches!(self.places[a], Place::M(_)) || self.by_head[a].is_empty() {
                    return None;
                }
                let mut sets = vec![Vec::new(); roles];
                for instance in &self.by_head[a] {
                    let [Literal::Pos(x)] = instance.body[..] else {
                        return None;
                    };
                    let Place::Move(role, mv) = self.places[x as usize] else {
                        return None;
                    };
                    sets[role].push(mv);
                }
                Some(sets)
            })
            .collect()
    }

    /// When an instance of `next` copies its fluent (`bit`) under a condition on the
    /// joint move that is a conjunction of conditions on each role's move: that
    /// condition, as `holds(role, move)`.
    fn keep_factors<'m>(
        &self,
        instance: &Instance,
        bit: usize,
        move_only: &'m [Option<Vec<Vec<u32>>>],
    ) -> Option<impl Fn(usize, u32) -> bool + 'm> {
        // (role, moves, wanted): role's move must be in `moves` (wanted) or not.
        let mut factors: Vec<(usize, Vec<u32>, bool)> = Vec::new();
        let mut copies = false;
        for &literal in &instance.body {
            let (Literal::Pos(x) | Literal::Neg(x)) = literal;
            let positive = matches!(literal, Literal::Pos(_));
            match (self.places[x as usize], &move_only[x as usize]) {
                (Place::State(b), _) if b == bit && positive && !copies => copies = true,
                (Place::Move(role, mv), _) => factors.push((role, vec![mv], positive)),
                (Place::M(_), Some(sets)) => {
                    let involved: Vec<usize> =
                        (0..sets.len()).filter(|&r| !sets[r].is_empty()).collect();
                    if positive {
                        // An OR across roles is not a conjunction.
                        let [role] = involved[..] else {
                            return None;
                        };
                        factors.push((role, sets[role].clone(), true));
                    } else {
                        for role in involved {
                            factors.push((role, sets[role].clone(), false));
                        }
                    }
                }
                _ => return None,
            }
        }
        copies.then_some(move |role: usize, mv: u32| {
            factors
                .iter()
                .filter(|(r, _, _)| *r == role)
                .all(|(_, moves, wanted)| moves.contains(&mv) == *wanted)
        })
    }

    /// The move-dependent atoms (of `m`, not only saying which moves were played, not
    /// recursive) whose instances under one move that read only the state and its
    /// atoms ([`Self::early_key`]) can be an *early* keyed program: it runs first in
    /// `eval_moves`, before the code that reads them (in skirmish, "the mover captured":
    /// one instance per move, reading the target cell).
    fn early_keyed_atoms(&self) -> Vec<bool> {
        let move_only = self.move_only_atoms();
        let mut early: Vec<bool> = (0..self.g.atoms.len())
            .map(|a| {
                self.move_cone[a] && matches!(self.places[a], Place::M(_)) && move_only[a].is_none()
            })
            .collect();
        for (atoms, cyclic) in &self.order {
            if *cyclic {
                for &a in atoms {
                    early[a as usize] = false;
                }
            }
        }
        early
    }

    /// An instance under one move (its role and move) whose rest reads only the state,
    /// its atoms `d` and other moves of the joint move, and that rest: what runs early,
    /// in the played move's `match` arm — in its keyed program when the rest reads no
    /// other move ([`Self::programmable`]). battle's "a capture happened" instances
    /// each read two moves: keyed by the first, one test of the other each.
    fn early_key(&self, instance: &Instance) -> Option<(usize, u32, Vec<Literal>)> {
        let (role, mv, body) = self.key_of(instance)?;
        body.iter()
            .all(|&l| {
                let (Literal::Pos(b) | Literal::Neg(b)) = l;
                matches!(
                    self.places[b as usize],
                    Place::State(_) | Place::D(_) | Place::Never | Place::Move(..)
                )
            })
            .then_some((role, mv, body))
    }

    /// The first positive `does` literal of an instance (its role and move), and the
    /// rest of its body.
    fn key_of(&self, instance: &Instance) -> Option<(usize, u32, Vec<Literal>)> {
        let position = instance.body.iter().position(
            |&l| matches!(l, Literal::Pos(a) if matches!(self.places[a as usize], Place::Move(..))),
        )?;
        let Literal::Pos(a) = instance.body[position] else {
            return None;
        };
        let Place::Move(role, mv) = self.places[a as usize] else {
            return None;
        };
        let mut body = instance.body.clone();
        body.remove(position);
        Some((role, mv, body))
    }

    fn module(&self) -> String {
        let w = words(self.fluents.len());
        let dw = words(self.d_bits);
        let mw = words(self.m_bits);
        let strings = |items: &[String]| {
            items
                .iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut init = vec![0u64; w];
        for &bit in &self.init {
            init[bit / 64] |= 1 << (bit % 64);
        }
        let mut out = String::new();
        let _ = writeln!(out, "use gdlc_runtime::ground as rt;");
        let _ = writeln!(
            out,
            "/// Words of the state (one bit per reachable fluent).\npub const WORDS: usize = {w};"
        );
        let _ = writeln!(
            out,
            "/// Words of the state atoms.\npub const D_WORDS: usize = {dw};"
        );
        let _ = writeln!(
            out,
            "/// Words of the move-dependent atoms.\npub const M_WORDS: usize = {mw};"
        );
        let _ = writeln!(
            out,
            "/// The reasoner.\npub type Reasoner = rt::Ground<Rules, WORDS, D_WORDS, M_WORDS>;"
        );
        let _ = writeln!(
            out,
            "/// A state.\npub type State = gdlc_runtime::compiled::Bits<WORDS>;"
        );
        let _ = writeln!(
            out,
            "/// A new reasoner.\npub fn new() -> Reasoner {{ rt::Ground::new() }}"
        );
        let _ = writeln!(
            out,
            "/// The ground rules.\n#[derive(Clone, Copy, Debug, Default)]\npub struct Rules;"
        );
        let mut moves_body = String::new();
        let tables = self.eval_moves(&mut moves_body);
        let mut functions = String::new();
        let moves_body = chunked(
            &moves_body,
            "moves",
            MOVES_PARAMS,
            MOVES_ARGS,
            &mut functions,
        );
        out.push_str(&tables);
        let mut programs = String::new();
        let mut state_body = self.clear_d();
        self.statements(&self.state_cone, &mut state_body);
        let state_body = chunked(
            &state_body,
            "state",
            "s: &[u64; WORDS], d: &mut [u64; D_WORDS]",
            "s, d",
            &mut functions,
        );
        let mut goal_body = String::new();
        if self.tabled.goals {
            goal_body = self.goal_program(&self.goal_cone, "GOAL_PROGRAM", &mut programs);
        } else {
            self.statements(&self.goal_cone, &mut goal_body);
        }
        let goal_body = chunked(
            &goal_body,
            "goals",
            "s: &[u64; WORDS], d: &mut [u64; D_WORDS]",
            "s, d",
            &mut functions,
        );
        out.push_str(&functions);
        out.push_str(&programs);
        let goals: Vec<String> = self
            .goals
            .iter()
            .map(|g| {
                format!(
                    "&[{}]",
                    g.iter()
                        .map(|(bit, text)| format!("({bit}, {text:?})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        let sees: Vec<String> = self
            .sees
            .iter()
            .map(|s| {
                format!(
                    "&[{}]",
                    s.iter()
                        .map(|(bit, p)| format!("({bit}, {p})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        let roles: Vec<String> = self
            .ir
            .roles
            .iter()
            .map(|&r| self.ir.symbols.symbol(r).name.clone())
            .collect();
        let _ = writeln!(
            out,
            "#[allow(clippy::all, unused_parens, unused_mut, unused_variables)]\nimpl rt::GroundRules<WORDS, D_WORDS, M_WORDS> for Rules {{
const ROLES: &'static [&'static str] = &[{roles}];
const FLUENTS: &'static [&'static str] = &[{fluents}];
const MOVES: &'static [&'static str] = &[{moves}];
const ROLE_MOVES: &'static [u32] = &[{role_moves}];
const PERCEPTS: &'static [&'static str] = &[{percepts}];
const INIT: [u64; WORDS] = [{init}];
const LEGAL_BITS: &'static [u32] = &[{legal_bits}];
const TERMINAL_BIT: Option<u32> = {terminal};
const GOALS: &'static [&'static [(u32, &'static str)]] = &[{goals}];
const SEES: &'static [&'static [(u32, u32)]] = &[{sees}];{remembered}
#[inline(never)]
fn eval_state(s: &[u64; WORDS], d: &mut [u64; D_WORDS]) {{
{state_body}}}
#[inline(never)]
fn eval_goals(s: &[u64; WORDS], d: &mut [u64; D_WORDS]) {{
{goal_body}}}
#[inline(never)]
fn eval_moves(s: &[u64; WORDS], d: &[u64; D_WORDS], joint: &[u32], m: &mut [u64; M_WORDS], n: &mut [u64; WORDS]) {{
{moves_body}}}
}}",
            roles = strings(&roles),
            fluents = strings(&self.fluents),
            moves = strings(&self.moves),
            role_moves = self.role_moves.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
            percepts = strings(&self.percepts),
            init = init.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(", "),
            legal_bits = self.legal_bits.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            terminal = self.terminal_bit.map_or("None".to_owned(), |b| format!("Some({b})")),
            goals = goals.join(", "),
            sees = sees.join(", "),
            // Goals run as a program are long enough to remember by state.
            remembered = if self.tabled.goals {
                "\nconst GOALS_REMEMBERED: bool = true;"
            } else {
                ""
            },
        );
        out
    }
}

//! Grounding (`gdlc::ground`) against the reference interpreter: on every valid corpus
//! game, test case and team game that grounds within the compiler's limits, the ground
//! program evaluated directly (`gdlc::ground::exec::GroundGame`) agrees with the
//! interpreter on perft and, along seeded playouts, on legal moves, terminal, goals,
//! percepts and next states. The code the ground backend emits from it is compiled and
//! checked by `cargo xtask verify`. Also: what grounding keeps and decides on small
//! games of our own, and the backend choice.

mod common;

use std::path::Path;

use gdlc::analysis::analyze;
use gdlc::emit::ground::Budget;
use gdlc::ground::exec::GroundGame;
use gdlc::ground::{Grounding, LIMITS, Literal, ground};
use gdlc::interp::Interpreter;
use gdlc::ir::{Ir, Keyword};
use gdlc::{Backend, FrontEnd, SourceFile};
use gdlc_runtime::{CompareOptions, Game, compare};

fn grounded(file: &SourceFile) -> (Ir, Result<Grounding, String>) {
    let front = gdlc::front_end(file);
    assert!(front.is_valid(), "{} is not valid", file.name);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(file)));
    let grounding = ground(&ir, &plan, &LIMITS, false);
    (ir, grounding)
}

/// Compares the ground evaluator of one game with the interpreter; `None` if the
/// game is not valid, not analysable or does not ground within the limits.
fn agree(path: &Path, options: CompareOptions) -> Option<Result<(), String>> {
    let file = common::read_source(path);
    let front = gdlc::front_end(&file);
    if !front.is_valid() {
        return None;
    }
    let ir = analyze(&front).ok()?;
    let plan = gdlc::planner::plan(&ir).ok()?;
    let plain = ground(&ir, &plan, &LIMITS, false);
    // The projected rules are used where the plain grounding is too large.
    let large = plain
        .as_ref()
        .map_or(true, |g| g.literal_count() > PROJECT_PAST);
    let projected = large
        .then(|| ground(&ir, &plan, &LIMITS, true).ok())
        .flatten();
    let groundings: Vec<(&str, Grounding)> = [("plain", plain.ok()), ("projected", projected)]
        .into_iter()
        .filter_map(|(name, g)| g.map(|g| (name, g)))
        .collect();
    if groundings.is_empty() {
        return None;
    }
    for (name, grounding) in &groundings {
        let mut reference = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
        let mut candidate = GroundGame::new(&ir, grounding);
        if let Err(difference) = compare(&mut reference, &mut candidate, options) {
            return Some(Err(format!("{name} grounding: {difference}")));
        }
    }
    Some(Ok(()))
}

/// One of our own games of `tests/ground/`, analysed and planned.
fn own_game(name: &str) -> (FrontEnd, Ir, gdlc::plan::Plan) {
    let file = common::read_source(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/ground")
            .join(name),
    );
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    (front, ir, plan)
}

/// The relation of the IR with this key (`name/arity`).
fn relation(ir: &Ir, key: &str) -> gdlc::ir::RelationId {
    ir.relations
        .iter()
        .position(|r| r.key() == key)
        .map(|r| gdlc::ir::RelationId(r as u32))
        .unwrap_or_else(|| panic!("no relation {key}"))
}

/// Asserts that the ground evaluator of `grounding` agrees with the interpreter: perft
/// to depth 2, then `playouts` seeded playouts of at most `max_steps` steps.
fn assert_agrees(
    front: &FrontEnd,
    ir: &Ir,
    grounding: &Grounding,
    playouts: usize,
    max_steps: usize,
) {
    let mut reference = Interpreter::new(front).expect("interpreter");
    let mut candidate = GroundGame::new(ir, grounding);
    let options = CompareOptions {
        perft_depth: 2,
        playouts,
        max_steps,
        seed: 1,
    };
    compare(&mut reference, &mut candidate, options).expect("agrees");
}

/// Plain groundings with more literals than this are also checked projected.
const PROJECT_PAST: usize = 20_000;

fn check_dir(dir: &Path, options: CompareOptions) -> usize {
    let mut failures = Vec::new();
    let mut agreed = 0;
    for path in common::kif_files(dir) {
        let started = std::time::Instant::now();
        let result = agree(&path, options);
        eprintln!(
            "{:>8.2}s {}",
            started.elapsed().as_secs_f64(),
            path.display()
        );
        match result {
            None => {}
            Some(Ok(())) => agreed += 1,
            Some(Err(difference)) => failures.push(format!("{}: {difference}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{agreed} grounded games agree in {}", dir.display());
    agreed
}

const OPTIONS: CompareOptions = CompareOptions {
    perft_depth: 1,
    playouts: 2,
    max_steps: 40,
    seed: 1,
};

#[test]
fn grounding_agrees_with_the_interpreter_on_the_corpus() {
    let Some(dir) = common::games_dir() else {
        return;
    };
    let agreed = check_dir(&dir, OPTIONS);
    assert!(agreed >= 80, "only {agreed} corpus games grounded");
    let tests = check_dir(&dir.join("test"), OPTIONS);
    assert!(tests >= 15, "only {tests} test cases grounded");
}

#[test]
fn grounding_agrees_with_the_interpreter_on_the_team_games() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
    let agreed = check_dir(&dir, OPTIONS);
    assert!(agreed >= 4, "only {agreed} team games grounded");
}

fn from_text(text: &str) -> SourceFile {
    SourceFile::new("test.kif", text)
}

/// Only reachable fluents get atoms: the counter never passes 3, although the
/// domain of `succ` goes to 9.
#[test]
fn only_reachable_fluents_are_atoms() {
    let file = from_text(
        "(role a) (init (count 0))
         (<= (legal a tick) (true (count ?x)))
         (<= (next (count ?y)) (true (count ?x)) (succ ?x ?y) (not (limit ?x)))
         (<= (next (count ?x)) (true (count ?x)) (limit ?x))
         (limit 3)
         (<= terminal (true (count 3)))
         (goal a 100)
         (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9)",
    );
    let (ir, grounding) = grounded(&file);
    let grounding = grounding.expect("grounds");
    let true_rel = ir.keyword(Keyword::True).expect("true");
    assert_eq!(grounding.of(true_rel).len(), 4, "count 0..=3");
    // `(limit ?x)` is static: decided while grounding, so no body mentions it.
    let goal = ir.keyword(Keyword::Goal).expect("goal");
    let goal_atoms = grounding.of(goal);
    assert_eq!(goal_atoms.len(), 1);
    let fact = grounding
        .instances
        .iter()
        .find(|i| goal_atoms.contains(&i.head))
        .expect("the goal fact");
    assert!(fact.body.is_empty(), "a fact holds always");
}

/// Entry relations written as facts (static) are atoms with empty bodies, and a
/// negated atom that can never hold is dropped from the body.
#[test]
fn static_entry_relations_and_unreachable_negations() {
    let file = from_text(
        "(role robot) (init (on p))
         (legal robot a) (legal robot b)
         (<= (next (on q)) (does robot a) (not (true (on r))))
         (<= (next (on p)) (does robot b))
         (<= terminal (true (on q)))
         (goal robot 100)",
    );
    let (ir, grounding) = grounded(&file);
    let grounding = grounding.expect("grounds");
    let legal = ir.keyword(Keyword::Legal).expect("legal");
    assert_eq!(grounding.of(legal).len(), 2);
    let next = ir.keyword(Keyword::Next).expect("next");
    for instance in grounding
        .instances
        .iter()
        .filter(|i| grounding.of(next).contains(&i.head))
    {
        assert!(
            instance.body.iter().all(|l| matches!(l, Literal::Pos(_))),
            "`(on r)` is never reachable, so its negation is dropped: {instance:?}"
        );
    }
    let mut game = GroundGame::new(&ir, &grounding);
    let start = game.initial_state();
    let mut moves = Vec::new();
    game.legal_moves(&start, 0, &mut moves);
    let texts: Vec<String> = moves.iter().map(|&m| game.move_to_kif(m)).collect();
    assert_eq!(texts, ["a", "b"]);
    let after = game.next_state(&start, &[moves[0]]);
    assert_eq!(game.state_to_kif(&after), ["(on q)"]);
    assert!(game.is_terminal(&after));
    assert_eq!(game.goal(&after, 0), Ok(100));
    assert!(game.state_from_kif(&["(on r)"]).is_err(), "never reachable");
}

/// A game past the limits is compiled by the join backend (automatically), and the
/// ground backend, when asked for, says why it cannot.
#[test]
fn backend_choice() {
    let small =
        common::read_source(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/tictactoe.kif"));
    let front = gdlc::front_end(&small);
    let auto = gdlc::compile::rust_with_backend(&front, "t.kif", Backend::Auto).expect("auto");
    assert!(auto.contains("A ground reasoner"), "tictactoe grounds");
    assert_eq!(
        gdlc::compile::rust_with_backend(&front, "t.kif", Backend::Ground).as_ref(),
        Ok(&auto),
        "the same code, deterministic"
    );
    let join = gdlc::compile::rust_with_backend(&front, "t.kif", Backend::Join).expect("join");
    assert!(join.contains("rt::Compiled"), "the join backend on request");

    let chess =
        common::read_source(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/chess.kif"));
    let front = gdlc::front_end(&chess);
    let error = gdlc::compile::rust_with_backend(&front, "chess.kif", Backend::Ground)
        .expect_err("chess does not ground within the limits");
    assert!(
        error
            .message
            .contains("the ground backend cannot compile this game"),
        "{}",
        error.message
    );
    let auto = gdlc::compile::rust_with_backend(&front, "chess.kif", Backend::Auto).expect("auto");
    assert!(
        auto.contains("rt::Compiled"),
        "chess falls back to the join backend"
    );
}

/// Marks (our own game): plainly grounded, two rules multiply by every move of the
/// mover and the code is too large; projected, `(does ?p (mark ?ax ?ay))` becomes one
/// auxiliary atom per role, the game compiles with the ground backend, its goals
/// (cell-by-cell counts) as a forward program whose instances watch the board's
/// fluents, the auxiliary atoms under one move in arms of a `match` on it, and the
/// projections of the counting rules (one binding per head) are undone. Both
/// groundings agree with the interpreter.
#[test]
fn projection_shrinks_rules_and_goals_become_a_program() {
    let (front, ir, plan) = own_game("marks.kif");
    let plain = ground(&ir, &plan, &LIMITS, false).expect("grounds plainly");
    let emitted = gdlc::emit::ground::lib_rs(&ir, &plain, "marks.kif", Budget::DEFAULT);
    assert!(
        emitted
            .as_ref()
            .is_err_and(|e| e.contains("for every state and joint move")),
        "too large plainly: {:?}",
        emitted.map(|_| ())
    );
    let projected = ground(&ir, &plan, &LIMITS, true).expect("grounds projected");
    assert!(
        projected.instances.len() * 5 < plain.instances.len() * 4,
        "{} instances projected, {} plain",
        projected.instances.len(),
        plain.instances.len()
    );
    let kept = (0..projected.aux_phases.len())
        .filter(|&k| {
            let atoms = projected.of(gdlc::ir::RelationId((ir.relations.len() + k) as u32));
            projected.instances.iter().any(|i| atoms.contains(&i.head))
        })
        .count();
    assert!(
        kept >= 1 && kept < projected.aux_phases.len(),
        "{kept} of {} projections kept",
        projected.aux_phases.len()
    );
    let grounded = gdlc::emit::ground::ground_and_emit(&ir, &plan, "marks.kif", Budget::DEFAULT)
        .expect("grounds");
    assert!(grounded.projected, "the projected grounding is used");
    let module = grounded.module.expect("emits");
    assert!(module.contains("static GOAL_PROGRAM"), "goals as a program");
    // Goals run as a program are remembered by state (`GroundRules::GOALS_REMEMBERED`).
    assert!(module.contains("const GOALS_REMEMBERED: bool = true;"));
    // A forward program: the cell-by-cell counts read the board's fluents, each
    // instance looked at only when the state holds the fluent it watches.
    let watch = module
        .split_once("fluent_watch: gdlc_runtime::program::Words(")
        .and_then(|(_, rest)| rest.trim_start().strip_prefix("b\""))
        .expect("a forward program");
    assert!(!watch.starts_with('"'), "instances watch fluents");
    // The projection's move-dependent atoms under one move are `match` arms on it:
    // only the played move's run.
    let lines: Vec<&str> = module.lines().map(str::trim).collect();
    assert!(
        lines
            .windows(2)
            .any(|pair| pair[0].ends_with("=> {") && pair[1].starts_with("m[")),
        "move-dependent atoms in arms of a match on the move"
    );
    for grounding in [&plain, &projected] {
        assert_agrees(&front, &ir, grounding, 5, 40);
    }
}

/// Heavy (our own game): projected, "a heavy piece is on the cell" becomes an
/// auxiliary relation over the cell whose 16 atoms read the state in one shape, so
/// the emitted code computes it as a word-parallel family, named in its comment (the
/// IR has no such relation: naming it once panicked). The projected grounding agrees
/// with the interpreter.
#[test]
fn a_projected_relation_can_be_a_word_parallel_family() {
    let (front, ir, plan) = own_game("heavy.kif");
    let projected = ground(&ir, &plan, &LIMITS, true).expect("grounds projected");
    let module =
        gdlc::emit::ground::lib_rs(&ir, &projected, "heavy.kif", Budget::DEFAULT).expect("emits");
    assert!(
        module
            .lines()
            .any(|l| l.contains("/// `projection") && l.contains("16 atoms, word-parallel")),
        "an auxiliary family"
    );
    // The backend that checks the projected path (`cargo xtask verify --backend
    // projected`) emits the same module, though the plain grounding fits.
    assert_eq!(
        gdlc::compile::rust_with_backend(&front, "heavy.kif", Backend::GroundProjected)
            .map(|code| code.contains("/// `projection 0`: 16 atoms, word-parallel.")),
        Ok(true)
    );
    let no_projection = from_text(
        "(role a) (init (p)) (<= (legal a x) (true (p))) (<= (next (p)) (does a x))\n\
         (<= terminal (not (true (p)))) (<= (goal a 100) (true (p)))",
    );
    let error = gdlc::compile::rust_with_backend(
        &gdlc::front_end(&no_projection),
        "t.kif",
        Backend::GroundProjected,
    )
    .expect_err("nothing to project");
    assert!(
        error.message.contains("cannot compile this game projected"),
        "{}",
        error.message
    );
    assert_agrees(&front, &ir, &projected, 10, 20);
}

/// Teleport (our own game): every move names a source and a target cell, so the `next`
/// instances under one move (the piece copied to the target) pass the straight-line
/// budget; as a keyed program per role, of which each joint move runs its own slice,
/// the game compiles with the ground backend; its legal moves are computed under nested
/// guards (the mover's control, then each source cell); "the mover captured", read by
/// the capture counters, is an early keyed program. The grounding agrees with the
/// interpreter (`cargo xtask verify` checks the emitted code: see xtask's tests).
#[test]
fn moves_with_thousands_of_instances_become_keyed_programs() {
    let file = common::read_source(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ground/teleport.kif"),
    );
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let size = gdlc::emit::ground::code_size(&ir, &grounding, Budget::DEFAULT).expect("emits");
    assert!(size.keyed_program, "keyed: {size:?}");
    assert!(
        size.state + size.moves > gdlc::emit::ground::MAX_EMITTED_LITERALS,
        "needs it: {size:?}"
    );
    let module = gdlc::emit::ground::lib_rs(&ir, &grounding, "teleport.kif", Budget::DEFAULT)
        .expect("emits");
    assert!(module.contains("static KEYED_0"), "a keyed program");
    assert!(module.contains("static KEYED_1"), "a keyed program");
    // "The mover captured", under each move, before the counters that read it.
    assert!(module.contains("static EARLY_0"), "an early keyed program");
    assert!(module.contains("static EARLY_1"), "an early keyed program");
    // Legal moves under nested guards: inside each role's control test, one test of
    // each of the 49 source cells around the moves from it.
    let nested = module
        .lines()
        .filter(|l| l.starts_with("        if ") && l.ends_with(" & 1 != 0 {"))
        .count();
    assert!(nested >= 98, "{nested} nested guards");
    assert_agrees(&front, &ir, &grounding, 10, 20);
}

/// Flips (our own game): a disc turns a row's line of opponent discs, found one square
/// further each step by a chain of move-dependent atoms of which only the first reads
/// the move. Each atom can hold only under the few moves on its row, so the chain runs
/// in the played move's arm, level by level (a `match` per chain step and role), not
/// for every square on every step: the chain's statements are inside arms.
#[test]
fn a_chain_of_atoms_under_few_moves_runs_in_their_arms() {
    let (front, ir, plan) = own_game("flips.kif");
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let module =
        gdlc::emit::ground::lib_rs(&ir, &grounding, "flips.kif", Budget::DEFAULT).expect("emits");
    let lines: Vec<&str> = module.lines().map(str::trim).collect();
    let matches = lines
        .iter()
        .filter(|l| l.starts_with("match joint["))
        .count();
    assert!(matches >= 8, "{matches} matches: a level of the chain each");
    // A chain step (an atom of `m` from another of `m`) right inside a move's arm.
    let in_arm = lines
        .windows(2)
        .filter(|w| w[0].ends_with("=> {") && w[1].starts_with("m[") && w[1].contains("& (m["))
        .count();
    assert!(in_arm >= 36, "{in_arm} chain steps in arms");
    assert_agrees(&front, &ir, &grounding, 20, 40);
}

/// Frames (our own game): chess-endgame frame rules, one instance per move and cell,
/// pass 400,000 instances while grounding (the limit before, which sent the game, the
/// corpus endgame and its obfuscated copies to the join backend at a twentieth of the
/// speed) and simplify to a few thousand literals per state: the game grounds within
/// the compiler's limits, and the grounding agrees with the interpreter.
#[test]
fn frame_rules_with_an_instance_per_move_and_cell_ground() {
    let file =
        common::read_source(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ground/frames.kif"));
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let old = gdlc::ground::Limits {
        instances: 400_000,
        literals: 1_500_000,
        ..LIMITS
    };
    assert!(
        ground(&ir, &plan, &old, false).is_err(),
        "past the old limits"
    );
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let size = gdlc::emit::ground::code_size(&ir, &grounding, Budget::DEFAULT).expect("emits");
    assert!(
        size.state < 10_000 && size.moves < 10_000,
        "small code: {size:?}"
    );
    let code = gdlc::compile::rust_with_backend(&front, "frames.kif", Backend::Auto).expect("auto");
    assert!(code.contains("A ground reasoner"), "the ground backend");
    assert_agrees(&front, &ir, &grounding, 5, 20);
}

/// The team's breakthrough: `occupied` and `empty` cells are word-parallel families
/// (placed where their fluents are: a few word operations for 64 atoms each), and
/// each role's legal moves are computed under the test of its control fluent. The
/// words a family owns are assigned whole, so `eval_state` does not clear them.
#[test]
fn families_and_guards_in_breakthrough() {
    let file = common::read_source(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/breakthrough.kif"),
    );
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let size = gdlc::emit::ground::code_size(&ir, &grounding, Budget::DEFAULT).expect("emits");
    // `(occupied ?x ?y)` from the two colours' cells (`empty`, its negation, is an
    // alias the grounding replaces).
    assert!(
        size.families >= 1 && size.family_atoms >= 64,
        "families: {size:?}"
    );
    assert!(size.guarded >= 200, "guarded legal moves: {size:?}");
    let explained = gdlc::explain::ground(&ir, &plan, "breakthrough.kif");
    assert!(
        explained.contains("word-parallel families: "),
        "{explained}"
    );
    // A word of `d` that `occupied` owns is assigned whole, and `eval_state` clears
    // only the other words: every state cleared all of `d` before (skirmish: 3,200
    // words for its 318 families).
    let module = gdlc::emit::ground::lib_rs(&ir, &grounding, "breakthrough.kif", Budget::DEFAULT)
        .expect("emits");
    assert!(!module.contains("*d = [0; D_WORDS]"), "d cleared whole");
    let owned: Vec<usize> = module
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("d[")?.split_once("] = (")?.0.parse().ok())
        .collect();
    assert!(!owned.is_empty(), "a family word assigned whole");
    let cleared: Vec<(usize, usize)> = module
        .lines()
        .map(str::trim)
        .filter_map(|l| {
            let range = l.strip_prefix("d[")?.strip_suffix("].fill(0);")?;
            let (lo, hi) = range.split_once("..")?;
            Some((lo.parse().ok()?, hi.parse().ok()?))
        })
        .collect();
    assert!(!cleared.is_empty(), "the other words cleared");
    for w in owned {
        assert!(
            cleared.iter().all(|&(lo, hi)| !(lo..hi).contains(&w)),
            "word {w} is assigned whole and cleared"
        );
    }
}

/// A fluent whose analysis domains multiply past a dense state (8 positions × 8
/// symbols: 8^8 possible values) compiles through grounding, which keeps the 8
/// rotations that can occur, and through the join backend, whose plan lists them.
#[test]
fn fluents_too_many_for_a_dense_state_compile_when_few_are_reachable() {
    let file = common::read_source(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ground/rotation.kif"),
    );
    let front = gdlc::front_end(&file);
    let join = gdlc::compile::rust_with_backend(&front, "perm.kif", Backend::Join)
        .unwrap_or_else(|d| panic!("{}", d.render(&file)));
    assert!(
        join.contains("FLUENT_KEYS_"),
        "the join backend lists the fluents"
    );
    let code = gdlc::compile::rust_with_backend(&front, "perm.kif", Backend::Auto)
        .unwrap_or_else(|d| panic!("{}", d.render(&file)));
    assert!(code.contains("A ground reasoner"));
    let (ir, grounding) = grounded(&file);
    let grounding = grounding.expect("grounds");
    let true_rel = ir.keyword(Keyword::True).expect("true");
    assert_eq!(
        grounding.of(true_rel).len(),
        8 + 11,
        "8 rotations, steps 0..=10"
    );
    let mut reference = gdlc::interp::Interpreter::new(&front).expect("interpreter");
    let mut candidate = GroundGame::new(&ir, &grounding);
    compare(&mut reference, &mut candidate, OPTIONS).expect("agrees");
}

/// Stuck (our own game): `canmove` repeats the conditions of `legal` without the
/// control test. Shared conjunctions make each move's conditions one auxiliary atom
/// that the legal move and `canmove` read; the shared grounding agrees with the
/// interpreter, and the ground backend emits it.
#[test]
fn conjunctions_repeated_by_two_rules_are_shared() {
    let (front, ir, plan) = own_game("stuck.kif");
    let plain = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let shared = gdlc::ground::share::share_conjunctions(&ir, &plain).expect("shares");
    assert_eq!(shared.shared_relations, 1, "one phase: the state's");
    let relation = gdlc::ir::RelationId((ir.relations.len() + shared.aux_phases.len() - 1) as u32);
    assert_eq!(shared.relation_name(&ir, relation), "shared conjunction 0");
    let atoms = shared.of(relation);
    let legal = ir.keyword(Keyword::Legal).expect("legal");
    let moves = plain
        .instances
        .iter()
        .filter(|i| plain.of(legal).contains(&i.head) && i.body.len() == 4)
        .count();
    // Moves into a cell that can hold a wall have three conditions, shared; the
    // others two (the wall never there), not worth an atom.
    assert_eq!(
        atoms.len(),
        moves,
        "one shared atom per move's three conditions"
    );
    let reading = shared
        .instances
        .iter()
        .filter(|i| shared.of(legal).contains(&i.head))
        .filter(|i| i.body.len() == 2 && i.body.iter().any(|l| atoms.contains(&l.atom())))
        .count();
    assert_eq!(
        reading, moves,
        "each such legal move reads its atom and the control"
    );
    assert_eq!(shared.atoms[..plain.atoms.len()], plain.atoms[..]);
    gdlc::emit::ground::lib_rs(&ir, &shared, "stuck.kif", Budget::DEFAULT).expect("emits");
    assert_agrees(&front, &ir, &plain, 20, 40);
    assert_agrees(&front, &ir, &shared, 20, 40);
}

#[test]
fn atoms_only_a_mover_reads_have_demand_guards() {
    let (front, ir, plan) = own_game("convert.kif");
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let size = gdlc::emit::ground::code_size(&ir, &grounding, Budget::DEFAULT).expect("emits");
    // `anymove` of each player: read only by its `pass`, under its control.
    assert!(
        size.demand_guarded >= 2,
        "anymove of both players under a demand guard: {size:?}"
    );
    let code =
        gdlc::emit::ground::lib_rs(&ir, &grounding, "convert.kif", Budget::DEFAULT).expect("emits");
    let eval_state = &code[code.find("fn eval_state").expect("eval_state")..];
    let eval_state = &eval_state[..eval_state.find("fn eval_goals").expect("eval_goals")];
    // Each control fluent guards its player's legal moves (they hold it) and, apart,
    // its `anymove` (a level below them).
    let guards =
        eval_state.matches("if (s[0] >> ").count() + eval_state.matches("if s[0] & ").count();
    assert!(
        guards >= 4,
        "the control fluents guard code in eval_state:\n{eval_state}"
    );
    assert_agrees(&front, &ir, &grounding, 30, 40);
}

#[test]
fn aliases_and_duplicates_are_replaced() {
    let (front, ir, plan) = own_game("lines.kif");
    let raw = gdlc::ground::ground_unsimplified(&ir, &plan, &LIMITS, false).expect("grounds");
    let simple = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    assert_eq!(simple.atoms, raw.atoms, "atoms keep their numbers");
    let run = relation(&ir, "run/4");
    let instances_of = |g: &Grounding, a: u32| -> Vec<Vec<Literal>> {
        g.instances
            .iter()
            .filter(|i| i.head == a)
            .map(|i| i.body.clone())
            .collect()
    };
    let runs: Vec<u32> = raw.of(run).collect();
    // A run of one cell is an alias of the cell: nothing computes it any more.
    let aliases: Vec<u32> = runs
        .iter()
        .copied()
        .filter(|&a| matches!(&instances_of(&raw, a)[..], [body] if body.len() == 1))
        .collect();
    assert!(!aliases.is_empty(), "runs of one cell");
    for &a in &aliases {
        assert!(instances_of(&simple, a).is_empty(), "alias {a} replaced");
    }
    // A run of two cells rightwards and the one leftwards over the same two cells
    // (where the row goes on past both ends): one of them is left.
    let longer: Vec<u32> = runs
        .iter()
        .copied()
        .filter(|a| !aliases.contains(a))
        .collect();
    let kept = longer
        .iter()
        .filter(|&&a| !instances_of(&simple, a).is_empty())
        .count();
    assert!(
        kept < longer.len(),
        "{kept} of {} longer runs kept",
        longer.len()
    );
    for (a, body) in raw.instances.iter().map(|i| (i.head, &i.body)) {
        for literal in body {
            if aliases.contains(&literal.atom()) {
                assert!(
                    simple
                        .instances
                        .iter()
                        .filter(|i| i.head == a)
                        .all(|i| !i.body.contains(literal)),
                    "no body reads the alias {literal:?}"
                );
            }
        }
    }
    assert!(simple.literal_count() < raw.literal_count());
    assert_agrees(&front, &ir, &raw, 30, 40);
    assert_agrees(&front, &ir, &simple, 30, 40);
}

#[test]
fn duplicates_of_different_phases_are_not_merged() {
    let (front, ir, plan) = own_game("phases.kif");
    let simple = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let lit = relation(&ir, "lit/1");
    // `(lit 1)` … `(lit 3)`, the atoms asked for, keep their instances: `(aahit ?x)`,
    // with the same bodies, depends on the move.
    let computed = simple
        .of(lit)
        .filter(|&a| simple.instances.iter().any(|i| i.head == a))
        .count();
    assert_eq!(computed, 3, "every `lit` atom asked for computed");
    assert_agrees(&front, &ir, &simple, 20, 10);
}

/// An instance whose body holds every literal of a shorter instance of the same head
/// is dropped: `(lit)` needs only the light.
#[test]
fn subsumed_instances_are_dropped() {
    let file = from_text(
        "(role a) (init (light)) (init (count 0))
         (<= lit (true (light)))
         (<= lit (true (light)) (true (count 1)))
         (<= (legal a flip) (true (count ?x)))
         (<= (legal a wait) lit)
         (<= (next (light)) (true (light)) (does a wait))
         (<= (next (light)) (not (true (light))) (does a flip))
         (<= (next (count ?y)) (true (count ?x)) (succ ?x ?y))
         (succ 0 1) (succ 1 2) (succ 2 3)
         (<= terminal (true (count 3)))
         (goal a 100)",
    );
    let (ir, grounding) = grounded(&file);
    let grounding = grounding.expect("grounds");
    let lit = relation(&ir, "lit/0");
    assert!(
        grounding
            .instances
            .iter()
            .all(|i| !grounding.of(lit).contains(&i.head)),
        "`lit` has one instance left, an alias of the light: replaced"
    );
    let front = gdlc::front_end(&file);
    assert_agrees(&front, &ir, &grounding, 10, 10);
}

/// Demand restriction: a relation asked for only with constants grounds to those
/// atoms, and a static relation too large for a compile-time table is grounded to
/// the tuples asked for (the game grounded and the plain evaluator agreeing with the
/// interpreter), where before the game went to the join backend.
#[test]
fn only_the_atoms_asked_for_are_grounded() {
    let (front, ir, plan) = own_game("asked.kif");
    let pair = relation(&ir, "pair/4");
    assert!(
        !matches!(
            plan.relations[pair.0 as usize].evaluation,
            gdlc::plan::Evaluation::Static(_)
        ),
        "pair/4 has no compile-time table"
    );
    let grounding =
        gdlc::ground::ground_unsimplified(&ir, &plan, &LIMITS, false).expect("the game grounds");
    let three = relation(&ir, "three/4");
    let atoms: Vec<String> = grounding
        .of(three)
        .map(|a| format!("{:?}", ir.decode(three, &grounding.atoms[a as usize].tuple)))
        .collect();
    assert_eq!(
        atoms.len(),
        2,
        "(three 1 2 3 x) and (three 1 2 3 o): {atoms:?}"
    );
    assert!(grounding.of(pair).is_empty(), "pair/4 stays static");
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("the game grounds");
    assert_agrees(&front, &ir, &grounding, 10, 40);
    let code =
        gdlc::compile::rust_with_backend(&front, "asked.kif", Backend::Auto).expect("compiles");
    assert!(code.contains("A ground reasoner"), "the ground backend");
}

/// A body reading two different moves of one role never holds (each role plays one
/// move), so it is dropped; the instances of move-dependent atoms under one move run
/// in `match` arms on that move, also when they test another role's move (early arms)
/// or read other move-dependent atoms (late arms, after those are computed).
#[test]
fn instances_under_one_move_run_in_match_arms() {
    let (front, ir, plan) = own_game("bump.kif");
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let clash = relation(&ir, "clash/0");
    let does = ir.keyword(Keyword::Does).expect("does");
    let instances: Vec<_> = grounding
        .instances
        .iter()
        .filter(|i| grounding.of(clash).contains(&i.head))
        .collect();
    assert_eq!(
        instances.len(),
        8,
        "red and blue on neighbouring cells, 4 × 2"
    );
    for instance in &instances {
        let roles: Vec<_> = instance
            .body
            .iter()
            .map(|l| &grounding.atoms[l.atom() as usize])
            .filter(|atom| atom.relation == does)
            .map(|atom| atom.tuple[0])
            .collect();
        assert_eq!(roles.len(), 2);
        assert_ne!(roles[0], roles[1], "two moves of two roles");
    }
    assert_agrees(&front, &ir, &grounding, 20, 20);
    let code =
        gdlc::compile::rust_with_backend(&front, "bump.kif", Backend::Ground).expect("compiles");
    let arms: Vec<&str> = code
        .split("match joint[")
        .skip(1)
        .map(|rest| rest.split("_ => {}").next().unwrap_or(rest))
        .collect();
    assert!(
        arms.iter()
            .any(|arms| arms.starts_with("1]") && arms.contains("joint[0] ==")),
        "an early arm of blue's move tests red's move:\n{code}"
    );
    assert!(
        arms.iter().any(|arms| arms.contains("m[0] |= (((m[0] >>")),
        "a late arm reads a move-dependent atom:\n{code}"
    );
}

/// Code past the default budget is ground when the join backend's measured work per
/// step is large against the code run for every state, and left to the join backend
/// when it is small. god's board of counters: 51,000 literals per state against the
/// join plan's 3,300 nodes per step, and the ground code ran 6× faster than the join
/// backend's.
#[test]
fn code_past_the_default_budget_is_ground_when_the_join_backend_works_more() {
    use gdlc::emit::ground::{
        LITERALS_PER_JOIN_NODE, MAX_MEASURED_LITERALS, ground_and_emit, ground_and_emit_auto,
    };
    let Some(file) = common::game_source("god.kif") else {
        return;
    };
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).expect("analyses");
    let plan = gdlc::planner::plan(&ir).expect("plans");
    let default = ground_and_emit(&ir, &plan, "god.kif", Budget::DEFAULT).expect("grounds");
    let why = default.module.expect_err("past the default budget");
    assert!(why.contains("literals, more than 30000"), "{why}");

    let (grounded, tuned) = ground_and_emit_auto(&ir, &plan, "god.kif", || {
        gdlc::planner::tuned(&ir).expect("tunes")
    });
    let grounded = grounded.expect("grounds");
    let work = tuned
        .and_then(|plan| plan.tuning)
        .and_then(|tuning| tuning.work_per_sample())
        .expect("the join plan was measured");
    assert!(grounded.module.is_ok(), "{:?}", grounded.module);
    assert_eq!(grounded.budget, Budget::measured(work));
    assert_eq!(grounded.budget.literals, MAX_MEASURED_LITERALS);
    // Weighed under the default budget first, the grounding gives the module the
    // measured budget alone gives it (its sizes are kept, not its layout).
    let direct = ground_and_emit(&ir, &plan, "god.kif", Budget::measured(work)).expect("grounds");
    assert_eq!(grounded.module, direct.module);

    // A join backend that worked 1/40 as much would not be beaten.
    let small = Budget::measured(work / 40);
    let grounded = ground_and_emit(&ir, &plan, "god.kif", small).expect("grounds");
    let why = grounded.module.expect_err("the state's code is too large");
    assert!(
        why.contains(&format!(
            "more than {LITERALS_PER_JOIN_NODE} per node of the join backend's {}",
            work / 40
        )),
        "{why}"
    );
    // The compiler makes the same choice: god's reasoner is the ground one.
    let code = gdlc::compile::rust_from_front_end(&front, "god.kif").expect("compiles");
    assert!(code.contains("rt::Ground::new()"), "the ground backend");
}

/// Skirmish grounds projected (the plain grounding passes the limits), and that
/// grounding is past the default budget: 34,000 literals per state. With shared
/// conjunctions its code reads 14,700 bits and words, and fits. A grounding is shared
/// unless it is past the budget by more than sharing shrinks code
/// (`MAX_SHARING_GAIN`): this one is within reach, and is shared.
#[test]
fn groundings_within_reach_of_sharing_are_shared() {
    let Some(file) = common::game_source("skirmish.kif") else {
        return;
    };
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).expect("analyses");
    let plan = gdlc::planner::plan(&ir).expect("plans");
    let projected = ground(&ir, &plan, &LIMITS, true).expect("grounds projected");
    let why = gdlc::emit::ground::lib_rs(&ir, &projected, "skirmish.kif", Budget::DEFAULT)
        .expect_err("past the budget unshared");
    assert!(why.contains("more than 30000"), "{why}");
    let grounded = gdlc::emit::ground::ground_and_emit(&ir, &plan, "skirmish.kif", Budget::DEFAULT)
        .expect("grounds");
    assert!(grounded.module.is_ok(), "{:?}", grounded.module);
    assert!(grounded.projected, "projected");
    assert!(grounded.grounding.shared_relations > 0, "shared");
}

/// Wide (our own game): noughts and crosses on 12 columns. The state's fluents are
/// laid out with integers by value (`(cell 10 1 o)` right after `(cell 9 3 x)`, every
/// cell two bits after the one before), so all the lines across lie at one distance
/// and each role's `line` is two word-parallel classes (across, down) — in text order
/// `10`–`12` came between `1` and `2` and the lines through them were three more
/// classes of their own. The ply counter's `next` heads are one shape relative to
/// their bits, so they are computed head-parallel.
#[test]
fn boards_past_nine_columns_keep_their_neighbours_at_one_distance() {
    let (front, ir, plan) = own_game("wide.kif");
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let module =
        gdlc::emit::ground::lib_rs(&ir, &grounding, "wide.kif", Budget::DEFAULT).expect("emits");
    let fluents = text_table(&module, "FLUENTS");
    let cells: Vec<&str> = fluents
        .iter()
        .copied()
        .filter(|f| f.starts_with("(cell "))
        .collect();
    // The coordinates (chain constants) innermost: one board per mark (the marks in
    // their structural order, whichever comes first).
    let first = if cells[0].ends_with(" o)") { "o" } else { "x" };
    let marks = if first == "o" { ["o", "x"] } else { ["x", "o"] };
    let expected: Vec<String> = marks
        .into_iter()
        .flat_map(|p| {
            (1..=12).flat_map(move |c| (1..=3).map(move |r| format!("(cell {c} {r} {p})")))
        })
        .collect();
    assert_eq!(
        cells, expected,
        "cells by mark, column and row, numbers by value"
    );
    // One `!= 0` per word-parallel class: `open` one, each role's `line` two.
    assert_eq!(module.matches("!= 0)").count(), 5, "{module}");
    // The ply counter's successor: the state shifted by one bit under a mask, one
    // statement for the 36 counts (a masked `n` word; each head alone ends `<< b`).
    let shifted_next = module
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("n[") && l.contains("|= (") && l.contains(") & 0x"))
        .count();
    assert!(shifted_next >= 1, "{module}");
    let single_next = module
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("n[") && l.contains(") & 1) << "))
        .count();
    assert!(single_next < 4, "{single_next} heads computed alone");
    assert_agrees(&front, &ir, &grounding, 10, 40);
}

/// The entries of one `const NAME: &'static [&'static str] = &[…];` table of an emitted
/// ground module.
fn text_table<'m>(module: &'m str, name: &str) -> Vec<&'m str> {
    module
        .split_once(&format!("const {name}: &'static [&'static str] = &["))
        .and_then(|(_, rest)| rest.split_once("];"))
        .unwrap_or_else(|| panic!("no table {name}"))
        .0
        .split(',')
        .map(|f| f.trim().trim_matches('"'))
        .filter(|f| !f.is_empty())
        .collect()
}

/// A role's moves are numbered in layout order like the fluents, whatever the
/// coordinates are called: in Wide, renamed with its numbers (the text order of the
/// new names is random), the marks still come column by column along the chain of
/// `succ` (and `ply-succ`, which continues it), as in the plain file (numbers by
/// value). In text order a renamed board's legal bits
/// were scattered over the role's range, and counting and picking the k-th legal move
/// cost renamed breakthrough 16 % more instructions per state.
#[test]
fn moves_are_numbered_along_the_chains_whatever_their_names() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ground/wide.kif");
    let plain = common::read_source(&path);
    for seed in [None, Some(3), Some(4), Some(5)] {
        let file = match seed {
            None => plain.clone(),
            Some(seed) => {
                let options = gdlc::scramble::Options {
                    keep_numbers: false,
                    ..gdlc::scramble::Options::all(seed)
                };
                let text = gdlc::scramble::scramble(&plain, &options).expect("scrambles");
                SourceFile::new(format!("wide {options:?}"), text)
            }
        };
        let (ir, grounding) = grounded(&file);
        let grounding = grounding.expect("grounds");
        let module = gdlc::emit::ground::lib_rs(&ir, &grounding, "wide.kif", Budget::DEFAULT)
            .expect("emits");
        // The columns are numbered along `succ`, which the plies' chain continues.
        let chain = ir
            .chains
            .iter()
            .max_by_key(|c| c.constants.len())
            .unwrap_or_else(|| panic!("{seed:?}: no chain"));
        let column_of = |name: &str| chain.constants.iter().position(|c| c == name);
        let moves = text_table(&module, "MOVES");
        let marks: Vec<usize> = moves
            .iter()
            .filter_map(|m| m.strip_prefix('(')?.split(' ').nth(1))
            .map(|c| column_of(c).unwrap_or_else(|| panic!("{c} is no column")))
            .collect();
        assert_eq!(marks.len(), 2 * 36, "{seed:?}: {moves:?}");
        for role in marks.chunks(36) {
            assert!(
                role.windows(2).all(|w| w[0] <= w[1]),
                "{seed:?}: moves not column by column: {moves:?}"
            );
        }
    }
}

/// Diagonals (our own game, eight queens): the rules for a threatened square read a
/// queen anywhere joined to the square by one variable, the diagonal's sum, and the
/// body is one component (the sum is not in the head). Projected, the part of each body
/// that reads the queen becomes an auxiliary relation over the sum alone — one atom per
/// diagonal — so the rules' instances fall from one per square and queen to one per
/// square; the grounding agrees with the interpreter.
#[test]
fn a_part_of_a_body_joined_by_one_variable_is_grounded_once_per_value() {
    let (front, ir, plan) = own_game("diagonals.kif");
    let plain = ground(&ir, &plan, &LIMITS, false).expect("grounds plainly");
    let projected = ground(&ir, &plan, &LIMITS, true).expect("grounds projected");
    let threatened = relation(&ir, "threatened/2");
    let instances_of = |g: &Grounding| {
        let atoms = g.of(threatened);
        g.instances
            .iter()
            .filter(|i| atoms.contains(&i.head))
            .count()
    };
    assert!(
        instances_of(&projected) * 3 < instances_of(&plain),
        "{} instances of threatened projected, {} plain",
        instances_of(&projected),
        instances_of(&plain)
    );
    // The two diagonal directions: 15 sums each (2..=16), one atom per diagonal.
    let per_diagonal = (0..projected.aux_phases.len())
        .filter(|&k| {
            projected
                .of(gdlc::ir::RelationId((ir.relations.len() + k) as u32))
                .len()
                == 15
        })
        .count();
    assert_eq!(
        per_diagonal, 2,
        "one auxiliary atom per diagonal, per direction"
    );
    assert_agrees(&front, &ir, &projected, 10, 12);
}

/// Tokens (our own game): "a token of mine can step from x" is a word-parallel family
/// per player, read only by that player's legal moves and by whether it can move, both
/// under its turn: the family is computed under the turn (its demand guard) and the
/// words it owns are cleared otherwise. The emitted code agrees with the interpreter
/// (`cargo xtask verify` runs it: xtask's representative games).
#[test]
fn a_family_only_the_player_in_control_reads_is_computed_under_its_turn() {
    let (front, ir, plan) = own_game("tokens.kif");
    let grounding = ground(&ir, &plan, &LIMITS, false).expect("grounds");
    let code =
        gdlc::emit::ground::lib_rs(&ir, &grounding, "tokens.kif", Budget::DEFAULT).expect("emits");
    let lines: Vec<&str> = code.lines().map(str::trim).collect();
    let guarded_families = lines
        .windows(3)
        .filter(|w| w[0].contains("`canstep/2`") && w[2].starts_with("if (s["))
        .count();
    assert_eq!(
        guarded_families, 2,
        "each player's family under its turn:\n{code}"
    );
    assert!(
        lines
            .windows(2)
            .any(|w| w[0] == "} else {" && w[1].ends_with("] = 0;")),
        "the words a skipped family owns are cleared"
    );
    assert_agrees(&front, &ir, &grounding, 30, 40);
}

/// Breakthrough (the team's file) with its board written `(cell ?x ?y ?player)` and
/// `(cell ?player ?x ?y)`: the coordinates (chain constants) are laid out innermost
/// in both, one board of 64 bits per player, and a role's legal moves are numbered by
/// direction, then square, so each direction's moves are a shift of the board — a few
/// word operations, not a statement per move. With the player innermost (the first
/// spelling, before) or moves numbered square by square, 148 moves were computed one
/// bit at a time.
#[test]
fn boards_are_laid_out_coordinates_last_and_moves_by_direction() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/breakthrough.kif");
    let plain = common::read_source(&path);
    let player_first = {
        let mut text = String::new();
        let mut rest = plain.text.as_str();
        while let Some(at) = rest.find("(cell ") {
            text.push_str(&rest[..at]);
            let end = at + rest[at..].find(')').expect("a closed cell");
            let args: Vec<&str> = rest[at + 6..end].split_whitespace().collect();
            text.push_str(&format!("(cell {} {} {})", args[2], args[0], args[1]));
            rest = &rest[end + 1..];
        }
        text.push_str(rest);
        SourceFile::new("breakthrough, player first".to_owned(), text)
    };
    let mut alone = Vec::new();
    for file in [&plain, &player_first] {
        let front = gdlc::front_end(file);
        assert!(front.is_valid(), "{}", file.name);
        let (ir, grounding) = grounded(file);
        let grounding = grounding.expect("grounds");
        let module = gdlc::emit::ground::lib_rs(&ir, &grounding, &file.name, Budget::DEFAULT)
            .expect("emits");
        let cells: Vec<&str> = text_table(&module, "FLUENTS")
            .into_iter()
            .filter(|f| f.starts_with("(cell "))
            .collect();
        assert_eq!(cells.len(), 128, "{}", file.name);
        let players: Vec<&str> = cells
            .iter()
            .map(|c| {
                if c.contains("white") {
                    "white"
                } else {
                    "black"
                }
            })
            .collect();
        assert!(
            players[..64].iter().all(|&p| p == players[0])
                && players[64..].iter().all(|&p| p != players[0]),
            "{}: one board per player: {cells:?}",
            file.name
        );
        alone.push(module.matches("& 1) << ").count());
        assert_agrees(&front, &ir, &grounding, 5, 60);
    }
    assert!(alone[0] < 20, "{} atoms computed alone", alone[0]);
    assert_eq!(alone[1], alone[0], "both spellings alike");
}

/// A role's legal moves lie in `d` with the holes of what they read, and a board that
/// fits a word does not straddle two, whatever the spelling: tictactoe's marks (a
/// blank square every third bit of the state, beside its two marks) are one masked
/// word per player, not nine bits computed one by one; connect four's two boards of
/// 42 cells each start a word, so no line test or legal move reads two words of the
/// state or of `d` ORed together (before: 26 such reads, the black board across the
/// first word's end).
#[test]
fn legal_moves_mirror_what_they_read_and_boards_keep_to_words() {
    for (game, max_alone) in [("tictactoe", 15), ("connectfour", 100)] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../games/{game}.kif"));
        let plain = common::read_source(&path);
        for file in with_spellings(&plain, game, &[3, 4]) {
            let (ir, grounding) = grounded(&file);
            let grounding = grounding.expect("grounds");
            let module = gdlc::emit::ground::lib_rs(&ir, &grounding, &file.name, Budget::DEFAULT)
                .expect("emits");
            let alone = module.matches("& 1) << ").count();
            assert!(
                alone <= max_alone,
                "{}: {alone} atoms computed alone",
                file.name
            );
            // A word read across two: `(x[w] >> r) | (x[w + 1] << 64 - r)`.
            let straddling = ["| (s[", "| (d["]
                .iter()
                .flat_map(|start| module.match_indices(start))
                .filter(|&(at, start)| {
                    let rest =
                        module[at + start.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
                    rest.starts_with("] << ")
                })
                .count();
            assert_eq!(straddling, 0, "{}: reads across two words", file.name);
            let legal = module
                .split_once("const LEGAL_WORDS: &'static [&'static [(u32, u64)]] = &[")
                .and_then(|(_, rest)| rest.split_once("];"))
                .expect("LEGAL_WORDS")
                .0;
            assert_eq!(legal.matches("&[(").count(), 2, "{}: {legal}", file.name);
            assert_eq!(
                legal.matches("), (").count(),
                0,
                "{}: one word per role: {legal}",
                file.name
            );
            let front = gdlc::front_end(&file);
            assert_agrees(&front, &ir, &grounding, 5, 60);
        }
    }
}

/// The `next` atoms one played move sets with one shape relative to their own bit are
/// one masked word: in the corpus' connect four (8×6), a drop's disc lands on the open
/// cell above a filled one, five cells of its column in one statement and the bottom
/// cell alone, whatever the spelling (before: every cell alone, 96 statements in the
/// two players' arms; now 16 for the bottom cells).
#[test]
fn a_moves_next_atoms_of_one_shape_are_one_word() {
    let Some(plain) = common::game_source("connectfour.kif") else {
        return;
    };
    for file in with_spellings(&plain, "connectfour", &[5, 6]) {
        let (ir, grounding) = grounded(&file);
        let grounding = grounding.expect("grounds");
        let module = gdlc::emit::ground::lib_rs(&ir, &grounding, &file.name, Budget::DEFAULT)
            .expect("emits");
        let moves = module.split_once("fn eval_moves(").expect("eval_moves").1;
        let alone = moves
            .lines()
            .filter(|line| line.trim_start().starts_with("n[") && line.contains("& 1) << "))
            .count();
        // The two control bits, and each player's eight bottom cells.
        assert!(
            alone <= 2 + 16,
            "{}: {alone} next atoms set alone",
            file.name
        );
        let front = gdlc::front_end(&file);
        assert_agrees(&front, &ir, &grounding, 5, 60);
    }
}

/// `plain` and its spellings renamed (numbers too) and reordered by `gdlc scramble`,
/// one per seed, named after `game` and the options.
fn with_spellings(plain: &SourceFile, game: &str, seeds: &[u64]) -> Vec<SourceFile> {
    let scrambled = seeds.iter().map(|&seed| {
        let options = gdlc::scramble::Options::all(seed);
        let text = gdlc::scramble::scramble(plain, &options).expect("scrambles");
        SourceFile::new(format!("{game} {options:?}"), text)
    });
    std::iter::once(plain.clone()).chain(scrambled).collect()
}

/// The code of `eval_state` and the functions it calls (`state_0` …) in a generated
/// ground module.
fn state_code(module: &str) -> String {
    let mut state: String = module
        .split("\nfn ")
        .filter(|f| f.starts_with("state_"))
        .collect();
    let start = module.find("fn eval_state(").expect("eval_state");
    let end = module.find("fn eval_goals(").expect("eval_goals");
    state.push_str(&module[start..end]);
    state
}

/// The code of `eval_goals` and the functions it calls (`goals_0` …).
fn goal_code(module: &str) -> String {
    let mut goals: String = module
        .split("\nfn ")
        .filter(|f| f.starts_with("goals_"))
        .collect();
    let start = module.find("fn eval_goals(").expect("eval_goals");
    let end = module.find("fn eval_moves(").expect("eval_moves");
    goals.push_str(&module[start..end]);
    goals
}

/// Atoms computed one by one (`(expression & 1) << bit`) in `eval_state` and the
/// functions it calls.
fn atoms_computed_alone(module: &str) -> usize {
    let text: String = state_code(module)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    text.split("&1)")
        .skip(1)
        .filter(|rest| rest.trim_start_matches(')').starts_with("<<"))
        .count()
}

/// A relation traced square by square along a line (a run of the other colour that
/// ends in one's own) is one word per direction computed in rounds, and the squares
/// a player can place on — edge squares lacking a direction — one family with a mask
/// per shape, whatever the spelling. In our own `rays.kif`, `eval_state` computes 11
/// atoms alone (squares whose only line is a single square of a corner, and what
/// reads them; the code before: 331, every square's runs and placements); in the
/// corpus' reversi, six (before: 297).
#[test]
fn lines_traced_square_by_square_are_words_in_rounds() {
    let own =
        common::read_source(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ground/rays.kif"));
    let mut games = vec![(own, "rays", 12)];
    if let Some(reversi) = common::game_source("reversi.kif") {
        games.push((reversi, "reversi", 8));
    }
    for (plain, name, most) in games {
        for file in with_spellings(&plain, name, &[3, 4]) {
            let (ir, grounding) = grounded(&file);
            let grounding = grounding.expect("grounds");
            let module = gdlc::emit::ground::lib_rs(&ir, &grounding, &file.name, Budget::DEFAULT)
                .expect("emits");
            let alone = atoms_computed_alone(&module);
            assert!(alone <= most, "{}: {alone} atoms computed alone", file.name);
            let in_rounds = module.matches(" rounds.").count();
            assert!(
                in_rounds >= 4,
                "{}: {in_rounds} families in rounds",
                file.name
            );
            let front = gdlc::front_end(&file);
            assert_agrees(&front, &ir, &grounding, 5, 60);
        }
    }
}

/// Words of `d` zeroed in `code` (`d[a..b].fill(0)` and `d[a] = 0;`).
fn words_zeroed(code: &str) -> usize {
    let text: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let ranges: usize = text
        .split("d[")
        .filter_map(|rest| rest.split_once("].fill(0)").map(|(range, _)| range))
        .filter_map(|range| range.split_once(".."))
        .filter_map(|(lo, hi)| Some(hi.parse::<usize>().ok()? - lo.parse::<usize>().ok()?))
        .sum();
    let single = text
        .split("d[")
        .filter(|rest| {
            rest.split_once("]=0;")
                .is_some_and(|(w, _)| w.parse::<usize>().is_ok())
        })
        .count();
    ranges + single
}

/// The words of `d` that only goals need are zeroed by `eval_goals`, which runs once
/// a playout, not by `eval_state`, which runs every step: in the corpus' reversi, whose
/// goals count every colour's discs square by square, `eval_state` zeroes at most 8
/// words (the code before: 71 every state) and `eval_goals` the rest, plain and
/// scrambled. (`cargo xtask verify` checks the generated goals on every state.)
#[test]
fn words_only_goals_need_are_zeroed_by_the_goals() {
    let Some(plain) = common::game_source("reversi.kif") else {
        return;
    };
    for file in with_spellings(&plain, "reversi", &[7]) {
        let (ir, grounding) = grounded(&file);
        let grounding = grounding.expect("grounds");
        let module = gdlc::emit::ground::lib_rs(&ir, &grounding, &file.name, Budget::DEFAULT)
            .expect("emits");
        let in_state = words_zeroed(&state_code(&module));
        let in_goals = words_zeroed(&goal_code(&module));
        assert!(
            in_state <= 8 && in_goals >= 40,
            "{}: eval_state zeroes {in_state} words, eval_goals {in_goals}",
            file.name
        );
    }
}

/// Code is weighed as emitted, word-parallel families and guards counted, not only by
/// its literals: skirmish's projected grounding holds more than 30,000 literals per
/// state and joint move but reads about 9,600 bits and words a step, under
/// `READS_PER_JOIN_NODE` per node of the join backend's work, so the compiler takes it
/// (2× the playouts/s of the same grounding with shared conjunctions, taken as written). Hallway's
/// goals are straight lines as emitted, where as written they were a program (3× slower).
/// Hex's projected code also fits as emitted, but reads 77 times the join backend's
/// work a step: it stays with the join backend. Each in two spellings.
#[test]
fn code_that_fits_only_as_emitted_is_ground_where_it_reads_less_than_the_join_backend_works() {
    use gdlc::emit::ground::{READS_PER_JOIN_NODE, code_size, ground_and_emit_auto, lib_rs};
    for (game, ground_expected) in [
        ("skirmish.kif", true),
        ("hallway.kif", true),
        ("hex.kif", false),
    ] {
        let Some(plain) = common::game_source(game) else {
            return;
        };
        for file in with_spellings(&plain, game, &[1]) {
            let front = gdlc::front_end(&file);
            let ir = analyze(&front).expect("analyses");
            let plan = gdlc::planner::plan(&ir).expect("plans");
            let (grounded, tuned) = ground_and_emit_auto(&ir, &plan, &file.name, || {
                gdlc::planner::tuned(&ir).expect("tunes")
            });
            let grounded = grounded.expect("grounds");
            if !ground_expected {
                let why = grounded.module.expect_err("the join backend");
                assert!(why.contains("more than"), "{}: {why}", file.name);
                continue;
            }
            assert!(
                grounded.module.is_ok(),
                "{}: {:?}",
                file.name,
                grounded.module
            );
            let size = code_size(&ir, &grounded.grounding, grounded.budget).expect("fits");
            assert!(!size.goals_program, "{}: goals straight-line", file.name);
            if game == "skirmish.kif" {
                assert!(
                    grounded.grounding.shared_relations == 0,
                    "{}: no shared conjunctions",
                    file.name
                );
                let why = lib_rs(&ir, &grounded.grounding, &file.name, Budget::DEFAULT)
                    .expect_err("past the default budget as written");
                assert!(why.contains("more than 30000"), "{}: {why}", file.name);
                let work = tuned
                    .and_then(|plan| plan.tuning)
                    .and_then(|tuning| tuning.work_per_sample())
                    .expect("the join plan was measured");
                assert_eq!(grounded.budget.join_work, Some(work));
                assert!(
                    size.state_reads <= READS_PER_JOIN_NODE * work,
                    "{}: {} reads a state against the join backend's {work} nodes a step",
                    file.name,
                    size.state_reads
                );
            }
        }
    }
}

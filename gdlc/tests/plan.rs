//! The plan executor against the reference interpreter on every valid corpus game, the
//! test cases and the team's games: perft from the initial state and, along seeded
//! random playouts, the legal-move sets, terminal flags, goals, percepts and next
//! states must be identical.

mod common;

use std::path::Path;

use gdlc::analysis::analyze;
use gdlc::exec::Executor;
use gdlc::interp::Interpreter;
use gdlc_runtime::{CompareOptions, compare};

/// Valid games the analysis cannot bound (see `analysis.rs`).
const UNBOUNDED: &[&str] = &[];

/// Compares the executor of one game with the interpreter; `None` if the game is not
/// valid or not analysable.
fn agree(path: &Path, options: CompareOptions) -> Option<Result<gdlc_runtime::Agreement, String>> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    let file = common::read_source(path);
    let front = gdlc::front_end(&file);
    if !front.is_valid() || UNBOUNDED.contains(&name.as_str()) {
        return None;
    }
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{name}: {}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{name}: {}", d.render(&file)));
    let mut reference = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
    let mut executor = Executor::new(&ir, &plan);
    let agreement = compare(&mut reference, &mut executor, options);
    // The plan the backends compile: measured planning may have materialised layers.
    let tuned = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{name}: {}", d.render(&file)));
    if agreement.is_err() || tuned == plan {
        return Some(agreement);
    }
    let mut reference = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
    let mut executor = Executor::new(&ir, &tuned);
    Some(compare(&mut reference, &mut executor, options).map_err(|e| format!("tuned plan: {e}")))
}

fn check_dir(dir: &Path, options: CompareOptions) -> usize {
    let mut failures = Vec::new();
    let mut agreed = 0;
    let only = std::env::var("GDLC_ONLY").ok();
    for path in common::kif_files(dir) {
        if only
            .as_ref()
            .is_some_and(|o| !path.to_string_lossy().contains(o.as_str()))
        {
            continue;
        }
        let started = std::time::Instant::now();
        let result = agree(&path, options);
        eprintln!(
            "{:>8.2}s {}",
            started.elapsed().as_secs_f64(),
            path.display()
        );
        match result {
            None => {}
            Some(Ok(_)) => agreed += 1,
            Some(Err(difference)) => failures.push(format!("{}: {difference}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{agreed} games agree in {}", dir.display());
    agreed
}

#[test]
fn executor_agrees_on_the_corpus() {
    let Some(dir) = common::games_dir() else {
        return;
    };
    let options = CompareOptions {
        perft_depth: 1,
        playouts: 2,
        max_steps: 40,
        seed: 1,
    };
    let agreed = check_dir(&dir, options);
    assert!(agreed >= 140, "only {agreed} corpus games compared");
    let tests = check_dir(&dir.join("test"), options);
    assert!(tests >= 17, "only {tests} test cases compared");
}

#[test]
fn executor_agrees_on_the_explain_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/explain");
    let options = CompareOptions {
        perft_depth: 3,
        playouts: 5,
        max_steps: 50,
        seed: 3,
    };
    assert!(check_dir(&dir, options) >= 4);
}

#[test]
fn executor_agrees_on_the_team_games() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
    let options = CompareOptions {
        perft_depth: 2,
        playouts: 3,
        max_steps: 200,
        seed: 7,
    };
    assert!(check_dir(&dir, options) >= 4);
}

/// A count by recursion (othello's `piececount`): the recursive call must come before
/// the successor table that the count's column would otherwise be enumerated from,
/// so the relation is called in one mode (the position bound), not with every count
/// bound as well, which makes a memo table per count at every level of the recursion.
#[test]
fn recursive_counts_are_not_enumerated_from_a_static_table() {
    let mut text = String::from(
        "(role p) (init (cell 1 x)) (init (cell 3 x))
         (<= (legal p (mark ?i)) (index ?i) (not (true (cell ?i x))))
         (<= (next (cell ?i x)) (true (cell ?i x)))
         (<= (next (cell ?i x)) (does p (mark ?i)))
         (<= terminal (true (cell 2 x)))
         (<= (goal p 100) (cnt 1 ?n) (distinct ?n 2))
         (<= (goal p 0) (cnt 1 ?n) (distinct ?n 3))
         (<= (cnt ?i ?n++) (index++ ?i ?j) (true (cell ?i x)) (cnt ?j ?n) (++ ?n ?n++))
         (<= (cnt ?i ?n) (index++ ?i ?j) (not (true (cell ?i x))) (cnt ?j ?n))
         (<= (cnt 8 1) (true (cell 8 x)))
         (<= (cnt 8 0) (not (true (cell 8 x))))\n",
    );
    for i in 1..=8 {
        text.push_str(&format!("(index {i})\n"));
        if i < 8 {
            text.push_str(&format!("(index++ {i} {})\n", i + 1));
        }
    }
    for n in 0..600 {
        text.push_str(&format!("(++ {n} {})\n", n + 1));
    }
    let file = gdlc::SourceFile::new("count.kif", text);
    let front = gdlc::front_end(&file);
    assert!(front.is_valid());
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let cnt = (0..ir.relations.len())
        .find(|&r| ir.relations[r].key() == "cnt/2")
        .expect("cnt/2");
    let gdlc::plan::Evaluation::Demand(modes) = &plan.relations[cnt].evaluation else {
        panic!(
            "cnt/2 is not on demand: {:?}",
            plan.relations[cnt].evaluation
        );
    };
    let bound: Vec<_> = modes.iter().map(|m| m.bound.clone()).collect();
    assert_eq!(bound.len(), 1, "modes of cnt/2: {bound:?}");
    // And the executor agrees with the interpreter on it.
    let mut reference = Interpreter::new(&front).expect("valid");
    let mut executor = Executor::new(&ir, &plan);
    let options = CompareOptions {
        perft_depth: 2,
        playouts: 3,
        max_steps: 10,
        seed: 1,
    };
    compare(&mut reference, &mut executor, options).expect("agree");
}

/// A static relation whose domain product is large but whose real extension is small
/// (quad's `square`: 7⁸ possible tuples, 1,210 real ones) is computed at compile time,
/// not on demand with a memo table per key tested; one whose extension is large stays
/// on demand.
#[test]
fn small_static_extensions_are_computed_at_compile_time() {
    let mut text = String::from(
        "(role p) (init (at n0))
         (<= (next (at ?b)) (does p (go ?b)))
         (<= (diag ?a ?b ?c ?d ?e) (num ?a) (same ?a ?b) (same ?b ?c) (same ?c ?d) (same ?d ?e))
         (<= (big ?a ?b ?c ?d ?e) (num ?a) (num ?b) (num ?c) (num ?d) (num ?e))
         (<= (legal p (go ?b)) (true (at ?a)) (num ?b) (diag ?a ?b ?a ?b ?a))
         (<= (legal p (go ?b)) (true (at ?a)) (num ?b) (big ?b ?a ?b ?b ?a))
         (<= terminal (true (at n1))) (goal p 0)\n",
    );
    for i in 0..20 {
        text.push_str(&format!("(num n{i}) (same n{i} n{i})\n"));
    }
    let file = gdlc::SourceFile::new("diag.kif", text);
    let front = gdlc::front_end(&file);
    assert!(front.is_valid());
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let evaluation = |key: &str| {
        let r = (0..ir.relations.len())
            .find(|&r| ir.relations[r].key() == key)
            .expect("relation");
        &plan.relations[r].evaluation
    };
    assert!(
        matches!(evaluation("diag/5"), gdlc::plan::Evaluation::Static(t) if t.len() == 20),
        "diag/5: {:?}",
        evaluation("diag/5")
    );
    assert!(matches!(
        evaluation("big/5"),
        gdlc::plan::Evaluation::Demand(_)
    ));
    let mut reference = Interpreter::new(&front).expect("valid");
    let mut executor = Executor::new(&ir, &plan);
    let options = CompareOptions {
        perft_depth: 2,
        playouts: 3,
        max_steps: 10,
        seed: 1,
    };
    compare(&mut reference, &mut executor, options).expect("agree");
}

/// A fluent whose analysis domains multiply far past what can occur (7 tiles in 7
/// positions: 8^7 numbers after analysis, 7! orders) is listed: the plan keeps the
/// fluents of the relaxed game, `explain` says so, and the join backend numbers the
/// state by them (checked against the interpreter by `cargo xtask verify` in
/// `xtask/tests/commands.rs`).
#[test]
fn fluents_too_many_for_a_dense_state_are_listed() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plan/sorting.kif");
    let file = common::read_source(&path);
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let [layout] = plan.fluents.as_slice() else {
        panic!("one large functor: {:?}", plan.fluents);
    };
    assert_eq!(ir.symbols.symbol(layout.functor).name, "order");
    assert_eq!(layout.listed.as_ref().map(Vec::len), Some(5040));
    assert!(layout.dense > gdlc::emit::rust::MAX_STATE_BITS);
    let text = gdlc::explain::plan(&ir, &plan);
    assert!(
        text.contains("fluents (order …): listed: 5040 can occur"),
        "{text}"
    );
    let code =
        gdlc::compile::rust_with_backend(&front, "sorting.kif", gdlc::compile::Backend::Auto)
            .unwrap_or_else(|d| panic!("{}", d.render(&file)));
    assert!(code.contains("FLUENT_KEYS_"), "the join backend lists them");
    let options = CompareOptions {
        perft_depth: 3,
        playouts: 5,
        max_steps: 40,
        seed: 5,
    };
    assert!(agree(&path, options).expect("valid").is_ok());
}

/// Measured planning (`planner::tune`): our capture game's `flanks` is large enough for
/// the threshold plan to put it on demand; materialising it is tried on sample states
/// and kept only if cheaper (the join orders charge each demand call its work, so the
/// threshold plan asks for `flanks` only where a move needs it, and it stays on
/// demand), and the tuned plan agrees with the interpreter. othello-comp2007's (corpus)
/// open and closed piece strings, called fully bound for every open square and enemy
/// stone, are cheaper materialised — both, in the plain file and renamed (the passes
/// repeat, so the layers' numbering does not decide which pays). Amazons' arrow lines
/// (`queenmoveignoring`), called from the few squares a queen can reach, stay on
/// demand, and so do its queen lines (`queenmove`, asked from the four queens): each
/// tuple of a layer materialised over every pair of squares is stored, which the
/// executor's work counts (`MATERIALISED_TUPLE_WORK`).
#[test]
fn measured_planning_materialises_layers_demand_makes_dear() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plan/flips.kif");
    let file = common::read_source(&path);
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let threshold = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let flanks = (0..ir.relations.len())
        .find(|&r| ir.relations[r].key() == "flanks/5")
        .expect("flanks/5");
    assert!(matches!(
        threshold.relations[flanks].evaluation,
        gdlc::plan::Evaluation::Demand(_)
    ));
    let tuned = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let tuning = tuned.tuning.as_ref().expect("tuning ran");
    assert!(
        tuning
            .trials
            .iter()
            .any(|t| !t.on_demand && t.layer == ir.layer_of[flanks]),
        "flanks is tried materialised: {tuning:?}"
    );
    assert!(tuning.best_work <= tuning.threshold_work, "{tuning:?}");
    assert_eq!(
        gdlc::planner::tuned(&ir).ok().as_ref(),
        Some(&tuned),
        "the same game gives the same plan"
    );
    let text = gdlc::explain::plan(&ir, &tuned);
    assert!(text.contains("measured planning: "), "{text}");
    let options = CompareOptions {
        perft_depth: 3,
        playouts: 5,
        max_steps: 200,
        seed: 11,
    };
    let mut reference = Interpreter::new(&front).expect("valid");
    let mut executor = Executor::new(&ir, &tuned);
    compare(&mut reference, &mut executor, options).expect("agree");

    if let Some(file) = common::game_source("othello-comp2007.kif") {
        let renamed =
            gdlc::scramble::scramble(&file, &gdlc::scramble::Options::all(5)).expect("scrambles");
        for file in [file, gdlc::SourceFile::new("othello renamed", renamed)] {
            let front = gdlc::front_end(&file);
            let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
            let tuned = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
            let tuning = tuned.tuning.as_ref().expect("tuning ran");
            let kept: Vec<_> = tuning
                .trials
                .iter()
                .filter(|t| !t.on_demand && t.kept())
                .collect();
            // Two layers (`openpiecestring`, `closedpiecestring`) at least; which
            // others follow depends on the join orders measured planning starts from.
            assert!(kept.len() >= 2, "{}: {tuning:?}", file.name);
            for trial in kept {
                let work = trial.work.expect("kept") as f64;
                assert!(
                    work <= trial.before as f64 * gdlc::planner::GAIN,
                    "{tuning:?}"
                );
            }
            let text = gdlc::explain::plan(&ir, &tuned);
            assert!(
                text.contains("cheaper than on demand on sample states"),
                "{text}"
            );
        }
    }

    let Some(file) = common::game_source("amazons.kif") else {
        return;
    };
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let threshold = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let tuned = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let tuning = tuned.tuning.as_ref().expect("amazons has demand layers");
    assert!(tuning.trials.iter().any(|t| !t.kept()), "{tuning:?}");
    let ignoring = (0..ir.relations.len())
        .find(|&r| ir.relations[r].key() == "queenmoveignoring/6")
        .expect("queenmoveignoring/6");
    assert!(matches!(
        threshold.relations[ignoring].evaluation,
        gdlc::plan::Evaluation::Demand(_)
    ));
    assert!(
        matches!(
            tuned.relations[ignoring].evaluation,
            gdlc::plan::Evaluation::Demand(_)
        ),
        "{tuning:?}"
    );
    let queen_lines = (0..ir.relations.len())
        .find(|&r| ir.relations[r].key() == "queenmove/4")
        .expect("queenmove/4");
    assert!(
        matches!(
            tuned.relations[queen_lines].evaluation,
            gdlc::plan::Evaluation::Demand(_)
        ),
        "{tuning:?}"
    );
}

/// Join orders come from the sizes relations have on sample states: in team chess the
/// king's square (`king-at`, 64 possible tuples, one in every state) is read before
/// the 420 rows of the static `adj` in the rule for the king's moves, where the
/// product of its column domains put it last; the executor's work on the samples drops,
/// and the plan still agrees with the interpreter.
#[test]
fn join_orders_use_the_sizes_of_relations_on_sample_states() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/chess.kif");
    let file = common::read_source(&path);
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let threshold = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let tuned = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let tuning = tuned.tuning.as_ref().expect("tuning ran");
    let sized = tuning.sized_work.expect("the sized plan is kept");
    assert!(sized < tuning.threshold_work, "{tuning:?}");
    let king_at = (0..ir.relations.len())
        .find(|&r| ir.relations[r].key() == "king-at/1")
        .expect("king-at/1");
    let mover_move = (0..ir.relations.len())
        .find(|&r| ir.relations[r].key() == "mover-move/1")
        .expect("mover-move/1");
    let adj = (0..ir.relations.len())
        .find(|&r| ir.relations[r].key() == "adj/3")
        .expect("adj/3");
    // Whether the rule for the king's moves (the one reading `king-at`) queries
    // `king-at` before `adj`.
    let king_before_adj = |plan: &gdlc::plan::Plan| {
        let tree = plan.layers[ir.layer_of[mover_move]]
            .tree
            .as_ref()
            .expect("tree");
        let gdlc::plan::Node::Sequence(rules) = tree else {
            panic!("a sequence of rules: {tree:?}");
        };
        rules
            .iter()
            .find_map(|rule| {
                let mut queries = Vec::new();
                rule.for_each_query(&mut |q| queries.push(q.relation.0 as usize));
                let king = queries.iter().position(|&r| r == king_at)?;
                let adj = queries.iter().position(|&r| r == adj)?;
                Some(king < adj)
            })
            .expect("a rule reads king-at and adj")
    };
    assert!(!king_before_adj(&threshold));
    assert!(king_before_adj(&tuned));
    let text = gdlc::explain::plan(&ir, &tuned);
    assert!(
        text.contains("join orders from the relations' sizes on the samples: "),
        "{text}"
    );
    let options = CompareOptions {
        perft_depth: 2,
        playouts: 3,
        max_steps: 60,
        seed: 5,
    };
    let mut reference = Interpreter::new(&front).expect("valid");
    let mut executor = Executor::new(&ir, &tuned);
    compare(&mut reference, &mut executor, options).expect("agree");
}

/// The state's density comes from the states of the sampling playout, not the initial
/// state with a floor of one in ten: in team chess (32 pieces in 768 possible `cell`
/// fluents, 4 %) the tuned plan has a pawn's step scan the mover's pawns before the 56
/// squares with a neighbour in the pawn's direction. The density decides it: with the
/// counts of a full board instead, the same planner reads `adj` first.
#[test]
fn state_scans_use_the_density_of_sample_states() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/chess.kif");
    let file = common::read_source(&path);
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let tuned = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let cell = ir.symbols.get("cell", 3).expect("chess has cell/3");
    let with_cells = |count: f64| {
        let options = gdlc::planner::PlanOptions {
            state_counts: vec![(cell, count)],
            ..gdlc::planner::PlanOptions::default()
        };
        gdlc::planner::plan_with(&ir, &options).unwrap_or_else(|d| panic!("{}", d.render(&file)))
    };
    // The queries of the rule for a pawn's single step, in order.
    let pawn_step = |plan: &gdlc::plan::Plan| {
        let text = gdlc::explain::plan(&ir, plan);
        // The rule of `reach` with a pawn's single step (the double one reads
        // `pawn-home`).
        let start = text
            .match_indices("  rule ")
            .map(|(at, _)| at)
            .find(|&at| {
                let line = text[at..].lines().next().unwrap_or("");
                line.contains("(<= (reach ?s ?t)")
                    && line.contains("(pawn-forward ?c ?dir)")
                    && line.contains("(adj ?s ?dir ?t)")
                    && !line.contains("pawn-home")
            })
            .expect("the pawn step rule");
        let rule = &text[start..];
        let end = rule[1..].find("  rule ").map_or(rule.len(), |e| e + 1);
        let rule = &rule[..end];
        let cell = rule.find("query (true cell/3").expect("reads the pawns");
        let adj = rule.find("query (adj").expect("reads adj");
        (cell < adj, rule.to_owned())
    };
    let (cell_first, rule) = pawn_step(&tuned);
    assert!(cell_first, "{rule}");
    let (cell_first, rule) = pawn_step(&with_cells(32.0));
    assert!(cell_first, "{rule}");
    let (cell_first, rule) = pawn_step(&with_cells(768.0));
    assert!(!cell_first, "{rule}");
}

/// Measured planning tries materialised layers on demand: in `ladder.kif` the legal
/// move asks for one tuple of `reach1`, and the threshold plan materialises the small
/// `reachK`, each asking the large ones on demand. Each of them is tried on demand,
/// the tuned plan costs no more than the threshold plan on the samples, and it agrees
/// with the interpreter.
#[test]
fn materialised_layers_are_tried_on_demand() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plan/ladder.kif");
    let file = common::read_source(&path);
    let front = gdlc::front_end(&file);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let threshold = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let tuned = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let reach12 = (0..ir.relations.len())
        .find(|&r| ir.relations[r].key() == "reach12/12")
        .expect("reach12/12");
    let layer = ir.layer_of[reach12];
    assert_eq!(
        threshold.layers[layer].evaluation,
        gdlc::plan::LayerEvaluation::Once
    );
    let tuning = tuned.tuning.as_ref().expect("tuning ran");
    let tried = tuning.trials.iter().filter(|t| t.on_demand).count();
    assert!(tried >= 5, "{tuning:?}");
    assert!(tuning.best_work <= tuning.threshold_work, "{tuning:?}");
    let text = gdlc::explain::plan(&ir, &tuned);
    assert!(text.contains("[reach12/12] on demand, against"), "{text}");
    let options = CompareOptions {
        perft_depth: 3,
        playouts: 10,
        max_steps: 20,
        seed: 3,
    };
    let mut reference = Interpreter::new(&front).expect("valid");
    let mut executor = Executor::new(&ir, &tuned);
    compare(&mut reference, &mut executor, options).expect("agree");
}

/// A recursive layer is evaluated semi-naively: the exit rules once, then each rule once
/// per recursive literal read from the previous round's new tuples only. Two mutually
/// recursive relations along a chain need a round per link, and the executor must
/// still agree with the interpreter; a layer with a relation without columns keeps
/// the plain repetition.
#[test]
fn recursive_layers_are_evaluated_semi_naively() {
    let mut text = String::from(
        "(role p) (init (at n0)) (init (wall n5))
         (<= (legal p (go ?b)) (true (at ?a)) (odd ?a ?b))
         (<= (legal p (go ?b)) (true (at ?a)) (even ?a ?b) (distinct ?a ?b))
         (<= (legal p stay) (true (at ?a)))
         (<= (next (at ?b)) (does p (go ?b)))
         (<= (next (at ?a)) (does p stay) (true (at ?a)))
         (<= (next (wall ?w)) (true (wall ?w)))
         (<= (next (wall ?b)) (does p (go ?b)))
         (<= (odd ?a ?b) (link ?a ?b) (not (true (wall ?b))))
         (<= (odd ?a ?c) (even ?a ?b) (link ?b ?c) (not (true (wall ?c))))
         (<= (even ?a ?a) (node ?a))
         (<= (even ?a ?c) (odd ?a ?b) (link ?b ?c) (not (true (wall ?c))))
         (<= stuck (true (at n11)))
         (<= stuck stuck)
         (<= terminal stuck)
         (<= (goal p 100) (true (at n11)))
         (<= (goal p 0) (not (true (at n11))))\n",
    );
    for i in 0..12 {
        text.push_str(&format!("(node n{i})\n"));
        if i < 11 {
            text.push_str(&format!("(link n{i} n{})\n", i + 1));
        }
    }
    let file = gdlc::SourceFile::new("chain.kif", text);
    let front = gdlc::front_end(&file);
    assert!(front.is_valid(), "{:?}", front.diagnostics);
    let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let layer_of = |key: &str| {
        let r = (0..ir.relations.len())
            .find(|&r| ir.relations[r].key() == key)
            .expect("relation");
        plan.layers[ir.layer_of[r]].tree.as_ref().expect("a tree")
    };
    let gdlc::plan::Node::SemiNaive {
        initial,
        rounds,
        relations,
    } = layer_of("odd/2")
    else {
        panic!("odd/2 is not semi-naive: {:?}", layer_of("odd/2"));
    };
    assert_eq!(relations.len(), 2, "odd and even are one layer");
    let mut deltas = 0;
    rounds.for_each_query(&mut |q| deltas += usize::from(q.access == gdlc::plan::Access::Delta));
    assert_eq!(deltas, 2, "one delta variant per recursive literal");
    // The first round runs the exit rules only: the recursive ones start from the
    // delta of everything they derive.
    let gdlc::plan::Node::Sequence(exit_rules) = initial.as_ref() else {
        panic!("the first round is a sequence: {initial:?}");
    };
    assert_eq!(
        exit_rules.len(),
        2,
        "odd's and even's exit rules: {exit_rules:?}"
    );
    assert!(matches!(layer_of("stuck/0"), gdlc::plan::Node::Repeat(_)));
    let text = gdlc::explain::plan(&ir, &plan);
    assert!(text.contains("semi-naive: first the exit rules"), "{text}");
    assert!(text.contains("by delta"), "{text}");
    let mut reference = Interpreter::new(&front).expect("valid");
    let mut executor = Executor::new(&ir, &plan);
    let options = CompareOptions {
        perft_depth: 3,
        playouts: 10,
        max_steps: 30,
        seed: 2,
    };
    compare(&mut reference, &mut executor, options).expect("agree");
}

/// laiklee_hex searches paths with a list of the cells seen: `connection` appends the
/// cell to the list (`append_el`, one answer) and calls `connection2` with the longer
/// list. Called before the append, with the list unbound, `connection2` enumerates every
/// list; the domain products of both calls' unknown list columns are alike, so only
/// the answers of `append_el`'s rules tell them apart. In one spelling (scramble seed 2)
/// the planner chose the enumeration and measured planning ran out of memory on its
/// first sample states. In every spelling, planning must sample the whole playout and
/// the plan agree with the interpreter. The sample playout chooses its moves in the
/// structural order, so every spelling samples the same states and measures the same
/// work (by KIF text the threshold plan's work was 30,828, 83,050, 50,722 and 34,750).
#[test]
fn list_appends_are_planned_before_the_recursive_call_in_every_spelling() {
    let Some(file) = common::game_source("laiklee_hex.kif") else {
        return;
    };
    let spellings = std::iter::once(file.clone()).chain((1..=3).map(|seed| {
        let text = gdlc::scramble::scramble(&file, &gdlc::scramble::Options::all(seed))
            .expect("scrambles");
        gdlc::SourceFile::new(format!("laiklee_hex seed {seed}"), text)
    }));
    let mut measured = Vec::new();
    for file in spellings {
        let front = gdlc::front_end(&file);
        let ir = analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
        let tuned = gdlc::planner::tuned(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
        let tuning = tuned.tuning.as_ref().expect("tuning ran");
        assert!(
            tuning.samples >= 20,
            "{}: sampling stopped after {} states: {tuning:?}",
            file.name,
            tuning.samples
        );
        measured.push((tuning.samples, tuning.threshold_work, tuning.best_work));
        let options = CompareOptions {
            perft_depth: 1,
            playouts: 2,
            max_steps: 30,
            seed: 3,
        };
        let mut reference = Interpreter::new(&front).expect("valid");
        let mut executor = Executor::new(&ir, &tuned);
        compare(&mut reference, &mut executor, options)
            .unwrap_or_else(|e| panic!("{}: {e}", file.name));
    }
    assert!(
        measured.windows(2).all(|pair| pair[0] == pair[1]),
        "samples, threshold and kept work by spelling: {measured:?}"
    );
}

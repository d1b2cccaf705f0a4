//! Domains that recursion through function terms keeps finite: a static relation the
//! path-wise abstraction cannot bound is evaluated to its real fixpoint, and its tuples
//! are its domains and facts; a state-dependent one is evaluated over the domains of the
//! state and keeps its rules (`analysis::statics`). The analysis, the plan executor and
//! the Rust backend then handle the game like any other; a relation whose terms really
//! grow without bound stays an error naming it, located at its rule — unless a step
//! counter bounds the game's length, and with it how deep the state's terms nest.

use gdlc::analysis::domains;
use gdlc::exec::Executor;
use gdlc::interp::Interpreter;
use gdlc::ir::Symbols;
use gdlc::{Diagnostic, SourceFile};
use gdlc_runtime::{CompareOptions, Game, compare};

/// A counter whose moves come from `r`, built by recursion through `s`: the recursion
/// restriction holds (`?y` is bound by `small`, `?x` is a head argument) and only
/// `small` stops it, which the per-path domains cannot see; its fixpoint is four
/// tuples, nested three deep.
const COUNT: &str = "\
(role p)
(init (at 0))
(r 0 0)
(small 0)
(small (s 0))
(<= (r ?x (s ?x))
    (r ?y ?x)
    (small ?y))
(<= (legal p (count ?y)) (true (at ?x)) (r ?x ?y))
(<= (next (at ?y)) (does p (count ?y)))
(<= terminal (true (at (s (s (s 0))))))
(goal p 100)
";

fn front(name: &str, text: &str) -> (SourceFile, gdlc::FrontEnd) {
    let file = SourceFile::new(name, text);
    let front = gdlc::front_end(&file);
    assert!(front.is_valid(), "{name} is not valid");
    (file, front)
}

fn analysis_error(name: &str, text: &str) -> (SourceFile, Diagnostic) {
    let (file, front) = front(name, text);
    match gdlc::analysis::analyze(&front) {
        Ok(_) => panic!("{name}: analysed, but its domain is unbounded"),
        Err(diagnostic) => (file, diagnostic),
    }
}

#[test]
fn a_static_relation_bounded_by_its_guard_is_evaluated() {
    let (_, front) = front("count.kif", COUNT);
    let computed =
        domains::compute(&front.rules, &mut Symbols::default()).unwrap_or_else(|d| panic!("{d}"));
    let names: Vec<String> = computed.evaluated.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["r/2"]);
    let facts: Vec<String> = computed
        .rules
        .iter()
        .filter(|rule| rule.head.is("r", 2))
        .map(|rule| {
            assert!(rule.body.is_empty(), "r keeps a rule: {}", rule.head);
            rule.head.to_string()
        })
        .collect();
    assert_eq!(
        facts,
        [
            "(r 0 0)",
            "(r 0 (s 0))",
            "(r (s 0) (s (s 0)))",
            "(r (s (s 0)) (s (s (s 0))))",
        ]
    );
}

#[test]
fn the_evaluated_game_plays_like_the_interpreter() {
    let (file, front) = front("count.kif", COUNT);
    let ir = gdlc::analysis::analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let domains = gdlc::explain::explain(&ir, gdlc::explain::Stage::Domains);
    assert!(
        domains.contains("1/s.0/s.0/s.0 {#nil 0}"),
        "the deepest path of `r` is missing:\n{domains}"
    );
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let mut reference = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
    let mut executor = Executor::new(&ir, &plan);
    let options = CompareOptions {
        perft_depth: 4,
        playouts: 4,
        max_steps: 10,
        seed: 1,
    };
    compare(&mut reference, &mut executor, options).unwrap_or_else(|e| panic!("{e}"));
    // Perft counts the deepest move: (count 0) forever, or up to (count (s (s (s 0)))).
    let start = executor.initial_state();
    let counts: Vec<u64> = (1..=4)
        .map(|depth| gdlc_runtime::perft::perft(&mut executor, &start, depth))
        .collect();
    assert_eq!(counts, [2, 3, 4, 5]);
    let rust = gdlc::compile_rust(&file)
        .unwrap_or_else(|ds| panic!("{}", ds.iter().map(|d| d.render(&file)).collect::<String>()));
    syn::parse_file(&rust).unwrap_or_else(|e| panic!("the generated code does not parse: {e}"));
}

#[test]
fn a_static_relation_too_large_to_evaluate_is_an_error_naming_it() {
    // `r` starts from 400 × 400 pairs: past the evaluation's bound on tuples.
    let mut text = COUNT.replace("(r 0 0)", "(<= (r ?a ?b) (d ?a) (d ?b))");
    for i in 0..400 {
        text.push_str(&format!("(d c{i})\n"));
    }
    let started = std::time::Instant::now();
    let (file, diagnostic) = analysis_error("large.kif", &text);
    assert!(
        started.elapsed().as_secs() < 60,
        "the bound took {:?}",
        started.elapsed()
    );
    let rendered = diagnostic.render(&file);
    assert!(
        rendered.contains("error[unbounded]: the domain of `r/2` cannot be bounded"),
        "{rendered}"
    );
    assert!(rendered.contains("large.kif:3:1"), "{rendered}");
    assert!(
        rendered.contains("does not depend on the state") && rendered.contains("tuples"),
        "{rendered}"
    );
}

#[test]
fn terms_growing_from_state_to_state_stay_an_error() {
    // A counter through `next`: every state is a new term; the game ends (the
    // interpreter plays it) but no finite domain holds every reachable state.
    let text = "\
(role p)
(init (count 0))
(<= (next (count (s ?x))) (true (count ?x)))
(<= (legal p wait) (true (count ?x)))
(<= terminal (true (count (s (s (s 0))))))
(goal p 100)
";
    let (file, diagnostic) = analysis_error("counter.kif", text);
    let rendered = diagnostic.render(&file);
    assert!(
        rendered.contains("the domain of `next/1` cannot be bounded"),
        "{rendered}"
    );
    assert!(rendered.contains("counter.kif:3:1"), "{rendered}");
}

/// [`COUNT`] with `r` starting from the state: `r` is state-dependent, evaluated over
/// the domains of the state (where `(at 0)` may hold) and keeps its rules.
fn count_from_state() -> String {
    COUNT.replace("(r 0 0)", "(<= (r 0 0) (true (at 0)))")
}

#[test]
fn a_state_dependent_relation_bounded_by_its_guard_is_evaluated_over_the_state() {
    let text = count_from_state();
    let (file, front) = front("state.kif", &text);
    let computed = domains::compute(&front.rules, &mut Symbols::default())
        .unwrap_or_else(|d| panic!("{}", d.render(&file)));
    assert!(computed.evaluated.is_empty());
    let relaxed: Vec<String> = computed.relaxed.iter().map(ToString::to_string).collect();
    assert_eq!(relaxed, ["r/2"]);
    assert_eq!(
        computed
            .rules
            .iter()
            .filter(|rule| rule.head.is("r", 2) && !rule.body.is_empty())
            .count(),
        2,
        "r keeps its rules"
    );
    let ir = gdlc::analysis::analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let mut reference = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
    let mut executor = Executor::new(&ir, &plan);
    let options = CompareOptions {
        perft_depth: 4,
        playouts: 4,
        max_steps: 10,
        seed: 1,
    };
    compare(&mut reference, &mut executor, options).unwrap_or_else(|e| panic!("{e}"));
    gdlc::compile_rust(&file)
        .unwrap_or_else(|ds| panic!("{}", ds.iter().map(|d| d.render(&file)).collect::<String>()));
}

#[test]
fn a_relation_feeding_ever_new_terms_to_the_state_is_an_error_naming_it() {
    // The next position comes from `r`, and `r` from the position: every round of the
    // relaxed evaluation finds a deeper position.
    let text = count_from_state()
        .replace(
            "(<= (r 0 0) (true (at 0)))",
            "(<= (r ?x (s ?x)) (true (at ?x)))",
        )
        .replace(
            "(<= (next (at ?y)) (does p (count ?y)))",
            "(<= (next (at ?y)) (does p (count ?y)))\n(<= (next (at ?y)) (true (at ?x)) (r ?x ?y))",
        );
    let (file, diagnostic) = analysis_error("feed.kif", &text);
    let rendered = diagnostic.render(&file);
    assert!(
        rendered.contains("error[unbounded]: the domain of `r/2` cannot be bounded"),
        "{rendered}"
    );
    assert!(
        rendered.contains("feeding new terms to the state"),
        "{rendered}"
    );
}

#[test]
fn games_the_abstraction_bounds_keep_their_rules() {
    let text = "\
(role p)
(init (n 0))
(succ 0 1)
(succ 1 2)
(<= (less ?x ?y) (succ ?x ?y))
(<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))
(<= (legal p (go ?y)) (true (n ?x)) (less ?x ?y))
(<= (next (n ?y)) (does p (go ?y)))
(<= terminal (true (n 2)))
(goal p 100)
";
    let (_, front) = front("less.kif", text);
    let computed =
        domains::compute(&front.rules, &mut Symbols::default()).unwrap_or_else(|d| panic!("{d}"));
    assert!(computed.evaluated.is_empty() && computed.relaxed.is_empty());
    assert!(matches!(computed.rules, std::borrow::Cow::Borrowed(_)));
}

/// Messages acknowledged once a round, `(ack (ack …))`, in a game that ends by its
/// round counter: no per-path domain bounds them, the game's length does.
const ACKS: &str = "\
(role a) (role b)
(init (round 0))
(init (msg hello))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(<= (legal a (send ?m)) (true (msg ?m)))
(<= (legal a wait) (true (round ?r)))
(<= (legal b noop) (true (round ?r)))
(<= (next (msg (ack ?m))) (does a (send ?m)))
(<= (next (msg ?m)) (does a wait) (true (msg ?m)))
(<= (next (round ?n)) (true (round ?r)) (succ ?r ?n))
(<= terminal (true (round 5)))
(<= won (true (msg (ack (ack (ack ?x))))))
(<= (goal a 100) won)
(<= (goal a 0) (not won))
(goal b 0)
";

#[test]
fn terms_nesting_deeper_each_step_are_bounded_by_a_step_counter() {
    let (file, front) = front("acks.kif", ACKS);
    let ir = gdlc::analysis::analyze(&front).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let plan = gdlc::planner::plan(&ir).unwrap_or_else(|d| panic!("{}", d.render(&file)));
    let mut reference = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
    let mut executor = Executor::new(&ir, &plan);
    let options = CompareOptions {
        perft_depth: 5,
        playouts: 20,
        max_steps: 10,
        seed: 1,
    };
    compare(&mut reference, &mut executor, options).unwrap_or_else(|e| panic!("{e}"));
    // Five sends nest five acknowledgements: the deepest state of the game.
    let mut state = executor.initial_state();
    for _ in 0..5 {
        let mut send = Vec::new();
        executor.legal_moves(&state, 0, &mut send);
        let send = *send
            .iter()
            .find(|&&m| executor.move_to_kif(m).starts_with("(send"))
            .expect("a send");
        let mut noop = Vec::new();
        executor.legal_moves(&state, 1, &mut noop);
        state = executor.next_state(&state, &[send, noop[0]]);
    }
    let held = executor.state_to_kif(&state);
    assert!(
        held.contains(&"(msg (ack (ack (ack (ack (ack hello))))))".to_owned()),
        "{held:?}"
    );
    assert!(executor.is_terminal(&state));
    assert_eq!(executor.goal(&state, 0), Ok(100));
    gdlc::compile_rust(&file)
        .unwrap_or_else(|ds| panic!("{}", ds.iter().map(|d| d.render(&file)).collect::<String>()));
}

#[test]
fn terms_nesting_many_ways_over_a_long_game_stay_an_error_naming_its_length() {
    // Acknowledged or refused each round for 40 rounds: 2^40 message terms.
    let mut text = ACKS
        .replace("(round 5)", "(round 40)")
        .replace("(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)", "")
        + "(<= (next (msg (nack ?m))) (does a (send ?m)))\n";
    for i in 0..40 {
        text.push_str(&format!("(succ {i} {})\n", i + 1));
    }
    let started = std::time::Instant::now();
    let (file, diagnostic) = analysis_error("nacks.kif", &text);
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );
    let rendered = diagnostic.render(&file);
    assert!(rendered.contains("cannot be bounded"), "{rendered}");
    assert!(
        rendered.contains("the game ends within 40 steps (its counter `round`)"),
        "{rendered}"
    );
}

//! The static tables the planner computes at compile time equal what the interpreter
//! derives.
//!
//! Every static relation of a program is made observable as legal moves (`(<= (legal r
//! (m_p ?x ?y)) (p ?x ?y))`), so the plan executor's legal moves in the initial state are
//! the plan's tables and the interpreter's are its own derivation. A reproduction of a
//! real defect (a static relation calling a recursive on-demand relation whose mode trees
//! were planned by an earlier static layer lost the index they read, so it got the base
//! case only) and a property test over random small programs with recursion, negation and
//! `distinct`.

use gdlc::SourceFile;
use gdlc::exec::Executor;
use gdlc::interp::Interpreter;
use gdlc::planner::PlanOptions;
use gdlc_runtime::Game;
use proptest::prelude::*;

/// The sorted KIF texts of role 0's legal moves in the initial state, from the
/// interpreter and from the plan executor (with the default plan, then with every
/// layer that can be on demand on demand); `None` when the program is not valid GDL.
fn legal_texts(text: &str) -> Option<(Vec<String>, [Vec<String>; 2])> {
    let file = SourceFile::new("test.kif", text);
    let front = gdlc::front_end(&file);
    if !front.is_valid() {
        return None;
    }
    let mut interpreter = Interpreter::new(&front).expect("the interpreter loads a valid game");
    let ir = gdlc::analysis::analyze(&front).expect("analysis");
    let by_plan = |options: &PlanOptions| {
        let plan = gdlc::planner::plan_with(&ir, options).expect("plan");
        moves(&mut Executor::new(&ir, &plan))
    };
    let all_on_demand = PlanOptions {
        demand_threshold: 0.0,
        static_demand_threshold: 0.0,
        ..PlanOptions::default()
    };
    Some((
        moves(&mut interpreter),
        [by_plan(&PlanOptions::default()), by_plan(&all_on_demand)],
    ))
}

fn moves<G: Game>(game: &mut G) -> Vec<String> {
    let state = game.initial_state();
    let mut out = Vec::new();
    game.legal_moves(&state, 0, &mut out);
    let mut texts: Vec<String> = out.into_iter().map(|m| game.move_to_kif(m)).collect();
    texts.sort();
    texts
}

#[test]
fn a_static_relation_calling_recursive_demand_modes_planned_earlier_gets_every_tuple() {
    let mut text = String::from(
        "(role a) (init (store 20)) (init (step 0))
         (<= (legal a (take ?n)) (true (store ?s)) (gte ?s ?n))
         (<= (legal a (give ?n)) (true (store ?s)) (gt ?s ?n))
         (<= (next (store ?r)) (true (store ?s)) (does a (take ?n)) (sum ?r ?n ?s))
         (<= (next (step ?t)) (true (step ?u)) (succ ?u ?t))
         (<= terminal (true (step 3)))
         (goal a 100)
         (<= (sum ?x 0 ?x) (or (succ ?x ?y) (succ ?y ?x)))
         (<= (sum ?x ?y ?z) (succ ?y0 ?y) (succ ?z0 ?z) (sum ?x ?y0 ?z0))
         (<= (gte ?a ?b) (index ?x) (sum ?b ?x ?a))
         (<= (gt ?a ?b) (index ?x) (not (succ ?x 1)) (sum ?b ?x ?a))\n",
    );
    for i in 0..=20 {
        text.push_str(&format!("(index {i})\n"));
    }
    for i in 0..100 {
        text.push_str(&format!("(succ {i} {})\n", i + 1));
    }
    let (interpreter, [executor, on_demand]) = legal_texts(&text).expect("valid");
    assert_eq!(interpreter.len(), 41, "take 0..=20 and give 0..=19");
    assert_eq!(executor, interpreter);
    assert_eq!(on_demand, interpreter);
}

/// A random literal over the variables `?x ?y ?z` and constants `0 1 2`.
fn term() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["?x", "?y", "?z"]).prop_map(str::to_owned),
        1 => (0..3u8).prop_map(|c| c.to_string()),
    ]
}

/// Relations: base facts `e/2`, `f/1`; derived `p/2`, `q/1`, `r/2` in that order.
const DERIVED: [(&str, usize); 3] = [("p", 2), ("q", 1), ("r", 2)];

fn atom(name: &'static str, arity: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(term(), arity)
        .prop_map(move |args| format!("({name} {})", args.join(" ")))
}

/// The relations a rule of derived relation `i` may read without recursion: the base
/// relations and the derived ones before `i`.
fn lower(i: usize) -> Vec<(&'static str, usize)> {
    let mut relations = vec![("e", 2), ("f", 1)];
    relations.extend_from_slice(&DERIVED[..i]);
    relations
}

/// A term chosen by `pick` among the variables bound by the non-recursive positive
/// literals (`pick` < 3) or the constants 0 and 1.
fn resolve(pick: usize, bound: &[&'static str]) -> String {
    if pick < 3 {
        bound[pick % bound.len()].to_owned()
    } else {
        (pick - 3).to_string()
    }
}

/// A rule for derived relation `i`: non-recursive positive literals, maybe a recursive
/// one, a negative literal and a `distinct` over what those bound (so every rule is
/// safe and keeps the recursion restriction), and a head over the bound variables.
fn rule(i: usize) -> impl Strategy<Value = Option<String>> {
    let (name, arity) = DERIVED[i];
    let lower_atom = prop::sample::select(lower(i))
        .prop_flat_map(|(n, a)| atom(n, a))
        .boxed();
    let picks = |n: usize| prop::collection::vec(0..5usize, n);
    (
        prop::collection::vec(lower_atom, 1..=2),
        prop::option::of(picks(arity)),
        prop::option::of((prop::sample::select(lower(i)), picks(2))),
        prop::option::of(picks(2)),
        picks(arity),
    )
        .prop_map(move |(positives, recursive, negative, distinct, head)| {
            let bound: Vec<&'static str> = ["?x", "?y", "?z"]
                .into_iter()
                .filter(|v| positives.iter().any(|p| p.contains(v)))
                .collect();
            if bound.is_empty() {
                return None;
            }
            let terms = |picks: &[usize]| -> Vec<String> {
                picks.iter().map(|&k| resolve(k, &bound)).collect()
            };
            let mut body = positives;
            if let Some(args) = recursive {
                body.push(format!("({name} {})", terms(&args).join(" ")));
            }
            if let Some(((relation, relation_arity), args)) = negative {
                body.push(format!(
                    "(not ({relation} {}))",
                    terms(&args[..relation_arity]).join(" ")
                ));
            }
            if let Some(args) = distinct {
                body.push(format!("(distinct {})", terms(&args).join(" ")));
            }
            let head: Vec<&str> = head.iter().map(|&k| bound[k % bound.len()]).collect();
            Some(format!(
                "(<= ({name} {}) {})",
                head.join(" "),
                body.join(" ")
            ))
        })
}

/// A whole game: random facts, one to three rules per derived relation, and every
/// relation (or only the last) observable as legal moves.
fn program() -> impl Strategy<Value = String> {
    (
        prop::collection::btree_set((0..3u8, 0..3u8), 0..7),
        prop::collection::btree_set(0..3u8, 0..3),
        prop::collection::vec(rule(0), 1..=3),
        prop::collection::vec(rule(1), 1..=3),
        prop::collection::vec(rule(2), 1..=3),
        any::<bool>(),
    )
        .prop_map(|(e, f, p, q, r, observe_all)| {
            let mut text = String::from(
                "(role a) (init (s 0)) (<= (next (s 1)) (true (s 0))) (<= terminal (true (s 1)))\n\
                 (goal a 100) (legal a noop)\n",
            );
            for (x, y) in e {
                text.push_str(&format!("(e {x} {y})\n"));
            }
            for x in f {
                text.push_str(&format!("(f {x})\n"));
            }
            for rule in p.into_iter().chain(q).chain(r).flatten() {
                text.push_str(&rule);
                text.push('\n');
            }
            // Observing a relation queries it with no column bound, which keeps it off
            // demand: observe only `r` half of the time, so `p` and `q` can be.
            let observed: &[(&str, usize)] = if observe_all {
                &[("e", 2), ("f", 1), ("p", 2), ("q", 1), ("r", 2)]
            } else {
                &[("r", 2)]
            };
            for &(name, arity) in observed {
                let vars = ["?x", "?y"][..arity].join(" ");
                text.push_str(&format!(
                    "(<= (legal a (m_{name} {vars})) ({name} {vars}))\n"
                ));
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn static_tables_equal_the_interpreters_derivation(text in program()) {
        // Programs the validator rejects (unsafe negation, a relation never defined,
        // the recursion restriction) say nothing about the planner.
        if let Some((interpreter, [executor, on_demand])) = legal_texts(&text) {
            prop_assert_eq!(&executor, &interpreter, "program:\n{}", text);
            prop_assert_eq!(&on_demand, &interpreter, "all on demand; program:\n{}", text);
        }
    }
}

//! The runtime drivers (perft, playouts, simulation counting) on a hand-written toy
//! game, independent of gdlc: a counter that two roles advance together.
//!
//! State: a number; the game ends at 4 or beyond. Role `a` may play `inc` or `stay`,
//! role `b` only `inc`; each `inc` adds one. With `stuck_at`, role `b` has no legal move
//! in that state (an unplayable state, on purpose). With `reversed`, legal moves are
//! listed in the other order (reasoners may list them in orders of their own).

use std::time::Duration;

use gdlc_runtime::{
    CompareOptions, Game, GoalError, MoveError, PlayoutError, PlayoutOptions, RandomStep,
    RoleIndex, StateError, compare, failing_playout, perft, random_playout, simulate_for,
};

/// A two-role counter; `stuck_at` makes role `b` moveless in that state.
struct Counter {
    stuck_at: Option<u8>,
    reversed: bool,
}

impl Game for Counter {
    type State = u8;
    type Move = u8; // 0 = inc, 1 = stay
    type Percept = u8;

    fn num_roles(&self) -> usize {
        2
    }
    fn role_name(&self, role: RoleIndex) -> &str {
        ["a", "b"][role]
    }
    fn initial_state(&mut self) -> u8 {
        0
    }
    fn is_terminal(&mut self, state: &u8) -> bool {
        *state >= 4
    }
    fn legal_moves(&mut self, state: &u8, role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        if role == 1 && self.stuck_at == Some(*state) {
            return;
        }
        out.push(0);
        if role == 0 {
            out.push(1);
        }
        if self.reversed {
            out.reverse();
        }
    }
    fn next_state(&mut self, state: &u8, joint: &[u8]) -> u8 {
        state + u8::from(joint[0] == 0) + u8::from(joint[1] == 0)
    }
    fn goal(&mut self, state: &u8, role: RoleIndex) -> Result<u8, GoalError> {
        match (*state >= 4, role) {
            (true, 0) => Ok(100),
            (true, _) => Ok(0),
            (false, _) => Err(GoalError::Missing),
        }
    }
    fn sees(&mut self, _: &u8, _: &[u8], _: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
    }
    fn move_to_kif(&self, mv: u8) -> String {
        ["inc", "stay"][mv as usize].to_owned()
    }
    fn percept_to_kif(&self, percept: u8) -> String {
        percept.to_string()
    }
    fn state_to_kif(&self, state: &u8) -> Vec<String> {
        vec![format!("(count {state})")]
    }
    fn state_from_kif(&mut self, _: &[&str]) -> Result<u8, StateError> {
        Err(StateError::UnknownFluent("unused".into()))
    }
}

#[test]
fn perft_counts_terminal_states_as_leaves() {
    let mut game = Counter {
        stuck_at: None,
        reversed: false,
    };
    // From 0: joint moves (inc,inc) → 2 and (stay,inc) → 1.
    assert_eq!(perft(&mut game, &0, 0), 1);
    assert_eq!(perft(&mut game, &0, 1), 2);
    // From 2: → 4 (terminal), → 3; from 1: → 3, → 2.
    assert_eq!(perft(&mut game, &0, 2), 4);
    // Depth 3: 4 is one leaf; each 3 has two terminal successors; 2 has two successors.
    assert_eq!(perft(&mut game, &0, 3), 7);
    // A terminal root is one leaf at any depth.
    assert_eq!(perft(&mut game, &4, 5), 1);
}

#[test]
fn perft_counts_no_leaf_below_a_moveless_role() {
    let mut game = Counter {
        stuck_at: Some(2),
        reversed: false,
    };
    assert_eq!(perft(&mut game, &0, 1), 2);
    // (inc,inc) reaches 2, where `b` cannot move: that branch contributes nothing below.
    assert_eq!(perft(&mut game, &0, 2), 2);
}

#[test]
fn playouts_are_seeded_and_report_goals() {
    let mut game = Counter {
        stuck_at: None,
        reversed: false,
    };
    let first = random_playout(
        &mut game,
        PlayoutOptions {
            seed: 9,
            max_steps: 100,
        },
    )
    .expect("playout");
    let again = random_playout(
        &mut game,
        PlayoutOptions {
            seed: 9,
            max_steps: 100,
        },
    )
    .expect("playout");
    assert_eq!(first.joint_moves, again.joint_moves);
    assert_eq!(first.goals, vec![Ok(100), Ok(0)]);
    assert!(first.joint_moves.iter().all(|joint| joint.len() == 2));
}

#[test]
fn playout_reports_a_moveless_role_and_the_step_limit() {
    let mut stuck = Counter {
        stuck_at: Some(0),
        reversed: false,
    };
    let err = random_playout(&mut stuck, PlayoutOptions::default()).expect_err("stuck");
    assert_eq!(
        err.to_string(),
        "role `b` has no legal move in the non-terminal state after 0 steps"
    );
    let mut game = Counter {
        stuck_at: None,
        reversed: false,
    };
    let err = random_playout(
        &mut game,
        PlayoutOptions {
            seed: 1,
            max_steps: 1,
        },
    )
    .expect_err("limit");
    assert_eq!(err, PlayoutError::StepLimit(1));
}

#[test]
fn simulation_counts_playouts_and_states() {
    let mut game = Counter {
        stuck_at: None,
        reversed: false,
    };
    let report = simulate_for(&mut game, Duration::from_millis(20), 3, 100).expect("simulate");
    assert!(report.playouts >= 1);
    // Every playout takes 2 to 4 steps.
    assert!(report.states >= 2 * report.playouts && report.states <= 4 * report.playouts);
}

/// A run of random playouts that fails gives the joint moves of the playout that
/// failed, found again: they lead to the state where a role has no legal move, and the
/// playouts before it in the run are whole.
#[test]
fn the_playout_a_simulation_fails_in_is_found_again_with_its_moves() {
    // From 0, (inc, inc) twice reaches 4 and ends; every other playout reaches 3,
    // where `b` cannot move.
    let mut game = Counter {
        stuck_at: Some(3),
        reversed: false,
    };
    let budget = Duration::from_secs(10);
    let mut later_than_first = false;
    for seed in 0..40 {
        let failed = failing_playout(&mut game, budget, seed, 100).expect("a failing playout");
        let expected =
            simulate_for(&mut game, Duration::from_secs(10), seed, 100).expect_err("fails");
        assert_eq!(failed.error, expected);
        assert_eq!(
            failed.error,
            PlayoutError::NoLegalMove {
                role: "b".into(),
                step: failed.joint_moves.len()
            }
        );
        let mut state = game.initial_state();
        for joint in &failed.joint_moves {
            state = game.next_state(&state, joint);
        }
        assert_eq!(state, 3, "seed {seed}: {failed:?}");
        later_than_first |= failed.number > 1;
    }
    assert!(later_than_first, "some run fails after a whole playout");
    let mut playable = Counter {
        stuck_at: None,
        reversed: false,
    };
    assert_eq!(
        failing_playout(&mut playable, Duration::from_millis(20), 1, 100),
        None
    );
}

#[test]
fn legal_move_from_kif_rejects_illegal_and_malformed_text() {
    let mut game = Counter {
        stuck_at: None,
        reversed: false,
    };
    assert_eq!(game.legal_move_from_kif(&0, 0, " STAY "), Ok(1));
    assert!(matches!(
        game.legal_move_from_kif(&0, 1, "stay"),
        Err(MoveError::NotLegal { .. })
    ));
    assert!(matches!(
        game.legal_move_from_kif(&0, 0, "(inc"),
        Err(MoveError::Syntax(_))
    ));
    assert_eq!(game.role_index("B"), Some(1));
}

/// Reasoners are compared by their sets of legal moves, each playing the candidate's
/// seeded picks in the candidate's own order; a different set or next state is found.
#[test]
fn compare_accepts_another_order_and_finds_another_set() {
    let options = CompareOptions {
        perft_depth: 3,
        playouts: 20,
        max_steps: 10,
        seed: 1,
    };
    let mut reference = Counter {
        stuck_at: None,
        reversed: false,
    };
    let mut reversed = Counter {
        stuck_at: None,
        reversed: true,
    };
    let agreement = compare(&mut reference, &mut reversed, options).expect("agree");
    assert_eq!(agreement.perft, perft_figures(&mut reference, 3));
    assert!(agreement.states > 20, "{agreement:?}");
    let mut stuck = Counter {
        stuck_at: Some(1),
        reversed: true,
    };
    let difference = compare(&mut reference, &mut stuck, options).expect_err("differ");
    assert!(difference.contains("perft("), "{difference}");
    let difference = compare(
        &mut reference,
        &mut stuck,
        CompareOptions {
            perft_depth: 0,
            ..options
        },
    )
    .expect_err("differ");
    assert!(
        difference.contains("legal moves of b") && difference.ends_with("candidate: "),
        "{difference}"
    );
}

fn perft_figures(game: &mut Counter, depth: u32) -> Vec<u64> {
    let start = game.initial_state();
    (1..=depth).map(|d| perft(game, &start, d)).collect()
}

/// The counter with a random step of its own that plays role `a`'s first move whatever
/// the pick: a fused step that disagrees with the queries one by one.
struct FirstMoveStep(Counter);

impl Game for FirstMoveStep {
    type State = u8;
    type Move = u8;
    type Percept = u8;

    fn num_roles(&self) -> usize {
        self.0.num_roles()
    }
    fn role_name(&self, role: RoleIndex) -> &str {
        self.0.role_name(role)
    }
    fn initial_state(&mut self) -> u8 {
        self.0.initial_state()
    }
    fn is_terminal(&mut self, state: &u8) -> bool {
        self.0.is_terminal(state)
    }
    fn legal_moves(&mut self, state: &u8, role: RoleIndex, out: &mut Vec<u8>) {
        self.0.legal_moves(state, role, out)
    }
    fn random_step(
        &mut self,
        state: &u8,
        joint: &mut Vec<u8>,
        scratch: &mut Vec<u8>,
        mut pick: impl FnMut(usize) -> usize,
    ) -> RandomStep<u8> {
        match self.0.random_step(state, joint, scratch, &mut pick) {
            RandomStep::Next(_) => {
                joint[0] = 0;
                RandomStep::Next(self.0.next_state(state, joint))
            }
            other => other,
        }
    }
    fn next_state(&mut self, state: &u8, joint: &[u8]) -> u8 {
        self.0.next_state(state, joint)
    }
    fn goal(&mut self, state: &u8, role: RoleIndex) -> Result<u8, GoalError> {
        self.0.goal(state, role)
    }
    fn sees(&mut self, state: &u8, joint: &[u8], role: RoleIndex, out: &mut Vec<u8>) {
        self.0.sees(state, joint, role, out)
    }
    fn move_to_kif(&self, mv: u8) -> String {
        self.0.move_to_kif(mv)
    }
    fn percept_to_kif(&self, percept: u8) -> String {
        self.0.percept_to_kif(percept)
    }
    fn state_to_kif(&self, state: &u8) -> Vec<String> {
        self.0.state_to_kif(state)
    }
    fn state_from_kif(&mut self, fluents: &[&str]) -> Result<u8, StateError> {
        self.0.state_from_kif(fluents)
    }
}

/// The fused random step (what playouts use) is checked against the queries one by one:
/// the default agrees, on a terminal state and a moveless role too; an override that
/// plays other moves than the picks is found.
#[test]
fn compare_checks_the_whole_random_step() {
    let options = CompareOptions {
        perft_depth: 0,
        playouts: 20,
        max_steps: 10,
        seed: 1,
    };
    let mut reference = Counter {
        stuck_at: None,
        reversed: false,
    };
    let mut stuck = Counter {
        stuck_at: Some(1),
        reversed: false,
    };
    let mut stuck_too = Counter {
        stuck_at: Some(1),
        reversed: false,
    };
    compare(&mut stuck, &mut stuck_too, options).expect("the default step agrees");
    let mut first_move = FirstMoveStep(Counter {
        stuck_at: None,
        reversed: false,
    });
    let difference = compare(&mut reference, &mut first_move, options).expect_err("differ");
    assert!(difference.contains("random step"), "{difference}");
}

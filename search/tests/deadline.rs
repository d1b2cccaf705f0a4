//! The search keeps to its deadline even when one playout takes far longer than the
//! time it has (a slow reasoner): it reads the clock inside playouts.

use std::time::{Duration, Instant};

use gdlc_runtime::game::{Game, GoalError, RoleIndex, StateError};
use gdlc_search::mcts::Mcts;

/// One role counts to 100, one step every 10 ms: a playout takes a second.
#[derive(Clone)]
struct SlowCounter;

impl Game for SlowCounter {
    type State = u32;
    type Move = u8;
    type Percept = u8;

    fn num_roles(&self) -> usize {
        1
    }
    fn role_name(&self, _: RoleIndex) -> &str {
        "counter"
    }
    fn initial_state(&mut self) -> u32 {
        0
    }
    fn is_terminal(&mut self, state: &u32) -> bool {
        *state >= 100
    }
    fn legal_moves(&mut self, _: &u32, _: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        out.extend([1, 2]);
    }
    fn next_state(&mut self, state: &u32, joint: &[u8]) -> u32 {
        std::thread::sleep(Duration::from_millis(10));
        state + u32::from(joint[0])
    }
    fn goal(&mut self, state: &u32, _: RoleIndex) -> Result<u8, GoalError> {
        Ok(if *state == 100 { 100 } else { 0 })
    }
    fn sees(&mut self, _: &u32, _: &[u8], _: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
    }
    fn move_to_kif(&self, mv: u8) -> String {
        mv.to_string()
    }
    fn percept_to_kif(&self, p: u8) -> String {
        p.to_string()
    }
    fn state_to_kif(&self, state: &u32) -> Vec<String> {
        vec![state.to_string()]
    }
    fn state_from_kif(&mut self, _: &[&str]) -> Result<u32, StateError> {
        Ok(0)
    }
}

#[test]
fn a_playout_longer_than_the_time_left_does_not_carry_the_search_past_its_deadline() {
    let mut search = Mcts::new(SlowCounter, 0, 1);
    let start = Instant::now();
    search.search_until(start + Duration::from_millis(100), u64::MAX);
    // One playout alone would take 0.5 to 1 s; the clock is read every 4 steps.
    assert!(
        start.elapsed() < Duration::from_millis(450),
        "{:?}",
        start.elapsed()
    );
    assert!(
        search.best_move(0).is_some(),
        "a move even when nothing finished"
    );
}

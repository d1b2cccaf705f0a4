//! Perft: the number of joint-move sequences of a given length from a state.
//!
//! A joint move picks one legal move per role, in role order, so a step of a game with
//! a `noop` role multiplies by the other role's move count. A terminal state is one
//! leaf whatever depth remains; a non-terminal state where some role has no legal move
//! contributes no leaf.

use crate::game::Game;

/// Perft of `state` to `depth` (depth 0 counts the state itself).
pub fn perft<G: Game>(game: &mut G, state: &G::State, depth: u32) -> u64 {
    let mut scratch = Scratch {
        legal: Vec::new(),
        joint: Vec::new(),
    };
    count(game, state, depth, &mut scratch)
}

struct Scratch<M> {
    /// Legal moves per role, one buffer per remaining depth.
    legal: Vec<Vec<Vec<M>>>,
    /// Joint-move buffer, one per remaining depth.
    joint: Vec<Vec<M>>,
}

fn count<G: Game>(
    game: &mut G,
    state: &G::State,
    depth: u32,
    scratch: &mut Scratch<G::Move>,
) -> u64 {
    if depth == 0 || game.is_terminal(state) {
        return 1;
    }
    let level = depth as usize;
    let roles = game.num_roles();
    while scratch.legal.len() <= level {
        scratch.legal.push(vec![Vec::new(); roles]);
        scratch.joint.push(Vec::new());
    }
    let mut legal = std::mem::take(&mut scratch.legal[level]);
    let mut joint = std::mem::take(&mut scratch.joint[level]);
    let mut total = 0;
    for (role, moves) in legal.iter_mut().enumerate() {
        game.legal_moves(state, role, moves);
    }
    if legal.iter().all(|moves| !moves.is_empty()) {
        let mut choice = vec![0usize; roles];
        loop {
            joint.clear();
            joint.extend(choice.iter().zip(&legal).map(|(&i, moves)| moves[i]));
            let next = game.next_state(state, &joint);
            total += count(game, &next, depth - 1, scratch);
            if !advance(&mut choice, &legal) {
                break;
            }
        }
    }
    scratch.legal[level] = legal;
    scratch.joint[level] = joint;
    total
}

/// Steps the odometer `choice` over the product of the move lists; false when done.
fn advance<M>(choice: &mut [usize], legal: &[Vec<M>]) -> bool {
    for (digit, moves) in choice.iter_mut().zip(legal).rev() {
        *digit += 1;
        if *digit < moves.len() {
            return true;
        }
        *digit = 0;
    }
    false
}

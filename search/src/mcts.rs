//! Monte Carlo tree search over any [`Game`]: decoupled UCT, so that simultaneous moves
//! need nothing special.
//!
//! Every node keeps, per role, the statistics of each of the role's legal moves (visits
//! and summed goal values); a step of selection lets every role pick its move by UCB1 on
//! its own statistics, and the joint move leads to a child (created on first use). A
//! new child is scored by one random playout to a terminal state (goal values, 0..=100,
//! scaled to 0..=1), and the score is added along the path. With one role to move and
//! the others playing `noop`, this is ordinary UCT.
//!
//! The tree lives in an arena; [`Mcts::advance`] moves the root to the child the real
//! joint move leads to, keeping that subtree, and compacts the arena when it has grown.

use std::time::Instant;

use gdlc_runtime::game::{Game, RandomStep, RoleIndex};
use gdlc_runtime::playout::Stepper;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rustc_hash::FxHashMap;

/// UCB1's exploration constant, for scores in 0..=1.
const EXPLORATION: f64 = 1.0;
/// Steps a playout may take before it is cut off and scored as a draw for everyone.
const MAX_PLAYOUT_STEPS: usize = 10_000;
/// Nodes beyond which the tree stops growing (playouts go on from its leaves). A node
/// takes from about a hundred bytes to a few kilobytes (its state, every role's legal
/// moves and their statistics, its children), so a tree stays within about 1 GB at
/// worst, per search thread.
const MAX_NODES: usize = 400_000;

/// A move's statistics at one node, for the role that makes it.
#[derive(Clone, Copy, Debug, Default)]
struct MoveStats {
    visits: u32,
    /// Summed scores (0..=1) of the iterations that chose this move.
    score: f64,
}

/// One state of the tree.
struct Node<G: Game> {
    state: G::State,
    /// Goal values (0..=1) per role when the state is terminal.
    terminal: Option<Vec<f64>>,
    /// Legal moves per role, in the reasoner's order.
    moves: Vec<Vec<G::Move>>,
    /// Statistics per role, parallel to `moves`.
    stats: Vec<Vec<MoveStats>>,
    visits: u32,
    /// Children by joint move (one index into `moves[role]` per role).
    children: FxHashMap<Box<[u32]>, usize>,
}

/// The search: a tree over one game from one role's point of view (statistics are kept
/// for every role; [`Mcts::best_move`] reads one role's).
pub struct Mcts<G: Game> {
    game: G,
    nodes: Vec<Node<G>>,
    root: usize,
    rng: Pcg64Mcg,
    stepper: Stepper<G::Move>,
    /// Iterations run since the search began.
    iterations: u64,
}

/// What the search did: for logs and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchReport {
    /// Iterations (each ends in a playout or at a terminal node).
    pub iterations: u64,
    /// Nodes in the tree below and at the root.
    pub nodes: usize,
}

impl<G: Game> Mcts<G> {
    /// A search rooted at `state`; `seed` fixes its random choices.
    pub fn new(mut game: G, state: G::State, seed: u64) -> Self {
        let stepper = Stepper::new(&game, seed ^ 0x9e37_79b9_7f4a_7c15);
        let root = make_node(&mut game, state);
        Mcts {
            game,
            nodes: vec![root],
            root: 0,
            rng: Pcg64Mcg::seed_from_u64(seed),
            stepper,
            iterations: 0,
        }
    }

    /// The reasoner.
    pub fn game(&mut self) -> &mut G {
        &mut self.game
    }

    /// The root's state.
    pub fn state(&self) -> &G::State {
        &self.nodes[self.root].state
    }

    /// Whether the root is terminal.
    pub fn is_over(&self) -> bool {
        self.nodes[self.root].terminal.is_some()
    }

    /// The legal moves of `role` at the root.
    pub fn legal_moves(&self, role: RoleIndex) -> &[G::Move] {
        &self.nodes[self.root].moves[role]
    }

    /// Runs iterations until `deadline` (read every few iterations) or until `max`
    /// iterations were run.
    /// The clock is read before every iteration and every 4 playout steps, so a slow
    /// reasoner cannot carry the search past the deadline by more than a few steps: an
    /// iteration the deadline interrupts is dropped.
    pub fn search_until(&mut self, deadline: Instant, max: u64) -> SearchReport {
        let mut done = 0;
        while done < max && self.nodes[self.root].terminal.is_none() && Instant::now() < deadline {
            self.iterate(deadline);
            done += 1;
        }
        SearchReport {
            iterations: self.iterations,
            nodes: self.nodes.len(),
        }
    }

    /// The move of `role` at the root with the most visits (the first legal move when
    /// nothing was searched); `None` when the root is terminal or the role has no move.
    pub fn best_move(&self, role: RoleIndex) -> Option<G::Move> {
        let node = &self.nodes[self.root];
        let moves = &node.moves[role];
        let stats = &node.stats[role];
        (0..moves.len())
            .max_by(|&a, &b| {
                let key = |i: usize| (stats[i].visits, stats[i].score);
                let (va, sa) = key(a);
                let (vb, sb) = key(b);
                va.cmp(&vb).then(sa.total_cmp(&sb)).then(b.cmp(&a))
            })
            .map(|i| moves[i])
    }

    /// Visits of each of `role`'s legal moves at the root (in [`Mcts::legal_moves`]'
    /// order): what root-parallel searches add up.
    pub fn root_visits(&self, role: RoleIndex) -> Vec<u32> {
        self.nodes[self.root].stats[role]
            .iter()
            .map(|s| s.visits)
            .collect()
    }

    /// Moves the root along the joint move that was played, keeping its subtree. The
    /// moves must be legal at the root.
    pub fn advance(&mut self, joint: &[G::Move]) {
        let node = &self.nodes[self.root];
        let key: Option<Box<[u32]>> = joint
            .iter()
            .zip(&node.moves)
            .map(|(mv, moves)| moves.iter().position(|m| m == mv).map(|i| i as u32))
            .collect();
        let child = key.and_then(|key| node.children.get(&key).copied());
        match child {
            Some(child) => self.root = child,
            None => {
                let state = self.game.next_state(&self.nodes[self.root].state, joint);
                let node = make_node(&mut self.game, state);
                self.nodes.push(node);
                self.root = self.nodes.len() - 1;
            }
        }
        self.compact();
    }

    /// Keeps only the nodes reachable from the root, renumbered from 0.
    fn compact(&mut self) {
        let mut order = vec![self.root];
        let mut new_index = FxHashMap::default();
        new_index.insert(self.root, 0usize);
        let mut at = 0;
        while at < order.len() {
            let mut children: Vec<usize> =
                self.nodes[order[at]].children.values().copied().collect();
            children.sort_unstable();
            for child in children {
                if let std::collections::hash_map::Entry::Vacant(slot) = new_index.entry(child) {
                    slot.insert(order.len());
                    order.push(child);
                }
            }
            at += 1;
        }
        if order.len() == self.nodes.len() {
            return;
        }
        let mut old: Vec<Option<Node<G>>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        self.nodes = order
            .iter()
            .map(|&i| {
                let mut node = old[i].take().expect("each node is kept once");
                for child in node.children.values_mut() {
                    *child = new_index[child];
                }
                node
            })
            .collect();
        self.root = 0;
    }

    /// One iteration: select down the tree, expand one child, play out, back up.
    fn iterate(&mut self, deadline: Instant) {
        self.iterations += 1;
        let mut path: Vec<(usize, Box<[u32]>)> = Vec::new();
        let mut at = self.root;
        let scores = loop {
            if let Some(goals) = &self.nodes[at].terminal {
                break goals.clone();
            }
            let joint = self.select(at);
            path.push((at, joint.clone()));
            if let Some(&child) = self.nodes[at].children.get(&joint) {
                at = child;
                continue;
            }
            let moves: Vec<G::Move> = joint
                .iter()
                .enumerate()
                .map(|(role, &i)| self.nodes[at].moves[role][i as usize])
                .collect();
            let state = self.game.next_state(&self.nodes[at].state, &moves);
            if self.nodes.len() >= MAX_NODES {
                match self.playout(state, deadline) {
                    Some(scores) => break scores,
                    None => return,
                }
            }
            let child = make_node(&mut self.game, state);
            let scores = match &child.terminal {
                Some(goals) => goals.clone(),
                None => match self.playout(child.state.clone(), deadline) {
                    Some(scores) => scores,
                    None => return,
                },
            };
            self.nodes.push(child);
            let index = self.nodes.len() - 1;
            self.nodes[index].visits = 1;
            self.nodes[at].children.insert(joint, index);
            break scores;
        };
        for (node, joint) in path {
            let node = &mut self.nodes[node];
            node.visits += 1;
            for (role, &i) in joint.iter().enumerate() {
                let stats = &mut node.stats[role][i as usize];
                stats.visits += 1;
                stats.score += scores[role];
            }
        }
    }

    /// Every role's choice at node `at`: an untried move first (at random), else UCB1.
    fn select(&mut self, at: usize) -> Box<[u32]> {
        let node = &self.nodes[at];
        let log_n = f64::from(node.visits.max(1)).ln();
        node.stats
            .iter()
            .map(|stats| {
                let untried = stats.iter().filter(|s| s.visits == 0).count();
                if untried > 0 {
                    let k = self.rng.random_range(0..untried);
                    return stats
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.visits == 0)
                        .nth(k)
                        .map_or(0, |(i, _)| i as u32);
                }
                let mut best = 0;
                let mut best_value = f64::NEG_INFINITY;
                for (i, s) in stats.iter().enumerate() {
                    let n = f64::from(s.visits);
                    let value = s.score / n + EXPLORATION * (log_n / n).sqrt();
                    if value > best_value {
                        best_value = value;
                        best = i;
                    }
                }
                best as u32
            })
            .collect()
    }

    /// Scores of a random playout from `state` (a draw, ½ each, if it runs too long or a
    /// role has no move); `None` when the deadline passes first (read every 4 steps).
    fn playout(&mut self, mut state: G::State, deadline: Instant) -> Option<Vec<f64>> {
        let roles = self.game.num_roles();
        let mut steps = 0;
        loop {
            if steps == MAX_PLAYOUT_STEPS {
                return Some(if self.game.is_terminal(&state) {
                    goals(&mut self.game, &state)
                } else {
                    vec![0.5; roles]
                });
            }
            if steps % 4 == 3 && Instant::now() >= deadline {
                return None;
            }
            // One call per step: a ground reasoner evaluates the state once for its
            // terminal flag, every role's pick and the next state.
            match self.stepper.random_step(&mut self.game, &state) {
                RandomStep::Terminal => return Some(goals(&mut self.game, &state)),
                RandomStep::Next(next) => state = next,
                RandomStep::NoLegalMove(_) => return Some(vec![0.5; roles]),
            }
            steps += 1;
        }
    }
}

fn make_node<G: Game>(game: &mut G, state: G::State) -> Node<G> {
    let roles = game.num_roles();
    let terminal = game.is_terminal(&state);
    let mut moves = vec![Vec::new(); roles];
    if !terminal {
        for (role, out) in moves.iter_mut().enumerate() {
            game.legal_moves(&state, role, out);
        }
    }
    // A non-terminal state where a role has no legal move is a broken game: score it
    // by its goals, as a terminal state.
    let stuck = moves.iter().any(Vec::is_empty);
    let terminal = (terminal || stuck).then(|| goals(game, &state));
    let stats = moves
        .iter()
        .map(|m| vec![MoveStats::default(); m.len()])
        .collect();
    Node {
        state,
        terminal,
        moves,
        stats,
        visits: 0,
        children: FxHashMap::default(),
    }
}

/// Goal values scaled to 0..=1 (a role without a single goal value scores 0).
fn goals<G: Game>(game: &mut G, state: &G::State) -> Vec<f64> {
    (0..game.num_roles())
        .map(|role| f64::from(game.goal(state, role).unwrap_or(0)) / 100.0)
        .collect()
}

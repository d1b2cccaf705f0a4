//! Root-parallel search: one [`Mcts`] tree per thread, each on its own clone of the
//! reasoner, all rooted at the same state; a move is chosen by the visits of the root's
//! moves summed over the trees.
//!
//! Helper threads search whenever they have nothing else to do (so they also think
//! while the other roles do), and take two requests from the main thread: move the root
//! along the joint move played, and report the root's visit counts. Threads are scoped
//! ([`std::thread::scope`]), so a reasoner that borrows (gdlc's plan executor) can be
//! searched in parallel too.

use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use gdlc_runtime::game::{Game, RoleIndex};

use crate::mcts::Mcts;

/// How long a helper searches between two looks at its requests.
const SLICE: Duration = Duration::from_millis(5);

enum Request<M> {
    Advance(Vec<M>),
    Visits(RoleIndex, Sender<Vec<u32>>),
}

struct Helper<'scope, M> {
    requests: Sender<Request<M>>,
    thread: ScopedJoinHandle<'scope, ()>,
}

/// A search on `1 + helpers` threads.
pub struct ParallelSearch<'scope, G: Game> {
    main: Mcts<G>,
    helpers: Vec<Helper<'scope, G::Move>>,
}

impl<'scope, G> ParallelSearch<'scope, G>
where
    G: Game + Clone + Send + 'scope,
    G::Move: Send,
{
    /// A search from the initial state on `threads` threads (at least one: the caller's),
    /// helpers spawned in `scope`; `seed` fixes the main tree's random choices.
    pub fn new<'env>(
        scope: &'scope Scope<'scope, 'env>,
        mut game: G,
        threads: usize,
        seed: u64,
    ) -> Self {
        let helpers = (1..threads.max(1))
            .map(|i| {
                let (requests, inbox) = mpsc::channel();
                let helper_game = game.clone();
                let helper_seed = seed.wrapping_add(0x51ed_2705 * i as u64);
                let thread = scope.spawn(move || help(helper_game, helper_seed, inbox));
                Helper { requests, thread }
            })
            .collect();
        let initial = game.initial_state();
        ParallelSearch {
            main: Mcts::new(game, initial, seed),
            helpers,
        }
    }

    /// The main tree (its root's state, legal moves and reasoner).
    pub fn main(&mut self) -> &mut Mcts<G> {
        &mut self.main
    }

    /// Searches on the calling thread until `deadline` (the helpers search anyway);
    /// what the calling thread did.
    pub fn search_until(&mut self, deadline: Instant) -> crate::mcts::SearchReport {
        self.main.search_until(deadline, u64::MAX)
    }

    /// Moves every tree's root along the joint move played.
    pub fn advance(&mut self, joint: &[G::Move]) {
        self.main.advance(joint);
        for helper in &self.helpers {
            let _ = helper.requests.send(Request::Advance(joint.to_vec()));
        }
    }

    /// The move of `role` with the most visits over all trees.
    pub fn best_move(&mut self, role: RoleIndex) -> Option<G::Move> {
        let mut visits: Vec<u64> = self
            .main
            .root_visits(role)
            .into_iter()
            .map(u64::from)
            .collect();
        for helper in &self.helpers {
            let (reply, answer) = mpsc::channel();
            if helper.requests.send(Request::Visits(role, reply)).is_err() {
                continue;
            }
            // A helper's tree lists the root's moves in the same order (the reasoner's).
            if let Ok(counts) = answer.recv_timeout(Duration::from_millis(200))
                && counts.len() == visits.len()
            {
                for (total, n) in visits.iter_mut().zip(counts) {
                    *total += u64::from(n);
                }
            }
        }
        let moves = self.main.legal_moves(role);
        let best = (0..moves.len()).max_by(|&a, &b| visits[a].cmp(&visits[b]).then(b.cmp(&a)))?;
        if visits[best] == 0 {
            return self.main.best_move(role);
        }
        Some(moves[best])
    }

    /// Stops the helpers and waits for them; the search goes on on the calling thread
    /// alone (for when the cores are better used elsewhere).
    pub fn stop_helpers(&mut self) {
        for helper in self.helpers.drain(..) {
            drop(helper.requests);
            let _ = helper.thread.join();
        }
    }

    /// Stops the helpers and waits for them.
    pub fn finish(mut self) {
        self.stop_helpers();
    }
}

/// A helper thread: search, and answer requests, until the main thread hangs up.
fn help<G: Game>(game: G, seed: u64, inbox: Receiver<Request<G::Move>>) {
    let mut game = game;
    let initial = game.initial_state();
    let mut search = Mcts::new(game, initial, seed);
    loop {
        let request = if search.is_over() {
            match inbox.recv() {
                Ok(request) => request,
                Err(_) => return,
            }
        } else {
            match inbox.try_recv() {
                Ok(request) => request,
                Err(TryRecvError::Empty) => {
                    search.search_until(Instant::now() + SLICE, u64::MAX);
                    continue;
                }
                Err(TryRecvError::Disconnected) => return,
            }
        };
        match request {
            Request::Advance(joint) => search.advance(&joint),
            Request::Visits(role, reply) => {
                let _ = reply.send(search.root_visits(role));
            }
        }
    }
}

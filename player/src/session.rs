//! One match, played on its own thread: the thread builds the reasoner, then searches
//! (also while the other roles think) and answers the commands the protocol handler
//! sends it.
//!
//! The thread owns everything the reasoner borrows (gdlc's plan executor borrows the
//! analysed rules), so the reasoner never has to outlive it. Commands carry the instant
//! by which the answer is due; the thread searches until then and replies with the
//! move's KIF text.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use gdlc_runtime::game::{Game, RoleIndex};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::mcts::Mcts;
use crate::parallel::ParallelSearch;
use crate::reasoner::{ReasonerKind, Rules, Visitor};

/// How a player picks its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Monte Carlo tree search until the deadline.
    Mcts,
    /// A uniformly random legal move, at once.
    Random,
}

/// A request to the match thread.
pub enum Command {
    /// Apply the joint move (if any) and answer with a move by `deadline`.
    Play {
        /// The joint move just played, canonical KIF text per role; `None` at the start.
        moves: Option<Vec<String>>,
        /// When the reply must be sent.
        deadline: Instant,
        /// Where the reply goes: the move's KIF text, or why there is none.
        reply: Sender<Result<String, String>>,
    },
    /// The match is over (or aborted): stop the thread.
    Stop,
}

/// A running match thread.
pub struct Session {
    commands: Sender<Command>,
    thread: Option<JoinHandle<()>>,
    /// The reasoner the match is played on.
    pub reasoner: ReasonerKind,
}

impl Session {
    /// Starts a match thread for `role` in `rules`, searching on `threads` threads
    /// (with [`Strategy::Mcts`]), and waits until its reasoner is
    /// built (at most until `ready_by`; a reasoner still building then is waited for by
    /// the first move instead).
    pub fn start(
        rules: Rules,
        role: &str,
        strategy: Strategy,
        threads: usize,
        seed: u64,
        ready_by: Instant,
    ) -> Result<Session, String> {
        let (commands, inbox) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let role = role.to_owned();
        let preferred = rules.preferred();
        let thread = std::thread::Builder::new()
            .name(format!("match {role}"))
            .spawn(move || {
                let visitor = Play {
                    role,
                    strategy,
                    threads,
                    seed,
                    inbox,
                    ready: ready_tx.clone(),
                };
                if let Err(message) = rules.with_reasoner(visitor) {
                    let _ = ready_tx.send(Err(message));
                }
            })
            .map_err(|e| format!("cannot start the match thread: {e}"))?;
        let wait = ready_by.saturating_duration_since(Instant::now());
        let reasoner = match ready_rx.recv_timeout(wait) {
            Ok(Ok(kind)) => kind,
            Ok(Err(message)) => {
                let _ = thread.join();
                return Err(message);
            }
            Err(_) => preferred,
        };
        Ok(Session {
            commands,
            thread: Some(thread),
            reasoner,
        })
    }

    /// Sends the joint move and waits for the thread's move, at most until `deadline`
    /// plus a little (the thread itself stops searching before it).
    pub fn play(&self, moves: Option<Vec<String>>, deadline: Instant) -> Result<String, String> {
        let (reply, answer) = mpsc::channel();
        self.commands
            .send(Command::Play {
                moves,
                deadline,
                reply,
            })
            .map_err(|_| "the match thread has stopped".to_owned())?;
        let wait = deadline.saturating_duration_since(Instant::now()) + Duration::from_millis(500);
        match answer.recv_timeout(wait) {
            Ok(result) => result,
            Err(RecvTimeoutError::Timeout) => Err("no move in time".to_owned()),
            Err(RecvTimeoutError::Disconnected) => Err("the match thread has stopped".to_owned()),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The match thread's body, generic over the reasoner.
struct Play {
    role: String,
    strategy: Strategy,
    threads: usize,
    seed: u64,
    inbox: Receiver<Command>,
    ready: Sender<Result<ReasonerKind, String>>,
}

/// How long one slice of thinking between two looks at the inbox lasts.
const PONDER_SLICE: Duration = Duration::from_millis(20);

impl Visitor for Play {
    type Output = ();

    fn visit<G>(self, kind: ReasonerKind, game: G)
    where
        G: Game + Clone + Send,
        G::Move: Send,
    {
        let Some(role) = game.role_index(&self.role) else {
            let _ = self
                .ready
                .send(Err(format!("the game has no role `{}`", self.role)));
            return;
        };
        let _ = self.ready.send(Ok(kind));
        let threads = match self.strategy {
            Strategy::Mcts => self.threads,
            Strategy::Random => 1,
        };
        std::thread::scope(|scope| {
            let mut search = ParallelSearch::new(scope, game, threads, self.seed);
            let mut rng = Pcg64Mcg::seed_from_u64(self.seed);
            loop {
                let command = if self.strategy == Strategy::Mcts && !search.main().is_over() {
                    match self.inbox.try_recv() {
                        Ok(command) => command,
                        Err(mpsc::TryRecvError::Empty) => {
                            search.search_until(Instant::now() + PONDER_SLICE);
                            continue;
                        }
                        Err(mpsc::TryRecvError::Disconnected) => break,
                    }
                } else {
                    match self.inbox.recv() {
                        Ok(command) => command,
                        Err(_) => break,
                    }
                };
                match command {
                    Command::Stop => break,
                    Command::Play {
                        moves,
                        deadline,
                        reply,
                    } => {
                        let answer =
                            respond(&mut search, role, self.strategy, moves, deadline, &mut rng);
                        let _ = reply.send(answer);
                    }
                }
            }
            search.finish();
        });
    }
}

/// Applies the joint move, then finds this role's move.
fn respond<'scope, G>(
    search: &mut ParallelSearch<'scope, G>,
    role: RoleIndex,
    strategy: Strategy,
    moves: Option<Vec<String>>,
    deadline: Instant,
    rng: &mut Pcg64Mcg,
) -> Result<String, String>
where
    G: Game + Clone + Send + 'scope,
    G::Move: Send,
{
    if let Some(texts) = moves {
        let joint = read_joint(search.main(), &texts)?;
        search.advance(&joint);
    }
    if search.main().is_over() {
        return Err("the game is over".to_owned());
    }
    let chosen = match strategy {
        Strategy::Mcts => {
            search.search_until(deadline);
            search.best_move(role)
        }
        Strategy::Random => {
            let moves = search.main().legal_moves(role);
            (!moves.is_empty()).then(|| moves[rng.random_range(0..moves.len())])
        }
    };
    let chosen = chosen.ok_or("this role has no legal move")?;
    Ok(search.main().game().move_to_kif(chosen))
}

/// The joint move named by `texts`, checked legal in the root's state.
fn read_joint<G: Game>(search: &mut Mcts<G>, texts: &[String]) -> Result<Vec<G::Move>, String> {
    let roles = search.game().num_roles();
    if texts.len() != roles {
        return Err(format!(
            "expected {roles} moves (one per role), got {}",
            texts.len()
        ));
    }
    let state = search.state().clone();
    texts
        .iter()
        .enumerate()
        .map(|(role, text)| {
            search
                .game()
                .legal_move_from_kif(&state, role, text)
                .map_err(|e| e.to_string())
        })
        .collect()
}

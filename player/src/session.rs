//! One match, played on its own thread: the thread builds the reasoner, then searches
//! (also while the other roles think) and answers the commands the protocol handler
//! sends it.
//!
//! The thread owns everything the reasoner borrows (gdlc's plan executor borrows the
//! analysed rules), so the reasoner never has to outlive it. Commands carry the instant
//! by which the answer is due; the thread searches until then and replies with the
//! move's KIF text.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use gdlc_runtime::game::{Game, RoleIndex};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::belief::Belief;
use crate::mcts::Mcts;
use crate::native::{self, Built, Worker};
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

/// How a match thread plays.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// How moves are picked.
    pub strategy: Strategy,
    /// Search threads.
    pub threads: usize,
    /// Seeds the search.
    pub seed: u64,
    /// Compile rules that are not built in on the fly, under this cache directory
    /// (see [`crate::native`]); `None`: never.
    pub native_cache: Option<PathBuf>,
    /// Name for progress lines on standard error (`None`: silent).
    pub log: Option<String>,
}

/// What a `play` message tells the player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum View {
    /// The joint move just played, canonical KIF text per role (GDL); `None` at the
    /// start.
    Moves(Option<Vec<String>>),
    /// GDL-II: only this role's own last move (`None` at the start) and what it saw.
    Percepts {
        /// This role's last move.
        own_move: Option<String>,
        /// Its percepts, canonical KIF text.
        percepts: Vec<String>,
    },
}

/// A request to the match thread.
pub enum Command {
    /// Apply the joint move (if any) and answer with a move by `deadline`.
    Play {
        /// What the player learns.
        view: View,
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
    /// Starts a match thread for `role` in `rules` and waits until its reasoner is built
    /// (at most until `ready_by`; a reasoner still building then is waited for by the
    /// first move instead). With a native cache and rules that are not built in, a
    /// native reasoner is compiled meanwhile, and the search moves to it (between two
    /// moves) once it is ready.
    pub fn start(
        rules: Rules,
        role: &str,
        options: SessionOptions,
        ready_by: Instant,
    ) -> Result<Session, String> {
        let (commands, inbox) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let role = role.to_owned();
        let preferred = rules.preferred();
        let native = match (&options.native_cache, preferred, options.strategy) {
            (Some(cache), ReasonerKind::PlanExecutor, Strategy::Mcts) => Some(
                compile_in_background(&rules, cache.clone(), options.threads),
            ),
            _ => None,
        };
        let thread = std::thread::Builder::new()
            .name(format!("match {role}"))
            .spawn(move || {
                let visitor = Play {
                    role,
                    options,
                    native,
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

    /// Sends what the player learnt and waits for the thread's move, which is due by
    /// `deadline`; gives up at `hard_limit` (after `deadline`, before the clock ends).
    pub fn play(
        &self,
        view: View,
        deadline: Instant,
        hard_limit: Instant,
    ) -> Result<String, String> {
        let (reply, answer) = mpsc::channel();
        self.commands
            .send(Command::Play {
                view,
                deadline,
                reply,
            })
            .map_err(|_| "the match thread has stopped".to_owned())?;
        let wait = hard_limit
            .max(deadline)
            .saturating_duration_since(Instant::now());
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

/// A native worker once it is built and started, with its build times.
type NativeWorker = Result<(Worker, Built), String>;

/// Compiles `rules` to a native worker on a thread of its own.
fn compile_in_background(rules: &Rules, cache: PathBuf, threads: usize) -> Receiver<NativeWorker> {
    let (send, receive) = mpsc::channel();
    let text = rules.text().to_owned();
    let fingerprint = rules.fingerprint();
    std::thread::spawn(move || {
        let worker = native::build(&text, fingerprint, &cache)
            .and_then(|built| Worker::spawn(&built.binary, threads).map(|w| (w, built)));
        let _ = send.send(worker);
    });
    receive
}

/// The match thread's body, generic over the reasoner.
struct Play {
    role: String,
    options: SessionOptions,
    native: Option<Receiver<NativeWorker>>,
    inbox: Receiver<Command>,
    ready: Sender<Result<ReasonerKind, String>>,
}

impl Play {
    fn say(&self, line: &str) {
        if let Some(name) = &self.options.log {
            eprintln!("{name}: {line}");
        }
    }

    /// Takes the native worker if it has just become ready, bringing it to the current
    /// state by replaying the joint moves played so far.
    fn poll_native(&mut self, history: &[Vec<String>]) -> Option<Worker> {
        let outcome = self.native.as_ref()?.try_recv().ok()?;
        self.native = None;
        let replayed = outcome.and_then(|(mut worker, built)| {
            for joint in history {
                worker.advance(joint)?;
            }
            Ok((worker, built))
        });
        match replayed {
            Ok((worker, built)) => {
                self.say(&format!(
                    "compiled natively (gdlc {:.1} s, cargo {:.1} s): searching in the worker",
                    built.gdlc.as_secs_f64(),
                    built.cargo.as_secs_f64()
                ));
                Some(worker)
            }
            Err(why) => {
                self.say(&format!("no native reasoner: {why}"));
                None
            }
        }
    }
}

/// How long one slice of thinking between two looks at the inbox lasts.
const PONDER_SLICE: Duration = Duration::from_millis(20);

impl Visitor for Play {
    type Output = ();

    fn visit<G>(mut self, kind: ReasonerKind, game: G)
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
        let strategy = self.options.strategy;
        let threads = match strategy {
            Strategy::Mcts => self.options.threads,
            Strategy::Random => 1,
        };
        let seed = self.options.seed;
        std::thread::scope(|scope| {
            let mut search = ParallelSearch::new(scope, game, threads, seed);
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let mut worker: Option<Worker> = None;
            let mut history: Vec<Vec<String>> = Vec::new();
            // GDL-II: the reasoner the belief works on, and the belief.
            let mut percept_game: Option<G> = None;
            let mut belief: Option<Belief<G>> = None;
            loop {
                if worker.is_none() {
                    worker = self.poll_native(&history);
                    if worker.is_some() {
                        // The worker searches on every core now.
                        search.stop_helpers();
                    }
                }
                let ponder =
                    strategy == Strategy::Mcts && !search.main().is_over() && belief.is_none();
                let command = if ponder && worker.is_none() {
                    match self.inbox.try_recv() {
                        Ok(command) => command,
                        Err(mpsc::TryRecvError::Empty) => {
                            search.search_until(Instant::now() + PONDER_SLICE);
                            continue;
                        }
                        Err(mpsc::TryRecvError::Disconnected) => break,
                    }
                } else {
                    match self.inbox.recv_timeout(PONDER_SLICE) {
                        Ok(command) => command,
                        Err(RecvTimeoutError::Timeout) => continue,
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                };
                match command {
                    Command::Stop => break,
                    Command::Play {
                        view: View::Percepts { own_move, percepts },
                        deadline,
                        reply,
                    } => {
                        if percept_game.is_none() {
                            // The belief searches on this thread; the trees of the
                            // initial state are of no use.
                            search.stop_helpers();
                        }
                        let game = percept_game.get_or_insert_with(|| search.main().game().clone());
                        let belief = belief.get_or_insert_with(|| Belief::new(game, role, seed));
                        if let Some(own) = own_move
                            && let Err(why) = belief.update(game, &own, &percepts)
                        {
                            self.say(&why);
                        }
                        let chosen = match strategy {
                            Strategy::Mcts => belief.choose(game, deadline),
                            Strategy::Random => belief.random_move(game),
                        };
                        let answer = chosen
                            .map(|m| game.move_to_kif(m))
                            .ok_or_else(|| "this role has no legal move".to_owned());
                        let _ = reply.send(answer);
                    }
                    Command::Play {
                        view: View::Moves(moves),
                        deadline,
                        reply,
                    } => {
                        let mut turn = Turn {
                            search: &mut search,
                            worker: &mut worker,
                            history: &mut history,
                            rng: &mut rng,
                        };
                        let answer = turn.respond(role, strategy, moves, deadline);
                        if let Ok((_, notes)) = &answer {
                            for note in notes {
                                self.say(note);
                            }
                        }
                        let _ = reply.send(answer.map(|(text, _)| text));
                    }
                }
            }
            search.finish();
        });
    }
}

/// What one `play` command works on.
struct Turn<'a, 'scope, G: Game> {
    search: &'a mut ParallelSearch<'scope, G>,
    worker: &'a mut Option<Worker>,
    history: &'a mut Vec<Vec<String>>,
    rng: &'a mut Pcg64Mcg,
}

impl<'scope, G> Turn<'_, 'scope, G>
where
    G: Game + Clone + Send + 'scope,
    G::Move: Send,
{
    /// Applies the joint move, then finds this role's move: in the native worker when
    /// there is one (dropping it if it fails), else in the local search. The second
    /// element holds lines for the log: why the worker was dropped, and how many
    /// playouts the search's main thread ran and how fast.
    fn respond(
        &mut self,
        role: RoleIndex,
        strategy: Strategy,
        moves: Option<Vec<String>>,
        deadline: Instant,
    ) -> Result<(String, Vec<String>), String> {
        let mut notes = Vec::new();
        let dropped = |why: String| format!("native worker dropped: {why}");
        if let Some(texts) = moves {
            let joint = read_joint(self.search.main(), &texts)?;
            self.search.advance(&joint);
            if let Some(worker) = self.worker.as_mut()
                && let Err(why) = worker.advance(&texts)
            {
                notes.push(dropped(why));
                *self.worker = None;
            }
            self.history.push(texts);
        }
        if self.search.main().is_over() {
            return Err("the game is over".to_owned());
        }
        if strategy == Strategy::Mcts
            && let Some(worker) = self.worker.as_mut()
        {
            // The worker searches for most of the time left and must answer by the
            // deadline; if it does not, the local search answers at once.
            let left = deadline.saturating_duration_since(Instant::now());
            let budget = left.mul_f64(0.85).saturating_sub(Duration::from_millis(10));
            let started = Instant::now();
            match worker.think(budget, left, role) {
                Ok((text, iterations)) => {
                    notes.push(searched("natively", iterations, started.elapsed()));
                    return Ok((text, notes));
                }
                Err(why) => {
                    notes.push(dropped(why));
                    *self.worker = None;
                }
            }
        }
        let chosen = match strategy {
            Strategy::Mcts => {
                let started = Instant::now();
                let report = self.search.search_until(deadline);
                notes.push(searched("here", report.iterations, started.elapsed()));
                self.search.best_move(role)
            }
            Strategy::Random => {
                let moves = self.search.main().legal_moves(role);
                (!moves.is_empty()).then(|| moves[self.rng.random_range(0..moves.len())])
            }
        };
        let chosen = chosen.ok_or("this role has no legal move")?;
        Ok((self.search.main().game().move_to_kif(chosen), notes))
    }
}

/// The log line of one move's search: `iterations` (each a playout or a terminal node)
/// on the search's main thread in `took`.
fn searched(place: &str, iterations: u64, took: Duration) -> String {
    let seconds = took.as_secs_f64();
    format!(
        "searched {place}: {iterations} playouts in {seconds:.2} s on the main thread ({:.0}/s)",
        iterations as f64 / seconds.max(1e-9)
    )
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

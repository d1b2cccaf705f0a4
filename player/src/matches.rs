//! Local matches: a game manager that speaks the protocol over loopback HTTP to players
//! it starts itself (`mcts`, `random`) or that already run elsewhere (`HOST:PORT`).
//!
//! Like ggp-base's server, the manager sends `start` to every player, then `play` to
//! all of them at once each turn (with the last joint move, `nil` on the first), checks
//! each reply against the rules, replaces a move that is late, missing or illegal by a
//! random legal one (and records the fault), and ends with `stop`. With
//! [`MatchSettings::percepts`] it speaks GDL-II instead: each player is told only its
//! own last move and what it saw.

use std::thread;
use std::time::{Duration, Instant};

use gdlc_runtime::game::Game;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::client;
use crate::protocol::Request;
use crate::reasoner::{ReasonerKind, Rules, Visitor};
use crate::server::{Player, Server};
use crate::session::Strategy;

/// Time a reply may take beyond its clock before it counts as missing.
const GRACE: Duration = Duration::from_millis(500);

/// Who plays a role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contestant {
    /// A player of this binary, started for the match on a free loopback port.
    Local(Strategy),
    /// A player already listening at `HOST:PORT`.
    Remote(String),
}

impl Contestant {
    /// Reads `mcts`, `random` or `HOST:PORT`.
    pub fn parse(text: &str) -> Result<Contestant, String> {
        match text {
            "mcts" => Ok(Contestant::Local(Strategy::Mcts)),
            "random" => Ok(Contestant::Local(Strategy::Random)),
            other if other.contains(':') => Ok(Contestant::Remote(other.to_owned())),
            other => Err(format!(
                "unknown player `{other}` (expected mcts, random or HOST:PORT)"
            )),
        }
    }

    /// A short name for reports.
    pub fn label(&self) -> String {
        match self {
            Contestant::Local(Strategy::Mcts) => "mcts".to_owned(),
            Contestant::Local(Strategy::Random) => "random".to_owned(),
            Contestant::Remote(address) => address.clone(),
        }
    }
}

/// The settings of one match.
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// The rules' KIF text, as sent to the players.
    pub rules: String,
    /// One player per role, in role order.
    pub players: Vec<Contestant>,
    /// The start clock.
    pub start_clock: Duration,
    /// The play clock.
    pub play_clock: Duration,
    /// Seeds the local players and the manager's replacement moves.
    pub seed: u64,
    /// Search threads of each local MCTS player.
    pub threads: usize,
    /// Send GDL-II messages: each player learns only its own last move and its
    /// percepts (`(play M TURN MOVE PERCEPTS)`), not the joint move.
    pub percepts: bool,
    /// Where local MCTS players compile rules on the fly (`None`: they do not).
    pub native_cache: Option<std::path::PathBuf>,
}

/// How one match went.
#[derive(Clone, Debug)]
pub struct MatchOutcome {
    /// The roles' names, in role order.
    pub roles: Vec<String>,
    /// The final goal values, in role order.
    pub goals: Vec<u8>,
    /// Joint moves played.
    pub steps: usize,
    /// Faults, each naming the role: late, missing or illegal moves, refused messages.
    pub faults: Vec<String>,
    /// The reasoner the manager checked the moves with.
    pub reasoner: ReasonerKind,
}

/// Plays one match.
pub fn play_match(settings: &MatchSettings, match_id: &str) -> Result<MatchOutcome, String> {
    let rules = Rules::parse(match_id, &settings.rules)?;
    rules.with_reasoner(Manager { settings, match_id })?
}

struct Manager<'a> {
    settings: &'a MatchSettings,
    match_id: &'a str,
}

impl Visitor for Manager<'_> {
    type Output = Result<MatchOutcome, String>;

    fn visit<G>(self, reasoner: ReasonerKind, mut game: G) -> Self::Output
    where
        G: Game + Clone + Send,
        G::Move: Send,
    {
        let settings = self.settings;
        let roles: Vec<String> = (0..game.num_roles())
            .map(|r| game.role_name(r).to_owned())
            .collect();
        if settings.players.len() != roles.len() {
            return Err(format!(
                "the game has {} roles ({}) but {} players were given",
                roles.len(),
                roles.join(", "),
                settings.players.len()
            ));
        }
        let Players { addresses, servers } = self.start_players(&roles)?;
        let mut table = Table {
            seen: vec![Vec::new(); roles.len()],
            roles,
            addresses,
            faults: Vec::new(),
            steps: 0,
            last: None,
        };
        self.send_start(&mut table);
        let mut rng = Pcg64Mcg::seed_from_u64(settings.seed);
        let mut state = game.initial_state();
        let mut legal = Vec::new();
        let mut percepts = Vec::new();
        while !game.is_terminal(&state) {
            let joint = self.joint_move(&mut game, &state, &mut table, &mut rng, &mut legal)?;
            table.last = Some(joint.iter().map(|&m| game.move_to_kif(m)).collect());
            for (role, texts) in table.seen.iter_mut().enumerate() {
                game.sees(&state, &joint, role, &mut percepts);
                *texts = percepts.iter().map(|&p| game.percept_to_kif(p)).collect();
            }
            state = game.next_state(&state, &joint);
            table.steps += 1;
        }
        let stop = |role: usize| self.message(&table, role, true);
        let replies = broadcast(&table.addresses, settings.play_clock + GRACE, stop);
        for (role, reply) in replies.into_iter().enumerate() {
            if let Err(why) = reply {
                table
                    .faults
                    .push(format!("{}: stop: {why}", table.roles[role]));
            }
        }
        for server in servers {
            let _ = server.join();
        }
        let goals = (0..table.roles.len())
            .map(|role| game.goal(&state, role).unwrap_or(0))
            .collect();
        Ok(MatchOutcome {
            roles: table.roles,
            goals,
            steps: table.steps,
            faults: table.faults,
            reasoner,
        })
    }
}

/// A match in play, as the manager sees it.
struct Table {
    /// The roles' names, in role order.
    roles: Vec<String>,
    /// Where each role's player listens; `None`: the role `random` of GDL-II, which the
    /// manager plays itself (uniformly random legal moves), as ggp-base's server does.
    addresses: Vec<Option<String>>,
    /// Faults so far (see [`MatchOutcome::faults`]).
    faults: Vec<String>,
    /// Joint moves played.
    steps: usize,
    /// The last joint move's texts, `None` before the first.
    last: Option<Vec<String>>,
    /// Per role, the texts of what it saw on the last joint move.
    seen: Vec<Vec<String>>,
}

/// The players of a match.
struct Players {
    /// Where each role's player listens (see [`Table::addresses`]).
    addresses: Vec<Option<String>>,
    /// The threads of the players started for the match.
    servers: Vec<thread::JoinHandle<()>>,
}

impl Manager<'_> {
    /// Starts the local players, each on a free loopback port.
    fn start_players(&self, roles: &[String]) -> Result<Players, String> {
        let settings = self.settings;
        let mut servers = Vec::new();
        let mut addresses: Vec<Option<String>> = Vec::new();
        for (i, contestant) in settings.players.iter().enumerate() {
            if roles[i] == "random" {
                if *contestant != Contestant::Local(Strategy::Random) {
                    return Err(
                        "the role `random` is played by the manager: give `random` for it"
                            .to_owned(),
                    );
                }
                addresses.push(None);
                continue;
            }
            match contestant {
                Contestant::Local(strategy) => {
                    let server = Server::bind("127.0.0.1:0")?;
                    addresses.push(Some(format!("127.0.0.1:{}", server.port())));
                    let mut player =
                        Player::new(*strategy, settings.seed.wrapping_add(i as u64 * 7919), None)
                            .with_threads(settings.threads);
                    if let Some(cache) = &settings.native_cache {
                        player = player.with_native_cache(cache.clone());
                    }
                    servers.push(thread::spawn(move || server.run(player, true)));
                }
                Contestant::Remote(address) => addresses.push(Some(address.clone())),
            }
        }
        Ok(Players { addresses, servers })
    }

    /// Sends `start` to every player, recording a reply other than `ready` as a fault.
    fn send_start(&self, table: &mut Table) {
        let settings = self.settings;
        let start = Request::Start {
            match_id: self.match_id.to_owned(),
            role: String::new(),
            rules: without_comments(&settings.rules),
            start_clock: settings.start_clock,
            play_clock: settings.play_clock,
        };
        let replies = broadcast(&table.addresses, settings.start_clock + GRACE, |role| {
            let mut start = start.clone();
            if let Request::Start { role: r, .. } = &mut start {
                r.clone_from(&table.roles[role]);
            }
            start.to_kif()
        });
        for (role, reply) in replies.iter().enumerate() {
            let name = &table.roles[role];
            match reply {
                _ if table.addresses[role].is_none() => {}
                Ok(text) if text.eq_ignore_ascii_case("ready") => {}
                Ok(text) => table
                    .faults
                    .push(format!("{name}: replied `{text}` to start")),
                Err(why) => table.faults.push(format!("{name}: {why}")),
            }
        }
    }

    /// The message to a role's player for the next turn (`play`), or at the end
    /// (`stop`): with the last joint move, or in GDL-II only its own move and
    /// percepts.
    fn message(&self, table: &Table, role: usize, stop: bool) -> String {
        if self.settings.percepts {
            Request::Percepts {
                match_id: self.match_id.to_owned(),
                stop,
                turn: table.steps as u64,
                own_move: table.last.as_ref().map(|joint| joint[role].clone()),
                percepts: table.seen[role].clone(),
            }
            .to_kif()
        } else if stop {
            Request::Stop {
                match_id: self.match_id.to_owned(),
                moves: table.last.clone(),
            }
            .to_kif()
        } else {
            Request::Play {
                match_id: self.match_id.to_owned(),
                moves: table.last.clone(),
            }
            .to_kif()
        }
    }

    /// Asks every player for its move in `state` and checks the replies: a move
    /// that is late, missing or illegal is recorded as a fault and replaced by a
    /// random legal one, as is the role `random`'s.
    fn joint_move<G: Game>(
        &self,
        game: &mut G,
        state: &G::State,
        table: &mut Table,
        rng: &mut Pcg64Mcg,
        legal: &mut Vec<G::Move>,
    ) -> Result<Vec<G::Move>, String> {
        let play_clock = self.settings.play_clock;
        let asked = Instant::now();
        let replies = broadcast(&table.addresses, play_clock + GRACE, |role| {
            self.message(table, role, false)
        });
        let mut joint = Vec::new();
        for (role, reply) in replies.into_iter().enumerate() {
            if table.addresses[role].is_none() {
                joint.push(random_move(game, state, role, table, rng, legal)?);
                continue;
            }
            let chosen = match reply {
                Ok(text) => game
                    .legal_move_from_kif(state, role, &text)
                    .map_err(|e| e.to_string()),
                Err(why) => Err(why),
            };
            let late = asked.elapsed() > play_clock + GRACE;
            let mv = match chosen {
                Ok(mv) if !late => mv,
                outcome => {
                    let why = match outcome {
                        Err(why) => why,
                        Ok(_) => "late".to_owned(),
                    };
                    table.faults.push(format!(
                        "{} at step {}: {why}",
                        table.roles[role], table.steps
                    ));
                    random_move(game, state, role, table, rng, legal)?
                }
            };
            joint.push(mv);
        }
        Ok(joint)
    }
}

/// A uniformly random legal move of `role` in `state`, or why there is none.
fn random_move<G: Game>(
    game: &mut G,
    state: &G::State,
    role: usize,
    table: &Table,
    rng: &mut Pcg64Mcg,
    legal: &mut Vec<G::Move>,
) -> Result<G::Move, String> {
    game.legal_moves(state, role, legal);
    if legal.is_empty() {
        return Err(format!(
            "{} has no legal move at step {}",
            table.roles[role], table.steps
        ));
    }
    Ok(legal[rng.random_range(0..legal.len())])
}

/// Sends one message per address at once (`message(i)` for the i-th) and gathers the
/// replies in order (an empty reply for a role without an address).
fn broadcast(
    addresses: &[Option<String>],
    timeout: Duration,
    message: impl Fn(usize) -> String,
) -> Vec<Result<String, String>> {
    thread::scope(|scope| {
        let handles: Vec<_> = addresses
            .iter()
            .enumerate()
            .map(|(i, address)| {
                let text = message(i);
                scope.spawn(move || match address {
                    Some(address) => client::post(address, &text, timeout),
                    None => Ok(String::new()),
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("the sender panicked".to_owned()))
            })
            .collect()
    })
}

/// The rules without `;` comments, one line each as written (as ggp-base sends them).
fn without_comments(rules: &str) -> String {
    rules
        .lines()
        .map(|line| line.split(';').next().unwrap_or("").trim_end())
        .filter(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

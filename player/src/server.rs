//! The player's side of the GGP protocol: [`Player`] answers requests (one match at a
//! time) and [`Server`] puts it behind HTTP, as ggp-base's game server and the
//! browser-based ones expect (POST with the message as body, or GET with it as the
//! URL's path; CORS headers; `text/acl` replies).

use std::net::ToSocketAddrs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::protocol::{self, Request};
use crate::reasoner::Rules;
use crate::session::{Session, SessionOptions, Strategy, View};

/// The name the player gives in `(info)` replies.
pub const NAME: &str = "gdlc";

/// Time kept back from every clock for the reply to travel.
pub fn safety_margin(clock: Duration) -> Duration {
    let margin = (clock / 10).clamp(Duration::from_millis(150), Duration::from_secs(1));
    margin.min(clock / 2)
}

/// When a move is due from the search (the clock less the margin), and when the
/// protocol handler stops waiting for it (two thirds of the margin later).
fn deadlines(received: Instant, clock: Duration) -> (Instant, Instant) {
    let margin = safety_margin(clock);
    (
        received + clock.saturating_sub(margin),
        received + clock.saturating_sub(margin / 3),
    )
}

/// A player: the protocol's state machine over one match at a time.
pub struct Player {
    strategy: Strategy,
    threads: usize,
    native_cache: Option<PathBuf>,
    seed: u64,
    current: Option<(String, Session, Duration)>,
    /// Where progress lines go (`None`: nowhere).
    log: Option<String>,
}

impl Player {
    /// A player using `strategy`; `seed` fixes its random choices. `log` names it in
    /// the lines it prints on standard error (`None`: it prints nothing).
    pub fn new(strategy: Strategy, seed: u64, log: Option<String>) -> Player {
        Player {
            strategy,
            threads: 1,
            native_cache: None,
            seed,
            current: None,
            log,
        }
    }

    /// Searches on `threads` threads (one tree each; at least one).
    pub fn with_threads(mut self, threads: usize) -> Player {
        self.threads = threads.max(1);
        self
    }

    /// Compiles rules that are not built in on the fly, under `cache` (see
    /// [`crate::native`]), and searches in the native worker once it is ready.
    pub fn with_native_cache(mut self, cache: PathBuf) -> Player {
        self.native_cache = Some(cache);
        self
    }

    fn say(&self, line: &str) {
        if let Some(name) = &self.log {
            eprintln!("{name}: {line}");
        }
    }

    /// The reply to one message received at `received`: `Err` for a message that is
    /// not a request or that the player cannot take (invalid rules, an unknown role, a
    /// move the rules reject). A `play`, `stop` or `abort` about a match this player
    /// does not play gets `busy`, as ggp-base's player answers.
    pub fn handle(&mut self, text: &str, received: Instant) -> Result<String, String> {
        let request = protocol::parse(text).map_err(|e| e.to_string())?;
        if let Some(id) = request.match_id()
            && !matches!(request, Request::Start { .. })
            && self.session(id).is_none()
        {
            self.say(&format!("busy: no match `{id}` is being played here"));
            return Ok("busy".to_owned());
        }
        match request {
            Request::Info => Ok(protocol::info_reply(NAME, self.current.is_some())),
            Request::Preview => Ok("ready".to_owned()),
            Request::Start {
                match_id,
                role,
                rules,
                start_clock,
                play_clock,
            } => {
                if self.current.is_some() {
                    return Ok("busy".to_owned());
                }
                let rules = Rules::parse(&match_id, &rules)?;
                let ready_by = received + start_clock.saturating_sub(safety_margin(start_clock));
                self.seed = self.seed.wrapping_add(1);
                let options = SessionOptions {
                    strategy: self.strategy,
                    threads: self.threads,
                    seed: self.seed,
                    native_cache: self.native_cache.clone(),
                    log: self
                        .log
                        .as_ref()
                        .map(|name| format!("{name}: match {match_id}")),
                };
                let session = Session::start(rules, &role, options, ready_by)?;
                self.say(&format!(
                    "match {match_id}: playing `{role}` on {}, {} thread(s)",
                    session.reasoner, self.threads
                ));
                self.current = Some((match_id, session, play_clock));
                Ok("ready".to_owned())
            }
            Request::Play { match_id, moves } => {
                let (session, clock) = self.session(&match_id).ok_or("no such match")?;
                let (deadline, hard_limit) = deadlines(received, clock);
                session.play(View::Moves(moves), deadline, hard_limit)
            }
            Request::Percepts {
                match_id,
                stop: false,
                own_move,
                percepts,
                ..
            } => {
                let (session, clock) = self.session(&match_id).ok_or("no such match")?;
                let (deadline, hard_limit) = deadlines(received, clock);
                session.play(View::Percepts { own_move, percepts }, deadline, hard_limit)
            }
            Request::Stop { match_id, .. }
            | Request::Percepts {
                match_id,
                stop: true,
                ..
            } => {
                self.current = None;
                self.say(&format!("match {match_id}: over"));
                Ok("done".to_owned())
            }
            Request::Abort { match_id } => {
                self.current = None;
                self.say(&format!("match {match_id}: aborted"));
                Ok("aborted".to_owned())
            }
        }
    }

    fn session(&self, match_id: &str) -> Option<(&Session, Duration)> {
        match &self.current {
            Some((id, session, clock)) if id == match_id => Some((session, *clock)),
            _ => None,
        }
    }
}

/// The headers of every reply, as ggp-base's player writes them.
fn headers() -> Vec<tiny_http::Header> {
    [
        ("Content-Type", "text/acl"),
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Methods", "POST, GET, OPTIONS"),
        ("Access-Control-Allow-Headers", "Content-Type"),
        ("Access-Control-Allow-Age", "86400"),
    ]
    .into_iter()
    .filter_map(|(name, value)| tiny_http::Header::from_bytes(name, value).ok())
    .collect()
}

/// A bound HTTP server for a player.
pub struct Server {
    http: tiny_http::Server,
}

impl Server {
    /// Binds to `address` (port 0: any free port).
    pub fn bind(address: impl ToSocketAddrs) -> Result<Server, String> {
        let address = address
            .to_socket_addrs()
            .map_err(|e| e.to_string())?
            .next()
            .ok_or("no address to listen on")?;
        let http = tiny_http::Server::http(address)
            .map_err(|e| format!("cannot listen on {address}: {e}"))?;
        Ok(Server { http })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.http.server_addr().to_ip().map_or(0, |a| a.port())
    }

    /// Answers requests with `player` until the process ends (or, when `until_stop`,
    /// until the first `stop` or `abort`).
    pub fn run(self, mut player: Player, until_stop: bool) {
        for mut request in self.http.incoming_requests() {
            let received = Instant::now();
            let response = |status: u16, body: String| {
                let mut reply = tiny_http::Response::from_string(body).with_status_code(status);
                for header in headers() {
                    reply.add_header(header);
                }
                reply
            };
            let message = match request.method() {
                tiny_http::Method::Options => {
                    let _ = request.respond(response(200, String::new()));
                    continue;
                }
                tiny_http::Method::Get => Ok(url_decode(request.url().trim_start_matches('/'))),
                _ => {
                    let mut body = String::new();
                    request
                        .as_reader()
                        .read_to_string(&mut body)
                        .map(|_| body)
                        .map_err(|e| format!("cannot read the request: {e}"))
                }
            };
            let ends = message.as_deref().is_ok_and(|text| {
                matches!(
                    protocol::parse(text),
                    Ok(Request::Stop { .. }
                        | Request::Abort { .. }
                        | Request::Percepts { stop: true, .. })
                )
            });
            let reply = message.and_then(|text| player.handle(&text, received));
            let over = until_stop && ends;
            let _ = match reply {
                Ok(body) => request.respond(response(200, body)),
                Err(why) => {
                    player.say(&format!("refused: {why}"));
                    request.respond(response(400, why))
                }
            };
            if over {
                return;
            }
        }
    }
}

/// Decodes `%XX` escapes and `+` (a GET request's message in the URL).
fn url_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit() =>
            {
                let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
                out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
                i += 3;
                continue;
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_decoded() {
        assert_eq!(url_decode("(info)"), "(info)");
        assert_eq!(url_decode("%28play%20m1%20nil%29"), "(play m1 nil)");
        assert_eq!(url_decode("a+b%2"), "a b%2");
    }

    #[test]
    fn margins_leave_time_to_search() {
        assert_eq!(
            safety_margin(Duration::from_secs(1)),
            Duration::from_millis(150)
        );
        assert_eq!(
            safety_margin(Duration::from_secs(60)),
            Duration::from_secs(1)
        );
        assert_eq!(
            safety_margin(Duration::from_millis(200)),
            Duration::from_millis(100)
        );
    }
}

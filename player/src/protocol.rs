//! The GGP protocol's messages: what a game manager sends a player, read from KIF text
//! (case-insensitive, as ggp-base's server writes it), and the player's replies.
//!
//! Requests: `(info)`, `(preview RULES CLOCK)`, `(start MATCHID ROLE (RULES…) STARTCLOCK
//! PLAYCLOCK)`, `(play MATCHID nil)` or `(play MATCHID (MOVES…))`, `(stop MATCHID
//! (MOVES…))` and `(abort MATCHID)`. The rules of `start` are handed on as text (the
//! inside of their list), for gdlc's front end to parse; moves are canonical KIF text
//! (`gdlc_runtime::kif::canonical`), one per role in role order.

use std::time::Duration;

/// One request of a game manager.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `(info)`: who is this player, and is it free.
    Info,
    /// `(preview RULES CLOCK)`: rules shown ahead of a match; nothing to do.
    Preview,
    /// `(start MATCHID ROLE (RULES…) STARTCLOCK PLAYCLOCK)`.
    Start {
        /// The match identifier (lowercase).
        match_id: String,
        /// The role this player plays (lowercase).
        role: String,
        /// The game description: the text inside the rules' list.
        rules: String,
        /// Time to get ready.
        start_clock: Duration,
        /// Time for each move.
        play_clock: Duration,
    },
    /// `(play MATCHID nil)` (the first move) or `(play MATCHID (MOVES…))`.
    Play {
        /// The match identifier (lowercase).
        match_id: String,
        /// The joint move just played, one canonical move per role; `None` for `nil`.
        moves: Option<Vec<String>>,
    },
    /// `(stop MATCHID (MOVES…))`: the last joint move was played and the match is over.
    Stop {
        /// The match identifier (lowercase).
        match_id: String,
        /// The last joint move; `None` for `nil`.
        moves: Option<Vec<String>>,
    },
    /// GDL-II's `(play MATCHID TURN MOVE PERCEPTS)` (and `stop` alike): the player is
    /// told only its own last move (`nil` on the first turn) and what it saw.
    Percepts {
        /// The match identifier (lowercase).
        match_id: String,
        /// Whether this is `stop` (the match is over).
        stop: bool,
        /// The turn number.
        turn: u64,
        /// This role's last move, canonical KIF text; `None` for `nil`.
        own_move: Option<String>,
        /// What the role saw, canonical KIF text (empty for `nil`).
        percepts: Vec<String>,
    },
    /// `(abort MATCHID)`: the match ends early.
    Abort {
        /// The match identifier (lowercase).
        match_id: String,
    },
}

/// A message that is not a request this player understands.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad request: {0}")]
pub struct ProtocolError(pub String);

impl Request {
    /// The match this request is about, if any.
    pub fn match_id(&self) -> Option<&str> {
        match self {
            Request::Info | Request::Preview => None,
            Request::Start { match_id, .. }
            | Request::Play { match_id, .. }
            | Request::Stop { match_id, .. }
            | Request::Percepts { match_id, .. }
            | Request::Abort { match_id } => Some(match_id),
        }
    }

    /// The request as KIF text, as a game manager sends it (used by local matches).
    pub fn to_kif(&self) -> String {
        let moves = |moves: &Option<Vec<String>>| match moves {
            None => "nil".to_owned(),
            Some(moves) => format!("({})", moves.join(" ")),
        };
        match self {
            Request::Info => "(info)".to_owned(),
            Request::Preview => "(preview () 0)".to_owned(),
            Request::Start {
                match_id,
                role,
                rules,
                start_clock,
                play_clock,
            } => format!(
                "(start {match_id} {role} ({rules}) {} {})",
                seconds(*start_clock),
                seconds(*play_clock)
            ),
            Request::Play { match_id, moves: m } => format!("(play {match_id} {})", moves(m)),
            Request::Stop { match_id, moves: m } => format!("(stop {match_id} {})", moves(m)),
            Request::Percepts {
                match_id,
                stop,
                turn,
                own_move,
                percepts,
            } => format!(
                "({} {match_id} {turn} {} {})",
                if *stop { "stop" } else { "play" },
                own_move.as_deref().unwrap_or("nil"),
                if percepts.is_empty() {
                    "nil".to_owned()
                } else {
                    format!("({})", percepts.join(" "))
                }
            ),
            Request::Abort { match_id } => format!("(abort {match_id})"),
        }
    }
}

/// A clock in seconds: a whole number when it is one (as the protocol has it), else a
/// decimal, which this player also reads.
fn seconds(clock: Duration) -> String {
    if clock.subsec_nanos() == 0 {
        clock.as_secs().to_string()
    } else {
        format!("{}", clock.as_secs_f64())
    }
}

/// Reads one request.
pub fn parse(text: &str) -> Result<Request, ProtocolError> {
    let top = read_one(text)?;
    let Sexpr::List(items, _) = &top else {
        return Err(ProtocolError(format!(
            "expected a list such as `(info)`, found `{}`",
            shorten(text)
        )));
    };
    let Some(Sexpr::Atom(kind, _)) = items.first() else {
        return Err(ProtocolError("a request starts with its kind".to_owned()));
    };
    let args = &items[1..];
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(ProtocolError(format!(
                "`{kind}` takes {n} argument(s), found {}",
                args.len()
            )))
        }
    };
    match kind.as_str() {
        "info" => Ok(Request::Info),
        "preview" => Ok(Request::Preview),
        "start" => {
            arity(5)?;
            let Sexpr::List(_, span) = &args[2] else {
                return Err(ProtocolError("`start`'s rules must be a list".to_owned()));
            };
            Ok(Request::Start {
                match_id: atom(&args[0], "match id")?,
                role: atom(&args[1], "role")?,
                rules: text[span.0 + 1..span.1 - 1].to_owned(),
                start_clock: clock(&args[3])?,
                play_clock: clock(&args[4])?,
            })
        }
        "play" | "stop" if args.len() == 4 => {
            let match_id = atom(&args[0], "match id")?;
            let turn = atom(&args[1], "turn")?;
            let turn = turn
                .parse::<u64>()
                .map_err(|_| ProtocolError(format!("a turn is a number, found `{turn}`")))?;
            let own_move = match &args[2] {
                Sexpr::Atom(a, _) if a == "nil" => None,
                other => {
                    let (from, to) = other.span();
                    Some(
                        gdlc_runtime::kif::canonical(&text[from..to])
                            .map_err(|e| ProtocolError(format!("bad move: {e}")))?,
                    )
                }
            };
            let percepts = moves(text, &args[3])?.unwrap_or_default();
            Ok(Request::Percepts {
                match_id,
                stop: kind == "stop",
                turn,
                own_move,
                percepts,
            })
        }
        "play" | "stop" => {
            arity(2)?;
            let match_id = atom(&args[0], "match id")?;
            let moves = moves(text, &args[1])?;
            Ok(if kind == "play" {
                Request::Play { match_id, moves }
            } else {
                Request::Stop { match_id, moves }
            })
        }
        "abort" => {
            arity(1)?;
            Ok(Request::Abort {
                match_id: atom(&args[0], "match id")?,
            })
        }
        other => Err(ProtocolError(format!("unknown request `{other}`"))),
    }
}

/// The reply to `(info)`.
pub fn info_reply(name: &str, busy: bool) -> String {
    let status = if busy { "busy" } else { "available" };
    format!("((name {name}) (status {status}))")
}

fn atom(sexpr: &Sexpr, what: &str) -> Result<String, ProtocolError> {
    match sexpr {
        Sexpr::Atom(a, _) => Ok(a.clone()),
        Sexpr::List(..) => Err(ProtocolError(format!("the {what} must be a symbol"))),
    }
}

fn clock(sexpr: &Sexpr) -> Result<Duration, ProtocolError> {
    let text = atom(sexpr, "clock")?;
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => {
            Ok(Duration::from_secs_f64(seconds))
        }
        _ => Err(ProtocolError(format!(
            "a clock is a number of seconds, found `{text}`"
        ))),
    }
}

fn moves(text: &str, sexpr: &Sexpr) -> Result<Option<Vec<String>>, ProtocolError> {
    match sexpr {
        Sexpr::Atom(a, _) if a == "nil" => Ok(None),
        Sexpr::Atom(a, _) => Err(ProtocolError(format!(
            "expected `nil` or a list of moves, found `{a}`"
        ))),
        Sexpr::List(items, _) => items
            .iter()
            .map(|item| {
                let span = item.span();
                gdlc_runtime::kif::canonical(&text[span.0..span.1])
                    .map_err(|e| ProtocolError(format!("bad move: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
    }
}

fn shorten(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// An S-expression with the byte span of its text; atoms are lowercased.
#[derive(Debug)]
enum Sexpr {
    Atom(String, (usize, usize)),
    List(Vec<Sexpr>, (usize, usize)),
}

impl Sexpr {
    fn span(&self) -> (usize, usize) {
        match self {
            Sexpr::Atom(_, span) | Sexpr::List(_, span) => *span,
        }
    }
}

fn read_one(text: &str) -> Result<Sexpr, ProtocolError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        pos: 0,
    };
    reader.skip();
    let sexpr = reader.sexpr(text, 0)?;
    reader.skip();
    if reader.pos != text.len() {
        return Err(ProtocolError(format!(
            "unexpected text after the request: `{}`",
            shorten(&text[reader.pos..])
        )));
    }
    Ok(sexpr)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// Lists nested deeper than this are refused (rules nest a few levels).
const MAX_DEPTH: usize = 200;

impl Reader<'_> {
    /// Skips white space and `;` comments.
    fn skip(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b';' {
                while self.bytes.get(self.pos).is_some_and(|&b| b != b'\n') {
                    self.pos += 1;
                }
            } else if b.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn sexpr(&mut self, text: &str, depth: usize) -> Result<Sexpr, ProtocolError> {
        if depth > MAX_DEPTH {
            return Err(ProtocolError("lists nest too deeply".to_owned()));
        }
        match self.bytes.get(self.pos) {
            None => Err(ProtocolError("unexpected end of the message".to_owned())),
            Some(b')') => Err(ProtocolError(format!(
                "unexpected `)` at offset {}",
                self.pos
            ))),
            Some(b'(') => {
                let start = self.pos;
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip();
                    match self.bytes.get(self.pos) {
                        None => return Err(ProtocolError("unclosed `(`".to_owned())),
                        Some(b')') => {
                            self.pos += 1;
                            return Ok(Sexpr::List(items, (start, self.pos)));
                        }
                        Some(_) => items.push(self.sexpr(text, depth + 1)?),
                    }
                }
            }
            Some(_) => {
                let start = self.pos;
                while self.bytes.get(self.pos).is_some_and(|&b| {
                    !b.is_ascii_whitespace() && b != b'(' && b != b')' && b != b';'
                }) {
                    self.pos += 1;
                }
                // Atoms end at ASCII bytes, so the span is on character boundaries.
                Ok(Sexpr::Atom(
                    text[start..self.pos].to_ascii_lowercase(),
                    (start, self.pos),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_kind_is_read_whatever_its_case() {
        assert_eq!(parse("(INFO)"), Ok(Request::Info));
        assert_eq!(parse(" ( preview ((role a)) 10 ) "), Ok(Request::Preview));
        assert_eq!(
            parse("(START Base.TTT.1 XPLAYER ((role xplayer) (init (cell 1 1 b))) 30 15)"),
            Ok(Request::Start {
                match_id: "base.ttt.1".to_owned(),
                role: "xplayer".to_owned(),
                rules: "(role xplayer) (init (cell 1 1 b))".to_owned(),
                start_clock: Duration::from_secs(30),
                play_clock: Duration::from_secs(15),
            })
        );
        assert_eq!(
            parse("(PLAY m NIL)"),
            Ok(Request::Play {
                match_id: "m".to_owned(),
                moves: None
            })
        );
        assert_eq!(
            parse("(play m ((MARK 1 1) noop))"),
            Ok(Request::Play {
                match_id: "m".to_owned(),
                moves: Some(vec!["(mark 1 1)".to_owned(), "noop".to_owned()])
            })
        );
        assert_eq!(
            parse("(stop m ( ( mark 3 3 ) noop ))"),
            Ok(Request::Stop {
                match_id: "m".to_owned(),
                moves: Some(vec!["(mark 3 3)".to_owned(), "noop".to_owned()])
            })
        );
        assert_eq!(
            parse("(ABORT m)"),
            Ok(Request::Abort {
                match_id: "m".to_owned()
            })
        );
    }

    #[test]
    fn requests_written_are_read_back() {
        let requests = [
            Request::Info,
            Request::Start {
                match_id: "m.1".to_owned(),
                role: "white".to_owned(),
                rules: "(role white) (<= terminal (true done))".to_owned(),
                start_clock: Duration::from_secs(10),
                play_clock: Duration::from_millis(500),
            },
            Request::Play {
                match_id: "m.1".to_owned(),
                moves: Some(vec!["(move a b)".to_owned()]),
            },
            Request::Stop {
                match_id: "m.1".to_owned(),
                moves: None,
            },
            Request::Abort {
                match_id: "m.1".to_owned(),
            },
            Request::Percepts {
                match_id: "m.1".to_owned(),
                stop: false,
                turn: 0,
                own_move: None,
                percepts: Vec::new(),
            },
            Request::Percepts {
                match_id: "m.1".to_owned(),
                stop: true,
                turn: 3,
                own_move: Some("(guess 2)".to_owned()),
                percepts: vec!["right".to_owned(), "(told 2)".to_owned()],
            },
        ];
        for request in requests {
            assert_eq!(parse(&request.to_kif()), Ok(request.clone()));
        }
    }

    #[test]
    fn bad_messages_are_refused_with_a_reason() {
        let cases = [
            ("", "unexpected end"),
            ("info", "expected a list"),
            ("(info", "unclosed"),
            ("(info))", "unexpected text after"),
            ("(dance m)", "unknown request `dance`"),
            ("(play m)", "takes 2 argument(s)"),
            ("(play m move)", "expected `nil` or a list"),
            ("(play m soon nil nil)", "a turn is a number"),
            ("(play m 1 (mark 1 1) x)", "expected `nil` or a list"),
            ("(start m r rules 10 10)", "rules must be a list"),
            ("(start m r () soon 10)", "a clock is a number"),
            ("(start m r () -1 10)", "a clock is a number"),
            ("((info))", "starts with its kind"),
        ];
        for (text, expected) in cases {
            let error = parse(text).expect_err(text).to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
        let deep = format!("{}{}", "(".repeat(500), ")".repeat(500));
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn info_replies_say_whether_the_player_is_free() {
        assert_eq!(
            info_reply("gdlc", false),
            "((name gdlc) (status available))"
        );
        assert_eq!(info_reply("gdlc", true), "((name gdlc) (status busy))");
    }
}

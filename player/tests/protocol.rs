//! The player over loopback HTTP: every message kind, bad messages (garbage, an unknown
//! match, a move the rules reject, invalid rules) answered without a crash, and whole
//! matches through the same protocol.

use std::thread;
use std::time::Duration;

use gdlc_player::client::post;
use gdlc_player::matches::play_match;
use gdlc_player::server::{Player, Server};
use gdlc_player::session::Strategy;

mod common;
use common::{settings, team_game, test_game};

/// A player serving on a free loopback port, on its own thread; its address.
fn spawn_player(strategy: Strategy) -> String {
    let server = Server::bind("127.0.0.1:0").expect("a free port");
    let address = format!("127.0.0.1:{}", server.port());
    thread::spawn(move || server.run(Player::new(strategy, 7, None), false));
    address
}

const LONG: Duration = Duration::from_secs(30);

fn rules_without_comments(text: &str) -> String {
    text.lines()
        .map(|l| l.split(';').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_message_kind_gets_its_reply() {
    let player = spawn_player(Strategy::Mcts);
    let rules = rules_without_comments(&team_game("tictactoe"));
    assert_eq!(
        post(&player, "(info)", LONG).as_deref(),
        Ok("((name gdlc) (status available))")
    );
    assert_eq!(
        post(&player, "(preview () 10)", LONG).as_deref(),
        Ok("ready")
    );
    let start = format!("(START m1 OPLAYER ({rules}) 10 1)");
    assert_eq!(post(&player, &start, LONG).as_deref(), Ok("ready"));
    assert_eq!(
        post(&player, "(info)", LONG).as_deref(),
        Ok("((name gdlc) (status busy))")
    );
    // Another match while one is played: busy.
    let other = format!("(start m2 xplayer ({rules}) 10 1)");
    assert_eq!(post(&player, &other, LONG).as_deref(), Ok("busy"));
    // oplayer waits: its only legal move is noop.
    assert_eq!(post(&player, "(play m1 nil)", LONG).as_deref(), Ok("noop"));
    let reply = post(&player, "(play m1 ((mark 1 1) noop))", LONG).expect("a move");
    assert!(reply.starts_with("(mark "), "{reply}");
    assert_ne!(reply, "(mark 1 1)");
    assert_eq!(
        post(&player, "(stop m1 ((mark 2 2) noop))", LONG).as_deref(),
        Ok("done")
    );
    assert_eq!(
        post(&player, "(info)", LONG).as_deref(),
        Ok("((name gdlc) (status available))")
    );
    let start = format!("(start m3 xplayer ({rules}) 10 1)");
    assert_eq!(post(&player, &start, LONG).as_deref(), Ok("ready"));
    assert_eq!(post(&player, "(abort m3)", LONG).as_deref(), Ok("aborted"));
}

#[test]
fn bad_messages_are_refused_and_the_player_goes_on() {
    let player = spawn_player(Strategy::Random);
    let refused = |message: &str, expected: &str| {
        let error = post(&player, message, LONG).expect_err(message);
        assert!(error.contains("status 400"), "{message}: {error}");
        assert!(error.contains(expected), "{message}: {error}");
    };
    refused("garbage(", "bad request");
    // About a match it does not play: busy, as ggp-base's player says.
    for message in [
        "(play nowhere nil)",
        "(stop nowhere nil)",
        "(abort nowhere)",
    ] {
        assert_eq!(
            post(&player, message, LONG).as_deref(),
            Ok("busy"),
            "{message}"
        );
    }
    refused(
        "(start m1 xplayer ((role xplayer) (<= (legal ?p ?m))) 10 1)",
        "not valid GDL",
    );
    let rules = rules_without_comments(&team_game("tictactoe"));
    refused(
        &format!("(start m1 nobody ({rules}) 10 1)"),
        "no role `nobody`",
    );
    let start = format!("(start m2 xplayer ({rules}) 10 1)");
    assert_eq!(post(&player, &start, LONG).as_deref(), Ok("ready"));
    assert!(post(&player, "(play m2 nil)", LONG).is_ok());
    // A joint move the rules reject, then one of the wrong length.
    refused("(play m2 ((mark 9 9) noop))", "not a legal move");
    refused("(play m2 ((mark 1 1)))", "expected 2 moves");
    assert_eq!(post(&player, "(abort m2)", LONG).as_deref(), Ok("aborted"));
    assert_eq!(
        post(&player, "(info)", LONG).as_deref(),
        Ok("((name gdlc) (status available))")
    );
}

#[test]
fn get_requests_and_cors_preflight_are_answered() {
    let player = spawn_player(Strategy::Random);
    let get = |request: &str| {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&player).expect("connect");
        stream.write_all(request.as_bytes()).expect("send");
        let mut reply = String::new();
        stream.read_to_string(&mut reply).expect("read");
        reply
    };
    let reply = get("GET /%28info%29 HTTP/1.0\r\n\r\n");
    assert!(
        reply.contains("((name gdlc) (status available))"),
        "{reply}"
    );
    let reply = get("OPTIONS / HTTP/1.0\r\n\r\n");
    assert!(
        reply.starts_with("HTTP/1.1 200") || reply.starts_with("HTTP/1.0 200"),
        "{reply}"
    );
    assert!(reply.contains("Access-Control-Allow-Origin: *"), "{reply}");
}

#[test]
fn mcts_never_loses_tictactoe_to_random_at_one_second() {
    for (players, mcts) in [(["mcts", "random"], 0), (["random", "mcts"], 1)] {
        let settings = settings(team_game("tictactoe"), &players, Duration::from_secs(1));
        let outcome = play_match(&settings, "ttt").expect("a match");
        assert!(outcome.faults.is_empty(), "{:?}", outcome.faults);
        assert!(
            outcome.goals[mcts] >= 50,
            "{players:?}: {:?}",
            outcome.goals
        );
    }
}

#[test]
fn simultaneous_and_gdl2_games_are_played_to_the_end_without_faults() {
    for (game, players) in [
        ("pennies", ["mcts", "random"]),
        ("pennies", ["random", "mcts"]),
        ("guess", ["random", "mcts"]),
    ] {
        // A second per move: at 300 ms a player answered late on a machine busy with
        // a build beside the tests (CI, 2026-11-28).
        let settings = settings(test_game(game), &players, Duration::from_secs(1));
        let outcome = play_match(&settings, game).expect("a match");
        assert!(outcome.faults.is_empty(), "{game}: {:?}", outcome.faults);
        assert_eq!(outcome.steps, if game == "pennies" { 3 } else { 2 });
    }
}

#[test]
fn matches_refuse_a_player_count_that_does_not_fit() {
    let settings = settings(team_game("tictactoe"), &["mcts"], Duration::from_secs(1));
    let error = play_match(&settings, "ttt").expect_err("one player for two roles");
    assert!(error.contains("2 roles"), "{error}");
}

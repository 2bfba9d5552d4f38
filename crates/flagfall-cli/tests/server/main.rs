//! The game server, end to end: the real server (in process on 127.0.0.1:0, or the
//! built `flagfall serve` for the restart test) on a temporary database, WebSocket
//! clients playing whole games, and every finished game's stored script replayed by
//! `flagfall replay` to the same report.
//!
//! With `FLAGFALL_TEST_POSTGRES` set to a PostgreSQL URL, every test runs on a fresh
//! database of that server instead of SQLite (and fails if it cannot reach it).

mod abuse;
mod broadcast;
mod chaos;
mod evening;
mod evening_boards;
mod evening_corrections;
mod evening_director;
mod evening_limits;
mod evening_nodes;
mod evening_phone;
mod evening_speed;
mod evening_wire;
mod faults;
mod flood;
mod injection;
mod lifecycle;
mod lobby;
mod permissions;
mod pg_restart;
mod rematch;
mod shutdown;
mod support;
mod transport;
mod trust;

use serde_json::{Value, json};
use support::*;

const USCF: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn illegal_move_claimed_and_replayed() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    white
        .send(json!({"move":"e2e5","press":true,"id":"w1"}))
        .await;
    let ev = white.event().await;
    assert_eq!(ev["n"], 1);
    assert_eq!(ev["id"], "w1");
    assert_eq!(ev["event"]["by"], "white");
    assert_eq!(ev["update"]["moves"][0]["uci"], "e2e5");
    assert!(
        ev["update"]["moves"][0].get("san").is_none(),
        "no SAN for an illegal move"
    );
    let seen = black.until_n(1).await;
    assert!(
        seen["update"]["claims"]["black"]
            .as_array()
            .unwrap()
            .contains(&json!("illegal"))
    );
    black.send(json!({"claim":"illegal"})).await;
    let ev = black.event().await;
    assert_eq!(ev["result"], "0-1");
    assert_eq!(ev["update"]["reason"], "illegal_move");
    assert_eq!(ev["rulings"][0]["kind"], "result");
    srv.assert_replay_matches(&g.id).await;
    let pgn = srv.get_text(&format!("/api/games/{}/pgn", g.id)).await;
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    let finished = srv.get_json("/api/games?status=finished").await;
    assert_eq!(finished[0]["id"], json!(g.id));
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flag_claimed_with_and_without_mating_material() {
    let srv = Server::start().await;
    // White has a queen: Black's flag falls, White claims and wins.
    let setup =
        r#"{"rules":"uscf-2020","time_control":"G/5;d0","fen":"4k3/8/8/8/8/8/8/4K2Q w - - 0 1"}"#;
    let g = srv.create(setup).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    director
        .send(json!({"add_time":{"color":"black","ms":-299_700}}))
        .await;
    director.event().await;
    white.send(json!({"move":"h1h2","press":true})).await;
    white.event().await;
    let flag = black.until_type("flag").await;
    assert_eq!(flag["color"], "black");
    // The message itself offers the claim: a page need not reload to show it.
    assert_eq!(flag["claims"]["white"][0], "flag", "{flag}");
    assert!(
        !flag["claims"]["black"]
            .as_array()
            .unwrap()
            .contains(&json!("flag"))
    );
    let state = srv.state(&g.id).await;
    assert_eq!(state["flags"], json!(["black"]));
    assert!(
        state["claims"]["white"]
            .as_array()
            .unwrap()
            .contains(&json!("flag"))
    );
    white.send(json!({"claim":"flag"})).await;
    let ev = white.event().await;
    assert_eq!(ev["result"], "1-0");
    assert_eq!(ev["update"]["reason"], "time_forfeit");
    srv.assert_replay_matches(&g.id).await;

    // Black has a lone king: White's flag falls, Black's claim is a draw.
    let g = srv.create(setup).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    director
        .send(json!({"add_time":{"color":"white","ms":-299_800}}))
        .await;
    director.event().await;
    black.until_type("flag").await;
    black.send(json!({"claim":"flag"})).await;
    let ev = black.event().await;
    assert_eq!(ev["result"], "1/2-1/2");
    assert_eq!(ev["update"]["reason"], "insufficient_material");
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_flags_down_is_a_draw() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    director
        .send(json!({"add_time":{"color":"white","ms":-299_800}}))
        .await;
    director.event().await;
    director
        .send(json!({"add_time":{"color":"black","ms":-299_800}}))
        .await;
    director.event().await;
    assert_eq!(white.until_type("flag").await["color"], "white");
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    black
        .until(|m| m["type"] == "flag" && m["color"] == "black")
        .await;
    black.send(json!({"claim":"both_flags"})).await;
    let ev = black.event().await;
    assert_eq!(ev["result"], "1/2-1/2");
    assert_eq!(ev["update"]["reason"], "both_flags");
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn director_penalty_and_ruling() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"club-ilc","time_control":"G/5;d0","fen":"4k3/8/8/8/8/8/8/4K2Q b - - 0 1"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    // A player cannot penalise; the server refuses it without storing anything.
    white
        .send(json!({"offence":{"player":"black","kind":"knocked_clock"},"id":"x"}))
        .await;
    let r = white.until_type("refused").await;
    assert_eq!(r["id"], "x");
    assert!(r["reason"].as_str().unwrap().contains("director"), "{r}");
    assert_eq!(srv.state(&g.id).await["n"], 0);
    director
        .send(json!({"offence":{"player":"white","kind":"knocked_clock"}}))
        .await;
    let ev = director.event().await;
    assert_eq!(ev["rulings"][0]["kind"], "penalty");
    // Black (a lone king, under a minute) claims insufficient losing chances.
    director
        .send(json!({"add_time":{"color":"black","ms":-310_000}}))
        .await;
    director.event().await;
    black.send(json!({"claim":"ilc"})).await;
    let ev = black.event().await;
    let pending = &ev["update"]["pending"];
    assert_eq!(pending["claim"], "ilc");
    assert_eq!(pending["claimant"], "black");
    assert!(pending["recommendation"]["grant"].is_boolean());
    assert_eq!(ev["update"]["running"], Value::Null);
    director.send(json!({"ruling":{"grant":true}})).await;
    let ev = director.event().await;
    assert_eq!(ev["result"], "1/2-1/2");
    assert_eq!(ev["update"]["reason"], "ilc");
    assert_eq!(
        white.until_n(ev["n"].as_u64().unwrap()).await["result"],
        "1/2-1/2"
    );
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offer_accepted() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut spectator = srv.connect(&g.id, None).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    black.send(json!({"offer":"draw"})).await;
    let ev = white.until_n(2).await;
    assert_eq!(ev["update"]["draw_offer"], "black");
    white.send(json!({"accept":"draw"})).await;
    let ev = spectator.until_n(3).await;
    assert_eq!(ev["result"], "1/2-1/2");
    assert_eq!(ev["update"]["reason"], "agreement");
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnect_and_retry_an_id_applies_it_once() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    white
        .send(json!({"move":"e2e4","press":true,"id":"m1"}))
        .await;
    assert_eq!(white.event().await["n"], 1);
    drop(white);
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    assert_eq!(white.initial["n"], 1);
    white
        .send(json!({"move":"e2e4","press":true,"id":"m1"}))
        .await;
    let again = white.event().await;
    assert_eq!(
        again["n"], 1,
        "the retried id answers with the event it made"
    );
    assert_eq!(again["id"], "m1");
    let script = srv.get_text(&format!("/api/games/{}/script", g.id)).await;
    assert_eq!(script.lines().count(), 2, "{script}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_forged_tokens_and_wrong_players_are_refused() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let other = srv.create(USCF).await;
    let mut spectator = srv.connect(&g.id, None).await;
    spectator
        .send(json!({"move":"e2e4","press":true,"id":"s"}))
        .await;
    let r = spectator.until_type("refused").await;
    assert_eq!(r["id"], "s");
    assert!(r["reason"].as_str().unwrap().contains("spectator"));
    // A forged token and another game's token: the upgrade is refused (403).
    assert_eq!(srv.ws_status(&g.id, Some("00ff")).await, 403);
    assert_eq!(srv.ws_status(&g.id, Some(&other.tokens.white)).await, 403);
    assert_eq!(srv.ws_status("nosuchgame", None).await, 404);
    // Black moving for White: the arbiter refuses it (stored, as every arbiter ruling).
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    black
        .send(json!({"move":"e2e4","press":true,"id":"b"}))
        .await;
    let r = black.until_type("refused").await;
    assert!(r["reason"].as_str().unwrap().contains("turn"), "{r}");
    assert!(r["rule"].is_string());
    // The director cannot move for a player.
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    director.send(json!({"move":"e2e4"})).await;
    director.until_type("refused").await;
    let state = srv.state(&g.id).await;
    assert_eq!(state["moves"], json!([]));
    assert_eq!(
        state["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_frames_get_errors_and_the_socket_stays_open() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    for (frame, field) in [
        ("{not json", "(json)"),
        (r#"{"move":12,"id":"a"}"#, "move"),
        (r#"{"claim":"everything"}"#, "claim"),
        (r#"{"dance":true}"#, "dance"),
        (r#"{"at":3,"press":true}"#, "at"),
        (r#"[1,2]"#, "(json)"),
    ] {
        white.send_text(frame).await;
        let e = white.until_type("error").await;
        assert!(
            e["message"].as_str().unwrap().contains(field),
            "{frame}: {e}"
        );
    }
    let big = format!(r#"{{"move":"e2e4","pad":"{}"}}"#, "x".repeat(5000));
    white.send_text(&big).await;
    let e = white.until_type("error").await;
    assert!(e["message"].as_str().unwrap().contains("4096"), "{e}");
    // Still open: a real move goes through.
    white.send(json!({"move":"e2e4","press":true})).await;
    assert_eq!(white.event().await["n"], 1);
    // Bad HTTP input: named errors.
    let (status, body) = srv
        .post(
            "/api/games",
            r#"{"rules":"uscf-2020","time_control":"G/5;d0","mode":"blitz"}"#,
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = srv
        .post("/api/games", r#"{"rules":"nope","time_control":"G/5;d0"}"#)
        .await;
    assert_eq!(status, 400);
    assert!(body.contains("rules"), "{body}");
    let (status, _) = srv.post("/api/games", &"x".repeat(20_000)).await;
    assert_eq!(status, 413);
    assert_eq!(srv.get_status("/api/games/nosuch").await, 404);
    assert_eq!(srv.get_status("/api/games?status=dead").await, 400);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_is_rate_limited_then_closed() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    for _ in 0..200 {
        if !white.try_send_text(r#"{"offer":"nothing"}"#).await {
            break;
        }
    }
    let close = white.until_close().await;
    assert_eq!(close.0, 1008, "{close:?}");
    assert!(close.1.contains("flood"), "{close:?}");
    // The game is unharmed.
    assert_eq!(srv.state(&g.id).await["n"], 0);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_mode_takes_legal_moves_and_flags_automatically() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0","mode":"online"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    assert_eq!(white.initial["dests"]["e2"], json!(["e3", "e4"]));
    white.send(json!({"move":"e2e5"})).await;
    assert!(
        white.until_type("refused").await["reason"]
            .as_str()
            .unwrap()
            .contains("legal")
    );
    white.send(json!({"move":"e2e4"})).await;
    let ev = white.event().await;
    assert_eq!(ev["event"]["press"], true, "online moves are pressed");
    assert_eq!(ev["update"]["moves"][0]["san"], "e4");
    assert_eq!(ev["update"]["to_move"], "black");
    director
        .send(json!({"add_time":{"color":"black","ms":-299_500}}))
        .await;
    director.event().await;
    assert_eq!(black.until_type("flag").await["color"], "black");
    let ev = black
        .until(|m| m["type"] == "event" && m["result"] != "*")
        .await;
    assert_eq!(ev["result"], "1-0");
    assert_eq!(ev["event"]["end"], true);
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simultaneous_claims_are_decided_when_the_window_closes() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0","simultaneous_ms":300}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    // White makes an illegal move; Black's flag falls; White claims the flag and Black
    // the illegal move at (nearly) the same moment: the illegal mover loses.
    white.send(json!({"move":"e2e5","press":true})).await;
    white.event().await;
    director
        .send(json!({"add_time":{"color":"black","ms":-299_800}}))
        .await;
    director.event().await;
    white.until_type("flag").await;
    white.send(json!({"claim":"flag"})).await;
    black.send(json!({"claim":"illegal"})).await;
    let ev = black
        .until(|m| m["type"] == "event" && m["result"] != "*")
        .await;
    assert_eq!(ev["result"], "0-1");
    assert_eq!(ev["update"]["reason"], "illegal_move");
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endpoints_and_graceful_shutdown() {
    let srv = Server::start().await;
    assert_eq!(srv.get_text("/healthz").await, "ok\n");
    // The web board: index.html for the page routes, its bundle beside it.
    assert!(srv.get_text("/").await.contains("id=\"app\""));
    assert!(srv.get_text("/app.js").await.len() > 1000);
    assert!(srv.get_text("/play/abc?token=x").await.contains("<html"));
    // The evening's pages (the projector, the print views): the same page, its router picks.
    assert!(
        srv.get_text("/events/abc/projector")
            .await
            .contains("<html")
    );
    assert!(
        srv.get_text("/events/abc/print/slips?round=2")
            .await
            .contains("<html")
    );
    assert_eq!(srv.get_status("/nothing-here.js").await, 404);
    let g = srv.create(USCF).await;
    assert!(g.urls.white.starts_with(&format!("/play/{}?token=", g.id)));
    assert_eq!(g.urls.spectator, format!("/watch/{}", g.id));
    assert_eq!(g.tokens.white.len(), 64, "256 random bits");
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    let m = srv.get_text("/metrics").await;
    assert!(m.contains("flagfall_sockets 1"), "{m}");
    assert!(m.contains("flagfall_events_total 1"), "{m}");
    assert!(m.contains("flagfall_commit_seconds_count"), "{m}");
    let live = srv.get_json("/api/games?status=live").await;
    assert_eq!(live.as_array().unwrap().len(), 1);
    let server = srv.take_running();
    let stopping = tokio::spawn(server.stop());
    let close = white.until_close().await;
    assert_eq!(close.0, 1001, "going away: {close:?}");
    stopping.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_in_the_middle_loses_nothing_acknowledged() {
    let mut proc = Process::start(None).await;
    let g = proc.create(USCF).await;
    let mut white = proc.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = proc.connect(&g.id, Some(&g.tokens.black)).await;
    let moves = [
        ("e2e4", true),
        ("e7e5", false),
        ("g1f3", true),
        ("b8c6", false),
    ];
    for (mv, is_white) in moves {
        let c = if is_white { &mut white } else { &mut black };
        c.send(json!({"move": mv, "press": true})).await;
        c.event().await;
    }
    let before = proc.state(&g.id).await;
    proc.kill9();
    // Down for 1.5 s.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let proc = Process::start(Some(proc.into_db())).await;
    let after = proc.state(&g.id).await;
    assert_eq!(after["n"], 4);
    assert_eq!(after["moves"], before["moves"]);
    assert_eq!(after["fen"], before["fen"]);
    assert_eq!(after["clock"]["black_ms"], before["clock"]["black_ms"]);
    // Time while the server was down is charged to no one.
    let used = before["clock"]["white_ms"].as_i64().unwrap()
        - after["clock"]["white_ms"].as_i64().unwrap();
    assert!(
        used < 1000,
        "White was charged {used} ms across the restart"
    );
    let mut white = proc.connect(&g.id, Some(&g.tokens.white)).await;
    assert_eq!(white.initial["n"], 4);
    white
        .send(json!({"move":"f1b5","press":true,"id":"after"}))
        .await;
    assert_eq!(white.event().await["n"], 5);
    white.send(json!({"resign":true})).await;
    white.send(json!({"resign":true})).await;
    let _ = white.until(|m| m["type"] == "refused").await;
    proc.assert_replay_matches(&g.id).await;
    proc.terminate().await;
}

/// Issue 9: an `event` carries what changed, not the whole state; the updates a client
/// applies rebuild the state exactly, also when a ruling takes moves back (FIDE restores
/// the position before an illegal move) and when an illegal move on the board is
/// retracted before the press.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_updates_rebuild_the_state() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"fide-b3","time_control":"3+2"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut spectator = srv.connect(&g.id, None).await;
    for (who, mv) in [("w", "e2e4"), ("b", "e7e5"), ("w", "e1e3")] {
        let c = if who == "w" { &mut white } else { &mut black };
        c.send(json!({"move": mv, "press": true})).await;
        let ev = c.event().await;
        assert_eq!(
            ev["update"]["moves"].as_array().map(Vec::len),
            Some(1),
            "{ev}"
        );
    }
    black.send(json!({"claim":"illegal"})).await;
    let ev = black.event().await;
    assert_eq!(
        ev["result"], "*",
        "a first illegal move does not lose under FIDE: {ev}"
    );
    let from = ev["update"]["moves_from"].as_u64().unwrap();
    assert!(from <= 2, "the illegal move is taken back: {ev}");
    // Touch move: the king that moved illegally must move.
    white.send(json!({"move":"e1e2","press":true})).await;
    white.event().await;
    black.send(json!({"move":"b8b6"})).await;
    let ev = black.event().await;
    assert_eq!(ev["update"]["board_move"]["uci"], "b8b6");
    black.send(json!({"retract":true})).await;
    let ev = black.event().await;
    assert!(ev["update"]["board_move"].is_null(), "{ev}");
    black.send(json!({"move":"b8c6","press":true})).await;
    let last = black.event().await["n"].as_u64().unwrap();
    white.until_n(last).await;
    spectator.until_n(last).await;
    let state = srv.state(&g.id).await;
    assert_eq!(state["moves"].as_array().map(Vec::len), Some(4), "{state}");
    for c in [&white, &black, &spectator] {
        c.assert_view_is(&state);
    }
    srv.stop().await;
}

/// `flagfall loadtest ARGS`: its standard output, once it exited successfully.
async fn loadtest(args: &[&str]) -> String {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_flagfall"))
        .arg("loadtest")
        .args(args)
        .output()
        .await
        .expect("run flagfall loadtest");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "loadtest failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Issue 9: the load generator runs end to end against the server it starts in its own
/// process (and the echo baseline, plain, durable and through the store, in others), and
/// finds nothing lost or duplicated.
/// Only the figures' presence is checked here: speed is measured in BENCHMARKS.md.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loadtest_runs_against_its_own_server_process() {
    let db = Db::new().await;
    let stdout = loadtest(&[
        "--games",
        "6",
        "--rate",
        "60",
        "--duration",
        "1",
        "--conns",
        "4",
        "--closed-duration",
        "1",
        "--database",
        &db.url,
        "--store-echo",
    ])
    .await;
    assert!(
        stdout.contains("open loop: 6 games (12 sockets)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("lost events: 0, duplicated events: 0, bot errors: 0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("resident memory per live game: server "),
        "{stdout}"
    );
    assert!(stdout.contains("bare axum echo"), "{stdout}");
    // The number printed right after `marker`.
    let number_after = |marker: &str| -> f64 {
        stdout
            .split_once(marker)
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no number after {marker:?} in {stdout}"))
    };
    assert!(number_after("sockets), ") > 0.0, "a move count: {stdout}");
    // The durable echo ran and answered.
    assert!(
        number_after("fdatasync'd before its echo, group commit): ") > 0.0,
        "a durable echo rate: {stdout}"
    );
    // So did the store echo (the run's database, or a new SQLite file).
    assert!(
        number_after("through flagfall's store before its echo, group commit): ") > 0.0,
        "a store echo rate: {stdout}"
    );
}

/// Issue 22: `flagfall loadtest --nodes 3 --failover` end to end: three nodes over
/// PostgreSQL (`FLAGFALL_TEST_POSTGRES`, required) and a NATS server of the test's own
/// (`nats-server` on the PATH), every game's Black told to reconnect to the game's owner
/// (issue 34), the node owning the most games killed with SIGKILL while they play: every
/// one of its games moves again, nothing is lost or doubled. Ignored by default (it needs those servers).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs FLAGFALL_TEST_POSTGRES and nats-server: scripts/test-cluster runs it"]
async fn loadtest_over_three_nodes_survives_a_killed_node() {
    assert!(
        std::env::var("FLAGFALL_TEST_POSTGRES").is_ok_and(|v| !v.is_empty()),
        "FLAGFALL_TEST_POSTGRES must name a PostgreSQL server for a cluster"
    );
    let db = Db::new().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut nats = tokio::process::Command::new("nats-server")
        .args(["-a", "127.0.0.1", "-p", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start nats-server (is it on the PATH?)");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "nats-server did not listen"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let stdout = loadtest(&[
        "--games",
        "30",
        "--rate",
        "60",
        "--duration",
        "2",
        "--conns",
        "0",
        "--nodes",
        "3",
        "--nats",
        &format!("nats://127.0.0.1:{port}"),
        "--failover",
        "12",
        "--database",
        &db.url,
    ])
    .await;
    let _ = nats.kill().await;
    assert!(
        stdout.contains("cluster: 3 nodes; CPU per move by node: n1 "),
        "{stdout}"
    );
    let number_after = |marker: &str| -> f64 {
        stdout
            .split_once(marker)
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .and_then(|n| n.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok())
            .unwrap_or_else(|| panic!("no number after {marker:?} in {stdout}"))
    };
    // Issue 34: every game's Black connects to another node than the game's owner, is
    // told to reconnect there, and follows: at most 1 move in 20 routed.
    assert_eq!(
        number_after("sockets told to reconnect to their game's node: "),
        30.0,
        "{stdout}"
    );
    let routed_per_move = number_after(&format!(
        "routed messages: {} (",
        number_after("routed messages: ")
    ));
    assert!(routed_per_move <= 0.05, "{stdout}");
    // The killed node owned a third of the games (10), and every one moved again.
    let owned = number_after("(SIGKILL) owning ");
    assert!(owned >= 5.0, "{stdout}");
    assert_eq!(number_after(" games; "), owned, "{stdout}");
    assert!(
        stdout.contains("lost events: 0, duplicated events: 0, bot errors: 0"),
        "{stdout}"
    );
}

/// Issue 22: games beyond what one process of bots may hold go to child processes of
/// bots (`--bots-worker`), driven together: here 7 games at most 3 a process, so three
/// processes, every game played and checked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loadtest_spreads_its_bots_over_processes() {
    let db = Db::new().await;
    let stdout = loadtest(&[
        "--games",
        "7",
        "--games-per-process",
        "3",
        "--rate",
        "70",
        "--duration",
        "1",
        "--conns",
        "0",
        "--database",
        &db.url,
    ])
    .await;
    assert!(
        stdout.contains("open loop: 7 games (14 sockets)"),
        "{stdout}"
    );
    assert!(stdout.contains("bots: 3 processes"), "{stdout}");
    assert!(
        stdout.contains("lost events: 0, duplicated events: 0, bot errors: 0"),
        "{stdout}"
    );
    let moves: u64 = stdout
        .split_once("sockets), ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no move count in {stdout}"));
    // 70 moves a second for a second, every process playing its share.
    assert!(moves >= 35, "{stdout}");
}

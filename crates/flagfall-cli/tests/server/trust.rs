//! Issue 19: a server a stranger can be trusted on. Roles, lag credit, time across
//! restarts, faults.

use serde_json::{Value, json};

use crate::support::*;

/// A challenge's creator holds the token of the colour they play and nothing else: the
/// game has no director, so no token of the creator's acts as one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_creator_is_not_the_director() {
    let srv = Server::start().await;
    let body = r#"{"rules":"uscf-2020","time_control":"G/5;d0","mode":"online","director":false,"color":"white"}"#;
    let (status, text) = srv.post("/api/challenges", body).await;
    assert_eq!(status, 201, "{text}");
    let created: Value = serde_json::from_str(&text).unwrap();
    let (id, secret) = (
        created["id"].as_str().unwrap(),
        created["secret"].as_str().unwrap(),
    );
    let (status, text) = srv
        .post(
            &format!("/api/challenges/{id}/accept"),
            r#"{"name":"Stranger"}"#,
        )
        .await;
    assert_eq!(status, 201, "{text}");
    let accepted: Value = serde_json::from_str(&text).unwrap();
    let game_id = accepted["game_id"].as_str().unwrap();
    let seen = srv
        .get_json(&format!("/api/challenges/{id}?secret={secret}"))
        .await;
    let game = &seen["game"];
    assert!(
        game.get("director_url").is_none(),
        "the creator is handed a director link: {game}"
    );
    // Whatever token the creator's answers carry, none of them directs.
    for token in seen.to_string().split(|c: char| !c.is_ascii_hexdigit()) {
        if token.len() == 64 && token != game["token"].as_str().unwrap() {
            assert_eq!(srv.ws_status(game_id, Some(token)).await, 403);
        }
    }
    let creator = game["token"].as_str().unwrap();
    let mut white = srv.connect(game_id, Some(creator)).await;
    assert_eq!(white.initial["role"], "white");
    assert_eq!(
        white.initial["setup"]["director"], false,
        "{}",
        white.initial
    );
    // The creator's own token cannot take time off the stranger or end the game.
    white
        .send(json!({"add_time":{"color":"black","ms":-170000}}))
        .await;
    let r = white.until_type("refused").await;
    assert!(r["reason"].as_str().unwrap().contains("director"), "{r}");
    white
        .send(json!({"result":{"result":"1-0","reason":"director"}}))
        .await;
    white.until_type("refused").await;
    assert_eq!(srv.state(game_id).await["result"], "*");
    // A challenge that asks for a director is refused up front, naming the field.
    let (status, text) = srv
        .post(
            "/api/challenges",
            r#"{"rules":"uscf-2020","time_control":"G/5;d0","director":true}"#,
        )
        .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("`director`"), "{text}");
    srv.stop().await;
}

/// A client that answers no ping but sends `pong(0)` before each press, claiming 10 s of
/// lag, gets no credit: only a pong answering the server's own ping (its nonce) measures
/// a round trip, timed from the server's send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsolicited_pongs_earn_no_lag_credit() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"3+2","mode":"online"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    // Each answers the server's first ping honestly: a round trip of a millisecond.
    white.answer_ping().await;
    black.answer_ping().await;
    let moves = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3",
    ];
    let mut credited = Vec::new();
    for (i, mv) in moves.iter().enumerate() {
        let side = if i % 2 == 0 { &mut white } else { &mut black };
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        side.send_pong(&0u64.to_be_bytes()).await;
        side.send(json!({"move": mv, "press": true, "lag_ms": 10000}))
            .await;
        let ev = side.event().await;
        assert_eq!(ev["type"], "event", "{ev}");
        credited.push(ev["event"]["lag_ms"].as_u64().unwrap_or(0));
    }
    // An honest round trip on the loopback is a millisecond or two: half of it at most.
    assert!(
        credited.iter().all(|&c| c <= 5),
        "lag credited from forged pongs: {credited:?} ms"
    );
    srv.stop().await;
}

/// A `kill -9` does not give the running side its thinking time back: the clock is
/// charged up to the last heartbeat before the crash (at most a second before it), the
/// downtime to no one, and a flag that fell before the crash is still down after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_gives_no_thinking_time_back() {
    use std::time::Duration;
    let proc = Process::start(None).await;
    const USCF: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;
    // Game a: Black thinks. Game b: Black's flag falls before the crash.
    let a = proc.create(USCF).await;
    let b = proc.create(USCF).await;
    let mut wa = proc.connect(&a.id, Some(&a.tokens.white)).await;
    wa.send(json!({"move":"e2e4","press":true})).await;
    wa.event().await;
    let mut wb = proc.connect(&b.id, Some(&b.tokens.white)).await;
    wb.send(json!({"move":"e2e4","press":true})).await;
    wb.event().await;
    let mut db = proc.connect(&b.id, Some(&b.tokens.director)).await;
    // Black has 1.5 s left in game b.
    db.send(json!({"add_time":{"color":"black","ms":-298500}}))
        .await;
    db.event().await;
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let mut proc = proc;
    proc.kill9();
    // Down for 2.5 s: charged to no one.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let proc = Process::start(Some(proc.into_db())).await;
    let after = proc.state(&a.id).await;
    let black = after["clock"]["black_ms"].as_i64().unwrap();
    assert_eq!(after["clock"]["running"], "black", "{after}");
    assert!(
        black <= 300_000 - 2_500,
        "Black got thinking time back across the restart: {black} ms left after 3.5 s"
    );
    assert!(
        black >= 300_000 - 3_500 - 1_500,
        "the downtime was charged to Black: {black} ms left"
    );
    let after = proc.state(&b.id).await;
    assert_eq!(after["flags"], json!(["black"]), "{after}");
    assert!(after["clock"]["black_ms"].as_i64().unwrap() <= 0, "{after}");
    // In this over-the-board game the fallen flag is claimable, and the claim wins.
    let mut wb = proc.connect(&b.id, Some(&b.tokens.white)).await;
    assert!(
        wb.initial["claims"]["white"]
            .as_array()
            .unwrap()
            .contains(&json!("flag")),
        "{}",
        wb.initial
    );
    wb.send(json!({"claim":"flag"})).await;
    let ev = wb
        .until(|m| m["type"] == "event" && m["result"] != "*")
        .await;
    assert_eq!(ev["result"], "1-0", "{ev}");
    proc.assert_replay_matches(&b.id).await;
    proc.terminate().await;
}

/// The stored script, one event a line (after the setup line).
async fn script_events(srv: &Server, id: &str) -> Vec<Value> {
    let script = srv.get_text(&format!("/api/games/{id}/script")).await;
    script
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("an event line"))
        .collect()
}

/// A commit that fails while the database cannot be read either leaves no phantom
/// event: the live game is what is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_commit_leaves_no_phantom_event() {
    use std::sync::atomic::Ordering::SeqCst;
    let (srv, faults) = Server::start_faulty().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    white
        .send(json!({"move":"e2e4","press":true,"id":"w1"}))
        .await;
    white.event().await;
    let before = srv.state(&g.id).await;
    faults.fail_before.store(1, SeqCst);
    faults.reads_down.store(true, SeqCst);
    black
        .send(json!({"move":"e7e5","press":true,"id":"b1"}))
        .await;
    let answer = black.until(|m| m["id"] == "b1").await;
    assert_eq!(answer["type"], "error", "{answer}");
    let after = srv.state(&g.id).await;
    for field in ["n", "fen", "moves", "to_move"] {
        assert_eq!(after[field], before[field], "{field}: a phantom event");
    }
    faults.reads_down.store(false, SeqCst);
    black
        .send(json!({"move":"e7e5","press":true,"id":"b1"}))
        .await;
    assert_eq!(black.event().await["n"], 2);
    assert_eq!(script_events(&srv, &g.id).await.len(), 2);
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

/// A commit done but reported failed (ambiguous) while the database cannot be read to
/// check it, then the action retried with its `id`: stored once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ambiguous_commit_and_a_retry_store_the_action_once() {
    use std::sync::atomic::Ordering::SeqCst;
    let (srv, faults) = Server::start_faulty().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    faults.fail_after.store(1, SeqCst);
    faults.reads_down.store(true, SeqCst);
    white
        .send(json!({"move":"e2e4","press":true,"id":"w1"}))
        .await;
    let answer = white.until(|m| m["id"] == "w1").await;
    assert_eq!(answer["type"], "error", "{answer}");
    faults.reads_down.store(false, SeqCst);
    white
        .send(json!({"move":"e2e4","press":true,"id":"w1"}))
        .await;
    let ev = white.until(|m| m["id"] == "w1").await;
    assert_eq!(
        (ev["type"].as_str(), ev["n"].as_u64()),
        (Some("event"), Some(1)),
        "{ev}"
    );
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    black
        .send(json!({"move":"e7e5","press":true,"id":"b1"}))
        .await;
    assert_eq!(black.event().await["n"], 2);
    let events = script_events(&srv, &g.id).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["move"], "e2e4");
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

/// An action held in the simultaneity window, retried with its `id` from a new socket
/// before the window closes: stored once, both sockets answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_during_the_simultaneity_window_is_stored_once() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0","simultaneous_ms":800}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    white
        .send(json!({"move":"e2e5","press":true,"id":"w1"}))
        .await;
    white.event().await;
    black.send(json!({"claim":"illegal","id":"c1"})).await;
    // The connection drops; the client reconnects and retries while the window is open.
    drop(black);
    let mut again = srv.connect(&g.id, Some(&g.tokens.black)).await;
    again.send(json!({"claim":"illegal","id":"c1"})).await;
    let ev = again.until(|m| m["id"] == "c1").await;
    assert_eq!(
        (ev["type"].as_str(), ev["n"].as_u64()),
        (Some("event"), Some(2)),
        "{ev}"
    );
    assert_eq!(ev["result"], "0-1");
    let events = script_events(&srv, &g.id).await;
    assert_eq!(events.len(), 2, "the claim stored twice: {events:?}");
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

/// A 500 (and the health check's 503) says nothing of the database's error text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_error_does_not_echo_the_database() {
    use std::sync::atomic::Ordering::SeqCst;
    let (srv, faults) = Server::start_faulty().await;
    faults.reads_down.store(true, SeqCst);
    for (path, status) in [("/api/games", 500), ("/healthz", 503)] {
        let (got, body) = srv.request("GET", path, "").await;
        assert_eq!(got, status, "{path}: {body}");
        for leak in ["injected", "db.internal", "relation", "user="] {
            assert!(!body.contains(leak), "{path} leaks {leak:?}: {body}");
        }
        assert!(body.len() < 200, "{path}: {body}");
    }
    faults.reads_down.store(false, SeqCst);
    assert_eq!(srv.request("GET", "/api/games", "").await.0, 200);
    srv.stop().await;
}

/// Run one statement on the test database, behind the server's back.
async fn sql(db: &Db, statement: &str) {
    if db.url.starts_with("postgres") {
        let pool = sqlx::PgPool::connect(&db.url).await.expect("connect");
        sqlx::query(statement)
            .execute(&pool)
            .await
            .expect(statement);
        pool.close().await;
    } else {
        let pool = sqlx::SqlitePool::connect(&db.url).await.expect("connect");
        sqlx::query(statement)
            .execute(&pool)
            .await
            .expect(statement);
        pool.close().await;
    }
}

/// One damaged stored game does not stop the server from starting: it is logged and
/// counted, asking for it is a 500, and the other games are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_corrupt_game_does_not_stop_the_server() {
    let srv = Server::start().await;
    const USCF: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;
    let bad = srv.create(USCF).await;
    let good = srv.create(USCF).await;
    for g in [&bad, &good] {
        let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
        white.send(json!({"move":"e2e4","press":true})).await;
        white.event().await;
    }
    let db = srv.stop_keeping_db().await;
    sql(
        &db,
        &format!(
            "UPDATE events SET json = '{{\"at\":0,\"by\":\"white\",\"move\":' WHERE game_id = '{}'",
            bad.id
        ),
    )
    .await;
    let srv = Server::start_on(db).await;
    let state = srv.state(&good.id).await;
    assert_eq!(state["n"], 1, "{state}");
    let mut black = srv.connect(&good.id, Some(&good.tokens.black)).await;
    black.send(json!({"move":"e7e5","press":true})).await;
    assert_eq!(black.event().await["n"], 2);
    let (status, body) = srv
        .request("GET", &format!("/api/games/{}", bad.id), "")
        .await;
    assert_eq!(status, 500, "{body}");
    // What happened, named; which row and why only in the server's log.
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        error["error"],
        "internal error: stored data is damaged (the server's log names it); nothing was \
         changed",
        "{body}"
    );
    let metrics = srv.get_text("/metrics").await;
    assert!(metrics.contains("flagfall_damaged_games 1"), "{metrics}");
    srv.stop().await;
}

/// A stored value its column's type does not know (a mode `blitz`, a setup that is not
/// JSON) is an error naming it, never a default: the game is not served, and the list
/// leaves it out (logged) while it shows the others (the mode was read as `otb` and the
/// setup as nulls).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_column_is_an_error_not_a_default() {
    const USCF: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;
    for damage in [
        "UPDATE games SET mode = 'blitz' WHERE id = '{id}'",
        "UPDATE games SET setup = '{{' WHERE id = '{id}'",
    ] {
        let srv = Server::start().await;
        let g = srv.create(USCF).await;
        let sound = srv.create(USCF).await;
        let db = srv.stop_keeping_db().await;
        sql(&db, &damage.replace("{id}", &g.id).replace("{{", "{")).await;
        let srv = Server::start_on(db).await;
        let (status, body) = srv
            .request("GET", &format!("/api/games/{}", g.id), "")
            .await;
        assert_eq!(status, 500, "{damage}: {body}");
        assert!(
            body.contains("stored data is damaged") && !body.contains(&g.id),
            "{damage}: {body}"
        );
        let (status, body) = srv.request("GET", "/api/games", "").await;
        assert_eq!(status, 200, "{damage}: {body}");
        let listed: Vec<Value> = serde_json::from_str(&body).unwrap();
        let ids: Vec<&str> = listed.iter().map(|g| g["id"].as_str().unwrap()).collect();
        assert_eq!(ids, [sound.id.as_str()], "{damage}: {body}");
        let metrics = srv.get_text("/metrics").await;
        assert!(
            metrics.contains("flagfall_damaged_games 1"),
            "{damage}: {metrics}"
        );
        srv.stop().await;
    }
}

/// SIGTERM exits within a bounded time whatever the clients do: one sends half a
/// request and waits, one holds a WebSocket open and never reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_exits_in_bounded_time_whatever_the_clients_do() {
    use tokio::io::AsyncWriteExt;
    let proc = Process::start(None).await;
    let g = proc
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
        .await;
    let mut white = proc.connect(&g.id, Some(&g.tokens.white)).await;
    white
        .send(json!({"move":"e2e4","press":true,"id":"w1"}))
        .await;
    white.event().await;
    // A spectator that never reads again.
    let _silent = proc.connect(&g.id, None).await;
    // Half a request, never finished.
    let mut slow = tokio::net::TcpStream::connect(proc.addr).await.unwrap();
    slow.write_all(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    proc.terminate().await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "SIGTERM took {:?}",
        started.elapsed()
    );
}

/// Online, a press without a move is not a thing the clock allows: refused, not stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_play_refuses_a_press_without_a_move() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"fide-b3","time_control":"3+2","mode":"online"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    black.send(json!({"press":true,"id":"p"})).await;
    let answer = black.until(|m| m["id"] == "p").await;
    assert_eq!(answer["type"], "refused", "{answer}");
    let state = srv.state(&g.id).await;
    assert_eq!(
        (state["n"].as_u64(), state["to_move"].as_str()),
        (Some(1), Some("black"))
    );
    srv.stop().await;
}

/// Online play refuses a move of the side not to move, legal for its pieces or not,
/// without storing it (docs/protocol.md; issue 32 item 7: it was stored as the
/// arbiter's refusal), before the first move and after.
#[tokio::test]
async fn online_play_refuses_a_move_out_of_turn_without_storing_it() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"fide-b3","time_control":"3+2","mode":"online"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    black
        .send(json!({"move":"e7e5","press":true,"id":"b0"}))
        .await;
    let answer = black.until(|m| m["id"] == "b0").await;
    assert_eq!(answer["type"], "refused", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap_or("")
            .contains("not Black's turn (online play"),
        "{answer}"
    );
    white
        .send(json!({"move":"e2e4","press":true,"id":"w1"}))
        .await;
    let ev = white.until(|m| m["id"] == "w1").await;
    assert_eq!(ev["type"], "event", "{ev}");
    for (id, mv) in [("w2", "d2d4"), ("w3", "e4e6")] {
        white
            .send(json!({"move": mv, "press": true, "id": id}))
            .await;
        let answer = white.until(|m| m["id"] == id).await;
        assert_eq!(answer["type"], "refused", "{mv}: {answer}");
    }
    let script = script_events(&srv, &g.id).await;
    assert_eq!(script.len(), 1, "only White's e2e4 is stored: {script:?}");
    let state = srv.state(&g.id).await;
    assert_eq!(
        (state["n"].as_u64(), state["to_move"].as_str()),
        (Some(1), Some("black"))
    );
    srv.stop().await;
}

/// The live game, once settled, is the replay of its stored script.
async fn settled(srv: &Server, id: &str) {
    for _ in 0..60 {
        let n = srv.state(id).await["n"].as_u64();
        if n == Some(script_events(srv, id).await.len() as u64) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    srv.assert_replay_matches(id).await;
}

/// Fault injection under a game in play: commits fail on demand, before writing or
/// after (ambiguous), some while the database cannot be read either. After every fault
/// nothing acknowledged is lost, nothing unacknowledged is visible, the live game is the
/// replay of its stored script, and the action, retried with its id, is stored once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_under_a_game_in_play_lose_and_double_nothing() {
    use std::sync::atomic::Ordering::SeqCst;
    let (srv, faults) = Server::start_faulty().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let moves = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1",
        "b7b5", "a4b3", "d7d6", "c2c3",
    ];
    // Acknowledged: (id, n).
    let mut acked: Vec<(String, u64)> = Vec::new();
    for (i, mv) in moves.iter().enumerate() {
        let side = if i % 2 == 0 { &mut white } else { &mut black };
        let id = format!("m{i}");
        let action = json!({"move": mv, "press": true, "id": id});
        // 0: none; 1: the commit fails; 2: it lands but is reported failed; 3: it fails
        // and the reread too; 4: it lands, is reported failed, and the reread fails.
        let fault = i % 5;
        match fault {
            1 => faults.fail_before.store(1, SeqCst),
            2 => faults.fail_after.store(1, SeqCst),
            3 => {
                faults.fail_before.store(1, SeqCst);
                faults.reads_down.store(true, SeqCst);
            }
            4 => {
                faults.fail_after.store(1, SeqCst);
                faults.reads_down.store(true, SeqCst);
            }
            _ => {}
        }
        side.send(action.clone()).await;
        let mut answer = side.until(|m| m["id"] == id.as_str()).await;
        if answer["type"] == "error" {
            assert!(fault == 1 || fault >= 3, "ply {i}: {answer}");
            // Nothing unacknowledged is visible, nothing acknowledged is lost.
            let state = srv.state(&g.id).await;
            assert_eq!(
                state["n"].as_u64(),
                Some(acked.len() as u64),
                "ply {i}: {state}"
            );
            faults.reads_down.store(false, SeqCst);
            settled(&srv, &g.id).await;
            // The client retries with the same id.
            side.send(action).await;
            answer = side
                .until(|m| m["id"] == id.as_str() && m["type"] == "event")
                .await;
        } else {
            // A commit reported failed that landed is settled at once.
            assert!(fault == 0 || fault == 2, "ply {i}: {answer}");
        }
        assert_eq!(answer["type"], "event", "ply {i}: {answer}");
        let n = answer["n"].as_u64().unwrap();
        assert_eq!(n, acked.len() as u64 + 1, "ply {i}");
        acked.push((id, n));
        settled(&srv, &g.id).await;
    }
    let events = script_events(&srv, &g.id).await;
    assert_eq!(events.len(), acked.len(), "{events:?}");
    for (e, mv) in events.iter().zip(moves) {
        assert_eq!(e["move"], mv);
    }
    srv.stop().await;
}

/// Over the board nobody but the mover learns from the server whether an unpressed move
/// is legal. `take_back` is offered only for an illegal move (touch move, uscf-2020 15),
/// so it reaches only the mover's sockets: the opponent, the director, a spectator and
/// the HTTP `GET` read `false`, in the event and in a state on connect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_mover_learns_that_an_unpressed_move_may_be_taken_back() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    let mut watcher = srv.connect(&g.id, None).await;
    // An illegal move (a pawn three squares), not pressed.
    white.send(json!({"move":"e2e5"})).await;
    let own = white.event().await;
    assert_eq!(
        own["update"]["actions"]["white"]["take_back"], true,
        "{own}"
    );
    for (who, c) in [
        ("black", &mut black),
        ("director", &mut director),
        ("spectator", &mut watcher),
    ] {
        let ev = c.until(|m| m["type"] == "event").await;
        assert_eq!(ev["n"], own["n"], "{who}");
        assert_eq!(
            ev["update"]["actions"]["white"]["take_back"], false,
            "{who}: {ev}"
        );
        // Nothing else differs from the mover's message.
        let (mut a, mut b) = (ev.clone(), own.clone());
        a["update"]["actions"]["white"]["take_back"] = json!(null);
        b["update"]["actions"]["white"]["take_back"] = json!(null);
        assert_eq!(a, b, "{who}");
    }
    assert_eq!(
        srv.state(&g.id).await["actions"]["white"]["take_back"],
        false
    );
    for (token, seen) in [
        (&g.tokens.black, false),
        (&g.tokens.director, false),
        (&g.tokens.white, true),
    ] {
        let late = srv.connect(&g.id, Some(token)).await;
        assert_eq!(late.initial["actions"]["white"]["take_back"], seen);
    }
    let late = srv.connect(&g.id, None).await;
    assert_eq!(late.initial["actions"]["white"]["take_back"], false);
    // Taken back, then a legal move on the board: nobody is offered a take back.
    white.send(json!({"retract":true})).await;
    white.event().await;
    white.send(json!({"move":"e2e4"})).await;
    let own = white.event().await;
    assert_eq!(own["update"]["actions"]["white"]["take_back"], false);
    let ev = black.until(|m| m["n"] == own["n"]).await;
    assert_eq!(ev, own, "the same message for both players");
    // Nor does the move list tell: over the board no move carries its SAN (only a
    // legal one has one) until the game is over; then the whole list comes again, with
    // them.
    white.send(json!({"press":true})).await;
    white.event().await;
    black.send(json!({"move":"e7e5","press":true})).await;
    black.event().await;
    let state = srv.state(&g.id).await;
    let moves = state["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2, "{state}");
    assert!(moves.iter().all(|m| m.get("san").is_none()), "{state}");
    white.send(json!({"resign":true})).await;
    let over = white.event().await;
    assert_eq!(over["result"], "0-1", "{over}");
    assert_eq!(over["update"]["moves_from"], 0, "{over}");
    let sans: Vec<&str> = over["update"]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(sans, ["e4", "e5"]);
    srv.stop().await;
}

//! A blitz evening on two cluster nodes (issue 22, item 3; part E): the director's
//! console on n1, the projector on n2, in-process servers on one PostgreSQL database and
//! the test's own nats-server. The director's changes on one node reach the live
//! sockets of the other by the nodes' notices (`flagfall.evening.<id>`); a game of the
//! evening served by n2 waits for the director, and the director's console on n1 shows
//! it; the game ends on n2 and its result is logged once and reaches n1. A round
//! deleted on n1 holds and aborts its game on n2 over NATS.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use crate::client::{Incoming, Ws};
use crate::infra::{Nats, PgDb};

/// How long a notice may take to reach the other node's socket.
const NOTICE_WITHIN: Duration = Duration::from_secs(10);

/// One HTTP request with an optional Bearer token: the status and the body as JSON.
async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .expect("read");
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").expect("an HTTP response");
    let status: u16 = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut rest = rest;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 || after.len() < n {
                break;
            }
            out.push_str(&after[..n]);
            rest = after.get(n + 2..).unwrap_or("");
        }
        out
    } else {
        rest.to_string()
    };
    (
        status,
        serde_json::from_str(&body).unwrap_or(Value::String(body)),
    )
}

type Live = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// An evening's live socket on `addr` (the director's with `token`): after its state.
async fn live(addr: SocketAddr, id: &str, token: Option<&str>) -> Live {
    let url = match token {
        Some(t) => format!("ws://{addr}/ws/events/{id}?token={t}"),
        None => format!("ws://{addr}/ws/events/{id}"),
    };
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("the live socket");
    let first = next(&mut ws, NOTICE_WITHIN).await;
    assert_eq!(first["type"], "state", "{first}");
    ws
}

async fn next(ws: &mut Live, wait: Duration) -> Value {
    loop {
        let msg = tokio::time::timeout(wait, ws.next())
            .await
            .unwrap_or_else(|_| panic!("no message on the evening's socket within {wait:?}"))
            .expect("open")
            .expect("a frame");
        if let Message::Text(t) = msg {
            return serde_json::from_str(t.as_str()).expect("JSON");
        }
    }
}

/// The first message on `ws` that `pred` accepts, within [`NOTICE_WITHIN`].
async fn until(ws: &mut Live, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + NOTICE_WITHIN;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        assert!(!left.is_zero(), "{what}: not seen within {NOTICE_WITHIN:?}");
        let m = next(ws, left).await;
        if pred(&m) {
            return m;
        }
    }
}

async fn node(name: &str, nats: &Nats, db: &PgDb) -> flagfall_server::Running {
    flagfall_server::start(flagfall_server::Config {
        listen: "127.0.0.1:0".into(),
        database: db.url_via(db.upstream().port()),
        engine: None,
        socket_rate: None,
        limits: flagfall_server::limits::Limits::unlimited(),
        cluster: Some(flagfall_server::cluster::ClusterConfig {
            nats: nats.url(),
            node: name.into(),
            lease: Duration::from_millis(crate::infra::LEASE_MS),
            auth: nats.auth(name),
            tls: Default::default(),
        }),
    })
    .await
    .unwrap_or_else(|e| panic!("node {name} starts: {e}"))
}

/// Messages a game's socket sends until one carries a result other than `*` (within
/// 20 s).
async fn until_result(ws: &mut Ws) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match ws.recv(left).await {
            Incoming::Msg(m) if m["result"].as_str().is_some_and(|r| r != "*") => return m,
            Incoming::Msg(_) => {}
            other => panic!("the game's socket: {other:?} before the result"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn an_evening_on_two_nodes() {
    let nats = Nats::start().await;
    let db = PgDb::create().await;
    let n1 = node("n1", &nats, &db).await;
    let n2 = node("n2", &nats, &db).await;
    let (a1, a2) = (n1.addr, n2.addr);

    let (status, created) = call(
        a1,
        "POST",
        "/api/events",
        None,
        &json!({"name":"Two nodes","format":"round-robin","time_control":"G/5;d0",
                "rules":"uscf-2020","play":"server","mode":"otb"})
        .to_string(),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let director = created["director_token"].as_str().unwrap().to_string();
    let path = |tail: &str| format!("/api/events/{id}{tail}");
    let mut console = live(a1, &id, Some(&director)).await;
    let mut projector = live(a2, &id, None).await;

    // The director enters the players on n1: the projector on n2 shows them, n2 having
    // changed nothing (its evening read the log after n1's notice).
    let (status, added) = call(
        a1,
        "POST",
        &path("/players?check_in=true"),
        Some(&director),
        &json!({"players":[{"name":"Ann","rating":2000},{"name":"Bo","rating":1900}]}).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{added}");
    let shown = until(&mut projector, "the players on n2", |m| {
        m["type"] == "change"
    })
    .await;
    assert_eq!(
        shown["players"].as_array().map(Vec::len),
        Some(2),
        "{shown}"
    );
    until(&mut console, "the players on n1", |m| m["type"] == "change").await;
    let token = |name: &str| -> String {
        added["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    };

    // The director pairs round 1 from n2 (n2 creates its game and serves it): the
    // console on n1 shows the round.
    let (status, round) = call(a2, "POST", &path("/rounds"), Some(&director), "").await;
    assert_eq!(status, 201, "{round}");
    let board = &round["boards"][0];
    let game = board["game"].as_str().unwrap().to_string();
    let white = board["white"]["name"].as_str().unwrap().to_string();
    let paired = until(&mut console, "the round on n1", |m| {
        m["type"] == "change" && m.get("round").is_some()
    })
    .await;
    assert_eq!(
        paired["round"]["boards"][0]["game"],
        game.as_str(),
        "{paired}"
    );
    let (_, state) = call(a1, "GET", &format!("/api/games/{game}"), None, "").await;
    assert_eq!(
        state["node"], "n2",
        "the node that paired serves the game: {state}"
    );

    // The director deletes the round from n1 before its game began: n1 holds the game
    // on n2 (over NATS) while the change is stored, then n2 aborts it; White's socket
    // on n2 is refused. Paired again on n2, the round gets a new game.
    let mut gone = Ws::connect(a2, &game, Some(&token(&white)), NOTICE_WITHIN)
        .await
        .expect("White on n2");
    let (status, body) = call(a1, "DELETE", &path("/rounds/1"), Some(&director), "").await;
    assert_eq!(status, 200, "{body}");
    let (_, state) = call(a1, "GET", &format!("/api/games/{game}"), None, "").await;
    assert_eq!(state["aborted"], true, "{state}");
    gone.send(&json!({"move":"e2e4","press":true,"id":"late"}))
        .await
        .unwrap();
    let refused = loop {
        match gone.recv(NOTICE_WITHIN).await {
            Incoming::Msg(m) if m["type"] == "refused" => break m,
            Incoming::Msg(_) => {}
            other => panic!("the aborted game's socket: {other:?}"),
        }
    };
    assert!(
        refused["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("round"),
        "{refused}"
    );
    drop(gone);
    until(&mut projector, "the deleted round on n2", |m| {
        m.to_string().contains("delete-round")
    })
    .await;
    let (status, round) = call(a2, "POST", &path("/rounds"), Some(&director), "").await;
    assert_eq!(status, 201, "{round}");
    let board = &round["boards"][0];
    let game = board["game"].as_str().unwrap().to_string();
    let white = board["white"]["name"].as_str().unwrap().to_string();
    let black = board["black"]["name"].as_str().unwrap().to_string();
    let paired = until(&mut console, "the new round on n1", |m| {
        m["type"] == "change" && m["round"]["boards"][0]["game"] == game.as_str()
    })
    .await;
    assert_eq!(paired["round"]["round"], 1, "{paired}");
    let (_, state) = call(a1, "GET", &format!("/api/games/{game}"), None, "").await;
    assert_eq!(state["node"], "n2", "{state}");

    // Black calls the director on n2: the console on n1 shows the dispute.
    let mut w = Ws::connect(a2, &game, Some(&token(&white)), NOTICE_WITHIN)
        .await
        .expect("White on n2");
    let mut b = Ws::connect(a2, &game, Some(&token(&black)), NOTICE_WITHIN)
        .await
        .expect("Black on n2");
    w.send(&json!({"move":"e2e4","press":true,"id":"w1"}))
        .await
        .unwrap();
    b.send(&json!({"call_director":true,"reason":"noise","id":"b1"}))
        .await
        .unwrap();
    let dispute = until(&mut console, "the dispute on n1", |m| {
        m["type"] == "dispute"
    })
    .await;
    assert_eq!(dispute["game"], game.as_str(), "{dispute}");
    assert_eq!(dispute["dispute"]["what"]["kind"], "call", "{dispute}");
    assert_eq!(dispute["dispute"]["what"]["reason"], "noise", "{dispute}");
    let (_, read) = call(a1, "GET", &path(""), Some(&director), "").await;
    assert_eq!(read["disputes"][0]["game"], game.as_str(), "{read}");

    // Black resigns on n2: the game's result is logged (by n2) and reaches n1's console,
    // the dispute gone with it.
    b.send(&json!({"resign":true,"id":"b2"})).await.unwrap();
    let over = until_result(&mut b).await;
    assert_eq!(over["result"], "1-0", "{over}");
    let result = until(&mut console, "the result on n1", |m| {
        m["type"] == "change"
            && m["rows"]
                .as_array()
                .is_some_and(|r| r.iter().any(|r| r.to_string().contains("set-game-result")))
    })
    .await;
    assert_eq!(result["disputes"], json!([]), "{result}");
    until(&mut projector, "the result on n2", |m| {
        m.to_string().contains("set-game-result")
    })
    .await;
    // Once in the log, whatever both nodes did: n1 then makes a change of its own (on
    // top of n2's rows), and nothing logs the result again.
    let (status, _) = call(a1, "POST", &path("/deputy"), Some(&director), "").await;
    assert_eq!(status, 201);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pool = sqlx::PgPool::connect(&db.url_via(db.upstream().port()))
        .await
        .expect("the test database");
    let rows: Vec<(i64, String)> = sqlx::query_as(
        "SELECT seq, json FROM tournament_log WHERE tournament_id = $1 ORDER BY seq",
    )
    .bind(&id)
    .fetch_all(&pool)
    .await
    .expect("the log");
    pool.close().await;
    let results = rows
        .iter()
        .filter(|(_, j)| j.contains("set-game-result"))
        .count();
    assert_eq!(results, 1, "{rows:?}");
    let seqs: Vec<i64> = rows.iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, (1..=rows.len() as i64).collect::<Vec<_>>());
    // Both nodes read the same evening.
    let (_, on1) = call(a1, "GET", &path(""), None, "").await;
    let (_, on2) = call(a2, "GET", &path(""), None, "").await;
    assert_eq!(on1, on2);
    assert_eq!(on1["seq"], rows.len() as i64, "{on1}");
    drop((w, b));
    n2.stop().await.expect("n2 stops");
    n1.stop().await.expect("n1 stops");
}

/// The answer to an action sent on `ws` with `id`: its `refused` message.
async fn refusal(ws: &mut Ws, action: Value) -> Value {
    let id = action["id"].clone();
    ws.send(&action).await.expect("the action goes out");
    loop {
        match ws.recv(NOTICE_WITHIN).await {
            Incoming::Msg(m) if m["id"] == id => {
                assert_eq!(m["type"], "refused", "{m}");
                return m;
            }
            Incoming::Msg(_) => {}
            other => panic!("the game's socket: {other:?} before {id} was answered"),
        }
    }
}

/// Issue 32, item 5: a round's hold whose word is lost. The director deletes a round on
/// n1 whose game n2 serves; n1 holds the game on n2 over NATS, then (the test holding
/// the evening's log table) its commit waits; NATS goes down; the commit is stored (the
/// game aborted), and n1's word to n2 is lost. The game refuses actions as held, and
/// once the hold is over (`ROUND_HOLD`, 10 s) as the stored row says: aborted, the
/// round's reason, not "held" until its 30-minute expiry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn a_round_hold_whose_word_is_lost_ends_on_the_stored_row() {
    let mut nats = Nats::start().await;
    let db = PgDb::create().await;
    let n1 = node("n1", &nats, &db).await;
    let n2 = node("n2", &nats, &db).await;
    let (a1, a2) = (n1.addr, n2.addr);
    let (status, created) = call(
        a1,
        "POST",
        "/api/events",
        None,
        &json!({"name":"Lost word","format":"round-robin","time_control":"G/5;d0",
                "rules":"uscf-2020","play":"server","mode":"otb"})
        .to_string(),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let director = created["director_token"].as_str().unwrap().to_string();
    let path = |tail: &str| format!("/api/events/{id}{tail}");
    let (status, added) = call(
        a1,
        "POST",
        &path("/players?check_in=true"),
        Some(&director),
        &json!({"players":[{"name":"Ann","rating":2000},{"name":"Bo","rating":1900}]}).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{added}");
    let (status, round) = call(a2, "POST", &path("/rounds"), Some(&director), "").await;
    assert_eq!(status, 201, "{round}");
    let game = round["boards"][0]["game"].as_str().unwrap().to_string();
    let white = round["boards"][0]["white"]["name"].as_str().unwrap();
    let token = added["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == white)
        .unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let mut ws = Ws::connect(a2, &game, Some(&token), NOTICE_WITHIN)
        .await
        .expect("White on n2");

    let pool = sqlx::PgPool::connect(&db.url_via(db.upstream().port()))
        .await
        .expect("the test database");
    let mut lock = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE tournament_log IN EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let delete = {
        let director = director.clone();
        let p = path("/rounds/1");
        tokio::spawn(async move { call(a1, "DELETE", &p, Some(&director), "").await })
    };
    let deadline = tokio::time::Instant::now() + NOTICE_WITHIN;
    loop {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
             AND wait_event_type = 'Lock' AND query LIKE '%tournament_log%'",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        if waiting > 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "n1's change never waited for the log"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // n1 holds the game (its commit comes after the hold).
    let held_by = tokio::time::Instant::now();
    nats.kill();
    lock.commit().await.unwrap();
    let (status, body) = delete.await.unwrap();
    assert_eq!(status, 200, "the round deleted: {body}");

    let first = refusal(&mut ws, json!({"move":"e2e4","press":true,"id":"w1"})).await;
    assert!(
        first["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("changing"),
        "held: {first}"
    );
    tokio::time::sleep_until(held_by + Duration::from_secs(11)).await;
    let later = refusal(&mut ws, json!({"move":"e2e4","press":true,"id":"w2"})).await;
    eprintln!("held: {first}; after the hold: {later}");
    assert!(
        later["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("aborted"),
        "after its hold, the game is as stored (aborted): {later}"
    );
    let (_, state) = call(a2, "GET", &format!("/api/games/{game}"), None, "").await;
    assert_eq!(state["aborted"], true, "{state}");
    let events: i64 = sqlx::query_scalar("SELECT count(*) FROM events WHERE game_id = $1")
        .bind(&game)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(events, 0, "nothing stored for the aborted game");
    pool.close().await;
    drop(ws);
    nats.restart().await;
    n2.stop().await.expect("n2 stops");
    n1.stop().await.expect("n1 stops");
}

//! Issue 19's abuse items, end to end against the real server: bounded setups and names,
//! the practice computer that never repeats a refused action, security headers and
//! WebSocket close codes, HTTP timeouts and limits.

use serde_json::{Value, json};

use crate::support::*;

/// The error text of a refused request, checked to name `field`.
fn names_field(status: u16, body: &str, field: &str) {
    assert_eq!(status, 400, "{body}");
    let v: Value = serde_json::from_str(body).expect("a JSON error");
    let e = v["error"].as_str().expect("an error message");
    assert!(e.contains(&format!("`{field}`")), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simultaneous_ms_is_capped_everywhere_a_game_is_made() {
    let srv = Server::start().await;
    let huge = r#"{"rules":"uscf-2020","time_control":"G/5;d0","simultaneous_ms":1000000000}"#;
    let (status, body) = srv.post("/api/games", huge).await;
    names_field(status, &body, "simultaneous_ms");
    assert!(body.contains("2000"), "the limit is named: {body}");
    let (status, body) = srv.post("/api/challenges", huge).await;
    names_field(status, &body, "simultaneous_ms");
    let practice = json!({
        "setup": serde_json::from_str::<Value>(huge).unwrap(),
        "computer": {"color": "black", "level": 1}
    });
    let (status, body) = srv.post("/api/practice", &practice.to_string()).await;
    names_field(status, &body, "simultaneous_ms");
    // The largest allowed window is taken, and the game plays on after it.
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0","simultaneous_ms":2000}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    assert_eq!(white.event().await["n"], 1);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn player_names_have_one_limit_everywhere() {
    let srv = Server::start().await;
    let long = "n".repeat(65);
    let injected = "Ann\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n[X \"";
    for (field, name) in [("white", long.as_str()), ("black", injected)] {
        let body = json!({"rules":"uscf-2020","time_control":"G/5;d0", field: name});
        let (status, text) = srv.post("/api/games", &body.to_string()).await;
        names_field(status, &text, field);
        let practice = json!({"setup": body, "computer": {"color": "black", "level": 1}});
        let (status, text) = srv.post("/api/practice", &practice.to_string()).await;
        names_field(status, &text, field);
    }
    for name in [long.as_str(), injected, "tab\there"] {
        let body = json!({"rules":"uscf-2020","time_control":"G/5;d0","name": name});
        let (status, text) = srv.post("/api/challenges", &body.to_string()).await;
        names_field(status, &text, "name");
    }
    let (status, text) = srv
        .post(
            "/api/challenges",
            r#"{"rules":"uscf-2020","time_control":"G/5;d0","name":"Ann"}"#,
        )
        .await;
    assert_eq!(status, 201, "{text}");
    let id = serde_json::from_str::<Value>(&text).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let accept = format!("/api/challenges/{id}/accept");
    let (status, text) = srv
        .post(&accept, &json!({ "name": injected }).to_string())
        .await;
    names_field(status, &text, "name");
    // 64 characters, accents included, are a name.
    let ok = "é".repeat(64);
    let (status, text) = srv.post(&accept, &json!({ "name": ok }).to_string()).await;
    assert_eq!(status, 201, "{text}");
    srv.stop().await;
}

/// How many of the game's rulings refuse or reject what a player did.
fn refusals(state: &Value) -> usize {
    state["rulings"]
        .as_array()
        .expect("rulings")
        .iter()
        .filter(|r| r["kind"] == "refused" || r["kind"] == "claim_rejected")
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_practice_computer_never_repeats_a_refused_claim() {
    let srv = Server::start().await;
    // Training with every computer move illegal: the player plays on instead of claiming.
    let body = json!({
        "setup": {"rules": "uscf-2020", "time_control": "G/5;d0"},
        "computer": {"color": "black", "level": 1, "training": true, "illegal_rate": 1.0,
                     "seed": 1, "repeat_at": 1000}
    });
    let (status, text) = srv.post("/api/practice", &body.to_string()).await;
    assert_eq!(status, 201, "{text}");
    let g: Value = serde_json::from_str(&text).unwrap();
    let id = g["id"].as_str().unwrap();
    let mut white = srv
        .connect(id, Some(g["tokens"]["white"].as_str().unwrap()))
        .await;
    // The computer's illegal move (seed 1: the king e8d6), then the player's legal
    // knight move, which the computer claims as illegal.
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    white
        .until(|m| {
            m["type"] == "event"
                && m["update"]["moves"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x["by"] == "black"))
        })
        .await;
    white.send(json!({"move": "g1f3","press":true})).await;
    white.event().await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let state = srv.state(id).await;
    // The computer claimed the legal move once, was refused, and did not claim again;
    // it played on instead (its next move, pressed), as if it had nothing to claim.
    let refused = refusals(&state);
    assert_eq!(refused, 1, "{}", state["rulings"]);
    let moves = state["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 4, "the computer's next move: {state}");
    assert_eq!(moves[3]["by"], "black");
    assert_eq!(state["n"], 5, "{}", state["rulings"]);
    assert_eq!(state["clock"]["running"], "white", "{state}");
    srv.stop().await;
}

/// A raw HTTP exchange: send `request` as is, read until the server closes (or `wait`
/// passes): the status line and headers (lower-case names), and the body.
async fn raw(addr: std::net::SocketAddr, request: &[u8]) -> (String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    s.write_all(request).await.expect("send");
    let mut out = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), s.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out).to_string();
    match text.split_once("\r\n\r\n") {
        Some((h, b)) => (h.to_ascii_lowercase(), b.to_string()),
        None => (text.to_ascii_lowercase(), String::new()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_carry_security_headers() {
    let srv = Server::start().await;
    for path in ["/", "/play/x", "/app.js", "/api/games", "/api/games/nope"] {
        let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let (head, _) = raw(srv.addr, req.as_bytes()).await;
        for want in [
            "content-security-policy: default-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
            "x-frame-options: deny",
            "referrer-policy: no-referrer",
        ] {
            assert!(head.contains(want), "{path}: no {want:?} in\n{head}");
        }
    }
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_close_codes_follow_rfc_6455() {
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
        .await;
    // A text message that is not UTF-8: 1007.
    let mut c = srv.connect(&g.id, None).await;
    let bad = Frame::message(vec![b'{', 0xff, 0xfe, b'}'], OpCode::Data(Data::Text), true);
    assert!(c.send_message(Message::Frame(bad)).await);
    assert_eq!(c.until_close().await.0, 1007);
    // A continuation with nothing to continue: a protocol error, 1002.
    let mut c = srv.connect(&g.id, None).await;
    let orphan = Frame::message(b"x".to_vec(), OpCode::Data(Data::Continue), true);
    assert!(c.send_message(Message::Frame(orphan)).await);
    assert_eq!(c.until_close().await.0, 1002);
    // A message over 64 KiB: 1009, the one case for it.
    let mut c = srv.connect(&g.id, None).await;
    assert!(c.try_send_text(&"x".repeat(70 * 1024)).await);
    assert_eq!(c.until_close().await.0, 1009);
    srv.stop().await;
}

/// Limits small enough to reach in a test: 1 s to send headers or a body, 4 connections
/// an address, 5 creations at once then one a second.
fn tight() -> flagfall_server::limits::Limits {
    flagfall_server::limits::Limits {
        connections_per_address: 4,
        header_timeout: std::time::Duration::from_secs(1),
        body_timeout: std::time::Duration::from_secs(1),
        creates_per_minute: 60,
        create_burst: 5,
        engines: 2,
        sockets_per_token: 3,
        ..flagfall_server::limits::Limits::default()
    }
}

/// Whether the server has closed `s` (read gives end of file or an error) within `wait`.
async fn closed_within(s: &mut tokio::net::TcpStream, wait: std::time::Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buf = vec![0u8; 4096];
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_requests_time_out_and_long_bodies_are_refused_up_front() {
    use tokio::io::AsyncWriteExt;
    use tokio::net::TcpStream;
    let srv = Server::start_with(tight()).await;
    let secs = std::time::Duration::from_secs;
    // Headers a byte at a time (slowloris): closed after the header timeout.
    let mut slow = TcpStream::connect(srv.addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let trickle = async {
        for _ in 0..10 {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            if slow.write_all(b"X").await.is_err() {
                break;
            }
        }
    };
    trickle.await;
    assert!(
        closed_within(&mut slow, secs(2)).await,
        "slow headers kept open"
    );
    // A body that never comes: answered and closed after the body timeout.
    let mut slow = TcpStream::connect(srv.addr).await.unwrap();
    slow.write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"ru")
        .await
        .unwrap();
    assert!(
        closed_within(&mut slow, secs(3)).await,
        "slow body kept open"
    );
    // A Content-Length of 100 MB is refused before any of it is sent.
    let (head, body) = raw(
        srv.addr,
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n",
    )
    .await;
    assert!(head.starts_with("http/1.1 413"), "{head}");
    assert!(body.contains("100000000 bytes"), "{body}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_per_address_are_limited() {
    use tokio::net::TcpStream;
    let srv = Server::start_with(tight()).await;
    let g = srv.create(USCF_GAME).await;
    // Four open connections (two of them WebSockets) from this address...
    let _a = srv.connect(&g.id, None).await;
    let _b = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let _c = TcpStream::connect(srv.addr).await.unwrap();
    let _d = TcpStream::connect(srv.addr).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    // ...and the fifth is told so and closed.
    let (head, body) = raw(srv.addr, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(head.starts_with("http/1.1 429"), "{head}");
    assert!(body.contains("too many open connections"), "{body}");
    drop((_c, _d));
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(
        srv.get_status("/healthz").await,
        200,
        "a closed one frees its place"
    );
    srv.stop().await;
}

const USCF_GAME: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creation_is_limited_per_address() {
    let srv = Server::start_with(tight()).await;
    // The burst of 5 goes through, games and challenges alike...
    for i in 0..5 {
        let path = if i % 2 == 0 {
            "/api/games"
        } else {
            "/api/challenges"
        };
        let (status, body) = srv.post(path, USCF_GAME).await;
        assert_eq!(status, 201, "{body}");
    }
    // ...the sixth is refused with the time to wait, and reading is not limited.
    for path in ["/api/games", "/api/challenges", "/api/practice"] {
        let (status, body) = srv.post(path, USCF_GAME).await;
        assert_eq!(status, 429, "{path}: {body}");
        assert!(body.contains("wait"), "{body}");
    }
    assert_eq!(srv.get_status("/api/games").await, 200);
    // One a second comes back.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (status, body) = srv.post("/api/games", USCF_GAME).await;
    assert_eq!(status, 201, "{body}");
    srv.stop().await;
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_processes_are_capped() {
    use std::os::unix::fs::PermissionsExt;
    // A UCI engine in a few lines of shell: it answers the handshake and has no move (the
    // built-in opponent then plays), so each practice game holds one process.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\nwhile read line; do case \"$line\" in uci) echo uciok;; isready) echo readyok;; \
         go*) echo 'bestmove (none)';; quit) exit 0;; esac; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let limits = flagfall_server::limits::Limits {
        engines: 2,
        ..flagfall_server::limits::Limits::unlimited()
    };
    let srv = Server::start_engine(Some(path), limits).await;
    let body = json!({
        "setup": {"rules": "uscf-2020", "time_control": "G/5;d0"},
        "computer": {"color": "black", "level": 1}
    })
    .to_string();
    for _ in 0..2 {
        let (status, text) = srv.post("/api/practice", &body).await;
        assert_eq!(status, 201, "{text}");
    }
    let (status, text) = srv.post("/api/practice", &body).await;
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("practice computer is busy"), "{text}");
    // A game between people is not refused.
    assert_eq!(srv.post("/api/games", USCF_GAME).await.0, 201);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_per_token_are_limited() {
    let srv = Server::start_with(flagfall_server::limits::Limits {
        connections_per_address: 0,
        ..tight()
    })
    .await;
    let g = srv.create(USCF_GAME).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(srv.connect(&g.id, Some(&g.tokens.white)).await);
    }
    // A fourth socket with White's token is refused; Black's and spectators are not.
    assert_eq!(srv.ws_status(&g.id, Some(&g.tokens.white)).await, 429);
    let _black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let _watch = srv.connect(&g.id, None).await;
    // A socket closed frees its place (once the server has seen it close).
    drop(open.pop());
    let mut white = None;
    for _ in 0..50 {
        match srv.try_connect(&g.id, Some(&g.tokens.white)).await {
            Ok(c) => {
                white = Some(c);
                break;
            }
            Err(status) => assert_eq!(status, 429),
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let mut white = white.expect("a place freed within 5 s");
    white.send(json!({"move":"e2e4","press":true})).await;
    assert_eq!(white.event().await["n"], 1);
    srv.stop().await;
}

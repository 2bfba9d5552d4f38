//! Blitz evenings on the server (issue 21), through the real server as a stranger uses
//! it: HTTP with Bearer tokens, the game WebSockets, the evening's live socket.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use flagfall_events::change::{Change, Origin};
use flagfall_events::event::{Event, Format, NewPlayer, RecordedResult};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use crate::support::*;

/// One HTTP request with an optional Bearer token: the status and the body.
pub(crate) async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, String) {
    let (status, _, raw) = call_raw(
        addr,
        method,
        path,
        token,
        "application/json",
        body.as_bytes(),
    )
    .await;
    (status, String::from_utf8_lossy(&raw).to_string())
}

/// One HTTP request with a content type (empty: no `Content-Type` header): the status,
/// the response's head (lowercase) and its body as bytes.
pub(crate) async fn call_raw(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    content_type: &str,
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let ctype = if content_type.is_empty() {
        String::new()
    } else {
        format!("Content-Type: {content_type}\r\n")
    };
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}{ctype}Content-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(req.as_bytes()).await.expect("send");
    s.write_all(body).await.expect("send");
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .expect("read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP response");
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let rest = &raw[split + 4..];
    let status: u16 = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = if head.contains("transfer-encoding: chunked") {
        let mut out = Vec::new();
        let mut rest = rest;
        while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = String::from_utf8_lossy(&rest[..eol]).trim().to_string();
            let n = usize::from_str_radix(&size, 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let after = &rest[eol + 2..];
            out.extend_from_slice(&after[..n]);
            rest = &after[n + 2..];
        }
        out
    } else {
        rest.to_vec()
    };
    (status, head, body)
}

/// A request that must answer `status`; its body as JSON (or as a string).
pub(crate) async fn expect(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
    status: u16,
) -> Value {
    let (got, text) = call(addr, method, path, token, body).await;
    assert_eq!(got, status, "{method} {path}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

pub(crate) struct Evening {
    pub(crate) addr: SocketAddr,
    pub(crate) id: String,
    pub(crate) director: String,
}

impl Evening {
    pub(crate) async fn create(addr: SocketAddr, body: Value) -> Evening {
        let v = expect(addr, "POST", "/api/events", None, &body.to_string(), 201).await;
        Evening {
            addr,
            id: v["id"].as_str().unwrap().into(),
            director: v["director_token"].as_str().unwrap().into(),
        }
    }

    pub(crate) fn path(&self, tail: &str) -> String {
        format!("/api/events/{}{tail}", self.id)
    }

    pub(crate) async fn director(
        &self,
        method: &str,
        tail: &str,
        body: Value,
        status: u16,
    ) -> Value {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        expect(
            self.addr,
            method,
            &self.path(tail),
            Some(&self.director),
            &body,
            status,
        )
        .await
    }

    pub(crate) async fn get(&self, tail: &str) -> Value {
        expect(self.addr, "GET", &self.path(tail), None, "", 200).await
    }

    /// The evening as the public reads it, without the fields that count changes.
    pub(crate) async fn state(&self) -> Value {
        let mut v = self.get("").await;
        v.as_object_mut().unwrap().remove("seq");
        v
    }
}

/// Bad input and wrong tokens leave the evening as it was; a player checks in by link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evening_tokens_and_bad_input_change_nothing() {
    let srv = Server::start().await;
    let addr = srv.addr;
    // A bad body names what is wrong.
    let (status, text) = call(addr, "POST", "/api/events", None, r#"{"name":"x","format":"knockout","time_control":"G/5;d0","rules":"uscf-2020","play":"board"}"#).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("knockout"), "{text}");
    let ev = Evening::create(
        addr,
        json!({"name":"Thursday blitz","format":"swiss","rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board","confirm":"both"}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900},
                              {"name":"Cy","rating":1800},{"name":"Di","rating":1700}]}),
            201,
        )
        .await;
    // A name of 100,000 characters is refused, said so, and not echoed whole.
    let long = "A".repeat(100_000);
    let refused = ev
        .director("POST", "/players", json!({"name": long}), 400)
        .await;
    let said = refused["error"].as_str().unwrap();
    assert!(
        said.contains("players[1].name: 100000 characters, longer than the 64") && said.len() < 300,
        "{said:.300}"
    );
    let tokens: HashMap<String, String> = added["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["token"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let before = ev.state().await;
    // No token: 401; a player's token or a stranger's on a director route: 403.
    let pair = ev.path("/rounds");
    assert_eq!(call(addr, "POST", &pair, None, "").await.0, 401);
    assert_eq!(
        call(addr, "POST", &pair, Some(&tokens["Ann"]), "").await.0,
        403
    );
    assert_eq!(call(addr, "POST", &pair, Some("0123abcd"), "").await.0, 403);
    // A malformed CSV and a TRF that is not one: 400 naming what is wrong.
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/players?format=csv"),
        Some(&ev.director),
        "name,rating\nEve,abc\n",
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("line 2") || text.contains("abc"), "{text}");
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/players?format=trf"),
        Some(&ev.director),
        "this is not a tournament report",
    )
    .await;
    assert_eq!(status, 400, "{text}");
    // A rating list that is not one.
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/ratings"),
        Some(&ev.director),
        "hello\nworld\n",
    )
    .await;
    assert_eq!(status, 400, "{text}");
    // A duplicate name, and bad JSON.
    ev.director("POST", "/players", json!({"name":"Ann"}), 409)
        .await;
    ev.director("POST", "/players", json!({"nom":"Zed"}), 400)
        .await;
    ev.director("POST", "/players", json!({"players":[]}), 400)
        .await;
    assert_eq!(ev.state().await, before, "nothing changed");
    // Nobody checked in: the round is refused, naming why.
    let (status, text) = call(addr, "POST", &pair, Some(&ev.director), "").await;
    assert_eq!(status, 409, "{text}");
    assert_eq!(ev.state().await, before, "nothing changed");
    // Players check in by their links; a player cannot check another in.
    let numbers: HashMap<String, u64> = before["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().into(),
                p["number"].as_u64().unwrap(),
            )
        })
        .collect();
    let bob = numbers["Bob"];
    let (status, _) = call(
        addr,
        "POST",
        &ev.path(&format!("/players/{bob}/check-in")),
        Some(&tokens["Ann"]),
        "",
    )
    .await;
    assert_eq!(status, 403);
    for (name, token) in &tokens {
        let n = numbers[name];
        expect(
            addr,
            "POST",
            &ev.path(&format!("/players/{n}/check-in")),
            Some(token),
            "",
            200,
        )
        .await;
    }
    let me = expect(addr, "GET", &ev.path("/me"), Some(&tokens["Ann"]), "", 200).await;
    assert_eq!(me["checked_in"], true);
    // Round 1; a second round is refused while results are missing, naming the boards.
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    assert_eq!(r1["round"], 1);
    assert_eq!(r1["boards"].as_array().unwrap().len(), 2);
    let (status, text) = call(addr, "POST", &pair, Some(&ev.director), "").await;
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("board"), "{text}");
    // Reports from both players of board 1 (confirm: both): they disagree, the director
    // sees it and decides; board 2 agrees.
    let b1 = &r1["boards"][0];
    let (w1, b1n) = (
        b1["white"]["name"].as_str().unwrap(),
        b1["black"]["name"].as_str().unwrap(),
    );
    let result_path = ev.path("/rounds/1/boards/1/result");
    expect(
        addr,
        "POST",
        &result_path,
        Some(&tokens[w1]),
        r#"{"result":"1-0"}"#,
        200,
    )
    .await;
    expect(
        addr,
        "POST",
        &result_path,
        Some(&tokens[b1n]),
        r#"{"result":"0-1"}"#,
        200,
    )
    .await;
    // The director sees the disagreement; the public does not.
    let st = ev.director("GET", "", Value::Null, 200).await;
    assert_eq!(st["disagreements"][0]["board"], 1, "{st}");
    assert!(ev.get("").await.get("disagreements").is_none());
    // A player of another board cannot report this one.
    let b2 = &r1["boards"][1];
    let (w2, b2n) = (
        b2["white"]["name"].as_str().unwrap(),
        b2["black"]["name"].as_str().unwrap(),
    );
    let (status, _) = call(
        addr,
        "POST",
        &result_path,
        Some(&tokens[w2]),
        r#"{"result":"1-0"}"#,
    )
    .await;
    assert_eq!(status, 409);
    ev.director(
        "POST",
        "/rounds/1/boards/1/result",
        json!({"result":"1/2"}),
        200,
    )
    .await;
    let p2 = ev.path("/rounds/1/boards/2/result");
    expect(
        addr,
        "POST",
        &p2,
        Some(&tokens[w2]),
        r#"{"result":"0-1"}"#,
        200,
    )
    .await;
    expect(
        addr,
        "POST",
        &p2,
        Some(&tokens[b2n]),
        r#"{"result":"0-1"}"#,
        200,
    )
    .await;
    // Result bodies that say nothing usable: 400, nothing changed.
    for bad in [
        json!({"results":[]}),
        json!({"game":1,"results":[]}),
        json!({"result":"2-0"}),
        json!({}),
        json!({"result":"1-0","results":["1-0"]}),
    ] {
        ev.director("POST", "/rounds/1/boards/2/result", bad, 400)
            .await;
    }
    let round = ev.get("/rounds/1").await;
    assert_eq!(round["boards"][0]["results"], json!(["1/2"]));
    assert_eq!(round["boards"][1]["results"], json!(["0-1"]));
    assert_eq!(
        ev.director("GET", "", Value::Null, 200).await["disagreements"],
        json!([])
    );
    // A result of a finished round by a player: refused; the director corrects it, logged.
    let (status, text) = call(addr, "POST", &p2, Some(&tokens[w2]), r#"{"result":"1-0"}"#).await;
    assert_eq!(status, 409, "{text}");
    ev.director("POST", "/rounds", Value::Null, 201).await;
    ev.director(
        "POST",
        "/rounds/1/boards/2/result",
        json!({"result":"1-0"}),
        200,
    )
    .await;
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    let last = log["log"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["by"], "director");
    assert_eq!(
        last["before"][0]["results"]["results"],
        json!(["black-wins"]),
        "{last}"
    );
    // The latest round, nothing played in it, can be deleted; a player cannot.
    let r2 = ev.path("/rounds/2");
    assert_eq!(
        call(addr, "DELETE", &r2, Some(&tokens["Ann"]), "").await.0,
        403
    );
    ev.director("DELETE", "/rounds/2", Value::Null, 200).await;
    assert_eq!(ev.get("").await["rounds_paired"], 1);
    // A deputy's token directs too; the log says so.
    let deputy = ev.director("POST", "/deputy", Value::Null, 201).await;
    let deputy = deputy["deputy_token"].as_str().unwrap().to_string();
    expect(addr, "POST", &pair, Some(&deputy), "", 201).await;
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    assert_eq!(
        log["log"].as_array().unwrap().last().unwrap()["by"],
        "deputy"
    );
    // Everything survives a restart: the log is replayed.
    let state = ev.state().await;
    let db = srv.stop_keeping_db().await;
    let srv = Server::start_on(db).await;
    let ev2 = Evening {
        addr: srv.addr,
        id: ev.id.clone(),
        director: ev.director.clone(),
    };
    assert_eq!(ev2.state().await, state);
    expect(
        srv.addr,
        "GET",
        &ev2.path("/me"),
        Some(&tokens["Ann"]),
        "",
        200,
    )
    .await;
    srv.stop().await;
}

/// How a bot game of the evening ends.
#[derive(Clone, Copy, Debug)]
enum Ending {
    /// White moves a pawn illegally, Black claims: 0-1.
    IllegalClaimed,
    /// Black's flag falls (the director takes Black's time), White claims: 1-0.
    Flag,
    /// Black resigns: 1-0.
    Resign,
    /// A draw agreed.
    Draw,
}

/// Play one game over WebSocket with the players' own links.
async fn play(
    srv: &Server,
    game: &str,
    white_token: &str,
    black_token: &str,
    director_token: &str,
    ending: Ending,
) {
    let mut white = srv.connect(game, Some(white_token)).await;
    let mut black = srv.connect(game, Some(black_token)).await;
    match ending {
        Ending::IllegalClaimed => {
            white.send(json!({"move":"e2e5","press":true})).await;
            white.event().await;
            black.until_n(1).await;
            black.send(json!({"claim":"illegal"})).await;
            let ev = black.event().await;
            assert_eq!(ev["result"], "0-1", "{ev}");
        }
        Ending::Flag => {
            let mut director = srv.connect(game, Some(director_token)).await;
            director
                .send(json!({"add_time":{"color":"black","ms":-299_850}}))
                .await;
            director.event().await;
            white.send(json!({"move":"e2e4","press":true})).await;
            white.event().await;
            let flag = white.until_type("flag").await;
            assert_eq!(flag["color"], "black");
            white.send(json!({"claim":"flag"})).await;
            let ev = white.event().await;
            assert_eq!(ev["result"], "1-0", "{ev}");
        }
        Ending::Resign => {
            white.send(json!({"move":"d2d4","press":true})).await;
            white.event().await;
            black.send(json!({"resign":true})).await;
            let ev = black.event().await;
            assert_eq!(ev["result"], "1-0", "{ev}");
        }
        Ending::Draw => {
            white.send(json!({"move":"g1f3","press":true})).await;
            white.event().await;
            white.send(json!({"offer":"draw"})).await;
            white.event().await;
            black.send(json!({"accept":"draw"})).await;
            let ev = black.event().await;
            assert_eq!(ev["result"], "1/2-1/2", "{ev}");
        }
    }
}

/// Issue 21, "How it must be shown": 10 players, a double round robin of 18 rounds, every
/// game played over WebSocket by bots (illegal moves claimed, flags, resignations,
/// draws); the results arrive in the evening by themselves; the live socket pushes every
/// round and the standings; the final standings and the TRF export equal the events
/// library's fed the same results on paper.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_round_robin_evening_played_on_the_server() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Club blitz","format":"double-round-robin","time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","mode":"otb","date":"2026-11-26"}),
    )
    .await;
    let names: Vec<String> = (0..10).map(|i| format!("Player {}", i + 1)).collect();
    let players: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "rating": 2200 - 50 * i as u32}))
        .collect();
    let added = expect(
        addr,
        "POST",
        &ev.path("/players?check_in=true"),
        Some(&ev.director),
        &json!({ "players": players }).to_string(),
        201,
    )
    .await;
    let tokens: HashMap<String, String> = added["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().into(),
                p["token"].as_str().unwrap().into(),
            )
        })
        .collect();
    // The projector's live socket, read in the background.
    let (mut projector, _) =
        tokio_tungstenite::connect_async(format!("ws://{addr}/ws/events/{}", ev.id))
            .await
            .expect("the live socket");
    let first = next_json(&mut projector).await;
    assert_eq!(first["type"], "state");
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(Ok(msg)) = projector.next().await {
            if let Message::Text(t) = msg {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                let done = v["standings"]["after_round"] == 18;
                seen.push(v);
                if done {
                    break;
                }
            }
        }
        seen
    });
    // The same evening on paper, in the events library.
    let mut paper = Event::new("Club blitz", Format::DoubleRoundRobin, None).unwrap();
    paper.set_ruleset("uscf-2020").unwrap();
    paper.set_time_control("G/5;d0").unwrap();
    paper.date = Some("2026-11-26".into());
    paper.check_in = true;
    let origin = Origin::new("director", 0);
    for (i, n) in names.iter().enumerate() {
        paper
            .apply(
                Change::AddPlayer {
                    player: NewPlayer {
                        name: n.clone(),
                        rating: Some(2200 - 50 * i as u32),
                        ..NewPlayer::default()
                    },
                    check_in: true,
                },
                &origin,
            )
            .unwrap();
    }
    let started = std::time::Instant::now();
    for r in 1..=18u32 {
        let round = ev.director("POST", "/rounds", Value::Null, 201).await;
        paper.apply(Change::PairNext, &origin).unwrap();
        let boards = round["boards"].as_array().unwrap().clone();
        assert_eq!(boards.len(), 5);
        let mut games = Vec::new();
        for (i, b) in boards.iter().enumerate() {
            let (w, bl) = (
                b["white"]["name"].as_str().unwrap().to_string(),
                b["black"]["name"].as_str().unwrap().to_string(),
            );
            // The same pairing as on paper.
            let pb = &paper.round_list[r as usize - 1].boards[i];
            assert_eq!(
                (
                    b["white"]["number"].as_u64().unwrap(),
                    b["black"]["number"].as_u64().unwrap()
                ),
                (u64::from(pb.white), u64::from(pb.black)),
                "round {r} board {}",
                i + 1
            );
            let game = b["game"].as_str().expect("a server game").to_string();
            let ending = match (r as usize * 7 + i) % 4 {
                0 => Ending::IllegalClaimed,
                1 => Ending::Flag,
                2 => Ending::Resign,
                _ => Ending::Draw,
            };
            games.push((game, tokens[&w].clone(), tokens[&bl].clone(), ending));
        }
        // The players' pages show their boards and games.
        let me = expect(
            addr,
            "GET",
            &ev.path("/me"),
            Some(&tokens[&names[0]]),
            "",
            200,
        )
        .await;
        assert_eq!(me["round"], r);
        assert!(me["games"][0]["id"].is_string(), "{me}");
        let plays = games
            .iter()
            .map(|(g, wt, bt, ending)| play(&srv, g, wt, bt, &ev.director, *ending));
        futures_util::future::join_all(plays).await;
        // The results arrive by themselves.
        let done = wait_round_complete(&ev, r).await;
        for (i, b) in done["boards"].as_array().unwrap().iter().enumerate() {
            let result: RecordedResult = b["results"][0].as_str().unwrap().parse().unwrap();
            paper
                .apply(
                    Change::SetResults {
                        round: r,
                        board: i as u32 + 1,
                        results: vec![result],
                    },
                    &origin,
                )
                .unwrap();
        }
    }
    let elapsed = started.elapsed();
    // The evening is over: a 19th round is refused.
    ev.director("POST", "/rounds", Value::Null, 409).await;
    let standings = ev.get("/standings").await;
    assert_eq!(standings["after_round"], 18);
    let paper_st = paper.standings(None, None).unwrap();
    let server_rows: Vec<(String, f64)> = standings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().into(),
                r["points"].as_f64().unwrap(),
            )
        })
        .collect();
    let paper_rows: Vec<(String, f64)> = paper_st
        .rows
        .iter()
        .map(|r| (paper.players[r.player].name.clone(), r.score.as_f64()))
        .collect();
    assert_eq!(server_rows, paper_rows);
    let total: f64 = server_rows.iter().map(|r| r.1).sum();
    assert_eq!(total, 90.0, "90 games, one point each");
    let trf = expect(addr, "GET", &ev.path("/export/trf"), None, "", 200).await;
    assert_eq!(
        trf.as_str().unwrap(),
        flagfall_events::export::trf(&paper).unwrap(),
        "the TRF export equals the paper evening's"
    );
    // The rating changes (Glicko-2 and the US Chess estimate) equal the library's on the
    // paper evening.
    let ratings = ev.get("/rating-changes").await;
    let paper_ratings = flagfall_events::rating_report::rating_changes(&paper).unwrap();
    // (The games are summed in another order: equal to a millionth of a point.)
    let rounded = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let f = |x: &Value| format!("{:.6}", x.as_f64().unwrap_or(f64::NAN));
                format!(
                    "{} {} {} {} {} {} {} {}",
                    r["number"],
                    r["games"],
                    r["score"],
                    f(&r["glicko2_after"]["rating"]),
                    f(&r["glicko2_after"]["deviation"]),
                    f(&r["us_after"]),
                    r["us_formula"],
                    f(&r["performance"]),
                )
            })
            .collect()
    };
    let paper_ratings = serde_json::to_value(&paper_ratings).unwrap();
    assert_eq!(rounded(&ratings["players"]), rounded(&paper_ratings));
    assert_eq!(ratings["players"].as_array().unwrap().len(), 10);
    // The PGN holds every game with its moves and rulings.
    let pgn = expect(addr, "GET", &ev.path("/export/pgn"), None, "", 200).await;
    assert_eq!(pgn.as_str().unwrap().matches("[Round \"").count(), 90);
    assert!(pgn.as_str().unwrap().contains("%ff"), "rulings in comments");
    // The live socket pushed every round's pairing and the standings after each round.
    let seen = tokio::time::timeout(Duration::from_secs(20), watcher)
        .await
        .expect("the live socket saw the last standings")
        .unwrap();
    let paired = seen
        .iter()
        .filter(|m| {
            m["effects"]
                .as_array()
                .is_some_and(|e| e.iter().any(|x| x["effect"] == "round-paired"))
        })
        .count();
    assert_eq!(paired, 18);
    let standings_pushed: Vec<u64> = seen
        .iter()
        .filter_map(|m| m["standings"]["after_round"].as_u64())
        .collect();
    for r in 1..=18 {
        assert!(
            standings_pushed.contains(&r),
            "standings after round {r} pushed"
        );
    }
    eprintln!("18 rounds, 90 games in {elapsed:?}");
    srv.stop().await;
}

pub(crate) async fn next_json(
    ws: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message in time")
            .expect("open")
            .expect("a frame");
        if let Message::Text(t) = msg {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}

/// Poll the round until every result is in (they arrive from the games by themselves).
async fn wait_round_complete(ev: &Evening, r: u32) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let round = ev.get(&format!("/rounds/{r}")).await;
        if round["complete"] == true {
            return round;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "round {r}'s results did not arrive: {round}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `flagfall event export --server URL --token T > club.json` and `flagfall event import
/// --server URL club.json` move an evening between a server and an event file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evening_moves_between_server_and_file() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Export night","format":"swiss","rounds":2,"time_control":"G/3;d2",
               "rules":"uscf-2020","play":"board","check_in":false}),
    )
    .await;
    ev.director(
        "POST",
        "/players",
        json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900},{"name":"Cy"}]}),
        201,
    )
    .await;
    ev.director("POST", "/rounds", Value::Null, 201).await;
    ev.director(
        "POST",
        "/rounds/1/boards/1/result",
        json!({"result":"1-0"}),
        200,
    )
    .await;
    let url = format!("http://{addr}/api/events/{}", ev.id);
    let bin = env!("CARGO_BIN_EXE_flagfall");
    let run = |args: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(bin)
                .args(&args)
                .output()
                .expect("run flagfall")
        })
    };
    // A wrong token: refused, the server's reason shown, nothing written.
    let out = run(vec![
        "event".into(),
        "export".into(),
        "--server".into(),
        url.clone(),
        "--token".into(),
        "nope".into(),
    ])
    .await
    .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("403"),
        "{out:?}"
    );
    let out = run(vec![
        "event".into(),
        "export".into(),
        "--server".into(),
        url.clone(),
        "--token".into(),
        ev.director.clone(),
    ])
    .await
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    let file = String::from_utf8(out.stdout).unwrap();
    let exported = ev.director("GET", "/export/json", Value::Null, 200).await;
    assert_eq!(
        serde_json::from_str::<Value>(&file).unwrap(),
        exported,
        "the file is the server's event"
    );
    // The file reads as an event file (`flagfall event` takes it).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("club.json");
    std::fs::write(&path, &file).unwrap();
    let out = run(vec![
        "event".into(),
        "standings".into(),
        path.display().to_string(),
    ])
    .await
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    // And back onto the server, as a new evening with the same players, rounds, log.
    let out = run(vec![
        "event".into(),
        "import".into(),
        "--server".into(),
        format!("http://{addr}"),
        path.display().to_string(),
    ])
    .await
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    let created: Value = serde_json::from_slice(&out.stdout).unwrap();
    let copy = Evening {
        addr,
        id: created["id"].as_str().unwrap().into(),
        director: created["director_token"].as_str().unwrap().into(),
    };
    let (mut a, mut b) = (ev.state().await, copy.state().await);
    for v in [&mut a, &mut b] {
        v.as_object_mut().unwrap().remove("id");
    }
    assert_eq!(a, b);
    assert_eq!(copy.get("/rounds/1").await, ev.get("/rounds/1").await);
    let log = copy.director("GET", "/log", Value::Null, 200).await;
    assert_eq!(log["log"], exported["log"], "the log came along");
    // An import that is not an event file is refused, naming why.
    let (status, text) = call(addr, "POST", "/api/events/import", None, r#"{"name":"x"}"#).await;
    assert_eq!(status, 400, "{text}");
    srv.stop().await;
}

/// A Swiss on boards: a forbidden pair honoured, a requested bye, a pause, a late entry,
/// a withdrawal, the director's own pairing with its warning and who made it, and the
/// automatic mode pairing the next round the moment the last result arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swiss_on_boards_with_the_directors_tools() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Swiss night","format":"swiss","rounds":4,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board","confirm":"one","auto":true,"check_in":false}),
    )
    .await;
    let players: Vec<Value> = (0..8)
        .map(|i| json!({"name": format!("P{}", i + 1), "rating": 2000 - 10 * i}))
        .collect();
    let added = ev
        .director("POST", "/players", json!({ "players": players }), 201)
        .await;
    let token = |name: &str| {
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
    // P1 and P5 would meet in round 1 (top half against bottom half): forbidden.
    ev.director(
        "POST",
        "/forbidden",
        json!({"a":1,"b":5,"note":"siblings"}),
        200,
    )
    .await;
    // P8 asks for a half-point bye in round 2 from their own link.
    expect(
        addr,
        "POST",
        &ev.path("/players/8/bye"),
        Some(&token("P8")),
        r#"{"round":2,"kind":"half"}"#,
        200,
    )
    .await;
    // A player may not withdraw anyone (themselves neither: the director does).
    let (status, _) = call(
        addr,
        "POST",
        &ev.path("/players/8/withdraw"),
        Some(&token("P8")),
        "",
    )
    .await;
    assert_eq!(status, 403);
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    for b in r1["boards"].as_array().unwrap() {
        let pair = (
            b["white"]["number"].as_u64().unwrap(),
            b["black"]["number"].as_u64().unwrap(),
        );
        assert!(
            pair != (1, 5) && pair != (5, 1),
            "the forbidden pair met: {r1}"
        );
    }
    // The director's own pairing of round 1 puts the siblings together: accepted with a
    // warning, and the round records who made it.
    let boards: Vec<(u64, u64)> = vec![(1, 5), (6, 2), (3, 7), (8, 4)];
    let over = ev
        .director("PUT", "/rounds/1", json!({ "boards": boards }), 200)
        .await;
    assert!(
        over["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["warning"]["rule"] == "forbidden"),
        "{over}"
    );
    assert_eq!(over["round"]["manual_by"], "director");
    // Back to the computed pairing: delete it and pair again.
    ev.director("DELETE", "/rounds/1", Value::Null, 200).await;
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    // Results from the players' links (confirm: one); the last one pairs round 2 by
    // itself (automatic mode).
    let boards = r1["boards"].as_array().unwrap().clone();
    for b in &boards {
        let white = b["white"]["name"].as_str().unwrap();
        expect(
            addr,
            "POST",
            &ev.path(&format!("/rounds/1/boards/{}/result", b["board"])),
            Some(&token(white)),
            r#"{"result":"1-0"}"#,
            200,
        )
        .await;
    }
    let st = ev.get("").await;
    assert_eq!(st["rounds_paired"], 2, "paired automatically: {st}");
    let r2 = ev.get("/rounds/2").await;
    assert!(
        r2["bye"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["number"] == 8 && b["kind"] == "half"),
        "P8's requested bye: {r2}"
    );
    // A late entry joins from round 3; P2 pauses for round 3; P7 withdraws.
    let late = ev
        .director(
            "POST",
            "/players",
            json!({"name":"Late","rating":1995}),
            201,
        )
        .await;
    assert_eq!(late["players"][0]["number"], 2, "placed by rating: {late}");
    let numbers = |v: &Value| -> HashMap<String, u64> {
        v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().into(),
                    p["number"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let n = numbers(&ev.get("").await);
    ev.director(
        "POST",
        &format!("/players/{}/pause", n["P2"]),
        Value::Null,
        200,
    )
    .await;
    ev.director(
        "POST",
        &format!("/players/{}/withdraw", n["P7"]),
        Value::Null,
        200,
    )
    .await;
    let r2 = ev.get("/rounds/2").await;
    for b in r2["boards"].as_array().unwrap() {
        ev.director(
            "POST",
            &format!("/rounds/2/boards/{}/result", b["board"]),
            json!({"result":"1/2"}),
            200,
        )
        .await;
    }
    let r3 = ev.get("/rounds/3").await;
    let in_r3: Vec<u64> = r3["boards"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| {
            [
                b["white"]["number"].as_u64().unwrap(),
                b["black"]["number"].as_u64().unwrap(),
            ]
        })
        .chain(
            r3["bye"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|b| b["kind"] == "pab")
                .map(|b| b["number"].as_u64().unwrap()),
        )
        .collect();
    assert!(
        in_r3.contains(&n["Late"]),
        "the late entry plays round 3: {r3}"
    );
    assert!(
        !in_r3.contains(&n["P2"]),
        "the paused player is not paired: {r3}"
    );
    assert!(
        !in_r3.contains(&n["P7"]),
        "the withdrawn player is not paired: {r3}"
    );
    // A correction of round 1 is logged with what it replaced.
    ev.director(
        "POST",
        "/rounds/1/boards/1/result",
        json!({"result":"0-1"}),
        200,
    )
    .await;
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    let last = log["log"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["change"]["change"], "set-results", "{last}");
    assert_eq!(
        last["before"][0]["results"]["results"],
        json!(["white-wins"])
    );
    // Standings and crosstable answer, and the CSV export.
    assert!(ev.get("/standings").await["rows"].as_array().unwrap().len() >= 8);
    assert_eq!(ev.get("/crosstable").await["rounds"], 3);
    let csv = expect(addr, "GET", &ev.path("/export/csv"), None, "", 200).await;
    assert!(csv.as_str().unwrap().contains("P1"));
    srv.stop().await;
}

/// A server game that ended while its evening did not take the result (the server
/// stopped between the two): loading the evening takes it. Nothing is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_stored_with_its_game_reaches_the_evening_after_a_restart() {
    let srv = Server::start().await;
    let ev = Evening::create(
        srv.addr,
        json!({"name":"Two","format":"round-robin","time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","check_in":false}),
    )
    .await;
    ev.director(
        "POST",
        "/players",
        json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900}]}),
        201,
    )
    .await;
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    let game = r1["boards"][0]["game"].as_str().unwrap().to_string();
    let db = srv.stop_keeping_db().await;
    // What a crash leaves: the game's final event and result stored (one transaction,
    // as the game's task writes them), the evening's log row not.
    let store = flagfall_store::open(&db.url).await.unwrap();
    store
        .append(&[flagfall_store::NewEvent {
            game_id: game.clone(),
            n: 1,
            json: r#"{"at":0,"by":"black","resign":true}"#.into(),
            by_role: Some(flagfall_protocol::Role::Black),
            client_id: None,
            finished: Some(flagfall_game::GameResult::WhiteWins),
        }])
        .await
        .unwrap();
    drop(store);
    let srv = Server::start_on(db).await;
    let ev = Evening {
        addr: srv.addr,
        id: ev.id.clone(),
        director: ev.director.clone(),
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let round = ev.get("/rounds/1").await;
        if round["complete"] == true {
            assert_eq!(round["boards"][0]["results"], json!(["1-0"]));
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{round}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    assert!(
        log["log"].as_array().unwrap().last().unwrap()["by"]
            .as_str()
            .unwrap()
            .contains("loading"),
        "{log}"
    );
    srv.stop().await;
}

/// `kill -9` of `flagfall serve` in the middle of an evening on server boards: every
/// acknowledged change is there after the restart, the round's games go on, and a
/// round whose game has begun cannot be deleted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evening_survives_kill_9() {
    let mut p = Process::start(None).await;
    let ev = Evening::create(
        p.addr,
        json!({"name":"Crash night","format":"swiss","rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","check_in":false}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900},
                              {"name":"Cy","rating":1800},{"name":"Di","rating":1700}]}),
            201,
        )
        .await;
    let token = |name: &str| {
        added["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    let b1 = r1["boards"][0].clone();
    let game = b1["game"].as_str().unwrap().to_string();
    let white = token(b1["white"]["name"].as_str().unwrap());
    let mut w = p.connect(&game, Some(&white)).await;
    w.send(json!({"move":"e2e4","press":true})).await;
    w.event().await;
    // The game has begun: the round stays.
    let (status, text) = call(
        p.addr,
        "DELETE",
        &ev.path("/rounds/1"),
        Some(&ev.director),
        "",
    )
    .await;
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("has begun"), "{text}");
    ev.director(
        "POST",
        "/rounds/1/boards/2/result",
        json!({"result":"1/2"}),
        200,
    )
    .await;
    let before = ev.state().await;
    let round_before = ev.get("/rounds/1").await;
    drop(w);
    p.kill9();
    let p = Process::start(Some(p.into_db())).await;
    let ev = Evening {
        addr: p.addr,
        id: ev.id.clone(),
        director: ev.director.clone(),
    };
    assert_eq!(ev.state().await, before, "nothing lost");
    assert_eq!(ev.get("/rounds/1").await, round_before);
    // The game goes on after the restart; Black resigns and the result arrives.
    let black = token(b1["black"]["name"].as_str().unwrap());
    let mut b = p.connect(&game, Some(&black)).await;
    b.send(json!({"resign":true})).await;
    assert_eq!(b.event().await["result"], "1-0");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let round = ev.get("/rounds/1").await;
        if round["complete"] == true {
            assert_eq!(round["boards"][0]["results"], json!(["1-0"]));
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{round}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    ev.director("POST", "/rounds", Value::Null, 201).await;
    p.terminate().await;
}

/// A line of FIDE's combined rating list (the columns FIDE publishes).
pub(crate) fn fide_line(id: u64, name: &str, fed: &str, blitz: u32) -> String {
    let mut cols: Vec<char> = vec![' '; 162];
    let mut put = |at: usize, text: &str| {
        for (i, c) in text.chars().enumerate() {
            cols[at + i] = c;
        }
    };
    put(0, &id.to_string());
    put(15, name);
    put(76, fed);
    put(80, "M");
    put(139, &blitz.to_string());
    put(145, "0");
    put(149, "20");
    put(152, "1990");
    cols.into_iter().collect::<String>().trim_end().to_string()
}

/// The director loads a FIDE rating list (ratings and ids filled by name); a player
/// checks in by link and the live socket pushes it at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rating_list_fills_ratings_and_check_ins_are_pushed() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Rated","format":"swiss","rounds":5,"time_control":"G/5;d0",
               "rules":"fide-b3","play":"board"}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Magnus Carlsen"},{"name":"Ann Other","rating":1500}]}),
            201,
        )
        .await;
    let list = [
        "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag".to_string(),
        fide_line(1_503_014, "Carlsen, Magnus", "NOR", 2850),
    ]
    .join("\n")
        + "\n";
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/ratings?rating=blitz"),
        Some(&ev.director),
        &list,
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let found: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(found["updated"], 1, "{found}");
    let st = ev.get("").await;
    let magnus = st["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Magnus Carlsen")
        .unwrap()
        .clone();
    assert_eq!(magnus["rating"], 2850);
    assert_eq!(magnus["fide_id"], 1_503_014);
    assert_eq!(magnus["number"], 1, "numbered by rating before round 1");
    // The projector listens; Ann checks in from her link.
    let (mut live, _) =
        tokio_tungstenite::connect_async(format!("ws://{addr}/ws/events/{}", ev.id))
            .await
            .unwrap();
    assert_eq!(next_json(&mut live).await["type"], "state");
    let ann = added["players"][1]["token"].as_str().unwrap();
    let ann_number = st["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Ann Other")
        .unwrap()["number"]
        .as_u64()
        .unwrap();
    expect(
        addr,
        "POST",
        &ev.path(&format!("/players/{ann_number}/check-in")),
        Some(ann),
        "",
        200,
    )
    .await;
    let pushed = next_json(&mut live).await;
    assert_eq!(pushed["type"], "change");
    let listed = pushed["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Ann Other")
        .unwrap()
        .clone();
    assert_eq!(listed["checked_in"], true, "{pushed}");
    assert_eq!(pushed["rows"][0]["change"]["by"], "player Ann Other");
    srv.stop().await;
}

/// The database refuses an evening's commit: the director's change is a 500 and the
/// evening is as it was; a finished game's result whose commit failed is tried again and
/// arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_commit_changes_nothing_and_a_result_is_tried_again() {
    use std::sync::atomic::Ordering;
    let (srv, faults) = Server::start_faulty().await;
    let ev = Evening::create(
        srv.addr,
        json!({"name":"Faults","format":"round-robin","time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","check_in":false}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900},
                              {"name":"Cy","rating":1800},{"name":"Di","rating":1700}]}),
            201,
        )
        .await;
    let token = |name: &str| {
        added["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    let before = ev.state().await;
    faults.evening_fail.store(1, Ordering::SeqCst);
    ev.director(
        "POST",
        "/rounds/1/boards/2/result",
        json!({"result":"1-0"}),
        500,
    )
    .await;
    assert_eq!(ev.state().await, before, "nothing changed");
    assert_eq!(
        ev.get("/rounds/1").await["boards"][1]["results"],
        json!([null])
    );
    // Board 1's game ends while the evening's next commit fails: tried again, it counts.
    faults.evening_fail.store(1, Ordering::SeqCst);
    let b1 = &r1["boards"][0];
    let game = b1["game"].as_str().unwrap();
    let mut black = srv
        .connect(game, Some(&token(b1["black"]["name"].as_str().unwrap())))
        .await;
    black.send(json!({"resign":true})).await;
    assert_eq!(black.event().await["result"], "1-0");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let round = ev.get("/rounds/1").await;
        if round["boards"][0]["results"] == json!(["1-0"]) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{round}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        faults.evening_fail.load(Ordering::SeqCst),
        0,
        "the fault was met"
    );
    srv.stop().await;
}

/// The players' links again for the printed QR codes: the director reads each link the
/// entry answered (the player's own token works with it); a deputy, a player or no token
/// cannot; a deputy's entries and a removed-then-entered-again name are said as they are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_director_reads_the_players_links_again() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Links","format":"swiss","rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board"}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann"},{"name":"Bob"},{"name":"Cy"}]}),
            201,
        )
        .await;
    let deputy = ev.director("POST", "/deputy", Value::Null, 201).await["deputy_token"]
        .as_str()
        .unwrap()
        .to_string();
    let by_deputy = expect(
        addr,
        "POST",
        &ev.path("/players"),
        Some(&deputy),
        &json!({"name":"Di"}).to_string(),
        201,
    )
    .await;
    let links = ev.director("GET", "/links", Value::Null, 200).await;
    let rows = links["players"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for (entered, row) in added["players"].as_array().unwrap().iter().zip(rows) {
        assert_eq!(row["name"], entered["name"]);
        assert_eq!(row["link"], entered["link"], "the link the entry answered");
    }
    assert_eq!(rows[3]["name"], "Di");
    assert!(rows[3]["link"].is_null(), "{}", rows[3]);
    assert!(rows[3]["why"].as_str().unwrap().contains("deputy"));
    // The link's token is the player's: it checks in.
    let ann = added["players"][0]["token"].as_str().unwrap();
    expect(
        addr,
        "POST",
        &ev.path("/players/1/check-in"),
        Some(ann),
        "",
        200,
    )
    .await;
    assert_eq!(ev.get("").await["players"][0]["checked_in"], true);
    let di = by_deputy["players"][0]["token"].as_str().unwrap();
    expect(addr, "GET", &ev.path("/me"), Some(di), "", 200).await;
    // Who may not read them.
    let path = ev.path("/links");
    assert_eq!(call(addr, "GET", &path, None, "").await.0, 401);
    assert_eq!(call(addr, "GET", &path, Some(ann), "").await.0, 403);
    let (status, text) = call(addr, "GET", &path, Some(&deputy), "").await;
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("only the director"), "{text}");
    // Removed before round 1 and entered again by the director: the same link, one token.
    ev.director("POST", "/players/3/remove", json!({}), 200)
        .await;
    let again = ev
        .director("POST", "/players", json!({"name":"Cy"}), 201)
        .await;
    assert_eq!(
        again["players"][0]["link"], added["players"][2]["link"],
        "the same name, the same link"
    );
    let links = ev.director("GET", "/links", Value::Null, 200).await;
    let cy = links["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Cy")
        .unwrap();
    assert_eq!(cy["link"], added["players"][2]["link"]);
    srv.stop().await;
}

/// Issue 21 item 4: a player's call of the director in a game of the evening shows on
/// the evening's live socket at once (`dispute`, with the round, board and players) and
/// in the evening's `disputes`; a deputy's token directs the evening's games (it used
/// to direct the evening only); the deputy's ruling ends the game and its result goes
/// into the evening, and the dispute is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_of_the_director_shows_on_the_evening_and_a_deputy_rules() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Disputes","format":"round-robin","time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","mode":"otb"}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players?check_in=true",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bo","rating":1900}]}),
            201,
        )
        .await;
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
    let round = ev.director("POST", "/rounds", Value::Null, 201).await;
    let board = &round["boards"][0];
    let game = board["game"].as_str().unwrap().to_string();
    let (white, black) = (
        board["white"]["name"].as_str().unwrap().to_string(),
        board["black"]["name"].as_str().unwrap().to_string(),
    );
    let deputy = ev.director("POST", "/deputy", Value::Null, 201).await;
    let deputy = deputy["deputy_token"].as_str().unwrap().to_string();
    // A token of no one is still refused by the game.
    assert_eq!(srv.ws_status(&game, Some("not-a-token")).await, 403);

    let (mut live, _) = tokio_tungstenite::connect_async(format!(
        "ws://{addr}/ws/events/{}?token={}",
        ev.id, ev.director
    ))
    .await
    .unwrap();
    let first = next_json(&mut live).await;
    assert_eq!(first["event"]["disputes"], json!([]), "{first}");
    // A public socket beside it (a projector): it never hears of a dispute.
    let (mut projector, _) =
        tokio_tungstenite::connect_async(format!("ws://{addr}/ws/events/{}", ev.id))
            .await
            .unwrap();
    let first = next_json(&mut projector).await;
    assert!(first["event"].get("disputes").is_none(), "{first}");

    let mut w = srv.connect(&game, Some(&token(&white))).await;
    let mut b = srv.connect(&game, Some(&token(&black))).await;
    w.send(json!({"move":"e2e4","press":true})).await;
    w.event().await;
    b.until_n(1).await;
    b.send(json!({"call_director":true,"reason":"my opponent is talking"}))
        .await;
    b.event().await;

    let shown = loop {
        let m = next_json(&mut live).await;
        if m["type"] == "dispute" {
            break m;
        }
    };
    let d = &shown["dispute"];
    assert_eq!(shown["game"], game.as_str(), "{shown}");
    assert_eq!(d["round"], 1, "{shown}");
    assert_eq!(d["board"], 1, "{shown}");
    assert_eq!(d["white"], white.as_str(), "{shown}");
    assert_eq!(d["black"], black.as_str(), "{shown}");
    assert_eq!(d["what"]["kind"], "call", "{shown}");
    assert_eq!(d["what"]["by"], "black", "{shown}");
    assert_eq!(d["what"]["reason"], "my opponent is talking", "{shown}");
    assert_eq!(shown["disputes"].as_array().unwrap().len(), 1, "{shown}");
    let read = ev.director("GET", "", Value::Null, 200).await;
    assert_eq!(read["disputes"][0]["game"], game.as_str(), "{read}");
    // The director's alone: the public reading has no disputes (a claim carries the
    // assistant's advice, a call its reason).
    let public = ev.get("").await;
    assert!(public.get("disputes").is_none(), "{public}");

    // The deputy opens the game's director console and rules: White wins.
    let mut dep = srv
        .try_connect(&game, Some(&deputy))
        .await
        .expect("a deputy's token directs the evening's games");
    assert!(
        dep.initial["actions"]["director"]["declare"] == true,
        "{}",
        dep.initial
    );
    dep.send(json!({"result":{"result":"1-0","reason":"director"}}))
        .await;
    let ended = dep.event().await;
    assert_eq!(ended["result"], "1-0", "{ended}");

    // The result arrives in the evening and the dispute goes: said by a `dispute`
    // message (the game stopped waiting) or by the result's `change`, whichever the
    // evening hears first.
    let mut gone = false;
    let mut result_in = false;
    while !(gone && result_in) {
        let m = next_json(&mut live).await;
        if m["type"] == "dispute" {
            assert!(m["dispute"].is_null(), "{m}");
            gone = true;
        }
        if m["type"] == "change" && m["round"]["boards"][0]["results"][0] == "1-0" {
            assert_eq!(m["rows"][0]["change"]["by"], format!("game {game}"), "{m}");
            result_in = true;
            gone |= m["disputes"] == json!([]);
        }
    }
    let read = ev.director("GET", "", Value::Null, 200).await;
    assert_eq!(read["disputes"], json!([]), "{read}");
    // The public socket heard the result, and nothing of the call before it.
    loop {
        let m = next_json(&mut projector).await;
        assert_ne!(m["type"], "dispute", "{m}");
        assert!(m.get("disputes").is_none(), "{m}");
        if m["type"] == "change" && m["round"]["boards"][0]["results"][0] == "1-0" {
            break;
        }
    }
    srv.stop().await;
}

/// Disputes are not stored: after a restart, the evening's games of the round being
/// played are loaded with the evening, and one still waiting for the director (here a
/// player's call stored before the server stopped) is a dispute again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_of_the_director_is_shown_again_after_a_restart() {
    let srv = Server::start().await;
    let ev = Evening::create(
        srv.addr,
        json!({"name":"Restart","format":"round-robin","time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","check_in":false}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900}]}),
            201,
        )
        .await;
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    let game = r1["boards"][0]["game"].as_str().unwrap().to_string();
    let white = r1["boards"][0]["white"]["name"].as_str().unwrap();
    let token = |name: &str| {
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
    let mut w = srv.connect(&game, Some(&token(white))).await;
    w.send(json!({"move":"e2e4","press":true})).await;
    w.event().await;
    w.send(json!({"call_director":true})).await;
    w.event().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while ev.director("GET", "", Value::Null, 200).await["disputes"]
        .as_array()
        .unwrap()
        .is_empty()
    {
        assert!(tokio::time::Instant::now() < deadline, "no dispute");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(w);
    let db = srv.stop_keeping_db().await;
    let srv = Server::start_on(db).await;
    let ev = Evening {
        addr: srv.addr,
        id: ev.id.clone(),
        director: ev.director.clone(),
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let read = ev.director("GET", "", Value::Null, 200).await;
        if let Some(d) = read["disputes"].as_array().unwrap().first() {
            assert_eq!(d["game"], game.as_str(), "{read}");
            assert_eq!(d["what"]["kind"], "call", "{read}");
            assert_eq!(d["what"]["by"], "white", "{read}");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{read}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    srv.stop().await;
}

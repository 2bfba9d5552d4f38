//! The game the tests play, its players and spectator as clients that keep going across
//! node failures (reconnect to a node the test lets them use, send the same `id` again),
//! and the checks of what was stored.

use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::client::{Incoming, Ws, get_json, http};
use crate::infra::Directory;

/// Morphy's Opera game (Paris 1858): 33 plies, the last one mate.
pub const OPERA: [&str; 33] = [
    "e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5", "g4f3", "d1f3", "d6e5", "f1c4", "g8f6",
    "f3b3", "d8e7", "b1c3", "c7c6", "c1g5", "b7b5", "c3b5", "c6b5", "c4b5", "b8d7", "e1c1", "a8d8",
    "d1d7", "d8d7", "h1d1", "e7e6", "b5d7", "f6d7", "b3b8", "d7b8", "d1d8",
];

/// The longest an action may take to be acknowledged, retries and reconnects included.
const ACT_WITHIN: Duration = Duration::from_secs(60);

/// The longest one attempt waits for its answer on one socket before it reconnects.
const ATTEMPT_WITHIN: Duration = Duration::from_secs(12);

/// A game made for a test: its id and tokens.
pub struct Game {
    pub id: String,
    pub white: String,
    pub black: String,
    pub director: String,
}

/// Create an OTB game (USCF, G/5) on `addr`.
pub async fn create_game(addr: SocketAddr) -> Game {
    let (status, body) = http(
        addr,
        "POST",
        "/api/games",
        r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#,
        Duration::from_secs(10),
    )
    .await
    .unwrap_or_else(|e| panic!("POST /api/games: {e}"));
    assert_eq!(status, 201, "POST /api/games: {body}");
    let v: Value = serde_json::from_str(&body).expect("a create answer");
    let s = |x: &Value| x.as_str().map(str::to_string).expect("a string");
    Game {
        id: s(&v["id"]),
        white: s(&v["tokens"]["white"]),
        black: s(&v["tokens"]["black"]),
        director: s(&v["tokens"]["director"]),
    }
}

/// The owner `GET /api/games/{id}` on node `via` names (`Ok(None)`: null).
pub async fn owner_via(dir: &Directory, game: &str, via: usize) -> Result<Option<String>, String> {
    let state = get_json(dir.addrs[via], &format!("/api/games/{game}")).await?;
    match state.get("node") {
        None => panic!(
            "GET /api/games/{game} on {} answers no \"node\" (is the cluster's core there?): {state}",
            dir.names[via]
        ),
        Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => panic!("\"node\" is not a name: {other}"),
    }
}

/// Poll the usable nodes until one names an owner that `ok` accepts, within `within`.
pub async fn wait_owner(
    dir: &Directory,
    game: &str,
    ok: impl Fn(&str) -> bool,
    within: Duration,
) -> String {
    let deadline = Instant::now() + within;
    let mut seen = Vec::new();
    loop {
        for i in (0..dir.addrs.len()).filter(|&i| dir.usable(i)) {
            match owner_via(dir, game, i).await {
                Ok(Some(name)) if ok(&name) => return name,
                other => {
                    let s = format!("{}: {other:?}", dir.names[i]);
                    if seen.last() != Some(&s) {
                        seen.push(s);
                    }
                }
            }
        }
        assert!(
            Instant::now() < deadline,
            "no acceptable owner of {game} named within {within:?}; answers: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The time of day (UTC, to the millisecond), as the nodes' logs print it.
pub fn utc_now() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let day_ms = ms % 86_400_000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000
    )
}

/// A player or the spectator: a socket on some node, moved to another node when the
/// test marks its node unusable or the node closes it or goes silent.
pub struct Seat {
    pub role: &'static str,
    token: Option<String>,
    game: String,
    /// The node this client prefers.
    pub home: usize,
    dir: Arc<Directory>,
    conn: Option<(usize, Ws)>,
    /// What happened to this client (reconnects and why, errors), for the report.
    pub history: Vec<String>,
    /// Each socket given up: the node's index and why.
    pub departures: Vec<(usize, String)>,
    pub errors: u32,
    pub reconnects: u32,
    /// Which connection this is (one more at each connect): an action sent on one
    /// connection is not sent on the next.
    serial: u64,
}

impl Seat {
    pub fn new(
        role: &'static str,
        token: Option<&str>,
        game: &str,
        home: usize,
        dir: &Arc<Directory>,
    ) -> Seat {
        Seat {
            role,
            token: token.map(str::to_string),
            game: game.to_string(),
            home,
            dir: dir.clone(),
            conn: None,
            history: Vec::new(),
            departures: Vec::new(),
            errors: 0,
            reconnects: 0,
            serial: 0,
        }
    }

    fn note(&mut self, what: String) {
        self.history.push(format!("{} {what}", utc_now()));
    }

    /// The node this client is connected to.
    pub fn node(&self) -> Option<usize> {
        self.conn.as_ref().map(|(i, _)| *i)
    }

    pub fn view(&self) -> Option<&Value> {
        self.conn.as_ref().map(|(_, ws)| &ws.view)
    }

    fn drop_conn(&mut self, why: String) {
        if let Some((i, _)) = self.conn.take() {
            self.reconnects += 1;
            let name = self.dir.names[i].clone();
            self.note(format!("left {name}: {why}"));
            self.departures.push((i, why));
        }
    }

    /// Connected to a usable node (its home if usable), with a fresh state.
    pub async fn ensure(&mut self, deadline: Instant) {
        if let Some((i, ws)) = &self.conn {
            let i = *i;
            if !self.dir.usable(i) {
                self.drop_conn("the node is marked unusable".into());
            } else if ws.gap {
                self.drop_conn("a gap in the event numbers".into());
            }
        }
        let mut start = self.home;
        while self.conn.is_none() {
            assert!(
                Instant::now() < deadline,
                "{}: no node took a WebSocket in time; history: {:#?}",
                self.role,
                self.history
            );
            let Some(i) = self.dir.pick_from(start) else {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            };
            match Ws::connect(
                self.dir.addrs[i],
                &self.game,
                self.token.as_deref(),
                Duration::from_secs(5),
            )
            .await
            {
                Ok(ws) => {
                    let n = ws.view["n"].clone();
                    self.note(format!("connected to {} (state n={n})", self.dir.names[i]));
                    self.conn = Some((i, ws));
                    self.serial += 1;
                }
                Err(e) => {
                    self.note(format!("connect to {} failed: {e}", self.dir.names[i]));
                    start = (i + 1) % self.dir.addrs.len();
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
    }

    /// Connect to its home node again (a node back in service).
    pub async fn go_home(&mut self) {
        if self.node() != Some(self.home) {
            self.drop_conn("going home".into());
            self.ensure(Instant::now() + Duration::from_secs(20)).await;
            assert_eq!(
                self.node(),
                Some(self.home),
                "{}: could not connect to its home node; history: {:#?}",
                self.role,
                self.history
            );
        }
    }

    /// Send `action` (which has an `id`) on the current socket, without waiting for its
    /// answer: `true` if it went out.
    pub async fn send_now(&mut self, action: &Value) -> bool {
        self.ensure(Instant::now() + ACT_WITHIN).await;
        let Some((_, ws)) = self.conn.as_mut() else {
            return false;
        };
        match ws.send(action).await {
            Ok(()) => true,
            Err(e) => {
                self.drop_conn(format!("send failed: {e}"));
                false
            }
        }
    }

    /// Send `action` until it is acknowledged: its `event`.
    pub async fn act(&mut self, action: &Value) -> Value {
        self.complete(action, false).await
    }

    /// The answer to `action` (already sent on the current socket if `sent`; sent again
    /// on any new connection): on an
    /// `error`, a close, a silence or a node marked unusable, the same `id` again
    /// (reconnecting first when needed) until an `event` answers it.
    pub async fn complete(&mut self, action: &Value, sent: bool) -> Value {
        // The connection the action went out on.
        let mut sent_on = sent.then_some(self.serial);
        let id = action["id"].clone();
        assert!(id.is_string(), "an action with an id: {action}");
        let deadline = Instant::now() + ACT_WITHIN;
        loop {
            assert!(
                Instant::now() < deadline,
                "{}: {id} not acknowledged within {ACT_WITHIN:?}; history: {:#?}",
                self.role,
                self.history
            );
            self.ensure(deadline).await;
            let Some((i, ws)) = self.conn.as_mut() else {
                continue;
            };
            let i = *i;
            if sent_on != Some(self.serial) {
                if let Err(e) = ws.send(action).await {
                    self.drop_conn(format!("send failed: {e}"));
                    continue;
                }
                sent_on = Some(self.serial);
            }
            let attempt_deadline = Instant::now() + ATTEMPT_WITHIN;
            // A diagnosis for a silence: a ping after 5 s. The server reads a socket's
            // frames in order, so no pong means the action's answer is stuck in the
            // socket; a pong means the action was dropped.
            let ping_at = Instant::now() + Duration::from_secs(5);
            let mut ping: Option<&str> = None;
            let outcome = loop {
                if !self.dir.usable(i) {
                    break Err("the node is marked unusable".to_string());
                }
                if ping.is_none() && Instant::now() > ping_at {
                    ping = Some(match ws.send(&json!({"ping": 4242})).await {
                        Ok(()) => "a ping sent after 5 s was not answered either",
                        Err(_) => "a ping after 5 s could not be sent",
                    });
                }
                match ws.recv(Duration::from_millis(500)).await {
                    Incoming::Msg(m) if m["id"] == id && m["type"] != "state" => break Ok(m),
                    Incoming::Msg(m) if m["type"] == "pong" && m["ping"] == 4242 => {
                        ping = Some("a ping sent after 5 s was answered");
                    }
                    Incoming::Msg(m) if m["type"] == "error" || m["type"] == "refused" => {
                        // Not the answer (another id, or none): noted for the report.
                        let name = self.dir.names[i].clone();
                        self.history
                            .push(format!("{} {name} sent, waiting for {id}: {m}", utc_now()));
                    }
                    Incoming::Msg(_) => {}
                    Incoming::Closed(code, reason) => {
                        break Err(format!("closed {code} {reason:?} waiting for {id}"));
                    }
                    Incoming::Silent => {
                        if Instant::now() > attempt_deadline {
                            break Err(format!(
                                "no answer to {id} within {ATTEMPT_WITHIN:?} ({})",
                                ping.unwrap_or("no ping sent")
                            ));
                        }
                    }
                }
            };
            match outcome {
                Ok(m) if m["type"] == "event" => return m,
                Ok(m) if m["type"] == "error" => {
                    self.errors += 1;
                    self.note(format!("{id} answered error: {}", m["message"]));
                    sent_on = None;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Ok(m) => panic!(
                    "{}: {id} answered {m}; history: {:#?}",
                    self.role, self.history
                ),
                Err(why) => self.drop_conn(why),
            }
        }
    }

    /// Read what has arrived (answering pings); a closed socket is let go (the next
    /// action reconnects).
    pub async fn drain(&mut self) {
        if let Some((_, ws)) = self.conn.as_mut()
            && let Some((code, reason)) = ws.drain().await
        {
            self.drop_conn(format!("closed {code} {reason:?} while idle"));
        }
    }

    /// Read until the view holds event `n`, within `within` (reconnecting as needed; a
    /// node silent for 10 s while behind is left for a fresh state, noted).
    pub async fn sync(&mut self, n: u64, within: Duration) {
        let deadline = Instant::now() + within;
        let mut last_msg = Instant::now();
        loop {
            self.ensure(deadline).await;
            let Some((i, ws)) = self.conn.as_mut() else {
                continue;
            };
            let i = *i;
            if ws.view["n"].as_u64().is_some_and(|have| have >= n) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{}: the view did not reach event {n} within {within:?} (it has {}); history: {:#?}",
                self.role,
                ws.view["n"],
                self.history
            );
            match ws.recv(Duration::from_millis(500)).await {
                Incoming::Msg(_) => last_msg = Instant::now(),
                Incoming::Closed(code, reason) => {
                    self.drop_conn(format!("closed {code} {reason:?}"));
                    last_msg = Instant::now();
                }
                Incoming::Silent => {
                    if !self.dir.usable(i) {
                        self.drop_conn("the node is marked unusable".into());
                    } else if last_msg.elapsed() > Duration::from_secs(10) {
                        self.drop_conn("silent for 10 s while behind: a fresh state".into());
                        last_msg = Instant::now();
                    }
                }
            }
        }
    }

    /// Every socket this client gave up on a node other than `down` was closed by the
    /// server with 1012 (the game moved) or left on purpose ("going home").
    pub fn assert_kept_sockets_except(&self, down: usize) {
        for (i, why) in &self.departures {
            assert!(
                *i == down || why.starts_with("closed 1012") || why == "going home",
                "{} lost its socket on {}, a node that stayed up: {why}; history: {:#?}",
                self.role,
                self.dir.names[*i],
                self.history
            );
        }
    }

    /// Print what happened to this client.
    pub fn report(&self) {
        eprintln!(
            "{} (home {}): {} reconnects, {} errors",
            self.role, self.dir.names[self.home], self.reconnects, self.errors
        );
        for h in &self.history {
            eprintln!("    {h}");
        }
    }
}

/// A move of the Opera game as the player sends it: pressed, with the id `p{i}`.
pub fn ply(i: usize) -> Value {
    json!({"move": OPERA[i], "press": true, "id": format!("p{i}")})
}

/// Check the answer to ply `i`: event `i + 1`, that move.
pub fn check_ack(i: usize, ev: &Value) {
    assert_eq!(
        ev["n"].as_u64(),
        Some(i as u64 + 1),
        "ply {i} (p{i}) acknowledged as another event: {ev}"
    );
    assert_eq!(ev["event"]["move"], OPERA[i], "ply {i}: {ev}");
}

/// Play plies `from..to`, each acknowledged (the other player reads meanwhile), with
/// `pause` before each; each acknowledgement's time and event.
pub async fn play(
    white: &mut Seat,
    black: &mut Seat,
    from: usize,
    to: usize,
    pause: Duration,
) -> Vec<(Instant, Value)> {
    let mut acks = Vec::new();
    for i in from..to {
        tokio::time::sleep(pause).await;
        let (side, other) = if i.is_multiple_of(2) {
            (&mut *white, &mut *black)
        } else {
            (&mut *black, &mut *white)
        };
        let ev = side.act(&ply(i)).await;
        check_ack(i, &ev);
        acks.push((Instant::now(), ev));
        other.drain().await;
    }
    acks
}

/// The first usable node.
pub fn a_live_node(dir: &Directory) -> usize {
    dir.pick_from(0).expect("a usable node")
}

/// `GET path` from a usable node, answered 200: its body. A `503` (the database out of
/// reach, the game changing servers: a fault of the run may still be on) is asked again
/// for up to 30 s, as a client would; any other answer fails the test.
pub async fn read_patiently(dir: &Directory, path: &str) -> String {
    let by = Instant::now() + Duration::from_secs(30);
    loop {
        let addr = dir.addrs[a_live_node(dir)];
        match http(addr, "GET", path, "", Duration::from_secs(10)).await {
            Ok((200, body)) => return body,
            Ok((503, body)) if Instant::now() < by => {
                eprintln!("GET {path}: 503 {body}; asking again");
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            other => panic!("GET {path}: {other:?}"),
        }
    }
}

/// The end of every test: the game is Morphy's mate; its stored script is the 33 plies,
/// each once, in order, by the right player, and nothing else; `flagfall replay` of it
/// gives the server's report; every seat's view is the server's state.
pub async fn check_final(dir: &Directory, game: &str, seats: &mut [&mut Seat]) {
    let state = read_patiently(dir, &format!("/api/games/{game}")).await;
    let state: Value = serde_json::from_str(&state).unwrap_or_else(|e| panic!("{e}: {state}"));
    let script = read_patiently(dir, &format!("/api/games/{game}/script")).await;
    let events: Vec<Value> = script
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a JSON event ({e}): {l}")))
        .collect();
    assert_eq!(
        events.len(),
        OPERA.len(),
        "every acknowledged ply stored once and nothing else:\n{script}"
    );
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["move"], OPERA[i], "event {}:\n{script}", i + 1);
        // The game clock never runs backwards, across a takeover either.
        if i > 0 {
            assert!(
                e["at"].as_i64() >= events[i - 1]["at"].as_i64(),
                "event {} is stamped before event {}:\n{script}",
                i + 1,
                i
            );
        }
        let by = if i.is_multiple_of(2) {
            "white"
        } else {
            "black"
        };
        assert_eq!(e["by"], by, "event {}:\n{script}", i + 1);
    }
    assert_eq!(state["n"].as_u64(), Some(OPERA.len() as u64), "{state}");
    assert_eq!(state["result"], "1-0", "checkmate: {state}");
    assert_eq!(state["reason"], "checkmate", "{state}");
    // The stored script replays to the result the server reports.
    let dir_tmp = tempfile::tempdir().expect("a temporary directory");
    let path = dir_tmp.path().join("game.jsonl");
    std::fs::write(&path, &script).expect("write the script");
    let out = Command::new(env!("CARGO_BIN_EXE_flagfall"))
        .arg("replay")
        .arg(&path)
        .output()
        .expect("run flagfall replay");
    assert!(
        out.status.success(),
        "flagfall replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replay: Value = serde_json::from_slice(&out.stdout).expect("replay JSON");
    for field in ["result", "reason", "rule", "rulings", "fen"] {
        assert_eq!(
            state[field], replay[field],
            "{field}: the server reports one thing, the replay another\nscript:\n{script}"
        );
    }
    for side in ["white_ms", "black_ms"] {
        assert_eq!(
            state["clock"][side], replay["clock"][side],
            "the finished game's clock ({side})"
        );
    }
    // What each client was shown is the state.
    for seat in seats.iter_mut() {
        seat.sync(OPERA.len() as u64, Duration::from_secs(20)).await;
        let view = seat.view().expect("connected").clone();
        for field in [
            "result",
            "reason",
            "rule",
            "fen",
            "rulings",
            "moves",
            "to_move",
            "running",
            "pending",
            "flags",
            "board_move",
            "claims",
            "draw_offer",
            "n",
        ] {
            assert_eq!(
                view[field], state[field],
                "{}'s view, field {field}; history: {:#?}",
                seat.role, seat.history
            );
        }
    }
}

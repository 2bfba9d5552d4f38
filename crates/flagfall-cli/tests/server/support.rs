//! Helpers: a database per test, the server in process or as a process, a small HTTP
//! client, WebSocket clients, and the replay comparison.

use std::net::SocketAddr;
use std::ops::Deref;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use flagfall_protocol::Created;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const WAIT: Duration = Duration::from_secs(10);

/// A fresh database: SQLite in a temporary directory, or with `FLAGFALL_TEST_POSTGRES`
/// a new database on that PostgreSQL server.
pub struct Db {
    pub url: String,
    _dir: tempfile::TempDir,
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

impl Db {
    pub async fn new() -> Db {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let url = match std::env::var("FLAGFALL_TEST_POSTGRES") {
            Ok(base) if !base.is_empty() => {
                let name = format!(
                    "fft_{}_{}",
                    std::process::id(),
                    COUNTER.fetch_add(1, Ordering::Relaxed)
                );
                let admin = sqlx::PgPool::connect(&base).await.unwrap_or_else(|e| {
                    panic!("FLAGFALL_TEST_POSTGRES is set but {base} is unreachable: {e}")
                });
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name}"))
                    .execute(&admin)
                    .await
                    .expect("drop an old test database");
                sqlx::query(&format!("CREATE DATABASE {name}"))
                    .execute(&admin)
                    .await
                    .expect("create a test database");
                admin.close().await;
                let (head, query) = match base.split_once('?') {
                    Some((h, q)) => (h.to_string(), format!("?{q}")),
                    None => (base.clone(), String::new()),
                };
                let slash = head.rfind('/').filter(|&i| i > "postgres://".len());
                let root = match slash {
                    Some(i) => &head[..i],
                    None => head.as_str(),
                };
                format!("{root}/{name}{query}")
            }
            _ => format!("sqlite:{}", dir.path().join("flagfall.db").display()),
        };
        Db { url, _dir: dir }
    }

    /// A database the test made itself (its own PostgreSQL cluster).
    pub fn at(url: String) -> Db {
        Db {
            url,
            _dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }
}

/// Talking to a server at an address.
pub struct Api {
    pub addr: SocketAddr,
}

/// A WebSocket client.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The `state` message received on connect.
    pub initial: Value,
    /// The state as this client's messages build it: the last `state`, with every later
    /// `event`'s update applied (docs/protocol.md), as the web board does.
    pub view: Value,
    /// The `id` of the last action sent.
    pub last_id: Option<String>,
}

static IDS: AtomicU32 = AtomicU32::new(0);

async fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.expect("send request");
    let mut raw = Vec::new();
    tokio::time::timeout(WAIT, s.read_to_end(&mut raw))
        .await
        .expect("response in time")
        .expect("read response");
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").expect("an HTTP response");
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        let mut out = String::new();
        let mut rest = rest;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            out.push_str(&after[..n]);
            rest = &after[n + 2..];
        }
        out
    } else {
        rest.to_string()
    };
    (status, body)
}

impl Api {
    pub async fn post(&self, path: &str, body: &str) -> (u16, String) {
        http(self.addr, "POST", path, body).await
    }

    /// Any request: the status and the body.
    pub async fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        http(self.addr, method, path, body).await
    }

    pub async fn get_text(&self, path: &str) -> String {
        let (status, body) = http(self.addr, "GET", path, "").await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    pub async fn get_status(&self, path: &str) -> u16 {
        http(self.addr, "GET", path, "").await.0
    }

    pub async fn get_json(&self, path: &str) -> Value {
        serde_json::from_str(&self.get_text(path).await).expect("JSON")
    }

    pub async fn state(&self, id: &str) -> Value {
        self.get_json(&format!("/api/games/{id}")).await
    }

    pub async fn create(&self, setup: &str) -> Created {
        let (status, body) = self.post("/api/games", setup).await;
        assert_eq!(status, 201, "{body}");
        serde_json::from_str(&body).expect("a create answer")
    }

    fn ws_url(&self, id: &str, token: Option<&str>) -> String {
        match token {
            Some(t) => format!("ws://{}/ws/games/{id}?token={t}", self.addr),
            None => format!("ws://{}/ws/games/{id}", self.addr),
        }
    }

    pub async fn connect(&self, id: &str, token: Option<&str>) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(self.ws_url(id, token))
            .await
            .expect("WebSocket connects");
        let mut c = Client {
            ws,
            initial: Value::Null,
            view: Value::Null,
            last_id: None,
        };
        let first = c.next().await;
        assert_eq!(first["type"], "state", "{first}");
        c.initial = first;
        c
    }

    /// [`Api::connect`], or the HTTP status of a refused upgrade.
    pub async fn try_connect(&self, id: &str, token: Option<&str>) -> Result<Client, u16> {
        match tokio_tungstenite::connect_async(self.ws_url(id, token)).await {
            Ok((ws, _)) => {
                let mut c = Client {
                    ws,
                    initial: Value::Null,
                    view: Value::Null,
                    last_id: None,
                };
                let first = c.next().await;
                assert_eq!(first["type"], "state", "{first}");
                c.initial = first;
                Ok(c)
            }
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
            Err(e) => panic!("unexpected WebSocket error {e}"),
        }
    }

    /// The HTTP status of a refused upgrade (101 if it was accepted).
    pub async fn ws_status(&self, id: &str, token: Option<&str>) -> u16 {
        match tokio_tungstenite::connect_async(self.ws_url(id, token)).await {
            Ok(_) => 101,
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => r.status().as_u16(),
            Err(e) => panic!("unexpected WebSocket error {e}"),
        }
    }

    /// The live report equals `flagfall replay` of the stored script.
    pub async fn assert_replay_matches(&self, id: &str) {
        let state = self.state(id).await;
        let script = self.get_text(&format!("/api/games/{id}/script")).await;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("game.jsonl");
        std::fs::write(&path, &script).expect("write the script");
        let out = Command::new(env!("CARGO_BIN_EXE_flagfall"))
            .arg("replay")
            .arg(&path)
            .output()
            .expect("run flagfall replay");
        assert!(
            out.status.success(),
            "replay failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let replay: Value = serde_json::from_slice(&out.stdout).expect("replay JSON");
        for field in ["result", "reason", "rule", "rulings", "fen"] {
            assert_eq!(
                state[field], replay[field],
                "{field} differs\nscript:\n{script}"
            );
        }
        let finished = state["result"] != "*";
        if finished || state["running"].is_null() {
            assert_eq!(state["clock"]["white_ms"], replay["clock"]["white_ms"]);
            assert_eq!(state["clock"]["black_ms"], replay["clock"]["black_ms"]);
        }
        assert_eq!(
            state["n"].as_u64(),
            Some(script.lines().count() as u64 - 1),
            "every stored event counted"
        );
    }
}

/// What a client does with a server message: a `state` replaces the view; an `event`
/// replaces the fields its update names, splices the moves at `moves_from` and appends
/// its rulings; a `flag` adds the colour to `flags`.
pub fn apply(view: &mut Value, msg: &Value) {
    match msg["type"].as_str() {
        Some("state") => {
            let mut v = msg.clone();
            if let Some(o) = v.as_object_mut() {
                o.remove("type");
                o.remove("role");
            }
            *view = v;
        }
        Some("event") => {
            let n = msg["n"].as_u64().expect("an event has n");
            if view["n"].as_u64().is_some_and(|have| n <= have) {
                // Already applied (a retried id is answered with its event again).
                return;
            }
            assert_eq!(
                view["n"].as_u64(),
                Some(n - 1),
                "events arrive in order without gaps: {msg}"
            );
            let update = msg["update"].as_object().expect("an event has an update");
            let from = update["moves_from"].as_u64().expect("moves_from") as usize;
            let moves = view["moves"].as_array_mut().expect("the view has moves");
            assert!(from <= moves.len(), "moves_from within the list: {msg}");
            moves.truncate(from);
            moves.extend(update["moves"].as_array().expect("moves").iter().cloned());
            // The director's offences come only when they changed: absent, they stay.
            let offences = view["actions"]["director"]["offences"].take();
            for (k, v) in update {
                if k != "moves" && k != "moves_from" {
                    view[k.as_str()] = v.clone();
                }
            }
            if update["actions"]["director"].get("offences").is_none() {
                view["actions"]["director"]["offences"] = offences;
            }
            view["clock"] = msg["clock"].clone();
            view["result"] = msg["result"].clone();
            view["n"] = n.into();
            let rulings = view["rulings"].as_array_mut().expect("rulings");
            rulings.extend(msg["rulings"].as_array().expect("rulings").iter().cloned());
        }
        Some("flag") => {
            let flags = view["flags"].as_array_mut().expect("flags");
            if !flags.contains(&msg["color"]) {
                flags.push(msg["color"].clone());
            }
        }
        _ => {}
    }
}

impl Client {
    /// Check that [`Client::view`] is the server's state now (all but the readings that
    /// move with time: `server_now` and the running clock).
    pub fn assert_view_is(&self, state: &Value) {
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
            "dests",
        ] {
            assert_eq!(self.view[field], state[field], "field {field} of the view");
        }
    }

    pub async fn next(&mut self) -> Value {
        self.next_within(WAIT).await
    }

    /// The next text message, within `wait`.
    pub async fn next_within(&mut self, wait: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .expect("a message in time")
                .expect("the socket is open")
                .expect("a valid frame");
            match msg {
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(t.as_str()).expect("JSON");
                    apply(&mut self.view, &v);
                    return v;
                }
                Message::Close(c) => panic!("socket closed: {c:?}"),
                _ => continue,
            }
        }
    }

    /// Send an action; an `id` is added unless it has one, so [`Client::event`] finds
    /// the answer to it.
    pub async fn send(&mut self, mut v: Value) {
        if v.get("id").is_none() {
            v["id"] = Value::from(format!("t{}", IDS.fetch_add(1, Ordering::Relaxed)));
        }
        self.last_id = v["id"].as_str().map(str::to_string);
        self.send_text(&v.to_string()).await;
    }

    pub async fn send_text(&mut self, t: &str) {
        self.ws
            .send(Message::Text(t.to_string().into()))
            .await
            .expect("send");
    }

    /// Wait for the server's WebSocket ping (it pings on connect) and answer it at once,
    /// as a browser does (text messages meanwhile go to the view).
    pub async fn answer_ping(&mut self) {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .expect("a ping in time")
                .expect("the socket is open")
                .expect("a valid frame");
            match msg {
                Message::Ping(_) => {
                    // tungstenite queued the pong: send it now.
                    self.ws.flush().await.expect("answer the ping");
                    return;
                }
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(t.as_str()).expect("JSON");
                    apply(&mut self.view, &v);
                }
                other => panic!("expected a ping, got {other:?}"),
            }
        }
    }

    /// Send a WebSocket pong nobody asked for, with `payload`.
    pub async fn send_pong(&mut self, payload: &[u8]) {
        self.ws
            .send(Message::Pong(payload.to_vec().into()))
            .await
            .expect("send a pong");
    }

    /// Send any WebSocket message (a raw frame, to break the protocol).
    pub async fn send_message(&mut self, m: Message) -> bool {
        self.ws.send(m).await.is_ok()
    }

    pub async fn try_send_text(&mut self, t: &str) -> bool {
        self.ws
            .send(Message::Text(t.to_string().into()))
            .await
            .is_ok()
    }

    pub async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no such message in time"
            );
            let m = self.next().await;
            if pred(&m) {
                return m;
            }
        }
    }

    /// [`Client::until`] within `wait` in all (a server that holds an answer while its
    /// database is down, say).
    pub async fn until_within(&mut self, wait: Duration, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            assert!(!left.is_zero(), "no such message within {wait:?}");
            let m = self.next_within(left).await;
            if pred(&m) {
                return m;
            }
        }
    }

    pub async fn until_type(&mut self, ty: &str) -> Value {
        self.until(|m| m["type"] == ty).await
    }

    /// The event the last action sent made.
    pub async fn event(&mut self) -> Value {
        let id = Value::from(self.last_id.clone().expect("an action was sent"));
        let m = self.until(|m| m["id"] == id).await;
        assert_eq!(m["type"], "event", "{m}");
        m
    }

    pub async fn until_n(&mut self, n: u64) -> Value {
        self.until(|m| m["type"] == "event" && m["n"] == n).await
    }

    /// The next text message, or the server's close (its code and reason) when it
    /// closes first.
    pub async fn next_or_close(&mut self) -> Result<Value, (u16, String)> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .expect("a message or a close in time");
            match msg {
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(t.as_str()).expect("JSON");
                    apply(&mut self.view, &v);
                    return Ok(v);
                }
                Some(Ok(Message::Close(Some(f)))) => {
                    return Err((f.code.into(), f.reason.to_string()));
                }
                Some(Ok(Message::Close(None))) | None => return Err((1005, String::new())),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err((1006, e.to_string())),
            }
        }
    }

    /// Read until the server closes: its code and reason.
    pub async fn until_close(&mut self) -> (u16, String) {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .expect("a close in time");
            match msg {
                Some(Ok(Message::Close(Some(f)))) => return (f.code.into(), f.reason.to_string()),
                Some(Ok(Message::Close(None))) | None => return (1005, String::new()),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return (1006, e.to_string()),
            }
        }
    }
}

/// The server in this process on 127.0.0.1:0.
pub struct Server {
    api: Api,
    running: Option<flagfall_server::Running>,
    _db: Db,
}

impl Deref for Server {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Server {
    /// A server without per-address limits (every test client comes from loopback).
    pub async fn start() -> Server {
        Server::start_with(flagfall_server::limits::Limits::unlimited()).await
    }

    /// The server on an existing database, without per-address limits.
    pub async fn start_on(db: Db) -> Server {
        Server::start_full(db, None, flagfall_server::limits::Limits::unlimited()).await
    }

    /// The server on an existing database, with these limits.
    pub async fn start_on_with(db: Db, limits: flagfall_server::limits::Limits) -> Server {
        Server::start_full(db, None, limits).await
    }

    /// A server with these per-address limits and timeouts.
    pub async fn start_with(limits: flagfall_server::limits::Limits) -> Server {
        Server::start_engine(None, limits).await
    }

    /// A server with a UCI engine for practice games, and these limits.
    pub async fn start_engine(
        engine: Option<std::path::PathBuf>,
        limits: flagfall_server::limits::Limits,
    ) -> Server {
        Server::start_full(Db::new().await, engine, limits).await
    }

    async fn start_full(
        db: Db,
        engine: Option<std::path::PathBuf>,
        limits: flagfall_server::limits::Limits,
    ) -> Server {
        let running = flagfall_server::start(flagfall_server::Config {
            listen: "127.0.0.1:0".into(),
            database: db.url.clone(),
            engine,
            socket_rate: None,
            limits,
            cluster: None,
        })
        .await
        .expect("the server starts");
        Server {
            api: Api { addr: running.addr },
            running: Some(running),
            _db: db,
        }
    }

    /// The server on a store whose faults the test injects ([`crate::faults`]).
    pub async fn start_faulty() -> (Server, std::sync::Arc<crate::faults::Faults>) {
        Server::start_faulty_on(Db::new().await).await
    }

    /// [`Server::start_faulty`] on an existing database (a second server beside one
    /// already on it: two writers).
    pub async fn start_faulty_on(db: Db) -> (Server, std::sync::Arc<crate::faults::Faults>) {
        let inner = flagfall_store::open(&db.url)
            .await
            .expect("the store opens");
        let faults = std::sync::Arc::new(crate::faults::Faults::default());
        let store = std::sync::Arc::new(crate::faults::FaultyStore {
            inner,
            faults: faults.clone(),
        });
        let running = flagfall_server::start_with_store(
            flagfall_server::Config {
                listen: "127.0.0.1:0".into(),
                database: db.url.clone(),
                engine: None,
                socket_rate: None,
                limits: flagfall_server::limits::Limits::unlimited(),
                cluster: None,
            },
            store,
        )
        .await
        .expect("the server starts");
        let srv = Server {
            api: Api { addr: running.addr },
            running: Some(running),
            _db: db,
        };
        (srv, faults)
    }

    /// The URL of the server's database (for a second server on it).
    pub fn db_url(&self) -> String {
        self._db.url.clone()
    }

    pub fn take_running(mut self) -> flagfall_server::Running {
        self.running.take().expect("running")
    }

    /// Stop, keeping the database for a restart.
    pub async fn stop_keeping_db(mut self) -> Db {
        if let Some(r) = self.running.take() {
            r.stop().await.expect("a clean stop");
        }
        self._db
    }

    pub async fn stop(mut self) {
        if let Some(r) = self.running.take() {
            r.stop().await.expect("a clean stop");
        }
    }
}

/// The built `flagfall serve` as a child process.
pub struct Process {
    api: Api,
    child: Child,
    db: Option<Db>,
}

impl Deref for Process {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Process {
    pub async fn start(db: Option<Db>) -> Process {
        Process::start_with(db, &[]).await
    }

    /// `flagfall serve` with `args` besides its address and database (its limits).
    pub async fn start_with(db: Option<Db>, args: &[&str]) -> Process {
        let db = match db {
            Some(d) => d,
            None => Db::new().await,
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
        let child = Command::new(env!("CARGO_BIN_EXE_flagfall"))
            .args([
                "serve",
                "--listen",
                &addr.to_string(),
                "--database",
                &db.url,
            ])
            .args(args)
            .stdout(Stdio::null())
            .stderr(match std::env::var("DEBUG_SERVE_LOG") {
                Ok(p) => Stdio::from(
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(p)
                        .unwrap(),
                ),
                Err(_) => Stdio::null(),
            })
            .spawn()
            .expect("start flagfall serve");
        let p = Process {
            api: Api { addr },
            child,
            db: Some(db),
        };
        for _ in 0..200 {
            if TcpStream::connect(addr).await.is_ok() {
                return p;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("flagfall serve did not start on {addr}");
    }

    /// CPU time the process has used (user and system), from `/proc` (Linux).
    pub fn cpu(&self) -> Option<Duration> {
        cpu_of(&format!("/proc/{}/stat", self.child.id()))
    }

    /// The process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running (it has not exited or crashed).
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGKILL, and wait for the process to be gone.
    pub fn kill9(&mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("reaped");
    }

    pub fn into_db(mut self) -> Db {
        self.db.take().expect("the database")
    }

    /// SIGTERM: the server must exit 0.
    pub async fn terminate(mut self) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
        for _ in 0..200 {
            if let Some(s) = self.child.try_wait().expect("wait") {
                assert!(s.success(), "flagfall serve exited with {s}");
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("flagfall serve did not stop on SIGTERM");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// CPU time (user and system) from a `/proc/.../stat` file; `None` where there is none.
pub fn cpu_of(stat: &str) -> Option<Duration> {
    let text = std::fs::read_to_string(stat).ok()?;
    // Fields after the command (in parentheses): utime and stime are the 12th and 13th.
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // The kernel's USER_HZ is 100 on every Linux this runs on.
    Some(Duration::from_millis(ticks * 10))
}

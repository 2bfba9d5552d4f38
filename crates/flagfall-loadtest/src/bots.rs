//! The bots: a game's two sockets shuffling knights (Nf3 Nf6 Ng1 Ng8 ...: legal moves
//! forever, never a result), the plain HTTP they need, and the check of what was stored.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::LoadError;

pub(crate) type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One HTTP/1.1 request on a fresh connection; the answer's body.
pub(crate) async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> Result<String, LoadError> {
    let doing = || format!("{method} {path} on {addr}");
    let mut s = TcpStream::connect(addr)
        .await
        .map_err(LoadError::io(doing()))?;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes())
        .await
        .map_err(LoadError::io(doing()))?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)
        .await
        .map_err(LoadError::io(doing()))?;
    let text = String::from_utf8_lossy(&raw);
    let (_, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| LoadError::unexpected(doing(), "not an HTTP answer"))?;
    Ok(body.to_string())
}

const MOVES: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

/// How long a bot of a cluster keeps trying one move (reconnecting, resending) before it
/// gives up: a takeover takes a lease (3 s by default) and a scan.
const RETRY_FOR: Duration = Duration::from_secs(30);
/// How long a bot of a cluster waits for one answer before it tries another node (a
/// node keeps asking a silent owner for 8 s before it answers an error).
const ANSWER_WITHIN: Duration = Duration::from_secs(10);
/// The pause between two attempts of a bot of a cluster.
const PAUSE: Duration = Duration::from_millis(50);

/// The name of node `i` (0-based) of a cluster the tool starts: n1, n2, ...
pub(crate) fn node_name(i: usize) -> String {
    format!("n{}", i + 1)
}

/// The index of a node named by [`node_name`], if it is one of `nodes`.
pub(crate) fn node_index(name: &str, nodes: usize) -> Option<usize> {
    let i: usize = name.strip_prefix('n')?.parse().ok()?;
    (1..=nodes).contains(&i).then(|| i - 1)
}

/// One player's socket: on which node, with which token.
struct Side {
    ws: Ws,
    node: usize,
    token: String,
}

/// A game socket's URL on node `at`, naming node `param` (empty: none named, the
/// client follows a `reconnect`).
fn game_url(
    nodes: &[SocketAddr],
    at: usize,
    id: &str,
    token: &str,
    param: &str,
) -> Result<String, LoadError> {
    let addr = nodes
        .get(at)
        .ok_or_else(|| LoadError::unexpected("connecting", "no server address"))?;
    Ok(format!(
        "ws://{addr}/ws/games/{id}?token={token}&node={param}"
    ))
}

/// One game's two bots.
pub(crate) struct Bots {
    id: String,
    nodes: Arc<[SocketAddr]>,
    white: Side,
    black: Side,
    sent: u64,
    /// The node that owned the game once it opened (an index into `nodes`).
    pub(crate) owner: usize,
    /// Sockets reopened on another node (a cluster's bots), since last taken.
    pub(crate) reconnects: u64,
    /// A move was sent and never acknowledged (the bot gave up on it): it may be stored
    /// or not, both are right.
    pending: bool,
}

/// Create game number `i` and connect both players; each has read its `state`. On a
/// cluster (several `nodes`) the game is created on node `i mod N`, White connects there
/// and Black to the next node (the balancer's spread), which tells Black to reconnect to
/// the game's owner (docs/cluster.md, "Sockets land on the owner").
pub(crate) async fn open_game(nodes: Arc<[SocketAddr]>, i: usize) -> Result<Bots, LoadError> {
    let n = nodes.len().max(1);
    let (w, b) = (i % n, (i + 1) % n);
    let addr = *nodes
        .get(w)
        .ok_or_else(|| LoadError::unexpected("opening a game", "no server address"))?;
    let body = http(
        addr,
        "POST",
        "/api/games",
        r#"{"rules":"uscf-2020","time_control":"G/10;d0"}"#,
    )
    .await?;
    let created: flagfall_protocol::Created = serde_json::from_str(&body)
        .map_err(|e| LoadError::unexpected(format!("creating a game: {e}"), body))?;
    let owner = if n > 1 {
        owner_of(addr, &created.id, n).await?.unwrap_or(w)
    } else {
        0
    };
    let white = Side::open(&nodes, w, &created.id, created.tokens.white).await?;
    let black = Side::open(&nodes, b, &created.id, created.tokens.black).await?;
    Ok(Bots {
        id: created.id,
        nodes,
        white,
        black,
        sent: 0,
        owner,
        reconnects: 0,
        pending: false,
    })
}

/// The owner a node names for a game (`"node"` of `GET /api/games/{id}`), when it is one
/// of the tool's nodes.
async fn owner_of(addr: SocketAddr, id: &str, nodes: usize) -> Result<Option<usize>, LoadError> {
    let path = format!("/api/games/{id}");
    let body = http(addr, "GET", &path, "").await?;
    let v: Value = serde_json::from_str(&body)
        .map_err(|e| LoadError::unexpected(format!("{path}: {e}"), body))?;
    Ok(v["node"].as_str().and_then(|name| node_index(name, nodes)))
}

impl Side {
    /// Connect through the balancer docs/cluster.md documents, as the tool plays it:
    /// a URL without a node goes where the balancer spreads it (`node`, the tool's
    /// choice); told to reconnect (`{"type":"reconnect","node":...}`, 4302), the bot
    /// reconnects naming the node (`?node=nK`), which the balancer sends to that node,
    /// or to the next live one when it is down; a node that does not serve the game then
    /// serves the socket all the same (routed): a client is told once. Reads the state.
    async fn open(
        nodes: &[SocketAddr],
        node: usize,
        id: &str,
        token: String,
    ) -> Result<Side, LoadError> {
        let n = nodes.len();
        let mut named: Option<usize> = None;
        loop {
            let param = named.map(node_name).unwrap_or_default();
            let (mut ws, at) = match named {
                None => {
                    let url = game_url(nodes, node, id, &token, &param)?;
                    (connect(&url).await?, node)
                }
                // The named node, else the next ones in turn (the balancer's backups).
                Some(k) => {
                    let mut last = None;
                    let mut found = None;
                    for at in (0..n).map(|j| (k + j) % n) {
                        match connect(&game_url(nodes, at, id, &token, &param)?).await {
                            Ok(ws) => {
                                found = Some((ws, at));
                                break;
                            }
                            Err(e) => last = Some(e),
                        }
                    }
                    match (found, last) {
                        (Some(f), _) => f,
                        (None, Some(e)) => return Err(e),
                        (None, None) => {
                            return Err(LoadError::unexpected("connecting", "no node"));
                        }
                    }
                }
            };
            let first = next_text(&mut ws).await?;
            if first.contains("\"type\":\"state\"") {
                return Ok(Side {
                    ws,
                    node: at,
                    token,
                });
            }
            let told = serde_json::from_str::<flagfall_protocol::ServerMsg>(&first);
            match (told, named) {
                (Ok(flagfall_protocol::ServerMsg::Reconnect { node: to }), None) => {
                    let k = node_index(&to, n).ok_or_else(|| {
                        LoadError::unexpected("told to reconnect to an unknown node", &first)
                    })?;
                    named = Some(k);
                }
                _ => return Err(LoadError::unexpected("expected the state", first)),
            }
        }
    }

    /// Send `frame` and read until the answer carrying `needle`: whether it is the
    /// event (the acknowledgement) and the answer's text. An `error` naming no `id`
    /// answers too: the server dropped a frame unread (its rate limit, docs/protocol.md
    /// "Limits"), and the one sent is the only one waiting for an answer.
    async fn exchange(&mut self, frame: &str, needle: &str) -> Result<(bool, String), LoadError> {
        send_text(&mut self.ws, frame.to_string()).await?;
        loop {
            let text = next_text(&mut self.ws).await?;
            if text.contains(needle) {
                return Ok((text.starts_with("{\"type\":\"event\""), text));
            }
            if text.starts_with("{\"type\":\"error\"") && !text.contains("\"id\":") {
                return Ok((false, text));
            }
        }
    }
}

/// The next text frame.
pub(crate) async fn next_text(ws: &mut Ws) -> Result<String, LoadError> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) => return Ok(t.to_string()),
            Some(Ok(Message::Close(c))) => {
                return Err(LoadError::Socket(format!("closed: {c:?}")));
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(LoadError::Socket(e.to_string())),
            None => return Err(LoadError::Socket("the socket ended".into())),
        }
    }
}

/// Send a text frame.
pub(crate) async fn send_text(ws: &mut Ws, text: String) -> Result<(), LoadError> {
    ws.send(Message::Text(text.into()))
        .await
        .map_err(|e| LoadError::Socket(e.to_string()))
}

impl Bots {
    /// One move by the side to move, to its acknowledgement; the latency.
    ///
    /// On a single server any failure ends the bot. On a cluster a bot whose socket
    /// fails, closes (a node killed, a game moved) or stays silent reconnects to the
    /// next node and resends the same frame with the same `id` (the owner answers a
    /// retried id with the event it made, so nothing is stored twice); a refusal is
    /// retried on the same socket (a game between owners); both for at most 30 s.
    pub(crate) async fn step(&mut self) -> Result<Duration, LoadError> {
        let k = self.sent as usize;
        let id = format!("m{k}");
        let frame = format!(r#"{{"move":"{}","press":true,"id":"{id}"}}"#, MOVES[k % 4]);
        let needle = format!("\"id\":\"{id}\"");
        let t = Instant::now();
        let cluster = self.nodes.len() > 1;
        self.pending = true;
        loop {
            let side = if k.is_multiple_of(2) {
                &mut self.white
            } else {
                &mut self.black
            };
            let answer = if cluster {
                match tokio::time::timeout(ANSWER_WITHIN, side.exchange(&frame, &needle)).await {
                    Ok(a) => a,
                    Err(_) => Err(LoadError::Socket(format!(
                        "no answer within {} s",
                        ANSWER_WITHIN.as_secs()
                    ))),
                }
            } else {
                side.exchange(&frame, &needle).await
            };
            let problem = match answer {
                Ok((true, _)) => {
                    self.sent += 1;
                    self.pending = false;
                    return Ok(t.elapsed());
                }
                Ok((false, text)) if !cluster || t.elapsed() > RETRY_FOR => {
                    return Err(LoadError::unexpected(format!("move {k}"), text));
                }
                Ok((false, _)) => None,
                Err(e) if !cluster || t.elapsed() > RETRY_FOR => return Err(e),
                Err(e) => Some(e),
            };
            tokio::time::sleep(PAUSE).await;
            if let Some(e) = problem {
                tracing::debug!(game = %self.id, error = %e, "reconnecting");
                self.reconnect(k.is_multiple_of(2), t).await?;
            }
        }
    }

    /// Reopen White's (or Black's) socket on the next node that gives the state, trying
    /// the nodes in turn until 30 s after `since`.
    async fn reconnect(&mut self, white: bool, since: Instant) -> Result<(), LoadError> {
        let n = self.nodes.len();
        let side = if white {
            &mut self.white
        } else {
            &mut self.black
        };
        let mut node = side.node;
        loop {
            node = (node + 1) % n;
            match Side::open(&self.nodes, node, &self.id, side.token.clone()).await {
                Ok(s) => {
                    *side = s;
                    return Ok(());
                }
                Err(e) if since.elapsed() > RETRY_FOR => return Err(e),
                Err(_) => tokio::time::sleep(PAUSE).await,
            }
        }
    }

    /// The game's stored script against the moves sent: (lost, duplicated) events. A
    /// last move sent and never acknowledged counts as neither, stored or not.
    pub(crate) async fn check(self, addr: SocketAddr) -> Result<(u64, u64), LoadError> {
        let path = format!("/api/games/{}/script", self.id);
        let script = http(addr, "GET", &path, "").await?;
        let stored: Vec<Value> = script
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str(l)
                    .map_err(|e| LoadError::unexpected(format!("{path}: {e}"), l))
            })
            .collect::<Result<_, _>>()?;
        let mut lost = 0;
        let mut dup = 0;
        let mut expected_len = self.sent;
        if self.pending
            && stored.len() as u64 == self.sent + 1
            && stored[self.sent as usize]["move"] == MOVES[self.sent as usize % 4]
        {
            expected_len += 1;
        }
        for k in 0..expected_len.max(stored.len() as u64) {
            let expected = MOVES[k as usize % 4];
            match stored.get(k as usize) {
                Some(e) if k < expected_len && e["move"] == expected => {}
                Some(_) if k >= expected_len => dup += 1,
                Some(_) => lost += 1,
                None => lost += 1,
            }
        }
        Ok((lost, dup))
    }
}

/// A bot's WebSocket, with a small read buffer (tungstenite's default zero-fills 128 KiB).
pub(crate) async fn connect(url: &str) -> Result<Ws, LoadError> {
    let config = WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0);
    let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true)
        .await
        .map_err(|source| LoadError::Connect {
            url: url.to_string(),
            source,
        })?;
    Ok(ws)
}

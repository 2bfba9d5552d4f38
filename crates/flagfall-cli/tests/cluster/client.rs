//! A small HTTP client and a WebSocket client that, unlike the server suite's, takes a
//! closed socket or a silent node as an answer to act on (reconnect elsewhere), not a
//! failure.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// One HTTP/1.1 request: its status and body, or why there is none within `wait`.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    wait: Duration,
) -> Result<(u16, String), String> {
    let exchange = async {
        let mut s = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes())
            .await
            .map_err(|e| format!("send: {e}"))?;
        let mut raw = Vec::new();
        s.read_to_end(&mut raw)
            .await
            .map_err(|e| format!("read: {e}"))?;
        Ok::<_, String>(raw)
    };
    let raw = tokio::time::timeout(wait, exchange)
        .await
        .map_err(|_| format!("no answer within {wait:?}"))??;
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("not an HTTP response: {text:?}"))?;
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {head:?}"))?;
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
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
    Ok((status, body))
}

/// `GET path` answered 200 with JSON, or why not.
pub async fn get_json(addr: SocketAddr, path: &str) -> Result<Value, String> {
    let (status, body) = http(addr, "GET", path, "", Duration::from_secs(10)).await?;
    if status != 200 {
        return Err(format!("GET {path}: {status} {body}"));
    }
    serde_json::from_str(&body).map_err(|e| format!("GET {path}: not JSON ({e}): {body}"))
}

/// What a socket gave.
#[derive(Debug)]
pub enum Incoming {
    /// A text message (already applied to the view, unless it broke the sequence).
    Msg(Value),
    /// The socket closed: the close code (1006 without a close frame) and reason.
    Closed(u16, String),
    /// Nothing within the wait.
    Silent,
}

/// A WebSocket on one node with the state its messages build (docs/protocol.md
/// "Keeping the state").
pub struct Ws {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub view: Value,
    /// An event arrived out of sequence (messages lost): the view is stale until a fresh
    /// state; the client should reconnect.
    pub gap: bool,
}

impl Ws {
    /// Connect and read the first `state`, within `wait`.
    pub async fn connect(
        addr: SocketAddr,
        game: &str,
        token: Option<&str>,
        wait: Duration,
    ) -> Result<Ws, String> {
        let query = match token {
            Some(t) => format!("?token={t}"),
            None => String::new(),
        };
        match Ws::open(addr, &format!("/ws/games/{game}{query}"), wait).await? {
            (c, Incoming::Msg(m)) if m["type"] == "state" => Ok(c),
            (_, other) => Err(format!("{addr} sent {other:?} first, not a state")),
        }
    }

    /// Connect to `path` (with its query) and read the first message, within `wait`.
    pub async fn open(
        addr: SocketAddr,
        path: &str,
        wait: Duration,
    ) -> Result<(Ws, Incoming), String> {
        let url = format!("ws://{addr}{path}");
        let (ws, _) = tokio::time::timeout(wait, tokio_tungstenite::connect_async(url))
            .await
            .map_err(|_| format!("no WebSocket upgrade from {addr} within {wait:?}"))?
            .map_err(|e| format!("WebSocket to {addr}: {e}"))?;
        let mut c = Ws {
            ws,
            view: Value::Null,
            gap: false,
        };
        let first = c.recv(wait).await;
        Ok((c, first))
    }

    /// The next text message within `wait`, applied to the view.
    pub async fn recv(&mut self, wait: Duration) -> Incoming {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let msg = match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return Incoming::Silent,
                Ok(None) => return Incoming::Closed(1006, "the connection ended".into()),
                Ok(Some(Err(e))) => return Incoming::Closed(1006, e.to_string()),
                Ok(Some(Ok(m))) => m,
            };
            match msg {
                Message::Text(t) => {
                    let v: Value = match serde_json::from_str(t.as_str()) {
                        Ok(v) => v,
                        Err(e) => {
                            panic!("the server sent a text message that is not JSON ({e}): {t}")
                        }
                    };
                    if apply(&mut self.view, &v).is_err() {
                        self.gap = true;
                    } else if v["type"] == "state" {
                        self.gap = false;
                    }
                    return Incoming::Msg(v);
                }
                Message::Close(Some(f)) => {
                    return Incoming::Closed(f.code.into(), f.reason.to_string());
                }
                Message::Close(None) => return Incoming::Closed(1005, String::new()),
                _ => continue,
            }
        }
    }

    /// Read whatever has arrived (answering the server's pings), without waiting.
    pub async fn drain(&mut self) -> Option<(u16, String)> {
        loop {
            match self.recv(Duration::from_millis(5)).await {
                Incoming::Msg(_) => continue,
                Incoming::Silent => return None,
                Incoming::Closed(code, reason) => return Some((code, reason)),
            }
        }
    }

    pub async fn send(&mut self, v: &Value) -> Result<(), String> {
        tokio::time::timeout(
            Duration::from_secs(5),
            self.ws.send(Message::Text(v.to_string().into())),
        )
        .await
        .map_err(|_| "the send did not complete within 5 s".to_string())?
        .map_err(|e| format!("send: {e}"))
    }
}

/// Apply a server message to a view (the server suite's `apply`, with a gap an error
/// instead of a failure: the protocol's client reconnects).
pub fn apply(view: &mut Value, msg: &Value) -> Result<(), String> {
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
            let n = msg["n"].as_u64().ok_or("an event without n")?;
            let have = view["n"].as_u64().ok_or("an event before a state")?;
            if n <= have {
                // Already applied (a retried id is answered with its event again).
                return Ok(());
            }
            if n != have + 1 {
                return Err(format!("event {n} after {have}"));
            }
            let update = msg["update"].as_object().ok_or("an event without update")?;
            let from = update["moves_from"].as_u64().ok_or("no moves_from")? as usize;
            let moves = view["moves"].as_array_mut().ok_or("a view without moves")?;
            if from > moves.len() {
                return Err(format!("moves_from {from} past {} moves", moves.len()));
            }
            moves.truncate(from);
            moves.extend(
                update["moves"]
                    .as_array()
                    .ok_or("no moves")?
                    .iter()
                    .cloned(),
            );
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
            let rulings = view["rulings"].as_array_mut().ok_or("no rulings")?;
            rulings.extend(
                msg["rulings"]
                    .as_array()
                    .ok_or("no rulings")?
                    .iter()
                    .cloned(),
            );
        }
        Some("flag") => {
            if let Some(flags) = view["flags"].as_array_mut()
                && !flags.contains(&msg["color"])
            {
                flags.push(msg["color"].clone());
            }
        }
        _ => {}
    }
    Ok(())
}

//! The bots: a game's two sockets shuffling knights (Nf3 Nf6 Ng1 Ng8 ...: legal moves
//! forever, never a result), the plain HTTP they need, and the check of what was stored.

use std::net::SocketAddr;
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

/// One game's two bots.
pub(crate) struct Bots {
    id: String,
    white: Ws,
    black: Ws,
    sent: u64,
}

/// Create a game and connect both players; each has read its `state`.
pub(crate) async fn open_game(addr: SocketAddr) -> Result<Bots, LoadError> {
    let body = http(
        addr,
        "POST",
        "/api/games",
        r#"{"rules":"uscf-2020","time_control":"G/10;d0"}"#,
    )
    .await?;
    let created: flagfall_protocol::Created = serde_json::from_str(&body)
        .map_err(|e| LoadError::unexpected(format!("creating a game: {e}"), body))?;
    let url = |t: &str| format!("ws://{addr}/ws/games/{}?token={t}", created.id);
    let mut white = connect(&url(&created.tokens.white)).await?;
    let mut black = connect(&url(&created.tokens.black)).await?;
    for ws in [&mut white, &mut black] {
        let first = next_text(ws).await?;
        if !first.contains("\"type\":\"state\"") {
            return Err(LoadError::unexpected("expected the state", first));
        }
    }
    Ok(Bots {
        id: created.id,
        white,
        black,
        sent: 0,
    })
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
    pub(crate) async fn step(&mut self) -> Result<Duration, LoadError> {
        let k = self.sent as usize;
        let ws = if k.is_multiple_of(2) {
            &mut self.white
        } else {
            &mut self.black
        };
        let id = format!("m{k}");
        let frame = format!(r#"{{"move":"{}","press":true,"id":"{id}"}}"#, MOVES[k % 4]);
        let t = Instant::now();
        send_text(ws, frame).await?;
        let needle = format!("\"id\":\"{id}\"");
        loop {
            let text = next_text(ws).await?;
            if text.contains(&needle) {
                if !text.starts_with("{\"type\":\"event\"") {
                    return Err(LoadError::unexpected(format!("move {k}"), text));
                }
                self.sent += 1;
                return Ok(t.elapsed());
            }
        }
    }

    /// The game's stored script against the moves sent: (lost, duplicated) events.
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
        for k in 0..self.sent.max(stored.len() as u64) {
            let expected = MOVES[k as usize % 4];
            match stored.get(k as usize) {
                Some(e) if k < self.sent && e["move"] == expected => {}
                Some(_) if k >= self.sent => dup += 1,
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

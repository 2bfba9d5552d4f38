//! One WebSocket: the state on connect, then the game's messages from the bus out and
//! the client's frames in (parsed, rate limited, passed to the game's task).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use flagfall_protocol::{ClientFrame, Role, ServerMsg, parse_frame};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::Shared;
use crate::bus::Delivery;
use crate::game::{Act, Cmd, Reply};
use crate::lag::Pings;

/// The largest WebSocket message read at all; a longer one closes the socket (1009).
/// Frames between [`flagfall_protocol::MAX_FRAME_BYTES`] and this get an `error`.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// The read buffer a socket starts with (it grows for a longer frame).
pub const READ_BUFFER_BYTES: usize = 4 * 1024;
/// Frames a socket may send per second, sustained, and in a burst.
pub const RATE_PER_SEC: f64 = 20.0;
pub const BURST: f64 = 40.0;
/// Frames over the limit in a row before the socket is closed (1008).
pub const FLOOD_CLOSE_AFTER: u32 = 20;
/// How often the server pings (and measures the round trip from its pong).
const PING_EVERY: Duration = Duration::from_secs(5);

/// How long one send to a socket may take: a peer that stopped reading (gone without a
/// close, its buffers full) is dropped instead of holding its task, and the server's
/// shutdown, forever.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// Pings in a row left unanswered before the socket is closed (the peer is gone).
pub const PINGS_UNANSWERED_CLOSE: u32 = 3;

/// Send `m`, failing after [`WRITE_TIMEOUT`].
async fn timed(sink: &mut SplitSink<WebSocket, Message>, m: Message) -> Result<(), ()> {
    match tokio::time::timeout(WRITE_TIMEOUT, sink.send(m)).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

struct Gauge(Arc<Shared>);

impl Drop for Gauge {
    fn drop(&mut self) {
        self.0.metrics.sockets.dec();
    }
}

fn text(msg: &ServerMsg) -> Message {
    Message::Text(Utf8Bytes::from(msg.to_text()))
}

/// The `state` message for this socket, with `"role"`: what its token acts as (the web
/// board needs it to know which side it plays; the state object is the same for all).
fn state_text(state: flagfall_protocol::State, role: Role) -> Message {
    let mut v = serde_json::to_value(ServerMsg::State(Box::new(state))).unwrap_or_else(
        |e| serde_json::json!({"type": "error", "message": format!("cannot encode the state: {e}")}),
    );
    if let Some(o) = v.as_object_mut() {
        o.insert("role".into(), role.as_str().into());
    }
    Message::Text(Utf8Bytes::from(v.to_string()))
}

fn close(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from(reason.to_string()),
    }))
}

/// Send a command to the game's task, reloading the game once if its task was unloaded.
async fn ask<T>(s: &Arc<Shared>, id: &str, make: impl Fn(oneshot::Sender<T>) -> Cmd) -> Option<T> {
    for _ in 0..2 {
        let h = s.handle(id).await.ok()??;
        let (tx, rx) = oneshot::channel();
        if h.tx.send(make(tx)).await.is_ok()
            && let Ok(v) = rx.await
        {
            return Some(v);
        }
    }
    None
}

/// A token bucket: `rate` frames a second sustained, `burst` at once.
struct RateLimit {
    rate: f64,
    burst: f64,
    tokens: f64,
    refill_at: Instant,
    /// Frames dropped in a row.
    over_limit: u32,
}

/// What the limit does with a frame.
enum Admit {
    Yes,
    /// Over the limit: dropped, the client told.
    Dropped,
    /// More than [`FLOOD_CLOSE_AFTER`] dropped in a row: the socket closes.
    Flooding,
}

impl RateLimit {
    fn new((rate, burst): (f64, f64)) -> RateLimit {
        RateLimit {
            rate,
            burst,
            tokens: burst,
            refill_at: Instant::now(),
            over_limit: 0,
        }
    }

    fn take(&mut self) -> Admit {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.refill_at).as_secs_f64() * self.rate)
            .min(self.burst);
        self.refill_at = now;
        if self.tokens < 1.0 {
            self.over_limit += 1;
            return if self.over_limit > FLOOD_CLOSE_AFTER {
                Admit::Flooding
            } else {
                Admit::Dropped
            };
        }
        self.tokens -= 1.0;
        self.over_limit = 0;
        Admit::Yes
    }
}

/// The closing handshake after our close: read (and drop) what the client still sends
/// until it answers the close, for at most a second.
async fn drain_until_close(stream: &mut futures_util::stream::SplitStream<WebSocket>) {
    let deadline = Instant::now() + Duration::from_secs(1);
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(deadline, stream.next()).await {
        if matches!(m, Message::Close(_)) {
            break;
        }
    }
}

/// The answer to one admitted text frame, if it has one of its own (a stored action's
/// answer is its event, on the bus).
async fn answer(
    s: &Arc<Shared>,
    id: &str,
    role: Role,
    rtt_ms: Option<u64>,
    body: &str,
) -> Option<String> {
    match parse_frame(body) {
        Err(e) => {
            s.metrics.frame_errors.inc();
            Some(
                ServerMsg::Error {
                    id: e.id.clone(),
                    message: e.to_string(),
                }
                .to_text(),
            )
        }
        Ok(ClientFrame::Ping(n)) => {
            let now = ask(s, id, Cmd::Now).await.unwrap_or(0);
            Some(
                ServerMsg::Pong {
                    ping: n,
                    server_now: now,
                }
                .to_text(),
            )
        }
        Ok(ClientFrame::Action {
            id: cid,
            lag_ms,
            action,
        }) => {
            if role == Role::Spectator {
                s.metrics.refused.inc();
                return Some(
                    ServerMsg::Refused {
                        id: cid,
                        reason: "spectators cannot act on a game (uscf-2020 13)".into(),
                        rule: None,
                    }
                    .to_text(),
                );
            }
            let make = |tx| {
                Cmd::Act(
                    Act {
                        role,
                        id: cid.clone(),
                        lag_ms,
                        action: action.clone(),
                        rtt_ms,
                    },
                    tx,
                )
            };
            match ask(s, id, make).await {
                Some(Reply::Stored(_)) => None,
                Some(Reply::Direct(t)) => Some(t),
                None => Some(
                    ServerMsg::Error {
                        id: cid,
                        message: "the game is not available".into(),
                    }
                    .to_text(),
                ),
            }
        }
    }
}

pub async fn run(s: Arc<Shared>, id: String, role: Role, socket: WebSocket) {
    s.metrics.sockets.inc();
    let _gauge = Gauge(s.clone());
    let (mut sink, mut stream) = socket.split();
    let mut shutdown = s.shutdown.clone();
    if *shutdown.borrow() {
        let _ = sink
            .send(close(close_code::AWAY, "server shutting down"))
            .await;
        return;
    }
    let mut sub = s.bus.subscribe(&id);
    let Some(state) = ask(&s, &id, Cmd::State).await else {
        let _ = sink
            .send(close(close_code::ERROR, "the game is not available"))
            .await;
        return;
    };
    let mut last_n = state.n;
    if timed(&mut sink, state_text(state, role)).await.is_err() {
        return;
    }
    let mut pings = Pings::default();
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut limit = RateLimit::new(s.rate);
    loop {
        tokio::select! {
            frame = stream.next() => {
                let frame = match frame {
                    None => break,
                    Some(Ok(f)) => f,
                    Some(Err(e)) => {
                        // A close reason is at most 123 bytes (RFC 6455 5.5).
                        let mut reason = format!("closing: {e}");
                        while reason.len() > 120 {
                            reason.pop();
                        }
                        let _ = timed(&mut sink, close(crate::limits::close_code_for(e), &reason)).await;
                        // What the client sent after the bad frame is unread: closing at
                        // once resets the connection, and the client may lose the close
                        // frame to the reset. Give it a moment to read it.
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        break;
                    }
                };
                let body = match frame {
                    Message::Text(t) => t,
                    Message::Binary(_) => {
                        s.metrics.frame_errors.inc();
                        let msg = ServerMsg::Error { id: None, message: "text frames only: send JSON".into() };
                        if timed(&mut sink, text(&msg)).await.is_err() { break; }
                        continue;
                    }
                    Message::Pong(p) => {
                        // Only the answer to this socket's own ping counts.
                        pings.pong(p.as_ref());
                        continue;
                    }
                    Message::Ping(_) => continue,
                    Message::Close(_) => break,
                };
                match limit.take() {
                    Admit::Yes => {}
                    Admit::Dropped => {
                        s.metrics.frame_errors.inc();
                        let msg = ServerMsg::Error { id: None, message: format!("rate limit: at most {} messages a second; this one was dropped", limit.rate) };
                        if timed(&mut sink, text(&msg)).await.is_err() { break; }
                        continue;
                    }
                    Admit::Flooding => {
                        s.metrics.frame_errors.inc();
                        let _ = timed(&mut sink, close(close_code::POLICY, "flooding: too many messages a second")).await;
                        drain_until_close(&mut stream).await;
                        break;
                    }
                }
                let answer = answer(&s, &id, role, pings.rtt_ms(), body.as_str()).await;
                if let Some(t) = answer
                    && timed(&mut sink, Message::Text(Utf8Bytes::from(t))).await.is_err()
                {
                    break;
                }
            }
            d = sub.next() => {
                match d {
                    None => break,
                    Some(Delivery::Msg(m)) => {
                        if m.n.is_some_and(|n| n <= last_n) {
                            continue;
                        }
                        if let Some(n) = m.n {
                            last_n = n;
                        }
                        if timed(&mut sink, Message::Text(Utf8Bytes::from(&*m.text))).await.is_err() {
                            break;
                        }
                    }
                    Some(Delivery::Lagged) => {
                        let Some(state) = ask(&s, &id, Cmd::State).await else { break };
                        last_n = state.n;
                        if timed(&mut sink, state_text(state, role)).await.is_err() {
                            break;
                        }
                    }
                }
            }
            _ = ping.tick() => {
                if pings.unanswered() >= PINGS_UNANSWERED_CLOSE {
                    tracing::debug!(game = %id, "no pong to {PINGS_UNANSWERED_CLOSE} pings: closing");
                    break;
                }
                let nonce = pings.ping();
                if timed(&mut sink, Message::Ping(nonce.to_vec().into())).await.is_err() {
                    break;
                }
            }
            _ = shutdown.changed() => {
                let _ = timed(&mut sink, close(close_code::AWAY, "server shutting down")).await;
                break;
            }
        }
    }
    let _ = tokio::time::timeout(WRITE_TIMEOUT, sink.close()).await;
}

//! One WebSocket: the state on connect, then the game's messages from the bus out and
//! the client's frames in (parsed, rate limited, passed to the game's task).

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use flagfall_protocol::{ClientFrame, Role, ServerMsg, parse_frame};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::Shared;
use crate::bus::Delivery;
use crate::game::{Act, Cmd, Reply};

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
/// How often the server pings (and measures the round trip).
const PING_EVERY: Duration = Duration::from_secs(5);

struct Gauge(Arc<Shared>);

impl Drop for Gauge {
    fn drop(&mut self) {
        self.0.metrics.sockets.fetch_sub(1, Relaxed);
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

pub async fn run(s: Arc<Shared>, id: String, role: Role, socket: WebSocket) {
    s.metrics.sockets.fetch_add(1, Relaxed);
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
    if sink.send(state_text(state, role)).await.is_err() {
        return;
    }
    let opened = Instant::now();
    let mut rtt_ms: Option<u64> = None;
    let mut ping = tokio::time::interval(PING_EVERY);
    let (rate, burst) = s.rate;
    let mut tokens = burst;
    let mut refill_at = Instant::now();
    let mut over_limit = 0u32;
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
                        let _ = sink.send(close(crate::limits::close_code_for(e), &reason)).await;
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
                        s.metrics.frame_errors.fetch_add(1, Relaxed);
                        let msg = ServerMsg::Error { id: None, message: "text frames only: send JSON".into() };
                        if sink.send(text(&msg)).await.is_err() { break; }
                        continue;
                    }
                    Message::Pong(p) => {
                        if let Ok(b) = <[u8; 8]>::try_from(p.as_ref()) {
                            let sent = u64::from_be_bytes(b);
                            let now = opened.elapsed().as_micros() as u64;
                            rtt_ms = Some(now.saturating_sub(sent).div_ceil(1000));
                        }
                        continue;
                    }
                    Message::Ping(_) => continue,
                    Message::Close(_) => break,
                };
                // Token bucket: RATE_PER_SEC sustained, BURST at once.
                let now = Instant::now();
                tokens = (tokens + now.duration_since(refill_at).as_secs_f64() * rate).min(burst);
                refill_at = now;
                if tokens < 1.0 {
                    over_limit += 1;
                    s.metrics.frame_errors.fetch_add(1, Relaxed);
                    if over_limit > FLOOD_CLOSE_AFTER {
                        let _ = sink.send(close(close_code::POLICY, "flooding: too many messages a second")).await;
                        // The closing handshake: read (and drop) what the client still
                        // sends until it answers the close, for at most a second.
                        let deadline = Instant::now() + Duration::from_secs(1);
                        while let Ok(Some(Ok(m))) = tokio::time::timeout_at(deadline, stream.next()).await {
                            if matches!(m, Message::Close(_)) {
                                break;
                            }
                        }
                        break;
                    }
                    let msg = ServerMsg::Error { id: None, message: format!("rate limit: at most {rate} messages a second; this one was dropped") };
                    if sink.send(text(&msg)).await.is_err() { break; }
                    continue;
                }
                tokens -= 1.0;
                over_limit = 0;
                let answer = match parse_frame(body.as_str()) {
                    Err(e) => {
                        s.metrics.frame_errors.fetch_add(1, Relaxed);
                        Some(ServerMsg::Error { id: e.id.clone(), message: e.to_string() }.to_text())
                    }
                    Ok(ClientFrame::Ping(n)) => {
                        let now = ask(&s, &id, Cmd::Now).await.unwrap_or(0);
                        Some(ServerMsg::Pong { ping: n, server_now: now }.to_text())
                    }
                    Ok(ClientFrame::Action { id: cid, lag_ms, action }) => {
                        if role == Role::Spectator {
                            s.metrics.refused.fetch_add(1, Relaxed);
                            Some(ServerMsg::Refused { id: cid, reason: "spectators cannot act on a game (uscf-2020 13)".into(), rule: None }.to_text())
                        } else {
                            let make = |tx| Cmd::Act(Act { role, id: cid.clone(), lag_ms, action: action.clone(), rtt_ms }, tx);
                            match ask(&s, &id, make).await {
                                Some(Reply::Stored(_)) => None,
                                Some(Reply::Direct(t)) => Some(t),
                                None => Some(ServerMsg::Error { id: cid, message: "the game is not available".into() }.to_text()),
                            }
                        }
                    }
                };
                if let Some(t) = answer
                    && sink.send(Message::Text(Utf8Bytes::from(t))).await.is_err()
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
                        if sink.send(Message::Text(Utf8Bytes::from(&*m.text))).await.is_err() {
                            break;
                        }
                    }
                    Some(Delivery::Lagged) => {
                        let Some(state) = ask(&s, &id, Cmd::State).await else { break };
                        last_n = state.n;
                        if sink.send(state_text(state, role)).await.is_err() {
                            break;
                        }
                    }
                }
            }
            _ = ping.tick() => {
                let stamp = opened.elapsed().as_micros() as u64;
                if sink.send(Message::Ping(stamp.to_be_bytes().to_vec().into())).await.is_err() {
                    break;
                }
            }
            _ = shutdown.changed() => {
                let _ = sink.send(close(close_code::AWAY, "server shutting down")).await;
                break;
            }
        }
    }
    let _ = sink.close().await;
}

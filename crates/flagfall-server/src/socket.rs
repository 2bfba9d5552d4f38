//! One WebSocket: the state on connect, then the game's messages from the bus out and
//! the client's frames in (parsed, rate limited, actions passed to the game's task).
//! The state on connect (and after falling behind) and the answer to a ping are read
//! from the game's published [`crate::game::View`], not asked of its task's queue: a
//! ping reads the view's clock, a state the copy of the game the task makes at most
//! once per commit ([`GameHandle::copy`]), so a crowd of spectators costs the players
//! nothing per spectator.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use flagfall_protocol::{ClientFrame, Role, ServerMsg, parse_frame};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::Shared;
use crate::bus::Delivery;
use crate::game::{Act, Cmd, GameCopy, GameHandle, Reply, View};
use crate::lag::Pings;

/// The largest WebSocket message read at all; a longer one closes the socket (1009).
/// Frames between [`flagfall_protocol::MAX_FRAME_BYTES`] and this get an `error`.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// The read buffer a socket starts with (it grows for a longer frame).
pub const READ_BUFFER_BYTES: usize = 4 * 1024;
/// Frames a player (all the sockets of one token together) or a spectator's socket may
/// send per second, sustained, and in a burst.
pub const RATE_PER_SEC: f64 = 20.0;
pub const BURST: f64 = 40.0;
/// Frames over the limit in a row on one socket before it is closed (1008).
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

/// The `state` message `text` for a socket, with `"role"`: what its token acts as (the
/// web board needs it to know which side it plays; the state object is the same for
/// all).
fn with_role(text: &str, role: Role) -> Message {
    let body = text.strip_prefix('{').unwrap_or(text);
    Message::Text(Utf8Bytes::from(format!(
        "{{\"role\":\"{}\",{body}",
        role.as_str()
    )))
}

fn close(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from(reason.to_string()),
    }))
}

/// The game as last stored, from its task's published view; through a new handle when
/// the task behind `h` has stopped (the game unloaded, loaded again on demand).
async fn view(s: &Arc<Shared>, id: &str, h: &mut GameHandle) -> Option<Arc<View>> {
    if h.tx.is_closed() {
        *h = s.handle(id).await.ok()??;
    }
    Some(h.view.borrow().clone())
}

/// The game as last stored, copied by its task for its readers; through a new handle
/// when the task behind `h` has stopped.
async fn copy(s: &Arc<Shared>, id: &str, h: &mut GameHandle) -> Option<Arc<GameCopy>> {
    for _ in 0..2 {
        if h.tx.is_closed() {
            *h = s.handle(id).await.ok()??;
        }
        if let Some(c) = h.copy().await {
            return Some(c);
        }
    }
    None
}

/// The `state` message for this socket, from the copy of the game as last stored (made
/// for another socket within [`crate::game::STATE_TEXT_SERVES`], perhaps), and its `n`.
async fn state_now(
    s: &Arc<Shared>,
    id: &str,
    h: &mut GameHandle,
    role: Role,
) -> Option<(u64, Message)> {
    let c = copy(s, id, h).await?;
    Some((c.n, with_role(&c.state_text_for(&h.meta, role), role)))
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
struct Bucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    refill_at: Instant,
}

impl Bucket {
    fn new((rate, burst): (f64, f64)) -> Bucket {
        Bucket {
            rate,
            burst,
            tokens: burst,
            refill_at: Instant::now(),
        }
    }

    /// Add the tokens earned since the last refill.
    fn refill(&mut self) {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.refill_at).as_secs_f64() * self.rate)
            .min(self.burst);
        self.refill_at = now;
    }

    /// Take one frame's token, if there is one.
    fn take(&mut self) -> bool {
        self.refill();
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }
}

type PlayerKey = (String, Role);

type Buckets = HashMap<PlayerKey, Arc<Mutex<Bucket>>>;

/// The buckets of the players with a socket open, one per game and role, shared by all
/// the sockets of that token: a player who opens more sockets gets no more frames. An
/// entry stays after the player's last socket closed until its bucket is full again
/// (burst / rate: 2 s by default), so closing every socket and opening new ones gives
/// no fresh burst.
#[derive(Default)]
pub struct PlayerBuckets(Mutex<Buckets>);

impl PlayerBuckets {
    fn lock(&self) -> std::sync::MutexGuard<'_, Buckets> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One socket's share of a bucket: the player's (kept in [`PlayerBuckets`]) or, for a
/// spectator, its own.
struct Share {
    bucket: Arc<Mutex<Bucket>>,
    /// The shared entry, removed when its last socket closes.
    entry: Option<(Arc<PlayerBuckets>, PlayerKey)>,
}

impl Share {
    fn new(s: &Shared, id: &str, role: Role) -> Share {
        if role == Role::Spectator {
            return Share {
                bucket: Arc::new(Mutex::new(Bucket::new(s.rate))),
                entry: None,
            };
        }
        let key = (id.to_string(), role);
        let bucket = s
            .player_buckets
            .lock()
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Mutex::new(Bucket::new(s.rate))))
            .clone();
        Share {
            bucket,
            entry: Some((s.player_buckets.clone(), key)),
        }
    }

    fn take(&self) -> bool {
        self.bucket.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let Some((buckets, key)) = self.entry.take() else {
            return;
        };
        // Held by the map and this socket only: the player's last socket.
        if Arc::strong_count(&self.bucket) > 2 {
            return;
        }
        let full_after = {
            let b = self.bucket.lock().unwrap_or_else(|p| p.into_inner());
            b.burst / b.rate
        };
        // Forget the bucket once it is full again (a new one is the same then), unless
        // a socket took it up meanwhile (its next close looks again). `unused`: the
        // count of a bucket only the map holds.
        let forget = move |unused: usize| -> bool {
            let mut map = buckets.lock();
            let Some(b) = map.get(&key) else { return true };
            if Arc::strong_count(b) > unused {
                return true;
            }
            let full = {
                let mut b = b.lock().unwrap_or_else(|p| p.into_inner());
                b.refill();
                b.tokens >= b.burst
            };
            if full {
                map.remove(&key);
            }
            full
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) if full_after.is_finite() && full_after > 0.0 => {
                let wait = Duration::from_secs_f64(full_after.min(60.0));
                rt.spawn(async move {
                    loop {
                        tokio::time::sleep(wait).await;
                        if forget(1) {
                            break;
                        }
                    }
                });
            }
            _ => {
                forget(2);
            }
        }
    }
}

/// A socket's rate limit: its player's bucket, and the frames it had dropped in a row.
struct RateLimit {
    rate: f64,
    share: Share,
    /// Frames dropped in a row on this socket.
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
    fn new(s: &Shared, id: &str, role: Role) -> RateLimit {
        RateLimit {
            rate: s.rate.0,
            share: Share::new(s, id, role),
            over_limit: 0,
        }
    }

    fn take(&mut self) -> Admit {
        if !self.share.take() {
            self.over_limit += 1;
            return if self.over_limit > FLOOD_CLOSE_AFTER {
                Admit::Flooding
            } else {
                Admit::Dropped
            };
        }
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
    h: &mut GameHandle,
    role: Role,
    rtt_ms: Option<u64>,
    received: Instant,
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
            let now = view(s, id, h).await.map_or(0, |v| v.now());
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
                        received,
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
    // Subscribed before the view is read: every event after the view's comes.
    let mut sub = s.bus.subscribe(&id);
    let state = match s.handle(&id).await {
        Ok(Some(mut h)) => state_now(&s, &id, &mut h, role).await.map(|st| (h, st)),
        _ => None,
    };
    let Some((mut h, (mut last_n, state))) = state else {
        let _ = sink
            .send(close(close_code::ERROR, "the game is not available"))
            .await;
        return;
    };
    if timed(&mut sink, state).await.is_err() {
        return;
    }
    let mut pings = Pings::default();
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut limit = RateLimit::new(&s, &id, role);
    loop {
        tokio::select! {
            frame = stream.next() => {
                let received = Instant::now();
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
                let answer = answer(&s, &id, &mut h, role, pings.rtt_ms(), received, body.as_str()).await;
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
                        if timed(&mut sink, Message::Text(Utf8Bytes::from(&**m.text_for(role)))).await.is_err() {
                            break;
                        }
                    }
                    Some(Delivery::Lagged) => {
                        let Some((n, state)) = state_now(&s, &id, &mut h, role).await else { break };
                        last_n = n;
                        if timed(&mut sink, state).await.is_err() {
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

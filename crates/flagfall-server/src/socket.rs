//! One WebSocket: the state on connect, then the game's messages from the bus out and
//! the client's frames in (parsed, rate limited, actions passed to the game's task).
//! The state on connect (and after falling behind) and the answer to a ping are read
//! from the game's published [`crate::game::View`], not asked of its task's queue: a
//! ping reads the view's clock, a state the copy of the game the task makes at most
//! once per commit ([`GameHandle::copy`]), so a crowd of spectators costs the players
//! nothing per spectator.

use std::collections::{HashMap, VecDeque};
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
use crate::game::{Act, Cmd, GameHandle, Reply};
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
/// The close code of a socket whose node stopped serving its game (a cluster node that
/// lost the game's lease): 1012, "service restart": reconnect.
pub const MOVED_CODE: u16 = 1012;
/// How often the server pings (and measures the round trip from its pong).
pub const PING_EVERY: Duration = Duration::from_secs(5);

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
fn with_role(text: &str, role: Role) -> String {
    let body = text.strip_prefix('{').unwrap_or(text);
    format!("{{\"role\":\"{}\",{body}", role.as_str())
}

pub(crate) fn close(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from(reason.to_string()),
    }))
}

/// Where this socket's game is served, as the socket last found it.
pub(crate) enum Target {
    /// By a task of this node. A socket bound to its node's task never moves to another
    /// node's: when this node stops serving the game (a cluster node that lost its
    /// lease), the socket closes with 1012 and its client reconnects.
    Local(GameHandle),
    /// By another node of the cluster (asked through `crate::seam`).
    Remote(String),
}

/// Why a socket got no answer about its game.
pub(crate) enum Gone {
    /// This node stopped serving the game: close with 1012, the client reconnects.
    Moved,
    /// The game is not available (no such game, the database, the owner not answering).
    Unavailable(String),
}

/// A live handle of the game on this node, for a socket bound to it: the same task, or
/// a new one when the game was unloaded and loaded here again.
async fn local(s: &Arc<Shared>, id: &str, h: &mut GameHandle) -> Result<(), Gone> {
    if !h.tx.is_closed() {
        return Ok(());
    }
    match s.handle(id).await {
        Ok(Some(new)) => {
            *h = new;
            Ok(())
        }
        Ok(None) => Err(Gone::Unavailable("the game is not available".into())),
        Err(crate::ServerError::Elsewhere { .. }) => Err(Gone::Moved),
        Err(e) => Err(Gone::Unavailable(format!("the game is not available: {e}"))),
    }
}

/// Look the game's owner up again after `node` did not answer: this node may serve it
/// now (it took it over), or another.
async fn reroute(
    s: &Arc<Shared>,
    id: &str,
    t: &mut Target,
    retry: &mut crate::seam::Retrying,
) -> Result<(), Gone> {
    match s.route_within(id, retry).await {
        Ok(Some(crate::Route::Local(h))) => *t = Target::Local(h),
        Ok(Some(crate::Route::Remote { node, .. })) => *t = Target::Remote(node),
        Ok(None) => return Err(Gone::Unavailable("the game is not available".into())),
        Err(e) => return Err(Gone::Unavailable(format!("the game is not available: {e}"))),
    }
    Ok(())
}

/// Ask the game's owner on another node, following the game when it moves, by the
/// seam's [`crate::seam::OwnerRetry`]; `Ok(None)` when this node turned out to serve it
/// (`t` is local now).
async fn remote(
    s: &Arc<Shared>,
    id: &str,
    t: &mut Target,
    req: impl Fn() -> crate::seam::Req,
) -> Result<Option<crate::seam::Resp>, Gone> {
    use crate::seam::Resp;
    let mut retry = s.seam.retry().start();
    loop {
        let Target::Remote(node) = &*t else {
            return Ok(None);
        };
        // The seam's future is boxed: a socket on a single node never makes one.
        let why = match s.seam.ask(s, node, &req()).await {
            Ok(Resp::NotFound) => {
                return Err(Gone::Unavailable("the game is not available".into()));
            }
            Ok(Resp::NotOwner) => "moved".to_string(),
            Ok(Resp::Busy) => "busy".to_string(),
            Ok(Resp::Unavailable(why)) => why,
            Ok(r) => return Ok(Some(r)),
            Err(e) => e.to_string(),
        };
        if !retry.again().await {
            return Err(Gone::Unavailable(format!(
                "the game's server does not answer, try again: {why}"
            )));
        }
        Box::pin(reroute(s, id, t, &mut retry)).await?;
    }
}

/// The game clock now (a ping's answer).
async fn now(s: &Arc<Shared>, id: &str, t: &mut Target) -> Result<u64, Gone> {
    for _ in 0..2 {
        if let Target::Local(h) = t {
            local(s, id, h).await?;
            return Ok(h.view.borrow().now());
        }
        let req = || crate::seam::Req::Ping {
            game: id.to_string(),
        };
        if let Some(crate::seam::Resp::Now(n)) = remote(s, id, t, req).await? {
            return Ok(n);
        }
    }
    Err(Gone::Unavailable("the game is not available".into()))
}

/// The `state` message for a socket acting as `role` on this node's task, with its
/// role, and its `n`: from the copy of the game as last stored (made for another socket
/// within [`crate::game::STATE_TEXT_SERVES`], perhaps). Also the owner's answer to
/// another node's socket.
pub(crate) async fn local_state(
    s: &Arc<Shared>,
    id: &str,
    h: &mut GameHandle,
    role: Role,
) -> Option<(u64, String)> {
    for _ in 0..2 {
        local(s, id, h).await.ok()?;
        if let Some(c) = h.copy().await {
            return Some((c.n, with_role(&c.state_text_for(&h.meta, role), role)));
        }
    }
    None
}

/// The `state` message for this socket, and its `n`.
async fn state_now(
    s: &Arc<Shared>,
    id: &str,
    t: &mut Target,
    role: Role,
    hash: Option<&str>,
) -> Result<(u64, Message), Gone> {
    for _ in 0..2 {
        if let Target::Local(h) = t {
            local(s, id, h).await?;
            return match local_state(s, id, h, role).await {
                Some((n, text)) => Ok((n, Message::Text(Utf8Bytes::from(text)))),
                None => Err(Gone::Unavailable("the game is not available".into())),
            };
        }
        // The owner finds the role from the token's hash, as this node did.
        let req = || crate::seam::Req::State {
            game: id.to_string(),
            token_hash: hash.map(str::to_string),
        };
        if let Some(crate::seam::Resp::State { n, text }) = remote(s, id, t, req).await? {
            return Ok((n, Message::Text(Utf8Bytes::from(text))));
        }
    }
    Err(Gone::Unavailable("the game is not available".into()))
}

/// An action to the game's task, here or on its owner (the frame as the client sent
/// it, parsed again there): the answer for this sender, if any. `make` makes the action
/// again for a second try (the game's task stopped meanwhile: unloaded, or moved).
async fn act(
    s: &Arc<Shared>,
    id: &str,
    t: &mut Target,
    hash: Option<&str>,
    frame: &str,
    make: impl Fn() -> Act,
) -> Result<Reply, Gone> {
    for _ in 0..2 {
        if let Target::Local(h) = t {
            local(s, id, h).await?;
            let (tx, rx) = oneshot::channel();
            if h.tx.send(Cmd::Act(make(), tx)).await.is_err() {
                continue;
            }
            match rx.await {
                Ok(Reply::Moved) => return Err(Gone::Moved),
                Ok(r) => return Ok(r),
                Err(_) => continue,
            }
        }
        let a = make();
        let req = || crate::seam::Req::Act {
            game: id.to_string(),
            token_hash: hash.map(str::to_string),
            frame: frame.to_string(),
            rtt_ms: a.rtt_ms,
            waited_ms: a.received.elapsed().as_millis() as u64,
        };
        match remote(s, id, t, req).await? {
            Some(crate::seam::Resp::Stored(n)) => return Ok(Reply::Stored(n)),
            Some(crate::seam::Resp::Direct(text)) => return Ok(Reply::Direct(text)),
            Some(_) => {
                return Err(Gone::Unavailable(
                    "an unexpected answer from the game's server".into(),
                ));
            }
            // This node serves the game now: the action goes to its task.
            None => continue,
        }
    }
    Err(Gone::Unavailable("the game is not available".into()))
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

/// Charge an action routed from another node to its player's bucket here, on the
/// game's owner (issue 32, item 8): the bucket the player's sockets on this node take
/// from, so that a player with sockets on several nodes gets, for its actions, one
/// allowance in the whole cluster rather than one per node. Each asking node charged
/// the frame to its own bucket too (every frame counts there, pings included); the
/// owner's charge bounds what reaches the game. `false`: over the limit, the action
/// is dropped.
pub(crate) fn charge_routed_action(s: &Shared, id: &str, role: Role) -> bool {
    if role == Role::Spectator {
        return true;
    }
    // A share taken and given back at once: the bucket stays in the map, as after a
    // socket's close, until it is full again.
    Share::new(s, id, role).take()
}

/// A socket's rate limit: its player's bucket, and the frames it had dropped in a row.
pub(crate) struct RateLimit {
    pub(crate) rate: f64,
    share: Share,
    /// Frames dropped in a row on this socket.
    over_limit: u32,
}

/// What the limit does with a frame.
pub(crate) enum Admit {
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

    /// A socket's own bucket (a spectator's; an evening's live socket).
    pub(crate) fn own(s: &Shared) -> RateLimit {
        RateLimit::new(s, "", Role::Spectator)
    }

    pub(crate) fn take(&mut self) -> Admit {
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

/// What a frame is answered with on its socket.
enum Answer {
    /// Nothing of its own (an unanswered ping).
    None,
    /// This text.
    Text(String),
    /// The action was stored as event `n`: its answer is the event, on the bus.
    Stored(u64),
}

/// How long a socket on a game served elsewhere waits for the event of an action the
/// owner stored before it asks the owner for it again (a message lost between nodes:
/// the action's `id` sent again is answered with its event, not stored twice).
const STORED_EVENT_WAIT: Duration = Duration::from_millis(1500);

/// The answer to one admitted text frame, if it has one of its own (a stored action's
/// answer is its event, on the bus); [`Gone::Moved`] when this node stopped serving the
/// game the socket is bound to.
async fn answer(
    s: &Arc<Shared>,
    id: &str,
    t: &mut Target,
    (role, hash): (Role, Option<&str>),
    rtt_ms: Option<u64>,
    received: Instant,
    body: &str,
) -> Result<Answer, Gone> {
    match parse_frame(body) {
        Err(e) => {
            s.metrics.frame_errors.inc();
            Ok(Answer::Text(
                ServerMsg::Error {
                    id: e.id.clone(),
                    message: e.to_string(),
                }
                .to_text(),
            ))
        }
        Ok(ClientFrame::Ping(n)) => match now(s, id, t).await {
            Ok(now) => Ok(Answer::Text(
                ServerMsg::Pong {
                    ping: n,
                    server_now: now,
                }
                .to_text(),
            )),
            Err(Gone::Moved) => Err(Gone::Moved),
            // No clock to answer with: the ping goes unanswered, as on a lost network.
            Err(Gone::Unavailable(_)) => Ok(Answer::None),
        },
        Ok(ClientFrame::Action {
            id: cid,
            lag_ms,
            action,
            san,
        }) => {
            if role == Role::Spectator {
                s.metrics.refused.inc();
                return Ok(Answer::Text(
                    ServerMsg::Refused {
                        id: cid,
                        reason: "spectators cannot act on a game (uscf-2020 13)".into(),
                        rule: None,
                    }
                    .to_text(),
                ));
            }
            let make = || Act {
                role,
                id: cid.clone(),
                lag_ms,
                action: action.clone(),
                san: san.clone(),
                rtt_ms,
                received,
            };
            match act(s, id, t, hash, body, make).await {
                Ok(Reply::Stored(n)) => Ok(Answer::Stored(n)),
                Ok(Reply::Direct(text)) => Ok(Answer::Text(text)),
                Ok(Reply::Moved) | Err(Gone::Moved) => Err(Gone::Moved),
                Err(Gone::Unavailable(message)) => Ok(Answer::Text(
                    ServerMsg::Error { id: cid, message }.to_text(),
                )),
            }
        }
    }
}

/// Serve one socket on game `id` acting as `role`, its token hashing to `hash` (`None`:
/// a spectator's; a game's owner on another node finds the role from it again), over a
/// connection whose transport bounds the lag credit (`transport`).
pub async fn run(
    s: Arc<Shared>,
    id: String,
    (role, hash): (Role, Option<String>),
    route: crate::Route,
    socket: WebSocket,
    transport: crate::limits::Transport,
) {
    let hash = hash.as_deref();
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
    let mut t = match route {
        crate::Route::Local(h) => Target::Local(h),
        crate::Route::Remote { node, .. } => {
            // What the owner publishes reaches this node once its relay subscribed.
            s.bus.ready(&id).await;
            Target::Remote(node)
        }
    };
    let (mut last_n, state) = match state_now(&s, &id, &mut t, role, hash).await {
        Ok(st) => st,
        Err(Gone::Moved) => {
            let _ = sink.send(close(MOVED_CODE, crate::game::MOVED)).await;
            drain_until_close(&mut stream).await;
            return;
        }
        Err(Gone::Unavailable(_)) => {
            let _ = sink
                .send(close(close_code::ERROR, "the game is not available"))
                .await;
            return;
        }
    };
    if timed(&mut sink, state).await.is_err() {
        return;
    }
    let mut pings = Pings::default();
    // An action routed to another node and stored there whose event has not come yet:
    // its number, until when to wait, its frame.
    let mut awaited: Option<(u64, Instant, String)> = None;
    // The events of this socket's own stored actions whose bus copy has not come yet:
    // each is sent even when a state covered it meanwhile (a gap before it), since it
    // is the sender's acknowledgement (its `id`); the client's view ignores it.
    let mut own: VecDeque<u64> = VecDeque::new();
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
                // Every frame the client sends counts (text, binary, ping, pong, close
                // aside), in the same bucket and towards the same flood close; the one
                // exception is the pong that answers this socket's own ping, once.
                let is_binary = matches!(frame, Message::Binary(_));
                let body = match frame {
                    Message::Text(t) => Some(t),
                    Message::Pong(p) if pings.pong(p.as_ref()) => continue,
                    Message::Close(_) => break,
                    Message::Binary(_) | Message::Ping(_) | Message::Pong(_) => None,
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
                let Some(body) = body else {
                    // A binary frame is answered; a ping (answered by the WebSocket layer)
                    // and an unsolicited pong are not.
                    if is_binary {
                        s.metrics.frame_errors.inc();
                        let msg = ServerMsg::Error { id: None, message: "text frames only: send JSON".into() };
                        if timed(&mut sink, text(&msg)).await.is_err() { break; }
                    }
                    continue;
                };
                let answer = match answer(&s, &id, &mut t, (role, hash), pings.rtt_for_credit_ms(transport.rtt_bound_us()), received, body.as_str()).await {
                    Ok(Answer::Text(text)) => Some(text),
                    Ok(Answer::None) => None,
                    Ok(Answer::Stored(n)) => {
                        if n > last_n {
                            if own.len() >= OWN_AWAITED {
                                own.pop_front();
                            }
                            own.push_back(n);
                        }
                        // Routed to another node: its event comes over NATS, which may
                        // lose it; past a moment without it, ask the owner again.
                        if matches!(t, Target::Remote(_)) && n > last_n {
                            awaited = Some((n, Instant::now() + STORED_EVENT_WAIT, body.to_string()));
                        }
                        None
                    }
                    Err(_) => {
                        // This node no longer serves the game: the client reconnects
                        // (through the load balancer) to the node that does.
                        let _ = timed(&mut sink, close(MOVED_CODE, crate::game::MOVED)).await;
                        drain_until_close(&mut stream).await;
                        break;
                    }
                };
                if let Some(text) = answer
                    && timed(&mut sink, Message::Text(Utf8Bytes::from(text))).await.is_err()
                {
                    break;
                }
            }
            _ = sleep_until_opt(awaited.as_ref().map(|a| a.1)) => {
                let Some((n, _, frame)) = awaited.take() else { continue };
                if last_n >= n {
                    continue;
                }
                // The same frame again: a retried id, answered with its event (or, with
                // no id, a state).
                let again = if parse_frame(&frame).is_ok_and(|f| matches!(f, ClientFrame::Action { id: Some(_), .. })) {
                    answer(&s, &id, &mut t, (role, hash), pings.rtt_for_credit_ms(transport.rtt_bound_us()), Instant::now(), &frame).await
                } else {
                    Ok(Answer::None)
                };
                let msg = match again {
                    // The event again, carrying the whole state's update: what came
                    // before it is covered, and the bus's copy, if late, is skipped.
                    Ok(Answer::Text(text)) => {
                        last_n = last_n.max(n);
                        own.retain(|&o| o != n);
                        Message::Text(Utf8Bytes::from(text))
                    }
                    _ => match state_now(&s, &id, &mut t, role, hash).await {
                        Ok((n, state)) => {
                            last_n = n;
                            state
                        }
                        Err(_) => continue,
                    },
                };
                if timed(&mut sink, msg).await.is_err() {
                    break;
                }
            }
            d = sub.next() => {
                match d {
                    None => break,
                    Some(Delivery::Msg(m)) if m.moved => {
                        if matches!(t, Target::Local(_)) {
                            let _ = timed(&mut sink, close(MOVED_CODE, crate::game::MOVED)).await;
                            drain_until_close(&mut stream).await;
                            break;
                        }
                    }
                    Some(Delivery::Msg(m)) if m.n.is_some_and(|n| n > last_n + 1) => {
                        // A gap (a message lost between nodes, NATS restarting, events
                        // the previous owner stored and never published): read the state
                        // again rather than skip an event.
                        let mine = take_own(&mut own, m.n);
                        match state_now(&s, &id, &mut t, role, hash).await {
                            Ok((n, state)) => {
                                last_n = n;
                                if timed(&mut sink, state).await.is_err() {
                                    break;
                                }
                                // The state holds it; the event still answers the sender.
                                if mine
                                    && timed(&mut sink, Message::Text(Utf8Bytes::from(&**m.text_for(role)))).await.is_err()
                                {
                                    break;
                                }
                            }
                            Err(Gone::Moved) => {
                                let _ = timed(&mut sink, close(MOVED_CODE, crate::game::MOVED)).await;
                                drain_until_close(&mut stream).await;
                                break;
                            }
                            Err(Gone::Unavailable(_)) => {}
                        }
                    }
                    Some(Delivery::Msg(m)) => {
                        let mine = take_own(&mut own, m.n);
                        if m.n.is_some_and(|n| n <= last_n) && !mine {
                            continue;
                        }
                        if let Some(n) = m.n {
                            last_n = last_n.max(n);
                        }
                        if timed(&mut sink, Message::Text(Utf8Bytes::from(&**m.text_for(role)))).await.is_err() {
                            break;
                        }
                    }
                    Some(Delivery::Lagged) => {
                        let Ok((n, state)) = state_now(&s, &id, &mut t, role, hash).await else { break };
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

/// The most stored actions of one socket whose events it waits for on the bus.
const OWN_AWAITED: usize = 64;

/// Whether event `n` is one of the socket's own stored actions (forgotten now, with the
/// older ones, whose events went by).
fn take_own(own: &mut VecDeque<u64>, n: Option<u64>) -> bool {
    let Some(n) = n else { return false };
    while own.front().is_some_and(|&o| o < n) {
        own.pop_front();
    }
    if own.front() == Some(&n) {
        own.pop_front();
        return true;
    }
    false
}

/// Sleep until `at`, or forever.
async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

//! One WebSocket: the state on connect, then the game's messages from the bus out and
//! the client's frames in (parsed, rate limited, actions passed to the game's task).
//! The state on connect (and after falling behind) and the answer to a ping are read
//! from the game's published [`crate::game::View`], not asked of its task's queue: a
//! ping reads the view's clock, a state the copy of the game the task makes at most
//! once per commit ([`GameHandle::copy`]), so a crowd of spectators costs the players
//! nothing per spectator.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use flagfall_protocol::{Role, ServerMsg};
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use tokio::sync::oneshot;

use crate::Shared;
use crate::game::{Act, Cmd, GameHandle, Reply};

/// The largest WebSocket message read at all; a longer one closes the socket (1009).
/// Frames between [`flagfall_protocol::MAX_FRAME_BYTES`] and this get an `error`.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// The read buffer a socket starts with (it grows for a longer frame, up to
/// [`MAX_MESSAGE_BYTES`]): a client's frame is a few hundred bytes, and every open
/// socket keeps its buffer (issue 34: 1 KiB, not 4, saves 6 KiB a game of two sockets).
pub const READ_BUFFER_BYTES: usize = 1024;
/// Frames a player (all the sockets of one token together) or a spectator's socket may
/// send per second, sustained.
pub const RATE_PER_SEC: f64 = 20.0;
/// Frames the same may send at once (the bucket's size: a full one refills in
/// `BURST / RATE_PER_SEC` seconds).
pub const BURST: f64 = 40.0;
/// Frames over the limit in a row on one socket before it is closed (1008).
pub const FLOOD_CLOSE_AFTER: u32 = 20;
/// The close code of a socket whose node stopped serving its game (a cluster node that
/// lost the game's lease): 1012, "service restart": reconnect.
pub const MOVED_CODE: u16 = 1012;
/// The close code after a `reconnect` message: the game is served by the node it names;
/// reconnect with `?node=<name>` (docs/cluster.md, "Sockets land on the owner").
pub const REDIRECT_CODE: u16 = 4302;
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
    match s.load_here(id).await {
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
            if h.tx.send(Cmd::Act(Box::new(make()), tx)).await.is_err() {
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

mod answer;
mod rate;
mod session;

pub use rate::PlayerBuckets;
pub(crate) use rate::{Admit, RateLimit, charge_routed_action};

/// A socket whose game another node serves, opened by a client that follows a
/// reconnect: `{"type":"reconnect","node":...}`, then a close with [`REDIRECT_CODE`].
pub async fn redirect(socket: WebSocket, node: String) {
    use futures_util::StreamExt;
    let (mut sink, mut stream) = socket.split();
    let reason = format!("served by node {node}");
    let told = timed(&mut sink, text(&ServerMsg::Reconnect { node })).await;
    if told.is_ok()
        && timed(&mut sink, close(REDIRECT_CODE, &reason))
            .await
            .is_ok()
    {
        // Read to the client's close (or its end), at most a send's time.
        let _ = tokio::time::timeout(WRITE_TIMEOUT, async {
            while let Some(Ok(m)) = stream.next().await {
                if matches!(m, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
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
    s.metrics.sockets.inc();
    let _gauge = Gauge(s.clone());
    session::run(s, id, (role, hash.as_deref()), route, socket, transport).await;
}

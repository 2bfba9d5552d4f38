//! The owner's side of the requests a game's users send it from other nodes
//! ([`crate::seam::Req`] on `flagfall.node.<node>`, answered [`crate::seam::Resp`]).
//!
//! A socket (or `GET /api/games/{id}`, or an evening) on a node that does not serve the
//! game asks the owner through the seam (`crate::cluster::seam`): an action (the
//! client's frame as it came, the hash of its token, the round trip measured on the
//! socket and how long the node held it already), a state, a ping, the state `GET`
//! answers, an evening's round command. Acknowledgement still means committed by the
//! owner: the answer to an action comes after its commit. Core NATS carries no
//! durability claim and needs none: a request lost is answered with an error, and the
//! client sends the action again with the same `id`, which the owner recognises.
//!
//! The owner trusts nothing in a request but that it came over NATS (whose credentials
//! keep strangers off, docs/cluster.md): an action or a state names the hash of the
//! socket's token, never a role, and the owner finds the role as the socket's node did
//! (the game's tokens, then its evening's deputies); how long the asking node held an
//! action is bounded by what one request can take ([`MAX_ROUTED_WAIT`]); anything it
//! cannot read is refused and counted (`flagfall_cluster_refused_requests_total`).
//!
//! At most [`ANSWERING_AT_ONCE`] requests are answered at once; past it a request is
//! answered [`Resp::Busy`] at once (its asker tries again by the seam's
//! [`crate::seam::OwnerRetry`]), never queued.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use flagfall_protocol::{ClientFrame, Role, ServerMsg, parse_frame};
use futures_util::StreamExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio::time::Instant;

use super::throttle::{Throttle, warn_throttled};
use crate::game::{Act, Cmd, GameHandle, Reply};
pub use crate::seam::MAX_ROUTED_WAIT;
use crate::seam::{Req, Resp, RoundCmd};
use crate::{ServerError, Shared};

/// The most requests from other nodes this node answers at once (each waits on its
/// game's task, an action on its commit: a few milliseconds). More than that at once is
/// a node falling behind: the surplus is answered [`Resp::Busy`] at once, and its askers
/// try again shortly, rather than piling up tasks and memory here without bound.
pub const ANSWERING_AT_ONCE: usize = 512;

/// The requests being answered, at most a number at once.
#[derive(Clone)]
pub(crate) struct Gate(Arc<Semaphore>);

impl Gate {
    pub(crate) fn new(at_once: usize) -> Gate {
        Gate(Arc::new(Semaphore::new(at_once)))
    }

    /// A place to answer one request in, until dropped; `None` when all are taken.
    pub(crate) fn enter(&self) -> Option<OwnedSemaphorePermit> {
        self.0.clone().try_acquire_owned().ok()
    }
}

/// An answer as sent: never an empty body (an answer that cannot be encoded, which
/// none of [`Resp`] should be, is answered "unavailable" naming why).
pub(crate) fn encode(resp: &Resp) -> Bytes {
    body_or_unavailable(serde_json::to_vec(resp))
}

/// An encoded answer, or when it failed, "unavailable" naming why.
fn body_or_unavailable(encoded: Result<Vec<u8>, serde_json::Error>) -> Bytes {
    match encoded {
        Ok(body) => body.into(),
        Err(e) => {
            tracing::error!(error = %e, "an answer to another node not encoded");
            let why = Resp::Unavailable(format!("the owner's answer could not be encoded: {e}"));
            serde_json::to_vec(&why)
                .map(Bytes::from)
                .unwrap_or_else(|_| Bytes::from_static(br#"{"unavailable":"answer not encoded"}"#))
        }
    }
}

/// Answer the requests other nodes send this node, until the server stops.
pub async fn serve(shared: Arc<Shared>) -> Result<(), ServerError> {
    let Some(cluster) = shared.cluster.clone() else {
        return Ok(());
    };
    let mut sub = super::subscribe(
        &shared,
        &cluster,
        super::node_subject(&cluster.node),
        "this node's requests",
    )
    .await?;
    let gate = Gate::new(ANSWERING_AT_ONCE);
    let listening = shared.clone();
    listening.spawn(async move {
        while let Some(msg) = sub.next().await {
            let Some(reply) = msg.reply.clone() else {
                // Nobody to answer: not a node's request.
                shared.metrics.cluster.refused_requests.inc();
                static NO_REPLY: Throttle = Throttle::new();
                warn_throttled!(
                    NO_REPLY,
                    "a message without a reply subject on this node's requests: dropped"
                );
                continue;
            };
            let Some(permit) = gate.enter() else {
                tracing::debug!("answering as many requests as it may: one answered busy");
                if let Err(e) = cluster.nats.publish(reply, encode(&Resp::Busy)).await {
                    tracing::warn!(error = %e, "an answer to another node not sent");
                }
                continue;
            };
            let (task, cluster) = (shared.clone(), cluster.clone());
            shared.spawn(async move {
                let shared = task;
                let resp = read_and_answer(&shared, &msg.payload).await;
                shared.metrics.cluster.routed_in.inc();
                if let Err(e) = cluster.nats.publish(reply, encode(&resp)).await {
                    tracing::warn!(error = %e, "an answer to another node not sent");
                }
                drop(permit);
            });
        }
    });
    Ok(())
}

/// The answer to one request as it came over NATS.
async fn read_and_answer(shared: &Arc<Shared>, payload: &[u8]) -> Resp {
    let received = Instant::now();
    match serde_json::from_slice::<Req>(payload) {
        Ok(req) => answer(shared, req, received).await,
        Err(e) => {
            shared.metrics.cluster.refused_requests.inc();
            static UNREADABLE: Throttle = Throttle::new();
            warn_throttled!(UNREADABLE, error = %e, "an unreadable request on this node's subject: refused");
            Resp::Unavailable(format!("unreadable request: {e}"))
        }
    }
}

/// Why a routed request's token gives it no role.
enum Refusal {
    /// Not a hash of one of the game's tokens (nor of a deputy's of its evening).
    NotTheGames,
    /// The evening's deputies could not be read.
    Unavailable(String),
}

/// The role of the socket whose token hashes to `token_hash` on game `game`, found as
/// the socket's node found it (`crate::http`'s `websocket`): a player's or the
/// director's token of the game, or a deputy's of its evening.
async fn role_of(
    shared: &Arc<Shared>,
    game: &str,
    meta: &crate::game::GameMeta,
    token_hash: Option<&str>,
) -> Result<Role, Refusal> {
    let Some(hash) = token_hash else {
        return Ok(Role::Spectator);
    };
    let roles = [Role::White, Role::Black, Role::Director];
    if let Some(i) = meta.token_hashes.iter().position(|x| x == hash) {
        return Ok(roles[i]);
    }
    match crate::evening::deputy_of_game(shared, game, hash).await {
        Ok(true) => Ok(Role::Director),
        Ok(false) => Err(Refusal::NotTheGames),
        Err(e) => Err(Refusal::Unavailable(e.to_string())),
    }
}

/// The owner's answer to one request: from the game's task (an action, a round
/// command) or its published view (a state, a ping, the state object), never a claim of
/// a game this node was not asked as the owner of... unless the lease says it is (a
/// node restarted with its name).
async fn answer(shared: &Arc<Shared>, req: Req, received: Instant) -> Resp {
    let game = req.game().to_string();
    // A node whose leases are in doubt (its validity ran out: the database does not
    // answer its renewals) serves nothing, and says so at once: a claim or a lease read
    // would wait on that database past the asker's timeout (issue 32, item 3).
    if shared.cluster.as_ref().is_some_and(|c| !c.is_valid()) {
        return Resp::NotOwner;
    }
    let mut h = match shared.load_here(&game).await {
        Ok(Some(h)) => h,
        Ok(None) => return Resp::NotFound,
        // This node stops and loads nothing more: the asker looks for the game's owner
        // again (the game's lease, released or run out, lets another node claim it).
        Err(ServerError::Elsewhere { .. } | ServerError::Stopped(_)) => return Resp::NotOwner,
        Err(e) => return Resp::Unavailable(e.to_string()),
    };
    // A socket on another node: the game's messages go on NATS for its relay from now
    // on, before its state is read (every event after that state reaches it).
    if matches!(req, Req::Act { .. } | Req::State { .. } | Req::Ping { .. }) {
        shared.bus.wanted_elsewhere(&game);
    }
    match req {
        Req::Act {
            token_hash,
            frame,
            rtt_ms,
            waited_ms,
            ..
        } => {
            let routed = Routed {
                token_hash,
                frame,
                rtt_ms,
                waited_ms,
                received,
            };
            answer_act(shared, &game, &h, routed).await
        }
        Req::State { token_hash, .. } => answer_state(shared, &game, &mut h, token_hash).await,
        Req::Ping { .. } => Resp::Now(h.view.borrow().now()),
        Req::Get { .. } => match h.copy().await {
            Some(copy) => match serde_json::to_value(copy.state(&h.meta)) {
                Ok(v) => Resp::Get(v),
                Err(e) => Resp::Unavailable(e.to_string()),
            },
            None => Resp::NotOwner,
        },
        Req::Round { cmd, .. } => answer_round(&h, cmd).await,
    }
}

/// A routed action as the asking node sent it, and when it arrived here.
struct Routed {
    token_hash: Option<String>,
    frame: String,
    rtt_ms: Option<u64>,
    waited_ms: u64,
    received: Instant,
}

/// An action from a socket on another node: its role found from its token, charged to
/// the player's frames here, then to the game's task; answered once committed.
async fn answer_act(shared: &Arc<Shared>, game: &str, h: &GameHandle, r: Routed) -> Resp {
    let Ok(ClientFrame::Action {
        id,
        lag_ms,
        action,
        san,
    }) = parse_frame(&r.frame)
    else {
        shared.metrics.cluster.refused_requests.inc();
        return Resp::Unavailable("not an action frame".into());
    };
    let role = match role_of(shared, game, &h.meta, r.token_hash.as_deref()).await {
        Ok(Role::Spectator) | Err(Refusal::NotTheGames) => {
            // A node never sends this (its socket checked the token): forged, or a
            // deputy removed since the socket opened.
            shared.metrics.cluster.refused_requests.inc();
            static FORGED: Throttle = Throttle::new();
            warn_throttled!(FORGED, game = %game, "a routed action without a token of the game: refused");
            let reason = format!("the token is not one of game {game}'s players' or director's");
            let refused = ServerMsg::Refused {
                id,
                reason,
                rule: None,
            };
            return Resp::Direct(refused.to_text());
        }
        Err(Refusal::Unavailable(why)) => return Resp::Unavailable(why),
        Ok(role) => role,
    };
    // The player's frames are limited once in the cluster, here: its sockets on other
    // nodes share the bucket of its sockets on this one.
    if !crate::socket::charge_routed_action(shared, game, role) {
        shared.metrics.frame_errors.inc();
        let message = format!(
            "rate limit: at most {} messages a second from a player's sockets, on every node \
             together; this one was dropped",
            shared.rate.0
        );
        return Resp::Direct(ServerMsg::Error { id, message }.to_text());
    }
    let waited = Duration::from_millis(r.waited_ms).min(MAX_ROUTED_WAIT);
    let received = r.received.checked_sub(waited).unwrap_or(r.received);
    let act = Act {
        role,
        id,
        lag_ms,
        action,
        san,
        rtt_ms: r.rtt_ms,
        received,
    };
    let (tx, rx) = oneshot::channel();
    if h.tx.send(Cmd::Act(Box::new(act), tx)).await.is_err() {
        return Resp::NotOwner;
    }
    match rx.await {
        Ok(Reply::Stored(n)) => Resp::Stored(n),
        Ok(Reply::Direct(t)) => Resp::Direct(t),
        Ok(Reply::Moved) | Err(_) => Resp::NotOwner,
    }
}

/// The `state` message for a socket on another node, its role found from its token.
async fn answer_state(
    shared: &Arc<Shared>,
    game: &str,
    h: &mut GameHandle,
    token_hash: Option<String>,
) -> Resp {
    let role = match role_of(shared, game, &h.meta, token_hash.as_deref()).await {
        Ok(role) => role,
        Err(Refusal::NotTheGames) => {
            shared.metrics.cluster.refused_requests.inc();
            static FORGED: Throttle = Throttle::new();
            warn_throttled!(FORGED, game = %game, "a routed state for a token not the game's: refused");
            return Resp::Unavailable(format!("the token is not one of game {game}'s"));
        }
        Err(Refusal::Unavailable(why)) => return Resp::Unavailable(why),
    };
    match crate::socket::local_state(shared, game, h, role).await {
        Some((n, text)) => Resp::State { n, text },
        None => Resp::NotOwner,
    }
}

/// An evening's round command to its game's task: whether the game had begun.
async fn answer_round(h: &GameHandle, cmd: RoundCmd) -> Resp {
    let (tx, rx) = oneshot::channel();
    if h.tx.send(Cmd::Round(cmd, tx)).await.is_err() {
        return Resp::NotOwner;
    }
    match rx.await {
        Ok(begun) => Resp::Round(begun),
        Err(_) => Resp::NotOwner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At most the gate's number of requests is answered at once: one more is refused
    /// (answered busy), and a place given back is taken again.
    #[test]
    fn the_requests_answered_at_once_are_capped() {
        let gate = Gate::new(2);
        let a = gate.enter().expect("first");
        let b = gate.enter().expect("second");
        assert!(gate.enter().is_none(), "a third at once is refused");
        drop(a);
        let c = gate.enter().expect("a place given back is taken again");
        assert!(gate.enter().is_none());
        drop((b, c));
        assert!(gate.enter().is_some());
        // What the refused one is answered: "busy", which the asker reads.
        assert!(matches!(
            serde_json::from_slice::<Resp>(&encode(&Resp::Busy)),
            Ok(Resp::Busy)
        ));
    }

    /// Every answer is sent as a readable body, never an empty one; one that fails to
    /// encode is answered "unavailable" naming why.
    #[test]
    fn answers_are_never_empty() {
        // A map keyed by something not a string cannot be JSON.
        let unencodable: std::collections::HashMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        let body = body_or_unavailable(serde_json::to_vec(&unencodable));
        match serde_json::from_slice::<Resp>(&body) {
            Ok(Resp::Unavailable(why)) => assert!(why.contains("could not be encoded"), "{why}"),
            other => panic!("{other:?}"),
        }
        for resp in [
            Resp::Stored(3),
            Resp::Get(serde_json::json!({"a": [1, 2]})),
            Resp::Unavailable("the database".into()),
            Resp::NotOwner,
        ] {
            let body = encode(&resp);
            assert!(!body.is_empty());
            assert!(serde_json::from_slice::<Resp>(&body).is_ok(), "{resp:?}");
        }
    }
}

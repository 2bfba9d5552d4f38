//! Requests to a game's owner over NATS request/reply, and the owner's answers.
//!
//! A socket (or `GET /api/games/{id}`) on a node that does not serve the game asks the
//! owner on `flagfall.node.<owner>`: an action (the client's frame as it came, its role,
//! the round trip measured on the socket and how long the node held it already), a state
//! for a role, a ping, or the state `GET` answers. Acknowledgement still means committed
//! by the owner: the answer to an action comes after its commit. Core NATS carries no
//! durability claim and needs none: a request lost is answered with an error, and the
//! client sends the action again with the same `id`, which the owner recognises.
//!
//! The owner trusts nothing in a request but that it came over NATS (whose credentials
//! keep strangers off, docs/cluster.md): an action or a state names the hash of the
//! socket's token, never a role, and the owner finds the role as the socket's node did
//! (the game's tokens, then its evening's deputies); how long the asking node held an
//! action is bounded by what one request can take ([`MAX_ROUTED_WAIT`]); anything it
//! cannot read is refused and counted (`flagfall_cluster_refused_requests_total`).

use std::sync::Arc;
use std::time::Duration;

use flagfall_protocol::{ClientFrame, Role, ServerMsg, parse_frame};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::game::{Act, Cmd, Reply, RoundCmd};
use crate::{ServerError, Shared};

/// The most of an action's `waited_ms` the owner believes: one request's timeout (an
/// asking node that waited longer tried an owner that did not answer, and a game
/// loaded anew never dates an action before its loading anyway). Never earlier than
/// the game's last event either (`crate::game`'s `stamp`).
pub const MAX_ROUTED_WAIT: Duration = super::REQUEST_TIMEOUT;

/// A request to a game's owner.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Req {
    /// A client's action frame (parsed again by the owner).
    Act {
        game: String,
        /// The hash of the socket's token ([`crate::token_hash`]); the owner finds its
        /// role. `None`: a spectator's socket (refused: spectators do not act).
        token_hash: Option<String>,
        frame: String,
        rtt_ms: Option<u64>,
        /// How long the asking node held it before sending (charged to no one, as the
        /// time an action waits in a game's queue), at most [`MAX_ROUTED_WAIT`].
        waited_ms: u64,
    },
    /// The `state` message for the socket of `token_hash` (`None`: a spectator's), and
    /// its event number.
    State {
        game: String,
        token_hash: Option<String>,
    },
    /// The game clock now (a ping's answer).
    Ping { game: String },
    /// The state object `GET /api/games/{id}` answers.
    Get { game: String },
    /// The game's evening holds, releases or aborts it while a change of its round is
    /// stored (`crate::evening::task`): answered [`Resp::Round`].
    Round { game: String, cmd: RoundCmd },
}

impl Req {
    fn game(&self) -> &str {
        match self {
            Req::Act { game, .. }
            | Req::State { game, .. }
            | Req::Ping { game }
            | Req::Get { game }
            | Req::Round { game, .. } => game,
        }
    }
}

/// The owner's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resp {
    /// The action was stored as event `n` (it reaches the sender through the bus).
    Stored(u64),
    /// An answer for the sender only.
    Direct(String),
    /// A `state` message with its role, as of event `n`.
    State { n: u64, text: String },
    /// The game clock.
    Now(u64),
    /// The state object.
    Get(serde_json::Value),
    /// Whether the game had begun when its evening's round command arrived.
    Round(bool),
    /// This node does not serve the game (any more): look its lease up again.
    NotOwner,
    /// No such game.
    NotFound,
    /// The owner could not answer (its database, a damaged game).
    Unavailable(String),
}

/// Why a request got no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error("the game's server {node} does not answer: {why}")]
    NoAnswer { node: String, why: String },
    #[error("the game's server {node} answered something unreadable: {why}")]
    Unreadable { node: String, why: String },
}

/// Ask `node` (the owner of the request's game) and wait for its answer.
pub async fn ask(shared: &Shared, node: &str, req: &Req) -> Result<Resp, RouteError> {
    let Some(cluster) = &shared.cluster else {
        return Err(RouteError::NoAnswer {
            node: node.to_string(),
            why: "not a cluster".into(),
        });
    };
    let body = serde_json::to_vec(req).map_err(|e| RouteError::Unreadable {
        node: node.to_string(),
        why: e.to_string(),
    })?;
    shared.metrics.cluster.routed.inc();
    let answer = cluster
        .nats
        .request(super::node_subject(node), body.into())
        .await
        .map_err(|e| RouteError::NoAnswer {
            node: node.to_string(),
            why: e.to_string(),
        })?;
    serde_json::from_slice(&answer.payload).map_err(|e| RouteError::Unreadable {
        node: node.to_string(),
        why: e.to_string(),
    })
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
    tokio::spawn(async move {
        while let Some(msg) = sub.next().await {
            let Some(reply) = msg.reply.clone() else {
                // Nobody to answer: not a node's request.
                shared.metrics.cluster.refused_requests.inc();
                tracing::warn!(
                    "a message without a reply subject on this node's requests: dropped"
                );
                continue;
            };
            let shared = shared.clone();
            let cluster = cluster.clone();
            tokio::spawn(async move {
                let received = Instant::now();
                let resp = match serde_json::from_slice::<Req>(&msg.payload) {
                    Ok(req) => answer(&shared, req, received).await,
                    Err(e) => {
                        shared.metrics.cluster.refused_requests.inc();
                        tracing::warn!(error = %e, "an unreadable request on this node's subject: refused");
                        Resp::Unavailable(format!("unreadable request: {e}"))
                    }
                };
                shared.metrics.cluster.routed_in.inc();
                let body = serde_json::to_vec(&resp).unwrap_or_default();
                if let Err(e) = cluster.nats.publish(reply, body.into()).await {
                    tracing::warn!(error = %e, "an answer to another node not sent");
                }
            });
        }
    });
    Ok(())
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

/// The owner's answer to one request: from the game's task (an action) or its
/// published view (a state, a ping), never a claim of a game this node was not asked
/// as the owner of... unless the lease says it is (a node restarted with its name).
async fn answer(shared: &Arc<Shared>, req: Req, received: Instant) -> Resp {
    let game = req.game().to_string();
    // A node whose leases are in doubt (its validity ran out: the database does not
    // answer its renewals) serves nothing, and says so at once: a claim or a lease read
    // would wait on that database past the asker's timeout (issue 32, item 3).
    if shared.cluster.as_ref().is_some_and(|c| !c.is_valid()) {
        return Resp::NotOwner;
    }
    let mut h = match shared.handle(&game).await {
        Ok(Some(h)) => h,
        Ok(None) => return Resp::NotFound,
        Err(ServerError::Elsewhere { .. }) => return Resp::NotOwner,
        Err(e) => return Resp::Unavailable(e.to_string()),
    };
    match req {
        Req::Act {
            token_hash,
            frame,
            rtt_ms,
            waited_ms,
            ..
        } => {
            let Ok(ClientFrame::Action {
                id,
                lag_ms,
                action,
                san,
            }) = parse_frame(&frame)
            else {
                shared.metrics.cluster.refused_requests.inc();
                return Resp::Unavailable("not an action frame".into());
            };
            let role = match role_of(shared, &game, &h.meta, token_hash.as_deref()).await {
                Ok(Role::Spectator) | Err(Refusal::NotTheGames) => {
                    // A node never sends this (its socket checked the token): forged, or
                    // a deputy removed since the socket opened.
                    shared.metrics.cluster.refused_requests.inc();
                    tracing::warn!(game = %game, "a routed action without a token of the game: refused");
                    return Resp::Direct(
                        ServerMsg::Refused {
                            id,
                            reason: format!(
                                "the token is not one of game {game}'s players' or director's"
                            ),
                            rule: None,
                        }
                        .to_text(),
                    );
                }
                Err(Refusal::Unavailable(why)) => return Resp::Unavailable(why),
                Ok(role) => role,
            };
            // The player's frames are limited once in the cluster, here: its sockets on
            // other nodes share the bucket of its sockets on this one.
            if !crate::socket::charge_routed_action(shared, &game, role) {
                shared.metrics.frame_errors.inc();
                return Resp::Direct(
                    ServerMsg::Error {
                        id,
                        message: format!(
                            "rate limit: at most {} messages a second from a player's sockets, \
                             on every node together; this one was dropped",
                            shared.rate.0
                        ),
                    }
                    .to_text(),
                );
            }
            let waited = Duration::from_millis(waited_ms).min(MAX_ROUTED_WAIT);
            let received = received.checked_sub(waited).unwrap_or(received);
            let (tx, rx) = oneshot::channel();
            let cmd = Cmd::Act(
                Act {
                    role,
                    id,
                    lag_ms,
                    action,
                    san,
                    rtt_ms,
                    received,
                },
                tx,
            );
            if h.tx.send(cmd).await.is_err() {
                return Resp::NotOwner;
            }
            match rx.await {
                Ok(Reply::Stored(n)) => Resp::Stored(n),
                Ok(Reply::Direct(t)) => Resp::Direct(t),
                Ok(Reply::Moved) | Err(_) => Resp::NotOwner,
            }
        }
        Req::State { token_hash, .. } => {
            let role = match role_of(shared, &game, &h.meta, token_hash.as_deref()).await {
                Ok(role) => role,
                Err(Refusal::NotTheGames) => {
                    shared.metrics.cluster.refused_requests.inc();
                    tracing::warn!(game = %game, "a routed state for a token not the game's: refused");
                    return Resp::Unavailable(format!("the token is not one of game {game}'s"));
                }
                Err(Refusal::Unavailable(why)) => return Resp::Unavailable(why),
            };
            match crate::socket::local_state(shared, &game, &mut h, role).await {
                Some((n, text)) => Resp::State { n, text },
                None => Resp::NotOwner,
            }
        }
        Req::Ping { .. } => Resp::Now(h.view.borrow().now()),
        Req::Get { .. } => match h.copy().await {
            Some(copy) => match serde_json::to_value(copy.state(&h.meta)) {
                Ok(v) => Resp::Get(v),
                Err(e) => Resp::Unavailable(e.to_string()),
            },
            None => Resp::NotOwner,
        },
        Req::Round { cmd, .. } => {
            let (tx, rx) = oneshot::channel();
            if h.tx.send(Cmd::Round(cmd, tx)).await.is_err() {
                return Resp::NotOwner;
            }
            match rx.await {
                Ok(begun) => Resp::Round(begun),
                Err(_) => Resp::NotOwner,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_names_a_token_hash_never_a_role() {
        let ok = r#"{"kind":"act","game":"ab","token_hash":null,"frame":"{}","rtt_ms":null,"waited_ms":0}"#;
        assert!(matches!(
            serde_json::from_str::<Req>(ok),
            Ok(Req::Act {
                token_hash: None,
                ..
            })
        ));
        // The format before issue 30 named the role: refused, not read as a spectator's.
        for bad in [
            r#"{"kind":"act","game":"ab","role":"director","token_hash":null,"frame":"{}","rtt_ms":null,"waited_ms":0}"#,
            r#"{"kind":"act","game":"ab","role":"director","frame":"{}","rtt_ms":null,"waited_ms":0}"#,
            r#"{"kind":"state","game":"ab","role":"director"}"#,
            r#"{"kind":"state","game":"ab","token_hash":null,"extra":1}"#,
            r#"{"kind":"shout","game":"ab"}"#,
            "not json",
        ] {
            assert!(serde_json::from_str::<Req>(bad).is_err(), "{bad}");
        }
    }
}

//! The live evening (`GET /ws/events/{id}`): a read-only socket, a `state` message then
//! a `change` message after every stored change.

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use axum::extract::{Query, State, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use super::request::{AppState, Loaded, admit, refused};
use super::task::{self, EveningHandle};
use super::view::{self, Viewer};
use crate::api::ApiError;
use crate::cpu::Ticket;
use crate::limits::ClientAddress;

#[derive(Deserialize, Default)]
pub(super) struct LiveQuery {
    token: Option<String>,
}

/// The largest message an evening's live socket reads: it is read only, and a client
/// has nothing to send on it but pongs and a close; a longer message closes it (1009).
pub const LIVE_MAX_MESSAGE_BYTES: usize = 1024;

/// `GET /ws/events/{id}[?token=DIRECTOR]`: the live evening. First a `state` message
/// (the event, the latest round, the standings); then a `change` message after every
/// stored change (its log rows, what followed, and the round and standings when they
/// changed). Read only. With the director's token (a browser cannot set a WebSocket's
/// headers) the players' reports and disagreements come too. Treated as a game's socket
/// is (docs/protocol.md "Limits"): a small read buffer and a read limit, every frame
/// counted against the frame rate and the flood close, the server's pings and a
/// dead-socket close, the director's sockets counted against the per-token cap (and
/// every socket against its address's connections).
pub(super) async fn live(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Loaded { id, h }: Loaded,
    Query(q): Query<LiveQuery>,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let mut counted = None;
    let director = match &q.token {
        None => false,
        Some(t) => {
            let hash = crate::token_hash(t);
            match h.now().tokens.get(&hash) {
                Some(w) if w.is_director() => {}
                _ => {
                    return Err(refused(
                        StatusCode::FORBIDDEN,
                        format!("the token is not event {id}'s director's"),
                    ));
                }
            }
            let max = s.limits.sockets_per_token;
            match s.token_sockets.enter(hash, max) {
                Some(c) => counted = Some(c),
                None => {
                    return Err(refused(
                        StatusCode::TOO_MANY_REQUESTS,
                        format!(
                            "{max} sockets are open with this token, the most allowed: close one first"
                        ),
                    ));
                }
            }
            true
        }
    };
    // The first state (with the standings) is made off the async workers, counted
    // against the address as any such request.
    let ticket = admit(&s, addr, None)?;
    Ok(ws
        .max_message_size(LIVE_MAX_MESSAGE_BYTES)
        .max_frame_size(LIVE_MAX_MESSAGE_BYTES)
        .read_buffer_size(crate::socket::READ_BUFFER_BYTES)
        .write_buffer_size(0)
        // On the server's tasks: a stop waits for the socket to close.
        .on_upgrade(move |socket| {
            s.tasks.clone().track_future(async move {
                let _counted = counted;
                run_live(socket, s, h, director, ticket).await;
            })
        }))
}

/// Send `m` on a live socket, failing after [`crate::socket::WRITE_TIMEOUT`] (a reader
/// that stopped reading is dropped).
async fn send_live(socket: &mut WebSocket, m: Message) -> Result<(), ()> {
    match tokio::time::timeout(crate::socket::WRITE_TIMEOUT, socket.send(m)).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

/// The live socket's whole state, made off the async workers (`ticket`: the request's
/// admission, if it is the first).
async fn live_state(
    s: &AppState,
    h: &EveningHandle,
    viewer: Viewer,
    ticket: Option<Ticket>,
) -> Option<String> {
    let snap = h.now();
    s.cpu
        .run(ticket, move || view::live_state(&snap, viewer))
        .await
        .ok()
}

async fn run_live(
    mut socket: WebSocket,
    s: AppState,
    h: EveningHandle,
    director: bool,
    ticket: Ticket,
) {
    use crate::socket::close;
    use axum::extract::ws::close_code;
    let viewer = if director {
        Viewer::Director
    } else {
        Viewer::Public
    };
    let mut shutdown = s.shutdown.clone();
    let mut h = h;
    // Subscribe before reading the state: nothing between the two is missed.
    let mut rx = h.live.subscribe();
    let Some(first) = live_state(&s, &h, viewer, Some(ticket)).await else {
        return;
    };
    if send_live(&mut socket, Message::Text(first.into()))
        .await
        .is_err()
    {
        return;
    }
    let mut pings = crate::lag::Pings::default();
    let mut ping = tokio::time::interval(crate::socket::PING_EVERY);
    let mut limit = crate::socket::RateLimit::own(&s);
    loop {
        tokio::select! {
            msg = rx.recv() => {
                if !forward(&mut socket, msg, &s, &h, viewer).await {
                    return;
                }
            }
            // The task was unloaded in the instant before this socket subscribed (an
            // evening with a socket is not unloaded): follow the evening loaded again.
            _ = h.closed() => {
                let Ok(Some(again)) = task::handle(&s, &h.now().id).await else { return };
                h = again;
                rx = h.live.subscribe();
                let Some(state) = live_state(&s, &h, viewer, None).await else { return };
                if send_live(&mut socket, Message::Text(state.into())).await.is_err() {
                    return;
                }
            }
            incoming = socket.recv() => {
                if !client_frame(&mut socket, incoming, &mut pings, &mut limit, &s).await {
                    return;
                }
            }
            _ = ping.tick() => {
                if pings.unanswered() >= crate::socket::PINGS_UNANSWERED_CLOSE {
                    tracing::debug!(evening = %h.now().id, "no pong to the live socket's pings: closing");
                    return;
                }
                let nonce = pings.ping();
                if send_live(&mut socket, Message::Ping(nonce.to_vec().into())).await.is_err() {
                    return;
                }
            }
            _ = async { shutdown.wait_for(|d| *d).await.is_ok() } => {
                let _ = send_live(&mut socket, close(close_code::AWAY, "server going away")).await;
                return;
            }
        }
    }
}

/// A frame the live socket's client sent, `incoming`: whether the socket stays open. The
/// answer to this socket's own ping, once, is free; every other frame counts against the
/// rate and the flood close, and is otherwise ignored. A read error closes with its code.
async fn client_frame(
    socket: &mut WebSocket,
    incoming: Option<Result<Message, axum::Error>>,
    pings: &mut crate::lag::Pings,
    limit: &mut crate::socket::RateLimit,
    s: &AppState,
) -> bool {
    use crate::socket::{Admit, close};
    use axum::extract::ws::close_code;
    let frame = match incoming {
        None | Some(Ok(Message::Close(_))) => return false,
        Some(Err(e)) => {
            let mut reason = format!("closing: {e}");
            while reason.len() > 120 {
                reason.pop();
            }
            let _ = send_live(socket, close(crate::limits::close_code_for(e), &reason)).await;
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            return false;
        }
        Some(Ok(f)) => f,
    };
    if let Message::Pong(p) = &frame
        && pings.pong(p.as_ref())
    {
        return true;
    }
    match limit.take() {
        Admit::Yes | Admit::Dropped => true,
        Admit::Flooding => {
            s.metrics.frame_errors.inc();
            let _ = send_live(
                socket,
                close(close_code::POLICY, "flooding: too many messages a second"),
            )
            .await;
            // The closing handshake: what the client still sends is read (and dropped)
            // until its close, for a second at most; closing at once would reset the
            // connection over the unread frames, and the client could lose the close
            // frame to the reset.
            let until = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
            while let Ok(Some(Ok(m))) = tokio::time::timeout_at(until, socket.recv()).await {
                if matches!(m, Message::Close(_)) {
                    break;
                }
            }
            false
        }
    }
}

/// A message of the evening's broadcast, `msg`, sent on to the live socket in `viewer`'s
/// version; too far behind, the whole state again. Whether the socket stays open.
async fn forward(
    socket: &mut WebSocket,
    msg: Result<Arc<task::Live>, tokio::sync::broadcast::error::RecvError>,
    s: &AppState,
    h: &EveningHandle,
    viewer: Viewer,
) -> bool {
    match msg {
        Ok(live) => {
            let text = if viewer == Viewer::Director {
                Some(&live.director)
            } else {
                live.public.as_ref()
            };
            match text {
                Some(text) => send_live(socket, Message::Text(text.to_string().into()))
                    .await
                    .is_ok(),
                None => true,
            }
        }
        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
            // Too far behind: the whole state again.
            let Some(again) = live_state(s, h, viewer, None).await else {
                return false;
            };
            send_live(socket, Message::Text(again.into())).await.is_ok()
        }
        Err(_) => false,
    }
}

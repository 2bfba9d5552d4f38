//! The answer to one admitted text frame: an error for a frame that does not parse, a
//! pong for a ping, and an action passed to the game's task (here or on its owner).

use std::sync::Arc;
use std::time::Duration;

use flagfall_protocol::{ClientFrame, Role, ServerMsg, parse_frame};
use tokio::time::Instant;

use super::{Gone, Target, act, now};
use crate::Shared;
use crate::game::{Act, Reply};

/// What a frame is answered with on its socket.
pub(super) enum Answer {
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
pub(super) const STORED_EVENT_WAIT: Duration = Duration::from_millis(1500);

/// The answer to one admitted text frame, if it has one of its own (a stored action's
/// answer is its event, on the bus); [`Gone::Moved`] when this node stopped serving the
/// game the socket is bound to.
pub(super) async fn answer(
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

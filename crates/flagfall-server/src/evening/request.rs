//! What the evening's routes share (below every route file): the evening a route names
//! and who its Bearer token is ([`Loaded`], [`Member`], [`Director`]: no token is 401, a
//! token that is not the director's, or a deputy's, 403), a refusal as an answer
//! ([`refused`], [`event_error`]), the request's admission ([`admit`]) and a change's
//! answer ([`answer`]).

use std::sync::Arc;

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use flagfall_events::change::Origin;
use flagfall_events::event::EventError;
use flagfall_protocol::evening as ev;
use serde::Deserialize;
use serde_json::Value;

use super::model::{Snap, Who};
use super::task::{self, Asker, Done, EveningHandle, Refusal};
use super::view::Viewer;
use crate::Shared;
use crate::api::ApiError;
use crate::cpu::Ticket;

pub(super) type AppState = Arc<Shared>;

pub(super) fn refused(status: StatusCode, message: impl Into<String>) -> ApiError {
    ApiError::Refused(status, message.into())
}

pub(super) fn event_error(e: EventError) -> ApiError {
    let status = match e {
        EventError::BadValue { .. }
        | EventError::BadName(_)
        | EventError::Tiebreak(_)
        | EventError::ResultCount { .. }
        | EventError::BadManualPairing { .. } => StatusCode::BAD_REQUEST,
        EventError::UnknownPlayer(_)
        | EventError::UnknownRound { .. }
        | EventError::UnknownBoard { .. } => StatusCode::NOT_FOUND,
        EventError::Inconsistent(_) => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::CONFLICT,
    };
    refused(status, e.to_string())
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        match r {
            Refusal::Event(e) => event_error(e),
            Refusal::Conflict(m) | Refusal::Raced(m) => refused(StatusCode::CONFLICT, m),
            Refusal::Failed(e) => ApiError::Failed(e),
            Refusal::Later(l) => ApiError::Later(l),
            Refusal::TooBig(m) => refused(StatusCode::PAYLOAD_TOO_LARGE, m),
        }
    }
}

/// Admit a request that makes the server work (pairing, standings, exports, imports:
/// [`crate::cpu`]), from `addr`, on evening `id` if it is one's.
pub(super) fn admit(
    s: &AppState,
    addr: Option<std::net::IpAddr>,
    id: Option<&str>,
) -> Result<Ticket, ApiError> {
    s.cpu
        .admit(addr.map(crate::cpu::Client::Address), id)
        .map_err(ApiError::Later)
}

/// As [`admit`], a request by `viewer`: a player's request (a read, an action, a result)
/// counts against that player's
/// share, not her address's (a club's phones share one address; `cpu::Client`).
pub(super) fn admit_reader(
    s: &AppState,
    addr: Option<std::net::IpAddr>,
    id: &str,
    viewer: &Viewer,
) -> Result<Ticket, ApiError> {
    let client = match viewer {
        Viewer::Player(number) => Some(crate::cpu::Client::Player {
            evening: id.to_string(),
            number: *number,
        }),
        _ => addr.map(crate::cpu::Client::Address),
    };
    s.cpu.admit(client, Some(id)).map_err(ApiError::Later)
}

/// Run `f` off the async workers, holding `ticket` until it is done.
pub(super) async fn job<T: Send + 'static>(
    s: &AppState,
    ticket: Ticket,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    s.cpu.run(Some(ticket), f).await.map_err(ApiError::Failed)
}

/// How a request counts against the evening's limits: its admission, and the address
/// of a director (or deputy) asking for a change (what the server games it starts count
/// against).
pub(super) fn asker(w: &Who, addr: Option<std::net::IpAddr>, ticket: Ticket) -> Asker {
    Asker {
        director_address: addr.filter(|_| w.is_director()),
        ticket: Some(ticket),
    }
}

pub(super) async fn evening(s: &AppState, id: &str) -> Result<EveningHandle, ApiError> {
    match task::handle(s, id).await {
        Ok(Some(h)) => Ok(h),
        Ok(None) => Err(refused(StatusCode::NOT_FOUND, format!("no event {id:?}"))),
        Err(e) => Err(ApiError::Failed(e)),
    }
}

/// The evening a route names by its `{id}`, loaded: 404 when there is none. An axum
/// extractor, so that a handler names what it needs instead of loading it.
pub(super) struct Loaded {
    pub(super) id: String,
    pub(super) h: EveningHandle,
}

impl FromRequestParts<AppState> for Loaded {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, s: &AppState) -> Result<Self, ApiError> {
        let params = RawPathParams::from_request_parts(parts, s)
            .await
            .map_err(|e| refused(StatusCode::BAD_REQUEST, e.body_text()))?;
        // Every evening route has `{id}`: a route without one is this file's mistake.
        let id = params
            .iter()
            .find(|(k, _)| *k == "id")
            .map(|(_, v)| v.to_string())
            .ok_or_else(|| refused(StatusCode::NOT_FOUND, "no event named in the path"))?;
        let h = evening(s, &id).await?;
        Ok(Loaded { id, h })
    }
}

/// The evening and who the request's Bearer token is on it ([`who`]: 401 without one,
/// 403 when it is not one of the evening's), as of `snap`.
pub(super) struct Member {
    pub(super) id: String,
    pub(super) h: EveningHandle,
    pub(super) snap: Arc<Snap>,
    pub(super) who: Who,
}

impl FromRequestParts<AppState> for Member {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, s: &AppState) -> Result<Self, ApiError> {
        let Loaded { id, h } = Loaded::from_request_parts(parts, s).await?;
        let snap = h.now();
        let who = who(&snap, &parts.headers)?;
        Ok(Member { id, h, snap, who })
    }
}

/// The evening and its director's (or a deputy's) token ([`director`]: 403 for a
/// player's), with the token as sent (a player's link is derived from it).
pub(super) struct Director {
    pub(super) id: String,
    pub(super) h: EveningHandle,
    pub(super) snap: Arc<Snap>,
    pub(super) who: Who,
    pub(super) token: String,
}

impl FromRequestParts<AppState> for Director {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, s: &AppState) -> Result<Self, ApiError> {
        let Loaded { id, h } = Loaded::from_request_parts(parts, s).await?;
        let snap = h.now();
        let who = director(&snap, &parts.headers)?;
        let token = bearer(&parts.headers).unwrap_or_default().to_string();
        Ok(Director {
            id,
            h,
            snap,
            who,
            token,
        })
    }
}

/// Who the request's Bearer token is: 401 without one, 403 when it is not one of the
/// evening's.
pub(super) fn who(snap: &Snap, headers: &HeaderMap) -> Result<Who, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(refused(
            StatusCode::UNAUTHORIZED,
            "this needs `Authorization: Bearer TOKEN` (the director's token, or for a player's own actions the player's)",
        ));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            refused(
                StatusCode::UNAUTHORIZED,
                "the Authorization header must be `Bearer TOKEN`",
            )
        })?;
    let w = snap
        .tokens
        .get(&crate::token_hash(token))
        .cloned()
        .ok_or_else(|| {
            refused(
                StatusCode::FORBIDDEN,
                format!("the token is not one of event {}'s", snap.id),
            )
        })?;
    // A player's link is tied to their name: renamed or removed, it opens nothing.
    if let Who::Player(name) = &w
        && snap.number_of(name).is_none()
    {
        return Err(refused(
            StatusCode::FORBIDDEN,
            format!(
                "this link's player is no longer in event {} under that name (renamed or                  removed): ask the director for your link",
                snap.id
            ),
        ));
    }
    Ok(w)
}

/// The Bearer token as sent (already checked by [`who`]).
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// Who reads a public route: the public without a token; a token that is not the
/// evening's is 403 (it was meant to show more).
pub(super) fn reader(snap: &Snap, headers: &HeaderMap) -> Result<Viewer, ApiError> {
    if headers.get(header::AUTHORIZATION).is_none() {
        return Ok(Viewer::Public);
    }
    let w = who(snap, headers)?;
    Ok(Viewer::of(snap, Some(&w)))
}

pub(super) fn director(snap: &Snap, headers: &HeaderMap) -> Result<Who, ApiError> {
    let w = who(snap, headers)?;
    if !w.is_director() {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "only the event's director (or a deputy) may do this; the token is a player's",
        ));
    }
    Ok(w)
}

pub(super) fn origin(w: &Who) -> Origin {
    Origin::new(w.by(), crate::now_unix_ms())
}

pub(super) fn parse<'a, T: Deserialize<'a>>(body: &'a [u8], what: &str) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| refused(StatusCode::BAD_REQUEST, format!("{what}: {e}")))
}

pub(super) fn answer(h: &EveningHandle, done: &Done) -> Response {
    let snap = h.now();
    axum::Json(ev::ChangeAnswer {
        effects: effects(&done.effects),
        seq: snap.seq,
    })
    .into_response()
}

/// The effects of a change as the wire carries them.
pub(super) fn effects(effects: &[flagfall_events::change::Effect]) -> ev::Effects {
    effects
        .iter()
        .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
        .collect()
}

/// A log entry as the wire carries it.
pub(super) fn log_entry(e: &flagfall_events::change::LogEntry) -> ev::LogEntryView {
    ev::LogEntryView {
        seq: e.seq,
        at: e.at,
        by: e.by.clone(),
        change: serde_json::to_value(&e.change).unwrap_or(Value::Null),
        before: e
            .before
            .iter()
            .map(|b| serde_json::to_value(b).unwrap_or(Value::Null))
            .collect(),
        effects: effects(&e.effects),
    }
}

//! The HTTP answers every route module shares (below the router, `crate::http`): a
//! refusal or a server failure as `{"error": ...}` ([`ApiError`], [`error`],
//! [`server_error`]), and a game looked up for a route ([`handle_or_404`],
//! [`route_or_404`], [`state_of`]).

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::Shared;
use crate::game::GameHandle;

type AppState = Arc<Shared>;

pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, axum::Json(json!({ "error": message.into() }))).into_response()
}

/// A failure of the server's own (the database, a damaged stored game, a stopped
/// task): logged in full, answered with the status that fits and a short message
/// saying what happened, without the internals (which row, which error).
pub(crate) fn server_error(e: crate::ServerError) -> Response {
    tracing::error!(error = %e, "request failed");
    let (status, message) = public(&e);
    let mut r = error(status, message);
    if status == StatusCode::SERVICE_UNAVAILABLE {
        r.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from_static("1"),
        );
    }
    r
}

/// What a client is told of a server failure: its status and a sentence.
pub(crate) fn public(e: &crate::ServerError) -> (StatusCode, String) {
    use crate::ServerError as E;
    match e {
        E::Corrupt(_)
        | E::Store(
            flagfall_store::StoreError::BadValue { .. } | flagfall_store::StoreError::Corrupt(_),
        ) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error: stored data is damaged (the server's log names it); nothing \
             was changed"
                .into(),
        ),
        E::Serialise { what, .. } => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("internal error: the server could not write {what}; nothing was stored"),
        ),
        E::Store(s) if s.is_unavailable() => (
            StatusCode::SERVICE_UNAVAILABLE,
            "the database is not answering (restarting, or out of reach); try again in a \
             moment"
                .into(),
        ),
        E::Stopped(what) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{what} stopped (reloading, or the server is stopping); try again"),
        ),
        E::Bug { what, .. } => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("internal error: {what} failed (a bug, logged); nothing was changed"),
        ),
        _ => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error: the server could not answer; try again later".into(),
        ),
    }
}

/// A request that failed: refused with a status and what is wrong, or a server failure
/// (500, logged). Answers `{"error": ...}`.
#[derive(Debug)]
pub enum ApiError {
    Refused(StatusCode, String),
    Failed(crate::ServerError),
    /// Over a limit that lifts with time (`429`, `503`), with its `Retry-After`.
    Later(crate::limits::Later),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Refused(status, message) => error(status, message),
            ApiError::Failed(e) => server_error(e),
            ApiError::Later(l) => l.response(),
        }
    }
}

impl From<crate::ServerError> for ApiError {
    fn from(e: crate::ServerError) -> ApiError {
        ApiError::Failed(e)
    }
}

impl From<flagfall_protocol::SetupError> for ApiError {
    fn from(e: flagfall_protocol::SetupError) -> ApiError {
        ApiError::Refused(StatusCode::BAD_REQUEST, e.to_string())
    }
}

impl From<crate::CreateError> for ApiError {
    fn from(e: crate::CreateError) -> ApiError {
        match e {
            crate::CreateError::Setup(e) => e.into(),
            crate::CreateError::Failed(e) => e.into(),
        }
    }
}

pub(crate) fn not_found(id: &str) -> Response {
    error(StatusCode::NOT_FOUND, format!("no game {id:?}"))
}

pub(crate) async fn handle_or_404(s: &AppState, id: &str) -> Result<GameHandle, Response> {
    match s.load_here(id).await {
        Ok(Some(h)) => Ok(h),
        Ok(None) => Err(not_found(id)),
        Err(crate::ServerError::Elsewhere { node }) => Err(error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "game {id} is served by node {node:?} of the cluster: try again there or in a moment"
            ),
        )),
        Err(e) => Err(server_error(e)),
    }
}

/// Where game `id` is served (this node or another of the cluster), or the answer.
pub(crate) async fn route_or_404(s: &AppState, id: &str) -> Result<crate::Route, Response> {
    match s.route(id).await {
        Ok(Some(r)) => Ok(r),
        Ok(None) => Err(not_found(id)),
        Err(crate::ServerError::Elsewhere { .. }) => Err(error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("game {id} is changing servers: try again in a moment"),
        )),
        Err(e) => Err(server_error(e)),
    }
}

/// A game's state, from the copy of the game as its task last stored it (loading the
/// game if it is not loaded): no place in the task's queue of actions, and one copy per
/// commit however many ask.
pub async fn state_of(s: &AppState, id: &str) -> Result<flagfall_protocol::State, Response> {
    for _ in 0..2 {
        let h = handle_or_404(s, id).await?;
        // `None`: the task stopped (the game was unloaded) meanwhile; load it again.
        if let Some(copy) = h.copy().await {
            return Ok(copy.state(&h.meta));
        }
    }
    Err(error(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("game {id} is not available now, try again"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database out of reach: `503` with the seconds to wait; a bug: `500` without.
    #[test]
    fn a_database_out_of_reach_is_answered_503_with_retry_after() {
        let away = server_error(crate::ServerError::Store(
            flagfall_store::StoreError::Query {
                doing: "reading a game",
                source: sqlx::Error::PoolTimedOut,
            },
        ));
        assert_eq!(away.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            away.headers().get(axum::http::header::RETRY_AFTER),
            Some(&axum::http::HeaderValue::from_static("1"))
        );
        let bug = server_error(crate::ServerError::Bug {
            what: "a job",
            message: "panicked".into(),
        });
        assert_eq!(bug.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(bug.headers().get(axum::http::header::RETRY_AFTER).is_none());
    }
}

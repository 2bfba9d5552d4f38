//! The evening's routes (docs/protocol.md, "Evenings"), the router only: the handlers
//! are in [`super::setup`], [`super::players`], [`super::results`], [`super::rounds`],
//! [`super::exports`] and [`super::live`]. Director routes take `Authorization: Bearer
//! TOKEN` ([`super::request`]). A refused change answers what is wrong and leaves the
//! evening as it was.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post, put};

use super::request::AppState;
use super::{exports, live, players, results, rounds, setup};
use crate::Shared;

/// The largest body an evening's route takes (a CSV or TRF of players, an event file).
pub const MAX_EVENING_BODY: usize = 4 * 1024 * 1024;

/// The routes, with their own body limit (uploads are larger than a game's bodies).
/// Creating or importing an evening counts against the per-address limit of evenings.
pub fn routes(shared: &Shared) -> Router<AppState> {
    let limited = crate::limits::limited_by(shared.evening_creations.clone());
    Router::new()
        .route("/api/events", limited(post(setup::create)))
        .route("/api/events/import", limited(post(setup::import_event)))
        .route("/api/events/{id}", get(setup::get_event))
        .route("/api/events/{id}/deputy", post(setup::deputy))
        .route("/api/events/{id}/players", post(players::add_players))
        .route("/api/events/{id}/links", get(players::get_links))
        .route("/api/events/{id}/ratings", post(players::ratings))
        .route("/api/events/{id}/players/{n}", put(players::edit_player))
        .route(
            "/api/events/{id}/players/{n}/{action}",
            post(players::player_action),
        )
        .route("/api/events/{id}/forbidden", post(setup::forbid))
        .route("/api/events/{id}/report", put(setup::set_report))
        .route("/api/events/{id}/rounds", post(results::pair_next))
        .route(
            "/api/events/{id}/rounds/{r}",
            get(results::get_round)
                .delete(results::delete_round)
                .put(results::override_round),
        )
        .route(
            "/api/events/{id}/rounds/{r}/boards/{b}/result",
            post(results::set_result),
        )
        .route(
            "/api/events/{id}/rounds/{r}/pair-again",
            post(rounds::pair_again),
        )
        .route("/api/events/{id}/standings", get(results::get_standings))
        .route("/api/events/{id}/crosstable", get(results::get_crosstable))
        .route(
            "/api/events/{id}/rating-changes",
            get(results::get_rating_changes),
        )
        .route("/api/events/{id}/log", get(results::get_log))
        .route("/api/events/{id}/me", get(results::get_me))
        .route("/api/events/{id}/export/{kind}", get(exports::export_as))
        .route("/ws/events/{id}", get(live::live))
        .layer(DefaultBodyLimit::max(MAX_EVENING_BODY))
        .layer(axum::middleware::map_response(
            crate::limits::security_headers,
        ))
}

//! HTTP routes (docs/protocol.md) and the embedded web UI.

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Path, Query, State, WebSocketUpgrade};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use flagfall_protocol::{CreateGame, MAX_BODY_BYTES, Role};
use flagfall_store::Status;
use serde::Deserialize;
use serde_json::json;

use crate::Shared;
use crate::api::{ApiError, error, not_found, route_or_404, server_error, state_of};

type AppState = Arc<Shared>;

/// The web UI, embedded at build time from `web/dist`.
#[derive(rust_embed::Embed)]
#[folder = "$CARGO_MANIFEST_DIR/../../web/dist"]
struct WebDist;

pub fn router(shared: Arc<Shared>) -> Router {
    let limited = crate::limits::limited_by(shared.creations.clone());
    Router::new()
        .route(
            "/api/games",
            get(list_games).merge(limited(axum::routing::post(create_game))),
        )
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/script", get(get_script))
        .route("/api/games/{id}/pgn", get(get_pgn))
        .route(
            "/api/games/{id}/rematch",
            get(crate::rematch::get_rematch)
                .merge(limited(axum::routing::post(crate::rematch::post_rematch))),
        )
        .route("/ws/games/{id}", get(websocket))
        .route(
            "/api/practice",
            limited(axum::routing::post(create_practice)),
        )
        .route(
            "/api/challenges",
            get(crate::challenge::list_challenges).merge(limited(axum::routing::post(
                crate::challenge::create_challenge,
            ))),
        )
        .route(
            "/api/challenges/{id}",
            get(crate::challenge::get_challenge).delete(crate::challenge::cancel_challenge),
        )
        .route(
            "/api/challenges/{id}/accept",
            limited(axum::routing::post(crate::challenge::accept_challenge)),
        )
        .route("/api/rules/{id}", get(get_ruleset))
        .route("/api/rulesets", get(list_rulesets))
        .route("/api/explain", get(explain_rule))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .fallback(get(static_file))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(crate::limits::refuse_long_bodies))
        .layer(axum::middleware::map_response(
            crate::limits::security_headers,
        ))
        // Blitz evenings: their own body limit (uploads), added after the layers above.
        .merge(crate::evening::http::routes(&shared))
        .with_state(shared)
}

async fn create_game(State(s): State<AppState>, body: Bytes) -> Result<Response, ApiError> {
    let body = CreateGame::from_json(&body)?;
    let created = s.create(&body).await?;
    Ok((StatusCode::CREATED, axum::Json(created)).into_response())
}

/// `POST /api/practice`: a game against the computer (`crate::practice`), which plays
/// one colour as a client of the game's task. Answers like `POST /api/games`.
async fn create_practice(State(s): State<AppState>, body: Bytes) -> Response {
    if body.len() > MAX_BODY_BYTES {
        return error(StatusCode::PAYLOAD_TOO_LARGE, "body too large");
    }
    let body: crate::practice::PracticeBody = match serde_json::from_slice(&body) {
        Ok(b) => b,
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("practice body: {e}")),
    };
    if let Err(e) = body.computer.validate() {
        return error(StatusCode::BAD_REQUEST, e);
    }
    // Each computer runs an engine process when the server has an engine: at most
    // `limits.engines` of them (issue 19, item 12).
    let cap = s.limits.engines;
    if s.engine.is_some() && s.computers_running() >= cap {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the practice computer is busy: {cap} games against it are running, the most \
                 this server allows; try again in a few minutes"
            ),
        );
    }
    let stored = match serde_json::to_string(&body.computer) {
        Ok(json) => json,
        Err(e) => {
            return server_error(crate::ServerError::serialise(
                "a practice game's computer settings",
            )(e));
        }
    };
    match s.create_with(&body.setup, Some(stored)).await {
        Ok(created) => {
            crate::practice::spawn(
                s.clone(),
                created.id.clone(),
                body.computer,
                s.engine.clone(),
            );
            (StatusCode::CREATED, axum::Json(created)).into_response()
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `GET /api/rules/{id}`: a built-in ruleset as data (`flagfall rules show --json`), so
/// the director console can show a penalty ladder's next step before applying it.
/// `GET /api/rulesets`: the built-in rulesets the lobby offers, each with how its time
/// controls are written and usual ones, and the quick time-control buttons.
async fn list_rulesets() -> Response {
    axum::Json(flagfall_protocol::rulesets()).into_response()
}

async fn get_ruleset(Path(id): Path<String>) -> Response {
    match flagfall_core::ruleset::Ruleset::builtin(&id) {
        Ok(r) => axum::Json(r).into_response(),
        Err(e) => error(StatusCode::NOT_FOUND, e.to_string()),
    }
}

#[derive(Deserialize)]
struct ExplainQuery {
    rule: String,
}

/// `GET /api/explain?rule=uscf-2020%207d`: `flagfall rules explain` for one citation as
/// the rulings write it (`<ruleset> <rule>`, or `laws <name>`).
async fn explain_rule(Query(q): Query<ExplainQuery>) -> Response {
    let text = q.rule.trim();
    let source = text.split_whitespace().next().unwrap_or("");
    match flagfall_core::explain::lookup(source, text) {
        Some(e) => axum::Json(e).into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            format!("no explanation of rule {text:?}"),
        ),
    }
}

/// `GET /api/games/{id}`: the state object, and `"node"`: the cluster node serving the
/// game (null on a single node).
async fn get_game(State(s): State<AppState>, Path(id): Path<String>) -> Response {
    let answer = game_state(&s, &id).await;
    if !answer.status().is_success() {
        return answer;
    }
    // The evening the game plays for, if any (the store's one look-up; the evening's
    // task, loaded or loaded now, says its round and board).
    let evening = match crate::evening::evening_of_game(&s, &id).await {
        Ok(e) => e,
        Err(e) => return server_error(e),
    };
    let Some(evening) = evening else {
        return answer;
    };
    let bytes = match axum::body::to_bytes(answer.into_body(), 4 << 20).await {
        Ok(b) => b,
        Err(e) => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("state not read: {e}"),
            );
        }
    };
    let mut v: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("state not read: {e}"),
            );
        }
    };
    if let (Some(o), Ok(e)) = (v.as_object_mut(), serde_json::to_value(evening)) {
        o.insert("evening".into(), e);
    }
    axum::Json(v).into_response()
}

/// The state object of game `id` and the node serving it (`GET /api/games/{id}` without
/// its evening).
async fn game_state(s: &AppState, id: &str) -> Response {
    let id = id.to_string();
    let Some(me) = s.seam.node().map(str::to_string) else {
        return match state_of(s, &id).await {
            Ok(state) => with_node(serde_json::to_value(state), None),
            Err(r) => r,
        };
    };
    // The game's owner asked, and looked up again while it does not answer or moves,
    // by the seam's one policy (`crate::seam::OwnerRetry`).
    let mut retry = s.seam.retry().start();
    loop {
        match s.route_within(&id, &mut retry).await {
            Ok(Some(crate::Route::Local(_))) => {
                return match state_of(s, &id).await {
                    Ok(state) => with_node(serde_json::to_value(state), Some(&me)),
                    Err(r) => r,
                };
            }
            Ok(Some(crate::Route::Remote { node, .. })) => {
                let req = crate::seam::Req::Get { game: id.clone() };
                match s.seam.ask(s, &node, &req).await {
                    Ok(crate::seam::Resp::Get(v)) => return with_node(Ok(v), Some(&node)),
                    Ok(crate::seam::Resp::NotFound) => return not_found(&id),
                    // Moved, busy, or its owner died: look again (a takeover takes a lease).
                    _ => {}
                }
            }
            Ok(None) => return not_found(&id),
            Err(crate::ServerError::Elsewhere { .. }) => break,
            Err(e) => return server_error(e),
        }
        if !retry.again().await {
            break;
        }
    }
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("game {id} is changing servers: try again in a moment"),
    )
}

/// The state object with `"node"` added.
fn with_node(state: Result<serde_json::Value, serde_json::Error>, node: Option<&str>) -> Response {
    match state {
        Ok(mut v) => {
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "node".into(),
                    node.map_or(serde_json::Value::Null, |n| n.into()),
                );
            }
            axum::Json(v).into_response()
        }
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("state not written: {e}"),
        ),
    }
}

/// The stored script: the setup line and every stored event, one JSON object a line.
async fn script_text(s: &AppState, id: &str) -> Result<String, Response> {
    let row = match s.store.game(id).await {
        Ok(Some(r)) => r,
        Ok(None) => return Err(not_found(id)),
        Err(e) => return Err(server_error(e.into())),
    };
    let events = s
        .store
        .events(id)
        .await
        .map_err(|e| server_error(e.into()))?;
    let mut text = row.game.setup;
    text.push('\n');
    for e in events {
        text.push_str(&e.json);
        text.push('\n');
    }
    Ok(text)
}

async fn get_script(State(s): State<AppState>, Path(id): Path<String>) -> Response {
    match script_text(&s, &id).await {
        Ok(text) => ([(header::CONTENT_TYPE, "application/jsonl")], text).into_response(),
        Err(r) => r,
    }
}

async fn get_pgn(State(s): State<AppState>, Path(id): Path<String>) -> Response {
    let text = match script_text(&s, &id).await {
        Ok(t) => t,
        Err(r) => return r,
    };
    match flagfall_game::script::parse(&text) {
        Ok(script) => (
            [(header::CONTENT_TYPE, "application/x-chess-pgn")],
            flagfall_game::pgn::to_pgn(&script),
        )
            .into_response(),
        Err(e) => server_error(crate::ServerError::Corrupt(format!("game {id}: {e}"))),
    }
}

#[derive(Deserialize)]
struct ListQuery {
    status: Option<String>,
}

async fn list_games(State(s): State<AppState>, Query(q): Query<ListQuery>) -> Response {
    let status = match q.status.as_deref() {
        None => None,
        Some("live") => Some(Status::Live),
        Some("finished") => Some(Status::Finished),
        Some("aborted") => Some(Status::Aborted),
        Some(other) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("status {other:?}: expected \"live\", \"finished\" or \"aborted\""),
            );
        }
    };
    let games = match s.store.list(status, 1000).await {
        Ok(games) => games,
        Err(e) => return server_error(e.into()),
    };
    let listed: Vec<_> = games
        .iter()
        .filter_map(|g| {
            // The setup's names, ruleset and time control (docs/protocol.md); a setup
            // that does not read is the store's damage: logged and left out, never a
            // line of nulls, and one damaged game does not take the list down.
            let setup: serde_json::Value = match serde_json::from_str(&g.setup) {
                Ok(v) => v,
                Err(e) => {
                    tracing::warn!(game = %g.id, error = %e, "a game with a damaged setup left out of the list");
                    return None;
                }
            };
            let field = |k: &str| setup.get(k).cloned().unwrap_or(serde_json::Value::Null);
            Some(
                json!({"id": g.id, "mode": g.mode, "status": g.status.as_str(),
                      "result": g.result, "created_ms": g.created_ms,
                      "white": field("white"), "black": field("black"),
                      "rules": field("rules"), "time_control": field("time_control")}),
            )
        })
        .collect();
    axum::Json(listed).into_response()
}

#[derive(Deserialize)]
struct WsQuery {
    token: Option<String>,
    /// `?node=` (empty): the client follows a `reconnect`; `?node=NAME`: it was told
    /// to reconnect to NAME already (never told again); absent: a client that does not
    /// know `reconnect` (always served where it lands). docs/cluster.md.
    node: Option<String>,
}

async fn websocket(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<WsQuery>,
    transport: Option<axum::Extension<crate::limits::Transport>>,
    ws: WebSocketUpgrade,
) -> Response {
    let transport = transport.map(|t| t.0).unwrap_or_default();
    let route = match route_or_404(&s, &id).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let meta = route.meta().clone();
    let mut counted = None;
    let hash = q.token.as_deref().map(crate::token_hash);
    let role = match hash.clone() {
        None => Role::Spectator,
        Some(hash) => {
            let roles = [Role::White, Role::Black, Role::Director];
            // A deputy director of the game's evening directs its games too.
            let position = match meta.token_hashes.iter().position(|x| *x == hash) {
                Some(i) => Some(i),
                None => match crate::evening::deputy_of_game(&s, &id, &hash).await {
                    Ok(true) => Some(2),
                    Ok(false) => None,
                    Err(e) => return server_error(e),
                },
            };
            match position {
                Some(i) => {
                    let max = s.limits.sockets_per_token;
                    match s.token_sockets.enter(hash, max) {
                        Some(c) => counted = Some(c),
                        None => {
                            return error(
                                StatusCode::TOO_MANY_REQUESTS,
                                format!(
                                    "{max} sockets are open with this token, the most allowed: \
                                     close one first"
                                ),
                            );
                        }
                    }
                    roles[i]
                }
                None => {
                    return error(
                        StatusCode::FORBIDDEN,
                        format!("the token is not one of game {id}'s"),
                    );
                }
            }
        }
    };
    let ws = ws
        .max_message_size(crate::socket::MAX_MESSAGE_BYTES)
        .max_frame_size(crate::socket::MAX_MESSAGE_BYTES)
        // A client frame is at most a few KiB: start the read buffer small (tungstenite
        // zero-fills 128 KiB per socket by default) and let it grow for a longer one.
        .read_buffer_size(crate::socket::READ_BUFFER_BYTES)
        .write_buffer_size(0);
    if let (crate::Route::Remote { node, .. }, Some("")) = (&route, q.node.as_deref()) {
        return redirect(s, ws, node.clone());
    }
    // On the server's tasks: a stop waits for the socket to close.
    ws.on_upgrade(move |socket| {
        s.tasks.clone().track_future(async move {
            // Counted as long as the socket is open.
            let _counted = counted;
            crate::socket::run(s, id, (role, hash), route, socket, transport).await
        })
    })
}

/// A game socket served by another node (`node`), opened by a client that follows a
/// reconnect: tell it where (once: its next URL names the node), rather than route its
/// every action (docs/cluster.md, "Sockets land on the game's node").
fn redirect(s: AppState, ws: WebSocketUpgrade, node: String) -> Response {
    s.metrics.cluster.redirected.inc();
    ws.on_upgrade(move |socket| {
        s.tasks
            .clone()
            .track_future(crate::socket::redirect(socket, node))
    })
}

async fn healthz(State(s): State<AppState>) -> Response {
    if let Some(why) = s.seam.unhealthy() {
        return error(StatusCode::SERVICE_UNAVAILABLE, why);
    }
    match s.store.list(None, 1).await {
        Ok(_) => (StatusCode::OK, "ok\n").into_response(),
        Err(e) => {
            tracing::error!(error = %e, "health check: the database does not answer");
            error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the database does not answer",
            )
        }
    }
}

async fn metrics(State(s): State<AppState>) -> Response {
    (
        [(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
        s.metrics.render(s.bus.channels(), s.beats.count()),
    )
        .into_response()
}

async fn static_file(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    let page = path.is_empty()
        || ["play/", "direct/", "watch/", "challenge/", "events/"]
            .iter()
            .any(|p| path.starts_with(p));
    let name = if page { "index.html" } else { path };
    match WebDist::get(name) {
        Some(file) => {
            let mime = if name.ends_with(".html") {
                "text/html; charset=utf-8"
            } else if name.ends_with(".js") {
                "text/javascript"
            } else if name.ends_with(".css") {
                "text/css"
            } else if name.ends_with(".svg") {
                "image/svg+xml"
            } else if name.ends_with(".json") {
                "application/json"
            } else {
                "application/octet-stream"
            };
            (
                [(header::CONTENT_TYPE, mime)],
                Body::from(file.data.into_owned()),
            )
                .into_response()
        }
        None => error(StatusCode::NOT_FOUND, format!("no page /{path}")),
    }
}

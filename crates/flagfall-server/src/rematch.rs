//! Rematch offers after a game (`GET`/`POST /api/games/{id}/rematch`, docs/protocol.md
//! "Rematch"). A player of a finished game offers with their token; the other player
//! accepts or declines with theirs; on acceptance the server creates the new game (the
//! colours swapped, the names with them; the same ruleset, time control, start position,
//! mode and director) and each player reads their own link to it from the answer.
//!
//! In a practice game the computer accepts an offer at once and plays the other colour in
//! the new game (with its stored settings).
//!
//! The offers live in the server's memory, keyed by the finished game: they are a
//! conversation between two open pages, not part of any game's record (a restart forgets
//! an unanswered offer; the game created by an accepted one is stored like any other).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use flagfall_protocol::{
    ColorName, CreateGame, Created, RematchAction, RematchBody, RematchGame, RematchStatus,
    RematchView, Role,
};
use serde::Deserialize;

use crate::Shared;
use crate::http::{error, handle_or_404, state_of};
use crate::practice::ComputerConfig;

/// One finished game's rematch.
#[derive(Debug, Clone)]
struct Entry {
    by: ColorName,
    status: RematchStatus,
    /// The new game once created.
    game: Option<Created>,
}

/// The rematch offers of the server's finished games.
#[derive(Debug, Default)]
pub struct Rematches {
    map: Mutex<HashMap<String, Entry>>,
}

/// What an action does to the entry, decided under the lock.
enum Step {
    /// Answer with the entry as it now is.
    Answer,
    /// Create the new game (the entry is marked accepted meanwhile).
    Create,
}

impl Rematches {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // Single inserts and updates: a poisoned map is still consistent.
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn view(&self, game: &str, me: ColorName) -> RematchView {
        let map = self.lock();
        let Some(e) = map.get(game) else {
            return RematchView {
                status: RematchStatus::None,
                by: None,
                game: None,
            };
        };
        RematchView {
            status: e.status,
            by: Some(e.by),
            game: e.game.as_ref().map(|c| {
                // The colours swap: White of the finished game is Black of the new one.
                let (color, url) = match me {
                    ColorName::White => (ColorName::Black, c.urls.black.clone()),
                    ColorName::Black => (ColorName::White, c.urls.white.clone()),
                };
                RematchGame {
                    id: c.id.clone(),
                    color,
                    url,
                }
            }),
        }
    }

    /// Apply `action` by `me`; `Err` is the refusal (status and words).
    fn step(
        &self,
        game: &str,
        me: ColorName,
        action: RematchAction,
    ) -> Result<Step, (StatusCode, String)> {
        let them = match me {
            ColorName::White => ColorName::Black,
            ColorName::Black => ColorName::White,
        };
        let mut map = self.lock();
        let entry = map.get(game).cloned();
        let offered_by_them = entry
            .as_ref()
            .is_some_and(|e| e.status == RematchStatus::Offered && e.by == them);
        match (action, entry) {
            (_, Some(e)) if e.status == RematchStatus::Accepted => Ok(Step::Answer),
            (RematchAction::Offer | RematchAction::Accept, _) if offered_by_them => {
                map.insert(
                    game.to_string(),
                    Entry {
                        by: them,
                        status: RematchStatus::Accepted,
                        game: None,
                    },
                );
                Ok(Step::Create)
            }
            (RematchAction::Offer, _) => {
                map.insert(
                    game.to_string(),
                    Entry {
                        by: me,
                        status: RematchStatus::Offered,
                        game: None,
                    },
                );
                Ok(Step::Answer)
            }
            (RematchAction::Decline, Some(mut e)) if offered_by_them => {
                e.status = RematchStatus::Declined;
                map.insert(game.to_string(), e);
                Ok(Step::Answer)
            }
            (RematchAction::Accept | RematchAction::Decline, _) => Err((
                StatusCode::CONFLICT,
                "there is no rematch offer from your opponent to answer".to_string(),
            )),
        }
    }

    fn created(&self, game: &str, created: Created) {
        if let Some(e) = self.lock().get_mut(game) {
            e.game = Some(created);
        }
    }

    /// The creation failed: the offer stands again, for another try.
    fn failed(&self, game: &str) {
        if let Some(e) = self.lock().get_mut(game) {
            e.status = RematchStatus::Offered;
        }
    }
}

#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

/// The colour `token` plays in game `id`, with the game's state; a refusal otherwise.
async fn player(
    s: &Arc<Shared>,
    id: &str,
    token: Option<&str>,
) -> Result<(ColorName, flagfall_protocol::State), Response> {
    let Some(token) = token else {
        return Err(error(
            StatusCode::BAD_REQUEST,
            "token: a rematch is a player's: give your token of the game",
        ));
    };
    let h = handle_or_404(s, id).await?;
    let hash = crate::token_hash(token);
    let role = match h.meta.token_hashes.iter().position(|x| *x == hash) {
        Some(0) => Role::White,
        Some(1) => Role::Black,
        Some(_) => Role::Director,
        None => {
            return Err(error(
                StatusCode::FORBIDDEN,
                format!("the token is not one of game {id}'s"),
            ));
        }
    };
    let me = match role {
        Role::White => ColorName::White,
        Role::Black => ColorName::Black,
        _ => {
            return Err(error(
                StatusCode::FORBIDDEN,
                "only the players offer or answer a rematch, not the director",
            ));
        }
    };
    let state = state_of(s, id).await?;
    Ok((me, state))
}

/// `GET /api/games/{id}/rematch?token=`: where the rematch stands, for this player.
pub async fn get_rematch(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
) -> Response {
    match player(&s, &id, q.token.as_deref()).await {
        Ok((me, _)) => axum::Json(s.rematches.view(&id, me)).into_response(),
        Err(r) => r,
    }
}

/// `POST /api/games/{id}/rematch` with `{"token", "action": "offer"|"accept"|"decline"}`.
pub async fn post_rematch(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let body: RematchBody = match serde_json::from_slice(&body) {
        Ok(b) => b,
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("rematch body: {e}")),
    };
    let (me, state) = match player(&s, &id, Some(&body.token)).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    if state.result == "*" && state.reason.is_none() {
        return error(
            StatusCode::CONFLICT,
            "the game is not over: a rematch is offered after it",
        );
    }
    // A practice game: the computer answers an offer at once, and accepts it.
    let computer = match practice_of(&s, &id).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    // Each computer with an engine runs a process: the cap of `POST /api/practice` holds.
    if computer.is_some() && s.engine.is_some() && s.computers_running() >= s.limits.engines {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the practice computer is busy: try the rematch again in a few minutes",
        );
    }
    let mut step = s.rematches.step(&id, me, body.action);
    if let (Some(cfg), Ok(Step::Answer), RematchAction::Offer) = (&computer, &step, body.action) {
        step = s.rematches.step(&id, cfg.color, RematchAction::Accept);
    }
    match step {
        Err((status, text)) => return error(status, text),
        Ok(Step::Answer) => {}
        Ok(Step::Create) => match create_swapped(&s, &state, computer).await {
            Ok(created) => s.rematches.created(&id, created),
            Err(r) => {
                s.rematches.failed(&id);
                return r;
            }
        },
    }
    axum::Json(s.rematches.view(&id, me)).into_response()
}

/// The practice computer's settings of game `id`, if it is a practice game.
async fn practice_of(s: &Arc<Shared>, id: &str) -> Result<Option<ComputerConfig>, Response> {
    let row = match s.store.game(id).await {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(None),
        Err(e) => return Err(crate::http::server_error(e.into())),
    };
    match row.game.practice {
        None => Ok(None),
        Some(json) => serde_json::from_str(&json).map(Some).map_err(|e| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the practice computer's stored settings cannot be read: {e}"),
            )
        }),
    }
}

/// The new game: the finished game's setup with the colours (and names) swapped; in a
/// practice game the computer plays the other colour too.
async fn create_swapped(
    s: &Arc<Shared>,
    state: &flagfall_protocol::State,
    computer: Option<ComputerConfig>,
) -> Result<Created, Response> {
    let mut body: CreateGame = serde_json::from_value(state.setup.clone()).map_err(|e| {
        error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the finished game's setup cannot be read again: {e}"),
        )
    })?;
    std::mem::swap(&mut body.white, &mut body.black);
    body.mode = Some(state.mode);
    if body.mode == Some(flagfall_protocol::Mode::Online) {
        // Online games always flag automatically; the setup line says so already.
        body.auto_flag = Some(true);
    }
    let failed = |e| match e {
        crate::CreateError::Setup(e) => error(StatusCode::BAD_REQUEST, e.to_string()),
        crate::CreateError::Failed(e) => crate::http::server_error(e),
    };
    let Some(mut cfg) = computer else {
        return s.create(&body).await.map_err(failed);
    };
    cfg.color = match cfg.color {
        ColorName::White => ColorName::Black,
        ColorName::Black => ColorName::White,
    };
    let stored = serde_json::to_string(&cfg).map_err(|e| {
        error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the practice computer's settings cannot be stored: {e}"),
        )
    })?;
    let created = s.create_with(&body, Some(stored)).await.map_err(failed)?;
    crate::practice::spawn(s.clone(), created.id.clone(), cfg, s.engine.clone());
    Ok(created)
}

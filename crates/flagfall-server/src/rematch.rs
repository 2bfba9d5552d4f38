//! Rematch offers after a game (`GET`/`POST /api/games/{id}/rematch`, docs/protocol.md
//! "Rematch"). A player of a finished game offers with their token; the other player
//! accepts or declines with theirs; on acceptance the server creates the new game (the
//! colours swapped, the names with them; the same ruleset, time control, start position,
//! mode and director) and each player reads their own link to it from the answer.
//!
//! In a practice game the computer accepts an offer at once and plays the other colour in
//! the new game (with its stored settings).
//!
//! A game with a director keeps its director: the new game's director token is the
//! finished game's (its hash copied), so the director's link directs the rematch too,
//! and `GET .../rematch?token=<director's token>` answers the director with the new
//! game's console link (null colour). A player's call for the director in the rematch
//! reaches someone who can answer it. A game without a director has none in its rematch.
//!
//! The rematch is stored (`rematches`, one row per finished game; flagfall-store
//! `rematch.rs`), so a restart forgets no offer. The database keeps no token: a player's
//! token in the new game is derived from their token of the finished game
//! ([`derived_token`]), which only they hold; the offer stores the hash of the offerer's
//! derived token, the accept adds the accepter's, and either player computes their own
//! link again from the token they ask with. Every change is conditional on the row the
//! server read (the store's contract): of two concurrent answers one wins, and the other
//! is decided again on the row as it now is.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use flagfall_protocol::{
    ColorName, CreateGame, RematchAction, RematchBody, RematchGame, RematchStatus, RematchView,
    Role,
};
use flagfall_store::{NewGame, RematchRow};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::api::{ApiError, error, handle_or_404, server_error, state_of};
use crate::practice::ComputerConfig;
use crate::{Shared, now_unix_ms, random_hex, token_hash};

/// The token the holder of `token` in finished game `game` holds in its rematch: only
/// they can compute it, and the database keeps only its hash.
fn derived_token(game: &str, token: &str) -> String {
    let digest = Sha256::digest(format!("flagfall rematch\0{game}\0{token}").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn other(c: ColorName) -> ColorName {
    match c {
        ColorName::White => ColorName::Black,
        ColorName::Black => ColorName::White,
    }
}

/// Who asks about a rematch.
#[derive(Clone, Copy)]
enum Asker {
    /// A player, of this colour in the finished game.
    Player(ColorName),
    /// The director (who watches the rematch, and directs its game with the same token).
    Director,
}

/// The rematch of game `game` as `me`, holding `token`, sees it.
fn view(game: &str, row: Option<&RematchRow>, me: Asker, token: &str) -> RematchView {
    let Some(row) = row else {
        return RematchView {
            status: RematchStatus::None,
            by: None,
            game: None,
        };
    };
    RematchView {
        status: row.status,
        by: Some(row.offered_by),
        game: row.new_game.as_ref().map(|id| match me {
            Asker::Player(me) => RematchGame {
                id: id.clone(),
                // The colours swap: White of the finished game is Black of the new one.
                color: Some(other(me)),
                url: format!("/play/{id}?token={}", derived_token(game, token)),
            },
            // The director's token of the finished game directs the new one.
            Asker::Director => RematchGame {
                id: id.clone(),
                color: None,
                url: format!("/direct/{id}?token={token}"),
            },
        }),
    }
}

/// What an action does to the stored rematch, decided on the row as read.
enum Step {
    /// Answer with the row as it is.
    Answer,
    /// Store `me`'s offer.
    Offer,
    /// Decline the standing offer of `by`.
    Decline { by: ColorName },
    /// Accept the standing offer of `by`: create the new game.
    Accept {
        by: ColorName,
        offer_token_hash: String,
    },
}

/// What `action` by `me` does, given the stored row; `Err` is the refusal.
fn decide(
    row: Option<&RematchRow>,
    me: ColorName,
    action: RematchAction,
) -> Result<Step, (StatusCode, String)> {
    let standing_of_them = row.filter(|r| r.status == RematchStatus::Offered && r.offered_by != me);
    match (action, row, standing_of_them) {
        (_, Some(r), _) if r.status == RematchStatus::Accepted => Ok(Step::Answer),
        // An offer while the opponent's stands accepts it.
        (RematchAction::Offer | RematchAction::Accept, _, Some(r)) => Ok(Step::Accept {
            by: r.offered_by,
            offer_token_hash: r.offer_token_hash.clone(),
        }),
        (RematchAction::Offer, _, None) => Ok(Step::Offer),
        (RematchAction::Decline, _, Some(r)) => Ok(Step::Decline { by: r.offered_by }),
        (RematchAction::Accept | RematchAction::Decline, _, None) => Err((
            StatusCode::CONFLICT,
            "there is no rematch offer from your opponent to answer".to_string(),
        )),
    }
}

/// How often an action is decided again when another request changed the row between
/// the read and the conditional write (each retry reads what the other one wrote).
const TRIES: usize = 4;

#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

/// What the finished game hands its rematch: its state, and the hash of its director's
/// token (the new game's director token when the setup has a director).
struct Finished {
    state: flagfall_protocol::State,
    director_hash: String,
}

/// Who `token` is in game `id` (a player or the director), with the game; a refusal
/// otherwise.
async fn asker(
    s: &Arc<Shared>,
    id: &str,
    token: Option<&str>,
) -> Result<(Asker, Finished), Response> {
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
        Role::White => Asker::Player(ColorName::White),
        Role::Black => Asker::Player(ColorName::Black),
        _ => Asker::Director,
    };
    let state = state_of(s, id).await?;
    let director_hash = h.meta.token_hashes[2].clone();
    Ok((
        me,
        Finished {
            state,
            director_hash,
        },
    ))
}

/// `GET /api/games/{id}/rematch?token=`: where the rematch stands, for this player (or
/// the director).
pub async fn get_rematch(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
) -> Response {
    let (me, _) = match asker(&s, &id, q.token.as_deref()).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let token = q.token.unwrap_or_default();
    match s.store.rematch(&id).await {
        Ok(row) => axum::Json(view(&id, row.as_ref(), me, &token)).into_response(),
        Err(e) => server_error(e.into()),
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
    let (me, finished) = match asker(&s, &id, Some(&body.token)).await {
        Ok((Asker::Player(me), f)) => (me, f),
        Ok((Asker::Director, _)) => {
            return error(
                StatusCode::FORBIDDEN,
                "only the players offer or answer a rematch, not the director",
            );
        }
        Err(r) => return r,
    };
    let state = &finished.state;
    if state.result == "*" && state.reason.is_none() {
        return error(
            StatusCode::CONFLICT,
            "the game is not over: a rematch is offered after it",
        );
    }
    // A game of an evening has no rematch: the evening pairs the players' next game.
    match s.store.tournament_of_game(&id).await {
        Ok(None) => {}
        Ok(Some(_)) => {
            return error(
                StatusCode::CONFLICT,
                "a game of an evening has no rematch: the evening pairs your next game (see your evening's page)",
            );
        }
        Err(e) => return server_error(e.into()),
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
    match act(&s, &id, &finished, me, &body, computer).await {
        Ok(row) => {
            axum::Json(view(&id, row.as_ref(), Asker::Player(me), &body.token)).into_response()
        }
        Err(r) => r,
    }
}

/// Apply `body.action` by `me` to the stored rematch (the computer of a practice game
/// accepting an offer at once); the row as it then stands.
async fn act(
    s: &Arc<Shared>,
    id: &str,
    state: &Finished,
    me: ColorName,
    body: &RematchBody,
    computer: Option<ComputerConfig>,
) -> Result<Option<RematchRow>, Response> {
    let stored = |e: flagfall_store::StoreError| server_error(e.into());
    let now = now_unix_ms();
    let mine = token_hash(&derived_token(id, &body.token));
    for _ in 0..TRIES {
        let row = s.store.rematch(id).await.map_err(stored)?;
        let step = decide(row.as_ref(), me, body.action).map_err(|(st, text)| error(st, text))?;
        let done = match step {
            Step::Answer => return Ok(row),
            Step::Offer => {
                let offered = s
                    .store
                    .offer_rematch(id, me, &mine, now)
                    .await
                    .map_err(stored)?;
                // The computer accepts at once, holding a token nobody needs.
                if offered && let Some(cfg) = &computer {
                    let theirs = token_hash(&random_hex(32).map_err(server_error)?);
                    accept(s, id, state, me, &mine, &theirs, Some(cfg.clone())).await?;
                }
                offered
            }
            Step::Decline { by } => s.store.decline_rematch(id, by, now).await.map_err(stored)?,
            Step::Accept {
                by,
                offer_token_hash,
            } => accept(s, id, state, by, &offer_token_hash, &mine, computer.clone()).await?,
        };
        if done {
            return s.store.rematch(id).await.map_err(stored);
        }
    }
    Err(error(
        StatusCode::CONFLICT,
        "the rematch kept changing while this answer was decided: look again and retry",
    ))
}

/// Accept `by`'s standing offer: create the new game (the offerer holding the token of
/// `offer_hash`, the accepter `accepter_hash`) in the transaction that marks the rematch
/// accepted, and start it. `false` when the offer no longer stood (nothing created).
async fn accept(
    s: &Arc<Shared>,
    id: &str,
    finished: &Finished,
    by: ColorName,
    offer_hash: &str,
    accepter_hash: &str,
    computer: Option<ComputerConfig>,
) -> Result<bool, Response> {
    let (new, mode, computer) =
        swapped_game(finished, computer).map_err(IntoResponse::into_response)?;
    // The offerer plays the other colour in the new game.
    let (token_white, token_black) = match other(by) {
        ColorName::White => (offer_hash, accepter_hash),
        ColorName::Black => (accepter_hash, offer_hash),
    };
    let new = NewGame {
        token_white: token_white.to_string(),
        token_black: token_black.to_string(),
        ..new
    };
    let accepted = s
        .store
        .accept_rematch(id, by, &new, now_unix_ms())
        .await
        .map_err(|e| server_error(e.into()))?;
    if !accepted {
        return Ok(false);
    }
    // The game is stored: should its task not start now, it is loaded when first asked for.
    if let Err(e) = s.start_new(&new, mode).await {
        tracing::warn!(game = %new.id, error = %e, "a rematch's game stored but not started");
    }
    if let Some(cfg) = computer {
        crate::practice::spawn(s.clone(), new.id.clone(), cfg, s.engine.clone());
    }
    Ok(true)
}

/// The practice computer's settings of game `id`, if it is a practice game.
async fn practice_of(s: &Arc<Shared>, id: &str) -> Result<Option<ComputerConfig>, Response> {
    let row = match s.store.game(id).await {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(None),
        Err(e) => return Err(server_error(e.into())),
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

/// The new game's row (its player tokens still to fill in): the finished game's setup
/// with the colours (and names) swapped; in a practice game the computer plays the other
/// colour too, its settings stored with the game.
fn swapped_game(
    finished: &Finished,
    computer: Option<ComputerConfig>,
) -> Result<(NewGame, flagfall_protocol::Mode, Option<ComputerConfig>), ApiError> {
    let state = &finished.state;
    let mut body: CreateGame = serde_json::from_value(state.setup.clone()).map_err(|e| {
        ApiError::Refused(
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
    let (line, setup) = body.setup_line()?;
    let directed = setup.director;
    let computer = computer.map(|mut cfg| {
        cfg.color = other(cfg.color);
        cfg
    });
    let practice = match &computer {
        None => None,
        Some(cfg) => Some(serde_json::to_string(cfg).map_err(|e| {
            ApiError::Refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the practice computer's settings cannot be stored: {e}"),
            )
        })?),
    };
    let new = NewGame {
        id: random_hex(12)?,
        setup: line,
        mode: body.mode(),
        token_white: String::new(),
        token_black: String::new(),
        // The director of the finished game directs its rematch with the same token;
        // without a director nobody needs one (a hash of a token nobody holds).
        token_director: if directed {
            finished.director_hash.clone()
        } else {
            token_hash(&random_hex(32)?)
        },
        created_ms: now_unix_ms(),
        practice,
    };
    Ok((new, body.mode(), computer))
}

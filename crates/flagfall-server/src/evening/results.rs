//! The evening's rounds and results: pairing the next round, reading, deleting or
//! overriding one, a board's result entered or reported, the standings, crosstable,
//! rating changes, log, and a player's own view.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use flagfall_events::change::Change;
use flagfall_events::event::{ByeKind, EventError, RecordedResult};
use flagfall_protocol::evening as ev;
use serde::Deserialize;
use serde_json::Value;

use super::model::Who;
use super::request::{
    AppState, Director, Loaded, Member, admit, admit_reader, answer, asker, effects, event_error,
    job, log_entry, origin, parse, reader, refused,
};
use super::task::Op;
use super::view::{self, Viewer};
use crate::api::ApiError;
use crate::limits::ClientAddress;

/// `POST /api/events/{id}/rounds`: pair the next round (with server play, its games are
/// created). 201 with the round.
pub(super) async fn pair_next(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Director { id, h, who: w, .. }: Director,
) -> Result<Response, ApiError> {
    let ticket = admit(&s, addr, Some(&id))?;
    h.run_as(
        Op::Changes(vec![Change::PairNext]),
        origin(&w),
        asker(&w, addr, ticket),
    )
    .await?;
    let snap = h.now();
    let r = snap.event.rounds_paired();
    let v = view::round(&snap, r, Viewer::Director).map_err(event_error)?;
    Ok((StatusCode::CREATED, axum::Json(v)).into_response())
}

pub(super) async fn get_round(
    Path((_, r)): Path<(String, u32)>,
    Loaded { h, .. }: Loaded,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let snap = h.now();
    let viewer = reader(&snap, &headers)?;
    let v = view::round(&snap, r, viewer).map_err(event_error)?;
    Ok(axum::Json(v).into_response())
}

/// `DELETE /api/events/{id}/rounds/{r}`: the latest round, while nothing in it is played.
pub(super) async fn delete_round(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Path((_, r)): Path<(String, u32)>,
    Director { id, h, who: w, .. }: Director,
) -> Result<Response, ApiError> {
    let ticket = admit(&s, addr, Some(&id))?;
    let done = h
        .run_as(
            Op::Changes(vec![Change::DeleteRound { round: r }]),
            origin(&w),
            asker(&w, addr, ticket),
        )
        .await?;
    Ok(answer(&h, &done))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OverrideBody {
    boards: Vec<(u32, u32)>,
    #[serde(default)]
    byes: Vec<(u32, ByeKind)>,
}

/// `PUT /api/events/{id}/rounds/{r}` `{"boards": [[white, black], ...], "byes"?: [[n,
/// "half"], ...]}`: the director's own pairing of the latest round; answers the rules of
/// the system it breaks (`warnings`), and the log records who made it.
pub(super) async fn override_round(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Path((_, r)): Path<(String, u32)>,
    Director { id, h, who: w, .. }: Director,
    body: Bytes,
) -> Result<Response, ApiError> {
    let o: OverrideBody = parse(&body, "pairing")?;
    let ticket = admit(&s, addr, Some(&id))?;
    let done = h
        .run_as(
            Op::Changes(vec![Change::Override {
                round: r,
                boards: o.boards,
                byes: o.byes,
            }]),
            origin(&w),
            asker(&w, addr, ticket),
        )
        .await?;
    let warnings: Vec<ev::PairingWarning> = done
        .effects
        .iter()
        .filter_map(|e| match e {
            flagfall_events::change::Effect::PairingReplaced { warnings, .. } => Some(
                warnings
                    .iter()
                    .map(|w| ev::PairingWarning {
                        warning: serde_json::to_value(w).unwrap_or(Value::Null),
                        text: w.to_string(),
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect();
    let v = view::round(&h.now(), r, Viewer::Director).map_err(event_error)?;
    Ok(axum::Json(ev::OverrideAnswer { round: v, warnings }).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultBody {
    result: Option<String>,
    results: Option<Vec<String>>,
    game: Option<u32>,
}

fn read_result(text: &str) -> Result<RecordedResult, ApiError> {
    text.parse()
        .map_err(|e: EventError| refused(StatusCode::BAD_REQUEST, e.to_string()))
}

/// `POST /api/events/{id}/rounds/{r}/boards/{b}/result` `{"result"}` (or `{"results":
/// [..]}` for every game of a two-game board, or `{"game": 2, "result"}`): the director
/// enters or corrects (logged: who, when, what before); a player of the board reports
/// (board play, the round being played, its result not in).
pub(super) async fn set_result(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Path((_, r, board)): Path<(String, u32, u32)>,
    Query(q): Query<super::rounds::DryRun>,
    Member { id, h, who: w, .. }: Member,
    body: Bytes,
) -> Result<Response, ApiError> {
    let dry_run = q.asked()?;
    let b: ResultBody = parse(&body, "result")?;
    let results: Vec<RecordedResult> = match (&b.result, &b.results) {
        (Some(one), None) => vec![read_result(one)?],
        (None, Some(all)) => all
            .iter()
            .map(|t| read_result(t))
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(refused(
                StatusCode::BAD_REQUEST,
                "give `result` (one game) or `results` (each game of the board)",
            ));
        }
    };
    if results.is_empty() {
        return Err(refused(
            StatusCode::BAD_REQUEST,
            "field `results`: empty; give one result per game of the board",
        ));
    }
    if b.game.is_some() && results.len() != 1 {
        return Err(refused(
            StatusCode::BAD_REQUEST,
            "with `game`, give that game's one `result`",
        ));
    }
    if matches!(w, Who::Player(_)) && results.iter().any(|r| !r.is_played()) {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "a player reports the result of a game played (1-0, 0-1 or 1/2); a forfeit \
             (+-, -+, --) or a result not in (*) is the director's to enter",
        ));
    }
    let op = match (&w, b.game) {
        (Who::Player(name), None) => Op::Report {
            player: name.clone(),
            round: r,
            board,
            results,
        },
        (Who::Player(_), Some(_)) => {
            return Err(refused(
                StatusCode::BAD_REQUEST,
                "a player reports every game of their board (`result` or `results`)",
            ));
        }
        (_, Some(game)) => Op::Changes(vec![Change::SetGameResult {
            round: r,
            board,
            game,
            result: results[0],
        }]),
        (_, None) => Op::Changes(vec![Change::SetResults {
            round: r,
            board,
            results,
        }]),
    };
    let ticket = admit_reader(&s, addr, &id, &Viewer::of(&h.now(), Some(&w)))?;
    if dry_run {
        return super::rounds::dry_run(&s, &h, op, origin(&w), ticket).await;
    }
    let done = h.run_as(op, origin(&w), asker(&w, addr, ticket)).await?;
    let snap = h.now();
    let v = view::round(&snap, r, Viewer::of(&snap, Some(&w))).map_err(event_error)?;
    Ok(axum::Json(ev::ResultsAnswer {
        round: v,
        effects: effects(&done.effects),
    })
    .into_response())
}

pub(super) async fn get_standings(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Loaded { id, h }: Loaded,
) -> Result<Response, ApiError> {
    let ticket = admit(&s, addr, Some(&id))?;
    let snap = h.now();
    let v = job(&s, ticket, move || view::standings(&snap.event)).await?;
    Ok(axum::Json(v.map_err(event_error)?).into_response())
}

pub(super) async fn get_crosstable(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Loaded { id, h }: Loaded,
) -> Result<Response, ApiError> {
    let ticket = admit(&s, addr, Some(&id))?;
    let snap = h.now();
    let v = job(&s, ticket, move || view::crosstable(&snap.event)).await?;
    Ok(axum::Json(v).into_response())
}

/// `GET /api/events/{id}/rating-changes`: each player's Glicko-2 and US Chess estimate
/// over the played games so far (`flagfall_events::rating_report`).
pub(super) async fn get_rating_changes(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Loaded { id, h }: Loaded,
) -> Result<Response, ApiError> {
    let ticket = admit(&s, addr, Some(&id))?;
    let snap = h.now();
    let rows = job(&s, ticket, move || {
        flagfall_events::rating_report::rating_changes(&snap.event)
    })
    .await?
    .map_err(|e| refused(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?;
    let players = rows
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
        .collect();
    Ok(axum::Json(ev::RatingChanges { players }).into_response())
}

/// `GET /api/events/{id}/log` (director): every change, who, when, what before.
pub(super) async fn get_log(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Director { id, snap, .. }: Director,
) -> Result<Response, ApiError> {
    // Megabytes for a long evening: written off the async workers.
    let ticket = admit(&s, addr, Some(&id))?;
    let text = job(&s, ticket, move || {
        let log = snap.event.log.iter().map(log_entry).collect();
        serde_json::to_string(&ev::EveningLog { log })
            .map_err(|e| ApiError::Failed(crate::ServerError::serialise("the evening's log")(e)))
    })
    .await??;
    Ok(([(header::CONTENT_TYPE, "application/json")], text).into_response())
}

/// `GET /api/events/{id}/me` (a player's token): their board this round, their game.
pub(super) async fn get_me(Member { snap, who: w, .. }: Member) -> Result<Response, ApiError> {
    match w {
        Who::Player(name) => Ok(axum::Json(view::me(&snap, &name)).into_response()),
        _ => Err(refused(
            StatusCode::BAD_REQUEST,
            "`me` is a player's view: use a player's token",
        )),
    }
}

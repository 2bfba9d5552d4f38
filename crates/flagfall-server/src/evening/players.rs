//! The evening's players: entered (JSON, CSV or TRF), edited, their links again, their
//! ratings from a FIDE list, and what a player or the director does for one (check in,
//! withdraw, byes, ...).

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use flagfall_events::change::Change;
use flagfall_events::event::{EventError, NewPlayer, RequestedBye};
use flagfall_events::import;
use flagfall_protocol::evening::{self as ev, PlayerAction};
use serde::Deserialize;
use serde_json::Value;

use super::model::{Snap, Who};
use super::request::{
    AppState, Director, Member, admit, admit_reader, answer, asker, effects, event_error, job,
    origin, parse, refused,
};
use super::task::Op;
use super::view::Viewer;
use crate::api::ApiError;
use crate::limits::ClientAddress;

#[derive(Deserialize)]
pub(super) struct PlayersQuery {
    format: Option<String>,
    #[serde(default)]
    check_in: bool,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PlayersBody {
    Many { players: Vec<NewPlayer> },
    One(NewPlayer),
}

/// `POST /api/events/{id}/players[?format=csv|trf][&check_in=true]`: one player (JSON),
/// several (`{"players": [...]}`), or a CSV or TRF file. Answers each player's link.
pub(super) async fn add_players(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Director {
        id,
        h,
        who: w,
        token,
        ..
    }: Director,
    Query(q): Query<PlayersQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let ticket = admit(&s, addr, Some(&id))?;
    let format = upload_format(q.format.as_deref(), &headers, &body)?;
    // Reading a file of thousands of players: off the async workers (the admission
    // goes on with the change, below).
    let (players, ticket) = s
        .cpu
        .run(None, move || {
            read_players(format, &body).map(|players| (players, ticket))
        })
        .await??;
    let most = s.limits.evening_players;
    let now = h.now().event.players.len();
    if now + players.len() > most {
        return Err(refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{} players added to the {now} entered would make {}: an evening on this \
                 server holds at most {most} (--evening-players)",
                players.len(),
                now + players.len()
            ),
        ));
    }
    let done = h
        .run_as(
            Op::AddPlayers {
                players,
                check_in: q.check_in,
                director_token: (w == Who::Director).then_some(token),
            },
            origin(&w),
            asker(&w, addr, ticket),
        )
        .await?;
    let snap = h.now();
    let players = done
        .tokens
        .iter()
        .map(|(name, token)| ev::AddedPlayer {
            name: name.clone(),
            number: snap.number_of(name),
            token: token.clone(),
            link: format!("/events/{id}/player?token={token}"),
        })
        .collect();
    Ok((
        StatusCode::CREATED,
        axum::Json(ev::PlayersAdded { players }),
    )
        .into_response())
}

/// A rating as a form or a program sends it: a number, its digits as text, or nothing
/// (`null`, `""`: unrated). Anything else is refused, naming `field` (a mistyped
/// "19x0" is not entered as an unrated player).
fn rating_value(field: &str, v: &mut Value) -> Result<(), ApiError> {
    let fixed = match &*v {
        Value::Null => return Ok(()),
        // A whole number the events library then checks against its range; a fraction,
        // a negative or a number past any rating (1e30) is refused here, naming the field
        // (it failed before as "data did not match any variant").
        Value::Number(n) if n.as_u64().is_some_and(|r| u32::try_from(r).is_ok()) => {
            return Ok(());
        }
        Value::String(t) if t.trim().is_empty() => Value::Null,
        Value::String(t) => match t.trim().parse::<u32>() {
            Ok(n) => Value::from(n),
            Err(_) => {
                let shown: String = t.trim().chars().take(20).collect();
                return Err(refused(
                    StatusCode::BAD_REQUEST,
                    format!("{field}: {shown:?} is not a rating (a whole number, 0 to 4000)"),
                ));
            }
        },
        other => {
            return Err(refused(
                StatusCode::BAD_REQUEST,
                format!("{field}: {other} is not a rating (a whole number, 0 to 4000)"),
            ));
        }
    };
    *v = fixed;
    Ok(())
}

/// The players of a JSON upload (one player, or `{"players": [...]}`), each rating read
/// by [`rating_value`] first.
fn json_players(body: &[u8]) -> Result<Vec<NewPlayer>, ApiError> {
    let mut v: Value = parse(body, "player")?;
    if let Some(list) = v.get_mut("players").and_then(Value::as_array_mut) {
        for (i, p) in list.iter_mut().enumerate() {
            if let Some(r) = p.get_mut("rating") {
                rating_value(&format!("players[{}].rating", i + 1), r)?;
            }
        }
    } else if let Some(r) = v.get_mut("rating") {
        rating_value("rating", r)?;
    }
    let typed: PlayersBody = serde_json::from_value(v)
        .map_err(|e| refused(StatusCode::BAD_REQUEST, format!("player: {e}")))?;
    Ok(match typed {
        PlayersBody::Many { players } => players,
        PlayersBody::One(p) => vec![p],
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditBody {
    name: String,
    #[serde(default)]
    rating: Option<u32>,
    #[serde(default)]
    federation: Option<String>,
    #[serde(default)]
    fide_id: Option<u64>,
    #[serde(default)]
    uscf_id: Option<String>,
}

/// `PUT /api/events/{id}/players/{n}` (director): the player's name, rating, federation
/// and ids, every one replaced (a blank or absent field clears it). A rating is a number
/// or its digits; anything else is refused naming the field. A new name gives the player
/// a new link (each link is tied to its name): the answer carries it.
pub(super) async fn edit_player(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Path((_, n)): Path<(String, u32)>,
    Director {
        id,
        h,
        who: w,
        token,
        ..
    }: Director,
    body: Bytes,
) -> Result<Response, ApiError> {
    let mut v: Value = parse(&body, "player")?;
    if let Some(obj) = v.as_object_mut() {
        if let Some(r) = obj.get_mut("rating") {
            rating_value("rating", r)?;
        }
        // A blank text field clears it, as a form sends it.
        for key in ["federation", "uscf_id"] {
            if obj
                .get(key)
                .and_then(Value::as_str)
                .is_some_and(|t| t.trim().is_empty())
            {
                obj.insert(key.into(), Value::Null);
            }
        }
        match obj.get("fide_id").cloned() {
            Some(Value::String(t)) if t.trim().is_empty() => {
                obj.insert("fide_id".into(), Value::Null);
            }
            Some(Value::String(t)) => match t.trim().parse::<u64>() {
                Ok(n) => {
                    obj.insert("fide_id".into(), Value::from(n));
                }
                Err(_) => {
                    let shown: String = t.trim().chars().take(20).collect();
                    return Err(refused(
                        StatusCode::BAD_REQUEST,
                        format!("fide_id: {shown:?} is not a FIDE id (its digits)"),
                    ));
                }
            },
            _ => {}
        }
    }
    let b: EditBody = serde_json::from_value(v)
        .map_err(|e| refused(StatusCode::BAD_REQUEST, format!("player: {e}")))?;
    let change = Change::EditPlayer {
        player: n,
        name: b.name.trim().to_string(),
        rating: b.rating,
        federation: b.federation.map(|f| f.trim().to_string()),
        fide_id: b.fide_id,
        uscf_id: b.uscf_id.map(|u| u.trim().to_string()),
    };
    let ticket = admit(&s, addr, Some(&id))?;
    let done = h
        .run_as(
            Op::EditPlayer {
                change,
                director_token: (w == Who::Director).then_some(token),
            },
            origin(&w),
            asker(&w, addr, ticket),
        )
        .await?;
    let snap = h.now();
    Ok(axum::Json(ev::PlayerEdited {
        effects: effects(&done.effects),
        seq: snap.seq,
        link: done
            .tokens
            .first()
            .map(|(_, token)| format!("/events/{id}/player?token={token}")),
    })
    .into_response())
}

/// The players of an upload in `format` (json, csv or trf).
fn read_players(format: &str, body: &[u8]) -> Result<Vec<NewPlayer>, ApiError> {
    let text = || {
        std::str::from_utf8(body)
            .map_err(|_| refused(StatusCode::BAD_REQUEST, "the file is not UTF-8 text"))
    };
    let players = match format {
        "json" => json_players(body)?,
        "csv" => import::players_from_csv(text()?, "the CSV upload")
            .map_err(|e| refused(StatusCode::BAD_REQUEST, e.to_string()))?,
        "trf" => {
            let trf = flagfall_pairing::trf::Trf::parse(text()?)
                .map_err(|e| refused(StatusCode::BAD_REQUEST, format!("the TRF upload: {e}")))?;
            let players = import::players_from_trf(&trf);
            if players.is_empty() {
                return Err(refused(
                    StatusCode::BAD_REQUEST,
                    "the TRF upload: no player line (tag 001); is it a TRF?",
                ));
            }
            players
        }
        other => unreachable!("upload_format answers json, csv or trf, not {other:?}"),
    };
    if players.is_empty() {
        return Err(refused(StatusCode::BAD_REQUEST, "no players in the upload"));
    }
    // Every name by the events library's rules (one line, a game's 64 characters), and
    // each once in the upload, before anything is entered: the error names the player.
    let mut names = std::collections::HashSet::new();
    for (i, p) in players.iter().enumerate() {
        let name = flagfall_events::text::new_player(p)
            .map_err(|e| refused(StatusCode::BAD_REQUEST, format!("players[{}].{e}", i + 1)))?;
        if !names.insert(name.clone()) {
            let shown: String = name.chars().take(40).collect();
            return Err(refused(
                StatusCode::BAD_REQUEST,
                format!(
                    "players[{}].name: {shown:?} is in the upload twice (each player's link is tied to their name)",
                    i + 1
                ),
            ));
        }
    }
    Ok(players)
}

/// `GET /api/events/{id}/links` (the director, not a deputy): every player's personal
/// link again, for the printed QR codes. Only the hashes are stored: a link is found by
/// deriving the token the director's entry gave ([`super::model::player_token`]) and checking
/// it against the stored hash; a player entered by a deputy (random token) or brought in
/// by an imported file (no token) has `"link": null` and says why.
pub(super) async fn get_links(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Director {
        id,
        snap,
        who: w,
        token,
        ..
    }: Director,
) -> Result<Response, ApiError> {
    if w != Who::Director {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "only the director reads the players' links (a deputy's token does not derive them)",
        ));
    }
    let ticket = admit(&s, addr, Some(&id))?;
    // Two hashes a player: off the async workers.
    let players = job(&s, ticket, move || links(&snap, &token)).await?;
    Ok(axum::Json(ev::PlayerLinks { players }).into_response())
}

/// Every player's link, derived from the director's `token`.
pub(super) fn links(snap: &Snap, token: &str) -> Vec<ev::PlayerLink> {
    let id = &snap.id;
    snap
        .event
        .players
        .iter()
        .map(|p| {
            let mine = super::model::player_token(token, &snap.id, &p.name);
            let found = snap.tokens.get(&crate::token_hash(&mine)) == Some(&Who::Player(p.name.clone()));
            let (link, why) = if found {
                (Some(format!("/events/{id}/player?token={mine}")), None)
            } else if snap.token_of(&p.name).is_some() {
                (None, Some("entered by a deputy: the link was answered once, when the player was entered"))
            } else {
                (None, Some("no personal link (the player came with an imported event file)"))
            };
            ev::PlayerLink {
                name: p.name.clone(),
                number: p.id,
                link,
                why: why.map(str::to_string),
            }
        })
        .collect()
}

/// What a player upload is: `?format=` when given; else the `Content-Type`
/// (`application/json`, `text/csv`; `application/x-trf`); else (no type, `text/plain`,
/// `application/octet-stream`) what the text looks like: JSON when it starts with `{`,
/// TRF when its first line is a TRF tag line (`012 `, `001 `, ...), CSV otherwise.
fn upload_format(
    query: Option<&str>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<&'static str, ApiError> {
    if let Some(f) = query {
        return match f {
            "json" => Ok("json"),
            "csv" => Ok("csv"),
            "trf" => Ok("trf"),
            other => Err(refused(
                StatusCode::BAD_REQUEST,
                format!("format {other:?}: expected json, csv or trf"),
            )),
        };
    }
    let mime = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match mime.as_str() {
        "application/json" => return Ok("json"),
        "text/csv" | "application/csv" | "text/comma-separated-values" => return Ok("csv"),
        "application/x-trf" | "text/x-trf" => return Ok("trf"),
        "" | "text/plain" | "application/octet-stream" => {}
        other => {
            return Err(refused(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "Content-Type {other:?}: a player upload is application/json, text/csv or a \
                     TRF (or say which with ?format=json|csv|trf)"
                ),
            ));
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if text.starts_with('{') {
        return Ok("json");
    }
    let first = text.lines().next().unwrap_or("");
    let tag = first.get(..3).unwrap_or("");
    let trf_tag = tag.bytes().all(|b| b.is_ascii_digit()) && first.as_bytes().get(3) == Some(&b' ');
    Ok(if trf_tag { "trf" } else { "csv" })
}

#[derive(Deserialize)]
pub(super) struct RatingsQuery {
    rating: Option<String>,
}

/// `POST /api/events/{id}/ratings[?rating=standard|rapid|blitz]`: a FIDE rating list
/// fills ratings and ids (by FIDE id, else by name).
pub(super) async fn ratings(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Director {
        id,
        h,
        snap,
        who: w,
        ..
    }: Director,
    Query(q): Query<RatingsQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    use flagfall_events::rating_list::{self, ListRating};
    let rating: ListRating = q
        .rating
        .as_deref()
        .unwrap_or("blitz")
        .parse()
        .map_err(|e: EventError| event_error(e))?;
    let ticket = admit(&s, addr, Some(&id))?;
    // Reading a rating list of megabytes: off the async workers.
    let (found, ticket) = s
        .cpu
        .run(None, move || {
            let text: String = match String::from_utf8(body.to_vec()) {
                Ok(t) => t,
                Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
            };
            rating_list::lookup(&text, "the rating list", &snap.event.players, rating)
                .map_err(|e| refused(StatusCode::BAD_REQUEST, e.to_string()))
                .map(|found| (found, ticket))
        })
        .await??;
    let updated = found.updates.len();
    if updated > 0 {
        h.run_as(
            Op::Changes(vec![Change::UpdatePlayers {
                updates: found.updates.clone(),
            }]),
            origin(&w),
            asker(&w, addr, ticket),
        )
        .await?;
    }
    // Counts of an evening's players and of a list's lines: far below 2^32.
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(axum::Json(ev::RatingLookup {
        updated: count(updated),
        lines: count(found.lines),
        not_found: found.not_found,
        unknown_ids: found.unknown_ids,
        unrated: found.unrated,
        ambiguous: found.ambiguous,
    })
    .into_response())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PlayerActionBody {
    round: Option<u32>,
    kind: Option<RequestedBye>,
    from_round: Option<u32>,
}

/// `POST /api/events/{id}/players/{n}/{action}`: `check-in`, `check-out` (the director,
/// or the player with their own token), `withdraw`, `reinstate`, `pause`, `resume`,
/// `bye` (`{"round", "kind": "half"|"zero"|"full"}`; the player may ask), `cancel-bye`
/// (`{"round"}`), `remove` (before round 1).
pub(super) async fn player_action(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Path((_, n, action)): Path<(String, u32, String)>,
    Member {
        id,
        h,
        snap,
        who: w,
    }: Member,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: PlayerActionBody = if body.is_empty() {
        PlayerActionBody::default()
    } else {
        parse(&body, "body")?
    };
    let own = matches!(&w, Who::Player(name) if snap.number_of(name) == Some(n));
    // An action the server does not know is refused after the token is checked, as a
    // player's token is told what only the director may do.
    let act = action.parse::<PlayerAction>().ok();
    let player_may = act.is_some_and(PlayerAction::players_own);
    if !(w.is_director() || own && player_may) {
        return Err(refused(
            StatusCode::FORBIDDEN,
            format!(
                "only the director may {action} player {n}{}",
                if player_may {
                    " (or the player, with their own link)"
                } else {
                    ""
                }
            ),
        ));
    }
    let Some(act) = act else {
        let known: Vec<&str> = PlayerAction::ALL.iter().map(|a| a.name()).collect();
        return Err(refused(
            StatusCode::NOT_FOUND,
            format!("no player action {action:?} ({})", known.join(", ")),
        ));
    };
    let change = action_change(act, n, &b)?;
    let ticket = admit_reader(&s, addr, &id, &Viewer::of(&h.now(), Some(&w)))?;
    let done = h
        .run_as(
            Op::Changes(vec![change]),
            origin(&w),
            asker(&w, addr, ticket),
        )
        .await?;
    Ok(answer(&h, &done))
}

/// The change a player action `act` on player `n` asks for, with its body `b`.
fn action_change(act: PlayerAction, n: u32, b: &PlayerActionBody) -> Result<Change, ApiError> {
    let need_round = || {
        b.round
            .ok_or_else(|| refused(StatusCode::BAD_REQUEST, "field `round`: missing"))
    };
    Ok(match act {
        PlayerAction::CheckIn => Change::CheckIn { player: n },
        PlayerAction::CheckOut => Change::CheckOut { player: n },
        PlayerAction::Withdraw => Change::Withdraw {
            player: n,
            from_round: b.from_round,
        },
        PlayerAction::Reinstate => Change::Reinstate { player: n },
        PlayerAction::Pause => Change::Pause { player: n },
        PlayerAction::Resume => Change::Resume { player: n },
        PlayerAction::Remove => Change::RemovePlayer { player: n },
        PlayerAction::Bye => Change::RequestBye {
            player: n,
            round: need_round()?,
            kind: b.kind.ok_or_else(|| {
                refused(
                    StatusCode::BAD_REQUEST,
                    "field `kind`: missing (half, zero or full)",
                )
            })?,
        },
        PlayerAction::CancelBye => Change::CancelBye {
            player: n,
            round: need_round()?,
        },
    })
}

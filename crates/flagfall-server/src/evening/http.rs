//! The evening's routes (docs/protocol.md, "Evenings"). Director routes take
//! `Authorization: Bearer TOKEN`: no token is 401, a token that is not the director's
//! (or a deputy's) 403. A refused change answers what is wrong and leaves the evening as
//! it was.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket};
use axum::extract::{
    DefaultBodyLimit, FromRequestParts, Path, Query, RawPathParams, State, WebSocketUpgrade,
};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use flagfall_events::change::{Change, Origin};
use flagfall_events::event::{
    ByeKind, Event, EventError, Format, NewPlayer, RecordedResult, ReportInfo, RequestedBye,
};
use flagfall_events::{export, import, uscf};
use flagfall_protocol::Mode;
use flagfall_protocol::evening::{self as ev, PlayerAction};
use serde::Deserialize;
use serde_json::{Value, json};

use super::task::{self, Asker, Done, EveningHandle, Op, Refusal};
use super::view::Viewer;
use super::{Confirm, Play, Settings, Snap, Who, view};
use crate::Shared;
use crate::cpu::Ticket;
use crate::http::ApiError;
use crate::limits::ClientAddress;

type AppState = Arc<Shared>;

/// The largest body an evening's route takes (a CSV or TRF of players, an event file).
pub const MAX_EVENING_BODY: usize = 4 * 1024 * 1024;

/// The routes, with their own body limit (uploads are larger than a game's bodies).
/// Creating or importing an evening counts against the per-address limit of evenings.
pub fn routes(shared: &Shared) -> Router<AppState> {
    let limited = crate::limits::limited_by(shared.evening_creations.clone());
    Router::new()
        .route("/api/events", limited(post(create)))
        .route("/api/events/import", limited(post(import_event)))
        .route("/api/events/{id}", get(get_event))
        .route("/api/events/{id}/deputy", post(deputy))
        .route("/api/events/{id}/players", post(add_players))
        .route("/api/events/{id}/links", get(get_links))
        .route("/api/events/{id}/ratings", post(ratings))
        .route(
            "/api/events/{id}/players/{n}",
            axum::routing::put(edit_player),
        )
        .route("/api/events/{id}/players/{n}/{action}", post(player_action))
        .route("/api/events/{id}/forbidden", post(forbid))
        .route("/api/events/{id}/report", axum::routing::put(set_report))
        .route("/api/events/{id}/rounds", post(pair_next))
        .route(
            "/api/events/{id}/rounds/{r}",
            get(get_round).delete(delete_round).put(override_round),
        )
        .route(
            "/api/events/{id}/rounds/{r}/boards/{b}/result",
            post(set_result),
        )
        .route(
            "/api/events/{id}/rounds/{r}/pair-again",
            post(super::rounds::pair_again),
        )
        .route("/api/events/{id}/standings", get(get_standings))
        .route("/api/events/{id}/crosstable", get(get_crosstable))
        .route("/api/events/{id}/rating-changes", get(get_rating_changes))
        .route("/api/events/{id}/log", get(get_log))
        .route("/api/events/{id}/me", get(get_me))
        .route("/api/events/{id}/export/{kind}", get(export_as))
        .route("/ws/events/{id}", get(live))
        .layer(DefaultBodyLimit::max(MAX_EVENING_BODY))
        .layer(axum::middleware::map_response(
            crate::limits::security_headers,
        ))
}

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
fn admit_reader(
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
async fn job<T: Send + 'static>(
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

async fn evening(s: &AppState, id: &str) -> Result<EveningHandle, ApiError> {
    match task::handle(s, id).await {
        Ok(Some(h)) => Ok(h),
        Ok(None) => Err(refused(StatusCode::NOT_FOUND, format!("no event {id:?}"))),
        Err(e) => Err(ApiError::Failed(e)),
    }
}

/// The evening a route names by its `{id}`, loaded: 404 when there is none. An axum
/// extractor, so that a handler names what it needs instead of loading it.
struct Loaded {
    id: String,
    h: EveningHandle,
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
struct Member {
    id: String,
    h: EveningHandle,
    snap: Arc<Snap>,
    who: Who,
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
fn who(snap: &Snap, headers: &HeaderMap) -> Result<Who, ApiError> {
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
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// Who reads a public route: the public without a token; a token that is not the
/// evening's is 403 (it was meant to show more).
fn reader(snap: &Snap, headers: &HeaderMap) -> Result<Viewer, ApiError> {
    if headers.get(header::AUTHORIZATION).is_none() {
        return Ok(Viewer::Public);
    }
    let w = who(snap, headers)?;
    Ok(Viewer::of(snap, Some(&w)))
}

fn director(snap: &Snap, headers: &HeaderMap) -> Result<Who, ApiError> {
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    name: String,
    format: String,
    rounds: Option<u32>,
    time_control: String,
    rules: String,
    play: Play,
    mode: Option<Mode>,
    tiebreaks: Option<String>,
    pab_points: Option<String>,
    confirm: Option<Confirm>,
    #[serde(default)]
    auto: bool,
    /// Players must check in to be paired (default: on).
    check_in: Option<bool>,
    site: Option<String>,
    date: Option<String>,
    /// What the rating reports need (city, state, ZIP, US Chess affiliate and TDs, ...).
    report: Option<Value>,
}

/// The report details (`report` of the create body, `PUT .../report`): the events
/// library's `ReportInfo`, every key known.
fn report_info(v: Value) -> Result<ReportInfo, ApiError> {
    const KEYS: [&str; 11] = [
        "end_date",
        "city",
        "state",
        "zip",
        "country",
        "federation",
        "chief_arbiter",
        "deputy_arbiters",
        "uscf_affiliate",
        "uscf_chief_td",
        "uscf_assistant_td",
    ];
    let Value::Object(map) = &v else {
        return Err(refused(
            StatusCode::BAD_REQUEST,
            "field `report`: expected an object",
        ));
    };
    if let Some(k) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(refused(
            StatusCode::BAD_REQUEST,
            format!(
                "field `report`: unknown key {k:?} (known: {})",
                KEYS.join(", ")
            ),
        ));
    }
    serde_json::from_value(v)
        .map_err(|e| refused(StatusCode::BAD_REQUEST, format!("field `report`: {e}")))
}

fn created(id: &str, director: &str) -> Response {
    (
        StatusCode::CREATED,
        axum::Json(ev::EveningCreated {
            id: id.to_string(),
            director_token: director.to_string(),
            urls: ev::EveningUrls {
                director: format!("/events/{id}/direct?token={director}"),
                projector: format!("/events/{id}/projector"),
                join: format!("/events/{id}/join"),
            },
        }),
    )
        .into_response()
}

/// `POST /api/events`.
async fn create(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: CreateBody = parse(&body, "event body")?;
    let most = s.limits.evening_rounds;
    if let Some(r) = b.rounds
        && r > most
    {
        return Err(refused(
            StatusCode::BAD_REQUEST,
            format!(
                "field `rounds`: {r}; an evening on this server plays at most {most} (--evening-rounds)"
            ),
        ));
    }
    let format: Format = b.format.parse().map_err(|e: EventError| event_error(e))?;
    let mut event = Event::new(&b.name, format, b.rounds).map_err(event_error)?;
    event.set_ruleset(&b.rules).map_err(event_error)?;
    event
        .set_time_control(&b.time_control)
        .map_err(event_error)?;
    if let Some(t) = &b.tiebreaks {
        event.set_tiebreaks(t).map_err(event_error)?;
    }
    if let Some(p) = &b.pab_points {
        event.set_pab_points(p).map_err(event_error)?;
    }
    event.set_site(b.site.as_deref()).map_err(event_error)?;
    event.set_date(b.date.as_deref()).map_err(event_error)?;
    if let Some(r) = b.report {
        event.set_report(report_info(r)?).map_err(event_error)?;
    }
    event.check_in = b.check_in.unwrap_or(true);
    event.paper_mode = b.play == Play::Board;
    // The game setup the server will create must be valid: checked now, not at round 1.
    let probe: flagfall_protocol::CreateGame = serde_json::from_value(json!({
        "rules": b.rules, "time_control": b.time_control, "mode": b.mode.unwrap_or_default(),
    }))
    .map_err(|e| refused(StatusCode::BAD_REQUEST, e.to_string()))?;
    probe.setup_line()?;
    let settings = Settings {
        play: b.play,
        mode: b.mode.unwrap_or_default(),
        confirm: b.confirm.unwrap_or(Confirm::One),
        auto: b.auto,
    };
    let (id, director) = task::create(&s, event, settings, addr).await?;
    Ok(created(&id, &director))
}

#[derive(Deserialize, Default)]
struct ImportQuery {
    play: Option<Play>,
    mode: Option<Mode>,
    confirm: Option<Confirm>,
}

/// `POST /api/events/import?play=board`: an event file (`flagfall event`'s JSON) becomes
/// an evening on this server, its log kept.
async fn import_event(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Query(q): Query<ImportQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let ticket = admit(&s, addr, None)?;
    let limits = s.limits.clone();
    // Reading and checking a file of thousands of players: off the async workers.
    let event = job(&s, ticket, move || {
        let mut event: Event = parse(&body, "event file")?;
        event.upgrade();
        event
            .validate()
            .and_then(|()| flagfall_events::text::event(&event))
            .map_err(|e| refused(StatusCode::BAD_REQUEST, format!("event file: {e}")))?;
        let zero = task::Sizes {
            players: 0,
            rounds: 0,
            forbidden: 0,
            log_bytes: 0,
        };
        // The file's log is part of its body (at most 4 MiB): within any log limit.
        task::Sizes::of_event(&event, 0)
            .check(&zero, &limits)
            .map_err(ApiError::from)?;
        Ok::<_, ApiError>(event)
    })
    .await??;
    let play = q.play.unwrap_or(Play::Board);
    if play == Play::Server {
        return Err(refused(
            StatusCode::BAD_REQUEST,
            "an imported event is played on boards (`play=board`): its players have no links yet",
        ));
    }
    let settings = Settings {
        play,
        mode: q.mode.unwrap_or_default(),
        confirm: q.confirm.unwrap_or(Confirm::One),
        auto: false,
    };
    let (id, director) = task::create(&s, event, settings, addr).await?;
    Ok(created(&id, &director))
}

/// `GET /api/events/{id}` (with the director's token, or a player's, the disagreements
/// they may read).
async fn get_event(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Loaded { id, h }: Loaded,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let snap = h.now();
    let viewer = reader(&snap, &headers)?;
    // Every player and setting (thousands of players): off the async workers.
    let ticket = admit_reader(&s, addr, &id, &viewer)?;
    let v = job(&s, ticket, move || view::summary(&snap, viewer)).await?;
    Ok(axum::Json(v).into_response())
}

/// `POST /api/events/{id}/deputy`: a second director token.
async fn deputy(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Member { id, h, who: w, .. }: Member,
) -> Result<Response, ApiError> {
    if w != Who::Director {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "only the director makes a deputy's token",
        ));
    }
    let ticket = admit(&s, addr, Some(&id))?;
    let done = h
        .run_as(Op::Deputy, origin(&w), asker(&w, addr, ticket))
        .await?;
    let token = done.tokens.first().map(|t| t.1.clone()).unwrap_or_default();
    Ok((
        StatusCode::CREATED,
        axum::Json(ev::DeputyCreated {
            deputy_token: token,
        }),
    )
        .into_response())
}

#[derive(Deserialize)]
struct PlayersQuery {
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
async fn add_players(
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
async fn edit_player(
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
/// deriving the token the director's entry gave ([`super::player_token`]) and checking
/// it against the stored hash; a player entered by a deputy (random token) or brought in
/// by an imported file (no token) has `"link": null` and says why.
async fn get_links(
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
fn links(snap: &Snap, token: &str) -> Vec<ev::PlayerLink> {
    let id = &snap.id;
    snap
        .event
        .players
        .iter()
        .map(|p| {
            let mine = super::player_token(token, &snap.id, &p.name);
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
struct RatingsQuery {
    rating: Option<String>,
}

/// `POST /api/events/{id}/ratings[?rating=standard|rapid|blitz]`: a FIDE rating list
/// fills ratings and ids (by FIDE id, else by name).
async fn ratings(
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
async fn player_action(
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
    let need_round = || {
        b.round
            .ok_or_else(|| refused(StatusCode::BAD_REQUEST, "field `round`: missing"))
    };
    let change = match act {
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
    };
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

pub(super) fn answer(h: &EveningHandle, done: &Done) -> Response {
    let snap = h.now();
    axum::Json(ev::ChangeAnswer {
        effects: effects(&done.effects),
        seq: snap.seq,
    })
    .into_response()
}

/// The effects of a change as the wire carries them.
fn effects(effects: &[flagfall_events::change::Effect]) -> ev::Effects {
    effects
        .iter()
        .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForbidBody {
    a: u32,
    b: u32,
    note: Option<String>,
    #[serde(default)]
    allow: bool,
}

/// `POST /api/events/{id}/forbidden` `{"a", "b", "note"?}` (or `"allow": true` to lift).
async fn forbid(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Director { id, h, who: w, .. }: Director,
    body: Bytes,
) -> Result<Response, ApiError> {
    let f: ForbidBody = parse(&body, "forbidden pair")?;
    let change = if f.allow {
        Change::Allow { a: f.a, b: f.b }
    } else {
        Change::Forbid {
            a: f.a,
            b: f.b,
            note: f.note,
        }
    };
    let ticket = admit(&s, addr, Some(&id))?;
    let done = h
        .run_as(
            Op::Changes(vec![change]),
            origin(&w),
            asker(&w, addr, ticket),
        )
        .await?;
    Ok(answer(&h, &done))
}

/// `PUT /api/events/{id}/report` (director): the details the rating reports need
/// (`{"city", "state", "zip", "uscf_affiliate", "uscf_chief_td", ...}`), replacing
/// those set before, and the start `date` and `site` when the body names them; logged.
async fn set_report(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Director { id, h, who: w, .. }: Director,
    body: Bytes,
) -> Result<Response, ApiError> {
    let mut v: Value = parse(&body, "report")?;
    // The start date and the site go with the details (the reports need them), each
    // left as it is when the body does not name it; `""` clears.
    let mut take = |key: &str| -> Result<Option<String>, ApiError> {
        match v.as_object_mut().and_then(|m| m.remove(key)) {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(String::new())),
            Some(Value::String(t)) => Ok(Some(t.trim().to_string())),
            Some(other) => Err(refused(
                StatusCode::BAD_REQUEST,
                format!("field `{key}`: expected text, not {other}"),
            )),
        }
    };
    let date = take("date")?;
    let site = take("site")?;
    let info = report_info(v)?;
    flagfall_events::text::report(&info).map_err(event_error)?;
    if let Some(d) = date.as_deref().filter(|d| !d.is_empty()) {
        flagfall_events::text::date("date", d).map_err(event_error)?;
    }
    let ticket = admit(&s, addr, Some(&id))?;
    let done = h
        .run_as(
            Op::SetReport {
                report: Box::new(info),
                date,
                site,
            },
            origin(&w),
            asker(&w, addr, ticket),
        )
        .await?;
    Ok(answer(&h, &done))
}

/// `POST /api/events/{id}/rounds`: pair the next round (with server play, its games are
/// created). 201 with the round.
async fn pair_next(
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

async fn get_round(
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
async fn delete_round(
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
async fn override_round(
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
async fn set_result(
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

async fn get_standings(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Loaded { id, h }: Loaded,
) -> Result<Response, ApiError> {
    let ticket = admit(&s, addr, Some(&id))?;
    let snap = h.now();
    let v = job(&s, ticket, move || view::standings(&snap.event)).await?;
    Ok(axum::Json(v.map_err(event_error)?).into_response())
}

async fn get_crosstable(
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
async fn get_rating_changes(
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
async fn get_log(
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
async fn get_me(Member { snap, who: w, .. }: Member) -> Result<Response, ApiError> {
    match w {
        Who::Player(name) => Ok(axum::Json(view::me(&snap, &name)).into_response()),
        _ => Err(refused(
            StatusCode::BAD_REQUEST,
            "`me` is a player's view: use a player's token",
        )),
    }
}

#[derive(Deserialize, Default)]
struct ExportQuery {
    round: Option<String>,
}

/// The round `?round=N` names: a paired round, or a refusal naming what is wrong.
fn export_round(snap: &Snap, kind: &str, raw: Option<&str>) -> Result<Option<u32>, ApiError> {
    let Some(raw) = raw else { return Ok(None) };
    if kind != "pgn" {
        return Err(refused(
            StatusCode::BAD_REQUEST,
            format!("?round= is for the PGN export only (export/pgn?round=N), not {kind}"),
        ));
    }
    let paired = snap.event.rounds_paired();
    match raw.trim().parse::<u32>() {
        Ok(r) if (1..=paired).contains(&r) => Ok(Some(r)),
        _ => Err(refused(
            StatusCode::NOT_FOUND,
            format!(
                "no round {raw:?} to export: {}",
                if paired == 0 {
                    "no round is paired yet".to_string()
                } else {
                    format!("rounds 1 to {paired} are paired")
                }
            ),
        )),
    }
}

/// `GET /api/events/{id}/export/{trf|pgn|csv|json}`: TRF-2026, PGN (with server play,
/// every server game with its moves, clocks and rulings), standings CSV; `json` (the
/// director's) is the event file `flagfall event` reads. `pgn?round=N`: that round's
/// games only, public while the round is played (a Broadcast's source: the moves and
/// clocks so far, `*` until a game's result is in).
async fn export_as(
    State(s): State<AppState>,
    ClientAddress(addr): ClientAddress,
    Path((_, kind)): Path<(String, String)>,
    Query(q): Query<ExportQuery>,
    Loaded { id, h }: Loaded,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let snap = h.now();
    let only = export_round(&snap, &kind, q.round.as_deref())?;
    if kind.starts_with("uscf-") || kind == "json" {
        director(&snap, &headers)?;
    }
    if !matches!(kind.as_str(), "trf" | "csv" | "pgn" | "json") && !kind.starts_with("uscf-") {
        return Err(refused(
            StatusCode::NOT_FOUND,
            format!(
                "no export {kind:?} (trf, pgn, csv, json, uscf-event, uscf-section, uscf-detail)"
            ),
        ));
    }
    let ticket = admit(&s, addr, Some(&id))?;
    if kind == "pgn" && snap.settings.play == Play::Server {
        // The games' scripts from the store, then their PGN off the async workers.
        let games = server_games(&s, &snap, only).await?;
        let file = download_name(&snap.event.name, "pgn");
        let text = job(&s, ticket, move || server_pgn(&snap, games)).await??;
        return Ok((
            [
                (header::CONTENT_TYPE, "application/x-chess-pgn".to_string()),
                (header::CONTENT_DISPOSITION, file),
            ],
            text,
        )
            .into_response());
    }
    // Every export is made off the async workers.
    job(&s, ticket, move || {
        let event = &snap.event;
        if let Some(file) = kind.strip_prefix("uscf-") {
            return uscf_file(event, file);
        }
        let (mime, text) = match kind.as_str() {
            "trf" => ("text/plain; charset=utf-8", export::trf(event)),
            "csv" => {
                let st = event.standings(None, None).map_err(event_error)?;
                // The byte order mark: Excel reads the file as UTF-8 (accented names)
                // only with it.
                (
                    "text/csv; charset=utf-8",
                    format!("\u{feff}{}", export::standings_csv(event, &st)),
                )
            }
            "pgn" => ("application/x-chess-pgn", export::pgn_of(event, only)),
            _ => (
                "application/json",
                serde_json::to_string_pretty(event)
                    .map_err(|e| ApiError::Failed(crate::ServerError::serialise("the event")(e)))?
                    + "\n",
            ),
        };
        let ext = if kind == "csv" {
            "standings.csv"
        } else {
            kind.as_str()
        };
        let file = download_name(&event.name, ext);
        Ok((
            [
                (header::CONTENT_TYPE, mime.to_string()),
                (header::CONTENT_DISPOSITION, file),
            ],
            text,
        )
            .into_response())
    })
    .await?
}

/// `Content-Disposition` of an export: saved as a file named by the evening
/// (`friday-blitz.pgn`): letters and digits without their accents, lower case, the rest
/// one hyphen; at most 60 characters; `evening` when nothing is left.
fn download_name(event_name: &str, ext: &str) -> String {
    format!("attachment; filename=\"{}.{ext}\"", file_stem(event_name))
}

fn file_stem(event_name: &str) -> String {
    let mut stem = String::new();
    for ch in event_name.chars() {
        let folded = if ch.is_ascii_alphanumeric() {
            Some(ch.to_ascii_lowercase())
        } else if ch.is_alphanumeric() {
            flagfall_events::rating_list::name_key(&ch.to_string())
                .chars()
                .next()
                .filter(char::is_ascii_alphanumeric)
        } else {
            None
        };
        match folded {
            Some(c) => stem.push(c),
            None if !stem.is_empty() && !stem.ends_with('-') => stem.push('-'),
            None => {}
        }
        if stem.len() >= 60 {
            break;
        }
    }
    let stem = stem.trim_end_matches('-');
    if stem.is_empty() {
        "evening".to_string()
    } else {
        stem.to_string()
    }
}

/// One of US Chess's three rating-report files (dBase III), by the name of its table:
/// `event` (`THEXPORT.DBF`), `section` (`TSEXPORT.DBF`), `detail` (`TDEXPORT.DBF`).
/// `409` naming what the report still needs (details, results); the notes US Chess will
/// ask about (players without an id, ...) in `X-Uscf-Notes`.
fn uscf_file(event: &Event, file: &str) -> Result<Response, ApiError> {
    let index = match file {
        "event" => 0,
        "section" => 1,
        "detail" => 2,
        other => {
            return Err(refused(
                StatusCode::NOT_FOUND,
                format!("no US Chess file {other:?} (uscf-event, uscf-section, uscf-detail)"),
            ));
        }
    };
    let files = uscf::report(event, today()).map_err(|e| {
        // The library names the command line's options; on the server the details are
        // the console's (or `PUT .../report`'s).
        let hint = if matches!(e, uscf::UscfError::Missing(_)) {
            " (set them in the director console's Report details, or with PUT \
             /api/events/{id}/report)"
        } else {
            ""
        };
        refused(
            StatusCode::CONFLICT,
            format!("the US Chess report cannot be made: {e}{hint}"),
        )
    })?;
    let (name, bytes) = files.named()[index];
    // The evening's name before US Chess's own name of the table (its upload page asks
    // for each of the three files by that name).
    let name = format!("{}-{name}", file_stem(&event.name));
    // A header is ASCII: the names in it transliterated (`Jose Nunez-Muller`).
    let notes = uscf::ascii(&files.notes.join("; "));
    let mut response = (
        [
            (header::CONTENT_TYPE, "application/dbase".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        bytes.to_vec(),
    )
        .into_response();
    if !notes.is_empty()
        && let Ok(v) = axum::http::HeaderValue::from_str(&notes)
    {
        response.headers_mut().insert("x-uscf-notes", v);
    }
    Ok(response)
}

/// Today (UTC), the DBF files' "last update".
fn today() -> uscf::FileDate {
    // Days since 1970-01-01 to a civil date (Howard Hinnant's civil_from_days).
    let days = crate::now_unix_ms().div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    uscf::FileDate {
        year: u16::try_from(year).unwrap_or(2000),
        month: u8::try_from(month).unwrap_or(1),
        day: u8::try_from(day).unwrap_or(1),
    }
}

/// One server game of an evening as stored: where it is played and its script text
/// (its setup and events).
struct ServerGame {
    round: u32,
    board: u32,
    /// 0-based, of `games` on the board.
    game: usize,
    games: usize,
    text: String,
}

/// A server evening's games as stored (of round `only`, or all), in the order of the
/// rounds and boards.
async fn server_games(
    s: &AppState,
    snap: &Snap,
    only: Option<u32>,
) -> Result<Vec<ServerGame>, ApiError> {
    let mut out = Vec::new();
    for r in &snap.event.round_list {
        if only.is_some_and(|o| o != r.number) {
            continue;
        }
        for b in &r.boards {
            for (g, rec) in b.games.iter().enumerate() {
                let Some(gid) = &rec.game else { continue };
                let Some(row) = s
                    .store
                    .game(gid)
                    .await
                    .map_err(|e| ApiError::Failed(e.into()))?
                else {
                    continue;
                };
                let events = s
                    .store
                    .events(gid)
                    .await
                    .map_err(|e| ApiError::Failed(e.into()))?;
                let mut text = row.game.setup.clone();
                text.push('\n');
                for e in events {
                    text.push_str(&e.json);
                    text.push('\n');
                }
                out.push(ServerGame {
                    round: r.number,
                    board: b.number,
                    game: g,
                    games: b.games.len(),
                    text,
                });
            }
        }
    }
    Ok(out)
}

/// The server evening's PGN: each game's own PGN (moves, clock times and rulings as
/// comments) with the round and board (the `Round` tag as [`export::pgn_round_tag`]
/// writes it for every evening, and a `Board` tag).
fn server_pgn(snap: &Snap, games: Vec<ServerGame>) -> Result<String, ApiError> {
    let mut out = String::new();
    for g in games {
        let script = flagfall_game::script::parse(&g.text).map_err(|e| {
            ApiError::Failed(crate::ServerError::Corrupt(format!(
                "game {}.{}: {e}",
                g.round, g.board
            )))
        })?;
        let game_pgn = flagfall_game::pgn::to_pgn(&script);
        out.push_str(&format!(
            "[Event \"{}\"]\n{}[Round \"{}\"]\n[Board \"{}\"]\n",
            flagfall_game::pgn::tag_value(&snap.event.name),
            export::pgn_site_date(&snap.event),
            export::pgn_round_tag(g.round, g.board, g.game, g.games),
            g.board,
        ));
        // The game's own tags follow (its Event, Site, Date and Round are the evening's).
        out.push_str(
            &game_pgn
                .lines()
                .filter(|l| {
                    !["[Event ", "[Round ", "[Site ", "[Date "]
                        .iter()
                        .any(|t| l.starts_with(t))
                })
                .collect::<Vec<_>>()
                .join("\n"),
        );
        out.push_str("\n\n");
    }
    Ok(out)
}

#[derive(Deserialize, Default)]
struct LiveQuery {
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
async fn live(
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
    use crate::socket::{Admit, close};
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
            msg = rx.recv() => match msg {
                Ok(live) => {
                    let text = if director { Some(&live.director) } else { live.public.as_ref() };
                    if let Some(text) = text
                        && send_live(&mut socket, Message::Text(text.to_string().into())).await.is_err()
                    {
                        return;
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    // Too far behind: the whole state again.
                    let Some(again) = live_state(&s, &h, viewer, None).await else { return };
                    if send_live(&mut socket, Message::Text(again.into())).await.is_err() {
                        return;
                    }
                }
                Err(_) => return,
            },
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
                let frame = match incoming {
                    None | Some(Ok(Message::Close(_))) => return,
                    Some(Err(e)) => {
                        let mut reason = format!("closing: {e}");
                        while reason.len() > 120 {
                            reason.pop();
                        }
                        let _ = send_live(&mut socket, close(crate::limits::close_code_for(e), &reason)).await;
                        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                        return;
                    }
                    Some(Ok(f)) => f,
                };
                // The answer to this socket's own ping, once, is free; every other frame
                // counts against the rate and the flood close, and is otherwise ignored.
                if let Message::Pong(p) = &frame
                    && pings.pong(p.as_ref())
                {
                    continue;
                }
                match limit.take() {
                    Admit::Yes | Admit::Dropped => {}
                    Admit::Flooding => {
                        s.metrics.frame_errors.inc();
                        let _ = send_live(&mut socket, close(close_code::POLICY, "flooding: too many messages a second")).await;
                        // The closing handshake: what the client still sends is read (and
                        // dropped) until its close, for a second at most; closing at once
                        // would reset the connection over the unread frames, and the
                        // client could lose the close frame to the reset.
                        let until = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
                        while let Ok(Some(Ok(m))) = tokio::time::timeout_at(until, socket.recv()).await {
                            if matches!(m, Message::Close(_)) {
                                break;
                            }
                        }
                        return;
                    }
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

/// A log entry as the wire carries it.
fn log_entry(e: &flagfall_events::change::LogEntry) -> ev::LogEntryView {
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

//! An evening made (`POST /api/events`) or imported from an event file, read whole, its
//! deputy director, its forbidden pairs and the details its rating reports need.

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use flagfall_events::change::Change;
use flagfall_events::event::{Event, EventError, Format, ReportInfo};
use flagfall_protocol::Mode;
use flagfall_protocol::evening as ev;
use serde::Deserialize;
use serde_json::{Value, json};

use super::model::{Confirm, Play, Settings, Who};
use super::request::{
    AppState, Director, Loaded, Member, admit, admit_reader, answer, asker, event_error, job,
    origin, parse, reader, refused,
};
use super::task::{self, Op};
use super::view;
use crate::api::ApiError;
use crate::limits::ClientAddress;

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

pub(super) fn created(id: &str, director: &str) -> Response {
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
pub(super) async fn create(
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
pub(super) struct ImportQuery {
    play: Option<Play>,
    mode: Option<Mode>,
    confirm: Option<Confirm>,
}

/// `POST /api/events/import?play=board`: an event file (`flagfall event`'s JSON) becomes
/// an evening on this server, its log kept.
pub(super) async fn import_event(
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
pub(super) async fn get_event(
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
pub(super) async fn deputy(
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
#[serde(deny_unknown_fields)]
struct ForbidBody {
    a: u32,
    b: u32,
    note: Option<String>,
    #[serde(default)]
    allow: bool,
}

/// `POST /api/events/{id}/forbidden` `{"a", "b", "note"?}` (or `"allow": true` to lift).
pub(super) async fn forbid(
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
pub(super) async fn set_report(
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

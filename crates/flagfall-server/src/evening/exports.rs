//! The evening's files (`GET /api/events/{id}/export/{kind}`): TRF, PGN, standings CSV,
//! the event file, and US Chess's rating-report files.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use flagfall_events::event::Event;
use flagfall_events::{export, uscf};
use serde::Deserialize;

use super::model::{Play, Snap};
use super::request::{AppState, Loaded, admit, director, event_error, job, refused};
use crate::api::ApiError;
use crate::limits::ClientAddress;

#[derive(Deserialize, Default)]
pub(super) struct ExportQuery {
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
pub(super) async fn export_as(
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
    job(&s, ticket, move || event_file(&snap.event, &kind, only)).await?
}

/// The export `kind` of `event` (`only`: one round's PGN): the US Chess report's files,
/// TRF, standings CSV, PGN or the event file; run on the evenings' work thread.
fn event_file(event: &Event, kind: &str, only: Option<u32>) -> Result<Response, ApiError> {
    if let Some(file) = kind.strip_prefix("uscf-") {
        return uscf_file(event, file);
    }
    let (mime, text) = match kind {
        // More players than a TRF numbers (9,999): `409` naming the limit and the
        // count, as the US Chess report's refusals are answered.
        "trf" => (
            "text/plain; charset=utf-8",
            export::trf(event).map_err(|e| refused(StatusCode::CONFLICT, e.to_string()))?,
        ),
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
    let ext = if kind == "csv" { "standings.csv" } else { kind };
    let file = download_name(&event.name, ext);
    Ok((
        [
            (header::CONTENT_TYPE, mime.to_string()),
            (header::CONTENT_DISPOSITION, file),
        ],
        text,
    )
        .into_response())
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
    uscf::FileDate::of_unix_ms(crate::now_unix_ms())
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

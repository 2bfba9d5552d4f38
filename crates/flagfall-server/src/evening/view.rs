//! The JSON the evening's routes answer (docs/protocol.md, "Evenings").

use flagfall_events::change::Effect;
use flagfall_events::event::{Cell, Event, EventError, RecordedResult};
use flagfall_store::TournamentLogRow;
use serde_json::{Value, json};

use super::{Snap, Who};

/// A player by name and pairing number.
fn player(event: &Event, n: u32) -> Value {
    let name = event.player(n).map(|p| p.name.clone()).unwrap_or_default();
    json!({"name": name, "number": n})
}

fn result(r: RecordedResult) -> Value {
    match r {
        RecordedResult::Pending => Value::Null,
        r => json!(r.short()),
    }
}

/// `GET /api/events/{id}/rounds/{r}`.
pub fn round(snap: &Snap, r: u32) -> Result<Value, EventError> {
    let event = &snap.event;
    let paired = event.rounds_paired();
    let round = event
        .round_list
        .get((r as usize).wrapping_sub(1))
        .ok_or(EventError::UnknownRound { round: r, paired })?;
    let boards: Vec<Value> = round
        .boards
        .iter()
        .map(|b| {
            let games: Vec<Value> = b.games.iter().map(|g| json!(g.game)).collect();
            let mut v = json!({
                "board": b.number,
                "white": player(event, b.white),
                "black": player(event, b.black),
                "results": b.games.iter().map(|g| result(g.result)).collect::<Vec<_>>(),
            });
            if let Some(Some(first)) = b.games.first().map(|g| g.game.clone()) {
                v["game"] = json!(first);
            }
            if b.games.len() > 1 {
                v["games"] = json!(games);
            }
            if let Some(rep) = snap.reports.get(&(r, b.number))
                && !b.complete()
            {
                v["reported"] = json!({"white": rep.white.as_ref().map(|x| x.iter().map(|r| r.short()).collect::<Vec<_>>()),
                                        "black": rep.black.as_ref().map(|x| x.iter().map(|r| r.short()).collect::<Vec<_>>())});
            }
            v
        })
        .collect();
    let mut v = json!({"round": r, "boards": boards, "complete": round.complete()});
    if !round.byes.is_empty() {
        v["bye"] = round
            .byes
            .iter()
            .map(|b| {
                let mut p = player(event, b.player);
                p["kind"] = json!(b.kind);
                p
            })
            .collect();
    }
    if round.manual {
        v["manual_by"] = json!(round.manual_by);
    }
    Ok(v)
}

/// `GET /api/events/{id}/standings` (after the rounds complete).
pub fn standings(event: &Event) -> Result<Value, EventError> {
    let after = event.rounds_complete();
    let st = event.standings(Some(after), None)?;
    let names: Vec<String> = st.tiebreaks.iter().map(ToString::to_string).collect();
    let rows: Vec<Value> = st
        .rows
        .iter()
        .map(|row| {
            let p = event.players.get(row.player);
            let mut tb = serde_json::Map::new();
            for (name, v) in names.iter().zip(&row.values) {
                tb.insert(name.clone(), v.map_or(Value::Null, |v| json!(v.to_f64())));
            }
            json!({
                "rank": row.rank,
                "name": p.map(|p| p.name.clone()),
                "number": p.map(|p| p.id),
                "points": row.score.as_f64(),
                "tiebreaks": tb,
            })
        })
        .collect();
    Ok(json!({"after_round": after, "tiebreaks": names, "rows": rows}))
}

/// `GET /api/events/{id}/crosstable`: each player's rounds (opponent, colour, result).
pub fn crosstable(event: &Event) -> Value {
    let paired = event.rounds_paired();
    let rows: Vec<Value> = event
        .players
        .iter()
        .map(|p| {
            let rounds: Vec<Value> = (1..=paired)
                .map(|r| match event.cell(p.id, r) {
                    Cell::Paired {
                        board,
                        colour,
                        opponent,
                    } => {
                        let mine: Vec<Value> = board
                            .games
                            .iter()
                            .enumerate()
                            .map(|(g, rec)| {
                                let (w, _) = board.players_of_game(g);
                                let o = rec.result.white_outcome();
                                match o {
                                    None => Value::Null,
                                    Some(o) if w == p.id => json!(o),
                                    Some(o) => json!(o.mirrored()),
                                }
                            })
                            .collect();
                        json!({"round": r, "board": board.number, "opponent": opponent,
                               "colour": colour.name(), "results": mine})
                    }
                    Cell::Bye(kind) => json!({"round": r, "bye": kind}),
                })
                .collect();
            json!({"number": p.id, "name": p.name, "points": Event::score_text(event.score_after(p.id, paired)), "rounds": rounds})
        })
        .collect();
    json!({"rounds": paired, "players": rows})
}

/// `GET /api/events/{id}`: the evening (players, settings, rounds, disagreements).
pub fn summary(snap: &Snap) -> Value {
    let e = &snap.event;
    let players: Vec<Value> = e
        .players
        .iter()
        .map(|p| {
            json!({"number": p.id, "name": p.name, "rating": p.rating, "federation": p.federation,
                   "fide_id": p.fide_id, "uscf_id": p.uscf_id, "checked_in": p.checked_in,
                   "paused": p.paused, "joined_round": p.joined_round,
                   "withdrawn_from": p.withdrawn_from, "byes": p.byes})
        })
        .collect();
    let disagreements: Vec<Value> = snap
        .reports
        .iter()
        .filter(|((r, b), rep)| {
            let complete = e
                .round_list
                .get(*r as usize - 1)
                .and_then(|round| round.boards.iter().find(|x| x.number == *b))
                .is_none_or(|x| x.complete());
            !complete && rep.white.is_some() && rep.black.is_some() && rep.white != rep.black
        })
        .map(
            |((r, b), rep)| json!({"round": r, "board": b, "white": rep.white, "black": rep.black}),
        )
        .collect();
    json!({
        "id": snap.id, "name": e.name, "format": e.format.name(), "rounds": e.planned_rounds(),
        "rounds_paired": e.rounds_paired(), "rounds_complete": e.rounds_complete(),
        "time_control": e.time_control, "rules": e.ruleset, "play": snap.settings.play,
        "mode": snap.settings.mode, "confirm": snap.settings.confirm, "auto": snap.settings.auto,
        "check_in": e.check_in, "tiebreaks": e.tiebreaks, "players": players,
        "forbidden": e.forbidden, "disagreements": disagreements,
        "disputes": snap.disputes.values().collect::<Vec<_>>(), "seq": snap.seq,
    })
}

/// `GET /api/events/{id}/me`: a player's own view (their board this round, their game).
pub fn me(snap: &Snap, name: &str) -> Value {
    let e = &snap.event;
    let Some(p) = e.players.iter().find(|p| p.name == name) else {
        return json!({"name": name, "in_event": false});
    };
    let latest = e.rounds_paired();
    let mut v = json!({"name": p.name, "number": p.id, "in_event": true, "checked_in": p.checked_in,
                       "paused": p.paused, "withdrawn_from": p.withdrawn_from, "round": latest,
                       "points": Event::score_text(e.score_after(p.id, latest))});
    if latest > 0 {
        match e.cell(p.id, latest) {
            Cell::Paired {
                board,
                colour,
                opponent,
            } => {
                v["board"] = json!(board.number);
                v["colour"] = json!(colour.name());
                v["opponent"] = player(e, opponent);
                v["results"] = json!(
                    board
                        .games
                        .iter()
                        .map(|g| result(g.result))
                        .collect::<Vec<_>>()
                );
                let games: Vec<Value> = board
                    .games
                    .iter()
                    .filter_map(|g| g.game.as_ref())
                    .map(|id| json!({"id": id, "url": format!("/play/{id}")}))
                    .collect();
                if !games.is_empty() {
                    v["games"] = json!(games);
                }
            }
            Cell::Bye(kind) => v["bye"] = json!(kind),
        }
    }
    if let Ok(st) = e.standings(None, None)
        && let Some(row) = st.rows.iter().find(|r| r.player + 1 == p.id as usize)
    {
        v["rank"] = json!(row.rank);
    }
    v
}

/// The live socket's message after a commit: the log rows it stored, what followed,
/// and the views that changed (the latest round; the standings).
pub fn live_message(snap: &Snap, rows: &[TournamentLogRow], effects: &[Effect]) -> String {
    let entries: Vec<Value> = rows
        .iter()
        .map(|r| serde_json::from_str(&r.json).unwrap_or(Value::Null))
        .collect();
    let mut v = json!({"type": "change", "seq": snap.seq, "rows": entries, "effects": effects,
                       "disputes": snap.disputes.values().collect::<Vec<_>>()});
    let latest = snap.event.rounds_paired();
    let round_changed = effects.iter().any(|e| {
        matches!(
            e,
            Effect::RoundPaired { .. }
                | Effect::RoundDeleted { .. }
                | Effect::PairingReplaced { .. }
                | Effect::Repaired { .. }
                | Effect::ResultsChanged { .. }
                | Effect::GameChanged { .. }
        )
    });
    if round_changed && latest > 0 {
        v["round"] = round(snap, latest).unwrap_or(Value::Null);
    }
    let players_changed = effects.iter().any(|e| {
        matches!(
            e,
            Effect::PlayerChanged { .. } | Effect::PlayerAdded { .. } | Effect::Renumbered
        )
    });
    if players_changed {
        v["players"] = summary(snap)["players"].clone();
    }
    if effects.iter().any(|e| {
        matches!(
            e,
            Effect::StandingsChanged | Effect::RoundComplete { .. } | Effect::Renumbered
        )
    }) {
        v["standings"] = standings(&snap.event).unwrap_or(Value::Null);
    }
    v.to_string()
}

/// The live socket's message when a game of the evening begins or stops waiting for the
/// director: that game's dispute (or null) and all of them now.
pub fn dispute_message(snap: &Snap, game: &str) -> String {
    json!({
        "type": "dispute",
        "game": game,
        "dispute": snap.disputes.get(game),
        "disputes": snap.disputes.values().collect::<Vec<_>>(),
    })
    .to_string()
}

/// The first message of the live socket: everything.
pub fn live_state(snap: &Snap) -> String {
    let latest = snap.event.rounds_paired();
    json!({
        "type": "state",
        "event": summary(snap),
        "round": if latest > 0 { round(snap, latest).unwrap_or(Value::Null) } else { Value::Null },
        "standings": standings(&snap.event).unwrap_or(Value::Null),
    })
    .to_string()
}

/// Who may see a director's view.
pub fn is_director(who: Option<&Who>) -> bool {
    who.is_some_and(Who::is_director)
}

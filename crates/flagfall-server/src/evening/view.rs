//! The JSON the evening's routes answer (docs/protocol.md, "Evenings").

use flagfall_events::change::Effect;
use flagfall_events::event::{Board, Cell, Event, EventError, RecordedResult};
use flagfall_store::TournamentLogRow;
use serde_json::{Value, json};

use super::{Snap, Who};

/// Who reads a view: the players' reports of a board whose result is not in (and so a
/// disagreement) are the director's and the board's two players' only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    Public,
    Director,
    /// A player, by pairing number.
    Player(u32),
}

impl Viewer {
    /// Who the token's holder is, for reading.
    pub fn of(snap: &Snap, who: Option<&Who>) -> Viewer {
        match who {
            None => Viewer::Public,
            Some(w) if w.is_director() => Viewer::Director,
            Some(Who::Player(name)) => snap.number_of(name).map_or(Viewer::Public, Viewer::Player),
            Some(_) => Viewer::Public,
        }
    }

    /// Whether this reader sees the reports of board `b`.
    fn sees(self, b: &Board) -> bool {
        match self {
            Viewer::Public => false,
            Viewer::Director => true,
            Viewer::Player(n) => b.white == n || b.black == n,
        }
    }
}

fn reported(rep: &super::BoardReports) -> Value {
    let short = |x: &Option<Vec<RecordedResult>>| {
        x.as_ref()
            .map(|x| x.iter().map(|r| r.short()).collect::<Vec<_>>())
    };
    json!({"white": short(&rep.white), "black": short(&rep.black)})
}

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

/// `GET /api/events/{id}/rounds/{r}` as `viewer` reads it.
pub fn round(snap: &Snap, r: u32, viewer: Viewer) -> Result<Value, EventError> {
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
                && viewer.sees(b)
            {
                v["reported"] = reported(rep);
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

/// `GET /api/events/{id}`: the evening (players, settings, rounds; the disagreements
/// `viewer` may read, none for the public).
pub fn summary(snap: &Snap, viewer: Viewer) -> Value {
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
            let open = e
                .round_list
                .get((*r as usize).wrapping_sub(1))
                .and_then(|round| round.boards.iter().find(|x| x.number == *b))
                .is_some_and(|x| !x.complete() && viewer.sees(x));
            open && rep.white.is_some() && rep.black.is_some() && rep.white != rep.black
        })
        .map(
            |((r, b), rep)| json!({"round": r, "board": b, "white": rep.white, "black": rep.black}),
        )
        .collect();
    let mut v = json!({
        "id": snap.id, "name": e.name, "format": e.format.name(), "rounds": e.planned_rounds(),
        "rounds_paired": e.rounds_paired(), "rounds_complete": e.rounds_complete(),
        "time_control": e.time_control, "rules": e.ruleset, "play": snap.settings.play,
        "mode": snap.settings.mode, "confirm": snap.settings.confirm, "auto": snap.settings.auto,
        "check_in": e.check_in, "tiebreaks": e.tiebreaks, "players": players,
        "forbidden": e.forbidden, "report": e.report, "seq": snap.seq,
    });
    if viewer != Viewer::Public {
        v["disagreements"] = json!(disagreements);
    }
    // The games waiting for the director are the director's alone: a claim carries the
    // assistant's advice, a call its reason.
    if viewer == Viewer::Director {
        v["disputes"] = json!(snap.disputes.values().collect::<Vec<_>>());
    }
    v
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
                if let Some(rep) = snap.reports.get(&(latest, board.number))
                    && !board.complete()
                {
                    v["reported"] = reported(rep);
                }
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

/// The live socket's message after a commit, as `viewer` reads it: the log rows it
/// stored (the public is not sent the players' reports), what followed, and the views
/// that changed (the latest round; the standings).
pub fn live_message(
    snap: &Snap,
    rows: &[TournamentLogRow],
    effects: &[Effect],
    viewer: Viewer,
) -> String {
    let entries: Vec<Value> = rows
        .iter()
        .map(|r| serde_json::from_str(&r.json).unwrap_or(Value::Null))
        .filter(|v: &Value| viewer != Viewer::Public || v.get("report").is_none())
        .collect();
    let mut v = json!({"type": "change", "seq": snap.seq, "rows": entries, "effects": effects});
    if viewer == Viewer::Director {
        v["disputes"] = json!(snap.disputes.values().collect::<Vec<_>>());
    }
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
        v["round"] = round(snap, latest, viewer).unwrap_or(Value::Null);
    }
    let players_changed = effects.iter().any(|e| {
        matches!(
            e,
            Effect::PlayerChanged { .. } | Effect::PlayerAdded { .. } | Effect::Renumbered
        )
    });
    if players_changed {
        v["players"] = summary(snap, viewer)["players"].clone();
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
/// director: that game's dispute (or null) and all of them now (the director's sockets
/// only).
pub fn dispute_message(snap: &Snap, game: &str) -> String {
    json!({
        "type": "dispute",
        "game": game,
        "dispute": snap.disputes.get(game),
        "disputes": snap.disputes.values().collect::<Vec<_>>(),
    })
    .to_string()
}

/// The first message of the live socket: everything `viewer` may read.
pub fn live_state(snap: &Snap, viewer: Viewer) -> String {
    let latest = snap.event.rounds_paired();
    json!({
        "type": "state",
        "event": summary(snap, viewer),
        "round": if latest > 0 { round(snap, latest, viewer).unwrap_or(Value::Null) } else { Value::Null },
        "standings": standings(&snap.event).unwrap_or(Value::Null),
    })
    .to_string()
}

//! The JSON the evening's routes answer (docs/protocol.md, "Evenings").

use std::collections::HashSet;

use flagfall_events::change::Effect;
use flagfall_events::event::{Board, Cell, Event, EventError, RecordedResult, RequestedBye, Round};
use flagfall_events::tiebreak::{ByeKind, Colour, GameOutcome};
use flagfall_protocol::ColorName;
use flagfall_protocol::evening::{
    BoardView, ByeKindName, ByeRequest, CrossCell, CrossOutcome, CrossRow, Crosstable,
    Disagreement, EveningPlayer, EveningSummary, ForbiddenPairView, GameLink, LeftPlayer, LeftWhy,
    LiveMessage, Me, PlayerRef, Reported, RoundByeView, RoundView, Standings, StandingsRow,
};
use flagfall_store::TournamentLogRow;
use serde_json::Value;

use super::model::{BoardReports, Snap, Who};

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

fn reported(rep: &BoardReports) -> Reported {
    let short = |x: &Option<Vec<RecordedResult>>| {
        x.as_ref()
            .map(|x| x.iter().map(|r| r.short().to_string()).collect::<Vec<_>>())
    };
    Reported {
        white: short(&rep.white),
        black: short(&rep.black),
    }
}

/// A player by name and pairing number.
fn player(event: &Event, n: u32) -> PlayerRef {
    let name = event.player(n).map(|p| p.name.clone()).unwrap_or_default();
    PlayerRef { name, number: n }
}

fn result(r: RecordedResult) -> Option<String> {
    match r {
        RecordedResult::Pending => None,
        r => Some(r.short().to_string()),
    }
}

/// A result's long name, as the log stores it (`white-wins`).
fn long_name(r: RecordedResult) -> String {
    match r {
        RecordedResult::Pending => "pending",
        RecordedResult::WhiteWins => "white-wins",
        RecordedResult::Draw => "draw",
        RecordedResult::BlackWins => "black-wins",
        RecordedResult::WhiteWinsByForfeit => "white-wins-by-forfeit",
        RecordedResult::BlackWinsByForfeit => "black-wins-by-forfeit",
        RecordedResult::DoubleForfeit => "double-forfeit",
    }
    .to_string()
}

pub(crate) fn bye_kind(k: ByeKind) -> ByeKindName {
    match k {
        ByeKind::Pab => ByeKindName::Pab,
        ByeKind::Full => ByeKindName::Full,
        ByeKind::Half => ByeKindName::Half,
        ByeKind::Zero => ByeKindName::Zero,
        ByeKind::Absent => ByeKindName::Absent,
    }
}

fn bye_request(b: RequestedBye) -> ByeRequest {
    match b {
        RequestedBye::Full => ByeRequest::Full,
        RequestedBye::Half => ByeRequest::Half,
        RequestedBye::Zero => ByeRequest::Zero,
    }
}

fn outcome(o: GameOutcome) -> CrossOutcome {
    match o {
        GameOutcome::Win => CrossOutcome::Win,
        GameOutcome::Draw => CrossOutcome::Draw,
        GameOutcome::Loss => CrossOutcome::Loss,
        GameOutcome::ForfeitWin => CrossOutcome::ForfeitWin,
        GameOutcome::ForfeitLoss => CrossOutcome::ForfeitLoss,
        GameOutcome::DoubleForfeit => CrossOutcome::DoubleForfeit,
    }
}

fn colour(c: Colour) -> ColorName {
    match c {
        Colour::White => ColorName::White,
        Colour::Black => ColorName::Black,
    }
}

/// `GET /api/events/{id}/rounds/{r}` as `viewer` reads it.
pub fn round(snap: &Snap, r: u32, viewer: Viewer) -> Result<RoundView, EventError> {
    let event = &snap.event;
    let paired = event.rounds_paired();
    let round = event
        .round_list
        .get((r as usize).wrapping_sub(1))
        .ok_or(EventError::UnknownRound { round: r, paired })?;
    let boards = round
        .boards
        .iter()
        .map(|b| BoardView {
            board: b.number,
            white: player(event, b.white),
            black: player(event, b.black),
            results: b.games.iter().map(|g| result(g.result)).collect(),
            game: b.games.first().and_then(|g| g.game.clone()),
            games: (b.games.len() > 1).then(|| b.games.iter().map(|g| g.game.clone()).collect()),
            reported: snap
                .reports
                .get(&(r, b.number))
                .filter(|_| !b.complete() && viewer.sees(b))
                .map(reported),
        })
        .collect();
    let bye = (!round.byes.is_empty()).then(|| {
        round
            .byes
            .iter()
            .map(|b| {
                let p = player(event, b.player);
                RoundByeView {
                    name: p.name,
                    number: p.number,
                    kind: bye_kind(b.kind),
                }
            })
            .collect()
    });
    Ok(RoundView {
        round: r,
        boards,
        complete: round.complete(),
        bye,
        manual_by: round.manual.then(|| round.manual_by.clone()),
        left: (viewer == Viewer::Director)
            .then(|| left_players(event, r))
            .filter(|l| !l.is_empty()),
    })
}

/// `GET /api/events/{id}/standings` (after the rounds complete).
pub fn standings(event: &Event) -> Result<Standings, EventError> {
    let after = event.rounds_complete();
    let st = event.standings(Some(after), None)?;
    let names: Vec<String> = st.tiebreaks.iter().map(ToString::to_string).collect();
    let rows = st
        .rows
        .iter()
        .map(|row| {
            let p = event.players.get(row.player);
            StandingsRow {
                rank: row.rank,
                name: p.map(|p| p.name.clone()),
                number: p.map(|p| p.id),
                points: row.score.as_f64(),
                tiebreaks: names
                    .iter()
                    .zip(&row.values)
                    .map(|(name, v)| (name.clone(), v.map(|v| v.to_f64())))
                    .collect(),
            }
        })
        .collect();
    Ok(Standings {
        after_round: after,
        tiebreaks: names,
        rows,
    })
}

/// `GET /api/events/{id}/crosstable`: each player's rounds (opponent, colour, result).
pub fn crosstable(event: &Event) -> Crosstable {
    let paired = event.rounds_paired();
    let players = event
        .players
        .iter()
        .map(|p| {
            let rounds = (1..=paired)
                .map(|r| match event.cell(p.id, r) {
                    Cell::Paired {
                        board,
                        colour: c,
                        opponent,
                    } => {
                        let results = board
                            .games
                            .iter()
                            .enumerate()
                            .map(|(g, rec)| {
                                let (w, _) = board.players_of_game(g);
                                rec.result
                                    .white_outcome()
                                    .map(|o| outcome(if w == p.id { o } else { o.mirrored() }))
                            })
                            .collect();
                        CrossCell::Paired {
                            round: r,
                            board: board.number,
                            opponent,
                            colour: colour(c),
                            results,
                        }
                    }
                    Cell::Bye(kind) => CrossCell::Bye {
                        round: r,
                        bye: bye_kind(kind),
                    },
                })
                .collect();
            CrossRow {
                number: p.id,
                name: p.name.clone(),
                points: Event::score_text(event.score_after(p.id, paired)),
                rounds,
            }
        })
        .collect();
    Crosstable {
        rounds: paired,
        players,
    }
}

fn players(e: &Event) -> Vec<EveningPlayer> {
    e.players
        .iter()
        .map(|p| EveningPlayer {
            number: p.id,
            name: p.name.clone(),
            rating: p.rating,
            federation: p.federation.clone(),
            fide_id: p.fide_id,
            uscf_id: p.uscf_id.clone(),
            checked_in: p.checked_in,
            paused: p.paused,
            joined_round: p.joined_round,
            withdrawn_from: p.withdrawn_from,
            byes: p.byes.iter().map(|(r, b)| (*r, bye_request(*b))).collect(),
        })
        .collect()
}

fn disputes(snap: &Snap) -> Vec<flagfall_protocol::evening::Dispute> {
    snap.disputes.values().cloned().collect()
}

/// `GET /api/events/{id}`: the evening (players, settings, rounds; the disagreements
/// `viewer` may read, none for the public).
pub fn summary(snap: &Snap, viewer: Viewer) -> EveningSummary {
    let e = &snap.event;
    let long = |x: &Option<Vec<RecordedResult>>| {
        x.as_ref()
            .map(|x| x.iter().copied().map(long_name).collect::<Vec<_>>())
    };
    let disagreements = snap
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
        .map(|((r, b), rep)| Disagreement {
            round: *r,
            board: *b,
            white: long(&rep.white),
            black: long(&rep.black),
        })
        .collect();
    EveningSummary {
        id: snap.id.clone(),
        name: e.name.clone(),
        format: e.format.name().to_string(),
        rounds: e.planned_rounds(),
        rounds_paired: e.rounds_paired(),
        rounds_complete: e.rounds_complete(),
        time_control: e.time_control.clone(),
        rules: e.ruleset.clone(),
        play: snap.settings.play,
        mode: snap.settings.mode,
        confirm: snap.settings.confirm,
        auto: snap.settings.auto,
        check_in: e.check_in,
        tiebreaks: e.tiebreaks.clone(),
        bye_kinds: bye_kinds(e),
        players: players(e),
        forbidden: e
            .forbidden
            .iter()
            .map(|f| ForbiddenPairView {
                a: f.a,
                b: f.b,
                note: f.note.clone(),
            })
            .collect(),
        date: e.date.clone(),
        site: e.site.clone(),
        report: serde_json::to_value(&e.report).unwrap_or(Value::Null),
        seq: snap.seq,
        disagreements: (viewer != Viewer::Public).then_some(disagreements),
        // The games waiting for the director are the director's alone: a claim carries
        // the assistant's advice, a call its reason.
        disputes: (viewer == Viewer::Director).then(|| disputes(snap)),
    }
}

/// The byes a player may ask for in advance, as the event's format allows
/// ([`Event::request_bye`]): none in a round robin.
fn bye_kinds(e: &Event) -> Vec<ByeRequest> {
    if e.format.is_round_robin() {
        return Vec::new();
    }
    vec![ByeRequest::Half, ByeRequest::Zero, ByeRequest::Full]
}

/// `GET /api/events/{id}/me`: a player's own view (their board this round, their game).
pub fn me(snap: &Snap, name: &str) -> Me {
    let e = &snap.event;
    let mut v = Me {
        name: name.to_string(),
        in_event: false,
        number: None,
        checked_in: None,
        paused: None,
        withdrawn_from: None,
        round: None,
        points: None,
        board: None,
        colour: None,
        opponent: None,
        results: None,
        reported: None,
        games: None,
        bye: None,
        rank: None,
        byes: None,
    };
    let Some(p) = e.players.iter().find(|p| p.name == name) else {
        return v;
    };
    let latest = e.rounds_paired();
    v.in_event = true;
    v.number = Some(p.id);
    v.checked_in = Some(p.checked_in);
    v.paused = Some(p.paused);
    v.withdrawn_from = Some(p.withdrawn_from);
    v.round = Some(latest);
    v.byes = Some(p.byes.iter().map(|(r, b)| (*r, bye_request(*b))).collect());
    v.points = Some(Event::score_text(e.score_after(p.id, latest)));
    if latest > 0 {
        match e.cell(p.id, latest) {
            Cell::Paired {
                board,
                colour: c,
                opponent,
            } => {
                v.board = Some(board.number);
                v.colour = Some(colour(c));
                v.opponent = Some(player(e, opponent));
                v.results = Some(board.games.iter().map(|g| result(g.result)).collect());
                v.reported = snap
                    .reports
                    .get(&(latest, board.number))
                    .filter(|_| !board.complete())
                    .map(reported);
                let games: Vec<GameLink> = board
                    .games
                    .iter()
                    .filter_map(|g| g.game.as_ref())
                    .map(|id| GameLink {
                        id: id.clone(),
                        url: format!("/play/{id}"),
                    })
                    .collect();
                v.games = (!games.is_empty()).then_some(games);
            }
            Cell::Bye(kind) => v.bye = Some(bye_kind(kind)),
        }
    }
    // A rank only once a round is complete, and the rank of the standings after it (the
    // standings every page shows): before that every player would be "rank 1".
    let complete = e.rounds_complete();
    if complete > 0
        && let Ok(st) = e.standings(Some(complete), None)
        && let Some(row) = st.rows.iter().find(|r| r.player + 1 == p.id as usize)
    {
        v.rank = Some(row.rank);
    }
    v
}

fn text(msg: &LiveMessage) -> String {
    // A message of plain data: serialising it cannot fail (no map with non-string keys,
    // no float that JSON cannot write: the tiebreaks are finite).
    serde_json::to_string(msg).unwrap_or_else(|e| {
        tracing::error!(error = %e, "an evening's live message did not serialise");
        String::new()
    })
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
    let players_changed = effects.iter().any(|e| {
        matches!(
            e,
            Effect::PlayerChanged { .. } | Effect::PlayerAdded { .. } | Effect::Renumbered
        )
    });
    let standings_changed = effects.iter().any(|e| {
        matches!(
            e,
            Effect::StandingsChanged | Effect::RoundComplete { .. } | Effect::Renumbered
        )
    });
    text(&LiveMessage::Change {
        seq: snap.seq,
        rows: entries,
        effects: effects
            .iter()
            .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
            .collect(),
        round: (round_changed && latest > 0).then(|| round(snap, latest, viewer).ok()),
        players: players_changed.then(|| players(&snap.event)),
        standings: standings_changed.then(|| standings(&snap.event).ok()),
        disputes: (viewer == Viewer::Director).then(|| disputes(snap)),
    })
}

/// The live socket's message when a game of the evening begins or stops waiting for the
/// director: that game's dispute (or null) and all of them now (the director's sockets
/// only).
pub fn dispute_message(snap: &Snap, game: &str) -> String {
    text(&LiveMessage::Dispute {
        game: game.to_string(),
        dispute: snap.disputes.get(game).cloned(),
        disputes: disputes(snap),
    })
}

/// The first message of the live socket: everything `viewer` may read.
pub fn live_state(snap: &Snap, viewer: Viewer) -> String {
    let latest = snap.event.rounds_paired();
    text(&LiveMessage::State {
        event: Box::new(summary(snap, viewer)),
        round: if latest > 0 {
            round(snap, latest, viewer).ok()
        } else {
            None
        },
        standings: standings(&snap.event).ok(),
    })
}

/// The players who played round `r - 1` (a board or a bye of theirs) and are absent from
/// round `r`, and why as their record says now. Linear in the two rounds' size (it is
/// part of every round the director reads).
pub fn left_players(event: &Event, r: u32) -> Vec<LeftPlayer> {
    let (Some(before), Some(now)) = (
        r.checked_sub(2)
            .and_then(|i| event.round_list.get(i as usize)),
        r.checked_sub(1)
            .and_then(|i| event.round_list.get(i as usize)),
    ) else {
        return Vec::new();
    };
    let absent = |round: &Round| -> HashSet<u32> {
        round
            .byes
            .iter()
            .filter(|b| b.kind == ByeKind::Absent)
            .map(|b| b.player)
            .collect()
    };
    let played: HashSet<u32> = before
        .boards
        .iter()
        .flat_map(|b| [b.white, b.black])
        .chain(
            before
                .byes
                .iter()
                .filter(|b| b.kind != ByeKind::Absent)
                .map(|b| b.player),
        )
        .collect();
    let gone = absent(now);
    event
        .players
        .iter()
        .filter(|p| played.contains(&p.id) && gone.contains(&p.id))
        .map(|p| {
            let why = if p.withdrawn_from.is_some_and(|w| w <= r) {
                LeftWhy::Withdrawn
            } else if p.paused {
                LeftWhy::Paused
            } else if event.check_in && !p.checked_in {
                LeftWhy::NotCheckedIn
            } else {
                LeftWhy::Available
            };
            LeftPlayer {
                name: p.name.clone(),
                number: p.id,
                why,
            }
        })
        .collect()
}

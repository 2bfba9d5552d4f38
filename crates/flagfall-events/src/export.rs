//! Exports of an [`Event`]: FIDE TRF-2026 (through `flagfall_pairing::trf`'s writer), PGN
//! of every game, standings as CSV, and a printable crosstable. All return text; writing
//! it anywhere is the caller's business.

use std::fmt::Write as _;

use flagfall_core::timecontrol::{Delay, TimeControl};
use flagfall_pairing::trf::{HeaderLine, ResultCode, Trf, TrfPlayer, TrfRoundEntry};

use crate::event::{ByeKind, Cell, Event, EventError, Format, RecordedResult};
use crate::spelling::Spelled as _;
use crate::tiebreak::{Colour, Standings};

fn bye_code(kind: ByeKind) -> ResultCode {
    match kind {
        ByeKind::Pab => ResultCode::PairingBye,
        ByeKind::Full => ResultCode::FullBye,
        ByeKind::Half => ResultCode::HalfBye,
        ByeKind::Zero => ResultCode::ZeroBye,
        // TRF-16 / lichess: `0000 - -` for a player not paired.
        ByeKind::Absent => ResultCode::ForfeitLoss,
    }
}

/// The TRF result code of one game for the player with `colour` in it.
fn game_code(result: RecordedResult, white_side: bool) -> ResultCode {
    use RecordedResult as G;
    match (result, white_side) {
        (G::Pending, _) => ResultCode::ZeroBye,
        (G::WhiteWins, true) | (G::BlackWins, false) => ResultCode::Win,
        (G::WhiteWins, false) | (G::BlackWins, true) => ResultCode::Loss,
        (G::Draw, _) => ResultCode::Draw,
        (G::WhiteWinsByForfeit, true) | (G::BlackWinsByForfeit, false) => ResultCode::ForfeitWin,
        (G::WhiteWinsByForfeit, false) | (G::BlackWinsByForfeit, true) | (G::DoubleForfeit, _) => {
            ResultCode::ForfeitLoss
        }
    }
}

/// Ranks by player id (1-based rank per player) from standings, if computable.
fn ranks(event: &Event) -> Option<Vec<u32>> {
    let st = event.standings(None, None).ok()?;
    let mut out = vec![0; event.players.len()];
    for row in &st.rows {
        if let Some(slot) = out.get_mut(row.player) {
            *slot = row.rank;
        }
    }
    Some(out)
}

/// The event as FIDE TRF-2026. Every round paired so far is written; a pending game is
/// written with its opponent and colour and the code `Z` (**interpretation**: TRF has no
/// "not yet played" code; pairing programs treat the column as the round to come).
///
/// A Double Swiss match takes two TRF columns, one per game (TRF has one result per
/// player per column): match *r* is written as columns 2r−1 and 2r, with the colours of
/// each game, and a `###` remark says so. **Interpretation** of TRF-2026 for C.04.5.
pub fn trf(event: &Event) -> String {
    let games = event.format.games_per_round();
    let ranks = ranks(event);
    let mut headers = Vec::new();
    let kind = match event.format {
        Format::RoundRobin => "Individual: Round-Robin",
        Format::DoubleRoundRobin => "Individual: Double Round-Robin",
        Format::RoundRobinMatches => "Individual: Round-Robin of two-game matches",
        Format::Swiss => "Individual: Swiss-System (FIDE Dutch)",
        Format::DoubleSwiss => "Individual: Double-Swiss (FIDE C.04.5)",
        Format::UsSwiss => "Individual: Swiss-System (US Chess)",
    };
    let info = &event.report;
    let mut header = |tag: &str, text: Option<String>| {
        if let Some(text) = text {
            headers.push(HeaderLine {
                tag: tag.into(),
                text,
            });
        }
    };
    header("022", event.site.clone().or_else(|| info.city.clone()));
    header("032", info.federation.clone());
    // TRF dates are written YYYY/MM/DD.
    let trf_date = |d: &String| d.replace(['-', '.'], "/");
    header("042", event.date.as_ref().map(trf_date));
    header(
        "052",
        info.end_date.as_ref().or(event.date.as_ref()).map(trf_date),
    );
    header("062", Some(event.players.len().to_string()));
    header(
        "072",
        Some(
            event
                .players
                .iter()
                .filter(|p| p.rating.is_some() && p.fide_id.is_some())
                .count()
                .to_string(),
        ),
    );
    header("092", Some(kind.into()));
    header("102", info.chief_arbiter.clone());
    header("112", info.deputy_arbiters.clone());
    if let Some(tc) = &event.time_control {
        headers.push(HeaderLine {
            tag: "122".into(),
            text: tc.clone(),
        });
    }
    if games == 2 {
        headers.push(HeaderLine {
            tag: "###".into(),
            text: "two-game matches: match r is written as columns 2r-1 (game 1) and 2r (game 2)"
                .into(),
        });
    }
    let pab = event.pab_value();
    let players = event
        .players
        .iter()
        .enumerate()
        .map(|(row, p)| {
            let mut rounds = Vec::new();
            for r in 1..=event.rounds_paired() {
                match event.cell(p.id, r) {
                    Cell::Bye(kind) => {
                        // A pairing-allocated bye worth less than a win of every game
                        // (a Double Swiss 1½) is spread over the match's columns so the
                        // columns add up to the player's points: `U` for each win it
                        // holds, `H` for a half point, `Z` for the rest (docs/events.md).
                        for game in 0..games {
                            let result = match kind {
                                ByeKind::Pab if 2 * (game + 1) <= pab => ResultCode::PairingBye,
                                ByeKind::Pab if 2 * game < pab => ResultCode::HalfBye,
                                ByeKind::Pab => ResultCode::ZeroBye,
                                _ => bye_code(kind),
                            };
                            rounds.push(Some(TrfRoundEntry {
                                opponent: None,
                                colour: None,
                                result,
                            }));
                        }
                    }
                    Cell::Paired {
                        board, opponent, ..
                    } => {
                        for (g, game) in board.games.iter().enumerate() {
                            let (w, _) = board.players_of_game(g);
                            let white_side = w == p.id;
                            let colour = if white_side {
                                Colour::White
                            } else {
                                Colour::Black
                            };
                            rounds.push(Some(TrfRoundEntry {
                                opponent: Some(opponent),
                                colour: Some(colour),
                                result: game_code(game.result, white_side),
                            }));
                        }
                    }
                }
            }
            let half = event.score_after(p.id, event.rounds_paired());
            TrfPlayer {
                number: p.id,
                // TRF writes m and w.
                sex: p.sex.map(|c| match c.to_ascii_lowercase() {
                    'f' | 'w' => 'w',
                    _ => 'm',
                }),
                title: p.title.clone().unwrap_or_default(),
                name: p.name.clone(),
                rating: p.rating,
                federation: p.federation.clone().unwrap_or_default(),
                fide_id: p.fide_id,
                birth_date: p.birth.clone().unwrap_or_default(),
                points_tenths: half * 5,
                rank: ranks.as_ref().and_then(|r| r.get(row).copied()),
                rounds,
            }
        })
        .collect();
    let t = Trf {
        name: Some(event.name.clone()),
        total_rounds: Some(event.planned_rounds() * games),
        initial_colour: Some(event.initial_colour),
        headers,
        players,
    };
    t.to_trf_string()
}

fn pgn_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn pgn_date(date: Option<&str>) -> String {
    match date {
        Some(d) if d.len() == 10 => d.replace('-', "."),
        _ => "????.??.??".into(),
    }
}

/// The PGN `TimeControl` tag (seconds, `+increment`); delays have no PGN notation, so
/// the event's own notation goes in a `FlagfallTimeControl` tag as well.
fn pgn_time_control(tc: &str) -> Option<String> {
    let tc: TimeControl = tc.parse().ok()?;
    let base = tc.base_ms / 1000;
    Some(match tc.delay {
        Delay::Increment { ms } => format!("{base}+{}", ms / 1000),
        _ => base.to_string(),
    })
}

/// Every game of the event as PGN, in round and board order. A game played on paper has
/// only its headers and result; a game with recorded moves has its movetext. Forfeits
/// carry `[Termination "forfeit"]` and no moves; pending games have result `*`.
pub fn pgn(event: &Event) -> String {
    let mut out = String::new();
    let games = event.format.games_per_round() as usize;
    for round in &event.round_list {
        for board in &round.boards {
            for (g, game) in board.games.iter().enumerate() {
                let (w, b) = board.players_of_game(g);
                let (Ok(wp), Ok(bp)) = (event.player(w), event.player(b)) else {
                    continue;
                };
                let round_tag = if games > 1 {
                    format!("{}.{}", round.number, g + 1)
                } else {
                    round.number.to_string()
                };
                let _ = writeln!(out, "[Event \"{}\"]", pgn_escape(&event.name));
                let _ = writeln!(
                    out,
                    "[Site \"{}\"]",
                    pgn_escape(event.site.as_deref().unwrap_or("?"))
                );
                let _ = writeln!(out, "[Date \"{}\"]", pgn_date(event.date.as_deref()));
                let _ = writeln!(out, "[Round \"{round_tag}\"]");
                let _ = writeln!(out, "[White \"{}\"]", pgn_escape(&wp.name));
                let _ = writeln!(out, "[Black \"{}\"]", pgn_escape(&bp.name));
                let _ = writeln!(out, "[Result \"{}\"]", game.result.pgn());
                let _ = writeln!(out, "[Board \"{}\"]", board.number);
                if let Some(r) = wp.rating {
                    let _ = writeln!(out, "[WhiteElo \"{r}\"]");
                }
                if let Some(r) = bp.rating {
                    let _ = writeln!(out, "[BlackElo \"{r}\"]");
                }
                if let Some(tc) = &event.time_control {
                    if let Some(t) = pgn_time_control(tc) {
                        let _ = writeln!(out, "[TimeControl \"{t}\"]");
                    }
                    let _ = writeln!(out, "[FlagfallTimeControl \"{}\"]", pgn_escape(tc));
                }
                let forfeit = !game.result.is_played() && game.result != RecordedResult::Pending;
                if forfeit {
                    let _ = writeln!(out, "[Termination \"forfeit\"]");
                }
                if let Some(rs) = &event.ruleset {
                    let _ = writeln!(out, "[Ruleset \"{}\"]", pgn_escape(rs));
                }
                out.push('\n');
                match &game.moves {
                    Some(m) if !m.trim().is_empty() => {
                        let _ = writeln!(out, "{} {}", m.trim(), game.result.pgn());
                    }
                    _ if game.result == RecordedResult::DoubleForfeit => {
                        let _ = writeln!(out, "{{double forfeit: neither player played}} *");
                    }
                    _ if forfeit => {
                        let _ = writeln!(out, "{{won by forfeit}} {}", game.result.pgn());
                    }
                    _ => {
                        let _ = writeln!(out, "{}", game.result.pgn());
                    }
                }
                out.push('\n');
            }
        }
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Standings as CSV: `rank,number,name,rating,points,<one column per tiebreak>`.
pub fn standings_csv(event: &Event, standings: &Standings) -> String {
    let mut out = String::from("rank,number,name,rating,points");
    for tb in &standings.tiebreaks {
        let _ = write!(out, ",{}", csv_field(&tb.to_string()));
    }
    out.push('\n');
    for row in &standings.rows {
        let p = &event.players[row.player];
        let _ = write!(
            out,
            "{},{},{},{},{}",
            row.rank,
            p.id,
            csv_field(&p.name),
            p.rating.map(|r| r.to_string()).unwrap_or_default(),
            row.score
        );
        for v in &row.values {
            let _ = write!(out, ",{}", v.map(|v| v.to_string()).unwrap_or_default());
        }
        out.push('\n');
    }
    out
}

/// Standings as an aligned text table.
pub fn standings_text(event: &Event, standings: &Standings, after_round: u32) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — standings after round {after_round}", event.name);
    let name_w = event
        .players
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = write!(
        out,
        "{:>4} {:>4}  {:<name_w$} {:>6} {:>6}",
        "Rank", "No", "Name", "Rtg", "Pts"
    );
    for tb in &standings.tiebreaks {
        let _ = write!(out, " {:>9}", tb.to_string());
    }
    out.push('\n');
    for row in &standings.rows {
        let p = &event.players[row.player];
        let _ = write!(
            out,
            "{:>4} {:>4}  {:<name_w$} {:>6} {:>6}",
            row.rank,
            p.id,
            p.name,
            p.rating
                .map(|r| r.to_string())
                .unwrap_or_else(|| "-".into()),
            row.score.to_string()
        );
        for v in &row.values {
            let _ = write!(
                out,
                " {:>9}",
                v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
            );
        }
        out.push('\n');
    }
    out
}

/// One crosstable cell: opponent number, colour, and the result(s) in this player's
/// view (`1`, `=`, `0`, `+`, `-`; a Double Swiss match shows both games), or the bye.
fn cell_text(event: &Event, id: u32, round: u32) -> String {
    match event.cell(id, round) {
        Cell::Bye(kind) => match kind {
            ByeKind::Pab => "PAB".into(),
            ByeKind::Full => "bye1".into(),
            ByeKind::Half => "bye½".into(),
            ByeKind::Zero => "bye0".into(),
            ByeKind::Absent => "--".into(),
        },
        Cell::Paired {
            board,
            colour,
            opponent,
        } => {
            let mut s = format!("{}{}", opponent, colour.letter());
            for (g, game) in board.games.iter().enumerate() {
                let (w, _) = board.players_of_game(g);
                let c = match game_code(game.result, w == id) {
                    _ if game.result == RecordedResult::Pending => '*',
                    ResultCode::Win => '1',
                    ResultCode::Loss => '0',
                    ResultCode::Draw => '=',
                    ResultCode::ForfeitWin => '+',
                    _ => '-',
                };
                s.push(c);
            }
            s
        }
    }
}

/// A printable crosstable: players in standings order (or pairing order if standings
/// cannot be computed yet), one column per round, and the total.
pub fn crosstable_text(event: &Event) -> Result<String, EventError> {
    let order: Vec<usize> = match event.standings(None, None) {
        Ok(st) => st.rows.iter().map(|r| r.player).collect(),
        Err(_) => (0..event.players.len()).collect(),
    };
    let rounds = event.rounds_paired();
    let name_w = event
        .players
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let cell_w = if event.format.games_per_round() == 2 {
        7
    } else {
        6
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}) — crosstable after {rounds} round(s)",
        event.name, event.format
    );
    let _ = write!(out, "{:>4}  {:<name_w$} {:>5}", "No", "Name", "Rtg");
    for r in 1..=rounds {
        let _ = write!(out, " {:>cell_w$}", format!("R{r}"));
    }
    let _ = writeln!(out, " {:>5}", "Pts");
    for i in order {
        let p = &event.players[i];
        let _ = write!(
            out,
            "{:>4}  {:<name_w$} {:>5}",
            p.id,
            p.name,
            p.rating
                .map(|r| r.to_string())
                .unwrap_or_else(|| "-".into())
        );
        for r in 1..=rounds {
            let _ = write!(out, " {:>cell_w$}", cell_text(event, p.id, r));
        }
        let _ = writeln!(
            out,
            " {:>5}",
            Event::score_text(event.score_after(p.id, rounds))
        );
    }
    Ok(out)
}

/// A round's pairings and results as printed after pairing (`event pair`, `event show`):
/// a title line, then one line per board (number, White with score before the round,
/// Black likewise, the results so far) and one per player without an opponent.
pub fn round_text(event: &Event, round: u32) -> Result<String, EventError> {
    let r = event
        .round_list
        .get((round as usize).wrapping_sub(1))
        .ok_or(EventError::UnknownRound {
            round,
            paired: event.rounds_paired(),
        })?;
    let mut out = format!(
        "Round {round} of {}{}\n",
        event.rounds,
        if r.manual {
            " (changed by the director)"
        } else {
            ""
        }
    );
    let name = |id: u32| event.player(id).map_or("?", |p| p.name.as_str());
    let pts = |id: u32| Event::score_text(event.score_after(id, round - 1));
    for b in &r.boards {
        let results: Vec<&str> = b.games.iter().map(|g| g.result.short()).collect();
        let _ = writeln!(
            out,
            "{:>3}. {:>3} {} ({}) - {:>3} {} ({})   {}",
            b.number,
            b.white,
            name(b.white),
            pts(b.white),
            b.black,
            name(b.black),
            pts(b.black),
            results.join(" ")
        );
    }
    for bye in &r.byes {
        let _ = writeln!(
            out,
            "     {:>3} {}: {}",
            bye.player,
            name(bye.player),
            bye.kind.help()
        );
    }
    Ok(out)
}

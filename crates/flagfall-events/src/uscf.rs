//! The rating report US Chess takes: three dBase III files, `THEXPORT.DBF` (the event),
//! `TSEXPORT.DBF` (its sections) and `TDEXPORT.DBF` (each player's line with every
//! round), as WinTD and SwissSys write them. Bytes out; writing them to a folder is the
//! caller's business, and the file's date is the caller's too (nothing here reads the
//! clock).
//!
//! # The layout
//!
//! US Chess describes the three files in its "TA and Edit File Structure" (the files of
//! its Tournament Administrator program, the same as its rating system's entry files) and,
//! for the current version, format `2C`, on its TD/affiliate pages. The fields, in order,
//! all Character (`C`) but the dates (`D`, `YYYYMMDD`), values left-justified and padded
//! with blanks:
//!
//! | file | field | width | flagfall writes |
//! |---|---|---|---|
//! | THEXPORT | `H_FORMAT` | 5 | `2C` |
//! | | `H_PROGRAM` | 10 | `FLAGFALL` |
//! | | `H_EVENT_ID` | 12 | blank (US Chess assigns it) |
//! | | `H_NAME` | 35 | event name |
//! | | `H_TOT_SECT` | 2 | `1` |
//! | | `H_BEG_DATE`, `H_END_DATE` | 8 (D) | start and end dates |
//! | | `H_AFF_ID` | 8 | affiliate (`A` and seven digits) |
//! | | `H_CITY` | 21 | city |
//! | | `H_STATE` | 2 | state |
//! | | `H_ZIPCODE` | 10 | ZIP code |
//! | | `H_COUNTRY` | 21 | country (default `USA`) |
//! | | `H_SENDCROS` | 1 | `N` (no paper crosstable) |
//! | | `H_CTD_ID`, `H_ATD_ID` | 8 each | chief and assistant chief TD's ids |
//! | | `H_OTHER_TD` | 254 | blank |
//! | TSEXPORT | `S_EVENT_ID` | 12 | blank |
//! | | `S_SEC_NUM` | 2 | `1` |
//! | | `S_SEC_NAME` | 30 | event name |
//! | | `S_R_SYSTEM` | 1 | rating system by the time control (below) |
//! | | `S_TIMECTL` | 40 | time control, US Chess spelling (`G/5;d0`, `G/3;+2`) |
//! | | `S_CTD_ID`, `S_ATD_ID` | 8 each | as in the header |
//! | | `S_TRN_TYPE` | 1 | `S` Swiss, `R` round robin |
//! | | `S_TOT_RNDS` | 2 | rounds (games: a two-game pairing is two rounds) |
//! | | `S_LST_PAIR` | 4 | highest pairing number |
//! | | `S_BEG_DATE`, `S_END_DATE` | 8 (D) | as in the header |
//! | | `S_SCH_LVL`, `S_GR_PRIX`, `S_GP_PTS`, `S_FIDE` | 1, 1, 3, 1 | `N`, `N`, blank, `N` |
//! | TDEXPORT | `D_EVENT_ID` | 12 | blank |
//! | | `D_SEC_NUM` | 2 | `1` |
//! | | `D_PAIR_NUM` | 4 | pairing number |
//! | | `D_MEM_ID` | 8 | US Chess id (blank when unknown: resolved on upload) |
//! | | `D_NAME` | 30 | `LAST, FIRST` in capitals, ASCII |
//! | | `D_STATE` | 2 | blank |
//! | | `D_RATING` | 4 | rating (`0` unrated) |
//! | | `D_RND01` ... | 7 each | one per round: code, opponent, colour |
//!
//! A round is written as the result code, the opponent's pairing number and the colour
//! (`W12B`: won against 12 with Black): `W`, `L`, `D` for games played, `X` / `F` for a
//! win / loss by forfeit (written `X0` / `F0`, without the opponent, as SwissSys does),
//! `B` a full-point bye, `H` a half-point bye, `U` not paired or a zero-point bye (`U0`).
//!
//! Choices (**interpretation**, docs/events.md): a two-game pairing (Double Swiss,
//! round-robin matches) is written as two rounds, each game with its colours, as US Chess
//! rates SwissSys's double-game sections; the dates are `D` fields as US Chess's
//! description gives them (SwissSys writes them as `C(8)`, also accepted); `H_OTHER_TD` is
//! 254 wide, the widest Character field dBase III has. `S_R_SYSTEM` follows US Chess's
//! time-control categories (base minutes plus the delay or increment in seconds: over 65
//! regular `R`, 30-65 dual `D`, over 10 quick `Q`, 10 or less blitz); for blitz it is `D`,
//! what SwissSys writes for `G/5;d0` and US Chess rates as blitz (its system takes the
//! category from `S_TIMECTL`).

use std::fmt::Write as _;

use flagfall_core::timecontrol::{Delay, TimeControl};
use thiserror::Error;

use crate::event::{ByeKind, Cell, Event, Format, RecordedResult};

/// The three files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UscfFiles {
    /// `THEXPORT.DBF`.
    pub thexport: Vec<u8>,
    /// `TSEXPORT.DBF`.
    pub tsexport: Vec<u8>,
    /// `TDEXPORT.DBF`.
    pub tdexport: Vec<u8>,
    /// Things US Chess will ask about (players without an id, ...), not errors.
    pub notes: Vec<String>,
}

impl UscfFiles {
    /// The files with the names US Chess expects.
    pub fn named(&self) -> [(&'static str, &[u8]); 3] {
        [
            ("THEXPORT.DBF", &self.thexport),
            ("TSEXPORT.DBF", &self.tsexport),
            ("TDEXPORT.DBF", &self.tdexport),
        ]
    }
}

/// Why the report cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UscfError {
    /// Details the report needs are missing; each names the setting that gives it.
    #[error("the US Chess report needs {}", .0.join("; "))]
    Missing(Vec<String>),
    /// A value that does not fit US Chess's format.
    #[error("{0}")]
    Bad(String),
    /// More players than the report numbers ([`REPORT_MAX_PLAYERS`]).
    #[error(
        "a US Chess report numbers at most {} players (its pairing number, D_PAIR_NUM, \
         has four columns); this event has {}",
        crate::numbers::grouped(REPORT_MAX_PLAYERS),
        crate::numbers::grouped(*players)
    )]
    TooManyPlayers {
        /// The event's players.
        players: usize,
    },
    /// Results are missing.
    #[error("round {round} still has results missing on board(s) {boards}")]
    Incomplete {
        /// The round.
        round: u32,
        /// Its boards without results.
        boards: String,
    },
}

/// Most players a report numbers: 9,999 (`D_PAIR_NUM` and `S_LST_PAIR` have four
/// columns). An event may hold more ([`crate::event::MAX_PLAYERS`]); its report is refused.
pub const REPORT_MAX_PLAYERS: usize = 9_999;

/// A date given by the caller (the file's "last update").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileDate {
    /// Year (1900-2155).
    pub year: u16,
    /// Month (1-12).
    pub month: u8,
    /// Day (1-31).
    pub day: u8,
}

impl FileDate {
    /// The civil date (UTC) of `unix_ms`, milliseconds since 1970-01-01 (Howard
    /// Hinnant's `civil_from_days`). A year outside the field's range is written 2000.
    pub fn of_unix_ms(unix_ms: i64) -> FileDate {
        let days = unix_ms.div_euclid(86_400_000);
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        FileDate {
            year: u16::try_from(year).unwrap_or(2000),
            month: u8::try_from(month).unwrap_or(1),
            day: u8::try_from(day).unwrap_or(1),
        }
    }
}

/// One field of a table: name, type (`C` or `D`), width.
#[derive(Debug, Clone)]
struct Field {
    name: String,
    kind: u8,
    width: u8,
}

fn c(name: &str, width: u8) -> Field {
    Field {
        name: name.into(),
        kind: b'C',
        width,
    }
}

fn d(name: &str) -> Field {
    Field {
        name: name.into(),
        kind: b'D',
        width: 8,
    }
}

/// A dBase III table (version byte 3, no memo): a 32-byte header, 32 bytes per field,
/// `0x0D`, the records (a blank deletion flag, then the fields), `0x1A`.
fn dbf(fields: &[Field], rows: &[Vec<String>], date: FileDate) -> Vec<u8> {
    let header_len = 32 + 32 * fields.len() + 1;
    let record_len = 1 + fields.iter().map(|f| usize::from(f.width)).sum::<usize>();
    let mut out = Vec::with_capacity(header_len + rows.len() * record_len + 1);
    out.push(0x03);
    out.push(u8::try_from(date.year.saturating_sub(1900)).unwrap_or(u8::MAX));
    out.push(date.month);
    out.push(date.day);
    out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    out.extend_from_slice(&(header_len as u16).to_le_bytes());
    out.extend_from_slice(&(record_len as u16).to_le_bytes());
    out.extend_from_slice(&[0; 20]);
    for f in fields {
        let mut name = [0u8; 11];
        name[..f.name.len()].copy_from_slice(f.name.as_bytes());
        out.extend_from_slice(&name);
        out.push(f.kind);
        out.extend_from_slice(&[0; 4]);
        out.push(f.width);
        out.push(0);
        out.extend_from_slice(&[0; 14]);
    }
    out.push(0x0D);
    for row in rows {
        out.push(b' ');
        for (f, value) in fields.iter().zip(row) {
            let mut bytes: Vec<u8> = value.bytes().take(usize::from(f.width)).collect();
            bytes.resize(usize::from(f.width), b' ');
            out.extend_from_slice(&bytes);
        }
    }
    out.push(0x1A);
    out
}

/// Text as ASCII, as US Chess's files and a reader of a plain-ASCII header need it: the
/// common Latin accents dropped (`José Núñez-Müller` is `Jose Nunez-Muller`), the letters
/// written with two (`ß` `ss`, `æ` `ae`, `œ` `oe`, `þ` `th`), typographic quotes and dashes
/// as their ASCII kin, a control character as a space; anything else `?`.
pub fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_ascii_control() {
            out.push(' ');
            continue;
        }
        if ch.is_ascii() {
            out.push(ch);
            continue;
        }
        let two = match ch {
            'ß' => Some("ss"),
            'ẞ' => Some("SS"),
            'æ' => Some("ae"),
            'Æ' => Some("AE"),
            'œ' => Some("oe"),
            'Œ' => Some("OE"),
            'þ' => Some("th"),
            'Þ' => Some("TH"),
            '‘' | '’' | '‚' | '′' => Some("'"),
            '“' | '”' | '„' | '″' => Some("\""),
            '‐' | '‑' | '‒' | '–' | '—' | '−' => Some("-"),
            '\u{a0}' | '\u{2009}' | '\u{202f}' => Some(" "),
            'ð' => Some("d"),
            'Ð' => Some("D"),
            _ => None,
        };
        if let Some(t) = two {
            out.push_str(t);
            continue;
        }
        let base = crate::rating_list::name_key(&ch.to_string());
        match base.chars().next() {
            Some(b) if b.is_ascii_alphanumeric() && base.len() == 1 => {
                out.push(if ch.is_uppercase() {
                    b.to_ascii_uppercase()
                } else {
                    b
                });
            }
            _ => out.push('?'),
        }
    }
    out
}

/// `LAST, FIRST` in capitals: a name with a comma is kept in its order, "First Last"
/// is turned round (the last word is the surname).
pub fn uscf_name(name: &str) -> String {
    let name = ascii(name.trim());
    let turned = if name.contains(',') {
        name
    } else {
        let words: Vec<&str> = name.split_whitespace().collect();
        match words.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{last}, {}", rest.join(" ")),
            _ => name,
        }
    };
    turned.to_ascii_uppercase()
}

/// The time control as US Chess writes it (`G/5;d0`, `G/3;+2`; a Bronstein delay is
/// written as a delay, which US Chess treats alike) and its category letter.
fn us_time_control(tc: &TimeControl) -> (String, char) {
    let minutes = |ms: u64| {
        if ms.is_multiple_of(60_000) {
            (ms / 60_000).to_string()
        } else {
            format!("{}", ms as f64 / 60_000.0)
        }
    };
    let seconds = |ms: u64| {
        if ms.is_multiple_of(1000) {
            (ms / 1000).to_string()
        } else {
            format!("{}", ms as f64 / 1000.0)
        }
    };
    let (text, extra_ms) = match tc.delay {
        Delay::None => (format!("G/{};d0", minutes(tc.base_ms)), 0),
        Delay::Us { ms } | Delay::Bronstein { ms } => {
            (format!("G/{};d{}", minutes(tc.base_ms), seconds(ms)), ms)
        }
        Delay::Increment { ms } => (format!("G/{};+{}", minutes(tc.base_ms), seconds(ms)), ms),
    };
    // US Chess 5C: base minutes plus delay or increment seconds, counted as minutes.
    let total = (tc.base_ms + extra_ms * 60) as f64 / 60_000.0;
    let category = if total > 65.0 {
        'R'
    } else if total >= 30.0 || total <= 10.0 {
        // Dual, and blitz as SwissSys writes it (see the module documentation).
        'D'
    } else {
        'Q'
    };
    (text, category)
}

fn yyyymmdd(date: &str) -> Option<String> {
    let digits: String = date.chars().filter(char::is_ascii_digit).collect();
    let ok = digits.len() == 8
        && date.len() == 10
        && digits[4..6]
            .parse::<u32>()
            .is_ok_and(|m| (1..=12).contains(&m))
        && digits[6..8]
            .parse::<u32>()
            .is_ok_and(|d| (1..=31).contains(&d));
    ok.then_some(digits)
}

/// One round cell for a game: code, opponent, colour.
fn game_cell(result: RecordedResult, white_side: bool, opponent: u32) -> String {
    use RecordedResult as R;
    let (code, played) = match (result, white_side) {
        (R::WhiteWins, true) | (R::BlackWins, false) => ('W', true),
        (R::WhiteWins, false) | (R::BlackWins, true) => ('L', true),
        (R::Draw, _) => ('D', true),
        (R::WhiteWinsByForfeit, true) | (R::BlackWinsByForfeit, false) => ('X', false),
        (R::WhiteWinsByForfeit, false)
        | (R::BlackWinsByForfeit, true)
        | (R::DoubleForfeit, _)
        | (R::Pending, _) => ('F', false),
    };
    if played {
        format!("{code}{opponent}{}", if white_side { 'W' } else { 'B' })
    } else {
        format!("{code}0")
    }
}

/// The three files of the event's US Chess rating report, dated `written`.
///
/// # Errors
/// [`UscfError`] naming what is missing (affiliate, chief TD, city, state, ZIP, dates,
/// time control), a value that does not fit, the boards whose results are missing, or
/// more players than the report numbers ([`REPORT_MAX_PLAYERS`]).
pub fn report(event: &Event, written: FileDate) -> Result<UscfFiles, UscfError> {
    // First: no detail the director could add makes a larger event fit.
    if event.players.len() > REPORT_MAX_PLAYERS {
        return Err(UscfError::TooManyPlayers {
            players: event.players.len(),
        });
    }
    let info = &event.report;
    let mut missing = Vec::new();
    let mut need = |v: &Option<String>, what: &str| {
        if v.as_deref().is_none_or(|s| s.trim().is_empty()) {
            missing.push(what.to_string());
        }
        v.clone().unwrap_or_default()
    };
    let affiliate = need(&info.uscf_affiliate, "the affiliate id (--uscf-affiliate)");
    let chief = need(
        &info.uscf_chief_td,
        "the chief TD's US Chess id (--uscf-chief-td)",
    );
    let city = need(&info.city, "the city (--city)");
    let state = need(&info.state, "the state (--state)");
    let zip = need(&info.zip, "the ZIP code (--zip)");
    let begin = need(&event.date, "the start date (event new --date)");
    let tc_text = need(
        &event.time_control,
        "the time control (event new --time-control)",
    );
    if !missing.is_empty() {
        return Err(UscfError::Missing(missing));
    }
    let bad = |m: String| UscfError::Bad(m);
    if !(affiliate.len() == 8
        && affiliate.starts_with(['A', 'a'])
        && affiliate[1..].bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(bad(format!(
            "the affiliate id {affiliate:?} is not A and seven digits"
        )));
    }
    let assistant = info.uscf_assistant_td.clone().unwrap_or_default();
    for (what, id) in [("chief TD", &chief), ("assistant chief TD", &assistant)] {
        let eight_digits = id.len() == 8 && id.bytes().all(|b| b.is_ascii_digit());
        if !id.is_empty() && !eight_digits {
            return Err(bad(format!(
                "the {what}'s US Chess id {id:?} is not eight digits"
            )));
        }
    }
    if !(state.len() == 2 && state.bytes().all(|b| b.is_ascii_alphabetic())) {
        return Err(bad(format!("the state {state:?} is not two letters")));
    }
    let beg = yyyymmdd(&begin)
        .ok_or_else(|| bad(format!("the start date {begin:?} is not YYYY-MM-DD")))?;
    let end_text = info.end_date.clone().unwrap_or_else(|| begin.clone());
    let end = yyyymmdd(&end_text)
        .ok_or_else(|| bad(format!("the end date {end_text:?} is not YYYY-MM-DD")))?;
    if end < beg {
        return Err(bad(format!(
            "the end date {end_text} is before the start date {begin}"
        )));
    }
    let tc: TimeControl = tc_text
        .parse()
        .map_err(|e| bad(format!("time control: {e}")))?;
    let (timectl, system) = us_time_control(&tc);
    for r in &event.round_list {
        if !r.complete() {
            let boards: Vec<String> = r.incomplete_boards().iter().map(u32::to_string).collect();
            return Err(UscfError::Incomplete {
                round: r.number,
                boards: boards.join(", "),
            });
        }
    }
    let games = event.format.games_per_round();
    let rounds = event.rounds_paired() * games;
    if rounds == 0 {
        return Err(bad("no round has been played".into()));
    }
    if rounds > 99 {
        return Err(bad(format!(
            "{rounds} rounds do not fit US Chess's two-digit round count"
        )));
    }
    let country = info.country.clone().unwrap_or_else(|| "USA".into());
    let name = ascii(&event.name);

    let header_fields = [
        c("H_FORMAT", 5),
        c("H_PROGRAM", 10),
        c("H_EVENT_ID", 12),
        c("H_NAME", 35),
        c("H_TOT_SECT", 2),
        d("H_BEG_DATE"),
        d("H_END_DATE"),
        c("H_AFF_ID", 8),
        c("H_CITY", 21),
        c("H_STATE", 2),
        c("H_ZIPCODE", 10),
        c("H_COUNTRY", 21),
        c("H_SENDCROS", 1),
        c("H_CTD_ID", 8),
        c("H_ATD_ID", 8),
        c("H_OTHER_TD", 254),
    ];
    let header_row = vec![
        "2C".into(),
        "FLAGFALL".into(),
        String::new(),
        name.clone(),
        "1".into(),
        beg.clone(),
        end.clone(),
        affiliate.to_ascii_uppercase(),
        ascii(&city),
        state.to_ascii_uppercase(),
        ascii(&zip),
        ascii(&country),
        "N".into(),
        chief.clone(),
        assistant.clone(),
        String::new(),
    ];
    let section_fields = [
        c("S_EVENT_ID", 12),
        c("S_SEC_NUM", 2),
        c("S_SEC_NAME", 30),
        c("S_R_SYSTEM", 1),
        c("S_TIMECTL", 40),
        c("S_CTD_ID", 8),
        c("S_ATD_ID", 8),
        c("S_TRN_TYPE", 1),
        c("S_TOT_RNDS", 2),
        c("S_LST_PAIR", 4),
        d("S_BEG_DATE"),
        d("S_END_DATE"),
        c("S_SCH_LVL", 1),
        c("S_GR_PRIX", 1),
        c("S_GP_PTS", 3),
        c("S_FIDE", 1),
    ];
    let trn_type = if event.format.is_round_robin() {
        "R"
    } else {
        "S"
    };
    let section_row = vec![
        String::new(),
        "1".into(),
        name,
        system.to_string(),
        timectl,
        chief,
        assistant,
        trn_type.into(),
        rounds.to_string(),
        event.players.len().to_string(),
        beg,
        end,
        "N".into(),
        "N".into(),
        String::new(),
        "N".into(),
    ];
    let mut detail_fields = vec![
        c("D_EVENT_ID", 12),
        c("D_SEC_NUM", 2),
        c("D_PAIR_NUM", 4),
        c("D_MEM_ID", 8),
        c("D_NAME", 30),
        c("D_STATE", 2),
        c("D_RATING", 4),
    ];
    for r in 1..=rounds {
        detail_fields.push(c(&format!("D_RND{r:02}"), 7));
    }
    let pab = event.pab_value();
    let mut notes = Vec::new();
    let mut rows = Vec::new();
    for p in &event.players {
        if p.uscf_id.is_none() {
            notes.push(format!(
                "player {} ({}) has no US Chess id; US Chess will ask for it on upload",
                p.id, p.name
            ));
        }
        let mut row = vec![
            String::new(),
            "1".into(),
            p.id.to_string(),
            p.uscf_id.clone().unwrap_or_default(),
            uscf_name(&p.name),
            String::new(),
            p.rating.unwrap_or(0).to_string(),
        ];
        for r in 1..=event.rounds_paired() {
            match event.cell(p.id, r) {
                Cell::Paired {
                    board, opponent, ..
                } => {
                    for (g, game) in board.games.iter().enumerate() {
                        let (w, _) = board.players_of_game(g);
                        row.push(game_cell(game.result, w == p.id, opponent));
                    }
                }
                Cell::Bye(kind) => {
                    for g in 0..games {
                        let code = match kind {
                            // A PAB worth less than every game of the round: a win for
                            // each full point it holds, then a half (as in the TRF).
                            ByeKind::Pab if 2 * (g + 1) <= pab => "B0",
                            ByeKind::Pab if 2 * g < pab => "H0",
                            ByeKind::Full => "B0",
                            ByeKind::Half => "H0",
                            _ => "U0",
                        };
                        row.push(code.into());
                    }
                }
            }
        }
        rows.push(row);
    }
    if event.format == Format::RoundRobinMatches || event.format == Format::DoubleSwiss {
        let mut note = String::new();
        let _ = write!(
            note,
            "each two-game pairing is written as two rounds ({rounds} in all)"
        );
        notes.push(note);
    }
    Ok(UscfFiles {
        thexport: dbf(&header_fields, &[header_row], written),
        tsexport: dbf(&section_fields, &[section_row], written),
        tdexport: dbf(&detail_fields, &rows, written),
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::FileDate;

    fn date(year: u16, month: u8, day: u8) -> FileDate {
        FileDate { year, month, day }
    }

    #[test]
    fn civil_dates_of_instants() {
        let day = 86_400_000;
        assert_eq!(FileDate::of_unix_ms(0), date(1970, 1, 1));
        assert_eq!(FileDate::of_unix_ms(day - 1), date(1970, 1, 1));
        assert_eq!(FileDate::of_unix_ms(-1), date(1969, 12, 31));
        // Leap days: 2000 (divisible by 400) and 2024; 2100 has none.
        assert_eq!(FileDate::of_unix_ms(951_782_400_000), date(2000, 2, 29));
        assert_eq!(
            FileDate::of_unix_ms(951_782_400_000 + day),
            date(2000, 3, 1)
        );
        assert_eq!(FileDate::of_unix_ms(1_709_164_800_000), date(2024, 2, 29));
        assert_eq!(FileDate::of_unix_ms(4_107_456_000_000), date(2100, 2, 28));
        assert_eq!(
            FileDate::of_unix_ms(4_107_456_000_000 + day),
            date(2100, 3, 1)
        );
        assert_eq!(FileDate::of_unix_ms(1_798_675_200_000), date(2026, 12, 31));
    }
}

//! FIDE Tournament Report File: reading TRF-16 and TRF-2026, writing TRF-2026.
//!
//! The player records (`001`) have the same fixed columns in both versions (columns are
//! 1-based, as in the FIDE text):
//!
//! | columns | field |
//! |---|---|
//! | 1-3 | `001` |
//! | 5-8 | starting rank (the pairing number) |
//! | 10 | sex |
//! | 11-13 | title |
//! | 15-47 | name |
//! | 49-52 | FIDE rating |
//! | 54-56 | federation |
//! | 58-68 | FIDE number |
//! | 70-79 | birth date |
//! | 81-84 | points |
//! | 86-89 | rank |
//! | 92-99, 102-109, ... | one block per round: opponent (4), colour (1), result (1) |
//!
//! Round `r` starts at column `92 + 10 (r - 1)`: the opponent's starting rank in the first
//! four columns (`0000` or blanks for none), the colour two columns later (`w`, `b`, `-`)
//! and the result code two columns after that.
//!
//! Tournament-level lines this module understands (every other line is kept verbatim):
//!
//! * `012` tournament name;
//! * `142 n` (TRF-2026) and `XXR n` (the JaVaFo/bbpPairings extension): rounds planned;
//! * `152 W|B` (TRF-2026) and `XXC white1|black1`: the initial colour, i.e. the colour the
//!   top seed received (or would have received) in round 1;
//! * `###` comment lines (TRF-2026 remark 1), skipped.
//!
//! Writing always produces TRF-2026: the round count becomes `142` and the initial colour
//! `152`, the other header lines are written back in the order they were read.

use std::fmt::{self, Write as _};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The highest starting rank a TRF can hold: columns 5-8 of a player's record, and the
/// four columns of an opponent in each round's block, hold four digits. A writer numbering
/// more players would shift every column after it (`flagfall_events::export::trf` refuses
/// an event above it).
pub const MAX_NUMBER: u32 = 9_999;

/// A colour a player had (or is to have) in a game: the one colour type of the pairing
/// engines, the events crate (its crosstable, its event files) and their exports. Stored
/// as `"White"` / `"Black"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Colour {
    /// White.
    #[cfg_attr(feature = "clap", value(alias = "w"))]
    White,
    /// Black.
    #[cfg_attr(feature = "clap", value(alias = "b"))]
    Black,
}

impl Colour {
    /// The other colour.
    #[must_use]
    pub fn opposite(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }

    /// The colour's name in lower case (`white`, `black`), as the command line takes it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Colour::White => "white",
            Colour::Black => "black",
        }
    }

    /// The colour's letter in lower case (`w`, `b`), as TRF rounds and crosstables write
    /// it; [`char::to_ascii_uppercase`] gives the header form (`152 W`).
    #[must_use]
    pub fn letter(self) -> char {
        match self {
            Colour::White => 'w',
            Colour::Black => 'b',
        }
    }

    /// The colour written as a letter, either case (`w`, `W`, `b`, `B`).
    #[must_use]
    pub fn from_letter(c: char) -> Option<Colour> {
        match c.to_ascii_lowercase() {
            'w' => Some(Colour::White),
            'b' => Some(Colour::Black),
            _ => None,
        }
    }
}

/// A result code of a round block (TRF-16 / TRF-2026 player section, column 99 for round 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultCode {
    /// `1`: game won over the board.
    Win,
    /// `=`: game drawn.
    Draw,
    /// `0`: game lost.
    Loss,
    /// `W`: win in a game that lasted less than one move (not rated, but played).
    WinUnrated,
    /// `D`: draw in a game of less than one move.
    DrawUnrated,
    /// `L`: loss in a game of less than one move.
    LossUnrated,
    /// `+`: forfeit win (the game was not played).
    ForfeitWin,
    /// `-`: forfeit loss, or, with no opponent, absent / not paired.
    ForfeitLoss,
    /// `U`: the pairing-allocated bye.
    PairingBye,
    /// `H`: half-point bye.
    HalfBye,
    /// `F`: full-point bye.
    FullBye,
    /// `Z` (or blank): zero-point bye.
    ZeroBye,
    /// A game paired but not yet played: an opponent and a colour with a blank result.
    /// Written as a blank; read from a blank, or from `Z`, beside an opponent (flagfall's
    /// exports before 2026-11-29 gave a pending game `Z`, which beside an opponent cannot
    /// be a bye). Worth nothing until its result is in.
    Pending,
}

impl ResultCode {
    /// Read a result character (letters are case-insensitive, TRF-2026 note).
    #[must_use]
    pub fn from_char(c: char) -> Option<ResultCode> {
        Some(match c.to_ascii_uppercase() {
            '1' => ResultCode::Win,
            '=' => ResultCode::Draw,
            '0' => ResultCode::Loss,
            'W' => ResultCode::WinUnrated,
            'D' => ResultCode::DrawUnrated,
            'L' => ResultCode::LossUnrated,
            '+' => ResultCode::ForfeitWin,
            '-' => ResultCode::ForfeitLoss,
            'U' => ResultCode::PairingBye,
            'H' => ResultCode::HalfBye,
            'F' => ResultCode::FullBye,
            'Z' | ' ' => ResultCode::ZeroBye,
            _ => return None,
        })
    }

    /// The character written for this code.
    #[must_use]
    pub fn to_char(self) -> char {
        match self {
            ResultCode::Win => '1',
            ResultCode::Draw => '=',
            ResultCode::Loss => '0',
            ResultCode::WinUnrated => 'W',
            ResultCode::DrawUnrated => 'D',
            ResultCode::LossUnrated => 'L',
            ResultCode::ForfeitWin => '+',
            ResultCode::ForfeitLoss => '-',
            ResultCode::PairingBye => 'U',
            ResultCode::HalfBye => 'H',
            ResultCode::FullBye => 'F',
            ResultCode::ZeroBye => 'Z',
            ResultCode::Pending => ' ',
        }
    }

    /// Points scored, in half points, under the default scoring (TRF-2026 tag 162 defaults:
    /// win, forfeit win, full-point bye and PAB 1; draw and half-point bye ½; the rest 0).
    #[must_use]
    pub fn half_points(self) -> u32 {
        match self {
            ResultCode::Win
            | ResultCode::WinUnrated
            | ResultCode::ForfeitWin
            | ResultCode::PairingBye
            | ResultCode::FullBye => 2,
            ResultCode::Draw | ResultCode::DrawUnrated | ResultCode::HalfBye => 1,
            ResultCode::Loss
            | ResultCode::LossUnrated
            | ResultCode::ForfeitLoss
            | ResultCode::ZeroBye
            | ResultCode::Pending => 0,
        }
    }

    /// True for the codes of a game actually played over the board (`1 = 0 W D L`).
    #[must_use]
    pub fn is_played_game(self) -> bool {
        matches!(
            self,
            ResultCode::Win
                | ResultCode::Draw
                | ResultCode::Loss
                | ResultCode::WinUnrated
                | ResultCode::DrawUnrated
                | ResultCode::LossUnrated
        )
    }
}

/// One round block of a player record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TrfRoundEntry {
    /// The scheduled opponent's starting rank; `None` for `0000` (bye, absent).
    pub opponent: Option<u32>,
    /// The colour; `None` for `-` or blank.
    pub colour: Option<Colour>,
    /// The result code.
    pub result: ResultCode,
}

/// A `001` player record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrfPlayer {
    /// Starting rank (columns 5-8): the pairing number.
    pub number: u32,
    /// Sex (column 10), if given.
    pub sex: Option<char>,
    /// Title (columns 11-13), trimmed; empty if none.
    pub title: String,
    /// Name (columns 15-47), trimmed.
    pub name: String,
    /// FIDE rating (columns 49-52), if given and non-zero.
    pub rating: Option<u32>,
    /// Federation (columns 54-56), trimmed; empty if none.
    pub federation: String,
    /// FIDE number (columns 58-68), if given.
    pub fide_id: Option<u64>,
    /// Birth date (columns 70-79) as written, trimmed.
    pub birth_date: String,
    /// Points (columns 81-84) in tenths of a point (`3.5` is 35).
    pub points_tenths: u32,
    /// Rank (columns 86-89), if given.
    pub rank: Option<u32>,
    /// Round blocks, index 0 = round 1; `None` where the block is blank.
    pub rounds: Vec<Option<TrfRoundEntry>>,
}

impl TrfPlayer {
    /// The entry for round `round` (1-based), if any.
    #[must_use]
    pub fn round(&self, round: u32) -> Option<&TrfRoundEntry> {
        let index = usize::try_from(round.checked_sub(1)?).ok()?;
        self.rounds.get(index).and_then(Option::as_ref)
    }
}

/// A header (non-player) line kept as written: the three-character tag and the rest of the
/// line after the separating space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderLine {
    /// The tag, e.g. `022` or `XXA`.
    pub tag: String,
    /// The text after column 4.
    pub text: String,
}

/// A parsed tournament report file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trf {
    /// Tournament name (`012`).
    pub name: Option<String>,
    /// Rounds planned (`142` or `XXR`).
    pub total_rounds: Option<u32>,
    /// Initial colour (`152` or `XXC`).
    pub initial_colour: Option<Colour>,
    /// Every other header line, in file order.
    pub headers: Vec<HeaderLine>,
    /// Player records, in file order.
    pub players: Vec<TrfPlayer>,
}

/// A TRF that cannot be read: where (1-based line and column) and what.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("TRF line {line}, column {column}: {message}")]
pub struct TrfError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column of the offending field.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

fn err(line: usize, column: usize, message: impl Into<String>) -> TrfError {
    TrfError {
        line,
        column,
        message: message.into(),
    }
}

/// Characters of a line, addressable by 1-based column; missing columns read as blanks.
struct Columns {
    chars: Vec<char>,
    line: usize,
}

impl Columns {
    fn new(text: &str, line: usize) -> Self {
        Columns {
            chars: text.chars().collect(),
            line,
        }
    }

    fn len(&self) -> usize {
        self.chars.len()
    }

    fn char_at(&self, col: usize) -> char {
        self.chars.get(col - 1).copied().unwrap_or(' ')
    }

    /// Columns `from..=to`, as a string (blanks where the line is short).
    fn field(&self, from: usize, to: usize) -> String {
        (from..=to).map(|c| self.char_at(c)).collect()
    }

    fn number(&self, from: usize, to: usize, what: &str) -> Result<Option<u64>, TrfError> {
        let raw = self.field(from, to);
        let text = raw.trim();
        if text.is_empty() {
            return Ok(None);
        }
        text.parse::<u64>().map(Some).map_err(|_| {
            err(
                self.line,
                from,
                format!("{what} (columns {from}-{to}) is not a number: {text:?}"),
            )
        })
    }
}

/// Parse points written like `11.5`, `3`, `3.0`, `3.50` or `.5` into tenths (`None` for
/// anything else: signs, more than one decimal digit that is not zero, other text).
#[must_use]
pub fn parse_tenths(text: &str) -> Option<u32> {
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, f),
        None => (text, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let whole: u32 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let tenth: u32 = match frac.len() {
        0 => 0,
        1 => frac.parse().ok()?,
        _ => {
            // Accept "3.50" but not "3.55": points are in tenths at most.
            let (first, rest) = frac.split_at(1);
            if rest.chars().any(|c| c != '0') {
                return None;
            }
            first.parse().ok()?
        }
    };
    whole.checked_mul(10)?.checked_add(tenth)
}

fn parse_player(cols: &Columns) -> Result<TrfPlayer, TrfError> {
    let line = cols.line;
    let number = cols
        .number(5, 8, "starting rank")?
        .ok_or_else(|| err(line, 5, "starting rank (columns 5-8) is missing"))?;
    if number == 0 || number > u64::from(MAX_NUMBER) {
        return Err(err(
            line,
            5,
            format!("starting rank {number} is not in 1..{MAX_NUMBER}"),
        ));
    }
    let sex = match cols.char_at(10) {
        ' ' => None,
        c => Some(c),
    };
    let title = cols.field(11, 13).trim().to_string();
    let name = cols.field(15, 47).trim().to_string();
    let rating = cols
        .number(49, 52, "rating")?
        .filter(|&r| r != 0)
        .map(|r| r as u32);
    let federation = cols.field(54, 56).trim().to_string();
    let fide_id = cols.number(58, 68, "FIDE number")?;
    let birth_date = cols.field(70, 79).trim().to_string();
    let points_raw = cols.field(81, 84);
    let points_text = points_raw.trim();
    let points_tenths = if points_text.is_empty() {
        0
    } else {
        parse_tenths(points_text).ok_or_else(|| {
            err(
                line,
                81,
                format!("points (columns 81-84) are not a score like 3.5: {points_text:?}"),
            )
        })?
    };
    let rank = cols.number(86, 89, "rank")?.map(|r| r as u32);

    let mut rounds = Vec::new();
    let mut start = 92;
    while start <= cols.len() {
        let block = cols.field(start, start + 7);
        if block.trim().is_empty() {
            rounds.push(None);
        } else {
            rounds.push(Some(parse_round(cols, start, rounds.len() + 1)?));
        }
        start += 10;
    }
    while rounds.last() == Some(&None) {
        rounds.pop();
    }
    Ok(TrfPlayer {
        number: number as u32,
        sex,
        title,
        name,
        rating,
        federation,
        fide_id,
        birth_date,
        points_tenths,
        rank,
        rounds,
    })
}

fn parse_round(cols: &Columns, start: usize, round: usize) -> Result<TrfRoundEntry, TrfError> {
    let line = cols.line;
    let opp_raw = cols.field(start, start + 3);
    let opp_text = opp_raw.trim();
    let opponent = if opp_text.is_empty() {
        None
    } else {
        let n: u32 = opp_text.parse().map_err(|_| {
            err(
                line,
                start,
                format!(
                    "round {round}: opponent (columns {start}-{}) is not a number: {opp_text:?}",
                    start + 3
                ),
            )
        })?;
        if n == 0 { None } else { Some(n) }
    };
    let colour_col = start + 5;
    let colour_char = cols.char_at(colour_col);
    let colour = match (colour_char, Colour::from_letter(colour_char)) {
        ('-' | ' ', _) => None,
        (_, Some(colour)) => Some(colour),
        (c, None) => {
            return Err(err(
                line,
                colour_col,
                format!("round {round}: colour must be w, b or -, found {c:?}"),
            ));
        }
    };
    let result_col = start + 7;
    let c = cols.char_at(result_col);
    let pending = opponent.is_some() && matches!(c, ' ' | 'Z' | 'z');
    let result = if pending {
        ResultCode::Pending
    } else {
        ResultCode::from_char(c).ok_or_else(|| {
            err(
                line,
                result_col,
                format!(
                    "round {round}: unknown result code {c:?} (expected one of 1 = 0 W D L + - U H F Z)"
                ),
            )
        })?
    };
    for (col, what) in [
        (start + 4, "opponent and colour"),
        (start + 6, "colour and result"),
    ] {
        if cols.char_at(col) != ' ' {
            return Err(err(
                line,
                col,
                format!("round {round}: expected a blank between {what}"),
            ));
        }
    }
    match (opponent, result) {
        (
            Some(_),
            ResultCode::PairingBye
            | ResultCode::HalfBye
            | ResultCode::FullBye
            | ResultCode::ZeroBye,
        ) => {
            return Err(err(
                line,
                result_col,
                format!(
                    "round {round}: a bye ({}) cannot have an opponent",
                    result.to_char()
                ),
            ));
        }
        (Some(_), _) if colour.is_none() => {
            return Err(err(
                line,
                colour_col,
                format!("round {round}: a game against an opponent needs a colour (w or b)"),
            ));
        }
        (None, r)
            if r != ResultCode::ForfeitLoss
                && !matches!(
                    r,
                    ResultCode::PairingBye
                        | ResultCode::HalfBye
                        | ResultCode::FullBye
                        | ResultCode::ZeroBye
                        | ResultCode::ForfeitWin
                ) =>
        {
            return Err(err(
                line,
                start,
                format!("round {round}: result {} needs an opponent", r.to_char()),
            ));
        }
        _ => {}
    }
    Ok(TrfRoundEntry {
        opponent,
        colour,
        result,
    })
}

impl Trf {
    /// Parse a TRF-16 or TRF-2026 text.
    ///
    /// # Errors
    /// A [`TrfError`] naming the line and column of the first field that cannot be read,
    /// or of a duplicated starting rank.
    pub fn parse(text: &str) -> Result<Trf, TrfError> {
        let mut trf = Trf::default();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if raw.trim().is_empty() || raw.starts_with("###") {
                continue;
            }
            let cols = Columns::new(raw, line_no);
            if cols.len() < 3 {
                return Err(err(
                    line_no,
                    1,
                    format!("line too short to hold a tag: {raw:?}"),
                ));
            }
            let tag = cols.field(1, 3);
            let rest: String = cols.chars.iter().skip(4).collect();
            let rest_trim = rest.trim();
            if cols.len() > 3 && cols.char_at(4) != ' ' {
                return Err(err(
                    line_no,
                    4,
                    format!("expected a blank after the tag {tag:?}"),
                ));
            }
            match tag.as_str() {
                "001" => {
                    let player = parse_player(&cols)?;
                    if trf.players.iter().any(|p| p.number == player.number) {
                        return Err(err(
                            line_no,
                            5,
                            format!("starting rank {} appears twice", player.number),
                        ));
                    }
                    trf.players.push(player);
                }
                "012" => trf.name = Some(rest_trim.to_string()),
                "142" | "XXR" => {
                    let n: u32 = rest_trim.parse().map_err(|_| {
                        err(
                            line_no,
                            5,
                            format!("{tag}: number of rounds is not a number: {rest_trim:?}"),
                        )
                    })?;
                    trf.total_rounds = Some(n);
                }
                "152" => {
                    let mut letters = rest_trim.chars();
                    let letter = match (letters.next(), letters.next()) {
                        (Some(c), None) => Colour::from_letter(c),
                        _ => None,
                    };
                    trf.initial_colour = Some(match letter {
                        Some(colour) => colour,
                        None => {
                            return Err(err(
                                line_no,
                                5,
                                format!("152: initial colour must be W or B, found {rest_trim:?}"),
                            ));
                        }
                    });
                }
                "XXC" => {
                    // JaVaFo's XXC may carry other words (e.g. `rank`); bbpPairings reads
                    // `white1`/`black1` from it.
                    let mut colour = None;
                    for word in rest_trim.split_whitespace() {
                        match word {
                            "white1" => colour = Some(Colour::White),
                            "black1" => colour = Some(Colour::Black),
                            _ => {}
                        }
                    }
                    match colour {
                        Some(c) => trf.initial_colour = Some(c),
                        None => {
                            return Err(err(
                                line_no,
                                5,
                                format!("XXC: expected white1 or black1, found {rest_trim:?}"),
                            ));
                        }
                    }
                }
                _ => trf.headers.push(HeaderLine {
                    tag,
                    text: rest.trim_end().to_string(),
                }),
            }
        }
        Ok(trf)
    }

    /// The player with starting rank `number`.
    #[must_use]
    pub fn player(&self, number: u32) -> Option<&TrfPlayer> {
        self.players.iter().find(|p| p.number == number)
    }

    /// The highest round column used by any player.
    #[must_use]
    pub fn last_column(&self) -> u32 {
        self.players
            .iter()
            .map(|p| p.rounds.len() as u32)
            .max()
            .unwrap_or(0)
    }

    /// Write the file as TRF-2026 (see the module documentation). Starting ranks and
    /// opponents are written in four columns: the caller keeps them within
    /// [`MAX_NUMBER`] (a larger one would not fit, and shift the columns after it).
    #[must_use]
    pub fn to_trf_string(&self) -> String {
        let mut out = String::new();
        // Header text is written as one line whatever it holds ([`one_line`]): a newline
        // in a name or a site must not start a record of its own.
        if let Some(name) = &self.name {
            let _ = writeln!(out, "012 {}", one_line(name));
        }
        for h in &self.headers {
            let tag = fit(&h.tag, 3);
            if h.text.is_empty() {
                let _ = writeln!(out, "{tag}");
            } else {
                let _ = writeln!(out, "{tag} {}", one_line(&h.text));
            }
        }
        if let Some(n) = self.total_rounds {
            let _ = writeln!(out, "142 {n}");
        }
        if let Some(c) = self.initial_colour {
            let _ = writeln!(out, "152 {}", c.letter().to_ascii_uppercase());
        }
        for p in &self.players {
            let _ = writeln!(out, "{p}");
        }
        out
    }
}

/// A character that continues the one before it on screen: a combining mark (the
/// common blocks: U+0300-036F, U+1AB0-1AFF, U+1DC0-1DFF, U+20D0-20FF, U+FE20-FE2F), a
/// variation selector (U+FE00-FE0F) or the zero-width joiner of an emoji sequence.
fn continues(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{200D}')
}

/// `text` as one line: a control character or a line or paragraph separator (which would
/// end the line, or let the rest be read as another record) written as a space.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// `text` in at most `width` columns, one column per character (Unicode scalar value, as
/// [`Trf::parse`] counts them: not bytes), as one line ([`one_line`]). A cut never
/// separates a letter from the accent or joiner that follows it: the letter goes too.
fn fit(text: &str, width: usize) -> String {
    let chars: Vec<char> = one_line(text).chars().collect();
    if chars.len() <= width {
        return chars.into_iter().collect();
    }
    let mut end = width;
    while end > 0 && continues(chars[end]) {
        end -= 1;
    }
    // `end` is now the first character left out that starts a new letter; when the
    // cut fell inside a letter's marks, the letter (at `end`) is left out with them.
    chars[..end].iter().collect()
}

impl fmt::Display for TrfPlayer {
    /// The `001` record in fixed columns, without trailing blanks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut line = String::new();
        let _ = write!(line, "001 {:>4} ", self.number);
        line.push(self.sex.filter(|c| !c.is_control()).unwrap_or(' '));
        let _ = write!(line, "{:>3} ", fit(&self.title, 3));
        let _ = write!(line, "{:<33} ", fit(&self.name, 33));
        match self.rating {
            Some(r) => {
                let _ = write!(line, "{r:>4} ");
            }
            None => line.push_str("     "),
        }
        let _ = write!(line, "{:<3} ", fit(&self.federation, 3));
        match self.fide_id {
            Some(id) => {
                let _ = write!(line, "{id:>11} ");
            }
            None => line.push_str("            "),
        }
        let _ = write!(line, "{:<10} ", fit(&self.birth_date, 10));
        let _ = write!(
            line,
            "{:>4} ",
            format!("{}.{}", self.points_tenths / 10, self.points_tenths % 10)
        );
        match self.rank {
            Some(r) => {
                let _ = write!(line, "{r:>4}");
            }
            None => line.push_str("    "),
        }
        for entry in &self.rounds {
            line.push_str("  ");
            match entry {
                None => line.push_str("        "),
                Some(e) => {
                    match e.opponent {
                        Some(o) => {
                            let _ = write!(line, "{o:>4}");
                        }
                        None => line.push_str("0000"),
                    }
                    line.push(' ');
                    line.push(e.colour.map_or('-', Colour::letter));
                    line.push(' ');
                    line.push(e.result.to_char());
                }
            }
        }
        f.write_str(line.trim_end())
    }
}

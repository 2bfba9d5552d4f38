//! FIDE's published rating list, read to fill the players' ratings, FIDE ids, titles and
//! federations (text in, updates out: the caller reads the file and applies the updates
//! with [`Change::UpdatePlayers`](crate::change::Change::UpdatePlayers)).
//!
//! # The format
//!
//! FIDE publishes its lists as fixed-width text, one player a line, under a header line
//! that names the columns; each field starts at the column where its name starts in the
//! header and runs to the next name. The combined list (`players_list_foa.txt`) has this
//! header, columns counted from 1:
//!
//! | columns | header | content |
//! |---|---|---|
//! | 1-15 | `ID Number` | FIDE id |
//! | 16-76 | `Name` | `Surname, Given names` |
//! | 77-80 | `Fed` | federation, three letters |
//! | 81-84 | `Sex` | `M` or `F` |
//! | 85-89 | `Tit` | title (`GM`, `IM`, `FM`, `CM`, `WGM`, ...) |
//! | 90-94 | `WTit` | women's title |
//! | 95-109 | `OTit` | other titles (arbiter, trainer, ...) |
//! | 110-113 | `FOA` | FIDE Online Arena title |
//! | 114-119, 120-123, 124-126 | `SRtng` `SGm` `SK` | standard rating, games, K factor |
//! | 127-132, 133-136, 137-139 | `RRtng` `RGm` `Rk` | rapid rating, games, K factor |
//! | 140-145, 146-149, 150-152 | `BRtng` `BGm` `BK` | blitz rating, games, K factor |
//! | 153-158 | `B-day` | year of birth |
//! | 159- | `Flag` | `i` inactive, `w` woman, `wi` both |
//!
//! The single lists (`standard_rating_list.txt`, `rapid_...`, `blitz_...`) have the same
//! columns up to `FOA`, then one rating column named by the list's month (`MAR26`), `Gms`,
//! `K`, `B-day`, `Flag`. Both are read from their header, so a list whose columns move
//! keeps being read as long as its header names them. A single list carries one rating:
//! whichever kind the director asked for, that list's rating is the one used (the file
//! says which list it is, the header does not).
//!
//! # Matching
//!
//! A player with a FIDE id is found by id. A player without one is found by name: the
//! words of the name, without case, accents or punctuation, in any order ("Magnus
//! Carlsen" finds "Carlsen, Magnus"); when several listed players have that name, the
//! player's federation, if known, must single one out, otherwise nothing is filled in and
//! the player is reported as ambiguous. Nothing is guessed.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::change::PlayerUpdate;
use crate::event::Player;
use crate::spelling::{Spelled, spelled};

/// Which of a player's FIDE ratings to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ListRating {
    /// Standard (classical).
    Standard,
    /// Rapid.
    Rapid,
    /// Blitz.
    Blitz,
}

impl Spelled for ListRating {
    const ALL: &'static [ListRating] =
        &[ListRating::Blitz, ListRating::Rapid, ListRating::Standard];
    const WHAT: &'static str = "rating";
    const EXPECTED: &'static str = "blitz, rapid or standard";
    fn spellings(self) -> &'static [&'static str] {
        match self {
            ListRating::Standard => &["standard", "std", "classical"],
            ListRating::Rapid => &["rapid"],
            ListRating::Blitz => &["blitz"],
        }
    }
    fn help(self) -> &'static str {
        match self {
            ListRating::Standard => "the standard (classical) rating",
            ListRating::Rapid => "the rapid rating",
            ListRating::Blitz => "the blitz rating",
        }
    }
}

spelled!(ListRating);

/// A rating list that cannot be read: where and what.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{source_name}{}: {message}", line.map(|n| format!(" line {n}")).unwrap_or_default())]
pub struct RatingListError {
    /// The file's name, for the message.
    pub source_name: String,
    /// The line, 1-based, when the error is on one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// One player of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedPlayer {
    /// FIDE id.
    pub fide_id: u64,
    /// Name as listed (`Surname, Given names`).
    pub name: String,
    /// Federation.
    pub federation: Option<String>,
    /// `m` or `f`.
    pub sex: Option<char>,
    /// Title (the women's title when there is no other).
    pub title: Option<String>,
    /// Standard rating (a single list's rating when the list is not the combined one).
    pub standard: Option<u32>,
    /// Rapid rating.
    pub rapid: Option<u32>,
    /// Blitz rating.
    pub blitz: Option<u32>,
    /// Year of birth.
    pub birth: Option<String>,
    /// Marked inactive.
    pub inactive: bool,
}

/// Stands for the second and later bytes of a character when a line is read by bytes.
const FILLER: char = '\u{0}';

/// The columns of a list, from its header: where each field starts (in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    /// (field, start) in order of start.
    fields: Vec<(Field, usize)>,
    /// A single list (one rating column) rather than the combined one.
    single: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Id,
    Name,
    Fed,
    Sex,
    Title,
    WomanTitle,
    Standard,
    Rapid,
    Blitz,
    Birth,
    Flag,
    Other,
}

/// A month label such as `MAR26`, the rating column of a single list.
fn month_label(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() == 5
        && b[..3].iter().all(u8::is_ascii_alphabetic)
        && b[3..].iter().all(u8::is_ascii_digit)
}

impl Layout {
    fn from_header(header: &str) -> Option<Layout> {
        let chars: Vec<char> = header.chars().collect();
        // Words with their starting column; "ID Number" is one field.
        let mut words: Vec<(String, usize)> = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == ' ' {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && chars[i] != ' ' {
                i += 1;
            }
            words.push((chars[start..i].iter().collect(), start));
        }
        let mut fields = Vec::new();
        let mut single = false;
        let mut k = 0;
        while k < words.len() {
            let (w, at) = (&words[k].0, words[k].1);
            let field = match w.to_ascii_lowercase().as_str() {
                "id" if words
                    .get(k + 1)
                    .is_some_and(|n| n.0.eq_ignore_ascii_case("number")) =>
                {
                    k += 1;
                    Field::Id
                }
                "name" => Field::Name,
                "fed" => Field::Fed,
                "sex" => Field::Sex,
                "tit" => Field::Title,
                "wtit" => Field::WomanTitle,
                "srtng" => Field::Standard,
                "rrtng" => Field::Rapid,
                "brtng" => Field::Blitz,
                "b-day" => Field::Birth,
                "flag" => Field::Flag,
                _ if month_label(w) => {
                    single = true;
                    Field::Standard
                }
                _ => Field::Other,
            };
            fields.push((field, at));
            k += 1;
        }
        let has = |f: Field| fields.iter().any(|(g, _)| *g == f);
        let rated = has(Field::Standard) || has(Field::Rapid) || has(Field::Blitz);
        (fields.first().map(|f| f.0) == Some(Field::Id) && has(Field::Name) && rated)
            .then_some(Layout { fields, single })
    }

    /// The text of `field` on a line (as chars), trimmed; empty when the line is short.
    fn get<'a>(&self, line: &'a [char], field: Field, buf: &'a mut String) -> &'a str {
        buf.clear();
        if let Some(k) = self.fields.iter().position(|(f, _)| *f == field) {
            let start = self.fields[k].1;
            let end = self.fields.get(k + 1).map_or(line.len(), |f| f.1);
            if start < line.len() {
                buf.extend(&line[start..end.min(line.len())]);
            }
        }
        buf.trim()
    }
}

/// Reads a rating list line by line (the full FIDE list has over a million lines; only
/// the players asked for are kept by [`lookup`]).
pub struct RatingListReader<'t> {
    source_name: String,
    layout: Layout,
    lines: std::iter::Enumerate<std::str::Lines<'t>>,
}

impl<'t> RatingListReader<'t> {
    /// Read the header of `text`; `source_name` names the file in errors.
    ///
    /// # Errors
    /// A [`RatingListError`] when the first line is not a FIDE rating list header.
    pub fn new(text: &'t str, source_name: &str) -> Result<Self, RatingListError> {
        let mut lines = text.lines().enumerate();
        let first = loop {
            match lines.next() {
                Some((_, l)) if l.trim().is_empty() => {}
                Some((_, l)) => break l.trim_start_matches('\u{feff}').trim_end_matches('\r'),
                None => {
                    return Err(RatingListError {
                        source_name: source_name.to_string(),
                        line: None,
                        message: "the file is empty; expected a FIDE rating list".into(),
                    });
                }
            }
        };
        let layout = Layout::from_header(first).ok_or_else(|| RatingListError {
            source_name: source_name.to_string(),
            line: Some(1),
            message: format!(
                "not a FIDE rating list: the first line should be its header (\"ID Number  \
                 Name  Fed Sex Tit ... SRtng ... RRtng ... BRtng\" or, for a single list, a \
                 month such as MAR26 as the rating column), found {:?}",
                first.chars().take(80).collect::<String>()
            ),
        })?;
        Ok(RatingListReader {
            source_name: source_name.to_string(),
            layout,
            lines,
        })
    }

    /// True for a single list (one rating column), false for the combined list.
    pub fn single(&self) -> bool {
        self.layout.single
    }

    fn error(&self, line: usize, message: String) -> RatingListError {
        RatingListError {
            source_name: self.source_name.clone(),
            line: Some(line),
            message,
        }
    }

    /// The line as columns. Lists are fixed-width; a list stored as UTF-8 may pad its
    /// names by bytes rather than by characters, so when a line has non-ASCII characters
    /// and its federation column does not read by characters, it is read by bytes (each
    /// character followed by fillers for its extra bytes, removed from the fields).
    fn columns(&self, text: &str) -> Vec<char> {
        let chars: Vec<char> = text.chars().collect();
        if text.is_ascii() {
            return chars;
        }
        let fed_at = self
            .layout
            .fields
            .iter()
            .find(|(f, _)| *f == Field::Fed)
            .map(|&(_, at)| at);
        let plausible = |cols: &[char]| {
            fed_at.is_none_or(|at| {
                let mut buf = String::new();
                let fed = self.layout.get(cols, Field::Fed, &mut buf);
                (fed.is_empty() || (fed.len() == 3 && fed.chars().all(|c| c.is_ascii_alphabetic())))
                    && cols.get(at.wrapping_sub(1)).is_none_or(|c| *c == ' ')
            })
        };
        if plausible(&chars) {
            return chars;
        }
        let mut bytes = Vec::with_capacity(text.len());
        for c in text.chars() {
            bytes.push(c);
            bytes.extend(std::iter::repeat_n(FILLER, c.len_utf8() - 1));
        }
        if plausible(&bytes) { bytes } else { chars }
    }

    fn parse_line(&self, n: usize, text: &str) -> Result<ListedPlayer, RatingListError> {
        let chars = self.columns(text);
        let mut buf = String::new();
        let mut get = |f: Field| self.layout.get(&chars, f, &mut buf).replace(FILLER, "");
        let id_text = get(Field::Id);
        let fide_id: u64 = id_text.parse().map_err(|_| {
            self.error(
                n,
                format!("the FIDE id {id_text:?} is not a number (is this a FIDE rating list?)"),
            )
        })?;
        let name = get(Field::Name);
        if name.is_empty() {
            return Err(self.error(n, format!("player {fide_id} has no name")));
        }
        let rating = |text: String, what: &str| -> Result<Option<u32>, RatingListError> {
            if text.is_empty() {
                return Ok(None);
            }
            match text.parse::<u32>() {
                Ok(0) => Ok(None),
                Ok(r) if r <= 4000 => Ok(Some(r)),
                _ => Err(self.error(
                    n,
                    format!("player {fide_id}: the {what} rating {text:?} is not a rating"),
                )),
            }
        };
        let standard = rating(get(Field::Standard), "standard")?;
        let rapid = rating(get(Field::Rapid), "rapid")?;
        let blitz = rating(get(Field::Blitz), "blitz")?;
        let fed = get(Field::Fed);
        let federation = if fed.is_empty() {
            None
        } else if fed.len() == 3 && fed.chars().all(|c| c.is_ascii_alphabetic()) {
            Some(fed.to_ascii_uppercase())
        } else {
            return Err(self.error(
                n,
                format!("player {fide_id}: the federation {fed:?} is not three letters"),
            ));
        };
        let sex = match get(Field::Sex).to_ascii_lowercase().as_str() {
            "m" => Some('m'),
            "f" | "w" => Some('f'),
            _ => None,
        };
        let title = Some(get(Field::Title))
            .filter(|t| !t.is_empty())
            .or_else(|| Some(get(Field::WomanTitle)).filter(|t| !t.is_empty()));
        let birth = Some(get(Field::Birth)).filter(|b| !b.is_empty() && b != "0000");
        let inactive = get(Field::Flag).contains('i');
        Ok(ListedPlayer {
            fide_id,
            name,
            federation,
            sex,
            title,
            standard,
            rapid,
            blitz,
            birth,
            inactive,
        })
    }
}

impl Iterator for RatingListReader<'_> {
    type Item = Result<ListedPlayer, RatingListError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (i, line) = self.lines.next()?;
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            return Some(self.parse_line(i + 1, line));
        }
    }
}

/// A name as words without case, accents or punctuation, sorted: the key names are
/// matched on.
pub fn name_key(name: &str) -> String {
    let mut words: Vec<String> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().map(fold).collect::<String>())
        .collect();
    words.sort();
    words.join(" ")
}

/// One character without case or the common Latin accents.
fn fold(c: char) -> char {
    let c = c.to_lowercase().next().unwrap_or(c);
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'č' => 'c',
        'ď' | 'đ' => 'd',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => 'e',
        'ğ' => 'g',
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'ı' => 'i',
        'ł' | 'ľ' => 'l',
        'ñ' | 'ń' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => 'o',
        'ŕ' | 'ř' => 'r',
        'ś' | 'š' | 'ş' | 'ș' => 's',
        'ť' | 'ţ' | 'ț' => 't',
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        other => other,
    }
}

/// How a player was found in the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FoundBy {
    /// By FIDE id.
    Id,
    /// By name (and federation, where that singled the player out).
    Name,
}

/// What [`lookup`] found for the event's players.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RatingListMatch {
    /// The updates to apply (only what the list has: a player listed without the
    /// rating asked for keeps their rating and gets the id and details).
    pub updates: Vec<PlayerUpdate>,
    /// Each player found: pairing number, FIDE id, how.
    pub found: Vec<(u32, u64, FoundBy)>,
    /// Players with a FIDE id the list does not have.
    pub unknown_ids: Vec<u32>,
    /// Players without a FIDE id whose name the list does not have.
    pub not_found: Vec<u32>,
    /// Players without a FIDE id whose name several listed players have, with their ids.
    pub ambiguous: Vec<(u32, Vec<u64>)>,
    /// Players listed without the rating asked for.
    pub unrated: Vec<u32>,
    /// True when the list was a single list (its one rating was used).
    pub single_list: bool,
    /// Lines read.
    pub lines: usize,
}

/// Look the event's players up in a rating list and say what to fill in.
///
/// # Errors
/// A [`RatingListError`] naming the line when the text is not a FIDE rating list or a
/// line of it cannot be read; nothing is filled in then.
pub fn lookup(
    text: &str,
    source_name: &str,
    players: &[Player],
    kind: ListRating,
) -> Result<RatingListMatch, RatingListError> {
    let reader = RatingListReader::new(text, source_name)?;
    let single = reader.single();
    let by_id: HashMap<u64, u32> = players
        .iter()
        .filter_map(|p| p.fide_id.map(|id| (id, p.id)))
        .collect();
    let mut by_name: HashMap<String, Vec<u32>> = HashMap::new();
    for p in players.iter().filter(|p| p.fide_id.is_none()) {
        by_name.entry(name_key(&p.name)).or_default().push(p.id);
    }
    let mut id_hits: HashMap<u32, ListedPlayer> = HashMap::new();
    let mut name_hits: HashMap<String, Vec<ListedPlayer>> = HashMap::new();
    let mut lines = 0;
    for listed in reader {
        let listed = listed?;
        lines += 1;
        if let Some(&p) = by_id.get(&listed.fide_id) {
            id_hits.insert(p, listed);
        } else if !by_name.is_empty() {
            let key = name_key(&listed.name);
            if by_name.contains_key(&key) {
                name_hits.entry(key).or_default().push(listed);
            }
        }
    }
    let mut out = RatingListMatch {
        single_list: single,
        lines,
        ..RatingListMatch::default()
    };
    let rating_of = |l: &ListedPlayer| {
        if single {
            l.standard
        } else {
            match kind {
                ListRating::Standard => l.standard,
                ListRating::Rapid => l.rapid,
                ListRating::Blitz => l.blitz,
            }
        }
    };
    let mut taken: HashSet<u64> = id_hits.values().map(|l| l.fide_id).collect();
    for p in players {
        let found = if p.fide_id.is_some() {
            match id_hits.get(&p.id) {
                Some(l) => Some((l, FoundBy::Id)),
                None => {
                    out.unknown_ids.push(p.id);
                    None
                }
            }
        } else {
            let candidates: Vec<&ListedPlayer> = name_hits
                .get(&name_key(&p.name))
                .map(|v| v.iter().filter(|l| !taken.contains(&l.fide_id)).collect())
                .unwrap_or_default();
            let narrowed: Vec<&ListedPlayer> = match (&p.federation, candidates.len()) {
                (Some(f), n) if n > 1 => candidates
                    .iter()
                    .copied()
                    .filter(|l| l.federation.as_deref() == Some(f.as_str()))
                    .collect(),
                _ => candidates.clone(),
            };
            match narrowed.as_slice() {
                [one] => Some((*one, FoundBy::Name)),
                [] if candidates.is_empty() => {
                    out.not_found.push(p.id);
                    None
                }
                _ => {
                    let ids = if narrowed.is_empty() {
                        &candidates
                    } else {
                        &narrowed
                    };
                    out.ambiguous
                        .push((p.id, ids.iter().map(|l| l.fide_id).collect()));
                    None
                }
            }
        };
        if let Some((l, how)) = found {
            taken.insert(l.fide_id);
            let rating = rating_of(l);
            if rating.is_none() {
                out.unrated.push(p.id);
            }
            out.found.push((p.id, l.fide_id, how));
            out.updates.push(PlayerUpdate {
                player: p.id,
                rating,
                fide_id: Some(l.fide_id),
                federation: l.federation.clone(),
                title: l.title.clone(),
                sex: l.sex,
                birth: l.birth.clone(),
            });
        }
    }
    Ok(out)
}

//! The rules for the text an event takes, in one place: every way text enters an event
//! (`Event::new`, `Event::add_player`, the site, date and report details, a rating list's
//! titles and birth dates, an event file brought whole) checks it here, so a newline can
//! never reach a TRF line or a PGN tag, and a name an evening accepts is one its server
//! games accept too.
//!
//! - One line: no control character (Unicode `Cc`: newline, carriage return, tab, NUL,
//!   DEL, the C1 controls such as NEL) and no line or paragraph separator (U+2028,
//!   U+2029), which some readers take for a line end. Surrounding blanks are trimmed.
//! - A player's name: at most [`MAX_NAME_CHARS`] characters, the limit of a game's
//!   player names (`flagfall_protocol::MAX_NAME_CHARS`; the server checks the two agree),
//!   because a server evening's games are set up with its players' names.
//! - Other text (the event's name, its site, the report's city, arbiters, ...): at most
//!   [`MAX_TEXT_CHARS`] characters.
//! - A date: `YYYY-MM-DD` (or `YYYY.MM.DD`), digits where the digits go.
//!
//! Characters are Unicode scalar values (what Rust's `char` is), the unit the TRF
//! columns are counted in too (`flagfall_pairing::trf`).
//!
//! The writers do not rely on these rules alone: an event file written before them, or
//! edited by hand, may hold anything, so the TRF writer puts a space for a control
//! character and the PGN writer escapes `"` and `\` and does the same ([`one_line`]).

use crate::event::{Event, EventError, MAX_PLAYERS, MAX_ROUNDS, NewPlayer, ReportInfo};

/// The longest player name, in characters: a game's limit (`flagfall_protocol`).
pub const MAX_NAME_CHARS: usize = 64;
/// The longest other text field (event name, site, report details), in characters.
pub const MAX_TEXT_CHARS: usize = 200;
/// The longest title or birth date a rating list may give, in characters.
pub const MAX_SHORT_CHARS: usize = 20;

/// A character no one-line text may hold.
pub fn breaks_line(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// `text` with every character that would break a line ([`breaks_line`]) replaced by a
/// space: what the writers do with text stored before these rules.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if breaks_line(c) { ' ' } else { c })
        .collect()
}

fn bad(field: &str, message: String) -> EventError {
    EventError::BadName(format!("{field}: {message}"))
}

/// Check one line of text for `field`: trimmed, not blank, at most `max` characters, no
/// character that breaks a line. Answers the trimmed text; the error names the field
/// and what is wrong (not the whole text: it may be long).
pub fn line(field: &str, text: &str, max: usize) -> Result<String, EventError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(bad(field, "empty".into()));
    }
    let n = t.chars().count();
    if n > max {
        return Err(bad(
            field,
            format!("{n} characters, longer than the {max} it may have"),
        ));
    }
    if let Some(c) = t.chars().find(|&c| breaks_line(c)) {
        return Err(bad(
            field,
            format!(
                "holds a control character (U+{:04X}); it must be one line of text",
                c as u32
            ),
        ));
    }
    Ok(t.to_string())
}

/// [`line`] for an optional field: `None` and blank text are `None`.
pub fn optional(field: &str, text: Option<&str>, max: usize) -> Result<Option<String>, EventError> {
    match text.map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) => line(field, t, max).map(Some),
    }
}

/// A character that reorders the text around it when shown (the Unicode bidirectional
/// embeddings, overrides and isolates, U+202A-U+202E and U+2066-U+2069): in a name on a
/// pairing list or the projector it would make one name read as another. The plain
/// direction marks (U+200E, U+200F, U+061C) and right-to-left scripts stay allowed.
/// The same rule as a game's names (`flagfall_protocol::is_bidi_control`).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A player's name: one line of at most [`MAX_NAME_CHARS`] characters, with no
/// bidirectional override ([`is_bidi_control`]). A name stored before this rule still
/// replays (`Event::apply_stored`).
pub fn player_name(field: &str, name: &str) -> Result<String, EventError> {
    let t = line(field, name, MAX_NAME_CHARS)?;
    if let Some(c) = t.chars().find(|&c| is_bidi_control(c)) {
        return Err(bad(
            field,
            format!(
                "holds a bidirectional override (U+{:04X}), which would make the name read \
                 as another on screen",
                c as u32
            ),
        ));
    }
    Ok(t)
}

/// A date: `YYYY-MM-DD` or `YYYY.MM.DD`.
pub fn date(field: &str, text: &str) -> Result<String, EventError> {
    let t = text.trim();
    let ok = t.len() == 10
        && t.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-' || b == b'.'
            } else {
                b.is_ascii_digit()
            }
        });
    let shown: String = t.chars().take(20).collect();
    if !ok {
        return Err(bad(
            field,
            format!("{shown:?} is not a date written YYYY-MM-DD"),
        ));
    }
    let num = |r: std::ops::Range<usize>| t[r].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (num(0..4), num(5..7), num(8..10));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => {
            return Err(bad(
                field,
                format!("{shown:?} has no month {month} (months are 01 to 12)"),
            ));
        }
    };
    if day == 0 || day > days {
        return Err(bad(
            field,
            format!("{shown:?}: that month has days 01 to {days}"),
        ));
    }
    Ok(t.to_string())
}

/// The text of a new player: the name ([`player_name`]); the federation, ids and rating
/// are checked by `Event::add_player` itself.
pub fn new_player(p: &NewPlayer) -> Result<String, EventError> {
    player_name("name", &p.name)
}

/// Every text field of the report details: `end_date` a date, the others one line of at
/// most [`MAX_TEXT_CHARS`].
pub fn report(r: &ReportInfo) -> Result<(), EventError> {
    if let Some(d) = &r.end_date {
        date("report.end_date", d)?;
    }
    for (field, value) in [
        ("report.city", &r.city),
        ("report.state", &r.state),
        ("report.zip", &r.zip),
        ("report.country", &r.country),
        ("report.federation", &r.federation),
        ("report.chief_arbiter", &r.chief_arbiter),
        ("report.deputy_arbiters", &r.deputy_arbiters),
        ("report.uscf_affiliate", &r.uscf_affiliate),
        ("report.uscf_chief_td", &r.uscf_chief_td),
        ("report.uscf_assistant_td", &r.uscf_assistant_td),
    ] {
        if let Some(v) = value {
            line(field, v, MAX_TEXT_CHARS)?;
        }
    }
    Ok(())
}

/// Everything an event file brought whole (an import) may hold that a stranger chose:
/// its size ([`MAX_PLAYERS`], [`MAX_ROUNDS`]) and every text field by the rules above,
/// each player's name once. The structure is `Event::validate`'s.
pub fn event(e: &Event) -> Result<(), EventError> {
    line("name", &e.name, MAX_TEXT_CHARS)?;
    if let Some(s) = &e.site {
        line("site", s, MAX_TEXT_CHARS)?;
    }
    if let Some(d) = &e.date {
        date("date", d)?;
    }
    report(&e.report)?;
    if e.players.len() > MAX_PLAYERS {
        return Err(EventError::NotAllowed(format!(
            "{} players: an event holds at most {}",
            crate::numbers::grouped(e.players.len()),
            crate::numbers::grouped(MAX_PLAYERS)
        )));
    }
    if e.rounds > MAX_ROUNDS || e.round_list.len() > MAX_ROUNDS as usize {
        return Err(EventError::NotAllowed(format!(
            "an event has at most {MAX_ROUNDS} rounds"
        )));
    }
    let mut names = std::collections::HashSet::new();
    for p in &e.players {
        let field = |f: &str| format!("players[{}].{f}", p.id);
        let name = player_name(&field("name"), &p.name)?;
        if name != p.name {
            return Err(bad(&field("name"), "has blanks around it".into()));
        }
        if !names.insert(name) {
            return Err(bad(
                &field("name"),
                format!(
                    "{:?} is the name of another player (each player's name is theirs alone)",
                    p.name
                ),
            ));
        }
        if let Some(f) = &p.federation
            && (f.len() != 3 || !f.bytes().all(|b| b.is_ascii_alphabetic()))
        {
            return Err(bad(&field("federation"), "not three letters".into()));
        }
        if let Some(id) = &p.uscf_id
            && (id.len() != 8 || !id.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(bad(&field("uscf_id"), "not eight digits".into()));
        }
        for (f, v) in [("title", &p.title), ("birth", &p.birth)] {
            if let Some(v) = v {
                line(&field(f), v, MAX_SHORT_CHARS)?;
            }
        }
        if let Some(c) = p.sex
            && breaks_line(c)
        {
            return Err(bad(&field("sex"), "a control character".into()));
        }
    }
    for f in &e.forbidden {
        if let Some(n) = &f.note {
            line(
                &format!("forbidden[{}-{}].note", f.a, f.b),
                n,
                MAX_TEXT_CHARS,
            )?;
        }
    }
    for entry in &e.log {
        line(&format!("log[{}].by", entry.seq), &entry.by, MAX_TEXT_CHARS)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Format;

    #[test]
    fn one_line_of_text_and_its_limit() {
        assert_eq!(line("site", "  Reno  ", 200).unwrap(), "Reno");
        for hostile in [
            "Reno\n001    9 m    Fake Player",
            "Reno\rX",
            "a\tb",
            "nul\0",
            "del\u{7f}x",
            "nel\u{85}x",
            "ls\u{2028}x",
            "ps\u{2029}x",
        ] {
            let e = line("site", hostile, 200).unwrap_err().to_string();
            assert!(e.starts_with("site: holds a control character"), "{e}");
        }
        // Blanks around the text, line ends included, are trimmed: harmless once gone.
        assert_eq!(line("site", "\tReno\r\n", 200).unwrap(), "Reno");
        let e = line("report.city", "   ", 200).unwrap_err().to_string();
        assert_eq!(e, "report.city: empty");
        // Characters, not bytes: 64 two-byte letters are a name, 65 are not.
        assert!(player_name("name", &"é".repeat(64)).is_ok());
        let e = player_name("name", &"é".repeat(65))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "name: 65 characters, longer than the 64 it may have");
        // A name with an emoji and a combining accent is a name.
        assert!(player_name("name", "Zoë 🦄 Jose\u{301}").is_ok());
        // A right-to-left name and a direction mark are names; an override is not (it
        // would show "Ann\u{202E}rekaM" as another name).
        assert!(player_name("name", "\u{5D3}\u{5E0}\u{5D4} \u{200F}Cohen").is_ok());
        for c in ['\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}'] {
            let e = player_name("name", &format!("Ann{c}rekaM"))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("name: holds a bidirectional override"), "{e}");
        }
        assert_eq!(optional("x", Some("  "), 5).unwrap(), None);
        assert_eq!(optional("x", None, 5).unwrap(), None);
    }

    #[test]
    fn dates() {
        assert_eq!(date("date", "2026-11-28").unwrap(), "2026-11-28");
        assert_eq!(date("date", "2026.11.28").unwrap(), "2026.11.28");
        for bad in [
            "2026-1-28",
            "28/11/2026",
            "2026-11-2\n",
            "20261128xx",
            "２０２６-11-28",
        ] {
            let e = date("date", bad).unwrap_err().to_string();
            assert!(e.starts_with("date: "), "{e}");
        }
    }

    /// A name entered before the one-limit rule (up to 200 characters) stays readable in
    /// a stored log, while a new entry of it is refused.
    #[test]
    fn a_stored_log_keeps_the_names_it_took() {
        use crate::change::{Change, Origin};
        let base = Event::new("Club", Format::Swiss, Some(3)).unwrap();
        let o = Origin::new("director", 1);
        let add = |name: String| Change::AddPlayer {
            player: NewPlayer {
                name,
                ..NewPlayer::default()
            },
            check_in: false,
        };
        let long = "L".repeat(100);
        let mut old = base.clone();
        old.apply_stored(add(long.clone()), &o).unwrap();
        old.apply_stored(add("Ann".into()), &o).unwrap();
        let again = Event::replay(base.clone(), &old.log).expect("the stored log replays");
        assert_eq!(again.players[0].name, long);
        let msg = base.clone().apply(add(long), &o).unwrap_err().to_string();
        assert_eq!(msg, "name: 100 characters, longer than the 64 it may have");
        // A control character was never accepted, stored or not.
        assert!(base.clone().apply_stored(add("A\nB".into()), &o).is_err());
    }

    #[test]
    fn an_event_file_is_checked_whole() {
        let mut e = Event::new("Club", Format::Swiss, Some(3)).unwrap();
        for name in ["Ann", "Bob"] {
            e.add_player(NewPlayer {
                name: name.into(),
                ..NewPlayer::default()
            })
            .unwrap();
        }
        assert!(event(&e).is_ok());
        let mut dup = e.clone();
        dup.players[1].name = "Ann".into();
        let msg = event(&dup).unwrap_err().to_string();
        assert!(
            msg.starts_with("players[2].name: \"Ann\" is the name of another"),
            "{msg}"
        );
        let mut site = e.clone();
        site.site = Some("Reno\n001 9".into());
        assert!(event(&site).unwrap_err().to_string().starts_with("site: "));
        let mut arb = e.clone();
        arb.report.chief_arbiter = Some("X\n[White \"Y\"]".into());
        let msg = event(&arb).unwrap_err().to_string();
        assert!(msg.starts_with("report.chief_arbiter: "), "{msg}");
        let mut long = e.clone();
        long.players[0].name = "A".repeat(65);
        let msg = event(&long).unwrap_err().to_string();
        assert!(msg.starts_with("players[1].name: 65 characters"), "{msg}");
        let mut many = e.clone();
        let p = many.players[0].clone();
        many.players = (1..=MAX_PLAYERS as u32 + 1)
            .map(|id| crate::event::Player {
                id,
                name: format!("P{id}"),
                ..p.clone()
            })
            .collect();
        let msg = event(&many).unwrap_err().to_string();
        assert!(
            msg.contains("10,001 players: an event holds at most 10,000"),
            "{msg}"
        );
    }
}

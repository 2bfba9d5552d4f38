//! The game as PGN, and back.
//!
//! Ordinary PGN cannot hold an illegal move, so flagfall writes a game in two layers:
//!
//! - the movetext holds the moves in SAN for as long as the game is legal chess from its
//!   start position (a completed illegal move that stood ends the SAN; one that was
//!   claimed and taken back does not). Any PGN reader (python-chess, lichess import)
//!   reads this part as an ordinary game;
//! - every game-script event, whatever it is, is kept in order in comments as a
//!   `[%ff key=value ...]` annotation (like lichess' `[%clk]`, which a completed move
//!   carries too: the mover's clock after it), followed by the rulings it
//!   led to in words with their rules. Readers show these as comments; `flagfall replay
//!   --from-pgn` reads them back into the exact game script.
//!
//! The setup travels in tags: `Rules`, `FlagfallTimeControl`, `FlagfallSetup`, plus the
//! standard `White`, `Black`, `FEN`/`SetUp`, `TimeControl`, `Result`, `Termination`.
//! Every tag value is a PGN string token ([`tag_value`]): quotes and
//! backslashes escaped, control characters replaced by a space, so that no player's
//! name can end its tag and inject tags or moves; a name read back has spaces where it
//! had control characters. Ruling texts in comments have their braces and brackets
//! turned into parentheses, so that free text cannot end a comment or forge an event.
//! A PGN without `%ff` annotations (from anywhere else) is read as a plain game: its SAN
//! moves become move-and-press events at `at = 0` under the rules given by `--rules`.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use serde_json::{Map, Value};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position as _};

use flagfall_core::board::MoveRecord;
use flagfall_core::colour;

use crate::outcome::Reason;
use crate::script::Script;
use crate::{Game, Replay, SharedTablebase, replay_game};

/// Why a PGN could not be turned into a game script.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    #[error("PGN: no game found")]
    Empty,
    #[error("PGN: {0}")]
    Read(String),
    #[error("PGN tag {tag}: {message}")]
    Tag { tag: String, message: String },
    #[error("PGN annotation #{index} `[%ff {text}]`: {message}")]
    Annotation {
        index: usize,
        text: String,
        message: String,
    },
    #[error("PGN move {san}: {message}")]
    Move { san: String, message: String },
}

fn pgn_time_control(script: &Script) -> String {
    let tc = script.setup.time_control;
    let base = tc.base_ms / 1000;
    match tc.delay {
        flagfall_core::timecontrol::Delay::Increment { ms } => format!("{base}+{}", ms / 1000),
        _ => base.to_string(),
    }
}

fn termination(reason: Option<Reason>) -> &'static str {
    match reason {
        None => "unterminated",
        Some(Reason::TimeForfeit) => "time forfeit",
        Some(Reason::IllegalMove | Reason::PenaltyForfeit) => "rules infraction",
        Some(Reason::Director) => "adjudication",
        Some(_) => "normal",
    }
}

// Tag values (PGN Standard §8.1.1: a tag value is a string token, §7: printing
// characters between quotes, `\"` and `\\` escaped, no newline or tab inside). A value
// from outside (a player's name, a user ruleset's citation) may hold any character, and
// a newline would end the tag and let the rest be read as tags or moves.
//
// Choice: a control character (Unicode Cc: U+0000 to U+001F, U+007F to U+009F, so
// newline, carriage return, tab and NEL) and the line and paragraph separators U+2028
// and U+2029 are each *replaced by a space*, not stripped: "Ann\nLee" is written
// `Ann Lee`, so words stay apart. Nothing else changes: the value is not trimmed or
// shortened (the standard's 255-character limit is not applied; python-chess and
// pgn-reader take longer values). docs/game-script.md §6 says the same.

/// A character a tag value cannot hold and that is written as a space instead.
fn replaced_by_space(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// `text` as the inside of a PGN string token (the choice above): control characters
/// and line separators replaced by a space, `\` and `"` escaped.
pub fn tag_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if replaced_by_space(c) => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// What a PGN reader gives back for a value written with [`tag_value`]: `text` with
/// control characters and line separators replaced by a space.
pub fn tag_value_read_back(text: &str) -> String {
    text.chars()
        .map(|c| if replaced_by_space(c) { ' ' } else { c })
        .collect()
}

/// Text in a brace comment: a `}` would end the comment, and a `[` could open an
/// annotation the reader takes for an event (`[%ff ...]` inside a ruling's free text,
/// such as a `call_director` reason), so braces and brackets become parentheses.
fn clean_comment(s: &str) -> String {
    s.replace(['{', '['], "(").replace(['}', ']'], ")")
}

/// Flatten an event's JSON object into `key=value` tokens (nested objects as `a.b=v`).
fn tokens(value: &Value) -> String {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            }
            Value::Bool(true) => out.push(prefix.to_string()),
            Value::String(s) => out.push(format!("{prefix}={}", token_text(s))),
            other => out.push(format!("{prefix}={other}")),
        }
    }
    let mut out = Vec::new();
    walk("", value, &mut out);
    out.join(" ")
}

/// A string value as a token: as it is when it is made of plain characters and cannot be
/// read back as something else (a number, a boolean); otherwise `%` followed by the text
/// percent-encoded (free text such as a `call_director` reason, with spaces, brackets or
/// braces that a PGN comment cannot hold).
fn token_text(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:+;".contains(c);
    let ambiguous = s.is_empty()
        || s == "true"
        || s == "false"
        || s.parse::<i64>().is_ok()
        || !s.chars().all(plain);
    if !ambiguous {
        return s.to_string();
    }
    let mut out = String::from("%");
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The inverse of [`token_text`] for a value that starts with `%`.
fn untoken_text(encoded: &str) -> Result<String, String> {
    let bytes = encoded.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = encoded
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad escape in `%{encoded}`"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("`%{encoded}` is not UTF-8 text"))
}

/// The inverse of [`tokens`].
fn untokens(text: &str) -> Result<Value, String> {
    let mut root = Map::new();
    for tok in text.split_whitespace() {
        let (key, value) = match tok.split_once('=') {
            None => (tok, Value::Bool(true)),
            Some((k, v)) => {
                let value = if let Some(encoded) = v.strip_prefix('%') {
                    Value::from(untoken_text(encoded)?)
                } else if v == "true" {
                    Value::Bool(true)
                } else if v == "false" {
                    Value::Bool(false)
                } else if let Ok(n) = v.parse::<i64>() {
                    Value::from(n)
                } else if let Ok(n) = v.parse::<u64>() {
                    // An instant beyond i64 (`at` is a u64 in the script).
                    Value::from(n)
                } else {
                    Value::from(v)
                };
                (k, value)
            }
        };
        if key.is_empty() {
            return Err(format!("empty key in `{tok}`"));
        }
        match key.split_once('.') {
            None => {
                root.insert(key.to_string(), value);
            }
            Some((outer, inner)) => {
                let entry = root
                    .entry(outer.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                match entry {
                    Value::Object(m) => {
                        m.insert(inner.to_string(), value);
                    }
                    _ => return Err(format!("`{outer}` is both a value and an object")),
                }
            }
        }
    }
    Ok(Value::Object(root))
}

fn start_chess(script: &Script) -> Option<Chess> {
    match &script.setup.fen {
        None => Some(Chess::default()),
        Some(f) => f
            .parse::<Fen>()
            .ok()?
            .into_position::<Chess>(CastlingMode::Standard)
            .ok(),
    }
}

/// A clock reading as the `[%clk H:MM:SS]` annotation lichess and python-chess read,
/// in whole seconds (rounded down).
fn clk_annotation(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("[%clk {}:{:02}:{:02}]", s / 3600, s / 60 % 60, s % 60)
}

/// Write a replayed game as PGN (see the module documentation).
pub fn to_pgn(script: &Script) -> String {
    to_pgn_with(script, None)
}

/// [`to_pgn`], the director's assistant consulting `tablebase` (as
/// [`crate::replay_with_tablebase`] does).
pub fn to_pgn_with(script: &Script, tablebase: Option<SharedTablebase>) -> String {
    // Replay, noting after each event how many moves stand completed and the moves it
    // completed (a later reinstatement may take a move out of the final record).
    let mut hist_after: Vec<usize> = vec![0; script.events.len() + 1];
    let mut completed_by: Vec<Vec<MoveRecord>> = vec![Vec::new(); script.events.len() + 1];
    // The mover's clock (ms) once the event that completed their move was applied: the
    // `[%clk]` of that move, as lichess and python-chess read it.
    let mut clock_after: Vec<Option<i64>> = vec![None; script.events.len() + 1];
    let mut last_seen = 0usize;
    let mut last_len = 0usize;
    let game = Game::new(script.setup.clone()).with_tablebase(tablebase);
    let replay: Replay = replay_game(game, script, |game, n| {
        let history = game.history();
        let len = history.len();
        for slot in hist_after.iter_mut().take(n + 1).skip(last_seen + 1) {
            *slot = len;
        }
        if len > last_len {
            completed_by[n] = history[last_len.min(len)..]
                .iter()
                .map(|c| c.record.clone())
                .collect();
            clock_after[n] = completed_by[n]
                .last()
                .map(|r| game.remaining(r.mover).max(0));
        }
        last_seen = n;
        last_len = len;
    });

    let mut out = String::new();
    let setup = &script.setup;
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!("[{name} \"{}\"]\n", tag_value(value)));
    };
    tag("Event", "flagfall game");
    tag("Site", "?");
    tag("Date", "????.??.??");
    tag("Round", "-");
    tag("White", setup.white.as_deref().unwrap_or("?"));
    tag("Black", setup.black.as_deref().unwrap_or("?"));
    tag("Result", replay.result.as_str());
    if let Some(fen) = &setup.fen {
        tag("SetUp", "1");
        tag("FEN", fen);
    }
    tag("TimeControl", &pgn_time_control(script));
    tag("Termination", termination(replay.reason));
    tag("Rules", &setup.ruleset.id);
    tag("FlagfallTimeControl", &setup.time_control.to_string());
    let mut opts = format!(
        "auto_flag={} arbiter_calls_illegal={} simultaneous_ms={} director={}",
        setup.auto_flag, setup.arbiter_calls_illegal, setup.simultaneous_ms, setup.director
    );
    if !setup.variations.is_empty() {
        opts.push_str(&format!(" variation={}", setup.variations.join(",")));
    }
    tag("FlagfallSetup", &opts);
    if let Some(reason) = replay.reason {
        tag("FlagfallReason", reason.as_str());
    }
    if let Some(rule) = &replay.rule {
        tag("FlagfallRule", rule);
    }
    out.push('\n');

    // Movetext: SAN while the record is legal chess, every event in a comment.
    let mut chess_at: Vec<Option<Chess>> = vec![start_chess(script)];
    let mut words: Vec<String> = Vec::new();
    let mut need_number = true;
    let mut prev_len = 0usize;
    for (i, event) in script.events.iter().enumerate() {
        let n = i + 1;
        let len = hist_after[n];
        if len < prev_len {
            chess_at.truncate(len + 1);
            need_number = true;
        }
        let mut sans = Vec::new();
        for record in &completed_by[n] {
            let next = chess_at.last().cloned().flatten().and_then(|pos| {
                let uci = UciMove::from_ascii(record.mv.to_string().as_bytes()).ok()?;
                let m = uci.to_move(&pos).ok()?;
                let number = pos.fullmoves().get();
                let turn = pos.turn();
                let mut after = pos.clone();
                let san = SanPlus::from_move_and_play_unchecked(&mut after, m).to_string();
                Some((after, number, turn, san))
            });
            match next {
                Some((after, number, turn, san)) if record.legality.is_legal() => {
                    let label = match (turn, need_number) {
                        (Color::White, _) => format!("{number}. {san}"),
                        (Color::Black, true) => format!("{number}... {san}"),
                        (Color::Black, false) => san,
                    };
                    sans.push(label);
                    need_number = false;
                    chess_at.push(Some(after));
                }
                _ => chess_at.push(None),
            }
        }
        prev_len = len;
        // Every completed move written in SAN: its mover's clock after it.
        let clk = clock_after[n]
            .filter(|_| !sans.is_empty() && sans.len() == completed_by[n].len())
            .map(|ms| format!(" {}", clk_annotation(ms)))
            .unwrap_or_default();
        words.extend(sans);
        let mut comment = format!("[%ff {}]{clk}", tokens(&event.to_json()));
        for r in replay.rulings.iter().filter(|r| r.event == n) {
            comment.push_str(&format!(
                " {} ({}).",
                clean_comment(&r.ruling),
                clean_comment(&r.rule)
            ));
        }
        words.push(format!("{{{comment}}}"));
        need_number = true;
    }
    words.push(replay.result.as_str().to_string());
    // Wrap at about 80 columns, never inside a token.
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[derive(Default)]
struct Collected {
    tags: BTreeMap<String, String>,
    annotations: Vec<String>,
    sans: Vec<String>,
}

struct Collector;

impl Visitor for Collector {
    type Tags = BTreeMap<String, String>;
    type Movetext = Collected;
    type Output = Collected;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(BTreeMap::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.insert(
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        );
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Collected {
            tags,
            ..Collected::default()
        })
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> ControlFlow<Self::Output> {
        movetext.sans.push(san_plus.to_string());
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        movetext: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        let text = String::from_utf8_lossy(comment.as_bytes());
        let mut rest: &str = &text;
        while let Some(start) = rest.find("[%ff") {
            let after = &rest[start + 4..];
            let Some(end) = after.find(']') else { break };
            movetext.annotations.push(after[..end].trim().to_string());
            rest = &after[end + 1..];
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(
        &mut self,
        _movetext: &mut Self::Movetext,
    ) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        movetext
    }
}

/// Read the first game of a PGN back into game-script text. `default_rules` is used
/// when the PGN has no `Rules` tag (a PGN from elsewhere).
pub fn from_pgn(text: &str, default_rules: &str) -> Result<String, PgnError> {
    let mut reader = Reader::new(text.as_bytes());
    let collected = reader
        .read_game(&mut Collector)
        .map_err(|e| PgnError::Read(e.to_string()))?
        .ok_or(PgnError::Empty)?;
    let tags = &collected.tags;
    let mut setup = Map::new();
    let rules = tags
        .get("Rules")
        .cloned()
        .unwrap_or_else(|| default_rules.to_string());
    setup.insert("rules".into(), Value::from(rules));
    let tc = match tags.get("FlagfallTimeControl") {
        Some(tc) => tc.clone(),
        None => match tags.get("TimeControl") {
            Some(t) if t.contains('+') => {
                let (b, i) = t.split_once('+').unwrap_or((t, "0"));
                let secs: u64 = b.parse().map_err(|_| PgnError::Tag {
                    tag: "TimeControl".into(),
                    message: format!("{t:?} is not seconds+increment"),
                })?;
                format!("G/{};inc{i}", secs as f64 / 60.0)
            }
            Some(t) => {
                let secs: u64 = t.parse().map_err(|_| PgnError::Tag {
                    tag: "TimeControl".into(),
                    message: format!("{t:?} is not a number of seconds"),
                })?;
                format!("G/{}", secs as f64 / 60.0)
            }
            None => "G/5;d0".to_string(),
        },
    };
    setup.insert("time_control".into(), Value::from(tc));
    if let Some(fen) = tags.get("FEN") {
        setup.insert("fen".into(), Value::from(fen.clone()));
    }
    for (tag, key) in [("White", "white"), ("Black", "black")] {
        if let Some(name) = tags.get(tag).filter(|n| n.as_str() != "?") {
            setup.insert(key.into(), Value::from(name.clone()));
        }
    }
    if let Some(opts) = tags.get("FlagfallSetup") {
        for tok in opts.split_whitespace() {
            let (k, v) = tok.split_once('=').ok_or_else(|| PgnError::Tag {
                tag: "FlagfallSetup".into(),
                message: format!("`{tok}` is not key=value"),
            })?;
            let value = match (k, v) {
                ("variation", v) => Value::Array(v.split(',').map(Value::from).collect()),
                (_, "true") => Value::Bool(true),
                (_, "false") => Value::Bool(false),
                (_, v) => Value::from(v.parse::<u64>().map_err(|_| PgnError::Tag {
                    tag: "FlagfallSetup".into(),
                    message: format!("`{tok}`: expected true, false or a number"),
                })?),
            };
            setup.insert(k.to_string(), value);
        }
    }
    let mut lines = vec![Value::Object(setup).to_string()];
    if collected.annotations.is_empty() {
        // A plain PGN: its SAN moves, each moved and pressed at 0.
        let mut pos: Chess = match tags.get("FEN") {
            None => Chess::default(),
            Some(f) => f
                .parse::<Fen>()
                .map_err(|e| PgnError::Tag {
                    tag: "FEN".into(),
                    message: e.to_string(),
                })?
                .into_position(CastlingMode::Standard)
                .map_err(|e| PgnError::Tag {
                    tag: "FEN".into(),
                    message: e.to_string(),
                })?,
        };
        for san in &collected.sans {
            let parsed: SanPlus =
                san.parse()
                    .map_err(|e: shakmaty::san::ParseSanError| PgnError::Move {
                        san: san.clone(),
                        message: e.to_string(),
                    })?;
            let m = parsed.san.to_move(&pos).map_err(|e| PgnError::Move {
                san: san.clone(),
                message: e.to_string(),
            })?;
            let by = colour::key(pos.turn());
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            pos.play_unchecked(m);
            lines.push(format!(
                "{{\"at\":0,\"by\":\"{by}\",\"move\":\"{uci}\",\"press\":true}}"
            ));
        }
    } else {
        for (i, a) in collected.annotations.iter().enumerate() {
            let v = untokens(a).map_err(|message| PgnError::Annotation {
                index: i + 1,
                text: a.clone(),
                message,
            })?;
            lines.push(v.to_string());
        }
    }
    Ok(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script;

    /// The SAN moves and tags a plain PGN reader (pgn-reader, without flagfall's
    /// annotations) finds in `pgn`, and how many games.
    fn plain_reading(pgn: &str) -> (Vec<Collected>, usize) {
        let mut reader = Reader::new(pgn.as_bytes());
        let mut games = Vec::new();
        while let Ok(Some(g)) = reader.read_game(&mut Collector) {
            games.push(g);
        }
        let n = games.len();
        (games, n)
    }

    #[test]
    fn quotes_and_backslashes_are_escaped() {
        assert_eq!(tag_value(r#"a "b" \c"#), r#"a \"b\" \\c"#);
        assert_eq!(tag_value("Émile Ñúñez"), "Émile Ñúñez");
    }

    #[test]
    fn control_characters_become_spaces_and_cannot_end_the_tag() {
        let name = "\"]\n1. f3 e5 2. g4 Qh4# 0-1";
        let v = tag_value(name);
        assert_eq!(v, "\\\"] 1. f3 e5 2. g4 Qh4# 0-1");
        assert!(!v.chars().any(char::is_control));
        for c in ['\r', '\t', '\0', '\u{7f}', '\u{85}', '\u{2028}', '\u{2029}'] {
            assert_eq!(tag_value(&format!("a{c}b")), "a b", "{:?}", c);
        }
        assert_eq!(tag_value_read_back(name), "\"] 1. f3 e5 2. g4 Qh4# 0-1");
    }

    /// Issue 19 item 16: a newline in a player's name injected tags and moves (python-chess
    /// read `1. f3 e5 2. g4 Qh4# 0-1` from a game with no moves).
    #[test]
    fn a_name_cannot_inject_tags_or_moves() {
        let evil = "\"]\n1. f3 e5 2. g4 Qh4# 0-1";
        let setup = serde_json::json!({
            "rules": "uscf-2020", "time_control": "G/5;d0",
            "white": evil, "black": "Tab\there \\ \"quoted\"\r\n[Result \"1-0\"]",
        });
        let text = format!("{setup}\n{{\"at\":1000,\"by\":\"white\",\"resign\":true}}\n");
        let s = script::parse(&text).expect("script parses");
        let pgn = to_pgn(&s);
        // One line per tag, each a complete tag pair; the movetext is the one event and
        // the result.
        let tag_lines: Vec<&str> = pgn.lines().take_while(|l| !l.is_empty()).collect();
        assert!(
            tag_lines
                .iter()
                .all(|l| l.starts_with('[') && l.ends_with("\"]")),
            "{pgn}"
        );
        assert_eq!(
            tag_lines
                .iter()
                .filter(|l| l.starts_with("[White "))
                .count(),
            1
        );
        assert_eq!(
            tag_lines
                .iter()
                .filter(|l| l.starts_with("[Result "))
                .count(),
            1
        );
        let (games, n) = plain_reading(&pgn);
        assert_eq!(n, 1, "{pgn}");
        let g = &games[0];
        assert!(g.sans.is_empty(), "moves injected: {:?}\n{pgn}", g.sans);
        assert_eq!(g.tags["White"], "\"] 1. f3 e5 2. g4 Qh4# 0-1");
        assert_eq!(g.tags["Black"], "Tab here \\ \"quoted\"  [Result \"1-0\"]");
        assert_eq!(g.tags["Result"], "0-1");
        // flagfall's own reader: the same game, the names with spaces for the controls.
        let back =
            script::parse(&from_pgn(&pgn, "uscf-2020").expect("reads back")).expect("parses");
        assert_eq!(
            back.setup.white.as_deref(),
            Some("\"] 1. f3 e5 2. g4 Qh4# 0-1")
        );
        assert_eq!(back.events.len(), 1);
        assert_eq!(crate::replay(&back).to_json(), crate::replay(&s).to_json());
    }

    /// Free text in a ruling (a `call_director` reason) is written into the comment after
    /// the event's annotation: it must not be read back as another event.
    #[test]
    fn a_reason_cannot_forge_an_event() {
        let text = concat!(
            r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#,
            "\n",
            r#"{"at":1000,"by":"white","move":"e2e4","press":true}"#,
            "\n",
            r#"{"at":2000,"by":"black","call_director":true,"reason":"x] [%ff at=3000 by=black resign] {y}"}"#,
            "\n"
        );
        let s = script::parse(text).expect("script parses");
        let pgn = to_pgn(&s);
        let back =
            script::parse(&from_pgn(&pgn, "uscf-2020").expect("reads back")).expect("parses");
        assert_eq!(back.events, s.events, "{pgn}");
        assert_eq!(crate::replay(&back).to_json(), crate::replay(&s).to_json());
    }

    #[test]
    fn tokens_round_trip() {
        for line in [
            r#"{"at":2000,"by":"white","move":"e2e4","press":true}"#,
            r#"{"at":5,"by":"director","add_time":{"color":"black","ms":-60000}}"#,
            r#"{"at":5,"by":"director","result":{"result":"1/2-1/2","reason":"director"}}"#,
            r#"{"at":5,"by":"director","result":"cancel"}"#,
            r#"{"at":5,"by":"white","claim":"threefold","move":"g1f3"}"#,
            r#"{"at":5,"by":"director","ruling":{"grant":false}}"#,
            r#"{"at":5,"by":"white","call_director":true,"reason":"he took back [a] {move} = 100%, été"}"#,
            r#"{"at":5,"by":"white","call_director":true,"reason":"42"}"#,
        ] {
            let v: Value = serde_json::from_str(line).expect("json");
            assert_eq!(untokens(&tokens(&v)).expect("tokens"), v, "{line}");
        }
    }
}

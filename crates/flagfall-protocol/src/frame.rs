//! The client's frames: `{"ping": N}` or an action, parsed with their size limit and
//! field-named errors.

use flagfall_game::script::{self, Action, Event, MAX_LAG_MS};
use serde_json::Value;

use crate::{MAX_FRAME_BYTES, MAX_ID_BYTES};

/// A client frame that is not valid: the field at fault and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {message}")]
pub struct FrameError {
    /// The client's `id`, when it could be read, to echo.
    pub id: Option<String>,
    pub field: String,
    pub message: String,
}

/// A valid client frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientFrame {
    /// `{"ping": N}`: answered with a pong.
    Ping(u64),
    /// One game-script event without `at` and `by`.
    Action {
        id: Option<String>,
        /// The client's own estimate of network delay for this action.
        lag_ms: Option<u64>,
        action: Action,
        /// A move typed in SAN (`{"san": "Nf3"}`), for the game to read against its
        /// position ([`crate::resolve_san`]); `action` is then that move, its squares
        /// yet to be filled in (`a1a1`), with the frame's `press`.
        san: Option<String>,
    },
}

impl ClientFrame {
    /// The event this action makes when the server stamps it.
    pub fn event(action: Action, at: u64, by: script::Party, lag_ms: u64) -> Event {
        Event {
            line: 0,
            at,
            by: Some(by),
            lag_ms: if action.presses() { lag_ms } else { 0 },
            action,
        }
    }
}

fn frame_err(id: &Option<String>, field: &str, message: impl Into<String>) -> FrameError {
    FrameError {
        id: id.clone(),
        field: field.to_string(),
        message: message.into(),
    }
}

/// Parse one client text frame (docs/protocol.md): at most [`MAX_FRAME_BYTES`], a JSON
/// object that is either `{"ping": N}` or a game-script event without `at` and `by`,
/// with optional `id` (a string of at most [`MAX_ID_BYTES`]) and `lag_ms`. Never panics.
pub fn parse_frame(text: &str) -> Result<ClientFrame, FrameError> {
    let mut map = read_object(text)?;
    let id = read_id(&mut map)?;
    if let Some(ping) = map.remove("ping") {
        let Some(n) = ping.as_u64() else {
            return Err(frame_err(&id, "ping", "expected a whole number"));
        };
        if let Some(k) = map.keys().next() {
            return Err(frame_err(&id, k, "a ping frame has no other field"));
        }
        return Ok(ClientFrame::Ping(n));
    }
    for stamped in ["at", "by"] {
        if map.contains_key(stamped) {
            return Err(frame_err(
                &id,
                stamped,
                "the server stamps `at` and `by` itself: leave the field out",
            ));
        }
    }
    let lag_ms = read_lag(&mut map, &id)?;
    if let Some(san) = map.remove("san") {
        return san_frame(id, lag_ms, san, map);
    }
    let action =
        script::parse_unstamped_action(&map).map_err(|e| frame_err(&id, &e.field, e.message))?;
    if lag_ms.is_some() && !action.presses() {
        return Err(frame_err(
            &id,
            "lag_ms",
            "lag compensation goes only with a press",
        ));
    }
    if matches!(action, Action::End) {
        return Err(frame_err(
            &id,
            "end",
            "`end` closes a record; a live game ends by its own events",
        ));
    }
    Ok(ClientFrame::Action {
        id,
        lag_ms,
        action,
        san: None,
    })
}

/// The frame's JSON object, within [`MAX_FRAME_BYTES`].
fn read_object(text: &str) -> Result<serde_json::Map<String, Value>, FrameError> {
    let none = None;
    if text.len() > MAX_FRAME_BYTES {
        return Err(frame_err(
            &none,
            "(frame)",
            format!(
                "{} bytes, more than the {MAX_FRAME_BYTES} allowed",
                text.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| frame_err(&none, "(json)", format!("not valid JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(frame_err(&none, "(json)", "expected a JSON object"));
    };
    Ok(map)
}

/// The client's `id` (taken out of `map`): a string of at most [`MAX_ID_BYTES`].
fn read_id(map: &mut serde_json::Map<String, Value>) -> Result<Option<String>, FrameError> {
    let none = None;
    match map.remove("id") {
        None => Ok(None),
        Some(Value::String(s)) if s.len() <= MAX_ID_BYTES => Ok(Some(s)),
        Some(Value::String(_)) => Err(frame_err(
            &none,
            "id",
            format!("longer than {MAX_ID_BYTES} bytes"),
        )),
        Some(_) => Err(frame_err(&none, "id", "expected a string")),
    }
}

/// The client's `lag_ms` (taken out of `map`): whole milliseconds up to [`MAX_LAG_MS`].
fn read_lag(
    map: &mut serde_json::Map<String, Value>,
    id: &Option<String>,
) -> Result<Option<u64>, FrameError> {
    match map.remove("lag_ms") {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if n <= MAX_LAG_MS => Ok(Some(n)),
            _ => Err(frame_err(
                id,
                "lag_ms",
                format!("expected whole milliseconds from 0 to {MAX_LAG_MS}"),
            )),
        },
    }
}

/// `{"san": "Nf3"}`, with `press` at most: a move typed as players write it.
fn san_frame(
    id: Option<String>,
    lag_ms: Option<u64>,
    san: Value,
    map: serde_json::Map<String, Value>,
) -> Result<ClientFrame, FrameError> {
    let Value::String(text) = san else {
        return Err(frame_err(
            &id,
            "san",
            "expected a move as text, like \"Nf3\" or \"O-O\"",
        ));
    };
    if text.chars().count() > crate::MAX_SAN_CHARS {
        return Err(frame_err(
            &id,
            "san",
            format!(
                "longer than {} characters: a move is like \"Nf3\"",
                crate::MAX_SAN_CHARS
            ),
        ));
    }
    let mut press = false;
    for (k, v) in map {
        match (k.as_str(), v) {
            ("press", Value::Bool(b)) => press = b,
            ("press", _) => return Err(frame_err(&id, "press", "expected true or false")),
            (other, _) => {
                return Err(frame_err(
                    &id,
                    other,
                    "a typed move (`san`) goes with `press` only",
                ));
            }
        }
    }
    if lag_ms.is_some() && !press {
        return Err(frame_err(
            &id,
            "lag_ms",
            "lag compensation goes only with a press",
        ));
    }
    let corner =
        flagfall_core::board::PhysicalMove::new(shakmaty::Square::A1, shakmaty::Square::A1);
    Ok(ClientFrame::Action {
        id,
        lag_ms,
        action: Action::Move { mv: corner, press },
        san: Some(text),
    })
}

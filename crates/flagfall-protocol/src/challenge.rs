//! The lobby's open challenges on the wire (docs/protocol.md, "Challenges"): the bodies
//! the server reads and the answers it gives.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{ColorName, CreateGame, MAX_BODY_BYTES, Mode, SetupError};

/// The longest player name a challenge takes, in characters (the one limit of names).
pub const MAX_NAME_CHARS: usize = crate::MAX_NAME_CHARS;

/// The creator's colour choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

impl ColorChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            ColorChoice::White => "white",
            ColorChoice::Black => "black",
            ColorChoice::Random => "random",
        }
    }

    pub fn parse(s: &str) -> Option<ColorChoice> {
        match s {
            "white" => Some(ColorChoice::White),
            "black" => Some(ColorChoice::Black),
            "random" => Some(ColorChoice::Random),
            _ => None,
        }
    }
}

/// A `POST /api/challenges` body: the `POST /api/games` fields plus `color` and `name`.
#[derive(Debug, Clone)]
pub struct ChallengeBody {
    pub game: CreateGame,
    pub color: ColorChoice,
    pub name: Option<String>,
}

fn bad(field: &str, message: impl Into<String>) -> SetupError {
    SetupError {
        field: field.to_string(),
        message: message.into(),
    }
}

/// A name field: a string of at most [`MAX_NAME_CHARS`] characters, trimmed; blank is
/// none.
fn name_field(v: Option<Value>, field: &str) -> Result<Option<String>, SetupError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let t = s.trim();
            crate::check_name(field, t)?;
            Ok((!t.is_empty()).then(|| t.to_string()))
        }
        Some(_) => Err(bad(field, "expected a string")),
    }
}

fn object(body: &[u8]) -> Result<Map<String, Value>, SetupError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(bad(
            "(body)",
            format!(
                "{} bytes, more than the {MAX_BODY_BYTES} allowed",
                body.len()
            ),
        ));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(bad("(json)", "expected a JSON object")),
        Err(e) => Err(bad("(json)", format!("not valid JSON: {e}"))),
    }
}

impl ChallengeBody {
    /// Parse and validate a body (the game's setup through the game-script parser),
    /// naming the field that is wrong.
    pub fn from_json(body: &[u8]) -> Result<ChallengeBody, SetupError> {
        let mut map = object(body)?;
        let color = match map.remove("color") {
            None => ColorChoice::Random,
            Some(Value::String(s)) => ColorChoice::parse(&s).ok_or_else(|| {
                bad(
                    "color",
                    format!("{s:?}: expected \"white\", \"black\" or \"random\""),
                )
            })?,
            Some(_) => return Err(bad("color", "expected \"white\", \"black\" or \"random\"")),
        };
        let name = name_field(map.remove("name"), "name")?;
        let rest = Value::Object(map).to_string();
        let mut game = CreateGame::from_json(rest.as_bytes())?;
        if game.director == Some(true) {
            return Err(bad(
                "director",
                "a challenge's game has no director (nobody but its two players holds a token)",
            ));
        }
        game.director = Some(false);
        game.setup_line()?;
        Ok(ChallengeBody { game, color, name })
    }
}

/// The body of `POST /api/challenges/{id}/accept`: optional, `{"name"?: "..."}`.
pub fn accept_name(body: &[u8]) -> Result<Option<String>, SetupError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let mut map = object(body)?;
    let name = name_field(map.remove("name"), "name")?;
    if let Some(k) = map.keys().next() {
        return Err(bad(k, "unknown field (an accept body has only `name`)"));
    }
    Ok(name)
}

/// The answer to `POST /api/challenges` (201).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Created {
    pub id: String,
    /// The creator's secret: to cancel, and to learn the game once accepted.
    pub secret: String,
    /// The page the creator waits on.
    pub url: String,
}

/// A challenge as the lobby lists it (no secrets).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Listed {
    pub id: String,
    pub status: Standing,
    /// The creator's colour choice.
    pub color: ColorChoice,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub rules: String,
    pub time_control: String,
    pub mode: Mode,
    pub created_ms: i64,
}

/// The creator's game, once the challenge is accepted.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CreatorGame {
    pub id: String,
    /// The creator's colour in it.
    pub color: ColorName,
    pub token: String,
    pub url: String,
}

/// `GET /api/challenges/{id}`: the listing, and with the right secret the creator's game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Seen {
    #[serde(flatten)]
    pub challenge: Listed,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<CreatorGame>,
}

/// The answer to an accept (201): the accepter's side of the new game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Accepted {
    pub game_id: String,
    /// The accepter's colour.
    pub color: ColorName,
    pub token: String,
    pub url: String,
}

/// Where a challenge stands as the lobby sees it: its stored status, or `expired` for an
/// open challenge past its time. Distinct from the store's `ChallengeStatus`, which has
/// no `expired`: expiry is read at a moment, never written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    Open,
    Accepted,
    Cancelled,
    Expired,
}

impl Standing {
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Open => "open",
            Standing::Accepted => "accepted",
            Standing::Cancelled => "cancelled",
            Standing::Expired => "expired",
        }
    }
}

impl std::fmt::Display for Standing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

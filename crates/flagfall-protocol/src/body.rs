//! The HTTP bodies: creating a game (`POST /api/games`) and its answer.

use flagfall_game::script::{self, GameSetup};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::{MAX_BODY_BYTES, MAX_SIMULTANEOUS_MS};

/// How the game is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The physical board of the rulebooks: illegal moves stand until claimed.
    #[default]
    Otb,
    /// Ordinary online blitz: legal moves only, automatic flagging.
    Online,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Otb => "otb",
            Mode::Online => "online",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "otb" => Some(Mode::Otb),
            "online" => Some(Mode::Online),
            _ => None,
        }
    }
}

/// The body of `POST /api/games`: the setup fields of the game-script format, plus `mode`.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct CreateGame {
    pub rules: String,
    pub time_control: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_flag: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arbiter_calls_illegal: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "unknown")]
    pub variation: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub director: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simultaneous_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
}

/// A create-game body that cannot start a game: the field and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {message}")]
pub struct SetupError {
    pub field: String,
    pub message: String,
}

impl CreateGame {
    /// Parse a JSON body, naming the field that is wrong.
    pub fn from_json(body: &[u8]) -> Result<CreateGame, SetupError> {
        if body.len() > MAX_BODY_BYTES {
            return Err(SetupError {
                field: "(body)".into(),
                message: format!(
                    "{} bytes, more than the {MAX_BODY_BYTES} allowed",
                    body.len()
                ),
            });
        }
        serde_json::from_slice(body).map_err(|e| SetupError {
            field: serde_field(&e.to_string()),
            message: e.to_string(),
        })
    }

    /// The mode, `otb` when absent.
    pub fn mode(&self) -> Mode {
        self.mode.unwrap_or_default()
    }

    /// The game-script setup line this body stands for (online mode forces
    /// `auto_flag: true`), validated by the game-script parser, and the setup.
    pub fn setup_line(&self) -> Result<(String, GameSetup), SetupError> {
        if let Some(ms) = self.simultaneous_ms
            && ms > MAX_SIMULTANEOUS_MS
        {
            return Err(SetupError {
                field: "simultaneous_ms".into(),
                message: format!("{ms} ms, more than the {MAX_SIMULTANEOUS_MS} ms allowed"),
            });
        }
        for (field, name) in [("white", &self.white), ("black", &self.black)] {
            if let Some(name) = name {
                crate::check_name(field, name)?;
            }
        }
        let mut copy = self.clone();
        copy.mode = None;
        if self.mode() == Mode::Online {
            if copy.auto_flag == Some(false) {
                return Err(SetupError {
                    field: "auto_flag".into(),
                    message: "online games always flag automatically".into(),
                });
            }
            copy.auto_flag = Some(true);
        }
        let line = serde_json::to_string(&copy).map_err(|e| SetupError {
            field: "(body)".into(),
            message: e.to_string(),
        })?;
        let parsed = script::parse(&line).map_err(|e| SetupError {
            field: e.field,
            message: e.message,
        })?;
        Ok((line, parsed.setup))
    }
}

/// The first field named in a serde error message (`unknown field `x``, `missing field
/// `y``), or `(json)`.
fn serde_field(message: &str) -> String {
    message
        .split('`')
        .nth(1)
        .map(str::to_string)
        .unwrap_or_else(|| "(json)".into())
}

/// The three secret tokens of a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Tokens {
    pub white: String,
    pub black: String,
    pub director: String,
}

/// The page paths the web UI serves for each role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Urls {
    pub white: String,
    pub black: String,
    pub director: String,
    pub spectator: String,
}

impl Urls {
    pub fn of(id: &str, tokens: &Tokens) -> Urls {
        Urls {
            white: format!("/play/{id}?token={}", tokens.white),
            black: format!("/play/{id}?token={}", tokens.black),
            director: format!("/direct/{id}?token={}", tokens.director),
            spectator: format!("/watch/{id}"),
        }
    }
}

/// The answer to `POST /api/games` (status 201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(rename = "CreateAnswer")]
pub struct Created {
    pub id: String,
    pub tokens: Tokens,
    pub urls: Urls,
}

//! The rows the store keeps and returns.

use crate::{Result, StoreError};

/// Whether a game goes on or has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Live,
    Finished,
    /// Never started (no event stored) and expired: no result, nothing deleted.
    Aborted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Live => "live",
            Status::Finished => "finished",
            Status::Aborted => "aborted",
        }
    }

    pub(crate) fn parse(s: &str) -> Result<Status> {
        match s {
            "live" => Ok(Status::Live),
            "finished" => Ok(Status::Finished),
            "aborted" => Ok(Status::Aborted),
            other => Err(StoreError::Corrupt(format!(
                "unknown game status {other:?}"
            ))),
        }
    }
}

/// A game as created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGame {
    pub id: String,
    /// The game-script setup line.
    pub setup: String,
    pub mode: String,
    /// Hex SHA-256 of each token (the tokens themselves are never stored).
    pub token_white: String,
    pub token_black: String,
    pub token_director: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// A practice game's computer settings (JSON, as the server writes them), so the
    /// computer plays on after a restart; `None` for a game between people.
    pub practice: Option<String>,
}

/// A stored game row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRow {
    pub game: NewGame,
    pub status: Status,
    pub result: String,
}

/// An event to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    pub game_id: String,
    /// 1-based number in the game's log.
    pub n: i64,
    /// The game-script event, one JSON object.
    pub json: String,
    /// The role that sent it (`white`, `black`, `director`; none for the server's own).
    pub by_role: Option<String>,
    /// The client's `id`, kept so a retried action is recognised after a restart.
    pub client_id: Option<String>,
    /// Set when this event ends the game: the result to record on the game row.
    pub finished: Option<String>,
}

/// A game's clock against the wall clock, stored when its task starts the clock (and
/// whenever that mapping changes): the game clock read `at` when the wall clock read
/// `wall_ms` (Unix milliseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockMark {
    pub game_id: String,
    pub at: i64,
    pub wall_ms: i64,
}

/// A stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    pub n: i64,
    pub json: String,
    pub by_role: Option<String>,
    pub client_id: Option<String>,
}

/// A line of the game list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    pub id: String,
    /// The game-script setup line (names, ruleset, time control).
    pub setup: String,
    pub mode: String,
    pub status: Status,
    pub result: String,
    pub created_ms: i64,
}

/// Where an open challenge stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeStatus {
    Open,
    Accepted,
    Cancelled,
}

impl ChallengeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeStatus::Open => "open",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Cancelled => "cancelled",
        }
    }

    pub(crate) fn parse(s: &str) -> Result<ChallengeStatus> {
        match s {
            "open" => Ok(ChallengeStatus::Open),
            "accepted" => Ok(ChallengeStatus::Accepted),
            "cancelled" => Ok(ChallengeStatus::Cancelled),
            other => Err(StoreError::Corrupt(format!(
                "unknown challenge status {other:?}"
            ))),
        }
    }
}

/// An open challenge as created: a game anyone may accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewChallenge {
    pub id: String,
    /// The `POST /api/games` body of the game to create, JSON.
    pub body: String,
    /// The creator's colour: `white`, `black` or `random`.
    pub color: String,
    /// The creator's name.
    pub name: Option<String>,
    /// Hex SHA-256 of the creator's secret (the secret itself is never stored).
    pub secret_hash: String,
    /// The token hashes the game gives the creator and the director (the tokens are
    /// derived from the secret, so only the creator can compute them).
    pub token_hash: String,
    pub director_hash: String,
    pub created_ms: i64,
}

/// A stored challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeRow {
    pub challenge: NewChallenge,
    pub status: ChallengeStatus,
    /// The game, once accepted.
    pub game_id: Option<String>,
    /// The creator's colour in that game (`white` or `black`), once accepted.
    pub creator_color: Option<String>,
}

//! The rows the store keeps and returns. Enumerated columns are typed here (the
//! protocol's `Mode`, `ColorChoice`, `ColorName`, `Role` and the game crate's
//! `GameResult`) and text in the database: [`Text`] converts them at the store's
//! boundary, and a value the type does not know is a [`StoreError::BadValue`] naming the
//! column, never a default.

use flagfall_game::GameResult;
use flagfall_protocol::challenge::ColorChoice;
use flagfall_protocol::{ColorName, Mode, Role};

/// A type kept in a text column: its text, and back.
pub(crate) trait Text: Sized {
    /// The values the column may hold, for the error that names a bad one.
    const EXPECTED: &'static str;
    fn text(&self) -> &'static str;
    fn from_text(s: &str) -> Option<Self>;
}

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
}

impl Text for Status {
    const EXPECTED: &'static str = "live, finished, aborted";
    fn text(&self) -> &'static str {
        self.as_str()
    }
    fn from_text(s: &str) -> Option<Status> {
        match s {
            "live" => Some(Status::Live),
            "finished" => Some(Status::Finished),
            "aborted" => Some(Status::Aborted),
            _ => None,
        }
    }
}

impl Text for Mode {
    const EXPECTED: &'static str = "otb, online";
    fn text(&self) -> &'static str {
        self.as_str()
    }
    fn from_text(s: &str) -> Option<Mode> {
        Mode::parse(s)
    }
}

impl Text for ColorChoice {
    const EXPECTED: &'static str = "white, black, random";
    fn text(&self) -> &'static str {
        self.as_str()
    }
    fn from_text(s: &str) -> Option<ColorChoice> {
        ColorChoice::parse(s)
    }
}

impl Text for ColorName {
    const EXPECTED: &'static str = "white, black";
    fn text(&self) -> &'static str {
        self.as_str()
    }
    fn from_text(s: &str) -> Option<ColorName> {
        ColorName::parse(s)
    }
}

impl Text for Role {
    const EXPECTED: &'static str = "white, black, director, spectator";
    fn text(&self) -> &'static str {
        self.as_str()
    }
    fn from_text(s: &str) -> Option<Role> {
        Role::parse(s)
    }
}

/// A game's result as its row keeps it: PGN's `1-0`, `0-1`, `1/2-1/2`, or `*` while the
/// game goes on.
impl Text for GameResult {
    const EXPECTED: &'static str = "1-0, 0-1, 1/2-1/2, *";
    fn text(&self) -> &'static str {
        self.as_str()
    }
    fn from_text(s: &str) -> Option<GameResult> {
        match s {
            "*" => Some(GameResult::Ongoing),
            decided => GameResult::parse(decided),
        }
    }
}

/// A game as created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGame {
    pub id: String,
    /// The game-script setup line.
    pub setup: String,
    pub mode: Mode,
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
    pub result: GameResult,
}

/// An event to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    pub game_id: String,
    /// 1-based number in the game's log.
    pub n: i64,
    /// The game-script event, one JSON object.
    pub json: String,
    /// The role that sent it (a player or the director; none for the server's own).
    pub by_role: Option<Role>,
    /// The client's `id`, kept so a retried action is recognised after a restart.
    pub client_id: Option<String>,
    /// Set when this event ends the game: the result to record on the game row.
    pub finished: Option<GameResult>,
}

/// A game's clock against the wall clock, stored when its task starts the clock (and
/// whenever that mapping changes): the game clock read `at` when the wall clock read
/// `wall_ms` (Unix milliseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockMark {
    pub game_id: String,
    pub at: i64,
    pub wall_ms: i64,
    /// In a cluster, the lease epoch of the task that made it (the fencing token): the
    /// mark is stored only while the game's lease is at that epoch, and never over a
    /// later epoch's mark. `None` on a single node.
    pub lease: Option<i64>,
}

/// A stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    pub n: i64,
    pub json: String,
    pub by_role: Option<Role>,
    pub client_id: Option<String>,
}

/// A line of the game list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    pub id: String,
    /// The game-script setup line (names, ruleset, time control).
    pub setup: String,
    pub mode: Mode,
    pub status: Status,
    pub result: GameResult,
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
}

impl Text for ChallengeStatus {
    const EXPECTED: &'static str = "open, accepted, cancelled";
    fn text(&self) -> &'static str {
        self.as_str()
    }
    fn from_text(s: &str) -> Option<ChallengeStatus> {
        match s {
            "open" => Some(ChallengeStatus::Open),
            "accepted" => Some(ChallengeStatus::Accepted),
            "cancelled" => Some(ChallengeStatus::Cancelled),
            _ => None,
        }
    }
}

/// An open challenge as created: a game anyone may accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewChallenge {
    pub id: String,
    /// The `POST /api/games` body of the game to create, JSON.
    pub body: String,
    /// The creator's colour choice.
    pub color: ColorChoice,
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
    /// The creator's colour in that game, once accepted.
    pub creator_color: Option<ColorName>,
}

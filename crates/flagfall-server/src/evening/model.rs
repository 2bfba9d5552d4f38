//! What an evening is on the server beside the events library's event: its settings,
//! its stored log rows, who its tokens are, and the snapshot its task publishes
//! ([`Snap`]). The lowest of the evening's files: every other one reads these.

use std::collections::{BTreeMap, HashMap};

use flagfall_events::change::LogEntry;
use flagfall_events::event::{Event, RecordedResult, ReportInfo};
use flagfall_protocol::Mode;
use serde::{Deserialize, Serialize};
use sha2::Digest;

pub use flagfall_protocol::evening::{Confirm, Play};

/// The server's settings of an evening (beside the event itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub play: Play,
    pub mode: Mode,
    pub confirm: Confirm,
    /// Pair the next round the moment the last result of a round arrives.
    #[serde(default)]
    pub auto: bool,
}

/// One row of an evening's stored log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogRow {
    /// A change of the event, as the events library logged it.
    Change(LogEntry),
    /// A player's report of their board's result (board play).
    Report(Report),
    /// The details the rating reports need, set by the director (`PUT .../report`).
    Details {
        report: ReportInfo,
        /// The start date set with them (`""` clears it); absent: unchanged (rows
        /// stored before the details took it have none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        date: Option<String>,
        /// The site set with them, as the date.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        site: Option<String>,
        by: String,
        at: i64,
    },
}

/// A result a player reported for their board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub round: u32,
    pub board: u32,
    /// The player, by name.
    pub player: String,
    /// One result per game of the board.
    pub results: Vec<RecordedResult>,
    pub at: i64,
}

/// The reports of one board: by the board's White (game 1) and Black.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BoardReports {
    pub white: Option<Vec<RecordedResult>>,
    pub black: Option<Vec<RecordedResult>>,
}

// An evening's players play the server's games under their names: the evening takes no
// name a game would refuse (issue 30: a 65-character name failed every pairing).
const _: () = assert!(
    flagfall_events::text::MAX_NAME_CHARS == flagfall_protocol::MAX_NAME_CHARS,
    "an evening's name limit is a game's"
);

/// A player's token when the director enters them: derived from the director's own token,
/// the evening and the name (SHA-256 of a label and the three, as a challenge's creator
/// token is derived from its secret). The store keeps only its hash, as for any token, and
/// the director can read the player's link again (`GET /api/events/{id}/links`, for the
/// printed QR codes) by presenting the director's token. A deputy's entries get random
/// tokens: the deputy does not hold the director's token.
pub fn player_token(director_token: &str, event_id: &str, name: &str) -> String {
    let digest = sha2::Sha256::digest(
        format!("flagfall evening player\0{director_token}\0{event_id}\0{name}").as_bytes(),
    );
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Who a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    Director,
    Deputy,
    /// A player, by name.
    Player(String),
}

impl Who {
    pub fn is_director(&self) -> bool {
        matches!(self, Who::Director | Who::Deputy)
    }

    /// How the log names them.
    pub fn by(&self) -> String {
        match self {
            Who::Director => "director".into(),
            Who::Deputy => "deputy".into(),
            Who::Player(name) => format!("player {name}"),
        }
    }
}

/// An evening as the readers see it: a snapshot the task publishes after each commit.
#[derive(Debug, Clone)]
pub struct Snap {
    pub id: String,
    pub event: Event,
    pub settings: Settings,
    /// Board play: what the players reported, by (round, board).
    pub reports: BTreeMap<(u32, u32), BoardReports>,
    /// Token hash to who.
    pub tokens: HashMap<String, Who>,
    /// Rows in the stored log.
    pub seq: i64,
    /// Bytes of the stored log (its rows' JSON).
    pub log_bytes: usize,
    /// The evening's server games waiting for the director now (a claim for the director
    /// to rule on, or a player's call), by game id: not stored, the games say it again
    /// when they are loaded (`crate::round_link::game_waiting`).
    pub disputes: BTreeMap<String, flagfall_protocol::evening::Dispute>,
}

impl Snap {
    /// The pairing number of the player called `name`.
    pub fn number_of(&self, name: &str) -> Option<u32> {
        self.event
            .players
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.id)
    }

    /// The token hash of the player called `name`.
    pub fn token_of(&self, name: &str) -> Option<&str> {
        self.tokens.iter().find_map(|(h, w)| match w {
            Who::Player(n) if n == name => Some(h.as_str()),
            _ => None,
        })
    }

    /// The director's token hash.
    pub fn director_hash(&self) -> Option<&str> {
        self.tokens
            .iter()
            .find_map(|(h, w)| (*w == Who::Director).then_some(h.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::player_token;

    #[test]
    fn player_tokens_differ_by_director_evening_and_name() {
        let a = player_token("d1", "e1", "Ada");
        assert_eq!(a.len(), 64, "256 bits as hex");
        assert_eq!(a, player_token("d1", "e1", "Ada"));
        assert_ne!(a, player_token("d2", "e1", "Ada"));
        assert_ne!(a, player_token("d1", "e2", "Ada"));
        assert_ne!(a, player_token("d1", "e1", "Bo"));
        // The separator keeps the parts apart.
        assert_ne!(
            player_token("d1", "e1x", "Ada"),
            player_token("d1", "e1", "xAda")
        );
    }
}

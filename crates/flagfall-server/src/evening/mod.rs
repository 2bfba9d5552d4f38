//! Blitz evenings on the server (issue 21): the events library's [`Event`] held by one
//! task per loaded evening, changed only through [`Event::apply`], every change stored
//! (its log row, and whatever it brings: new players' token hashes, the games of a round
//! played on the server) in one transaction before it is published.
//!
//! - [`task`]: the evening's task ([`EveningHandle`]): it owns the event, applies
//!   changes, commits them, starts the round's games, publishes the new state (a
//!   `watch` snapshot for readers, a broadcast for the live socket).
//! - [`http`]: the routes (`/api/events...`, `/ws/events/{id}`), Bearer tokens.
//! - [`view`]: the JSON the routes answer (rounds, standings, crosstable, a player's
//!   own view).
//!
//! Stored form (store `tournament.rs`, migration 0005): the event as created (`base`),
//! then one log row per change ([`LogRow`]); loading replays them. A server game of the
//! evening that ends is stored (its final event and the game's result, one transaction)
//! by its game task; the evening's task then logs the result for the evening. Were the
//! server to stop between the two, loading the evening finds the finished game and logs
//! its result then ([`task`]'s reconciliation): nothing is lost.

pub mod http;
pub mod rounds;
pub mod task;
pub mod view;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use flagfall_events::change::LogEntry;
use flagfall_events::event::{Event, RecordedResult, ReportInfo};
use flagfall_protocol::Mode;
use flagfall_protocol::evening::DisputeWhat;
use serde::{Deserialize, Serialize};
use sha2::Digest;

pub use task::EveningHandle;

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
    /// when they are loaded ([`game_waiting`]).
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

/// The loaded evenings.
#[derive(Default)]
pub struct Evenings(Mutex<HashMap<String, EveningHandle>>);

impl Evenings {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, EveningHandle>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Called by an idle evening's task: unload it unless commands wait. Under the
    /// lock, so that no request takes its handle in between; a request holding the
    /// handle from before finds the queue closed and loads the evening again.
    pub(crate) fn unload(&self, id: &str, rx: &mut tokio::sync::mpsc::Receiver<task::Cmd>) -> bool {
        let mut map = self.lock();
        if !rx.is_empty() {
            return false;
        }
        map.remove(id);
        rx.close();
        true
    }

    /// The handle of evening `id` if it is loaded here (never loads it).
    pub(crate) fn get(&self, id: &str) -> Option<EveningHandle> {
        self.lock().get(id).cloned()
    }

    /// How many evenings are loaded.
    pub fn loaded(&self) -> usize {
        self.lock().len()
    }

    /// Forget every loaded evening (the server stops): each task ends once the requests
    /// and sockets holding its handle are done.
    pub(crate) fn drain(&self) -> Vec<EveningHandle> {
        self.lock().drain().map(|(_, h)| h).collect()
    }
}

/// A server game ended: tell its evening, if it plays for one (called by the game's task
/// once the final event is stored). The evening logs the result in its own task.
pub(crate) fn game_over(shared: &Arc<crate::Shared>, game_id: &str) {
    let shared = shared.clone();
    let game_id = game_id.to_string();
    tokio::spawn(async move {
        // The database may fail for a moment: a few tries, a second apart. Past them the
        // result is taken when the evening loads or before it pairs its next round.
        for attempt in 1..=5 {
            if attempt > 1 {
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
            let evening = match shared.store.tournament_of_game(&game_id).await {
                Ok(Some(e)) => e,
                Ok(None) => return,
                Err(e) => {
                    tracing::error!(game = %game_id, attempt, error = %e, "cannot find a finished game's evening");
                    continue;
                }
            };
            match task::handle(&shared, &evening).await {
                Ok(Some(h)) => return h.game_over(game_id).await,
                Ok(None) => return,
                Err(e) => {
                    tracing::error!(evening = %evening, attempt, error = %e, "cannot load an evening for a finished game")
                }
            }
        }
    });
}

/// What a game waits for the director for, if anything: a claim for the director to rule
/// on or a player's call. The evening's console shows it with the game.
pub(crate) fn dispute_of(game: &flagfall_game::Game) -> Option<DisputeWhat> {
    use flagfall_protocol::ColorName;
    use flagfall_protocol::evening::Advice;
    if game.is_over() {
        // A game over waits for no one (a call answered by the game's result).
        return None;
    }
    if let Some((claimant, kind, rec)) = game.pending_claim() {
        return Some(DisputeWhat::Claim {
            claimant: ColorName::from(claimant),
            claim: kind.name().to_string(),
            advice: Advice {
                grant: rec.grant,
                reasons: rec.reasons.clone(),
            },
        });
    }
    game.called().map(|c| DisputeWhat::Call {
        by: ColorName::from(c.by),
        reason: c.reason.clone(),
    })
}

/// A server game's wait for the director began or ended (`dispute`: what it waits for,
/// [`dispute_of`]; `None` when it no longer waits) with its `n`th stored event: tell
/// its evening, if it plays for one. Called by the game's task when that changes, and
/// when a game that waits is loaded (after a restart). A game of no evening costs one
/// look-up in the store. The tellings may overtake one another on the way: the evening
/// keeps the one of the latest event.
pub(crate) fn game_waiting(
    shared: &Arc<crate::Shared>,
    game_id: &str,
    n: u64,
    dispute: Option<DisputeWhat>,
) {
    let shared = shared.clone();
    let game_id = game_id.to_string();
    tokio::spawn(async move {
        let evening = match shared.store.tournament_of_game(&game_id).await {
            Ok(Some(e)) => e,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(game = %game_id, error = %e, "cannot find a waiting game's evening");
                return;
            }
        };
        match task::handle(&shared, &evening).await {
            Ok(Some(h)) => h.game_waiting(game_id, n, dispute).await,
            Ok(None) => {}
            Err(e) => {
                tracing::error!(evening = %evening, error = %e, "cannot load an evening for a waiting game")
            }
        }
    });
}

/// The evening server game `game_id` plays for, with its round and board (`None`: a
/// game of no evening).
pub(crate) async fn evening_of_game(
    shared: &Arc<crate::Shared>,
    game_id: &str,
) -> Result<Option<flagfall_protocol::evening::GameEvening>, crate::ServerError> {
    let Some(evening) = shared.store.tournament_of_game(game_id).await? else {
        return Ok(None);
    };
    let Some(h) = task::handle(shared, &evening).await? else {
        return Ok(None);
    };
    let snap = h.now();
    let e = &snap.event;
    let Some((round, board, game, _)) = task::locate(e, game_id) else {
        return Ok(None);
    };
    let games = e
        .round_list
        .get(round as usize - 1)
        .and_then(|r| r.boards.iter().find(|b| b.number == board))
        .map(|b| {
            b.games
                .iter()
                .filter_map(|g| g.game.as_ref())
                .map(|id| flagfall_protocol::evening::GameLink {
                    id: id.clone(),
                    url: format!("/play/{id}"),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Some(flagfall_protocol::evening::GameEvening {
        id: evening,
        name: e.name.clone(),
        round,
        board,
        game,
        games,
    }))
}

/// Whether `token_hash` is a deputy director's of the evening game `game_id` plays for
/// (the director's own token is the game's director token already).
pub(crate) async fn deputy_of_game(
    shared: &Arc<crate::Shared>,
    game_id: &str,
    token_hash: &str,
) -> Result<bool, crate::ServerError> {
    let Some(evening) = shared.store.tournament_of_game(game_id).await? else {
        return Ok(false);
    };
    let Some(h) = task::handle(shared, &evening).await? else {
        return Ok(false);
    };
    Ok(h.now().tokens.get(token_hash) == Some(&Who::Deputy))
}

#[cfg(test)]
mod tests {
    use super::{dispute_of, player_token};
    use serde_json::json;

    /// A game replayed from its setup (as `POST /api/games` takes it) and its events.
    fn game(setup: serde_json::Value, events: &[serde_json::Value]) -> flagfall_game::Game {
        let body: flagfall_protocol::CreateGame = serde_json::from_value(setup).unwrap();
        let (mut text, _) = body.setup_line().unwrap();
        for e in events {
            text.push('\n');
            text.push_str(&e.to_string());
        }
        text.push('\n');
        flagfall_game::replay(&flagfall_game::script::parse(&text).unwrap()).game
    }

    #[test]
    fn a_claim_for_the_director_a_call_and_nothing() {
        let setup = json!({"rules":"club-ilc","time_control":"G/5;d0",
                           "fen":"4k3/8/8/8/8/8/8/4K2Q b - - 0 1"});
        // Nothing waits at the start.
        assert_eq!(dispute_of(&game(setup.clone(), &[])), None);
        // Black, a lone king under a minute, claims insufficient losing chances: the
        // claim waits for the director, with the assistant's advice.
        let claimed = game(
            setup.clone(),
            &[
                json!({"at":0,"by":"director","add_time":{"color":"black","ms":-250_000}}),
                json!({"at":10,"by":"black","claim":"ilc"}),
            ],
        );
        let d = dispute_of(&claimed).expect("the claim waits");
        let d = serde_json::to_value(&d).expect("a dispute serialises");
        assert_eq!(d["kind"], "claim", "{d}");
        assert_eq!(d["claimant"], "black", "{d}");
        assert_eq!(d["claim"], "ilc", "{d}");
        assert!(d["advice"]["grant"].is_boolean(), "{d}");
        // A player's call waits too, with its reason.
        let called = game(
            setup,
            &[json!({"at":5,"by":"black","call_director":true,"reason":"noise"})],
        );
        assert_eq!(
            dispute_of(&called).map(|d| serde_json::to_value(&d).expect("a dispute serialises")),
            Some(json!({"kind":"call","by":"black","reason":"noise"}))
        );
    }

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

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

pub mod exports;
pub mod http;
pub mod live;
pub mod model;
pub mod players;
pub mod request;
pub mod results;
pub mod rounds;
pub mod setup;
pub mod task;
pub mod view;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use flagfall_protocol::evening::DisputeWhat;

pub use model::{BoardReports, Confirm, LogRow, Play, Report, Settings, Snap, Who, player_token};
pub use task::EveningHandle;

/// The evenings' side of a server game's tellings ([`crate::round_link`], below the
/// game, calls it through `Shared::evening_link`).
pub struct Link;

impl crate::round_link::EveningLink for Link {
    fn game_over(&self, shared: &Arc<crate::Shared>, game_id: &str) {
        told_game_over(shared, game_id)
    }

    fn game_waiting(
        &self,
        shared: &Arc<crate::Shared>,
        game_id: &str,
        n: u64,
        dispute: Option<DisputeWhat>,
    ) {
        told_game_waiting(shared, game_id, n, dispute)
    }
}

/// The loaded evenings.
pub struct Evenings(Mutex<HashMap<String, EveningHandle>>);

impl Default for Evenings {
    /// No evening loaded.
    fn default() -> Evenings {
        Evenings(Mutex::default())
    }
}

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
/// once the final event is stored, through [`crate::round_link::game_over`]). The
/// evening logs the result in its own task.
fn told_game_over(shared: &Arc<crate::Shared>, game_id: &str) {
    let task_shared = shared.clone();
    let shared = shared.clone();
    let game_id = game_id.to_string();
    task_shared.spawn(async move {
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
                // The server stops: the evening takes the result when it loads again.
                Ok(None) | Err(crate::ServerError::Stopped(_)) => return,
                Err(e) => {
                    tracing::error!(evening = %evening, attempt, error = %e, "cannot load an evening for a finished game")
                }
            }
        }
    });
}

/// A server game's wait for the director began or ended (through
/// [`crate::round_link::game_waiting`]): tell its evening, if it plays for one. A game of
/// no evening costs one look-up in the store. The tellings may overtake one another on
/// the way: the evening keeps the one of the latest event.
fn told_game_waiting(
    shared: &Arc<crate::Shared>,
    game_id: &str,
    n: u64,
    dispute: Option<DisputeWhat>,
) {
    let task_shared = shared.clone();
    let shared = shared.clone();
    let game_id = game_id.to_string();
    task_shared.spawn(async move {
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
            // The server stops: the evening learns it from the game when it loads again.
            Ok(None) | Err(crate::ServerError::Stopped(_)) => {}
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

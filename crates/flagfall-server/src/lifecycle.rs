//! Lifecycles of loaded games (issue 19, items 12 and 17; docs/protocol.md
//! "Lifecycles").
//!
//! A game *never started* is one with no stored event: no player and no director has
//! acted on it since its creation (a spectator's connect, a `GET` or a socket opened
//! by a player does not count; the first action, even one the arbiter refuses, is
//! stored and starts it). Such a game expires [`crate::limits::Limits::unstarted_expiry`]
//! after its creation (30 minutes by default, `flagfall serve --unstarted-expiry`):
//! its status becomes `aborted` (no result, nothing deleted), it leaves the list of live
//! games and is unloaded; its state says `"aborted": true` and every action on it is
//! refused, naming why. At start-up the games past their expiry are aborted in one
//! statement and never loaded.
//!
//! A finished or aborted game whose last socket closed is unloaded after
//! [`FINISHED_GRACE`] without a command (its task ends, its memory goes); while a
//! socket (or its practice computer) is subscribed it stays loaded. Its bus channel goes
//! with its last subscriber ([`crate::bus`]), and its clock left the heartbeat when it
//! finished. A later `GET` or connect loads it again from the store, as after a restart.
//!
//! The game's own task decides the abort (one task owns each live game): it is the
//! only one that could store a first event, so no action can slip in between the
//! check and the abort; the store's conditional `UPDATE` checks again that no event is
//! stored.

use std::sync::Arc;
use std::time::Duration;

use flagfall_protocol::State;
use tokio::time::Instant;

use crate::Shared;

/// How long a finished game with no socket stays loaded: long enough for a page that
/// reloads or a player who reconnects to find it in memory, short enough that a
/// server with thousands of games finished in an hour keeps only the watched ones.
pub const FINISHED_GRACE: Duration = Duration::from_secs(5);

/// After a failed abort (the database is down), when the task tries again.
pub const RETRY_ABORT: Duration = Duration::from_secs(5);

/// The instant a game created at `created_ms` (Unix milliseconds) expires if it never
/// starts.
pub(crate) fn expiry_instant(shared: &Shared, created_ms: i64) -> Instant {
    let expiry = shared.limits.unstarted_expiry;
    let age = u64::try_from(crate::now_unix_ms().saturating_sub(created_ms)).unwrap_or(0);
    let left = expiry.saturating_sub(Duration::from_millis(age));
    Instant::now() + left
}

/// Why an aborted game refuses actions, and the state's `reason`.
pub(crate) fn aborted_reason(shared: &Shared) -> String {
    format!(
        "game aborted: nobody acted on it within {} of its creation, so it expired \
         unplayed (no result); create a new game",
        minutes(shared.limits.unstarted_expiry)
    )
}

fn minutes(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 60 && s.is_multiple_of(60) {
        let m = s / 60;
        format!("{m} minute{}", if m == 1 { "" } else { "s" })
    } else {
        format!("{s} second{}", if s == 1 { "" } else { "s" })
    }
}

/// The state of an aborted game says so.
pub(crate) fn mark_aborted(state: &mut State, shared: &Shared) {
    state.aborted = true;
    state.reason = Some(aborted_reason(shared));
}

/// Abort game `id` in the store if it never started; whether it is aborted now. `Err`
/// when the database failed (logged).
pub(crate) async fn abort(shared: &Arc<Shared>, id: &str) -> Result<bool, ()> {
    match shared.store.abort_game(id).await {
        Ok(aborted) => {
            if aborted {
                shared.metrics.aborted_games.inc();
                tracing::info!(game = %id, "never started: aborted");
            }
            Ok(aborted)
        }
        Err(e) => {
            tracing::error!(game = %id, error = %e, "cannot abort an expired game; trying again");
            Err(())
        }
    }
}

/// At start-up: abort every game past its expiry that never started, before the live
/// games are loaded (so they are not).
pub(crate) async fn abort_expired(
    store: &dyn flagfall_store::Store,
    expiry: Duration,
) -> Result<u64, flagfall_store::StoreError> {
    let expiry_ms = i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX);
    let n = store
        .abort_unstarted(crate::now_unix_ms().saturating_sub(expiry_ms))
        .await?;
    if n > 0 {
        tracing::info!(
            aborted = n,
            "games never started and expired: aborted, not loaded"
        );
    }
    Ok(n)
}

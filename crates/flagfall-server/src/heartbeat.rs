//! The heartbeat of live games' clocks (docs/protocol.md, "Time across restarts").
//!
//! Every started, unfinished game registers the mapping of its game clock to this
//! process's monotonic clock; a task beside the writer stores, every
//! [`BEAT_EVERY`], each registered game's clock reading in one transaction
//! (`Store::beat`). When a game is loaded after a crash, its clock resumes from its last
//! heartbeat (or its last event, whichever is later): the running side is charged up to
//! the last moment the server is known to have been alive, and the downtime to no one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flagfall_store::Store;
use tokio::sync::watch;
use tokio::time::Instant;

/// How often the clocks beat: at least once a second, with room for a slow commit.
pub const BEAT_EVERY: Duration = Duration::from_millis(400);

/// The clocks that beat: per game, the instant its game clock read `base`.
#[derive(Default)]
pub struct Beats {
    clocks: Mutex<HashMap<String, (Instant, u64)>>,
}

impl Beats {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Instant, u64)>> {
        self.clocks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Game `id`'s clock read `base` at `epoch` and runs on from there.
    pub fn register(&self, id: &str, epoch: Instant, base: u64) {
        self.lock().insert(id.to_string(), (epoch, base));
    }

    /// Game `id` stopped beating (finished or unloaded).
    pub fn remove(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Every registered game's clock now.
    pub fn readings(&self) -> Vec<(String, i64)> {
        let now = Instant::now();
        self.lock()
            .iter()
            .map(|(id, (epoch, base))| {
                let at =
                    base.saturating_add(now.saturating_duration_since(*epoch).as_millis() as u64);
                (id.clone(), i64::try_from(at).unwrap_or(i64::MAX))
            })
            .collect()
    }
}

/// Store every registered clock every [`BEAT_EVERY`] until shutdown, then once more.
pub async fn run(store: Arc<dyn Store>, beats: Arc<Beats>, mut shutdown: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(BEAT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let last = tokio::select! {
            _ = tick.tick() => false,
            _ = shutdown.changed() => true,
        };
        let readings = beats.readings();
        if let Err(e) = store.beat(&readings).await {
            tracing::warn!(error = %e, games = readings.len(), "heartbeat not stored");
        }
        if last || *shutdown.borrow() {
            return;
        }
    }
}

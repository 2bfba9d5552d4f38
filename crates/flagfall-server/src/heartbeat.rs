//! The heartbeat of live games' clocks (docs/protocol.md, "Time across restarts"), in
//! O(1) rows a beat.
//!
//! Every started, unfinished game registers the mapping of its game clock to this
//! process's monotonic clock ([`Beats::register`]). A task beside the writer stores,
//! every [`BEAT_EVERY`], one row: this process (its *run*, a random id) was alive at
//! this wall-clock time. A game's mapping is stored once, as a *mark* (its game clock
//! and the wall clock at the same instant), at the first beat after its task starts
//! its clock, and again whenever the mapping changes (the task restarted, or the wall
//! clock stepped against the monotonic clock by more than [`STEP_MS`]); a mark is
//! written in the same transaction as the run's alive time, so no alive time is ever
//! stored that a mark written later would have to contradict.
//!
//! When a game is loaded after a crash, its clock resumes from its mark's game clock
//! plus the wall time from the mark to its run's last alive time (or its last event,
//! whichever is later): the running side is charged up to the last moment the server
//! is known to have been alive, and the downtime to no one. A game loaded again by a
//! new run keeps its old run's mark (and that run's last alive time, which no longer
//! moves) until the new run's first beat stores its new one.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flagfall_store::{ClockMark, Store};
use tokio::sync::watch;
use tokio::time::Instant;

/// How often the server stores that it is alive: at least once a second, with room for
/// a slow commit.
pub const BEAT_EVERY: Duration = Duration::from_millis(400);
/// A wall clock that moved this much against the monotonic clock since the marks were
/// stored (an NTP step, a suspend) makes every mark due again.
pub const STEP_MS: i64 = 50;

#[derive(Default)]
struct Inner {
    /// Per game, the instant its game clock read `base`, and in a cluster the lease
    /// epoch its task holds (the mark's fence).
    clocks: HashMap<String, (Instant, u64, Option<i64>)>,
    /// Games whose mapping is not stored yet.
    due: HashSet<String>,
}

/// The clocks that beat.
#[derive(Default)]
pub struct Beats {
    inner: Mutex<Inner>,
}

impl Beats {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Game `id`'s clock read `base` at `epoch` and runs on from there: its mark is
    /// stored at the next beat, fenced by `lease` (the task's lease epoch in a cluster).
    pub fn register(&self, id: &str, epoch: Instant, base: u64, lease: Option<i64>) {
        let mut inner = self.lock();
        inner.clocks.insert(id.to_string(), (epoch, base, lease));
        inner.due.insert(id.to_string());
    }

    /// Game `id` stopped beating (finished or unloaded).
    pub fn remove(&self, id: &str) {
        let mut inner = self.lock();
        inner.clocks.remove(id);
        inner.due.remove(id);
    }

    /// How many game clocks beat.
    pub fn count(&self) -> usize {
        self.lock().clocks.len()
    }

    /// Every registered game's mark is due again (the wall clock stepped).
    fn all_due(&self) {
        let mut inner = self.lock();
        let ids: Vec<String> = inner.clocks.keys().cloned().collect();
        inner.due.extend(ids);
    }

    /// The marks due, read at `now` (monotonic) = `wall_ms` (wall clock); no longer due.
    fn take_due(&self, now: Instant, wall_ms: i64) -> Vec<ClockMark> {
        let mut inner = self.lock();
        let due = std::mem::take(&mut inner.due);
        due.into_iter()
            .filter_map(|id| {
                let (epoch, base, lease) = *inner.clocks.get(&id)?;
                let at =
                    base.saturating_add(now.saturating_duration_since(epoch).as_millis() as u64);
                Some(ClockMark {
                    game_id: id,
                    at: i64::try_from(at).unwrap_or(i64::MAX),
                    wall_ms,
                    lease,
                })
            })
            .collect()
    }

    /// These marks were not stored: due again (those of games still beating).
    fn due_again(&self, marks: Vec<ClockMark>) {
        let mut inner = self.lock();
        for m in marks {
            if inner.clocks.contains_key(&m.game_id) {
                inner.due.insert(m.game_id);
            }
        }
    }
}

/// Store that this run is alive, with the marks due, every [`BEAT_EVERY`] until
/// shutdown, then once more.
pub async fn run(store: Arc<dyn Store>, beats: Arc<Beats>, mut shutdown: watch::Receiver<bool>) {
    let run = crate::random_hex(8)
        .unwrap_or_else(|_| format!("{}-{}", std::process::id(), crate::now_unix_ms()));
    let started_ms = crate::now_unix_ms();
    let origin = Instant::now();
    // Wall clock minus monotonic clock, as of the marks stored.
    let mut offset = 0i64;
    let mut tick = tokio::time::interval(BEAT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let last = tokio::select! {
            _ = tick.tick() => false,
            _ = shutdown.changed() => true,
        };
        let now = Instant::now();
        let wall_ms = crate::now_unix_ms();
        let drift = (wall_ms - started_ms) - now.duration_since(origin).as_millis() as i64;
        if (drift - offset).abs() > STEP_MS {
            tracing::warn!(
                stepped_ms = drift - offset,
                "the wall clock stepped: every game's clock mark is stored again"
            );
            offset = drift;
            beats.all_due();
        }
        let marks = beats.take_due(now, wall_ms);
        if let Err(e) = store.alive(&run, started_ms, wall_ms, &marks).await {
            tracing::warn!(error = %e, marks = marks.len(), "heartbeat not stored");
            beats.due_again(marks);
        }
        if last || *shutdown.borrow() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_mark_is_due_once_per_mapping() {
        let beats = Beats::default();
        let t0 = Instant::now();
        beats.register("a", t0, 1_000, None);
        beats.register("b", t0, 0, Some(7));
        let mut first = beats.take_due(t0 + Duration::from_millis(250), 5_000);
        first.sort_by(|x, y| x.game_id.cmp(&y.game_id));
        assert_eq!(
            first,
            [
                ClockMark {
                    game_id: "a".into(),
                    at: 1_250,
                    wall_ms: 5_000,
                    lease: None
                },
                ClockMark {
                    game_id: "b".into(),
                    at: 250,
                    wall_ms: 5_000,
                    lease: Some(7)
                },
            ]
        );
        assert!(
            beats
                .take_due(t0 + Duration::from_millis(650), 5_400)
                .is_empty()
        );
        // A failed store: due again, unless the game stopped beating meanwhile.
        beats.remove("b");
        beats.due_again(first);
        let again = beats.take_due(t0 + Duration::from_millis(1_050), 5_800);
        assert_eq!(again.len(), 1);
        assert_eq!((again[0].game_id.as_str(), again[0].at), ("a", 2_050));
        beats.all_due();
        assert_eq!(beats.take_due(t0, 0).len(), 1);
        assert_eq!(beats.count(), 1);
    }
}

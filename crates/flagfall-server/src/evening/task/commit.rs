//! A change stored (one transaction) and only then made the evening's state and
//! published; another node's changes read back.

use super::*;

impl Task {
    /// Store `w` in one transaction; then it is the evening's state: games start, the
    /// snapshot and the live message go out.
    pub(super) async fn commit(&mut self, w: Work) -> Result<Done, Refusal> {
        let (c, snap, done) = w.into_commit().map_err(|e| {
            tracing::error!(error = %e, "an evening's change refused");
            Refusal::Failed(e)
        })?;
        match self.shared.store.tournament_commit(&c).await {
            Ok(()) => {}
            Err(flagfall_store::StoreError::Conflict(m)) => {
                // Another node took the next seq first (or a game of the round began):
                // with its rows applied, the caller may try again on top of them.
                return match self.catch_up().await {
                    Ok(0) => Err(Refusal::Conflict(m)),
                    Ok(_) => Err(Refusal::Raced(format!(
                        "the evening was changed on another server at the same time; \
                         look at it again and retry ({m})"
                    ))),
                    Err(e) => Err(Refusal::Failed(e)),
                };
            }
            Err(e) => {
                tracing::error!(evening = %snap.id, error = %e, "an evening's change not stored");
                return Err(Refusal::Failed(e.into()));
            }
        }
        for (i, g) in c.games.iter().enumerate() {
            if let Err(e) = self.shared.start_new(g, snap.settings.mode).await {
                tracing::error!(game = %g.id, error = %e, "an evening's game not started");
            }
            // A round of hundreds of games: the worker's other tasks run between them.
            if i % 32 == 31 {
                tokio::task::yield_now().await;
            }
        }
        let snap = Arc::new(snap);
        self.state = snap.clone();
        self.snap_tx.send_replace(snap.clone());
        if !c.log.is_empty() {
            self.publish(&snap, c.log, done.effects.clone()).await;
            let notice = Notice::Seq { seq: snap.seq };
            self.shared.seam.tell(&self.shared, &snap.id, notice);
        }
        Ok(done)
    }

    /// Apply the log rows other writers (the other nodes of a cluster, or another
    /// server on the same database) stored after this task's seq, as loading does, and
    /// publish them to the live sockets as this task's own changes are: every node's
    /// consoles see every change. How many rows were applied. A row that does not apply
    /// leaves the state as it was (an error: the log is damaged).
    pub(super) async fn catch_up(&mut self) -> Result<usize, ServerError> {
        let id = self.state.id.clone();
        let rows = self
            .shared
            .store
            .tournament_log_after(&id, self.state.seq)
            .await?;
        if rows.is_empty() {
            return Ok(0);
        }
        // Replayed off the async workers (another node's pairing is as big as ours).
        let state = self.state.clone();
        let job_id = id.clone();
        let (mut snap, effects, rows) = self
            .shared
            .cpu
            .run(None, move || {
                let mut snap = (*state).clone();
                let mut effects = Vec::new();
                for r in &rows {
                    effects.extend(replay_row(
                        &job_id,
                        &mut snap.event,
                        &mut snap.reports,
                        snap.seq,
                        r,
                    )?);
                    snap.seq = r.seq;
                    snap.log_bytes += r.json.len();
                }
                Ok::<_, ServerError>((snap, effects, rows))
            })
            .await??;
        // New players' and deputies' tokens came with those rows (one transaction).
        snap.tokens = load_tokens(&self.shared, &id).await?;
        // A game whose result is in waits for no one.
        let settled: Vec<String> = snap
            .disputes
            .keys()
            .filter(|g| !matches!(locate(&snap.event, g), Some((.., true))))
            .cloned()
            .collect();
        for g in settled {
            snap.disputes.remove(&g);
        }
        let snap = Arc::new(snap);
        self.state = snap.clone();
        self.snap_tx.send_replace(snap.clone());
        let n = rows.len();
        self.publish(&snap, rows, effects).await;
        Ok(n)
    }

    /// The live sockets' message (none when nobody listens): the director's carries the
    /// players' reports and the disputes (the list as it is now, so a dispute the change
    /// settled is seen to go), the public's neither.
    /// Made off the async workers (with the standings, for a big evening).
    pub(super) async fn publish(
        &self,
        snap: &Arc<Snap>,
        rows: Vec<TournamentLogRow>,
        effects: Vec<Effect>,
    ) {
        use crate::evening::view::{Viewer, live_message};
        if self.live.receiver_count() == 0 {
            return;
        }
        let snap = snap.clone();
        let made = self
            .shared
            .cpu
            .run(None, move || {
                let public: Arc<str> = live_message(&snap, &rows, &effects, Viewer::Public).into();
                let director: Arc<str> =
                    live_message(&snap, &rows, &effects, Viewer::Director).into();
                (public, director)
            })
            .await;
        match made {
            Ok((public, director)) => {
                let _ = self.live.send(Arc::new(Live {
                    public: Some(public),
                    director,
                }));
            }
            Err(e) => {
                tracing::error!(evening = %self.state.id, error = %e, "the live message not made")
            }
        }
    }
}

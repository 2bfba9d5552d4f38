//! The evening task's loop: the commands it is sent, the disputes of its waiting games,
//! and the results of its finished games taken.

use super::*;

impl Task {
    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        // What another node stored between this task's reading of the log and its
        // joining the loaded evenings (whose notices it missed) is read now.
        if let Err(e) = self.catch_up().await {
            tracing::error!(evening = %self.state.id, error = %e, "cannot catch up on loading");
        }
        // Games that ended while the evening was not loaded (or before the server
        // stopped) count now.
        self.reconcile().await;
        self.wake_waiting_games();
        // The other nodes with the evening loaded tell this one their disputes.
        self.shared
            .seam
            .tell(&self.shared, &self.state.id, Notice::Hello);
        let idle = self.shared.limits.evening_idle;
        let mut unloaded = false;
        loop {
            let cmd = tokio::select! {
                cmd = rx.recv() => cmd,
                // Nothing to do and nobody watching: unloaded; the next request loads
                // it again from the store (as after a restart). A command sent in the
                // instant before the queue closed is still done (`recv` drains it).
                _ = tokio::time::sleep(idle), if !unloaded => {
                    // Disputes live in memory only: an evening with a game waiting for
                    // the director stays loaded (the waiting game tells it only once).
                    unloaded = self.live.receiver_count() == 0
                        && self.state.disputes.is_empty()
                        && self.shared.evenings.unload(&self.state.id, &mut rx);
                    continue;
                }
            };
            let Some(cmd) = cmd else { break };
            self.command(cmd).await;
        }
        self.shared.metrics.loaded_evenings.dec();
    }

    /// Do one command of the task's queue.
    async fn command(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Do {
                op,
                origin,
                asker,
                reply,
            } => {
                let r = self.exec(op, origin, &asker).await;
                drop(asker);
                let _ = reply.send(r);
            }
            Cmd::Preview {
                changes,
                origin,
                reply,
            } => {
                let r = self.preview(changes, origin).await;
                let _ = reply.send(r);
            }
            Cmd::Waiting {
                game,
                n,
                dispute,
                remote,
            } => self.waiting(game, n, dispute, remote),
            Cmd::CatchUp(seq) => {
                if seq > self.state.seq
                    && let Err(e) = self.catch_up().await
                {
                    // The next change or notice tries again.
                    tracing::error!(evening = %self.state.id, error = %e, "cannot catch up with another node's change");
                }
            }
            Cmd::Hello => {
                for (game, dispute) in &self.state.disputes {
                    let n = self.waiting_at.get(game).copied().unwrap_or(0);
                    let notice = Notice::Dispute {
                        game: game.clone(),
                        n,
                        dispute: Some(dispute.what.clone()),
                    };
                    self.shared.seam.tell(&self.shared, &self.state.id, notice);
                }
            }
            Cmd::GameOver(id, attempt) => {
                let origin = Origin::new(format!("game {id}"), now_unix_ms());
                if let Err(e) = self.finished_games(std::slice::from_ref(&id), origin).await {
                    tracing::error!(evening = %self.state.id, game = %id, attempt, error = ?e, "a finished game's result not taken");
                    // The database may be back in a moment: try again (and the
                    // evening takes it anyway when it is loaded, or before it pairs).
                    if attempt < GAME_OVER_ATTEMPTS
                        && let Some(tx) = self.me.upgrade()
                    {
                        self.shared.spawn(async move {
                            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                            let _ = tx.send(Cmd::GameOver(id, attempt + 1)).await;
                        });
                    }
                }
            }
        }
    }

    /// Game `id` waits for the director (`dispute`) or no longer does: the evening's
    /// disputes change, and the live socket says so at once (`{"type":"dispute"}`).
    pub(super) fn waiting(
        &mut self,
        id: String,
        n: u64,
        dispute: Option<DisputeWhat>,
        remote: bool,
    ) {
        // An older telling that arrives late changes nothing.
        match self.waiting_at.get(&id) {
            Some(&seen) if seen > n => return,
            _ => {
                self.waiting_at.insert(id.clone(), n);
            }
        }
        if !remote {
            // The other nodes' consoles of the evening show it too.
            let notice = Notice::Dispute {
                game: id.clone(),
                n,
                dispute: dispute.clone(),
            };
            self.shared.seam.tell(&self.shared, &self.state.id, notice);
        }
        let mut snap = (*self.state).clone();
        let changed = match dispute {
            Some(what) => {
                let Some((round, board, game, pending)) = locate(&snap.event, &id) else {
                    return;
                };
                if !pending {
                    return;
                }
                let Some(b) = snap.event.round_list[round as usize - 1]
                    .boards
                    .iter()
                    .find(|b| b.number == board)
                else {
                    return;
                };
                let (white, black) = b.players_of_game(game as usize - 1);
                let name = |n: u32| {
                    snap.event
                        .player(n)
                        .map(|p| p.name.clone())
                        .unwrap_or_default()
                };
                let since = snap.disputes.get(&id).map_or_else(now_unix_ms, |d| d.since);
                let v = Dispute {
                    game: id.clone(),
                    round,
                    board,
                    game_number: game,
                    white: name(white),
                    black: name(black),
                    since,
                    what,
                };
                snap.disputes.insert(id.clone(), v.clone()) != Some(v)
            }
            None => snap.disputes.remove(&id).is_some(),
        };
        if !changed {
            return;
        }
        let msg = crate::evening::view::dispute_message(&snap, &id);
        let snap = Arc::new(snap);
        self.state = snap.clone();
        self.snap_tx.send_replace(snap);
        // The director's alone: a claim carries the assistant's advice, a call its reason.
        let _ = self.live.send(Arc::new(Live {
            public: None,
            director: msg.into(),
        }));
    }

    /// The live games of the latest round are loaded (in the background): one that waits
    /// for the director (a claim, a call, stored before a restart) tells the evening so
    /// as it loads ([`crate::round_link::game_waiting`]), since disputes are not stored.
    pub(super) fn wake_waiting_games(&self) {
        let latest = self.state.event.rounds_paired();
        let Some(round) = self
            .state
            .event
            .round_list
            .get((latest as usize).wrapping_sub(1))
        else {
            return;
        };
        let ids: Vec<String> = round
            .boards
            .iter()
            .flat_map(|b| b.games.iter())
            .filter(|g| g.result == RecordedResult::Pending)
            .filter_map(|g| g.game.clone())
            .collect();
        if ids.is_empty() {
            return;
        }
        let shared = self.shared.clone();
        self.shared.spawn(async move {
            for id in ids {
                // In a cluster a game served by another node stays there (its
                // disputes come from that node's evening).
                if let Err(e) = shared.route(&id).await {
                    tracing::error!(game = %id, error = %e, "an evening's game not loaded");
                }
            }
        });
    }

    /// Every linked game still pending in the event whose stored game has ended.
    pub(super) async fn reconcile(&mut self) {
        let ids: Vec<String> = self
            .state
            .event
            .round_list
            .iter()
            .flat_map(|r| r.boards.iter())
            .flat_map(|b| b.games.iter())
            .filter(|g| g.result == RecordedResult::Pending)
            .filter_map(|g| g.game.clone())
            .collect();
        if ids.is_empty() {
            return;
        }
        let origin = Origin::new("server (games found finished on loading)", now_unix_ms());
        if let Err(e) = self.finished_games(&ids, origin).await {
            tracing::error!(evening = %self.state.id, error = ?e, "finished games not taken on loading");
        }
    }

    /// Take the results of those of `ids` whose stored games have ended (once: another
    /// node may have taken one already, or take it meanwhile).
    pub(super) async fn finished_games(
        &mut self,
        ids: &[String],
        origin: Origin,
    ) -> Result<(), Refusal> {
        self.paid = 0;
        self.catch_up().await.map_err(Refusal::Failed)?;
        match self.finished_games_once(ids, origin.clone()).await {
            Err(Refusal::Raced(_)) => self.finished_games_once(ids, origin).await,
            r => r,
        }
    }

    pub(super) async fn finished_games_once(
        &mut self,
        ids: &[String],
        origin: Origin,
    ) -> Result<(), Refusal> {
        let mut results = Vec::new();
        for id in ids {
            let row = self
                .shared
                .store
                .game(id)
                .await
                .map_err(|e| Refusal::Failed(e.into()))?;
            let Some(row) = row else { continue };
            if row.status != flagfall_store::Status::Finished {
                continue;
            }
            let result = match row.result.as_str() {
                "1-0" => RecordedResult::WhiteWins,
                "0-1" => RecordedResult::BlackWins,
                "1/2-1/2" => RecordedResult::Draw,
                _ => continue,
            };
            results.push((id.clone(), result));
        }
        if results.is_empty() {
            return Ok(());
        }
        // The results, and what follows (an automatic pairing): off the async workers.
        let state = self.state.clone();
        let w = self
            .job(move || {
                let mut w = Work::of(&state);
                for (id, result) in results {
                    let Some((round, board, game, pending)) = locate(&w.snap.event, &id) else {
                        continue;
                    };
                    if !pending {
                        continue;
                    }
                    // A game over waits for no one.
                    w.snap.disputes.remove(&id);
                    w.apply(
                        Change::SetGameResult {
                            round,
                            board,
                            game,
                            result,
                        },
                        &origin,
                    )
                    .map_err(Refusal::Event)?;
                }
                Ok((w, origin))
            })
            .await??;
        let (w, origin) = w;
        let w = self.settle(w, &origin, None, None, &[]).await?;
        self.commit(w).await.map(|_| ())
    }
}

//! A game's lifecycle on its task ([`Phase`]) and every change of it: the first action,
//! the end, an expiry, an evening's hold and abort, a lost lease.

use super::*;

/// Where a game is in its life on its task. The states that can occur, and nothing
/// else: an aborted game has no clock and no hold, a hold only ever holds a game nobody
/// has acted on, a lost game stores nothing more. Once the task runs, every move from one
/// phase to another goes through [`GameTask::set_phase`] (called by the methods below),
/// which keeps the count of live games (`live_games`: a game counts while it is
/// `Unstarted` or `Playing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Nobody has acted on it: its clock has not started.
    Unstarted {
        /// When it expires unplayed (`crate::lifecycle`): `None` until its task starts,
        /// and once the store said it has events after all.
        expires: Option<Instant>,
        /// Held by its evening ([`RoundCmd::Hold`]) until then: actions are refused.
        /// Past it ([`ROUND_HOLD`]: the release was lost), the game is as its stored
        /// row says.
        held_until: Option<Instant>,
    },
    /// Its clock runs from the first action (stored, or on its way to the store).
    Playing,
    /// Over as stored.
    Finished,
    /// Expired unplayed (`reason` `None`: `crate::lifecycle`), or its round of an evening
    /// removed (`reason` says so): actions are refused.
    Aborted { reason: Option<&'static str> },
    /// This node lost the game's lease: the task stops, storing nothing more.
    Lost,
}

impl Phase {
    /// Whether the game's clock has started.
    pub(super) fn started(self) -> bool {
        matches!(self, Phase::Playing | Phase::Finished)
    }

    /// Whether the game counts among the live games (`live_games`).
    pub(super) fn counts_live(self) -> bool {
        matches!(self, Phase::Unstarted { .. } | Phase::Playing)
    }

    pub(super) fn is_aborted(self) -> bool {
        matches!(self, Phase::Aborted { .. })
    }

    /// Whether its evening holds it ([`RoundCmd::Hold`]).
    pub(super) fn round_held(self) -> bool {
        matches!(
            self,
            Phase::Unstarted {
                held_until: Some(_),
                ..
            }
        )
    }

    /// When it expires unplayed, if it does.
    pub(super) fn expires(self) -> Option<Instant> {
        match self {
            Phase::Unstarted { expires, .. } => expires,
            _ => None,
        }
    }
}

impl GameTask {
    /// Why the game refuses actions when it is aborted.
    pub(super) fn abort_why(&self) -> Option<String> {
        match self.phase {
            Phase::Aborted { reason } => Some(reason.map_or_else(
                || crate::lifecycle::aborted_reason(&self.shared),
                str::to_string,
            )),
            _ => None,
        }
    }

    /// The one place the phase changes: leaving `Unstarted` or `Playing` for a phase that
    /// is not, the game leaves the count of live games.
    pub(super) fn set_phase(&mut self, next: Phase) {
        if self.phase.counts_live() && !next.counts_live() {
            self.shared.metrics.live_games.dec();
        }
        self.phase = next;
    }

    /// The game is aborted (`reason` `None`: it expired unplayed), unless it is already
    /// (or lost): its view says so, and every action is refused.
    pub(super) fn abort(&mut self, reason: Option<&'static str>) {
        if matches!(self.phase, Phase::Aborted { .. } | Phase::Lost) {
            return;
        }
        self.set_phase(Phase::Aborted { reason });
        self.publish();
    }

    /// A batch just stored ended the game.
    pub(super) fn finish(&mut self) {
        if self.phase.counts_live() {
            self.set_phase(Phase::Finished);
        }
    }

    /// Set (or clear) the evening's hold of a game nobody has acted on; false when the
    /// game is in another phase.
    pub(super) fn hold_round(&mut self, until: Option<Instant>) -> bool {
        match &mut self.phase {
            Phase::Unstarted { held_until, .. } => {
                *held_until = until;
                true
            }
            _ => false,
        }
    }

    /// The game's clock starts with its first action.
    pub(super) fn start_clock(&mut self) {
        if let Phase::Unstarted { .. } = self.phase {
            self.set_phase(Phase::Playing);
            self.epoch = Instant::now();
            self.base = 0;
            self.shared
                .beats
                .register(&self.meta.id, self.epoch, 0, self.fence);
            self.publish();
        }
    }

    /// Its evening deletes or re-pairs its round ([`RoundCmd`]): whether it has begun.
    pub(super) async fn round_cmd(&mut self, c: RoundCmd) -> bool {
        match c {
            RoundCmd::Hold => {
                // A failed commit may have landed: settle it first (unsettled: begun).
                if self.resolve().await.is_err() || !self.held.is_empty() {
                    return true;
                }
                // Held if nobody has acted on it; an aborted game has not begun either.
                !self.hold_round(Some(Instant::now() + ROUND_HOLD)) && !self.phase.is_aborted()
            }
            RoundCmd::Release => {
                self.hold_round(None);
                self.phase.started()
            }
            RoundCmd::Abort => {
                self.abort(Some(ROUND_REMOVED));
                false
            }
        }
    }

    /// Whether the evening's hold is over ([`ROUND_HOLD`] passed without its release): the
    /// game is then as its stored row says. `false` (still held) while the row cannot be
    /// read, and on a single node: there the evening's word comes over a channel in the
    /// same process and is not lost, and only a cluster's fenced commit refuses a move
    /// into a game aborted meanwhile (`flagfall_store::Store::append_fenced`).
    pub(super) async fn round_hold_over(&mut self) -> bool {
        let held_until = match self.phase {
            Phase::Unstarted { held_until, .. } => held_until,
            _ => None,
        };
        if self.shared.seam.node().is_none()
            || held_until.is_some_and(|until| Instant::now() < until)
        {
            return false;
        }
        match self.shared.store.game(&self.meta.id).await {
            Ok(Some(row)) if row.status == flagfall_store::Status::Aborted => {
                tracing::warn!(game = %self.meta.id, "an evening's hold ended without word: its round's change aborted the game");
                self.round_cmd(RoundCmd::Abort).await;
                true
            }
            Ok(Some(_)) => {
                tracing::warn!(game = %self.meta.id, "an evening's hold ended without word: the game goes on");
                self.hold_round(None);
                true
            }
            Ok(None) | Err(_) => false,
        }
    }

    /// Why actions are refused now, if they are: the game is aborted, or its evening
    /// holds it ([`RoundCmd::Hold`]) and the hold is not over.
    pub(super) async fn closed(&mut self) -> Option<String> {
        if let Some(why) = self.abort_why() {
            return Some(why);
        }
        if self.phase.round_held() && !self.round_hold_over().await {
            return Some(ROUND_HELD.into());
        }
        // Its hold ended on the stored row: the round's change aborted it.
        self.abort_why()
    }

    /// The expiry timer fired: abort the game if it still has not started. True when
    /// it is aborted now.
    pub(super) async fn expire(&mut self) -> bool {
        let Phase::Unstarted { held_until, .. } = self.phase else {
            return false;
        };
        let unstarted = |expires| Phase::Unstarted {
            expires,
            held_until,
        };
        if !self.held.is_empty() {
            self.phase = unstarted(None);
            return false;
        }
        match crate::lifecycle::abort(&self.shared, &self.meta.id).await {
            Ok(true) => {
                self.abort(None);
                true
            }
            Ok(false) => {
                self.phase = unstarted(None);
                false
            }
            Err(()) => {
                self.phase = unstarted(Some(Instant::now() + crate::lifecycle::RETRY_ABORT));
                false
            }
        }
    }

    /// The lease is lost: answer what is held, tell this node's sockets to reconnect,
    /// and stop (the run loop ends).
    pub(super) fn lose(&mut self) {
        if self.phase == Phase::Lost {
            return;
        }
        self.set_phase(Phase::Lost);
        tracing::warn!(game = %self.meta.id, epoch = ?self.fence, "lease lost: this node stops serving the game");
        for h in std::mem::take(&mut self.held) {
            for r in h.reply.into_iter().chain(h.also) {
                let _ = r.send(Reply::Moved);
            }
        }
        self.window_closes = None;
        if let Some(epoch) = self.fence {
            self.shared.drop_game(&self.meta.id, epoch);
        }
        // `drop_game` publishes the notice unless the lease was forgotten already. When
        // this node already serves the game again under a newer epoch (a stale task's
        // requests fenced while the new task's were stored: docs/cluster.md), the game
        // has not moved and the sockets, which are the new task's now, stay.
        if !self.replaced() {
            self.shared
                .bus
                .publish_local(&self.meta.id, crate::bus::BusMsg::moved());
        }
    }

    /// Whether the game's entry on this node is another task's (a newer one, loaded
    /// after this one lost its lease).
    fn replaced(&self) -> bool {
        self.shared
            .lock()
            .get(&self.meta.id)
            .is_some_and(|h| !Arc::ptr_eq(&h.meta, &self.meta))
    }
}

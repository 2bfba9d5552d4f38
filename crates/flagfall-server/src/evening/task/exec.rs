//! A change asked of the evening ([`super::Op`]): made on a copy, the games of a round it
//! deletes or re-pairs held meanwhile, a player's report, a dry run.

use super::*;

impl Task {
    /// Run `f` on the evenings' threads ([`crate::cpu`]), this task waiting for it.
    pub(super) async fn job<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refusal> {
        self.shared.cpu.run(None, f).await.map_err(Refusal::Failed)
    }

    /// A copy of the state to change, made off the async workers.
    pub(super) async fn work(&self) -> Result<Work, Refusal> {
        let state = self.state.clone();
        self.job(move || Work::of(&state)).await
    }

    /// The server games `w` would create count against the address of whoever asks
    /// for them (`asking`: the director's request), else of the evening's director as
    /// this task knows it: refused (`429`, nothing taken) when that address may not
    /// create so many now.
    pub(super) fn charge(&mut self, w: &Work, asking: Option<IpAddr>) -> Result<(), Refusal> {
        let (Some(bucket), Some(addr)) = (&self.shared.creations, asking.or(self.creator)) else {
            return Ok(());
        };
        let n = u32::try_from(w.games.len()).unwrap_or(u32::MAX);
        let due = n.saturating_sub(self.paid);
        bucket
            .take(addr, due)
            .map(|()| self.paid = self.paid.max(n))
            .map_err(|mut later| {
                later.message = format!(
                    "this would start {n} server games, counted against what your address may \
                 create: {}",
                    later.message
                );
                Refusal::Later(later)
            })
    }

    /// Do `op`. The games of a round it deletes or re-pairs are held (no action on
    /// them) until it is stored or refused: then those it removed are aborted (in its
    /// transaction, and in their tasks), the others released.
    ///
    /// Another node may have changed the evening since this one last looked: it catches
    /// up first, and when another node stores a change in the instant between, the op is
    /// tried once more on top of it (refused then if it no longer applies).
    pub(super) async fn exec(
        &mut self,
        op: Op,
        origin: Origin,
        asker: &Asker,
    ) -> Result<Done, Refusal> {
        self.paid = 0;
        self.catch_up().await.map_err(Refusal::Failed)?;
        if let Some(addr) = asker.director_address {
            self.creator = Some(addr);
        }
        let asking = asker.director_address;
        let mut held = Vec::new();
        let mut r = self
            .exec_holding(op.clone(), origin.clone(), asking, &mut held)
            .await;
        if matches!(r, Err(Refusal::Raced(_))) {
            r = self.exec_holding(op, origin, asking, &mut held).await;
        }
        let aborted = r.as_ref().map(|(_, a)| a.clone()).unwrap_or_default();
        for id in &held {
            let c = if aborted.contains(id) {
                RoundCmd::Abort
            } else {
                RoundCmd::Release
            };
            if let Err(e) = self.round_cmd(id, c).await {
                tracing::error!(game = %id, error = ?e, "an evening's game not told of its round");
            }
        }
        r.map(|(done, _)| done)
    }

    pub(super) async fn exec_holding(
        &mut self,
        op: Op,
        origin: Origin,
        asking: Option<IpAddr>,
        held: &mut Vec<String>,
    ) -> Result<(Done, Vec<String>), Refusal> {
        let mut w = self.work().await?;
        let before = Sizes::of(&w.snap);
        match op {
            Op::Changes(changes) => w = self.changes(w, changes, &origin, held).await?,
            Op::AddPlayers {
                players,
                check_in,
                director_token,
            } => {
                let o = origin.clone();
                w = self
                    .on_copy(w, move |w| {
                        add_players(w, players, check_in, director_token, &o)
                    })
                    .await?;
            }
            Op::Deputy => self.deputy(&mut w)?,
            Op::Report {
                player,
                round,
                board,
                results,
            } => {
                let o = origin.clone();
                w = self
                    .on_copy(w, move |w| report(w, player, round, board, results, &o))
                    .await?;
            }
            Op::SetReport { report, date, site } => {
                set_report(&mut w, *report, date, site, &origin)?
            }
            Op::EditPlayer {
                change,
                director_token,
            } => edit_player(&mut w, change, director_token, &origin)?,
        }
        let w = self.settle(w, &origin, asking, Some(before), held).await?;
        let aborted = w.abort.clone();
        self.commit(w).await.map(|done| (done, aborted))
    }

    /// Run `f` on the copy `w` off the async workers ([`Task::job`]): the copy back, or
    /// what `f` refused.
    async fn on_copy(
        &self,
        mut w: Work,
        f: impl FnOnce(&mut Work) -> Result<(), Refusal> + Send + 'static,
    ) -> Result<Work, Refusal> {
        let (back, r) = self
            .job(move || {
                let r = f(&mut w);
                (w, r)
            })
            .await?;
        r.map(|()| back)
    }

    /// The changes of [`Op::Changes`] made on `w`, one by one.
    async fn changes(
        &mut self,
        mut w: Work,
        changes: Vec<Change>,
        origin: &Origin,
        held: &mut Vec<String>,
    ) -> Result<Work, Refusal> {
        if changes.iter().any(|c| matches!(c, Change::PairNext)) {
            // A result that did not come in by itself (a failed store) is taken
            // before the round is refused for missing it (its own count of games).
            let paid = self.paid;
            self.reconcile().await;
            self.paid = paid;
            w = self.work().await?;
        }
        for change in changes {
            // A round deleted or re-paired by hand, or re-paired by the library
            // after a correction of an earlier round (when nothing in it has
            // begun): its games are held until the change is stored.
            if let Some(round) = round_changed_by(&change, w.snap.event.rounds_paired()) {
                self.hold_round(&mut w, round, origin, held).await?;
            }
            // The change itself (a pairing, a re-pairing): off the async workers.
            let o = origin.clone();
            w = self
                .on_copy(w, move |w| {
                    w.apply(change, &o).map(drop).map_err(Refusal::Event)
                })
                .await?;
        }
        Ok(w)
    }

    /// A deputy director's token added to `w` (within the server's limit of deputies).
    fn deputy(&self, w: &mut Work) -> Result<(), Refusal> {
        let deputies = w
            .snap
            .tokens
            .values()
            .filter(|t| **t == Who::Deputy)
            .count();
        let most = self.shared.limits.deputies_per_evening;
        if deputies >= most {
            return Err(Refusal::Conflict(format!(
                "event {} has {deputies} deputies, the most this server allows \
                 (--deputies-per-evening {most})",
                w.snap.id
            )));
        }
        let token = random_hex(32).map_err(Refusal::Failed)?;
        let hash = token_hash(&token);
        w.tokens.push(TournamentToken {
            token_hash: hash.clone(),
            tournament_id: w.snap.id.clone(),
            role: "deputy".into(),
            player: None,
        });
        w.snap.tokens.insert(hash, Who::Deputy);
        w.done.tokens.push(("deputy".into(), token));
        Ok(())
    }

    /// Tell server game `id` of its round ([`RoundCmd`]); whether it has begun. In a
    /// cluster the game may be served by another node: asked over NATS.
    pub(super) async fn round_cmd(&self, id: &str, c: RoundCmd) -> Result<bool, Refusal> {
        use crate::seam::{OwnerRetry, Req, Resp};
        // A game that moves, or whose owner does not answer, is looked up again by the
        // seam's one policy (`crate::seam::OwnerRetry`), for a hold, which needs its
        // answer. A release or an abort is tried once: the game's hold ends by itself
        // without it (`crate::game::ROUND_HOLD`, as its stored row says), and the
        // evening does not wait on an owner that does not answer.
        let policy = match c {
            RoundCmd::Hold => self.shared.seam.retry(),
            RoundCmd::Release | RoundCmd::Abort => OwnerRetry::ONCE,
        };
        let mut retry = policy.start();
        loop {
            let route = self.shared.route_within(id, &mut retry).await;
            let node = match route.map_err(Refusal::Failed)? {
                None => return Ok(false),
                Some(crate::Route::Remote { node, .. }) => node,
                Some(crate::Route::Local(h)) => {
                    let (tx, rx) = oneshot::channel();
                    if h.tx.send(GameCmd::Round(c, tx)).await.is_err() {
                        // The task ended (unloaded): nothing to hold; the store says
                        // the rest.
                        return Ok(false);
                    }
                    return Ok(rx.await.unwrap_or(false));
                }
            };
            let req = Req::Round {
                game: id.to_string(),
                cmd: c,
            };
            let why = match self.shared.seam.ask(&self.shared, &node, &req).await {
                Ok(Resp::Round(begun)) => return Ok(begun),
                Ok(Resp::NotFound) => return Ok(false),
                Ok(Resp::NotOwner) => "moved".to_string(),
                Ok(Resp::Busy) => "busy".to_string(),
                Ok(Resp::Unavailable(why)) => why,
                Ok(other) => {
                    return Err(Refusal::Failed(ServerError::Nats(format!(
                        "game {id}'s server {node} answered {other:?} to its round's {c:?}"
                    ))));
                }
                Err(e) => e.to_string(),
            };
            if !retry.again().await {
                return Err(Refusal::Failed(ServerError::Nats(format!(
                    "game {id}'s server does not answer its round's {c:?}, try again: {why}"
                ))));
            }
        }
    }

    /// [`EveningHandle::preview`]: the changes made on a copy, after the games of the
    /// rounds they would change are asked whether they have begun (a begun game is
    /// marked so on the copy, as [`Task::hold_round`] marks it for the change itself).
    pub(super) async fn preview(
        &mut self,
        changes: Vec<Change>,
        origin: Origin,
    ) -> Result<Preview, Refusal> {
        self.catch_up().await.map_err(Refusal::Failed)?;
        let before = self.state.clone();
        let mut w = self.work().await?;
        for change in changes {
            if let Some(round) = round_changed_by(&change, w.snap.event.rounds_paired()) {
                let mut started = Vec::new();
                if let Some(r) = w
                    .snap
                    .event
                    .round_list
                    .get((round as usize).wrapping_sub(1))
                {
                    for b in &r.boards {
                        for (g, rec) in b.games.iter().enumerate() {
                            if let (Some(id), false, RecordedResult::Pending) =
                                (&rec.game, rec.started, rec.result)
                                // Asked without holding it: `Release` answers whether
                                // it has begun and leaves an unheld game as it was.
                                && self.round_cmd(id, RoundCmd::Release).await?
                            {
                                started.push((b.number, g as u32 + 1));
                            }
                        }
                    }
                }
                for (board, game) in started {
                    w.apply(Change::GameStarted { round, board, game }, &origin)
                        .map_err(Refusal::Event)?;
                }
            }
            let o = origin.clone();
            let (back, r) = self
                .job(move || {
                    let r = w.apply(change, &o);
                    (w, r)
                })
                .await?;
            w = back;
            r.map_err(Refusal::Event)?;
        }
        Ok(Preview {
            before,
            effects: w.done.effects.clone(),
            after: w.snap,
        })
    }

    /// Before a round is deleted or re-paired: its server games that have begun are
    /// marked begun (the events library then refuses); the others are held (`held`), so
    /// that none begins before the change is stored or refused.
    pub(super) async fn hold_round(
        &self,
        w: &mut Work,
        round: u32,
        origin: &Origin,
        held: &mut Vec<String>,
    ) -> Result<(), Refusal> {
        let Some(r) = w
            .snap
            .event
            .round_list
            .get((round as usize).wrapping_sub(1))
        else {
            return Ok(());
        };
        let mut started = Vec::new();
        for b in &r.boards {
            for (g, rec) in b.games.iter().enumerate() {
                if let (Some(id), false, RecordedResult::Pending) =
                    (&rec.game, rec.started, rec.result)
                {
                    if held.contains(id) {
                        continue;
                    }
                    if self.round_cmd(id, RoundCmd::Hold).await? {
                        started.push((b.number, g as u32 + 1));
                    } else {
                        held.push(id.clone());
                    }
                }
            }
        }
        for (board, game) in started {
            w.apply(Change::GameStarted { round, board, game }, origin)
                .map_err(Refusal::Event)?;
        }
        Ok(())
    }
}

/// A player's report: refused unless it is their board of the latest round and its
/// result is not in (`flagfall_events::evening::check_report`); counted at once
/// (`confirm: one`) or when both agree (`agreed_results`).
pub(super) fn report(
    w: &mut Work,
    player: String,
    round: u32,
    board: u32,
    results: Vec<RecordedResult>,
    origin: &Origin,
) -> Result<(), Refusal> {
    use flagfall_events::evening::{Confirmation, ReportRefused, agreed_results, check_report};
    if w.snap.settings.play == Play::Server {
        return Err(Refusal::Conflict(
            "this evening's games are played on the server: their results arrive by \
                 themselves (ask the director to correct one)"
                .into(),
        ));
    }
    check_report(&w.snap.event, &player, round, board, &results).map_err(|r| match r {
        ReportRefused::Event(e) => Refusal::Event(e),
        other => Refusal::Conflict(other.to_string()),
    })?;
    let report = Report {
        round,
        board,
        player,
        results: results.clone(),
        at: origin.at,
    };
    w.row(&LogRow::Report(report.clone()));
    note_report(&w.snap.event, &mut w.snap.reports, &report);
    let both = w
        .snap
        .reports
        .get(&(round, board))
        .cloned()
        .unwrap_or_default();
    let confirmation = match w.snap.settings.confirm {
        Confirm::One => Confirmation::One,
        Confirm::Both => Confirmation::Both,
    };
    let agreed = agreed_results(
        confirmation,
        &results,
        both.white.as_deref(),
        both.black.as_deref(),
    );
    if let Some(results) = agreed {
        w.apply(
            Change::SetResults {
                round,
                board,
                results,
            },
            origin,
        )
        .map_err(Refusal::Event)?;
    }
    Ok(())
}

/// The round `change` deletes or pairs again, if any (a correction of an earlier round
/// pairs the `latest` again when nothing in it has begun).
pub(super) fn round_changed_by(change: &Change, latest: u32) -> Option<u32> {
    match change {
        Change::DeleteRound { round } | Change::Override { round, .. } => Some(*round),
        Change::SetResults { round, .. } | Change::SetGameResult { round, .. }
            if *round < latest =>
        {
            Some(latest)
        }
        _ => None,
    }
}

/// The rating reports' details set on `w` ([`Op::SetReport`]), logged.
fn set_report(
    w: &mut Work,
    report: ReportInfo,
    date: Option<String>,
    site: Option<String>,
    origin: &Origin,
) -> Result<(), Refusal> {
    let mut event = w.snap.event.clone();
    set_details(&mut event, report.clone(), date.as_deref(), site.as_deref())
        .map_err(Refusal::Event)?;
    w.snap.event = event;
    w.row(&LogRow::Details {
        report,
        date,
        site,
        by: origin.by.clone(),
        at: origin.at,
    });
    w.done.effects.push(Effect::SettingChanged);
    Ok(())
}

/// A player's details edited on `w` ([`Op::EditPlayer`]); a new name gets a new link
/// (derived from the director's token when the director edits, else random).
fn edit_player(
    w: &mut Work,
    change: Change,
    director_token: Option<String>,
    origin: &Origin,
) -> Result<(), Refusal> {
    let Change::EditPlayer { player, name, .. } = &change else {
        return Err(Refusal::Conflict("not a player's edit".into()));
    };
    let old = w
        .snap
        .event
        .player(*player)
        .map_err(Refusal::Event)?
        .name
        .clone();
    let name = name.trim().to_string();
    w.apply(change, origin).map_err(Refusal::Event)?;
    if name != old {
        // Each player's link is tied to their name: the new name's link.
        give_link(w, director_token.as_deref(), name)?;
    }
    Ok(())
}

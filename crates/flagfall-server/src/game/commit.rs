//! The writer round trip: a batch applied to the game, repeated refusals left out (the
//! game put back from its copy), stored, then published and answered; a failed commit
//! rebuilt from the events surely stored, and settled once the store can say whether it
//! landed.

use flagfall_game::RulingKind;
use flagfall_protocol::Snapshot;
use flagfall_store::NewEvent;

use super::publish::{COPY_WAIT, msg_event, split_private};
use super::*;
use crate::bus::BusMsg;
use crate::writer::{WriteError, WriteReq};

/// How often a game with a failed commit asks the store whether it landed.
pub(super) const RESOLVE_EVERY: Duration = Duration::from_millis(250);

/// What makes two refusals the same: who was refused, for what kind of action, citing
/// which rule. Between two events that change the game, each is stored once.
pub(super) type RefusalKey = (Role, std::mem::Discriminant<Action>, String);

/// A batch applied to the game: what is left of it to store (the repeated refusals
/// left out), its events, their rows and their JSON.
type Applied = (Vec<Held>, Vec<Event>, Vec<NewEvent>, Vec<Value>);

/// A batch whose commit failed: perhaps nothing of it was stored, perhaps all of it (an
/// ambiguous failure, the commit done but reported failed). The game in memory is what
/// is surely stored; before anything else is stored or a retried id is looked up, the
/// store says which it was ([`GameTask::resolve`]).
pub(super) struct Uncertain {
    events: Vec<Event>,
    rows: Vec<NewEvent>,
    /// When to ask the store again.
    pub(super) ask_at: Instant,
}

impl GameTask {
    /// Apply, store, and only after the commit publish and answer. A failed commit
    /// leaves the game as it was: rebuilt from the events this task knows are stored,
    /// never from a reread of the database (which fails too when the database is down).
    pub(super) async fn commit(&mut self, held: Vec<Held>) {
        if !self.holds() {
            self.held.extend(held);
            self.lose();
            return;
        }
        if let Err(e) = self.resolve().await {
            self.not_stored(held, &e);
            return;
        }
        let was_over = self.game.is_over();
        let rulings_before = self.game.rulings().len();
        let Some((held, events, rows, jsons)) = self.apply_unrepeated(held, rulings_before) else {
            return;
        };
        let written = self.write_serving_copies(rows.clone()).await;
        if let Err(WriteError::Fenced) = written {
            // Another node took the game over: nothing of this batch was stored.
            self.held.extend(held);
            self.lose();
            return;
        }
        if let Err(e) = written {
            tracing::error!(game = %self.meta.id, error = %e, "events not stored");
            self.write_failed(held, events, rows).await;
            return;
        }
        self.retry_at = None;
        self.stored_now(held, rows, jsons, rulings_before, was_over);
    }

    /// Apply `held` to the game, but for the refusals that repeat one stored since the
    /// game last changed ([`GameTask::repeated_refusals`]), which are answered, not
    /// stored: what is left to store, its events and its rows; `None` when nothing is.
    fn apply_unrepeated(&mut self, held: Vec<Held>, rulings_before: usize) -> Option<Applied> {
        // The game as stored, kept only when the batch may hold a repeated refusal
        // (which is undone): a copy of the game costs O(moves), and an ordinary move
        // never needs one.
        let before = self.may_repeat(&held).then(|| self.game.clone());
        let (events, rows, jsons) = self.apply(&held);
        let repeats = self.repeated_refusals(&held, rulings_before);
        if repeats.iter().all(Option::is_none) {
            return Some((held, events, rows, jsons));
        }
        // The repeats are answered, not stored: the game goes back to what is stored
        // and the rest of the batch, if any, is applied again without them (a refusal
        // changed nothing the others depend on).
        self.undo(before);
        let mut keep = Vec::new();
        for (h, repeat) in held.into_iter().zip(repeats) {
            match repeat {
                Some((reason, rule)) => {
                    for r in h.reply.into_iter().chain(h.also) {
                        let _ =
                            r.send(self.refuse(h.id.clone(), reason.clone(), Some(rule.clone())));
                    }
                }
                None => keep.push(h),
            }
        }
        if keep.is_empty() {
            return None;
        }
        let (events, rows, jsons) = self.apply(&keep);
        Some((keep, events, rows, jsons))
    }

    /// Have the writer commit `rows`, serving meanwhile the readers who want the game
    /// as stored from what is stored: a reader who asks while the commit runs is served
    /// after it (a plain copy of the new view) when it lands within [`COPY_WAIT`], else
    /// from the stored events (a database that keeps the task waiting does not keep the
    /// reader waiting with it).
    async fn write_serving_copies(&mut self, rows: Vec<NewEvent>) -> Result<(), WriteError> {
        let (written, pending) = {
            let write = self.write(rows);
            tokio::pin!(write);
            let mut replay_at: Option<Instant> = None;
            loop {
                tokio::select! {
                    r = &mut write => break (r, replay_at.is_some()),
                    _ = self.want.notified(), if replay_at.is_none() => {
                        replay_at = Some(Instant::now() + COPY_WAIT);
                    }
                    _ = sleep_until(replay_at) => {
                        self.copy_while_committing();
                        replay_at = None;
                    }
                }
            }
        };
        if pending {
            // Served by the task's loop once this commit is published (or not).
            self.want.notify_one();
        }
        written
    }

    /// Apply `held` to the game: its events, the rows that store them, and each
    /// event's JSON (what the rows hold as text, kept to be published without reading
    /// the text back).
    pub(super) fn apply(&mut self, held: &[Held]) -> (Vec<Event>, Vec<NewEvent>, Vec<Value>) {
        let first = self.n + 1;
        let was_over = self.game.is_over();
        let events: Vec<Event> = held.iter().map(|h| h.event.clone()).collect();
        self.game.apply_batch(&events, first as usize);
        let over = self.game.is_over();
        let last = held.len() - 1;
        let jsons: Vec<Value> = events.iter().map(Event::to_json).collect();
        let rows = held
            .iter()
            .zip(&jsons)
            .enumerate()
            .map(|(i, (h, json))| NewEvent {
                game_id: self.meta.id.clone(),
                n: (first as usize + i) as i64,
                json: json.to_string(),
                by_role: h.role,
                client_id: h.id.clone(),
                finished: (i == last && over && !was_over).then(|| self.game.verdict().0),
            })
            .collect();
        (events, rows, jsons)
    }

    /// For each action of `held`, just applied: its answer when it was only refused and
    /// repeats a refusal stored since the game last changed, or one earlier in this batch
    /// (same sender, kind of action and rule); such a repeat is not stored. A refusal is
    /// a ruling of kind `refused`, or a rejected claim that changed no one's time. So junk
    /// grows a game by at most one event per sender, kind of action and rule between two
    /// events that change it, however the actions were batched.
    pub(super) fn repeated_refusals(
        &self,
        held: &[Held],
        rulings_before: usize,
    ) -> Vec<Option<(String, String)>> {
        let first = self.n as usize + 1;
        let new = &self.game.rulings()[rulings_before..];
        let mut in_batch = HashSet::new();
        held.iter()
            .enumerate()
            .map(|(i, h)| {
                let (key, ruling) = refusal_key(h, new, first + i)?;
                let repeat = self.refused.contains(&key) || in_batch.contains(&key);
                in_batch.insert(key);
                repeat.then_some(ruling)
            })
            .collect()
    }

    /// Whether `held` may hold a refusal that [`GameTask::repeated_refusals`] finds
    /// repeated: an action whose sender and kind of action match a refusal stored
    /// since the game last changed, or another action of the same batch. Only then is
    /// the game copied before the batch, to be undone.
    pub(super) fn may_repeat(&self, held: &[Held]) -> bool {
        let mut in_batch = HashSet::new();
        held.iter().any(|h| {
            let Some(role) = h.role else { return false };
            let kind = std::mem::discriminant(&h.event.action);
            self.refused
                .iter()
                .any(|(r, k, _)| *r == role && *k == kind)
                || !in_batch.insert((role, kind))
        })
    }

    /// Put the game back as it was stored before a batch that is not stored was
    /// applied to it: `before`, the copy [`GameTask::apply_unrepeated`] kept, or else
    /// (never expected: [`GameTask::may_repeat`] keeps one whenever a refusal may
    /// repeat) a rebuild from the stored events.
    pub(super) fn undo(&mut self, before: Option<Game>) {
        match before {
            Some(game) => self.game = game,
            None => {
                tracing::error!(game = %self.meta.id, "a repeated refusal without a copy of the game: rebuilt from its events");
                self.rebuild();
            }
        }
    }

    /// Have the writer commit `rows`.
    pub(super) async fn write(&self, rows: Vec<NewEvent>) -> Result<(), WriteError> {
        let (done_tx, done_rx) = oneshot::channel();
        let req = WriteReq {
            events: rows,
            done: done_tx,
            fence: self.fence,
        };
        if self.shared.writer.send(req).await.is_err() {
            return Err(WriteError::Stopped);
        }
        done_rx.await.unwrap_or(Err(WriteError::Stopped))
    }

    /// The commit of `held` (applied as `events`, `rows`) failed: the game goes back to
    /// what is surely stored, and the store is asked at once whether the commit landed
    /// after all (an ambiguous failure); the senders are answered with what it holds.
    pub(super) async fn write_failed(
        &mut self,
        held: Vec<Held>,
        events: Vec<Event>,
        rows: Vec<NewEvent>,
    ) {
        self.rebuild();
        self.uncertain = Some(Uncertain {
            events,
            rows,
            ask_at: Instant::now() + RESOLVE_EVERY,
        });
        match self.landed().await {
            Ok(true) => {
                if let Some(u) = self.uncertain.take() {
                    self.adopt(u, held);
                }
            }
            Ok(false) => {
                self.uncertain = None;
                self.not_stored(held, "the database did not take it");
            }
            Err(_) => self.not_stored(held, "the database did not take it"),
        }
    }

    /// Answer every sender of `held` that it was not stored; the server's own action
    /// (a flag's end) is tried again in a second.
    pub(super) fn not_stored(&mut self, held: Vec<Held>, why: &str) {
        for h in held {
            if h.role.is_none() {
                self.flagged.clear();
                self.retry_at = Some(Instant::now() + Duration::from_secs(1));
            }
            for r in h.reply.into_iter().chain(h.also) {
                let msg = ServerMsg::Error {
                    id: h.id.clone(),
                    message: format!("not stored, try again: {why}"),
                };
                let _ = r.send(Reply::Direct(msg.to_text()));
            }
        }
    }

    /// `held`, applied to the game as `rows` (their JSON `jsons`), is stored: count it,
    /// publish it, answer.
    pub(super) fn stored_now(
        &mut self,
        held: Vec<Held>,
        rows: Vec<NewEvent>,
        jsons: Vec<Value>,
        rulings_before: usize,
        was_over: bool,
    ) {
        let first = self.n + 1;
        self.n += held.len() as u64;
        self.stored
            .extend(rows.into_iter().map(|r| r.json.into_boxed_str()));
        let moves_from = self.moves.update(&self.game);
        self.tell_evening(was_over);
        let mut snapshot = self.snapshot(moves_from);
        snapshot
            .update
            .leave_out_unchanged(OffencesKey::of(&self.game), &mut self.offences_held);
        // What everyone reads, and what only White's or Black's sockets read
        // (`Actions::seen_by`: whether an unpressed move may be taken back tells whether
        // it is legal).
        let (public, private) = split_private(snapshot);
        // Commit, then the view, then the bus: a socket that subscribed before it read
        // the view gets every later event, and skips those the view holds.
        self.publish();
        let new_rulings = &self.game.rulings()[rulings_before..];
        for (i, h) in held.iter().enumerate() {
            match refusal_key(h, new_rulings, first as usize + i) {
                Some((key, _)) => {
                    self.refused.insert(key);
                }
                None => self.refused.clear(),
            }
        }
        self.announce(held, jsons, rulings_before, (&public, &private));
    }

    /// What a stored batch changed for the game's evening, if it has one, and for the
    /// game's phase: the game is over (its result goes into the evening, its clock
    /// leaves the heartbeat), or waits for the director, or no longer does (the
    /// evening's console shows it at once).
    fn tell_evening(&mut self, was_over: bool) {
        let over = self.game.is_over();
        if over && !was_over {
            self.shared.beats.remove(&self.meta.id);
            crate::round_link::game_over(&self.shared, &self.meta.id);
        }
        let waiting = crate::round_link::dispute_of(&self.game);
        if waiting != self.waiting {
            self.waiting = waiting.clone();
            crate::round_link::game_waiting(&self.shared, &self.meta.id, self.n, waiting);
        }
        if over && !was_over {
            self.finish();
        }
    }

    /// Put the stored events of `held` (their JSON `jsons`, the last of them event
    /// `self.n`) on the bus, each with its rulings and the update after the batch (the
    /// public one, and White's and Black's own where they differ), and answer each
    /// sender: stored, or refused by the arbiter.
    fn announce(
        &mut self,
        held: Vec<Held>,
        jsons: Vec<Value>,
        rulings_before: usize,
        (public, private): (&Snapshot, &[Option<Snapshot>; 2]),
    ) {
        let first = self.n + 1 - held.len() as u64;
        let new_rulings = &self.game.rulings()[rulings_before..];
        for (i, (h, event)) in held.into_iter().zip(jsons).enumerate() {
            let n = first + i as u64;
            if let (Some(role), Some(id)) = (h.role, h.id.clone()) {
                self.seen.insert((role, id), n);
            }
            let msg = self.event_msg(n, h.id.clone(), event, public, new_rulings);
            let mut out = BusMsg::public(Some(n), msg.to_text().into());
            for (i, own) in private.iter().enumerate() {
                if let Some(own) = own {
                    let msg = self.event_msg(n, h.id.clone(), msg_event(&msg), own, new_rulings);
                    out.private[i] = Some(msg.to_text().into());
                }
            }
            self.shared.bus.publish(&self.meta.id, out);
            let refusal = new_rulings
                .iter()
                .find(|r| r.event == n as usize && r.kind == RulingKind::Refused);
            for r in h.reply.into_iter().chain(h.also) {
                let answer = match refusal {
                    Some(ruling) => self.refuse(
                        h.id.clone(),
                        ruling.ruling.clone(),
                        Some(ruling.rule.clone()),
                    ),
                    None => Reply::Stored(n),
                };
                let _ = r.send(answer);
            }
        }
    }

    /// Settle the last failed commit: ask the store how many events it holds. As many as
    /// this task knows: nothing of it was stored. That many more, the same: it was
    /// stored after all (an ambiguous failure), so it is applied, published, and its
    /// ids are seen, so a retry gets it again instead of storing it twice.
    pub(super) async fn resolve(&mut self) -> Result<(), String> {
        match self.landed().await? {
            true => {
                if let Some(u) = self.uncertain.take() {
                    let held = u
                        .events
                        .iter()
                        .zip(&u.rows)
                        .map(|(event, r)| Held {
                            event: event.clone(),
                            role: r.by_role,
                            id: r.client_id.clone(),
                            reply: None,
                            also: Vec::new(),
                        })
                        .collect();
                    self.adopt(u, held);
                }
            }
            false => self.uncertain = None,
        }
        Ok(())
    }

    /// Whether the uncertain batch is stored (false also when there is none).
    pub(super) async fn landed(&mut self) -> Result<bool, String> {
        let Some(u) = &self.uncertain else {
            return Ok(false);
        };
        let stored = self.shared.store.events(&self.meta.id).await.map_err(|e| {
            tracing::error!(game = %self.meta.id, error = %e, "cannot check a failed commit");
            "the database cannot be read".to_string()
        })?;
        let n = self.n as usize;
        if stored.len() == n {
            return Ok(false);
        }
        let landed = stored.len() == n + u.rows.len()
            && stored[n..]
                .iter()
                .zip(&u.rows)
                .all(|(s, r)| s.json == r.json);
        if !landed {
            tracing::error!(game = %self.meta.id, stored = stored.len(), known = n, "the store holds events this task did not write");
            return Err("the stored game differs from the live one".into());
        }
        Ok(true)
    }

    /// The failed batch `u` is stored after all: apply it, publish it, answer `held`.
    pub(super) fn adopt(&mut self, u: Uncertain, held: Vec<Held>) {
        let was_over = self.game.is_over();
        let rulings_before = self.game.rulings().len();
        self.game.apply_batch(&u.events, self.n as usize + 1);
        self.retry_at = None;
        let jsons = u.events.iter().map(Event::to_json).collect();
        self.stored_now(held, u.rows, jsons, rulings_before, was_over);
    }

    /// Rebuild the game from the events this task knows are stored (in memory), after
    /// a failed commit applied a batch that may not be stored.
    pub(super) fn rebuild(&mut self) {
        if let Some(game) = self.replayed() {
            self.game = game;
            self.moves = MoveList::default();
            self.moves.update(&self.game);
        }
    }

    /// The game replayed from the events this task knows are stored (in memory).
    pub(super) fn replayed(&self) -> Option<Game> {
        let mut text = self.meta.setup_line.clone();
        text.push('\n');
        for e in &self.stored {
            text.push_str(e);
            text.push('\n');
        }
        match script::parse(&text) {
            Ok(parsed) => Some(flagfall_game::replay(&parsed).game),
            Err(e) => {
                tracing::error!(game = %self.meta.id, error = %e, "cannot rebuild the game from its own events");
                None
            }
        }
    }
}

/// When event `n` (the action of `h`) was only refused (its rulings, among `rulings`,
/// all refusals: kind `refused`, or a rejected claim that changed no one's time): what
/// makes it the same as another refusal, and the first refusal's text and rule.
fn refusal_key(
    h: &Held,
    rulings: &[flagfall_game::Ruling],
    n: usize,
) -> Option<(RefusalKey, (String, String))> {
    let role = h.role?;
    let mut mine = rulings.iter().filter(|r| r.event == n).peekable();
    let first = (*mine.peek()?).clone();
    let only_refused = mine.all(|r| {
        r.kind == RulingKind::Refused || (r.kind == RulingKind::ClaimRejected && r.time.is_none())
    });
    if !only_refused {
        return None;
    }
    let key = (
        role,
        std::mem::discriminant(&h.event.action),
        first.rule.clone(),
    );
    Some((key, (first.ruling, first.rule)))
}

//! Acting on a request: a retried id answered again, a move typed in SAN read, the
//! sender's right to act checked, the action stamped with the game clock and committed
//! or held in the simultaneity window.

use flagfall_protocol::ClientFrame;

use super::*;

impl GameTask {
    /// A player's (or the director's) action: answered at once when it is a retry, when
    /// its sender may not do it, or when nothing can be stored now; otherwise stamped
    /// with the game clock and stored, or held in the open simultaneity window.
    pub(super) async fn act(&mut self, act: Act, reply: oneshot::Sender<Reply>) {
        let Act {
            role,
            id,
            lag_ms,
            mut action,
            san,
            rtt_ms,
            received,
        } = act;
        if !self.holds() {
            self.lose();
            let _ = reply.send(Reply::Moved);
            return;
        }
        // A failed commit may have landed after all: settle it before looking up ids.
        if let Err(e) = self.resolve().await {
            let msg = ServerMsg::Error {
                id,
                message: format!("not stored, try again: {e}"),
            };
            let _ = reply.send(Reply::Direct(msg.to_text()));
            return;
        }
        let Some(reply) = self.answer_retry(role, id.as_deref(), reply) else {
            return;
        };
        if let Some(text) = san {
            match self.typed_move(role, &text, &action) {
                Ok(typed) => action = typed,
                Err(reason) => {
                    let _ = reply.send(self.refuse(id, reason, None));
                    return;
                }
            }
        }
        let party = match self.allowed(role, &mut action) {
            Ok(party) => party,
            Err((reason, rule)) => {
                let _ = reply.send(self.refuse(id, reason, rule));
                return;
            }
        };
        self.start_clock();
        let event = self.stamp(action, party, received, lag_ms, rtt_ms);
        if Game::opens_window(&event)
            && self
                .held
                .iter()
                .any(|h| h.role == Some(role) && h.event.action == event.action)
        {
            // Claimed again while the same claim waits: it would only hold the window.
            let text = "the same claim waits for its simultaneity window to close".into();
            let _ = reply.send(self.refuse(id, text, None));
            return;
        }
        let held = Held {
            event,
            role: Some(role),
            id,
            reply: Some(reply),
            also: Vec::new(),
        };
        if let Some(held) = self.hold(held) {
            self.commit(vec![held]).await;
        }
    }

    /// A retried `id` is answered here (with the event it made, again, or with the held
    /// action it repeats once that is decided): `None`. A new action gives `reply` back.
    pub(super) fn answer_retry(
        &mut self,
        role: Role,
        id: Option<&str>,
        reply: oneshot::Sender<Reply>,
    ) -> Option<oneshot::Sender<Reply>> {
        let Some(i) = id else {
            return Some(reply);
        };
        // A retry of an action held in the simultaneity window: answered with it.
        if let Some(h) = self
            .held
            .iter_mut()
            .find(|h| h.role == Some(role) && h.id.as_deref() == Some(i))
        {
            h.also.push(reply);
            return None;
        }
        // A retried id: the event it made, again, to this sender only.
        let Some(&n) = self.seen.get(&(role, i.to_string())) else {
            return Some(reply);
        };
        // The whole move list: this sender's view may be older than event n - 1.
        let snapshot = self.snapshot(0);
        let event = self
            .stored
            .get(n as usize - 1)
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null);
        let msg = self.event_msg(
            n,
            Some(i.to_string()),
            event,
            &snapshot,
            self.game.rulings(),
        );
        let _ = reply.send(Reply::Direct(msg.to_text()));
        None
    }

    /// The move a player typed in SAN (`text`), with the press `placeholder` carries, or
    /// why it names no move of theirs (docs/protocol.md).
    pub(super) fn typed_move(
        &self,
        role: Role,
        text: &str,
        placeholder: &Action,
    ) -> Result<Action, String> {
        let Some(colour) = role.party().and_then(|p| p.color()) else {
            return Err("only a player types a move".into());
        };
        let press = matches!(placeholder, Action::Move { press: true, .. });
        let mv = flagfall_protocol::resolve_san(&self.game, colour, text)?;
        Ok(Action::Move { mv, press })
    }

    /// Whether `role` may send `action` on this game ([`flagfall_protocol::may_send`],
    /// from which the state's `actions` are made too): the party it acts as, or the
    /// reason and rule of the refusal. Online, a move is made to press the clock.
    fn allowed(&self, role: Role, action: &mut Action) -> Result<Party, (String, Option<String>)> {
        let party = flagfall_protocol::may_send(&self.game, self.meta.mode, role, action)
            .map_err(|r| (r.reason, r.rule))?;
        if self.meta.mode == Mode::Online
            && let Action::Move { press, .. } = action
        {
            *press = true;
        }
        Ok(party)
    }

    /// The event of `action` by `party`, received at `received`, with the lag credit of
    /// a press by the player whose clock runs ([`crate::lag`]). Its `at` is when the
    /// server received it (no earlier than the last event): a player is not charged for
    /// what waited in the queue before it, the opponent's junk included.
    pub(super) fn stamp(
        &mut self,
        action: Action,
        party: Party,
        received: Instant,
        lag_ms: Option<u64>,
        rtt_ms: Option<u64>,
    ) -> Event {
        let at = self.at_of(received).max(self.game.now());
        let mut credit = 0;
        if action.presses()
            && let Some(c) = party.color()
            && self.game.clock().running() == Some(c)
        {
            credit = self.quota[idx(c)].press(lag_ms, rtt_ms);
            if credit > 0 {
                self.shared.metrics.lag_credit_ms.inc_by(credit);
                self.shared.metrics.lag_credits.inc();
            }
        }
        ClientFrame::event(action, at, party, credit)
    }
}

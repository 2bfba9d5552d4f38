//! The game clock as the task reads it, the simultaneity window and the flag timer.

use flagfall_protocol::Claims;

use super::*;
use crate::bus::BusMsg;

impl GameTask {
    /// The game's clock now (`at`).
    pub(super) fn now(&self) -> u64 {
        if !self.phase.started() {
            return 0;
        }
        self.base + self.epoch.elapsed().as_millis() as u64
    }

    /// The game clock at `t` (no later than now): 0 before the game started.
    pub(super) fn at_of(&self, t: Instant) -> u64 {
        if !self.phase.started() {
            return 0;
        }
        self.base + t.saturating_duration_since(self.epoch).as_millis() as u64
    }

    pub(super) fn instant_of(&self, at: u64) -> Instant {
        self.epoch + Duration::from_millis(at.saturating_sub(self.base))
    }

    /// When the task must wake up by itself: a window closing or a flag falling.
    pub(super) fn next_wake(&self) -> Option<(Instant, bool)> {
        if let Some(closes) = self.window_closes {
            return Some((self.instant_of(closes), true));
        }
        if !self.phase.started() || self.game.is_over() {
            return None;
        }
        let now = self.now().max(self.game.now());
        let (side, t) = self.game.clock().next_flag_fall(self.game.now())?;
        if self.flagged.contains(&(side, t)) {
            return None;
        }
        let at = self.instant_of(t.max(now));
        Some((self.retry_at.map_or(at, |r| r.max(at)), false))
    }

    /// Hold `held` while a simultaneity window is open or when it opens one (decided
    /// when the window closes, docs/protocol.md); give it back to commit at once.
    pub(super) fn hold(&mut self, held: Held) -> Option<Held> {
        let opens = !self.game.is_over() && Game::opens_window(&held.event);
        if self.window_closes.is_none() && !opens {
            return Some(held);
        }
        let closes = held.event.at + self.game.setup().simultaneous_ms + 1;
        self.window_closes = Some(match self.window_closes {
            None => closes,
            Some(c) if Game::opens_window(&held.event) => c.max(closes),
            Some(c) => c,
        });
        self.held.push(held);
        None
    }

    pub(super) async fn close_window(&mut self) {
        self.window_closes = None;
        let held = std::mem::take(&mut self.held);
        if !held.is_empty() {
            self.commit(held).await;
        }
    }

    pub(super) async fn flag_fell(&mut self) {
        if !self.holds() {
            self.lose();
            return;
        }
        let Some((side, t)) = self.game.clock().next_flag_fall(self.game.now()) else {
            return;
        };
        if self.now() < t {
            return;
        }
        self.flagged.push((side, t));
        self.shared.metrics.flags.inc();
        let at = self.now().max(t);
        let claims_of =
            |c: Color| flagfall_protocol::claim_names(&self.game, c, at, self.meta.mode);
        let msg = ServerMsg::Flag {
            color: side.into(),
            claims: Claims {
                white: claims_of(Color::White),
                black: claims_of(Color::Black),
            },
        };
        self.shared
            .bus
            .publish(&self.meta.id, BusMsg::public(None, msg.to_text().into()));
        if self.game.setup().auto_flag {
            let at = self.now().max(t);
            let end = Event {
                line: 0,
                at,
                by: None,
                action: Action::End,
                lag_ms: 0,
            };
            let held = Held {
                event: end,
                role: None,
                id: None,
                reply: None,
                also: Vec::new(),
            };
            if self.window_closes.is_some() {
                self.held.push(held);
            } else {
                self.commit(vec![held]).await;
            }
        }
    }
}

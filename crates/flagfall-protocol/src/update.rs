//! The client side of an `event` message: applying its [`StateUpdate`] to the state a
//! client holds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::{
    Actions, BoardMove, Called, Claims, ClockState, ColorName, MoveView, OffencesKey, PendingClaim,
    State,
};

/// What an `event` message changes in the state object (docs/protocol.md): the fields
/// that may change with any event, whole, and the moves as a tail. A client applies it
/// to the state it holds (after event `n - 1`): every field here replaces its own,
/// `moves` replaces the list from index `moves_from` on, the message's `rulings` are
/// appended, and `n` becomes the event's. Applying the same update twice changes
/// nothing more, so a batch of events decided together may all carry the state after
/// the batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StateUpdate {
    pub reason: Option<String>,
    pub rule: Option<String>,
    pub fen: String,
    /// The completed moves from index `moves_from` on (the earlier ones are unchanged).
    pub moves_from: usize,
    pub moves: Vec<MoveView>,
    pub to_move: ColorName,
    pub running: Option<ColorName>,
    pub pending: Option<PendingClaim>,
    /// A player's call for the director, while it waits.
    pub called: Option<Called>,
    pub flags: Vec<ColorName>,
    pub board_move: Option<BoardMove>,
    pub claims: Claims,
    /// What each role may do now besides the claims; the director's `offences` only
    /// when they changed since the previous event.
    pub actions: Actions,
    pub draw_offer: Option<ColorName>,
    pub server_now: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dests: Option<BTreeMap<String, Vec<String>>>,
    /// Online: the SAN of each legal move, by UCI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub san: Option<BTreeMap<String, String>>,
}

impl StateUpdate {
    /// Leave the director's offences out of this update (about 1.5 KB of JSON an
    /// event; they change only when an offence is recorded or the game ends) when
    /// `held`, the [`OffencesKey`] of the state clients hold after the previous event,
    /// is `key`, this update's game's; `held` becomes `key`. `held` starts as the key of
    /// the game the clients' state was made from (`None`: the first update carries them).
    pub fn leave_out_unchanged(&mut self, key: OffencesKey, held: &mut Option<OffencesKey>) {
        if *held == Some(key) {
            self.actions.director.offences = None;
        }
        *held = Some(key);
    }

    /// Apply this update, the event's clock, result and rulings to `state` (what a
    /// client does with an `event` message; the server's tests use it to check that
    /// the deltas rebuild the full state).
    pub fn apply(
        &self,
        state: &mut State,
        n: u64,
        clock: ClockState,
        result: &str,
        rulings: &[Value],
    ) {
        state.result = result.to_string();
        state.reason = self.reason.clone();
        state.rule = self.rule.clone();
        state.clock = clock;
        state.fen = self.fen.clone();
        state.moves.truncate(self.moves_from);
        state.moves.extend(self.moves.iter().cloned());
        state.to_move = self.to_move;
        state.running = self.running;
        state.pending = self.pending.clone();
        state.called = self.called.clone();
        state.flags = self.flags.clone();
        state.board_move = self.board_move.clone();
        state.claims = self.claims.clone();
        let offences = match self.actions.director.offences {
            Some(_) => None,
            None => state.actions.director.offences.take(),
        };
        state.actions = self.actions.clone();
        if offences.is_some() {
            state.actions.director.offences = offences;
        }
        state.draw_offer = self.draw_offer;
        state.server_now = self.server_now;
        state.dests = self.dests.clone();
        state.san = self.san.clone();
        if n > state.n {
            state.rulings.extend(rulings.iter().cloned());
            state.n = n;
        }
    }
}

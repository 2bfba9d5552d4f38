//! The messages the server sends on a game's WebSocket.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::{Claims, ClockState, ColorName, RulingView, State, StateUpdate};

/// A message from the server. Every message has a `"type"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// On connect: the full state.
    State(Box<State>),
    /// After every stored event, to everyone on the game.
    Event {
        n: u64,
        /// The stored event, as the game-script format writes it.
        #[ts(type = "{ at: number; by?: Role; id?: string; [k: string]: unknown }")]
        event: Value,
        #[ts(as = "Vec<RulingView>")]
        rulings: Vec<Value>,
        clock: ClockState,
        result: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// What changed in the state object, as of after this event.
        update: Box<StateUpdate>,
    },
    /// To the sender of an event the arbiter or the server refused.
    Refused {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// A frame that is not a valid event.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        message: String,
    },
    /// A flag fell on the server's clock. `claims`: what each player may claim now (the
    /// opponent's `flag` among them), so a page offers the claim at once.
    Flag { color: ColorName, claims: Claims },
    /// The answer to `{"ping": N}`: `ping` is the client's N, `server_now` the game's clock.
    Pong { ping: u64, server_now: u64 },
    /// A cluster node that does not serve the game, to a socket opened without `?node=`:
    /// the game is served by `node`; reconnect with `?node=<node>` (the balancer sends the
    /// socket there, docs/cluster.md). The socket is closed next with 4302. Sent only on
    /// open, before any `state`, and never to a socket that already names a node.
    Reconnect { node: String },
}

impl ServerMsg {
    /// The message as one JSON text frame.
    pub fn to_text(&self) -> String {
        // An event is about 1 KB: written into a buffer of that size from the start
        // (serde_json's own starts at 128 bytes and grows three times).
        let mut out = Vec::with_capacity(1024);
        let written = serde_json::to_writer(&mut out, self)
            .map_err(|e| e.to_string())
            // serde_json writes UTF-8 only; said, not assumed.
            .and_then(|()| String::from_utf8(out).map_err(|e| e.to_string()));
        // The error's text escaped as JSON (it may hold quotes).
        written.unwrap_or_else(|e| {
            serde_json::json!({"type": "error", "message": format!("cannot encode a message: {e}")})
                .to_string()
        })
    }
}

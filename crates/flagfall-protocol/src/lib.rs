//! flagfall-protocol: the wire contract of `flagfall serve` (docs/protocol.md).
//!
//! Serde types and their logic, one concern a module. No I/O, no async: the server, the
//! load generator, the tests and the fuzz target share these definitions.
//!
//! - `body`: the HTTP bodies of a game (create it, the answer);
//! - `state`: the state object and its projection from a `Game` (`State::of`,
//!   `Snapshot::of`);
//! - `update`: what an `event` changes, and how a client applies it;
//! - `message`: the server's messages;
//! - `frame`: the client's frames, parsed with their size limit;
//! - [`challenge`]: the lobby's open challenges; [`practice`]: games against the
//!   computer (their own modules: their `Created` is not the game's).

mod body;
pub mod challenge;
mod frame;
mod message;
pub mod practice;
mod state;
mod update;

pub use body::*;
pub use frame::*;
pub use message::*;
pub use state::*;
pub use update::*;

/// The largest client frame the server reads, in bytes.
pub const MAX_FRAME_BYTES: usize = 4096;
/// The largest `POST /api/games` body, in bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// The longest client `id` echoed back, in bytes.
pub const MAX_ID_BYTES: usize = 64;

#[cfg(test)]
mod tests;

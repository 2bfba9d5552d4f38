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
//! - `allowed`: what each role may do now (`actions`);
//! - `rematch`: a rematch offer after a game and its answer;
//! - `ruling`: a ruling as the wire carries it; `rulesets`: the rulesets the lobby
//!   offers (`GET /api/rulesets`);
//! - `typescript`: the TypeScript declarations of these types (web/src/wire.ts);
//! - [`evening`]: an evening's answers and live messages (its own module: its
//!   `Standings`, `Me` and `Dispute` are not the game's);
//! - [`challenge`]: the lobby's open challenges; [`practice`]: games against the
//!   computer (their own modules: their `Created` is not the game's).

mod allowed;
mod body;
pub mod challenge;
pub mod evening;
mod frame;
mod message;
pub mod practice;
mod rematch;
mod rulesets;
mod ruling;
mod san;
mod state;
mod typescript;
mod update;

pub use allowed::*;
pub use body::*;
pub use frame::*;
pub use message::*;
pub use rematch::*;
pub use rulesets::*;
pub use ruling::*;
pub use san::*;
pub use state::*;
pub use typescript::typescript;
pub use update::*;

/// The largest client frame the server reads, in bytes.
pub const MAX_FRAME_BYTES: usize = 4096;
/// The largest `POST /api/games` body, in bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// The longest client `id` echoed back, in bytes.
pub const MAX_ID_BYTES: usize = 64;
/// The longest simultaneity window a game may ask for, in milliseconds: a longer one
/// holds every later action (even the director's) that long.
pub const MAX_SIMULTANEOUS_MS: u64 = 2_000;
/// The longest player name, in characters, everywhere a name is given (a game's `white`
/// and `black`, a challenge's `name`, an accepter's `name`).
pub const MAX_NAME_CHARS: usize = 64;

/// A character that reorders the text around it when shown (the Unicode bidirectional
/// embeddings, overrides and isolates, U+202A-U+202E and U+2066-U+2069): in a name it
/// would make "Ann" read as another name on a pairing list. The plain direction marks
/// (U+200E, U+200F, U+061C) only settle the direction of neutral characters and stay
/// allowed, as does any right-to-left script itself.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Check a player name given in field `field`: at most [`MAX_NAME_CHARS`] characters,
/// no control characters (a newline would end a PGN tag, a tab would break a listing)
/// and no bidirectional override ([`is_bidi_control`]).
pub fn check_name(field: &str, name: &str) -> Result<(), SetupError> {
    let bad = |message: String| SetupError {
        field: field.to_string(),
        message,
    };
    let n = name.chars().count();
    if n > MAX_NAME_CHARS {
        return Err(bad(format!(
            "{n} characters, more than the {MAX_NAME_CHARS} a name may have"
        )));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(bad(format!(
            "a name may not hold control characters (found U+{:04X})",
            c as u32
        )));
    }
    if let Some(c) = name.chars().find(|&c| is_bidi_control(c)) {
        return Err(bad(format!(
            "a name may not hold a bidirectional override (found U+{:04X}): it would \
             make the name read as another on screen",
            c as u32
        )));
    }
    Ok(())
}

/// A name stored before today's rules (an evening's player entered with up to 200
/// characters, or with a bidirectional override) fitted to a game's: each control
/// character or override a space, blanks folded, and cut to [`MAX_NAME_CHARS`]
/// characters with an ellipsis, never parting a letter from the combining marks after
/// it. A name that already passes [`check_name`] comes back as it is.
pub fn fit_name(name: &str) -> String {
    if check_name("name", name).is_ok() {
        return name.to_string();
    }
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_control() || is_bidi_control(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    let clean = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if clean.chars().count() <= MAX_NAME_CHARS {
        return clean;
    }
    let chars: Vec<char> = clean.chars().collect();
    let mut end = MAX_NAME_CHARS - 1;
    // Back off to the start of a letter: a combining mark (U+0300-U+036F and the other
    // combining blocks), a variation selector or a joiner belongs to the letter before.
    let joins = |c: char| {
        matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}' | '\u{FE00}'..='\u{FE0F}' | '\u{FE20}'..='\u{FE2F}'
            | '\u{200D}')
    };
    while end > 0 && joins(chars[end]) {
        end -= 1;
    }
    let mut out: String = chars[..end].iter().collect();
    out = out.trim_end().to_string();
    out.push('…');
    out
}

#[cfg(test)]
mod tests;

//! flagfall-protocol: the wire contract of `flagfall serve` (docs/protocol.md).
//!
//! Serde types for the create-game body and answer, the state object, every server
//! message, and the parser of client frames with its size limit. No I/O, no async: the
//! server, the load generator, the tests and the fuzz target share these definitions.

use std::collections::BTreeMap;

use flagfall_analysis::assistant::DrawClaim;
use flagfall_game::script::{self, Action, ClaimKind, Event, GameSetup, MAX_LAG_MS};
use flagfall_game::{Game, MoveEntry};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use shakmaty::Color;

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

/// Check a player name given in field `field`: at most [`MAX_NAME_CHARS`] characters and
/// no control characters (a newline would end a PGN tag, a tab would break a listing).
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
    Ok(())
}

/// How the game is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The physical board of the rulebooks: illegal moves stand until claimed.
    #[default]
    Otb,
    /// Ordinary online blitz: legal moves only, automatic flagging.
    Online,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Otb => "otb",
            Mode::Online => "online",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "otb" => Some(Mode::Otb),
            "online" => Some(Mode::Online),
            _ => None,
        }
    }
}

/// The body of `POST /api/games`: the setup fields of the game-script format, plus `mode`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    pub rules: String,
    pub time_control: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_flag: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arbiter_calls_illegal: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variation: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub director: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simultaneous_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
}

/// A create-game body that cannot start a game: the field and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {message}")]
pub struct SetupError {
    pub field: String,
    pub message: String,
}

impl CreateGame {
    /// Parse a JSON body, naming the field that is wrong.
    pub fn from_json(body: &[u8]) -> Result<CreateGame, SetupError> {
        if body.len() > MAX_BODY_BYTES {
            return Err(SetupError {
                field: "(body)".into(),
                message: format!(
                    "{} bytes, more than the {MAX_BODY_BYTES} allowed",
                    body.len()
                ),
            });
        }
        serde_json::from_slice(body).map_err(|e| SetupError {
            field: serde_field(&e.to_string()),
            message: e.to_string(),
        })
    }

    /// The mode, `otb` when absent.
    pub fn mode(&self) -> Mode {
        self.mode.unwrap_or_default()
    }

    /// The game-script setup line this body stands for (online mode forces
    /// `auto_flag: true`), validated by the game-script parser, and the setup.
    pub fn setup_line(&self) -> Result<(String, GameSetup), SetupError> {
        if let Some(ms) = self.simultaneous_ms
            && ms > MAX_SIMULTANEOUS_MS
        {
            return Err(SetupError {
                field: "simultaneous_ms".into(),
                message: format!("{ms} ms, more than the {MAX_SIMULTANEOUS_MS} ms allowed"),
            });
        }
        for (field, name) in [("white", &self.white), ("black", &self.black)] {
            if let Some(name) = name {
                check_name(field, name)?;
            }
        }
        let mut copy = self.clone();
        copy.mode = None;
        if self.mode() == Mode::Online {
            if copy.auto_flag == Some(false) {
                return Err(SetupError {
                    field: "auto_flag".into(),
                    message: "online games always flag automatically".into(),
                });
            }
            copy.auto_flag = Some(true);
        }
        let line = serde_json::to_string(&copy).map_err(|e| SetupError {
            field: "(body)".into(),
            message: e.to_string(),
        })?;
        let parsed = script::parse(&line).map_err(|e| SetupError {
            field: e.field,
            message: e.message,
        })?;
        Ok((line, parsed.setup))
    }
}

/// The first field named in a serde error message (`unknown field `x``, `missing field
/// `y``), or `(json)`.
fn serde_field(message: &str) -> String {
    message
        .split('`')
        .nth(1)
        .map(str::to_string)
        .unwrap_or_else(|| "(json)".into())
}

/// The three secret tokens of a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub white: String,
    pub black: String,
    pub director: String,
}

/// The page paths the web UI serves for each role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Urls {
    pub white: String,
    pub black: String,
    pub director: String,
    pub spectator: String,
}

impl Urls {
    pub fn of(id: &str, tokens: &Tokens) -> Urls {
        Urls {
            white: format!("/play/{id}?token={}", tokens.white),
            black: format!("/play/{id}?token={}", tokens.black),
            director: format!("/direct/{id}?token={}", tokens.director),
            spectator: format!("/watch/{id}"),
        }
    }
}

/// The answer to `POST /api/games` (status 201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    pub id: String,
    pub tokens: Tokens,
    pub urls: Urls,
}

/// A role on a game: what a token (or its absence) acts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    White,
    Black,
    Director,
    Spectator,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::White => "white",
            Role::Black => "black",
            Role::Director => "director",
            Role::Spectator => "spectator",
        }
    }

    pub fn party(self) -> Option<script::Party> {
        match self {
            Role::White => Some(script::Party::White),
            Role::Black => Some(script::Party::Black),
            Role::Director => Some(script::Party::Director),
            Role::Spectator => None,
        }
    }
}

/// Clock readings of the state object and event messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    pub white_ms: i64,
    pub black_ms: i64,
    /// `"white"`, `"black"` or null.
    pub running: Option<ColorName>,
}

/// A colour on the wire: `"white"` or `"black"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ColorName {
    White,
    Black,
}

impl From<Color> for ColorName {
    fn from(c: Color) -> ColorName {
        c.fold_wb(ColorName::White, ColorName::Black)
    }
}

impl From<ColorName> for Color {
    fn from(c: ColorName) -> Color {
        match c {
            ColorName::White => Color::White,
            ColorName::Black => Color::Black,
        }
    }
}

/// A claim waiting for the director, with the assistant's recommendation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingClaim {
    pub claimant: ColorName,
    pub claim: String,
    pub recommendation: Recommendation,
}

/// A player's call for the director, pending until the director acts
/// (`call_director`, docs/rules.md §5.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Called {
    pub by: ColorName,
    /// The game's `at` when the call stopped the clock.
    pub at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The director's assistant's advice on a pending claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recommendation {
    pub grant: bool,
    /// The rule the recommendation rests on (a claimable-position pattern's own rule,
    /// else the claim's).
    pub rule: String,
    pub reasons: Vec<String>,
}

/// A move on the board not yet completed by a press.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardMove {
    pub uci: String,
    pub by: ColorName,
}

/// One completed move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveView {
    pub uci: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub san: Option<String>,
    pub by: ColorName,
    pub at: u64,
}

impl From<&MoveEntry> for MoveView {
    fn from(m: &MoveEntry) -> MoveView {
        MoveView {
            uci: m.uci.clone(),
            san: m.san.clone(),
            by: m.by.into(),
            at: m.at,
        }
    }
}

/// The claims each player may make now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Claims {
    pub white: Vec<String>,
    pub black: Vec<String>,
}

/// The state object: `GET /api/games/{id}` and the WebSocket `state` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub id: String,
    pub setup: Value,
    pub mode: Mode,
    pub result: String,
    pub reason: Option<String>,
    pub rule: Option<String>,
    pub clock: ClockState,
    pub fen: String,
    pub rulings: Vec<Value>,
    pub moves: Vec<MoveView>,
    pub to_move: ColorName,
    pub running: Option<ColorName>,
    pub pending: Option<PendingClaim>,
    /// A player's call for the director, while it waits for the director.
    #[serde(default)]
    pub called: Option<Called>,
    pub flags: Vec<ColorName>,
    pub board_move: Option<BoardMove>,
    pub claims: Claims,
    pub draw_offer: Option<ColorName>,
    /// The number of stored events.
    pub n: u64,
    /// The game's `at` clock now, in milliseconds.
    pub server_now: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dests: Option<BTreeMap<String, Vec<String>>>,
}

/// What the server knows about a game beyond the arbiter.
#[derive(Debug, Clone, Copy)]
pub struct StateContext<'a> {
    pub id: &'a str,
    pub setup: &'a Value,
    pub mode: Mode,
    /// Stored events.
    pub n: u64,
    /// The game's `at` clock now.
    pub now: u64,
    /// False before the first event: no clock runs yet.
    pub started: bool,
}

impl State {
    /// The state of `game` (its moves as `moves` lists them).
    pub fn of(game: &Game, moves: &[MoveEntry], cx: StateContext<'_>) -> State {
        let Snapshot {
            clock,
            result,
            update: u,
        } = Snapshot::of(game, moves, 0, cx);
        State {
            id: cx.id.to_string(),
            setup: cx.setup.clone(),
            mode: cx.mode,
            result,
            reason: u.reason,
            rule: u.rule,
            clock,
            fen: u.fen,
            rulings: game
                .rulings()
                .iter()
                .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
                .collect(),
            moves: u.moves,
            to_move: u.to_move,
            running: u.running,
            pending: u.pending,
            called: u.called,
            flags: u.flags,
            board_move: u.board_move,
            claims: u.claims,
            draw_offer: u.draw_offer,
            n: cx.n,
            server_now: u.server_now,
            dests: u.dests,
        }
    }
}

/// What an `event` message carries besides the event and its rulings: the clock, the
/// result and the [`StateUpdate`]. Costs what changed, not the game's length.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub clock: ClockState,
    pub result: String,
    pub update: StateUpdate,
}

impl Snapshot {
    /// The state of `game` as an update from a state whose first `moves_from` moves
    /// are current.
    pub fn of(
        game: &Game,
        moves: &[MoveEntry],
        moves_from: usize,
        cx: StateContext<'_>,
    ) -> Snapshot {
        let (result, reason, rule) = game.verdict();
        let at = if game.is_over() {
            game.now()
        } else {
            cx.now.max(game.now())
        };
        let running = if cx.started {
            game.clock().running().map(ColorName::from)
        } else {
            None
        };
        let clock_at = if cx.started { at } else { 0 };
        let claims_of = |c: Color| {
            if cx.started || c == Color::White {
                game.claims_for(c, clock_at)
                    .into_iter()
                    .map(|k| k.name().to_string())
                    .collect()
            } else {
                Vec::new()
            }
        };
        let moves_from = moves_from.min(moves.len());
        Snapshot {
            clock: ClockState {
                white_ms: game.clock().remaining(clock_at, Color::White),
                black_ms: game.clock().remaining(clock_at, Color::Black),
                running,
            },
            result: result.as_str().to_string(),
            update: StateUpdate {
                reason: reason.map(|r| r.as_str().to_string()),
                rule,
                fen: game.board_position().fen(),
                moves_from,
                moves: moves[moves_from..].iter().map(MoveView::from).collect(),
                to_move: game.position().turn().into(),
                running,
                pending: game.pending_claim().map(|(c, k, r)| PendingClaim {
                    claimant: c.into(),
                    claim: k.name().to_string(),
                    recommendation: Recommendation {
                        grant: r.grant,
                        rule: flagfall_game::arbiter::recommendation_rule(
                            &game.ruleset().draws,
                            match k {
                                ClaimKind::Ilc => DrawClaim::Ilc,
                                _ => DrawClaim::DrawPosition,
                            },
                            r.ground,
                        )
                        .to_string(),
                        reasons: r.reasons.clone(),
                    },
                }),
                called: game.called().map(|c| Called {
                    by: c.by.into(),
                    at: c.at,
                    reason: c.reason.clone(),
                }),
                flags: if cx.started {
                    game.flags_down(clock_at)
                        .into_iter()
                        .map(ColorName::from)
                        .collect()
                } else {
                    Vec::new()
                },
                board_move: game.board_move().map(|(c, mv)| BoardMove {
                    uci: mv.to_string(),
                    by: c.into(),
                }),
                claims: Claims {
                    white: claims_of(Color::White),
                    black: claims_of(Color::Black),
                },
                draw_offer: game.draw_offer().map(ColorName::from),
                server_now: cx.now,
                dests: (cx.mode == Mode::Online).then(|| game.dests()),
            },
        }
    }
}

/// What an `event` message changes in the state object (docs/protocol.md): the fields
/// that may change with any event, whole, and the moves as a tail. A client applies it
/// to the state it holds (after event `n - 1`): every field here replaces its own,
/// `moves` replaces the list from index `moves_from` on, the message's `rulings` are
/// appended, and `n` becomes the event's. Applying the same update twice changes
/// nothing more, so a batch of events decided together may all carry the state after
/// the batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    pub draw_offer: Option<ColorName>,
    pub server_now: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dests: Option<BTreeMap<String, Vec<String>>>,
}

impl StateUpdate {
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
        state.draw_offer = self.draw_offer;
        state.server_now = self.server_now;
        state.dests = self.dests.clone();
        if n > state.n {
            state.rulings.extend(rulings.iter().cloned());
            state.n = n;
        }
    }
}

/// A message from the server. Every message has a `"type"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// On connect: the full state.
    State(Box<State>),
    /// After every stored event, to everyone on the game.
    Event {
        n: u64,
        event: Value,
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
    /// A flag fell on the server's clock.
    Flag { color: ColorName },
    /// The answer to `{"ping": N}`: `ping` is the client's N, `server_now` the game's clock.
    Pong { ping: u64, server_now: u64 },
}

impl ServerMsg {
    /// The message as one JSON text frame.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!("{{\"type\":\"error\",\"message\":\"cannot encode a message: {e}\"}}")
        })
    }
}

/// A client frame that is not valid: the field at fault and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {message}")]
pub struct FrameError {
    /// The client's `id`, when it could be read, to echo.
    pub id: Option<String>,
    pub field: String,
    pub message: String,
}

/// A valid client frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientFrame {
    /// `{"ping": N}`: answered with a pong.
    Ping(u64),
    /// One game-script event without `at` and `by`.
    Action {
        id: Option<String>,
        /// The client's own estimate of network delay for this action.
        lag_ms: Option<u64>,
        action: Action,
    },
}

impl ClientFrame {
    /// The event this action makes when the server stamps it.
    pub fn event(action: Action, at: u64, by: script::Party, lag_ms: u64) -> Event {
        Event {
            line: 0,
            at,
            by: Some(by),
            lag_ms: if action.presses() { lag_ms } else { 0 },
            action,
        }
    }
}

fn frame_err(id: &Option<String>, field: &str, message: impl Into<String>) -> FrameError {
    FrameError {
        id: id.clone(),
        field: field.to_string(),
        message: message.into(),
    }
}

/// Parse one client text frame (docs/protocol.md): at most [`MAX_FRAME_BYTES`], a JSON
/// object that is either `{"ping": N}` or a game-script event without `at` and `by`,
/// with optional `id` (a string of at most [`MAX_ID_BYTES`]) and `lag_ms`. Never panics.
pub fn parse_frame(text: &str) -> Result<ClientFrame, FrameError> {
    let none = None;
    if text.len() > MAX_FRAME_BYTES {
        return Err(frame_err(
            &none,
            "(frame)",
            format!(
                "{} bytes, more than the {MAX_FRAME_BYTES} allowed",
                text.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| frame_err(&none, "(json)", format!("not valid JSON: {e}")))?;
    let Value::Object(mut map) = value else {
        return Err(frame_err(&none, "(json)", "expected a JSON object"));
    };
    let id = match map.remove("id") {
        None => None,
        Some(Value::String(s)) if s.len() <= MAX_ID_BYTES => Some(s),
        Some(Value::String(_)) => {
            return Err(frame_err(
                &none,
                "id",
                format!("longer than {MAX_ID_BYTES} bytes"),
            ));
        }
        Some(_) => return Err(frame_err(&none, "id", "expected a string")),
    };
    if let Some(ping) = map.remove("ping") {
        let Some(n) = ping.as_u64() else {
            return Err(frame_err(&id, "ping", "expected a whole number"));
        };
        if let Some(k) = map.keys().next() {
            return Err(frame_err(&id, k, "a ping frame has no other field"));
        }
        return Ok(ClientFrame::Ping(n));
    }
    for stamped in ["at", "by"] {
        if map.contains_key(stamped) {
            return Err(frame_err(
                &id,
                stamped,
                "the server stamps `at` and `by` itself: leave the field out",
            ));
        }
    }
    let lag_ms = match map.remove("lag_ms") {
        None => None,
        Some(v) => match v.as_u64() {
            Some(n) if n <= MAX_LAG_MS => Some(n),
            _ => {
                return Err(frame_err(
                    &id,
                    "lag_ms",
                    format!("expected whole milliseconds from 0 to {MAX_LAG_MS}"),
                ));
            }
        },
    };
    map.insert("at".into(), Value::from(0u64));
    // The parser needs a party; the server substitutes the token's role.
    map.insert("by".into(), Value::from("white"));
    let line = Value::Object(map).to_string();
    let event = script::parse_event(1, &line).map_err(|e| frame_err(&id, &e.field, e.message))?;
    if lag_ms.is_some() && !event.action.presses() {
        return Err(frame_err(
            &id,
            "lag_ms",
            "lag compensation goes only with a press",
        ));
    }
    if matches!(event.action, Action::End) {
        return Err(frame_err(
            &id,
            "end",
            "`end` closes a record; a live game ends by its own events",
        ));
    }
    Ok(ClientFrame::Action {
        id,
        lag_ms,
        action: event.action,
    })
}

/// An event as stored: its game-script JSON object.
pub fn stored_json(event: &Event) -> Map<String, Value> {
    match event.to_json() {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_with_press_and_id_parses() {
        let f = parse_frame(r#"{"move":"e2e4","press":true,"id":"a1","lag_ms":20}"#).unwrap();
        match f {
            ClientFrame::Action { id, lag_ms, action } => {
                assert_eq!(id.as_deref(), Some("a1"));
                assert_eq!(lag_ms, Some(20));
                assert!(action.presses());
            }
            other => panic!("expected an action, got {other:?}"),
        }
    }

    #[test]
    fn ping_parses_and_rejects_extra_fields() {
        assert_eq!(
            parse_frame(r#"{"ping":17}"#).unwrap(),
            ClientFrame::Ping(17)
        );
        let e = parse_frame(r#"{"ping":17,"move":"e2e4"}"#).unwrap_err();
        assert_eq!(e.field, "move");
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse_frame(r#"{"move":42,"id":"x"}"#).unwrap_err();
        assert_eq!(e.field, "move");
        assert_eq!(e.id.as_deref(), Some("x"));
        assert_eq!(
            parse_frame(r#"{"claim":"flagg"}"#).unwrap_err().field,
            "claim"
        );
        assert_eq!(parse_frame(r#"{"bogus":true}"#).unwrap_err().field, "bogus");
        assert_eq!(
            parse_frame(r#"{"at":5,"press":true}"#).unwrap_err().field,
            "at"
        );
        assert_eq!(
            parse_frame(r#"{"by":"black","press":true}"#)
                .unwrap_err()
                .field,
            "by"
        );
        assert_eq!(parse_frame("[1]").unwrap_err().field, "(json)");
        assert_eq!(parse_frame("{").unwrap_err().field, "(json)");
        assert_eq!(parse_frame(r#"{"end":true}"#).unwrap_err().field, "end");
        assert_eq!(
            parse_frame(r#"{"press":true,"lag_ms":-1}"#)
                .unwrap_err()
                .field,
            "lag_ms"
        );
        assert_eq!(
            parse_frame(r#"{"offer":"draw","lag_ms":5}"#)
                .unwrap_err()
                .field,
            "lag_ms"
        );
    }

    #[test]
    fn a_call_for_the_director_parses_and_shows_in_the_state() {
        let f = parse_frame(r#"{"call_director":true,"reason":"he is talking","id":"c"}"#).unwrap();
        let ClientFrame::Action { action, .. } = f else {
            panic!("expected an action");
        };
        assert_eq!(
            action,
            Action::CallDirector {
                reason: Some("he is talking".into())
            }
        );
        let long = format!(r#"{{"call_director":true,"reason":"{}"}}"#, "x".repeat(201));
        assert_eq!(parse_frame(&long).unwrap_err().field, "reason");
        assert_eq!(
            parse_frame(r#"{"resign":true,"reason":"x"}"#)
                .unwrap_err()
                .field,
            "reason"
        );
        let c = CreateGame::from_json(br#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#).unwrap();
        let (line, setup) = c.setup_line().unwrap();
        let mut game = Game::new(setup);
        game.apply(
            &ClientFrame::event(action, 1500, script::Party::Black, 0),
            1,
        );
        let setup_v: Value = serde_json::from_str(&line).unwrap();
        let s = State::of(
            &game,
            &[],
            StateContext {
                id: "g",
                setup: &setup_v,
                mode: Mode::Otb,
                n: 1,
                now: 2000,
                started: true,
            },
        );
        let called = s.called.clone().expect("the call is pending");
        assert_eq!(called.by, ColorName::Black);
        assert_eq!(called.at, 1500);
        assert_eq!(s.running, None, "the clock is stopped");
        assert!(s.claims.white.is_empty() && s.claims.black.is_empty());
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["called"]["reason"], "he is talking");
    }

    #[test]
    fn oversized_frames_are_refused_before_parsing() {
        let big = format!(
            r#"{{"move":"e2e4","id":"{}"}}"#,
            "x".repeat(MAX_FRAME_BYTES)
        );
        assert_eq!(parse_frame(&big).unwrap_err().field, "(frame)");
        let long_id = format!(
            r#"{{"press":true,"id":"{}"}}"#,
            "x".repeat(MAX_ID_BYTES + 1)
        );
        assert_eq!(parse_frame(&long_id).unwrap_err().field, "id");
    }

    #[test]
    fn create_body_validates_through_the_script_parser() {
        let body = br#"{"rules":"uscf-2020","time_control":"G/5;d0","mode":"online"}"#;
        let c = CreateGame::from_json(body).unwrap();
        let (line, setup) = c.setup_line().unwrap();
        assert!(setup.auto_flag, "online forces automatic flagging");
        assert!(!line.contains("mode"));
        let bad = CreateGame::from_json(br#"{"rules":"nope","time_control":"3+2"}"#)
            .unwrap()
            .setup_line()
            .unwrap_err();
        assert_eq!(bad.field, "rules");
        let unknown = CreateGame::from_json(br#"{"rules":"uscf-2020","time_control":"3+2","x":1}"#)
            .unwrap_err();
        assert_eq!(unknown.field, "x");
        let missing = CreateGame::from_json(br#"{"rules":"uscf-2020"}"#).unwrap_err();
        assert_eq!(missing.field, "time_control");
        let wrong =
            CreateGame::from_json(br#"{"rules":"uscf-2020","time_control":"3+2","mode":"blitz"}"#)
                .unwrap_err();
        assert!(wrong.message.contains("blitz"), "{wrong}");
    }

    #[test]
    fn state_of_a_fresh_game_has_no_running_clock_and_online_dests() {
        let c =
            CreateGame::from_json(br#"{"rules":"fide-b3","time_control":"3+2","mode":"online"}"#)
                .unwrap();
        let (line, setup) = c.setup_line().unwrap();
        let game = Game::new(setup);
        let setup_v: Value = serde_json::from_str(&line).unwrap();
        let s = State::of(
            &game,
            &[],
            StateContext {
                id: "g",
                setup: &setup_v,
                mode: Mode::Online,
                n: 0,
                now: 0,
                started: false,
            },
        );
        assert_eq!(s.running, None);
        assert_eq!(s.result, "*");
        let dests = s.dests.clone().expect("online mode lists destinations");
        assert_eq!(dests["e2"], vec!["e3", "e4"]);
        assert_eq!(dests.len(), 10);
        let text = ServerMsg::State(Box::new(s.clone())).to_text();
        let back: ServerMsg = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ServerMsg::State(Box::new(s)));
    }

    /// Issue 9: the state after each event equals the state before it with the event
    /// message's update applied, event after event, including a ruling that takes moves
    /// back (FIDE restores the position before an illegal move).
    #[test]
    fn updates_rebuild_the_state_event_by_event() {
        let c = CreateGame::from_json(br#"{"rules":"fide-b3","time_control":"3+2"}"#).unwrap();
        let (line, setup) = c.setup_line().unwrap();
        let setup_v: Value = serde_json::from_str(&line).unwrap();
        let mut game = Game::new(setup);
        let mut moves = flagfall_game::MoveList::default();
        moves.update(&game);
        let cx = |n: u64, now: u64| StateContext {
            id: "g",
            setup: &setup_v,
            mode: Mode::Otb,
            n,
            now,
            started: true,
        };
        let mut view = State::of(&game, moves.entries(), cx(0, 0));
        let script = [
            r#"{"at":10,"by":"white","move":"e2e4","press":true}"#,
            r#"{"at":20,"by":"black","move":"e7e5","press":true}"#,
            r#"{"at":30,"by":"white","move":"e1e3","press":true}"#,
            r#"{"at":40,"by":"black","claim":"illegal"}"#,
            r#"{"at":50,"by":"white","move":"e1e2","press":true}"#,
            r#"{"at":60,"by":"black","move":"b8b6"}"#,
            r#"{"at":70,"by":"black","retract":true}"#,
            r#"{"at":80,"by":"black","move":"b8c6","press":true}"#,
        ];
        let mut shrank = false;
        for (i, text) in script.iter().enumerate() {
            let n = i as u64 + 1;
            let full = format!("{line}\n{text}\n");
            let event = flagfall_game::script::parse(&full)
                .unwrap()
                .events
                .remove(0);
            let rulings_before = game.rulings().len();
            game.apply(&event, n as usize);
            let from = moves.update(&game);
            shrank |= from < view.moves.len();
            let snap = Snapshot::of(&game, moves.entries(), from, cx(n, event.at));
            let rulings: Vec<Value> = game.rulings()[rulings_before..]
                .iter()
                .map(|r| serde_json::to_value(r).unwrap())
                .collect();
            snap.update
                .apply(&mut view, n, snap.clock, &snap.result, &rulings);
            let want = State::of(&game, moves.entries(), cx(n, event.at));
            assert_eq!(view, want, "after event {n}: {text}");
        }
        assert!(shrank, "the illegal-move claim took a move back");
        assert_eq!(view.moves.len(), 4);
    }
}

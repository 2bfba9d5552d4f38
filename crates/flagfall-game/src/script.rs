//! The game script (docs/game-script.md): a setup line and one JSON event per line.
//!
//! Parsing is strict: an unknown field, a wrong type or an impossible value is a
//! [`ScriptError`] naming the 1-based line and the field. Whether an event is *allowed*
//! at that point of the game is the arbiter's question, not the parser's.

use std::fmt;
use std::sync::Arc;

use flagfall_core::board::{PhysicalMove, PhysicalPosition};
use flagfall_core::clock::MAX_TIME_CHANGE_MS;
use flagfall_core::colour;
use flagfall_core::ruleset::{OffenceKind, Ruleset, TimeControlJudgement};
use flagfall_core::timecontrol::TimeControl;
use serde::Serialize;
use serde_json::{Map, Value};
use shakmaty::Color;

use crate::outcome::{GameResult, Reason};

/// A script that could not be read: the line (1-based), the field and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: field `{field}`: {message}")]
pub struct ScriptError {
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl ScriptError {
    fn new(line: usize, field: &str, message: impl Into<String>) -> Self {
        ScriptError {
            line,
            field: field.to_string(),
            message: message.into(),
        }
    }
}

/// The setup line, validated against its ruleset.
#[derive(Debug, Clone)]
pub struct GameSetup {
    /// Shared: every game of one ruleset (with the same variations) holds the same copy
    /// ([`shared_ruleset`]), not 3 KiB of its own (issue 34).
    pub ruleset: Arc<Ruleset>,
    pub time_control: TimeControl,
    /// Whether the ruleset counts this control for its blitz rating (shown, not enforced).
    pub ratable: bool,
    pub start: PhysicalPosition,
    pub fen: Option<String>,
    pub auto_flag: bool,
    pub arbiter_calls_illegal: bool,
    pub white: Option<String>,
    pub black: Option<String>,
    pub simultaneous_ms: u64,
    pub variations: Vec<String>,
    /// False when no director is present (claims needing one follow the recommendation).
    pub director: bool,
}

/// Who sent an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    White,
    Black,
    Director,
}

impl Party {
    pub fn color(self) -> Option<Color> {
        match self {
            Party::White => Some(Color::White),
            Party::Black => Some(Color::Black),
            Party::Director => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Party::White => "white",
            Party::Black => "black",
            Party::Director => "director",
        }
    }
}

/// The claims of docs/game-script.md §3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    Flag,
    Illegal,
    BothFlags,
    Threefold,
    Fifty,
    Ilc,
    DrawPosition,
}

impl ClaimKind {
    fn parse(s: &str) -> Option<ClaimKind> {
        Some(match s {
            "flag" => ClaimKind::Flag,
            "illegal" => ClaimKind::Illegal,
            "both_flags" => ClaimKind::BothFlags,
            "threefold" => ClaimKind::Threefold,
            "fifty" => ClaimKind::Fifty,
            "ilc" => ClaimKind::Ilc,
            "draw_position" => ClaimKind::DrawPosition,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ClaimKind::Flag => "flag",
            ClaimKind::Illegal => "illegal",
            ClaimKind::BothFlags => "both_flags",
            ClaimKind::Threefold => "threefold",
            ClaimKind::Fifty => "fifty",
            ClaimKind::Ilc => "ilc",
            ClaimKind::DrawPosition => "draw_position",
        }
    }
}

/// Why the director changes a player's time (`add_time.kind`, docs/game-script.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeChangeKind {
    /// The director's own decision, at any moment of the game (time for a player who was
    /// disturbed, an adjustment after a dispute): `director.adjust_time`. The default.
    #[default]
    Decision,
    /// A correction of the clock's initial setting, found late: allowed while the setting
    /// may still be corrected (`time.setup_moves`, `time.reduce_excess_after_setup`).
    Correction,
}

impl TimeChangeKind {
    pub fn name(self) -> &'static str {
        match self {
            TimeChangeKind::Decision => "decision",
            TimeChangeKind::Correction => "correction",
        }
    }

    fn parse(s: &str) -> Option<TimeChangeKind> {
        match s {
            "decision" => Some(TimeChangeKind::Decision),
            "correction" => Some(TimeChangeKind::Correction),
            _ => None,
        }
    }
}

/// What a director declares with `result`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    Result(GameResult, Reason),
    Cancel,
}

/// One action of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Move {
        mv: PhysicalMove,
        press: bool,
    },
    Press,
    Retract,
    Claim {
        claim: ClaimKind,
        intended: Option<PhysicalMove>,
    },
    Offer,
    Accept,
    Decline,
    Resign,
    /// A player stops the clock and calls the director, optionally saying why.
    CallDirector {
        reason: Option<String>,
    },
    StopClock,
    StartClock,
    AddTime {
        color: Color,
        ms: i64,
        /// A decision of the director (the default) or a correction of the setting.
        kind: TimeChangeKind,
    },
    Offence {
        player: Color,
        kind: OffenceKind,
    },
    Ruling {
        grant: bool,
    },
    Result(Declared),
    End,
}

impl Action {
    /// True for a press, alone or with a move.
    pub fn presses(&self) -> bool {
        matches!(self, Action::Press | Action::Move { press: true, .. })
    }

    /// The director-only actions.
    pub fn is_director_action(&self) -> bool {
        matches!(
            self,
            Action::StopClock
                | Action::StartClock
                | Action::AddTime { .. }
                | Action::Offence { .. }
                | Action::Ruling { .. }
                | Action::Result(_)
        )
    }
}

/// One event line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The 1-based line of the script it came from.
    pub line: usize,
    /// Milliseconds since the game's clock was started.
    pub at: u64,
    /// Who sent it (`None` only for `end`).
    pub by: Option<Party>,
    pub action: Action,
    /// Lag compensation granted to a pressing player, in milliseconds (`lag_ms`, 0 when
    /// absent): the press is credited as if made up to this much earlier (docs/arbiter.md).
    pub lag_ms: u64,
}

/// The most lag compensation one press may carry (`lag_ms`).
pub const MAX_LAG_MS: u64 = 10_000;

/// The longest `reason` a `call_director` event may give, in characters.
pub const MAX_CALL_REASON_CHARS: usize = 200;

/// A parsed game script.
#[derive(Debug, Clone)]
pub struct Script {
    pub setup: GameSetup,
    pub events: Vec<Event>,
}

impl fmt::Display for Party {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parse a script whose ruleset is one of the five built in.
pub fn parse(text: &str) -> Result<Script, ScriptError> {
    parse_with(text, &[])
}

/// Parse a script; `extra` are user rulesets (loaded from files) the setup may name.
pub fn parse_with(text: &str, extra: &[Ruleset]) -> Result<Script, ScriptError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let (setup_line, setup_text) = lines.next().ok_or_else(|| {
        ScriptError::new(
            1,
            "rules",
            "the script is empty: the first line must be the setup object",
        )
    })?;
    let setup = parse_setup(setup_line, setup_text, extra)?;
    let mut events = Vec::new();
    let mut last_at = 0u64;
    for (line, text) in lines {
        let event = parse_event(line, text)?;
        if event.at < last_at {
            return Err(ScriptError::new(
                line,
                "at",
                format!(
                    "{} is earlier than the previous event's {last_at}: times never go backwards",
                    event.at
                ),
            ));
        }
        last_at = event.at;
        events.push(event);
    }
    Ok(Script { setup, events })
}

fn object(line: usize, text: &str) -> Result<Map<String, Value>, ScriptError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| ScriptError::new(line, "(json)", format!("not valid JSON: {e}")))?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(ScriptError::new(
            line,
            "(json)",
            format!("expected a JSON object, found {}", kind_of(&other)),
        )),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn get_str<'a>(
    map: &'a Map<String, Value>,
    line: usize,
    field: &str,
) -> Result<Option<&'a str>, ScriptError> {
    match map.get(field) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(ScriptError::new(
            line,
            field,
            format!("expected a string, found {}", kind_of(other)),
        )),
    }
}

fn get_bool(
    map: &Map<String, Value>,
    line: usize,
    field: &str,
) -> Result<Option<bool>, ScriptError> {
    match map.get(field) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(ScriptError::new(
            line,
            field,
            format!("expected true or false, found {}", kind_of(other)),
        )),
    }
}

fn get_u64(map: &Map<String, Value>, line: usize, field: &str) -> Result<Option<u64>, ScriptError> {
    match map.get(field) {
        None => Ok(None),
        Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(|| {
            ScriptError::new(
                line,
                field,
                format!("expected a whole number of milliseconds >= 0, found {n}"),
            )
        }),
        Some(other) => Err(ScriptError::new(
            line,
            field,
            format!("expected a number, found {}", kind_of(other)),
        )),
    }
}

fn check_fields(
    map: &Map<String, Value>,
    line: usize,
    allowed: &[&str],
) -> Result<(), ScriptError> {
    for key in map.keys() {
        if !allowed.contains(&key.as_str()) {
            return Err(ScriptError::new(
                line,
                key,
                format!("unknown field (allowed here: {})", allowed.join(", ")),
            ));
        }
    }
    Ok(())
}

const SETUP_FIELDS: [&str; 10] = [
    "rules",
    "time_control",
    "fen",
    "auto_flag",
    "arbiter_calls_illegal",
    "white",
    "black",
    "simultaneous_ms",
    "variation",
    "director",
];

fn parse_setup(line: usize, text: &str, extra: &[Ruleset]) -> Result<GameSetup, ScriptError> {
    let map = object(line, text)?;
    check_fields(&map, line, &SETUP_FIELDS)?;
    let rules = get_str(&map, line, "rules")?.ok_or_else(|| {
        ScriptError::new(
            line,
            "rules",
            "missing: name the ruleset, e.g. \"uscf-2020\"",
        )
    })?;
    let mut ruleset = match extra.iter().find(|r| r.id == rules) {
        Some(r) => r.clone(),
        None => {
            Ruleset::builtin(rules).map_err(|e| ScriptError::new(line, "rules", e.to_string()))?
        }
    };
    let variations: Vec<String> = match map.get("variation") {
        None => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(ScriptError::new(
                    line,
                    "variation",
                    format!("expected variation names, found {}", kind_of(other)),
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(ScriptError::new(
                line,
                "variation",
                format!(
                    "expected a string or a list of strings, found {}",
                    kind_of(other)
                ),
            ));
        }
    };
    for v in &variations {
        ruleset = ruleset
            .with_variation(v)
            .map_err(|e| ScriptError::new(line, "variation", e.to_string()))?;
    }
    let tc_text = get_str(&map, line, "time_control")?
        .ok_or_else(|| ScriptError::new(line, "time_control", "missing: e.g. \"G/5;d0\""))?;
    let time_control: TimeControl =
        tc_text
            .parse()
            .map_err(|e: flagfall_core::timecontrol::TimeControlError| {
                ScriptError::new(line, "time_control", e.to_string())
            })?;
    let ratable = match ruleset.judge_time_control(&time_control) {
        TimeControlJudgement::Accepted { ratable, .. } => ratable,
        TimeControlJudgement::Rejected { rule, why } => {
            return Err(ScriptError::new(
                line,
                "time_control",
                format!("{why} ({rule})"),
            ));
        }
    };
    let fen = get_str(&map, line, "fen")?.map(str::to_string);
    let start = match &fen {
        Some(f) => PhysicalPosition::from_fen(f)
            .map_err(|e| ScriptError::new(line, "fen", e.to_string()))?,
        None => PhysicalPosition::new(),
    };
    let auto_flag = get_bool(&map, line, "auto_flag")?.unwrap_or(ruleset.flags.auto_flag_default);
    let arbiter_calls_illegal = get_bool(&map, line, "arbiter_calls_illegal")?.unwrap_or(false);
    if arbiter_calls_illegal && !ruleset.illegal.arbiter_may_call {
        return Err(ScriptError::new(
            line,
            "arbiter_calls_illegal",
            format!(
                "{} leaves illegal moves to the players ({}); only rulesets like fide-b3 (A.5.2) let the arbiter intervene",
                ruleset.id, ruleset.illegal.window_rule
            ),
        ));
    }
    let simultaneous_ms = get_u64(&map, line, "simultaneous_ms")?.unwrap_or(0);
    Ok(GameSetup {
        time_control,
        ratable,
        start,
        fen,
        auto_flag,
        arbiter_calls_illegal,
        white: get_str(&map, line, "white")?.map(str::to_string),
        black: get_str(&map, line, "black")?.map(str::to_string),
        simultaneous_ms,
        variations,
        director: get_bool(&map, line, "director")?.unwrap_or(true),
        ruleset: shared_ruleset(ruleset),
    })
}

/// The rulesets games were set up with, each held once: at most [`SHARED_RULESETS`]
/// (the five built-in ones and their variations are a handful; a stranger's many
/// custom rulesets are not kept beyond that).
static SHARED: std::sync::Mutex<Vec<Arc<Ruleset>>> = std::sync::Mutex::new(Vec::new());

/// How many distinct rulesets [`shared_ruleset`] keeps.
const SHARED_RULESETS: usize = 64;

/// `ruleset` as an `Arc` that every equal ruleset set up before shares.
pub fn shared_ruleset(ruleset: Ruleset) -> Arc<Ruleset> {
    // A panic while holding the lock leaves the list as it was (one push at most).
    let mut kept = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(r) = kept.iter().find(|r| ***r == ruleset) {
        return r.clone();
    }
    let r = Arc::new(ruleset);
    if kept.len() < SHARED_RULESETS {
        kept.push(r.clone());
    }
    r
}

fn parse_move(line: usize, field: &str, v: &Value) -> Result<PhysicalMove, ScriptError> {
    match v {
        Value::String(s) => s
            .parse::<PhysicalMove>()
            .map_err(|e| ScriptError::new(line, field, e.to_string())),
        other => Err(ScriptError::new(
            line,
            field,
            format!(
                "expected a move in UCI squares like \"e2e4\", found {}",
                kind_of(other)
            ),
        )),
    }
}

fn parse_color(line: usize, field: &str, v: Option<&Value>) -> Result<Color, ScriptError> {
    match v {
        Some(Value::String(s)) => colour::parse(s).ok_or_else(|| {
            ScriptError::new(
                line,
                field,
                format!("expected \"white\" or \"black\", found {s:?}"),
            )
        }),
        Some(other) => Err(ScriptError::new(
            line,
            field,
            format!("expected \"white\" or \"black\", found {}", kind_of(other)),
        )),
        None => Err(ScriptError::new(
            line,
            field,
            "missing: \"white\" or \"black\"",
        )),
    }
}

fn require_true(map: &Map<String, Value>, line: usize, field: &str) -> Result<(), ScriptError> {
    match get_bool(map, line, field)? {
        Some(true) => Ok(()),
        _ => Err(ScriptError::new(
            line,
            field,
            "must be true (leave the field out otherwise)",
        )),
    }
}

fn require_str(
    map: &Map<String, Value>,
    line: usize,
    field: &str,
    expected: &str,
) -> Result<(), ScriptError> {
    match get_str(map, line, field)? {
        Some(s) if s == expected => Ok(()),
        Some(s) => Err(ScriptError::new(
            line,
            field,
            format!("expected \"{expected}\", found {s:?}"),
        )),
        None => Err(ScriptError::new(
            line,
            field,
            format!("expected \"{expected}\""),
        )),
    }
}

/// The action keys; exactly one per event (`press` may join `move`).
const ACTIONS: [&str; 16] = [
    "move",
    "press",
    "retract",
    "claim",
    "offer",
    "accept",
    "decline",
    "resign",
    "call_director",
    "stop_clock",
    "start_clock",
    "add_time",
    "offence",
    "ruling",
    "result",
    "end",
];

/// One event line, in its phases: the keys, the instant, which action, who acts, the
/// action's own fields, and the one combination checked across them (`press`).
/// `line` is its 1-based number, used in errors.
pub fn parse_event(line: usize, text: &str) -> Result<Event, ScriptError> {
    let map = object(line, text)?;
    check_event_keys(&map, line)?;
    let at = get_u64(&map, line, "at")?.ok_or_else(|| {
        ScriptError::new(
            line,
            "at",
            "missing: milliseconds since the clock was started",
        )
    })?;
    let action_key = action_key(&map, line)?;
    let by = parse_by(&map, line, action_key)?;
    let action = parse_action(&map, line, action_key)?;
    check_press(&map, line, &action)?;
    let lag_ms = get_u64(&map, line, "lag_ms")?.unwrap_or(0);
    if map.contains_key("lag_ms") && !action.presses() {
        return Err(ScriptError::new(
            line,
            "lag_ms",
            "lag compensation goes only with a press",
        ));
    }
    check_reason(&map, line, &action)?;
    if lag_ms > MAX_LAG_MS {
        return Err(ScriptError::new(
            line,
            "lag_ms",
            format!("{lag_ms} is more than the {MAX_LAG_MS} ms one press may be credited"),
        ));
    }
    Ok(Event {
        line,
        at,
        by,
        action,
        lag_ms,
    })
}

/// The action of an event object that has no `at`, `by` or `lag_ms` (a live client's
/// frame, which the server stamps): the same keys, action and checks as in
/// [`parse_event`], errors on line 1.
pub fn parse_unstamped_action(map: &Map<String, Value>) -> Result<Action, ScriptError> {
    let line = 1;
    check_event_keys(map, line)?;
    let action_key = action_key(map, line)?;
    let action = parse_action(map, line, action_key)?;
    check_press(map, line, &action)?;
    check_reason(map, line, &action)?;
    Ok(action)
}

/// `press` goes with a move or alone.
fn check_press(map: &Map<String, Value>, line: usize, action: &Action) -> Result<(), ScriptError> {
    if map.contains_key("press") && !matches!(action, Action::Move { .. } | Action::Press) {
        return Err(ScriptError::new(
            line,
            "press",
            "press goes with a move or alone",
        ));
    }
    Ok(())
}

/// `reason` goes only with `call_director`.
fn check_reason(map: &Map<String, Value>, line: usize, action: &Action) -> Result<(), ScriptError> {
    if map.contains_key("reason") && !matches!(action, Action::CallDirector { .. }) {
        return Err(ScriptError::new(
            line,
            "reason",
            "a reason goes only with call_director",
        ));
    }
    Ok(())
}

/// Every key of an event is `at`, `by` or an action.
fn check_event_keys(map: &Map<String, Value>, line: usize) -> Result<(), ScriptError> {
    match map.keys().find(|key| {
        !["at", "by", "lag_ms", "reason"].contains(&key.as_str())
            && !ACTIONS.contains(&key.as_str())
    }) {
        Some(key) => Err(ScriptError::new(
            line,
            key,
            "unknown field (an event has `at`, `by`, one action: move, press, retract, claim, offer, \
             accept, decline, resign, call_director, stop_clock, start_clock, add_time, offence, ruling, \
             result, end; with a press optionally `lag_ms`, with call_director optionally `reason`)",
        )),
        None => Ok(()),
    }
}

/// The one action of the event (a move may carry `press`; a claim may carry `move`).
fn action_key(map: &Map<String, Value>, line: usize) -> Result<&'static str, ScriptError> {
    let present: Vec<&'static str> = ACTIONS
        .iter()
        .copied()
        .filter(|k| map.contains_key(*k))
        .collect();
    match present.as_slice() {
        [one] => Ok(one),
        ["move", "press"] => Ok("move"),
        ["move", "claim"] => Ok("claim"),
        [] => Err(ScriptError::new(
            line,
            "(action)",
            "no action: add one of move, press, claim, offer, ...",
        )),
        many => Err(ScriptError::new(
            line,
            many[1],
            format!("one action per event, found {}", many.join(" and ")),
        )),
    }
}

/// Who acts: `white`, `black` or `director`; `end` needs no one.
fn parse_by(
    map: &Map<String, Value>,
    line: usize,
    action_key: &str,
) -> Result<Option<Party>, ScriptError> {
    match map.get("by") {
        None if action_key == "end" => Ok(None),
        None => Err(ScriptError::new(
            line,
            "by",
            "missing: \"white\", \"black\" or \"director\"",
        )),
        Some(Value::String(s)) => match s.as_str() {
            "white" => Ok(Some(Party::White)),
            "black" => Ok(Some(Party::Black)),
            "director" => Ok(Some(Party::Director)),
            other => Err(ScriptError::new(
                line,
                "by",
                format!(
                    "{other:?} cannot act on a game: only \"white\", \"black\" or \"director\" (spectators cannot, uscf-2020 13)"
                ),
            )),
        },
        Some(other) => Err(ScriptError::new(
            line,
            "by",
            format!("expected a string, found {}", kind_of(other)),
        )),
    }
}

/// The action named by `action_key`, from its own fields.
fn parse_action(
    map: &Map<String, Value>,
    line: usize,
    action_key: &str,
) -> Result<Action, ScriptError> {
    let flag = |action: Action| require_true(map, line, action_key).map(|()| action);
    let draw = |action: Action| require_str(map, line, action_key, "draw").map(|()| action);
    match action_key {
        "move" => Ok(Action::Move {
            mv: parse_move(line, "move", &map["move"])?,
            press: get_bool(map, line, "press")?.unwrap_or(false),
        }),
        "press" => flag(Action::Press),
        "retract" => flag(Action::Retract),
        "claim" => parse_claim(map, line),
        "offer" => draw(Action::Offer),
        "accept" => draw(Action::Accept),
        "decline" => draw(Action::Decline),
        "resign" => flag(Action::Resign),
        "call_director" => {
            require_true(map, line, "call_director")?;
            parse_call_reason(map, line)
        }
        "stop_clock" => flag(Action::StopClock),
        "start_clock" => flag(Action::StartClock),
        "add_time" => parse_add_time(map, line),
        "offence" => parse_offence(map, line),
        "ruling" => parse_ruling(map, line),
        "result" => Ok(Action::Result(parse_declared(line, &map["result"])?)),
        "end" => flag(Action::End),
        other => Err(ScriptError::new(line, other, "unsupported action")),
    }
}

/// `call_director`'s optional `reason`: free text of at most [`MAX_CALL_REASON_CHARS`]
/// characters (blank means none).
fn parse_call_reason(map: &Map<String, Value>, line: usize) -> Result<Action, ScriptError> {
    let reason = get_str(map, line, "reason")?;
    if let Some(r) = reason
        && r.chars().count() > MAX_CALL_REASON_CHARS
    {
        return Err(ScriptError::new(
            line,
            "reason",
            format!(
                "{} characters, more than the {MAX_CALL_REASON_CHARS} allowed",
                r.chars().count()
            ),
        ));
    }
    Ok(Action::CallDirector {
        reason: reason
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_string),
    })
}

/// `claim`, with the intended move a threefold or fifty claim may name.
fn parse_claim(map: &Map<String, Value>, line: usize) -> Result<Action, ScriptError> {
    let name = get_str(map, line, "claim")?.unwrap_or_default();
    let claim = ClaimKind::parse(name).ok_or_else(|| {
        ScriptError::new(
            line,
            "claim",
            format!(
                "unknown claim {name:?} (flag, illegal, both_flags, threefold, fifty, ilc, draw_position)"
            ),
        )
    })?;
    let intended = match map.get("move") {
        None => None,
        Some(v) if matches!(claim, ClaimKind::Threefold | ClaimKind::Fifty) => {
            Some(parse_move(line, "move", v)?)
        }
        Some(_) => {
            return Err(ScriptError::new(
                line,
                "move",
                "only a threefold or fifty claim may name an intended move",
            ));
        }
    };
    Ok(Action::Claim { claim, intended })
}

/// The object under `key`, holding only `allowed` fields (errors name `key.field`);
/// `shape` is an example of the expected object.
fn nested_object<'a>(
    map: &'a Map<String, Value>,
    line: usize,
    key: &str,
    allowed: &[&str],
    shape: &str,
) -> Result<&'a Map<String, Value>, ScriptError> {
    let Some(Value::Object(t)) = map.get(key) else {
        return Err(ScriptError::new(line, key, format!("expected {shape}")));
    };
    check_nested_fields(t, line, key, allowed)?;
    Ok(t)
}

/// [`check_fields`] on the object under `key`, naming the field `key.field`.
fn check_nested_fields(
    t: &Map<String, Value>,
    line: usize,
    key: &str,
    allowed: &[&str],
) -> Result<(), ScriptError> {
    check_fields(t, line, allowed).map_err(|e| ScriptError {
        field: format!("{key}.{}", e.field),
        ..e
    })
}

/// `add_time`: `{"color": ..., "ms": ..., "kind": ...}`, `ms` at most a day either way,
/// `kind` `"decision"` (the default) or `"correction"`.
fn parse_add_time(map: &Map<String, Value>, line: usize) -> Result<Action, ScriptError> {
    let t = nested_object(
        map,
        line,
        "add_time",
        &["color", "ms", "kind"],
        "{\"color\": \"white\", \"ms\": 60000}",
    )?;
    let kind = match t.get("kind") {
        None => TimeChangeKind::default(),
        Some(Value::String(s)) => TimeChangeKind::parse(s).ok_or_else(|| {
            ScriptError::new(
                line,
                "add_time.kind",
                format!("expected \"decision\" or \"correction\", found {s:?}"),
            )
        })?,
        Some(other) => {
            return Err(ScriptError::new(
                line,
                "add_time.kind",
                format!("expected a string, found {}", kind_of(other)),
            ));
        }
    };
    let color = parse_color(line, "add_time.color", t.get("color"))?;
    let ms = match t.get("ms") {
        Some(Value::Number(n)) => n
            .as_i64()
            .filter(|v| v.unsigned_abs() <= MAX_TIME_CHANGE_MS)
            .ok_or_else(|| {
                ScriptError::new(
                    line,
                    "add_time.ms",
                    format!("expected whole milliseconds within a day, found {n}"),
                )
            })?,
        Some(other) => {
            return Err(ScriptError::new(
                line,
                "add_time.ms",
                format!("expected a number, found {}", kind_of(other)),
            ));
        }
        None => return Err(ScriptError::new(line, "add_time.ms", "missing")),
    };
    Ok(Action::AddTime { color, ms, kind })
}

/// `offence`: `{"player": ..., "kind": ...}`.
fn parse_offence(map: &Map<String, Value>, line: usize) -> Result<Action, ScriptError> {
    let t = nested_object(
        map,
        line,
        "offence",
        &["player", "kind"],
        "{\"player\": \"white\", \"kind\": \"knocked_clock\"}",
    )?;
    let player = parse_color(line, "offence.player", t.get("player"))?;
    let kind = match t.get("kind") {
        Some(Value::String(s)) => OffenceKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                ScriptError::new(
                    line,
                    "offence.kind",
                    format!(
                        "unknown offence {s:?} (two_hands, displaced_pieces, knocked_clock, touch_move, other)"
                    ),
                )
            })?,
        _ => {
            return Err(ScriptError::new(
                line,
                "offence.kind",
                "missing: the kind of infraction",
            ));
        }
    };
    Ok(Action::Offence { player, kind })
}

/// `ruling`: `{"grant": true|false}`.
fn parse_ruling(map: &Map<String, Value>, line: usize) -> Result<Action, ScriptError> {
    let t = nested_object(map, line, "ruling", &["grant"], "{\"grant\": true|false}")?;
    match t.get("grant") {
        Some(Value::Bool(grant)) => Ok(Action::Ruling { grant: *grant }),
        _ => Err(ScriptError::new(
            line,
            "ruling.grant",
            "expected true or false",
        )),
    }
}

fn parse_declared(line: usize, v: &Value) -> Result<Declared, ScriptError> {
    match v {
        Value::String(s) if s == "cancel" => Ok(Declared::Cancel),
        Value::Object(t) => {
            check_nested_fields(t, line, "result", &["result", "reason"])?;
            let result = match t.get("result") {
                Some(Value::String(s)) if s == "cancel" => return Ok(Declared::Cancel),
                Some(Value::String(s)) => GameResult::parse(s).ok_or_else(|| {
                    ScriptError::new(
                        line,
                        "result.result",
                        format!(
                            "expected \"1-0\", \"0-1\", \"1/2-1/2\" or \"cancel\", found {s:?}"
                        ),
                    )
                })?,
                _ => {
                    return Err(ScriptError::new(
                        line,
                        "result.result",
                        "missing: \"1-0\", \"0-1\", \"1/2-1/2\" or \"cancel\"",
                    ));
                }
            };
            let reason = match t.get("reason") {
                None => Reason::Director,
                Some(Value::String(s)) => Reason::parse(s).ok_or_else(|| {
                    ScriptError::new(line, "result.reason", format!("unknown reason {s:?}"))
                })?,
                Some(other) => {
                    return Err(ScriptError::new(
                        line,
                        "result.reason",
                        format!("expected a string, found {}", kind_of(other)),
                    ));
                }
            };
            Ok(Declared::Result(result, reason))
        }
        _ => Err(ScriptError::new(
            line,
            "result",
            "expected {\"result\": \"1/2-1/2\", \"reason\": \"director\"} or \"cancel\"",
        )),
    }
}

impl Event {
    /// The event as its game-script JSON object (the inverse of parsing).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("at".into(), Value::from(self.at));
        if let Some(by) = self.by {
            m.insert("by".into(), Value::from(by.name()));
        }
        let color = |c: Color| Value::from(colour::key(c));
        match &self.action {
            Action::Move { mv, press } => {
                m.insert("move".into(), Value::from(mv.to_string()));
                if *press {
                    m.insert("press".into(), Value::Bool(true));
                }
            }
            Action::Press => {
                m.insert("press".into(), Value::Bool(true));
            }
            Action::Retract => {
                m.insert("retract".into(), Value::Bool(true));
            }
            Action::Claim { claim, intended } => {
                m.insert("claim".into(), Value::from(claim.name()));
                if let Some(mv) = intended {
                    m.insert("move".into(), Value::from(mv.to_string()));
                }
            }
            Action::Offer => {
                m.insert("offer".into(), Value::from("draw"));
            }
            Action::Accept => {
                m.insert("accept".into(), Value::from("draw"));
            }
            Action::Decline => {
                m.insert("decline".into(), Value::from("draw"));
            }
            Action::Resign => {
                m.insert("resign".into(), Value::Bool(true));
            }
            Action::CallDirector { reason } => {
                m.insert("call_director".into(), Value::Bool(true));
                if let Some(r) = reason {
                    m.insert("reason".into(), Value::from(r.clone()));
                }
            }
            Action::StopClock => {
                m.insert("stop_clock".into(), Value::Bool(true));
            }
            Action::StartClock => {
                m.insert("start_clock".into(), Value::Bool(true));
            }
            Action::AddTime { color: c, ms, kind } => {
                let mut t = Map::new();
                t.insert("color".into(), color(*c));
                t.insert("ms".into(), Value::from(*ms));
                if *kind != TimeChangeKind::Decision {
                    t.insert("kind".into(), Value::from(kind.name()));
                }
                m.insert("add_time".into(), Value::Object(t));
            }
            Action::Offence { player, kind } => {
                let mut t = Map::new();
                t.insert("player".into(), color(*player));
                t.insert("kind".into(), Value::from(kind.name()));
                m.insert("offence".into(), Value::Object(t));
            }
            Action::Ruling { grant } => {
                let mut t = Map::new();
                t.insert("grant".into(), Value::Bool(*grant));
                m.insert("ruling".into(), Value::Object(t));
            }
            Action::Result(Declared::Cancel) => {
                m.insert("result".into(), Value::from("cancel"));
            }
            Action::Result(Declared::Result(r, reason)) => {
                let mut t = Map::new();
                t.insert("result".into(), Value::from(r.as_str()));
                t.insert("reason".into(), Value::from(reason.as_str()));
                m.insert("result".into(), Value::Object(t));
            }
            Action::End => {
                m.insert("end".into(), Value::Bool(true));
            }
        }
        if self.lag_ms > 0 {
            m.insert("lag_ms".into(), Value::from(self.lag_ms));
        }
        Value::Object(m)
    }
}

impl GameSetup {
    /// The setup as its game-script JSON object, with every option resolved.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        let base_id = self.ruleset.id.clone();
        m.insert("rules".into(), Value::from(base_id));
        m.insert(
            "time_control".into(),
            Value::from(self.time_control.to_string()),
        );
        if let Some(fen) = &self.fen {
            m.insert("fen".into(), Value::from(fen.clone()));
        }
        m.insert("auto_flag".into(), Value::Bool(self.auto_flag));
        m.insert(
            "arbiter_calls_illegal".into(),
            Value::Bool(self.arbiter_calls_illegal),
        );
        if let Some(w) = &self.white {
            m.insert("white".into(), Value::from(w.clone()));
        }
        if let Some(b) = &self.black {
            m.insert("black".into(), Value::from(b.clone()));
        }
        m.insert("simultaneous_ms".into(), Value::from(self.simultaneous_ms));
        if !self.variations.is_empty() {
            m.insert(
                "variation".into(),
                Value::Array(self.variations.iter().cloned().map(Value::from).collect()),
            );
        }
        m.insert("director".into(), Value::Bool(self.director));
        Value::Object(m)
    }
}

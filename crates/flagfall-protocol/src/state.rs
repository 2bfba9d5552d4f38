//! The state object and its projection from a [`Game`]: the full state (`State::of`)
//! and what changed since a given move (`Snapshot::of`).

use std::collections::BTreeMap;

use flagfall_analysis::assistant::DrawClaim;
use flagfall_game::script::{self, ClaimKind};
use flagfall_game::{Game, MoveEntry};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shakmaty::Color;
use ts_rs::TS;

use crate::{Actions, CreateGame, Mode, RulingView, StateUpdate};

/// A role on a game: what a token (or its absence) acts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
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

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "white" => Some(Role::White),
            "black" => Some(Role::Black),
            "director" => Some(Role::Director),
            "spectator" => Some(Role::Spectator),
            _ => None,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ClockState {
    pub white_ms: i64,
    pub black_ms: i64,
    /// `"white"`, `"black"` or null.
    pub running: Option<ColorName>,
}

/// A colour on the wire: `"white"` or `"black"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash, TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "Color")]
pub enum ColorName {
    White,
    Black,
}

impl ColorName {
    pub fn as_str(self) -> &'static str {
        match self {
            ColorName::White => "white",
            ColorName::Black => "black",
        }
    }

    pub fn parse(s: &str) -> Option<ColorName> {
        match s {
            "white" => Some(ColorName::White),
            "black" => Some(ColorName::Black),
            _ => None,
        }
    }

    /// The other colour.
    pub fn other(self) -> ColorName {
        match self {
            ColorName::White => ColorName::Black,
            ColorName::Black => ColorName::White,
        }
    }
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PendingClaim {
    pub claimant: ColorName,
    pub claim: String,
    pub recommendation: Recommendation,
}

/// A player's call for the director, pending until the director acts
/// (`call_director`, docs/rules.md §5.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Called {
    pub by: ColorName,
    /// The game's `at` when the call stopped the clock.
    pub at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The director's assistant's advice on a pending claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Recommendation {
    pub grant: bool,
    /// The rule the recommendation rests on (a claimable-position pattern's own rule,
    /// else the claim's).
    pub rule: String,
    pub reasons: Vec<String>,
}

/// A move on the board not yet completed by a press.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BoardMove {
    pub uci: String,
    pub by: ColorName,
}

/// One completed move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MoveView {
    pub uci: String,
    /// The move in SAN when it is legal chess: online always; over the board only once
    /// the game is over (before, its absence would tell that the move was illegal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub san: Option<String>,
    pub by: ColorName,
    pub at: u64,
    /// The physical board after the move (FEN), legal or not: a page replays the list
    /// from these without chess rules of its own.
    pub fen: String,
}

impl From<&MoveEntry> for MoveView {
    fn from(m: &MoveEntry) -> MoveView {
        MoveView {
            uci: m.uci.clone(),
            san: m.san.clone(),
            by: m.by.into(),
            at: m.at,
            fen: m.fen.clone(),
        }
    }
}

/// The claims each player may make now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
pub struct Claims {
    pub white: Vec<String>,
    pub black: Vec<String>,
}

/// The rank (`"8"`, `"1"`) on which each colour's pawns promote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PromotionRanks {
    pub white: String,
    pub black: String,
}

impl Default for PromotionRanks {
    fn default() -> PromotionRanks {
        let rank = |c: Color| {
            c.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First)
                .char()
                .to_string()
        };
        PromotionRanks {
            white: rank(Color::White),
            black: rank(Color::Black),
        }
    }
}

/// The claims `c` may make at `at`, by name. Online no illegal move can stand, so there
/// is no illegal-move claim to offer.
pub fn claim_names(game: &Game, c: Color, at: u64, mode: Mode) -> Vec<String> {
    game.claims_for(c, at)
        .into_iter()
        .filter(|k| mode == Mode::Otb || *k != ClaimKind::Illegal)
        .map(|k| k.name().to_string())
        .collect()
}

/// The SAN of each legal move of the side to move, by UCI (empty while the game is
/// halted or a move is on the board, as `dests`).
pub fn legal_san(game: &Game) -> BTreeMap<String, String> {
    if game.halted() || game.board_move().is_some() {
        return BTreeMap::new();
    }
    let rules = flagfall_core::board::BoardRules {
        setup_castling: game.ruleset().moves.setup_castling,
    };
    game.legal_moves()
        .into_iter()
        .filter_map(|mv| {
            let san = game.position().san(&mv, &rules)?;
            Some((mv.to_string(), san))
        })
        .collect()
}

/// The state object: `GET /api/games/{id}` and the WebSocket `state` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(rename = "GameState")]
pub struct State {
    pub id: String,
    /// The game's setup: the fields of `POST /api/games` less `mode`.
    #[ts(as = "CreateGame")]
    pub setup: Value,
    pub mode: Mode,
    pub result: String,
    pub reason: Option<String>,
    pub rule: Option<String>,
    pub clock: ClockState,
    pub fen: String,
    #[ts(as = "Vec<RulingView>")]
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
    /// What each role may do now besides the claims (the page offers exactly these).
    pub actions: Actions,
    pub draw_offer: Option<ColorName>,
    /// The number of stored events.
    pub n: u64,
    /// The game's `at` clock now, in milliseconds.
    pub server_now: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dests: Option<BTreeMap<String, Vec<String>>>,
    /// The game expired before anyone acted on it (status `aborted`: no result, no
    /// action taken; `reason` says why). Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aborted: bool,
    /// Online: the SAN of each legal move, by its UCI (a promotion once per piece,
    /// `e7e8q`): a page reads typed SAN and asks for a promotion piece from this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub san: Option<BTreeMap<String, String>>,
    /// The rank (`"8"`, `"1"`) on which each colour's pawns promote: a page asks for the
    /// piece when a pawn is put there over the board.
    #[serde(default)]
    pub promotion_ranks: PromotionRanks,
    /// The evening the game plays for (its round and board): set on `GET /api/games/{id}`
    /// only (it does not change: a page reads it once). Absent for a game of no evening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub evening: Option<crate::evening::GameEvening>,
    /// What the socket's token acts as: set on the WebSocket's `state` message only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
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
            actions: u.actions,
            draw_offer: u.draw_offer,
            n: cx.n,
            server_now: u.server_now,
            dests: u.dests,
            aborted: false,
            san: u.san,
            promotion_ranks: PromotionRanks::default(),
            evening: None,
            role: None,
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
                claim_names(game, c, clock_at, cx.mode)
            } else {
                Vec::new()
            }
        };
        // Over the board a move's SAN is there only when it is legal, so while the game
        // goes on no move carries one (the page writes every move as a scoresheet
        // does); once it is over the whole list is sent again with them.
        let reveal = cx.mode == Mode::Online || game.is_over();
        let moves_from = if game.is_over() && cx.mode == Mode::Otb {
            0
        } else {
            moves_from.min(moves.len())
        };
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
                moves: move_views(&moves[moves_from..], reveal),
                to_move: game.position().turn().into(),
                running,
                pending: pending_of(game),
                called: game.called().map(|c| Called {
                    by: c.by.into(),
                    at: c.at,
                    reason: c.reason.clone(),
                }),
                flags: flags_of(game, clock_at, cx.started),
                board_move: game.board_move().map(|(c, mv)| BoardMove {
                    uci: mv.to_string(),
                    by: c.into(),
                }),
                claims: Claims {
                    white: claims_of(Color::White),
                    black: claims_of(Color::Black),
                },
                actions: Actions::of(game, cx.mode),
                draw_offer: game.draw_offer().map(ColorName::from),
                server_now: cx.now,
                dests: (cx.mode == Mode::Online).then(|| game.dests()),
                san: (cx.mode == Mode::Online).then(|| legal_san(game)),
            },
        }
    }
}

/// The moves of a state or an update, their SAN left out unless `reveal` (over the
/// board while the game goes on).
fn move_views(moves: &[MoveEntry], reveal: bool) -> Vec<MoveView> {
    moves
        .iter()
        .map(|m| {
            let mut v = MoveView::from(m);
            if !reveal {
                v.san = None;
            }
            v
        })
        .collect()
}

/// The claim the director has to rule on, with the assistant's recommendation and the
/// rule it is cited under.
fn pending_of(game: &Game) -> Option<PendingClaim> {
    game.pending_claim().map(|(c, k, r)| PendingClaim {
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
    })
}

/// The flags down at `clock_at` (none before the clock starts).
fn flags_of(game: &Game, clock_at: u64, started: bool) -> Vec<ColorName> {
    if !started {
        return Vec::new();
    }
    game.flags_down(clock_at)
        .into_iter()
        .map(ColorName::from)
        .collect()
}

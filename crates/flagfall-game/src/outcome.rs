//! Results, reasons and rulings: what the arbiter decides (status kept apart from outcome).

use serde::{Serialize, Serializer};
use shakmaty::Color;

/// The score of a game (`*` while it goes on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    Ongoing,
}

impl GameResult {
    pub fn win_for(color: Color) -> GameResult {
        color.fold_wb(GameResult::WhiteWins, GameResult::BlackWins)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Ongoing => "*",
        }
    }

    /// A decided result from its PGN form (`*` is not a result one can declare).
    pub fn parse(s: &str) -> Option<GameResult> {
        Some(match s {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" => GameResult::Draw,
            _ => return None,
        })
    }
}

impl Serialize for GameResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Why a game ended (docs/game-script.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Checkmate,
    Resignation,
    TimeForfeit,
    IllegalMove,
    Stalemate,
    Agreement,
    BothFlags,
    InsufficientMaterial,
    Repetition,
    FiftyMoves,
    Ilc,
    DrawPosition,
    DeadPosition,
    IllegalPosition,
    PenaltyForfeit,
    Director,
}

impl Reason {
    pub const ALL: [Reason; 16] = [
        Reason::Checkmate,
        Reason::Resignation,
        Reason::TimeForfeit,
        Reason::IllegalMove,
        Reason::Stalemate,
        Reason::Agreement,
        Reason::BothFlags,
        Reason::InsufficientMaterial,
        Reason::Repetition,
        Reason::FiftyMoves,
        Reason::Ilc,
        Reason::DrawPosition,
        Reason::DeadPosition,
        Reason::IllegalPosition,
        Reason::PenaltyForfeit,
        Reason::Director,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Resignation => "resignation",
            Reason::TimeForfeit => "time_forfeit",
            Reason::IllegalMove => "illegal_move",
            Reason::Stalemate => "stalemate",
            Reason::Agreement => "agreement",
            Reason::BothFlags => "both_flags",
            Reason::InsufficientMaterial => "insufficient_material",
            Reason::Repetition => "repetition",
            Reason::FiftyMoves => "fifty_moves",
            Reason::Ilc => "ilc",
            Reason::DrawPosition => "draw_position",
            Reason::DeadPosition => "dead_position",
            Reason::IllegalPosition => "illegal_position",
            Reason::PenaltyForfeit => "penalty_forfeit",
            Reason::Director => "director",
        }
    }

    pub fn parse(s: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub result: GameResult,
    pub reason: Reason,
    pub rule: String,
}

/// What kind of decision a ruling records (docs/arbiter.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RulingKind {
    Result,
    ClaimUpheld,
    ClaimRejected,
    ClaimPending,
    Recommendation,
    Penalty,
    TimeChange,
    Clock,
    Refused,
}

/// A clock change a ruling made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TimeChange {
    #[serde(with = "flagfall_core::colour::serde")]
    pub color: Color,
    pub ms: i64,
}

/// One decision, with the rule it applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ruling {
    pub at: u64,
    /// The 1-based number of the event that led to it.
    pub event: usize,
    pub kind: RulingKind,
    pub ruling: String,
    pub rule: String,
    #[serde(
        skip_serializing_if = "Option::is_none",
        with = "flagfall_core::colour::serde_opt"
    )]
    pub player: Option<Color>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeChange>,
}

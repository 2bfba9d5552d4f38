//! flagfall-analysis: can a side still checkmate?
//!
//! One place the arbiter asks about mating material, whatever the ruleset:
//!
//! - [`material`]: the US Chess piece-count definitions (uscf-2020 7c, blitz-2006 7b).
//! - [`can_checkmate`]: FIDE's "any possible series of legal moves" (fide-b3 A.5.3,
//!   Art. 5.2.2, Art. 7.5.5), which must never call a position unwinnable that has a
//!   helpmate.
//!
//! The public contract below is what `flagfall-game` calls; keep it stable.

pub mod material;

use serde::Serialize;
use shakmaty::{Color, Setup};

/// Limits on the search; when one is hit the verdict is [`Verdict::Undetermined`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum number of positions visited.
    pub nodes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { nodes: 2_000_000 }
    }
}

/// Why a side cannot checkmate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnwinnableReason {
    /// The intended winner has only its king.
    BareKing,
    /// The material left cannot mate whatever the opponent does (e.g. K+B, K+N).
    InsufficientMaterial,
    /// Only bishops of one square colour and the loser's pieces cannot help.
    SameColouredBishops,
    /// Pawns are locked and no piece can break through.
    LockedPawns,
    /// The game can no longer continue (already mate or stalemate for the other side).
    NoLegalMoves,
    /// The search exhausted every reachable position without finding a mate.
    Exhausted,
}

/// The answer to "can `winner` still checkmate by some series of legal moves?".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// A helpmate exists; `witness` is a verified line of UCI moves ending in mate.
    Winnable { witness: Vec<String> },
    /// No series of legal moves mates the other king.
    Unwinnable { reason: UnwinnableReason },
    /// A documented limit was hit (or the position is not a legal chess position).
    Undetermined { reason: String },
}

impl Verdict {
    /// True unless the position was proved unwinnable: the arbiter's reading, which gives
    /// a claimant the benefit of the doubt on `Undetermined`.
    pub fn may_win(&self) -> bool {
        !matches!(self, Verdict::Unwinnable { .. })
    }
}

/// FIDE's test: can `winner` checkmate the other king by any possible series of legal
/// moves from `setup` (side to move as in the setup)?
///
/// Positions that are not legal chess positions (a king missing, the side not to move
/// in check, ...) are answered `Undetermined` unless material alone settles them.
pub fn can_checkmate(setup: &Setup, winner: Color, limits: &Limits) -> Verdict {
    let _ = limits;
    // Conservative placeholder until the exact search lands: decide only the cases
    // where material alone settles it, never calling a helpmate position unwinnable.
    if material::fide_material_cannot_mate(&setup.board, winner) {
        return Verdict::Unwinnable {
            reason: if setup.board.by_color(winner) == setup.board.kings() & setup.board.by_color(winner) {
                UnwinnableReason::BareKing
            } else {
                UnwinnableReason::InsufficientMaterial
            },
        };
    }
    Verdict::Undetermined {
        reason: "exact search not yet available".to_string(),
    }
}

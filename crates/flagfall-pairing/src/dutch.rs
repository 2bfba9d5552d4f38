//! The FIDE Dutch system (C.04.3, the 2025 rules in force from 2026), pairing one round
//! the way bbpPairings does.
//!
//! Work in progress: the API below is fixed; [`pair`] does not pair yet.

use std::fmt;

use thiserror::Error;

pub use crate::trf::Colour;
use crate::trf::{ResultCode, Trf};

/// What happened to a player in one completed round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundRecord {
    /// A game played over the board. `half_points`: 2 win, 1 draw, 0 loss.
    Played {
        /// Opponent's pairing number.
        opponent: u32,
        /// Colour this player had.
        colour: Colour,
        /// Points scored, in half points.
        half_points: u32,
    },
    /// A game paired but not played (forfeit, on one or both sides). It does not count
    /// as a game for colours or for the "never meet twice" rule.
    Forfeit {
        /// Opponent's pairing number.
        opponent: u32,
        /// True if this player won by forfeit.
        won: bool,
    },
    /// The pairing-allocated bye (one point).
    PairingBye,
    /// A full-point bye (requested, not the PAB).
    FullBye,
    /// A half-point bye.
    HalfBye,
    /// A zero-point bye, or absent / not paired in that round.
    ZeroBye,
}

impl RoundRecord {
    /// Points scored in this round, in half points.
    #[must_use]
    pub fn half_points(&self) -> u32 {
        match *self {
            RoundRecord::Played { half_points, .. } => half_points,
            RoundRecord::Forfeit { won, .. } => 2 * u32::from(won),
            RoundRecord::PairingBye | RoundRecord::FullBye => 2,
            RoundRecord::HalfBye => 1,
            RoundRecord::ZeroBye => 0,
        }
    }
}

/// One player as the Dutch engine sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DutchPlayer {
    /// Pairing number (starting rank), 1-based, unique.
    pub number: u32,
    /// Completed rounds 1..K, one record per round (every player has K records).
    pub history: Vec<RoundRecord>,
    /// True if the player is not to be paired in the round being paired (withdrawn,
    /// not yet arrived, or has an announced bye).
    pub absent: bool,
}

/// Everything needed to pair the next round (round K + 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DutchInput {
    /// All players of the tournament, present or not.
    pub players: Vec<DutchPlayer>,
    /// Rounds planned in total (for the final-round exceptions).
    pub total_rounds: u32,
    /// The colour drawn by lot for the top seed in round 1.
    pub initial_colour: Colour,
}

/// A pairing of one round: boards as (white, black) pairing numbers, plus the PAB.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pairing {
    /// Boards, in board order: (white, black).
    pub boards: Vec<(u32, u32)>,
    /// The player receiving the pairing-allocated bye, if any.
    pub bye: Option<u32>,
}

impl fmt::Display for Pairing {
    /// bbpPairings' output format: the number of lines, then `WHITE BLACK` per board, then
    /// `P 0` for the bye.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.boards.len() + usize::from(self.bye.is_some()))?;
        for (w, b) in &self.boards {
            writeln!(f, "{w} {b}")?;
        }
        if let Some(p) = self.bye {
            writeln!(f, "{p} 0")?;
        }
        Ok(())
    }
}

/// Why a round could not be paired.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PairingError {
    /// The input is inconsistent (unknown opponent, mismatched history, ...).
    #[error("invalid tournament data: {0}")]
    InvalidInput(String),
    /// The TRF lacks the number of rounds (`XXR` / `142`).
    #[error("the TRF does not give the number of rounds (XXR or 142 line)")]
    MissingTotalRounds,
    /// The round to pair is beyond the rounds planned.
    #[error("round {round} cannot be paired: the tournament has {total} rounds")]
    TournamentOver {
        /// The round that would be paired.
        round: u32,
        /// Rounds planned.
        total: u32,
    },
    /// No pairing satisfies the absolute criteria (C1-C3).
    #[error("no pairing satisfies the absolute criteria for round {0}")]
    NoValidPairing(u32),
    /// Not implemented yet.
    #[error("the Dutch engine is not finished yet")]
    Unfinished,
}

impl DutchInput {
    /// Build the input from a TRF: completed rounds are the columns up to the last one in
    /// which anybody has a game or a `U`; players with an entry in the next column are
    /// absent for the round being paired.
    ///
    /// # Errors
    /// [`PairingError`] when the file is inconsistent or lacks the round count.
    pub fn from_trf(trf: &Trf) -> Result<Self, PairingError> {
        let total_rounds = trf.total_rounds.ok_or(PairingError::MissingTotalRounds)?;
        let _ = (total_rounds, ResultCode::Win);
        Err(PairingError::Unfinished)
    }
}

/// Pair the next round by the Dutch system.
///
/// # Errors
/// [`PairingError`] if the input is inconsistent or no legal pairing exists.
pub fn pair(input: &DutchInput) -> Result<Pairing, PairingError> {
    let _ = input;
    Err(PairingError::Unfinished)
}

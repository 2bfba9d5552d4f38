//! Practice games against the computer on the wire: the body of `POST /api/practice`
//! and the computer's settings (stored with the game as this JSON).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{ColorName, CreateGame};

/// The body of `POST /api/practice`: the game, and the computer.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct PracticeBody {
    pub setup: CreateGame,
    pub computer: ComputerConfig,
}

/// How the computer plays (stored with the game as JSON).
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct ComputerConfig {
    /// The colour the computer plays.
    pub color: ColorName,
    /// Strength 1 (weakest) to 20 (the engine's full strength). The built-in opponent
    /// ignores it beyond its thinking time.
    #[serde(default = "default_level")]
    #[ts(as = "Option<u8>", optional)]
    pub level: u8,
    /// Sometimes play an illegal move or let the flag fall, for the player to claim.
    #[serde(default)]
    #[ts(as = "Option<bool>", optional)]
    pub training: bool,
    /// The share of the computer's moves that are illegal in training (default 0.25).
    #[serde(default)]
    pub illegal_rate: Option<f64>,
    /// Seed of the computer's choices (reproducible games); random when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Training: the computer's move (counted from 0) from which it shuffles a piece out
    /// and back for a while, so that a threefold repetition comes within the player's
    /// reach (default: somewhere between its 4th and 11th move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_at: Option<usize>,
}

fn default_level() -> u8 {
    5
}

impl ComputerConfig {
    /// Check the fields: level 1..=20, rate within 0..=1.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=20).contains(&self.level) {
            return Err(format!(
                "field `computer.level`: {} is not within 1 to 20",
                self.level
            ));
        }
        if let Some(r) = self.illegal_rate
            && !(0.0..=1.0).contains(&r)
        {
            return Err(format!(
                "field `computer.illegal_rate`: {r} is not within 0 to 1"
            ));
        }
        Ok(())
    }
}

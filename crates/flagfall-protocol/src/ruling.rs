//! A ruling as the wire carries it (`rulings` of the state and of an `event`): the
//! arbiter's `Ruling` serialised. The state keeps them as JSON values; these types
//! describe that JSON for clients (the generated TypeScript), and the tests check that
//! every ruling the arbiter writes reads back as one.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ColorName;

/// What kind of decision a ruling records (the arbiter's `RulingKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "RulingKind")]
pub enum RulingKindName {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(rename = "TimeChange")]
pub struct TimeChangeView {
    pub color: ColorName,
    pub ms: i64,
}

/// One decision, with the rule it applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(rename = "Ruling")]
pub struct RulingView {
    /// The game's clock when it was made, in milliseconds.
    pub at: u64,
    /// The 1-based number of the event that led to it.
    pub event: u64,
    pub kind: RulingKindName,
    pub ruling: String,
    pub rule: String,
    /// The player it concerns, if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<ColorName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeChangeView>,
}

//! A rematch after a game (`/api/games/{id}/rematch`): one player offers, the other
//! accepts or declines; an accepted rematch is a new game with the colours swapped and
//! the same ruleset, time control, mode and director.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ColorName;

/// What a player does about a rematch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RematchAction {
    /// Offer a rematch (an offer of the opponent's standing is accepted by it).
    Offer,
    /// Accept the opponent's offer: the new game is created.
    Accept,
    /// Decline the opponent's offer.
    Decline,
}

/// The body of `POST /api/games/{id}/rematch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct RematchBody {
    /// The player's token of the finished game.
    pub token: String,
    pub action: RematchAction,
}

/// Where a rematch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RematchStatus {
    /// Nobody offered one.
    None,
    /// `by` offered; the other player may accept or decline.
    Offered,
    /// The other player declined `by`'s offer.
    Declined,
    /// Accepted: `game` is the new game (being created while it is null).
    Accepted,
}

/// The new game of an accepted rematch, as one player sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RematchGame {
    pub id: String,
    /// The colour the asking player has in the new game (the other one); null for the
    /// director, who directs the new game with the same token.
    pub color: Option<ColorName>,
    /// The asking player's page in the new game (with the new token); the director's
    /// console of it for the director.
    pub url: String,
}

/// The answer of `GET` and `POST /api/games/{id}/rematch`, for the asking player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RematchView {
    pub status: RematchStatus,
    /// Who offered it (null when nobody did).
    pub by: Option<ColorName>,
    pub game: Option<RematchGame>,
}

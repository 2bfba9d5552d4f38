//! The rematch of a finished game (issue 20): the row, the statements and the store
//! methods, written once for both backends (the methods are
//! [`crate::backend::SqlStore`]'s).
//!
//! One row per finished game. Every change is conditional on the row as the server read
//! it (an offer only over a declined one or the same player's, an answer only to the
//! other player's standing offer, an accept in the transaction that creates the new
//! game), so of two concurrent answers one wins and the other writes nothing.

use flagfall_protocol::{ColorName, RematchStatus};
use sqlx::{ColumnIndex, Database, Decode, Encode, Row, Type};

use crate::Result;
use crate::rows::Text;
use crate::sql::{Bind, Bound, get, typed};

/// A finished game's rematch as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RematchRow {
    /// The finished game.
    pub game_id: String,
    /// Who made the offer standing (or declined, or accepted).
    pub offered_by: ColorName,
    /// `Offered`, `Declined` or `Accepted` (never `None`: no row is none).
    pub status: RematchStatus,
    /// Hex SHA-256 of the token the offerer holds in the new game. The token is derived
    /// from the offerer's token of the finished game, which is never stored, so only the
    /// offerer can compute it.
    pub offer_token_hash: String,
    /// The new game, once accepted.
    pub new_game: Option<String>,
    /// When the row last changed, Unix milliseconds.
    pub updated_ms: i64,
}

impl Text for RematchStatus {
    const EXPECTED: &'static str = "offered, declined, accepted";
    fn text(&self) -> &'static str {
        match self {
            // Never written: no row stands for "nobody offered".
            RematchStatus::None => "none",
            RematchStatus::Offered => "offered",
            RematchStatus::Declined => "declined",
            RematchStatus::Accepted => "accepted",
        }
    }
    fn from_text(s: &str) -> Option<RematchStatus> {
        match s {
            "offered" => Some(RematchStatus::Offered),
            "declined" => Some(RematchStatus::Declined),
            "accepted" => Some(RematchStatus::Accepted),
            _ => None,
        }
    }
}

impl<DB> Bind<DB>
where
    DB: Database,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'q> <DB as Database>::Arguments<'q>: Default,
{
    /// A game's rematch, read by [`rematch_row`].
    pub(crate) fn rematch(game_id: &str) -> Bound<'_, DB> {
        sqlx::query(
            "SELECT game_id, offered_by, status, offer_token_hash, new_game, updated_ms \
             FROM rematches WHERE game_id = $1",
        )
        .bind(game_id)
    }

    /// `by` offers: a new row, or over a declined offer (either player's), or again
    /// over `by`'s own standing offer (one row affected, or none).
    pub(crate) fn offer_rematch<'q>(
        game_id: &'q str,
        by: ColorName,
        offer_token_hash: &'q str,
        now_ms: i64,
    ) -> Bound<'q, DB> {
        sqlx::query(
            "INSERT INTO rematches (game_id, offered_by, status, offer_token_hash, new_game, updated_ms) \
             VALUES ($1, $2, 'offered', $3, NULL, $4) \
             ON CONFLICT (game_id) DO UPDATE SET offered_by = excluded.offered_by, \
             status = 'offered', offer_token_hash = excluded.offer_token_hash, \
             updated_ms = excluded.updated_ms \
             WHERE rematches.status = 'declined' \
             OR (rematches.status = 'offered' AND rematches.offered_by = excluded.offered_by)",
        )
        .bind(game_id)
        .bind(by.text())
        .bind(offer_token_hash)
        .bind(now_ms)
    }

    /// Answer `by`'s standing offer (`declined` or `accepted` with the new game): one row
    /// affected, or none when no offer of `by`'s stands.
    pub(crate) fn answer_rematch<'q>(
        game_id: &'q str,
        by: ColorName,
        answer: RematchStatus,
        new_game: Option<&'q str>,
        now_ms: i64,
    ) -> Bound<'q, DB> {
        sqlx::query(
            "UPDATE rematches SET status = $1, new_game = $2, updated_ms = $3 \
             WHERE game_id = $4 AND offered_by = $5 AND status = 'offered'",
        )
        .bind(answer.text())
        .bind(new_game)
        .bind(now_ms)
        .bind(game_id)
        .bind(by.text())
    }
}

/// A row of [`Bind::rematch`].
pub(crate) fn rematch_row<R>(r: &R) -> Result<RematchRow>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "reading a rematch";
    Ok(RematchRow {
        game_id: get(r, 0, DOING)?,
        offered_by: typed(r, 1, "rematches.offered_by", DOING)?,
        status: typed(r, 2, "rematches.status", DOING)?,
        offer_token_hash: get(r, 3, DOING)?,
        new_game: get(r, 4, DOING)?,
        updated_ms: get(r, 5, DOING)?,
    })
}

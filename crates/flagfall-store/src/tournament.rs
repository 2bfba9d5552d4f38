//! Blitz evenings (issue 21): the rows, the statements and the store methods, written
//! once for both backends (the methods are [`crate::backend::SqlStore`]'s).
//!
//! An evening is its base (the events library's event as created, JSON) and its log,
//! one row per change in order; the server replays the log to load it. Everything a
//! change brings with it (the log rows, new players' token hashes, the games of a round
//! paired with `play: "server"` and their links to the evening) is written by
//! [`crate::Store::tournament_commit`] in one transaction.

use sqlx::{ColumnIndex, Database, Decode, Encode, Row, Type};

use crate::error::q;
use crate::sql::{Bind, Bound};
use crate::{NewGame, Result};

/// An evening as created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTournament {
    pub id: String,
    /// The event as created (the events library's `Event`, JSON), before any logged
    /// change.
    pub base: String,
    /// The server's settings of the evening (play, mode, confirmation), JSON.
    pub settings: String,
    pub created_ms: i64,
}

/// A token of an evening, by its hash (the token itself is never stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentToken {
    pub token_hash: String,
    pub tournament_id: String,
    /// `director`, `deputy` or `player`.
    pub role: String,
    /// A player's name (pairing numbers move when players enter late).
    pub player: Option<String>,
}

/// One row of an evening's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentLogRow {
    /// 1, 2, ... in order.
    pub seq: i64,
    /// The change (or report), JSON, as the server writes it.
    pub json: String,
}

/// What one change of an evening writes, in one transaction: all or nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TournamentCommit {
    pub tournament_id: String,
    /// Log rows, following the stored ones (a row already stored fails the commit).
    pub log: Vec<TournamentLogRow>,
    /// New tokens (players entered).
    pub tokens: Vec<TournamentToken>,
    /// Server games created for the evening, each tied to it.
    pub games: Vec<NewGame>,
    /// The evening's games never begun that the change removes (a deleted or re-paired
    /// round): stored as `aborted`. One that has an event stored fails the commit
    /// ([`crate::StoreError::Conflict`], nothing written).
    pub abort: Vec<String>,
}

impl TournamentCommit {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
            && self.tokens.is_empty()
            && self.games.is_empty()
            && self.abort.is_empty()
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
    pub(crate) fn insert_tournament(t: &NewTournament) -> Bound<'_, DB> {
        sqlx::query(
            "INSERT INTO tournaments (id, base, settings, created_ms) VALUES ($1, $2, $3, $4)",
        )
        .bind(t.id.as_str())
        .bind(t.base.as_str())
        .bind(t.settings.as_str())
        .bind(t.created_ms)
    }

    pub(crate) fn tournament(id: &str) -> Bound<'_, DB> {
        sqlx::query("SELECT id, base, settings, created_ms FROM tournaments WHERE id = $1").bind(id)
    }

    pub(crate) fn tournament_log(id: &str) -> Bound<'_, DB> {
        sqlx::query("SELECT seq, json FROM tournament_log WHERE tournament_id = $1 ORDER BY seq")
            .bind(id)
    }

    pub(crate) fn tournament_log_after(id: &str, seq: i64) -> Bound<'_, DB> {
        sqlx::query(
            "SELECT seq, json FROM tournament_log WHERE tournament_id = $1 AND seq > $2 \
             ORDER BY seq",
        )
        .bind(id)
        .bind(seq)
    }

    pub(crate) fn tournament_tokens(id: &str) -> Bound<'_, DB> {
        sqlx::query(
            "SELECT token_hash, tournament_id, role, player FROM tournament_tokens \
             WHERE tournament_id = $1",
        )
        .bind(id)
    }

    /// Abort an evening's game that never began (live, or aborted already by its
    /// expiry; no event stored): one row affected, or none.
    pub(crate) fn abort_tournament_game(id: &str) -> Bound<'_, DB> {
        sqlx::query(
            "UPDATE games SET status = 'aborted' WHERE id = $1 \
             AND status IN ('live', 'aborted') \
             AND NOT EXISTS (SELECT 1 FROM events WHERE events.game_id = games.id)",
        )
        .bind(id)
    }

    pub(crate) fn tournament_of_game(game_id: &str) -> Bound<'_, DB> {
        sqlx::query("SELECT tournament_id FROM tournament_games WHERE game_id = $1").bind(game_id)
    }

    /// [`INSERT_LOG`]'s rows of evening `id`, bound to `sql` ([`crate::sql::values`] of 3 columns).
    pub(crate) fn tournament_log_rows<'q>(
        sql: &'q str,
        id: &'q str,
        rows: &'q [TournamentLogRow],
    ) -> Bound<'q, DB> {
        rows.iter().fold(sqlx::query(sql), |s, r| {
            s.bind(id).bind(r.seq).bind(r.json.as_str())
        })
    }

    /// [`INSERT_TOKENS`]'s rows, bound to `sql` ([`crate::sql::values`] of 4 columns).
    pub(crate) fn tournament_token_rows<'q>(
        sql: &'q str,
        rows: &'q [TournamentToken],
    ) -> Bound<'q, DB> {
        rows.iter().fold(sqlx::query(sql), |s, t| {
            s.bind(t.token_hash.as_str())
                .bind(t.tournament_id.as_str())
                .bind(t.role.as_str())
                .bind(t.player.as_deref())
        })
    }

    /// [`INSERT_GAMES`]'s rows tying `games` to evening `id`, bound to `sql` ([`crate::sql::values`]
    /// of 2 columns).
    pub(crate) fn tournament_game_rows<'q>(
        sql: &'q str,
        id: &'q str,
        games: &'q [NewGame],
    ) -> Bound<'q, DB> {
        games
            .iter()
            .fold(sqlx::query(sql), |s, g| s.bind(g.id.as_str()).bind(id))
    }
}

/// The heads of the multi-row inserts of an evening's change ([`crate::sql::values`]).
pub(crate) const INSERT_LOG: &str = "INSERT INTO tournament_log (tournament_id, seq, json)";
pub(crate) const INSERT_TOKENS: &str =
    "INSERT INTO tournament_tokens (token_hash, tournament_id, role, player)";
pub(crate) const INSERT_GAMES: &str = "INSERT INTO tournament_games (game_id, tournament_id)";

/// What a failed insert of an evening's log rows is: a row whose seq is stored already
/// (the log's primary key: another writer committed a change first) is a
/// [`crate::StoreError::Conflict`]; anything else a query error.
pub(crate) fn log_clash(id: &str) -> impl FnOnce(sqlx::Error) -> crate::StoreError + '_ {
    move |e| match &e {
        sqlx::Error::Database(d) if d.is_unique_violation() => crate::StoreError::Conflict(
            format!("evening {id} was changed meanwhile (its log has the row already)"),
        ),
        _ => q("storing an evening's change")(e),
    }
}

/// Rows per multi-row INSERT of a commit (4 bind parameters a row at most).
pub(crate) const TOURNAMENT_ROWS: usize = 2000;

fn get<'r, R, T>(r: &'r R, i: usize, doing: &'static str) -> Result<T>
where
    R: Row,
    usize: ColumnIndex<R>,
    T: Decode<'r, R::Database> + Type<R::Database>,
{
    r.try_get::<T, _>(i).map_err(q(doing))
}

pub(crate) fn tournament_row<R>(r: &R) -> Result<NewTournament>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "reading an evening";
    Ok(NewTournament {
        id: get(r, 0, DOING)?,
        base: get(r, 1, DOING)?,
        settings: get(r, 2, DOING)?,
        created_ms: get(r, 3, DOING)?,
    })
}

pub(crate) fn log_row<R>(r: &R) -> Result<TournamentLogRow>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "reading an evening's log";
    Ok(TournamentLogRow {
        seq: get(r, 0, DOING)?,
        json: get(r, 1, DOING)?,
    })
}

pub(crate) fn token_row<R>(r: &R) -> Result<TournamentToken>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> Option<String>: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "reading an evening's tokens";
    Ok(TournamentToken {
        token_hash: get(r, 0, DOING)?,
        tournament_id: get(r, 1, DOING)?,
        role: get(r, 2, DOING)?,
        player: get(r, 3, DOING)?,
    })
}

//! Blitz evenings (issue 21): the rows, the statements and the store methods, written
//! once for both backends (the methods as a macro expanded in each `impl Store`).
//!
//! An evening is its base (the events library's event as created, JSON) and its log,
//! one row per change in order; the server replays the log to load it. Everything a
//! change brings with it (the log rows, new players' token hashes, the games of a round
//! paired with `play: "server"` and their links to the evening) is written by
//! [`crate::Store::tournament_commit`] in one transaction.

use sqlx::{ColumnIndex, Database, Decode, Encode, QueryBuilder, Row, Type};

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

    pub(crate) fn insert_tournament_log<'q>(
        id: &'q str,
        rows: &'q [TournamentLogRow],
    ) -> QueryBuilder<'q, DB> {
        let mut b = QueryBuilder::new("INSERT INTO tournament_log (tournament_id, seq, json) ");
        b.push_values(rows, |mut row, r| {
            row.push_bind(id)
                .push_bind(r.seq)
                .push_bind(r.json.as_str());
        });
        b
    }

    pub(crate) fn insert_tournament_tokens(rows: &[TournamentToken]) -> QueryBuilder<'_, DB> {
        let mut b = QueryBuilder::new(
            "INSERT INTO tournament_tokens (token_hash, tournament_id, role, player) ",
        );
        b.push_values(rows, |mut row, t| {
            row.push_bind(t.token_hash.as_str())
                .push_bind(t.tournament_id.as_str())
                .push_bind(t.role.as_str())
                .push_bind(t.player.as_deref());
        });
        b
    }

    pub(crate) fn insert_tournament_games<'q>(
        id: &'q str,
        games: &'q [NewGame],
    ) -> QueryBuilder<'q, DB> {
        let mut b = QueryBuilder::new("INSERT INTO tournament_games (game_id, tournament_id) ");
        b.push_values(games, |mut row, g| {
            row.push_bind(g.id.as_str()).push_bind(id);
        });
        b
    }
}

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

/// The store methods of evenings, the same SQL on both backends: expanded inside each
/// backend's `impl Store` (which has `self.pool`, `self.writer` and the `Sql` alias).
macro_rules! tournament_methods {
    () => {
        fn create_tournament<'a>(
            &'a self,
            t: &'a $crate::NewTournament,
            tokens: &'a [$crate::TournamentToken],
        ) -> StoreFuture<'a, ()> {
            Box::pin(async move {
                let mut tx = self
                    .writer
                    .begin()
                    .await
                    .map_err(q("creating an evening"))?;
                Sql::insert_tournament(t)
                    .execute(&mut *tx)
                    .await
                    .map_err(q("creating an evening"))?;
                for chunk in tokens.chunks($crate::tournament::TOURNAMENT_ROWS) {
                    Sql::insert_tournament_tokens(chunk)
                        .build()
                        .execute(&mut *tx)
                        .await
                        .map_err(q("storing an evening's tokens"))?;
                }
                tx.commit().await.map_err(q("creating an evening"))?;
                Ok(())
            })
        }

        fn tournament<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<$crate::NewTournament>> {
            Box::pin(async move {
                let row = Sql::tournament(id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(q("reading an evening"))?;
                row.as_ref()
                    .map($crate::tournament::tournament_row)
                    .transpose()
            })
        }

        fn tournament_log<'a>(
            &'a self,
            id: &'a str,
        ) -> StoreFuture<'a, Vec<$crate::TournamentLogRow>> {
            Box::pin(async move {
                let rows = Sql::tournament_log(id)
                    .fetch_all(&self.pool)
                    .await
                    .map_err(q("reading an evening's log"))?;
                rows.iter().map($crate::tournament::log_row).collect()
            })
        }

        fn tournament_log_after<'a>(
            &'a self,
            id: &'a str,
            seq: i64,
        ) -> StoreFuture<'a, Vec<$crate::TournamentLogRow>> {
            Box::pin(async move {
                let rows = Sql::tournament_log_after(id, seq)
                    .fetch_all(&self.pool)
                    .await
                    .map_err(q("reading an evening's log"))?;
                rows.iter().map($crate::tournament::log_row).collect()
            })
        }

        fn tournament_tokens<'a>(
            &'a self,
            id: &'a str,
        ) -> StoreFuture<'a, Vec<$crate::TournamentToken>> {
            Box::pin(async move {
                let rows = Sql::tournament_tokens(id)
                    .fetch_all(&self.pool)
                    .await
                    .map_err(q("reading an evening's tokens"))?;
                rows.iter().map($crate::tournament::token_row).collect()
            })
        }

        fn tournament_of_game<'a>(&'a self, game_id: &'a str) -> StoreFuture<'a, Option<String>> {
            Box::pin(async move {
                let row = Sql::tournament_of_game(game_id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(q("finding a game's evening"))?;
                row.map(|r| {
                    sqlx::Row::try_get::<String, _>(&r, 0).map_err(q("finding a game's evening"))
                })
                .transpose()
            })
        }

        fn tournament_commit<'a>(&'a self, c: &'a $crate::TournamentCommit) -> StoreFuture<'a, ()> {
            Box::pin(async move {
                if c.is_empty() {
                    return Ok(());
                }
                const DOING: &str = "storing an evening's change";
                let mut tx = self.writer.begin().await.map_err(q(DOING))?;
                // The log rows first: a row another writer (another node) stored first
                // is the conflict to report, before anything else the change brings
                // (its tokens, its games) could clash with what that writer stored.
                for chunk in c.log.chunks($crate::tournament::TOURNAMENT_ROWS) {
                    Sql::insert_tournament_log(&c.tournament_id, chunk)
                        .build()
                        .execute(&mut *tx)
                        .await
                        .map_err($crate::tournament::log_clash(&c.tournament_id))?;
                }
                for chunk in c.games.chunks($crate::tournament::TOURNAMENT_ROWS) {
                    for g in chunk {
                        Sql::insert_game(g)
                            .execute(&mut *tx)
                            .await
                            .map_err(q("creating an evening's game"))?;
                    }
                    Sql::insert_tournament_games(&c.tournament_id, chunk)
                        .build()
                        .execute(&mut *tx)
                        .await
                        .map_err(q(DOING))?;
                }
                for chunk in c.tokens.chunks($crate::tournament::TOURNAMENT_ROWS) {
                    Sql::insert_tournament_tokens(chunk)
                        .build()
                        .execute(&mut *tx)
                        .await
                        .map_err(q(DOING))?;
                }
                // PostgreSQL: the games to abort locked first, in id order (as a fenced
                // commit locks them), so that an event being stored for one is either
                // seen by the abort below (which then fails) or refused by the fence
                // once the abort is stored (issue 32, item 5). SQLite has one writer.
                if self.backend() == "postgres" && !c.abort.is_empty() {
                    let mut ids: Vec<&str> = c.abort.iter().map(String::as_str).collect();
                    ids.sort_unstable();
                    for id in ids {
                        sqlx::query("SELECT 1 FROM games WHERE id = $1 FOR UPDATE")
                            .bind(id)
                            .execute(&mut *tx)
                            .await
                            .map_err(q("locking an evening's game"))?;
                    }
                }
                for id in &c.abort {
                    let done = Sql::abort_tournament_game(id)
                        .execute(&mut *tx)
                        .await
                        .map_err(q("aborting an evening's game"))?;
                    if done.rows_affected() != 1 {
                        return Err($crate::StoreError::Conflict(format!(
                            "game {id} has begun (or is not the evening's to abort)"
                        )));
                    }
                }
                tx.commit().await.map_err(q(DOING))?;
                self.after_commit().await;
                Ok(())
            })
        }
    };
}
pub(crate) use tournament_methods;

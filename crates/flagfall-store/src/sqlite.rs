//! SQLite, the embedded default: its connections, its tuning and its checkpoint loop;
//! the statements are the shared ones of `sql.rs`.

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use flagfall_protocol::ColorName;
use sqlx::Sqlite;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::error::q;
use crate::sql::{self, Bind};
use crate::{
    ChallengeRow, ClockMark, GameRow, GameSummary, NewChallenge, NewEvent, NewGame,
    ROWS_PER_INSERT, Result, Status, Store, StoreError, StoreFuture, StoredEvent,
};

/// The migrations, in order: `(description, SQL)`.
pub(crate) const SCHEMA: &[(&str, &str)] = &[
    ("games", include_str!("../migrations/sqlite/0001_games.sql")),
    (
        "practice challenges",
        include_str!("../migrations/sqlite/0002_practice_challenges.sql"),
    ),
    (
        "clock beats",
        include_str!("../migrations/sqlite/0003_clock_beats.sql"),
    ),
    (
        "server alive",
        include_str!("../migrations/sqlite/0004_server_alive.sql"),
    ),
    (
        "tournaments",
        include_str!("../migrations/sqlite/0005_tournaments.sql"),
    ),
    (
        "rematches",
        include_str!("../migrations/sqlite/0006_rematches.sql"),
    ),
];

/// The embedded default: one SQLite file in WAL mode, `synchronous=FULL` (a commit is
/// on disk before it is acknowledged).
///
/// Every write goes through one connection of its own (`writer`): SQLite has one writer
/// at a time anyway, and a connection's page cache survives only its own writes (another
/// connection's commit invalidates it), so the leaf pages of the live games stay in the
/// writer's memory. Reads use a small pool beside it. Nearly every group commit is one
/// multi-row `INSERT` in autocommit mode (one round trip to the connection's thread);
/// its statement journal is kept in memory.
///
/// WAL checkpoints never run inside a commit (`wal_autocheckpoint=0`): every 500 ms a
/// background task copies committed pages into the database file (`PASSIVE` passes,
/// beside the writer), and when the passes leave at most a few hundred frames (or the
/// WAL has outgrown 64 MiB) the writer, between two commits, copies the rest itself, so
/// the WAL is wholly checkpointed and the next commit starts it again from its
/// beginning. SQLite starts the WAL again only in a write transaction that began after
/// a complete checkpoint; under a continuous stream of commits that never happens by
/// itself, and the WAL file grew without end.
pub struct SqliteStore {
    pool: SqlitePool,
    writer: SqlitePool,
    /// Set by the background checkpoint after each pass; taken by the writer.
    checkpointed: Arc<AtomicBool>,
}

/// The WAL file is cut back to this size when it starts again (`journal_size_limit`).
const WAL_SIZE_LIMIT: &str = "67108864";

impl SqliteStore {
    /// `sqlite:PATH`, `sqlite://PATH` or a bare path; created if missing.
    pub async fn open(url: &str) -> Result<SqliteStore> {
        let path = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url);
        if path.is_empty() {
            return Err(StoreError::Url {
                url: url.to_string(),
                message: "no file named".into(),
            });
        }
        let opts = SqliteConnectOptions::from_str(&format!("sqlite:{path}"))
            .map_err(|e| StoreError::Url {
                url: url.to_string(),
                message: e.to_string(),
            })?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .pragma("wal_autocheckpoint", "0")
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        // The writer first: it creates the file and runs the migrations.
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            // Never closed for idleness: its page cache is the point.
            .idle_timeout(None)
            .max_lifetime(None)
            // No ping before each use: a commit is then one round trip to the
            // connection's thread, not two. A broken connection fails the commit, which
            // the writer reports to the games it carried.
            .test_before_acquire(false)
            .connect_with(
                opts.clone()
                    // 64 MiB of page cache (the default is 2 MB): thousands of live
                    // games append to as many leaf pages, which would otherwise be read
                    // back from the file again and again.
                    .pragma("cache_size", "-65536")
                    // A multi-row INSERT keeps a statement journal (to undo itself if a
                    // row fails); in memory, not a temporary file.
                    .pragma("temp_store", "memory")
                    .pragma("journal_size_limit", WAL_SIZE_LIMIT),
            )
            .await
            .map_err(StoreError::Open)?;
        sql::migrator(SCHEMA).run(&writer).await?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await
            .map_err(StoreError::Open)?;
        let checkpointed = Arc::new(AtomicBool::new(false));
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(checkpoint_wal(pool.clone(), checkpointed.clone()));
        }
        Ok(SqliteStore {
            pool,
            writer,
            checkpointed,
        })
    }

    /// After a commit: if a background pass has run since the last time, checkpoint
    /// what is left on the writer's own connection (see [`SqliteStore`]). A failure is
    /// logged, not returned: the commit it follows is durable already.
    async fn after_commit(&self) {
        if !self.checkpointed.swap(false, Ordering::AcqRel) {
            return;
        }
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&self.writer)
            .await
        {
            tracing::warn!(error = %e, "finishing a WAL checkpoint failed");
        }
    }
}

/// How often the background checkpoint copies committed WAL pages into the database.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// Background passes in a row at most: each copies what the writer committed during the
/// one before, so the rest shrinks quickly unless the writer outpaces the copying.
const CHECKPOINT_PASSES: usize = 4;

/// The WAL size, in frames, past which the writer finishes a checkpoint whatever it
/// costs (a frame is a 4 KiB page and its header).
const WAL_FRAMES_LIMIT: i64 = 16_384;

/// WAL frames left uncopied that the writer may finish between two commits (a pass that
/// small takes well under a millisecond); larger rests wait for more background passes.
const FINISH_AT_MOST: i64 = 256;

/// Copy committed WAL pages into the database file every [`CHECKPOINT_EVERY`], on a
/// connection of the read pool, beside the writer (`PASSIVE`: it never waits for or
/// blocks a commit). When the passes leave a small rest, tell the writer to finish it.
/// Ends when the pool is closed.
async fn checkpoint_wal(pool: SqlitePool, checkpointed: Arc<AtomicBool>) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        for _ in 0..CHECKPOINT_PASSES {
            if pool.is_closed() {
                return;
            }
            // One row: busy, frames in the WAL, frames copied.
            let pass = sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(PASSIVE)")
                .fetch_all(&pool)
                .await;
            match pass.as_deref() {
                Ok([(_, log, copied)]) => {
                    // Even with nothing left the writer has to check: it most likely
                    // began its next commit before the pass ended, and that commit
                    // added frames. A large rest waits for another pass, unless the
                    // WAL has outgrown its limit.
                    let rest = log - copied;
                    if rest <= FINISH_AT_MOST || *log > WAL_FRAMES_LIMIT {
                        checkpointed.store(true, Ordering::Release);
                        break;
                    }
                }
                Ok(rows) => {
                    tracing::warn!(rows = rows.len(), "WAL checkpoint answered oddly");
                    break;
                }
                Err(e) => {
                    if pool.is_closed() {
                        return;
                    }
                    tracing::warn!(error = %e, "WAL checkpoint failed; retrying");
                    break;
                }
            }
        }
    }
}

type Sql = Bind<Sqlite>;

impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    fn create_game<'a>(&'a self, g: &'a NewGame) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            Sql::insert_game(g)
                .execute(&self.writer)
                .await
                .map_err(q("creating a game"))?;
            Ok(())
        })
    }

    fn game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<GameRow>> {
        Box::pin(async move {
            let row = Sql::game(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(q("reading a game"))?;
            row.as_ref().map(sql::game_row).transpose()
        })
    }

    fn events<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<StoredEvent>> {
        Box::pin(async move {
            let rows = Sql::events(id)
                .fetch_all(&self.pool)
                .await
                .map_err(q("reading events"))?;
            rows.iter().map(sql::stored_event).collect()
        })
    }

    fn append<'a>(&'a self, batch: &'a [NewEvent]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if batch.is_empty() {
                return Ok(());
            }
            // The common case, one statement: a statement is a transaction of its own
            // (all its rows or none), and one round trip to the database instead of
            // three (BEGIN, INSERT, COMMIT).
            if batch.len() <= ROWS_PER_INSERT && batch.iter().all(|e| e.finished.is_none()) {
                Sql::insert_events(batch)
                    .build()
                    .execute(&self.writer)
                    .await
                    .map_err(q("appending events"))?;
                self.after_commit().await;
                return Ok(());
            }
            let mut tx = self.writer.begin().await.map_err(q("starting a commit"))?;
            for chunk in batch.chunks(ROWS_PER_INSERT) {
                Sql::insert_events(chunk)
                    .build()
                    .execute(&mut *tx)
                    .await
                    .map_err(q("appending events"))?;
            }
            for e in batch {
                if let Some(result) = e.finished {
                    Sql::finish_game(&e.game_id, result)
                        .execute(&mut *tx)
                        .await
                        .map_err(q("finishing a game"))?;
                }
            }
            tx.commit().await.map_err(q("committing events"))?;
            self.after_commit().await;
            Ok(())
        })
    }

    fn list<'a>(&'a self, status: Option<Status>, limit: i64) -> StoreFuture<'a, Vec<GameSummary>> {
        Box::pin(async move {
            let rows = Sql::list(status, limit)
                .fetch_all(&self.pool)
                .await
                .map_err(q("listing games"))?;
            Ok(sql::readable(&rows, sql::game_summary, "games"))
        })
    }

    fn live_ids(&self) -> StoreFuture<'_, Vec<String>> {
        Box::pin(async move {
            let rows = Sql::live_ids()
                .fetch_all(&self.pool)
                .await
                .map_err(q("listing live games"))?;
            rows.iter()
                .map(|r| sqlx::Row::try_get::<String, _>(r, 0).map_err(q("listing live games")))
                .collect()
        })
    }

    fn create_challenge<'a>(&'a self, c: &'a NewChallenge) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            Sql::insert_challenge(c)
                .execute(&self.writer)
                .await
                .map_err(q("creating a challenge"))?;
            Ok(())
        })
    }

    fn challenge<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ChallengeRow>> {
        Box::pin(async move {
            let row = Sql::challenge(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(q("reading a challenge"))?;
            row.as_ref().map(sql::challenge_row).transpose()
        })
    }

    fn open_challenges<'a>(
        &'a self,
        since_ms: i64,
        limit: i64,
    ) -> StoreFuture<'a, Vec<ChallengeRow>> {
        Box::pin(async move {
            let rows = Sql::open_challenges(since_ms, limit)
                .fetch_all(&self.pool)
                .await
                .map_err(q("listing challenges"))?;
            Ok(sql::readable(&rows, sql::challenge_row, "challenges"))
        })
    }

    fn accept_challenge<'a>(
        &'a self,
        id: &'a str,
        creator_color: ColorName,
        g: &'a NewGame,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut tx = self
                .writer
                .begin()
                .await
                .map_err(q("accepting a challenge"))?;
            // The game first (the challenge row refers to it), then the conditional
            // UPDATE: if the challenge is no longer open, the whole transaction, game
            // included, is rolled back.
            Sql::insert_game(g)
                .execute(&mut *tx)
                .await
                .map_err(q("creating a challenge's game"))?;
            let done = Sql::accept_challenge(id, &g.id, creator_color)
                .execute(&mut *tx)
                .await
                .map_err(q("accepting a challenge"))?;
            if done.rows_affected() != 1 {
                tx.rollback().await.map_err(q("accepting a challenge"))?;
                return Ok(false);
            }
            tx.commit().await.map_err(q("accepting a challenge"))?;
            Ok(true)
        })
    }

    fn cancel_challenge<'a>(&'a self, id: &'a str, secret_hash: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = Sql::cancel_challenge(id, secret_hash)
                .execute(&self.writer)
                .await
                .map_err(q("cancelling a challenge"))?;
            Ok(done.rows_affected() == 1)
        })
    }
    fn abort_game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = Sql::abort_game(id)
                .execute(&self.writer)
                .await
                .map_err(q("aborting a game"))?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn abort_unstarted<'a>(&'a self, before_ms: i64) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let done = Sql::abort_unstarted(before_ms)
                .execute(&self.writer)
                .await
                .map_err(q("aborting games never started"))?;
            Ok(done.rows_affected())
        })
    }

    fn alive<'a>(
        &'a self,
        run: &'a str,
        started_ms: i64,
        now_ms: i64,
        marks: &'a [ClockMark],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            // The common case, no mark: one single-row statement, its own transaction.
            if marks.is_empty() {
                Sql::server_alive(run, started_ms, now_ms)
                    .execute(&self.writer)
                    .await
                    .map_err(q("storing the heartbeat"))?;
                return Ok(());
            }
            let mut tx = self
                .writer
                .begin()
                .await
                .map_err(q("starting a heartbeat"))?;
            // The run's row first: the marks refer to it.
            Sql::server_alive(run, started_ms, now_ms)
                .execute(&mut *tx)
                .await
                .map_err(q("storing the heartbeat"))?;
            for chunk in marks.chunks(ROWS_PER_INSERT) {
                Sql::insert_marks(run, chunk)
                    .build()
                    .execute(&mut *tx)
                    .await
                    .map_err(q("storing clock marks"))?;
            }
            tx.commit().await.map_err(q("committing a heartbeat"))?;
            Ok(())
        })
    }

    fn last_beat<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<i64>> {
        Box::pin(async move {
            let row = Sql::last_beat(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(q("reading a heartbeat"))?;
            row.as_ref().map(sql::clock_reached).transpose()
        })
    }

    crate::tournament::tournament_methods!();
    crate::rematch::rematch_methods!();
}

#[cfg(test)]
#[path = "sqlite_tests.rs"]
mod tests;

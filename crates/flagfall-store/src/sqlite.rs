//! SQLite, the embedded default: its connections, its tuning and its checkpoint loop,
//! and its few differences ([`Backend`]); the store itself is `backend.rs`'s, written
//! once for both databases, with the statements of `sql.rs`.

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteQueryResult,
    SqliteSynchronous,
};
use sqlx::{Sqlite, SqliteConnection};

use crate::backend::{Backend, SqlStore};
use crate::error::q;
use crate::sql::{self, Bind};
use crate::{ClockMark, ROWS_PER_INSERT, Result, StoreError};

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
pub type SqliteStore = SqlStore<SqliteBackend>;

/// SQLite's own part of a [`SqliteStore`].
pub struct SqliteBackend {
    /// Set by the background checkpoint after each pass; taken by the writer.
    checkpointed: Arc<AtomicBool>,
}

/// The WAL file is cut back to this size when it starts again (`journal_size_limit`).
const WAL_SIZE_LIMIT: &str = "67108864";

impl SqlStore<SqliteBackend> {
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
            own: SqliteBackend { checkpointed },
        })
    }

    /// After a commit: if a background pass has run since the last time, checkpoint
    /// what is left on the writer's own connection (see [`SqliteStore`]). A failure is
    /// logged, not returned: the commit it follows is durable already.
    async fn after_commit(&self) {
        if !self.own.checkpointed.swap(false, Ordering::AcqRel) {
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

impl Backend for SqliteBackend {
    type DB = Sqlite;
    const NAME: &'static str = "sqlite";
    const PLACEHOLDERS: crate::sql::Placeholders = crate::sql::Placeholders::Anonymous;

    fn rows_affected(done: &SqliteQueryResult) -> u64 {
        done.rows_affected()
    }

    async fn after_commit(store: &SqliteStore) {
        store.after_commit().await
    }

    async fn store_marks<'c>(
        conn: &'c mut SqliteConnection,
        run: &'c str,
        marks: &'c [ClockMark],
    ) -> Result<()> {
        for chunk in marks.chunks(ROWS_PER_INSERT) {
            Bind::<Sqlite>::insert_marks(run, chunk)
                .build()
                .execute(&mut *conn)
                .await
                .map_err(q("storing clock marks"))?;
        }
        Ok(())
    }

    /// One writer at a time: nothing to lock.
    async fn lock_games<'c>(_conn: &'c mut SqliteConnection, _ids: &'c [String]) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
#[path = "sqlite_tests.rs"]
mod tests;

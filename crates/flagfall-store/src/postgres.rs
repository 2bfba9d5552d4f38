//! PostgreSQL: its pool; the statements are the shared ones of `sql.rs`.

use std::str::FromStr;
use std::time::Duration;

use flagfall_protocol::ColorName;
use sqlx::Postgres;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::error::q;
use crate::sql::{self, Bind};
use crate::{
    ChallengeRow, ClockMark, GameRow, GameSummary, Lease, LeaseRow, NewChallenge, NewEvent,
    NewGame, ROWS_PER_INSERT, Result, Status, Store, StoreError, StoreFuture, StoredEvent,
};

/// The migrations, in order: `(description, SQL)`.
pub(crate) const SCHEMA: &[(&str, &str)] = &[
    (
        "games",
        include_str!("../migrations/postgres/0001_games.sql"),
    ),
    (
        "practice challenges",
        include_str!("../migrations/postgres/0002_practice_challenges.sql"),
    ),
    (
        "clock beats",
        include_str!("../migrations/postgres/0003_clock_beats.sql"),
    ),
    (
        "server alive",
        include_str!("../migrations/postgres/0004_server_alive.sql"),
    ),
    (
        "tournaments",
        include_str!("../migrations/postgres/0005_tournaments.sql"),
    ),
    (
        "rematches",
        include_str!("../migrations/postgres/0006_rematches.sql"),
    ),
    (
        "leases",
        include_str!("../migrations/postgres/0007_leases.sql"),
    ),
    (
        "fence in one statement",
        include_str!("../migrations/postgres/0008_fence_in_one_statement.sql"),
    ),
];

/// PostgreSQL: a database server of its own. Several flagfall servers share one only as a
/// cluster (docs/cluster.md), whose leases (`lease.rs`) decide which one serves a game;
/// two servers outside a cluster would each load a game and number its events on their
/// own.
pub struct PgStore {
    pub(crate) pool: PgPool,
    /// The same pool: PostgreSQL takes concurrent writers.
    pub(crate) writer: PgPool,
    /// A cluster node's lease renewals and takeover scans (`lease.rs`), on connections
    /// of their own: a node busy loading thousands of games must not keep its renewal
    /// waiting for a connection past its lease. Opened on first use (lazily), so a
    /// single node opens none.
    pub(crate) leases: PgPool,
}

impl PgStore {
    pub async fn open(url: &str) -> Result<PgStore> {
        let opts =
            session_options(
                PgConnectOptions::from_str(url).map_err(|e| StoreError::Url {
                    url: url.to_string(),
                    message: e.to_string(),
                })?,
            );
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(opts.clone())
            .await
            .map_err(StoreError::Open)?;
        sql::migrator(SCHEMA).run(&pool).await?;
        // Deadlines (issue 32): a renewal or a scan that cannot have a connection or an
        // answer within a second gives up (the node tries again at its next tick, and
        // stops acting when its validity runs out); the server ends a statement of
        // theirs that runs longer (a lock wait included), so none is left holding rows.
        let leases = PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(LEASES_DEADLINE)
            .connect_lazy_with(
                opts.options([("statement_timeout", "1000"), ("lock_timeout", "1000")]),
            );
        Ok(PgStore {
            writer: pool.clone(),
            pool,
            leases,
        })
    }

    pub(crate) async fn after_commit(&self) {}
}

/// The most a lease statement (a renewal, a takeover scan) may take, from asking for a
/// connection to its answer: the shortest lease a node may have (`--lease-ms 1000`).
const LEASES_DEADLINE: Duration = Duration::from_millis(1000);

/// Every session's settings. `idle_in_transaction_session_timeout`: a node cut off in
/// the middle of a transaction (a fenced commit holds its games' lease rows `FOR SHARE`)
/// has its session ended by the server after 5 s, so that its locks keep no other node
/// from taking its games over for longer.
pub(crate) fn session_options(opts: PgConnectOptions) -> PgConnectOptions {
    opts.options([("idle_in_transaction_session_timeout", "5s")])
}

type Sql = Bind<Postgres>;

impl Store for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
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
            // Fenced by their lease epochs (`lease.rs`): a node that lost a game cannot
            // overwrite the mark of the node that took it over.
            crate::lease::fenced_marks(run, marks)
                .execute(&mut *tx)
                .await
                .map_err(q("storing clock marks"))?;
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

    fn lease_claim<'a>(
        &'a self,
        id: &'a str,
        node: &'a str,
        lease_ms: i64,
    ) -> StoreFuture<'a, Option<i64>> {
        Box::pin(self.claim(id, node, lease_ms))
    }

    fn lease_of<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<LeaseRow>> {
        Box::pin(self.lease_row(id))
    }

    fn lease_renew<'a>(&'a self, node: &'a str, lease_ms: i64) -> StoreFuture<'a, Vec<Lease>> {
        Box::pin(self.renew(node, lease_ms))
    }

    fn lease_release<'a>(&'a self, id: &'a str, node: &'a str, epoch: i64) -> StoreFuture<'a, ()> {
        Box::pin(self.release(id, node, epoch))
    }

    fn lease_take_over<'a>(
        &'a self,
        node: &'a str,
        lease_ms: i64,
        limit: i64,
    ) -> StoreFuture<'a, Vec<Lease>> {
        Box::pin(self.take_over(node, lease_ms, limit))
    }

    fn append_fenced<'a>(
        &'a self,
        batch: &'a [NewEvent],
        node: &'a str,
        epochs: &'a [i64],
    ) -> StoreFuture<'a, Vec<Lease>> {
        Box::pin(self.fenced_append(batch, node, epochs))
    }

    crate::tournament::tournament_methods!();
    crate::rematch::rematch_methods!();
}

#[cfg(test)]
#[path = "postgres_tests.rs"]
mod tests;

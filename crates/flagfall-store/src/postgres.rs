//! PostgreSQL: its pools and its few differences ([`Backend`]: fenced clock marks, the
//! row locks of an evening's abort, the cluster's leases of `lease.rs`); the store itself
//! is `backend.rs`'s, written once for both databases, with the statements of `sql.rs`.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgQueryResult};
use sqlx::{PgConnection, Postgres};

use crate::backend::{Backend, SqlStore};
use crate::error::q;
use crate::sql;
use crate::{ClockMark, Lease, LeaseRow, NewEvent, Result, StoreError, StoreFuture, Unleased};

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
/// Its writer is the same pool as its reads: PostgreSQL takes concurrent writers.
pub type PgStore = SqlStore<PgBackend>;

/// PostgreSQL's own part of a [`PgStore`].
pub struct PgBackend {
    /// A cluster node's lease renewals and takeover scans (`lease.rs`), on connections
    /// of their own: a node busy loading thousands of games must not keep its renewal
    /// waiting for a connection past its lease. Opened on first use (lazily), so a
    /// single node opens none.
    pub(crate) leases: PgPool,
    /// A cluster node's fenced commits (`lease.rs`), on connections that plan a
    /// statement once (`plan_cache_mode = force_generic_plan`): PostgreSQL would
    /// otherwise plan the fenced commit anew for nearly every commit (a plan that knows
    /// the arrays' lengths always looks cheaper than one that does not), and planning
    /// it cost more than running it. Opened on first use, so a single node opens none.
    pub(crate) fenced: PgPool,
}

impl SqlStore<PgBackend> {
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
                opts.clone()
                    .options([("statement_timeout", "1000"), ("lock_timeout", "1000")]),
            );
        let fenced = fenced_pool(opts, 2);
        Ok(PgStore {
            writer: pool.clone(),
            pool,
            own: PgBackend { leases, fenced },
        })
    }
}

/// The most a lease statement (a renewal, a takeover scan) may take, from asking for a
/// connection to its answer: the shortest lease a node may have (`--lease-ms 1000`).
const LEASES_DEADLINE: Duration = Duration::from_millis(1000);

/// The pool of a node's fenced commits ([`PgBackend::fenced`]): at most `max`
/// connections, opened on first use, each planning a statement once.
pub(crate) fn fenced_pool(opts: PgConnectOptions, max: u32) -> PgPool {
    PgPoolOptions::new()
        .max_connections(max)
        .acquire_timeout(Duration::from_secs(10))
        .connect_lazy_with(opts.options([("plan_cache_mode", "force_generic_plan")]))
}

/// Every session's settings. `idle_in_transaction_session_timeout`: a node cut off in
/// the middle of a transaction (a fenced commit holds its games' lease rows `FOR SHARE`)
/// has its session ended by the server after 5 s, so that its locks keep no other node
/// from taking its games over for longer.
pub(crate) fn session_options(opts: PgConnectOptions) -> PgConnectOptions {
    opts.options([("idle_in_transaction_session_timeout", "5s")])
}

impl Backend for PgBackend {
    type DB = Postgres;
    const NAME: &'static str = "postgres";

    fn rows_affected(done: &PgQueryResult) -> u64 {
        done.rows_affected()
    }

    /// Nothing to do after a commit.
    async fn after_commit(_store: &PgStore) {}

    /// The leases' own pool.
    async fn close(store: &PgStore) {
        store.own.leases.close().await;
    }

    /// Fenced by their lease epochs (`lease.rs`): a node that lost a game cannot
    /// overwrite the mark of the node that took it over.
    async fn store_marks<'c>(
        conn: &'c mut PgConnection,
        run: &'c str,
        marks: &'c [ClockMark],
    ) -> Result<()> {
        crate::lease::fenced_marks(run, marks)
            .execute(conn)
            .await
            .map_err(q("storing clock marks"))?;
        Ok(())
    }

    /// In id order, as a fenced commit locks them.
    async fn lock_games<'c>(conn: &'c mut PgConnection, ids: &'c [String]) -> Result<()> {
        let mut ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        ids.sort_unstable();
        for id in ids {
            sqlx::query("SELECT 1 FROM games WHERE id = $1 FOR UPDATE")
                .bind(id)
                .execute(&mut *conn)
                .await
                .map_err(q("locking an evening's game"))?;
        }
        Ok(())
    }

    fn lease_claim<'a>(
        store: &'a PgStore,
        id: &'a str,
        node: &'a str,
        lease_ms: i64,
    ) -> StoreFuture<'a, Option<i64>> {
        Box::pin(store.claim(id, node, lease_ms))
    }

    fn lease_of<'a>(store: &'a PgStore, id: &'a str) -> StoreFuture<'a, Option<LeaseRow>> {
        Box::pin(store.lease_row(id))
    }

    fn lease_renew<'a>(
        store: &'a PgStore,
        node: &'a str,
        lease_ms: i64,
    ) -> StoreFuture<'a, Vec<Lease>> {
        Box::pin(store.renew(node, lease_ms))
    }

    fn lease_release<'a>(
        store: &'a PgStore,
        id: &'a str,
        node: &'a str,
        epoch: i64,
    ) -> StoreFuture<'a, ()> {
        Box::pin(store.release(id, node, epoch))
    }

    fn lease_take_over<'a>(
        store: &'a PgStore,
        node: &'a str,
        lease_ms: i64,
        limit: i64,
        unleased: Unleased,
    ) -> StoreFuture<'a, Vec<Lease>> {
        Box::pin(store.take_over(node, lease_ms, limit, unleased))
    }

    fn append_fenced<'a>(
        store: &'a PgStore,
        batch: &'a [NewEvent],
        node: &'a str,
        epochs: &'a [i64],
    ) -> StoreFuture<'a, Vec<Lease>> {
        Box::pin(store.fenced_append(batch, node, epochs))
    }
}

#[cfg(test)]
#[path = "postgres_tests.rs"]
mod tests;

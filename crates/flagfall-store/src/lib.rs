//! flagfall-store: durable storage of live and finished games.
//!
//! The schema is a `games` row per game and an `events` log per game
//! (`(game_id, n, json)`; `n` counts from 1, `json` is the game-script event exactly as
//! stored). One [`Store`] trait, two implementations: SQLite (the embedded default, WAL,
//! `synchronous=FULL`) and PostgreSQL. Schema migrations run on [`open`]
//! (`migrations/{sqlite,postgres}`). Queries are built at run time (`sqlx::query`), so
//! no database is needed to build.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Postgres, QueryBuilder, Row, Sqlite};

/// A storage failure, with what was being done.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database URL {url:?}: {message}")]
    Url { url: String, message: String },
    #[error("cannot open the database: {0}")]
    Open(sqlx::Error),
    #[error("schema migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("database error while {doing}: {source}")]
    Query {
        doing: &'static str,
        source: sqlx::Error,
    },
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
}

fn q(doing: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |source| StoreError::Query { doing, source }
}

pub type Result<T> = std::result::Result<T, StoreError>;
/// The futures the trait returns (object safe, `Send`).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// Whether a game goes on or has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Live,
    Finished,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Live => "live",
            Status::Finished => "finished",
        }
    }

    fn parse(s: &str) -> Result<Status> {
        match s {
            "live" => Ok(Status::Live),
            "finished" => Ok(Status::Finished),
            other => Err(StoreError::Corrupt(format!(
                "unknown game status {other:?}"
            ))),
        }
    }
}

/// A game as created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGame {
    pub id: String,
    /// The game-script setup line.
    pub setup: String,
    pub mode: String,
    /// Hex SHA-256 of each token (the tokens themselves are never stored).
    pub token_white: String,
    pub token_black: String,
    pub token_director: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// A stored game row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRow {
    pub game: NewGame,
    pub status: Status,
    pub result: String,
}

/// An event to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    pub game_id: String,
    /// 1-based number in the game's log.
    pub n: i64,
    /// The game-script event, one JSON object.
    pub json: String,
    /// The role that sent it (`white`, `black`, `director`; none for the server's own).
    pub by_role: Option<String>,
    /// The client's `id`, kept so a retried action is recognised after a restart.
    pub client_id: Option<String>,
    /// Set when this event ends the game: the result to record on the game row.
    pub finished: Option<String>,
}

/// A stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    pub n: i64,
    pub json: String,
    pub by_role: Option<String>,
    pub client_id: Option<String>,
}

/// A line of the game list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    pub id: String,
    pub mode: String,
    pub status: Status,
    pub result: String,
    pub created_ms: i64,
}

/// Durable storage of games. Every method is one transaction.
pub trait Store: Send + Sync {
    /// Which backend this is (`sqlite` or `postgres`).
    fn backend(&self) -> &'static str;
    fn create_game<'a>(&'a self, game: &'a NewGame) -> StoreFuture<'a, ()>;
    fn game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<GameRow>>;
    /// The game's events in order.
    fn events<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<StoredEvent>>;
    /// Append events of any games in one transaction (group commit), marking the games
    /// that finished. All or nothing.
    fn append<'a>(&'a self, batch: &'a [NewEvent]) -> StoreFuture<'a, ()>;
    /// Games by status (all when `None`), newest first, at most `limit`.
    fn list<'a>(&'a self, status: Option<Status>, limit: i64) -> StoreFuture<'a, Vec<GameSummary>>;
}

/// Open the database a URL names, creating it (SQLite) and running migrations.
/// `postgres://` or `postgresql://` is PostgreSQL; `sqlite:PATH` or a bare path is SQLite.
pub async fn open(url: &str) -> Result<Arc<dyn Store>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::open(url).await?))
    } else {
        Ok(Arc::new(SqliteStore::open(url).await?))
    }
}

fn migrator(backend: &'static str, sql: &'static str) -> Migrator {
    let _ = backend;
    Migrator {
        migrations: Cow::Owned(vec![Migration::new(
            1,
            Cow::Borrowed("games"),
            MigrationType::Simple,
            Cow::Borrowed(sql),
            false,
        )]),
        ..Migrator::DEFAULT
    }
}

const SQLITE_SCHEMA: &str = include_str!("../migrations/sqlite/0001_games.sql");
const POSTGRES_SCHEMA: &str = include_str!("../migrations/postgres/0001_games.sql");

/// Rows per INSERT statement (well under either backend's bind-parameter limit).
const ROWS_PER_INSERT: usize = 200;

macro_rules! store_impl {
    ($ty:ty, $db:ty, $name:literal, $ph:expr) => {
        impl Store for $ty {
            fn backend(&self) -> &'static str {
                $name
            }

            fn create_game<'a>(&'a self, g: &'a NewGame) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    let sql = format!(
                        "INSERT INTO games (id, setup, mode, token_white, token_black, token_director, created_ms) VALUES ({})",
                        (1..=7).map($ph).collect::<Vec<_>>().join(", ")
                    );
                    sqlx::query(&sql)
                        .bind(&g.id)
                        .bind(&g.setup)
                        .bind(&g.mode)
                        .bind(&g.token_white)
                        .bind(&g.token_black)
                        .bind(&g.token_director)
                        .bind(g.created_ms)
                        .execute(&self.pool)
                        .await
                        .map_err(q("creating a game"))?;
                    Ok(())
                })
            }

            fn game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<GameRow>> {
                Box::pin(async move {
                    let sql = format!(
                        "SELECT id, setup, mode, token_white, token_black, token_director, created_ms, status, result FROM games WHERE id = {}",
                        $ph(1)
                    );
                    let row = sqlx::query(&sql)
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(q("reading a game"))?;
                    let Some(row) = row else { return Ok(None) };
                    let get = |i: usize| -> Result<String> {
                        row.try_get::<String, _>(i).map_err(q("reading a game"))
                    };
                    Ok(Some(GameRow {
                        game: NewGame {
                            id: get(0)?,
                            setup: get(1)?,
                            mode: get(2)?,
                            token_white: get(3)?,
                            token_black: get(4)?,
                            token_director: get(5)?,
                            created_ms: row.try_get::<i64, _>(6).map_err(q("reading a game"))?,
                        },
                        status: Status::parse(&get(7)?)?,
                        result: get(8)?,
                    }))
                })
            }

            fn events<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<StoredEvent>> {
                Box::pin(async move {
                    let sql = format!(
                        "SELECT n, json, by_role, client_id FROM events WHERE game_id = {} ORDER BY n",
                        $ph(1)
                    );
                    let rows = sqlx::query(&sql)
                        .bind(id)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(q("reading events"))?;
                    rows.iter()
                        .map(|r| {
                            Ok(StoredEvent {
                                n: r.try_get(0).map_err(q("reading events"))?,
                                json: r.try_get(1).map_err(q("reading events"))?,
                                by_role: r.try_get(2).map_err(q("reading events"))?,
                                client_id: r.try_get(3).map_err(q("reading events"))?,
                            })
                        })
                        .collect()
                })
            }

            fn append<'a>(&'a self, batch: &'a [NewEvent]) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    if batch.is_empty() {
                        return Ok(());
                    }
                    let mut tx = self.pool.begin().await.map_err(q("starting a commit"))?;
                    for chunk in batch.chunks(ROWS_PER_INSERT) {
                        let mut b = QueryBuilder::<$db>::new(
                            "INSERT INTO events (game_id, n, json, by_role, client_id) ",
                        );
                        b.push_values(chunk, |mut row, e| {
                            row.push_bind(&e.game_id)
                                .push_bind(e.n)
                                .push_bind(&e.json)
                                .push_bind(&e.by_role)
                                .push_bind(&e.client_id);
                        });
                        b.build()
                            .execute(&mut *tx)
                            .await
                            .map_err(q("appending events"))?;
                    }
                    let sql = format!(
                        "UPDATE games SET status = 'finished', result = {} WHERE id = {}",
                        $ph(1),
                        $ph(2)
                    );
                    for e in batch {
                        if let Some(result) = &e.finished {
                            sqlx::query(&sql)
                                .bind(result)
                                .bind(&e.game_id)
                                .execute(&mut *tx)
                                .await
                                .map_err(q("finishing a game"))?;
                        }
                    }
                    tx.commit().await.map_err(q("committing events"))?;
                    Ok(())
                })
            }

            fn list<'a>(
                &'a self,
                status: Option<Status>,
                limit: i64,
            ) -> StoreFuture<'a, Vec<GameSummary>> {
                Box::pin(async move {
                    let rows = match status {
                        Some(s) => {
                            let sql = format!(
                                "SELECT id, mode, status, result, created_ms FROM games WHERE status = {} ORDER BY created_ms DESC, id LIMIT {}",
                                $ph(1),
                                $ph(2)
                            );
                            sqlx::query(&sql)
                                .bind(s.as_str())
                                .bind(limit)
                                .fetch_all(&self.pool)
                                .await
                        }
                        None => {
                            let sql = format!(
                                "SELECT id, mode, status, result, created_ms FROM games ORDER BY created_ms DESC, id LIMIT {}",
                                $ph(1)
                            );
                            sqlx::query(&sql).bind(limit).fetch_all(&self.pool).await
                        }
                    }
                    .map_err(q("listing games"))?;
                    rows.iter()
                        .map(|r| {
                            let status: String = r.try_get(2).map_err(q("listing games"))?;
                            Ok(GameSummary {
                                id: r.try_get(0).map_err(q("listing games"))?,
                                mode: r.try_get(1).map_err(q("listing games"))?,
                                status: Status::parse(&status)?,
                                result: r.try_get(3).map_err(q("listing games"))?,
                                created_ms: r.try_get(4).map_err(q("listing games"))?,
                            })
                        })
                        .collect()
                })
            }
        }
    };
}

/// The embedded default: one SQLite file in WAL mode, `synchronous=FULL` (a commit is
/// on disk before it is acknowledged).
pub struct SqliteStore {
    pool: SqlitePool,
}

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
            // Checkpoints run in the background (below), never inside a commit: an
            // automatic checkpoint copies up to 1000 pages into the database file and
            // syncs it in the middle of whichever commit crossed the threshold.
            .pragma("wal_autocheckpoint", "0")
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await
            .map_err(StoreError::Open)?;
        migrator("sqlite", SQLITE_SCHEMA).run(&pool).await?;
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(checkpoint_wal(pool.clone()));
        }
        Ok(SqliteStore { pool })
    }
}

/// How often the background checkpoint copies committed WAL pages into the database.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// Copy committed WAL pages into the database file every [`CHECKPOINT_EVERY`], on a
/// connection of its own, beside the writer (`PASSIVE`: it never waits for or blocks a
/// commit). Ends when the pool is closed.
async fn checkpoint_wal(pool: SqlitePool) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if pool.is_closed() {
            return;
        }
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&pool)
            .await
        {
            if pool.is_closed() {
                return;
            }
            tracing::warn!(error = %e, "WAL checkpoint failed; retrying");
        }
    }
}

store_impl!(SqliteStore, Sqlite, "sqlite", |i: usize| {
    let _ = i;
    "?".to_string()
});

/// PostgreSQL, for several server nodes sharing one database.
pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    pub async fn open(url: &str) -> Result<PgStore> {
        let opts = PgConnectOptions::from_str(url).map_err(|e| StoreError::Url {
            url: url.to_string(),
            message: e.to_string(),
        })?;
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(opts)
            .await
            .map_err(StoreError::Open)?;
        migrator("postgres", POSTGRES_SCHEMA).run(&pool).await?;
        Ok(PgStore { pool })
    }
}

store_impl!(PgStore, Postgres, "postgres", |i: usize| format!("${i}"));

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: &str) -> NewGame {
        NewGame {
            id: id.into(),
            setup: r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#.into(),
            mode: "otb".into(),
            token_white: "w".into(),
            token_black: "b".into(),
            token_director: "d".into(),
            created_ms: 1,
        }
    }

    fn ev(id: &str, n: i64, finished: Option<&str>) -> NewEvent {
        NewEvent {
            game_id: id.into(),
            n,
            json: format!(r#"{{"at":{n},"by":"white","press":true}}"#),
            by_role: Some("white".into()),
            client_id: (n == 1).then(|| "c1".into()),
            finished: finished.map(str::to_string),
        }
    }

    async fn exercise(store: Arc<dyn Store>) {
        store.create_game(&game("g1")).await.unwrap();
        store.create_game(&game("g2")).await.unwrap();
        assert!(
            store.create_game(&game("g1")).await.is_err(),
            "ids are unique"
        );
        let batch = vec![
            ev("g1", 1, None),
            ev("g2", 1, None),
            ev("g1", 2, Some("1-0")),
        ];
        store.append(&batch).await.unwrap();
        let events = store.events("g1").await.unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].client_id.as_deref(), Some("c1"));
        assert_eq!(events[1].json, batch[2].json);
        // A batch that repeats a stored event fails whole: nothing of it is kept.
        let bad = vec![ev("g2", 2, None), ev("g1", 2, None)];
        assert!(store.append(&bad).await.is_err());
        assert_eq!(store.events("g2").await.unwrap().len(), 1);
        let row = store.game("g1").await.unwrap().unwrap();
        assert_eq!((row.status, row.result.as_str()), (Status::Finished, "1-0"));
        assert_eq!(row.game, game("g1"));
        assert!(store.game("nope").await.unwrap().is_none());
        let live = store.list(Some(Status::Live), 10).await.unwrap();
        assert_eq!(
            live.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(),
            ["g2"]
        );
        assert_eq!(store.list(None, 10).await.unwrap().len(), 2);
    }

    #[tokio::test]
    async fn sqlite_round_trip_and_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let url = format!("sqlite:{}", path.display());
        exercise(open(&url).await.unwrap()).await;
        // Reopening runs the migrations again (nothing to do) and keeps the data.
        let again = open(path.to_str().unwrap()).await.unwrap();
        assert_eq!(again.events("g1").await.unwrap().len(), 2);
        assert_eq!(again.backend(), "sqlite");
    }

    #[tokio::test]
    async fn bad_urls_are_named() {
        let e = open("sqlite:").await.err().expect("an error");
        assert!(e.to_string().contains("no file named"), "{e}");
        let e = open("postgres://127.0.0.1:1/x?sslmode=bogus")
            .await
            .err()
            .expect("an error");
        assert!(
            e.to_string().contains("sslmode") || e.to_string().contains("URL"),
            "{e}"
        );
    }

    /// Runs against PostgreSQL when `FLAGFALL_TEST_POSTGRES` names a server (fails, not
    /// skips, when it is set but unreachable).
    #[tokio::test]
    async fn postgres_round_trip() {
        let Ok(url) = std::env::var("FLAGFALL_TEST_POSTGRES") else {
            return;
        };
        let db = format!("flagfall_store_{}", std::process::id());
        let admin = PgPool::connect(&url)
            .await
            .expect("FLAGFALL_TEST_POSTGRES reachable");
        sqlx::query(&format!("DROP DATABASE IF EXISTS {db}"))
            .execute(&admin)
            .await
            .unwrap();
        sqlx::query(&format!("CREATE DATABASE {db}"))
            .execute(&admin)
            .await
            .unwrap();
        let mut opts = PgConnectOptions::from_str(&url).unwrap();
        opts = opts.database(&db);
        let store = PgStore {
            pool: PgPool::connect_with(opts).await.unwrap(),
        };
        migrator("postgres", POSTGRES_SCHEMA)
            .run(&store.pool)
            .await
            .unwrap();
        exercise(Arc::new(store)).await;
        sqlx::query(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
            .execute(&admin)
            .await
            .unwrap();
    }
}

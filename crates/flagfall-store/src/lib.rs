//! flagfall-store: durable storage of live and finished games.
//!
//! The schema is a `games` row per game and an `events` log per game
//! (`(game_id, n, json)`; `n` counts from 1, `json` is the game-script event exactly as
//! stored), plus the lobby's open `challenges` (accepted at most once: a conditional
//! UPDATE in the transaction that creates the game). A practice game keeps its computer's
//! settings on its row (`practice`). One [`Store`] trait, two implementations: SQLite (the embedded default, WAL,
//! `synchronous=FULL`) and PostgreSQL. Schema migrations run on [`open`]
//! (`migrations/{sqlite,postgres}`). Queries are built at run time (`sqlx::query`), so
//! no database is needed to build.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// A practice game's computer settings (JSON, as the server writes them), so the
    /// computer plays on after a restart; `None` for a game between people.
    pub practice: Option<String>,
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
    /// The game-script setup line (names, ruleset, time control).
    pub setup: String,
    pub mode: String,
    pub status: Status,
    pub result: String,
    pub created_ms: i64,
}

/// Where an open challenge stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeStatus {
    Open,
    Accepted,
    Cancelled,
}

impl ChallengeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeStatus::Open => "open",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Cancelled => "cancelled",
        }
    }

    fn parse(s: &str) -> Result<ChallengeStatus> {
        match s {
            "open" => Ok(ChallengeStatus::Open),
            "accepted" => Ok(ChallengeStatus::Accepted),
            "cancelled" => Ok(ChallengeStatus::Cancelled),
            other => Err(StoreError::Corrupt(format!(
                "unknown challenge status {other:?}"
            ))),
        }
    }
}

/// An open challenge as created: a game anyone may accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewChallenge {
    pub id: String,
    /// The `POST /api/games` body of the game to create, JSON.
    pub body: String,
    /// The creator's colour: `white`, `black` or `random`.
    pub color: String,
    /// The creator's name.
    pub name: Option<String>,
    /// Hex SHA-256 of the creator's secret (the secret itself is never stored).
    pub secret_hash: String,
    /// The token hashes the game gives the creator and the director (the tokens are
    /// derived from the secret, so only the creator can compute them).
    pub token_hash: String,
    pub director_hash: String,
    pub created_ms: i64,
}

/// A stored challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeRow {
    pub challenge: NewChallenge,
    pub status: ChallengeStatus,
    /// The game, once accepted.
    pub game_id: Option<String>,
    /// The creator's colour in that game (`white` or `black`), once accepted.
    pub creator_color: Option<String>,
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
    /// Live practice games with their computer settings, oldest first.
    fn live_practice<'a>(&'a self) -> StoreFuture<'a, Vec<(String, String)>>;
    fn create_challenge<'a>(&'a self, c: &'a NewChallenge) -> StoreFuture<'a, ()>;
    fn challenge<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ChallengeRow>>;
    /// Open challenges created after `since_ms` (Unix milliseconds), newest first, at
    /// most `limit`.
    fn open_challenges<'a>(
        &'a self,
        since_ms: i64,
        limit: i64,
    ) -> StoreFuture<'a, Vec<ChallengeRow>>;
    /// Accept an open challenge: in one transaction, mark it accepted (only if it is
    /// still open: a conditional UPDATE, so of two concurrent accepts one wins) and create
    /// `game`. `false`, with nothing written, when the challenge was not open.
    fn accept_challenge<'a>(
        &'a self,
        id: &'a str,
        creator_color: &'a str,
        game: &'a NewGame,
    ) -> StoreFuture<'a, bool>;
    /// Cancel an open challenge whose secret hashes to `secret_hash`; `false` when no
    /// open challenge matches.
    fn cancel_challenge<'a>(&'a self, id: &'a str, secret_hash: &'a str) -> StoreFuture<'a, bool>;
    /// The heartbeat of live games' clocks: for each `(game_id, at)`, the game clock the
    /// server had reached (kept only when larger than the one stored). One transaction.
    fn beat<'a>(&'a self, beats: &'a [(String, i64)]) -> StoreFuture<'a, ()>;
    /// The last heartbeat stored for a game's clock, if any.
    fn last_beat<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<i64>>;
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

fn migrator(backend: &'static str, schema: &'static [(&'static str, &'static str)]) -> Migrator {
    let _ = backend;
    Migrator {
        migrations: Cow::Owned(
            schema
                .iter()
                .enumerate()
                .map(|(i, (name, sql))| {
                    Migration::new(
                        i as i64 + 1,
                        Cow::Borrowed(name),
                        MigrationType::Simple,
                        Cow::Borrowed(sql),
                        false,
                    )
                })
                .collect(),
        ),
        ..Migrator::DEFAULT
    }
}

/// The migrations of each backend, in order: `(description, SQL)`.
const SQLITE_SCHEMA: &[(&str, &str)] = &[
    ("games", include_str!("../migrations/sqlite/0001_games.sql")),
    (
        "practice challenges",
        include_str!("../migrations/sqlite/0002_practice_challenges.sql"),
    ),
    (
        "clock beats",
        include_str!("../migrations/sqlite/0003_clock_beats.sql"),
    ),
];
const POSTGRES_SCHEMA: &[(&str, &str)] = &[
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
];

/// The columns of a challenge row, in the order [`challenge_row`] reads them.
const CHALLENGE_COLUMNS: &str = "id, body, color, name, secret_hash, token_hash, director_hash, created_ms, status, game_id, creator_color";

fn challenge_row<R: Row>(r: &R) -> Result<ChallengeRow>
where
    usize: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let e = q("reading a challenge");
    let s = |i: usize| r.try_get::<String, _>(i).map_err(q("reading a challenge"));
    let o = |i: usize| {
        r.try_get::<Option<String>, _>(i)
            .map_err(q("reading a challenge"))
    };
    Ok(ChallengeRow {
        challenge: NewChallenge {
            id: s(0)?,
            body: s(1)?,
            color: s(2)?,
            name: o(3)?,
            secret_hash: s(4)?,
            token_hash: s(5)?,
            director_hash: s(6)?,
            created_ms: r.try_get::<i64, _>(7).map_err(e)?,
        },
        status: ChallengeStatus::parse(&s(8)?)?,
        game_id: o(9)?,
        creator_color: o(10)?,
    })
}

/// Rows per INSERT statement: 5 bind parameters a row, 20,480 in all, under either
/// backend's limit (SQLite 32,766, PostgreSQL 65,535). The server's writer takes at
/// most this many events into one group commit, so its commits are one statement.
pub const ROWS_PER_INSERT: usize = 4096;

/// One implementation for both backends: `$ph` spells the i-th bind placeholder.
/// Writes go through `self.writer`, reads through `self.pool`.
macro_rules! store_impl {
    ($ty:ty, $db:ty, $name:literal, $ph:expr) => {
        impl $ty {
            /// The statement that creates a game row (`create_game`, `accept_challenge`).
            fn insert_game_sql() -> String {
                format!(
                    "INSERT INTO games (id, setup, mode, token_white, token_black, token_director, created_ms, practice) VALUES ({})",
                    (1..=8).map($ph).collect::<Vec<_>>().join(", ")
                )
            }

            /// Bind a game's columns in `insert_game_sql`'s order.
            fn bind_game<'q>(
                query: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
                g: &'q NewGame,
            ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
                query
                    .bind(&g.id)
                    .bind(&g.setup)
                    .bind(&g.mode)
                    .bind(&g.token_white)
                    .bind(&g.token_black)
                    .bind(&g.token_director)
                    .bind(g.created_ms)
                    .bind(&g.practice)
            }
        }

        impl Store for $ty {
            fn backend(&self) -> &'static str {
                $name
            }

            fn create_game<'a>(&'a self, g: &'a NewGame) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    let sql = Self::insert_game_sql();
                    Self::bind_game(sqlx::query(&sql), g)
                        .execute(&self.writer)
                        .await
                        .map_err(q("creating a game"))?;
                    Ok(())
                })
            }

            fn game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<GameRow>> {
                Box::pin(async move {
                    let sql = format!(
                        "SELECT id, setup, mode, token_white, token_black, token_director, created_ms, status, result, practice FROM games WHERE id = {}",
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
                            practice: row
                                .try_get::<Option<String>, _>(9)
                                .map_err(q("reading a game"))?,
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
                    let insert = |chunk: &'a [NewEvent]| {
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
                        b
                    };
                    // The common case, one statement: a statement is a transaction of
                    // its own (all its rows or none), and one round trip to the
                    // database instead of three (BEGIN, INSERT, COMMIT).
                    if batch.len() <= ROWS_PER_INSERT && batch.iter().all(|e| e.finished.is_none())
                    {
                        insert(batch)
                            .build()
                            .execute(&self.writer)
                            .await
                            .map_err(q("appending events"))?;
                        self.after_commit().await;
                        return Ok(());
                    }
                    let mut tx = self.writer.begin().await.map_err(q("starting a commit"))?;
                    for chunk in batch.chunks(ROWS_PER_INSERT) {
                        insert(chunk)
                            .build()
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
                    self.after_commit().await;
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
                                "SELECT id, mode, status, result, created_ms, setup FROM games WHERE status = {} ORDER BY created_ms DESC, id LIMIT {}",
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
                                "SELECT id, mode, status, result, created_ms, setup FROM games ORDER BY created_ms DESC, id LIMIT {}",
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
                                setup: r.try_get(5).map_err(q("listing games"))?,
                            })
                        })
                        .collect()
                })
            }

            fn live_practice<'a>(&'a self) -> StoreFuture<'a, Vec<(String, String)>> {
                Box::pin(async move {
                    let rows = sqlx::query(
                        "SELECT id, practice FROM games WHERE status = 'live' AND practice IS NOT NULL ORDER BY created_ms, id",
                    )
                    .fetch_all(&self.pool)
                    .await
                    .map_err(q("listing practice games"))?;
                    rows.iter()
                        .map(|r| {
                            Ok((
                                r.try_get(0).map_err(q("listing practice games"))?,
                                r.try_get(1).map_err(q("listing practice games"))?,
                            ))
                        })
                        .collect()
                })
            }

            fn create_challenge<'a>(&'a self, c: &'a NewChallenge) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    let sql = format!(
                        "INSERT INTO challenges (id, body, color, name, secret_hash, token_hash, director_hash, created_ms) VALUES ({})",
                        (1..=8).map($ph).collect::<Vec<_>>().join(", ")
                    );
                    sqlx::query(&sql)
                        .bind(&c.id)
                        .bind(&c.body)
                        .bind(&c.color)
                        .bind(&c.name)
                        .bind(&c.secret_hash)
                        .bind(&c.token_hash)
                        .bind(&c.director_hash)
                        .bind(c.created_ms)
                        .execute(&self.writer)
                        .await
                        .map_err(q("creating a challenge"))?;
                    Ok(())
                })
            }

            fn challenge<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ChallengeRow>> {
                Box::pin(async move {
                    let sql = format!(
                        "SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE id = {}",
                        $ph(1)
                    );
                    let row = sqlx::query(&sql)
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(q("reading a challenge"))?;
                    row.as_ref().map(challenge_row).transpose()
                })
            }

            fn open_challenges<'a>(
                &'a self,
                since_ms: i64,
                limit: i64,
            ) -> StoreFuture<'a, Vec<ChallengeRow>> {
                Box::pin(async move {
                    let sql = format!(
                        "SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' AND created_ms > {} ORDER BY created_ms DESC, id LIMIT {}",
                        $ph(1),
                        $ph(2)
                    );
                    let rows = sqlx::query(&sql)
                        .bind(since_ms)
                        .bind(limit)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(q("listing challenges"))?;
                    rows.iter().map(challenge_row).collect()
                })
            }

            fn accept_challenge<'a>(
                &'a self,
                id: &'a str,
                creator_color: &'a str,
                g: &'a NewGame,
            ) -> StoreFuture<'a, bool> {
                Box::pin(async move {
                    let mut tx = self.writer.begin().await.map_err(q("accepting a challenge"))?;
                    // The game first (the challenge row refers to it), then the
                    // conditional UPDATE: if the challenge is no longer open, the whole
                    // transaction, game included, is rolled back.
                    let sql = Self::insert_game_sql();
                    Self::bind_game(sqlx::query(&sql), g)
                        .execute(&mut *tx)
                        .await
                        .map_err(q("creating a challenge's game"))?;
                    let sql = format!(
                        "UPDATE challenges SET status = 'accepted', game_id = {}, creator_color = {} WHERE id = {} AND status = 'open'",
                        $ph(1),
                        $ph(2),
                        $ph(3)
                    );
                    let done = sqlx::query(&sql)
                        .bind(&g.id)
                        .bind(creator_color)
                        .bind(id)
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

            fn cancel_challenge<'a>(
                &'a self,
                id: &'a str,
                secret_hash: &'a str,
            ) -> StoreFuture<'a, bool> {
                Box::pin(async move {
                    let sql = format!(
                        "UPDATE challenges SET status = 'cancelled' WHERE id = {} AND secret_hash = {} AND status = 'open'",
                        $ph(1),
                        $ph(2)
                    );
                    let done = sqlx::query(&sql)
                        .bind(id)
                        .bind(secret_hash)
                        .execute(&self.writer)
                        .await
                        .map_err(q("cancelling a challenge"))?;
                    Ok(done.rows_affected() == 1)
                })
            }

            fn beat<'a>(&'a self, beats: &'a [(String, i64)]) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    if beats.is_empty() {
                        return Ok(());
                    }
                    let mut tx = self.writer.begin().await.map_err(q("starting a heartbeat"))?;
                    for chunk in beats.chunks(ROWS_PER_INSERT) {
                        let mut b =
                            QueryBuilder::<$db>::new("INSERT INTO clock_beats (game_id, at) ");
                        b.push_values(chunk, |mut row, (id, at)| {
                            row.push_bind(id).push_bind(*at);
                        });
                        b.push(
                            " ON CONFLICT (game_id) DO UPDATE SET at = excluded.at WHERE excluded.at > clock_beats.at",
                        );
                        b.build()
                            .execute(&mut *tx)
                            .await
                            .map_err(q("storing a heartbeat"))?;
                    }
                    tx.commit().await.map_err(q("committing a heartbeat"))?;
                    Ok(())
                })
            }

            fn last_beat<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<i64>> {
                Box::pin(async move {
                    let sql = format!("SELECT at FROM clock_beats WHERE game_id = {}", $ph(1));
                    let row = sqlx::query(&sql)
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(q("reading a heartbeat"))?;
                    row.map(|r| r.try_get::<i64, _>(0).map_err(q("reading a heartbeat")))
                        .transpose()
                })
            }
        }
    };
}

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
        migrator("sqlite", SQLITE_SCHEMA).run(&writer).await?;
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

store_impl!(SqliteStore, Sqlite, "sqlite", |i: usize| {
    let _ = i;
    "?".to_string()
});

/// PostgreSQL, for several server nodes sharing one database.
pub struct PgStore {
    pool: PgPool,
    /// The same pool: PostgreSQL takes concurrent writers.
    writer: PgPool,
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
        Ok(PgStore {
            writer: pool.clone(),
            pool,
        })
    }

    async fn after_commit(&self) {}
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
            practice: None,
        }
    }

    fn challenge(id: &str, created_ms: i64) -> NewChallenge {
        NewChallenge {
            id: id.into(),
            body: r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#.into(),
            color: "random".into(),
            name: Some("Ann".into()),
            secret_hash: format!("s-{id}"),
            token_hash: format!("t-{id}"),
            director_hash: format!("d-{id}"),
            created_ms,
        }
    }

    /// Challenges: listed while open, accepted once (even by two concurrent accepts,
    /// whose loser writes nothing), cancelled only with the secret.
    async fn exercise_challenges(store: Arc<dyn Store>) {
        store.create_challenge(&challenge("c1", 10)).await.unwrap();
        store.create_challenge(&challenge("c2", 20)).await.unwrap();
        assert!(store.create_challenge(&challenge("c1", 30)).await.is_err());
        let open = store.open_challenges(0, 10).await.unwrap();
        assert_eq!(
            store.open_challenges(15, 10).await.unwrap().len(),
            1,
            "only those created after since_ms"
        );
        assert_eq!(
            open.iter()
                .map(|c| c.challenge.id.as_str())
                .collect::<Vec<_>>(),
            ["c2", "c1"]
        );
        assert_eq!(open[1].challenge, challenge("c1", 10));
        assert_eq!(open[1].status, ChallengeStatus::Open);
        let (a, b) = (game("ga"), game("gb"));
        let (ra, rb) = tokio::join!(
            store.accept_challenge("c1", "white", &a),
            store.accept_challenge("c1", "black", &b)
        );
        let (ra, rb) = (ra.unwrap(), rb.unwrap());
        assert!(ra ^ rb, "exactly one accept wins: {ra} {rb}");
        let (won, lost, colour) = if ra {
            ("ga", "gb", "white")
        } else {
            ("gb", "ga", "black")
        };
        assert!(store.game(won).await.unwrap().is_some());
        assert!(
            store.game(lost).await.unwrap().is_none(),
            "the losing accept created no game"
        );
        let row = store.challenge("c1").await.unwrap().unwrap();
        assert_eq!(row.status, ChallengeStatus::Accepted);
        assert_eq!(row.game_id.as_deref(), Some(won));
        assert_eq!(row.creator_color.as_deref(), Some(colour));
        assert!(
            !store
                .accept_challenge("c1", "white", &game("gc"))
                .await
                .unwrap()
        );
        assert!(
            !store.cancel_challenge("c1", "s-c1").await.unwrap(),
            "accepted"
        );
        assert!(!store.cancel_challenge("c2", "wrong").await.unwrap());
        assert!(store.cancel_challenge("c2", "s-c2").await.unwrap());
        assert_eq!(
            store.challenge("c2").await.unwrap().unwrap().status,
            ChallengeStatus::Cancelled
        );
        assert!(
            !store
                .accept_challenge("c2", "white", &game("gd"))
                .await
                .unwrap()
        );
        assert!(store.open_challenges(0, 10).await.unwrap().is_empty());
        assert!(store.challenge("nope").await.unwrap().is_none());
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
        assert_eq!(live[0].setup, game("g2").setup);
        // A practice game keeps its computer's settings; only live ones are listed.
        let mut p = game("p1");
        p.practice = Some(r#"{"color":"black"}"#.into());
        store.create_game(&p).await.unwrap();
        assert_eq!(store.game("p1").await.unwrap().unwrap().game, p);
        assert_eq!(
            store.live_practice().await.unwrap(),
            vec![("p1".to_string(), r#"{"color":"black"}"#.to_string())]
        );
        store.append(&[ev("p1", 1, Some("0-1"))]).await.unwrap();
        // Heartbeats: the latest of each game's, never going back.
        assert_eq!(store.last_beat("g2").await.unwrap(), None);
        store
            .beat(&[("g2".into(), 1500), ("p1".into(), 10)])
            .await
            .unwrap();
        store.beat(&[("g2".into(), 900)]).await.unwrap();
        assert_eq!(store.last_beat("g2").await.unwrap(), Some(1500));
        store.beat(&[("g2".into(), 2500)]).await.unwrap();
        assert_eq!(store.last_beat("g2").await.unwrap(), Some(2500));
        assert_eq!(store.last_beat("p1").await.unwrap(), Some(10));
        assert!(store.live_practice().await.unwrap().is_empty());
        exercise_challenges(store).await;
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
        assert_eq!(again.open_challenges(0, 10).await.unwrap().len(), 0);
        assert_eq!(again.backend(), "sqlite");
    }

    /// The WAL header's checkpoint sequence number: it goes up each time the WAL starts
    /// again from its beginning.
    fn wal_restarts(db: &std::path::Path) -> u32 {
        use std::io::Read;
        let mut head = [0u8; 16];
        std::fs::File::open(db.with_extension("db-wal"))
            .unwrap()
            .read_exact(&mut head)
            .unwrap();
        u32::from_be_bytes(head[12..16].try_into().unwrap())
    }

    /// Regression: under commits without a pause, the background checkpoint alone never
    /// caught up with the writer, so the WAL never started again and grew without end
    /// (469 MB after seven seconds of a closed-loop load test).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_wal_starts_again_under_continuous_commits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let store = open(path.to_str().unwrap()).await.unwrap();
        for g in 0..40 {
            store.create_game(&game(&format!("g{g}"))).await.unwrap();
        }
        // The first background pass runs at once, on a quiet database: that restart
        // proves nothing. Count from the first commit after it.
        tokio::time::sleep(Duration::from_millis(100)).await;
        store.append(&[ev("g0", 1, None)]).await.unwrap();
        let first = wal_restarts(&path);
        // Four appenders, ten games each, so that the writer never waits for work.
        let stop = Arc::new(AtomicBool::new(false));
        let appenders: Vec<_> = (0..4)
            .map(|a| {
                let store = store.clone();
                let stop = stop.clone();
                tokio::spawn(async move {
                    let games: Vec<String> =
                        (a * 10..a * 10 + 10).map(|g| format!("g{g}")).collect();
                    // g0 has its first event already.
                    let mut last = vec![0; 10];
                    last[0] = i64::from(a == 0);
                    while !stop.load(Ordering::Relaxed) {
                        let batch: Vec<_> = games
                            .iter()
                            .enumerate()
                            .map(|(i, g)| ev(g, last[i] + 1, None))
                            .collect();
                        store.append(&batch).await.unwrap();
                        for l in &mut last {
                            *l += 1;
                        }
                    }
                    (games, last)
                })
            })
            .collect();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mut restarted = false;
        while std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if wal_restarts(&path) > first {
                restarted = true;
                break;
            }
        }
        stop.store(true, Ordering::Relaxed);
        for a in appenders {
            let (games, last) = a.await.unwrap();
            // Nothing was lost on the way.
            for (g, n) in games.iter().zip(last) {
                assert_eq!(store.events(g).await.unwrap().len() as i64, n);
            }
        }
        assert!(restarted, "the WAL did not start again in 20 s of commits");
    }

    #[tokio::test]
    async fn a_schema_1_database_migrates_and_keeps_its_games() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let url = format!("sqlite:{}", path.display());
        {
            let opts = SqliteConnectOptions::from_str(&url)
                .unwrap()
                .create_if_missing(true);
            let pool = SqlitePool::connect_with(opts).await.unwrap();
            migrator("sqlite", &SQLITE_SCHEMA[..1])
                .run(&pool)
                .await
                .unwrap();
            sqlx::query(
                "INSERT INTO games (id, setup, mode, token_white, token_black, token_director, created_ms) VALUES ('old', '{}', 'otb', 'w', 'b', 'd', 5)",
            )
            .execute(&pool)
            .await
            .unwrap();
            pool.close().await;
        }
        let store = open(&url).await.unwrap();
        let row = store.game("old").await.unwrap().expect("kept");
        assert_eq!(row.game.practice, None);
        assert_eq!(row.game.created_ms, 5);
        assert!(store.open_challenges(0, 5).await.unwrap().is_empty());
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
        let pool = PgPool::connect_with(opts).await.unwrap();
        let store = PgStore {
            writer: pool.clone(),
            pool,
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

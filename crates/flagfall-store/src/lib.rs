//! flagfall-store: durable storage of live and finished games.
//!
//! The schema is a `games` row per game and an `events` log per game
//! (`(game_id, n, json)`; `n` counts from 1, `json` is the game-script event exactly as
//! stored), plus the lobby's open `challenges` (accepted at most once: a conditional
//! UPDATE in the transaction that creates the game). A practice game keeps its computer's
//! settings on its row (`practice`). Blitz evenings (`tournament.rs`): an evening's event as
//! created, its log of changes, its tokens' hashes and its games. The rematch of a
//! finished game (`rematch.rs`): who offered, where it stands, the new game.
//!
//! One [`Store`] trait (`contract.rs`), its rows (`rows.rs`) and errors (`error.rs`);
//! the SQL both backends run, written once (`sql.rs`); one implementation of the trait,
//! [`SqlStore`] (`backend.rs`), generic over a [`Backend`] for what differs:
//! [`SqliteStore`] (`sqlite.rs`: the embedded default, WAL, `synchronous=FULL`) and
//! [`PgStore`] (`postgres.rs`). Schema migrations run on [`open`]
//! (`migrations/{sqlite,postgres}`). Queries are built at run time (`sqlx::query`), so
//! no database is needed to build.

mod backend;
mod contract;
mod error;
mod lease;
mod postgres;
mod rematch;
mod rows;
mod sql;
mod sqlite;
mod tournament;

#[cfg(test)]
mod contract_tests;

use std::sync::Arc;

pub use backend::{Backend, SqlStore};
pub use contract::{ROWS_PER_INSERT, Store, StoreFuture};
pub use error::{Result, StoreError};
pub use lease::{Lease, LeaseRow, RECENT_MS, Unleased};
pub use postgres::{PgBackend, PgStore};
pub use rematch::RematchRow;
pub use rows::{
    ChallengeRow, ChallengeStatus, ClockMark, GameRow, GameSummary, NewChallenge, NewEvent,
    NewGame, Status, StoredEvent,
};
pub use sqlite::{SqliteBackend, SqliteStore};
pub use tournament::{NewTournament, TournamentCommit, TournamentLogRow, TournamentToken};

/// Open the database a URL names, creating it (SQLite) and running migrations.
/// `postgres://` or `postgresql://` is PostgreSQL; `sqlite:PATH` or a bare path is SQLite.
pub async fn open(url: &str) -> Result<Arc<dyn Store>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::open(url).await?))
    } else {
        Ok(Arc::new(SqliteStore::open(url).await?))
    }
}

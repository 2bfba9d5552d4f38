//! The store written once over both backends: [`SqlStore`], generic over a [`Backend`].
//!
//! Why a generic and not a macro: sqlx's `Database` trait carries everything the shared
//! code needs (its pools, transactions, rows and binds), so one `impl Store` over
//! `SqlStore<B>` is type-checked once, for both databases, and reads as ordinary code;
//! a macro expanded in two `impl`s (as the evenings' and rematches' methods were) is
//! checked only where it is expanded and hides which names it captures. The price is one
//! `where` clause, on that `impl`, naming what sqlx must do for the database (execute on
//! a pool and on a transaction's connection, bind `&str`, `Option<&str>` and `i64`,
//! decode `String`, `Option<String>` and `i64`). What truly differs is the small
//! [`Backend`] trait each backend implements in its own file: its name, its rows-affected
//! count (an inherent method of each database's result type, not of a trait), what runs
//! after a commit (SQLite's checkpoint hand-over), how clock marks are stored (fenced by
//! lease epoch on PostgreSQL), the row locks an evening's abort takes first (PostgreSQL)
//! and the cluster's leases (PostgreSQL; SQLite keeps the contract's "unsupported").

use std::future::Future;

use flagfall_protocol::{ColorName, RematchStatus};
use sqlx::{ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Pool, Type};

use crate::error::q;
use crate::sql::{self, Bind};
use crate::tournament::{self, TOURNAMENT_ROWS};
use crate::{
    ChallengeRow, ClockMark, GameRow, GameSummary, Lease, LeaseRow, NewChallenge, NewEvent,
    NewGame, NewTournament, ROWS_PER_INSERT, RematchRow, Result, Status, Store, StoreError,
    StoreFuture, StoredEvent, TournamentCommit, TournamentLogRow, TournamentToken, Unleased,
};

/// What differs between the two databases; everything else is [`SqlStore`]'s.
pub trait Backend: Send + Sync + Sized + 'static {
    /// The sqlx database.
    type DB: Database;
    /// `sqlite` or `postgres` ([`Store::backend`]).
    const NAME: &'static str;
    /// How the multi-row inserts of events name their parameters.
    const PLACEHOLDERS: sql::Placeholders = sql::Placeholders::Numbered;

    /// Rows a statement changed.
    fn rows_affected(done: &<Self::DB as Database>::QueryResult) -> u64;

    /// After a commit of events or of an evening's change.
    fn after_commit(store: &SqlStore<Self>) -> impl Future<Output = ()> + Send + '_;

    /// Store clock marks of run `run`, inside the heartbeat's transaction.
    fn store_marks<'c>(
        conn: &'c mut <Self::DB as Database>::Connection,
        run: &'c str,
        marks: &'c [ClockMark],
    ) -> impl Future<Output = Result<()>> + Send + 'c;

    /// Before an evening's change aborts games `ids`: lock their rows (sorted), as a
    /// fenced commit does, where writers run concurrently.
    fn lock_games<'c>(
        conn: &'c mut <Self::DB as Database>::Connection,
        ids: &'c [String],
    ) -> impl Future<Output = Result<()>> + Send + 'c;

    /// Close what the backend holds of its own ([`Store::close`]), after the pools.
    fn close(store: &SqlStore<Self>) -> impl Future<Output = ()> + Send + '_ {
        let _ = store;
        async {}
    }

    /// [`Store::lease_claim`].
    fn lease_claim<'a>(
        store: &'a SqlStore<Self>,
        id: &'a str,
        node: &'a str,
        lease_ms: i64,
    ) -> StoreFuture<'a, Option<i64>> {
        let _ = (store, id, node, lease_ms);
        crate::contract::unsupported()
    }
    /// [`Store::lease_of`].
    fn lease_of<'a>(store: &'a SqlStore<Self>, id: &'a str) -> StoreFuture<'a, Option<LeaseRow>> {
        let _ = (store, id);
        crate::contract::unsupported()
    }
    /// [`Store::lease_renew`].
    fn lease_renew<'a>(
        store: &'a SqlStore<Self>,
        node: &'a str,
        lease_ms: i64,
    ) -> StoreFuture<'a, Vec<Lease>> {
        let _ = (store, node, lease_ms);
        crate::contract::unsupported()
    }
    /// [`Store::lease_release`].
    fn lease_release<'a>(
        store: &'a SqlStore<Self>,
        id: &'a str,
        node: &'a str,
        epoch: i64,
    ) -> StoreFuture<'a, ()> {
        let _ = (store, id, node, epoch);
        crate::contract::unsupported()
    }
    /// [`Store::lease_take_over`].
    fn lease_take_over<'a>(
        store: &'a SqlStore<Self>,
        node: &'a str,
        lease_ms: i64,
        limit: i64,
        unleased: Unleased,
    ) -> StoreFuture<'a, Vec<Lease>> {
        let _ = (store, node, lease_ms, limit, unleased);
        crate::contract::unsupported()
    }
    /// [`Store::append_fenced`].
    fn append_fenced<'a>(
        store: &'a SqlStore<Self>,
        batch: &'a [NewEvent],
        node: &'a str,
        epochs: &'a [i64],
    ) -> StoreFuture<'a, Vec<Lease>> {
        let _ = (store, batch, node, epochs);
        crate::contract::unsupported()
    }
}

/// A store on database `B`: [`crate::SqliteStore`] or [`crate::PgStore`].
pub struct SqlStore<B: Backend> {
    /// Reads.
    pub(crate) pool: Pool<B::DB>,
    /// Writes (SQLite: one connection of its own; PostgreSQL: the same pool).
    pub(crate) writer: Pool<B::DB>,
    /// The backend's own parts (SQLite's checkpoint flag, PostgreSQL's lease pool).
    pub(crate) own: B,
}

/// `Bind::<B::DB>`: the shared statements, bound for this store's database.
type Sql<B> = Bind<<B as Backend>::DB>;

impl<B: Backend> Store for SqlStore<B>
where
    for<'c> &'c mut <B::DB as Database>::Connection: Executor<'c, Database = B::DB>,
    for<'q> <B::DB as Database>::Arguments<'q>: IntoArguments<'q, B::DB> + Default,
    for<'q> &'q str: Encode<'q, B::DB> + Type<B::DB>,
    for<'q> Option<&'q str>: Encode<'q, B::DB> + Type<B::DB>,
    for<'q> i64: Encode<'q, B::DB> + Type<B::DB>,
    for<'r> String: Decode<'r, B::DB> + Type<B::DB>,
    for<'r> Option<String>: Decode<'r, B::DB> + Type<B::DB>,
    for<'r> i64: Decode<'r, B::DB> + Type<B::DB>,
    usize: ColumnIndex<<B::DB as Database>::Row>,
{
    fn backend(&self) -> &'static str {
        B::NAME
    }

    fn close(&self) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            self.writer.close().await;
            self.pool.close().await;
            B::close(self).await;
        })
    }

    fn create_game<'a>(&'a self, g: &'a NewGame) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            Sql::<B>::insert_game(g)
                .execute(&self.writer)
                .await
                .map_err(q("creating a game"))?;
            Ok(())
        })
    }

    fn game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<GameRow>> {
        Box::pin(async move {
            let row = Sql::<B>::game(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(q("reading a game"))?;
            row.as_ref().map(sql::game_row).transpose()
        })
    }

    fn events<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<StoredEvent>> {
        Box::pin(async move {
            let rows = Sql::<B>::events(id)
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
                let sql = sql::values_with(B::PLACEHOLDERS, sql::INSERT_EVENTS, 5, batch.len(), "");
                Sql::<B>::event_rows(&sql, batch)
                    .execute(&self.writer)
                    .await
                    .map_err(q("appending events"))?;
                B::after_commit(self).await;
                return Ok(());
            }
            let mut tx = self.writer.begin().await.map_err(q("starting a commit"))?;
            for chunk in batch.chunks(ROWS_PER_INSERT) {
                let sql = sql::values_with(B::PLACEHOLDERS, sql::INSERT_EVENTS, 5, chunk.len(), "");
                Sql::<B>::event_rows(&sql, chunk)
                    .execute(&mut *tx)
                    .await
                    .map_err(q("appending events"))?;
            }
            for e in batch {
                if let Some(result) = e.finished {
                    Sql::<B>::finish_game(&e.game_id, result)
                        .execute(&mut *tx)
                        .await
                        .map_err(q("finishing a game"))?;
                }
            }
            tx.commit().await.map_err(q("committing events"))?;
            B::after_commit(self).await;
            Ok(())
        })
    }

    fn list<'a>(&'a self, status: Option<Status>, limit: i64) -> StoreFuture<'a, Vec<GameSummary>> {
        Box::pin(async move {
            let rows = Sql::<B>::list(status, limit)
                .fetch_all(&self.pool)
                .await
                .map_err(q("listing games"))?;
            Ok(sql::readable(&rows, sql::game_summary, "games"))
        })
    }

    fn live_ids(&self) -> StoreFuture<'_, Vec<String>> {
        Box::pin(async move {
            let rows = Sql::<B>::live_ids()
                .fetch_all(&self.pool)
                .await
                .map_err(q("listing live games"))?;
            rows.iter()
                .map(|r| sql::get(r, 0, "listing live games"))
                .collect()
        })
    }

    fn create_challenge<'a>(&'a self, c: &'a NewChallenge) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            Sql::<B>::insert_challenge(c)
                .execute(&self.writer)
                .await
                .map_err(q("creating a challenge"))?;
            Ok(())
        })
    }

    fn challenge<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ChallengeRow>> {
        Box::pin(async move {
            let row = Sql::<B>::challenge(id)
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
            let rows = Sql::<B>::open_challenges(since_ms, limit)
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
            const DOING: &str = "accepting a challenge";
            let mut tx = self.writer.begin().await.map_err(q(DOING))?;
            // The game first (the challenge row refers to it), then the conditional
            // UPDATE: if the challenge is no longer open, the whole transaction, game
            // included, is rolled back.
            Sql::<B>::insert_game(g)
                .execute(&mut *tx)
                .await
                .map_err(q("creating a challenge's game"))?;
            let done = Sql::<B>::accept_challenge(id, &g.id, creator_color)
                .execute(&mut *tx)
                .await
                .map_err(q(DOING))?;
            if B::rows_affected(&done) != 1 {
                tx.rollback().await.map_err(q(DOING))?;
                return Ok(false);
            }
            tx.commit().await.map_err(q(DOING))?;
            Ok(true)
        })
    }

    fn cancel_challenge<'a>(&'a self, id: &'a str, secret_hash: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = Sql::<B>::cancel_challenge(id, secret_hash)
                .execute(&self.writer)
                .await
                .map_err(q("cancelling a challenge"))?;
            Ok(B::rows_affected(&done) == 1)
        })
    }

    fn abort_game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = Sql::<B>::abort_game(id)
                .execute(&self.writer)
                .await
                .map_err(q("aborting a game"))?;
            Ok(B::rows_affected(&done) == 1)
        })
    }

    fn abort_unstarted<'a>(&'a self, before_ms: i64) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let done = Sql::<B>::abort_unstarted(before_ms)
                .execute(&self.writer)
                .await
                .map_err(q("aborting games never started"))?;
            Ok(B::rows_affected(&done))
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
                Sql::<B>::server_alive(run, started_ms, now_ms)
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
            Sql::<B>::server_alive(run, started_ms, now_ms)
                .execute(&mut *tx)
                .await
                .map_err(q("storing the heartbeat"))?;
            B::store_marks(&mut tx, run, marks).await?;
            tx.commit().await.map_err(q("committing a heartbeat"))?;
            Ok(())
        })
    }

    fn last_beat<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<i64>> {
        Box::pin(async move {
            let row = Sql::<B>::last_beat(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(q("reading a heartbeat"))?;
            row.as_ref().map(sql::clock_reached).transpose()
        })
    }

    // Rematches (`rematch.rs`: the statements and the row).

    fn rematch<'a>(&'a self, game_id: &'a str) -> StoreFuture<'a, Option<RematchRow>> {
        Box::pin(async move {
            let row = Sql::<B>::rematch(game_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(q("reading a rematch"))?;
            row.as_ref().map(crate::rematch::rematch_row).transpose()
        })
    }

    fn offer_rematch<'a>(
        &'a self,
        game_id: &'a str,
        by: ColorName,
        offer_token_hash: &'a str,
        now_ms: i64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = Sql::<B>::offer_rematch(game_id, by, offer_token_hash, now_ms)
                .execute(&self.writer)
                .await
                .map_err(q("offering a rematch"))?;
            Ok(B::rows_affected(&done) == 1)
        })
    }

    fn decline_rematch<'a>(
        &'a self,
        game_id: &'a str,
        offered_by: ColorName,
        now_ms: i64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let declined = RematchStatus::Declined;
            let done = Sql::<B>::answer_rematch(game_id, offered_by, declined, None, now_ms)
                .execute(&self.writer)
                .await
                .map_err(q("declining a rematch"))?;
            Ok(B::rows_affected(&done) == 1)
        })
    }

    fn accept_rematch<'a>(
        &'a self,
        game_id: &'a str,
        offered_by: ColorName,
        g: &'a NewGame,
        now_ms: i64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            const DOING: &str = "accepting a rematch";
            let mut tx = self.writer.begin().await.map_err(q(DOING))?;
            // The game first (the rematch row refers to it), then the conditional
            // UPDATE: if the offer no longer stands, the whole transaction, game
            // included, is rolled back.
            Sql::<B>::insert_game(g)
                .execute(&mut *tx)
                .await
                .map_err(q("creating a rematch's game"))?;
            let accepted = RematchStatus::Accepted;
            let new_game = Some(g.id.as_str());
            let done = Sql::<B>::answer_rematch(game_id, offered_by, accepted, new_game, now_ms)
                .execute(&mut *tx)
                .await
                .map_err(q(DOING))?;
            if B::rows_affected(&done) != 1 {
                tx.rollback().await.map_err(q(DOING))?;
                return Ok(false);
            }
            tx.commit().await.map_err(q(DOING))?;
            Ok(true)
        })
    }

    // Evenings (`tournament.rs`: the statements and the rows).

    fn create_tournament<'a>(
        &'a self,
        t: &'a NewTournament,
        tokens: &'a [TournamentToken],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            const DOING: &str = "creating an evening";
            let mut tx = self.writer.begin().await.map_err(q(DOING))?;
            Sql::<B>::insert_tournament(t)
                .execute(&mut *tx)
                .await
                .map_err(q(DOING))?;
            for chunk in tokens.chunks(TOURNAMENT_ROWS) {
                let sql = sql::values(tournament::INSERT_TOKENS, 4, chunk.len(), "");
                Sql::<B>::tournament_token_rows(&sql, chunk)
                    .execute(&mut *tx)
                    .await
                    .map_err(q("storing an evening's tokens"))?;
            }
            tx.commit().await.map_err(q(DOING))?;
            Ok(())
        })
    }

    fn tournament<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<NewTournament>> {
        Box::pin(async move {
            let row = Sql::<B>::tournament(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(q("reading an evening"))?;
            row.as_ref().map(tournament::tournament_row).transpose()
        })
    }

    fn tournament_log<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<TournamentLogRow>> {
        Box::pin(async move {
            let rows = Sql::<B>::tournament_log(id)
                .fetch_all(&self.pool)
                .await
                .map_err(q("reading an evening's log"))?;
            rows.iter().map(tournament::log_row).collect()
        })
    }

    fn tournament_log_after<'a>(
        &'a self,
        id: &'a str,
        seq: i64,
    ) -> StoreFuture<'a, Vec<TournamentLogRow>> {
        Box::pin(async move {
            let rows = Sql::<B>::tournament_log_after(id, seq)
                .fetch_all(&self.pool)
                .await
                .map_err(q("reading an evening's log"))?;
            rows.iter().map(tournament::log_row).collect()
        })
    }

    fn tournament_tokens<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<TournamentToken>> {
        Box::pin(async move {
            let rows = Sql::<B>::tournament_tokens(id)
                .fetch_all(&self.pool)
                .await
                .map_err(q("reading an evening's tokens"))?;
            rows.iter().map(tournament::token_row).collect()
        })
    }

    fn tournament_of_game<'a>(&'a self, game_id: &'a str) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            const DOING: &str = "finding a game's evening";
            let row = Sql::<B>::tournament_of_game(game_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(q(DOING))?;
            row.map(|r| sql::get(&r, 0, DOING)).transpose()
        })
    }

    fn tournament_commit<'a>(&'a self, c: &'a TournamentCommit) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if c.is_empty() {
                return Ok(());
            }
            const DOING: &str = "storing an evening's change";
            let id = c.tournament_id.as_str();
            let mut tx = self.writer.begin().await.map_err(q(DOING))?;
            // The log rows first: a row another writer (another node) stored first is
            // the conflict to report, before anything else the change brings (its
            // tokens, its games) could clash with what that writer stored.
            for chunk in c.log.chunks(TOURNAMENT_ROWS) {
                let sql = sql::values(tournament::INSERT_LOG, 3, chunk.len(), "");
                Sql::<B>::tournament_log_rows(&sql, id, chunk)
                    .execute(&mut *tx)
                    .await
                    .map_err(tournament::log_clash(id))?;
            }
            for chunk in c.games.chunks(TOURNAMENT_ROWS) {
                for g in chunk {
                    Sql::<B>::insert_game(g)
                        .execute(&mut *tx)
                        .await
                        .map_err(q("creating an evening's game"))?;
                }
                let sql = sql::values(tournament::INSERT_GAMES, 2, chunk.len(), "");
                Sql::<B>::tournament_game_rows(&sql, id, chunk)
                    .execute(&mut *tx)
                    .await
                    .map_err(q(DOING))?;
            }
            for chunk in c.tokens.chunks(TOURNAMENT_ROWS) {
                let sql = sql::values(tournament::INSERT_TOKENS, 4, chunk.len(), "");
                Sql::<B>::tournament_token_rows(&sql, chunk)
                    .execute(&mut *tx)
                    .await
                    .map_err(q(DOING))?;
            }
            // The games to abort locked first where the backend has concurrent writers
            // (PostgreSQL: in id order, as a fenced commit locks them), so that an event
            // being stored for one is either seen by the abort below (which then fails)
            // or refused by the fence once the abort is stored (issue 32, item 5).
            if !c.abort.is_empty() {
                B::lock_games(&mut tx, &c.abort).await?;
            }
            for game in &c.abort {
                let done = Sql::<B>::abort_tournament_game(game)
                    .execute(&mut *tx)
                    .await
                    .map_err(q("aborting an evening's game"))?;
                if B::rows_affected(&done) != 1 {
                    return Err(StoreError::Conflict(format!(
                        "game {game} has begun (or is not the evening's to abort)"
                    )));
                }
            }
            tx.commit().await.map_err(q(DOING))?;
            B::after_commit(self).await;
            Ok(())
        })
    }

    // Cluster leases: the backend's own (PostgreSQL's `lease.rs`; SQLite has none).

    fn lease_claim<'a>(
        &'a self,
        id: &'a str,
        node: &'a str,
        lease_ms: i64,
    ) -> StoreFuture<'a, Option<i64>> {
        B::lease_claim(self, id, node, lease_ms)
    }

    fn lease_of<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<LeaseRow>> {
        B::lease_of(self, id)
    }

    fn lease_renew<'a>(&'a self, node: &'a str, lease_ms: i64) -> StoreFuture<'a, Vec<Lease>> {
        B::lease_renew(self, node, lease_ms)
    }

    fn lease_release<'a>(&'a self, id: &'a str, node: &'a str, epoch: i64) -> StoreFuture<'a, ()> {
        B::lease_release(self, id, node, epoch)
    }

    fn lease_take_over<'a>(
        &'a self,
        node: &'a str,
        lease_ms: i64,
        limit: i64,
        unleased: Unleased,
    ) -> StoreFuture<'a, Vec<Lease>> {
        B::lease_take_over(self, node, lease_ms, limit, unleased)
    }

    fn append_fenced<'a>(
        &'a self,
        batch: &'a [NewEvent],
        node: &'a str,
        epochs: &'a [i64],
    ) -> StoreFuture<'a, Vec<Lease>> {
        B::append_fenced(self, batch, node, epochs)
    }
}
